j() { echo "### $*" >&2; "$@" >&2 || echo "### failed" >&2; }
set +e
tc qdisc add dev $DEV root handle 1: prio bands 4 priomap 0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3
tc filter add dev $DEV parent 1: protocol ip pref 1 matchall classid 1:2
tc filter add dev $DEV parent 1: protocol ip pref 2 matchall skip_hw classid 1:1
tc filter add dev $DEV parent 1: protocol ip pref 5 flower ip_proto tcp dst_port 80 src_ip 10.0.0.0/8 classid 1:1
tc filter add dev $DEV parent 1: protocol all pref 6 flower dst_mac 02:00:00:00:00:01 skip_hw classid 1:2
tc filter add dev $DEV parent 1: protocol ip pref 9 u32 match ip protocol 17 0xff match ip dport 53 0xffff classid 1:2
tc filter add dev $DEV parent 1: protocol ip pref 10 bpf bytecode '1,6 0 0 0' classid 1:2
tc filter add dev $DEV parent 1: protocol 802.1Q pref 12 flower vlan_id 5 vlan_prio 3 vlan_ethtype ip dst_ip 192.168.1.1 classid 1:1
tc filter add dev $DEV parent 1: protocol ip pref 13 flower ip_tos 0x10/0xfc ip_ttl 64 classid 1:1
tc filter add dev $DEV parent 1: protocol ip pref 14 flower ip_proto udp src_port 1000-2000 dst_port 53 classid 1:1
tc filter add dev $DEV parent 1: protocol ip pref 15 flower ip_proto tcp dst_port 80/0xff00 tcp_flags 0x2/0x12 classid 1:1
tc filter add dev $DEV parent 1: protocol ipv6 pref 16 flower ip_proto 47 src_ip 2001:db8::/32 classid 1:1
tc filter add dev $DEV parent 1: protocol all pref 17 flower src_mac 02:00:00:00:00:00/ff:ff:ff:00:00:00 dst_mac 02:00:00:00:00:00/24 classid 1:1
tc filter add dev $DEV parent 1: protocol arp pref 18 flower classid 1:1
tc filter add dev $DEV parent 1: protocol ip pref 19 u32 match mark 0x10 0xff classid 1:2
j tc -j filter show dev $DEV
j tc -s -j filter show dev $DEV
j tc -s filter show dev $DEV
tc filter del dev $DEV parent 1:
tc filter add dev $DEV parent 1: protocol ip pref 3 handle 5 fw classid 1:3
tc filter add dev $DEV parent 1: protocol ip pref 4 handle 0x10/0xf0 fw classid 1:1
j tc -j filter show dev $DEV
j tc filter show dev $DEV
tc filter del dev $DEV parent 1:
tc filter add dev $DEV parent 1: protocol ip pref 7 basic match 'cmp(u8 at 9 layer network eq 6) and not meta(priority eq 3)' classid 1:3
tc filter add dev $DEV parent 1: protocol ip pref 8 basic classid 1:4
j tc -j filter show dev $DEV
j tc filter show dev $DEV
