/* lint_vlan.c - check 19 of `tcsim lint`, the one that needs traffic: a
 * `protocol ip` (or `ipv6`) filter in front of VLAN-tagged traffic.
 *
 * tc matches a filter's protocol against tc_skb_protocol(): for a frame
 * whose 802.1Q/802.1ad tag was offloaded that is the tag's TPID
 * (skb->vlan_proto), and for a tag left in the data it is skb->protocol,
 * the TPID again. Either way an IPv4 packet inside a tag is protocol
 * 802.1Q (or 802.1ad) to the filter chain, and a `protocol ip` filter never
 * runs on it. tcsim classifies the same way (qdisc_pkt_protocol), in both
 * of its VLAN modes (--vlan offload, inline); only a VLAN device that
 * takes the tag off before the qdisc, which tcsim does not model, gives the
 * filter the inner packet.
 *
 * The captures that enter each device are read (as `tcsim run` would
 * carry them: frames it rejects are not counted); frames whose outermost
 * type is 802.1Q or 802.1ad are counted by the type inside their last tag.
 * Every tcf_proto of the device (any qdisc, any kind) whose protocol is ip
 * with IPv4 inside tags, or ipv6 with IPv6 inside tags, gets one warning at
 * the line that made it, naming how many frames it never sees. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "capture.h"
#include "cls.h"
#include "lint.h"
#include "lint_int.h"
#include "sim.h"

#define ETH_P_IP_ 0x0800
#define ETH_P_IPV6_ 0x86dd

struct vlan_count {
	uint64_t frames, tagged, inner4, inner6;
	uint16_t tpid;	     /* the first tagged frame's outer TPID */
	const char *capture; /* the one capture that has tagged frames, or NULL */
	int ncaps;	     /* captures with tagged frames */
};

static int is_tag(uint16_t t)
{
	return t == 0x8100 || t == 0x88a8;
}

static int count_capture(const char *path, const char *name, struct vlan_count *vc, char *err,
			 size_t errlen)
{
	struct capture *c;
	struct cap_pkt p;
	uint64_t before = vc->tagged;
	int k;

	if (cap_open(&c, path, err, errlen))
		return -EIO;
	while ((k = cap_next(c, &p, err, errlen)) == 1) {
		uint32_t off = 12;
		uint16_t type;

		if (p.reject || p.caplen < 14)
			continue;
		vc->frames++;
		type = (uint16_t)(p.data[12] << 8 | p.data[13]);
		if (!is_tag(type))
			continue;
		if (!vc->tagged)
			vc->tpid = type;
		vc->tagged++;
		while (is_tag(type) && off + 4 + 2 <= p.caplen) {
			off += 4;
			type = (uint16_t)(p.data[off] << 8 | p.data[off + 1]);
		}
		vc->inner4 += type == ETH_P_IP_;
		vc->inner6 += type == ETH_P_IPV6_;
	}
	cap_close(c);
	if (k < 0)
		return -EIO;
	if (vc->tagged > before) {
		vc->capture = vc->ncaps ? NULL : name;
		vc->ncaps++;
	}
	return 0;
}

struct vwalk {
	struct lint *l;
	const struct vlan_count *vc;
};

static void vlan_qdisc(struct vwalk *w, const struct qdisc *q);

static void vlan_class(void *arg, const struct qdisc_class *c)
{
	if (c->leaf)
		vlan_qdisc(arg, c->leaf);
}

static void vlan_qdisc(struct vwalk *w, const struct qdisc *q)
{
	const struct vlan_count *vc = w->vc;

	if (!q)
		return;
	for (const struct tcf_proto *tp = q->ops->has_filters ? q->chain.head : NULL; tp;
	     tp = tp->next) {
		uint64_t n = tp->protocol == ETH_P_IP_	   ? vc->inner4
			     : tp->protocol == ETH_P_IPV6_ ? vc->inner6
							   : 0;
		int v6 = tp->protocol == ETH_P_IPV6_;
		char from[300];

		if (!n)
			continue;
		if (vc->capture)
			snprintf(from, sizeof(from), "%s", vc->capture);
		else
			snprintf(from, sizeof(from), "the %d captures into %s", vc->ncaps,
				 w->l->dev);
		lint_warn(
		    w->l, tp->where[0] ? tp->where : NULL,
		    "%s filter (pref %u, %s) on %s never sees the %llu %s packet%s of %s that "
		    "carry %s tag: tc matches a tagged frame as protocol %s (the tag's TPID, "
		    "offloaded or in the frame), so they skip it; match them with `protocol "
		    "%s` (flower: vlan_ethtype %s; u32/bpf: read past the tag) or take the "
		    "tag off before this qdisc (a VLAN device)",
		    v6 ? "this `protocol ipv6`" : "this `protocol ip`", tp->prio >> 16,
		    tp->ops->kind, w->l->dev, (unsigned long long)n, v6 ? "IPv6" : "IPv4",
		    n == 1 ? "" : "s", from, vc->tpid == 0x88a8 ? "an 802.1ad" : "an 802.1Q",
		    vc->tpid == 0x88a8 ? "802.1ad" : "802.1Q",
		    vc->tpid == 0x88a8 ? "802.1ad" : "802.1Q", v6 ? "ipv6" : "ip");
	}
	if (q->ops->walk)
		q->ops->walk(q, vlan_class, w);
}

int lint_check_vlan(struct lint *l, const struct sim *s, const struct lint_input *in, int nin,
		    char *err, size_t errlen)
{
	for (int i = 0; i < s->ndevs; i++) {
		const struct dev *d = s->devs[i];
		struct vlan_count vc = {0};
		struct vwalk w = {l, &vc};

		for (int k = 0; k < nin; k++) {
			int done = 0;

			if (strcmp(in[k].dev, d->name))
				continue;
			for (int j = 0; j < k; j++) /* a capture given twice counts once */
				done |= !strcmp(in[j].dev, d->name) &&
					!strcmp(in[j].capture, in[k].capture);
			if (!done && count_capture(in[k].capture, in[k].name ? in[k].name : in[k].capture,
						 &vc, err, errlen))
				return -EIO;
		}
		if (!vc.inner4 && !vc.inner6)
			continue;
		l->dev = d->name;
		vlan_qdisc(&w, d->root);
	}
	return 0;
}
