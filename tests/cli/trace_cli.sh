#!/bin/sh
# trace_cli.sh - `tcsim run --trace` and `tcsim explain` end to end, on the
# shipped captures:
#  1. explain through the seed's tcpdump-made ssh filter (returns 262144)
#     names the classid 4:0 (262144) and priomap[0]; through the seed
#     policy, pref 1 and flowid 1:1;
#  2. an exact golden of one explain (an http packet behind ssh and its own
#     band), and of a trace restricted to icmp by --trace-filter;
#  3. the report is byte-identical with and without --trace; every traced
#     packet is one the filter accepts; -v adds the instruction trace;
#  4. bad input: a packet number out of range (how many the capture has),
#     a capture number out of range, a bad --trace-filter (libpcap's
#     message), an unwritable --trace file: exit non-zero, one line on
#     stderr, nothing on stdout, no file left behind.
#  5. shapers, on hand-built workloads whose times the .lua files derive:
#     tbf (burst, then one packet per 8 ms) and a two-leaf htb whose busy
#     leaf borrows every other packet; the throttled and borrow lines and
#     the dequeue times asserted to the ns, and an explain golden of one
#     throttled, lent packet.
. tests/support/cli.sh
D=tests/data/trace
SSH=scenarios/captures/ssh_interactive.pcap
CAPS="$SSH scenarios/captures/http_wikipedia.pcap scenarios/captures/icmp_5_pings.pcap"

if ! $TCSIM run --help 2>/dev/null | grep -q -- '--trace'; then
	echo "trace_cli.sh: skipped: $TCSIM run does not take --trace yet"
	exit 77
fi

# 1. the rule that chose the band
out=$($TCSIM explain --tc $D/tcpdump_ssh.tc --rate 128kbit --packet 5 $SSH 2>&1)
case $out in
*"returned 262144 = match"*"classid: 4:0 (262144)"*"falls back to priomap[0] = 1"*) ok ;;
*) bad "tcpdump filter: explain lacks 4:0 (262144) / priomap[0]:"; echo "$out" ;;
esac
out=$($TCSIM explain --tc scenarios/ssh_http.tc --rate 128kbit --packet 5 $SSH 2>&1)
case $out in
*"pref 1 handle 0x1"*"returned -1 = match, the filter's flowid 1:1"*"band 0 = class 1:1"*) ok ;;
*) bad "seed policy: explain lacks pref 1 / flowid 1:1:"; echo "$out" ;;
esac

# 2. goldens
expect_file "explain golden" $D/explain_http_100.txt \
	$TCSIM explain --tc scenarios/ssh_http.tc --rate 128kbit --packet 2:100 $CAPS
$TCSIM run --tc scenarios/ssh_http.tc --rate 128kbit --trace "$T_TMP/icmp.trace" \
	--trace-filter icmp $CAPS >"$T_TMP/report_traced" 2>"$T_TMP/err" || bad "run --trace: $(cat "$T_TMP/err")"
if cmp -s $D/icmp_pings.trace "$T_TMP/icmp.trace"; then ok; else
	bad "trace golden differs"; diff $D/icmp_pings.trace "$T_TMP/icmp.trace" | head -20
fi

# 3. tracing changes nothing; the filter selects
$TCSIM run --tc scenarios/ssh_http.tc --rate 128kbit $CAPS >"$T_TMP/report" 2>&1
if cmp -s "$T_TMP/report" "$T_TMP/report_traced"; then ok; else bad "report differs with --trace"; fi
$TCSIM run --tc scenarios/ssh_http.tc --rate 128kbit --trace "$T_TMP/all.trace" --json "$T_TMP/all.json" \
	$CAPS >/dev/null 2>&1
$TCSIM run --tc scenarios/ssh_http.tc --rate 128kbit --json "$T_TMP/none.json" $CAPS >/dev/null 2>&1
if cmp -s "$T_TMP/all.json" "$T_TMP/none.json"; then ok; else bad "JSON differs with --trace"; fi
arrived=$(grep -c ' arrive ' "$T_TMP/all.trace")
sent=$(grep -c ' tx_end ' "$T_TMP/all.trace")
if [ "$arrived" -gt 500 ] && [ "$arrived" = "$sent" ]; then ok; else bad "all.trace: $arrived arrivals, $sent tx_end"; fi
n=$(grep ' arrive ' "$T_TMP/icmp.trace" | wc -l)
nicmp=$(grep ' arrive ' "$T_TMP/icmp.trace" | grep -c 'ICMP')
if [ "$n" = 10 ] && [ "$nicmp" = 10 ]; then ok; else bad "icmp filter traced $n packets ($nicmp icmp)"; fi
out=$($TCSIM explain -v --tc scenarios/ssh_http.tc --rate 128kbit --packet 5 $SSH 2>&1)
case $out in
*"(A and X before each instruction)"*"l0   ldh [12]"*"ret 4294967295 (0xffffffff)"*) ok ;;
*) bad "explain -v lacks the instruction trace:"; echo "$out" | head -20 ;;
esac

# 4. bad input
expect_err "packet out of range" '^tcsim: --packet 1:5000: capture 1 \(.*ssh_interactive.pcap\) has only [0-9]+ packets$' \
	$TCSIM explain --tc scenarios/ssh_http.tc --packet 5000 $SSH
expect_err "capture out of range" '^tcsim: --packet 2:1: there is only 1 capture$' \
	$TCSIM explain --tc scenarios/ssh_http.tc --packet 2:1 $SSH
expect_err "bad --packet" "^tcsim explain: --packet 'x': not a valid value" \
	$TCSIM explain --tc scenarios/ssh_http.tc --packet x $SSH
mkdir "$T_TMP/tdir"
expect_err "bad trace filter" "^tcsim: --trace-filter 'tcp port': .*syntax error" \
	$TCSIM run --tc scenarios/ssh_http.tc --trace "$T_TMP/tdir/t.trace" --trace-filter 'tcp port' $SSH
expect_err "bad trace filter (explain)" "^tcsim: --trace-filter 'tcp port': .*syntax error" \
	$TCSIM explain --tc scenarios/ssh_http.tc --trace "$T_TMP/tdir/t.trace" --trace-filter 'tcp port' --packet 1 $SSH
expect_err "unwritable trace" "^tcsim: --trace $T_TMP/none/t.trace: No such file or directory$" \
	$TCSIM run --tc scenarios/ssh_http.tc --trace "$T_TMP/none/t.trace" $SSH
expect_err "failed run leaves no trace" "^tcsim: --packet 1:5000: capture 1" \
	$TCSIM explain --tc scenarios/ssh_http.tc --trace "$T_TMP/tdir/t.trace" --packet 5000 $SSH
if [ -z "$(ls -A "$T_TMP/tdir")" ]; then ok; else bad "files left behind: $(ls "$T_TMP/tdir")"; fi

# 5. shapers: a packet waiting for tokens says so (throttled), one that
#    borrows names its lender; times computed by hand in the .lua files
for s in tbf_six tbf_six_late htb_borrow htb_lender netem_rate; do
	$TCSIM $D/$s.lua >"$T_TMP/$s.trace" 2>"$T_TMP/err" || bad "$s: $(cat "$T_TMP/err")"
	if cmp -s $D/$s.trace "$T_TMP/$s.trace"; then ok; else
		bad "$s trace golden differs"; diff $D/$s.trace "$T_TMP/$s.trace" | head -20
	fi
done
# dequeue times, throttled waits and borrows, as the comments derive them
hand() { # NAME EVENT EXPECTED
	got=$(awk -v ev="$2" '$5 == ev { printf "%s%s %s", sep, $3, $1; sep = ","; if (ev != "dequeue") printf " %s", $NF; }' "$T_TMP/$1.trace")
	[ "$got" = "$3" ] && ok || bad "$1: $2 at $got, by hand $3"
}
hand tbf_six dequeue "#1 0,#2 8000,#3 16000,#4 8000000,#5 16000000,#6 24000000"
hand netem_rate dequeue "#1 13000000,#2 21000000,#3 29000000"
hand netem_rate enqueue "#1 0 send_at=13000000,#2 1 send_at=21000000,#3 2 send_at=29000000"
hand tbf_six throttled "#4 24000 until=8000000,#5 8008000 until=16000000,#6 16008000 until=24000000"
hand tbf_six_late dequeue "#1 0,#2 8000,#3 16000,#4 8005000,#5 16005000,#6 24005000"
hand tbf_six_late throttled "#4 24000 until=8000000,#5 8013000 until=16000000,#6 16013000 until=24000000"
hand htb_borrow dequeue "#1 0,#2 8000,#3 4000000,#4 8000000,#5 12000000,#6 16000000"
hand htb_borrow throttled "#3 16000 by=1:10,#4 4008000 by=1:10,#5 8008000 by=1:10,#6 12008000 by=1:10"
hand htb_borrow borrow "#3 4000000 level=7,#5 12000000 level=7"
hand htb_lender dequeue "#1 0,#2 8000,#5 1000000,#6 1008000,#3 16000000,#4 32000000"
hand htb_lender throttled "#3 16000 by=1:10,#3 4000000 by=1:1,#3 8000000 by=1:1,#4 16008000 by=1:1,#4 24000000 by=1:1"
expect_file "explain golden (htb, throttled and lent)" $D/explain_htb_3.txt \
	$TCSIM explain $D/htb_borrow.lua --packet 3

finish
