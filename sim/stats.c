/* stats.c - histograms and per-class, per-verdict accounting. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hugemem.h"
#include "stats.h"

static uint64_t bucket_low(unsigned b)
{
	unsigned e;

	if (b < 2 * HIST_SUB)
		return b;
	e = b / HIST_SUB - 1;
	return (uint64_t)(b - e * HIST_SUB) << e;
}

/* Frees a rows table and the rows it holds. */
static void rows_free(uint32_t **rows)
{
	if (rows)
		for (unsigned r = 0; r < HIST_ROWS; r++)
			free(rows[r]);
	free(rows);
}

_Static_assert(sizeof(struct hist_pair) * HIST_INLINE <= sizeof(uint16_t) * HIST_SMALL,
	       "the pairs kept in place of the list fit in it");

/* The pairs of a histogram counting in pairs: its own array, or the few
 * kept in place of the list. */
static struct hist_pair *pairv(struct hist *h)
{
	return h->pairs ? h->pairs : h->inl;
}

static const struct hist_pair *cpairv(const struct hist *h)
{
	return h->pairs ? h->pairs : h->inl;
}

/* The pairs take over from the listed samples, in place of the list
 * while they are HIST_INLINE at most: 0 or -ENOMEM. */
static int hist_pairs_from_list(struct hist *h)
{
	struct hist_pair p[HIST_SMALL], *q;
	uint16_t np = 0;

	for (uint64_t i = 0; i < h->n && i < HIST_SMALL; i++) {
		uint16_t j = 0;

		while (j < np && p[j].bucket != h->small[i])
			j++;
		if (j == np)
			p[np++] = (struct hist_pair){.bucket = h->small[i]};
		p[j].count++;
	}
	if (np <= HIST_INLINE) {
		memcpy(h->inl, p, np * sizeof(*p)); /* over the list, read above */
		h->pairs_cap = HIST_INLINE;
	} else {
		if (!(q = malloc(HIST_PAIRS_FIRST * sizeof(*q))))
			return -ENOMEM;
		memcpy(q, p, np * sizeof(*p));
		h->pairs = q;
		h->pairs_cap = HIST_PAIRS_FIRST;
	}
	h->npairs = np;
	return 0;
}

/* Rows take over from the pairs: every row they need is allocated before
 * any count moves, so a failure leaves the pairs as they were. */
static int hist_rows_from_pairs(struct hist *h)
{
	uint32_t **rows = calloc(HIST_ROWS, sizeof(*rows));

	if (!rows)
		return -ENOMEM;
	const struct hist_pair *pv = cpairv(h);

	for (uint16_t i = 0; i < h->npairs; i++) {
		uint32_t **row = &rows[pv[i].bucket / HIST_SUB];

		if (!*row && !(*row = calloc(HIST_SUB, sizeof(**row)))) {
			rows_free(rows);
			return -ENOMEM;
		}
	}
	for (uint16_t i = 0; i < h->npairs; i++)
		rows[pv[i].bucket / HIST_SUB][pv[i].bucket % HIST_SUB] += pv[i].count;
	free(h->pairs);
	h->pairs = NULL;
	h->npairs = h->pairs_cap = 0;
	h->rows = rows;
	return 0;
}

/* One more sample in bucket k (count of them, 0 to leave the listed
 * samples only), counted in pairs while they are few, then in rows: 0 or
 * -ENOMEM. */
static int hist_put(struct hist *h, unsigned k, uint32_t count)
{
	uint32_t **row;

	if (!h->rows) {
		struct hist_pair *pv;
		uint16_t i = 0;

		if (!h->pairs_cap && hist_pairs_from_list(h))
			return -ENOMEM;
		if (!count)
			return 0;
		/* a busy class: rows, where a sample is counted without a search
		 * (inline, hist_add) */
		if (h->n >= HIST_PAIRS_SAMPLES) {
			if (hist_rows_from_pairs(h))
				return -ENOMEM;
			goto rows;
		}
		pv = pairv(h);
		while (i < h->npairs && pv[i].bucket != k)
			i++;
		if (i < h->npairs) {
			pv[i].count += count;
			return 0;
		}
		if (h->npairs == h->pairs_cap && h->pairs_cap < HIST_PAIRS) {
			uint16_t cap = h->pairs ? 2 * h->pairs_cap : HIST_PAIRS_FIRST;
			struct hist_pair *p = realloc(h->pairs, cap * sizeof(*p));

			if (!p)
				return -ENOMEM;
			if (!h->pairs) /* out of place */
				memcpy(p, h->inl, h->npairs * sizeof(*p));
			h->pairs = pv = p;
			h->pairs_cap = cap;
		}
		if (h->npairs < h->pairs_cap) {
			pv[h->npairs++] = (struct hist_pair){.bucket = (uint16_t)k, .count = count};
			return 0;
		}
		if (hist_rows_from_pairs(h))
			return -ENOMEM;
	}
rows:
	row = &h->rows[k / HIST_SUB];
	if (!*row && !(*row = calloc(HIST_SUB, sizeof(**row))))
		return -ENOMEM;
	(*row)[k % HIST_SUB] += count;
	return 0;
}

int hist_add_slow(struct hist *h, uint64_t v)
{
	unsigned k = hist_bucket_of(v);

	if (h->rows || h->pairs_cap || h->n >= HIST_SMALL) {
		if (hist_put(h, k, 1))
			return -ENOMEM;
	} else {
		h->small[h->n] = (uint16_t)k;
	}
	if (!h->n) {
		h->min = v;
		h->max = v;
	}
	h->n++;
	if (h->wide) {
		h->sum_wide += v;
	} else if (__builtin_add_overflow(h->sum_u64, v, &h->sum_u64)) {
		/* the sum passes 2^64: from here on it rounds as a long double */
		h->sum_wide = (long double)(h->sum_u64 - v) + v;
		h->wide = 1;
	}
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	return 0;
}

static int cmp_u16(const void *a, const void *b)
{
	return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

/* The bucket holding the rank-th smallest sample (rank 1..n). */
static unsigned hist_rank_bucket(const struct hist *h, uint64_t rank)
{
	uint64_t seen = 0;

	if (!h->rows && !h->pairs_cap) {
		uint16_t s[HIST_SMALL];

		memcpy(s, h->small, (size_t)h->n * sizeof(*s));
		qsort(s, (size_t)h->n, sizeof(*s), cmp_u16);
		return s[rank - 1];
	}
	if (!h->rows) {
		const struct hist_pair *pv = cpairv(h);
		struct hist_pair p[HIST_PAIRS];

		/* few: in bucket order by insertion */
		for (uint16_t i = 0; i < h->npairs; i++) {
			uint16_t j = i;

			for (; j && p[j - 1].bucket > pv[i].bucket; j--)
				p[j] = p[j - 1];
			p[j] = pv[i];
		}
		for (uint16_t i = 0; i < h->npairs; i++) {
			seen += p[i].count;
			if (seen >= rank)
				return p[i].bucket;
		}
		return HIST_BUCKETS;
	}
	for (unsigned r = 0; r < HIST_ROWS; r++) {
		if (!h->rows[r])
			continue;
		for (unsigned i = 0; i < HIST_SUB; i++) {
			seen += h->rows[r][i];
			if (seen >= rank)
				return r * HIST_SUB + i;
		}
	}
	return HIST_BUCKETS;
}

uint64_t hist_quantile(const struct hist *h, double q)
{
	uint64_t rank;
	unsigned b;

	if (!h->n)
		return 0;
	rank = (uint64_t)ceil(q * (double)h->n);
	if (rank < 1)
		rank = 1;
	if (rank > h->n)
		return h->max;
	b = hist_rank_bucket(h, rank);
	if (b < HIST_BUCKETS) {
		uint64_t low = bucket_low(b);

		/* never report outside the observed range */
		return low < h->min ? h->min : low > h->max ? h->max : low;
	}
	return h->max;
}

double hist_mean(const struct hist *h)
{
	long double sum = h->wide ? h->sum_wide : (long double)h->sum_u64;

	return h->n ? (double)(sum / h->n) : 0;
}

void hist_free(struct hist *h)
{
	rows_free(h->rows);
	free(h->pairs);
	memset(h, 0, sizeof(*h));
}

static uint32_t class_hash(uint32_t classid, uint32_t mask)
{
	uint32_t h = classid ^ classid >> 16;

	h *= 0x45d9f3bu;
	return (h ^ h >> 16) & mask;
}

/* Rebuilds the classid index for cap slots (a power of two). */
static int class_map_build(struct dev_stats *st, int cap)
{
	struct class_slot *map = calloc((size_t)cap, sizeof(*map));

	if (!map)
		return -1;
	free(st->class_map);
	st->class_map = map;
	st->class_map_cap = cap;
	for (int i = 0; i < st->nclasses; i++) {
		uint32_t k = class_hash(st->classes[i].classid, (uint32_t)cap - 1);

		while (map[k].index1)
			k = (k + 1) & ((uint32_t)cap - 1);
		map[k].classid = st->classes[i].classid;
		map[k].index1 = i + 1;
	}
	return 0;
}

/* Doubles the classid index, moving its slots (no record is read). */
static int class_map_grow(struct dev_stats *st)
{
	int cap = st->class_map_cap * 2;
	struct class_slot *map = calloc((size_t)cap, sizeof(*map));

	if (!map)
		return -1;
	for (int i = 0; i < st->class_map_cap; i++) {
		uint32_t k;

		if (!st->class_map[i].index1)
			continue;
		k = class_hash(st->class_map[i].classid, (uint32_t)cap - 1);
		while (map[k].index1)
			k = (k + 1) & ((uint32_t)cap - 1);
		map[k] = st->class_map[i];
	}
	free(st->class_map);
	st->class_map = map;
	st->class_map_cap = cap;
	return 0;
}

/* The index of classid's record, appended if it is new: -1 when out of
 * memory. The guess (the class last found) is tried first when hint. */
static int class_index(struct dev_stats *st, uint32_t classid, int hint)
{
	struct class_stats *c;
	int h = st->class_hint;
	uint32_t k, mask = (uint32_t)st->class_map_cap - 1;

	if (hint && h < st->nclasses && st->classes[h].classid == classid)
		return h;
	/* an index by classid, so a root with thousands of classes (sfq's
	 * buckets) costs no scan per packet; it holds the classids, so a
	 * lookup reads no record */
	if (st->class_map)
		for (k = class_hash(classid, mask); st->class_map[k].index1; k = (k + 1) & mask)
			if (st->class_map[k].classid == classid)
				return st->class_hint = st->class_map[k].index1 - 1;
	if (!st->class_map && class_map_build(st, 16))
		return -1;
	if (st->nclasses == st->classes_cap) {
		int cap = st->classes_cap ? st->classes_cap * 2 : 4;

		/* megabytes with thousands of classes, read at random */
		c = hugemem_realloc(st->classes, (size_t)st->classes_cap * sizeof(*c),
				    (size_t)cap * sizeof(*c));
		if (!c)
			return -1;
		st->classes = c;
		st->classes_cap = cap;
	}
	c = &st->classes[st->nclasses];
	memset(c, 0, sizeof(*c));
	c->classid = classid;
	/* appended; stats_sort_classes orders them by classid when the run ends */
	if (st->nclasses && st->classes[st->nclasses - 1].classid > classid)
		st->classes_unsorted = 1;
	if ((st->nclasses + 1) * 2 > st->class_map_cap && class_map_grow(st))
		return -1;
	st->nclasses++;
	mask = (uint32_t)st->class_map_cap - 1;
	for (k = class_hash(classid, mask); st->class_map[k].index1; k = (k + 1) & mask)
		;
	st->class_map[k].classid = classid;
	st->class_map[k].index1 = st->nclasses;
	return st->nclasses - 1;
}

/* One packet's part in its class: 0 or -ENOMEM. */
static int class_apply(struct class_stats *c, const struct class_upd *u)
{
	uint32_t len = u->len & ~CLASS_UPD_DROP;

	if (u->len & CLASS_UPD_DROP) {
		c->drops++;
		c->drop_bytes += len;
		return 0;
	}
	c->packets++;
	c->bytes += len;
	if (hist_add(&c->queue_delay, u->queue_delay) || hist_add(&c->total_delay, u->total_delay))
		return -ENOMEM;
	return 0;
}

/* Brings in where a sample v will count in h: its pairs, or its rows'
 * table (stage 0), then the row (stage 1). */
static void hist_prefetch(const struct hist *h, uint64_t v, int stage)
{
	unsigned k = hist_bucket_of(v);

	if (h->pairs && !stage) {
		__builtin_prefetch(h->pairs, 1);
		__builtin_prefetch(h->pairs + h->pairs_cap - 1, 1);
	}
	if (!h->rows)
		return;
	if (!stage)
		__builtin_prefetch(&h->rows[k / HIST_SUB]);
	else if (h->rows[k / HIST_SUB])
		__builtin_prefetch(&h->rows[k / HIST_SUB][k % HIST_SUB], 1);
}

/* Applies the log in its order (each class sees its packets as they came,
 * so every sum and histogram is what immediate accounting gives). The
 * loads of entry i are started ahead of it, each stage from what the one
 * before brought in: its index slot at i - 4A, its class record at i - 3A,
 * the records' histogram row tables at i - 2A, their rows at i - A. */
#define CLASS_AHEAD 4
static int class_log_apply(struct dev_stats *st)
{
	int idx[4 * CLASS_AHEAD], n = st->nlog, ret = 0;

	st->nlog = 0;
	for (int i = -4 * CLASS_AHEAD; i < n; i++) {
		int j = i + 4 * CLASS_AHEAD;
		const struct class_upd *u;
		const struct class_stats *c;

		if (j < n && st->class_map)
			__builtin_prefetch(&st->class_map[class_hash(
			    st->log[j].classid, (uint32_t)st->class_map_cap - 1)]);
		j = i + 3 * CLASS_AHEAD;
		if (j >= 0 && j < n) {
			int k = class_index(st, st->log[j].classid, 0);

			idx[j % (4 * CLASS_AHEAD)] = k;
			if (k >= 0) {
				c = &st->classes[k];
				/* a drop counts in the record's first 40 bytes */
				__builtin_prefetch(c, 1);
				__builtin_prefetch((const char *)c + 39, 1);
				if (!(st->log[j].len & CLASS_UPD_DROP)) {
					__builtin_prefetch((const char *)c + 100, 1);
					__builtin_prefetch((const char *)c + 164, 1);
					__builtin_prefetch((const char *)c + sizeof(*c) - 1, 1);
				}
			}
		}
		for (int stage = 0; stage < 2; stage++) {
			j = i + (2 - stage) * CLASS_AHEAD;
			if (j < 0 || j >= n || idx[j % (4 * CLASS_AHEAD)] < 0)
				continue;
			u = &st->log[j];
			if (u->len & CLASS_UPD_DROP)
				continue;
			c = &st->classes[idx[j % (4 * CLASS_AHEAD)]];
			hist_prefetch(&c->queue_delay, u->queue_delay, stage);
			hist_prefetch(&c->total_delay, u->total_delay, stage);
		}
		if (i >= 0 && idx[i % (4 * CLASS_AHEAD)] >= 0 &&
		    class_apply(&st->classes[idx[i % (4 * CLASS_AHEAD)]], &st->log[i]))
			ret = -ENOMEM;
		if (i >= 0 && idx[i % (4 * CLASS_AHEAD)] < 0)
			ret = -ENOMEM;
	}
	return ret;
}

struct class_stats *stats_class(struct dev_stats *st, uint32_t classid)
{
	int k;

	if (st->nlog && class_log_apply(st))
		return NULL;
	k = class_index(st, classid, 1);
	return k < 0 ? NULL : &st->classes[k];
}

void stats_defer_begin(struct dev_stats *st)
{
	if (!st->log)
		st->log = malloc(STATS_LOG * sizeof(*st->log));
	st->defer = st->log != NULL;
}

int stats_defer_end(struct dev_stats *st)
{
	st->defer = 0;
	return st->nlog ? class_log_apply(st) : 0;
}

/* A packet's part in its class: now, or logged while deferred. */
static int class_account(struct dev_stats *st, const struct pkt *p, uint32_t drop)
{
	struct class_stats *c;
	int k;

	/* a few classes stay in the caches: the log would only add work. A
	 * device logs from its STATS_DEFER_CLASSES-th class on (classes are
	 * never removed, so no class is accounted out of its order) */
	if (st->defer && st->nclasses >= STATS_DEFER_CLASSES) {
		struct class_upd *u = &st->log[st->nlog++];

		u->classid = p->leaf_classid;
		u->len = p->len | drop;
		u->queue_delay = drop ? 0 : p->t_dequeue - p->t_arrive;
		u->total_delay = drop ? 0 : p->t_depart - p->t_arrive;
		return st->nlog == STATS_LOG ? class_log_apply(st) : 0;
	}
	k = class_index(st, p->leaf_classid, 1);
	if (k < 0)
		return -ENOMEM;
	c = &st->classes[k];
	if (drop) {
		c->drops++;
		c->drop_bytes += p->len;
		return 0;
	}
	c->packets++;
	c->bytes += p->len;
	if (hist_add(&c->queue_delay, p->t_dequeue - p->t_arrive) ||
	    hist_add(&c->total_delay, p->t_depart - p->t_arrive))
		return -ENOMEM;
	return 0;
}

static int class_cmp(const void *a, const void *b)
{
	const struct class_stats *x = a, *y = b;

	return x->classid < y->classid ? -1 : x->classid > y->classid;
}

int stats_sort_classes(struct dev_stats *st)
{
	if (st->nlog && class_log_apply(st))
		return -ENOMEM;
	if (!st->classes_unsorted)
		return 0;
	qsort(st->classes, (size_t)st->nclasses, sizeof(*st->classes), class_cmp);
	st->classes_unsorted = 0;
	st->class_hint = 0;
	return class_map_build(st, st->class_map_cap);
}

static struct source_stats *source_of(struct dev_stats *st, int src)
{
	return src >= 0 && src < st->nsources ? &st->sources[src] : NULL;
}

/* Adds every sample of `from` to `to` (same buckets: exact). */
int hist_merge(struct hist *to, const struct hist *from)
{
	if (!from->n)
		return 0;
	if (!to->n) {
		to->min = from->min;
		to->max = from->max;
	}
	/* to's counts in pairs or rows (its listed samples moved there first) */
	if (!to->rows && !to->pairs_cap && hist_put(to, 0, 0))
		return -ENOMEM;
	if (from->pairs_cap) {
		const struct hist_pair *pv = cpairv(from);

		for (uint16_t i = 0; i < from->npairs; i++)
			if (hist_put(to, pv[i].bucket, pv[i].count))
				return -ENOMEM;
	} else if (!from->rows) {
		for (uint64_t i = 0; i < from->n; i++)
			if (hist_put(to, from->small[i], 1))
				return -ENOMEM;
	} else {
		for (unsigned r = 0; r < HIST_ROWS; r++)
			for (unsigned i = 0; from->rows[r] && i < HIST_SUB; i++)
				if (from->rows[r][i] && hist_put(to, r * HIST_SUB + i, from->rows[r][i]))
					return -ENOMEM;
	}
	if (from->min < to->min)
		to->min = from->min;
	if (from->max > to->max)
		to->max = from->max;
	to->n += from->n;
	if (!to->wide && !from->wide && !__builtin_add_overflow(to->sum_u64, from->sum_u64, &to->sum_u64))
		return 0;
	{
		long double a = to->wide ? to->sum_wide : (long double)to->sum_u64;
		long double b = from->wide ? from->sum_wide : (long double)from->sum_u64;

		if (!to->wide && !from->wide) /* the add overflowed: undo its wrap */
			a = (long double)(to->sum_u64 - from->sum_u64);
		to->sum_wide = a + b;
		to->wide = 1;
	}
	return 0;
}

/* The classes' delays together: every sent packet of the device. */
static int merge_classes(const struct dev_stats *st, struct hist *q, struct hist *t)
{
	for (int i = 0; i < st->nclasses; i++)
		if (hist_merge(q, &st->classes[i].queue_delay) || hist_merge(t, &st->classes[i].total_delay))
			return -ENOMEM;
	return 0;
}

int stats_source_delays(const struct dev_stats *st, int i, struct hist *tmp_q, struct hist *tmp_t,
			const struct hist **q, const struct hist **t)
{
	memset(tmp_q, 0, sizeof(*tmp_q));
	memset(tmp_t, 0, sizeof(*tmp_t));
	if (st->multi_source) {
		*q = &st->sources[i].queue_delay;
		*t = &st->sources[i].total_delay;
		return 0;
	}
	*q = tmp_q;
	*t = tmp_t;
	return merge_classes(st, tmp_q, tmp_t);
}

int stats_source_arrived_slow(struct dev_stats *st, int src, const char *name, int rejected)
{
	struct source_stats *s;

	if (src < 0)
		return 0;
	if (src >= st->nsources) {
		s = realloc(st->sources, (size_t)(src + 1) * sizeof(*s));
		if (!s)
			return -ENOMEM;
		memset(s + st->nsources, 0, (size_t)(src + 1 - st->nsources) * sizeof(*s));
		st->sources = s;
		st->nsources = src + 1;
	}
	s = &st->sources[src];
	if (!s->used) {
		/* a second source: the first one's delays so far are all of the
		 * device's, and from now on each keeps its own */
		if (!st->multi_source) {
			if (st->nlog && class_log_apply(st))
				return -ENOMEM;
			for (int i = 0; i < st->nsources; i++)
				if (i != src && st->sources[i].used) {
					if (merge_classes(st, &st->sources[i].queue_delay,
							  &st->sources[i].total_delay))
						return -ENOMEM;
					st->multi_source = 1;
				}
		}
		const char *base = name ? strrchr(name, '/') : NULL;

		s->used = 1;
		snprintf(s->name, sizeof(s->name), "%s", base ? base + 1 : name ? name : "");
	}
	s->arrived++;
	s->rejected += rejected != 0;
	return 0;
}

int stats_sent(struct dev_stats *st, const struct pkt *p)
{
	struct source_stats *s = source_of(st, p->source);

	st->sent++;
	st->sent_bytes += p->len;
	if (p->t_depart > st->last_departure)
		st->last_departure = p->t_depart;
	if (s) {
		s->packets++;
		s->bytes += p->len;
		if (st->multi_source && (hist_add(&s->queue_delay, p->t_dequeue - p->t_arrive) ||
					 hist_add(&s->total_delay, p->t_depart - p->t_arrive)))
			return -ENOMEM;
	}
	return class_account(st, p, 0);
}

int stats_dropped(struct dev_stats *st, const struct pkt *p)
{
	struct source_stats *s = source_of(st, p->source);

	st->dropped++;
	st->dropped_bytes += p->len;
	st->drops_by[p->drop < DROP_REASONS ? p->drop : DROP_NONE]++;
	if (s) {
		s->drops++;
		s->drop_bytes += p->len;
	}
	return class_account(st, p, CLASS_UPD_DROP);
}

int stats_classified(struct dev_stats *st, const struct pkt *p)
{
	struct verdict_count *v;

	for (int i = 0; i < st->nverdicts; i++) {
		v = &st->verdicts[i];
		/* one test per entry rather than four */
		if (!(((uint32_t)v->kind ^ (uint32_t)p->verdict) | (v->classid ^ p->classid) |
		      (v->pref ^ p->filter_pref) | (v->handle ^ p->filter_handle))) {
			v->packets++;
			return 0;
		}
	}
	v = realloc(st->verdicts, (size_t)(st->nverdicts + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	st->verdicts = v;
	v = &st->verdicts[st->nverdicts++];
	v->kind = p->verdict;
	v->classid = p->classid;
	v->pref = p->filter_pref;
	v->handle = p->filter_handle;
	v->packets = 1;
	return 0;
}

int stats_rejected(struct dev_stats *st, const char *why)
{
	st->rejected++;
	for (int i = 0; i < 8; i++) {
		if (st->reject_reasons[i] && strcmp(st->reject_reasons[i], why))
			continue;
		st->reject_reasons[i] = why;
		st->reject_by_reason[i]++;
		return 0;
	}
	st->reject_by_reason[7]++;
	return 0;
}

void stats_free(struct dev_stats *st)
{
	for (int i = 0; i < st->nclasses; i++) {
		hist_free(&st->classes[i].queue_delay);
		hist_free(&st->classes[i].total_delay);
	}
	for (int i = 0; i < st->nsources; i++) {
		hist_free(&st->sources[i].queue_delay);
		hist_free(&st->sources[i].total_delay);
	}
	free(st->sources);
	hugemem_free(st->classes, (size_t)st->classes_cap * sizeof(*st->classes));
	free(st->class_map);
	free(st->verdicts);
	free(st->log);
	memset(st, 0, sizeof(*st));
}
