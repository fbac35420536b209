/* sch_fifo.c - the fifo qdiscs of net/sched/sch_fifo.c (pfifo: a limit in
 * packets; bfifo: a limit in bytes) and the device's default root
 * pfifo_fast of sch_generic.c (three bands chosen by skb->priority). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "qdisc.h"

struct fifo_sched_data {
	struct pkt_spillq q; /* a long one keeps its middle on disk (pktspill.h) */
	uint32_t limit;
};

static int fifo_init(struct qdisc *q, int argc, char **argv, char *err, size_t errlen, int bytes)
{
	struct fifo_sched_data *f = q->priv;
	uint32_t txq = q->env->tx_queue_len;

	/* Without options the limit follows the device (3.13: a 0-length
	 * transmit queue still gives room for one packet). */
	if (txq == 0 && q->env->kernel == BPF_KERNEL_3_13)
		txq = 1;
	f->limit = bytes ? txq * q->env->mtu : txq;
	pktsq_init(&f->q, &q->env->spill);
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "limit")) {
			int r;

			if (i + 1 >= argc) {
				snprintf(err, errlen, "\"limit\" needs a value");
				return -EINVAL;
			}
			r = bytes ? tc_get_size(&f->limit, argv[i + 1])
				  : tc_get_u32(&f->limit, argv[i + 1], 0);
			if (r) {
				snprintf(err, errlen, "%s: Illegal value for \"limit\": \"%s\"", q->ops->id, argv[i + 1]);
				return -EINVAL;
			}
			i++;
		} else {
			snprintf(err, errlen, "%s: What is \"%s\"? Usage: ... %s [limit NUMBER]",
				 q->ops->id, argv[i], q->ops->id);
			return -EINVAL;
		}
	}
	return 0;
}

static int pfifo_init(struct qdisc *q, int argc, char **argv, char *err, size_t errlen)
{
	return fifo_init(q, argc, argv, err, errlen, 0);
}

static int bfifo_init(struct qdisc *q, int argc, char **argv, char *err, size_t errlen)
{
	return fifo_init(q, argc, argv, err, errlen, 1);
}

static int fifo_accept(struct qdisc *q, struct pkt *p)
{
	struct fifo_sched_data *f = q->priv;

	pktsq_push_tail(&f->q, p);
	qdisc_enqueued(q, p);
	if (p->traced) {
		struct qtrace ev = {.kind = QTRACE_ENQUEUE, .band = -1};

		qdisc_trace(q, p, &ev);
	}
	return NET_XMIT_SUCCESS;
}

static int pfifo_enqueue(struct qdisc *q, struct pkt *p)
{
	struct fifo_sched_data *f = q->priv;

	if (q->s.qlen < f->limit)
		return fifo_accept(q, p);
	return qdisc_drop(q, p, DROP_QDISC_LIMIT);
}

static int bfifo_enqueue(struct qdisc *q, struct pkt *p)
{
	struct fifo_sched_data *f = q->priv;

	if (q->s.backlog + p->len <= f->limit)
		return fifo_accept(q, p);
	return qdisc_drop(q, p, DROP_QDISC_LIMIT);
}

/* pfifo_head_drop (pfifo_tail_enqueue): full, the oldest packet goes to
 * make room and the new one is queued all the same; the parents keep
 * their qlen and learn the bytes, and the caller hears NET_XMIT_CN.
 * limit 0 drops the arrival (the kernel's fix of 2025, in 6.1.y). */
static int pfifo_head_drop_enqueue(struct qdisc *q, struct pkt *p)
{
	struct fifo_sched_data *f = q->priv;
	struct pkt *old;
	uint64_t prev;

	if (q->s.qlen < f->limit)
		return fifo_accept(q, p);
	if (!f->limit)
		return qdisc_drop(q, p, DROP_QDISC_LIMIT);
	prev = q->s.backlog;
	old = pktsq_pop_head(&f->q);
	q->s.qlen--;
	q->s.backlog -= old->len;
	qdisc_drop(q, old, DROP_HEAD_DROP);
	fifo_accept(q, p);
	qdisc_tree_reduce_backlog(q, 0, prev - q->s.backlog); /* may wrap: bytes added */
	return NET_XMIT_CN;
}

static struct pkt *fifo_dequeue(struct qdisc *q)
{
	struct fifo_sched_data *f = q->priv;
	struct pkt *p = pktsq_pop_head(&f->q);

	if (p)
		qdisc_dequeued(q, p);
	return p;
}

static const struct pkt *fifo_peek(struct qdisc *q)
{
	return pktsq_head(&((struct fifo_sched_data *)q->priv)->q);
}

static const struct pkt *fifo_head(const struct qdisc *q)
{
	return pktsq_head(&((const struct fifo_sched_data *)q->priv)->q);
}

static void fifo_reset(struct qdisc *q)
{
	struct fifo_sched_data *f = q->priv;
	struct pkt *p;

	while ((p = pktsq_pop_head(&f->q))) {
		p->drop = DROP_QDISC_DESTROY;
		q->env->drop(q->env->arg, p);
	}
	q->s.qlen = 0;
	q->s.backlog = 0;
}

static void fifo_destroy(struct qdisc *q)
{
	pktsq_free(&((struct fifo_sched_data *)q->priv)->q);
}

static int fifo_change(struct qdisc *q, int argc, char **argv, char *err, size_t errlen)
{
	struct fifo_sched_data *f = q->priv;
	uint32_t old = f->limit;
	int r = q->ops->init(q, argc, argv, err, errlen);

	if (r)
		f->limit = old;
	return r;
}

static void pfifo_dump(const struct qdisc *q, struct tcprint *p, int details)
{
	pr_uint(p, PR_ANY, "limit", "limit %up", ((struct fifo_sched_data *)q->priv)->limit);
}

static void bfifo_dump(const struct qdisc *q, struct tcprint *p, int details)
{
	pr_size(p, PR_ANY, "limit", "limit %s", ((struct fifo_sched_data *)q->priv)->limit);
}

const struct qdisc_ops pfifo_qdisc_ops = {
	.id = "pfifo",
	.priv_size = sizeof(struct fifo_sched_data),
	.init = pfifo_init,
	.change = fifo_change,
	.enqueue = pfifo_enqueue,
	.dequeue = fifo_dequeue,
	.peek = fifo_peek,
	.head = fifo_head,
	.reset = fifo_reset,
	.destroy = fifo_destroy,
	.dump = pfifo_dump,
};

const struct qdisc_ops bfifo_qdisc_ops = {
	.id = "bfifo",
	.priv_size = sizeof(struct fifo_sched_data),
	.init = bfifo_init,
	.change = fifo_change,
	.enqueue = bfifo_enqueue,
	.dequeue = fifo_dequeue,
	.peek = fifo_peek,
	.head = fifo_head,
	.reset = fifo_reset,
	.destroy = fifo_destroy,
	.dump = bfifo_dump,
};

const struct qdisc_ops pfifo_head_drop_qdisc_ops = {
	.id = "pfifo_head_drop",
	.priv_size = sizeof(struct fifo_sched_data),
	.init = pfifo_init,
	.change = fifo_change,
	.enqueue = pfifo_head_drop_enqueue,
	.dequeue = fifo_dequeue,
	.peek = fifo_peek,
	.head = fifo_head,
	.reset = fifo_reset,
	.destroy = fifo_destroy,
	.dump = pfifo_dump,
};

/* pfifo_fast: band = prio2band[priority & 15] (the major is ignored);
 * 3.13 limits all bands together to tx_queue_len packets, current kernels
 * give each band a ring of tx_queue_len. Strict priority dequeue. */
static const uint8_t prio2band[16] = {1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1};

struct pfifo_fast_priv {
	struct pkt_spillq band[3];
	uint32_t limit;
};

static int pfifo_fast_init(struct qdisc *q, int argc, char **argv, char *err, size_t errlen)
{
	struct pfifo_fast_priv *f = q->priv;

	if (argc) {
		snprintf(err, errlen, "pfifo_fast: takes no options (\"%s\")", argv[0]);
		return -EINVAL;
	}
	f->limit = q->env->tx_queue_len;
	for (int i = 0; i < 3; i++)
		pktsq_init(&f->band[i], &q->env->spill);
	return 0;
}

/* A traced packet: its band by the fixed priomap, then its queueing. */
static void pfifo_fast_trace(const struct qdisc *q, const struct pkt *p, enum qtrace_kind kind)
{
	struct qtrace ev = {.kind = kind, .rule = QRULE_PRIOMAP, .map_index = p->priority & 15,
			    .band = prio2band[p->priority & 15]};

	qdisc_trace(q, p, &ev);
}

static int pfifo_fast_enqueue(struct qdisc *q, struct pkt *p)
{
	struct pfifo_fast_priv *f = q->priv;
	struct pkt_spillq *b = &f->band[prio2band[p->priority & 15]];
	uint32_t used = q->env->kernel == BPF_KERNEL_3_13 ? q->s.qlen : pktsq_len(b);

	if (p->traced)
		pfifo_fast_trace(q, p, QTRACE_CLASSIFY);
	if (used >= f->limit)
		return qdisc_drop(q, p, DROP_QDISC_LIMIT);
	pktsq_push_tail(b, p);
	qdisc_enqueued(q, p);
	if (p->traced)
		pfifo_fast_trace(q, p, QTRACE_ENQUEUE);
	return NET_XMIT_SUCCESS;
}

static struct pkt *pfifo_fast_dequeue(struct qdisc *q)
{
	struct pfifo_fast_priv *f = q->priv;

	for (int i = 0; i < 3; i++) {
		struct pkt *p = pktsq_pop_head(&f->band[i]);

		if (p) {
			qdisc_dequeued(q, p);
			return p;
		}
	}
	return NULL;
}

static const struct pkt *pfifo_fast_peek(struct qdisc *q)
{
	struct pfifo_fast_priv *f = q->priv;

	for (int i = 0; i < 3; i++)
		if (pktsq_head(&f->band[i]))
			return pktsq_head(&f->band[i]);
	return NULL;
}

static const struct pkt *pfifo_fast_head(const struct qdisc *q)
{
	return pfifo_fast_peek((struct qdisc *)q); /* reads only */
}

static void pfifo_fast_reset(struct qdisc *q)
{
	struct pfifo_fast_priv *f = q->priv;

	for (int i = 0; i < 3; i++) {
		struct pkt *p;

		while ((p = pktsq_pop_head(&f->band[i]))) {
			p->drop = DROP_QDISC_DESTROY;
			q->env->drop(q->env->arg, p);
		}
	}
	q->s.qlen = 0;
	q->s.backlog = 0;
}

static void pfifo_fast_destroy(struct qdisc *q)
{
	struct pfifo_fast_priv *f = q->priv;

	for (int i = 0; i < 3; i++)
		pktsq_free(&f->band[i]);
}

/* iproute2 prints pfifo_fast with prio's print_opt */
static void pfifo_fast_dump(const struct qdisc *q, struct tcprint *p, int details)
{
	pr_uint(p, PR_ANY, "bands", "bands %u ", 3);
	pr_open_array(p, "priomap", "priomap");
	for (int i = 0; i < 16; i++)
		pr_uint(p, PR_ANY, NULL, " %u", prio2band[i]);
	pr_close_array(p, NULL);
	pr_bool(p, PR_JSON, "multiqueue", NULL, 0);
}

const struct qdisc_ops pfifo_fast_qdisc_ops = {
	.id = "pfifo_fast",
	.priv_size = sizeof(struct pfifo_fast_priv),
	.init = pfifo_fast_init,
	.enqueue = pfifo_fast_enqueue,
	.dequeue = pfifo_fast_dequeue,
	.peek = pfifo_fast_peek,
	.head = pfifo_fast_head,
	.reset = pfifo_fast_reset,
	.destroy = pfifo_fast_destroy,
	.dump = pfifo_fast_dump,
};
