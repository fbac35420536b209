/* sch_codel.c - the codel qdisc of net/sched/sch_codel.c (6.1): one FIFO
 * of at most `limit` packets whose head is judged at dequeue by the CoDel
 * control law (codel.c): packets that waited above `target` for a whole
 * `interval` are dropped (or, with ecn, marked) at a rate that grows as
 * the square root of the drop count.
 *
 * Drops made at dequeue reach the ancestors' counters late, as in the
 * kernel: only at a dequeue that leaves packets queued (it cannot tell an
 * htb parent that it emptied, "or HTB crashes"). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "codel.h"
#include "qdisc.h"

#define CODEL_DEFAULT_LIMIT 1000

struct codel_sched_data {
	struct pkt_queue q;
	uint32_t limit;
	struct codel_params params;
	struct codel_vars vars;
	struct codel_stats stats;
	uint32_t drop_overlimit;
	struct pkt *peeked; /* qdisc_peek_dequeued's stash, for a parent that peeks */
};

/* tc/q_codel.c's words. A value of 0 for limit, target or interval is not
 * sent (tc only sends what is non-zero), so the kernel keeps its own. */
struct codel_opt {
	uint32_t limit, target, interval, ce_threshold;
	int ecn; /* -1: not given */
};

static const char codel_usage[] = "Usage: ... codel [ limit PACKETS ] [ target TIME ] "
				  "[ interval TIME ] [ ecn | noecn ] [ ce_threshold TIME ]";

static int codel_parse(struct codel_opt *o, int argc, char **argv, char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	o->ce_threshold = ~0u;
	o->ecn = -1;
	for (int i = 0; i < argc; i++) {
		const char *w = argv[i];
		uint32_t *time = !strcmp(w, "target")	      ? &o->target
				 : !strcmp(w, "interval")     ? &o->interval
				 : !strcmp(w, "ce_threshold") ? &o->ce_threshold
							      : NULL;

		if (!strcmp(w, "ecn") || !strcmp(w, "noecn")) {
			o->ecn = !strcmp(w, "ecn");
			continue;
		}
		if (!time && strcmp(w, "limit")) {
			snprintf(err, errlen, "codel: What is \"%s\"? %s", w, codel_usage);
			return -EINVAL;
		}
		if (i + 1 >= argc) {
			snprintf(err, errlen, "codel: \"%s\" needs a value. %s", w, codel_usage);
			return -EINVAL;
		}
		if (time ? tc_get_time(time, argv[i + 1]) : tc_get_u32(&o->limit, argv[i + 1], 0)) {
			snprintf(err, errlen, "Illegal \"%s\"", w);
			return -EINVAL;
		}
		i++;
	}
	return 0;
}

static void codel_trim(struct qdisc *q);

/* codel_change: only what tc sent changes. */
static void codel_apply(struct qdisc *q, const struct codel_opt *o)
{
	struct codel_sched_data *cd = q->priv;

	if (o->target)
		cd->params.target = codel_us_to_time(o->target);
	if (o->ce_threshold != ~0u)
		cd->params.ce_threshold = codel_us_to_time(o->ce_threshold);
	if (o->interval)
		cd->params.interval = codel_us_to_time(o->interval);
	if (o->limit)
		cd->limit = o->limit;
	if (o->ecn >= 0)
		cd->params.ecn = o->ecn;
	codel_trim(q);
}

static int codel_init(struct qdisc *q, int argc, char **argv, char *err, size_t errlen)
{
	struct codel_sched_data *cd = q->priv;
	struct codel_opt o;
	int r = codel_parse(&o, argc, argv, err, errlen);

	if (r)
		return r;
	cd->limit = CODEL_DEFAULT_LIMIT;
	codel_params_init(&cd->params, q->env->mtu);
	codel_vars_init(&cd->vars);
	codel_apply(q, &o);
	return 0;
}

static int codel_change(struct qdisc *q, int argc, char **argv, char *err, size_t errlen)
{
	struct codel_opt o;
	int r = codel_parse(&o, argc, argv, err, errlen);

	if (!r)
		codel_apply(q, &o);
	return r;
}

static int codel_enqueue(struct qdisc *q, struct pkt *p)
{
	struct codel_sched_data *cd = q->priv;

	if (q->s.qlen < cd->limit) {
		p->t_cb = q->env->now(q->env->arg); /* codel_set_enqueue_time */
		pktq_push_tail(&cd->q, p);
		qdisc_enqueued(q, p);
		if (p->traced) {
			struct qtrace ev = {.kind = QTRACE_ENQUEUE, .band = -1};

			qdisc_trace(q, p, &ev);
		}
		return NET_XMIT_SUCCESS;
	}
	cd->drop_overlimit++;
	return qdisc_drop(q, p, DROP_QDISC_LIMIT);
}

/* dequeue_func: the head, its bytes off the backlog (not yet sent) */
static struct pkt *codel_take(struct codel_vars *v, void *ctx)
{
	struct qdisc *q = ctx;
	struct codel_sched_data *cd = q->priv;
	struct pkt *p = pktq_pop_head(&cd->q);

	if (p) {
		q->s.qlen--;
		q->s.backlog -= p->len;
	}
	return p;
}

/* drop_func */
static void codel_drop_head(struct pkt *p, void *ctx)
{
	struct qdisc *q = ctx;

	q->s.drops++;
	p->drop = DROP_CODEL;
	q->env->drop(q->env->arg, p);
}

static const struct codel_cb codel_cbs = {
    .dequeue = codel_take, .drop = codel_drop_head, .marked = codel_qdisc_marked};

static struct pkt *codel_dequeue_law(struct qdisc *q)
{
	struct codel_sched_data *cd = q->priv;
	struct pkt *p = codel_dequeue(q, &q->s.backlog, &cd->params, &cd->vars, &cd->stats,
				      &codel_cbs, q->env->now(q->env->arg));

	if (cd->stats.drop_count && q->s.qlen) {
		qdisc_tree_reduce_backlog(q, cd->stats.drop_count, cd->stats.drop_len);
		cd->stats.drop_count = 0;
		cd->stats.drop_len = 0;
	}
	if (p) {
		q->s.packets++;
		q->s.bytes += p->len;
	}
	return p;
}

static struct pkt *codel_qdisc_dequeue(struct qdisc *q)
{
	struct codel_sched_data *cd = q->priv;
	struct pkt *p = cd->peeked;

	if (!p)
		return codel_dequeue_law(q);
	/* qdisc_dequeue_peeked: counted in bstats when it was peeked */
	cd->peeked = NULL;
	q->s.qlen--;
	q->s.backlog -= p->len;
	return p;
}

/* qdisc_peek_dequeued: what codel sends next depends on its drops, so a
 * peek runs the law and holds the packet (still counted as queued). */
static const struct pkt *codel_peek(struct qdisc *q)
{
	struct codel_sched_data *cd = q->priv;

	if (!cd->peeked) {
		cd->peeked = codel_dequeue_law(q);
		if (cd->peeked) {
			q->s.qlen++;
			q->s.backlog += cd->peeked->len;
		}
	}
	return cd->peeked;
}

static const struct pkt *codel_head(const struct qdisc *q)
{
	const struct codel_sched_data *cd = q->priv;

	return cd->peeked ? cd->peeked : cd->q.head;
}

/* codel_change's trim when the limit shrinks: from the head, told to the
 * ancestors at once */
static void codel_trim(struct qdisc *q)
{
	struct codel_sched_data *cd = q->priv;
	uint32_t n = 0;
	uint64_t len = 0;

	while (q->s.qlen > cd->limit) {
		struct pkt *p = cd->peeked;

		if (p)
			cd->peeked = NULL;
		else
			p = pktq_pop_head(&cd->q);
		q->s.qlen--;
		q->s.backlog -= p->len;
		n++;
		len += p->len;
		qdisc_drop(q, p, DROP_QDISC_LIMIT);
	}
	if (n)
		qdisc_tree_reduce_backlog(q, n, len);
}

static void codel_reset(struct qdisc *q)
{
	struct codel_sched_data *cd = q->priv;
	struct pkt *p;

	if (cd->peeked) {
		cd->peeked->drop = DROP_QDISC_DESTROY;
		q->env->drop(q->env->arg, cd->peeked);
		cd->peeked = NULL;
	}
	while ((p = pktq_pop_head(&cd->q))) {
		p->drop = DROP_QDISC_DESTROY;
		q->env->drop(q->env->arg, p);
	}
	q->s.qlen = 0;
	q->s.backlog = 0;
	codel_vars_init(&cd->vars);
}

static void codel_dump(const struct qdisc *q, struct tcprint *p, int details)
{
	const struct codel_sched_data *cd = q->priv;

	pr_uint(p, PR_ANY, "limit", "limit %up ", cd->limit);
	pr_time(p, PR_ANY, "target", "target %s ", codel_time_to_us(cd->params.target));
	if (cd->params.ce_threshold != CODEL_DISABLED_THRESHOLD)
		pr_time(p, PR_ANY, "ce_threshold", "ce_threshold %s ",
			codel_time_to_us(cd->params.ce_threshold));
	pr_time(p, PR_ANY, "interval", "interval %s ", codel_time_to_us(cd->params.interval));
	if (cd->params.ecn)
		pr_bool(p, PR_ANY, "ecn", "ecn ", 1);
}

/* drop_next as codel_dump_stats gives it: microseconds from now while
 * dropping (negative when overdue), else 0 */
static int32_t codel_drop_next_us(const struct qdisc *q)
{
	const struct codel_sched_data *cd = q->priv;
	int32_t delta;

	if (!cd->vars.dropping)
		return 0;
	delta = (int32_t)(cd->vars.drop_next - codel_time(q->env->now(q->env->arg)));
	return delta >= 0 ? (int32_t)codel_time_to_us((codel_time_t)delta)
			  : -(int32_t)codel_time_to_us((codel_time_t)-delta);
}

static void codel_dump_xstats(const struct qdisc *q, struct tcprint *p)
{
	const struct codel_sched_data *cd = q->priv;
	char b[TC_SPRINT_BSIZE];
	int32_t next = codel_drop_next_us(q);

	pr_uint(p, PR_ANY, "count", "  count %u", cd->vars.count);
	pr_uint(p, PR_ANY, "lastcount", " lastcount %u", cd->vars.lastcount);
	pr_time(p, PR_ANY, "ldelay", " ldelay %s", codel_time_to_us(cd->vars.ldelay));
	if (cd->vars.dropping)
		pr_bool(p, PR_ANY, "dropping", " dropping", 1);
	pr_int(p, PR_JSON, "drop_next", NULL, next);
	if (next < 0)
		pr_string(p, PR_TEXT, NULL, " drop_next -%s", tc_sprint_time((uint32_t)-next, b));
	else
		pr_string(p, PR_TEXT, NULL, " drop_next %s", tc_sprint_time((uint32_t)next, b));
	pr_text(p, "\n");
	pr_uint(p, PR_ANY, "maxpacket", "  maxpacket %u", cd->stats.maxpacket);
	pr_uint(p, PR_ANY, "ecn_mark", " ecn_mark %u", cd->stats.ecn_mark);
	pr_uint(p, PR_ANY, "drop_overlimit", " drop_overlimit %u", cd->drop_overlimit);
	if (cd->stats.ce_mark)
		pr_uint(p, PR_ANY, "ce_mark", " ce_mark %u", cd->stats.ce_mark);
	pr_text(p, "\n");
}

static int codel_xstat(const struct qdisc *q, int i, const char **name, int64_t *v)
{
	const struct codel_sched_data *cd = q->priv;

	switch (i) {
	case 0: *name = "count"; *v = cd->vars.count; return 0;
	case 1: *name = "lastcount"; *v = cd->vars.lastcount; return 0;
	case 2: *name = "ldelay_us"; *v = codel_time_to_us(cd->vars.ldelay); return 0;
	case 3: *name = "maxpacket"; *v = cd->stats.maxpacket; return 0;
	case 4: *name = "ecn_mark"; *v = cd->stats.ecn_mark; return 0;
	case 5: *name = "drop_overlimit"; *v = cd->drop_overlimit; return 0;
	case 6: *name = "ce_mark"; *v = cd->stats.ce_mark; return 0;
	/* the rest of what tc -s shows (schema 1.1) */
	case 7: *name = "dropping"; *v = cd->vars.dropping; return 0;
	case 8: *name = "drop_next_us"; *v = codel_drop_next_us(q); return 0;
	default: return 1;
	}
}

static int codel_can_bypass(const struct qdisc *q)
{
	return ((const struct codel_sched_data *)q->priv)->limit >= 1;
}

const struct qdisc_ops codel_qdisc_ops = {
	.id = "codel",
	.priv_size = sizeof(struct codel_sched_data),
	.init = codel_init,
	.change = codel_change,
	.enqueue = codel_enqueue,
	.dequeue = codel_qdisc_dequeue,
	.peek = codel_peek,
	.head = codel_head,
	.reset = codel_reset,
	.dump = codel_dump,
	.xstat = codel_xstat,
	.dump_xstats = codel_dump_xstats,
	.can_bypass = codel_can_bypass,
};

void codel_kc_get(const struct qdisc *q, struct codel_kc *out)
{
	const struct codel_sched_data *cd = q->priv;

	memset(out, 0, sizeof(*out));
	out->limit = cd->limit;
	out->target = cd->params.target;
	out->interval = cd->params.interval;
	out->ce_threshold = cd->params.ce_threshold;
	out->ecn = cd->params.ecn;
}
