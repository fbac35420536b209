#!/bin/sh
# kernel_u32_diff.sh - differential test of tcsim's u32 classifier against
# the running kernel: the same `tc filter add ... u32` lines, named
# policies (LARTC's port, protocol, prefix, TCP flag and hashing recipes,
# IPv4 options behind nexthdr+ and eat, order; one summary line each) and
# chains from a seeded generator (selectors of every kind tc has, several prefs and protocols,
# explicit handles and orders, hash tables with link, hashkey, sample and
# the offset/eat machinery), on both sides; the counts per class must be
# equal, and so must `tc filter show`'s text of every filter.
#
# The kernel side is kernel_classify_diff.sh's: a private network namespace
# (IPv6 off before the links exist, ARP and multicast off), a veth pair,
# an htb root whose classes MAJ:1, :2, :3 and the default :99 only count,
# tcpreplay sending each capture out of one end, `tc -s class show`. tcsim
# runs the same lines under a prio root (`tcsim run --tc FILE --vlan inline
# --priority 0 --json`) and its verdicts are folded as htb folds classids.
# Left out of the generator: `match mark` (this VM's kernel is built without
# CONFIG_CLS_U32_MARK, so it ignores the mark; see the README) and offsets
# before the frame (the kernel would read its headroom).
#
# Exit 0: equal; 1: a mismatch or an error; 77: cannot run here (SKIP).
# Environment: TCSIM (default ./tcsim), PCAPS (default ../shared/pcaps next to
# the repository), KU32_SEED (default 14), KU32_CHAINS (default 10),
# KU32_LIMIT (packets per capture, default 2000), KU32_CAPTURES (file names),
# KU32_GEN_ONLY=1 (print the generated lines and stop). Chain 0 is written
# by hand; chains 1..KU32_CHAINS come from the generator.

TCSIM=${TCSIM:-./tcsim}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PCAPS=${PCAPS:-$ROOT/../shared/pcaps}
KU32_SEED=${KU32_SEED:-14}
KU32_CHAINS=${KU32_CHAINS:-10}
KU32_LIMIT=${KU32_LIMIT:-2000}
KU32_CAPTURES=${KU32_CAPTURES:-"lan_mixed_ssh_dns_dhcp.pcap vlan_8021q_x11.pcap
	ipv6_dns_ssh_icmpv6.pcap icmp_traceroute.pcapng http_wikipedia_mixed.pcap
	lan_windows_mixed_ipv6.pcap dns_heavy_cc_capture.pcap"}

NS=tcsim-ku32-$$
DEV=ku32a
PEER=ku32b
TMP=

. "$HERE/lib.sh"

[ -n "${KU32_GEN_ONLY:-}" ] || [ "$(id -u)" = 0 ] || skip "not root"
kt_tools tc ip tcpreplay awk sed
[ -d "$PCAPS" ] || skip "no captures at $PCAPS (set PCAPS; ../shared is not part of the repository)"
kt_tcsim

kt_tmp
START=$(date +%s)

# ---- the generator: $TMP/chain.N, one `filter add` line each (DEV for
# the device) ----

awk -v seed="$KU32_SEED" -v nchains="$KU32_CHAINS" -v dir="$TMP" '
function r(n) { return int(rand() * n) }
function pick(s,   a, n) { n = split(s, a, " "); return a[r(n) + 1] }
function v4() { return pick("192.168.1.2 192.168.1.3 10.0.0.1 172.16.133.2 172.217.11.78 192.168.0.1 10.0.2.15 8.8.8.8 255.255.255.255 224.0.0.251 192.168.56.1 " r(256) "." r(256) ".0.0") }
function v6() { return pick("2001:db8::1 fe80:: ff02::fb ff02::1 2001:470:e5bf:dead:4957:2174:e82c:4887 2001:470:e5bf:1001:1cc7:73ff:65f5:a2f7 ::") }
function plen(max) { return pick("0 8 16 24 32 " r(max + 1) " " max) }
function port() { return pick("22 53 80 443 6000 67 68 5353 137 138 546 520 " r(65536)) }
function mask16() { return pick("0xffff 0xff00 0x00ff 0xfff0 0 0x8000") }
function u8v() { return pick("0 1 2 6 8 17 58 0x45 0x60 0x10 " r(256)) }
# One selector: "match ..." words that tc takes (offsets the kernel reads
# inside the frame: nothing before the Ethernet header).
function sel(   k, o) {
	k = r(24)
	if (k == 0) return "match ip src " v4() "/" plen(32)
	if (k == 1) return "match ip dst " v4() "/" plen(32)
	if (k == 2) return "match ip protocol " pick("1 6 17 2 " r(256)) " 0xff"
	if (k == 3) return "match ip " pick("tos dsfield") " " u8v() " " pick("0xff 0xfc 0xe0 0")
	if (k == 4) return "match ip ihl " pick("5 6 0x5") " 0x0f"
	if (k == 5) return "match ip " pick("sport dport") " " port() " " mask16()
	if (k == 6) return "match ip " pick("nofrag firstfrag df mf")
	if (k == 7) return "match ip " pick("icmp_type icmp_code") " " pick("0 3 8 11 " r(256)) " 0xff"
	if (k == 8) return "match " pick("tcp udp") " " pick("src dst") " " port() " " mask16()
	if (k == 9) return "match icmp " pick("type code") " " pick("0 8 11 3") " 0xff"
	if (k == 10) return "match ip6 " pick("src dst") " " v6() "/" plen(128)
	if (k == 11) return "match ip6 protocol " pick("6 17 58 0") " 0xff"
	if (k == 12) return "match ip6 priority " r(256) " " pick("0xff 0x0f 0")
	if (k == 13) return "match ip6 flowlabel " r(1048576) " " pick("0x000fffff 0xffffffff 0")
	if (k == 14) return "match ip6 " pick("sport dport") " " port() " " mask16()
	if (k == 15) return "match ip6 " pick("icmp_type icmp_code") " " pick("128 129 135 136 1 0") " 0xff"
	if (k == 16) return "match u32 " pick("0 0x45000000 0x86dd0000 0x08004500 " r(4294967296)) " " pick("0 0xffffffff 0xff000000 0xf0000000 0x0000ffff 0x0f000000") " at " 4 * r(16)
	if (k == 17) { o = 2 * r(32); return "match u16 " pick("0 0x0800 0x86dd 22 53 80 0x4500") " " mask16() " at " o }
	if (k == 18) return "match u8 " u8v() " " pick("0xff 0xf0 0x0f 0x01 0") " at " r(64)
	if (k == 19) return "match ether " pick("src dst") " " pick("ff:ff:ff:ff:ff:ff 01:00:5e:00:00:fb 00:00:00:00:00:00 33:33:00:00:00:fb")
	if (k == 20) return "match u32 0 0 at " pick("nexthdr+0 nexthdr+4 nexthdr+8")
	if (k == 21) return "match u16 " port() " 0xffff at " pick("20 22 40 42 1460")
	if (k == 22) return "match u8 " u8v() " 0xff at nexthdr+" r(12)
	return "match u32 0 0 at " 4 * r(400)
}
function sels(   n, s, i) {
	n = 1 + r(3); s = ""
	for (i = 0; i < n; i++) s = s " " sel()
	return substr(s, 2)
}
function flow() { return "flowid 1:" pick("1 2 3 99 4") }
BEGIN {
	srand(seed)
	# chain 0, by hand: what random lines reach rarely
	f = dir "/chain.0"
	print "filter add dev DEV parent 1: pref 1 protocol all u32 match ether dst ff:ff:ff:ff:ff:ff flowid 1:1" >f
	print "filter add dev DEV parent 1: pref 2 protocol ip handle 801::5 u32 match ip protocol 6 0xff match tcp dst 80 0xffff flowid 1:2" >f
	print "filter add dev DEV parent 1: pref 2 protocol ip u32 ht 800:: match ip protocol 17 0xff flowid 1:3" >f
	print "filter add dev DEV parent 1: pref 3 protocol ip handle 1: u32 divisor 256" >f
	print "filter add dev DEV parent 1: pref 3 protocol ip u32 ht 1: sample ip dst 172.217.11.78/32 match ip dst 172.217.11.78/32 flowid 1:3" >f
	print "filter add dev DEV parent 1: pref 3 protocol ip u32 ht 1: sample ip dst 192.168.1.3/32 match u32 0 0 flowid 1:3" >f
	print "filter add dev DEV parent 1: pref 3 protocol ip u32 order 7 match u32 0 0 link 1: hashkey mask 0x000000ff at 16" >f
	print "filter add dev DEV parent 1: pref 4 protocol 802.1Q u32 match u16 0x0800 0xffff at -2 flowid 1:1" >f
	print "filter add dev DEV parent 1: pref 5 protocol ip handle 2: u32 divisor 1" >f
	print "filter add dev DEV parent 1: pref 5 protocol ip u32 ht 2: match tcp src 22 0xffff flowid 1:2" >f
	print "filter add dev DEV parent 1: pref 5 protocol ip u32 ht 2: match udp dst 53 0xffff flowid 1:3" >f
	print "filter add dev DEV parent 1: pref 5 protocol ip u32 match ip nofrag offset at 0 mask 0f00 shift 6 eat link 2: flowid 1:99" >f
	print "filter add dev DEV parent 1: pref 6 protocol ipv6 u32 match ip6 dst ff02::/16 match ip6 protocol 17 0xff match ip6 dport 5353 0xffff flowid 1:1" >f
	print "filter add dev DEV parent 1: pref 6 protocol ipv6 u32 match ip6 icmp_type 135 0xff match ip6 protocol 58 0xff flowid 1:2" >f
	for (c = 1; c <= nchains; c++) {
		f = dir "/chain." c
		split("", pp)
		nf = 3 + r(4)
		for (i = 0; i < nf; i++) {
			pref = pick("10 20 30 -")
			if (pref != "-" && !(pref in pp)) pp[pref] = pick("ip all ipv6 802.1Q ip all")
			proto = pref == "-" ? pick("ip all") : pp[pref]
			hd = pref == "-" ? "" : "pref " pref " "
			ex = ""
			if (pref != "-" && r(4) == 0) ex = "order " (1 + r(3)) " "
			printf "filter add dev DEV parent 1: %sprotocol %s u32 %s%s %s\n", hd, proto, ex, sels(), flow() >f
		}
		# every other chain: a hash table at its own pref, reached by a
		# link from the root, keyed by a byte of the packet or by the
		# transport header after the IPv4 header (ihl * 4)
		if (c % 2 == 0) {
			hp = 40 + c
			dv = pick("1 2 16 256")
			printf "filter add dev DEV parent 1: pref %d protocol all handle %x: u32 divisor %d\n", hp, c, dv >f
			nk = 2 + r(3)
			for (i = 0; i < nk; i++) {
				b = r(dv)
				if (r(3) == 0)
					printf "filter add dev DEV parent 1: pref %d protocol all u32 ht %x:%x: %s %s\n", hp, c, b, sels(), flow() >f
				else
					printf "filter add dev DEV parent 1: pref %d protocol all u32 ht %x: sample u8 %d 0xff at 0 divisor %d match u32 0 0 at nexthdr+%d %s\n", hp, c, r(256), dv, 4 * r(3), flow() >f
			}
			lk = r(3)
			if (lk == 0)
				printf "filter add dev DEV parent 1: pref %d protocol all u32 match ip protocol %s 0xff offset at 0 mask 0f00 shift 6 link %x: hashkey mask 0x%08x at %d\n", hp, pick("6 17 1"), c, pick("0x000000ff 0x0000ff00 0xff000000 0x00ff0000"), 4 * r(6) >f
			else if (lk == 1)
				printf "filter add dev DEV parent 1: pref %d protocol all u32 match u32 0 0 offset plus %d eat link %x: hashkey mask 0x000000ff at %d %s\n", hp, 4 * r(12), c, 4 * r(4), flow() >f
			else
				printf "filter add dev DEV parent 1: pref %d protocol all u32 match u8 %s 0xf0 at 0 offset at 0 mask 0f00 shift 6 eat link %x: hashkey mask 0x0000f000 at %d\n", hp, pick("0x40 0x60"), c, 4 * r(3) >f
		}
	}
}' || { echo "FAIL: the generator failed"; exit 1; }


# ---- the named policies: what people write (LARTC's cookbook and the
# like), each a chain of its own, reported on its own ----

POLICIES="lartc_ssh proto prefix tcpflags ipopts hash order"
cat >"$TMP/chain.lartc_ssh" <<'P'
filter add dev DEV parent 1: protocol ip prio 1 u32 match ip dport 22 0xffff flowid 1:1
filter add dev DEV parent 1: protocol ip prio 1 u32 match ip sport 22 0xffff flowid 1:2
filter add dev DEV parent 1: protocol ip prio 2 u32 match ip tos 0x10 0xff flowid 1:3
filter add dev DEV parent 1: protocol ipv6 prio 3 u32 match ip6 dport 22 0xffff flowid 1:1
P
cat >"$TMP/chain.proto" <<'P'
filter add dev DEV parent 1: protocol ip prio 1 u32 match ip protocol 6 0xff flowid 1:1
filter add dev DEV parent 1: protocol ip prio 1 u32 match ip protocol 17 0xff flowid 1:2
filter add dev DEV parent 1: protocol ip prio 1 u32 match ip protocol 1 0xff flowid 1:3
filter add dev DEV parent 1: protocol ipv6 prio 2 u32 match ip6 protocol 58 0xff flowid 1:3
P
cat >"$TMP/chain.prefix" <<'P'
filter add dev DEV parent 1: protocol ip prio 1 u32 match ip src 192.168.2.0/24 match ip dst 192.168.2.16/32 flowid 1:1
filter add dev DEV parent 1: protocol ip prio 1 u32 match ip dst 8.8.8.8/32 flowid 1:2
filter add dev DEV parent 1: protocol ip prio 2 u32 match ip src 10.0.0.0/255.0.0.0 flowid 1:3
filter add dev DEV parent 1: protocol ip prio 2 u32 match ip dst 224.0.0.0/4 flowid 1:3
filter add dev DEV parent 1: protocol ipv6 prio 3 u32 match ip6 src 2001:470::/32 flowid 1:1
P
# LARTC's flag lines read nexthdr+13 at the root, where no offset was
# computed yet: byte 13 of the IP header (so the kernel too); the table
# behind an offset link reads the real TCP flags
cat >"$TMP/chain.tcpflags" <<'P'
filter add dev DEV parent 1: protocol ip prio 1 u32 match ip protocol 6 0xff match u8 0x02 0x02 at nexthdr+13 flowid 1:1
filter add dev DEV parent 1: protocol ip prio 2 u32 match ip protocol 6 0xff match u8 0x05 0x0f at 0 match u16 0x0000 0xffc0 at 2 match u8 0x10 0xff at 33 flowid 1:3
filter add dev DEV parent 1: protocol ip prio 3 handle 7: u32 divisor 1
filter add dev DEV parent 1: protocol ip prio 3 u32 ht 7: match u8 0x02 0x02 at nexthdr+13 flowid 1:1
filter add dev DEV parent 1: protocol ip prio 3 u32 ht 7: match u8 0x10 0xff at nexthdr+13 flowid 1:2
filter add dev DEV parent 1: protocol ip prio 3 u32 match ip protocol 6 0xff offset at 0 mask 0f00 shift 6 link 7:
P
# IGMP reports carry a Router Alert option (ihl 6): nexthdr+ (after a
# link with an offset) and eat must find the transport header behind it
cat >"$TMP/chain.ipopts" <<'P'
filter add dev DEV parent 1: protocol ip prio 1 handle 5: u32 divisor 1
filter add dev DEV parent 1: protocol ip prio 1 u32 ht 5: match u8 0x22 0xff at nexthdr+0 flowid 1:1
filter add dev DEV parent 1: protocol ip prio 1 u32 ht 5: match tcp dst 22 0xffff flowid 1:3
filter add dev DEV parent 1: protocol ip prio 1 u32 match ip nofrag offset at 0 mask 0f00 shift 6 link 5:
filter add dev DEV parent 1: protocol ip prio 2 handle 6: u32 divisor 1
filter add dev DEV parent 1: protocol ip prio 2 u32 ht 6: match u16 53 0xffff at 2 flowid 1:2
filter add dev DEV parent 1: protocol ip prio 2 u32 ht 6: match u8 0x22 0xff at 0 flowid 1:1
filter add dev DEV parent 1: protocol ip prio 2 u32 match ip nofrag offset at 0 mask 0f00 shift 6 eat link 6:
P
# LARTC's hashing filters: a 256-bucket table keyed by the source's last
# byte; then a port table reached in two steps (eat the IP header, then
# hash the port word)
cat >"$TMP/chain.hash" <<'P'
filter add dev DEV parent 1: protocol ip prio 5 handle 2: u32 divisor 256
filter add dev DEV parent 1: protocol ip prio 5 u32 ht 2:10: match ip src 192.168.2.16/32 flowid 1:1
filter add dev DEV parent 1: protocol ip prio 5 u32 ht 2:1: match ip src 192.168.2.1/32 flowid 1:2
filter add dev DEV parent 1: protocol ip prio 5 u32 ht 2: sample ip src 8.8.8.8/32 match ip src 8.8.8.8/32 flowid 1:3
filter add dev DEV parent 1: protocol ip prio 5 u32 ht 800:: match ip src 0.0.0.0/0 hashkey mask 0x000000ff at 12 link 2:
filter add dev DEV parent 1: protocol ip prio 6 handle 3: u32 divisor 16
filter add dev DEV parent 1: protocol ip prio 6 handle 4: u32 divisor 1
filter add dev DEV parent 1: protocol ip prio 6 u32 ht 3:6: match tcp dst 22 0xffff flowid 1:1
filter add dev DEV parent 1: protocol ip prio 6 u32 ht 3:5: match udp dst 53 0xffff flowid 1:2
filter add dev DEV parent 1: protocol ip prio 6 u32 ht 3:0: match tcp dst 80 0xffff flowid 1:3
filter add dev DEV parent 1: protocol ip prio 6 u32 ht 4: match u32 0 0 hashkey mask 0x0000000f at 0 link 3:
filter add dev DEV parent 1: protocol ip prio 6 u32 match ip nofrag offset at 0 mask 0f00 shift 6 eat link 4:
P
# order and explicit node handles decide which of overlapping nodes of
# one bucket runs first
cat >"$TMP/chain.order" <<'P'
filter add dev DEV parent 1: protocol ip prio 10 u32 order 20 match ip protocol 17 0xff flowid 1:1
filter add dev DEV parent 1: protocol ip prio 10 u32 order 10 match ip dport 53 0xffff flowid 1:2
filter add dev DEV parent 1: protocol ip prio 10 u32 order 5 match ip src 192.168.2.0/24 flowid 1:3
filter add dev DEV parent 1: protocol ip prio 10 handle 800::7 u32 match ip protocol 6 0xff flowid 1:1
filter add dev DEV parent 1: protocol ip prio 10 u32 match ip protocol 1 0xff flowid 1:2
P
CHAINS="$POLICIES $(seq 0 "$KU32_CHAINS")"

if [ -n "${KU32_GEN_ONLY:-}" ]; then
	for c in $CHAINS; do
		echo "# chain $c"
		cat "$TMP/chain.$c"
	done
	exit 0
fi

kt_setup "$NS" "$DEV" "$PEER" "mtu 65535 txqueuelen 100000"
nsx tc qdisc add dev "$DEV" root handle 1: htb default 99 2>/dev/null || skip "kernel lacks sch_htb"
nsx tc filter add dev "$DEV" parent 1: protocol ip pref 1 u32 match u32 0 0 flowid 1:1 \
	2>/dev/null || skip "kernel lacks cls_u32"
nsx tc qdisc del dev "$DEV" root 2>/dev/null

# ---- the captures ----

CAPS=""
for cap in $KU32_CAPTURES; do
	if [ -r "$PCAPS/$cap" ]; then
		CAPS="$CAPS $cap"
	else
		echo "note: $cap: not in $PCAPS, left out"
	fi
done
[ -n "$CAPS" ] || skip "none of the captures is in $PCAPS"

# ---- one comparison ----

kernel_setup() {
	nsx tc qdisc del dev "$DEV" root 2>/dev/null
	{
		echo "qdisc add dev $DEV root handle 1: htb default 99"
		for cl in 1 2 3 99; do
			echo "class add dev $DEV parent 1: classid 1:$cl htb rate 100gbit ceil 100gbit"
			echo "qdisc add dev $DEV parent 1:$cl pfifo limit 100000"
		done
	} >"$TMP/k.setup"
	nsx tc -batch "$TMP/k.setup" >/dev/null 2>"$TMP/k.err"
}

kernel_counts() {
	kt_htb_drain "$DEV"
	nsx tc -s class show dev "$DEV" >"$TMP/kc"
	kdirect=$(sed -n 's/.*direct_packets_stat \([0-9]*\).*/\1/p' "$TMP/kq" | head -1)
	kcounts=$(awk -v d="${kdirect:-0}" '
		/^class htb/ {c = $3; next}
		/^ Sent/ && c != "" {n[c] = $4; c = ""}
		END {printf "1:1=%d 1:2=%d 1:3=%d 1:99=%d direct=%d", n["1:1"], n["1:2"], n["1:3"], n["1:99"], d}' "$TMP/kc")
}

# the verdicts of tcsim's JSON, folded as htb_classify() folds classids
tcsim_counts() {
	tr -d '\n' <"$1" | sed -n 's/.*"verdicts": {\([^}]*\)}.*/\1/p' | tr ',' '\n' |
		sed -n 's/^ *"\([^"]*\)": *\([0-9]*\) *$/\1 \2/p' | awk '
		{
			b = $1
			if (b == "1:") b = "direct"
			else if (b != "1:1" && b != "1:2" && b != "1:3") b = "1:99"
			n[b] += $2
		}
		END {printf "1:1=%d 1:2=%d 1:3=%d 1:99=%d direct=%d", n["1:1"], n["1:2"], n["1:3"], n["1:99"], n["direct"]}'
}

# ---- acceptance: the lines one by one; tc and the kernel must take or
# refuse each as tcsim does (a refusal naming its file:line); the chain
# keeps the lines both took ----

set -- $CAPS
FIRST=$PCAPS/$1
agree=0 refused=0 amism=0
for c in $CHAINS; do
	kernel_setup || { echo "ERROR    htb setup: $(tr '\n' ' ' <"$TMP/k.err")"; exit 1; }
	: >"$TMP/chain.$c.ok"
	while IFS= read -r line; do
		set -f
		# shellcheck disable=SC2046
		if nsx tc $(echo "$line" | sed "s/ DEV / $DEV /") >/dev/null 2>"$TMP/k.err"; then
			kok=1
		else
			kok=0
		fi
		set +f
		{
			echo "qdisc add dev eth0 root handle 1: prio bands 3"
			sed "s/ DEV / eth0 /" "$TMP/chain.$c.ok"
			echo "$line" | sed "s/ DEV / eth0 /"
		} >"$TMP/a.tc"
		ln=$(wc -l <"$TMP/a.tc")
		if "$TCSIM" run --tc "$TMP/a.tc" --limit 1 --json "$TMP/a.json" "$FIRST" >/dev/null 2>"$TMP/a.err"; then
			tok=1
		else
			tok=0
		fi
		if [ "$kok" != "$tok" ]; then
			amism=$((amism + 1))
			echo "MISMATCH chain $c: the kernel $([ $kok = 1 ] && echo took || echo refused), tcsim $([ $tok = 1 ] && echo took || echo refused): $line"
			echo "         kernel: $(tr '\n' ' ' <"$TMP/k.err")"
			echo "         tcsim:  $(head -c 300 "$TMP/a.err" | tr '\n' ' ')"
		elif [ "$kok" = 1 ]; then
			agree=$((agree + 1))
			echo "$line" >>"$TMP/chain.$c.ok"
		elif ! grep -q "a.tc:$ln:" "$TMP/a.err"; then
			amism=$((amism + 1))
			echo "MISMATCH chain $c: tcsim's refusal does not name a.tc:$ln: $(head -c 300 "$TMP/a.err" | tr '\n' ' ')"
		else
			agree=$((agree + 1)) refused=$((refused + 1))
			echo "refused  chain $c, by both: $(head -c 200 "$TMP/a.err" | tr '\n' ' ')"
		fi
	done <"$TMP/chain.$c"
done
echo "acceptance: $agree lines taken or refused alike ($refused refused by both), $amism mismatches"

total=0 mism=0 errors=0 pkts=0 nlines=0 nshow=0
: >"$TMP/sum"
for c in $CHAINS; do
	sed "s/ DEV / $DEV /" "$TMP/chain.$c.ok" >"$TMP/k.filters"
	nlines=$((nlines + $(wc -l <"$TMP/chain.$c.ok")))
	{
		echo "qdisc add dev eth0 root handle 1: prio bands 3"
		sed "s/ DEV / eth0 /" "$TMP/chain.$c.ok"
		echo "filter show dev eth0"
	} >"$TMP/t.tc"
	for cap in $CAPS; do
		total=$((total + 1))
		label=$(printf "chain %-9s %-34s" "$c" "$cap")
		if ! kernel_setup; then
			echo "ERROR    $label htb setup: $(tr '\n' ' ' <"$TMP/k.err")"
			errors=$((errors + 1))
			continue
		fi
		if ! nsx tc -batch "$TMP/k.filters" >/dev/null 2>"$TMP/k.err"; then
			echo "ERROR    $label the kernel refused a filter: $(tr '\n' ' ' <"$TMP/k.err")"
			errors=$((errors + 1))
			continue
		fi
		nsx tc filter show dev "$DEV" >"$TMP/k.show"
		nsx tcpreplay -i "$DEV" --topspeed -L "$KU32_LIMIT" "$PCAPS/$cap" >"$TMP/replay" 2>&1
		ksent=$(sed -n 's/^Actual: \([0-9]*\) packets.*/\1/p' "$TMP/replay")
		kfail=$(sed -n 's/^[[:space:]]*Failed packets:[[:space:]]*\([0-9]*\).*/\1/p' "$TMP/replay")
		if [ -z "$ksent" ] || [ "${kfail:-1}" != 0 ]; then
			echo "ERROR    $label tcpreplay sent '${ksent:-?}', failed '${kfail:-?}'"
			errors=$((errors + 1))
			continue
		fi
		kernel_counts
		if ! "$TCSIM" run --tc "$TMP/t.tc" --rate 100gbit --mtu 65535 --vlan inline --priority 0 \
			--limit "$ksent" --json "$TMP/t.json" "$PCAPS/$cap" >"$TMP/t.out" 2>"$TMP/t.err"; then
			echo "ERROR    $label tcsim run failed: $(head -c 400 "$TMP/t.err" "$TMP/t.out" | tr '\n' ' ')"
			errors=$((errors + 1))
			continue
		fi
		tcounts=$(tcsim_counts "$TMP/t.json")
		# tcsim prints the file's `filter show` before the run's report
		awk '/^tcsim: [0-9]+ device/ {exit} {print}' "$TMP/t.out" >"$TMP/t.show"
		[ -s "$TMP/t.show" ] || awk '/^tcsim: [0-9]+ device/ {exit} {print}' "$TMP/t.err" >"$TMP/t.show"
		pkts=$((pkts + ksent))
		bad=
		[ "$kcounts" = "$tcounts" ] || bad="$bad [counts]"
		if cmp -s "$TMP/k.show" "$TMP/t.show"; then
			nshow=$((nshow + $(grep -c '^filter.* fh .*order' "$TMP/k.show")))
		else
			bad="$bad [tc filter show]"
		fi
		echo "$c $ksent ${bad:+bad}" | awk '{print $1, $2, ($3 == "" ? "ok" : $3)}' >>"$TMP/sum"
		if [ -z "$bad" ]; then
			echo "ok       $label $(printf '%5d' "$ksent") pkts  $kcounts"
		else
			mism=$((mism + 1))
			echo "MISMATCH $label $(printf '%5d' "$ksent") pkts$bad"
			echo "         kernel: $kcounts"
			echo "         tcsim:  $tcounts"
			sed 's/^/         filter: /' "$TMP/chain.$c.ok"
			diff "$TMP/k.show" "$TMP/t.show" | grep '^[<>]' | head -20 | sed 's/^/         /'
		fi
	done
done

# one line per named policy: packets compared on each side, and whether
# every capture agreed
for c in $POLICIES; do
	awk -v c="$c" '$1 == c {n++; p += $2; if ($3 != "ok") b++}
		END {printf "policy %-9s %2d captures %6d packets: %s\n", c, n, p, b ? b " differ" : "all equal"}' "$TMP/sum"
done

END=$(date +%s)
echo "kernel_u32_diff: $agree lines taken or refused alike ($refused refused), $amism differ;" \
	"$total comparisons ($(echo $POLICIES | wc -w) policies and $((KU32_CHAINS + 1)) generated chains of $nlines filter lines" \
	"(seed $KU32_SEED) x $(echo $CAPS | wc -w) captures, $pkts packets on each side," \
	"$nshow filter show entries equal): $mism mismatches, $errors errors, $((END - START)) s"
[ "$mism" -eq 0 ] && [ "$errors" -eq 0 ] && [ "$amism" -eq 0 ]
