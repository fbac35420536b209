#!/bin/sh
# run_cli.sh - `tcsim run` end to end, exact output:
#  1. golden reports (text and --json -) of small configurations over the
#     shipped capture and, when ../shared/pcaps is there, real captures;
#     every golden also passes the accounting identities (see check_sums);
#  2. determinism: the same command twice gives the same bytes, and
#     --json FILE writes what --json - prints;
#  3. the replay options change the results as tcpreplay's words say,
#     against numbers computed by hand from the capture's timestamps;
#  4. bad input: non-zero exit, one line on stderr naming the file (and
#     line and word, for tc scripts), nothing on stdout, no JSON file.
# The configurations live in tests/data/run/*.tc, the goldens beside them
# (NAME.txt, NAME.json). RUN_CLI_UPDATE=1 rewrites the goldens instead of
# comparing: read every number of a rewritten golden before keeping it.
. tests/support/cli.sh
D=tests/data/run
CAP=scenarios/captures/ssh_hydra.pcap
J=$T_TMP/json # where bad runs are told to write their JSON

# check_sums NAME FILE: the text report's identities: arrived = sent +
# dropped + queued + rejected; the class rows' packets add up to sent,
# their drops to dropped, their bytes to the root qdisc's Sent bytes; the
# verdicts add up to arrived - rejected.
check_sums() {
	cs=$(awk '
		/^ arrived / { a = $2; s = $4; d = $6; q = $8; r = $10 }
		/^qdisc / && !root { root = 1; want_sent = 1; next }
		want_sent && /^ Sent / { rb = $2; want_sent = 0 }
		/^class +packets/ { rows = 1; next }
		rows && NF == 0 { rows = 0 }
		rows { cp += $2; cb += $3; cd += $4 }
		/^verdicts:/ { for (i = 3; i <= NF; i += 2) { v = $i; sub(",", "", v); vs += v } }
		END {
			if (a != s + d + q + r) print "arrived " a " != sent " s " + dropped " d " + queued " q " + rejected " r
			if (cp != s) print "class packets " cp " != sent " s
			if (cd != d) print "class drops " cd " != dropped " d
			if (cb != rb) print "class bytes " cb " != root Sent " rb
			if (vs != a - r) print "verdicts " vs " != arrived " a " - rejected " r
		}' "$2")
	if [ -n "$cs" ]; then bad "$1: $(echo "$cs" | tr '\n' ';')"; else ok; fi
}

# golden NAME CAPTURE TCFILE [OPTION...]: the text report and the JSON of
# `tcsim run --tc $D/TCFILE OPTION... CAPTURE` equal $D/NAME.txt and
# $D/NAME.json; a second run gives the same bytes; --json FILE prints the
# same text and writes the same JSON.
golden() {
	g_name=$1 g_cap=$2 g_tc=$D/$3; shift 3
	if [ -n "$RUN_CLI_UPDATE" ]; then
		$TCSIM run --tc "$g_tc" "$@" "$g_cap" >"$D/$g_name.txt" &&
			$TCSIM run --tc "$g_tc" "$@" --json - "$g_cap" >"$D/$g_name.json" &&
			echo "wrote $D/$g_name.txt and .json: read them" || bad "$g_name: update failed"
		return
	fi
	expect_file "$g_name text" "$D/$g_name.txt" $TCSIM run --tc "$g_tc" "$@" "$g_cap"
	expect_file "$g_name json" "$D/$g_name.json" $TCSIM run --tc "$g_tc" "$@" --json - "$g_cap"
	check_sums "$g_name sums" "$D/$g_name.txt"
	if command -v jq >/dev/null 2>&1; then
		if jq -e '.devices[0].totals' "$D/$g_name.json" >/dev/null 2>&1; then ok; else bad "$g_name.json: not JSON to jq"; fi
	fi
	# determinism, and --json FILE: the text on stdout, the JSON in the file
	# (--quiet: a capture warning on stderr would mix into the comparison)
	$TCSIM run --quiet --tc "$g_tc" "$@" --json - "$g_cap" >"$T_TMP/g1.json" 2>&1
	$TCSIM run --quiet --tc "$g_tc" "$@" --json - "$g_cap" >"$T_TMP/g2.json" 2>&1
	if cmp -s "$T_TMP/g1.json" "$T_TMP/g2.json"; then ok; else bad "$g_name: two runs, different JSON"; fi
	$TCSIM run --quiet --tc "$g_tc" "$@" "$g_cap" >"$T_TMP/g1.txt" 2>&1
	$TCSIM run --quiet --tc "$g_tc" "$@" "$g_cap" >"$T_TMP/g2.txt" 2>&1
	if cmp -s "$T_TMP/g1.txt" "$T_TMP/g2.txt"; then ok; else bad "$g_name: two runs, different text"; fi
	rm -f "$T_TMP/g.json"
	$TCSIM run --quiet --tc "$g_tc" "$@" --json "$T_TMP/g.json" "$g_cap" >"$T_TMP/g3.txt" 2>&1
	if cmp -s "$T_TMP/g1.txt" "$T_TMP/g3.txt" && cmp -s "$T_TMP/g1.json" "$T_TMP/g.json"; then
		ok
	else
		bad "$g_name: --json FILE differs from the text and --json - outputs"
	fi
}

# --- 1, 2. goldens over the shipped capture (189 packets, 33259 bytes,
# 17.463338 s: an SSH brute force, 188 IPv4 SSH packets and one mDNS/IPv6)

# The seed commit's policy (seed.tc: catch-all added first, so consulted
# last) at 1mbit: SSH queues up to 128 ms in 1:1, the mDNS packet to 1:3.
golden seed_hydra $CAP seed.tc --rate 1mbit
# 3.13: cls_bpf's handles are 0x7fffffff, qdiscs listed in creation order,
# prio keeps no backlog bytes, sfq's flows are not symmetric.
golden seed_hydra_3.13 $CAP seed.tc --rate 1mbit --kernel 3.13
# Every packet at t = 0 at 10mbit: sfq 1:1 holds 127 of the 188 SSH
# packets, one is on the wire, 60 drop.
golden seed_hydra_topspeed $CAP seed.tc --topspeed
# pfifo limit 10 at 1mbit: 16 drops, 173 sent (a FIFO computed by hand
# from the timestamps agrees).
golden pfifo10_hydra $CAP pfifo10.tc --rate 1mbit
# prio with default pfifo children: priority 1:3 names band 1:3 directly,
# no filter consulted.
golden prio_0x10003_hydra $CAP prio.tc --rate 1mbit --priority 0x10003
# bfifo leaves: the server's 97 SSH packets to 1:1 (3000b: 4 drop), the
# other 92 by the priomap to 1:2 (1500b: 8 drop).
golden bfifo_hydra $CAP bfifo.tc --rate 1mbit
# --sfq-hash random: which flows share sfq's 8 buckets depends on the seed.
golden sfq_random_seed1 $CAP sfq_hash.tc --rate 1mbit --sfq-hash random --seed 1
golden sfq_random_seed2 $CAP sfq_hash.tc --rate 1mbit --sfq-hash random --seed 2
if [ -z "$RUN_CLI_UPDATE" ]; then
	# the seeds give different runs, not only a different "seed" line
	if [ "$(sed 1d $D/sfq_random_seed1.txt)" = "$(sed 1d $D/sfq_random_seed2.txt)" ]; then
		bad "--sfq-hash random: seeds 1 and 2 give the same report"
	else
		ok
	fi
	# the default (tuple) hash does not depend on the seed: only line 1 changes
	$TCSIM run --tc $D/sfq_hash.tc --rate 1mbit --seed 1 $CAP >"$T_TMP/s1.txt" 2>&1
	$TCSIM run --tc $D/sfq_hash.tc --rate 1mbit --seed 2 $CAP >"$T_TMP/s2.txt" 2>&1
	expect_out "tuple hash: seed changes only the first line" \
		"1c1
< tcsim: 1 device, 1 source, seed 1, kernel current, simulated 17.464194 s
---
> tcsim: 1 device, 1 source, seed 2, kernel current, simulated 17.464194 s" \
		sh -c "diff $T_TMP/s1.txt $T_TMP/s2.txt; true"
fi

# --- goldens over the shared collection
if have_shared; then
	P=$SHARED/pcaps
	# 2000 packets: 770 SSH (pref 49151), 10 ICMP (49150), 1220 other (49152)
	golden seed_lan_mixed $P/lan_mixed_ssh_dns_dhcp.pcap seed.tc --rate 1mbit
	# 136 packets: 78 HTTP to 1:2, 58 other to 1:3
	golden seed_wikipedia $P/http_wikipedia_mixed.pcap seed.tc --rate 1mbit
	# 389 of 395 frames tagged: offloaded, the 30 ICMP packets inside VLANs
	# reach the ICMP filter; inline, every filter sees 0x8100 and only the
	# catch-all matches, and each tagged frame is 4 bytes longer.
	golden seed_vlan_offload $P/vlan_8021q_x11.pcap seed.tc --rate 1mbit --vlan offload
	golden seed_vlan_inline $P/vlan_8021q_x11.pcap seed.tc --rate 1mbit --vlan inline
	if [ -z "$RUN_CLI_UPDATE" ]; then
		off=$(sed -n 's/.*"sent_bytes": \([0-9]*\), "dropped_bytes".*/\1/p' $D/seed_vlan_offload.json)
		inl=$(sed -n 's/.*"sent_bytes": \([0-9]*\), "dropped_bytes".*/\1/p' $D/seed_vlan_inline.json)
		expect_out "vlan inline carries 389 tags more" 1556 sh -c "echo \$(($inl - $off))"
	fi
else
	echo "skip: $SHARED/pcaps absent, shared-capture goldens not run"
fi
[ -n "$RUN_CLI_UPDATE" ] && { finish; exit; }

# --- 3. replay options, on pfifo.tc (limit 1000, nothing drops) at 10mbit.
# summary OPTION...: "time_ns arrived sent dropped sent_bytes" of the run.
summary() {
	$TCSIM run --tc $D/pfifo.tc --json - "$@" | awk '
		/^  "time_ns": / { t = $2; sub(",", "", t) }
		/"totals": / { gsub(/[{},]/, ""); print t, $3, $5, $7, $13 }'
}
# At the capture's pace the last packet (107 bytes) arrives at 17.463338 s
# and takes 85.6 us: 17463423600 ns.
expect_out "capture's pace" "17463423600 189 189 0 33259" summary $CAP
# --speed 2: gaps halved, 8.731669 s + 85.6 us
expect_out "--speed 2" "8731754600 189 189 0 33259" summary --speed 2 $CAP
# --pps 100: the 189th packet at 1.88 s
expect_out "--pps 100" "1880085600 189 189 0 33259" summary --pps 100 $CAP
# --mbps 1 as tcpreplay paces it: packet k > 1 leaves when the bytes of
# packets 1..k at 1 Mbit/s have elapsed: the last at 33259 * 8 us
expect_out "--mbps 1" "266157600 189 189 0 33259" summary --mbps 1 $CAP
# --topspeed: all at t = 0, the wire busy for 33259 bytes at 10mbit
expect_out "--topspeed" "26607200 189 189 0 33259" summary --topspeed $CAP
# --loop 2: the second pass starts where the first ends; arrived doubles
expect_out "--loop 2" "34926761600 378 378 0 66518" summary --loop 2 $CAP
# --limit 10: the first 10 packets (2908 bytes)
expect_out "--limit 10" "8151800 10 10 0 2908" summary --limit 10 $CAP
expect_out "--loop 3 --limit 10" "8151800 10 10 0 2908" summary --loop 3 --limit 10 $CAP
expect_out "--loop 0 --limit 10" "8151800 10 10 0 2908" summary --loop 0 --limit 10 $CAP
# --duration: packets 1..168 arrive before 0.764892 s, the next at 2.519180 s
expect_out "--duration 1s" "764965600 168 168 0 31432" summary --duration 1s $CAP
expect_out "--duration 2500ms" "764965600 168 168 0 31432" summary --duration 2500ms $CAP
expect_out "--duration 2520ms" "2519789800 170 170 0 31644" summary --duration 2520ms $CAP
# forever for 40 s: two passes (34.926676 s) and the 188 packets of the
# third that come within 5.073324 s
expect_out "--loop 0 --duration 40s" "37482225600 566 566 0 99670" summary --loop 0 --duration 40s $CAP
# two captures at once: the last two packets arrive together
expect_out "two captures" "17463509200 378 378 0 66518" summary $CAP $CAP

# --- 4. bad input
# bad_run NAME PATTERN ARGS...: `tcsim run --json $J/out.json ARGS...`
# fails as expect_err wants, and leaves nothing (nor a temporary) in $J.
bad_run() {
	b_name=$1 b_pat=$2; shift 2
	rm -rf "$J"
	mkdir "$J"
	expect_err "$b_name" "$b_pat" $TCSIM run --json "$J/out.json" "$@"
	if [ -n "$(ls -A "$J")" ]; then bad "$b_name: left $(ls -A "$J" | tr '\n' ' ')behind"; else ok; fi
}
# tcfile NAME TEXT: $T_TMP/NAME with TEXT (printf's escapes)
tcfile() { printf "$2" >"$T_TMP/$1"; }
OK=$D/pfifo.tc
PRIO='tc qdisc add dev eth0 root handle 1: prio\n'

tcfile obj.tc "# comment\ntc qdisk add dev eth0 root pfifo\n"
bad_run "unknown tc object" 'obj\.tc:2: .*"qdisk"' --tc "$T_TMP/obj.tc" $CAP
tcfile kw.tc "${PRIO}tc qdisc add dev eth0 parent 1:1 pfifo limit 10 frobnicate\n"
bad_run "unknown qdisc keyword" 'kw\.tc:2: .*"frobnicate"' --tc "$T_TMP/kw.tc" $CAP
tcfile kw2.tc "tc qdisc add dev eth0 root prio bogus 3\n"
bad_run "unknown prio keyword" 'kw2\.tc:1: .*"bogus"' --tc "$T_TMP/kw2.tc" $CAP
tcfile kind.tc "${PRIO}tc qdisc add dev eth0 parent 1:2 fq_wat\n"
bad_run "unknown qdisc kind" 'kind\.tc:2: .*"fq_wat"' --tc "$T_TMP/kind.tc" $CAP
tcfile handle.tc "tc qdisc add dev eth0 root handle xyz: prio\n"
bad_run "bad handle" 'handle\.tc:1: .*"xyz:"' --tc "$T_TMP/handle.tc" $CAP
tcfile parent.tc "${PRIO}tc qdisc add dev eth0 parent 2:1 sfq\n"
bad_run "unknown parent qdisc" 'parent\.tc:2: .*parent 2:1' --tc "$T_TMP/parent.tc" $CAP
tcfile class.tc "${PRIO}tc qdisc add dev eth0 parent 1:7 sfq\n"
bad_run "unknown parent class" 'class\.tc:2: .*1:7' --tc "$T_TMP/class.tc" $CAP
tcfile plim.tc "tc qdisc add dev eth0 root pfifo limit abc\n"
bad_run "pfifo limit abc" 'plim\.tc:1: .*"abc"' --tc "$T_TMP/plim.tc" $CAP
tcfile slim.tc "tc qdisc add dev eth0 root sfq limit 1\n"
bad_run "sfq limit 1" 'slim\.tc:1: .*"limit"' --tc "$T_TMP/slim.tc" $CAP
tcfile sdiv.tc "tc qdisc add dev eth0 root sfq divisor 1000\n"
bad_run "sfq divisor 1000" 'sdiv\.tc:1: .*divisor 1000' --tc "$T_TMP/sdiv.tc" $CAP
tcfile bands.tc "tc qdisc add dev eth0 root prio bands 17\n"
bad_run "prio bands 17" 'bands\.tc:1: .*bands 17' --tc "$T_TMP/bands.tc" $CAP
tcfile pmap.tc "tc qdisc add dev eth0 root prio bands 2 priomap 0 1 2 3\n"
bad_run "priomap out of bands" 'pmap\.tc:1: .*"priomap".*"2"' --tc "$T_TMP/pmap.tc" $CAP
tcfile filt.tc "tc qdisc add dev eth0 root handle 1: pfifo\ntc filter add dev eth0 parent 1: bpf bytecode \"1,6 0 0 0\" flowid 1:1\n"
bad_run "filter on a pfifo" 'filt\.tc:2: .*pfifo 1:' --tc "$T_TMP/filt.tc" $CAP
tcfile sub.tc 'tc filter add dev eth0 parent 1: bpf bytecode "`bpfc -f tc -i x.ops`" flowid 1:1\n'
bad_run "command substitution" 'sub\.tc:1: "`bpfc": tcsim runs no shell' --tc "$T_TMP/sub.tc" $CAP
tcfile empty.tc "# nothing\n"
bad_run "tc file without a device" 'empty\.tc: configures no device' --tc "$T_TMP/empty.tc" $CAP
bad_run "--dev not in the tc file" '--dev em9: .*pfifo\.tc configures no such device' --tc $OK --dev em9 $CAP
bad_run "missing tc file" 'nope\.tc' --tc "$T_TMP/nope.tc" $CAP
bad_run "missing capture" 'nope\.pcap' --tc $OK "$T_TMP/nope.pcap"
head -c 1000 $CAP >"$T_TMP/trunc.pcap"
bad_run "truncated capture" 'trunc\.pcap: packet [0-9]+:.*truncated' --tc $OK "$T_TMP/trunc.pcap"
bad_run "not a capture" 'README\.md: not a readable capture' --tc $OK README.md
# a little-endian pcap header, link type 105 (802.11), one 4-byte record
printf '\324\303\262\241\002\000\004\000\000\000\000\000\000\000\000\000\377\377\000\000\151\000\000\000' >"$T_TMP/wifi.pcap"
printf '\001\000\000\000\000\000\000\000\004\000\000\000\004\000\000\000\000\000\000\000' >>"$T_TMP/wifi.pcap"
bad_run "802.11 link type" 'wifi\.pcap: link type .*105' --tc $OK "$T_TMP/wifi.pcap"
bad_run "--rate 10foo" "--rate '10foo'" --tc $OK --rate 10foo $CAP
bad_run "--speed 0" "--speed '0'" --tc $OK --speed 0 $CAP
bad_run "--priority x" "--priority 'x'" --tc $OK --priority x $CAP
bad_run "--vlan bogus" "--vlan 'bogus'" --tc $OK --vlan bogus $CAP
bad_run "--kernel 4.0" "--kernel '4.0'" --tc $OK --kernel 4.0 $CAP
bad_run "--loop 0 alone" 'ssh_hydra\.pcap: loop 0' --tc $OK --loop 0 $CAP
# the JSON cannot be written: no report on stdout either
expect_err "unwritable --json" "--json $T_TMP/nodir/out\.json: " \
	$TCSIM run --json "$T_TMP/nodir/out.json" --tc $OK $CAP
if [ -e "$T_TMP/nodir" ]; then bad "unwritable --json: $T_TMP/nodir appeared"; else ok; fi
# --json -: stdout is the JSON alone, even when the tc script shows something
tcfile show.tc "tc qdisc add dev eth0 root pfifo\ntc qdisc show dev eth0\n"
expect_out "--json - with a tc show in the script: JSON only" "{" \
	sh -c "$TCSIM run --tc $T_TMP/show.tc --json - $CAP | head -1"

# --- the shared collection's broken captures
if have_shared; then
	bad_run "shared: truncated record" 'bad_record_len_truncated_eof\.pcap: packet 2:' \
		--tc $OK "$SHARED/pcaps/bad_record_len_truncated_eof.pcap"
	bad_run "shared: bad version" 'bad_file_version\.pcap: not a readable capture' \
		--tc $OK "$SHARED/pcaps/bad_file_version.pcap"
	bad_run "shared: bad pcapng block" 'bad_shb_option\.pcapng: not a readable capture' \
		--tc $OK "$SHARED/pcaps/bad_shb_option.pcapng"
fi
finish
