#!/bin/sh
# lua_bounds.sh - hostile scenarios (issue 11):
#  1. --timeout: a loop in Lua, a loop whose pcall catches the stop, a long
#     simulation in C, a looping xpcall handler: exit 124 within about the
#     timeout, exactly one line on stderr naming the scenario and the rule,
#     no --json / --write-golden / trace file left;
#  2. --max-memory: a script that allocates for ever: exit 125, one line,
#     nothing written; the same for tcsim check and the lint/explain forms;
#  3. bad values of both options: exit 2;
#  4. the API's guards: closed simulations, foreign devices, finalizers
#     after the end, option tables with metamethods: a Lua error naming
#     the call, never a crash;
#  5. binary chunks refused by load, loadfile, dofile and require.
. tests/support/cli.sh

# bounded NAME WANT-RC PATTERN MAX-SECONDS CMD...: the exit code, one stderr
# line matching PATTERN, within MAX-SECONDS, and no output file.
bounded() {
	n=$1 want=$2 pat=$3 max=$4; shift 4
	t0=$(date +%s)
	"$@" >"$T_TMP/out" 2>"$T_TMP/err"; rc=$?
	t1=$(date +%s)
	if [ $rc -ne "$want" ]; then bad "$n: exit $rc, wanted $want: $(head -3 "$T_TMP/err")"; return; fi
	lines=$(wc -l <"$T_TMP/err")
	if [ "$lines" -ne 1 ]; then bad "$n: $lines lines on stderr:"; head -5 "$T_TMP/err"; return; fi
	if ! grep -Eq -- "$pat" "$T_TMP/err"; then bad "$n: '$(cat "$T_TMP/err")' lacks /$pat/"; return; fi
	if [ $((t1 - t0)) -gt "$max" ]; then bad "$n: took $((t1 - t0)) s"; return; fi
	if ls "$T_TMP"/out.json* "$T_TMP"/g.json* "$T_TMP"/t.trace* >/dev/null 2>&1; then
		bad "$n: left an output file: $(ls "$T_TMP"/out.json* "$T_TMP"/g.json* "$T_TMP"/t.trace* 2>/dev/null)"
		return
	fi
	ok
}

lua() { printf '%s\n' "$2" >"$T_TMP/$1.lua"; }

# 1. timeouts
lua spin 'local sim = tcsim.sim{}
sim:trace{ file = arg[1] }
while true do end'
bounded "timeout spin" 124 "^tcsim: $T_TMP/spin.lua:3: stopped: still running after --timeout 2s$" 4 \
	$TCSIM "$T_TMP/spin.lua" --timeout 2s --json "$T_TMP/out.json" -- "$T_TMP/t.trace"
bounded "timeout check" 124 "^tcsim: $T_TMP/spin.lua:3: stopped: still running after --timeout 1s$" 3 \
	$TCSIM check "$T_TMP/spin.lua" --timeout 1 --write-golden "$T_TMP/g.json" --quiet -- "$T_TMP/t.trace"
lua pcall 'while true do pcall(function() while true do end end) end'
bounded "timeout through pcall" 124 "^tcsim: $T_TMP/pcall.lua:1: stopped: still running after --timeout 500ms$" 3 \
	$TCSIM "$T_TMP/pcall.lua" --timeout 500ms --json "$T_TMP/out.json"
lua xpcall 'while true do xpcall(function() while true do end end, function() while true do end end) end'
bounded "timeout through xpcall's handler" 124 "stopped: still running after --timeout 500ms$" 3 \
	$TCSIM "$T_TMP/xpcall.lua" --timeout 500ms
lua coro 'while true do coroutine.wrap(function() pcall(function() while true do end end) end)() end'
bounded "timeout in a coroutine" 124 "stopped: still running after --timeout 500ms$" 3 \
	$TCSIM "$T_TMP/coro.lua" --timeout 500ms
# hours of simulation in one C call: the run loop polls the deadline
lua longrun 'local sim = tcsim.sim{}
sim:dev("eth0", { rate = "1gbit" })
sim:traffic{ pps = 1e6, duration = "100000s", size = 64 }
sim:run()'
bounded "timeout inside sim:run" 124 "^tcsim: $T_TMP/longrun.lua:4: stopped: still running after --timeout 1s$" 3 \
	$TCSIM "$T_TMP/longrun.lua" --timeout 1s --json "$T_TMP/out.json"
# a finalizer that loops: Lua runs it without hooks; the last resort ends it
lua gcloop 'setmetatable({}, { __gc = function() while true do end end })
while true do end'
bounded "timeout with a looping finalizer" 124 "stopped: still running after --timeout 500ms$" 3 \
	$TCSIM "$T_TMP/gcloop.lua" --timeout 500ms --json "$T_TMP/out.json"
lua quick 'local sim = tcsim.sim{}; sim:dev("eth0"); sim:traffic{ pps = 10, count = 5 }; sim:run()'
$TCSIM "$T_TMP/quick.lua" --timeout 10s --max-memory 64M --json "$T_TMP/q.json" >/dev/null 2>"$T_TMP/err" &&
	[ -s "$T_TMP/q.json" ] && ok || bad "a scenario within its bounds: $(cat "$T_TMP/err")"

# 2. memory (60 s: a guard against a hang only; allocating 256M under ASan
# on a loaded machine took 11 s)
lua hog 'local t = {}
local i = 0
while true do i = i + 1; t[i] = string.rep("x", 1000) .. i end'
bounded "max-memory" 125 "^tcsim: $T_TMP/hog.lua(:[0-9]+)?: stopped: the scenario needs more memory than --max-memory 256M$" 60 \
	$TCSIM "$T_TMP/hog.lua" --max-memory 256M --json "$T_TMP/out.json"
bounded "max-memory check" 125 "stopped: the scenario needs more memory than --max-memory 64M$" 60 \
	$TCSIM check "$T_TMP/hog.lua" --max-memory 64M --expect tests/golden/ssh_http.json
lua hogpcall 'local t = {}
while true do pcall(function() t[#t + 1] = string.rep("y", 1e6) .. #t end) end'
bounded "max-memory through pcall" 125 "stopped: the scenario needs more memory than --max-memory 32M$" 60 \
	$TCSIM "$T_TMP/hogpcall.lua" --max-memory 32M --timeout 20s
bounded "lint --max-memory" 125 "more memory than --max-memory 32M$" 60 $TCSIM lint "$T_TMP/hog.lua" --max-memory 32M
bounded "explain --timeout" 124 "after --timeout 1s$" 3 $TCSIM explain "$T_TMP/pcall.lua" --packet 1 --timeout 1s

# 3. bad values
for v in 0 -1s soon 1e400 ''; do
	expect_err "--timeout '$v'" "--timeout" $TCSIM "$T_TMP/quick.lua" --timeout "$v"
done
for v in 0 100 1X -5M 1e30; do
	expect_err "--max-memory '$v'" "--max-memory" $TCSIM "$T_TMP/quick.lua" --max-memory "$v"
done
expect_err "lint --timeout" "--timeout 'x'" $TCSIM lint "$T_TMP/quick.lua" --timeout x
$TCSIM --help | grep -q -- '--timeout' && $TCSIM scenario --help | grep -q 'exit 124' &&
	$TCSIM scenario --help | grep -q 'exit 125' && ok || bad "usage does not name --timeout and its exit codes"

# 4. guards: each a Lua error at the scenario's line, naming the call
guard() { # NAME PATTERN SCRIPT
	lua "$1" "$3"
	$TCSIM "$T_TMP/$1.lua" >"$T_TMP/out" 2>"$T_TMP/err"; rc=$?
	if [ $rc -ne 1 ]; then bad "$1: exit $rc: $(head -3 "$T_TMP/err")"; return; fi
	if ! head -1 "$T_TMP/err" | grep -Eq -- "$2"; then bad "$1: '$(head -1 "$T_TMP/err")' lacks /$2/"; return; fi
	ok
}
guard closed-dev ":3: dev:stats: the simulation sim1 of this device was closed" 'local sim = tcsim.sim{}
local d = sim:dev("eth0"); sim:close()
d:stats()'
guard closed-foreign-dev ":4: sim:replay: this device belongs to simulation a, not sim2" 'local a = tcsim.sim{ name = "a" }
local d = a:dev("eth0"); a:close()
local b = tcsim.sim{}; b:dev("x")
b:replay("x.pcap", { dev = d })'
guard wrong-userdata ":2: bad argument #1 to 'run' \\(tcsim.sim expected, got tcsim.dev\\)" 'local sim = tcsim.sim{}; local d = sim:dev("eth0")
sim.run(d)'
guard metatable-hidden ":2: attempt to call a nil value \\(field '__gc'\\)" 'local sim = tcsim.sim{}
getmetatable(sim).__gc(sim)'
guard index-closes ":3: sim:run: give" 'local sim = tcsim.sim{}; sim:dev("eth0")
local opts = setmetatable({}, { __index = function() sim:close(); return 1 end })
sim:run(opts)'
guard close-twice ":2: sim:close: the simulation sim1 was closed" 'local sim = tcsim.sim{}; sim:close()
sim:close()'
lua gc-after 'local sim = tcsim.sim{}; sim:dev("eth0")
keep = setmetatable({}, { __gc = function() sim:run(); tcsim.sim{} end })'
$TCSIM "$T_TMP/gc-after.lua" >"$T_TMP/out" 2>"$T_TMP/err"; rc=$?
[ $rc -eq 0 ] && [ ! -s "$T_TMP/err" ] && ok || bad "gc-after: exit $rc: $(cat "$T_TMP/err")"

# 5. binary chunks
lua binary 'local b = string.dump(function() return 1 end)
local f, e = load(b); expect(f == nil and e:find("binary"), "load")
f, e = load(b, "b", "b"); expect(f == nil and e:find("text chunks only"), "load mode b")
local p = os.tmpname(); local h = io.open(p, "wb"); h:write(b); h:close()
f, e = loadfile(p); expect(f == nil and e:find("binary"), "loadfile")
expect(not pcall(dofile, p), "dofile")
package.path = p
expect(not pcall(require, "anything"), "require")
os.remove(p)
expect(package.loadlib == nil and debug.sethook == nil and require("debug").setmetatable == nil, "no loadlib, no unsafe debug")'
$TCSIM "$T_TMP/binary.lua" >"$T_TMP/out" 2>"$T_TMP/err" && grep -q '^expectations: 6 passed, 0 failed$' "$T_TMP/out" &&
	ok || bad "binary chunks: $(grep -E 'FAIL|expectations' "$T_TMP/out") $(head -3 "$T_TMP/err")"
finish
