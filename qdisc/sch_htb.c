/* sch_htb.c - the htb qdisc of net/sched/sch_htb.c: a tree of token-bucket
 * classes (rate, ceil, borrowing from ancestors), DRR among the leaves of
 * one priority, and the per-level event queues that say when a class may
 * send again; a qdisc that holds packets may answer "nothing now". */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qdisc.h"
#include "sched_rate.h"

#define TC_HTB_NUMPRIO 8
#define TC_HTB_MAXDEPTH 8
#define HTB_VER 0x30011 /* the kernel's; tc -d prints it as "ver 3.17" */

/* iproute2's get_hz(): /proc/net/psched of current kernels says 1e9 */
#define HTB_TC_HZ 1000000000u

/* linux/pkt_cls.h: the actions htb_classify looks at */
#define TC_ACT_SHOT 2
#define TC_ACT_STOLEN 4
#define TC_ACT_QUEUED 5
#define TC_ACT_TRAP 8

/* include/linux/netdevice.h: enqueue results beside NET_XMIT_* */
#define NET_XMIT_STOLEN_BIT 0x00010000
#define NET_XMIT_BYPASS_BIT 0x00020000

enum htb_cmode {
	HTB_CANT_SEND,	/* neither its own tokens nor its ceil's */
	HTB_MAY_BORROW, /* out of its own tokens, within its ceil */
	HTB_CAN_SEND,	/* within its own rate */
};

struct htb_class;

/* One priority of a level's row or of an inner class's feed: its classes
 * in classid order (the kernel's rb-tree, here a list sorted the same way
 * through htb_class.node[prio]), the DRR pointer into it, and the classid
 * the pointer was at when that class left (so the round resumes after it). */
struct htb_prio {
	struct htb_class *first;
	struct htb_class *ptr;
	uint32_t last_ptr_id;
};

struct htb_link {
	struct htb_class *prev, *next;
	int linked;
};

struct htb_class {
	uint32_t classid;
	struct htb_class *parent;
	struct htb_class *hnext; /* the next in its clhash bucket */
	int level;		 /* 0 for a leaf */
	unsigned int children;

	struct psched_ratecfg rate, ceil;
	int64_t buffer, cbuffer; /* ns */
	int64_t mbuffer;	 /* the most tokens can fall behind: 60 s */
	uint32_t prio;		 /* leaves: 0 is served first */
	int quantum;		 /* leaves: DRR bytes per round */
	struct tcf_chain chain;	 /* the class's filters (its tcf_block) */

	uint64_t bytes, packets; /* bstats */
	uint32_t drops, overlimits;
	uint32_t lends, borrows, giants; /* tc_htb_xstats */

	int64_t tokens, ctokens, t_c; /* ns; t_c: when they were last brought up to date */

	struct qdisc *q;			/* a leaf's qdisc */
	int deficit[TC_HTB_MAXDEPTH];		/* a leaf's DRR credit, per level it sends from */
	struct htb_prio clprio[TC_HTB_NUMPRIO]; /* an inner class's feeds */

	int prio_activity; /* bit p: active at priority p */
	enum htb_cmode cmode;
	struct htb_link node[TC_HTB_NUMPRIO]; /* in a row or in the parent's feed */
	int64_t pq_key;			      /* when its mode changes, while not CAN_SEND */
	uint64_t pq_seq;		      /* order of equal keys: first queued, first out */
	int pq_index;			      /* in its level's wait queue, -1 when not there */
	/* a leaf: the last wait reported for a traced head (QTRACE_THROTTLED),
	 * its id and until, so htb asked again in the same wait says nothing */
	uint64_t thr_id;
	int64_t thr_until;
	char where[160]; /* the tc line that last set it (lint names it) */
};

/* A level's wait queue: the classes not in CAN_SEND, earliest pq_key
 * first (a heap; the kernel's rb-tree gives the same order, equal keys in
 * the order they were queued). */
struct htb_wait {
	struct htb_class **v;
	int n, cap;
};

struct htb_level {
	struct htb_wait wait_pq;
	struct htb_prio hprio[TC_HTB_NUMPRIO];
};

struct htb_sched {
	/* Qdisc_class_hash: tc class show lists the classes bucket by bucket,
	 * each bucket newest first, so the table grows as the kernel's does */
	struct htb_class **hash;
	unsigned int hashsize, hashelems;

	int defcls;
	int rate2quantum;
	uint32_t direct_qlen;
	struct pkt_queue direct_queue; /* packets htb does not shape */
	uint32_t direct_pkts;
	struct qdisc *sch; /* its qdisc: overlimits count in sch->s */

	int64_t now; /* the time of this dequeue */
	int64_t near_ev_cache[TC_HTB_MAXDEPTH];
	int64_t near_ev_min; /* the earliest of them: before it, no level has an event due */
	int row_mask[TC_HTB_MAXDEPTH];
	/* bit l: row_mask[l] is not 0 (a dequeue visits only such levels and
	 * those with an event due, in the kernel's order; see htb_dequeue_inner) */
	unsigned int row_levels;
	struct htb_level hlevel[TC_HTB_MAXDEPTH];
	uint64_t pq_seq;
	unsigned int nclasses;

	struct pkt *peeked; /* qdisc_peek_dequeued's packet (sch->gso_skb) */
};

#define HTB_DIRECT ((struct htb_class *)-1L)

/* ---- the class hash (qdisc_class_hash_*) ---- */

static unsigned int htb_hash(uint32_t id, unsigned int mask)
{
	id ^= id >> 8;
	id ^= id >> 4;
	return id & mask;
}

static struct htb_class *htb_find(const struct htb_sched *q, uint32_t classid)
{
	struct htb_class *cl = q->hash[htb_hash(classid, q->hashsize - 1)];

	while (cl && cl->classid != classid)
		cl = cl->hnext;
	return cl;
}

/* htb_find for a classid from a packet: every class has the qdisc's major
 * (htb_change_class refuses others), so another major names none and the
 * bucket walk is skipped (most packets: priority 0, a tcpdump program's
 * 4:0) */
static struct htb_class *htb_find_own(const struct htb_sched *q, uint32_t classid)
{
	return TC_H_MAJ(classid ^ q->sch->handle) ? NULL : htb_find(q, classid);
}

static void htb_hash_insert(struct htb_sched *q, struct htb_class *cl)
{
	unsigned int h = htb_hash(cl->classid, q->hashsize - 1);

	cl->hnext = q->hash[h];
	q->hash[h] = cl;
	q->hashelems++;
}

static void htb_hash_remove(struct htb_sched *q, struct htb_class *cl)
{
	struct htb_class **pp = &q->hash[htb_hash(cl->classid, q->hashsize - 1)];

	while (*pp && *pp != cl)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = cl->hnext;
	q->hashelems--;
}

/* qdisc_class_hash_grow: past a load of 3/4, twice the buckets; each old
 * bucket is moved head first, which reverses what shares a new bucket. */
static void htb_hash_grow(struct htb_sched *q)
{
	unsigned int nsize = q->hashsize * 2;
	struct htb_class **nhash;

	if (q->hashelems * 4 <= q->hashsize * 3)
		return;
	nhash = calloc(nsize, sizeof(*nhash));
	if (!nhash)
		return; /* as the kernel: the table stays as it is */
	for (unsigned int i = 0; i < q->hashsize; i++) {
		struct htb_class *cl = q->hash[i], *next;

		for (; cl; cl = next) {
			unsigned int h = htb_hash(cl->classid, nsize - 1);

			next = cl->hnext;
			cl->hnext = nhash[h];
			nhash[h] = cl;
		}
	}
	free(q->hash);
	q->hash = nhash;
	q->hashsize = nsize;
}

/* ---- the classid-ordered lists (the kernel's id rb-trees) ---- */

static void htb_id_add(struct htb_prio *hp, struct htb_class *cl, int prio)
{
	struct htb_class **pp = &hp->first, *prev = NULL;

	while (*pp && (*pp)->classid < cl->classid) {
		prev = *pp;
		pp = &(*pp)->node[prio].next;
	}
	cl->node[prio].next = *pp;
	cl->node[prio].prev = prev;
	if (*pp)
		(*pp)->node[prio].prev = cl;
	*pp = cl;
	cl->node[prio].linked = 1;
}

static void htb_id_erase(struct htb_prio *hp, struct htb_class *cl, int prio)
{
	struct htb_link *n = &cl->node[prio];

	if (!n->linked)
		return; /* the kernel warns: a bug, not fatal */
	if (n->prev)
		n->prev->node[prio].next = n->next;
	else
		hp->first = n->next;
	if (n->next)
		n->next->node[prio].prev = n->prev;
	n->prev = n->next = NULL;
	n->linked = 0;
}

/* htb_id_find_next_upper: the first class whose classid is id or above */
static struct htb_class *htb_id_next_upper(const struct htb_prio *hp, int prio, uint32_t id)
{
	struct htb_class *cl = hp->first;

	while (cl && cl->classid < id)
		cl = cl->node[prio].next;
	return cl;
}

static void htb_next_ptr(struct htb_prio *hp, int prio)
{
	if (hp->ptr)
		hp->ptr = hp->ptr->node[prio].next;
}

/* ---- the wait queues ---- */

static int htb_wait_before(const struct htb_class *a, const struct htb_class *b)
{
	return a->pq_key != b->pq_key ? a->pq_key < b->pq_key : a->pq_seq < b->pq_seq;
}

static void htb_wait_set(struct htb_wait *w, int i, struct htb_class *cl)
{
	w->v[i] = cl;
	cl->pq_index = i;
}

static void htb_wait_up(struct htb_wait *w, int i)
{
	struct htb_class *cl = w->v[i];

	while (i > 0 && htb_wait_before(cl, w->v[(i - 1) / 2])) {
		htb_wait_set(w, i, w->v[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	htb_wait_set(w, i, cl);
}

static void htb_wait_down(struct htb_wait *w, int i)
{
	struct htb_class *cl = w->v[i];

	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;
		const struct htb_class *best = cl;

		if (l < w->n && htb_wait_before(w->v[l], best)) {
			m = l;
			best = w->v[l];
		}
		if (r < w->n && htb_wait_before(w->v[r], best))
			m = r;
		if (m == i)
			break;
		htb_wait_set(w, i, w->v[m]);
		i = m;
	}
	htb_wait_set(w, i, cl);
}

/* Capacity for every class is reserved when the class is made, so the
 * data path never allocates. */
static int htb_wait_reserve(struct htb_sched *q, unsigned int n)
{
	for (int l = 0; l < TC_HTB_MAXDEPTH; l++) {
		struct htb_wait *w = &q->hlevel[l].wait_pq;
		struct htb_class **v;

		if ((unsigned int)w->cap >= n)
			continue;
		v = realloc(w->v, n * sizeof(*v));
		if (!v)
			return -ENOMEM;
		w->v = v;
		w->cap = (int)n;
	}
	return 0;
}

static void htb_wait_erase(struct htb_sched *q, struct htb_class *cl)
{
	struct htb_wait *w = &q->hlevel[cl->level].wait_pq;
	int i = cl->pq_index;

	if (i < 0 || i >= w->n || w->v[i] != cl)
		return; /* not queued: the kernel warns */
	cl->pq_index = -1;
	if (--w->n == i)
		return;
	htb_wait_set(w, i, w->v[w->n]); /* the last one fills the hole */
	if (i > 0 && htb_wait_before(w->v[i], w->v[(i - 1) / 2]))
		htb_wait_up(w, i);
	else
		htb_wait_down(w, i);
}

/* htb_add_to_wait_tree: cl changes mode delay ns from now */
static void htb_add_to_wait_tree(struct htb_sched *q, struct htb_class *cl, int64_t delay)
{
	struct htb_wait *w = &q->hlevel[cl->level].wait_pq;

	cl->pq_key = q->now + delay;
	if (cl->pq_key == q->now)
		cl->pq_key++;
	if (q->near_ev_cache[cl->level] > cl->pq_key)
		q->near_ev_cache[cl->level] = cl->pq_key;
	if (q->near_ev_min > cl->pq_key)
		q->near_ev_min = cl->pq_key;
	cl->pq_seq = ++q->pq_seq;
	if (w->n >= w->cap)
		return; /* cannot happen: reserved for every class */
	htb_wait_set(w, w->n++, cl);
	htb_wait_up(w, w->n - 1);
}

/* ---- activity: rows and feeds ---- */

static void htb_add_class_to_row(struct htb_sched *q, struct htb_class *cl, int mask)
{
	q->row_mask[cl->level] |= mask;
	if (mask)
		q->row_levels |= 1u << cl->level;
	while (mask) {
		int prio = __builtin_ctz((unsigned int)mask);

		mask &= ~(1 << prio);
		htb_id_add(&q->hlevel[cl->level].hprio[prio], cl, prio);
	}
}

static void htb_remove_class_from_row(struct htb_sched *q, struct htb_class *cl, int mask)
{
	struct htb_level *hlevel = &q->hlevel[cl->level];
	int m = 0;

	while (mask) {
		int prio = __builtin_ctz((unsigned int)mask);
		struct htb_prio *hprio = &hlevel->hprio[prio];

		mask &= ~(1 << prio);
		if (hprio->ptr == cl)
			htb_next_ptr(hprio, prio);
		htb_id_erase(hprio, cl, prio);
		if (!hprio->first)
			m |= 1 << prio;
	}
	q->row_mask[cl->level] &= ~m;
	if (!q->row_mask[cl->level])
		q->row_levels &= ~(1u << cl->level);
}

/* htb_activate_prios: a class that may borrow hangs in its parent's feed
 * (the parent activates in turn if that feed was empty); one that can send
 * sits in the row of its level. cl->cmode is already the new mode. */
static void htb_activate_prios(struct htb_sched *q, struct htb_class *cl)
{
	struct htb_class *p = cl->parent;
	int mask = cl->prio_activity;

	while (cl->cmode == HTB_MAY_BORROW && p && mask) {
		int m = mask;

		while (m) {
			int prio = __builtin_ctz((unsigned int)m);

			m &= ~(1 << prio);
			if (p->clprio[prio].first)
				mask &= ~(1 << prio); /* the parent is active there already */
			htb_id_add(&p->clprio[prio], cl, prio);
		}
		p->prio_activity |= mask;
		cl = p;
		p = cl->parent;
	}
	if (cl->cmode == HTB_CAN_SEND && mask)
		htb_add_class_to_row(q, cl, mask);
}

/* htb_deactivate_prios: the reverse; cl->cmode is still the old mode. */
static void htb_deactivate_prios(struct htb_sched *q, struct htb_class *cl)
{
	struct htb_class *p = cl->parent;
	int mask = cl->prio_activity;

	while (cl->cmode == HTB_MAY_BORROW && p && mask) {
		int m = mask;

		mask = 0;
		while (m) {
			int prio = __builtin_ctz((unsigned int)m);

			m &= ~(1 << prio);
			if (p->clprio[prio].ptr == cl) {
				/* the round resumes after cl when it comes back */
				p->clprio[prio].last_ptr_id = cl->classid;
				p->clprio[prio].ptr = NULL;
			}
			htb_id_erase(&p->clprio[prio], cl, prio);
			if (!p->clprio[prio].first)
				mask |= 1 << prio;
		}
		p->prio_activity &= ~mask;
		cl = p;
		p = cl->parent;
	}
	if (cl->cmode == HTB_CAN_SEND && mask)
		htb_remove_class_from_row(q, cl, mask);
}

/* htb_class_mode with htb_hysteresis 0 (the kernel's default): the mode at
 * t_c + *diff; when not CAN_SEND, *diff becomes the ns until it changes. */
static enum htb_cmode htb_class_mode(const struct htb_class *cl, int64_t *diff)
{
	int64_t toks = cl->ctokens + *diff;

	if (toks < 0) {
		*diff = -toks;
		return HTB_CANT_SEND;
	}
	toks = cl->tokens + *diff;
	if (toks >= 0)
		return HTB_CAN_SEND;
	*diff = -toks;
	return HTB_MAY_BORROW;
}

/* The move to a new mode: overlimits count the turns into CANT_SEND.
 * Out of line: most calls of htb_change_class_mode change nothing. */
static __attribute__((noinline)) void htb_set_class_mode(struct htb_sched *q, struct htb_class *cl,
							 enum htb_cmode new_mode)
{
	if (new_mode == HTB_CANT_SEND) {
		cl->overlimits++;
		q->sch->s.overlimits++;
	}
	if (cl->prio_activity) {
		if (cl->cmode != HTB_CANT_SEND)
			htb_deactivate_prios(q, cl);
		cl->cmode = new_mode;
		if (new_mode != HTB_CANT_SEND)
			htb_activate_prios(q, cl);
	} else {
		cl->cmode = new_mode;
	}
}

/* htb_change_class_mode: the mode at t_c + *diff, and the class moved
 * between rows and feeds when it changed */
static inline void htb_change_class_mode(struct htb_sched *q, struct htb_class *cl, int64_t *diff)
{
	enum htb_cmode new_mode = htb_class_mode(cl, diff);

	if (new_mode != cl->cmode)
		htb_set_class_mode(q, cl, new_mode);
}

static void htb_activate(struct htb_sched *q, struct htb_class *cl)
{
	if (!cl->prio_activity) {
		cl->prio_activity = 1 << cl->prio;
		htb_activate_prios(q, cl);
	}
}

static void htb_deactivate(struct htb_sched *q, struct htb_class *cl)
{
	htb_deactivate_prios(q, cl);
	cl->prio_activity = 0;
}

/* ---- classification ---- */

/* tcf_classify of one chain, each filter reported for a traced packet */
static int htb_filter(const struct qdisc *sch, const struct tcf_chain *chain, const struct pkt *p,
		      const struct bpf_skb *skb, struct tcf_result *res)
{
	if (p->traced && sch->env->tracer) {
		struct qdisc_trace_ctx c = {sch, p};
		const struct qdisc_tracer *t = sch->env->tracer;
		struct tcf_tracer tr = {
		    .filter = qdisc_trace_filter, .arg = &c, .insn = t->insn, .insn_arg = t->arg};

		return tcf_classify_traced(chain, skb, qdisc_pkt_protocol(p), res, &tr);
	}
	return tcf_classify(chain, skb, qdisc_pkt_protocol(p), res);
}

/* htb_classify: skb->priority naming the qdisc (the direct queue) or a leaf;
 * else the filters, starting at the qdisc's or, when the priority names an
 * inner class, at that class's, and going on at the filters of each inner
 * class a result names; then the default class, then the direct queue.
 * NULL: a filter's action took the packet (*qerr says how). */
static struct htb_class *htb_classify(struct qdisc *sch, struct pkt *p, int *qerr)
{
	struct htb_sched *q = sch->priv;
	struct qtrace ev = {.kind = QTRACE_CLASSIFY, .band = -1};
	const struct tcf_chain *tcf;
	struct tcf_result res = {0};
	struct htb_class *cl;
	struct bpf_skb skb;
	int result;

	if (p->priority == sch->handle) {
		ev.verdict = VERDICT_PRIORITY;
		ev.classid = p->priority;
		ev.rule = QRULE_DIRECT;
		cl = HTB_DIRECT;
		goto out;
	}
	cl = htb_find_own(q, p->priority);
	if (cl) {
		ev.verdict = VERDICT_PRIORITY;
		ev.classid = p->priority;
		if (!cl->level) {
			ev.rule = QRULE_PRIORITY;
			goto out;
		}
		tcf = &cl->chain;
	} else {
		tcf = &sch->chain;
		ev.verdict = tcf->head ? VERDICT_UNCLASSIFIED : VERDICT_NONE;
	}
	*qerr = NET_XMIT_SUCCESS | NET_XMIT_BYPASS_BIT;
	if (tcf->head)
		qdisc_pkt_skb(sch, p, &skb);
	while (tcf->head && (result = htb_filter(sch, tcf, p, &skb, &res)) >= 0) {
		switch (result) {
		case TC_ACT_QUEUED:
		case TC_ACT_STOLEN:
		case TC_ACT_TRAP:
			*qerr = NET_XMIT_SUCCESS | NET_XMIT_STOLEN_BIT;
			/* fall through */
		case TC_ACT_SHOT:
			cl = NULL;
			ev.rule = QRULE_DROP;
			goto out;
		}
		ev.verdict = VERDICT_FILTER;
		ev.classid = res.classid;
		ev.pref = res.pref;
		ev.handle = res.handle;
		if (res.classid == sch->handle) {
			cl = HTB_DIRECT;
			ev.rule = QRULE_DIRECT;
			goto out;
		}
		cl = htb_find_own(q, res.classid);
		if (!cl)
			break; /* a classid of no class: the default decides */
		if (!cl->level) {
			ev.rule = QRULE_FILTER;
			goto out;
		}
		tcf = &cl->chain; /* an inner class: its own filters go on */
	}
	cl = htb_find(q, TC_H_MAKE(TC_H_MAJ(sch->handle), (uint32_t)q->defcls));
	if (!cl || cl->level) {
		cl = HTB_DIRECT;
		ev.rule = QRULE_DIRECT;
	} else {
		ev.rule = QRULE_DEFAULT;
	}
out:
	if (!sch->parent_q) {
		p->verdict = ev.verdict;
		p->classid = ev.verdict == VERDICT_NONE || ev.verdict == VERDICT_UNCLASSIFIED
				 ? 0
				 : ev.classid;
		p->filter_pref = ev.verdict == VERDICT_FILTER ? ev.pref : 0;
		p->filter_handle = ev.verdict == VERDICT_FILTER ? ev.handle : 0;
		if (cl)
			p->leaf_classid = cl == HTB_DIRECT ? sch->handle : cl->classid;
		sch->env->classified(sch->env->arg, p);
	}
	if (p->traced) {
		ev.class_chosen = !cl ? 0 : cl == HTB_DIRECT ? sch->handle : cl->classid;
		ev.child = cl && cl != HTB_DIRECT ? cl->q : NULL;
		qdisc_trace(sch, p, &ev);
	}
	return cl;
}

/* ---- enqueue, dequeue ---- */

static int htb_enqueue(struct qdisc *sch, struct pkt *p)
{
	struct htb_sched *q = sch->priv;
	int ret = NET_XMIT_SUCCESS;
	struct htb_class *cl = htb_classify(sch, p, &ret);

	if (cl == HTB_DIRECT) {
		if (q->direct_queue.len >= q->direct_qlen)
			return qdisc_drop(sch, p, DROP_QDISC_LIMIT);
		pktq_push_tail(&q->direct_queue, p);
		q->direct_pkts++;
	} else if (!cl) {
		if (ret & NET_XMIT_BYPASS_BIT)
			sch->s.drops++;
		p->drop = DROP_FILTER_SHOT;
		sch->env->drop(sch->env->arg, p);
		return ret;
	} else if ((ret = cl->q->ops->enqueue(cl->q, p)) != NET_XMIT_SUCCESS) {
		if (!(ret & NET_XMIT_STOLEN_BIT)) { /* net_xmit_drop_count */
			sch->s.drops++;
			cl->drops++;
		}
		return ret;
	} else {
		htb_activate(q, cl);
	}
	qdisc_enqueued(sch, p);
	return NET_XMIT_SUCCESS;
}

static void htb_accnt_tokens(struct htb_class *cl, uint32_t bytes, int64_t diff)
{
	int64_t toks = diff + cl->tokens;

	if (toks > cl->buffer)
		toks = cl->buffer;
	toks -= (int64_t)psched_l2t_ns(&cl->rate, bytes);
	if (toks <= -cl->mbuffer)
		toks = 1 - cl->mbuffer;
	cl->tokens = toks;
}

static void htb_accnt_ctokens(struct htb_class *cl, uint32_t bytes, int64_t diff)
{
	int64_t toks = diff + cl->ctokens;

	if (toks > cl->cbuffer)
		toks = cl->cbuffer;
	toks -= (int64_t)psched_l2t_ns(&cl->ceil, bytes);
	if (toks <= -cl->mbuffer)
		toks = 1 - cl->mbuffer;
	cl->ctokens = toks;
}

/* htb_charge_class: a packet of `bytes` left leaf cl, sent from `level`
 * (cl's own level, or the level of the ancestor it borrowed from). Every
 * class up to the root pays from its ceil; those at or above `level` pay
 * from their rate too (the one at `level` lent), those below borrowed. */
static void htb_charge_class(struct htb_sched *q, struct htb_class *cl, int level, uint32_t bytes)
{
	while (cl) {
		int64_t diff = q->now - cl->t_c;
		enum htb_cmode old_mode;

		if (diff > cl->mbuffer)
			diff = cl->mbuffer;
		if (cl->level >= level) {
			if (cl->level == level)
				cl->lends++;
			htb_accnt_tokens(cl, bytes, diff);
		} else {
			cl->borrows++;
			cl->tokens += diff; /* t_c moves: its tokens keep up */
		}
		htb_accnt_ctokens(cl, bytes, diff);
		cl->t_c = q->now;

		old_mode = cl->cmode;
		diff = 0;
		htb_change_class_mode(q, cl, &diff);
		if (old_mode != cl->cmode) {
			if (old_mode != HTB_CAN_SEND)
				htb_wait_erase(q, cl);
			if (cl->cmode != HTB_CAN_SEND)
				htb_add_to_wait_tree(q, cl, diff);
		}
		if (cl->level) { /* a leaf counted its own at dequeue */
			cl->bytes += bytes;
			cl->packets++;
		}
		cl = cl->parent;
	}
}

/* htb_do_events: the mode changes due by now at one level. The time of the
 * next, or 0 when none waits. (The kernel stops after two jiffies and
 * tries again from a work item; a simulation has no jiffies to run out of.) */
static int64_t htb_do_events(struct htb_sched *q, int level)
{
	struct htb_wait *w = &q->hlevel[level].wait_pq;

	for (;;) {
		struct htb_class *cl;
		int64_t diff;

		if (!w->n)
			return 0;
		cl = w->v[0];
		if (cl->pq_key > q->now)
			return cl->pq_key;
		htb_wait_erase(q, cl);
		diff = q->now - cl->t_c;
		if (diff > cl->mbuffer)
			diff = cl->mbuffer;
		htb_change_class_mode(q, cl, &diff);
		if (cl->cmode != HTB_CAN_SEND)
			htb_add_to_wait_tree(q, cl, diff);
	}
}

/* htb_lookup_leaf: from a row, down the feeds' DRR pointers to a leaf */
static struct htb_class *htb_lookup_leaf(struct htb_prio *hprio, int prio)
{
	struct htb_prio *stk[TC_HTB_MAXDEPTH];
	int sp = 0;

	stk[0] = hprio;
	for (int i = 0; i < 65535; i++) {
		struct htb_prio *h = stk[sp];

		if (!h->ptr && h->last_ptr_id)
			h->ptr = htb_id_next_upper(h, prio, h->last_ptr_id);
		h->last_ptr_id = 0;
		if (!h->ptr) { /* past the end: rewind, and the level above moves on */
			h->ptr = h->first;
			if (sp > 0) {
				sp--;
				if (!stk[sp]->ptr)
					return NULL;
				htb_next_ptr(stk[sp], prio);
			}
		} else {
			struct htb_class *cl = h->ptr;

			if (!cl->level)
				return cl;
			if (sp + 1 >= TC_HTB_MAXDEPTH)
				return NULL;
			stk[++sp] = &cl->clprio[prio];
		}
	}
	return NULL;
}

/* The DRR pointer a leaf sending from `level` moves on. */
static struct htb_prio *htb_drr_of(struct htb_sched *q, struct htb_class *cl, int prio, int level)
{
	return level ? &cl->parent->clprio[prio] : &q->hlevel[0].hprio[prio];
}

/* A traced packet leaves leaf cl from a row above its own: it is over its
 * rate, and the ancestor at that level lends (htb_charge_class counts its
 * lends and the borrows of those below). */
static void htb_trace_borrow(struct htb_sched *q, const struct htb_class *cl, int level,
			     const struct pkt *p)
{
	struct qtrace ev = {.kind = QTRACE_BORROW, .band = -1, .level = level};
	const struct htb_class *a = cl;

	while (a->parent && a->level < level)
		a = a->parent;
	ev.wclass = cl->classid;
	ev.by = a->classid;
	qdisc_trace(q->sch, p, &ev);
}

/* htb_dequeue_tree: a packet of priority prio from the row of level */
static struct pkt *htb_dequeue_tree(struct htb_sched *q, int prio, int level)
{
	struct htb_prio *hprio = &q->hlevel[level].hprio[prio];
	struct htb_class *cl, *start;
	struct pkt *p;

	start = cl = htb_lookup_leaf(hprio, prio);
	for (;;) {
		if (!cl)
			return NULL;
		/* a leaf emptied behind htb's back (a graft, its own drops) */
		if (!cl->q->s.qlen) {
			struct htb_class *next;

			htb_deactivate(q, cl);
			if (!(q->row_mask[level] & (1 << prio)))
				return NULL;
			next = htb_lookup_leaf(hprio, prio);
			if (cl == start)
				start = next;
			cl = next;
			continue;
		}
		p = cl->q->ops->dequeue(cl->q);
		if (p)
			break;
		/* a leaf that is not work-conserving had nothing now */
		htb_next_ptr(htb_drr_of(q, cl, prio, level), prio);
		cl = htb_lookup_leaf(hprio, prio);
		if (cl == start)
			return NULL;
	}
	cl->bytes += p->len;
	cl->packets++;
	cl->deficit[level] -= (int)p->len;
	if (cl->deficit[level] < 0) {
		cl->deficit[level] += cl->quantum;
		htb_next_ptr(htb_drr_of(q, cl, prio, level), prio);
	}
	if (level && p->traced && q->sch->env->tracer)
		htb_trace_borrow(q, cl, level, p);
	if (!cl->q->s.qlen)
		htb_deactivate(q, cl);
	htb_charge_class(q, cl, level, p->len);
	return p;
}

/* htb answers nothing now: each leaf whose head is traced and that may
 * not send says so, with the class that holds it back (the leaf over its
 * ceil, or the first ancestor that cannot lend: a leaf over its rate asks
 * its parent, and so on up) and when that class changes mode. A leaf that
 * may send waits on its own qdisc (a tbf), which says so itself. Only
 * while someone follows packets: a walk of every class. */
static void htb_trace_throttled(struct htb_sched *q)
{
	for (unsigned int i = 0; i < q->hashsize; i++)
		for (struct htb_class *cl = q->hash[i]; cl; cl = cl->hnext) {
			const struct htb_class *by = cl;
			struct qtrace ev = {.kind = QTRACE_THROTTLED, .band = -1};
			const struct pkt *head;

			if (cl->level || !cl->q->s.qlen || !cl->q->ops->head)
				continue;
			head = cl->q->ops->head(cl->q);
			if (!head || !head->traced)
				continue;
			while (by->cmode == HTB_MAY_BORROW && by->parent)
				by = by->parent;
			if (by->cmode == HTB_CAN_SEND)
				continue;
			if (head->id == cl->thr_id && by->pq_key == cl->thr_until)
				continue;
			cl->thr_id = head->id;
			cl->thr_until = by->pq_key;
			ev.wclass = cl->classid;
			ev.by = by->classid;
			ev.until = (uint64_t)by->pq_key;
			qdisc_trace(q->sch, head, &ev);
		}
}

/* near_ev_min again, after a dequeue moved some level's next event on */
static void htb_near_ev_min(struct htb_sched *q)
{
	q->near_ev_min = q->near_ev_cache[0];
	for (int level = 1; level < TC_HTB_MAXDEPTH; level++)
		if (q->near_ev_min > q->near_ev_cache[level])
			q->near_ev_min = q->near_ev_cache[level];
}

static struct pkt *htb_dequeue_inner(struct qdisc *sch)
{
	struct htb_sched *q = sch->priv;
	unsigned int due = 0, visit = (1u << TC_HTB_MAXDEPTH) - 1;
	int64_t next_event;
	struct pkt *p;

	/* the direct queue first, unshaped */
	p = pktq_pop_head(&q->direct_queue);
	if (p)
		goto ok;
	if (!sch->s.qlen)
		return NULL;
	q->now = (int64_t)sch->env->now(sch->env->arg);
	/* The kernel walks every level, lowest first: the events due at a
	 * level, then its row. Only levels with an event due or a non-empty
	 * row do anything, so only those are visited, in the same order. The
	 * levels due are known from the start: nothing a lower level does
	 * makes another level's event due (a class queued meanwhile waits
	 * until after now), and the rows are read as the walk reaches them
	 * (events may fill the rows of their level and those above). */
	if (q->now >= q->near_ev_min)
		for (int level = 0; level < TC_HTB_MAXDEPTH; level++)
			if (q->now >= q->near_ev_cache[level])
				due |= 1u << level;
	for (unsigned int todo; (todo = (due | q->row_levels) & visit);) {
		int level = __builtin_ctz(todo);
		int m;

		visit &= ~((2u << level) - 1); /* this level and those below are done */
		if (due & (1u << level)) {
			int64_t event = htb_do_events(q, level);

			if (!event)
				event = q->now + (int64_t)NSEC_PER_SEC;
			q->near_ev_cache[level] = event;
		}
		m = ~q->row_mask[level];
		while (m != -1) {
			int prio = __builtin_ctz(~(unsigned int)m);

			m |= 1 << prio;
			p = htb_dequeue_tree(q, prio, level);
			if (p)
				goto ok;
		}
	}
	/* packets, but none may go now: ask again at the next event (every
	 * level was visited or had nothing to do: the earliest of all) */
	if (due)
		htb_near_ev_min(q);
	next_event = q->now + 5 * (int64_t)NSEC_PER_SEC;
	if (next_event > q->near_ev_min)
		next_event = q->near_ev_min;
	qdisc_watchdog_schedule_ns(sch, (uint64_t)next_event);
	if (sch->env->tracer)
		htb_trace_throttled(q);
	return NULL;
ok:
	if (due)
		htb_near_ev_min(q);
	qdisc_dequeued(sch, p);
	return p;
}

/* qdisc_dequeue_peeked: a packet peek took out comes first */
static struct pkt *htb_dequeue(struct qdisc *sch)
{
	struct htb_sched *q = sch->priv;
	struct pkt *p = q->peeked;

	if (!p)
		return htb_dequeue_inner(sch);
	q->peeked = NULL;
	sch->s.qlen--;
	sch->s.backlog -= p->len;
	return p;
}

/* qdisc_peek_dequeued: htb cannot say which packet is next without
 * dequeuing it; it is kept, still counted, until the dequeue. */
static const struct pkt *htb_peek(struct qdisc *sch)
{
	struct htb_sched *q = sch->priv;

	if (!q->peeked) {
		struct pkt *p = htb_dequeue_inner(sch);

		if (p) {
			q->peeked = p;
			sch->s.qlen++;
			sch->s.backlog += p->len;
		}
	}
	return q->peeked;
}

/* The packet htb_peek holds; htb cannot tell its next otherwise. */
static const struct pkt *htb_head(const struct qdisc *sch)
{
	return ((const struct htb_sched *)sch->priv)->peeked;
}

/* ---- the qdisc ---- */

static void htb_qdisc_usage(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen,
		 "%s Usage: ... qdisc add ... htb [default N] [r2q N] [direct_qlen P] [offload]",
		 what);
}

static int htb_init(struct qdisc *sch, int argc, char **argv, char *err, size_t errlen)
{
	struct htb_sched *q = sch->priv;
	uint32_t r2q = 10, defcls = 0, direct_qlen = ~0u;
	char what[128];

	for (int i = 0; i < argc; i++) {
		const char *w = argv[i];
		uint32_t *v = NULL;
		int base = 10;

		if (tc_matches(w, "r2q")) {
			v = &r2q;
		} else if (tc_matches(w, "default")) {
			v = &defcls;
			base = 16;
		} else if (tc_matches(w, "debug")) {
			if (++i >= argc)
				goto incomplete;
			continue; /* the kernel keeps no debug flags */
		} else if (tc_matches(w, "direct_qlen")) {
			v = &direct_qlen;
		} else if (tc_matches(w, "offload")) {
			snprintf(err, errlen,
				 "tcsim: htb \"offload\" is not modelled (no hardware)");
			return -EOPNOTSUPP;
		} else {
			snprintf(what, sizeof(what), "What is \"%s\"?", w);
			htb_qdisc_usage(err, errlen, what);
			return -EINVAL;
		}
		if (++i >= argc)
			goto incomplete;
		if (tc_get_u32(v, argv[i], base)) {
			snprintf(what, sizeof(what), "Illegal \"%s\"",
				 v == &r2q	? "r2q"
				 : v == &defcls ? "default"
						: "direct_qlen");
			htb_qdisc_usage(err, errlen, what);
			return -EINVAL;
		}
	}
	q->sch = sch;
	q->hashsize = 4;
	q->hash = calloc(q->hashsize, sizeof(*q->hash));
	if (!q->hash) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	q->direct_qlen = direct_qlen != ~0u ? direct_qlen : sch->env->tx_queue_len;
	q->rate2quantum = (int)r2q < 1 ? 1 : (int)r2q;
	q->defcls = (int)defcls;
	return 0;
incomplete:
	snprintf(err, errlen, "Command line is not complete. Try option \"help\"");
	return -EINVAL;
}

/* qdisc_purge_queue: what a leaf holds is dropped, and its ancestors lose it */
static void htb_purge(struct qdisc *leaf)
{
	uint32_t n = leaf->s.qlen;
	uint64_t len = leaf->s.backlog;

	if (leaf->ops->reset)
		leaf->ops->reset(leaf);
	if (n || len)
		qdisc_tree_reduce_backlog(leaf, n, len);
}

static void htb_drop_all(struct qdisc *sch, struct pkt_queue *pq)
{
	struct pkt *p;

	while ((p = pktq_pop_head(pq))) {
		p->drop = DROP_QDISC_DESTROY;
		sch->env->drop(sch->env->arg, p);
	}
}

/* htb_reset: every queue emptied, every class back to CAN_SEND (its tokens
 * as they were) */
static void htb_reset(struct qdisc *sch)
{
	struct htb_sched *q = sch->priv;

	for (unsigned int i = 0; q->hash && i < q->hashsize; i++)
		for (struct htb_class *cl = q->hash[i]; cl; cl = cl->hnext) {
			if (cl->level)
				memset(cl->clprio, 0, sizeof(cl->clprio));
			else if (cl->q && cl->q->ops->reset)
				cl->q->ops->reset(cl->q);
			memset(cl->node, 0, sizeof(cl->node));
			cl->pq_index = -1;
			cl->prio_activity = 0;
			cl->cmode = HTB_CAN_SEND;
		}
	qdisc_watchdog_cancel(sch);
	if (q->peeked) {
		q->peeked->drop = DROP_QDISC_DESTROY;
		sch->env->drop(sch->env->arg, q->peeked);
		q->peeked = NULL;
	}
	htb_drop_all(sch, &q->direct_queue);
	for (int l = 0; l < TC_HTB_MAXDEPTH; l++) {
		q->hlevel[l].wait_pq.n = 0;
		memset(q->hlevel[l].hprio, 0, sizeof(q->hlevel[l].hprio));
	}
	memset(q->row_mask, 0, sizeof(q->row_mask));
	q->row_levels = 0;
	sch->s.qlen = 0;
	sch->s.backlog = 0;
}

static void htb_destroy_class(struct htb_class *cl)
{
	if (cl->q)
		qdisc_destroy(cl->q);
	tcf_chain_flush(&cl->chain);
	free(cl);
}

static void htb_destroy(struct qdisc *sch)
{
	struct htb_sched *q = sch->priv;

	for (unsigned int i = 0; q->hash && i < q->hashsize; i++) {
		struct htb_class *cl = q->hash[i], *next;

		for (; cl; cl = next) {
			next = cl->hnext;
			htb_destroy_class(cl);
		}
	}
	free(q->hash);
	q->hash = NULL;
	for (int l = 0; l < TC_HTB_MAXDEPTH; l++)
		free(q->hlevel[l].wait_pq.v);
	memset(q->hlevel, 0, sizeof(q->hlevel));
}

static void htb_dump(const struct qdisc *sch, struct tcprint *p, int details)
{
	const struct htb_sched *q = sch->priv;
	char ver[16];

	pr_int(p, PR_ANY, "r2q", "r2q %d ", q->rate2quantum);
	pr_0xhex(p, PR_ANY, "default", "default %#llx ", (uint32_t)q->defcls);
	pr_uint(p, PR_ANY, "direct_packets_stat", "direct_packets_stat %u", q->direct_pkts);
	if (details) {
		snprintf(ver, sizeof(ver), "%d.%d", HTB_VER >> 16, HTB_VER & 0xffff);
		pr_string(p, PR_ANY, "ver", " ver %s", ver);
	}
	pr_uint(p, PR_ANY, "direct_qlen", " direct_qlen %u", q->direct_qlen);
}

/* ---- classes: the words of iproute2's q_htb.c ---- */

/* What tc sends for a class: struct tc_htb_opt and the 64-bit rates. */
struct htb_copt {
	struct tc_ratespec rate, ceil;
	uint32_t buffer, cbuffer; /* ticks */
	uint32_t quantum, prio;
	uint64_t rate64, ceil64;
};

static const char htb_class_usage[] =
    "Usage: ... class add ... htb rate R1 [burst B1] [mpu B] [overhead O] [prio P] "
    "[ceil R2] [cburst B2] [mtu MTU] [quantum Q]";

static int htb_illegal(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "Illegal \"%s\" %s", what, htb_class_usage);
	return -EINVAL;
}

/* tc_calc_rtable's cell_log for a size of mtu (the table tc sends beside
 * the rate, which current kernels ignore for a known link layer) */
static uint8_t htb_cell_log(int cell_log, uint32_t mtu)
{
	if (cell_log < 0) {
		cell_log = 0;
		while ((mtu >> cell_log) > 255)
			cell_log++;
	}
	return (uint8_t)cell_log;
}

static int htb_parse_class(int argc, char **argv, struct htb_copt *o, char *err, size_t errlen)
{
	uint32_t buffer = 0, cbuffer = 0, mtu = 1600, mpu = 0, overhead = 0;
	unsigned int linklayer = TC_LINKLAYER_ETHERNET;
	int cell_log = -1, ccell_log = -1;

	memset(o, 0, sizeof(*o));
	for (int i = 0; i < argc; i++) {
		const char *w = argv[i];

		if (i + 1 >= argc && strcmp(w, "help")) {
			/* every word but help takes a value (NEXT_ARG) */
			if (tc_matches(w, "prio") || tc_matches(w, "mtu") || tc_matches(w, "mpu") ||
			    tc_matches(w, "overhead") || tc_matches(w, "linklayer") ||
			    tc_matches(w, "quantum") || tc_matches(w, "burst") ||
			    !strcmp(w, "buffer") || !strcmp(w, "maxburst") ||
			    tc_matches(w, "cburst") || !strcmp(w, "cbuffer") ||
			    !strcmp(w, "cmaxburst") || !strcmp(w, "ceil") || !strcmp(w, "rate")) {
				snprintf(err, errlen,
					 "Command line is not complete. Try option \"help\"");
				return -EINVAL;
			}
		}
		if (tc_matches(w, "prio")) {
			if (tc_get_u32(&o->prio, argv[++i], 10))
				return htb_illegal(err, errlen, "prio");
		} else if (tc_matches(w, "mtu")) {
			if (tc_get_u32(&mtu, argv[++i], 10))
				return htb_illegal(err, errlen, "mtu");
		} else if (tc_matches(w, "mpu")) {
			if (tc_get_u32(&mpu, argv[++i], 10) || mpu > 0xffff)
				return htb_illegal(err, errlen, "mpu");
		} else if (tc_matches(w, "overhead")) {
			if (tc_get_u32(&overhead, argv[++i], 10) || overhead > 0xffff)
				return htb_illegal(err, errlen, "overhead");
		} else if (tc_matches(w, "linklayer")) {
			if (tc_get_linklayer(&linklayer, argv[++i]))
				return htb_illegal(err, errlen, "linklayer");
		} else if (tc_matches(w, "quantum")) {
			if (tc_get_u32(&o->quantum, argv[++i], 10))
				return htb_illegal(err, errlen, "quantum");
		} else if (tc_matches(w, "burst") || !strcmp(w, "buffer") ||
			   !strcmp(w, "maxburst")) {
			if (tc_get_size_and_cell(&buffer, &cell_log, argv[++i]) < 0)
				return htb_illegal(err, errlen, w);
		} else if (tc_matches(w, "cburst") || !strcmp(w, "cbuffer") ||
			   !strcmp(w, "cmaxburst")) {
			if (tc_get_size_and_cell(&cbuffer, &ccell_log, argv[++i]) < 0)
				return htb_illegal(err, errlen, w);
		} else if (!strcmp(w, "ceil") || !strcmp(w, "rate")) {
			uint64_t *r = !strcmp(w, "ceil") ? &o->ceil64 : &o->rate64;

			i++;
			if (*r) {
				snprintf(err, errlen, "Double \"%s\" spec", w);
				return -EINVAL;
			}
			if (strchr(argv[i], '%')) {
				snprintf(
				    err, errlen,
				    "tcsim: \"%s %s\": a rate in percent of the device's speed is "
				    "not modelled",
				    w, argv[i]);
				return -EOPNOTSUPP;
			}
			if (tc_get_rate64(r, argv[i]))
				return htb_illegal(err, errlen, w);
		} else if (!strcmp(w, "help")) {
			snprintf(err, errlen, "%s", htb_class_usage);
			return -EINVAL;
		} else {
			snprintf(err, errlen, "What is \"%s\"? %s", w, htb_class_usage);
			return -EINVAL;
		}
	}
	if (!o->rate64) {
		snprintf(err, errlen, "\"rate\" is required.");
		return -EINVAL;
	}
	if (!o->ceil64)
		o->ceil64 = o->rate64;
	o->rate.rate = o->rate64 >= (1ull << 32) ? ~0u : (uint32_t)o->rate64;
	o->ceil.rate = o->ceil64 >= (1ull << 32) ? ~0u : (uint32_t)o->ceil64;
	/* the smallest burst: what the rate sends in one timer tick, and a
	 * packet of mtu bytes */
	if (!buffer)
		buffer = (uint32_t)(o->rate64 / HTB_TC_HZ + mtu);
	if (!cbuffer)
		cbuffer = (uint32_t)(o->ceil64 / HTB_TC_HZ + mtu);
	o->rate.overhead = o->ceil.overhead = (uint16_t)overhead;
	o->rate.mpu = o->ceil.mpu = (uint16_t)mpu;
	o->rate.linklayer = o->ceil.linklayer = (uint8_t)(linklayer & TC_LINKLAYER_MASK);
	o->rate.cell_log = htb_cell_log(cell_log, mtu);
	o->ceil.cell_log = htb_cell_log(ccell_log, mtu);
	o->rate.cell_align = o->ceil.cell_align = -1;
	o->buffer = tc_calc_xmittime(o->rate64, buffer);
	o->cbuffer = tc_calc_xmittime(o->ceil64, cbuffer);
	return 0;
}

static int htb_class_find(const struct qdisc *sch, uint32_t classid)
{
	return htb_find(sch->priv, classid) != NULL;
}

/* The children of an inner class left: it is a leaf again, with a fresh
 * default qdisc and full buckets (htb_parent_to_leaf). */
static void htb_parent_to_leaf(struct qdisc *sch, struct htb_class *cl, struct qdisc *new_q)
{
	struct htb_sched *q = sch->priv;

	if (cl->cmode != HTB_CAN_SEND)
		htb_wait_erase(q, cl);
	cl->level = 0;
	memset(cl->clprio, 0, sizeof(cl->clprio));
	memset(cl->deficit, 0, sizeof(cl->deficit)); /* a union with the feeds */
	cl->q = new_q;
	new_q->parent_q = sch;
	cl->tokens = cl->buffer;
	cl->ctokens = cl->cbuffer;
	cl->t_c = (int64_t)sch->env->now(sch->env->arg);
	cl->cmode = HTB_CAN_SEND;
}

static int htb_new_class(struct qdisc *sch, uint32_t classid, uint32_t parentid,
			 const struct htb_copt *o, struct htb_class **out, char *err, size_t errlen)
{
	struct htb_sched *q = sch->priv;
	struct htb_class *parent = parentid == TC_H_ROOT ? NULL : htb_find(q, parentid);
	struct htb_class *cl;
	struct qdisc *new_q, *parent_q = NULL;

	if (!classid || TC_H_MAJ(classid ^ sch->handle) || htb_find(q, classid)) {
		snprintf(err, errlen,
			 "RTNETLINK answers: Invalid argument (htb %x: classid %x:%x is not a new "
			 "class of this qdisc)",
			 sch->handle >> 16, classid >> 16, TC_H_MIN(classid));
		return -EINVAL;
	}
	if (parent && parent->parent && parent->parent->level < 2) {
		snprintf(err, errlen,
			 "RTNETLINK answers: Invalid argument (sch_htb: tree is too deep: %x:%x "
			 "would be a level below the %d there are)",
			 classid >> 16, TC_H_MIN(classid), TC_HTB_MAXDEPTH);
		return -EINVAL;
	}
	if (htb_wait_reserve(q, q->nclasses + 1))
		goto nomem;
	cl = calloc(1, sizeof(*cl));
	if (!cl)
		goto nomem;
	new_q = qdisc_create_default(sch->env, classid);
	if (!new_q) {
		free(cl);
		goto nomem;
	}
	cl->chain.kernel = sch->env->kernel;
	cl->pq_index = -1;
	cl->classid = classid;
	if (parent && !parent->level) {
		/* the parent becomes an inner class: its queue is dropped */
		htb_purge(parent->q);
		parent_q = parent->q;
		if (parent->prio_activity)
			htb_deactivate(q, parent);
		if (parent->cmode != HTB_CAN_SEND) {
			htb_wait_erase(q, parent);
			parent->cmode = HTB_CAN_SEND;
		}
		parent->level = (parent->parent ? parent->parent->level : TC_HTB_MAXDEPTH) - 1;
		memset(parent->clprio, 0, sizeof(parent->clprio));
		memset(parent->deficit, 0, sizeof(parent->deficit));
		parent->q = NULL;
	}
	cl->q = new_q;
	new_q->parent_q = sch;
	cl->parent = parent;
	cl->tokens = (int64_t)PSCHED_TICKS2NS(o->buffer);
	cl->ctokens = (int64_t)PSCHED_TICKS2NS(o->cbuffer);
	cl->mbuffer = 60 * (int64_t)NSEC_PER_SEC;
	cl->t_c = (int64_t)sch->env->now(sch->env->arg);
	cl->cmode = HTB_CAN_SEND;
	htb_hash_insert(q, cl);
	q->nclasses++;
	if (parent)
		parent->children++;
	if (parent_q)
		qdisc_destroy(parent_q);
	*out = cl;
	return 0;
nomem:
	snprintf(err, errlen, "RTNETLINK answers: No buffer space available (out of memory)");
	return -ENOBUFS;
}

/* htb_change_class: a new class, or new parameters for one */
static int htb_class_change(struct qdisc *sch, uint32_t classid, uint32_t parentid, int argc,
			    char **argv, char *err, size_t errlen)
{
	struct htb_sched *q = sch->priv;
	struct htb_class *cl = htb_find(q, classid);
	struct htb_copt o;
	int warn = 0, ret;

	ret = htb_parse_class(argc, argv, &o, err, errlen);
	if (ret)
		return ret;
	if (!cl && (ret = htb_new_class(sch, classid, parentid, &o, &cl, err, errlen)))
		return ret;
	psched_ratecfg_precompute(&cl->rate, &o.rate, o.rate64);
	psched_ratecfg_precompute(&cl->ceil, &o.ceil, o.ceil64);
	/* quantum and prio are a leaf's; an inner class keeps what it had */
	if (!cl->level) {
		uint64_t quantum = cl->rate.rate_bytes_ps / (uint64_t)q->rate2quantum;

		cl->quantum = quantum > INT_MAX ? INT_MAX : (int)quantum;
		if (!o.quantum && cl->quantum < 1000) {
			warn = -1;
			cl->quantum = 1000;
		}
		if (!o.quantum && cl->quantum > 200000) {
			warn = 1;
			cl->quantum = 200000;
		}
		if (o.quantum)
			cl->quantum = (int)o.quantum;
		cl->prio = o.prio >= TC_HTB_NUMPRIO ? TC_HTB_NUMPRIO - 1 : o.prio;
	}
	cl->buffer = (int64_t)PSCHED_TICKS2NS(o.buffer);
	cl->cbuffer = (int64_t)PSCHED_TICKS2NS(o.cbuffer);
	err[0] = 0;
	if (warn)
		snprintf(err, errlen, "sch_htb: quantum of class %X is %s. Consider r2q change.",
			 cl->classid, warn == -1 ? "small" : "big");
	htb_hash_grow(q);
	return 0;
}

/* A bpf filter of this qdisc (on it or on any class) whose flowid names the
 * class holds it (the kernel's filter_cnt): see the README for the kernel's
 * own order-dependent rule. */
static int htb_chain_names(const struct tcf_chain *chain, uint32_t classid)
{
	for (const struct tcf_proto *tp = chain->head; tp; tp = tp->next) {
		size_t n;

		if (tp->ops != &cls_bpf_ops)
			continue;
		n = tp->ops->count(tp);
		for (size_t i = 0; i < n; i++) {
			struct cls_bpf_info info;

			if (!cls_bpf_prog_at(tp, i, &info) && info.has_classid &&
			    info.classid == classid)
				return 1;
		}
	}
	return 0;
}

static int htb_class_in_use(const struct qdisc *sch, const struct htb_class *cl)
{
	const struct htb_sched *q = sch->priv;

	if (htb_chain_names(&sch->chain, cl->classid))
		return 1;
	for (unsigned int i = 0; i < q->hashsize; i++)
		for (const struct htb_class *c = q->hash[i]; c; c = c->hnext)
			if (htb_chain_names(&c->chain, cl->classid))
				return 1;
	return 0;
}

static int htb_class_delete(struct qdisc *sch, uint32_t classid, char *err, size_t errlen)
{
	struct htb_sched *q = sch->priv;
	struct htb_class *cl = htb_find(q, classid);
	struct qdisc *new_q = NULL;
	int last_child;

	if (!cl) {
		snprintf(err, errlen,
			 "RTNETLINK answers: No such file or directory (no class %x:%x)",
			 classid >> 16, TC_H_MIN(classid));
		return -ENOENT;
	}
	if (cl->children || htb_class_in_use(sch, cl)) {
		snprintf(
		    err, errlen,
		    "RTNETLINK answers: Device or resource busy (HTB class in use: %x:%x has %s)",
		    classid >> 16, TC_H_MIN(classid),
		    cl->children ? "children" : "a filter whose flowid names it");
		return -EBUSY;
	}
	last_child = !cl->level && cl->parent && cl->parent->children == 1;
	if (last_child) {
		new_q = qdisc_create_default(sch->env, cl->parent->classid);
		if (!new_q) {
			snprintf(err, errlen,
				 "RTNETLINK answers: No buffer space available (out of memory)");
			return -ENOBUFS;
		}
		new_q->unlisted = 1; /* htb_delete does not hash it either */
	}
	if (!cl->level)
		htb_purge(cl->q);
	htb_hash_remove(q, cl);
	q->nclasses--;
	if (cl->parent)
		cl->parent->children--;
	if (cl->prio_activity)
		htb_deactivate(q, cl);
	if (cl->cmode != HTB_CAN_SEND)
		htb_wait_erase(q, cl);
	if (last_child)
		htb_parent_to_leaf(sch, cl->parent, new_q);
	htb_destroy_class(cl);
	return 0;
}

static struct tcf_chain *htb_class_chain(struct qdisc *sch, uint32_t classid)
{
	struct htb_class *cl = htb_find(sch->priv, classid);

	return cl ? &cl->chain : NULL;
}

/* htb_graft: only a leaf takes a qdisc; none puts a default pfifo back */
static int htb_graft(struct qdisc *sch, uint32_t classid, struct qdisc *child, char *err,
		     size_t errlen)
{
	struct htb_class *cl = htb_find(sch->priv, classid);
	struct qdisc *old;

	if (!cl) {
		snprintf(
		    err, errlen,
		    "RTNETLINK answers: No such file or directory (htb %x: has no class %x:%x)",
		    sch->handle >> 16, classid >> 16, TC_H_MIN(classid));
		return -ENOENT;
	}
	if (cl->level) {
		snprintf(
		    err, errlen,
		    "RTNETLINK answers: Invalid argument (htb class %x:%x is not a leaf: qdiscs "
		    "go below leaves)",
		    classid >> 16, TC_H_MIN(classid));
		return -EINVAL;
	}
	if (!child) {
		child = qdisc_create_default(sch->env, classid);
		if (!child) {
			snprintf(err, errlen,
				 "RTNETLINK answers: No buffer space available (out of memory)");
			return -ENOBUFS;
		}
		child->unlisted = 1; /* htb_graft does not hash its default qdisc */
	}
	child->parent_q = sch;
	child->parent = classid;
	old = cl->q;
	htb_purge(old); /* still cl's leaf: htb_qlen_notify finds it */
	cl->q = child;
	qdisc_destroy(old);
	return 0;
}

static struct qdisc *htb_leaf(struct qdisc *sch, uint32_t classid)
{
	struct htb_class *cl = htb_find(sch->priv, classid);

	return cl && !cl->level ? cl->q : NULL;
}

/* htb_qlen_notify: a leaf emptied outside enqueue and dequeue */
static void htb_qlen_notify(struct qdisc *sch, struct qdisc *child)
{
	struct htb_class *cl = htb_find(sch->priv, child->parent);

	if (!cl || cl->level || cl->q != child || child->s.qlen || !cl->prio_activity)
		return;
	htb_deactivate(sch->priv, cl);
}

static void htb_walk(const struct qdisc *sch, void (*fn)(void *arg, const struct qdisc_class *c),
		     void *arg)
{
	const struct htb_sched *q = sch->priv;

	for (unsigned int i = 0; q->hash && i < q->hashsize; i++)
		for (const struct htb_class *cl = q->hash[i]; cl; cl = cl->hnext) {
			struct qdisc_class c = {
			    .classid = cl->classid,
			    .parent = cl->parent ? cl->parent->classid : TC_H_ROOT,
			    .leaf = cl->level ? NULL : cl->q,
			    .priv = cl,
			    .where = cl->where,
			};

			c.stats.bytes = cl->bytes;
			c.stats.packets = cl->packets;
			c.stats.drops = cl->drops;
			c.stats.overlimits = cl->overlimits;
			if (!cl->level && cl->q) {
				c.stats.qlen = cl->q->s.qlen;
				c.stats.backlog = cl->q->s.backlog;
			}
			fn(arg, &c);
		}
}

/* htb_dump_class as iproute2's htb_print_opt prints it */
static void htb_class_dump(const struct qdisc *sch, const struct qdisc_class *c, struct tcprint *p,
			   int details)
{
	const struct htb_class *cl = c->priv;
	struct tc_ratespec rate, ceil;
	uint64_t rate64 = cl->rate.rate_bytes_ps, ceil64 = cl->ceil.rate_bytes_ps;
	uint32_t buffer, cbuffer;
	unsigned int ll;

	psched_ratecfg_getrate(&rate, &cl->rate);
	psched_ratecfg_getrate(&ceil, &cl->ceil);
	if (!cl->level) {
		pr_int(p, PR_ANY, "prio", "prio %d ", (int)cl->prio);
		if (details)
			pr_int(p, PR_ANY, "quantum", "quantum %d ", (int)cl->quantum);
	}
	pr_rate(p, PR_ANY, "rate", "rate %s ", rate64);
	if (rate.overhead)
		pr_uint(p, PR_ANY, "overhead", "overhead %u ", rate.overhead);
	buffer = tc_calc_xmitsize(rate64, (uint32_t)PSCHED_NS2TICKS(cl->buffer));
	pr_rate(p, PR_ANY, "ceil", "ceil %s ", ceil64);
	cbuffer = tc_calc_xmitsize(ceil64, (uint32_t)PSCHED_NS2TICKS(cl->cbuffer));
	ll = rate.linklayer & TC_LINKLAYER_MASK;
	if (ll > TC_LINKLAYER_ETHERNET || details)
		pr_string(p, PR_ANY, "linklayer", "linklayer %s ", tc_sprint_linklayer(ll));
	if (details) {
		pr_size(p, PR_ANY, "burst", "burst %s/", buffer);
		pr_uint(p, PR_ANY, "burst_cell", "%u ", 1u << rate.cell_log);
		pr_size(p, PR_ANY, "mpu", "mpu %s ", rate.mpu);
		pr_size(p, PR_ANY, "cburst", "cburst %s/", cbuffer);
		pr_uint(p, PR_ANY, "cburst_cell", "%u ", 1u << ceil.cell_log);
		pr_size(p, PR_ANY, "mpu", "mpu %s ", ceil.mpu);
		pr_int(p, PR_ANY, "level", "level %d ", cl->level);
	} else {
		pr_size(p, PR_ANY, "burst", "burst %s ", buffer);
		pr_size(p, PR_ANY, "cburst", "cburst %s ", cbuffer);
	}
}

/* PSCHED_NS2TICKS of a signed count: the kernel shifts an s64 */
static int32_t htb_ticks_clamped(int64_t ns)
{
	int64_t t = ns >= 0 ? ns / 64 : -((-ns + 63) / 64);

	return t > INT_MAX ? INT_MAX : t < INT_MIN ? INT_MIN : (int32_t)t;
}

static void htb_class_dump_xstats(const struct qdisc *sch, const struct qdisc_class *c,
				  struct tcprint *p)
{
	const struct htb_class *cl = c->priv;

	pr_uint(p, PR_ANY, "lended", " lended: %u ", cl->lends);
	pr_uint(p, PR_ANY, "borrowed", "borrowed: %u ", cl->borrows);
	pr_uint(p, PR_ANY, "giants", "giants: %u", cl->giants);
	pr_text(p, "\n");
	pr_int(p, PR_ANY, "tokens", " tokens: %d ", htb_ticks_clamped(cl->tokens));
	pr_int(p, PR_ANY, "ctokens", "ctokens: %d", htb_ticks_clamped(cl->ctokens));
	pr_text(p, "\n");
}

/* The JSON results' htb keys: the numbers tc -s qdisc show prints */
static int htb_xstat(const struct qdisc *sch, int i, const char **name, int64_t *v)
{
	const struct htb_sched *q = sch->priv;

	switch (i) {
	case 0: *name = "direct_packets_stat"; *v = q->direct_pkts; return 0;
	case 1: *name = "direct_qlen"; *v = q->direct_qlen; return 0;
	}
	return -1;
}

/* ... and those of tc -s class show (tokens and ctokens in its ticks, as it
 * prints them; rates in bit/s as the device's rate_bps). sent_* are the
 * class's bstats: counted at dequeue, through inner classes too. */
static int htb_class_xstat(const struct qdisc *sch, const struct qdisc_class *c, int i,
			   const char **name, int64_t *v)
{
	const struct htb_class *cl = c->priv;

	switch (i) {
	case 0: *name = "level"; *v = cl->level; return 0;
	case 1: *name = "prio"; *v = cl->prio; return 0;
	case 2: *name = "quantum"; *v = cl->quantum; return 0;
	case 3: *name = "rate_bps"; *v = (int64_t)(cl->rate.rate_bytes_ps * 8); return 0;
	case 4: *name = "ceil_bps"; *v = (int64_t)(cl->ceil.rate_bytes_ps * 8); return 0;
	case 5:
		*name = "burst";
		*v = tc_calc_xmitsize(cl->rate.rate_bytes_ps, (uint32_t)PSCHED_NS2TICKS(cl->buffer));
		return 0;
	case 6:
		*name = "cburst";
		*v = tc_calc_xmitsize(cl->ceil.rate_bytes_ps, (uint32_t)PSCHED_NS2TICKS(cl->cbuffer));
		return 0;
	case 7: *name = "sent_packets"; *v = (int64_t)cl->packets; return 0;
	case 8: *name = "sent_bytes"; *v = (int64_t)cl->bytes; return 0;
	case 9: *name = "overlimits"; *v = cl->overlimits; return 0;
	case 10: *name = "lended"; *v = cl->lends; return 0;
	case 11: *name = "borrowed"; *v = cl->borrows; return 0;
	case 12: *name = "giants"; *v = cl->giants; return 0;
	case 13: *name = "tokens"; *v = htb_ticks_clamped(cl->tokens); return 0;
	case 14: *name = "ctokens"; *v = htb_ticks_clamped(cl->ctokens); return 0;
	case 15: *name = "qlen"; *v = c->stats.qlen; return 0;
	case 16: *name = "backlog_bytes"; *v = (int64_t)c->stats.backlog; return 0;
	}
	return -1;
}

static void htb_class_where(struct qdisc *sch, uint32_t classid, const char *where)
{
	struct htb_class *cl = htb_find(sch->priv, classid);

	if (cl)
		snprintf(cl->where, sizeof(cl->where), "%s", where ? where : "");
}

const struct qdisc_ops htb_qdisc_ops = {
    .id = "htb",
    .priv_size = sizeof(struct htb_sched),
    .has_filters = 1,
    .init = htb_init,
    .enqueue = htb_enqueue,
    .dequeue = htb_dequeue,
    .peek = htb_peek,
    .head = htb_head,
    .reset = htb_reset,
    .destroy = htb_destroy,
    .dump = htb_dump,
    .graft = htb_graft,
    .leaf = htb_leaf,
    .walk = htb_walk,
    .qlen_notify = htb_qlen_notify,
    .class_find = htb_class_find,
    .class_change = htb_class_change,
    .class_delete = htb_class_delete,
    .class_chain = htb_class_chain,
    .class_dump = htb_class_dump,
    .class_dump_xstats = htb_class_dump_xstats,
    .xstat = htb_xstat,
    .class_xstat = htb_class_xstat,
    .class_where = htb_class_where,
};

void htb_kc_glob(const struct qdisc *sch, struct tc_htb_glob *g, uint32_t *direct_qlen)
{
	const struct htb_sched *q = sch->priv;

	memset(g, 0, sizeof(*g));
	g->version = 3; /* HTB_VER >> 16: htb_init refuses any other */
	g->rate2quantum = (uint32_t)q->rate2quantum;
	g->defcls = (uint32_t)q->defcls;
	g->direct_pkts = q->direct_pkts;
	*direct_qlen = q->direct_qlen;
}

int htb_kc_class(const struct qdisc *sch, uint32_t classid, struct htb_kc_class *out)
{
	const struct htb_class *cl = htb_find(sch->priv, classid);

	if (!cl)
		return -ENOENT;
	memset(out, 0, sizeof(*out));
	out->classid = cl->classid;
	out->parent = cl->parent ? cl->parent->classid : sch->handle;
	for (const struct htb_class *p = cl->parent; p; p = p->parent)
		out->depth++;
	psched_ratecfg_getrate(&out->opt.rate, &cl->rate);
	psched_ratecfg_getrate(&out->opt.ceil, &cl->ceil);
	if (cl->rate.rate_bytes_ps > UINT32_MAX)
		out->rate64 = cl->rate.rate_bytes_ps;
	if (cl->ceil.rate_bytes_ps > UINT32_MAX)
		out->ceil64 = cl->ceil.rate_bytes_ps;
	/* buffer and cbuffer were ticks << PSCHED_SHIFT: exact back */
	out->opt.buffer = (uint32_t)PSCHED_NS2TICKS(cl->buffer);
	out->opt.cbuffer = (uint32_t)PSCHED_NS2TICKS(cl->cbuffer);
	/* an explicit quantum is kept as sent: no r2q, no clamping, no warning */
	out->opt.quantum = (uint32_t)cl->quantum;
	out->opt.prio = cl->prio;
	out->opt.level = (uint32_t)cl->level;
	return 0;
}

void htb_kc_set_direct_qlen(struct qdisc *sch, uint32_t direct_qlen)
{
	((struct htb_sched *)sch->priv)->direct_qlen = direct_qlen;
}
