-- bufferbloat.lua - the first lesson on bufferbloat: the same overload
-- behind a long FIFO and behind fq_codel, and what it does to a ping.
--
--   ./tcsim scenarios/bufferbloat.lua             # the numbers and the checks
--   ./tcsim scenarios/bufferbloat.lua -- plots/   # and the delay CDFs
--
-- Two 10 Mbit/s links carry the same traffic for 10 s: a bulk upload of
-- full-size TCP frames at 12 Mbit/s (a sender that does not back off,
-- 20 % more than the link) and a ping, 10 echo requests a second.
--
--  eth0: pfifo, 1000 packets (the device's txqueuelen, what a default
--        pfifo_fast band holds). The queue grows by 2 Mbit/s; after about
--        6 s it is full: 1000 frames of 1514 bytes, 1.21 s of waiting for
--        anything that joins it, the ping included.
--  eth1: fq_codel (the default qdisc of current distributions). Each ping
--        finds its flow empty, so it is a new flow, served before the old
--        bulk flow: it waits at most for the frame on the wire (1514 bytes
--        = 1.2112 ms). The bulk flow has a queue of its own, judged by
--        codel: once its sojourn time has stayed above 5 ms for 100 ms,
--        codel drops at its head, faster and faster (interval /
--        sqrt(count)). A TCP sender would back off at the first drop; this
--        one does not, so codel must drop about one frame in six, and the
--        bulk's own delay settles near 130 ms instead of 1.2 s.
--
-- The plots (eth0-delay_cdf.png, eth1-delay_cdf.png) show each root's
-- whole traffic: on eth1 the pings are the 1 % step below 1.2 ms and the
-- bulk the rest, around 130 ms; on eth0 everything ramps up to 1.2 s.
-- Things to change:
--  * `fq_codel` -> `fq_codel noecn` changes nothing here: these frames are
--    not ECN-capable. Give the bulk `tos = 2` (ECT(0)) and fq_codel marks
--    instead of dropping: ecn_mark counts, the frames get through, and the
--    queue is no longer held (a sender that ignores marks is not slowed).
--  * `pfifo limit 100` on eth0: the ping's delay falls to ~121 ms, and the
--    bulk loses more.
--  * the bulk at 9 Mbit/s: no overload, no queue, and no difference.

local sim = tcsim.sim{ seed = 1 }
if arg[1] then sim:outputs{ plot = arg[1], interval = "100ms" } end

local fifo = sim:dev("eth0", { rate = "10mbit" })
local fq = sim:dev("eth1", { rate = "10mbit" })
fifo:tc("qdisc add dev eth0 root handle 1: pfifo limit 1000")
fq:tc("qdisc add dev eth1 root handle 1: fq_codel")

for _, d in ipairs({ { fifo, "0" }, { fq, "1" } }) do
  sim:traffic{ dev = d[1], name = "bulk" .. d[2], proto = "tcp", flags = "A", size = 1514,
               rate = "12mbit", duration = "10s", sport = 40000, dport = 5201 }
  sim:traffic{ dev = d[1], name = "ping" .. d[2], proto = "icmp", size = 98, pps = 10,
               duration = "10s", start = "50ms", sport = 7 }
end
sim:run()
sim:report()

local function src(d, name) return d:stats().sources[name] end
local ms = tcsim.ms

print(string.format("ping behind pfifo:    p50 %8.3f ms  p99 %8.3f ms  max %8.3f ms",
  ms(src(fifo, "ping0").delay_ns.queue.p50), ms(src(fifo, "ping0").delay_ns.queue.p99),
  ms(src(fifo, "ping0").delay_ns.queue.max)))
print(string.format("ping behind fq_codel: p50 %8.3f ms  p99 %8.3f ms  max %8.3f ms",
  ms(src(fq, "ping1").delay_ns.queue.p50), ms(src(fq, "ping1").delay_ns.queue.p99),
  ms(src(fq, "ping1").delay_ns.queue.max)))
print(string.format("bulk behind pfifo:    p50 %8.3f ms, %d dropped",
  ms(src(fifo, "bulk0").delay_ns.queue.p50), src(fifo, "bulk0").drops))
print(string.format("bulk behind fq_codel: p50 %8.3f ms, %d dropped",
  ms(src(fq, "bulk1").delay_ns.queue.p50), src(fq, "bulk1").drops))

-- The ping behind the FIFO waits for everything queued before it: once
-- the queue is full (from ~6 s), 1000 frames x 1.2112 ms = 1.211 s.
expect_between(ms(src(fifo, "ping0").delay_ns.queue.max), 1150, 1212,
               "behind pfifo a ping waits up to the whole queue (1.21 s)")
expect_between(ms(src(fifo, "ping0").delay_ns.queue.p50), 500, 1212,
               "... and half of them more than half a second")
-- Behind fq_codel a ping waits at most for the frame on the wire.
expect_between(ms(src(fq, "ping1").delay_ns.queue.max), 0, 1.2112,
               "behind fq_codel a ping waits at most one frame's time (1.2112 ms)")
-- A full FIFO drops whatever arrives, pings too (from ~6 s, the 2 Mbit/s
-- excess against 1 ms of room a frame); fq_codel drops from the bulk only.
expect_between(src(fifo, "ping0").drops, 10, 40, "behind a full pfifo pings are lost too")
expect_eq(src(fq, "ping1").drops, 0, "behind fq_codel no ping is lost")
-- 12 Mbit/s offered for 10 s is 9908 frames of 1514 bytes; the link
-- carries 8256 in 10 s. pfifo keeps 1000 of the 1652 extra and drops 662
-- (it sends the rest after the 10 s); codel drops at the head as long as
-- the sojourn time stays above target, which an unresponsive sender keeps
-- it: nearly all the excess.
expect_between(src(fifo, "bulk0").drops, 600, 700, "pfifo drops the excess beyond 1000 frames")
expect_between(src(fq, "bulk1").drops, 1400, 1652, "fq_codel drops most of the excess, at the head")
expect_eq(fq:qdisc("1:").drop_overlimit, 0, "fq_codel never reaches its 10240-packet limit")
expect_between(fq:qdisc("1:").new_flow_count, 90, 110,
               "each ping (about 100) is a new flow: its flow was empty")
