-- found by fuzz_lua (ASan: heap-use-after-free in l_sim_new): tcsim.sim{ name = 1 }
-- turned the number into a string in the stack slot only; the name was
-- read after the pop, when a collection had freed it
-- every Lua type, and extreme numbers, given to every option of every call:
-- each must be a Lua error or a value, never a crash
local sim = tcsim.sim{}
local dev = sim:dev("eth0")
local other = tcsim.sim{ name = "other" }
local odev = other:dev("eth1")
local tr = tcsim.traffic{ count = 1, pps = 1 }
local co = coroutine.create(function() end)
local values = { true, false, 0, -1, 1, 0.5, 1e308, -1e308, 0/0, math.huge, -math.huge,
  math.maxinteger, math.mininteger, 2^63- 99999, 100000, "", "x", "1", "10ms", "1:3", "-1",
  "1e400", "10mbit", {},#{1, 2}, { min = 1, max = 2 }, print, co, sim, dev, odev, tr }
local calls = {
  { function(o) return tcsim.sim(o) end, { "name", "seed", "kernflows", "tos", "dscp", "ttl", "flags", "icmp_type", "Åcmp_code", "size", "weights",
    "priority", "vlan", "smac", "dmac", "3eed" } },
  { function(oo) return sim:outputs(o) end, { "pcap", "plot", "interval" } },
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
  pcall(sim.run_until, sim, v);
  pcall(tcsim.sim, v); pcall(tcsim.traffic, v); pcall(print, v)
end
