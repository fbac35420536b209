/* nl_basic.c - `tcsim import` reads basic filters and writes them back as
 * tc lines. libnl-route's rtnl_basic_* and rtnl_ematch_* would parse the
 * tree, but libnl-route 3.7 has ematch modules for cmp, nbyte, text and
 * meta only, not for em_u32, which tcsim models; the attributes are read
 * here instead, with the
 * kernel's numbers (pkt_cls.h, tc_ematch/), as cls_basic's basic_dump and
 * ematch.c's tcf_em_tree_dump send them:
 *
 *   TCA_BASIC_CLASSID when a classid is set, TCA_BASIC_PCNT (the hit
 *   counter, with TCA_BASIC_PAD), the actions (TCA_BASIC_ACT, listed as not
 *   modelled) and TCA_BASIC_EMATCHES: TCA_EMATCH_TREE_HDR (struct
 *   tcf_ematch_tree_hdr: nmatches, progid) and TCA_EMATCH_TREE_LIST, the
 *   matches numbered from 1, each a struct tcf_ematch_hdr (matchid, kind,
 *   flags: TCF_EM_REL_AND/OR, TCF_EM_INVERT) followed by the kind's data:
 *   a container's u32 index of its sequence; cmp's struct tcf_em_cmp; u32's
 *   struct tc_u32_key; meta's own attributes (TCA_EM_META_HDR with each
 *   side's kind, shift and the operand, then TCA_EM_META_LVALUE and
 *   _RVALUE).
 *
 * The tree is kept as cls.h's struct cls_basic_em (what kernel-check sends
 * from, so tests/unit/test_nl_import.c reads kernel-check's messages back)
 * and written as iproute2 6.1's ematch words: `not`, `and`, `or`,
 * brackets for containers, cmp(u8|u16|u32 at OFF layer L [mask M] [trans]
 * eq|gt|lt V), u32(u32 VAL MASK at [nexthdr+]OFF) (the key as the kernel
 * keeps it: a whole word, so it packs back unchanged), meta(priority|nf_mark
 * [shift S] [mask M] eq|gt|lt V). classid goes last (tc 6.1 re-reads the
 * last word of a match that ends the line). What tcsim does not model, or
 * no words give back, is listed: other ematch kinds (nbyte, text, canid,
 * ipset, ipt), other meta ids or types, an unaligned u32 offset, a basic
 * filter without classid (its line would end with the match). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/netlink.h>

#include "cls.h"
#include "nl_import.h"
#include "nl_int.h"
#include "nl_scen.h"

/* TCA_BASIC_* */
enum { B_CLASSID = 1, B_EMATCHES, B_ACT, B_POLICE, B_PCNT, B_PAD, B_MAX = B_PAD };
/* TCA_EMATCH_TREE_*, TCA_EM_META_* */
enum { T_HDR = 1, T_LIST };
enum { M_HDR = 1, M_LVALUE, M_RVALUE };
#define EM_REL_MASK 3u
#define EM_INVERT 4u
#define META_TYPE_INT 1

static void why(struct nli_filter *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void why(struct nli_filter *f, const char *fmt, ...)
{
	char text[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	nl_why_add(f, text);
}

static int parse_meta(struct nli_filter *f, struct cls_basic_em *e, const uint8_t *p, int len,
		      unsigned nr, const char *wh, char *err, size_t errlen)
{
	const struct nlattr *a = (const struct nlattr *)p;
	int have = 0, rem = len;

	if (!nl_attrs_whole(a, len))
		return nl_failf(err, errlen, -EPROTO, "%s: ematch %u: truncated meta attribute", wh,
				nr);
	for (; nla_ok(a, rem); a = nla_next(a, &rem)) {
		int type = nla_type(a);
		const uint8_t *d = nla_data(a);

		if (type == M_HDR) {
			if (nla_len(a) < 8)
				return nl_failf(err, errlen, -EPROTO,
						"%s: ematch %u: TCA_EM_META_HDR of %d bytes", wh,
						nr, nla_len(a));
			for (int s = 0; s < 2; s++) {
				uint16_t kind;

				memcpy(&kind, d + 4 * s, 2);
				e->meta_id[s] = kind & 0xfff;
				e->meta_shift[s] = d[4 * s + 2];
				if (kind >> 12 != META_TYPE_INT)
					why(f, "meta: a value of type %u (tcsim models integers)",
					    kind >> 12);
				else if (e->meta_id[s] != CLS_META_VALUE &&
					 e->meta_id[s] != CLS_META_PRIORITY &&
					 e->meta_id[s] != CLS_META_NFMARK)
					why(f, "meta: id %u (tcsim models priority and nf_mark)",
					    e->meta_id[s]);
			}
			e->meta_op = d[3];
			if (e->meta_op > 2)
				why(f, "meta: operand %u", e->meta_op);
			have |= 1;
		} else if (type == M_LVALUE || type == M_RVALUE) {
			int s = type == M_RVALUE;

			if (nla_len(a) == 4)
				memcpy(&e->meta_val[s], d, 4);
			else if (nla_len(a) == 8) /* an unsigned long: its low half */
				memcpy(&e->meta_val[s], d, 4);
			else
				return nl_failf(err, errlen, -EPROTO,
						"%s: ematch %u: meta value of %d bytes", wh, nr,
						nla_len(a));
		}
	}
	if (!(have & 1))
		return nl_failf(err, errlen, -EPROTO, "%s: ematch %u: meta without TCA_EM_META_HDR",
				wh, nr);
	return 0;
}

/* One match (hdr and data) into e. */
static int parse_em(struct nli_filter *f, struct cls_basic_em *e, const struct nlattr *a,
		    unsigned nr, unsigned n, const char *wh, char *err, size_t errlen)
{
	const uint8_t *p = nla_data(a);
	int len = nla_len(a) - 8;
	uint16_t hdr[4];

	if (nla_len(a) < 8)
		return nl_failf(err, errlen, -EPROTO, "%s: ematch %u of %d bytes", wh, nr,
				nla_len(a));
	memcpy(hdr, p, 8);
	p += 8;
	e->kind = hdr[1];
	e->rel = hdr[2] & EM_REL_MASK;
	e->invert = !!(hdr[2] & EM_INVERT);
	if (e->rel == 3 || hdr[2] & ~(EM_REL_MASK | EM_INVERT))
		why(f, "ematch %u: flags 0x%x", nr, hdr[2]);
	switch (e->kind) {
	case CLS_EM_CONTAINER:
		if (len < 4)
			return nl_failf(err, errlen, -EPROTO,
					"%s: ematch %u: container of %d bytes", wh, nr, len);
		memcpy(&e->ref, p, 4);
		/* tcf_em_validate: a container points forward, inside the list */
		if (e->ref <= nr - 1 || e->ref >= n)
			return nl_failf(err, errlen, -EPROTO,
					"%s: ematch %u: a container pointing to %u", wh, nr,
					e->ref + 1);
		return 0;
	case CLS_EM_CMP:
		if (len < 12)
			return nl_failf(err, errlen, -EPROTO, "%s: ematch %u: cmp of %d bytes", wh,
					nr, len);
		memcpy(&e->cmp_val, p, 4);
		memcpy(&e->cmp_mask, p + 4, 4);
		memcpy(&e->cmp_off, p + 8, 2);
		e->cmp_align = p[10] & 0xf;
		e->cmp_trans = (p[10] >> 4) & 1;
		e->cmp_layer = p[11] & 0xf;
		e->cmp_opnd = p[11] >> 4;
		if ((e->cmp_align != 1 && e->cmp_align != 2 && e->cmp_align != 4) ||
		    e->cmp_layer > 2 || e->cmp_opnd > 2 || p[10] >> 5)
			why(f, "cmp: alignment %u, layer %u, operand %u", e->cmp_align,
			    e->cmp_layer, e->cmp_opnd);
		return 0;
	case CLS_EM_U32: {
		uint32_t mask, val;

		if (len < 16)
			return nl_failf(err, errlen, -EPROTO, "%s: ematch %u: u32 of %d bytes", wh,
					nr, len);
		memcpy(&mask, p, 4);
		memcpy(&val, p + 4, 4);
		e->u32_mask = ntohl(mask);
		e->u32_val = ntohl(val);
		memcpy(&e->u32_off, p + 8, 4);
		memcpy(&e->u32_offmask, p + 12, 4);
		if (e->u32_off % 4 || e->u32_off < 0 || (e->u32_offmask && e->u32_offmask != -1))
			why(f,
			    "u32: offset %d, offmask 0x%x (tc's words give an aligned offset, "
			    "nexthdr+ or not)",
			    e->u32_off, (unsigned)e->u32_offmask);
		return 0;
	}
	case CLS_EM_META: return parse_meta(f, e, p, len, nr, wh, err, errlen);
	default: why(f, "ematch kind %u (tcsim models cmp, u32 and meta)", e->kind); return 0;
	}
}

int nl_basic_parse(struct nli_filter *f, struct nlattr *opts, const char *wh, char *err,
		   size_t errlen)
{
	struct nlattr *tb[B_MAX + 1] = {0}, *a, *tree[T_LIST + 1] = {0};
	struct nli_basic *b;
	int rem;

	if (!nl_attrs_whole(nla_data(opts), nla_len(opts)))
		return nl_failf(err, errlen, -EPROTO, "%s: truncated attribute in TCA_OPTIONS", wh);
	nla_for_each_nested(a, opts, rem)
	{
		int type = nla_type(a);

		if (type < 1 || type > B_MAX)
			return nl_failf(
			    err, errlen, -EPROTO,
			    "%s: unknown attribute %d in the basic options (TCA_BASIC_*): "
			    "a newer kernel? tcsim cannot tell what it means",
			    wh, type);
		tb[type] = a;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return nl_failf(err, errlen, -ENOMEM, "out of memory");
	f->basic = b;
	if (tb[B_CLASSID]) {
		if (nla_len(tb[B_CLASSID]) < 4)
			return nl_failf(err, errlen, -EPROTO, "%s: TCA_BASIC_CLASSID of %d bytes",
					wh, nla_len(tb[B_CLASSID]));
		b->has_classid = 1;
		b->classid = nla_get_u32(tb[B_CLASSID]);
	}
	if (tb[B_ACT])
		nl_why_add(f, "actions (tcsim models no tc actions)");
	if (tb[B_POLICE])
		nl_why_add(f, "police (tcsim models no policing)");
	if (!tb[B_EMATCHES])
		return 0;
	if (!nl_attrs_whole(nla_data(tb[B_EMATCHES]), nla_len(tb[B_EMATCHES])))
		return nl_failf(err, errlen, -EPROTO,
				"%s: truncated attribute in TCA_BASIC_EMATCHES", wh);
	nla_for_each_nested(a, tb[B_EMATCHES],
			    rem) if (nla_type(a) == T_HDR || nla_type(a) == T_LIST)
	    tree[nla_type(a)] = a;
	if (!tree[T_HDR] || nla_len(tree[T_HDR]) < 4)
		return nl_failf(err, errlen, -EPROTO, "%s: ematch tree without its header", wh);
	{
		uint16_t hdr[2];

		memcpy(hdr, nla_data(tree[T_HDR]), 4);
		b->n = hdr[0];
	}
	if (!b->n)
		return 0;
	if (b->n > CLS_BASIC_MAX_EM)
		return nl_failf(err, errlen, -EPROTO, "%s: %u ematches (at most %d)", wh, b->n,
				CLS_BASIC_MAX_EM);
	if (!tree[T_LIST] || !nl_attrs_whole(nla_data(tree[T_LIST]), nla_len(tree[T_LIST])))
		return nl_failf(err, errlen, -EPROTO, "%s: ematch tree without its list", wh);
	b->em = calloc(b->n, sizeof(*b->em));
	if (!b->em)
		return nl_failf(err, errlen, -ENOMEM, "out of memory");
	{
		unsigned seen = 0;
		int ret;

		nla_for_each_nested(a, tree[T_LIST], rem)
		{
			unsigned nr = (unsigned)nla_type(a);

			/* tcf_em_tree_validate: numbered 1..nmatches, in order */
			if (nr != seen + 1 || nr > b->n)
				return nl_failf(err, errlen, -EPROTO,
						"%s: ematch numbered %u where %u was due", wh, nr,
						seen + 1);
			ret = parse_em(f, &b->em[seen], a, nr, b->n, wh, err, errlen);
			if (ret)
				return ret;
			seen++;
		}
		if (seen != b->n)
			return nl_failf(err, errlen, -EPROTO, "%s: %u ematches of %u", wh, seen,
					b->n);
	}
	return 0;
}

void nl_basic_free(struct nli_filter *f)
{
	if (f->basic)
		free(f->basic->em);
	free(f->basic);
	f->basic = NULL;
}

/* ---- writing ---- */

struct out {
	char *buf;
	size_t n, k;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (o->k >= o->n)
		return;
	va_start(ap, fmt);
	r = vsnprintf(o->buf + o->k, o->n - o->k, fmt, ap);
	va_end(ap);
	o->k = r < 0 ? o->n : o->k + (size_t)r;
}

static const char *const opnd[] = {"eq", "gt", "lt"};

static void meta_side(struct out *o, const struct cls_basic_em *e, int s)
{
	if (e->meta_id[s] == CLS_META_VALUE) {
		put(o, "%u", e->meta_val[s]);
		return;
	}
	put(o, "%s", e->meta_id[s] == CLS_META_PRIORITY ? "priority" : "nf_mark");
	if (e->meta_shift[s])
		put(o, " shift %u", e->meta_shift[s]);
	if (e->meta_val[s])
		put(o, " mask 0x%x", e->meta_val[s]);
}

/* The sequence that starts at em[i] (depth bounds the brackets). Containers
 * may share a sequence (tcf_em_validate only wants them to point forward),
 * so the words of a tree of n matches can grow as 2^n: the walk stops once
 * the line is full, which is then listed as too long. */
static void seq(struct out *o, const struct nli_basic *b, unsigned i, int depth)
{
	for (; i < b->n && depth < 64 && o->k < o->n; i++) {
		const struct cls_basic_em *e = &b->em[i];

		if (e->invert)
			put(o, "not ");
		switch (e->kind) {
		case CLS_EM_CONTAINER:
			put(o, "( ");
			seq(o, b, e->ref, depth + 1);
			put(o, " )");
			break;
		case CLS_EM_CMP:
			put(o, "cmp(u%d at %u layer %u ", e->cmp_align * 8, e->cmp_off,
			    e->cmp_layer);
			if (e->cmp_mask)
				put(o, "mask 0x%x ", e->cmp_mask);
			if (e->cmp_trans)
				put(o, "trans ");
			put(o, "%s %u)", opnd[e->cmp_opnd], e->cmp_val);
			break;
		case CLS_EM_U32:
			put(o, "u32(u32 0x%08x 0x%08x at %s%d)", e->u32_val, e->u32_mask,
			    e->u32_offmask ? "nexthdr+" : "", e->u32_off);
			break;
		case CLS_EM_META:
			put(o, "meta(");
			meta_side(o, e, 0);
			put(o, " %s ", opnd[e->meta_op]);
			meta_side(o, e, 1);
			put(o, ")");
			break;
		}
		if (e->rel == 1)
			put(o, " and ");
		else if (e->rel == 2)
			put(o, " or ");
		else
			return;
	}
}

void nl_write_basic(struct nl_writer *w, const size_t *v, size_t s, size_t e, uint32_t parent,
		    const char *tp, const char *comment)
{
	const struct nl_import_model *m = w->m;
	char pid[32], pw[24];
	uint16_t back;

	nl_classid(pid, sizeof(pid), parent);
	tc_print_protocol(pw, sizeof(pw), m->filters[v[s]].protocol);
	if (pw[0] == '[' || tc_get_protocol(&back, pw) || back != m->filters[v[s]].protocol)
		snprintf(pw, sizeof(pw), "0x%04x", m->filters[v[s]].protocol);
	/* the kernel's list and dump are newest first: the oldest is added first */
	for (size_t k = e; k-- > s;) {
		const struct nli_filter *f = &m->filters[v[k]];
		const struct nli_basic *b = f->basic;
		char line[8192], cid[32];
		struct out o = {line, sizeof(line), 0};

		if (!b)
			continue; /* the tcf_proto's own line */
		if (f->why[0] || !b->has_classid) {
			const char *r = f->why[0] ? f->why
						  : "no classid (tc 6.1 cannot end a basic line "
						    "with its match)";

			if (comment)
				fprintf(w->tc, "  %s(handle 0x%x: %s)\n", comment, f->handle, r);
			else
				nl_omit(w, "%s: %s handle 0x%x: %s",
					f->why[0] ? "not modelled" : "not reproduced", tp,
					f->handle, r);
			continue;
		}
		put(&o, "filter add dev %s parent %s pref %u protocol %s handle 0x%x basic",
		    w->devq, pid, f->pref, pw, f->handle);
		if (b->n) {
			put(&o, " match ");
			seq(&o, b, 0, 0);
		}
		put(&o, " classid %s", nl_classid(cid, sizeof(cid), b->classid));
		if (o.k >= o.n) {
			nl_omit(w,
				"not reproduced: %s handle 0x%x: its tree is too long for a line",
				tp, f->handle);
			continue;
		}
		fprintf(w->tc, "  %s%s\n", comment ? comment : "", line);
	}
}
