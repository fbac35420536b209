/* sch_fq_codel.c - the fq_codel qdisc of net/sched/sch_fq_codel.c (6.1):
 * packets hashed into `flows` queues, each judged by its own CoDel state
 * (codel.c); flows with a new backlog go on new_flows and are served
 * before old_flows, both by deficit round robin with `quantum` bytes; over
 * `limit` packets or `memory_limit` bytes of buffers, up to `drop_batch`
 * packets are dropped from the head of the fattest flow until half its
 * backlog is gone.
 *
 * Flow identity: the kernel hashes the flow keys with a key drawn at boot,
 * so which flows share a queue is unknowable. By default ("tcsim-hash
 * tuple") every distinct flow gets a queue of its own while one is idle
 * (handed out from a cursor; flows share one only when all are busy);
 * "tcsim-hash random" hashes the keys with jhash and a key from the
 * simulation's seed, so flows collide as in a kernel, reproducibly. The
 * simulation-wide default is --sfq-hash's.
 *
 * Buffer memory (memory_limit) counts skb->truesize, which depends on the
 * driver that built the skb; tcsim counts a linear skb from kmalloc:
 * the frame plus 64 bytes of headroom and the 320-byte shared info,
 * rounded up to the kmalloc size class, plus the 256-byte sk_buff. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codel.h"
#include "flow_dissect.h"
#include "jhash.h"
#include "qdisc.h"

#define FQC_MAX_FLOWS 65536
#define FQC_QUANTUM_MAX (1u << 20)
#define TC_ACT_SHOT 2
#define TC_ACT_STOLEN 4
#define TC_ACT_QUEUED 5
#define TC_ACT_TRAP 8

enum fqc_list { FQC_NONE = 0, FQC_NEW, FQC_OLD };

struct fqc_flow {
	struct pkt_queue q;
	struct fqc_flow *next; /* in new_flows or old_flows */
	enum fqc_list list;
	int32_t deficit;
	uint32_t backlog;
	struct codel_vars cvars;
	/* tuple mode: the flow key this queue is bound to */
	uint32_t key[10];
	int32_t chain; /* next binding in the same index bucket, -1 */
	uint8_t bound;
};

struct fqc_fifo {
	struct fqc_flow *head, *tail;
	uint32_t len;
};

struct fqc_sched_data {
	struct fqc_flow *flows;
	uint32_t flows_cnt, quantum, drop_batch_size, memory_limit, limit;
	struct codel_params cparams;
	struct codel_stats cstats;
	uint32_t memory_usage, drop_overmemory, drop_overlimit, new_flow_count;
	struct fqc_fifo new_flows, old_flows;
	int hash_random;
	uint32_t perturbation;
	/* tuple mode: key index -> first binding */
	int32_t *index;
	uint32_t index_mask, cursor;
	struct pkt *peeked; /* qdisc_peek_dequeued's stash */
};

/* ---- the flow lists ---- */

static void fqc_push(struct fqc_fifo *l, struct fqc_flow *f, enum fqc_list which)
{
	f->next = NULL;
	f->list = which;
	if (l->tail)
		l->tail->next = f;
	else
		l->head = f;
	l->tail = f;
	l->len++;
}

/* only ever the first of its list leaves it */
static struct fqc_flow *fqc_pop(struct fqc_fifo *l)
{
	struct fqc_flow *f = l->head;

	l->head = f->next;
	if (!l->head)
		l->tail = NULL;
	l->len--;
	f->next = NULL;
	f->list = FQC_NONE;
	return f;
}

/* ---- truesize (memory_limit) ---- */

static uint32_t fqc_truesize(uint32_t len)
{
	static const uint32_t kmalloc_sizes[] = {64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192};
	uint32_t data = ((len + 64u + 63u) & ~63u) + 320u, size = 0;

	for (size_t i = 0; i < sizeof(kmalloc_sizes) / sizeof(kmalloc_sizes[0]); i++)
		if (kmalloc_sizes[i] >= data) {
			size = kmalloc_sizes[i];
			break;
		}
	if (!size) /* beyond the slabs: whole pages */
		size = (data + 4095u) & ~4095u;
	return size + 256u;
}

/* ---- hashing ---- */

static void fqc_keys(const struct qdisc *q, const struct pkt *p, uint32_t w[10])
{
	struct flow_keys fk;

	flow_dissect_frame(p->data, p->caplen, p->len, 14, p->protocol, q->env->kernel, &fk);
	flow_keys_symmetric(&fk); /* __flow_hash_from_keys makes both directions one */
	memcpy(w, fk.src, 16);
	memcpy(w + 4, fk.dst, 16);
	w[8] = fk.ports;
	w[9] = fk.ip_proto | (uint32_t)fk.n_proto << 8;
}

static uint32_t fqc_key_index(const struct fqc_sched_data *fd, const uint32_t w[10])
{
	/* an index into tcsim's own table, never a queue number: a cheap
	 * multiply-xor mix (jhash here cost 7 % of a run) */
	uint64_t h = 0x9e3779b97f4a7c15ull;

	for (int i = 0; i < 10; i += 2)
		h = (h ^ ((uint64_t)w[i] | (uint64_t)w[i + 1] << 32)) * 0xff51afd7ed558ccdull;
	return (uint32_t)(h >> 32) & fd->index_mask;
}

static void fqc_unbind(struct fqc_sched_data *fd, uint32_t idx)
{
	int32_t *link = &fd->index[fqc_key_index(fd, fd->flows[idx].key)];

	while (*link != (int32_t)idx)
		link = &fd->flows[*link].chain;
	*link = fd->flows[idx].chain;
	fd->flows[idx].bound = 0;
}

static int fqc_idle(const struct fqc_flow *f)
{
	return !f->q.head && f->list == FQC_NONE;
}

/* Tuple mode: the queue bound to these keys; new keys take the first idle
 * queue from the cursor (unbinding its old keys), or, all busy, share the
 * cursor's queue as a hash collision would. */
static uint32_t fqc_tuple_flow(struct fqc_sched_data *fd, const uint32_t w[10])
{
	uint32_t h = fqc_key_index(fd, w), idx;
	int32_t i;

	for (i = fd->index[h]; i >= 0; i = fd->flows[i].chain)
		if (!memcmp(fd->flows[i].key, w, sizeof(fd->flows[i].key)))
			return (uint32_t)i;
	idx = fd->cursor;
	for (uint32_t n = 0; n < fd->flows_cnt; n++) {
		uint32_t c = (fd->cursor + n) % fd->flows_cnt;

		if (fqc_idle(&fd->flows[c])) {
			idx = c;
			break;
		}
	}
	if (fd->flows[idx].bound)
		fqc_unbind(fd, idx);
	memcpy(fd->flows[idx].key, w, sizeof(fd->flows[idx].key));
	fd->flows[idx].bound = 1;
	fd->flows[idx].chain = fd->index[h];
	fd->index[h] = (int32_t)idx;
	fd->cursor = (idx + 1) % fd->flows_cnt;
	return idx;
}

/* fq_codel_hash: reciprocal_scale(skb_get_hash(skb), flows_cnt) */
static uint32_t fqc_hash(struct qdisc *q, const struct pkt *p)
{
	struct fqc_sched_data *fd = q->priv;
	uint32_t w[10];

	fqc_keys(q, p, w);
	if (!fd->hash_random)
		return fqc_tuple_flow(fd, w);
	return (uint32_t)(((uint64_t)jhash_words(w, 10, fd->perturbation) * fd->flows_cnt) >> 32);
}

/* ---- options (tc/q_fq_codel.c; the kernel's fq_codel_change) ---- */

struct fqc_opt {
	uint32_t limit, flows, quantum, drop_batch, target, interval; /* 0: not sent */
	uint32_t ce_threshold, memory_limit;                         /* ~0: not sent */
	int ecn, hash;                                               /* -1: not given */
	int has_selector; /* ce_threshold_selector: sent unless its value is 0xff */
	uint8_t selector, mask;
};

static const char fqc_usage[] =
	"Usage: ... fq_codel [ limit PACKETS ] [ flows NUMBER ] [ memory_limit BYTES ] "
	"[ target TIME ] [ interval TIME ] [ quantum BYTES ] [ [no]ecn ] [ ce_threshold TIME ] "
	"[ ce_threshold_selector VALUE/MASK ] [ drop_batch SIZE ] [ tcsim-hash tuple|random ]";

/* get_u8 of iproute2 (strtoul, base 0): 0 or -1 */
static int fqc_get_u8(uint8_t *out, const char *s)
{
	unsigned long v;
	char *end;

	if (!*s)
		return -1;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (end == s || *end || (v == ULONG_MAX && errno == ERANGE) || v > 0xff)
		return -1;
	*out = (uint8_t)v;
	return 0;
}

/* `ce_threshold_selector VALUE/MASK` as tc 6.1 reads it: the mask first,
 * then the value, each a u8 in any base; a value of 0xff is tc's "not
 * given", so nothing is sent (the kernel keeps what it had). The kernel
 * takes both bytes as they are (NLA_U8, no other check). */
static int fqc_parse_selector(struct fqc_opt *o, const char *v, char *err, size_t errlen)
{
	char buf[64];
	char *sep;

	if (!v) {
		snprintf(err, errlen, "fq_codel: \"ce_threshold_selector\" needs a value. %s",
			 fqc_usage);
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", v);
	sep = strchr(buf, '/');
	if (!sep || strlen(v) >= sizeof(buf)) {
		snprintf(err, errlen, "%s", sep ? "Illegal \"ce_threshold_selector\""
						 : "Missing mask for \"ce_threshold_selector\"");
		return -EINVAL;
	}
	*sep++ = 0;
	if (fqc_get_u8(&o->mask, sep)) {
		snprintf(err, errlen, "Illegal mask for \"ce_threshold_selector\"");
		return -EINVAL;
	}
	if (fqc_get_u8(&o->selector, buf)) {
		snprintf(err, errlen, "Illegal \"ce_threshold_selector\"");
		return -EINVAL;
	}
	o->has_selector = o->selector != 0xff;
	return 0;
}

static int fqc_parse(struct fqc_opt *o, int argc, char **argv, char *err, size_t errlen)
{
	static const char *const counts[] = {"limit", "flows", "quantum", "drop_batch"};

	memset(o, 0, sizeof(*o));
	o->ce_threshold = o->memory_limit = ~0u;
	o->ecn = o->hash = -1;
	for (int i = 0; i < argc; i++) {
		const char *w = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		uint32_t *count = NULL, *time = NULL;
		int bad;

		for (size_t k = 0; k < 4; k++)
			if (!strcmp(w, counts[k]))
				count = k == 0 ? &o->limit : k == 1 ? &o->flows
							: k == 2 ? &o->quantum : &o->drop_batch;
		if (!strcmp(w, "target"))
			time = &o->target;
		else if (!strcmp(w, "interval"))
			time = &o->interval;
		else if (!strcmp(w, "ce_threshold"))
			time = &o->ce_threshold;
		if (!strcmp(w, "ecn") || !strcmp(w, "noecn")) {
			o->ecn = !strcmp(w, "ecn");
			continue;
		}
		if (!strcmp(w, "ce_threshold_selector")) {
			int r = fqc_parse_selector(o, v, err, errlen);

			if (r)
				return r;
			i++;
			continue;
		}
		if (!count && !time && strcmp(w, "memory_limit") && strcmp(w, "tcsim-hash")) {
			snprintf(err, errlen, "fq_codel: What is \"%s\"? %s", w, fqc_usage);
			return -EINVAL;
		}
		if (!v) {
			snprintf(err, errlen, "fq_codel: \"%s\" needs a value. %s", w, fqc_usage);
			return -EINVAL;
		}
		if (!strcmp(w, "tcsim-hash")) {
			if (strcmp(v, "tuple") && strcmp(v, "random")) {
				snprintf(err, errlen,
					 "fq_codel: \"tcsim-hash\" is \"tuple\" or \"random\", not \"%s\"",
					 v);
				return -EINVAL;
			}
			o->hash = !strcmp(v, "random");
			i++;
			continue;
		}
		bad = count ? tc_get_u32(count, v, 0)
		      : time ? tc_get_time(time, v)
			     : tc_get_size(&o->memory_limit, v);
		if (bad) {
			snprintf(err, errlen, "Illegal \"%s\"", w);
			return -EINVAL;
		}
		i++;
	}
	return 0;
}

static struct pkt *fqc_dequeue_law(struct qdisc *q);

/* fq_codel_change: checks first, then only what tc sent changes; a flows
 * count once the table exists is refused */
static int fqc_apply(struct qdisc *q, const struct fqc_opt *o, char *err, size_t errlen)
{
	struct fqc_sched_data *fd = q->priv;
	uint32_t n = 0;
	uint64_t len = 0;

	if (o->flows) {
		if (fd->flows) {
			snprintf(err, errlen,
				 "RTNETLINK answers: Invalid argument (fq_codel: the number of "
				 "flows cannot change)");
			return -EINVAL;
		}
		if (o->flows > FQC_MAX_FLOWS) {
			snprintf(err, errlen,
				 "RTNETLINK answers: Invalid argument (fq_codel: flows %u is over "
				 "65536)",
				 o->flows);
			return -EINVAL;
		}
	}
	if (o->quantum && o->quantum > FQC_QUANTUM_MAX) {
		snprintf(err, errlen, "Error: Invalid quantum.");
		return -EINVAL;
	}
	if (o->flows)
		fd->flows_cnt = o->flows;
	if (o->target)
		fd->cparams.target = codel_us_to_time(o->target);
	if (o->ce_threshold != ~0u)
		fd->cparams.ce_threshold = codel_us_to_time(o->ce_threshold);
	if (o->has_selector) {
		fd->cparams.ce_threshold_selector = o->selector;
		fd->cparams.ce_threshold_mask = o->mask;
	}
	if (o->interval)
		fd->cparams.interval = codel_us_to_time(o->interval);
	if (o->limit)
		fd->limit = o->limit;
	if (o->ecn >= 0)
		fd->cparams.ecn = o->ecn;
	if (o->quantum)
		fd->quantum = o->quantum < 256 ? 256 : o->quantum;
	if (o->drop_batch)
		fd->drop_batch_size = o->drop_batch;
	if (o->memory_limit != ~0u)
		fd->memory_limit = o->memory_limit > (1u << 31) ? 1u << 31 : o->memory_limit;
	if (o->hash >= 0)
		fd->hash_random = o->hash;
	if (!fd->flows)
		return 0;
	/* over the new limits: dequeued (codel runs) and freed */
	while (q->s.qlen > fd->limit || fd->memory_usage > fd->memory_limit) {
		struct pkt *p = fqc_dequeue_law(q);

		if (!p)
			break;
		/* as the kernel: counted in bstats by the dequeue, then freed
		 * without a drop of its own (the ancestors count it) */
		fd->cstats.drop_len += p->len;
		fd->cstats.drop_count++;
		p->drop = DROP_QDISC_LIMIT;
		q->env->drop(q->env->arg, p);
	}
	n = fd->cstats.drop_count;
	len = fd->cstats.drop_len;
	qdisc_tree_reduce_backlog(q, n, len);
	fd->cstats.drop_count = 0;
	fd->cstats.drop_len = 0;
	return 0;
}

static int fqc_init(struct qdisc *q, int argc, char **argv, char *err, size_t errlen)
{
	struct fqc_sched_data *fd = q->priv;
	struct fqc_opt o;
	uint32_t isize = 1;
	int r;

	if (q->env->kernel == BPF_KERNEL_3_13) {
		snprintf(err, errlen, "fq_codel is modelled as current kernels have it (--kernel current)");
		return -EOPNOTSUPP;
	}
	r = fqc_parse(&o, argc, argv, err, errlen);
	if (r)
		return r;
	fd->limit = 10 * 1024;
	fd->flows_cnt = 1024;
	fd->memory_limit = 32u << 20;
	fd->drop_batch_size = 64;
	fd->quantum = q->env->mtu;
	codel_params_init(&fd->cparams, q->env->mtu);
	fd->cparams.ecn = 1;
	fd->hash_random = q->env->sfq_hash_random;
	r = fqc_apply(q, &o, err, errlen);
	if (r)
		return r;
	while (isize < 2 * fd->flows_cnt)
		isize <<= 1;
	fd->flows = calloc(fd->flows_cnt, sizeof(*fd->flows));
	fd->index = malloc(isize * sizeof(*fd->index));
	if (!fd->flows || !fd->index) {
		free(fd->flows);
		free(fd->index);
		fd->flows = NULL;
		fd->index = NULL;
		snprintf(err, errlen, "RTNETLINK answers: Cannot allocate memory");
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < isize; i++)
		fd->index[i] = -1;
	fd->index_mask = isize - 1;
	if (q->env->random)
		fd->perturbation = (uint32_t)(q->env->random(q->env->arg) >> 32);
	return 0;
}

static int fqc_change(struct qdisc *q, int argc, char **argv, char *err, size_t errlen)
{
	struct fqc_opt o;
	int r = fqc_parse(&o, argc, argv, err, errlen);

	return r ? r : fqc_apply(q, &o, err, errlen);
}

/* ---- enqueue ---- */

/* fq_codel_classify: flow + 1, or 0 (the packet is to be dropped; *stolen
 * when an action took it, which is no drop of fq_codel's) */
static uint32_t fqc_classify(struct qdisc *q, struct pkt *p, int *stolen)
{
	struct fqc_sched_data *fd = q->priv;
	uint32_t prio = p->priority, minor;
	struct tcf_result res = {0};
	struct bpf_skb skb;
	int r;

	*stolen = 0;
	if (TC_H_MAJ(prio) == q->handle && TC_H_MIN(prio) > 0 && TC_H_MIN(prio) <= fd->flows_cnt) {
		qdisc_record_verdict(q, p, VERDICT_PRIORITY, NULL, prio);
		if (p->traced)
			qdisc_trace_bucket(q, p, VERDICT_PRIORITY, prio, QRULE_PRIORITY, TC_H_MIN(prio));
		return TC_H_MIN(prio);
	}
	if (!q->chain.head) {
		qdisc_record_verdict(q, p, VERDICT_NONE, NULL, 0);
		return fqc_hash(q, p) + 1;
	}
	qdisc_pkt_skb(q, p, &skb);
	r = p->traced ? qdisc_classify_traced(q, p, &skb, &res)
		       : tcf_classify(&q->chain, &skb, qdisc_pkt_protocol(p), &res);
	minor = TC_H_MIN(res.classid);
	qdisc_record_verdict(q, p, r >= 0 ? VERDICT_FILTER : VERDICT_UNCLASSIFIED, r >= 0 ? &res : NULL,
		   r >= 0 ? res.classid : 0);
	if (r == TC_ACT_STOLEN || r == TC_ACT_QUEUED || r == TC_ACT_TRAP) {
		*stolen = 1;
		minor = 0;
	} else if (r < 0 || r == TC_ACT_SHOT || minor > fd->flows_cnt) {
		minor = 0;
	}
	if (p->traced)
		qdisc_trace_bucket(q, p, r >= 0 ? VERDICT_FILTER : VERDICT_UNCLASSIFIED,
				   r >= 0 ? res.classid : 0, minor ? QRULE_FILTER : QRULE_DROP, minor);
	return minor;
}

/* fq_codel_drop: up to max packets from the head of the fattest flow,
 * until half its backlog is gone; returns the flow */
static uint32_t fqc_drop(struct qdisc *q, uint32_t max)
{
	struct fqc_sched_data *fd = q->priv;
	uint32_t maxbacklog = 0, idx = 0, i = 0, len = 0, mem = 0, threshold;
	struct fqc_flow *f;

	for (uint32_t k = 0; k < fd->flows_cnt; k++)
		if (fd->flows[k].backlog > maxbacklog) {
			maxbacklog = fd->flows[k].backlog;
			idx = k;
		}
	threshold = maxbacklog >> 1;
	f = &fd->flows[idx];
	do {
		struct pkt *p = pktq_pop_head(&f->q);

		len += p->len;
		mem += fqc_truesize(p->len);
		p->drop = DROP_FQ_CODEL_FAT;
		q->env->drop(q->env->arg, p);
	} while (++i < max && len < threshold && f->q.head);
	f->cvars.count += i; /* codel is told to drop harder too */
	f->backlog -= len;
	fd->memory_usage -= mem;
	q->s.drops += i;
	q->s.backlog -= len;
	q->s.qlen -= i;
	return idx;
}

static int fqc_enqueue(struct qdisc *q, struct pkt *p)
{
	struct fqc_sched_data *fd = q->priv;
	uint32_t idx, prev_qlen, pkt_len = p->len, dropped;
	uint64_t prev_backlog;
	struct fqc_flow *f;
	int stolen, memory_limited;

	idx = fqc_classify(q, p, &stolen);
	if (!idx) {
		if (stolen) {
			p->drop = DROP_FQ_CODEL_CLASSIFY;
			q->env->drop(q->env->arg, p);
			return NET_XMIT_DROP;
		}
		return qdisc_drop(q, p, DROP_FQ_CODEL_CLASSIFY);
	}
	idx--;
	if (!q->parent_q)
		p->leaf_classid = TC_H_MAKE(q->handle, idx + 1);
	p->t_cb = q->env->now(q->env->arg);
	f = &fd->flows[idx];
	pktq_push_tail(&f->q, p);
	f->backlog += p->len;
	qdisc_enqueued(q, p);
	if (f->list == FQC_NONE) {
		fqc_push(&fd->new_flows, f, FQC_NEW);
		fd->new_flow_count++;
		f->deficit = (int32_t)fd->quantum;
	}
	if (p->traced) {
		struct qtrace ev = {.kind = QTRACE_ENQUEUE, .band = -1, .has_bucket = 1,
				    .bucket = idx, .slot = idx, .flow_qlen = f->q.len};

		qdisc_trace(q, p, &ev);
	}
	fd->memory_usage += fqc_truesize(p->len);
	memory_limited = fd->memory_usage > fd->memory_limit;
	if (q->s.qlen <= fd->limit && !memory_limited)
		return NET_XMIT_SUCCESS;
	prev_backlog = q->s.backlog;
	prev_qlen = q->s.qlen;
	/* p may be among the dropped: its length was saved */
	if (fqc_drop(q, fd->drop_batch_size) == idx) {
		dropped = prev_qlen - q->s.qlen;
		fd->drop_overlimit += dropped;
		if (memory_limited)
			fd->drop_overmemory += dropped;
		/* the parents will not count this packet: one fewer to take back */
		qdisc_tree_reduce_backlog(q, dropped - 1, prev_backlog - q->s.backlog - pkt_len);
		return NET_XMIT_CN;
	}
	dropped = prev_qlen - q->s.qlen;
	fd->drop_overlimit += dropped;
	if (memory_limited)
		fd->drop_overmemory += dropped;
	qdisc_tree_reduce_backlog(q, dropped, prev_backlog - q->s.backlog);
	return NET_XMIT_SUCCESS;
}

/* ---- dequeue ---- */

/* dequeue_func: the flow's head, off every count but bstats */
static struct pkt *fqc_take(struct codel_vars *v, void *ctx)
{
	struct qdisc *q = ctx;
	struct fqc_sched_data *fd = q->priv;
	struct fqc_flow *f = (struct fqc_flow *)((char *)v - offsetof(struct fqc_flow, cvars));
	struct pkt *p = pktq_pop_head(&f->q);

	if (p) {
		f->backlog -= p->len;
		fd->memory_usage -= fqc_truesize(p->len);
		q->s.qlen--;
		q->s.backlog -= p->len;
	}
	return p;
}

static void fqc_drop_head(struct pkt *p, void *ctx)
{
	struct qdisc *q = ctx;

	q->s.drops++;
	p->drop = DROP_CODEL;
	q->env->drop(q->env->arg, p);
}

static const struct codel_cb fqc_cbs = {
    .dequeue = fqc_take, .drop = fqc_drop_head, .marked = codel_qdisc_marked};

static struct pkt *fqc_dequeue_law(struct qdisc *q)
{
	struct fqc_sched_data *fd = q->priv;
	uint64_t now = q->env->now(q->env->arg);
	struct fqc_fifo *head;
	struct fqc_flow *f;
	struct pkt *p;

	for (;;) {
		head = &fd->new_flows;
		if (!head->head) {
			head = &fd->old_flows;
			if (!head->head)
				return NULL;
		}
		f = head->head;
		if (f->deficit <= 0) {
			f->deficit += (int32_t)fd->quantum;
			fqc_push(&fd->old_flows, fqc_pop(head), FQC_OLD);
			continue;
		}
		p = codel_dequeue(q, &q->s.backlog, &fd->cparams, &f->cvars, &fd->cstats, &fqc_cbs,
				  now);
		if (p)
			break;
		/* empty: a new flow goes through old_flows once, against starvation */
		fqc_pop(head);
		if (head == &fd->new_flows && fd->old_flows.head)
			fqc_push(&fd->old_flows, f, FQC_OLD);
	}
	q->s.packets++;
	q->s.bytes += p->len;
	f->deficit -= (int32_t)p->len;
	/* ancestors hear of codel's drops only while packets remain (htb) */
	if (fd->cstats.drop_count && q->s.qlen) {
		qdisc_tree_reduce_backlog(q, fd->cstats.drop_count, fd->cstats.drop_len);
		fd->cstats.drop_count = 0;
		fd->cstats.drop_len = 0;
	}
	return p;
}

static struct pkt *fqc_dequeue(struct qdisc *q)
{
	struct fqc_sched_data *fd = q->priv;
	struct pkt *p = fd->peeked;

	if (!p)
		return fqc_dequeue_law(q);
	fd->peeked = NULL;
	q->s.qlen--;
	q->s.backlog -= p->len;
	return p;
}

/* qdisc_peek_dequeued */
static const struct pkt *fqc_peek(struct qdisc *q)
{
	struct fqc_sched_data *fd = q->priv;

	if (!fd->peeked) {
		fd->peeked = fqc_dequeue_law(q);
		if (fd->peeked) {
			q->s.qlen++;
			q->s.backlog += fd->peeked->len;
		}
	}
	return fd->peeked;
}

/* the head of the flow that would be served first (tracing only) */
static const struct pkt *fqc_head(const struct qdisc *q)
{
	const struct fqc_sched_data *fd = q->priv;

	if (fd->peeked)
		return fd->peeked;
	for (const struct fqc_flow *f = fd->new_flows.head; f; f = f->next)
		if (f->q.head)
			return f->q.head;
	for (const struct fqc_flow *f = fd->old_flows.head; f; f = f->next)
		if (f->q.head)
			return f->q.head;
	return NULL;
}

static void fqc_reset(struct qdisc *q)
{
	struct fqc_sched_data *fd = q->priv;

	if (fd->peeked) {
		fd->peeked->drop = DROP_QDISC_DESTROY;
		q->env->drop(q->env->arg, fd->peeked);
		fd->peeked = NULL;
	}
	for (uint32_t i = 0; fd->flows && i < fd->flows_cnt; i++) {
		struct fqc_flow *f = &fd->flows[i];
		struct pkt *p;

		while ((p = pktq_pop_head(&f->q))) {
			p->drop = DROP_QDISC_DESTROY;
			q->env->drop(q->env->arg, p);
		}
		f->backlog = 0;
		f->next = NULL;
		f->list = FQC_NONE;
		codel_vars_init(&f->cvars);
	}
	memset(&fd->new_flows, 0, sizeof(fd->new_flows));
	memset(&fd->old_flows, 0, sizeof(fd->old_flows));
	q->s.qlen = 0;
	q->s.backlog = 0;
	fd->memory_usage = 0;
}

static void fqc_destroy(struct qdisc *q)
{
	struct fqc_sched_data *fd = q->priv;

	free(fd->flows);
	free(fd->index);
	fd->flows = NULL;
	fd->index = NULL;
}

/* ---- dumps ---- */

static void fqc_dump(const struct qdisc *q, struct tcprint *p, int details)
{
	const struct fqc_sched_data *fd = q->priv;

	pr_uint(p, PR_ANY, "limit", "limit %up ", fd->limit);
	pr_uint(p, PR_ANY, "flows", "flows %u ", fd->flows_cnt);
	pr_uint(p, PR_ANY, "quantum", "quantum %u ", fd->quantum);
	pr_time(p, PR_ANY, "target", "target %s ", codel_time_to_us(fd->cparams.target));
	if (fd->cparams.ce_threshold != CODEL_DISABLED_THRESHOLD) {
		pr_time(p, PR_ANY, "ce_threshold", "ce_threshold %s ",
			codel_time_to_us(fd->cparams.ce_threshold));
		/* the kernel dumps the selector with ce_threshold only; tc
		 * prints it when either byte is set (print_hhu with %#x) */
		if (fd->cparams.ce_threshold_selector || fd->cparams.ce_threshold_mask) {
			pr_uint(p, PR_ANY, "ce_threshold_selector", "ce_threshold_selector %#x",
				fd->cparams.ce_threshold_selector);
			pr_uint(p, PR_ANY, "ce_threshold_mask", "/%#x ", fd->cparams.ce_threshold_mask);
		}
	}
	pr_time(p, PR_ANY, "interval", "interval %s ", codel_time_to_us(fd->cparams.interval));
	pr_size(p, PR_ANY, "memory_limit", "memory_limit %s ", fd->memory_limit);
	if (fd->cparams.ecn)
		pr_bool(p, PR_ANY, "ecn", "ecn ", 1);
	pr_uint(p, PR_ANY, "drop_batch", "drop_batch %u ", fd->drop_batch_size);
}

static void fqc_dump_xstats(const struct qdisc *q, struct tcprint *p)
{
	const struct fqc_sched_data *fd = q->priv;

	pr_uint(p, PR_ANY, "maxpacket", "  maxpacket %u", fd->cstats.maxpacket);
	pr_uint(p, PR_ANY, "drop_overlimit", " drop_overlimit %u", fd->drop_overlimit);
	pr_uint(p, PR_ANY, "new_flow_count", " new_flow_count %u", fd->new_flow_count);
	pr_uint(p, PR_ANY, "ecn_mark", " ecn_mark %u", fd->cstats.ecn_mark);
	if (fd->cstats.ce_mark)
		pr_uint(p, PR_ANY, "ce_mark", " ce_mark %u", fd->cstats.ce_mark);
	if (fd->memory_usage)
		pr_uint(p, PR_ANY, "memory_used", " memory_used %u", fd->memory_usage);
	if (fd->drop_overmemory)
		pr_uint(p, PR_ANY, "drop_overmemory", " drop_overmemory %u", fd->drop_overmemory);
	pr_text(p, "\n");
	pr_uint(p, PR_ANY, "new_flows_len", "  new_flows_len %u", fd->new_flows.len);
	pr_uint(p, PR_ANY, "old_flows_len", " old_flows_len %u", fd->old_flows.len);
	pr_text(p, "\n");
}

static int fqc_xstat(const struct qdisc *q, int i, const char **name, int64_t *v)
{
	const struct fqc_sched_data *fd = q->priv;

	switch (i) {
	case 0: *name = "maxpacket"; *v = fd->cstats.maxpacket; return 0;
	case 1: *name = "drop_overlimit"; *v = fd->drop_overlimit; return 0;
	case 2: *name = "new_flow_count"; *v = fd->new_flow_count; return 0;
	case 3: *name = "ecn_mark"; *v = fd->cstats.ecn_mark; return 0;
	case 4: *name = "ce_mark"; *v = fd->cstats.ce_mark; return 0;
	case 5: *name = "memory_used"; *v = fd->memory_usage; return 0;
	case 6: *name = "drop_overmemory"; *v = fd->drop_overmemory; return 0;
	case 7: *name = "new_flows_len"; *v = fd->new_flows.len; return 0;
	case 8: *name = "old_flows_len"; *v = fd->old_flows.len; return 0;
	default: return 1;
	}
}

/* fq_codel_walk: a class per flow that is on a list (tc -s class show),
 * with queue statistics only, as sfq's buckets */
static void fqc_walk(const struct qdisc *q, void (*fn)(void *arg, const struct qdisc_class *c),
		     void *arg)
{
	const struct fqc_sched_data *fd = q->priv;

	for (uint32_t i = 0; fd->flows && i < fd->flows_cnt; i++) {
		struct qdisc_class c = {0};

		if (fd->flows[i].list == FQC_NONE)
			continue;
		c.classid = TC_H_MAKE(q->handle, i + 1);
		c.parent = q->handle;
		c.stats.qlen = fd->flows[i].q.len;
		c.stats.backlog = fd->flows[i].backlog;
		fn(arg, &c);
	}
}

/* fq_codel_dump_class_stats' xstats line */
static void fqc_class_dump_xstats(const struct qdisc *q, const struct qdisc_class *c,
				  struct tcprint *p)
{
	const struct fqc_sched_data *fd = q->priv;
	const struct fqc_flow *f = &fd->flows[TC_H_MIN(c->classid) - 1];
	char b[TC_SPRINT_BSIZE];

	pr_int(p, PR_ANY, "deficit", "  deficit %d", f->deficit);
	pr_uint(p, PR_ANY, "count", " count %u", f->cvars.count);
	pr_uint(p, PR_ANY, "lastcount", " lastcount %u", f->cvars.lastcount);
	pr_time(p, PR_ANY, "ldelay", " ldelay %s", codel_time_to_us(f->cvars.ldelay));
	if (f->cvars.dropping) {
		int32_t delta = (int32_t)(f->cvars.drop_next - codel_time(q->env->now(q->env->arg)));

		pr_bool(p, PR_ANY, "dropping", " dropping", 1);
		if (delta < 0)
			pr_string(p, PR_TEXT, NULL, " drop_next -%s",
				  tc_sprint_time(codel_time_to_us((codel_time_t)-delta), b));
		else
			pr_string(p, PR_TEXT, NULL, " drop_next %s",
				  tc_sprint_time(codel_time_to_us((codel_time_t)delta), b));
	}
}

static int fqc_can_bypass(const struct qdisc *q)
{
	return ((const struct fqc_sched_data *)q->priv)->limit >= 1;
}

const struct qdisc_ops fq_codel_qdisc_ops = {
	.id = "fq_codel",
	.priv_size = sizeof(struct fqc_sched_data),
	.has_filters = 1,
	.init = fqc_init,
	.change = fqc_change,
	.enqueue = fqc_enqueue,
	.dequeue = fqc_dequeue,
	.peek = fqc_peek,
	.head = fqc_head,
	.reset = fqc_reset,
	.destroy = fqc_destroy,
	.dump = fqc_dump,
	.xstat = fqc_xstat,
	.dump_xstats = fqc_dump_xstats,
	.walk = fqc_walk,
	.class_dump_xstats = fqc_class_dump_xstats,
	.can_bypass = fqc_can_bypass,
};

void fq_codel_kc_get(const struct qdisc *q, struct codel_kc *out)
{
	const struct fqc_sched_data *fd = q->priv;

	memset(out, 0, sizeof(*out));
	out->limit = fd->limit;
	out->target = fd->cparams.target;
	out->interval = fd->cparams.interval;
	out->ce_threshold = fd->cparams.ce_threshold;
	out->ecn = fd->cparams.ecn;
	out->flows = fd->flows_cnt;
	out->quantum = fd->quantum;
	out->memory_limit = fd->memory_limit;
	out->drop_batch = fd->drop_batch_size;
	out->ce_selector = fd->cparams.ce_threshold_selector;
	out->ce_mask = fd->cparams.ce_threshold_mask;
}
