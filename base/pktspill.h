/* pktspill.h - a long FIFO of packets that keeps its middle on disk.
 *
 * A queue holds its head part in memory (struct pkt_queue q: q.head is the
 * FIFO's head, which is all a qdisc reads); when it grows past `after`
 * packets, the newer ones go to a tail part, and the tail part is written,
 * a chunk at a time, to an unlinked temporary file. When the head part
 * runs empty the oldest chunk is read back into it (or, with nothing on
 * disk, the tail part joins it). A spilled record is freed (to its pool)
 * and a new one made on reload: everything in struct pkt but its pointers
 * (next, prev, data, pool) round-trips, and the caplen bytes of data. The
 * order, and so every result, is the same whether or not anything spilled.
 *
 * Chunks are fixed-size slots of the file (PKT_SPILL_CHUNK bytes, at most
 * `after` packets each); a slot read back is reused, so the file stays as
 * large as the most chunks ever waiting at once, and it is emptied whenever
 * nothing waits on disk. The packet pushed last stays in memory until the
 * next push, so a caller may still read it after the push.
 *
 * The path a queue that never spills takes costs one predictable branch on
 * a push and one on a pop. I/O errors (no temporary directory, ENOSPC, EIO)
 * are reported once through cfg->fail, naming the directory and errno; the
 * queue then keeps what it holds in memory (a write that failed loses
 * nothing; a read that failed loses the chunks on disk) so the caller's
 * run can stop cleanly. */
#ifndef TCSIM_PKTSPILL_H
#define TCSIM_PKTSPILL_H

#include <stddef.h>
#include <stdint.h>

#include "pkt.h"

/* a chunk's slot in the file: holds the largest record (a struct pkt and
 * libpcap's 262144-byte frame) */
#define PKT_SPILL_CHUNK (512u * 1024u)
/* the default `after`: packets a queue holds in memory before it spills */
#define PKT_SPILL_AFTER 16384u

/* How the queues of one simulation spill (qdisc_env holds it). */
struct pkt_spill_cfg {
	uint32_t after;	 /* packets in memory before the rest goes to disk; 0: never */
	const char *dir; /* the temporary file's directory; NULL: $TMPDIR, else /tmp */
	/* an I/O error: err (-errno) and a one-line message; NULL: ignored */
	void (*fail)(void *arg, int err, const char *msg);
	void *arg;
};

struct pkt_spill; /* the tail part and the file: made at the first spill */

struct pkt_spillq {
	struct pkt_queue q; /* the head part, in memory */
	uint32_t out;	    /* packets past it: in the tail part or on disk */
	uint32_t spill_at;  /* a push takes the slow path when q.len >= spill_at */
	struct pkt_spill *sp;
	const struct pkt_spill_cfg *cfg;
};

/* Sets (or sets again) the queue's configuration; the queue itself is
 * untouched. A zeroed struct pkt_spillq without it behaves as a queue that
 * may spill after 0 packets with no cfg: never spills. cfg must outlive q. */
void pktsq_init(struct pkt_spillq *s, const struct pkt_spill_cfg *cfg);
/* Frees the disk part and any packets left in it (reset first to drop
 * them as a qdisc does). */
void pktsq_free(struct pkt_spillq *s);

void pktsq_push_slow(struct pkt_spillq *s, struct pkt *p);
void pktsq_refill(struct pkt_spillq *s);
struct pkt *pktsq_pop_tail_slow(struct pkt_spillq *s);
struct pkt *pktsq_tail_slow(struct pkt_spillq *s);

static inline uint32_t pktsq_len(const struct pkt_spillq *s)
{
	return s->q.len + s->out;
}

static inline const struct pkt *pktsq_head(const struct pkt_spillq *s)
{
	return s->q.head;
}

static inline void pktsq_push_tail(struct pkt_spillq *s, struct pkt *p)
{
	if (__builtin_expect(s->q.len >= s->spill_at, 0)) {
		pktsq_push_slow(s, p);
		return;
	}
	pktq_push_tail(&s->q, p);
}

/* The newest packet (the one pushed last, unless pop_tail took it): in
 * memory, or read back with its chunk when pop_tail emptied the tail part.
 * netem compares a new packet's time with it. */
static inline struct pkt *pktsq_tail(struct pkt_spillq *s)
{
	if (__builtin_expect(s->out != 0, 0))
		return pktsq_tail_slow(s);
	return s->q.tail;
}

static inline struct pkt *pktsq_pop_head(struct pkt_spillq *s)
{
	struct pkt *p = pktq_pop_head(&s->q);

	if (__builtin_expect(s->out != 0, 0) && !s->q.head)
		pktsq_refill(s);
	return p;
}

static inline struct pkt *pktsq_pop_tail(struct pkt_spillq *s)
{
	if (__builtin_expect(s->out != 0, 0))
		return pktsq_pop_tail_slow(s);
	return pktq_pop_tail(&s->q);
}

/* What waits on disk, for tests and benches. */
struct pkt_spill_stats {
	uint32_t disk;	 /* packets on disk */
	uint32_t chunks; /* chunks on disk */
	uint32_t slots;	 /* chunk slots the file holds (its size / PKT_SPILL_CHUNK) */
	int broken;	 /* an I/O error was reported */
};
void pktsq_stats(const struct pkt_spillq *s, struct pkt_spill_stats *st);

/* TCSIM_SPILL_AFTER from the environment: unset or empty keeps *after;
 * a decimal number of packets (0: never spill) sets it; anything else is
 * refused (-EINVAL with a message). */
int pkt_spill_after_env(uint32_t *after, char *err, size_t errlen);

#endif
