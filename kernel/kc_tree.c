/* kc_tree.c - `tcsim kernel-check` builds the kernel's side of a
 * comparison: the scenario's own qdisc tree (prio, sfq, the fifos, htb,
 * tbf, codel, fq_codel, noqueue, and the bpf, matchall and fw filters,
 * each as tc would send it) or the htb stand-in that
 * only classifies, over rtnetlink inside the child's namespace
 * (kc_netns.c). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/gen_stats.h>
#include <linux/if.h>
#include <linux/if_packet.h>
#include <linux/pkt_sched.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/route/class.h>
#include <netlink/route/link.h>
#include <netlink/route/link/veth.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/qdisc/fifo.h>
#include <netlink/route/qdisc/htb.h>
#include <netlink/route/qdisc/prio.h>
#include <netlink/route/qdisc/sfq.h>
#include <netlink/route/tc.h>

/* the kernel's pkt_sched.h and tcsim's cls.h define the same handle
 * macros; tcsim's win from here on */
#undef TC_H_MAJ
#undef TC_H_MIN
#undef TC_H_MAKE
#undef TC_H_ROOT
#undef TC_H_UNSPEC

#include "codel.h"
#include "kc_cls.h"
#include "kc_int.h"
#include "kcheck.h"
#include "qdisc.h"
#include "sim.h"

#define KC_RATE 1250000000u /* htb stand-in classes: 10 Gbit/s, in bytes/s */
#define KC_FIFO 100000	    /* ... over pfifos of this many packets */

/* ---- netlink: tc objects ---- */

int kc_is_absent(int nlerr)
{
	return nlerr == -NLE_OBJ_NOTFOUND || nlerr == -NLE_OPNOTSUPP;
}

/* The bpf filter as `tc filter add ... bpf bytecode ... [flowid]` sends it,
 * with tcsim's pref, protocol and handle. */
static int nl_add_bpf(struct nl_sock *sk, int ifindex, uint32_t parent, uint32_t prio,
		      uint16_t protocol, const struct cls_bpf_info *pi)
{
	struct tcmsg t = {
	    .tcm_family = AF_UNSPEC,
	    .tcm_ifindex = ifindex,
	    .tcm_handle = pi->handle,
	    .tcm_parent = parent,
	    .tcm_info = TC_H_MAKE(prio, htons(protocol)),
	};
	struct nl_msg *m = nlmsg_alloc_size((size_t)pi->len * sizeof(*pi->insns) + 1024);
	struct nlattr *opts;
	int rc;

	if (!m)
		return -NLE_NOMEM;
	if (!nlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, RTM_NEWTFILTER, 0,
		       NLM_F_CREATE | NLM_F_EXCL) ||
	    nlmsg_append(m, &t, sizeof(t), NLMSG_ALIGNTO) < 0 ||
	    nla_put_string(m, TCA_KIND, "bpf") < 0 || !(opts = nla_nest_start(m, TCA_OPTIONS)) ||
	    nla_put_u16(m, TCA_BPF_OPS_LEN, (uint16_t)pi->len) < 0 ||
	    nla_put(m, TCA_BPF_OPS, (int)(pi->len * sizeof(*pi->insns)), pi->insns) < 0 ||
	    (pi->has_classid && nla_put_u32(m, TCA_BPF_CLASSID, pi->classid) < 0)) {
		nlmsg_free(m);
		return -NLE_NOMEM;
	}
	nla_nest_end(m, opts);
	rc = nl_send_auto(sk, m);
	nlmsg_free(m);
	return rc < 0 ? rc : nl_wait_for_ack(sk);
}

/* An RTM_NEWTFILTER of `kind` with tcsim's pref, protocol and handle, its
 * TCA_OPTIONS open (opts NULL: none, fw's old method). */
static struct nl_msg *filter_msg(int ifindex, uint32_t parent, uint32_t prio, uint16_t protocol,
				 uint32_t handle, const char *kind, struct nlattr **opts)
{
	struct tcmsg t = {
	    .tcm_family = AF_UNSPEC,
	    .tcm_ifindex = ifindex,
	    .tcm_handle = handle,
	    .tcm_parent = parent,
	    .tcm_info = TC_H_MAKE(prio, htons(protocol)),
	};
	struct nl_msg *m = nlmsg_alloc();

	if (!m)
		return NULL;
	if (!nlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, RTM_NEWTFILTER, 0,
		       NLM_F_CREATE | NLM_F_EXCL) ||
	    nlmsg_append(m, &t, sizeof(t), NLMSG_ALIGNTO) < 0 ||
	    nla_put_string(m, TCA_KIND, kind) < 0 ||
	    (opts && !(*opts = nla_nest_start(m, TCA_OPTIONS)))) {
		nlmsg_free(m);
		return NULL;
	}
	return m;
}

static int filter_send(struct nl_sock *sk, struct nl_msg *m, struct nlattr *opts, int ok)
{
	int rc;

	if (!m)
		return -NLE_NOMEM;
	if (!ok) {
		nlmsg_free(m);
		return -NLE_NOMEM;
	}
	if (opts)
		nla_nest_end(m, opts);
	rc = nl_send_auto(sk, m);
	nlmsg_free(m);
	return rc < 0 ? rc : nl_wait_for_ack(sk);
}

/* matchall as `tc filter add ... matchall [skip_hw] classid C` sends it:
 * TCA_MATCHALL_CLASSID (0 too: tcsim keeps none apart from 0) and the
 * user's flags only (the kernel sets in_hw / not_in_hw itself). */
static int nl_add_mall(struct nl_sock *sk, int ifindex, uint32_t parent, const struct tcf_proto *tp,
		       const struct cls_mall_info *mi)
{
	struct nlattr *o = NULL;
	struct nl_msg *m = filter_msg(ifindex, parent, tp->prio, tp->protocol, mi->handle,
				      "matchall", &o);
	uint32_t flags = mi->flags & (TCA_CLS_FLAGS_SKIP_HW | TCA_CLS_FLAGS_SKIP_SW);

	return filter_send(sk, m, o,
			   m && nla_put_u32(m, TCA_MATCHALL_CLASSID, mi->classid) >= 0 &&
			       (!flags || nla_put_u32(m, TCA_MATCHALL_FLAGS, flags) >= 0));
}

/* fw as `tc filter add ... handle M[/MASK] fw classid C` sends it, or the
 * old method (no handle, no options) when tcsim's fw has no table. */
static int nl_add_fw(struct nl_sock *sk, int ifindex, uint32_t parent, const struct tcf_proto *tp,
		     const struct cls_fw_info *fi)
{
	struct nlattr *o = NULL;
	struct nl_msg *m;

	if (!fi->has_table) {
		m = filter_msg(ifindex, parent, tp->prio, tp->protocol, 0, "fw", NULL);
		return filter_send(sk, m, NULL, m != NULL);
	}
	m = filter_msg(ifindex, parent, tp->prio, tp->protocol, fi->handle, "fw", &o);
	return filter_send(sk, m, o,
			   m && nla_put_u32(m, TCA_FW_CLASSID, fi->classid) >= 0 &&
			       (fi->mask == 0xffffffffu ||
				nla_put_u32(m, TCA_FW_MASK, fi->mask) >= 0));
}

/* One tcf_proto of another kind than bpf, each of its filters (fw: oldest
 * first in each bucket, the reverse of fw_dump's order). */
static int add_other(struct nl_sock *sk, int ifindex, const struct tcf_proto *tp, uint32_t parent,
		     const char *h, struct kc_result *r)
{
	const char *kind = tp->ops->kind;
	int rc = 0;

	if (!strcmp(kind, "matchall")) {
		struct cls_mall_info mi;

		if (!cls_mall_get(tp, &mi))
			rc = nl_add_mall(sk, ifindex, parent, tp, &mi);
	} else if (!strcmp(kind, "fw")) {
		struct cls_fw_info fi;
		size_t n = 0;

		while (cls_fw_at(tp, n, &fi) >= 0 && fi.has_table)
			n++;
		if (!n && cls_fw_at(tp, 0, &fi) == 1)
			rc = nl_add_fw(sk, ifindex, parent, tp, &fi);
		for (size_t i = n; i-- > 0 && !rc;) {
			cls_fw_at(tp, i, &fi);
			rc = nl_add_fw(sk, ifindex, parent, tp, &fi);
		}
	} else {
		return kc_rfail(r, KCHECK_ERROR,
				"kernel-check cannot build filter pref %u on %s (%s) in the kernel",
				tp->prio >> 16, h, kind);
	}
	if (kc_is_absent(rc))
		return kc_rfail(r, KCHECK_CANNOT_RUN,
				"the kernel lacks cls_%s (adding filter pref %u on %s failed: %s)",
				kind, tp->prio >> 16, h, nl_geterror(rc));
	if (rc < 0)
		return kc_rfail(r, KCHECK_ERROR, "the kernel refused %s filter pref %u on %s: %s",
				kind, tp->prio >> 16, h, nl_geterror(rc));
	return 0;
}

/* Every program of every tcf_proto of a chain attached at `parent` (a
 * qdisc's handle or an htb class), oldest first within a tcf_proto so the
 * kernel's newest-first list matches tcsim's. */
static int add_chain(struct nl_sock *sk, int ifindex, const struct tcf_chain *chain,
		     uint32_t parent, struct kc_result *r)
{
	char h[32];

	tc_print_classid(h, sizeof(h), parent);
	for (const struct tcf_proto *tp = chain->head; tp; tp = tp->next) {
		size_t n = tp->ops->count(tp);

		if (!strcmp(tp->ops->kind, "matchall") || !strcmp(tp->ops->kind, "fw")) {
			if (add_other(sk, ifindex, tp, parent, h, r))
				return -1;
			continue;
		}
		if (tp->ops != &cls_bpf_ops) { /* u32, and the kinds it names as absent */
			if (kc_add_cls(sk, ifindex, chain, tp, parent, r))
				return -1;
			continue;
		}
		for (size_t i = n; i-- > 0;) {
			struct cls_bpf_info pi;
			int rc;

			if (cls_bpf_prog_at(tp, i, &pi))
				return kc_rfail(r, KCHECK_ERROR,
					     "filter pref %u of %s is not a bpf filter",
					     tp->prio >> 16, h);
			rc = nl_add_bpf(sk, ifindex, parent, tp->prio, tp->protocol, &pi);
			if (rc == -NLE_OBJ_NOTFOUND || rc == -NLE_OPNOTSUPP)
				return kc_rfail(
				    r, KCHECK_CANNOT_RUN,
				    "the kernel has no cls_bpf (adding pref %u handle 0x%x: %s)",
				    tp->prio >> 16, pi.handle, nl_geterror(rc));
			if (rc < 0)
				return kc_rfail(r, KCHECK_ERROR,
					     "the kernel refused filter pref %u handle 0x%x on %s "
					     "(%u instructions): %s",
					     tp->prio >> 16, pi.handle, h, pi.len, nl_geterror(rc));
		}
	}
	return 0;
}

static int add_filters(struct nl_sock *sk, int ifindex, const struct qdisc *q, struct kc_result *r)
{
	return q->ops->has_filters ? add_chain(sk, ifindex, &q->chain, q->handle, r) : 0;
}

/* ---- htb and tbf as tc sends them (raw: libnl's setters convert the
 * buckets through bytes and whole microseconds, which does not give the
 * same ticks back; see nl_htb_tbf.c) ---- */

/* An RTM_NEWQDISC / RTM_NEWTCLASS of `kind` with its TCA_OPTIONS open. */
static struct nl_msg *tc_msg(int type, int ifindex, uint32_t parent, uint32_t handle,
			     const char *kind, struct nlattr **opts)
{
	struct tcmsg t = {.tcm_family = AF_UNSPEC,
			  .tcm_ifindex = ifindex,
			  .tcm_handle = handle,
			  .tcm_parent = parent};
	struct nl_msg *m = nlmsg_alloc();

	if (!m)
		return NULL;
	if (!nlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, type, 0, NLM_F_CREATE | NLM_F_EXCL) ||
	    nlmsg_append(m, &t, sizeof(t), NLMSG_ALIGNTO) < 0 ||
	    nla_put_string(m, TCA_KIND, kind) < 0 || !(*opts = nla_nest_start(m, TCA_OPTIONS))) {
		nlmsg_free(m);
		return NULL;
	}
	return m;
}

static int tc_send(struct nl_sock *sk, struct nl_msg *m, struct nlattr *opts, int ok)
{
	int rc;

	if (!m)
		return -NLE_NOMEM;
	if (!ok) {
		nlmsg_free(m);
		return -NLE_NOMEM;
	}
	nla_nest_end(m, opts);
	rc = nl_send_auto(sk, m);
	nlmsg_free(m);
	return rc < 0 ? rc : nl_wait_for_ack(sk);
}

/* htb_init's TCA_HTB_INIT and TCA_HTB_DIRECT_QLEN (always sent: the same
 * number the kernel would otherwise take from the txqueuelen). */
static int nl_add_htb(struct nl_sock *sk, int ifindex, const struct qdisc *q, uint32_t parent)
{
	struct tc_htb_glob g;
	uint32_t dq;
	struct nlattr *o = NULL;
	struct nl_msg *m = tc_msg(RTM_NEWQDISC, ifindex, parent, q->handle, "htb", &o);

	htb_kc_glob(q, &g, &dq);
	return tc_send(sk, m, o,
		       m && nla_put(m, TCA_HTB_INIT, sizeof(g), &g) >= 0 &&
			   nla_put_u32(m, TCA_HTB_DIRECT_QLEN, dq) >= 0);
}

/* htb_change_class's TCA_HTB_PARMS and the 64-bit rates: no rate tables,
 * since the linklayer is set (tc sets it; the kernel reads them only for
 * TC_LINKLAYER_UNAWARE). */
static int nl_add_htb_class(struct nl_sock *sk, int ifindex, const struct htb_kc_class *c)
{
	struct nlattr *o = NULL;
	struct nl_msg *m = tc_msg(RTM_NEWTCLASS, ifindex, c->parent, c->classid, "htb", &o);

	return tc_send(sk, m, o,
		       m && nla_put(m, TCA_HTB_PARMS, sizeof(c->opt), &c->opt) >= 0 &&
			   (!c->rate64 || nla_put_u64(m, TCA_HTB_RATE64, c->rate64) >= 0) &&
			   (!c->ceil64 || nla_put_u64(m, TCA_HTB_CEIL64, c->ceil64) >= 0));
}

/* tbf_change's request as tc sent it to tcsim. */
static int nl_add_tbf(struct nl_sock *sk, int ifindex, const struct qdisc *q, uint32_t parent)
{
	struct tbf_kc_req t;
	struct nlattr *o = NULL;
	struct nl_msg *m = tc_msg(RTM_NEWQDISC, ifindex, parent, q->handle, "tbf", &o);

	tbf_kc_get(q, &t);
	return tc_send(sk, m, o,
		       m && nla_put(m, TCA_TBF_PARMS, sizeof(t.opt), &t.opt) >= 0 &&
			   (!t.rate64 || nla_put_u64(m, TCA_TBF_RATE64, t.rate64) >= 0) &&
			   (!t.prate64 || nla_put_u64(m, TCA_TBF_PRATE64, t.prate64) >= 0) &&
			   (!t.burst || nla_put_u32(m, TCA_TBF_BURST, t.burst) >= 0) &&
			   (!t.pburst || nla_put_u32(m, TCA_TBF_PBURST, t.pburst) >= 0));
}

/* ---- codel, fq_codel, pfifo_head_drop: raw, as tc sends them ---- */

/* The microseconds whose ticks (us * 1000 >> 10, as codel_change makes
 * them) are t: the smallest. tcsim's own dump says t << 10 / 1000, which
 * is often one tick short when sent back. */
static uint32_t codel_us(uint32_t t)
{
	uint64_t us = ((uint64_t)t * 1024u + 999u) / 1000u;

	return us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
}

/* codel_change's or fq_codel_change's request with every parameter tcsim
 * holds (ce_threshold only when set, as the kernel keeps it off otherwise;
 * fq_codel's ce_threshold selector when either byte is set). */
static int nl_add_codel(struct nl_sock *sk, int ifindex, const struct qdisc *q, uint32_t parent)
{
	int fq = q->ops == &fq_codel_qdisc_ops;
	struct nlattr *o = NULL;
	struct nl_msg *m = tc_msg(RTM_NEWQDISC, ifindex, parent, q->handle, q->ops->id, &o);
	struct codel_kc k;
	int ok;

	if (fq)
		fq_codel_kc_get(q, &k);
	else
		codel_kc_get(q, &k);
	if (fq)
		ok = m && nla_put_u32(m, TCA_FQ_CODEL_TARGET, codel_us(k.target)) >= 0 &&
		     nla_put_u32(m, TCA_FQ_CODEL_LIMIT, k.limit) >= 0 &&
		     nla_put_u32(m, TCA_FQ_CODEL_INTERVAL, codel_us(k.interval)) >= 0 &&
		     nla_put_u32(m, TCA_FQ_CODEL_ECN, (uint32_t)k.ecn) >= 0 &&
		     nla_put_u32(m, TCA_FQ_CODEL_FLOWS, k.flows) >= 0 &&
		     nla_put_u32(m, TCA_FQ_CODEL_QUANTUM, k.quantum) >= 0 &&
		     nla_put_u32(m, TCA_FQ_CODEL_DROP_BATCH_SIZE, k.drop_batch) >= 0 &&
		     nla_put_u32(m, TCA_FQ_CODEL_MEMORY_LIMIT, k.memory_limit) >= 0 &&
		     (k.ce_threshold == CODEL_DISABLED_THRESHOLD ||
		      nla_put_u32(m, TCA_FQ_CODEL_CE_THRESHOLD, codel_us(k.ce_threshold)) >= 0) &&
		     (!(k.ce_selector || k.ce_mask) ||
		      (nla_put_u8(m, TCA_FQ_CODEL_CE_THRESHOLD_SELECTOR, k.ce_selector) >= 0 &&
		       nla_put_u8(m, TCA_FQ_CODEL_CE_THRESHOLD_MASK, k.ce_mask) >= 0));
	else
		ok = m && nla_put_u32(m, TCA_CODEL_TARGET, codel_us(k.target)) >= 0 &&
		     nla_put_u32(m, TCA_CODEL_LIMIT, k.limit) >= 0 &&
		     nla_put_u32(m, TCA_CODEL_INTERVAL, codel_us(k.interval)) >= 0 &&
		     nla_put_u32(m, TCA_CODEL_ECN, (uint32_t)k.ecn) >= 0 &&
		     (k.ce_threshold == CODEL_DISABLED_THRESHOLD ||
		      nla_put_u32(m, TCA_CODEL_CE_THRESHOLD, codel_us(k.ce_threshold)) >= 0);
	return tc_send(sk, m, o, ok);
}

/* pfifo_head_drop's struct tc_fifo_qopt, not nested (fifo_init reads
 * TCA_OPTIONS as the struct itself); libnl-route's fifo module knows
 * pfifo and bfifo only. */
static int nl_add_head_drop(struct nl_sock *sk, int ifindex, const struct qdisc *q,
			    uint32_t parent, uint32_t limit)
{
	struct tcmsg t = {.tcm_family = AF_UNSPEC,
			  .tcm_ifindex = ifindex,
			  .tcm_handle = q->handle,
			  .tcm_parent = parent};
	struct tc_fifo_qopt opt = {.limit = limit};
	struct nl_msg *m = nlmsg_alloc();
	int rc;

	if (!m)
		return -NLE_NOMEM;
	if (!nlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, RTM_NEWQDISC, 0, NLM_F_CREATE | NLM_F_EXCL) ||
	    nlmsg_append(m, &t, sizeof(t), NLMSG_ALIGNTO) < 0 ||
	    nla_put_string(m, TCA_KIND, "pfifo_head_drop") < 0 ||
	    nla_put(m, TCA_OPTIONS, sizeof(opt), &opt) < 0) {
		nlmsg_free(m);
		return -NLE_NOMEM;
	}
	rc = nl_send_auto(sk, m);
	nlmsg_free(m);
	return rc < 0 ? rc : nl_wait_for_ack(sk);
}

static int cmp_depth(const void *a, const void *b)
{
	const struct htb_kc_class *x = a, *y = b;

	if (x->depth != y->depth)
		return x->depth - y->depth;
	return x->classid < y->classid ? -1 : x->classid > y->classid;
}

/* htb's classes, parents first (a class is made a leaf, and becomes inner
 * when its first child comes: its quantum and prio, sent explicitly, stay
 * what tcsim holds), then their filters. */
static int add_htb_classes(struct nl_sock *sk, int ifindex, const struct qdisc *q,
			   const struct kc_classes *cl, struct kc_result *r)
{
	struct htb_kc_class *v = calloc((size_t)cl->n + 1, sizeof(*v));
	char h[32];
	int rc = 0;

	if (!v)
		return kc_rfail(r, KCHECK_ERROR, "out of memory");
	for (int i = 0; i < cl->n; i++)
		htb_kc_class(q, cl->c[i].classid, &v[i]);
	qsort(v, (size_t)cl->n, sizeof(*v), cmp_depth);
	for (int i = 0; i < cl->n && !rc; i++) {
		rc = nl_add_htb_class(sk, ifindex, &v[i]);
		if (rc < 0) {
			tc_print_classid(h, sizeof(h), v[i].classid);
			rc = kc_rfail(r, KCHECK_ERROR, "the kernel refused htb class %s: %s", h,
				   nl_geterror(rc));
		}
	}
	free(v);
	return rc;
}
static struct rtnl_qdisc *qd_new(struct rtnl_link *link, uint32_t parent, uint32_t handle,
				 const char *kind)
{
	struct rtnl_qdisc *q = rtnl_qdisc_alloc();

	if (!q)
		return NULL;
	rtnl_tc_set_link(TC_CAST(q), link);
	rtnl_tc_set_parent(TC_CAST(q), parent);
	if (handle)
		rtnl_tc_set_handle(TC_CAST(q), handle);
	if (rtnl_tc_set_kind(TC_CAST(q), kind) < 0) {
		rtnl_qdisc_put(q);
		return NULL;
	}
	return q;
}

static int qd_add(struct nl_sock *sk, struct rtnl_qdisc *q)
{
	int rc;

	if (!q)
		return -NLE_NOMEM;
	rc = rtnl_qdisc_add(sk, q, NLM_F_CREATE | NLM_F_EXCL);
	rtnl_qdisc_put(q);
	return rc;
}

static void qd_del_root(struct nl_sock *sk, struct rtnl_link *link)
{
	struct rtnl_qdisc *q = rtnl_qdisc_alloc();

	if (!q)
		return;
	rtnl_tc_set_link(TC_CAST(q), link);
	rtnl_tc_set_parent(TC_CAST(q), TC_H_ROOT);
	rtnl_qdisc_delete(sk, q);
	rtnl_qdisc_put(q);
}

/* Is `kind` in this kernel? Adds it as the root with default options. */
int kc_probe_kind(struct nl_sock *sk, struct rtnl_link *link, const char *kind,
		      struct kc_result *r)
{
	struct rtnl_qdisc *q = qd_new(link, TC_H_ROOT, 0x10000, kind);
	uint8_t map[16] = {1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1};
	int rc;

	if (q && !strcmp(kind, "prio")) {
		rtnl_qdisc_prio_set_bands(q, 3);
		rtnl_qdisc_prio_set_priomap(q, map, 16);
	} else if (q && (!strcmp(kind, "pfifo") || !strcmp(kind, "bfifo"))) {
		rtnl_qdisc_fifo_set_limit(q, 1000);
	}
	if (q && !strcmp(kind, "tbf")) {
		/* tbf has no defaults: the smallest valid request (1 Mbit/s, a
		 * 10000-byte bucket and limit), as tc would send it */
		struct tc_tbf_qopt opt = {
		    .rate = {.rate = 125000, .linklayer = TC_LINKLAYER_ETHERNET}, .limit = 10000};
		struct nlattr *o = NULL;
		struct nl_msg *m = tc_msg(RTM_NEWQDISC, rtnl_link_get_ifindex(link), TC_H_ROOT,
					  0x10000, "tbf", &o);

		rtnl_qdisc_put(q);
		q = NULL;
		rc = tc_send(sk, m, o,
			     m && nla_put(m, TCA_TBF_PARMS, sizeof(opt), &opt) >= 0 &&
				 nla_put_u32(m, TCA_TBF_BURST, 10000) >= 0);
	} else {
		rc = qd_add(sk, q);
	}
	if (!rc) {
		qd_del_root(sk, link);
		return 1;
	}
	if (kc_is_absent(rc))
		return 0;
	return kc_rfail(r, KCHECK_ERROR, "probing qdisc kind %s: %s", kind, nl_geterror(rc));
}

/* ---- the scenario's own tree ---- */

/* A word after `key` in a qdisc's dump text ("limit 127p quantum 1514b"). */
static const char *dump_word(const char *text, const char *key, char *buf, size_t n)
{
	size_t kl = strlen(key);

	for (const char *p = text; (p = strstr(p, key)); p += kl) {
		if ((p == text || p[-1] == ' ') && p[kl] == ' ') {
			size_t i = 0;

			p += kl + 1;
			while (p[i] && p[i] != ' ' && i + 1 < n) {
				buf[i] = p[i];
				i++;
			}
			buf[i] = 0;
			return i ? buf : NULL;
		}
	}
	return NULL;
}

void kc_collect_class(void *arg, const struct qdisc_class *c)
{
	struct kc_classes *cl = arg;

	if (cl->n < KC_MAXROWS)
		cl->c[cl->n++] = *c;
}

static int build_children(struct nl_sock *sk, struct rtnl_link *link, const struct qdisc *q,
			  struct kc_result *r);

int kc_build_tree(struct nl_sock *sk, struct rtnl_link *link, const struct qdisc *q,
		      uint32_t parent, struct kc_result *r)
{
	char *text = NULL, w[64], h[32];
	size_t tlen = 0;
	FILE *f = open_memstream(&text, &tlen);
	struct rtnl_qdisc *nq;
	uint32_t u;
	int rc;

	if (!f)
		return kc_rfail(r, KCHECK_ERROR, "out of memory");
	if (q->ops->dump) /* noqueue has no options to dump */
		qdisc_dump_text(q, f, 1);
	fclose(f);
	tc_print_classid(h, sizeof(h), q->handle);
	if (q->ops == &htb_qdisc_ops || q->ops == &tbf_qdisc_ops || q->ops == &codel_qdisc_ops ||
	    q->ops == &fq_codel_qdisc_ops || q->ops == &pfifo_head_drop_qdisc_ops) {
		int ifindex = rtnl_link_get_ifindex(link);

		if (q->ops == &htb_qdisc_ops)
			rc = nl_add_htb(sk, ifindex, q, parent);
		else if (q->ops == &tbf_qdisc_ops)
			rc = nl_add_tbf(sk, ifindex, q, parent);
		else if (q->ops == &pfifo_head_drop_qdisc_ops)
			rc = nl_add_head_drop(sk, ifindex, q, parent,
					      dump_word(text, "limit", w, sizeof(w))
						  ? (uint32_t)strtoul(w, NULL, 10)
						  : 1000);
		else
			rc = nl_add_codel(sk, ifindex, q, parent);
		if (rc < 0) {
			kc_rfail(r, KCHECK_ERROR, "the kernel refused qdisc %s %s %s: %s", h,
			      q->ops->id, text, nl_geterror(rc));
			free(text);
			return -1;
		}
		free(text);
		return build_children(sk, link, q, r);
	}
	nq = qd_new(link, parent, q->handle, q->ops->id);
	if (nq && !strcmp(q->ops->id, "prio")) {
		uint8_t map[16];
		const char *p = strstr(text, "priomap");
		int bands = dump_word(text, "bands", w, sizeof(w)) ? atoi(w) : 3;

		for (int i = 0; i < 16; i++) {
			while (p && *p && (*p < '0' || *p > '9'))
				p++;
			map[i] = p && *p ? (uint8_t)strtoul(p, (char **)&p, 10) : 1;
		}
		rtnl_qdisc_prio_set_bands(nq, bands);
		rtnl_qdisc_prio_set_priomap(nq, map, 16);
	} else if (nq && !strcmp(q->ops->id, "sfq")) {
		if (dump_word(text, "limit", w, sizeof(w)))
			rtnl_sfq_set_limit(nq, atoi(w));
		if (dump_word(text, "quantum", w, sizeof(w)) && !tc_get_size(&u, w))
			rtnl_sfq_set_quantum(nq, (int)u);
		if (dump_word(text, "perturb", w, sizeof(w)))
			rtnl_sfq_set_perturb(nq, atoi(w));
	} else if (nq && !strcmp(q->ops->id, "pfifo")) {
		if (dump_word(text, "limit", w, sizeof(w)))
			rtnl_qdisc_fifo_set_limit(nq, atoi(w));
	} else if (nq && !strcmp(q->ops->id, "bfifo")) {
		if (dump_word(text, "limit", w, sizeof(w)) && !tc_get_size(&u, w))
			rtnl_qdisc_fifo_set_limit(nq, (int)u);
	} else if (nq && !strcmp(q->ops->id, "noqueue")) {
		/* no options: the root only (tcsim refuses it under a class, as
		 * the kernel does) */
	} else if (nq) {
		rtnl_qdisc_put(nq);
		free(text);
		return kc_rfail(r, KCHECK_ERROR,
			     "kernel-check cannot build qdisc %s (%s) in the kernel", h,
			     q->ops->id);
	}
	rc = qd_add(sk, nq);
	if (rc < 0) {
		kc_rfail(r, KCHECK_ERROR, "the kernel refused qdisc %s %s %s: %s", h, q->ops->id, text,
		      nl_geterror(rc));
		free(text);
		return -1;
	}
	free(text);
	return build_children(sk, link, q, r);
}

/* q's classes (htb's are made here), the qdiscs grafted on them, the
 * filters on its classes (htb) and on q. */
static int build_children(struct nl_sock *sk, struct rtnl_link *link, const struct qdisc *q,
			  struct kc_result *r)
{
	int ifindex = rtnl_link_get_ifindex(link), rc = 0;
	struct kc_classes *cl;

	if (!q->ops->walk)
		return add_filters(sk, ifindex, q, r);
	cl = calloc(1, sizeof(*cl));
	if (!cl)
		return kc_rfail(r, KCHECK_ERROR, "out of memory");
	q->ops->walk(q, kc_collect_class, cl);
	if (q->ops == &htb_qdisc_ops)
		rc = add_htb_classes(sk, ifindex, q, cl, r);
	for (int i = 0; i < cl->n && !rc; i++) {
		const struct qdisc *leaf = cl->c[i].leaf;

		/* a default child: the kernel made the same (htb: pfifo with the
		 * txqueuelen; tbf: bfifo with its limit) */
		if (!leaf || leaf->invisible || leaf == q)
			continue;
		rc = kc_build_tree(sk, link, leaf, cl->c[i].classid, r);
	}
	/* filters on htb's classes, after every class exists (a filter's
	 * flowid may name any) */
	for (int i = 0; i < cl->n && !rc && q->ops->class_chain; i++) {
		/* class_chain only looks the chain up; it changes nothing */
		const struct tcf_chain *ch =
		    q->ops->class_chain((struct qdisc *)q, cl->c[i].classid);

		if (ch)
			rc = add_chain(sk, ifindex, ch, cl->c[i].classid, r);
	}
	free(cl);
	return rc ? -1 : add_filters(sk, ifindex, q, r);
}

/* ---- the htb stand-in ---- */

int kc_build_htb(struct nl_sock *sk, struct rtnl_link *link, const struct kc_plan *pl,
		     struct kc_result *r)
{
	struct rtnl_qdisc *q = qd_new(link, TC_H_ROOT, pl->handle, "htb");
	int rc;

	if (q)
		rtnl_htb_set_defcls(q, pl->defminor);
	rc = qd_add(sk, q);
	if (kc_is_absent(rc))
		return kc_rfail(r, KCHECK_CANNOT_RUN, "the kernel has neither %s nor sch_htb (%s)",
			     r->absent[0] ? r->absent : "the scenario's qdiscs", nl_geterror(rc));
	if (rc < 0)
		return kc_rfail(r, KCHECK_ERROR, "adding the htb root: %s", nl_geterror(rc));
	for (int i = 0; i <= pl->nminors; i++) {
		uint32_t minor = i < pl->nminors ? pl->minors[i] : pl->defminor;
		uint32_t cid = TC_H_MAKE(pl->handle, minor);
		struct rtnl_class *c = rtnl_class_alloc();

		if (!c)
			return kc_rfail(r, KCHECK_ERROR, "out of memory");
		rtnl_tc_set_link(TC_CAST(c), link);
		rtnl_tc_set_parent(TC_CAST(c), pl->handle);
		rtnl_tc_set_handle(TC_CAST(c), cid);
		rtnl_tc_set_kind(TC_CAST(c), "htb");
		rtnl_htb_set_rate(c, KC_RATE);
		rtnl_htb_set_ceil(c, KC_RATE);
		rtnl_htb_set_quantum(c, 200000);
		rc = rtnl_class_add(sk, c, NLM_F_CREATE | NLM_F_EXCL);
		rtnl_class_put(c);
		if (rc < 0)
			return kc_rfail(r, KCHECK_ERROR, "adding htb class %x:%x: %s",
				     pl->handle >> 16, minor, nl_geterror(rc));
		q = qd_new(link, cid, 0, "pfifo");
		if (q)
			rtnl_qdisc_fifo_set_limit(q, KC_FIFO);
		rc = qd_add(sk, q);
		if (rc < 0)
			return kc_rfail(r, KCHECK_ERROR, "adding a pfifo under %x:%x: %s",
				     pl->handle >> 16, minor, nl_geterror(rc));
	}
	return add_filters(sk, rtnl_link_get_ifindex(link), pl->d->root, r);
}

