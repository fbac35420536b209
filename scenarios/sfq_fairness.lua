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

-- tcsim counts per class, not per flow, and both kinds share class 1:2.
-- Their sizes tell them apart: n frames holding b bytes contain
-- (BIG x n - b) / (BIG - SMALL) small ones.
local function small(bytes, n) return (BIG * n - bytes) // (BIG - SMALL) end

-- Every 0.1 ms, count the small frames waiting in each leaf (the root's
-- backlog is the band's: nothing else is queued). Summed over time this
-- is the total time they waited (Little's law), to within 0.1 ms a frame.
-- With sfq never two wait at once, so the longest stretch with one
-- waiting is the longest wait of a single ssh frame.
local step = tcsim.time("100us")
local waited = { eth0 = 0, eth1 = 0 }
local stretch, longest = 0, 0
local rows = {}
print("          ------ sfq (eth0) ------   ----- pfifo (eth1) -----")
print("   t      ssh sent  ssh waiting      ssh sent  ssh waiting")
for k = 1, 12000 do
  sim:run_until(k * step / 1e9)   -- numbers are seconds here
  for _, d in ipairs{ eth0, eth1 } do
    local b, n = d:backlog()
    waited[d:name()] = waited[d:name()] + small(b, n) * step
  end
  stretch = small(eth0:backlog()) > 0 and stretch + step or 0
  longest = math.max(longest, stretch)
  if k % 1000 == 0 then
    local r = {}
    for _, d in ipairs{ eth0, eth1 } do
      local c = d:class("1:2")
      r[#r + 1] = small(c.bytes, c.packets)
      r[#r + 1] = small(d:backlog())
    end
    rows[k // 1000] = r
    print(string.format("%4.1fs  %10d %12d  %12d %12d", k * step / 1e9, r[1], r[2], r[3], r[4]))
  end
end
sim:run()
sim:report()

local sfq_wait, fifo_wait = waited.eth0 / 30, waited.eth1 / 30
print(string.format("wait of an ssh frame: sfq mean %.1f ms, longest %.1f ms; pfifo mean %.1f ms",
                    tcsim.ms(sfq_wait), tcsim.ms(longest), tcsim.ms(fifo_wait)))

-- pfifo: the 100 bulk frames arrived first, so no ssh frame leaves before
-- 100 x 10 ms = 1 s. Frame i is dequeued at 1 s + i x 0.8 ms and arrived at
-- 5 ms + i x 33.3 ms: it waits 995 ms - i x 32.5 ms, 523.3 ms on average.
expect_eq(rows[9][3], 0, "pfifo: at 0.9 s not one ssh frame has been sent")
expect_eq(rows[9][4], 27, "pfifo: all 27 ssh frames of 0 - 0.9 s are waiting")
expect_near(fifo_wait, tcsim.time("523.27ms"), 0.001, "pfifo: an ssh frame waits 523 ms on average")
-- sfq: a new flow is linked in as the last of the round (sfq_enqueue),
-- behind the bulk flow; an ssh frame waits for the frame on the wire and
-- then for the bulk flow to spend its credit, 1514 bytes a round: one or
-- two 1250-byte frames. So at most 3 x 10 ms, and the next ssh frame comes
-- 33 ms later: never two waiting. The longest wait is the first frame's:
-- it comes at 5 ms, while bulk frame 0 is on the wire. Frame 0 had left
-- the queue at once, and sfq forgets an emptied flow, so frame 1 (10 us)
-- started the bulk flow anew with a full credit: frames 1 and 2 go first,
-- and the ssh frame leaves at 30 ms, 25 ms after it came.
for t = 1, 9 do
  expect_le(rows[t][2], 1, string.format("sfq: at 0.%d s at most one ssh frame waits", t))
end
expect_eq(rows[9][1], 27, "sfq: by 0.9 s the 27 ssh frames of 0 - 0.9 s were sent")
expect_eq(longest, tcsim.time("25ms"), "sfq: the longest ssh wait is the first frame's 25 ms")
expect_lt(sfq_wait * 50, fifo_wait, "sfq: the mean wait is 50 times shorter than pfifo's")
-- Same work, same link: sfq only changes the order. The ssh frames it
-- lets through first delay the bulk: its last frame (arrived at 990 us)
-- leaves at 100 x 10 ms + 30 x 0.8 ms = 1024 ms instead of 1000 ms.
local s0, s1 = eth0:stats(), eth1:stats()
expect_eq(s0.totals.sent, 130, "sfq: every frame sent (100 < limit 127: no drop)")
expect_eq(s1.totals.sent, 130, "pfifo: every frame sent")
expect_eq(s0.classes["1:2"].delay_ns.total.max, tcsim.time("1024ms") - tcsim.time("990us"),
          "sfq: the bulk finishes last, 24 ms later")
expect_eq(s1.classes["1:2"].delay_ns.total.max, tcsim.time("1000ms") - tcsim.time("990us"),
          "pfifo: the bulk finishes at 1 s")
