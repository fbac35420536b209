-- netem delay 5ms rate 1mbit on a 1gbit wire, three 1000-byte packets at
-- t = 0..2 ns. Each costs 8 ms at the rate and its time to send follows
-- the last one's: #1 at 0 + 5 + 8 = 13 ms; #2 comes 1 ns later and the
-- delay left after #1's time (5 ms - 13 ms) is none: 13 + 8 = 21 ms
-- (delay = 21 ms - 1 ns); #3: 29 ms (delay 29 ms - 2 ns). Each leaves
-- at its time (the watchdog wakes the idle device).
local sim = tcsim.sim{}
local eth0 = sim:dev("eth0", { rate = "1gbit" })
eth0:tc("qdisc add dev eth0 root handle 1: netem delay 5ms rate 1mbit")
sim:trace{ file = "-" }
sim:traffic{ count = 3, pps = 1000000000, size = 1000 }
sim:run()
