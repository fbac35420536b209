-- tbf rate 1mbit burst 3000 on a 1gbit wire, six 1000-byte packets at
-- t = 0..5 ns. 1000 bytes cost 8 ms of tokens, the bucket holds 24 ms:
-- #1..#3 leave at once (0, 8 us, 16 us: the wire's 8 us each), #4 finds
-- 16 us of tokens (24 - 3 x 8 ms + 24 us refilled) and waits until 8 ms,
-- #5 and #6 until 16 and 24 ms (one packet's 8 ms each). Each of #4..#6 is
-- throttled once, when the wire frees (at 24 us, 8.008 ms, 16.008 ms).
local sim = tcsim.sim{}
local eth0 = sim:dev("eth0", { rate = "1gbit" })
eth0:tc("qdisc add dev eth0 root handle 1: tbf rate 1mbit burst 3000 limit 100000")
sim:trace{ file = "-" }
sim:traffic{ count = 6, pps = 1000000000, size = 1000 }
sim:run()
