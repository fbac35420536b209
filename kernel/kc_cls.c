/* kc_cls.c - `tcsim kernel-check` installs a chain's u32, flower and basic
 * filters in the kernel, as tc would send them (RTM_NEWTFILTER, TCA_U32_*,
 * TCA_FLOWER_*, TCA_BASIC_*), from tcsim's own model of each filter
 * (cls_u32_elem_at, cls_flower_at, cls_basic_at); and says in one line that
 * the kernel lacks the classifier when it does (ENOENT on the first one).
 *
 * flower: the attributes iproute2 6.1's f_flower.c sends for the key tcsim
 * keeps (the filter's protocol as eth_type unless all, a plain port without
 * its mask, the flags always), the masks in tcsim's order, each with its
 * filters, explicit handles. basic: the classid and the ematch tree as
 * m_ematch.c and em_cmp.c, em_u32.c, em_meta.c pack it, oldest filter first
 * (the kernel's list is newest first). tests/kernel/kc_msg_tc.sh compares
 * both with what tc sends, attribute for attribute.
 *
 * u32's tables share one id counter per qdisc, and a root table's id (the
 * one each tcf_proto makes, 800: then the next automatic one) cannot be
 * asked for, so the messages go in the order that makes tcsim's ids again:
 * tcf_protos by their root's id, each with its own tables (automatic ids
 * left to the kernel, others explicit), one of its nodes making it when it
 * has no table; then every node with its handle, table and bucket
 * (TCA_U32_HASH), selector, classid, link, mark and skip_hw. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/pkt_cls.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>

/* the kernel's pkt_sched.h and tcsim's cls.h define the same handle
 * macros; tcsim's win from here on */
#undef TC_H_MAJ
#undef TC_H_MIN
#undef TC_H_MAKE
#undef TC_H_ROOT
#undef TC_H_UNSPEC

#include "cls.h"
#include "kc_cls.h"
#include "kc_int.h"

#define U32_AUTO(id) ((((uint32_t)(id)) | 0x800u) << 20) /* gen_new_htid's ids */
#define KC_U32_MAXTP 64

/* One RTM_NEWTFILTER of kind u32 for element e (a table when is_table). */
static int send_u32(struct nl_sock *sk, int ifindex, uint32_t parent, const struct tcf_proto *tp,
		    const struct cls_u32_elem *e, uint32_t handle)
{
	struct tcmsg t = {
	    .tcm_family = AF_UNSPEC,
	    .tcm_ifindex = ifindex,
	    .tcm_handle = handle,
	    .tcm_parent = parent,
	    .tcm_info = TC_H_MAKE(tp->prio, htons(tp->protocol)),
	};
	struct nl_msg *m = nlmsg_alloc_size(16 * 128 + 1024);
	struct nlattr *opts;
	uint8_t sel[16 + 16 * 128];
	int ok, rc;

	if (!m)
		return -NLE_NOMEM;
	ok = nlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, RTM_NEWTFILTER, 0, NLM_F_CREATE | NLM_F_EXCL) &&
	     nlmsg_append(m, &t, sizeof(t), NLMSG_ALIGNTO) >= 0 &&
	     nla_put_string(m, TCA_KIND, "u32") >= 0 && (opts = nla_nest_start(m, TCA_OPTIONS));
	if (ok && e->is_table) {
		ok = nla_put_u32(m, TCA_U32_DIVISOR, e->divisor) >= 0;
	} else if (ok) {
		/* struct tc_u32_sel: flags, offshift, nkeys, pad, offmask (be),
		 * off, offoff, hoff, hmask (be), then the keys (mask, val: be) */
		uint16_t s16;
		uint32_t s32;

		memset(sel, 0, sizeof(sel));
		sel[0] = e->sflags;
		sel[1] = e->offshift;
		sel[2] = (uint8_t)e->nkeys;
		s16 = htons(e->offmask);
		memcpy(sel + 4, &s16, 2);
		memcpy(sel + 6, &e->off, 2);
		memcpy(sel + 8, &e->offoff, 2);
		memcpy(sel + 10, &e->hoff, 2);
		s32 = htonl(e->hmask);
		memcpy(sel + 12, &s32, 4);
		for (unsigned int j = 0; j < e->nkeys; j++) {
			uint8_t *k = sel + 16 + 16 * j;

			s32 = htonl(e->keys[j].mask);
			memcpy(k, &s32, 4);
			s32 = htonl(e->keys[j].val);
			memcpy(k + 4, &s32, 4);
			memcpy(k + 8, &e->keys[j].off, 4);
			memcpy(k + 12, &e->keys[j].offmask, 4);
		}
		ok = nla_put(m, TCA_U32_SEL, (int)(16 + 16 * e->nkeys), sel) >= 0 &&
		     nla_put_u32(m, TCA_U32_HASH, e->handle & 0xFFFFF000u) >= 0 &&
		     (!e->classid || nla_put_u32(m, TCA_U32_CLASSID, e->classid) >= 0) &&
		     (!e->link || nla_put_u32(m, TCA_U32_LINK, e->link) >= 0) &&
		     (!e->flags || nla_put_u32(m, TCA_U32_FLAGS, e->flags) >= 0);
		if (ok && (e->mark_val || e->mark_mask)) {
			uint32_t mark[3] = {e->mark_val, e->mark_mask, 0};

			ok = nla_put(m, TCA_U32_MARK, sizeof(mark), mark) >= 0;
		}
	}
	if (!ok) {
		nlmsg_free(m);
		return -NLE_NOMEM;
	}
	nla_nest_end(m, opts);
	rc = nl_send_auto(sk, m);
	nlmsg_free(m);
	return rc < 0 ? rc : nl_wait_for_ack(sk);
}

struct u32_tp {
	const struct tcf_proto *tp;
	uint32_t root;
	size_t n; /* elements */
};

static int u32_fail(struct kc_result *r, int rc, const struct tcf_proto *tp, uint32_t handle,
		    uint32_t parent)
{
	char h[32];

	tc_print_classid(h, sizeof(h), parent);
	if (kc_is_absent(rc))
		return kc_rfail(r, KCHECK_CANNOT_RUN, "the kernel lacks cls_u32 (filter pref %u of %s: %s)",
				tp->prio >> 16, h, nl_geterror(rc));
	return kc_rfail(r, KCHECK_ERROR, "the kernel refused u32 filter pref %u fh %x on %s: %s",
			tp->prio >> 16, handle, h, nl_geterror(rc));
}

static int has(const uint32_t *v, size_t n, uint32_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

/* Every u32 tcf_proto of chain. */
static int add_u32(struct nl_sock *sk, int ifindex, const struct tcf_chain *chain, uint32_t parent,
		   struct kc_result *r)
{
	struct u32_tp tps[KC_U32_MAXTP];
	struct cls_u32_elem *e = malloc(sizeof(*e));
	uint32_t *made = NULL, cursor = 1;
	size_t ntp = 0, nmade = 0, total = 0;
	char *sent = NULL;
	int rc = 0;

	if (!e)
		return kc_rfail(r, KCHECK_ERROR, "out of memory");
	for (const struct tcf_proto *tp = chain->head; tp; tp = tp->next) {
		if (tp->ops != &cls_u32_ops)
			continue;
		if (ntp == KC_U32_MAXTP) {
			free(e);
			return kc_rfail(r, KCHECK_ERROR, "more than %d u32 filters on one qdisc",
					KC_U32_MAXTP);
		}
		tps[ntp] = (struct u32_tp){.tp = tp};
		for (size_t i = 0; !cls_u32_elem_at(tp, i, e); i++) {
			if (e->is_root)
				tps[ntp].root = e->handle;
			tps[ntp].n++;
		}
		total += tps[ntp].n;
		ntp++;
	}
	for (size_t a = 1; a < ntp; a++) /* by root id: the order they were made in */
		for (size_t b = a; b > 0 && tps[b - 1].root > tps[b].root; b--) {
			struct u32_tp x = tps[b];

			tps[b] = tps[b - 1];
			tps[b - 1] = x;
		}
	made = calloc(total + 1, sizeof(*made));
	sent = calloc(total + 1, 1);
	if (!made || !sent) {
		rc = kc_rfail(r, KCHECK_ERROR, "out of memory");
		goto out;
	}
	/* the tables, tcf_proto by tcf_proto; sent[] is per element, offset by tcf_proto */
	for (size_t i = 0, base = 0; i < ntp; base += tps[i].n, i++) {
		const struct tcf_proto *tp = tps[i].tp;
		uint32_t want = nmade ? U32_AUTO(cursor) : 0x80000000u;
		int opened = 0;

		if (tps[i].root != want) {
			char h[32];

			tc_print_classid(h, sizeof(h), parent);
			rc = kc_rfail(r, KCHECK_ERROR,
				      "u32 filter pref %u of %s: its root table %x: is not the one the "
				      "kernel would make (%x:): tables were deleted",
				      tp->prio >> 16, h, tps[i].root >> 20, want >> 20);
			goto out;
		}
		if (nmade)
			cursor++;
		made[nmade++] = want;
		for (size_t k = tps[i].n; k-- > 0;) {
			uint32_t h;

			if (cls_u32_elem_at(tp, k, e) || !e->is_table || e->is_root)
				continue;
			h = e->handle == U32_AUTO(cursor) ? 0 : e->handle;
			if (!h)
				cursor++;
			if ((rc = send_u32(sk, ifindex, parent, tp, e, h)))
				goto fail;
			made[nmade++] = e->handle;
			sent[base + k] = 1;
			opened = 1;
		}
		for (size_t k = 0; !opened && k < tps[i].n; k++) {
			if (cls_u32_elem_at(tp, k, e) || e->is_table ||
			    (e->link && !has(made, nmade, e->link)))
				continue;
			if ((rc = send_u32(sk, ifindex, parent, tp, e, e->handle)))
				goto fail;
			sent[base + k] = 1;
			opened = 1;
		}
		if (!opened) {
			rc = kc_rfail(r, KCHECK_ERROR,
				      "u32 filter pref %u: no node can make its tcf_proto first",
				      tp->prio >> 16);
			goto out;
		}
	}
	for (size_t i = 0, base = 0; i < ntp; base += tps[i].n, i++)
		for (size_t k = 0; k < tps[i].n; k++) {
			if (sent[base + k] || cls_u32_elem_at(tps[i].tp, k, e) || e->is_table)
				continue;
			if ((rc = send_u32(sk, ifindex, parent, tps[i].tp, e, e->handle)))
				goto fail;
		}
	goto out;
fail:
	rc = u32_fail(r, rc, tps[0].tp, e->handle, parent);
out:
	free(e);
	free(made);
	free(sent);
	return rc;
}

/* ---- flower ---- */

static int put_be16(struct nl_msg *m, int type, uint16_t v)
{
	uint16_t be = htons(v);

	return nla_put(m, type, 2, &be) >= 0;
}

static int put_u8(struct nl_msg *m, int type, uint8_t v)
{
	return nla_put(m, type, 1, &v) >= 0;
}

/* key and mask attributes, each when its mask is not all zero */
static int put_masked(struct nl_msg *m, int ktype, int mtype, const void *k, const void *mk,
		      int len)
{
	static const uint8_t zero[16];

	if (!memcmp(mk, zero, (size_t)len))
		return 1;
	return nla_put(m, ktype, len, k) >= 0 && nla_put(m, mtype, len, mk) >= 0;
}

static int is_vlan_type(uint16_t t)
{
	return t == 0x8100 || t == 0x88a8;
}

struct nl_msg *kc_flower_msg(int ifindex, uint32_t parent, const struct tcf_proto *tp,
			     const struct cls_flower_info *fi)
{
	struct tcmsg t = {
	    .tcm_family = AF_UNSPEC,
	    .tcm_ifindex = ifindex,
	    .tcm_handle = fi->handle,
	    .tcm_parent = parent,
	    .tcm_info = TC_H_MAKE(tp->prio, htons(tp->protocol)),
	};
	const struct cls_flower_key *k = &fi->key, *mk = &fi->mask;
	struct nl_msg *m = nlmsg_alloc();
	struct nlattr *opts = NULL;
	int ok, v4 = k->addr_type == 4, alen = v4 ? 4 : 16;

	if (!m)
		return NULL;
	ok = nlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, RTM_NEWTFILTER, 0, NLM_F_CREATE | NLM_F_EXCL) &&
	     nlmsg_append(m, &t, sizeof(t), NLMSG_ALIGNTO) >= 0 &&
	     nla_put_string(m, TCA_KIND, "flower") >= 0 && (opts = nla_nest_start(m, TCA_OPTIONS));
	if (ok && fi->classid)
		ok = nla_put_u32(m, TCA_FLOWER_CLASSID, fi->classid) >= 0;
	/* iproute2 sends the filter's protocol as the key's eth_type unless all;
	 * fl_set_key takes a VLAN one as the outer tag's TPID */
	if (ok && tp->protocol != ETH_P_ALL)
		ok = put_be16(m, TCA_FLOWER_KEY_ETH_TYPE, tp->protocol);
	if (ok && is_vlan_type(tp->protocol)) {
		if (mk->vlan_id)
			ok = nla_put_u16(m, TCA_FLOWER_KEY_VLAN_ID, k->vlan_id) >= 0;
		if (ok && mk->vlan_prio)
			ok = put_u8(m, TCA_FLOWER_KEY_VLAN_PRIO, k->vlan_prio);
		if (ok && fi->vlan_ethtype)
			ok = put_be16(m, TCA_FLOWER_KEY_VLAN_ETH_TYPE, k->vlan_eth_type);
	}
	if (ok)
		ok = put_masked(m, TCA_FLOWER_KEY_ETH_DST, TCA_FLOWER_KEY_ETH_DST_MASK, k->dst_mac,
				mk->dst_mac, 6) &&
		     put_masked(m, TCA_FLOWER_KEY_ETH_SRC, TCA_FLOWER_KEY_ETH_SRC_MASK, k->src_mac,
				mk->src_mac, 6);
	if (ok && mk->ip_proto)
		ok = put_u8(m, TCA_FLOWER_KEY_IP_PROTO, k->ip_proto);
	if (ok && mk->tos)
		ok = put_u8(m, TCA_FLOWER_KEY_IP_TOS, k->tos) &&
		     put_u8(m, TCA_FLOWER_KEY_IP_TOS_MASK, mk->tos);
	if (ok && mk->ttl)
		ok = put_u8(m, TCA_FLOWER_KEY_IP_TTL, k->ttl) &&
		     put_u8(m, TCA_FLOWER_KEY_IP_TTL_MASK, mk->ttl);
	if (ok && mk->addr_type) {
		static const uint8_t zero[16];
		int src = !!memcmp(mk->src, zero, (size_t)alen), dst = !!memcmp(mk->dst, zero, (size_t)alen);

		/* an address pair whose masks are both 0 (0.0.0.0/0) still sets
		 * the address type: the destination says it */
		if (dst || !src)
			ok = nla_put(m, v4 ? TCA_FLOWER_KEY_IPV4_DST : TCA_FLOWER_KEY_IPV6_DST, alen,
				     k->dst) >= 0 &&
			     nla_put(m, v4 ? TCA_FLOWER_KEY_IPV4_DST_MASK : TCA_FLOWER_KEY_IPV6_DST_MASK,
				     alen, mk->dst) >= 0;
		if (ok && src)
			ok = nla_put(m, v4 ? TCA_FLOWER_KEY_IPV4_SRC : TCA_FLOWER_KEY_IPV6_SRC, alen,
				     k->src) >= 0 &&
			     nla_put(m, v4 ? TCA_FLOWER_KEY_IPV4_SRC_MASK : TCA_FLOWER_KEY_IPV6_SRC_MASK,
				     alen, mk->src) >= 0;
	}
	if (ok && (k->ip_proto == 6 || k->ip_proto == 17 || k->ip_proto == 132) && mk->ip_proto) {
		int tcp = k->ip_proto == 6, udp = k->ip_proto == 17;
		int ds = tcp ? TCA_FLOWER_KEY_TCP_DST : udp ? TCA_FLOWER_KEY_UDP_DST : TCA_FLOWER_KEY_SCTP_DST;
		int dm = tcp ? TCA_FLOWER_KEY_TCP_DST_MASK
			 : udp ? TCA_FLOWER_KEY_UDP_DST_MASK : TCA_FLOWER_KEY_SCTP_DST_MASK;
		int ss = tcp ? TCA_FLOWER_KEY_TCP_SRC : udp ? TCA_FLOWER_KEY_UDP_SRC : TCA_FLOWER_KEY_SCTP_SRC;
		int sm = tcp ? TCA_FLOWER_KEY_TCP_SRC_MASK
			 : udp ? TCA_FLOWER_KEY_UDP_SRC_MASK : TCA_FLOWER_KEY_SCTP_SRC_MASK;

		/* a plain port goes without its mask (the kernel's is then all
		 * ones), PORT/MASK with it, as f_flower.c sends them */
		if (mk->dport)
			ok = put_be16(m, ds, k->dport) && (mk->dport == 0xffff || put_be16(m, dm, mk->dport));
		if (ok && mk->sport)
			ok = put_be16(m, ss, k->sport) && (mk->sport == 0xffff || put_be16(m, sm, mk->sport));
		if (ok && mk->dport_min)
			ok = put_be16(m, TCA_FLOWER_KEY_PORT_DST_MIN, k->dport_min) &&
			     put_be16(m, TCA_FLOWER_KEY_PORT_DST_MAX, k->dport_max);
		if (ok && mk->sport_min)
			ok = put_be16(m, TCA_FLOWER_KEY_PORT_SRC_MIN, k->sport_min) &&
			     put_be16(m, TCA_FLOWER_KEY_PORT_SRC_MAX, k->sport_max);
		if (ok && tcp && mk->tcp_flags)
			ok = put_be16(m, TCA_FLOWER_KEY_TCP_FLAGS, k->tcp_flags) &&
			     put_be16(m, TCA_FLOWER_KEY_TCP_FLAGS_MASK, mk->tcp_flags);
	}
	if (ok && (mk->icmp_type || mk->icmp_code)) {
		int v6 = k->n_proto == 0x86dd;

		if (mk->icmp_type)
			ok = put_u8(m, v6 ? TCA_FLOWER_KEY_ICMPV6_TYPE : TCA_FLOWER_KEY_ICMPV4_TYPE,
				    k->icmp_type) &&
			     put_u8(m, v6 ? TCA_FLOWER_KEY_ICMPV6_TYPE_MASK : TCA_FLOWER_KEY_ICMPV4_TYPE_MASK,
				    mk->icmp_type);
		if (ok && mk->icmp_code)
			ok = put_u8(m, v6 ? TCA_FLOWER_KEY_ICMPV6_CODE : TCA_FLOWER_KEY_ICMPV4_CODE,
				    k->icmp_code) &&
			     put_u8(m, v6 ? TCA_FLOWER_KEY_ICMPV6_CODE_MASK : TCA_FLOWER_KEY_ICMPV4_CODE_MASK,
				    mk->icmp_code);
	}
	if (ok) /* f_flower.c always sends the flags */
		ok = nla_put_u32(m, TCA_FLOWER_FLAGS, fi->flags) >= 0;
	if (!ok) {
		nlmsg_free(m);
		return NULL;
	}
	nla_nest_end(m, opts);
	return m;
}

/* ---- basic ---- */

/* One match of the tree (struct tcf_ematch_hdr, then its data) as
 * iproute2's m_ematch.c and em_*.c pack it: numbered from 1 in the list. */
static int put_em(struct nl_msg *m, int nr, const struct cls_basic_em *e)
{
	uint8_t buf[64];
	uint16_t hdr[4] = {0, e->kind, (uint16_t)(e->rel | (e->invert ? 4 : 0)), 0};
	struct nlattr *a;
	int len = 8;

	memcpy(buf, hdr, 8);
	switch (e->kind) {
	case CLS_EM_CONTAINER:
		memcpy(buf + 8, &e->ref, 4);
		len += 4;
		break;
	case CLS_EM_CMP: /* struct tcf_em_cmp: the nibbles low first */
		memcpy(buf + 8, &e->cmp_val, 4);
		memcpy(buf + 12, &e->cmp_mask, 4);
		memcpy(buf + 16, &e->cmp_off, 2);
		buf[18] = (uint8_t)((e->cmp_align & 0xf) | (e->cmp_trans ? 0x10 : 0));
		buf[19] = (uint8_t)((e->cmp_layer & 0xf) | (e->cmp_opnd << 4));
		len += 12;
		break;
	case CLS_EM_U32: { /* struct tc_u32_key */
		uint32_t mask = htonl(e->u32_mask), val = htonl(e->u32_val);

		memcpy(buf + 8, &mask, 4);
		memcpy(buf + 12, &val, 4);
		memcpy(buf + 16, &e->u32_off, 4);
		memcpy(buf + 20, &e->u32_offmask, 4);
		len += 16;
		break;
	}
	case CLS_EM_META: {
		/* TCA_EM_META_HDR (struct tcf_meta_hdr: each side's kind, the
		 * int type's 1 << 12 with its id, its shift, and the left's op),
		 * then TCA_EM_META_LVALUE and _RVALUE, 32 bits each */
		uint8_t *p = buf + 8;

		for (int s = 0; s < 2; s++) {
			uint16_t kind = (uint16_t)(1u << 12 | e->meta_id[s]);
			uint16_t alen = 4 + 8, type = 1;

			if (!s) {
				memcpy(p, &alen, 2);
				memcpy(p + 2, &type, 2);
				p += 4;
			}
			memcpy(p, &kind, 2);
			p[2] = e->meta_shift[s];
			p[3] = s ? 0 : e->meta_op;
			p += 4;
		}
		for (int s = 0; s < 2; s++) {
			uint16_t alen = 8, type = (uint16_t)(2 + s);

			memcpy(p, &alen, 2);
			memcpy(p + 2, &type, 2);
			memcpy(p + 4, &e->meta_val[s], 4);
			p += 8;
		}
		len = (int)(p - buf);
		break;
	}
	default:
		return 0;
	}
	a = nla_reserve(m, nr, len);
	if (!a)
		return 0;
	memcpy(nla_data(a), buf, (size_t)len);
	return 1;
}

struct nl_msg *kc_basic_msg(int ifindex, uint32_t parent, const struct tcf_proto *tp,
			    const struct cls_basic_info *bi)
{
	struct tcmsg t = {
	    .tcm_family = AF_UNSPEC,
	    .tcm_ifindex = ifindex,
	    .tcm_handle = bi->handle,
	    .tcm_parent = parent,
	    .tcm_info = TC_H_MAKE(tp->prio, htons(tp->protocol)),
	};
	struct nl_msg *m = nlmsg_alloc_size(65536);
	struct nlattr *opts = NULL, *tree = NULL, *list = NULL;
	int ok;

	if (!m)
		return NULL;
	ok = nlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, RTM_NEWTFILTER, 0, NLM_F_CREATE | NLM_F_EXCL) &&
	     nlmsg_append(m, &t, sizeof(t), NLMSG_ALIGNTO) >= 0 &&
	     nla_put_string(m, TCA_KIND, "basic") >= 0 && (opts = nla_nest_start(m, TCA_OPTIONS));
	if (ok && bi->has_classid)
		ok = nla_put_u32(m, TCA_BASIC_CLASSID, bi->classid) >= 0;
	if (ok && bi->n) {
		uint16_t hdr[2] = {(uint16_t)bi->n, 0}; /* struct tcf_ematch_tree_hdr */

		ok = (tree = nla_nest_start(m, TCA_BASIC_EMATCHES)) &&
		     nla_put(m, TCA_EMATCH_TREE_HDR, sizeof(hdr), hdr) >= 0 &&
		     (list = nla_nest_start(m, TCA_EMATCH_TREE_LIST));
		for (unsigned i = 0; ok && i < bi->n; i++)
			ok = put_em(m, (int)i + 1, &bi->em[i]);
		if (ok) {
			nla_nest_end(m, list);
			nla_nest_end(m, tree);
		}
	}
	if (!ok) {
		nlmsg_free(m);
		return NULL;
	}
	nla_nest_end(m, opts);
	return m;
}

/* Every filter of tp (flower: masks in tcsim's order; basic: oldest
 * first, as the kernel's list is newest first), each with its handle. */
static int add_msgs(struct nl_sock *sk, int ifindex, const struct tcf_proto *tp, uint32_t parent,
		    struct kc_result *r)
{
	char h[32];

	tc_print_classid(h, sizeof(h), parent);
	for (size_t i = 0; tp->ops->count(tp) > i; i++) {
		struct nl_msg *m = kc_cls_msg(ifindex, parent, tp, i);
		uint32_t handle;
		int rc;

		if (!m)
			return kc_rfail(r, KCHECK_ERROR, "out of memory");
		handle = ((struct tcmsg *)nlmsg_data(nlmsg_hdr(m)))->tcm_handle;
		rc = nl_send_auto(sk, m);
		nlmsg_free(m);
		if (rc >= 0)
			rc = nl_wait_for_ack(sk);
		if (kc_is_absent(rc) || rc == -NLE_NOADDR)
			return kc_rfail(r, KCHECK_CANNOT_RUN,
					"the kernel lacks cls_%s (filter pref %u of %s: %s)",
					tp->ops->kind, tp->prio >> 16, h, nl_geterror(rc));
		if (rc < 0)
			return kc_rfail(r, KCHECK_ERROR,
					"the kernel refused %s filter pref %u handle 0x%x on %s: %s",
					tp->ops->kind, tp->prio >> 16, handle, h, nl_geterror(rc));
	}
	return 0;
}

/* Is cls_KIND in this kernel? A filter of that kind without options at
 * parent: the kernel answers ENOENT when it has no such classifier. */
static int probe_cls(struct nl_sock *sk, int ifindex, uint32_t parent, const struct tcf_proto *tp,
		     const char *kind)
{
	struct tcmsg t = {
	    .tcm_family = AF_UNSPEC,
	    .tcm_ifindex = ifindex,
	    .tcm_parent = parent,
	    .tcm_info = TC_H_MAKE(tp->prio, htons(tp->protocol)),
	};
	struct nl_msg *m = nlmsg_alloc();
	int rc;

	if (!m || !nlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, RTM_NEWTFILTER, 0,
			     NLM_F_CREATE | NLM_F_EXCL) ||
	    nlmsg_append(m, &t, sizeof(t), NLMSG_ALIGNTO) < 0 || nla_put_string(m, TCA_KIND, kind) < 0) {
		nlmsg_free(m);
		return -NLE_NOMEM;
	}
	rc = nl_send_auto(sk, m);
	nlmsg_free(m);
	return rc < 0 ? rc : nl_wait_for_ack(sk);
}

int kc_add_cls(struct nl_sock *sk, int ifindex, const struct tcf_chain *chain,
	       const struct tcf_proto *tp, uint32_t parent, struct kc_result *r)
{
	char h[32];
	int rc;

	if (tp->ops == &cls_u32_ops) {
		/* all of the chain's u32 filters at once, when the first is met */
		for (const struct tcf_proto *p = chain->head; p != tp; p = p->next)
			if (p->ops == &cls_u32_ops)
				return 0;
		return add_u32(sk, ifindex, chain, parent, r);
	}
	if (tp->ops == &cls_flower_ops || tp->ops == &cls_basic_ops)
		return add_msgs(sk, ifindex, tp, parent, r);
	tc_print_classid(h, sizeof(h), parent);
	rc = probe_cls(sk, ifindex, parent, tp, tp->ops->kind);
	if (kc_is_absent(rc) || rc == -NLE_NOADDR)
		return kc_rfail(r, KCHECK_CANNOT_RUN, "the kernel lacks cls_%s (filter pref %u of %s: %s)",
				tp->ops->kind, tp->prio >> 16, h, nl_geterror(rc));
	return kc_rfail(r, KCHECK_ERROR,
			"kernel-check cannot install %s filters yet (filter pref %u of %s)",
			tp->ops->kind, tp->prio >> 16, h);
}

struct nl_msg *kc_cls_msg(int ifindex, uint32_t parent, const struct tcf_proto *tp, size_t i)
{
	struct cls_flower_info fi;

	if (tp->ops == &cls_flower_ops && !cls_flower_at(tp, i, &fi))
		return kc_flower_msg(ifindex, parent, tp, &fi);
	if (tp->ops == &cls_basic_ops) {
		struct cls_basic_info *bi = malloc(sizeof(*bi));
		struct nl_msg *m = NULL;

		if (bi && !cls_basic_at(tp, i, bi))
			m = kc_basic_msg(ifindex, parent, tp, bi);
		free(bi);
		return m;
	}
	return NULL;
}
