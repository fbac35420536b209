/* cls_api.c - a qdisc's filter chain: tcf_protos sorted by ascending pref,
 * the automatic pref of tcf_auto_prio, and the classification walk, with
 * the rules of net/sched/cls_api.c. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "cls.h"

/* The registry: every classifier kind tc can name. A new kind is its file,
 * declared and listed here. */
extern const struct tcf_proto_ops cls_matchall_ops;
extern const struct tcf_proto_ops cls_fw_ops;
extern const struct tcf_proto_ops cls_basic_ops;
static const struct tcf_proto_ops *const kinds[] = {&cls_bpf_ops, &cls_u32_ops, &cls_matchall_ops,
							 &cls_fw_ops, &cls_flower_ops, &cls_basic_ops};

const struct tcf_proto_ops *tcf_ops_find(const char *kind)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kinds[i]->kind, kind))
			return kinds[i];
	return NULL;
}

void tcf_kind_names(char *buf, size_t n)
{
	size_t used = 0;

	if (n)
		buf[0] = 0;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (used < n)
			used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? ", " : "",
						 kinds[i]->kind);
}

static void tp_destroy(struct tcf_proto *tp)
{
	tp->ops->destroy(tp);
	free(tp);
}

/* tc_new_tfilter: find the tcf_proto for (pref, protocol) or create it at
 * its sorted place; the automatic pref is one below the first existing
 * pref >= 0x8000 (tcf_auto_prio), or 0xC000 on an empty range. */
int tcf_chain_change(struct tcf_chain *chain, const struct tcf_request *req,
		     const struct tcf_env *env, char *err, size_t errlen)
{
	uint32_t prio = req->pref << 16;
	int automatic = prio == 0;
	struct tcf_proto **pp, *tp = NULL, *created = NULL;
	const struct tcf_proto_ops *ops;
	int ret;

	if (automatic) {
		if (!req->create)
			return errmsg(err, errlen, -ENOENT,
				    "%s: RTNETLINK answers: No such file or directory (Invalid filter command with priority of zero)",
				    req->where);
		prio = 0x80000000u;
	}
	for (pp = &chain->head; *pp; pp = &(*pp)->next) {
		if ((*pp)->prio >= prio)
			break;
	}
	if (*pp && (*pp)->prio == prio) {
		if (automatic)
			return errmsg(err, errlen, -ENOSPC,
				    "%s: RTNETLINK answers: No space left on device (Lowest ID from auto-alloc range already in use)",
				    req->where);
		if (req->protocol && (*pp)->protocol != req->protocol)
			return errmsg(err, errlen, -EINVAL,
				    "%s: RTNETLINK answers: Invalid argument (Protocol mismatch for filter with specified priority: pref %u holds protocol 0x%04x)",
				    req->where, req->pref, (*pp)->protocol);
		tp = *pp;
	}
	if (!tp) {
		if (!req->kind)
			return errmsg(err, errlen, -ENOENT,
				    "%s: RTNETLINK answers: No such file or directory (Filter with specified priority/protocol not found: pref %u)",
				    req->where, req->pref);
		if (!req->protocol)
			return errmsg(err, errlen, -EINVAL,
				    "%s: RTNETLINK answers: Invalid argument (a new filter needs a protocol)",
				    req->where);
		if (!req->create)
			return errmsg(err, errlen, -ENOENT,
				    "%s: RTNETLINK answers: No such file or directory (no filter at pref %u)",
				    req->where, req->pref);
		ops = tcf_ops_find(req->kind);
		if (!ops)
			return errmsg(err, errlen, -ENOENT, "%s: Unknown filter \"%s\", hence option \"%s\" is unparsable",
				    req->where, req->kind, req->argc ? req->argv[0] : "");
		if (automatic) {
			/* *pp, if any, has prio > 0x80000000: equality failed above */
			prio = *pp ? TC_H_MAJ((*pp)->prio - 1) : 0xC0000000u;
		}
		created = calloc(1, sizeof(*created));
		if (!created)
			return errmsg(err, errlen, -ENOMEM, "%s: out of memory", req->where);
		created->prio = prio;
		created->protocol = req->protocol;
		created->auto_pref = automatic;
		snprintf(created->where, sizeof(created->where), "%s", req->where ? req->where : "");
		created->ops = ops;
		tp = created;
	} else if (req->kind && strcmp(tp->ops->kind, req->kind)) {
		return errmsg(err, errlen, -EINVAL,
			    "%s: RTNETLINK answers: Invalid argument (pref %u holds %s filters, not %s)",
			    req->where, tp->prio >> 16, tp->ops->kind, req->kind);
	}
	ret = tp->ops->change(tp, req, env, err, errlen);
	if (ret) {
		if (created)
			tp_destroy(created);
		return ret;
	}
	if (created) {
		created->next = *pp;
		*pp = created;
	}
	return 0;
}

/* tc_del_tfilter: without a handle the whole tcf_proto goes; with one, one
 * program, and (current kernels) the tcf_proto when it empties. */
int tcf_chain_delete(struct tcf_chain *chain, const struct tcf_request *req, char *err,
		     size_t errlen)
{
	uint32_t prio = req->pref << 16;
	struct tcf_proto **pp;
	int empty;

	if (!prio) {
		tcf_chain_flush(chain);
		return 0;
	}
	for (pp = &chain->head; *pp; pp = &(*pp)->next)
		if ((*pp)->prio == prio)
			break;
	if (!*pp || (req->protocol && (*pp)->protocol != req->protocol))
		return errmsg(err, errlen, -ENOENT,
			    "%s: RTNETLINK answers: No such file or directory (no filter at pref %u)",
			    req->where, req->pref);
	if (!req->handle) {
		struct tcf_proto *tp = *pp;

		*pp = tp->next;
		tp_destroy(tp);
		return 0;
	}
	empty = (*pp)->ops->delete(*pp, req->handle, err, errlen);
	if (empty < 0)
		return empty;
	if (empty && chain->kernel == BPF_KERNEL_CURRENT) {
		struct tcf_proto *tp = *pp;

		*pp = tp->next;
		tp_destroy(tp);
	}
	return 0;
}

void tcf_chain_flush(struct tcf_chain *chain)
{
	while (chain->head) {
		struct tcf_proto *tp = chain->head;

		chain->head = tp->next;
		tp_destroy(tp);
	}
}

int tcf_classify(const struct tcf_chain *chain, const struct bpf_skb *skb, uint16_t proto,
		 struct tcf_result *res)
{
	for (struct tcf_proto *tp = chain->head; tp; tp = tp->next) {
		int r;

		if (tp->protocol != ETH_P_ALL && tp->protocol != proto)
			continue;
		r = tp->ops->classify(tp, skb, res);
		if (r >= 0) {
			res->pref = tp->prio >> 16;
			tp->hits++;
			return r;
		}
	}
	return -1;
}

int tcf_classify_traced(const struct tcf_chain *chain, const struct bpf_skb *skb, uint16_t proto,
			struct tcf_result *res, const struct tcf_tracer *tr)
{
	for (struct tcf_proto *tp = chain->head; tp; tp = tp->next) {
		struct tcf_trace ft = {.pref = tp->prio >> 16, .protocol = tp->protocol,
				       .kind = tp->ops->kind};
		int r;

		if (tp->protocol != ETH_P_ALL && tp->protocol != proto) {
			ft.skipped = 1;
			tr->filter(tr->arg, &ft);
			continue;
		}
		if (tp->ops->classify_traced) {
			r = tp->ops->classify_traced(tp, skb, res, tr, &ft);
		} else {
			r = tp->ops->classify(tp, skb, res);
			ft.match = r >= 0;
			ft.classid = r >= 0 ? res->classid : 0;
			tr->filter(tr->arg, &ft);
		}
		if (r >= 0) {
			res->pref = tp->prio >> 16;
			tp->hits++;
			return r;
		}
	}
	return -1;
}

/* bpf_skb_init_ether's view (network header at 14, hatype ARPHRD_ETHER,
 * the rest 0) with the packet's own metadata, filled in one go: the
 * protocol is the packet's, not recomputed from the frame. */
void pkt_bpf_skb(const struct pkt *p, uint32_t ifindex, struct bpf_skb *skb)
{
	uint32_t caplen = p->caplen, len = p->len;

	/* two 32-bit reads, not one 64-bit read of both: they were stored
	 * separately just before, and a wider read would wait for the stores */
	__asm__("" : "+r"(caplen), "+r"(len));
	*skb = (struct bpf_skb){
		.data = p->data,
		.caplen = caplen,
		.len = len,
		.net_off = 14,
		.protocol = p->protocol,
		.vlan_present = p->vlan_present,
		.vlan_tci = p->vlan_tci,
		.vlan_proto = p->vlan_proto,
		.ifindex = ifindex,
		.mark = p->mark,
		.priority = p->priority,
		.hatype = 1, /* ARPHRD_ETHER */
		.hash = p->hash,
	};
}

void tcf_dump_text(struct tcf_dump *d, const char *text)
{
	d->begin(d);
	pr_text(d->p, "%s", text);
	d->end(d);
}
