-- ssh_http.lua - the example of the commit that added cls_bpf to Linux
-- (3.13, 7d1d65cb84e1): "a prio root with sfq leaves; ssh and icmp first,
-- http second, everything else last", tried on real traffic before it goes
-- on a router.
--
--   ./tcsim scenarios/ssh_http.lua
--
-- Change a number below and run it again: that is the whole workflow.
-- The API is in docs/lua-api.md.

-- A simulation is a value: its own clock, devices and seed.
local sim = tcsim.sim{ seed = 1 }
-- `./tcsim scenarios/ssh_http.lua -- DIR` also writes plots (backlog, throughput and
-- delay CDF per band) and per-band pcaps into DIR (docs/lua-api.md, sim:outputs).
if arg[1] then sim:outputs{ plot = arg[1], pcap = arg[1] } end

-- A slow uplink, so that queues build and the bands' latencies differ.
-- (tc's units: "128kbit" is 128,000 bit/s; "128kbps" would be bytes/s.)
local eth0 = sim:dev("eth0", { rate = "128kbit" })

-- The policy, exactly as it would be typed on the router. Relative file
-- names start at this scenario's folder.
eth0:tc[[
  # Every priority goes to band 1 (class 1:2) unless a filter says otherwise.
  qdisc add dev eth0 root handle 1: prio bands 3 priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1
  qdisc add dev eth0 parent 1:1 handle 10: sfq perturb 16
  qdisc add dev eth0 parent 1:2 handle 20: sfq perturb 16
  qdisc add dev eth0 parent 1:3 handle 30: sfq perturb 16

  # The commit adds these four without "pref". The kernel then numbers
  # them 49152, 49151, 49150, 49149 and asks the newest first, so misc, a
  # catch-all, would take every packet (scenarios/filter_order.lua shows
  # it). Explicit prefs keep the order as written.
  filter add dev eth0 parent 1: pref 1 bpf bytecode-file filters/ssh.bpf  flowid 1:1
  filter add dev eth0 parent 1: pref 2 bpf bytecode-file filters/icmp.bpf flowid 1:1
  filter add dev eth0 parent 1: pref 3 bpf bytecode-file filters/http.bpf flowid 1:2
  filter add dev eth0 parent 1: pref 4 bpf asm-file      filters/misc.ops flowid 1:3
]]

-- Real traffic, three captures played together, each from t = 0:
--  * an interactive ssh session (586 packets over 102 s: keystrokes and
--    screen updates, 578 of them tcp/22),
--  * a small LAN sample with web browsing (136 packets in 6.4 s: 78 http,
--    the rest DNS, NetBIOS, mDNS, STP, ARP, IPv6), looped 16 times so it
--    lasts as long as the ssh session,
--  * five pings (10 ICMP packets).
sim:replay("captures/ssh_interactive.pcap")
sim:replay("captures/http_wikipedia.pcap", { loop = 16 })
sim:replay("captures/icmp_5_pings.pcap")

sim:run()     -- until every capture is played and every queue is empty
sim:report()  -- tc -s qdisc/class show, then one row per band

-- What you should see, written as checks. A CI job runs this file and
-- fails when one of them does not hold any more.
local st = eth0:stats()
local ssh, http, rest = st.classes["1:1"], st.classes["1:2"], st.classes["1:3"]

-- Every packet read was sent: the link is slow but the queues are long.
expect_eq(st.totals.arrived, 586 + 16 * 136 + 10, "every packet of the three captures arrived")
expect_eq(st.totals.dropped, 0, "nothing was dropped")

-- The filters classify as tcpdump would: 'ip and tcp port 22' counts 578
-- packets in the ssh capture, 'icmp' 10, 'ip and tcp port 80' 78 x 16.
expect_eq(ssh.packets, 578 + 10, "band 0 (1:1) carries ssh and icmp")
expect_eq(http.packets, 78 * 16, "band 1 (1:2) carries http")
expect_eq(rest.packets, (586 - 578) + 16 * (136 - 78), "band 2 (1:3) carries the rest")
expect_eq(st.verdicts.unclassified, nil, "misc.ops leaves nothing to the priomap")

-- Strict priority: band 0 is served whenever it has a packet, so ssh
-- waits only behind other ssh (and the one packet on the wire), while http
-- waits behind ssh, and the rest behind both. A typing user stays happy.
local q = function(c) return c.delay_ns.queue end
print(string.format("mean queueing delay: ssh %.1f ms, http %.1f ms, rest %.1f ms",
  tcsim.ms(q(ssh).mean), tcsim.ms(q(http).mean), tcsim.ms(q(rest).mean)))
expect_lt(q(ssh).mean, q(http).mean, "ssh waits less than http")
expect_lt(q(http).mean, q(rest).mean, "http waits less than the rest")
expect_lt(q(ssh).p50 * 10, q(http).p50, "the typical ssh packet waits a tenth of the typical http one")
