#!/bin/sh
# argv_cli.sh - the command line as GNU tools have it: options anywhere
# among the positional arguments of run, explain, lint, check and the
# scenario form (each position gives the same output as the usual one),
# `--` ending the options, `-` reading a capture from standard input
# (a pipe, a redirected file, twice, looped), and a terminal refused.
. tests/support/cli.sh

TC=scenarios/ssh_http.tc
CAP=scenarios/captures/ssh_hydra.pcap
S=scenarios/ssh_http.lua
G=tests/golden/ssh_http.json

# same NAME REFERENCE-FILE CMD...: exit 0 and stdout equal to the reference
same() {
	name=$1 ref=$2; shift 2
	"$@" >"$T_TMP/o" 2>"$T_TMP/e"; rc=$?
	if [ $rc -ne 0 ]; then bad "$name: exit $rc: $(head -2 "$T_TMP/e")"; return; fi
	if cmp -s "$ref" "$T_TMP/o"; then ok; else bad "$name: output differs"; diff "$ref" "$T_TMP/o" | head -5; fi
}

# run: the options before, between and after the captures
$TCSIM run --tc $TC --rate 1mbit --loop 2 $CAP >"$T_TMP/run.ref" 2>/dev/null || bad "run: reference failed"
same "run: options after the capture" "$T_TMP/run.ref" $TCSIM run --tc $TC $CAP --rate 1mbit --loop 2
same "run: options around the capture" "$T_TMP/run.ref" $TCSIM run --rate 1mbit $CAP --tc $TC --loop 2
same "run: --opt=value after the capture" "$T_TMP/run.ref" $TCSIM run $CAP --tc=$TC --rate=1mbit --loop=2

# run: `--` ends the options; a capture whose name starts with '-'
cp $CAP "$T_TMP/-odd.pcap"
case $TCSIM in /*) TCSIM_ABS=$TCSIM ;; *) TCSIM_ABS=$(pwd)/$TCSIM ;; esac
(cd "$T_TMP" && $TCSIM_ABS run --tc "$OLDPWD/$TC" --rate 1mbit --loop 2 -- -odd.pcap) >"$T_TMP/o" 2>"$T_TMP/e"
if [ $? -eq 0 ] && sed 's/^-odd\.pcap     /ssh_hydra.pcap/' "$T_TMP/o" | cmp -s - "$T_TMP/run.ref"; then ok; else bad "run: -- then -odd.pcap: $(head -2 "$T_TMP/e")"; fi
expect_err "run: -odd.pcap without --" "unknown option or missing value '-odd.pcap'" \
	$TCSIM run --tc $TC "$T_TMP/-odd.pcap" -odd.pcap

# `-`: standard input, from a pipe and from a redirected file, looped
$TCSIM run --tc $TC --loop 3 $CAP | sed 's/^ssh_hydra\.pcap /-              /' >"$T_TMP/std.ref"
cat $CAP | $TCSIM run --tc $TC --loop 3 - >"$T_TMP/o" 2>"$T_TMP/e" && cmp -s "$T_TMP/o" "$T_TMP/std.ref" && ok ||
	{ bad "run -: a pipe: $(head -2 "$T_TMP/e")"; diff "$T_TMP/std.ref" "$T_TMP/o" | head -4; }
$TCSIM run --tc $TC - --loop 3 <$CAP >"$T_TMP/o" 2>"$T_TMP/e" && cmp -s "$T_TMP/o" "$T_TMP/std.ref" && ok ||
	bad "run -: a redirected file: $(head -2 "$T_TMP/e")"
# twice: two sources, each the whole capture
cat $CAP | $TCSIM run --tc $TC - - >"$T_TMP/o" 2>"$T_TMP/e" && [ "$(grep -c '^-  .*  189  ' "$T_TMP/o")" -eq 2 ] && ok ||
	bad "run - -: $(grep '^- ' "$T_TMP/o" | head -2) $(head -1 "$T_TMP/e")"
expect_err "run -: an empty pipe" "^tcsim: -: not a readable capture: " sh -c "printf '' | $TCSIM run --tc $TC -"
expect_err "run -: not a capture" "^tcsim: -: not a readable capture: " sh -c "echo hello | $TCSIM run --tc $TC -"
if command -v script >/dev/null 2>&1; then
	script -qc "$TCSIM run --tc $TC -" /dev/null </dev/null >"$T_TMP/tty" 2>&1
	grep -q "standard input is a terminal, not a capture" "$T_TMP/tty" && ok || bad "run - on a terminal: $(head -2 "$T_TMP/tty")"
fi

# explain: --packet and -v after the capture
$TCSIM explain --tc $TC --packet 3 -v $CAP >"$T_TMP/x.ref" 2>/dev/null || bad "explain: reference failed"
same "explain: options after the capture" "$T_TMP/x.ref" $TCSIM explain --tc $TC $CAP --packet 3 -v
same "explain: options around the capture" "$T_TMP/x.ref" $TCSIM explain -v $CAP --tc $TC --packet 3
cat $CAP | $TCSIM explain --packet 3 -v - --tc $TC >"$T_TMP/o" 2>"$T_TMP/e" && [ -s "$T_TMP/o" ] && ok || bad "explain -: $(head -1 "$T_TMP/e")"

# lint: the tc form and the scenario form, --strict in either place
$TCSIM lint --tc $TC --strict >"$T_TMP/l.ref" 2>&1; rl=$?
$TCSIM lint --strict --tc $TC >"$T_TMP/o" 2>&1; [ $? -eq $rl ] && cmp -s "$T_TMP/o" "$T_TMP/l.ref" && ok || bad "lint --tc: --strict first"
$TCSIM lint $S --strict >"$T_TMP/ls.ref" 2>&1; rs=$?
$TCSIM lint --strict $S >"$T_TMP/o" 2>&1; [ $? -eq $rs ] && cmp -s "$T_TMP/o" "$T_TMP/ls.ref" && ok || bad "lint X.lua: --strict first: $(head -2 "$T_TMP/o")"

# check and the scenario form: options before the scenario
$TCSIM check $S --expect $G --quiet >"$T_TMP/c.ref" 2>&1 || bad "check: reference failed"
same "check: options before the scenario" "$T_TMP/c.ref" $TCSIM check --quiet --expect $G $S
same "check: the scenario between options" "$T_TMP/c.ref" $TCSIM check --expect $G $S --quiet
$TCSIM $S --seed 3 >"$T_TMP/sc.ref" 2>&1 || bad "scenario: reference failed"
same "scenario: --seed before it" "$T_TMP/sc.ref" $TCSIM --seed 3 $S
same "tcsim scenario: --seed before it" "$T_TMP/sc.ref" $TCSIM scenario --seed 3 $S
expect_err "scenario: an argument of its own without --" "go after --" $TCSIM $S extra

finish
