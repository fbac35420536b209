/* nl_aqm.c - `tcsim import`'s reading of codel and fq_codel qdiscs: their
 * TCA_OPTIONS into the model, and their times as tc words.
 *
 * codel: libnl-route 3.7 has no codel module, so TCA_CODEL_TARGET, LIMIT,
 * INTERVAL, ECN and CE_THRESHOLD are read here. fq_codel: libnl-route's
 * rtnl_qdisc_fq_codel_get_limit, _flows, _quantum, _target, _interval and
 * _ecn give what libnl 3.7 keeps; it keeps nothing of ce_threshold,
 * memory_limit, drop_batch or the ce_threshold selector and mask (5.16),
 * which are read from the same attributes. The kernel sends target, limit,
 * interval and ecn (and for fq_codel quantum and flows) always: a dump
 * without one is refused, as a short or unknown attribute is.
 *
 * Times. The kernel keeps codel's times in ticks of 1024 ns: a request's
 * microseconds become (us * 1000) >> 10, and a dump reports
 * (ticks << 10) / 1000, both truncated. So the dumped value does not
 * always give the same ticks back: the default target, 5000 us, is 4882
 * ticks, dumped as 4999 us, and 4999 us would be 4881 ticks. A tick count
 * covers about 1.024 us, so exactly one tick count dumps as a given value,
 * and the microseconds that give it back form a run of one or two; the
 * word written is the roundest of them ("5ms" for the 4999 above). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/qdisc/fq_codel.h>
#include <netlink/route/tc.h>

#include "nl_import.h"
#include "nl_int.h"

/* TCA_CODEL_* inside a codel's TCA_OPTIONS */
enum { C_TARGET = 1, C_LIMIT, C_INTERVAL, C_ECN, C_CE_THRESHOLD, C_MAX = C_CE_THRESHOLD };

/* TCA_FQ_CODEL_* inside an fq_codel's TCA_OPTIONS */
enum {
	F_TARGET = 1,
	F_LIMIT,
	F_INTERVAL,
	F_ECN,
	F_FLOWS,
	F_QUANTUM,
	F_CE_THRESHOLD,
	F_DROP_BATCH_SIZE,
	F_MEMORY_LIMIT,
	F_CE_THRESHOLD_SELECTOR,
	F_CE_THRESHOLD_MASK,
	F_MAX = F_CE_THRESHOLD_MASK
};

#define CODEL_SHIFT 10

/* The kernel's conversions (include/net/codel.h), in 64 bits. */
static uint64_t us_to_ticks(uint64_t us)
{
	return (us * 1000u) >> CODEL_SHIFT;
}

static uint64_t ticks_to_us(uint64_t t)
{
	return (t << CODEL_SHIFT) / 1000u;
}

int nl_codel_time_word(char *buf, size_t n, uint32_t us)
{
	static const uint32_t units[] = {1000000, 1000, 100, 10, 1};
	/* the one tick count that can dump as us: the smallest not below us / 1.024 */
	uint64_t t = ((uint64_t)us * 1000u + 1023u) >> CODEL_SHIFT;
	uint64_t lo, hi, pick = us;
	int exact = ticks_to_us(t) == us;

	if (exact) {
		/* every us in [lo, hi] is t ticks */
		lo = (t * 1024u + 999u) / 1000u;
		hi = ((t + 1) * 1024u + 999u) / 1000u - 1;
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			uint64_t m = (lo + units[i] - 1) / units[i] * units[i];

			if (m <= hi && m <= UINT32_MAX && us_to_ticks(m) == t) {
				pick = m;
				break;
			}
		}
	}
	if (pick && pick % 1000000 == 0)
		snprintf(buf, n, "%llus", (unsigned long long)(pick / 1000000));
	else if (pick && pick % 1000 == 0)
		snprintf(buf, n, "%llums", (unsigned long long)(pick / 1000));
	else
		snprintf(buf, n, "%lluus", (unsigned long long)pick);
	return exact;
}

/* The attributes nested in TCA_OPTIONS by type 1..max, each at least 4
 * bytes (u8 for the types from u8_from on); an unknown type is an error. */
static int options_attrs(struct nlattr *o, struct nlattr **tb, int max, int u8_from,
			 const char *kind, const char *family, const char *wh, char *err,
			 size_t errlen)
{
	struct nlattr *a;
	int rem;

	if (!o)
		return nl_failf(err, errlen, -EPROTO, "%s: no TCA_OPTIONS", wh);
	if (!nl_attrs_whole(nla_data(o), nla_len(o)))
		return nl_failf(err, errlen, -EPROTO, "%s: truncated attribute in TCA_OPTIONS", wh);
	nla_for_each_nested(a, o, rem) {
		int type = nla_type(a), want = type >= u8_from ? 1 : 4;

		if (type < 1 || type > max)
			return nl_failf(err, errlen, -EPROTO,
					"%s: unknown attribute %d in the %s options (%s_*): a newer "
					"kernel? tcsim cannot tell what it means",
					wh, type, kind, family);
		if (nla_len(a) < want)
			return nl_failf(err, errlen, -EPROTO, "%s: %s attribute %d of %d bytes, not %d",
					wh, family, type, nla_len(a), want);
		tb[type] = a;
	}
	return 0;
}

/* The attributes codel_dump and fq_codel_dump always send. */
static int require(struct nlattr **tb, const int *types, const char *const *names, size_t k,
		   const char *wh, char *err, size_t errlen)
{
	for (size_t i = 0; i < k; i++)
		if (!tb[types[i]])
			return nl_failf(err, errlen, -EPROTO, "%s: no %s (the kernel always sends it)",
					wh, names[i]);
	return 0;
}

int nl_codel_parse(struct nli_qdisc *q, struct nlattr *o, const char *wh, char *err,
		   size_t errlen)
{
	static const int need[] = {C_TARGET, C_LIMIT, C_INTERVAL, C_ECN};
	static const char *const names[] = {"TCA_CODEL_TARGET", "TCA_CODEL_LIMIT",
					    "TCA_CODEL_INTERVAL", "TCA_CODEL_ECN"};
	struct nlattr *tb[C_MAX + 1] = {0};
	struct nli_codel *c = &q->codel;
	int ret;

	if ((ret = options_attrs(o, tb, C_MAX, C_MAX + 1, "codel", "TCA_CODEL", wh, err,
				 errlen)) ||
	    (ret = require(tb, need, names, 4, wh, err, errlen)))
		return ret;
	c->target = nla_get_u32(tb[C_TARGET]);
	c->limit = nla_get_u32(tb[C_LIMIT]);
	c->interval = nla_get_u32(tb[C_INTERVAL]);
	c->ecn = nla_get_u32(tb[C_ECN]);
	if (tb[C_CE_THRESHOLD]) {
		c->has_ce_threshold = 1;
		c->ce_threshold = nla_get_u32(tb[C_CE_THRESHOLD]);
	}
	return 0;
}

static void take_object(struct nl_object *obj, void *arg)
{
	struct nl_object **out = arg;

	if (!*out) {
		nl_object_get(obj);
		*out = obj;
	}
}

/* libnl-route's reading of a qdisc message, as its caches would hold it:
 * the kind's parser has run. 0 and *out (nl_object_put it), or -errno. */
int nl_libnl_qdisc(const struct nlmsghdr *nlh, const char *wh, struct rtnl_qdisc **out, char *err,
		   size_t errlen)
{
	struct nl_object *obj = NULL;
	struct nl_msg *msg;
	int ret;

	*out = NULL;
	msg = nlmsg_convert((struct nlmsghdr *)nlh); /* a copy: nlh is not written */
	if (!msg)
		return nl_failf(err, errlen, -ENOMEM, "out of memory");
	nlmsg_set_proto(msg, NETLINK_ROUTE);
	ret = nl_msg_parse(msg, take_object, &obj);
	nlmsg_free(msg);
	if (ret < 0 || !obj) {
		if (obj)
			nl_object_put(obj);
		return nl_failf(err, errlen, -EPROTO, "%s: libnl-route cannot read it: %s", wh,
				ret < 0 ? nl_geterror(ret) : "no object");
	}
	*out = (struct rtnl_qdisc *)obj;
	return 0;
}

int nl_fq_codel_parse(struct nli_qdisc *q, const struct nlmsghdr *nlh, struct nlattr *o,
		      const char *wh, char *err, size_t errlen)
{
	static const int need[] = {F_TARGET, F_LIMIT, F_INTERVAL, F_ECN, F_FLOWS, F_QUANTUM};
	static const char *const names[] = {"TCA_FQ_CODEL_TARGET",   "TCA_FQ_CODEL_LIMIT",
					    "TCA_FQ_CODEL_INTERVAL", "TCA_FQ_CODEL_ECN",
					    "TCA_FQ_CODEL_FLOWS",    "TCA_FQ_CODEL_QUANTUM"};
	struct nlattr *tb[F_MAX + 1] = {0};
	struct nli_codel *c = &q->codel;
	struct nl_object *obj = NULL;
	struct rtnl_qdisc *qd;
	int ret, limit, flows, ecn;

	if ((ret = options_attrs(o, tb, F_MAX, F_CE_THRESHOLD_SELECTOR, "fq_codel",
				 "TCA_FQ_CODEL", wh, err, errlen)) ||
	    (ret = require(tb, need, names, 6, wh, err, errlen)))
		return ret;
	if ((ret = nl_libnl_qdisc(nlh, wh, &qd, err, errlen)))
		return ret;
	obj = (struct nl_object *)qd;
	limit = rtnl_qdisc_fq_codel_get_limit(qd);
	flows = rtnl_qdisc_fq_codel_get_flows(qd);
	ecn = rtnl_qdisc_fq_codel_get_ecn(qd);
	c->target = rtnl_qdisc_fq_codel_get_target(qd);
	c->interval = rtnl_qdisc_fq_codel_get_interval(qd);
	c->quantum = rtnl_qdisc_fq_codel_get_quantum(qd);
	nl_object_put(obj);
	/* the int getters say "not set" with a negative libnl error; the
	 * attributes are there, so that would be libnl's misreading */
	if (limit < 0 || flows < 0 || ecn < 0)
		return nl_failf(err, errlen, -EPROTO, "%s: libnl-route gives no %s", wh,
				limit < 0 ? "limit" : flows < 0 ? "flows" : "ecn");
	c->limit = (uint32_t)limit;
	c->flows = (uint32_t)flows;
	c->ecn = (uint32_t)ecn;
	if (tb[F_CE_THRESHOLD]) {
		c->has_ce_threshold = 1;
		c->ce_threshold = nla_get_u32(tb[F_CE_THRESHOLD]);
	}
	if (tb[F_MEMORY_LIMIT]) {
		c->has_memory_limit = 1;
		c->memory_limit = nla_get_u32(tb[F_MEMORY_LIMIT]);
	}
	if (tb[F_DROP_BATCH_SIZE]) {
		c->has_drop_batch = 1;
		c->drop_batch = nla_get_u32(tb[F_DROP_BATCH_SIZE]);
	}
	if (tb[F_CE_THRESHOLD_SELECTOR])
		c->ce_selector = nla_get_u8(tb[F_CE_THRESHOLD_SELECTOR]);
	if (tb[F_CE_THRESHOLD_MASK])
		c->ce_mask = nla_get_u8(tb[F_CE_THRESHOLD_MASK]);
	return 0;
}
