#!/bin/sh
# run.sh - `make bench-peers`: tcsim and ns-3's PrioQueueDisc over the same
# 2-class Poisson capture at 10 Mbit/s, timed in the same run.
#   sh bench/peers/run.sh TCSIM NS3_PRIO CAPTURE [REPS]
# Each repetition runs tcsim, then ns-3, as whole processes (reading the capture,
# simulating, printing the results); the figures are the medians over REPS [5].
# Before them, a FIFO control run (every packet in band 1) checks that both tools
# see the same arrivals, sizes and wire times: its mean delays must be equal.
set -u
TCSIM=$1 NS3=$2 CAP=$3 REPS=${4:-5}
DIR=$(dirname "$0")
TC="$DIR/prio.tc"
FIFO="1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tcsim-peers.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

fail() { echo "bench-peers: $*" >&2; exit 1; }
case $REPS in '' | *[!0-9]* | 0) fail "REPS must be a positive count, not '$REPS'" ;; esac
[ -f "$CAP" ] || fail "$CAP: no capture"

# tcsim run with the bench's device: 10 Mbit/s, no delay, and the 2 bytes of
# ns-3's PPP header as per-frame overhead (ns-3 holds the wire (L + 2) * 800 ns).
tcsim_run() { # OUT [--var PRIOMAP=...]
	out=$1
	shift
	"$TCSIM" run --tc "$TC" "$@" --rate 10mbit --overhead 2 --delay 0 --quiet --json - "$CAP" >"$out" ||
		fail "tcsim run failed (exit $?)"
}
ns3_run() { # OUT [PRIOMAP]
	out=$1
	shift
	"$NS3" "$CAP" "$@" >"$out" || fail "ns3_prio failed (exit $?)"
}
# tcsim's JSON, class CLASSID: "packets drops mean_queue_ns bytes"
tcsim_class() {
	sed -n "s/.*\"classid\": \"$2\", \"packets\": \([0-9]*\), \"bytes\": \([0-9]*\), \"drops\": \([0-9]*\), \"delay_ns\": {\"queue\": {\"min\": [0-9]*, \"mean\": \([0-9]*\),.*/\1 \3 \4 \2/p" "$1"
}
ns3_key() { sed -n "s/^$2 //p" "$1"; }
now_ns() { date +%s%N; }
median() { sort -n | awk '{ v[NR] = $1 } END { printf "%.6f\n", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# The FIFO control.
tcsim_run "$TMP/tf.json" --var PRIOMAP="$FIFO"
ns3_run "$TMP/nf.txt" "$FIFO"
set -- $(tcsim_class "$TMP/tf.json" 1:2)
[ $# = 4 ] || fail "cannot read tcsim's JSON ($TMP/tf.json)"
tf_pk=$1 tf_mean=$3
nf_pk=$(ns3_key "$TMP/nf.txt" band1_sent) nf_mean=$(ns3_key "$TMP/nf.txt" band1_queue_mean_ns)

# The timed runs, interleaved.
: >"$TMP/t_tcsim"
: >"$TMP/t_ns3"
: >"$TMP/t_ns3_run"
i=0
while [ $i -lt "$REPS" ]; do
	i=$((i + 1))
	t0=$(now_ns)
	tcsim_run "$TMP/t.json"
	t1=$(now_ns)
	ns3_run "$TMP/n.txt"
	t2=$(now_ns)
	echo $((t1 - t0)) >>"$TMP/t_tcsim"
	echo $((t2 - t1)) >>"$TMP/t_ns3"
	ns3_key "$TMP/n.txt" run_wall_ns >>"$TMP/t_ns3_run"
	# both are deterministic: every repetition gives the same results
	if [ $i = 1 ]; then
		cp "$TMP/n.txt" "$TMP/n1.txt"
		grep -v "wall_ns" "$TMP/n1.txt" >"$TMP/n1.strip"
		cp "$TMP/t.json" "$TMP/t1.json"
	else
		grep -v "wall_ns" "$TMP/n.txt" | cmp -s - "$TMP/n1.strip" || fail "ns-3's results changed between repetitions"
		cmp -s "$TMP/t.json" "$TMP/t1.json" || fail "tcsim's results changed between repetitions"
	fi
done

pk=$(ns3_key "$TMP/n1.txt" packets)
t_tc=$(median <"$TMP/t_tcsim")
t_ns=$(median <"$TMP/t_ns3")
t_nr=$(median <"$TMP/t_ns3_run")
min_max() { sort -n "$1" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f-%.3f", lo / 1e9, hi / 1e9 }'; }
ratios=$(paste "$TMP/t_tcsim" "$TMP/t_ns3" | awk '{ printf "%s%.3f", (NR > 1 ? " " : ""), $1 / $2 }')
ratio=$(echo "$ratios" | tr " " "\n" | median)

echo "bench-peers: tcsim against ns-3 $(pkg-config --modversion ns3-core 2>/dev/null || echo '?') PrioQueueDisc, $pk packets of 2 Poisson classes"
echo "  ($(basename "$CAP")), 10 Mbit/s, prio of 2 bands with 1000-packet fifos; whole processes, median of $REPS"
awk -v a="$t_tc" -v b="$t_ns" -v c="$t_nr" -v n="$pk" -v r="$ratios" -v q="$ratio" -v ta="$(min_max "$TMP/t_tcsim")" -v tb="$(min_max "$TMP/t_ns3")" 'BEGIN {
	printf "  tcsim  %7.3f s  %6.0f ns/packet   (min-max %s s)\n", a / 1e9, a / n, ta
	printf "  ns-3   %7.3f s  %6.0f ns/packet   (min-max %s s; Simulator::Run alone %.3f s)\n", b / 1e9, b / n, tb, c / 1e9
	printf "  ratio  tcsim/ns-3 = %.3f, median of the repetitions (%s): tcsim runs %.1fx as fast\n", q, r, 1 / q
}'
echo
printf '  %-5s %9s %9s %6s %6s | %-33s | %s\n' band "tcsim pk" "ns-3 pk" drops drops "mean queue delay (us)" "ns-3 sojourn in"
printf '  %-5s %9s %9s %6s %6s | %10s %10s %11s | %s\n' "" "" "" tcsim ns-3 tcsim ns-3 "ns-3-tcsim" "its qdisc (us)"
bad=0
# the wire bytes of each band weigh its mean: sum(wire bytes * queue delay) is
# the integral of the unfinished work, the same for every work-conserving order
wt=0 wn=0 wb=0
for b in 0 1; do
	set -- $(tcsim_class "$TMP/t1.json" "1:$((b + 1))")
	[ $# = 4 ] || fail "cannot read tcsim's JSON"
	npk=$(ns3_key "$TMP/n1.txt" band${b}_sent)
	ndr=$(ns3_key "$TMP/n1.txt" band${b}_dropped)
	nq=$(ns3_key "$TMP/n1.txt" band${b}_queue_mean_ns)
	ns=$(ns3_key "$TMP/n1.txt" band${b}_sojourn_mean_ns)
	awk -v b=$b -v tp="$1" -v td="$2" -v tq="$3" -v np="$npk" -v nd="$ndr" -v nq="$nq" -v ns="$ns" 'BEGIN {
		printf "  %-5s %9d %9d %6d %6d | %10.1f %10.1f %+11.1f | %10.1f\n", b, tp, np, td, nd, tq / 1e3, nq / 1e3, (nq - tq) / 1e3, ns / 1e3 }'
	[ "$1" = "$npk" ] && [ "$2" = "$ndr" ] || bad=1
	w=$(($4 + 2 * $1))
	wb=$((wb + w))
	wt=$(awk -v s="$wt" -v w=$w -v m="$3" 'BEGIN { printf "%.0f", s + w * m }')
	wn=$(awk -v s="$wn" -v w=$w -v m="$nq" 'BEGIN { printf "%.0f", s + w * m }')
done
awk -v t="$wt" -v n="$wn" -v b="$wb" 'BEGIN {
	printf "  both bands, each mean weighted by its wire bytes: tcsim %.1f us, ns-3 %.1f us (%+.3f %%)\n",
	       t / b / 1e3, n / b / 1e3, (n - t) / t * 100 }'
awk -v tm="$tf_mean" -v nm="$nf_mean" -v tp="$tf_pk" -v np="$nf_pk" 'BEGIN {
	printf "  FIFO control, every packet in band 1: tcsim %.1f us, ns-3 %.1f us over %d/%d packets: %s\n",
	       tm / 1e3, nm / 1e3, tp, np, ((tm == nm && tp == np) ? "equal" : "DIFFERENT") }'
cat <<'NOTES'
notes:
  - queue delay: arrival to the start of the transmission in both (ns-3: at the device's PhyTxBegin);
    the last column is ns-3's time in the queue disc alone, before the device's queue.
  - framing: ns-3 adds a 2-byte PPP header on the wire; tcsim runs with --overhead 2: (L + 2) * 800 ns each.
  - the FIFO control, where no order can change, is equal to the nanosecond: same arrivals, sizes, wire times.
  - ns-3's device keeps a transmit queue of 1 packet (its least); the queue disc fills it the moment the wire
    starts a packet, where tcsim (like the kernel without a driver ring) dequeues when the wire frees. So a
    band-0 packet also waits for the band-1 packet already handed to ns-3's device: band 0 waits longer in
    ns-3, band 1 shorter, and weighted by bytes the two balance (the work queued is the same at every instant).
NOTES
[ "$tf_mean" = "$nf_mean" ] && [ "$tf_pk" = "$nf_pk" ] || fail "the FIFO control differs: the tools do not see the same arrivals or wire times"
[ $bad = 0 ] || fail "the tools put different packet counts in a band"
