#!/bin/sh
# prio_oracle.sh - differential test of tcsim's prio classification (and
# sfq leaves, and htb/tbf shaping trees with prio/sfq below) against a
# real kernel: Debian's 6.1 under qemu, through
# ../shared/tools/qemu-oracle/run.sh.
#
# For each case of tests/data/qemu/cases.txt, the same tc script and capture
# go to the oracle (veth v0: it transmits at once, nothing queues, so the
# per-class counts are the classification) and to tcsim (eth0 at 100gbit);
# the `Sent B bytes P pkt` of every `class prio 1:N` must equal tcsim's
# per-class packets/bytes. Cases flagged "filters" also compare the
# `tc filter show` text line for line; "fail" cases need both to refuse the script.
# "shaping" cases (htb/tbf roots, a paced replay: pps=N, no queue near its
# limit) compare every qdisc's and class's packets, bytes and drops and htb's
# direct_packets_stat, from the qdisc and class dumps both record; the
# kernel's backlog must have drained first.
# The kernel's class dump is recorded as tests/data/qemu/NAME.expect (and the
# filter dump as NAME.filters) for tests/cli/prio_recorded.sh; a live result
# that disagrees with an existing record is a failure (rerun with --record).
# About 6-9 s per case (a qemu boot under TCG), so not part of `make check`.
#
# Usage: sh tests/qemu/prio_oracle.sh [--record] [--kernel-only] [NAME...]
#   --record       (re)write the records from this run
#   --kernel-only  run only the oracle: record / check the records, no tcsim
# Environment: TCSIM (default build/tcsim), TCSIM_SHARED (default ../shared),
# QEMU_ORACLE (default $TCSIM_SHARED/tools/qemu-oracle/run.sh), KEEP=1 keeps
# the work folder.
# Exit 0: every case passed; 1: some failed; 77: cannot run here (SKIP).

cd "$(dirname "$0")/../.." || exit 1
: "${TCSIM:=build/tcsim}"
SHARED=${TCSIM_SHARED:-../shared}
ORACLE=${QEMU_ORACLE:-$SHARED/tools/qemu-oracle/run.sh}
. tests/qemu/prio_lib.sh

RECORD=0 KONLY=0
while [ $# -gt 0 ]; do
	case $1 in
	--record) RECORD=1 ;;
	--kernel-only) KONLY=1 ;;
	-h | --help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	-*) echo "prio_oracle.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "not root (qemu-oracle installs packages and needs root)"
[ -d "$SHARED/pcaps" ] || skip "$SHARED/pcaps is missing (set TCSIM_SHARED)"
[ -x "$ORACLE" ] || [ -f "$ORACLE" ] || skip "$ORACLE is missing (set QEMU_ORACLE)"
if [ $KONLY = 0 ] && [ ! -x "$TCSIM" ]; then
	echo "FAIL: tcsim binary '$TCSIM' not found (make build/tcsim, or set TCSIM)"
	exit 1
fi
[ -n "$(pq_cases "$@")" ] || { echo "prio_oracle.sh: no such case: $*" >&2; exit 2; }

W=$(mktemp -d) || exit 1
if [ "${KEEP:-0}" = 1 ]; then echo "work folder: $W"; else trap 'rm -rf "$W"' EXIT; fi
trap 'exit 130' INT TERM

passed=0 failed=0
T_ALL=$(date +%s.%N)
pass() { passed=$((passed + 1)); echo "PASS $name ($secs s): $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $name ($secs s): $*"; }

# check_record FILE NEW WHAT: NEW (this run's kernel text) against the
# record FILE, by WHAT: counts FLAGS (the case's counts, pq_kcounts) or
# text (exact). Writes the record when it is missing or with --record.
# Prints a complaint and returns 1 on a difference.
check_record() {
	if [ $RECORD = 1 ] || [ ! -s "$1" ]; then
		cp "$2" "$1"
		return 0
	fi
	case $3 in
	counts)
		pq_kcounts "$4" "$1" >"$W/rec.c"
		pq_kcounts "$4" "$2" >"$W/new.c"
		cmp -s "$W/rec.c" "$W/new.c" && return 0
		# aqm cases: the kernel's own runs differ by its timing (dup: by prandom)
		[ -n "$(pq_flag_value "$4" aqm)$(pq_flag_value "$4" dup)" ] && pq_ccompare "$4" "$W/rec.c" "$W/new.c" >/dev/null && return 0
		;;
	*) cmp -s "$1" "$2" && return 0 ;;
	esac
	echo "the kernel now gives other numbers than $1 (new kernel? rerun with --record):"
	diff "$1" "$2" | head -10
	return 1
}

pq_cases "$@" >"$W/cases"
while read -r name tmpl capspec prio flags; do
	T0=$(date +%s.%N)
	D=$W/$name
	mkdir -p "$D"
	secs=0.0
	if ! cap=$(pq_capture "$capspec" "$W"); then
		fail "capture $cap is missing"
		continue
	fi
	set -- --pad-to-orig
	if [ "$prio" = tos ]; then set -- "$@" --prio-from-tos; else set -- "$@" --priority "$prio"; fi
	pq_has_flag "$flags" filters && set -- "$@" --show-filters
	pps=$(pq_flag_value "$flags" pps)
	[ -n "$pps" ] && set -- "$@" --pps "$pps"
	mtu=$(pq_flag_value "$flags" mtu)
	[ -n "$mtu" ] && set -- "$@" --mtu "$mtu"
	mark=$(pq_flag_value "$flags" mark)
	[ -n "$mark" ] && set -- "$@" --mark "$mark"
	bash "$ORACLE" "$PQ_DATA/$tmpl" "$cap" "$@" >"$D/oracle.out" 2>"$D/oracle.err" </dev/null
	orc=$?
	kt=$(pq_elapsed "$T0")
	inj=$(sed -n 's/^qemu-oracle: inject: //p' "$D/oracle.err")

	# ---- the kernel refuses the script
	if pq_has_flag "$flags" fail; then
		if [ $orc -ne 3 ]; then
			secs=$kt fail "the kernel was expected to refuse the tc script, but qemu-oracle exited $orc"
			continue
		fi
		{ echo "# the kernel refused the tc script (qemu-oracle exit 3):"
		  sed -n 's/^qemu-oracle: tc script: //p' "$D/oracle.err"; } >"$D/expect"
		if ! why=$(check_record "$PQ_DATA/$name.expect" "$D/expect" text); then
			secs=$kt fail "$why"
			continue
		fi
		kmsg=$(sed -n '2p' "$D/expect")
		if [ $KONLY = 1 ]; then
			secs=$kt pass "kernel refuses: $kmsg"
			continue
		fi
		pq_tcsim "$tmpl" "$cap" "$prio" "$D" "$flags"
		trc=$?
		secs=$(pq_elapsed "$T0")
		if [ $trc -eq 0 ] || [ $trc -gt 125 ]; then
			fail "kernel refuses the script ($kmsg); tcsim exited $trc"
		else
			pass "both refuse: kernel '$kmsg'; tcsim '$(head -1 "$D/tcsim.err")'"
		fi
		continue
	fi

	# ---- the kernel's numbers
	if [ $orc -ne 0 ]; then
		secs=$kt fail "qemu-oracle exited $orc: $(grep -v '^qemu-oracle: \(booting\|guest\|base\|building\)' "$D/oracle.err" | tail -3 | tr '\n' ' ')"
		continue
	fi
	if pq_has_flag "$flags" shaping && ! grep -q "every qdisc backlog drained" "$D/oracle.err"; then
		# the counts are final only once every queue is empty
		secs=$kt fail "the backlog did not drain: $(grep -i warning "$D/oracle.err" | head -2 | tr "\n" " ")"
		continue
	fi
	pq_expect "$flags" "$D/oracle.out" >"$D/expect"
	pq_kcounts "$flags" "$D/expect" >"$D/kernel.c"
	if ! why=$(check_record "$PQ_DATA/$name.expect" "$D/expect" counts "$flags"); then
		secs=$kt fail "$why"
		continue
	fi
	if pq_has_flag "$flags" filters; then
		pq_section filter "$D/oracle.out" >"$D/filters"
		if ! why=$(check_record "$PQ_DATA/$name.filters" "$D/filters" text); then
			secs=$kt fail "$why"
			continue
		fi
	fi
	if [ $KONLY = 1 ]; then
		secs=$kt pass "kernel $(pq_ccompare "$flags" "$D/kernel.c" "$D/kernel.c") [inject: $inj]"
		continue
	fi

	# ---- tcsim's numbers
	pq_tcsim "$tmpl" "$cap" "$prio" "$D" "$flags"
	trc=$?
	secs=$(pq_elapsed "$T0")
	if [ $trc -ne 0 ]; then
		fail "tcsim exited $trc: $(head -3 "$D/tcsim.err" | tr '\n' ' ')"
		continue
	fi
	pq_tcounts "$flags" "$D" >"$D/tcsim.c"
	if ! res=$(pq_ccompare "$flags" "$D/kernel.c" "$D/tcsim.c"); then
		fail "$res"
		continue
	fi
	if pq_has_flag "$flags" filters; then
		if ! pq_tcsim_filters "$tmpl" "$cap" "$D"; then
			fail "counts agree, but tcsim's tc filter show failed: $(head -2 "$D/tcsim_f.err" | tr '\n' ' ')"
			continue
		fi
		pq_filter_text "$D/filters" >"$D/kfilters"
		if ! cmp -s "$D/kfilters" "$D/tcsim.filters"; then
			fail "counts agree, but tc filter show differs (< kernel, > tcsim):"
			diff "$D/kfilters" "$D/tcsim.filters" | grep '^[<>]' | cut -c1-120
			continue
		fi
		res="$res; filters (pref->flowid) $(pq_filters "$D/filters")"
	fi
	pass "$res (kernel ${kt} s)"
done <"$W/cases"

echo "prio_oracle: $passed passed, $failed failed ($(pq_elapsed "$T_ALL") s)"
[ $failed -eq 0 ]
