#!/bin/sh
# mark_cli.sh - matchall and fw through `tcsim run`, exact output:
#  1. --mark rules (a mark for every packet, or per tcpdump expression,
#     first match wins) classify through fw filters and fw's old method,
#     matchall takes the rest; per-class counts, verdicts and filter hits
#     on the shipped capture and, when ../shared/pcaps is there, on a real
#     LAN capture (counts that tcpdump gives for the same expressions);
#  2. --trace names the kind and says why each filter matched or not;
#  3. refusals: bad --mark values and tc words, one line naming file:line.
. tests/support/cli.sh
D=tests/data/mark
CAP=scenarios/captures/ssh_hydra.pcap

# summary: the class counts, verdicts and filter hits of a text report
summary() { awk '/^class prio/ { c = $3 } /^ Sent / && c { print c, $4, $2; c = "" }
	/^verdicts:|^filter hits:/' "$1"; }

# counts NAME WANT TCFILE [OPTION...] CAPTURE: the summary of tcsim run
counts() {
	c_name=$1 c_want=$2 c_tc=$D/$3; shift 3
	if ! $TCSIM run --tc "$c_tc" "$@" >"$T_TMP/rep" 2>"$T_TMP/err"; then
		bad "$c_name: tcsim failed: $(cat "$T_TMP/err")"
		return
	fi
	got=$(summary "$T_TMP/rep")
	if [ "$got" != "$c_want" ]; then
		bad "$c_name: differs"; printf 'want:\n%s\ngot:\n%s\n' "$c_want" "$got"; return
	fi
	ok
}

# 14 SYNs to or from port 22 (tcpdump 'tcp port 22 and tcp[tcpflags] &
# tcp-syn != 0'), 174 other port 22 packets, 1 other (no mark: 1:4)
counts "rules, first match wins" "1:1 14 1036
1:2 174 32116
1:3 0 0
1:4 1 107
verdicts: 1:1 14, 1:2 174, unclassified 1
filter hits: pref 1 handle 0x16: 14, pref 2 handle 0x35: 174, pref 3 handle 0x1: 0" \
	mark.tc --mark 'tcp port 22 and tcp[tcpflags] & tcp-syn != 0=0x116' \
	--mark 'tcp port 22=0x35' $CAP
# a mark for all: 0x316 & 0xff = 0x16
counts "one mark for all" "1:1 189 33259
1:2 0 0
1:3 0 0
1:4 0 0
verdicts: 1:1 189
filter hits: pref 1 handle 0x16: 189, pref 2 handle 0x35: 0, pref 3 handle 0x1: 0" \
	mark.tc --mark 0x316 $CAP
# the old method: 0x10002 is 1:2 itself, 0x20001 names another qdisc
counts "old method" "1:1 0 0
1:2 14 1036
1:3 175 32223
verdicts: 1:2 14, 1:3 175
filter hits: pref 1 handle 0x0: 14, pref 2 handle 0x1: 175" \
	old.tc --mark 'tcp[tcpflags] & tcp-syn != 0=0x10002' --mark 0x20001 $CAP

if have_shared; then
	# lan_mixed: tcpdump counts 770 'tcp port 22' (0x116 -> 1:1), 66 'udp port
	# 53' (0x35 -> 1:2), 31 'arp' (matchall -> 1:3); the other 1133 unmarked
	L=$SHARED/pcaps/lan_mixed_ssh_dns_dhcp.pcap
	counts "lan_mixed" "1:1 770 164926
1:2 66 7171
1:3 31 1482
1:4 1133 134241
verdicts: 1:1 770, 1:2 66, 1:3 31, unclassified 1133
filter hits: pref 1 handle 0x16: 770, pref 2 handle 0x35: 66, pref 3 handle 0x1: 31" \
		mark.tc --mark 'tcp port 22=0x116' --mark 'udp port 53=0x35' --rate 100mbit "$L"
else
	echo "mark_cli: no $SHARED/pcaps: the real capture's case is skipped"
fi

# 2. the trace's filter lines of the first packets
# the first packet, a SYN, is marked 0x20001 (another qdisc's major: the
# old method passes it on to matchall); the second, a SYN-ACK, 0x10002 = 1:2
expect_out "trace" 'arrive len=74 caplen=74 proto=0x0800 priority=0 mark=0x20001 hdr="IP 192.168.1.2.49184 > 192.168.1.3.22: TCP [S] seq 4010549673 len 0"
filter qdisc=1: pref=1 proto=all kind=fw result=nomatch why="no fw filter at this pref, and mark 0x20001 names no class of the qdisc 1: (old method)"
filter qdisc=1: pref=2 proto=all kind=matchall handle=0x1 result=classid class=1:3 why="matchall takes every packet of its protocol"
arrive len=74 caplen=74 proto=0x0800 priority=0 mark=0x10002 hdr="IP 192.168.1.3.22 > 192.168.1.2.49184: TCP [S.] seq 3748329829 ack 4010549674 len 0"
filter qdisc=1: pref=1 proto=all kind=fw result=classid class=1:2 why="no fw filter at this pref: the old method takes mark 0x10002 as the classid (its major is 0 or the qdisc'"'"'s 1:)"' \
	sh -c "$TCSIM run --tc $D/old.tc --mark 'tcp[tcpflags] == tcp-syn=0x20001' --mark 'tcp[tcpflags] & tcp-syn != 0=0x10002' --limit 2 --trace - $CAP | sed -n 's/^[0-9]* eth0 #[0-9]* [0-9:]* \(\(filter\|arrive\) .*\)/\1/p'"
expect_out "trace fw table" 'filter qdisc=1: pref=1 proto=all kind=fw result=nomatch why="mark 0x35 & 0xff = 0x35 is no filter'"'"'s handle at this pref"
filter qdisc=1: pref=2 proto=all kind=fw handle=0x35 result=classid class=1:2 why="mark 0x35 & 0xffffffff = 0x35 is this filter'"'"'s handle"' \
	sh -c "$TCSIM run --tc $D/mark.tc --mark 0x35 --limit 1 --trace - $CAP | sed -n 's/^[0-9]* eth0 #[0-9]* [0-9:]* \(filter .*\)/\1/p'"

# 3. refusals
expect_err "mark not a number" "tcsim run: --mark: mark 'x1': not a number" \
	$TCSIM run --tc $D/mark.tc --mark x1 $CAP
expect_err "mark expression" "tcsim run: --mark: mark rule 'tcp prt 22': .*syntax error" \
	$TCSIM run --tc $D/mark.tc --mark 'tcp prt 22=5' $CAP
expect_err "mark too big" "mark rule 'udp=0x100000000': '0x100000000' after the last '=' is not a mark" \
	$TCSIM run --tc $D/mark.tc --mark 'udp=0x100000000' $CAP
tcfile() { printf "$2" >"$T_TMP/$1"; }
bad_tc() { # name, pattern, tc line
	tcfile bad.tc "tc qdisc add dev eth0 root handle 1: prio\n$3\n"
	expect_err "$1" "$2" $TCSIM run --tc "$T_TMP/bad.tc" $CAP
}
bad_tc "fw handle" 'bad\.tc:2: Illegal "handle"' \
	"tc filter add dev eth0 parent 1: handle 0x1x fw classid 1:1"
bad_tc "fw mask" 'bad\.tc:2: Illegal "handle" mask' \
	"tc filter add dev eth0 parent 1: handle 1/z fw classid 1:1"
bad_tc "fw indev" 'bad\.tc:2: fw: "indev eth1" is not modelled by tcsim' \
	"tc filter add dev eth0 parent 1: handle 1 fw indev eth1 classid 1:1"
bad_tc "fw police" 'bad\.tc:2: fw: "police" is not modelled by tcsim' \
	"tc filter add dev eth0 parent 1: handle 1 fw classid 1:1 police rate 1mbit burst 10k"
bad_tc "fw without handle" 'bad\.tc:2: RTNETLINK answers: Invalid argument \(fw: a filter needs a handle' \
	"tc filter add dev eth0 parent 1: fw classid 1:1"
bad_tc "matchall action" 'bad\.tc:2: matchall: "action" is not modelled by tcsim' \
	"tc filter add dev eth0 parent 1: matchall action drop"
bad_tc "matchall skip_sw" 'bad\.tc:2: RTNETLINK answers: Operation not supported' \
	"tc filter add dev eth0 parent 1: matchall skip_sw classid 1:1"
bad_tc "matchall twice" 'bad\.tc:3: RTNETLINK answers: File exists' \
	"tc filter add dev eth0 parent 1: pref 1 matchall classid 1:1
tc filter add dev eth0 parent 1: pref 1 matchall classid 1:2"
finish
