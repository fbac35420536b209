#!/bin/sh
# flower_cli.sh - `tcsim run`, `explain` and `tc filter show` with a prio
# root and flower filters on real captures, exact output; the class counts
# agree with tcpdump's for the same matches.
. tests/support/cli.sh
CAP=scenarios/captures/ssh_hydra.pcap
TC=$T_TMP/flower.tc
cat >"$TC" <<'TCEOF'
tc qdisc add dev eth0 root handle 1: prio bands 3 priomap 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2
tc filter add dev eth0 parent 1: protocol ip pref 1 flower ip_proto tcp dst_port 22 classid 1:1
tc filter add dev eth0 parent 1: protocol ip pref 1 flower ip_proto tcp src_port 1-1023 classid 1:2
TCEOF

# --- run: 91 = tcpdump 'ip and tcp dst port 22'; 97 = tcp src ports 1-1023
# (the server's side of the same sessions); the ARP frame stays unclassified
expect_out "run: verdicts and hits" "verdicts: 1:1 91, 1:2 97, unclassified 1
filter hits: pref 1 handle 0x1: 91, pref 1 handle 0x2: 97" \
	sh -c "$TCSIM run --tc $TC $CAP | tail -2"
if command -v tcpdump >/dev/null 2>&1; then
	expect_out "tcpdump agrees on 1:1" "91" \
		sh -c "tcpdump -nr $CAP 'ip and tcp dst port 22' 2>/dev/null | wc -l | tr -d ' '"
else
	echo "skip: tcpdump not installed, cross-check not run"
fi

# --- tc filter show: the iproute2 6.1 text, indented key lines and all
cp "$TC" "$T_TMP/show.tc"
echo "tc filter show dev eth0" >>"$T_TMP/show.tc"
expect_out "filter show" "filter parent 1: protocol ip pref 1 flower chain 0 
filter parent 1: protocol ip pref 1 flower chain 0 handle 0x1 classid 1:1 
  eth_type ipv4
  ip_proto tcp
  dst_port 22
  not_in_hw
filter parent 1: protocol ip pref 1 flower chain 0 handle 0x2 classid 1:2 
  eth_type ipv4
  ip_proto tcp
  src_port 1-1023
  not_in_hw" sh -c "$TCSIM run --tc $T_TMP/show.tc --limit 1 --json - $CAP 2>&1 >/dev/null | grep -v '^tcsim'"

# --- explain: which key failed, which matched
expect_out "explain names the failing key" "  pref 1 handle 0x1 (flower, protocol ip, flowid 1:1): no match: dst_port 49184, not 22
  pref 1 handle 0x2 (flower, protocol ip, flowid 1:2): matched, classid 1:2: every key matched" \
	sh -c "$TCSIM explain --tc $TC --packet 2 $CAP | grep '^  pref'"

# --- refusals, with the tc file's line
printf 'tc qdisc add dev eth0 root handle 1: prio\ntc filter add dev eth0 parent 1: protocol ip flower dst_port 22\n' >"$T_TMP/bad.tc"
expect_err "port without ip_proto" "bad.tc:2: flower: Illegal \"dst_port\"" $TCSIM run --tc "$T_TMP/bad.tc" $CAP
printf 'tc qdisc add dev eth0 root handle 1: prio\ntc filter add dev eth0 parent 1: protocol ip flower ct_state +trk\n' >"$T_TMP/bad2.tc"
expect_err "ct_state not modelled" "bad2.tc:2: flower: \"ct_state\" is not modelled by tcsim" $TCSIM run --tc "$T_TMP/bad2.tc" $CAP

# --- a capture of ../shared: DNS in 1:2 first (its mask came first), then
# the rest of UDP in 1:1: the kernel's numbers (tests/data/qemu/flower-order)
if have_shared; then
	expect_out "mask order on lan_mixed" "verdicts: 1:1 1857, 1:2 36, unclassified 107" \
		sh -c "sed 's/\\\$DEV/eth0/g' tests/data/qemu/flower-order.tc > $T_TMP/order.tc && $TCSIM run --tc $T_TMP/order.tc --rate 100gbit $SHARED/pcaps/lan_mixed_ssh_dns_dhcp.pcap | grep '^verdicts'"
else
	echo "skip: $SHARED/pcaps absent, the shared-capture case not run"
fi
finish
