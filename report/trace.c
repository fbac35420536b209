/* trace.c - per-packet trace lines (the format is documented in trace.h):
 * an observer of the simulation (sim/observe.h) that follows the packets
 * its tcpdump expression accepts and writes one line per event. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf_asm.h"
#include "bpf_load.h"
#include "fmt.h"
#include "outfile.h"
#include "trace.h"

struct trace {
	struct sim *sim;
	struct sim_observer obs;
	FILE *out;
	struct outfile file;	 /* trace_open_path's (file.f NULL otherwise) */
	struct bpf_prog *filter; /* NULL: every packet */
	uint64_t count;
};

/* ---- words ---- */

static void fmt_ret(char *b, size_t n, uint32_t ret)
{
	if (ret == 0xffffffffu)
		snprintf(b, n, "-1");
	else
		snprintf(b, n, "%u", ret);
}

static const char *rule_word(enum qtrace_rule r)
{
	switch (r) {
	case QRULE_FILTER: return "filter";
	case QRULE_PRIORITY: return "priority";
	case QRULE_PRIOMAP: return "priomap";
	case QRULE_FALLBACK: return "fallback";
	case QRULE_DROP: return "drop";
	case QRULE_DEFAULT: return "default";
	case QRULE_DIRECT: return "direct";
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

static void text_sink(void *arg, const struct sim_event *e)
{
	struct trace *t = arg;
	FILE *o = t->out;
	char a[32], b[32];

	if (e->kind == SIM_EV_REJECT)
		fprintf(o, "%llu %s #- %d:%llu ", (unsigned long long)e->t, e->dev->name,
			e->source + 1, (unsigned long long)e->seq);
	else
		fprintf(o, "%llu %s #%llu %d:%llu ", (unsigned long long)e->t, e->dev->name,
			(unsigned long long)e->id, e->source + 1, (unsigned long long)e->seq);
	switch (e->kind) {
	case SIM_EV_ARRIVE: {
		char hdr[256];
		const struct pkt *p = e->p;

		fmt_priority(a, sizeof(a), p->priority);
		fprintf(o, "arrive len=%u caplen=%u proto=0x%04x priority=%s", p->len, p->caplen,
			p->protocol, a);
		if (p->mark)
			fprintf(o, " mark=0x%x", p->mark);
		if (p->vlan_present)
			fprintf(o, " vlan=%u", p->vlan_tci);
		trace_frame_summary(hdr, sizeof(hdr), e->frame, e->caplen, e->len, -1);
		for (char *c = hdr; *c; c++)
			if (*c == '"')
				*c = '\'';
		fprintf(o, " hdr=\"%s\"\n", hdr);
		break;
	}
	case SIM_EV_REJECT:
		fprintf(o, "reject why=\"%s\"\n", e->why);
		break;
	case SIM_EV_FILTER: {
		const struct tcf_trace *ft = e->qt->filter;

		fmt_handle(a, sizeof(a), e->q->handle);
		tc_print_protocol(b, sizeof(b), ft->protocol);
		fprintf(o, "filter qdisc=%s pref=%u proto=%s kind=%s", a, ft->pref, b, ft->kind);
		if (ft->skipped) {
			fputs(" result=skip\n", o);
			break;
		}
		if (ft->why[0]) {
			/* a kind without a return value (matchall, fw): its reason */
			if (ft->has_handle)
				fprintf(o, " handle=0x%x", ft->handle);
			fmt_class(a, sizeof(a), ft->classid);
			if (ft->match)
				fprintf(o, " result=classid class=%s", a);
			else
				fputs(" result=nomatch", o);
			fprintf(o, " why=\"%s\"\n", ft->why);
			break;
		}
		if (ft->has_handle) {
			fprintf(o, " handle=0x%x", ft->handle);
			if (!ft->detail) { /* a kind with a detail (u32) returns nothing */
				fmt_ret(b, sizeof(b), ft->ret);
				fprintf(o, " ret=%s", b);
			}
		}
		fmt_class(a, sizeof(a), ft->classid);
		if (!ft->match)
			fputs(" result=nomatch", o);
		else if (ft->has_handle && (ft->detail || ft->ret == 0xffffffffu))
			fprintf(o, " result=flowid class=%s", a);
		else
			fprintf(o, " result=classid class=%s", a);
		if (ft->detail)
			fprintf(o, " why=\"%s\"", ft->detail);
		fputc('\n', o);
		break;
	}
	case SIM_EV_CLASSIFY: {
		const struct qtrace *q = e->qt;

		fmt_handle(a, sizeof(a), e->q->handle);
		fprintf(o, "classify qdisc=%s kind=%s verdict=%s", a, qdisc_kind(e->q),
			pkt_verdict_name(q->verdict));
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
	case SIM_EV_ENQUEUE: {
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
		if (q->has_netem) {
			/* netem: when it may leave, and what was done to it */
			fprintf(o, " delay=%lld send_at=%llu", (long long)q->netem_delay,
				(unsigned long long)q->until);
			if (q->netem_flags & NETEM_TR_REORDER)
				fputs(" reordered=1", o);
			if (q->netem_flags & NETEM_TR_CORRUPT)
				fputs(" corrupted=1", o);
			if (q->netem_flags & NETEM_TR_ECN)
				fputs(" ecn=ce", o);
			if (q->netem_flags & NETEM_TR_DUP)
				fprintf(o, " dup=#%llu", (unsigned long long)q->dup_id);
		}
		fputc('\n', o);
		break;
	}
	case SIM_EV_DROP:
		fmt_handle(a, sizeof(a), e->q ? e->q->handle : 0);
		fprintf(o, "drop reason=%s qdisc=%s kind=%s at=%s", pkt_drop_name(e->p->drop), a,
			qdisc_kind(e->q), e->at_arrival ? "arrival" : "queued");
		if (e->by)
			fprintf(o, " by=#%llu", (unsigned long long)e->by);
		fputc('\n', o);
		break;
	case SIM_EV_DEQUEUE:
		fmt_class(a, sizeof(a), e->p->leaf_classid);
		fmt_handle(b, sizeof(b), e->q ? e->q->handle : 0);
		fprintf(o, "dequeue class=%s qdisc=%s waited=%llu left=%u\n", a, b,
			(unsigned long long)(e->t - e->p->t_arrive), e->dev->root->s.qlen);
		fprintf(o, "%llu %s #%llu %d:%llu tx_start dur=%llu wire=%u end=%llu\n",
			(unsigned long long)e->t, e->dev->name, (unsigned long long)e->id,
			e->source + 1, (unsigned long long)e->seq, (unsigned long long)e->dur, e->wire,
			(unsigned long long)(e->t + e->dur));
		break;
	case SIM_EV_THROTTLED:
		fmt_handle(a, sizeof(a), e->q->handle);
		fmt_class(b, sizeof(b), e->qt->wclass);
		fprintf(o, "throttled qdisc=%s kind=%s class=%s until=%llu", a, qdisc_kind(e->q), b,
			(unsigned long long)e->qt->until);
		if (e->qt->by) {
			fmt_class(b, sizeof(b), e->qt->by);
			fprintf(o, " by=%s", b);
		}
		fputc('\n', o);
		break;
	case SIM_EV_BORROW:
		fmt_class(a, sizeof(a), e->qt->wclass);
		fmt_class(b, sizeof(b), e->qt->by);
		fprintf(o, "borrow class=%s from=%s level=%d\n", a, b, e->qt->level);
		break;
	case SIM_EV_MARK:
		fmt_handle(a, sizeof(a), e->q->handle);
		fprintf(o, "mark ecn=ce reason=%s qdisc=%s kind=%s sojourn=%llu\n",
			e->qt->level ? "ce_threshold" : "codel", a, qdisc_kind(e->q),
			(unsigned long long)e->qt->until);
		break;
	case SIM_EV_TX_END:
		fprintf(o, "tx_end queue_delay=%llu total_delay=%llu depart=%llu\n",
			(unsigned long long)(e->p->t_dequeue - e->p->t_arrive),
			(unsigned long long)(e->p->t_depart - e->p->t_arrive),
			(unsigned long long)e->p->t_depart);
		break;
	}
}

/* ---- following ---- */

static int trace_select(void *arg, const struct sim_event *e)
{
	struct trace *t = arg;
	struct bpf_skb skb;

	if (t->filter) {
		if (!e->frame)
			return 0;
		bpf_skb_init_ether(&skb, e->frame, e->caplen, e->len);
		if (!bpf_prog_run(t->filter, &skb))
			return 0;
	}
	t->count++;
	return 1;
}

/* ---- opening and closing ---- */

static int trace_new(struct trace **out, struct sim *s, const char *filter_expr, char *err,
		     size_t errlen)
{
	struct trace *t;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
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
	t->obs = (struct sim_observer){.select = trace_select, .event = text_sink, .arg = t};
	*out = t;
	return 0;
}

static void trace_free(struct trace *t)
{
	bpf_prog_free(t->filter);
	free(t);
}

/* Follows packets from here on; the simulation's followers are few. */
static int trace_attach(struct trace *t, char *err, size_t errlen)
{
	int r = sim_observe(t->sim, &t->obs, err, errlen);

	if (r == -EBUSY)
		snprintf(err, errlen, "too many traces of one simulation (at most %d)",
			 SIM_MAX_FOLLOWERS);
	return r;
}

int trace_open(struct trace **t, struct sim *s, FILE *out, const char *filter_expr, char *err,
	       size_t errlen)
{
	int r = trace_new(t, s, filter_expr, err, errlen);

	if (r)
		return r;
	(*t)->out = out;
	if ((r = trace_attach(*t, err, errlen))) {
		trace_free(*t);
		*t = NULL;
	}
	return r;
}

int trace_open_path(struct trace **t, struct sim *s, const char *path, const char *filter_expr,
		    char *err, size_t errlen)
{
	struct trace *n;
	int r;

	if (!strcmp(path, "-"))
		return trace_open(t, s, stdout, filter_expr, err, errlen);
	r = trace_new(&n, s, filter_expr, err, errlen);
	if (r) {
		*t = NULL;
		return r;
	}
	if ((r = outfile_open(&n->file, path, "w"))) {
		snprintf(err, errlen, "--trace %s: %s", path, strerror(-r));
		goto fail;
	}
	n->out = n->file.f;
	if ((r = trace_attach(n, err, errlen))) {
		outfile_abort(&n->file);
		goto fail;
	}
	*t = n;
	return 0;
fail:
	trace_free(n);
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
	sim_unobserve(t->sim, &t->obs);
	outfile_abort(&t->file);
	trace_free(t);
}

int trace_finish(struct trace *t, char *err, size_t errlen)
{
	int r = 0;

	if (!t)
		return 0;
	if (t->file.f) {
		if ((r = outfile_commit(&t->file)))
			snprintf(err, errlen, "--trace %s: %s", t->file.path, strerror(-r));
	} else if (t->out && fflush(t->out)) {
		r = -(errno ? errno : EIO);
		snprintf(err, errlen, "trace: %s", strerror(-r));
	}
	trace_close(t);
	return r;
}

