#!/bin/sh
# tbf_cli.sh - `tcsim run` with tbf, end to end, exact output:
#  1. golden reports of tbf policies (tests/data/tbf/*.tc: tbf over sfq, a
#     peakrate over ATM, tbf in a prio band) on the shipped capture and,
#     when ../shared/pcaps is there, on real captures; each also passes
#     arrived = sent + dropped + queued + rejected;
#  2. a tbf that never runs short of tokens is invisible: every packet
#     leaves when it would behind a bfifo of the same limit;
#  3. tc's refusals of tbf words, one line naming the file and line.
# TBF_CLI_UPDATE=1 rewrites the goldens instead of comparing: read every
# number of a rewritten golden before keeping it.
. tests/support/cli.sh
D=tests/data/tbf
CAP=scenarios/captures/ssh_hydra.pcap

# conserved NAME FILE: the text report's arrived = sent + dropped + queued + rejected
conserved() {
	cs=$(awk '/^ arrived / { if ($2 != $4 + $6 + $8 + $10) print $0 }' "$2")
	if [ -n "$cs" ]; then bad "$1: accounting: $cs"; else ok; fi
}

# golden NAME CAPTURE TCFILE [OPTION...]
golden() {
	g_name=$1 g_cap=$2 g_tc=$D/$3; shift 3
	if [ -n "$TBF_CLI_UPDATE" ]; then
		$TCSIM run --tc "$g_tc" "$@" "$g_cap" >"$D/$g_name.txt" &&
			echo "wrote $D/$g_name.txt: read it" || bad "$g_name: update failed"
		return
	fi
	expect_file "$g_name" "$D/$g_name.txt" $TCSIM run --tc "$g_tc" "$@" "$g_cap"
	conserved "$g_name" "$D/$g_name.txt"
}

golden band_hydra $CAP tbf_band.tc --rate 1mbit
if have_shared; then
	P=$SHARED/pcaps
	golden sfq_espn "$P/http_espn_browse.pcapng" tbf_sfq.tc --rate 10mbit
	golden sfq_gnutella "$P/lan_gnutella_p2p_ipv6.pcap" tbf_sfq.tc --rate 10mbit
	golden atm_ssh "$P/ssh_sessions_multi.pcap" tbf_peak_atm.tc --rate 10mbit
	golden atm_bro "$P/http_bro_org_browse.pcap" tbf_peak_atm.tc --rate 10mbit
else
	echo "tbf_cli: no $SHARED/pcaps: the real captures' goldens are skipped"
fi

# 2. 1gbit with a 1 MiB bucket on a 10mbit wire never waits: each source
# row (counts and every delay) equals the bfifo root's of the same limit.
tcfile() { printf "$2" >"$T_TMP/$1"; }
tcfile fast.tc "tc qdisc add dev eth0 root handle 1: tbf rate 1gbit burst 1mb limit 100kb\n"
tcfile fifo.tc "tc qdisc add dev eth0 root handle 1: bfifo limit 100kb\n"
invisible() {
	$TCSIM run --tc "$T_TMP/fast.tc" --rate 10mbit "$1" | sed -n '/^source/,/^$/p' >"$T_TMP/a"
	$TCSIM run --tc "$T_TMP/fifo.tc" --rate 10mbit "$1" | sed -n '/^source/,/^$/p' >"$T_TMP/b"
	if [ -s "$T_TMP/a" ] && cmp -s "$T_TMP/a" "$T_TMP/b"; then ok; else
		bad "a tbf that never waits changed $1"; diff "$T_TMP/a" "$T_TMP/b" | head -5
	fi
}
invisible $CAP
have_shared && invisible "$SHARED/pcaps/http_espn_browse.pcapng"

# 3. tc's refusals, one line each
bad_tc() { # name, pattern, tc line
	tcfile bad.tc "$3\n"
	expect_err "$1" "$2" $TCSIM run --tc "$T_TMP/bad.tc" $CAP
}
bad_tc "no rate" 'bad\.tc:1: tbf: the "rate" parameter is mandatory\. tbf: either "limit" or "latency" is required\. Usage: \.\.\. tbf limit BYTES' \
	"tc qdisc add dev eth0 root tbf burst 10k"
bad_tc "peakrate without mtu" 'bad\.tc:1: tbf: when "peakrate" is specified, "mtu" must also be specified\.' \
	"tc qdisc add dev eth0 root tbf rate 1mbit burst 10k limit 10k peakrate 2mbit"
bad_tc "peakrate = rate" 'bad\.tc:1: RTNETLINK answers: Invalid argument \(sch_tbf: peakrate 125000 is lower than or equals to rate 125000\)' \
	"tc qdisc add dev eth0 root tbf rate 1mbit burst 10k limit 10k peakrate 1mbit mtu 1500"
bad_tc "limit and latency" 'bad\.tc:1: tbf: specifying both "limit" and "/latency" is not allowed' \
	"tc qdisc add dev eth0 root tbf rate 1mbit burst 10k limit 10k latency 5ms"
bad_tc "bad burst cell" 'bad\.tc:1: tbf: illegal value for "burst": "10k/3"' \
	"tc qdisc add dev eth0 root tbf rate 1mbit burst 10k/3 limit 10k"
finish
