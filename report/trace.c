/* trace.c - per-packet traces (the line format is documented in trace.h)
 * and `tcsim explain`, one packet's story.
 *
 * The simulation and the qdiscs report the events of packets marked
 * p->traced (sim.c's trace_hook_*, qdisc env->tracer). Each becomes a
 * struct tev handed to the trace's sink: the text writer of a trace, or
 * explain's recorder. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf_asm.h"
#include "bpf_load.h"
#include "source.h"
#include "tc.h"
#include "trace.h"
#include "run_opts.h"

enum tev_kind {
	TEV_ARRIVE,
	TEV_REJECT,
	TEV_FILTER,
	TEV_CLASSIFY,
	TEV_ENQUEUE,
	TEV_DROP,
	TEV_DEQUEUE,
	TEV_TX_END,
};

/* One event of a traced packet. */
struct tev {
	enum tev_kind kind;
	uint64_t t;
	const struct dev *dev;
	const struct pkt *p;    /* NULL for TEV_REJECT */
	uint64_t id;            /* 0 for TEV_REJECT */
	int source;             /* 0-based */
	uint64_t seq;
	const struct qdisc *q;  /* FILTER, CLASSIFY, ENQUEUE: the reporting qdisc; DROP,
				   DEQUEUE: the leaf */
	const struct qtrace *qt; /* FILTER, CLASSIFY, ENQUEUE */
	const uint8_t *frame;   /* ARRIVE, REJECT: as captured */
	uint32_t caplen, len;
	const char *why;        /* REJECT */
	int at_arrival;         /* DROP */
	uint64_t by;            /* DROP: the arriving packet that made it go, or 0 */
	uint64_t dur;           /* DEQUEUE: serialisation time */
	uint32_t wire;          /* DEQUEUE: bytes on the wire */
};

struct trace {
	struct sim *sim;
	FILE *out;
	int own_file;		/* out was opened by trace_open_path */
	char *path, *tmp;	/* trace_open_path: final and temporary names */
	struct bpf_prog *filter; /* NULL: every packet */
	int sel_source;		 /* >= 0: only this packet (explain) */
	uint64_t sel_seq;
	void (*sink)(void *arg, const struct tev *e);
	void *sink_arg;
	struct qdisc_tracer qt;  /* the head's serves the whole chain */
	bpf_tracer insn;         /* explain -v: instruction traces (arg: sink_arg) */
	struct trace *next;      /* the simulation's next trace */
	uint8_t bit;             /* its bit in p->traced */
	const struct pkt *arriving; /* being enqueued at this moment */
	uint64_t arriving_id;
	uint64_t count;
};

/* ---- small formatting helpers ---- */

static void fmt_handle(char *b, size_t n, uint32_t h)
{
	snprintf(b, n, "%x:", h >> 16);
}

static void fmt_class(char *b, size_t n, uint32_t c)
{
	snprintf(b, n, "%x:%x", c >> 16, c & 0xffff);
}

static void fmt_priority(char *b, size_t n, uint32_t prio)
{
	if (TC_H_MAJ(prio))
		fmt_class(b, n, prio);
	else
		snprintf(b, n, "%u", prio);
}

static void fmt_ret(char *b, size_t n, uint32_t ret)
{
	if (ret == 0xffffffffu)
		snprintf(b, n, "-1");
	else
		snprintf(b, n, "%u", ret);
}

static const char *verdict_word(enum pkt_verdict_kind v)
{
	switch (v) {
	case VERDICT_FILTER: return "filter";
	case VERDICT_PRIORITY: return "priority";
	case VERDICT_UNCLASSIFIED: return "unclassified";
	default: return "none";
	}
}

static const char *rule_word(enum qtrace_rule r)
{
	switch (r) {
	case QRULE_FILTER: return "filter";
	case QRULE_PRIORITY: return "priority";
	case QRULE_PRIOMAP: return "priomap";
	case QRULE_FALLBACK: return "fallback";
	case QRULE_DROP: return "drop";
	default: return "none";
	}
}

/* ---- frame summary (no libpcap) ---- */

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

struct sbuf {
	char *b;
	size_t n, used;
};

static void sb_add(struct sbuf *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(struct sbuf *s, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (s->used >= s->n)
		return;
	va_start(ap, fmt);
	r = vsnprintf(s->b + s->used, s->n - s->used, fmt, ap);
	va_end(ap);
	if (r > 0)
		s->used += (size_t)r < s->n - s->used ? (size_t)r : s->n - s->used - 1;
}

static void sb_ip6(struct sbuf *s, const uint8_t *a)
{
	char b[64];
	int best = -1, bestlen = 0;

	/* RFC 5952: the longest run (>= 2) of zero groups becomes "::" */
	for (int i = 0; i < 8;) {
		int j = i;

		while (j < 8 && !a[2 * j] && !a[2 * j + 1])
			j++;
		if (j - i > bestlen && j - i >= 2) {
			best = i;
			bestlen = j - i;
		}
		i = j > i ? j : i + 1;
	}
	b[0] = 0;
	for (int i = 0, o = 0; i < 8; i++) {
		if (i == best) {
			o += snprintf(b + o, sizeof(b) - (size_t)o, "::");
			i += bestlen - 1;
			continue;
		}
		o += snprintf(b + o, sizeof(b) - (size_t)o, "%s%x",
			      o && b[o - 1] != ':' ? ":" : "", rd16(a + 2 * i));
	}
	sb_add(s, "%s", b);
}

static void sb_l4(struct sbuf *s, uint8_t proto, const uint8_t *l4, uint32_t avail, uint32_t l4len,
		  const char *src, const char *dst, int v6)
{
	if (proto == 6 && avail >= 20) {
		static const char flags[] = "FSRP.UEW";
		uint8_t f = l4[13];
		uint32_t hl = (uint32_t)(l4[12] >> 4) * 4;
		char fb[12];
		int o = 0;

		for (int i = 0; i < 8; i++) {
			static const int order[8] = {1, 0, 2, 3, 6, 7, 5, 4}; /* S F R P W E U . */

			if (f & (1u << order[i]))
				fb[o++] = flags[order[i]];
		}
		fb[o] = 0;
		sb_add(s, "%s.%u > %s.%u: TCP [%s] seq %u", src, rd16(l4), dst, rd16(l4 + 2),
		       o ? fb : "none", rd32(l4 + 4));
		if (f & 0x10)
			sb_add(s, " ack %u", rd32(l4 + 8));
		sb_add(s, " len %u", l4len > hl ? l4len - hl : 0);
	} else if (proto == 17 && avail >= 8) {
		sb_add(s, "%s.%u > %s.%u: UDP len %u", src, rd16(l4), dst, rd16(l4 + 2),
		       l4len >= 8 ? l4len - 8 : 0);
	} else if ((proto == 1 && !v6) || (proto == 58 && v6)) {
		const char *what = NULL;

		if (avail >= 1) {
			uint8_t ty = l4[0];

			if (!v6)
				what = ty == 8 ? "echo request" : ty == 0 ? "echo reply"
				       : ty == 3 ? "unreachable" : ty == 11 ? "time exceeded" : NULL;
			else
				what = ty == 128 ? "echo request" : ty == 129 ? "echo reply"
				       : ty == 135 ? "neighbor solicitation"
				       : ty == 136 ? "neighbor advertisement"
				       : ty == 133 ? "router solicitation"
				       : ty == 134 ? "router advertisement" : NULL;
			sb_add(s, "%s > %s: %s ", src, dst, v6 ? "ICMP6" : "ICMP");
			if (what)
				sb_add(s, "%s", what);
			else
				sb_add(s, "type %u", ty);
			if (avail >= 8 && (what && strstr(what, "echo")))
				sb_add(s, " id %u seq %u", rd16(l4 + 4), rd16(l4 + 6));
			sb_add(s, " len %u", l4len);
		} else {
			sb_add(s, "%s > %s: %s (truncated)", src, dst, v6 ? "ICMP6" : "ICMP");
		}
	} else {
		sb_add(s, "%s > %s: proto %u len %u%s", src, dst, proto, l4len,
		       (proto == 6 || proto == 17) ? " (truncated)" : "");
	}
}

void trace_frame_summary(char *buf, size_t n, const uint8_t *f, uint32_t caplen, uint32_t len,
			 int vlan_tci)
{
	struct sbuf s = {buf, n, 0};
	uint32_t off = 12;
	uint16_t et;

	if (!n)
		return;
	buf[0] = 0;
	if (!f || caplen < 14) {
		sb_add(&s, "truncated frame (%u of %u bytes)", caplen, len);
		return;
	}
	if (vlan_tci >= 0)
		sb_add(&s, "vlan %u p %u, ", (unsigned)vlan_tci & 0xfff, (unsigned)vlan_tci >> 13);
	et = rd16(f + off);
	while ((et == 0x8100 || et == 0x88a8) && caplen >= off + 6) {
		sb_add(&s, "vlan %u p %u, ", rd16(f + off + 2) & 0xfff, (unsigned)f[off + 2] >> 5);
		off += 4;
		et = rd16(f + off);
	}
	off += 2; /* network header */
	if (et == 0x0800 && caplen >= off + 20 && (f[off] >> 4) == 4) {
		const uint8_t *ip = f + off;
		uint32_t ihl = (uint32_t)(ip[0] & 15) * 4, tot = rd16(ip + 2);
		char src[16], dst[16];
		uint16_t frag = rd16(ip + 6);

		snprintf(src, sizeof(src), "%u.%u.%u.%u", ip[12], ip[13], ip[14], ip[15]);
		snprintf(dst, sizeof(dst), "%u.%u.%u.%u", ip[16], ip[17], ip[18], ip[19]);
		sb_add(&s, "IP ");
		if (ihl < 20 || tot < ihl) {
			sb_add(&s, "%s > %s: bad header", src, dst);
		} else if (frag & 0x1fff) {
			sb_add(&s, "%s > %s: fragment offset %u proto %u", src, dst,
			       (unsigned)(frag & 0x1fff) * 8, ip[9]);
		} else {
			uint32_t avail = caplen > off + ihl ? caplen - off - ihl : 0;

			sb_l4(&s, ip[9], ip + ihl, avail, tot - ihl, src, dst, 0);
		}
		if (ip[1])
			sb_add(&s, " tos 0x%x", ip[1]);
		return;
	}
	if (et == 0x86dd && caplen >= off + 40) {
		const uint8_t *ip = f + off;
		char src[48], dst[48];
		struct sbuf a = {src, sizeof(src), 0}, b = {dst, sizeof(dst), 0};
		uint8_t nh = ip[6];
		uint32_t plen = rd16(ip + 4), hoff = 40;

		sb_ip6(&a, ip + 8);
		sb_ip6(&b, ip + 24);
		/* hop-by-hop, routing, destination options */
		while ((nh == 0 || nh == 43 || nh == 60) && caplen >= off + hoff + 8) {
			uint32_t l = ((uint32_t)ip[hoff + 1] + 1) * 8;

			nh = ip[hoff];
			hoff += l;
			plen = plen > l ? plen - l : 0;
		}
		sb_add(&s, "IP6 ");
		if (nh == 44) {
			sb_add(&s, "%s > %s: fragment", src, dst);
			return;
		}
		sb_l4(&s, nh, ip + hoff, caplen > off + hoff ? caplen - off - hoff : 0, plen, src,
		      dst, 1);
		return;
	}
	if (et == 0x0806 && caplen >= off + 28) {
		const uint8_t *a = f + off;
		uint16_t op = rd16(a + 6);

		if (op == 1)
			sb_add(&s, "ARP who-has %u.%u.%u.%u tell %u.%u.%u.%u", a[24], a[25], a[26],
			       a[27], a[14], a[15], a[16], a[17]);
		else if (op == 2)
			sb_add(&s, "ARP reply %u.%u.%u.%u is-at %02x:%02x:%02x:%02x:%02x:%02x", a[14],
			       a[15], a[16], a[17], a[8], a[9], a[10], a[11], a[12], a[13]);
		else
			sb_add(&s, "ARP op %u", op);
		return;
	}
	if (et < 0x0600)
		sb_add(&s, "802.3 length %u, %02x:%02x:%02x:%02x:%02x:%02x > %02x:%02x:%02x:%02x:%02x:%02x",
		       et, f[6], f[7], f[8], f[9], f[10], f[11], f[0], f[1], f[2], f[3], f[4], f[5]);
	else
		sb_add(&s, "ethertype 0x%04x, %02x:%02x:%02x:%02x:%02x:%02x > %02x:%02x:%02x:%02x:%02x:%02x",
		       et, f[6], f[7], f[8], f[9], f[10], f[11], f[0], f[1], f[2], f[3], f[4], f[5]);
	if ((et == 0x0800 || et == 0x86dd) && caplen < len)
		sb_add(&s, " (truncated)");
}

/* ---- the text sink ---- */

static const char *qdisc_kind(const struct qdisc *q)
{
	return q ? q->ops->id : "none";
}

static void text_sink(void *arg, const struct tev *e)
{
	struct trace *t = arg;
	FILE *o = t->out;
	char a[32], b[32];

	if (e->kind == TEV_REJECT)
		fprintf(o, "%llu %s #- %d:%llu ", (unsigned long long)e->t, e->dev->name,
			e->source + 1, (unsigned long long)e->seq);
	else
		fprintf(o, "%llu %s #%llu %d:%llu ", (unsigned long long)e->t, e->dev->name,
			(unsigned long long)e->id, e->source + 1, (unsigned long long)e->seq);
	switch (e->kind) {
	case TEV_ARRIVE: {
		char hdr[256];
		const struct pkt *p = e->p;

		fmt_priority(a, sizeof(a), p->priority);
		fprintf(o, "arrive len=%u caplen=%u proto=0x%04x priority=%s", p->len, p->caplen,
			p->protocol, a);
		if (p->vlan_present)
			fprintf(o, " vlan=%u", p->vlan_tci);
		trace_frame_summary(hdr, sizeof(hdr), e->frame, e->caplen, e->len, -1);
		for (char *c = hdr; *c; c++)
			if (*c == '"')
				*c = '\'';
		fprintf(o, " hdr=\"%s\"\n", hdr);
		break;
	}
	case TEV_REJECT:
		fprintf(o, "reject why=\"%s\"\n", e->why);
		break;
	case TEV_FILTER: {
		const struct tcf_trace *ft = e->qt->filter;

		fmt_handle(a, sizeof(a), e->q->handle);
		tc_print_protocol(b, sizeof(b), ft->protocol);
		fprintf(o, "filter qdisc=%s pref=%u proto=%s kind=%s", a, ft->pref, b, ft->kind);
		if (ft->skipped) {
			fputs(" result=skip\n", o);
			break;
		}
		if (ft->has_handle) {
			fmt_ret(b, sizeof(b), ft->ret);
			fprintf(o, " handle=0x%x ret=%s", ft->handle, b);
		}
		fmt_class(a, sizeof(a), ft->classid);
		if (!ft->match)
			fputs(" result=nomatch\n", o);
		else if (ft->has_handle && ft->ret == 0xffffffffu)
			fprintf(o, " result=flowid class=%s\n", a);
		else
			fprintf(o, " result=classid class=%s\n", a);
		break;
	}
	case TEV_CLASSIFY: {
		const struct qtrace *q = e->qt;

		fmt_handle(a, sizeof(a), e->q->handle);
		fprintf(o, "classify qdisc=%s kind=%s verdict=%s", a, qdisc_kind(e->q),
			verdict_word(q->verdict));
		if (q->verdict == VERDICT_FILTER || q->verdict == VERDICT_PRIORITY) {
			fmt_class(b, sizeof(b), q->classid);
			fprintf(o, " classid=%s", b);
		}
		if (q->verdict == VERDICT_FILTER && q->pref)
			fprintf(o, " pref=%u handle=0x%x", q->pref, q->handle);
		fprintf(o, " rule=%s", rule_word(q->rule));
		if (q->rule == QRULE_PRIOMAP || q->rule == QRULE_FALLBACK)
			fprintf(o, " map=%u", q->map_index);
		if (q->band >= 0)
			fprintf(o, " band=%d", q->band);
		if (q->class_chosen) {
			fmt_class(b, sizeof(b), q->class_chosen);
			fprintf(o, " class=%s", b);
		}
		fputc('\n', o);
		break;
	}
	case TEV_ENQUEUE: {
		const struct qtrace *q = e->qt;

		fmt_handle(a, sizeof(a), e->q->handle);
		fmt_class(b, sizeof(b), e->q->parent);
		fprintf(o, "enqueue qdisc=%s kind=%s parent=%s qlen=%u backlog=%llu", a,
			qdisc_kind(e->q), e->q->parent == TC_H_ROOT ? "root" : b, e->q->s.qlen,
			(unsigned long long)e->q->s.backlog);
		if (q->has_bucket)
			fprintf(o, " bucket=%u slot=%u flowlen=%u", q->bucket, q->slot, q->flow_qlen);
		if (q->band >= 0)
			fprintf(o, " band=%d", q->band);
		fputc('\n', o);
		break;
	}
	case TEV_DROP:
		fmt_handle(a, sizeof(a), e->q ? e->q->handle : 0);
		fprintf(o, "drop reason=%s qdisc=%s kind=%s at=%s", pkt_drop_name(e->p->drop), a,
			qdisc_kind(e->q), e->at_arrival ? "arrival" : "queued");
		if (e->by)
			fprintf(o, " by=#%llu", (unsigned long long)e->by);
		fputc('\n', o);
		break;
	case TEV_DEQUEUE:
		fmt_class(a, sizeof(a), e->p->leaf_classid);
		fmt_handle(b, sizeof(b), e->q ? e->q->handle : 0);
		fprintf(o, "dequeue class=%s qdisc=%s waited=%llu left=%u\n", a, b,
			(unsigned long long)(e->t - e->p->t_arrive), e->dev->root->s.qlen);
		fprintf(o, "%llu %s #%llu %d:%llu tx_start dur=%llu wire=%u end=%llu\n",
			(unsigned long long)e->t, e->dev->name, (unsigned long long)e->id,
			e->source + 1, (unsigned long long)e->seq, (unsigned long long)e->dur, e->wire,
			(unsigned long long)(e->t + e->dur));
		break;
	case TEV_TX_END:
		fprintf(o, "tx_end queue_delay=%llu total_delay=%llu depart=%llu\n",
			(unsigned long long)(e->p->t_dequeue - e->p->t_arrive),
			(unsigned long long)(e->p->t_depart - e->p->t_arrive),
			(unsigned long long)e->p->t_depart);
		break;
	}
}

/* ---- hooks ---- */

/* Every trace of the simulation that follows e's packet gets e. */
static void emit(const struct sim *s, const struct tev *e, uint8_t mask)
{
	for (struct trace *t = s->trace; t; t = t->next)
		if (mask & t->bit)
			t->sink(t->sink_arg, e);
}

static void tev_init(struct tev *e, enum tev_kind k, const struct dev *d, const struct pkt *p)
{
	memset(e, 0, sizeof(*e));
	e->kind = k;
	e->t = d->sim->now;
	e->dev = d;
	e->p = p;
	if (p) {
		e->id = p->id;
		e->source = p->source;
		e->seq = p->src_seq;
	}
}

static int selected(const struct trace *t, int source, uint64_t seq, const uint8_t *frame,
		    uint32_t caplen, uint32_t len)
{
	struct bpf_skb skb;

	if (t->sel_source >= 0)
		return source == t->sel_source && seq == t->sel_seq;
	if (!t->filter)
		return 1;
	if (!frame)
		return 0;
	bpf_skb_init_ether(&skb, frame, caplen, len);
	return bpf_prog_run(t->filter, &skb) != 0;
}

void trace_hook_arrival(struct dev *d, struct pkt *p, int source, const uint8_t *frame,
			uint32_t caplen, uint32_t len)
{
	struct sim *s = d->sim;
	uint8_t mask = 0;
	struct tev e;

	for (struct trace *t = s->trace; t; t = t->next) {
		t->arriving = p;
		t->arriving_id = p->id;
		if (selected(t, source, p->src_seq, frame, caplen, len)) {
			mask |= t->bit;
			t->count++;
		}
	}
	if (!mask)
		return;
	p->traced = mask;
	tev_init(&e, TEV_ARRIVE, d, p);
	e.frame = frame;
	e.caplen = caplen;
	e.len = len;
	emit(s, &e, mask);
}

void trace_hook_arrival_done(struct dev *d)
{
	for (struct trace *t = d->sim->trace; t; t = t->next) {
		t->arriving = NULL;
		t->arriving_id = 0;
	}
}

void trace_hook_reject(struct dev *d, int source, uint64_t seq, const uint8_t *frame,
		       uint32_t caplen, uint32_t len, const char *why)
{
	uint8_t mask = 0;
	struct tev e;

	for (struct trace *t = d->sim->trace; t; t = t->next)
		if (selected(t, source, seq, frame, caplen, len)) {
			mask |= t->bit;
			t->count++;
		}
	if (!mask)
		return;
	tev_init(&e, TEV_REJECT, d, NULL);
	e.source = source;
	e.seq = seq;
	e.frame = frame;
	e.caplen = caplen;
	e.len = len;
	e.why = why;
	emit(d->sim, &e, mask);
}

/* The leaf qdisc that holds (or refused) p: the root's child for its class. */
static const struct qdisc *leaf_of(const struct dev *d, const struct pkt *p)
{
	struct qdisc *root = d->root;

	if (root->ops->leaf && TC_H_MAJ(p->leaf_classid) == root->handle) {
		struct qdisc *l = root->ops->leaf(root, p->leaf_classid);

		if (l)
			return l;
	}
	return root;
}

void trace_hook_drop(struct dev *d, const struct pkt *p)
{
	const struct trace *t = d->sim->trace;
	struct tev e;

	if (!t)
		return;
	tev_init(&e, TEV_DROP, d, p);
	e.q = leaf_of(d, p);
	e.at_arrival = p == t->arriving;
	e.by = e.at_arrival ? 0 : t->arriving_id;
	emit(d->sim, &e, p->traced);
}

void trace_hook_dequeue(struct dev *d, const struct pkt *p)
{
	struct tev e;

	if (!d->sim->trace)
		return;
	tev_init(&e, TEV_DEQUEUE, d, p);
	e.q = leaf_of(d, p);
	e.dur = d->tx_done_t - d->sim->now;
	e.wire = p->len + d->overhead + (p->vlan_present ? 4u : 0u);
	emit(d->sim, &e, p->traced);
}

void trace_hook_tx_end(struct dev *d, const struct pkt *p)
{
	struct tev e;

	if (!d->sim->trace)
		return;
	tev_init(&e, TEV_TX_END, d, p);
	emit(d->sim, &e, p->traced);
}

/* What the qdiscs report (env->tracer). */
static void qdisc_event(void *arg, const struct qdisc *q, const struct pkt *p,
			const struct qtrace *ev)
{
	struct dev *d = q->env->arg; /* the device owns the env (sim.c) */
	struct tev e;

	(void)arg;
	tev_init(&e, ev->kind == QTRACE_FILTER	   ? TEV_FILTER
		     : ev->kind == QTRACE_CLASSIFY ? TEV_CLASSIFY
						   : TEV_ENQUEUE,
		 d, p);
	e.q = q;
	e.qt = ev;
	emit(d->sim, &e, p->traced);
}

/* Instruction traces go to every trace that asked for them. */
static void insn_event(const struct bpf_prog *prog, const struct bpf_trace_state *st, void *arg)
{
	const struct trace *head = arg;

	for (const struct trace *t = head->sim->trace; t; t = t->next)
		if (t->insn)
			t->insn(prog, st, t->sink_arg);
}

/* ---- opening and closing ---- */

/* The head trace's qdisc_tracer serves the chain; devices point at it. */
static void set_tracer(struct sim *s)
{
	const struct qdisc_tracer *qt = NULL;

	if (s->trace) {
		struct trace *h = s->trace;

		h->qt.event = qdisc_event;
		h->qt.arg = h;
		h->qt.insn = NULL;
		for (struct trace *t = h; t; t = t->next)
			if (t->insn)
				h->qt.insn = insn_event;
		qt = &h->qt;
	}
	s->qtracer = qt;
	for (int i = 0; i < s->ndevs; i++)
		s->devs[i]->env.tracer = qt;
}

static int trace_new(struct trace **out, struct sim *s, const char *filter_expr, char *err,
		     size_t errlen)
{
	struct trace *t;
	uint8_t used = 0, bit = 1;

	*out = NULL;
	for (t = s->trace; t; t = t->next)
		used |= t->bit;
	while (bit && (used & bit))
		bit = (uint8_t)(bit << 1);
	if (!bit) {
		snprintf(err, errlen, "too many traces of one simulation (at most 8)");
		return -EBUSY;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	t->bit = bit;
	t->sel_source = -1;
	if (filter_expr && *filter_expr) {
		struct sock_filter *insns;
		uint32_t len;
		char msg[512];
		int r = bpf_compile_expr(filter_expr, &insns, &len, msg, sizeof(msg));

		if (r) {
			/* "expression 'X': <libpcap>" -> "--trace-filter 'X': <libpcap>" */
			const char *m = strstr(msg, "': ");

			snprintf(err, errlen, "--trace-filter '%s': %s", filter_expr, m ? m + 3 : msg);
			free(t);
			return r;
		}
		r = bpf_prog_load(&t->filter, insns, len, BPF_KERNEL_CURRENT, msg, sizeof(msg));
		free(insns);
		if (r) {
			snprintf(err, errlen, "--trace-filter '%s': %s", filter_expr, msg);
			free(t);
			return r;
		}
	}
	t->sim = s;
	t->sink = text_sink;
	t->sink_arg = t;
	*out = t;
	return 0;
}

/* Joins the end of the simulation's chain of traces. */
static void trace_attach(struct trace *t)
{
	struct trace **pp = &t->sim->trace;

	while (*pp)
		pp = &(*pp)->next;
	*pp = t;
	t->next = NULL;
	set_tracer(t->sim);
}

int trace_open(struct trace **t, struct sim *s, FILE *out, const char *filter_expr, char *err,
	       size_t errlen)
{
	int r = trace_new(t, s, filter_expr, err, errlen);

	if (r)
		return r;
	(*t)->out = out;
	trace_attach(*t);
	return 0;
}

int trace_open_path(struct trace **t, struct sim *s, const char *path, const char *filter_expr,
		    char *err, size_t errlen)
{
	struct trace *n;
	size_t l = strlen(path) + 32;
	int r;

	if (!strcmp(path, "-"))
		return trace_open(t, s, stdout, filter_expr, err, errlen);
	r = trace_new(&n, s, filter_expr, err, errlen);
	if (r) {
		*t = NULL;
		return r;
	}
	n->path = strdup(path);
	n->tmp = malloc(l);
	if (!n->path || !n->tmp) {
		snprintf(err, errlen, "out of memory");
		r = -ENOMEM;
		goto fail;
	}
	snprintf(n->tmp, l, "%s.tmp.%d", path, (int)getpid());
	n->out = fopen(n->tmp, "w");
	if (!n->out) {
		r = -errno;
		snprintf(err, errlen, "--trace %s: %s", path, strerror(errno));
		goto fail;
	}
	n->own_file = 1;
	trace_attach(n);
	*t = n;
	return 0;
fail:
	free(n->path);
	free(n->tmp);
	bpf_prog_free(n->filter);
	free(n);
	*t = NULL;
	return r;
}

uint64_t trace_count(const struct trace *t)
{
	return t ? t->count : 0;
}

void trace_close(struct trace *t)
{
	if (!t)
		return;
	if (t->sim) {
		for (struct trace **pp = &t->sim->trace; *pp; pp = &(*pp)->next)
			if (*pp == t) {
				*pp = t->next;
				set_tracer(t->sim);
				break;
			}
	}
	if (t->own_file) {
		fclose(t->out);
		unlink(t->tmp);
	}
	free(t->path);
	free(t->tmp);
	bpf_prog_free(t->filter);
	free(t);
}

int trace_finish(struct trace *t, char *err, size_t errlen)
{
	int r = 0;

	if (!t)
		return 0;
	if (t->own_file) {
		FILE *f = t->out;

		t->own_file = 0;
		if (fflush(f) || ferror(f)) {
			r = -(errno ? errno : EIO);
			snprintf(err, errlen, "--trace %s: %s", t->path, strerror(-r));
			fclose(f);
			unlink(t->tmp);
		} else if (fclose(f) || rename(t->tmp, t->path)) {
			r = -(errno ? errno : EIO);
			snprintf(err, errlen, "--trace %s: %s", t->path, strerror(-r));
			unlink(t->tmp);
		}
	} else if (t->out && fflush(t->out)) {
		r = -(errno ? errno : EIO);
		snprintf(err, errlen, "trace: %s", strerror(-r));
	}
	trace_close(t);
	return r;
}

/* ====================================================================
 * explain
 * ==================================================================== */

struct xfilter {
	uint32_t qhandle;
	struct tcf_trace ft;
	char *origin;
	char *insns; /* -v: the program's instruction trace */
};

struct xclassify {
	uint32_t qhandle;
	const char *kind;
	int bands; /* prio: how many, else 0 */
	struct qtrace qt;
	uint32_t child_handle;
	const char *child_kind;
};

/* A packet that left the device while the explained one waited. */
struct xother {
	uint64_t id, t_arrive, t_dequeue, t_end;
	int source;
	uint64_t seq;
	uint32_t leaf, len;
};

struct explain {
	const struct explain_opts *o;
	struct trace *t;
	/* the packet */
	int arrived, rejected, done, dropped;
	uint64_t id, t_arrive, t_dequeue, t_end, t_depart, dur;
	uint32_t len, caplen, wire, priority, leaf;
	int vlan_tci;
	uint8_t *frame;
	uint32_t frame_len;
	uint16_t protocol;
	char why[256];
	const struct dev *dev;
	struct xfilter *filters;
	size_t nfilters;
	struct xclassify cls[4];
	size_t ncls;
	/* enqueue */
	int enqueued;
	uint32_t enq_qhandle, enq_parent, enq_qlen, enq_bucket, enq_slot, enq_flowlen;
	const char *enq_kind;
	int enq_has_bucket, enq_band;
	uint64_t enq_backlog;
	/* drop */
	enum pkt_drop drop_reason;
	uint32_t drop_qhandle;
	const char *drop_kind;
	int drop_at_arrival;
	uint64_t drop_by, drop_t;
	/* dequeue */
	uint32_t deq_qhandle, deq_left;
	/* the others */
	struct xother *others;
	size_t nothers, cap;
	/* -v */
	int verbose;
	char *insn_buf; /* the instruction trace of the program running */
	size_t insn_len, insn_cap;
	int oom;
	/* chained on_done */
	void (*prev_done)(void *arg, const struct dev *d, const struct pkt *p);
	void *prev_arg;
	struct sim *sim;
};

static char *xstrdup(struct explain *x, const char *s)
{
	char *r;

	if (!s)
		return NULL;
	r = strdup(s);
	if (!r)
		x->oom = 1;
	return r;
}

static void x_insn_add(struct explain *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void x_insn_add(struct explain *x, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (x->insn_len + (size_t)n + 1 > x->insn_cap) {
		size_t cap = (x->insn_len + (size_t)n + 1) * 2;
		char *b = realloc(x->insn_buf, cap);

		if (!b) {
			x->oom = 1;
			return;
		}
		x->insn_buf = b;
		x->insn_cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(x->insn_buf + x->insn_len, x->insn_cap - x->insn_len, fmt, ap);
	va_end(ap);
	x->insn_len += (size_t)n;
}

/* Classic BPF jumps only forward: pc 0 before the end starts a program. */
static void x_insn(const struct bpf_prog *prog, const struct bpf_trace_state *st, void *arg)
{
	struct explain *x = arg;
	char line[128];

	if (!st->done && st->pc == 0)
		x->insn_len = 0;
	if (st->done) {
		if (st->fault)
			x_insn_add(x, "        fault: %s\n", st->fault_why);
		x_insn_add(x, "        ret %u (0x%08x)\n", st->ret, st->ret);
		return;
	}
	bpf_disasm_insn(&prog->insns[st->pc], st->pc, line, sizeof(line));
	x_insn_add(x, "        l%-3u %-32s A=0x%08x X=0x%08x\n", st->pc, line, st->A, st->X);
}

static void x_sink(void *arg, const struct tev *e)
{
	struct explain *x = arg;

	switch (e->kind) {
	case TEV_ARRIVE: {
		const struct pkt *p = e->p;

		x->arrived = 1;
		x->dev = e->dev;
		x->id = p->id;
		x->t_arrive = e->t;
		x->len = p->len;
		x->caplen = p->caplen;
		x->priority = p->priority;
		x->protocol = p->protocol;
		x->vlan_tci = p->vlan_present ? p->vlan_tci : -1;
		x->frame = malloc(e->caplen ? e->caplen : 1);
		if (!x->frame) {
			x->oom = 1;
			break;
		}
		memcpy(x->frame, e->frame, e->caplen);
		x->frame_len = e->caplen;
		break;
	}
	case TEV_REJECT:
		x->arrived = x->rejected = 1;
		x->dev = e->dev;
		x->t_arrive = e->t;
		x->len = e->len;
		x->caplen = e->caplen;
		snprintf(x->why, sizeof(x->why), "%s", e->why);
		x->frame = malloc(e->caplen ? e->caplen : 1);
		if (x->frame && e->frame) {
			memcpy(x->frame, e->frame, e->caplen);
			x->frame_len = e->caplen;
		}
		break;
	case TEV_FILTER: {
		struct xfilter *f = realloc(x->filters, (x->nfilters + 1) * sizeof(*f));

		if (!f) {
			x->oom = 1;
			break;
		}
		x->filters = f;
		f += x->nfilters++;
		memset(f, 0, sizeof(*f));
		f->qhandle = e->q->handle;
		f->ft = *e->qt->filter;
		f->ft.origin = NULL;
		f->origin = xstrdup(x, e->qt->filter->origin);
		if (x->verbose && x->insn_len && f->ft.has_handle) {
			f->insns = xstrdup(x, x->insn_buf);
			x->insn_len = 0;
		}
		break;
	}
	case TEV_CLASSIFY:
		if (x->ncls < sizeof(x->cls) / sizeof(x->cls[0])) {
			struct xclassify *c = &x->cls[x->ncls++];

			c->qhandle = e->q->handle;
			c->kind = e->q->ops->id;
			c->qt = *e->qt;
			c->qt.filter = NULL;
			c->child_handle = e->qt->child ? e->qt->child->handle : 0;
			c->child_kind = e->qt->child ? e->qt->child->ops->id : NULL;
			c->qt.child = NULL;
			if (e->q->ops == &prio_qdisc_ops && e->q->ops->walk) {
				uint32_t n = 0;

				for (uint32_t i = 1; i <= 16; i++)
					if (e->q->ops->leaf((struct qdisc *)e->q, TC_H_MAKE(e->q->handle, i)))
						n = i;
				c->bands = (int)n;
			}
		}
		break;
	case TEV_ENQUEUE:
		x->enqueued = 1;
		x->enq_qhandle = e->q->handle;
		x->enq_parent = e->q->parent;
		x->enq_kind = e->q->ops->id;
		x->enq_qlen = e->q->s.qlen;
		x->enq_backlog = e->q->s.backlog;
		x->enq_has_bucket = e->qt->has_bucket;
		x->enq_bucket = e->qt->bucket;
		x->enq_slot = e->qt->slot;
		x->enq_flowlen = e->qt->flow_qlen;
		x->enq_band = e->qt->band;
		break;
	case TEV_DROP:
		x->dropped = 1;
		x->drop_t = e->t;
		x->drop_reason = e->p->drop;
		x->drop_qhandle = e->q ? e->q->handle : 0;
		x->drop_kind = e->q ? e->q->ops->id : "none";
		x->drop_at_arrival = e->at_arrival;
		x->drop_by = e->by;
		x->leaf = e->p->leaf_classid;
		break;
	case TEV_DEQUEUE:
		x->t_dequeue = e->t;
		x->dur = e->dur;
		x->wire = e->wire;
		x->leaf = e->p->leaf_classid;
		x->deq_qhandle = e->q ? e->q->handle : 0;
		x->deq_left = e->dev->root->s.qlen;
		break;
	case TEV_TX_END:
		x->done = 1;
		x->t_end = e->t;
		x->t_depart = e->p->t_depart;
		break;
	}
}

/* Every packet that leaves: those sent on the device between the
 * explained packet's arrival and its own end are the ones it waited for. */
static void x_done(void *arg, const struct dev *d, const struct pkt *p)
{
	struct explain *x = arg;

	if (x->prev_done)
		x->prev_done(x->prev_arg, d, p);
	if (!x->arrived || x->rejected || x->done || x->dropped || d != x->dev || p->drop ||
	    p->id == x->id)
		return;
	if (x->nothers == x->cap) {
		size_t cap = x->cap ? x->cap * 2 : 64;
		struct xother *v = realloc(x->others, cap * sizeof(*v));

		if (!v) {
			x->oom = 1;
			return;
		}
		x->others = v;
		x->cap = cap;
	}
	x->others[x->nothers++] = (struct xother){
		.id = p->id, .t_arrive = p->t_arrive, .t_dequeue = p->t_dequeue,
		.t_end = d->sim->now, .source = p->source, .seq = p->src_seq,
		.leaf = p->leaf_classid, .len = p->len};
}

static void fmt_dur(char *b, size_t n, uint64_t ns)
{
	if (ns < 1000)
		snprintf(b, n, "%llu ns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(b, n, "%.3f us", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(b, n, "%.3f ms", ns / 1e6);
	else
		snprintf(b, n, "%.3f s", ns / 1e9);
}

static void fmt_time(char *b, size_t n, uint64_t ns)
{
	snprintf(b, n, "%llu.%09llu s", (unsigned long long)(ns / 1000000000u),
		 (unsigned long long)(ns % 1000000000u));
}

static void fmt_rate(char *b, size_t n, uint64_t bps)
{
	if (!bps)
		snprintf(b, n, "an unlimited rate");
	else if (bps % 1000000000 == 0)
		snprintf(b, n, "%llu Gbit/s", (unsigned long long)(bps / 1000000000));
	else if (bps % 1000000 == 0)
		snprintf(b, n, "%llu Mbit/s", (unsigned long long)(bps / 1000000));
	else if (bps % 1000 == 0)
		snprintf(b, n, "%llu kbit/s", (unsigned long long)(bps / 1000));
	else
		snprintf(b, n, "%llu bit/s", (unsigned long long)bps);
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static void x_filter_line(FILE *out, const struct xfilter *f, const struct explain *x)
{
	const struct tcf_trace *ft = &f->ft;
	char proto[32], c[32], fl[32], h[16];

	tc_print_protocol(proto, sizeof(proto), ft->protocol);
	fmt_handle(h, sizeof(h), f->qhandle);
	if (ft->skipped) {
		char pp[32];

		tc_print_protocol(pp, sizeof(pp), x->vlan_tci >= 0 ? 0x8100 : x->protocol);
		fprintf(out, "  pref %u (%s, protocol %s): skipped, the packet's protocol is %s\n",
			ft->pref, ft->kind, proto, pp);
		return;
	}
	fprintf(out, "  pref %u", ft->pref);
	if (ft->has_handle)
		fprintf(out, " handle 0x%x", ft->handle);
	fprintf(out, " (%s", ft->kind);
	if (f->origin)
		fprintf(out, " %s", f->origin);
	fprintf(out, ", protocol %s", proto);
	if (ft->has_flowid) {
		fmt_class(fl, sizeof(fl), ft->flowid);
		fprintf(out, ", flowid %s", fl);
	}
	fputs("): ", out);
	fmt_class(c, sizeof(c), ft->classid);
	if (!ft->has_handle) {
		if (ft->match)
			fprintf(out, "matched, classid %s\n", c);
		else
			fputs("no match\n", out);
	} else if (!ft->match) {
		fputs("returned 0 = no match, on to the next\n", out);
	} else if (ft->ret == 0xffffffffu) {
		if (ft->has_flowid)
			fprintf(out, "returned -1 = match, the filter's flowid %s\n", c);
		else
			fprintf(out, "returned -1 = match, but the filter has no flowid: classid %s\n", c);
	} else {
		fprintf(out, "returned %u = match, and cls_bpf takes the return value itself as the classid: %s (%u)",
			ft->ret, c, ft->classid);
		if (ft->has_flowid)
			fprintf(out, "; its flowid %s is not used", fl);
		fputc('\n', out);
	}
	if (f->insns && *f->insns) {
		fputs("        (A and X before each instruction)\n", out);
		fputs(f->insns, out);
	}
	(void)h;
}

static void x_classify(FILE *out, const struct xclassify *c, const struct explain *x)
{
	const struct qtrace *q = &c->qt;
	char h[16], cid[32], cl[32], pr[32];

	fmt_handle(h, sizeof(h), c->qhandle);
	fmt_class(cid, sizeof(cid), q->classid);
	fmt_class(cl, sizeof(cl), q->class_chosen);
	fmt_priority(pr, sizeof(pr), x->priority);
	switch (q->verdict) {
	case VERDICT_FILTER:
		fprintf(out, "  verdict: classid %s (%u), from filter pref %u handle 0x%x\n", cid,
			q->classid, q->pref, q->handle);
		break;
	case VERDICT_PRIORITY:
		fprintf(out, "  verdict: classid %s, from skb->priority\n", cid);
		break;
	case VERDICT_UNCLASSIFIED:
		fputs("  verdict: unclassified, no filter matched\n", out);
		break;
	default:
		fprintf(out, "  verdict: none, %s has no filters\n", h);
		break;
	}
	if (!strcmp(c->kind, "prio")) {
		fprintf(out, "  band %d = class %s: ", q->band, cl);
		switch (q->rule) {
		case QRULE_FILTER:
			fprintf(out, "the filter's classid %s names band %d of %s (minor %u - 1)\n",
				cid, q->band, h, q->classid & 0xffff);
			break;
		case QRULE_PRIORITY:
			fprintf(out, "skb->priority %s names class %s of %s directly\n", pr, cl, h);
			break;
		case QRULE_PRIOMAP:
			if (TC_H_MAJ(x->priority))
				fprintf(out, "no class from the filters, and skb->priority %s belongs to another qdisc, so it counts as 0: priomap[0] = %d\n",
					pr, q->band);
			else
				fprintf(out, "no class from the filters: priomap[priority & 15] = priomap[%u] = %d (skb->priority %s)\n",
					q->map_index, q->band, pr);
			break;
		case QRULE_FALLBACK:
			fprintf(out, "classid %s names no band of %s (%s; it has %d bands), so prio falls back to priomap[0] = %d%s\n",
				cid, h,
				(q->classid & 0xffff) == 0 ? "minor 0" : "minor beyond the bands",
				c->bands, q->band,
				q->verdict == VERDICT_FILTER ? ", whatever the filter's flowid says" : "");
			break;
		default:
			fputc('\n', out);
			break;
		}
	} else if (!strcmp(c->kind, "pfifo_fast")) {
		fprintf(out, "  band %d: pfifo_fast's priomap[priority & 15] = priomap[%u] (skb->priority %s)\n",
			q->band, q->map_index, pr);
	} else if (q->rule == QRULE_DROP) {
		fprintf(out, "  classid %s names no bucket of %s: dropped\n", cid, h);
	} else if (q->class_chosen) {
		fprintf(out, "  bucket %u (class %s), chosen by the %s\n", (q->class_chosen & 0xffff) - 1,
			cl, q->rule == QRULE_PRIORITY ? "priority" : "filter");
	}
}

/* Rank of a root class for strict priority: prio's band, else 0. */
static int x_rank(const struct explain *x, uint32_t leaf)
{
	const struct qdisc *root = x->dev->root;

	if (root->ops == &prio_qdisc_ops && TC_H_MAJ(leaf) == root->handle)
		return (int)(leaf & 0xffff) - 1;
	return 0;
}

struct xgroup {
	uint32_t leaf;
	int cat; /* 0 outranks & after, 1 higher & before, 2 own before, 3 own after, 4 lower */
	uint64_t n;
};

static void x_waited(FILE *out, struct explain *x)
{
	const struct qdisc *root = x->dev->root;
	int prio_root = root->ops == &prio_qdisc_ops;
	int mine = x_rank(x, x->leaf);
	const struct xother *wire = NULL;
	struct xgroup g[64];
	size_t ng = 0;
	uint64_t before = 0;
	char b[64], c[32];

	for (size_t i = 0; i < x->nothers; i++) {
		const struct xother *o = &x->others[i];
		int r, cat;
		size_t j;

		if (o->t_dequeue <= x->t_arrive && o->t_end > x->t_arrive && o->id != x->id &&
		    !wire && o->t_dequeue < x->t_dequeue + 1) {
			if (o->t_dequeue < x->t_arrive || o->t_arrive < x->t_arrive ||
			    (o->t_arrive == x->t_arrive && o->id < x->id)) {
				wire = o;
				continue;
			}
		}
		if (o->t_dequeue > x->t_dequeue)
			continue;
		before++;
		r = x_rank(x, o->leaf);
		if (r < mine)
			cat = o->t_arrive > x->t_arrive || (o->t_arrive == x->t_arrive && o->id > x->id) ? 0 : 1;
		else if (r == mine)
			cat = o->t_arrive < x->t_arrive || (o->t_arrive == x->t_arrive && o->id < x->id) ? 2 : 3;
		else
			cat = 4;
		for (j = 0; j < ng; j++)
			if (g[j].cat == cat && (!prio_root || g[j].leaf == o->leaf))
				break;
		if (j == ng && ng < sizeof(g) / sizeof(g[0]))
			g[ng++] = (struct xgroup){.leaf = o->leaf, .cat = cat};
		if (j < ng)
			g[j].n++;
	}
	if (wire) {
		fmt_dur(b, sizeof(b), wire->t_end - x->t_arrive);
		fmt_class(c, sizeof(c), wire->leaf);
		fprintf(out, "  on arrival the wire was busy with #%llu (%d:%llu, class %s, %u bytes) for %s more\n",
			(unsigned long long)wire->id, wire->source + 1, (unsigned long long)wire->seq, c,
			wire->len, b);
	} else {
		fputs("  on arrival the wire was idle\n", out);
	}
	fmt_dur(b, sizeof(b), x->t_dequeue - x->t_arrive);
	if (!before) {
		fprintf(out, "  waited %s: no packet left before it%s\n", b,
			wire ? ", only the one on the wire" : "");
		return;
	}
	fprintf(out, "  waited %s: %llu %s left before it%s:\n", b, (unsigned long long)before,
		plural(before, "packet", "packets"), wire ? ", after the one on the wire" : "");
	/* categories in a fixed order: who outranked it, then its own band */
	for (int cat = 0; cat <= 4; cat++)
		for (size_t j = 0; j < ng; j++) {
			const char *what = "";

			if (g[j].cat != cat)
				continue;
			fmt_class(c, sizeof(c), g[j].leaf);
			switch (cat) {
			case 0: what = "that arrived after it but outrank it (strict priority)"; break;
			case 1: what = "already queued in a higher band (strict priority)"; break;
			case 2:
				what = !strcmp(x->enq_kind ? x->enq_kind : "", "sfq")
					   ? "that were ahead of it in sfq's round robin"
					   : "that were ahead of it in the queue";
				break;
			case 3:
				what = !strcmp(x->enq_kind ? x->enq_kind : "", "sfq")
					   ? "that arrived after it but were served first by sfq's round robin (other flows' turns)"
					   : "that arrived after it but were served first";
				break;
			default: what = "of a lower band"; break;
			}
			if (!prio_root)
				fprintf(out, "    %llu %s\n", (unsigned long long)g[j].n, what);
			else if (cat >= 2 && cat <= 3)
				fprintf(out, "    %llu of its own band %s %s\n", (unsigned long long)g[j].n,
					c, what);
			else
				fprintf(out, "    %llu of band %s %s\n", (unsigned long long)g[j].n, c, what);
		}
}

static void x_report(FILE *out, struct explain *x, const struct sim *s)
{
	const struct explain_opts *o = x->o;
	const char *label = o->label ? o->label : s->srcs[o->source].src->name;
	char hdr[512], b[64], c[64], h[16];

	trace_frame_summary(hdr, sizeof(hdr), x->frame, x->frame_len, x->len, x->vlan_tci);
	if (x->rejected) {
		fprintf(out, "packet %d:%llu of %s, on %s\n", o->source + 1,
			(unsigned long long)o->seq, label, x->dev->name);
		fmt_time(b, sizeof(b), x->t_arrive);
		fprintf(out, "  arrives at %s, %u bytes (%u captured)\n", b, x->len, x->caplen);
		fprintf(out, "  headers: %s\n", hdr);
		fprintf(out, "rejected: %s; it never reached a qdisc\n", x->why);
		return;
	}
	fprintf(out, "packet %d:%llu of %s (#%llu in arrival order), on %s\n", o->source + 1,
		(unsigned long long)o->seq, label, (unsigned long long)x->id, x->dev->name);
	fmt_time(b, sizeof(b), x->t_arrive);
	fprintf(out, "  arrives at %s, %u bytes (%u captured)\n", b, x->len, x->caplen);
	fprintf(out, "  headers: %s\n", hdr);
	fmt_priority(c, sizeof(c), x->priority);
	fprintf(out, "  skb->priority %s, protocol 0x%04x", c, x->protocol);
	if (x->vlan_tci >= 0)
		fprintf(out, ", VLAN tag %u offloaded", x->vlan_tci & 0xfff);
	fputc('\n', out);

	for (size_t k = 0; k < x->ncls; k++) {
		const struct xclassify *cl = &x->cls[k];
		size_t nf = 0;

		fmt_handle(h, sizeof(h), cl->qhandle);
		fprintf(out, "classification by %s (%s", h, cl->kind);
		if (cl->bands)
			fprintf(out, ", %d bands", cl->bands);
		fputs(")\n", out);
		for (size_t i = 0; i < x->nfilters; i++)
			if (x->filters[i].qhandle == cl->qhandle) {
				x_filter_line(out, &x->filters[i], x);
				nf++;
			}
		if (!nf && cl->qt.verdict != VERDICT_PRIORITY && cl->qt.verdict != VERDICT_NONE)
			fputs("  (no filter applies)\n", out);
		x_classify(out, &x->cls[k], x);
	}

	fputs("queueing\n", out);
	if (x->enqueued) {
		fmt_handle(h, sizeof(h), x->enq_qhandle);
		fmt_class(c, sizeof(c), x->enq_parent);
		fprintf(out, "  enqueued in %s (%s", h, x->enq_kind);
		if (x->enq_parent != TC_H_ROOT)
			fprintf(out, " under class %s", c);
		fputs(")", out);
		if (x->enq_has_bucket)
			fprintf(out, ", hash bucket %u, slot %u, where its flow now holds %u %s", x->enq_bucket,
				x->enq_slot, x->enq_flowlen, plural(x->enq_flowlen, "packet", "packets"));
		fprintf(out, "; the qdisc holds %u %s (%llu bytes)\n", x->enq_qlen,
			plural(x->enq_qlen, "packet", "packets"), (unsigned long long)x->enq_backlog);
	}
	if (x->dropped) {
		fmt_handle(h, sizeof(h), x->drop_qhandle);
		fmt_time(b, sizeof(b), x->drop_t);
		if (x->drop_at_arrival) {
			fprintf(out, "  dropped on arrival by %s (%s): %s", h, x->drop_kind,
				pkt_drop_name(x->drop_reason));
		} else {
			fmt_dur(c, sizeof(c), x->drop_t - x->t_arrive);
			fprintf(out, "  dropped at %s, after %s in %s (%s): %s", b, c, h, x->drop_kind,
				pkt_drop_name(x->drop_reason));
		}
		switch (x->drop_reason) {
		case DROP_QDISC_LIMIT: fputs(" (the qdisc's limit was reached)", out); break;
		case DROP_SFQ_DEPTH: fputs(" (its flow held sfq's depth of packets)", out); break;
		case DROP_SFQ_MAXFLOWS: fputs(" (sfq had no free slot for a new flow)", out); break;
		case DROP_SFQ_CLASSIFY: fputs(" (sfq's filters gave no bucket)", out); break;
		case DROP_SFQ_REHASH: fputs(" (lost when sfq re-hashed its queues)", out); break;
		case DROP_QDISC_DESTROY: fputs(" (its qdisc was replaced or deleted)", out); break;
		case DROP_NOOP: fputs(" (a noop qdisc drops everything)", out); break;
		default: break;
		}
		if (x->drop_by)
			fprintf(out, ", to make room for #%llu", (unsigned long long)x->drop_by);
		fputc('\n', out);
		return;
	}
	if (!x->t_dequeue && !x->done) {
		fputs("  still queued when the run ended\n", out);
		return;
	}
	x_waited(out, x);
	fputs("transmission\n", out);
	fmt_time(b, sizeof(b), x->t_dequeue);
	fmt_class(c, sizeof(c), x->leaf);
	fmt_handle(h, sizeof(h), x->deq_qhandle);
	fprintf(out, "  dequeued at %s from %s (class %s); %u %s left in the root\n", b, h, c,
		x->deq_left, plural(x->deq_left, "packet", "packets"));
	fmt_dur(b, sizeof(b), x->dur);
	fmt_rate(c, sizeof(c), x->dev->rate_bps);
	fprintf(out, "  on the wire for %s (%u bytes at %s)\n", b, x->wire, c);
	fmt_time(b, sizeof(b), x->t_depart);
	fmt_dur(c, sizeof(c), x->t_depart - x->t_arrive);
	fprintf(out, "  departs at %s: total delay %s", b, c);
	{
		char q[32], w[32], p[32];

		fmt_dur(q, sizeof(q), x->t_dequeue - x->t_arrive);
		fmt_dur(w, sizeof(w), x->dur);
		fmt_dur(p, sizeof(p), x->t_depart - x->t_end);
		fprintf(out, " = queue %s + wire %s + propagation %s\n", q, w, p);
	}
}

int explain_begin(struct explain **xp, struct sim *s, const struct explain_opts *o, char *err,
		  size_t errlen)
{
	struct explain *x;
	struct trace *t;
	int r;

	*xp = NULL;
	if (!o->seq) {
		snprintf(err, errlen, "--packet: packets are numbered from 1");
		return -ENOENT;
	}
	x = calloc(1, sizeof(*x));
	if (!x) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	x->o = o;
	r = trace_new(&t, s, NULL, err, errlen);
	if (r) {
		free(x);
		return r;
	}
	t->sel_source = o->source;
	t->sel_seq = o->seq;
	t->sink = x_sink;
	t->sink_arg = x;
	x->t = t;
	if (o->verbose) {
		x->verbose = 1;
		t->insn = x_insn;
	}
	trace_attach(t);
	x->prev_done = s->on_done;
	x->prev_arg = s->on_done_arg;
	s->on_done = x_done;
	s->on_done_arg = x;
	x->sim = s;
	*xp = x;
	return 0;
}

static void explain_free(struct explain *x)
{
	struct sim *s = x->sim;

	if (s->on_done == x_done && s->on_done_arg == x) {
		s->on_done = x->prev_done;
		s->on_done_arg = x->prev_arg;
	}
	trace_close(x->t);
	free(x->insn_buf);
	for (size_t i = 0; i < x->nfilters; i++) {
		free(x->filters[i].origin);
		free(x->filters[i].insns);
	}
	free(x->filters);
	free(x->others);
	free(x->frame);
	free(x);
}

void explain_abort(struct explain *x)
{
	if (x)
		explain_free(x);
}

int explain_end(struct explain *x, FILE *out, char *err, size_t errlen)
{
	const struct explain_opts *o = x->o;
	struct sim *s = x->sim;
	int r = 0;

	if (o->source < 0 || o->source >= s->nsrcs) {
		snprintf(err, errlen, "--packet %d:%llu: there %s only %d %s", o->source + 1,
			 (unsigned long long)o->seq, s->nsrcs == 1 ? "is" : "are", s->nsrcs,
			 plural((uint64_t)s->nsrcs, "capture", "captures"));
		r = -ENOENT;
	} else if (x->oom) {
		snprintf(err, errlen, "out of memory");
		r = -ENOMEM;
	} else if (!x->arrived) {
		const struct sim_source *ss = &s->srcs[o->source];

		snprintf(err, errlen, "--packet %d:%llu: capture %d (%s) has only %llu %s", o->source + 1,
			 (unsigned long long)o->seq, o->source + 1,
			 o->label ? o->label : ss->src->name, (unsigned long long)ss->read,
			 plural(ss->read, "packet", "packets"));
		r = -ENOENT;
	} else {
		x_report(out, x, s);
	}
	explain_free(x);
	return r;
}

int explain_packet(struct sim *s, const struct explain_opts *o, FILE *out, char *err,
		   size_t errlen)
{
	struct explain *x;
	int r;

	if (o->source < 0 || o->source >= s->nsrcs) {
		snprintf(err, errlen, "--packet %d:%llu: there %s only %d %s", o->source + 1,
			 (unsigned long long)o->seq, s->nsrcs == 1 ? "is" : "are", s->nsrcs,
			 plural((uint64_t)s->nsrcs, "capture", "captures"));
		return -ENOENT;
	}
	r = explain_begin(&x, s, o, err, errlen);
	if (r)
		return r;
	if (sim_run(s)) {
		snprintf(err, errlen, "%s", s->err);
		explain_abort(x);
		return -EIO;
	}
	return explain_end(x, out, err, errlen);
}

/* ---- tcsim explain ---- */

static const char usage_explain[] =
	"usage: tcsim explain --tc FILE [run options] [-v] [--trace FILE|- [--trace-filter EXPR]]\n"
	"                     --packet [K:]N CAPTURE...\n"
	"  --packet N       packet N (from 1) of the first capture; K:N = of capture K\n"
	"  -v, --verbose    also the instruction-level trace of every filter program run on it\n"
	"  --trace FILE     also write the trace of the whole run (see docs/trace.md); '-' = stdout\n"
	"  --trace-filter E trace only the packets the tcpdump expression E accepts\n"
	"run options, as tcsim run: --rate --overhead --mtu --txqueuelen --delay --dev --speed\n"
	"  --pps --mbps --topspeed --loop --limit --duration --priority --vlan --seed --kernel\n"
	"  --sfq-allot --sfq-hash   (tcsim run --help)\n";

static int x_parse_packet(const char *a, int *source, uint64_t *seq)
{
	const char *colon = strchr(a, ':');
	uint64_t k = 1;

	if (colon) {
		char kb[32];

		if ((size_t)(colon - a) >= sizeof(kb))
			return -1;
		memcpy(kb, a, (size_t)(colon - a));
		kb[colon - a] = 0;
		if (opt_parse_u64(kb, &k) || !k || k > SIM_MAX_SOURCES)
			return -1;
		a = colon + 1;
	}
	if (opt_parse_u64(a, seq) || !*seq)
		return -1;
	*source = (int)k - 1;
	return 0;
}

int explain_main(int argc, char **argv)
{
	enum { O_PACKET = 256, O_TRACE, O_TFILTER, O_HELP };
	static const struct option own[] = {
		{"packet", required_argument, NULL, O_PACKET},
		{"trace", required_argument, NULL, O_TRACE},
		{"trace-filter", required_argument, NULL, O_TFILTER},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, O_HELP},
		{NULL, 0, NULL, 0},
	};
	struct option longopts[48];
	struct run_opts opts;
	struct sim_config cfg;
	struct explain_opts xo = {.source = -1};
	struct sim s;
	struct trace *tr = NULL;
	char *xout = NULL;
	size_t xout_len = 0;
	FILE *xmem = NULL, *devnull;
	const char *tcfile = NULL, *trace_path = NULL, *trace_filter = NULL;
	char err[1024];
	int c, li = 0, rc = 1;

	run_opts_default(&opts);
	run_opts_longopts(longopts, sizeof(longopts) / sizeof(longopts[0]), own);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+v", longopts, &li)) != -1) {
		const char *a = optarg;
		int bad = 0, r = run_opts_apply(&opts, c, a);

		if (r < 0)
			bad = 1;
		else if (r == 0)
			switch (c) {
			case O_PACKET: bad = x_parse_packet(a, &xo.source, &xo.seq); break;
			case O_TRACE: trace_path = a; break;
			case O_TFILTER: trace_filter = a; break;
			case 'v': xo.verbose = 1; break;
			case O_HELP: fputs(usage_explain, stdout); return 0;
			default:
				fprintf(stderr,
					"tcsim explain: unknown option or missing value '%s' (tcsim explain --help)\n",
					argv[optind - 1]);
				return 2;
			}
		if (bad) {
			fprintf(stderr, "tcsim explain: --%s '%s': not a valid value (tcsim explain --help)\n",
				c == 'v' ? "verbose" : longopts[li].name, a);
			return 2;
		}
	}
	cfg = opts.cfg;
	tcfile = opts.tcfile;
	if (!tcfile || optind >= argc || xo.source < 0) {
		fprintf(stderr, "tcsim explain: give --tc FILE, --packet [K:]N and at least one CAPTURE (tcsim explain --help)\n");
		return 2;
	}
	if (trace_filter && !trace_path) {
		fprintf(stderr, "tcsim explain: --trace-filter needs --trace FILE\n");
		return 2;
	}
	if (xo.source >= argc - optind) {
		fprintf(stderr, "tcsim: --packet %d:%llu: there %s only %d %s\n", xo.source + 1,
			(unsigned long long)xo.seq, argc - optind == 1 ? "is" : "are", argc - optind,
			argc - optind == 1 ? "capture" : "captures");
		return 1;
	}
	xo.label = argv[optind + xo.source];
	if (sim_init(&s, &cfg)) {
		fprintf(stderr, "tcsim: out of memory\n");
		return 1;
	}
	/* show commands of the tc file: explain prints only its account */
	devnull = fopen("/dev/null", "w");
	if (!devnull || tc_run_file(&s, tcfile, devnull, err, sizeof(err))) {
		fprintf(stderr, "tcsim: %s\n", devnull ? err : strerror(errno));
		goto out;
	}
	if (run_opts_add_captures(&s, &opts, argv + optind, argc - optind, err, sizeof(err))) {
		fprintf(stderr, "tcsim: %s\n", err);
		goto out;
	}
	xmem = open_memstream(&xout, &xout_len);
	if (!xmem) {
		fprintf(stderr, "tcsim: out of memory\n");
		goto out;
	}
	if (trace_path && trace_open_path(&tr, &s, trace_path, trace_filter, err, sizeof(err))) {
		fprintf(stderr, "tcsim: %s\n", err);
		goto out;
	}
	/* explain's own trace joins the file's: each sees the packets it chose */
	if (explain_packet(&s, &xo, xmem, err, sizeof(err))) {
		fprintf(stderr, "tcsim: %s\n", err);
		goto out;
	}
	if (tr) {
		int r = trace_finish(tr, err, sizeof(err));

		tr = NULL;
		if (r) {
			fprintf(stderr, "tcsim: %s\n", err);
			goto out;
		}
	}
	fflush(xmem);
	fwrite(xout, 1, xout_len, stdout);
	rc = 0;
out:
	trace_close(tr);
	if (xmem)
		fclose(xmem);
	free(xout);
	if (devnull)
		fclose(devnull);
	sim_free(&s);
	return rc;
}
