/* report.c - text and JSON reports of a finished (or paused) run. Both
 * are byte-identical for the same inputs and seed: no clock, no addresses,
 * classes in classid order, verdicts in first-seen order sorted by key. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"
#include "report.h"
#include "tc.h"

static const char *kernel_name(enum bpf_kernel k)
{
	return k == BPF_KERNEL_3_13 ? "3.13" : "current";
}

void report_verdict_key(char *buf, size_t n, enum pkt_verdict_kind kind, uint32_t classid)
{
	if (kind == VERDICT_FILTER || kind == VERDICT_PRIORITY)
		tc_print_classid(buf, n, classid);
	else
		snprintf(buf, n, "unclassified");
}

/* Verdicts merged by key (a classid may come from several filters). */
struct vkey {
	char key[32];
	uint64_t packets;
};

static int vkey_cmp(const void *a, const void *b)
{
	return strcmp(((const struct vkey *)a)->key, ((const struct vkey *)b)->key);
}

static int merge_verdicts(const struct dev_stats *st, struct vkey **out)
{
	struct vkey *v = calloc((size_t)st->nverdicts + 1, sizeof(*v));
	int n = 0;

	if (!v)
		return -1;
	for (int i = 0; i < st->nverdicts; i++) {
		char key[32];
		int j;

		report_verdict_key(key, sizeof(key), st->verdicts[i].kind, st->verdicts[i].classid);
		for (j = 0; j < n && strcmp(v[j].key, key); j++)
			;
		if (j == n)
			snprintf(v[n++].key, sizeof(v[0].key), "%s", key);
		v[j].packets += st->verdicts[i].packets;
	}
	qsort(v, (size_t)n, sizeof(*v), vkey_cmp);
	*out = v;
	return n;
}

/* Filters by (pref, handle), ascending. */
struct fkey {
	uint32_t pref, handle;
	uint64_t packets;
};

static int fkey_cmp(const void *a, const void *b)
{
	const struct fkey *x = a, *y = b;

	if (x->pref != y->pref)
		return x->pref < y->pref ? -1 : 1;
	return x->handle < y->handle ? -1 : x->handle > y->handle;
}

static size_t chain_programs(const struct qdisc *root)
{
	size_t n = 0;

	if (root->ops->has_filters)
		for (const struct tcf_proto *tp = root->chain.head; tp; tp = tp->next)
			n += tp->ops->count(tp);
	return n;
}

/* Every filter that matched a packet, and every filter of the root's chain
 * now (a filter that never matched shows 0 hits). */
static int merge_filters(const struct dev *d, struct fkey **out)
{
	const struct dev_stats *st = &d->st;
	struct fkey *f = calloc((size_t)st->nverdicts + chain_programs(d->root) + 1, sizeof(*f));
	int n = 0;

	if (!f)
		return -1;
	if (d->root->ops->has_filters)
		for (const struct tcf_proto *tp = d->root->chain.head; tp; tp = tp->next) {
			uint32_t h;

			for (size_t i = 0; tp->ops->handle_at && !tp->ops->handle_at(tp, i, &h); i++) {
				f[n].pref = tp->prio >> 16;
				f[n++].handle = h;
			}
		}
	for (int i = 0; i < st->nverdicts; i++) {
		const struct verdict_count *v = &st->verdicts[i];
		int j;

		if (v->kind != VERDICT_FILTER)
			continue;
		for (j = 0; j < n && (f[j].pref != v->pref || f[j].handle != v->handle); j++)
			;
		if (j == n) {
			f[n].pref = v->pref;
			f[n++].handle = v->handle;
		}
		f[j].packets += v->packets;
	}
	qsort(f, (size_t)n, sizeof(*f), fkey_cmp);
	*out = f;
	return n;
}

/* ---- the root's classes, as a tree ----
 * For the kinds whose classes form a tree with counters of their own
 * (ops->class_xstat: htb). Empty for every other kind, whose rows stay
 * exactly as they were. */
struct ctree {
	struct qdisc_class *c;
	int n, failed;
};

static void ctree_add(void *arg, const struct qdisc_class *c)
{
	struct ctree *t = arg;
	struct qdisc_class *v = t->failed ? NULL : realloc(t->c, (size_t)(t->n + 1) * sizeof(*v));

	if (!v) {
		t->failed = 1; /* no tree: the rows are each class's own */
		return;
	}
	t->c = v;
	t->c[t->n++] = *c;
}

static void ctree_load(const struct dev *d, struct ctree *t)
{
	memset(t, 0, sizeof(*t));
	if (d->root->ops->class_xstat && d->root->ops->walk)
		d->root->ops->walk(d->root, ctree_add, t);
	if (t->failed) {
		free(t->c);
		memset(t, 0, sizeof(*t));
	}
}

static const struct qdisc_class *ctree_find(const struct ctree *t, uint32_t classid)
{
	for (int i = 0; i < t->n; i++)
		if (t->c[i].classid == classid)
			return &t->c[i];
	return NULL;
}

/* 1 if class id is class a or below it */
static int ctree_under(const struct ctree *t, uint32_t id, uint32_t a)
{
	for (int depth = 0; depth <= 8; depth++) { /* htb: at most 8 levels */
		const struct qdisc_class *c;

		if (id == a)
			return 1;
		c = ctree_find(t, id);
		if (!c || c->parent == TC_H_ROOT)
			return 0;
		id = c->parent;
	}
	return 0;
}

static int ctree_inner(const struct ctree *t, uint32_t classid)
{
	for (int i = 0; i < t->n; i++)
		if (t->c[i].parent == classid)
			return 1;
	return 0;
}

/* Row i as the report shows it: the class's own, or for an inner class of
 * a tree, the sum of every row below it. An inner class holds no packets;
 * what it carried is what its leaves sent (the kernel's bstats of an inner
 * class count the same packets, at dequeue). Free tmp's histograms after. */
static const struct class_stats *class_row(const struct dev_stats *st, const struct ctree *t, int i,
					   struct class_stats *tmp)
{
	const struct class_stats *c = &st->classes[i];

	if (!t->n || !ctree_inner(t, c->classid))
		return c;
	memset(tmp, 0, sizeof(*tmp));
	tmp->classid = c->classid;
	for (int j = 0; j < st->nclasses; j++) {
		const struct class_stats *l = &st->classes[j];

		if (!ctree_under(t, l->classid, c->classid))
			continue;
		tmp->packets += l->packets;
		tmp->bytes += l->bytes;
		tmp->drops += l->drops;
		tmp->drop_bytes += l->drop_bytes;
		/* out of memory: the delays show fewer samples, the counts stay */
		(void)(hist_merge(&tmp->queue_delay, &l->queue_delay) ||
		       hist_merge(&tmp->total_delay, &l->total_delay));
	}
	return tmp;
}

static void class_row_done(const struct class_stats *row, struct class_stats *tmp)
{
	if (row == tmp) {
		hist_free(&tmp->queue_delay);
		hist_free(&tmp->total_delay);
	}
}

static void us(FILE *out, uint64_t ns)
{
	fprintf(out, " %10.1f", (double)ns / 1000.0);
}

static void text_hist_row(FILE *out, const struct hist *h)
{
	us(out, h->n ? h->min : 0);
	us(out, (uint64_t)(hist_mean(h) + 0.5));
	us(out, hist_quantile(h, 0.50));
	us(out, hist_quantile(h, 0.90));
	us(out, hist_quantile(h, 0.99));
	us(out, h->max);
}

static void text_device(const struct dev *d, FILE *out)
{
	const struct dev_stats *st = &d->st;
	struct ctree tree;
	struct vkey *v = NULL;
	struct fkey *f = NULL;
	int nv, nf;

	fprintf(out, "dev %s: rate %" PRIu64 "bit overhead %u mtu %u txqueuelen %u\n", d->name,
		d->rate_bps, d->overhead, d->mtu, d->txqueuelen);
	fprintf(out, " arrived %" PRIu64 " sent %" PRIu64 " dropped %" PRIu64 " queued %" PRIu64
		     " rejected %" PRIu64 "\n",
		st->arrived, st->sent, st->dropped, dev_queued(d), st->rejected);
	if (st->duplicated) /* netem's copies: sent + dropped + queued counts them too */
		fprintf(out, " duplicated %" PRIu64 "\n", st->duplicated);
	for (int r = 1; r < DROP_REASONS; r++)
		if (st->drops_by[r])
			fprintf(out, " dropped (%s) %" PRIu64 "\n", pkt_drop_name(r), st->drops_by[r]);
	for (int r = 0; r < 8; r++)
		if (st->reject_by_reason[r])
			fprintf(out, " rejected (%s) %" PRIu64 "\n",
				st->reject_reasons[r] ? st->reject_reasons[r] : "other", st->reject_by_reason[r]);
	fputc('\n', out);
	tc_show_qdisc(d, out, 1);
	tc_show_class(d, out, 1);
	fputc('\n', out);
	fprintf(out, "%-8s %9s %12s %7s %6s | %-59s | %s\n", "class", "packets", "bytes", "drops", "share",
		"queue delay (us): min mean p50 p90 p99 max", "total delay (us): min mean p50 p90 p99 max");
	ctree_load(d, &tree);
	for (int i = 0; i < st->nclasses; i++) {
		struct class_stats tmp;
		const struct class_stats *c = class_row(st, &tree, i, &tmp);
		char id[32];

		tc_print_classid(id, sizeof(id), c->classid);
		fprintf(out, "%-8s %9" PRIu64 " %12" PRIu64 " %7" PRIu64 " %5.1f%% |", id, c->packets, c->bytes,
			c->drops, st->sent_bytes ? 100.0 * (double)c->bytes / (double)st->sent_bytes : 0.0);
		text_hist_row(out, &c->queue_delay);
		fputs(" |", out);
		text_hist_row(out, &c->total_delay);
		fputc('\n', out);
		class_row_done(c, &tmp);
	}
	free(tree.c);
	if (st->nsources) {
		fprintf(out, "\n%-20s %8s %8s %8s %8s %12s | %-59s | %s\n", "source", "arrived", "rejected", "sent",
			"dropped", "bytes sent", "queue delay (us): min mean p50 p90 p99 max",
			"total delay (us): min mean p50 p90 p99 max");
		for (int i = 0; i < st->nsources; i++) {
			const struct source_stats *so = &st->sources[i];
			const struct hist *q, *t;
			struct hist tq, tt;

			if (!so->used)
				continue;
			fprintf(out, "%-20s %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %12" PRIu64 " |",
				so->name, so->arrived, so->rejected, so->packets, so->drops, so->bytes);
			stats_source_delays(st, i, &tq, &tt, &q, &t); /* empty rows if out of memory */
			text_hist_row(out, q);
			fputs(" |", out);
			text_hist_row(out, t);
			fputc('\n', out);
			hist_free(&tq);
			hist_free(&tt);
		}
	}
	nv = merge_verdicts(st, &v);
	fputs("\nverdicts:", out);
	for (int i = 0; i < nv; i++)
		fprintf(out, " %s %" PRIu64 "%s", v[i].key, v[i].packets, i + 1 < nv ? "," : "");
	fputc('\n', out);
	nf = merge_filters(d, &f);
	if (nf > 0) {
		fputs("filter hits:", out);
		for (int i = 0; i < nf; i++)
			fprintf(out, " pref %u handle 0x%x: %" PRIu64 "%s", f[i].pref, f[i].handle, f[i].packets,
				i + 1 < nf ? "," : "");
		fputc('\n', out);
	}
	free(v);
	free(f);
}

void report_text(const struct sim *s, FILE *out)
{
	fprintf(out, "tcsim: %d device%s, %d source%s, seed %" PRIu64 ", kernel %s, simulated %.6f s\n",
		s->ndevs, s->ndevs == 1 ? "" : "s", s->nsrcs, s->nsrcs == 1 ? "" : "s", s->cfg.seed,
		kernel_name(s->cfg.kernel), (double)s->now / 1e9);
	if (s->cfg.timer_latency_ns) /* a model choice the numbers depend on */
		fprintf(out, "timer latency %" PRIu64 " ns: shapers' watchdogs fire that late\n",
			s->cfg.timer_latency_ns);
	for (int i = 0; i < s->ndevs; i++) {
		fputc('\n', out);
		text_device(s->devs[i], out);
	}
}

/* ---- JSON ---- */

/* A byte that is not UTF-8 (a capture's file name can hold any) becomes
 * U+FFFD: JSON is UTF-8, and tcsim's own reader refuses anything else. */
static void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (size_t n; *s; s += n) {
		unsigned char c = (unsigned char)*s;

		n = 1;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else if (c < 0x80)
			fputc(c, out);
		else if ((n = utf8_len(s, strlen(s))))
			fwrite(s, 1, n, out);
		else {
			fputs("\\ufffd", out);
			n = 1;
		}
	}
	fputc('"', out);
}

static void json_hist(FILE *out, const struct hist *h)
{
	fprintf(out,
		"{\"min\": %" PRIu64 ", \"mean\": %" PRIu64 ", \"p50\": %" PRIu64 ", \"p90\": %" PRIu64
		", \"p99\": %" PRIu64 ", \"max\": %" PRIu64 "}",
		h->n ? h->min : 0, (uint64_t)(hist_mean(h) + 0.5), hist_quantile(h, 0.5),
		hist_quantile(h, 0.9), hist_quantile(h, 0.99), h->max);
}

/* A tree kind's own keys of a class row, after the ones every kind has:
 * its parent class, then the kind's counters (class_xstat). */
static void json_class_xstats(FILE *out, const struct qdisc *root, const struct qdisc_class *c)
{
	const char *name;
	int64_t val;
	char parent[32];

	if (c->parent == TC_H_ROOT)
		snprintf(parent, sizeof(parent), "root");
	else
		tc_print_classid(parent, sizeof(parent), c->parent);
	fprintf(out, ", \"parent\": \"%s\"", parent);
	for (int i = 0; !root->ops->class_xstat(root, c, i, &name, &val); i++)
		fprintf(out, ", \"%s\": %" PRId64, name, val);
}

/* "options": what `tc -j qdisc show` prints for q, with tc's keys (the
 * kind's dump through a JSON printer) */
static void json_qdisc_options(FILE *out, const struct qdisc *q)
{
	struct tcprint p;

	fputs(", \"options\": ", out);
	pr_init(&p, out, 1, 0);
	pr_open_object(&p, NULL);
	if (q->ops->dump)
		q->ops->dump(q, &p, 0);
	pr_close_object(&p);
}

struct qdisc_json_ctx {
	FILE *out;
	int first;
};

static void json_qdisc(struct qdisc_json_ctx *ctx, const struct qdisc *q);

static void json_qdisc_class(void *arg, const struct qdisc_class *c)
{
	if (c->leaf)
		json_qdisc(arg, c->leaf);
}

static void json_qdisc(struct qdisc_json_ctx *ctx, const struct qdisc *q)
{
	char h[32], p[32];

	tc_print_classid(h, sizeof(h), q->handle);
	tc_print_classid(p, sizeof(p), q->parent);
	fprintf(ctx->out,
		"%s\n        {\"kind\": \"%s\", \"handle\": \"%s\", \"parent\": \"%s\", \"sent_bytes\": %" PRIu64
		", \"sent_packets\": %" PRIu64 ", \"drops\": %" PRIu64 ", \"overlimits\": %" PRIu64
		", \"requeues\": %" PRIu64 ", \"backlog_bytes\": %" PRIu64 ", \"qlen\": %u"
		", \"peak_backlog_bytes\": %" PRIu64 ", \"peak_qlen\": %u",
		ctx->first ? "" : ",", q->ops->id, q->invisible ? "0:" : h, p, q->s.bytes, q->s.packets,
		q->s.drops, q->s.overlimits, q->s.requeues, q->s.backlog, q->s.qlen, q->s.peak_backlog,
		q->s.peak_qlen);
	if (q->ops->xstat) {
		const char *name;
		int64_t val;

		for (int i = 0; !q->ops->xstat(q, i, &name, &val); i++)
			fprintf(ctx->out, ", \"%s\": %" PRId64, name, val);
	}
	json_qdisc_options(ctx->out, q);
	fputc('}', ctx->out);
	ctx->first = 0;
	if (q->ops->walk)
		q->ops->walk(q, json_qdisc_class, ctx);
}

static void json_device(const struct dev *d, FILE *out)
{
	const struct dev_stats *st = &d->st;
	struct qdisc_json_ctx ctx = {.out = out, .first = 1};
	struct ctree tree;
	struct vkey *v = NULL;
	struct fkey *f = NULL;
	int nv, nf, first = 1;

	fputs("    {\n      \"name\": ", out);
	json_str(out, d->name);
	fprintf(out,
		",\n      \"rate_bps\": %" PRIu64 ", \"overhead\": %u, \"mtu\": %u, \"txqueuelen\": %u"
		", \"delay_ns\": %" PRIu64 ",\n",
		d->rate_bps, d->overhead, d->mtu, d->txqueuelen, d->delay_ns);
	fprintf(out,
		"      \"totals\": {\"arrived\": %" PRIu64 ", \"sent\": %" PRIu64 ", \"dropped\": %" PRIu64
		", \"queued\": %" PRIu64 ", \"rejected\": %" PRIu64 ", \"sent_bytes\": %" PRIu64
		", \"dropped_bytes\": %" PRIu64,
		st->arrived, st->sent, st->dropped, dev_queued(d), st->rejected, st->sent_bytes,
		st->dropped_bytes);
	/* only when a netem made copies: the other runs keep exactly their keys */
	if (st->duplicated)
		fprintf(out, ", \"duplicated\": %" PRIu64, st->duplicated);
	fputs("},\n", out);
	fputs("      \"drops\": {", out);
	for (int r = 1; r < DROP_REASONS; r++)
		if (st->drops_by[r]) {
			fprintf(out, "%s\"%s\": %" PRIu64, first ? "" : ", ", pkt_drop_name(r), st->drops_by[r]);
			first = 0;
		}
	fputs("},\n      \"rejects\": {", out);
	first = 1;
	for (int r = 0; r < 8; r++)
		if (st->reject_by_reason[r]) {
			fprintf(out, "%s", first ? "" : ", ");
			json_str(out, st->reject_reasons[r] ? st->reject_reasons[r] : "other");
			fprintf(out, ": %" PRIu64, st->reject_by_reason[r]);
			first = 0;
		}
	fputs("},\n      \"classes\": [", out);
	ctree_load(d, &tree);
	for (int i = 0; i < st->nclasses; i++) {
		struct class_stats tmp;
		const struct class_stats *c = class_row(st, &tree, i, &tmp);
		const struct qdisc_class *qc = ctree_find(&tree, c->classid);
		char id[32];

		tc_print_classid(id, sizeof(id), c->classid);
		fprintf(out,
			"%s\n        {\"classid\": \"%s\", \"packets\": %" PRIu64 ", \"bytes\": %" PRIu64
			", \"drops\": %" PRIu64 ", \"delay_ns\": {\"queue\": ",
			i ? "," : "", id, c->packets, c->bytes, c->drops);
		json_hist(out, &c->queue_delay);
		fputs(", \"total\": ", out);
		json_hist(out, &c->total_delay);
		fputc('}', out);
		if (qc)
			json_class_xstats(out, d->root, qc);
		fputc('}', out);
		class_row_done(c, &tmp);
	}
	free(tree.c);
	fputs("\n      ],\n      \"sources\": [", out);
	for (int i = 0, sfirst = 1; i < st->nsources; i++) {
		const struct source_stats *so = &st->sources[i];
		const struct hist *q, *t;
		struct hist tq, tt;

		if (!so->used)
			continue;
		fprintf(out, "%s\n        {\"name\": ", sfirst ? "" : ",");
		json_str(out, so->name);
		fprintf(out,
			", \"arrived\": %" PRIu64 ", \"rejected\": %" PRIu64 ", \"packets\": %" PRIu64
			", \"bytes\": %" PRIu64 ", \"drops\": %" PRIu64 ", \"delay_ns\": {\"queue\": ",
			so->arrived, so->rejected, so->packets, so->bytes, so->drops);
		stats_source_delays(st, i, &tq, &tt, &q, &t);
		json_hist(out, q);
		fputs(", \"total\": ", out);
		json_hist(out, t);
		hist_free(&tq);
		hist_free(&tt);
		fputs("}}", out);
		sfirst = 0;
	}
	fputs("\n      ],\n      \"verdicts\": {", out);
	nv = merge_verdicts(st, &v);
	for (int i = 0; i < nv; i++)
		fprintf(out, "%s\"%s\": %" PRIu64, i ? ", " : "", v[i].key, v[i].packets);
	fputs("},\n      \"filters\": [", out);
	nf = merge_filters(d, &f);
	for (int i = 0; i < nf; i++)
		fprintf(out, "%s{\"pref\": %u, \"handle\": \"0x%x\", \"packets\": %" PRIu64 "}", i ? ", " : "",
			f[i].pref, f[i].handle, f[i].packets);
	fputs("],\n      \"qdiscs\": [", out);
	json_qdisc(&ctx, d->root);
	fputs("\n      ]\n    }", out);
	free(v);
	free(f);
}

void report_json(const struct sim *s, FILE *out)
{
	fprintf(out, "{\n  \"tcsim\": 1,\n  \"schema_version\": \"" REPORT_SCHEMA_VERSION "\",\n  \"seed\": %" PRIu64 ",\n  \"kernel\": \"%s\",\n  \"time_ns\": %" PRIu64 ",\n",
		s->cfg.seed, kernel_name(s->cfg.kernel), s->now);
	if (s->cfg.timer_latency_ns) /* only when set: results without it read as before */
		fprintf(out, "  \"timer_latency_ns\": %" PRIu64 ",\n", s->cfg.timer_latency_ns);
	fputs("  \"devices\": [\n", out);
	for (int i = 0; i < s->ndevs; i++) {
		json_device(s->devs[i], out);
		fputs(i + 1 < s->ndevs ? ",\n" : "\n", out);
	}
	fputs("  ]\n}\n", out);
}
