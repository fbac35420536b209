#!/bin/sh
# import_recorded.sh - `tcsim import` against what a real kernel dumps, for
# the classifiers this VM's kernel lacks (flower, basic, matchall, fw):
# tests/data/qemu/import.rec holds, per case, the qdisc and filter dumps
# Debian's 6.1 sent in the qemu oracle (tests/qemu/import_oracle.sh
# recorded them with tests/qemu/nldump.c) and that kernel's `tc filter
# show` text of the same filters. The dumps go through import's parser and
# writer (tests/tools/nlimport); the tc lines it writes, run by tcsim, must
# give the kernel's `tc filter show` text line for line, with nothing left
# out; and the filters kernel-check's own messages install there (KSHOW)
# show the same as tc's. No root needed.
. tests/support/cli.sh
NLIMPORT=${NLIMPORT:-${BUILD:-build}/tools/nlimport}
REC=tests/data/qemu/import.rec
[ -x "$NLIMPORT" ] || { echo "import_recorded: SKIP: $NLIMPORT not built"; exit 77; }
names=$(sed -n 's/^NLDUMP \([^ ]*\) .*/\1/p' "$REC" | uniq)
[ -n "$names" ] || { bad "no case in $REC"; finish; }
n=0
for name in $names; do
	n=$((n + 1))
	if ! "$NLIMPORT" "$name" <"$REC" >"$T_TMP/$name.lua" 2>"$T_TMP/$name.omit"; then
		bad "$name: import: exit $?: $(head -3 "$T_TMP/$name.omit")"; continue
	fi
	# the tc lines between dev:tc[[ and ]], then the show
	sed -n '/:tc\[\[$/,/^\]\]$/p' "$T_TMP/$name.lua" | sed '1d;$d' >"$T_TMP/$name.tc"
	echo "filter show dev eth0" >>"$T_TMP/$name.tc"
	if ! $TCSIM run --tc "$T_TMP/$name.tc" --rate 100gbit --limit 1 --json - \
		scenarios/captures/icmp_5_pings.pcap >/dev/null 2>"$T_TMP/$name.err"; then
		bad "$name: tcsim refused the imported lines: $(head -3 "$T_TMP/$name.err")"; continue
	fi
	awk '/^filter / { f = 1; print; next } f && (/^  / || /^$/) { print; next } { f = 0 }' \
		"$T_TMP/$name.err" >"$T_TMP/$name.tcsim"
	sed -n "s/^SHOW $name //p" "$REC" >"$T_TMP/$name.kernel"
	if [ ! -s "$T_TMP/$name.kernel" ]; then
		bad "$name: no show text recorded"
	elif cmp -s "$T_TMP/$name.kernel" "$T_TMP/$name.tcsim"; then
		ok
	else
		bad "$name: tc filter show of the imported lines differs from the kernel's:"
		diff "$T_TMP/$name.kernel" "$T_TMP/$name.tcsim" | head -20
	fi
done
# kernel-check's own messages (tests/tools/kcmsg --raw, installed by
# nldump send in the same guest): the kernel's `tc filter show` of them
# equals that of the filters tc installed from the same lines
kn=0
for name in $(sed -n 's/^KSHOW \([^ ]*\) .*/\1/p' "$REC" | uniq); do
	kn=$((kn + 1))
	sed -n "s/^KSHOW $name //p" "$REC" >"$T_TMP/$name.kc"
	sed -n "s/^SHOW $name //p" "$REC" >"$T_TMP/$name.tcshow"
	if [ -s "$T_TMP/$name.kc" ] && cmp -s "$T_TMP/$name.kc" "$T_TMP/$name.tcshow"; then ok
	else bad "$name: the kernel holds other filters from kernel-check's messages than from tc's:"
		diff "$T_TMP/$name.tcshow" "$T_TMP/$name.kc" | head -10; fi
done
[ "$kn" -gt 0 ] || bad "no KSHOW case in $REC"
echo "import_recorded: $kn configurations installed from kernel-check's messages"
echo "import_recorded: $n recorded kernel dumps imported"
finish
