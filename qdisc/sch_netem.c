/* sch_netem.c - the network emulator of net/sched/sch_netem.c (6.1): each
 * packet gets a time to send (a delay with jitter from a distribution
 * table, behind the previous packet at a rate, in slots) and waits in a
 * time-ordered fifo; some are lost, duplicated, corrupted or sent at once
 * out of order, as seeded random draws decide.
 *
 * Times to send are kept biased by NETEM_T0: the kernel's clock is far
 * from 0 (time since boot) so `now + delay` with a negative jittered
 * delay is still a time before now; tcsim's clock starts at 0, and the bias
 * keeps those times ordered as the kernel orders them. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "codel.h"
#include "netem_dist.h"
#include "qdisc.h"

#define NETEM_DEFAULT_LIMIT 1000
#define NETEM_T0 (1ull << 62)

/* What tc sends (q_netem.c's netlink request): the fixed qopt, then each
 * nested attribute only when tc put it in. The kernel changes only what is
 * present, so `tc qdisc change` keeps the rest. */
struct netem_req {
	struct tc_netem_qopt opt;
	struct tc_netem_corr cor;
	struct tc_netem_reorder reorder;
	struct tc_netem_corrupt corrupt;
	struct tc_netem_rate rate;
	struct tc_netem_slot slot;
	struct tc_netem_gimodel gi;
	struct tc_netem_gemodel ge;
	uint64_t rate64; /* TCA_NETEM_RATE64, sent when >= 2^32 */
	int has_cor, has_reorder, has_corrupt, has_rate, has_slot, ecn;
	int loss_type; /* NETEM_LOSS_UNSPEC, _GI, _GE */
	const int16_t *dist, *slot_dist;
	uint32_t dist_size, slot_dist_size;
};

struct crndstate {
	uint32_t last, rho;
};

enum { CLG_RANDOM, CLG_4_STATES, CLG_GILB_ELL };
enum { TX_IN_GAP_PERIOD = 1, TX_IN_BURST_PERIOD, LOST_IN_GAP_PERIOD, LOST_IN_BURST_PERIOD };
enum { GOOD_STATE = 1, BAD_STATE };

/* One packet of the rb-tree part of the tfifo: a heap ordered as the tree
 * is (time to send, then insertion: an equal time goes right). */
struct tfifo_node {
	uint64_t t, seq;
	struct pkt *p;
};

struct netem_sched_data {
	/* the tfifo: the tree, and the linear list of packets that came in
	 * time order (t_head..t_tail, the kernel's fast path) */
	struct tfifo_node *heap;
	uint32_t nheap, heap_cap;
	uint64_t heap_max; /* the latest time in the tree (its rb_last) */
	uint64_t seq;
	struct pkt_spillq lin; /* a long one keeps its middle on disk (pktspill.h) */
	struct pkt_queue head_q; /* sch->q: reordered packets, sent first */
	uint32_t t_len;		 /* packets in the tfifo (the limit's count) */
	struct qdisc *qdisc;	 /* a grafted child, or NULL: the tfifo alone */
	struct pkt *peeked;	 /* qdisc_peek_dequeued's stash */

	int64_t latency, jitter; /* ns */
	uint32_t loss, ecn, limit, counter, gap, duplicate, reorder, corrupt;
	uint64_t rate; /* bytes/s */
	int32_t packet_overhead, cell_overhead;
	uint32_t cell_size;
	struct crndstate delay_cor, loss_cor, dup_cor, reorder_cor, corrupt_cor;
	const int16_t *delay_dist, *slot_dist;
	uint32_t delay_dist_size, slot_dist_size;
	int loss_model;
	struct {
		uint8_t state;
		uint32_t a1, a2, a3, a4, a5;
	} clg;
	struct tc_netem_slot slot_config;
	struct {
		uint64_t slot_next; /* biased; 0: no slots */
		int32_t packets_left, bytes_left;
	} slot;

	struct netem_req req; /* what tc sent last, for the dump */
	int has_loss_attr;    /* a loss model was ever sent (the dump shows it) */
	struct pkt *dup_of;   /* the packet being duplicated (trace: dup=#id) */
};

/* ---- tc's words (iproute2 6.1 tc/q_netem.c) ---- */

static const char netem_usage[] =
    "Usage: ... netem [ limit PACKETS ] [ delay TIME [ JITTER [CORRELATION]]] "
    "[ distribution {uniform|normal|pareto|paretonormal} ] [ corrupt PERCENT [CORRELATION]] "
    "[ duplicate PERCENT [CORRELATION]] [ loss random PERCENT [CORRELATION]] "
    "[ loss state P13 [P31 [P32 [P23 P14]]] [ loss gemodel PERCENT [R [1-H [1-K]]] [ ecn ] "
    "[ reorder PERCENT [CORRELATION] [ gap DISTANCE ]] "
    "[ rate RATE [PACKETOVERHEAD] [CELLSIZE] [CELLOVERHEAD]] "
    "[ slot MIN_DELAY [MAX_DELAY] [packets MAX_PACKETS] [bytes MAX_BYTES]] "
    "[ slot distribution {uniform|normal|pareto|paretonormal|custom} DELAY JITTER "
    "[packets MAX_PACKETS] [bytes MAX_BYTES]]";

static int netem_matches(const char *w, const char *full)
{
	size_t n = strlen(w);

	return n && n <= strlen(full) && !strncmp(w, full, n);
}

/* explain1: tc's one line for a word it could not read */
static int netem_illegal(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "Illegal \"%s\"", what);
	return -EINVAL;
}

static int netem_incomplete(char *err, size_t errlen)
{
	snprintf(err, errlen, "Command line is not complete. Try option \"help\"");
	return -EINVAL;
}

/* parse_percent: a number of percent, with or without "%", in [0, 100] */
static int netem_parse_percent(double *v, const char *s)
{
	char *end;

	*v = strtod(s, &end) / 100.;
	if (*v > 1.0 || *v < 0.0)
		return -1;
	if (*end && strcmp(end, "%"))
		return -1;
	return 0;
}

/* set_percent: scaled to the u32 the kernel compares its draws with */
static uint32_t netem_percent_u32(double per)
{
	return (uint32_t)rint(per * UINT32_MAX);
}

/* get_ticks: a time in tc's microseconds, sent in 64 ns ticks */
static int netem_get_ticks(uint32_t *ticks, const char *s, char *err, size_t errlen)
{
	uint32_t us;

	if (tc_get_time(&us, s))
		return -1;
	if (((uint64_t)((double)us * (1000.0 / 64.0))) >> 32) {
		snprintf(err, errlen, "Illegal %u time (too large)", us);
		return -2;
	}
	*ticks = tc_core_time2tick(us);
	return 0;
}

/* get_time64: ns; s, ms, us, ns (and their long forms); bare = ns */
static int netem_get_time64(int64_t *ns, const char *s)
{
	static const struct {
		const char *u;
		double mult;
	} units[] = {{"s", 1e9},     {"sec", 1e9},  {"secs", 1e9}, {"ms", 1e6},   {"msec", 1e6},
		     {"msecs", 1e6}, {"us", 1e3},   {"usec", 1e3}, {"usecs", 1e3}, {"ns", 1},
		     {"nsec", 1},    {"nsecs", 1}};
	char *end;
	double v = strtod(s, &end);

	if (end == s)
		return -1;
	if (*end) {
		size_t i;

		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcasecmp(end, units[i].u))
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			return -1;
		v *= units[i].mult;
	}
	*ns = (int64_t)v;
	return 0;
}

/* get_s32 base 0 */
static int netem_get_s32(int32_t *out, const char *s)
{
	long v;
	char *end;

	if (!*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 0);
	if (*end || errno || v > INT32_MAX || v < INT32_MIN)
		return -1;
	*out = (int32_t)v;
	return 0;
}

/* The tables tc reads from its library folder; tcsim computes the three
 * iproute2 generates and refuses the measured one. */
static int netem_get_dist(const int16_t **t, uint32_t *n, const char *name, char *err,
			  size_t errlen)
{
	*t = netem_dist_table(name, n);
	if (*t)
		return 0;
	if (!strcmp(name, "experimental")) {
		snprintf(err, errlen,
			 "netem: distribution \"experimental\" is not modelled (tcsim computes normal, "
			 "pareto and paretonormal)");
		return -EOPNOTSUPP;
	}
	snprintf(err, errlen,
		 "No distribution data for %s (/usr/lib/tc/%s.dist: No such file or directory)",
		 name, name);
	return -ENOENT;
}

#define NEXT_OK() (i + 1 < argc)
#define NEXT_IS_NUMBER() (NEXT_OK() && isdigit((unsigned char)argv[i + 1][0]))
#define NEXT_IS_SIGNED_NUMBER() \
	(NEXT_OK() && (isdigit((unsigned char)argv[i + 1][0]) || argv[i + 1][0] == '-'))
#define NEXT_ARG()                                          \
	do {                                                \
		if (!NEXT_OK())                             \
			return netem_incomplete(err, errlen); \
		i++;                                        \
	} while (0)

/* An optional percent after the word just read (tc's NEXT_IS_NUMBER). */
static int netem_opt_percent(int *i, int argc, char **argv, uint32_t *out, int *present)
{
	double v;

	if (!(*i + 1 < argc && isdigit((unsigned char)argv[*i + 1][0])))
		return 0;
	(*i)++;
	if (netem_parse_percent(&v, argv[*i]))
		return -1;
	*out = netem_percent_u32(v);
	if (present)
		(*present)++;
	return 1;
}

/* netem_parse_opt of iproute2 6.1: its words (by prefix, as matches()
 * takes them), its optional numbers (a word that starts with a digit),
 * its checks and its first message. */
static int netem_parse(struct netem_req *r, int argc, char **argv, char *err, size_t errlen)
{
	int ret;

	memset(r, 0, sizeof(*r));
	r->opt.limit = NETEM_DEFAULT_LIMIT;
	for (int i = 0; i < argc; i++) {
		const char *w = argv[i];

		if (netem_matches(w, "limit")) {
			NEXT_ARG();
			if (tc_get_size(&r->opt.limit, argv[i]))
				return netem_illegal(err, errlen, "limit");
		} else if (netem_matches(w, "latency") || netem_matches(w, "delay")) {
			NEXT_ARG();
			if ((ret = netem_get_ticks(&r->opt.latency, argv[i], err, errlen)))
				return ret == -2 ? -EINVAL : netem_illegal(err, errlen, "latency");
			if (NEXT_IS_NUMBER()) {
				i++;
				if ((ret = netem_get_ticks(&r->opt.jitter, argv[i], err, errlen)))
					return ret == -2 ? -EINVAL : netem_illegal(err, errlen, "latency");
				if (netem_opt_percent(&i, argc, argv, &r->cor.delay_corr, &r->has_cor) < 0)
					return netem_illegal(err, errlen, "latency");
			}
		} else if (netem_matches(w, "loss") || netem_matches(w, "drop")) {
			double p;

			if (r->opt.loss > 0 || r->loss_type != NETEM_LOSS_UNSPEC)
				return netem_illegal(err, errlen, "duplicate loss argument");
			NEXT_ARG();
			if (isdigit((unsigned char)argv[i][0]) || !strcmp(argv[i], "random")) {
				/* the old syntax, a bare percent, is the random model */
				if (!isdigit((unsigned char)argv[i][0]))
					NEXT_ARG();
				if (netem_parse_percent(&p, argv[i]))
					return netem_illegal(err, errlen, "loss percent");
				r->opt.loss = netem_percent_u32(p);
				if (netem_opt_percent(&i, argc, argv, &r->cor.loss_corr, &r->has_cor) < 0)
					return netem_illegal(err, errlen, "loss correllation"); /* sic */
			} else if (!strcmp(argv[i], "state")) {
				uint32_t *next[] = {&r->gi.p31, &r->gi.p32, &r->gi.p23, &r->gi.p14};
				static const char *const names[] = {"loss p31", "loss p32", "loss p23",
								    "loss p14"};

				NEXT_ARG();
				if (netem_parse_percent(&p, argv[i]))
					return netem_illegal(err, errlen, "loss p13");
				r->gi.p13 = netem_percent_u32(p);
				r->gi.p31 = netem_percent_u32(1. - p);
				r->gi.p32 = 0;
				r->gi.p23 = netem_percent_u32(1.);
				r->gi.p14 = 0;
				r->loss_type = NETEM_LOSS_GI;
				for (int k = 0; k < 4; k++) {
					ret = netem_opt_percent(&i, argc, argv, next[k], NULL);
					if (ret < 0)
						return netem_illegal(err, errlen, names[k]);
					if (!ret)
						break;
				}
			} else if (!strcmp(argv[i], "gemodel")) {
				NEXT_ARG();
				if (netem_parse_percent(&p, argv[i]))
					return netem_illegal(err, errlen, "loss gemodel p");
				r->ge.p = netem_percent_u32(p);
				r->ge.r = netem_percent_u32(1. - p);
				r->ge.h = 0;
				r->ge.k1 = 0;
				r->loss_type = NETEM_LOSS_GE;
				ret = netem_opt_percent(&i, argc, argv, &r->ge.r, NULL);
				if (ret < 0)
					return netem_illegal(err, errlen, "loss gemodel r");
				if (ret) {
					ret = netem_opt_percent(&i, argc, argv, &r->ge.h, NULL);
					if (ret < 0)
						return netem_illegal(err, errlen, "loss gemodel h");
					/* tc's word is 1-h, the kernel takes h */
					if (ret)
						r->ge.h = UINT32_MAX - r->ge.h;
				}
				if (ret) {
					ret = netem_opt_percent(&i, argc, argv, &r->ge.k1, NULL);
					if (ret < 0)
						return netem_illegal(err, errlen, "loss gemodel k");
				}
			} else {
				snprintf(err, errlen, "Unknown loss parameter: %s", argv[i]);
				return -EINVAL;
			}
		} else if (netem_matches(w, "ecn")) {
			r->ecn = 1;
		} else if (netem_matches(w, "reorder") || netem_matches(w, "corrupt")) {
			int reorder = netem_matches(w, "reorder");
			uint32_t *prob = reorder ? &r->reorder.probability : &r->corrupt.probability;
			uint32_t *corr = reorder ? &r->reorder.correlation : &r->corrupt.correlation;
			double p;

			NEXT_ARG();
			*(reorder ? &r->has_reorder : &r->has_corrupt) = 1;
			if (netem_parse_percent(&p, argv[i]))
				return netem_illegal(err, errlen, reorder ? "reorder" : "corrupt");
			*prob = netem_percent_u32(p);
			if (netem_opt_percent(&i, argc, argv, corr, &r->has_cor) < 0)
				return netem_illegal(err, errlen, reorder ? "reorder" : "corrupt");
		} else if (netem_matches(w, "gap")) {
			NEXT_ARG();
			if (tc_get_u32(&r->opt.gap, argv[i], 0))
				return netem_illegal(err, errlen, "gap");
		} else if (netem_matches(w, "duplicate")) {
			double p;

			NEXT_ARG();
			if (netem_parse_percent(&p, argv[i]))
				return netem_illegal(err, errlen, "duplicate");
			r->opt.duplicate = netem_percent_u32(p);
			/* tc 6.1 reads a correlation here but does not count it as
			 * present: alone, it is not sent */
			if (netem_opt_percent(&i, argc, argv, &r->cor.dup_corr, NULL) < 0)
				return netem_illegal(err, errlen, "duplicate");
		} else if (netem_matches(w, "distribution")) {
			NEXT_ARG();
			if ((ret = netem_get_dist(&r->dist, &r->dist_size, argv[i], err, errlen)))
				return ret;
		} else if (netem_matches(w, "rate")) {
			r->has_rate = 1;
			NEXT_ARG();
			if (strchr(argv[i], '%')) {
				snprintf(err, errlen,
					 "netem: a rate in percent of the device's speed is not modelled "
					 "(\"%s\"): give it in bits or bytes per second",
					 argv[i]);
				return -EOPNOTSUPP;
			}
			if (tc_get_rate64(&r->rate64, argv[i]))
				return netem_illegal(err, errlen, "rate");
			if (NEXT_IS_SIGNED_NUMBER()) {
				i++;
				if (netem_get_s32(&r->rate.packet_overhead, argv[i]))
					return netem_illegal(err, errlen, "rate");
			}
			if (NEXT_IS_NUMBER()) {
				i++;
				if (tc_get_u32(&r->rate.cell_size, argv[i], 0))
					return netem_illegal(err, errlen, "rate");
			}
			if (NEXT_IS_SIGNED_NUMBER()) {
				i++;
				if (netem_get_s32(&r->rate.cell_overhead, argv[i]))
					return netem_illegal(err, errlen, "rate");
			}
		} else if (netem_matches(w, "slot")) {
			int64_t v;

			if (NEXT_IS_NUMBER()) {
				i++;
				r->has_slot = 1;
				if (netem_get_time64(&v, argv[i]))
					return netem_illegal(err, errlen, "slot min_delay");
				r->slot.min_delay = v;
				if (NEXT_IS_NUMBER()) {
					i++;
					if (netem_get_time64(&v, argv[i]) || v < r->slot.min_delay)
						return netem_illegal(err, errlen, "slot max_delay");
					r->slot.max_delay = v;
				} else {
					r->slot.max_delay = r->slot.min_delay;
				}
			} else {
				NEXT_ARG();
				if (strcmp(argv[i], "distribution")) {
					snprintf(err, errlen, "Unknown slot parameter: %s", argv[i]);
					return -EINVAL;
				}
				r->has_slot = 1;
				NEXT_ARG();
				if ((ret = netem_get_dist(&r->slot_dist, &r->slot_dist_size, argv[i], err,
							  errlen)))
					return ret;
				NEXT_ARG();
				if (netem_get_time64(&v, argv[i]))
					return netem_illegal(err, errlen, "slot delay");
				r->slot.dist_delay = v;
				NEXT_ARG();
				if (netem_get_time64(&v, argv[i]))
					return netem_illegal(err, errlen, "slot jitter");
				r->slot.dist_jitter = v;
				if (r->slot.dist_jitter <= 0) {
					snprintf(err, errlen, "Non-positive jitter");
					return -EINVAL;
				}
			}
			if (NEXT_OK() && netem_matches(argv[i + 1], "packets")) {
				i++;
				if (!NEXT_OK() || netem_get_s32(&r->slot.max_packets, argv[i + 1]))
					return netem_illegal(err, errlen, "slot packets");
				i++;
			}
			if (NEXT_OK() && netem_matches(argv[i + 1], "bytes")) {
				uint32_t b;

				i++;
				if (!NEXT_OK() || tc_get_size(&b, argv[i + 1]))
					return netem_illegal(err, errlen, "slot bytes");
				r->slot.max_bytes = (int32_t)b;
				i++;
			}
		} else if (!strcmp(w, "help")) {
			snprintf(err, errlen, "%s", netem_usage);
			return -EINVAL;
		} else {
			snprintf(err, errlen, "What is \"%s\"? %s", w, netem_usage);
			return -EINVAL;
		}
	}

	if (r->reorder.probability) {
		if (!r->opt.latency) {
			snprintf(err, errlen, "reordering not possible without specifying some delay %s",
				 netem_usage);
			return -EINVAL;
		}
		if (!r->opt.gap)
			r->opt.gap = 1;
	} else if (r->opt.gap > 0) {
		snprintf(err, errlen, "gap specified without reorder probability %s", netem_usage);
		return -EINVAL;
	}
	if (r->ecn && !r->opt.loss && r->loss_type == NETEM_LOSS_UNSPEC) {
		snprintf(err, errlen, "ecn requested without loss model %s", netem_usage);
		return -EINVAL;
	}
	if (r->dist && (!r->opt.latency || !r->opt.jitter)) {
		snprintf(err, errlen, "distribution specified but no latency and jitter values %s",
			 netem_usage);
		return -EINVAL;
	}
	if (r->has_rate) {
		r->rate.rate = r->rate64 >= (1ull << 32) ? ~0u : (uint32_t)r->rate64;
		if (r->rate64 < (1ull << 32))
			r->rate64 = 0;
	}
	return 0;
}

/* ---- the kernel's random numbers, from the simulation's generator ---- */

static uint32_t netem_prandom(const struct qdisc *q)
{
	return (uint32_t)(q->env->random(q->env->arg) >> 32);
}

/* init_crandom */
static void netem_init_crandom(struct qdisc *q, struct crndstate *s, uint32_t rho)
{
	s->rho = rho;
	s->last = netem_prandom(q);
}

/* get_crandom: the next value leans on the last by rho / 2^32 */
static uint32_t netem_crandom(struct qdisc *q, struct crndstate *s)
{
	uint64_t value, rho;
	uint32_t answer;

	if (!s || !s->rho)
		return netem_prandom(q);
	value = netem_prandom(q);
	rho = (uint64_t)s->rho + 1;
	answer = (uint32_t)((value * ((1ull << 32) - rho) + s->last * rho) >> 32);
	s->last = answer;
	return answer;
}

/* loss_4state as 6.1 has it: a draw that equals a boundary exactly
 * changes nothing (fixed upstream in 2026), the sums wrap in 32 bits. The
 * answer is whether the chain moved into a loss state. */
static int netem_loss_4state(struct qdisc *q)
{
	struct netem_sched_data *nd = q->priv;
	uint32_t rnd = netem_prandom(q);

	switch (nd->clg.state) {
	case TX_IN_GAP_PERIOD:
		if (rnd < nd->clg.a4) {
			nd->clg.state = LOST_IN_GAP_PERIOD;
			return 1;
		} else if (nd->clg.a4 < rnd && rnd < nd->clg.a1 + nd->clg.a4) {
			nd->clg.state = LOST_IN_BURST_PERIOD;
			return 1;
		} else if (nd->clg.a1 + nd->clg.a4 < rnd) {
			nd->clg.state = TX_IN_GAP_PERIOD;
		}
		break;
	case TX_IN_BURST_PERIOD:
		if (rnd < nd->clg.a5) {
			nd->clg.state = LOST_IN_BURST_PERIOD;
			return 1;
		}
		nd->clg.state = TX_IN_BURST_PERIOD;
		break;
	case LOST_IN_BURST_PERIOD:
		if (rnd < nd->clg.a3) {
			nd->clg.state = TX_IN_BURST_PERIOD;
		} else if (nd->clg.a3 < rnd && rnd < nd->clg.a2 + nd->clg.a3) {
			nd->clg.state = TX_IN_GAP_PERIOD;
		} else if (nd->clg.a2 + nd->clg.a3 < rnd) {
			nd->clg.state = LOST_IN_BURST_PERIOD;
			return 1;
		}
		break;
	case LOST_IN_GAP_PERIOD:
		nd->clg.state = TX_IN_GAP_PERIOD;
		break;
	}
	return 0;
}

/* loss_gilb_ell: the state moves first, the loss is drawn with the
 * probability of the state the packet found (1-k good, 1-h bad) */
static int netem_loss_gilb_ell(struct qdisc *q)
{
	struct netem_sched_data *nd = q->priv;

	switch (nd->clg.state) {
	case GOOD_STATE:
		if (netem_prandom(q) < nd->clg.a1)
			nd->clg.state = BAD_STATE;
		if (netem_prandom(q) < nd->clg.a4)
			return 1;
		break;
	case BAD_STATE:
		if (netem_prandom(q) < nd->clg.a2)
			nd->clg.state = GOOD_STATE;
		if (netem_prandom(q) > nd->clg.a3)
			return 1;
		break;
	}
	return 0;
}

static int netem_loss_event(struct qdisc *q)
{
	struct netem_sched_data *nd = q->priv;

	switch (nd->loss_model) {
	case CLG_4_STATES: return netem_loss_4state(q);
	case CLG_GILB_ELL: return netem_loss_gilb_ell(q);
	default: return nd->loss && nd->loss >= netem_crandom(q, &nd->loss_cor);
	}
}

/* tabledist: mu + sigma * table[rnd % size] / NETEM_DIST_SCALE, in two
 * parts so that the product cannot overflow, rounded half away from 0;
 * without a table, uniform in [mu - sigma, mu + sigma) */
static int64_t netem_tabledist(struct qdisc *q, int64_t mu, int32_t sigma, struct crndstate *s,
			       const int16_t *dist, uint32_t size)
{
	int64_t x;
	long t;
	uint32_t rnd;

	if (!sigma)
		return mu;
	rnd = netem_crandom(q, s);
	if (!dist)
		return (int64_t)(rnd % (2 * (uint32_t)sigma)) + mu - sigma;
	t = dist[rnd % size];
	x = (int64_t)(sigma % NETEM_DIST_SCALE) * t;
	if (x >= 0)
		x += NETEM_DIST_SCALE / 2;
	else
		x -= NETEM_DIST_SCALE / 2;
	return x / NETEM_DIST_SCALE + (int64_t)(sigma / NETEM_DIST_SCALE) * t + mu;
}

/* packet_time_ns: the time `rate` takes for len bytes, with the per-packet
 * overhead and, with a cell size, whole cells of cell_size + cell_overhead */
static uint64_t netem_packet_time_ns(uint64_t len, const struct netem_sched_data *nd)
{
	len += (uint64_t)(int64_t)nd->packet_overhead;
	if (nd->cell_size) {
		uint32_t l32 = (uint32_t)len, cells = l32 / nd->cell_size;

		if (len > (uint64_t)(uint32_t)(cells * nd->cell_size))
			cells++;
		len = (uint64_t)(uint32_t)(cells * (nd->cell_size + (uint32_t)nd->cell_overhead));
	}
	return len * NSEC_PER_SEC / nd->rate;
}

/* get_slot_next: the next slot opens after a delay drawn uniformly in
 * [min_delay, max_delay) or from the slot table, with fresh budgets */
static void netem_slot_next(struct qdisc *q, uint64_t now)
{
	struct netem_sched_data *nd = q->priv;
	int64_t next;

	if (!nd->slot_dist)
		next = nd->slot_config.min_delay +
		       (((int64_t)netem_prandom(q) *
			 (nd->slot_config.max_delay - nd->slot_config.min_delay)) >> 32);
	else
		next = netem_tabledist(q, nd->slot_config.dist_delay,
				       (int32_t)nd->slot_config.dist_jitter, NULL, nd->slot_dist,
				       nd->slot_dist_size);
	nd->slot.slot_next = now + (uint64_t)next;
	nd->slot.packets_left = nd->slot_config.max_packets;
	nd->slot.bytes_left = nd->slot_config.max_bytes;
}

static uint64_t netem_now(const struct qdisc *q)
{
	return q->env->now(q->env->arg) + NETEM_T0;
}

/* ---- configuration: netem_change of the kernel ---- */

static void netem_apply(struct qdisc *q, const struct netem_req *r)
{
	struct netem_sched_data *nd = q->priv;

	if (r->loss_type == NETEM_LOSS_GI) {
		nd->loss_model = CLG_4_STATES;
		nd->clg.state = TX_IN_GAP_PERIOD;
		nd->clg.a1 = r->gi.p13;
		nd->clg.a2 = r->gi.p31;
		nd->clg.a3 = r->gi.p32;
		nd->clg.a4 = r->gi.p14;
		nd->clg.a5 = r->gi.p23;
	} else if (r->loss_type == NETEM_LOSS_GE) {
		nd->loss_model = CLG_GILB_ELL;
		nd->clg.state = GOOD_STATE;
		nd->clg.a1 = r->ge.p;
		nd->clg.a2 = r->ge.r;
		nd->clg.a3 = r->ge.h;
		nd->clg.a4 = r->ge.k1;
	} else {
		pktsq_init(&nd->lin, &q->env->spill);
	nd->loss_model = CLG_RANDOM;
	}
	if (r->dist) {
		nd->delay_dist = r->dist;
		nd->delay_dist_size = r->dist_size;
	}
	if (r->slot_dist) {
		nd->slot_dist = r->slot_dist;
		nd->slot_dist_size = r->slot_dist_size;
	}
	nd->limit = r->opt.limit;
	nd->latency = (int64_t)PSCHED_TICKS2NS(r->opt.latency);
	nd->jitter = (int64_t)PSCHED_TICKS2NS(r->opt.jitter);
	nd->gap = r->opt.gap;
	nd->counter = 0;
	nd->loss = r->opt.loss;
	nd->duplicate = r->opt.duplicate;
	/* for compatibility with earlier versions: a gap alone is 100% */
	if (nd->gap)
		nd->reorder = ~0u;
	if (r->has_cor) {
		netem_init_crandom(q, &nd->delay_cor, r->cor.delay_corr);
		netem_init_crandom(q, &nd->loss_cor, r->cor.loss_corr);
		netem_init_crandom(q, &nd->dup_cor, r->cor.dup_corr);
	}
	if (r->has_reorder) {
		nd->reorder = r->reorder.probability;
		netem_init_crandom(q, &nd->reorder_cor, r->reorder.correlation);
	}
	if (r->has_corrupt) {
		nd->corrupt = r->corrupt.probability;
		netem_init_crandom(q, &nd->corrupt_cor, r->corrupt.correlation);
	}
	if (r->has_rate) {
		nd->rate = r->rate.rate;
		nd->packet_overhead = r->rate.packet_overhead;
		nd->cell_size = r->rate.cell_size;
		nd->cell_overhead = r->rate.cell_overhead;
		if (r->rate64 > nd->rate)
			nd->rate = r->rate64;
	}
	if (r->ecn)
		nd->ecn = 1;
	if (r->has_slot) {
		nd->slot_config = r->slot;
		if (!nd->slot_config.max_packets)
			nd->slot_config.max_packets = INT_MAX;
		if (!nd->slot_config.max_bytes)
			nd->slot_config.max_bytes = INT_MAX;
		if (nd->slot_config.dist_jitter < 0)
			nd->slot_config.dist_jitter = -nd->slot_config.dist_jitter;
		if (nd->slot_config.dist_jitter > INT_MAX)
			nd->slot_config.dist_jitter = INT_MAX;
		nd->slot.packets_left = nd->slot_config.max_packets;
		nd->slot.bytes_left = nd->slot_config.max_bytes;
		if (nd->slot_config.min_delay | nd->slot_config.max_delay |
		    nd->slot_config.dist_jitter)
			nd->slot.slot_next = netem_now(q);
		else
			nd->slot.slot_next = 0;
	}
	/* capped to what tabledist takes */
	if (nd->jitter < 0)
		nd->jitter = -nd->jitter;
	if (nd->jitter > INT_MAX)
		nd->jitter = INT_MAX;
	nd->req = *r;
}

/* check_netem_in_tree (2025: 6.16, backported to the stable kernels; the
 * qemu oracle's 6.1.192 has it): a netem that duplicates
 * may not share the device's tree with another netem, nor may any netem
 * join a tree where one duplicates, on creation and on every change. */
extern const struct qdisc_ops netem_qdisc_ops;

struct netem_tree_ctx {
	const struct qdisc *self;
	int duplicates, clash;
};

static void netem_tree_visit(struct qdisc *q, void *arg)
{
	struct netem_tree_ctx *ctx = arg;

	if (q != ctx->self && q->ops == &netem_qdisc_ops &&
	    (ctx->duplicates || ((const struct netem_sched_data *)q->priv)->duplicate))
		ctx->clash = 1;
}

static int netem_check_tree(struct qdisc *q, uint32_t duplicate, char *err, size_t errlen)
{
	struct netem_tree_ctx ctx = {.self = q, .duplicates = duplicate != 0};

	if (q->env->kernel == BPF_KERNEL_3_13 || !q->env->root)
		return 0;
	qdisc_for_each(*q->env->root, netem_tree_visit, &ctx);
	if (!ctx.clash)
		return 0;
	snprintf(err, errlen, "Error: netem: cannot mix duplicating netems with other netems in tree.");
	return -EINVAL;
}

static int netem_change(struct qdisc *q, int argc, char **argv, char *err, size_t errlen)
{
	struct netem_req r;
	int ret = netem_parse(&r, argc, argv, err, errlen);

	if (!ret)
		ret = netem_check_tree(q, r.opt.duplicate, err, errlen);
	if (!ret)
		netem_apply(q, &r);
	return ret;
}

static int netem_init(struct qdisc *q, int argc, char **argv, char *err, size_t errlen)
{
	struct netem_sched_data *nd = q->priv;

	nd->loss_model = CLG_RANDOM;
	return netem_change(q, argc, argv, err, errlen);
}

/* ---- the tfifo ---- */

/* Room for one more in the tree, made before a packet is taken (as the
 * kernel's skb is allocated before it is queued): 0 or -ENOMEM. */
static int tfifo_heap_reserve(struct netem_sched_data *nd)
{
	if (nd->nheap == nd->heap_cap) {
		uint32_t cap = nd->heap_cap ? nd->heap_cap * 2 : 64;
		struct tfifo_node *v = realloc(nd->heap, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		nd->heap = v;
		nd->heap_cap = cap;
	}
	return 0;
}

static void tfifo_heap_push(struct netem_sched_data *nd, struct pkt *p, uint64_t t)
{
	uint32_t i;

	if (!nd->nheap || t > nd->heap_max)
		nd->heap_max = t;
	i = nd->nheap++;
	nd->heap[i] = (struct tfifo_node){.t = t, .seq = nd->seq++, .p = p};
	while (i > 0) {
		uint32_t up = (i - 1) / 2;
		struct tfifo_node tmp;

		if (nd->heap[up].t < t || (nd->heap[up].t == t && nd->heap[up].seq < nd->heap[i].seq))
			break;
		tmp = nd->heap[up];
		nd->heap[up] = nd->heap[i];
		nd->heap[i] = tmp;
		i = up;
	}
}

static int tfifo_before(const struct tfifo_node *a, const struct tfifo_node *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static struct pkt *tfifo_heap_pop(struct netem_sched_data *nd)
{
	struct pkt *p = nd->heap[0].p;
	uint32_t i = 0;

	nd->heap[0] = nd->heap[--nd->nheap];
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;
		struct tfifo_node tmp;

		if (l < nd->nheap && tfifo_before(&nd->heap[l], &nd->heap[m]))
			m = l;
		if (r < nd->nheap && tfifo_before(&nd->heap[r], &nd->heap[m]))
			m = r;
		if (m == i)
			break;
		tmp = nd->heap[i];
		nd->heap[i] = nd->heap[m];
		nd->heap[m] = tmp;
		i = m;
	}
	return p;
}

/* tfifo_enqueue: a packet no earlier than the linear list's tail joins
 * it; an earlier one goes into the tree */
static void tfifo_enqueue(struct netem_sched_data *nd, struct pkt *p)
{
	const struct pkt *tail = pktsq_tail(&nd->lin);

	if (!tail || p->t_cb >= tail->t_cb)
		pktsq_push_tail(&nd->lin, p);
	else
		tfifo_heap_push(nd, p, p->t_cb);
	nd->t_len++;
}

/* netem_peek: the tree's first unless the list's head is no later */
static struct pkt *tfifo_peek(const struct netem_sched_data *nd)
{
	struct pkt *t = nd->nheap ? nd->heap[0].p : NULL;
	struct pkt *h = (struct pkt *)pktsq_head(&nd->lin);

	if (!t)
		return h;
	if (!h)
		return t;
	return t->t_cb < h->t_cb ? t : h;
}

static void tfifo_erase(struct netem_sched_data *nd, struct pkt *p)
{
	if (p == pktsq_head(&nd->lin))
		pktsq_pop_head(&nd->lin);
	else
		tfifo_heap_pop(nd);
	nd->t_len--;
}

/* ---- enqueue ---- */

static struct qdisc *netem_root(struct qdisc *q)
{
	while (q->parent_q)
		q = q->parent_q;
	return q;
}

static void netem_trace_enqueue(struct qdisc *q, const struct pkt *p, int64_t delay, int flags,
				const struct pkt *dup)
{
	struct qtrace ev = {.kind = QTRACE_ENQUEUE, .band = -1, .has_netem = 1};

	ev.until = p->t_cb - NETEM_T0 > (uint64_t)INT64_MAX ? 0 : p->t_cb - NETEM_T0;
	ev.netem_delay = delay;
	ev.netem_flags = flags;
	ev.dup_id = dup ? dup->id : 0;
	qdisc_trace(q, p, &ev);
}

static int netem_enqueue(struct qdisc *q, struct pkt *p)
{
	struct netem_sched_data *nd = q->priv;
	struct pkt *dup = NULL;
	int count = 1, flags = 0;
	int64_t delay = 0;
	uint64_t now;

	if (nd->duplicate && nd->duplicate >= netem_crandom(q, &nd->dup_cor))
		++count;
	if (netem_loss_event(q)) {
		if (nd->ecn && codel_set_ce(p)) {
			q->s.drops++; /* marked, and counted as a drop */
			flags |= NETEM_TR_ECN;
		} else {
			--count;
		}
	}
	if (!count) {
		/* NET_XMIT_SUCCESS | __NET_XMIT_BYPASS: a drop for the parents
		 * (net_xmit_drop_count), as NET_XMIT_DROP is to tcsim's */
		return qdisc_drop(q, p, DROP_NETEM_LOSS);
	}
	/* the copy is taken now, before corruption, and queued at the root
	 * once the original is in (the 2024 fix of the return value) */
	if (count > 1 && q->env->clone) {
		dup = q->env->clone(q->env->arg, p);
		if (dup)
			flags |= NETEM_TR_DUP;
	}
	if (nd->corrupt && nd->corrupt >= netem_crandom(q, &nd->corrupt_cor)) {
		/* prandom_u32_max(skb_headlen): one bit of the linear data */
		if (p->caplen) {
			uint32_t at = (uint32_t)(((uint64_t)netem_prandom(q) * p->caplen) >> 32);
			uint32_t bit = (uint32_t)(((uint64_t)netem_prandom(q) * 8) >> 32);

			p->data[at] ^= (uint8_t)(1u << bit);
		}
		flags |= NETEM_TR_CORRUPT;
	}
	/* out of memory for the tree: dropped as over the limit (the kernel
	 * would have failed earlier, allocating the skb) */
	if (nd->t_len >= nd->limit || tfifo_heap_reserve(nd)) {
		if (dup) {
			dup->drop = DROP_QDISC_LIMIT;
			q->env->drop(q->env->arg, dup);
		}
		return qdisc_drop(q, p, DROP_QDISC_LIMIT);
	}
	now = netem_now(q);
	if (!nd->gap || nd->counter < nd->gap - 1 ||
	    nd->reorder < netem_crandom(q, &nd->reorder_cor)) {
		delay = netem_tabledist(q, nd->latency, (int32_t)nd->jitter, &nd->delay_cor,
					nd->delay_dist, nd->delay_dist_size);
		if (nd->rate) {
			const struct pkt *last = nd->head_q.tail;
			uint64_t last_t = last ? last->t_cb : 0;

			if (nd->nheap && (!last || nd->heap_max > last_t)) {
				last = nd->heap[0].p;
				last_t = nd->heap_max;
			}
			const struct pkt *lin_tail = pktsq_tail(&nd->lin);

			if (lin_tail && (!last || lin_tail->t_cb > last_t)) {
				last = lin_tail;
				last_t = lin_tail->t_cb;
			}
			if (last) {
				/* the last packet's time is the reference: what is left
				 * of the delay after it, at least 0 */
				delay -= (int64_t)(last_t - now);
				if (delay < 0)
					delay = 0;
				now = last_t;
			}
			delay += (int64_t)netem_packet_time_ns(p->len, nd);
		}
		p->t_cb = now + (uint64_t)delay;
		++nd->counter;
		tfifo_enqueue(nd, p);
	} else {
		/* reordering: sent now, ahead of everything waiting */
		p->t_cb = now;
		nd->counter = 0;
		p->next = nd->head_q.head;
		p->prev = NULL;
		if (nd->head_q.head)
			nd->head_q.head->prev = p;
		else
			nd->head_q.tail = p;
		nd->head_q.head = p;
		nd->head_q.len++;
		q->s.requeues++;
		flags |= NETEM_TR_REORDER;
	}
	qdisc_enqueued(q, p);
	if (p->traced)
		netem_trace_enqueue(q, p, (int64_t)(p->t_cb - netem_now(q)), flags, dup);
	if (dup) {
		struct qdisc *root = netem_root(q);
		uint32_t save = nd->duplicate; /* a duplicate is not duplicated again */

		nd->duplicate = 0;
		nd->dup_of = p;
		root->ops->enqueue(root, dup);
		nd->dup_of = NULL;
		nd->duplicate = save;
	}
	return NET_XMIT_SUCCESS;
}

/* ---- dequeue ---- */

static struct pkt *netem_deliver(struct qdisc *q, struct pkt *p)
{
	qdisc_dequeued(q, p);
	return p;
}

static struct pkt *netem_dequeue_tfifo(struct qdisc *q)
{
	struct netem_sched_data *nd = q->priv;
	struct pkt *p;

	for (;;) {
		uint64_t tts, now;

		p = nd->head_q.head;
		if (p) {
			nd->head_q.head = p->next;
			if (!nd->head_q.head)
				nd->head_q.tail = NULL;
			nd->head_q.len--;
			p->next = p->prev = NULL;
			return netem_deliver(q, p);
		}
		p = tfifo_peek(nd);
		if (!p)
			break;
		now = netem_now(q);
		tts = p->t_cb;
		if (nd->slot.slot_next && nd->slot.slot_next < tts)
			netem_slot_next(q, now);
		if (tts <= now && nd->slot.slot_next <= now) {
			tfifo_erase(nd, p);
			if (nd->slot.slot_next) {
				nd->slot.packets_left--;
				nd->slot.bytes_left -= (int32_t)p->len;
				if (nd->slot.packets_left <= 0 || nd->slot.bytes_left <= 0)
					netem_slot_next(q, now);
			}
			if (nd->qdisc) {
				uint32_t len = p->len;
				int err = nd->qdisc->ops->enqueue(nd->qdisc, p);

				if (err != NET_XMIT_SUCCESS && err != NET_XMIT_CN) {
					/* the child refused it: gone from netem and above */
					q->s.drops++;
					q->s.qlen--;
					q->s.backlog -= len;
					qdisc_tree_reduce_backlog(q, 1, len);
				}
				continue;
			}
			return netem_deliver(q, p);
		}
		if (nd->qdisc && (p = nd->qdisc->ops->dequeue(nd->qdisc)))
			return netem_deliver(q, p);
		qdisc_watchdog_schedule_ns(q, (tts > nd->slot.slot_next ? tts : nd->slot.slot_next) -
						  NETEM_T0);
		break;
	}
	if (nd->qdisc && (p = nd->qdisc->ops->dequeue(nd->qdisc)))
		return netem_deliver(q, p);
	return NULL;
}

static struct pkt *netem_dequeue(struct qdisc *q)
{
	struct netem_sched_data *nd = q->priv;
	struct pkt *p = nd->peeked;

	if (!p)
		return netem_dequeue_tfifo(q);
	/* qdisc_dequeue_peeked: counted in bstats when it was peeked */
	nd->peeked = NULL;
	q->s.qlen--;
	q->s.backlog -= p->len;
	return p;
}

/* qdisc_peek_dequeued (netem's .peek): dequeue and hold */
static const struct pkt *netem_peek(struct qdisc *q)
{
	struct netem_sched_data *nd = q->priv;

	if (!nd->peeked) {
		nd->peeked = netem_dequeue_tfifo(q);
		if (nd->peeked) {
			q->s.qlen++;
			q->s.backlog += nd->peeked->len;
		}
	}
	return nd->peeked;
}

static const struct pkt *netem_head(const struct qdisc *q)
{
	const struct netem_sched_data *nd = q->priv;

	if (nd->peeked)
		return nd->peeked;
	if (nd->head_q.head)
		return nd->head_q.head;
	if (nd->qdisc && nd->qdisc->ops->head) {
		const struct pkt *c = nd->qdisc->ops->head(nd->qdisc);

		if (c)
			return c;
	}
	return tfifo_peek(nd);
}

static void netem_free_pkt(struct qdisc *q, struct pkt *p)
{
	p->drop = DROP_QDISC_DESTROY;
	q->env->drop(q->env->arg, p);
}

static void netem_reset(struct qdisc *q)
{
	struct netem_sched_data *nd = q->priv;
	struct pkt *p;

	if (nd->peeked) {
		netem_free_pkt(q, nd->peeked);
		nd->peeked = NULL;
	}
	while ((p = pktq_pop_head(&nd->head_q)))
		netem_free_pkt(q, p);
	while ((p = pktsq_pop_head(&nd->lin)))
		netem_free_pkt(q, p);
	while (nd->nheap)
		netem_free_pkt(q, tfifo_heap_pop(nd));
	nd->t_len = 0;
	if (nd->qdisc && nd->qdisc->ops->reset)
		nd->qdisc->ops->reset(nd->qdisc);
	q->s.qlen = 0;
	q->s.backlog = 0;
	qdisc_watchdog_cancel(q);
}

static void netem_destroy(struct qdisc *q)
{
	struct netem_sched_data *nd = q->priv;

	qdisc_watchdog_cancel(q);
	qdisc_destroy(nd->qdisc);
	nd->qdisc = NULL;
	free(nd->heap);
	nd->heap = NULL;
	pktsq_free(&nd->lin);
}

/* ---- tc qdisc show: netem_dump of the kernel read by netem_print_opt of
 * iproute2 6.1 ---- */

/* q_netem.c's percent: text in percentage points, JSON a fraction */
static void netem_pct(struct tcprint *p, const char *key, const char *label, uint32_t v)
{
	char fmt[64];

	snprintf(fmt, sizeof(fmt), "%s %%g%%%%", label);
	pr_float(p, PR_TEXT, NULL, fmt, (100. * v) / UINT32_MAX);
	pr_float(p, PR_JSON, key, NULL, (1. * v) / UINT32_MAX);
}

/* a correlation: text only when present, JSON always */
static void netem_corr(struct tcprint *p, int present, uint32_t v)
{
	if (present || pr_is_json(p))
		netem_pct(p, "correlation", "", v);
}

static void netem_time64(char *b, int64_t t)
{
	double ns = (double)t;

	if (t >= 1000000000)
		snprintf(b, TC_SPRINT_BSIZE, "%.3gs", ns / 1e9);
	else if (t >= 1000000)
		snprintf(b, TC_SPRINT_BSIZE, "%.3gms", ns / 1e6);
	else if (t >= 1000)
		snprintf(b, TC_SPRINT_BSIZE, "%.3gus", ns / 1e3);
	else
		snprintf(b, TC_SPRINT_BSIZE, "%lldns", (long long)t);
}

/* a slot's time: text as sprint_time64, JSON in seconds */
static void netem_pr_time64(struct tcprint *p, const char *key, const char *fmt, int64_t t)
{
	char b[TC_SPRINT_BSIZE];

	netem_time64(b, t);
	pr_string(p, PR_TEXT, NULL, fmt, b);
	pr_float(p, PR_JSON, key, NULL, (double)t / 1000000000.);
}

/* an int printed only when non-zero, always in JSON (PRINT_INT_OPT) */
static void netem_int_opt(struct tcprint *p, const char *key, const char *fmt, int v)
{
	pr_int(p, PR_ANY, key, v ? fmt : "", v);
}

static void netem_dump(const struct qdisc *q, struct tcprint *p, int details)
{
	const struct netem_sched_data *nd = q->priv;
	uint64_t lat = PSCHED_NS2TICKS((uint64_t)nd->latency), jit = PSCHED_NS2TICKS((uint64_t)nd->jitter);
	uint32_t latency = lat > UINT32_MAX ? UINT32_MAX : (uint32_t)lat;
	uint32_t jitter = jit > UINT32_MAX ? UINT32_MAX : (uint32_t)jit;
	char b[TC_SPRINT_BSIZE];

	pr_int(p, PR_ANY, "limit", "limit %d", (int)nd->limit);
	if (latency) {
		pr_open_object(p, "delay");
		pr_string(p, PR_TEXT, NULL, " delay %s",
			  tc_sprint_time(tc_core_tick2time(latency), b));
		if (jitter)
			pr_string(p, PR_TEXT, NULL, "  %s",
				  tc_sprint_time(tc_core_tick2time(jitter), b));
		pr_float(p, PR_JSON, "delay", NULL, tc_core_tick2time(latency) / 1000000.);
		pr_float(p, PR_JSON, "jitter", NULL, tc_core_tick2time(jitter) / 1000000.);
		netem_corr(p, jitter && nd->delay_cor.rho, nd->delay_cor.rho);
		pr_close_object(p);
	}
	if (nd->loss) {
		pr_open_object(p, "loss-random");
		netem_pct(p, "loss", " loss", nd->loss);
		netem_corr(p, nd->loss_cor.rho != 0, nd->loss_cor.rho);
		pr_close_object(p);
	}
	if (nd->loss_model == CLG_4_STATES) {
		pr_open_object(p, "loss-state");
		netem_pct(p, "p13", " loss state p13", nd->clg.a1);
		netem_pct(p, "p31", " p31", nd->clg.a2);
		netem_pct(p, "p32", " p32", nd->clg.a3);
		netem_pct(p, "p23", " p23", nd->clg.a5);
		netem_pct(p, "p14", " p14", nd->clg.a4);
		pr_close_object(p);
	} else if (nd->loss_model == CLG_GILB_ELL) {
		pr_open_object(p, "loss-gemodel");
		netem_pct(p, "p", " loss gemodel p", nd->clg.a1);
		netem_pct(p, "r", " r", nd->clg.a2);
		netem_pct(p, "1-h", " 1-h", UINT32_MAX - nd->clg.a3);
		netem_pct(p, "1-k", " 1-k", nd->clg.a4);
		pr_close_object(p);
	}
	if (nd->duplicate) {
		pr_open_object(p, "duplicate");
		netem_pct(p, "duplicate", " duplicate", nd->duplicate);
		netem_corr(p, nd->dup_cor.rho != 0, nd->dup_cor.rho);
		pr_close_object(p);
	}
	if (nd->reorder) {
		pr_open_object(p, "reorder");
		netem_pct(p, "reorder", " reorder", nd->reorder);
		netem_corr(p, nd->reorder_cor.rho != 0, nd->reorder_cor.rho);
		pr_close_object(p);
	}
	if (nd->corrupt) {
		pr_open_object(p, "corrupt");
		netem_pct(p, "corrupt", " corrupt", nd->corrupt);
		netem_corr(p, nd->corrupt_cor.rho != 0, nd->corrupt_cor.rho);
		pr_close_object(p);
	}
	if (nd->rate) {
		/* the dump's 32-bit rate is ~0 when RATE64 carries it */
		pr_open_object(p, "rate");
		pr_rate(p, PR_ANY, "rate", " rate %s", nd->rate);
		netem_int_opt(p, "packetoverhead", " packetoverhead %d", nd->packet_overhead);
		pr_uint(p, PR_ANY, "cellsize", nd->cell_size ? " cellsize %u" : "", nd->cell_size);
		netem_int_opt(p, "celloverhead", " celloverhead %d", nd->cell_overhead);
		pr_close_object(p);
	}
	if (nd->slot_config.min_delay | nd->slot_config.max_delay | nd->slot_config.dist_jitter) {
		int32_t pk = nd->slot_config.max_packets == INT_MAX ? 0 : nd->slot_config.max_packets;
		int32_t by = nd->slot_config.max_bytes == INT_MAX ? 0 : nd->slot_config.max_bytes;

		pr_open_object(p, "slot");
		if (nd->slot_config.dist_jitter > 0) {
			netem_pr_time64(p, "distribution", " slot distribution %s",
					nd->slot_config.dist_delay);
			netem_pr_time64(p, "jitter", " %s", nd->slot_config.dist_jitter);
		} else {
			netem_pr_time64(p, "min-delay", " slot %s", nd->slot_config.min_delay);
			netem_pr_time64(p, "max-delay", " %s", nd->slot_config.max_delay);
		}
		netem_int_opt(p, "packets", " packets %d", pk);
		netem_int_opt(p, "bytes", " bytes %d", by);
		pr_close_object(p);
	}
	pr_bool(p, PR_ANY, "ecn", nd->ecn ? " ecn " : "", nd->ecn);
	pr_u64(p, PR_ANY, "gap", nd->gap ? " gap %llu" : "", nd->gap);
}

/* ---- the one class, 1:1, whose leaf may be grafted ---- */

static int netem_graft(struct qdisc *q, uint32_t classid, struct qdisc *child, char *err,
		       size_t errlen)
{
	struct netem_sched_data *nd = q->priv;
	struct qdisc *old = nd->qdisc;

	if (child) {
		child->parent_q = q;
		child->parent = classid;
	}
	nd->qdisc = child;
	if (old) {
		/* qdisc_purge_queue: its packets leave netem and its ancestors */
		qdisc_tree_reduce_backlog(old, old->s.qlen, old->s.backlog);
		qdisc_destroy(old);
	}
	return 0;
}

static struct qdisc *netem_leaf(struct qdisc *q, uint32_t classid)
{
	return ((struct netem_sched_data *)q->priv)->qdisc;
}

/* netem_find: every classid names the one class, child or not (a graft
 * to H:1 or H:5 alike) */
static int netem_class_find(const struct qdisc *q, uint32_t classid)
{
	return 1;
}

/* netem_dump_class answers only while a child is grafted */
static void netem_walk(const struct qdisc *q, void (*fn)(void *arg, const struct qdisc_class *c),
		       void *arg)
{
	const struct netem_sched_data *nd = q->priv;
	struct qdisc_class c = {
	    .classid = TC_H_MAKE(q->handle, 1),
	    .parent = q->handle,
	    .leaf = nd->qdisc,
	};

	if (!nd->qdisc)
		return;
	c.stats = nd->qdisc->s;
	fn(arg, &c);
}

const struct qdisc_ops netem_qdisc_ops = {
    .id = "netem",
    .priv_size = sizeof(struct netem_sched_data),
    .init = netem_init,
    .change = netem_change,
    .enqueue = netem_enqueue,
    .dequeue = netem_dequeue,
    .peek = netem_peek,
    .head = netem_head,
    .reset = netem_reset,
    .destroy = netem_destroy,
    .dump = netem_dump,
    .graft = netem_graft,
    .leaf = netem_leaf,
    .class_find = netem_class_find,
    .walk = netem_walk,
};
