/* qdisc.c - what every qdisc kind shares: the registry of kinds, creation
 * and destruction, the counters, the tree walk of qdisc_tree_reduce_backlog,
 * the noop qdisc, and the watchdog. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "qdisc.h"

/* The registry: every kind tc can name. A new kind is its file, declared
 * and listed here (qdisc.h declares only those others refer to). */
static const struct qdisc_ops *const kinds[] = {
	&prio_qdisc_ops, &sfq_qdisc_ops, &pfifo_qdisc_ops, &bfifo_qdisc_ops,
	&pfifo_fast_qdisc_ops, &htb_qdisc_ops, &tbf_qdisc_ops, &noop_qdisc_ops,
	&codel_qdisc_ops, &fq_codel_qdisc_ops, &netem_qdisc_ops, &noqueue_qdisc_ops,
	&pfifo_head_drop_qdisc_ops,
};

const struct qdisc_ops *qdisc_ops_find(const char *kind)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kinds[i]->id, kind))
			return kinds[i];
	return NULL;
}

void qdisc_kind_names(char *buf, size_t n)
{
	size_t used = 0;

	if (n)
		buf[0] = 0;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (kinds[i] == &noop_qdisc_ops) /* built in, not registered */
			continue;
		if (used < n)
			used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? ", " : "",
						 kinds[i]->id);
	}
}

static struct qdisc *qdisc_alloc(const struct qdisc_ops *ops, struct qdisc_env *env,
				 uint32_t handle, uint32_t parent)
{
	struct qdisc *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	if (ops->priv_size && !(q->priv = calloc(1, ops->priv_size))) {
		free(q);
		return NULL;
	}
	q->ops = ops;
	q->env = env;
	q->handle = handle;
	q->parent = parent;
	q->seq = ++env->qdisc_seq;
	q->chain.kernel = env->kernel;
	return q;
}

int qdisc_create(struct qdisc **out, const char *kind, struct qdisc_env *env, uint32_t handle,
		 uint32_t parent, int argc, char **argv, char *err, size_t errlen)
{
	const struct qdisc_ops *ops = qdisc_ops_find(kind);
	struct qdisc *q;
	int ret;

	*out = NULL;
	if (!ops) {
		snprintf(err, errlen, "Unknown qdisc \"%s\", hence option \"%s\" is unparsable", kind,
			 argc ? argv[0] : "");
		return -ENOENT;
	}
	q = qdisc_alloc(ops, env, handle, parent);
	if (!q) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = ops->init ? ops->init(q, argc, argv, err, errlen) : 0;
	if (ret) {
		if (ops->destroy)
			ops->destroy(q);
		free(q->priv);
		free(q);
		return ret;
	}
	*out = q;
	return 0;
}

static struct qdisc *create_internal(const struct qdisc_ops *ops, struct qdisc_env *env,
				     uint32_t parent)
{
	char err[256];
	struct qdisc *q = qdisc_alloc(ops, env, 0, parent);

	if (!q)
		return NULL;
	if (ops->init && ops->init(q, 0, NULL, err, sizeof(err))) {
		free(q->priv);
		free(q);
		return NULL;
	}
	q->invisible = 1;
	return q;
}

struct qdisc *qdisc_create_default(struct qdisc_env *env, uint32_t parent)
{
	return create_internal(&pfifo_qdisc_ops, env, parent);
}

struct qdisc *qdisc_create_noop(struct qdisc_env *env, uint32_t parent)
{
	return create_internal(&noop_qdisc_ops, env, parent);
}

void qdisc_destroy(struct qdisc *q)
{
	if (!q)
		return;
	if (q->env->cancel_timers)
		q->env->cancel_timers(q->env->arg, q);
	if (q->ops->reset)
		q->ops->reset(q);
	if (q->ops->destroy)
		q->ops->destroy(q);
	tcf_chain_flush(&q->chain);
	free(q->priv);
	free(q);
}

struct qdisc_lookup_ctx {
	uint32_t handle;
	struct qdisc *found;
};

static void lookup_class(void *arg, const struct qdisc_class *c)
{
	struct qdisc_lookup_ctx *ctx = arg;

	if (!ctx->found && c->leaf)
		ctx->found = qdisc_lookup((struct qdisc *)c->leaf, ctx->handle);
}

struct qdisc *qdisc_lookup(struct qdisc *root, uint32_t handle)
{
	struct qdisc_lookup_ctx ctx = {.handle = handle};

	if (!root)
		return NULL;
	if (root->handle == handle && !root->invisible)
		return root;
	if (root->ops->walk)
		root->ops->walk(root, lookup_class, &ctx);
	return ctx.found;
}

int qdisc_drop(struct qdisc *q, struct pkt *p, enum pkt_drop why)
{
	q->s.drops++;
	p->drop = why;
	q->env->drop(q->env->arg, p);
	return NET_XMIT_DROP;
}

void qdisc_enqueued(struct qdisc *q, const struct pkt *p)
{
	q->s.qlen++;
	q->s.backlog += p->len;
	if (q->s.qlen > q->s.peak_qlen)
		q->s.peak_qlen = q->s.qlen;
	if (q->s.backlog > q->s.peak_backlog)
		q->s.peak_backlog = q->s.backlog;
}

void qdisc_dequeued(struct qdisc *q, const struct pkt *p)
{
	q->s.qlen--;
	q->s.backlog -= p->len;
	q->s.packets++;
	q->s.bytes += p->len;
}

/* 3.x's qdisc_tree_decrease_qlen only lowered the ancestors' qlen; 4.6's
 * qdisc_tree_reduce_backlog also takes the bytes and counts the drops. */
void qdisc_tree_reduce_backlog(struct qdisc *q, uint32_t n, uint64_t len)
{
	int old = q->env->kernel == BPF_KERNEL_3_13;

	for (struct qdisc *a = q->parent_q, *c = q; a; c = a, a = a->parent_q) {
		a->s.qlen -= n;
		if (!old) {
			a->s.backlog -= len;
			a->s.drops += n;
		}
		if (a->ops->qlen_notify)
			a->ops->qlen_notify(a, c);
	}
}

static uint32_t env_random32(void *arg)
{
	const struct qdisc_env *env = arg;

	return (uint32_t)(env->random(env->arg) >> 32);
}

void qdisc_pkt_skb(const struct qdisc *q, const struct pkt *p, struct bpf_skb *skb)
{
	pkt_bpf_skb(p, q->env->ifindex, skb);
	skb->random = env_random32;
	skb->random_arg = q->env;
}

uint16_t qdisc_pkt_protocol(const struct pkt *p)
{
	return p->vlan_present ? p->vlan_proto : p->protocol;
}

/* noop: drops everything (3.13's stand-in for a removed prio leaf). */
static int noop_enqueue(struct qdisc *q, struct pkt *p)
{
	return qdisc_drop(q, p, DROP_NOOP);
}

static struct pkt *noop_dequeue(struct qdisc *q)
{
	return NULL;
}

static const struct pkt *noop_peek(struct qdisc *q)
{
	return NULL;
}

const struct qdisc_ops noop_qdisc_ops = {
	.id = "noop",
	.enqueue = noop_enqueue,
	.dequeue = noop_dequeue,
	.peek = noop_peek,
};

/* noqueue: the device has no qdisc (sch_generic.c; __dev_queue_xmit
 * without one). A packet goes straight to the driver; when the driver is
 * busy (tcsim: the wire), "Virtual device asks to queue packet!" and it
 * is dropped. The qdisc counts nothing of either. Root only. */
static int noqueue_init(struct qdisc *q, int argc, char **argv, char *err, size_t errlen)
{
	if (argc) {
		snprintf(err, errlen, "qdisc 'noqueue' does not support option parsing");
		return -EINVAL;
	}
	return 0;
}

static int noqueue_enqueue(struct qdisc *q, struct pkt *p)
{
	p->drop = DROP_NOQUEUE;
	q->env->drop(q->env->arg, p);
	return NET_XMIT_DROP;
}

const struct qdisc_ops noqueue_qdisc_ops = {
	.id = "noqueue",
	.no_queue = 1,
	.init = noqueue_init,
	.enqueue = noqueue_enqueue,
	.dequeue = noop_dequeue,
	.peek = noop_peek,
};

struct in_tree_ctx {
	const struct qdisc *q;
	int found;
};

static void in_tree_class(void *arg, const struct qdisc_class *c)
{
	struct in_tree_ctx *ctx = arg;

	if (!ctx->found && c->leaf)
		ctx->found = qdisc_in_tree(c->leaf, ctx->q);
}

int qdisc_in_tree(const struct qdisc *root, const struct qdisc *q)
{
	struct in_tree_ctx ctx = {.q = q};

	if (root == q)
		return 1;
	if (root->ops->walk)
		root->ops->walk(root, in_tree_class, &ctx);
	return ctx.found;
}


void qdisc_watchdog_schedule_ns(struct qdisc *q, uint64_t t_ns)
{
	uint64_t now = q->env->now ? q->env->now(q->env->arg) : 0;

	/* hrtimer_start on a past expiry fires at once */
	if (t_ns < now)
		t_ns = now;
	/* the kernel's hrtimer interrupt and NET_TX softirq come this much
	 * later (0: at the expiry); events closer together than that are
	 * served by one dequeue, which htb's schedule is sensitive to */
	if (q->env->timer_latency_ns)
		t_ns = t_ns > UINT64_MAX - q->env->timer_latency_ns ? UINT64_MAX
								 : t_ns + q->env->timer_latency_ns;
	if (q->wd.pending && q->wd.expires == t_ns)
		return;
	q->wd.pending = 1;
	q->wd.expires = t_ns;
	q->wd.id = q->env->watchdog ? q->env->watchdog(q->env->arg, q, t_ns) : 0;
}

void qdisc_watchdog_cancel(struct qdisc *q)
{
	q->wd.pending = 0;
}

int qdisc_watchdog_fired(struct qdisc *q, uint64_t id)
{
	if (!q->wd.pending || q->wd.id != id)
		return 0;
	q->wd.pending = 0;
	return 1;
}

struct qdisc_each_ctx {
	void (*fn)(struct qdisc *q, void *arg);
	void *arg;
};

static void each_class(void *arg, const struct qdisc_class *c)
{
	struct qdisc_each_ctx *ctx = arg;

	if (c->leaf)
		qdisc_for_each((struct qdisc *)c->leaf, ctx->fn, ctx->arg);
}

void qdisc_for_each(struct qdisc *root, void (*fn)(struct qdisc *q, void *arg), void *arg)
{
	struct qdisc_each_ctx ctx = {.fn = fn, .arg = arg};

	if (!root)
		return;
	fn(root, arg);
	if (root->ops->walk)
		root->ops->walk(root, each_class, &ctx);
}

void qdisc_dump_text(const struct qdisc *q, FILE *out, int details)
{
	struct tcprint p;

	if (!q->ops->dump)
		return;
	pr_init(&p, out, 0, 0);
	q->ops->dump(q, &p, details);
}
