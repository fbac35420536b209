/* cls_bpf.c - the bpf classifier with classic bytecode, as
 * net/sched/cls_bpf.c runs it: programs of one tcf_proto kept newest first;
 * a return of 0 is no match, -1 the configured classid, anything else the
 * classid itself. Option words are parsed as iproute2's f_bpf.c does, plus
 * tcsim's `expr "tcpdump expression"` and `asm-file F.ops`. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "bpf_asm.h"
#include "bpf_load.h"
#include "cls.h"

struct cls_bpf_prog {
	struct cls_bpf_prog *next;
	struct bpf_prog *prog;
	uint32_t handle;
	uint32_t classid;
	int has_classid;
	char *origin; /* where the program came from, for reports */
	char *where;  /* "file:line" of the tc command that added it (tcsim lint) */
	uint64_t hits;
};

struct cls_bpf_head {
	struct cls_bpf_prog *plist; /* newest first */
	enum bpf_kernel kernel;
};

static const char usage[] =
	"Usage: ... bpf [run] { bytecode|bc BPF_BYTECODE | bytecode-file|bcf FILE | "
	"expr \"TCPDUMP EXPRESSION\" | asm-file FILE.ops } [ classid|flowid CLASSID ]";

/* The options of one `tc filter ... bpf` request. */
struct bpf_opts {
	char mode;        /* 'b' bytecode, 'f' bytecode-file, 'e' expr, 'a' asm-file */
	const char *arg;
	uint32_t classid;
	int has_classid;
};

static int parse_opts(const struct tcf_request *req, struct bpf_opts *o, char *err,
		      size_t errlen)
{
	memset(o, 0, sizeof(*o));
	for (int i = 0; i < req->argc; i++) {
		const char *w = req->argv[i];
		char mode = 0;

		if (!o->mode && !strcmp(w, "run"))
			continue;
		if (!strcmp(w, "bc"))
			mode = 'b';
		else if (!strcmp(w, "bcf") || (strlen(w) > 9 && tc_matches(w, "bytecode-file")))
			mode = 'f';
		else if (tc_matches(w, "bytecode"))
			mode = 'b';
		else if (!strcmp(w, "expr"))
			mode = 'e';
		else if (!strcmp(w, "asm-file"))
			mode = 'a';
		if (mode) {
			if (o->mode)
				return errmsg(err, errlen, -EINVAL, "%s: bpf: more than one program given (\"%s\")",
					    req->where, w);
			if (i + 1 >= req->argc)
				return errmsg(err, errlen, -EINVAL, "%s: bpf: \"%s\" needs an argument", req->where, w);
			o->mode = mode;
			o->arg = req->argv[++i];
			continue;
		}
		if (tc_matches(w, "classid") || tc_matches(w, "flowid")) {
			if (i + 1 >= req->argc)
				return errmsg(err, errlen, -EINVAL, "%s: bpf: \"%s\" needs a classid", req->where, w);
			if (tc_get_classid(&o->classid, req->argv[++i]))
				return errmsg(err, errlen, -EINVAL, "%s: bpf: Illegal \"classid\" \"%s\"",
					    req->where, req->argv[i]);
			o->has_classid = 1;
			continue;
		}
		if (!strcmp(w, "skip_hw"))
			continue;
		if (!strcmp(w, "skip_sw") || tc_matches(w, "direct-action") || !strcmp(w, "da") ||
		    tc_matches(w, "action") || tc_matches(w, "police"))
			return errmsg(err, errlen, -EOPNOTSUPP,
				    "%s: bpf: \"%s\" is not modelled by tcsim (classic classid mode only)",
				    req->where, w);
		return errmsg(err, errlen, -EINVAL, "%s: bpf: What is \"%s\"? %s", req->where, w, usage);
	}
	if (!o->mode)
		return errmsg(err, errlen, -EINVAL, "%s: bpf: no program given. %s", req->where, usage);
	return 0;
}

/* Relative file names in a tc script start at the script's folder. */
static void resolve(char *buf, size_t n, const char *basedir, const char *path)
{
	if (path[0] == '/' || !basedir || !*basedir)
		snprintf(buf, n, "%s", path);
	else
		snprintf(buf, n, "%s/%s", basedir, path);
}

static int load_program(const struct tcf_request *req, const struct bpf_opts *o,
			const struct tcf_env *env, struct bpf_prog **prog, char **origin,
			char *err, size_t errlen)
{
	struct sock_filter *insns = NULL;
	uint32_t len = 0;
	char path[PATH_MAX], msg[512];
	int ret;

	switch (o->mode) {
	case 'b':
		ret = bpf_parse_bytecode(o->arg, "bytecode", &insns, &len, msg, sizeof(msg));
		snprintf(path, sizeof(path), "bytecode");
		break;
	case 'f':
		resolve(path, sizeof(path), req->basedir, o->arg);
		ret = bpf_read_bytecode_file(path, &insns, &len, msg, sizeof(msg));
		break;
	case 'e':
		ret = bpf_compile_expr(o->arg, &insns, &len, msg, sizeof(msg));
		snprintf(path, sizeof(path), "expr '%s'", o->arg);
		break;
	default:
		resolve(path, sizeof(path), req->basedir, o->arg);
		ret = bpf_asm_file(path, &insns, &len, msg, sizeof(msg));
		break;
	}
	if (ret)
		return errmsg(err, errlen, ret, "%s: bpf: %s", req->where, msg);
	ret = bpf_prog_load(prog, insns, len, env->kernel, msg, sizeof(msg));
	free(insns);
	if (ret)
		return errmsg(err, errlen, ret, "%s: RTNETLINK answers: Invalid argument (%s: %s)",
			    req->where, path, msg);
	*origin = strdup(path);
	if (!*origin) {
		bpf_prog_free(*prog);
		return errmsg(err, errlen, -ENOMEM, "%s: out of memory", req->where);
	}
	return 0;
}

/* Lowest free handle from 1 (idr_alloc_u32); 3.13's allocator always gave
 * 0x7fffffff. */
static uint32_t new_handle(const struct cls_bpf_head *head)
{
	if (head->kernel == BPF_KERNEL_3_13)
		return 0x7fffffff;
	for (uint32_t h = 1;; h++) {
		const struct cls_bpf_prog *p = head->plist;

		while (p && p->handle != h)
			p = p->next;
		if (!p)
			return h;
	}
}

static int cls_bpf_change(struct tcf_proto *tp, const struct tcf_request *req,
			  const struct tcf_env *env, char *err, size_t errlen)
{
	struct cls_bpf_head *head = tp->priv;
	struct cls_bpf_prog *old = NULL, *p;
	struct bpf_opts o;
	int ret = parse_opts(req, &o, err, errlen);

	if (ret)
		return ret;
	if (env->kernel == BPF_KERNEL_3_13 && !o.has_classid)
		return errmsg(err, errlen, -EINVAL,
			    "%s: RTNETLINK answers: Invalid argument (Linux 3.13's cls_bpf needs a classid)",
			    req->where);
	if (!head) {
		head = calloc(1, sizeof(*head));
		if (!head)
			return errmsg(err, errlen, -ENOMEM, "%s: out of memory", req->where);
		head->kernel = env->kernel;
		tp->priv = head;
	}
	if (req->handle) {
		for (old = head->plist; old && old->handle != req->handle; old = old->next)
			;
		if (old && req->excl)
			return errmsg(err, errlen, -EEXIST, "%s: RTNETLINK answers: File exists (Filter already exists: handle 0x%x)", req->where, req->handle);
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return errmsg(err, errlen, -ENOMEM, "%s: out of memory", req->where);
	ret = load_program(req, &o, env, &p->prog, &p->origin, err, errlen);
	if (ret) {
		free(p);
		return ret;
	}
	p->where = req->where ? strdup(req->where) : NULL; /* NULL: no place to name */
	p->classid = o.classid;
	p->has_classid = o.has_classid;
	if (old) {
		/* replace in place, keeping the list position */
		bpf_prog_free(old->prog);
		free(old->origin);
		old->prog = p->prog;
		old->origin = p->origin;
		old->classid = p->classid;
		old->has_classid = p->has_classid;
		free(old->where);
		old->where = p->where;
		free(p);
		return 0;
	}
	p->handle = req->handle ? req->handle : new_handle(head);
	p->next = head->plist;
	head->plist = p;
	return 0;
}

static void prog_free(struct cls_bpf_prog *p)
{
	bpf_prog_free(p->prog);
	free(p->where);
	free(p->origin);
	free(p);
}

static int cls_bpf_delete(struct tcf_proto *tp, uint32_t handle, char *err, size_t errlen)
{
	struct cls_bpf_head *head = tp->priv;
	struct cls_bpf_prog **pp;

	for (pp = head ? &head->plist : NULL; pp && *pp; pp = &(*pp)->next)
		if ((*pp)->handle == handle) {
			struct cls_bpf_prog *p = *pp;

			*pp = p->next;
			prog_free(p);
			return head->plist == NULL;
		}
	return errmsg(err, errlen, -ENOENT, "RTNETLINK answers: No such file or directory (no handle 0x%x)",
		    handle);
}

static int cls_bpf_classify(const struct tcf_proto *tp, const struct bpf_skb *skb,
			    struct tcf_result *res)
{
	const struct cls_bpf_head *head = tp->priv;

	for (struct cls_bpf_prog *p = head ? head->plist : NULL; p; p = p->next) {
		uint32_t v = bpf_prog_run(p->prog, skb);

		if (v == 0)
			continue;
		res->classid = v == 0xffffffffu ? p->classid : v;
		res->handle = p->handle;
		res->ret = v;
		p->hits++;
		return 0; /* TC_ACT_OK: no actions */
	}
	return -1;
}

/* cls_bpf_classify for a traced packet: each program reported as it runs. */
static int cls_bpf_classify_traced(const struct tcf_proto *tp, const struct bpf_skb *skb,
				   struct tcf_result *res, const struct tcf_tracer *tr,
				   struct tcf_trace *ft)
{
	const struct cls_bpf_head *head = tp->priv;

	for (struct cls_bpf_prog *p = head ? head->plist : NULL; p; p = p->next) {
		uint32_t v = tr->insn ? bpf_prog_run_traced(p->prog, skb, tr->insn, tr->insn_arg)
				      : bpf_prog_run(p->prog, skb);

		ft->has_handle = 1;
		ft->handle = p->handle;
		ft->ret = v;
		ft->has_flowid = p->has_classid;
		ft->flowid = p->classid;
		ft->origin = p->origin;
		ft->match = v != 0;
		ft->classid = v == 0xffffffffu ? p->classid : v;
		tr->filter(tr->arg, ft);
		if (v == 0)
			continue;
		res->classid = ft->classid;
		res->handle = p->handle;
		res->ret = v;
		p->hits++;
		return 0;
	}
	return -1;
}

static void cls_bpf_destroy(struct tcf_proto *tp)
{
	struct cls_bpf_head *head = tp->priv;

	if (!head)
		return;
	while (head->plist) {
		struct cls_bpf_prog *p = head->plist;

		head->plist = p->next;
		prog_free(p);
	}
	free(head);
	tp->priv = NULL;
}

static void cls_bpf_dump(const struct tcf_proto *tp, struct tcf_dump *d)
{
	const struct cls_bpf_head *head = tp->priv;
	struct tcprint *pr = d->p;

	for (const struct cls_bpf_prog *p = head ? head->plist : NULL; p; p = p->next) {
		const struct sock_filter *ops = p->prog->insns;
		uint32_t len = p->prog->len;
		int current = head->kernel == BPF_KERNEL_CURRENT;

		d->begin(d);
		if (p->handle)
			pr_0xhex(pr, PR_ANY, "handle", "handle %#llx ", p->handle);
		if (p->classid || !current) {
			char c[16];

			tc_print_classid(c, sizeof(c), p->classid);
			pr_string(pr, PR_ANY, "flowid", "flowid %s ", c);
		}
		if (current)
			pr_bool(pr, PR_ANY, "not_in_hw", "not_in_hw ", 1);
		/* bpf_print_ops: 'len,code jt jf k,...' */
		pr_open_object(pr, "bytecode");
		pr_uint(pr, PR_ANY, "length", "bytecode '%u,", len);
		pr_open_array(pr, "insns", NULL);
		for (uint32_t i = 0; i < len; i++) {
			pr_open_object(pr, NULL);
			pr_uint(pr, PR_ANY, "code", "%u ", ops[i].code);
			pr_uint(pr, PR_ANY, "jt", "%u ", ops[i].jt);
			pr_uint(pr, PR_ANY, "jf", "%u ", ops[i].jf);
			pr_uint(pr, PR_ANY, "k", i == len - 1 ? "%u'" : "%u,", ops[i].k);
			pr_close_object(pr);
		}
		pr_close_array(pr, NULL);
		pr_close_object(pr);
		d->end(d);
	}
}

static size_t cls_bpf_count(const struct tcf_proto *tp)
{
	const struct cls_bpf_head *head = tp->priv;
	size_t n = 0;

	for (const struct cls_bpf_prog *p = head ? head->plist : NULL; p; p = p->next)
		n++;
	return n;
}

static int cls_bpf_handle_at(const struct tcf_proto *tp, size_t i, uint32_t *handle)
{
	const struct cls_bpf_head *head = tp->priv;

	for (const struct cls_bpf_prog *p = head ? head->plist : NULL; p; p = p->next)
		if (!i--) {
			*handle = p->handle;
			return 0;
		}
	return -1;
}

const struct tcf_proto_ops cls_bpf_ops = {
	.kind = "bpf",
	.change = cls_bpf_change,
	.delete = cls_bpf_delete,
	.classify = cls_bpf_classify,
	.destroy = cls_bpf_destroy,
	.dump = cls_bpf_dump,
	.count = cls_bpf_count,
	.handle_at = cls_bpf_handle_at,
	.classify_traced = cls_bpf_classify_traced,
};

/* The i-th program of a bpf tcf_proto (0 = newest, the first to run): its
 * handle, its flowid (when one was given) and its instructions as loaded.
 * 0, or -1 past the end or when tp is not a bpf filter. */
int cls_bpf_prog_at(const struct tcf_proto *tp, size_t i, struct cls_bpf_info *info)
{
	const struct cls_bpf_head *head = tp->ops == &cls_bpf_ops ? tp->priv : NULL;

	for (const struct cls_bpf_prog *p = head ? head->plist : NULL; p; p = p->next)
		if (!i--) {
			info->handle = p->handle;
			info->classid = p->classid;
			info->has_classid = p->has_classid;
			info->insns = p->prog->insns;
			info->len = p->prog->len;
			info->where = p->where;
			return 0;
		}
	return -1;
}
