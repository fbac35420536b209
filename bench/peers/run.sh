#!/bin/sh
# run.sh - `make bench-peers`: tcsim and ns-3's PrioQueueDisc over the same
# 2-class Poisson capture at 10 Mbit/s, timed in the same run.
#   sh bench/peers/run.sh TCSIM NS3_PRIO CAPTURE [REPS]
# Each repetition runs tcsim, then ns-3, as whole processes (reading the capture,
# simulating, printing the results); the figures are the medians over REPS [5].
# Two control runs, untimed, check the alignment: a FIFO (every packet in
# band 1), where no order can change, and ns-3's PrioQueueDisc dequeued when the
# wire frees (ns3_prio --direct, no device queue); both must give tcsim's mean
# delays to the nanosecond. Exit 1 when they do not, when a band's packet or
# drop counts differ between the tools, or when a tool fails.
set -u
TCSIM=$1 NS3=$2 CAP=$3 REPS=${4:-5}
DIR=$(dirname "$0")
TC="$DIR/prio.tc"
FIFO="1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tcsim-peers.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

fail() {
	echo "bench-peers: $*" >&2
	exit 1
}
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
ns3_run() { # OUT [--direct] [PRIOMAP]
	out=$1
	shift
	d=
	if [ "${1-}" = --direct ]; then
		d=--direct
		shift
	fi
	"$NS3" $d "$CAP" "$@" >"$out" || fail "ns3_prio failed (exit $?)"
}
# tcsim's JSON, class CLASSID: "packets drops mean_queue_ns bytes"
tcsim_class() {
	sed -n "s/.*\"classid\": \"$2\", \"packets\": \([0-9]*\), \"bytes\": \([0-9]*\), \"drops\": \([0-9]*\), \"delay_ns\": {\"queue\": {\"min\": [0-9]*, \"mean\": \([0-9]*\),.*/\1 \3 \4 \2/p" "$1"
}
ns3_key() { sed -n "s/^$2 //p" "$1"; }
now_ns() { date +%s%N; }
median() { sort -n | awk '{ v[NR] = $1 } END { printf "%.6f\n", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
us() { awk -v n="$1" 'BEGIN { printf "%.1f", n / 1e3 }'; }

# The timed runs, interleaved; both tools are deterministic, so every
# repetition must give the results of the first.
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
	if [ $i = 1 ]; then
		cp "$TMP/n.txt" "$TMP/n1.txt"
		grep -v wall_ns "$TMP/n1.txt" >"$TMP/n1.strip"
		cp "$TMP/t.json" "$TMP/t1.json"
	else
		grep -v wall_ns "$TMP/n.txt" | cmp -s - "$TMP/n1.strip" || fail "ns-3's results changed between repetitions"
		cmp -s "$TMP/t.json" "$TMP/t1.json" || fail "tcsim's results changed between repetitions"
	fi
done

# The controls.
tcsim_run "$TMP/tf.json" --var PRIOMAP="$FIFO"
ns3_run "$TMP/nf.txt" "$FIFO"
ns3_run "$TMP/nd.txt" --direct

pk=$(ns3_key "$TMP/n1.txt" packets)
t_tc=$(median <"$TMP/t_tcsim")
t_ns=$(median <"$TMP/t_ns3")
t_nr=$(median <"$TMP/t_ns3_run")
min_max() { sort -n "$1" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f-%.3f", lo / 1e9, hi / 1e9 }'; }
ratios=$(paste "$TMP/t_tcsim" "$TMP/t_ns3" | awk '{ printf "%s%.3f", (NR > 1 ? " " : ""), $1 / $2 }')
ratio=$(echo "$ratios" | tr ' ' '\n' | median)

echo "bench-peers: tcsim against ns-3 $(pkg-config --modversion ns3-core 2>/dev/null || echo '?') PrioQueueDisc over $(basename "$CAP"): $pk packets"
echo "  of 2 Poisson classes, 10 Mbit/s, prio of 2 bands with 1000-packet fifos; whole processes, median of $REPS"
awk -v a="$t_tc" -v b="$t_ns" -v c="$t_nr" -v n="$pk" -v r="$ratios" -v q="$ratio" \
	-v ta="$(min_max "$TMP/t_tcsim")" -v tb="$(min_max "$TMP/t_ns3")" 'BEGIN {
	printf "  tcsim  %7.3f s  %6.0f ns/packet   (min-max %s s)\n", a / 1e9, a / n, ta
	printf "  ns-3   %7.3f s  %6.0f ns/packet   (min-max %s s; Simulator::Run alone %.3f s)\n", b / 1e9, b / n, tb, c / 1e9
	printf "  ratio  tcsim/ns-3 = %.3f, median of the repetitions (%s): tcsim runs %.1fx as fast\n", q, r, 1 / q
}'
echo
echo "               packets            drops | mean queue delay (us)             | ns-3 (us):"
echo "  band     tcsim     ns-3   tcsim   ns-3 |      tcsim       ns-3  ns-3-tcsim | qdisc only  no dev queue"
bad=0 direct=0
# Each band's mean weighted by its wire bytes: sum(wire bytes * queue delay) is
# the integral of the unfinished work, the same for every work-conserving order.
wt=0 wn=0 wb=0
for b in 0 1; do
	# shellcheck disable=SC2046 # the fields, split on purpose
	set -- $(tcsim_class "$TMP/t1.json" "1:$((b + 1))")
	[ $# = 4 ] || fail "cannot read tcsim's JSON ($TMP/t1.json)"
	npk=$(ns3_key "$TMP/n1.txt" band${b}_sent)
	ndr=$(ns3_key "$TMP/n1.txt" band${b}_dropped)
	nq=$(ns3_key "$TMP/n1.txt" band${b}_queue_mean_ns)
	ns=$(ns3_key "$TMP/n1.txt" band${b}_sojourn_mean_ns)
	nd=$(ns3_key "$TMP/nd.txt" band${b}_queue_mean_ns)
	awk -v b=$b -v tp="$1" -v td="$2" -v tq="$3" -v np="$npk" -v nd="$ndr" -v nq="$nq" -v ns="$ns" -v dq="$nd" 'BEGIN {
		printf "  %-4s %9d %8d %7d %6d | %10.1f %10.1f %+11.1f | %10.1f %12.1f\n",
		       b, tp, np, td, nd, tq / 1e3, nq / 1e3, (nq - tq) / 1e3, ns / 1e3, dq / 1e3 }'
	[ "$1" = "$npk" ] && [ "$2" = "$ndr" ] || bad=1
	[ "$3" = "$nd" ] && [ "$1" = "$(ns3_key "$TMP/nd.txt" band${b}_sent)" ] || direct=1
	w=$(($4 + 2 * $1))
	wb=$((wb + w))
	wt=$(awk -v s="$wt" -v w=$w -v m="$3" 'BEGIN { printf "%.0f", s + w * m }')
	wn=$(awk -v s="$wn" -v w=$w -v m="$nq" 'BEGIN { printf "%.0f", s + w * m }')
done
awk -v t="$wt" -v n="$wn" -v b="$wb" 'BEGIN {
	printf "  both bands, each mean weighted by its wire bytes: tcsim %.1f us, ns-3 %.1f us (%+.3f %%)\n",
	       t / b / 1e3, n / b / 1e3, (n - t) / t * 100 }'
# shellcheck disable=SC2046 # the fields, split on purpose
set -- $(tcsim_class "$TMP/tf.json" 1:2)
[ $# = 4 ] || fail "cannot read tcsim's JSON ($TMP/tf.json)"
tf_pk=$1 tf_mean=$3
nf_pk=$(ns3_key "$TMP/nf.txt" band1_sent) nf_mean=$(ns3_key "$TMP/nf.txt" band1_queue_mean_ns)
fifo=DIFFERENT
[ "$tf_mean" = "$nf_mean" ] && [ "$tf_pk" = "$nf_pk" ] && fifo=equal
echo "  control, FIFO (every packet in band 1): tcsim $(us "$tf_mean") us, ns-3 $(us "$nf_mean") us: $fifo"
if [ $direct = 0 ]; then
	echo "  control, ns-3's PrioQueueDisc dequeued when the wire frees (no dev queue): equal to tcsim in both bands"
else
	echo "  control, ns-3's PrioQueueDisc dequeued when the wire frees (no dev queue): DIFFERENT from tcsim"
fi
cat <<'NOTES'
notes:
  - queue delay: arrival to the start of the transmission in both (ns-3: at the device's PhyTxBegin);
    "qdisc only" is ns-3's time in the queue disc, before the device's queue.
  - framing: ns-3 adds a 2-byte PPP header on the wire; tcsim runs with --overhead 2: (L + 2) * 800 ns each.
NOTES
[ "$fifo" = equal ] && [ $direct = 0 ] &&
	echo "  - the controls are equal to the nanosecond: same arrivals, sizes, wire times and prio semantics."
cat <<'NOTES'
  - the difference is ns-3's device queue: one packet (its least), which the queue disc fills the moment
    the wire starts a packet, where tcsim dequeues when the wire frees (it models no driver ring). A
    band-0 packet also waits for the band-1 packet already handed to ns-3's device: band 0 waits longer in
    ns-3, band 1 shorter, and weighted by bytes the two balance (the work queued is the same at every instant).
NOTES
[ "$fifo" = equal ] || fail "the FIFO control differs: the tools do not see the same arrivals or wire times"
[ $direct = 0 ] || fail "ns-3 without its device queue differs from tcsim"
[ $bad = 0 ] || fail "the tools put different packet or drop counts in a band"
