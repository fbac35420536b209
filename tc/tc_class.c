/* tc_class.c - tc class add|change|replace|delete|show: the words of iproute2's
 * tc/tc_class.c and the kernel's answer (net/sched/sch_api.c tc_ctl_tclass). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tc_int.h"

/* The request's netlink flags, as tc_qdisc.c names them. */
#define NLM_F_EXCL 0x200
#define NLM_F_CREATE 0x400

static const char class_usage[] = "Usage: tc class show [ dev STRING ] [ root | parent CLASSID ]";

static int class_list(struct tc_cmd *c, int argc, char **argv)
{
	struct tc_show_opts o = {.stats = c->stats, .details = c->details, .json = c->json, .pretty = c->pretty};
	const char *dev = NULL;
	struct dev *d;
	int ret;

	for (int i = 0; i < argc; i++) {
		const char *w = argv[i];

		if (!strcmp(w, "dev")) {
			if (++i >= argc)
				return tc_incomplete(c);
			if (dev)
				return tc_duparg(c, "dev", argv[i]);
			dev = argv[i];
		} else if (!strcmp(w, "root")) {
			if (o.has_parent)
				return tc_fail(c, -EINVAL, "Error: duplicate \"parent\" ID");
			o.has_parent = 1;
			o.parent = TC_H_ROOT;
		} else if (!strcmp(w, "parent")) {
			if (o.has_parent)
				return tc_fail(c, -EINVAL, "Error: duplicate \"parent\" ID");
			if (++i >= argc)
				return tc_incomplete(c);
			if (tc_get_classid(&o.parent, argv[i]))
				return tc_invarg(c, "invalid parent ID", argv[i]);
			o.has_parent = 1;
		} else if (!strcmp(w, "classid")) {
			if (++i >= argc)
				return tc_incomplete(c);
			if (tc_get_classid(&o.handle, argv[i]))
				return tc_invarg(c, "invalid class ID", argv[i]);
			o.has_handle = 1;
		} else if (tc_matches(w, "help")) {
			return tc_fail(c, -EINVAL, "%s", class_usage);
		} else {
			return tc_fail(c, -EINVAL, "What is \"%s\"? Try \"tc class help\".", w);
		}
	}
	if (!dev)
		return 0; /* the kernel dumps classes of one device only */
	ret = tc_get_dev(c, dev, 0, &d);
	if (ret)
		return ret;
	tc_show_class_opts(d, c->out, &o);
	return 0;
}

/* What tc_class_modify sends. */
struct class_req {
	const char *dev;
	uint32_t classid; /* tcm_handle: 0 when none given */
	uint32_t parent;  /* tcm_parent: 0 none, TC_H_ROOT root */
	const char *classid_word, *parent_word;
	const char *kind;
	int argc; /* the kind's words */
	char **argv;
};

static int parse_class_req(struct tc_cmd *c, int argc, char **argv, struct class_req *r)
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
		} else if (!strcmp(w, "classid")) {
			if (++i >= argc)
				return tc_incomplete(c);
			if (r->classid)
				return tc_duparg(c, "classid", argv[i]);
			if (tc_get_classid(&r->classid, argv[i]))
				return tc_invarg(c, "invalid class ID", argv[i]);
			r->classid_word = argv[i];
		} else if (!strcmp(w, "handle")) {
			return tc_fail(c, -EINVAL, "Error: try \"classid\" instead of \"handle\"");
		} else if (!strcmp(w, "root")) {
			if (r->parent)
				return tc_fail(c, -EINVAL,
					       "Error: \"root\" is duplicate parent ID.");
			r->parent = TC_H_ROOT;
			r->parent_word = w;
		} else if (!strcmp(w, "parent")) {
			if (++i >= argc)
				return tc_incomplete(c);
			if (r->parent)
				return tc_duparg(c, "parent", argv[i]);
			if (tc_get_classid(&r->parent, argv[i]))
				return tc_invarg(c, "invalid parent ID", argv[i]);
			r->parent_word = argv[i];
		} else if (tc_matches(w, "estimator")) {
			return tc_not_modelled(c, w);
		} else if (tc_matches(w, "help")) {
			return tc_fail(
			    c, -EINVAL,
			    "Usage: tc class [ add | del | change | replace | show ] dev "
			    "STRING [ classid CLASSID ] [ root | parent CLASSID ] [ [ "
			    "QDISC_KIND ] [ help | OPTIONS ] ]");
		} else {
			r->kind = w;
			r->argc = argc - i - 1;
			r->argv = argv + i + 1;
			break;
		}
	}
	return 0;
}

/* The kinds whose classes are fixed: prio's bands, sfq's buckets. */
static int fixed_classes(const struct qdisc_ops *ops)
{
	return ops && (ops->walk || ops->graft) && !ops->class_change;
}

static int refuse_fixed(struct tc_cmd *c, const char *cmd)
{
	return tc_fail(c, -EOPNOTSUPP,
		       "tcsim: \"tc class %s\" is not modelled (prio and sfq classes have no "
		       "parameters)",
		       cmd);
}

/* tc_ctl_tclass: the qdisc the request names (step 1: the majors of the
 * classid and the parent must agree; none means the root qdisc), then the
 * class, and the flags decide between create, change and the refusals. */
static int class_modify(struct tc_cmd *c, const char *cmd, int del, unsigned flags, int argc,
			char **argv)
{
	struct class_req r;
	struct dev *d;
	struct qdisc *q;
	uint32_t portid, clid, qid;
	char msg[512], id[32];
	int ret, exists;

	ret = parse_class_req(c, argc, argv, &r);
	if (ret)
		return ret;
	if (r.kind) {
		const struct qdisc_ops *ops = qdisc_ops_find(r.kind);

		/* tc parses the options with the kind's class parser */
		if (fixed_classes(ops))
			return refuse_fixed(c, cmd);
		if (!ops || !ops->class_change)
			return tc_fail(c, -EINVAL, "Error: Qdisc \"%s\" is classless.", r.kind);
	}
	ret = tc_get_dev(c, r.dev, 1, &d);
	if (ret)
		return ret;
	portid = r.parent;
	clid = r.classid;
	qid = TC_H_MAJ(clid);
	if (portid != TC_H_ROOT) {
		uint32_t qid1 = TC_H_MAJ(portid);

		if (qid && qid1 && qid != qid1)
			return tc_kfail(c, -EINVAL, "The classid and the parent name two qdiscs",
					"%s and %s", r.classid_word, r.parent_word);
		if (qid1)
			qid = qid1;
		else if (!qid)
			qid = d->root->handle;
		if (portid)
			portid = TC_H_MAKE(qid, portid);
	} else if (!qid) {
		qid = d->root->handle;
	}
	q = qdisc_lookup(d->root, qid);
	if (!q)
		return tc_kfail(c, -ENOENT, "No qdisc with the class's major", "%x:", qid >> 16);
	if (fixed_classes(q->ops))
		return refuse_fixed(c, cmd);
	if (!q->ops->class_find)
		return tc_kfail(c, -EINVAL, "The qdisc has no classes", "%s %x:", q->ops->id,
				q->handle >> 16);
	if (!clid) {
		if (portid == TC_H_ROOT)
			clid = qid;
	} else {
		clid = TC_H_MAKE(qid, clid);
	}
	exists = clid && q->ops->class_find(q, clid);
	tc_classid_str(id, sizeof(id), clid);
	if (!exists) {
		if (del || !(flags & NLM_F_CREATE))
			return tc_kfail(c, -ENOENT, "No such class", "%s %x: has no class %s",
					q->ops->id, q->handle >> 16, id);
	} else if (!del && (flags & NLM_F_EXCL)) {
		return tc_kfail(c, -EEXIST, "The class exists", "%s", id);
	}
	msg[0] = 0;
	if (del) {
		ret = q->ops->class_delete(q, clid, msg, sizeof(msg));
		return ret ? tc_pass_on(c, ret, msg) : 0;
	}
	if (!r.kind) /* no options: htb_change_class finds no TCA_OPTIONS */
		return tc_kfail(c, -EINVAL, "No options for the class", "%s needs %s's words", id,
				q->ops->id);
	ret = q->ops->class_change(q, clid, portid, r.argc, r.argv, msg, sizeof(msg));
	if (ret)
		return tc_pass_on(c, ret, msg);
	if (q->ops->class_where)
		q->ops->class_where(q, clid, c->where);
	if (msg[0]) /* what tc prints from the kernel's extack, on stderr */
		fprintf(stderr, "tcsim: %s: Warning: %s\n", c->where, msg);
	return 0;
}

int tc_do_class(struct tc_cmd *c, int argc, char **argv)
{
	const char *w;

	if (argc < 1)
		return class_list(c, 0, NULL);
	w = argv[0];
	if (tc_matches(w, "add"))
		return class_modify(c, w, 0, NLM_F_EXCL | NLM_F_CREATE, argc - 1, argv + 1);
	if (tc_matches(w, "change"))
		return class_modify(c, w, 0, 0, argc - 1, argv + 1);
	if (tc_matches(w, "replace"))
		return class_modify(c, w, 0, NLM_F_CREATE, argc - 1, argv + 1);
	if (tc_matches(w, "delete"))
		return class_modify(c, w, 1, 0, argc - 1, argv + 1);
	if (tc_matches(w, "list") || tc_matches(w, "show") || tc_matches(w, "lst"))
		return class_list(c, argc - 1, argv + 1);
	if (tc_matches(w, "help"))
		return tc_fail(c, -EINVAL, "%s", class_usage);
	return tc_fail(c, -EINVAL, "Command \"%s\" is unknown, try \"tc class help\".", w);
}
