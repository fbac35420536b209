/* stats.h - what a run measures: delay histograms with bounded relative
 * error (memory independent of the packet count), per-class and per-device
 * totals, and the verdict counts of the classifier. */
#ifndef TCSIM_STATS_H
#define TCSIM_STATS_H

#include <stdint.h>
#include <stdio.h>

#include "pkt.h"

/* Log-linear buckets: exact below 256 ns, then 128 buckets per power of
 * two, so a percentile is within 1/128 (0.8 %) of the true value. min, max
 * and mean are exact. */
#define HIST_SUB 128
#define HIST_BUCKETS (HIST_SUB * 58)
#define HIST_ROWS (HIST_BUCKETS / HIST_SUB)
#define HIST_SMALL 12
#define HIST_INLINE 3 /* pairs kept in place of the list: as many as fit */
#define HIST_PAIRS_FIRST 16 /* >= HIST_SMALL: the listed samples fit */
#define HIST_PAIRS 32
#define HIST_PAIRS_SAMPLES 64 /* from this many samples on, rows */
struct hist_pair {
	uint16_t bucket;
	uint32_t count;
};
struct hist {
	uint64_t n;
	uint64_t min, max;
	/* The sum of the samples (read it through hist_mean): an exact integer
	 * while it fits in 64 bits, then a long double (exact to 2^64 too, so
	 * the switch changes no result). */
	uint64_t sum_u64;
	long double sum_wide;
	int wide;
	uint16_t npairs, pairs_cap;
	/* The counts, by rows of HIST_SUB buckets (one power of two each), a row
	 * allocated at its first sample; until HIST_SMALL samples, no rows: the
	 * buckets of the n samples are listed in small; past them, while they
	 * fall in at most HIST_PAIRS buckets and number fewer than
	 * HIST_PAIRS_SAMPLES, pairs of bucket and count (a class's delays are
	 * often alike: a table of rows and a row would take a kilobyte for a
	 * few buckets), the first HIST_INLINE of them where the list was
	 * (pairs_cap is not 0 once they count). A root with thousands of
	 * classes (sfq's buckets) so costs little per class. */
	uint32_t **rows;
	struct hist_pair *pairs; /* NULL while they fit in inl */
	union {
		uint16_t small[HIST_SMALL];
		struct hist_pair inl[HIST_INLINE];
	};
};
/* Adds a sample: 0, or -ENOMEM (a sample in a new row allocates). */
int hist_add_slow(struct hist *h, uint64_t v);

static inline unsigned hist_bucket_of(uint64_t v)
{
	unsigned e;

	if (v < 2 * HIST_SUB)
		return (unsigned)v;
	e = 63 - (unsigned)__builtin_clzll(v) - 7; /* v >> e in [128, 256) */
	return e * HIST_SUB + (unsigned)(v >> e);
}

static inline int hist_add(struct hist *h, uint64_t v)
{
	uint64_t sum;
	unsigned k = hist_bucket_of(v);
	uint32_t *row;

	/* the common case inline: its row allocated, the sum still an exact integer */
	if (!h->rows || !(row = h->rows[k / HIST_SUB]) || h->wide ||
	    __builtin_add_overflow(h->sum_u64, v, &sum))
		return hist_add_slow(h, v);
	h->sum_u64 = sum;
	h->n++;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	row[k % HIST_SUB]++;
	return 0;
}
/* The q-quantile (0..1): the lower edge of the bucket holding it. */
uint64_t hist_quantile(const struct hist *h, double q);
double hist_mean(const struct hist *h);
void hist_free(struct hist *h);
/* Adds every sample of from to to (the same buckets: exact). 0 or -ENOMEM. */
int hist_merge(struct hist *to, const struct hist *from);

struct class_stats {
	uint32_t classid; /* the root's class (band), or the root's handle */
	uint64_t packets, bytes; /* sent */
	uint64_t drops, drop_bytes;
	struct hist queue_delay, total_delay;
};

/* Per source feeding the device (a capture or a synthetic stream), indexed
 * by the simulation's source number: what it offered and what became of it. */
struct source_stats {
	int used;         /* this source feeds the device */
	char name[64];    /* the capture's file name (no folders) or the stream's name */
	uint64_t arrived, rejected;
	uint64_t packets, bytes; /* sent */
	uint64_t drops, drop_bytes;
	struct hist queue_delay, total_delay;
};

/* A sent or dropped packet's part for its class, held in a log while a
 * run defers them (stats_defer_begin) and applied in order when the log
 * fills or the deferral ends. */
struct class_upd {
	uint32_t classid;
	uint32_t len; /* bytes, CLASS_UPD_DROP set for a drop */
	uint64_t queue_delay, total_delay;
};
#define CLASS_UPD_DROP 0x80000000u
#define STATS_LOG 512
#define STATS_DEFER_CLASSES 4096 /* ~1 MiB of records, past a core's L2: log */

/* A slot of the class index: a classid and its record's index + 1 (0: empty). */
struct class_slot {
	uint32_t classid;
	int32_t index1;
};

struct verdict_count {
	enum pkt_verdict_kind kind;
	uint32_t classid;
	uint32_t pref, handle; /* the filter, for VERDICT_FILTER */
	uint64_t packets;
};

struct dev_stats {
	uint64_t arrived;  /* every packet read for this device */
	uint64_t duplicated; /* copies a qdisc made (netem duplicate): packets that did not arrive */
	uint64_t rejected; /* could not be carried (reasons below) */
	uint64_t sent, sent_bytes;
	uint64_t dropped, dropped_bytes;
	uint64_t drops_by[DROP_REASONS];
	uint64_t reject_by_reason[8];
	const char *reject_reasons[8];
	struct class_stats *classes;
	int nclasses;
	struct verdict_count *verdicts;
	int nverdicts;
	int class_hint; /* index of the class last looked up (a guess) */
	/* classes are appended during a run and found through class_map
	 * (classid -> index, open addressing); stats_sort_classes orders
	 * them by classid at its end, which is how readers see them */
	int classes_cap, classes_unsorted;
	struct class_slot *class_map;
	int class_map_cap;
	/* while a run defers them: the classes' parts of sent and dropped
	 * packets not applied yet (room for STATS_LOG). A packet touches its
	 * class's record; with thousands of classes (sfq's buckets) those
	 * records miss the caches, and applied as a batch, each looked up a
	 * few entries ahead, their loads overlap. The counters above and the
	 * sources' are always current, the classes once the deferral ends. */
	struct class_upd *log;
	int nlog, defer;
	struct source_stats *sources; /* [nsources], by source number */
	int nsources;
	/* Per-source delays are recorded only once two sources feed the device:
	 * with one, its delays are those of every class together (merged when
	 * read, stats_source_delays), which keeps the common case cheap. */
	int multi_source;
	uint64_t first_arrival, last_departure;
};

/* Accounting hooks: a packet sent (t_depart set) or dropped. */
int stats_sent(struct dev_stats *st, const struct pkt *p);
int stats_dropped(struct dev_stats *st, const struct pkt *p);
int stats_classified(struct dev_stats *st, const struct pkt *p);
int stats_rejected(struct dev_stats *st, const char *why);
/* A packet of source `src` (named `name`) arrived, or was rejected. */
int stats_source_arrived_slow(struct dev_stats *st, int src, const char *name, int rejected);
static inline int stats_source_arrived(struct dev_stats *st, int src, const char *name, int rejected)
{
	if (src >= 0 && src < st->nsources && st->sources[src].used) {
		st->sources[src].arrived++;
		st->sources[src].rejected += rejected != 0;
		return 0;
	}
	return stats_source_arrived_slow(st, src, name, rejected);
}
void stats_free(struct dev_stats *st);
/* The queue and total delays of source i: its own histograms, or (while
 * it is the device's only source) the classes' merged into tmp_q/tmp_t.
 * 0, or -ENOMEM. Free tmp_q/tmp_t with hist_free afterwards. */
int stats_source_delays(const struct dev_stats *st, int i, struct hist *tmp_q, struct hist *tmp_t,
			const struct hist **q, const struct hist **t);
struct class_stats *stats_class(struct dev_stats *st, uint32_t classid);
/* A run defers the classes' accounting (sim_run_until, from its start to
 * its end); stats_defer_end applies what is held and ends the deferral:
 * 0 or -ENOMEM. Without room for the log, accounting stays immediate. */
void stats_defer_begin(struct dev_stats *st);
int stats_defer_end(struct dev_stats *st);
/* Orders the classes by classid (sim.c, when a run ends): 0 or -ENOMEM. */
int stats_sort_classes(struct dev_stats *st);

#endif
