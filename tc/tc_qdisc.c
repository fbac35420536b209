/* tc_qdisc.c - tc qdisc add|change|replace|link|delete|show: the words of iproute2's
 * tc/tc_qdisc.c and the kernel's answer (net/sched/sch_api.c tc_modify_qdisc, tc_get_qdisc). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tc_int.h"

/* The request's netlink flags (linux/netlink.h): add, change, replace and
 * link differ only in these. */
#define NLM_F_REPLACE 0x100
#define NLM_F_EXCL 0x200
#define NLM_F_CREATE 0x400

/* Qdisc kinds Linux and iproute2 have that tcsim does not (yet) model:
 * named as such, with what is modelled, rather than tc's "Unknown qdisc"
 * for a word it has never heard of. */
static const char *const linux_qdiscs[] = {
    "atm",     "cake",	 "cbq",	     "cbs",	"choke",
    "clsact",  "codel",	 "drr",	     "dsmark",	"etf",
    "ets",     "fq",	 "fq_codel", "fq_pie",	"gred",
    "hfsc",    "hhf",	 "htb",	     "ingress", "mq",
    "mqprio",  "multiq", "netem",    "noqueue", "pfifo_head_drop",
    "pie",     "plug",	 "qfq",	     "red",	"sfb",
    "skbprio", "taprio", "tbf",	     "teql",	NULL,
};

/* The kinds the kernel would find (noop is built in, not registered). */
static const struct qdisc_ops *kind_ops(const char *kind)
{
	const struct qdisc_ops *ops = qdisc_ops_find(kind);

	return ops && strcmp(ops->id, "noop") ? ops : NULL;
}

/* get_qdisc_handle: hex major, then ':' or the end (what follows the
 * colon is not looked at); "none" is 0. */
static int get_qdisc_handle(uint32_t *h, const char *s)
{
	unsigned long maj;
	char *p;

	if (!strcmp(s, "none")) {
		*h = 0;
		return 0;
	}
	errno = 0;
	maj = strtoul(s, &p, 16);
	if (p == s || maj >= 0x10000 || errno)
		return -1;
	if (*p != ':' && *p)
		return -1;
	*h = (uint32_t)maj << 16;
	return 0;
}

struct qdisc_req {
	const char *dev;
	uint32_t handle;
	uint32_t parent; /* 0: none given, TC_H_ROOT: root */
	const char *parent_word;
	const char *kind;
	int argc; /* the kind's words */
	char **argv;
};

static const char qdisc_usage[] =
    "Usage: tc qdisc [ add | del | replace | change | show ] dev STRING "
    "[ handle QHANDLE ] [ root | parent CLASSID ] [ QDISC_KIND [ OPTIONS ] ]";

/* tc_qdisc_modify's word loop: dev, handle, root and parent are exact
 * words; the first other word is the kind, and the rest is the kind's. */
static int parse_qdisc_req(struct tc_cmd *c, int argc, char **argv, struct qdisc_req *r)
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
		} else if (!strcmp(w, "handle")) {
			if (r->handle)
				return tc_duparg(c, "handle", w); /* sic: tc names the keyword */
			if (++i >= argc)
				return tc_incomplete(c);
			if (get_qdisc_handle(&r->handle, argv[i]))
				return tc_invarg(c, "invalid qdisc ID", argv[i]);
		} else if (!strcmp(w, "root")) {
			if (r->parent)
				return tc_fail(c, -EINVAL,
					       "Error: \"root\" is duplicate parent ID");
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
		} else if (!strcmp(w, "ingress") || !strcmp(w, "clsact")) {
			return tc_kind_not_modelled(c, "qdisc", w);
		} else if (!strcmp(w, "mq") || !strcmp(w, "mqprio")) {
			return tc_fail(c, -EOPNOTSUPP,
				       "qdisc \"%s\" is not modelled by tcsim: it gives each transmit "
				       "queue of a multiqueue device a child of its own, and tcsim's "
				       "device has one queue (a single-queue device refuses it: "
				       "Operation not supported)",
				       w);
		} else if (tc_matches(w, "estimator") || tc_matches(w, "stab")) {
			return tc_not_modelled(c, w);
		} else if (tc_matches(w, "help")) {
			return tc_fail(c, -EINVAL, "%s", qdisc_usage);
		} else {
			if (!kind_ops(w) && tc_in_list(linux_qdiscs, w))
				return tc_kind_not_modelled(c, "qdisc", w);
			r->kind = w;
			r->argc = argc - i - 1;
			r->argv = argv + i + 1;
			break;
		}
	}
	return 0;
}

/* What tc refuses before sending: options for a kind it does not know. */
static int check_kind_words(struct tc_cmd *c, const struct qdisc_req *r)
{
	const struct qdisc_ops *ops;

	if (!r->kind)
		return 0;
	ops = kind_ops(r->kind);
	if (!ops && r->argc)
		return tc_fail(c, -EINVAL,
			       "Unknown qdisc \"%s\", hence option \"%s\" is unparsable", r->kind,
			       r->argv[0]);
	if (ops && !strcmp(ops->id, "pfifo_fast") && r->argc)
		return tc_fail(c, -EINVAL, "qdisc 'pfifo_fast' does not support option parsing");
	return 0;
}

int tc_classful(const struct qdisc *q)
{
	return q->ops->walk || q->ops->leaf || q->ops->graft;
}

/* qdisc_leaf: the child qdisc of class clid of p. */
static int class_leaf(struct tc_cmd *c, struct qdisc *p, uint32_t clid, struct qdisc **q)
{
	char id[32];

	*q = NULL;
	if (!tc_classful(p))
		return tc_kfail(c, -EOPNOTSUPP, "Parent qdisc is not classful",
				"%s %x:", p->ops->id, p->handle >> 16);
	if (p->ops->class_find) {
		/* an inner class (htb) exists and holds no qdisc: *q stays NULL */
		if (!p->ops->class_find(p, clid))
			return tc_kfail(c, -ENOENT, "Specified class not found", "%s",
					tc_classid_str(id, sizeof(id), clid));
		*q = p->ops->leaf(p, clid);
		return 0;
	}
	if (p->ops->leaf)
		*q = p->ops->leaf(p, clid);
	if (!*q)
		return tc_kfail(c, -ENOENT, "Specified class not found", "%s",
				tc_classid_str(id, sizeof(id), clid));
	return 0;
}

static int handle_in_use(const struct dev *d, uint32_t h)
{
	return qdisc_lookup(d->root, h) != NULL;
}

/* qdisc_alloc_handle: one counter per simulation (the kernel's is global),
 * advanced on every use, from 8001: up, wrapping from ffff: to 8000:, skipping
 * handles in use on the device. */
static uint32_t alloc_handle(struct sim *s, const struct dev *d)
{
	for (int i = 0; i < 0x8000; i++) {
		s->qdisc_autohandle += 0x10000u;
		if (s->qdisc_autohandle == 0xffff0000u)
			s->qdisc_autohandle = 0x80000000u;
		if (!handle_in_use(d, s->qdisc_autohandle))
			return s->qdisc_autohandle;
	}
	return 0;
}

/* tc sends TCA_OPTIONS when the kind's parser put some in: prio and htb
 * always (their full tc_prio_qopt, tc_htb_glob), the others only when given
 * words; tbf always (rate, burst and limit are mandatory) and netem always
 * (its tc_netem_qopt, with the default limit when given no words). */
static int sends_options(const char *kind, int argc)
{
	return argc > 0 || (kind && (!strcmp(kind, "prio") || !strcmp(kind, "htb") ||
				     !strcmp(kind, "tbf") || !strcmp(kind, "netem")));
}

static int new_default_root(struct tc_cmd *c, struct dev *d)
{
	struct qdisc *q;
	char msg[256];
	int ret = qdisc_create(&q, "pfifo_fast", &d->env, 0, TC_H_ROOT, 0, NULL, msg, sizeof(msg));

	if (ret)
		return tc_pass_on(c, ret, msg);
	q->invisible = 0;
	dev_set_root(d, q);
	return 0;
}

/* tc_modify_qdisc, flag for flag: add = CREATE|EXCL, replace =
 * CREATE|REPLACE, change = none, link = REPLACE. */
static int qdisc_modify(struct tc_cmd *c, unsigned flags, int argc, char **argv)
{
	struct qdisc *p = NULL, *q = NULL, *fresh;
	const struct qdisc_ops *ops;
	struct qdisc_req r;
	struct dev *d;
	char msg[512], id[32];
	uint32_t clid, handle;
	int ret, current;

	ret = parse_qdisc_req(c, argc, argv, &r);
	if (ret || (ret = check_kind_words(c, &r)))
		return ret;
	ops = r.kind ? kind_ops(r.kind) : NULL;
	ret = tc_get_dev(c, r.dev, 1, &d);
	if (ret)
		return ret;
	current = d->env.kernel != BPF_KERNEL_3_13;
	clid = r.parent;
	if (clid) {
		if (clid != TC_H_ROOT) {
			p = qdisc_lookup(d->root, TC_H_MAJ(clid));
			if (!p)
				return tc_kfail(c, -ENOENT, "Failed to find specified qdisc",
						"parent %s", r.parent_word);
			ret = class_leaf(c, p, clid, &q);
			if (ret)
				return ret;
		} else {
			q = d->root;
		}
		if (q && q->handle == 0) /* a default qdisc: as if none */
			q = NULL;
		if (!q || !r.handle || q->handle != r.handle) {
			if (r.handle) {
				if (q && !(flags & NLM_F_REPLACE))
					return tc_kfail(c, -EEXIST,
							"NLM_F_REPLACE needed to override",
							"%s %x: is at %s", q->ops->id,
							q->handle >> 16, r.parent_word);
				q = qdisc_lookup(d->root, r.handle);
				if (!q)
					goto create_n_graft;
				if (flags & NLM_F_EXCL)
					return tc_kfail(c, -EEXIST,
							"Exclusivity flag on, cannot override",
							"handle %x: exists", r.handle >> 16);
				if (r.kind && strcmp(r.kind, q->ops->id))
					return tc_kfail(
					    c, -EINVAL,
					    "Invalid qdisc name: must match existing qdisc",
					    "%x: is %s", q->handle >> 16, q->ops->id);
				if (q == p || (p && qdisc_in_tree(q, p)))
					return tc_kfail(c, -ELOOP,
							"Qdisc parent/child loop detected",
							"handle %x:", r.handle >> 16);
				return tc_kfail(
				    c, -EINVAL,
				    "Cannot move an existing qdisc to a different parent",
				    "%x: is at %s", q->handle >> 16,
				    q->parent == TC_H_ROOT
					? "root"
					: tc_classid_str(id, sizeof(id), q->parent));
			}
			if (!q)
				goto create_n_graft;
			/* a different kind where one exists: replace it? */
			if (r.kind && strcmp(r.kind, q->ops->id)) {
				if (current) {
					if ((flags & NLM_F_CREATE) &&
					    (flags & (NLM_F_REPLACE | NLM_F_EXCL)))
						goto create_n_graft;
					if (!(flags & (NLM_F_CREATE | NLM_F_REPLACE | NLM_F_EXCL)))
						goto create_n_graft2;
				} else if ((flags & NLM_F_CREATE) && (flags & NLM_F_REPLACE)) {
					goto create_n_graft;
				}
			}
		}
	} else {
		if (!r.handle)
			return tc_kfail(c, -EINVAL, "Handle cannot be zero",
					"neither root nor parent given");
		q = qdisc_lookup(d->root, r.handle);
	}

	/* change the qdisc found */
	if (!q)
		return tc_kfail(c, -ENOENT, "Specified qdisc not found",
				"handle %x:", r.handle >> 16);
	if (flags & NLM_F_EXCL)
		return tc_kfail(c, -EEXIST, "Exclusivity flag on, cannot modify", "%s %x: exists",
				q->ops->id, q->handle >> 16);
	if (r.kind && strcmp(r.kind, q->ops->id))
		return tc_kfail(c, -EINVAL, "Invalid qdisc name: must match existing qdisc",
				"%x: is %s", q->handle >> 16, q->ops->id);
	if (!sends_options(r.kind, r.argc))
		return 0;
	if (!q->ops->change)
		return tc_kfail(c, -EINVAL, "Change operation not supported by specified qdisc",
				"%s", q->ops->id);
	ret = q->ops->change(q, r.argc, r.argv, msg, sizeof(msg));
	return ret ? tc_pass_on(c, ret, msg) : 0;

create_n_graft:
	if (!(flags & NLM_F_CREATE))
		return tc_kfail(c, -ENOENT, "Qdisc not found. To create specify NLM_F_CREATE flag",
				"nothing at %s", r.parent_word);
create_n_graft2:
	if (!ops)
		return tc_kfail(c, -ENOENT, "Specified qdisc kind is unknown", "\"%s\"",
				r.kind ? r.kind : "");
	if (p && !p->ops->graft)
		return tc_kfail(c, -EOPNOTSUPP, "Parent qdisc takes no children",
				"%s %x:", p->ops->id, p->handle >> 16);
	handle = r.handle ? r.handle : alloc_handle(c->s, d);
	if (!handle)
		return tc_kfail(c, -ENOSPC, "Maximum number of qdisc handles was exceeded", NULL);
	ret = qdisc_create(&fresh, r.kind, &d->env, handle, clid, r.argc, r.argv, msg, sizeof(msg));
	if (ret)
		return tc_pass_on(c, ret, msg);
	snprintf(fresh->where, sizeof(fresh->where), "%s", c->where ? c->where : "");
	if (!p) {
		dev_set_root(d, fresh);
		return 0;
	}
	if (fresh->ops->no_queue) {
		qdisc_destroy(fresh);
		return tc_kfail(c, -EINVAL, "Cannot assign noqueue to a class", "parent %s",
				r.parent_word);
	}
	ret = p->ops->graft(p, clid, fresh, msg, sizeof(msg));
	if (ret) {
		qdisc_destroy(fresh);
		return tc_pass_on(c, ret, msg);
	}
	return 0;
}

/* tc_get_qdisc for RTM_DELQDISC: the qdisc goes, the class (or the
 * device) gets its default back. */
static int qdisc_delete(struct tc_cmd *c, int argc, char **argv)
{
	struct qdisc *p = NULL, *q;
	struct qdisc_req r;
	struct dev *d;
	char msg[512];
	uint32_t clid;
	int ret;

	ret = parse_qdisc_req(c, argc, argv, &r);
	if (ret || (ret = check_kind_words(c, &r)))
		return ret;
	ret = tc_get_dev(c, r.dev, 1, &d);
	if (ret)
		return ret;
	clid = r.parent;
	if (clid) {
		if (clid != TC_H_ROOT) {
			p = qdisc_lookup(d->root, TC_H_MAJ(clid));
			if (!p)
				return tc_kfail(c, -ENOENT,
						"Failed to find qdisc with specified classid",
						"parent %s", r.parent_word);
			ret = class_leaf(c, p, clid, &q);
			if (ret)
				return ret;
			if (!q)
				return tc_kfail(c, -ENOENT, "Cannot find qdisc with specified classid",
						"%s is an inner class", r.parent_word);
		} else {
			q = d->root;
		}
		if (r.handle && q->handle != r.handle)
			return tc_kfail(c, -EINVAL, "Invalid handle",
					"%s holds %x:, not %x:", r.parent_word, q->handle >> 16,
					r.handle >> 16);
	} else {
		q = qdisc_lookup(d->root, r.handle);
		if (!q)
			return tc_kfail(c, -ENOENT, "Failed to find qdisc with specified handle",
					"%x:", r.handle >> 16);
	}
	if (r.kind && strcmp(r.kind, q->ops->id))
		return tc_kfail(c, -EINVAL, "Invalid qdisc name: must match existing qdisc",
				"%x: is %s", q->handle >> 16, q->ops->id);
	if (!clid)
		return tc_kfail(c, -EINVAL, "Classid cannot be zero", "give root or parent");
	if (q->handle == 0)
		return tc_kfail(c, -ENOENT, "Cannot delete qdisc with handle of zero",
				"%s is the default %s", r.parent_word, q->ops->id);
	if (!p)
		return new_default_root(c, d);
	if (!p->ops->graft)
		return tc_kfail(c, -EOPNOTSUPP, "Parent qdisc takes no children",
				"%s %x:", p->ops->id, p->handle >> 16);
	ret = p->ops->graft(p, clid, NULL, msg, sizeof(msg));
	return ret ? tc_pass_on(c, ret, msg) : 0;
}

static int qdisc_list(struct tc_cmd *c, int argc, char **argv)
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
				return tc_fail(c, -EINVAL, "Duplicate parent ID");
			o.has_parent = 1;
			o.parent = TC_H_ROOT;
		} else if (!strcmp(w, "ingress")) {
			if (o.has_parent)
				return tc_fail(c, -EINVAL, "Duplicate parent ID");
			o.has_parent = 1;
			o.parent = 0xfffffff1u; /* TC_H_INGRESS: nothing is there */
		} else if (!strcmp(w, "parent")) {
			if (o.has_parent)
				return tc_fail(c, -EINVAL, "Duplicate parent ID");
			if (++i >= argc)
				return tc_incomplete(c);
			if (tc_get_classid(&o.parent, argv[i]))
				return tc_invarg(c, "invalid parent ID", argv[i]);
			o.has_parent = 1;
		} else if (!strcmp(w, "handle")) {
			if (++i >= argc)
				return tc_incomplete(c);
			if (get_qdisc_handle(&o.handle, argv[i]))
				return tc_invarg(c, "invalid qdisc ID", argv[i]);
			o.has_handle = 1;
		} else if (tc_matches(w, "invisible")) {
			o.invisible = 1;
		} else if (tc_matches(w, "help")) {
			return tc_fail(c, -EINVAL, "%s", qdisc_usage);
		} else {
			return tc_fail(c, -EINVAL, "What is \"%s\"? Try \"tc qdisc help\".", w);
		}
	}
	if (!dev) {
		struct tcprint p;

		/* one JSON array for every device, as tc's one dump */
		pr_init(&p, c->out, o.json, o.pretty);
		pr_open_array(&p, NULL, NULL);
		o.pr = &p;
		o.with_dev = 1;
		for (int i = 0; i < c->s->ndevs; i++)
			tc_show_qdisc_opts(c->s->devs[i], c->out, &o);
		pr_close_array(&p, NULL);
		pr_end(&p);
		return 0;
	}
	ret = tc_get_dev(c, dev, 0, &d);
	if (ret)
		return ret;
	tc_show_qdisc_opts(d, c->out, &o);
	return 0;
}

int tc_do_qdisc(struct tc_cmd *c, int argc, char **argv)
{
	const char *w;

	if (argc < 1)
		return qdisc_list(c, 0, NULL);
	w = argv[0];
	if (tc_matches(w, "add"))
		return qdisc_modify(c, NLM_F_EXCL | NLM_F_CREATE, argc - 1, argv + 1);
	if (tc_matches(w, "change"))
		return qdisc_modify(c, 0, argc - 1, argv + 1);
	if (tc_matches(w, "replace"))
		return qdisc_modify(c, NLM_F_CREATE | NLM_F_REPLACE, argc - 1, argv + 1);
	if (tc_matches(w, "link"))
		return qdisc_modify(c, NLM_F_REPLACE, argc - 1, argv + 1);
	if (tc_matches(w, "delete"))
		return qdisc_delete(c, argc - 1, argv + 1);
	if (tc_matches(w, "list") || tc_matches(w, "show") || tc_matches(w, "lst"))
		return qdisc_list(c, argc - 1, argv + 1);
	if (tc_matches(w, "help"))
		return tc_fail(c, -EINVAL, "%s", qdisc_usage);
	return tc_fail(c, -EINVAL, "Command \"%s\" is unknown, try \"tc qdisc help\".", w);
}
