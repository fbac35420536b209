#!/bin/sh
# ci_report_cli.sh - `--junit FILE` and `--tap FILE|-` for scenarios and
# tcsim check: one test case per expectation and per golden difference (its
# JSON path), an error case for a Lua error; the JUnit document validates
# against tests/data/ci/junit.xsd (xmllint --schema) and the TAP stream is
# parsed by prove (prove -e cat); hostile messages stay well-formed; a file
# that cannot be written is one line and a non-zero exit; a bound reached
# writes no report.
. tests/support/cli.sh
XSD=tests/data/ci/junit.xsd
G=tests/golden

need() { command -v "$1" >/dev/null 2>&1; }
if ! need xmllint || ! need prove; then
	echo "skip ci_report_cli.sh: needs xmllint (libxml2-utils) and prove (perl): make deps"
	exit 0
fi

valid_junit() { # NAME FILE TESTS FAILURES ERRORS
	if ! xmllint --noout --schema "$XSD" "$2" 2>"$T_TMP/xerr"; then
		bad "$1: not valid JUnit: $(head -3 "$T_TMP/xerr")"
		return
	fi
	head=$(sed -n 2p "$2")
	want="<testsuites tests=\"$3\" failures=\"$4\" errors=\"$5\">"
	if [ "$head" = "$want" ]; then ok; else bad "$1: '$head', wanted '$want'"; fi
}

# 1. a passing scenario and its golden: each expectation a case, the golden one
$TCSIM check scenarios/tbf_burst.lua --expect $G/tbf_burst.json --quiet \
	--junit "$T_TMP/p.xml" --tap "$T_TMP/p.tap" >"$T_TMP/out" 2>&1 || bad "tbf_burst: exit $?"
n=$(grep -c '^ok   ' "$T_TMP/out")
[ "$n" -eq 0 ] || bad "tbf_burst: --quiet printed the expectations"
exp=$($TCSIM scenarios/tbf_burst.lua 2>/dev/null | grep -c '^ok   ')
valid_junit "tbf_burst" "$T_TMP/p.xml" $((exp + 1)) 0 0
if grep -q "name=\"results same as $G/tbf_burst.json\" file=\"$G/tbf_burst.json\"/>" "$T_TMP/p.xml"; then ok; else bad "tbf_burst: no golden case"; fi
if grep -q 'name="scenarios/tbf_burst.lua:[0-9]*: 36 frames leave at the line&apos;s rate: the burst" file="scenarios/tbf_burst.lua" line="[0-9]*"/>' "$T_TMP/p.xml"; then ok; else bad "tbf_burst: no case for the burst expectation"; fi
if prove -e cat "$T_TMP/p.tap" >"$T_TMP/prove" 2>&1; then ok; else bad "tbf_burst: prove: $(tail -3 "$T_TMP/prove")"; fi
[ "$(sed -n 2p "$T_TMP/p.tap")" = "1..$((exp + 1))" ] && ok || bad "tbf_burst: TAP plan $(sed -n 2p "$T_TMP/p.tap")"

# 2. failures: a failed expectation and three golden differences (sent,
# sent_bytes and the qdisc's bytes), each a case; the golden was made by
# another file name, which is no difference
cat >"$T_TMP/f.lua" <<'EOF'
local sim = tcsim.sim{}
local eth0 = sim:dev("eth0", { rate = "1mbit" })
sim:traffic{ count = 10, pps = 100, size = 100 }
sim:run()
expect_eq(eth0:stats().totals.sent, 10, "all sent")
expect_eq(eth0:stats().totals.sent, 11, "eleven <&\"'#> sent")
EOF
# the golden comes from a passing twin of f.lua (a failing run writes none)
sed 's/, 11, /, 10, /' "$T_TMP/f.lua" >"$T_TMP/h.lua"
$TCSIM check "$T_TMP/h.lua" --write-golden "$T_TMP/h.json" --quiet >/dev/null 2>&1 || bad "h.lua: golden not written"
sed 's/"sent": 10,/"sent": 9,/; s/"sent_bytes": 1000,/"sent_bytes": 900,/' "$T_TMP/h.json" >"$T_TMP/g.json"
$TCSIM check "$T_TMP/f.lua" --expect "$T_TMP/g.json" --quiet --junit "$T_TMP/f.xml" \
	--tap "$T_TMP/f.tap" >"$T_TMP/out" 2>"$T_TMP/err"; rc=$?
[ $rc -eq 1 ] && ok || bad "failures: exit $rc, wanted 1"
valid_junit "failures" "$T_TMP/f.xml" 5 4 0
if grep -q "<failure message=\"got 11, expected 10\|(got 10, expected 11)" "$T_TMP/f.xml"; then ok; else bad "failures: no failure text for the expectation: $(grep failure "$T_TMP/f.xml" | head -2)"; fi
if grep -q 'name="[^"]*: eleven &lt;&amp;&quot;&apos;#&gt; sent"' "$T_TMP/f.xml"; then ok; else bad "failures: message not escaped"; fi
if grep -q "name=\"golden $T_TMP/g.json: simulations\[sim1\].result.devices\[eth0\].totals.sent\"" "$T_TMP/f.xml"; then ok; else bad "failures: no case for the golden's totals.sent"; fi
prove -e cat "$T_TMP/f.tap" >"$T_TMP/prove" 2>&1 && bad "failures: prove passed a failing TAP" || ok
if grep -q 'Failed 4/5 subtests' "$T_TMP/prove"; then ok; else bad "failures: prove says $(grep -i failed "$T_TMP/prove" | head -2)"; fi
if grep -q '^not ok 2 - .*: eleven <&"'"'"'\\#> sent$' "$T_TMP/f.tap"; then ok; else bad "failures: TAP line: $(sed -n '/not ok 2/p' "$T_TMP/f.tap")"; fi

# 3. a Lua error: an error case; bytes that are not UTF-8 become '?'
printf 'expect(true, "fine \\255\\001 here")\nerror("boom <here>")\n' >"$T_TMP/e.lua"
$TCSIM "$T_TMP/e.lua" --junit "$T_TMP/e.xml" --tap - >"$T_TMP/e.tap" 2>/dev/null; rc=$?
[ $rc -eq 1 ] && ok || bad "lua error: exit $rc"
valid_junit "lua error" "$T_TMP/e.xml" 2 0 1
if grep -q '<error message="[^"]*boom &lt;here&gt;' "$T_TMP/e.xml"; then ok; else bad "lua error: $(grep error "$T_TMP/e.xml")"; fi
if grep -q 'fine ?? here' "$T_TMP/e.xml"; then ok; else bad "lua error: bad bytes kept"; fi
if grep -q '^TAP version 13$' "$T_TMP/e.tap" && grep -q '^not ok 2 - the scenario runs to its end$' "$T_TMP/e.tap"; then ok; else bad "lua error: TAP $(cat "$T_TMP/e.tap")"; fi

# 3b. a golden made by another release: the note is no case, but CI readers
# see it (JUnit: the suite's system-out; TAP: a diagnostic line)
sed 's/^"made_with": .*/"made_with": {"tcsim": "0.0.1 (git 0000000)", "kernel": "current"},/' \
	"$G/tbf_burst.json" >"$T_TMP/old.json"
$TCSIM check scenarios/tbf_burst.lua --expect "$T_TMP/old.json" --quiet \
	--junit "$T_TMP/o.xml" --tap "$T_TMP/o.tap" >"$T_TMP/out" 2>&1 || bad "old golden: exit $?"
note="$T_TMP/old.json was made by tcsim 0.0.1 (git 0000000), kernel current; this is tcsim"
valid_junit "old golden" "$T_TMP/o.xml" $((exp + 1)) 0 0
grep -q "^    <system-out>$note [^<]*, kernel current&#10;</system-out>$" "$T_TMP/o.xml" && ok || bad "old golden: no system-out note: $(grep -A1 '</testcase>\|/>$' "$T_TMP/o.xml" | tail -2)"
grep -q "^# $note " "$T_TMP/o.tap" && ok || bad "old golden: no TAP note: $(tail -2 "$T_TMP/o.tap")"
prove -e cat "$T_TMP/o.tap" >"$T_TMP/prove" 2>&1 && ok || bad "old golden: prove: $(tail -3 "$T_TMP/prove")"
$TCSIM check scenarios/tbf_burst.lua --expect "$G/tbf_burst.json" --quiet --junit "$T_TMP/same.xml" >/dev/null 2>&1
grep -q "system-out" "$T_TMP/same.xml" && bad "this tcsim's golden: a note" || ok

# 4. a scenario without checks: one passing case
printf 'local sim = tcsim.sim{}\nsim:dev("eth0")\n' >"$T_TMP/n.lua"
$TCSIM "$T_TMP/n.lua" --junit "$T_TMP/n.xml" >/dev/null 2>&1 || bad "no checks: exit $?"
valid_junit "no checks" "$T_TMP/n.xml" 1 0 0

# 5. cannot write: one line, non-zero, nothing left; a bound: no report
expect_err "--junit in a missing folder" "--junit $T_TMP/nope/j.xml: No such file or directory" \
	$TCSIM "$T_TMP/n.lua" --junit "$T_TMP/nope/j.xml"
printf 'while true do end\n' >"$T_TMP/loop.lua"
$TCSIM "$T_TMP/loop.lua" --timeout 200ms --junit "$T_TMP/l.xml" >/dev/null 2>&1; rc=$?
[ $rc -eq 124 ] && ok || bad "timeout: exit $rc"
[ ! -e "$T_TMP/l.xml" ] && ok || bad "timeout: a report was written"
ls "$T_TMP" | grep -q '\.tmp' && bad "a temporary file was left" || ok

finish
