/* observe.c - the engine's side of observe.h: who follows which packet,
 * and each event handed to those who follow it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "observe.h"
#include "sim.h"

/* Every observer that follows e's packet (mask) gets e. */
static void emit(const struct sim *s, const struct sim_event *e, uint8_t mask)
{
	for (struct sim_observer *o = s->observers; o; o = o->next)
		if ((mask & o->bit) && o->event)
			o->event(o->arg, e);
}

static void ev_init(struct sim_event *e, enum sim_ev_kind k, const struct dev *d,
		    const struct pkt *p)
{
	memset(e, 0, sizeof(*e));
	e->kind = k;
	e->t = d->sim->now;
	e->dev = d;
	e->p = p;
	if (p) {
		e->id = p->id;
		e->source = p->source;
		e->seq = p->src_seq;
	}
}

/* The followers that take e. */
static uint8_t select_all(const struct sim *s, const struct sim_event *e)
{
	uint8_t mask = 0;

	for (struct sim_observer *o = s->observers; o; o = o->next)
		if (o->select && o->select(o->arg, e))
			mask |= o->bit;
	return mask;
}

void sim_obs_arrival(struct dev *d, struct pkt *p, const uint8_t *frame, uint32_t caplen,
		     uint32_t len)
{
	struct sim *s = d->sim;
	struct sim_event e;

	s->arriving = p;
	s->arriving_id = p->id;
	ev_init(&e, SIM_EV_ARRIVE, d, p);
	e.frame = frame;
	e.caplen = caplen;
	e.len = len;
	p->traced = select_all(s, &e);
	if (p->traced)
		emit(s, &e, p->traced);
}

void sim_obs_arrival_done(struct dev *d)
{
	d->sim->arriving = NULL;
	d->sim->arriving_id = 0;
}

void sim_obs_reject(struct dev *d, int source, uint64_t seq, const uint8_t *frame,
		    uint32_t caplen, uint32_t len, const char *why)
{
	struct sim_event e;
	uint8_t mask;

	ev_init(&e, SIM_EV_REJECT, d, NULL);
	e.source = source;
	e.seq = seq;
	e.frame = frame;
	e.caplen = caplen;
	e.len = len;
	e.why = why;
	mask = select_all(d->sim, &e);
	if (mask)
		emit(d->sim, &e, mask);
}

/* The leaf qdisc that holds (or refused) p: the root's child for its class. */
static const struct qdisc *leaf_of(const struct dev *d, const struct pkt *p)
{
	struct qdisc *root = d->root;

	if (root->ops->leaf && TC_H_MAJ(p->leaf_classid) == root->handle) {
		struct qdisc *l = root->ops->leaf(root, p->leaf_classid);

		if (l)
			return l;
	}
	return root;
}

void sim_obs_drop(struct dev *d, const struct pkt *p)
{
	struct sim_event e;

	ev_init(&e, SIM_EV_DROP, d, p);
	e.q = leaf_of(d, p);
	/* a copy netem made of the arriving packet (a later id) is dropped on
	 * its own arrival at the root too */
	e.at_arrival = p == d->sim->arriving ||
		       (d->sim->arriving_id && p->id > d->sim->arriving_id);
	e.by = e.at_arrival ? 0 : d->sim->arriving_id;
	emit(d->sim, &e, p->traced);
}

void sim_obs_dequeue(struct dev *d, const struct pkt *p)
{
	struct sim_event e;

	ev_init(&e, SIM_EV_DEQUEUE, d, p);
	e.q = leaf_of(d, p);
	e.dur = d->tx_done_t - d->sim->now;
	e.wire = p->len + d->overhead + (p->vlan_present ? 4u : 0u);
	emit(d->sim, &e, p->traced);
}

void sim_obs_tx_end(struct dev *d, const struct pkt *p)
{
	struct sim_event e;

	ev_init(&e, SIM_EV_TX_END, d, p);
	emit(d->sim, &e, p->traced);
}

void sim_obs_done(struct dev *d, const struct pkt *p)
{
	for (struct sim_observer *o = d->sim->observers; o; o = o->next)
		if (o->done)
			o->done(o->arg, d, p);
}

static enum sim_ev_kind qtrace_event_kind(enum qtrace_kind k)
{
	switch (k) {
	case QTRACE_FILTER: return SIM_EV_FILTER;
	case QTRACE_CLASSIFY: return SIM_EV_CLASSIFY;
	case QTRACE_THROTTLED: return SIM_EV_THROTTLED;
	case QTRACE_BORROW: return SIM_EV_BORROW;
	case QTRACE_MARK: return SIM_EV_MARK;
	default: return SIM_EV_ENQUEUE;
	}
}

/* What the qdiscs report of followed packets (env->tracer). */
static void qdisc_event(void *arg, const struct qdisc *q, const struct pkt *p,
			const struct qtrace *ev)
{
	struct dev *d = q->env->arg; /* the device owns the env (sim.c) */
	struct sim_event e;

	(void)arg;
	ev_init(&e, qtrace_event_kind(ev->kind), d, p);
	e.q = q;
	e.qt = ev;
	emit(d->sim, &e, p->traced);
}

/* Instruction traces go to every observer that asked for them. */
static void insn_event(const struct bpf_prog *prog, const struct bpf_trace_state *st, void *arg)
{
	const struct sim *s = arg;

	for (const struct sim_observer *o = s->observers; o; o = o->next)
		if (o->insn)
			o->insn(prog, st, o->arg);
}

/* The qdiscs report to the simulation's tracer while anyone follows
 * packets; without followers they report nothing. */
static void update(struct sim *s)
{
	const struct qdisc_tracer *qt = NULL;

	s->followers = 0;
	s->nwatch_done = 0;
	s->qt.event = qdisc_event;
	s->qt.arg = s;
	s->qt.insn = NULL;
	for (struct sim_observer *o = s->observers; o; o = o->next) {
		s->followers |= o->bit;
		s->nwatch_done += o->done != NULL;
		if (o->insn)
			s->qt.insn = insn_event;
	}
	if (s->followers)
		qt = &s->qt;
	s->qtracer = qt;
	for (int i = 0; i < s->ndevs; i++)
		s->devs[i]->env.tracer = qt;
}

int sim_observe(struct sim *s, struct sim_observer *o, char *err, size_t errlen)
{
	struct sim_observer **pp = &s->observers;
	uint8_t bit = 0;

	for (struct sim_observer *i = s->observers; i; i = i->next)
		if (i == o) {
			snprintf(err, errlen, "observer registered twice");
			return -EEXIST;
		}
	if (o->select) {
		bit = 1;
		while (bit && (s->followers & bit))
			bit = (uint8_t)(bit << 1);
		if (!bit) {
			snprintf(err, errlen,
				 "too many observers following packets (at most %d)",
				 SIM_MAX_FOLLOWERS);
			return -EBUSY;
		}
	}
	while (*pp)
		pp = &(*pp)->next;
	o->bit = bit;
	o->next = NULL;
	*pp = o;
	update(s);
	return 0;
}

void sim_unobserve(struct sim *s, struct sim_observer *o)
{
	for (struct sim_observer **pp = &s->observers; *pp; pp = &(*pp)->next)
		if (*pp == o) {
			*pp = o->next;
			o->next = NULL;
			o->bit = 0;
			update(s);
			return;
		}
}
