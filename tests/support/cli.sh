# lib.sh - helpers for the command-level tests: run tcsim, compare exact
# output, count results. Sourced by tests/cli/*.sh.
: "${TCSIM:=./tcsim}"
SHARED=${TCSIM_SHARED:-../shared}
T_PASS=0
T_FAIL=0
T_TMP=$(mktemp -d)
trap 'rm -rf "$T_TMP"' EXIT

ok() { T_PASS=$((T_PASS + 1)); }
bad() { T_FAIL=$((T_FAIL + 1)); echo "FAIL: $*"; }

# expect_out NAME EXPECTED-TEXT CMD...: exit 0 and stdout exactly EXPECTED.
expect_out() {
	name=$1 want=$2; shift 2
	got=$("$@" 2>"$T_TMP/err"); rc=$?
	if [ $rc -ne 0 ]; then bad "$name: exit $rc: $(cat "$T_TMP/err")"; return; fi
	if [ "$got" != "$want" ]; then
		bad "$name: output differs"; printf 'want:\n%s\ngot:\n%s\n' "$want" "$got"; return
	fi
	ok
}

# expect_file NAME FILE CMD...: exit 0 and stdout exactly the file's text.
expect_file() {
	name=$1 file=$2; shift 2
	"$@" >"$T_TMP/out" 2>"$T_TMP/err"; rc=$?
	if [ $rc -ne 0 ]; then bad "$name: exit $rc: $(cat "$T_TMP/err")"; return; fi
	if ! cmp -s "$file" "$T_TMP/out"; then
		bad "$name: output differs from $file"; diff "$file" "$T_TMP/out" | head -20; return
	fi
	ok
}

# expect_err NAME PATTERN CMD...: non-zero exit (not a crash), nothing on
# stdout, exactly one line on stderr matching the grep -E PATTERN.
expect_err() {
	name=$1 pat=$2; shift 2
	"$@" >"$T_TMP/out" 2>"$T_TMP/err"; rc=$?
	if [ $rc -eq 0 ]; then bad "$name: exit 0, wanted an error"; return; fi
	if [ $rc -gt 125 ]; then bad "$name: crashed (exit $rc): $(cat "$T_TMP/err")"; return; fi
	if [ -s "$T_TMP/out" ]; then bad "$name: wrote to stdout: $(head -3 "$T_TMP/out")"; return; fi
	lines=$(wc -l <"$T_TMP/err")
	if [ "$lines" -ne 1 ]; then bad "$name: $lines lines on stderr:"; cat "$T_TMP/err"; return; fi
	if ! grep -Eq -- "$pat" "$T_TMP/err"; then bad "$name: stderr '$(cat "$T_TMP/err")' lacks /$pat/"; return; fi
	ok
}

have_shared() { [ -d "$SHARED/pcaps" ]; }

finish() {
	echo "$(basename "$0"): $T_PASS passed, $T_FAIL failed"
	[ "$T_FAIL" -eq 0 ]
}
