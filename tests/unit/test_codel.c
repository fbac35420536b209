/* test_codel.c - codel and fq_codel against schedules computed by hand in
 * the kernel's 1024 ns ticks and fixed-point square roots, their counters,
 * ECN marking with its checksum, the bypass of an idle root, and `tc
 * qdisc show` as tc 6.1 printed it on Debian's 6.1 kernel (qemu oracle). */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "tc.h"
#include "sim_script.h"
#include "unit.h"

#define MS 1000000ull
#define US 1000ull

static void setup(struct sim *s, uint64_t rate_bps, const char *tc, struct script_record *rec,
		  struct script *sc)
{
	char err[512];

	if (script_setup(s, rate_bps, tc, rec, sc, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		CU_FAIL_FATAL("setup");
	}
}

static void run_and_check(struct sim *s)
{
	char err[512];

	CU_ASSERT_EQUAL(sim_run(s), 0);
	CU_ASSERT_EQUAL(sim_check_accounting(s, err, sizeof(err)), 0);
}

static void sim_new(struct sim *s, enum bpf_kernel k)
{
	struct sim_config cfg;

	sim_config_default(&cfg);
	cfg.kernel = k;
	CU_ASSERT_EQUAL_FATAL(sim_init(s, &cfg), 0);
}

/* Constant overload: 1000-byte packets every 0.5 ms into an 8 Mbit/s
 * wire (1 ms each) behind codel (target 5 ms = 4882 ticks, interval
 * 100 ms = 97656 ticks). #1 bypasses the empty root; from then on the
 * dequeue at n ms takes #n+1 (before the arrival of that instant), whose
 * sojourn is n/2 ms:
 *   n = 10: 9765 - 4882 = 4883 ticks >= target: first_above = 9765 + 97656 = 107421
 *   n = 110: now 107421, not after it; n = 111: 108398, after: #112 is dropped,
 *     count 1, rec_inv_sqrt 0xffff, drop_next = 108398 + 97654 = 206052
 *   206052 ticks = 210.997 ms: at 211 ms (#213 after one drop) the second;
 *     count 2, Newton: 0x8001, drop_next = 206052 + 48829 = 254881 (260.998 ms)
 *   at 261 ms (#264) the third; count 3: 0x9000, + 54931 = 309812 (317.247 ms)
 *   at 318 ms (#322) the fourth. */
static void test_codel_hand_schedule(void)
{
	struct script sc = {.period = 500 * US, .n = 700, .len = 1000};
	static const uint64_t want_t[] = {111 * MS, 211 * MS, 261 * MS, 318 * MS};
	static const uint64_t want_id[] = {112, 213, 264, 322};
	struct script_record *rec = calloc(1, sizeof(*rec));
	struct sim s;
	int k = 0;

	setup(&s, 8000000, "tc qdisc add dev em1 root codel limit 10000\n", rec, &sc);
	run_and_check(&s);
	for (int i = 0; i < rec->n && k < 4; i++) {
		if (rec->drop[i] == DROP_NONE)
			continue;
		CU_ASSERT_EQUAL(rec->drop[i], DROP_CODEL);
		CU_ASSERT_EQUAL(rec->t[i], want_t[k]);
		CU_ASSERT_EQUAL(rec->id[i], want_id[k]);
		if (rec->t[i] != want_t[k] || rec->id[i] != want_id[k])
			printf("\n  drop %d: #%llu at %llu ns\n", k, (unsigned long long)rec->id[i],
			       (unsigned long long)rec->t[i]);
		k++;
	}
	CU_ASSERT_EQUAL(k, 4);
	sim_free(&s);
	free(rec);
}

/* The same train, ECT(0): marks instead of drops at the same instants,
 * each packet still sent (the mark does not dequeue another), its IPv4
 * checksum still right. The first mark at 111 ms is #112; drop_next then
 * runs from the same ticks, and no drop shifts the train: #212, #262, #319. */
static void test_codel_ecn_marks(void)
{
	struct script sc = {.period = 500 * US, .n = 700, .len = 1000, .tos = 0x02};
	static const uint64_t want_t[] = {111 * MS, 211 * MS, 261 * MS, 318 * MS};
	static const uint64_t want_id[] = {112, 212, 262, 319};
	struct script_record *rec = calloc(1, sizeof(*rec));
	struct sim s;
	int k = 0, drops = 0;
	char *o;

	setup(&s, 8000000, "tc qdisc add dev em1 root codel limit 10000 ecn\n", rec, &sc);
	run_and_check(&s);
	for (int i = 0; i < rec->n; i++) {
		CU_ASSERT(rec->csum_ok[i]);
		drops += rec->drop[i] != DROP_NONE;
		if (rec->tos[i] != 0x03 || k >= 4)
			continue;
		CU_ASSERT_EQUAL(rec->t[i], want_t[k]);
		CU_ASSERT_EQUAL(rec->id[i], want_id[k]);
		k++;
	}
	CU_ASSERT_EQUAL(k, 4);
	CU_ASSERT_EQUAL(drops, 0);
	o = script_show(&s, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(o, "  maxpacket 1000 ecn_mark "));
	CU_ASSERT_PTR_NULL(strstr(o, "ecn_mark 0 "));
	free(o);
	sim_free(&s);
	free(rec);
}

/* Not ECN-capable packets are dropped even with ecn */
static void test_codel_ecn_not_ect(void)
{
	struct script sc = {.period = 500 * US, .n = 400, .len = 1000};
	struct script_record *rec = calloc(1, sizeof(*rec));
	struct sim s;
	int first = -1;

	setup(&s, 8000000, "tc qdisc add dev em1 root codel limit 10000 ecn\n", rec, &sc);
	run_and_check(&s);
	for (int i = 0; i < rec->n && first < 0; i++)
		if (rec->drop[i] == DROP_CODEL)
			first = i;
	CU_ASSERT_FATAL(first >= 0);
	CU_ASSERT_EQUAL(rec->id[first], 112);
	sim_free(&s);
	free(rec);
}

/* fq_codel, 8 Mbit/s: A1..A4 (flow A) at 0, B1 at 0.1 ms. A1 bypasses;
 * A is a new flow (deficit 1514): A2 at 1 ms (514 left), A3 at 2 ms
 * (-486); at 3 ms A goes to old_flows (+1514 = 1028) and the new flow B
 * sends B1; at 4 ms B is empty and moves to old_flows behind A, which
 * sends A4. A pfifo would send B1 last. */
static void test_fq_codel_new_flows_first(void)
{
	static const uint16_t sport[] = {1000, 1000, 1000, 1000, 2000};
	static const uint64_t t[] = {0, 0, 0, 0, 100 * US};
	static const uint64_t want_id[] = {1, 2, 3, 5, 4};
	struct script sc = {.n = 5, .len = 1000, .sport = sport, .t = t};
	struct script_record *rec = calloc(1, sizeof(*rec));
	struct sim s;
	char *o;

	setup(&s, 8000000, "tc qdisc add dev em1 root fq_codel\n", rec, &sc);
	run_and_check(&s);
	CU_ASSERT_EQUAL_FATAL(rec->n, 5);
	for (int i = 0; i < 5; i++) {
		CU_ASSERT_EQUAL(rec->id[i], want_id[i]);
		CU_ASSERT_EQUAL(rec->t[i], (uint64_t)i * MS);
	}
	o = script_show(&s, 0);
	CU_ASSERT_STRING_EQUAL(
	    o, "qdisc fq_codel 8001: root refcnt 2 limit 10240p flows 1024 quantum 1514 target 5ms "
	       "interval 100ms memory_limit 32Mb ecn drop_batch 64 \n"
	       " Sent 5000 bytes 5 pkt (dropped 0, overlimits 0 requeues 0) \n"
	       " backlog 0b 0p requeues 0\n"
	       "  maxpacket 1000 drop_overlimit 0 new_flow_count 2 ecn_mark 0\n"
	       "  new_flows_len 0 old_flows_len 0\n");
	free(o);
	sim_free(&s);
	free(rec);
}

/* Mid-run (0.5 ms into the schedule above), tc -s class show lists the
 * flows on a list as fq_codel_walk does, with queue statistics only and
 * the flow's codel state, in the format of the kernel's record
 * (tests/data/qemu/htb-fq-codel-mixed.expect). */
static void test_fq_codel_class_show(void)
{
	static const uint16_t sport[] = {1000, 1000, 1000, 1000, 2000};
	static const uint64_t t[] = {0, 0, 0, 0, 100 * US};
	struct script sc = {.n = 5, .len = 1000, .sport = sport, .t = t};
	struct script_record *rec = calloc(1, sizeof(*rec));
	char *buf = NULL;
	size_t n = 0;
	FILE *f;
	struct sim s;

	setup(&s, 8000000, "tc qdisc add dev em1 root fq_codel\n", rec, &sc);
	CU_ASSERT_EQUAL(sim_run_until(&s, 500 * US), 0);
	f = open_memstream(&buf, &n);
	tc_show_class(s.devs[0], f, 1);
	fclose(f);
	CU_ASSERT_STRING_EQUAL(buf, "class fq_codel 8001:1 parent 8001: \n"
				    " (dropped 0, overlimits 0 requeues 0) \n"
				    " backlog 3000b 3p requeues 0\n"
				    "  deficit 1514 count 0 lastcount 0 ldelay 0us\n"
				    "class fq_codel 8001:2 parent 8001: \n"
				    " (dropped 0, overlimits 0 requeues 0) \n"
				    " backlog 1000b 1p requeues 0\n"
				    "  deficit 1514 count 0 lastcount 0 ldelay 0us\n");
	free(buf);
	CU_ASSERT_EQUAL(sim_run(&s), 0);
	sim_free(&s);
	free(rec);
}

/* limit 4: A1 bypasses, A2..A6 queue at 0; A6 makes 5 > 4, so the fattest
 * flow (A, 5000 bytes) loses its head until half is gone: A2, A3, A4
 * (3000 >= 2500). B1 at 0.1 ms is a new flow. Sent: A1 0, A5 1 ms, A6
 * 2 ms (A's deficit 1514 - 2000 < 0), B1 3 ms. */
static void test_fq_codel_fattest_flow_drops(void)
{
	static const uint16_t sport[] = {1000, 1000, 1000, 1000, 1000, 1000, 2000};
	static const uint64_t t[] = {0, 0, 0, 0, 0, 0, 100 * US};
	struct script sc = {.n = 7, .len = 1000, .sport = sport, .t = t};
	struct script_record *rec = calloc(1, sizeof(*rec));
	static const uint64_t want_id[] = {1, 2, 3, 4, 5, 6, 7};
	static const enum pkt_drop want_drop[] = {DROP_NONE, DROP_FQ_CODEL_FAT, DROP_FQ_CODEL_FAT,
						  DROP_FQ_CODEL_FAT, DROP_NONE, DROP_NONE,
						  DROP_NONE};
	static const uint64_t want_t[] = {0, 0, 0, 0, 1 * MS, 2 * MS, 3 * MS};
	struct sim s;
	char *o;

	setup(&s, 8000000, "tc qdisc add dev em1 root fq_codel limit 4\n", rec, &sc);
	run_and_check(&s);
	CU_ASSERT_EQUAL_FATAL(rec->n, 7);
	for (int i = 0; i < 7; i++) {
		/* records come in the order packets finish: drops at once, sends
		 * at the end of their transmission */
		int j = 0;

		while (j < 6 && rec->id[j] != want_id[i])
			j++;
		CU_ASSERT_EQUAL(rec->id[j], want_id[i]);
		CU_ASSERT_EQUAL(rec->drop[j], want_drop[i]);
		CU_ASSERT_EQUAL(rec->t[j], want_t[i]);
	}
	o = script_show(&s, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(o, " Sent 4000 bytes 4 pkt (dropped 3, overlimits 0"));
	CU_ASSERT_PTR_NOT_NULL(strstr(o, "  maxpacket 1000 drop_overlimit 3 new_flow_count 2 "));
	free(o);
	sim_free(&s);
	free(rec);
}

/* tc qdisc show (and -s) as tc 6.1 printed it on Debian's 6.1.0-57 kernel
 * for the same lines (tools/qemu-oracle, 2026-12-05): 1ms comes back as
 * 999us through the 1024 ns clock; a packet into an empty root on an idle
 * device bypasses the qdisc, so nothing but Sent counts it. */
static void test_show_as_tc(void)
{
	static const char tc[] =
	    "tc qdisc add dev em1 root fq_codel limit 100 flows 16 quantum 300 target 2ms "
	    "interval 30ms memory_limit 1mb ce_threshold 1ms noecn drop_batch 8\n"
	    "tc qdisc add dev em2 root codel limit 100 target 2ms interval 30ms ce_threshold 1ms "
	    "ecn\n"
	    "tc qdisc add dev em3 root codel\n"
	    "tc qdisc add dev em4 root fq_codel quantum 10\n";
	static const char *const want[] = {
	    "qdisc fq_codel 8001: root refcnt 2 limit 100p flows 16 quantum 300 target 2ms "
	    "ce_threshold 999us interval 30ms memory_limit 1Mb drop_batch 8 \n"
	    " Sent 0 bytes 0 pkt (dropped 0, overlimits 0 requeues 0) \n"
	    " backlog 0b 0p requeues 0\n"
	    "  maxpacket 0 drop_overlimit 0 new_flow_count 0 ecn_mark 0\n"
	    "  new_flows_len 0 old_flows_len 0\n",
	    "qdisc codel 8002: root refcnt 2 limit 100p target 2ms ce_threshold 999us interval "
	    "30ms ecn \n"
	    " Sent 0 bytes 0 pkt (dropped 0, overlimits 0 requeues 0) \n"
	    " backlog 0b 0p requeues 0\n"
	    "  count 0 lastcount 0 ldelay 0us drop_next 0us\n"
	    "  maxpacket 0 ecn_mark 0 drop_overlimit 0\n",
	    "qdisc codel 8003: root refcnt 2 limit 1000p target 5ms interval 100ms \n"
	    " Sent 0 bytes 0 pkt (dropped 0, overlimits 0 requeues 0) \n"
	    " backlog 0b 0p requeues 0\n"
	    "  count 0 lastcount 0 ldelay 0us drop_next 0us\n"
	    "  maxpacket 0 ecn_mark 0 drop_overlimit 0\n",
	    "qdisc fq_codel 8004: root refcnt 2 limit 10240p flows 1024 quantum 256 target 5ms "
	    "interval 100ms memory_limit 32Mb ecn drop_batch 64 \n"
	    " Sent 0 bytes 0 pkt (dropped 0, overlimits 0 requeues 0) \n"
	    " backlog 0b 0p requeues 0\n"
	    "  maxpacket 0 drop_overlimit 0 new_flow_count 0 ecn_mark 0\n"
	    "  new_flows_len 0 old_flows_len 0\n",
	};
	struct sim s;
	char err[512];

	sim_new(&s, BPF_KERNEL_CURRENT);
	CU_ASSERT_EQUAL_FATAL(tc_run_script(&s, tc, "t.tc", NULL, NULL, err, sizeof(err)), 0);
	for (int i = 0; i < 4; i++) {
		char *buf = NULL;
		size_t n = 0;
		FILE *f = open_memstream(&buf, &n);

		tc_show_qdisc(s.devs[i], f, 1);
		fclose(f);
		CU_ASSERT_STRING_EQUAL(buf, want[i]);
		free(buf);
	}
	sim_free(&s);
}

/* ce_threshold_selector VALUE/MASK (5.16+): ce_threshold marks only the
 * packets whose DS field & MASK == VALUE. A train of 100 packets of 1000
 * bytes every 0.5 ms into 8 Mbit/s: the 3rd packet, dequeued at 2 ms,
 * waited 977 ticks, over ce_threshold 1ms (976 ticks), and so did every
 * later one up to the 100th, sent at 99 ms (98 marks), before codel's own
 * law (first action at 111 ms) does anything: every mark is
 * ce_threshold's. ECT(1) (tos 0x01) matches 0x1/0x3; ECT(0) (0x02) does
 * not, and is marked without a selector; EF + ECT(1) (0xb9) matches DSCP
 * 46 (0xb8/0xfc), ECT(1) alone does not. */
static int ce_marks(uint8_t tos, const char *selector, int *ce_mark_shown)
{
	struct script sc = {.period = 500 * US, .n = 100, .len = 1000, .tos = tos};
	struct script_record *rec = calloc(1, sizeof(*rec));
	struct sim s;
	char tc[256], *o, *m;
	int marks = 0;

	snprintf(tc, sizeof(tc), "tc qdisc add dev em1 root fq_codel ce_threshold 1ms%s%s\n",
		 selector ? " ce_threshold_selector " : "", selector ? selector : "");
	setup(&s, 8000000, tc, rec, &sc);
	run_and_check(&s);
	CU_ASSERT_EQUAL(rec->n, 100);
	for (int i = 0; i < rec->n; i++) {
		CU_ASSERT(rec->csum_ok[i]);
		CU_ASSERT_EQUAL(rec->drop[i], DROP_NONE);
		marks += (rec->tos[i] & 3) == 3;
	}
	o = script_show(&s, 0);
	m = strstr(o, " ce_mark ");
	*ce_mark_shown = m ? atoi(m + 9) : 0;
	CU_ASSERT_PTR_NOT_NULL(strstr(o, "ecn_mark 0"));
	free(o);
	sim_free(&s);
	free(rec);
	return marks;
}

static void test_fq_codel_ce_selector(void)
{
	static const struct {
		uint8_t tos;
		const char *sel;
		int marks;
	} cases[] = {
	    {0x01, "0x1/0x3", 98},   {0x02, "0x1/0x3", 0},    {0x02, NULL, 98},
	    {0xb9, "0xb8/0xfc", 98}, {0x01, "0xb8/0xfc", 0}, {0x00, NULL, 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int shown, n = ce_marks(cases[i].tos, cases[i].sel, &shown);

		if (n != cases[i].marks || shown != n)
			printf("\n  tos 0x%02x selector %s: %d marked (ce_mark %d), expected %d\n",
			       cases[i].tos, cases[i].sel ? cases[i].sel : "none", n, shown,
			       cases[i].marks);
		CU_ASSERT_EQUAL(n, cases[i].marks);
		CU_ASSERT_EQUAL(shown, n);
	}
}

/* tc 6.1 prints the selector after ce_threshold as %#x/%#x (0 as "0"),
 * and only with ce_threshold (the kernel dumps it with that alone); a
 * value of 0xff is tc's "not given": nothing is sent; change keeps it. */
static void test_ce_selector_show(void)
{
	static const char tc[] =
	    "tc qdisc add dev em1 root fq_codel ce_threshold 1ms ce_threshold_selector 0x1/0x3\n"
	    "tc qdisc add dev em2 root fq_codel ce_threshold_selector 0/252 ce_threshold 2ms\n"
	    "tc qdisc add dev em3 root fq_codel ce_threshold_selector 0x1/0x3\n"
	    "tc qdisc add dev em4 root fq_codel ce_threshold 1ms ce_threshold_selector 0xff/0xff\n"
	    "tc qdisc change dev em1 root fq_codel ce_threshold 3ms\n";
	static const char *const want[] = {
	    "qdisc fq_codel 8001: root refcnt 2 limit 10240p flows 1024 quantum 1514 target 5ms "
	    "ce_threshold 3ms ce_threshold_selector 0x1/0x3 interval 100ms memory_limit 32Mb ecn "
	    "drop_batch 64 \n",
	    "qdisc fq_codel 8002: root refcnt 2 limit 10240p flows 1024 quantum 1514 target 5ms "
	    "ce_threshold 2ms ce_threshold_selector 0/0xfc interval 100ms memory_limit 32Mb ecn "
	    "drop_batch 64 \n",
	    "qdisc fq_codel 8003: root refcnt 2 limit 10240p flows 1024 quantum 1514 target 5ms "
	    "interval 100ms memory_limit 32Mb ecn drop_batch 64 \n",
	    "qdisc fq_codel 8004: root refcnt 2 limit 10240p flows 1024 quantum 1514 target 5ms "
	    "ce_threshold 999us interval 100ms memory_limit 32Mb ecn drop_batch 64 \n",
	};
	struct sim s;
	char err[512];

	sim_new(&s, BPF_KERNEL_CURRENT);
	CU_ASSERT_EQUAL_FATAL(tc_run_script(&s, tc, "t.tc", NULL, NULL, err, sizeof(err)), 0);
	for (int i = 0; i < 4; i++) {
		char *buf = NULL;
		size_t n = 0;
		FILE *f = open_memstream(&buf, &n);

		tc_show_qdisc(s.devs[i], f, 0);
		fclose(f);
		if (strcmp(buf, want[i]))
			printf("\n  got  %s  want %s", buf, want[i]);
		CU_ASSERT_STRING_EQUAL(buf, want[i]);
		free(buf);
	}
	sim_free(&s);
}

static void expect_error(const char *line, const char *want)
{
	struct sim s;
	char err[512], script[512];

	sim_new(&s, BPF_KERNEL_CURRENT);
	snprintf(script, sizeof(script), "%s\n", line);
	CU_ASSERT_NOT_EQUAL(tc_run_script(&s, script, "t.tc", NULL, NULL, err, sizeof(err)), 0);
	if (!strstr(err, want))
		printf("\n  %s\n  got: %s\n  want: %s\n", line, err, want);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
	sim_free(&s);
}

static void test_errors(void)
{
	expect_error("tc qdisc add dev em1 root codel limit x", "t.tc:1: Illegal \"limit\"");
	expect_error("tc qdisc add dev em1 root codel target", "\"target\" needs a value");
	expect_error("tc qdisc add dev em1 root codel frob", "codel: What is \"frob\"?");
	expect_error("tc qdisc add dev em1 root fq_codel flows 70000",
		     "RTNETLINK answers: Invalid argument");
	expect_error("tc qdisc add dev em1 root fq_codel quantum 2000000", "Error: Invalid quantum.");
	expect_error("tc qdisc add dev em1 root fq_codel ce_threshold_selector 0x1",
		     "t.tc:1: Missing mask for \"ce_threshold_selector\"");
	expect_error("tc qdisc add dev em1 root fq_codel ce_threshold_selector 1/0x100",
		     "t.tc:1: Illegal mask for \"ce_threshold_selector\"");
	expect_error("tc qdisc add dev em1 root fq_codel ce_threshold_selector x1/3",
		     "t.tc:1: Illegal \"ce_threshold_selector\"");
	expect_error("tc qdisc add dev em1 root fq_codel ce_threshold_selector -1/3",
		     "t.tc:1: Illegal \"ce_threshold_selector\"");
	expect_error("tc qdisc add dev em1 root fq_codel ce_threshold_selector",
		     "\"ce_threshold_selector\" needs a value");
	expect_error("tc qdisc add dev em1 root fq_codel interval 1parsec", "Illegal \"interval\"");
	expect_error("tc qdisc add dev em1 root fq_codel\n"
		     "tc qdisc change dev em1 root fq_codel flows 16",
		     "t.tc:2: RTNETLINK answers: Invalid argument");
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("codel", NULL, NULL);
	CU_add_test(s, "codel: the hand schedule of a constant overload", test_codel_hand_schedule);
	CU_add_test(s, "codel ecn: marks at the same instants", test_codel_ecn_marks);
	CU_add_test(s, "codel ecn: not-ECT packets are dropped", test_codel_ecn_not_ect);
	CU_add_test(s, "fq_codel: new flows first, DRR", test_fq_codel_new_flows_first);
	CU_add_test(s, "fq_codel: over the limit, the fattest flow", test_fq_codel_fattest_flow_drops);
	CU_add_test(s, "fq_codel: its flows as classes", test_fq_codel_class_show);
	CU_add_test(s, "tc qdisc show as tc 6.1", test_show_as_tc);
	CU_add_test(s, "fq_codel: ce_threshold_selector marks by DS field", test_fq_codel_ce_selector);
	CU_add_test(s, "fq_codel: ce_threshold_selector as tc 6.1 shows it", test_ce_selector_show);
	CU_add_test(s, "tc's errors", test_errors);
	return unit_run();
}
