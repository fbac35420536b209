/* tc_filter.c - tc filter add|change|replace|delete|show: the words of iproute2's
 * tc/tc_filter.c and the kernel's answer (net/sched/cls_api.c tc_new_tfilter, tc_del_tfilter). */
#include <errno.h>
#include <string.h>

#include "tc_int.h"

/* Filter kinds Linux and iproute2 have that tcsim does not (yet) model:
 * named as such, with what is modelled, rather than tc's "Unknown filter"
 * for a word it has never heard of. */
static const char *const linux_filters[] = {
    "basic", "cgroup", "flow",	"fw",  "matchall",
    "route", "rsvp",   "rsvp6", "tcindex", "u32", NULL,
};

struct filter_req {
	const char *dev;
	uint32_t parent;
	const char *parent_word;
	const char *fhandle;
	uint32_t pref;
	uint16_t protocol;
	int protocol_set;
	int chain_set;
	const char *kind;
	int argc; /* the kind's words */
	char **argv;
};

static const char filter_usage[] =
    "Usage: tc filter [ add | del | change | replace | show ] dev STRING "
    "[ pref PRIO ] protocol PROTO [ root | parent CLASSID ] [ handle FILTERID ] "
    "[ FILTER_TYPE [ help | OPTIONS ] ]";

/* tc_filter_modify's and tc_filter_list's word loops. */
static int parse_filter_req(struct tc_cmd *c, int argc, char **argv, struct filter_req *r, int show)
{
	memset(r, 0, sizeof(*r));
	for (int i = 0; i < argc; i++) {
		const char *w = argv[i];

		if (!strcmp(w, "dev")) {
			if (++i >= argc)
				return tc_incomplete(c);
			if (r->dev)
				return tc_duparg(c, "dev", argv[i]);
			r->dev = argv[i];
		} else if (!strcmp(w, "root")) {
			if (r->parent)
				return tc_fail(c, -EINVAL,
					       "Error: \"root\" is duplicate parent ID");
			r->parent = TC_H_ROOT;
			r->parent_word = w;
		} else if (!strcmp(w, "ingress") || !strcmp(w, "egress") || !strcmp(w, "block")) {
			return tc_not_modelled(c, w);
		} else if (!strcmp(w, "parent")) {
			if (++i >= argc)
				return tc_incomplete(c);
			if (r->parent)
				return tc_duparg(c, "parent", argv[i]);
			if (tc_get_classid(&r->parent, argv[i]))
				return tc_invarg(
				    c, show ? "invalid parent ID" : "Invalid parent ID", argv[i]);
			r->parent_word = argv[i];
		} else if (!strcmp(w, "handle")) {
			if (++i >= argc)
				return tc_incomplete(c);
			if (r->fhandle)
				return tc_duparg(c, "handle", argv[i]);
			r->fhandle = argv[i];
		} else if (tc_matches(w, "preference") || tc_matches(w, "priority")) {
			uint32_t v;

			if (++i >= argc)
				return tc_incomplete(c);
			if (r->pref)
				return tc_duparg(c, "priority", argv[i]);
			if (tc_get_u32(&v, argv[i], 0) || (!show && v > 0xffff))
				return tc_invarg(
				    c, show ? "invalid preference" : "invalid priority value",
				    argv[i]);
			r->pref = v;
		} else if (tc_matches(w, "protocol")) {
			if (++i >= argc)
				return tc_incomplete(c);
			if (r->protocol_set)
				return tc_duparg(c, "protocol", argv[i]);
			if (tc_get_protocol(&r->protocol, argv[i]))
				return tc_invarg(c, "invalid protocol", argv[i]);
			r->protocol_set = 1;
		} else if (tc_matches(w, "chain")) {
			uint32_t v;

			if (++i >= argc)
				return tc_incomplete(c);
			if (r->chain_set)
				return tc_duparg(c, "chain", argv[i]);
			if (tc_get_u32(&v, argv[i], 0))
				return tc_invarg(c, "invalid chain index value", argv[i]);
			if (v != 0)
				return tc_fail(c, -EOPNOTSUPP,
					       "tcsim: \"chain %s\" is not modelled (chain 0 only)",
					       argv[i]);
			r->chain_set = 1;
		} else if (tc_matches(w, "estimator")) {
			return tc_not_modelled(c, w);
		} else if (tc_matches(w, "help")) {
			return tc_fail(c, -EINVAL, "%s", filter_usage);
		} else if (show) {
			return tc_fail(c, -EINVAL, " What is \"%s\"? Try \"tc filter help\"", w);
		} else {
			if (!tcf_ops_find(w) && tc_in_list(linux_filters, w))
				return tc_kind_not_modelled(c, "filter", w);
			r->kind = w;
			r->argc = argc - i - 1;
			r->argv = argv + i + 1;
			break;
		}
	}
	return 0;
}

/* tc-side checks on the kind and the handle: the kind's own handle word
 * (get_handle), else f_bpf.c's base-0 u32. */
static int check_filter_words(struct tc_cmd *c, const struct filter_req *r, uint32_t *handle)
{
	const struct tcf_proto_ops *ops;

	*handle = 0;
	if (r->kind && !tcf_ops_find(r->kind) && r->argc)
		return tc_fail(c, -EINVAL,
			       "Unknown filter \"%s\", hence option \"%s\" is unparsable", r->kind,
			       r->argv[0]);
	if (!r->fhandle)
		return 0;
	if (!r->kind)
		return tc_fail(c, -EINVAL, "Must specify filter type when using \"handle\"");
	ops = tcf_ops_find(r->kind);
	if (ops && ops->get_handle) {
		char msg[256];

		msg[0] = 0;
		if (ops->get_handle(r->fhandle, handle, msg, sizeof(msg)))
			return tc_fail(c, -EINVAL, "%s", msg);
	} else if (tc_get_u32(handle, r->fhandle, 0)) {
		return tc_fail(c, -EINVAL, "Illegal \"handle\"");
	}
	return 0;
}

/* __tcf_qdisc_find, __tcf_qdisc_cl_find and __tcf_block_find: the qdisc the
 * request means and the chain: the qdisc's own, or a class's (htb; prio
 * and sfq keep filters on the qdisc, not on its classes). */
static int filter_qdisc(struct tc_cmd *c, struct dev *d, const struct filter_req *r,
			struct qdisc **qp, struct tcf_chain **chain)
{
	struct qdisc *q = d->root;
	char id[32];

	if (r->parent) {
		q = qdisc_lookup(d->root, TC_H_MAJ(r->parent));
		if (!q)
			return tc_kfail(c, -EINVAL, "Parent Qdisc doesn't exists", "parent %s",
					r->parent_word);
	}
	if (!tc_classful(q))
		return tc_kfail(c, -EINVAL, "Qdisc not classful", "%s %x:", q->ops->id,
				q->handle >> 16);
	if (!q->ops->has_filters)
		return tc_kfail(c, -EOPNOTSUPP, "Class doesn't support blocks",
				"%s %x:", q->ops->id, q->handle >> 16);
	*qp = q;
	*chain = &q->chain;
	if (TC_H_MIN(r->parent)) {
		if (q->ops->class_find ? !q->ops->class_find(q, r->parent)
				       : !q->ops->leaf || !q->ops->leaf(q, r->parent))
			return tc_kfail(c, -ENOENT, "Specified class doesn't exist", "%s",
					tc_classid_str(id, sizeof(id), r->parent));
		if (!q->ops->class_chain)
			return tc_kfail(c, -EINVAL, "Unable to find the block of a class",
					"%s filters attach to the qdisc %x:, not to class %s",
					q->ops->id, q->handle >> 16,
					tc_classid_str(id, sizeof(id), r->parent));
		*chain = q->ops->class_chain(q, r->parent);
	}
	return 0;
}

/* The tcf_proto of the chain at this pref, or NULL. */
static const struct tcf_proto *find_pref(const struct tcf_chain *chain, uint32_t pref)
{
	const struct tcf_proto *tp = chain->head;

	while (tp && tp->prio >> 16 != pref)
		tp = tp->next;
	return pref ? tp : NULL;
}

static int filter_modify(struct tc_cmd *c, int create, int excl, int argc, char **argv)
{
	struct filter_req r;
	struct tcf_request req;
	struct tcf_env env;
	struct qdisc *q;
	struct tcf_chain *chain;
	struct dev *d;
	uint32_t handle;
	char msg[1024];
	int ret;

	ret = parse_filter_req(c, argc, argv, &r, 0);
	if (ret || (ret = check_filter_words(c, &r, &handle)))
		return ret;
	if (create && !r.protocol_set)
		r.protocol = ETH_P_ALL;
	ret = tc_get_dev(c, r.dev, 1, &d);
	if (ret || (ret = filter_qdisc(c, d, &r, &q, &chain)))
		return ret;
	if (r.kind && !tcf_ops_find(r.kind)) {
		const struct tcf_proto *tp = find_pref(chain, r.pref);

		if (tp)
			return tc_kfail(c, -EINVAL,
					"Specified filter kind does not match existing one",
					"pref %u is %s", r.pref, tp->ops->kind);
		return tc_kfail(c, -ENOENT, "TC classifier not found", "\"%s\"", r.kind);
	}
	req = (struct tcf_request){
	    .pref = r.pref,
	    .protocol = r.protocol,
	    .handle = handle,
	    .create = create,
	    .excl = excl,
	    .kind = r.kind,
	    .argc = r.argc,
	    .argv = r.argv,
	    .where = c->where,
	    .basedir = c->basedir,
	    .handle_word = r.fhandle,
	};
	env = (struct tcf_env){.kernel = d->env.kernel,
			       .ifindex = d->ifindex,
			       .qdisc = q->handle,
			       .u32_node = &q->u32_node};
	msg[0] = 0;
	ret = tcf_chain_change(chain, &req, &env, msg, sizeof(msg));
	return ret ? tc_pass_on(c, ret, msg) : 0;
}

/* tc_del_tfilter: no pref flushes the chain; a pref removes its
 * tcf_proto, or with a handle one program of it. */
static int filter_delete(struct tc_cmd *c, int argc, char **argv)
{
	const struct tcf_proto *tp;
	struct filter_req r;
	struct tcf_chain *chain;
	struct tcf_request req;
	struct qdisc *q;
	struct dev *d;
	uint32_t handle;
	char msg[1024];
	int ret;

	ret = parse_filter_req(c, argc, argv, &r, 0);
	if (ret || (ret = check_filter_words(c, &r, &handle)))
		return ret;
	ret = tc_get_dev(c, r.dev, 1, &d);
	if (ret)
		return ret;
	if (!r.pref && (r.protocol || handle || r.kind))
		return tc_kfail(c, -ENOENT,
				"Cannot flush filters with protocol, handle or kind set",
				"give a pref");
	ret = filter_qdisc(c, d, &r, &q, &chain);
	if (ret)
		return ret;
	if (r.pref) {
		tp = find_pref(chain, r.pref);
		if (!tp)
			return tc_kfail(c, -ENOENT,
					"Filter with specified priority/protocol not found",
					"pref %u", r.pref);
		if (r.protocol && tp->protocol != r.protocol)
			return tc_kfail(c, -EINVAL,
					"Protocol mismatch for filter with specified priority",
					"pref %u", r.pref);
		if (r.kind && strcmp(r.kind, tp->ops->kind))
			return tc_kfail(c, -EINVAL,
					"Specified filter kind does not match existing one",
					"pref %u is %s", r.pref, tp->ops->kind);
	}
	req = (struct tcf_request){
	    .pref = r.pref,
	    .protocol = r.protocol,
	    .handle = handle,
	    .kind = r.kind,
	    .where = c->where,
	    .basedir = c->basedir,
	};
	msg[0] = 0;
	ret = tcf_chain_delete(chain, &req, msg, sizeof(msg));
	return ret ? tc_pass_on(c, ret, msg) : 0;
}

static int filter_list(struct tc_cmd *c, int argc, char **argv)
{
	struct tc_show_opts o = {.stats = c->stats, .details = c->details, .json = c->json, .pretty = c->pretty};
	struct filter_req r;
	struct dev *d;
	int ret;

	ret = parse_filter_req(c, argc, argv, &r, 1);
	if (ret)
		return ret;
	if (!r.dev)
		return 0; /* the kernel dumps the filters of one device only */
	ret = tc_get_dev(c, r.dev, 0, &d);
	if (ret)
		return ret;
	o.has_parent = r.parent != 0;
	o.parent = r.parent;
	o.pref = r.pref;
	o.protocol = r.protocol_set ? r.protocol : 0;
	o.has_chain = r.chain_set;
	if (tc_show_filter_opts(d, c->out, &o))
		return tc_fail(c, -EMSGSIZE, "Error: Buffer too small for object. Dump terminated "
			       "(the kernel's walk stops at an fw filter without a table, the old method)");
	return 0;
}

int tc_do_filter(struct tc_cmd *c, int argc, char **argv)
{
	const char *w;

	if (argc < 1)
		return filter_list(c, 0, NULL);
	w = argv[0];
	if (tc_matches(w, "add"))
		return filter_modify(c, 1, 1, argc - 1, argv + 1);
	if (tc_matches(w, "change"))
		return filter_modify(c, 0, 0, argc - 1, argv + 1);
	if (tc_matches(w, "replace"))
		return filter_modify(c, 1, 0, argc - 1, argv + 1);
	if (tc_matches(w, "delete"))
		return filter_delete(c, argc - 1, argv + 1);
	if (tc_matches(w, "get"))
		return tc_not_modelled(c, "tc filter get");
	if (tc_matches(w, "list") || tc_matches(w, "show") || tc_matches(w, "lst"))
		return filter_list(c, argc - 1, argv + 1);
	if (tc_matches(w, "help"))
		return tc_fail(c, -EINVAL, "%s", filter_usage);
	return tc_fail(c, -EINVAL, "Command \"%s\" is unknown, try \"tc filter help\".", w);
}
