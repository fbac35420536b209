/* qdisc.h - the queueing discipline interface, after the kernel's
 * struct Qdisc_ops: one kind per file (sch_prio.c, sch_sfq.c, sch_fifo.c)
 * with one ops table, and the tree of handles and parents they form. */
#ifndef TCSIM_QDISC_H
#define TCSIM_QDISC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bpf.h"
#include "cls.h"
#include "pkt.h"
#include "pktspill.h"
#include "sched_rate.h"

/* Enqueue results (include/linux/netdevice.h). */
#define NET_XMIT_SUCCESS 0
#define NET_XMIT_DROP 1 /* the arriving packet was dropped */
#define NET_XMIT_CN 2   /* congestion: the packet's own flow lost one */

/* Per-packet tracing (report/trace.h). A qdisc reports what it does with a
 * packet whose p->traced is set through env->tracer; for other packets it
 * costs one predictable branch. */
struct qdisc;
enum qtrace_kind {
	QTRACE_FILTER,   /* one filter program consulted (filter) */
	QTRACE_CLASSIFY, /* the qdisc's decision: verdict, rule, band or bucket */
	QTRACE_ENQUEUE,  /* queued in q (q->s.qlen is already counted) */
	/* q holds the packet at the head of a leaf but answered a dequeue with
	 * nothing: it waits for tokens (tbf, htb). Once per wait: a later
	 * answer with the same until is the same wait and is not reported. */
	QTRACE_THROTTLED,
	/* htb: the packet leaves a leaf over its rate, on the tokens of an
	 * ancestor (reported in the dequeue, before the device takes it) */
	QTRACE_BORROW,
	/* codel: the packet left marked CE instead of dropped (level 0: the
	 * control law with ecn; 1: its sojourn was above ce_threshold);
	 * until: its sojourn time in ns */
	QTRACE_MARK,
};
/* Which rule chose the band (prio_classify) */
enum qtrace_rule {
	QRULE_NONE = 0,
	QRULE_FILTER,   /* the filters' classid names a band */
	QRULE_PRIORITY, /* skb->priority names a class of this qdisc */
	QRULE_PRIOMAP,  /* no filter matched (or none): priomap[priority & 15] */
	QRULE_FALLBACK, /* the classid names no band (minor 0 or too big): priomap[0] */
	QRULE_DROP,     /* sfq: the classid names no bucket, the packet is dropped */
	QRULE_DEFAULT,  /* htb: no class from priority or filters: the default class */
	QRULE_DIRECT,   /* htb: the qdisc itself, or no class and no default: direct queue */
};
#define NETEM_TR_DUP 1     /* duplicated: a copy went to the root */
#define NETEM_TR_CORRUPT 2 /* one bit of its data flipped */
#define NETEM_TR_REORDER 4 /* sent at once, ahead of the waiting packets */
#define NETEM_TR_ECN 8     /* lost, but marked CE instead (ecn) */
struct qtrace {
	enum qtrace_kind kind;
	const struct tcf_trace *filter; /* QTRACE_FILTER */
	/* QTRACE_CLASSIFY */
	enum pkt_verdict_kind verdict;
	uint32_t classid;      /* the filter's (or priority's) classid */
	uint32_t pref, handle; /* QRULE_FILTER: the filter that matched */
	enum qtrace_rule rule;
	uint32_t map_index;    /* QRULE_PRIOMAP, QRULE_FALLBACK: the priomap entry */
	int band;              /* prio: chosen band; pfifo_fast: band; else -1 */
	uint32_t class_chosen; /* the class of q the packet goes to */
	const struct qdisc *child; /* and its qdisc, or NULL */
	/* QTRACE_ENQUEUE (sfq) */
	int has_bucket;
	uint32_t bucket, slot, flow_qlen;
	/* QTRACE_THROTTLED: the class it waits in (tbf: H:1, htb: the leaf),
	 * the class whose tokens it waits for (htb: the leaf or the ancestor
	 * that cannot lend; tbf: 0) and when that class may send again.
	 * QTRACE_BORROW: the leaf, the ancestor that lent and its level. */
	uint32_t wclass, by;
	uint64_t until;
	int level;
	/* QTRACE_ENQUEUE (netem): the packet waits until `until` (its time to
	 * send), `netem_delay` ns from now (negative: already due), and what
	 * netem did to it (NETEM_TR_*); dup_id: the copy it made, queued at the
	 * root right after */
	int has_netem;
	int netem_flags;
	int64_t netem_delay;
	uint64_t dup_id;
};
struct qdisc_tracer {
	void (*event)(void *arg, const struct qdisc *q, const struct pkt *p,
		      const struct qtrace *ev);
	bpf_tracer insn; /* non-NULL: instruction-level trace of filter programs */
	void *arg;
};

/* What a qdisc may know of the device and the simulation around it. The
 * device owns it; every qdisc of the device points at the same one. */
struct qdisc_env {
	uint32_t ifindex;
	uint32_t mtu;             /* psched_mtu = mtu + hard_header_len */
	uint32_t hard_header_len; /* 14 on Ethernet */
	uint32_t tx_queue_len;    /* read when a default pfifo is created */
	enum bpf_kernel kernel;   /* whose rules (3.13 or current) */
	int sfq_allot_bytes;      /* sfq credit in bytes (6.13+) or 8-byte units */
	int sfq_hash_random;      /* sfq buckets from a seeded jhash (collisions) */
	uint64_t timer_latency_ns; /* a watchdog fires this long after its expiry */
	uint64_t (*now)(void *arg);
	void (*drop)(void *arg, struct pkt *p);       /* a packet left, dropped */
	uint64_t (*random)(void *arg);                /* the seeded generator */
	void (*arm_timer)(void *arg, struct qdisc *q, uint64_t at_ns);
	/* Arms q's watchdog to fire at at_ns (qdisc_watchdog_schedule_ns has
	 * decided it must) and returns the id the firing will carry; when it
	 * fires and q->wd still holds that id, the device asks its root for a
	 * packet again. NULL: nothing fires (unit tests read q->wd). */
	uint64_t (*watchdog)(void *arg, struct qdisc *q, uint64_t at_ns);
	/* q is going away: its armed timers must not fire */
	void (*cancel_timers)(void *arg, const struct qdisc *q);
	/* A copy of p (netem duplicate): a new packet of the device, its own id,
	 * counted as duplicated. NULL: none can be made. */
	struct pkt *(*clone)(void *arg, const struct pkt *p);
	/* the root qdisc classified p (its verdict fields are set) */
	void (*classified)(void *arg, const struct pkt *p);
	void *arg;
	const struct qdisc_tracer *tracer; /* NULL: tracing off */
	uint64_t qdisc_seq; /* creation counter of the device's qdiscs */
	/* the device's root (read through it: tc replaces it), for checks that
	 * look at the whole tree (netem's duplicates). NULL: no device. */
	struct qdisc *const *root;
	/* how a long fifo keeps its middle on disk (base/pktspill.h); zeroed:
	 * never */
	struct pkt_spill_cfg spill;
};

struct qdisc_stats {
	uint64_t bytes, packets; /* bstats: counted at dequeue */
	uint64_t drops, overlimits, requeues;
	uint32_t qlen;
	uint64_t backlog; /* bytes */
	uint32_t peak_qlen;
	uint64_t peak_backlog;
};

/* One class as `tc class show` lists it. */
struct qdisc_class {
	uint32_t classid;
	uint32_t parent;           /* the qdisc handle */
	const struct qdisc *leaf;  /* child qdisc, or NULL (sfq buckets) */
	struct qdisc_stats stats;  /* the class's own (sfq bucket) or the leaf's */
	uint64_t allot;            /* sfq xstats, else 0 */
	int has_allot;
	const void *priv;           /* the kind's own class (class_dump), or NULL */
	int no_stats; /* the kind dumps no class statistics (tbf): tc -s prints an empty line */
	const char *where; /* "file:line" of the tc command that last set the class, or NULL */
};

struct qdisc_ops {
	const char *id;
	size_t priv_size;
	int has_filters; /* filters may be attached (prio, sfq) */
	/* noqueue: the device sends without a qdisc (busy: dropped), root only */
	int no_queue;
	/* Parses tc's words for this kind and validates them as the kernel
	 * would; 0 or -errno with the message tc would print. */
	int (*init)(struct qdisc *q, int argc, char **argv, char *err, size_t errlen);
	/* tc qdisc change; NULL when the kind has none (sfq) */
	int (*change)(struct qdisc *q, int argc, char **argv, char *err, size_t errlen);
	int (*enqueue)(struct qdisc *q, struct pkt *p);
	struct pkt *(*dequeue)(struct qdisc *q);
	const struct pkt *(*peek)(struct qdisc *q);
	/* The packet a dequeue would take first if it may send, found without
	 * changing anything (a peek may dequeue and hold, and so charge tokens
	 * early: tracing must not). Only tracing calls it, to tell a packet
	 * at the head of its leaf that waits for tokens. NULL: empty, or the
	 * kind cannot tell. */
	const struct pkt *(*head)(const struct qdisc *q);
	void (*reset)(struct qdisc *q);   /* drops everything queued */
	void (*destroy)(struct qdisc *q); /* frees children and private state */
	/* The options part of `tc qdisc show`, e.g. "bands 3 priomap 1 2 ...",
	 * and of `tc -j qdisc show` (the members of "options") from the same
	 * calls: one pr_* call per field with iproute2 6.1's key and text. */
	void (*dump)(const struct qdisc *q, struct tcprint *p, int details); /* details: tc -d */
	void (*timer)(struct qdisc *q); /* a timer armed through env fired */
	/* While q is empty, is each firing of its timer one env->random draw and
	 * a re-arm `period` ns later, and nothing else (sfq's perturbation)? Then
	 * the period, and the simulation may apply a run of firings over idle
	 * time at once, with the values stepping would give; 0 when a firing now
	 * could do more. NULL: never. */
	uint64_t (*idle_period)(const struct qdisc *q);
	/* classes (NULL for classless kinds) */
	int (*graft)(struct qdisc *q, uint32_t classid, struct qdisc *child, char *err,
		     size_t errlen);
	struct qdisc *(*leaf)(struct qdisc *q, uint32_t classid);
	void (*walk)(const struct qdisc *q, void (*fn)(void *arg, const struct qdisc_class *c),
		     void *arg);
	/* a child lost n packets / len bytes outside its enqueue/dequeue */
	void (*qlen_notify)(struct qdisc *q, struct qdisc *child);

	/* ---- classes that tc creates and removes (htb): tc class add|change|
	 * replace|del, and filters on a class. NULL for kinds whose classes
	 * are fixed (prio's bands, sfq's buckets). ---- */
	/* cops->find: 1 if classid names a class of q */
	int (*class_find)(const struct qdisc *q, uint32_t classid);
	/* cops->change: creates class classid under parentid (TC_H_ROOT, or a
	 * classid the kind may not know) when it does not exist, else changes
	 * it, from the kind's words as tc parses them. 0 or -errno with the
	 * message; on success err holds what the kernel warns (extack), or "". */
	int (*class_change)(struct qdisc *q, uint32_t classid, uint32_t parentid, int argc,
			    char **argv, char *err, size_t errlen);
	/* cops->delete */
	int (*class_delete)(struct qdisc *q, uint32_t classid, char *err, size_t errlen);
	/* cops->tcf_block: the filter chain of class classid, NULL if none */
	struct tcf_chain *(*class_chain)(struct qdisc *q, uint32_t classid);
	/* tc class show: the kind's options after "class KIND ID parent P
	 * [leaf H:] ", and with -s the kind's xstats lines (print_xstats) */
	void (*class_dump)(const struct qdisc *q, const struct qdisc_class *c,
			   struct tcprint *p, int details);
	void (*class_dump_xstats)(const struct qdisc *q, const struct qdisc_class *c,
				  struct tcprint *p);

	/* ---- extra counters for the JSON results and Lua (report.c) ----
	 * The i-th (name, value) of the kind's own counters, as tc -s names
	 * them: 0, or non-zero past the last. NULL: none, so the JSON rows of
	 * the kinds without them keep exactly their keys. */
	int (*xstat)(const struct qdisc *q, int i, const char **name, int64_t *v);
	/* The same for a class of q (c from walk). A kind that has it gives a
	 * class's parent class in c->parent (TC_H_ROOT at the top), and the
	 * report rows of its inner classes add up what their leaves sent. */
	int (*class_xstat)(const struct qdisc *q, const struct qdisc_class *c, int i,
			   const char **name, int64_t *v);
	/* The tc command at `where` created or changed class classid: its walk
	 * gives it back as c->where, for lint's messages. NULL: not kept. */
	void (*class_where)(struct qdisc *q, uint32_t classid, const char *where);

	/* tc -s qdisc show: the kind's xstats lines after the backlog line
	 * (print_xstats of tc/q_KIND.c), each ending in a newline; with JSON
	 * iproute2's keys, members of the qdisc's object. NULL: none. */
	void (*dump_xstats)(const struct qdisc *q, struct tcprint *p);
	/* TCQ_F_CAN_BYPASS: 1 if, as the root of an idle device with nothing
	 * queued, q lets a packet go straight to the wire (__dev_xmit_skb),
	 * counted in its bstats only. NULL: never. (The fifos have the flag
	 * in the kernel too; for them it changes no counter, so tcsim keeps
	 * their enqueue and dequeue, whose trace a student reads.) */
	int (*can_bypass)(const struct qdisc *q);
};

/* The kernel's struct qdisc_watchdog: one pending expiry per qdisc. */
struct qdisc_watchdog {
	uint64_t expires; /* ns */
	uint64_t id;      /* the env's handle of the armed event */
	int pending;
	int env_slot;     /* the env's own bookkeeping (sim.c: 1 + its list index) */
};

struct qdisc {
	const struct qdisc_ops *ops;
	uint32_t handle;        /* major:0 */
	uint32_t parent;        /* classid it hangs from, TC_H_ROOT for root */
	struct qdisc *parent_q; /* NULL for the root */
	struct qdisc_env *env;
	struct tcf_chain chain; /* filters (if ops->has_filters) */
	void *u32_node;         /* what its u32 filters share, class chains too (cls_u32.c) */
	struct qdisc_stats s;
	int invisible;          /* a default child (handle 0) */
	int unlisted;           /* not in the device's qdisc hash: no dump lists it */
	char where[160];        /* "file:line" of the tc command that added it ("" if none) */
	uint64_t seq;           /* creation order on the device (tc qdisc show) */
	struct qdisc_watchdog wd;
	void *priv;
};

/* Creates a qdisc of `kind` from tc's words; *out on success. */
int qdisc_create(struct qdisc **out, const char *kind, struct qdisc_env *env,
		 uint32_t handle, uint32_t parent, int argc, char **argv, char *err,
		 size_t errlen);
/* The default child of a class: pfifo with limit tx_queue_len (3.13: at
 * least 1), handle 0, invisible. NULL when out of memory. */
struct qdisc *qdisc_create_default(struct qdisc_env *env, uint32_t parent);
/* The noop qdisc (drops everything), 3.13's replacement for a removed leaf. */
struct qdisc *qdisc_create_noop(struct qdisc_env *env, uint32_t parent);
void qdisc_destroy(struct qdisc *q);
const struct qdisc_ops *qdisc_ops_find(const char *kind);
/* The kinds a tc line can name, in registry order: "prio, sfq, ...". */
void qdisc_kind_names(char *buf, size_t n);

/* fn on root and every qdisc below it, parents first. */
void qdisc_for_each(struct qdisc *root, void (*fn)(struct qdisc *q, void *arg), void *arg);
/* 1 if q is root or one of its descendants. */
int qdisc_in_tree(const struct qdisc *root, const struct qdisc *q);
/* The qdisc with this handle in the tree under root, or NULL. */
struct qdisc *qdisc_lookup(struct qdisc *root, uint32_t handle);
/* q's options as `tc qdisc show` prints them (ops->dump through a text
 * printer; nothing for a kind without a dump) */
void qdisc_dump_text(const struct qdisc *q, FILE *out, int details);

/* The watchdog of a non-work-conserving qdisc: a qdisc that holds packets
 * but answers NULL to a dequeue arms it for the time it may send, and the
 * device asks again then (sch_api.c). A new time replaces a pending one
 * unless equal, as the kernel's hrtimer re-arm does; a time already past
 * fires at once. */
void qdisc_watchdog_schedule_ns(struct qdisc *q, uint64_t t_ns);
void qdisc_watchdog_cancel(struct qdisc *q);
/* For the env: the event with this id fired; 1 if it is q's pending
 * watchdog (now no longer pending), 0 if it was replaced or cancelled. */
int qdisc_watchdog_fired(struct qdisc *q, uint64_t id);

/* Helpers for the kinds. */
int qdisc_drop(struct qdisc *q, struct pkt *p, enum pkt_drop why); /* NET_XMIT_DROP */
void qdisc_enqueued(struct qdisc *q, const struct pkt *p); /* qlen/backlog + peaks */
void qdisc_dequeued(struct qdisc *q, const struct pkt *p); /* qlen/backlog - , bstats + */
/* qdisc_tree_reduce_backlog: the ancestors of q lose n packets and len
 * bytes that q dropped on its own; each ancestor counts n drops. */
void qdisc_tree_reduce_backlog(struct qdisc *q, uint32_t n, uint64_t len);
/* The packet as the classifiers see it. */
void qdisc_pkt_skb(const struct qdisc *q, const struct pkt *p, struct bpf_skb *skb);
/* tc_skb_protocol: the VLAN protocol for an out-of-band tag, else skb->protocol */
uint16_t qdisc_pkt_protocol(const struct pkt *p);

extern const struct qdisc_ops pfifo_qdisc_ops, bfifo_qdisc_ops, prio_qdisc_ops,
	sfq_qdisc_ops, noop_qdisc_ops, pfifo_fast_qdisc_ops, tbf_qdisc_ops;
extern const struct qdisc_ops htb_qdisc_ops, codel_qdisc_ops, fq_codel_qdisc_ops, netem_qdisc_ops,
	noqueue_qdisc_ops, pfifo_head_drop_qdisc_ops;

/* ---- kernel-check (kernel/kcheck.h): what the kernel must be sent to hold
 * exactly the parameters tcsim holds, and the limits it raises ---- */

/* An htb class as the netlink request that creates it: tc_htb_opt (rate,
 * ceil with their mpu, overhead and linklayer; buffer and cbuffer in ticks;
 * quantum and prio as the class holds them, which the kernel keeps as sent)
 * and the 64-bit rates (TCA_HTB_RATE64/CEIL64, sent when >= 2^32). */
struct htb_kc_class {
	uint32_t classid, parent; /* parent: the class above, or the qdisc's handle */
	int depth;		  /* 0 right under the qdisc: shallower ones are created first */
	struct tc_htb_opt opt;
	uint64_t rate64, ceil64;
};
/* htb's TCA_HTB_INIT (version 3, r2q, default) and its direct_qlen. */
void htb_kc_glob(const struct qdisc *sch, struct tc_htb_glob *g, uint32_t *direct_qlen);
/* 0, or -ENOENT when classid is no class of sch. */
int htb_kc_class(const struct qdisc *sch, uint32_t classid, struct htb_kc_class *out);
void htb_kc_set_direct_qlen(struct qdisc *sch, uint32_t direct_qlen);

/* A tbf as its last tbf_change request: tc_tbf_qopt, TCA_TBF_RATE64 and
 * PRATE64 (0: not sent), TCA_TBF_BURST and PBURST (0: not sent). */
struct tbf_kc_req {
	struct tc_tbf_qopt opt;
	uint64_t rate64, prate64;
	uint32_t burst, pburst;
};
void tbf_kc_get(const struct qdisc *q, struct tbf_kc_req *out);
/* tbf_change with only the limit changed (the default bfifo's). */
int tbf_kc_set_limit(struct qdisc *q, uint32_t limit, char *err, size_t errlen);

/* A codel or an fq_codel as kernel-check sends it to the kernel
 * (kernel/kc_tree.c): its parameters as the kernel stores them, times in
 * codel's 1024-ns ticks (a request in microseconds is truncated into
 * them, so the sender picks microseconds that give these ticks back). */
struct codel_kc {
	uint32_t limit;
	uint32_t target, interval, ce_threshold; /* ticks; ce_threshold 0x7fffffff: off */
	int ecn;
	uint32_t flows, quantum, memory_limit, drop_batch; /* fq_codel only */
	uint8_t ce_selector, ce_mask; /* fq_codel: ce_threshold_selector VALUE/MASK */
};
void codel_kc_get(const struct qdisc *q, struct codel_kc *out);
void fq_codel_kc_get(const struct qdisc *q, struct codel_kc *out);


/* ---- tracing helpers for the kinds (traced packets only) ---- */

static inline void qdisc_trace(const struct qdisc *q, const struct pkt *p, const struct qtrace *ev)
{
	if (q->env->tracer)
		q->env->tracer->event(q->env->tracer->arg, q, p, ev);
}


/* A root that classifies by itself (sfq, fq_codel) records its verdict on
 * the packet and tells the device; under a parent the parent's counts. */
static inline void qdisc_record_verdict(struct qdisc *q, struct pkt *p, enum pkt_verdict_kind v,
					const struct tcf_result *res, uint32_t classid)
{
	if (q->parent_q)
		return;
	p->verdict = v;
	p->classid = classid;
	p->filter_pref = res ? res->pref : 0;
	p->filter_handle = res ? res->handle : 0;
	if (q->env->classified)
		q->env->classified(q->env->arg, p);
}

/* A traced packet's classification into a bucket or flow of q (sfq,
 * fq_codel): minor names it, unless the rule is a drop. */
static inline void qdisc_trace_bucket(const struct qdisc *q, const struct pkt *p,
				      enum pkt_verdict_kind v, uint32_t classid,
				      enum qtrace_rule rule, uint32_t minor)
{
	struct qtrace ev = {.kind = QTRACE_CLASSIFY, .verdict = v, .classid = classid,
			    .rule = rule, .band = -1};

	if (rule != QRULE_DROP)
		ev.class_chosen = TC_H_MAKE(q->handle, minor);
	qdisc_trace(q, p, &ev);
}
struct qdisc_trace_ctx {
	const struct qdisc *q;
	const struct pkt *p;
};

static inline void qdisc_trace_filter(void *arg, const struct tcf_trace *ft)
{
	const struct qdisc_trace_ctx *c = arg;
	struct qtrace ev = {.kind = QTRACE_FILTER, .filter = ft, .band = -1};

	qdisc_trace(c->q, c->p, &ev);
}

/* tcf_classify of q's chain for a traced packet, each filter reported. */
static inline int qdisc_classify_traced(const struct qdisc *q, const struct pkt *p,
					const struct bpf_skb *skb, struct tcf_result *res)
{
	struct qdisc_trace_ctx c = {q, p};
	const struct qdisc_tracer *t = q->env->tracer;
	struct tcf_tracer tr = {.filter = qdisc_trace_filter, .arg = &c,
				.insn = t ? t->insn : NULL, .insn_arg = t ? t->arg : NULL};

	return tcf_classify_traced(&q->chain, skb, qdisc_pkt_protocol(p), res, &tr);
}

#endif
