-- what the sandbox takes away: files, processes, exit
assert(io == nil and os.exit == nil and os.execute == nil and os.remove == nil)
assert(os.rename == nil and os.tmpname == nil and os.getenv == nil and package == nil)
local sim = tcsim.sim{}
sim:dev("eth0")
assert(not pcall(sim.report, sim, { json = "x.json" }))
assert(not pcall(sim.trace, sim, { file = "x.trace" }))
assert(not pcall(sim.outputs, sim, { pcap = "x" }))
assert(not pcall(tcsim.traffic{ count = 1, pps = 1 }.save, tcsim.traffic{ count = 1, pps = 1 }, "x.pcap"))
assert(not pcall(sim.replay, sim, "/dev/zero"))
assert(not pcall(sim.replay, sim, "."))
assert(not pcall(table.move, {}, 1, 1e12, 2))
sim:trace{ file = "-" }
