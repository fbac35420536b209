#!/bin/sh
# Runs every test tcsim has: the CUnit suites, the command-level tests and
# the kernel differential tests, then prints one closing line.
# Each script exits 0 (pass), 77 (skip, having said why) or anything else.
: "${BUILD:=build}" "${TCSIM:=$BUILD/tcsim}"
export TCSIM BUILD
passed=0 failed=0 skipped=0 failures=""

run() { # name, command...
	name=$1; shift
	echo "=== $name"
	"$@"
	rc=$?
	case $rc in
	0) passed=$((passed + 1)) ;;
	77) skipped=$((skipped + 1)) ;;
	*) failed=$((failed + 1)); failures="$failures $name" ;;
	esac
}

for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] && run "unit/$(basename "$t")" "$t"
done
for t in tests/cli/*.sh tests/kernel/*.sh; do
	case $t in tests/kernel/lib.sh) continue ;; esac # sourced by the kernel tests
	[ -f "$t" ] && run "$t" sh "$t"
done

echo
[ -n "$failures" ] && echo "failed:$failures"
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
