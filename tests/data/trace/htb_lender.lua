-- htb: a leaf held back by its parent (throttled by=1:1), and a sibling
-- sending within its own rate while the leaf waits. 1:1 rate = ceil 1mbit,
-- burst = cburst 1000 (8 ms); leaves 1:10 and 1:20 rate 500kbit (1000
-- bytes: 16 ms), ceil 2mbit (4 ms), burst = cburst 1000; 1000-byte
-- packets on a 1gbit wire (8 us each). Times in ns; a class's wait-queue
-- key moves only when its mode changes or its event comes (htb_do_events),
-- and do_events does not move t_c, so the next charge counts from the last
-- one (sch_htb.c).
--  0        #1 (1:10) leaves: every bucket of 1:10 and 1:1 at 0, CAN_SEND.
--  8000     #2 leaves (1:10 still CAN_SEND): 1:10 tokens -15.992 ms, ctokens
--           -3.992 ms: CANT_SEND until 4 ms; 1:1 at -7.992 ms: until 8 ms.
--  16000    #3 throttled by=1:10 until=4000000.
--  1 ms     #5, #6 (1:20, full buckets, CAN_SEND) leave at 1 ms and
--           1.008 ms: a leaf that can send asks no one. 1:1 is charged
--           for both (-22.992 ms at 1.008 ms) but stays CANT_SEND, so its
--           key stays 8 ms; #3's wait is unchanged and not said again.
--  4 ms     1:10's event: ctokens 0, tokens -12 ms: MAY_BORROW, key 16 ms;
--           its lender 1:1 cannot send: #3 throttled by=1:1 until=8000000.
--  8 ms     1:1's event: tokens -22.992 + 6.992 = -16 ms: until 24 ms
--           (by=1:1 until=24000000).
--  16 ms    1:10's event: tokens 0, CAN_SEND: #3 leaves on its own rate.
--           Charged: 1:10 MAY_BORROW until 32 ms; 1:1 -16 ms, still
--           CANT_SEND, its key stays 24 ms.
--  16.008 ms #4 throttled by=1:1 until=24000000.
--  24 ms    1:1's event: -8 ms, until 32 ms (by=1:1 until=32000000).
--  32 ms    both at 0: #4 leaves.
local sim = tcsim.sim{}
local eth0 = sim:dev("eth0", { rate = "1gbit" })
eth0:tc[[
qdisc add dev eth0 root handle 1: htb default 10
class add dev eth0 parent 1: classid 1:1 htb rate 1mbit ceil 1mbit burst 1000 cburst 1000
class add dev eth0 parent 1:1 classid 1:10 htb rate 500kbit ceil 2mbit burst 1000 cburst 1000
class add dev eth0 parent 1:1 classid 1:20 htb rate 500kbit ceil 2mbit burst 1000 cburst 1000
]]
sim:trace{ file = "-" }
sim:traffic{ count = 4, pps = 1000000000, size = 1000 }
sim:traffic{ count = 2, pps = 1000000000, size = 1000, start = "1ms", priority = "1:20" }
sim:run()
