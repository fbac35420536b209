-- ssh_http_tcpdump.lua - the same policy as ssh_http.lua, but with the
-- filters made the way the cls_bpf commit also suggests:
--
--   tcpdump -ddd port 22 | tr '\n' ',' > /etc/tc/ssh.bpf
--
-- (scenarios/filters/tcpdump_*.bpf were made exactly so, by tcpdump 4.99.3
-- with libpcap 1.10.3). It looks right and it is wrong: nothing reaches
-- band 0.
--
--   ./tcsim scenarios/ssh_http_tcpdump.lua
--
-- Why. A tcpdump filter returns the snapshot length, 262144, when it
-- matches (that many bytes to capture). cls_bpf does not read that as
-- "match": any return other than 0 (no match) and -1 (use the flowid) IS
-- the classid (cls_bpf_classify: res->classid = filter_res). 262144 is
-- 0x40000, classid 4:0. prio_classify then finds minor 0, which names no
-- band (bands are minors 1..3), and falls back to priomap[0]: band 1,
-- class 1:2. The flowid on the tc line is never used.

-- The captures and link of ssh_http.lua.
local function traffic(sim)
  sim:replay("captures/ssh_interactive.pcap")
  sim:replay("captures/http_wikipedia.pcap", { loop = 16 })
  sim:replay("captures/icmp_5_pings.pcap")
end

local qdiscs = [[
  qdisc add dev eth0 root handle 1: prio bands 3 priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1
  qdisc add dev eth0 parent 1:1 handle 10: sfq perturb 16
  qdisc add dev eth0 parent 1:2 handle 20: sfq perturb 16
  qdisc add dev eth0 parent 1:3 handle 30: sfq perturb 16
]]

-- 1. The trap: tcpdump's programs, the flowids of the commit.
local trap = tcsim.sim{ name = "tcpdump", seed = 1 }
local eth0 = trap:dev("eth0", { rate = "128kbit" })
eth0:tc(qdiscs)
eth0:tc[[
  filter add dev eth0 parent 1: pref 1 bpf bytecode-file filters/tcpdump_ssh.bpf  flowid 1:1
  filter add dev eth0 parent 1: pref 2 bpf bytecode-file filters/tcpdump_icmp.bpf flowid 1:1
  filter add dev eth0 parent 1: pref 3 bpf bytecode-file filters/tcpdump_http.bpf flowid 1:2
  filter add dev eth0 parent 1: pref 4 bpf asm-file      filters/misc.ops         flowid 1:3
]]
traffic(trap)
trap:run()
print("== with tcpdump's filters")
trap:report()

local st = eth0:stats()
-- ssh (578), icmp (10) and http (78 x 16) all matched, and all returned
-- 262144: the verdict "4:" (classid 4:0), not 1:1 or 1:2 ...
expect_eq(st.verdicts["4:"], 578 + 10 + 78 * 16, "tcpdump's matches return classid 4:0")
expect_eq(st.verdicts["1:1"], nil, "no packet is given class 1:1")
-- ... and prio sent them to priomap[0] = band 1, class 1:2, ssh with http.
expect_eq(st.classes["1:1"].packets, 0, "band 0 stays empty")
expect_eq(st.classes["1:2"].packets, 578 + 10 + 78 * 16, "ssh, icmp and http share band 1")
local ssh_wait = st.classes["1:2"].delay_ns.queue.mean

-- 2. The fix: programs that return -1 on a match ("use my flowid"),
-- assembled from ssh.ops / icmp.ops / http.ops with bpfc (or
-- `tcsim bpf asm -f tc`). This is ssh_http.lua's policy.
local fixed = tcsim.sim{ name = "fixed", seed = 1 }
local eth0f = fixed:dev("eth0", { rate = "128kbit" })
eth0f:tc(qdiscs)
eth0f:tc[[
  filter add dev eth0 parent 1: pref 1 bpf bytecode-file filters/ssh.bpf  flowid 1:1
  filter add dev eth0 parent 1: pref 2 bpf bytecode-file filters/icmp.bpf flowid 1:1
  filter add dev eth0 parent 1: pref 3 bpf bytecode-file filters/http.bpf flowid 1:2
  filter add dev eth0 parent 1: pref 4 bpf asm-file      filters/misc.ops flowid 1:3
]]
traffic(fixed)
fixed:run()
local fs = eth0f:stats()
expect_eq(fs.classes["1:1"].packets, 578 + 10, "fixed: ssh and icmp in band 0")
expect_eq(fs.classes["1:2"].packets, 78 * 16, "fixed: http in band 1")

-- 3. Another fix, which shows what the return value is: ask tcpdump for a
-- snapshot length that IS the classid. 65537 = 0x10001 = 1:1, 65538 = 1:2:
--   tcpdump -s 65537 -ddd port 22
-- (scenarios/filters/tcpdump_s6553*.bpf; the flowids are never used now,
-- the program names the class itself).
local snap = tcsim.sim{ name = "snaplen", seed = 1 }
local eth0s = snap:dev("eth0", { rate = "128kbit" })
eth0s:tc(qdiscs)
eth0s:tc[[
  filter add dev eth0 parent 1: pref 1 bpf bytecode-file filters/tcpdump_s65537_ssh.bpf  flowid 1:1
  filter add dev eth0 parent 1: pref 2 bpf bytecode-file filters/tcpdump_s65537_icmp.bpf flowid 1:1
  filter add dev eth0 parent 1: pref 3 bpf bytecode-file filters/tcpdump_s65538_http.bpf flowid 1:2
  filter add dev eth0 parent 1: pref 4 bpf asm-file      filters/misc.ops               flowid 1:3
]]
traffic(snap)
snap:run()
local ss = eth0s:stats()
expect_eq(ss.verdicts["1:1"], 578 + 10, "snaplen 65537: the program itself returns 1:1")
expect_eq(ss.verdicts["1:2"], 78 * 16, "snaplen 65538: the program itself returns 1:2")

print(string.format("ssh's mean queueing delay: %.1f ms with tcpdump's filters, %.1f ms fixed",
  tcsim.ms(ssh_wait), tcsim.ms(fs.classes["1:1"].delay_ns.queue.mean)))
expect_gt(ssh_wait, 10 * fs.classes["1:1"].delay_ns.queue.mean,
  "ssh waits over ten times longer when it shares band 1 with http")
