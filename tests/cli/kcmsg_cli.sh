#!/bin/sh
# kcmsg_cli.sh - the filter messages `tcsim kernel-check` would send for
# each line of tests/data/kcmsg/*.lines (tests/tools/kcmsg --tc) equal,
# attribute for attribute, what iproute2 6.1's tc sent for the same line,
# recorded with strace in tests/data/kcmsg/*.tc-sent by
# tests/kernel/kc_msg_tc.sh (which checks the recording against this
# machine's tc when it can). tc lets the kernel pick the handles tcsim
# names, so handles are not compared. No root needed.
. tests/support/cli.sh
KCMSG=${KCMSG:-${BUILD:-build}/tools/kcmsg}
[ -x "$KCMSG" ] || { echo "kcmsg_cli: SKIP: $KCMSG not built"; exit 77; }
for f in tests/data/kcmsg/*.lines; do
	rec=${f%.lines}.tc-sent
	: >"$T_TMP/tcsim"
	n=0
	while IFS= read -r line; do
		n=$((n + 1))
		printf 'qdisc add dev eth0 root handle 1: prio\nfilter add dev eth0 parent 1: %s\n' "$line" >"$T_TMP/one.tc"
		"$KCMSG" --tc "$T_TMP/one.tc" >>"$T_TMP/tcsim" 2>"$T_TMP/err" || bad "$f:$n: $(cat "$T_TMP/err")"
	done <"$f"
	sed 's/ handle 0x[0-9a-f]*//' "$rec" >"$T_TMP/rec.n"
	sed 's/ handle 0x[0-9a-f]*//' "$T_TMP/tcsim" >"$T_TMP/tcsim.n"
	[ "$(grep -c '^pref' "$T_TMP/rec.n")" = "$n" ] || bad "$rec: $n lines in $f, $(grep -c '^pref' "$T_TMP/rec.n") messages recorded"
	if cmp -s "$T_TMP/rec.n" "$T_TMP/tcsim.n"; then ok
	else bad "$f: tcsim's messages differ from tc 6.1's ($rec):"; diff "$T_TMP/rec.n" "$T_TMP/tcsim.n" | head -30; fi
done
finish
