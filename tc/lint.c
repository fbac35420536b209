/* lint.c - the checks of `tcsim lint` (its command line: cmd/lint.c): what
 * a policy author gets wrong although every command is accepted. The
 * configuration is built exactly as `tcsim run` builds it (tc_run_file),
 * then each qdisc with filters is read back:
 *
 *  1. a program that can return a value other than 0 and -1 which names no
 *     class of its qdisc (tcpdump -ddd's 262144 = 4:0): cls_bpf takes the
 *     value as the classid, and prio_classify falls back to priomap[0]
 *     (sfq drops the packet); a `ret a` whose value the analysis cannot
 *     enumerate is reported as a computed classid;
 *     a filter on sfq replaces its flow hashing: sfq drops what no filter
 *     matches, so its chain should end with a catch-all;
 *  2. a filter that can never match: an earlier one (lower pref, or newer
 *     in the same pref) returns non-zero on every path, faults included,
 *     for a protocol covering the later one's; and a program that returns
 *     0 on every path;
 *  3. a flowid naming no class (minor 0 or beyond the bands, another
 *     major, none at all) on a program that can return -1;
 *  4. a rate in tc's bps units, which are bytes per second (tcsim lint --rate,
 *     lint_rate_word for Lua's rate strings; the qdiscs tcsim models take
 *     no rates, so a tc line has none);
 *  5. two or more filters with automatic prefs on one qdisc: they are
 *     tried newest first, the reverse of the file;
 *  6. a program the other kernel mode's checker rejects (Linux 3.13 lacks
 *     #rand and #vlan_tpid and wants a flowid; current kernels refuse
 *     constant shifts of 32 or more). tcsim already refuses a program its
 *     own kernel mode rejects.
 *  7. a band of prio that no priomap entry and no filter result names: it
 *     receives nothing (only a socket priority naming it could reach it);
 *     not judged when a program returns a computed value.
 *  8-12. htb: the rates of a class's children summing above its own rate;
 *     a ceil below the rate; a `default` naming no leaf; a leaf quantum
 *     outside 1000..200000 (the kernel clamps a computed one and warns); a
 *     filter classid naming an inner class that has no filters of its own
 *     (htb_classify then falls through to the default class).
 * 13-14. codel, fq_codel: a target not below the interval; an fq_codel
 *     memory_limit that fills before its limit (lint_aqm.c).
 * 15-18. u32: a fixed offset past a 20-byte IPv4 header, `protocol all`,
 *     a classid naming no class, nexthdr+ in the root table (check_u32).
 * 19. a `protocol ip` (or ipv6) filter in front of VLAN-tagged traffic:
 *     the captures that enter the device hold IPv4 (IPv6) packets inside
 *     802.1Q/802.1ad tags, which tc matches as the tag's protocol, so the
 *     filter never sees them (lint_vlan.c; only when captures are given).
 * 20. netem: a delay that, at the device's line rate, holds more full-size
 *     frames than the limit (lint_netem.c).
 *
 * What a program can return (checks 1 to 3 and 7) comes from the abstract
 * interpretation in lint_bpf.c, which also states its limits. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lint.h"
#include "lint_int.h"
#include "sim.h"
#include "tc.h"

/* ---- prio ---- */

int lint_prio_band(uint32_t classid, int bands)
{
	uint32_t band = TC_H_MIN(classid) - 1;

	return band < (uint32_t)bands ? (int)band : -1;
}

/* ---- rates ---- */

void lint_fmt_bits(char *buf, size_t n, uint64_t bps)
{
	static const struct {
		double div;
		const char *unit;
	} u[] = {{1e12, "Tbit/s"}, {1e9, "Gbit/s"}, {1e6, "Mbit/s"}, {1e3, "kbit/s"}};

	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++)
		if ((double)bps >= u[i].div) {
			snprintf(buf, n, "%.6g %s", (double)bps / u[i].div, u[i].unit);
			return;
		}
	snprintf(buf, n, "%llu bit/s", (unsigned long long)bps);
}

int lint_rate_word(const char *word, char *msg, size_t n)
{
	size_t len = word ? strlen(word) : 0, num;
	char meant[64], rate[48];
	uint64_t bps;

	if (len < 4 || strcasecmp(word + len - 3, "bps") || tc_get_rate(&bps, word))
		return 0;
	num = strspn(word, "0123456789.eE+");
	/* the number, tc's prefix in lower case, then "bit" */
	if (num + 1 > sizeof(meant) - 8)
		return 0;
	memcpy(meant, word, num);
	for (size_t i = num; i < len - 3; i++)
		meant[i] = (char)(word[i] >= 'A' && word[i] <= 'Z' ? word[i] - 'A' + 'a' : word[i]);
	snprintf(meant + (len - 3), sizeof(meant) - (len - 3), "bit");
	lint_fmt_bits(rate, sizeof(rate), bps);
	snprintf(msg, n,
		 "%s is %s (tc reads \"bps\" as bytes per second); write %s if you meant bits",
		 word, rate, meant);
	return 1;
}

/* ---- warnings ---- */

/* "file:line" -> file and line (-1 when there is no line). */
static long where_line(const char *where, char *file, size_t n)
{
	const char *colon = where ? strrchr(where, ':') : NULL;
	char *end;
	long line;

	if (!colon || !colon[1]) {
		snprintf(file, n, "%s", where ? where : "");
		return -1;
	}
	line = strtol(colon + 1, &end, 10);
	if (*end || line < 0) {
		snprintf(file, n, "%s", where);
		return -1;
	}
	snprintf(file, n, "%.*s", (int)(colon - where), where);
	return line;
}

/* "line N" for a place in a message, or the where-string itself. */
static const char *at_line(char *buf, size_t n, const char *where)
{
	char file[512];
	long line = where_line(where, file, sizeof(file));

	if (line >= 0)
		snprintf(buf, n, "line %ld", line);
	else
		snprintf(buf, n, "%s", where ? where : "?");
	return buf;
}

void lint_warn(struct lint *l, const char *where, const char *fmt, ...)
{
	char file[512], place[64], *body = NULL, *text = NULL;
	va_list ap;
	long line;
	int len;

	if (l->oom)
		return;
	if (!where) { /* a filter no tc command added: name its device */
		snprintf(place, sizeof(place), "dev %s", l->dev ? l->dev : "?");
		where = place;
	}
	line = where_line(where, file, sizeof(file));
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct warning *w = realloc(l->w, cap * sizeof(*w));

		if (!w) {
			l->oom = 1;
			return;
		}
		l->w = w;
		l->cap = cap;
	}
	va_start(ap, fmt);
	len = vasprintf(&body, fmt, ap);
	va_end(ap);
	if (len < 0 || asprintf(&text, "%s: warning: %s", where, body) < 0) {
		if (len >= 0)
			free(body);
		l->oom = 1;
		return;
	}
	free(body);
	l->w[l->n] =
	    (struct warning){.file = strdup(file), .line = line, .seq = l->n, .text = text};
	if (!l->w[l->n].file) {
		free(text);
		l->oom = 1;
		return;
	}
	l->n++;
}

static int warning_cmp(const void *pa, const void *pb)
{
	const struct warning *a = pa, *b = pb;
	int c = strcmp(a->file, b->file);

	if (c)
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* ---- the qdiscs ---- */

/* What lint needs to know of a qdisc with filters. */
struct qinfo {
	const struct qdisc *q;
	int is_prio;
	int bands;	  /* prio */
	unsigned map[16]; /* prio's priomap */
	uint32_t divisor; /* sfq; fq_codel: its flows */
	char name[32];	  /* "prio 1:" */
	enum bpf_kernel kernel;
};

/* Reads the options back from the qdisc's own `tc qdisc show` text. */
static int qinfo_get(const struct qdisc *q, struct qinfo *qi)
{
	char *buf = NULL, *p;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	int ok = 0;

	memset(qi, 0, sizeof(*qi));
	if (!f)
		return 0;
	qdisc_dump_text(q, f, 1);
	fclose(f);
	qi->q = q;
	qi->kernel = q->env->kernel;
	snprintf(qi->name, sizeof(qi->name), "%s %x:", q->ops->id, q->handle >> 16);
	if (!strcmp(q->ops->id, "prio")) {
		qi->is_prio = 1;
		p = strstr(buf, "bands ");
		if (p &&
		    sscanf(p, "bands %d priomap %u %u %u %u %u %u %u %u %u %u %u %u %u %u %u %u",
			   &qi->bands, &qi->map[0], &qi->map[1], &qi->map[2], &qi->map[3],
			   &qi->map[4], &qi->map[5], &qi->map[6], &qi->map[7], &qi->map[8],
			   &qi->map[9], &qi->map[10], &qi->map[11], &qi->map[12], &qi->map[13],
			   &qi->map[14], &qi->map[15]) == 17)
			ok = 1;
	} else if (!strcmp(q->ops->id, "sfq")) {
		p = strstr(buf, "divisor ");
		ok = p && sscanf(p, "divisor %u", &qi->divisor) == 1;
	} else if (!strcmp(q->ops->id, "fq_codel")) {
		/* fq_codel_classify takes a classid as sfq does: minor 1..flows */
		p = strstr(buf, "flows ");
		ok = p && sscanf(p, "flows %u", &qi->divisor) == 1;
	}
	free(buf);
	return ok;
}

/* Where the packet goes for a classid that is no class: the words after
 * "so ..." in a message. */
static void fallback(const struct qinfo *qi, char *buf, size_t n)
{
	if (qi->is_prio)
		snprintf(buf, n, "prio falls back to priomap[0], band %u (class %x:%x)", qi->map[0],
			 qi->q->handle >> 16, qi->map[0] + 1);
	else
		snprintf(buf, n, "%s drops the packet", qi->q->ops->id);
}

/* The classes a classid may name, as tc prints them (hex): "1:1..1:3". */
static void classes(const struct qinfo *qi, char *buf, size_t n)
{
	unsigned maj = qi->q->handle >> 16;

	if (qi->is_prio)
		snprintf(buf, n, "%x:1..%x:%x", maj, maj, (unsigned)qi->bands);
	else
		snprintf(buf, n, "%x:1..%x:%x", maj, maj, qi->divisor);
}

/* 1 if the classid names a class of the qdisc by its minor (the major is
 * not looked at by prio_classify or sfq_classify). */
static int minor_ok(const struct qinfo *qi, uint32_t classid)
{
	if (qi->is_prio)
		return lint_prio_band(classid, qi->bands) >= 0;
	return TC_H_MIN(classid) >= 1 && TC_H_MIN(classid) <= qi->divisor;
}

static int major_ok(const struct qinfo *qi, uint32_t classid)
{
	return TC_H_MAJ(classid) == 0 || TC_H_MAJ(classid) == qi->q->handle;
}

/* One program of the chain, in the order the kernel tries them. */
struct entry {
	const struct tcf_proto *tp;
	struct cls_bpf_info info;
	struct lint_rets rets;
	int multi;	/* its tcf_proto holds more than one program */
	char label[48]; /* "filter pref 3" or "filter pref 3 handle 0x2" */
};

/* major:minor, both always (tc would print 4:0 as "4:") */
void lint_name_classid(char *buf, size_t n, uint32_t classid)
{
	snprintf(buf, n, "%x:%x", classid >> 16, TC_H_MIN(classid));
}

/* Check 1: values other than 0 and -1 that name no class. */
static void check_returns(struct lint *l, const struct qinfo *qi, const struct entry *e)
{
	char list[256] = "", cls[64], fb[96], id[32], flowid[64] = "", hint[80] = "";
	unsigned maj = qi->q->handle >> 16;
	int nbad = 0, tcpdump = 0;
	const char *where = e->info.where;

	for (int i = 0; i < e->rets.n; i++) {
		uint32_t v = e->rets.v[i];
		size_t len = strlen(list);

		if (v == 0 || v == 0xffffffffu || minor_ok(qi, v))
			continue;
		if (v == 262144)
			tcpdump = 1;
		lint_name_classid(id, sizeof(id), v);
		if (nbad < 4)
			snprintf(list + len, sizeof(list) - len, "%s%u = classid %s",
				 nbad ? " or " : "", v, id);
		else if (nbad == 4)
			snprintf(list + len, sizeof(list) - len, " or others");
		nbad++;
	}
	if (tcpdump && qi->is_prio)
		snprintf(hint, sizeof(hint), " (tcpdump -s %u -ddd returns %u = %x:1)",
			 TC_H_MAKE(qi->q->handle, 1), TC_H_MAKE(qi->q->handle, 1), maj);
	classes(qi, cls, sizeof(cls));
	fallback(qi, fb, sizeof(fb));
	if (e->info.has_classid && !lint_rets_has(&e->rets, 0xffffffffu) && !e->rets.computed) {
		lint_name_classid(id, sizeof(id), e->info.classid);
		snprintf(flowid, sizeof(flowid), ", and its flowid %s is never used", id);
	}
	if (nbad)
		lint_warn(
		    l, where,
		    "%s returns %s on a match, which names no %s of %s (%s), so %s%s; "
		    "make the program return -1 to use the flowid, or a classid of %s itself%s",
		    e->label, list, qi->is_prio ? "band" : "flow", qi->name, cls, fb, flowid, cls,
		    hint);
	if (e->rets.computed)
		lint_warn(l, where,
			  "%s returns a computed value (instruction %u), which cls_bpf takes as "
			  "a classid: whenever it names no %s of %s (%s), %s; "
			  "return constants: 0 for no match, -1 for the flowid, or a classid of %s",
			  e->label, e->rets.computed_pc, qi->is_prio ? "band" : "flow", qi->name,
			  cls, fb, cls);
	/* a class by its minor, under another major: works, but says otherwise */
	for (int i = 0; i < e->rets.n; i++) {
		uint32_t v = e->rets.v[i];

		if (v == 0 || v == 0xffffffffu || !minor_ok(qi, v) || major_ok(qi, v))
			continue;
		lint_name_classid(id, sizeof(id), v);
		lint_warn(l, where,
			  "%s returns %u = classid %s, which is no class of %s (%s reads only the "
			  "minor: class %x:%x); return %u (%x:%x) so the classid names the class "
			  "it means",
			  e->label, v, id, qi->name, qi->q->ops->id, maj, TC_H_MIN(v),
			  TC_H_MAKE(qi->q->handle, v), maj, TC_H_MIN(v));
	}
}

/* Check 3: the flowid of a program that can return -1. */
static void check_flowid(struct lint *l, const struct qinfo *qi, const struct entry *e)
{
	char cls[64], fb[96], id[32];
	unsigned maj = qi->q->handle >> 16;
	const char *where = e->info.where;
	uint32_t c = e->info.classid;

	if (!lint_rets_has(&e->rets, 0xffffffffu))
		return;
	classes(qi, cls, sizeof(cls));
	fallback(qi, fb, sizeof(fb));
	lint_name_classid(id, sizeof(id), c);
	if (!e->info.has_classid)
		lint_warn(l, where,
			  "%s returns -1 (use the flowid) but has no flowid, so its classid is "
			  "0 and %s; add a flowid naming the class you mean (%s)",
			  e->label, fb, cls);
	else if (!minor_ok(qi, c))
		lint_warn(l, where,
			  "%s has flowid %s, which names no %s of %s (%s), so %s; use a "
			  "flowid of %s",
			  e->label, id, qi->is_prio ? "band" : "flow", qi->name, cls, fb, cls);
	else if (!major_ok(qi, c))
		lint_warn(l, where,
			  "%s has flowid %s, which is no class of %s (%s reads only the minor: "
			  "class %x:%x); write flowid %x:%x",
			  e->label, id, qi->name, qi->q->ops->id, maj, TC_H_MIN(c), maj,
			  TC_H_MIN(c));
}

/* Check 6: the other kernel mode. */
static void check_other_kernel(struct lint *l, const struct qinfo *qi, const struct entry *e)
{
	enum bpf_kernel other =
	    qi->kernel == BPF_KERNEL_3_13 ? BPF_KERNEL_CURRENT : BPF_KERNEL_3_13;
	const char *who = other == BPF_KERNEL_3_13 ? "Linux 3.13" : "current kernels";
	const char *opt = other == BPF_KERNEL_3_13 ? " --kernel 3.13" : "";
	const char *where = e->info.where;
	char msg[BPF_ERRLEN];

	if (bpf_check(e->info.insns, e->info.len, other, msg, sizeof(msg)))
		lint_warn(l, where,
			  "%s would be rejected by %s (%s); change the program if the policy "
			  "must also load there (tcsim bpf check%s shows why)",
			  e->label, who, msg, opt);
	if (other == BPF_KERNEL_3_13 && !e->info.has_classid)
		lint_warn(l, where,
			  "%s has no flowid, which Linux 3.13's cls_bpf requires; add a "
			  "flowid if the policy must also load on Linux 3.13",
			  e->label);
}

static void protocol_name(char *buf, size_t n, uint16_t proto)
{
	tc_print_protocol(buf, n, proto);
}

/* Check 5: automatic prefs, tried newest first. */
static void check_auto_prefs(struct lint *l, const struct qinfo *qi)
{
	const struct tcf_proto *tp;
	const char *first = NULL;
	char order[1024] = "", ln[600];
	int n = 0;

	for (tp = qi->q->chain.head; tp; tp = tp->next) {
		struct cls_bpf_info info;
		size_t len = strlen(order), cnt;

		if (!tp->auto_pref)
			continue;
		/* the tcf_proto's oldest program is the command that made it */
		cnt = tp->ops->count(tp);
		if (!cnt || cls_bpf_prog_at(tp, cnt - 1, &info))
			info.where = NULL;
		first = info.where;
		snprintf(order + len, sizeof(order) - len, "%s%s (pref %u)", n ? ", " : "",
			 at_line(ln, sizeof(ln), info.where), tp->prio >> 16);
		n++;
	}
	if (n < 2)
		return;
	lint_warn(
	    l, first,
	    "%d filters on %s of %s have no pref, so the kernel numbers them 49152, 49151, "
	    "... and tries the newest first: %s; give each filter an explicit pref in the order "
	    "you want them tried",
	    n, qi->name, l->dev ? l->dev : "the device", order);
}

/* Checks 15-17: u32 filters (cls_u32_node_at), their classic mistakes:
 * 15. a key read at a fixed offset of 20 or more from the network header
 *     of an IPv4 filter: iproute2's `match ip sport/dport` and LARTC's
 *     recipes pack exactly that, which assumes a 20-byte header; a packet
 *     with IP options is read at the wrong place (reach the transport
 *     header through a link with `offset at 0 mask 0f00 shift 6`, whose
 *     keys are `at nexthdr+N`);
 * 16. `protocol all` on a u32 filter whose root table reads the packet:
 *     IPv6, ARP and VLAN frames reach it too and are read at IPv4 offsets;
 * 17. a classid naming no class of its qdisc (prio: minor beyond the
 *     bands; sfq, fq_codel: beyond the flows; htb: no such class);
 * 18. an `at nexthdr+N` key in the root table, where nothing has set the
 *     offset: it reads the IP header, not the transport header. */
static int classid_names_class(const struct qdisc *q, int has_qi, const struct qinfo *qi,
			       uint32_t classid)
{
	if (has_qi)
		return minor_ok(qi, classid) && (qi->is_prio || major_ok(qi, classid));
	if (q->ops->class_find)
		return classid == q->handle || q->ops->class_find(q, classid);
	return 1; /* a kind lint does not know: say nothing */
}

/* a node handle as tc prints it: 800::800, 1:a:1 */
static void u32_fh(char *buf, size_t n, uint32_t h)
{
	int k = snprintf(buf, n, "%x:", h >> 20);

	if ((h >> 12) & 0xff)
		k += snprintf(buf + k, n - (size_t)k, "%x", (h >> 12) & 0xff);
	k += snprintf(buf + k, n - (size_t)k, ":");
	if (h & 0xfff)
		snprintf(buf + k, n - (size_t)k, "%x", h & 0xfff);
}

static void check_u32(struct lint *l, const struct qdisc *q)
{
	struct qinfo qi;
	int has_qi = qinfo_get(q, &qi);
	char name[32];

	for (const struct tcf_proto *tp = q->chain.head; tp; tp = tp->next) {
		struct cls_u32_info ni;
		int all_warned = 0, pinned;

		if (strcmp(tp->ops->kind, "u32"))
			continue;
		for (size_t i = 0; !cls_u32_node_at(tp, i, &ni); i++) {
			char fh[32];

			u32_fh(fh, sizeof(fh), ni.handle);
			/* a key pinning the header length at 5 words (LARTC's small-ACK
			 * recipe: `match u8 0x05 0x0f at 0`) makes fixed offsets right */
			pinned = 0;
			for (uint32_t k = 0; k < ni.nkeys; k++)
				pinned |= !ni.nexthdr[k] && ni.off[k] == 0 &&
					  (ni.mask[k] & 0x0f000000u) == 0x0f000000u &&
					  (ni.val[k] & 0x0f000000u) == 0x05000000u;
			if (ni.in_root && !pinned &&
			    (tp->protocol == 0x0800 || tp->protocol == ETH_P_ALL))
				for (uint32_t k = 0; k < ni.nkeys; k++)
					if (!ni.nexthdr[k] && ni.off[k] >= 20) {
						lint_warn(
						    l, ni.where,
						    "u32 filter pref %u node %s reads at %d, past "
						    "a "
						    "20-byte IPv4 header (as `match ip "
						    "sport/dport` "
						    "does): a packet with IP options is read at "
						    "the "
						    "wrong place; reach the transport header "
						    "through a "
						    "link with `offset at 0 mask 0f00 shift 6` and "
						    "`at nexthdr+N` keys",
						    tp->prio >> 16, fh, ni.off[k]);
						break;
					}
			if (ni.in_root)
				for (uint32_t k = 0; k < ni.nkeys; k++)
					if (ni.nexthdr[k]) {
						lint_warn(l, ni.where,
							  "u32 filter pref %u node %s reads at "
							  "nexthdr+%d in "
							  "its root table, where no link has set "
							  "an offset: it "
							  "reads the IP header there, not the "
							  "transport header "
							  "(LARTC's TCP-flags recipe does this); "
							  "put the key "
							  "in a table a link with `offset at 0 "
							  "mask 0f00 shift "
							  "6` leads to",
							  tp->prio >> 16, fh, ni.off[k]);
						break;
					}
			if (ni.in_root && tp->protocol == ETH_P_ALL && ni.nkeys && !all_warned) {
				lint_warn(
				    l, ni.where,
				    "u32 filter pref %u is `protocol all`: IPv6, ARP and VLAN "
				    "frames "
				    "reach it too and are read at the offsets of an IPv4 header; "
				    "use `protocol ip` (and a filter of its own per protocol)",
				    tp->prio >> 16);
				all_warned = 1;
			}
			if (ni.classid && !classid_names_class(q, has_qi, &qi, ni.classid)) {
				lint_name_classid(name, sizeof(name), ni.classid);
				lint_warn(
				    l, ni.where,
				    "u32 filter pref %u node %s has classid %s, which names no "
				    "class of %s %x:, so its matches go %s; give a classid of "
				    "one of its classes",
				    tp->prio >> 16, fh, name, q->ops->id, q->handle >> 16,
				    has_qi && qi.is_prio	 ? "to priomap[0]'s band"
				    : !strcmp(q->ops->id, "htb") ? "to the default class"
								 : "nowhere (dropped)");
			}
		}
	}
}

static void lint_chain(struct lint *l, const struct qdisc *q)
{
	struct entry *e = NULL;
	size_t n = 0, cap = 0;
	struct qinfo qi;
	char ln[600], proto[32];

	if (!q->chain.head || !qinfo_get(q, &qi))
		return;
	for (const struct tcf_proto *tp = q->chain.head; tp; tp = tp->next) {
		size_t cnt = tp->ops->count(tp);

		for (size_t i = 0; i < cnt; i++) {
			struct entry *x;

			if (n == cap) {
				size_t nc = cap ? cap * 2 : 8;
				struct entry *ne = realloc(e, nc * sizeof(*e));

				if (!ne) {
					l->oom = 1;
					free(e);
					return;
				}
				e = ne;
				cap = nc;
			}
			x = &e[n];
			memset(x, 0, sizeof(*x));
			if (cls_bpf_prog_at(tp, i, &x->info))
				continue;
			x->tp = tp;
			x->multi = cnt > 1;
			if (x->multi)
				snprintf(x->label, sizeof(x->label), "filter pref %u handle 0x%x",
					 tp->prio >> 16, x->info.handle);
			else
				snprintf(x->label, sizeof(x->label), "filter pref %u",
					 tp->prio >> 16);
			if (lint_prog_returns(x->info.insns, x->info.len, &x->rets)) {
				l->oom = 1;
				free(e);
				return;
			}
			n++;
		}
	}
	for (size_t i = 0; i < n; i++) {
		const struct entry *x = &e[i];
		const struct entry *shadow = NULL;
		const char *where = x->info.where;

		for (size_t j = 0; j < i && !shadow; j++)
			if (lint_rets_catch_all(&e[j].rets) &&
			    (e[j].tp->protocol == ETH_P_ALL ||
			     e[j].tp->protocol == x->tp->protocol))
				shadow = &e[j];
		if (shadow) {
			if (shadow->tp->protocol == ETH_P_ALL)
				snprintf(proto, sizeof(proto), "packet");
			else {
				protocol_name(proto, sizeof(proto) - 8, shadow->tp->protocol);
				strcat(proto, " packet");
			}
			lint_warn(
			    l, where,
			    "%s can never match: %s (%s), tried before it, matches every "
			    "%s; give the catch-all the highest pref so it runs last, or delete it",
			    x->label, shadow->label, at_line(ln, sizeof(ln), shadow->info.where),
			    proto);
		} else if (!x->rets.computed && x->rets.n == 1 && x->rets.v[0] == 0) {
			lint_warn(
			    l, where,
			    "%s never matches (it returns 0 on every path); fix the "
			    "program or delete the filter (tcsim bpf run -v shows what it returns)",
			    x->label);
		}
		check_returns(l, &qi, x);
		check_flowid(l, &qi, x);
		check_other_kernel(l, &qi, x);
	}
	/* sfq_classify drops what no filter matches: filters replace its hashing */
	if (!qi.is_prio && n) {
		int all = 0;

		for (size_t i = 0; i < n && !all; i++)
			all = lint_rets_catch_all(&e[i].rets) && e[i].tp->protocol == ETH_P_ALL;
		if (!all)
			lint_warn(
			    l, e[n - 1].info.where,
			    "%s has filters, so it drops every packet that none of them matches "
			    "(it no longer hashes flows itself); end the chain with a catch-all "
			    "filter, or remove the filters",
			    qi.name);
	}
	check_auto_prefs(l, &qi);
	free(e);
}

/* Check 7: a band of prio that nothing sends packets to: no priomap entry
 * and no filter's result names it (only a socket priority of MAJ:MIN
 * still could). Skipped when a program returns a computed value. */
static void check_bands(struct lint *l, const struct qdisc *q)
{
	int reached[16] = {0}, nmiss = 0;
	char list[200] = "";
	struct qinfo qi;

	if (!qinfo_get(q, &qi) || !qi.is_prio || qi.bands > 16)
		return;
	for (int i = 0; i < 16; i++)
		if (qi.map[i] < (unsigned)qi.bands)
			reached[qi.map[i]] = 1;
	for (const struct tcf_proto *tp = q->chain.head; tp; tp = tp->next) {
		struct cls_bpf_info info;

		for (size_t i = 0; !cls_bpf_prog_at(tp, i, &info); i++) {
			struct lint_rets r;

			if (lint_prog_returns(info.insns, info.len, &r)) {
				l->oom = 1;
				return;
			}
			if (r.computed)
				return; /* it may name any band */
			for (int k = 0; k < r.n; k++) {
				uint32_t v = r.v[k];
				int band;

				if (!v)
					continue;
				if (v == 0xffffffffu && !info.has_classid)
					continue; /* no flowid: classid 0, the priomap decides */
				band =
				    lint_prio_band(v == 0xffffffffu ? info.classid : v, qi.bands);
				reached[band >= 0 ? band : (int)qi.map[0]] = 1;
			}
		}
	}
	for (int b = 0; b < qi.bands; b++)
		if (!reached[b]) {
			size_t len = strlen(list);

			snprintf(list + len, sizeof(list) - len, "%s%x:%x", nmiss ? ", " : "",
				 q->handle >> 16, b + 1);
			nmiss++;
		}
	if (!nmiss)
		return;
	lint_warn(l, q->where[0] ? q->where : NULL,
		  "%s %s of %s on %s %s named by no priomap entry and no filter, so %s no "
		  "packet (only a socket priority naming %s would); add a filter with that flowid, "
		  "map a priority to it, or use fewer bands",
		  nmiss == 1 ? "class" : "classes", list, qi.name, l->dev ? l->dev : "the device",
		  nmiss == 1 ? "is" : "are", nmiss == 1 ? "it receives" : "they receive",
		  nmiss == 1 ? "it" : "one");
}

struct walk_ctx {
	struct lint *l;
};

static void lint_qdisc(struct lint *l, const struct qdisc *q);

static void lint_class(void *arg, const struct qdisc_class *c)
{
	struct walk_ctx *w = arg;

	if (c->leaf)
		lint_qdisc(w->l, c->leaf);
}

static void lint_qdisc(struct lint *l, const struct qdisc *q)
{
	struct walk_ctx w = {l};

	if (!q)
		return;
	check_bands(l, q);
	lint_check_htb(l, (struct qdisc *)q); /* class_chain takes a qdisc it may change */
	lint_check_aqm(l, q);
	lint_check_netem(l, q, l->dev_rate);
	if (q->ops->has_filters)
		lint_chain(l, q);
	if (q->ops->has_filters)
		check_u32(l, q);
	if (q->ops->walk)
		q->ops->walk(q, lint_class, &w);
}

int lint_sim(const struct sim *s, FILE *out, int *nwarnings)
{
	return lint_sim_traffic(s, NULL, 0, out, nwarnings, NULL, 0);
}

int lint_sim_traffic(const struct sim *s, const struct lint_input *in, int nin, FILE *out,
		     int *nwarnings, char *err, size_t errlen)
{
	struct lint l = {0};
	int ret = 0;

	for (int i = 0; i < s->ndevs; i++) {
		l.dev = s->devs[i]->name;
		l.dev_rate = s->devs[i]->rate_bps;
		lint_qdisc(&l, s->devs[i]->root);
	}
	if (nin && lint_check_vlan(&l, s, in, nin, err, errlen)) {
		for (size_t i = 0; i < l.n; i++) {
			free(l.w[i].text);
			free(l.w[i].file);
		}
		free(l.w);
		return -EIO;
	}
	if (l.n)
		qsort(l.w, l.n, sizeof(l.w[0]), warning_cmp);
	for (size_t i = 0; i < l.n; i++) {
		fprintf(out, "%s\n", l.w[i].text);
		free(l.w[i].text);
		free(l.w[i].file);
	}
	if (nwarnings)
		*nwarnings += (int)l.n;
	if (l.oom)
		ret = -ENOMEM;
	free(l.w);
	return ret;
}

void lint_summary(FILE *out, const char *name, int nwarnings)
{
	if (!nwarnings)
		fprintf(out, "lint: %s: no warnings\n", name);
	else
		fprintf(out, "lint: %s: %d warning%s\n", name, nwarnings,
			nwarnings == 1 ? "" : "s");
}

char *lint_qdisc_text(struct lint *l, const struct qdisc *q, int details)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	if (!f) {
		l->oom = 1;
		return NULL;
	}
	qdisc_dump_text(q, f, details);
	if (fclose(f) || !buf) {
		free(buf);
		l->oom = 1;
		return NULL;
	}
	return buf;
}

void lint_word_after(const char *text, const char *key, int skip, char *out, size_t n)
{
	const char *p = strstr(text, key);
	size_t i;

	out[0] = 0;
	if (!p)
		return;
	p += strlen(key);
	for (;;) {
		while (*p == ' ')
			p++;
		for (i = 0; p[i] && p[i] != ' ' && p[i] != '\n'; i++)
			;
		if (!i || !skip--)
			break;
		p += i;
	}
	if (i >= n)
		i = n - 1;
	memcpy(out, p, i);
	out[i] = 0;
}
