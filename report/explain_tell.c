/* explain_tell.c - one packet's story told (explain.h): the filters and
 * their returns, the verdict and its rule, the wait and who it waited
 * behind or for which tokens, and its transmission or its drop. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf_asm.h"
#include "explain_int.h"
#include "fmt.h"
#include "source.h"
#include "tc.h"
#include "trace.h"

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

const char *explain_plural(uint64_t n, const char *one, const char *many)
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
	if (f->detail) {
		/* u32: its own account of the node that decided */
		fprintf(out, "%s\n", f->detail);
		return;
	}
	if (ft->why[0]) {
		if (ft->match)
			fprintf(out, "matched, classid %s: %s\n", c, ft->why);
		else
			fprintf(out, "no match: %s\n", ft->why);
	} else if (!ft->has_handle) {
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
		explain_plural(before, "packet", "packets"), wire ? ", after the one on the wire" : "");
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

/* The queue delay split: the waits for tokens (throttled reports, each up
 * to its until or the next report), and the rest, behind other packets:
 * its own queue, the wire, other classes. Said only of a packet that
 * waited for tokens, so the stories of prio and sfq read as before. */
static void x_tokens(FILE *out, const struct explain *x)
{
	uint64_t waited = x->t_dequeue - x->t_arrive;
	char b[64], c[64], h[16], w[32], by[32];

	if (!x->nthr)
		return;
	fmt_dur(b, sizeof(b), x->thr_ns);
	fmt_dur(c, sizeof(c), waited - x->thr_ns);
	fprintf(out, "  of that, %s waiting for tokens and %s behind other packets\n", b, c);
	for (size_t i = 0; i < x->nthr && i < sizeof(x->thr) / sizeof(x->thr[0]); i++) {
		const struct xthrottle *t = &x->thr[i];

		fmt_time(b, sizeof(b), t->t);
		fmt_time(c, sizeof(c), t->until);
		fmt_handle(h, sizeof(h), t->qhandle);
		fmt_class(w, sizeof(w), t->wclass);
		fmt_class(by, sizeof(by), t->by);
		fprintf(out, "    at %s, first in class %s, it was throttled by %s (%s): ", b, w, h, t->kind);
		if (!t->by)
			fprintf(out, "too few tokens until %s\n", c);
		else if (t->by == t->wclass)
			fprintf(out, "%s itself had no tokens it may use (over its ceil) until %s\n", by, c);
		else
			fprintf(out, "%s was over its rate and %s could not lend until %s\n", w, by, c);
	}
	if (x->nthr > sizeof(x->thr) / sizeof(x->thr[0]))
		fprintf(out, "    and %zu more waits\n", x->nthr - sizeof(x->thr) / sizeof(x->thr[0]));
}

void explain_tell(FILE *out, struct explain *x, const struct sim *s)
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
	if (x->mark)
		fprintf(out, ", skb->mark 0x%x", x->mark);
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
				x->enq_slot, x->enq_flowlen, explain_plural(x->enq_flowlen, "packet", "packets"));
		fprintf(out, "; the qdisc holds %u %s (%llu bytes)\n", x->enq_qlen,
			explain_plural(x->enq_qlen, "packet", "packets"), (unsigned long long)x->enq_backlog);
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
		case DROP_CODEL:
			fputs(" (its sojourn time had stayed above codel's target for an interval: "
			      "the control law dropped it at the head)",
			      out);
			break;
		case DROP_FQ_CODEL_FAT:
			fputs(" (fq_codel was over its limit or memory_limit: dropped from the flow "
			      "with the largest backlog)",
			      out);
			break;
		case DROP_FQ_CODEL_CLASSIFY: fputs(" (fq_codel's filters gave no flow)", out); break;
		case DROP_NETEM_LOSS:
			fputs(" (netem's loss model lost it: a seeded random draw, as the emulated "
			      "link would)",
			      out);
			break;
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
	x_tokens(out, x);
	fputs("transmission\n", out);
	fmt_time(b, sizeof(b), x->t_dequeue);
	fmt_class(c, sizeof(c), x->leaf);
	fmt_handle(h, sizeof(h), x->deq_qhandle);
	fprintf(out, "  dequeued at %s from %s (class %s); %u %s left in the root\n", b, h, c,
		x->deq_left, explain_plural(x->deq_left, "packet", "packets"));
	if (x->marked) {
		fmt_handle(h, sizeof(h), x->mark_qhandle);
		fmt_time(b, sizeof(b), x->mark_t);
		fmt_dur(c, sizeof(c), x->mark_sojourn);
		fprintf(out, "  ECN: marked CE at %s by %s (%s) after %s in it: %s\n", b, h,
			x->mark_kind, c,
			x->mark_why ? "above its ce_threshold"
				    : "codel would have dropped it, and it was ECN-capable");
	}
	if (x->borrowed) {
		char from[32];

		fmt_class(c, sizeof(c), x->borrow_class);
		fmt_class(from, sizeof(from), x->borrow_from);
		fprintf(out, "  borrowed: class %s was over its own rate, and %s (htb level %d) lent it the bandwidth\n",
			c, from, x->borrow_level);
	}
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
