/* explain.c - one packet's story (`tcsim explain`, sim:explain): an
 * observer of the simulation (sim/observe.h) that follows one packet,
 * records every event of it and of the packets it waited behind, and
 * has explain_tell.c tell them in prose after the run. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf_asm.h"
#include "bpf_load.h"
#include "fmt.h"
#include "source.h"
#include "tc.h"
#include "explain.h"
#include "trace.h"
#include "explain_int.h"


static char *xstrdup(struct explain *x, const char *s)
{
	char *r;

	if (!s)
		return NULL;
	r = strdup(s);
	if (!r)
		x->oom = 1;
	return r;
}

static void x_insn_add(struct explain *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void x_insn_add(struct explain *x, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (x->insn_len + (size_t)n + 1 > x->insn_cap) {
		size_t cap = (x->insn_len + (size_t)n + 1) * 2;
		char *b = realloc(x->insn_buf, cap);

		if (!b) {
			x->oom = 1;
			return;
		}
		x->insn_buf = b;
		x->insn_cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(x->insn_buf + x->insn_len, x->insn_cap - x->insn_len, fmt, ap);
	va_end(ap);
	x->insn_len += (size_t)n;
}

/* Classic BPF jumps only forward: pc 0 before the end starts a program. */
static void x_insn(const struct bpf_prog *prog, const struct bpf_trace_state *st, void *arg)
{
	struct explain *x = arg;
	char line[128];

	if (!st->done && st->pc == 0)
		x->insn_len = 0;
	if (st->done) {
		if (st->fault)
			x_insn_add(x, "        fault: %s\n", st->fault_why);
		x_insn_add(x, "        ret %u (0x%08x)\n", st->ret, st->ret);
		return;
	}
	bpf_disasm_insn(&prog->insns[st->pc], st->pc, line, sizeof(line));
	x_insn_add(x, "        l%-3u %-32s A=0x%08x X=0x%08x\n", st->pc, line, st->A, st->X);
}

/* The one packet asked for, whether it arrives or is rejected. */
static int x_select(void *arg, const struct sim_event *e)
{
	const struct explain *x = arg;

	return e->source == x->o->source && e->seq == x->o->seq;
}

/* The wait for tokens going on ends at t (a new wait, or the dequeue): it
 * counts up to its until; past that the packet waited for the wire or for
 * other classes, as if behind other packets. */
static void x_thr_close(struct explain *x, uint64_t t)
{
	if (!x->thr_until)
		return;
	x->thr_ns += (t < x->thr_until ? t : x->thr_until) - x->thr_t;
	x->thr_until = 0;
}

static void x_sink(void *arg, const struct sim_event *e)
{
	struct explain *x = arg;

	switch (e->kind) {
	case SIM_EV_ARRIVE: {
		const struct pkt *p = e->p;

		x->arrived = 1;
		x->dev = e->dev;
		x->id = p->id;
		x->t_arrive = e->t;
		x->len = p->len;
		x->caplen = p->caplen;
		x->priority = p->priority;
		x->mark = p->mark;
		x->protocol = p->protocol;
		x->vlan_tci = p->vlan_present ? p->vlan_tci : -1;
		x->frame = malloc(e->caplen ? e->caplen : 1);
		if (!x->frame) {
			x->oom = 1;
			break;
		}
		memcpy(x->frame, e->frame, e->caplen);
		x->frame_len = e->caplen;
		break;
	}
	case SIM_EV_REJECT:
		x->arrived = x->rejected = 1;
		x->dev = e->dev;
		x->t_arrive = e->t;
		x->len = e->len;
		x->caplen = e->caplen;
		snprintf(x->why, sizeof(x->why), "%s", e->why);
		x->frame = malloc(e->caplen ? e->caplen : 1);
		if (x->frame && e->frame) {
			memcpy(x->frame, e->frame, e->caplen);
			x->frame_len = e->caplen;
		}
		break;
	case SIM_EV_FILTER: {
		struct xfilter *f = realloc(x->filters, (x->nfilters + 1) * sizeof(*f));

		if (!f) {
			x->oom = 1;
			break;
		}
		x->filters = f;
		f += x->nfilters++;
		memset(f, 0, sizeof(*f));
		f->qhandle = e->q->handle;
		f->ft = *e->qt->filter;
		f->ft.origin = NULL;
		f->origin = xstrdup(x, e->qt->filter->origin);
		f->ft.detail = NULL;
		f->detail = xstrdup(x, e->qt->filter->detail);
		if (x->verbose && x->insn_len && f->ft.has_handle) {
			f->insns = xstrdup(x, x->insn_buf);
			x->insn_len = 0;
		}
		break;
	}
	case SIM_EV_CLASSIFY:
		if (x->ncls < sizeof(x->cls) / sizeof(x->cls[0])) {
			struct xclassify *c = &x->cls[x->ncls++];

			c->qhandle = e->q->handle;
			c->kind = e->q->ops->id;
			c->qt = *e->qt;
			c->qt.filter = NULL;
			c->child_handle = e->qt->child ? e->qt->child->handle : 0;
			c->child_kind = e->qt->child ? e->qt->child->ops->id : NULL;
			c->qt.child = NULL;
			if (e->q->ops == &prio_qdisc_ops && e->q->ops->walk) {
				uint32_t n = 0;

				for (uint32_t i = 1; i <= 16; i++)
					if (e->q->ops->leaf((struct qdisc *)e->q, TC_H_MAKE(e->q->handle, i)))
						n = i;
				c->bands = (int)n;
			}
		}
		break;
	case SIM_EV_ENQUEUE:
		x->enqueued = 1;
		x->enq_qhandle = e->q->handle;
		x->enq_parent = e->q->parent;
		x->enq_kind = e->q->ops->id;
		x->enq_qlen = e->q->s.qlen;
		x->enq_backlog = e->q->s.backlog;
		x->enq_has_bucket = e->qt->has_bucket;
		x->enq_bucket = e->qt->bucket;
		x->enq_slot = e->qt->slot;
		x->enq_flowlen = e->qt->flow_qlen;
		x->enq_band = e->qt->band;
		break;
	case SIM_EV_DROP:
		x->dropped = 1;
		x->drop_t = e->t;
		x->drop_reason = e->p->drop;
		x->drop_qhandle = e->q ? e->q->handle : 0;
		x->drop_kind = e->q ? e->q->ops->id : "none";
		x->drop_at_arrival = e->at_arrival;
		x->drop_by = e->by;
		x->leaf = e->p->leaf_classid;
		break;
	case SIM_EV_THROTTLED:
		/* a new wait ends the one before: only the part of it that
		 * came before this report counts */
		x_thr_close(x, e->t);
		x->thr_t = e->t;
		x->thr_until = e->qt->until;
		if (x->nthr < sizeof(x->thr) / sizeof(x->thr[0]))
			x->thr[x->nthr] = (struct xthrottle){
			    .t = e->t, .until = e->qt->until, .qhandle = e->q->handle,
			    .wclass = e->qt->wclass, .by = e->qt->by, .kind = e->q->ops->id};
		x->nthr++;
		break;
	case SIM_EV_MARK:
		x->marked = 1;
		x->mark_why = e->qt->level;
		x->mark_qhandle = e->q->handle;
		x->mark_kind = e->q->ops->id;
		x->mark_t = e->t;
		x->mark_sojourn = e->qt->until;
		break;
	case SIM_EV_BORROW:
		x->borrowed = 1;
		x->borrow_class = e->qt->wclass;
		x->borrow_from = e->qt->by;
		x->borrow_level = e->qt->level;
		break;
	case SIM_EV_DEQUEUE:
		x->t_dequeue = e->t;
		x_thr_close(x, e->t);
		x->dur = e->dur;
		x->wire = e->wire;
		x->leaf = e->p->leaf_classid;
		x->deq_qhandle = e->q ? e->q->handle : 0;
		x->deq_left = e->dev->root->s.qlen;
		break;
	case SIM_EV_TX_END:
		x->done = 1;
		x->t_end = e->t;
		x->t_depart = e->p->t_depart;
		break;
	}
}

/* Every packet that leaves: those sent on the device between the
 * explained packet's arrival and its own end are the ones it waited for. */
static void x_done(void *arg, const struct dev *d, const struct pkt *p)
{
	struct explain *x = arg;

	if (!x->arrived || x->rejected || x->done || x->dropped || d != x->dev || p->drop ||
	    p->id == x->id)
		return;
	if (x->nothers == x->cap) {
		size_t cap = x->cap ? x->cap * 2 : 64;
		struct xother *v = realloc(x->others, cap * sizeof(*v));

		if (!v) {
			x->oom = 1;
			return;
		}
		x->others = v;
		x->cap = cap;
	}
	x->others[x->nothers++] = (struct xother){
		.id = p->id, .t_arrive = p->t_arrive, .t_dequeue = p->t_dequeue,
		.t_end = d->sim->now, .source = p->source, .seq = p->src_seq,
		.leaf = p->leaf_classid, .len = p->len};
}


int explain_begin(struct explain **xp, struct sim *s, const struct explain_opts *o, char *err,
		  size_t errlen)
{
	struct explain *x;
	int r;

	*xp = NULL;
	if (!o->seq) {
		snprintf(err, errlen, "--packet: packets are numbered from 1");
		return -ENOENT;
	}
	x = calloc(1, sizeof(*x));
	if (!x) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	x->o = o;
	x->obs = (struct sim_observer){
		.select = x_select, .event = x_sink, .done = x_done, .arg = x};
	if (o->verbose) {
		x->verbose = 1;
		x->obs.insn = x_insn;
	}
	r = sim_observe(s, &x->obs, err, errlen);
	if (r) {
		free(x);
		return r;
	}
	x->sim = s;
	*xp = x;
	return 0;
}

static void explain_free(struct explain *x)
{
	sim_unobserve(x->sim, &x->obs);
	free(x->insn_buf);
	for (size_t i = 0; i < x->nfilters; i++) {
		free(x->filters[i].origin);
		free(x->filters[i].detail);
		free(x->filters[i].insns);
	}
	free(x->filters);
	free(x->others);
	free(x->frame);
	free(x);
}

void explain_abort(struct explain *x)
{
	if (x)
		explain_free(x);
}

int explain_end(struct explain *x, FILE *out, char *err, size_t errlen)
{
	const struct explain_opts *o = x->o;
	struct sim *s = x->sim;
	int r = 0;

	if (o->source < 0 || o->source >= s->nsrcs) {
		snprintf(err, errlen, "--packet %d:%llu: there %s only %d %s", o->source + 1,
			 (unsigned long long)o->seq, s->nsrcs == 1 ? "is" : "are", s->nsrcs,
			 explain_plural((uint64_t)s->nsrcs, "capture", "captures"));
		r = -ENOENT;
	} else if (x->oom) {
		snprintf(err, errlen, "out of memory");
		r = -ENOMEM;
	} else if (!x->arrived) {
		const struct sim_source *ss = &s->srcs[o->source];

		snprintf(err, errlen, "--packet %d:%llu: capture %d (%s) has only %llu %s", o->source + 1,
			 (unsigned long long)o->seq, o->source + 1,
			 o->label ? o->label : ss->src->name, (unsigned long long)ss->read,
			 explain_plural(ss->read, "packet", "packets"));
		r = -ENOENT;
	} else {
		explain_tell(out, x, s);
	}
	explain_free(x);
	return r;
}

int explain_packet(struct sim *s, const struct explain_opts *o, FILE *out, char *err,
		   size_t errlen)
{
	struct explain *x;
	int r;

	if (o->source < 0 || o->source >= s->nsrcs) {
		snprintf(err, errlen, "--packet %d:%llu: there %s only %d %s", o->source + 1,
			 (unsigned long long)o->seq, s->nsrcs == 1 ? "is" : "are", s->nsrcs,
			 explain_plural((uint64_t)s->nsrcs, "capture", "captures"));
		return -ENOENT;
	}
	r = explain_begin(&x, s, o, err, errlen);
	if (r)
		return r;
	if (sim_run(s)) {
		snprintf(err, errlen, "%s", s->err);
		explain_abort(x);
		return -EIO;
	}
	return explain_end(x, out, err, errlen);
}

