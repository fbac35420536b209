/* codel.h - the CoDel control law the kernel's codel and fq_codel share
 * (include/net/codel.h, codel_impl.h, as in 6.1): a clock of 1024 ns
 * ticks held in 32 bits and compared with wrap-around, the reciprocal
 * square root of the drop count kept in 16 bits and refined by one Newton
 * step per drop, and the dequeue-time state machine that drops (or marks)
 * head packets whose sojourn time stayed above target for an interval.
 *
 * The arithmetic is the kernel's, truncations included, so the drop times
 * a simulation gives are the ones a kernel would compute from the same
 * enqueue and dequeue instants. */
#ifndef TCSIM_CODEL_H
#define TCSIM_CODEL_H

#include <stdint.h>

#include "pkt.h"

typedef uint32_t codel_time_t;

#define CODEL_SHIFT 10
#define CODEL_DISABLED_THRESHOLD 0x7fffffffu /* INT_MAX: ce_threshold off */

/* ns (the simulation's clock) to codel ticks, truncated to 32 bits as
 * codel_get_time() does with ktime_get_ns() */
static inline codel_time_t codel_time(uint64_t ns)
{
	return (codel_time_t)(ns >> CODEL_SHIFT);
}

/* A time tc gave in microseconds, as the kernel stores it:
 * (us * 1000) >> 10, 64-bit product, truncated. */
static inline codel_time_t codel_us_to_time(uint32_t us)
{
	return (codel_time_t)(((uint64_t)us * 1000u) >> CODEL_SHIFT);
}

/* codel_time_to_us: what a dump reports (1ms set gives 999us back) */
static inline uint32_t codel_time_to_us(codel_time_t t)
{
	return (uint32_t)(((uint64_t)t << CODEL_SHIFT) / 1000u);
}

/* RFC 1982 serial comparisons on the 32-bit tick clock */
static inline int codel_after(codel_time_t a, codel_time_t b)
{
	return (int32_t)(a - b) > 0;
}
static inline int codel_after_eq(codel_time_t a, codel_time_t b)
{
	return (int32_t)(a - b) >= 0;
}

struct codel_params {
	codel_time_t target, ce_threshold, interval;
	uint32_t mtu; /* psched_mtu: a backlog at or below it never drops */
	int ecn;      /* mark ECT packets instead of dropping them */
	/* fq_codel (5.16+): with a mask, ce_threshold marks only packets whose
	 * DS field (TOS / traffic class byte) & mask == selector */
	uint8_t ce_threshold_selector, ce_threshold_mask;
};

struct codel_vars {
	uint32_t count;     /* drops since entering the dropping state */
	uint32_t lastcount; /* count when it was last entered */
	int dropping;
	uint16_t rec_inv_sqrt; /* 1/sqrt(count) in Q0.16 */
	codel_time_t first_above_time;
	codel_time_t drop_next;
	codel_time_t ldelay; /* sojourn time of the last packet looked at */
};

struct codel_stats {
	uint32_t maxpacket;
	uint32_t drop_count; /* dropped in dequeue, not yet told to the ancestors */
	uint32_t drop_len;
	uint32_t ecn_mark, ce_mark;
};

/* What the control law asks of the qdisc around it (the kernel's
 * dequeue_func / drop_func / skb_time_func callbacks). */
struct codel_cb {
	/* the next packet of this queue, its backlog already taken off *backlog */
	struct pkt *(*dequeue)(struct codel_vars *vars, void *ctx);
	/* a packet the law dropped: the qdisc counts and frees it */
	void (*drop)(struct pkt *p, void *ctx);
	/* optional: p was marked CE (why: 0 the law with ecn, 1 ce_threshold) */
	void (*marked)(const struct pkt *p, void *ctx, int why);
};

void codel_params_init(struct codel_params *p, uint32_t mtu);
void codel_vars_init(struct codel_vars *v);

/* codel_dequeue of codel_impl.h at time now_ns: the packet to send, or
 * NULL; on the way it may drop (through cb->drop, counted in st) or mark
 * packets. backlog: the qdisc's whole backlog in bytes, read after each
 * dequeue. */
struct pkt *codel_dequeue(void *ctx, const uint64_t *backlog, const struct codel_params *params,
			  struct codel_vars *vars, struct codel_stats *st,
			  const struct codel_cb *cb, uint64_t now_ns);

/* INET_ECN_set_ce: an ECT IPv4 or IPv6 packet gets CE (its IPv4 header
 * checksum updated); 1 if the packet is CE now, 0 if it is not ECN
 * capable (or its header is not in the captured bytes). */
int codel_set_ce(struct pkt *p);
/* skb_get_dsfield: the IPv4 TOS or IPv6 traffic class byte (ECN bits
 * included), or -1 when the packet is neither or its header is not in the
 * captured bytes. */
int codel_get_dsfield(const struct pkt *p);
/* codel_cb.marked for a qdisc that passes itself as ctx: reports the mark
 * of a traced packet (QTRACE_MARK). */
void codel_qdisc_marked(const struct pkt *p, void *ctx, int why);

#endif
