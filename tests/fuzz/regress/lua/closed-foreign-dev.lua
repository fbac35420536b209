-- a device of another, closed simulation given as dev = ...: its name is gone with it
local a = tcsim.sim{ name = "a" }
local d = a:dev("eth0")
a:close()
local b = tcsim.sim{}
b:dev("x"); b:dev("y")
print(pcall(b.replay, b, "captures/icmp_5_pings.pcap", { dev = d }))
print(pcall(b.traffic, b, { dev = d, count = 1 }))
local c = tcsim.sim{}
local e = c:dev("eth0")
print(pcall(b.traffic, b, { dev = e, count = 1 }))
