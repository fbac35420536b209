/* codel.c - the CoDel control law shared by sch_codel.c and sch_fq_codel.c
 * (the kernel's include/net/codel_impl.h). See codel.h. */
#include <string.h>

#include "codel.h"
#include "qdisc.h"

#define REC_INV_SQRT_BITS 16
#define REC_INV_SQRT_SHIFT (32 - REC_INV_SQRT_BITS)
#define ETH_HLEN 14

void codel_params_init(struct codel_params *p, uint32_t mtu)
{
	memset(p, 0, sizeof(*p));
	p->interval = codel_us_to_time(100000); /* MS2TIME(100): (100e6 ns) >> 10 */
	p->target = codel_us_to_time(5000);
	p->ce_threshold = CODEL_DISABLED_THRESHOLD;
	p->mtu = mtu;
}

void codel_vars_init(struct codel_vars *v)
{
	memset(v, 0, sizeof(*v));
}

/* One Newton-Raphson step towards 1/sqrt(count), in the kernel's fixed
 * point: x' = x/2 * (3 - count * x^2), with x a Q0.32 built from the
 * 16 bits kept, and the product pre-shifted by 2 against overflow. */
static void codel_newton_step(struct codel_vars *v)
{
	uint32_t invsqrt = (uint32_t)v->rec_inv_sqrt << REC_INV_SQRT_SHIFT;
	uint32_t invsqrt2 = (uint32_t)(((uint64_t)invsqrt * invsqrt) >> 32);
	uint64_t val = (3ull << 32) - (uint64_t)v->count * invsqrt2;

	val >>= 2;
	val = (val * invsqrt) >> (32 - 2 + 1);
	v->rec_inv_sqrt = (uint16_t)(val >> REC_INV_SQRT_SHIFT);
}

/* t + interval / sqrt(count): reciprocal_scale(interval, x) is
 * (interval * x) >> 32 with x the Q0.32 reciprocal square root. */
static codel_time_t codel_control_law(codel_time_t t, codel_time_t interval, uint16_t rec_inv_sqrt)
{
	uint32_t x = (uint32_t)rec_inv_sqrt << REC_INV_SQRT_SHIFT;

	return t + (codel_time_t)(((uint64_t)interval * x) >> 32);
}

/* codel_should_drop: has the sojourn time stayed at or above target (with
 * more than an MTU queued) for a whole interval? NULL resets the watch. */
static int codel_should_drop(const struct pkt *p, struct codel_vars *v,
			     const struct codel_params *params, struct codel_stats *st,
			     const uint64_t *backlog, codel_time_t now)
{
	if (!p) {
		v->first_above_time = 0;
		return 0;
	}
	v->ldelay = now - codel_time(p->t_cb);
	if (p->len > st->maxpacket)
		st->maxpacket = p->len;
	if (codel_after(params->target, v->ldelay) || *backlog <= params->mtu) {
		/* below target (or too little queued to matter): start over */
		v->first_above_time = 0;
		return 0;
	}
	if (v->first_above_time == 0) {
		v->first_above_time = now + params->interval;
		return 0;
	}
	return codel_after(now, v->first_above_time);
}

static void codel_marked(const struct pkt *p, const struct codel_cb *cb, void *ctx, int why)
{
	if (cb->marked && p->traced)
		cb->marked(p, ctx, why);
}

static void codel_drop_one(struct pkt *p, struct codel_stats *st, const struct codel_cb *cb,
			   void *ctx)
{
	st->drop_len += p->len;
	cb->drop(p, ctx);
	st->drop_count++;
}

/* The ce_threshold selector: no mask, every packet; else only those whose
 * DS field, masked, is the selector (a packet without one never). */
static int codel_ce_selected(const struct codel_params *params, const struct pkt *p)
{
	int ds;

	if (!params->ce_threshold_mask)
		return 1;
	ds = codel_get_dsfield(p);
	return ds >= 0 && ((uint8_t)ds & params->ce_threshold_mask) == params->ce_threshold_selector;
}

struct pkt *codel_dequeue(void *ctx, const uint64_t *backlog, const struct codel_params *params,
			  struct codel_vars *v, struct codel_stats *st,
			  const struct codel_cb *cb, uint64_t now_ns)
{
	struct pkt *p = cb->dequeue(v, ctx);
	codel_time_t now;
	int drop;

	if (!p) {
		v->dropping = 0;
		return NULL;
	}
	now = codel_time(now_ns);
	drop = codel_should_drop(p, v, params, st, backlog, now);
	if (v->dropping) {
		if (!drop) {
			v->dropping = 0; /* back below target */
		} else if (codel_after_eq(now, v->drop_next)) {
			/* time for the next drop; a long backlog may call for
			 * several at once, hence the loop */
			while (v->dropping && codel_after_eq(now, v->drop_next)) {
				v->count++; /* wraps harmlessly: no division by it */
				codel_newton_step(v);
				if (params->ecn && codel_set_ce(p)) {
					st->ecn_mark++;
					codel_marked(p, cb, ctx, 0);
					v->drop_next = codel_control_law(v->drop_next, params->interval,
									 v->rec_inv_sqrt);
					goto end;
				}
				codel_drop_one(p, st, cb, ctx);
				p = cb->dequeue(v, ctx);
				if (!codel_should_drop(p, v, params, st, backlog, now))
					v->dropping = 0;
				else
					v->drop_next = codel_control_law(v->drop_next, params->interval,
									 v->rec_inv_sqrt);
			}
		}
	} else if (drop) {
		uint32_t delta;

		if (params->ecn && codel_set_ce(p)) {
			st->ecn_mark++;
			codel_marked(p, cb, ctx, 0);
		} else {
			codel_drop_one(p, st, cb, ctx);
			p = cb->dequeue(v, ctx);
			(void)codel_should_drop(p, v, params, st, backlog, now);
		}
		v->dropping = 1;
		/* re-entering soon after leaving: start from the drop rate
		 * that controlled the queue last time */
		delta = v->count - v->lastcount;
		if (delta > 1 && codel_after(16 * params->interval, now - v->drop_next)) {
			v->count = delta;
			codel_newton_step(v);
		} else {
			v->count = 1;
			v->rec_inv_sqrt = (uint16_t)(~0u >> REC_INV_SQRT_SHIFT);
		}
		v->lastcount = v->count;
		v->drop_next = codel_control_law(now, params->interval, v->rec_inv_sqrt);
	}
end:
	if (p && codel_after(v->ldelay, params->ce_threshold) && codel_ce_selected(params, p) &&
	    codel_set_ce(p)) {
		st->ce_mark++;
		codel_marked(p, cb, ctx, 1);
	}
	return p;
}

/* ---- ECN (include/net/inet_ecn.h) ---- */

#define ETH_P_IP 0x0800
#define ETH_P_IPV6 0x86DD

/* ECN field 01 or 10 (ECT) becomes 11 (CE); 11 stays and counts as
 * marked; 00 (not ECT) cannot be marked. The IPv4 header checksum is
 * updated as IP_ECN_set_ce does. */
int codel_set_ce(struct pkt *p)
{
	uint8_t *h = p->data + ETH_HLEN;
	uint32_t ecn;

	if (p->protocol == ETH_P_IP && p->caplen >= ETH_HLEN + 20) {
		uint16_t check, add, res;

		ecn = (h[1] + 1u) & 3u;
		if (!(ecn & 2))
			return !ecn;
		/* ECT(1) adds 0xfffd, ECT(0) 0xfffe to the checksum, with
		 * the end-around carry of csum16_add: exactly the kernel's
		 * bytes (a full recomputation could differ as 0 vs 0xffff) */
		check = (uint16_t)(h[10] << 8 | h[11]);
		add = (uint16_t)(0xfffbu + ecn);
		res = (uint16_t)(check + add);
		res = (uint16_t)(res + (res < add));
		h[10] = (uint8_t)(res >> 8);
		h[11] = (uint8_t)res;
		h[1] |= 3;
		return 1;
	}
	if (p->protocol == ETH_P_IPV6 && p->caplen >= ETH_HLEN + 40) {
		/* traffic class bits 4..11 of the first word: ECN in byte 1's top nibble's low bits */
		ecn = ((h[1] >> 4) + 1u) & 3u;
		if (!(ecn & 2))
			return !ecn;
		h[1] |= 3u << 4;
		return 1;
	}
	return 0;
}

/* The marked callback of a codel-managed qdisc (ctx: the struct qdisc):
 * a traced packet's mark, with its sojourn time. */
void codel_qdisc_marked(const struct pkt *p, void *ctx, int why)
{
	struct qdisc *q = ctx;
	struct qtrace ev = {.kind = QTRACE_MARK, .band = -1, .level = why,
			    .until = q->env->now(q->env->arg) - p->t_cb};

	qdisc_trace(q, p, &ev);
}

int codel_get_dsfield(const struct pkt *p)
{
	const uint8_t *h = p->data + ETH_HLEN;

	if (p->protocol == ETH_P_IP && p->caplen >= ETH_HLEN + 20)
		return h[1];
	if (p->protocol == ETH_P_IPV6 && p->caplen >= ETH_HLEN + 40)
		return (h[0] & 0x0f) << 4 | h[1] >> 4;
	return -1;
}
