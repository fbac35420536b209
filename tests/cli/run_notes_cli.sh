#!/bin/sh
# run_notes_cli.sh - what `tcsim run` tells about a long run and an odd
# capture: one warning line per capture whose timestamps go back (those
# packets leave with the one before, as tcpreplay sends them) or jump by
# more than an hour; --quiet silences them; a progress line on a terminal
# (script(1) gives one) once a run has taken a second, erased at the end,
# and none when stderr is not a terminal. The report itself never changes.
. tests/support/cli.sh
TC="$T_TMP/p.tc"
echo "tc qdisc add dev eth0 root pfifo" >"$TC"

# bytes from hex pairs (dash's printf has no \x)
hex() { for b in "$@"; do printf "\\$(printf %o "0x$b")"; done; }
le32() { v=$1; hex "$(printf %02x $((v & 255)))" "$(printf %02x $((v >> 8 & 255)))" \
	"$(printf %02x $((v >> 16 & 255)))" "$(printf %02x $((v >> 24 & 255)))"; }
# mkpcap FILE SECONDS...: a classic pcap of 42-byte IPv4/UDP frames, one per time
mkpcap() {
	f=$1; shift
	{
		hex d4 c3 b2 a1 02 00 04 00 00 00 00 00 00 00 00 00 ff ff 00 00 01 00 00 00
		for t in "$@"; do
			le32 "$t"; le32 0; le32 42; le32 42
			hex 02 00 00 00 00 02 02 00 00 00 00 01 08 00
			hex 45 00 00 1c 00 00 00 00 40 11 00 00 0a 00 00 01 0a 00 00 02
			hex 04 00 14 51 00 08 00 00
		done
	} >"$f"
}

mkpcap "$T_TMP/back.pcap" 100 101 99 98 102
mkpcap "$T_TMP/gap.pcap" 100 101 7300 7301 20000
mkpcap "$T_TMP/fine.pcap" 100 101 102

expect_warn() { # NAME WANT-STDERR CAPTURE [OPTIONS]
	name=$1 want=$2 cap=$3; shift 3
	$TCSIM run --tc "$TC" "$@" "$cap" >"$T_TMP/out" 2>"$T_TMP/err"; rc=$?
	if [ $rc -ne 0 ]; then bad "$name: exit $rc: $(cat "$T_TMP/err")"; return; fi
	if [ "$(cat "$T_TMP/err")" = "$want" ]; then ok; else bad "$name: stderr '$(cat "$T_TMP/err")', wanted '$want'"; fi
	grep -q '^ arrived 5 sent 5\| arrived 3 sent 3' "$T_TMP/out" && ok || bad "$name: report $(sed -n 4p "$T_TMP/out")"
}
expect_warn "timestamps going back" \
	"tcsim: $T_TMP/back.pcap: 2 packets stamped earlier than one before were sent with it (the clock never goes back) (--quiet: no such lines)" \
	"$T_TMP/back.pcap"
expect_warn "gaps of hours" \
	"tcsim: $T_TMP/gap.pcap: 2 gaps of more than an hour between timestamps (the longest 3.5 h), replayed as idle time (--quiet: no such lines)" \
	"$T_TMP/gap.pcap"
expect_warn "--quiet" "" "$T_TMP/back.pcap" --quiet
expect_warn "an ordinary capture" "" "$T_TMP/fine.pcap"
# --pps paces by count, not by timestamps: nothing to say
expect_warn "--pps" "" "$T_TMP/back.pcap" --pps 10
$TCSIM run --tc "$TC" "$T_TMP/back.pcap" >"$T_TMP/a" 2>/dev/null
$TCSIM run --tc "$TC" --quiet "$T_TMP/back.pcap" >"$T_TMP/b" 2>/dev/null
cmp -s "$T_TMP/a" "$T_TMP/b" && ok || bad "--quiet changed the report"

# progress, on a terminal and not (TCSIM_PROGRESS_AFTER=0: from the first
# poll rather than after a second of wall time, so the test does not depend
# on the machine's speed)
CAP=scenarios/captures/ssh_hydra.pcap
if command -v script >/dev/null 2>&1; then
	# the terminal's output (tcsim's stderr) is script's stdout
	script -qc "TCSIM_PROGRESS_AFTER=0 $TCSIM run --tc $TC --loop 2000 $CAP >$T_TMP/tty.out" /dev/null \
		>"$T_TMP/tty.err" 2>&1
	if grep -q "$(printf '\rtcsim: [0-9]* packets, [0-9.]* s simulated, [0-9]* packets/s')" "$T_TMP/tty.err"; then ok; else bad "no progress line on a terminal: $(od -c "$T_TMP/tty.err" | head -3)"; fi
	if [ "$(tail -c 4 "$T_TMP/tty.err" | od -An -c | tr -d ' ')" = '\r033[K' ]; then ok; else bad "the progress line is not erased: $(tail -c 20 "$T_TMP/tty.err" | od -c)"; fi
	script -qc "TCSIM_PROGRESS_AFTER=0 $TCSIM run --quiet --tc $TC --loop 2000 $CAP >/dev/null" /dev/null >"$T_TMP/q.err" 2>&1
	[ -s "$T_TMP/q.err" ] && bad "--quiet on a terminal printed: $(head -c 80 "$T_TMP/q.err")" || ok
else
	echo "skip the progress checks: no script(1) (bsdutils)"
fi
TCSIM_PROGRESS_AFTER=0 $TCSIM run --tc "$TC" --loop 2000 $CAP >"$T_TMP/notty.out" 2>"$T_TMP/notty.err"
[ -s "$T_TMP/notty.err" ] && bad "progress without a terminal: $(head -c 80 "$T_TMP/notty.err")" || ok
[ -f "$T_TMP/tty.out" ] && { cmp -s "$T_TMP/tty.out" "$T_TMP/notty.out" && ok || bad "the report differs on a terminal"; }

finish
