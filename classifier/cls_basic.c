/* cls_basic.c - the basic classifier, as net/sched/cls_basic.c runs it: a
 * list of filters (newest first), each an ematch tree (net/sched/ematch.c)
 * and a classid; the first filter whose tree matches gives its classid.
 * The ematches modelled are cmp (em_cmp.c), u32 (em_u32.c) and meta
 * (em_meta.c) with the priority and nf_mark/fwmark ids. Option words and
 * the ematch grammar as iproute2 6.1's f_basic.c, m_ematch.c, emp_ematch.y
 * and em_*.c parse them; actions and police are not modelled. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cls.h"
#include "errmsg.h"

/* TCF_EM_* of include/uapi/linux/pkt_cls.h and tc_ematch/ */
#define EM_CONTAINER 0
#define EM_CMP 1
#define EM_U32 3
#define EM_META 4
#define REL_END 0
#define REL_AND 1
#define REL_OR 2
#define OPND_EQ 0
#define OPND_GT 1
#define OPND_LT 2
#define LAYER_MAX 2
#define EM_STACK 32 /* CONFIG_NET_EMATCH_STACK */
#define META_VALUE 0
#define META_PRIORITY 9  /* TCF_META_ID_PRIORITY */
#define META_NFMARK 13   /* TCF_META_ID_NFMARK */
#define BASIC_MAX_EM 256

struct meta_obj {
	int id;	       /* META_VALUE or META_PRIORITY/META_NFMARK */
	uint8_t shift;
	uint32_t val;  /* the value, or the id's mask (0: none) */
};

struct em {
	uint8_t kind, invert, rel;
	uint32_t ref; /* container: index of the first match of its sequence */
	union {
		struct {
			uint32_t val, mask;
			uint16_t off;
			uint8_t align, layer, opnd, trans; /* align: 1, 2, 4 bytes */
		} cmp;
		struct {
			uint32_t val, mask; /* host order: the word as read big-endian */
			int32_t off, offmask;
		} u32;
		struct {
			struct meta_obj l, r;
			uint8_t op;
		} meta;
	};
};

struct basic_filter {
	struct basic_filter *next;
	uint32_t handle, classid;
	int has_classid;
	unsigned n;
	struct em *m;
};

struct basic_head {
	struct basic_filter *list; /* newest first (list_add_rcu) */
};

static const char usage[] = "Usage: ... basic [ match EMATCH_TREE ] [ action ACTION_SPEC ] "
			    "[ classid CLASSID ]";

/* ---- the ematch grammar (emp_ematch.l / emp_ematch.y) ---- */

enum tok { T_END, T_ATTR, T_AND, T_OR, T_NOT, T_LP, T_RP, T_ERR };

struct tok_s {
	enum tok t;
	char text[128];
	int word;  /* index of the word it came from */
};

/* A parsed tree node before flattening. */
struct pnode {
	int invert, rel;
	struct pnode *next, *child;
	int nargs;
	char args[24][128];
	int word; /* for messages */
};

struct lexer {
	int argc;
	char **argv;
	int word;
	const char *p; /* inside argv[word], NULL: before it */
	struct tok_s la;
	int has_la;
	char err[256];
};

static int lex_word_len(const char *p)
{
	int n = 0;

	while (p[n] && !strchr(" \t\r\n()\"", p[n]))
		n++;
	return n;
}

static void lex_next(struct lexer *lx, struct tok_s *t)
{
	memset(t, 0, sizeof(*t));
	for (;;) {
		if (!lx->p) {
			if (lx->word >= lx->argc) {
				t->t = T_END;
				t->word = lx->argc;
				return;
			}
			lx->p = lx->argv[lx->word];
		}
		while (*lx->p && strchr(" \t\r\n", *lx->p))
			lx->p++;
		if (*lx->p)
			break;
		lx->p = NULL;
		lx->word++;
	}
	t->word = lx->word;
	if (*lx->p == '(' || *lx->p == ')') {
		t->t = *lx->p == '(' ? T_LP : T_RP;
		t->text[0] = *lx->p++;
		return;
	}
	if (*lx->p == '"') {
		const char *e = strchr(lx->p + 1, '"');
		size_t n;

		if (!e) {
			t->t = T_ERR;
			snprintf(t->text, sizeof(t->text), "%s", lx->p);
			lx->p += strlen(lx->p);
			return;
		}
		n = (size_t)(e - lx->p - 1);
		if (n >= sizeof(t->text))
			n = sizeof(t->text) - 1;
		memcpy(t->text, lx->p + 1, n);
		lx->p = e + 1;
		t->t = T_ATTR;
		return;
	}
	{
		int n = lex_word_len(lx->p);
		int c = n < (int)sizeof(t->text) ? n : (int)sizeof(t->text) - 1;

		memcpy(t->text, lx->p, (size_t)c);
		lx->p += n;
		if (!strcasecmp(t->text, "and"))
			t->t = T_AND;
		else if (!strcasecmp(t->text, "or"))
			t->t = T_OR;
		else if (!strcasecmp(t->text, "not"))
			t->t = T_NOT;
		else
			t->t = T_ATTR;
	}
}

static const struct tok_s *peek(struct lexer *lx)
{
	if (!lx->has_la) {
		lex_next(lx, &lx->la);
		lx->has_la = 1;
	}
	return &lx->la;
}

static void take(struct lexer *lx)
{
	lx->has_la = 0;
}

static const char *tok_name(const struct tok_s *t)
{
	switch (t->t) {
	case T_END: return "end of file";
	case T_ATTR: return "ATTRIBUTE";
	case T_AND: return "AND";
	case T_OR: return "OR";
	case T_NOT: return "NOT";
	case T_LP: return "'('";
	case T_RP: return "')'";
	default: return "ERROR";
	}
}

static void pfree(struct pnode *n)
{
	while (n) {
		struct pnode *next = n->next;

		pfree(n->child);
		free(n);
		n = next;
	}
}

static int syntax(struct lexer *lx, const char *expecting)
{
	const struct tok_s *t = peek(lx);

	snprintf(lx->err, sizeof(lx->err), "Parse error: syntax error, unexpected %s%s%s%s%s",
		 tok_name(t), t->t == T_ATTR ? " \"" : "", t->t == T_ATTR ? t->text : "",
		 t->t == T_ATTR ? "\"" : "", expecting);
	return -1;
}

static struct pnode *p_expr(struct lexer *lx, int depth);

/* match := [not] ATTRIBUTE '(' args ')' | [not] '(' expr ')' */
static struct pnode *p_match(struct lexer *lx, int depth)
{
	struct pnode *n = calloc(1, sizeof(*n));
	const struct tok_s *t;

	if (!n) {
		snprintf(lx->err, sizeof(lx->err), "out of memory");
		return NULL;
	}
	if (peek(lx)->t == T_NOT) {
		n->invert = 1;
		take(lx);
	}
	t = peek(lx);
	n->word = t->word;
	if (t->t == T_LP) {
		take(lx);
		if (depth >= 64) {
			snprintf(lx->err, sizeof(lx->err), "Parse error: nested too deep");
			goto fail;
		}
		n->child = p_expr(lx, depth + 1);
		if (!n->child)
			goto fail;
		if (peek(lx)->t != T_RP) {
			syntax(lx, ", expecting AND or OR or ')'");
			goto fail;
		}
		take(lx);
		return n;
	}
	if (t->t != T_ATTR) {
		syntax(lx, ", expecting ATTRIBUTE or '('");
		goto fail;
	}
	snprintf(n->args[0], sizeof(n->args[0]), "%s", t->text);
	n->nargs = 1;
	take(lx);
	if (peek(lx)->t != T_LP) {
		syntax(lx, ", expecting '('");
		goto fail;
	}
	take(lx);
	if (peek(lx)->t != T_ATTR) {
		syntax(lx, ", expecting ATTRIBUTE");
		goto fail;
	}
	while (peek(lx)->t == T_ATTR) {
		if (n->nargs >= (int)(sizeof(n->args) / sizeof(n->args[0]))) {
			snprintf(lx->err, sizeof(lx->err), "Parse error: too many arguments");
			goto fail;
		}
		snprintf(n->args[n->nargs++], sizeof(n->args[0]), "%s", peek(lx)->text);
		take(lx);
	}
	if (peek(lx)->t != T_RP) {
		syntax(lx, ", expecting ATTRIBUTE or ')'");
		goto fail;
	}
	take(lx);
	return n;
fail:
	pfree(n);
	return NULL;
}

/* expr := match [ (and|or) expr ] */
static struct pnode *p_expr(struct lexer *lx, int depth)
{
	struct pnode *head = NULL, **tail = &head;

	for (;;) {
		struct pnode *m = p_match(lx, depth);
		const struct tok_s *t;

		if (!m) {
			pfree(head);
			return NULL;
		}
		*tail = m;
		tail = &m->next;
		t = peek(lx);
		if (t->t != T_AND && t->t != T_OR)
			return head;
		m->rel = t->t == T_AND ? REL_AND : REL_OR;
		take(lx);
	}
}

/* ---- the ematches' own arguments (em_cmp.c, em_u32.c, em_meta.c) ---- */

/* bstrtoul: strtoul base 0, anything after the number ignored; -1 on
 * no number (ULONG_MAX). */
static int em_ul(const char *s, unsigned long *v)
{
	char *end;

	*v = strtoul(s, &end, 0);
	return end == s || *v == ULONG_MAX ? -1 : 0;
}

struct em_ctx {
	const struct pnode *n;
	char *err;
	size_t errlen;
	const char *where;
};

/* em_parse_error, on one line: the message, the ematch with the word at
 * fault marked >>so<<, then f_basic's verdict. */
static int em_err(const struct em_ctx *c, int at, const char *msg)
{
	char call[512];
	size_t k = 0;

	k += (size_t)snprintf(call, sizeof(call), "%s(", c->n->args[0]);
	for (int i = 1; i < c->n->nargs && k < sizeof(call); i++)
		k += (size_t)snprintf(call + k, sizeof(call) - k, "%s%s%s%s", i == at ? ">>" : "",
				      c->n->args[i], i == at ? "<<" : "",
				      i + 1 < c->n->nargs ? " " : "");
	if (k < sizeof(call))
		snprintf(call + k, sizeof(call) - k, ")");
	return errmsg(c->err, c->errlen, -EINVAL, "%s: basic: %s ... %s ... Illegal \"ematch\"",
		      c->where, msg, call);
}

static int parse_cmp(const struct em_ctx *c, struct em *e)
{
	const struct pnode *n = c->n;
	unsigned long v;
	int has_off = 0, has_val = 0;

	e->kind = EM_CMP;
	e->cmp.layer = 1;
	if (n->nargs < 2)
		return em_err(c, 0, "cmp: missing arguments");
	if (!strcmp(n->args[1], "u8"))
		e->cmp.align = 1;
	else if (!strcmp(n->args[1], "u16"))
		e->cmp.align = 2;
	else if (!strcmp(n->args[1], "u32"))
		e->cmp.align = 4;
	else
		return em_err(c, 1, "cmp: invalid alignment");
	for (int i = 2; i < n->nargs; i++) {
		const char *a = n->args[i];

		if (!strcmp(a, "at")) {
			if (i + 1 >= n->nargs)
				return em_err(c, i, "cmp: missing argument");
			if (em_ul(n->args[++i], &v))
				return em_err(c, i, "cmp: invalid offset, must be numeric");
			e->cmp.off = (uint16_t)v;
			has_off = 1;
		} else if (!strcmp(a, "layer")) {
			if (i + 1 >= n->nargs)
				return em_err(c, i, "cmp: missing argument");
			a = n->args[++i];
			/* m_ematch.h's parse_layer: by the first letter */
			if (a[0] == 'l')
				v = 0;
			else if (a[0] == 'n')
				v = 1;
			else if (a[0] == 't')
				v = 2;
			else if (em_ul(a, &v))
				return em_err(c, i, "cmp: invalid layer");
			if (v > LAYER_MAX)
				return em_err(c, i, "cmp: illegal layer, must be in 0..2");
			e->cmp.layer = (uint8_t)v;
		} else if (!strcmp(a, "mask")) {
			if (i + 1 >= n->nargs)
				return em_err(c, i, "cmp: missing argument");
			if (em_ul(n->args[++i], &v))
				return em_err(c, i, "cmp: invalid mask");
			e->cmp.mask = (uint32_t)v;
		} else if (!strcmp(a, "trans")) {
			e->cmp.trans = 1;
		} else if (!strcmp(a, "eq") || !strcmp(a, "gt") || !strcmp(a, "lt")) {
			e->cmp.opnd = a[0] == 'e' ? OPND_EQ : a[0] == 'g' ? OPND_GT : OPND_LT;
			if (i + 1 >= n->nargs)
				return em_err(c, i, "cmp: missing argument");
			if (em_ul(n->args[++i], &v))
				return em_err(c, i, "cmp: invalid value");
			e->cmp.val = (uint32_t)v;
			has_val = 1;
		} else {
			/* sic: em_cmp.c's message names nbyte */
			return em_err(c, i, "nbyte: unknown parameter");
		}
	}
	if (!has_off || !has_val)
		return em_err(c, -1, "cmp: offset and value required");
	return 0;
}

static int parse_u32(const struct em_ctx *c, struct em *e)
{
	const struct pnode *n = c->n;
	unsigned long key, mask, off;
	int align, i = 4;

	e->kind = EM_U32;
	if (n->nargs < 2)
		return em_err(c, 0, "u32: missing arguments");
	if (!strcmp(n->args[1], "u8"))
		align = 1;
	else if (!strcmp(n->args[1], "u16"))
		align = 2;
	else if (!strcmp(n->args[1], "u32"))
		align = 4;
	else
		return em_err(c, 1, "u32: invalid alignment");
	if (n->nargs < 3)
		return em_err(c, -1, "u32: missing key");
	if (em_ul(n->args[2], &key))
		return em_err(c, 2, "u32: invalid key, must be numeric");
	if (n->nargs < 4)
		return em_err(c, -1, "u32: missing mask");
	if (em_ul(n->args[3], &mask))
		return em_err(c, 3, "u32: invalid mask, must be numeric");
	if (n->nargs < 5 || strcmp(n->args[4], "at"))
		return em_err(c, n->nargs < 5 ? -1 : 4, "u32: missing \"at\"");
	if (n->nargs < 6)
		return em_err(c, -1, "u32: missing offset");
	i = 5;
	if (strlen(n->args[i]) > 8 && !strncmp(n->args[i], "nexthdr+", 8)) {
		e->u32.offmask = -1;
		off = strtoul(n->args[i] + 8, NULL, 0);
	} else if (!strcmp(n->args[i], "nexthdr+")) {
		if (++i >= n->nargs)
			return em_err(c, -1, "u32: missing offset");
		if (em_ul(n->args[i], &off))
			off = ULONG_MAX;
	} else if (em_ul(n->args[i], &off)) {
		off = ULONG_MAX;
	}
	if (off == ULONG_MAX)
		return em_err(c, i, "u32: invalid offset");
	if (i + 1 < n->nargs)
		return em_err(c, i + 1, "u32: unexpected trailer");
	if (align == 1) {
		if (key > 0xff)
			return em_err(c, i, "Illegal key (>0xFF)");
		if (mask > 0xff)
			return em_err(c, i, "Illegal mask (>0xFF)");
		key <<= 24 - ((off & 3) * 8);
		mask <<= 24 - ((off & 3) * 8);
		off &= ~3ul;
	} else if (align == 2) {
		if (key > 0xffff)
			return em_err(c, i, "Illegal key (>0xFFFF)");
		if (mask > 0xffff)
			return em_err(c, i, "Illegal mask (>0xFFFF)");
		if ((off & 3) == 0) {
			key <<= 16;
			mask <<= 16;
		}
		off &= ~3ul;
	}
	if (off % 4)
		return em_err(c, i, "u32: invalid offset alignment, must be aligned to 4.");
	e->u32.mask = (uint32_t)mask;
	e->u32.val = (uint32_t)key & (uint32_t)mask;
	e->u32.off = (int32_t)off;
	return 0;
}

/* One side of meta(): a number, or an id with shift/mask; the index of
 * the word after it, or -1 (message in err). */
static int parse_meta_obj(const struct em_ctx *c, int i, struct meta_obj *o)
{
	const struct pnode *n = c->n;
	const char *a = n->args[i];
	unsigned long v;
	static const char *const other[] = {
	    "random", "loadavg_1", "loadavg_5", "loadavg_15", "dev", "indev", "realdev",
	    "protocol", "security", "pkt_type", "pkt_len", "data_len", "mac_len", "tc_index",
	    "tc_verdict", "tc_classid", "rt_classid", "rt_iif", "sk_family", "sk_state",
	    "sk_reuse", "sk_bind_if", "sk_refcnt", "sk_shutdown", "sk_proto", "sk_type",
	    "sk_rcvbuf", "sk_rmem", "sk_wmem", "sk_omem", "sk_wmem_queue", "sk_snd_queue",
	    "sk_rcv_queue", "sk_err_queue", "sk_fwd_alloc", "sk_sndbuf"};

	memset(o, 0, sizeof(*o));
	if (!em_ul(a, &v)) {
		o->id = META_VALUE;
		o->val = (uint32_t)v;
		return i + 1;
	}
	if (!strcmp(a, "priority")) {
		o->id = META_PRIORITY;
	} else if (!strcmp(a, "nf_mark") || !strcmp(a, "fwmark")) {
		o->id = META_NFMARK;
	} else {
		for (size_t k = 0; k < sizeof(other) / sizeof(other[0]); k++)
			if (!strcmp(a, other[k])) {
				char msg[200];

				snprintf(msg, sizeof(msg),
					 "meta: \"%s\" is not modelled by tcsim (modelled: priority, "
					 "nf_mark, fwmark)",
					 a);
				em_err(c, i, msg);
				return -EOPNOTSUPP;
			}
		em_err(c, i, "meta: unknown meta id");
		return -1;
	}
	for (i++; i < n->nargs;) {
		if (!strcmp(n->args[i], "shift") || !strcmp(n->args[i], "mask")) {
			int is_shift = n->args[i][0] == 's';

			if (i + 1 >= n->nargs) {
				em_err(c, i, "meta: missing argument");
				return -1;
			}
			if (em_ul(n->args[++i], &v)) {
				em_err(c, i, is_shift ? "meta: invalid shift, must be numeric"
						      : "meta: invalid mask, must be numeric");
				return -1;
			}
			if (is_shift)
				o->shift = (uint8_t)v;
			else
				o->val = (uint32_t)v;
			i++;
		} else {
			break;
		}
	}
	return i;
}

static int parse_meta(const struct em_ctx *c, struct em *e)
{
	const struct pnode *n = c->n;
	int i;

	e->kind = EM_META;
	if (n->nargs < 2)
		return em_err(c, 0, "meta: missing arguments");
	if (!strcmp(n->args[1], "list"))
		return errmsg(c->err, c->errlen, -EINVAL,
			      "%s: basic: meta(list): tcsim models the ids priority, nf_mark and "
			      "fwmark; Illegal \"ematch\"",
			      c->where);
	i = parse_meta_obj(c, 1, &e->meta.l);
	if (i < 0)
		return i == -EOPNOTSUPP ? i : -EINVAL;
	if (i >= n->nargs)
		return em_err(c, 1, "meta: missing operand");
	if (!strcmp(n->args[i], "eq"))
		e->meta.op = OPND_EQ;
	else if (!strcmp(n->args[i], "gt"))
		e->meta.op = OPND_GT;
	else if (!strcmp(n->args[i], "lt"))
		e->meta.op = OPND_LT;
	else
		return em_err(c, i, "meta: invalid operand");
	if (i + 1 >= n->nargs)
		return em_err(c, 1, "meta: missing rvalue");
	i = parse_meta_obj(c, i + 1, &e->meta.r);
	if (i < 0)
		return i == -EOPNOTSUPP ? i : -EINVAL;
	if (i < n->nargs)
		return em_err(c, i, "meta: unexpected trailer");
	return 0;
}

static int parse_leaf(const struct pnode *n, struct em *e, const char *where, char *err,
		      size_t errlen)
{
	struct em_ctx c = {n, err, errlen, where};
	const char *k = n->args[0];

	if (!strcmp(k, "cmp"))
		return parse_cmp(&c, e);
	if (!strcmp(k, "u32"))
		return parse_u32(&c, e);
	if (!strcmp(k, "meta"))
		return parse_meta(&c, e);
	if (!strcmp(k, "nbyte") || !strcmp(k, "canid") || !strcmp(k, "ipset") ||
	    !strcmp(k, "ipt"))
		return errmsg(err, errlen, -EOPNOTSUPP,
			      "%s: basic: ematch \"%s\" is not modelled by tcsim (modelled: cmp, "
			      "u32, meta)",
			      where, k);
	return errmsg(err, errlen, -EINVAL, "%s: basic: Unknown ematch \"%s\"; Illegal \"ematch\"",
		      where, k);
}

/* flatten_tree and parse_tree of m_ematch.c: a sequence, then the
 * sequences of its containers appended at the end, depth first. */
static int flatten(const struct pnode *seq, struct em *out, unsigned *n, const char *where,
		   char *err, size_t errlen)
{
	unsigned start = *n, i;
	const struct pnode *p;
	int ret;

	for (p = seq; p; p = p->next) {
		if (*n >= BASIC_MAX_EM)
			return errmsg(err, errlen, -EINVAL, "%s: basic: too many ematches",
				      where);
		memset(&out[*n], 0, sizeof(out[0]));
		out[*n].invert = (uint8_t)p->invert;
		out[*n].rel = (uint8_t)p->rel;
		if (!p->child) {
			ret = parse_leaf(p, &out[*n], where, err, errlen);
			if (ret)
				return ret;
		}
		(*n)++;
	}
	for (p = seq, i = start; p; p = p->next, i++)
		if (p->child) {
			out[i].kind = EM_CONTAINER;
			out[i].ref = *n;
			ret = flatten(p->child, out, n, where, err, errlen);
			if (ret)
				return ret;
		}
	return 0;
}

/* ---- the filter ---- */

struct basic_opts {
	uint32_t classid;
	int has_classid;
	unsigned n;
	struct em *m;
};

static int basic_parse(const struct tcf_request *req, struct basic_opts *o, char *err,
		       size_t errlen)
{
	memset(o, 0, sizeof(*o));
	for (int i = 0; i < req->argc;) {
		const char *w = req->argv[i];

		if (tc_matches(w, "match")) {
			struct lexer lx = {.argc = req->argc, .argv = req->argv, .word = i + 1};
			struct pnode *root = NULL;
			const struct tok_s *t;
			int ret;

			if (i + 1 >= req->argc)
				return errmsg(
				    err, errlen, -EINVAL,
				    "%s: Command line is not complete. Try option \"help\"",
				    req->where);
			if (peek(&lx)->t != T_END) {
				root = p_expr(&lx, 0);
				if (!root)
					return errmsg(err, errlen, -EINVAL,
						      "%s: basic: %s; Illegal \"ematch\"", req->where,
						      lx.err);
			}
			t = peek(&lx);
			/* the parser's look-ahead read one word past the tree;
			 * tc puts that word back (also when it read none, at the
			 * end of the line, when the tree's last word is put back) */
			i = t->t == T_END ? req->argc - 1 : t->word;
			if (root) {
				free(o->m);
				o->m = calloc(BASIC_MAX_EM, sizeof(*o->m));
				o->n = 0;
				ret = o->m ? flatten(root, o->m, &o->n, req->where, err, errlen)
					   : errmsg(err, errlen, -ENOMEM, "%s: out of memory",
						    req->where);
				pfree(root);
				if (ret)
					return ret;
			}
			if (t->t == T_END)
				return errmsg(
				    err, errlen, -EINVAL,
				    "%s: basic: What is \"%s\"? (tc 6.1 re-reads the last word of a "
				    "match that ends the line: give classid after the match) %s",
				    req->where, req->argv[i], usage);
			continue;
		} else if (tc_matches(w, "classid") || !strcmp(w, "flowid")) {
			if (i + 1 >= req->argc)
				return errmsg(
				    err, errlen, -EINVAL,
				    "%s: Command line is not complete. Try option \"help\"",
				    req->where);
			if (tc_get_classid(&o->classid, req->argv[i + 1]))
				return errmsg(err, errlen, -EINVAL, "%s: basic: Illegal \"classid\"",
					      req->where);
			o->has_classid = 1;
			i += 2;
		} else if (tc_matches(w, "action") || tc_matches(w, "police")) {
			return errmsg(err, errlen, -EOPNOTSUPP,
				      "%s: basic: \"%s\" is not modelled by tcsim (no actions: a "
				      "basic filter gives its classid only)",
				      req->where, w);
		} else if (!strcmp(w, "help")) {
			return errmsg(err, errlen, -EINVAL, "%s: basic: %s", req->where, usage);
		} else {
			return errmsg(err, errlen, -EINVAL, "%s: basic: What is \"%s\"? %s",
				      req->where, w, usage);
		}
	}
	return 0;
}

static int basic_get_handle(const char *word, uint32_t *handle, char *err, size_t errlen)
{
	long h = strtol(word, NULL, 0);

	if (h == LONG_MIN || h == LONG_MAX)
		return errmsg(err, errlen, -EINVAL, "Illegal handle \"%s\", must be numeric.",
			      word);
	*handle = (uint32_t)h;
	return 0;
}

static struct basic_filter *basic_find(const struct basic_head *head, uint32_t handle)
{
	struct basic_filter *f;

	for (f = head ? head->list : NULL; f && f->handle != handle; f = f->next)
		;
	return f;
}

static int basic_change(struct tcf_proto *tp, const struct tcf_request *req,
			const struct tcf_env *env, char *err, size_t errlen)
{
	struct basic_head *head = tp->priv;
	struct basic_filter *f = req->handle ? basic_find(head, req->handle) : NULL;
	struct basic_opts o;
	int ret;

	ret = basic_parse(req, &o, err, errlen);
	if (ret) {
		free(o.m);
		return ret;
	}
	if (f && req->excl) {
		free(o.m);
		return errmsg(
		    err, errlen, -EEXIST,
		    "%s: RTNETLINK answers: File exists (Filter already exists: handle 0x%x)",
		    req->where, req->handle);
	}
	if (!f && !req->create) {
		free(o.m);
		return errmsg(err, errlen, -ENOENT,
			      "%s: RTNETLINK answers: No such file or directory (Need both "
			      "RTM_NEWTFILTER and NLM_F_CREATE to create a new filter)",
			      req->where);
	}
	if (!req->argc) {
		free(o.m);
		return errmsg(err, errlen, -EINVAL,
			      "%s: RTNETLINK answers: Invalid argument (basic needs options: tc "
			      "sends none without words)",
			      req->where);
	}
	if (!head) {
		head = calloc(1, sizeof(*head));
		if (!head) {
			free(o.m);
			return errmsg(err, errlen, -ENOMEM, "%s: out of memory", req->where);
		}
		tp->priv = head;
	}
	if (f) { /* replaced in place, its options all new */
		free(f->m);
		f->m = o.m;
		f->n = o.n;
		f->classid = o.classid;
		f->has_classid = o.has_classid;
		return 0;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		free(o.m);
		return errmsg(err, errlen, -ENOMEM, "%s: out of memory", req->where);
	}
	f->handle = req->handle;
	if (!f->handle) /* idr_alloc_u32 from 1: the lowest free */
		for (f->handle = 1; basic_find(head, f->handle); f->handle++)
			;
	f->m = o.m;
	f->n = o.n;
	f->classid = o.classid;
	f->has_classid = o.has_classid;
	f->next = head->list;
	head->list = f;
	return 0;
}

static int basic_delete(struct tcf_proto *tp, uint32_t handle, char *err, size_t errlen)
{
	struct basic_head *head = tp->priv;
	struct basic_filter **pp;

	for (pp = head ? &head->list : NULL; pp && *pp && (*pp)->handle != handle;
	     pp = &(*pp)->next)
		;
	if (!pp || !*pp)
		return errmsg(err, errlen, -ENOENT,
			      "RTNETLINK answers: No such file or directory (Specified filter "
			      "handle not found: 0x%x)",
			      handle);
	{
		struct basic_filter *f = *pp;

		*pp = f->next;
		free(f->m);
		free(f);
	}
	return head->list == NULL;
}

/* ---- matching ---- */

/* Why a filter matched or not, as leaves are evaluated. */
struct why {
	char *buf;
	size_t n, len;
};

static void why_add(struct why *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void why_add(struct why *w, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (!w || w->len + 1 >= w->n)
		return;
	va_start(ap, fmt);
	k = vsnprintf(w->buf + w->len, w->n - w->len, fmt, ap);
	va_end(ap);
	if (k > 0)
		w->len = w->len + (size_t)k < w->n ? w->len + (size_t)k : w->n - 1;
}

static const char *const opnd_name[] = {"eq", "gt", "lt"};

static int cmp_op(uint32_t a, int op, uint32_t b)
{
	return op == OPND_EQ ? a == b : op == OPND_GT ? a > b : a < b;
}

/* tcf_get_base_ptr: link = the frame's start, network = net_off,
 * transport = after the IPv4/IPv6 header (-1: none set). */
static long layer_base(const struct bpf_skb *skb, int layer)
{
	const uint8_t *d = skb->data;
	uint32_t nh = skb->net_off;

	if (layer == 0)
		return 0;
	if (layer == 1)
		return nh;
	if (skb->protocol == 0x0800 && nh < skb->caplen && (d[nh] >> 4) == 4)
		return nh + (d[nh] & 15u) * 4;
	if (skb->protocol == 0x86dd)
		return nh + 40;
	return -1;
}

/* tcf_valid_offset over the captured bytes. */
static int read_be(const struct bpf_skb *skb, long off, int size, uint32_t *v)
{
	if (off < 0 || (uint64_t)off + (uint64_t)size > skb->caplen ||
	    (uint64_t)off + (uint64_t)size > skb->len)
		return -1;
	*v = 0;
	for (int i = 0; i < size; i++)
		*v = *v << 8 | skb->data[off + i];
	return 0;
}

static uint32_t meta_get(const struct bpf_skb *skb, const struct meta_obj *o)
{
	uint32_t v;

	if (o->id == META_VALUE)
		return o->val;
	v = o->id == META_PRIORITY ? skb->priority : skb->mark;
	if (o->shift)
		v = o->shift >= 32 ? 0 : v >> o->shift;
	if (o->val)
		v &= o->val;
	return v;
}

static int em_leaf(const struct em *e, const struct bpf_skb *skb, struct why *w)
{
	static const char *const lname[] = {"link", "network", "transport"};
	uint32_t v;
	long base;
	int r;

	switch (e->kind) {
	case EM_CMP:
		base = layer_base(skb, e->cmp.layer);
		if (base < 0 || read_be(skb, base + e->cmp.off, e->cmp.align, &v)) {
			why_add(w, "cmp: %u bytes at %s+%u are past the packet: no; ",
				e->cmp.align, lname[e->cmp.layer], e->cmp.off);
			return 0;
		}
		if (e->cmp.trans) /* be*_to_cpu on a little-endian host */
			v = e->cmp.align == 2 ? (uint32_t)((v >> 8 | v << 8) & 0xffff)
			    : e->cmp.align == 4 ? __builtin_bswap32(v)
						: v;
		if (e->cmp.mask)
			v &= e->cmp.mask;
		r = cmp_op(v, e->cmp.opnd, e->cmp.val);
		why_add(w, "cmp %s+%u: %u %s %u: %s; ", lname[e->cmp.layer], e->cmp.off, v,
			opnd_name[e->cmp.opnd], e->cmp.val, r ? "yes" : "no");
		return r;
	case EM_U32:
		/* basic passes no tcf_pkt_info: nexthdr+ adds nothing */
		if (read_be(skb, (long)skb->net_off + e->u32.off, 4, &v)) {
			why_add(w, "u32 at %d: past the packet: no; ", e->u32.off);
			return 0;
		}
		r = ((v ^ e->u32.val) & e->u32.mask) == 0;
		why_add(w, "u32 at %d: %08x&%08x %s %08x; ", e->u32.off, v, e->u32.mask,
			r ? "=" : "!=", e->u32.val);
		return r;
	case EM_META: {
		uint32_t a = meta_get(skb, &e->meta.l), b = meta_get(skb, &e->meta.r);

		r = cmp_op(a, e->meta.op, b);
		why_add(w, "meta %u %s %u: %s; ", a, opnd_name[e->meta.op], b, r ? "yes" : "no");
		return r;
	}
	}
	return 0;
}

/* tcf_em_early_end */
static int early_end(const struct em *e, int res)
{
	return e->rel == REL_END || (!res && e->rel == REL_AND) || (res && e->rel == REL_OR);
}

/* __tcf_em_tree_match: left to right, each sequence stopping at its first
 * AND that fails or OR that holds, containers on a stack. */
static int em_tree_match(const struct basic_filter *f, const struct bpf_skb *skb,
			 struct why *w)
{
	int stack[EM_STACK], sp = 0, res = 0;
	unsigned idx = 0;

	if (!f->n)
		return 1;
proceed:
	while (idx < f->n) {
		const struct em *e = &f->m[idx];

		if (e->kind == EM_CONTAINER) {
			if (sp >= EM_STACK) {
				why_add(w, "ematch stack overflow; ");
				return -1;
			}
			stack[sp++] = (int)idx;
			idx = e->ref;
			goto proceed;
		}
		res = em_leaf(e, skb, w);
		if (e->invert) {
			res = !res;
			why_add(w, "NOT: %s; ", res ? "yes" : "no");
		}
		if (early_end(e, res))
			break;
		idx++;
	}
	while (sp > 0) {
		const struct em *e;

		idx = (unsigned)stack[--sp];
		e = &f->m[idx];
		if (e->invert)
			res = !res;
		if (!early_end(e, res)) {
			idx++;
			goto proceed;
		}
	}
	return res;
}

static int basic_classify_why(const struct tcf_proto *tp, const struct bpf_skb *skb,
			      struct tcf_result *res, const struct basic_filter **hit,
			      const struct tcf_tracer *tr, struct tcf_trace *ft)
{
	const struct basic_head *head = tp->priv;

	for (const struct basic_filter *f = head ? head->list : NULL; f; f = f->next) {
		struct why w = {ft ? ft->why : NULL, ft ? sizeof(ft->why) : 0, 0};
		int m;

		if (ft) {
			ft->why[0] = 0;
			if (!f->n)
				why_add(&w, "no ematch: every packet; ");
		}
		m = em_tree_match(f, skb, ft ? &w : NULL);
		if (ft) {
			ft->has_handle = 1;
			ft->handle = f->handle;
			ft->match = m != 0;
			ft->classid = m ? f->classid : 0;
			ft->has_flowid = f->has_classid;
			ft->flowid = f->classid;
			why_add(&w, "%s", m ? "the tree matches" : "the tree does not match");
			tr->filter(tr->arg, ft);
		}
		if (m) {
			res->classid = f->classid;
			res->handle = f->handle;
			res->ret = 0;
			*hit = f;
			return 0; /* TC_ACT_OK: no actions */
		}
	}
	return -1;
}

static int basic_classify(const struct tcf_proto *tp, const struct bpf_skb *skb,
			  struct tcf_result *res)
{
	const struct basic_filter *hit;

	return basic_classify_why(tp, skb, res, &hit, NULL, NULL);
}

static int basic_classify_traced(const struct tcf_proto *tp, const struct bpf_skb *skb,
				 struct tcf_result *res, const struct tcf_tracer *tr,
				 struct tcf_trace *ft)
{
	const struct basic_filter *hit;
	int r = basic_classify_why(tp, skb, res, &hit, tr, ft);

	if (!tp->priv || !((const struct basic_head *)tp->priv)->list) {
		snprintf(ft->why, sizeof(ft->why), "no basic filter at this pref");
		ft->match = 0;
		tr->filter(tr->arg, ft);
	}
	return r;
}

/* ---- show (basic_print_opt, print_ematch) ---- */

struct sbuf {
	char *b;
	size_t n, len;
};

static void sb_add(struct sbuf *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(struct sbuf *s, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (s->len + 1 >= s->n)
		return;
	va_start(ap, fmt);
	k = vsnprintf(s->b + s->len, s->n - s->len, fmt, ap);
	va_end(ap);
	if (k > 0)
		s->len = s->len + (size_t)k < s->n ? s->len + (size_t)k : s->n - 1;
}

static void meta_obj_print(struct sbuf *s, const struct meta_obj *o)
{
	if (o->id == META_VALUE) {
		sb_add(s, "%d", (int32_t)o->val);
		return;
	}
	sb_add(s, "%s", o->id == META_PRIORITY ? "priority" : "nf_mark");
	if (o->shift)
		sb_add(s, " shift %d", o->shift);
	if (o->val)
		sb_add(s, " mask 0x%08x", o->val);
}

static void em_print_leaf(struct sbuf *s, const struct em *e)
{
	switch (e->kind) {
	case EM_CMP:
		sb_add(s, "cmp(");
		/* u8, u16 and u32 all printed, as tc 6.1 does (seen in the qemu
		 * oracle: tests/data/qemu/import.rec, case basic-import) */
		sb_add(s, "u%d ", e->cmp.align * 8);
		sb_add(s, "at %d layer %d ", e->cmp.off, e->cmp.layer);
		if (e->cmp.mask)
			sb_add(s, "mask 0x%x ", e->cmp.mask);
		if (e->cmp.trans)
			sb_add(s, "trans ");
		sb_add(s, "%s %d)\n", opnd_name[e->cmp.opnd], (int32_t)e->cmp.val);
		break;
	case EM_U32:
		sb_add(s, "u32(%08x/%08x at %s%d)\n", e->u32.val, e->u32.mask,
		       e->u32.offmask ? "nexthdr+" : "", e->u32.off);
		break;
	case EM_META:
		sb_add(s, "meta(");
		meta_obj_print(s, &e->meta.l);
		sb_add(s, " %s ", opnd_name[e->meta.op]);
		meta_obj_print(s, &e->meta.r);
		sb_add(s, ")\n");
		break;
	}
}

/* print_ematch_seq */
static void em_print_seq(struct sbuf *s, const struct basic_filter *f, unsigned i, int prefix,
			 int depth)
{
	for (; i < f->n; i++) {
		const struct em *e = &f->m[i];

		if (e->invert)
			sb_add(s, "NOT ");
		if (e->kind == EM_CONTAINER) {
			sb_add(s, "(\n");
			for (int k = 0; k <= prefix; k++)
				sb_add(s, "  ");
			if (depth < 64)
				em_print_seq(s, f, e->ref, prefix + 1, depth + 1);
			for (int k = 0; k < prefix; k++)
				sb_add(s, "  ");
			sb_add(s, ") ");
		} else {
			em_print_leaf(s, e);
			if (e->rel != REL_END)
				for (int k = 0; k < prefix; k++)
					sb_add(s, "  ");
		}
		if (e->rel == REL_AND)
			sb_add(s, "AND ");
		else if (e->rel == REL_OR)
			sb_add(s, "OR ");
		else
			return;
	}
}

static void basic_dump(const struct tcf_proto *tp, struct tcf_dump *d)
{
	const struct basic_head *head = tp->priv;
	char text[8192];

	for (const struct basic_filter *f = head ? head->list : NULL; f; f = f->next) {
		char cid[32];

		d->begin(d);
		if (f->handle)
			pr_hex(d->p, PR_ANY, "handle", "handle 0x%x ", f->handle);
		if (f->has_classid) {
			tc_print_classid(cid, sizeof(cid), f->classid);
			pr_string(d->p, PR_ANY, "flowid", "flowid %s ", cid);
		}
		if (f->n) {
			struct sbuf s = {text, sizeof(text), 0};

			/* 6.1 prints the tree as text inside its JSON (not JSON):
			 * tcsim gives that text as the string "ematch" */
			text[0] = 0;
			em_print_seq(&s, f, 0, 1, 0);
			pr_text(d->p, "\n  ");
			pr_string(d->p, PR_ANY, "ematch", "%s", text);
		}
		d->end(d);
	}
}

static void basic_destroy(struct tcf_proto *tp)
{
	struct basic_head *head = tp->priv;

	if (!head)
		return;
	while (head->list) {
		struct basic_filter *f = head->list;

		head->list = f->next;
		free(f->m);
		free(f);
	}
	free(head);
	tp->priv = NULL;
}

static size_t basic_count(const struct tcf_proto *tp)
{
	const struct basic_head *head = tp->priv;
	size_t n = 0;

	for (const struct basic_filter *f = head ? head->list : NULL; f; f = f->next)
		n++;
	return n;
}

static int basic_handle_at(const struct tcf_proto *tp, size_t i, uint32_t *handle)
{
	const struct basic_head *head = tp->priv;

	for (const struct basic_filter *f = head ? head->list : NULL; f; f = f->next)
		if (!i--) {
			*handle = f->handle;
			return 0;
		}
	return -1;
}

const struct tcf_proto_ops cls_basic_ops = {
    .kind = "basic",
    .change = basic_change,
    .delete = basic_delete,
    .classify = basic_classify,
    .destroy = basic_destroy,
    .dump = basic_dump,
    .count = basic_count,
    .handle_at = basic_handle_at,
    .classify_traced = basic_classify_traced,
    .get_handle = basic_get_handle,
};

/* The i-th filter in the order they were made (the list is newest first),
 * its tree with the kernel's numbers, for kernel-check. */
int cls_basic_at(const struct tcf_proto *tp, size_t i, struct cls_basic_info *info)
{
	const struct basic_head *head = tp->ops == &cls_basic_ops ? tp->priv : NULL;
	const struct basic_filter *f;
	size_t n = 0;

	for (f = head ? head->list : NULL; f; f = f->next)
		n++;
	if (i >= n)
		return -1;
	for (f = head->list, i = n - 1 - i; i; i--)
		f = f->next;
	memset(info, 0, sizeof(*info));
	info->handle = f->handle;
	info->classid = f->classid;
	info->has_classid = f->has_classid;
	info->n = f->n;
	for (unsigned k = 0; k < f->n && k < CLS_BASIC_MAX_EM; k++) {
		const struct em *e = &f->m[k];
		struct cls_basic_em *o = &info->em[k];

		o->kind = e->kind;
		o->invert = e->invert;
		o->rel = e->rel;
		o->ref = e->ref;
		if (e->kind == EM_CMP) {
			o->cmp_val = e->cmp.val;
			o->cmp_mask = e->cmp.mask;
			o->cmp_off = e->cmp.off;
			o->cmp_align = e->cmp.align;
			o->cmp_layer = e->cmp.layer;
			o->cmp_opnd = e->cmp.opnd;
			o->cmp_trans = e->cmp.trans;
		} else if (e->kind == EM_U32) {
			o->u32_val = e->u32.val;
			o->u32_mask = e->u32.mask;
			o->u32_off = e->u32.off;
			o->u32_offmask = e->u32.offmask;
		} else if (e->kind == EM_META) {
			const struct meta_obj *side[2] = {&e->meta.l, &e->meta.r};

			for (int s = 0; s < 2; s++) {
				int id = side[s]->id == META_PRIORITY ? CLS_META_PRIORITY
					 : side[s]->id == META_NFMARK ? CLS_META_NFMARK
								       : CLS_META_VALUE;

				o->meta_id[s] = (uint16_t)id;
				o->meta_shift[s] = side[s]->shift;
				o->meta_val[s] = side[s]->val;
			}
			o->meta_op = e->meta.op;
		}
	}
	return 0;
}
