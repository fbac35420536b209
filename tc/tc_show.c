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
 * line starts at " (dropped". JSON: bytes, packets, drops, overlimits,
 * requeues, backlog, qlen, members of the qdisc's object. */
static void print_stats(struct tcprint *p, const struct qdisc_stats *st, int basic)
{
	if (basic) {
		pr_u64(p, PR_ANY, "bytes", " Sent %llu bytes", st->bytes);
		pr_u64(p, PR_ANY, "packets", " %llu pkt", st->packets);
	}
	pr_uint(p, PR_ANY, "drops", " (dropped %u", (uint32_t)st->drops);
	pr_uint(p, PR_ANY, "overlimits", ", overlimits %u", (uint32_t)st->overlimits);
	pr_uint(p, PR_ANY, "requeues", " requeues %u) ", (uint32_t)st->requeues);
	pr_text(p, "\n ");
	pr_size(p, PR_ANY, "backlog", "backlog %s", (uint32_t)st->backlog);
	pr_uint(p, PR_ANY, "qlen", " %up", st->qlen);
	pr_uint(p, PR_TEXT, NULL, " requeues %u", (uint32_t)st->requeues);
	pr_text(p, "\n");
}

/* ---- qdiscs ---- */

/* print_qdisc: one object per qdisc, its options in "options" */
static void print_qdisc(const struct dev *d, const struct qdisc *q, struct tcprint *p,
			const struct tc_show_opts *o)
{
	char id[32];

	if (o->has_parent && q->parent != o->parent)
		return;
	if (o->has_handle && q->handle != o->handle)
		return;
	pr_open_object(p, NULL);
	pr_string(p, PR_ANY, "kind", "qdisc %s ", q->ops->id);
	snprintf(id, sizeof(id), "%x:", q->handle >> 16);
	pr_string(p, PR_ANY, "handle", "%s ", id);
	if (o->with_dev)
		pr_string(p, PR_ANY, "dev", "dev %s ", d->name);
	if (q->parent == TC_H_ROOT) {
		pr_bool(p, PR_ANY, "root", "root ", 1);
	} else if (q->parent) {
		tc_print_classid(id, sizeof(id), q->parent);
		pr_string(p, PR_ANY, "parent", "parent %s ", id);
	}
	if (q == d->root) /* the device's reference and the tree's */
		pr_uint(p, PR_ANY, "refcnt", "refcnt %u ", 2);
	pr_open_object(p, "options");
	if (q->ops->dump)
		q->ops->dump(q, p, o->details);
	pr_close_object(p);
	pr_text(p, "\n");
	if (o->stats) {
		print_stats(p, &q->s, 1);
		if (q->ops->dump_xstats)
			q->ops->dump_xstats(q, p);
	}
	pr_close_object(p);
}

#define TC_SHOW_MAX 1024

/* The printer of o, or a new one on out that opens its JSON array */
static struct tcprint *show_begin(struct tcprint *own, FILE *out, const struct tc_show_opts *o)
{
	if (o->pr)
		return o->pr;
	pr_init(own, out, o->json, o->pretty);
	pr_open_array(own, NULL, NULL);
	return own;
}

static void show_end(struct tcprint *p, const struct tc_show_opts *o)
{
	if (o->pr)
		return;
	pr_close_array(p, NULL);
	pr_end(p);
}

void tc_show_qdisc_opts(const struct dev *d, FILE *out, const struct tc_show_opts *o)
{
	const struct qdisc *v[TC_SHOW_MAX];
	int n = qdisc_order(d, o->invisible, v, TC_SHOW_MAX);
	struct tcprint own, *p = show_begin(&own, out, o);

	print_qdisc(d, d->root, p, o);
	for (int i = 0; i < n; i++)
		print_qdisc(d, v[i], p, o);
	show_end(p, o);
}

void tc_show_qdisc(const struct dev *d, FILE *out, int stats)
{
	struct tc_show_opts o = {.stats = stats};

	tc_show_qdisc_opts(d, out, &o);
}

/* ---- classes ---- */

/* iproute2 6.1 prints classes as text even with -j (its class list opens
 * no JSON array): so does a tc script. --tc-json (class_json) prints them
 * as later iproute2 does: one object per class, the kind's options among
 * its members, the counters and xstats in "stats". */
struct class_ctx {
	const struct dev *d;
	const struct qdisc *q;
	struct tcprint *p;
	const struct tc_show_opts *o;
};

/* (the stats of print_class) */
static void print_class_stats(struct class_ctx *ctx, const struct qdisc_class *c)
{
	struct tcprint *p = ctx->p;

	print_stats(p, &c->stats, c->leaf != NULL || ctx->q->ops->class_dump);
	if (c->has_allot)
		pr_s64(p, PR_ANY, "allot", "  allot %lld\n", (int32_t)c->allot);
	if (ctx->q->ops->class_dump_xstats) {
		ctx->q->ops->class_dump_xstats(ctx->q, c, p);
		pr_text(p, "\n");
	}
}

static void print_class(void *arg, const struct qdisc_class *c)
{
	struct class_ctx *ctx = arg;
	struct tcprint *p = ctx->p;
	char id[32];

	if (ctx->o->has_handle && c->classid != ctx->o->handle)
		return;
	pr_open_object(p, NULL);
	tc_print_classid(id, sizeof(id), c->classid);
	pr_string(p, PR_ANY, "class", "class %s ", ctx->q->ops->id);
	pr_string(p, PR_ANY, "handle", "%s ", id);
	if (ctx->o->with_dev)
		pr_string(p, PR_ANY, "dev", "dev %s ", ctx->d->name);
	if (c->parent == TC_H_ROOT) {
		pr_bool(p, PR_ANY, "root", "root ", 1);
	} else {
		tc_print_classid(id, sizeof(id), c->parent);
		pr_string(p, PR_ANY, "parent", "parent %s ", id);
	}
	if (c->leaf && c->leaf->handle)
		pr_0xhex(p, PR_ANY, "leaf", "leaf %llx: ", c->leaf->handle >> 16);
	if (ctx->q->ops->class_dump)
		ctx->q->ops->class_dump(ctx->q, c, p, ctx->o->details);
	pr_text(p, "\n");
	if (ctx->o->stats) {
		pr_open_object(p, "stats");
		if (c->no_stats)
			pr_text(p, "\n");
		else
			print_class_stats(ctx, c);
		pr_close_object(p);
	}
	pr_close_object(p);
}

static void show_classes_of(const struct dev *d, const struct qdisc *q, struct tcprint *p,
			    const struct tc_show_opts *o)
{
	struct class_ctx ctx = {.d = d, .q = q, .p = p, .o = o};

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
	struct tcprint text, *p;

	if (o->class_json) {
		p = show_begin(&text, out, o);
	} else {
		pr_init(&text, o->pr ? o->pr->out : out, 0, 0); /* text, as 6.1's tc */
		p = &text;
	}
	show_classes_of(d, d->root, p, o);
	for (int i = 0; i < n; i++)
		show_classes_of(d, v[i], p, o);
	if (o->class_json)
		show_end(p, o);
}

void tc_show_class(const struct dev *d, FILE *out, int stats)
{
	struct tc_show_opts o = {.stats = stats};

	tc_show_class_opts(d, out, &o);
}

/* ---- filters ---- */

/* print_filter: per tcf_proto an object of its header, then one per
 * program with its options (the kind's dump calls begin and end). */
struct filter_ctx {
	const struct dev *d;
	const struct tc_show_opts *o;
	const struct tcf_proto *tp;
	uint32_t parent;
};

static void filter_head(struct tcf_dump *fd)
{
	const struct filter_ctx *ctx = fd->arg;
	const struct tc_show_opts *o = ctx->o;
	struct tcprint *p = fd->p;
	char id[32], proto[32];

	pr_open_object(p, NULL);
	pr_text(p, "filter ");
	if (o->with_dev)
		pr_string(p, PR_ANY, "dev", "dev %s ", ctx->d->name);
	if (!o->has_parent || o->parent != ctx->parent) {
		tc_print_classid(id, sizeof(id), ctx->parent);
		pr_string(p, PR_ANY, "parent", "parent %s ", id);
	}
	if (!o->protocol) {
		tc_print_protocol(proto, sizeof(proto), ctx->tp->protocol);
		pr_string(p, PR_ANY, "protocol", "protocol %s ", proto);
	}
	if (!o->pref)
		pr_uint(p, PR_ANY, "pref", "pref %u ", ctx->tp->prio >> 16);
	pr_string(p, PR_ANY, "kind", "%s ", ctx->tp->ops->kind);
	/* TCA_CHAIN: kernels >= 4.13 */
	if (ctx->d->env.kernel != BPF_KERNEL_3_13 && !o->has_chain)
		pr_uint(p, PR_ANY, "chain", "chain %u ", 0);
}

static void filter_begin(struct tcf_dump *fd)
{
	filter_head(fd);
	pr_open_object(fd->p, "options");
}

static void filter_end(struct tcf_dump *fd)
{
	pr_close_object(fd->p);
	pr_text(fd->p, "\n");
	pr_close_object(fd->p);
}

/* tc_dump_tfilter: the root qdisc's chain, or the qdisc named by parent,
 * or the chain of a class of it (htb); prio's and sfq's classes have none.
 * Per tcf_proto a header line, then one line per program from the kind's
 * dump. tc names the parent unless it is the one asked for. */
int tc_show_filter_opts(const struct dev *d, FILE *out, const struct tc_show_opts *o)
{
	const struct qdisc *q = d->root;
	const struct tcf_chain *chain;
	struct tcprint own, *p = show_begin(&own, out, o);
	int ret = 0;

	if (o->has_parent) {
		q = qdisc_lookup(d->root, TC_H_MAJ(o->parent));
		if (!q)
			goto out;
	}
	if (!q->ops->has_filters)
		goto out;
	chain = &q->chain;
	if (o->has_parent && TC_H_MIN(o->parent)) {
		if (!q->ops->class_chain)
			goto out;
		chain = q->ops->class_chain((struct qdisc *)q, o->parent);
		if (!chain)
			goto out;
	}
	for (const struct tcf_proto *tp = chain->head; tp; tp = tp->next) {
		struct filter_ctx ctx = {.d = d, .o = o, .tp = tp, .parent = q->handle};
		struct tcf_dump fd = {.p = p, .begin = filter_begin, .end = filter_end, .arg = &ctx};

		if (o->has_parent && TC_H_MIN(o->parent))
			ctx.parent = o->parent;
		if (o->pref && tp->prio >> 16 != o->pref)
			continue;
		if (o->protocol && tp->protocol != o->protocol)
			continue;
		filter_head(&fd);
		pr_text(p, "\n");
		pr_close_object(p);
		if (tp->ops->dump_stops && tp->ops->dump_stops(tp)) {
			ret = -EMSGSIZE;
			break;
		}
		if (o->stats && tp->ops->dump_stats)
			tp->ops->dump_stats(tp, &fd);
		else if (tp->ops->dump)
			tp->ops->dump(tp, &fd);
	}
out:
	show_end(p, o);
	return ret;
}

void tc_show_filter(const struct dev *d, FILE *out)
{
	struct tc_show_opts o = {0};

	(void)tc_show_filter_opts(d, out, &o);
}

void tc_show_json(const struct sim *s, FILE *out, int pretty)
{
	struct tcprint p;
	struct tc_show_opts o = {.stats = 1, .with_dev = 1, .json = 1, .pretty = pretty,
				 .pr = &p, .class_json = 1};

	pr_init(&p, out, 1, pretty);
	pr_open_object(&p, NULL);
	pr_open_array(&p, "qdisc", NULL);
	for (int i = 0; i < s->ndevs; i++)
		tc_show_qdisc_opts(s->devs[i], out, &o);
	pr_close_array(&p, NULL);
	pr_open_array(&p, "class", NULL);
	for (int i = 0; i < s->ndevs; i++)
		tc_show_class_opts(s->devs[i], out, &o);
	pr_close_array(&p, NULL);
	pr_open_array(&p, "filter", NULL);
	for (int i = 0; i < s->ndevs; i++)
		(void)tc_show_filter_opts(s->devs[i], out, &o);
	pr_close_array(&p, NULL);
	pr_close_object(&p);
	pr_end(&p);
}
