/* sch_prio.c - the prio qdisc of net/sched/sch_prio.c: 2..16 bands served
 * in strict priority, each band a child qdisc (pfifo by default); a packet's
 * band comes from skb->priority when it names this qdisc, else from the
 * filter chain's classid, else from the priomap. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qdisc.h"

#define TCQ_PRIO_BANDS 16
#define TCQ_MIN_PRIO_BANDS 2

struct prio_sched_data {
	int bands;
	uint8_t prio2band[16];
	struct qdisc *queues[TCQ_PRIO_BANDS];
};

static const uint8_t default_priomap[16] = {1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1};

/* tc's q_prio.c: bands first, then priomap entries checked against the
 * bands known at that moment; then the kernel's prio_tune validation. */
static int prio_parse(int argc, char **argv, int *bands, uint8_t map[16], char *err,
		      size_t errlen)
{
	int idx = 0, in_map = 0;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "bands")) {
			uint32_t v;

			/* tc prints its usage here when priomap came first, and goes on:
			 * the entries already read were checked against the old count */
			if (i + 1 >= argc || tc_get_u32(&v, argv[i + 1], 10) || v > 0x7fffffff) {
				snprintf(err, errlen, "Illegal \"bands\": \"%s\"", i + 1 < argc ? argv[i + 1] : "");
				return -EINVAL;
			}
			*bands = (int)v;
			i++;
		} else if (!strcmp(argv[i], "priomap")) {
			in_map = 1;
		} else if (!strcmp(argv[i], "multiqueue")) {
			continue;
		} else if (in_map) {
			uint32_t band;

			if (tc_get_u32(&band, argv[i], 10)) {
				snprintf(err, errlen, "Illegal \"priomap\" element: \"%s\"", argv[i]);
				return -EINVAL;
			}
			if (band >= (uint32_t)*bands) {
				snprintf(err, errlen, "\"priomap\" element is out of bands: \"%s\" (band %u, bands %d)",
					 argv[i], band, *bands);
				return -EINVAL;
			}
			if (idx >= 16) {
				snprintf(err, errlen, "\"priomap\" index > TC_PRIO_MAX=15");
				return -EINVAL;
			}
			map[idx++] = (uint8_t)band;
		} else {
			snprintf(err, errlen,
				 "prio: What is \"%s\"? Usage: ... prio bands NUMBER priomap P1 P2...", argv[i]);
			return -EINVAL;
		}
	}
	if (*bands > TCQ_PRIO_BANDS || *bands < TCQ_MIN_PRIO_BANDS) {
		snprintf(err, errlen, "RTNETLINK answers: Invalid argument (prio: bands %d not in 2..16)", *bands);
		return -EINVAL;
	}
	for (int i = 0; i < 16; i++)
		if (map[i] >= *bands) {
			snprintf(err, errlen,
				 "RTNETLINK answers: Invalid argument (prio: priomap entry %d is band %u, but there are %d bands)",
				 i, map[i], *bands);
			return -EINVAL;
		}
	return 0;
}

/* prio_tune: bands beyond the new count are destroyed (their packets
 * dropped and subtracted from prio), new bands get a default pfifo. */
static int prio_tune(struct qdisc *q, int argc, char **argv, char *err, size_t errlen)
{
	struct prio_sched_data *pd = q->priv;
	int bands = 3;
	uint8_t map[16];
	struct qdisc *fresh[TCQ_PRIO_BANDS] = {0};
	int ret;

	memcpy(map, default_priomap, sizeof(map));
	ret = prio_parse(argc, argv, &bands, map, err, errlen);
	if (ret)
		return ret;
	for (int i = pd->bands; i < bands; i++) {
		fresh[i] = qdisc_create_default(q->env, TC_H_MAKE(q->handle, (uint32_t)i + 1));
		if (!fresh[i]) {
			for (int j = pd->bands; j < i; j++)
				qdisc_destroy(fresh[j]);
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		fresh[i]->parent_q = q;
	}
	for (int i = bands; i < pd->bands; i++) {
		struct qdisc *child = pd->queues[i];

		q->s.qlen -= child->s.qlen;
		if (q->env->kernel != BPF_KERNEL_3_13) {
			q->s.backlog -= child->s.backlog;
			q->s.drops += child->s.qlen;
		}
		qdisc_destroy(child);
		pd->queues[i] = NULL;
	}
	for (int i = pd->bands; i < bands; i++)
		pd->queues[i] = fresh[i];
	pd->bands = bands;
	memcpy(pd->prio2band, map, sizeof(map));
	return 0;
}

static int prio_init(struct qdisc *q, int argc, char **argv, char *err, size_t errlen)
{
	return prio_tune(q, argc, argv, err, errlen);
}

/* prio_classify for a traced packet: the same decisions, each reported
 * (the filters one by one, then the verdict and the rule that chose the
 * band). Kept apart so that untraced packets pay one branch. */
static struct qdisc *prio_classify_traced(struct qdisc *q, struct pkt *p)
{
	struct prio_sched_data *pd = q->priv;
	struct qtrace ev = {.kind = QTRACE_CLASSIFY};
	uint32_t band;

	if (TC_H_MAJ(p->priority) == q->handle) {
		ev.verdict = VERDICT_PRIORITY;
		ev.classid = p->priority;
		ev.rule = QRULE_PRIORITY;
		band = TC_H_MIN(p->priority) - 1;
	} else {
		struct tcf_result res = {0};
		struct bpf_skb skb;
		int r = -1;

		if (q->chain.head) {
			qdisc_pkt_skb(q, p, &skb);
			r = qdisc_classify_traced(q, p, &skb, &res);
		}
		ev.verdict = r >= 0 ? VERDICT_FILTER
			     : q->chain.head ? VERDICT_UNCLASSIFIED : VERDICT_NONE;
		ev.classid = r >= 0 ? res.classid : 0;
		if (!q->parent_q) {
			p->verdict = ev.verdict;
			p->classid = ev.classid;
			p->filter_pref = r >= 0 ? res.pref : 0;
			p->filter_handle = r >= 0 ? res.handle : 0;
		}
		if (r < 0) {
			ev.rule = QRULE_PRIOMAP;
			ev.map_index = (TC_H_MAJ(p->priority) ? 0 : p->priority) & 15;
			band = pd->prio2band[ev.map_index];
		} else {
			ev.rule = QRULE_FILTER;
			ev.pref = res.pref;
			ev.handle = res.handle;
			band = TC_H_MIN(res.classid) - 1;
		}
	}
	if (ev.verdict == VERDICT_PRIORITY && !q->parent_q) {
		p->verdict = VERDICT_PRIORITY;
		p->classid = p->priority;
	}
	/* what prio_classify does: priority's band, else classid minor - 1 */
	if (band >= (uint32_t)pd->bands) {
		ev.rule = QRULE_FALLBACK;
		ev.map_index = 0;
		band = pd->prio2band[0];
	}
	ev.band = (int)band;
	ev.class_chosen = TC_H_MAKE(q->handle, band + 1);
	ev.child = pd->queues[band];
	if (!q->parent_q)
		q->env->classified(q->env->arg, p);
	qdisc_trace(q, p, &ev);
	return pd->queues[band];
}

static struct qdisc *prio_classify(struct qdisc *q, struct pkt *p)
{
	struct prio_sched_data *pd = q->priv;
	uint32_t band = p->priority;

	if (p->traced)
		return prio_classify_traced(q, p);
	if (TC_H_MAJ(band) == q->handle) {
		band = TC_H_MIN(band) - 1;
		if (!q->parent_q) {
			p->verdict = VERDICT_PRIORITY;
			p->classid = p->priority;
			q->env->classified(q->env->arg, p);
		}
	} else {
		struct tcf_result res = {0};
		struct bpf_skb skb;
		int r = -1;

		uint32_t classid = 0, pref = 0, handle = 0;

		if (q->chain.head) {
			qdisc_pkt_skb(q, p, &skb);
			r = tcf_classify(&q->chain, &skb, qdisc_pkt_protocol(p), &res);
			/* one 32-bit read per field: the classifier has just stored
			 * them one by one, and a merged 64-bit read of two would
			 * wait for those stores to retire */
			classid = res.classid;
			pref = res.pref;
			handle = res.handle;
			__asm__("" : "+r"(classid), "+r"(pref), "+r"(handle));
		}
		if (!q->parent_q) {
			p->verdict = r >= 0 ? VERDICT_FILTER
				     : q->chain.head ? VERDICT_UNCLASSIFIED : VERDICT_NONE;
			p->classid = r >= 0 ? classid : 0;
			p->filter_pref = r >= 0 ? pref : 0;
			p->filter_handle = r >= 0 ? handle : 0;
			q->env->classified(q->env->arg, p);
		}
		if (r < 0) {
			uint32_t prio = TC_H_MAJ(band) ? 0 : band;

			return pd->queues[pd->prio2band[prio & 15]];
		}
		band = TC_H_MIN(classid) - 1;
	}
	if (band >= (uint32_t)pd->bands)
		return pd->queues[pd->prio2band[0]];
	return pd->queues[band];
}

static int prio_enqueue(struct qdisc *q, struct pkt *p)
{
	struct qdisc *child = prio_classify(q, p);
	struct prio_sched_data *pd = q->priv;
	uint32_t len = p->len;
	int ret;

	if (!q->parent_q) {
		for (int i = 0; i < pd->bands; i++)
			if (pd->queues[i] == child)
				p->leaf_classid = TC_H_MAKE(q->handle, (uint32_t)i + 1);
	}
	ret = child->ops->enqueue(child, p);
	if (ret != NET_XMIT_SUCCESS) {
		q->s.drops++;
		return ret;
	}
	q->s.qlen++;
	/* 3.13's prio kept no byte backlog (tc shows "backlog 0b Np") */
	if (q->env->kernel != BPF_KERNEL_3_13)
		q->s.backlog += len;
	if (q->s.qlen > q->s.peak_qlen)
		q->s.peak_qlen = q->s.qlen;
	if (q->s.backlog > q->s.peak_backlog)
		q->s.peak_backlog = q->s.backlog;
	return NET_XMIT_SUCCESS;
}

static struct pkt *prio_dequeue(struct qdisc *q)
{
	struct prio_sched_data *pd = q->priv;

	for (int i = 0; i < pd->bands; i++) {
		struct pkt *p = pd->queues[i]->ops->dequeue(pd->queues[i]);

		if (p) {
			q->s.qlen--;
			if (q->env->kernel != BPF_KERNEL_3_13)
				q->s.backlog -= p->len;
			q->s.packets++;
			q->s.bytes += p->len;
			return p;
		}
	}
	return NULL;
}

static const struct pkt *prio_peek(struct qdisc *q)
{
	struct prio_sched_data *pd = q->priv;

	for (int i = 0; i < pd->bands; i++) {
		const struct pkt *p = pd->queues[i]->ops->peek(pd->queues[i]);

		if (p)
			return p;
	}
	return NULL;
}

/* The first band holding packets gives the head (a band that has packets
 * but nothing now, a tbf, is not looked past: prio_head is for tracing). */
static const struct pkt *prio_head(const struct qdisc *q)
{
	const struct prio_sched_data *pd = q->priv;

	for (int i = 0; i < pd->bands; i++) {
		const struct qdisc *c = pd->queues[i];

		if (c->s.qlen)
			return c->ops->head ? c->ops->head(c) : NULL;
	}
	return NULL;
}

static void prio_reset(struct qdisc *q)
{
	struct prio_sched_data *pd = q->priv;

	for (int i = 0; i < pd->bands; i++)
		if (pd->queues[i]->ops->reset)
			pd->queues[i]->ops->reset(pd->queues[i]);
	q->s.qlen = 0;
	q->s.backlog = 0;
}

static void prio_destroy(struct qdisc *q)
{
	struct prio_sched_data *pd = q->priv;

	for (int i = 0; i < pd->bands; i++)
		qdisc_destroy(pd->queues[i]);
	pd->bands = 0;
}

static void prio_dump(const struct qdisc *q, struct tcprint *p, int details)
{
	const struct prio_sched_data *pd = q->priv;

	pr_int(p, PR_ANY, "bands", "bands %d ", pd->bands);
	pr_open_array(p, "priomap", "priomap");
	for (int i = 0; i < 16; i++)
		pr_uint(p, PR_ANY, NULL, " %u", pd->prio2band[i]);
	pr_close_array(p, NULL);
	pr_bool(p, PR_JSON, "multiqueue", NULL, 0);
}

static int prio_band(const struct qdisc *q, uint32_t classid)
{
	const struct prio_sched_data *pd = q->priv;
	uint32_t band = TC_H_MIN(classid) - 1;

	if (TC_H_MAJ(classid) && TC_H_MAJ(classid) != q->handle)
		return -1;
	return band < (uint32_t)pd->bands ? (int)band : -1;
}

/* prio_graft: a new child replaces the band's (its packets dropped); no
 * child (tc qdisc del) puts back a default pfifo, or 3.13's noop. */
static int prio_graft(struct qdisc *q, uint32_t classid, struct qdisc *child, char *err,
		      size_t errlen)
{
	struct prio_sched_data *pd = q->priv;
	int band = prio_band(q, classid);
	struct qdisc *old;

	if (band < 0) {
		snprintf(err, errlen, "RTNETLINK answers: No such file or directory (prio %x: has no class %x:%x)",
			 q->handle >> 16, TC_H_MAJ(classid) >> 16, TC_H_MIN(classid));
		return -ENOENT;
	}
	if (!child) {
		child = q->env->kernel == BPF_KERNEL_3_13 ? qdisc_create_noop(q->env, classid)
							  : qdisc_create_default(q->env, classid);
		if (!child) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
	}
	old = pd->queues[band];
	child->parent_q = q;
	child->parent = TC_H_MAKE(q->handle, (uint32_t)band + 1);
	/* the old child's queue is gone: prio loses it and counts the drops */
	q->s.qlen -= old->s.qlen;
	if (q->env->kernel != BPF_KERNEL_3_13) {
		q->s.backlog -= old->s.backlog;
		q->s.drops += old->s.qlen;
	}
	pd->queues[band] = child;
	qdisc_destroy(old);
	return 0;
}

static struct qdisc *prio_leaf(struct qdisc *q, uint32_t classid)
{
	int band = prio_band(q, classid);

	return band < 0 ? NULL : ((struct prio_sched_data *)q->priv)->queues[band];
}

static void prio_walk(const struct qdisc *q, void (*fn)(void *arg, const struct qdisc_class *c),
		      void *arg)
{
	const struct prio_sched_data *pd = q->priv;

	for (int i = 0; i < pd->bands; i++) {
		struct qdisc_class c = {
			.classid = TC_H_MAKE(q->handle, (uint32_t)i + 1),
			.parent = q->handle,
			.leaf = pd->queues[i],
			.stats = pd->queues[i]->s,
		};
		fn(arg, &c);
	}
}

static int prio_change(struct qdisc *q, int argc, char **argv, char *err, size_t errlen)
{
	return prio_tune(q, argc, argv, err, errlen);
}

const struct qdisc_ops prio_qdisc_ops = {
	.id = "prio",
	.priv_size = sizeof(struct prio_sched_data),
	.has_filters = 1,
	.init = prio_init,
	.change = prio_change,
	.enqueue = prio_enqueue,
	.dequeue = prio_dequeue,
	.peek = prio_peek,
	.head = prio_head,
	.reset = prio_reset,
	.destroy = prio_destroy,
	.dump = prio_dump,
	.graft = prio_graft,
	.leaf = prio_leaf,
	.walk = prio_walk,
};
