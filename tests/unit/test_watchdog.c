/* test_watchdog.c - the qdisc watchdog and a device that waits for it: a
 * "gate" qdisc (a fifo closed until a time) holds packets, answers NULL and
 * arms its watchdog; the schedules below are computed by hand. */
#include <CUnit/Basic.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "test_src.h"
#include "unit.h"

/* ---- the gate: a fifo that sends nothing before open_at ---- */

struct gate {
	struct pkt_queue q;
	uint64_t open_at;
	int dequeues; /* calls, answered or not */
};

static int gate_enqueue(struct qdisc *q, struct pkt *p)
{
	struct gate *g = q->priv;

	pktq_push_tail(&g->q, p);
	qdisc_enqueued(q, p);
	return NET_XMIT_SUCCESS;
}

static struct pkt *gate_dequeue(struct qdisc *q)
{
	struct gate *g = q->priv;
	struct pkt *p;

	g->dequeues++;
	if (!g->q.head)
		return NULL;
	if (q->env->now(q->env->arg) < g->open_at) {
		q->s.overlimits++;
		qdisc_watchdog_schedule_ns(q, g->open_at);
		return NULL;
	}
	p = pktq_pop_head(&g->q);
	qdisc_dequeued(q, p);
	return p;
}

static const struct pkt *gate_peek(struct qdisc *q)
{
	struct gate *g = q->priv;

	return q->env->now(q->env->arg) < g->open_at ? NULL : g->q.head;
}

static void gate_reset(struct qdisc *q)
{
	struct gate *g = q->priv;
	struct pkt *p;

	while ((p = pktq_pop_head(&g->q))) {
		p->drop = DROP_QDISC_DESTROY;
		q->env->drop(q->env->arg, p);
	}
	q->s.qlen = 0;
	q->s.backlog = 0;
	qdisc_watchdog_cancel(q);
}

static const struct qdisc_ops gate_ops = {
    .id = "gate",
    .priv_size = sizeof(struct gate),
    .enqueue = gate_enqueue,
    .dequeue = gate_dequeue,
    .peek = gate_peek,
    .reset = gate_reset,
};

static struct qdisc *gate_new(struct dev *d, uint32_t handle, uint64_t open_at)
{
	struct qdisc *q = calloc(1, sizeof(*q));
	struct gate *g = calloc(1, sizeof(*g));

	CU_ASSERT_FATAL(q && g);
	g->open_at = open_at;
	q->ops = &gate_ops;
	q->env = &d->env;
	q->priv = g;
	q->handle = handle;
	q->seq = ++d->env.qdisc_seq;
	return q;
}

/* ---- a scripted source and a record of departures ---- */

struct script_pkt {
	uint64_t t;
	uint32_t len;
	uint32_t priority;
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
	test_frame_udp(buf, sp->len, 0x0a000001, 0x0a000002, 40000, 5000, 0);
	p->data = buf;
	p->caplen = p->len = sp->len;
	p->t_ns = sp->t;
	p->priority = sp->priority;
	return 1;
}

#define MAXREC 16
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

/* 1 Mbit/s: 125 bytes take 1 ms on the wire; watchdogs fire latency ns late. */
static struct dev *setup_latency(struct sim *s, struct record *rec, struct script *sc,
				 uint64_t latency)
{
	struct sim_config cfg;
	struct dev *d;
	char err[256];

	sim_config_default(&cfg);
	cfg.rate_bps = 1000000;
	cfg.timer_latency_ns = latency;
	CU_ASSERT_FATAL(sim_init(s, &cfg) == 0);
	CU_ASSERT_FATAL(sim_dev_add(s, "eth0", &d, err, sizeof(err)) == 0);
	rec->obs = (struct sim_observer){.done = on_done, .arg = rec};
	CU_ASSERT_FATAL(sim_observe(s, &rec->obs, err, sizeof(err)) == 0);
	if (sc)
		CU_ASSERT_FATAL(
		    sim_add_source(s, test_src_new(script_gen, sc), d, 0, err, sizeof(err)) == 0);
	return d;
}

static struct dev *setup(struct sim *s, struct record *rec, struct script *sc)
{
	return setup_latency(s, rec, sc, 0);
}

static void check_accounting(const struct sim *s)
{
	char err[512];

	CU_ASSERT_EQUAL(sim_check_accounting(s, err, sizeof(err)), 0);
}

/* Three packets at 0, 0.1 and 0.2 ms behind a gate open at 5 ms: each
 * arrival asks (3 overlimits), the watchdog fires at 5 ms and the device
 * takes them back to back: 5, 6, 7 ms. */
static void test_watchdog_releases_at_its_time(void)
{
	static const struct script_pkt v[] = {{0, 125, 0}, {100000, 125, 0}, {200000, 125, 0}};
	struct script sc = {v, 3, 0};
	struct record rec = {0};
	struct sim s;
	struct dev *d = setup(&s, &rec, &sc);
	struct qdisc *g = gate_new(d, 0x10000, 5000000);

	dev_set_root(d, g);
	CU_ASSERT_EQUAL(sim_run_until(&s, 4999999), 0);
	CU_ASSERT_EQUAL(rec.n, 0);
	CU_ASSERT_EQUAL(g->s.qlen, 3);
	CU_ASSERT(g->wd.pending && g->wd.expires == 5000000);
	check_accounting(&s); /* held packets count as queued */
	CU_ASSERT_EQUAL(sim_run(&s), 0);
	CU_ASSERT_EQUAL_FATAL(rec.n, 3);
	CU_ASSERT_EQUAL(rec.dq[0], 5000000);
	CU_ASSERT_EQUAL(rec.dq[1], 6000000);
	CU_ASSERT_EQUAL(rec.dq[2], 7000000);
	CU_ASSERT_EQUAL(g->s.overlimits, 3);
	CU_ASSERT_FALSE(g->wd.pending);
	check_accounting(&s);
	sim_free(&s);
}

/* --timer-latency 30us: the gate's watchdog, armed for 5 ms, fires at
 * 5.03 ms and the three packets leave back to back from there; a re-arm
 * for the same time keeps it, and a time already past fires 30 us from
 * now, as a kernel timer raised at once still waits for its softirq. */
static void test_timer_latency(void)
{
	static const struct script_pkt v[] = {{0, 125, 0}, {100000, 125, 0}, {200000, 125, 0}};
	struct script sc = {v, 3, 0};
	struct record rec = {0};
	struct sim s;
	struct dev *d = setup_latency(&s, &rec, &sc, 30000);
	struct qdisc *g = gate_new(d, 0x10000, 5000000);
	uint64_t id;

	dev_set_root(d, g);
	CU_ASSERT_EQUAL(sim_run_until(&s, 1000000), 0);
	CU_ASSERT(g->wd.pending && g->wd.expires == 5030000);
	id = g->wd.id;
	qdisc_watchdog_schedule_ns(g, 5000000);
	CU_ASSERT_EQUAL(g->wd.id, id);
	CU_ASSERT_EQUAL(sim_run_until(&s, 5029999), 0);
	CU_ASSERT_EQUAL(rec.n, 0);
	CU_ASSERT_EQUAL(sim_run(&s), 0);
	CU_ASSERT_EQUAL_FATAL(rec.n, 3);
	CU_ASSERT_EQUAL(rec.dq[0], 5030000);
	CU_ASSERT_EQUAL(rec.dq[1], 6030000);
	CU_ASSERT_EQUAL(rec.dq[2], 7030000);
	check_accounting(&s);
	qdisc_watchdog_schedule_ns(g, 100);
	CU_ASSERT_EQUAL(g->wd.expires, s.now + 30000);
	/* saturates rather than wrapping */
	qdisc_watchdog_schedule_ns(g, UINT64_MAX - 10);
	CU_ASSERT_EQUAL(g->wd.expires, UINT64_MAX);
	qdisc_watchdog_cancel(g);
	sim_free(&s);
}

/* The kernel's re-arm: an equal time keeps the armed event, another time
 * (earlier or later) replaces it, and the replaced one fires nothing. */
static void test_rearm_rules(void)
{
	struct record rec = {0};
	struct sim s;
	struct dev *d = setup(&s, &rec, NULL);
	struct qdisc *g = gate_new(d, 0x10000, 0);
	struct gate *gp = g->priv;
	uint64_t id;

	dev_set_root(d, g);
	qdisc_watchdog_schedule_ns(g, 3000);
	id = g->wd.id;
	qdisc_watchdog_schedule_ns(g, 3000);
	CU_ASSERT_EQUAL(g->wd.id, id); /* equal: not re-armed */
	qdisc_watchdog_schedule_ns(g, 2000);
	CU_ASSERT_NOT_EQUAL(g->wd.id, id);
	CU_ASSERT_EQUAL(g->wd.expires, 2000);
	qdisc_watchdog_schedule_ns(g, 4000); /* later replaces too */
	CU_ASSERT_EQUAL(g->wd.expires, 4000);
	/* three events in the heap, only the 4000 one kicks the device */
	CU_ASSERT_EQUAL(sim_run_until(&s, 3999), 0);
	CU_ASSERT_EQUAL(gp->dequeues, 0);
	CU_ASSERT(g->wd.pending);
	CU_ASSERT_EQUAL(sim_run_until(&s, 4000), 0);
	CU_ASSERT_EQUAL(gp->dequeues, 1);
	CU_ASSERT_FALSE(g->wd.pending);
	/* cancelled: nothing fires */
	qdisc_watchdog_schedule_ns(g, 9000);
	qdisc_watchdog_cancel(g);
	CU_ASSERT_EQUAL(sim_run_until(&s, 20000), 0);
	CU_ASSERT_EQUAL(gp->dequeues, 1);
	/* a time already past fires at the next step, not back in time */
	qdisc_watchdog_schedule_ns(g, 100);
	CU_ASSERT_EQUAL(g->wd.expires, 20000);
	CU_ASSERT_EQUAL(sim_run_until(&s, 20000), 0);
	CU_ASSERT_EQUAL(gp->dequeues, 2);
	sim_free(&s);
}

/* A gate replaced while it waits: its packets are dropped and its armed
 * watchdog must not fire (the qdisc is freed; ASan would see it). */
static void test_destroyed_does_not_fire(void)
{
	static const struct script_pkt v[] = {{0, 125, 0}, {10000000, 125, 0}};
	struct script sc = {v, 2, 0};
	struct record rec = {0};
	struct sim s;
	struct dev *d = setup(&s, &rec, &sc);
	struct qdisc *g = gate_new(d, 0x10000, 5000000), *g2;

	dev_set_root(d, g);
	CU_ASSERT_EQUAL(sim_run_until(&s, 1000000), 0);
	CU_ASSERT(g->wd.pending);
	g2 = gate_new(d, 0x20000, 0);
	dev_set_root(d, g2); /* destroys g with its watchdog armed for 5 ms */
	CU_ASSERT_EQUAL(sim_run(&s), 0);
	CU_ASSERT_EQUAL_FATAL(rec.n, 2);
	CU_ASSERT_EQUAL(rec.drop[0], DROP_QDISC_DESTROY);
	CU_ASSERT_EQUAL(rec.dq[1], 10000000);
	CU_ASSERT_EQUAL(((struct gate *)g2->priv)->dequeues, 2); /* arrival, tx end */
	check_accounting(&s);
	sim_free(&s);
}

/* prio over a closed gate (band 0) and a pfifo (band 1): prio's dequeue
 * passes over the band that answers NULL though it holds a packet, as the
 * kernel's does; the gate's packet leaves when its watchdog fires. */
static void test_prio_passes_over_waiting_band(void)
{
	static const struct script_pkt v[] = {
	    {0, 125, 0x10001}, {100000, 125, 0x10002}, {200000, 125, 0x10002}};
	struct script sc = {v, 3, 0};
	struct record rec = {0};
	struct sim s;
	struct dev *d = setup(&s, &rec, &sc);
	struct qdisc *prio, *g;
	char err[256];

	CU_ASSERT_FATAL(qdisc_create(&prio, "prio", &d->env, 0x10000, TC_H_ROOT, 0, NULL, err,
				     sizeof(err)) == 0);
	dev_set_root(d, prio);
	g = gate_new(d, 0x20000, 1500000);
	CU_ASSERT_FATAL(prio->ops->graft(prio, 0x10001, g, err, sizeof(err)) == 0);
	CU_ASSERT_EQUAL(sim_run(&s), 0);
	CU_ASSERT_EQUAL_FATAL(rec.n, 3);
	/* band 1's packets at 0.1 ms and 1.1 ms; the gate's at 2.1 ms: at
	 * 1.5 ms the wire is busy, the transmission end at 2.1 ms takes it */
	CU_ASSERT_EQUAL(rec.id[0], 2);
	CU_ASSERT_EQUAL(rec.dq[0], 100000);
	CU_ASSERT_EQUAL(rec.id[1], 3);
	CU_ASSERT_EQUAL(rec.dq[1], 1100000);
	CU_ASSERT_EQUAL(rec.id[2], 1);
	CU_ASSERT_EQUAL(rec.dq[2], 2100000);
	CU_ASSERT_EQUAL(prio->s.qlen, 0);
	check_accounting(&s);
	sim_free(&s);
}

/* A silence of 1000 s with an sfq perturbing every second and a stale
 * watchdog event in the heap: applying the idle run at once gives the
 * same generator, sequence and departures as stepping through it. */
struct idle_outcome {
	uint64_t next_seq, steps, dq_last;
	struct rng rng;
};

static void idle_run(int step, struct idle_outcome *o)
{
	static const struct script_pkt v[] = {{0, 125, 0x10001}, {1000000000000ull, 125, 0x10002}};
	struct script sc = {v, 2, 0};
	struct record rec = {0};
	struct sim s;
	struct dev *d;
	struct qdisc *prio, *g, *sfq;
	char err[256], *sfq_argv[] = {"perturb", "1"};

	d = setup(&s, &rec, &sc);
	s.cfg.step_idle = step;
	CU_ASSERT_FATAL(qdisc_create(&prio, "prio", &d->env, 0x10000, TC_H_ROOT, 0, NULL, err,
				     sizeof(err)) == 0);
	dev_set_root(d, prio);
	g = gate_new(d, 0x20000, 5000000);
	CU_ASSERT_FATAL(prio->ops->graft(prio, 0x10001, g, err, sizeof(err)) == 0);
	CU_ASSERT_FATAL(qdisc_create(&sfq, "sfq", &d->env, 0x30000, 0x10002, 2, sfq_argv, err,
				     sizeof(err)) == 0);
	CU_ASSERT_FATAL(prio->ops->graft(prio, 0x10002, sfq, err, sizeof(err)) == 0);
	CU_ASSERT_EQUAL(sim_run_until(&s, 1000000), 0);
	CU_ASSERT(g->wd.pending && g->wd.expires == 5000000);
	/* opened early: re-armed for now, the 5 ms event goes stale */
	((struct gate *)g->priv)->open_at = 2000000;
	qdisc_watchdog_schedule_ns(g, 2000000);
	CU_ASSERT_EQUAL(sim_run(&s), 0);
	CU_ASSERT_EQUAL_FATAL(rec.n, 2);
	CU_ASSERT_EQUAL(rec.dq[0], 2000000);
	CU_ASSERT_EQUAL(rec.dq[1], 1000000000000ull);
	o->next_seq = s.next_seq;
	o->steps = s.steps;
	o->rng = s.rng;
	o->dq_last = rec.dq[1];
	check_accounting(&s);
	sim_free(&s);
}

static void test_idle_skip_with_stale_watchdog(void)
{
	struct idle_outcome a, b;

	idle_run(0, &a);
	idle_run(1, &b);
	CU_ASSERT_EQUAL(a.next_seq, b.next_seq);
	CU_ASSERT_EQUAL(memcmp(&a.rng, &b.rng, sizeof(a.rng)), 0);
	CU_ASSERT_EQUAL(a.dq_last, b.dq_last);
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("watchdog", NULL, NULL);
	CU_add_test(s, "a held packet leaves when the watchdog fires",
		    test_watchdog_releases_at_its_time);
	CU_add_test(s, "re-arm: equal keeps, other replaces, cancel", test_rearm_rules);
	CU_add_test(s, "--timer-latency: a watchdog fires that late", test_timer_latency);
	CU_add_test(s, "a destroyed qdisc's watchdog does not fire", test_destroyed_does_not_fire);
	CU_add_test(s, "prio passes over a band that waits", test_prio_passes_over_waiting_band);
	CU_add_test(s, "idle skip equals stepping with a stale watchdog",
		    test_idle_skip_with_stale_watchdog);
	return unit_run();
}
