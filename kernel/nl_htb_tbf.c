/* nl_htb_tbf.c - `tcsim import`'s reading of htb qdiscs, htb classes and
 * tbf qdiscs: their TCA_OPTIONS into the model, through libnl-route.
 *
 * libnl-route parses the message as its caches would (nl_msg_parse runs
 * the kind's parser) and its getters give what they give exactly: htb's
 * r2q and default (rtnl_htb_get_rate2quantum, _defcls), a class's prio,
 * rate, ceil, quantum and level (rtnl_htb_get_prio, _rate64, _ceil64,
 * _quantum, _level), tbf's limit, rate and peakrate (rtnl_qdisc_tbf_get_*),
 * and the first rate's mpu and overhead (rtnl_tc_get_mpu, _overhead).
 *
 * libnl 3.7 does not keep the rest, so it is read from the same attributes
 * here: the buckets as the kernel stores them, in ticks (libnl converts
 * them to bytes through whole microseconds, and those bytes do not give
 * the same ticks back: 15k at 100mbit is 19187 ticks, libnl says 15337
 * bytes, which tc makes 19156 ticks); the link layer (not copied from
 * struct tc_ratespec); the ceil's and the peakrate's own mpu and overhead;
 * htb's direct_qlen and offload flag; tbf's TCA_TBF_RATE64/PRATE64 (its
 * getters return an int of the 32-bit field).
 *
 * Attribute numbers and layouts are the kernel's ABI (pkt_sched.h), spelled
 * out as in nl_dump.c. An attribute this file does not know, a missing or
 * short TCA_HTB_INIT/TCA_HTB_PARMS/TCA_TBF_PARMS, or a message libnl
 * cannot parse is an error, as everywhere in `tcsim import`. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/route/class.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/qdisc/htb.h>
#include <netlink/route/qdisc/tbf.h>
#include <netlink/route/tc.h>

#include "nl_import.h"
#include "nl_int.h"

/* TCA_HTB_* inside an htb qdisc's or class's TCA_OPTIONS */
enum {
	H_PARMS = 1,
	H_INIT,
	H_CTAB,
	H_RTAB,
	H_DIRECT_QLEN,
	H_RATE64,
	H_CEIL64,
	H_PAD,
	H_OFFLOAD,
	H_MAX = H_OFFLOAD
};

/* TCA_TBF_* inside a tbf's TCA_OPTIONS (the kernel sends neither BURST nor
 * PBURST back, but they are its attributes) */
enum { T_PARMS = 1, T_RTAB, T_PTAB, T_RATE64, T_PRATE64, T_BURST, T_PBURST, T_PAD, T_MAX = T_PAD };

/* The structures' sizes:
 * struct tc_ratespec: cell_log, linklayer, overhead, cell_align, mpu, rate;
 * struct tc_htb_glob: version, rate2quantum, defcls, debug, direct_pkts;
 * struct tc_htb_opt: rate, ceil (tc_ratespec), buffer, cbuffer, quantum,
 * level, prio; struct tc_tbf_qopt: rate, peakrate, limit, buffer, mtu. */
#define RATESPEC_SIZE 12
#define HTB_GLOB_SIZE 20
#define HTB_OPT_SIZE 44
#define TBF_QOPT_SIZE 36
#define LINKLAYER_MASK 0x0f /* TC_LINKLAYER_MASK */

static uint32_t get32(const void *p, size_t off)
{
	uint32_t v;

	memcpy(&v, (const char *)p + off, sizeof(v));
	return v;
}

static uint16_t get16(const void *p, size_t off)
{
	uint16_t v;

	memcpy(&v, (const char *)p + off, sizeof(v));
	return v;
}

static uint64_t get64(const struct nlattr *a)
{
	uint64_t v;

	memcpy(&v, nla_data(a), sizeof(v)); /* 64-bit attributes may be unaligned */
	return v;
}

static void take_object(struct nl_object *o, void *arg)
{
	struct nl_object **out = arg;

	if (!*out) {
		nl_object_get(o);
		*out = o;
	}
}

/* libnl-route's own reading of one message: the rtnl_qdisc or rtnl_class
 * its caches would hold. */
static int libnl_object(const struct nlmsghdr *nlh, struct nl_object **out, const char *wh,
			char *err, size_t errlen)
{
	struct nl_msg *msg;
	int ret;

	*out = NULL;
	msg = nlmsg_convert((struct nlmsghdr *)nlh); /* a copy: nlh is not written */
	if (!msg)
		return nl_failf(err, errlen, -ENOMEM, "out of memory");
	nlmsg_set_proto(msg, NETLINK_ROUTE); /* nl_msg_parse finds the cache ops by it */
	ret = nl_msg_parse(msg, take_object, out);
	nlmsg_free(msg);
	if (ret < 0 || !*out) {
		if (*out)
			nl_object_put(*out);
		*out = NULL;
		return nl_failf(err, errlen, -EPROTO, "%s: libnl-route cannot read it: %s", wh,
				ret < 0 ? nl_geterror(ret) : "no object");
	}
	return 0;
}

/* The attributes nested in TCA_OPTIONS by type 1..max; a type this file
 * does not know is an error (what it changes would be guessed). */
static int options_attrs(struct nlattr *o, struct nlattr **tb, int max, const char *kind,
			 const char *family, const char *wh, char *err, size_t errlen)
{
	struct nlattr *a;
	int rem;

	if (!o)
		return nl_failf(err, errlen, -EPROTO, "%s: no TCA_OPTIONS", wh);
	if (!nl_attrs_whole(nla_data(o), nla_len(o)))
		return nl_failf(err, errlen, -EPROTO, "%s: truncated attribute in TCA_OPTIONS", wh);
	nla_for_each_nested(a, o, rem)
	{
		int type = nla_type(a);

		if (type < 1 || type > max)
			return nl_failf(
			    err, errlen, -EPROTO,
			    "%s: unknown attribute %d in the %s options (%s_*): a newer "
			    "kernel? tcsim cannot tell what it means",
			    wh, type, kind, family);
		tb[type] = a;
	}
	return 0;
}

/* a (when required or present) holds at least len bytes */
static int check_len(struct nlattr *a, int required, int len, const char *name, const char *wh,
		     char *err, size_t errlen)
{
	if (!a)
		return required ? nl_failf(err, errlen, -EPROTO, "%s: no %s", wh, name) : 0;
	if (nla_len(a) < len)
		return nl_failf(err, errlen, -EPROTO, "%s: %s of %d bytes, not %d", wh, name,
				nla_len(a), len);
	return 0;
}

/* What libnl keeps of a second struct tc_ratespec (ceil, peakrate) is its
 * rate only: the link layer, overhead and mpu are read here. */
static void ratespec_extras(const uint8_t *spec, struct nli_rate *r)
{
	r->linklayer = spec[1] & LINKLAYER_MASK;
	r->overhead = get16(spec, 2);
	r->mpu = get16(spec, 6);
}

int nl_htb_qdisc_parse(struct nli_qdisc *q, const struct nlmsghdr *nlh, struct nlattr *o,
		       const char *wh, char *err, size_t errlen)
{
	struct nlattr *tb[H_MAX + 1] = {0};
	struct nl_object *obj;
	int ret;

	if ((ret = options_attrs(o, tb, H_MAX, "htb", "TCA_HTB", wh, err, errlen)) ||
	    (ret = check_len(tb[H_INIT], 1, HTB_GLOB_SIZE, "TCA_HTB_INIT", wh, err, errlen)) ||
	    (ret = check_len(tb[H_DIRECT_QLEN], 0, 4, "TCA_HTB_DIRECT_QLEN", wh, err, errlen)) ||
	    (ret = libnl_object(nlh, &obj, wh, err, errlen)))
		return ret;
	q->htb.r2q = rtnl_htb_get_rate2quantum((struct rtnl_qdisc *)obj);
	q->htb.defcls = rtnl_htb_get_defcls((struct rtnl_qdisc *)obj);
	nl_object_put(obj);
	if (tb[H_DIRECT_QLEN]) {
		q->htb.has_direct_qlen = 1;
		q->htb.direct_qlen = nla_get_u32(tb[H_DIRECT_QLEN]);
	}
	q->htb.offload = tb[H_OFFLOAD] != NULL;
	return 0;
}

int nl_htb_class_parse(struct nli_class *c, const struct nlmsghdr *nlh, struct nlattr *o,
		       const char *wh, char *err, size_t errlen)
{
	struct nlattr *tb[H_MAX + 1] = {0};
	struct nli_htb_class *h = &c->htb;
	struct rtnl_class *cl;
	struct nl_object *obj;
	const uint8_t *p;
	int ret, level, r1, r2;

	if ((ret = options_attrs(o, tb, H_MAX, "htb", "TCA_HTB", wh, err, errlen)) ||
	    (ret = check_len(tb[H_PARMS], 1, HTB_OPT_SIZE, "TCA_HTB_PARMS", wh, err, errlen)) ||
	    (ret = check_len(tb[H_RATE64], 0, 8, "TCA_HTB_RATE64", wh, err, errlen)) ||
	    (ret = check_len(tb[H_CEIL64], 0, 8, "TCA_HTB_CEIL64", wh, err, errlen)) ||
	    (ret = libnl_object(nlh, &obj, wh, err, errlen)))
		return ret;
	cl = (struct rtnl_class *)obj;
	r1 = rtnl_htb_get_rate64(cl, &h->rate.bps);
	r2 = rtnl_htb_get_ceil64(cl, &h->ceil.bps);
	level = rtnl_htb_get_level(cl);
	h->prio = rtnl_htb_get_prio(cl);
	h->quantum = rtnl_htb_get_quantum(cl);
	h->rate.mpu = (uint16_t)rtnl_tc_get_mpu(TC_CAST(cl));
	h->rate.overhead = (uint16_t)rtnl_tc_get_overhead(TC_CAST(cl));
	nl_object_put(obj);
	if (r1 < 0 || r2 < 0 || level < 0)
		return nl_failf(err, errlen, -EPROTO, "%s: libnl-route gives no %s: %s", wh,
				r1 < 0	 ? "rate"
				: r2 < 0 ? "ceil"
					 : "level",
				nl_geterror(r1 < 0   ? r1
					    : r2 < 0 ? r2
						     : level));
	h->level = (uint32_t)level;
	p = nla_data(tb[H_PARMS]);
	h->rate.linklayer = p[1] & LINKLAYER_MASK;
	ratespec_extras(p + RATESPEC_SIZE, &h->ceil);
	h->buffer = get32(p, 2 * RATESPEC_SIZE);
	h->cbuffer = get32(p, 2 * RATESPEC_SIZE + 4);
	h->offload = tb[H_OFFLOAD] != NULL;
	return 0;
}

int nl_tbf_parse(struct nli_qdisc *q, const struct nlmsghdr *nlh, struct nlattr *o, const char *wh,
		 char *err, size_t errlen)
{
	struct nlattr *tb[T_MAX + 1] = {0};
	struct nli_tbf *t = &q->tbf;
	struct rtnl_qdisc *qd;
	struct nl_object *obj;
	const uint8_t *p;
	int ret;

	if ((ret = options_attrs(o, tb, T_MAX, "tbf", "TCA_TBF", wh, err, errlen)) ||
	    (ret = check_len(tb[T_PARMS], 1, TBF_QOPT_SIZE, "TCA_TBF_PARMS", wh, err, errlen)) ||
	    (ret = check_len(tb[T_RATE64], 0, 8, "TCA_TBF_RATE64", wh, err, errlen)) ||
	    (ret = check_len(tb[T_PRATE64], 0, 8, "TCA_TBF_PRATE64", wh, err, errlen)) ||
	    (ret = libnl_object(nlh, &obj, wh, err, errlen)))
		return ret;
	qd = (struct rtnl_qdisc *)obj;
	/* the getters return the u32 fields as an int: -1 is 0xffffffff here */
	t->limit = (uint32_t)rtnl_qdisc_tbf_get_limit(qd);
	t->rate.bps = (uint32_t)rtnl_qdisc_tbf_get_rate(qd);
	t->peak.bps = (uint32_t)rtnl_qdisc_tbf_get_peakrate(qd);
	t->rate.mpu = (uint16_t)rtnl_tc_get_mpu(TC_CAST(qd));
	t->rate.overhead = (uint16_t)rtnl_tc_get_overhead(TC_CAST(qd));
	nl_object_put(obj);
	/* the kernel's rate is max(ratespec, RATE64) (psched_ratecfg_precompute) */
	if (tb[T_RATE64] && get64(tb[T_RATE64]) > t->rate.bps)
		t->rate.bps = get64(tb[T_RATE64]);
	if (tb[T_PRATE64] && get64(tb[T_PRATE64]) > t->peak.bps)
		t->peak.bps = get64(tb[T_PRATE64]);
	p = nla_data(tb[T_PARMS]);
	t->rate.linklayer = p[1] & LINKLAYER_MASK;
	ratespec_extras(p + RATESPEC_SIZE, &t->peak);
	t->buffer = get32(p, 2 * RATESPEC_SIZE + 4);
	t->mtu = get32(p, 2 * RATESPEC_SIZE + 8);
	return 0;
}
