#!/bin/sh
# kernel_classify_diff.sh - differential test of tcsim's classification
# (tc filters, cls_bpf, their order, protocols, classids) against the
# running kernel.
#
# The kernel need not have sch_prio: the same `tc filter add ... bpf` lines
# go on an htb root whose classes only count (MAJOR:1, :2, :3 and the
# default MAJOR:99, at 100gbit over big pfifos) on one end of a veth pair in
# a private, throw-away network namespace (IPv6 off before the links exist,
# ARP and multicast off, no addresses: the kernel sends nothing of its own
# there, which every comparison checks). tcpreplay sends each capture out of
# that end, into the veth and nowhere else; `tc -s class show` gives the
# kernel's counts. tcsim runs the same filter lines under a prio root
# (`tcsim run --tc FILE --vlan inline --priority 0 --json`: tcpreplay keeps
# 802.1Q tags in the data and its packet socket has sk_priority 0), and its
# per-verdict counts are folded as htb_classify() folds classids (verified
# on Linux 6.18):
#   MAJOR:N of an existing class   -> that class
#   MAJOR:0, the root's own handle -> htb's direct queue (no class: the
#                                     qdisc's direct_packets_stat)
#   anything else -> the default class: no match ("unclassified"), a minor
#   without a class (1:4), another major (4: = tcpdump's 262144, ffff:1),
#   major 0 (flowid :1, return value 2), classid 0 (ret -1, no flowid)
# Without `tcsim run` (or with KCLS_MODE=bpfrun) tcsim's side is derived from
# `tcsim bpf run -v` per filter, combined in the kernel's filter order.
#
# Also compared: packets (tcpreplay's sent = htb's total = tcsim's verdicts;
# frames tcpreplay cannot send, runts shorter than 14 bytes, must be exactly
# the ones tcsim rejects) and bytes (htb's = tcsim's sent_bytes). A capture
# with snaplen-truncated frames is left out unless KCLS_KEEP_TRUNCATED=1:
# tcpreplay sends the caplen bytes, so the kernel's skb->len is the caplen
# where tcsim keeps the wire length (see tests/data/kdiff/known_differences.txt).
#
# Exit 0: no mismatch; 1: mismatches or errors; 77: cannot run here (SKIP).
# Environment: TCSIM (default ./tcsim), PCAPS (default ../shared/pcaps next
# to the repository), KCLS_LIMIT (packets per capture, default 2000),
# KCLS_CAPTURES (file names), KCLS_CHAINS (chain names), KCLS_CHAINS_FILE
# (default tests/data/kdiff/chains.txt), KCLS_MODE (auto, run or bpfrun),
# KCLS_KEEP_TRUNCATED.

TCSIM=${TCSIM:-./tcsim}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
DATA=$ROOT/tests/data/kdiff
CHAINS_FILE=${KCLS_CHAINS_FILE:-$DATA/chains.txt}
PCAPS=${PCAPS:-$ROOT/../shared/pcaps}
KCLS_LIMIT=${KCLS_LIMIT:-2000}
KCLS_MODE=${KCLS_MODE:-auto}
KCLS_CAPTURES=${KCLS_CAPTURES:-"lan_mixed_ssh_dns_dhcp.pcap http_wikipedia_mixed.pcap
	icmp_echo_5_pings.pcap vlan_8021q_x11.pcap dns_heavy_cc_capture.pcap
	ssh_interactive_session.pcap lan_windows_mixed_ipv6.pcap ssh_bruteforce_hydra.pcap
	lan_mixed_http_2016_2022.pcap westermo_industrial_lan_90min.pcap
	ipv6_dns_ssh_icmpv6.pcap icmp_traceroute.pcapng http_bro_org_browse.pcap ssh_sessions_multi.pcap
	lan_alexa_device.pcapng uplink_host_services_nsec.pcap pcapng_2_interfaces_dns.pcapng
	lan_gnutella_p2p_ipv6.pcap nsec_100_packets.pcap backbone_ip_in_mpls_snap256.pcap"}

NS=tcsim-kcls-$$
DEV=kcls0
PEER=kcls1
TMP=

. "$HERE/lib.sh"

kt_root
kt_tools tc ip tcpreplay tcpdump awk sed paste
[ -d "$PCAPS" ] || skip "no captures at $PCAPS (set PCAPS; ../shared is not part of the repository)"
[ -r "$CHAINS_FILE" ] || { echo "FAIL: cannot read $CHAINS_FILE"; exit 1; }
kt_tcsim

case $KCLS_MODE in
auto)
	if "$TCSIM" run --help 2>&1 | grep -q -- '--tc'; then
		MODE=run
	else
		MODE=bpfrun
		echo "note: '$TCSIM run' is not available: tcsim's verdicts come from 'tcsim bpf run -v'"
	fi ;;
run | bpfrun) MODE=$KCLS_MODE ;;
*) echo "FAIL: KCLS_MODE must be auto, run or bpfrun"; exit 1 ;;
esac

kt_modprobe cls_bpf sch_htb veth

kt_tmp
START=$(date +%s)

# The kernel's own ND/MLD/RS would join the counts: IPv6 off before the
# links exist; no addresses, no ARP, no multicast (so no IGMP either).
# 65535 is veth's max_mtu: every frame of these captures fits.
kt_setup "$NS" "$DEV" "$PEER" "mtu 65535 txqueuelen 100000"
nsx tc qdisc add dev "$DEV" root handle 1: htb default 99 2>/dev/null || skip "kernel lacks sch_htb"
nsx tc filter add dev "$DEV" parent 1: protocol all pref 1 bpf bytecode "1,6 0 0 0" flowid 1:1 \
	2>/dev/null || skip "kernel lacks cls_bpf (or tc lacks bpf)"
nsx tc qdisc del dev "$DEV" root 2>/dev/null

# An empty Ethernet pcap with snaplen 262144: `tcpdump -r` of it compiles
# for DLT_EN10MB whatever this host's interfaces are, and a match returns
# 262144, as `tcpdump -ddd` without an interface does.
EMPTY=$TMP/empty_en10mb.pcap
printf '\324\303\262\241\002\000\004\000\000\000\000\000\000\000\000\000\000\000\004\000\001\000\000\000' >"$EMPTY"

# pkt_lines: the per-packet words of `tcsim bpf run -v` (0x... or rejected:).
pkt_lines() {
	awk '$1 ~ /^[0-9]+$/ && ($2 ~ /^0x/ || $2 == "rejected:") {print $2}'
}

# ---- chains: every program made a bytecode string ----

# $TMP/chain.NAME: lines "IDX PREF PROTO FLOWID BYTECODE" (PREF, FLOWID "-"
# for none) in the order they are added; $TMP/major.NAME: the root's major.
CHAINS=
resolve_error=0
idx=0
while IFS= read -r line || [ -n "$line" ]; do
	case $line in '#'* | '') continue ;; esac
	set -f
	# shellcheck disable=SC2086
	set -- $line
	set +f
	name=$1 major=$2 pref=$3 proto=$4 flowid=$5 kind=$6
	shift 6
	arg="$*"
	if [ -n "${KCLS_CHAINS:-}" ]; then
		case " $KCLS_CHAINS " in *" $name "*) ;; *) continue ;; esac
	fi
	case $kind in
	asm) bc=$("$TCSIM" bpf asm "$ROOT/$arg" 2>"$TMP/err") ;;
	tcpdump) bc=$(tcpdump -r "$EMPTY" -ddd "$arg" 2>"$TMP/err" | tr '\n' ',') ;;
	tcpdump-flowid)
		bc=$(tcpdump -r "$EMPTY" -ddd "$arg" 2>"$TMP/err" | sed 's/^6 0 0 262144$/6 0 0 4294967295/' |
			tr '\n' ',') ;;
	bytecode) bc=$arg ;;
	*) bc= ; echo "bad program kind '$kind'" >"$TMP/err" ;;
	esac
	case $bc in
	[0-9]*,*) ;;
	*)
		echo "FAIL: chain $name: cannot make '$kind $arg': $(tr '\n' ' ' <"$TMP/err")"
		resolve_error=1
		continue ;;
	esac
	if [ ! -f "$TMP/chain.$name" ]; then
		CHAINS="$CHAINS $name"
		echo "$major" >"$TMP/major.$name"
	fi
	idx=$((idx + 1))
	echo "$idx $pref $proto $flowid $bc" >>"$TMP/chain.$name"
done <"$CHAINS_FILE"
[ "$resolve_error" = 0 ] || exit 1
[ -n "$CHAINS" ] || { echo "FAIL: no chain selected"; exit 1; }

# filter_lines CHAIN DEV: the chain's `tc filter add` commands (no "tc"),
# the same for both sides but for the device.
filter_lines() {
	fl_maj=$(cat "$TMP/major.$1")
	while read -r _ pref proto flowid bc; do
		printf 'filter add dev %s parent %s: ' "$2" "$fl_maj"
		[ "$pref" = - ] || printf 'pref %s ' "$pref"
		printf "protocol %s bpf bytecode '%s'" "$proto" "$bc"
		[ "$flowid" = - ] || printf ' flowid %s' "$flowid"
		printf '\n'
	done <"$TMP/chain.$1"
}

# ---- the kernel side ----

# kernel_setup MAJOR: a fresh htb root with the counting classes.
kernel_setup() {
	nsx tc qdisc del dev "$DEV" root 2>/dev/null
	{
		echo "qdisc add dev $DEV root handle $1: htb default 99"
		for cl in 1 2 3 99; do
			echo "class add dev $DEV parent $1: classid $1:$cl htb rate 100gbit ceil 100gbit"
			echo "qdisc add dev $DEV parent $1:$cl pfifo limit 100000"
		done
	} >"$TMP/k.setup"
	nsx tc -batch "$TMP/k.setup" >/dev/null 2>"$TMP/k.err" || {
		echo "ERROR kernel: htb setup failed: $(tr '\n' ' ' <"$TMP/k.err")"
		return 1
	}
}

# kernel_replay CAPTURE: tcpreplay's ksent, kbytes, kfail (frames the
# packet socket refused) and katt = ksent + kfail: its limit counts sent
# packets, so katt is how many of the capture's packets it took. 1 when it
# gave no count or retried (a retried packet could be classified twice).
kernel_replay() {
	nsx tcpreplay -i "$DEV" --topspeed -L "$KCLS_LIMIT" "$1" >"$TMP/replay" 2>&1
	ksent=$(sed -n 's/^Actual: \([0-9]*\) packets (\([0-9]*\) bytes).*/\1/p' "$TMP/replay")
	kbytes=$(sed -n 's/^Actual: \([0-9]*\) packets (\([0-9]*\) bytes).*/\2/p' "$TMP/replay")
	kfail=$(sed -n 's/^[[:space:]]*Failed packets:[[:space:]]*\([0-9]*\).*/\1/p' "$TMP/replay")
	kretry=$(sed -n 's/^[[:space:]]*Retried packets ([A-Z]*):[[:space:]]*\([0-9]*\).*/\1/p' "$TMP/replay" |
		awk '{s += $1} END {print s + 0}')
	kmsg=$(grep -i 'unable\|error' "$TMP/replay" | sort -u | head -3 | tr '\n' ' ')
	if [ -z "$ksent" ] || [ -z "$kfail" ] || [ "$kretry" != 0 ]; then
		kmsg="tcpreplay: sent '${ksent:-?}', failed '${kfail:-?}', retried '$kretry': $kmsg"
		return 1
	fi
	katt=$((ksent + kfail))
}

# kernel_counts MAJOR: waits for the queues to drain, then sets kcounts
# ("MAJ:1=n MAJ:2=n MAJ:3=n MAJ:99=n direct=n"), ktotal, ktbytes, kdrops.
kernel_counts() {
	kt_htb_drain "$DEV"
	nsx tc -s class show dev "$DEV" >"$TMP/kc"
	kcounts=$(awk -v maj="$1" '
		/^class htb/ {c = $3; next}
		/^ Sent/ && c != "" {n[c] = $4; c = ""}
		END {
			for (i = 1; i <= 4; i++) {
				k = maj ":" (i < 4 ? i : 99)
				printf "%s=%d ", k, n[k]
			}
		}' "$TMP/kc")
	kdirect=$(sed -n 's/.*direct_packets_stat \([0-9]*\).*/\1/p' "$TMP/kq" | head -1)
	kcounts="${kcounts}direct=${kdirect:-0}"
	# the htb qdisc's own Sent line covers every class and the direct queue
	# shellcheck disable=SC2046
	set -- $(awk '/^qdisc htb/ {h = 1; next} h && /^ Sent/ {print $2, $4, $7 + 0; exit}' "$TMP/kq")
	ktbytes=$1 ktotal=$2 kdrops=$3
	kdrops=$((kdrops + $(awk '/^ Sent/ {d += $7 + 0} END {print d + 0}' "$TMP/kc")))
}

# ---- the tcsim side ----

# fold MAJOR: reads "KEY COUNT" lines (tcsim's verdicts), prints the counts
# in kcounts' form, folded as htb_classify() folds classids.
fold() {
	awk -v maj="$1" '
		{
			k = $1
			if (k == maj ":") b = "direct"
			else if (k == maj ":1" || k == maj ":2" || k == maj ":3" || k == maj ":99") b = k
			else b = maj ":99"
			n[b] += $2
		}
		END {
			printf "%s=%d %s=%d %s=%d %s=%d direct=%d", maj ":1", n[maj ":1"], maj ":2", n[maj ":2"],
				maj ":3", n[maj ":3"], maj ":99", n[maj ":99"], n["direct"]
		}'
}

# Both tcsim_* set tcounts (folded), tverdicts (raw), ttotal (packets
# taken), trej (rejected), tdrops (dropped + still queued), tbytes; they
# return 1 with tmsg when tcsim failed.

# tcsim_run CHAIN CAPTURE
tcsim_run() {
	tr_maj=$(cat "$TMP/major.$1")
	{
		echo "qdisc add dev eth0 root handle $tr_maj: prio bands 3"
		filter_lines "$1" eth0
	} >"$TMP/t.tc"
	if ! "$TCSIM" run --tc "$TMP/t.tc" --rate 100gbit --mtu 65535 --vlan inline --priority 0 \
		--limit "$katt" --json "$TMP/t.json" "$2" >"$TMP/t.out" 2>&1; then
		tmsg="tcsim run failed: $(head -c 400 "$TMP/t.out" | tr '\n' ' ')"
		return 1
	fi
	tverdicts=$(tr -d '\n' <"$TMP/t.json" | sed -n 's/.*"verdicts": {\([^}]*\)}.*/\1/p')
	totals=$(tr -d '\n' <"$TMP/t.json" | sed -n 's/.*"totals": {\([^}]*\)}.*/\1/p')
	trejects=$(tr -d '\n' <"$TMP/t.json" | sed -n 's/.*"rejects": {\([^}]*\)}.*/\1/p')
	jnum() { echo "$totals" | sed -n "s/.*\"$1\": \([0-9]*\).*/\1/p"; }
	ttotal=$(jnum arrived)
	trej=$(jnum rejected)
	tbytes=$(jnum sent_bytes)
	tdrops=$(($(jnum dropped) + $(jnum queued)))
	tcounts=$(echo "$tverdicts" | tr ',' '\n' | sed -n 's/^ *"\([^"]*\)": *\([0-9]*\) *$/\1 \2/p' |
		fold "$tr_maj")
}

# tcsim_bpfrun CHAIN CAPTURE: the fallback: every filter's return values
# from `tcsim bpf run -v`, combined in the kernel's order (pref ascending,
# newest first within a pref; no pref: one below the lowest so far, or
# 49152), with skb->protocol from tcsim (ld #proto), as tcf_classify() and
# cls_bpf do: the first filter of a matching protocol that returns nonzero
# decides, -1 meaning its flowid.
tcsim_bpfrun() {
	tb_maj=$(cat "$TMP/major.$1")
	awk '
		{
			p = $2
			if (p == "-") p = (low == "" ? 49152 : low - 1)
			if (low == "" || p < low) low = p
			print p, $0
		}' "$TMP/chain.$1" | sort -k1,1n -k2,2nr >"$TMP/order"
	"$TCSIM" bpf run -v -b "2,32 0 0 4294963200,22 0 0 0" "$2" 2>/dev/null | pkt_lines |
		head -n "$katt" >"$TMP/proto"
	files="$TMP/proto" metas="" nr=0
	while read -r _ _ _ proto flowid bc; do
		nr=$((nr + 1))
		"$TCSIM" bpf run -v -b "$bc" "$2" 2>"$TMP/t.err" | pkt_lines | head -n "$katt" >"$TMP/ret.$nr"
		if [ "$(wc -l <"$TMP/ret.$nr")" != "$katt" ]; then
			tmsg="tcsim bpf run failed: $(head -c 300 "$TMP/t.err" | tr '\n' ' ')"
			return 1
		fi
		files="$files $TMP/ret.$nr"
		metas="$metas $proto/$flowid"
	done <"$TMP/order"
	# shellcheck disable=SC2086
	paste -d ' ' $files | awk -v metas="$metas" '
		function classid(v,   M, m) {  # as tc prints it
			if (v == 4294967295) return "root"
			if (v == 0) return "none"
			M = int(v / 65536); m = v % 65536
			if (M == 0) return sprintf(":%x", m)
			if (m == 0) return sprintf("%x:", M)
			return sprintf("%x:%x", M, m)
		}
		function hexs(s,   i, v) {  # hex digits (mawk has no strtonum)
			v = 0; s = tolower(s)
			for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v
		}
		function num(s) { return hexs(substr(s, 3)) }  # 0x........
		function flowid(s,   a) {  # as tc parses it
			if (s == "-") return "none"
			split(s, a, ":")
			return classid(hexs(a[1]) * 65536 + hexs(a[2]))
		}
		BEGIN {
			nf = split(metas, m, " ")
			pn["all"] = -1; pn["ip"] = 2048; pn["arp"] = 2054; pn["ipv6"] = 34525; pn["802.1Q"] = 33024
			for (i = 1; i <= nf; i++) {
				split(m[i], pf, "/")
				fp[i] = pn[pf[1]]; ff[i] = flowid(pf[2])
			}
		}
		$1 == "rejected:" {print "REJECTED", 1; next}
		{
			pr = num($1); key = "unclassified"
			for (i = 1; i <= nf; i++) {
				if (fp[i] != -1 && fp[i] != pr) continue
				r = num($(i + 1))
				if (r == 0) continue
				if (r == 4294967295) key = ff[i]
				else key = classid(r)
				break
			}
			print key, 1
		}' | awk '{n[$1] += $2} END {for (k in n) print k, n[k]}' | sort >"$TMP/v"
	trej=$(awk '$1 == "REJECTED" {print $2}' "$TMP/v")
	trej=${trej:-0}
	trejects=
	ttotal=$(awk '{s += $2} END {print s + 0}' "$TMP/v")
	sed -i '/^REJECTED /d' "$TMP/v"
	tverdicts=$(awk '{printf "%s\"%s\": %d", (NR > 1 ? ", " : ""), $1, $2}' "$TMP/v")
	tbytes=
	tdrops=0
	tcounts=$(fold "$tb_maj" <"$TMP/v")
}

# ---- the captures: usable ones ----

# A filter-less replay: the kernel must count exactly what tcpreplay sent,
# and tcsim must read the same packets: of the first katt, the same runts
# rejected, and for the rest tcsim's lengths (ld #len) must add up to the
# bytes tcpreplay sent (its caplens): no snaplen-truncated frame.
CAPS="" TRUNC=""
ncaps=0 errors=0
for cap in $KCLS_CAPTURES; do
	f=$PCAPS/$cap
	if [ ! -r "$f" ]; then
		echo "note: $cap: not in $PCAPS, left out"
		continue
	fi
	kernel_setup 1 || exit 1
	if ! kernel_replay "$f"; then
		echo "note: $cap: left out: $kmsg"
		continue
	fi
	kernel_counts 1
	if [ "$ktotal" != "$ksent" ] || [ "$kdrops" != 0 ]; then
		echo "ERROR $cap: tcpreplay sent $ksent packets, htb saw $ktotal (dropped $kdrops)"
		errors=$((errors + 1))
		continue
	fi
	tlen=$("$TCSIM" bpf run -v -b "2,128 0 0 0,22 0 0 0" "$f" 2>/dev/null | pkt_lines | head -n "$katt" |
		awk '
			$1 == "rejected:" {r++; next}
			{
				v = 0; s = tolower(substr($1, 3))
				for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
				t += v; n++
			}
			END {printf "%d packets (%d bytes), %d rejected", n, t, r}')
	klen="$ksent packets ($kbytes bytes), $kfail rejected"
	if [ "$tlen" = "$klen" ]; then
		:
	elif [ "${tlen%%(*}${tlen#*)}" != "${klen%%(*}${klen#*)}" ]; then
		echo "note: $cap: left out: of its first $katt packets tcpreplay sent $klen ($kmsg)," \
			"tcsim reads $tlen"
		continue
	elif [ "${KCLS_KEEP_TRUNCATED:-0}" = 1 ]; then
		echo "note: $cap: kept (KCLS_KEEP_TRUNCATED=1) though snaplen-truncated: tcpreplay sent" \
			"$klen, tcsim reads $tlen; bytes not compared"
		TRUNC="$TRUNC $cap "
	else
		echo "note: $cap: left out: snaplen-truncated (the kernel's skb->len would be the caplen):" \
			"tcpreplay sent $klen, tcsim reads $tlen"
		continue
	fi
	[ "$kfail" = 0 ] || echo "note: $cap: $kfail of its first $katt frames cannot be sent ($kmsg);" \
		"tcsim must reject as many"
	CAPS="$CAPS $cap"
	ncaps=$((ncaps + 1))
done
[ -n "$CAPS" ] || skip "none of the captures is usable here"

# ---- htb's folding on this kernel, as fold() assumes it ----

# One filter returning RET (-1: its flowid) for every packet of 10.
# shellcheck disable=SC2086
set -- $CAPS
probe=$PCAPS/$1
nfacts=0 badfacts=""
limit_saved=$KCLS_LIMIT
KCLS_LIMIT=10
while read -r ret flowid want what; do
	kernel_setup 1 || exit 1
	fl=""
	[ "$flowid" = - ] || fl="flowid $flowid"
	# shellcheck disable=SC2086
	nsx tc filter add dev "$DEV" parent 1: protocol all pref 1 bpf bytecode "1,6 0 0 $ret" $fl \
		2>"$TMP/k.err" || { badfacts="$badfacts [$what: tc: $(tr '\n' ' ' <"$TMP/k.err")]"; continue; }
	kernel_replay "$probe" || { badfacts="$badfacts [$what: $kmsg]"; continue; }
	kernel_counts 1
	expect=$(for b in 1:1 1:2 1:3 1:99 direct; do
		[ "$b" = "$want" ] && printf '%s=%d ' "$b" "$ksent" || printf '%s=0 ' "$b"
	done)
	nfacts=$((nfacts + 1))
	[ "$kcounts " = "$expect" ] || badfacts="$badfacts [$what: expected $expect, kernel $kcounts]"
done <<EOF
65538 1:1 1:2 ret 1:2
65689 1:1 1:99 ret 1:99 (the default class by name)
65536 1:1 direct ret 1:0 (the root's handle)
4294967295 1:0 direct flowid 1:0
65540 1:1 1:99 ret 1:4 (no such class)
262144 1:1 1:99 ret 4:0 (tcpdump's)
4294901761 1:1 1:99 ret ffff:1
1 1:2 1:99 ret :1 (major 0)
4294967295 :1 1:99 flowid :1 (major 0)
4294967295 - 1:99 ret -1 without flowid
EOF
KCLS_LIMIT=$limit_saved
if [ -z "$badfacts" ]; then
	echo "htb folds classids as assumed: $nfacts probes"
else
	echo "ERROR htb folding differs from what this test assumes:$badfacts"
	errors=$((errors + 1))
fi

# ---- the comparisons ----

total=0 mism=0 nchains=0 cmp_pkts=0
for ch in $CHAINS; do
	nchains=$((nchains + 1))
	maj=$(cat "$TMP/major.$ch")
	filter_lines "$ch" "$DEV" >"$TMP/k.filters.$ch"
	for cap in $CAPS; do
		f=$PCAPS/$cap
		total=$((total + 1))
		label=$(printf '%-14s %-34s' "$ch" "$cap")
		kernel_setup "$maj" || exit 1
		if ! nsx tc -batch "$TMP/k.filters.$ch" >/dev/null 2>"$TMP/k.err"; then
			echo "ERROR    $label kernel refused the filters: $(tr '\n' ' ' <"$TMP/k.err")"
			errors=$((errors + 1))
			continue
		fi
		if ! kernel_replay "$f"; then
			echo "ERROR    $label $kmsg"
			errors=$((errors + 1))
			continue
		fi
		kernel_counts "$maj"
		if [ "$MODE" = run ]; then
			tcsim_run "$ch" "$f" || { echo "ERROR    $label $tmsg"; errors=$((errors + 1)); continue; }
		else
			tcsim_bpfrun "$ch" "$f" || { echo "ERROR    $label $tmsg"; errors=$((errors + 1)); continue; }
		fi
		cmp_pkts=$((cmp_pkts + ksent))
		bad=
		[ "$ktotal" = "$ksent" ] && [ "$kdrops" = 0 ] ||
			bad="$bad [kernel: tcpreplay sent $ksent, htb counted $ktotal, dropped $kdrops]"
		[ "$ttotal" = "$katt" ] && [ "$trej" = "$kfail" ] && [ "$tdrops" = 0 ] ||
			bad="$bad [tcsim: took $ttotal of $katt, rejected $trej ({$trejects}) where tcpreplay failed $kfail, dropped or queued $tdrops]"
		case "$MODE$TRUNC" in
		bpfrun* | *" $cap "*) ;; # no byte total / truncated on purpose
		*) [ "$tbytes" = "$ktbytes" ] || bad="$bad [bytes: kernel $ktbytes, tcsim $tbytes]" ;;
		esac
		[ "$kcounts" = "$tcounts" ] || bad="$bad [verdicts]"
		if [ -z "$bad" ]; then
			echo "ok       $label $(printf '%5d' "$ksent") pkts  $kcounts"
		else
			mism=$((mism + 1))
			echo "MISMATCH $label $(printf '%5d' "$ksent") pkts$bad"
			echo "         kernel: $kcounts"
			echo "         tcsim:  $tcounts   (tcsim verdicts: {$tverdicts})"
		fi
	done
done

END=$(date +%s)
echo "kernel_classify_diff: $total comparisons ($ncaps captures x $nchains chains," \
	"$cmp_pkts packets classified on each side; tcsim via '$MODE'):" \
	"$mism mismatches, $errors errors, $((END - START)) s"
[ "$mism" -eq 0 ] && [ "$errors" -eq 0 ]
