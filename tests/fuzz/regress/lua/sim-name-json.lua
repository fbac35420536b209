-- names with quotes and control characters in results and messages
local sim = tcsim.sim{ name = 'a"b\\c\n\1' .. string.rep("n", 200) }
sim:dev("eth0")
sim:traffic{ count = 2, pps = 1, name = '"\n' }
sim:run()
print(sim, sim:stats().devices[1].sources[1].name)
