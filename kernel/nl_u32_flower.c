/* nl_u32_flower.c - `tcsim import`'s reading of u32 and flower filters:
 * a filter's TCA_OPTIONS into the model of nl_cls.h.
 *
 * The attributes are read raw here. libnl-route 3.7 has getters for a u32
 * filter's classid and keys only (rtnl_u32_get_classid, _get_key), none
 * for the selector's flags, offset and hash key, the link, the table a
 * node sits in or a table's divisor; its flower getters cover a few keys
 * and no masks of ports, tos, ttl or tcp flags. Reading every field from
 * the same bytes keeps one account of the message.
 *
 * u32 (net/sched/cls_u32.c, u32_dump): a table is dumped with
 * TCA_U32_DIVISOR only; a node with TCA_U32_SEL (struct tc_u32_sel and its
 * keys), TCA_U32_HASH (its table and bucket), and when set TCA_U32_CLASSID,
 * _LINK, _MARK, _FLAGS, _INDEV, the actions (_ACT, _POLICE) and _PCNT
 * (counters, ignored). flower (cls_flower.c, fl_dump): TCA_FLOWER_CLASSID,
 * _FLAGS, and each key with its mask when the mask is not zero.
 *
 * A malformed attribute or one this file does not know is an error, as
 * everywhere in `tcsim import`; what is understood but cannot be rebuilt
 * by tc lines for tcsim (actions, police, indev, skip_sw, keys tcsim's
 * flower does not model) goes to the filter's `why`: it is listed, not
 * written. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <linux/pkt_cls.h>
#include <netlink/attr.h>

#include "nl_cls.h"
#include "nl_import.h"
#include "nl_int.h"

/* struct tc_u32_sel is 16 bytes before its keys, a key 16 (pkt_cls.h) */
#define U32_SEL_SIZE 16
#define U32_KEY_SIZE 16
#define U32_MARK_SIZE 12 /* struct tc_u32_mark: val, mask, success */

static void why_add(struct nli_filter *f, const char *text)
{
	size_t n = strlen(f->why);

	if (strstr(f->why, text))
		return;
	snprintf(f->why + n, sizeof(f->why) - n, "%s%s", n ? "; " : "", text);
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint16_t rd16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

/* A u32 attribute of at least `need` bytes, or an error naming it. */
static int want_len(const struct nlattr *a, int need, const char *name, const char *wh, char *err,
		    size_t errlen)
{
	if (nla_len(a) < need)
		return nl_failf(err, errlen, -EPROTO, "%s: %s of %d bytes (%d expected)", wh, name,
				nla_len(a), need);
	return 0;
}

static int parse_sel(struct nli_u32 *u, const struct nlattr *a, const char *wh, char *err,
		     size_t errlen)
{
	const uint8_t *p = nla_data(a);
	int len = nla_len(a), ret;

	if ((ret = want_len(a, U32_SEL_SIZE, "TCA_U32_SEL", wh, err, errlen)))
		return ret;
	u->has_sel = 1;
	u->sflags = p[0];
	u->offshift = p[1];
	u->nkeys = p[2];
	u->offmask = ntohs(rd16(p + 4));
	u->off = rd16(p + 6);
	u->offoff = (int16_t)rd16(p + 8);
	u->hoff = (int16_t)rd16(p + 10);
	u->hmask = ntohl(rd32(p + 12));
	if (len != U32_SEL_SIZE + U32_KEY_SIZE * u->nkeys)
		return nl_failf(err, errlen, -EPROTO,
				"%s: TCA_U32_SEL of %d bytes for %u keys (%d expected)", wh, len,
				u->nkeys, U32_SEL_SIZE + U32_KEY_SIZE * u->nkeys);
	if (!u->nkeys)
		return 0;
	u->keys = calloc(u->nkeys, sizeof(*u->keys));
	if (!u->keys)
		return nl_failf(err, errlen, -ENOMEM, "out of memory");
	for (int i = 0; i < u->nkeys; i++) {
		const uint8_t *k = p + U32_SEL_SIZE + U32_KEY_SIZE * i;

		u->keys[i].mask = ntohl(rd32(k));
		u->keys[i].val = ntohl(rd32(k + 4));
		u->keys[i].off = (int32_t)rd32(k + 8);
		u->keys[i].offmask = (int32_t)rd32(k + 12);
	}
	return 0;
}

static int parse_u32(struct nli_filter *f, struct nlattr *opts, const char *wh, char *err,
		     size_t errlen)
{
	struct nlattr *tb[TCA_U32_MAX + 1] = {0}, *a;
	struct nli_u32 *u;
	int rem, ret;

	if (!nl_attrs_whole(nla_data(opts), nla_len(opts)))
		return nl_failf(err, errlen, -EPROTO, "%s: truncated attribute in TCA_OPTIONS", wh);
	nla_for_each_nested(a, opts, rem) {
		int type = nla_type(a);

		if (type < 1 || type > TCA_U32_MAX)
			return nl_failf(err, errlen, -EPROTO,
					"%s: unknown attribute %d in the u32 options (TCA_U32_*): "
					"a newer kernel? tcsim cannot tell what it means",
					wh, type);
		tb[type] = a;
	}
	u = calloc(1, sizeof(*u));
	if (!u)
		return nl_failf(err, errlen, -ENOMEM, "out of memory");
	f->u32 = u;
	u->table = (f->handle & 0xfffffu) == 0;
	if (u->table) {
		if (!tb[TCA_U32_DIVISOR])
			return nl_failf(err, errlen, -EPROTO, "%s: a hash table without TCA_U32_DIVISOR",
					wh);
		if ((ret = want_len(tb[TCA_U32_DIVISOR], 4, "TCA_U32_DIVISOR", wh, err, errlen)))
			return ret;
		u->divisor = nla_get_u32(tb[TCA_U32_DIVISOR]);
		if (!u->divisor || u->divisor > 256 || (u->divisor & (u->divisor - 1)))
			return nl_failf(err, errlen, -EPROTO,
					"%s: TCA_U32_DIVISOR %u (not a power of 2 from 1 to 256)", wh,
					u->divisor);
		return 0;
	}
	if (!tb[TCA_U32_SEL])
		return nl_failf(err, errlen, -EPROTO, "%s: a key node without TCA_U32_SEL", wh);
	if ((ret = parse_sel(u, tb[TCA_U32_SEL], wh, err, errlen)))
		return ret;
#define U32_GET(attr, has, field)                                                          \
	if (tb[attr]) {                                                                    \
		if ((ret = want_len(tb[attr], 4, #attr, wh, err, errlen)))                  \
			return ret;                                                        \
		u->has = 1;                                                                \
		u->field = nla_get_u32(tb[attr]);                                          \
	}
	U32_GET(TCA_U32_HASH, has_hash, hash)
	U32_GET(TCA_U32_CLASSID, has_classid, classid)
	U32_GET(TCA_U32_LINK, has_link, link)
	U32_GET(TCA_U32_FLAGS, has_flags, flags)
#undef U32_GET
	if (tb[TCA_U32_MARK]) {
		const uint8_t *p = nla_data(tb[TCA_U32_MARK]);

		if ((ret = want_len(tb[TCA_U32_MARK], U32_MARK_SIZE, "TCA_U32_MARK", wh, err,
				    errlen)))
			return ret;
		u->has_mark = 1;
		u->mark_val = rd32(p);
		u->mark_mask = rd32(p + 4);
	}
	if (tb[TCA_U32_ACT])
		why_add(f, "actions (tcsim models no tc actions)");
	if (tb[TCA_U32_POLICE])
		why_add(f, "police (tcsim models no policing)");
	if (tb[TCA_U32_INDEV])
		why_add(f, "indev (tcsim's u32 matches no input device)");
	if (u->flags & CLS_FLAGS_SKIP_SW)
		why_add(f, "skip_sw (the node runs in hardware only)");
	return 0;
}

/* ---- flower ---- */

/* The TCA_FLOWER_* keys tcsim's flower models, with their sizes. */
static const struct {
	int type, size;
} fl_keys[] = {
    {TCA_FLOWER_KEY_ETH_DST, 6},	  {TCA_FLOWER_KEY_ETH_DST_MASK, 6},
    {TCA_FLOWER_KEY_ETH_SRC, 6},	  {TCA_FLOWER_KEY_ETH_SRC_MASK, 6},
    {TCA_FLOWER_KEY_ETH_TYPE, 2},	  {TCA_FLOWER_KEY_IP_PROTO, 1},
    {TCA_FLOWER_KEY_IPV4_SRC, 4},	  {TCA_FLOWER_KEY_IPV4_SRC_MASK, 4},
    {TCA_FLOWER_KEY_IPV4_DST, 4},	  {TCA_FLOWER_KEY_IPV4_DST_MASK, 4},
    {TCA_FLOWER_KEY_IPV6_SRC, 16},	  {TCA_FLOWER_KEY_IPV6_SRC_MASK, 16},
    {TCA_FLOWER_KEY_IPV6_DST, 16},	  {TCA_FLOWER_KEY_IPV6_DST_MASK, 16},
    {TCA_FLOWER_KEY_TCP_SRC, 2},	  {TCA_FLOWER_KEY_TCP_DST, 2},
    {TCA_FLOWER_KEY_UDP_SRC, 2},	  {TCA_FLOWER_KEY_UDP_DST, 2},
    {TCA_FLOWER_KEY_TCP_SRC_MASK, 2},	  {TCA_FLOWER_KEY_TCP_DST_MASK, 2},
    {TCA_FLOWER_KEY_UDP_SRC_MASK, 2},	  {TCA_FLOWER_KEY_UDP_DST_MASK, 2},
    {TCA_FLOWER_KEY_SCTP_SRC, 2},	  {TCA_FLOWER_KEY_SCTP_DST, 2},
    {TCA_FLOWER_KEY_SCTP_SRC_MASK, 2},	  {TCA_FLOWER_KEY_SCTP_DST_MASK, 2},
    {TCA_FLOWER_KEY_VLAN_ID, 2},	  {TCA_FLOWER_KEY_VLAN_PRIO, 1},
    {TCA_FLOWER_KEY_VLAN_ETH_TYPE, 2},	  {TCA_FLOWER_KEY_ICMPV4_CODE, 1},
    {TCA_FLOWER_KEY_ICMPV4_CODE_MASK, 1}, {TCA_FLOWER_KEY_ICMPV4_TYPE, 1},
    {TCA_FLOWER_KEY_ICMPV4_TYPE_MASK, 1}, {TCA_FLOWER_KEY_ICMPV6_CODE, 1},
    {TCA_FLOWER_KEY_ICMPV6_CODE_MASK, 1}, {TCA_FLOWER_KEY_ICMPV6_TYPE, 1},
    {TCA_FLOWER_KEY_ICMPV6_TYPE_MASK, 1}, {TCA_FLOWER_KEY_TCP_FLAGS, 2},
    {TCA_FLOWER_KEY_TCP_FLAGS_MASK, 2},	  {TCA_FLOWER_KEY_IP_TOS, 1},
    {TCA_FLOWER_KEY_IP_TOS_MASK, 1},	  {TCA_FLOWER_KEY_IP_TTL, 1},
    {TCA_FLOWER_KEY_IP_TTL_MASK, 1},	  {TCA_FLOWER_KEY_PORT_SRC_MIN, 2},
    {TCA_FLOWER_KEY_PORT_SRC_MAX, 2},	  {TCA_FLOWER_KEY_PORT_DST_MIN, 2},
    {TCA_FLOWER_KEY_PORT_DST_MAX, 2},
};

static int fl_key_size(int type)
{
	for (size_t i = 0; i < sizeof(fl_keys) / sizeof(fl_keys[0]); i++)
		if (fl_keys[i].type == type)
			return fl_keys[i].size;
	return 0;
}

static int parse_flower(struct nli_filter *f, struct nlattr *opts, const char *wh, char *err,
			size_t errlen)
{
	struct nli_flower *fl;
	struct nlattr *a;
	int rem;

	if (!nl_attrs_whole(nla_data(opts), nla_len(opts)))
		return nl_failf(err, errlen, -EPROTO, "%s: truncated attribute in TCA_OPTIONS", wh);
	fl = calloc(1, sizeof(*fl));
	if (!fl)
		return nl_failf(err, errlen, -ENOMEM, "out of memory");
	f->flower = fl;
	nla_for_each_nested(a, opts, rem) {
		int type = nla_type(a), size;
		char text[96];

		if (type < 1 || type > TCA_FLOWER_MAX)
			return nl_failf(err, errlen, -EPROTO,
					"%s: unknown attribute %d in the flower options "
					"(TCA_FLOWER_*): a newer kernel? tcsim cannot tell what it "
					"means",
					wh, type);
		switch (type) {
		case TCA_FLOWER_CLASSID:
		case TCA_FLOWER_FLAGS:
			if (nla_len(a) < 4)
				return nl_failf(err, errlen, -EPROTO, "%s: %s of %d bytes", wh,
						type == TCA_FLOWER_CLASSID ? "TCA_FLOWER_CLASSID"
									   : "TCA_FLOWER_FLAGS",
						nla_len(a));
			if (type == TCA_FLOWER_CLASSID) {
				fl->has_classid = 1;
				fl->classid = nla_get_u32(a);
			} else {
				fl->flags = nla_get_u32(a);
			}
			continue;
		case TCA_FLOWER_IN_HW_COUNT: /* how many devices offload it: state */
			continue;
		case TCA_FLOWER_ACT:
			why_add(f, "actions (tcsim models no tc actions)");
			continue;
		case TCA_FLOWER_INDEV:
			why_add(f, "indev (tcsim's flower matches no input device)");
			continue;
		}
		size = fl_key_size(type);
		if (!size) {
			snprintf(text, sizeof(text), "key attribute %d (TCA_FLOWER_*), not modelled",
				 type);
			why_add(f, text);
			continue;
		}
		if (nla_len(a) != size)
			return nl_failf(err, errlen, -EPROTO,
					"%s: flower attribute %d of %d bytes (%d expected)", wh, type,
					nla_len(a), size);
		fl->len[type] = (uint8_t)size;
		memcpy(fl->val[type], nla_data(a), (size_t)size);
	}
	if (fl->flags & CLS_FLAGS_SKIP_SW)
		why_add(f, "skip_sw (the filter runs in hardware only)");
	return 0;
}

int nl_cls_parse(struct nli_filter *f, struct nlattr *opts, const char *wh, char *err,
		 size_t errlen)
{
	if (!opts) {
		if (f->handle)
			return nl_failf(err, errlen, -EPROTO, "%s: no TCA_OPTIONS", wh);
		return 0; /* the tcf_proto's own line */
	}
	if (nl_is_kind(f->kind, "u32"))
		return parse_u32(f, opts, wh, err, errlen);
	return parse_flower(f, opts, wh, err, errlen);
}

void nl_cls_free(struct nli_filter *f)
{
	nl_basic_free(f);
	if (f->u32)
		free(f->u32->keys);
	free(f->u32);
	free(f->flower);
	f->u32 = NULL;
	f->flower = NULL;
}
