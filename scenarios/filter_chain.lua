-- filter_chain.lua - how one packet walks a filter chain: pref order, the
-- protocol of each filter, falling through, and the priomap at the end.
--
--   ./tcsim scenarios/filter_chain.lua
--
-- tcf_classify (net/sched/cls_api.c) walks the filters by ascending pref.
-- A filter whose protocol is not the packet's (skb->protocol: 0x0800 for
-- IPv4, 0x86dd for IPv6) is skipped without running its program;
-- "protocol all" runs for every packet. A bpf program that returns 0 is
-- "no match" and the walk goes on to the next pref. When no filter
-- matches, prio_classify falls back to priomap[skb->priority & 15], and
-- tcsim counts the packet as "unclassified".

local sim = tcsim.sim{ seed = 1 }
local eth0 = sim:dev("eth0", { rate = "10mbit" })

eth0:tc[[
  # Four bands; the priomap sends every priority to band 3 (1:4), so
  # 1:4 holds exactly what no filter claimed.
  qdisc add dev eth0 root handle 1: prio bands 4 priomap 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3

  # IPv4 ssh. (The program also checks EtherType 0x0800 itself.)
  filter add dev eth0 parent 1: pref 10 protocol ip   bpf bytecode-file filters/ssh.bpf flowid 1:1
  # ICMPv6, for IPv6 packets only.
  filter add dev eth0 parent 1: pref 20 protocol ipv6 bpf asm-file filters/icmpv6.ops flowid 1:1
  # http: asked for every packet, but the program matches IPv4 only.
  filter add dev eth0 parent 1: pref 30 protocol all  bpf bytecode-file filters/http.bpf flowid 1:2
  # A catch-all program ("ret #-1") - but only IPv4 packets get to run it.
  filter add dev eth0 parent 1: pref 40 protocol ip   bpf asm-file filters/misc.ops flowid 1:3

  filter show dev eth0
]]

-- One pref holds one protocol: an ipv6 filter cannot join pref 10.
local ok, err = pcall(eth0.tc, eth0,
  "filter add dev eth0 parent 1: pref 10 protocol ipv6 bpf asm-file filters/misc.ops flowid 1:3")
print("pref 10 protocol ipv6: " .. tostring(err))
expect(not ok and err:find("Invalid argument", 1, true), "pref 10 refuses a second protocol")

local v6 = { src = "2001:db8::1", dst = "2001:db8::2" }
local function send(t, v)
  t.pps, t.size = 100, 200
  if v then t.src, t.dst = v.src, v.dst end
  sim:traffic(t)
end
send{ name = "ssh over IPv4",  proto = "tcp", dport = 22, count = 5 }     -- pref 10
send({ name = "ping6",         proto = "icmpv6", count = 3 }, v6)         -- pref 20
send{ name = "http over IPv4", proto = "tcp", dport = 80, count = 7 }     -- 10 no, 30
send{ name = "DNS over IPv4",  proto = "udp", dport = 53, count = 4 }     -- 10, 30 no; 40
send({ name = "http over IPv6", proto = "tcp", dport = 80, count = 6 }, v6) -- none
send({ name = "ssh over IPv6",  proto = "tcp", dport = 22, count = 2 }, v6) -- none
sim:run()
sim:report()

local st = eth0:stats()
local hits = {}
for _, f in ipairs(st.filters) do hits[f.pref] = f.packets end

-- IPv4 walks 10 -> 30 -> 40 (it skips 20, an ipv6 filter): ssh stops at
-- 10, http at 30, DNS matches nothing before the catch-all at 40.
expect_eq(hits[10], 5, "pref 10 (ip, ssh): the 5 IPv4 ssh frames")
expect_eq(hits[30], 7, "pref 30 (all, http): the 7 IPv4 http frames")
expect_eq(hits[40], 4, "pref 40 (ip, catch-all): the 4 DNS frames that fell through 10 and 30")
-- IPv6 walks 20 -> 30 (it skips 10 and 40, ip filters): ping6 stops at 20;
-- http and ssh over IPv6 run 20 and 30 without a match, and never meet
-- the catch-all, whose protocol is ip.
expect_eq(hits[20], 3, "pref 20 (ipv6, icmpv6): the 3 ping6 frames")
expect_eq(st.verdicts.unclassified, 6 + 2, "IPv6 http and ssh: no filter matched")
expect_eq(st.classes["1:4"].packets, 6 + 2, "... so the priomap put them in band 3 (1:4)")
expect_eq(st.classes["1:1"].packets, 5 + 3, "1:1: IPv4 ssh and ping6")
expect_eq(st.classes["1:3"].packets, 4, "1:3: only IPv4 reaches the catch-all")
