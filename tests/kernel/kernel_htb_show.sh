#!/bin/sh
# kernel_htb_show.sh - tcsim's htb text against the running kernel's: the
# same tc script applied to a veth end in a private, throw-away network
# namespace and to tcsim, and every line `tc qdisc|class|filter show` prints
# (with -s and -d: htb's r2q, default, direct_packets_stat, direct_qlen,
# rate, ceil, burst, cburst, quantum, level, lended, borrowed, tokens...)
# compared line by line, in order.
#
# The configurations: every tests/data/htb/show_*.tc (class trees, changes,
# deletions, grafts, filters on classes, rates and sizes of every unit, a
# class hash that grows) and the table below, with no traffic: the
# namespace's links have no addresses and IPv6 is off before they exist,
# so the counters stay at zero on both sides. tcsim runs the file with one
# packet after it (tcsim run --limit 1); its text before the run's report
# is compared.
#
# Then traffic: ssh_hydra replayed by tcpreplay at ten times its pace into
# the shaped tree of tests/data/htb/shaped.tc (queues that drop nothing)
# and through tcsim (a wire as fast as a veth, priority 0, VLAN tags kept
# as tcpreplay keeps them): each class's Sent packets and bytes are equal.
#
# Exit 0: no difference; 1: differences; 77: cannot run here (SKIP).
# Environment: TCSIM (default ./tcsim).

TCSIM=${TCSIM:-./tcsim}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
DATA=$ROOT/tests/data/htb
CAP=$ROOT/scenarios/captures/icmp_5_pings.pcap
NS=tcsim-khtb-$$
TMP=

. "$HERE/lib.sh"

kt_root
kt_tools tc ip sed
kt_tcsim
kt_tmp

# A namespace per configuration: nothing of one is left for the next.
fresh_ns() { kt_eth0 "$NS"; }

fresh_ns
kt_skip_rc $?
nsx tc qdisc add dev eth0 root handle 1: htb 2>/dev/null || skip "kernel lacks sch_htb"

# The table: small configurations beside the files.
cat >"$TMP/table_defaults.tc" <<'EOF'
tc qdisc add dev eth0 root handle 1: htb
tc -s -d qdisc show dev eth0
tc class add dev eth0 parent 1: classid 1:1 htb rate 256kbit
tc -s -d class show dev eth0
EOF
cat >"$TMP/table_options.tc" <<'EOF'
tc qdisc add dev eth0 root handle 10: htb default 1 r2q 1 direct_qlen 0
tc class add dev eth0 parent 10: classid 10:1 htb rate 100kbit ceil 200kbit prio 7 quantum 100000
tc class add dev eth0 parent 10: classid 10:2 htb rate 8kbit burst 1b cburst 1b
tc qdisc show dev eth0
tc -d class show dev eth0
tc -s class show dev eth0
EOF
cat >"$TMP/table_tree.tc" <<'EOF'
tc qdisc add dev eth0 root handle 1: htb default 12
tc class add dev eth0 parent 1: classid 1:1 htb rate 100mbit ceil 100mbit
tc class add dev eth0 parent 1:1 classid 1:10 htb rate 30mbit ceil 100mbit
tc class add dev eth0 parent 1:1 classid 1:11 htb rate 10mbit ceil 100mbit
tc class add dev eth0 parent 1:1 classid 1:12 htb rate 60mbit ceil 100mbit
tc qdisc add dev eth0 parent 1:10 handle 20: pfifo limit 10
tc qdisc add dev eth0 parent 1:11 handle 30: bfifo limit 10000
tc filter add dev eth0 parent 1: protocol ip pref 1 bpf bytecode "1,6 0 0 4294967295" flowid 1:1
tc filter add dev eth0 parent 1:1 protocol ip pref 1 bpf bytecode "1,6 0 0 65552" flowid 1:10
tc qdisc show dev eth0
tc qdisc show dev eth0 invisible
tc class show dev eth0
tc class show dev eth0 classid 1:11
tc filter show dev eth0
tc filter show dev eth0 parent 1:1
tc class change dev eth0 classid 1:12 htb rate 1mbit ceil 2mbit burst 10k
tc class del dev eth0 classid 1:11
tc -d class show dev eth0
EOF

compared=0 differ=0
for f in "$DATA"/show_*.tc "$TMP"/table_*.tc; do
	name=$(basename "$f" .tc)
	fresh_ns || { echo "FAIL: $name: cannot set up the namespace"; differ=$((differ + 1)); continue; }
	kt_tc_both "$f"
	compared=$((compared + 1))
	if [ ! -s "$TMP/kernel.out" ]; then
		echo "FAIL: $name: the kernel printed nothing"
		differ=$((differ + 1))
	elif cmp -s "$TMP/kernel.out" "$TMP/tcsim.out"; then
		echo "ok       $name: $(wc -l <"$TMP/kernel.out") lines"
	else
		echo "FAIL: $name: tc's text differs (< kernel, > tcsim)"
		diff "$TMP/kernel.out" "$TMP/tcsim.out" | head -20
		differ=$((differ + 1))
	fi
done
# Traffic: a capture replayed into the shaped tree (queues large enough that
# nothing is dropped, so timing cannot change what each class carries); the
# per-class packets and bytes must be equal. Lends, borrows, overlimits and
# tokens depend on the kernel's timer slack (README) and are not compared.
if command -v tcpreplay >/dev/null 2>&1 && [ -r "$ROOT/scenarios/captures/ssh_hydra.pcap" ]; then
	sed 's/pfifo limit 100$/pfifo limit 10000/' "$DATA/shaped.tc" >"$TMP/traffic.tc"
	fresh_ns || skip "cannot set up the namespace again"
	# 65535 is veth's max_mtu: every frame of the capture fits
	nsx ip link set eth0 mtu 65535 2>/dev/null && nsx ip link set eth0p mtu 65535 2>/dev/null
	sed -e 's/#.*//' "$TMP/traffic.tc" | while IFS= read -r line; do
		case $line in *[![:space:]]*) nsx sh -c "$line" 2>/dev/null ;; esac
	done
	nsx tcpreplay -q --multiplier 10 -i eth0 "$ROOT/scenarios/captures/ssh_hydra.pcap" \
		>"$TMP/replay" 2>&1
	sleep 2 # the last packets wait for tokens
	nsx tc -s class show dev eth0 | awk '/^class/ { c = $3 } /^ Sent/ { print c, $2, $4 }' |
		sort >"$TMP/kernel.sent"
	"$TCSIM" run --tc "$TMP/traffic.tc" --rate 100gbit --speed 10 --priority 0 --vlan inline \
		"$ROOT/scenarios/captures/ssh_hydra.pcap" 2>/dev/null |
		awk '/^class htb/ { c = $3 } /^ Sent/ && c { print c, $2, $4; c = "" }' |
		sort >"$TMP/tcsim.sent"
	compared=$((compared + 1))
	if [ -s "$TMP/kernel.sent" ] && cmp -s "$TMP/kernel.sent" "$TMP/tcsim.sent"; then
		echo "ok       traffic: ssh_hydra x10, per class: $(tr '\n' ' ' <"$TMP/kernel.sent")"
	else
		echo "FAIL: traffic: per-class Sent differs (< kernel, > tcsim)"
		diff "$TMP/kernel.sent" "$TMP/tcsim.sent"
		differ=$((differ + 1))
	fi
else
	echo "note: no tcpreplay or capture: the traffic comparison is left out"
fi

echo "kernel_htb_show: $compared configurations, $differ differ"
[ "$differ" -eq 0 ]
