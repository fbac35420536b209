-- htb: 1:1 rate = ceil 2mbit, two leaves 1:10 and 1:20 of rate 1mbit,
-- ceil 2mbit, burst = cburst 1000 (8 ms of 1:10's rate, 4 ms of its ceil);
-- six 1000-byte packets at t = 0..5 ns, all to 1:10 (the default), on a
-- 1gbit wire. #1 spends 1:10's burst; #2 leaves at 8 us (the leaf is still
-- CAN_SEND: htb looks at the mode, not the tokens) and puts it at tokens
-- -7.992 ms, ctokens -3.992 ms: over its ceil until 4 ms (#3 throttled
-- by=1:10). At 4 ms its ceil is back but its rate is 4 ms short: it
-- borrows, and 1:1 (a top class: htb level 7) lends. #4 waits for the ceil
-- again until 8 ms, when both buckets are at 0: its own rate; #5 borrows
-- at 12 ms, #6 on its own at 16 ms: 1:10 sends at the ceil, half lent.
local sim = tcsim.sim{}
local eth0 = sim:dev("eth0", { rate = "1gbit" })
eth0:tc[[
qdisc add dev eth0 root handle 1: htb default 10
class add dev eth0 parent 1: classid 1:1 htb rate 2mbit ceil 2mbit burst 2000 cburst 2000
class add dev eth0 parent 1:1 classid 1:10 htb rate 1mbit ceil 2mbit burst 1000 cburst 1000
class add dev eth0 parent 1:1 classid 1:20 htb rate 1mbit ceil 2mbit burst 1000 cburst 1000
]]
sim:trace{ file = "-" }
sim:traffic{ count = 6, pps = 1000000000, size = 1000 }
sim:run()
