#!/bin/sh
# spill_cli.sh - a long fifo keeps its middle in a temporary file
# (base/pktspill.h), and that changes no result:
#  1. tcsim run through fifo-based trees and netem (a huge bfifo,
#     pfifo_head_drop, tbf's bfifo, htb's and prio's default pfifo leaves,
#     pfifo_fast, netem with rate, netem with jitter over a bfifo) with
#     a deep backlog: the report, --json, --tc-json, --trace and the pcap
#     and pcapng outputs are byte-identical with TCSIM_SPILL_AFTER=8 and
#     without it;
#  2. every shipped scenario with a golden: its printing and --json are
#     byte-identical with TCSIM_SPILL_AFTER=1;
#  3. they did spill: with TMPDIR naming no directory the same runs stop
#     with one line naming it and the errno, exit 1, no output file left;
#  4. the file is unlinked at once: a run leaves TMPDIR empty;
#  5. a full disk (a 1 MiB tmpfs, root with unshare -m; else skipped):
#     one line with ENOSPC's message, exit 1;
#  6. a bad TCSIM_SPILL_AFTER: exit 2, one line.
. tests/support/cli.sh
CAPS="scenarios/captures/http_wikipedia.pcap scenarios/captures/ssh_hydra.pcap"
RUNOPTS="--rate 10mbit --topspeed --loop 20"
SPILLDIR=$T_TMP/spilldir
mkdir -p "$SPILLDIR"

cat >"$T_TMP/bfifo.tc" <<'EOF'
tc qdisc add dev eth0 root bfifo limit 2000000000
EOF
cat >"$T_TMP/headdrop.tc" <<'EOF'
tc qdisc add dev eth0 root pfifo_head_drop limit 3000
EOF
cat >"$T_TMP/tbf.tc" <<'EOF'
tc qdisc add dev eth0 root tbf rate 4mbit burst 10kb limit 100mb
EOF
cat >"$T_TMP/htb.tc" <<'EOF'
tc qdisc add dev eth0 root handle 1: htb default 20
tc class add dev eth0 parent 1: classid 1:1 htb rate 8mbit
tc class add dev eth0 parent 1:1 classid 1:10 htb rate 2mbit ceil 8mbit
tc class add dev eth0 parent 1:1 classid 1:20 htb rate 6mbit ceil 8mbit
tc filter add dev eth0 parent 1: protocol ip bpf expr 'tcp port 22' flowid 1:10
EOF
cat >"$T_TMP/prio.tc" <<'EOF'
tc qdisc add dev eth0 root handle 1: prio
tc filter add dev eth0 parent 1: bpf expr 'tcp port 22' flowid 1:1
EOF
# netem as a long fat pipe: its tfifo's time-ordered list spills; with
# rate each packet's time follows the list's newest; with jitter some go
# to the tree, which stays in memory, beside a list that spills
cat >"$T_TMP/netem.tc" <<'EOF'
tc qdisc add dev eth0 root netem limit 1000000 delay 300ms rate 20mbit
EOF
cat >"$T_TMP/netemj.tc" <<'EOF'
tc qdisc add dev eth0 root handle 1: netem limit 1000000 delay 100ms 20ms
tc qdisc add dev eth0 parent 1:1 handle 10: bfifo limit 100mb
EOF
# pfifo_fast with a long transmit queue
cat >"$T_TMP/fast.tc" <<'EOF'
tc qdisc add dev eth0 root pfifo_fast
EOF

# run_all OUT-DIR TC [extra options]: every output of one run into OUT-DIR
run_all() {
	d=$1 tc=$2; shift 2
	mkdir -p "$d/pcap" "$d/pcapng"
	"$TCSIM" run --tc "$tc" $RUNOPTS "$@" --json "$d/json" --tc-json "$d/tcjson" \
		--trace "$d/trace" --pcap-out "$d/pcap" $CAPS >"$d/report" 2>"$d/err" &&
		"$TCSIM" run --tc "$tc" $RUNOPTS "$@" --pcap-out "$d/pcapng" --pcap-format pcapng \
			--quiet $CAPS >/dev/null 2>>"$d/err"
}

for t in bfifo headdrop tbf htb prio fast netem netemj; do
	extra=""
	[ $t = fast ] && extra="--txqueuelen 100000"
	if ! run_all "$T_TMP/$t.plain" "$T_TMP/$t.tc" $extra; then
		bad "$t: the run without spilling failed: $(head -3 "$T_TMP/$t.plain/err")"
		continue
	fi
	if ! TCSIM_SPILL_AFTER=8 TMPDIR=$SPILLDIR run_all "$T_TMP/$t.spill" "$T_TMP/$t.tc" $extra; then
		bad "$t: the run spilling after 8 packets failed: $(head -3 "$T_TMP/$t.spill/err")"
		continue
	fi
	if diff -r "$T_TMP/$t.plain" "$T_TMP/$t.spill" >"$T_TMP/diff"; then ok; else
		bad "$t: the outputs differ when the queue spills:"; head -10 "$T_TMP/diff"
	fi
	# a backlog deep enough to spill, and outputs that say something
	grep -q 'queue delay' "$T_TMP/$t.plain/report" && [ -s "$T_TMP/$t.plain/trace" ] &&
		[ "$(ls "$T_TMP/$t.plain/pcap" | wc -l)" -ge 1 ] && ok ||
		bad "$t: the outputs are empty"
	[ -z "$(ls -A "$SPILLDIR")" ] && ok || bad "$t: the spill file was left in TMPDIR: $(ls "$SPILLDIR")"
	# 3: it did spill (the file's directory is missing), and nothing is half-written
	mkdir -p "$T_TMP/$t.fail"
	expect_err "$t: no temporary directory" \
		"^tcsim: eth0: a queue of [0-9]+ packets cannot spill to its temporary file in $T_TMP/nodir: creating it: No such file or directory$" \
		env TCSIM_SPILL_AFTER=8 TMPDIR="$T_TMP/nodir" "$TCSIM" run --tc "$T_TMP/$t.tc" $RUNOPTS \
		$extra --json "$T_TMP/$t.fail/json" --pcap-out "$T_TMP/$t.fail" $CAPS
	[ "$rc" -eq 1 ] && ok || bad "$t: no temporary directory: exit $rc, wanted 1"
	[ -z "$(ls -A "$T_TMP/$t.fail")" ] && ok || bad "$t: a failed run left $(ls "$T_TMP/$t.fail")"
done
# the backlog the bfifo case reached is deep (thousands of packets)
grep -Eq 'backlog' "$T_TMP/bfifo.plain/tcjson" && ok || bad "bfifo: no backlog in --tc-json"

# 2: every scenario with a golden, spilling after one packet
for g in tests/golden/*.json; do
	n=$(basename "$g" .json)
	f=scenarios/$n.lua
	[ -f "$f" ] || continue
	"$TCSIM" "$f" --json "$T_TMP/$n.plain.json" >"$T_TMP/$n.plain.out" 2>&1
	r1=$?
	TCSIM_SPILL_AFTER=1 TMPDIR=$SPILLDIR "$TCSIM" "$f" --json "$T_TMP/$n.spill.json" \
		>"$T_TMP/$n.spill.out" 2>&1
	r2=$?
	if [ $r1 -ne 0 ] || [ $r2 -ne 0 ]; then
		bad "$n: exit $r1 / $r2 with spilling: $(head -3 "$T_TMP/$n.spill.out")"
	elif cmp -s "$T_TMP/$n.plain.json" "$T_TMP/$n.spill.json" &&
		cmp -s "$T_TMP/$n.plain.out" "$T_TMP/$n.spill.out"; then ok; else
		bad "$n: the results differ when queues spill"
		diff "$T_TMP/$n.plain.json" "$T_TMP/$n.spill.json" | head -10
	fi
done
# ... and the fifo-based ones did use the disk: without a directory they stop
for n in bufferbloat fw_marks htb_borrow htb_fq_codel htb_router starvation tbf_burst; do
	TCSIM_SPILL_AFTER=1 TMPDIR=$T_TMP/nodir "$TCSIM" scenarios/$n.lua --json "$T_TMP/$n.nodir.json" \
		>/dev/null 2>"$T_TMP/err"
	rc=$?
	if [ $rc -eq 1 ] && grep -q "cannot spill to its temporary file in $T_TMP/nodir: creating it: No such file or directory" "$T_TMP/err" &&
		[ ! -e "$T_TMP/$n.nodir.json" ]; then ok; else
		bad "$n: without a temporary directory: exit $rc, $(head -1 "$T_TMP/err")"
	fi
done
[ -z "$(ls -A "$SPILLDIR")" ] && ok || bad "scenarios left a spill file in TMPDIR: $(ls "$SPILLDIR")"

# 5: a full disk
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null 2>&1 &&
	unshare -m sh -c "mount -t tmpfs -o size=1m none '$SPILLDIR'" 2>/dev/null; then
	expect_err "a full disk" \
		"^tcsim: eth0: a queue of [0-9]+ packets cannot spill to its temporary file in $SPILLDIR: writing: No space left on device$" \
		unshare -m sh -c "mount -t tmpfs -o size=1m none '$SPILLDIR' && TCSIM_SPILL_AFTER=8 TMPDIR='$SPILLDIR' exec '$TCSIM' run --tc '$T_TMP/bfifo.tc' --rate 10mbit --topspeed --loop 40 $CAPS"
	[ "$rc" -eq 1 ] && ok || bad "a full disk: exit $rc, wanted 1"
else
	echo "spill_cli.sh: the full-disk case is skipped: it needs root and unshare -m to mount a small tmpfs"
fi

# 6: a bad knob
expect_err "TCSIM_SPILL_AFTER=lots" "^tcsim: TCSIM_SPILL_AFTER=lots: use a number of packets" \
	env TCSIM_SPILL_AFTER=lots "$TCSIM" run --tc "$T_TMP/bfifo.tc" $CAPS
[ "$rc" -eq 2 ] && ok || bad "TCSIM_SPILL_AFTER=lots: exit $rc, wanted 2"
finish
