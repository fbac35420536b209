/* test_sch_tbf.c - tbf against schedules computed by hand to the
 * nanosecond (rate, burst, peakrate, children), its drops and counters,
 * tc's words and errors, and `tc qdisc show` as tc 6.1 printed it for the
 * same lines on Linux 6.18. */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "tc.h"
#include "test_src.h"
#include "unit.h"

#define MS 1000000ull

/* ---- a scripted source: (time, length, skb->priority, UDP source port) ---- */

struct script_pkt {
	uint64_t t;
	uint32_t len;
	uint32_t priority;
	uint16_t sport;
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
	test_frame_udp(buf, sp->len, 0x0a000001, 0x0a000002, sp->sport ? sp->sport : 40000, 5000,
		       0);
	p->data = buf;
	p->caplen = p->len = sp->len;
	p->t_ns = sp->t;
	p->priority = sp->priority;
	return 1;
}

/* ---- what happened to each packet ---- */

#define MAXREC 64
struct record {
	int n;
	struct sim_observer obs;
	uint64_t id[MAXREC], dq[MAXREC];
	enum pkt_drop drop[MAXREC];
};

static void on_done(void *arg, const struct dev *d, const struct pkt *p)
{
	struct record *rec = arg;

	(void)d;
	if (rec->n < MAXREC) {
		rec->id[rec->n] = p->id;
		rec->dq[rec->n] = p->t_dequeue;
		rec->drop[rec->n] = p->drop;
		rec->n++;
	}
}

/* A device of rate_bps (0: infinitely fast, so the departures are tbf's
 * alone) configured by the tc lines, fed by the script. */
static struct dev *setup(struct sim *s, uint64_t rate_bps, const char *tc, struct record *rec,
			 struct script *sc)
{
	struct sim_config cfg;
	char err[512];

	sim_config_default(&cfg);
	cfg.rate_bps = rate_bps;
	CU_ASSERT_FATAL(sim_init(s, &cfg) == 0);
	if (tc_run_script(s, tc, "test", NULL, NULL, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		CU_FAIL_FATAL("tc");
	}
	rec->obs = (struct sim_observer){.done = on_done, .arg = rec};
	CU_ASSERT_FATAL(sim_observe(s, &rec->obs, err, sizeof(err)) == 0);
	if (sc)
		CU_ASSERT_FATAL(sim_add_source(s, test_src_new(script_gen, sc), s->devs[0], 0, err,
					       sizeof(err)) == 0);
	return s->devs[0];
}

static void finish(struct sim *s)
{
	char err[512];

	CU_ASSERT_EQUAL(sim_check_accounting(s, err, sizeof(err)), 0);
	sim_free(s);
}

static const struct qdisc *find(struct dev *d, uint32_t handle)
{
	return qdisc_lookup(d->root, handle);
}

/* rate 1mbit = 125000 B/s: exactly 8000 ns a byte (mult 8000 << 19, no
 * rounding), so 1000 bytes cost 8 ms of tokens; burst 3000 = a 24 ms
 * bucket, full at creation (t_c = 0). Six 1000-byte packets at t = 0 on an
 * infinitely fast device:
 *   #1 0 ms: 24 - 8 = 16 left      #2 0 ms: 8 left      #3 0 ms: 0 left
 *   #4: 0 - 8 = -8: watchdog at 8 ms; #5 and #6 arrive and ask again
 *       (same time: not re-armed): 3 overlimits
 *   #4 8 ms (8 ms refilled, 0 left); #5: -8 again, watchdog 16 ms
 *   #5 16 ms; #6 24 ms: 2 more overlimits, 5 in all. */
static void test_burst_then_rate(void)
{
	static const struct script_pkt v[] = {{0, 1000, 0, 0}, {0, 1000, 0, 0}, {0, 1000, 0, 0},
					      {0, 1000, 0, 0}, {0, 1000, 0, 0}, {0, 1000, 0, 0}};
	static const uint64_t want[] = {0, 0, 0, 8 * MS, 16 * MS, 24 * MS};
	struct script sc = {v, 6, 0};
	struct record rec = {0};
	struct sim s;
	struct dev *d =
	    setup(&s, 0, "qdisc add dev eth0 root handle 1: tbf rate 1mbit burst 3000 limit 100000",
		  &rec, &sc);

	CU_ASSERT_EQUAL(sim_run(&s), 0);
	CU_ASSERT_EQUAL_FATAL(rec.n, 6);
	for (int i = 0; i < 6; i++) {
		CU_ASSERT_EQUAL(rec.id[i], (uint64_t)i + 1);
		CU_ASSERT_EQUAL(rec.dq[i], want[i]);
	}
	CU_ASSERT_EQUAL(d->root->s.overlimits, 5);
	CU_ASSERT_EQUAL(d->root->s.packets, 6);
	CU_ASSERT_EQUAL(d->root->s.bytes, 6000);
	CU_ASSERT_EQUAL(d->root->s.drops, 0);
	finish(&s);
}

/* The same on a 10mbit device (1000 bytes: 0.8 ms on the wire): the
 * arrivals at 0 find the wire busy, tbf is asked at each transmission end:
 *   #1 0: 16 left                  #2 0.8: 0.8 + 16 - 8 = 8.8 left
 *   #3 1.6: 0.8 + 8.8 - 8 = 1.6    #4 2.4: 0.8 + 1.6 - 8 = -5.6: watchdog 8.0
 *   #4 8.0: 6.4 + 1.6 - 8 = 0      #5 8.8: -7.2: 16.0    #6 16.8: -7.2: 24.0
 * three overlimits (2.4, 8.8, 16.8 ms). */
static void test_burst_then_rate_on_a_wire(void)
{
	static const struct script_pkt v[] = {{0, 1000, 0, 0}, {0, 1000, 0, 0}, {0, 1000, 0, 0},
					      {0, 1000, 0, 0}, {0, 1000, 0, 0}, {0, 1000, 0, 0}};
	static const uint64_t want[] = {0, 800000, 1600000, 8 * MS, 16 * MS, 24 * MS};
	struct script sc = {v, 6, 0};
	struct record rec = {0};
	struct sim s;
	struct dev *d = setup(
	    &s, 10000000,
	    "qdisc add dev eth0 root handle 1: tbf rate 1mbit burst 3000 limit 100000", &rec, &sc);

	CU_ASSERT_EQUAL(sim_run(&s), 0);
	CU_ASSERT_EQUAL_FATAL(rec.n, 6);
	for (int i = 0; i < 6; i++)
		CU_ASSERT_EQUAL(rec.dq[i], want[i]);
	CU_ASSERT_EQUAL(d->root->s.overlimits, 3);
	finish(&s);
}

/* peakrate 2mbit = 4000 ns a byte (exact), minburst 1000: a 4 ms peak
 * bucket; max_size = min(3000, 1000). Six 1000-byte packets at 0:
 *   #1 0: rate 24 - 8 = 16, peak 4 - 4 = 0
 *   #2: peak 0 - 4 = -4: watchdog at 4 ms, sent at 4 (rate 4 + 16 - 8 = 12)
 *   #3 8 (rate 4), #4 12 (rate 4 + 4 - 8 = 0): the peak paces them
 *   #5: rate -8 + 4 = -4, peak -4: 16 (rate 0)
 *   #6: rate -8, peak -4: the larger wait, 8 ms: 24.
 * Overlimits: #2..#6 arriving at 0 (5), then at 4, 8, 12, 16: 9. */
static void test_peakrate(void)
{
	static const struct script_pkt v[] = {{0, 1000, 0, 0}, {0, 1000, 0, 0}, {0, 1000, 0, 0},
					      {0, 1000, 0, 0}, {0, 1000, 0, 0}, {0, 1000, 0, 0}};
	static const uint64_t want[] = {0, 4 * MS, 8 * MS, 12 * MS, 16 * MS, 24 * MS};
	struct script sc = {v, 6, 0};
	struct record rec = {0};
	struct sim s;
	struct dev *d =
	    setup(&s, 0,
		  "qdisc add dev eth0 root handle 1: tbf rate 1mbit burst 3000 limit 100000 "
		  "peakrate 2mbit minburst 1000",
		  &rec, &sc);

	CU_ASSERT_EQUAL(sim_run(&s), 0);
	CU_ASSERT_EQUAL_FATAL(rec.n, 6);
	for (int i = 0; i < 6; i++)
		CU_ASSERT_EQUAL(rec.dq[i], want[i]);
	CU_ASSERT_EQUAL(d->root->s.overlimits, 9);
	finish(&s);
}

/* A packet longer than max_size can never be sent: dropped at enqueue and
 * counted by tbf (the child never sees it). burst 3000: 3000 passes, 3001
 * does not; with peakrate, minburst 1000 is the bound. */
static void test_oversize_dropped(void)
{
	static const struct script_pkt v[] = {
	    {0, 3001, 0, 0}, {0, 3000, 0, 0}, {1 * MS, 1001, 0, 0}};
	struct script sc = {v, 2, 0}, sc2 = {v + 1, 2, 0};
	struct record rec = {0}, rec2 = {0};
	struct sim s, s2;
	struct dev *d =
	    setup(&s, 0, "qdisc add dev eth0 root handle 1: tbf rate 1mbit burst 3000 limit 100000",
		  &rec, &sc);

	CU_ASSERT_EQUAL(sim_run(&s), 0);
	CU_ASSERT_EQUAL_FATAL(rec.n, 2);
	CU_ASSERT_EQUAL(rec.id[0], 1);
	CU_ASSERT_EQUAL(rec.drop[0], DROP_TBF_SIZE);
	CU_ASSERT_EQUAL(rec.drop[1], DROP_NONE);
	CU_ASSERT_EQUAL(d->root->s.drops, 1);
	CU_ASSERT_EQUAL(d->st.drops_by[DROP_TBF_SIZE], 1);
	finish(&s);

	d = setup(&s2, 0,
		  "qdisc add dev eth0 root handle 1: tbf rate 1mbit burst 3000 limit 100000 "
		  "peakrate 2mbit mtu 1000",
		  &rec2, &sc2);
	CU_ASSERT_EQUAL(sim_run(&s2), 0);
	CU_ASSERT_EQUAL_FATAL(rec2.n, 2);
	CU_ASSERT_EQUAL(rec2.drop[0], DROP_TBF_SIZE); /* 3000 > 1000 */
	CU_ASSERT_EQUAL(rec2.drop[1], DROP_TBF_SIZE); /* 1001 */
	CU_ASSERT_EQUAL(d->root->s.drops, 2);
	finish(&s2);
}

/* limit 2500 is the default bfifo's: with burst 1000 (8 ms), #1 leaves at
 * once, #2 and #3 wait (2000 bytes), #4 would make 3000: the bfifo drops it
 * and tbf counts the drop too. */
static void test_limit_drops_in_the_bfifo(void)
{
	static const struct script_pkt v[] = {
	    {0, 1000, 0, 0}, {0, 1000, 0, 0}, {0, 1000, 0, 0}, {0, 1000, 0, 0}};
	struct script sc = {v, 4, 0};
	struct record rec = {0};
	struct sim s;
	struct dev *d =
	    setup(&s, 0, "qdisc add dev eth0 root handle 1: tbf rate 1mbit burst 1000 limit 2500",
		  &rec, &sc);
	const struct qdisc *child;

	CU_ASSERT_EQUAL(sim_run_until(&s, 1), 0);
	CU_ASSERT_EQUAL(d->root->s.qlen, 2);
	CU_ASSERT_EQUAL(d->root->s.backlog, 2000);
	CU_ASSERT_EQUAL(d->root->s.drops, 1);
	child = d->root->ops->leaf(d->root, 0x10001);
	CU_ASSERT_PTR_NOT_NULL_FATAL(child);
	CU_ASSERT_STRING_EQUAL(child->ops->id, "bfifo");
	CU_ASSERT_EQUAL(child->s.drops, 1);
	CU_ASSERT_EQUAL(child->s.qlen, 2);
	CU_ASSERT_EQUAL(sim_run(&s), 0);
	CU_ASSERT_EQUAL_FATAL(rec.n, 4);
	CU_ASSERT_EQUAL(rec.id[0], 1); /* its transmission ended at 0 */
	CU_ASSERT_EQUAL(rec.id[1], 4);
	CU_ASSERT_EQUAL(rec.drop[1], DROP_QDISC_LIMIT);
	CU_ASSERT_EQUAL(rec.dq[2], 8 * MS);
	CU_ASSERT_EQUAL(rec.dq[3], 16 * MS);
	finish(&s);
}

/* prio under tbf (burst 1000 = 8 ms): A and B to band 2, then C to band 1,
 * all at 0. A leaves at once; tbf waits 8 ms for whatever prio's head is
 * then: C overtakes B (8 ms), B at 16 ms. */
static void test_prio_child(void)
{
	static const struct script_pkt v[] = {
	    {0, 1000, 0x100002, 0}, {0, 1000, 0x100002, 0}, {0, 1000, 0x100001, 0}};
	struct script sc = {v, 3, 0};
	struct record rec = {0};
	struct sim s;
	struct dev *d =
	    setup(&s, 0,
		  "qdisc add dev eth0 root handle 1: tbf rate 1mbit burst 1000 limit 100000\n"
		  "qdisc add dev eth0 parent 1:1 handle 10: prio",
		  &rec, &sc);

	CU_ASSERT_EQUAL(sim_run(&s), 0);
	CU_ASSERT_EQUAL_FATAL(rec.n, 3);
	CU_ASSERT_EQUAL(rec.id[0], 1);
	CU_ASSERT_EQUAL(rec.dq[0], 0);
	CU_ASSERT_EQUAL(rec.id[1], 3);
	CU_ASSERT_EQUAL(rec.dq[1], 8 * MS);
	CU_ASSERT_EQUAL(rec.id[2], 2);
	CU_ASSERT_EQUAL(rec.dq[2], 16 * MS);
	CU_ASSERT_EQUAL(find(d, 0x100000)->s.packets, 3);
	finish(&s);
}

/* sfq under tbf, every packet 1514 bytes (12.112 ms of tokens; burst 1514
 * holds one): Z1 empties the bucket at 0; tbf's peek makes sfq serve X1
 * (held) while the bucket refills; X2 and X3 then queue in flow X, Y1 in
 * flow Y. sfq's credit of 190 8-byte units pays one 1514-byte packet
 * (190 units): after X2, X is out of credit and Y1 goes before X3.
 * Departures every 12.112 ms: Z1 X1 X2 Y1 X3. */
static void test_sfq_child(void)
{
	static const struct script_pkt v[] = {
	    {0, 1514, 0, 3}, {0, 1514, 0, 1}, {0, 1514, 0, 1}, {0, 1514, 0, 1}, {0, 1514, 0, 2}};
	static const uint64_t order[] = {1, 2, 3, 5, 4};
	struct script sc = {v, 5, 0};
	struct record rec = {0};
	struct sim s;

	setup(&s, 0,
	      "qdisc add dev eth0 root handle 1: tbf rate 1mbit burst 1514 limit 100000\n"
	      "qdisc add dev eth0 parent 1:1 handle 10: sfq",
	      &rec, &sc);
	CU_ASSERT_EQUAL(sim_run(&s), 0);
	CU_ASSERT_EQUAL_FATAL(rec.n, 5);
	for (int i = 0; i < 5; i++) {
		CU_ASSERT_EQUAL(rec.id[i], order[i]);
		CU_ASSERT_EQUAL(rec.dq[i], (uint64_t)i * 12112000);
	}
	finish(&s);
}

/* tbf under tbf: the outer (2mbit, burst 1000: a 4 ms bucket) peeks the
 * inner (1mbit, burst 2000: 16 ms), which serves and holds a packet as
 * soon as its own bucket allows (qdisc_peek_dequeued), charging it then.
 * Three 1000-byte packets at 0:
 *   #1 0: inner 16 - 8 = 8, outer 4 - 4 = 0
 *   #2: inner 8 - 8 = 0 (charged at 0, held), outer -4: its watchdog 4 ms;
 *       #3 arriving asks again (outer overlimits 2)
 *   #2 4 ms; #3: inner 4 + 0 - 8 = -4: the inner's watchdog, 8 ms
 *   #3 8 ms (inner 0, outer 4 + 0 - 4 = 0). */
static void test_tbf_child(void)
{
	static const struct script_pkt v[] = {{0, 1000, 0, 0}, {0, 1000, 0, 0}, {0, 1000, 0, 0}};
	struct script sc = {v, 3, 0};
	struct record rec = {0};
	struct sim s;
	struct dev *d =
	    setup(&s, 0,
		  "qdisc add dev eth0 root handle 1: tbf rate 2mbit burst 1000 limit 100000\n"
		  "qdisc add dev eth0 parent 1:1 handle 10: tbf rate 1mbit burst 2000 limit 100000",
		  &rec, &sc);

	CU_ASSERT_EQUAL(sim_run(&s), 0);
	CU_ASSERT_EQUAL_FATAL(rec.n, 3);
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(rec.id[i], (uint64_t)i + 1);
		CU_ASSERT_EQUAL(rec.dq[i], (uint64_t)i * 4 * MS);
	}
	CU_ASSERT_EQUAL(d->root->s.overlimits, 2);
	CU_ASSERT_EQUAL(find(d, 0x100000)->s.overlimits, 1);
	CU_ASSERT_EQUAL(find(d, 0x100000)->s.packets, 3);
	finish(&s);
}

/* tbf in a prio band (band 1 shaped, band 2 not): prio's dequeue passes
 * over the shaped band while it waits and serves band 2, as the kernel's
 * does. tbf counts an overlimit at every dequeue it refuses: the arrivals
 * of #2, #3 and #4 and the transmission ends of #3 and #4: 5. */
static void test_tbf_as_a_band(void)
{
	static const struct script_pkt v[] = {{0, 1000, 0x10001, 0},
					      {0, 1000, 0x10001, 0},
					      {0, 1000, 0x10002, 0},
					      {MS, 1000, 0x10002, 0}};
	struct script sc = {v, 4, 0};
	struct record rec = {0};
	struct sim s;
	struct dev *d =
	    setup(&s, 0,
		  "qdisc add dev eth0 root handle 1: prio\n"
		  "qdisc add dev eth0 parent 1:1 handle 10: tbf rate 1mbit burst 1000 limit 100000",
		  &rec, &sc);

	CU_ASSERT_EQUAL(sim_run(&s), 0);
	CU_ASSERT_EQUAL_FATAL(rec.n, 4);
	CU_ASSERT_EQUAL(rec.id[0], 1);
	CU_ASSERT_EQUAL(rec.dq[0], 0);
	CU_ASSERT_EQUAL(rec.id[1], 3);
	CU_ASSERT_EQUAL(rec.dq[1], 0);
	CU_ASSERT_EQUAL(rec.id[2], 4);
	CU_ASSERT_EQUAL(rec.dq[2], MS);
	CU_ASSERT_EQUAL(rec.id[3], 2);
	CU_ASSERT_EQUAL(rec.dq[3], 8 * MS);
	CU_ASSERT_EQUAL(d->root->s.qlen, 0);
	CU_ASSERT_EQUAL(find(d, 0x100000)->s.overlimits, 5);
	finish(&s);
}

/* ---- tc's words and `tc qdisc show` ---- */

static char *show(const char *tc, int stats, int details, int invisible)
{
	struct tc_show_opts o = {.stats = stats, .details = details, .invisible = invisible};
	struct sim_config cfg;
	struct sim s;
	char err[512], *buf = NULL;
	size_t len = 0;
	FILE *f;

	sim_config_default(&cfg);
	CU_ASSERT_FATAL(sim_init(&s, &cfg) == 0);
	if (tc_run_script(&s, tc, "test", NULL, NULL, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		CU_FAIL_FATAL("tc");
	}
	f = open_memstream(&buf, &len);
	tc_show_qdisc_opts(s.devs[0], f, &o);
	fclose(f);
	sim_free(&s);
	return buf;
}

static void expect_show(const char *words, int details, const char *want)
{
	char tc[512], line[512];
	char *got;

	snprintf(tc, sizeof(tc), "qdisc add dev eth0 root handle 1: tbf %s", words);
	got = show(tc, 0, details, 0);
	snprintf(line, sizeof(line), "qdisc tbf 1: root refcnt 2 %s\n", want);
	CU_ASSERT_STRING_EQUAL(got, line);
	if (strcmp(got, line))
		fprintf(stderr, "\n%s\ngot  %swant %s", words, got, line);
	free(got);
}

/* Each line as tc 6.1 printed it for the same words on Linux 6.18. */
static void test_show_as_tc(void)
{
	expect_show("rate 1mbit burst 10kb latency 50ms", 0, "rate 1Mbit burst 10Kb lat 50ms ");
	expect_show("rate 1mbit burst 10kb latency 50ms", 1,
		    "rate 1Mbit burst 10Kb/1 mpu 0b lat 50ms linklayer ethernet ");
	expect_show("rate 1mbit burst 10kb latency 50000", 0, "rate 1Mbit burst 10Kb lat 50ms ");
	expect_show("rate 1mbit burst 10kb limit 3000", 0, "rate 1Mbit burst 10Kb limit 3000b ");
	expect_show("rate 1.5mbit burst 10230 latency 70ms peakrate 2mbit mtu 1514", 0,
		    "rate 1500Kbit burst 10Kb peakrate 2Mbit minburst 1514b lat 70ms ");
	expect_show("rate 1.5mbit burst 10230 latency 70ms peakrate 2mbit mtu 1514", 1,
		    "rate 1500Kbit burst 10Kb/1 mpu 0b peakrate 2Mbit mtu 1514b/1 mpu 0b lat 70ms "
		    "linklayer ethernet ");
	expect_show("rate 100kbps burst 10k/64 limit 100k mpu 64 overhead 24 linklayer atm", 0,
		    "rate 800Kbit burst 11341b lat 911ms overhead 24 linklayer atm ");
	expect_show("rate 100kbps burst 10k/64 limit 100k mpu 64 overhead 24 linklayer atm", 1,
		    "rate 800Kbit burst 11341b/1 mpu 64b lat 911ms overhead 24 linklayer atm ");
	expect_show("rate 12345678 burst 5000 latency 1s", 0, "rate 12345Kbit burst 4999b lat 1s ");
	expect_show("rate 10gbit burst 1mb latency 1ms", 0, "rate 10Gbit burst 1047500b lat 1ms ");
	expect_show("rate 1mbit burst 10kbit limit 10k", 0, "rate 1Mbit burst 1280b lat 71.7ms ");
	expect_show("rate 1mbit burst 10k limit 10k linklayer adsl", 0,
		    "rate 1Mbit burst 11342b limit 10Kb linklayer atm ");
	expect_show("rate 1mbit burst 10kb latency 50ms peakrate 2mbit minburst 1540 mpu 64", 1,
		    "rate 1Mbit burst 10Kb/1 mpu 64b peakrate 2Mbit mtu 1540b/1 mpu 64b lat 50ms "
		    "linklayer ethernet ");
	expect_show("rate 40gbit burst 10kb latency 50ms peakrate 50gbit mtu 1600", 1,
		    "rate 40Gbit burst 5000b/1 mpu 0b peakrate 50Gbit mtu 0b/1 mpu 0b lat 50ms "
		    "linklayer ethernet ");
	expect_show("rate 1mbit burst 1 latency 50ms", 0, "rate 1Mbit burst 1b lat 50ms ");
	expect_show("rate 1kbit burst 10k latency 10s", 0, "rate 1Kbit burst 10Kb lat 10s ");
	expect_show("rate 1mbit b 10k l 5000 p 2mbit mtu 1500 o 4 lin atm", 0,
		    "rate 1Mbit burst 11342b peakrate 2Mbit minburst 1696b lat 13.2ms overhead 4 "
		    "linklayer atm ");
	expect_show("rate -1mbit burst 10k limit 10k", 0, "rate 18446744Tbit burst 0b lat 0us ");
}

/* The default child is a bfifo 0: of the limit, seen only with
 * `invisible`; the class 1:1 has no statistics of its own. */
static void test_default_child_and_class(void)
{
	const char *tc = "qdisc add dev eth0 root handle 1: tbf rate 1mbit burst 10kb latency 50ms";
	char *got = show(tc, 0, 0, 1);
	struct sim_config cfg;
	struct sim s;
	char err[512], *buf = NULL;
	size_t len = 0;
	FILE *f;
	struct tc_show_opts o = {.stats = 1};

	CU_ASSERT_STRING_EQUAL(got, "qdisc tbf 1: root refcnt 2 rate 1Mbit burst 10Kb lat 50ms \n"
				    "qdisc bfifo 0: parent 1:1 limit 16490b\n");
	free(got);
	sim_config_default(&cfg);
	CU_ASSERT_FATAL(sim_init(&s, &cfg) == 0);
	CU_ASSERT_FATAL(tc_run_script(&s, tc, "test", NULL, NULL, err, sizeof(err)) == 0);
	f = open_memstream(&buf, &len);
	tc_show_class_opts(s.devs[0], f, &o);
	fclose(f);
	CU_ASSERT_STRING_EQUAL(buf, "class tbf 1:1 parent 1: \n\n");
	free(buf);
	/* change: the default bfifo takes the new limit */
	CU_ASSERT_FATAL(
	    tc_run_script(&s,
			  "qdisc change dev eth0 root handle 1: tbf rate 2mbit burst 20kb "
			  "limit 30000",
			  "test", NULL, NULL, err, sizeof(err)) == 0);
	buf = NULL;
	f = open_memstream(&buf, &len);
	o = (struct tc_show_opts){.invisible = 1};
	tc_show_qdisc_opts(s.devs[0], f, &o);
	fclose(f);
	CU_ASSERT_STRING_EQUAL(buf, "qdisc tbf 1: root refcnt 2 rate 2Mbit burst 20Kb lat 38.1ms \n"
				    "qdisc bfifo 0: parent 1:1 limit 30000b\n");
	free(buf);
	/* a pfifo grafted under it takes the limit as a packet count */
	CU_ASSERT_FATAL(
	    tc_run_script(&s,
			  "qdisc add dev eth0 parent 1:1 handle 20: pfifo limit 5\n"
			  "qdisc change dev eth0 root handle 1: tbf rate 2mbit burst 20kb "
			  "limit 30000",
			  "test", NULL, NULL, err, sizeof(err)) == 0);
	buf = NULL;
	f = open_memstream(&buf, &len);
	tc_show_qdisc_opts(s.devs[0], f, &o);
	fclose(f);
	CU_ASSERT_STRING_EQUAL(buf, "qdisc tbf 1: root refcnt 2 rate 2Mbit burst 20Kb lat 38.1ms \n"
				    "qdisc pfifo 20: parent 1:1 limit 30000p\n");
	free(buf);
	/* a nested tbf and its class */
	CU_ASSERT_FATAL(tc_run_script(&s,
				      "qdisc replace dev eth0 parent 1:1 handle 40: tbf rate 1mbit "
				      "burst 2k limit 10k",
				      "test", NULL, NULL, err, sizeof(err)) == 0);
	buf = NULL;
	f = open_memstream(&buf, &len);
	o = (struct tc_show_opts){0};
	tc_show_class_opts(s.devs[0], f, &o);
	tc_show_qdisc_opts(s.devs[0], f, &o);
	fclose(f);
	CU_ASSERT_STRING_EQUAL(buf, "class tbf 1:1 parent 1: leaf 40: \n"
				    "class tbf 40:1 parent 40: \n"
				    "qdisc tbf 1: root refcnt 2 rate 2Mbit burst 20Kb lat 38.1ms \n"
				    "qdisc tbf 40: parent 1:1 rate 1Mbit burst 2Kb lat 65.5ms \n");
	free(buf);
	sim_free(&s);
}

static void expect_error(const char *words, const char *want)
{
	struct sim_config cfg;
	struct sim s;
	char tc[512], err[1024];

	snprintf(tc, sizeof(tc), "qdisc add dev eth0 root handle 1: tbf %s", words);
	sim_config_default(&cfg);
	CU_ASSERT_FATAL(sim_init(&s, &cfg) == 0);
	err[0] = 0;
	CU_ASSERT_NOT_EQUAL(tc_run_script(&s, tc, "t.tc", NULL, NULL, err, sizeof(err)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
	if (!strstr(err, want))
		fprintf(stderr, "\n%s\ngot  %s\nwant %s\n", words, err, want);
	sim_free(&s);
}

/* tc 6.1's messages for the same words, each on one line. */
static void test_errors_as_tc(void)
{
	static const char usage[] =
	    "Usage: ... tbf limit BYTES burst BYTES[/BYTES] rate KBPS [ mtu BYTES[/BYTES] ] "
	    "[ peakrate KBPS ] [ latency TIME ] [ overhead BYTES ] [ linklayer TYPE ]";
	char want[512];

	expect_error("rate 1mbit burst 10kb latency 5ns",
		     "tbf: illegal value for \"latency\": \"5ns\"");
	snprintf(want, sizeof(want),
		 "tbf: the \"burst\" parameter is mandatory. tbf: either \"limit\" or \"latency\" "
		 "is required. %s",
		 usage);
	expect_error("rate 1mbit", want);
	snprintf(want, sizeof(want),
		 "tbf: the \"rate\" parameter is mandatory. tbf: the \"burst\" parameter is "
		 "mandatory. tbf: either \"limit\" or \"latency\" is required. %s",
		 usage);
	expect_error("", want);
	expect_error("rate 1mbit burst 10k limit 10k peakrate 2mbit",
		     "tbf: when \"peakrate\" is specified, \"mtu\" must also be specified.");
	expect_error("rate 1mbit burst 10k limit 10k peakrate 1mbit mtu 1500",
		     "RTNETLINK answers: Invalid argument (sch_tbf: peakrate 125000 is lower than "
		     "or equals to rate 125000)");
	expect_error("rate 1mbit burst 10k limit 10k latency 5ms",
		     "tbf: specifying both \"limit\" and \"/latency\" is not allowed");
	expect_error("rate 1mbit burst 10k latency 5ms limit 10k",
		     "tbf: specifying both \"latency\" and \"limit\" is not allowed");
	snprintf(want, sizeof(want), "tbf: unknown parameter \"foo\" %s", usage);
	expect_error("rate 1mbit burst 10k limit 10k foo", want);
	expect_error("rate 1mbit burst 10k/3 limit 10k",
		     "tbf: illegal value for \"burst\": \"10k/3\"");
	expect_error("rate 1xbit burst 10k limit 10k",
		     "tbf: illegal value for \"rate\": \"1xbit\"");
	expect_error("rate 1mbit burst 10bit limit 10k",
		     "tbf: illegal value for \"burst\": \"10bit\"");
	expect_error("rate 1mbit burst 10k limit 0",
		     "tbf: either \"limit\" or \"latency\" is required.");
	expect_error("rate 1mbit burst 10k limit 10k linklayer foo",
		     "tbf: illegal value for \"linklayer\": \"foo\"");
	expect_error("rate 1mbit burst 10k limit 10k overhead 70000",
		     "tbf: illegal value for \"overhead\": \"70000\"");
	expect_error("rate 1mbit rate 2mbit burst 10k limit 1",
		     "tbf: duplicate \"rate\" specification");
	expect_error("rate 1mbit buffer 10k maxburst 10k latency 10s",
		     "tbf: duplicate \"buffer/burst/maxburst\" specification");
	expect_error("rate 1mbit maxburst 10k latency 10s mtu 2000 minburst 3000",
		     "tbf: duplicate \"mtu/minburst\" specification");
	snprintf(want, sizeof(want), "tbf: unknown parameter \"ra\" %s", usage);
	expect_error("ra 1mbit bu 10k la 5ms", want);
	expect_error("rate 1mbit burst 10k limit 10k help", usage);
	expect_error("rate 1mbit burst", "Command line is not complete. Try option \"help\"");
	expect_error("rate 50% burst 10k limit 10k", "not modelled");
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("tbf", NULL, NULL);
	CU_add_test(s, "burst, then the rate (hand schedule)", test_burst_then_rate);
	CU_add_test(s, "burst, then the rate, on a 10mbit wire", test_burst_then_rate_on_a_wire);
	CU_add_test(s, "peakrate paces the burst", test_peakrate);
	CU_add_test(s, "longer than max_size: dropped", test_oversize_dropped);
	CU_add_test(s, "limit: the default bfifo drops", test_limit_drops_in_the_bfifo);
	CU_add_test(s, "prio under tbf", test_prio_child);
	CU_add_test(s, "sfq under tbf", test_sfq_child);
	CU_add_test(s, "tbf under tbf: the inner charges at peek", test_tbf_child);
	CU_add_test(s, "tbf as a prio band", test_tbf_as_a_band);
	CU_add_test(s, "tc qdisc show as tc 6.1", test_show_as_tc);
	CU_add_test(s, "the default child and the class", test_default_child_and_class);
	CU_add_test(s, "tc's errors", test_errors_as_tc);
	return unit_run();
}
