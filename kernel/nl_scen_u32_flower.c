/* nl_scen_u32_flower.c - `tcsim import` writes u32 and flower filters
 * back as tc lines that rebuild the kernel's state exactly: `tc filter
 * show` of the rebuilt device (tcsim's, or the kernel's after the same
 * lines) lists the same tables, nodes and keys (tests/kernel/import_e2e.sh).
 *
 * u32. The tables of all u32 filters of one qdisc are shared, and their
 * ids come from one counter: each tcf_proto's root table takes the next
 * automatic id when the tcf_proto is made (the first at 800:, then 801:,
 * ...), and so does a `divisor` line without a handle. No tc word names a
 * root's id, so the lines are written in the order that makes the same
 * ids again: the tcf_protos by their root's id, each with its tables
 * (oldest first; automatic ids left automatic, others given as `handle
 * N:`), a tcf_proto without tables of its own made by one of its nodes;
 * then every node, with the explicit `handle HT:BUCKET:NODE`, `ht HT:BUCKET:`
 * and its keys raw (`match u32 VAL MASK at [nexthdr+]OFF`, in the
 * kernel's order), `match mark`, `offset`, `hashkey`, `link`, `classid`,
 * `skip_hw`. A tcf_proto whose root id the lines cannot make again, and a
 * node no tc line rebuilds (actions, police, indev, skip_sw, keys tc would
 * merge or mask, selector fields no word sets) are listed, not written.
 *
 * flower: one line per filter in the kernel's dump order (by handle), with
 * its handle, classid and keys as flower words (the protocol gives eth_type;
 * under 802.1Q/802.1ad the kernel's eth_type is the inner one, written as
 * vlan_ethtype). Masks are tried in the order they were made, which the
 * dump does not tell: filters made out of handle order with different
 * masks may be tried in another order. Keys tcsim's flower does not model,
 * address masks that are not prefixes, actions and skip_sw are listed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <linux/pkt_cls.h>

/* the kernel's pkt_sched.h and tcsim's cls.h define the same handle
 * macros; tcsim's win from here on (the TCA_FLOWER_* numbers are wanted) */
#undef TC_H_MAJ
#undef TC_H_MIN
#undef TC_H_MAKE
#undef TC_H_ROOT
#undef TC_H_UNSPEC

#include "cls.h"
#include "nl_cls.h"
#include "nl_import.h"
#include "nl_int.h"
#include "nl_scen.h"
#include "nl_scen_cls.h"

/* include/uapi/linux/pkt_cls.h: TC_U32_* and the selector's flags */
#define U32_HTID(h) ((h)&0xFFF00000u)
#define U32_KEY(h) ((h)&0xFFFFFu)
#define U32_TERMINAL 1u
#define U32_OFFSET 2u
#define U32_VAROFFSET 4u
#define U32_EAT 8u
#define U32_AUTO(id) ((((uint32_t)(id)) | 0x800u) << 20) /* gen_new_htid's ids */

int nl_cls_written(const char *kind)
{
	return nl_is_kind(kind, "u32") || nl_is_kind(kind, "flower");
}

/* tc's protocol word, read back as the same number. */
static const char *proto_word(char *buf, size_t n, uint16_t p)
{
	uint16_t back;

	tc_print_protocol(buf, n, p);
	if (buf[0] == '[' || tc_get_protocol(&back, buf) || back != p)
		snprintf(buf, n, "0x%04x", p);
	return buf;
}

/* A u32 handle as tc's words take it: "1:", "800:0:800". */
static const char *u32_word(char *buf, size_t n, uint32_t h, int node)
{
	if (node)
		snprintf(buf, n, "%x:%x:%x", h >> 20, (h >> 12) & 0xffu, h & 0xfffu);
	else if ((h >> 12) & 0xffu)
		snprintf(buf, n, "%x:%x:", h >> 20, (h >> 12) & 0xffu);
	else
		snprintf(buf, n, "%x:", h >> 20);
	return buf;
}

/* The start of every line of a tcf_proto: "filter add dev D parent P pref N protocol X". */
static void line_head(char *buf, size_t n, const struct nl_writer *w, uint32_t parent,
		      const struct nli_filter *f)
{
	char id[32], pw[24];

	snprintf(buf, n, "filter add dev %s parent %s pref %u protocol %s", w->devq,
		 nl_classid(id, sizeof(id), parent), f->pref,
		 proto_word(pw, sizeof(pw), f->protocol));
}

/* ---- u32 ---- */

/* Why no tc line rebuilds node u exactly, or NULL. */
static const char *u32_problem(const struct nli_u32 *u, char *buf, size_t n)
{
	uint32_t known = CLS_FLAGS_SKIP_HW | CLS_FLAGS_SKIP_SW | CLS_FLAGS_IN_HW |
			 CLS_FLAGS_NOT_IN_HW;

	if (!u->nkeys)
		return "a selector without keys (tcsim's u32 lines need a match)";
	for (int i = 0; i < u->nkeys; i++) {
		const struct nli_u32_key *k = &u->keys[i];

		if (k->val & ~k->mask) {
			snprintf(buf, n, "key %d: value %08x has bits outside its mask %08x (tc masks them)",
				 i, k->val, k->mask);
			return buf;
		}
		if (k->off % 4) {
			snprintf(buf, n, "key %d: offset %d is not a multiple of 4", i, k->off);
			return buf;
		}
		if (k->offmask != 0 && k->offmask != -1) {
			snprintf(buf, n, "key %d: offmask 0x%x (tc sets only nexthdr+, -1)", i,
				 (unsigned)k->offmask);
			return buf;
		}
		for (int j = 0; j < i; j++)
			if (u->keys[j].off == k->off && u->keys[j].offmask == k->offmask) {
				snprintf(buf, n, "keys %d and %d at the same offset (tc merges them)",
					 j, i);
				return buf;
			}
	}
	if (u->sflags & ~(U32_TERMINAL | U32_OFFSET | U32_VAROFFSET | U32_EAT)) {
		snprintf(buf, n, "selector flags 0x%x", u->sflags);
		return buf;
	}
	if (!!(u->sflags & U32_TERMINAL) != u->has_classid)
		return u->has_classid ? "a classid on a node that is not terminal"
				      : "a terminal node without a classid";
	if (!(u->sflags & U32_OFFSET) && u->off)
		return "an offset `plus` without its flag";
	if (!(u->sflags & U32_VAROFFSET) && (u->offoff || u->offmask || u->offshift))
		return "a variable offset without its flag";
	if (u->offoff % 2)
		return "offset `at` is odd";
	if (u->hoff % 4)
		return "hashkey `at` is not a multiple of 4";
	if (u->has_mark && (u->mark_val & ~u->mark_mask))
		return "a mark value outside its mask";
	if (u->flags & ~known) {
		snprintf(buf, n, "TCA_U32_FLAGS 0x%x", u->flags);
		return buf;
	}
	return NULL;
}

static void u32_node_line(char *buf, size_t n, const struct nl_writer *w, uint32_t parent,
			  const struct nli_filter *f)
{
	const struct nli_u32 *u = f->u32;
	char h[32], id[32];
	size_t k;

	line_head(buf, n, w, parent, f);
	k = strlen(buf);
#define ADD(...)                                                                       \
	do {                                                                           \
		if (k < n)                                                             \
			k += (size_t)snprintf(buf + k, n - k, __VA_ARGS__);            \
	} while (0)
	ADD(" handle %s u32", u32_word(h, sizeof(h), f->handle, 1));
	for (int i = 0; i < u->nkeys; i++)
		ADD(" match u32 0x%08x 0x%08x at %s%d", u->keys[i].val, u->keys[i].mask,
		    u->keys[i].offmask ? "nexthdr+" : "", u->keys[i].off);
	if (u->has_mark)
		ADD(" match mark 0x%x 0x%x", u->mark_val, u->mark_mask);
	if (u->sflags & (U32_OFFSET | U32_VAROFFSET | U32_EAT)) {
		ADD(" offset");
		if (u->sflags & U32_OFFSET)
			ADD(" plus %u", u->off);
		if (u->sflags & U32_VAROFFSET)
			ADD(" at %d mask 0x%04x shift %u", u->offoff, u->offmask, u->offshift);
		if (u->sflags & U32_EAT)
			ADD(" eat");
	}
	if (u->hmask || u->hoff)
		ADD(" hashkey mask 0x%08x at %d", u->hmask, u->hoff);
	ADD(" ht %s", u32_word(h, sizeof(h), u->has_hash ? u->hash : (f->handle & 0xFFFFF000u), 0));
	if (u->has_link && u->link)
		ADD(" link %s", u32_word(h, sizeof(h), u->link, 0));
	if (u->has_classid)
		ADD(" classid %s", nl_classid(id, sizeof(id), u->classid));
	if (u->flags & CLS_FLAGS_SKIP_HW)
		ADD(" skip_hw");
#undef ADD
}

struct u32_group {
	size_t s, e;	/* its elements: v[s..e) */
	size_t root;	/* the root table: index into m->filters */
	int ok;
};

static int has_table(const uint32_t *made, size_t nmade, uint32_t h)
{
	for (size_t i = 0; i < nmade; i++)
		if (made[i] == h)
			return 1;
	return 0;
}

static void u32_desc(char *buf, size_t n, uint32_t parent, const struct nli_filter *f)
{
	char id[32], proto[24], h[32];

	tc_print_protocol(proto, sizeof(proto), f->protocol);
	snprintf(buf, n, "filter parent %s protocol %s pref %u u32 chain 0 fh %s",
		 nl_classid(id, sizeof(id), parent), proto, f->pref,
		 u32_word(h, sizeof(h), f->handle, U32_KEY(f->handle) != 0));
}

/* Every u32 tcf_proto of chain 0 in v[0..n) (sorted by pref). */
static void write_u32(struct nl_writer *w, const size_t *v, size_t n, uint32_t parent)
{
	const struct nl_import_model *m = w->m;
	struct u32_group *g = calloc(n + 1, sizeof(*g));
	uint32_t *made = calloc(n + 1, sizeof(*made));
	char *done = calloc(n + 1, 1); /* per v index: written or listed */
	size_t ng = 0, nmade = 0;
	uint32_t cursor = 1;
	char line[8192], desc[256], why[160];

	if (!g || !made || !done)
		goto out;
	for (size_t s = 0; s < n;) {
		const struct nli_filter *f0 = &m->filters[v[s]];
		size_t e = s;

		while (e < n && m->filters[v[e]].chain == f0->chain &&
		       m->filters[v[e]].pref == f0->pref)
			e++;
		if (nl_is_kind(f0->kind, "u32") && !f0->chain) {
			g[ng] = (struct u32_group){.s = s, .e = e, .root = (size_t)-1, .ok = 1};
			for (size_t k = s; k < e; k++) {
				const struct nli_filter *f = &m->filters[v[k]];

				if (f->u32 && f->u32->table)
					g[ng].root = v[k]; /* the oldest: dumped last */
				if (!f->u32)
					done[k] = 1; /* the tcf_proto's own line */
			}
			ng++;
		}
		s = e;
	}
	/* by root id: the order the roots were made in */
	for (size_t a = 1; a < ng; a++)
		for (size_t b = a; b > 0; b--) {
			uint32_t x = g[b - 1].root == (size_t)-1 ? 0 : m->filters[g[b - 1].root].handle;
			uint32_t y = g[b].root == (size_t)-1 ? 0 : m->filters[g[b].root].handle;
			struct u32_group t;

			if (x <= y)
				break;
			t = g[b];
			g[b] = g[b - 1];
			g[b - 1] = t;
		}
	/* the tables, tcf_proto by tcf_proto */
	for (size_t i = 0; i < ng; i++) {
		const struct nli_filter *r = g[i].root == (size_t)-1 ? NULL : &m->filters[g[i].root];
		uint32_t want = nmade ? U32_AUTO(cursor) : 0x80000000u;
		int opened = 0;

		if (!r || r->u32->divisor != 1 || r->handle != want) {
			const struct nli_filter *f0 = &m->filters[v[g[i].s]];
			char h[32], id[32], proto[24];

			tc_print_protocol(proto, sizeof(proto), f0->protocol);
			if (!r)
				snprintf(why, sizeof(why), "no root table in the dump");
			else
				snprintf(why, sizeof(why),
					 "its root table %s is not the one tc lines would make (%s)",
					 u32_word(h, sizeof(h), r->handle, 0),
					 u32_word(id, sizeof(id), want, 0));
			nl_omit(w, "not modelled: filter parent %s protocol %s pref %u u32 chain 0: %s",
				nl_classid(id, sizeof(id), parent), proto, f0->pref, why);
			g[i].ok = 0;
			for (size_t k = g[i].s; k < g[i].e; k++)
				done[k] = 1;
			continue;
		}
		if (nmade)
			cursor++;
		made[nmade++] = r->handle;
		for (size_t k = g[i].s; k < g[i].e; k++)
			if (v[k] == g[i].root)
				done[k] = 1;
		for (size_t k = g[i].e; k-- > g[i].s;) {
			const struct nli_filter *f = &m->filters[v[k]];
			char h[32] = "";

			if (done[k] || !f->u32->table)
				continue;
			line_head(line, sizeof(line), w, parent, f);
			if (f->handle == U32_AUTO(cursor))
				cursor++;
			else
				snprintf(h, sizeof(h), " handle %x:", f->handle >> 20);
			fprintf(w->tc, "  %s%s u32 divisor %u\n", line, h, f->u32->divisor);
			made[nmade++] = f->handle;
			done[k] = 1;
			opened = 1;
		}
		/* no table of its own: one of its nodes makes the tcf_proto now */
		for (size_t k = g[i].s; !opened && k < g[i].e; k++) {
			const struct nli_filter *f = &m->filters[v[k]];
			const struct nli_u32 *u = f->u32;

			if (done[k] || f->why[0] || u32_problem(u, why, sizeof(why)) ||
			    (u->has_link && u->link && !has_table(made, nmade, u->link)))
				continue;
			u32_node_line(line, sizeof(line), w, parent, f);
			fprintf(w->tc, "  %s\n", line);
			done[k] = 1;
			opened = 1;
		}
		if (!opened) {
			/* only its root: a filter add that made nothing else; the
			 * rebuilt ids would not follow, so the rest is listed */
			u32_desc(desc, sizeof(desc), parent, r);
			nl_omit(w, "not modelled: %s: a u32 tcf_proto with no node tc lines could make first", desc);
			for (size_t k = g[i].s; k < g[i].e; k++)
				done[k] = 1;
			g[i].ok = 0;
			cursor = 0x7ff; /* nothing after it can match */
		}
	}
	/* then every node */
	for (size_t i = 0; i < ng; i++) {
		if (!g[i].ok)
			continue;
		for (size_t k = g[i].s; k < g[i].e; k++) {
			const struct nli_filter *f = &m->filters[v[k]];
			const struct nli_u32 *u = f->u32;
			const char *p;

			if (done[k])
				continue;
			done[k] = 1;
			u32_desc(desc, sizeof(desc), parent, f);
			if (f->why[0]) {
				nl_omit(w, "not modelled: %s: %s", desc, f->why);
				continue;
			}
			if (u->table) { /* not reached: tables are all written above */
				continue;
			}
			if ((p = u32_problem(u, why, sizeof(why)))) {
				nl_omit(w, "not modelled: %s: %s", desc, p);
				continue;
			}
			if (u->has_link && u->link && !has_table(made, nmade, u->link)) {
				char h[32];

				nl_omit(w, "not modelled: %s: it links to table %s, which is not written",
					desc, u32_word(h, sizeof(h), u->link, 0));
				continue;
			}
			u32_node_line(line, sizeof(line), w, parent, f);
			fprintf(w->tc, "  %s\n", line);
		}
	}
out:
	free(g);
	free(made);
	free(done);
}

/* ---- flower ---- */

#define FL_HAS(fl, t) ((fl)->len[t] != 0)

static uint16_t fl_be16(const struct nli_flower *fl, int t)
{
	uint16_t v;

	memcpy(&v, fl->val[t], 2);
	return ntohs(v);
}

/* The prefix length of a contiguous mask of n bytes, or -1. */
static int prefix_len(const uint8_t *mask, int n)
{
	int bits = 0, i = 0;

	for (; i < n && mask[i] == 0xff; i++)
		bits += 8;
	if (i < n) {
		uint8_t b = mask[i];

		while (b & 0x80) {
			bits++;
			b = (uint8_t)(b << 1);
		}
		if (b)
			return -1;
		for (i++; i < n; i++)
			if (mask[i])
				return -1;
	}
	return bits;
}

/* One value/mask pair of flower's, as the word that sets it. */
struct fl_out {
	char *buf;
	size_t n, k;
};

#define OUT(o, ...)                                                                    \
	do {                                                                           \
		if ((o)->k < (o)->n)                                                   \
			(o)->k += (size_t)snprintf((o)->buf + (o)->k, (o)->n - (o)->k, \
						   __VA_ARGS__);                       \
	} while (0)

static const char *fl_addr(struct fl_out *o, const struct nli_flower *fl, const char *word,
			   int key, int mask, int size)
{
	char a[64];
	int len;

	if (!FL_HAS(fl, key))
		return NULL;
	len = FL_HAS(fl, mask) ? prefix_len(fl->val[mask], size) : size * 8;
	if (len < 0)
		return "an address mask that is not a prefix (tc's words take a prefix)";
	inet_ntop(size == 4 ? AF_INET : AF_INET6, fl->val[key], a, sizeof(a));
	OUT(o, " %s %s/%d", word, a, len);
	return NULL;
}

static void fl_port(struct fl_out *o, const struct nli_flower *fl, const char *word, int key,
		    int mask)
{
	uint16_t p = fl_be16(fl, key), m = FL_HAS(fl, mask) ? fl_be16(fl, mask) : 0xffff;

	if (m == 0xffff && p)
		OUT(o, " %s %u", word, p);
	else
		OUT(o, " %s %u/0x%x", word, p, m);
}

static void fl_u8(struct fl_out *o, const struct nli_flower *fl, const char *word, int key,
		  int mask, int hexmask)
{
	unsigned m = FL_HAS(fl, mask) ? fl->val[mask][0] : 0xff;

	if (!FL_HAS(fl, key))
		return;
	if (hexmask)
		OUT(o, " %s %u/0x%x", word, fl->val[key][0], m);
	else
		OUT(o, " %s %u/%u", word, fl->val[key][0], m);
}

static void fl_mac(struct fl_out *o, const struct nli_flower *fl, const char *word, int key,
		   int mask)
{
	const uint8_t *a = fl->val[key], *m = fl->val[mask];

	if (!FL_HAS(fl, key))
		return;
	OUT(o, " %s %02x:%02x:%02x:%02x:%02x:%02x", word, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (FL_HAS(fl, mask))
		OUT(o, "/%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

/* The flower words of f after "flower", or why none rebuild it. */
static const char *flower_words(struct fl_out *o, const struct nli_filter *f)
{
	const struct nli_flower *fl = f->flower;
	int vlan = f->protocol == 0x8100 || f->protocol == 0x88a8;
	uint16_t eth = FL_HAS(fl, TCA_FLOWER_KEY_ETH_TYPE) ? fl_be16(fl, TCA_FLOWER_KEY_ETH_TYPE)
							  : 0;
	const char *p;
	char pw[24];

	if (vlan) {
		/* the kernel keeps the outer tag's type as vlan_tpid and the
		 * inner protocol (vlan_ethtype) as the key's eth_type */
		if (FL_HAS(fl, TCA_FLOWER_KEY_VLAN_ID)) {
			uint16_t id;

			memcpy(&id, fl->val[TCA_FLOWER_KEY_VLAN_ID], 2);
			OUT(o, " vlan_id %u", id);
		}
		if (FL_HAS(fl, TCA_FLOWER_KEY_VLAN_PRIO))
			OUT(o, " vlan_prio %u", fl->val[TCA_FLOWER_KEY_VLAN_PRIO][0]);
		if (eth && eth != f->protocol)
			OUT(o, " vlan_ethtype %s", proto_word(pw, sizeof(pw), eth));
	} else {
		if (FL_HAS(fl, TCA_FLOWER_KEY_VLAN_ID) || FL_HAS(fl, TCA_FLOWER_KEY_VLAN_PRIO) ||
		    FL_HAS(fl, TCA_FLOWER_KEY_VLAN_ETH_TYPE))
			return "vlan keys under a protocol that is not 802.1Q or 802.1ad";
		if (eth && eth != f->protocol)
			return "an eth_type other than the filter's protocol";
		if (f->protocol != 0x0003 && f->protocol != eth)
			return "no eth_type although the protocol names one";
	}
	fl_mac(o, fl, "dst_mac", TCA_FLOWER_KEY_ETH_DST, TCA_FLOWER_KEY_ETH_DST_MASK);
	fl_mac(o, fl, "src_mac", TCA_FLOWER_KEY_ETH_SRC, TCA_FLOWER_KEY_ETH_SRC_MASK);
	if (FL_HAS(fl, TCA_FLOWER_KEY_IP_PROTO)) {
		uint8_t ip = fl->val[TCA_FLOWER_KEY_IP_PROTO][0];

		if (ip == 6)
			OUT(o, " ip_proto tcp");
		else if (ip == 17)
			OUT(o, " ip_proto udp");
		else if (ip == 132)
			OUT(o, " ip_proto sctp");
		else if (ip == 1)
			OUT(o, " ip_proto icmp");
		else if (ip == 58)
			OUT(o, " ip_proto icmpv6");
		else
			OUT(o, " ip_proto %x", ip); /* f_flower reads IP-PROTO in hex */
	}
	fl_u8(o, fl, "ip_tos", TCA_FLOWER_KEY_IP_TOS, TCA_FLOWER_KEY_IP_TOS_MASK, 1);
	fl_u8(o, fl, "ip_ttl", TCA_FLOWER_KEY_IP_TTL, TCA_FLOWER_KEY_IP_TTL_MASK, 1);
	if ((p = fl_addr(o, fl, "dst_ip", TCA_FLOWER_KEY_IPV4_DST, TCA_FLOWER_KEY_IPV4_DST_MASK, 4)) ||
	    (p = fl_addr(o, fl, "src_ip", TCA_FLOWER_KEY_IPV4_SRC, TCA_FLOWER_KEY_IPV4_SRC_MASK, 4)) ||
	    (p = fl_addr(o, fl, "dst_ip", TCA_FLOWER_KEY_IPV6_DST, TCA_FLOWER_KEY_IPV6_DST_MASK, 16)) ||
	    (p = fl_addr(o, fl, "src_ip", TCA_FLOWER_KEY_IPV6_SRC, TCA_FLOWER_KEY_IPV6_SRC_MASK, 16)))
		return p;
	static const int ports[][3] = {
	    {TCA_FLOWER_KEY_TCP_DST, TCA_FLOWER_KEY_TCP_DST_MASK, 1},
	    {TCA_FLOWER_KEY_TCP_SRC, TCA_FLOWER_KEY_TCP_SRC_MASK, 0},
	    {TCA_FLOWER_KEY_UDP_DST, TCA_FLOWER_KEY_UDP_DST_MASK, 1},
	    {TCA_FLOWER_KEY_UDP_SRC, TCA_FLOWER_KEY_UDP_SRC_MASK, 0},
	    {TCA_FLOWER_KEY_SCTP_DST, TCA_FLOWER_KEY_SCTP_DST_MASK, 1},
	    {TCA_FLOWER_KEY_SCTP_SRC, TCA_FLOWER_KEY_SCTP_SRC_MASK, 0},
	};
	for (size_t i = 0; i < sizeof(ports) / sizeof(ports[0]); i++)
		if (FL_HAS(fl, ports[i][0]))
			fl_port(o, fl, ports[i][2] ? "dst_port" : "src_port", ports[i][0], ports[i][1]);
	if (FL_HAS(fl, TCA_FLOWER_KEY_PORT_DST_MIN) && FL_HAS(fl, TCA_FLOWER_KEY_PORT_DST_MAX))
		OUT(o, " dst_port %u-%u", fl_be16(fl, TCA_FLOWER_KEY_PORT_DST_MIN),
		    fl_be16(fl, TCA_FLOWER_KEY_PORT_DST_MAX));
	if (FL_HAS(fl, TCA_FLOWER_KEY_PORT_SRC_MIN) && FL_HAS(fl, TCA_FLOWER_KEY_PORT_SRC_MAX))
		OUT(o, " src_port %u-%u", fl_be16(fl, TCA_FLOWER_KEY_PORT_SRC_MIN),
		    fl_be16(fl, TCA_FLOWER_KEY_PORT_SRC_MAX));
	if (FL_HAS(fl, TCA_FLOWER_KEY_TCP_FLAGS))
		OUT(o, " tcp_flags 0x%x/0x%x", fl_be16(fl, TCA_FLOWER_KEY_TCP_FLAGS),
		    FL_HAS(fl, TCA_FLOWER_KEY_TCP_FLAGS_MASK)
			? fl_be16(fl, TCA_FLOWER_KEY_TCP_FLAGS_MASK)
			: 0xfff);
	fl_u8(o, fl, "type", TCA_FLOWER_KEY_ICMPV4_TYPE, TCA_FLOWER_KEY_ICMPV4_TYPE_MASK, 0);
	fl_u8(o, fl, "code", TCA_FLOWER_KEY_ICMPV4_CODE, TCA_FLOWER_KEY_ICMPV4_CODE_MASK, 0);
	fl_u8(o, fl, "type", TCA_FLOWER_KEY_ICMPV6_TYPE, TCA_FLOWER_KEY_ICMPV6_TYPE_MASK, 0);
	fl_u8(o, fl, "code", TCA_FLOWER_KEY_ICMPV6_CODE, TCA_FLOWER_KEY_ICMPV6_CODE_MASK, 0);
	if (fl->has_classid) {
		char id[32];

		OUT(o, " classid %s", nl_classid(id, sizeof(id), fl->classid));
	}
	if (fl->flags & CLS_FLAGS_SKIP_HW)
		OUT(o, " skip_hw");
	if (fl->flags & ~(CLS_FLAGS_SKIP_HW | CLS_FLAGS_SKIP_SW | CLS_FLAGS_IN_HW |
			  CLS_FLAGS_NOT_IN_HW))
		return "TCA_FLOWER_FLAGS tcsim does not know";
	return NULL;
}

/* The filters of one flower tcf_proto, in the kernel's order (by handle). */
static void write_flower(struct nl_writer *w, const size_t *v, size_t s, size_t e, uint32_t parent)
{
	const struct nl_import_model *m = w->m;

	for (size_t k = s; k < e; k++) {
		const struct nli_filter *f = &m->filters[v[k]];
		char line[1024], id[32], proto[24];
		struct fl_out o = {.buf = line, .n = sizeof(line)};
		const char *p;

		if (!f->flower)
			continue; /* the tcf_proto's own line */
		tc_print_protocol(proto, sizeof(proto), f->protocol);
		if (f->why[0]) {
			nl_omit(w, "not modelled: filter parent %s protocol %s pref %u flower chain 0 handle 0x%x: %s",
				nl_classid(id, sizeof(id), parent), proto, f->pref, f->handle, f->why);
			continue;
		}
		line_head(line, sizeof(line), w, parent, f);
		o.k = strlen(line);
		OUT(&o, " handle 0x%x flower", f->handle);
		if ((p = flower_words(&o, f))) {
			nl_omit(w, "not modelled: filter parent %s protocol %s pref %u flower chain 0 handle 0x%x: %s",
				nl_classid(id, sizeof(id), parent), proto, f->pref, f->handle, p);
			continue;
		}
		fprintf(w->tc, "  %s\n", line);
	}
}

void nl_write_cls(struct nl_writer *w, const size_t *v, size_t n, size_t s, size_t e,
		  uint32_t parent)
{
	const struct nl_import_model *m = w->m;

	if (nl_is_kind(m->filters[v[s]].kind, "flower")) {
		write_flower(w, v, s, e, parent);
		return;
	}
	/* u32: all tcf_protos of the qdisc at once, when the first is met */
	for (size_t k = 0; k < s; k++)
		if (nl_is_kind(m->filters[v[k]].kind, "u32") && !m->filters[v[k]].chain)
			return;
	write_u32(w, v, n, parent);
}
