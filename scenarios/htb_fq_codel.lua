-- htb_fq_codel.lua - an htb uplink shaper whose leaves are fq_codel (the
-- usual home-router setup since 2013: shape just below the line, then let
-- fq_codel keep every class's queue short), beside the same tree with
-- pfifo leaves.
--
--   ./tcsim scenarios/htb_fq_codel.lua             # the numbers and the checks
--   ./tcsim scenarios/htb_fq_codel.lua -- plots/   # and the per-class plots (the game
--                                                 # is inside 1:20: its numbers are printed)
--
-- Two 10 Mbit/s devices, the same tree, the same traffic:
--   1:   htb default 20
--   1:1  rate 2mbit                                  the uplink
--   1:10 rate 500kbit ceil 2mbit prio 0   ssh, icmp  (filters)
--   1:20 rate 1mbit   ceil 2mbit prio 1   the rest   (default)
--   1:30 rate 500kbit ceil 2mbit prio 1   http       (filter)
-- eth0's leaves are pfifo (1000 packets, what a default band holds),
-- eth1's fq_codel (its defaults). The traffic: the ssh, web and ping
-- captures of ssh_http.lua, and in the default class two flows that a
-- classifier by port would not split: an upload of full frames at
-- 3 Mbit/s for 20 s (a sender that does not back off, more than the whole
-- uplink) and a game's (or a call's) UDP flow, 30 packets of 120 bytes a
-- second.
--
-- What it shows. The shaper does its part on both devices: ssh and the
-- pings have their own class, first in line, and wait under 5 ms (p99)
-- on both. Whatever no filter names lands in the default class too: the
-- ARP and mDNS frames of the ssh capture, the NetBIOS, LLMNR, STP and
-- IPv6 frames of the web one; behind the pfifo they wait seconds and some
-- are lost (the ssh capture's worst wait, 5.4 s, is one of its ARPs).
-- And the game shares 1:20 with the upload. Behind a pfifo leaf it waits
-- for the whole queue the upload keeps full: 1000 packets, nearly all
-- full frames, at the ~2 Mbit/s 1:20 gets: 4.1 s median, up to 5.6 s,
-- and 150 of its 601 packets find the FIFO full. Behind fq_codel the game is a new flow each time
-- (its queue has emptied in between) and goes before the upload's old
-- flow: it waits for the frame on the wire and htb's turn, 3.5 ms median,
-- 10 ms p99 (a 1514-byte frame at 2 Mbit/s takes 6 ms), and loses
-- nothing. Codel drops the upload's excess at the head of its own flow,
-- which keeps that flow's median wait at 79 ms instead of 4.5 s (this
-- sender never slows down, so it stays above the 5 ms target; a TCP
-- sender would back off at the first drop).
--
-- Things to change (the numbers are this scenario's, seed 1):
--  * give the upload `tos = 2` (ECT(0)): fq_codel marks instead of
--    dropping (ecn_mark 4709 in `tc -s qdisc show dev eth1`, no upload
--    frame lost), and since this sender ignores the marks its own queue
--    grows (median wait 5.5 s); the game still waits 3.6 ms (p50).
--  * `fq_codel` -> `fq_codel flows 1`: one queue for the class, a FIFO
--    with codel: the game waits behind the upload again (p50 99 ms, p99
--    361 ms, 190 of its 601 packets dropped by codel), better than the
--    pfifo's seconds but no longer isolated.
--  * the upload at 1.5 Mbit/s: 1:20 borrows up to the 2 Mbit/s ceil, no
--    standing queue forms; the game's p99 is 18 ms behind the pfifo (a
--    few frames queue in the upload's bursts), 6 ms behind fq_codel.
--  * `pfifo limit 1000` -> `limit 100` on eth0: the game's wait falls to
--    ~0.55 s and it loses 306 packets, still 150 times fq_codel's median.

local sim = tcsim.sim{ seed = 1 }
if arg[1] then sim:outputs{ plot = arg[1], interval = "500ms" } end

local function tree(dev, d, leaf)
  dev:tc(([[
    qdisc add dev DEV root handle 1: htb default 20
    class add dev DEV parent 1:  classid 1:1  htb rate 2mbit
    class add dev DEV parent 1:1 classid 1:10 htb rate 500kbit ceil 2mbit prio 0 quantum 1514
    class add dev DEV parent 1:1 classid 1:20 htb rate 1mbit ceil 2mbit prio 1 quantum 1514
    class add dev DEV parent 1:1 classid 1:30 htb rate 500kbit ceil 2mbit prio 1 quantum 1514
    qdisc add dev DEV parent 1:10 handle 10: LEAF
    qdisc add dev DEV parent 1:20 handle 20: LEAF
    qdisc add dev DEV parent 1:30 handle 30: LEAF
    filter add dev DEV parent 1: pref 1 bpf bytecode-file filters/ssh.bpf  flowid 1:10
    filter add dev DEV parent 1: pref 2 bpf bytecode-file filters/icmp.bpf flowid 1:10
    filter add dev DEV parent 1: pref 3 bpf bytecode-file filters/http.bpf flowid 1:30
  ]]):gsub("DEV", d):gsub("LEAF", leaf))
end

local fifo = sim:dev("eth0", { rate = "10mbit" })
local fq = sim:dev("eth1", { rate = "10mbit" })
tree(fifo, "eth0", "pfifo limit 1000")
tree(fq, "eth1", "fq_codel")

for _, d in ipairs({ fifo, fq }) do
  sim:replay("captures/ssh_interactive.pcap", { dev = d })
  sim:replay("captures/http_wikipedia.pcap", { dev = d, loop = 4 })
  sim:replay("captures/icmp_5_pings.pcap", { dev = d })
  sim:traffic{ dev = d, name = "upload", proto = "tcp", flags = "A", size = 1514,
               rate = "3mbit", duration = "20s", sport = 40000, dport = 873 }
  sim:traffic{ dev = d, name = "game", proto = "udp", size = 120, pps = 30,
               duration = "20s", start = "100ms", sport = 27015, dport = 27015 }
end
sim:run()
sim:report()

local function src(d, name) return d:stats().sources[name] end
local ms = tcsim.ms
for _, d in ipairs({ { fifo, "pfifo   " }, { fq, "fq_codel" } }) do
  local g, s, u = src(d[1], "game"), src(d[1], "ssh_interactive.pcap"), src(d[1], "upload")
  print(string.format("%s leaves: game p50 %8.1f ms p99 %8.1f ms, %d lost; ssh p99 %6.1f ms; "
                      .. "upload p50 %8.1f ms, %d lost", d[2],
    ms(g.delay_ns.queue.p50), ms(g.delay_ns.queue.p99), g.drops, ms(s.delay_ns.queue.p99),
    ms(u.delay_ns.queue.p50), u.drops))
end

local g0, g1 = src(fifo, "game"), src(fq, "game")
local s0, s1 = src(fifo, "ssh_interactive.pcap"), src(fq, "ssh_interactive.pcap")
local u0, u1 = src(fifo, "upload"), src(fq, "upload")

-- The game behind the pfifo leaf waits for the queue the upload keeps
-- full: 1000 packets, about nine in ten of them 1514-byte frames (the
-- upload offers ~250 a second, the game 30), at no more than the 2 Mbit/s
-- ceil: over 5 s once full; at 1:20's own 1 Mbit/s it would be 12.1 s.
expect_between(ms(g0.delay_ns.queue.p50), 3000, 12200,
               "pfifo leaf: the game waits seconds behind the upload in its class")
-- Behind fq_codel: a new flow each time, served first; about the frame
-- on the wire and one htb turn (a 1514-byte frame at 2 Mbit/s is 6.06 ms).
expect_lt(ms(g1.delay_ns.queue.p99), 20, "fq_codel leaf: the game waits under 20 ms (p99)")
expect_lt(g1.delay_ns.queue.p99 * 100, g0.delay_ns.queue.p50,
          "fq_codel leaf: the game's p99 is a hundredth of the pfifo leaf's median")
expect_eq(g1.drops, 0, "fq_codel leaf: no game packet lost")
expect_gt(g0.drops, 0, "pfifo leaf: the full FIFO drops game packets too")
-- The shaper's own work, the same on both: ssh and icmp (578 + 10 frames)
-- in their own first class.
for _, d in ipairs({ { fifo, "pfifo" }, { fq, "fq_codel" } }) do
  local c = d[1]:stats().classes["1:10"]
  expect_eq(c.packets, 578 + 10, d[2] .. " leaves: 1:10 carried the ssh and ping frames")
  expect_lt(ms(c.delay_ns.queue.p99), 5, d[2] .. " leaves: 1:10 waits under 5 ms (p99)")
end
-- What no filter names shares the default class: behind the pfifo the
-- web capture's other frames are lost, behind fq_codel (nearly) none.
expect_gt(src(fifo, "http_wikipedia.pcap").drops, 20, "pfifo leaf: unfiltered web frames lost")
expect_lt(src(fq, "http_wikipedia.pcap").drops, 10, "fq_codel leaf: few unfiltered web frames lost")
expect_gt(ms(s0.delay_ns.queue.max), 1000, "pfifo leaf: the ssh capture's ARPs wait over a second")
expect_lt(ms(s1.delay_ns.queue.max), 50, "fq_codel leaf: nothing of the ssh capture waits 50 ms")
-- codel keeps the upload's own wait near target instead of the FIFO's
-- seconds, by dropping at the head: both lose the excess.
expect_lt(ms(u1.delay_ns.queue.p50), 100, "fq_codel leaf: the upload's median wait under 100 ms")
expect_gt(ms(u0.delay_ns.queue.p50), 3000, "pfifo leaf: the upload's median wait over 3 s")
expect_gt(u1.drops, 0, "fq_codel leaf: codel drops the unresponsive upload's excess")
expect_eq(fq:qdisc("20:").drops, fq:stats().classes["1:20"].drops,
          "fq_codel 20: every drop of the default class is codel's (at the head)")
expect_eq(fq:qdisc("20:").drop_overlimit, 0, "fq_codel 20: never reached its 10240-packet limit")
for _, d in ipairs({ { fifo, "eth0" }, { fq, "eth1" } }) do
  local t = d[1]:stats().totals
  expect_eq(t.arrived, t.sent + t.dropped, d[2] .. ": every frame sent or dropped")
end
