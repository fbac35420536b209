#!/bin/sh
# lint_cli.sh - `tcsim lint` end to end, exact output:
#  1. each mistake lint knows, on a purpose-built configuration in
#     tests/data/lint/NAME.tc, gives exactly tests/data/lint/NAME.out
#     (warnings with the line of the tc command concerned, then the
#     summary), exit 0; with --strict the same output and exit 1;
#  2. the seed commit's policy (scenarios/ssh_http.tc) gives no warnings,
#     and tcpdump's scenarios/filters/tcpdump_ssh.bpf is flagged as
#     returning 262144;
#  3. --rate in bps (bytes per second) is flagged, tcsim run's other
#     options and captures are accepted;
#  4. bad input: exit 2, one line on stderr, nothing on stdout.
# LINT_CLI_UPDATE=1 rewrites the .out files instead: read every line.
. tests/support/cli.sh
D=tests/data/lint

if ! $TCSIM lint --help >/dev/null 2>&1; then
	echo "skip: $TCSIM has no lint command (cmd/main.c: dispatch \"lint\" to lint_main)"
	exit 77
fi

# expect_rc NAME RC CMD...: exactly exit code RC.
expect_rc() {
	name=$1 want=$2; shift 2
	"$@" >/dev/null 2>&1; rc=$?
	if [ $rc -ne "$want" ]; then bad "$name: exit $rc, wanted $want"; else ok; fi
}

# golden NAME [OPTION...]: lint of $D/NAME.tc equals $D/NAME.out.
golden() {
	g=$1; shift
	if [ -n "$LINT_CLI_UPDATE" ]; then
		$TCSIM lint --tc "$D/$g.tc" "$@" >"$D/$g.out"
		echo "wrote $D/$g.out: read it"
		return
	fi
	expect_file "$g" "$D/$g.out" $TCSIM lint --tc "$D/$g.tc" "$@"
	$TCSIM lint --strict --tc "$D/$g.tc" "$@" >"$T_TMP/strict" 2>&1; rc=$?
	if [ $rc -ne 1 ]; then bad "$g --strict: exit $rc, wanted 1"; else ok; fi
	if cmp -s "$T_TMP/strict" "$D/$g.out"; then ok; else bad "$g --strict: other output"; fi
}

# --- 1. one configuration per check
golden returns  # 1: tcpdump's 262144, a masked ret a, a computed ret a, another major
golden shadow   # 2: a filter behind a catch-all, one that never matches
golden flowid   # 3: flowid minor beyond the bands, another major, none, 1:0, sfq
golden auto     # 5: filters without pref run newest first
golden order    # 2 + 5: filter_order.lua's eth0, the catch-all added last
golden kernel   # 6: #rand and no flowid, which Linux 3.13 refuses
golden kernel313 --kernel 3.13 # 6: lsh #32, which current kernels refuse
golden bands    # 7: bands no priomap entry and no filter result names
golden htb      # 8-12: htb rates, ceil, default, quantum, a flowid naming an inner class
golden aqm      # 13-14: codel target above interval, fq_codel memory_limit; fq_codel filters
golden u32      # 15-18: u32 fixed offsets, protocol all, classids of no class, root nexthdr+
golden netem --rate 1gbit # 20: netem limits below the frames a delay holds at the line rate
# a sound htb tree (tests/data/htb/shaped.tc) gives no warnings
out=$($TCSIM lint --tc tests/data/htb/shaped.tc 2>&1)
if [ "$out" = "lint: tests/data/htb/shaped.tc: no warnings" ]; then ok; else bad "htb shaped.tc: $out"; fi

# --- 2. silence on the seed policy; tcpdump's filter flagged
expect_out "ssh_http.tc: no warnings" "lint: scenarios/ssh_http.tc: no warnings" \
	$TCSIM lint --tc scenarios/ssh_http.tc
expect_rc "ssh_http.tc --strict" 0 $TCSIM lint --strict --tc scenarios/ssh_http.tc
expect_out "tcpdump_ssh.bpf returns 262144" \
	"tests/data/lint/returns.tc:4: warning: filter pref 1 returns 262144 = classid 4:0 on a match, which names no band of prio 1: (1:1..1:3), so prio falls back to priomap[0], band 1 (class 1:2), and its flowid 1:1 is never used; make the program return -1 to use the flowid, or a classid of 1:1..1:3 itself (tcpdump -s 65537 -ddd returns 65537 = 1:1)" \
	sh -c "$TCSIM lint --tc $D/returns.tc | grep tcpdump"
grep -q 'tcpdump_ssh.bpf flowid 1:1$' "$D/returns.tc" && ok || bad "returns.tc:4 no longer holds tcpdump_ssh.bpf"

# --- 3. rates, and tcsim run's command line
expect_out "--rate 1mbps" "--rate: warning: 1mbps is 8 Mbit/s (tc reads \"bps\" as bytes per second); write 1mbit if you meant bits
lint: scenarios/ssh_http.tc: 1 warning" $TCSIM lint --tc scenarios/ssh_http.tc --rate 1mbps
expect_rc "--rate 1mbps --strict" 1 $TCSIM lint --strict --tc scenarios/ssh_http.tc --rate 1mbps
expect_out "--rate 128KBps" "--rate: warning: 128KBps is 1.024 Mbit/s (tc reads \"bps\" as bytes per second); write 128kbit if you meant bits
lint: scenarios/ssh_http.tc: 1 warning" $TCSIM lint --tc scenarios/ssh_http.tc --rate 128KBps
expect_out "run's options and captures" "lint: scenarios/ssh_http.tc: no warnings" \
	$TCSIM lint --tc scenarios/ssh_http.tc --rate 256kbit --overhead 24 --mtu 1500 --txqueuelen 100 \
	--delay 5ms --dev eth0 --speed 2 --loop 3 --topspeed --priority forward --vlan inline --seed 7 \
	--kernel current --sfq-allot bytes --sfq-hash random --json - scenarios/captures/ssh_hydra.pcap
expect_out "--kernel 3.13 on the seed policy" "lint: scenarios/ssh_http.tc: no warnings" \
	$TCSIM lint --kernel 3.13 --tc scenarios/ssh_http.tc

# --- 4. bad input
expect_err "missing file" "^tcsim lint: $D/nonexistent.tc: cannot open" $TCSIM lint --tc $D/nonexistent.tc
expect_rc "missing file: exit 2" 2 $TCSIM lint --tc $D/nonexistent.tc
expect_err "tc refuses a line" "^tcsim lint: $D/bad.tc:2: RTNETLINK answers: Invalid argument" \
	$TCSIM lint --tc $D/bad.tc
expect_rc "tc refuses a line: exit 2" 2 $TCSIM lint --strict --tc $D/bad.tc
expect_err "no --tc" "give --tc FILE" $TCSIM lint
expect_rc "no --tc: exit 2" 2 $TCSIM lint
expect_err "bad --rate" "^tcsim lint: --rate 'fast': not a valid value" $TCSIM lint --tc scenarios/ssh_http.tc --rate fast
expect_err "bad --kernel" "^tcsim lint: --kernel '2.6'" $TCSIM lint --tc scenarios/ssh_http.tc --kernel 2.6
expect_rc "bad --kernel: exit 2" 2 $TCSIM lint --tc scenarios/ssh_http.tc --kernel 2.6
expect_err "unknown option" "^tcsim lint: unknown option" $TCSIM lint --tc scenarios/ssh_http.tc --frobnicate
expect_err "--dev names no device" "^tcsim lint: --dev eth9: " $TCSIM lint --tc scenarios/ssh_http.tc --dev eth9

# --- 5. traffic: a protocol ip/ipv6 filter in front of VLAN-tagged IPv4/IPv6
# (check 19). The capture's 230 IPv4 packets inside 802.1Q tags skip the
# two `protocol ip` filters, in tcsim run too (0 hits), and all reach the
# 802.1Q filter; a QinQ capture with only ARP inside and an untagged IPv6
# one give nothing; without captures nothing; an unreadable one: exit 2.
VC=$SHARED/pcaps/vlan_8021q_x11.pcap
case $VC in /*) VCA=$VC ;; *) VCA=$(pwd)/$VC ;; esac
if [ -r "$VC" ]; then
	$TCSIM lint --tc $D/vlan.tc "$VC" 2>"$T_TMP/err" | sed "s#$SHARED/pcaps/#CAPTURES/#g" >"$T_TMP/vlan"
	if cmp -s "$T_TMP/vlan" $D/vlan.out; then ok; else bad "vlan: differs from $D/vlan.out"; diff $D/vlan.out "$T_TMP/vlan"; fi
	hits=$($TCSIM run --tc $D/vlan.tc "$VC" 2>/dev/null | grep '^filter hits:')
	[ "$hits" = "filter hits: pref 1 handle 0x80000800: 0, pref 2 handle 0x1: 0, pref 3 handle 0x1: 0, pref 4 handle 0x1: 230, pref 5 handle 0x1: 165" ] &&
		ok || bad "vlan: tcsim run's hits disagree with the warning: $hits"
	expect_out "vlan: QinQ with ARP inside, untagged IPv6" "lint: $D/vlan.tc: no warnings" \
		$TCSIM lint --tc $D/vlan.tc "$SHARED/pcaps/vlan_qinq_8021ad_arp.pcap" "$SHARED/pcaps/ipv6_dns_ssh_icmpv6.pcap"
	# a scenario: the captures it replays, device by device
	cat >"$T_TMP/vlan.lua" <<LUA
local sim = tcsim.sim{ seed = 1 }
local eth0 = sim:dev("eth0", { rate = "100mbit" })
local eth1 = sim:dev("eth1", { rate = "100mbit" })
local policy = [[
  qdisc add dev DEV root handle 1: prio
  filter add dev DEV parent 1: pref 1 protocol ip u32 match ip protocol 17 0xff classid 1:1
]]
eth0:tc((policy:gsub("DEV", "eth0")))
eth1:tc((policy:gsub("DEV", "eth1")))
sim:replay("$VCA", { dev = "eth0" })
sim:replay("$(pwd)/scenarios/captures/ssh_hydra.pcap", { dev = "eth1" })
sim:run()
LUA
	$TCSIM lint "$T_TMP/vlan.lua" >"$T_TMP/out" 2>&1
	[ "$(grep -c 'warning: this `protocol ip` filter (pref 1, u32) on eth0 never sees the 230 IPv4 packets' "$T_TMP/out")" = 1 ] &&
		[ "$(grep -c ': warning:' "$T_TMP/out")" = 1 ] && grep -q '1 warning$' "$T_TMP/out" &&
		ok || bad "vlan.lua: one warning on eth0 expected: $(cat "$T_TMP/out")"
else
	echo "lint_cli: no $VC: the VLAN traffic checks are skipped"
fi
# a scenario's synthetic source with a VLAN tag (saved to a temporary pcap,
# removed after): the second sim:traffic, 101 tagged IPv4 packets
cat >"$T_TMP/synth.lua" <<'LUA'
local sim = tcsim.sim{ seed = 1 }
local eth0 = sim:dev("eth0", { rate = "100mbit" })
eth0:tc[[
  qdisc add dev eth0 root handle 1: prio
  filter add dev eth0 parent 1: pref 1 protocol ip u32 match ip protocol 17 0xff classid 1:1
]]
sim:traffic{ pps = 10, duration = "1s", size = 200 }
sim:traffic{ pps = 100, duration = "1s", size = 200, vlan = 5 }
sim:run()
LUA
expect_out "vlan: a synthetic source" "$T_TMP/synth.lua:5: warning: this \`protocol ip\` filter (pref 1, u32) on eth0 never sees the 101 IPv4 packets of sim:traffic #2 (synthetic) that carry an 802.1Q tag: tc matches a tagged frame as protocol 802.1Q (the tag's TPID, offloaded or in the frame), so they skip it; match them with \`protocol 802.1Q\` (flower: vlan_ethtype ip; u32/bpf: read past the tag) or take the tag off before this qdisc (a VLAN device)
lint: $T_TMP/synth.lua: 1 warning" $TCSIM lint "$T_TMP/synth.lua"
ls -d /tmp/tcsim-lint-* >/dev/null 2>&1 && bad "vlan: a /tmp/tcsim-lint-* folder was left behind" || ok
expect_out "vlan: no captures" "lint: $D/vlan.tc: no warnings" $TCSIM lint --tc $D/vlan.tc
expect_err "vlan: unreadable capture" "^tcsim lint: $D/nonexistent.pcap: " $TCSIM lint --tc $D/vlan.tc $D/nonexistent.pcap
expect_rc "vlan: unreadable capture: exit 2" 2 $TCSIM lint --tc $D/vlan.tc $D/nonexistent.pcap

finish
