/* nl_dump.c - `tcsim import`'s netlink side: a device's link, qdiscs,
 * classes and filters dumped from the kernel and parsed into the model.
 *
 * What is read. The link (libnl-route's rtnl_link: ifindex, mtu,
 * txqueuelen), then three kinds of dumps sent with libnl-3's core
 * (nl_send_simple, nl_recvmsgs with a callback) and parsed with its
 * attribute API: RTM_GETQDISC, RTM_GETTCLASS, and RTM_GETTFILTER once per
 * qdisc (its own block) and per class of the kinds whose classes carry
 * blocks (htb, drr, ...; not prio or sfq, whose classes have none), and for
 * ingress/clsact their blocks. htb's and tbf's options are read through
 * libnl-route's rtnl_htb_* and rtnl_qdisc_tbf_* (nl_htb_tbf.c, which says
 * what it reads by hand and why), codel's and fq_codel's in nl_aqm.c
 * (fq_codel's through rtnl_qdisc_fq_codel_*), matchall's and fw's in
 * nl_mall_fw.c; libnl-route has no cls_bpf, and the rest is parsed here.
 * A dump needs no privilege; --netns enters /run/netns/NAME only around
 * the socket's creation (a netlink socket belongs to the namespace it was
 * created in), which needs CAP_SYS_ADMIN.
 *
 * Errors (exit 1, one line on stderr, nothing on stdout): no such device,
 * no such namespace, a netlink error, and any message that is malformed
 * (truncated attributes, no TCA_KIND, options of the wrong size,
 * TCA_BPF_OPS_LEN against TCA_BPF_OPS) or carries an attribute this file
 * does not know: the kernel said something whose meaning would be guessed.
 *
 * The attribute numbers and option layouts below are the kernel's ABI
 * (include/uapi/linux/rtnetlink.h, pkt_sched.h, pkt_cls.h); they are
 * spelled out here rather than taken from <linux/pkt_*.h>, whose TC_H_*
 * macros collide with tcsim's cls.h. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>

#include "cls.h"
#include "nl_import.h"
#include "nl_int.h"

/* ---- the kernel's ABI ---- */

/* (the ingress parent and TCA_CLS_FLAGS_*, which the writer reads too, are
 * in nl_int.h) */
#define NLI_H_MIN_INGRESS 0xfff2u
#define NLI_H_MIN_EGRESS 0xfff3u

/* TCA_* of a tcmsg: 1 KIND .. 16 EXT_WARN_MSG */
enum {
	A_KIND = 1,
	A_OPTIONS,
	A_STATS,
	A_XSTATS,
	A_RATE,
	A_FCNT,
	A_STATS2,
	A_STAB,
	A_PAD,
	A_DUMP_INVISIBLE,
	A_CHAIN,
	A_HW_OFFLOAD,
	A_INGRESS_BLOCK,
	A_EGRESS_BLOCK,
	A_DUMP_FLAGS,
	A_EXT_WARN_MSG,
	A_MAX = A_EXT_WARN_MSG
};

/* TCA_BPF_* inside a bpf filter's TCA_OPTIONS */
enum {
	B_ACT = 1,
	B_POLICE,
	B_CLASSID,
	B_OPS_LEN,
	B_OPS,
	B_FD,
	B_NAME,
	B_FLAGS,
	B_FLAGS_GEN,
	B_TAG,
	B_ID,
	B_MAX = B_ID
};
#define BPF_FLAG_ACT_DIRECT 0x1u

#define PRIO_QOPT_SIZE 20 /* struct tc_prio_qopt: int bands; __u8 priomap[16]; (padded) */
#define FIFO_QOPT_SIZE 4  /* struct tc_fifo_qopt: __u32 limit */
#define SFQ_V0_SIZE 20	  /* struct tc_sfq_qopt */
#define SFQ_V1_SIZE 72	  /* struct tc_sfq_qopt_v1: v0, 5 u32, 4 u8, max_P, 6 u32 stats */

/* ---- small helpers (those of nl_int.h are nl_scenario.c's too) ---- */

int nl_failf(char *err, size_t errlen, int code, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}

static uint32_t get32(const void *p, size_t off)
{
	uint32_t v;

	memcpy(&v, (const char *)p + off, sizeof(v));
	return v;
}

const char *nl_classid(char *buf, size_t n, uint32_t h)
{
	tc_print_classid(buf, n, h);
	return buf;
}

/* A qdisc handle as tc prints one: "1:", "0:". */
const char *nl_qhandle(char *buf, size_t n, uint32_t h)
{
	if (TC_H_MIN(h))
		snprintf(buf, n, "%x:%x", h >> 16, TC_H_MIN(h));
	else
		snprintf(buf, n, "%x:", h >> 16);
	return buf;
}

/* "root", "parent 1:2", "ingress" as tc names where a qdisc hangs. */
const char *nl_where_str(char *buf, size_t n, uint32_t parent)
{
	char id[32];

	if (parent == TC_H_ROOT)
		snprintf(buf, n, "root");
	else if (parent == NLI_H_INGRESS)
		snprintf(buf, n, "parent ffff:fff1");
	else
		snprintf(buf, n, "parent %s", nl_classid(id, sizeof(id), parent));
	return buf;
}

/* Attributes laid end to end in len bytes: every one whole (a last one
 * without its padding is accepted). */
int nl_attrs_whole(const struct nlattr *head, int len)
{
	const struct nlattr *a;
	int rem;

	nla_for_each_attr(a, head, len, rem)
		;
	return rem <= 0 && rem > -NLA_ALIGNTO;
}

int nl_is_kind(const char *k, const char *a)
{
	return !strcmp(k, a);
}

/* ---- the model ---- */

void nl_import_model_init(struct nl_import_model *m, const char *dev, int ifindex)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->dev, sizeof(m->dev), "%s", dev ? dev : "");
	m->ifindex = ifindex;
}

void nl_import_model_free(struct nl_import_model *m)
{
	for (size_t i = 0; i < m->nfilters; i++) {
		free(m->filters[i].ops);
		nl_cls_free(&m->filters[i]);
	}
	free(m->qdiscs);
	free(m->classes);
	free(m->filters);
	memset(m, 0, sizeof(*m));
}

static void *grow(void *v, size_t *cap, size_t n, size_t size)
{
	void *p;
	size_t c;

	if (n < *cap)
		return v;
	c = *cap ? *cap * 2 : 16;
	p = realloc(v, c * size);
	if (p)
		*cap = c;
	return p;
}

/* ---- parsing one message ---- */

static const char *msg_what(int type)
{
	return type == RTM_NEWQDISC ? "qdisc" : type == RTM_NEWTCLASS ? "class" : "filter";
}

static int parse_qdisc(struct nl_import_model *m, const struct nlmsghdr *nlh, const struct tcmsg *t,
		       struct nlattr **tb, const char *kind, char *err, size_t errlen)
{
	struct nli_qdisc q = {0};
	struct nlattr *o = tb[A_OPTIONS];
	char id[32], pw[48], wh[160];
	int olen = o ? nla_len(o) : 0;
	const void *d = o ? nla_data(o) : NULL;
	void *v;

	snprintf(q.kind, sizeof(q.kind), "%s", kind);
	q.handle = t->tcm_handle;
	q.parent = t->tcm_parent;
	q.has_options = o != NULL;
	q.has_stab = tb[A_STAB] != NULL;
	snprintf(wh, sizeof(wh), "qdisc %s %s %s", kind, nl_qhandle(id, sizeof(id), q.handle),
		 nl_where_str(pw, sizeof(pw), q.parent));
	if (nl_is_kind(kind, "prio") || nl_is_kind(kind, "pfifo_fast")) {
		if (!o || olen < PRIO_QOPT_SIZE)
			return nl_failf(
			    err, errlen, -EPROTO,
			    "%s: TCA_OPTIONS of %d bytes, not a struct tc_prio_qopt (%d)", wh, olen,
			    PRIO_QOPT_SIZE);
		q.bands = (int)get32(d, 0);
		memcpy(q.priomap, (const char *)d + 4, 16);
		if (q.bands < 2 || q.bands > 16)
			return nl_failf(err, errlen, -EPROTO, "%s: bands %d (not 2..16)", wh,
					q.bands);
		for (int i = 0; i < 16; i++)
			if (q.priomap[i] >= q.bands)
				return nl_failf(err, errlen, -EPROTO,
						"%s: priomap entry %d is band %u of %d", wh, i,
						q.priomap[i], q.bands);
	} else if (nl_is_kind(kind, "pfifo") || nl_is_kind(kind, "bfifo") ||
		   nl_is_kind(kind, "pfifo_head_drop")) {
		if (!o || olen < FIFO_QOPT_SIZE)
			return nl_failf(
			    err, errlen, -EPROTO,
			    "%s: TCA_OPTIONS of %d bytes, not a struct tc_fifo_qopt (%d)", wh, olen,
			    FIFO_QOPT_SIZE);
		q.limit = get32(d, 0);
	} else if (nl_is_kind(kind, "sfq")) {
		struct nli_sfq *s = &q.sfq;

		if (!o || olen < SFQ_V0_SIZE)
			return nl_failf(
			    err, errlen, -EPROTO,
			    "%s: TCA_OPTIONS of %d bytes, not a struct tc_sfq_qopt (%d)", wh, olen,
			    SFQ_V0_SIZE);
		s->quantum = get32(d, 0);
		s->perturb = (int32_t)get32(d, 4);
		s->limit = get32(d, 8);
		s->divisor = get32(d, 12);
		s->flows = get32(d, 16);
		if (olen >= SFQ_V1_SIZE) { /* the kernel reads v1 only when it is whole */
			const uint8_t *b = (const uint8_t *)d;

			s->v1 = 1;
			s->depth = get32(d, 20);
			s->headdrop = get32(d, 24);
			s->red_limit = get32(d, 28);
			s->qth_min = get32(d, 32);
			s->qth_max = get32(d, 36);
			s->wlog = b[40];
			s->plog = b[41];
			s->scell_log = b[42];
			s->flags = b[43];
			s->max_p = get32(d, 44);
		}
	} else if (nl_is_kind(kind, "htb")) {
		int ret = nl_htb_qdisc_parse(&q, nlh, o, wh, err, errlen);

		if (ret)
			return ret;
	} else if (nl_is_kind(kind, "tbf")) {
		int ret = nl_tbf_parse(&q, nlh, o, wh, err, errlen);

		if (ret)
			return ret;
	} else if (nl_is_kind(kind, "codel")) {
		int ret = nl_codel_parse(&q, o, wh, err, errlen);

		if (ret)
			return ret;
	} else if (nl_is_kind(kind, "fq_codel")) {
		int ret = nl_fq_codel_parse(&q, nlh, o, wh, err, errlen);

		if (ret)
			return ret;
	} else if (nl_is_kind(kind, "netem")) {
		int ret = nl_netem_parse(&q, nlh, o, wh, err, errlen);

		if (ret)
			return ret;
	}
	v = grow(m->qdiscs, &m->qcap, m->nqdiscs, sizeof(q));
	if (!v)
		return nl_failf(err, errlen, -ENOMEM, "out of memory");
	m->qdiscs = v;
	m->qdiscs[m->nqdiscs++] = q;
	return 0;
}

static int parse_class(struct nl_import_model *m, const struct nlmsghdr *nlh, const struct tcmsg *t,
		       struct nlattr **tb, const char *kind, char *err, size_t errlen)
{
	struct nli_class c = {0};
	char id[32], pw[48], wh[160];
	void *v;

	snprintf(c.kind, sizeof(c.kind), "%s", kind);
	c.classid = t->tcm_handle;
	c.parent = t->tcm_parent;
	c.leaf = t->tcm_info;
	c.has_options = tb[A_OPTIONS] != NULL;
	if (nl_is_kind(kind, "htb")) {
		int ret;

		snprintf(wh, sizeof(wh), "class htb %s %s", nl_classid(id, sizeof(id), c.classid),
			 nl_where_str(pw, sizeof(pw), c.parent));
		ret = nl_htb_class_parse(&c, nlh, tb[A_OPTIONS], wh, err, errlen);
		if (ret)
			return ret;
	}
	v = grow(m->classes, &m->ccap, m->nclasses, sizeof(c));
	if (!v)
		return nl_failf(err, errlen, -ENOMEM, "out of memory");
	m->classes = v;
	m->classes[m->nclasses++] = c;
	return 0;
}

void nl_why_add(struct nli_filter *f, const char *text)
{
	size_t n = strlen(f->why);

	snprintf(f->why + n, sizeof(f->why) - n, "%s%s", n ? "; " : "", text);
}

/* A bpf filter's TCA_OPTIONS: the classic program and its classid, and
 * the reasons tcsim could not run it. */
static int parse_bpf(struct nli_filter *f, struct nlattr *opts, const char *wh, char *err,
		     size_t errlen)
{
	struct nlattr *tb[B_MAX + 1] = {0};
	struct nlattr *a;
	int rem;
	char text[128];

	if (!nl_attrs_whole(nla_data(opts), nla_len(opts)))
		return nl_failf(err, errlen, -EPROTO, "%s: truncated attribute in TCA_OPTIONS", wh);
	nla_for_each_nested(a, opts, rem) {
		int type = nla_type(a);

		if (type < 1 || type > B_MAX)
			return nl_failf(err, errlen, -EPROTO,
					"%s: unknown attribute %d in the bpf options (TCA_BPF_*): "
					"a newer kernel? tcsim cannot tell what it means",
					wh, type);
		tb[type] = a;
	}
	if (tb[B_CLASSID]) {
		if (nla_len(tb[B_CLASSID]) < 4)
			return nl_failf(err, errlen, -EPROTO, "%s: TCA_BPF_CLASSID of %d bytes", wh,
					nla_len(tb[B_CLASSID]));
		f->classid = nla_get_u32(tb[B_CLASSID]);
	}
	if (tb[B_FLAGS]) {
		if (nla_len(tb[B_FLAGS]) < 4)
			return nl_failf(err, errlen, -EPROTO, "%s: TCA_BPF_FLAGS of %d bytes", wh,
					nla_len(tb[B_FLAGS]));
		f->flags = nla_get_u32(tb[B_FLAGS]);
	}
	if (tb[B_FLAGS_GEN]) {
		if (nla_len(tb[B_FLAGS_GEN]) < 4)
			return nl_failf(err, errlen, -EPROTO, "%s: TCA_BPF_FLAGS_GEN of %d bytes",
					wh, nla_len(tb[B_FLAGS_GEN]));
		f->gen_flags = nla_get_u32(tb[B_FLAGS_GEN]);
	}
	if (!!tb[B_OPS_LEN] != !!tb[B_OPS])
		return nl_failf(err, errlen, -EPROTO, "%s: %s without %s", wh,
				tb[B_OPS] ? "TCA_BPF_OPS" : "TCA_BPF_OPS_LEN",
				tb[B_OPS] ? "TCA_BPF_OPS_LEN" : "TCA_BPF_OPS");
	if (tb[B_OPS]) {
		uint16_t n;
		const uint8_t *p;

		if (nla_len(tb[B_OPS_LEN]) < 2)
			return nl_failf(err, errlen, -EPROTO, "%s: TCA_BPF_OPS_LEN of %d bytes", wh,
					nla_len(tb[B_OPS_LEN]));
		n = nla_get_u16(tb[B_OPS_LEN]);
		if (n == 0 || (size_t)nla_len(tb[B_OPS]) != (size_t)n * 8)
			return nl_failf(
			    err, errlen, -EPROTO,
			    "%s: TCA_BPF_OPS_LEN says %u instructions but TCA_BPF_OPS holds "
			    "%d bytes (%u expected)",
			    wh, n, nla_len(tb[B_OPS]), n * 8u);
		f->ops = calloc(n, sizeof(*f->ops));
		if (!f->ops)
			return nl_failf(err, errlen, -ENOMEM, "out of memory");
		p = nla_data(tb[B_OPS]);
		for (uint16_t i = 0; i < n; i++) { /* struct sock_filter, host order */
			memcpy(&f->ops[i].code, p + 8 * i, 2);
			f->ops[i].jt = p[8 * i + 2];
			f->ops[i].jf = p[8 * i + 3];
			memcpy(&f->ops[i].k, p + 8 * i + 4, 4);
		}
		f->nops = n;
	}
	if (tb[B_FD] || tb[B_ID] || tb[B_NAME] || tb[B_TAG]) {
		char name[64] = "";

		if (tb[B_NAME] && nla_len(tb[B_NAME]) > 0)
			snprintf(name, sizeof(name), " \"%.*s\"",
				 (int)strnlen(nla_data(tb[B_NAME]), (size_t)nla_len(tb[B_NAME])),
				 (const char *)nla_data(tb[B_NAME]));
		if (tb[B_ID] && nla_len(tb[B_ID]) >= 4)
			snprintf(text, sizeof(text), "an eBPF program%s (id %u): tcsim runs classic BPF",
				 name, nla_get_u32(tb[B_ID]));
		else
			snprintf(text, sizeof(text), "an eBPF program%s: tcsim runs classic BPF",
				 name);
		nl_why_add(f, text);
	} else if (!tb[B_OPS]) {
		return nl_failf(err, errlen, -EPROTO,
				"%s: no program (neither TCA_BPF_OPS nor an eBPF id)", wh);
	}
	if (f->flags & BPF_FLAG_ACT_DIRECT)
		nl_why_add(f, "direct-action (tcsim's cls_bpf runs in classid mode only)");
	if (f->flags & ~BPF_FLAG_ACT_DIRECT) {
		snprintf(text, sizeof(text), "TCA_BPF_FLAGS 0x%x", f->flags & ~BPF_FLAG_ACT_DIRECT);
		nl_why_add(f, text);
	}
	if (f->gen_flags & CLS_FLAGS_SKIP_SW)
		nl_why_add(f, "skip_sw (the program runs in hardware only)");
	if (tb[B_ACT])
		nl_why_add(f, "actions (tcsim models no tc actions)");
	if (tb[B_POLICE])
		nl_why_add(f, "police (tcsim models no policing)");
	return 0;
}

static int parse_filter(struct nl_import_model *m, const struct tcmsg *t, struct nlattr **tb,
			const char *kind, char *err, size_t errlen)
{
	struct nli_filter f = {0};
	char id[32], proto[24], wh[192];
	void *v;
	int ret;

	snprintf(f.kind, sizeof(f.kind), "%s", kind);
	f.parent = t->tcm_parent;
	f.handle = t->tcm_handle;
	f.pref = TC_H_MAJ(t->tcm_info) >> 16;
	f.protocol = ntohs((uint16_t)TC_H_MIN(t->tcm_info));
	f.has_options = tb[A_OPTIONS] != NULL;
	f.seq = m->nfilters;
	if (tb[A_CHAIN]) {
		if (nla_len(tb[A_CHAIN]) < 4)
			return nl_failf(err, errlen, -EPROTO, "filter: TCA_CHAIN of %d bytes",
					nla_len(tb[A_CHAIN]));
		f.chain = nla_get_u32(tb[A_CHAIN]);
	}
	tc_print_protocol(proto, sizeof(proto), f.protocol);
	snprintf(wh, sizeof(wh), "filter parent %s protocol %s pref %u %s handle 0x%x",
		 nl_classid(id, sizeof(id), f.parent), proto, f.pref, kind, f.handle);
	if (nl_is_kind(kind, "bpf")) {
		if (tb[A_OPTIONS]) {
			ret = parse_bpf(&f, tb[A_OPTIONS], wh, err, errlen);
			if (ret) {
				free(f.ops);
				return ret;
			}
		} else if (f.handle) {
			return nl_failf(err, errlen, -EPROTO, "%s: no TCA_OPTIONS", wh);
		}
	} else if (nl_is_kind(kind, "matchall")) {
		/* mall_dump always nests its options under an element */
		if (tb[A_OPTIONS]) {
			ret = nl_matchall_parse(&f, tb[A_OPTIONS], wh, err, errlen);
			if (ret)
				return ret;
		} else if (f.handle) {
			return nl_failf(err, errlen, -EPROTO, "%s: no TCA_OPTIONS", wh);
		}
	} else if (nl_is_kind(kind, "fw")) {
		/* an fw filter without classid and actions has no options */
		f.mask = 0xffffffffu;
		if (tb[A_OPTIONS]) {
			ret = nl_fw_parse(&f, tb[A_OPTIONS], wh, err, errlen);
			if (ret)
				return ret;
		}
	} else if (nl_is_kind(kind, "u32") || nl_is_kind(kind, "flower")) {
		if ((ret = nl_cls_parse(&f, tb[A_OPTIONS], wh, err, errlen))) {
			nl_cls_free(&f);
			return ret;
		}
	}
	v = grow(m->filters, &m->fcap, m->nfilters, sizeof(f));
	if (!v) {
		free(f.ops);
		nl_cls_free(&f);
		return nl_failf(err, errlen, -ENOMEM, "out of memory");
	}
	m->filters = v;
	m->filters[m->nfilters++] = f;
	return 0;
}

int nl_import_parse(struct nl_import_model *m, const struct nlmsghdr *nlh, char *err,
		    size_t errlen)
{
	struct nlattr *tb[A_MAX + 1] = {0};
	const struct tcmsg *t;
	struct nlattr *head, *a;
	int type = nlh->nlmsg_type, len, rem;
	const char *what = msg_what(type);
	char kind[NLI_KINDLEN];

	if (type != RTM_NEWQDISC && type != RTM_NEWTCLASS && type != RTM_NEWTFILTER)
		return 1;
	if (nlh->nlmsg_len < NLMSG_HDRLEN || !nlmsg_valid_hdr(nlh, sizeof(struct tcmsg)))
		return nl_failf(err, errlen, -EPROTO,
				"%s message of %u bytes: too short for a tcmsg", what,
				nlh->nlmsg_len);
	t = nlmsg_data(nlh);
	if (m->ifindex && t->tcm_ifindex != m->ifindex)
		return 1;
	head = nlmsg_attrdata(nlh, sizeof(*t));
	len = nlmsg_attrlen(nlh, sizeof(*t));
	if (!nl_attrs_whole(head, len))
		return nl_failf(err, errlen, -EPROTO, "%s %x:%x: truncated attribute", what,
				t->tcm_handle >> 16, t->tcm_handle & 0xffff);
	nla_for_each_attr(a, head, len, rem) {
		int at = nla_type(a);

		if (at < 1 || at > A_MAX)
			return nl_failf(
			    err, errlen, -EPROTO,
			    "%s %x:%x: unknown attribute %d (TCA_*): a newer kernel? tcsim "
			    "cannot tell what it means",
			    what, t->tcm_handle >> 16, t->tcm_handle & 0xffff, at);
		tb[at] = a;
	}
	if (!tb[A_KIND])
		return nl_failf(err, errlen, -EPROTO, "%s %x:%x: no TCA_KIND", what,
				t->tcm_handle >> 16, t->tcm_handle & 0xffff);
	len = nla_len(tb[A_KIND]);
	if (len < 2 || len > NLI_KINDLEN || ((const char *)nla_data(tb[A_KIND]))[len - 1] ||
	    strlen(nla_data(tb[A_KIND])) != (size_t)len - 1)
		return nl_failf(err, errlen, -EPROTO, "%s %x:%x: TCA_KIND is not a kind name", what,
				t->tcm_handle >> 16, t->tcm_handle & 0xffff);
	memcpy(kind, nla_data(tb[A_KIND]), (size_t)len);
	for (const char *p = kind; *p; p++)
		if (*p <= ' ' || *p > '~' || *p == '\'' || *p == '"' || *p == '\\' || *p == '#')
			return nl_failf(err, errlen, -EPROTO,
					"%s %x:%x: TCA_KIND is not a kind name", what,
					t->tcm_handle >> 16, t->tcm_handle & 0xffff);
	if (type == RTM_NEWQDISC)
		return parse_qdisc(m, nlh, t, tb, kind, err, errlen);
	if (type == RTM_NEWTCLASS)
		return parse_class(m, nlh, t, tb, kind, err, errlen);
	return parse_filter(m, t, tb, kind, err, errlen);
}

/* ---- talking to the kernel ---- */

struct dump_ctx {
	struct nl_import_model *m;
	char *err;
	size_t errlen;
	int failed;
};

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct dump_ctx *c = arg;
	int ret = nl_import_parse(c->m, nlmsg_hdr(msg), c->err, c->errlen);

	if (ret < 0) {
		c->failed = ret;
		return NL_STOP;
	}
	return NL_OK;
}

static int dump(struct nl_sock *sk, int type, int ifindex, uint32_t parent, struct dump_ctx *c,
		const char *what)
{
	struct tcmsg t;
	int ret;

	memset(&t, 0, sizeof(t));
	t.tcm_family = AF_UNSPEC;
	t.tcm_ifindex = ifindex;
	t.tcm_parent = parent;
	ret = nl_send_simple(sk, type, NLM_F_DUMP, &t, sizeof(t));
	if (ret < 0)
		return nl_failf(c->err, c->errlen, -EIO, "sending the %s dump request: %s", what,
				nl_geterror(ret));
	ret = nl_recvmsgs_default(sk);
	if (c->failed)
		return c->failed;
	if (ret == -NLE_DUMP_INTR)
		return nl_failf(
		    c->err, c->errlen, -EAGAIN,
		    "the %s dump was interrupted (the configuration changed): run again", what);
	if (ret < 0)
		return nl_failf(c->err, c->errlen, -EIO, "the %s dump failed: %s", what,
				nl_geterror(ret));
	return 0;
}

/* A route socket in the namespace /run/netns/NAME (or the current one). */
static int open_socket(const char *netns, struct nl_sock **out, char *err, size_t errlen)
{
	struct nl_sock *sk = NULL;
	int self = -1, target = -1, ret = 0;
	char path[300];

	*out = NULL;
	if (netns) {
		if (!*netns || strchr(netns, '/') || !strcmp(netns, ".") || !strcmp(netns, ".."))
			return nl_failf(err, errlen, -EINVAL,
					"\"%s\" is not a network namespace name", netns);
		snprintf(path, sizeof(path), "/run/netns/%s", netns);
		target = open(path, O_RDONLY | O_CLOEXEC);
		if (target < 0)
			return nl_failf(err, errlen, -errno,
					errno == ENOENT
					    ? "network namespace \"%s\" not found (%s: %s)"
					    : "network namespace \"%s\": %s: %s",
					netns, path, strerror(errno));
		self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		if (self < 0) {
			ret =
			    nl_failf(err, errlen, -errno, "/proc/self/ns/net: %s", strerror(errno));
			goto out;
		}
		if (setns(target, CLONE_NEWNET)) {
			int e = errno;

			ret =
			    nl_failf(err, errlen, -e, "cannot enter network namespace \"%s\": %s%s",
				     netns, strerror(e),
				     e == EPERM	   ? " (entering a namespace needs CAP_SYS_ADMIN)"
				     : e == EINVAL ? " (not a network namespace)"
						   : "");
			goto out;
		}
	}
	sk = nl_socket_alloc();
	if (!sk)
		ret = nl_failf(err, errlen, -ENOMEM, "out of memory");
	else if ((ret = nl_connect(sk, NETLINK_ROUTE)) < 0)
		ret = nl_failf(err, errlen, -EIO, "cannot open a netlink socket: %s",
			       nl_geterror(ret));
	if (netns && setns(self, CLONE_NEWNET)) {
		/* never go on in the wrong namespace */
		fprintf(stderr, "tcsim import: cannot return to the original network namespace: %s\n",
			strerror(errno));
		exit(1);
	}
out:
	if (self >= 0)
		close(self);
	if (target >= 0)
		close(target);
	if (ret) {
		if (sk)
			nl_socket_free(sk);
		return ret;
	}
	*out = sk;
	return 0;
}

/* The kinds whose classes carry filter blocks of their own (prio's and
 * sfq's classes have none; sfq's are its busy buckets, fq_codel's its busy
 * flows, and fq_codel_tcf_block gives a block for the qdisc only). */
static int class_has_block(const char *kind)
{
	return !nl_is_kind(kind, "prio") && !nl_is_kind(kind, "sfq") &&
	       !nl_is_kind(kind, "fq_codel") && !nl_is_kind(kind, "mq") &&
	       !nl_is_kind(kind, "mqprio") && !nl_is_kind(kind, "multiq") &&
	       !nl_is_kind(kind, "taprio") && !nl_is_kind(kind, "ingress") &&
	       !nl_is_kind(kind, "clsact");
}

int nl_import_dump(struct nl_import_model *m, const char *dev, const char *netns, char *err,
		   size_t errlen)
{
	struct dump_ctx c = {.m = m, .err = err, .errlen = errlen};
	struct rtnl_link *link = NULL;
	struct nl_sock *sk;
	size_t nq, nc;
	int ret, ifindex;

	if (!dev || !*dev || strlen(dev) >= NLI_DEVLEN)
		return nl_failf(err, errlen, -EINVAL, "\"%s\" is not a device name",
				dev ? dev : "");
	ret = open_socket(netns, &sk, err, errlen);
	if (ret)
		return ret;
	ret = rtnl_link_get_kernel(sk, 0, dev, &link);
	if (ret < 0) {
		ret = nl_failf(err, errlen, -ENODEV, "no device \"%s\"%s%s%s (%s)", dev,
			       netns ? " in network namespace \"" : "", netns ? netns : "",
			       netns ? "\"" : "", nl_geterror(ret));
		goto out;
	}
	ifindex = rtnl_link_get_ifindex(link);
	nl_import_model_init(m, dev, ifindex);
	m->has_link = 1;
	m->mtu = rtnl_link_get_mtu(link);
	m->txqueuelen = rtnl_link_get_txqlen(link);
	rtnl_link_put(link);
	c.m = m;
	ret = nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &c);
	if (ret < 0) {
		ret = nl_failf(err, errlen, -EIO, "libnl: %s", nl_geterror(ret));
		goto out;
	}
	if ((ret = dump(sk, RTM_GETQDISC, ifindex, 0, &c, "qdisc")) ||
	    (ret = dump(sk, RTM_GETTCLASS, ifindex, 0, &c, "class")))
		goto out;
	/* filters: the block of every qdisc, and of every class that has one */
	nq = m->nqdiscs;
	nc = m->nclasses;
	for (size_t i = 0; i < nq && !ret; i++) {
		const struct nli_qdisc *q = &m->qdiscs[i];
		uint32_t h = q->handle;

		if (!h)
			continue;
		if (nl_is_kind(q->kind, "clsact")) {
			ret = dump(sk, RTM_GETTFILTER, ifindex, TC_H_MAKE(h, NLI_H_MIN_INGRESS), &c,
				   "filter");
			if (!ret)
				ret = dump(sk, RTM_GETTFILTER, ifindex,
					   TC_H_MAKE(h, NLI_H_MIN_EGRESS), &c, "filter");
		} else {
			ret = dump(sk, RTM_GETTFILTER, ifindex, h, &c, "filter");
		}
	}
	for (size_t i = 0; i < nc && !ret; i++)
		if (class_has_block(m->classes[i].kind) && TC_H_MIN(m->classes[i].classid))
			ret = dump(sk, RTM_GETTFILTER, ifindex, m->classes[i].classid, &c, "filter");
out:
	nl_socket_free(sk);
	return ret;
}
