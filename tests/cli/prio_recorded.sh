#!/bin/sh
# prio_recorded.sh - tcsim's prio classification against the kernel's
# recorded numbers, without qemu: for every case of tests/data/qemu/cases.txt
# that has a NAME.expect (the `tc -s class show` Debian's 6.1 kernel printed
# under tests/qemu/prio_oracle.sh), run tcsim on the same tc script and
# capture and compare each `class prio 1:N`'s packets and bytes (for a
# "shaping" case, every qdisc's and class's packets, bytes and drops, tcsim
# paced as the oracle's injector was); NAME.filters
# (the kernel's `tc filter show`) must equal tcsim's line for line; a
# "fail" case needs tcsim to refuse the script as the kernel did.
# Cases whose capture lives in ../shared are skipped, with a message, when
# it is absent.
. tests/support/cli.sh
. tests/qemu/prio_lib.sh

: "${PQ_TIMEOUT:=10}"   # a case takes well under a second
ran=0
pq_cases "$@" >"$T_TMP/cases"   # all cases, or the ones named
while read -r name tmpl capspec prio flags; do
	if [ ! -s "$PQ_DATA/$name.expect" ]; then
		echo "skip $name: not recorded yet (sh tests/qemu/prio_oracle.sh $name)"
		continue
	fi
	if ! cap=$(pq_capture "$capspec" "$T_TMP"); then
		echo "skip $name: capture $cap is absent"
		continue
	fi
	ran=$((ran + 1))
	D=$T_TMP/$name
	mkdir -p "$D"
	pq_tcsim "$tmpl" "$cap" "$prio" "$D" "$flags"
	rc=$?
	if pq_has_flag "$flags" fail; then
		if [ $rc -eq 0 ] || [ $rc -gt 125 ]; then
			bad "$name: the kernel refuses this script ($(sed -n 2p "$PQ_DATA/$name.expect")); tcsim exited $rc"
		else
			ok
		fi
		continue
	fi
	if [ $rc -ne 0 ]; then
		bad "$name: tcsim exited $rc: $(head -3 "$D/tcsim.err" | tr '\n' ' ')"
		continue
	fi
	pq_kcounts "$flags" "$PQ_DATA/$name.expect" >"$D/kernel.c"
	pq_tcounts "$flags" "$D" >"$D/tcsim.c"
	if ! res=$(pq_ccompare "$flags" "$D/kernel.c" "$D/tcsim.c"); then
		bad "$name: $res"
		continue
	fi
	if [ -s "$PQ_DATA/$name.filters" ]; then
		if ! pq_tcsim_filters "$tmpl" "$cap" "$D"; then
			bad "$name: tcsim's tc filter show failed: $(head -2 "$D/tcsim_f.err" | tr '\n' ' ')"
			continue
		fi
		pq_filter_text "$PQ_DATA/$name.filters" >"$D/kfilters"
		if ! cmp -s "$D/kfilters" "$D/tcsim.filters"; then
			bad "$name: tc filter show differs (< kernel, > tcsim)"
			diff "$D/kfilters" "$D/tcsim.filters" | grep '^[<>]' | cut -c1-120
			continue
		fi
	fi
	ok
done <"$T_TMP/cases"

if [ $ran -eq 0 ]; then
	echo "SKIP: no recorded case could run (captures in $SHARED/pcaps absent?)"
	exit 77
fi
finish
