#!/bin/sh
# kc_msg_tc.sh - the filter messages `tcsim kernel-check` sends equal what
# iproute2's tc sends for the same command line, attribute for attribute:
# each line of tests/data/kcmsg/*.lines is given to the real tc (in a
# private network namespace, on a dummy device under an htb root; the
# kernel may lack the classifier, tc sends the message all the same) under
# strace, the RTM_NEWTFILTER it writes is decoded by tests/tools/kcmsg
# --hex, and tcsim's message for the same line (kcmsg --tc) must print the
# same. tc lets the kernel pick a handle tcsim names, so handles are not
# compared here (test_nl_import's round trip checks them). The recording is
# kept in tests/data/kcmsg/*.tc-sent (tc 6.1), which tests/cli/kcmsg_cli.sh
# compares with tcsim on any machine; this script also checks that the
# recording is still what this machine's tc sends (a newer tc may differ:
# then it says so and skips that check).
# Root, strace and tc needed (skips otherwise). Nothing is sent anywhere.
. tests/support/cli.sh
KCMSG=${KCMSG:-${BUILD:-build}/tools/kcmsg}
[ "$(id -u)" = 0 ] || { echo "kc_msg_tc: SKIP: not root (a network namespace)"; exit 77; }
command -v strace >/dev/null 2>&1 || { echo "kc_msg_tc: SKIP: no strace"; exit 77; }
command -v tc >/dev/null 2>&1 || { echo "kc_msg_tc: SKIP: no tc"; exit 77; }
[ -x "$KCMSG" ] || { echo "kc_msg_tc: SKIP: $KCMSG not built"; exit 77; }
TCV=$(tc -V 2>&1 | sed -n 's/.*iproute2-\([0-9.]*\).*/\1/p')

# tc_sent LINE: what tc sends for `filter add dev d0 parent 1: LINE`
tc_sent() {
	unshare -n sh -c 'ip link add d0 type dummy 2>/dev/null || ip link add d0 type veth peer name d1
		tc qdisc add dev d0 root handle 1: htb || exit 3
		strace -e trace=sendmsg -e write=all -o "$1" tc filter add dev d0 parent 1: $2 >/dev/null 2>&1
		exit 0' sh "$T_TMP/strace" "$1" || return 1
	# the hex dump of the one message tc sent
	grep '^ | [0-9a-f]\{5\}  ' "$T_TMP/strace" | cut -c11-58 | "$KCMSG" --hex
}

for f in tests/data/kcmsg/*.lines; do
	rec=${f%.lines}.tc-sent
	: >"$T_TMP/tc" && : >"$T_TMP/tcsim"
	n=0
	while IFS= read -r line; do
		n=$((n + 1))
		if ! tc_sent "$line" >>"$T_TMP/tc"; then bad "$f:$n: tc: nothing recorded"; continue; fi
		printf 'qdisc add dev eth0 root handle 1: prio\nfilter add dev eth0 parent 1: %s\n' "$line" >"$T_TMP/one.tc"
		if ! "$KCMSG" --tc "$T_TMP/one.tc" >>"$T_TMP/tcsim" 2>"$T_TMP/err"; then
			bad "$f:$n: tcsim: $(cat "$T_TMP/err")"
		fi
	done <"$f"
	sed 's/ handle 0x[0-9a-f]*//' "$T_TMP/tc" >"$T_TMP/tc.n"
	sed 's/ handle 0x[0-9a-f]*//' "$T_TMP/tcsim" >"$T_TMP/tcsim.n"
	if cmp -s "$T_TMP/tc.n" "$T_TMP/tcsim.n"; then ok
	else bad "$f: tcsim's messages differ from tc $TCV's:"; diff "$T_TMP/tc.n" "$T_TMP/tcsim.n" | head -30; fi
	if [ -n "$KC_MSG_RECORD" ]; then cp "$T_TMP/tc" "$rec"; echo "kc_msg_tc: recorded $rec"; fi
	if [ "$TCV" != 6.1.0 ]; then
		echo "kc_msg_tc: tc $TCV is not the recording's 6.1.0: $rec not compared"
	elif cmp -s "$T_TMP/tc" "$rec"; then ok
	else bad "$rec is not what tc $TCV sends now"; diff "$rec" "$T_TMP/tc" | head -10; fi
	echo "kc_msg_tc: $f: $n lines, $(grep -c '^  ' "$T_TMP/tc") attributes from tc"
done
finish
