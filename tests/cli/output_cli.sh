#!/bin/sh
# output_cli.sh - `tcsim run --pcap-out DIR --plot DIR` end to end, on the
# seed commit's policy (scenarios/ssh_http.tc) over the shipped captures:
#  1. the report is byte-identical with and without outputs;
#  2. one sent and one dropped pcap per band, which tcpdump reads: their
#     packets, drops and frame bytes are the text report's class rows, the
#     sent files' timestamps never go back;
#  3. the CSVs and the gnuplot script exist with their header lines; the
#     throughput CSV's bytes add up to the report's; --plot-interval sets
#     the backlog's sampling;
#  4. with gnuplot, PNG and SVG files that are PNG and SVG; without it (an
#     empty PATH), one line on stderr saying so, exit 0, no picture;
#  5. an output directory that cannot be made: exit non-zero, one line on
#     stderr, nothing on stdout, no file left.
. tests/support/cli.sh
TC=scenarios/ssh_http.tc
CAPS="scenarios/captures/ssh_hydra.pcap scenarios/captures/http_wikipedia.pcap scenarios/captures/icmp_5_pings.pcap scenarios/captures/ssh_interactive.pcap"
RUN="run --tc $TC --rate 128kbit"

if ! $TCSIM run --help 2>/dev/null | grep -q -- '--pcap-out'; then
	echo "output_cli.sh: skipped: '$TCSIM run --help' does not mention --pcap-out (not wired in yet)"
	exit 77
fi
if ! command -v tcpdump >/dev/null 2>&1; then
	echo "output_cli.sh: skipped: tcpdump is not installed"
	exit 77
fi

# pcap_sum FILE: "ns-pcap PACKETS BYTES BACKWARDS" read from the file's own
# bytes (a little-endian nanosecond pcap as tcsim writes it): the original
# lengths added up (tcpdump prints an 802.3 frame's length field instead),
# and how many timestamps are earlier than the one before.
pcap_sum() {
	od -An -v -tu1 "$1" | awk '
		{ for (i = 1; i <= NF; i++) b[n++] = $i }
		function u32(o) { return b[o] + 256 * (b[o + 1] + 256 * (b[o + 2] + 256 * b[o + 3])) }
		END {
			fmt = (u32(0) == 2712812621 && u32(20) == 1) ? "ns-pcap" : "not-ns-ethernet-pcap"
			for (o = 24; o + 16 <= n; o += 16 + cap) {
				t = u32(o) * 1e9 + u32(o + 4); cap = u32(o + 8)
				if (k++ && t < last) back++
				last = t; bytes += u32(o + 12)
			}
			print fmt, k + 0, bytes + 0, back + 0
		}'
}

O=$T_TMP/o
mkdir -p "$O"
# shellcheck disable=SC2086
$TCSIM $RUN $CAPS >"$T_TMP/plain.txt" 2>"$T_TMP/plain.err" || bad "plain run failed: $(cat "$T_TMP/plain.err")"
# shellcheck disable=SC2086
if $TCSIM $RUN --pcap-out "$O/pcap" --plot "$O/plot" $CAPS >"$T_TMP/out.txt" 2>"$T_TMP/out.err"; then ok; else
	bad "run with outputs: exit $?: $(cat "$T_TMP/out.err")"
fi

# 1. the same report
if cmp -s "$T_TMP/plain.txt" "$T_TMP/out.txt"; then ok; else
	bad "the report changes with outputs"; diff "$T_TMP/plain.txt" "$T_TMP/out.txt" | head -10
fi

# 2. pcaps against the class rows: "1:1  packets bytes drops ..."
rows=$(awk '/^class +packets/ { on = 1; next } on && NF == 0 { on = 0 } on { print $1, $2, $3, $4 }' "$T_TMP/out.txt")
[ -n "$rows" ] && ok || bad "no class rows in the report"
while read -r cls pkts bytes drops; do
	f=$(echo "$cls" | tr : _)
	sent=$O/pcap/eth0-$f-sent.pcap dropped=$O/pcap/eth0-$f-dropped.pcap
	for p in "$sent" "$dropped"; do
		[ -f "$p" ] || { bad "$p missing"; continue; }
	done
	n=$(tcpdump -r "$sent" -nn 2>/dev/null | wc -l)
	if [ "$n" -eq "$pkts" ]; then ok; else bad "$cls sent: tcpdump reads $n, report $pkts"; fi
	got=$(pcap_sum "$sent")
	if [ "$got" = "ns-pcap $pkts $bytes 0" ]; then ok; else
		bad "$cls sent: (format packets bytes backwards) $got, report $pkts $bytes"
	fi
	got=$(tcpdump -r "$dropped" -nn 2>/dev/null | wc -l)
	if [ "$got" -eq "$drops" ]; then ok; else bad "$cls dropped: tcpdump reads $got, report $drops"; fi
done <<EOF
$rows
EOF
n=$(ls "$O/pcap" | wc -l)
want=$(($(echo "$rows" | wc -l) * 2))
if [ "$n" -eq "$want" ]; then ok; else bad "$n files in the pcap directory, wanted $want: $(ls -A "$O/pcap")"; fi
left=$(find "$O/pcap" "$O/plot" -name '.*')
if [ -z "$left" ]; then ok; else bad "temporary files left: $left"; fi
total_drops=$(echo "$rows" | awk '{ d += $4 } END { print d + 0 }')
[ "$total_drops" -gt 0 ] && ok || bad "the run drops nothing: the dropped pcaps are not exercised"

# 3. CSVs and script
for f in eth0-backlog.csv eth0-throughput.csv eth0-delay_cdf.csv eth0.gp; do
	[ -s "$O/plot/$f" ] && ok || bad "$O/plot/$f missing or empty"
done
head -1 "$O/plot/eth0-backlog.csv" | grep -q '^time_s,1:1 bytes,1:1 packets,1:2 bytes' && ok ||
	bad "backlog header: $(head -1 "$O/plot/eth0-backlog.csv")"
head -1 "$O/plot/eth0-delay_cdf.csv" | grep -q '^quantile,1:1 queue_us,1:1 total_us' && ok ||
	bad "delay_cdf header: $(head -1 "$O/plot/eth0-delay_cdf.csv")"
tp=$(awk -F, 'NR == 1 { for (i = 2; i <= NF; i++) if ($i ~ / bytes$/) col[i] = 1; next }
	{ for (i in col) s += $i } END { print s + 0 }' "$O/plot/eth0-throughput.csv")
want=$(echo "$rows" | awk '{ b += $3 } END { print b + 0 }')
[ "$tp" = "$want" ] && ok || bad "throughput CSV holds $tp bytes, the report $want"

# shellcheck disable=SC2086
$TCSIM $RUN --plot "$O/iv" --plot-interval 10ms $CAPS >/dev/null 2>&1 || bad "--plot-interval 10ms failed"
step=$(awk -F, 'NR == 3 { print $1 - p } NR == 2 { p = $1 }' "$O/iv/eth0-backlog.csv")
[ "$step" = "0.01" ] && ok || bad "--plot-interval 10ms: samples $step s apart"

# 4. pictures
if command -v gnuplot >/dev/null 2>&1; then
	for k in backlog throughput delay_cdf; do
		png=$O/plot/eth0-$k.png svg=$O/plot/eth0-$k.svg
		if [ -s "$png" ] && [ "$(od -An -tx1 -N8 "$png" | tr -d ' \n')" = 89504e470d0a1a0a ]; then ok; else
			bad "$png is not a PNG"
		fi
		if [ -s "$svg" ] && grep -q '<svg' "$svg"; then ok; else bad "$svg is not an SVG"; fi
	done
else
	echo "output_cli.sh: gnuplot is not installed: PNG/SVG not checked (apt-get install gnuplot-nox)"
fi
tcsim_abs=$(command -v "$TCSIM")
case $tcsim_abs in /*) ;; *) tcsim_abs=$PWD/$tcsim_abs ;; esac
# shellcheck disable=SC2086
if PATH=/nonexistent "$tcsim_abs" $RUN --plot "$O/nognu" $CAPS >/dev/null 2>"$T_TMP/nognu.err"; then ok; else
	bad "without gnuplot: exit $?: $(cat "$T_TMP/nognu.err")"
fi
[ "$(grep -c gnuplot "$T_TMP/nognu.err")" -eq 1 ] && ok || bad "without gnuplot, stderr: $(cat "$T_TMP/nognu.err")"
[ -s "$O/nognu/eth0-backlog.csv" ] && [ -s "$O/nognu/eth0.gp" ] && [ ! -e "$O/nognu/eth0-backlog.png" ] && ok ||
	bad "without gnuplot: $(ls -A "$O/nognu")"

# 5. directories that cannot be made
: >"$T_TMP/file"
# shellcheck disable=SC2086
expect_err "pcap dir is a file" "file" $TCSIM $RUN --pcap-out "$T_TMP/file" $CAPS
# shellcheck disable=SC2086
expect_err "plot dir two levels down" "cannot create" $TCSIM $RUN --pcap-out "$O/p5" --plot "$O/no/such" $CAPS
[ ! -e "$O/p5" ] && [ ! -e "$O/no" ] && ok || bad "a failed run left $(ls -A "$O")"


# 5. the pcaps' clock: the capture's own (first timestamp + simulated
# time) by default, simulated time from 1970 with --pcap-epoch zero
P=scenarios/captures/icmp_5_pings.pcap
first=$(tcpdump -tt -nn -r $P 2>/dev/null | head -1 | cut -d' ' -f1)
for e in capture zero; do
	rm -rf "$O/e"
	$TCSIM run --tc "$TC" --pcap-out "$O/e" --pcap-epoch $e $P >/dev/null 2>&1 || bad "--pcap-epoch $e: exit $?"
	got=$(tcpdump -tt -nn -r "$O/e/eth0-1_1-sent.pcap" 2>/dev/null | head -1 | cut -d' ' -f1)
	[ -n "$got" ] || got=$(for f in "$O"/e/*-sent.pcap; do tcpdump -tt -nn -r "$f" 2>/dev/null; done | sort -n | head -1 | cut -d' ' -f1)
	if [ $e = capture ]; then
		awk -v g="$got" -v f="$first" 'BEGIN { exit !(g >= f && g < f + 1) }' && ok || bad "--pcap-epoch capture: first departure $got, capture starts $first"
	else
		awk -v g="$got" 'BEGIN { exit !(g >= 0 && g < 1) }' && ok || bad "--pcap-epoch zero: first departure $got"
	fi
done
expect_err "--pcap-epoch other" "pcap-epoch" $TCSIM run --tc "$TC" --pcap-out "$O/e" --pcap-epoch 1970 $P
finish
