/* nl_scenario.c - `tcsim import`'s writing side: the model nl_dump.c read
 * from the kernel, printed as a runnable tcsim scenario around tc lines.
 * The words of htb and tbf lines and htb's classes are nl_scen_htb_tbf.c's
 * (nl_scen.h: what the two share).
 *
 * What is written (stdout, only when everything was read and understood):
 *   -- header comments: the device, the kernel release, the namespace,
 *      and the list of what the scenario leaves out (no date: the output
 *      of one configuration is always the same text)
 *   local sim = tcsim.sim{}
 *   local eth0 = sim:dev("eth0", { rate = "10mbit", mtu = M, txqueuelen = T })
 *   eth0:tc[[
 *     qdisc add dev eth0 root handle 1: htb default 30
 *     class add dev eth0 parent 1: classid 1:1 htb rate 100mbit burst 15kb cburst 1600
 *     qdisc add dev eth0 parent 1:1 handle 10: sfq limit ... (every value)
 *     filter add dev eth0 parent 1: pref 1 protocol ip handle 0x1 bpf bytecode '...' flowid 1:1
 *   ]]
 *   -- sim:replay("CAPTURE.pcap") / sim:run() / sim:report(), commented
 * Qdiscs come parent before child (depth first, children by class), every
 * value the kernel keeps spelled out (prio: bands and priomap; pfifo,
 * bfifo and pfifo_head_drop: limit; sfq: limit, quantum, depth, flows,
 * divisor, perturb, headdrop; tbf: rate, burst, peakrate, mtu, limit, mpu,
 * overhead, linklayer; codel and fq_codel: all, nl_scen_aqm_cls.c; netem:
 * all that tc 6.1 can say, nl_scen_netem.c; a
 * default noqueue root is added, tcsim's devices starting with
 * pfifo_fast). matchall and fw filters: nl_scen_aqm_cls.c. An htb is
 * followed by its classes, parents first, siblings by classid. htb and tbf
 * get the words a user types: rates in the largest exact unit, sizes in
 * kb/mb when whole, tc's defaults left out (ceil equal to rate, r2q 10,
 * default 0, the quantum r2q gives, the device's txqueuelen as
 * direct_qlen); burst, cburst and mtu are byte counts whose
 * ticks are the kernel's (nl_ticks.c), so that tc rebuilds the same state
 * (tests/kernel/import_e2e.sh). Filters come per qdisc, then per htb class,
 * in pref order, each with explicit pref, protocol and handle; the programs
 * of one pref are written oldest first, so that tcsim's list (newest first,
 * as cls_bpf's) and therefore the order they are tried in is the kernel's.
 * classid 0 gives no flowid. The kernel reports no line rate: `rate` is
 * tcsim's default, to be set.
 *
 * What tcsim does not model is never dropped silently: each thing left out
 * is a `# ...` comment at its place in the tc script, a line of the header,
 * and one line on stderr ("tcsim import: DEV: not modelled: qdisc hfsc 1:
 * root"); the exit status is then 3 instead of 0. The choices:
 *  - htb and tbf are written as real lines, for tcsim's htb and tbf
 *    models (a tcsim without them refuses the lines, naming the kind).
 *  - A configured root tcsim does not model (hfsc, fq_pie, ...): no
 *    faithful scenario exists, and a scenario that silently ran something
 *    else would mislead, so the scenario starts with error("...") naming
 *    the root and --filters-only; the tree and the filters follow as
 *    comments (with the tc lines of the parts tcsim could run).
 *  - --filters-only: classification only. The root's bpf filters under a
 *    prio root with the real root's handle (so flowids and `parent` read
 *    the same); a prio root is kept as it is, another kind is replaced by
 *    `prio bands N` (N: the highest flowid minor, 3..16). This is how a
 *    root's filter chain is tried with prio alone; the rest of the tree is
 *    listed as left out.
 *  - A default root (handle 0: noqueue on virtual devices, mq on
 *    multi-queue NICs, pfifo_fast or the default_qdisc sysctl's kind):
 *    tcsim's devices start with pfifo_fast, so pfifo_fast 0: needs no
 *    line; any other default is listed as not modelled and the scenario
 *    keeps pfifo_fast (it stays runnable).
 *  - A qdisc tcsim does not model below a modelled one (fq_pie under
 *    prio): left out, so the band keeps tcsim's default pfifo; whatever
 *    hangs below it is listed too. Default children (handle 0) need no
 *    line.
 *  - sfq with RED (qth_min set): not modelled (RED drops at random); RED
 *    flags without RED do nothing and are only commented.
 *  - What tc's words cannot say for an htb or a tbf (a bucket no byte
 *    count rebuilds, a ceil or peakrate with size adjustments other than
 *    the rate's, a link layer other than ethernet and atm, offload): the
 *    line is written as near as it gets, the difference listed.
 *  - bpf programs tcsim cannot run (direct-action, actions or police,
 *    eBPF, skip_sw) and filters of other kinds (basic, route, flow,
 *    ...), chains other than 0, filters on classes of other kinds than
 *    htb: listed, not written.
 *  - A size table (stab) on a modelled qdisc: the qdisc is written, the
 *    table listed as not modelled. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf_load.h"
#include "cls.h"
#include "nl_import.h"
#include "nl_int.h"
#include "nl_scen.h"
#include "nl_scen_cls.h"

/* pfifo_fast's priomap as the kernel sets it: such a root is tcsim's default */
static const uint8_t prio_default_map[16] = {1, 2, 2, 2, 1, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1};

void nl_addf(char *buf, size_t n, size_t *k, const char *fmt, ...)
{
	va_list ap;

	if (*k >= n)
		return;
	va_start(ap, fmt);
	*k += (size_t)vsnprintf(buf + *k, n - *k, fmt, ap);
	va_end(ap);
}

/* Something left out: a comment at its place and a line of the list. */
void nl_omit(struct nl_writer *w, const char *fmt, ...)
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
	/* htb and tbf: written as lines for tcsim's htb and tbf models */
	return nl_is_kind(k, "prio") || nl_is_kind(k, "sfq") || nl_is_kind(k, "pfifo") ||
	       nl_is_kind(k, "bfifo") || nl_is_kind(k, "pfifo_fast") || nl_is_kind(k, "htb") ||
	       nl_is_kind(k, "tbf") || nl_is_kind(k, "pfifo_head_drop") || nl_is_kind(k, "codel") ||
	       nl_is_kind(k, "fq_codel") || nl_is_kind(k, "noqueue") || nl_is_kind(k, "netem");
}

/* Why a qdisc of a modelled kind cannot be written anyway, or NULL. */
static const char *qdisc_problem(const struct nli_qdisc *q)
{
	if (nl_is_kind(q->kind, "sfq") && q->sfq.v1 &&
	    (q->sfq.qth_min || q->sfq.qth_max || q->sfq.max_p || q->sfq.wlog || q->sfq.plog))
		return "sfq with RED (redflowlimit, min, max, probability): RED drops at random";
	return nl_aqm_problem(q);
}

static const char *qdesc(char *buf, size_t n, const struct nli_qdisc *q)
{
	char id[32], wh[48];

	snprintf(buf, n, "qdisc %s %s %s", q->kind, nl_qhandle(id, sizeof(id), q->handle),
		 nl_where_str(wh, sizeof(wh), q->parent));
	return buf;
}

/* The qdisc with handle h (not the ingress one), or NULL. */
const struct nli_qdisc *nl_qdisc_by_handle(const struct nl_import_model *m, uint32_t h)
{
	for (size_t i = 0; i < m->nqdiscs; i++)
		if (m->qdiscs[i].handle == h && m->qdiscs[i].parent != NLI_H_INGRESS)
			return &m->qdiscs[i];
	return NULL;
}

/* The tc command that creates q (its options as the kernel dumped them). */
static void qdisc_line(char *buf, size_t n, const struct nl_writer *w, const struct nli_qdisc *q)
{
	char id[32], wh[48];
	size_t k;

	k = (size_t)snprintf(buf, n, "qdisc add dev %s %s handle %s %s", w->devq,
			     nl_where_str(wh, sizeof(wh), q->parent),
			     nl_qhandle(id, sizeof(id), q->handle), q->kind);
	if (k >= n)
		return;
	if (nl_is_kind(q->kind, "prio")) {
		k += (size_t)snprintf(buf + k, n - k, " bands %d priomap", q->bands);
		for (int i = 0; i < 16 && k < n; i++)
			k += (size_t)snprintf(buf + k, n - k, " %u", q->priomap[i]);
	} else if (nl_is_kind(q->kind, "pfifo") || nl_is_kind(q->kind, "bfifo")) {
		snprintf(buf + k, n - k, " limit %u", q->limit);
	} else if (nl_is_kind(q->kind, "sfq")) {
		const struct nli_sfq *s = &q->sfq;

		k += (size_t)snprintf(buf + k, n - k, " limit %u quantum %u", s->limit, s->quantum);
		if (s->v1 && k < n)
			k += (size_t)snprintf(buf + k, n - k, " depth %u", s->depth);
		if (k < n)
			k += (size_t)snprintf(buf + k, n - k, " flows %u divisor %u perturb %d",
					      s->flows, s->divisor, s->perturb);
		if (s->v1 && s->headdrop && k < n)
			snprintf(buf + k, n - k, " headdrop");
	} else if (nl_is_kind(q->kind, "htb") || nl_is_kind(q->kind, "tbf")) {
		nl_htb_tbf_words(buf, n, &k, w, q);
	} else if (nl_is_kind(q->kind, "codel") || nl_is_kind(q->kind, "fq_codel") ||
		   nl_is_kind(q->kind, "pfifo_head_drop")) {
		nl_aqm_words(buf, n, &k, q);
	} else if (nl_is_kind(q->kind, "netem")) {
		nl_netem_words(buf, n, &k, q);
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
static void write_qdisc(struct nl_writer *w, size_t i, const char *blocked, int depth)
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
			if (nl_is_kind(q->kind, "prio") && !problem) {
				qdisc_line(line, sizeof(line), w, q);
				fprintf(w->tc, "  %s\n", line);
			}
			/* else the stand-in, written by the caller */
		} else if (!modelled_kind(q->kind) || problem) {
			nl_omit(w, "not modelled: %s (--filters-only leaves it out anyway)", desc);
		} else if (q->handle) {
			fprintf(w->tc, "  # left out by --filters-only: %s\n", desc);
		}
		if (nl_is_kind(q->kind, "htb") && q->handle)
			nl_write_htb_classes(w, q, NULL);
	} else if (blocked) {
		if (modelled_kind(q->kind) && !problem && q->handle) {
			qdisc_line(line, sizeof(line), w, q);
			nl_omit(w, "left out: %s (under %s, which is not modelled): %s", desc,
				blocked, line);
			if (nl_is_kind(q->kind, "htb"))
				nl_write_htb_classes(w, q, blocked);
		} else if (!modelled_kind(q->kind) || problem) {
			nl_omit(w, "not modelled: %s (under %s, not modelled either)", desc,
				blocked);
		} else {
			nl_omit(w, "left out: %s (under %s, which is not modelled)", desc, blocked);
		}
	} else if (q->handle == 0 && q->parent == TC_H_ROOT) {
		if (nl_is_kind(q->kind, "pfifo_fast") &&
		    !memcmp(q->priomap, prio_default_map, sizeof(prio_default_map)) &&
		    q->bands == 3)
			fprintf(w->tc, "  # %s: the device's default, as tcsim's devices start\n",
				desc);
		else if (nl_is_kind(q->kind, "noqueue"))
			/* a virtual device's default (IFF_NO_QUEUE): tcsim's start with
			 * pfifo_fast, so it is added; it behaves the same, but tc
			 * shows the handle tcsim allocates (8001:), as the kernel
			 * would for the same line. Nothing can name the handle of a
			 * noqueue: it has no classes and no filters. */
			fprintf(w->tc,
				"  # %s: the device's default; tcsim's devices start with "
				"pfifo_fast\n  qdisc add dev %s root noqueue\n",
				desc, w->devq);
		else
			nl_omit(w,
				"not modelled: %s (the device's default qdisc; the scenario keeps "
				"tcsim's default pfifo_fast root)",
				desc);
		snprintf(below, sizeof(below), "%s %s", q->kind,
			 nl_qhandle(id, sizeof(id), q->handle));
		next = below;
	} else if (q->handle == 0) {
		fprintf(w->tc, "  # %s: the default child, as tcsim creates it\n", desc);
	} else if (!modelled_kind(q->kind) || problem) {
		nl_omit(w, "not modelled: %s%s%s", desc, problem ? ": " : "",
			problem ? problem : "");
		snprintf(below, sizeof(below), "%s %s", q->kind,
			 nl_qhandle(id, sizeof(id), q->handle));
		next = below;
	} else {
		qdisc_line(line, sizeof(line), w, q);
		fprintf(w->tc, "  %s\n", line);
		if (nl_is_kind(q->kind, "sfq") && q->sfq.flags)
			fprintf(w->tc,
				"  # sfq %s RED flags 0x%x (ecn/harddrop) do nothing without RED; "
				"not written\n",
				nl_qhandle(id, sizeof(id), q->handle), q->sfq.flags);
		if (q->has_stab)
			nl_omit(w, "not modelled: %s: its size table (stab); written without it",
				desc);
		nl_htb_tbf_notes(w, q, desc);
		nl_aqm_notes(w, q, desc);
		nl_netem_notes(w, q, desc);
		if (nl_is_kind(q->kind, "htb"))
			nl_write_htb_classes(w, q, NULL);
	}
	kids = malloc(sizeof(*kids) * (m->nqdiscs ? m->nqdiscs : 1));
	if (!kids)
		return;
	n = children(m, i, kids);
	for (size_t k = 0; k < n; k++)
		write_qdisc(w, kids[k], next, depth + 1);
	free(kids);
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
static void write_programs(struct nl_writer *w, const struct nl_import_model *m, const size_t *v,
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
				nl_omit(w, "not modelled: %s handle 0x%x: %s", tp, f->handle,
					f->why);
			continue;
		}
		bc = bpf_format_bytecode(f->ops, f->nops);
		if (!bc)
			continue;
		if (f->classid)
			snprintf(flow, sizeof(flow), " flowid %s",
				 nl_classid(id, sizeof(id), f->classid));
		if (f->gen_flags & CLS_FLAGS_SKIP_HW)
			snprintf(hw, sizeof(hw), " skip_hw");
		fprintf(w->tc,
			"  %sfilter add dev %s parent %s pref %u protocol %s handle 0x%x bpf bytecode "
			"'%s'%s%s\n",
			comment ? comment : "", w->devq, nl_classid(id, sizeof(id), parent),
			f->pref, proto_word(pw, sizeof(pw), f->protocol), f->handle, bc, flow, hw);
		free(bc);
	}
}

static int mall_fw(const char *kind)
{
	return nl_is_kind(kind, "matchall") || nl_is_kind(kind, "fw");
}

/* The filters attached at `parent`, one tcf_proto (chain, pref) at a
 * time. `why` (not NULL) means none can be written there. */
static void write_filters(struct nl_writer *w, uint32_t parent, const char *why)
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
			 nl_classid(id, sizeof(id), parent), proto, f0->pref, f0->kind, f0->chain);
		if (why) {
			nl_omit(w, "left out: %s (%zu %s): %s", tp, progs,
				progs == 1 ? "element" : "elements", why);
			if (nl_is_kind(f0->kind, "bpf") && !f0->chain)
				write_programs(w, m, v, s, e, parent, tp, "#   ");
			else if (mall_fw(f0->kind) && !f0->chain)
				nl_write_mall_fw(w, v, s, e, parent, tp, "#   ");
			else if (nl_is_kind(f0->kind, "basic") && !f0->chain)
				nl_write_basic(w, v, s, e, parent, tp, "#   ");
		} else if (f0->chain) {
			nl_omit(w, "not modelled: %s (%zu %s): tcsim models chain 0 only", tp,
				progs, progs == 1 ? "element" : "elements");
		} else if (mall_fw(f0->kind)) {
			nl_write_mall_fw(w, v, s, e, parent, tp, NULL);
		} else if (nl_is_kind(f0->kind, "basic")) {
			nl_write_basic(w, v, s, e, parent, tp, NULL);
		} else if (nl_cls_written(f0->kind)) {
			nl_write_cls(w, v, n, s, e, parent);
		} else if (!nl_is_kind(f0->kind, "bpf")) {
			nl_omit(w,
				"not modelled: %s (%zu %s): tcsim models bpf, u32, matchall, fw, "
				"flower and basic filters only",
				tp,
				progs, progs == 1 ? "element" : "elements");
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
	struct nl_writer w = {.m = m, .o = o ? o : &none};
	char *tcbuf = NULL, *obuf = NULL, *out = NULL, var[NLI_DEVLEN + 8], desc[400], id[32];
	size_t tclen = 0, olen = 0, outlen = 0;
	const struct nli_qdisc *root = NULL;
	size_t root_i = 0;
	int root_blocks = 0, level = 0, ret;
	FILE *f;

	*text = NULL;
	*omitted = NULL;
	if (!m->dev[0])
		return nl_failf(err, errlen, -EINVAL, "no device name");
	if (dev_word(w.devq, sizeof(w.devq), m->dev))
		return nl_failf(err, errlen, -EINVAL,
				"device \"%s\": its name cannot be written as a tc word", m->dev);
	for (size_t i = 0; i < m->nqdiscs; i++)
		if (m->qdiscs[i].parent == TC_H_ROOT && !root) {
			root = &m->qdiscs[i];
			root_i = i;
		}
	w.done = calloc(m->nqdiscs + 1, 1);
	w.fdone = calloc(m->nfilters + 1, 1);
	w.order = calloc(m->nqdiscs + 1, sizeof(*w.order));
	w.cdone = calloc(m->nclasses + 1, 1);
	w.corder = calloc(m->nclasses + 1, sizeof(*w.corder));
	w.tc = open_memstream(&tcbuf, &tclen);
	w.omit = open_memstream(&obuf, &olen);
	if (!w.done || !w.fdone || !w.order || !w.cdone || !w.corder || !w.tc || !w.omit) {
		ret = nl_failf(err, errlen, -ENOMEM, "out of memory");
		goto fail;
	}

	/* the tc script */
	if (!root) {
		nl_omit(
		    &w,
		    "not modelled: no root qdisc in the dump (a device that is down and was "
		    "never up has the noop qdisc, which drops every packet); the scenario keeps "
		    "tcsim's default pfifo_fast root");
	} else if (w.o->filters_only) {
		if (root->handle && (!nl_is_kind(root->kind, "prio") || qdisc_problem(root))) {
			fprintf(w.tc, "  # a stand-in for %s: its filters' verdicts land in bands\n",
				qdesc(desc, sizeof(desc), root));
			fprintf(w.tc, "  qdisc add dev %s root handle %s prio bands %d\n", w.devq,
				nl_qhandle(id, sizeof(id), root->handle),
				standin_bands(m, root->handle));
			if (!modelled_kind(root->kind))
				nl_omit(&w,
					"not modelled: %s (a prio stand-in carries its filters)",
					desc);
		} else if (!root->handle && !nl_is_kind(root->kind, "pfifo_fast")) {
			nl_omit(&w,
				"not modelled: %s (the device's default qdisc; it has no filters)",
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
			nl_omit(&w, "not modelled: %s (ingress: tcsim models egress only)", desc);
		else
			nl_omit(&w, "left out: %s (its parent is not in the dump)", desc);
	}
	/* filters, qdisc by qdisc in tree order: first those that can be
	 * written, then those of qdiscs that are not */
	if (!w.o->filters_only) {
		for (int pass = 0; pass < 2; pass++)
			for (size_t k = 0; k < w.norder; k++) {
				const struct nli_qdisc *q = &m->qdiscs[w.order[k]];
				int ok = q->handle && modelled_kind(q->kind) && !qdisc_problem(q) &&
					 !root_blocks;

				/* a qdisc under a not-modelled one is not written either;
				 * a chain longer than the dump is a cycle of orphans (a
				 * qdisc under one of its own classes, A under B under A),
				 * which no kernel dumps: not written */
				size_t up = 0;

				for (const struct nli_qdisc *p = q; ok && p && p->parent != TC_H_ROOT;) {
					p = nl_qdisc_by_handle(m, TC_H_MAJ(p->parent));
					if (++up > m->nqdiscs || !p || !modelled_kind(p->kind) || qdisc_problem(p) ||
					    (!p->handle && p->parent == TC_H_ROOT))
						ok = 0;
				}
				if (pass == 0 && ok) {
					write_filters(&w, q->handle, NULL);
					/* then those of its htb classes, in class order */
					for (size_t c = 0; c < w.ncorder; c++) {
						uint32_t cid = m->classes[w.corder[c]].classid;

						if (TC_H_MAJ(cid) == q->handle)
							write_filters(&w, cid, NULL);
					}
				} else if (pass == 1 && q->handle) {
					char why[160];

					snprintf(why, sizeof(why), "on %s %s, which is not %s",
						 q->kind, nl_qhandle(id, sizeof(id), q->handle),
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
		char why[160], pid[32];

		if (w.fdone[i])
			continue;
		if (TC_H_MAJ(fl->parent) == 0xffff0000u) {
			snprintf(why, sizeof(why), "ingress/clsact: tcsim models egress only");
		} else if (w.o->filters_only) {
			snprintf(why, sizeof(why), "not on the root (--filters-only)");
		} else if (TC_H_MIN(fl->parent)) {
			const struct nli_qdisc *cq = nl_qdisc_by_handle(m, TC_H_MAJ(fl->parent));

			if (!cq)
				snprintf(why, sizeof(why),
					 "attached to class %s, whose qdisc is not in the dump",
					 nl_classid(id, sizeof(id), fl->parent));
			else if (nl_is_kind(cq->kind, "htb"))
				snprintf(why, sizeof(why),
					 "on class %s of htb %s, which is not written",
					 nl_classid(id, sizeof(id), fl->parent),
					 nl_qhandle(pid, sizeof(pid), cq->handle));
			else
				snprintf(why, sizeof(why),
					 "attached to class %s of %s %s: tcsim's filters attach to "
					 "a qdisc or an htb class",
					 nl_classid(id, sizeof(id), fl->parent), cq->kind,
					 nl_qhandle(pid, sizeof(pid), cq->handle));
		} else {
			snprintf(why, sizeof(why), "its qdisc is not in the dump");
		}
		write_filters(&w, fl->parent, why);
	}
	if (fflush(w.tc) || fflush(w.omit)) {
		ret = nl_failf(err, errlen, -ENOMEM, "out of memory");
		goto fail;
	}

	/* the scenario around it */
	f = open_memstream(&out, &outlen);
	if (!f) {
		ret = nl_failf(err, errlen, -ENOMEM, "out of memory");
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
			 m->dev, root->kind, nl_qhandle(id, sizeof(id), root->handle), m->dev);
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
		ret = nl_failf(err, errlen, -ENOMEM, "out of memory");
		goto fail;
	}
	fclose(w.tc);
	fclose(w.omit);
	free(tcbuf);
	free(w.done);
	free(w.fdone);
	free(w.order);
	free(w.cdone);
	free(w.corder);
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
	free(w.cdone);
	free(w.corder);
	return ret;
}
