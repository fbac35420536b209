/* test_sim.c - the device, the event order, prio classification and the
 * filter chain, checked against schedules computed by hand, and against
 * queueing theory (M/D/1, Cobham's priority formula). */
#include <CUnit/Basic.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "sim.h"
#include "test_src.h"

/* ---- a tiny scripted source ---- */

struct script_pkt {
	uint64_t t;
	uint32_t len;
	uint32_t priority;
	uint16_t dport;
	int tcp;
};

struct script {
	const struct script_pkt *v;
	int n, i;
};

static int script_gen(void *arg, uint8_t *buf, struct src_packet *p)
{
	struct script *s = arg;
	const struct script_pkt *sp;

	if (s->i == s->n)
		return 0;
	sp = &s->v[s->i++];
	if (sp->tcp)
		test_frame_tcp(buf, sp->len, 0x0a000001, 0x0a000002, 40000, sp->dport, 0);
	else
		test_frame_udp(buf, sp->len, 0x0a000001, 0x0a000002, 40000, sp->dport, 0);
	p->data = buf;
	p->caplen = p->len = sp->len;
	p->t_ns = sp->t;
	p->priority = sp->priority;
	return 1;
}

/* ---- record of departures ---- */

#define MAXREC 64
struct record {
	int n;
	struct sim_observer obs;
	struct {
		uint64_t id, dq, dep;
		uint32_t leaf;
		enum pkt_drop drop;
	} r[MAXREC];
};

static void on_done(void *arg, const struct dev *d, const struct pkt *p)
{
	struct record *rec = arg;

	(void)d;
	if (rec->n < MAXREC) {
		rec->r[rec->n].id = p->id;
		rec->r[rec->n].dq = p->t_dequeue;
		rec->r[rec->n].dep = p->t_depart;
		rec->r[rec->n].leaf = p->leaf_classid;
		rec->r[rec->n].drop = p->drop;
		rec->n++;
	}
}

/* rec hears of every packet that leaves s. */
static void watch(struct sim *s, struct record *rec)
{
	char err[128];

	rec->obs = (struct sim_observer){.done = on_done, .arg = rec};
	CU_ASSERT_EQUAL_FATAL(sim_observe(s, &rec->obs, err, sizeof(err)), 0);
}

static struct dev *setup(struct sim *s, uint64_t rate, const char *kind, int argc, char **argv)
{
	struct sim_config cfg;
	struct dev *d;
	struct qdisc *q;
	char err[256];

	sim_config_default(&cfg);
	cfg.rate_bps = rate;
	CU_ASSERT_FATAL(sim_init(s, &cfg) == 0);
	CU_ASSERT_FATAL(sim_dev_add(s, "eth0", &d, err, sizeof(err)) == 0);
	if (kind) {
		if (qdisc_create(&q, kind, &d->env, 0x10000, TC_H_ROOT, argc, argv, err, sizeof(err))) {
			CU_FAIL_FATAL(err);
		}
		dev_set_root(d, q);
	}
	return d;
}

static void add_script(struct sim *s, struct dev *d, struct script *sc)
{
	char err[256];

	CU_ASSERT_FATAL(sim_add_source(s, test_src_new(script_gen, sc), d, 0, err, sizeof(err)) == 0);
}

static int add_filter(struct qdisc *q, uint32_t pref, uint16_t proto, int argc, char **argv,
		      char *err, size_t errlen)
{
	struct tcf_request req = {.pref = pref, .protocol = proto, .create = 1, .excl = 1,
				  .kind = "bpf", .argc = argc, .argv = argv, .where = "test"};
	struct tcf_env env = {.kernel = q->env->kernel, .ifindex = q->env->ifindex};

	return tcf_chain_change(&q->chain, &req, &env, err, errlen);
}

/* 1 Mbit/s: 125 bytes take 1 ms. A (band 1:2) is on the wire when B
 * (1:2) and C (1:1) arrive; C overtakes B when A completes. */
static void test_schedule_strict_priority(void)
{
	static const struct script_pkt v[] = {
		{.t = 0, .len = 125, .priority = 0x10002},
		{.t = 500000, .len = 250, .priority = 0x10002},
		{.t = 600000, .len = 125, .priority = 0x10001},
	};
	struct script sc = {v, 3, 0};
	struct record rec = {0};
	struct sim s;
	struct dev *d = setup(&s, 1000000, "prio", 0, NULL);
	char err[256];

	watch(&s, &rec);
	add_script(&s, d, &sc);
	CU_ASSERT_EQUAL(sim_run(&s), 0);
	CU_ASSERT_EQUAL_FATAL(rec.n, 3);
	/* departure order A, C, B */
	CU_ASSERT_EQUAL(rec.r[0].id, 1);
	CU_ASSERT_EQUAL(rec.r[0].dq, 0);
	CU_ASSERT_EQUAL(rec.r[0].dep, 1000000);
	CU_ASSERT_EQUAL(rec.r[1].id, 3);
	CU_ASSERT_EQUAL(rec.r[1].dq, 1000000);
	CU_ASSERT_EQUAL(rec.r[1].dep, 2000000);
	CU_ASSERT_EQUAL(rec.r[1].leaf, 0x10001);
	CU_ASSERT_EQUAL(rec.r[2].id, 2);
	CU_ASSERT_EQUAL(rec.r[2].dq, 2000000);
	CU_ASSERT_EQUAL(rec.r[2].dep, 4000000);
	CU_ASSERT_EQUAL(rec.r[2].leaf, 0x10002);
	CU_ASSERT_EQUAL(s.now, 4000000);
	CU_ASSERT_EQUAL(sim_check_accounting(&s, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(d->root->s.packets, 3);
	CU_ASSERT_EQUAL(d->root->s.bytes, 500);
	sim_free(&s);
}

/* An arrival at the instant the wire frees: the device has already taken
 * the next queued packet (tx-complete events run first). */
static void test_simultaneous_events(void)
{
	static const struct script_pkt v[] = {
		{.t = 0, .len = 125, .priority = 0x10002},
		{.t = 0, .len = 125, .priority = 0x10003},
		{.t = 1000000, .len = 125, .priority = 0x10001},
	};
	struct script sc = {v, 3, 0};
	struct record rec = {0};
	struct sim s;
	struct dev *d = setup(&s, 1000000, "prio", 0, NULL);

	watch(&s, &rec);
	add_script(&s, d, &sc);
	CU_ASSERT_EQUAL(sim_run(&s), 0);
	CU_ASSERT_EQUAL_FATAL(rec.n, 3);
	CU_ASSERT_EQUAL(rec.r[1].id, 2); /* 1:3 went at 1 ms, before 1:1 arrived */
	CU_ASSERT_EQUAL(rec.r[1].dq, 1000000);
	CU_ASSERT_EQUAL(rec.r[2].id, 3);
	CU_ASSERT_EQUAL(rec.r[2].dq, 2000000);
	sim_free(&s);
}

/* Overhead and propagation delay: (100 + 24) bytes at 1 Mbit/s = 992 us,
 * plus 5 ms on the line. */
static void test_overhead_and_delay(void)
{
	static const struct script_pkt v[] = {{.t = 7, .len = 100}};
	struct script sc = {v, 1, 0};
	struct record rec = {0};
	struct sim s;
	struct dev *d = setup(&s, 1000000, NULL, 0, NULL);

	d->overhead = 24;
	d->delay_ns = 5000000;
	watch(&s, &rec);
	add_script(&s, d, &sc);
	CU_ASSERT_EQUAL(sim_run(&s), 0);
	CU_ASSERT_EQUAL(rec.r[0].dq, 7);
	CU_ASSERT_EQUAL(rec.r[0].dep, 7 + 992000 + 5000000);
	sim_free(&s);
}

/* The band a packet lands in, on an idle 1 Gbit/s device. */
static uint32_t band_of(struct sim *s, struct dev *d, uint32_t priority, uint16_t dport, int tcp)
{
	struct script_pkt v = {.t = 0, .len = 100, .priority = priority, .dport = dport, .tcp = tcp};
	struct script sc = {&v, 1, 0};
	struct record rec = {0};

	watch(s, &rec);
	add_script(s, d, &sc);
	CU_ASSERT_EQUAL(sim_run(s), 0);
	sim_unobserve(s, &rec.obs);
	return rec.n == 1 ? rec.r[0].leaf : 0;
}

static void test_priomap_fallback(void)
{
	struct sim s;
	struct dev *d = setup(&s, 1000000000, "prio", 0, NULL);

	/* default map 1 2 2 2 1 2 0 0 1 1 ...: priority 6 -> band 0 = 1:1 */
	CU_ASSERT_EQUAL(band_of(&s, d, 0, 80, 0), 0x10002);
	CU_ASSERT_EQUAL(band_of(&s, d, 1, 80, 0), 0x10003);
	CU_ASSERT_EQUAL(band_of(&s, d, 6, 80, 0), 0x10001);
	CU_ASSERT_EQUAL(band_of(&s, d, 7, 80, 0), 0x10001);
	CU_ASSERT_EQUAL(band_of(&s, d, 22, 80, 0), 0x10001);	/* 22 & 15 = 6 */
	CU_ASSERT_EQUAL(band_of(&s, d, 0x20006, 80, 0), 0x10002); /* other major: as 0 */
	CU_ASSERT_EQUAL(band_of(&s, d, 0x10003, 80, 0), 0x10003); /* this prio's class */
	CU_ASSERT_EQUAL(band_of(&s, d, 0x10000, 80, 0), 0x10002); /* minor 0: priomap[0] */
	CU_ASSERT_EQUAL(band_of(&s, d, 0x10009, 80, 0), 0x10002); /* minor > bands */
	sim_free(&s);
}

static void test_filter_classid_rules(void)
{
	struct sim s;
	char *map[] = {"bands", "3", "priomap", "2", "2", "2", "2", "2", "2", "2", "2",
		       "2", "2", "2", "2", "2", "2", "2", "2"};
	struct dev *d = setup(&s, 1000000000, "prio", 19, map);
	char err[512];
	/* udp dport 1 -> ret -1 (flowid 1:1); 2 -> 0x10002; 3 -> 0x10000 (minor 0);
	 * 4 -> 0x10007 (> bands); 5 -> 2 (":2", major ignored) */
	char *a1[] = {"bytecode", "4,40 0 0 36,21 0 1 1,6 0 0 4294967295,6 0 0 0", "flowid", "1:1"};
	char *a2[] = {"bytecode", "4,40 0 0 36,21 0 1 2,6 0 0 65538,6 0 0 0", "flowid", "1:1"};
	char *a3[] = {"bytecode", "4,40 0 0 36,21 0 1 3,6 0 0 65536,6 0 0 0", "flowid", "1:1"};
	char *a4[] = {"bytecode", "4,40 0 0 36,21 0 1 4,6 0 0 65543,6 0 0 0", "flowid", "1:1"};
	char *a5[] = {"bytecode", "4,40 0 0 36,21 0 1 5,6 0 0 2,6 0 0 0", "flowid", "1:1"};
	/* the seed's ssh filter made by tcpdump -ddd: returns 262144 */
	char *a6[] = {"expr", "tcp port 22", "flowid", "1:1"};

	CU_ASSERT_EQUAL(add_filter(d->root, 1, ETH_P_ALL, 4, a1, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(add_filter(d->root, 2, ETH_P_ALL, 4, a2, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(add_filter(d->root, 3, ETH_P_ALL, 4, a3, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(add_filter(d->root, 4, ETH_P_ALL, 4, a4, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(add_filter(d->root, 5, ETH_P_ALL, 4, a5, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(add_filter(d->root, 6, ETH_P_ALL, 4, a6, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(band_of(&s, d, 0, 1, 0), 0x10001);
	CU_ASSERT_EQUAL(band_of(&s, d, 0, 2, 0), 0x10002);
	CU_ASSERT_EQUAL(band_of(&s, d, 0, 3, 0), 0x10003); /* priomap[0] = band 2 */
	CU_ASSERT_EQUAL(band_of(&s, d, 0, 4, 0), 0x10003);
	CU_ASSERT_EQUAL(band_of(&s, d, 0, 5, 0), 0x10002);
	CU_ASSERT_EQUAL(band_of(&s, d, 0, 22, 1), 0x10003); /* 4:0 -> priomap[0] */
	CU_ASSERT_EQUAL(band_of(&s, d, 0, 99, 0), 0x10003); /* no match: priomap[0 & 15] */
	{
		char e2[256];

		CU_ASSERT_EQUAL(sim_check_accounting(&s, e2, sizeof(e2)), 0);
	}
	sim_free(&s);
}

/* The seed's four filters added without pref: 49152, 49151, 49150, 49149;
 * the chain is walked in ascending pref, so the last added runs first. */
static void test_automatic_pref_newest_first(void)
{
	struct sim s;
	struct dev *d = setup(&s, 1000000000, "prio", 0, NULL);
	char err[512];
	/* all four match UDP dport 7; each names its own class */
	char *f1[] = {"bytecode", "4,40 0 0 36,21 0 1 7,6 0 0 65537,6 0 0 0", "flowid", "1:1"};
	char *f2[] = {"bytecode", "4,40 0 0 36,21 0 1 7,6 0 0 65538,6 0 0 0", "flowid", "1:2"};
	char *f3[] = {"bytecode", "4,40 0 0 36,21 0 1 7,6 0 0 65539,6 0 0 0", "flowid", "1:3"};
	char *f4[] = {"bytecode", "4,40 0 0 36,21 0 1 8,6 0 0 65537,6 0 0 0", "flowid", "1:1"};
	uint32_t prefs[4];
	int i = 0;

	CU_ASSERT_EQUAL(add_filter(d->root, 0, ETH_P_ALL, 4, f1, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(add_filter(d->root, 0, ETH_P_ALL, 4, f2, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(add_filter(d->root, 0, ETH_P_ALL, 4, f3, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(add_filter(d->root, 0, ETH_P_ALL, 4, f4, err, sizeof(err)), 0);
	for (struct tcf_proto *tp = d->root->chain.head; tp && i < 4; tp = tp->next)
		prefs[i++] = tp->prio >> 16;
	CU_ASSERT_EQUAL_FATAL(i, 4);
	CU_ASSERT_EQUAL(prefs[0], 49149);
	CU_ASSERT_EQUAL(prefs[1], 49150);
	CU_ASSERT_EQUAL(prefs[2], 49151);
	CU_ASSERT_EQUAL(prefs[3], 49152);
	/* dport 7: f4 (49149) does not match, f3 (49150) does: 1:3 */
	CU_ASSERT_EQUAL(band_of(&s, d, 0, 7, 0), 0x10003);
	/* a user pref >= 32768 moves the automatic numbering */
	{
		char *f5[] = {"bytecode", "1,6 0 0 0", "flowid", "1:1"};

		CU_ASSERT_EQUAL(add_filter(d->root, 40000, ETH_P_ALL, 4, f5, err, sizeof(err)), 0);
		CU_ASSERT_EQUAL(add_filter(d->root, 0, ETH_P_ALL, 4, f5, err, sizeof(err)), 0);
		CU_ASSERT_EQUAL(d->root->chain.head->prio >> 16, 39999);
	}
	sim_free(&s);
}

static void test_protocol_match(void)
{
	struct sim s;
	struct dev *d = setup(&s, 1000000000, "prio", 0, NULL);
	char err[512];
	char *f[] = {"bytecode", "1,6 0 0 4294967295", "flowid", "1:3"};

	CU_ASSERT_EQUAL(add_filter(d->root, 10, 0x86dd, 4, f, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(band_of(&s, d, 0, 1, 0), 0x10002); /* IPv4 skips an ipv6 filter */
	CU_ASSERT_EQUAL(add_filter(d->root, 20, 0x0800, 4, f, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(band_of(&s, d, 0, 1, 0), 0x10003);
	/* the same pref with another protocol is refused */
	CU_ASSERT_EQUAL(add_filter(d->root, 20, 0x0806, 4, f, err, sizeof(err)), -22);
	sim_free(&s);
}

static void test_fifo_limits(void)
{
	static const struct script_pkt v[] = {
		{.t = 0, .len = 1000}, {.t = 0, .len = 1000}, {.t = 0, .len = 1000},
		{.t = 0, .len = 1000}, {.t = 0, .len = 500},
	};
	struct script sc = {v, 5, 0};
	struct sim s;
	char *lim[] = {"limit", "2"};
	char *blim[] = {"limit", "2500"};
	struct dev *d = setup(&s, 1000000, "pfifo", 2, lim);
	char err[256];

	/* one goes on the wire at once, two wait, two are dropped */
	add_script(&s, d, &sc);
	CU_ASSERT_EQUAL(sim_run(&s), 0);
	CU_ASSERT_EQUAL(d->st.sent, 3);
	CU_ASSERT_EQUAL(d->st.dropped, 2);
	CU_ASSERT_EQUAL(d->root->s.drops, 2);
	CU_ASSERT_EQUAL(d->root->s.peak_qlen, 2);
	CU_ASSERT_EQUAL(sim_check_accounting(&s, err, sizeof(err)), 0);
	sim_free(&s);

	sc.i = 0;
	d = setup(&s, 1000000, "bfifo", 2, blim);
	add_script(&s, d, &sc);
	CU_ASSERT_EQUAL(sim_run(&s), 0);
	/* 1000 on the wire; 1000 + 1000 queued; the 4th would make 3000; the
	 * 500 makes 2500: accepted */
	CU_ASSERT_EQUAL(d->st.sent, 4);
	CU_ASSERT_EQUAL(d->st.dropped, 1);
	CU_ASSERT_EQUAL(d->root->s.peak_backlog, 2500);
	sim_free(&s);
}

static void test_default_pfifo_child_limit(void)
{
	struct sim_config cfg;
	struct sim s;
	struct dev *d;
	struct qdisc *q;
	char err[256];

	sim_config_default(&cfg);
	cfg.txqueuelen = 0;
	cfg.kernel = BPF_KERNEL_3_13;
	CU_ASSERT_FATAL(sim_init(&s, &cfg) == 0);
	CU_ASSERT_FATAL(sim_dev_add(&s, "veth0", &d, err, sizeof(err)) == 0);
	CU_ASSERT_FATAL(qdisc_create(&q, "prio", &d->env, 0x10000, TC_H_ROOT, 0, NULL, err, sizeof(err)) == 0);
	dev_set_root(d, q);
	/* 3.13: a device with txqueuelen 0 gives its prio bands 1-packet fifos */
	{
		FILE *f = fmemopen(err, sizeof(err), "w");

		qdisc_dump_text(q->ops->leaf(q, 0x10001), f, 0);
		fclose(f);
		CU_ASSERT_STRING_EQUAL(err, "limit 1p");
	}
	sim_free(&s);
}

/* ---- random workloads: nothing is lost ---- */

struct rnd_gen {
	struct rng r;
	int left;
	uint64_t t;
};

static int rnd_gen(void *arg, uint8_t *buf, struct src_packet *p)
{
	struct rnd_gen *g = arg;
	uint32_t len = 60 + (uint32_t)(rng_u64(&g->r) % 1455);

	if (g->left-- <= 0)
		return 0;
	g->t += rng_u64(&g->r) % 2000000;
	test_frame_udp(buf, len, 0x0a000000 + (uint32_t)(rng_u64(&g->r) % 8), 0x0a000100,
		       (uint16_t)(1000 + rng_u64(&g->r) % 16), (uint16_t)(rng_u64(&g->r) % 8),
		       (uint8_t)(rng_u64(&g->r) & 0xfc));
	p->data = buf;
	p->caplen = p->len = len;
	p->t_ns = g->t;
	p->priority = (uint32_t)(rng_u64(&g->r) % 3 == 0 ? rng_u64(&g->r) % 20 : 0);
	return 1;
}

static void test_conservation_random(void)
{
	static const char *leaves[] = {"pfifo", "bfifo", "sfq", "prio"};
	int bad = 0;

	for (int w = 0; w < 2000; w++) {
		struct sim_config cfg;
		struct sim s;
		struct dev *d;
		struct qdisc *root, *child;
		struct rnd_gen g;
		char err[512], bands[8];
		char *pargs[] = {"bands", bands, "priomap", "1", "0", "1", "1", "0", "0", "0", "0",
				  "1", "1", "1", "1", "1", "1", "1", "1"};
		uint64_t sum_sent = 0;

		rng_seed(&g.r, (uint64_t)w + 1);
		g.left = 20 + (int)(rng_u64(&g.r) % 300);
		g.t = 0;
		sim_config_default(&cfg);
		cfg.seed = (uint64_t)w;
		cfg.rate_bps = 1000000 + rng_u64(&g.r) % 20000000;
		cfg.txqueuelen = (uint32_t)(rng_u64(&g.r) % 20);
		cfg.kernel = w % 2 ? BPF_KERNEL_CURRENT : BPF_KERNEL_3_13;
		if (sim_init(&s, &cfg) || sim_dev_add(&s, "eth0", &d, err, sizeof(err))) {
			bad++;
			sim_free(&s);
			break;
		}
		snprintf(bands, sizeof(bands), "%d", 2 + (int)(rng_u64(&g.r) % 15));
		if (qdisc_create(&root, "prio", &d->env, 0x10000, TC_H_ROOT, 18, pargs, err, sizeof(err))) {
			printf("\n  workload %d: %s\n", w, err);
			bad++;
			sim_free(&s);
			break;
		}
		dev_set_root(d, root);
		for (uint32_t b = 1; b <= 2; b++) {
			const char *kind = leaves[rng_u64(&g.r) % 4];
			char lim[16], *largs[] = {"limit", lim};
			int n = 0;

			if (strcmp(kind, "prio")) {
				snprintf(lim, sizeof(lim), "%u",
					 !strcmp(kind, "bfifo") ? 1500 + (unsigned)(rng_u64(&g.r) % 20000)
								: 2 + (unsigned)(rng_u64(&g.r) % 30));
				n = 2;
			}
			if (qdisc_create(&child, kind, &d->env, (0x10 + b) << 16, 0x10000 + b, n, largs, err,
					 sizeof(err)) ||
			    root->ops->graft(root, 0x10000 + b, child, err, sizeof(err))) {
				bad++;
				break;
			}
		}
		if (sim_add_source(&s, test_src_new(rnd_gen, &g), d, 0, err, sizeof(err)) ||
		    sim_run_until(&s, 50000000) || sim_check_accounting(&s, err, sizeof(err)))
			bad++;
		if (sim_run(&s) || sim_check_accounting(&s, err, sizeof(err)) || dev_queued(d))
			bad++;
		for (int i = 0; i < d->st.nclasses; i++)
			sum_sent += d->st.classes[i].packets;
		if (sum_sent != d->st.sent || root->s.packets != d->st.sent || root->s.qlen)
			bad++;
		if (bad) {
			printf("\n  workload %d: %s\n", w, err);
			sim_free(&s);
			break;
		}
		sim_free(&s);
	}
	CU_ASSERT_EQUAL(bad, 0);
}

/* ---- queueing theory ---- */

struct poisson {
	struct rng r;
	uint64_t t;
	long left;
	double rate[2]; /* per class, packets/s */
	uint32_t len;
};

static double expo(struct rng *r, double rate)
{
	double u = ((double)(rng_u64(r) >> 11) + 0.5) / 9007199254740992.0;

	return -log(u) / rate;
}

static int poisson_gen(void *arg, uint8_t *buf, struct src_packet *p)
{
	struct poisson *g = arg;
	double total = g->rate[0] + g->rate[1];
	int hi;

	if (g->left-- <= 0)
		return 0;
	g->t += (uint64_t)(expo(&g->r, total) * 1e9 + 0.5);
	hi = (double)(rng_u64(&g->r) >> 11) / 9007199254740992.0 < g->rate[0] / total;
	test_frame_udp(buf, g->len, 0x0a000001, 0x0a000002, 1, 2, 0);
	p->data = buf;
	p->caplen = p->len = g->len;
	p->t_ns = g->t;
	p->priority = hi ? 0x10001 : 0x10002;
	return 1;
}

/* 1000-byte frames at 8 Mbit/s: service S = 1 ms exactly. */
static void run_poisson(double lam_hi, double lam_lo, long n, double *w_hi, double *w_lo)
{
	struct poisson g = {.left = n, .rate = {lam_hi, lam_lo}, .len = 1000};
	char *pargs[] = {"bands", "2", "priomap", "1", "1", "1", "1", "1", "1", "1", "1",
			 "1", "1", "1", "1", "1", "1", "1", "1"};
	char *lim[] = {"limit", "1000000"};
	struct sim s;
	struct dev *d = setup(&s, 8000000, "prio", 19, pargs);
	struct qdisc *c1, *c2;
	char err[256];

	rng_seed(&g.r, 12345);
	CU_ASSERT_FATAL(qdisc_create(&c1, "pfifo", &d->env, 0x100000, 0x10001, 2, lim, err, sizeof(err)) == 0);
	CU_ASSERT_FATAL(qdisc_create(&c2, "pfifo", &d->env, 0x200000, 0x10002, 2, lim, err, sizeof(err)) == 0);
	d->root->ops->graft(d->root, 0x10001, c1, err, sizeof(err));
	d->root->ops->graft(d->root, 0x10002, c2, err, sizeof(err));
	CU_ASSERT_FATAL(sim_add_source(&s, test_src_new(poisson_gen, &g), d, 0, err, sizeof(err)) == 0);
	CU_ASSERT_EQUAL(sim_run(&s), 0);
	CU_ASSERT_EQUAL(d->st.dropped, 0);
	*w_hi = *w_lo = 0;
	for (int i = 0; i < d->st.nclasses; i++) {
		double m = hist_mean(&d->st.classes[i].queue_delay) / 1e9;

		if (d->st.classes[i].classid == 0x10001)
			*w_hi = m;
		else
			*w_lo = m;
	}
	sim_free(&s);
}

/* M/D/1: Wq = rho * S / (2 (1 - rho)). rho = 0.6, S = 1 ms: 0.75 ms. */
static void test_md1_mean_wait(void)
{
	double w_hi, w_lo, expect = 0.6 * 1e-3 / (2 * 0.4);

	run_poisson(0, 600, 400000, &w_hi, &w_lo);
	printf("\n  M/D/1 rho 0.6: mean wait %.4f ms, theory %.4f ms ", w_lo * 1e3, expect * 1e3);
	CU_ASSERT(fabs(w_lo - expect) / expect < 0.03);
}

/* Cobham: W_k = W0 / ((1 - s_{k-1})(1 - s_k)), W0 = sum lambda_i S^2 / 2.
 * rho_hi = 0.3, rho_lo = 0.4: W0 = 0.35 ms; W_hi = 0.5 ms; W_lo = 1.667 ms. */
static void test_cobham_priority_wait(void)
{
	double w_hi, w_lo, w0 = (300 + 400) * 1e-6 / 2;
	double e_hi = w0 / (1 - 0.3), e_lo = w0 / ((1 - 0.3) * (1 - 0.7));

	run_poisson(300, 400, 400000, &w_hi, &w_lo);
	printf("\n  Cobham: high %.4f ms (theory %.4f), low %.4f ms (theory %.4f) ", w_hi * 1e3,
	       e_hi * 1e3, w_lo * 1e3, e_lo * 1e3);
	CU_ASSERT(fabs(w_hi - e_hi) / e_hi < 0.03);
	CU_ASSERT(fabs(w_lo - e_lo) / e_lo < 0.04);
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	s = CU_add_suite("sim", NULL, NULL);
	CU_add_test(s, "hand-computed schedule with strict priority", test_schedule_strict_priority);
	CU_add_test(s, "simultaneous events: tx-complete before arrival", test_simultaneous_events);
	CU_add_test(s, "overhead and propagation delay", test_overhead_and_delay);
	CU_add_test(s, "priomap fallback and priority classids", test_priomap_fallback);
	CU_add_test(s, "filter return values and classid rules", test_filter_classid_rules);
	CU_add_test(s, "automatic pref: the newest filter first", test_automatic_pref_newest_first);
	CU_add_test(s, "protocol match", test_protocol_match);
	CU_add_test(s, "pfifo and bfifo limits", test_fifo_limits);
	CU_add_test(s, "3.13 default pfifo child with txqueuelen 0", test_default_pfifo_child_limit);
	CU_add_test(s, "conservation over 2000 random workloads", test_conservation_random);
	CU_add_test(s, "M/D/1 mean wait", test_md1_mean_wait);
	CU_add_test(s, "Cobham's non-preemptive priority waits", test_cobham_priority_wait);
	return unit_run();
}
