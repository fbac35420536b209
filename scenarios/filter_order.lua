-- filter_order.lua - in which order prio asks its filters, and the trap of
-- filters added without "pref".
--
--   ./tcsim scenarios/filter_order.lua
--
-- A qdisc's filters are a list sorted by pref (priority), lowest first;
-- tcf_classify (net/sched/cls_api.c) asks them in that order and stops at
-- the first that matches. A filter added without pref gets one from
-- tcf_auto_prio: 0xC000 = 49152 for the first, then one less than the
-- lowest pref already there from 0x8000 up: 49151, 49150, ... So each
-- filter added without pref goes in front of the others added without
-- pref: the newest is asked first.
--
-- The same four filters (ssh and icmp to 1:1, http to 1:2, a catch-all to
-- 1:3, as in ssh_http.lua) on three devices:
--   eth0: added in reading order, no pref   -> the catch-all, added last,
--         is asked first and takes everything;
--   eth1: the same order with pref 1..4     -> asked as written;
--   eth2: no pref, catch-all added FIRST    -> asked last: also right.

local sim = tcsim.sim{ seed = 1 }

-- Each device: a prio whose priomap sends everything to band 1 (1:2)
-- unless a filter says otherwise (as in ssh_http.lua), and four filters.
local function policy(dev, lines)
  sim:dev(dev, { rate = "10mbit" })
  sim:tc((([[
    qdisc add dev DEV root handle 1: prio bands 3 priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1
  ]] .. lines):gsub("DEV", dev)))
end

policy("eth0", [[
  filter add dev DEV parent 1: bpf bytecode-file filters/ssh.bpf  flowid 1:1
  filter add dev DEV parent 1: bpf bytecode-file filters/icmp.bpf flowid 1:1
  filter add dev DEV parent 1: bpf bytecode-file filters/http.bpf flowid 1:2
  filter add dev DEV parent 1: bpf asm-file      filters/misc.ops flowid 1:3
]])
policy("eth1", [[
  filter add dev DEV parent 1: pref 1 bpf bytecode-file filters/ssh.bpf  flowid 1:1
  filter add dev DEV parent 1: pref 2 bpf bytecode-file filters/icmp.bpf flowid 1:1
  filter add dev DEV parent 1: pref 3 bpf bytecode-file filters/http.bpf flowid 1:2
  filter add dev DEV parent 1: pref 4 bpf asm-file      filters/misc.ops flowid 1:3
]])
policy("eth2", [[
  filter add dev DEV parent 1: bpf asm-file      filters/misc.ops flowid 1:3
  filter add dev DEV parent 1: bpf bytecode-file filters/http.bpf flowid 1:2
  filter add dev DEV parent 1: bpf bytecode-file filters/icmp.bpf flowid 1:1
  filter add dev DEV parent 1: bpf bytecode-file filters/ssh.bpf  flowid 1:1
]])

-- What tc shows: eth0's list starts with pref 49149, the catch-all.
sim:tc[[
  filter show dev eth0
  filter show dev eth1
  filter show dev eth2
]]

-- The same traffic on each: 10 ssh, 4 ping, 20 http, 6 DNS frames.
for _, dev in ipairs{ "eth0", "eth1", "eth2" } do
  sim:traffic{ dev = dev, proto = "tcp", dport = 22, count = 10, pps = 100, size = 200 }
  sim:traffic{ dev = dev, proto = "icmp", count = 4, pps = 100, size = 100 }
  sim:traffic{ dev = dev, proto = "tcp", dport = 80, count = 20, pps = 100, size = 600 }
  sim:traffic{ dev = dev, proto = "udp", dport = 53, count = 6, pps = 100, size = 90 }
end
sim:run()
sim:report()

-- Hits per pref, from the results ("filters" lists the filters that
-- matched at least one frame).
local function hits(st)
  local h = {}
  for _, f in ipairs(st.filters) do h[f.pref] = f.packets end
  return h
end
local devs = sim:devices()
local e0, e1, e2 = devs[1]:stats(), devs[2]:stats(), devs[3]:stats()

-- eth0: the catch-all got 49149, the lowest pref: it answers for all 40.
expect_eq(e0.classes["1:3"].packets, 40, "eth0: everything lands in 1:3")
expect_eq(e0.classes["1:1"].packets, 0, "eth0: ssh and ping never reach their filters")
expect_eq(hits(e0)[49149], 40, "eth0: misc.ops (pref 49149) matched all 40 frames")
expect_eq(hits(e0)[49152] or 0, 0, "eth0: ssh.bpf (pref 49152, the first added) matched none")
-- eth1 and eth2: ssh + ping to 1:1, http to 1:2, DNS to 1:3.
for _, st in ipairs{ e1, e2 } do
  expect_eq(st.classes["1:1"].packets, 10 + 4, st.name .. ": ssh and ping in 1:1")
  expect_eq(st.classes["1:2"].packets, 20, st.name .. ": http in 1:2")
  expect_eq(st.classes["1:3"].packets, 6, st.name .. ": DNS in 1:3")
end
expect_eq(hits(e1)[4], 6, "eth1: misc.ops at pref 4 sees only the DNS frames")
expect_eq(hits(e2)[49149], 10, "eth2: ssh.bpf, added last, got pref 49149 and is asked first")
expect_eq(hits(e2)[49152], 6, "eth2: misc.ops, added first (49152), sees only what is left")
