#!/bin/sh
# pcapng_cli.sh - the capture files of --pcap-out (issue 16, items 7 and 8):
#  1. classic pcaps, now written by libpcap's pcap_dump, are byte for byte
#     those of the hand-written writer they replace (checksums recorded
#     with it), and so is `traffic:save`;
#  2. --pcap-format pcapng: one DEV-BAND.pcapng per band, whose blocks a
#     reader of our own walks (SHB, IDB with Ethernet, snaplen and
#     if_tsresol 9, one EPB per packet with its comment, lengths at both
#     ends), which libpcap (tcpdump) reads, and whose comments tshark
#     prints exactly as expected; the sent packets are the classic sent
#     pcap's, same stamps and bytes;
#  3. the same from a scenario (sim:outputs{pcap_format = "pcapng"});
#  4. bad words: one line, exit 2 (run) or a Lua error naming the key.
. tests/support/cli.sh
TC=scenarios/ssh_http.tc
CAPS="scenarios/captures/ssh_hydra.pcap scenarios/captures/http_wikipedia.pcap scenarios/captures/icmp_5_pings.pcap scenarios/captures/ssh_interactive.pcap"
RUN="run --tc $TC --rate 128kbit"

if ! command -v tcpdump >/dev/null 2>&1; then
	echo "pcapng_cli.sh: skipped: tcpdump is not installed"
	exit 77
fi

# 1. classic pcaps as the hand-written writer made them (sha256 recorded
# with it, before libpcap wrote them)
O=$T_TMP/classic
mkdir -p "$O"
$TCSIM $RUN --pcap-out "$O/a" $CAPS >/dev/null 2>&1 || bad "classic run: exit $?"
$TCSIM $RUN --pcap-epoch zero --pcap-out "$O/b" $CAPS >/dev/null 2>&1 || bad "classic run, epoch zero: exit $?"
printf 'local t = tcsim.traffic{ pps = 100, count = 20, proto = "udp", dport = 53, size = 80, seed = 7 }\nprint(t:save(arg[1]))\n' >"$T_TMP/save.lua"
$TCSIM "$T_TMP/save.lua" -- "$O/synth.pcap" >/dev/null 2>&1 || bad "traffic:save: exit $?"
(cd "$O" && sha256sum -c --quiet) <<'EOF' >"$T_TMP/sums" 2>&1 && ok || bad "classic pcap bytes differ from those of the hand-written writer (or the simulation changed): $(cat "$T_TMP/sums")"
3f9242134b10300c3d4e058760f8e30600f5a6f5a111820eb12afd58fbf4e0e9  a/eth0-1_1-dropped.pcap
97712a85e900da20ec2cb4a4bd2e89cfbcb000e203883d6b3148fff7284d882d  a/eth0-1_1-sent.pcap
731cf077aa2a3b3ce4bcfd11ad7ef947cb401df5f9c4dc120539d848694a39bf  a/eth0-1_2-dropped.pcap
36ff12c299c5bcf0012d11e2d039fe03b5032cd5e9f905756f9508ac16ff0fa6  a/eth0-1_2-sent.pcap
731cf077aa2a3b3ce4bcfd11ad7ef947cb401df5f9c4dc120539d848694a39bf  a/eth0-1_3-dropped.pcap
a815c5ecf0d4b2023dea137397dd69b3ca8278f00f83fe3c84ae69ced98f148a  a/eth0-1_3-sent.pcap
317bfe124a1c65ba673dbdab1dfff4dba326a0427932fa0094b212572153b4d7  b/eth0-1_1-dropped.pcap
e8be986c73b31efe72cdb78519ebae676a2c07c930af4c6955690aeede6d0c32  b/eth0-1_1-sent.pcap
b2aa58db39ca29d8fa5d37e61f7e6eace60871761c6f14b5b6ff7db311076479  b/eth0-1_2-sent.pcap
3e6b0a6e6322016430c490f08d4452fa85736dbb13b4a0d7e1dc9c8030941cca  b/eth0-1_3-sent.pcap
5a9c7ab24e5ed9f2557fa5a12c32861e9fbc4ae30130e897157a4ac2dd84e525  synth.pcap
EOF
# an offloaded VLAN tag put back in the frame (captures in ../shared)
if have_shared; then
	$TCSIM run --quiet --tc $TC --rate 1mbit --pcap-out "$O/v" "$SHARED/pcaps/vlan_8021q_x11.pcap" \
		"$SHARED/pcaps/vlan_qinq_8021ad_arp.pcap" >/dev/null 2>&1 || bad "vlan run: exit $?"
	(cd "$O" && sha256sum -c --quiet) <<'EOF' >"$T_TMP/sums" 2>&1 && ok || bad "classic vlan pcap bytes changed: $(cat "$T_TMP/sums")"
eb4d5ed8a4e27f3548d49ba557ea6347b4d442808f6150010629b29a4dca42b1  v/eth0-1_1-sent.pcap
bdfe633fd4f428a0cc49f2cd6e4ecd442dc7da221ee9a90be89090ebb76e4706  v/eth0-1_3-sent.pcap
EOF
else
	echo "pcapng_cli.sh: $SHARED/pcaps is absent: the VLAN bytes check is skipped"
fi

# ng_walk FILE: walks a little-endian pcapng block by block and prints
#   shb MAJOR.MINOR userappl=TEXT
#   idb linktype=L snaplen=S name=N desc=D tsresol=R
#   epb ts=NS caplen=C len=L flags=F comment=TEXT     (one per packet)
#   bad WHY                                           (and stops)
ng_walk() {
	od -An -v -tu1 "$1" | awk '
	{ for (i = 1; i <= NF; i++) b[n++] = $i }
	function u16(o) { return b[o] + 256 * b[o + 1] }
	function u32(o) { return u16(o) + 65536 * u16(o + 2) }
	function str(o, l,   s, i) { s = ""; for (i = 0; i < l; i++) s = s sprintf("%c", b[o + i]); return s }
	# options from o to e: sets opt[code] (text, or the first u32 / u8)
	function opts(o, e,   c, l) {
		delete opt
		while (o + 4 <= e) {
			c = u16(o); l = u16(o + 2)
			if (c == 0) return l == 0
			if (o + 4 + l > e) return 0
			opt[c] = str(o + 4, l); optn[c] = l == 4 ? u32(o + 4) : b[o + 4]
			o += 4 + l + (4 - l % 4) % 4
		}
		return 0
	}
	END {
		if (n < 28 || u32(0) != 168627466 || u32(8) != 439041101) { print "bad no little-endian SHB first"; exit }
		for (o = 0; o < n; o += len) {
			t = u32(o); len = u32(o + 4)
			if (len < 12 || len % 4 || o + len > n || u32(o + len - 4) != len) { print "bad block at " o ": length " len; exit }
			if (t == 168627466) {
				if (!opts(o + 24, o + len - 4)) { print "bad SHB options"; exit }
				print "shb " u16(o + 12) "." u16(o + 14) " userappl=" opt[4]
			} else if (t == 1) {
				if (!opts(o + 16, o + len - 4)) { print "bad IDB options"; exit }
				print "idb linktype=" u16(o + 8) " snaplen=" u32(o + 12) " name=" opt[2] " desc=" opt[3] " tsresol=" optn[9]
			} else if (t == 6) {
				cl = u32(o + 20)
				if (u32(o + 8) != 0) { print "bad EPB interface " u32(o + 8); exit }
				if (!opts(o + 28 + cl + (4 - cl % 4) % 4, o + len - 4)) { print "bad EPB options at " o; exit }
				# 64-bit ns exactly in doubles (2^53): hi * 2^32 + lo as s * 1e9 + L, with
				# 2^32 = 4e9 + 294967296 and hi = h1 * 1e4 + h0
				hi = u32(o + 12); h0 = hi % 10000; p = (hi - h0) / 10000 * 294967296
				L = (p % 100000) * 10000 + h0 * 294967296 + u32(o + 16)
				s = hi * 4 + int(p / 100000) + int(L / 1e9); a = L
				printf "epb ts=%s caplen=%d len=%d flags=%d comment=%s\n", (s ? sprintf("%.0f%09.0f", s, a % 1e9) : sprintf("%.0f", a % 1e9)), cl, u32(o + 24), optn[2], opt[1]
			} else { print "bad block type " t; exit }
		}
	}'
}

# 2. pcapng: a small exact case, then the big run against the report
P=scenarios/captures/icmp_5_pings.pcap
printf 'tc qdisc add dev eth0 root handle 1: prio\ntc qdisc add dev eth0 parent 1:2 handle 20: pfifo limit 2\ntc filter add dev eth0 parent 1: pref 5 bpf asm-file %s/scenarios/filters/icmp.ops flowid 1:2\n' "$PWD" >"$T_TMP/p.tc"
O=$T_TMP/ng
mkdir -p "$O"
$TCSIM run --tc "$T_TMP/p.tc" --rate 1mbit --delay 1ms --topspeed --pcap-format pcapng --pcap-out "$O/s" $P >/dev/null 2>"$T_TMP/err" || bad "pcapng run: exit $?: $(cat "$T_TMP/err")"
n=$(ls -A "$O/s" | tr '\n' ' ')
[ "$n" = "eth0-1_1.pcapng eth0-1_2.pcapng eth0-1_3.pcapng " ] && ok || bad "pcapng files: $n"
ng_walk "$O/s/eth0-1_2.pcapng" >"$T_TMP/walk"
cat >"$T_TMP/want" <<'EOF'
shb 1.0 userappl=tcsim
idb linktype=1 snaplen=262144 name=eth0 desc=eth0 band 1:2 tsresol=9
epb ts=1607454603986596000 caplen=98 len=98 flags=2 comment=dropped band=1:2 packet=1:4 id=4 verdict=filter classid=1:2 pref=5 handle=0x1 reason=limit queue_ns=0
epb ts=1607454603986596000 caplen=98 len=98 flags=2 comment=dropped band=1:2 packet=1:5 id=5 verdict=filter classid=1:2 pref=5 handle=0x1 reason=limit queue_ns=0
epb ts=1607454603986596000 caplen=98 len=98 flags=2 comment=dropped band=1:2 packet=1:6 id=6 verdict=filter classid=1:2 pref=5 handle=0x1 reason=limit queue_ns=0
epb ts=1607454603986596000 caplen=98 len=98 flags=2 comment=dropped band=1:2 packet=1:7 id=7 verdict=filter classid=1:2 pref=5 handle=0x1 reason=limit queue_ns=0
epb ts=1607454603986596000 caplen=98 len=98 flags=2 comment=dropped band=1:2 packet=1:8 id=8 verdict=filter classid=1:2 pref=5 handle=0x1 reason=limit queue_ns=0
epb ts=1607454603986596000 caplen=98 len=98 flags=2 comment=dropped band=1:2 packet=1:9 id=9 verdict=filter classid=1:2 pref=5 handle=0x1 reason=limit queue_ns=0
epb ts=1607454603986596000 caplen=98 len=98 flags=2 comment=dropped band=1:2 packet=1:10 id=10 verdict=filter classid=1:2 pref=5 handle=0x1 reason=limit queue_ns=0
epb ts=1607454603988380000 caplen=98 len=98 flags=2 comment=sent band=1:2 packet=1:1 id=1 verdict=filter classid=1:2 pref=5 handle=0x1 queue_ns=0 total_ns=1784000
epb ts=1607454603989164000 caplen=98 len=98 flags=2 comment=sent band=1:2 packet=1:2 id=2 verdict=filter classid=1:2 pref=5 handle=0x1 queue_ns=784000 total_ns=2568000
epb ts=1607454603989948000 caplen=98 len=98 flags=2 comment=sent band=1:2 packet=1:3 id=3 verdict=filter classid=1:2 pref=5 handle=0x1 queue_ns=1568000 total_ns=3352000
EOF
if cmp -s "$T_TMP/want" "$T_TMP/walk"; then ok; else bad "pcapng blocks differ"; diff "$T_TMP/want" "$T_TMP/walk" | head; fi
ng_walk "$O/s/eth0-1_1.pcapng" >"$T_TMP/walk"
printf 'shb 1.0 userappl=tcsim\nidb linktype=1 snaplen=262144 name=eth0 desc=eth0 band 1:1 tsresol=9\n' | cmp -s - "$T_TMP/walk" && ok || bad "an empty band's pcapng: $(cat "$T_TMP/walk")"
# a classless root: band "root", no verdict; --pcap-epoch zero
printf 'tc qdisc add dev eth0 root pfifo limit 3\n' >"$T_TMP/f.tc"
$TCSIM run --tc "$T_TMP/f.tc" --rate 1mbit --topspeed --limit 4 --pcap-epoch zero --pcap-format pcapng --pcap-out "$O/f" $P >/dev/null 2>&1 || bad "pfifo pcapng run: exit $?"
ng_walk "$O/f/eth0-root.pcapng" | grep '^epb' | cut -d' ' -f2,6- >"$T_TMP/walk"
cat >"$T_TMP/want" <<'EOF'
ts=784000 comment=sent band=root packet=1:1 id=1 verdict=none queue_ns=0 total_ns=784000
ts=1568000 comment=sent band=root packet=1:2 id=2 verdict=none queue_ns=784000 total_ns=1568000
ts=2352000 comment=sent band=root packet=1:3 id=3 verdict=none queue_ns=1568000 total_ns=2352000
ts=3136000 comment=sent band=root packet=1:4 id=4 verdict=none queue_ns=2352000 total_ns=3136000
EOF
if cmp -s "$T_TMP/want" "$T_TMP/walk"; then ok; else bad "pfifo pcapng differs"; diff "$T_TMP/want" "$T_TMP/walk" | head; fi

# the big run: per band, as many sent and dropped comments as the report's
# class row says, every block sound, libpcap reads them all
$TCSIM $RUN --pcap-format pcapng --pcap-out "$O/big" $CAPS >"$T_TMP/out.txt" 2>&1 || bad "big pcapng run: exit $?"
for f in 1_1 1_2 1_3; do
	cls=$(echo $f | tr _ :)
	row=$(awk -v c="$cls" '$1 == c && NF > 5 && $2 ~ /^[0-9]+$/ { print $2, $4; exit }' "$T_TMP/out.txt")
	ng_walk "$O/big/eth0-$f.pcapng" >"$T_TMP/walk"
	grep -q '^bad' "$T_TMP/walk" && bad "eth0-$f.pcapng: $(grep '^bad' "$T_TMP/walk")"
	got="$(grep -c 'comment=sent band='"$cls"' ' "$T_TMP/walk") $(grep -c 'comment=dropped band='"$cls"' .*reason=' "$T_TMP/walk")"
	[ -n "$row" ] && [ "$got" = "$row" ] && ok || bad "eth0-$f.pcapng: sent, dropped $got; report says '$row'"
	all=$(grep -c '^epb' "$T_TMP/walk")
	n=$(tcpdump -nn -r "$O/big/eth0-$f.pcapng" 2>/dev/null | wc -l)
	[ "$n" -eq "$all" ] && ok || bad "eth0-$f.pcapng: libpcap reads $n packets of $all"
	# the sent packets are the classic file's: same stamps, same bytes
	grep 'comment=sent ' "$T_TMP/walk" | sed 's/^epb ts=\([0-9]*\) .*/\1/' >"$T_TMP/ng_ts"
	tcpdump -nn --nano -tt -r "$T_TMP/classic/a/eth0-$f-sent.pcap" 2>/dev/null | cut -d' ' -f1 | tr -d . >"$T_TMP/pc_ts"
	cmp -s "$T_TMP/ng_ts" "$T_TMP/pc_ts" && [ -s "$T_TMP/pc_ts" ] && ok || bad "eth0-$f.pcapng: sent stamps differ from the classic pcap's"
done
grep -q 'dropped band=1:1 .*reason=limit' "$O/big/eth0-1_1.pcapng" 2>/dev/null && ok || bad "the big run drops nothing in 1:1: drops are not exercised"

# tshark, the reader users have: the comments as frame.comment, the sent
# packets' bytes equal to the classic pcap's
if command -v tshark >/dev/null 2>&1; then
	tshark -r "$O/s/eth0-1_2.pcapng" -T fields -e frame.comment 2>/dev/null >"$T_TMP/ts"
	ng_walk "$O/s/eth0-1_2.pcapng" | sed -n 's/^epb .* comment=//p' | cmp -s - "$T_TMP/ts" && ok || bad "tshark's frame.comment: $(head -2 "$T_TMP/ts")"
	tshark -r "$O/big/eth0-1_1.pcapng" -Y 'frame.comment matches "^sent "' -F nsecpcap -w "$T_TMP/sent.pcap" 2>/dev/null
	tcpdump -nn --nano -tt -xx -r "$T_TMP/sent.pcap" 2>/dev/null >"$T_TMP/a.txt"
	tcpdump -nn --nano -tt -xx -r "$T_TMP/classic/a/eth0-1_1-sent.pcap" 2>/dev/null >"$T_TMP/b.txt"
	[ -s "$T_TMP/b.txt" ] && cmp -s "$T_TMP/a.txt" "$T_TMP/b.txt" && ok || bad "tshark's sent packets of 1:1 differ from the classic pcap's"
else
	echo "pcapng_cli.sh: tshark is not installed (Debian: tshark): the tshark checks are skipped"
fi

# 3. a scenario
cat >"$T_TMP/ng.lua" <<EOF
local sim = tcsim.sim{}
local eth0 = sim:dev("eth0", { rate = "1mbit" })
eth0:tc("qdisc add dev eth0 root pfifo limit 3")
sim:outputs{ pcap = "$O/lua", pcap_format = "pcapng" }
sim:replay("$PWD/$P", { topspeed = true, limit = 4 })
sim:run()
EOF
$TCSIM "$T_TMP/ng.lua" >/dev/null 2>"$T_TMP/err" || bad "scenario pcapng: exit $?: $(cat "$T_TMP/err")"
[ "$(ls -A "$O/lua")" = "eth0-root.pcapng" ] && [ "$(ng_walk "$O/lua/eth0-root.pcapng" | grep -c 'comment=sent band=root')" -eq 4 ] && ok || bad "scenario pcapng: $(ls -A "$O/lua")"
sed 's/pcap_format = "pcapng"/pcap_format = "ng"/' "$T_TMP/ng.lua" >"$T_TMP/bad.lua"
$TCSIM "$T_TMP/bad.lua" >/dev/null 2>"$T_TMP/err" && bad "pcap_format = ng accepted"
grep -q 'pcap_format is "pcap" or "pcapng", not "ng"' "$T_TMP/err" && ok || bad "pcap_format = ng: $(cat "$T_TMP/err")"
sed 's/pcap = "[^"]*", //' "$T_TMP/ng.lua" | sed 's/pcap_format = "pcapng"/pcap_format = "pcapng", plot = "'"$(echo "$O" | sed 's/[\/&]/\\&/g')"'\/plot"/' >"$T_TMP/bad.lua"
$TCSIM "$T_TMP/bad.lua" >/dev/null 2>"$T_TMP/err" && bad "pcap_format without pcap accepted"
grep -q 'pcap_format needs pcap = DIR' "$T_TMP/err" && ok || bad "pcap_format without pcap: $(cat "$T_TMP/err")"

# 4. bad words on the command line
expect_err "--pcap-format other" "--pcap-format 'ng': not a valid value" $TCSIM $RUN --pcap-out "$O/x" --pcap-format ng $P
expect_err "--pcap-format without --pcap-out" "--pcap-format needs --pcap-out DIR" $TCSIM $RUN --pcap-format pcapng $P
"$TCSIM" $RUN --pcap-format pcapng $P >/dev/null 2>&1; [ $? -eq 2 ] && ok || bad "--pcap-format without --pcap-out: not exit 2"
[ ! -e "$O/x" ] && ok || bad "a refused run left $O/x"
# a run that fails (a capture cut short) leaves no pcapng and no temporary directory
head -c 3000 scenarios/captures/ssh_hydra.pcap >"$T_TMP/cut.pcap"
mkdir -p "$O/fail"
$TCSIM $RUN --pcap-format pcapng --pcap-out "$O/fail" "$T_TMP/cut.pcap" >"$T_TMP/out" 2>"$T_TMP/err" && bad "a cut capture: exit 0"
[ -z "$(ls -A "$O/fail")" ] && [ ! -s "$T_TMP/out" ] && [ "$(wc -l <"$T_TMP/err")" -eq 1 ] && ok || bad "a failed pcapng run left: $(ls -A "$O/fail") $(cat "$T_TMP/err")"
finish
