/* test_sch_htb.c - htb rule by rule: pacing, ceil, borrowing and lending,
 * the split of a parent's excess, htb_classify, the direct queue and the
 * accounting; every schedule is computed by hand in the comments. */
#include <CUnit/Basic.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "tc.h"
#include "test_src.h"
#include "unit.h"

/* A classic BPF program for tc's bytecode word: IPv4 (header of 20 bytes),
 * UDP, destination port N: -1 (the filter's flowid), else 0 (no match).
 * (A tcpdump expression returns 262144, a classid of 4:, not the flowid.) */
#define UDP_DPORT(n)                                                                               \
	"8,40 0 0 12,21 0 5 2048,48 0 0 23,21 0 3 17,40 0 0 36,21 0 1 " n                          \
	",6 0 0 4294967295,6 0 0 0"

/* ---- a scripted source and a record of every packet's end ---- */

struct script_pkt {
	uint64_t t;
	uint32_t len;
	uint32_t priority;
	uint16_t dport; /* UDP destination port, for filters */
};

struct script {
	const struct script_pkt *v;
	int n, i;
	/* or, with v NULL: n packets of len at t = 0, dport alternating */
	uint32_t len;
	uint16_t dport[2];
};

static int script_gen(void *arg, uint8_t *buf, struct src_packet *p)
{
	struct script *s = arg;
	struct script_pkt sp;

	if (s->i == s->n)
		return 0;
	if (s->v)
		sp = s->v[s->i];
	else
		sp = (struct script_pkt){0, s->len, 0, s->dport[s->i & 1]};
	s->i++;
	test_frame_udp(buf, sp.len, 0x0a000001, 0x0a000002, 40000, sp.dport ? sp.dport : 5000, 0);
	p->data = buf;
	p->caplen = p->len = sp.len;
	p->t_ns = sp.t;
	p->priority = sp.priority;
	return 1;
}

#define MAXREC 4096
struct record {
	int n;
	struct sim_observer obs;
	uint64_t id[MAXREC], dq[MAXREC];
	uint32_t leaf[MAXREC];
	uint32_t len[MAXREC];
	enum pkt_drop drop[MAXREC];
};

static void on_done(void *arg, const struct dev *d, const struct pkt *p)
{
	struct record *rec = arg;

	(void)d;
	if (rec->n < MAXREC) {
		rec->id[rec->n] = p->id;
		rec->dq[rec->n] = p->t_dequeue;
		rec->leaf[rec->n] = p->leaf_classid;
		rec->len[rec->n] = p->len;
		rec->drop[rec->n] = p->drop;
		rec->n++;
	}
}

/* A device at rate_bps (0: a wire that takes no time, as a veth), the tc
 * script applied, the source attached. */
static struct dev *setup(struct sim *s, struct record *rec, struct script *sc, uint64_t rate_bps,
			 const char *tc)
{
	struct sim_config cfg;
	struct dev *d;
	char err[512];

	sim_config_default(&cfg);
	cfg.rate_bps = rate_bps;
	CU_ASSERT_FATAL(sim_init(s, &cfg) == 0);
	CU_ASSERT_FATAL(sim_dev_add(s, "eth0", &d, err, sizeof(err)) == 0);
	if (tc_run_script(s, tc, "htb.tc", NULL, NULL, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		CU_FAIL_FATAL("tc script");
	}
	rec->obs = (struct sim_observer){.done = on_done, .arg = rec};
	CU_ASSERT_FATAL(sim_observe(s, &rec->obs, err, sizeof(err)) == 0);
	if (sc)
		CU_ASSERT_FATAL(
		    sim_add_source(s, test_src_new(script_gen, sc), d, 0, err, sizeof(err)) == 0);
	return d;
}

static void check_accounting(const struct sim *s)
{
	char err[512];

	CU_ASSERT_EQUAL(sim_check_accounting(s, err, sizeof(err)), 0);
}

/* The text of a show command. */
static char *show(struct sim *s, const char *cmd)
{
	static char buf[16384];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	char err[512];

	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(tc_run_script(s, cmd, "show", NULL, f, err, sizeof(err)), 0);
	fclose(f);
	return buf;
}

struct cls {
	const struct qdisc_class *found;
	struct qdisc_class c;
	uint32_t want;
};

static void find_class(void *arg, const struct qdisc_class *c)
{
	struct cls *x = arg;

	if (c->classid == x->want) {
		x->c = *c;
		x->found = &x->c;
	}
}

/* The counters of class id as tc class show has them. */
static struct qdisc_class class_of(const struct dev *d, uint32_t id)
{
	struct cls x = {.want = id};

	d->root->ops->walk(d->root, find_class, &x);
	CU_ASSERT_FATAL(x.found != NULL);
	return x.c;
}

/* A number of tc -s class show's text for class id: what follows key in
 * that class's lines. */
static uint64_t xstat(struct sim *s, const char *id, const char *key)
{
	char head[64];
	const char *t = show(s, "tc -s class show dev eth0"), *c, *k;

	snprintf(head, sizeof(head), "class htb %s ", id);
	c = strstr(t, head);
	CU_ASSERT_FATAL(c != NULL);
	k = strstr(c, key);
	CU_ASSERT_FATAL(k != NULL);
	return strtoull(k + strlen(key), NULL, 10);
}

/* ---- pacing: one class at its rate ---- */

/* rate 1mbit = 125000 bytes/s. psched_ratecfg_precompute: 1e9/125000 =
 * 8000 ns a byte exactly (mult 8000 << 19, shift 19), so 1000 bytes cost
 * 8 ms. tc's default burst: 125000 / get_hz() (1e9) + mtu 1600 = 1600
 * bytes; tc_calc_xmittime: 1600 / 125000 s = 12800 us -> 12800 * 15.625 =
 * 200000 ticks -> buffer = cbuffer = 200000 * 64 = 12.8 ms of tokens.
 *
 * Five packets of 1000 bytes at t = 0 on a wire that takes no time:
 *   #1 at 0: tokens 12.8 - 8 = 4.8 ms, still CAN_SEND.
 *   #2 at 0: 4.8 - 8 = -3.2 ms: CANT_SEND (ctokens are the same), one
 *      overlimit; the class waits 3.2 ms.
 *   #3 at 3.2 ms: -3.2 + 3.2 = 0 -> -8 ms: waits 8 ms.
 *   #4 at 11.2 ms, #5 at 19.2 ms (the same), each an overlimit.
 * In ticks the last tokens are -8e6 / 64 = -125000. */
static void test_pacing_at_rate(void)
{
	struct script sc = {NULL, 5, 0, 1000, {0, 0}};
	struct record rec = {0};
	struct sim s;
	struct dev *d = setup(&s, &rec, &sc, 0,
			      "tc qdisc add dev eth0 root handle 1: htb default 1\n"
			      "tc class add dev eth0 parent 1: classid 1:1 htb rate 1mbit\n");
	static const uint64_t want[] = {0, 0, 3200000, 11200000, 19200000};
	struct qdisc_class c;

	CU_ASSERT_EQUAL(sim_run_until(&s, 19199999), 0);
	CU_ASSERT_EQUAL(rec.n, 4);
	CU_ASSERT_EQUAL(d->root->s.qlen, 1);
	CU_ASSERT(d->root->wd.pending && d->root->wd.expires == 19200000);
	check_accounting(&s); /* the held packet counts as queued */
	CU_ASSERT_EQUAL(sim_run(&s), 0);
	CU_ASSERT_EQUAL_FATAL(rec.n, 5);
	for (int i = 0; i < 5; i++) {
		CU_ASSERT_EQUAL(rec.id[i], (uint64_t)i + 1);
		CU_ASSERT_EQUAL(rec.dq[i], want[i]);
		CU_ASSERT_EQUAL(rec.leaf[i], 0x10001);
	}
	c = class_of(d, 0x10001);
	CU_ASSERT_EQUAL(c.stats.packets, 5);
	CU_ASSERT_EQUAL(c.stats.bytes, 5000);
	CU_ASSERT_EQUAL(c.stats.overlimits, 4);
	CU_ASSERT_EQUAL(d->root->s.overlimits, 4);
	CU_ASSERT_STRING_EQUAL(show(&s, "tc -s class show dev eth0"),
			       "class htb 1:1 root prio 0 rate 1Mbit ceil 1Mbit burst 1600b cburst "
			       "1600b \n"
			       " Sent 5000 bytes 5 pkt (dropped 0, overlimits 4 requeues 0) \n"
			       " backlog 0b 0p requeues 0\n"
			       " lended: 5 borrowed: 0 giants: 0\n"
			       " tokens: -125000 ctokens: -125000\n"
			       "\n");
	CU_ASSERT_STRING_EQUAL(
	    show(&s, "tc -s qdisc show dev eth0"),
	    "qdisc htb 1: root refcnt 2 r2q 10 default 0x1 direct_packets_stat 0 "
	    "direct_qlen 1000\n"
	    " Sent 5000 bytes 5 pkt (dropped 0, overlimits 4 requeues 0) \n"
	    " backlog 0b 0p requeues 0\n");
	check_accounting(&s);
	sim_free(&s);
}

/* The same class behind a 1 Mbit/s wire: the wire, not htb, is the limit.
 * #1 leaves at 0 and takes 8 ms on the wire; htb's tokens refill as fast
 * as they are spent, so every packet leaves when the wire frees: 0, 8,
 * 16 ms, and htb is never over its limit. */
static void test_wire_slower_than_class(void)
{
	struct script sc = {NULL, 3, 0, 1000, {0, 0}};
	struct record rec = {0};
	struct sim s;
	struct dev *d = setup(&s, &rec, &sc, 1000000,
			      "tc qdisc add dev eth0 root handle 1: htb default 1\n"
			      "tc class add dev eth0 parent 1: classid 1:1 htb rate 1mbit\n");

	CU_ASSERT_EQUAL(sim_run(&s), 0);
	CU_ASSERT_EQUAL_FATAL(rec.n, 3);
	CU_ASSERT_EQUAL(rec.dq[0], 0);
	CU_ASSERT_EQUAL(rec.dq[1], 8000000);
	CU_ASSERT_EQUAL(rec.dq[2], 16000000);
	CU_ASSERT_EQUAL(d->root->s.overlimits, 0);
	check_accounting(&s);
	sim_free(&s);
}

/* ---- ceil, borrowing and lending ---- */

/* Parent 1:1 rate 10mbit (1.25e6 bytes/s: 800 ns a byte, 0.8 ms for 1000
 * bytes; burst 1600 b -> 1280 us -> 20000 ticks = 1.28 ms). Child 1:10
 * rate 1mbit (8 ms for 1000 bytes, buffer 12.8 ms) ceil 2mbit (250000
 * bytes/s: 4 ms for 1000 bytes; cburst 1600 b -> 6400 us -> 100000 ticks
 * = 6.4 ms). Six packets of 1000 bytes at t = 0, wire without time:
 *   #1 at 0 (level 0, its own rate): child tokens 4.8, ctokens 2.4;
 *      parent 0.48 / 0.48 ms.
 *   #2 at 0: child -3.2 / -1.6: CANT_SEND until 1.6 ms (overlimit);
 *      parent -0.32: CANT_SEND until 0.32 ms (overlimit).
 *   at 1.6 ms the child's ctokens are 0, its tokens -1.6: MAY_BORROW;
 *      the parent (CAN_SEND again since 0.32) lends: #3 leaves from level
 *      7 (child borrows 1, parent lends 1). Child: tokens -3.2 + 1.6 =
 *      -1.6 (it borrowed: not charged), ctokens 0 - 4 = -4: CANT_SEND
 *      until 5.6 ms (overlimit). Parent: min(-0.32 + 1.6, 1.28) - 0.8 =
 *      0.48.
 *   at 5.6 ms: tokens -1.6 + 4 = 2.4 >= 0: CAN_SEND, #4 from its own
 *      rate: tokens -5.6, ctokens -4: CANT_SEND until 9.6 ms (overlimit).
 *   at 9.6 ms: tokens -1.6: MAY_BORROW, #5 borrowed (overlimit).
 *   at 13.6 ms: CAN_SEND, #6 its own (overlimit).
 * So after the first two, one packet each 4 ms: the ceil, half of it
 * borrowed. Child: lended 4 (#1 #2 #4 #6), borrowed 2, overlimits 5;
 * parent: lended 2, overlimits 1; the qdisc counts 6. */
static void test_ceil_borrow_lend(void)
{
	struct script sc = {NULL, 6, 0, 1000, {0, 0}};
	struct record rec = {0};
	struct sim s;
	struct dev *d = setup(&s, &rec, &sc, 0,
			      "tc qdisc add dev eth0 root handle 1: htb default 10\n"
			      "tc class add dev eth0 parent 1: classid 1:1 htb rate 10mbit\n"
			      "tc class add dev eth0 parent 1:1 classid 1:10 htb rate 1mbit ceil "
			      "2mbit\n");
	static const uint64_t want[] = {0, 0, 1600000, 5600000, 9600000, 13600000};
	struct qdisc_class c;

	CU_ASSERT_EQUAL(sim_run(&s), 0);
	CU_ASSERT_EQUAL_FATAL(rec.n, 6);
	for (int i = 0; i < 6; i++)
		CU_ASSERT_EQUAL(rec.dq[i], want[i]);
	c = class_of(d, 0x10010);
	CU_ASSERT_EQUAL(c.stats.overlimits, 5);
	c = class_of(d, 0x10001);
	CU_ASSERT_EQUAL(c.stats.overlimits, 1);
	CU_ASSERT_EQUAL(c.stats.packets, 6); /* an inner class counts what its leaves sent */
	CU_ASSERT_EQUAL(c.stats.bytes, 6000);
	CU_ASSERT_EQUAL(d->root->s.overlimits, 6);
	/* clhash order: 1:10 and 1:1 share bucket 1 of 4, the newer first */
	CU_ASSERT_STRING_EQUAL(
	    show(&s, "tc -s class show dev eth0"),
	    "class htb 1:10 parent 1:1 prio 0 rate 1Mbit ceil 2Mbit burst 1600b cburst 1600b \n"
	    " Sent 6000 bytes 6 pkt (dropped 0, overlimits 5 requeues 0) \n"
	    " backlog 0b 0p requeues 0\n"
	    " lended: 4 borrowed: 2 giants: 0\n"
	    " tokens: -87500 ctokens: -62500\n"
	    "\n"
	    "class htb 1:1 root rate 10Mbit ceil 10Mbit burst 1600b cburst 1600b \n"
	    " Sent 6000 bytes 6 pkt (dropped 0, overlimits 1 requeues 0) \n"
	    " backlog 0b 0p requeues 0\n"
	    " lended: 2 borrowed: 0 giants: 0\n"
	    " tokens: 7500 ctokens: 7500\n"
	    "\n");
	check_accounting(&s);
	sim_free(&s);
}

/* ---- the split of a parent's excess ---- */

/* Parent 1:1 rate = ceil = 8mbit: 1000 packets of 1000 bytes a second, and
 * it is the limit (each packet costs it 1 ms; its bucket holds 1.6 ms).
 * A (1:10) rate 1mbit, B (1:20) rate 3mbit, both ceil 8mbit, both greedy
 * (10000 packets each at t = 0). Their own rates give A 125 and B 375
 * packets a second (at level 0, served first); the other 500 are borrowed
 * from the parent (level 7) in DRR rounds of the quanta, rate / r2q 10:
 * A 12500 and B 37500 bytes, so 1:3 -> A 125 and B 375 more. Rate + share
 * of the excess: A 250 (2 Mbit/s), B 750 (6 Mbit/s). The whole pattern
 * repeats every 200 ms (100 borrowed packets: 25 A + 75 B; A's own packet
 * every 8 ms, B's every 8/3 ms), so from the first such period on, every
 * 200 ms window holds exactly 50 of A's and 150 of B's. */
static void test_excess_split_by_quantum(void)
{
	static struct record rec;
	struct script sc = {NULL, 20000, 0, 1000, {1010, 1020}};
	struct sim s;
	struct dev *d;
	struct qdisc_class a, b, p;

	memset(&rec, 0, sizeof(rec));
	d = setup(&s, &rec, &sc, 0,
		  "tc qdisc add dev eth0 root handle 1: htb\n"
		  "tc class add dev eth0 parent 1: classid 1:1 htb rate 8mbit\n"
		  "tc class add dev eth0 parent 1:1 classid 1:10 htb rate 1mbit ceil 8mbit\n"
		  "tc class add dev eth0 parent 1:1 classid 1:20 htb rate 3mbit ceil 8mbit\n"
		  "tc qdisc add dev eth0 parent 1:10 pfifo limit 100000\n"
		  "tc qdisc add dev eth0 parent 1:20 pfifo limit 100000\n"
		  "tc filter add dev eth0 parent 1: protocol ip pref 1 bpf bytecode '" UDP_DPORT(
		      "1010") "' "
			      "flowid 1:10\n"
			      "tc filter add dev eth0 parent 1: protocol ip pref 2 bpf bytecode "
			      "'" UDP_DPORT("1020") "' "
						    "flowid 1:20\n");
	CU_ASSERT_EQUAL(sim_run_until(&s, 2200000000ull), 0);
	for (uint64_t w = 200000000; w < 2200000000ull; w += 200000000) {
		int na = 0, nb = 0;

		for (int i = 0; i < rec.n; i++)
			if (rec.dq[i] >= w && rec.dq[i] < w + 200000000) {
				na += rec.leaf[i] == 0x10010;
				nb += rec.leaf[i] == 0x10020;
			}
		CU_ASSERT_EQUAL(na, 50);
		CU_ASSERT_EQUAL(nb, 150);
	}
	/* who lent what: every borrowed packet was lent by the parent */
	a = class_of(d, 0x10010);
	b = class_of(d, 0x10020);
	p = class_of(d, 0x10001);
	CU_ASSERT_EQUAL(p.stats.packets, a.stats.packets + b.stats.packets);
	CU_ASSERT_EQUAL(xstat(&s, "1:1", "lended: "),
			xstat(&s, "1:10", "borrowed: ") + xstat(&s, "1:20", "borrowed: "));
	CU_ASSERT_EQUAL(xstat(&s, "1:1", "borrowed: "), 0);
	CU_ASSERT_EQUAL(a.stats.packets,
			xstat(&s, "1:10", "lended: ") + xstat(&s, "1:10", "borrowed: "));
	CU_ASSERT_EQUAL(b.stats.packets,
			xstat(&s, "1:20", "lended: ") + xstat(&s, "1:20", "borrowed: "));
	check_accounting(&s);
	sim_free(&s);
}

/* ---- htb_classify ---- */

/* Wire without time, rates to spare: every packet leaves as it arrives,
 * in its class (leaf_classid; the direct queue is the qdisc's 1:). */
static const char classify_tc[] =
    "tc qdisc add dev eth0 root handle 1: htb default 30\n"
    "tc class add dev eth0 parent 1: classid 1:1 htb rate 10mbit\n"
    "tc class add dev eth0 parent 1:1 classid 1:10 htb rate 10mbit\n"
    "tc class add dev eth0 parent 1:1 classid 1:20 htb rate 10mbit\n"
    "tc class add dev eth0 parent 1: classid 1:30 htb rate 10mbit\n"
    /* the root's filters: one names the inner 1:1, whose own filters go on */
    "tc filter add dev eth0 parent 1: protocol ip pref 1 bpf bytecode '" UDP_DPORT(
	"1111") "' flowid 1:1\n"
		"tc filter add dev eth0 parent 1:1 protocol ip pref 1 bpf bytecode '" UDP_DPORT(
		    "1111") "' "
			    "flowid 1:20\n"
			    "tc filter add dev eth0 parent 1: protocol ip pref 2 bpf bytecode "
			    "'" UDP_DPORT(
				"2222") "' flowid 1:\n"
					"tc filter add dev eth0 parent 1: protocol ip pref 3 bpf "
					"bytecode '" UDP_DPORT(
					    "3333") "' flowid 1:99\n"
						    "tc filter add dev eth0 parent 1: protocol ip "
						    "pref 4 bpf bytecode '" UDP_DPORT(
							"4444") "' flowid 1:10\n"
								"tc filter add dev eth0 parent 1: "
								"protocol ip pref 5 bpf bytecode "
								"'" UDP_DPORT(
								    "5555") "' flowid 1:1\n";

static void test_classify_rules(void)
{
	static const struct script_pkt v[] = {
	    {0, 100, 0x10020, 5000}, /* priority names a leaf: 1:20 */
	    {1, 100, 0x10000, 4444}, /* priority names the qdisc: direct, filters unasked */
	    {2, 100, 0x10001, 1111}, /* priority names inner 1:1: its filters: 1:20 */
	    {3, 100, 0x10001, 4444}, /* ... which match nothing: the default 1:30 */
	    {4, 100, 0x20005, 1111}, /* another qdisc's: ignored; root 1:1 -> 1:1's -> 1:20 */
	    {5, 100, 0, 2222},	     /* flowid 1: (X:0): the direct queue */
	    {6, 100, 0, 3333},	     /* flowid of no class: the default */
	    {7, 100, 0, 4444},	     /* a leaf: 1:10 */
	    {8, 100, 0, 5555},	     /* inner 1:1, none of its filters match: default */
	    {9, 100, 0, 6666},	     /* nothing matches: the default */
	};
	static const uint32_t want[] = {0x10020, 0x10000, 0x10020, 0x10030, 0x10020,
					0x10000, 0x10030, 0x10010, 0x10030, 0x10030};
	struct script sc = {v, 10, 0, 0, {0, 0}};
	struct record rec = {0};
	struct sim s;
	struct dev *d = setup(&s, &rec, &sc, 0, classify_tc);

	CU_ASSERT_EQUAL(sim_run(&s), 0);
	CU_ASSERT_EQUAL_FATAL(rec.n, 10);
	for (int i = 0; i < 10; i++) {
		CU_ASSERT_EQUAL(rec.id[i], (uint64_t)i + 1);
		CU_ASSERT_EQUAL(rec.leaf[i], want[i]);
		CU_ASSERT_EQUAL(rec.drop[i], DROP_NONE);
	}
	CU_ASSERT_STRING_EQUAL(
	    show(&s, "tc qdisc show dev eth0"),
	    "qdisc htb 1: root refcnt 2 r2q 10 default 0x30 direct_packets_stat 2 "
	    "direct_qlen 1000\n");
	CU_ASSERT_EQUAL(d->root->s.qlen, 0);
	check_accounting(&s);
	sim_free(&s);
}

/* No default class (default 77 names none; an inner class would do the
 * same): what nothing classifies goes to the direct queue, unshaped, and
 * past direct_qlen 2 it is dropped. On a 1 Mbit/s wire, 1000-byte packets
 * at t = 0: #1 goes on the wire at once, #2 and #3 wait in the direct
 * queue, #4 finds it full; #5 (priority 1:10) waits in its class, behind
 * the direct queue, which goes first: 0, 8, 16 ms, then #5 at 24 ms. */
static void test_direct_queue(void)
{
	static const struct script_pkt v[] = {{0, 1000, 0, 0},
					      {0, 1000, 0, 0},
					      {0, 1000, 0, 0},
					      {0, 1000, 0, 0},
					      {0, 1000, 0x10010, 0}};
	struct script sc = {v, 5, 0, 0, {0, 0}};
	struct record rec = {0};
	struct sim s;
	struct dev *d = setup(&s, &rec, &sc, 1000000,
			      "tc qdisc add dev eth0 root handle 1: htb default 77 direct_qlen 2\n"
			      "tc class add dev eth0 parent 1: classid 1:10 htb rate 10mbit\n");

	CU_ASSERT_EQUAL(sim_run(&s), 0);
	CU_ASSERT_EQUAL_FATAL(rec.n, 5);
	/* the drop ends first, at its arrival */
	CU_ASSERT_EQUAL(rec.id[0], 4);
	CU_ASSERT_EQUAL(rec.drop[0], DROP_QDISC_LIMIT);
	CU_ASSERT_EQUAL(rec.leaf[0], 0x10000);
	for (int i = 1; i < 5; i++) {
		CU_ASSERT_EQUAL(rec.drop[i], DROP_NONE);
		CU_ASSERT_EQUAL(rec.dq[i], (uint64_t)(i - 1) * 8000000);
	}
	CU_ASSERT_EQUAL(rec.id[1], 1);
	CU_ASSERT_EQUAL(rec.id[2], 2);
	CU_ASSERT_EQUAL(rec.id[3], 3);
	CU_ASSERT_EQUAL(rec.id[4], 5);
	CU_ASSERT_EQUAL(rec.leaf[4], 0x10010);
	CU_ASSERT_STRING_EQUAL(
	    show(&s, "tc -s qdisc show dev eth0"),
	    "qdisc htb 1: root refcnt 2 r2q 10 default 0x77 direct_packets_stat 3 "
	    "direct_qlen 2\n"
	    " Sent 4000 bytes 4 pkt (dropped 1, overlimits 0 requeues 0) \n"
	    " backlog 0b 0p requeues 0\n");
	CU_ASSERT_EQUAL(d->root->s.qlen, 0);
	check_accounting(&s);
	sim_free(&s);
}

/* ---- changes while packets wait: nothing is lost from the books ---- */

/* Ten packets wait in 1:10 (1 kbit/s: one leaves, the rest wait). A qdisc
 * grafted under 1:10 drops the nine (htb loses them, counts them as its
 * drops); a class added under 1:20 with three waiting turns 1:20 into an
 * inner class and drops those; deleting the new leaf gives 1:20 back its
 * leaf. The books balance at every step, and htb's qlen is what its leaves
 * hold. */
static void test_changes_keep_accounting(void)
{
	struct script_pkt v[14];
	struct script sc = {v, 14, 0, 0, {0, 0}};
	struct record rec = {0};
	struct sim s;
	struct dev *d;
	char err[512];

	for (int i = 0; i < 14; i++)
		v[i] = (struct script_pkt){(uint64_t)i, 500, i < 10 ? 0x10010u : 0x10020u, 0};
	d = setup(
	    &s, &rec, &sc, 0,
	    "tc qdisc add dev eth0 root handle 1: htb\n"
	    "tc class add dev eth0 parent 1: classid 1:10 htb rate 1kbit burst 400 quantum 1500\n"
	    "tc class add dev eth0 parent 1: classid 1:20 htb rate 1kbit burst 400 quantum 1500\n");
	CU_ASSERT_EQUAL(sim_run_until(&s, 1000), 0);
	CU_ASSERT_EQUAL(rec.n, 2); /* one of each left on their bursts */
	CU_ASSERT_EQUAL(d->root->s.qlen, 12);
	check_accounting(&s);
	CU_ASSERT_EQUAL(tc_run_script(&s, "tc qdisc add dev eth0 parent 1:10 handle 10: bfifo", "c",
				      NULL, NULL, err, sizeof(err)),
			0);
	CU_ASSERT_EQUAL(d->root->s.qlen, 3);
	CU_ASSERT_EQUAL(d->root->s.drops, 9);
	check_accounting(&s);
	CU_ASSERT_EQUAL(
	    tc_run_script(&s, "tc class add dev eth0 parent 1:20 classid 1:21 htb rate 1mbit", "c",
			  NULL, NULL, err, sizeof(err)),
	    0);
	CU_ASSERT_EQUAL(d->root->s.qlen, 0);
	CU_ASSERT_EQUAL(d->root->s.drops, 12);
	check_accounting(&s);
	CU_ASSERT_EQUAL(tc_run_script(&s, "tc class del dev eth0 classid 1:21", "c", NULL, NULL,
				      err, sizeof(err)),
			0);
	CU_ASSERT_EQUAL(tc_run_script(&s, "tc class del dev eth0 classid 1:20", "c", NULL, NULL,
				      err, sizeof(err)),
			0);
	CU_ASSERT_EQUAL(sim_run(&s), 0);
	CU_ASSERT_EQUAL(rec.n, 14);
	CU_ASSERT_EQUAL(d->root->s.qlen, 0);
	check_accounting(&s);
	sim_free(&s);
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("sch_htb", NULL, NULL);
	CU_add_test(s, "one class paces back-to-back packets at its rate", test_pacing_at_rate);
	CU_add_test(s, "a wire slower than the class is the limit", test_wire_slower_than_class);
	CU_add_test(s, "ceil caps a child; it borrows half, the parent lends",
		    test_ceil_borrow_lend);
	CU_add_test(s, "a parent's excess splits by quantum: rate + share",
		    test_excess_split_by_quantum);
	CU_add_test(s, "htb_classify: priority, filters of the root and of an inner class, default",
		    test_classify_rules);
	CU_add_test(s, "the direct queue: no default class, direct_qlen", test_direct_queue);
	CU_add_test(s, "graft, class add and del while packets wait keep the books",
		    test_changes_keep_accounting);
	return unit_run();
}
