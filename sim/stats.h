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
struct hist {
	uint64_t n;
	uint64_t min, max;
	/* The sum of the samples (read it through hist_mean): an exact integer
	 * while it fits in 64 bits, then a long double (exact to 2^64 too, so
	 * the switch changes no result). */
	uint64_t sum_u64;
	long double sum_wide;
	int wide;
	uint32_t *b; /* allocated on the first sample */
};
int hist_add(struct hist *h, uint64_t v);
/* The q-quantile (0..1): the lower edge of the bucket holding it. */
uint64_t hist_quantile(const struct hist *h, double q);
double hist_mean(const struct hist *h);
void hist_free(struct hist *h);

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

struct verdict_count {
	enum pkt_verdict_kind kind;
	uint32_t classid;
	uint32_t pref, handle; /* the filter, for VERDICT_FILTER */
	uint64_t packets;
};

struct dev_stats {
	uint64_t arrived;  /* every packet read for this device */
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
	struct source_stats *sources; /* [nsources], by source number */
	int nsources;
	uint64_t first_arrival, last_departure;
};

/* Accounting hooks: a packet sent (t_depart set) or dropped. */
int stats_sent(struct dev_stats *st, const struct pkt *p);
int stats_dropped(struct dev_stats *st, const struct pkt *p);
int stats_classified(struct dev_stats *st, const struct pkt *p);
int stats_rejected(struct dev_stats *st, const char *why);
/* A packet of source `src` (named `name`) arrived, or was rejected. */
int stats_source_arrived(struct dev_stats *st, int src, const char *name, int rejected);
void stats_free(struct dev_stats *st);
struct class_stats *stats_class(struct dev_stats *st, uint32_t classid);

#endif
