#!/bin/sh
# Every fuzz target, built with the normal compiler (tests/fuzz/replay.c),
# replays its committed regression inputs (tests/fuzz/regress/NAME/: each a
# crash, hang, leak or UB report fixed) and its seed corpus from the
# repository. Under make asan the same replay runs with the sanitizers.
: "${BUILD:=build}"
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
for bin in "$BUILD"/fuzz/replay_*; do
	[ -x "$bin" ] || continue
	name=${bin##*/replay_}
	sh "$root/tests/fuzz/seed.sh" "$name" "$tmp/$name" --repo-only
	set -- "$tmp/$name"
	[ -d "$root/tests/fuzz/regress/$name" ] && set -- "$@" "$root/tests/fuzz/regress/$name"
	if out=$("$bin" "$@" 2>&1); then
		echo "ok   $name: $(echo "$out" | tail -1 | sed 's/.*: //')"
	else
		echo "FAIL $name:"; echo "$out" | tail -20
		fail=1
	fi
	n=$((n + 1))
done
[ $n -gt 0 ] || { echo "no fuzz targets built in $BUILD/fuzz"; exit 1; }
exit $fail
