/* synth.c - synthetic packet sources (synth.h has the rules).
 *
 * The gap between constant arrivals is the fraction gap_num / gap_den ns:
 *  pps:             1e15 / round(pps x 1e6)      (pps to 1e-6, as source.c)
 *  bps, fixed S:    8e9 x S / bps                (exact)
 *  bps, uniform:    4e9 x (min + max) / bps      (mean (min + max) / 2, exact)
 *  bps, discrete:   round(8e12 x mean) / (1000 x bps)
 * and t_i = start + floor(i x gap_num / gap_den) in 128-bit integers.
 *
 * Poisson gaps are drawn by inverse transform: u = (53 random bits) / 2^53
 * in [0, 1), gap = -g ln(1 - u) with g = 1e9 / pps as a double (1 - u is in
 * (0, 1], so the logarithm is finite), rounded to the nearest ns and summed
 * in integers. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "pcapwrite.h"
#include "rng.h"
#include "synth.h"

#define TCP_ACK 0x10

/* What a valid spec works out to. */
struct plan {
	uint32_t l2, l3, l4h; /* header lengths */
	uint32_t hdr;         /* l2 + l3 + l4h */
	uint32_t size_hi;     /* the largest frame the spec can draw */
	uint32_t flows;
	uint64_t gap_num, gap_den; /* ns per packet, a fraction */
	double gap_ns;             /* the same as a double (Poisson) */
	uint64_t per_on;           /* on/off: packets per on period */
	uint64_t cycle_ns;         /* on/off: on + off */
	double wsum;               /* discrete: sum of the weights */
};

struct synth_src {
	struct source src; /* first: the public part */
	struct synth_spec sp;
	struct plan pl;
	struct rng r_arr, r_size;
	uint8_t *frame;
	uint32_t *fseq; /* per flow: TCP next sequence number, ICMP last echo seq */
	uint32_t *fack; /* per flow: TCP ack number */
	struct mark_filter *marks;
	uint64_t n;     /* packets yielded */
	uint64_t rel;   /* Poisson: the last arrival after start */
	int done;
	int err; /* sticky */
	char errmsg[256];
};

static const char *spec_name(const struct synth_spec *sp)
{
	return sp->name[0] ? sp->name : "synth";
}

static int failf(char *err, size_t errlen, const struct synth_spec *sp, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int failf(char *err, size_t errlen, const struct synth_spec *sp, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	if (!err || !errlen)
		return -EINVAL;
	snprintf(err, errlen, "%.*s: ", (int)sizeof(sp->name), spec_name(sp));
	n = strlen(err);
	va_start(ap, fmt);
	if (n < errlen)
		vsnprintf(err + n, errlen - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

void synth_spec_default(struct synth_spec *sp)
{
	static const uint8_t smac[6] = {0x02, 0, 0, 0, 0, 0x01};
	static const uint8_t dmac[6] = {0x02, 0, 0, 0, 0, 0x02};

	memset(sp, 0, sizeof(*sp));
	sp->arrivals = SYNTH_CONSTANT;
	memcpy(sp->src_mac, smac, 6);
	memcpy(sp->dst_mac, dmac, 6);
	sp->family = 4;
	memcpy(sp->saddr, "\x0a\x00\x00\x01", 4);
	memcpy(sp->daddr, "\x0a\x00\x00\x02", 4);
	sp->l4 = 17;
	sp->sport = 1024;
	sp->dport = 5201;
	sp->flows = 1;
	sp->ttl = 64;
	sp->tcp_flags = 0x18;
	sp->icmp_type = -1;
	sp->size_kind = SYNTH_SIZE_FIXED;
	sp->size_min = sp->size_max = 1000;
	sp->prio_mode = PRIO_FORWARD;
}

static const char *l4_name(int l4)
{
	switch (l4) {
	case 6: return "TCP";
	case 17: return "UDP";
	case 1: return "ICMP";
	default: return "ICMPv6";
	}
}

static int check_size(const struct synth_spec *sp, const struct plan *pl, const char *field,
		      uint32_t size, char *err, size_t errlen)
{
	if (size < pl->hdr)
		return failf(err, errlen, sp, "%s %u is below the %u-byte minimum of an Ethernet/%sIPv%d/%s frame",
			     field, size, pl->hdr, sp->vlan ? "802.1Q/" : "", sp->family,
			     l4_name(sp->l4));
	if (size > SYNTH_MAX_FRAME)
		return failf(err, errlen, sp, "%s %u is above %u, the largest frame (without FCS)",
			     field, size, SYNTH_MAX_FRAME);
	return 0;
}

static int plan_make(const struct synth_spec *sp, struct plan *pl, char *err, size_t errlen)
{
	double mean;
	int r;

	memset(pl, 0, sizeof(*pl));
	if (memchr(sp->name, 0, sizeof(sp->name)) == NULL)
		return failf(err, errlen, sp, "name is not terminated within 64 bytes");
	/* what the frame is */
	if (sp->family != 4 && sp->family != 6)
		return failf(err, errlen, sp, "family %d is neither 4 nor 6", sp->family);
	switch (sp->l4) {
	case 6: pl->l4h = 20; break;
	case 17: pl->l4h = 8; break;
	case 1:
		if (sp->family != 4)
			return failf(err, errlen, sp, "l4 1 (ICMP) needs family 4; IPv6 uses 58 (ICMPv6)");
		pl->l4h = 8;
		break;
	case 58:
		if (sp->family != 6)
			return failf(err, errlen, sp, "l4 58 (ICMPv6) needs family 6; IPv4 uses 1 (ICMP)");
		pl->l4h = 8;
		break;
	default:
		return failf(err, errlen, sp, "l4 %d is not 6 (TCP), 17 (UDP), 1 (ICMP) or 58 (ICMPv6)",
			     sp->l4);
	}
	if (sp->icmp_type < -1 || sp->icmp_type > 255)
		return failf(err, errlen, sp, "icmp_type %d is not -1 (echo request) or 0..255",
			     sp->icmp_type);
	pl->l2 = sp->vlan ? 18 : 14;
	pl->l3 = sp->family == 4 ? 20 : 40;
	pl->hdr = pl->l2 + pl->l3 + pl->l4h;
	pl->flows = sp->flows ? sp->flows : 1;
	if ((uint64_t)sp->sport + pl->flows - 1 > 65535)
		return failf(err, errlen, sp, "flows %u from %s %u runs past 65535",
			     pl->flows, sp->l4 == 1 || sp->l4 == 58 ? "echo identifier (sport)" : "sport",
			     sp->sport);
	/* sizes */
	switch (sp->size_kind) {
	case SYNTH_SIZE_FIXED:
		if ((r = check_size(sp, pl, "size", sp->size_min, err, errlen)))
			return r;
		pl->size_hi = sp->size_min;
		mean = sp->size_min;
		break;
	case SYNTH_SIZE_UNIFORM:
		if ((r = check_size(sp, pl, "size_min", sp->size_min, err, errlen)) ||
		    (r = check_size(sp, pl, "size_max", sp->size_max, err, errlen)))
			return r;
		if (sp->size_min > sp->size_max)
			return failf(err, errlen, sp, "size_min %u is above size_max %u",
				     sp->size_min, sp->size_max);
		pl->size_hi = sp->size_max;
		mean = ((double)sp->size_min + sp->size_max) / 2;
		break;
	case SYNTH_SIZE_DISCRETE:
		if (sp->nsizes < 1 || sp->nsizes > SYNTH_MAX_SIZES)
			return failf(err, errlen, sp, "nsizes %d is not 1..%d", sp->nsizes,
				     SYNTH_MAX_SIZES);
		mean = 0;
		for (int i = 0; i < sp->nsizes; i++) {
			char field[32];

			snprintf(field, sizeof(field), "sizes[%d]", i);
			if ((r = check_size(sp, pl, field, sp->sizes[i], err, errlen)))
				return r;
			if (!isfinite(sp->weights[i]) || sp->weights[i] < 0 || sp->weights[i] > 1e300)
				return failf(err, errlen, sp, "weights[%d] %g is not a number from 0 to 1e300",
					     i, sp->weights[i]);
			pl->wsum += sp->weights[i];
			mean += sp->weights[i] * sp->sizes[i];
			if (sp->sizes[i] > pl->size_hi)
				pl->size_hi = sp->sizes[i];
		}
		if (!(pl->wsum > 0))
			return failf(err, errlen, sp, "the weights sum to 0");
		mean /= pl->wsum;
		break;
	default:
		return failf(err, errlen, sp, "size_kind %d is not fixed, uniform or discrete",
			     (int)sp->size_kind);
	}
	/* rate */
	if (sp->pps != 0 && sp->bps != 0)
		return failf(err, errlen, sp, "pps and bps are exclusive");
	if (sp->bps) {
		if (sp->bps > 1000000000000000ull)
			return failf(err, errlen, sp, "bps %llu is above 1e15",
				     (unsigned long long)sp->bps);
		switch (sp->size_kind) {
		case SYNTH_SIZE_FIXED:
			pl->gap_num = 8000000000ull * sp->size_min;
			pl->gap_den = sp->bps;
			break;
		case SYNTH_SIZE_UNIFORM:
			pl->gap_num = 4000000000ull * ((uint64_t)sp->size_min + sp->size_max);
			pl->gap_den = sp->bps;
			break;
		default:
			pl->gap_num = (uint64_t)llround(8e12 * mean);
			pl->gap_den = sp->bps * 1000;
			break;
		}
		/* pps = bps / (8 mean) within [1e-6, 1e12] as for pps */
		if ((double)pl->gap_num / (double)pl->gap_den > 1e15)
			return failf(err, errlen, sp, "bps %llu is below 1e-6 packets/s of %g-byte frames",
				     (unsigned long long)sp->bps, mean);
		if ((double)pl->gap_num / (double)pl->gap_den < 1e-3)
			return failf(err, errlen, sp, "bps %llu is above 1e12 packets/s of %g-byte frames",
				     (unsigned long long)sp->bps, mean);
	} else {
		if (!isfinite(sp->pps) || !(sp->pps > 0))
			return failf(err, errlen, sp, "no rate: set pps (> 0) or bps");
		if (sp->pps > 1e12)
			return failf(err, errlen, sp, "pps %g is above 1e12", sp->pps);
		if (llround(sp->pps * 1e6) < 1)
			return failf(err, errlen, sp, "pps %g is below 0.000001", sp->pps);
		pl->gap_num = 1000000000000000ull;
		pl->gap_den = (uint64_t)llround(sp->pps * 1e6);
	}
	pl->gap_ns = (double)pl->gap_num / (double)pl->gap_den;
	/* timing */
	switch (sp->arrivals) {
	case SYNTH_CONSTANT:
	case SYNTH_POISSON:
		if (sp->on_ns || sp->off_ns)
			return failf(err, errlen, sp, "on_ns and off_ns apply only to onoff arrivals");
		break;
	case SYNTH_ONOFF:
		if (!sp->on_ns)
			return failf(err, errlen, sp, "onoff arrivals need on_ns > 0");
		if (__builtin_add_overflow(sp->on_ns, sp->off_ns, &pl->cycle_ns))
			return failf(err, errlen, sp, "on_ns + off_ns overflows 64 bits");
		/* j * gap < on  <=>  j < on * den / num: ceil(on * den / num) packets */
		{
			unsigned __int128 v = ((unsigned __int128)sp->on_ns * pl->gap_den +
					       pl->gap_num - 1) / pl->gap_num;

			pl->per_on = v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
		}
		break;
	default:
		return failf(err, errlen, sp, "arrivals %d is not constant, poisson or onoff",
			     (int)sp->arrivals);
	}
	if (!sp->count && !sp->duration_ns)
		return failf(err, errlen, sp, "no end: set count or duration_ns (or both)");
	if (sp->duration_ns && sp->start_ns + sp->duration_ns < sp->start_ns)
		return failf(err, errlen, sp, "start_ns + duration_ns overflows the 64-bit ns clock");
	if (sp->prio_mode != PRIO_FORWARD && sp->prio_mode != PRIO_FIXED)
		return failf(err, errlen, sp, "prio_mode %d is not forward or fixed",
			     (int)sp->prio_mode);
	return 0;
}

int synth_validate(const struct synth_spec *sp, char *err, size_t errlen)
{
	struct plan pl;

	return plan_make(sp, &pl, err, errlen);
}

/* ---- checksums ----------------------------------------------------------- */

static uint32_t sum16(uint32_t acc, const uint8_t *p, size_t n)
{
	uint64_t s = acc;
	size_t i = 0;

	for (; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (i < n)
		s += (uint32_t)p[i] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint32_t)s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* ---- the source ---------------------------------------------------------- */

static uint32_t draw_size(struct synth_src *c)
{
	const struct synth_spec *sp = &c->sp;

	switch (sp->size_kind) {
	case SYNTH_SIZE_UNIFORM: {
		uint64_t range = (uint64_t)sp->size_max - sp->size_min + 1;

		return sp->size_min +
		       (uint32_t)(((unsigned __int128)rng_u64(&c->r_size) * range) >> 64);
	}
	case SYNTH_SIZE_DISCRETE: {
		double u = (double)(rng_u64(&c->r_size) >> 11) * 0x1p-53 * c->pl.wsum;
		double acc = 0;
		int last = 0;

		for (int i = 0; i < sp->nsizes; i++) {
			if (!(sp->weights[i] > 0))
				continue;
			last = i;
			acc += sp->weights[i];
			if (u < acc)
				return sp->sizes[i];
		}
		return sp->sizes[last]; /* rounding at the top end */
	}
	default: return sp->size_min;
	}
}

/* Packet n's arrival after start: 0 = set, 1 = past the 64-bit clock. */
static int arrival(struct synth_src *c, uint64_t *rel)
{
	const struct plan *pl = &c->pl;
	unsigned __int128 v;

	switch (c->sp.arrivals) {
	case SYNTH_POISSON: {
		double u = (double)(rng_u64(&c->r_arr) >> 11) * 0x1p-53;
		double g = floor(-pl->gap_ns * log1p(-u) + 0.5);

		if (!(g < 18446744073709551616.0) ||
		    __builtin_add_overflow(c->rel, (uint64_t)g, &c->rel))
			return 1;
		*rel = c->rel;
		return 0;
	}
	case SYNTH_ONOFF: {
		uint64_t k = c->n / pl->per_on, j = c->n % pl->per_on;

		v = (unsigned __int128)k * pl->cycle_ns +
		    (unsigned __int128)j * pl->gap_num / pl->gap_den;
		break;
	}
	default: v = (unsigned __int128)c->n * pl->gap_num / pl->gap_den; break;
	}
	if (v > UINT64_MAX)
		return 1;
	*rel = (uint64_t)v;
	return 0;
}

static void build(struct synth_src *c, uint32_t size)
{
	const struct synth_spec *sp = &c->sp;
	const struct plan *pl = &c->pl;
	uint8_t *f = c->frame, *ip = f + pl->l2, *l4 = ip + pl->l3;
	uint32_t flow = (uint32_t)(c->n % pl->flows);
	uint32_t l4len = size - pl->l2 - pl->l3, paylen = l4len - pl->l4h;
	uint16_t port = (uint16_t)(sp->sport + flow);
	uint32_t s;

	/* Ethernet (constant, written at open) */
	if (sp->family == 4) {
		put16(ip + 2, size - pl->l2);
		put16(ip + 4, (uint32_t)((c->n + 1) & 0xffff));
		put16(ip + 10, 0);
		put16(ip + 10, fold(sum16(0, ip, 20)));
		/* pseudo-header: addresses, protocol, L4 length */
		s = sum16(0, ip + 12, 8) + (uint32_t)sp->l4 + l4len;
	} else {
		put16(ip + 4, l4len);
		s = sum16(0, ip + 8, 32) + (uint32_t)sp->l4 + (l4len >> 16) + (l4len & 0xffff);
	}
	switch (sp->l4) {
	case 6:
		put16(l4, port);
		put16(l4 + 2, sp->dport);
		put32(l4 + 4, c->fseq[flow]);
		put32(l4 + 8, sp->tcp_flags & TCP_ACK ? c->fack[flow] : 0);
		c->fseq[flow] += paylen;
		break;
	case 17:
		put16(l4, port);
		put16(l4 + 2, sp->dport);
		put16(l4 + 4, l4len);
		break;
	default: /* ICMP, ICMPv6 echo */
		if (sp->l4 == 1)
			s = 0; /* ICMPv4 has no pseudo-header */
		put16(l4 + 4, port);
		put16(l4 + 6, ++c->fseq[flow] & 0xffff);
		break;
	}
	/* the checksum field: TCP 16, UDP 6, ICMP 2 */
	{
		unsigned off = sp->l4 == 6 ? 16 : sp->l4 == 17 ? 6 : 2;
		uint16_t ck;

		put16(l4 + off, 0);
		ck = fold(sum16(s, l4, l4len));
		if (sp->l4 == 17 && ck == 0)
			ck = 0xffff;
		put16(l4 + off, ck);
	}
}

static int synth_next(struct source *s, struct src_packet *p, char *err, size_t errlen)
{
	struct synth_src *c = (struct synth_src *)s;
	uint64_t rel;
	uint32_t size;

	if (c->err) {
		if (err && errlen)
			snprintf(err, errlen, "%s", c->errmsg);
		return c->err;
	}
	if (c->done)
		return 0;
	if (c->sp.count && c->n >= c->sp.count) {
		c->done = 1;
		return 0;
	}
	if (arrival(c, &rel) || rel > UINT64_MAX - c->sp.start_ns) {
		if (c->sp.duration_ns) { /* long past the end anyway */
			c->done = 1;
			return 0;
		}
		c->err = -EOVERFLOW;
		snprintf(c->errmsg, sizeof(c->errmsg),
			 "%.64s: packet %llu: arrival time overflows the 64-bit ns clock", c->src.name,
			 (unsigned long long)c->n + 1);
		if (err && errlen)
			snprintf(err, errlen, "%s", c->errmsg);
		return c->err;
	}
	if (c->sp.duration_ns && rel > c->sp.duration_ns) {
		c->done = 1;
		return 0;
	}
	size = draw_size(c);
	build(c, size);
	memset(p, 0, sizeof(*p));
	p->data = c->frame;
	p->caplen = p->len = size;
	p->t_ns = c->sp.start_ns + rel;
	p->priority = c->sp.prio_mode == PRIO_FIXED ? c->sp.priority
						      : frame_forward_priority(c->frame, size);
	p->mark = mark_filter_apply(c->marks, c->frame, size, size);
	p->seq = ++c->n;
	return 1;
}

static void synth_close(struct source *s)
{
	struct synth_src *c = (struct synth_src *)s;

	if (!c)
		return;
	mark_filter_free(c->marks);
	free(c->frame);
	free(c->fseq);
	free(c->fack);
	free(c);
}

static const struct source_ops synth_ops = {
    .next = synth_next,
    .close = synth_close,
};

/* The parts of the frame that never change. */
static void frame_template(struct synth_src *c)
{
	const struct synth_spec *sp = &c->sp;
	const struct plan *pl = &c->pl;
	uint8_t *f = c->frame, *ip = f + pl->l2, *l4 = ip + pl->l3;
	uint16_t type = sp->family == 4 ? 0x0800 : 0x86dd;

	memcpy(f, sp->dst_mac, 6);
	memcpy(f + 6, sp->src_mac, 6);
	if (sp->vlan) {
		put16(f + 12, 0x8100);
		put16(f + 14, sp->vlan_tci);
	}
	put16(f + pl->l2 - 2, type);
	if (sp->family == 4) {
		ip[0] = 0x45;
		ip[1] = sp->tos;
		put16(ip + 6, sp->l4 == 6 ? 0x4000 : 0); /* DF for TCP */
		ip[8] = sp->ttl;
		ip[9] = (uint8_t)sp->l4;
		memcpy(ip + 12, sp->saddr, 4);
		memcpy(ip + 16, sp->daddr, 4);
	} else {
		put32(ip, 0x60000000u | (uint32_t)sp->tos << 20);
		ip[6] = (uint8_t)sp->l4;
		ip[7] = sp->ttl;
		memcpy(ip + 8, sp->saddr, 16);
		memcpy(ip + 24, sp->daddr, 16);
	}
	switch (sp->l4) {
	case 6:
		l4[12] = 5 << 4;
		l4[13] = sp->tcp_flags;
		put16(l4 + 14, 65535);
		break;
	case 17: break;
	default:
		l4[0] = (uint8_t)(sp->icmp_type >= 0 ? sp->icmp_type : sp->l4 == 1 ? 8 : 128);
		l4[1] = sp->icmp_code;
		break;
	}
	for (uint32_t k = 0; pl->hdr + k < pl->size_hi; k++)
		f[pl->hdr + k] = (uint8_t)k;
}

int src_open_synth(struct source **out, const struct synth_spec *sp, char *err, size_t errlen)
{
	struct synth_src *c;
	struct rng master, isn;
	int r;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		goto nomem;
	c->sp = *sp;
	r = plan_make(sp, &c->pl, err, errlen);
	if (r) {
		free(c);
		return r;
	}
	c->src.ops = &synth_ops;
	snprintf(c->src.name, sizeof(c->src.name), "%s", spec_name(sp));
	c->frame = calloc(1, c->pl.size_hi);
	c->fseq = calloc(c->pl.flows, sizeof(*c->fseq));
	c->fack = calloc(c->pl.flows, sizeof(*c->fack));
	if (!c->frame || !c->fseq || !c->fack) {
		synth_close(&c->src);
		goto nomem;
	}
	rng_seed(&master, sp->seed);
	rng_seed(&c->r_arr, rng_u64(&master));
	rng_seed(&c->r_size, rng_u64(&master));
	rng_seed(&isn, rng_u64(&master));
	if (sp->l4 == 6) {
		for (uint32_t i = 0; i < c->pl.flows; i++) {
			uint64_t v = rng_u64(&isn);

			c->fseq[i] = (uint32_t)(v >> 32);
			c->fack[i] = (uint32_t)v;
		}
	}
	r = mark_filter_new(&c->marks, &sp->marks, c->errmsg, sizeof(c->errmsg));
	if (r) {
		failf(err, errlen, sp, "%s", c->errmsg);
		synth_close(&c->src);
		return r;
	}
	frame_template(c);
	*out = &c->src;
	return 0;
nomem:
	failf(err, errlen, sp, "out of memory");
	return -ENOMEM;
}

int64_t synth_save_pcap(const struct synth_spec *sp, const char *path, char *err, size_t errlen)
{
	struct outfile o = {0};
	struct pcapw w = {0};
	char why[256];
	struct source *s = NULL;
	struct src_packet p;
	int64_t n = 0;
	int r, e;

	r = src_open_synth(&s, sp, err, errlen);
	if (r)
		return r;
	if ((r = outfile_open(&o, path, "wb"))) {
		failf(err, errlen, sp, "%s: cannot create: %s", path, strerror(-r));
		goto out;
	}
	/* the writer owns the stream from here: outfile_place renames it */
	r = pcapw_open(&w, o.f, PCAPW_PCAP, NULL, why, sizeof(why));
	o.f = NULL;
	if (r) {
		failf(err, errlen, sp, "%s: cannot write: %s", path, why);
		goto out;
	}
	while ((r = s->ops->next(s, &p, err, errlen)) > 0) {
		struct iovec iov = {(void *)p.data, p.caplen};

		r = pcapw_put(&w, p.t_ns, p.len, &iov, 1, NULL, 0);
		if (r == -EOVERFLOW) {
			failf(err, errlen, sp,
			      "%s: packet %llu arrives at %llu ns, past the 32-bit seconds of pcap",
			      path, (unsigned long long)p.seq, (unsigned long long)p.t_ns);
			goto out;
		}
		if (r)
			goto io;
		n++;
	}
	if (r < 0)
		goto out;
	if ((r = pcapw_close(&w)) || (r = outfile_place(&o))) {
		failf(err, errlen, sp, "%s: cannot write: %s", path, strerror(-r));
		goto out;
	}
	goto out;
io:
	e = -r;
	failf(err, errlen, sp, "%s: cannot write: %s", path, strerror(e));
out:
	pcapw_abort(&w);
	outfile_abort(&o);
	if (s)
		s->ops->close(s);
	return r < 0 ? r : n;
}
