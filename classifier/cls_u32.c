/* cls_u32.c - the u32 classifier as net/sched/cls_u32.c runs it: hash
 * tables of key nodes, each node a list of 32-bit value/mask keys read at
 * offsets from the network header, nodes linking to further tables, with
 * the variable offset and "eat" of a link. Option words are parsed and
 * packed into keys as iproute2's tc/f_u32.c does; `tc filter show` prints
 * what iproute2 6.1 prints. The tables of all u32 filters of one qdisc are
 * shared (the kernel's tc_u_common), through the qdisc's slot in tcf_env. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "errmsg.h"
#include "cls.h"

/* include/uapi/linux/pkt_cls.h */
#define U32_HTID(h) ((h)&0xFFF00000u)
#define U32_USERHTID(h) (U32_HTID(h) >> 20)
#define U32_HASH(h) (((h) >> 12) & 0xFFu)
#define U32_NODE(h) ((h)&0xFFFu)
#define U32_KEY(h) ((h)&0xFFFFFu)
#define U32_ROOT 0xFFF00000u
#define U32_TERMINAL 1
#define U32_OFFSET 2
#define U32_VAROFFSET 4
#define U32_EAT 8
#define U32_MAXDEPTH 8
#define U32_MAXKEYS 128 /* iproute2's limit per selector */
#define FLAG_SKIP_HW 1u
#define FLAG_SKIP_SW 2u
#define FLAG_NOT_IN_HW 8u

/* One key; val and mask in host order, as `tc filter show` prints them. */
struct u32_key {
	uint32_t val;
	uint32_t mask;
	int32_t off;
	int32_t offmask; /* 0, or -1 for "at nexthdr+" */
};

/* struct tc_u32_sel, field for field. */
struct u32_sel {
	uint8_t flags;
	uint8_t offshift;
	uint8_t nkeys;
	uint16_t offmask; /* host order */
	uint16_t off;
	int16_t offoff;
	int16_t hoff;
	uint32_t hmask; /* host order */
	struct u32_key keys[U32_MAXKEYS];
};

/* An idr reduced to what the handles need: a set of ids. */
struct u32_ids {
	uint32_t *v;
	size_t n, cap;
};

struct u32_hnode;

struct u32_knode {
	struct u32_knode *next;
	uint32_t handle;
	struct u32_hnode *ht_up;
	struct u32_hnode *ht_down;
	uint8_t fshift;
	uint32_t classid;
	uint32_t flags;
	uint32_t mark_val, mark_mask;
	uint64_t mark_success;
	struct u32_key *keys; /* sel.nkeys of them */
	struct u32_sel sel;   /* keys[] unused: see keys */
	char *where;          /* "file:line" of the tc command that made it (lint), or NULL */
};

struct u32_hnode {
	struct u32_hnode *next;
	uint32_t handle;
	uint32_t prio;
	int refcnt;
	unsigned int divisor; /* buckets - 1 */
	int is_root;
	struct u32_ids kids;
	struct u32_knode *ht[]; /* divisor + 1 buckets */
};

/* tc_u_common: one per qdisc. */
struct u32_common {
	struct u32_hnode *hlist; /* newest first */
	int refcnt;              /* tcf_protos */
	long knodes;
	struct u32_ids ids; /* hash table ids (gen_new_htid and explicit handles) */
	uint32_t cursor;    /* idr_alloc_cyclic's next id */
	void **slot;        /* where the qdisc keeps it, cleared when it goes */
};

struct u32_head {
	struct u32_common *c;
	struct u32_hnode *root;
};

/* ---- handle sets ---- */

static int ids_has(const struct u32_ids *s, uint32_t id)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i] == id)
			return 1;
	return 0;
}

static int ids_add(struct u32_ids *s, uint32_t id)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 8;
		uint32_t *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = id;
	return 0;
}

static void ids_del(struct u32_ids *s, uint32_t id)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i] == id) {
			s->v[i] = s->v[--s->n];
			return;
		}
}

/* gen_new_htid: idr_alloc_cyclic over 1..0x7fe. The id kept in the set is
 * the small number while the kernel removes a table by its full handle, so
 * an automatic id is never given again (the kernel does the same). */
static uint32_t gen_new_htid(struct u32_common *c)
{
	for (uint32_t tries = 0; tries < 0x7FE; tries++) {
		uint32_t id = c->cursor < 1 || c->cursor > 0x7FE ? 1 : c->cursor;

		c->cursor = id + 1;
		if (!ids_has(&c->ids, id)) {
			if (ids_add(&c->ids, id))
				return 0;
			return (id | 0x800u) << 20;
		}
	}
	return 0;
}

/* gen_new_kid: the lowest free node id from 0x800 in the bucket, then from
 * 1; a full bucket gives 0xfff again. */
static uint32_t gen_new_kid(struct u32_hnode *ht, uint32_t htid)
{
	uint32_t max = htid | 0xFFF;

	for (uint32_t h = htid | 0x800; h <= max; h++)
		if (!ids_has(&ht->kids, h))
			return ids_add(&ht->kids, h) ? max : h;
	for (uint32_t h = htid + 1; h <= max; h++)
		if (!ids_has(&ht->kids, h))
			return ids_add(&ht->kids, h) ? max : h;
	return max;
}

/* ---- the tables ---- */

static struct u32_hnode *lookup_ht(const struct u32_common *c, uint32_t handle)
{
	struct u32_hnode *ht = c->hlist;

	while (ht && ht->handle != handle)
		ht = ht->next;
	return ht;
}

static struct u32_knode *lookup_key(const struct u32_hnode *ht, uint32_t handle)
{
	unsigned int b = U32_HASH(handle);

	if (b > ht->divisor)
		return NULL;
	for (struct u32_knode *n = ht->ht[b]; n; n = n->next)
		if (n->handle == handle)
			return n;
	return NULL;
}

static struct u32_hnode *hnode_new(unsigned int divisor)
{
	return calloc(1, sizeof(struct u32_hnode) + (divisor + 1) * sizeof(struct u32_knode *));
}

static void knode_free(struct u32_knode *n)
{
	if (n->ht_down)
		n->ht_down->refcnt--;
	free(n->keys);
	free(n->where);
	free(n);
}

static void clear_hnode(struct u32_common *c, struct u32_hnode *ht)
{
	for (unsigned int b = 0; b <= ht->divisor; b++)
		while (ht->ht[b]) {
			struct u32_knode *n = ht->ht[b];

			ht->ht[b] = n->next;
			c->knodes--;
			ids_del(&ht->kids, n->handle);
			knode_free(n);
		}
}

static void unlink_hnode(struct u32_common *c, struct u32_hnode *ht)
{
	for (struct u32_hnode **pp = &c->hlist; *pp; pp = &(*pp)->next)
		if (*pp == ht) {
			*pp = ht->next;
			break;
		}
	ids_del(&c->ids, ht->handle);
	free(ht->kids.v);
	free(ht);
}

/* u32_init: the filter's root table 800: (the qdisc's first) or 8xx:. */
static int u32_init(struct tcf_proto *tp, const struct tcf_env *env)
{
	struct u32_common *c = env->u32_node ? *env->u32_node : NULL;
	struct u32_head *head = calloc(1, sizeof(*head));
	struct u32_hnode *root = hnode_new(0);

	if (!head || !root)
		goto nomem;
	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c)
			goto nomem;
		c->slot = env->u32_node;
		if (c->slot)
			*c->slot = c;
		root->handle = 0x80000000u;
	} else {
		root->handle = gen_new_htid(c);
	}
	root->refcnt = 2;
	root->prio = tp->prio;
	root->is_root = 1;
	root->next = c->hlist;
	c->hlist = root;
	c->refcnt++;
	head->c = c;
	head->root = root;
	tp->priv = head;
	return 0;
nomem:
	free(head);
	free(root);
	return -ENOMEM;
}

/* ---- tc's words (iproute2 tc/f_u32.c) ---- */

static const char usage[] =
	"Usage: ... u32 [ match SELECTOR ... ] [ link HTID ] [ classid CLASSID ] "
	"[ offset OFFSET_SPEC ] [ ht HTID ] [ hashkey HASHKEY_SPEC ] [ sample SAMPLE ] "
	"[ order N ] [ skip_hw ] or u32 divisor DIVISOR";

/* What one request says, as the netlink attributes tc would send. */
struct u32_opts {
	struct u32_sel sel;
	int has_sel;
	uint32_t classid;
	int has_classid;
	uint32_t link;
	int has_link;
	unsigned int divisor;
	int has_divisor;
	uint32_t htid;
	uint32_t mark_val, mark_mask;
	int has_mark;
	uint32_t flags;
	uint32_t order;
};

struct u32_words {
	char **argv;
	int argc;
	int i;
	char why[160]; /* what was wrong, for the message */
};

#define WHY(w, ...) snprintf((w)->why, sizeof((w)->why), __VA_ARGS__)

enum { BAD = -1, INCOMPLETE = -2 };

static const char *cur(const struct u32_words *w)
{
	return w->i < w->argc ? w->argv[w->i] : NULL;
}

static int left(const struct u32_words *w)
{
	return w->argc - w->i;
}

/* NEXT_ARG: the next word must exist. */
static int next_arg(struct u32_words *w)
{
	w->i++;
	return w->i < w->argc ? 0 : INCOMPLETE;
}

/* strtoul/strtol with iproute2's get_u32, get_integer and get_u16 checks. */
static int get_ulong(unsigned long *out, const char *s, int base, unsigned long max)
{
	char *end;

	if (!s || !*s)
		return -1;
	errno = 0;
	*out = strtoul(s, &end, base);
	if (*end || *out > max || (*out == ULONG_MAX && errno == ERANGE))
		return -1;
	return 0;
}

static int get_u32(uint32_t *out, const char *s, int base)
{
	unsigned long v;

	if (get_ulong(&v, s, base, 0xFFFFFFFFul))
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int get_int(int *out, const char *s, int base)
{
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, base);
	if (*end || v > INT_MAX || v < INT_MIN || errno == ERANGE)
		return -1;
	*out = (int)v;
	return 0;
}

/* get_u32_handle: HTID:HASH:NODE in hex, or 0xNUMBER. */
static int u32_parse_handle(uint32_t *out, const char *s)
{
	unsigned long htid = 0, hash = 0, node = 0;
	const char *p = s;
	char *end;

	if (!strchr(s, ':')) {
		if (strncmp(s, "0x", 2))
			return -1;
		return get_u32(out, s, 16);
	}
	htid = strtoul(p, &end, 16);
	if (end == p && *p != ':' && *p)
		return -1;
	if (htid >= 0x1000)
		return -1;
	if (*end) {
		p = end + 1;
		hash = strtoul(p, &end, 16);
		if (end == p && *p != ':' && *p)
			return -1;
		if (hash >= 0x100)
			return -1;
		if (*end) {
			p = end + 1;
			node = strtoul(p, &end, 16);
			if (end == p && *p)
				return -1;
			if (node >= 0x1000)
				return -1;
		}
	}
	*out = (uint32_t)(htid << 20 | hash << 12 | node);
	return 0;
}

/* f_u32.c's handle word: its get_u32_handle, refused as tc refuses it. */
static int cls_u32_get_handle(const char *word, uint32_t *handle, char *err, size_t errlen)
{
	if (u32_parse_handle(handle, word))
		return errmsg(err, errlen, -EINVAL, "Illegal filter ID");
	return 0;
}

/* pack_key: a key at (off, offmask) merges with an existing one there if
 * their common bits agree; a new key needs an offset that is a multiple of
 * 4 and room. */
static int pack_key(struct u32_words *w, struct u32_sel *sel, uint32_t val, uint32_t mask,
		    int off, int offmask)
{
	val &= mask;
	for (int i = 0; i < sel->nkeys; i++) {
		struct u32_key *k = &sel->keys[i];

		if (k->off == off && k->offmask == offmask) {
			if ((val ^ k->val) & mask & k->mask) {
				WHY(w, "it contradicts an earlier key at %s%d", offmask ? "nexthdr+" : "", off);
				return BAD;
			}
			k->val |= val;
			k->mask |= mask;
			return 0;
		}
	}
	if (sel->nkeys >= U32_MAXKEYS) {
		WHY(w, "more than %d keys", U32_MAXKEYS);
		return BAD;
	}
	if (off % 4) {
		WHY(w, "offset %d is not a multiple of 4", off);
		return BAD;
	}
	sel->keys[sel->nkeys++] = (struct u32_key){.val = val, .mask = mask, .off = off, .offmask = offmask};
	return 0;
}

static int pack_key16(struct u32_words *w, struct u32_sel *sel, uint32_t val, uint32_t mask,
		      int off, int offmask)
{
	if (val > 0xFFFF || mask > 0xFFFF) {
		WHY(w, "value 0x%x or mask 0x%x is wider than 16 bits", val, mask);
		return BAD;
	}
	if ((off & 3) == 0) {
		val <<= 16;
		mask <<= 16;
	}
	return pack_key(w, sel, val, mask, off & ~3, offmask);
}

static int pack_key8(struct u32_words *w, struct u32_sel *sel, uint32_t val, uint32_t mask,
		     int off, int offmask)
{
	int shift = 24 - 8 * (off & 3);

	if (val > 0xFF || mask > 0xFF) {
		WHY(w, "value 0x%x or mask 0x%x is wider than 8 bits", val, mask);
		return BAD;
	}
	return pack_key(w, sel, val << shift, mask << shift, off & ~3, offmask);
}

/* parse_at: "at N", "at nexthdr+N" or "at nexthdr+ N". */
static int parse_at(struct u32_words *w, int *off, int *offmask)
{
	const char *p = cur(w);
	int ret;

	if (!p)
		return BAD;
	if (strlen(p) > 8 && !strncmp(p, "nexthdr+", 8)) {
		*offmask = -1;
		p += 8;
	} else if (tc_matches(p, "nexthdr+")) {
		if ((ret = next_arg(w)))
			return ret;
		*offmask = -1;
		p = cur(w);
	}
	if (get_int(off, p, 0)) {
		WHY(w, "bad offset \"%s\"", p);
		return BAD;
	}
	w->i++;
	return 0;
}

/* "VAL MASK [at OFF]"; width 32, 16 or 8. */
static int parse_num(struct u32_words *w, struct u32_sel *sel, int width, int off, int offmask)
{
	uint32_t val, mask;
	int ret;

	if (left(w) < 2) {
		WHY(w, "a value and a mask are needed");
		return BAD;
	}
	if (get_u32(&val, cur(w), 0)) {
		WHY(w, "bad value \"%s\"", cur(w));
		return BAD;
	}
	w->i++;
	if (get_u32(&mask, cur(w), 16)) {
		WHY(w, "bad mask \"%s\" (hex)", cur(w));
		return BAD;
	}
	w->i++;
	if (width == 8 && (val > 0xFF || mask > 0xFF)) {
		WHY(w, "value 0x%x or mask 0x%x is wider than 8 bits", val, mask);
		return BAD;
	}
	if (cur(w) && !strcmp(cur(w), "at")) {
		if ((ret = next_arg(w)) || (ret = parse_at(w, &off, &offmask)))
			return ret;
	}
	if (width == 32)
		return pack_key(w, sel, val, mask, off, offmask);
	if (width == 16)
		return pack_key16(w, sel, val, mask, off, offmask);
	return pack_key8(w, sel, val, mask, off, offmask);
}

/* iproute2's get_addr_ipv4: up to four parts, each strtoul base 0. */
static int get_ipv4(uint8_t a[4], const char *s)
{
	memset(a, 0, 4);
	for (int i = 0; i < 4; i++) {
		char *end;
		unsigned long n = strtoul(s, &end, 0);

		if (n > 255 || end == s)
			return -1;
		a[i] = (uint8_t)n;
		if (!*end)
			return 0;
		if (i == 3 || *end != '.')
			return -1;
		s = end + 1;
	}
	return -1;
}

/* get_prefix_1: ADDR[/LEN] (LEN a number, or a dotted netmask for IPv4),
 * or default/any/all: the zero prefix. */
static int get_prefix(uint8_t addr[16], int *bitlen, const char *arg, int v6)
{
	char buf[128], *slash;
	int max = v6 ? 128 : 32;
	unsigned long plen;
	uint8_t m[4];

	memset(addr, 0, 16);
	if (!strcmp(arg, "default") || !strcmp(arg, "any") || !strcmp(arg, "all")) {
		*bitlen = 0;
		return 0;
	}
	if (strlen(arg) >= sizeof(buf))
		return -1;
	strcpy(buf, arg);
	slash = strchr(buf, '/');
	if (slash)
		*slash = 0;
	if (v6 ? inet_pton(AF_INET6, buf, addr) != 1 : get_ipv4(addr, buf) != 0)
		return -1;
	*bitlen = max;
	if (!slash)
		return 0;
	if (!get_ulong(&plen, slash + 1, 0, 0xFFFFFFFFul)) {
		if (plen > (unsigned long)max)
			return -1;
		*bitlen = (int)plen;
		return 0;
	}
	if (v6 || get_ipv4(m, slash + 1))
		return -1;
	{
		uint32_t mask = (uint32_t)m[0] << 24 | (uint32_t)m[1] << 16 | (uint32_t)m[2] << 8 | m[3];
		int bits = 0;

		while (bits < 32 && (mask & (0x80000000u >> bits)))
			bits++;
		if (bits < 32 && (mask << bits))
			return -1;
		*bitlen = bits;
	}
	return 0;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* "ADDR/LEN [at OFF]" of ip (one key) or ip6 (a key per 32 bits). */
static int parse_addr(struct u32_words *w, struct u32_sel *sel, int off, int v6)
{
	uint8_t a[16];
	int bitlen, offmask = 0, ret;

	if (left(w) < 1)
		return BAD;
	if (get_prefix(a, &bitlen, cur(w), v6)) {
		WHY(w, "bad %s prefix \"%s\"", v6 ? "IPv6" : "IPv4", cur(w));
		return BAD;
	}
	w->i++;
	if (cur(w) && !strcmp(cur(w), "at")) {
		if ((ret = next_arg(w)) || (ret = parse_at(w, &off, &offmask)))
			return ret;
	}
	if (!v6)
		return pack_key(w, sel, be32(a), bitlen ? 0xFFFFFFFFu << (32 - bitlen) : 0, off, offmask);
	for (int i = 0; i < bitlen; i += 32) {
		uint32_t mask = i + 31 < bitlen ? 0xFFFFFFFFu : 0xFFFFFFFFu << (32 - (bitlen - i));

		if ((ret = pack_key(w, sel, be32(a + i / 8), mask, off + 4 * (i / 32), offmask)))
			return ret;
	}
	return 0;
}

/* "ether src|dst XX:XX:XX:XX:XX:XX [at OFF]": six byte keys, the offsets
 * relative to the network header (-8 and -14 behind an Ethernet header). */
static int parse_ether_addr(struct u32_words *w, struct u32_sel *sel, int off)
{
	unsigned char a[6];
	int offmask = 0, ret;
	char extra;

	if (left(w) < 1)
		return BAD;
	if (sscanf(cur(w), "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx%c", a, a + 1, a + 2, a + 3, a + 4, a + 5,
		   &extra) < 6) {
		WHY(w, "improperly formed address \"%s\"", cur(w));
		return BAD;
	}
	w->i++;
	if (cur(w) && !strcmp(cur(w), "at")) {
		if ((ret = next_arg(w)) || (ret = parse_at(w, &off, &offmask)))
			return ret;
	}
	for (int i = 0; i < 6; i++)
		if ((ret = pack_key8(w, sel, a[i], 0xFF, off + i, offmask)))
			return ret;
	return 0;
}

/* One named field: "NAME" then what parse_num, parse_addr or a fixed key takes. */
struct u32_field {
	const char *name;
	char how; /* 'a' address, '4' ip6 address, '8' '6' '3' number, 'f' fixed 16-bit key, 'p' ip6 priority */
	int off;
	int offmask;
	uint32_t val, mask; /* 'f' */
};

static const struct u32_field ip_fields[] = {
	{"src", 'a', 12, 0, 0, 0},
	{"dst", 'a', 16, 0, 0, 0},
	{"tos", '8', 1, 0, 0, 0},
	{"dsfield", '8', 1, 0, 0, 0}, /* a prefix of it will do, and of precedence */
	{"precedence", '8', 1, 0, 0, 0},
	{"ihl", '8', 0, 0, 0, 0},
	{"protocol", '8', 9, 0, 0, 0},
	{"nofrag", 'f', 6, 0, 0, 0x3FFF},
	{"firstfrag", 'f', 6, 0, 0x2000, 0x3FFF},
	{"df", 'f', 6, 0, 0x4000, 0x4000},
	{"mf", 'f', 6, 0, 0x2000, 0x2000},
	{"dport", '6', 22, 0, 0, 0},
	{"sport", '6', 20, 0, 0, 0},
	{"icmp_type", '8', 20, 0, 0, 0},
	{"icmp_code", '8', 21, 0, 0, 0},
	{NULL, 0, 0, 0, 0, 0},
};

static const struct u32_field ip6_fields[] = {
	{"src", '4', 8, 0, 0, 0},
	{"dst", '4', 24, 0, 0, 0},
	{"priority", 'p', 0, 0, 0, 0},
	{"protocol", '8', 6, 0, 0, 0},
	{"flowlabel", '3', 0, 0, 0, 0},
	{"dport", '6', 42, 0, 0, 0},
	{"sport", '6', 40, 0, 0, 0},
	{"icmp_type", '8', 40, 0, 0, 0},
	{"icmp_code", '8', 41, 1, 0, 0}, /* iproute2 passes offmask 1 here */
	{NULL, 0, 0, 0, 0, 0},
};

static const struct u32_field l4_fields[] = {
	{"src", '6', 0, -1, 0, 0},
	{"dst", '6', 2, -1, 0, 0},
	{NULL, 0, 0, 0, 0, 0},
};

static const struct u32_field icmp_fields[] = {
	{"type", '8', 0, -1, 0, 0},
	{"code", '8', 1, -1, 0, 0},
	{NULL, 0, 0, 0, 0, 0},
};

static int field_is(const struct u32_field *f, const char *word, int ip)
{
	if (ip && (!strcmp(f->name, "dsfield") || !strcmp(f->name, "precedence")))
		return tc_matches(word, f->name);
	return !strcmp(word, f->name);
}

/* parse_ip, parse_ip6, parse_udp/tcp, parse_icmp: they want two words at
 * least, even for the fixed keys (nofrag, df, ...). */
static int parse_fields(struct u32_words *w, struct u32_sel *sel, const struct u32_field *t,
			const char *what)
{
	const struct u32_field *f;
	const char *word = cur(w);
	int ret;

	if (left(w) < 2) {
		WHY(w, "\"%s\" needs more words", what);
		return BAD;
	}
	for (f = t; f->name && !field_is(f, word, t == ip_fields); f++)
		;
	if (!f->name) {
		WHY(w, "unknown field \"%s %s\"", what, word);
		return BAD;
	}
	if (f->how == 'f') {
		w->i++;
		return pack_key16(w, sel, f->val, f->mask, f->off, f->offmask);
	}
	if ((ret = next_arg(w)))
		return ret;
	switch (f->how) {
	case 'a':
		return parse_addr(w, sel, f->off, 0);
	case '4':
		return parse_addr(w, sel, f->off, 1);
	case '3':
		return parse_num(w, sel, 32, f->off, f->offmask);
	case '6':
		return parse_num(w, sel, 16, f->off, f->offmask);
	case '8':
		return parse_num(w, sel, 8, f->off, f->offmask);
	default: { /* ip6 priority: 8 bits after the version, no "at" */
		uint32_t val, mask;

		if (left(w) < 2 || get_u32(&val, cur(w), 0) || get_u32(&mask, w->argv[w->i + 1], 16) ||
		    val > 0xFF || mask > 0xFF) {
			WHY(w, "ip6 priority takes an 8-bit value and mask");
			return BAD;
		}
		w->i += 2;
		return pack_key(w, sel, val << 20, mask << 20, 0, 0);
	}
	}
}

/* parse_mark: "mark VAL MASK", the skb's mark (TCA_U32_MARK). */
static int parse_mark(struct u32_words *w, struct u32_opts *o)
{
	int ret;

	if (left(w) <= 1)
		return INCOMPLETE;
	if (get_u32(&o->mark_val, cur(w), 0)) {
		WHY(w, "Illegal \"mark\" value \"%s\"", cur(w));
		return BAD;
	}
	if ((ret = next_arg(w)))
		return ret;
	if (get_u32(&o->mark_mask, cur(w), 0)) {
		WHY(w, "Illegal \"mark\" mask \"%s\"", cur(w));
		return BAD;
	}
	if ((ret = next_arg(w)))
		return ret;
	if ((o->mark_val & o->mark_mask) != o->mark_val) {
		WHY(w, "Illegal \"mark\" (impossible combination: 0x%x outside mask 0x%x)", o->mark_val,
		    o->mark_mask);
		return BAD;
	}
	o->has_mark = 1;
	return 0;
}

/* parse_selector: what follows "match" (or "sample"). */
static int parse_selector(struct u32_words *w, struct u32_sel *sel, struct u32_opts *o)
{
	const char *s = cur(w);
	int ret;

	if (!s)
		return BAD;
	if (tc_matches(s, "u32") || tc_matches(s, "u16") || tc_matches(s, "u8")) {
		int width = tc_matches(s, "u32") ? 32 : tc_matches(s, "u16") ? 16 : 8;

		return (ret = next_arg(w)) ? ret : parse_num(w, sel, width, 0, 0);
	}
	if (tc_matches(s, "ip"))
		return (ret = next_arg(w)) ? ret : parse_fields(w, sel, ip_fields, "ip");
	if (tc_matches(s, "ip6"))
		return (ret = next_arg(w)) ? ret : parse_fields(w, sel, ip6_fields, "ip6");
	if (tc_matches(s, "udp") || tc_matches(s, "tcp"))
		return (ret = next_arg(w)) ? ret : parse_fields(w, sel, l4_fields, s);
	if (tc_matches(s, "icmp"))
		return (ret = next_arg(w)) ? ret : parse_fields(w, sel, icmp_fields, "icmp");
	if (tc_matches(s, "mark"))
		return (ret = next_arg(w)) ? ret : parse_mark(w, o);
	if (tc_matches(s, "ether")) {
		if ((ret = next_arg(w)))
			return ret;
		if (left(w) < 2) {
			WHY(w, "\"ether\" needs more words");
			return BAD;
		}
		if (!strcmp(cur(w), "src") || !strcmp(cur(w), "dst")) {
			int off = !strcmp(cur(w), "src") ? -8 : -14;

			return (ret = next_arg(w)) ? ret : parse_ether_addr(w, sel, off);
		}
		WHY(w, "Unknown match: ether %s", cur(w));
		return BAD;
	}
	WHY(w, "unknown selector \"%s\"", s);
	return BAD;
}

/* parse_offset: plus N | at N (even) | mask HEX | shift N | eat, any order. */
static int parse_offset(struct u32_words *w, struct u32_sel *sel)
{
	const char *s;
	int v, ret;

	while ((s = cur(w))) {
		if (tc_matches(s, "plus")) {
			if ((ret = next_arg(w)))
				return ret;
			if (get_int(&v, cur(w), 0))
				return BAD;
			sel->off = (uint16_t)v;
			sel->flags |= U32_OFFSET;
		} else if (tc_matches(s, "at")) {
			if ((ret = next_arg(w)))
				return ret;
			if (get_int(&v, cur(w), 0))
				return BAD;
			sel->offoff = (int16_t)v;
			if (v % 2) {
				WHY(w, "offset \"at\" must be even");
				return BAD;
			}
			sel->flags |= U32_VAROFFSET;
		} else if (tc_matches(s, "mask")) {
			uint32_t m;

			if ((ret = next_arg(w)))
				return ret;
			if (get_u32(&m, cur(w), 16) || m > 0xFFFF)
				return BAD;
			sel->offmask = (uint16_t)m;
			sel->flags |= U32_VAROFFSET;
		} else if (tc_matches(s, "shift")) {
			if ((ret = next_arg(w)))
				return ret;
			if (get_int(&v, cur(w), 0))
				return BAD;
			sel->offshift = (uint8_t)v;
			sel->flags |= U32_VAROFFSET;
		} else if (tc_matches(s, "eat")) {
			sel->flags |= U32_EAT;
		} else {
			break;
		}
		w->i++;
	}
	return 0;
}

/* parse_hashkey: mask HEX | at N (a multiple of 4). */
static int parse_hashkey(struct u32_words *w, struct u32_sel *sel)
{
	const char *s;
	int v, ret;

	while ((s = cur(w))) {
		if (tc_matches(s, "mask")) {
			if ((ret = next_arg(w)))
				return ret;
			if (get_u32(&sel->hmask, cur(w), 16))
				return BAD;
		} else if (tc_matches(s, "at")) {
			if ((ret = next_arg(w)))
				return ret;
			if (get_int(&v, cur(w), 0) || v % 4) {
				WHY(w, "hashkey \"at\" must be a multiple of 4");
				return BAD;
			}
			sel->hoff = (int16_t)v;
		} else {
			break;
		}
		w->i++;
	}
	return 0;
}

static int word_err(const struct tcf_request *req, struct u32_words *w, int ret,
		    const char *what, char *err, size_t errlen)
{
	if (ret == INCOMPLETE)
		return errmsg(err, errlen, -EINVAL,
			      "%s: u32: Command line is not complete after \"%s\"", req->where,
			      w->argv[w->argc - 1]);
	return errmsg(err, errlen, -EINVAL, "%s: u32: Illegal \"%s\"%s%s", req->where, what,
		      w->why[0] ? ": " : "", w->why);
}

/* u32_parse_opt: the words after "u32", into what tc would send. *handle
 * is the request's handle, "order" merged into it as tc does. */
static int parse_opts(const struct tcf_request *req, struct u32_opts *o, uint32_t *handle,
		      char *err, size_t errlen)
{
	struct u32_words w = {.argv = req->argv, .argc = req->argc};
	int sample_ok = 0, ret;

	memset(o, 0, sizeof(*o));
	while (cur(&w)) {
		const char *s = cur(&w);

		w.why[0] = 0;
		if (tc_matches(s, "match")) {
			if ((ret = next_arg(&w)) || (ret = parse_selector(&w, &o->sel, o)))
				return word_err(req, &w, ret, "match", err, errlen);
			o->has_sel = 1;
			continue;
		} else if (tc_matches(s, "offset")) {
			if ((ret = next_arg(&w)) || (ret = parse_offset(&w, &o->sel)))
				return word_err(req, &w, ret, "offset", err, errlen);
			continue;
		} else if (tc_matches(s, "hashkey")) {
			if ((ret = next_arg(&w)) || (ret = parse_hashkey(&w, &o->sel)))
				return word_err(req, &w, ret, "hashkey", err, errlen);
			continue;
		} else if (tc_matches(s, "classid") || !strcmp(s, "flowid")) {
			if ((ret = next_arg(&w)))
				return word_err(req, &w, ret, s, err, errlen);
			if (tc_get_classid(&o->classid, cur(&w)))
				return errmsg(err, errlen, -EINVAL, "%s: u32: Illegal \"classid\" \"%s\"",
					      req->where, cur(&w));
			o->has_classid = 1;
			o->sel.flags |= U32_TERMINAL;
		} else if (tc_matches(s, "divisor")) {
			unsigned long d;

			if ((ret = next_arg(&w)))
				return word_err(req, &w, ret, s, err, errlen);
			if (get_ulong(&d, cur(&w), 0, 0xFFFFFFFFul) || d == 0 || d > 0x100 || ((d - 1) & d))
				return errmsg(err, errlen, -EINVAL,
					      "%s: u32: Illegal \"divisor\" \"%s\" (a power of 2 from 1 to 256)",
					      req->where, cur(&w));
			o->divisor = (unsigned int)d;
			o->has_divisor = 1;
		} else if (tc_matches(s, "order")) {
			if ((ret = next_arg(&w)))
				return word_err(req, &w, ret, s, err, errlen);
			if (get_u32(&o->order, cur(&w), 0))
				return errmsg(err, errlen, -EINVAL, "%s: u32: Illegal \"order\" \"%s\"",
					      req->where, cur(&w));
		} else if (!strcmp(s, "link") || !strcmp(s, "ht")) {
			uint32_t h;

			if ((ret = next_arg(&w)))
				return word_err(req, &w, ret, s, err, errlen);
			if (u32_parse_handle(&h, cur(&w)))
				return errmsg(err, errlen, -EINVAL, "%s: u32: Illegal \"%s\" \"%s\"",
					      req->where, s, cur(&w));
			if (s[0] == 'l') {
				if (h && U32_NODE(h))
					return errmsg(err, errlen, -EINVAL,
						      "%s: u32: \"link\" must be a hash table (\"%s\" names a node)",
						      req->where, cur(&w));
				o->link = h;
				o->has_link = 1;
			} else {
				if (req->handle_word != NULL && U32_NODE(h))
					return errmsg(err, errlen, -EINVAL,
						      "%s: u32: \"ht\" must be a hash table (\"%s\" names a node)",
						      req->where, cur(&w));
				o->htid = sample_ok ? (o->htid & 0xFF000) | U32_HTID(h) : h & 0xFFFFF000u;
			}
		} else if (!strcmp(s, "sample")) {
			struct u32_sel *s2 = calloc(1, sizeof(*s2));
			unsigned long d = 0x100;
			uint32_t hash;
			int fshift;

			if (!s2)
				return errmsg(err, errlen, -ENOMEM, "%s: out of memory", req->where);
			if ((ret = next_arg(&w)) || (ret = parse_selector(&w, s2, o))) {
				free(s2);
				return word_err(req, &w, ret, "sample", err, errlen);
			}
			if (s2->nkeys != 1) {
				free(s2);
				return errmsg(err, errlen, -EINVAL,
					      "%s: u32: \"sample\" must contain exactly ONE key", req->where);
			}
			if (cur(&w) && !strcmp(cur(&w), "divisor")) {
				if ((ret = next_arg(&w)) || get_ulong(&d, cur(&w), 0, 0xFFFFFFFFul) || d == 0 ||
				    d > 0x100 || ((d - 1) & d) || (ret = next_arg(&w))) {
					free(s2);
					return ret == INCOMPLETE ? word_err(req, &w, ret, "sample", err, errlen)
								 : errmsg(err, errlen, -EINVAL,
									  "%s: u32: Illegal sample \"divisor\"",
									  req->where);
				}
			}
			fshift = s2->keys[0].mask ? __builtin_ctz(s2->keys[0].mask) : 0;
			hash = (s2->keys[0].val & s2->keys[0].mask) >> fshift;
			o->htid = (uint32_t)((hash % d) << 12) | U32_HTID(o->htid);
			free(s2);
			sample_ok = 1;
			continue;
		} else if (!strcmp(s, "skip_hw")) {
			o->flags |= FLAG_SKIP_HW;
		} else if (!strcmp(s, "skip_sw") || !strcmp(s, "indev") || tc_matches(s, "action") ||
			   tc_matches(s, "police")) {
			return errmsg(err, errlen, -EOPNOTSUPP,
				      "%s: u32: \"%s\" is not modelled by tcsim (u32 gives a classid, "
				      "no actions, policers, input devices or hardware offload)",
				      req->where, s);
		} else {
			return errmsg(err, errlen, -EINVAL, "%s: u32: What is \"%s\"? %s", req->where, s,
				      usage);
		}
		w.i++;
	}
	if (o->order) {
		if (U32_NODE(*handle) && o->order != U32_NODE(*handle))
			return errmsg(err, errlen, -EINVAL,
				      "%s: u32: \"order\" contradicts \"handle\" (order %u, handle node %x)",
				      req->where, o->order, U32_NODE(*handle));
		*handle |= o->order;
	}
	return 0;
}

/* ---- the kernel's side of a request (u32_change, u32_get, u32_delete) ---- */

/* u32_get: a table (*is_ht) or a node by its handle, fff: meaning the root. */
static void *u32_get(const struct u32_head *head, uint32_t handle, int *is_ht)
{
	struct u32_hnode *ht = U32_HTID(handle) == U32_ROOT ? head->root
							      : lookup_ht(head->c, U32_HTID(handle));

	*is_ht = 0;
	if (!ht)
		return NULL;
	if (!U32_KEY(handle)) {
		*is_ht = 1;
		return ht;
	}
	return lookup_key(ht, handle);
}

static int kfail(char *err, size_t errlen, const struct tcf_request *req, int code,
		 const char *why)
{
	return errmsg(err, errlen, code, "%s: RTNETLINK answers: %s (u32: %s)", req->where,
		      strerror(-code), why);
}

/* u32_set_parms: the link, checked and counted. */
static int set_link(struct u32_head *head, struct u32_knode *n, const struct u32_opts *o,
		    const struct tcf_request *req, char *err, size_t errlen)
{
	struct u32_hnode *down = NULL;

	if (!o->has_link)
		return 0;
	if (U32_KEY(o->link))
		return kfail(err, errlen, req, -EINVAL, "Link handle must be a hash table");
	if (o->link) {
		down = lookup_ht(head->c, o->link);
		if (!down)
			return kfail(err, errlen, req, -EINVAL, "Link hash table not found");
		if (down->is_root)
			return kfail(err, errlen, req, -EINVAL, "Not linking to root node");
		down->refcnt++;
	}
	if (n->ht_down)
		n->ht_down->refcnt--;
	n->ht_down = down;
	return 0;
}

/* A change of an existing node keeps its selector and mark: only the
 * classid and the link are taken (u32_init_knode copies the old node). */
static int change_knode(struct u32_head *head, struct u32_knode *n, const struct u32_opts *o,
			const struct tcf_request *req, char *err, size_t errlen)
{
	int ret;

	if ((n->flags ^ o->flags) & ~FLAG_NOT_IN_HW)
		return kfail(err, errlen, req, -EINVAL, "Key node flags do not match passed flags");
	if ((ret = set_link(head, n, o, req, err, errlen)))
		return ret;
	if (o->has_classid)
		n->classid = o->classid;
	return 0;
}

static int new_hnode(struct u32_head *head, struct tcf_proto *tp, uint32_t handle,
		     const struct u32_opts *o, const struct tcf_request *req, char *err,
		     size_t errlen)
{
	struct u32_common *c = head->c;
	struct u32_hnode *ht;

	if (U32_KEY(handle))
		return kfail(err, errlen, req, -EINVAL, "Divisor can only be used on a hash table");
	ht = hnode_new(o->divisor - 1);
	if (!ht)
		return errmsg(err, errlen, -ENOMEM, "%s: out of memory", req->where);
	if (!handle) {
		handle = gen_new_htid(c);
		if (!handle) {
			free(ht);
			return kfail(err, errlen, req, -ENOMEM, "no hash table id left");
		}
	} else if (ids_has(&c->ids, handle) || ids_add(&c->ids, handle)) {
		free(ht);
		return kfail(err, errlen, req, -ENOSPC, "hash table handle in use");
	}
	ht->refcnt = 1;
	ht->divisor = o->divisor - 1;
	ht->handle = handle;
	ht->prio = tp->prio;
	ht->next = c->hlist;
	c->hlist = ht;
	return 0;
}

static int new_knode(struct u32_head *head, uint32_t handle, const struct u32_opts *o,
		     const struct tcf_request *req, char *err, size_t errlen)
{
	struct u32_hnode *ht = head->root;
	uint32_t htid = ht->handle;
	struct u32_knode *n, **ins;
	int ret;

	if (o->htid) {
		if (U32_HTID(o->htid) != U32_ROOT) {
			ht = lookup_ht(head->c, U32_HTID(o->htid));
			if (!ht)
				return kfail(err, errlen, req, -EINVAL, "Specified hash table not found");
			htid = o->htid;
		}
	}
	if (ht->divisor < U32_HASH(htid))
		return kfail(err, errlen, req, -EINVAL,
			     "Specified hash table buckets exceed configured value");
	if (handle) {
		if (U32_HTID(handle) && U32_HTID(handle ^ htid))
			return kfail(err, errlen, req, -EINVAL,
				     "Handle specified hash table address mismatch");
		if (!U32_NODE(handle)) {
			handle = gen_new_kid(ht, htid);
		} else {
			handle = htid | U32_NODE(handle);
			if (ids_has(&ht->kids, handle) || ids_add(&ht->kids, handle))
				return kfail(err, errlen, req, -ENOSPC, "node handle in use");
		}
	} else {
		handle = gen_new_kid(ht, htid);
	}
	if (!o->has_sel) {
		ids_del(&ht->kids, handle);
		return kfail(err, errlen, req, -EINVAL, "Selector not specified");
	}
	n = calloc(1, sizeof(*n));
	if (n && o->sel.nkeys)
		n->keys = malloc(o->sel.nkeys * sizeof(*n->keys));
	if (!n || (o->sel.nkeys && !n->keys)) {
		free(n);
		ids_del(&ht->kids, handle);
		return errmsg(err, errlen, -ENOMEM, "%s: out of memory", req->where);
	}
	n->sel = o->sel;
	if (o->sel.nkeys)
		memcpy(n->keys, o->sel.keys, o->sel.nkeys * sizeof(*n->keys));
	n->ht_up = ht;
	n->handle = handle;
	n->fshift = o->sel.hmask ? (uint8_t)__builtin_ctz(o->sel.hmask) : 0;
	n->flags = o->flags;
	if (o->has_mark) {
		n->mark_val = o->mark_val;
		n->mark_mask = o->mark_mask;
	}
	ret = set_link(head, n, o, req, err, errlen);
	if (ret) {
		free(n->keys);
		free(n);
		ids_del(&ht->kids, handle);
		return ret;
	}
	if (o->has_classid)
		n->classid = o->classid;
	n->flags |= FLAG_NOT_IN_HW;
	if (req->where)
		n->where = strdup(req->where); /* NULL on no memory: lint then names no line */
	for (ins = &ht->ht[U32_HASH(handle)]; *ins; ins = &(*ins)->next)
		if (U32_NODE(handle) < U32_NODE((*ins)->handle))
			break;
	n->next = *ins;
	*ins = n;
	head->c->knodes++;
	return 0;
}

static int cls_u32_change(struct tcf_proto *tp, const struct tcf_request *req,
			  const struct tcf_env *env, char *err, size_t errlen)
{
	struct u32_head *head = tp->priv;
	struct u32_opts *o = calloc(1, sizeof(*o));
	uint32_t handle = req->handle;
	void *fh = NULL;
	int is_ht = 0, ret;

	if (!o)
		return errmsg(err, errlen, -ENOMEM, "%s: out of memory", req->where);
	ret = parse_opts(req, o, &handle, err, errlen);
	if (ret)
		goto out;
	if (!head) {
		if ((ret = u32_init(tp, env))) {
			errmsg(err, errlen, ret, "%s: out of memory", req->where);
			goto out;
		}
		head = tp->priv;
	}
	/* tc_new_tfilter: the filter the handle names, if any */
	fh = u32_get(head, handle, &is_ht);
	if (!fh && !req->create) {
		ret = kfail(err, errlen, req, -ENOENT,
			    "Need both RTM_NEWTFILTER and NLM_F_CREATE to create a new filter");
		goto out;
	}
	if (fh && req->excl) {
		ret = errmsg(err, errlen, -EEXIST,
			     "%s: RTNETLINK answers: File exists (Filter already exists: handle %x)",
			     req->where, handle);
		goto out;
	}
	if (!req->argc) {
		if (handle)
			ret = kfail(err, errlen, req, -EINVAL, "Filter handle requires options");
		goto out;
	}
	if (fh) {
		if (is_ht)
			ret = kfail(err, errlen, req, -EINVAL, "Key node id cannot be zero");
		else
			ret = change_knode(head, fh, o, req, err, errlen);
	} else if (o->has_divisor) {
		ret = new_hnode(head, tp, handle, o, req, err, errlen);
	} else {
		ret = new_knode(head, handle, o, req, err, errlen);
	}
out:
	free(o);
	return ret;
}

static void destroy_hnode(struct u32_common *c, struct u32_hnode *ht)
{
	ht->refcnt--;
	clear_hnode(c, ht);
	unlink_hnode(c, ht);
}

static int cls_u32_delete(struct tcf_proto *tp, uint32_t handle, char *err, size_t errlen)
{
	struct u32_head *head = tp->priv;
	int is_ht;
	void *fh = head ? u32_get(head, handle, &is_ht) : NULL;

	if (!fh)
		return errmsg(err, errlen, -ENOENT,
			      "RTNETLINK answers: No such file or directory (Specified filter handle not found: %x)",
			      handle);
	if (!is_ht) {
		struct u32_knode *n = fh, **pp;

		for (pp = &n->ht_up->ht[U32_HASH(n->handle)]; *pp != n; pp = &(*pp)->next)
			;
		*pp = n->next;
		head->c->knodes--;
		ids_del(&n->ht_up->kids, n->handle);
		knode_free(n);
	} else {
		struct u32_hnode *ht = fh;

		if (ht->is_root)
			return errmsg(err, errlen, -EINVAL,
				      "RTNETLINK answers: Invalid argument (u32: Not allowed to delete root node)");
		if (ht->refcnt != 1)
			return errmsg(err, errlen, -EBUSY,
				      "RTNETLINK answers: Device or resource busy (u32: Can not delete in-use filter %x:)",
				      U32_USERHTID(ht->handle));
		destroy_hnode(head->c, ht);
	}
	return head->c->refcnt == 1 && head->c->knodes == 0;
}

static void cls_u32_destroy(struct tcf_proto *tp)
{
	struct u32_head *head = tp->priv;
	struct u32_common *c;

	if (!head)
		return;
	c = head->c;
	if (--head->root->refcnt == 1)
		destroy_hnode(c, head->root);
	if (--c->refcnt == 0) {
		/* every node first: their links count references on the tables */
		for (struct u32_hnode *ht = c->hlist; ht; ht = ht->next)
			clear_hnode(c, ht);
		while (c->hlist)
			unlink_hnode(c, c->hlist);
		free(c->ids.v);
		if (c->slot)
			*c->slot = NULL;
		free(c);
	}
	free(head);
	tp->priv = NULL;
}

/* ---- classification (u32_classify) ---- */

/* skb_header_pointer: the bytes must lie within the packet (tcsim also
 * needs them captured). An offset before the frame is not refused: the
 * kernel reads the skb's headroom there, tcsim reads zeros (`match ether
 * dst` reads two such bytes under a mask that leaves them out). */
static int load(const struct bpf_skb *skb, int64_t off, unsigned int size, uint32_t *v)
{
	if (off + size > skb->len || off + size > skb->caplen)
		return -1;
	*v = 0;
	for (int64_t i = off; i < off + size; i++)
		*v = *v << 8 | (i < 0 ? 0 : skb->data[i]);
	return 0;
}

/* skb_network_offset of a frame a packet socket sent (tcpreplay): behind
 * the Ethernet header, and behind the VLAN tags a frame carries in its data
 * (packet_parse_headers -> vlan_get_protocol_and_depth, Linux >= 6.4: at
 * most three tags are walked, a cut tag leaves the header where it was). */
static uint32_t net_offset(const struct bpf_skb *skb)
{
	uint32_t depth = skb->net_off, type = skb->protocol, v;
	int budget = 8;

	if (depth != 14 || (type != 0x8100 && type != 0x88a8))
		return depth;
	do {
		if (budget-- == 0)
			return skb->net_off;
		if (load(skb, depth, 4, &v) || !--budget)
			return skb->net_off;
		type = v & 0xFFFF;
		depth += 4;
	} while (type == 0x8100 || type == 0x88a8);
	return depth;
}

static void print_handle(char *buf, size_t len, uint32_t h);

/* A traced walk's account of each node it tries: one tcf_trace record per
 * node, its detail saying which key decided and why. NULL on the fast
 * path, where none of it is built. */
struct u32_tell {
	const struct tcf_tracer *tr;
	struct tcf_trace *ft;
	uint32_t nh; /* the network header's offset: key positions are told from it */
	char why[320];
};

static void tell(struct u32_tell *t, const struct u32_knode *n, int match, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void tell(struct u32_tell *t, const struct u32_knode *n, int match, const char *fmt, ...)
{
	va_list ap;
	char h[32];
	int used;

	print_handle(h, sizeof(h), n->handle);
	used = snprintf(t->why, sizeof(t->why), "fh %s: ", h);
	va_start(ap, fmt);
	vsnprintf(t->why + used, sizeof(t->why) - (size_t)used, fmt, ap);
	va_end(ap);
	t->ft->has_handle = 1;
	t->ft->handle = n->handle;
	t->ft->ret = 0;
	t->ft->has_flowid = (n->sel.flags & U32_TERMINAL) != 0;
	t->ft->flowid = n->classid;
	t->ft->match = match;
	t->ft->classid = match ? n->classid : 0;
	t->ft->detail = t->why;
	t->tr->filter(t->tr->arg, t->ft);
	t->ft->detail = NULL;
}

static void tell_key(char *b, size_t len, const struct u32_key *k)
{
	snprintf(b, len, "%08x/%08x at %s%d", k->val, k->mask, k->offmask ? "nexthdr+" : "", k->off);
}

static const char *all_keys(const struct u32_knode *n)
{
	if (!n->sel.nkeys)
		return "it has no keys";
	return n->sel.nkeys == 1 ? "its key matched" : "all its keys matched";
}

static void tell_link(struct u32_tell *t, const struct u32_knode *n, const struct u32_hnode *ht,
		      unsigned int sel, uint32_t off, int32_t off2)
{
	tell(t, n, 0, "%s: on to table %x:, bucket %u; nexthdr at network header%+d", all_keys(n),
	     U32_USERHTID(ht->handle), sel, (int32_t)(off - t->nh) + off2);
}

static int u32_result(const struct u32_knode *n, struct tcf_result *res)
{
	res->classid = n->classid;
	res->handle = n->handle;
	res->ret = 0;
	return 0; /* no actions: TC_ACT_OK */
}

/* u32_classify: the walk of the kernel, node by node down the links (at
 * most U32_MAXDEPTH deep), back up to a linking node that is terminal
 * when nothing below matched. t: NULL, or the traced walk's account. */
static int u32_walk(const struct tcf_proto *tp, const struct bpf_skb *skb,
		    struct tcf_result *res, struct u32_tell *t)
{
	const struct u32_head *head = tp->priv;
	struct {
		struct u32_knode *n;
		uint32_t off;
	} stack[U32_MAXDEPTH];
	const struct u32_hnode *ht;
	struct u32_knode *n;
	uint32_t off = net_offset(skb), v;
	int32_t off2 = 0;
	unsigned int sel = 0;
	int depth = 0;
	char kb[64];

	if (!head)
		return -1;
	if (t)
		t->nh = off;
	ht = head->root;
next_ht:
	n = ht->ht[sel];
next_knode:
	while (n) {
		const struct u32_key *k = n->keys;
		int i;

		if ((skb->mark & n->mark_mask) != n->mark_val) {
			if (t)
				tell(t, n, 0, "mark 0x%x & 0x%x is not 0x%x: no match", skb->mark,
				     n->mark_mask, n->mark_val);
			n = n->next;
			continue;
		}
		n->mark_success++;
		for (i = 0; i < n->sel.nkeys; i++, k++) {
			int32_t toff = (int32_t)(off + (uint32_t)k->off + (uint32_t)(off2 & k->offmask));

			if (load(skb, toff, 4, &v)) {
				/* the kernel's "goto out": no later node either */
				if (t) {
					tell_key(kb, sizeof(kb), k);
					tell(t, n, 0,
					     "key %d of %d (%s) reads 4 bytes at network header%+d, beyond the "
					     "packet's %u bytes (%u captured): u32 stops, no later node of this "
					     "filter runs",
					     i + 1, n->sel.nkeys, kb, toff - (int32_t)t->nh, skb->len,
					     skb->caplen);
				}
				return -1;
			}
			if ((v ^ k->val) & k->mask) {
				if (t) {
					tell_key(kb, sizeof(kb), k);
					tell(t, n, 0,
					     "key %d of %d (%s) read %08x at network header%+d: no match", i + 1,
					     n->sel.nkeys, kb, v, toff - (int32_t)t->nh);
				}
				break;
			}
		}
		if (i < n->sel.nkeys) {
			n = n->next;
			continue;
		}
		if (!n->ht_down) {
			if (n->sel.flags & U32_TERMINAL) {
				if (t)
					tell(t, n, 1, "%s: its flowid", all_keys(n));
				return u32_result(n, res);
			}
			if (t)
				tell(t, n, 0, "%s, but the node has no flowid: on to the next",
				     all_keys(n));
			n = n->next;
			goto next_knode;
		}
		if (depth >= U32_MAXDEPTH) {
			if (t)
				tell(t, n, 0, "a link more than %d tables deep: u32 gives up (dead loop)",
				     U32_MAXDEPTH);
			return -1;
		}
		stack[depth].n = n;
		stack[depth].off = off;
		depth++;
		ht = n->ht_down;
		sel = 0;
		if (ht->divisor) {
			int32_t hoff = (int32_t)(off + (uint32_t)(int32_t)n->sel.hoff);

			if (load(skb, hoff, 4, &v)) {
				if (t)
					tell(t, n, 0,
					     "keys matched, but the hash key at network header%+d is beyond the "
					     "packet: u32 stops",
					     hoff - (int32_t)t->nh);
				return -1;
			}
			sel = ht->divisor & ((v & n->sel.hmask) >> n->fshift);
		}
		if (!(n->sel.flags & (U32_VAROFFSET | U32_OFFSET | U32_EAT))) {
			if (t)
				tell_link(t, n, ht, sel, off, off2);
			goto next_ht;
		}
		if (n->sel.flags & (U32_OFFSET | U32_VAROFFSET)) {
			off2 = n->sel.off + 3;
			if (n->sel.flags & U32_VAROFFSET) {
				if (load(skb, (int32_t)(off + (uint32_t)(int32_t)n->sel.offoff), 2, &v)) {
					if (t)
						tell(t, n, 0,
						     "keys matched, but the offset word is beyond the packet: u32 stops");
					return -1;
				}
				/* x86 takes a shift count modulo 32 */
				off2 += (int32_t)((v & n->sel.offmask) >> (n->sel.offshift & 31));
			}
			off2 &= ~3;
		}
		if (n->sel.flags & U32_EAT) {
			off += (uint32_t)off2;
			off2 = 0;
		}
		if (t)
			tell_link(t, n, ht, sel, off, off2);
		if (off < skb->len)
			goto next_ht;
		if (t)
			tell(t, n, 0, "the eaten offset %u is past the packet's end: the table is not read",
			     off - t->nh);
		break;
	}
	if (depth--) {
		n = stack[depth].n;
		ht = n->ht_up;
		off = stack[depth].off;
		/* check_terminal, told as what it is here */
		if (n->sel.flags & U32_TERMINAL) {
			if (t)
				tell(t, n, 1, "nothing behind its link matched: its own flowid");
			return u32_result(n, res);
		}
		if (t)
			tell(t, n, 0, "nothing behind its link matched, and it has no flowid: on to the next");
		n = n->next;
		goto next_knode;
	}
	return -1;
}

static int cls_u32_classify(const struct tcf_proto *tp, const struct bpf_skb *skb,
			    struct tcf_result *res)
{
	return u32_walk(tp, skb, res, NULL);
}

static int cls_u32_classify_traced(const struct tcf_proto *tp, const struct bpf_skb *skb,
				   struct tcf_result *res, const struct tcf_tracer *tr,
				   struct tcf_trace *ft)
{
	struct u32_tell t = {.tr = tr, .ft = ft};

	return u32_walk(tp, skb, res, &t);
}

/* ---- tc filter show (iproute2 6.1's u32_print_opt) ---- */

static void print_handle(char *buf, size_t len, uint32_t h)
{
	size_t n = 0;

	if (!h) {
		snprintf(buf, len, "none");
		return;
	}
	buf[0] = 0;
	if (U32_HTID(h))
		n += (size_t)snprintf(buf + n, len - n, "%x:", U32_USERHTID(h));
	if (U32_HASH(h))
		n += (size_t)snprintf(buf + n, len - n, "%x", U32_HASH(h));
	if (U32_NODE(h))
		snprintf(buf + n, len - n, ":%x", U32_NODE(h));
}

static void dump_knode(struct tcprint *p, const struct u32_knode *n)
{
	char b[64];

	print_handle(b, sizeof(b), n->handle);
	pr_string(p, PR_ANY, "fh", "fh %s ", b);
	pr_uint(p, PR_ANY, "order", "order %u ", U32_NODE(n->handle));
	pr_hex(p, PR_ANY, "key_ht", "key ht %x ", U32_USERHTID(n->handle));
	pr_hex(p, PR_ANY, "bkt", "bkt %x ", U32_HASH(n->handle));
	/* 6.1 looks at the selector's terminal flag before reading the
	 * selector: a classid always gets its star */
	if (n->classid) {
		tc_print_classid(b, sizeof(b), n->classid);
		pr_string(p, PR_ANY, "flowid", "*flowid %s ", b);
	}
	if (n->ht_down) {
		print_handle(b, sizeof(b), n->ht_down->handle);
		pr_string(p, PR_ANY, "link", "link %s ", b);
	}
	if (n->flags & FLAG_SKIP_HW)
		pr_bool(p, PR_ANY, "skip_hw", "skip_hw ", 1);
	pr_bool(p, PR_ANY, "not_in_hw", "not_in_hw ", 1);
	if (n->mark_val || n->mark_mask) {
		pr_0xhex(p, PR_JSON, "fwmark_value", NULL, n->mark_val);
		pr_0xhex(p, PR_JSON, "fwmark_mask", NULL, n->mark_mask);
		pr_text(p, "\n  mark 0x%04x 0x%04x ", n->mark_val, n->mark_mask);
		pr_uint(p, PR_ANY, "fwmark_success", "(success %u)", (unsigned int)n->mark_success);
	}
	for (int i = 0; i < n->sel.nkeys; i++) {
		/* one "match" member per key, as 6.1 prints them (repeated) */
		pr_open_object(p, "match");
		pr_hex(p, PR_ANY, "value", "\n  match %08x", n->keys[i].val);
		pr_hex(p, PR_ANY, "mask", "/%08x ", n->keys[i].mask);
		pr_string(p, PR_ANY, "offmask", "at %s", n->keys[i].offmask ? "nexthdr+" : "");
		pr_int(p, PR_ANY, "off", "%d", n->keys[i].off);
		pr_close_object(p);
	}
	if (n->sel.flags & (U32_VAROFFSET | U32_OFFSET)) {
		pr_text(p, "\n    offset ");
		if (n->sel.flags & U32_VAROFFSET) {
			pr_hex(p, PR_ANY, "offset_mask", "%04x", n->sel.offmask);
			pr_int(p, PR_ANY, "offset_shift", ">>%d ", n->sel.offshift);
			pr_int(p, PR_ANY, "offset_off", "at %d ", n->sel.offoff);
		}
		if (n->sel.off)
			pr_int(p, PR_ANY, "plus", "plus %d ", n->sel.off);
	}
	if (n->sel.flags & U32_EAT)
		pr_bool(p, PR_ANY, "eat", " eat ", 1);
	if (n->sel.hmask) {
		pr_hex(p, PR_ANY, "hash_mask", "\n    hash mask %08x ", n->sel.hmask);
		pr_int(p, PR_ANY, "hash_off", "at %d ", n->sel.hoff);
	}
}

/* u32_walk: the tables made at this filter's pref, newest first, each
 * followed by its nodes bucket by bucket. */
static void cls_u32_dump(const struct tcf_proto *tp, struct tcf_dump *d)
{
	const struct u32_head *head = tp->priv;

	if (!head)
		return;
	for (const struct u32_hnode *ht = head->c->hlist; ht; ht = ht->next) {
		char b[64];

		if (ht->prio != tp->prio)
			continue;
		print_handle(b, sizeof(b), ht->handle);
		d->begin(d);
		pr_string(d->p, PR_ANY, "fh", "fh %s ", b);
		pr_int(d->p, PR_ANY, "ht_divisor", "ht divisor %d ", (int)(ht->divisor + 1));
		d->end(d);
		for (unsigned int h = 0; h <= ht->divisor; h++)
			for (const struct u32_knode *n = ht->ht[h]; n; n = n->next) {
				d->begin(d);
				dump_knode(d->p, n);
				d->end(d);
			}
	}
}

/* The filter's nodes in u32_walk's order (the tables left out: nothing
 * matches at a table). */
static int walk_at(const struct tcf_proto *tp, size_t i, uint32_t *handle)
{
	const struct u32_head *head = tp->priv;
	size_t k = 0;

	for (const struct u32_hnode *ht = head ? head->c->hlist : NULL; ht; ht = ht->next) {
		if (ht->prio != tp->prio)
			continue;
		for (unsigned int h = 0; h <= ht->divisor; h++)
			for (const struct u32_knode *n = ht->ht[h]; n; n = n->next)
				if (k++ == i) {
					*handle = n->handle;
					return 0;
				}
	}
	return -1;
}

static size_t cls_u32_count(const struct tcf_proto *tp)
{
	uint32_t h;
	size_t n = 0;

	while (!walk_at(tp, n, &h))
		n++;
	return n;
}

static int cls_u32_handle_at(const struct tcf_proto *tp, size_t i, uint32_t *handle)
{
	return walk_at(tp, i, handle);
}

/* The i-th element in u32_walk's order, tables included (cls.h). */
int cls_u32_elem_at(const struct tcf_proto *tp, size_t i, struct cls_u32_elem *info)
{
	const struct u32_head *head = tp->ops == &cls_u32_ops ? tp->priv : NULL;
	size_t k = 0;

	for (const struct u32_hnode *ht = head ? head->c->hlist : NULL; ht; ht = ht->next) {
		if (ht->prio != tp->prio)
			continue;
		if (k++ == i) {
			memset(info, 0, sizeof(*info));
			info->handle = ht->handle;
			info->is_table = 1;
			info->is_root = ht->is_root;
			info->divisor = ht->divisor + 1;
			return 0;
		}
		for (unsigned int h = 0; h <= ht->divisor; h++)
			for (const struct u32_knode *n = ht->ht[h]; n; n = n->next) {
				if (k++ != i)
					continue;
				memset(info, 0, sizeof(*info));
				info->handle = n->handle;
				info->classid = n->classid;
				info->link = n->ht_down ? n->ht_down->handle : 0;
				info->flags = n->flags & FLAG_SKIP_HW;
				info->mark_val = n->mark_val;
				info->mark_mask = n->mark_mask;
				info->sflags = n->sel.flags;
				info->offshift = n->sel.offshift;
				info->offmask = n->sel.offmask;
				info->off = n->sel.off;
				info->offoff = n->sel.offoff;
				info->hoff = n->sel.hoff;
				info->hmask = n->sel.hmask;
				info->nkeys = n->sel.nkeys;
				for (unsigned int j = 0; j < info->nkeys; j++)
					info->keys[j] = (struct cls_u32_elem_key){n->keys[j].val, n->keys[j].mask,
									      n->keys[j].off, n->keys[j].offmask};
				return 0;
			}
	}
	return -1;
}

const struct tcf_proto_ops cls_u32_ops = {
	.kind = "u32",
	.change = cls_u32_change,
	.delete = cls_u32_delete,
	.classify = cls_u32_classify,
	.destroy = cls_u32_destroy,
	.dump = cls_u32_dump,
	.count = cls_u32_count,
	.handle_at = cls_u32_handle_at,
	.classify_traced = cls_u32_classify_traced,
	.get_handle = cls_u32_get_handle,
};

/* For tcsim lint: the i-th node of tp's own tables (root first, then the
 * tables it made, each bucket in order). 0, or -1 past the end. */
int cls_u32_node_at(const struct tcf_proto *tp, size_t i, struct cls_u32_info *info)
{
	const struct u32_head *head = tp->priv;
	size_t k = 0;

	if (!head)
		return -1;
	for (int pass = 0; pass < 2; pass++)
		for (const struct u32_hnode *ht = head->c->hlist; ht; ht = ht->next) {
			if (ht->prio != tp->prio || (pass == 0) != (ht == head->root))
				continue;
			for (unsigned int b = 0; b <= ht->divisor; b++)
				for (const struct u32_knode *n = ht->ht[b]; n; n = n->next, k++) {
					if (k != i)
						continue;
					memset(info, 0, sizeof(*info));
					info->handle = n->handle;
					info->classid = n->classid;
					info->in_root = ht == head->root;
					info->links = n->ht_down != NULL;
					info->where = n->where;
					info->nkeys = n->sel.nkeys < CLS_U32_INFO_KEYS ? n->sel.nkeys
										 : CLS_U32_INFO_KEYS;
					for (uint32_t j = 0; j < info->nkeys; j++) {
						info->off[j] = n->keys[j].off;
						info->val[j] = n->keys[j].val;
						info->mask[j] = n->keys[j].mask;
						info->nexthdr[j] = n->keys[j].offmask != 0;
					}
					return 0;
				}
		}
	return -1;
}
