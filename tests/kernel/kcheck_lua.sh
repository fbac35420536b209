#!/bin/sh
# kcheck_lua.sh - `tcsim kernel-check SCENARIO.lua`: every shipped scenario's
# tc commands and traffic (captures, and synthetic sources saved to pcaps)
# run by the running kernel (its own tree where the kernel has every kind:
# htb, tbf and fifos with tcsim's parameters; the htb stand-in under a prio
# root where it lacks sch_prio)
# and by tcsim must agree, device by device. Root only (skips otherwise).
. tests/support/cli.sh
if [ "$(id -u)" != 0 ]; then echo "kcheck_lua: SKIP: needs root (network namespaces)"; exit 77; fi
if ! $TCSIM kernel-check --help >/dev/null 2>&1; then echo "kcheck_lua: SKIP: no kernel-check"; exit 77; fi
for s in scenarios/*.lua; do
	$TCSIM kernel-check "$s" >"$T_TMP/out" 2>"$T_TMP/err"; rc=$?
	# a tree whose kinds this kernel lacks, under a root the htb stand-in
	# cannot replace (htb_router's prio and sfq below its htb): that
	# scenario is skipped, said aloud with kernel-check's own reason
	if [ $rc -eq 2 ] && grep -q 'cannot run here: the kernel lacks' "$T_TMP/err"; then
		echo "kcheck_lua: $s: skipped: $(cat "$T_TMP/err")"; continue
	fi
	if [ $rc -eq 2 ] && grep -q 'cannot run here' "$T_TMP/err"; then
		echo "kcheck_lua: SKIP: $(cat "$T_TMP/err")"; exit 77
	fi
	devs=$(grep -c '^== simulation ' "$T_TMP/out")
	same=$(grep -c '^kernel-check: same$' "$T_TMP/out")
	if [ $rc -ne 0 ] || [ "$devs" -eq 0 ] || [ "$devs" -ne "$same" ]; then
		bad "$s: exit $rc, $same of $devs devices the same: $(grep -E 'DIFF|^tcsim' "$T_TMP/out" "$T_TMP/err" | head -5)"
	else ok; fi
done
# the tcpdump trap in the kernel too: classid 4:0 is no class of the htb
# stand-in, so those packets land in its default class; tcsim agrees
$TCSIM kernel-check scenarios/ssh_http_tcpdump.lua >"$T_TMP/out" 2>&1
if grep -Eq '^1:99 \(default\) +666 +666 .* ok' "$T_TMP/out"; then ok
else bad "ssh_http_tcpdump: 666 packets of 4:0 (578 ssh + 10 icmp + 78 http, each capture once) not in the kernel's default class: $(grep '^1:99' "$T_TMP/out" | head -1)"; fi
# skb->priority as the scenario gives it, on both sides: htb_borrow's
# customers carry priority 1:10 and 1:20, which htb_classify takes first
$TCSIM kernel-check scenarios/htb_borrow.lua >"$T_TMP/out" 2>&1
if grep -Eq '^class htb 1:10 +601 +601 .* ok' "$T_TMP/out" && grep -Eq '^class htb 1:20 +401 +401 .* ok' "$T_TMP/out"; then ok
else bad "htb_borrow: priorities 1:10 (601 frames) and 1:20 (401) not in their classes on both sides: $(grep '^class htb 1:[12]0' "$T_TMP/out" | tr '\n' ' ')"; fi
# skb->mark as the scenario gives it (sim:replay's mark rules), on both
# sides: bpf filters reading `ld #mark` put the 14 port-22 SYNs (0x16) in
# 1:1 and the 174 other port-22 frames (0x35) in 1:2, in the kernel too
sed "s#CAPTURE#$PWD/scenarios/captures/ssh_hydra.pcap#" >"$T_TMP/mark.lua" <<'LUA'
local sim = tcsim.sim{ seed = 1 }
local eth0 = sim:dev("eth0", { rate = "10mbit" })
eth0:tc[[
  qdisc add dev eth0 root handle 1: prio bands 3
  filter add dev eth0 parent 1: pref 1 protocol all bpf bytecode '4,32 0 0 4294963220,21 0 1 22,6 0 0 4294967295,6 0 0 0' flowid 1:1
  filter add dev eth0 parent 1: pref 2 protocol all bpf bytecode '4,32 0 0 4294963220,21 0 1 53,6 0 0 4294967295,6 0 0 0' flowid 1:2
]]
sim:replay("CAPTURE", { mark = { { "tcp port 22 and tcp[tcpflags] & tcp-syn != 0", 0x16 }, { "tcp port 22", 0x35 } } })
sim:run()
LUA
$TCSIM kernel-check "$T_TMP/mark.lua" >"$T_TMP/out" 2>&1
if grep -Eq '^1:1 +14 +14 +1036 +1036 +ok' "$T_TMP/out" && grep -Eq '^1:2 +174 +174 +32116 +32116 +ok' "$T_TMP/out" &&
	grep -q '^kernel-check: same$' "$T_TMP/out"; then ok
else bad "mark.lua: the scenario's marks did not reach both sides: $(grep -E '^1:|^tcsim' "$T_TMP/out" | tr '\n' ' ')"; fi
finish
