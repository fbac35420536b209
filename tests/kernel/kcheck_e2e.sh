#!/bin/sh
# kcheck_e2e.sh - `tcsim kernel-check` end to end (root): the seed policy
# over the shipped captures and a few of ../shared/pcaps (VLAN ones too)
# must agree with the kernel (exit 0, the table); htb's classid folding
# (direct queue, default class, foreign majors) must agree; a snaplen-
# truncated capture under a filter on `len` (a documented deviation) must be
# caught (exit 1, DIFF lines); --priority reaches htb as in tcsim (a leaf,
# the direct queue, the default class) and is refused with --htb; bad
# usage exits 2; pfifo_head_drop and noqueue (built into 6.18) are built
# and compared, codel, fq_codel, matchall and fw compared where the kernel
# has them, else refused in one line naming the kind (exit 2); u32
# filters (linked tables, shared ids) are installed from tcsim's model and
# agree; --mark reaches the kernel (SO_MARK) as tcsim; flower and basic
# are installed, and a kernel without them
# is named in one line (exit 2); a run
# without root says so
# (exit 2); and no run leaves a network namespace or a process behind,
# including one interrupted by SIGINT while the kernel side is sending.
#
# Exit 0 pass, 1 fail, 77 skip (not root, tcsim without kernel-check, or
# this kernel cannot run it). Environment: TCSIM (default ./tcsim), PCAPS
# (default ../shared/pcaps next to the repository).

TCSIM=${TCSIM:-./tcsim}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PCAPS=${PCAPS:-$ROOT/../shared/pcaps}
TMP=
fails=0 checks=0

. "$HERE/lib.sh"

kt_root
case $TCSIM in /*) ;; *) TCSIM=$(pwd)/$TCSIM ;; esac
[ -x "$TCSIM" ] || { echo "FAIL: tcsim binary '$TCSIM' not found (set TCSIM)"; exit 1; }
"$TCSIM" kernel-check --help 2>/dev/null | grep -q -- '--tc' ||
	skip "'$TCSIM' has no kernel-check command yet"
command -v lsns >/dev/null 2>&1 || skip "lsns (util-linux) not installed"

kt_tmp /tmp/tcsim-kcheck-e2e.XXXXXX
chmod 755 "$TMP"
cd "$ROOT" || exit 1

# The marker: every file of this test is under $TMP, and so is the tc file
# each run names, so a process (or a namespace held by one) left behind by
# a run shows $TMP on its command line.
leftovers() {
	pgrep -af -- "kernel-check.*$TMP/"
	lsns -t net -n -o NS,PID,COMMAND 2>/dev/null | grep -F -- "$TMP/"
}
NAMED0=$(ip netns list 2>/dev/null | wc -l)

pass() { checks=$((checks + 1)); echo "ok   $*"; }
fail() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL $*"; }

# check_clean WHAT: nothing of the run may remain.
check_clean() {
	sleep 0.1
	left=$(leftovers)
	named=$(ip netns list 2>/dev/null | wc -l)
	if [ -n "$left" ]; then
		fail "$1: left behind: $left"
	elif [ "$named" -gt "$NAMED0" ] && ip netns list | grep -qv '^tcsim-[a-z]*-[0-9]'; then
		fail "$1: ip netns list grew from $NAMED0 to $named: $(ip netns list | tr '\n' ' ')"
	else
		pass "$1: no namespace or process left"
	fi
}

# kc EXPECTED_RC NAME ARGS...: runs kernel-check with a tc file copied into
# $TMP (the marker), output in $TMP/NAME.out.
kc() {
	want=$1 name=$2
	shift 2
	"$TCSIM" kernel-check "$@" >"$TMP/$name.out" 2>&1
	rc=$?
	if [ "$rc" = 2 ] && grep -q '^tcsim kernel-check: cannot run here:' "$TMP/$name.out"; then
		cat "$TMP/$name.out"
		skip "kernel-check cannot run on this machine"
	fi
	if [ "$rc" = "$want" ]; then
		pass "$name: exit $rc"
	else
		fail "$name: exit $rc, expected $want"
		sed 's/^/     /' "$TMP/$name.out"
	fi
	check_clean "$name"
}

cp scenarios/ssh_http.tc "$TMP/ssh_http.tc"
cp -r scenarios/filters "$TMP/filters"

# 1. the seed policy over a real capture: the table, equal
kc 0 seed_hydra --tc "$TMP/ssh_http.tc" scenarios/captures/ssh_hydra.pcap
sed 's/^/     /' "$TMP/seed_hydra.out"
if grep -q '^total .* ok' "$TMP/seed_hydra.out" && grep -q '^1:1 .* ok' "$TMP/seed_hydra.out" &&
	grep -q '^kernel-check: same' "$TMP/seed_hydra.out"; then
	pass "seed_hydra: table with per-class rows and totals"
else
	fail "seed_hydra: no table"
fi

# 2. every shipped capture at once, and some of ../shared's (VLAN too)
set -- scenarios/captures/*.pcap
kc 0 seed_shipped --tc "$TMP/ssh_http.tc" "$@"
shared=
for c in vlan_8021q_x11.pcap vlan_qinq_8021ad_arp.pcap lan_mixed_ssh_dns_dhcp.pcap \
	ipv6_dns_ssh_icmpv6.pcap linux_sll2_icmp_arp.pcap bad_caplen8_ethernet.pcap; do
	[ -r "$PCAPS/$c" ] && shared="$shared $PCAPS/$c"
done
if [ -n "$shared" ]; then
	# shellcheck disable=SC2086
	kc 0 seed_shared --tc "$TMP/ssh_http.tc" $shared
	grep '^total' "$TMP/seed_shared.out" | sed 's/^/     /'
else
	echo "note: no captures at $PCAPS: the shared ones are left out"
fi

# 3. htb's folding: the root's own handle (direct queue), unknown minors,
# foreign majors, major 0, no match (default class), bound flowids
cat >"$TMP/fold.tc" <<'EOF'
qdisc add dev eth0 root handle 7: prio bands 3
filter add dev eth0 parent 7: pref 5 protocol arp bpf bytecode '1,6 0 0 4294967295' flowid 7:0
filter add dev eth0 parent 7: protocol ip bpf expr "icmp" flowid 7:1
filter add dev eth0 parent 7: protocol ip bpf expr "udp port 53"
filter add dev eth0 parent 7: pref 10 protocol ipv6 bpf bytecode '1,6 0 0 2'
filter add dev eth0 parent 7: pref 10 protocol ipv6 bpf bytecode '4,48 0 0 20,21 0 1 6,6 0 0 458757,6 0 0 0'
filter add dev eth0 parent 7: pref 20 protocol 802.1Q bpf bytecode '1,6 0 0 4294901761'
filter add dev eth0 parent 7: pref 30 protocol ip bpf asm-file filters/ssh.ops flowid 7:2
EOF
# shellcheck disable=SC2086
kc 0 folding --tc "$TMP/fold.tc" scenarios/captures/*.pcap $shared
grep -E '^(7:|total|tcsim verdicts)' "$TMP/folding.out" | sed 's/^/     /'

# 4. a known difference must be caught: a frame of 400 bytes captured with
# snaplen 60 is 60 bytes in the kernel, 400 in tcsim, so `len > 300` differs
{
	# pcap header: LE magic, 2.4, snaplen 60, EN10MB
	printf '\324\303\262\241\002\000\004\000\000\000\000\000\000\000\000\000\074\000\000\000\001\000\000\000'
	for i in 1 2 3; do
		# record: ts, caplen 60, len 400
		printf '\001\000\000\000\000\000\000\000\074\000\000\000\220\001\000\000'
		# Ethernet: broadcast destination, local source, IPv4; then an IPv4 header and zeros
		printf '\377\377\377\377\377\377\002\000\000\000\000\001\010\000'
		printf '\105\000\001\202\000\000\000\000\100\021\000\000\012\000\000\001\012\000\000\002'
		printf '\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000'
	done
} >"$TMP/trunc60.pcap"
cat >"$TMP/len.tc" <<'EOF'
qdisc add dev eth0 root handle 1: prio
filter add dev eth0 parent 1: pref 10 bpf bytecode '4,128 0 0 0,37 0 1 300,6 0 0 4294967295,6 0 0 0' flowid 1:1
filter add dev eth0 parent 1: pref 20 bpf bytecode '4,128 0 0 0,37 0 1 100,6 0 0 4294967295,6 0 0 0' flowid 1:2
EOF
kc 1 truncated_len --tc "$TMP/len.tc" "$TMP/trunc60.pcap"
if grep -q '^1:1 .*DIFF' "$TMP/truncated_len.out" && grep -q 'snaplen-truncated' "$TMP/truncated_len.out"; then
	pass "truncated_len: the DIFF line and the note"
else
	fail "truncated_len: no DIFF line for 1:1"
	sed 's/^/     /' "$TMP/truncated_len.out"
fi
if [ -r "$PCAPS/backbone_ip_in_mpls_snap256.pcap" ]; then
	kc 1 truncated_backbone --tc "$TMP/len.tc" --limit 3000 "$PCAPS/backbone_ip_in_mpls_snap256.pcap"
	grep -E '^(1:|total)' "$TMP/truncated_backbone.out" | sed 's/^/     /'
fi

# 5. usage and errors
kc 2 usage_no_capture --tc "$TMP/ssh_http.tc"
kc 2 usage_bad_option --tc "$TMP/ssh_http.tc" --frobnicate scenarios/captures/ssh_hydra.pcap
printf 'qdisc add dev eth0 root handle 1: pfifo\n' >"$TMP/pfifo.tc"
kc 0 pfifo_root --tc "$TMP/pfifo.tc" scenarios/captures/ssh_hydra.pcap
if grep -q "^kernel: the scenario's own tree (pfifo)" "$TMP/pfifo_root.out"; then
	pass "pfifo_root: any root the kernel has is built as it is"
else
	fail "pfifo_root: $(cat "$TMP/pfifo_root.out")"
fi

# 5a. the kinds main gained: pfifo_head_drop and noqueue (built into 6.18)
# are built and compared; codel, fq_codel, matchall and fw are compared
# where the kernel has them, and where it lacks one kernel-check says so
# in one line naming it and exits 2, as for sch_prio
printf 'qdisc add dev eth0 root handle 1: pfifo_head_drop limit 50\n' >"$TMP/headdrop.tc"
kc 0 headdrop_root --tc "$TMP/headdrop.tc" scenarios/captures/ssh_hydra.pcap
if grep -q "^kernel: the scenario's own tree (pfifo_head_drop)" "$TMP/headdrop_root.out"; then
	pass "headdrop_root: built as it is"
else
	fail "headdrop_root: $(cat "$TMP/headdrop_root.out")"
fi
cat >"$TMP/htbhd.tc" <<'TC'
qdisc add dev eth0 root handle 1: htb default 2
class add dev eth0 parent 1: classid 1:1 htb rate 1mbit
class add dev eth0 parent 1: classid 1:2 htb rate 1mbit
qdisc add dev eth0 parent 1:2 handle 10: pfifo_head_drop limit 3
TC
kc 0 headdrop_leaf --tc "$TMP/htbhd.tc" scenarios/captures/ssh_hydra.pcap
if grep -q '^limits: .*10: pfifo_head_drop limit 3p -> 1000000p' "$TMP/headdrop_leaf.out" &&
	grep -Eq '^qdisc pfifo_head_drop 10: +189 +189 .* ok$' "$TMP/headdrop_leaf.out"; then
	pass "headdrop_leaf: its limit raised on both sides, the counts equal"
else
	fail "headdrop_leaf: $(grep -E '^(limits|qdisc pfifo_head_drop)' "$TMP/headdrop_leaf.out")"
fi
printf 'qdisc add dev eth0 root handle 1: noqueue\n' >"$TMP/noqueue.tc"
kc 0 noqueue_root --tc "$TMP/noqueue.tc" scenarios/captures/ssh_hydra.pcap scenarios/captures/icmp_5_pings.pcap
if grep -Eq '^total +199 +199 +34239 +34239 .* ok' "$TMP/noqueue_root.out" &&
	grep -q "^note: a noqueue root keeps no counters in the kernel" "$TMP/noqueue_root.out"; then
	pass "noqueue_root: the veth's tx counters against tcsim's, said so"
else
	fail "noqueue_root: $(cat "$TMP/noqueue_root.out")"
fi

# kc_kind NAME KIND TCFILE [ARGS]: the kernel has KIND (compared, same) or
# lacks it (one line naming it, exit 2)
kc_kind() {
	name=$1 kind=$2 tcf=$3
	shift 3
	"$TCSIM" kernel-check "$@" --tc "$tcf" scenarios/captures/ssh_hydra.pcap >"$TMP/$name.out" 2>"$TMP/$name.err"
	rc=$?
	if [ "$rc" = 0 ] && grep -q '^kernel-check: same' "$TMP/$name.out"; then
		pass "$name: this kernel has $kind: built and compared"
	elif [ "$rc" = 2 ] && [ "$(wc -l <"$TMP/$name.err")" = 1 ] &&
		grep -Eq "^tcsim kernel-check: cannot run here: the kernel lacks (.*, )?$kind[ ,]" "$TMP/$name.err"; then
		pass "$name: exit 2, $(cat "$TMP/$name.err")"
	else
		fail "$name: exit $rc: $(cat "$TMP/$name.err" "$TMP/$name.out" | head -5)"
	fi
	check_clean "$name"
}
printf 'qdisc add dev eth0 root handle 1: codel limit 500 target 2ms ce_threshold 1ms ecn\n' >"$TMP/codel.tc"
kc_kind codel_root sch_codel "$TMP/codel.tc"
printf 'qdisc add dev eth0 root handle 1: fq_codel flows 64 quantum 300 noecn\n' >"$TMP/fqc.tc"
kc_kind fq_codel_root sch_fq_codel "$TMP/fqc.tc"
printf 'qdisc add dev eth0 root handle 1: prio\nqdisc add dev eth0 parent 1:2 handle 20: fq_codel\n' >"$TMP/priofqc.tc"
kc_kind fq_codel_leaf sch_fq_codel "$TMP/priofqc.tc" --tree
cat >"$TMP/mall.tc" <<'TC'
qdisc add dev eth0 root handle 1: htb default 2
class add dev eth0 parent 1: classid 1:1 htb rate 100mbit quantum 60000
class add dev eth0 parent 1: classid 1:2 htb rate 100mbit quantum 60000
filter add dev eth0 parent 1: pref 1 protocol ip matchall classid 1:1
TC
kc_kind matchall cls_matchall "$TMP/mall.tc"
cat >"$TMP/fw.tc" <<'TC'
qdisc add dev eth0 root handle 1: htb default 2
class add dev eth0 parent 1: classid 1:1 htb rate 100mbit quantum 60000
class add dev eth0 parent 1: classid 1:2 htb rate 100mbit quantum 60000
filter add dev eth0 parent 1: pref 1 protocol ip handle 5/0xff fw classid 1:1
filter add dev eth0 parent 1: pref 2 protocol ip fw
TC
kc_kind fw cls_fw "$TMP/fw.tc"

# 5b. shaping trees (issue 13): htb (three levels, filters on the root and
# on an inner class, the direct queue, mpu/overhead/atm, an explicit
# quantum) and tbf (peakrate; a burst smaller than some frames, so the
# kernel and tcsim drop the same ones) built with tcsim's parameters. -v
# prints what `tc -d` reads back from the kernel and tcsim's own `tc -d`:
# the same lines (sorted: the kernel lists classes in its hash order, which
# follows the order they were created in), refcnt and the live counter
# direct_packets_stat aside.
cp scenarios/filters/ssh.bpf scenarios/filters/icmp.bpf scenarios/filters/http.bpf \
	scenarios/filters/misc.ops "$TMP/"
cat >"$TMP/htb.tc" <<'TC'
tc qdisc add dev eth0 root handle 1: htb default 30 r2q 5
tc class add dev eth0 parent 1: classid 1:1 htb rate 20mbit ceil 20mbit burst 15k
tc class add dev eth0 parent 1:1 classid 1:2 htb rate 10mbit ceil 20mbit
tc class add dev eth0 parent 1:2 classid 1:10 htb rate 5mbit ceil 20mbit prio 1 quantum 3000 mpu 64 overhead 24
tc class add dev eth0 parent 1:2 classid 1:20 htb rate 5mbit ceil 10mbit prio 0 linklayer atm
tc class add dev eth0 parent 1:1 classid 1:30 htb rate 1mbit ceil 20mbit cburst 4k
tc qdisc add dev eth0 parent 1:30 handle 30: pfifo limit 5
tc filter add dev eth0 parent 1: pref 1 bpf bytecode-file ssh.bpf flowid 1:2
tc filter add dev eth0 parent 1:2 pref 1 bpf bytecode-file icmp.bpf flowid 1:20
tc filter add dev eth0 parent 1:2 pref 2 bpf asm-file misc.ops flowid 1:10
tc filter add dev eth0 parent 1: pref 2 bpf bytecode-file http.bpf flowid 1:
TC
printf 'tc qdisc add dev eth0 root handle 1: tbf rate 20mbit burst 1200 limit 10kb peakrate 40mbit mtu 1600\n' >"$TMP/tbf.tc"
caps="scenarios/captures/ssh_interactive.pcap scenarios/captures/http_wikipedia.pcap scenarios/captures/icmp_5_pings.pcap"
for t in htb tbf; do
	# shellcheck disable=SC2086
	kc 0 "shape_$t" -v --tc "$TMP/$t.tc" $caps
	sed -n '/^kernel: tc -d/,/^tcsim: the same:/p' "$TMP/shape_$t.out" | sed '1d;$d' >"$TMP/$t.k"
	sed -n '/^tcsim: the same:/,/^kernel classes:/p' "$TMP/shape_$t.out" | sed '1d;$d' >"$TMP/$t.t"
	for f in k t; do
		sed -e 's/ refcnt [0-9]*//' -e 's/ direct_packets_stat [0-9]*//' "$TMP/$t.$f" | sort >"$TMP/$t.$f.s"
	done
	if [ -s "$TMP/$t.k.s" ] && cmp -s "$TMP/$t.k.s" "$TMP/$t.t.s"; then
		pass "shape_$t: the kernel's tc -d shows tcsim's parameters ($(wc -l <"$TMP/$t.k.s") lines)"
	else
		fail "shape_$t: tc -d differs: $(diff "$TMP/$t.k.s" "$TMP/$t.t.s" | head -6)"
	fi
done
if grep -Eq '^class htb 1:2 +578 +578 .* ok$' "$TMP/shape_htb.out" &&
	grep -Eq '^htb direct_packets_stat +78 +78 .* ok$' "$TMP/shape_htb.out" &&
	grep -q '^limits: .*30: pfifo limit 5p -> 1000000p' "$TMP/shape_htb.out"; then
	pass "shape_htb: an inner class counts its leaves, the direct queue, the raised limit said"
else
	fail "shape_htb: $(grep -E '^(class htb 1:2|htb direct|limits)' "$TMP/shape_htb.out")"
fi
if grep -Eq '^qdisc tbf 1: +730 +730 .* 2 +2  ok$' "$TMP/shape_tbf.out"; then
	pass "shape_tbf: the two frames over the burst dropped by both"
else
	fail "shape_tbf: $(grep '^qdisc tbf' "$TMP/shape_tbf.out")"
fi

# 5c. skb->priority (issue 13): --priority as in tcsim run, the kernel's
# packet socket given each frame's value with SO_PRIORITY. An htb root
# classifies by it before its filters: a leaf's classid (0x10010 = 1:10)
# takes every frame there, the root's own handle the direct queue, an
# inner class or a priority of another major (forward's 0..7: TOS 0x10 of
# ssh_interactive is 6) falls through to the default class.
cat >"$TMP/htbprio.tc" <<'TC'
tc qdisc add dev eth0 root handle 1: htb default 30
tc class add dev eth0 parent 1: classid 1:1 htb rate 20mbit ceil 20mbit quantum 60000
tc class add dev eth0 parent 1:1 classid 1:10 htb rate 5mbit ceil 20mbit
tc class add dev eth0 parent 1:1 classid 1:30 htb rate 5mbit ceil 20mbit
TC
pcaps="scenarios/captures/ssh_interactive.pcap scenarios/captures/icmp_5_pings.pcap"
for case in "0x10010 1:10" "1: direct" "1:1 1:30" "forward 1:30" "7 1:30"; do
	p=${case% *} where=${case#* } name=prio_$(echo "${case% *}" | tr ':' '_')
	# shellcheck disable=SC2086
	kc 0 "$name" --priority "$p" --tc "$TMP/htbprio.tc" $pcaps
	if [ "$where" = direct ]; then
		row='^htb direct_packets_stat +596 +596 .* ok$'
	else
		row="^class htb $where +596 +596 +62642 +62642 .* ok\$"
	fi
	if grep -Eq "$row" "$TMP/$name.out"; then
		pass "$name: every frame in $where, the kernel as tcsim"
	else
		fail "$name: $(grep -E '^(class|htb direct)' "$TMP/$name.out" | tr '\n' ' ')"
	fi
done
# a prio root: a priority naming one of its classes refused with --htb (prio
# and the htb stand-in take such a one differently) and the default builds
# prio's own tree or says it is missing; one that names none (forward's
# 0..6, 3) changes no classification, so the stand-in checks it
printf 'qdisc add dev eth0 root handle 1: prio\n' >"$TMP/prio.tc"
kc 2 prio_htb_refused --htb --priority 1:2 --tc "$TMP/prio.tc" scenarios/captures/icmp_5_pings.pcap
if grep -q -- '--priority 1:2 names a class of the root, which prio and the htb stand-in take differently; use --tree' "$TMP/prio_htb_refused.out"; then
	pass "prio_htb_refused: the reason"
else
	fail "prio_htb_refused: $(cat "$TMP/prio_htb_refused.out")"
fi
kc 0 prio_htb_three --htb --priority 3 --tc "$TMP/prio.tc" scenarios/captures/icmp_5_pings.pcap
# shellcheck disable=SC2086
"$TCSIM" kernel-check --priority forward --tc "$TMP/prio.tc" $pcaps >"$TMP/prio_fwd.out" 2>&1
rc=$?
if [ "$rc" = 0 ] && grep -q '^kernel-check: same' "$TMP/prio_fwd.out"; then
	pass "prio_root_forward: forwarded priorities name no class; the stand-in agrees"
else
	fail "prio_root_forward: exit $rc: $(cat "$TMP/prio_fwd.out")"
fi
check_clean prio_root_forward
kc 2 prio_bad_value --priority 1:2:3 --tc "$TMP/htbprio.tc" scenarios/captures/icmp_5_pings.pcap

# 6. not root: a clear message, exit 2
if command -v setpriv >/dev/null 2>&1 && id nobody >/dev/null 2>&1; then
	cp "$TCSIM" "$TMP/tcsim" && chmod 755 "$TMP/tcsim"
	chmod 644 "$TMP/ssh_http.tc"
	setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups "$TMP/tcsim" kernel-check \
		--tc "$TMP/ssh_http.tc" "$ROOT/scenarios/captures/ssh_hydra.pcap" >"$TMP/nonroot.out" 2>&1
	rc=$?
	if [ "$rc" = 2 ] && grep -q 'cannot run here: not root' "$TMP/nonroot.out"; then
		pass "not_root: exit 2, $(cat "$TMP/nonroot.out")"
	else
		fail "not_root: exit $rc: $(cat "$TMP/nonroot.out")"
	fi
	check_clean not_root
else
	echo "note: no setpriv or no user nobody: the not-root case is left out"
fi

# 7. SIGINT while the kernel side runs: ~770k frames (one capture's records
# repeated), the signal sent once the namespace's process exists
big=$TMP/big.pcap
tail -c +25 scenarios/captures/ssh_hydra.pcap >"$TMP/rec.0"
i=0
while [ $i -lt 12 ]; do # 2^12 copies of the records
	cat "$TMP/rec.$i" "$TMP/rec.$i" >"$TMP/rec.$((i + 1))"
	rm -f "$TMP/rec.$i"
	i=$((i + 1))
done
{ head -c 24 scenarios/captures/ssh_hydra.pcap; cat "$TMP/rec.$i"; } >"$big"
rm -f "$TMP/rec.$i"
# a background job of a non-interactive shell ignores SIGINT: give it back
if env --default-signal=INT true 2>/dev/null; then
	env --default-signal=INT "$TCSIM" kernel-check --tc "$TMP/ssh_http.tc" "$big" >"$TMP/sigint.out" 2>&1 &
	pid=$!
	n=0
	while [ $n -lt 600 ] && [ -z "$(ps -o pid= --ppid $pid 2>/dev/null)" ] && kill -0 $pid 2>/dev/null; do
		sleep 0.05
		n=$((n + 1))
	done
	child=$(ps -o pid= --ppid $pid 2>/dev/null | tr -d ' ')
	if [ -n "$child" ]; then
		nsline=$(lsns -t net -n -o NS,PID 2>/dev/null | awk -v p="$child" '$2 == p')
		sleep 0.3
		kill -INT $pid
		wait $pid
		rc=$?
		if [ "$rc" = 130 ] && ! kill -0 "$child" 2>/dev/null; then
			pass "sigint: exit 130, the namespace's process ($child${nsline:+, netns ${nsline%% *}}) is gone"
		else
			fail "sigint: exit $rc (expected 130): $(cat "$TMP/sigint.out")"
		fi
	else
		wait $pid
		fail "sigint: the run had no namespace process to interrupt (exit $?): $(cat "$TMP/sigint.out")"
	fi
	check_clean sigint
else
	echo "note: env --default-signal missing: the SIGINT case is left out"
fi

# u32: tcsim's tables, links, variable offsets and shared ids installed
# in the kernel from tcsim's model of them (two tcf_protos sharing an id
# counter, an automatic table at the second pref); the classes agree.
cat >"$TMP/u32.tc" <<'EOF'
qdisc add dev eth0 root handle 1: prio bands 4
filter add dev eth0 parent 1: pref 1 protocol ip u32 match ip dst 10.0.0.1/32 flowid 1:1
filter add dev eth0 parent 1: pref 1 protocol ip handle 2: u32 divisor 256
filter add dev eth0 parent 1: pref 1 protocol ip u32 ht 2: match tcp dst 22 0xffff classid 1:2
filter add dev eth0 parent 1: pref 1 protocol ip u32 ht 2: match tcp src 22 0xffff classid 1:2
filter add dev eth0 parent 1: pref 1 protocol ip u32 ht 800:: match ip protocol 6 0xff offset at 0 mask 0x0f00 shift 6 eat link 2:
filter add dev eth0 parent 1: pref 2 protocol ip u32 divisor 16
filter add dev eth0 parent 1: pref 2 protocol ip u32 ht 801:: match ip protocol 1 0xff classid 1:3
filter add dev eth0 parent 1: pref 3 protocol all u32 match u32 0 0 at 0 classid 1:4
EOF
if "$TCSIM" kernel-check --tc "$TMP/u32.tc" scenarios/captures/ssh_hydra.pcap >/dev/null 2>&1 ||
	[ $? != 2 ]; then
	kc 0 u32 --tc "$TMP/u32.tc" scenarios/captures/*.pcap
	if grep -q '^1:2 .* 766 .* ok' "$TMP/u32.out" && grep -q '^1:4 .* 145 .* ok' "$TMP/u32.out"; then
		pass "u32: ssh to 1:2 through the linked table, the rest by pref"
	else
		fail "u32: unexpected table: $(cat "$TMP/u32.out")"
	fi
else
	echo "note: $("$TCSIM" kernel-check --tc "$TMP/u32.tc" scenarios/captures/ssh_hydra.pcap 2>&1 | head -1)"
fi

# --mark: skb->mark on both sides (tcsim's rules; the kernel's packet
# socket gets each frame's mark with SO_MARK). bpf filters reading `ld
# #mark` (cls_bpf is in this kernel) put the 14 SYNs of port 22 (mark 0x16)
# in 1:1 and the other 174 port-22 frames (0x35) in 1:2: the kernel's
# column shows it received the marks. Without --mark all 189 are
# unclassified on both sides; a bad rule is refused in one line (exit 2).
cat >"$TMP/mark.tc" <<'TC'
qdisc add dev eth0 root handle 1: prio bands 3
filter add dev eth0 parent 1: pref 1 protocol all bpf bytecode '4,32 0 0 4294963220,21 0 1 22,6 0 0 4294967295,6 0 0 0' flowid 1:1
filter add dev eth0 parent 1: pref 2 protocol all bpf bytecode '4,32 0 0 4294963220,21 0 1 53,6 0 0 4294967295,6 0 0 0' flowid 1:2
TC
kc 0 mark --tc "$TMP/mark.tc" --mark 'tcp port 22 and tcp[tcpflags] & tcp-syn != 0=0x16' \
	--mark 'tcp port 22=0x35' scenarios/captures/ssh_hydra.pcap
if grep -Eq '^1:1 +14 +14 +1036 +1036 +ok' "$TMP/mark.out" &&
	grep -Eq '^1:2 +174 +174 +32116 +32116 +ok' "$TMP/mark.out" &&
	grep -Eq '^1:99 \(default\) +1 +1 ' "$TMP/mark.out"; then
	pass "mark: the kernel classified 14 + 174 frames by their SO_MARK, as tcsim"
else
	fail "mark: rows: $(grep -E '^1:' "$TMP/mark.out" | tr '\n' ' ')"
fi
kc 0 mark_none --tc "$TMP/mark.tc" scenarios/captures/ssh_hydra.pcap
if grep -Eq '^1:99 \(default\) +189 +189 ' "$TMP/mark_none.out"; then
	pass "mark_none: no --mark, every frame mark 0 on both sides"
else
	fail "mark_none: $(grep '^1:99' "$TMP/mark_none.out")"
fi
"$TCSIM" kernel-check --tc "$TMP/mark.tc" --mark 'tcp port=5' scenarios/captures/ssh_hydra.pcap \
	>"$TMP/mark_bad.out" 2>&1
rc=$?
if [ "$rc" = 2 ] && [ "$(wc -l <"$TMP/mark_bad.out")" = 1 ] &&
	grep -q "^tcsim kernel-check: --mark 'tcp port=5': " "$TMP/mark_bad.out"; then
	pass "mark_bad: refused in one line"
else
	fail "mark_bad: exit $rc: $(cat "$TMP/mark_bad.out")"
fi

# flower and basic: installed as tc sends them (tests/kernel/kc_msg_tc.sh
# compares the messages with tc's); a kernel without the classifier is
# named in one line (exit 2), one with it must agree (exit 0)
printf '%s\n' 'qdisc add dev eth0 root handle 1: prio' \
	'filter add dev eth0 parent 1: pref 1 protocol ip flower ip_proto tcp dst_port 22 classid 1:1' \
	'filter add dev eth0 parent 1: pref 1 protocol ip flower ip_proto tcp src_port 22 classid 1:2' \
	'filter add dev eth0 parent 1: pref 2 protocol all flower classid 1:3' \
	>"$TMP/flower.tc"
printf '%s\n' 'qdisc add dev eth0 root handle 1: prio' \
	'filter add dev eth0 parent 1: pref 1 protocol ip basic match cmp(u16 at 2 layer transport eq 22) classid 1:1' \
	'filter add dev eth0 parent 1: pref 2 protocol ip basic match u32(u8 0x06 0xff at 9) and not cmp(u16 at 0 layer 2 eq 22) classid 1:2' \
	'filter add dev eth0 parent 1: pref 3 protocol all basic match meta(priority eq 0) classid 1:3' \
	>"$TMP/basic.tc"
for kind in flower basic; do
	"$TCSIM" kernel-check --tc "$TMP/$kind.tc" scenarios/captures/ssh_hydra.pcap >"$TMP/$kind.out" 2>&1
	rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l <"$TMP/$kind.out")" = 1 ] &&
		grep -q "^tcsim kernel-check: cannot run here: the kernel lacks cls_$kind " "$TMP/$kind.out"; then
		pass "$kind: the kernel lacks cls_$kind, said in one line"
	elif [ "$rc" = 0 ] && grep -q '^kernel-check: same' "$TMP/$kind.out"; then
		pass "$kind: this kernel has cls_$kind; installed and the same"
	else
		fail "$kind: exit $rc: $(cat "$TMP/$kind.out")"
	fi
	check_clean "$kind"
done

echo "kcheck_e2e: $checks checks, $fails failed"
[ "$fails" -eq 0 ]
