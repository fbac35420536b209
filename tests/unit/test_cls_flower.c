/* test_cls_flower.c - the flower classifier: its words and their refusals
 * as iproute2 6.1 gives them, the keys the kernel keeps, classification of
 * hand-built frames (mask order, port ranges, VLAN tags offloaded and
 * inline, IPv6 prefixes, fragments), -EEXIST, handles, and the show text
 * iproute2 6.1 printed for the same filters on Debian's 6.1 kernel. */
#include <CUnit/Basic.h>
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cls.h"
#include "tc.h"
#include "test_src.h"
#include "unit.h"

#define IP(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))

/* ---- a chain and requests ---- */

struct chain {
	struct tcf_chain c;
	char err[512];
};

/* Adds "flower WORDS" at pref with protocol; the result (0 or -errno). */
static int add(struct chain *ch, uint32_t pref, uint16_t proto, uint32_t handle, const char *words)
{
	char buf[512], *argv[64];
	int argc = 0;
	struct tcf_request req = {.pref = pref, .protocol = proto, .handle = handle, .create = 1,
				  .excl = 1, .kind = "flower", .where = "t.tc:1"};
	struct tcf_env env = {.kernel = BPF_KERNEL_CURRENT, .ifindex = 2};

	snprintf(buf, sizeof(buf), "%s", words);
	for (char *t = strtok(buf, " "); t && argc < 64; t = strtok(NULL, " "))
		argv[argc++] = t;
	req.argc = argc;
	req.argv = argv;
	ch->err[0] = 0;
	return tcf_chain_change(&ch->c, &req, &env, ch->err, sizeof(ch->err));
}

static void add_ok(struct chain *ch, uint32_t pref, uint16_t proto, const char *words)
{
	int r = add(ch, pref, proto, 0, words);

	if (r)
		printf("\n  %s: %s\n", words, ch->err);
	CU_ASSERT_EQUAL(r, 0);
}

/* The classid a frame gets (0 when no filter matches). */
static uint32_t classify(struct chain *ch, const uint8_t *frame, uint32_t len, int offload)
{
	struct pkt *p = pkt_new(frame, len, len);
	struct bpf_skb skb;
	struct tcf_result res = {0};
	uint32_t cid = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	p->protocol = eth_frame_protocol(frame, len);
	if (offload)
		pkt_vlan_offload(p);
	pkt_bpf_skb(p, 2, &skb);
	if (tcf_classify(&ch->c, &skb, p->vlan_present ? p->vlan_proto : p->protocol, &res) >= 0)
		cid = res.classid;
	pkt_free(p);
	return cid;
}

static uint8_t fr[1600];

static uint32_t tcp(uint32_t s, uint32_t d, uint16_t sp, uint16_t dp, uint8_t tos)
{
	return test_frame_tcp(fr, 60, s, d, sp, dp, tos);
}

static uint32_t udp(uint32_t s, uint32_t d, uint16_t sp, uint16_t dp)
{
	return test_frame_udp(fr, 60, s, d, sp, dp, 0);
}

/* Inserts an 802.1Q tag (vid, prio) into the frame in fr of length len. */
static uint32_t tag(uint32_t len, uint16_t vid, uint8_t prio)
{
	memmove(fr + 16, fr + 12, len - 12);
	fr[12] = 0x81;
	fr[13] = 0x00;
	fr[14] = (uint8_t)(prio << 5 | (vid >> 8 & 0xf));
	fr[15] = (uint8_t)vid;
	return len + 4;
}

/* An Ethernet/IPv6/TCP frame from s to d (16 bytes each). */
static uint32_t tcp6(const char *s, const char *d, uint16_t sp, uint16_t dp)
{
	memset(fr, 0, 100);
	memcpy(fr, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x86\xdd", 14);
	fr[14] = 0x60;
	fr[19] = 20;
	fr[20] = 6;
	fr[21] = 64;
	inet_pton(AF_INET6, s, fr + 22);
	inet_pton(AF_INET6, d, fr + 38);
	fr[54] = (uint8_t)(sp >> 8);
	fr[55] = (uint8_t)sp;
	fr[56] = (uint8_t)(dp >> 8);
	fr[57] = (uint8_t)dp;
	fr[66] = 0x50;
	return 74;
}

#define C(maj, min) ((uint32_t)(maj) << 16 | (min))

/* ---- parsing ---- */

static void test_refusals(void)
{
	static const struct {
		uint16_t proto;
		const char *words, *msg;
		int err;
	} cases[] = {
		{0x0800, "ip_proto foo", "t.tc:1: flower: Illegal \"ip_proto\"", -EINVAL},
		{0x0003, "ip_proto tcp", "t.tc:1: flower: Illegal \"ip_proto\" (Illegal \"eth_type\" for ip proto)", -EINVAL},
		{0x86dd, "ip_proto icmp", "t.tc:1: flower: Illegal \"ip_proto\" (Illegal \"eth_type\" for ip proto)", -EINVAL},
		{0x0800, "ip_proto 300", "t.tc:1: flower: Illegal \"ip_proto\"", -EINVAL},
		{0x0800, "dst_port 22", "t.tc:1: flower: Illegal \"dst_port\"", -EINVAL},
		{0x0800, "ip_proto tcp dst_port 70000", "t.tc:1: flower: Illegal \"dst_port\"", -EINVAL},
		{0x0800, "ip_proto tcp dst_port 0", "t.tc:1: flower: Illegal \"dst_port\"", -EINVAL},
		{0x0800, "ip_proto tcp dst_port 30-20",
		 "t.tc:1: flower: Illegal \"dst_port\" (max value should be greater than min value)", -EINVAL},
		{0x0800, "src_ip 1.2.3.4/33", "t.tc:1: flower: Error: inet prefix is expected rather than \"1.2.3.4/33\".", -EINVAL},
		{0x0800, "src_ip 1.2.3.4/255.0.255.0",
		 "t.tc:1: flower: Error: inet prefix is expected rather than \"1.2.3.4/255.0.255.0\".", -EINVAL},
		{0x0800, "dst_ip 2001:db8::1", "t.tc:1: flower: Illegal \"dst_ip\" (Illegal \"eth_type\" for ip address)", -EINVAL},
		{0x0800, "vlan_id 5",
		 "t.tc:1: flower: Can't set \"vlan_id\" if ethertype isn't 802.1Q or 802.1AD and num_of_vlans is 0", -EINVAL},
		{0x8100, "vlan_id 4096", "t.tc:1: flower: Illegal \"vlan_id\"", -EINVAL},
		{0x8100, "vlan_prio 8", "t.tc:1: flower: Illegal \"vlan_prio\"", -EINVAL},
		{0x0800, "ip_tos 300", "t.tc:1: flower: Illegal \"ip_tos\"", -EINVAL},
		{0x0800, "ip_proto tcp tcp_flags 0x1000", "t.tc:1: flower: Illegal \"tcp_flags\"", -EINVAL},
		{0x0800, "ip_proto tcp type 8", "t.tc:1: flower: Illegal \"icmp type\"", -EINVAL},
		{0x0800, "dst_mac zz", "t.tc:1: flower: Illegal \"dst_mac\" (\"zz\" is invalid lladdr.)", -EINVAL},
		{0x0800, "classid 1:2:3", "t.tc:1: flower: Illegal \"classid\"", -EINVAL},
		{0x0800, "ip_proto", "t.tc:1: flower: Command line is not complete. Try option \"help\"", -EINVAL},
		{0x0800, "ct_state +trk", "t.tc:1: flower: \"ct_state\" is not modelled by tcsim", -EOPNOTSUPP},
		{0x0800, "enc_key_id 5", "t.tc:1: flower: \"enc_key_id\" is not modelled by tcsim", -EOPNOTSUPP},
		{0x0800, "indev eth1", "t.tc:1: flower: \"indev\" is not modelled by tcsim", -EOPNOTSUPP},
		{0x0800, "action drop", "t.tc:1: flower: \"action\" is not modelled by tcsim", -EOPNOTSUPP},
		{0x0800, "ip_proto tcp skip_sw",
		 "t.tc:1: RTNETLINK answers: Operation not supported (skip_sw: the device does not offload flower)",
		 -EOPNOTSUPP},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct chain ch = {.c = {.kernel = BPF_KERNEL_CURRENT}};
		int r = add(&ch, 1, cases[i].proto, 0, cases[i].words);

		if (r != cases[i].err || strcmp(ch.err, cases[i].msg))
			printf("\n  %s: %d %s\n", cases[i].words, r, ch.err);
		CU_ASSERT_EQUAL(r, cases[i].err);
		CU_ASSERT_STRING_EQUAL(ch.err, cases[i].msg);
		CU_ASSERT_PTR_NULL(ch.c.head); /* a refused request leaves no tcf_proto */
		tcf_chain_flush(&ch.c);
	}
}

static void test_bogus_word_names_usage(void)
{
	struct chain ch = {.c = {.kernel = BPF_KERNEL_CURRENT}};

	CU_ASSERT_EQUAL(add(&ch, 1, 0x0800, 0, "bogus"), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(ch.err, "t.tc:1: flower: What is \"bogus\"? Usage: ... flower"));
}

/* ---- classification ---- */

static void test_ports_and_protocols(void)
{
	struct chain ch = {.c = {.kernel = BPF_KERNEL_CURRENT}};

	add_ok(&ch, 1, 0x0800, "ip_proto tcp dst_port 22 classid 1:1");
	add_ok(&ch, 1, 0x0800, "ip_proto udp dst_port 53 classid 1:2");
	CU_ASSERT_EQUAL(classify(&ch, fr, tcp(IP(10, 0, 0, 1), IP(10, 0, 0, 2), 4000, 22, 0), 0), C(1, 1));
	CU_ASSERT_EQUAL(classify(&ch, fr, udp(IP(10, 0, 0, 1), IP(10, 0, 0, 2), 4000, 53), 0), C(1, 2));
	/* same mask: a UDP port 22 is not a TCP port 22 */
	CU_ASSERT_EQUAL(classify(&ch, fr, udp(IP(10, 0, 0, 1), IP(10, 0, 0, 2), 4000, 22), 0), 0);
	CU_ASSERT_EQUAL(classify(&ch, fr, tcp(IP(10, 0, 0, 1), IP(10, 0, 0, 2), 22, 4000, 0), 0), 0);
	tcf_chain_flush(&ch.c);
}

/* fl_classify: masks in creation order, the first hit wins, whatever the
 * handles or how specific a key is. */
static void test_mask_order(void)
{
	struct chain ch = {.c = {.kernel = BPF_KERNEL_CURRENT}};

	add_ok(&ch, 1, 0x0800, "ip_proto tcp classid 1:1");
	add_ok(&ch, 1, 0x0800, "ip_proto tcp dst_port 22 classid 1:2");
	CU_ASSERT_EQUAL(classify(&ch, fr, tcp(IP(1, 1, 1, 1), IP(2, 2, 2, 2), 999, 22, 0), 0), C(1, 1));
	tcf_chain_flush(&ch.c);

	add_ok(&ch, 1, 0x0800, "ip_proto tcp dst_port 22 classid 1:2");
	add_ok(&ch, 1, 0x0800, "ip_proto tcp classid 1:1");
	CU_ASSERT_EQUAL(classify(&ch, fr, tcp(IP(1, 1, 1, 1), IP(2, 2, 2, 2), 999, 22, 0), 0), C(1, 2));
	CU_ASSERT_EQUAL(classify(&ch, fr, tcp(IP(1, 1, 1, 1), IP(2, 2, 2, 2), 999, 80, 0), 0), C(1, 1));
	tcf_chain_flush(&ch.c);
}

/* A mask goes with its last filter; made again, it is tried last. */
static void test_mask_recreated_goes_last(void)
{
	struct chain ch = {.c = {.kernel = BPF_KERNEL_CURRENT}};
	struct tcf_request del = {.pref = 1, .protocol = 0x0800, .handle = 1, .where = "t.tc:2"};

	add_ok(&ch, 1, 0x0800, "ip_proto tcp dst_port 22 classid 1:2"); /* handle 1 */
	add_ok(&ch, 1, 0x0800, "ip_proto tcp classid 1:1");             /* handle 2 */
	CU_ASSERT_EQUAL(tcf_chain_delete(&ch.c, &del, ch.err, sizeof(ch.err)), 0);
	add_ok(&ch, 1, 0x0800, "ip_proto tcp dst_port 22 classid 1:2"); /* handle 1 again */
	CU_ASSERT_EQUAL(classify(&ch, fr, tcp(IP(1, 1, 1, 1), IP(2, 2, 2, 2), 999, 22, 0), 0), C(1, 1));
	tcf_chain_flush(&ch.c);
}

static void test_eexist_and_handles(void)
{
	struct chain ch = {.c = {.kernel = BPF_KERNEL_CURRENT}};
	uint32_t h;

	add_ok(&ch, 1, 0x0800, "ip_proto tcp dst_port 22 classid 1:1");
	CU_ASSERT_EQUAL(add(&ch, 1, 0x0800, 0, "ip_proto tcp dst_port 22 classid 1:2"), -EEXIST);
	CU_ASSERT_STRING_EQUAL(ch.err,
			       "t.tc:1: RTNETLINK answers: File exists (flower handle 0x1 has the same mask and key)");
	/* same key, other mask: allowed */
	add_ok(&ch, 1, 0x0800, "ip_proto tcp dst_port 22/0xff00 classid 1:2");
	CU_ASSERT_EQUAL(add(&ch, 1, 0x0800, 7, "ip_proto udp"), 0);
	add_ok(&ch, 1, 0x0800, "ip_proto sctp"); /* lowest free: 3 */
	CU_ASSERT_EQUAL(ch.c.head->ops->count(ch.c.head), 4);
	CU_ASSERT_EQUAL(ch.c.head->ops->handle_at(ch.c.head, 2, &h), 0);
	CU_ASSERT_EQUAL(h, 3);
	CU_ASSERT_EQUAL(ch.c.head->ops->handle_at(ch.c.head, 3, &h), 0);
	CU_ASSERT_EQUAL(h, 7);
	CU_ASSERT_EQUAL(add(&ch, 1, 0x0800, 7, "ip_proto udp"), -EEXIST);
	tcf_chain_flush(&ch.c);
}

static void test_replace_keeps_mask(void)
{
	struct chain ch = {.c = {.kernel = BPF_KERNEL_CURRENT}};
	struct tcf_env env = {.kernel = BPF_KERNEL_CURRENT, .ifindex = 2};
	char *argv1[] = {"ip_proto", "tcp", "dst_port", "22", "classid", "1:3"};
	char *argv2[] = {"ip_proto", "tcp", "classid", "1:3"};
	struct tcf_request req = {.pref = 1, .protocol = 0x0800, .handle = 1, .create = 1,
				  .kind = "flower", .argc = 6, .argv = argv1, .where = "t.tc:3"};

	add_ok(&ch, 1, 0x0800, "ip_proto tcp dst_port 80 classid 1:1");
	CU_ASSERT_EQUAL(tcf_chain_change(&ch.c, &req, &env, ch.err, sizeof(ch.err)), 0);
	CU_ASSERT_EQUAL(classify(&ch, fr, tcp(IP(1, 1, 1, 1), IP(2, 2, 2, 2), 999, 22, 0), 0), C(1, 3));
	req.argc = 4;
	req.argv = argv2;
	CU_ASSERT_EQUAL(tcf_chain_change(&ch.c, &req, &env, ch.err, sizeof(ch.err)), -EINVAL);
	tcf_chain_flush(&ch.c);
}

/* fl_lookup_range: inclusive bounds; ranges in one mask, first that holds. */
static void test_port_ranges(void)
{
	struct chain ch = {.c = {.kernel = BPF_KERNEL_CURRENT}};

	add_ok(&ch, 1, 0x0800, "ip_proto tcp dst_port 1000-2000 classid 1:1");
	add_ok(&ch, 1, 0x0800, "ip_proto tcp dst_port 1500-3000 classid 1:2");
	add_ok(&ch, 1, 0x0800, "ip_proto udp src_port 60-70 dst_port 60-70 classid 1:3");
	CU_ASSERT_EQUAL(classify(&ch, fr, tcp(1, 2, 5, 999, 0), 0), 0);
	CU_ASSERT_EQUAL(classify(&ch, fr, tcp(1, 2, 5, 1000, 0), 0), C(1, 1));
	CU_ASSERT_EQUAL(classify(&ch, fr, tcp(1, 2, 5, 1700, 0), 0), C(1, 1));
	CU_ASSERT_EQUAL(classify(&ch, fr, tcp(1, 2, 5, 2001, 0), 0), C(1, 2));
	CU_ASSERT_EQUAL(classify(&ch, fr, tcp(1, 2, 5, 3000, 0), 0), C(1, 2));
	CU_ASSERT_EQUAL(classify(&ch, fr, udp(1, 2, 67, 68), 0), C(1, 3));
	CU_ASSERT_EQUAL(classify(&ch, fr, udp(1, 2, 67, 53), 0), 0);
	tcf_chain_flush(&ch.c);
}

static void test_addresses_tos_ttl_flags(void)
{
	struct chain ch = {.c = {.kernel = BPF_KERNEL_CURRENT}};

	add_ok(&ch, 1, 0x0800, "src_ip 192.168.0.0/16 dst_ip 10.1.2.3 classid 1:1");
	add_ok(&ch, 2, 0x0800, "ip_tos 0x10/0x1e classid 1:2");
	add_ok(&ch, 3, 0x0800, "ip_proto tcp tcp_flags 0x2/0x12 classid 1:3");
	add_ok(&ch, 4, 0x0800, "ip_ttl 64 classid 1:4");
	CU_ASSERT_EQUAL(classify(&ch, fr, tcp(IP(192, 168, 7, 7), IP(10, 1, 2, 3), 1, 2, 0), 0), C(1, 1));
	CU_ASSERT_EQUAL(classify(&ch, fr, tcp(IP(192, 169, 7, 7), IP(10, 1, 2, 3), 1, 2, 0x11), 0), C(1, 2));
	tcp(IP(192, 169, 7, 7), IP(10, 1, 2, 3), 1, 2, 0);
	fr[47] = 0x02; /* SYN */
	CU_ASSERT_EQUAL(classify(&ch, fr, 60, 0), C(1, 3));
	fr[47] = 0x12; /* SYN+ACK */
	CU_ASSERT_EQUAL(classify(&ch, fr, 60, 0), C(1, 4));
	tcf_chain_flush(&ch.c);
}

/* fl_set_key drops what does not fit the protocol: tos without an IP
 * EtherType, tcp_flags without ip_proto tcp. The filter matches all. */
static void test_kernel_drops_unfit_keys(void)
{
	struct chain ch = {.c = {.kernel = BPF_KERNEL_CURRENT}};

	add_ok(&ch, 1, 0x0003, "ip_tos 8 classid 1:1");
	add_ok(&ch, 2, 0x0800, "tcp_flags 0x2 classid 1:2");
	CU_ASSERT_EQUAL(classify(&ch, fr, udp(1, 2, 3, 4), 0), C(1, 1));
	tcf_chain_flush(&ch.c);
	add_ok(&ch, 2, 0x0800, "tcp_flags 0x2 classid 1:2");
	CU_ASSERT_EQUAL(classify(&ch, fr, udp(1, 2, 3, 4), 0), C(1, 2));
	tcf_chain_flush(&ch.c);
}

/* An IPv4 fragment has no ports (not even the first): it falls past a port
 * filter but still matches on addresses and ip_proto. */
static void test_fragments(void)
{
	struct chain ch = {.c = {.kernel = BPF_KERNEL_CURRENT}};

	add_ok(&ch, 1, 0x0800, "ip_proto udp dst_port 53 classid 1:1");
	add_ok(&ch, 2, 0x0800, "ip_proto udp classid 1:2");
	udp(1, 2, 3, 53);
	fr[20] = 0x20; /* MF, offset 0: the first fragment */
	CU_ASSERT_EQUAL(classify(&ch, fr, 60, 0), C(1, 2));
	fr[20] = 0x00;
	CU_ASSERT_EQUAL(classify(&ch, fr, 60, 0), C(1, 1));
	/* options: the ports are found after the longer header */
	memmove(fr + 38, fr + 34, 22);
	memset(fr + 34, 1, 4); /* NOP options */
	fr[14] = 0x46;
	CU_ASSERT_EQUAL(classify(&ch, fr, 64, 0), C(1, 1));
	tcf_chain_flush(&ch.c);
}

static void test_ipv6_prefixes(void)
{
	struct chain ch = {.c = {.kernel = BPF_KERNEL_CURRENT}};

	add_ok(&ch, 1, 0x86dd, "dst_ip 2001:db8:1::/48 classid 1:1");
	add_ok(&ch, 2, 0x86dd, "src_ip fe80::/10 ip_proto tcp dst_port 22 classid 1:2");
	CU_ASSERT_EQUAL(classify(&ch, fr, tcp6("2001:db8::1", "2001:db8:1:ffff::9", 1, 2), 0), C(1, 1));
	CU_ASSERT_EQUAL(classify(&ch, fr, tcp6("fe80::1", "2001:db8:2::9", 1, 22), 0), C(1, 2));
	CU_ASSERT_EQUAL(classify(&ch, fr, tcp6("fec0::1", "2001:db8:2::9", 1, 22), 0), 0);
	tcf_chain_flush(&ch.c);
}

/* The VLAN key from an offloaded tag (skb_vlan_tag_present); from a tag
 * kept in the frame, 6.1's AF_PACKET network header (after the tag) makes
 * the dissector read the IP header as the tag, so vlan_id 32 fails. */
static void test_vlan(void)
{
	struct chain ch = {.c = {.kernel = BPF_KERNEL_CURRENT}};
	uint32_t n;

	add_ok(&ch, 1, 0x8100, "vlan_id 32 vlan_prio 5 classid 1:1");
	add_ok(&ch, 2, 0x8100, "vlan_ethtype ip ip_proto udp dst_port 53 classid 1:2");
	n = tag(udp(1, 2, 3, 4), 32, 5);
	CU_ASSERT_EQUAL(classify(&ch, fr, n, 1), C(1, 1));
	CU_ASSERT_EQUAL(classify(&ch, fr, n, 0), 0);
	n = tag(udp(1, 2, 3, 53), 33, 5);
	CU_ASSERT_EQUAL(classify(&ch, fr, n, 1), C(1, 2));
	/* protocol ip filters do not see tagged packets at all */
	tcf_chain_flush(&ch.c);
	add_ok(&ch, 1, 0x0800, "classid 1:3");
	CU_ASSERT_EQUAL(classify(&ch, fr, n, 1), 0);
	tcf_chain_flush(&ch.c);
}

static void test_macs(void)
{
	struct chain ch = {.c = {.kernel = BPF_KERNEL_CURRENT}};

	/* the frames go 02:00:00:00:00:01 -> 02:00:00:00:00:02 */
	add_ok(&ch, 1, 0x0003, "dst_mac 02:00:00:00:00:00/40 classid 1:1");
	add_ok(&ch, 2, 0x0003, "src_mac 02:00:00:00:00:01/ff:00:00:00:00:ff classid 1:2");
	CU_ASSERT_EQUAL(classify(&ch, fr, udp(1, 2, 3, 4), 0), C(1, 1));
	fr[4] = 9;
	CU_ASSERT_EQUAL(classify(&ch, fr, 60, 0), C(1, 2));
	tcf_chain_flush(&ch.c);
}

/* ---- tc filter show, as iproute2 6.1 printed it for the same commands
 * (tests/data/qemu/flower-show.filters holds the whole listing) ---- */

static void test_show_text(void)
{
	struct sim s;
	struct sim_config cfg;
	char *buf = NULL, err[512] = "";
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	int r;

	sim_config_default(&cfg);
	CU_ASSERT_EQUAL_FATAL(sim_init(&s, &cfg), 0);
	r = tc_run_script(&s,
			  "tc qdisc add dev eth0 root handle 1: prio\n"
			  "tc filter add dev eth0 parent 1: protocol ip pref 1 flower ip_proto tcp dst_port 22 classid 1:1\n"
			  "tc filter add dev eth0 parent 1: protocol ip pref 3 flower ip_proto tcp tcp_flags 0x2/0x12 ip_tos 0x10/0x1e ip_ttl 64 classid 1:2 skip_hw\n"
			  "tc filter add dev eth0 parent 1: protocol 802.1Q pref 6 flower vlan_id 5 vlan_prio 3 vlan_ethtype ip ip_proto udp src_port 53/0xff00 classid 1:3\n"
			  "tc filter add dev eth0 parent 1: protocol all pref 7 flower src_mac 00:11:22:33:44:55/ff:00:ff:00:ff:00 ip_tos 8 classid 1:3\n"
			  "tc filter add dev eth0 parent 1: protocol ip pref 10 handle 5 flower\n"
			  "tc filter add dev eth0 parent 1: protocol ip pref 10 flower ip_proto 47 src_ip 1.2.3.4/12\n"
			  "tc filter show dev eth0\n",
			  "t.tc", ".", out, err, sizeof(err));
	fclose(out);
	if (r)
		printf("\n  %s\n", err);
	CU_ASSERT_EQUAL(r, 0);
	CU_ASSERT_STRING_EQUAL(buf,
			       "filter parent 1: protocol ip pref 1 flower chain 0 \n"
			       "filter parent 1: protocol ip pref 1 flower chain 0 handle 0x1 classid 1:1 \n"
			       "  eth_type ipv4\n"
			       "  ip_proto tcp\n"
			       "  dst_port 22\n"
			       "  not_in_hw\n"
			       "filter parent 1: protocol ip pref 3 flower chain 0 \n"
			       "filter parent 1: protocol ip pref 3 flower chain 0 handle 0x1 classid 1:2 \n"
			       "  eth_type ipv4\n"
			       "  ip_proto tcp\n"
			       "  ip_tos 16/0x1e\n"
			       "  ip_ttl 64\n"
			       "  tcp_flags 0x2/12\n"
			       "  skip_hw\n"
			       "  not_in_hw\n"
			       "filter parent 1: protocol 802.1Q pref 6 flower chain 0 \n"
			       "filter parent 1: protocol 802.1Q pref 6 flower chain 0 handle 0x1 classid 1:3 \n"
			       "  vlan_id 5\n"
			       "  vlan_prio 3\n"
			       "  vlan_ethtype ip\n"
			       "  eth_type ipv4\n"
			       "  ip_proto udp\n"
			       "  src_port 53/0xff00\n"
			       "  not_in_hw\n"
			       "filter parent 1: protocol all pref 7 flower chain 0 \n"
			       "filter parent 1: protocol all pref 7 flower chain 0 handle 0x1 classid 1:3 \n"
			       "  src_mac 00:11:22:33:44:55/ff:00:ff:00:ff:00\n"
			       "  not_in_hw\n"
			       "filter parent 1: protocol ip pref 10 flower chain 0 \n"
			       "filter parent 1: protocol ip pref 10 flower chain 0 handle 0x1 \n"
			       "  eth_type ipv4\n"
			       "  ip_proto 47\n"
			       "  src_ip 1.2.3.4/12\n"
			       "  not_in_hw\n"
			       "filter parent 1: protocol ip pref 10 flower chain 0 handle 0x5 \n"
			       "  eth_type ipv4\n"
			       "  not_in_hw\n");
	free(buf);
	sim_free(&s);
}

int main(void)
{
	CU_pSuite su;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	su = CU_add_suite("cls_flower", NULL, NULL);
	CU_add_test(su, "bad values refused as iproute2 refuses them", test_refusals);
	CU_add_test(su, "an unknown word names the usage", test_bogus_word_names_usage);
	CU_add_test(su, "ip_proto and ports", test_ports_and_protocols);
	CU_add_test(su, "masks are tried in creation order", test_mask_order);
	CU_add_test(su, "a mask made again is tried last", test_mask_recreated_goes_last);
	CU_add_test(su, "same mask and key: -EEXIST; handles lowest free", test_eexist_and_handles);
	CU_add_test(su, "replace keeps the mask", test_replace_keeps_mask);
	CU_add_test(su, "port ranges", test_port_ranges);
	CU_add_test(su, "addresses, tos, ttl, tcp_flags", test_addresses_tos_ttl_flags);
	CU_add_test(su, "keys that do not fit the protocol are dropped", test_kernel_drops_unfit_keys);
	CU_add_test(su, "fragments have no ports; options are skipped", test_fragments);
	CU_add_test(su, "IPv6 prefixes", test_ipv6_prefixes);
	CU_add_test(su, "VLAN offloaded and inline", test_vlan);
	CU_add_test(su, "MAC addresses with masks", test_macs);
	CU_add_test(su, "tc filter show as iproute2 6.1", test_show_text);
	return unit_run();
}
