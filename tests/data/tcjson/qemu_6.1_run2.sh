j() { echo "### $*" >&2; "$@" >&2 || echo "### failed" >&2; }
show() { j tc -j qdisc show dev $DEV; j tc -s -j qdisc show dev $DEV; }
set +e
tc qdisc add dev $DEV root handle 1: prio
j tc -p -j qdisc show dev $DEV
tc filter add dev $DEV parent 1: protocol ip pref 1 matchall skip_hw classid 1:1
tc filter add dev $DEV parent 1: protocol ip pref 2 flower ip_tos 0x10/0xfc ip_ttl 64 classid 1:1
tc filter add dev $DEV parent 1: protocol ip pref 3 flower ip_proto udp src_port 1000-2000 dst_port 53 classid 1:1
tc filter add dev $DEV parent 1: protocol ip pref 4 flower ip_proto tcp dst_port 80/0xff00 tcp_flags 0x2/0x12 classid 1:1
tc filter add dev $DEV parent 1: protocol ip pref 5 flower ip_proto icmp icmp_type 8 icmp_code 0 dst_ip 10.0.0.0/255.0.255.0 classid 1:1
tc filter add dev $DEV parent 1: protocol ipv6 pref 6 flower ip_proto 47 src_ip 2001:db8::/32 classid 1:1
tc filter add dev $DEV parent 1: protocol all pref 7 flower src_mac 02:00:00:00:00:00/ff:ff:ff:00:00:00 dst_mac 02:00:00:00:00:00/24 classid 1:1
tc filter add dev $DEV parent 1: protocol arp pref 8 flower classid 1:1
tc filter add dev $DEV parent 1: protocol ip pref 9 basic match 'cmp(u8 at 9 layer network eq 6) and not meta(priority eq 3)' classid 1:3
tc filter add dev $DEV parent 1: protocol ip pref 10 fw classid 1:3
tc filter add dev $DEV parent 1: protocol ip pref 11 u32 match ip src 10.0.0.0/8 match u8 0 0 at nexthdr+4 classid 1:2
tc filter add dev $DEV parent 1: protocol ip pref 12 u32 match mark 0x10 0xff classid 1:2
tc filter add dev $DEV parent 1: protocol ip pref 13 u32 match ip dst 1.2.3.4 offset at 0 mask 0x0f00 shift 6 plus 0 eat classid 1:2
j tc -j filter show dev $DEV
j tc -s -j filter show dev $DEV
j tc -s filter show dev $DEV
tc qdisc del dev $DEV root
for q in "netem delay 10ms 2ms 25% loss 1% 30% duplicate 2% 10% reorder 5% 50% corrupt 0.1% 5% rate 1mbit 4 100 2 slot 1ms 2ms packets 4 bytes 3000" \
  "netem delay 5ms reorder 10% gap 5 ecn loss 1%" "netem slot distribution pareto 1ms 200us" "netem delay 100ms 10ms distribution normal" "netem rate 100kbit -4" "netem delay 10ms 1ms 50%"; do
  tc qdisc add dev $DEV root handle 1: $q && show && j tc qdisc show dev $DEV
  tc qdisc del dev $DEV root
done
tc qdisc add dev $DEV root handle 1: sfq perturb 10
