-- sfq_fairness.lua - one bulk burst and three small interactive flows
-- share one prio band: with an sfq leaf the small flows slip past the
-- burst; with a pfifo leaf they wait behind all of it.
--
--   ./tcsim scenarios/sfq_fairness.lua
--
-- Two devices in one simulation get the same traffic: eth0's band has an
-- sfq leaf, eth1's a pfifo. pfifo is one FIFO: a frame waits for every
-- byte queued before it. sfq (net/sched/sch_sfq.c) hashes each frame to
-- a flow (sfq_hash: addresses, protocol, ports), keeps one FIFO per flow
-- and serves the flows round robin, a quantum of bytes per turn
-- (sfq_dequeue). Defaults used here: limit 127 packets, quantum = MTU + 14
-- = 1514 bytes, depth 127 per flow. The kernel hashes with a random key,
-- so two flows may share a bucket; tcsim by default gives distinct flows
-- distinct buckets (sfq_hash = "random" would collide as Linux does).

local sim = tcsim.sim{ seed = 1 }
-- `./tcsim scenarios/sfq_fairness.lua -- DIR` also writes plots (backlog, throughput and
-- delay CDF per band) and per-band pcaps into DIR (docs/lua-api.md, sim:outputs).
if arg[1] then sim:outputs{ plot = arg[1], pcap = arg[1] } end

local BIG, SMALL = 1250, 100   -- bytes: 10 ms and 0.8 ms at 1 Mbit/s

local function device(name, leaf)
  local dev = sim:dev(name, { rate = "1mbit" })
  -- Default priomap: TOS 0 -> priority 0 -> band 1 (class 1:2) for all.
  dev:tc("qdisc add dev " .. name .. " root handle 1: prio")
  dev:tc("qdisc add dev " .. name .. " parent 1:2 handle 20: " .. leaf)
  -- A bulk sender writes 125 kB at once: 100 frames 10 us apart, 1 s of wire.
  sim:traffic{ dev = dev, name = name .. " bulk", proto = "tcp", flags = "A",
               dport = 5001, sport = 5000, size = BIG, pps = 100000, count = 100 }
  -- Three ssh sessions, 10 frames/s each (ports 40000-40002 in turn),
  -- from 5 ms: frame i arrives at 5 ms + i x 33.3 ms.
  sim:traffic{ dev = dev, name = name .. " ssh", proto = "tcp", flags = "PA",
               dport = 22, sport = 40000, flows = 3, size = SMALL, pps = 30,
               start = "5ms", count = 30 }
  return dev
end
local eth0 = device("eth0", "sfq")     -- limit 127, quantum 1514
local eth1 = device("eth1", "pfifo")   -- limit = txqueuelen = 1000

-- Both kinds share class 1:2, so the class rows cannot tell them apart;
-- the per-source rows can: stats().sources["eth0 ssh"] is what became of
-- that stream (sent, drops, queue and total delay).
local function src(dev, kind) return dev:stats().sources[dev:name() .. " " .. kind] end

-- A timeline: every 100 ms, how many ssh frames each device has sent.
print("   t    ssh sent: sfq (eth0)  pfifo (eth1)")
local rows = {}
for k = 1, 12 do
  sim:run_until(k / 10)
  rows[k] = { sfq = src(eth0, "ssh").packets, fifo = src(eth1, "ssh").packets }
  print(string.format("%4.1fs  %20d  %12d", k / 10, rows[k].sfq, rows[k].fifo))
end
sim:run()
sim:report()

local sfq_ssh, fifo_ssh = src(eth0, "ssh").delay_ns.queue, src(eth1, "ssh").delay_ns.queue
print(string.format("wait of an ssh frame: sfq mean %.1f ms, longest %.1f ms; pfifo mean %.1f ms",
                    tcsim.ms(sfq_ssh.mean), tcsim.ms(sfq_ssh.max), tcsim.ms(fifo_ssh.mean)))

-- pfifo: the 100 bulk frames arrived first, so no ssh frame leaves before
-- 100 x 10 ms = 1 s. Frame i is dequeued at 1 s + i x 0.8 ms and arrived at
-- 5 ms + i x 33.3 ms: it waits 995 ms - i x 32.5 ms, 523.3 ms on average.
expect_eq(rows[9].fifo, 0, "pfifo: at 0.9 s not one ssh frame has been sent")
expect_near(fifo_ssh.mean, tcsim.time("523.27ms"), 0.001, "pfifo: an ssh frame waits 523 ms on average")
-- The last (i = 29) leaves at 1 s + 29 x 0.8 ms and came at 5 ms + 29/30 s.
expect_eq(fifo_ssh.min, tcsim.time("1023.2ms") - (tcsim.time("5ms") + 29 * 1e9 // 30),
          "pfifo: even the last ssh frame waits behind the whole burst")
-- sfq: a new flow is linked in as the last of the round (sfq_enqueue),
-- behind the bulk flow; an ssh frame waits for the frame on the wire and
-- then for the bulk flow to spend its credit, 1514 bytes a round: one or
-- two 1250-byte frames. So at most 3 x 10 ms, and the next ssh frame comes
-- 33 ms later: never two waiting. The longest wait is the first frame's:
-- it comes at 5 ms, while bulk frame 0 is on the wire. Frame 0 had left
-- the queue at once, and sfq forgets an emptied flow, so frame 1 (10 us)
-- started the bulk flow anew with a full credit: frames 1 and 2 go first,
-- and the ssh frame leaves at 30 ms, 25 ms after it came.
expect_eq(rows[9].sfq, 27, "sfq: by 0.9 s the 27 ssh frames of 0 - 0.9 s were sent")
expect_eq(sfq_ssh.max, tcsim.time("25ms"), "sfq: the longest ssh wait is the first frame's 25 ms")
expect_lt(sfq_ssh.mean * 50, fifo_ssh.mean, "sfq: the mean wait is 50 times shorter than pfifo's")
-- Same work, same link: sfq only changes the order. The ssh frames it
-- lets through first delay the bulk: its last frame (arrived at 990 us)
-- leaves at 100 x 10 ms + 30 x 0.8 ms = 1024 ms instead of 1000 ms.
local s0, s1 = eth0:stats(), eth1:stats()
expect_eq(s0.totals.sent, 130, "sfq: every frame sent (100 < limit 127: no drop)")
expect_eq(s1.totals.sent, 130, "pfifo: every frame sent")
expect_eq(src(eth0, "bulk").delay_ns.total.max, tcsim.time("1024ms") - tcsim.time("990us"),
          "sfq: the bulk finishes last, 24 ms later")
expect_eq(src(eth1, "bulk").delay_ns.total.max, tcsim.time("1000ms") - tcsim.time("990us"),
          "pfifo: the bulk finishes at 1 s")
