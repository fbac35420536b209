#!/bin/sh
# kernel_tbf_diff.sh - tcsim's tbf against the running kernel's, in a
# private, throw-away network namespace (IPv6 off before the links exist,
# ARP and multicast off, no addresses: the kernel sends nothing of its own).
#  1. `tc qdisc show` and `tc -d qdisc show` of every line of
#     tests/data/tbf/show_cases.txt: the kernel's (through this machine's tc)
#     and tcsim's must be equal but for refcnt (a veth has more queues);
#  2. every line of tests/data/tbf/error_cases.txt: tc's refusal (its lines
#     joined) equals tcsim's one line (without tcsim's reason in brackets
#     after a bare "RTNETLINK answers: ...");
#  3. policies with a generous limit (tbf alone, with a peakrate, over ATM
#     with a pfifo child, tbf under tbf): tests/tools/pcapsend sends each
#     capture's frames once out of one end of a veth (tcpreplay would
#     retry a frame the qdisc drops for ever); once the queues have drained, every qdisc's
#     Sent bytes, packets and drops must equal tcsim's for the same
#     packets. The limit keeps the kernel's timing out of the counts: what
#     is dropped is what no bucket could ever send (longer than max_size).
#     Overlimits depend on when the kernel asks and are not compared.
# Exit 0: no mismatch; 1: mismatches or errors; 77: cannot run here (SKIP).
# Environment: TCSIM (default ./tcsim), PCAPS (default ../shared/pcaps next
# to the repository), KTBF_LIMIT (packets per capture, default 2000),
# KTBF_CAPTURES (file names), PCAPSEND (default $BUILD/tools/pcapsend).

TCSIM=${TCSIM:-./tcsim}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
DATA=$ROOT/tests/data/tbf
PCAPS=${PCAPS:-$ROOT/../shared/pcaps}
KTBF_LIMIT=${KTBF_LIMIT:-2000}
PCAPSEND=${PCAPSEND:-${BUILD:-$ROOT/build}/tools/pcapsend}
KTBF_CAPTURES=${KTBF_CAPTURES:-"lan_mixed_ssh_dns_dhcp.pcap http_wikipedia_mixed.pcap
	ssh_sessions_multi.pcap http_espn_browse.pcapng dns_heavy_cc_capture.pcap
	lan_windows_mixed_ipv6.pcap http_bro_org_browse.pcap"}

NS=tcsim-ktbf-$$
DEV=ktbf0
PEER=ktbf1
TMP=
fails=0
checks=0

. "$HERE/lib.sh"

mismatch() {
	fails=$((fails + 1))
	echo "FAIL: $*"
}

kt_root
kt_tools tc ip awk sed
kt_tcsim
CAP0=$ROOT/scenarios/captures/ssh_hydra.pcap

kt_modprobe sch_tbf veth

kt_tmp
START=$(date +%s)

kt_setup "$NS" "$DEV" "$PEER" "mtu 65535 txqueuelen 100000"
nsx tc qdisc add dev "$DEV" root handle 1: tbf rate 1mbit burst 10k limit 10k 2>/dev/null ||
	skip "kernel lacks sch_tbf"
nsx tc qdisc del dev "$DEV" root 2>/dev/null

# tcsim's own stdout of a tc script: what its show lines printed, before
# the run's report.
tcsim_shows() {
	"$TCSIM" run --tc "$1" --limit 1 "$CAP0" 2>"$TMP/terr" | sed '/^tcsim: /,$d'
}

# ---- 1. tc qdisc show ----

grep -v '^#' "$DATA/show_cases.txt" | grep -v '^$' >"$TMP/cases"
: >"$TMP/k.show"
: >"$TMP/t.tc"
while IFS= read -r words; do
	# shellcheck disable=SC2086
	nsx tc qdisc replace dev "$DEV" root handle 1: tbf $words 2>>"$TMP/k.show" || echo "kernel refused: $words" >>"$TMP/k.show"
	{
		echo "## $words"
		nsx tc qdisc show dev "$DEV"
		nsx tc -d qdisc show dev "$DEV"
	} >>"$TMP/k.show"
	{
		echo "tc qdisc replace dev $DEV root handle 1: tbf $words"
		echo "tc qdisc show dev $DEV"
		echo "tc -d qdisc show dev $DEV"
	} >>"$TMP/t.tc"
done <"$TMP/cases"
# the kernel's blocks, refcnt dropped
sed 's/ refcnt [0-9]* / /' "$TMP/k.show" >"$TMP/k.norm"
tcsim_shows "$TMP/t.tc" | sed 's/ refcnt [0-9]* / /' >"$TMP/t.out"
[ -s "$TMP/terr" ] && mismatch "tcsim on the show cases: $(cat "$TMP/terr")"
# tcsim prints no "## words" lines: put them back from the case list
awk 'NR == FNR { w[++n] = $0; next } { if (FNR % 2 == 1) print "## " w[(FNR + 1) / 2]; print }' \
	"$TMP/cases" "$TMP/t.out" >"$TMP/t.norm"
ncases=$(wc -l <"$TMP/cases")
checks=$((checks + ncases))
if ! cmp -s "$TMP/k.norm" "$TMP/t.norm"; then
	mismatch "tc qdisc show differs (kernel <, tcsim >):"
	diff "$TMP/k.norm" "$TMP/t.norm" | head -40
else
	echo "ok       show      $ncases tbf configurations: tc qdisc show and tc -d qdisc show equal"
fi
nsx tc qdisc del dev "$DEV" root 2>/dev/null

# ---- 2. refusals ----

nerr=0
grep -v '^#' "$DATA/error_cases.txt" | grep -v '^$' >"$TMP/ecases"
while IFS= read -r words; do
	nerr=$((nerr + 1))
	# shellcheck disable=SC2086
	if nsx tc qdisc add dev "$DEV" root handle 1: tbf $words >/dev/null 2>"$TMP/kerr"; then
		nsx tc qdisc del dev "$DEV" root 2>/dev/null
		mismatch "the kernel took tbf $words"
		continue
	fi
	kmsg=$(sed 's/^[[:space:]]*//' "$TMP/kerr" | tr '\n' ' ' | sed 's/ *$//')
	echo "tc qdisc add dev $DEV root handle 1: tbf $words" >"$TMP/e.tc"
	if "$TCSIM" run --tc "$TMP/e.tc" --limit 1 "$CAP0" >/dev/null 2>"$TMP/terr"; then
		mismatch "tcsim took tbf $words"
		continue
	fi
	tmsg=$(sed 's/^tcsim: [^ ]*e\.tc:1: //' "$TMP/terr" | sed 's/^\(RTNETLINK answers: [^(]*\) (.*)$/\1/')
	if [ "$kmsg" != "$tmsg" ]; then
		mismatch "tbf $words: kernel '$kmsg', tcsim '$tmsg'"
	fi
done <"$TMP/ecases"
checks=$((checks + nerr))
echo "ok       errors    $nerr refusals compared (each equal unless FAIL above)"

# ---- 3. counts ----

# policy NAME: its tc lines for DEVICE $1 (both sides take the same)
policy_lines() {
	case $1 in
	plain) echo "qdisc add dev $2 root handle 1: tbf rate 200mbit burst 10kb limit 64mb" ;;
	peak) echo "qdisc add dev $2 root handle 1: tbf rate 200mbit burst 64kb limit 64mb peakrate 400mbit mtu 1514" ;;
	atm)
		echo "qdisc add dev $2 root handle 1: tbf rate 200mbit burst 20kb limit 64mb mpu 64 overhead 24 linklayer atm"
		echo "qdisc add dev $2 parent 1:1 handle 10: pfifo limit 100000" ;;
	nested)
		echo "qdisc add dev $2 root handle 1: tbf rate 400mbit burst 10kb limit 64mb"
		echo "qdisc add dev $2 parent 1:1 handle 10: tbf rate 200mbit burst 4kb limit 64mb" ;;
	esac
}
POLICIES="plain peak atm nested"

# qdisc_counts FILE: "HANDLE bytes pkts drops" per qdisc of `tc -s qdisc show`
qdisc_counts() {
	awk '/^qdisc / { h = $2 " " $3; next }
	     /^ Sent / && h != "" { d = $7; sub(",", "", d); print h, $2, $4, d; h = "" }' "$1"
}

# kernel_drain: waits for every qdisc's backlog to be 0p (or gives up)
kernel_drain() {
	tries=0
	while :; do
		nsx tc -s qdisc show dev "$DEV" >"$TMP/kq"
		awk '/backlog/ && $3 != "0p" { busy = 1 } END { exit busy }' "$TMP/kq" && return 0
		tries=$((tries + 1))
		[ "$tries" -gt 100 ] && return 1
		sleep 0.1
	done
}

[ -x "$PCAPSEND" ] || {
	echo "note: no $PCAPSEND (make check builds it): the counts are not compared"
	KTBF_CAPTURES=
}
[ -d "$PCAPS" ] || [ -z "$KTBF_CAPTURES" ] || {
	echo "note: no captures at $PCAPS (set PCAPS): only the shipped capture is replayed"
	PCAPS=$ROOT/scenarios/captures
	KTBF_CAPTURES=ssh_hydra.pcap
}
for cap in $KTBF_CAPTURES; do
	[ -r "$PCAPS/$cap" ] || { echo "note: $cap not found: left out"; continue; }
	for pol in $POLICIES; do
		nsx tc qdisc del dev "$DEV" root 2>/dev/null
		policy_lines "$pol" "$DEV" >"$TMP/k.batch"
		nsx tc -batch "$TMP/k.batch" >/dev/null 2>"$TMP/kerr" || {
			mismatch "$pol: kernel setup: $(tr '\n' ' ' <"$TMP/kerr")"
			continue
		}
		nsx "$PCAPSEND" "$DEV" "$PCAPS/$cap" "$KTBF_LIMIT" >"$TMP/replay" 2>&1
		# shellcheck disable=SC2046
		set -- $(sed -n 's/^sent \([0-9]*\) bytes \([0-9]*\) dropped \([0-9]*\) dropped_bytes \([0-9]*\) failed \([0-9]*\)$/\1 \2 \3 \4 \5/p' "$TMP/replay")
		if [ $# -ne 5 ]; then
			mismatch "$cap $pol: pcapsend: $(head -2 "$TMP/replay" | tr '\n' ' ')"
			continue
		fi
		ktook=$(($1 + $3 + $5)) kbytes=$(($2 + $4))
		kernel_drain || mismatch "$cap $pol: the kernel's queues did not drain"
		qdisc_counts "$TMP/kq" | grep -v '^bfifo 0:' | sort >"$TMP/kc"

		# tcsim: the frames pcapsend read, as a packet socket sends them
		# (tags in the frame, priority 0), on a fast wire
		policy_lines "$pol" "$DEV" | sed 's/^/tc /' >"$TMP/p.tc"
		"$TCSIM" run --tc "$TMP/p.tc" --vlan inline --priority 0 --rate 100gbit \
			--limit $ktook --json "$TMP/t.json" "$PCAPS/$cap" >"$TMP/t.txt" 2>"$TMP/terr" || {
			mismatch "$cap $pol: tcsim: $(cat "$TMP/terr")"
			continue
		}
		# a capture cut by its snaplen: pcapsend sends the cut frames
		tbytes=$(sed -n 's/.*"totals": {[^}]*"sent_bytes": \([0-9]*\), "dropped_bytes": \([0-9]*\).*/\1 \2/p' "$TMP/t.json" |
			awk '{ print $1 + $2 }')
		if [ "$tbytes" != "$kbytes" ]; then
			echo "note     $cap: pcapsend sent $kbytes bytes, tcsim's frames are $tbytes (snaplen): left out"
			break
		fi
		sed -n '/^qdisc /,/^$/p' "$TMP/t.txt" >"$TMP/tq"
		qdisc_counts "$TMP/tq" | sort >"$TMP/tc"
		checks=$((checks + 1))
		if cmp -s "$TMP/kc" "$TMP/tc"; then
			printf 'ok       %-7s %-32s %s\n' "$pol" "$cap" "$(tr '\n' ';' <"$TMP/kc")"
		else
			mismatch "$cap $pol: kernel [$(tr '\n' ';' <"$TMP/kc")] tcsim [$(tr '\n' ';' <"$TMP/tc")]"
		fi
	done
done
nsx tc qdisc del dev "$DEV" root 2>/dev/null

echo "kernel_tbf_diff: $checks comparisons, $fails mismatches, $(($(date +%s) - START)) s"
[ "$fails" -eq 0 ]
