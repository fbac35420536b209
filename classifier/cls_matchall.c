/* cls_matchall.c - the matchall classifier, as net/sched/cls_matchall.c
 * runs it: one filter per tcf_proto that takes every packet of its
 * protocol and gives its classid. Option words as iproute2 6.1's
 * f_matchall.c parses them; actions are not modelled. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cls.h"
#include "errmsg.h"

/* TCA_CLS_FLAGS_* of include/uapi/linux/pkt_cls.h */
#define MALL_SKIP_HW 1u
#define MALL_SKIP_SW 2u
#define MALL_NOT_IN_HW 8u

struct mall_head {
	uint32_t handle;
	uint32_t classid; /* 0: none given (or 0 given), not dumped */
	uint32_t flags;
};

static const char usage[] = "Usage: ... matchall [skip_sw | skip_hw] [ action ACTION_SPEC ] "
			    "[ classid CLASSID ]";

/* tc's handle word for matchall: strtol base 0 with no check of the tail,
 * so "abc" is 0 (the kernel then picks 1); only strtol's saturation fails. */
static int mall_get_handle(const char *word, uint32_t *handle, char *err, size_t errlen)
{
	long h = strtol(word, NULL, 0);

	if (h == LONG_MIN || h == LONG_MAX)
		return errmsg(err, errlen, -EINVAL, "Illegal handle \"%s\", must be numeric.",
			      word);
	*handle = (uint32_t)h;
	return 0;
}

/* matchall_parse_opt's loop. skip_hw and skip_sw step over the next word
 * before the loop looks at it (tc's NEXT_ARG), so either as the last word
 * is tc's "not complete". */
static int mall_parse(const struct tcf_request *req, struct mall_head *o, char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	for (int i = 0; i < req->argc; i++) {
		const char *w = req->argv[i];

		if (tc_matches(w, "classid") || !strcmp(w, "flowid")) {
			if (i + 1 >= req->argc)
				return errmsg(
				    err, errlen, -EINVAL,
				    "%s: Command line is not complete. Try option \"help\"",
				    req->where);
			if (tc_get_classid(&o->classid, req->argv[++i]))
				return errmsg(err, errlen, -EINVAL,
					      "%s: matchall: Illegal \"classid\" \"%s\"",
					      req->where, req->argv[i]);
		} else if (tc_matches(w, "action")) {
			return errmsg(err, errlen, -EOPNOTSUPP,
				      "%s: matchall: \"%s\" is not modelled by tcsim (no actions: "
				      "a matchall filter gives its classid only)",
				      req->where, w);
		} else if (!strcmp(w, "skip_hw") || !strcmp(w, "skip_sw")) {
			if (i + 1 >= req->argc)
				return errmsg(
				    err, errlen, -EINVAL,
				    "%s: Command line is not complete. Try option \"help\"",
				    req->where);
			o->flags |= w[5] == 'h' ? MALL_SKIP_HW : MALL_SKIP_SW;
		} else if (!strcmp(w, "help")) {
			return errmsg(err, errlen, -EINVAL, "%s: matchall: %s", req->where, usage);
		} else {
			return errmsg(err, errlen, -EINVAL, "%s: matchall: What is \"%s\"? %s",
				      req->where, w, usage);
		}
	}
	if (o->flags == (MALL_SKIP_HW | MALL_SKIP_SW))
		return errmsg(err, errlen, -EINVAL,
			      "%s: skip_hw and skip_sw are mutually exclusive", req->where);
	return 0;
}

/* mall_change: tc sends no options without words, which the kernel
 * refuses; a tcf_proto holds one filter and never changes it. */
static int mall_change(struct tcf_proto *tp, const struct tcf_request *req,
		       const struct tcf_env *env, char *err, size_t errlen)
{
	const struct mall_head *head = tp->priv;
	struct mall_head o, *n;
	int ret;

	if (env->kernel == BPF_KERNEL_3_13)
		return errmsg(err, errlen, -ENOENT,
			      "%s: RTNETLINK answers: No such file or directory (Linux 3.13 has no "
			      "matchall classifier: it came with 4.8)",
			      req->where);
	ret = mall_parse(req, &o, err, errlen);
	if (ret)
		return ret;
	if (head && req->handle == head->handle && req->excl)
		return errmsg(
		    err, errlen, -EEXIST,
		    "%s: RTNETLINK answers: File exists (Filter already exists: handle 0x%x)",
		    req->where, head->handle);
	if (head && req->handle != head->handle && !req->create)
		return errmsg(err, errlen, -ENOENT,
			      "%s: RTNETLINK answers: No such file or directory (Need both "
			      "RTM_NEWTFILTER and NLM_F_CREATE to create a new filter)",
			      req->where);
	if (!req->argc)
		return errmsg(err, errlen, -EINVAL,
			      "%s: RTNETLINK answers: Invalid argument (matchall needs options: "
			      "tc sends none without words)",
			      req->where);
	if (head)
		return errmsg(err, errlen, -EEXIST,
			      "%s: RTNETLINK answers: File exists (pref %u holds its one matchall "
			      "filter, handle 0x%x; delete it first)",
			      req->where, tp->prio >> 16, head->handle);
	if (o.flags & MALL_SKIP_SW)
		return errmsg(err, errlen, -EOPNOTSUPP,
			      "%s: RTNETLINK answers: Operation not supported (skip_sw: the device "
			      "offloads no filters, as veth does not)",
			      req->where);
	n = malloc(sizeof(*n));
	if (!n)
		return errmsg(err, errlen, -ENOMEM, "%s: out of memory", req->where);
	*n = o;
	n->handle = req->handle ? req->handle : 1;
	n->flags |= MALL_NOT_IN_HW;
	tp->priv = n;
	return 0;
}

static int mall_delete(struct tcf_proto *tp, uint32_t handle, char *err, size_t errlen)
{
	const struct mall_head *head = tp->priv;

	if (!head || head->handle != handle)
		return errmsg(err, errlen, -ENOENT,
			      "RTNETLINK answers: No such file or directory (Specified filter "
			      "handle not found: 0x%x)",
			      handle);
	free(tp->priv);
	tp->priv = NULL;
	return 1;
}

static int mall_classify(const struct tcf_proto *tp, const struct bpf_skb *skb,
			 struct tcf_result *res)
{
	const struct mall_head *head = tp->priv;

	(void)skb;
	if (!head)
		return -1;
	res->classid = head->classid;
	res->handle = head->handle;
	res->ret = 0;
	return 0; /* TC_ACT_OK: no actions */
}

static void mall_destroy(struct tcf_proto *tp)
{
	free(tp->priv);
	tp->priv = NULL;
}

/* matchall_print_opt: the handle, the flowid when one is set, the flags
 * each on a line of its own; with stats, the rule's hits after the last. */
static void mall_print(const struct tcf_proto *tp, int stats, struct tcf_dump *d)
{
	const struct mall_head *head = tp->priv;
	struct tcprint *p = d->p;
	char cid[32];

	if (!head)
		return;
	d->begin(d);
	pr_uint(p, PR_ANY, "handle", "handle 0x%x ", head->handle);
	if (head->classid) {
		tc_print_classid(cid, sizeof(cid), head->classid);
		pr_string(p, PR_ANY, "flowid", "flowid %s ", cid);
	}
	if (head->flags & MALL_SKIP_HW)
		pr_bool(p, PR_ANY, "skip_hw", "\n  skip_hw", 1);
	pr_bool(p, PR_ANY, "not_in_hw", "\n  not_in_hw", 1);
	if (stats)
		pr_u64(p, PR_ANY, "rule_hit", " (rule hit %llu)", tp->hits);
	d->end(d);
}

static void mall_dump(const struct tcf_proto *tp, struct tcf_dump *d)
{
	mall_print(tp, 0, d);
}

static void mall_dump_stats(const struct tcf_proto *tp, struct tcf_dump *d)
{
	mall_print(tp, 1, d);
}

static size_t mall_count(const struct tcf_proto *tp)
{
	return tp->priv ? 1 : 0;
}

static int mall_handle_at(const struct tcf_proto *tp, size_t i, uint32_t *handle)
{
	const struct mall_head *head = tp->priv;

	if (!head || i)
		return -1;
	*handle = head->handle;
	return 0;
}

static int mall_classify_traced(const struct tcf_proto *tp, const struct bpf_skb *skb,
				struct tcf_result *res, const struct tcf_tracer *tr,
				struct tcf_trace *ft)
{
	int r = mall_classify(tp, skb, res);

	if (r >= 0) {
		ft->has_handle = 1;
		ft->handle = res->handle;
		ft->has_flowid = res->classid != 0;
		ft->flowid = res->classid;
		ft->match = 1;
		ft->classid = res->classid;
		snprintf(ft->why, sizeof(ft->why), "matchall takes every packet of its protocol");
	}
	tr->filter(tr->arg, ft);
	return r;
}

const struct tcf_proto_ops cls_matchall_ops = {
    .kind = "matchall",
    .change = mall_change,
    .delete = mall_delete,
    .classify = mall_classify,
    .destroy = mall_destroy,
    .dump = mall_dump,
    .count = mall_count,
    .handle_at = mall_handle_at,
    .classify_traced = mall_classify_traced,
    .get_handle = mall_get_handle,
    .dump_stats = mall_dump_stats,
};

int cls_mall_get(const struct tcf_proto *tp, struct cls_mall_info *info)
{
	const struct mall_head *head = tp->priv;

	if (!head)
		return -1;
	info->handle = head->handle;
	info->classid = head->classid;
	info->flags = head->flags;
	return 0;
}
