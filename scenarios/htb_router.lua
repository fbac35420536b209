-- htb_router.lua - a home router's uplink policy, wondershaper / LARTC
-- style: an htb shaper just below the modem's rate, the interactive class
-- first, and prio with sfq leaves for the rest.
--
--   ./tcsim scenarios/htb_router.lua            # both reports and the checks
--   ./tcsim scenarios/htb_router.lua -- plots/  # and the router's plots
--
-- Why shape at all. The router reaches the DSL modem over 10 Mbit/s
-- Ethernet; the modem's uplink is 128 kbit/s and its buffer one deep
-- FIFO. Without shaping, the queue forms in the modem, where no policy
-- reaches: ssh waits behind every byte of an upload (sim "modem" below,
-- the modem's FIFO as a 128 kbit/s device with a 1000-packet pfifo).
-- Shaping to 120 kbit/s in the router (sim "router") keeps the modem's
-- FIFO empty (it drains 128 kbit/s, it gets at most 120): the queue forms
-- in the router, where htb and prio decide who goes first.
--
-- The router's tree:
--   1:   htb default 20
--   1:1  rate 120kbit                              the whole uplink
--   1:10 rate 40kbit ceil 120kbit prio 0, pfifo    ssh and icmp (filters)
--   1:20 rate 80kbit ceil 120kbit prio 1           everything else, under
--        20:  prio (default priomap: TOS 0 -> band 1, 20:2)
--        20:1 sfq   http (a filter on 20:, as on any qdisc)
--        20:2 sfq   the rest: the upload
-- A packet is classified twice: htb_classify at the root (the filters on
-- 1: send ssh/icmp to 1:10; no match: the default, 1:20), then
-- prio_classify at 20: (its own filter sends http to band 0).
--
-- What to look at: the ssh row of both reports (its queue delay), and in
-- the router's eth0-throughput.png the upload filling what ssh and http
-- leave. ssh's mean wait falls from seconds to ~13 ms; its worst waits
-- (p99 ~0.55 s) come when a screenful needs more than 1:10's 40 kbit/s:
-- the rest must be borrowed from 1:1, which the upload's class already
-- spends at its own guaranteed 80 kbit/s. Things to change:
--  * 1:10's rate to 80kbit and 1:20's to 40kbit: ssh's bursts fit its
--    own rate; its mean wait halves (~7.6 ms), its p99 to ~0.23 s.
--  * remove `quantum 1514`: the quantum is then rate / r2q = 500 and 1000
--    bytes, and the kernel warns "quantum of class 10010 is small"
--    (tcsim prints the warning with the tc line).
--  * 1:1's rate to 200kbit, above the modem's 128: the router's numbers
--    barely change, and that is the trap: the router now sends faster
--    than the modem drains, the queue forms in the modem, and ssh's real
--    wait is there, where this simulation (and your policy) cannot see.

-- The same traffic for both: an interactive ssh session, web browsing,
-- five pings (real captures, as ssh_http.lua), and a 30-second upload at
-- 200 kbit/s offered (more than the uplink: a backup, an scp).
local function traffic(sim)
  sim:replay("captures/ssh_interactive.pcap")
  sim:replay("captures/http_wikipedia.pcap", { loop = 4 })
  sim:replay("captures/icmp_5_pings.pcap")
  sim:traffic{ name = "upload", proto = "tcp", flags = "A", sport = 5000, dport = 873,
               size = 1250, pps = 20, duration = "30s" }
end

-- 1. The modem's FIFO, no policy.
local modem = tcsim.sim{ name = "modem", seed = 1 }
local m0 = modem:dev("eth0", { rate = "128kbit" })
m0:tc("qdisc add dev eth0 root handle 1: pfifo limit 1000")
traffic(modem)
modem:run()

-- 2. The router's policy, on the Ethernet to the modem.
local router = tcsim.sim{ name = "router", seed = 1 }
if arg[1] then router:outputs{ plot = arg[1], interval = "500ms" } end
local eth0 = router:dev("eth0", { rate = "10mbit" })
eth0:tc[[
  qdisc add dev eth0 root handle 1: htb default 20
  class add dev eth0 parent 1:  classid 1:1  htb rate 120kbit
  class add dev eth0 parent 1:1 classid 1:10 htb rate 40kbit ceil 120kbit prio 0 quantum 1514
  class add dev eth0 parent 1:1 classid 1:20 htb rate 80kbit ceil 120kbit prio 1 quantum 1514
  qdisc add dev eth0 parent 1:10 handle 10: pfifo limit 100
  qdisc add dev eth0 parent 1:20 handle 20: prio
  qdisc add dev eth0 parent 20:1 handle 21: sfq perturb 10
  qdisc add dev eth0 parent 20:2 handle 22: sfq perturb 10
  filter add dev eth0 parent 1:  pref 1 bpf bytecode-file filters/ssh.bpf  flowid 1:10
  filter add dev eth0 parent 1:  pref 2 bpf bytecode-file filters/icmp.bpf flowid 1:10
  filter add dev eth0 parent 20: pref 1 bpf bytecode-file filters/http.bpf flowid 20:1
]]
traffic(router)
-- While the upload runs the uplink is never idle: read the bytes at 30 s.
router:run_until(30)
-- 1:1, the root class, counts what every leaf below it sent (the
-- kernel charges each ancestor on the way up, htb_charge_class).
local by30 = eth0:class("1:1").bytes
router:run()
print("== the router (htb 120kbit, prio, sfq)")
router:report()

local function src(sim, name) return sim:stats().devices.eth0.sources[name] end
local ssh_m = src(modem, "ssh_interactive.pcap")
local ssh_r = src(router, "ssh_interactive.pcap")
local up_m, up_r = src(modem, "upload"), src(router, "upload")
print(string.format("ssh's mean wait: modem %.1f ms, router %.1f ms",
                    tcsim.ms(ssh_m.delay_ns.queue.mean), tcsim.ms(ssh_r.delay_ns.queue.mean)))
print(string.format("upload's mean wait: modem %.1f ms, router %.1f ms",
                    tcsim.ms(up_m.delay_ns.queue.mean), tcsim.ms(up_r.delay_ns.queue.mean)))

-- The modem: one FIFO at 128 kbit/s. The upload alone offers 200 kbit/s
-- for 30 s, so the FIFO grows by at least 72 kbit/s (0.56 s of wire every
-- second); an ssh keystroke waits behind all of it: seconds.
expect_gt(ssh_m.delay_ns.queue.mean, tcsim.time("1s"), "modem: ssh waits over a second on average")
-- The router: ssh's class comes first and has its own 40 kbit/s.
expect_lt(ssh_r.delay_ns.queue.mean, tcsim.time("20ms"), "router: ssh waits under 20 ms on average")
expect_lt(ssh_r.delay_ns.queue.mean * 100, ssh_m.delay_ns.queue.mean,
          "router: ssh waits 100 times less than behind the modem's FIFO")
-- Only the upload loses frames: sfq's limit (127 packets) under 20:2.
-- ssh, http and the pings, all well under their classes' share, lose none.
local rt = eth0:stats()
expect_eq(up_r.drops, rt.totals.dropped, "router: every drop is the upload's")
expect_eq(src(router, "ssh_interactive.pcap").drops, 0, "router: no ssh frame lost")
expect_eq(rt.classes["1:10"].packets, 578 + 10, "router: 1:10 carried the 578 ssh frames and 10 pings")
expect_eq(rt.qdiscs["21:"].sent_packets, 78 * 4, "router: 20:1 (http) carried the 4 x 78 web frames")
-- In the first 30 s htb sends 1:1's 120 kbit/s, 450000 bytes, plus at
-- most the two leaves' full buckets at the start (burst 1600 bytes each:
-- a class within its own rate sends without asking 1:1, and the rates sum
-- to 1:1's); the upload keeps it busy, so not a frame less either.
expect_between(by30, 450000 - 1250, 450000 + 2 * 1600, "router: 120 kbit/s for the first 30 s")
expect_eq(rt.totals.arrived, rt.totals.sent + rt.totals.dropped, "router: every frame sent or dropped")
