-- lartc_u32.lua - the LARTC HOWTO's classic policy: a prio root with sfq
-- leaves and u32 filters that put interactive traffic (ssh, TOS
-- "minimize delay", icmp) in the first band and web traffic in the last,
-- tried on real captures at a rate where queues form.
--
--   ./tcsim scenarios/lartc_u32.lua
--
-- The tree:
--   1:   prio (3 bands; the default priomap: TOS 0 -> band 1 = 1:2)
--   1:1  sfq   ip dport 22, ip tos 0x10, ip protocol 1 (u32, prio 1)
--   1:2  sfq   everything no filter names (priomap)
--   1:3  sfq   ip dport 80 / ip sport 80 (u32, prio 2): bulk web
-- prio asks the filters in pref order; all u32 filters of one pref share
-- one hash table (800:), asked in the order they were added, and the
-- first match wins. `protocol ip` keeps ARP and the like away from them.
-- `./tcsim lint scenarios/lartc_u32.lua` warns three times, rightly: `match
-- ip dport/sport` reads at byte 20, true only for a 20-byte IP header
-- (no options), and checks no protocol (UDP to port 22 matches too).
-- That is the HOWTO's idiom as people type it; the lint message shows
-- the `offset ... link` form that reads the real transport header.
--
-- What to look at: the three rows of the report. ssh's frames wait in
-- band 0 only behind each other; http's wait until bands 0 and 1 are
-- empty. Things to change:
--  * the rate to 1mbit: the queues almost vanish: ssh waits 0.8 ms on
--    average, http 6.0 ms. Priority only matters where a queue forms.
--  * remove the `tos 0x10` line: the 206 frames it catches (the
--    ssh_interactive capture's TOS 0x10 frames not to port 22: the
--    server's side) are unclassified (verdicts: 1:1 456, unclassified
--    387), but prio's priomap places TOS 0x10 (priority 6, interactive)
--    in band 0 anyway: 1:1 still carries 662. The filter and the priomap
--    agree here; with `priomap 1 1 1 ...` they would not.
--  * `flowid 1:1` instead of 1:3 on the web lines: http shares band 0
--    with ssh: ssh's mean wait grows from 35.6 to 52.4 ms, http's falls
--    from 987 to 632 ms, and 1:2 waits 1.77 s instead of 0.97 s.

local sim = tcsim.sim{ seed = 1 }
-- 128 kbit/s: the captures' bursts (a page load, hydra's login storm)
-- are faster than this, so queues form and the bands' waits differ.
local eth0 = sim:dev("eth0", { rate = "128kbit" })

eth0:tc[[
  qdisc add dev eth0 root handle 1: prio
  qdisc add dev eth0 parent 1:1 handle 10: sfq perturb 10
  qdisc add dev eth0 parent 1:2 handle 20: sfq perturb 10
  qdisc add dev eth0 parent 1:3 handle 30: sfq perturb 10
  filter add dev eth0 parent 1:0 protocol ip prio 1 u32 match ip dport 22 0xffff flowid 1:1
  filter add dev eth0 parent 1:0 protocol ip prio 1 u32 match ip tos 0x10 0xff flowid 1:1
  filter add dev eth0 parent 1:0 protocol ip prio 1 u32 match ip protocol 1 0xff flowid 1:1
  filter add dev eth0 parent 1:0 protocol ip prio 2 u32 match ip dport 80 0xffff flowid 1:3
  filter add dev eth0 parent 1:0 protocol ip prio 2 u32 match ip sport 80 0xffff flowid 1:3
  filter show dev eth0
]]

sim:replay("captures/ssh_hydra.pcap")
sim:replay("captures/ssh_interactive.pcap")
sim:replay("captures/http_wikipedia.pcap")
sim:replay("captures/icmp_5_pings.pcap")
sim:run()
sim:report()

local st = eth0:stats()
local function src(name) return st.sources[name] end

-- The counts, derived from the captures with tcpdump, not from tcsim:
--   tcpdump -r CAP 'ip and (dst port 22 or ip[1]=0x10 or ip proto 1)' | wc -l
--     ssh_hydra 91, ssh_interactive 561, icmp_5_pings 10, http_wikipedia 0
--   tcpdump -r CAP 'ip and not (dst port 22 or ip[1]=0x10 or ip proto 1)
--                   and (dst port 80 or src port 80)' | wc -l
--     http_wikipedia 78, the others 0
--   the rest of the 136 + 189 + 586 + 10 = 921 frames: 58 + 98 + 25 = 181
--   (hydra's server side, non-TOS ssh frames, ARP, DNS, ...).
expect_eq(st.classes["1:1"].packets, 91 + 561 + 10, "1:1: ssh to port 22, TOS 0x10 and icmp")
expect_eq(st.classes["1:3"].packets, 78, "1:3: the 78 frames to or from port 80")
expect_eq(st.classes["1:2"].packets, 58 + 98 + 25, "1:2: the other 181 frames, by the priomap")
expect_eq(st.totals.dropped, 0, "no frame lost: sfq's 127 packets are enough")
expect_eq(st.totals.arrived, 921, "all 921 captured frames arrived")
-- The latency claim: interactive ssh waits less than web traffic.
local ssh = src("ssh_interactive.pcap").delay_ns.queue
local web = src("http_wikipedia.pcap").delay_ns.queue
print(string.format("mean wait: ssh_interactive %.1f ms, http %.1f ms",
                    tcsim.ms(ssh.mean), tcsim.ms(web.mean)))
expect_lt(ssh.mean * 5, web.mean, "interactive ssh waits at least 5 times less than http")
