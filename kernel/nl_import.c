/* nl_import.c - `tcsim import dev DEV [--netns NAME] [--filters-only]`:
 * the traffic control of a live device, read from the kernel over
 * rtnetlink with libnl-3 (no `tc` is run), written as a Lua scenario that
 * rebuilds it in tcsim.
 *
 * What is read. The link (libnl-route's rtnl_link: ifindex, mtu,
 * txqueuelen), then three kinds of dumps sent with libnl-3's core
 * (nl_send_simple, nl_recvmsgs with a callback) and parsed with its
 * attribute API: RTM_GETQDISC, RTM_GETTCLASS, and RTM_GETTFILTER once per
 * qdisc (its own block) and per class of the kinds whose classes carry
 * blocks (htb, drr, ...; not prio or sfq, whose classes have none), and for
 * ingress/clsact their blocks. libnl-route has no cls_bpf, so every dump
 * is parsed here. A dump needs no privilege; --netns enters
 * /run/netns/NAME only around the socket's creation (a netlink socket
 * belongs to the namespace it was created in), which needs CAP_SYS_ADMIN.
 *
 * What is written (stdout, only when everything was read and understood):
 *   -- header comments: the device, the kernel release, the namespace,
 *      and the list of what the scenario leaves out (no date: the output
 *      of one configuration is always the same text)
 *   local sim = tcsim.sim{}
 *   local eth0 = sim:dev("eth0", { rate = "10mbit", mtu = M, txqueuelen = T })
 *   eth0:tc[[
 *     qdisc add dev eth0 root handle 1: prio bands 3 priomap ...
 *     qdisc add dev eth0 parent 1:1 handle 10: sfq limit ... (every value)
 *     filter add dev eth0 parent 1: pref 1 protocol ip handle 0x1 bpf bytecode '...' flowid 1:1
 *   ]]
 *   -- sim:replay("CAPTURE.pcap") / sim:run() / sim:report(), commented
 * Qdiscs come parent before child (depth first, children by class), every
 * option the kernel dumps spelled out (prio: bands and priomap; pfifo and
 * bfifo: limit; sfq: limit, quantum, depth, flows, divisor, perturb,
 * headdrop). Filters come per qdisc, in pref order, each with explicit
 * pref, protocol and handle; the programs of one pref are written oldest
 * first, so that tcsim's list (newest first, as cls_bpf's) and therefore
 * the order they are tried in is the kernel's. classid 0 gives no flowid.
 * The kernel reports no line rate: `rate` is tcsim's default, to be set.
 *
 * What tcsim does not model is never dropped silently: each thing left out
 * is a `# ...` comment at its place in the tc script, a line of the header,
 * and one line on stderr ("tcsim import: DEV: not modelled: qdisc htb 1:
 * root"); the exit status is then 3 instead of 0. The choices:
 *  - A configured root tcsim does not model (htb, tbf, fq_codel, ...): no
 *    faithful scenario exists, and a scenario that silently ran something
 *    else would mislead, so the scenario starts with error("...") naming
 *    the root and --filters-only; the tree and the filters follow as
 *    comments (with the tc lines of the parts tcsim could run).
 *  - --filters-only: classification only. The root's bpf filters under a
 *    prio root with the real root's handle (so flowids and `parent` read
 *    the same); a prio root is kept as it is, another kind is replaced by
 *    `prio bands N` (N: the highest flowid minor, 3..16). This is how an
 *    htb's filter chain is tried in tcsim; the rest of the tree is listed
 *    as left out.
 *  - A default root (handle 0: noqueue on virtual devices, mq on
 *    multi-queue NICs, pfifo_fast or the default_qdisc sysctl's kind):
 *    tcsim's devices start with pfifo_fast, so pfifo_fast 0: needs no
 *    line; any other default is listed as not modelled and the scenario
 *    keeps pfifo_fast (it stays runnable).
 *  - A qdisc tcsim does not model below a modelled one (tbf under prio):
 *    left out, so the band keeps tcsim's default pfifo; whatever hangs
 *    below it is listed too. prio's own default children (handle 0) need
 *    no line.
 *  - sfq with RED (qth_min set): not modelled (RED drops at random); RED
 *    flags without RED do nothing and are only commented.
 *  - bpf programs tcsim cannot run (direct-action, actions or police,
 *    eBPF, skip_sw) and filters of other kinds (u32, flower, matchall,
 *    ...), chains other than 0, filters on classes: listed, not written.
 *  - A size table (stab) on a modelled qdisc: the qdisc is written, the
 *    table listed as not modelled.
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
#include <sys/utsname.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>

#include "bpf_load.h"
#include "cls.h"
#include "nl_import.h"

/* ---- the kernel's ABI ---- */

#define NLI_H_INGRESS 0xfffffff1u /* TC_H_INGRESS, also clsact's parent */
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
#define CLS_FLAGS_SKIP_HW 0x1u
#define CLS_FLAGS_SKIP_SW 0x2u
#define CLS_FLAGS_IN_HW 0x4u
#define CLS_FLAGS_NOT_IN_HW 0x8u
#define CLS_FLAGS_VERBOSE 0x10u

#define PRIO_QOPT_SIZE 20 /* struct tc_prio_qopt: int bands; __u8 priomap[16]; (padded) */
#define FIFO_QOPT_SIZE 4  /* struct tc_fifo_qopt: __u32 limit */
#define SFQ_V0_SIZE 20	  /* struct tc_sfq_qopt */
#define SFQ_V1_SIZE 72	  /* struct tc_sfq_qopt_v1: v0, 5 u32, 4 u8, max_P, 6 u32 stats */

static const uint8_t prio_default_map[16] = {1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1};

/* ---- small helpers ---- */

static int failf(char *err, size_t errlen, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int failf(char *err, size_t errlen, int code, const char *fmt, ...)
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

static const char *classid(char *buf, size_t n, uint32_t h)
{
	tc_print_classid(buf, n, h);
	return buf;
}

/* A qdisc handle as tc prints one: "1:", "0:". */
static const char *qhandle(char *buf, size_t n, uint32_t h)
{
	if (TC_H_MIN(h))
		snprintf(buf, n, "%x:%x", h >> 16, TC_H_MIN(h));
	else
		snprintf(buf, n, "%x:", h >> 16);
	return buf;
}

/* "root", "parent 1:2", "ingress" as tc names where a qdisc hangs. */
static const char *where_str(char *buf, size_t n, uint32_t parent)
{
	char id[32];

	if (parent == TC_H_ROOT)
		snprintf(buf, n, "root");
	else if (parent == NLI_H_INGRESS)
		snprintf(buf, n, "parent ffff:fff1");
	else
		snprintf(buf, n, "parent %s", classid(id, sizeof(id), parent));
	return buf;
}

/* Attributes laid end to end in len bytes: every one whole (a last one
 * without its padding is accepted). */
static int attrs_whole(const struct nlattr *head, int len)
{
	const struct nlattr *a;
	int rem;

	nla_for_each_attr(a, head, len, rem)
		;
	return rem <= 0 && rem > -NLA_ALIGNTO;
}

static int is_kind(const char *k, const char *a)
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
	for (size_t i = 0; i < m->nfilters; i++)
		free(m->filters[i].ops);
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

static int parse_qdisc(struct nl_import_model *m, const struct tcmsg *t, struct nlattr **tb,
		       const char *kind, char *err, size_t errlen)
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
	snprintf(wh, sizeof(wh), "qdisc %s %s %s", kind, qhandle(id, sizeof(id), q.handle),
		 where_str(pw, sizeof(pw), q.parent));
	if (is_kind(kind, "prio") || is_kind(kind, "pfifo_fast")) {
		if (!o || olen < PRIO_QOPT_SIZE)
			return failf(err, errlen, -EPROTO,
				     "%s: TCA_OPTIONS of %d bytes, not a struct tc_prio_qopt (%d)", wh,
				     olen, PRIO_QOPT_SIZE);
		q.bands = (int)get32(d, 0);
		memcpy(q.priomap, (const char *)d + 4, 16);
		if (q.bands < 2 || q.bands > 16)
			return failf(err, errlen, -EPROTO, "%s: bands %d (not 2..16)", wh, q.bands);
		for (int i = 0; i < 16; i++)
			if (q.priomap[i] >= q.bands)
				return failf(err, errlen, -EPROTO,
					     "%s: priomap entry %d is band %u of %d", wh, i,
					     q.priomap[i], q.bands);
	} else if (is_kind(kind, "pfifo") || is_kind(kind, "bfifo")) {
		if (!o || olen < FIFO_QOPT_SIZE)
			return failf(err, errlen, -EPROTO,
				     "%s: TCA_OPTIONS of %d bytes, not a struct tc_fifo_qopt (%d)", wh,
				     olen, FIFO_QOPT_SIZE);
		q.limit = get32(d, 0);
	} else if (is_kind(kind, "sfq")) {
		struct nli_sfq *s = &q.sfq;

		if (!o || olen < SFQ_V0_SIZE)
			return failf(err, errlen, -EPROTO,
				     "%s: TCA_OPTIONS of %d bytes, not a struct tc_sfq_qopt (%d)", wh,
				     olen, SFQ_V0_SIZE);
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
	}
	v = grow(m->qdiscs, &m->qcap, m->nqdiscs, sizeof(q));
	if (!v)
		return failf(err, errlen, -ENOMEM, "out of memory");
	m->qdiscs = v;
	m->qdiscs[m->nqdiscs++] = q;
	return 0;
}

static int parse_class(struct nl_import_model *m, const struct tcmsg *t, const char *kind,
		       char *err, size_t errlen)
{
	struct nli_class c = {0};
	void *v;

	snprintf(c.kind, sizeof(c.kind), "%s", kind);
	c.classid = t->tcm_handle;
	c.parent = t->tcm_parent;
	c.leaf = t->tcm_info;
	v = grow(m->classes, &m->ccap, m->nclasses, sizeof(c));
	if (!v)
		return failf(err, errlen, -ENOMEM, "out of memory");
	m->classes = v;
	m->classes[m->nclasses++] = c;
	return 0;
}

static void why_add(struct nli_filter *f, const char *text)
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

	if (!attrs_whole(nla_data(opts), nla_len(opts)))
		return failf(err, errlen, -EPROTO, "%s: truncated attribute in TCA_OPTIONS", wh);
	nla_for_each_nested(a, opts, rem) {
		int type = nla_type(a);

		if (type < 1 || type > B_MAX)
			return failf(err, errlen, -EPROTO,
				     "%s: unknown attribute %d in the bpf options (TCA_BPF_*): "
				     "a newer kernel? tcsim cannot tell what it means",
				     wh, type);
		tb[type] = a;
	}
	if (tb[B_CLASSID]) {
		if (nla_len(tb[B_CLASSID]) < 4)
			return failf(err, errlen, -EPROTO, "%s: TCA_BPF_CLASSID of %d bytes", wh,
				     nla_len(tb[B_CLASSID]));
		f->classid = nla_get_u32(tb[B_CLASSID]);
	}
	if (tb[B_FLAGS]) {
		if (nla_len(tb[B_FLAGS]) < 4)
			return failf(err, errlen, -EPROTO, "%s: TCA_BPF_FLAGS of %d bytes", wh,
				     nla_len(tb[B_FLAGS]));
		f->flags = nla_get_u32(tb[B_FLAGS]);
	}
	if (tb[B_FLAGS_GEN]) {
		if (nla_len(tb[B_FLAGS_GEN]) < 4)
			return failf(err, errlen, -EPROTO, "%s: TCA_BPF_FLAGS_GEN of %d bytes", wh,
				     nla_len(tb[B_FLAGS_GEN]));
		f->gen_flags = nla_get_u32(tb[B_FLAGS_GEN]);
	}
	if (!!tb[B_OPS_LEN] != !!tb[B_OPS])
		return failf(err, errlen, -EPROTO, "%s: %s without %s", wh,
			     tb[B_OPS] ? "TCA_BPF_OPS" : "TCA_BPF_OPS_LEN",
			     tb[B_OPS] ? "TCA_BPF_OPS_LEN" : "TCA_BPF_OPS");
	if (tb[B_OPS]) {
		uint16_t n;
		const uint8_t *p;

		if (nla_len(tb[B_OPS_LEN]) < 2)
			return failf(err, errlen, -EPROTO, "%s: TCA_BPF_OPS_LEN of %d bytes", wh,
				     nla_len(tb[B_OPS_LEN]));
		n = nla_get_u16(tb[B_OPS_LEN]);
		if (n == 0 || (size_t)nla_len(tb[B_OPS]) != (size_t)n * 8)
			return failf(err, errlen, -EPROTO,
				     "%s: TCA_BPF_OPS_LEN says %u instructions but TCA_BPF_OPS holds "
				     "%d bytes (%u expected)",
				     wh, n, nla_len(tb[B_OPS]), n * 8u);
		f->ops = calloc(n, sizeof(*f->ops));
		if (!f->ops)
			return failf(err, errlen, -ENOMEM, "out of memory");
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
		why_add(f, text);
	} else if (!tb[B_OPS]) {
		return failf(err, errlen, -EPROTO, "%s: no program (neither TCA_BPF_OPS nor an eBPF id)",
			     wh);
	}
	if (f->flags & BPF_FLAG_ACT_DIRECT)
		why_add(f, "direct-action (tcsim's cls_bpf runs in classid mode only)");
	if (f->flags & ~BPF_FLAG_ACT_DIRECT) {
		snprintf(text, sizeof(text), "TCA_BPF_FLAGS 0x%x", f->flags & ~BPF_FLAG_ACT_DIRECT);
		why_add(f, text);
	}
	if (f->gen_flags & CLS_FLAGS_SKIP_SW)
		why_add(f, "skip_sw (the program runs in hardware only)");
	if (tb[B_ACT])
		why_add(f, "actions (tcsim models no tc actions)");
	if (tb[B_POLICE])
		why_add(f, "police (tcsim models no policing)");
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
			return failf(err, errlen, -EPROTO, "filter: TCA_CHAIN of %d bytes",
				     nla_len(tb[A_CHAIN]));
		f.chain = nla_get_u32(tb[A_CHAIN]);
	}
	tc_print_protocol(proto, sizeof(proto), f.protocol);
	snprintf(wh, sizeof(wh), "filter parent %s protocol %s pref %u %s handle 0x%x",
		 classid(id, sizeof(id), f.parent), proto, f.pref, kind, f.handle);
	if (is_kind(kind, "bpf")) {
		if (tb[A_OPTIONS]) {
			ret = parse_bpf(&f, tb[A_OPTIONS], wh, err, errlen);
			if (ret) {
				free(f.ops);
				return ret;
			}
		} else if (f.handle) {
			return failf(err, errlen, -EPROTO, "%s: no TCA_OPTIONS", wh);
		}
	}
	v = grow(m->filters, &m->fcap, m->nfilters, sizeof(f));
	if (!v) {
		free(f.ops);
		return failf(err, errlen, -ENOMEM, "out of memory");
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
		return failf(err, errlen, -EPROTO, "%s message of %u bytes: too short for a tcmsg",
			     what, nlh->nlmsg_len);
	t = nlmsg_data(nlh);
	if (m->ifindex && t->tcm_ifindex != m->ifindex)
		return 1;
	head = nlmsg_attrdata(nlh, sizeof(*t));
	len = nlmsg_attrlen(nlh, sizeof(*t));
	if (!attrs_whole(head, len))
		return failf(err, errlen, -EPROTO, "%s %x:%x: truncated attribute", what,
			     t->tcm_handle >> 16, t->tcm_handle & 0xffff);
	nla_for_each_attr(a, head, len, rem) {
		int at = nla_type(a);

		if (at < 1 || at > A_MAX)
			return failf(err, errlen, -EPROTO,
				     "%s %x:%x: unknown attribute %d (TCA_*): a newer kernel? tcsim "
				     "cannot tell what it means",
				     what, t->tcm_handle >> 16, t->tcm_handle & 0xffff, at);
		tb[at] = a;
	}
	if (!tb[A_KIND])
		return failf(err, errlen, -EPROTO, "%s %x:%x: no TCA_KIND", what,
			     t->tcm_handle >> 16, t->tcm_handle & 0xffff);
	len = nla_len(tb[A_KIND]);
	if (len < 2 || len > NLI_KINDLEN || ((const char *)nla_data(tb[A_KIND]))[len - 1] ||
	    strlen(nla_data(tb[A_KIND])) != (size_t)len - 1)
		return failf(err, errlen, -EPROTO, "%s %x:%x: TCA_KIND is not a kind name", what,
			     t->tcm_handle >> 16, t->tcm_handle & 0xffff);
	memcpy(kind, nla_data(tb[A_KIND]), (size_t)len);
	for (const char *p = kind; *p; p++)
		if (*p <= ' ' || *p > '~' || *p == '\'' || *p == '"' || *p == '\\' || *p == '#')
			return failf(err, errlen, -EPROTO, "%s %x:%x: TCA_KIND is not a kind name",
				     what, t->tcm_handle >> 16, t->tcm_handle & 0xffff);
	if (type == RTM_NEWQDISC)
		return parse_qdisc(m, t, tb, kind, err, errlen);
	if (type == RTM_NEWTCLASS)
		return parse_class(m, t, kind, err, errlen);
	return parse_filter(m, t, tb, kind, err, errlen);
}

/* ---- writing the scenario ---- */

struct writer {
	const struct nl_import_model *m;
	const struct nl_import_opts *o;
	FILE *tc;      /* the tc script's lines */
	FILE *omit;    /* one line per omission */
	int nomit;
	char devq[48]; /* the device as a tc word */
	char *done;    /* qdiscs written or listed */
	char *fdone;   /* filters written or listed */
	size_t *order; /* qdiscs in the order written (tree order) */
	size_t norder;
};

static void omit(struct writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Something left out: a comment at its place and a line of the list. */
static void omit(struct writer *w, const char *fmt, ...)
{
	char line[640];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(w->tc, "  # %s\n", line);
	fprintf(w->omit, "%s\n", line);
	w->nomit++;
}

static int modelled_kind(const char *k)
{
	return is_kind(k, "prio") || is_kind(k, "sfq") || is_kind(k, "pfifo") ||
	       is_kind(k, "bfifo") || is_kind(k, "pfifo_fast");
}

/* Why a qdisc of a modelled kind cannot be written anyway, or NULL. */
static const char *qdisc_problem(const struct nli_qdisc *q)
{
	if (is_kind(q->kind, "sfq") && q->sfq.v1 &&
	    (q->sfq.qth_min || q->sfq.qth_max || q->sfq.max_p || q->sfq.wlog || q->sfq.plog))
		return "sfq with RED (redflowlimit, min, max, probability): RED drops at random";
	return NULL;
}

static const char *qdesc(char *buf, size_t n, const struct nli_qdisc *q)
{
	char id[32], wh[48];

	snprintf(buf, n, "qdisc %s %s %s", q->kind, qhandle(id, sizeof(id), q->handle),
		 where_str(wh, sizeof(wh), q->parent));
	return buf;
}

/* The tc command that creates q (its options as the kernel dumped them). */
static void qdisc_line(char *buf, size_t n, const struct writer *w, const struct nli_qdisc *q)
{
	char id[32], wh[48];
	size_t k;

	k = (size_t)snprintf(buf, n, "qdisc add dev %s %s handle %s %s", w->devq,
			     where_str(wh, sizeof(wh), q->parent), qhandle(id, sizeof(id), q->handle),
			     q->kind);
	if (k >= n)
		return;
	if (is_kind(q->kind, "prio")) {
		k += (size_t)snprintf(buf + k, n - k, " bands %d priomap", q->bands);
		for (int i = 0; i < 16 && k < n; i++)
			k += (size_t)snprintf(buf + k, n - k, " %u", q->priomap[i]);
	} else if (is_kind(q->kind, "pfifo") || is_kind(q->kind, "bfifo")) {
		snprintf(buf + k, n - k, " limit %u", q->limit);
	} else if (is_kind(q->kind, "sfq")) {
		const struct nli_sfq *s = &q->sfq;

		k += (size_t)snprintf(buf + k, n - k, " limit %u quantum %u", s->limit, s->quantum);
		if (s->v1 && k < n)
			k += (size_t)snprintf(buf + k, n - k, " depth %u", s->depth);
		if (k < n)
			k += (size_t)snprintf(buf + k, n - k, " flows %u divisor %u perturb %d",
					      s->flows, s->divisor, s->perturb);
		if (s->v1 && s->headdrop && k < n)
			snprintf(buf + k, n - k, " headdrop");
	}
}

static int child_cmp_parent(const struct nl_import_model *m, size_t a, size_t b)
{
	uint32_t pa = m->qdiscs[a].parent, pb = m->qdiscs[b].parent;

	if (pa != pb)
		return pa < pb ? -1 : 1;
	return m->qdiscs[a].handle < m->qdiscs[b].handle ? -1 : m->qdiscs[a].handle > m->qdiscs[b].handle;
}

/* The children of qdisc i (their parent class is one of i's), by class. */
static size_t children(const struct nl_import_model *m, size_t i, size_t *out)
{
	uint32_t h = m->qdiscs[i].handle;
	size_t n = 0;

	if (!h && m->qdiscs[i].parent != TC_H_ROOT)
		return 0; /* only a default root (mq 0:) has children without a handle */
	for (size_t j = 0; j < m->nqdiscs; j++) {
		const struct nli_qdisc *c = &m->qdiscs[j];

		if (j == i || c->parent == TC_H_ROOT || c->parent == NLI_H_INGRESS ||
		    TC_H_MAJ(c->parent) != h)
			continue;
		out[n++] = j;
	}
	for (size_t a = 1; a < n; a++) /* insertion sort: few children */
		for (size_t b = a; b > 0 && child_cmp_parent(m, out[b - 1], out[b]) > 0; b--) {
			size_t t = out[b];

			out[b] = out[b - 1];
			out[b - 1] = t;
		}
	return n;
}

/* Depth first: a qdisc, then its children by class. `blocked` names the
 * not-modelled ancestor (NULL when every ancestor was written). */
static void write_qdisc(struct writer *w, size_t i, const char *blocked, int depth)
{
	const struct nl_import_model *m = w->m;
	const struct nli_qdisc *q = &m->qdiscs[i];
	char desc[128], line[512], below[64], id[32];
	const char *problem = modelled_kind(q->kind) ? qdisc_problem(q) : NULL;
	const char *next = blocked;
	size_t *kids, n;

	if (w->done[i] || depth > 64)
		return;
	w->done[i] = 1;
	w->order[w->norder++] = i;
	qdesc(desc, sizeof(desc), q);
	if (w->o->filters_only) {
		if (q->parent == TC_H_ROOT) {
			if (is_kind(q->kind, "prio") && !problem) {
				qdisc_line(line, sizeof(line), w, q);
				fprintf(w->tc, "  %s\n", line);
			}
			/* else the stand-in, written by the caller */
		} else if (!modelled_kind(q->kind) || problem) {
			omit(w, "not modelled: %s (--filters-only leaves it out anyway)", desc);
		} else if (q->handle) {
			fprintf(w->tc, "  # left out by --filters-only: %s\n", desc);
		}
	} else if (blocked) {
		if (modelled_kind(q->kind) && !problem && q->handle) {
			qdisc_line(line, sizeof(line), w, q);
			omit(w, "left out: %s (under %s, which is not modelled): %s", desc, blocked,
			     line);
		} else if (!modelled_kind(q->kind) || problem) {
			omit(w, "not modelled: %s (under %s, not modelled either)", desc, blocked);
		} else {
			omit(w, "left out: %s (under %s, which is not modelled)", desc, blocked);
		}
	} else if (q->handle == 0 && q->parent == TC_H_ROOT) {
		if (is_kind(q->kind, "pfifo_fast") &&
		    !memcmp(q->priomap, prio_default_map, sizeof(prio_default_map)) && q->bands == 3)
			fprintf(w->tc, "  # %s: the device's default, as tcsim's devices start\n",
				desc);
		else
			omit(w,
			     "not modelled: %s (the device's default qdisc; the scenario keeps "
			     "tcsim's default pfifo_fast root)",
			     desc);
		snprintf(below, sizeof(below), "%s %s", q->kind, qhandle(id, sizeof(id), q->handle));
		next = below;
	} else if (q->handle == 0) {
		fprintf(w->tc, "  # %s: the default child, as tcsim creates it\n", desc);
	} else if (!modelled_kind(q->kind) || problem) {
		omit(w, "not modelled: %s%s%s", desc, problem ? ": " : "", problem ? problem : "");
		snprintf(below, sizeof(below), "%s %s", q->kind, qhandle(id, sizeof(id), q->handle));
		next = below;
	} else {
		qdisc_line(line, sizeof(line), w, q);
		fprintf(w->tc, "  %s\n", line);
		if (is_kind(q->kind, "sfq") && q->sfq.flags)
			fprintf(w->tc,
				"  # sfq %s RED flags 0x%x (ecn/harddrop) do nothing without RED; "
				"not written\n",
				qhandle(id, sizeof(id), q->handle), q->sfq.flags);
		if (q->has_stab)
			omit(w, "not modelled: %s: its size table (stab); written without it", desc);
	}
	kids = malloc(sizeof(*kids) * (m->nqdiscs ? m->nqdiscs : 1));
	if (!kids)
		return;
	n = children(m, i, kids);
	for (size_t k = 0; k < n; k++)
		write_qdisc(w, kids[k], next, depth + 1);
	free(kids);
}

static const struct nli_qdisc *qdisc_by_handle(const struct nl_import_model *m, uint32_t h)
{
	for (size_t i = 0; i < m->nqdiscs; i++)
		if (m->qdiscs[i].handle == h && m->qdiscs[i].parent != NLI_H_INGRESS)
			return &m->qdiscs[i];
	return NULL;
}

static int filter_cmp(const struct nli_filter *a, const struct nli_filter *b)
{
	if (a->chain != b->chain)
		return a->chain < b->chain ? -1 : 1;
	if (a->pref != b->pref)
		return a->pref < b->pref ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static const char *proto_word(char *buf, size_t n, uint16_t p)
{
	uint16_t back;

	tc_print_protocol(buf, n, p);
	if (buf[0] == '[' || tc_get_protocol(&back, buf) || back != p)
		snprintf(buf, n, "0x%04x", p);
	return buf;
}

/* The programs v[s..e) of one bpf tcf_proto as tc lines, oldest first so
 * that tcsim's list (newest first, as cls_bpf's) is the kernel's. With a
 * comment prefix they are only shown (their qdisc is not written). */
static void write_programs(struct writer *w, const struct nl_import_model *m, const size_t *v,
			   size_t s, size_t e, uint32_t parent, const char *tp, const char *comment)
{
	char id[32];

	for (size_t k = e; k-- > s;) {
		const struct nli_filter *f = &m->filters[v[k]];
		char flow[48] = "", hw[16] = "", pw[24], *bc;

		if (!f->handle && !f->has_options)
			continue; /* the tcf_proto's own line */
		if (f->why[0]) {
			if (comment)
				fprintf(w->tc, "  %s(handle 0x%x: %s)\n", comment, f->handle, f->why);
			else
				omit(w, "not modelled: %s handle 0x%x: %s", tp, f->handle, f->why);
			continue;
		}
		bc = bpf_format_bytecode(f->ops, f->nops);
		if (!bc)
			continue;
		if (f->classid)
			snprintf(flow, sizeof(flow), " flowid %s", classid(id, sizeof(id), f->classid));
		if (f->gen_flags & CLS_FLAGS_SKIP_HW)
			snprintf(hw, sizeof(hw), " skip_hw");
		fprintf(w->tc,
			"  %sfilter add dev %s parent %s pref %u protocol %s handle 0x%x bpf bytecode "
			"'%s'%s%s\n",
			comment ? comment : "", w->devq, classid(id, sizeof(id), parent), f->pref,
			proto_word(pw, sizeof(pw), f->protocol), f->handle, bc, flow, hw);
		free(bc);
	}
}

/* The filters attached at `parent`, one tcf_proto (chain, pref) at a
 * time. `why` (not NULL) means none can be written there. */
static void write_filters(struct writer *w, uint32_t parent, const char *why)
{
	const struct nl_import_model *m = w->m;
	size_t *v, n = 0;

	v = malloc(sizeof(*v) * (m->nfilters ? m->nfilters : 1));
	if (!v)
		return;
	for (size_t i = 0; i < m->nfilters; i++)
		if (!w->fdone[i] && m->filters[i].parent == parent) {
			v[n++] = i;
			w->fdone[i] = 1;
		}
	for (size_t a = 1; a < n; a++)
		for (size_t b = a; b > 0 && filter_cmp(&m->filters[v[b - 1]], &m->filters[v[b]]) > 0;
		     b--) {
			size_t t = v[b];

			v[b] = v[b - 1];
			v[b - 1] = t;
		}
	for (size_t s = 0; s < n;) {
		const struct nli_filter *f0 = &m->filters[v[s]];
		size_t e = s, progs = 0;
		char id[32], proto[24], tp[160];

		while (e < n && m->filters[v[e]].chain == f0->chain &&
		       m->filters[v[e]].pref == f0->pref)
			e++;
		for (size_t k = s; k < e; k++)
			progs += m->filters[v[k]].has_options || m->filters[v[k]].handle;
		tc_print_protocol(proto, sizeof(proto), f0->protocol);
		snprintf(tp, sizeof(tp), "filter parent %s protocol %s pref %u %s chain %u",
			 classid(id, sizeof(id), parent), proto, f0->pref, f0->kind, f0->chain);
		if (why) {
			omit(w, "left out: %s (%zu %s): %s", tp, progs,
			     progs == 1 ? "element" : "elements", why);
			if (is_kind(f0->kind, "bpf") && !f0->chain)
				write_programs(w, m, v, s, e, parent, tp, "#   ");
		} else if (f0->chain) {
			omit(w, "not modelled: %s (%zu %s): tcsim models chain 0 only", tp, progs,
			     progs == 1 ? "element" : "elements");
		} else if (!is_kind(f0->kind, "bpf")) {
			omit(w, "not modelled: %s (%zu %s): tcsim models bpf filters only", tp, progs,
			     progs == 1 ? "element" : "elements");
		} else {
			write_programs(w, m, v, s, e, parent, tp, NULL);
		}
		s = e;
	}
	free(v);
}

/* A word tcsim's tc script reads back as the same name. */
static int dev_word(char *buf, size_t n, const char *dev)
{
	int plain = dev[0] != 0;

	for (const char *p = dev; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("_.-@+=%,:", *p)))
			plain = 0;
	if (plain) {
		snprintf(buf, n, "%s", dev);
		return 0;
	}
	if (strchr(dev, '\'') || strchr(dev, '\n') || strchr(dev, ']'))
		return -1;
	snprintf(buf, n, "'%s'", dev);
	return 0;
}

/* A Lua identifier for the device's variable. */
static void lua_ident(char *buf, size_t n, const char *dev)
{
	static const char *const words[] = {
	    "and",   "break", "do",	    "else", "elseif", "end",	"false", "for",	 "function",
	    "goto",  "if",    "in",	    "local", "nil",   "not",	"or",	 "repeat", "return",
	    "then",  "true",  "until", "while", "sim",    "tcsim", "error", "print", "expect"};
	size_t k = 0;

	for (const char *p = dev; *p && k + 1 < n; p++)
		buf[k++] = ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			    (*p >= '0' && *p <= '9'))
			       ? *p
			       : '_';
	buf[k] = 0;
	if (!k || (buf[0] >= '0' && buf[0] <= '9')) {
		snprintf(buf, n, "dev");
		return;
	}
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(buf, words[i])) {
			snprintf(buf, n, "dev");
			return;
		}
}

/* A Lua string literal. */
static void lua_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < ' ' || *p > '~')
			fprintf(f, "\\%03u", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* The highest flowid minor of the root's filters, for the stand-in. */
static int standin_bands(const struct nl_import_model *m, uint32_t root)
{
	int bands = 3;

	for (size_t i = 0; i < m->nfilters; i++) {
		const struct nli_filter *f = &m->filters[i];

		if (f->parent == root && TC_H_MAJ(f->classid) == root &&
		    (int)TC_H_MIN(f->classid) > bands)
			bands = (int)TC_H_MIN(f->classid);
	}
	return bands > 16 ? 16 : bands;
}

static int closes_bracket(const char *s, int level)
{
	for (const char *p = strchr(s, ']'); p; p = strchr(p + 1, ']')) {
		int k = 1;

		while (p[k] == '=')
			k++;
		if (p[k] == ']' && k - 1 == level)
			return 1;
	}
	return 0;
}

int nl_import_write(const struct nl_import_model *m, const struct nl_import_opts *o, char **text,
		    char **omitted, char *err, size_t errlen)
{
	static const struct nl_import_opts none = {0};
	struct writer w = {.m = m, .o = o ? o : &none};
	char *tcbuf = NULL, *obuf = NULL, *out = NULL, var[NLI_DEVLEN + 8], desc[400], id[32];
	size_t tclen = 0, olen = 0, outlen = 0;
	const struct nli_qdisc *root = NULL;
	size_t root_i = 0;
	int root_blocks = 0, level = 0, ret;
	FILE *f;

	*text = NULL;
	*omitted = NULL;
	if (!m->dev[0])
		return failf(err, errlen, -EINVAL, "no device name");
	if (dev_word(w.devq, sizeof(w.devq), m->dev))
		return failf(err, errlen, -EINVAL,
			     "device \"%s\": its name cannot be written as a tc word", m->dev);
	for (size_t i = 0; i < m->nqdiscs; i++)
		if (m->qdiscs[i].parent == TC_H_ROOT && !root) {
			root = &m->qdiscs[i];
			root_i = i;
		}
	w.done = calloc(m->nqdiscs + 1, 1);
	w.fdone = calloc(m->nfilters + 1, 1);
	w.order = calloc(m->nqdiscs + 1, sizeof(*w.order));
	w.tc = open_memstream(&tcbuf, &tclen);
	w.omit = open_memstream(&obuf, &olen);
	if (!w.done || !w.fdone || !w.order || !w.tc || !w.omit) {
		ret = failf(err, errlen, -ENOMEM, "out of memory");
		goto fail;
	}

	/* the tc script */
	if (!root) {
		omit(&w, "not modelled: no root qdisc in the dump (a device that is down and was "
			     "never up has the noop qdisc, which drops every packet); the scenario keeps "
			     "tcsim's default pfifo_fast root");
	} else if (w.o->filters_only) {
		if (root->handle && (!is_kind(root->kind, "prio") || qdisc_problem(root))) {
			fprintf(w.tc, "  # a stand-in for %s: its filters' verdicts land in bands\n",
				qdesc(desc, sizeof(desc), root));
			fprintf(w.tc, "  qdisc add dev %s root handle %s prio bands %d\n", w.devq,
				qhandle(id, sizeof(id), root->handle),
				standin_bands(m, root->handle));
			if (!modelled_kind(root->kind))
				omit(&w, "not modelled: %s (a prio stand-in carries its filters)",
				     desc);
		} else if (!root->handle && !is_kind(root->kind, "pfifo_fast")) {
			omit(&w, "not modelled: %s (the device's default qdisc; it has no filters)",
			     qdesc(desc, sizeof(desc), root));
		} else if (!root->handle) {
			fprintf(w.tc, "  # %s: the device's default, without filters\n",
				qdesc(desc, sizeof(desc), root));
		}
		write_qdisc(&w, root_i, NULL, 0);
		if (root->handle)
			write_filters(&w, root->handle, NULL);
	} else {
		root_blocks = root->handle && (!modelled_kind(root->kind) || qdisc_problem(root));
		write_qdisc(&w, root_i, NULL, 0);
	}
	/* qdiscs outside the root's tree: ingress/clsact, orphans */
	for (size_t i = 0; i < m->nqdiscs; i++) {
		if (w.done[i])
			continue;
		w.done[i] = 1;
		w.order[w.norder++] = i;
		qdesc(desc, sizeof(desc), &m->qdiscs[i]);
		if (m->qdiscs[i].parent == NLI_H_INGRESS)
			omit(&w, "not modelled: %s (ingress: tcsim models egress only)", desc);
		else
			omit(&w, "left out: %s (its parent is not in the dump)", desc);
	}
	/* filters, qdisc by qdisc in tree order: first those that can be
	 * written, then those of qdiscs that are not */
	if (!w.o->filters_only) {
		for (int pass = 0; pass < 2; pass++)
			for (size_t k = 0; k < w.norder; k++) {
				const struct nli_qdisc *q = &m->qdiscs[w.order[k]];
				int ok = q->handle && modelled_kind(q->kind) && !qdisc_problem(q) &&
					 !root_blocks;

				/* a qdisc under a not-modelled one is not written either */
				for (const struct nli_qdisc *p = q; ok && p && p->parent != TC_H_ROOT;) {
					p = qdisc_by_handle(m, TC_H_MAJ(p->parent));
					if (!p || !modelled_kind(p->kind) || qdisc_problem(p) ||
					    (!p->handle && p->parent == TC_H_ROOT))
						ok = 0;
				}
				if (pass == 0 && ok) {
					write_filters(&w, q->handle, NULL);
				} else if (pass == 1 && q->handle) {
					char why[160];

					snprintf(why, sizeof(why), "on %s %s, which is not %s",
						 q->kind, qhandle(id, sizeof(id), q->handle),
						 modelled_kind(q->kind) && !qdisc_problem(q)
						     ? "written"
						     : "modelled");
					write_filters(&w, q->handle, why);
				}
			}
	}
	/* whatever is left: filters of classes, of ingress, of the stand-in's tree */
	for (size_t i = 0; i < m->nfilters; i++) {
		const struct nli_filter *fl = &m->filters[i];
		char why[160];

		if (w.fdone[i])
			continue;
		if (TC_H_MAJ(fl->parent) == 0xffff0000u)
			snprintf(why, sizeof(why), "ingress/clsact: tcsim models egress only");
		else if (TC_H_MIN(fl->parent))
			snprintf(why, sizeof(why),
				 "attached to class %s: tcsim's filters attach to a qdisc",
				 classid(id, sizeof(id), fl->parent));
		else if (w.o->filters_only)
			snprintf(why, sizeof(why), "not on the root (--filters-only)");
		else
			snprintf(why, sizeof(why), "its qdisc is not in the dump");
		write_filters(&w, fl->parent, why);
	}
	if (fflush(w.tc) || fflush(w.omit)) {
		ret = failf(err, errlen, -ENOMEM, "out of memory");
		goto fail;
	}

	/* the scenario around it */
	f = open_memstream(&out, &outlen);
	if (!f) {
		ret = failf(err, errlen, -ENOMEM, "out of memory");
		goto fail;
	}
	while (closes_bracket(tcbuf, level))
		level++;
	lua_ident(var, sizeof(var), m->dev);
	fprintf(f, "-- %s: the traffic control of device %s%s%s, read from the running kernel\n",
		w.o->filters_only ? "tcsim import --filters-only" : "tcsim import", m->dev,
		w.o->netns ? " in network namespace " : "", w.o->netns ? w.o->netns : "");
	fprintf(f, "-- (Linux %s) over rtnetlink, as a tcsim scenario. Run it: ./tcsim FILE.lua\n",
		w.o->kernel && *w.o->kernel ? w.o->kernel : "version unknown");
	fprintf(f, "-- The kernel reports no line rate: `rate` is tcsim's default, set yours.\n");
	if (w.o->filters_only)
		fprintf(f, "-- --filters-only: the root's filters under a prio root with its handle; "
			   "the rest of the tree is left out.\n");
	if (!w.nomit) {
		fprintf(f, "-- Everything the kernel reported is reproduced.\n");
	} else {
		const char *p = obuf;

		fprintf(f, "-- Left out (%d; '# ...' in the tc script says where):\n", w.nomit);
		while (*p) {
			const char *nl = strchr(p, '\n');
			size_t len = nl ? (size_t)(nl - p) : strlen(p);

			fprintf(f, "--   %.*s\n", (int)len, p);
			p += len + (nl ? 1 : 0);
		}
	}
	fputc('\n', f);
	if (root_blocks) {
		fprintf(f,
			"-- The root qdisc is not modelled: nothing below would behave as the "
			"device does.\n");
		fprintf(f, "error(");
		snprintf(desc, sizeof(desc),
			 "tcsim import: the root qdisc of %s, %s %s, is not modelled by tcsim; the "
			 "tree is below as comments (tcsim import dev %s --filters-only imports its "
			 "filters under a prio root)",
			 m->dev, root->kind, qhandle(id, sizeof(id), root->handle), m->dev);
		lua_str(f, desc);
		fprintf(f, ")\n\n");
	}
	fprintf(f, "local sim = tcsim.sim{}\n");
	fprintf(f, "local %s = sim:dev(", var);
	lua_str(f, m->dev);
	if (m->has_link)
		fprintf(f, ", { rate = \"10mbit\", mtu = %u, txqueuelen = %u })\n", m->mtu,
			m->txqueuelen);
	else
		fprintf(f, ", { rate = \"10mbit\" })\n");
	fprintf(f, "%s:tc[%.*s[\n%s]%.*s]\n", var, level, "==========", tcbuf, level,
		"==========");
	fprintf(f, "\n-- Feed it traffic and look at the result (docs/lua-api.md):\n");
	fprintf(f, "-- sim:replay(\"CAPTURE.pcap\")\n-- sim:run()\n-- sim:report()\n");
	if (fclose(f)) {
		free(out);
		ret = failf(err, errlen, -ENOMEM, "out of memory");
		goto fail;
	}
	fclose(w.tc);
	fclose(w.omit);
	free(tcbuf);
	free(w.done);
	free(w.fdone);
	free(w.order);
	*text = out;
	*omitted = obuf;
	return w.nomit;
fail:
	if (w.tc)
		fclose(w.tc);
	if (w.omit)
		fclose(w.omit);
	free(tcbuf);
	free(obuf);
	free(w.done);
	free(w.fdone);
	free(w.order);
	return ret;
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
		return failf(c->err, c->errlen, -EIO, "sending the %s dump request: %s", what,
			     nl_geterror(ret));
	ret = nl_recvmsgs_default(sk);
	if (c->failed)
		return c->failed;
	if (ret == -NLE_DUMP_INTR)
		return failf(c->err, c->errlen, -EAGAIN,
			     "the %s dump was interrupted (the configuration changed): run again",
			     what);
	if (ret < 0)
		return failf(c->err, c->errlen, -EIO, "the %s dump failed: %s", what,
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
			return failf(err, errlen, -EINVAL, "\"%s\" is not a network namespace name",
				     netns);
		snprintf(path, sizeof(path), "/run/netns/%s", netns);
		target = open(path, O_RDONLY | O_CLOEXEC);
		if (target < 0)
			return failf(err, errlen, -errno,
				     errno == ENOENT ? "network namespace \"%s\" not found (%s: %s)"
						     : "network namespace \"%s\": %s: %s",
				     netns, path, strerror(errno));
		self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		if (self < 0) {
			ret = failf(err, errlen, -errno, "/proc/self/ns/net: %s", strerror(errno));
			goto out;
		}
		if (setns(target, CLONE_NEWNET)) {
			int e = errno;

			ret = failf(err, errlen, -e, "cannot enter network namespace \"%s\": %s%s",
				    netns, strerror(e),
				    e == EPERM ? " (entering a namespace needs CAP_SYS_ADMIN)"
				    : e == EINVAL ? " (not a network namespace)"
						  : "");
			goto out;
		}
	}
	sk = nl_socket_alloc();
	if (!sk)
		ret = failf(err, errlen, -ENOMEM, "out of memory");
	else if ((ret = nl_connect(sk, NETLINK_ROUTE)) < 0)
		ret = failf(err, errlen, -EIO, "cannot open a netlink socket: %s", nl_geterror(ret));
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
 * sfq's classes have none; sfq's are its busy buckets). */
static int class_has_block(const char *kind)
{
	return !is_kind(kind, "prio") && !is_kind(kind, "sfq") && !is_kind(kind, "mq") &&
	       !is_kind(kind, "mqprio") && !is_kind(kind, "multiq") && !is_kind(kind, "taprio") &&
	       !is_kind(kind, "ingress") && !is_kind(kind, "clsact");
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
		return failf(err, errlen, -EINVAL, "\"%s\" is not a device name", dev ? dev : "");
	ret = open_socket(netns, &sk, err, errlen);
	if (ret)
		return ret;
	ret = rtnl_link_get_kernel(sk, 0, dev, &link);
	if (ret < 0) {
		ret = failf(err, errlen, -ENODEV, "no device \"%s\"%s%s%s (%s)", dev,
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
		ret = failf(err, errlen, -EIO, "libnl: %s", nl_geterror(ret));
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
		if (is_kind(q->kind, "clsact")) {
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

/* ---- tcsim import ---- */

static const char usage[] =
    "usage: tcsim import dev DEV [--netns NAME] [--filters-only]\n"
    "Reads DEV's qdiscs, classes and filters from the running kernel (rtnetlink;\n"
    "no privilege needed, but --netns needs CAP_SYS_ADMIN) and prints a tcsim\n"
    "scenario that rebuilds them: prio, sfq, pfifo, bfifo and classic bpf filters.\n"
    "What tcsim does not model is commented in the scenario and listed on stderr.\n"
    "  --netns NAME    the device of network namespace /run/netns/NAME\n"
    "  --filters-only  the root's filters only, under a prio root with its handle\n"
    "                  (to try an htb's or another qdisc's filter chain)\n"
    "Exit status: 0 everything reproduced; 3 printed, with omissions on stderr;\n"
    "1 error (nothing printed); 2 usage.\n";

int nl_import_main(int argc, char **argv)
{
	struct nl_import_opts o = {0};
	struct nl_import_model m;
	struct utsname u;
	const char *dev = NULL;
	char err[768], *text = NULL, *omitted = NULL;
	int ret;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(a, "dev") && i + 1 < argc && !dev) {
			dev = argv[++i];
		} else if (!strcmp(a, "--netns") && i + 1 < argc && !o.netns) {
			o.netns = argv[++i];
		} else if (!strncmp(a, "--netns=", 8) && !o.netns) {
			o.netns = a + 8;
		} else if (!strcmp(a, "--filters-only")) {
			o.filters_only = 1;
		} else {
			fprintf(stderr, "tcsim import: unexpected \"%s\"\n%s", a, usage);
			return 2;
		}
	}
	if (!dev) {
		fprintf(stderr, "tcsim import: which device? (dev DEV)\n%s", usage);
		return 2;
	}
	if (!uname(&u))
		o.kernel = u.release;
	nl_import_model_init(&m, dev, 0);
	ret = nl_import_dump(&m, dev, o.netns, err, sizeof(err));
	if (!ret) {
		ret = nl_import_write(&m, &o, &text, &omitted, err, sizeof(err));
		if (ret >= 0) {
			const char *p = omitted;

			fputs(text, stdout);
			while (*p) {
				const char *nl = strchr(p, '\n');
				size_t len = nl ? (size_t)(nl - p) : strlen(p);

				fprintf(stderr, "tcsim import: %s: %.*s\n", dev, (int)len, p);
				p += len + (nl ? 1 : 0);
			}
			free(text);
			free(omitted);
			nl_import_model_free(&m);
			if (fflush(stdout)) {
				fprintf(stderr, "tcsim import: writing the scenario: %s\n",
					strerror(errno));
				return 1;
			}
			return ret ? 3 : 0;
		}
	}
	nl_import_model_free(&m);
	fprintf(stderr, "tcsim import: %s\n", err);
	return 1;
}
