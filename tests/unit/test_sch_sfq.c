/* test_sch_sfq.c - the sfq qdisc against the kernel's rules: parameters and
 * tc's words, DRR shares and order, the drops (depth, flows, limit, filters,
 * rehash) and their accounting, perturbation, flow identity, dump and walk. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qdisc.h"
#include "rng.h"
#include "unit.h"

#define LOG_MAX 8192
#define A_ADDR 0x0a000001u /* 10.0.0.1 */
#define B_ADDR 0x0a000002u /* 10.0.0.2 */

/* The simulation around the qdisc: a clock, the seeded generator, and
 * logs of what was dropped and which timers were armed. */
struct tenv {
	struct qdisc_env env;
	uint64_t now;
	struct rng rng;
	uint64_t created, dequeued;
	int ndrop;
	uint64_t drop_id[LOG_MAX];
	enum pkt_drop drop_why[LOG_MAX];
	int narmed;
	uint64_t armed_at;
	struct qdisc *armed_q;
};

static uint64_t t_now(void *arg)
{
	return ((struct tenv *)arg)->now;
}

static void t_drop(void *arg, struct pkt *p)
{
	struct tenv *t = arg;

	if (t->ndrop < LOG_MAX) {
		t->drop_id[t->ndrop] = p->id;
		t->drop_why[t->ndrop] = p->drop;
	}
	t->ndrop++;
	pkt_free(p);
}

static uint64_t t_random(void *arg)
{
	return rng_u64(&((struct tenv *)arg)->rng);
}

static void t_arm(void *arg, struct qdisc *q, uint64_t at)
{
	struct tenv *t = arg;

	t->narmed++;
	t->armed_at = at;
	t->armed_q = q;
}

static void t_classified(void *arg, const struct pkt *p)
{
	(void)arg;
	(void)p;
}

static struct tenv *tenv_new(enum bpf_kernel kernel, int allot_bytes, uint64_t seed)
{
	struct tenv *t = calloc(1, sizeof(*t));

	t->env.ifindex = 2;
	t->env.mtu = 1514;
	t->env.hard_header_len = 14;
	t->env.tx_queue_len = 1000;
	t->env.kernel = kernel;
	t->env.sfq_allot_bytes = allot_bytes;
	t->env.now = t_now;
	t->env.drop = t_drop;
	t->env.random = t_random;
	t->env.arm_timer = t_arm;
	t->env.classified = t_classified;
	t->env.arg = t;
	rng_seed(&t->rng, seed);
	return t;
}

/* ---- frames ---- */

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static struct pkt *frame(struct tenv *t, const uint8_t *f, uint32_t caplen, uint32_t len)
{
	struct pkt *p = pkt_new(f, caplen, len);

	p->id = ++t->created;
	return p;
}

/* Ethernet + IPv4 + 4 transport bytes (ports); frag_off as on the wire. */
static struct pkt *ipv4(struct tenv *t, uint32_t saddr, uint32_t daddr, uint8_t proto,
			uint16_t frag_off, uint16_t sport, uint16_t dport, uint32_t len)
{
	uint8_t f[42] = {0};

	put16(f + 12, 0x0800);
	f[14] = 0x45;
	put16(f + 16, (uint16_t)(len - 14));
	put16(f + 20, frag_off);
	f[22] = 64;
	f[23] = proto;
	put32(f + 26, saddr);
	put32(f + 30, daddr);
	put16(f + 34, sport);
	put16(f + 36, dport);
	put16(f + 38, (uint16_t)(len - 34));
	return frame(t, f, sizeof(f), len);
}

static struct pkt *udp(struct tenv *t, uint16_t sport, uint32_t len)
{
	return ipv4(t, A_ADDR, B_ADDR, 17, 0, sport, 5000, len);
}

static struct pkt *ipv6(struct tenv *t, const uint32_t src[4], const uint32_t dst[4], uint32_t len)
{
	uint8_t f[62] = {0};

	put16(f + 12, 0x86dd);
	f[14] = 0x60;
	put16(f + 18, (uint16_t)(len - 54));
	f[20] = 17;
	f[21] = 64;
	for (int i = 0; i < 4; i++) {
		put32(f + 22 + 4 * i, src[i]);
		put32(f + 38 + 4 * i, dst[i]);
	}
	put16(f + 54, 1000);
	put16(f + 56, 2000);
	return frame(t, f, sizeof(f), len);
}

static struct pkt *ether(struct tenv *t, uint16_t type, uint8_t fill, uint32_t len)
{
	uint8_t f[60];

	memset(f, fill, sizeof(f));
	put16(f + 12, type);
	return frame(t, f, sizeof(f), len);
}

/* ---- qdiscs ---- */

static int make(struct tenv *t, struct qdisc **q, uint32_t handle, uint32_t parent,
		const char *opts, char *err, size_t errlen)
{
	char buf[512], *argv[64];
	int argc = 0;

	snprintf(buf, sizeof(buf), "%s", opts);
	for (char *w = strtok(buf, " "); w && argc < 64; w = strtok(NULL, " "))
		argv[argc++] = w;
	return qdisc_create(q, "sfq", &t->env, handle, parent, argc, argv, err, errlen);
}

static struct qdisc *sfq(struct tenv *t, const char *opts)
{
	struct qdisc *q = NULL;
	char err[512] = "";
	int ret = make(t, &q, 0x10000, TC_H_ROOT, opts, err, sizeof(err));

	if (ret)
		fprintf(stderr, "sfq %s: %s\n", opts, err);
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	return q;
}

static int sfq_err(struct tenv *t, const char *opts, char *err, size_t errlen)
{
	struct qdisc *q = NULL;
	int ret;

	err[0] = 0;
	ret = make(t, &q, 0x10000, TC_H_ROOT, opts, err, errlen);
	CU_ASSERT_PTR_NULL(q);
	if (!ret)
		qdisc_destroy(q);
	return ret;
}

static int enq(struct qdisc *q, struct pkt *p)
{
	return q->ops->enqueue(q, p);
}

/* The id of the next packet sfq sends (0 when empty). */
static uint64_t deq(struct tenv *t, struct qdisc *q)
{
	struct pkt *p = q->ops->dequeue(q);
	uint64_t id;

	if (!p)
		return 0;
	id = p->id;
	t->dequeued++;
	pkt_free(p);
	return id;
}

/* Every packet made was either sent or handed to the drop callback. */
static void finish(struct tenv *t, struct qdisc *q)
{
	qdisc_destroy(q);
	CU_ASSERT_EQUAL(t->created, t->dequeued + (uint64_t)t->ndrop);
	free(t);
}

static void dump(const struct qdisc *q, char *buf, size_t n)
{
	FILE *f = fmemopen(buf, n, "w");

	qdisc_dump_text(q, f, 0);
	fclose(f);
}

static uint32_t leaf_of(struct tenv *t, struct qdisc *q, struct pkt *p)
{
	uint32_t leaf;

	(void)t;
	CU_ASSERT_EQUAL(enq(q, p), NET_XMIT_SUCCESS);
	leaf = p->leaf_classid;
	return leaf;
}

struct walk_log {
	int n;
	struct qdisc_class c[8];
};

static void walk_fn(void *arg, const struct qdisc_class *c)
{
	struct walk_log *w = arg;

	if (w->n < 8)
		w->c[w->n++] = *c;
}

/* ---- parameters, tc's words, dump ---- */

static void test_dump_defaults(void)
{
	struct tenv *t = tenv_new(BPF_KERNEL_CURRENT, 0, 1);
	struct qdisc *q = sfq(t, "");
	char buf[256];

	dump(q, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "limit 127p quantum 1514b depth 127 divisor 1024 ");
	{
		/* tc -d adds the flow count before the divisor */
		FILE *f = fmemopen(buf, sizeof(buf), "w");

		qdisc_dump_text(q, f, 1);
		fclose(f);
		CU_ASSERT_STRING_EQUAL(buf, "limit 127p quantum 1514b depth 127 flows 128 divisor 1024 ");
	}
	CU_ASSERT_EQUAL(t->narmed, 0);
	finish(t, q);
}

static void test_dump_options(void)
{
	struct tenv *t = tenv_new(BPF_KERNEL_CURRENT, 0, 1);
	struct qdisc *q = sfq(t, "perturb 10 headdrop quantum 2k divisor 256");
	char buf[256];

	dump(q, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(
	    buf, "limit 127p quantum 2Kb depth 127 headdrop divisor 256 perturb 10sec ");
	finish(t, q);

	t = tenv_new(BPF_KERNEL_3_13, 0, 1);
	q = sfq(t, "quantum 1000 limit 50 depth 10");
	dump(q, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "limit 50p quantum 1000b depth 10 divisor 1024 ");
	finish(t, q);
}

static void test_clamping(void)
{
	struct tenv *t = tenv_new(BPF_KERNEL_CURRENT, 0, 1);
	struct qdisc *q;
	char buf[256];

	/* depth caps at 127 */
	q = sfq(t, "depth 500");
	dump(q, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "limit 127p quantum 1514b depth 127 divisor 1024 ");
	finish(t, q);

	/* limit caps at depth * flows, with the new depth and flows */
	t = tenv_new(BPF_KERNEL_CURRENT, 0, 1);
	q = sfq(t, "limit 100 depth 3 flows 4");
	dump(q, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "limit 12p quantum 1514b depth 3 divisor 1024 ");
	finish(t, q);

	/* without a limit, depth * flows does not cap the default 127 */
	t = tenv_new(BPF_KERNEL_CURRENT, 0, 1);
	q = sfq(t, "depth 1 flows 1");
	dump(q, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "limit 127p quantum 1514b depth 1 divisor 1024 ");
	finish(t, q);

	/* zero keeps the default */
	t = tenv_new(BPF_KERNEL_CURRENT, 0, 1);
	q = sfq(t, "quantum 0 divisor 0 depth 0 flows 0");
	dump(q, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "limit 127p quantum 1514b depth 127 divisor 1024 ");
	finish(t, q);
}

/* flows caps at the divisor and then at the limit: the next new flow
 * finds no slot */
static void test_flows_capped_by_divisor_and_limit(void)
{
	struct tenv *t = tenv_new(BPF_KERNEL_CURRENT, 0, 1);
	struct qdisc *q = sfq(t, "flows 100 divisor 4");

	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(enq(q, udp(t, (uint16_t)(100 + i), 100)), NET_XMIT_SUCCESS);
	CU_ASSERT_EQUAL(enq(q, udp(t, 200, 100)), NET_XMIT_DROP);
	CU_ASSERT_EQUAL(t->drop_why[0], DROP_SFQ_MAXFLOWS);
	finish(t, q);

	t = tenv_new(BPF_KERNEL_CURRENT, 0, 1);
	q = sfq(t, "limit 3");
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(enq(q, udp(t, (uint16_t)(100 + i), 100)), NET_XMIT_SUCCESS);
	CU_ASSERT_EQUAL(enq(q, udp(t, 200, 100)), NET_XMIT_DROP);
	CU_ASSERT_EQUAL(t->drop_why[0], DROP_SFQ_MAXFLOWS);
	finish(t, q);
}

static void test_tc_errors(void)
{
	struct tenv *t = tenv_new(BPF_KERNEL_CURRENT, 0, 1);
	char err[512];

	CU_ASSERT_EQUAL(sfq_err(t, "limit 1", err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "sfq: Illegal \"limit\", must be > 1");
	CU_ASSERT_EQUAL(sfq_err(t, "limit 0", err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "sfq: Illegal \"limit\", must be > 1");
	CU_ASSERT_EQUAL(sfq_err(t, "limit x", err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "sfq: Illegal \"limit\"");
	/* tc's own slips: quantum says "limit", depth says "flows" */
	CU_ASSERT_EQUAL(sfq_err(t, "quantum 1q", err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "sfq: Illegal \"limit\"");
	CU_ASSERT_EQUAL(sfq_err(t, "depth -", err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "sfq: Illegal \"flows\"");
	CU_ASSERT_EQUAL(sfq_err(t, "perturb 1.5", err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "sfq: Illegal \"perturb\"");
	CU_ASSERT_EQUAL(sfq_err(t, "divisor", err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "Command line is not complete. Try option \"help\"");
	CU_ASSERT_EQUAL(sfq_err(t, "limit 10 bogus", err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(err, "sfq: What is \"bogus\"? Usage: ... sfq [ limit NUMBER ]"));
	/* exact words only, no prefixes */
	CU_ASSERT_EQUAL(sfq_err(t, "lim 10", err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(sfq_err(t, "help", err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(sfq_err(t, "tcsim-hash md5", err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(t->ndrop, 0);
	free(t);
}

static void test_kernel_errors(void)
{
	struct tenv *t = tenv_new(BPF_KERNEL_CURRENT, 0, 1);
	struct qdisc *q;
	char err[512], buf[256];

	CU_ASSERT_EQUAL(sfq_err(t, "divisor 1000", err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "RTNETLINK answers: Invalid argument"));
	CU_ASSERT_EQUAL(sfq_err(t, "divisor 131072", err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "RTNETLINK answers: Invalid argument"));
	/* an effective limit of 1 (tc itself refuses "limit 1") */
	CU_ASSERT_EQUAL(sfq_err(t, "limit 5 depth 1 flows 1", err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "Error: sch_sfq: invalid limit.");
	CU_ASSERT_EQUAL(sfq_err(t, "perturb -1", err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "Error: sch_sfq: invalid perturb period.");
	/* 6.12 and before: the 16-bit credit bounds the quantum */
	CU_ASSERT_EQUAL(sfq_err(t, "quantum 262137", err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "RTNETLINK answers: Invalid argument"));
	q = sfq(t, "quantum 262136");
	qdisc_destroy(q);
	free(t);

	/* 6.13+: bytes, bounded by an int */
	t = tenv_new(BPF_KERNEL_CURRENT, 1, 1);
	q = sfq(t, "quantum 300000");
	dump(q, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "limit 127p quantum 300000b depth 127 divisor 1024 ");
	qdisc_destroy(q);
	CU_ASSERT_EQUAL(sfq_err(t, "quantum 3000000000", err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "Error: sch_sfq: invalid quantum.");
	free(t);

	/* 3.13 takes a limit of 1 and a large quantum (its credit wraps) */
	t = tenv_new(BPF_KERNEL_3_13, 0, 1);
	q = sfq(t, "limit 5 depth 1 flows 1");
	dump(q, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "limit 1p quantum 1514b depth 1 divisor 1024 ");
	qdisc_destroy(q);
	q = sfq(t, "quantum 300000");
	qdisc_destroy(q);
	/* ... except where its dequeue would spin forever */
	CU_ASSERT_EQUAL(sfq_err(t, "quantum 524288", err, sizeof(err)), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(sfq_err(t, "quantum 262144", err, sizeof(err)), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(sfq_err(t, "perturb -1", err, sizeof(err)), -EOPNOTSUPP);
	free(t);
}

static void test_red_not_modelled(void)
{
	struct tenv *t = tenv_new(BPF_KERNEL_CURRENT, 0, 1);
	char err[512];

	CU_ASSERT_EQUAL(sfq_err(t, "limit 100 redflowlimit 100000 ecn", err, sizeof(err)),
			-EOPNOTSUPP);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "not modelled"));
	CU_ASSERT_EQUAL(sfq_err(t, "harddrop", err, sizeof(err)), -EOPNOTSUPP);
	/* tc's own checks of the words still come first */
	CU_ASSERT_EQUAL(sfq_err(t, "min x", err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "sfq: Illegal \"min\"");
	free(t);
}

/* ---- DRR ---- */

/* quantum 1514 = 190 units: 1000-byte packets cost 125, 200-byte ones 25 */
static void test_drr_first_rounds(void)
{
	for (int bytes = 0; bytes < 2; bytes++) {
		struct tenv *t = tenv_new(BPF_KERNEL_CURRENT, bytes, 1);
		struct qdisc *q = sfq(t, "");
		uint64_t want[20];
		int n = 0;

		for (int i = 0; i < 10; i++)
			enq(q, udp(t, 1, 1000)); /* ids 1..10 */
		for (int i = 0; i < 30; i++)
			enq(q, udp(t, 2, 200)); /* ids 11..40 */
		want[n++] = 1;
		want[n++] = 2;
		for (int i = 0; i < 8; i++)
			want[n++] = 11 + (uint64_t)i;
		want[n++] = 3;
		want[n++] = 4;
		for (int i = 0; i < 8; i++)
			want[n++] = 19 + (uint64_t)i;
		for (int i = 0; i < n; i++)
			CU_ASSERT_EQUAL(deq(t, q), want[i]);
		finish(t, q);
	}
}

/* §6.5: quantum 1000, 999-byte packets: 125 units each, one per visit;
 * in bytes the first visit sends two (credit 1000 - 999 = 1 > 0). */
static void test_quantum_1000_999(void)
{
	static const uint64_t scaled[8] = {1, 11, 2, 12, 3, 13, 4, 14};
	static const uint64_t bytes[8] = {1, 2, 11, 12, 3, 13, 4, 14};

	for (int b = 0; b < 2; b++) {
		struct tenv *t = tenv_new(BPF_KERNEL_CURRENT, b, 1);
		struct qdisc *q = sfq(t, "quantum 1000");

		for (int i = 0; i < 10; i++)
			enq(q, udp(t, 1, 999));
		for (int i = 0; i < 10; i++)
			enq(q, udp(t, 2, 999));
		for (int i = 0; i < 8; i++)
			CU_ASSERT_EQUAL(deq(t, q), b ? bytes[i] : scaled[i]);
		finish(t, q);
	}
	/* 3.13 counts as 6.12 does */
	{
		struct tenv *t = tenv_new(BPF_KERNEL_3_13, 0, 1);
		struct qdisc *q = sfq(t, "quantum 1000");

		for (int i = 0; i < 10; i++)
			enq(q, udp(t, 1, 999));
		for (int i = 0; i < 10; i++)
			enq(q, udp(t, 2, 999));
		for (int i = 0; i < 8; i++)
			CU_ASSERT_EQUAL(deq(t, q), scaled[i]);
		finish(t, q);
	}
}

/* Backlogged flows of 1512-, 1000- and 200-byte packets (whole 8-byte
 * units, so the scaled credit is exact), refilled as they send, stay
 * within one quantum plus one packet of each other. */
static void test_fair_share_bytes(void)
{
	static const uint32_t size[3] = {1512, 1000, 200};

	for (int b = 0; b < 2; b++) {
		struct tenv *t = tenv_new(BPF_KERNEL_CURRENT, b, 1);
		struct qdisc *q = sfq(t, "");
		uint64_t sent[3] = {0}, worst = 0;

		for (int f = 0; f < 3; f++)
			for (int i = 0; i < 40; i++)
				enq(q, udp(t, (uint16_t)(f + 1), size[f]));
		for (int i = 0; i < 5000; i++) {
			struct pkt *p = q->ops->dequeue(q);
			int f = p->len == size[0] ? 0 : p->len == size[1] ? 1 : 2;

			sent[f] += p->len;
			t->dequeued++;
			pkt_free(p);
			enq(q, udp(t, (uint16_t)(f + 1), size[f]));
			for (int g = 0; g < 3; g++)
				for (int h = 0; h < 3; h++)
					if (sent[g] > sent[h] && sent[g] - sent[h] > worst)
						worst = sent[g] - sent[h];
		}
		CU_ASSERT(worst <= 1514 + 1512);
		CU_ASSERT(sent[0] > 700000 && sent[1] > 700000 && sent[2] > 700000);
		CU_ASSERT_EQUAL(t->ndrop, 0);
		finish(t, q);
	}
}

/* A flow that becomes active joins the end of the round: after A has used
 * its credit, C waits behind B. */
static void test_new_flow_joins_end_of_round(void)
{
	struct tenv *t = tenv_new(BPF_KERNEL_CURRENT, 0, 1);
	struct qdisc *q = sfq(t, "");
	static const uint64_t want[] = {1, 4, 7, 2, 5, 3, 6, 0};

	for (int i = 0; i < 3; i++)
		enq(q, udp(t, 1, 1514)); /* A: 1 2 3 */
	for (int i = 0; i < 3; i++)
		enq(q, udp(t, 2, 1514)); /* B: 4 5 6 */
	CU_ASSERT_EQUAL(deq(t, q), want[0]);
	enq(q, udp(t, 3, 1514)); /* C: 7 */
	for (size_t i = 1; i < sizeof(want) / sizeof(want[0]); i++)
		CU_ASSERT_EQUAL(deq(t, q), want[i]);
	finish(t, q);
}

/* ---- drops ---- */

static void test_depth_tail_drop(void)
{
	struct tenv *t = tenv_new(BPF_KERNEL_CURRENT, 0, 1);
	struct qdisc *q = sfq(t, "depth 3");

	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(enq(q, udp(t, 1, 100)), NET_XMIT_SUCCESS);
	CU_ASSERT_EQUAL(enq(q, udp(t, 1, 100)), NET_XMIT_DROP);
	CU_ASSERT_EQUAL(t->ndrop, 1);
	CU_ASSERT_EQUAL(t->drop_id[0], 4);
	CU_ASSERT_EQUAL(t->drop_why[0], DROP_SFQ_DEPTH);
	CU_ASSERT_EQUAL(q->s.drops, 1);
	CU_ASSERT_EQUAL(q->s.qlen, 3);
	CU_ASSERT_EQUAL(q->s.backlog, 300);
	/* another flow is not affected */
	CU_ASSERT_EQUAL(enq(q, udp(t, 2, 100)), NET_XMIT_SUCCESS);
	finish(t, q);
}

static void test_depth_head_drop(void)
{
	struct tenv *t = tenv_new(BPF_KERNEL_CURRENT, 0, 1);
	struct qdisc *q = sfq(t, "depth 3 headdrop");

	for (int i = 0; i < 3; i++)
		enq(q, udp(t, 1, 100));
	CU_ASSERT_EQUAL(enq(q, udp(t, 1, 400)), NET_XMIT_CN);
	CU_ASSERT_EQUAL(t->ndrop, 1);
	CU_ASSERT_EQUAL(t->drop_id[0], 1);
	CU_ASSERT_EQUAL(t->drop_why[0], DROP_SFQ_DEPTH);
	CU_ASSERT_EQUAL(q->s.drops, 1);
	CU_ASSERT_EQUAL(q->s.qlen, 3);
	CU_ASSERT_EQUAL(q->s.backlog, 600);
	CU_ASSERT_EQUAL(deq(t, q), 2);
	CU_ASSERT_EQUAL(deq(t, q), 3);
	CU_ASSERT_EQUAL(deq(t, q), 4);
	CU_ASSERT_EQUAL(deq(t, q), 0);
	finish(t, q);
}

static void test_maxflows_drop_and_reuse(void)
{
	struct tenv *t = tenv_new(BPF_KERNEL_CURRENT, 0, 1);
	struct qdisc *q = sfq(t, "flows 2");

	CU_ASSERT_EQUAL(enq(q, udp(t, 1, 100)), NET_XMIT_SUCCESS);
	CU_ASSERT_EQUAL(enq(q, udp(t, 2, 100)), NET_XMIT_SUCCESS);
	CU_ASSERT_EQUAL(enq(q, udp(t, 3, 100)), NET_XMIT_DROP);
	CU_ASSERT_EQUAL(t->drop_why[0], DROP_SFQ_MAXFLOWS);
	CU_ASSERT_EQUAL(q->s.drops, 1);
	/* the flow that empties frees its slot for the next one */
	CU_ASSERT_EQUAL(deq(t, q), 1);
	CU_ASSERT_EQUAL(enq(q, udp(t, 3, 100)), NET_XMIT_SUCCESS);
	CU_ASSERT_EQUAL(deq(t, q), 2);
	CU_ASSERT_EQUAL(deq(t, q), 4);
	finish(t, q);
}

/* limit 10 (flows become 10): A 6 packets, B 4; B's fifth pushes the
 * total over: the longest flow, A, loses its tail; B's packet stays. */
static void test_limit_drops_longest_tail(void)
{
	struct tenv *t = tenv_new(BPF_KERNEL_CURRENT, 0, 1);
	struct qdisc *q = sfq(t, "limit 10");

	for (int i = 0; i < 6; i++)
		enq(q, udp(t, 1, 100)); /* 1..6 */
	for (int i = 0; i < 4; i++)
		enq(q, udp(t, 2, 200)); /* 7..10 */
	CU_ASSERT_EQUAL(q->s.qlen, 10);
	CU_ASSERT_EQUAL(enq(q, udp(t, 2, 200)), NET_XMIT_SUCCESS); /* 11 */
	CU_ASSERT_EQUAL(t->ndrop, 1);
	CU_ASSERT_EQUAL(t->drop_id[0], 6);
	CU_ASSERT_EQUAL(t->drop_why[0], DROP_QDISC_LIMIT);
	CU_ASSERT_EQUAL(q->s.qlen, 10);
	CU_ASSERT_EQUAL(q->s.backlog, 5 * 100 + 5 * 200);
	CU_ASSERT_EQUAL(q->s.drops, 1);
	CU_ASSERT_EQUAL(q->s.peak_qlen, 10);
	/* A's own arrival makes A the longest (6 against 5): the arriving
	 * packet is the tail that goes, and its sender hears of congestion */
	CU_ASSERT_EQUAL(enq(q, udp(t, 1, 100)), NET_XMIT_CN); /* 12 */
	CU_ASSERT_EQUAL(t->drop_id[1], 12);
	CU_ASSERT_EQUAL(t->drop_why[1], DROP_QDISC_LIMIT);
	CU_ASSERT_EQUAL(q->s.qlen, 10);
	CU_ASSERT_EQUAL(q->s.backlog, 5 * 100 + 5 * 200);
	CU_ASSERT_EQUAL(q->s.drops, 2);
	finish(t, q);
}

static void test_limit_headdrop(void)
{
	struct tenv *t = tenv_new(BPF_KERNEL_CURRENT, 0, 1);
	struct qdisc *q = sfq(t, "limit 10 headdrop");

	for (int i = 0; i < 6; i++)
		enq(q, udp(t, 1, 100)); /* 1..6 */
	for (int i = 0; i < 4; i++)
		enq(q, udp(t, 2, 200)); /* 7..10 */
	CU_ASSERT_EQUAL(enq(q, udp(t, 2, 200)), NET_XMIT_SUCCESS);
	CU_ASSERT_EQUAL(t->drop_id[0], 1);
	CU_ASSERT_EQUAL(enq(q, udp(t, 1, 100)), NET_XMIT_CN); /* 12: A (6) loses its head */
	CU_ASSERT_EQUAL(t->drop_id[1], 2);
	CU_ASSERT_EQUAL(enq(q, udp(t, 2, 200)), NET_XMIT_CN); /* 13: B (6) loses its head */
	CU_ASSERT_EQUAL(t->drop_id[2], 7);
	CU_ASSERT_EQUAL(deq(t, q), 3);
	finish(t, q);
}

/* Equally long flows: the one that reached the length last loses. */
static void test_limit_tie_most_recent(void)
{
	struct tenv *t = tenv_new(BPF_KERNEL_CURRENT, 0, 1);
	struct qdisc *q = sfq(t, "limit 10");

	for (int i = 0; i < 5; i++)
		enq(q, udp(t, 1, 100)); /* A 1..5 */
	for (int i = 0; i < 5; i++)
		enq(q, udp(t, 2, 100)); /* B 6..10 */
	CU_ASSERT_EQUAL(enq(q, udp(t, 3, 100)), NET_XMIT_SUCCESS);
	CU_ASSERT_EQUAL(t->drop_id[0], 10);
	/* B shrank to 4; A is now the only one at 5 */
	CU_ASSERT_EQUAL(enq(q, udp(t, 3, 100)), NET_XMIT_SUCCESS);
	CU_ASSERT_EQUAL(t->drop_id[1], 5);
	finish(t, q);
}

/* All flows one packet deep: the next to be served loses it. */
static void test_limit_all_depth_one(void)
{
	struct tenv *t = tenv_new(BPF_KERNEL_3_13, 0, 1);
	struct qdisc *q = sfq(t, "limit 3 depth 1 flows 4"); /* limit 3, flows 3 */

	/* flows is 3 after the limit; the 4th new flow has no slot */
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(enq(q, udp(t, (uint16_t)(1 + i), 100)), NET_XMIT_SUCCESS);
	CU_ASSERT_EQUAL(enq(q, udp(t, 9, 100)), NET_XMIT_DROP);
	CU_ASSERT_EQUAL(t->drop_why[0], DROP_SFQ_MAXFLOWS);
	finish(t, q);

	t = tenv_new(BPF_KERNEL_3_13, 0, 1);
	q = sfq(t, "limit 2 depth 1 flows 4");			   /* limit 2, flows 2 */
	CU_ASSERT_EQUAL(enq(q, udp(t, 1, 100)), NET_XMIT_SUCCESS); /* 1 */
	CU_ASSERT_EQUAL(q->ops->peek(q)->id, 1);		   /* held, still counted */
	CU_ASSERT_EQUAL(enq(q, udp(t, 2, 100)), NET_XMIT_SUCCESS); /* 2 */
	/* qlen 2 with the held packet: a third overflows, every slot has
	 * one packet, and the next to serve (flow 2) loses it */
	CU_ASSERT_EQUAL(enq(q, udp(t, 3, 100)), NET_XMIT_SUCCESS); /* 3 */
	CU_ASSERT_EQUAL(t->drop_id[0], 2);
	CU_ASSERT_EQUAL(t->drop_why[0], DROP_QDISC_LIMIT);
	CU_ASSERT_EQUAL(deq(t, q), 1);
	CU_ASSERT_EQUAL(deq(t, q), 3);
	CU_ASSERT_EQUAL(deq(t, q), 0);
	finish(t, q);
}

/* ---- classification ---- */

static int add_filter(struct tenv *t, struct qdisc *q, const char *bytecode)
{
	char *argv[] = {"bytecode", (char *)bytecode, "classid", "1:1"};
	struct tcf_request req = {
	    .pref = 0,
	    .protocol = ETH_P_ALL,
	    .create = 1,
	    .kind = "bpf",
	    .argc = 4,
	    .argv = argv,
	    .where = "test",
	};
	struct tcf_env env = {.kernel = t->env.kernel, .ifindex = 2};
	char err[256];
	int ret = tcf_chain_change(&q->chain, &req, &env, err, sizeof(err));

	if (ret)
		fprintf(stderr, "filter: %s\n", err);
	return ret;
}

static void test_filter_selects_bucket(void)
{
	struct tenv *t = tenv_new(BPF_KERNEL_CURRENT, 0, 1);
	struct qdisc *q = sfq(t, "");
	struct pkt *p;

	CU_ASSERT_EQUAL_FATAL(add_filter(t, q, "1,6 0 0 3"), 0);
	/* two flows, one bucket: the filter's minor */
	CU_ASSERT_EQUAL(leaf_of(t, q, udp(t, 1, 100)), 0x10003);
	p = udp(t, 2, 100);
	CU_ASSERT_EQUAL(leaf_of(t, q, p), 0x10003);
	CU_ASSERT_EQUAL(p->verdict, VERDICT_FILTER);
	CU_ASSERT_EQUAL(p->classid, 3);
	/* skb->priority naming this qdisc wins over the filters */
	p = udp(t, 2, 100);
	p->priority = 0x10007;
	CU_ASSERT_EQUAL(leaf_of(t, q, p), 0x10007);
	CU_ASSERT_EQUAL(p->verdict, VERDICT_PRIORITY);
	/* another qdisc's major does not */
	p = udp(t, 2, 100);
	p->priority = 0x20007;
	CU_ASSERT_EQUAL(leaf_of(t, q, p), 0x10003);
	finish(t, q);
}

static void test_filter_drops(void)
{
	static const char *const progs[] = {
	    "1,6 0 0 0",     /* no match */
	    "1,6 0 0 65536", /* 1:0: minor 0 */
	    "1,6 0 0 1025",  /* beyond the divisor */
	};

	for (int i = 0; i < 3; i++) {
		struct tenv *t = tenv_new(BPF_KERNEL_3_13, 0, 1);
		struct qdisc *q = sfq(t, "");
		struct pkt *p;

		CU_ASSERT_EQUAL_FATAL(add_filter(t, q, progs[i]), 0);
		CU_ASSERT_EQUAL(enq(q, udp(t, 1, 100)), NET_XMIT_DROP);
		CU_ASSERT_EQUAL(t->drop_why[0], DROP_SFQ_CLASSIFY);
		CU_ASSERT_EQUAL(q->s.drops, 1);
		CU_ASSERT_EQUAL(q->s.qlen, 0);
		/* priority still selects a bucket (1..divisor) */
		p = udp(t, 1, 100);
		p->priority = 0x10400;
		CU_ASSERT_EQUAL(leaf_of(t, q, p), 0x10400);
		p = udp(t, 1, 100);
		p->priority = 0x10401; /* past the divisor: filters decide */
		CU_ASSERT_EQUAL(enq(q, p), NET_XMIT_DROP);
		finish(t, q);
	}
}

/* ---- flow identity ---- */

static void test_flow_keys_3_13(void)
{
	struct tenv *t = tenv_new(BPF_KERNEL_3_13, 0, 1);
	struct qdisc *q = sfq(t, "");
	static const uint32_t s1[4] = {0x20010db8, 0, 0, 1}, d1[4] = {0x20010db8, 0, 0, 2};
	static const uint32_t s2[4] = {0x20010db8, 1, 1, 1}; /* folds to the same word */
	uint32_t a, b;

	/* ports matter, direction matters */
	a = leaf_of(t, q, ipv4(t, A_ADDR, B_ADDR, 17, 0, 10, 20, 100));
	CU_ASSERT_EQUAL(leaf_of(t, q, ipv4(t, A_ADDR, B_ADDR, 17, 0, 10, 20, 100)), a);
	CU_ASSERT_NOT_EQUAL(leaf_of(t, q, ipv4(t, A_ADDR, B_ADDR, 17, 0, 10, 21, 100)), a);
	CU_ASSERT_NOT_EQUAL(leaf_of(t, q, ipv4(t, B_ADDR, A_ADDR, 17, 0, 20, 10, 100)), a);
	/* fragments: protocol 0, no ports, whatever the protocol */
	b = leaf_of(t, q, ipv4(t, A_ADDR, B_ADDR, 17, 0x2000, 10, 20, 100));
	CU_ASSERT_NOT_EQUAL(b, a);
	CU_ASSERT_EQUAL(leaf_of(t, q, ipv4(t, A_ADDR, B_ADDR, 6, 0x0010, 7, 8, 100)), b);
	/* every non-IP frame is one flow */
	b = leaf_of(t, q, ether(t, 0x0806, 1, 60));
	CU_ASSERT_EQUAL(leaf_of(t, q, ether(t, 0x88b5, 2, 60)), b);
	/* IPv6 addresses are folded by XOR */
	b = leaf_of(t, q, ipv6(t, s1, d1, 100));
	CU_ASSERT_EQUAL(leaf_of(t, q, ipv6(t, s2, d1, 100)), b);
	finish(t, q);
}

static void test_flow_keys_current(void)
{
	struct tenv *t = tenv_new(BPF_KERNEL_CURRENT, 0, 1);
	struct qdisc *q = sfq(t, "");
	static const uint32_t s1[4] = {0x20010db8, 0, 0, 1}, d1[4] = {0x20010db8, 0, 0, 2};
	static const uint32_t s2[4] = {0x20010db8, 1, 1, 1};
	uint32_t a, b;

	/* symmetric: both directions are one flow */
	a = leaf_of(t, q, ipv4(t, A_ADDR, B_ADDR, 17, 0, 10, 20, 100));
	CU_ASSERT_EQUAL(leaf_of(t, q, ipv4(t, B_ADDR, A_ADDR, 17, 0, 20, 10, 100)), a);
	CU_ASSERT_NOT_EQUAL(leaf_of(t, q, ipv4(t, A_ADDR, B_ADDR, 17, 0, 10, 21, 100)), a);
	/* fragments keep their protocol, still without ports */
	b = leaf_of(t, q, ipv4(t, A_ADDR, B_ADDR, 17, 0x2000, 10, 20, 100));
	CU_ASSERT_NOT_EQUAL(b, a);
	CU_ASSERT_EQUAL(leaf_of(t, q, ipv4(t, A_ADDR, B_ADDR, 17, 0x0010, 7, 8, 100)), b);
	CU_ASSERT_NOT_EQUAL(leaf_of(t, q, ipv4(t, A_ADDR, B_ADDR, 6, 0x0010, 7, 8, 100)), b);
	/* non-IP: one flow per EtherType */
	b = leaf_of(t, q, ether(t, 0x0806, 1, 60));
	CU_ASSERT_EQUAL(leaf_of(t, q, ether(t, 0x0806, 2, 60)), b);
	CU_ASSERT_NOT_EQUAL(leaf_of(t, q, ether(t, 0x88b5, 2, 60)), b);
	/* full IPv6 addresses */
	b = leaf_of(t, q, ipv6(t, s1, d1, 100));
	CU_ASSERT_NOT_EQUAL(leaf_of(t, q, ipv6(t, s2, d1, 100)), b);
	finish(t, q);
}

/* Tuple mode hands out buckets from 0 in order of first appearance. */
static void test_tuple_buckets_first_come(void)
{
	struct tenv *t = tenv_new(BPF_KERNEL_CURRENT, 0, 1);
	struct qdisc *q = sfq(t, "divisor 4 flows 4");

	CU_ASSERT_EQUAL(leaf_of(t, q, udp(t, 1, 1514)), 0x10001);
	CU_ASSERT_EQUAL(leaf_of(t, q, udp(t, 2, 1514)), 0x10002);
	CU_ASSERT_EQUAL(leaf_of(t, q, udp(t, 1, 1514)), 0x10001);
	CU_ASSERT_EQUAL(leaf_of(t, q, udp(t, 3, 1514)), 0x10003);
	CU_ASSERT_EQUAL(deq(t, q), 1); /* flow 1 still has packet 3 */
	CU_ASSERT_EQUAL(deq(t, q), 2); /* flow 2 empties: bucket 1 idle */
	CU_ASSERT_EQUAL(leaf_of(t, q, udp(t, 4, 1514)), 0x10004);
	/* all buckets bound: the first idle one from the cursor is taken over */
	CU_ASSERT_EQUAL(leaf_of(t, q, udp(t, 5, 1514)), 0x10002);
	/* a returning flow whose bucket is still its own keeps it */
	CU_ASSERT_EQUAL(leaf_of(t, q, udp(t, 3, 1514)), 0x10003);
	finish(t, q);
}

/* ---- perturbation ---- */

static void test_perturb_timer_and_rehash_order(void)
{
	struct tenv *t = tenv_new(BPF_KERNEL_CURRENT, 0, 1);
	struct qdisc *q;
	static const uint64_t want[] = {5, 3, 2, 6, 4, 0};

	t->now = 7000;
	q = sfq(t, "perturb 10");
	CU_ASSERT_EQUAL(t->narmed, 1);
	CU_ASSERT_PTR_EQUAL(t->armed_q, q);
	CU_ASSERT_EQUAL(t->armed_at, 7000 + 10000000000ull);
	for (int f = 1; f <= 3; f++) {
		enq(q, udp(t, (uint16_t)f, 1514));
		enq(q, udp(t, (uint16_t)f, 1514));
	} /* A 1 2 (slot 127), B 3 4 (126), C 5 6 (125) */
	CU_ASSERT_EQUAL(deq(t, q), 1);
	t->now = t->armed_at;
	q->ops->timer(q);
	CU_ASSERT_EQUAL(t->narmed, 2);
	CU_ASSERT_EQUAL(t->armed_at, 7000 + 20000000000ull);
	/* the slots are re-filled in index order (C, B, A), each with a
	 * full quantum, so the round restarts as C, B, A */
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CU_ASSERT_EQUAL(deq(t, q), want[i]);
	CU_ASSERT_EQUAL(t->ndrop, 0);
	CU_ASSERT_EQUAL(q->s.packets, 6);
	finish(t, q);
}

/* Random mode: the same seed gives the same buckets, drops and order. */
struct perturb_run {
	uint32_t leaf[24];
	uint64_t order[64];
	int norder, ndrop;
	uint64_t drop_id[64];
};

static void perturb_run(uint64_t seed, struct perturb_run *r)
{
	struct tenv *t = tenv_new(BPF_KERNEL_3_13, 0, seed);
	struct qdisc *q = sfq(t, "tcsim-hash random perturb 5 divisor 8 flows 8 depth 3 limit 24");
	uint64_t id;

	memset(r, 0, sizeof(*r));
	for (int i = 0; i < 24; i++) {
		struct pkt *p = udp(t, (uint16_t)(1 + i % 8), 1000);
		int ret = enq(q, p);

		r->leaf[i] = ret == NET_XMIT_SUCCESS ? p->leaf_classid : 0;
	}
	t->now += 5000000000ull;
	q->ops->timer(q);
	while ((id = deq(t, q)) && r->norder < 64)
		r->order[r->norder++] = id;
	r->ndrop = t->ndrop;
	for (int i = 0; i < t->ndrop && i < 64; i++)
		r->drop_id[i] = t->drop_id[i];
	finish(t, q);
}

static void test_perturb_random_reproducible(void)
{
	struct perturb_run a, b, c;

	perturb_run(42, &a);
	perturb_run(42, &b);
	perturb_run(43, &c);
	CU_ASSERT_EQUAL(memcmp(&a, &b, sizeof(a)), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(a.leaf, c.leaf, sizeof(a.leaf)), 0);
	CU_ASSERT_EQUAL(a.norder + a.ndrop, 24);
	CU_ASSERT_EQUAL(c.norder + c.ndrop, 24);
}

/* 3.13's hash is jhash_3words(dst, src ^ proto, ports, perturbation) on
 * little-endian loads of the header words. */
static uint32_t ref_rol(uint32_t w, int s)
{
	return (w << s) | (w >> (32 - s));
}

/* clang-format off */
static uint32_t ref_jhash_3words(uint32_t a, uint32_t b, uint32_t c, uint32_t init)
{
	a += 0xdeadbeef;
	b += 0xdeadbeef;
	c += init;
	c ^= b; c -= ref_rol(b, 14);
	a ^= c; a -= ref_rol(c, 11);
	b ^= a; b -= ref_rol(a, 25);
	c ^= b; c -= ref_rol(b, 16);
	a ^= c; a -= ref_rol(c, 4);
	b ^= a; b -= ref_rol(a, 14);
	c ^= b; c -= ref_rol(b, 24);
	return c;
}
/* clang-format on */

static uint32_t le32(uint32_t be)
{
	return (be >> 24) | ((be >> 8) & 0xff00) | ((be << 8) & 0xff0000) | (be << 24);
}

static void test_random_hash_is_3_13_jhash(void)
{
	struct tenv *t = tenv_new(BPF_KERNEL_3_13, 0, 99);
	struct rng r;
	uint32_t pert, want;
	struct qdisc *q = sfq(t, "tcsim-hash random");

	struct walk_log w = {0};

	rng_seed(&r, 99);
	pert = (uint32_t)(rng_u64(&r) >> 32); /* the one draw at creation */
	want = ref_jhash_3words(le32(B_ADDR), le32(A_ADDR) ^ 17, le32(10u << 16 | 20), pert) & 1023;
	CU_ASSERT_EQUAL(leaf_of(t, q, ipv4(t, A_ADDR, B_ADDR, 17, 0, 10, 20, 100)),
			0x10000 + want + 1);
	/* the timer draws the next value and the queued packet moves */
	pert = (uint32_t)(rng_u64(&r) >> 32);
	want = ref_jhash_3words(le32(B_ADDR), le32(A_ADDR) ^ 17, le32(10u << 16 | 20), pert) & 1023;
	q->ops->timer(q);
	q->ops->walk(q, walk_fn, &w);
	CU_ASSERT_EQUAL(w.n, 1);
	CU_ASSERT_EQUAL(w.c[0].classid, 0x10000 + want + 1);
	finish(t, q);

	/* options with a perturb period draw a second time (sfq_change) */
	t = tenv_new(BPF_KERNEL_3_13, 0, 99);
	q = sfq(t, "tcsim-hash random perturb 3");
	CU_ASSERT_EQUAL(leaf_of(t, q, ipv4(t, A_ADDR, B_ADDR, 17, 0, 10, 20, 100)),
			0x10000 + want + 1);
	finish(t, q);
}

/* A rehash can lose packets (here three packets of one flow that priority
 * had put in three buckets, depth 2): sfq's drops stay, the parent's
 * count them and lose the packets from its queue. */
static void test_rehash_drop_tells_parent(void)
{
	struct tenv *t = tenv_new(BPF_KERNEL_CURRENT, 0, 1);
	struct qdisc *prio = NULL, *q = NULL;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(
	    qdisc_create(&prio, "prio", &t->env, 0x10000, TC_H_ROOT, 0, NULL, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(make(t, &q, 0x20000, 0x10002, "depth 2 perturb 1", err, sizeof(err)),
			      0);
	CU_ASSERT_EQUAL_FATAL(prio->ops->graft(prio, 0x10002, q, err, sizeof(err)), 0);
	for (uint32_t i = 1; i <= 3; i++) {
		struct pkt *p = udp(t, 1, 100);

		p->priority = 0x20000 + i; /* bucket i, band 1 of prio */
		CU_ASSERT_EQUAL(prio->ops->enqueue(prio, p), NET_XMIT_SUCCESS);
	}
	CU_ASSERT_EQUAL(q->s.qlen, 3);
	CU_ASSERT_EQUAL(prio->s.qlen, 3);
	/* slots 127, 126, 125 hold packets 1, 2, 3; the rehash takes them in
	 * slot order (3, 2, 1) into one bucket of depth 2: 1 is lost */
	q->ops->timer(q);
	CU_ASSERT_EQUAL(t->ndrop, 1);
	CU_ASSERT_EQUAL(t->drop_id[0], 1);
	CU_ASSERT_EQUAL(t->drop_why[0], DROP_SFQ_REHASH);
	CU_ASSERT_EQUAL(q->s.drops, 0);
	CU_ASSERT_EQUAL(q->s.qlen, 2);
	CU_ASSERT_EQUAL(q->s.backlog, 200);
	CU_ASSERT_EQUAL(prio->s.qlen, 2);
	CU_ASSERT_EQUAL(prio->s.backlog, 200);
	CU_ASSERT_EQUAL(prio->s.drops, 1);
	CU_ASSERT_EQUAL(deq(t, prio), 3);
	CU_ASSERT_EQUAL(deq(t, prio), 2);
	CU_ASSERT_EQUAL(deq(t, prio), 0);
	finish(t, prio);
}

/* With filters the buckets are theirs: no rehash. */
static void test_perturb_with_filters_keeps_queues(void)
{
	struct tenv *t = tenv_new(BPF_KERNEL_CURRENT, 0, 1);
	struct qdisc *q = sfq(t, "perturb 1");

	CU_ASSERT_EQUAL_FATAL(add_filter(t, q, "1,6 0 0 3"), 0);
	for (int i = 0; i < 3; i++)
		enq(q, udp(t, (uint16_t)i, 1514));
	q->ops->timer(q);
	CU_ASSERT_EQUAL(deq(t, q), 1);
	CU_ASSERT_EQUAL(deq(t, q), 2);
	CU_ASSERT_EQUAL(deq(t, q), 3);
	finish(t, q);
}

/* ---- the rest of the interface ---- */

static void test_walk_classes(void)
{
	for (int b = 0; b < 2; b++) {
		struct tenv *t = tenv_new(BPF_KERNEL_CURRENT, b, 1);
		struct qdisc *q = sfq(t, "");
		struct walk_log w = {0};

		for (int i = 0; i < 3; i++)
			enq(q, udp(t, 1, 1000));
		enq(q, udp(t, 2, 200));
		CU_ASSERT_EQUAL(deq(t, q), 1);
		q->ops->walk(q, walk_fn, &w);
		CU_ASSERT_EQUAL_FATAL(w.n, 2);
		CU_ASSERT_EQUAL(w.c[0].classid, 0x10001);
		CU_ASSERT_EQUAL(w.c[0].parent, 0x10000);
		CU_ASSERT_PTR_NULL(w.c[0].leaf);
		CU_ASSERT_EQUAL(w.c[0].stats.qlen, 2);
		CU_ASSERT_EQUAL(w.c[0].stats.backlog, 2000);
		CU_ASSERT(w.c[0].has_allot);
		/* 190 - 125 units, shown x8; or 1514 - 1000 bytes */
		CU_ASSERT_EQUAL((int64_t)w.c[0].allot, b ? 514 : 520);
		CU_ASSERT_EQUAL(w.c[1].classid, 0x10002);
		CU_ASSERT_EQUAL(w.c[1].stats.qlen, 1);
		CU_ASSERT_EQUAL(w.c[1].stats.backlog, 200);
		CU_ASSERT_EQUAL((int64_t)w.c[1].allot, b ? 1514 : 1520);
		finish(t, q);
	}
}

static void test_counters_and_reset(void)
{
	struct tenv *t = tenv_new(BPF_KERNEL_CURRENT, 0, 1);
	struct qdisc *q = sfq(t, "");

	for (int i = 0; i < 4; i++)
		enq(q, udp(t, (uint16_t)(i % 2), 500));
	CU_ASSERT_EQUAL(q->s.qlen, 4);
	CU_ASSERT_EQUAL(q->s.backlog, 2000);
	CU_ASSERT_EQUAL(deq(t, q), 1);
	CU_ASSERT_EQUAL(q->s.packets, 1);
	CU_ASSERT_EQUAL(q->s.bytes, 500);
	q->ops->reset(q);
	CU_ASSERT_EQUAL(t->ndrop, 3);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(t->drop_why[i], DROP_QDISC_DESTROY);
	CU_ASSERT_EQUAL(q->s.qlen, 0);
	CU_ASSERT_EQUAL(q->s.backlog, 0);
	CU_ASSERT_EQUAL(q->s.drops, 0);
	/* usable again */
	CU_ASSERT_EQUAL(enq(q, udp(t, 7, 100)), NET_XMIT_SUCCESS);
	CU_ASSERT_EQUAL(deq(t, q), 5);
	finish(t, q);
}

/* peek serves the packet and holds it (qdisc_peek_dequeued): bstats at
 * peek time, still in qlen, and dequeue hands exactly that packet. */
static void test_peek_holds_packet(void)
{
	struct tenv *t = tenv_new(BPF_KERNEL_CURRENT, 0, 1);
	struct qdisc *q = sfq(t, "");

	enq(q, udp(t, 1, 1514));
	enq(q, udp(t, 1, 1514));
	enq(q, udp(t, 2, 1514));
	CU_ASSERT_EQUAL(q->ops->peek(q)->id, 1);
	CU_ASSERT_EQUAL(q->ops->peek(q)->id, 1);
	CU_ASSERT_EQUAL(q->s.packets, 1);
	CU_ASSERT_EQUAL(q->s.qlen, 3);
	CU_ASSERT_EQUAL(q->s.backlog, 3 * 1514);
	enq(q, udp(t, 3, 1514)); /* C joins behind B */
	CU_ASSERT_EQUAL(deq(t, q), 1);
	CU_ASSERT_EQUAL(q->s.packets, 1);
	CU_ASSERT_EQUAL(q->s.qlen, 3);
	CU_ASSERT_EQUAL(deq(t, q), 3);
	CU_ASSERT_EQUAL(deq(t, q), 4);
	CU_ASSERT_EQUAL(deq(t, q), 2);
	CU_ASSERT_EQUAL(q->s.packets, 4);
	/* a held packet is dropped by a reset */
	enq(q, udp(t, 1, 100));
	CU_ASSERT_PTR_NOT_NULL(q->ops->peek(q));
	finish(t, q);
}

/* The 3.13 credit is a short: quantum 300000 is 37500 units, stored as
 * -28036, so a new flow first rotates (+37500 = 9464) before it sends. */
static void test_3_13_short_credit_wraps(void)
{
	struct tenv *t = tenv_new(BPF_KERNEL_3_13, 0, 1);
	struct qdisc *q = sfq(t, "quantum 300000");
	struct walk_log w = {0};

	enq(q, udp(t, 1, 1000));
	enq(q, udp(t, 1, 1000));
	q->ops->walk(q, walk_fn, &w);
	CU_ASSERT_EQUAL((int64_t)w.c[0].allot, -28036 * 8);
	CU_ASSERT_EQUAL(deq(t, q), 1);
	w.n = 0;
	q->ops->walk(q, walk_fn, &w);
	CU_ASSERT_EQUAL((int64_t)w.c[0].allot, (9464 - 125) * 8);
	finish(t, q);
}

int main(void)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} tests[] = {
	    {"dump with defaults", test_dump_defaults},
	    {"dump with options", test_dump_options},
	    {"parameters clamp in the kernel's order", test_clamping},
	    {"flows capped by divisor and limit", test_flows_capped_by_divisor_and_limit},
	    {"tc's option errors", test_tc_errors},
	    {"kernel validation per version", test_kernel_errors},
	    {"RED options are not modelled", test_red_not_modelled},
	    {"DRR first rounds", test_drr_first_rounds},
	    {"quantum 1000 and 999-byte packets", test_quantum_1000_999},
	    {"backlogged flows share bytes within a quantum", test_fair_share_bytes},
	    {"a new flow joins at the end of the round", test_new_flow_joins_end_of_round},
	    {"depth drops the arriving packet", test_depth_tail_drop},
	    {"depth with headdrop drops the flow's head", test_depth_head_drop},
	    {"no free slot drops a new flow", test_maxflows_drop_and_reuse},
	    {"limit drops the longest flow's tail", test_limit_drops_longest_tail},
	    {"limit with headdrop drops the longest flow's head", test_limit_headdrop},
	    {"limit tie goes to the flow that reached it last", test_limit_tie_most_recent},
	    {"limit with every flow one deep", test_limit_all_depth_one},
	    {"a filter's classid selects the bucket", test_filter_selects_bucket},
	    {"unclassified packets are dropped", test_filter_drops},
	    {"3.13 flow keys", test_flow_keys_3_13},
	    {"current flow keys", test_flow_keys_current},
	    {"tuple buckets are handed out first come", test_tuple_buckets_first_come},
	    {"perturbation timer and rehash order", test_perturb_timer_and_rehash_order},
	    {"random hash reproducible per seed", test_perturb_random_reproducible},
	    {"random hash is 3.13's jhash", test_random_hash_is_3_13_jhash},
	    {"rehash drops tell the parent", test_rehash_drop_tells_parent},
	    {"no rehash with filters", test_perturb_with_filters_keeps_queues},
	    {"walk lists busy buckets", test_walk_classes},
	    {"counters and reset", test_counters_and_reset},
	    {"peek holds the packet", test_peek_holds_packet},
	    {"3.13 short credit wraps", test_3_13_short_credit_wraps},
	};
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("sch_sfq", NULL, NULL);
	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		CU_add_test(s, tests[i].name, tests[i].fn);
	return unit_run();
}
