/* test_sch_fifo_family.c - pfifo_head_drop and noqueue against hand
 * schedules, their counters (and a parent's), and tc's answers as Linux
 * 6.18 gave them in a namespace (noqueue, pfifo_head_drop and mq on veth). */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_script.h"
#include "tc.h"
#include "unit.h"

#define MS 1000000ull

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

/* 8 Mbit/s, 1000-byte frames (1 ms each), six at t = 0, limit 3: #1 goes
 * on the wire, #2..#4 fill the queue, #5 pushes #2 out, #6 pushes #3 out:
 * sent #1 at 0, #4 at 1 ms, #5 at 2, #6 at 3; a pfifo would keep #2..#4. */
static void test_head_drop(void)
{
	static const uint64_t t[] = {0, 0, 0, 0, 0, 0};
	struct script sc = {.n = 6, .len = 1000, .t = t};
	struct script_record *rec = calloc(1, sizeof(*rec));
	static const uint64_t sent[][2] = {{1, 0}, {4, 1 * MS}, {5, 2 * MS}, {6, 3 * MS}};
	struct sim s;
	char *o;

	setup(&s, 8000000, "tc qdisc add dev em1 root pfifo_head_drop limit 3\n", rec, &sc);
	run_and_check(&s);
	for (int i = 0; i < 4; i++) {
		int j = script_find(rec, sent[i][0]);

		CU_ASSERT_FATAL(j >= 0);
		CU_ASSERT_EQUAL(rec->drop[j], DROP_NONE);
		CU_ASSERT_EQUAL(rec->t[j], sent[i][1]);
	}
	for (uint64_t id = 2; id <= 3; id++) {
		int j = script_find(rec, id);

		CU_ASSERT_FATAL(j >= 0);
		CU_ASSERT_EQUAL(rec->drop[j], DROP_HEAD_DROP);
	}
	o = script_show(&s, 0);
	CU_ASSERT_STRING_EQUAL(o, "qdisc pfifo_head_drop 8001: root refcnt 2 limit 3p\n"
				  " Sent 4000 bytes 4 pkt (dropped 2, overlimits 0 requeues 0) \n"
				  " backlog 0b 0p requeues 0\n");
	free(o);
	sim_free(&s);
	free(rec);
}

/* Under a prio band the parent hears NET_XMIT_CN: it counts a drop per
 * head dropped and keeps its qlen, and learns the bytes by
 * qdisc_tree_reduce_backlog(0, ...): its counters still add up, and a
 * longer arrival pushing out a shorter head leaves no negative backlog. */
static void test_head_drop_under_prio(void)
{
	static const uint64_t t[] = {0, 0, 0, 0, 0};
	struct script sc = {.n = 5, .len = 600, .t = t};
	struct script_record *rec = calloc(1, sizeof(*rec));
	struct sim s;
	char *o;

	setup(&s, 8000000,
	      "tc qdisc add dev em1 root handle 1: prio\n"
	      "tc qdisc add dev em1 parent 1:2 handle 20: pfifo_head_drop limit 2\n",
	      rec, &sc);
	run_and_check(&s);
	o = script_show(&s, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(o, "qdisc prio 1: root refcnt 2 bands 3 priomap"));
	CU_ASSERT_PTR_NOT_NULL(strstr(o, " Sent 1800 bytes 3 pkt (dropped 2, overlimits 0"));
	CU_ASSERT_PTR_NOT_NULL(
	    strstr(o, "qdisc pfifo_head_drop 20: parent 1:2 limit 2p\n"
		      " Sent 1800 bytes 3 pkt (dropped 2, overlimits 0 requeues 0) \n"
		      " backlog 0b 0p requeues 0\n"));
	free(o);
	sim_free(&s);
	free(rec);
}

/* noqueue: packets that find the wire free go at once, the others are
 * dropped ("Virtual device asks to queue packet!"); the qdisc counts
 * nothing. 1000-byte frames every 0.5 ms at 8 Mbit/s: #1, #3, #5 go. */
static void test_noqueue(void)
{
	struct script sc = {.n = 6, .len = 1000, .period = 500000};
	struct script_record *rec = calloc(1, sizeof(*rec));
	struct sim s;
	char *o;

	setup(&s, 8000000, "tc qdisc add dev em1 root noqueue\n", rec, &sc);
	run_and_check(&s);
	for (uint64_t id = 1; id <= 6; id++) {
		int j = script_find(rec, id);

		CU_ASSERT_FATAL(j >= 0);
		CU_ASSERT_EQUAL(rec->drop[j], id % 2 ? DROP_NONE : DROP_NOQUEUE);
		if (id % 2)
			CU_ASSERT_EQUAL(rec->t[j], (id - 1) * 500000);
	}
	o = script_show(&s, 0);
	CU_ASSERT_STRING_EQUAL(o, "qdisc noqueue 8001: root refcnt 2 \n"
				  " Sent 0 bytes 0 pkt (dropped 0, overlimits 0 requeues 0) \n"
				  " backlog 0b 0p requeues 0\n");
	free(o);
	sim_free(&s);
	free(rec);
}

static void expect_error(const char *script, const char *want)
{
	struct sim s;
	struct sim_config cfg;
	char err[512];

	sim_config_default(&cfg);
	CU_ASSERT_FATAL(sim_init(&s, &cfg) == 0);
	CU_ASSERT_NOT_EQUAL(tc_run_script(&s, script, "t.tc", NULL, NULL, err, sizeof(err)), 0);
	if (strcmp(err, want))
		printf("\n  got:  %s\n  want: %s\n", err, want);
	CU_ASSERT_STRING_EQUAL(err, want);
	sim_free(&s);
}

/* Linux 6.18: "Error: Cannot assign noqueue to a class." for a noqueue
 * under htb; mq needs a multiqueue device. */
static void test_errors(void)
{
	expect_error("tc qdisc add dev em1 root handle 1: prio\n"
		     "tc qdisc add dev em1 parent 1:1 noqueue\n",
		     "t.tc:2: RTNETLINK answers: Invalid argument (Cannot assign noqueue to a "
		     "class: parent 1:1)");
	expect_error("tc qdisc add dev em1 root noqueue limit 3\n",
		     "t.tc:1: qdisc 'noqueue' does not support option parsing");
	expect_error("tc qdisc add dev em1 root mq\n",
		     "t.tc:1: qdisc \"mq\" is not modelled by tcsim: it gives each transmit queue "
		     "of a multiqueue device a child of its own, and tcsim's device has one "
		     "queue (a single-queue device refuses it: Operation not supported)");
	expect_error("tc qdisc add dev em1 root pfifo_head_drop limit x\n",
		     "t.tc:1: pfifo_head_drop: Illegal value for \"limit\": \"x\"");
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("fifo family", NULL, NULL);
	CU_add_test(s, "pfifo_head_drop: the oldest goes", test_head_drop);
	CU_add_test(s, "pfifo_head_drop under prio: the parent's counts", test_head_drop_under_prio);
	CU_add_test(s, "noqueue: straight to the wire, or dropped", test_noqueue);
	CU_add_test(s, "tc's errors", test_errors);
	return unit_run();
}
