/* cls_fw.c - the fw classifier, as net/sched/cls_fw.c runs it: filters
 * keyed by the packet's mark (skb->mark & the tcf_proto's mask) in a
 * 256-bucket table; without any filter, the "old method" takes the mark
 * itself as the classid. Option words as iproute2 6.1's f_fw.c parses
 * them; actions, police and indev are not modelled. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cls.h"
#include "errmsg.h"

#define FW_BUCKETS 256

struct fw_filter {
	struct fw_filter *next; /* newest first in its bucket */
	uint32_t id;		/* the mark it takes, already masked */
	uint32_t classid;	/* 0: none (not dumped) */
};

struct fw_head {
	uint32_t qdisc; /* the handle of the qdisc it classifies for */
	/* The kernel's fw_head exists once a filter was added: until then
	 * the old method classifies, after that the table, even empty. */
	int has_table;
	uint32_t mask;
	struct fw_filter *ht[FW_BUCKETS];
};

static const char usage[] =
    "Usage: ... fw [ classid CLASSID ] [ indev DEV ] [ action ACTION_SPEC ] "
    "(handle is HANDLE[/FWMASK], FWMASK 0xffffffff by default)";

/* The bucket of a mark: its bytes folded into the low one. */
static unsigned fw_bucket(uint32_t id)
{
	id ^= id >> 16;
	id ^= id >> 8;
	return id % FW_BUCKETS;
}

/* iproute2's get_u32 with base 0: the whole word, no sign, <= 0xffffffff. */
static int get_u32(uint32_t *out, const char *s)
{
	unsigned long long v;
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > 0xffffffffu)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* "M" or "M/MASK"; *has_mask says whether a mask was given. */
static int fw_split_handle(const char *word, uint32_t *handle, uint32_t *mask, int *has_mask,
			   char *err, size_t errlen)
{
	const char *slash = strchr(word, '/');
	char head[64];
	size_t n = slash ? (size_t)(slash - word) : strlen(word);

	*has_mask = 0;
	if (n >= sizeof(head))
		return errmsg(err, errlen, -EINVAL, "Illegal \"handle\"");
	memcpy(head, word, n);
	head[n] = 0;
	if (get_u32(handle, head))
		return errmsg(err, errlen, -EINVAL, "Illegal \"handle\"");
	if (slash) {
		if (get_u32(mask, slash + 1))
			return errmsg(err, errlen, -EINVAL, "Illegal \"handle\" mask");
		*has_mask = 1;
	}
	return 0;
}

static int fw_get_handle(const char *word, uint32_t *handle, char *err, size_t errlen)
{
	uint32_t mask;
	int has_mask;

	return fw_split_handle(word, handle, &mask, &has_mask, err, errlen);
}

/* fw_parse_opt's loop: the classid, last one wins. */
static int fw_parse(const struct tcf_request *req, uint32_t *classid, char *err, size_t errlen)
{
	*classid = 0;
	for (int i = 0; i < req->argc; i++) {
		const char *w = req->argv[i];

		if (tc_matches(w, "classid") || tc_matches(w, "flowid")) {
			if (i + 1 >= req->argc)
				return errmsg(
				    err, errlen, -EINVAL,
				    "%s: Command line is not complete. Try option \"help\"",
				    req->where);
			if (tc_get_classid(classid, req->argv[++i]))
				return errmsg(err, errlen, -EINVAL,
					      "%s: fw: Illegal \"classid\" \"%s\"", req->where,
					      req->argv[i]);
		} else if (tc_matches(w, "police") || tc_matches(w, "action")) {
			return errmsg(err, errlen, -EOPNOTSUPP,
				      "%s: fw: \"%s\" is not modelled by tcsim (no actions: an fw "
				      "filter gives its classid only)",
				      req->where, w);
		} else if (!strcmp(w, "indev")) {
			if (i + 1 >= req->argc)
				return errmsg(err, errlen, -EINVAL, "%s: fw: Illegal indev",
					      req->where);
			return errmsg(
			    err, errlen, -EOPNOTSUPP,
			    "%s: fw: \"indev %s\" is not modelled by tcsim (packets have no "
			    "input device: they are sent by the host)",
			    req->where, req->argv[i + 1]);
		} else if (!strcmp(w, "help")) {
			return errmsg(err, errlen, -EINVAL, "%s: fw: %s", req->where, usage);
		} else {
			return errmsg(err, errlen, -EINVAL, "%s: fw: What is \"%s\"? %s",
				      req->where, w, usage);
		}
	}
	return 0;
}

static struct fw_filter *fw_lookup(const struct fw_head *head, uint32_t id)
{
	struct fw_filter *f;

	if (!head || !head->has_table)
		return NULL;
	for (f = head->ht[fw_bucket(id)]; f && f->id != id; f = f->next)
		;
	return f;
}

/* fw_change with tc_new_tfilter's checks of the handle before it. */
static int fw_change(struct tcf_proto *tp, const struct tcf_request *req, const struct tcf_env *env,
		     char *err, size_t errlen)
{
	struct fw_head *head = tp->priv;
	struct fw_filter *f = fw_lookup(head, req->handle);
	uint32_t classid, mask = 0xffffffffu, h;
	int has_mask = 0, ret;

	ret = fw_parse(req, &classid, err, errlen);
	if (ret)
		return ret;
	if (req->argc && req->handle_word) {
		char msg[128];

		ret = fw_split_handle(req->handle_word, &h, &mask, &has_mask, msg, sizeof(msg));
		if (ret)
			return errmsg(err, errlen, ret, "%s: %s", req->where, msg);
	}
	if (f && req->excl)
		return errmsg(
		    err, errlen, -EEXIST,
		    "%s: RTNETLINK answers: File exists (Filter already exists: handle 0x%x)",
		    req->where, req->handle);
	if (!f && !req->create)
		return errmsg(err, errlen, -ENOENT,
			      "%s: RTNETLINK answers: No such file or directory (Need both "
			      "RTM_NEWTFILTER and NLM_F_CREATE to create a new filter)",
			      req->where);
	if (!head) {
		head = calloc(1, sizeof(*head));
		if (!head)
			return errmsg(err, errlen, -ENOMEM, "%s: out of memory", req->where);
		head->qdisc = env->qdisc;
		tp->priv = head;
	}
	if (!req->argc) {
		/* tc sends no options without words: the old method, which
		 * takes no handle */
		if (req->handle)
			return errmsg(
			    err, errlen, -EINVAL,
			    "%s: RTNETLINK answers: Invalid argument (fw: handle 0x%x without "
			    "a classid: tc sends no options, and only the old method, "
			    "without a handle, takes none)",
			    req->where, req->handle);
		return 0;
	}
	if (!req->handle)
		return errmsg(
		    err, errlen, -EINVAL,
		    "%s: RTNETLINK answers: Invalid argument (fw: a filter needs a handle, "
		    "the mark it takes)",
		    req->where);
	if (!head->has_table) {
		head->mask = has_mask ? mask : 0xffffffffu;
		head->has_table = 1;
	}
	if (has_mask ? mask != head->mask : head->mask != 0xffffffffu)
		return errmsg(
		    err, errlen, -EINVAL,
		    "%s: RTNETLINK answers: Invalid argument (fw: mask 0x%x, but pref %u's "
		    "filters have mask 0x%x: one mask per pref)",
		    req->where, mask, tp->prio >> 16, head->mask);
	if (f) {
		f->classid = classid; /* a replacement keeps no old option */
		return 0;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return errmsg(err, errlen, -ENOMEM, "%s: out of memory", req->where);
	f->id = req->handle;
	f->classid = classid;
	f->next = head->ht[fw_bucket(f->id)];
	head->ht[fw_bucket(f->id)] = f;
	return 0;
}

static int fw_empty(const struct fw_head *head)
{
	for (int b = 0; b < FW_BUCKETS; b++)
		if (head->ht[b])
			return 0;
	return 1;
}

static int fw_delete(struct tcf_proto *tp, uint32_t handle, char *err, size_t errlen)
{
	struct fw_head *head = tp->priv;
	struct fw_filter **pp;

	if (!fw_lookup(head, handle))
		return errmsg(err, errlen, -ENOENT,
			      "RTNETLINK answers: No such file or directory (Specified filter "
			      "handle not found: 0x%x)",
			      handle);
	for (pp = &head->ht[fw_bucket(handle)]; (*pp)->id != handle; pp = &(*pp)->next)
		;
	{
		struct fw_filter *f = *pp;

		*pp = f->next;
		free(f);
	}
	return fw_empty(head);
}

/* The filter a packet's mark selects, or NULL. */
static const struct fw_filter *fw_match(const struct fw_head *head, uint32_t mark)
{
	return fw_lookup(head, mark & head->mask);
}

/* The old method: a mark whose major is 0 or this qdisc's is the classid. */
static int fw_old_method(const struct fw_head *head, uint32_t mark)
{
	return mark && (TC_H_MAJ(mark) == 0 || TC_H_MAJ(mark ^ head->qdisc) == 0);
}

static int fw_classify(const struct tcf_proto *tp, const struct bpf_skb *skb,
		       struct tcf_result *res)
{
	const struct fw_head *head = tp->priv;
	const struct fw_filter *f;

	if (!head)
		return -1;
	if (!head->has_table) {
		if (!fw_old_method(head, skb->mark))
			return -1;
		res->classid = skb->mark;
		res->handle = 0;
		res->ret = 0;
		return 0;
	}
	f = fw_match(head, skb->mark);
	if (!f)
		return -1;
	res->classid = f->classid;
	res->handle = f->id;
	res->ret = 0;
	return 0; /* TC_ACT_OK: no actions */
}

/* As fw_classify, saying why in ft->why: the masked mark and whether a
 * filter has it as its handle, or the old method's test of the mark. */
static int fw_classify_traced(const struct tcf_proto *tp, const struct bpf_skb *skb,
			      struct tcf_result *res, const struct tcf_tracer *tr,
			      struct tcf_trace *ft)
{
	const struct fw_head *head = tp->priv;
	int r = fw_classify(tp, skb, res);
	uint32_t mark = skb->mark;
	char q[16];

	ft->match = r >= 0;
	ft->classid = r >= 0 ? res->classid : 0;
	if (head && head->has_table) {
		if (r >= 0) {
			ft->has_handle = 1;
			ft->handle = res->handle;
			ft->has_flowid = res->classid != 0;
			ft->flowid = res->classid;
		}
		snprintf(ft->why, sizeof(ft->why), "mark 0x%x & 0x%x = 0x%x %s", mark, head->mask,
			 mark & head->mask,
			 r >= 0 ? "is this filter's handle" : "is no filter's handle at this pref");
	} else {
		tc_print_classid(q, sizeof(q), head ? TC_H_MAJ(head->qdisc) : 0);
		if (r >= 0)
			snprintf(ft->why, sizeof(ft->why),
				 "no fw filter at this pref: the old method takes mark 0x%x as the "
				 "classid (its major is 0 or the qdisc's %s)",
				 mark, q);
		else if (!mark)
			snprintf(ft->why, sizeof(ft->why),
				 "no fw filter at this pref, and the old method needs a mark (it is 0)");
		else
			snprintf(ft->why, sizeof(ft->why),
				 "no fw filter at this pref, and mark 0x%x names no class of the "
				 "qdisc %s (old method)",
				 mark, q);
	}
	tr->filter(tr->arg, ft);
	return r;
}

static void fw_destroy(struct tcf_proto *tp)
{
	struct fw_head *head = tp->priv;

	if (!head)
		return;
	for (int b = 0; b < FW_BUCKETS; b++)
		while (head->ht[b]) {
			struct fw_filter *f = head->ht[b];

			head->ht[b] = f->next;
			free(f);
		}
	free(head);
	tp->priv = NULL;
}

/* fw_walk's order: bucket by bucket, each newest first. A filter without
 * a classid has no options in the kernel's dump, and tc then prints
 * nothing after the header. */
static void fw_dump(const struct tcf_proto *tp, struct tcf_dump *d)
{
	const struct fw_head *head = tp->priv;
	struct tcprint *p = d->p;

	if (!head || !head->has_table)
		return;
	for (int b = 0; b < FW_BUCKETS; b++)
		for (const struct fw_filter *f = head->ht[b]; f; f = f->next) {
			char cid[32];

			d->begin(d);
			if (f->classid) {
				/* 6.1 prints these as text inside its JSON (not
				 * JSON); these are later iproute2's keys */
				pr_open_object(p, "fw");
				if (head->mask != 0xffffffffu) {
					pr_0xhex(p, PR_ANY, "mark", "handle 0x%llx", f->id);
					pr_0xhex(p, PR_ANY, "mask", "/0x%llx", head->mask);
				} else {
					pr_0xhex(p, PR_ANY, "mark", "handle 0x%llx", f->id);
					pr_0xhex(p, PR_JSON, "mask", NULL, 0xffffffffu);
				}
				pr_close_object(p);
				tc_print_classid(cid, sizeof(cid), f->classid);
				pr_string(p, PR_ANY, "classid", " classid %s ", cid);
			}
			d->end(d);
		}
}

/* The kernel's walk of a tcf_proto with no fw_head stops the whole dump. */
static int fw_dump_stops(const struct tcf_proto *tp)
{
	const struct fw_head *head = tp->priv;

	return !head || !head->has_table;
}

static size_t fw_count(const struct tcf_proto *tp)
{
	const struct fw_head *head = tp->priv;
	size_t n = 0;

	if (!head)
		return 0;
	for (int b = 0; b < FW_BUCKETS; b++)
		for (const struct fw_filter *f = head->ht[b]; f; f = f->next)
			n++;
	return n;
}

static int fw_handle_at(const struct tcf_proto *tp, size_t i, uint32_t *handle)
{
	const struct fw_head *head = tp->priv;

	if (!head)
		return -1;
	for (int b = 0; b < FW_BUCKETS; b++)
		for (const struct fw_filter *f = head->ht[b]; f; f = f->next)
			if (!i--) {
				*handle = f->id;
				return 0;
			}
	return -1;
}

const struct tcf_proto_ops cls_fw_ops = {
    .kind = "fw",
    .change = fw_change,
    .delete = fw_delete,
    .classify = fw_classify,
    .destroy = fw_destroy,
    .dump = fw_dump,
    .count = fw_count,
    .handle_at = fw_handle_at,
    .classify_traced = fw_classify_traced,
    .get_handle = fw_get_handle,
    .dump_stops = fw_dump_stops,
};

int cls_fw_at(const struct tcf_proto *tp, size_t i, struct cls_fw_info *info)
{
	const struct fw_head *head = tp->priv;

	memset(info, 0, sizeof(*info));
	info->mask = 0xffffffffu;
	if (!head || !head->has_table)
		return i ? -1 : 1; /* 1: the old method, no filter */
	info->has_table = 1;
	info->mask = head->mask;
	for (int b = 0; b < FW_BUCKETS; b++)
		for (const struct fw_filter *f = head->ht[b]; f; f = f->next)
			if (!i--) {
				info->handle = f->id;
				info->classid = f->classid;
				return 0;
			}
	return -1;
}
