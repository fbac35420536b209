#!/bin/sh
# kernel_check_diff.sh - differential test of tcsim's classic BPF checker against the running kernel's cls_bpf (via tc).
#
# Loads every program of tests/data/checker_cases.txt and a few hundred from
# bpfgen into a cls_bpf filter on an htb qdisc of a veth inside a private,
# throw-away network namespace (links stay down: nothing is ever sent), and
# compares the kernel's accept/reject with `$TCSIM bpf check -b`.
# Exit 0: no mismatch; 1: mismatches; 77: cannot run here (SKIP).
# Environment: TCSIM (default ./tcsim), BUILD (default ./build) or BPFGEN
# (default $BUILD/tools/bpfgen), CASES, KCHK_ANY/KCHK_VALID/KCHK_BIG (counts).

TCSIM=${TCSIM:-./tcsim}
BUILD=${BUILD:-./build}
BPFGEN=${BPFGEN:-$BUILD/tools/bpfgen}
HERE=$(cd "$(dirname "$0")" && pwd)
CASES=${CASES:-$HERE/../data/checker_cases.txt}
KCHK_ANY=${KCHK_ANY:-400}
KCHK_VALID=${KCHK_VALID:-100}
KCHK_BIG=${KCHK_BIG:-40}

NS=tcsim-kchk-$$
DEV=kchk0
PEER=kchk1
TMP=

. "$HERE/lib.sh"

kt_root
command -v tc >/dev/null 2>&1 || skip "tc (iproute2) not installed"
command -v ip >/dev/null 2>&1 || skip "ip (iproute2) not installed"
[ -r "$CASES" ] || { echo "FAIL: cannot read $CASES"; exit 1; }
[ -x "$TCSIM" ] || { echo "FAIL: tcsim binary '$TCSIM' not found (set TCSIM)"; exit 1; }

kt_modprobe cls_bpf sch_htb veth

kt_tmp

kt_netns "$NS" || skip "cannot create a network namespace"
kt_veth "$NS" "$DEV" "$PEER" || skip "cannot create a veth pair"
nsx tc qdisc add dev "$DEV" root handle 1: htb 2>/dev/null || skip "kernel lacks sch_htb"
nsx tc class add dev "$DEV" parent 1: classid 1:1 htb rate 1mbit 2>/dev/null ||
	skip "cannot add an htb class"
nsx tc filter add dev "$DEV" parent 1: bpf bytecode "1,6 0 0 0" flowid 1:1 2>/dev/null ||
	skip "kernel lacks cls_bpf (or tc lacks bpf)"
nsx tc filter del dev "$DEV" parent 1: 2>/dev/null

total=0 kacc=0 krej=0 untestable=0 mism=0 tcerr=0 tablebad=0

# kernel_verdict BYTECODE: sets kv to accept, reject, big (tc cannot send it)
# or tcerr (tc failed without a kernel answer); kmsg to tc's message.
kernel_verdict() {
	if nsx tc filter add dev "$DEV" parent 1: bpf bytecode "$1" flowid 1:1 \
		>/dev/null 2>"$TMP/k"; then
		kv=accept
		nsx tc filter del dev "$DEV" parent 1: 2>/dev/null
	elif grep -q 'exceeded bound' "$TMP/k"; then
		kv=big
	elif grep -q 'Invalid argument' "$TMP/k"; then
		kv=reject
	else
		kv=tcerr
	fi
	kmsg=$(tr '\n' ' ' <"$TMP/k")
}

# tcsim_verdict BYTECODE: sets tv to accept or reject, tmsg to its message.
tcsim_verdict() {
	if "$TCSIM" bpf check -b "$1" >"$TMP/t" 2>&1; then
		tv=accept
	else
		tv=reject
	fi
	tmsg=$(head -c 300 "$TMP/t" | tr '\n' ' ')
}

# compare NAME EXPECTED BYTECODE (EXPECTED: accept, reject or "" if unknown)
compare() {
	total=$((total + 1))
	kernel_verdict "$3"
	case $kv in
	big)
		untestable=$((untestable + 1))
		return ;;
	tcerr)
		tcerr=$((tcerr + 1))
		echo "TCERR $1: tc failed without a kernel verdict: $kmsg: $3"
		return ;;
	accept) kacc=$((kacc + 1)) ;;
	reject) krej=$((krej + 1)) ;;
	esac
	if [ -n "$2" ] && [ "$2" != "$kv" ]; then
		tablebad=$((tablebad + 1))
		echo "TABLE $1: table says $2, kernel says $kv: $3"
	fi
	tcsim_verdict "$3"
	if [ "$tv" != "$kv" ]; then
		mism=$((mism + 1))
		echo "MISMATCH $1: kernel=$kv tcsim=$tv (tcsim: $tmsg): $3"
	fi
}

ncases=0
while IFS= read -r line || [ -n "$line" ]; do
	case $line in
	ACCEPT\ *) exp=accept ;;
	REJECT\ *) exp=reject ;;
	*) continue ;;
	esac
	rest=${line#* }
	name=${rest%% *}
	rest=${rest#* }
	[ "$exp" = reject ] && rest=${rest#* }
	ncases=$((ncases + 1))
	compare "case:$name" "$exp" "$rest"
done <"$CASES"

nrand=0
if [ -x "$BPFGEN" ]; then
	{
		"$BPFGEN" --any --seed 1 --count "$KCHK_ANY" --max 40
		"$BPFGEN" --valid --seed 2 --count "$KCHK_VALID" --max 64
		"$BPFGEN" --any --seed 3 --count "$KCHK_BIG" --max 400
	} >"$TMP/gen" || { echo "FAIL: $BPFGEN failed"; exit 1; }
	i=0
	while IFS= read -r bc; do
		i=$((i + 1))
		compare "gen:$i" "" "$bc"
	done <"$TMP/gen"
	nrand=$i
else
	echo "note: $BPFGEN not found; random programs skipped (build it or set BPFGEN)"
fi

echo "kernel_check_diff: $total programs ($ncases table cases, $nrand generated):" \
	"kernel accepted $kacc, rejected $krej, untestable through tc $untestable;" \
	"$mism mismatches, $tablebad table errors, $tcerr tc errors"
[ "$mism" -eq 0 ] && [ "$tablebad" -eq 0 ] && [ "$tcerr" -eq 0 ]
