/* test_cls_u32.c - the u32 classifier: selectors packed into keys as
 * iproute2 6.1 packs them (every expected text below was recorded from
 * `tc filter show` of iproute2 6.1 on a Linux 6.x kernel), the kernel's
 * walk (IPv4 options behind nexthdr+ and eat, hash tables, links, order,
 * reads beyond the packet), the show text of tables and nodes, tc's
 * errors, and the traced walk's account. */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf.h"
#include "cls.h"
#include "qdisc.h"
#include "sim.h"
#include "tc.h"
#include "tc_unit.h"
#include "unit.h"

/* ---- helpers ---- */


static char *ok(struct sim *s, const char *script)
{
	char err[1024];
	int r;
	char *o = tcu_run(s, script, ".", &r, err, sizeof(err));

	if (r)
		printf("\n  unexpected error: %s\n", err);
	CU_ASSERT_EQUAL(r, 0);
	return o;
}

/* A script that must fail; its message must hold `want`. */
static void fails(const char *script, const char *want)
{
	struct sim s;
	char err[1024];
	int r;
	char *o;

	tcu_sim_default(&s);
	o = tcu_run(&s, script, ".", &r, err, sizeof(err));
	CU_ASSERT(r < 0);
	if (!strstr(err, want))
		printf("\n  %s\n  got: %s\n  expected a message with: %s\n", script, err, want);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
	CU_ASSERT_PTR_NULL(strchr(err, '\n'));
	free(o);
	sim_free(&s);
}

static const char root[] = "tc qdisc add dev eth0 root handle 1: htb default 99\n";

/* The classid the root's filters give a frame, or -1. */
static long classify(struct sim *s, const uint8_t *frame, uint32_t caplen, uint32_t len,
		     uint32_t mark)
{
	struct dev *d = sim_dev_find(s, "eth0");
	struct tcf_result res;
	struct bpf_skb skb;

	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	bpf_skb_init_ether(&skb, frame, caplen, len);
	skb.mark = mark;
	if (tcf_classify(&d->root->chain, &skb, skb.protocol, &res) < 0)
		return -1;
	return (long)res.classid;
}

/* An Ethernet/IPv4 frame with ihl 5 + nopt option words, then an 20-byte
 * TCP header (flags) or an 8-byte UDP header, then zeros up to len. */
static uint32_t frame4(uint8_t *b, uint32_t len, int nopt, uint8_t proto, uint32_t saddr,
		       uint32_t daddr, uint16_t sport, uint16_t dport, uint8_t flags)
{
	uint8_t *ip = b + 14, *l4 = ip + 20 + 4 * nopt;

	memset(b, 0, len);
	memset(b, 0xff, 6);
	memcpy(b + 6, "\x02\x00\x00\x00\x00\x01", 6);
	b[12] = 0x08;
	ip[0] = (uint8_t)(0x40 | (5 + nopt));
	ip[2] = (uint8_t)((len - 14) >> 8);
	ip[3] = (uint8_t)(len - 14);
	ip[6] = 0x40; /* DF */
	ip[8] = 64;
	ip[9] = proto;
	for (int i = 0; i < 4; i++) {
		ip[12 + i] = (uint8_t)(saddr >> (24 - 8 * i));
		ip[16 + i] = (uint8_t)(daddr >> (24 - 8 * i));
	}
	if (nopt) { /* Router Alert, then NOPs */
		memset(ip + 20, 1, 4u * (unsigned)nopt);
		memcpy(ip + 20, "\x94\x04\x00\x00", 4);
	}
	l4[0] = (uint8_t)(sport >> 8);
	l4[1] = (uint8_t)sport;
	l4[2] = (uint8_t)(dport >> 8);
	l4[3] = (uint8_t)dport;
	if (proto == 6) {
		l4[12] = 0x50;
		l4[13] = flags;
	}
	return len;
}

#define IP4(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

/* ---- key packing ---- */

/* Each selector alone at pref 1, its keys as iproute2 6.1 prints them. */
static void test_keys_packed_as_tc(void)
{
	static const struct {
		const char *sel;
		const char *keys;
	} t[] = {
	    {"match ip src 10.1.2.0/24",
	     "  match 0a010200/ffffff00 at 12"},
	    {"match ip dst 8.8.8.8/32",
	     "  match 08080808/ffffffff at 16"},
	    {"match ip src 10.0.0.0/255.255.0.0",
	     "  match 0a000000/ffff0000 at 12"},
	    {"match ip tos 0x10 0xff",
	     "  match 00100000/00ff0000 at 0"},
	    {"match ip dsfield 0xb8 0xfc",
	     "  match 00b80000/00fc0000 at 0"},
	    {"match ip precedence 0xe0 0xe0",
	     "  match 00e00000/00e00000 at 0"},
	    {"match ip ihl 6 0x0f",
	     "  match 06000000/0f000000 at 0"},
	    {"match ip protocol 6 0xff",
	     "  match 00060000/00ff0000 at 8"},
	    {"match ip nofrag",
	     "  match 00000000/00003fff at 4"},
	    {"match ip firstfrag",
	     "  match 00002000/00003fff at 4"},
	    {"match ip df",
	     "  match 00004000/00004000 at 4"},
	    {"match ip mf",
	     "  match 00002000/00002000 at 4"},
	    {"match ip dport 22 0xffff",
	     "  match 00000016/0000ffff at 20"},
	    {"match ip sport 22 0xffff",
	     "  match 00160000/ffff0000 at 20"},
	    {"match ip sport 22 0xffff match ip dport 80 0xffff",
	     "  match 00160050/ffffffff at 20"},
	    {"match ip icmp_type 8 0xff",
	     "  match 08000000/ff000000 at 20"},
	    {"match ip icmp_code 3 0xff",
	     "  match 00030000/00ff0000 at 20"},
	    {"match ip6 src 2001:db8::/48",
	     "  match 20010db8/ffffffff at 8\n  match 00000000/ffff0000 at 12"},
	    {"match ip6 dst ff02::fb/128",
	     "  match ff020000/ffffffff at 24\n  match 00000000/ffffffff at 28\n  match 00000000/ffffffff at 32\n  match 000000fb/ffffffff at 36"},
	    {"match ip6 src 2001:db8:1:2:3:4:5:6/100",
	     "  match 20010db8/ffffffff at 8\n  match 00010002/ffffffff at 12\n  match 00030004/ffffffff at 16\n  match 00000000/f0000000 at 20"},
	    {"match ip6 priority 0x10 0xff",
	     "  match 01000000/0ff00000 at 0"},
	    {"match ip6 protocol 58 0xff",
	     "  match 00003a00/0000ff00 at 4"},
	    {"match ip6 flowlabel 0x12345 0x000fffff",
	     "  match 00012345/000fffff at 0"},
	    {"match ip6 dport 53 0xffff",
	     "  match 00000035/0000ffff at 40"},
	    {"match ip6 sport 53 0xffff",
	     "  match 00350000/ffff0000 at 40"},
	    {"match ip6 icmp_type 135 0xff",
	     "  match 87000000/ff000000 at 40"},
	    {"match ip6 icmp_code 0 0xff",
	     "  match 00000000/00ff0000 at nexthdr+40"},
	    {"match tcp dst 80 0xffff",
	     "  match 00000050/0000ffff at nexthdr+0"},
	    {"match tcp src 1024 0xfc00",
	     "  match 04000000/fc000000 at nexthdr+0"},
	    {"match udp dst 53 0xffff",
	     "  match 00000035/0000ffff at nexthdr+0"},
	    {"match icmp type 8 0xff",
	     "  match 08000000/ff000000 at nexthdr+0"},
	    {"match icmp code 0 0xff",
	     "  match 00000000/00ff0000 at nexthdr+0"},
	    {"match u32 0x45000000 0xff000000 at 0",
	     "  match 45000000/ff000000 at 0"},
	    {"match u16 0x0800 0xffff at -2",
	     "  match 00000800/0000ffff at -4"},
	    {"match u8 0x10 0xff at nexthdr+13",
	     "  match 00100000/00ff0000 at nexthdr+12"},
	    {"match u8 0x02 0x02 at nexthdr+ 13",
	     "  match 00020000/00020000 at nexthdr+12"},
	    {"match u16 0x1234 0xffff at 6",
	     "  match 00001234/0000ffff at 4"},
	    {"match u8 0x05 0x0f at 0 match u16 0x0000 0xffc0 at 2 match u8 0x10 0xff at 33",
	     "  match 05000000/0f00ffc0 at 0\n  match 00100000/00ff0000 at 32"},
	    {"match ether src 01:02:03:04:05:06",
	     "  match 01020304/ffffffff at -8\n  match 05060000/ffff0000 at -4"},
	    {"match ether dst ff:ff:ff:ff:ff:ff",
	     "  match 0000ffff/0000ffff at -16\n  match ffffffff/ffffffff at -12"},
	    {"match u32 0 0 offset at 0 mask 0f00 shift 6 eat",
	     "  match 00000000/00000000 at 0\n    offset 0f00>>6 at 0  eat "},
	    {"match u32 0 0 offset plus 20 eat",
	     "  match 00000000/00000000 at 0\n    offset plus 20  eat "},
	    {"match u32 0 0 offset at 0 mask 0f00 shift 6 plus 4",
	     "  match 00000000/00000000 at 0\n    offset 0f00>>6 at 0 plus 4 "},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct sim s;
		char script[512], *o, *keys;
		char want[256];

		tcu_sim_default(&s);
		snprintf(script, sizeof(script),
			 "%stc filter add dev eth0 parent 1: protocol ip pref 1 u32 %s flowid 1:1\n"
			 "tc filter show dev eth0\n",
			 root, t[i].sel);
		o = ok(&s, script);
		snprintf(want, sizeof(want),
			 "filter parent 1: protocol ip pref 1 u32 chain 0 fh 800::800 order 2048 key ht "
			 "800 bkt 0 *flowid 1:1 not_in_hw \n%s\n",
			 t[i].keys);
		keys = o ? strstr(o, "filter parent 1: protocol ip pref 1 u32 chain 0 fh 800::800") : NULL;
		if (!keys || strcmp(keys, want))
			printf("\n  %s\n  got:\n%s  expected:\n%s", t[i].sel, keys ? keys : "(none)", want);
		CU_ASSERT(keys && !strcmp(keys, want));
		free(o);
		sim_free(&s);
	}
}

/* ---- show text of tables, links, hashing, order ---- */

static void test_show_tables_links_order(void)
{
	static const char script[] =
		"tc filter add dev eth0 parent 1: protocol ip prio 5 handle 2: u32 divisor 256\n"
		"tc filter add dev eth0 parent 1: protocol ip prio 5 u32 ht 2:10: match ip src 192.168.2.16/32 flowid 1:1\n"
		"tc filter add dev eth0 parent 1: protocol ip prio 5 u32 ht 2: sample ip src 8.8.8.8/32 match ip src 8.8.8.8/32 flowid 1:3\n"
		"tc filter add dev eth0 parent 1: protocol ip prio 5 u32 ht 800:: match ip src 0.0.0.0/0 hashkey mask 0x000000ff at 12 link 2:\n"
		"tc filter add dev eth0 parent 1: protocol ip prio 6 u32 order 20 match ip protocol 17 0xff flowid 1:1\n"
		"tc filter add dev eth0 parent 1: protocol ip prio 6 u32 order 10 match ip dport 53 0xffff classid 1:2\n"
		"tc filter add dev eth0 parent 1: protocol ip prio 6 handle 801::7 u32 match ip protocol 6 0xff flowid 1:1\n"
		"tc filter show dev eth0\n";
	/* recorded from iproute2 6.1 */
	static const char want[] =
		"filter parent 1: protocol ip pref 5 u32 chain 0 \n"
		"filter parent 1: protocol ip pref 5 u32 chain 0 fh 2: ht divisor 256 \n"
		"filter parent 1: protocol ip pref 5 u32 chain 0 fh 2:8:800 order 2048 key ht 2 bkt 8 *flowid 1:3 not_in_hw \n"
		"  match 08080808/ffffffff at 12\n"
		"filter parent 1: protocol ip pref 5 u32 chain 0 fh 2:10:800 order 2048 key ht 2 bkt 10 *flowid 1:1 not_in_hw \n"
		"  match c0a80210/ffffffff at 12\n"
		"filter parent 1: protocol ip pref 5 u32 chain 0 fh 800: ht divisor 1 \n"
		"filter parent 1: protocol ip pref 5 u32 chain 0 fh 800::800 order 2048 key ht 800 bkt 0 link 2: not_in_hw \n"
		"  match 00000000/00000000 at 12\n"
		"    hash mask 000000ff at 12 \n"
		"filter parent 1: protocol ip pref 6 u32 chain 0 \n"
		"filter parent 1: protocol ip pref 6 u32 chain 0 fh 801: ht divisor 1 \n"
		"filter parent 1: protocol ip pref 6 u32 chain 0 fh 801::7 order 7 key ht 801 bkt 0 *flowid 1:1 not_in_hw \n"
		"  match 00060000/00ff0000 at 8\n"
		"filter parent 1: protocol ip pref 6 u32 chain 0 fh 801::a order 10 key ht 801 bkt 0 *flowid 1:2 not_in_hw \n"
		"  match 00000035/0000ffff at 20\n"
		"filter parent 1: protocol ip pref 6 u32 chain 0 fh 801::14 order 20 key ht 801 bkt 0 *flowid 1:1 not_in_hw \n"
		"  match 00110000/00ff0000 at 8\n";
	struct sim s;
	char buf[4096];
	char *o;

	tcu_sim_default(&s);
	snprintf(buf, sizeof(buf), "%s%s", root, script);
	o = ok(&s, buf);
	if (strcmp(o, want))
		printf("\n  got:\n%s  expected:\n%s", o, want);
	CU_ASSERT_STRING_EQUAL(o, want);
	free(o);
	/* deleting a node, then a table still linked to */
	o = ok(&s, "tc filter del dev eth0 parent 1: protocol ip pref 6 handle 801::a u32\n"
		   "tc filter show dev eth0 pref 6\n");
	CU_ASSERT_PTR_NULL(strstr(o, "801::a"));
	CU_ASSERT_PTR_NOT_NULL(strstr(o, "801::14"));
	free(o);
	sim_free(&s);
}

/* `match mark` as iproute2 prints it for a kernel built with
 * CONFIG_CLS_U32_MARK (tc/f_u32.c's "mark 0x%04x 0x%04x (success %d)"),
 * and the skb's mark deciding. */
static void test_mark(void)
{
	struct sim s;
	uint8_t f[80];
	char *o;

	tcu_sim_default(&s);
	o = ok(&s, "tc qdisc add dev eth0 root handle 1: htb\n"
		   "tc filter add dev eth0 parent 1: protocol ip pref 1 u32 match mark 0x10 0xff flowid 1:3\n"
		   "tc filter show dev eth0\n");
	CU_ASSERT_PTR_NOT_NULL(strstr(o, "*flowid 1:3 not_in_hw \n  mark 0x0010 0x00ff (success 0)\n"));
	free(o);
	frame4(f, 60, 0, 17, IP4(10, 0, 0, 1), IP4(10, 0, 0, 2), 1, 2, 0);
	CU_ASSERT_EQUAL(classify(&s, f, 60, 60, 0x110), 0x10003);
	CU_ASSERT_EQUAL(classify(&s, f, 60, 60, 0x11), -1);
	sim_free(&s);
}

/* ---- classification ---- */

static void test_lartc_ports_and_flags(void)
{
	struct sim s;
	uint8_t f[80];
	char buf[2048];

	tcu_sim_default(&s);
	snprintf(buf, sizeof(buf),
		 "%s"
		 "tc filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip dport 22 0xffff flowid 1:1\n"
		 "tc filter add dev eth0 parent 1: protocol ip prio 2 handle 7: u32 divisor 1\n"
		 "tc filter add dev eth0 parent 1: protocol ip prio 2 u32 ht 7: match u8 0x02 0x02 at nexthdr+13 flowid 1:2\n"
		 "tc filter add dev eth0 parent 1: protocol ip prio 2 u32 match ip protocol 6 0xff offset at 0 mask 0f00 shift 6 link 7:\n"
		 "tc filter add dev eth0 parent 1: protocol ip prio 3 u32 match ip src 10.1.0.0/16 match ip protocol 17 0xff flowid 1:3\n",
		 root);
	free(ok(&s, buf));
	CU_ASSERT_EQUAL(classify(&s, f, frame4(f, 66, 0, 6, IP4(10, 0, 0, 1), IP4(10, 0, 0, 2), 40000, 22, 0x10), 66, 0), 0x10001);
	/* a SYN to port 80: the flags byte behind the IPv4 header */
	CU_ASSERT_EQUAL(classify(&s, f, frame4(f, 66, 0, 6, IP4(10, 0, 0, 1), IP4(10, 0, 0, 2), 40000, 80, 0x02), 66, 0), 0x10002);
	CU_ASSERT_EQUAL(classify(&s, f, frame4(f, 66, 0, 6, IP4(10, 0, 0, 1), IP4(10, 0, 0, 2), 40000, 80, 0x10), 66, 0), -1);
	CU_ASSERT_EQUAL(classify(&s, f, frame4(f, 60, 0, 17, IP4(10, 1, 7, 1), IP4(10, 0, 0, 2), 1, 53, 0), 60, 0), 0x10003);
	CU_ASSERT_EQUAL(classify(&s, f, frame4(f, 60, 0, 17, IP4(10, 2, 7, 1), IP4(10, 0, 0, 2), 1, 53, 0), 60, 0), -1);
	sim_free(&s);
}

/* ihl > 5: `ip dport` reads at the fixed 20 (an option word), nexthdr+
 * after an offset link and the eaten offset find the transport header. */
static void test_ipv4_options(void)
{
	struct sim s;
	uint8_t f[96];
	char buf[2048];

	tcu_sim_default(&s);
	snprintf(buf, sizeof(buf),
		 "%s"
		 "tc filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip dport 22 0xffff flowid 1:1\n"
		 "tc filter add dev eth0 parent 1: protocol ip prio 2 handle 5: u32 divisor 1\n"
		 "tc filter add dev eth0 parent 1: protocol ip prio 2 u32 ht 5: match tcp dst 22 0xffff flowid 1:2\n"
		 "tc filter add dev eth0 parent 1: protocol ip prio 2 u32 match ip protocol 6 0xff offset at 0 mask 0f00 shift 6 link 5:\n"
		 "tc filter add dev eth0 parent 1: protocol ip prio 3 handle 6: u32 divisor 1\n"
		 "tc filter add dev eth0 parent 1: protocol ip prio 3 u32 ht 6: match u16 53 0xffff at 2 flowid 1:3\n"
		 "tc filter add dev eth0 parent 1: protocol ip prio 3 u32 match ip protocol 17 0xff offset at 0 mask 0f00 shift 6 eat link 6:\n",
		 root);
	free(ok(&s, buf));
	/* ihl 5: the fixed offset finds the port first */
	CU_ASSERT_EQUAL(classify(&s, f, frame4(f, 66, 0, 6, IP4(10, 0, 0, 1), IP4(10, 0, 0, 2), 1, 22, 0x10), 66, 0), 0x10001);
	/* ihl 6 and 7: only the offset machinery finds it */
	CU_ASSERT_EQUAL(classify(&s, f, frame4(f, 70, 1, 6, IP4(10, 0, 0, 1), IP4(10, 0, 0, 2), 1, 22, 0x10), 70, 0), 0x10002);
	CU_ASSERT_EQUAL(classify(&s, f, frame4(f, 74, 2, 6, IP4(10, 0, 0, 1), IP4(10, 0, 0, 2), 1, 22, 0x10), 74, 0), 0x10002);
	CU_ASSERT_EQUAL(classify(&s, f, frame4(f, 74, 2, 6, IP4(10, 0, 0, 1), IP4(10, 0, 0, 2), 1, 23, 0x10), 74, 0), -1);
	CU_ASSERT_EQUAL(classify(&s, f, frame4(f, 66, 1, 17, IP4(10, 0, 0, 1), IP4(10, 0, 0, 2), 1, 53, 0), 66, 0), 0x10003);
	CU_ASSERT_EQUAL(classify(&s, f, frame4(f, 62, 0, 17, IP4(10, 0, 0, 1), IP4(10, 0, 0, 2), 1, 53, 0), 62, 0), 0x10003);
	CU_ASSERT_EQUAL(classify(&s, f, frame4(f, 66, 1, 17, IP4(10, 0, 0, 1), IP4(10, 0, 0, 2), 1, 54, 0), 66, 0), -1);
	sim_free(&s);
}

/* LARTC's hashing filters: 256 buckets on the source's last byte; a port
 * table reached in two steps (the hash is read before the offset moves). */
static void test_hash_tables(void)
{
	struct sim s;
	uint8_t f[80];
	char buf[4096];

	tcu_sim_default(&s);
	snprintf(buf, sizeof(buf),
		 "%s"
		 "tc filter add dev eth0 parent 1: protocol ip prio 5 handle 2: u32 divisor 256\n"
		 "tc filter add dev eth0 parent 1: protocol ip prio 5 u32 ht 2:10: match ip src 192.168.2.16/32 flowid 1:1\n"
		 "tc filter add dev eth0 parent 1: protocol ip prio 5 u32 ht 2: sample ip src 8.8.8.8/32 match ip src 8.8.8.8/32 flowid 1:3\n"
		 "tc filter add dev eth0 parent 1: protocol ip prio 5 u32 ht 800:: match ip src 0.0.0.0/0 hashkey mask 0x000000ff at 12 link 2:\n"
		 "tc filter add dev eth0 parent 1: protocol ip prio 6 handle 3: u32 divisor 16\n"
		 "tc filter add dev eth0 parent 1: protocol ip prio 6 handle 4: u32 divisor 1\n"
		 "tc filter add dev eth0 parent 1: protocol ip prio 6 u32 ht 3:5: match udp dst 53 0xffff flowid 1:2\n"
		 "tc filter add dev eth0 parent 1: protocol ip prio 6 u32 ht 4: match u32 0 0 hashkey mask 0x0000000f at 0 link 3:\n"
		 "tc filter add dev eth0 parent 1: protocol ip prio 6 u32 match ip nofrag offset at 0 mask 0f00 shift 6 eat link 4:\n",
		 root);
	free(ok(&s, buf));
	CU_ASSERT_EQUAL(classify(&s, f, frame4(f, 60, 0, 17, IP4(192, 168, 2, 16), IP4(10, 0, 0, 2), 1, 2, 0), 60, 0), 0x10001);
	CU_ASSERT_EQUAL(classify(&s, f, frame4(f, 60, 0, 17, IP4(8, 8, 8, 8), IP4(10, 0, 0, 2), 1, 2, 0), 60, 0), 0x10003);
	/* bucket 0x10, another address: nothing in pref 5 */
	CU_ASSERT_EQUAL(classify(&s, f, frame4(f, 60, 0, 17, IP4(192, 168, 3, 16), IP4(10, 0, 0, 2), 1, 2, 0), 60, 0), -1);
	/* pref 6: port 53 is bucket 5 of table 3, 69 too but its key fails */
	CU_ASSERT_EQUAL(classify(&s, f, frame4(f, 64, 1, 17, IP4(1, 2, 3, 4), IP4(10, 0, 0, 2), 1, 53, 0), 64, 0), 0x10002);
	CU_ASSERT_EQUAL(classify(&s, f, frame4(f, 64, 1, 17, IP4(1, 2, 3, 4), IP4(10, 0, 0, 2), 1, 69, 0), 64, 0), -1);
	sim_free(&s);
}

/* Nodes of a bucket run in node order: `order` and explicit handles. */
static void test_order(void)
{
	struct sim s;
	uint8_t f[80];
	char buf[2048];

	tcu_sim_default(&s);
	snprintf(buf, sizeof(buf),
		 "%s"
		 "tc filter add dev eth0 parent 1: protocol ip prio 6 u32 order 20 match ip protocol 17 0xff flowid 1:1\n"
		 "tc filter add dev eth0 parent 1: protocol ip prio 6 u32 match u32 0 0 flowid 1:4\n"
		 "tc filter add dev eth0 parent 1: protocol ip prio 6 u32 order 10 match ip dport 53 0xffff classid 1:2\n"
		 "tc filter add dev eth0 parent 1: protocol ip prio 6 handle 800::7 u32 match ip src 10.9.0.0/16 flowid 1:3\n",
		 root);
	free(ok(&s, buf));
	CU_ASSERT_EQUAL(classify(&s, f, frame4(f, 60, 0, 17, IP4(10, 9, 0, 1), IP4(10, 0, 0, 2), 1, 53, 0), 60, 0), 0x10003);
	CU_ASSERT_EQUAL(classify(&s, f, frame4(f, 60, 0, 17, IP4(10, 8, 0, 1), IP4(10, 0, 0, 2), 1, 53, 0), 60, 0), 0x10002);
	CU_ASSERT_EQUAL(classify(&s, f, frame4(f, 60, 0, 17, IP4(10, 8, 0, 1), IP4(10, 0, 0, 2), 1, 54, 0), 60, 0), 0x10001);
	CU_ASSERT_EQUAL(classify(&s, f, frame4(f, 60, 0, 6, IP4(10, 8, 0, 1), IP4(10, 0, 0, 2), 1, 54, 0), 60, 0), 0x10004);
	sim_free(&s);
}

/* skb_header_pointer: a key beyond the packet (or beyond what was
 * captured) ends the filter's walk, no later node of it runs; the next
 * pref still does. A link to its own table stops at the depth limit. */
static void test_reads_beyond_the_packet(void)
{
	struct sim s;
	uint8_t f[80];
	char buf[2048];

	tcu_sim_default(&s);
	snprintf(buf, sizeof(buf),
		 "%s"
		 "tc filter add dev eth0 parent 1: protocol ip prio 1 u32 match u32 0 0 at 48 flowid 1:1\n"
		 "tc filter add dev eth0 parent 1: protocol ip prio 1 u32 match u32 0 0 flowid 1:2\n"
		 "tc filter add dev eth0 parent 1: protocol ip prio 2 u32 match u32 0 0 at -100 flowid 1:3\n",
		 root);
	free(ok(&s, buf));
	frame4(f, 66, 0, 6, IP4(10, 0, 0, 1), IP4(10, 0, 0, 2), 1, 2, 0);
	/* bytes 62..65 of a 66-byte frame: inside */
	CU_ASSERT_EQUAL(classify(&s, f, 66, 66, 0), 0x10001);
	/* a 64-byte frame: pref 1 gives up, 1:2 of the same pref is not tried */
	CU_ASSERT_EQUAL(classify(&s, f, 64, 64, 0), 0x10003);
	/* captured 64 of 66 bytes: the missing bytes are not read */
	CU_ASSERT_EQUAL(classify(&s, f, 64, 66, 0), 0x10003);
	sim_free(&s);

	tcu_sim_default(&s);
	snprintf(buf, sizeof(buf),
		 "%s"
		 "tc filter add dev eth0 parent 1: protocol ip prio 1 handle 1: u32 divisor 1\n"
		 "tc filter add dev eth0 parent 1: protocol ip prio 1 u32 ht 1: match u32 0 0 link 1:\n"
		 "tc filter add dev eth0 parent 1: protocol ip prio 1 u32 match u32 0 0 link 1:\n"
		 "tc filter add dev eth0 parent 1: protocol ip prio 2 u32 match u32 0 0 flowid 1:2\n",
		 root);
	free(ok(&s, buf));
	CU_ASSERT_EQUAL(classify(&s, f, 66, 66, 0), 0x10002);
	sim_free(&s);
}

/* ---- errors: one line, naming t.tc:N and the rule ---- */

static void test_errors(void)
{
	char buf[512];
	static const struct {
		const char *line;
		const char *want;
	} t[] = {
	    {"u32 match ip dprt 22 0xffff flowid 1:1", "t.tc:2: u32: Illegal \"match\""},
	    {"u32 match ip dport 22", "Illegal \"match\""},
	    {"u32 match u8 0x100 0xff at 0", "Illegal \"match\""},
	    {"u32 match u32 0 0 at 2", "Illegal \"match\""},
	    {"u32 match ip sport 22 0xffff match ip sport 23 0xffff", "Illegal \"match\""},
	    {"u32 match ether src 01:02:03 flowid 1:1", "Illegal \"match\""},
	    {"u32 divisor 3", "Illegal \"divisor\""},
	    {"u32 match ip dport 22 0xffff police rate 1mbit burst 10k", "\"police\" is not modelled"},
	    {"u32 match ip dport 22 0xffff action drop", "\"action\" is not modelled"},
	    {"u32 match ip dport 22 0xffff indev eth1", "\"indev\" is not modelled"},
	    {"u32 match ip dport 22 0xffff offset at 1", "Illegal \"offset\""},
	    {"u32 match ip dport 22 0xffff hashkey at 2", "Illegal \"hashkey\""},
	    {"u32 match ip dport 22 0xffff link 1:2:3", "\"link\" must be a hash table"},
	    {"u32 match ip dport 22 0xffff link 9:", "Link hash table not found"},
	    {"u32 match ip dport 22 0xffff link 800:", "Not linking to root node"},
	    {"u32 ht 9: match ip dport 22 0xffff", "Specified hash table not found"},
	    {"u32 match ip dport 22 0xffff frobnicate", "What is \"frobnicate\"?"},
	    {"u32 match", "Command line is not complete"},
	    {"handle 1000:: u32 match u32 0 0", "Illegal filter ID"},
	    {"handle 800::800 u32 order 5 match u32 0 0", "\"order\" contradicts \"handle\""},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		snprintf(buf, sizeof(buf), "%stc filter add dev eth0 parent 1: protocol ip pref 1 %s\n",
			 root, t[i].line);
		fails(buf, t[i].want);
	}
}

/* ---- the traced walk ---- */

struct told {
	char text[8][400];
	int match[8];
	int n;
};

static void tell_filter(void *arg, const struct tcf_trace *ft)
{
	struct told *t = arg;

	if (t->n < 8 && ft->detail) {
		snprintf(t->text[t->n], sizeof(t->text[0]), "%s", ft->detail);
		t->match[t->n++] = ft->match;
	}
}

static void test_traced_walk(void)
{
	struct sim s;
	struct told t = {.n = 0};
	struct tcf_tracer tr = {.filter = tell_filter, .arg = &t};
	struct tcf_result res, res2;
	struct bpf_skb skb;
	uint8_t f[80];
	char buf[2048];
	struct dev *d;

	tcu_sim_default(&s);
	snprintf(buf, sizeof(buf),
		 "%s"
		 "tc filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip protocol 6 0xff match ip dport 22 0xffff flowid 1:1\n"
		 "tc filter add dev eth0 parent 1: protocol ip prio 2 handle 3: u32 divisor 1\n"
		 "tc filter add dev eth0 parent 1: protocol ip prio 2 u32 ht 3: match u16 53 0xffff at 2 flowid 1:2\n"
		 "tc filter add dev eth0 parent 1: protocol ip prio 2 u32 match ip nofrag offset at 0 mask 0f00 shift 6 eat link 3:\n",
		 root);
	free(ok(&s, buf));
	d = sim_dev_find(&s, "eth0");
	frame4(f, 60, 0, 17, IP4(10, 0, 0, 1), IP4(10, 0, 0, 2), 1, 53, 0);
	bpf_skb_init_ether(&skb, f, 60, 60);
	CU_ASSERT_EQUAL(tcf_classify_traced(&d->root->chain, &skb, 0x0800, &res, &tr), 0);
	CU_ASSERT_EQUAL(tcf_classify(&d->root->chain, &skb, 0x0800, &res2), 0);
	CU_ASSERT_EQUAL(res.classid, 0x10002);
	CU_ASSERT_EQUAL(res2.classid, res.classid);
	CU_ASSERT_EQUAL_FATAL(t.n, 3);
	CU_ASSERT_STRING_EQUAL(t.text[0], "fh 800::800: key 1 of 2 (00060000/00ff0000 at 8) read 40110000 at network header+8: no match");
	CU_ASSERT_STRING_EQUAL(t.text[1], "fh 801::800: its key matched: on to table 3:, bucket 0; nexthdr at network header+20");
	CU_ASSERT_STRING_EQUAL(t.text[2], "fh 3::800: its key matched: its flowid");
	CU_ASSERT(!t.match[0] && !t.match[1] && t.match[2]);
	/* a key beyond the packet says so */
	t.n = 0;
	bpf_skb_init_ether(&skb, f, 20, 20);
	CU_ASSERT_EQUAL(tcf_classify_traced(&d->root->chain, &skb, 0x0800, &res, &tr), -1);
	CU_ASSERT(t.n >= 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.text[0], "beyond the packet's 20 bytes"));
	sim_free(&s);
}

int main(void)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} tests[] = {
	    {"selectors packed into keys as tc 6.1 packs them", test_keys_packed_as_tc},
	    {"show text of tables, links, hashing and order", test_show_tables_links_order},
	    {"match mark: shown and decided by skb->mark", test_mark},
	    {"LARTC ports, prefixes and TCP flags", test_lartc_ports_and_flags},
	    {"IPv4 options: nexthdr+ and eat find the transport header", test_ipv4_options},
	    {"hash tables, hashkey and sample", test_hash_tables},
	    {"order and explicit node handles", test_order},
	    {"reads beyond the packet end the filter's walk", test_reads_beyond_the_packet},
	    {"tc's errors: one line naming the rule", test_errors},
	    {"the traced walk tells which key decided", test_traced_walk},
	};
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("cls_u32", NULL, NULL);
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		CU_add_test(s, tests[i].name, tests[i].fn);
	return unit_run();
}
