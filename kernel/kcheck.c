/* kcheck.c - `tcsim kernel-check`: tcsim's classification against the
 * running kernel's, from the same tc script and captures. How and why:
 * kcheck.h. Here tcsim's side, the plan for the kernel's and the
 * side-by-side table; the kernel side runs in kc_netns.c's child, alone in
 * a private network namespace, and reports its counters over a pipe. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "infile.h"
#include "kc_int.h"
#include "kcheck.h"
#include "qdisc.h"
#include "sim.h"
#include "source.h"
#include "tc.h"

/* ---- tcsim's side ---- */

struct kc_verdict {
	int unclassified;
	uint32_t classid;
	uint64_t packets, bytes;
};

struct kc_tcsim {
	const struct dev *d;
	struct kc_verdict *v;
	int n, cap, oom;
};

static void on_done(void *arg, const struct dev *d, const struct pkt *p)
{
	struct kc_tcsim *t = arg;
	int unc = !(p->verdict == VERDICT_FILTER || p->verdict == VERDICT_PRIORITY), i;
	uint32_t cid = unc ? 0 : p->classid;

	if (d != t->d)
		return;
	for (i = 0; i < t->n && (t->v[i].unclassified != unc || t->v[i].classid != cid); i++)
		;
	if (i == t->n) {
		if (t->n == t->cap) {
			int nc = t->cap ? 2 * t->cap : 16;
			struct kc_verdict *nv = realloc(t->v, (size_t)nc * sizeof(*nv));

			if (!nv) {
				t->oom = 1;
				return;
			}
			t->v = nv;
			t->cap = nc;
		}
		t->v[t->n++] = (struct kc_verdict){unc, cid, 0, 0};
	}
	t->v[i].packets++;
	t->v[i].bytes += p->len;
}

static void verdict_key(char *buf, size_t n, const struct kc_verdict *v)
{
	if (v->unclassified)
		snprintf(buf, n, "unclassified");
	else
		tc_print_classid(buf, n, v->classid);
}

/* unclassified last, classids ascending */
static int verdict_cmp(const void *a, const void *b)
{
	const struct kc_verdict *x = a, *y = b;

	if (x->unclassified != y->unclassified)
		return x->unclassified - y->unclassified;
	return x->classid < y->classid ? -1 : x->classid > y->classid;
}

/* ---- the plan ---- */

static int has_minor(const struct kc_plan *pl, uint32_t m)
{
	for (int i = 0; i < pl->nminors; i++)
		if (pl->minors[i] == m)
			return 1;
	return 0;
}

static void add_minor(struct kc_plan *pl, uint32_t cid)
{
	uint32_t m = TC_H_MIN(cid);

	if (TC_H_MAJ(cid) != pl->handle || !m || has_minor(pl, m) || pl->nminors >= KC_MAXCLASSES)
		return;
	pl->minors[pl->nminors++] = m;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void add_kind(struct kc_plan *pl, const char *kind)
{
	for (int i = 0; i < pl->nkinds; i++)
		if (!strcmp(pl->kinds[i], kind))
			return;
	if (pl->nkinds < KC_MAXKINDS)
		snprintf(pl->kinds[pl->nkinds++], sizeof(pl->kinds[0]), "%s", kind);
}

static void scan_tree(struct kc_plan *pl, const struct qdisc *q)
{
	struct kc_classes *cl;

	add_kind(pl, q->ops->id);
	if (q->ops == &htb_qdisc_ops || q->ops == &tbf_qdisc_ops)
		pl->shaper = 1;
	if (q != pl->d->root && q->ops->has_filters && q->chain.head)
		pl->inner_filters = 1;
	if (!q->ops->walk || !(cl = calloc(1, sizeof(*cl))))
		return;
	q->ops->walk(q, kc_collect_class, cl);
	for (int i = 0; i < cl->n; i++)
		if (cl->c[i].leaf && !cl->c[i].leaf->invisible && cl->c[i].leaf != q)
			scan_tree(pl, cl->c[i].leaf);
	free(cl);
}


/* The word after "limit" in a fifo's dump ("20p", "256Kb"), for the note. */
static void fifo_limit_text(const struct qdisc *q, char *buf, size_t n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	buf[0] = 0;
	if (!f)
		return;
	qdisc_dump_text(q, f, 0);
	fclose(f);
	if (text && !strncmp(text, "limit ", 6))
		snprintf(buf, n, "%s", text + 6);
	free(text);
}

static void note_raised(struct kc_plan *pl, const struct qdisc *q, const char *what,
			const char *from, const char *to)
{
	size_t l = strlen(pl->raised);
	char h[32];

	tc_print_classid(h, sizeof(h), q->handle);
	snprintf(pl->raised + l, sizeof(pl->raised) - l, "%s%s %s %s %s -> %s", l ? ", " : "", h,
		 q->ops->id, what, from, to);
}

/* A shaper holds packets, and the replay feeds the kernel faster than the
 * capture fed tcsim: with the scenario's limits the two would drop
 * different packets for reasons of timing alone. Every explicit limit
 * below a shaper's tree is raised (in tcsim's tree, before it runs, and so
 * in the kernel's, built from it) to one no run reaches; default leaves
 * and htb's direct queue take the txqueuelen (KC_TXQLEN) on both sides.
 * What remains to compare (classification, the tbf's drops of packets over
 * its burst) does not depend on timing. The tree is this function's own
 * simulation's: changing it changes nothing of the caller's. */
static int raise_limits(struct kc_plan *pl, struct qdisc *q, char *err, size_t errlen)
{
	struct kc_classes *cl;
	char from[32], to[32];
	int rc = 0;

	if ((q->ops == &pfifo_qdisc_ops || q->ops == &bfifo_qdisc_ops ||
	     q->ops == &pfifo_head_drop_qdisc_ops) &&
	    !q->invisible) {
		int bytes = q->ops == &bfifo_qdisc_ops;
		char lim[16], *argv[] = {"limit", lim};

		fifo_limit_text(q, from, sizeof(from));
		snprintf(lim, sizeof(lim), "%u", bytes ? KC_LIMIT_BYTES : KC_LIMIT_PKTS);
		if ((rc = q->ops->change(q, 2, argv, err, errlen)))
			return rc;
		fifo_limit_text(q, to, sizeof(to));
		if (strcmp(from, to))
			note_raised(pl, q, "limit", from, to);
	} else if (q->ops == &tbf_qdisc_ops) {
		struct tbf_kc_req t;

		tbf_kc_get(q, &t);
		if (t.opt.limit < KC_LIMIT_BYTES) {
			if ((rc = tbf_kc_set_limit(q, KC_LIMIT_BYTES, err, errlen)))
				return rc;
			snprintf(from, sizeof(from), "%u", t.opt.limit);
			snprintf(to, sizeof(to), "%u", KC_LIMIT_BYTES);
			note_raised(pl, q, "limit", from, to);
		}
	} else if (q->ops == &htb_qdisc_ops) {
		struct tc_htb_glob g;
		uint32_t dq;

		htb_kc_glob(q, &g, &dq);
		if (dq < KC_TXQLEN) {
			htb_kc_set_direct_qlen(q, KC_TXQLEN);
			snprintf(from, sizeof(from), "%u", dq);
			snprintf(to, sizeof(to), "%u", KC_TXQLEN);
			note_raised(pl, q, "direct_qlen", from, to);
		}
	}
	if (!q->ops->walk)
		return 0;
	if (!(cl = calloc(1, sizeof(*cl)))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	q->ops->walk(q, kc_collect_class, cl);
	for (int i = 0; i < cl->n && !rc; i++)
		if (cl->c[i].leaf && cl->c[i].leaf != q)
			/* the leaf is this simulation's own qdisc; walk hands it out const */
			rc = raise_limits(pl, (struct qdisc *)cl->c[i].leaf, err, errlen);
	free(cl);
	return rc;
}
/* The htb stand-in's row for a tcsim verdict (htb_classify's folding). */
static uint32_t fold(const struct kc_plan *pl, const struct kc_verdict *v)
{
	if (!v->unclassified) {
		if (v->classid == pl->handle)
			return pl->handle; /* the direct queue */
		if (TC_H_MAJ(v->classid) == pl->handle && has_minor(pl, TC_H_MIN(v->classid)))
			return v->classid;
	}
	return TC_H_MAKE(pl->handle, pl->defminor);
}

/* ---- the table ---- */

struct kc_line {
	uint32_t classid;
	const char *note;
	uint64_t kp, kb, tp, tb, kd, td;
	char folded[256];
};

static int print_line(FILE *out, const char *label, const struct kc_line *l, int drops)
{
	int same = l->kp == l->tp && l->kb == l->tb && (!drops || l->kd == l->td);

	fprintf(out, "%-16s %12" PRIu64 " %12" PRIu64 " %14" PRIu64 " %14" PRIu64, label, l->kp, l->tp,
		l->kb, l->tb);
	if (drops)
		fprintf(out, " %8" PRIu64 " %8" PRIu64, l->kd, l->td);
	fprintf(out, "  %-4s%s%s\n", same ? "ok" : "DIFF", l->folded[0] ? "  tcsim: " : "", l->folded);
	return same;
}

static void row_label(char *buf, size_t n, uint32_t classid, const char *note)
{
	char c[32];

	tc_print_classid(c, sizeof(c), classid);
	snprintf(buf, n, "%s%s%s", c, note ? " " : "", note ? note : "");
}

static const struct kc_row *krow(const struct kc_result *r, uint32_t classid)
{
	for (int i = 0; i < r->nrows; i++)
		if (r->rows[i].classid == classid)
			return &r->rows[i];
	return NULL;
}

static int report(const struct kc_plan *pl, const struct kc_tcsim *t, const struct kc_result *r,
		  const char *tc_name, FILE *out)
{
	const struct dev *d = pl->d;
	char label[64], h[32];
	int same = 1, drops = r->tree, nlines = 0;
	struct kc_line *lines = calloc(KC_MAXROWS + 2, sizeof(*lines)), tot = {0};
	uint64_t tcls = 0, tcbytes = 0;

	if (!lines) {
		fprintf(out, "kernel-check: out of memory\n");
		return KCHECK_ERROR;
	}
	tc_print_classid(h, sizeof(h), pl->handle);
	fprintf(out, "kernel-check: %s on %s, %d capture%s: %" PRIu64 " frames read, %" PRIu64
		" sent into the veth, %" PRIu64 " rejected as tcsim rejects them\n",
		tc_name, d->name, pl->ncaps, pl->ncaps == 1 ? "" : "s", r->read, r->sent, r->rejected);
	if (r->tree) {
		fprintf(out, "kernel: the scenario's own tree (");
		for (int i = 0; i < pl->nkinds; i++)
			fprintf(out, "%s%s", i ? ", " : "", pl->kinds[i]);
		fprintf(out, "); rows are the classes of the root %s\n", h);
	} else {
		fprintf(out, "kernel: htb stand-in, root %s, classes", h);
		for (int i = 0; i < pl->nminors; i++)
			fprintf(out, " %x:%x", pl->handle >> 16, pl->minors[i]);
		fprintf(out, ", default %x:%x%s%s%s; rows are classids as htb folds them\n", pl->handle >> 16,
			pl->defminor, r->absent[0] ? " (this kernel has no " : "", r->absent,
			r->absent[0] ? ")" : " (--htb)");
	}
	fprintf(out, "tcsim verdicts:");
	for (int i = 0; i < t->n; i++) {
		char k[32];

		verdict_key(k, sizeof(k), &t->v[i]);
		fprintf(out, " %s %" PRIu64 "%s", k, t->v[i].packets, i + 1 < t->n ? "," : "");
		tcls += t->v[i].packets;
		tcbytes += t->v[i].bytes;
	}
	fprintf(out, "%s\n\n", t->n ? "" : " none");
	fprintf(out, "%-16s %12s %12s %14s %14s", "classid", "kernel pkts", "tcsim pkts", "kernel bytes",
		"tcsim bytes");
	if (drops)
		fprintf(out, " %8s %8s", "k drops", "t drops");
	fprintf(out, "\n");

	if (r->tree) {
		/* the root's classes, kernel's and tcsim's */
		for (int i = 0; i < r->nrows && nlines < KC_MAXROWS; i++)
			if (TC_H_MAJ(r->rows[i].classid) == pl->handle && TC_H_MIN(r->rows[i].classid))
				lines[nlines++].classid = r->rows[i].classid;
		for (int i = 0; i < d->st.nclasses && nlines < KC_MAXROWS; i++) {
			int j;

			for (j = 0; j < nlines && lines[j].classid != d->st.classes[i].classid; j++)
				;
			if (j == nlines && d->st.classes[i].classid != pl->handle)
				lines[nlines++].classid = d->st.classes[i].classid;
		}
		for (int i = 0; i < nlines; i++) {
			const struct kc_row *k = krow(r, lines[i].classid);

			if (k) {
				lines[i].kp = k->packets;
				lines[i].kb = k->bytes;
				lines[i].kd = k->drops;
			}
			for (int j = 0; j < d->st.nclasses; j++)
				if (d->st.classes[j].classid == lines[i].classid) {
					lines[i].tp = d->st.classes[j].packets;
					lines[i].tb = d->st.classes[j].bytes;
					lines[i].td = d->st.classes[j].drops;
				}
		}
	} else {
		for (int i = 0; i < pl->nminors; i++)
			lines[nlines++].classid = TC_H_MAKE(pl->handle, pl->minors[i]);
		lines[nlines].classid = TC_H_MAKE(pl->handle, pl->defminor);
		lines[nlines++].note = "(default)";
		lines[nlines].classid = pl->handle;
		lines[nlines++].note = "(direct)";
		for (int i = 0; i < nlines; i++) {
			const struct kc_row *k = krow(r, lines[i].classid);

			if (lines[i].classid == pl->handle) {
				lines[i].kp = r->direct;
				/* htb has no byte count for its direct queue: the rest of the root's */
				lines[i].kb = r->q_bytes;
				for (int j = 0; j < r->nrows; j++)
					if (TC_H_MAJ(r->rows[j].classid) == pl->handle)
						lines[i].kb -= r->rows[j].bytes;
			} else if (k) {
				lines[i].kp = k->packets;
				lines[i].kb = k->bytes;
			}
		}
		for (int i = 0; i < t->n; i++) {
			uint32_t row = fold(pl, &t->v[i]);

			for (int j = 0; j < nlines; j++) {
				char k[32], *f = lines[j].folded;
				size_t fl = strlen(f);

				if (lines[j].classid != row)
					continue;
				lines[j].tp += t->v[i].packets;
				lines[j].tb += t->v[i].bytes;
				verdict_key(k, sizeof(k), &t->v[i]);
				if (t->v[i].unclassified || t->v[i].classid != row)
					snprintf(f + fl, sizeof(lines[j].folded) - fl, "%s%s %" PRIu64, fl ? ", " : "", k,
						 t->v[i].packets);
			}
		}
	}
	for (int i = 0; i < nlines; i++) {
		row_label(label, sizeof(label), lines[i].classid, lines[i].note);
		same &= print_line(out, label, &lines[i], drops);
		tot.kd += lines[i].kd;
		tot.td += lines[i].td;
	}
	/* totals: everything the kernel's root counted (nothing of its own may
	 * be there) against everything tcsim classified */
	tot.kp = r->q_packets;
	tot.kb = r->q_bytes;
	tot.tp = tcls;
	tot.tb = tcbytes;
	if (drops) {
		tot.kd = r->q_drops;
		tot.td = d->st.dropped;
	}
	same &= print_line(out, "total", &tot, drops);

	if (r->q_packets != r->sent) {
		same = 0;
		fprintf(out, "DIFF: the kernel's root counted %" PRIu64 " packets, %" PRIu64
			" frames were sent into the veth%s\n", r->q_packets, r->sent,
			r->q_packets > r->sent ? ": the kernel sent packets of its own" : "");
	}
	if (r->failed) {
		same = 0;
		fprintf(out, "DIFF: %" PRIu64 " frame(s) could not be sent (the first, packet %" PRIu64
			" of %s: %s); tcsim classified them\n", r->failed, r->fail_index,
			pl->caps[r->fail_cap], strerror(r->fail_errno));
	}
	if (d->st.rejected != r->rejected) {
		same = 0;
		fprintf(out, "DIFF: tcsim rejected %" PRIu64 " frames, the replay left out %" PRIu64 "\n",
			d->st.rejected, r->rejected);
	}
	if (!r->drained) {
		same = 0;
		fprintf(out, "DIFF: the kernel's qdisc still held %" PRIu64 " packets after 10 s\n", r->q_qlen);
	}
	if (!r->tree && r->q_drops) {
		same = 0;
		fprintf(out, "DIFF: the htb stand-in dropped %" PRIu64 " packets\n", r->q_drops);
	}
	if (!r->tree && !r->have_direct)
		fprintf(out, "note: htb reported no direct_packets_stat\n");
	if (r->noqueue)
		fprintf(out, "note: a noqueue root keeps no counters in the kernel (packets go straight "
			"to the driver): the kernel's total is the veth's tx counters\n");
	if (r->truncated)
		fprintf(out, "note: %" PRIu64 " frame(s) were snaplen-truncated: the kernel received only their captured "
			"bytes (skb->len = caplen), tcsim keeps the wire length, so bytes differ and so may "
			"filters that read len or past the captured bytes (a known difference)\n",
			r->truncated);
	if (r->rejected)
		fprintf(out, "note: %" PRIu64 " frame(s) were not sent: tcsim rejects them (%s), a packet socket "
			"cannot send them\n", r->rejected, d->st.reject_reasons[0] ? d->st.reject_reasons[0] : "?");
	fprintf(out, "%s\n", same ? "kernel-check: same" : "kernel-check: DIFFERENT");
	free(lines);
	return same ? KCHECK_SAME : KCHECK_DIFF;
}


/* ---- the table of a shaping tree: every qdisc and every class ---- */

struct kc_srow {
	char label[64];
	int is_class;
	uint32_t key; /* a class's classid; a qdisc's parent (unique on a device) */
	uint64_t tp, tb, td;
};

struct kc_srows {
	struct kc_srow v[KC_MAXROWS];
	int n;
};

static void srows_add(struct kc_srows *s, const struct qdisc *q)
{
	struct kc_classes *cl;
	char h[32], p[32];

	if (s->n < KC_MAXROWS) {
		struct kc_srow *w = &s->v[s->n++];

		tc_print_classid(h, sizeof(h), q->handle);
		tc_print_classid(p, sizeof(p), q->parent);
		/* a default child has no handle in tcsim; the kernel names it */
		if (q->invisible)
			snprintf(w->label, sizeof(w->label), "qdisc %s (default) parent %s", q->ops->id, p);
		else
			snprintf(w->label, sizeof(w->label), "qdisc %s %s", q->ops->id, h);
		w->key = q->parent;
		w->tp = q->s.packets;
		w->tb = q->s.bytes;
		w->td = q->s.drops;
	}
	if (!q->ops->walk || !(cl = calloc(1, sizeof(*cl))))
		return;
	q->ops->walk(q, kc_collect_class, cl);
	for (int i = 0; i < cl->n; i++) {
		/* tbf's 1:1 has no statistics of its own, in tcsim as in the kernel */
		if (!cl->c[i].no_stats && s->n < KC_MAXROWS) {
			struct kc_srow *w = &s->v[s->n++];

			tc_print_classid(h, sizeof(h), cl->c[i].classid);
			snprintf(w->label, sizeof(w->label), "class %s %s", q->ops->id, h);
			w->is_class = 1;
			w->key = cl->c[i].classid;
			w->tp = cl->c[i].stats.packets;
			w->tb = cl->c[i].stats.bytes;
			w->td = cl->c[i].stats.drops;
		}
	}
	for (int i = 0; i < cl->n; i++)
		if (cl->c[i].leaf && cl->c[i].leaf != q)
			srows_add(s, cl->c[i].leaf);
	free(cl);
}

static int report_shaper(const struct kc_plan *pl, const struct kc_result *r, const char *tc_name,
			 FILE *out)
{
	const struct dev *d = pl->d;
	struct kc_srows *s = calloc(1, sizeof(*s));
	int same = 1;

	if (!s) {
		fprintf(out, "kernel-check: out of memory\n");
		return KCHECK_ERROR;
	}
	fprintf(out, "kernel-check: %s on %s, %d capture%s: %" PRIu64 " frames read, %" PRIu64
		" sent into the veth, %" PRIu64 " rejected as tcsim rejects them\n",
		tc_name, d->name, pl->ncaps, pl->ncaps == 1 ? "" : "s", r->read, r->sent, r->rejected);
	fprintf(out, "kernel: the scenario's own tree (");
	for (int i = 0; i < pl->nkinds; i++)
		fprintf(out, "%s%s", i ? ", " : "", pl->kinds[i]);
	fprintf(out, "), with tcsim's parameters; rows are every qdisc and class\n");
	fprintf(out, "limits: the replay feeds the kernel faster than the capture fed tcsim, so no "
		"queue may fill: txqueuelen %u (default leaves, htb's direct queue)%s%s; with them "
		"the kernel's timing cannot change a count\n", KC_TXQLEN,
		pl->raised[0] ? "; raised on both sides: " : "", pl->raised);
	fprintf(out, "\n%-36s %12s %12s %14s %14s %8s %8s\n", "row", "kernel pkts", "tcsim pkts",
		"kernel bytes", "tcsim bytes", "k drops", "t drops");
	srows_add(s, d->root);
	for (int i = 0; i < s->n; i++) {
		const struct kc_srow *w = &s->v[i];
		const struct kc_row *k = NULL;
		int eq;

		if (w->is_class) {
			k = krow(r, w->key);
		} else {
			for (int j = 0; j < r->nqrows && !k; j++)
				if (r->qrows[j].parent == w->key)
					k = &r->qrows[j];
		}
		if (!k) {
			same = 0;
			fprintf(out, "%-36s %12s %12" PRIu64 " %14s %14" PRIu64 " %8s %8" PRIu64
				"  DIFF (the kernel has no such %s)\n", w->label, "-", w->tp, "-", w->tb, "-",
				w->td, w->is_class ? "class" : "qdisc");
			continue;
		}
		eq = k->packets == w->tp && k->bytes == w->tb && k->drops == w->td;
		same &= eq;
		fprintf(out, "%-36s %12" PRIu64 " %12" PRIu64 " %14" PRIu64 " %14" PRIu64 " %8" PRIu64
			" %8" PRIu64 "  %s\n", w->label, k->packets, w->tp, k->bytes, w->tb, k->drops, w->td,
			eq ? "ok" : "DIFF");
	}
	if (d->root->ops == &htb_qdisc_ops) {
		struct tc_htb_glob g;
		uint32_t dq;
		int eq;

		/* the direct queue has no class: its own counter, the root's */
		htb_kc_glob(d->root, &g, &dq);
		eq = r->have_direct && r->direct == g.direct_pkts;
		same &= eq;
		fprintf(out, "%-36s %12" PRIu64 " %12u %14s %14s %8s %8s  %s\n", "htb direct_packets_stat",
			r->direct, g.direct_pkts, "", "", "", "", eq ? "ok" : "DIFF");
	}
	if (r->q_packets + r->q_drops != r->sent) {
		same = 0;
		fprintf(out, "DIFF: the kernel's root counted %" PRIu64 " packets sent and %" PRIu64
			" dropped, %" PRIu64 " frames were sent into the veth\n", r->q_packets, r->q_drops,
			r->sent);
	}
	if (r->failed) {
		same = 0;
		fprintf(out, "DIFF: %" PRIu64 " frame(s) could not be sent (the first, packet %" PRIu64
			" of %s: %s)\n", r->failed, r->fail_index, pl->caps[r->fail_cap],
			strerror(r->fail_errno));
	}
	if (d->st.rejected != r->rejected) {
		same = 0;
		fprintf(out, "DIFF: tcsim rejected %" PRIu64 " frames, the replay left out %" PRIu64 "\n",
			d->st.rejected, r->rejected);
	}
	if (!r->drained) {
		same = 0;
		fprintf(out, "DIFF: the kernel's qdisc still held %" PRIu64
			" packets after 10 s without a departure\n", r->q_qlen);
	}
	if (r->xmit_drops)
		fprintf(out, "note: %" PRIu64 " frame(s) were dropped by the kernel's qdisc as they were "
			"sent (the packet socket's send said ENOBUFS)\n", r->xmit_drops);
	if (r->truncated)
		fprintf(out, "note: %" PRIu64 " frame(s) were snaplen-truncated: the kernel received only "
			"their captured bytes, tcsim keeps the wire length (a known difference)\n",
			r->truncated);
	fprintf(out, "%s\n", same ? "kernel-check: same" : "kernel-check: DIFFERENT");
	free(s);
	return same ? KCHECK_SAME : KCHECK_DIFF;
}
/* ---- entry points ---- */

static int kc_err(char *err, size_t errlen, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int kc_err(char *err, size_t errlen, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return code;
}

int kernel_check(const char *tc_text, const char *tc_name, const char *basedir,
		 const char *devname, const char *const *captures, int ncaptures,
		 const struct kcheck_opts *o, FILE *out, char *err, size_t errlen)
{
	struct kcheck_opts dflt = {0};
	struct sim_config cfg;
	struct replay_opts ro;
	struct sim s;
	struct kc_plan *pl = NULL;
	struct kc_result *r = NULL;
	struct kc_tcsim t = {0};
	struct sim_observer obs = {.done = on_done, .arg = &t};
	char *tcout = NULL;
	size_t tcout_len = 0;
	FILE *tcmem;
	struct dev *d;
	int rc = KCHECK_ERROR, sig, names_root;

	if (!o)
		o = &dflt;
	if (ncaptures < 1)
		return kc_err(err, errlen, KCHECK_ERROR, "no capture given");
	if (geteuid() != 0)
		return kc_err(err, errlen, KCHECK_CANNOT_RUN,
			      "not root: kernel-check creates a network namespace, a veth pair and a packet socket");
	sim_config_default(&cfg);
	cfg.seed = o->seed ? o->seed : 1;
	cfg.rate_bps = 0; /* infinitely fast: nothing queues, nothing drops */
	cfg.mtu = 65535;
	cfg.txqueuelen = KC_TXQLEN;
	replay_opts_default(&ro);
	ro.prio_mode = o->prio_forward ? PRIO_FORWARD : PRIO_FIXED;
	ro.priority = o->priority;
	ro.vlan_inline = 1;
	ro.limit = o->limit;
	if (sim_init(&s, &cfg))
		return kc_err(err, errlen, KCHECK_ERROR, "out of memory");
	tcmem = open_memstream(&tcout, &tcout_len);
	pl = calloc(1, sizeof(*pl));
	r = calloc(1, sizeof(*r));
	if (!tcmem || !pl || !r) {
		rc = kc_err(err, errlen, KCHECK_ERROR, "out of memory");
		goto out;
	}
	if (tc_run_script(&s, tc_text, tc_name, basedir, tcmem, err, errlen))
		goto out;
	d = devname ? sim_dev_find(&s, devname) : s.ndevs ? s.devs[0] : NULL;
	if (!d) {
		if (devname)
			kc_err(err, errlen, KCHECK_ERROR, "--dev %s: %s configures no such device", devname, tc_name);
		else
			kc_err(err, errlen, KCHECK_ERROR, "%s configures no device (no \"dev NAME\")", tc_name);
		goto out;
	}
	pl->d = d;
	pl->mode = o->mode;
	pl->caps = captures;
	pl->ncaps = ncaptures;
	pl->limit = o->limit;
	pl->handle = d->root->handle;
	pl->show = o->verbose;
	snprintf(pl->kdev, sizeof(pl->kdev), "%s", strcmp(d->name, "lo") ? d->name : "kcdev0");
	snprintf(pl->kpeer, sizeof(pl->kpeer), "%s", strcmp(pl->kdev, "kcpeer0") ? "kcpeer0" : "kcpeer1");
	scan_tree(pl, d->root);
	if (!d->root->handle) {
		kc_err(err, errlen, KCHECK_ERROR,
		       "the root qdisc of %s (%s) has no handle: kernel-check builds it with tcsim's own (add one with "
		       "\"qdisc add dev %s root handle 1: %s ...\")", d->name, d->root->ops->id, d->name, d->root->ops->id);
		goto out;
	}
	if (pl->shaper && raise_limits(pl, d->root, err, errlen))
		goto out;
	pl->prio_forward = o->prio_forward;
	pl->priority = o->priority;
	pl->cap_prio = o->cap_prio;
	pl->marks = &o->marks;
	pl->cap_marks = o->cap_marks;
	/* A priority matters to the stand-in only where it names the root (prio
	 * and htb then take it as a class, each its own way): a forwarded one
	 * (rt_tos2priority, 0..6) never does, and cls_bpf cannot read it. One
	 * that meets no filter is "unclassified" on both sides (the stand-in's
	 * default row; prio's priomap band in tcsim's verdict). */
	names_root = !o->prio_forward && o->priority && TC_H_MAJ(o->priority) == pl->handle;
	for (int i = 0; o->cap_prio && i < ncaptures; i++)
		names_root |= !o->cap_prio[i].forward && o->cap_prio[i].priority &&
			      TC_H_MAJ(o->cap_prio[i].priority) == pl->handle;
	if (d->root->ops != &prio_qdisc_ops && pl->mode != KCHECK_TREE)
		pl->mode = KCHECK_TREE, pl->forced_tree = "the htb stand-in replaces a prio root only";
	if (names_root && pl->mode == KCHECK_HTB) {
		kc_err(err, errlen, KCHECK_ERROR,
		       "--priority %x:%x names a class of the root, which prio and the htb stand-in take differently; use --tree",
		       TC_H_MAJ(o->priority) >> 16, TC_H_MIN(o->priority));
		goto out;
	}
	if (names_root && pl->mode != KCHECK_TREE)
		pl->mode = KCHECK_TREE,
		pl->forced_tree = "a priority names a class of the root, which prio and the htb stand-in take differently";
	if (pl->inner_filters && pl->mode == KCHECK_HTB) {
		kc_err(err, errlen, KCHECK_ERROR,
		       "filters on inner qdiscs of %s: the htb stand-in checks the root's filters only", d->name);
		goto out;
	}

	for (int i = 0; i < ncaptures; i++) {
		struct source *src;

		if (o->cap_prio) {
			ro.prio_mode = o->cap_prio[i].forward ? PRIO_FORWARD : PRIO_FIXED;
			ro.priority = o->cap_prio[i].priority;
		}
		ro.marks = o->cap_marks ? o->cap_marks[i] : o->marks;
		if (src_open_capture(&src, captures[i], &ro, err, errlen) ||
		    sim_add_source(&s, src, d, ro.vlan_inline, err, errlen))
			goto out;
	}
	t.d = d;
	if (sim_observe(&s, &obs, err, errlen))
		goto out;
	if (sim_run(&s)) {
		kc_err(err, errlen, KCHECK_ERROR, "tcsim: %s", s.err);
		goto out;
	}
	sim_unobserve(&s, &obs);
	if (t.oom) {
		rc = kc_err(err, errlen, KCHECK_ERROR, "out of memory");
		goto out;
	}
	if (sim_check_accounting(&s, err, errlen))
		goto out;
	if (t.n)
		qsort(t.v, (size_t)t.n, sizeof(*t.v), verdict_cmp);

	/* the stand-in's classes: the bands, every flowid and every verdict of the root's major */
	if (d->root->ops == &prio_qdisc_ops) {
		struct kc_classes *cl = calloc(1, sizeof(*cl));

		if (!cl) {
			rc = kc_err(err, errlen, KCHECK_ERROR, "out of memory");
			goto out;
		}
		d->root->ops->walk(d->root, kc_collect_class, cl);
		for (int i = 0; i < cl->n; i++)
			add_minor(pl, cl->c[i].classid);
		free(cl);
	}
	for (const struct tcf_proto *tp = d->root->chain.head; tp; tp = tp->next) {
		struct cls_bpf_info pi;
		struct cls_u32_elem ui;

		for (size_t i = 0; !cls_bpf_prog_at(tp, i, &pi); i++)
			if (pi.has_classid)
				add_minor(pl, pi.classid);
		for (size_t i = 0; !cls_u32_elem_at(tp, i, &ui); i++)
			if (ui.classid)
				add_minor(pl, ui.classid);
	}
	for (int i = 0; i < t.n; i++)
		if (!t.v[i].unclassified)
			add_minor(pl, t.v[i].classid);
	qsort(pl->minors, (size_t)pl->nminors, sizeof(pl->minors[0]), cmp_u32);
	for (pl->defminor = 0x99; has_minor(pl, pl->defminor); pl->defminor++)
		;

	if (kc_run_kernel(pl, r)) {
		rc = kc_err(err, errlen, r->status == KCHECK_CANNOT_RUN ? KCHECK_CANNOT_RUN : KCHECK_ERROR, "%s",
			    r->msg);
		goto out;
	}
	if (o->verbose) {
		char show[160];

		fprintf(out, "kernel: tc -d qdisc show; tc -d class show (before the replay):\n%s", r->show);
		fprintf(out, "tcsim: the same:\n");
		fflush(out);
		snprintf(show, sizeof(show), "-d qdisc show dev %s\n-d class show dev %s\n", d->name, d->name);
		if (tc_run_script(&s, show, "kernel-check", NULL, out, err, errlen))
			goto out;
		fprintf(out, "kernel classes:\n");
		for (int i = 0; i < r->nrows; i++) {
			char c[32], p[32];

			tc_print_classid(c, sizeof(c), r->rows[i].classid);
			tc_print_classid(p, sizeof(p), r->rows[i].parent);
			fprintf(out, "  class %s %s parent %s: %" PRIu64 " packets, %" PRIu64 " bytes, %" PRIu64
				" drops\n", r->rows[i].kind, c, p, r->rows[i].packets, r->rows[i].bytes, r->rows[i].drops);
		}
		fprintf(out, "  root qdisc: %" PRIu64 " packets, %" PRIu64 " bytes, %" PRIu64 " drops%s%" PRIu64 "\n",
			r->q_packets, r->q_bytes, r->q_drops, r->have_direct ? ", direct_packets_stat " : "",
			r->have_direct ? r->direct : 0);
	}
	rc = pl->shaper && r->tree ? report_shaper(pl, r, tc_name, out) : report(pl, &t, r, tc_name, out);
out:
	sim_unobserve(&s, &obs);
	sig = kc_signal;
	kc_signal = 0;
	if (tcmem)
		fclose(tcmem);
	free(tcout);
	free(t.v);
	free(pl);
	free(r);
	sim_free(&s);
	if (sig) {
		raise(sig); /* the caller's own disposition decides */
		kc_err(err, errlen, KCHECK_ERROR, "interrupted (%s)", strsignal(sig));
		return KCHECK_ERROR;
	}
	return rc;
}
