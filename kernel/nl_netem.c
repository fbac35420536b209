/* nl_netem.c - `tcsim import`'s reading of netem qdiscs: their TCA_OPTIONS
 * (netem_dump: a struct tc_netem_qopt, then nested attributes in the same
 * TCA_OPTIONS) into the model, and the tc words for its ticks and
 * probabilities (nl_scen_netem.c writes the line).
 *
 * libnl-route (3.7) parses the message as its caches would, and its
 * rtnl_netem_get_* getters give limit, gap, loss, duplicate, the three
 * correlations of TCA_NETEM_CORR, reorder and corrupt with their
 * correlations. They return an int, so a probability above 50% comes back
 * negative: it is the same 32 bits, taken as unsigned here (the attributes
 * are known to be there). Read from the attributes by hand, because libnl
 * keeps nothing of them: the delay and jitter in ticks (rtnl_netem_get_delay
 * and _jitter give whole microseconds through /proc/net/psched, and those
 * do not always give the ticks back: 5001us is 78140 ticks, which libnl
 * says is 5000us), TCA_NETEM_LATENCY64/JITTER64 (ns, 4.15+), RATE and
 * RATE64, ECN, the loss models of TCA_NETEM_LOSS (NETEM_LOSS_GI, _GE),
 * SLOT and PRNG_SEED (6.3+).
 *
 * What no dump carries: the delay and slot distribution tables (the kernel
 * never dumps TCA_NETEM_DELAY_DIST or SLOT_DIST), so whether jitter is
 * uniform or drawn from normal, pareto, paretonormal or a custom table is
 * unknown; nl_scen_netem.c lists it. A malformed message (options shorter
 * than the qopt, an attribute of the wrong size, an unknown one) is
 * refused, as for the other kinds; the sizes are checked before libnl reads
 * the message. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/qdisc/netem.h>
#include <netlink/route/tc.h>

#include "nl_import.h"
#include "nl_int.h"
#include "sched_rate.h"

/* TCA_NETEM_* (pkt_sched.h; this machine's header predates PRNG_SEED) */
enum {
	NE_CORR = 1,
	NE_DELAY_DIST,
	NE_REORDER,
	NE_CORRUPT,
	NE_LOSS,
	NE_RATE,
	NE_ECN,
	NE_RATE64,
	NE_PAD,
	NE_LATENCY64,
	NE_JITTER64,
	NE_SLOT,
	NE_SLOT_DIST,
	NE_PRNG_SEED,
	NE_MAX = NE_PRNG_SEED
};
/* NETEM_LOSS_* inside TCA_NETEM_LOSS */
enum { NL_GI = 1, NL_GE = 2 };

#define QOPT_SIZE 24 /* struct tc_netem_qopt: six u32 */

static const int netem_sizes[NE_MAX + 1] = {
    [NE_CORR] = 12,    [NE_REORDER] = 8, [NE_CORRUPT] = 8,   [NE_RATE] = 16,
    [NE_ECN] = 4,      [NE_RATE64] = 8,	 [NE_PAD] = 0,	     [NE_LATENCY64] = 8,
    [NE_JITTER64] = 8, [NE_SLOT] = 40,	 [NE_PRNG_SEED] = 8,
};
static const char *const netem_names[NE_MAX + 1] = {
    [NE_CORR] = "TCA_NETEM_CORR",
    [NE_DELAY_DIST] = "TCA_NETEM_DELAY_DIST",
    [NE_REORDER] = "TCA_NETEM_REORDER",
    [NE_CORRUPT] = "TCA_NETEM_CORRUPT",
    [NE_LOSS] = "TCA_NETEM_LOSS",
    [NE_RATE] = "TCA_NETEM_RATE",
    [NE_ECN] = "TCA_NETEM_ECN",
    [NE_RATE64] = "TCA_NETEM_RATE64",
    [NE_PAD] = "TCA_NETEM_PAD",
    [NE_LATENCY64] = "TCA_NETEM_LATENCY64",
    [NE_JITTER64] = "TCA_NETEM_JITTER64",
    [NE_SLOT] = "TCA_NETEM_SLOT",
    [NE_SLOT_DIST] = "TCA_NETEM_SLOT_DIST",
    [NE_PRNG_SEED] = "TCA_NETEM_PRNG_SEED",
};

static uint32_t u32_at(const void *p, size_t off)
{
	uint32_t v;

	memcpy(&v, (const char *)p + off, 4);
	return v;
}

static int64_t s64_at(const void *p, size_t off)
{
	int64_t v;

	memcpy(&v, (const char *)p + off, 8);
	return v;
}

static int loss_models(struct nli_netem *ne, struct nlattr *loss, const char *wh, char *err,
		       size_t errlen)
{
	struct nlattr *a;
	int rem;

	if (!nl_attrs_whole(nla_data(loss), nla_len(loss)))
		return nl_failf(err, errlen, -EPROTO, "%s: truncated attribute in TCA_NETEM_LOSS",
				wh);
	nla_for_each_nested(a, loss, rem)
	{
		int type = nla_type(a), want = type == NL_GI ? 20 : 16;

		if (type != NL_GI && type != NL_GE)
			return nl_failf(
			    err, errlen, -EPROTO,
			    "%s: unknown loss model %d in TCA_NETEM_LOSS: a newer kernel? "
			    "tcsim cannot tell what it means",
			    wh, type);
		if (nla_len(a) < want)
			return nl_failf(err, errlen, -EPROTO, "%s: %s of %d bytes, not %d", wh,
					type == NL_GI ? "NETEM_LOSS_GI" : "NETEM_LOSS_GE",
					nla_len(a), want);
		ne->loss_model = type;
		for (int i = 0; i < want / 4; i++)
			(type == NL_GI ? ne->gi : ne->ge)[i] = u32_at(nla_data(a), 4 * (size_t)i);
	}
	return 0;
}

int nl_netem_parse(struct nli_qdisc *q, const struct nlmsghdr *nlh, struct nlattr *o,
		   const char *wh, char *err, size_t errlen)
{
	struct nli_netem *ne = &q->netem;
	struct nlattr *tb[NE_MAX + 1] = {0}, *head, *a;
	struct rtnl_qdisc *qd;
	const void *d;
	int len, rem, ret;

	if (!o || nla_len(o) < QOPT_SIZE)
		return nl_failf(err, errlen, -EPROTO,
				"%s: TCA_OPTIONS of %d bytes, not a struct tc_netem_qopt (%d)", wh,
				o ? nla_len(o) : 0, QOPT_SIZE);
	d = nla_data(o);
	len = nla_len(o) - NLA_ALIGN(QOPT_SIZE);
	head = (struct nlattr *)((char *)nla_data(o) + NLA_ALIGN(QOPT_SIZE));
	if (len > 0 && !nl_attrs_whole(head, len))
		return nl_failf(err, errlen, -EPROTO, "%s: truncated attribute in TCA_OPTIONS", wh);
	if (len > 0)
		nla_for_each_attr(a, head, len, rem)
		{
			int type = nla_type(a);

			if (type < 1 || type > NE_MAX)
				return nl_failf(
				    err, errlen, -EPROTO,
				    "%s: unknown attribute %d in the netem options "
				    "(TCA_NETEM_*): a newer kernel? tcsim cannot tell what "
				    "it means",
				    wh, type);
			if (type == NE_DELAY_DIST || type == NE_SLOT_DIST)
				return nl_failf(
				    err, errlen, -EPROTO,
				    "%s: %s in a dump (the kernel never sends its tables)", wh,
				    netem_names[type]);
			if (nla_len(a) < netem_sizes[type])
				return nl_failf(err, errlen, -EPROTO, "%s: %s of %d bytes, not %d",
						wh, netem_names[type], nla_len(a),
						netem_sizes[type]);
			tb[type] = a;
		}
	/* struct tc_netem_qopt: latency, limit, loss, gap, duplicate, jitter */
	ne->latency = u32_at(d, 0);
	ne->jitter = u32_at(d, 20);
	if (tb[NE_LOSS] && (ret = loss_models(ne, tb[NE_LOSS], wh, err, errlen)))
		return ret;

	/* libnl-route's reading */
	if ((ret = nl_libnl_qdisc(nlh, wh, &qd, err, errlen)))
		return ret;
	ne->limit = (uint32_t)rtnl_netem_get_limit(qd);
	ne->gap = (uint32_t)rtnl_netem_get_gap(qd);
	ne->loss = (uint32_t)rtnl_netem_get_loss(qd);
	ne->duplicate = (uint32_t)rtnl_netem_get_duplicate(qd);
	if (tb[NE_CORR]) {
		ne->delay_corr = (uint32_t)rtnl_netem_get_delay_correlation(qd);
		ne->loss_corr = (uint32_t)rtnl_netem_get_loss_correlation(qd);
		ne->dup_corr = (uint32_t)rtnl_netem_get_duplicate_correlation(qd);
	}
	if (tb[NE_REORDER]) {
		ne->reorder = (uint32_t)rtnl_netem_get_reorder_probability(qd);
		ne->reorder_corr = (uint32_t)rtnl_netem_get_reorder_correlation(qd);
	}
	if (tb[NE_CORRUPT]) {
		ne->corrupt = (uint32_t)rtnl_netem_get_corruption_probability(qd);
		ne->corrupt_corr = (uint32_t)rtnl_netem_get_corruption_correlation(qd);
	}
	nl_object_put((struct nl_object *)qd);
	/* what libnl says of the qopt must be the qopt */
	if (ne->limit != u32_at(d, 4) || ne->loss != u32_at(d, 8) || ne->gap != u32_at(d, 12) ||
	    ne->duplicate != u32_at(d, 16))
		return nl_failf(err, errlen, -EPROTO,
				"%s: libnl-route reads the struct tc_netem_qopt otherwise", wh);

	/* by hand */
	if (tb[NE_LATENCY64]) {
		ne->has_latency64 = 1;
		ne->latency64 = s64_at(nla_data(tb[NE_LATENCY64]), 0);
	}
	if (tb[NE_JITTER64]) {
		ne->has_jitter64 = 1;
		ne->jitter64 = s64_at(nla_data(tb[NE_JITTER64]), 0);
	}
	if (tb[NE_RATE]) {
		const void *r = nla_data(tb[NE_RATE]);

		ne->rate = u32_at(r, 0);
		ne->packet_overhead = (int32_t)u32_at(r, 4);
		ne->cell_size = u32_at(r, 8);
		ne->cell_overhead = (int32_t)u32_at(r, 12);
	}
	if (tb[NE_RATE64]) {
		ne->has_rate64 = 1;
		ne->rate64 = (uint64_t)s64_at(nla_data(tb[NE_RATE64]), 0);
	}
	if (tb[NE_ECN])
		ne->ecn = u32_at(nla_data(tb[NE_ECN]), 0);
	if (tb[NE_SLOT]) {
		const void *s = nla_data(tb[NE_SLOT]);

		/* struct tc_netem_slot: min_delay, max_delay (s64), max_packets,
		 * max_bytes (s32), dist_delay, dist_jitter (s64) */
		ne->has_slot = 1;
		ne->slot_min = s64_at(s, 0);
		ne->slot_max = s64_at(s, 8);
		ne->slot_packets = (int32_t)u32_at(s, 16);
		ne->slot_bytes = (int32_t)u32_at(s, 20);
		ne->slot_dist_delay = s64_at(s, 24);
		ne->slot_dist_jitter = s64_at(s, 32);
	}
	if (tb[NE_PRNG_SEED]) {
		ne->has_seed = 1;
		ne->seed = (uint64_t)s64_at(nla_data(tb[NE_PRNG_SEED]), 0);
	}
	return 0;
}

/* ---- words ---- */

int nl_netem_ticks_word(char *buf, size_t n, uint32_t ticks)
{
	/* tc 6.1: get_time's whole microseconds, then tc_core_time2tick
	 * (truncated); each microsecond count gives its own tick count */
	unsigned int us = tc_core_tick2time(ticks), pick = us;
	int exact = 0;

	for (unsigned int u = us; u <= us + 1 && u >= us; u++)
		if (tc_core_time2tick(u) == ticks) {
			pick = u;
			exact = 1;
			break;
		}
	if (pick && pick % 1000000 == 0)
		snprintf(buf, n, "%us", pick / 1000000);
	else if (pick && pick % 1000 == 0)
		snprintf(buf, n, "%ums", pick / 1000);
	else
		snprintf(buf, n, "%uus", pick);
	return exact;
}

/* tc's parse_percent and set_percent: strtod / 100, then rint of it times
 * UINT32_MAX */
static uint32_t percent_back(const char *s)
{
	return (uint32_t)rint(strtod(s, NULL) / 100. * UINT32_MAX);
}

int nl_netem_percent_word(char *buf, size_t n, uint32_t v)
{
	double pct = 100. * v / UINT32_MAX;

	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, n, "%.*g", prec, pct);
		if (percent_back(buf) == v && !strchr(buf, 'e')) {
			strncat(buf, "%", n - strlen(buf) - 1);
			return 1;
		}
	}
	snprintf(buf, n, "%.17g%%", pct);
	return percent_back(buf) == v;
}

const char *nl_ns_word(char *buf, size_t n, int64_t ns)
{
	if (ns && ns % 1000000000 == 0)
		snprintf(buf, n, "%llds", (long long)(ns / 1000000000));
	else if (ns && ns % 1000000 == 0)
		snprintf(buf, n, "%lldms", (long long)(ns / 1000000));
	else if (ns && ns % 1000 == 0)
		snprintf(buf, n, "%lldus", (long long)(ns / 1000));
	else
		snprintf(buf, n, "%lldns", (long long)ns);
	return buf;
}
