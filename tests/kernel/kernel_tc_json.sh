#!/bin/sh
# kernel_tc_json.sh - tcsim's `tc -s -j` against the running kernel's
# iproute2 (6.1 on Debian 12): the same tc lines applied to a veth end in a
# private, throw-away network namespace and to tcsim, and what `tc -j`,
# `tc -s -j`, `tc -s -d -j` and `tc -j -p` print for qdiscs and filters
# compared: parsed by jq into sorted trees, which must be equal, and as
# bytes, which must be equal too (iproute2's member order and layout).
#
# Every policy both model: pfifo, bfifo, pfifo_fast, tbf, htb (qdisc
# options; iproute2 6.1 prints classes as text even with -j, and
# kernel_htb_show.sh compares that text), bpf and u32 filters (the
# configurations of tests/data/tcjson/kernel_*.tc), with no traffic: the
# namespace's links have no addresses and IPv6 is off before they exist,
# so the counters stay at zero on both sides. tcsim runs the file with one
# packet after it (tcsim run --limit 1); its text before the run's report
# is compared.
#
# Then traffic: ssh_hydra replayed by tcpreplay at ten times its pace into
# tests/data/tcjson/traffic.tc (htb, bpf and u32 filters, fifo leaves that
# drop nothing) and through tcsim (a wire as fast as a veth, priority 0,
# VLAN tags kept as tcpreplay keeps them, --tc-json): `tc -s -j qdisc show`
# and `tc -s -j filter show` against the file's "qdisc" and "filter"
# arrays, as trees, apart from what depends on the kernel's timing:
# overlimits (htb and tbf count a class or a packet that waits for tokens).
#
# Exit 0: no difference; 1: differences; 77: cannot run here (SKIP).
# Environment: TCSIM (default ./tcsim).

TCSIM=${TCSIM:-./tcsim}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
DATA=$ROOT/tests/data/tcjson
CAP=$ROOT/scenarios/captures/icmp_5_pings.pcap
NS=tcsim-tcjson-$$
TMP=

. "$HERE/lib.sh"

kt_root
kt_tools tc ip sed jq cmp
kt_tcsim
kt_tmp

fresh_ns() { kt_eth0 "$NS"; }

fresh_ns
kt_skip_rc $?
nsx tc qdisc add dev eth0 root handle 1: htb 2>/dev/null || skip "kernel lacks sch_htb"
nsx tc filter add dev eth0 parent 1: bpf bytecode '1,6 0 0 0' 2>/dev/null || skip "kernel lacks cls_bpf"

# The JSON documents the shows printed (one a line, or -p's over several):
# their trees, members sorted, one a line.
trees() { # file -> file.trees
	jq -cS . "$1" >"$1.trees" 2>&1 || echo "not JSON" >>"$1.trees"
}

compared=0 differ=0 docs=0
for f in "$DATA"/kernel_*.tc; do
	name=$(basename "$f" .tc)
	fresh_ns || { echo "FAIL: $name: cannot set up the namespace"; differ=$((differ + 1)); continue; }
	kt_tc_both "$f"
	compared=$((compared + 1))
	trees "$TMP/kernel.out"
	trees "$TMP/tcsim.out"
	n=$(wc -l <"$TMP/kernel.out.trees")
	docs=$((docs + n))
	if [ ! -s "$TMP/kernel.out.trees" ]; then
		echo "FAIL: $name: the kernel printed no JSON"
		differ=$((differ + 1))
	elif ! cmp -s "$TMP/kernel.out.trees" "$TMP/tcsim.out.trees"; then
		echo "FAIL: $name: the JSON trees differ (< kernel, > tcsim)"
		diff "$TMP/kernel.out.trees" "$TMP/tcsim.out.trees" | head -10
		differ=$((differ + 1))
	elif ! cmp -s "$TMP/kernel.out" "$TMP/tcsim.out"; then
		echo "FAIL: $name: equal trees, but the bytes differ (< kernel, > tcsim)"
		diff "$TMP/kernel.out" "$TMP/tcsim.out" | head -10
		differ=$((differ + 1))
	else
		echo "ok       $name: $n JSON documents, $(wc -c <"$TMP/kernel.out") bytes, equal"
	fi
done

# Traffic: counters after a replay, as trees; overlimits depend on timing.
if command -v tcpreplay >/dev/null 2>&1 && [ -r "$ROOT/scenarios/captures/ssh_hydra.pcap" ]; then
	fresh_ns || skip "cannot set up the namespace again"
	# 65535 is veth's max_mtu: every frame of the capture fits
	nsx ip link set eth0 mtu 65535 2>/dev/null && nsx ip link set eth0p mtu 65535 2>/dev/null
	sed -e 's/#.*//' "$DATA/traffic.tc" | while IFS= read -r line; do
		case $line in *[![:space:]]*) nsx sh -c "$line" 2>/dev/null ;; esac
	done
	nsx tcpreplay -q --multiplier 10 -i eth0 "$ROOT/scenarios/captures/ssh_hydra.pcap" \
		>"$TMP/replay" 2>&1
	sleep 2 # the last packets wait for tokens
	norm='walk(if type == "object" then del(.overlimits, .dev) else . end)'
	nsx tc -s -j qdisc show dev eth0 | jq -S "$norm" >"$TMP/kq"
	nsx tc -s -j filter show dev eth0 | jq -S "$norm" >"$TMP/kf"
	"$TCSIM" run --tc "$DATA/traffic.tc" --rate 100gbit --speed 10 --priority 0 --vlan inline \
		--tc-json "$TMP/t.json" "$ROOT/scenarios/captures/ssh_hydra.pcap" >/dev/null 2>&1
	jq -S ".qdisc | $norm" "$TMP/t.json" >"$TMP/tq" 2>&1
	jq -S ".filter | $norm" "$TMP/t.json" >"$TMP/tf" 2>&1
	compared=$((compared + 1))
	sent=$(jq '.[0].packets' "$TMP/kq" 2>/dev/null)
	if [ -s "$TMP/kq" ] && [ "${sent:-0}" -gt 0 ] && cmp -s "$TMP/kq" "$TMP/tq" && cmp -s "$TMP/kf" "$TMP/tf"; then
		echo "ok       traffic: ssh_hydra x10, qdisc and filter trees equal (root sent $sent packets)"
	else
		echo "FAIL: traffic: the trees differ (< kernel, > tcsim)"
		diff "$TMP/kq" "$TMP/tq" | head -20
		diff "$TMP/kf" "$TMP/tf" | head -10
		differ=$((differ + 1))
	fi
else
	echo "note: no tcpreplay or capture: the traffic comparison is left out"
fi

echo "kernel_tc_json: $compared configurations ($docs JSON documents), $differ differ"
[ "$differ" -eq 0 ]
