j() { echo "### $*" >&2; "$@" >&2 || echo "### failed" >&2; }
show() { j tc -j qdisc show dev $DEV; j tc -s -j qdisc show dev $DEV; j tc -d -j qdisc show dev $DEV; j tc -s -d qdisc show dev $DEV; }
set +e
tc qdisc add dev $DEV root handle 1: prio bands 4 priomap 0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3
show
tc filter add dev $DEV parent 1: protocol ip pref 1 matchall classid 1:2
tc filter add dev $DEV parent 1: protocol ip pref 2 matchall skip_hw
tc filter add dev $DEV parent 1: protocol ip pref 3 handle 5 fw classid 1:3
tc filter add dev $DEV parent 1: protocol ip pref 4 handle 0x10/0xf0 fw classid 1:1
tc filter add dev $DEV parent 1: protocol ip pref 5 flower ip_proto tcp dst_port 80 src_ip 10.0.0.0/8 classid 1:1
tc filter add dev $DEV parent 1: protocol all pref 6 flower dst_mac 02:00:00:00:00:01 skip_hw classid 1:2
tc filter add dev $DEV parent 1: protocol ip pref 7 basic match 'cmp(u8 at 9 layer network eq 6)' classid 1:3
tc filter add dev $DEV parent 1: protocol ip pref 8 basic classid 1:4
tc filter add dev $DEV parent 1: protocol ip pref 9 u32 match ip protocol 17 0xff match ip dport 53 0xffff classid 1:2
tc filter add dev $DEV parent 1: protocol ip pref 10 bpf bytecode '1,6 0 0 0' classid 1:2
tc filter add dev $DEV parent 1: protocol ip pref 11 flower ip_proto udp src_port 1000-2000 ip_tos 0x10/0xfc vlan_id 5 classid 1:1
tc filter add dev $DEV parent 1: protocol 802.1Q pref 12 flower vlan_id 5 vlan_prio 3 vlan_ethtype ip dst_ip 192.168.1.1 classid 1:1
j tc -j filter show dev $DEV
j tc -s -j filter show dev $DEV
j tc -s filter show dev $DEV
j tc -j -p filter show dev $DEV parent 1:
tc qdisc del dev $DEV root
for q in "sfq" "sfq perturb 10 headdrop quantum 1500 limit 100 depth 64 divisor 1024" "sfq limit 50 flows 64" \
  "codel" "codel limit 100 target 4ms interval 50ms ecn ce_threshold 1ms" \
  "fq_codel" "fq_codel limit 1000 flows 512 quantum 1514 target 5ms interval 100ms memory_limit 16Mb ecn drop_batch 32 ce_threshold 2ms" \
  "netem" "netem delay 10ms" "netem delay 10ms 2ms 25% loss 1% 30% duplicate 2% 10% reorder 5% 50% corrupt 0.1% 5% rate 1mbit packetoverhead 4 cellsize 100 celloverhead 2 slot 1ms 2ms packets 4 bytes 3000" \
  "netem loss state 1% 2% 3% 4% 5%" "netem loss gemodel 1% 10% 70% 0.1%" "netem delay 5ms loss 10% ecn gap 5 slot distribution pareto 1ms 200us" "netem delay 1s rate 10gbit" \
  "pfifo_fast" "pfifo limit 7" "bfifo limit 3000" "tbf rate 1mbit burst 10k latency 20ms" "htb default 3"; do
  tc qdisc add dev $DEV root handle 1: $q && show
  tc qdisc del dev $DEV root
done
tc qdisc add dev $DEV root handle 1: sfq perturb 10
