-- huge, NaN, infinite and negative numbers for times, rates and counts
local sim = tcsim.sim{}
local eth0 = sim:dev("eth0")
for _, v in ipairs({ 1e308, -1e-308, 0/0, math.huge, 4.6e9, 9.2e9, 1.8e10, 1e-300, 99999 }) do
  pcall(sim.traffic, sim, { pps = v, count = 3 })
  pcall(sim.traffic, sim, { rate = v, count = 3 })
  pcall(sim.traffic, sim, { pps = 1, start = v, count = 2 })
  pcall(sim.traffic, sim, { arrivals = "onoff", pps = 5, on = v, off = v, count = 4 })
  pcall(sim.traffic, sim, { arrivals = "poisson", pps = v, duration = "1s" })
  pcall(sim.replay, sim, "captures/icmp_5_pings.pcap", { speed = v, start = v })
  pcall(sim.replay, sim, "captures/icmp_5_pings.pcap", { pps = v, duration = v })
  pcall(sim.replay, sim, "captures/icmp_5_pings.pcap", { mbps = v })
  pcall(eth0.set, eth0, { rate = v, delay = v })
  pcall(sim.run, sim, { duration = v })
  pcall(sim.run_until, sim, v)
end
pcall(sim.run_until, sim, "4611686018s")
pcall(sim.run, sim, { duration = "4611686018s" })
pcall(sim.traffic, sim, { pps = 1, count = 2 })
pcall(sim.run, sim)
print(sim:now())
