#!/bin/sh
# scenario_cli.sh - Lua scenarios end to end:
#  1. every shipped scenario (scenarios/*.lua) passes its own expectations
#     and matches its golden results (tests/golden/NAME.json);
#  2. the same run twice gives the same bytes; --json FILE = --json -;
#  3. tcsim check reports a changed count or latency exactly, honours
#     --tolerance, and --write-golden round-trips;
#  4. the API scripts in tests/data/lua (stepping, mid-run changes, save
#     and replay, failing expectations) against hand-computed values;
#  5. bad input: a clear message naming the scenario's file:line, a
#     non-zero exit, no crash, no half-written file.
# SCENARIO_CLI_UPDATE=1 rewrites the goldens instead of comparing: read
# every number of a rewritten golden before keeping it.
. tests/support/cli.sh
G=tests/golden
L=tests/data/lua

# 1. shipped scenarios
for s in scenarios/*.lua; do
	n=$(basename "$s" .lua)
	if [ -n "$SCENARIO_CLI_UPDATE" ]; then
		$TCSIM check "$s" --write-golden "$G/$n.json" --quiet >/dev/null || bad "$n: golden not written"
		continue
	fi
	if [ ! -f "$G/$n.json" ]; then bad "$n: no golden $G/$n.json"; continue; fi
	$TCSIM check "$s" --expect "$G/$n.json" --quiet >"$T_TMP/out" 2>"$T_TMP/err"; rc=$?
	if [ $rc -ne 0 ]; then
		bad "$n: exit $rc"; head -20 "$T_TMP/out" "$T_TMP/err"
	elif [ "$(tail -1 "$T_TMP/out")" != "check $s: same as $G/$n.json" ]; then
		bad "$n: $(tail -1 "$T_TMP/out")"
	else ok; fi
	# and its expectations pass when run as a user runs it
	$TCSIM "$s" >"$T_TMP/out" 2>"$T_TMP/err"; rc=$?
	if [ $rc -ne 0 ] || ! grep -Eq '^expectations: [1-9][0-9]* passed, 0 failed$' "$T_TMP/out"; then
		bad "$n: run exit $rc: $(grep -E '^(FAIL|expectations)' "$T_TMP/out" | head -5) $(head -3 "$T_TMP/err")"
	else ok; fi
done
for g in "$G"/*.json; do
	[ -f "scenarios/$(basename "$g" .json).lua" ] || bad "golden $g has no scenario"
done

# u32_hash.lua's `tc filter show`: the hash table, its buckets and the
# link, as this VM's kernel (6.18) and iproute2 6.1 printed the same lines
# on a veth (the trailing blanks are tc's)
$TCSIM scenarios/u32_hash.lua 2>&1 | grep -A13 -m1 '^filter parent' >"$T_TMP/show"
{ sed 's/^|//; s/\$$/ /' <<'SHOW'
|filter parent 1: protocol ip pref 5 u32 chain 0$
|filter parent 1: protocol ip pref 5 u32 chain 0 fh 2: ht divisor 256$
|filter parent 1: protocol ip pref 5 u32 chain 0 fh 2:1:800 order 2048 key ht 2 bkt 1 *flowid 1:11 not_in_hw$
|  match 0a000001/ffffffff at 12
|filter parent 1: protocol ip pref 5 u32 chain 0 fh 2:2:800 order 2048 key ht 2 bkt 2 *flowid 1:12 not_in_hw$
|  match 0a000002/ffffffff at 12
|filter parent 1: protocol ip pref 5 u32 chain 0 fh 2:3:800 order 2048 key ht 2 bkt 3 *flowid 1:13 not_in_hw$
|  match 0a000003/ffffffff at 12
|filter parent 1: protocol ip pref 5 u32 chain 0 fh 2:4:800 order 2048 key ht 2 bkt 4 *flowid 1:14 not_in_hw$
|  match 0a000004/ffffffff at 12
|filter parent 1: protocol ip pref 5 u32 chain 0 fh 800: ht divisor 1$
|filter parent 1: protocol ip pref 5 u32 chain 0 fh 800::800 order 2048 key ht 800 bkt 0 link 2: not_in_hw$
|  match 0a000000/ffffff00 at 12
|    hash mask 000000ff at 12$
SHOW
} >"$T_TMP/want"
if cmp -s "$T_TMP/show" "$T_TMP/want"; then ok; else bad "u32_hash.lua: filter show differs from the kernel's: $(diff "$T_TMP/want" "$T_TMP/show" | head -6)"; fi

# 2. determinism
$TCSIM scenarios/ssh_http.lua >"$T_TMP/a" 2>&1
$TCSIM scenarios/ssh_http.lua >"$T_TMP/b" 2>&1
if cmp -s "$T_TMP/a" "$T_TMP/b"; then ok; else bad "ssh_http.lua: two runs differ"; fi
$TCSIM scenarios/ssh_http.lua --json "$T_TMP/j1" >/dev/null 2>&1
$TCSIM scenarios/ssh_http.lua --json - >"$T_TMP/j2" 2>"$T_TMP/e2"
if cmp -s "$T_TMP/j1" "$T_TMP/j2"; then ok; else bad "--json FILE differs from --json -"; fi
# with --json -, the scenario's own output goes to stderr
if grep -q '^expectations: 9 passed, 0 failed$' "$T_TMP/e2"; then ok; else bad "--json -: report not on stderr"; fi
# (a golden also says which tcsim made it: made_with, compared by no one)
grep -v '^"made_with": ' "$G/ssh_http.json" | cmp -s "$T_TMP/j1" - && ok || bad "--json is not the golden's format"

# 3. tcsim check finds changes
# (g1 without made_with, as goldens were before: no note, whichever tcsim this is)
sed 's/"classid": "1:1", "packets": 588,/"classid": "1:1", "packets": 587,/; /^"made_with": /d' "$G/ssh_http.json" >"$T_TMP/g1"
expect_status() { # NAME WANT-RC CMD...
	n=$1 want=$2; shift 2
	"$@" >"$T_TMP/out" 2>"$T_TMP/err"; rc=$?
	if [ $rc -ne "$want" ]; then bad "$n: exit $rc, wanted $want: $(head -3 "$T_TMP/out" "$T_TMP/err")"; return 1; fi
	ok
}
if expect_status "check count" 1 $TCSIM check scenarios/ssh_http.lua --expect "$T_TMP/g1" --quiet; then
	want="simulations[sim1].result.devices[eth0].classes[1:1].packets: expected 587, got 588 (+1)
check scenarios/ssh_http.lua: 1 difference from $T_TMP/g1"
	[ "$(cat "$T_TMP/out")" = "$want" ] && ok || { bad "check count: output"; cat "$T_TMP/out"; }
fi
# the ssh band's p99 queueing delay, 217055232 ns, moved by 0.5 %
sed 's/"p99": 217055232,/"p99": 216000000,/' "$G/ssh_http.json" >"$T_TMP/g2"
if ! cmp -s "$T_TMP/g2" "$G/ssh_http.json"; then ok; else bad "p99 217055232 not in the golden"; fi
expect_status "latency exact" 1 $TCSIM check scenarios/ssh_http.lua --expect "$T_TMP/g2" --quiet &&
	grep -q 'delay_ns.queue.p99: expected 216000000, got 217055232 (+0.5%' "$T_TMP/out" && ok || bad "latency exact: $(head -2 "$T_TMP/out")"
expect_status "latency within 1%" 0 $TCSIM check scenarios/ssh_http.lua --expect "$T_TMP/g2" --quiet --tolerance 1
expect_status "latency within 2 ms" 0 $TCSIM check scenarios/ssh_http.lua --expect "$T_TMP/g2" --quiet --tolerance-ns 2000000
expect_status "tolerance is not for counts" 1 $TCSIM check scenarios/ssh_http.lua --expect "$T_TMP/g1" --quiet --tolerance 50
expect_status "no golden from a failing scenario" 1 $TCSIM check $L/api_fail.lua --write-golden "$T_TMP/gf" --quiet
if [ -e "$T_TMP/gf" ]; then bad "a failing scenario wrote a golden"; else ok; fi
expect_status "write-golden" 0 $TCSIM check scenarios/ssh_http.lua --write-golden "$T_TMP/g3" --quiet
grep -v '^"made_with": ' "$T_TMP/g3" >"$T_TMP/g3r"
grep -v '^"made_with": ' "$G/ssh_http.json" | cmp -s "$T_TMP/g3r" - && ok || bad "--write-golden differs from the golden"

# 3b. a golden records the tcsim and the kernel mode that made it; check
# compares without them, and says in one line when the release or the
# kernel mode differs, or another commit's golden differs in its results
V=$($TCSIM --version | sed 's/^tcsim //')
mw=$(grep '^"made_with": ' "$T_TMP/g3")
[ "$mw" = "\"made_with\": {\"tcsim\": \"$V\", \"kernel\": \"current\"}," ] && ok || bad "made_with: '$mw' (this is tcsim $V)"
sed 's/^"made_with": .*/"made_with": {"tcsim": "0.0.1 (git 0000000)", "kernel": "current"},/' "$T_TMP/g3" >"$T_TMP/old"
expect_status "another release: same" 0 $TCSIM check scenarios/ssh_http.lua --expect "$T_TMP/old" --quiet
want="check scenarios/ssh_http.lua: $T_TMP/old was made by tcsim 0.0.1 (git 0000000), kernel current; this is tcsim $V, kernel current
check scenarios/ssh_http.lua: same as $T_TMP/old"
[ "$(cat "$T_TMP/out")" = "$want" ] && ok || { bad "another release: output"; cat "$T_TMP/out"; }
# another commit of this release: nothing to say while the results agree
sed 's/^"made_with": {"tcsim": "\([^ "]*\)[^"]*"/"made_with": {"tcsim": "\1 (git 1234567)"/' "$T_TMP/g3" >"$T_TMP/commit"
grep -q '(git 1234567)' "$T_TMP/commit" && ok || bad "made_with: the commit was not replaced"
expect_status "another commit: same" 0 $TCSIM check scenarios/ssh_http.lua --expect "$T_TMP/commit" --quiet
[ "$(cat "$T_TMP/out")" = "check scenarios/ssh_http.lua: same as $T_TMP/commit" ] && ok || { bad "another commit: output"; cat "$T_TMP/out"; }
# ... and one line when they do not
sed 's/"classid": "1:1", "packets": 588,/"classid": "1:1", "packets": 587,/' "$T_TMP/commit" >"$T_TMP/commit2"
expect_status "another commit: a difference" 1 $TCSIM check scenarios/ssh_http.lua --expect "$T_TMP/commit2" --quiet
grep -qx "check scenarios/ssh_http.lua: $T_TMP/commit2 was made by tcsim [^ ]* (git 1234567), kernel current; this is tcsim $V, kernel current" "$T_TMP/out" && [ "$(wc -l <"$T_TMP/out")" -eq 3 ] && ok || { bad "another commit, a difference: output"; cat "$T_TMP/out"; }
# a golden's control characters do not make the line two
sed 's/^"made_with": .*/"made_with": {"tcsim": "9.9\\nFAKE", "kernel": "current"},/' "$T_TMP/g3" >"$T_TMP/nl"
expect_status "made_with with a newline" 0 $TCSIM check scenarios/ssh_http.lua --expect "$T_TMP/nl" --quiet
[ "$(head -1 "$T_TMP/out")" = "check scenarios/ssh_http.lua: $T_TMP/nl was made by tcsim 9.9?FAKE, kernel current; this is tcsim $V, kernel current" ] && [ "$(wc -l <"$T_TMP/out")" -eq 2 ] && ok || { bad "made_with with a newline: output"; cat "$T_TMP/out"; }
# the kernel mode: 3.13 and 6.13's sfq allot, each mode once
printf 'local a = tcsim.sim{kernel = "3.13"}\na:dev("eth0")\nlocal b = tcsim.sim{sfq_allot = "bytes"}\nb:dev("eth0")\nlocal c = tcsim.sim{kernel = "3.13"}\nc:dev("eth0")\n' >"$T_TMP/k.lua"
expect_status "kernel modes: written" 0 $TCSIM check "$T_TMP/k.lua" --write-golden "$T_TMP/k.json" --quiet
grep -qx '"made_with": {"tcsim": "'"$V"'", "kernel": "3.13; current, sfq-allot bytes"},' "$T_TMP/k.json" && ok || bad "kernel modes: $(grep made_with "$T_TMP/k.json")"
sed 's/"kernel": "3.13; current, sfq-allot bytes"}/"kernel": "current"}/' "$T_TMP/k.json" >"$T_TMP/k2.json"
expect_status "another kernel mode: same results" 0 $TCSIM check "$T_TMP/k.lua" --expect "$T_TMP/k2.json" --quiet
grep -qx "check $T_TMP/k.lua: $T_TMP/k2.json was made by tcsim $V, kernel current; this is tcsim $V, kernel 3.13; current, sfq-allot bytes" "$T_TMP/out" && ok || { bad "another kernel mode: output"; cat "$T_TMP/out"; }

# 4. the API against hand-computed values
expect_status "api_steps" 0 $TCSIM $L/api_steps.lua &&
	{ grep -q '^expectations: 23 passed, 0 failed$' "$T_TMP/out" && ok || bad "api_steps: $(tail -1 "$T_TMP/out")"; }
expect_status "api_sources" 0 $TCSIM $L/api_sources.lua &&
	{ grep -q '^expectations: 12 passed, 0 failed$' "$T_TMP/out" && ok || bad "api_sources: $(tail -1 "$T_TMP/out")"; }
expect_status "api_save" 0 $TCSIM $L/api_save.lua -- "$T_TMP/saved.pcap" &&
	{ grep -q '^expectations: 10 passed, 0 failed$' "$T_TMP/out" && ok || bad "api_save: $(tail -1 "$T_TMP/out")"; }
if [ -f "$T_TMP/saved.pcap" ] && tcpdump -r "$T_TMP/saved.pcap" -nn 2>/dev/null | head -1 | grep -q '192.0.2.1.4000[012] > 198.51.100.7.22: Flags \[P.\]'; then ok
else bad "api_save: the saved pcap does not read as tcp 192.0.2.1 -> 198.51.100.7.22"; fi
if expect_status "api_fail" 1 $TCSIM $L/api_fail.lua; then
	want="tcsim: $L/api_fail.lua: 4 expectations failed:
  $L/api_fail.lua:3: first failure
  $L/api_fail.lua:4: second failure (got 2, expected 3)
  $L/api_fail.lua:6: third failure (got 103, expected 100 within 1%)
  $L/api_fail.lua:7: fourth failure (2 not < 1)"
	[ "$(cat "$T_TMP/err")" = "$want" ] && ok || { bad "api_fail: stderr"; cat "$T_TMP/err"; }
	grep -q '^still running$' "$T_TMP/out" && grep -q '^expectations: 1 passed, 4 failed$' "$T_TMP/out" && ok ||
		bad "api_fail: the run did not go on"
fi

# 5. bad input. bad_lua NAME PATTERN-OF-FIRST-STDERR-LINE SCRIPT: exit 1,
# no crash, nothing on stdout, the first stderr line matches.
bad_lua() {
	n=$1 pat=$2
	printf '%s\n' "$3" >"$T_TMP/$n.lua"
	$TCSIM "$T_TMP/$n.lua" --json "$T_TMP/$n.json" >"$T_TMP/out" 2>"$T_TMP/err"; rc=$?
	if [ $rc -ne 1 ]; then bad "$n: exit $rc: $(cat "$T_TMP/err")"; return; fi
	if [ -s "$T_TMP/out" ]; then bad "$n: wrote to stdout: $(head -3 "$T_TMP/out")"; return; fi
	if [ -e "$T_TMP/$n.json" ] || ls "$T_TMP/$n.json".* >/dev/null 2>&1; then bad "$n: wrote JSON"; return; fi
	first=$(head -1 "$T_TMP/err")
	case $first in "tcsim: $T_TMP/$n.lua:"*) ;; *) bad "$n: '$first' does not start with the file"; return ;; esac
	if ! printf '%s' "$first" | grep -Eq -- "$pat"; then bad "$n: '$first' lacks /$pat/"; return; fi
	ok
}
S='local sim = tcsim.sim{}; local eth0 = sim:dev("eth0")'
bad_lua syntax ":3: 'end' expected \\(to close 'if' at line 2\\)" 'local x = 1
if x then'
bad_lua runtime ":3: attempt to call a nil value \\(global 'nosuch'\\)" 'local x = 1
print = nil
nosuch()'
bad_lua traceback ':1: boom' 'local function f() error("boom") end
f()'
grep -q '^stack traceback:' "$T_TMP/err" && ok || bad "traceback: no stack traceback"
bad_lua wrongtype ":1: bad argument #1 to 'dev' \\(string expected, got table\\)" 'local sim = tcsim.sim{}; sim:dev({})'
bad_lua unknownopt ":2: sim:replay: unknown option 'sped' \\(known: dev, speed," "$S
sim:replay('x.pcap', { sped = 2 })"
bad_lua unknownsim ":1: tcsim.sim: unknown option 'sede'" 'local sim = tcsim.sim{ sede = 1 }'
bad_lua badrate ":1: rate: '10mbits' is not a rate" 'local sim = tcsim.sim{ rate = "10mbits" }'
bad_lua badtime ":2: sim:run_until: 'soon' is not a time" "$S
sim:run_until('soon')"
bad_lua tcline ":4: qdisc: unknown qdisc kind 'prioo'|:4: .*prioo" "$S
eth0:tc[[
  qdisc add dev eth0 root handle 1: prio
  qdisc add dev eth0 parent 1:1 handle 10: prioo
]]"
bad_lua tcone ':3: Error: argument "zz:" is wrong: invalid qdisc ID' "$S
-- a comment
eth0:tc('qdisc add dev eth0 root handle zz: prio')"
bad_lua nocapture ":2: sim:replay: .*nosuch.pcap" "$S
sim:replay('nosuch.pcap')"
bad_lua smallframe ":2: .*size 20 is below" "$S
sim:traffic{ pps = 10, count = 1, size = 20, proto = 'udp' }"
bad_lua trafficopt ":2: sim:traffic: unknown option 'ppps'" "$S
sim:traffic{ ppps = 10, count = 1 }"
bad_lua nodev ":1: sim:replay: the simulation has no device" 'local sim = tcsim.sim{}; sim:replay("x.pcap")'
bad_lua past ":3: sim:run_until: .* is in the past" "$S
sim:run_until(2)
sim:run_until(1)"
bad_lua nsastime ":3: sim:run_until: 100000 s is over a day; a number here is seconds" "$S
sim:traffic{ pps = 1, count = 1 }
sim:run_until(tcsim.time('100us'))"
bad_lua expectarg ":1: expect_lt: argument 1 must be a number, got string" 'expect_lt("1", 2)'
bad_lua closed ":3: sim:run: the simulation sim1 was closed" "$S
sim:close()
sim:run()"
if have_shared; then
	bad_lua badcap ":2: simulation sim1: .*bad_record_len_truncated_eof.pcap: packet 2: truncated" "$S
sim:replay('$(cd "$SHARED/pcaps" && pwd)/bad_record_len_truncated_eof.pcap'); sim:run()"
else
	echo "scenario_cli: ../shared absent: skipping the truncated-capture case"
fi
expect_err "no scenario" "^tcsim: nosuch.lua: No such file or directory$" $TCSIM nosuch.lua
expect_err "check without golden" "give --expect" $TCSIM check scenarios/ssh_http.lua
expect_err "args after --" "go after --" $TCSIM scenarios/ssh_http.lua extra
expect_err "check-only option" "belongs to tcsim check" $TCSIM scenarios/ssh_http.lua --expect x.json
printf '{"tcsim": 1,\n "x": [1,]}\n' >"$T_TMP/badgolden.json"
expect_err "bad golden" "badgolden.json: line 2, column" $TCSIM check scenarios/ssh_http.lua --expect "$T_TMP/badgolden.json" --quiet

# lint on scenarios: silent on the seed policy, the trap flagged at its lines
expect_out "lint ssh_http" "lint: scenarios/ssh_http.lua: no warnings" $TCSIM lint scenarios/ssh_http.lua
if expect_status "lint --strict tcpdump" 1 $TCSIM lint scenarios/ssh_http_tcpdump.lua --strict; then
	got=$(cut -d: -f1-3 "$T_TMP/out" | tr "\n" " ")
	want="scenarios/ssh_http_tcpdump.lua:37: warning scenarios/ssh_http_tcpdump.lua:39: warning scenarios/ssh_http_tcpdump.lua:40: warning scenarios/ssh_http_tcpdump.lua:41: warning lint: scenarios/ssh_http_tcpdump.lua: 4 warnings "
	[ "$got" = "$want" ] && ok || bad "lint tcpdump: $got"
	grep -q "returns 262144 = classid 4:0 on a match" "$T_TMP/out" && ok || bad "lint tcpdump: no 262144"
fi
printf 'local sim = tcsim.sim{}\n\nlocal eth0 = sim:dev("eth0", { rate = "1mbps" })\n' >"$T_TMP/bps.lua"
expect_out "lint bps" "$T_TMP/bps.lua:3: warning: 1mbps is 8 Mbit/s (tc reads \"bps\" as bytes per second); write 1mbit if you meant bits
lint: $T_TMP/bps.lua: 1 warning" $TCSIM lint "$T_TMP/bps.lua"

# explain and trace from scenarios
if expect_status "explain scenario" 0 $TCSIM explain scenarios/ssh_http_tcpdump.lua --packet 5; then
	grep -q "returned 262144 = match, and cls_bpf takes the return value itself as the classid: 4:0" "$T_TMP/out" &&
		grep -q "so prio falls back to priomap\[0\] = 1" "$T_TMP/out" && ok || bad "explain scenario: no 262144 / priomap[0]"
fi
if expect_status "explain --sim fixed" 0 $TCSIM explain scenarios/ssh_http_tcpdump.lua --sim fixed --packet 5; then
	grep -q "returned -1 = match, the filter's flowid 1:1" "$T_TMP/out" && ok || bad "explain fixed: $(grep pref "$T_TMP/out" | head -2)"
fi
expect_err "explain no sim" "creates no simulation named 'nope'" $TCSIM explain scenarios/ssh_http.lua --packet 1 --sim nope
expect_err "explain range" "capture 3 \(scenarios/captures/icmp_5_pings.pcap\) has only 10 packets" $TCSIM explain scenarios/ssh_http.lua --packet 3:11
printf 'local sim = tcsim.sim{}\nlocal eth0 = sim:dev("eth0", { rate = "1mbit" })\neth0:tc("qdisc add dev eth0 root handle 1: prio")\nsim:trace{ file = arg[1], filter = "udp port 53" }\nsim:traffic{ pps = 100, count = 10, proto = "udp", dport = 53, size = 100 }\nsim:traffic{ pps = 100, count = 10, proto = "udp", dport = 80, size = 100 }\nsim:run()\n' >"$T_TMP/tr.lua"
if expect_status "lua trace" 0 $TCSIM "$T_TMP/tr.lua" -- "$T_TMP/lua.trace"; then
	# 10 DNS packets, each: arrive classify enqueue dequeue tx_start tx_end
	n=$(grep -c " arrive " "$T_TMP/lua.trace"); m=$(grep -c "dport\\|\\.80:" "$T_TMP/lua.trace")
	[ "$n" = 10 ] && [ "$(wc -l <"$T_TMP/lua.trace")" = 60 ] && ! grep -q "\\.80: " "$T_TMP/lua.trace" && ok ||
		bad "lua trace: $n arrivals, $(wc -l <"$T_TMP/lua.trace") lines"
fi
printf 'error("late")\n' >>"$T_TMP/tr.lua"
expect_status "lua trace, failed scenario" 1 $TCSIM "$T_TMP/tr.lua" -- "$T_TMP/lua2.trace"
if ls "$T_TMP"/lua2.trace* >/dev/null 2>&1; then bad "a failed scenario left a trace file"; else ok; fi

# 6. every example of docs/lua-api.md runs, and prints what its "-->" says
D=$T_TMP/doc
mkdir -p "$D"
ln -s "$(pwd)/scenarios/captures" "$D/captures"
ln -s "$(pwd)/scenarios/filters" "$D/filters"
awk -v d="$D" '/^```lua$/ { n++; f = sprintf("%s/ex%02d.lua", d, n); on = 1; next }
	/^```$/ { on = 0; next } on { print > f }' docs/lua-api.md
nex=0
for f in "$D"/ex*.lua; do
	nex=$((nex + 1))
	$TCSIM "$f" >"$T_TMP/out" 2>"$T_TMP/err"; rc=$?
	if [ $rc -ne 0 ]; then bad "docs example $(basename "$f"): exit $rc: $(head -2 "$T_TMP/err")"; continue; fi
	grep -- '-->' "$f" | sed 's/.*--> //; s/ (.*//' >"$T_TMP/want"
	fail=
	while IFS= read -r w; do
		tr '\t' ' ' <"$T_TMP/out" | grep -qxF -- "$w" || fail="$w"
	done <"$T_TMP/want"
	if [ -n "$fail" ]; then bad "docs example $(basename "$f"): no line '$fail' in its output"; else ok; fi
done
[ "$nex" -ge 15 ] && ok || bad "docs: only $nex examples found"
finish
