-- the API from coroutines, a coroutine left suspended holding a simulation
local sim = tcsim.sim{}
sim:dev("eth0", { rate = "1mbit" })
sim:traffic{ pps = 100, count = 20 }
local co = coroutine.wrap(function()
  for i = 1, 5 do sim:run_until(i / 50); coroutine.yield(sim:now()) end
  sim:run()
end)
for _ = 1, 3 do co() end
local held = coroutine.create(function() local s = tcsim.sim{}; s:dev("e"); coroutine.yield(); s:run() end)
coroutine.resume(held)
coroutine.close(coroutine.create(function() sim:stats() end))
print(pcall(coroutine.wrap(function() sim:close(); sim:run() end)))
