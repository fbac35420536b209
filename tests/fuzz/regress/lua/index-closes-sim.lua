-- an option table whose __index closes the simulation mid-call
local sim = tcsim.sim{}
sim:dev("eth0")
local evil = setmetatable({}, { __index = function() sim:close(); return 1 end,
  __len = function() sim:close(); return 3 end, __pairs = function() sim:close() end })
for _, f in ipairs({ sim.run, sim.dev, sim.traffic, sim.replay, sim.trace, sim.explain }) do
  pcall(f, sim, evil, evil)
end
pcall(sim.traffic, sim, { count = 1, size = evil, weights = evil })
pcall(sim.run, sim)
