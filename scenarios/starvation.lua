-- starvation.lua - strict priority starves the low band.
--
--   ./tcsim scenarios/starvation.lua
--
-- prio has no weights and no rate limits: prio_dequeue (net/sched/sch_prio.c)
-- asks band 0, then band 1, then band 2, and returns the first packet it
-- finds. While band 0 always has a packet, band 2 gets nothing at all:
-- its packets wait, and once its leaf is full they are dropped. When the
-- high flow stops, band 0 drains and band 2 runs again.

local sim = tcsim.sim{ seed = 1 }
-- `./tcsim scenarios/starvation.lua -- DIR` also writes plots (backlog, throughput and
-- delay CDF per band) and per-band pcaps into DIR (docs/lua-api.md, sim:outputs).
if arg[1] then sim:outputs{ plot = arg[1], pcap = arg[1] } end

-- 1 Mbit/s and 1250-byte frames: every frame takes exactly 10 ms to send,
-- so the link carries 100 frames/s.
local eth0 = sim:dev("eth0", { rate = "1mbit" })

-- The default priomap (1 2 2 2 1 2 0 0 1 1 ...), a small leaf for band 2.
eth0:tc[[
  qdisc add dev eth0 root handle 1: prio
  qdisc add dev eth0 parent 1:1 handle 10: pfifo
  qdisc add dev eth0 parent 1:3 handle 30: pfifo limit 10
]]

-- No filters: the band comes from skb->priority, which a router sets from
-- the IPv4 TOS (scenarios/priomap_tos.lua explains the table):
-- TOS 0x08 "maximize throughput" -> priority 2 -> band 2 (class 1:3),
-- TOS 0x10 "minimize delay"      -> priority 6 -> band 0 (class 1:1).
-- The low flow: 20 frames/s (a fifth of the link) for 3 s, at 5 ms, 55 ms, ...
sim:traffic{ name = "low", proto = "udp", tos = 0x08, pps = 20, size = 1250,
             start = "5ms", count = 60 }
-- The high flow: 120 frames/s (1.2x the link) from 0.5 s, for one second.
-- It needs 120 x 10 ms = 1.2 s of wire, so band 0 is never empty from
-- 0.5 s until 1.7 s, though its last packet arrives at 1.49 s.
sim:traffic{ name = "high", proto = "udp", tos = 0x10, pps = 120, size = 1250,
             start = "500ms", count = 120 }

-- A timeline: stop the clock every 100 ms and look at the queues.
print("   t   band0 qlen  band2 qlen  band2 sent  band2 dropped")
local at = {}
for i = 1, 22 do
  local t = i / 10
  sim:run_until(t)
  local low = eth0:class("1:3")
  at[i] = { q0 = eth0:qdisc("10:").qlen, q2 = eth0:qdisc("30:").qlen,
            sent = low.packets, drops = low.drops }
  print(string.format("%4.1fs  %10d  %10d  %10d  %13d", t, at[i].q0, at[i].q2,
                      at[i].sent, at[i].drops))
end
sim:run()
sim:report()

local st = eth0:stats()
local high, low = st.classes["1:1"], st.classes["1:3"]

-- Before 0.5 s the low flow is alone: 10 frames (5 ms ... 455 ms), no wait.
expect_eq(at[5].sent, 10, "by 0.5 s band 2 sent its first 10 frames")
-- From 0.5 s to 1.7 s band 2 sends nothing: prio_dequeue always finds
-- band 0 first. (At 1.0 s and 1.6 s the count has not moved.)
expect_eq(at[10].sent, 10, "at 1.0 s band 2 is still at 10: starved")
expect_eq(at[16].sent, 10, "at 1.6 s band 2 is still at 10: starved")
expect_eq(at[16].q2, 10, "band 2's pfifo is full (limit 10)")
-- 24 low frames arrive while band 0 is busy (505 ms ... 1655 ms): 10 fit
-- in the pfifo, the other 14 are dropped at enqueue (pfifo's limit).
expect_eq(low.drops, 14, "band 2 lost 14 frames to its leaf's limit")
expect_eq(low.packets, 60 - 14, "band 2 sent the rest once band 0 emptied")
expect_eq(high.packets, 120, "band 0 sent every frame")
expect_eq(high.drops, 0, "band 0 dropped nothing (pfifo limit = txqueuelen 1000)")
-- The frame of 505 ms was first in band 2's queue and left when band 0
-- emptied, at 0.5 + 1.2 = 1.7 s: it waited 1195 ms.
expect_eq(low.delay_ns.queue.max, tcsim.time("1195ms"), "the longest wait in band 2")
-- The starvation ends with the high flow: by 2.0 s band 2 has sent all it
-- kept (10 + 10 queued + the frames of 1.705 s ... 1.955 s) and is empty.
-- ("sent" counts a frame when its last bit is on the wire, 10 ms after
-- prio_dequeue handed it to the device.)
expect_eq(at[17].q2, 9, "at 1.7 s the device takes band 2's head: 9 left")
expect_eq(at[18].sent, 20, "by 1.8 s band 2 sent the 10 frames it kept")
expect_eq(at[20].q2, 0, "at 2.0 s band 2's queue is empty again")
expect_eq(at[20].sent, 10 + 10 + 6, "at 2.0 s band 2 has caught up")
-- Band 0 itself queues too, being 1.2x the link: frame k (0..119) waits
-- k x (10 - 8.33) ms, so the last one about 198 ms.
expect_between(high.delay_ns.queue.max, tcsim.time("198ms"), tcsim.time("199ms"),
               "band 0's longest wait is its own backlog")
