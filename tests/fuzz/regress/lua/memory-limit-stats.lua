-- the Lua memory limit reached while results are being built: no leak
local sim = tcsim.sim{}
local eth0 = sim:dev("eth0")
eth0:tc("qdisc add dev eth0 root handle 1: prio")
sim:traffic{ pps = 100, count = 50 }
sim:run()
local hog = {}
pcall(function() while true do hog[#hog + 1] = string.rep("z", 65536) .. #hog end end)
for _ = 1, 100 do pcall(sim.stats, sim); pcall(eth0.class, eth0, "1:1") end
hog = nil
