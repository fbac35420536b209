/* explain_int.h - what explain.c records of one packet's journey and
 * explain_tell.c tells: the records, shared by the two halves only. */
#ifndef TCSIM_EXPLAIN_INT_H
#define TCSIM_EXPLAIN_INT_H

#include <stdint.h>
#include <stdio.h>

#include "explain.h"
#include "sim.h"

struct xfilter {
	uint32_t qhandle;
	struct tcf_trace ft;
	char *origin;
	char *detail; /* the kind's account (ft.detail, copied) */
	char *insns; /* -v: the program's instruction trace */
};

struct xclassify {
	uint32_t qhandle;
	const char *kind;
	int bands; /* prio: how many, else 0 */
	struct qtrace qt;
	uint32_t child_handle;
	const char *child_kind;
};

/* A packet that left the device while the explained one waited. */
struct xother {
	uint64_t id, t_arrive, t_dequeue, t_end;
	int source;
	uint64_t seq;
	uint32_t leaf, len;
};

struct explain {
	const struct explain_opts *o;
	struct sim_observer obs;
	/* the packet */
	int arrived, rejected, done, dropped;
	uint64_t id, t_arrive, t_dequeue, t_end, t_depart, dur;
	uint32_t len, caplen, wire, priority, leaf;
	uint32_t mark; /* skb->mark */
	int vlan_tci;
	uint8_t *frame;
	uint32_t frame_len;
	uint16_t protocol;
	char why[256];
	const struct dev *dev;
	struct xfilter *filters;
	size_t nfilters;
	struct xclassify cls[4];
	size_t ncls;
	/* enqueue */
	int enqueued;
	uint32_t enq_qhandle, enq_parent, enq_qlen, enq_bucket, enq_slot, enq_flowlen;
	const char *enq_kind;
	int enq_has_bucket, enq_band;
	uint64_t enq_backlog;
	/* drop */
	enum pkt_drop drop_reason;
	uint32_t drop_qhandle;
	const char *drop_kind;
	int drop_at_arrival;
	uint64_t drop_by, drop_t;
	/* dequeue */
	uint32_t deq_qhandle, deq_left;
	/* waits for tokens (THROTTLED), the first few kept for the story */
	struct xthrottle {
		uint64_t t, until;
		uint32_t qhandle, wclass, by;
		const char *kind;
	} thr[8];
	size_t nthr;
	uint64_t thr_ns; /* time waiting for tokens, all waits */
	uint64_t thr_t, thr_until; /* the wait going on */
	/* MARK: codel marked it CE instead of dropping it */
	int marked, mark_why;
	uint32_t mark_qhandle;
	const char *mark_kind;
	uint64_t mark_t, mark_sojourn;
	/* BORROW */
	int borrowed, borrow_level;
	uint32_t borrow_class, borrow_from;
	/* the others */
	struct xother *others;
	size_t nothers, cap;
	/* -v */
	int verbose;
	char *insn_buf; /* the instruction trace of the program running */
	size_t insn_len, insn_cap;
	int oom;
	struct sim *sim;
};


/* The account of the recorded packet, in prose (explain_tell.c). */
void explain_tell(FILE *out, struct explain *x, const struct sim *s);
/* "1 packet", "2 packets". */
const char *explain_plural(uint64_t n, const char *one, const char *many);

#endif
