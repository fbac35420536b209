/* test_idle.c - idle time: runs of sfq perturbations over silences applied
 * at once must leave every result, the generator and the event order
 * exactly as firing them one by one does (sim_config.step_idle). The
 * policies make the generator's position visible: a bpf filter that
 * classifies by `ld #rand`, sfq's seeded hash, perturbations of several
 * periods due at the same instants as arrivals, a qdisc replaced mid-run
 * (its timer voided) and runs stopped at arbitrary times. */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "sim.h"
#include "tc.h"
#include "test_src.h"
#include "unit.h"

#define SEC 1000000000ull
#define BURST 12

/* Packets in bursts separated by silences of growing length; some arrive
 * exactly on a perturbation instant (whole seconds since 0). */
struct gaps {
	const uint64_t *t;
	int n, i;
};

static int gaps_gen(void *arg, uint8_t *buf, struct src_packet *p)
{
	struct gaps *g = arg;
	int i;

	if (g->i == g->n * BURST)
		return 0;
	i = g->i++;
	/* a burst of BURST flows at each instant: queues build, sfq drops, and
	 * which flows share a bucket (the seeded hash) shows in the results */
	test_frame_udp(buf, 200 + (uint32_t)(i % 7) * 150, 0x0a000001 + (uint32_t)(i % 5), 0x0a000002,
		       (uint16_t)(1000 + i % BURST), 5201, 0);
	p->data = buf;
	p->caplen = p->len = 200 + (uint32_t)(i % 7) * 150;
	p->t_ns = g->t[i / BURST];
	return 1;
}

static const uint64_t times[] = {
	0, 1000, 2000, 500 * 1000000ull, SEC, 2 * SEC, 2 * SEC + 1,
	21 * SEC, 21 * SEC, 21 * SEC + 3,            /* 21 s: periods 1, 3 and 7 all fire */
	1021 * SEC + 123456789, 1021 * SEC + 123456790,
	100000 * SEC, 100000 * SEC + 5,              /* a day on */
	100042 * SEC + 999999999, 100100 * SEC,
	300000 * SEC + 7, 300000 * SEC + 8, 300000 * SEC + 9,
};

static const char policy[] =
	"qdisc add dev eth0 root handle 1: prio bands 3\n"
	"qdisc add dev eth0 parent 1:1 handle 10: sfq perturb 1 limit 6 divisor 8\n"
	"qdisc add dev eth0 parent 1:2 handle 20: sfq perturb 3 divisor 16\n"
	"qdisc add dev eth0 parent 1:3 handle 30: sfq perturb 7 limit 3 divisor 4\n"
	/* band by the generator: bit 0 -> 1:1, bit 1 -> 1:2, else 1:3 */
	"filter add dev eth0 parent 1: pref 1 bpf bytecode "
	"'6,32 0 0 4294963256,69 0 1 1,6 0 0 65537,69 0 1 2,6 0 0 65538,6 0 0 65539'\n"
	"qdisc add dev eth1 root handle 2: sfq perturb 2 divisor 8\n"
	"qdisc add dev eth2 root handle 3: sfq perturb 16\n";

/* The whole results, the generator and the next sequence number. */
struct outcome {
	char *json;
	size_t len;
	uint64_t rng, next_seq, now;
};

/* stops: times to pause at (sim_run_until), 0-terminated; at the first
 * one 1:3's sfq is replaced, voiding its timer */
static void run_one(int step, int hash_random, const uint64_t *stops, struct outcome *o)
{
	struct sim_config cfg;
	struct sim s;
	struct gaps g[3] = {{times, (int)(sizeof(times) / sizeof(times[0])), 0},
			    {times + 3, (int)(sizeof(times) / sizeof(times[0])) - 3, 0},
			    {times + 7, 5, 0}};
	char err[512];
	FILE *f;

	sim_config_default(&cfg);
	cfg.rate_bps = 1000000;
	cfg.step_idle = step;
	cfg.sfq_hash_random = hash_random;
	CU_ASSERT_FATAL(sim_init(&s, &cfg) == 0);
	if (tc_run_script(&s, policy, "idle", NULL, NULL, err, sizeof(err)))
		CU_FAIL_FATAL(err);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_FATAL(sim_add_source(&s, test_src_new(gaps_gen, &g[i]), s.devs[i], 0, err,
					       sizeof(err)) == 0);
	for (int i = 0; stops && stops[i]; i++) {
		CU_ASSERT_FATAL(sim_run_until(&s, stops[i]) == 0);
		if (i == 0 && tc_run_script(&s, "qdisc replace dev eth0 parent 1:3 handle 40: sfq perturb 5",
					    "idle", NULL, NULL, err, sizeof(err)))
			CU_FAIL_FATAL(err);
	}
	CU_ASSERT_FATAL(sim_run(&s) == 0);
	CU_ASSERT(sim_check_accounting(&s, err, sizeof(err)) == 0);
	f = open_memstream(&o->json, &o->len);
	CU_ASSERT_FATAL(f != NULL);
	report_json(&s, f);
	for (int i = 0; i < s.ndevs; i++)
		tc_show_qdisc(s.devs[i], f, 1);
	fclose(f);
	o->rng = s.rng.s;
	o->next_seq = s.next_seq;
	o->now = s.now;
	sim_free(&s);
}

static void expect_same(int hash_random, const uint64_t *stops)
{
	struct outcome a, b;

	run_one(1, hash_random, stops, &a);
	run_one(0, hash_random, stops, &b);
	CU_ASSERT(a.len == b.len && !memcmp(a.json, b.json, a.len));
	CU_ASSERT_EQUAL(a.rng, b.rng);
	CU_ASSERT_EQUAL(a.next_seq, b.next_seq);
	CU_ASSERT_EQUAL(a.now, b.now);
	if (a.len != b.len || memcmp(a.json, b.json, a.len))
		fprintf(stderr, "\nstepped:\n%s\nskipped:\n%s\n", a.json, b.json);
	free(a.json);
	free(b.json);
}

static void test_whole_run(void)
{
	expect_same(0, NULL);
	expect_same(1, NULL);
}

/* Paused mid-silence, on a perturbation instant, one ns after one, and
 * just before an arrival; the replaced qdisc's voided timer in the heap. */
static void test_paused_runs(void)
{
	static const uint64_t stops[][8] = {
		{3 * SEC, 0},
		{21 * SEC, 500 * SEC, 1021 * SEC + 123456789, 0},
		{7 * SEC + 1, 99999 * SEC, 100000 * SEC, 200000 * SEC + 1, 0},
		{42 * SEC, 43 * SEC, 44 * SEC, 45 * SEC, 299999 * SEC + 999999999, 0},
	};

	for (size_t i = 0; i < sizeof(stops) / sizeof(stops[0]); i++) {
		expect_same(0, stops[i]);
		expect_same(1, stops[i]);
	}
}

/* The generator really moved: a filter drawing from it sends packets to
 * all three bands, and another seed gives other counts. */
static void test_the_draws_matter(void)
{
	struct outcome a;

	run_one(0, 1, NULL, &a);
	CU_ASSERT(strstr(a.json, "\"1:1\"") && strstr(a.json, "\"1:2\"") && strstr(a.json, "\"1:3\""));
	/* over 300000 seconds, ~560000 perturbations were applied */
	CU_ASSERT(a.rng > 0);
	free(a.json);
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("idle time", NULL, NULL);
	CU_add_test(s, "a whole run: skipped perturbations equal stepped ones", test_whole_run);
	CU_add_test(s, "runs paused anywhere: still equal", test_paused_runs);
	CU_add_test(s, "the draws are visible in the results", test_the_draws_matter);
	return unit_run();
}
