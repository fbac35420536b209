-- tbf_burst.lua - a token bucket lets a burst through at the line's speed,
-- then holds the traffic to its rate.
--
--   ./tcsim scenarios/tbf_burst.lua            # the timeline and the checks
--   ./tcsim scenarios/tbf_burst.lua -- plots/  # and plots/eth0-throughput.png
--
-- tbf (net/sched/sch_tbf.c) keeps a bucket of tokens, counted in
-- nanoseconds of transmission at `rate`: it fills at one nanosecond per
-- nanosecond up to `burst` (here 40 KiB = 40960 bytes = 327.68 ms at
-- 1 Mbit/s) and a frame may leave only if the bucket holds its cost (a
-- 1250-byte frame costs 10 ms at 1 Mbit/s). An idle tbf is a full bucket.
-- When the head frame must wait, tbf_dequeue answers "nothing now" and
-- arms its watchdog for the moment the bucket will hold enough.
--
-- The link is 10 Mbit/s (a frame takes 1 ms on the wire), the bucket's
-- rate 1 Mbit/s. Two acts, each after the bucket has filled:
--
--   0.5 s  a bulk sender writes 200 frames at once (250 kB). The first 36
--          leave back to back at the line's 10 Mbit/s: 36 ms. Then one
--          frame every 10 ms: 1 Mbit/s, 1.64 s more for the other 164.
--   3.0 s  a steady 1.5 Mbit/s stream (150 frames/s) for 2 s. At first
--          every frame leaves as it comes, the bucket paying the 0.5 Mbit/s
--          above the rate; when it is empty (after ~0.65 s) the stream
--          leaves at 1 Mbit/s and the rest queues.
--
-- In the plot (eth0-throughput.png, 50 ms bins) act 1 is one spike to
-- ~7.4 Mbit/s then a flat 1 Mbit/s, and act 2 a 1.5 Mbit/s shelf that
-- drops to 1 Mbit/s. The area above the 1 Mbit/s line is the burst: 40960
-- bytes, in a spike or spread over a shelf. Things to change:
--  * burst 80kb: a spike twice as long (71 frames at the line's rate), a
--    shelf twice as long, and 40960 more bytes (32.8 frames) by 5 s.
--  * rate 2mbit: the stream of act 2 fits under the rate: no shelf, no queue.
--  * limit 100kb: act 1's 250 kB no longer fits; the frames past the
--    limit are dropped at enqueue (the bfifo child tbf makes with the limit).
--  * peakrate 2mbit mtu 1514: even the burst is paced, at 2 Mbit/s.

local sim = tcsim.sim{ seed = 1 }
if arg[1] then sim:outputs{ plot = arg[1], interval = "50ms" } end

local eth0 = sim:dev("eth0", { rate = "10mbit" })
-- limit 256kb holds act 1's 250 kB and act 2's backlog (~70 frames): no drop.
eth0:tc("qdisc add dev eth0 root handle 1: tbf rate 1mbit burst 40kb limit 256kb")

sim:traffic{ name = "bulk", proto = "tcp", flags = "A", size = 1250, pps = 1000000,
             count = 200, start = "500ms" }
sim:traffic{ name = "stream", proto = "udp", size = 1250, pps = 150, count = 300,
             start = "3s" }

local function sent(name) return eth0:stats().sources[name] end

-- Act 1, frame by frame: frame k (from 1) is dequeued at 0.5 s + (k-1) ms,
-- when the bucket holds 327.68 - 9 (k-1) ms (10 spent, 1 refilled per
-- frame). That is 10 ms or more up to k = 36. Frame 37 finds 3.68 ms and
-- waits 6.32 ms for the rest: it leaves the queue at 542.32 ms.
sim:run_until("536ms")
local burst = sent("bulk").packets
print(string.format("by 536 ms: %d frames of the bulk sent", burst))
expect_eq(burst, 36, "36 frames leave at the line's rate: the burst")
sim:run_until("543.319ms")
expect_eq(sent("bulk").packets, 36, "frame 37 waits for tokens ...")
sim:run_until("543.321ms")
expect_eq(sent("bulk").packets, 37, "... and is on the wire from 542.32 ms to 543.32 ms")

-- Act 1 ends 164 frames x 10 ms after frame 37 left the queue, minus one:
-- frame 200 leaves the queue at 542.32 + 163 x 10 = 2172.32 ms. It came
-- at 500.199 ms (the sender writes a frame a microsecond), so it waited
-- 1672.121 ms.
sim:run_until(3)
expect_eq(sent("bulk").packets, 200, "the bulk is done before act 2")
expect_eq(sent("bulk").delay_ns.queue.max, tcsim.time("1672.121ms"),
          "the last bulk frame waited 1672.121 ms")

-- Act 2 in 100 ms steps.
print("   t   stream kbit/s (over the last 100 ms)  tbf backlog (frames)")
local prev = 0
for i = 31, 50 do
  sim:run_until(i / 10)
  local b = sent("stream").bytes
  local _, q = eth0:backlog()
  print(string.format("%4.1fs  %10.0f  %32d", i / 10, (b - prev) * 80 / 1000, q))
  prev = b
end
-- By 5 s the stream has had 2 s of rate plus one bucket: 250000 + 40960
-- bytes, 232.8 frames. Frames are whole, and the last one may be on the
-- wire, so 231 to 233.
local by5 = sent("stream").packets
expect_between(by5, 231, 233, "by 5 s: rate x 2 s + burst = 232.8 frames")
sim:run()
sim:report()
expect_eq(eth0:stats().totals.dropped, 0, "limit 256kb: nothing dropped")
expect_eq(sent("stream").packets, 300, "every frame of the stream sent")
