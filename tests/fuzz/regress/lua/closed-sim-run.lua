-- methods of a closed simulation, and of its devices, are errors
local sim = tcsim.sim{}
local dev = sim:dev("eth0")
sim:traffic{ pps = 10, count = 3 }
sim:close()
for _, f in ipairs({ sim.run, sim.stats, sim.now, sim.devices, sim.close, sim.report }) do
  assert(not pcall(f, sim))
end
for _, f in ipairs({ dev.stats, dev.backlog, dev.name, dev.tc }) do assert(not pcall(f, dev, "x")) end
print(sim, dev)
