-- found by fuzz_lua (a 30 s timeout): hog[#hog + 0] stays hog[0], so the
-- loop never grows the heap, but each turn string.rep copies 64 KiB in one
-- instruction: 2 million instructions were some 128 GB of copying. The
-- clock-free budget now counts 64 bytes allocated as an instruction.
local sim = tcsim.sim{}
local eth0 = sim:dev("eth0")
eth0:tc("qdisc add dev eth0 root handle 1: prio")
sim:traffic{ pps = 100, count = 50 }
sim:run()
local hog = {}
pcall(function() while true do hog[#hog + 0] = string.rep("z", 65536) .. #hog end end)
pcall(function() while true do local _ = table.concat({ string.rep("y", 4096) }, "", 1, 1):rep(64) end end)
for _ = 1, 100 do pcall(sim.stats, sim); pcall(eth0.class, eth0, "1:1") end
hog = nil
