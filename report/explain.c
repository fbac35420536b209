/* explain.c - one packet's story (`tcsim explain`, sim:explain): an
 * observer of the simulation (sim/observe.h) that follows one packet,
 * records every event of it and of the packets it waited behind, and
 * tells them in prose after the run. */
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


struct xfilter {
	uint32_t qhandle;
	struct tcf_trace ft;
	char *origin;
	char *insns; /* -v: the program's instruction trace */
};

struct xclassify {
	uint32_t qhandle;
	const char *kind;
	int bands; /* prio: how many, else 0 */
	struct qtrace qt;
	uint32_t child_handle;
	const char *child_kind;
};

/* A packet that left the device while the explained one waited. */
struct xother {
	uint64_t id, t_arrive, t_dequeue, t_end;
	int source;
	uint64_t seq;
	uint32_t leaf, len;
};

struct explain {
	const struct explain_opts *o;
	struct sim_observer obs;
	/* the packet */
	int arrived, rejected, done, dropped;
	uint64_t id, t_arrive, t_dequeue, t_end, t_depart, dur;
	uint32_t len, caplen, wire, priority, leaf;
	int vlan_tci;
	uint8_t *frame;
	uint32_t frame_len;
	uint16_t protocol;
	char why[256];
	const struct dev *dev;
	struct xfilter *filters;
	size_t nfilters;
	struct xclassify cls[4];
	size_t ncls;
	/* enqueue */
	int enqueued;
	uint32_t enq_qhandle, enq_parent, enq_qlen, enq_bucket, enq_slot, enq_flowlen;
	const char *enq_kind;
	int enq_has_bucket, enq_band;
	uint64_t enq_backlog;
	/* drop */
	enum pkt_drop drop_reason;
	uint32_t drop_qhandle;
	const char *drop_kind;
	int drop_at_arrival;
	uint64_t drop_by, drop_t;
	/* dequeue */
	uint32_t deq_qhandle, deq_left;
	/* the others */
	struct xother *others;
	size_t nothers, cap;
	/* -v */
	int verbose;
	char *insn_buf; /* the instruction trace of the program running */
	size_t insn_len, insn_cap;
	int oom;
	struct sim *sim;
};

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
	case SIM_EV_DEQUEUE:
		x->t_dequeue = e->t;
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

static void fmt_dur(char *b, size_t n, uint64_t ns)
{
	if (ns < 1000)
		snprintf(b, n, "%llu ns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(b, n, "%.3f us", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(b, n, "%.3f ms", ns / 1e6);
	else
		snprintf(b, n, "%.3f s", ns / 1e9);
}

static void fmt_time(char *b, size_t n, uint64_t ns)
{
	snprintf(b, n, "%llu.%09llu s", (unsigned long long)(ns / 1000000000u),
		 (unsigned long long)(ns % 1000000000u));
}

static void fmt_rate(char *b, size_t n, uint64_t bps)
{
	if (!bps)
		snprintf(b, n, "an unlimited rate");
	else if (bps % 1000000000 == 0)
		snprintf(b, n, "%llu Gbit/s", (unsigned long long)(bps / 1000000000));
	else if (bps % 1000000 == 0)
		snprintf(b, n, "%llu Mbit/s", (unsigned long long)(bps / 1000000));
	else if (bps % 1000 == 0)
		snprintf(b, n, "%llu kbit/s", (unsigned long long)(bps / 1000));
	else
		snprintf(b, n, "%llu bit/s", (unsigned long long)bps);
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static void x_filter_line(FILE *out, const struct xfilter *f, const struct explain *x)
{
	const struct tcf_trace *ft = &f->ft;
	char proto[32], c[32], fl[32], h[16];

	tc_print_protocol(proto, sizeof(proto), ft->protocol);
	fmt_handle(h, sizeof(h), f->qhandle);
	if (ft->skipped) {
		char pp[32];

		tc_print_protocol(pp, sizeof(pp), x->vlan_tci >= 0 ? 0x8100 : x->protocol);
		fprintf(out, "  pref %u (%s, protocol %s): skipped, the packet's protocol is %s\n",
			ft->pref, ft->kind, proto, pp);
		return;
	}
	fprintf(out, "  pref %u", ft->pref);
	if (ft->has_handle)
		fprintf(out, " handle 0x%x", ft->handle);
	fprintf(out, " (%s", ft->kind);
	if (f->origin)
		fprintf(out, " %s", f->origin);
	fprintf(out, ", protocol %s", proto);
	if (ft->has_flowid) {
		fmt_class(fl, sizeof(fl), ft->flowid);
		fprintf(out, ", flowid %s", fl);
	}
	fputs("): ", out);
	fmt_class(c, sizeof(c), ft->classid);
	if (!ft->has_handle) {
		if (ft->match)
			fprintf(out, "matched, classid %s\n", c);
		else
			fputs("no match\n", out);
	} else if (!ft->match) {
		fputs("returned 0 = no match, on to the next\n", out);
	} else if (ft->ret == 0xffffffffu) {
		if (ft->has_flowid)
			fprintf(out, "returned -1 = match, the filter's flowid %s\n", c);
		else
			fprintf(out, "returned -1 = match, but the filter has no flowid: classid %s\n", c);
	} else {
		fprintf(out, "returned %u = match, and cls_bpf takes the return value itself as the classid: %s (%u)",
			ft->ret, c, ft->classid);
		if (ft->has_flowid)
			fprintf(out, "; its flowid %s is not used", fl);
		fputc('\n', out);
	}
	if (f->insns && *f->insns) {
		fputs("        (A and X before each instruction)\n", out);
		fputs(f->insns, out);
	}
	(void)h;
}

static void x_classify(FILE *out, const struct xclassify *c, const struct explain *x)
{
	const struct qtrace *q = &c->qt;
	char h[16], cid[32], cl[32], pr[32];

	fmt_handle(h, sizeof(h), c->qhandle);
	fmt_class(cid, sizeof(cid), q->classid);
	fmt_class(cl, sizeof(cl), q->class_chosen);
	fmt_priority(pr, sizeof(pr), x->priority);
	switch (q->verdict) {
	case VERDICT_FILTER:
		fprintf(out, "  verdict: classid %s (%u), from filter pref %u handle 0x%x\n", cid,
			q->classid, q->pref, q->handle);
		break;
	case VERDICT_PRIORITY:
		fprintf(out, "  verdict: classid %s, from skb->priority\n", cid);
		break;
	case VERDICT_UNCLASSIFIED:
		fputs("  verdict: unclassified, no filter matched\n", out);
		break;
	default:
		fprintf(out, "  verdict: none, %s has no filters\n", h);
		break;
	}
	if (!strcmp(c->kind, "prio")) {
		fprintf(out, "  band %d = class %s: ", q->band, cl);
		switch (q->rule) {
		case QRULE_FILTER:
			fprintf(out, "the filter's classid %s names band %d of %s (minor %u - 1)\n",
				cid, q->band, h, q->classid & 0xffff);
			break;
		case QRULE_PRIORITY:
			fprintf(out, "skb->priority %s names class %s of %s directly\n", pr, cl, h);
			break;
		case QRULE_PRIOMAP:
			if (TC_H_MAJ(x->priority))
				fprintf(out, "no class from the filters, and skb->priority %s belongs to another qdisc, so it counts as 0: priomap[0] = %d\n",
					pr, q->band);
			else
				fprintf(out, "no class from the filters: priomap[priority & 15] = priomap[%u] = %d (skb->priority %s)\n",
					q->map_index, q->band, pr);
			break;
		case QRULE_FALLBACK:
			fprintf(out, "classid %s names no band of %s (%s; it has %d bands), so prio falls back to priomap[0] = %d%s\n",
				cid, h,
				(q->classid & 0xffff) == 0 ? "minor 0" : "minor beyond the bands",
				c->bands, q->band,
				q->verdict == VERDICT_FILTER ? ", whatever the filter's flowid says" : "");
			break;
		default:
			fputc('\n', out);
			break;
		}
	} else if (!strcmp(c->kind, "pfifo_fast")) {
		fprintf(out, "  band %d: pfifo_fast's priomap[priority & 15] = priomap[%u] (skb->priority %s)\n",
			q->band, q->map_index, pr);
	} else if (!strcmp(c->kind, "htb")) {
		if (q->rule == QRULE_DIRECT)
			fprintf(out, "  the direct queue of %s (htb_classify: %s)\n", h,
				q->verdict == VERDICT_NONE || q->verdict == VERDICT_UNCLASSIFIED
				    ? "no class, and no default leaf"
				    : "the qdisc itself, X:0");
		else if (q->rule == QRULE_DEFAULT)
			fprintf(out, "  class %s: the default class of %s (nothing named a leaf)\n", cl, h);
		else if (q->rule == QRULE_DROP)
			fprintf(out, "  a filter's action took the packet\n");
		else
			fprintf(out, "  class %s: a leaf of %s named by the %s\n", cl, h,
				q->rule == QRULE_PRIORITY ? "priority" : "filter");
	} else if (q->rule == QRULE_DROP) {
		fprintf(out, "  classid %s names no bucket of %s: dropped\n", cid, h);
	} else if (q->class_chosen) {
		fprintf(out, "  bucket %u (class %s), chosen by the %s\n", (q->class_chosen & 0xffff) - 1,
			cl, q->rule == QRULE_PRIORITY ? "priority" : "filter");
	}
}

/* Rank of a root class for strict priority: prio's band, else 0. */
static int x_rank(const struct explain *x, uint32_t leaf)
{
	const struct qdisc *root = x->dev->root;

	if (root->ops == &prio_qdisc_ops && TC_H_MAJ(leaf) == root->handle)
		return (int)(leaf & 0xffff) - 1;
	return 0;
}

struct xgroup {
	uint32_t leaf;
	int cat; /* 0 outranks & after, 1 higher & before, 2 own before, 3 own after, 4 lower */
	uint64_t n;
};

static void x_waited(FILE *out, struct explain *x)
{
	const struct qdisc *root = x->dev->root;
	int prio_root = root->ops == &prio_qdisc_ops;
	int mine = x_rank(x, x->leaf);
	const struct xother *wire = NULL;
	struct xgroup g[64];
	size_t ng = 0;
	uint64_t before = 0;
	char b[64], c[32];

	for (size_t i = 0; i < x->nothers; i++) {
		const struct xother *o = &x->others[i];
		int r, cat;
		size_t j;

		if (o->t_dequeue <= x->t_arrive && o->t_end > x->t_arrive && o->id != x->id &&
		    !wire && o->t_dequeue < x->t_dequeue + 1) {
			if (o->t_dequeue < x->t_arrive || o->t_arrive < x->t_arrive ||
			    (o->t_arrive == x->t_arrive && o->id < x->id)) {
				wire = o;
				continue;
			}
		}
		if (o->t_dequeue > x->t_dequeue)
			continue;
		before++;
		r = x_rank(x, o->leaf);
		if (r < mine)
			cat = o->t_arrive > x->t_arrive || (o->t_arrive == x->t_arrive && o->id > x->id) ? 0 : 1;
		else if (r == mine)
			cat = o->t_arrive < x->t_arrive || (o->t_arrive == x->t_arrive && o->id < x->id) ? 2 : 3;
		else
			cat = 4;
		for (j = 0; j < ng; j++)
			if (g[j].cat == cat && (!prio_root || g[j].leaf == o->leaf))
				break;
		if (j == ng && ng < sizeof(g) / sizeof(g[0]))
			g[ng++] = (struct xgroup){.leaf = o->leaf, .cat = cat};
		if (j < ng)
			g[j].n++;
	}
	if (wire) {
		fmt_dur(b, sizeof(b), wire->t_end - x->t_arrive);
		fmt_class(c, sizeof(c), wire->leaf);
		fprintf(out, "  on arrival the wire was busy with #%llu (%d:%llu, class %s, %u bytes) for %s more\n",
			(unsigned long long)wire->id, wire->source + 1, (unsigned long long)wire->seq, c,
			wire->len, b);
	} else {
		fputs("  on arrival the wire was idle\n", out);
	}
	fmt_dur(b, sizeof(b), x->t_dequeue - x->t_arrive);
	if (!before) {
		fprintf(out, "  waited %s: no packet left before it%s\n", b,
			wire ? ", only the one on the wire" : "");
		return;
	}
	fprintf(out, "  waited %s: %llu %s left before it%s:\n", b, (unsigned long long)before,
		plural(before, "packet", "packets"), wire ? ", after the one on the wire" : "");
	/* categories in a fixed order: who outranked it, then its own band */
	for (int cat = 0; cat <= 4; cat++)
		for (size_t j = 0; j < ng; j++) {
			const char *what = "";

			if (g[j].cat != cat)
				continue;
			fmt_class(c, sizeof(c), g[j].leaf);
			switch (cat) {
			case 0: what = "that arrived after it but outrank it (strict priority)"; break;
			case 1: what = "already queued in a higher band (strict priority)"; break;
			case 2:
				what = !strcmp(x->enq_kind ? x->enq_kind : "", "sfq")
					   ? "that were ahead of it in sfq's round robin"
					   : "that were ahead of it in the queue";
				break;
			case 3:
				what = !strcmp(x->enq_kind ? x->enq_kind : "", "sfq")
					   ? "that arrived after it but were served first by sfq's round robin (other flows' turns)"
					   : "that arrived after it but were served first";
				break;
			default: what = "of a lower band"; break;
			}
			if (!prio_root)
				fprintf(out, "    %llu %s\n", (unsigned long long)g[j].n, what);
			else if (cat >= 2 && cat <= 3)
				fprintf(out, "    %llu of its own band %s %s\n", (unsigned long long)g[j].n,
					c, what);
			else
				fprintf(out, "    %llu of band %s %s\n", (unsigned long long)g[j].n, c, what);
		}
}

static void x_report(FILE *out, struct explain *x, const struct sim *s)
{
	const struct explain_opts *o = x->o;
	const char *label = o->label ? o->label : s->srcs[o->source].src->name;
	char hdr[512], b[64], c[64], h[16];

	trace_frame_summary(hdr, sizeof(hdr), x->frame, x->frame_len, x->len, x->vlan_tci);
	if (x->rejected) {
		fprintf(out, "packet %d:%llu of %s, on %s\n", o->source + 1,
			(unsigned long long)o->seq, label, x->dev->name);
		fmt_time(b, sizeof(b), x->t_arrive);
		fprintf(out, "  arrives at %s, %u bytes (%u captured)\n", b, x->len, x->caplen);
		fprintf(out, "  headers: %s\n", hdr);
		fprintf(out, "rejected: %s; it never reached a qdisc\n", x->why);
		return;
	}
	fprintf(out, "packet %d:%llu of %s (#%llu in arrival order), on %s\n", o->source + 1,
		(unsigned long long)o->seq, label, (unsigned long long)x->id, x->dev->name);
	fmt_time(b, sizeof(b), x->t_arrive);
	fprintf(out, "  arrives at %s, %u bytes (%u captured)\n", b, x->len, x->caplen);
	fprintf(out, "  headers: %s\n", hdr);
	fmt_priority(c, sizeof(c), x->priority);
	fprintf(out, "  skb->priority %s, protocol 0x%04x", c, x->protocol);
	if (x->vlan_tci >= 0)
		fprintf(out, ", VLAN tag %u offloaded", x->vlan_tci & 0xfff);
	fputc('\n', out);

	for (size_t k = 0; k < x->ncls; k++) {
		const struct xclassify *cl = &x->cls[k];
		size_t nf = 0;

		fmt_handle(h, sizeof(h), cl->qhandle);
		fprintf(out, "classification by %s (%s", h, cl->kind);
		if (cl->bands)
			fprintf(out, ", %d bands", cl->bands);
		fputs(")\n", out);
		for (size_t i = 0; i < x->nfilters; i++)
			if (x->filters[i].qhandle == cl->qhandle) {
				x_filter_line(out, &x->filters[i], x);
				nf++;
			}
		if (!nf && cl->qt.verdict != VERDICT_PRIORITY && cl->qt.verdict != VERDICT_NONE)
			fputs("  (no filter applies)\n", out);
		x_classify(out, &x->cls[k], x);
	}

	fputs("queueing\n", out);
	if (x->enqueued) {
		fmt_handle(h, sizeof(h), x->enq_qhandle);
		fmt_class(c, sizeof(c), x->enq_parent);
		fprintf(out, "  enqueued in %s (%s", h, x->enq_kind);
		if (x->enq_parent != TC_H_ROOT)
			fprintf(out, " under class %s", c);
		fputs(")", out);
		if (x->enq_has_bucket)
			fprintf(out, ", hash bucket %u, slot %u, where its flow now holds %u %s", x->enq_bucket,
				x->enq_slot, x->enq_flowlen, plural(x->enq_flowlen, "packet", "packets"));
		fprintf(out, "; the qdisc holds %u %s (%llu bytes)\n", x->enq_qlen,
			plural(x->enq_qlen, "packet", "packets"), (unsigned long long)x->enq_backlog);
	}
	if (x->dropped) {
		fmt_handle(h, sizeof(h), x->drop_qhandle);
		fmt_time(b, sizeof(b), x->drop_t);
		if (x->drop_at_arrival) {
			fprintf(out, "  dropped on arrival by %s (%s): %s", h, x->drop_kind,
				pkt_drop_name(x->drop_reason));
		} else {
			fmt_dur(c, sizeof(c), x->drop_t - x->t_arrive);
			fprintf(out, "  dropped at %s, after %s in %s (%s): %s", b, c, h, x->drop_kind,
				pkt_drop_name(x->drop_reason));
		}
		switch (x->drop_reason) {
		case DROP_QDISC_LIMIT: fputs(" (the qdisc's limit was reached)", out); break;
		case DROP_SFQ_DEPTH: fputs(" (its flow held sfq's depth of packets)", out); break;
		case DROP_SFQ_MAXFLOWS: fputs(" (sfq had no free slot for a new flow)", out); break;
		case DROP_SFQ_CLASSIFY: fputs(" (sfq's filters gave no bucket)", out); break;
		case DROP_SFQ_REHASH: fputs(" (lost when sfq re-hashed its queues)", out); break;
		case DROP_QDISC_DESTROY: fputs(" (its qdisc was replaced or deleted)", out); break;
		case DROP_NOOP: fputs(" (a noop qdisc drops everything)", out); break;
		case DROP_TBF_SIZE: fputs(" (longer than tbf's burst: it could never send it)", out); break;
		default: break;
		}
		if (x->drop_by)
			fprintf(out, ", to make room for #%llu", (unsigned long long)x->drop_by);
		fputc('\n', out);
		return;
	}
	if (!x->t_dequeue && !x->done) {
		fputs("  still queued when the run ended\n", out);
		return;
	}
	x_waited(out, x);
	fputs("transmission\n", out);
	fmt_time(b, sizeof(b), x->t_dequeue);
	fmt_class(c, sizeof(c), x->leaf);
	fmt_handle(h, sizeof(h), x->deq_qhandle);
	fprintf(out, "  dequeued at %s from %s (class %s); %u %s left in the root\n", b, h, c,
		x->deq_left, plural(x->deq_left, "packet", "packets"));
	fmt_dur(b, sizeof(b), x->dur);
	fmt_rate(c, sizeof(c), x->dev->rate_bps);
	fprintf(out, "  on the wire for %s (%u bytes at %s)\n", b, x->wire, c);
	fmt_time(b, sizeof(b), x->t_depart);
	fmt_dur(c, sizeof(c), x->t_depart - x->t_arrive);
	fprintf(out, "  departs at %s: total delay %s", b, c);
	{
		char q[32], w[32], p[32];

		fmt_dur(q, sizeof(q), x->t_dequeue - x->t_arrive);
		fmt_dur(w, sizeof(w), x->dur);
		fmt_dur(p, sizeof(p), x->t_depart - x->t_end);
		fprintf(out, " = queue %s + wire %s + propagation %s\n", q, w, p);
	}
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
			 plural((uint64_t)s->nsrcs, "capture", "captures"));
		r = -ENOENT;
	} else if (x->oom) {
		snprintf(err, errlen, "out of memory");
		r = -ENOMEM;
	} else if (!x->arrived) {
		const struct sim_source *ss = &s->srcs[o->source];

		snprintf(err, errlen, "--packet %d:%llu: capture %d (%s) has only %llu %s", o->source + 1,
			 (unsigned long long)o->seq, o->source + 1,
			 o->label ? o->label : ss->src->name, (unsigned long long)ss->read,
			 plural(ss->read, "packet", "packets"));
		r = -ENOENT;
	} else {
		x_report(out, x, s);
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
			 plural((uint64_t)s->nsrcs, "capture", "captures"));
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

