-- htb_borrow.lua - two customers share a 1 Mbit/s line through htb: each
-- is guaranteed its rate, borrows what the other leaves unused, and never
-- gets more than its ceil.
--
--   ./tcsim scenarios/htb_borrow.lua            # the timeline and the checks
--   ./tcsim scenarios/htb_borrow.lua -- plots/  # and plots/eth0-throughput.png
--
-- The tree (net/sched/sch_htb.c): parent 1:1 holds the line's 1 Mbit/s;
-- customer A (1:10) has rate 700kbit ceil 1mbit, customer B (1:20) rate
-- 300kbit ceil 500kbit. A class under its rate "can send" (green); over
-- its rate but under its ceil it "may borrow" (yellow) from its parent,
-- if the parent itself can send; over its ceil it "can't send" (red), and
-- htb arms its watchdog for the moment its tokens come back. Both
-- customers are greedy (they offer more than the line), in three acts:
--
--   0 - 2 s   A alone: A borrows B's unused 300 kbit/s: 1 Mbit/s (its ceil).
--   2 - 4 s   both: each gets exactly its rate, 700 and 300 kbit/s, since
--             the rates add up to the parent's: nothing is left to lend.
--   4 - 6 s   B alone: the line is idle but B stops at its ceil, 500 kbit/s.
--
-- In the plot (eth0-throughput.png, one line per leaf per 100 ms) the
-- three acts are three steps. Things to change and what then happens:
--  * B's ceil to 1mbit: in act 3 B fills the line (1 Mbit/s), as A did.
--  * B's rate to 500kbit: the rates now sum to 1.2 Mbit/s, over the
--    parent's 1 Mbit/s, and in act 2 the line carries 1.2 Mbit/s (700 +
--    500): a class under its own rate sends without asking its parent,
--    so htb holds only a borrower to its parent's rate, never a child
--    within its own rate. Children's rates should sum to at most the
--    parent's.
--  * A's and B's rates both 200kbit (ceils unchanged): in act 2 each gets
--    its 200 plus half of the 600 kbit/s excess, 500 kbit/s: borrowers of
--    one priority share the excess round robin, a quantum (rate / r2q =
--    2500 bytes here) each per round, so equal rates share equally.
--
-- Classification: the customers' packets carry skb->priority = their
-- class (what iptables' `-j CLASSIFY --set-class 1:10` does on a
-- router); htb_classify takes a priority that names one of its leaves
-- before it asks any filter.

local sim = tcsim.sim{ seed = 1 }
if arg[1] then sim:outputs{ plot = arg[1], interval = "100ms" } end

-- The device is faster (2 Mbit/s, a frame takes 5 ms): htb is what holds
-- the traffic to 1 Mbit/s.
local eth0 = sim:dev("eth0", { rate = "2mbit" })
eth0:tc[[
  qdisc add dev eth0 root handle 1: htb default 20
  class add dev eth0 parent 1:  classid 1:1  htb rate 1mbit ceil 1mbit
  class add dev eth0 parent 1:1 classid 1:10 htb rate 700kbit ceil 1mbit
  class add dev eth0 parent 1:1 classid 1:20 htb rate 300kbit ceil 500kbit
  qdisc add dev eth0 parent 1:10 handle 10: pfifo limit 20
  qdisc add dev eth0 parent 1:20 handle 20: pfifo limit 20
]]

-- 1250-byte frames: 10 kbit each, so 1 Mbit/s is 100 frames/s.
-- A offers 150 frames/s (1.5 Mbit/s) for 4 s; B 100 frames/s from 2 s to 6 s.
sim:traffic{ name = "A", proto = "udp", dport = 10, size = 1250, pps = 150,
             duration = "4s", priority = "1:10" }
sim:traffic{ name = "B", proto = "udp", dport = 20, size = 1250, pps = 100,
             start = "2s", duration = "4s", priority = "1:20" }

-- Bytes sent by each customer, read every 0.5 s.
print("   t      A kbit/s   B kbit/s  (over the last 0.5 s)")
local bytes = { [0] = { a = 0, b = 0 } }
for i = 1, 12 do
  sim:run_until(i / 2)
  bytes[i] = { a = eth0:class("1:10").bytes, b = eth0:class("1:20").bytes }
  print(string.format("%4.1fs  %9.0f  %9.0f", i / 2, (bytes[i].a - bytes[i - 1].a) * 16 / 1000,
                      (bytes[i].b - bytes[i - 1].b) * 16 / 1000))
end
sim:run()
sim:report()

-- kbit/s of a customer between two of the half-second marks.
local function kbps(who, from, to)
  return (bytes[to * 2][who] - bytes[from * 2][who]) * 8 / (to - from) / 1000
end
-- Each window leaves out the first half second of its act, where queues
-- drain and the buckets (burst and cburst: 1600 bytes by default) refill.
-- 1% is one frame in a second and a half.
expect_near(kbps("a", 0.5, 2), 1000, 0.01, "act 1: A alone borrows up to its ceil, 1 Mbit/s")
expect_eq(kbps("b", 0.5, 2), 0, "act 1: B sends nothing")
expect_near(kbps("a", 2.5, 4), 700, 0.01, "act 2: A gets its rate, 700 kbit/s")
expect_near(kbps("b", 2.5, 4), 300, 0.01, "act 2: B gets its rate, 300 kbit/s")
expect_near(kbps("b", 4.5, 6), 500, 0.01, "act 3: B alone stops at its ceil, 500 kbit/s")
expect_eq(kbps("a", 4.5, 6), 0, "act 3: A has nothing left")

-- htb's own counters say who lent and who borrowed: A borrowed in act 1
-- (its 700 kbit/s guaranteed, 300 more from 1:1), B in act 3.
local tree = eth0:stats()
expect_gt(tree.classes["1:10"].drops, 0, "A offered more than it may send: its pfifo overflowed")
expect_eq(tree.totals.arrived, tree.totals.sent + tree.totals.dropped, "every frame sent or dropped")
