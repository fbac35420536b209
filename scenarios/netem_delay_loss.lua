-- netem_delay_loss.lua - a long, lossy path emulated behind a prio: each
-- band gets its own netem, so interactive traffic sees a short clean path
-- and bulk traffic a long, jittery, lossy one.
--
--   ./tcsim scenarios/netem_delay_loss.lua
--   ./tcsim run ... --trace - shows each packet's `delay=` and `send_at=`
--
-- netem (net/sched/sch_netem.c) stamps every packet with a time to send,
-- now + delay, and keeps its packets in that order (a "tfifo"): a dequeue
-- before the head's time answers "nothing now" and arms a watchdog for
-- it. With jitter the delay is drawn around `delay` (uniform, or from a
-- table: `distribution normal` is iproute2's inverse normal CDF, 4096
-- values scaled by 8192), so packets can overtake each other. `loss P`
-- drops a packet at enqueue when a random draw is at most P (scaled to
-- 2^32); netem counts it as a drop, and prio, its parent, does too.
--
-- Here a router forwards at 100 Mbit/s:
--   voice  TOS 0x10 (low delay) -> priority 6 -> band 0 -> 1:1: delay 20ms
--   bulk   TOS 0                -> priority 0 -> band 1 -> 1:2:
--          delay 50ms 10ms distribution normal loss 2%
-- Things to change:
--  * `loss 2% 25%`: a correlated loss; get_crandom mixes each draw with the
--    last, which also narrows the draws' spread: far fewer packets are lost
--    than 2% (the kernel's known flaw, modelled as it is).
--  * `delay 50ms 10ms` without a table: uniform jitter in [40, 60) ms.
--  * `rate 10mbit` on the bulk netem: each packet also waits for the
--    previous one to leave at 10 Mbit/s (the bulk's 4 Mbit/s fits).

local sim = tcsim.sim{ seed = 1 }
local eth0 = sim:dev("eth0", { rate = "100mbit" })
eth0:tc("qdisc add dev eth0 root handle 1: prio")
eth0:tc("qdisc add dev eth0 parent 1:1 handle 10: netem delay 20ms")
eth0:tc("qdisc add dev eth0 parent 1:2 handle 20: netem delay 50ms 10ms distribution normal loss 2%")

sim:traffic{ name = "voice", proto = "udp", size = 200, pps = 50, count = 500, tos = 0x10 }
sim:traffic{ name = "bulk", proto = "udp", size = 1000, pps = 500, count = 5000 }
sim:run()
sim:report()

local st = eth0:stats()
local voice, bulk = st.sources.voice, st.sources.bulk
local ms = 1000000

-- Voice: nothing lost; each frame waits exactly 20 ms (tc sends 20000 us
-- as 312500 ticks of 64 ns: exact), and at most one bulk frame's time on
-- the wire more (1000 bytes at 100 Mbit/s: 80 us).
expect_eq(voice.drops, 0, "voice: no loss configured, none")
expect_eq(voice.delay_ns.queue.min, 20 * ms, "voice: the delay, to the nanosecond")
expect_le(voice.delay_ns.queue.max, 20 * ms + 80000, "voice: at most one bulk frame more")

-- Bulk: loss 2% is 85899346 / 2^32 per frame: of 5000, 100 expected;
-- the binomial 99.9% interval is 100 +- 3.29 * 9.9 = [67, 133].
expect_between(bulk.drops, 67, 133, "bulk: about 2% lost")
expect_eq(st.drops.netem_loss, bulk.drops, "every drop is netem's loss")
expect_eq(bulk.packets + bulk.drops, 5000, "the rest is sent")

-- Bulk delay: 50 ms + 10 ms x a normal draw. The median is 50 ms, the 90th
-- percentile 50 + 1.2816 x 10 = 62.8 ms (histogram buckets: 0.8%); the
-- table reaches about 4 deviations, so no delay is below 10 ms.
local q = bulk.delay_ns.queue
expect_near(q.p50, 50 * ms, 0.02, "bulk: median delay 50 ms")
expect_near(q.p90, 62.8 * ms, 0.02, "bulk: 90th percentile 62.8 ms")
expect_ge(q.min, 10 * ms, "bulk: the normal table's floor, mu - 4 sigma")
expect_le(q.max, 90 * ms, "bulk: its ceiling, mu + 4 sigma")
