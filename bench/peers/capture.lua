-- capture.lua - the 2-class Poisson capture of `make bench-peers`, made by tcsim.
--   tcsim bench/peers/capture.lua -- DIR [SECONDS]
-- writes DIR/eth0-root-sent.pcap (nanosecond timestamps): SECONDS [100] of
--   class A: UDP, TOS 0x10 (a router gives it priority 6, interactive: band 0),
--            Poisson at 2 Mbit/s of frames of 64..256 bytes (uniform);
--   class B: TCP, TOS 0 (priority 0: band 1), Poisson at 7.6 Mbit/s of frames of
--            64, 576 or 1500 bytes (weights 2, 1, 5);
-- 9.6 Mbit/s offered to the bench's 10 Mbit/s link, so queues form without drops.
-- The two sources are merged in time by a device of unlimited rate behind a pfifo
-- that never fills: each packet leaves the instant it arrives, so the device's
-- sent pcap is the arrivals of both classes, in order. Fixed seed: the same
-- capture every time.
local dir, secs = arg[1], arg[2] or "100"
assert(dir, "usage: tcsim capture.lua -- DIR [SECONDS]")
local sim = tcsim.sim{ seed = 17 }
local eth0 = sim:dev("eth0", { rate = "0bit" })
eth0:tc("qdisc add dev eth0 root pfifo limit 100000000")
sim:outputs{ pcap = dir, pcap_epoch = "zero" }
sim:traffic{ dev = eth0, name = "A", arrivals = "poisson", rate = "2mbit", duration = secs .. "s",
             proto = "udp", src = "10.0.0.1", dst = "10.0.1.1", dport = 5004, tos = 0x10,
             size = { min = 64, max = 256 } }
sim:traffic{ dev = eth0, name = "B", arrivals = "poisson", rate = "7.6mbit", duration = secs .. "s",
             proto = "tcp", src = "10.0.0.2", dst = "10.0.1.2", dport = 80,
             size = { 64, 576, 1500 }, weights = { 2, 1, 5 } }
sim:run()
sim:close()
