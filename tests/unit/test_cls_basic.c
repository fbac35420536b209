/* test_cls_basic.c - the basic classifier: the ematch grammar and the cmp,
 * u32 and meta arguments as iproute2 6.1 parses them (errors on one line
 * with the file:line prefix), classification on crafted UDP/TCP frames
 * with the kernel's left-to-right AND/OR/NOT and nested sequences, meta
 * priority/mark, the trace's why, and tc filter show as tc 6.1 prints it. */
#include <CUnit/Basic.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qdisc.h"
#include "tc.h"
#include "test_src.h"
#include "tc_unit.h"
#include "unit.h"

static const char prio_root[] =
    "tc qdisc add dev eth0 root handle 1: prio bands 3 priomap 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2\n";


struct frame {
	uint8_t b[128];
	uint32_t len;
	uint32_t mark, priority;
};

static struct frame udp(uint16_t dport)
{
	struct frame f = {0};

	f.len = test_frame_udp(f.b, 60, 0x0a000001, 0x0a000002, 1234, dport, 0);
	return f;
}

static struct frame tcp(uint16_t dport)
{
	struct frame f = {0};

	f.len = test_frame_tcp(f.b, 60, 0x0a000001, 0x0a000002, 1234, dport, 0);
	return f;
}

static void skb_of(const struct frame *f, struct bpf_skb *skb)
{
	bpf_skb_init_ether(skb, f->b, f->len, f->len);
	skb->mark = f->mark;
	skb->priority = f->priority;
}

/* The root's classid for the frame, or -1. */
static long classify(struct sim *s, const struct frame *f)
{
	struct dev *d = sim_dev_find(s, "eth0");
	struct tcf_result res;
	struct bpf_skb skb;

	skb_of(f, &skb);
	memset(&res, 0, sizeof(res));
	if (tcf_classify(&d->root->chain, &skb, skb.protocol, &res) < 0)
		return -1;
	return res.classid;
}

/* A fresh prio root with the filter lines; the frame's classid. */
static long classify_with(const char *filters, const struct frame *f)
{
	struct sim s;
	char script[4096];
	long r;

	tcu_sim_default(&s);
	snprintf(script, sizeof(script), "%s%s", prio_root, filters);
	tcu_expect_output(&s, script, "");
	r = classify(&s, f);
	sim_free(&s);
	return r;
}

#define ADD "tc filter add dev eth0 parent 1: pref 1 protocol ip basic match "

static void test_cmp(void)
{
	struct frame u = udp(53), t = tcp(80);

	/* ip protocol: 17 udp, 6 tcp */
	CU_ASSERT_EQUAL(classify_with(ADD "'cmp(u8 at 9 layer network eq 17)' flowid 1:1\n", &u),
			0x10001);
	CU_ASSERT_EQUAL(classify_with(ADD "'cmp(u8 at 9 layer network eq 17)' flowid 1:1\n", &t),
			-1);
	CU_ASSERT_EQUAL(classify_with(ADD "'cmp(u8 at 9 eq 6)' flowid 1:2\n", &t), 0x10002);
	/* the EtherType at the link layer, the ports at the transport layer */
	CU_ASSERT_EQUAL(classify_with(ADD "'cmp(u16 at 12 layer link eq 0x800)' classid 1:1\n", &u),
			0x10001);
	CU_ASSERT_EQUAL(classify_with(ADD "'cmp(u16 at 2 layer 2 eq 53)' classid 1:1\n", &u),
			0x10001);
	/* parse_layer goes by the first letter */
	CU_ASSERT_EQUAL(classify_with(ADD "'cmp(u16 at 2 layer tr eq 53)' classid 1:1\n", &u),
			0x10001);
	CU_ASSERT_EQUAL(classify_with(ADD "'cmp(u8 at 9 layer net eq 17)' classid 1:1\n", &u),
			0x10001);
	CU_ASSERT_EQUAL(classify_with(ADD "'cmp(u16 at 2 layer transport eq 80)' classid 1:1\n", &t),
			0x10001);
	CU_ASSERT_EQUAL(classify_with(ADD "'cmp(u16 at 2 layer transport gt 52)' classid 1:1\n", &u),
			0x10001);
	CU_ASSERT_EQUAL(classify_with(ADD "'cmp(u16 at 2 layer transport lt 53)' classid 1:1\n", &u),
			-1);
	/* mask, and trans: the value read big-endian, then byte-swapped */
	CU_ASSERT_EQUAL(classify_with(ADD "'cmp(u16 at 2 layer transport mask 0xff00 eq 0)' "
					  "classid 1:1\n",
				      &u),
			0x10001);
	CU_ASSERT_EQUAL(classify_with(ADD "'cmp(u16 at 2 layer transport trans eq 0x3500)' "
					  "classid 1:1\n",
				      &u),
			0x10001);
	/* past the frame: no match */
	CU_ASSERT_EQUAL(classify_with(ADD "'cmp(u32 at 4000 eq 0)' classid 1:1\n", &u), -1);
	/* u32: the word at network+20 holds both ports; u16 at 22 is its low half */
	CU_ASSERT_EQUAL(classify_with(ADD "'u32(u16 53 0xffff at 22)' classid 1:1\n", &u), 0x10001);
	CU_ASSERT_EQUAL(classify_with(ADD "'u32(u16 1234 0xffff at 20)' classid 1:1\n", &u),
			0x10001);
	CU_ASSERT_EQUAL(classify_with(ADD "'u32(u32 0x04d20035 0xffffffff at 20)' classid 1:1\n",
				      &u),
			0x10001);
	CU_ASSERT_EQUAL(classify_with(ADD "'u32(u8 0x11 0xff at 9)' classid 1:1\n", &u), 0x10001);
	CU_ASSERT_EQUAL(classify_with(ADD "'u32(u8 0x11 0xff at 9)' classid 1:1\n", &t), -1);
	/* basic passes the ematch no packet info: nexthdr+ adds nothing */
	CU_ASSERT_EQUAL(classify_with(ADD "'u32(u8 0x11 0xff at nexthdr+9)' classid 1:1\n", &u),
			0x10001);
}

static void test_meta(void)
{
	struct frame u = udp(53);

	u.priority = 6;
	u.mark = 0x1234;
	CU_ASSERT_EQUAL(classify_with(ADD "'meta(priority eq 6)' classid 1:1\n", &u), 0x10001);
	CU_ASSERT_EQUAL(classify_with(ADD "'meta(priority gt 6)' classid 1:1\n", &u), -1);
	CU_ASSERT_EQUAL(classify_with(ADD "'meta(priority lt 7)' classid 1:1\n", &u), 0x10001);
	CU_ASSERT_EQUAL(classify_with(ADD "'meta(nf_mark eq 0x1234)' classid 1:1\n", &u), 0x10001);
	CU_ASSERT_EQUAL(classify_with(ADD "'meta(fwmark mask 0xff eq 0x34)' classid 1:1\n", &u),
			0x10001);
	CU_ASSERT_EQUAL(classify_with(ADD "'meta(fwmark shift 8 eq 0x12)' classid 1:1\n", &u),
			0x10001);
	/* a number on the left, an id on the right */
	CU_ASSERT_EQUAL(classify_with(ADD "'meta(5 lt priority)' classid 1:1\n", &u), 0x10001);
	CU_ASSERT_EQUAL(classify_with(ADD "'meta(priority lt nf_mark)' classid 1:1\n", &u), 0x10001);
}

/* ematch.c: left to right, a sequence ends at the first AND that fails or
 * OR that holds; no precedence of AND over OR. */
static void test_relations(void)
{
	struct frame u = udp(53);
	const char *T = "'cmp(u8 at 9 eq 17)'", *F = "'cmp(u8 at 9 eq 6)'";
	char line[512];
	struct {
		const char *fmt;
		int match;
	} cases[] = {
	    {"%s and %s", 1}, {"%s and %s", 0}, {"%s or %s", 1}, {"%s or %s", 1},
	    {"not %s", 0},    {"NOT %s", 1},
	};
	const char *args[][2] = {{T, T}, {T, F}, {F, T}, {T, F}, {T, NULL}, {F, NULL}};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char expr[256];

		snprintf(expr, sizeof(expr), cases[i].fmt, args[i][0], args[i][1]);
		snprintf(line, sizeof(line), ADD "%s classid 1:1\n", expr);
		if ((classify_with(line, &u) == 0x10001) != cases[i].match)
			printf("\n  %s: want %d\n", line, cases[i].match);
		CU_ASSERT_EQUAL(classify_with(line, &u) == 0x10001, cases[i].match);
	}
	/* F and T or T: the AND fails first, the sequence ends false */
	snprintf(line, sizeof(line), ADD "%s and %s or %s classid 1:1\n", F, T, T);
	CU_ASSERT_EQUAL(classify_with(line, &u), -1);
	/* with parentheses the OR is its own sequence */
	snprintf(line, sizeof(line), ADD "%s or ( %s and %s ) classid 1:1\n", F, T, T);
	CU_ASSERT_EQUAL(classify_with(line, &u), 0x10001);
	snprintf(line, sizeof(line), ADD "( %s or %s ) and %s classid 1:1\n", F, T, T);
	CU_ASSERT_EQUAL(classify_with(line, &u), 0x10001);
	snprintf(line, sizeof(line), ADD "not ( %s or %s ) classid 1:1\n", F, T);
	CU_ASSERT_EQUAL(classify_with(line, &u), -1);
	snprintf(line, sizeof(line), ADD "not ( %s and ( %s or not %s ) ) classid 1:1\n", T, F, T);
	CU_ASSERT_EQUAL(classify_with(line, &u), 0x10001);
	/* one word or many: the lexer reads the words as one text */
	CU_ASSERT_EQUAL(classify_with(ADD "cmp( u8 at 9 eq 17 )AND(meta(priority eq 0)) classid "
					  "1:1\n",
				      &u),
			0x10001);
	/* no ematch: every packet; newest first, the first match wins */
	CU_ASSERT_EQUAL(classify_with("tc filter add dev eth0 parent 1: pref 1 basic classid 1:3\n",
				      &u),
			0x10003);
	CU_ASSERT_EQUAL(classify_with("tc filter add dev eth0 parent 1: pref 1 basic classid 1:3\n"
				      "tc filter add dev eth0 parent 1: pref 1 basic match "
				      "'cmp(u8 at 9 eq 17)' classid 1:2\n",
				      &u),
			0x10002);
}

static void test_refusals(void)
{
	struct sim s;

	tcu_sim_default(&s);
	tcu_expect_output(&s, prio_root, "");
	tcu_expect_refusal(&s, ADD "'cmp(u9 at 9 eq 6)' classid 1:1", -EINVAL,
		       "cmp: invalid alignment", "cmp(>>u9<< at 9 eq 6)", NULL);
	tcu_expect_refusal(&s, ADD "'cmp(u8 at 9)' classid 1:1", -EINVAL,
		       "cmp: offset and value required", NULL, NULL);
	tcu_expect_refusal(&s, ADD "'cmp(u8 at x eq 6)' classid 1:1", -EINVAL,
		       "cmp: invalid offset, must be numeric", NULL, NULL);
	tcu_expect_refusal(&s, ADD "'cmp(u8 at 9 layer 3 eq 6)' classid 1:1", -EINVAL,
		       "cmp: illegal layer, must be in 0..2", NULL, NULL);
	tcu_expect_refusal(&s, ADD "'cmp(u8 at 9 layer eth eq 6)' classid 1:1", -EINVAL,
		       "cmp: invalid layer", NULL, NULL);
	tcu_expect_refusal(&s, ADD "'cmp(u8 at 9 foo eq 6)' classid 1:1", -EINVAL,
		       "nbyte: unknown parameter", NULL, NULL);
	tcu_expect_refusal(&s, ADD "'u32(u8 0x100 0xff at 9)' classid 1:1", -EINVAL,
		       "Illegal key (>0xFF)", NULL, NULL);
	tcu_expect_refusal(&s, ADD "'u32(u32 1 0xff at 9)' classid 1:1", -EINVAL,
		       "u32: invalid offset alignment, must be aligned to 4.", NULL, NULL);
	tcu_expect_refusal(&s, ADD "'u32(u8 1 0xff 9)' classid 1:1", -EINVAL, "u32: missing \"at\"",
		       NULL, NULL);
	tcu_expect_refusal(&s, ADD "'u32(u8 1 0xff at 9 10)' classid 1:1", -EINVAL,
		       "u32: unexpected trailer", NULL, NULL);
	tcu_expect_refusal(&s, ADD "'meta(foo eq 1)' classid 1:1", -EINVAL, "meta: unknown meta id",
		       NULL, NULL);
	tcu_expect_refusal(&s, ADD "'meta(pkt_len gt 100)' classid 1:1", -EOPNOTSUPP,
		       "\"pkt_len\" is not modelled", NULL, NULL);
	tcu_expect_refusal(&s, ADD "'meta(priority ne 1)' classid 1:1", -EINVAL,
		       "meta: invalid operand", NULL, NULL);
	tcu_expect_refusal(&s, ADD "'meta(priority eq 1 2)' classid 1:1", -EINVAL,
		       "meta: unexpected trailer", NULL, NULL);
	tcu_expect_refusal(&s, ADD "'nbyte(\"ab\" at 0)' classid 1:1", -EOPNOTSUPP,
		       "ematch \"nbyte\" is not modelled", NULL, NULL);
	tcu_expect_refusal(&s, ADD "'foo(1)' classid 1:1", -EINVAL, "Unknown ematch \"foo\"", NULL, NULL);
	tcu_expect_refusal(&s, ADD "'cmp(u8 at 9 eq 6) and' classid 1:1", -EINVAL,
		       "Parse error: syntax error, unexpected ATTRIBUTE \"1:1\"", NULL, NULL);
	tcu_expect_refusal(&s, ADD "'(cmp(u8 at 9 eq 6)' classid 1:1", -EINVAL,
		       "Parse error: syntax error, unexpected ATTRIBUTE \"classid\"", NULL, NULL);
	tcu_expect_refusal(&s, ADD "'cmp()' classid 1:1", -EINVAL, "Parse error", NULL, NULL);
	tcu_expect_refusal(&s, ADD "classid 1:1", -EINVAL,
		       "Parse error: syntax error, unexpected ATTRIBUTE \"1:1\"", NULL, NULL);
	/* the look-ahead at the end of the line puts the last word back */
	tcu_expect_refusal(&s, ADD "'cmp(u8 at 9 eq 6)'", -EINVAL,
		       "What is \"cmp(u8 at 9 eq 6)\"?", NULL, NULL);
	tcu_expect_refusal(&s, "tc filter add dev eth0 parent 1: basic match", -EINVAL,
		       "Command line is not complete", NULL, NULL);
	tcu_expect_refusal(&s, "tc filter add dev eth0 parent 1: basic classid 1:x", -EINVAL,
		       "Illegal \"classid\"", NULL, NULL);
	tcu_expect_refusal(&s, "tc filter add dev eth0 parent 1: basic flowid 1:1 action drop",
		       -EOPNOTSUPP, "\"action\" is not modelled", NULL, NULL);
	tcu_expect_refusal(&s, "tc filter add dev eth0 parent 1: basic police rate 1mbit", -EOPNOTSUPP,
		       "\"police\" is not modelled", NULL, NULL);
	tcu_expect_refusal(&s, "tc filter add dev eth0 parent 1: basic foo", -EINVAL,
		       "What is \"foo\"?", NULL, NULL);
	tcu_expect_refusal(&s, "tc filter add dev eth0 parent 1: basic", -EINVAL,
		       "basic needs options", NULL, NULL);
	tcu_expect_output(&s, "tc filter add dev eth0 parent 1: pref 2 handle 3 basic classid 1:1\n", "");
	tcu_expect_refusal(&s, "tc filter add dev eth0 parent 1: pref 2 handle 3 basic classid 1:2",
		       -EEXIST, "Filter already exists", NULL, NULL);
	/* nothing of the refused lines stayed */
	tcu_expect_output(&s, "tc filter show dev eth0",
		      "filter parent 1: protocol all pref 2 basic chain 0 \n"
		      "filter parent 1: protocol all pref 2 basic chain 0 handle 0x3 flowid 1:1 \n");
	sim_free(&s);
}

static void test_show_as_tc(void)
{
	struct sim s;
	char script[4096];

	tcu_sim_default(&s);
	snprintf(script, sizeof(script),
		 "%s"
		 "tc filter add dev eth0 parent 1: pref 1 protocol ip basic match "
		 "'cmp(u8 at 9 layer network eq 6)' flowid 1:1\n"
		 "tc filter add dev eth0 parent 1: pref 1 protocol ip basic match "
		 "'cmp(u16 at 2 layer transport mask 0xff00 trans gt 3)' and "
		 "'cmp(u32 at 0 layer link lt 4)' or 'u32(u16 0x35 0xffff at nexthdr+22)' "
		 "classid 1:2\n"
		 "tc filter add dev eth0 parent 1: pref 2 basic match 'meta(priority eq 6)' or "
		 "'meta(fwmark shift 8 mask 0xff gt 0xffffffff)' classid 1:3\n"
		 "tc filter add dev eth0 parent 1: pref 3 basic match not 'u32(u8 0x11 0xff at 9)' "
		 "and not ( 'meta(nf_mark eq 1)' or ( 'cmp(u8 at 1 eq 2)' and 'meta(5 lt priority)' ) )"
		 " and 'cmp(u8 at 0 eq 0)' classid 1:1\n"
		 "tc filter add dev eth0 parent 1: pref 4 handle 7 basic classid 1:1\n"
		 "tc filter show dev eth0\n",
		 prio_root);
	tcu_expect_output(&s, script,
		      "filter parent 1: protocol ip pref 1 basic chain 0 \n"
		      "filter parent 1: protocol ip pref 1 basic chain 0 handle 0x2 flowid 1:2 \n"
		      "  cmp(u16 at 2 layer 2 mask 0xff00 trans gt 3)\n"
		      "  AND cmp(at 0 layer 0 lt 4)\n"
		      "  OR u32(00000035/0000ffff at nexthdr+20)\n"
		      "\n"
		      "filter parent 1: protocol ip pref 1 basic chain 0 handle 0x1 flowid 1:1 \n"
		      "  cmp(u8 at 9 layer 1 eq 6)\n"
		      "\n"
		      "filter parent 1: protocol all pref 2 basic chain 0 \n"
		      "filter parent 1: protocol all pref 2 basic chain 0 handle 0x1 flowid 1:3 \n"
		      "  meta(priority eq 6)\n"
		      "  OR meta(nf_mark shift 8 mask 0x000000ff gt -1)\n"
		      "\n"
		      "filter parent 1: protocol all pref 3 basic chain 0 \n"
		      "filter parent 1: protocol all pref 3 basic chain 0 handle 0x1 flowid 1:1 \n"
		      "  NOT u32(00110000/00ff0000 at 8)\n"
		      "  AND NOT (\n"
		      "    meta(nf_mark eq 1)\n"
		      "    OR (\n"
		      "      cmp(u8 at 1 layer 1 eq 2)\n"
		      "      AND meta(5 lt priority)\n"
		      "    )   ) AND cmp(u8 at 0 layer 1 eq 0)\n"
		      "\n"
		      "filter parent 1: protocol all pref 4 basic chain 0 \n"
		      "filter parent 1: protocol all pref 4 basic chain 0 handle 0x7 flowid 1:1 \n");
	/* delete one, the rest stays */
	tcu_expect_output(&s,
		      "tc filter del dev eth0 parent 1: pref 1 handle 2 basic\n"
		      "tc filter show dev eth0 pref 1\n",
		      "filter parent 1: protocol ip basic chain 0 \n"
		      "filter parent 1: protocol ip basic chain 0 handle 0x1 flowid 1:1 \n"
		      "  cmp(u8 at 9 layer 1 eq 6)\n"
		      "\n");
	sim_free(&s);
}

/* The trace says why each filter matched or not. */
struct rec {
	int n, match[4];
	char why[4][128];
};
static void on_filter(void *arg, const struct tcf_trace *ft)
{
	struct rec *r = arg;

	if (r->n < 4) {
		r->match[r->n] = ft->match;
		snprintf(r->why[r->n], sizeof(r->why[0]), "%s", ft->why);
	}
	r->n++;
}

static void test_trace_why(void)
{
	struct sim s;
	struct frame u = udp(53);
	struct bpf_skb skb;
	struct tcf_result res;
	struct rec r = {0};
	struct tcf_tracer tr = {.filter = on_filter, .arg = &r};
	struct dev *d;

	tcu_sim_default(&s);
	u.priority = 3;
	tcu_expect_output(&s,
		      "tc qdisc add dev eth0 root handle 1: prio\n"
		      "tc filter add dev eth0 parent 1: pref 1 basic match 'meta(priority eq 3)' "
		      "classid 1:2\n"
		      "tc filter add dev eth0 parent 1: pref 1 basic match 'cmp(u8 at 9 eq 6)' "
		      "classid 1:1\n",
		      "");
	d = sim_dev_find(&s, "eth0");
	skb_of(&u, &skb);
	CU_ASSERT_EQUAL(tcf_classify_traced(&d->root->chain, &skb, skb.protocol, &res, &tr), 0);
	CU_ASSERT_EQUAL(res.classid, 0x10002);
	CU_ASSERT_EQUAL(r.n, 2);
	CU_ASSERT_EQUAL(r.match[0], 0);
	CU_ASSERT_EQUAL(r.match[1], 1);
	if (!strstr(r.why[0], "17 eq 6: no") || !strstr(r.why[1], "meta 3 eq 3: yes"))
		printf("\n  why: '%s' / '%s'\n", r.why[0], r.why[1]);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.why[0], "cmp network+9: 17 eq 6: no"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.why[0], "does not match"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.why[1], "meta 3 eq 3: yes"));
	sim_free(&s);
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("basic", NULL, NULL);
	CU_add_test(s, "cmp and u32 on crafted frames", test_cmp);
	CU_add_test(s, "meta priority and mark", test_meta);
	CU_add_test(s, "AND/OR/NOT left to right, nested sequences", test_relations);
	CU_add_test(s, "refusals as tc 6.1 gives them", test_refusals);
	CU_add_test(s, "tc filter show as tc 6.1", test_show_as_tc);
	CU_add_test(s, "the trace says why", test_trace_why);
	return unit_run();
}
