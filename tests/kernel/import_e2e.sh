#!/bin/sh
# import_e2e.sh - `tcsim import` against the running kernel: devices
# configured with the real `tc` in private, throw-away network namespaces
# (IPv6 off before the links exist, veth pairs, always deleted), read back
# by tcsim over rtnetlink, checked, and rebuilt by the real `tc` from the
# lines tcsim wrote.
#
# The kernel here need not have sch_prio or sch_sfq (the Debian kernels of
# CI lack them), so the devices get what every kernel has: htb, pfifo,
# bfifo, tbf and cls_bpf.
#
# Checked, on an htb root with classes, pfifo/bfifo/tbf leaves and bpf
# filters (explicit prefs, protocols ip, ipv6, 802.1Q and all, two programs
# under one pref, classid set and not, one direct-action program, which
# tcsim refuses, and one filter on a class):
#  1. `tcsim import dev D --netns NS`: exit 3 (printed, with omissions);
#     stderr names the direct-action program and nothing else; the htb
#     tree, its classes and leaves are real lines.
#  2. Every bpf filter line tcsim writes carries exactly what
#     `tc filter show` prints (pref, protocol, handle, flowid, bytecode),
#     the class's filter included: the lines are rebuilt from tc's
#     listings and compared as sets.
#  3. `--filters-only` (the root's filters under a prio with the root's
#     handle) is a runnable scenario, and tcsim's own `tc filter show` of
#     it equals the kernel's listing, programs in the same order (the
#     order they are tried in), the refused direct-action pref excepted.
#  3b. The --filters-only scenario, given the shipped captures, runs, and
#     `tcsim kernel-check` of it agrees with the kernel class by class.
#  4. Unprivileged: the same import run as nobody inside the namespace
#     prints the same scenario (a dump needs no privilege), and --netns as
#     nobody fails with one line and nothing on stdout.
#  5. Errors: no such device, no such namespace -> exit 1, one line on
#     stderr, nothing on stdout.
#  6. Round trip through the real tc, for htb trees (two levels, default
#     class, prio, quantum, r2q, direct_qlen, ceil, burst and cburst of odd
#     sizes, mpu, overhead, ATM, 64-bit rates, filters on classes) and tbf
#     (with and without peakrate, mpu, overhead, ATM, 64-bit rates): import
#     exits 0; the tc lines, given to `tc -b` in a second fresh namespace,
#     rebuild what `tc -s -d qdisc show` and `tc -d class show` print
#     (counters aside), the buckets' raw ticks (`tc -r`) and every filter
#     listing, line by line; and importing the rebuilt device prints the
#     same scenario.
#     And pfifo_head_drop leaves (limit 7 and 0) under htb, both built in.
#  7. noqueue (built in): a root with a handle is rebuilt by tc exactly;
#     the veth's default noqueue 0: is written as `qdisc add ... root
#     noqueue` (tcsim's devices start with pfifo_fast), which tcsim runs
#     and shows with its own handle, 8001:.
#
# codel, fq_codel, matchall and fw are not built into this kernel (6.18):
# tests/unit/test_nl_import_aqm.c checks them with crafted dumps.
#
#  8. u32 (when the kernel has cls_u32): two tcf_protos sharing tables
#     with automatic and explicit ids, buckets, links, hash keys, offsets
#     and nexthdr keys make a round trip as in 6 (the ids tc cannot name
#     included), and tcsim running the imported lines lists with its own
#     `tc filter show` exactly what the kernel lists.
#
# Exit 0: pass; 1: failure; 77: cannot run here (SKIP, with the reason).
# Environment: TCSIM (default ./tcsim).

TCSIM=${TCSIM:-./tcsim}
NS=tcsim-kimp-$$
NS2=tcsim-kimp2-$$
NS3=tcsim-kimp3-$$
DEV=kimp0
PEER=kimp1
TMP=
FAILS=0

. "$(dirname "$0")/lib.sh"

fail() {
	echo "FAIL: $*"
	FAILS=$((FAILS + 1))
}

kt_root "not root (namespaces and veths need root)"
kt_tools tc ip awk sed sort diff grep
kt_tcsim
"$TCSIM" import --help 2>/dev/null | grep -q 'tcsim import' ||
	skip "'$TCSIM' import is not available (main.c does not dispatch it yet)"

kt_modprobe veth sch_htb sch_tbf cls_bpf cls_u32

kt_tmp
chmod 755 "$TMP"

# A namespace with IPv6 off (nothing sent by itself) and an up veth pair,
# DEV with mtu 9000 and txqueuelen 500 (htb's direct_qlen default).
mkns() {
	kt_netns "$1" || return 1
	kt_veth "$1" "$DEV" "$PEER" || return 2
	ip netns exec "$1" ip link set "$DEV" mtu 9000 txqueuelen 500 2>/dev/null
	kt_up "$1" "$PEER" "$DEV"
}

mkns "$NS"
kt_skip_rc $?

nsx tc qdisc add dev "$DEV" root handle 1: htb default 99 2>/dev/null || skip "kernel lacks sch_htb"
for c in 1 2 3 99; do
	nsx tc class add dev "$DEV" parent 1: classid 1:$c htb rate 100mbit 2>/dev/null ||
		skip "cannot add htb classes"
done
nsx tc qdisc add dev "$DEV" parent 1:1 handle 10: pfifo limit 50 2>/dev/null || skip "kernel lacks pfifo"
nsx tc qdisc add dev "$DEV" parent 1:2 handle 20: bfifo limit 30000 2>/dev/null || skip "kernel lacks bfifo"
nsx tc qdisc add dev "$DEV" parent 1:3 handle 30: tbf rate 1mbit burst 10k latency 50ms 2>/dev/null ||
	skip "kernel lacks sch_tbf"
# ssh: ip and tcp port 22 (either side), -1 = the configured classid
SSH='13,48 0 0 9,21 0 10 6,40 0 0 6,69 8 0 8191,177 0 0 0,72 0 0 0,21 4 0 22,72 0 0 2,21 2 0 22,6 0 0 0,6 0 0 0,6 0 0 4294967295,6 0 0 0'
filt() { nsx tc filter add dev "$DEV" "$@" 2>/dev/null || skip "kernel lacks cls_bpf (or tc lacks bpf): tc filter add $*"; }
filt parent 1: protocol ip pref 10 handle 1 bpf bytecode "$SSH" flowid 1:1
filt parent 1: protocol ip pref 10 handle 2 bpf bytecode '1,6 0 0 65538'
filt parent 1: protocol ipv6 pref 20 handle 7 bpf bytecode '1,6 0 0 4294967295' flowid 1:2
filt parent 1: protocol 802.1Q pref 30 bpf bytecode '1,6 0 0 4294967295' classid 1:3
filt parent 1: protocol all pref 40 bpf bytecode '1,6 0 0 0' flowid 1:3 direct-action
filt parent 1: protocol all pref 50 bpf bytecode '2,40 0 0 12,6 0 0 4294967295' flowid 1:99
filt parent 1:2 protocol all pref 7 bpf bytecode '1,6 0 0 0' flowid 1:3
nsx tc filter show dev "$DEV" >"$TMP/kernel.txt" || skip "tc filter show failed"
# tc names no parent when asked for one: put it back
nsx tc filter show dev "$DEV" parent 1:2 | sed 's/^filter /filter parent 1:2 /' >"$TMP/kernel.class.txt"

# ---- 1. the import, as root, through --netns ----
"$TCSIM" import dev "$DEV" --netns "$NS" >"$TMP/full.lua" 2>"$TMP/full.err"
rc=$?
[ "$rc" = 3 ] || fail "import: exit $rc, expected 3 (printed, with omissions); stderr: $(cat "$TMP/full.err")"
grep -q "^tcsim import: $DEV: not modelled: filter parent 1: protocol all pref 40 bpf chain 0 handle 0x1: direct-action" "$TMP/full.err" ||
	fail "stderr does not list the direct-action filter of pref 40: $(cat "$TMP/full.err")"
[ "$(wc -l <"$TMP/full.err")" = 1 ] || fail "stderr lists more than the direct-action filter: $(cat "$TMP/full.err")"
grep -q 'error(' "$TMP/full.lua" && fail "the scenario stops although htb is written"
grep -q 'sim:dev("kimp0", { rate = "10mbit", mtu = 9000, txqueuelen = 500 })' "$TMP/full.lua" ||
	fail "the device's mtu/txqueuelen are not the link's"
for l in "qdisc add dev kimp0 root handle 1: htb default 99" \
	"class add dev kimp0 parent 1: classid 1:1 htb rate 100mbit burst 1600 cburst 1600" \
	"class add dev kimp0 parent 1: classid 1:99 htb rate 100mbit burst 1600 cburst 1600" \
	"qdisc add dev kimp0 parent 1:1 handle 10: pfifo limit 50" \
	"qdisc add dev kimp0 parent 1:2 handle 20: bfifo limit 30000" \
	"qdisc add dev kimp0 parent 1:3 handle 30: tbf rate 1mbit burst 10kb limit 16490"; do
	grep -qx "  $l" "$TMP/full.lua" || fail "the line \"$l\" is missing"
done
n=$(grep -c "^tcsim import: $DEV: " "$TMP/full.err")
m=$(sed -n 's/^-- Left out (\([0-9]*\);.*/\1/p' "$TMP/full.lua")
[ "$n" = "$m" ] || fail "stderr has $n omissions, the header $m"

# ---- 2. each filter line against tc's listing ----
# tc:     filter parent 1: protocol ip pref 10 bpf chain 0 handle 0x2 [flowid X] not_in_hw bytecode 'B'
# tcsim:  filter add dev D parent 1: pref 10 protocol ip handle 0x2 bpf bytecode 'B' [flowid X]
tc_lines() {
	awk -v dev="$DEV" '
	/^filter parent .* bpf chain 0 handle / && !/direct-action/ {
		flow = ""
		for (i = 1; i <= NF; i++) {
			if ($i == "parent") parent = $(i + 1)
			if ($i == "protocol") proto = $(i + 1)
			if ($i == "pref") pref = $(i + 1)
			if ($i == "handle") handle = $(i + 1)
			if ($i == "flowid") flow = " flowid " $(i + 1)
		}
		bc = $0; sub(/.*bytecode /, "", bc)
		printf "filter add dev %s parent %s pref %s protocol %s handle %s bpf bytecode %s%s\n",
			dev, parent, pref, proto, handle, bc, flow
	}' "$@" | sort
}
tc_lines "$TMP/kernel.txt" >"$TMP/want.lines"
tc_lines "$TMP/kernel.txt" "$TMP/kernel.class.txt" >"$TMP/want.all.lines"
sed -n 's/^  filter add /filter add /p' "$TMP/full.lua" | sort >"$TMP/got.lines"
[ -s "$TMP/want.lines" ] || fail "no bpf filter in tc's listing"
diff "$TMP/want.all.lines" "$TMP/got.lines" >"$TMP/lines.diff" ||
	fail "filter lines differ from tc filter show (< tc, > tcsim):
$(cat "$TMP/lines.diff")"

# ---- 3. --filters-only runs, and tcsim lists the chain as the kernel does ----
"$TCSIM" import dev "$DEV" --netns "$NS" --filters-only >"$TMP/fo.lua" 2>"$TMP/fo.err"
rc=$?
[ "$rc" = 3 ] || fail "import --filters-only: exit $rc, expected 3; stderr: $(cat "$TMP/fo.err")"
grep -q "^tcsim import: $DEV: left out: filter parent 1:2 protocol all pref 7 bpf chain 0 (1 element): not on the root (--filters-only)" "$TMP/fo.err" ||
	fail "--filters-only: stderr does not list the class's filter: $(cat "$TMP/fo.err")"
grep -q "^  qdisc add dev kimp0 root handle 1: prio bands 16$" "$TMP/fo.lua" ||
	fail "--filters-only: no prio stand-in with handle 1: and bands 16 (flowid 1:99)"
sed -n 's/^  filter add /filter add /p' "$TMP/fo.lua" | sort >"$TMP/fo.lines"
diff "$TMP/want.lines" "$TMP/fo.lines" >/dev/null ||
	fail "--filters-only writes other root filter lines than the full import"
printf '%s\n' 'kimp0:tc("filter show dev kimp0")' >>"$TMP/fo.lua"
(cd "$TMP" && "$TCSIM" fo.lua) >"$TMP/fo.out" 2>"$TMP/fo.run.err" ||
	fail "the --filters-only scenario does not run: $(cat "$TMP/fo.run.err")"
# the kernel's listing without the refused pref 40
awk '/^filter / { keep = !/ pref 40 / } keep' "$TMP/kernel.txt" >"$TMP/kernel.kept"
diff "$TMP/kernel.kept" "$TMP/fo.out" >"$TMP/show.diff" ||
	fail "tcsim's filter show of the import differs from the kernel's (< kernel, > tcsim):
$(cat "$TMP/show.diff")"
# ---- 3b. the imported policy, run on real traffic, agrees with the kernel ----
# (kernel-check builds it afresh in its own namespace and compares, class by
# class, with tcsim's run of the imported scenario)
CAPS=$(cd "$(dirname "$0")/../../scenarios/captures" && pwd)
sed '/^kimp0:tc("filter show dev kimp0")$/d' "$TMP/fo.lua" >"$TMP/fo2.lua"
for cap in ssh_hydra ssh_interactive http_wikipedia icmp_5_pings; do
	printf 'sim:replay("%s/%s.pcap")\n' "$CAPS" "$cap" >>"$TMP/fo2.lua"
done
printf '%s\n' 'sim:run()' 'sim:report()' >>"$TMP/fo2.lua"
"$TCSIM" "$TMP/fo2.lua" >"$TMP/fo2.out" 2>"$TMP/fo2.err" &&
	grep -q "^ arrived 921 sent 921 " "$TMP/fo2.out" ||
	fail "the imported scenario does not run the shipped captures: $(head -3 "$TMP/fo2.err")"
"$TCSIM" kernel-check "$TMP/fo2.lua" >"$TMP/kc.out" 2>"$TMP/kc.err"
rc=$?
if [ "$rc" = 2 ] && grep -q "cannot run here" "$TMP/kc.err"; then
	echo "import_e2e: kernel-check cannot run here ($(cat "$TMP/kc.err")); 3b not checked"
elif [ "$rc" != 0 ] || ! grep -q "^kernel-check: same$" "$TMP/kc.out"; then
	fail "kernel-check of the imported scenario: exit $rc: $(grep -E "DIFF|^tcsim" "$TMP/kc.out" "$TMP/kc.err" | head -5)"
fi

# ---- 4. unprivileged ----
if command -v setpriv >/dev/null 2>&1 && setpriv --reuid=65534 --regid=65534 --clear-groups \
	test -x "$TCSIM" 2>/dev/null; then
	nsx "$TCSIM" import dev "$DEV" >"$TMP/root.lua" 2>/dev/null
	nsx setpriv --reuid=65534 --regid=65534 --clear-groups "$TCSIM" import dev "$DEV" \
		>"$TMP/nobody.lua" 2>"$TMP/nobody.err"
	rc=$?
	[ "$rc" = 3 ] || fail "import as nobody: exit $rc, expected 3: $(cat "$TMP/nobody.err")"
	cmp -s "$TMP/root.lua" "$TMP/nobody.lua" || fail "import as nobody prints another scenario"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$TCSIM" import dev "$DEV" --netns "$NS" \
		>"$TMP/nobody2.lua" 2>"$TMP/nobody2.err"
	rc=$?
	[ "$rc" = 1 ] && [ ! -s "$TMP/nobody2.lua" ] && [ "$(wc -l <"$TMP/nobody2.err")" = 1 ] ||
		fail "--netns as nobody: exit $rc, $(wc -c <"$TMP/nobody2.lua") bytes out: $(cat "$TMP/nobody2.err")"
	grep -q "cannot enter network namespace" "$TMP/nobody2.err" ||
		fail "--netns as nobody: unclear error: $(cat "$TMP/nobody2.err")"
else
	echo "note: unprivileged part skipped (no setpriv, or nobody cannot run $TCSIM)"
fi

# ---- 5. errors ----
"$TCSIM" import dev nosuchdev0 --netns "$NS" >"$TMP/e1.out" 2>"$TMP/e1.err"
rc=$?
[ "$rc" = 1 ] && [ ! -s "$TMP/e1.out" ] && [ "$(wc -l <"$TMP/e1.err")" = 1 ] &&
	grep -q 'no device "nosuchdev0"' "$TMP/e1.err" ||
	fail "no such device: exit $rc, stderr: $(cat "$TMP/e1.err")"
"$TCSIM" import dev "$DEV" --netns "$NS-missing" >"$TMP/e2.out" 2>"$TMP/e2.err"
rc=$?
[ "$rc" = 1 ] && [ ! -s "$TMP/e2.out" ] && grep -q 'network namespace .* not found' "$TMP/e2.err" ||
	fail "no such namespace: exit $rc, stderr: $(cat "$TMP/e2.err")"

# ---- 6. round trip: tcsim's lines rebuild the configuration in real tc ----
# What real tc shows of DEV in namespace $1, counters aside: qdiscs (-s -d)
# and classes (-d), both again raw (-r: the buckets' ticks), and the
# filters of the device and of every class.
shown() {
	{
		ip netns exec "$1" tc -s -d qdisc show dev "$DEV"
		ip netns exec "$1" tc -d class show dev "$DEV"
		ip netns exec "$1" tc -r -d qdisc show dev "$DEV"
		ip netns exec "$1" tc -r -d class show dev "$DEV"
		ip netns exec "$1" tc filter show dev "$DEV"
		for c in $(ip netns exec "$1" tc class show dev "$DEV" | awk '$2 == "htb" { print $3 }'); do
			echo "filters of $c:"
			ip netns exec "$1" tc filter show dev "$DEV" parent "$c"
		done
	} | grep -v '^ Sent \|^ backlog ' | sed 's/direct_packets_stat [0-9]*/direct_packets_stat N/'
}

# roundtrip NAME: configure (the function cfg_NAME, run with tc in
# namespace NS2), import, rebuild in NS3 with tc -b, compare.
roundtrip() {
	name=$1
	ip netns del "$NS2" 2>/dev/null
	ip netns del "$NS3" 2>/dev/null
	mkns "$NS2" && mkns "$NS3" || { fail "$name: cannot make the namespaces"; return; }
	if ! "cfg_$name" >"$TMP/$name.cfg.err" 2>&1; then
		fail "$name: real tc refused the original configuration: $(cat "$TMP/$name.cfg.err")"
		return
	fi
	"$TCSIM" import dev "$DEV" --netns "$NS2" >"$TMP/$name.lua" 2>"$TMP/$name.err"
	rc=$?
	[ "$rc" = 0 ] || fail "$name: import exit $rc, expected 0: $(cat "$TMP/$name.err")"
	grep -q '^-- Everything the kernel reported is reproduced.$' "$TMP/$name.lua" ||
		fail "$name: the scenario does not say everything is reproduced"
	sed -n '/:tc\[\[$/,/^\]\]$/p' "$TMP/$name.lua" | sed -n 's/^  \([a-z]\)/\1/p' >"$TMP/$name.tc"
	ip netns exec "$NS3" tc -b "$TMP/$name.tc" >"$TMP/$name.b.out" 2>&1 ||
		fail "$name: real tc refused tcsim's lines: $(grep -v 'Warning: sch_htb: quantum' "$TMP/$name.b.out")"
	shown "$NS2" >"$TMP/$name.orig"
	shown "$NS3" >"$TMP/$name.rebuilt"
	[ "$(grep -c '^qdisc \|^class ' "$TMP/$name.orig")" -gt 1 ] || fail "$name: nothing configured"
	diff "$TMP/$name.orig" "$TMP/$name.rebuilt" >"$TMP/$name.diff" ||
		fail "$name: tc shows another configuration after tcsim's lines (< original, > rebuilt):
$(cat "$TMP/$name.diff")
lines:
$(cat "$TMP/$name.tc")"
	"$TCSIM" import dev "$DEV" --netns "$NS3" | sed "1s/$NS3/$NS2/" >"$TMP/$name.again.lua"
	diff "$TMP/$name.lua" "$TMP/$name.again.lua" >"$TMP/$name.again.diff" ||
		fail "$name: importing the rebuilt device prints another scenario:
$(cat "$TMP/$name.again.diff")"
	ROUNDTRIPS="$ROUNDTRIPS $name"
}

n2() { ip netns exec "$NS2" tc "$@"; }

# Two levels under a default class: prio, quantum, r2q, direct_qlen, ceil,
# burst and cburst (round, odd, tc's default), mpu, overhead, ATM, 64-bit
# rates; tbf leaves with and without peakrate; filters on the qdisc and on
# classes.
cfg_htb() {
	n2 qdisc add dev "$DEV" root handle 1: htb default 30 r2q 5 direct_qlen 100 &&
	n2 class add dev "$DEV" parent 1: classid 1:1 htb rate 100mbit ceil 100mbit burst 15k &&
	n2 class add dev "$DEV" parent 1:1 classid 1:10 htb rate 3mbit ceil 50mbit prio 1 quantum 3000 \
		mpu 64 overhead 14 cburst 20k &&
	n2 class add dev "$DEV" parent 1:1 classid 1:20 htb rate 20mbit ceil 80mbit burst 32k cburst 3333 prio 2 &&
	n2 class add dev "$DEV" parent 1:1 classid 1:30 htb rate 1mbit ceil 100mbit linklayer atm &&
	n2 class add dev "$DEV" parent 1: classid 1:2 htb rate 777kbit ceil 1234kbit burst 2222 prio 7 &&
	n2 class add dev "$DEV" parent 1:2 classid 1:40 htb rate 50gbit ceil 60gbit &&
	n2 qdisc add dev "$DEV" parent 1:10 handle 10: tbf rate 1mbit burst 10k latency 50ms &&
	n2 qdisc add dev "$DEV" parent 10:1 handle 11: pfifo limit 30 &&
	n2 qdisc add dev "$DEV" parent 1:20 handle 20: bfifo limit 64k &&
	n2 qdisc add dev "$DEV" parent 1:30 handle 30: tbf rate 2mbit burst 20000 limit 30000 \
		peakrate 3mbit mtu 1600 mpu 64 overhead 4 &&
	n2 qdisc add dev "$DEV" parent 1:40 handle 40: tbf rate 40gbit burst 1m limit 1m \
		peakrate 50gbit mtu 64k &&
	n2 filter add dev "$DEV" parent 1: protocol ip pref 1 bpf bytecode '1,6 0 0 4294967295' flowid 1:1 &&
	n2 filter add dev "$DEV" parent 1:1 protocol ip pref 2 bpf bytecode '1,6 0 0 4294967295' flowid 1:10 &&
	n2 filter add dev "$DEV" parent 1:1 protocol all pref 3 bpf bytecode '1,6 0 0 65568' &&
	n2 filter add dev "$DEV" parent 1:2 protocol all pref 4 bpf bytecode '1,6 0 0 4294967295' flowid 1:40
}

# A tbf root without peakrate, a burst whose ticks are not whole bytes'
cfg_tbf() {
	n2 qdisc add dev "$DEV" root handle 1: tbf rate 3mbit burst 4000 latency 70ms &&
	n2 qdisc add dev "$DEV" parent 1:1 handle 10: pfifo limit 30
}

# A tbf root with peakrate, ATM, overhead and mpu
cfg_tbf_peak() {
	n2 qdisc add dev "$DEV" root handle 1: tbf rate 1500kbit burst 3000 peakrate 2mbit mtu 1514 \
		limit 20000 linklayer atm overhead 10 mpu 40
}

# A tbf root at 64-bit rates: several byte counts give each bucket's ticks
cfg_tbf_fast() {
	n2 qdisc add dev "$DEV" root handle 1: tbf rate 34gbit burst 500k peakrate 100gbit mtu 9000 \
		limit 2m
}

# pfifo_head_drop leaves under htb, one of limit 0 (it then drops every
# arrival); the kernel has them built in
cfg_headdrop() {
	n2 qdisc add dev "$DEV" root handle 1: htb default 2 &&
	n2 class add dev "$DEV" parent 1: classid 1:1 htb rate 10mbit &&
	n2 class add dev "$DEV" parent 1: classid 1:2 htb rate 5mbit &&
	n2 qdisc add dev "$DEV" parent 1:1 handle 10: pfifo_head_drop limit 7 &&
	n2 qdisc add dev "$DEV" parent 1:2 handle 20: pfifo_head_drop limit 0
}

# u32 on an htb root: two tcf_protos sharing their tables (an explicit
# table, automatic ids 801: and 802:), a hash table in a bucket, links,
# hash keys, a variable offset with eat, nexthdr keys, an explicit order,
# skip_hw. The lines must rebuild the same ids, which tc cannot name.
cfg_u32() {
	n2 qdisc add dev "$DEV" root handle 1: htb default 3 &&
	for c in 1 2 3; do n2 class add dev "$DEV" parent 1: classid 1:$c htb rate 100mbit || return 1; done &&
	n2 filter add dev "$DEV" parent 1: pref 1 protocol ip u32 match ip dst 10.0.0.1/32 flowid 1:1 &&
	n2 filter add dev "$DEV" parent 1: pref 1 protocol ip handle 2: u32 divisor 256 &&
	n2 filter add dev "$DEV" parent 1: pref 1 protocol ip u32 ht 2:7: match ip src 1.2.3.4/32 \
		match tcp dst 22 0xffff classid 1:2 &&
	n2 filter add dev "$DEV" parent 1: pref 1 protocol ip u32 ht 800:: match ip protocol 6 0xff \
		offset at 0 mask 0x0f00 shift 6 eat hashkey mask 0x000000ff at 12 link 2: &&
	n2 filter add dev "$DEV" parent 1: pref 2 protocol ip u32 divisor 16 &&
	n2 filter add dev "$DEV" parent 1: pref 2 protocol ip u32 order 5 match u32 0 0 at nexthdr+8 \
		classid 1:3 skip_hw &&
	n2 filter add dev "$DEV" parent 1: pref 2 protocol ip u32 ht 802:3: match ip tos 0x10 0xff \
		match ip dport 53 0xffff offset plus 4 classid 1:1
}

ROUNDTRIPS=
CFGS="htb tbf tbf_peak tbf_fast headdrop"
# the kernel may lack cls_u32: then u32 is not checked, and says so
mkns "$NS2" && ip netns exec "$NS2" tc qdisc add dev "$DEV" root handle 1: htb 2>/dev/null &&
	ip netns exec "$NS2" tc filter add dev "$DEV" parent 1: protocol ip u32 match u32 0 0 classid 1:1 \
		2>/dev/null && CFGS="$CFGS u32" || echo "note: the kernel lacks cls_u32; u32 import not checked"
for cfg in $CFGS; do
	roundtrip "$cfg"
done

# ---- 8. u32: tcsim runs the imported lines into the kernel's listing ----
# (NS2 still holds cfg_u32's device: the last round trip)
case " $ROUNDTRIPS " in
*" u32 "*)
	printf '%s\n' "$DEV:tc(\"filter show dev $DEV\")" >>"$TMP/u32.lua"
	(cd "$TMP" && "$TCSIM" u32.lua) >"$TMP/u32.out" 2>"$TMP/u32.run.err" ||
		fail "u32: the imported scenario does not run: $(grep -v 'quantum of class' "$TMP/u32.run.err")"
	ip netns exec "$NS2" tc filter show dev "$DEV" >"$TMP/u32.kernel"
	diff "$TMP/u32.kernel" "$TMP/u32.out" >"$TMP/u32.show.diff" ||
		fail "u32: tcsim's filter show of the import differs from the kernel's (< kernel, > tcsim):
$(cat "$TMP/u32.show.diff")"
	grep -q 'fh 802:3:800 ' "$TMP/u32.out" || fail "u32: no node in table 802: bucket 3"
	;;
esac

# ---- 7. noqueue, built in: a root with a handle rebuilds exactly; the
# veth's default (noqueue 0:) is added, tcsim's devices starting with
# pfifo_fast, and tcsim's tc then shows its own handle ----
ip netns del "$NS2" 2>/dev/null
ip netns del "$NS3" 2>/dev/null
if mkns "$NS2" && mkns "$NS3"; then
	"$TCSIM" import dev "$DEV" --netns "$NS2" >"$TMP/nq0.lua" 2>"$TMP/nq0.err"
	rc=$?
	[ "$rc" = 0 ] && grep -qx '  qdisc add dev kimp0 root noqueue' "$TMP/nq0.lua" ||
		fail "default noqueue: exit $rc, $(cat "$TMP/nq0.err"); lines: $(sed -n '/tc\[\[/,/\]\]/p' "$TMP/nq0.lua")"
	nsk=$(ip netns exec "$NS2" tc qdisc show dev "$DEV")
	case $nsk in "qdisc noqueue 0: root"*) ;; *) fail "the veth's default is not noqueue 0: ($nsk)" ;; esac
	printf '%s\n' 'kimp0:tc("qdisc show dev kimp0")' >>"$TMP/nq0.lua"
	(cd "$TMP" && "$TCSIM" nq0.lua) >"$TMP/nq0.out" 2>"$TMP/nq0.run.err" ||
		fail "default noqueue: the scenario does not run: $(cat "$TMP/nq0.run.err")"
	grep -qx 'qdisc noqueue 8001: root refcnt 2 ' "$TMP/nq0.out" ||
		fail "default noqueue: tcsim shows $(cat "$TMP/nq0.out")"
	ip netns exec "$NS2" tc qdisc add dev "$DEV" root handle 5: noqueue 2>"$TMP/nq.cfg.err" ||
		fail "real tc refused noqueue with a handle: $(cat "$TMP/nq.cfg.err")"
	"$TCSIM" import dev "$DEV" --netns "$NS2" >"$TMP/nq.lua" 2>"$TMP/nq.err"
	rc=$?
	[ "$rc" = 0 ] && grep -qx '  qdisc add dev kimp0 root handle 5: noqueue' "$TMP/nq.lua" ||
		fail "noqueue 5:: exit $rc, $(cat "$TMP/nq.err")"
	sed -n '/:tc\[\[$/,/^\]\]$/p' "$TMP/nq.lua" | sed -n 's/^  \([a-z]\)/\1/p' >"$TMP/nq.tc"
	ip netns exec "$NS3" tc -b "$TMP/nq.tc" >"$TMP/nq.b.out" 2>&1 ||
		fail "noqueue 5:: real tc refused tcsim's line: $(cat "$TMP/nq.b.out")"
	a=$(ip netns exec "$NS2" tc -d qdisc show dev "$DEV")
	b=$(ip netns exec "$NS3" tc -d qdisc show dev "$DEV")
	[ "$a" = "$b" ] || fail "noqueue 5:: tc shows \"$b\" after tcsim's line, \"$a\" before"
	printf '%s\n' 'kimp0:tc("qdisc show dev kimp0")' >>"$TMP/nq.lua"
	(cd "$TMP" && "$TCSIM" nq.lua) >"$TMP/nq.out" 2>&1 &&
		grep -qx 'qdisc noqueue 5: root refcnt 2 ' "$TMP/nq.out" ||
		fail "noqueue 5:: tcsim shows $(cat "$TMP/nq.out")"
	ROUNDTRIPS="$ROUNDTRIPS noqueue"
else
	fail "noqueue: cannot make the namespaces"
fi

if [ "$FAILS" -gt 0 ]; then
	echo "import_e2e: $FAILS failure(s)"
	exit 1
fi
echo "import_e2e: ok ($(wc -l <"$TMP/want.all.lines") bpf programs, direct-action reported; rebuilt by tc:$ROUNDTRIPS)"
exit 0
