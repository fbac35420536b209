-- every Lua type, and extreme numbers, given to every option of every call:
-- each must be a Lua error or a value, never a crash
local sim = tcsim.sim{}
local dev = sim:dev("eth0")
local other = tcsim.sim{ name = "other" }
local odev = other:dev("eth1")
local tr = tcsim.traffic{ count = 1, pps = 1 }
local co = coroutine.create(function() end)
local values = { true, false, 0, -1, 1, 0.5, 1e308, -1e308, 0/0, math.huge, -math.huge,
  math.maxinteger, math.mininteger, 2^63, 99999, 100000, "", "x", "1", "10ms", "1:3", "-1",
  "1e400", "10mbit", {},#{1, 2}, { min = 1, max = 2 }, print, co, sim, dev, odev, tr }
local calls = {
  { function(o) return tcsim.sim(o) end, { "name", "seed", "kernel", "sfq_allot", "sfq_hash",
    "rate", "overhead", "mtu", "txqueuelen", "delay" } },
  { function(o) return sim:dev("eth0", o) end, { "rate", "overhead", "mtu", "txqueuelen", "delay" } },
  { function(o) return dev:set(o) end, { "rate", "overhead", "mtu", "txqueuelen", "delay" } },
  { function(o) return sim:replay("captures/icmp_5_pings.pcap", o) end, { "dev", "speed", "pps",
    "mbps", "topspeed", "loop", "limit", "start", "duration", "priority", "vlan" } },
  { function(o) o.count = o.count or 1; o.pps = o.pps or 10; return sim:traffic(o) end, { "name", "dev", "arrivals",
    "pps", "rate", "start", "duration", "count", "on", "off", "proto", "src", "dst", "sport",
    "dport", "flows", "tos", "dscp", "ttl", "flags", "icmp_type", "icmp_code", "size", "weights",
    "priority", "vlan", "smac", "dmac", "seed" } },
  { function(o) return sim:run(o) end, { "duration" } },
  { function(o) return sim:explain(o) end, { "packet", "source", "verbose" } },
  { function(o) return sim:trace(o) end, { "file", "filter" } },
  { function(o) return sim:outputs(o) end, { "pcap", "plot", "interval" } },
  { function(o) return sim:report(o) end, { "json" } },
}
for _, c in ipairs(calls) do
  for _, k in ipairs(c[2]) do
    for _, v in ipairs(values) do
      pcall(c[1], { [k] = v })
    end
  end
end
for _, v in ipairs(values) do
  pcall(sim.run_until, sim, v); pcall(sim.tc, sim, v); pcall(dev.class, dev, v)
  pcall(dev.qdisc, dev, v); pcall(tcsim.time, v); pcall(tcsim.rate, v); pcall(tcsim.ms, v)
  pcall(sim.dev, sim, v); pcall(tr.save, tr, v); pcall(sim.run, v); pcall(dev.stats, v)
  pcall(expect_lt, v, 1); pcall(expect_eq, v, v); pcall(expect_near, v, 1, v)
  pcall(tcsim.sim, v); pcall(tcsim.traffic, v); pcall(print, v)
end
