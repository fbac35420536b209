/* test_sch_netem.c - netem against schedules computed by hand (fixed delay,
 * the rate model with its cells), its random decisions against their
 * exact probabilities (binomial 99.9% bounds over 10^6 packets, the loss
 * chains' stationary occupancy, the tables' distributions by a
 * Kolmogorov-Smirnov bound), the tables against the files iproute2 ships,
 * and `tc qdisc show` and tc's errors as tc 6.1 gives them (qemu oracle). */
#include <CUnit/Basic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netem_dist.h"
#include "rng.h"
#include "sim.h"
#include "tc.h"
#include "test_src.h"
#include "unit.h"

#define MS 1000000ull
#define US 1000ull

/* ---- the qdisc alone, on a clock and a generator of the test's own ---- */

struct bench {
	struct qdisc_env env;
	struct qdisc *q;
	uint64_t now;
	struct rng rng;
	uint64_t drops, clones, next_id;
	struct qdisc_tracer tr;
	int64_t last_delay; /* from the trace of the last enqueue */
	int last_flags;
};

static uint64_t b_now(void *arg)
{
	return ((struct bench *)arg)->now;
}

static uint64_t b_random(void *arg)
{
	return rng_u64(&((struct bench *)arg)->rng);
}

static void b_drop(void *arg, struct pkt *p)
{
	((struct bench *)arg)->drops++;
	pkt_free(p);
}

static struct pkt *b_clone(void *arg, const struct pkt *p)
{
	struct bench *b = arg;
	struct pkt *c = pkt_new(p->data, p->caplen, p->len);

	c->id = ++b->next_id;
	c->traced = p->traced;
	b->clones++;
	return c;
}

static void b_event(void *arg, const struct qdisc *q, const struct pkt *p, const struct qtrace *ev)
{
	struct bench *b = arg;

	if (ev->kind == QTRACE_ENQUEUE && ev->has_netem) {
		b->last_delay = ev->netem_delay;
		b->last_flags = ev->netem_flags;
	}
}

static void bench_init(struct bench *b, const char *opts, uint64_t seed)
{
	char buf[512], *argv[64], err[512];
	int argc = 0;

	memset(b, 0, sizeof(*b));
	rng_seed(&b->rng, seed);
	b->env = (struct qdisc_env){.mtu = 1514, .hard_header_len = 14, .tx_queue_len = 1000,
				    .now = b_now, .random = b_random, .drop = b_drop,
				    .clone = b_clone, .arg = b};
	b->tr = (struct qdisc_tracer){.event = b_event, .arg = b};
	b->env.tracer = &b->tr;
	snprintf(buf, sizeof(buf), "%s", opts);
	for (char *t = strtok(buf, " "); t && argc < 64; t = strtok(NULL, " "))
		argv[argc++] = t;
	if (qdisc_create(&b->q, "netem", &b->env, 0x10000, TC_H_ROOT, argc, argv, err,
			 sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		CU_FAIL_FATAL("netem");
	}
}

static void bench_free(struct bench *b)
{
	qdisc_destroy(b->q);
}

/* A 1000-byte UDP/IPv4 frame (ECT(0) when ect), traced so its enqueue
 * reports the delay. */
static struct pkt *frame(struct bench *b, uint32_t len, int ect)
{
	uint8_t buf[2048];
	struct pkt *p;

	test_frame_udp(buf, len, 0x0a000001, 0x0a000002, 40000, 5000, ect ? 2 : 0);
	p = pkt_new(buf, len, len);
	p->id = ++b->next_id;
	p->traced = 1;
	return p;
}

/* Enqueues one packet now: 1 if queued (its delay in b->last_delay). */
static int put(struct bench *b, uint32_t len)
{
	uint64_t d = b->drops;

	b->last_delay = INT64_MIN;
	b->q->ops->enqueue(b->q, frame(b, len, 0));
	return b->drops == d;
}

/* Everything due by now, freed; the count. */
static int drain(struct bench *b)
{
	struct pkt *p;
	int n = 0;

	while ((p = b->q->ops->dequeue(b->q))) {
		pkt_free(p);
		n++;
	}
	return n;
}

/* k successes of n with probability p within the two-sided 99.9% bound */
static int binomial_ok(uint64_t k, uint64_t n, double p)
{
	double mu = n * p, sd = sqrt(n * p * (1 - p));
	int ok = fabs(k - mu) <= 3.29 * sd + 1;

	if (!ok)
		printf("\n  %llu of %llu, expected %.1f +- %.1f\n", (unsigned long long)k,
		       (unsigned long long)n, mu, 3.29 * sd);
	return ok;
}

/* the kernel's probability for a tc percent: P(draw <= v) */
static double pct(double percent)
{
	return (rint(percent / 100. * UINT32_MAX) + 1) / 4294967296.;
}

/* ---- schedules by hand ---- */

/* delay 1001us: tc sends 15640 ticks (1001 * 15.625, truncated), the
 * kernel keeps 15640 * 64 = 1000960 ns. (1.001ms would be 1000 us: tc's
 * 1.001 * 1000 is 1000.9999..., truncated.) A packet is due
 * exactly then: one ns before, netem answers nothing and arms its
 * watchdog for that instant. */
static void test_fixed_delay_ticks(void)
{
	struct bench b;

	bench_init(&b, "delay 1.001ms", 1);
	CU_ASSERT(put(&b, 1000));
	CU_ASSERT_EQUAL(b.last_delay, 1000000);
	bench_free(&b);
	bench_init(&b, "delay 1001us", 1);
	b.now = 5 * MS;
	CU_ASSERT(put(&b, 1000));
	CU_ASSERT_EQUAL(b.last_delay, 1000960);
	b.now = 5 * MS + 1000959;
	CU_ASSERT_PTR_NULL(b.q->ops->dequeue(b.q));
	CU_ASSERT(b.q->wd.pending);
	CU_ASSERT_EQUAL(b.q->wd.expires, 5 * MS + 1000960);
	b.now++;
	CU_ASSERT_EQUAL(drain(&b), 1);
	CU_ASSERT_EQUAL(b.q->s.packets, 1);
	CU_ASSERT_EQUAL(b.q->s.qlen, 0);
	bench_free(&b);
}

/* rate 1mbit (125000 bytes/s) 20 100 -4 and delay 5ms: 1000 + 20 = 1020
 * bytes are 11 cells of 100 (10 hold only 1000), sent as 11 * 96 = 1056
 * bytes: 8448000 ns each. Three packets at 0:
 *   #1: 5 ms + 8.448 ms = 13.448 ms
 *   #2: the delay left after #1's time is 5 - 13.448 < 0, so 0; from
 *       13.448 ms: 21.896 ms
 *   #3: 30.344 ms.
 * A fourth at 40 ms finds the tfifo empty: 40 + 5 + 8.448 = 53.448 ms. */
static void test_rate_schedule(void)
{
	static const uint64_t want[] = {13448000, 21896000, 30344000};
	struct bench b;

	bench_init(&b, "delay 5ms rate 1mbit 20 100 -4", 1);
	for (int i = 0; i < 3; i++) {
		CU_ASSERT(put(&b, 1000));
		CU_ASSERT_EQUAL(b.last_delay, (int64_t)want[i]);
	}
	for (int i = 0; i < 3; i++) {
		b.now = want[i] - 1;
		CU_ASSERT_PTR_NULL(b.q->ops->dequeue(b.q));
		CU_ASSERT_EQUAL(b.q->wd.expires, want[i]);
		b.now = want[i];
		CU_ASSERT_EQUAL(drain(&b), 1);
	}
	b.now = 40 * MS;
	CU_ASSERT(put(&b, 1000));
	CU_ASSERT_EQUAL(b.last_delay, 13448000);
	bench_free(&b);
}

/* ---- through the whole simulation ---- */

struct script {
	uint64_t period;
	int n, i;
	uint32_t len;
};

static int script_gen(void *arg, uint8_t *buf, struct src_packet *p)
{
	struct script *s = arg;

	if (s->i == s->n)
		return 0;
	test_frame_udp(buf, s->len, 0x0a000001, 0x0a000002, 40000, 5000, 0);
	p->data = buf;
	p->caplen = p->len = s->len;
	p->t_ns = (uint64_t)s->i * s->period;
	s->i++;
	return 1;
}

#define MAXREC 4096
struct record {
	int n;
	struct sim *s;
	struct sim_observer obs;
	uint64_t id[MAXREC], t[MAXREC];
	enum pkt_drop drop[MAXREC];
};

static void on_done(void *arg, const struct dev *d, const struct pkt *p)
{
	struct record *rec = arg;

	if (rec->n < MAXREC) {
		rec->id[rec->n] = p->id;
		rec->t[rec->n] = p->drop ? rec->s->now : p->t_dequeue;
		rec->drop[rec->n] = p->drop;
		rec->n++;
	}
}

static void sim_setup(struct sim *s, uint64_t rate_bps, uint64_t seed, const char *tc,
		      struct record *rec, struct script *sc)
{
	struct sim_config cfg;
	char err[512];

	sim_config_default(&cfg);
	cfg.rate_bps = rate_bps;
	cfg.seed = seed;
	CU_ASSERT_FATAL(sim_init(s, &cfg) == 0);
	if (tc_run_script(s, tc, "test", NULL, NULL, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		CU_FAIL_FATAL("tc");
	}
	memset(rec, 0, sizeof(*rec));
	rec->s = s;
	rec->obs = (struct sim_observer){.done = on_done, .arg = rec};
	CU_ASSERT_FATAL(sim_observe(s, &rec->obs, err, sizeof(err)) == 0);
	CU_ASSERT_FATAL(sim_add_source(s, test_src_new(script_gen, sc), s->devs[0], 0, err,
				       sizeof(err)) == 0);
}

static void run_and_check(struct sim *s)
{
	char err[512];

	CU_ASSERT_EQUAL(sim_run(s), 0);
	CU_ASSERT_EQUAL(sim_check_accounting(s, err, sizeof(err)), 0);
}

/* 1000-byte packets every 0.5 ms, delay 10 ms, an 8 Mbit/s wire (1 ms a
 * packet): packet i is due at 10 + i/2 ms, but the wire takes one a ms,
 * so it leaves at 10 + i ms; the watchdog wakes the idle device for the
 * first, the wire's end takes each next one. */
static void test_sim_fixed_delay(void)
{
	struct script sc = {.period = 500 * US, .n = 20, .len = 1000};
	struct record *rec = calloc(1, sizeof(*rec));
	struct sim s;

	sim_setup(&s, 8000000, 1, "tc qdisc add dev eth0 root netem delay 10ms\n", rec, &sc);
	run_and_check(&s);
	CU_ASSERT_EQUAL(rec->n, 20);
	for (int i = 0; i < rec->n; i++) {
		CU_ASSERT_EQUAL(rec->id[i], (uint64_t)i + 1);
		CU_ASSERT_EQUAL(rec->t[i], 10 * MS + (uint64_t)i * MS);
	}
	sim_free(&s);
	free(rec);
}

/* Under a prio, duplicates come back through the root, are counted on
 * their own, and the device's books balance; a lossy, jittery netem with
 * a child pfifo too. */
static void test_sim_duplicate_accounting(void)
{
	struct script sc = {.period = 100 * US, .n = 3000, .len = 200};
	struct record *rec = calloc(1, sizeof(*rec));
	struct sim s;

	sim_setup(&s, 100000000, 7,
		  "tc qdisc add dev eth0 root handle 1: prio\n"
		  "tc qdisc add dev eth0 parent 1:2 handle 10: netem delay 5ms 3ms loss 5% "
		  "duplicate 20% reorder 10% gap 2\n"
		  "tc qdisc add dev eth0 parent 10:1 handle 20: pfifo limit 5\n",
		  rec, &sc);
	run_and_check(&s);
	CU_ASSERT(s.devs[0]->st.duplicated > 450 && s.devs[0]->st.duplicated < 750);
	CU_ASSERT(s.devs[0]->st.drops_by[DROP_NETEM_LOSS] > 100);
	CU_ASSERT_EQUAL(s.devs[0]->root->s.qlen, 0);
	sim_free(&s);
	free(rec);
}

/* With jitter far above the gap between packets, the tfifo sends in time
 * order, not arrival order: the departures are the sorted times. */
static void test_sim_jitter_reorders(void)
{
	struct script sc = {.period = 100 * US, .n = 500, .len = 100};
	struct record *rec = calloc(1, sizeof(*rec));
	struct sim s;
	int out_of_order = 0;

	sim_setup(&s, 0, 3, "tc qdisc add dev eth0 root netem delay 20ms 10ms\n", rec, &sc);
	run_and_check(&s);
	CU_ASSERT_EQUAL(rec->n, 500);
	for (int i = 1; i < rec->n; i++) {
		CU_ASSERT(rec->t[i] >= rec->t[i - 1]);
		out_of_order += rec->id[i] < rec->id[i - 1];
	}
	CU_ASSERT(out_of_order > 100);
	sim_free(&s);
	free(rec);
}

/* ---- the random decisions ---- */

#define N 1000000

static void test_loss_rate(void)
{
	struct bench b;
	uint64_t lost = 0;

	bench_init(&b, "loss 1% limit 2000000", 11);
	for (int i = 0; i < N; i++) {
		lost += !put(&b, 100);
		drain(&b);
	}
	CU_ASSERT(binomial_ok(lost, N, pct(1)));
	CU_ASSERT_EQUAL(b.q->s.drops, lost);
	bench_free(&b);
}

static void test_duplicate_rate(void)
{
	struct bench b;
	int sent = 0;

	bench_init(&b, "duplicate 7.5%", 12);
	for (int i = 0; i < N; i++) {
		put(&b, 100);
		sent += drain(&b);
	}
	CU_ASSERT(binomial_ok(b.clones, N, pct(7.5)));
	CU_ASSERT_EQUAL((uint64_t)sent, N + b.clones);
	bench_free(&b);
}

/* reorder 25% gap 1: the check `counter < gap - 1` never holds, so each
 * packet is sent at once when its draw is at most the probability */
static void test_reorder_rate(void)
{
	struct bench b;

	bench_init(&b, "delay 10ms reorder 25%", 13);
	for (int i = 0; i < N; i++) {
		put(&b, 100);
		b.now += 20 * MS;
		drain(&b);
	}
	CU_ASSERT(binomial_ok(b.q->s.requeues, N, pct(25)));
	bench_free(&b);
}

/* gap 5: four packets delayed, then the fifth may jump (reorder 100%) */
static void test_reorder_gap(void)
{
	struct bench b;

	bench_init(&b, "delay 10ms reorder 100% gap 5", 14);
	for (int i = 1; i <= 20; i++) {
		put(&b, 100);
		CU_ASSERT_EQUAL(!!(b.last_flags & NETEM_TR_REORDER), i % 5 == 0);
	}
	CU_ASSERT_EQUAL(b.q->s.requeues, 4);
	bench_free(&b);
}

static void test_corrupt_rate(void)
{
	struct bench b;
	uint64_t corrupted = 0;

	bench_init(&b, "corrupt 3%", 15);
	for (int i = 0; i < N; i++) {
		put(&b, 100);
		corrupted += !!(b.last_flags & NETEM_TR_CORRUPT);
		drain(&b);
	}
	CU_ASSERT(binomial_ok(corrupted, N, pct(3)));
	bench_free(&b);
}

/* corrupt flips exactly one bit of the frame */
static void test_corrupt_one_bit(void)
{
	struct bench b;
	uint8_t ref[2048];

	bench_init(&b, "corrupt 100%", 16);
	test_frame_udp(ref, 300, 0x0a000001, 0x0a000002, 40000, 5000, 0);
	for (int i = 0; i < 1000; i++) {
		struct pkt *p;
		int bits = 0;

		put(&b, 300);
		p = b.q->ops->dequeue(b.q);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p);
		for (int k = 0; k < 300; k++)
			bits += __builtin_popcount(p->data[k] ^ ref[k]);
		CU_ASSERT_EQUAL(bits, 1);
		pkt_free(p);
	}
	bench_free(&b);
}

/* Gilbert-Elliott: the bad state's share is p / (p + r); the loss rate
 * (1-k) in good plus (1-h) in bad, weighted by the shares. */
static void test_gemodel_occupancy(void)
{
	const double p = 0.01, r = 0.10, h1 = 0.70, k1 = 0.001;
	double bad = p / (p + r), want = (1 - bad) * k1 + bad * h1;
	struct bench b;
	uint64_t lost = 0;

	bench_init(&b, "loss gemodel 1% 10% 70% 0.1%", 17);
	for (int i = 0; i < N; i++) {
		lost += !put(&b, 100);
		drain(&b);
	}
	printf("\n  gemodel: loss %.5f, closed form %.5f", (double)lost / N, want);
	/* bursts of 1/r packets: about 3 sigma of the chain's own variance */
	CU_ASSERT(fabs((double)lost / N - want) < 0.05 * want);
	bench_free(&b);
}

/* 4-state: losses are entries into state 3 (in a burst) or 4 (isolated).
 * Balance: pi4 = p14 pi1, pi1 p13 = p31 pi3, pi2 p23 = p32 pi3. */
static void test_4state_occupancy(void)
{
	const double p13 = 0.01, p31 = 0.20, p32 = 0.05, p23 = 0.90, p14 = 0.005;
	double pi1 = 1, pi3 = p13 / p31, pi2 = pi3 * p32 / p23, pi4 = p14, sum, want;
	struct bench b;
	uint64_t lost = 0;

	sum = pi1 + pi2 + pi3 + pi4;
	want = (pi3 + pi4) / sum;
	bench_init(&b, "loss state 1% 20% 5% 90% 0.5%", 18);
	for (int i = 0; i < N; i++) {
		lost += !put(&b, 100);
		drain(&b);
	}
	printf("\n  4-state: loss %.5f, closed form %.5f", (double)lost / N, want);
	CU_ASSERT(fabs((double)lost / N - want) < 0.05 * want);
	bench_free(&b);
}

/* A correlated loss comes in runs: after a loss another is more likely
 * than the mean; uncorrelated, as likely. get_crandom's mix of draws also
 * narrows their spread, so the rate falls below the one asked for (30%
 * with 50% correlation loses about 12%: the kernel's known flaw). */
static void test_correlation_runs(void)
{
	for (int c = 0; c < 2; c++) {
		struct bench b;
		uint64_t lost = 0, after = 0, both = 0;
		int prev = 0;

		bench_init(&b, c ? "loss 30% 50%" : "loss 30%", 19);
		for (int i = 0; i < N / 4; i++) {
			int l = !put(&b, 100);

			lost += l;
			after += prev;
			both += prev && l;
			prev = l;
			drain(&b);
		}
		double pl = (double)lost / (N / 4), pll = (double)both / after;

		printf("\n  loss 30%%%s: P(loss) %.4f, P(loss | loss before) %.4f", c ? " 50%" : "",
		       pl, pll);
		if (c) {
			CU_ASSERT(pll > pl + 0.1);
			CU_ASSERT(pl < 0.2);
		} else {
			CU_ASSERT(fabs(pll - pl) < 0.01);
		}
		bench_free(&b);
	}
}

/* ---- the delay distributions ---- */

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* tabledist's value for table entry t */
static int64_t tabled(int64_t mu, int64_t sigma, long t)
{
	int64_t x = (sigma % 8192) * t;

	x += x >= 0 ? 4096 : -4096;
	return x / 8192 + (sigma / 8192) * t + mu;
}

/* The delays of n packets against the table's discrete distribution
 * (each of the 4096 entries equally likely): the Kolmogorov-Smirnov
 * distance within its 99.9% bound 1.95 / sqrt(n); and, as figures, the
 * quantiles against the continuous law the table samples. */
static void check_dist(const char *name, int n)
{
	const int64_t mu = 100 * MS, sigma = 10 * MS;
	int64_t *got = malloc(n * sizeof(*got)), want[NETEM_DIST_SIZE];
	uint32_t size;
	const int16_t *t = netem_dist_table(name, &size);
	char opts[128];
	struct bench b;
	double ks = 0;

	snprintf(opts, sizeof(opts), "delay 100ms 10ms distribution %s", name);
	bench_init(&b, opts, 21);
	for (int i = 0; i < n; i++) {
		put(&b, 100);
		got[i] = b.last_delay;
		b.now += 1000 * MS;
		drain(&b);
	}
	for (uint32_t k = 0; k < size; k++)
		want[k] = tabled(mu, sigma, t[k]);
	qsort(got, n, sizeof(*got), cmp_i64);
	qsort(want, size, sizeof(*want), cmp_i64);
	/* at each value either sample takes, both CDFs */
	for (int i = 0, k = 0; i < n || k < (int)size;) {
		int64_t v = i < n && (k >= (int)size || got[i] <= want[k]) ? got[i] : want[k];
		double d;

		while (i < n && got[i] <= v)
			i++;
		while (k < (int)size && want[k] <= v)
			k++;
		d = fabs((double)i / n - (double)k / size);
		if (d > ks)
			ks = d;
	}
	printf("\n  %s: KS %.5f (bound %.5f); quantiles (ms) got/table:", name, ks,
	       1.95 / sqrt(n));
	for (int j = 0; j < 5; j++) {
		static const double qs[] = {0.01, 0.25, 0.5, 0.75, 0.99};

		printf(" p%g %.3f/%.3f", qs[j] * 100, got[(int)(qs[j] * n)] / 1e6,
		       want[(int)(qs[j] * size)] / 1e6);
	}
	CU_ASSERT(ks < 1.95 / sqrt(n));
	free(got);
	bench_free(&b);
}

static void test_dist_normal(void)
{
	check_dist("normal", 200000);
}

static void test_dist_pareto(void)
{
	check_dist("pareto", 200000);
}

static void test_dist_paretonormal(void)
{
	check_dist("paretonormal", 200000);
}

/* the normal table's quantiles are those of N(0, 1) within a hundredth of
 * a deviation in the body (the generator's resolution) */
static void test_normal_table_is_normal(void)
{
	uint32_t size;
	const int16_t *t = netem_dist_table("normal", &size);
	int16_t v[NETEM_DIST_SIZE];
	double worst = 0;

	memcpy(v, t, sizeof(v));
	for (uint32_t i = 1; i < size; i++)
		CU_ASSERT(v[i] >= v[i - 1]); /* the inverse CDF, in order */
	for (int k = 41; k < 4055; k++) {
		double x = v[k] / 8192.0, p = 0.5 + 0.5 * erf(x / sqrt(2.0));
		double e = fabs(p - (4.0 * k) / 16384);

		if (e > worst)
			worst = e;
	}
	printf("\n  normal table: worst CDF error %.2e", worst);
	CU_ASSERT(worst < 1e-3);
}

/* The tables are those iproute2 installs, entry for entry, when its files
 * are there to compare (Debian: /usr/lib/x86_64-linux-gnu/tc). */
static void test_tables_match_iproute2(void)
{
	static const char *const names[] = {"normal", "pareto", "paretonormal"};
	static const char *const dirs[] = {"/usr/lib/x86_64-linux-gnu/tc", "/usr/lib/tc",
					   "/usr/lib64/tc"};

	for (int k = 0; k < 3; k++) {
		uint32_t size, n = 0, diff = 0;
		const int16_t *t = netem_dist_table(names[k], &size);
		char path[256], line[4096];
		FILE *f = NULL;

		for (int d = 0; d < 3 && !f; d++) {
			snprintf(path, sizeof(path), "%s/%s.dist", dirs[d], names[k]);
			f = fopen(path, "r");
		}
		if (!f) {
			printf("\n  (no %s.dist installed: not compared)", names[k]);
			continue;
		}
		while (fgets(line, sizeof(line), f)) {
			char *p = line, *e;

			if (*line == '#' || *line == '\n')
				continue;
			for (;;) {
				long x = strtol(p, &e, 0);

				if (e == p)
					break;
				diff += n >= size || t[n] != x;
				n++;
				p = e;
			}
		}
		fclose(f);
		CU_ASSERT_EQUAL(n, size);
		CU_ASSERT_EQUAL(diff, 0);
	}
}

/* ---- tc ---- */

static char *show(struct sim *s)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	tc_show_qdisc(s->devs[0], f, 0);
	fclose(f);
	return buf;
}

static void expect_show(const char *tc, const char *want)
{
	struct sim s;
	struct sim_config cfg;
	char err[512], *got;

	sim_config_default(&cfg);
	CU_ASSERT_FATAL(sim_init(&s, &cfg) == 0);
	if (tc_run_script(&s, tc, "t.tc", NULL, NULL, err, sizeof(err))) {
		printf("\n  %s", err);
		CU_FAIL("tc");
	} else {
		got = show(&s);
		if (strcmp(got, want))
			printf("\n  got:  %s  want: %s", got, want);
		CU_ASSERT_STRING_EQUAL(got, want);
		free(got);
	}
	sim_free(&s);
}

/* the text of Debian's tc 6.1 on its 6.1 kernel (qemu oracle): a change
 * sends the qopt (limit, delay, loss, duplicate, gap) whole, but the
 * kernel keeps what tc does not send (correlations, reorder, corrupt,
 * rate, slot, ecn); a duplicate's correlation alone is not sent */
static void test_show_as_tc(void)
{
	static const char *const want[] = {
	    "qdisc netem 1: root refcnt 2 limit 500 delay 100ms  10ms 25% loss 1% 30% duplicate "
	    "2% reorder 5% 50% corrupt 0.1% rate 1Mbit packetoverhead 20 cellsize 100 "
	    "celloverhead -4 slot 1ms 2ms packets 5 bytes 3000 gap 3\n",
	    "qdisc netem 1: root refcnt 2 limit 1000 delay 10ms  2ms 25% loss state p13 1% p31 20% "
	    "p32 5% p23 90% p14 0.5% reorder 5% 50% corrupt 0.1% rate 1Mbit packetoverhead 20 "
	    "cellsize 100 celloverhead -4 slot 1ms 2ms packets 5 bytes 3000 ecn \n",
	    "qdisc netem 1: root refcnt 2 limit 1000 delay 1ms loss gemodel p 1% r 10% 1-h 70% 1-k "
	    "0.1% duplicate 3% reorder 5% 50% corrupt 0.1% rate 1Mbit packetoverhead 20 cellsize "
	    "100 celloverhead -4 slot distribution 2ms 1ms ecn \n",
	    "qdisc netem 1: root refcnt 2 limit 1000 delay 20ms  5ms 10% duplicate 3% 40% reorder 5% "
	    "50% corrupt 0.1% rate 10Gbit slot distribution 2ms 1ms ecn \n",
	    "qdisc netem 1: root refcnt 2 limit 1000 delay 1.5ms  99us 10% reorder 5% 50% corrupt "
	    "0.1% rate 10Gbit slot distribution 2ms 1ms ecn \n",
	};
	static const char *const tc[] = {
	    "tc qdisc add dev eth0 root handle 1: netem limit 500 delay 100ms 10ms 25% loss 1% 30% "
	    "duplicate 2% corrupt 0.1% reorder 5% 50% gap 3 rate 1mbit 20 100 -4 slot 1ms 2ms "
	    "packets 5 bytes 3000\n",
	    "tc qdisc change dev eth0 root handle 1: netem delay 10ms 2ms distribution pareto loss "
	    "state 1% 20% 5% 90% 0.5% ecn\n",
	    "tc qdisc change dev eth0 root handle 1: netem delay 1ms loss gemodel 1% 10% 70% 0.1% "
	    "duplicate 3% 40% slot distribution normal 2ms 1ms\n",
	    "tc qdisc change dev eth0 root handle 1: netem delay 20ms 5ms 10% duplicate 3% 40% rate "
	    "10gbit\n",
	    "tc qdisc change dev eth0 root handle 1: netem delay 1.5ms 100us\n",
	};
	char script[4096] = "";

	expect_show("tc qdisc add dev eth0 root netem\n",
		    "qdisc netem 8001: root refcnt 2 limit 1000\n");
	for (int i = 0; i < 5; i++) {
		strcat(script, tc[i]);
		expect_show(script, want[i]);
	}
}

static void expect_error(const char *line, const char *want)
{
	struct sim s;
	struct sim_config cfg;
	char err[1024], script[512];

	sim_config_default(&cfg);
	CU_ASSERT_FATAL(sim_init(&s, &cfg) == 0);
	snprintf(script, sizeof(script), "%s\n", line);
	CU_ASSERT_NOT_EQUAL(tc_run_script(&s, script, "t.tc", NULL, NULL, err, sizeof(err)), 0);
	if (!strstr(err, want))
		printf("\n  %s\n  got: %s\n  want: %s\n", line, err, want);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
	sim_free(&s);
}

static void test_errors(void)
{
	expect_error("tc qdisc add dev eth0 root netem delay 1parsec", "t.tc:1: Illegal \"latency\"");
	expect_error("tc qdisc add dev eth0 root netem loss 101%", "t.tc:1: Illegal \"loss percent\"");
	expect_error("tc qdisc add dev eth0 root netem loss 1% loss 2%",
		     "Illegal \"duplicate loss argument\"");
	expect_error("tc qdisc add dev eth0 root netem loss bursty 3",
		     "Unknown loss parameter: bursty");
	expect_error("tc qdisc add dev eth0 root netem reorder 5%",
		     "t.tc:1: reordering not possible without specifying some delay");
	expect_error("tc qdisc add dev eth0 root netem delay 1ms gap 5",
		     "gap specified without reorder probability");
	expect_error("tc qdisc add dev eth0 root netem delay 1ms ecn",
		     "ecn requested without loss model");
	expect_error("tc qdisc add dev eth0 root netem delay 1ms distribution normal",
		     "distribution specified but no latency and jitter values");
	expect_error("tc qdisc add dev eth0 root netem delay 1ms 1ms distribution experimental",
		     "not modelled");
	expect_error("tc qdisc add dev eth0 root netem delay 1ms 1ms distribution uniform",
		     "No distribution data for uniform");
	expect_error("tc qdisc add dev eth0 root netem seed 5", "What is \"seed\"?");
	expect_error("tc qdisc add dev eth0 root netem delay", "Command line is not complete");
	expect_error("tc qdisc add dev eth0 root netem rate 10%", "not modelled");
	expect_error("tc qdisc add dev eth0 root netem slot 2ms 1ms",
		     "Illegal \"slot max_delay\"");
	expect_error("tc qdisc add dev eth0 root netem delay 5000s", "time (too large)");
}

/* check_netem_in_tree (2025; Debian's 6.1.192 has it, tests/data/qemu
 * netem-dup-mix): a duplicating netem and another netem may not share a
 * device's tree, whichever comes first, on add and on change; netems that
 * do not duplicate may, and so may one that does beside other kinds. */
static void test_duplicate_tree(void)
{
	static const char *const ok[] = {
	    "tc qdisc add dev eth0 root handle 1: prio\n"
	    "tc qdisc add dev eth0 parent 1:1 handle 10: netem delay 1ms\n"
	    "tc qdisc add dev eth0 parent 1:2 handle 20: netem delay 2ms loss 1%\n"
	    "tc qdisc change dev eth0 parent 1:1 handle 10: netem delay 3ms\n",
	    "tc qdisc add dev eth0 root handle 1: prio\n"
	    "tc qdisc add dev eth0 parent 1:1 handle 10: pfifo\n"
	    "tc qdisc add dev eth0 parent 1:2 handle 20: netem duplicate 10%\n"
	    "tc qdisc change dev eth0 parent 1:2 handle 20: netem duplicate 20%\n",
	    /* the other netem on another device */
	    "tc qdisc add dev eth0 root netem duplicate 10%\n"
	    "tc qdisc add dev eth1 root netem delay 1ms\n",
	};
	struct sim s;
	struct sim_config cfg;
	char err[1024];

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		sim_config_default(&cfg);
		CU_ASSERT_FATAL(sim_init(&s, &cfg) == 0);
		int r = tc_run_script(&s, ok[i], "t.tc", NULL, NULL, err, sizeof(err));

		if (r)
			printf("\n  %s", err);
		CU_ASSERT_EQUAL(r, 0);
		sim_free(&s);
	}
	expect_error("tc qdisc add dev eth0 root handle 1: prio\n"
		     "tc qdisc add dev eth0 parent 1:1 handle 10: netem delay 1ms\n"
		     "tc qdisc add dev eth0 parent 1:2 handle 20: netem duplicate 10%",
		     "t.tc:3: Error: netem: cannot mix duplicating netems with other netems in tree.");
	expect_error("tc qdisc add dev eth0 root handle 1: prio\n"
		     "tc qdisc add dev eth0 parent 1:2 handle 20: netem duplicate 10%\n"
		     "tc qdisc add dev eth0 parent 1:1 handle 10: netem delay 1ms",
		     "t.tc:3: Error: netem: cannot mix duplicating netems");
	expect_error("tc qdisc add dev eth0 root handle 1: prio\n"
		     "tc qdisc add dev eth0 parent 1:1 handle 10: netem delay 1ms\n"
		     "tc qdisc add dev eth0 parent 1:2 handle 20: netem delay 1ms\n"
		     "tc qdisc change dev eth0 parent 1:2 handle 20: netem duplicate 1%",
		     "t.tc:4: Error: netem: cannot mix duplicating netems");
	/* a netem root that duplicates, and a netem below it */
	expect_error("tc qdisc add dev eth0 root handle 1: netem duplicate 5%\n"
		     "tc qdisc add dev eth0 parent 1:1 handle 10: netem delay 1ms",
		     "t.tc:2: Error: netem: cannot mix duplicating netems");
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("netem", NULL, NULL);
	CU_add_test(s, "a fixed delay, in tc's ticks", test_fixed_delay_ticks);
	CU_add_test(s, "the rate model with cells, by hand", test_rate_schedule);
	CU_add_test(s, "sim: delay then the wire, by hand", test_sim_fixed_delay);
	CU_add_test(s, "sim: duplicates through the root balance", test_sim_duplicate_accounting);
	CU_add_test(s, "sim: jitter sends in time order", test_sim_jitter_reorders);
	CU_add_test(s, "loss 1% within its binomial bound", test_loss_rate);
	CU_add_test(s, "duplicate 7.5% within its binomial bound", test_duplicate_rate);
	CU_add_test(s, "reorder 25% within its binomial bound", test_reorder_rate);
	CU_add_test(s, "reorder with a gap", test_reorder_gap);
	CU_add_test(s, "corrupt 3% within its binomial bound", test_corrupt_rate);
	CU_add_test(s, "corrupt flips one bit", test_corrupt_one_bit);
	CU_add_test(s, "Gilbert-Elliott against its closed form", test_gemodel_occupancy);
	CU_add_test(s, "4-state against its closed form", test_4state_occupancy);
	CU_add_test(s, "correlated losses come in runs", test_correlation_runs);
	CU_add_test(s, "normal jitter: KS against the table", test_dist_normal);
	CU_add_test(s, "pareto jitter: KS against the table", test_dist_pareto);
	CU_add_test(s, "paretonormal jitter: KS against the table", test_dist_paretonormal);
	CU_add_test(s, "the normal table is N(0,1)'s inverse CDF", test_normal_table_is_normal);
	CU_add_test(s, "the tables are iproute2's", test_tables_match_iproute2);
	CU_add_test(s, "tc qdisc show as tc 6.1", test_show_as_tc);
	CU_add_test(s, "a duplicating netem beside another netem is refused", test_duplicate_tree);
	CU_add_test(s, "tc's errors", test_errors);
	return unit_run();
}
