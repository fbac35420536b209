/* tc_show.c - `tc qdisc|class|filter show` as iproute2 6.x prints what the
 * kernel dumps (tc_qdisc.c print_qdisc, tc_class.c print_class,
 * tc_filter.c print_filter, tc_util.c print_tcstats2_attr), trailing
 * spaces included; the dump order is the kernel's (sch_api.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tc.h"

/* ---- the kernel's dump order ---- */

struct order_ctx {
	const struct qdisc **v;
	int n, max;
	int invisible;
};

static void order_collect(const struct qdisc *q, struct order_ctx *ctx);

static void order_class(void *arg, const struct qdisc_class *c)
{
	struct order_ctx *ctx = arg;

	if (!c->leaf)
		return;
	if (!c->leaf->unlisted && (!c->leaf->invisible || ctx->invisible)) {
		if (ctx->n < ctx->max)
			ctx->v[ctx->n] = c->leaf;
		ctx->n++;
	}
	order_collect(c->leaf, ctx);
}

static void order_collect(const struct qdisc *q, struct order_ctx *ctx)
{
	if (q->ops->walk)
		q->ops->walk(q, order_class, ctx);
}

/* hash_32(handle, 4): the bucket of dev->qdisc_hash (DECLARE_HASHTABLE(,4)) */
static unsigned qdisc_bucket(uint32_t handle)
{
	return (unsigned)((handle * 0x61C88647u) >> 28);
}

/* Current kernels dump dev->qdisc_hash bucket by bucket, each bucket
 * newest first (hash_add puts a qdisc at the head); 3.13 dumps its list
 * in creation order. Default children (handle 0) are in the hash but
 * invisible; 3.13 never listed them. Order by the creation stamp. */
static int by_seq(const void *a, const void *b)
{
	const struct qdisc *x = *(const struct qdisc *const *)a, *y = *(const struct qdisc *const *)b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int qdisc_order(const struct dev *d, int invisible, const struct qdisc **out, int max)
{
	int current = d->env.kernel != BPF_KERNEL_3_13;
	struct order_ctx ctx = {.v = out, .max = max, .invisible = invisible && current};
	int n;

	order_collect(d->root, &ctx);
	n = ctx.n < max ? ctx.n : max;
	qsort(out, (size_t)n, sizeof(*out), by_seq);
	if (!current)
		return n;
	/* stable by bucket; newest first inside a bucket */
	for (int i = 0; i < n / 2; i++) {
		const struct qdisc *t = out[i];

		out[i] = out[n - 1 - i];
		out[n - 1 - i] = t;
	}
	for (int i = 1; i < n; i++) {
		const struct qdisc *q = out[i];
		int j = i;

		while (j > 0 && qdisc_bucket(out[j - 1]->handle) > qdisc_bucket(q->handle)) {
			out[j] = out[j - 1];
			j--;
		}
		out[j] = q;
	}
	return n;
}

/* ---- statistics (print_tcstats2_attr) ---- */

/* " Sent B bytes P pkt (dropped D, overlimits O requeues R) " and
 * " backlog Xb Np requeues R"; an sfq bucket has no basic stats, so its
 * line starts at " (dropped". */
static void print_stats(FILE *out, const struct qdisc_stats *st, int basic)
{
	if (basic)
		fprintf(out, " Sent %llu bytes %llu pkt", (unsigned long long)st->bytes,
			(unsigned long long)st->packets);
	fprintf(out, " (dropped %u, overlimits %u requeues %u) \n", (uint32_t)st->drops,
		(uint32_t)st->overlimits, (uint32_t)st->requeues);
	fputs(" backlog ", out);
	tc_print_size(out, (uint32_t)st->backlog);
	fprintf(out, " %up requeues %u\n", st->qlen, (uint32_t)st->requeues);
}

/* ---- qdiscs ---- */

static void print_qdisc(const struct dev *d, const struct qdisc *q, FILE *out,
			const struct tc_show_opts *o)
{
	char id[32];

	if (o->has_parent && q->parent != o->parent)
		return;
	if (o->has_handle && q->handle != o->handle)
		return;
	fprintf(out, "qdisc %s %x: ", q->ops->id, q->handle >> 16);
	if (o->with_dev)
		fprintf(out, "dev %s ", d->name);
	if (q->parent == TC_H_ROOT) {
		fputs("root ", out);
	} else if (q->parent) {
		tc_print_classid(id, sizeof(id), q->parent);
		fprintf(out, "parent %s ", id);
	}
	if (q == d->root)
		fputs("refcnt 2 ", out); /* the device's reference and the tree's */
	if (q->ops->dump)
		q->ops->dump(q, out, o->details);
	fputc('\n', out);
	if (o->stats) {
		print_stats(out, &q->s, 1);
		if (q->ops->dump_xstats)
			q->ops->dump_xstats(q, out);
	}
}

#define TC_SHOW_MAX 1024

void tc_show_qdisc_opts(const struct dev *d, FILE *out, const struct tc_show_opts *o)
{
	const struct qdisc *v[TC_SHOW_MAX];
	int n = qdisc_order(d, o->invisible, v, TC_SHOW_MAX);

	print_qdisc(d, d->root, out, o);
	for (int i = 0; i < n; i++)
		print_qdisc(d, v[i], out, o);
}

void tc_show_qdisc(const struct dev *d, FILE *out, int stats)
{
	struct tc_show_opts o = {.stats = stats};

	tc_show_qdisc_opts(d, out, &o);
}

/* ---- classes ---- */

struct class_ctx {
	const struct dev *d;
	const struct qdisc *q;
	FILE *out;
	const struct tc_show_opts *o;
};

static void print_class(void *arg, const struct qdisc_class *c)
{
	struct class_ctx *ctx = arg;
	char id[32];

	if (ctx->o->has_handle && c->classid != ctx->o->handle)
		return;
	tc_print_classid(id, sizeof(id), c->classid);
	fprintf(ctx->out, "class %s %s ", ctx->q->ops->id, id);
	if (ctx->o->with_dev)
		fprintf(ctx->out, "dev %s ", ctx->d->name);
	if (c->parent == TC_H_ROOT) {
		fputs("root ", ctx->out);
	} else {
		tc_print_classid(id, sizeof(id), c->parent);
		fprintf(ctx->out, "parent %s ", id);
	}
	if (c->leaf && c->leaf->handle)
		fprintf(ctx->out, "leaf %x: ", c->leaf->handle >> 16);
	if (ctx->q->ops->class_dump)
		ctx->q->ops->class_dump(ctx->q, c, ctx->out, ctx->o->details);
	fputc('\n', ctx->out);
	if (!ctx->o->stats)
		return;
	if (c->no_stats) {
		fputc('\n', ctx->out);
		return;
	}
	print_stats(ctx->out, &c->stats, c->leaf != NULL || ctx->q->ops->class_dump);
	if (c->has_allot)
		fprintf(ctx->out, "  allot %lld\n", (long long)(int32_t)c->allot);
	if (ctx->q->ops->class_dump_xstats) {
		ctx->q->ops->class_dump_xstats(ctx->q, c, ctx->out);
		fputc('\n', ctx->out);
	}
}

static void show_classes_of(const struct dev *d, const struct qdisc *q, FILE *out,
			    const struct tc_show_opts *o)
{
	struct class_ctx ctx = {.d = d, .q = q, .out = out, .o = o};

	if (!q->ops->walk)
		return;
	if (o->has_parent && TC_H_MAJ(o->parent) != q->handle)
		return;
	q->ops->walk(q, print_class, &ctx);
}

void tc_show_class_opts(const struct dev *d, FILE *out, const struct tc_show_opts *o)
{
	const struct qdisc *v[TC_SHOW_MAX];
	int n = qdisc_order(d, 0, v, TC_SHOW_MAX);

	show_classes_of(d, d->root, out, o);
	for (int i = 0; i < n; i++)
		show_classes_of(d, v[i], out, o);
}

void tc_show_class(const struct dev *d, FILE *out, int stats)
{
	struct tc_show_opts o = {.stats = stats};

	tc_show_class_opts(d, out, &o);
}

/* ---- filters ---- */

struct filter_ctx {
	FILE *out;
	const char *head; /* "filter parent 1: protocol all pref 49152 bpf chain 0 " */
};

static void print_filter_line(void *arg, const char *text)
{
	struct filter_ctx *ctx = arg;

	fprintf(ctx->out, "%s%s\n", ctx->head, text);
}

/* tc_dump_tfilter: the root qdisc's chain, or the qdisc named by parent,
 * or the chain of a class of it (htb); prio's and sfq's classes have none.
 * Per tcf_proto a header line, then one line per program from the kind's
 * dump. tc names the parent unless it is the one asked for. */
int tc_show_filter_opts(const struct dev *d, FILE *out, const struct tc_show_opts *o)
{
	const struct qdisc *q = d->root;
	const struct tcf_chain *chain;
	uint32_t parent;
	char head[256], id[32], proto[32];

	if (o->has_parent) {
		q = qdisc_lookup(d->root, TC_H_MAJ(o->parent));
		if (!q)
			return 0;
	}
	if (!q->ops->has_filters)
		return 0;
	chain = &q->chain;
	parent = q->handle;
	if (o->has_parent && TC_H_MIN(o->parent)) {
		if (!q->ops->class_chain)
			return 0;
		chain = q->ops->class_chain((struct qdisc *)q, o->parent);
		if (!chain)
			return 0;
		parent = o->parent;
	}
	for (const struct tcf_proto *tp = chain->head; tp; tp = tp->next) {
		struct filter_ctx ctx = {.out = out, .head = head};
		size_t n = 0;

		if (o->pref && tp->prio >> 16 != o->pref)
			continue;
		if (o->protocol && tp->protocol != o->protocol)
			continue;
		n += (size_t)snprintf(head + n, sizeof(head) - n, "filter ");
		if (o->with_dev)
			n += (size_t)snprintf(head + n, sizeof(head) - n, "dev %s ", d->name);
		if (!o->has_parent || o->parent != parent) {
			tc_print_classid(id, sizeof(id), parent);
			n += (size_t)snprintf(head + n, sizeof(head) - n, "parent %s ", id);
		}
		if (!o->protocol) {
			tc_print_protocol(proto, sizeof(proto), tp->protocol);
			n += (size_t)snprintf(head + n, sizeof(head) - n, "protocol %s ", proto);
		}
		if (!o->pref)
			n += (size_t)snprintf(head + n, sizeof(head) - n, "pref %u ",
					      tp->prio >> 16);
		n += (size_t)snprintf(head + n, sizeof(head) - n, "%s ", tp->ops->kind);
		/* TCA_CHAIN: kernels >= 4.13 */
		if (d->env.kernel != BPF_KERNEL_3_13 && !o->has_chain)
			snprintf(head + n, sizeof(head) - n, "chain 0 ");
		fprintf(out, "%s\n", head);
		if (tp->ops->dump_stops && tp->ops->dump_stops(tp))
			return -EMSGSIZE;
		if (o->stats && tp->ops->dump_stats)
			tp->ops->dump_stats(tp, print_filter_line, &ctx);
		else if (tp->ops->dump)
			tp->ops->dump(tp, print_filter_line, &ctx);
	}
	return 0;
}

void tc_show_filter(const struct dev *d, FILE *out)
{
	struct tc_show_opts o = {0};

	(void)tc_show_filter_opts(d, out, &o);
}
