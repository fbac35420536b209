/* source.c - capture files replayed as packet sources with tcpreplay's
 * timing vocabulary, read one packet at a time through capture.c (memory
 * does not grow with the capture; another loop reads the file again,
 * rewound when read directly, else re-opened).
 *
 * Arrival times. start = o->start_ns; i = the packet's 0-based number over
 * the whole replay, loops included. Checked against tcpreplay 4.4/4.5's
 * send_packets.c and, on a private loopback, against tcpreplay 4.4.3 itself.
 *
 *  timestamps (default): t = start + E / speed, rounded to the nearest ns
 *   (halves up). E is the capture time elapsed so far, as tcpreplay's
 *   pkt_ts_delta: it grows only when a timestamp passes the latest one
 *   seen in the same pass, so a packet stamped earlier than that arrives
 *   together with the one before it and is counted in source.clamped.
 *   A new pass adds no gap: loop k is offset by k x (latest - first
 *   timestamp of the capture), i.e. its first packet coincides with the
 *   previous loop's last (for a capture in order, latest = last).
 *  pps: t = start + floor(i * 1e9 / pps), exact integer arithmetic on i,
 *   pps taken to 1e-6 packet/s (tcpreplay: packets per hour, truncated).
 *  mbps: bps = mbps * 1e6 (nearest integer); t_0 = start and, for i >= 1,
 *   t_i = start + floor(8e9 * (len_0 + ... + len_i) / bps): tcpreplay lets
 *   packet i go once packets 0..i could have been sent at the rate, so the
 *   first gap covers two frames (len_0 + len_1) and each later gap the
 *   packet's own length (tcpreplay 4.4.3, --mbps 1, 98-byte frames: 0,
 *   1568 us, 2352 us, ...). Byte counts run on across loops. len is the
 *   original length of the Ethernet frame capture.c yields (tcpreplay
 *   counts caplen unless --pktlen; they differ only for cut frames).
 *  topspeed: t = start for every packet, in file order.
 *  limit N: at most N packets in all (loops included, rejected frames too).
 *  duration D: the source ends at the first packet with t > start + D.
 *   (tcpreplay checks after sending, so it also sends that packet.)
 *  loop 0: forever, as tcpreplay's --loop 0; needs a limit or a duration.
 *
 * speed, pps, mbps and topspeed are exclusive, as in tcpreplay. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "source.h"

#define SRC_LONG_GAP_NS 3600000000000ull /* an hour */
#define ETH_P_IP 0x0800
#define ETH_P_8021Q 0x8100
#define ETH_P_8021AD 0x88a8

enum pace { PACE_TIMESTAMPS, PACE_PPS, PACE_MBPS, PACE_TOPSPEED };

struct cap_src {
	struct source src; /* first: the public part */
	struct replay_opts o;
	enum pace pace;
	char *path;
	struct capture *cap;   /* the pass being read (or the last, at its end) */
	int pass_end;	       /* cap is at its end: the next pass rewinds or re-opens */
	uint64_t pass;	       /* passes opened */
	uint64_t pass_pkts;    /* packets read in the current pass */
	uint64_t n;	       /* packets yielded */
	uint64_t ts_max;       /* latest capture timestamp of this pass */
	uint64_t elapsed;      /* E: capture ns elapsed over the replay */
	uint64_t pass_elapsed; /* E when the pass began */
	uint64_t pps_u;	       /* pps in packets per 1e6 s */
	uint64_t bps;
	unsigned __int128 bits;	     /* frame bits up to this packet */
	unsigned __int128 pass_bits; /* bits when the pass began */
	int done;
	struct mark_filter *marks;
	int err; /* sticky: every later call returns it again */
	char errmsg[512];
};

/* The kernel's ip_tos2prio (spec 7.1): TOS bits 1..4 pick the entry. */
static const uint8_t tos2prio[16] = {
    0, 0, 0, 0, /* BESTEFFORT */
    2, 2, 2, 2, /* BULK */
    6, 6, 6, 6, /* INTERACTIVE */
    4, 4, 4, 4, /* INTERACTIVE_BULK */
};

uint32_t tos_to_priority(uint8_t tos)
{
	return tos2prio[(tos & 0x1e) >> 1];
}

/* A router strips 802.1Q/802.1ad tags (eth_type_vlan) before ip_forward
 * sets the priority from the header, which ip_rcv wants whole and v4. */
uint32_t frame_forward_priority(const uint8_t *frame, uint32_t caplen)
{
	uint32_t off = 14;
	uint16_t type;

	if (!frame || caplen < off)
		return 0;
	type = (uint16_t)(frame[12] << 8 | frame[13]);
	while (type == ETH_P_8021Q || type == ETH_P_8021AD) {
		if (caplen < off + 4)
			return 0;
		type = (uint16_t)(frame[off + 2] << 8 | frame[off + 3]);
		off += 4;
	}
	if (type != ETH_P_IP || caplen < off + 20)
		return 0;
	if (frame[off] >> 4 != 4 || (frame[off] & 0x0f) < 5)
		return 0;
	return tos_to_priority(frame[off + 1]);
}

void replay_opts_default(struct replay_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->speed = 1;
	o->loop = 1;
	o->prio_mode = PRIO_FORWARD;
}

static void put_err(char *err, size_t errlen, const char *msg)
{
	if (err && errlen)
		snprintf(err, errlen, "%s", msg);
}

static int src_fail(struct cap_src *c, int code, char *err, size_t errlen)
{
	c->err = code;
	if (c->cap) {
		cap_close(c->cap);
		c->cap = NULL;
	}
	put_err(err, errlen, c->errmsg);
	return code;
}

static int src_failf(struct cap_src *c, int code, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int src_failf(struct cap_src *c, int code, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->errmsg, sizeof(c->errmsg), fmt, ap);
	va_end(ap);
	return src_fail(c, code, err, errlen);
}

static int src_finish(struct cap_src *c)
{
	c->done = 1;
	if (c->cap) {
		cap_close(c->cap);
		c->cap = NULL;
	}
	return 0;
}

static int src_open_pass(struct cap_src *c)
{
	int r;

	if (!c->cap || cap_rewind(c->cap)) {
		cap_close(c->cap);
		c->cap = NULL;
		r = cap_open(&c->cap, c->path, c->errmsg, sizeof(c->errmsg));
		if (r)
			return r;
	}
	c->pass_end = 0;
	c->pass++;
	c->pass_pkts = 0;
	c->pass_elapsed = c->elapsed;
	c->pass_bits = c->bits;
	return 0;
}

/* Did the pass just read move the clock? A pass that does not would repeat
 * forever when looping forever within a duration. */
static int src_pass_progressed(const struct cap_src *c)
{
	switch (c->pace) {
	case PACE_PPS: return 1;
	case PACE_MBPS: return c->bits != c->pass_bits;
	case PACE_TIMESTAMPS: return c->elapsed != c->pass_elapsed;
	default: return 0;
	}
}

/* The arrival of the packet just read, relative to start_ns. */
static int src_arrival(struct cap_src *c, const struct cap_pkt *cp, uint64_t *rel)
{
	unsigned __int128 v;
	long double q;

	switch (c->pace) {
	case PACE_TOPSPEED: *rel = 0; return 0;
	case PACE_PPS: v = (unsigned __int128)c->n * 1000000000000000ull / c->pps_u; break;
	case PACE_MBPS:
		c->bits += (unsigned __int128)cp->len * 8;
		v = c->n ? c->bits * 1000000000ull / c->bps : 0;
		break;
	default:
		if (c->pass_pkts == 1) {
			c->ts_max = cp->ts_ns;
		} else if (cp->ts_ns > c->ts_max) {
			if (cp->ts_ns - c->ts_max > SRC_LONG_GAP_NS) {
				c->src.long_gaps++;
				if (cp->ts_ns - c->ts_max > c->src.longest_gap_ns)
					c->src.longest_gap_ns = cp->ts_ns - c->ts_max;
			}
			if (__builtin_add_overflow(c->elapsed, cp->ts_ns - c->ts_max, &c->elapsed))
				return -1;
			c->ts_max = cp->ts_ns;
		} else if (cp->ts_ns < c->ts_max) {
			c->src.clamped++;
		}
		if (c->o.speed == 1) {
			*rel = c->elapsed;
			return 0;
		}
		q = floorl((long double)c->elapsed / c->o.speed + 0.5L);
		if (!(q < 18446744073709551616.0L))
			return -1;
		*rel = (uint64_t)q;
		return 0;
	}
	if (v > UINT64_MAX)
		return -1;
	*rel = (uint64_t)v;
	return 0;
}

static int cap_src_next(struct source *s, struct src_packet *p, char *err, size_t errlen)
{
	struct cap_src *c = (struct cap_src *)s;
	struct cap_pkt cp;
	uint64_t rel, t;
	int r;

	if (c->err) {
		put_err(err, errlen, c->errmsg);
		return c->err;
	}
	if (c->done)
		return 0;
	if (c->o.limit && c->n >= c->o.limit)
		return src_finish(c);
	for (;;) {
		if (!c->cap || c->pass_end) {
			if (c->o.loop && c->pass >= c->o.loop)
				return src_finish(c);
			r = src_open_pass(c);
			if (r)
				return src_fail(c, r, err, errlen);
		}
		r = cap_next(c->cap, &cp, c->errmsg, sizeof(c->errmsg));
		if (r < 0) {
			size_t l = strlen(c->errmsg);

			if (c->o.loop != 1 && l < sizeof(c->errmsg))
				snprintf(c->errmsg + l, sizeof(c->errmsg) - l, " (loop %llu)",
					 (unsigned long long)c->pass);
			return src_fail(c, r, err, errlen);
		}
		if (r > 0)
			break;
		c->pass_end = 1;
		if (!c->pass_pkts)
			return src_finish(c); /* an empty capture: every pass is */
		if (!c->o.loop && !c->o.limit && !src_pass_progressed(c))
			return src_failf(c, -EINVAL, err, errlen,
					 "%s: loop 0 (forever) within a duration, but a pass takes "
					 "no time; give a limit",
					 c->path);
	}
	c->pass_pkts++;
	if (!c->src.has_epoch) {
		c->src.has_epoch = 1;
		c->src.epoch_ns = cp.ts_ns >= c->o.start_ns ? cp.ts_ns - c->o.start_ns : 0;
	}
	if (src_arrival(c, &cp, &rel) || __builtin_add_overflow(c->o.start_ns, rel, &t))
		return src_failf(c, -EINVAL, err, errlen,
				 "%s: packet %llu: arrival time overflows the 64-bit ns clock",
				 c->path, (unsigned long long)cp.index);
	if (c->o.duration_ns && rel > c->o.duration_ns)
		return src_finish(c);
	memset(p, 0, sizeof(*p));
	p->data = cp.data;
	p->caplen = cp.caplen;
	p->len = cp.len;
	p->t_ns = t;
	p->reject = cp.reject;
	if (c->o.prio_mode == PRIO_FIXED)
		p->priority = c->o.priority;
	else if (!cp.reject)
		p->priority = frame_forward_priority(cp.data, cp.caplen);
	if (!cp.reject && c->marks) /* no rules: 0, without the call */
		p->mark = mark_filter_apply(c->marks, cp.data, cp.caplen, cp.len);
	p->seq = ++c->n;
	return 1;
}

static void cap_src_close(struct source *s)
{
	struct cap_src *c = (struct cap_src *)s;

	if (!c)
		return;
	cap_close(c->cap);
	mark_filter_free(c->marks);
	free(c->path);
	free(c);
}

static const struct source_ops cap_src_ops = {
    .next = cap_src_next,
    .close = cap_src_close,
};

static int rate_ok(double v)
{
	return isfinite(v) && v >= 0 && v <= 1e12;
}

/* Options as tcpreplay would take them; 0 or an error message. */
static const char *src_check_opts(const struct replay_opts *o)
{
	int modes = (o->pps > 0) + (o->mbps > 0) + !!o->topspeed;

	if (!isfinite(o->speed) || !(o->speed > 0))
		return "speed must be a positive number";
	if (!rate_ok(o->pps))
		return "pps must be a number from 0 (off) to 1e12";
	if (!rate_ok(o->mbps))
		return "mbps must be a number from 0 (off) to 1e12";
	if (modes > 1 || (modes && o->speed != 1))
		return "speed, pps, mbps and topspeed are exclusive";
	if (o->pps > 0 && llround(o->pps * 1e6) < 1)
		return "pps below 0.000001";
	if (o->mbps > 0 && llround(o->mbps * 1e6) < 1)
		return "mbps below 0.000001 (1 bit/s)";
	if (o->prio_mode != PRIO_FORWARD && o->prio_mode != PRIO_FIXED)
		return "unknown priority mode";
	if (!o->loop && !o->limit && !o->duration_ns)
		return "loop 0 (forever) needs a limit or a duration";
	return NULL;
}

int src_open_capture(struct source **out, const char *path, const struct replay_opts *o, char *err,
		     size_t errlen)
{
	struct replay_opts def;
	struct cap_src *c;
	const char *bad;
	int r;

	*out = NULL;
	if (!o) {
		replay_opts_default(&def);
		o = &def;
	}
	bad = src_check_opts(o);
	if (bad) {
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path, bad);
		return -EINVAL;
	}
	c = calloc(1, sizeof(*c));
	if (!c || !(c->path = strdup(path))) {
		free(c);
		if (err && errlen)
			snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	c->src.ops = &cap_src_ops;
	snprintf(c->src.name, sizeof(c->src.name), "%s", path);
	c->o = *o;
	if (o->topspeed)
		c->pace = PACE_TOPSPEED;
	else if (o->pps > 0)
		c->pace = PACE_PPS;
	else if (o->mbps > 0)
		c->pace = PACE_MBPS;
	else
		c->pace = PACE_TIMESTAMPS;
	c->pps_u = o->pps > 0 ? (uint64_t)llround(o->pps * 1e6) : 0;
	c->bps = o->mbps > 0 ? (uint64_t)llround(o->mbps * 1e6) : 0;
	r = mark_filter_new(&c->marks, &o->marks, c->errmsg, sizeof(c->errmsg));
	if (r) {
		put_err(err, errlen, c->errmsg);
		cap_src_close(&c->src);
		return r;
	}
	/* The first pass is opened now, so a file that is not a capture is
	 * refused here rather than at the first packet. */
	r = src_open_pass(c);
	if (r) {
		put_err(err, errlen, c->errmsg);
		cap_src_close(&c->src);
		return r;
	}
	*out = &c->src;
	return 0;
}
