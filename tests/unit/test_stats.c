/* test_stats.c - the delay histograms and the class table of sim/stats.c,
 * against definitions computed here from the raw samples: a histogram's
 * quantile is the lower edge of the bucket holding the sample of that rank
 * (clamped to min..max), whether its samples are still listed (the first
 * HIST_SMALL) or counted in rows, and after merges; classes added in any
 * order are all found again and read in classid order once sorted. */
#include <CUnit/Basic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "unit.h"

static uint64_t lcg_state = 7;

static uint64_t lcg(void)
{
	lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
	return lcg_state >> 11;
}

/* Values over many magnitudes: 0..255 exactly, then up to ~2^50. */
static uint64_t sample(void)
{
	uint64_t r = lcg();

	return r % 4 == 0 ? r % 300 : (r >> 8) >> (lcg() % 50);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t low_edge(unsigned b)
{
	unsigned e;

	if (b < 2 * HIST_SUB)
		return b;
	e = b / HIST_SUB - 1;
	return (uint64_t)(b - e * HIST_SUB) << e;
}

/* The quantile by definition, from the sorted samples. */
static uint64_t ref_quantile(const uint64_t *sorted, size_t n, double q)
{
	uint64_t rank = (uint64_t)ceil(q * (double)n), low;

	if (rank < 1)
		rank = 1;
	low = low_edge(hist_bucket_of(sorted[rank - 1]));
	return low < sorted[0] ? sorted[0] : low > sorted[n - 1] ? sorted[n - 1] : low;
}

static const double qs[] = {0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1};

static void check_hist(const struct hist *h, const uint64_t *v, size_t n)
{
	uint64_t *s = malloc(n * sizeof(*s));
	long double sum = 0;

	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_u64);
	CU_ASSERT_EQUAL(h->n, n);
	CU_ASSERT_EQUAL(h->min, s[0]);
	CU_ASSERT_EQUAL(h->max, s[n - 1]);
	for (size_t i = 0; i < n; i++)
		sum += s[i];
	CU_ASSERT_DOUBLE_EQUAL(hist_mean(h), (double)(sum / n), 1e-9 * (double)(sum / n) + 1e-9);
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		uint64_t got = hist_quantile(h, qs[i]), want = ref_quantile(s, n, qs[i]);

		if (got != want)
			fprintf(stderr, "n %zu q %g: %llu, want %llu\n", n, qs[i],
				(unsigned long long)got, (unsigned long long)want);
		CU_ASSERT_EQUAL(got, want);
	}
	free(s);
}

/* Listed (n <= HIST_SMALL), just past it, and well into rows. */
static void test_quantiles(void)
{
	static const size_t sizes[] = {1, 2, 5, HIST_SMALL - 1, HIST_SMALL, HIST_SMALL + 1, 40, 5000};

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k];
		uint64_t *v = malloc(n * sizeof(*v));
		struct hist h = {0};

		for (size_t i = 0; i < n; i++) {
			v[i] = sample();
			CU_ASSERT_EQUAL(hist_add(&h, v[i]), 0);
		}
		CU_ASSERT_EQUAL(h.rows || h.pairs_cap, n > HIST_SMALL);
		check_hist(&h, v, n);
		hist_free(&h);
		free(v);
	}
}

/* Samples in few buckets: counted in pairs up to HIST_PAIRS buckets, in
 * rows from the next one or from the HIST_PAIRS_SAMPLES-th sample,
 * quantiles the same either way; and merges of pairs into listed, paired
 * and counted histograms. */
static void test_pairs(void)
{
	enum { N = HIST_PAIRS_SAMPLES - 1 };
	uint64_t *v = malloc(2 * N * sizeof(*v));
	struct hist h = {0}, l = {0}, m = {0};

	/* values 1000 apart from 300000 ns: one bucket each (2048 ns wide) */
	for (size_t i = 0; i < N; i++) {
		v[i] = 300000 + 4096 * (i % HIST_PAIRS) + lcg() % 1000;
		CU_ASSERT_EQUAL(hist_add(&h, v[i]), 0);
	}
	CU_ASSERT_PTR_NULL(h.rows);
	CU_ASSERT_PTR_NOT_NULL(h.pairs);
	CU_ASSERT_EQUAL(h.npairs, HIST_PAIRS);
	check_hist(&h, v, N);
	/* a listed one takes the pairs in */
	for (size_t i = 0; i < 5; i++) {
		v[N + i] = sample();
		CU_ASSERT_EQUAL(hist_add(&l, v[N + i]), 0);
	}
	CU_ASSERT_EQUAL(hist_merge(&l, &h), 0);
	check_hist(&l, v, N + 5);
	/* one bucket more: rows */
	v[N] = 300000 + 4096 * HIST_PAIRS;
	CU_ASSERT_EQUAL(hist_add(&h, v[N]), 0);
	CU_ASSERT_PTR_NOT_NULL(h.rows);
	CU_ASSERT_PTR_NULL(h.pairs);
	check_hist(&h, v, N + 1);
	/* pairs into rows */
	for (size_t i = 0; i < 20; i++) {
		v[N + 1 + i] = 300000 + 4096 * (i % 3);
		CU_ASSERT_EQUAL(hist_add(&m, v[N + 1 + i]), 0);
	}
	/* three buckets: the pairs in place of the list */
	CU_ASSERT_PTR_NULL(m.pairs);
	CU_ASSERT_EQUAL(m.pairs_cap, HIST_INLINE);
	CU_ASSERT_EQUAL(m.npairs, 3);
	check_hist(&m, v + N + 1, 20);
	CU_ASSERT_EQUAL(hist_merge(&h, &m), 0);
	check_hist(&h, v, N + 21);
	hist_free(&h);
	hist_free(&l);
	hist_free(&m);
	/* two buckets, but busy: rows from the HIST_PAIRS_SAMPLES-th sample */
	for (size_t i = 0; i < 2 * N; i++) {
		v[i] = 300000 + 4096 * (i % 2);
		CU_ASSERT_EQUAL(hist_add(&h, v[i]), 0);
		CU_ASSERT_EQUAL(h.rows != NULL, i + 1 > HIST_PAIRS_SAMPLES);
	}
	check_hist(&h, v, 2 * N);
	hist_free(&h);
	free(v);
}

/* Pairs in place of the list, then in an array of their own as buckets
 * come, and merged into an empty histogram and a listed one. */
static void test_pairs_inline(void)
{
	uint64_t v[40];
	struct hist h = {0}, e = {0}, l = {0};
	size_t n = 0;

	for (; n < HIST_SMALL + 1; n++) {
		v[n] = 300000 + 4096 * (n % 2);
		CU_ASSERT_EQUAL(hist_add(&h, v[n]), 0);
	}
	CU_ASSERT_PTR_NULL(h.pairs);
	CU_ASSERT_EQUAL(h.npairs, 2);
	check_hist(&h, v, n);
	for (; n < 30; n++) {
		v[n] = 300000 + 4096 * (n % 5);
		CU_ASSERT_EQUAL(hist_add(&h, v[n]), 0);
		check_hist(&h, v, n + 1);
	}
	CU_ASSERT_PTR_NOT_NULL(h.pairs);
	CU_ASSERT_EQUAL(h.npairs, 5);
	CU_ASSERT_EQUAL(hist_merge(&e, &h), 0);
	check_hist(&e, v, n);
	v[n] = 77;
	CU_ASSERT_EQUAL(hist_add(&l, v[n]), 0);
	CU_ASSERT_EQUAL(hist_merge(&l, &h), 0);
	check_hist(&l, v, n + 1);
	hist_free(&h);
	hist_free(&e);
	hist_free(&l);
}

/* Merges of listed and counted histograms into empty, listed and counted
 * ones give the histogram of all their samples. */
static void test_merge(void)
{
	static const size_t parts[][2] = {{3, 4}, {3, 30}, {30, 3}, {30, 300}, {0, 5}, {5, 0}};

	for (size_t k = 0; k < sizeof(parts) / sizeof(parts[0]); k++) {
		size_t na = parts[k][0], nb = parts[k][1];
		uint64_t *v = malloc((na + nb) * sizeof(*v));
		struct hist a = {0}, b = {0}, c = {0};

		for (size_t i = 0; i < na + nb; i++) {
			v[i] = sample();
			CU_ASSERT_EQUAL(hist_add(i < na ? &a : &b, v[i]), 0);
		}
		CU_ASSERT_EQUAL(hist_merge(&c, &a), 0);
		CU_ASSERT_EQUAL(hist_merge(&c, &b), 0);
		CU_ASSERT_EQUAL(hist_merge(&a, &b), 0);
		check_hist(&c, v, na + nb);
		check_hist(&a, v, na + nb);
		hist_free(&a);
		hist_free(&b);
		hist_free(&c);
		free(v);
	}
}

/* Thousands of classes in a scrambled order: each found again (the same
 * record), none twice, and in classid order after stats_sort_classes. */
static void test_classes(void)
{
	struct dev_stats st = {0};
	enum { N = 3000 };

	for (int round = 0; round < 2; round++)
		for (uint32_t i = 0; i < N; i++) {
			uint32_t id = 0x80010000u + (i * 1237u) % N + 1;
			struct class_stats *c = stats_class(&st, id);

			CU_ASSERT_PTR_NOT_NULL_FATAL(c);
			CU_ASSERT_EQUAL(c->classid, id);
			c->packets++;
		}
	CU_ASSERT_EQUAL(st.nclasses, N);
	CU_ASSERT_EQUAL(stats_sort_classes(&st), 0);
	for (int i = 0; i < st.nclasses; i++) {
		CU_ASSERT_EQUAL(st.classes[i].classid, 0x80010000u + (uint32_t)i + 1);
		CU_ASSERT_EQUAL(st.classes[i].packets, 2);
	}
	/* still found after the sort moved them */
	CU_ASSERT_EQUAL(stats_class(&st, 0x80010000u + 1234)->packets, 2);
	CU_ASSERT_EQUAL(stats_class(&st, 0x80010000u + 17)->classid, 0x80010000u + 17);
	CU_ASSERT_EQUAL(st.nclasses, N);
	stats_free(&st);
}

/* A run's deferred class accounting (a log applied in batches, its loads
 * started ahead, from the STATS_DEFER_CLASSES-th class on) gives what
 * immediate accounting gives: the same classes, counters and histograms,
 * for thousands of classes in a scrambled order,
 * with a second source's first arrival (which merges the classes) and a
 * lookup between. */
static void test_deferred(void)
{
	struct dev_stats a = {0}, b = {0};
	enum { N = 60000, C = 6000 };

	stats_defer_begin(&b);
	CU_ASSERT_EQUAL(b.defer, 1);
	for (uint32_t i = 0; i < N; i++) {
		struct pkt p = {.len = 60 + (uint32_t)(lcg() % 1400), .source = i > N / 2};

		p.leaf_classid = 0x80010000u + (uint32_t)(lcg() % C) + 1;
		p.t_arrive = lcg() % 1000000;
		p.t_dequeue = p.t_arrive + sample() % 100000000;
		p.t_depart = p.t_dequeue + lcg() % 20000;
		if (i == N / 2 + 1) {
			CU_ASSERT_EQUAL(stats_source_arrived(&a, 1, "two", 0), 0);
			CU_ASSERT_EQUAL(stats_source_arrived(&b, 1, "two", 0), 0);
		}
		if (i == 0) {
			CU_ASSERT_EQUAL(stats_source_arrived(&a, 0, "one", 0), 0);
			CU_ASSERT_EQUAL(stats_source_arrived(&b, 0, "one", 0), 0);
		}
		if (lcg() % 3) {
			CU_ASSERT_EQUAL(stats_sent(&a, &p), 0);
			CU_ASSERT_EQUAL(stats_sent(&b, &p), 0);
		} else {
			p.drop = DROP_QDISC_LIMIT;
			CU_ASSERT_EQUAL(stats_dropped(&a, &p), 0);
			CU_ASSERT_EQUAL(stats_dropped(&b, &p), 0);
		}
		if (i == N / 4)
			CU_ASSERT_EQUAL(stats_class(&b, 0x80010000u + 7)->packets,
					stats_class(&a, 0x80010000u + 7)->packets);
	}
	CU_ASSERT(b.nlog > 0); /* something was held */
	CU_ASSERT_EQUAL(stats_defer_end(&b), 0);
	CU_ASSERT_EQUAL(b.nlog, 0);
	CU_ASSERT_EQUAL(stats_sort_classes(&a), 0);
	CU_ASSERT_EQUAL(stats_sort_classes(&b), 0);
	CU_ASSERT_EQUAL_FATAL(a.nclasses, b.nclasses);
	for (int i = 0; i < a.nclasses; i++) {
		const struct class_stats *x = &a.classes[i], *y = &b.classes[i];

		CU_ASSERT_EQUAL(x->classid, y->classid);
		CU_ASSERT_EQUAL(x->packets, y->packets);
		CU_ASSERT_EQUAL(x->bytes, y->bytes);
		CU_ASSERT_EQUAL(x->drops, y->drops);
		CU_ASSERT_EQUAL(x->drop_bytes, y->drop_bytes);
		CU_ASSERT_EQUAL(x->queue_delay.n, y->queue_delay.n);
		CU_ASSERT_EQUAL(x->total_delay.sum_u64, y->total_delay.sum_u64);
		CU_ASSERT_EQUAL(x->queue_delay.max, y->queue_delay.max);
		CU_ASSERT_EQUAL(hist_quantile(&x->queue_delay, 0.5), hist_quantile(&y->queue_delay, 0.5));
		CU_ASSERT_EQUAL(hist_quantile(&x->total_delay, 0.9), hist_quantile(&y->total_delay, 0.9));
	}
	CU_ASSERT_EQUAL(a.sources[0].queue_delay.n, b.sources[0].queue_delay.n);
	CU_ASSERT_EQUAL(a.sources[0].queue_delay.sum_u64, b.sources[0].queue_delay.sum_u64);
	CU_ASSERT(a.sources[0].queue_delay.n > 0);
	stats_free(&a);
	stats_free(&b);
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("stats", NULL, NULL);
	CU_add_test(s, "quantiles: listed and counted samples", test_quantiles);
	CU_add_test(s, "merges of listed and counted histograms", test_merge);
	CU_add_test(s, "few buckets: pairs, then rows", test_pairs);
	CU_add_test(s, "pairs in place of the list, then their own", test_pairs_inline);
	CU_add_test(s, "classes in any order: found, then sorted", test_classes);
	CU_add_test(s, "deferred class accounting: as immediate", test_deferred);
	return unit_run();
}
