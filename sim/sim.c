/* sim.c - the simulation value: one clock, one event queue, devices that
 * transmit at their line rate, sources read one packet ahead.
 *
 * Simultaneous events run in a fixed order: first every transmission that
 * completes at that instant (the device dequeues its next packet at once),
 * then qdisc timers (sfq perturbation, watchdogs), then arrivals; within a
 * kind, in the order they were scheduled. So a packet arriving exactly when
 * the wire frees finds the device already busy with the next queued packet,
 * if there is one. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

/* Only the timers qdiscs arm (sfq's perturbation) live in the heap: a device's transmission end, a
 * source's next arrival and a qdisc's watchdog are kept by the device, the
 * source and the qdisc (there is at most one of each), but all share the
 * heap's order. */
enum ev_kind { EV_TX_DONE = 0, EV_TIMER = 1, EV_ARRIVAL = 2 };

struct event {
	uint64_t t;
	uint64_t seq;
	enum ev_kind kind;
	void *obj; /* dev (TX_DONE), qdisc (TIMER), sim_source (ARRIVAL) */
	struct dev *dev;
};

struct ev_heap {
	struct event *v;
	size_t n, cap;
};

static int ev_before(const struct event *a, const struct event *b)
{
	if (a->t != b->t)
		return a->t < b->t;
	if (a->kind != b->kind)
		return a->kind < b->kind;
	return a->seq < b->seq;
}

static int ev_push(struct sim *s, uint64_t t, enum ev_kind kind, void *obj, struct dev *d)
{
	struct ev_heap *h = s->events;
	size_t i;

	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 64;
		struct event *v = realloc(h->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		h->v = v;
		h->cap = cap;
	}
	i = h->n++;
	h->v[i] = (struct event){.t = t, .seq = s->next_seq++, .kind = kind, .obj = obj, .dev = d};
	if (kind != EV_TIMER)
		s->work_events++;
	while (i > 0 && ev_before(&h->v[i], &h->v[(i - 1) / 2])) {
		struct event tmp = h->v[i];

		h->v[i] = h->v[(i - 1) / 2];
		h->v[(i - 1) / 2] = tmp;
		i = (i - 1) / 2;
	}
	return 0;
}

static void ev_sift_down(struct ev_heap *h, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < h->n && ev_before(&h->v[l], &h->v[m]))
			m = l;
		if (r < h->n && ev_before(&h->v[r], &h->v[m]))
			m = r;
		if (m == i)
			break;
		struct event tmp = h->v[i];

		h->v[i] = h->v[m];
		h->v[m] = tmp;
		i = m;
	}
}

static struct event ev_pop(struct ev_heap *h)
{
	struct event top = h->v[0];

	h->v[0] = h->v[--h->n];
	ev_sift_down(h, 0);
	return top;
}

static void sim_fail(struct sim *s, int code, const char *fmt, ...)
{
	va_list ap;

	if (s->failed)
		return;
	s->failed = code;
	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
}

void sim_config_default(struct sim_config *c)
{
	memset(c, 0, sizeof(*c));
	c->seed = 1;
	c->kernel = BPF_KERNEL_CURRENT;
	c->rate_bps = 10000000; /* 10 Mbit/s: queues build with real traffic */
	c->mtu = 1500;
	c->txqueuelen = 1000;
	c->spill_after = PKT_SPILL_AFTER;
	(void)pkt_spill_after_env(&c->spill_after, NULL, 0); /* a bad value: main.c said so */
}

int sim_init(struct sim *s, const struct sim_config *cfg)
{
	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	rng_seed(&s->rng, cfg->seed);
	s->qdisc_autohandle = 0x80000000u;
	s->events = calloc(1, sizeof(*s->events));
	return s->events ? 0 : -ENOMEM;
}

/* ---- the device's qdisc environment ---- */

static uint64_t env_now(void *arg)
{
	return ((struct dev *)arg)->sim->now;
}

static uint64_t env_random(void *arg)
{
	return rng_u64(&((struct dev *)arg)->sim->rng);
}

static void record_verdict(struct dev *d, const struct pkt *p)
{
	if (stats_classified(&d->st, p))
		sim_fail(d->sim, -ENOMEM, "out of memory");
}

static void env_classified(void *arg, const struct pkt *p)
{
	struct dev *d = arg;

	d->classified = 1;
	record_verdict(d, p);
}

static void finish(struct dev *d, struct pkt *p)
{
	if (d->sim->nwatch_done)
		sim_obs_done(d, p);
	pkt_free(p);
}

static void env_drop(void *arg, struct pkt *p)
{
	struct dev *d = arg;

	if (d->tearing_down) {
		pkt_free(p);
		return;
	}
	if (p->traced)
		sim_obs_drop(d, p);
	if (stats_dropped(&d->st, p))
		sim_fail(d->sim, -ENOMEM, "out of memory");
	finish(d, p);
}

/* netem's skb_clone: a packet of its own (id, record, data), of the same
 * source and capture number, counted as a duplicate rather than an arrival */
static struct pkt *env_clone(void *arg, const struct pkt *p)
{
	struct dev *d = arg;
	struct pkt *c = pkt_pool_new(&d->sim->pool, p->data, p->caplen, p->len);

	if (!c) {
		sim_fail(d->sim, -ENOMEM, "out of memory");
		return NULL;
	}
	pkt_copy_fields(c, p);
	c->next = c->prev = NULL;
	c->id = ++d->sim->next_pkt_id;
	d->st.duplicated++;
	return c;
}

/* a long fifo could not use its temporary file: the run stops */
static void env_spill_fail(void *arg, int err, const char *msg)
{
	struct dev *d = arg;

	sim_fail(d->sim, err, "%s: %s", d->name, msg);
}

static void env_arm_timer(void *arg, struct qdisc *q, uint64_t at)
{
	struct dev *d = arg;

	if (ev_push(d->sim, at, EV_TIMER, q, d))
		sim_fail(d->sim, -ENOMEM, "out of memory");
}

/* ---- watchdogs ----
 *
 * A shaper (tbf, htb) re-arms its watchdog on nearly every dequeue that
 * finds it throttled. As a heap event each re-arm was a push, and the
 * replaced event stayed behind to be popped for nothing; so, like a
 * device's transmission end, a watchdog is kept by its qdisc: q->wd holds
 * the pending expiry and its id, the sequence number a heap event armed
 * then would have had, and it ranks among simultaneous events as a qdisc
 * timer of that sequence number, exactly where that event stood. s->wds
 * lists every qdisc that has armed one (q->wd.env_slot is 1 + its index);
 * the earliest pending is cached and found again by a scan only when it
 * fired, was re-armed or cancelled, or a qdisc left. */

/* Is the pending watchdog at (t, id) before q's? */
static int wd_before(uint64_t t, uint64_t id, const struct qdisc *q)
{
	if (t != q->wd.expires)
		return t < q->wd.expires;
	return id < q->wd.id;
}

/* The qdisc whose watchdog fires first, or NULL. */
static struct sim_wd *next_watchdog(struct sim *s)
{
	/* qdisc_watchdog_cancel does not tell the env: a cancelled first one
	 * is seen here */
	if (s->wd_min_ok && s->wd_min >= 0 && !s->wds[s->wd_min].q->wd.pending)
		s->wd_min_ok = 0;
	if (!s->wd_min_ok) {
		s->wd_min = -1;
		for (int i = 0; i < s->nwds; i++) {
			const struct qdisc *q = s->wds[i].q;

			if (q->wd.pending &&
			    (s->wd_min < 0 || wd_before(q->wd.expires, q->wd.id, s->wds[s->wd_min].q)))
				s->wd_min = i;
		}
		s->wd_min_ok = 1;
	}
	return s->wd_min < 0 ? NULL : &s->wds[s->wd_min];
}

/* Arms q's watchdog (q->wd.expires is at already; the id returned is its
 * q->wd.id). The sequence number is taken now, as ev_push would. */
static uint64_t env_watchdog(void *arg, struct qdisc *q, uint64_t at)
{
	struct dev *d = arg;
	struct sim *s = d->sim;
	uint64_t id = s->next_seq++;

	if (!q->wd.env_slot) {
		if (s->nwds == s->wds_cap) {
			int cap = s->wds_cap ? s->wds_cap * 2 : 8;
			struct sim_wd *v = realloc(s->wds, (size_t)cap * sizeof(*v));

			if (!v) {
				sim_fail(s, -ENOMEM, "out of memory");
				return id;
			}
			s->wds = v;
			s->wds_cap = cap;
		}
		s->wds[s->nwds++] = (struct sim_wd){.q = q, .d = d};
		q->wd.env_slot = s->nwds;
	}
	if (s->wd_min_ok) {
		if (s->wd_min >= 0 && s->wds[s->wd_min].q == q)
			s->wd_min_ok = 0; /* the first one moved, maybe later */
		else if (s->wd_min < 0 || wd_before(at, id, s->wds[s->wd_min].q))
			s->wd_min = q->wd.env_slot - 1;
	}
	return id;
}

/* A destroyed qdisc's timers stay in the heap as void events;
 * its watchdog leaves the list. */
static void env_cancel_timers(void *arg, const struct qdisc *q)
{
	struct sim *s = ((struct dev *)arg)->sim;
	struct ev_heap *h = s->events;

	for (size_t i = 0; i < h->n; i++)
		if (h->v[i].kind == EV_TIMER && h->v[i].obj == q)
			h->v[i].obj = NULL;
	if (q->wd.env_slot) {
		int i = q->wd.env_slot - 1;

		s->wds[i] = s->wds[--s->nwds];
		if (i < s->nwds)
			s->wds[i].q->wd.env_slot = i + 1;
		s->wd_min_ok = 0;
	}
}

struct dev *sim_dev_find(struct sim *s, const char *name)
{
	for (int i = 0; i < s->ndevs; i++)
		if (!strcmp(s->devs[i]->name, name))
			return s->devs[i];
	return NULL;
}

int sim_dev_add(struct sim *s, const char *name, struct dev **out, char *err, size_t errlen)
{
	struct dev *d;

	if (strlen(name) == 0 || strlen(name) >= DEV_NAMELEN) {
		snprintf(err, errlen, "\"%s\" is not a valid device name (1..%d characters)", name,
			 DEV_NAMELEN - 1);
		return -EINVAL;
	}
	if (sim_dev_find(s, name)) {
		snprintf(err, errlen, "device \"%s\" exists", name);
		return -EEXIST;
	}
	if (s->ndevs == SIM_MAX_DEVS) {
		snprintf(err, errlen, "too many devices (at most %d)", SIM_MAX_DEVS);
		return -ENOSPC;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		goto nomem;
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->sim = s;
	d->ifindex = (uint32_t)s->ndevs + 2; /* 1 is lo */
	d->rate_bps = s->cfg.rate_bps;
	d->overhead = s->cfg.overhead;
	d->mtu = s->cfg.mtu;
	d->txqueuelen = s->cfg.txqueuelen;
	d->delay_ns = s->cfg.delay_ns;
	d->env = (struct qdisc_env){
		.ifindex = d->ifindex,
		.mtu = d->mtu + 14,
		.hard_header_len = 14,
		.tx_queue_len = d->txqueuelen,
		.kernel = s->cfg.kernel,
		.sfq_allot_bytes = s->cfg.sfq_allot_bytes,
		.sfq_hash_random = s->cfg.sfq_hash_random,
		.timer_latency_ns = s->cfg.timer_latency_ns,
		.now = env_now,
		.drop = env_drop,
		.random = env_random,
		.arm_timer = env_arm_timer,
		.watchdog = env_watchdog,
		.cancel_timers = env_cancel_timers,
		.classified = env_classified,
		.clone = env_clone,
		.root = &d->root,
		.arg = d,
		.tracer = s->qtracer,
		.spill = {.after = s->cfg.spill_after, .fail = env_spill_fail, .arg = d},
	};
	{
		char e[256];

		if (qdisc_create(&d->root, "pfifo_fast", &d->env, 0, TC_H_ROOT, 0, NULL, e, sizeof(e)))
			goto nomem;
	}
	d->root->invisible = 0;
	s->devs[s->ndevs++] = d;
	if (out)
		*out = d;
	return 0;
nomem:
	free(d);
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

void dev_set_root(struct dev *d, struct qdisc *root)
{
	struct qdisc *old = d->root;

	root->parent_q = NULL;
	root->parent = TC_H_ROOT;
	d->root = root;
	qdisc_destroy(old);
}

/* Keeps qdisc_env in step with the device's settings. */
void dev_sync_env(struct dev *d)
{
	d->env.mtu = d->mtu + d->env.hard_header_len;
	d->env.tx_queue_len = d->txqueuelen;
}

/* A source's next arrival waits in the source itself, not in the heap:
 * it is the most frequent event, and there are few sources to compare. It
 * takes its sequence number now, as a heap event would. */
static void schedule_arrival(struct sim *s, struct sim_source *ss)
{
	ss->pending = 1;
	ss->seq = s->next_seq++;
	s->work_events++;
}

/* The source whose arrival comes first, or NULL. */
static struct sim_source *next_arrival(struct sim *s)
{
	struct sim_source *best = NULL;

	for (int i = 0; i < s->nsrcs; i++) {
		struct sim_source *ss = &s->srcs[i];

		if (ss->pending && (!best || ss->next.t_ns < best->next.t_ns ||
				    (ss->next.t_ns == best->next.t_ns && ss->seq < best->seq)))
			best = ss;
	}
	return best;
}

int sim_add_source(struct sim *s, struct source *src, struct dev *d, int vlan_inline,
		   char *err, size_t errlen)
{
	struct sim_source *ss;
	int r;

	if (s->nsrcs == SIM_MAX_SOURCES) {
		snprintf(err, errlen, "too many sources (at most %d)", SIM_MAX_SOURCES);
		src->ops->close(src);
		return -ENOSPC;
	}
	ss = &s->srcs[s->nsrcs++];
	memset(ss, 0, sizeof(*ss));
	ss->src = src;
	ss->dev = d;
	ss->vlan_inline = vlan_inline;
	r = src->ops->next(src, &ss->next, err, errlen);
	if (r < 0)
		return r;
	if (r == 0) {
		ss->done = 1;
		return 0;
	}
	ss->has_next = 1;
	schedule_arrival(s, ss);
	return 0;
}

/* ---- the device ---- */

/* An offloaded VLAN tag is not in qdisc_pkt_len, but the NIC puts its four
 * bytes back on the wire. */
static uint64_t tx_time(struct dev *d, const struct pkt *p)
{
	uint32_t wire = p->len + d->overhead + (p->vlan_present ? 4u : 0u);
	uint64_t bits = (uint64_t)wire * 8u * 1000000000u; /* fits: frames are < 2^18 bytes */
	uint64_t rate = d->rate_bps, q, r;

	if (!rate)
		return 0;
	/* bits / rate without a division: with m = floor((2^64 - 1) / rate),
	 * floor(bits * m / 2^64) is the quotient or one less (two less at
	 * most for any 64-bit bits); the loop makes it exact */
	if (d->tx_rate != rate) {
		d->tx_rate = rate;
		d->tx_rate_inv = UINT64_MAX / rate;
	}
	q = (uint64_t)(((unsigned __int128)bits * d->tx_rate_inv) >> 64);
	r = bits - q * rate;
	while (r >= rate) {
		q++;
		r -= rate;
	}
	return q + (r != 0); /* rounded up */
}

/* An idle device takes the next packet at once. A shaper may hold packets
 * and still answer NULL: it has armed its watchdog, whose firing kicks the
 * device again. */
static void dev_start(struct dev *d, struct pkt *p)
{
	p->t_dequeue = d->sim->now;
	d->on_wire = p;
	/* the EV_TX_DONE event, kept by the device (see next_tx_done) */
	d->tx_done_t = d->sim->now + tx_time(d, p);
	d->tx_done_seq = d->sim->next_seq++;
	d->sim->work_events++;
	if (p->traced)
		sim_obs_dequeue(d, p);
}

static void dev_kick(struct dev *d)
{
	struct pkt *p;

	if (d->on_wire)
		return;
	p = d->root->ops->dequeue(d->root);
	if (p)
		dev_start(d, p);
}

/* __dev_xmit_skb's bypass: a root with TCQ_F_CAN_BYPASS (codel, fq_codel)
 * that holds nothing, on an idle device, sends the packet at once without
 * enqueueing it (no classification, no flow state), counting it in its
 * bstats only. A noqueue root sends whatever finds the wire free; the
 * rest its enqueue drops. */
static int dev_bypass(struct dev *d, struct pkt *p)
{
	struct qdisc *q = d->root;

	if (q->ops->no_queue && !d->on_wire) {
		dev_start(d, p); /* no qdisc: straight to the driver, counted nowhere */
		return 1;
	}
	if (!q->ops->can_bypass || q->s.qlen || d->on_wire || !q->ops->can_bypass(q))
		return 0;
	q->s.packets++;
	q->s.bytes += p->len;
	dev_start(d, p);
	return 1;
}

/* The device whose transmission ends first, or NULL. */
static struct dev *next_tx_done(struct sim *s)
{
	struct dev *best = NULL;

	for (int i = 0; i < s->ndevs; i++) {
		struct dev *d = s->devs[i];

		if (d->on_wire &&
		    (!best || d->tx_done_t < best->tx_done_t ||
		     (d->tx_done_t == best->tx_done_t && d->tx_done_seq < best->tx_done_seq)))
			best = d;
	}
	return best;
}

static void dev_tx_done(struct dev *d)
{
	struct pkt *p = d->on_wire;

	d->on_wire = NULL;
	p->t_depart = d->sim->now + d->delay_ns;
	if (p->traced)
		sim_obs_tx_end(d, p);
	if (stats_sent(&d->st, p))
		sim_fail(d->sim, -ENOMEM, "out of memory");
	finish(d, p);
	dev_kick(d);
}

static void arrival(struct sim *s, struct sim_source *ss)
{
	struct dev *d = ss->dev;
	struct src_packet *sp = &ss->next;
	struct pkt *p;
	char err[512];
	int r;

	d->st.arrived++;
	if (d->st.arrived == 1)
		d->st.first_arrival = s->now;
	ss->read++;
	if (stats_source_arrived(&d->st, (int)(ss - s->srcs), ss->src->name, sp->reject != NULL)) {
		sim_fail(s, -ENOMEM, "out of memory");
		return;
	}
	if (sp->reject) {
		stats_rejected(&d->st, sp->reject);
		if (s->followers)
			sim_obs_reject(d, (int)(ss - s->srcs), sp->seq, sp->data, sp->caplen, sp->len,
				       sp->reject);
	} else if (!(p = pkt_pool_new(&s->pool, sp->data, sp->caplen, sp->len))) {
		sim_fail(s, -ENOMEM, "out of memory");
		return;
	} else {
		if (!ss->vlan_inline)
			pkt_vlan_offload(p);
		p->priority = sp->priority;
		p->mark = sp->mark;
		p->id = ++s->next_pkt_id;
		p->source = (int)(ss - s->srcs);
		p->src_seq = sp->seq;
		p->t_arrive = s->now;
		p->leaf_classid = d->root->handle; /* a classful root names the class */
		if (s->followers)
			sim_obs_arrival(d, p, sp->data, sp->caplen, sp->len);
		d->classified = 0;
		if (!dev_bypass(d, p))
			d->root->ops->enqueue(d->root, p);
		if (!d->classified) {
			/* the root does not classify: nothing decided the class */
			static const struct pkt unclassified = {.verdict = VERDICT_NONE};

			record_verdict(d, &unclassified);
		}
		if (s->followers)
			sim_obs_arrival_done(d);
		dev_kick(d);
	}
	r = ss->src->ops->next(ss->src, sp, err, sizeof(err));
	if (r < 0) {
		sim_fail(s, r, "%s", err);
		return;
	}
	if (r == 0) {
		ss->has_next = 0;
		ss->done = 1;
		return;
	}
	if (sp->t_ns < s->now)
		sp->t_ns = s->now; /* sources never go back in time */
	schedule_arrival(s, ss);
}

/* Every class of the root gets a report row, packets or not. */
static void cover_class(void *arg, const struct qdisc_class *c)
{
	struct dev *d = arg;

	if (!stats_class(&d->st, c->classid))
		sim_fail(d->sim, -ENOMEM, "out of memory");
}

static void cover_root_classes(struct dev *d)
{
	if (d->root->ops->walk)
		d->root->ops->walk(d->root, cover_class, d);
	else if (!stats_class(&d->st, d->root->handle))
		sim_fail(d->sim, -ENOMEM, "out of memory");
}

static int sim_idle(const struct sim *s)
{
	for (int i = 0; i < s->ndevs; i++)
		if (dev_queued(s->devs[i]))
			return 0;
	return 1;
}

/* ---- idle time ----
 *
 * With nothing queued anywhere, a qdisc's periodic timer (sfq's
 * perturbation) changes nothing but its one random draw per firing. Over a
 * long silence (a capture with a gap of years) stepping through those
 * firings one by one costs tens of millions of events; instead the whole
 * run of firings up to the next arrival is applied at once. Each timer i,
 * due first at t_i with period P_i, fires n_i times up to `end`; its last
 * firing L_i has a rank among all N firings of the run, in the order
 * stepping would take them (time, then arming order); the generator is a
 * counter, so that firing's draw is the one N..rank places on, and each
 * last firing runs for real with exactly that draw and the sequence number
 * its re-arm would have had. The results are byte-identical to stepping
 * (sim_config.step_idle, which the tests compare with). */
struct idle_timer {
	struct qdisc *q;
	struct dev *d;
	uint64_t t, seq, period, n, last, rank;
};

/* Does timer a's firing at time at (both a and b fire then) come before
 * b's? Stepping orders them by the sequence number of their arming: one
 * armed before the run (its first firing of the run) goes first, and of
 * two such, the older; of two re-armed ones, the one armed earlier, at its
 * previous firing at - period: the longer period. With equal periods both
 * were re-armed together, back to the later first firing of the two. */
static int idle_first(const struct idle_timer *a, const struct idle_timer *b, uint64_t at)
{
	int fa = at == a->t, fb = at == b->t;

	if (fa && fb)
		return a->seq < b->seq;
	if (fa || fb)
		return fa;
	if (a->period != b->period)
		return a->period > b->period;
	if (a->t != b->t)
		return a->t > b->t; /* at the later first firing, the other was re-armed */
	return a->seq < b->seq;
}

/* Firings of j ordered before i's last one. */
static uint64_t idle_before(const struct idle_timer *j, const struct idle_timer *i)
{
	uint64_t at = i->last, n;

	if (j->t >= at)
		n = 0;
	else
		n = (at - 1 - j->t) / j->period + 1;
	if (j->t <= at && (at - j->t) % j->period == 0 && (at - j->t) / j->period < j->n &&
	    idle_first(j, i, at))
		n++;
	return n;
}

static int idle_rank_cmp(const void *a, const void *b)
{
	const struct idle_timer *x = a, *y = b;

	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Applies every timer firing due up to and including `end` (the sim is
 * idle until then). 1 when it did; 0 when some timer due by then is not an
 * idle-periodic one, or there is nothing to gain (the caller steps). */
static int skip_idle_timers(struct sim *s, uint64_t end)
{
	struct ev_heap *h = s->events;
	struct idle_timer *v;
	size_t k = 0, kept = 0;
	uint64_t total = 0, base_seq = s->next_seq;
	struct rng r0 = s->rng;

	for (int i = 0; i < s->nwds; i++)
		if (s->wds[i].q->wd.pending && s->wds[i].q->wd.expires <= end)
			return 0; /* a shaper waits: not an idle timer */
	for (size_t i = 0; i < h->n; i++) {
		const struct event *e = &h->v[i];
		struct qdisc *q = e->obj;

		if (e->kind != EV_TIMER || e->t > end || !q)
			continue;
		if (!q->ops->idle_period || !q->ops->idle_period(q))
			return 0;
		k++;
	}
	if (!k)
		return 0;
	v = calloc(k, sizeof(*v));
	if (!v)
		return 0;
	k = 0;
	for (size_t i = 0; i < h->n; i++) {
		const struct event *e = &h->v[i];
		struct idle_timer *it;

		if (e->kind != EV_TIMER || e->t > end) {
			h->v[kept++] = *e;
			continue;
		}
		if (!e->obj)
			continue; /* destroyed: stepping pops it for nothing */
		it = &v[k++];
		it->q = e->obj;
		it->d = e->dev;
		it->t = e->t;
		it->seq = e->seq;
		it->period = it->q->ops->idle_period(it->q);
		it->n = (end - it->t) / it->period + 1;
		it->last = it->t + (it->n - 1) * it->period;
		total += it->n;
	}
	h->n = kept;
	for (size_t i = h->n / 2; i-- > 0;) /* heapify what is left */
		ev_sift_down(h, i);
	for (size_t i = 0; i < k; i++) {
		v[i].rank = v[i].n; /* its own firings, the last included */
		for (size_t j = 0; j < k; j++)
			if (j != i)
				v[i].rank += idle_before(&v[j], &v[i]);
	}
	qsort(v, k, sizeof(*v), idle_rank_cmp);
	for (size_t i = 0; i < k; i++) {
		struct idle_timer *it = &v[i];

		s->now = it->last;
		s->rng = r0;
		rng_skip(&s->rng, it->rank - 1);
		s->next_seq = base_seq + it->rank - 1;
		it->q->ops->timer(it->q);
		dev_kick(it->d);
	}
	s->rng = r0;
	rng_skip(&s->rng, total);
	s->next_seq = base_seq + total;
	free(v);
	return 1;
}

int sim_run_until(struct sim *s, uint64_t until)
{
	/* the classes' accounting batched while the run goes (stats.h) */
	for (int i = 0; i < s->ndevs; i++)
		stats_defer_begin(&s->devs[i]->st);
	for (;;) {
		struct sim_source *ss = next_arrival(s);
		struct dev *tx = next_tx_done(s);
		struct sim_wd *wd = next_watchdog(s);
		struct event e, next;
		enum { NEXT_NONE, NEXT_TX, NEXT_HEAP, NEXT_WD } from = NEXT_NONE;

		if (s->failed)
			break;
		if (s->poll && !(++s->steps % SIM_POLL_EVERY)) {
			char perr[sizeof(s->err)];
			int pr = s->poll(s->poll_arg, perr, sizeof(perr));

			if (pr) {
				sim_fail(s, pr, "%s", perr);
				break;
			}
		}
		/* the first of: a transmission's end, the heap's first timer, the
		 * first watchdog (a timer of its id's place), an arrival */
		if (tx) {
			next = (struct event){
			    .t = tx->tx_done_t, .seq = tx->tx_done_seq, .kind = EV_TX_DONE};
			from = NEXT_TX;
		}
		if (s->events->n && (from == NEXT_NONE || ev_before(&s->events->v[0], &next))) {
			next = s->events->v[0];
			from = NEXT_HEAP;
		}
		if (wd) {
			struct event w = {.t = wd->q->wd.expires, .seq = wd->q->wd.id, .kind = EV_TIMER};

			if (from == NEXT_NONE || ev_before(&w, &next)) {
				next = w;
				from = NEXT_WD;
			}
		}
		if (ss && (from == NEXT_NONE ||
			   ev_before(&(struct event){.t = ss->next.t_ns, .seq = ss->seq, .kind = EV_ARRIVAL},
				     &next))) {
			if (ss->next.t_ns > until)
				break;
			ss->pending = 0;
			s->work_events--;
			s->now = ss->next.t_ns;
			arrival(s, ss);
			continue;
		}
		if (from == NEXT_NONE || next.t > until)
			break;

		if (from == NEXT_TX) {
			s->work_events--;
			s->now = next.t;
			dev_tx_done(tx);
			continue;
		}
		/* Only timers left (sfq perturbation re-arms for ever): with no
		 * packet left to arrive or to send, an open-ended run is over. */
		if (until == UINT64_MAX && !s->work_events && sim_idle(s))
			break;
		if (!s->cfg.step_idle && sim_idle(s)) {
			uint64_t end = ss && ss->next.t_ns < until ? ss->next.t_ns : until;

			if (end != UINT64_MAX && skip_idle_timers(s, end))
				continue;
		}
		if (from == NEXT_WD) {
			/* qdisc_watchdog: the root runs again */
			struct qdisc *q = wd->q;
			struct dev *d = wd->d;

			s->now = next.t;
			s->wd_min_ok = 0;
			if (qdisc_watchdog_fired(q, q->wd.id))
				dev_kick(d);
			continue;
		}
		e = ev_pop(s->events);
		if (e.kind != EV_TIMER)
			s->work_events--;

		s->now = e.t;
		switch (e.kind) {
		case EV_TIMER: {
			struct qdisc *q = e.obj;

			if (q && q->ops->timer) /* NULL: the qdisc was destroyed */
				q->ops->timer(q);
			dev_kick(e.dev);
			break;
		}
		case EV_TX_DONE: /* kept by the devices, never in the heap */
		case EV_ARRIVAL: /* kept by the sources, never in the heap */
			break;
		}
	}
	if (!s->failed && until != UINT64_MAX && s->now < until)
		s->now = until;
	for (int i = 0; i < s->ndevs; i++)
		if (stats_defer_end(&s->devs[i]->st))
			sim_fail(s, -ENOMEM, "out of memory");
	for (int i = 0; i < s->ndevs && !s->failed; i++)
		cover_root_classes(s->devs[i]);
	for (int i = 0; i < s->ndevs; i++)
		if (stats_sort_classes(&s->devs[i]->st))
			sim_fail(s, -ENOMEM, "out of memory");
	return s->failed;
}

int sim_run(struct sim *s)
{
	return sim_run_until(s, UINT64_MAX);
}

uint64_t dev_queued(const struct dev *d)
{
	return d->root->s.qlen + (d->on_wire ? 1 : 0);
}

int sim_check_accounting(const struct sim *s, char *err, size_t errlen)
{
	for (int i = 0; i < s->ndevs; i++) {
		const struct dev *d = s->devs[i];
		uint64_t q = dev_queued(d);

		if (d->st.arrived + d->st.duplicated != d->st.sent + d->st.dropped + q + d->st.rejected) {
			snprintf(err, errlen,
				 "%s: accounting broken: arrived %llu + duplicated %llu != sent %llu + dropped %llu + queued %llu + rejected %llu",
				 d->name, (unsigned long long)d->st.arrived, (unsigned long long)d->st.duplicated, (unsigned long long)d->st.sent,
				 (unsigned long long)d->st.dropped, (unsigned long long)q,
				 (unsigned long long)d->st.rejected);
			return -EPROTO;
		}
	}
	return 0;
}

void sim_free(struct sim *s)
{
	for (int i = 0; i < s->ndevs; i++) {
		struct dev *d = s->devs[i];

		d->tearing_down = 1;
		qdisc_destroy(d->root);
		pkt_free(d->on_wire);
		stats_free(&d->st);
		free(d);
	}
	for (int i = 0; i < s->nsrcs; i++)
		s->srcs[i].src->ops->close(s->srcs[i].src);
	pkt_pool_drain(&s->pool);
	free(s->wds); /* after the qdiscs, whose destruction updates it */
	if (s->events)
		free(s->events->v);
	free(s->events);
	memset(s, 0, sizeof(*s));
}
