/* test_shaper_idle.c - a timer on an empty shaper costs nothing per idle
 * second (issue 13): tbf and htb arm their watchdog only while they hold a
 * packet they may not send yet, so a silence costs no event, however long.
 * Counted in events (sim.steps), not in time, so the test cannot flake:
 *  1. the same bursts with a 10 s, an hour's and six years' silence
 *     between them take exactly the same number of events;
 *  2. the shared capture lan_mixed_http_2016_2022.pcap (six years between
 *     its first and last packets) takes a few events per packet through
 *     either shaper (skipped, with the reason printed, without ../shared). */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pcap_frames.h"
#include "sim.h"
#include "source.h"
#include "tc.h"
#include "test_src.h"
#include "unit.h"

#define SEC 1000000000ull
#define BURST 40
#define NBURSTS 4
/* At most this many events per packet: its arrival, its transmission's
 * end, a watchdog firing when the shaper made it wait, and for htb a
 * firing now and then that only changes a class's mode (htb_do_events
 * moves one class while another still waits; measured ~3.4 here). A
 * constant: what matters is that none is per idle second. */
#define MAX_EV_PER_PKT 4

/* rate well under the 10 Mbit/s device's, small buckets: every burst is
 * throttled, so the watchdog runs; a limit large enough to drop nothing */
static const char tbf_policy[] =
    "qdisc add dev eth0 root handle 1: tbf rate 1mbit burst 5kb limit 2mb\n";
static const char htb_policy[] =
    "qdisc add dev eth0 root handle 1: htb default 20\n"
    "class add dev eth0 parent 1: classid 1:1 htb rate 1mbit\n"
    "class add dev eth0 parent 1:1 classid 1:10 htb rate 600kbit ceil 1mbit\n"
    "class add dev eth0 parent 1:1 classid 1:20 htb rate 400kbit ceil 1mbit\n"
    "qdisc add dev eth0 parent 1:10 handle 10: pfifo limit 10000\n"
    "qdisc add dev eth0 parent 1:20 handle 20: pfifo limit 10000\n"
    /* udp to 1:10 (returns -1: the flowid), the rest to the default */
    "filter add dev eth0 parent 1: pref 1 bpf bytecode "
    "'6,40 0 0 12,21 0 3 2048,48 0 0 23,21 0 1 17,6 0 0 4294967295,6 0 0 0' flowid 1:10\n";

/* NBURSTS bursts of BURST frames 1 us apart, `gap` ns between bursts. */
struct bursts {
	uint64_t gap;
	int i;
};

static int bursts_gen(void *arg, uint8_t *buf, struct src_packet *p)
{
	struct bursts *b = arg;
	int i;

	if (b->i == NBURSTS * BURST)
		return 0;
	i = b->i++;
	p->caplen = p->len = 1000;
	if (i % 2)
		test_frame_udp(buf, 1000, 0x0a000001, 0x0a000002, 1000, 5201, 0);
	else
		test_frame_tcp(buf, 1000, 0x0a000001, 0x0a000002, 1000, 80, 0x18);
	p->data = buf;
	p->t_ns = (uint64_t)(i / BURST) * b->gap + (uint64_t)(i % BURST) * 1000;
	return 1;
}

/* sim.steps counts events only while a poll hook is set (it is how
 * --timeout reaches a run): set one that never stops the run. */
static int no_stop(void *arg, char *err, size_t errlen)
{
	return 0;
}

struct run {
	uint64_t steps, arrived, sent, dropped, now;
};

static void run_sim(const char *policy, struct source *src, struct run *r)
{
	struct sim_config cfg;
	struct sim s;
	char err[512];

	sim_config_default(&cfg);
	cfg.rate_bps = 10000000;
	CU_ASSERT_FATAL(sim_init(&s, &cfg) == 0);
	if (tc_run_script(&s, policy, "shaper", NULL, NULL, err, sizeof(err)))
		CU_FAIL_FATAL(err);
	CU_ASSERT_FATAL(s.ndevs == 1);
	s.poll = no_stop;
	CU_ASSERT_FATAL(sim_add_source(&s, src, s.devs[0], 0, err, sizeof(err)) == 0);
	CU_ASSERT_FATAL(sim_run(&s) == 0);
	CU_ASSERT(sim_check_accounting(&s, err, sizeof(err)) == 0);
	r->steps = s.steps;
	r->arrived = s.devs[0]->st.arrived;
	r->sent = s.devs[0]->st.sent;
	r->dropped = s.devs[0]->st.dropped;
	r->now = s.now;
	sim_free(&s);
}

static void same_events_any_gap(const char *name, const char *policy)
{
	/* 10 s (both buckets full again long before), an hour, six years */
	static const uint64_t gaps[] = {10 * SEC, 3600 * SEC, 6ull * 365 * 86400 * SEC};
	struct run r[3];

	for (int g = 0; g < 3; g++) {
		struct bursts b = {gaps[g], 0};

		run_sim(policy, test_src_new(bursts_gen, &b), &r[g]);
		CU_ASSERT_EQUAL(r[g].arrived, NBURSTS * BURST);
		CU_ASSERT_EQUAL(r[g].sent, NBURSTS * BURST);
	}
	printf("\n  %s: %d packets in %d bursts: %llu events with 10 s between bursts, "
	       "%llu with an hour, %llu with six years",
	       name, NBURSTS * BURST, NBURSTS, (unsigned long long)r[0].steps,
	       (unsigned long long)r[1].steps, (unsigned long long)r[2].steps);
	CU_ASSERT_EQUAL(r[1].steps, r[0].steps);
	CU_ASSERT_EQUAL(r[2].steps, r[0].steps);
	/* the shaper did throttle (else the watchdog was never tested) */
	CU_ASSERT(r[0].steps > 2ull * NBURSTS * BURST);
	CU_ASSERT(r[0].steps <= (uint64_t)MAX_EV_PER_PKT * NBURSTS * BURST);
}

static void test_tbf_gaps(void)
{
	same_events_any_gap("tbf", tbf_policy);
}

static void test_htb_gaps(void)
{
	same_events_any_gap("htb", htb_policy);
}

static void test_six_years_capture(void)
{
	const char *shared = pcap_frames_shared_dir();
	const char *policies[2] = {tbf_policy, htb_policy}, *names[2] = {"tbf", "htb"};
	char path[4096], err[512];

	if (!shared) {
		printf("\n  skipped: ../shared absent (set TCSIM_SHARED): no "
		       "lan_mixed_http_2016_2022.pcap to replay");
		return;
	}
	snprintf(path, sizeof(path), "%s/pcaps/lan_mixed_http_2016_2022.pcap", shared);
	for (int i = 0; i < 2; i++) {
		struct replay_opts ro;
		struct source *src;
		struct run r;
		struct timespec t0, t1;

		replay_opts_default(&ro);
		if (src_open_capture(&src, path, &ro, err, sizeof(err))) {
			printf("\n  skipped: %s", err);
			return;
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		run_sim(policies[i], src, &r);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		printf("\n  %s over lan_mixed_http_2016_2022.pcap: %llu packets, %.0f simulated "
		       "days, %llu events (%.2f per packet), %.1f ms of CPU",
		       names[i], (unsigned long long)r.arrived, r.now / 1e9 / 86400,
		       (unsigned long long)r.steps, (double)r.steps / (double)r.arrived,
		       ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e6);
		CU_ASSERT(r.arrived > 0);
		/* six years are ~1.9e17 ns: one event per idle second would be 1.9e8 */
		CU_ASSERT(r.now > 5ull * 365 * 86400 * SEC);
		CU_ASSERT(r.steps <= (uint64_t)MAX_EV_PER_PKT * r.arrived);
	}
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("an idle shaper costs no event", NULL, NULL);
	CU_add_test(s, "tbf: a silence of 10 s, an hour or six years: the same events",
		    test_tbf_gaps);
	CU_add_test(s, "htb: the same", test_htb_gaps);
	CU_add_test(s, "a six-year capture: events per packet, not per second",
		    test_six_years_capture);
	return unit_run();
}
