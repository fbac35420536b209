/* lint_htb.c - tcsim lint's checks of an htb tree (checks 8 to 12 of
 * lint.c's list): rates, ceils, the default class, quanta and filters
 * that name an inner class. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lint.h"
#include "lint_int.h"
#include "sim.h"
#include "tc.h"

/* One class of an htb, as lint reads it (walk and class_xstat). */
struct hclass {
	uint32_t classid, parent;
	const char *where;
	int64_t level, rate, ceil, quantum; /* rates in bit/s */
};

struct hwalk {
	const struct qdisc *q;
	struct hclass *c;
	int n, cap, oom;
};

static int64_t hxstat(const struct qdisc *q, const struct qdisc_class *c, const char *want)
{
	const char *name;
	int64_t v;

	for (int i = 0; !q->ops->class_xstat(q, c, i, &name, &v); i++)
		if (!strcmp(name, want))
			return v;
	return 0;
}

static void hwalk_add(void *arg, const struct qdisc_class *c)
{
	struct hwalk *w = arg;
	struct hclass *h;

	if (w->oom)
		return;
	if (w->n == w->cap) {
		int cap = w->cap ? w->cap * 2 : 16;
		struct hclass *nc = realloc(w->c, (size_t)cap * sizeof(*nc));

		if (!nc) {
			w->oom = 1;
			return;
		}
		w->c = nc;
		w->cap = cap;
	}
	h = &w->c[w->n++];
	*h = (struct hclass){.classid = c->classid,
			     .parent = c->parent,
			     .where = c->where && c->where[0] ? c->where : NULL,
			     .level = hxstat(w->q, c, "level"),
			     .rate = hxstat(w->q, c, "rate_bps"),
			     .ceil = hxstat(w->q, c, "ceil_bps"),
			     .quantum = hxstat(w->q, c, "quantum")};
}

static const struct hclass *hfind(const struct hwalk *w, uint32_t classid)
{
	for (int i = 0; i < w->n; i++)
		if (w->c[i].classid == classid)
			return &w->c[i];
	return NULL;
}

static const char *where_or(const char *where, const struct qdisc *q)
{
	return where ? where : q->where[0] ? q->where : NULL;
}

/* Check 12: a classid a filter of this chain can give that names an inner
 * class with no filters of its own: htb_classify goes on with that class's
 * filters, finds none, and the default class (or the direct queue) takes
 * the packet. (An inner class with filters is htb's own way of classifying
 * in steps: not warned.) */
static void check_htb_chain(struct lint *l, struct qdisc *q, const struct hwalk *w,
			    const struct tcf_chain *chain, const char *deflt)
{
	for (const struct tcf_proto *tp = chain->head; tp; tp = tp->next) {
		struct cls_bpf_info info;

		for (size_t i = 0; !cls_bpf_prog_at(tp, i, &info); i++) {
			struct lint_rets r;

			if (lint_prog_returns(info.insns, info.len, &r)) {
				l->oom = 1;
				return;
			}
			for (int k = 0; k < r.n; k++) {
				uint32_t id = r.v[k] == 0xffffffffu ? info.classid : r.v[k];
				const struct hclass *h;
				const struct tcf_chain *own;
				char name[32];

				if (!r.v[k] || (r.v[k] == 0xffffffffu && !info.has_classid))
					continue;
				h = hfind(w, id);
				if (!h || !h->level)
					continue;
				own = q->ops->class_chain(q, id);
				if (own && own->head)
					continue;
				lint_name_classid(name, sizeof(name), id);
				lint_warn(l, info.where,
					  "filter pref %u %s %s, an inner class of htb %x: with no "
					  "filters of "
					  "its own, so htb_classify ends there and %s takes the "
					  "packet; name "
					  "a leaf class instead",
					  tp->prio >> 16,
					  r.v[k] == 0xffffffffu ? "has flowid" : "returns classid",
					  name, q->handle >> 16, deflt);
				break;
			}
		}
	}
}

void lint_check_htb(struct lint *l, struct qdisc *q)
{
	struct hwalk w = {.q = q};
	char *buf, deflt[64], a[48], b[48], name[32];
	unsigned int defcls = 0;
	int r2q = 10;

	if (!q->ops->class_xstat || strcmp(q->ops->id, "htb") || !(buf = lint_qdisc_text(l, q, 0)))
		return;
	if (strstr(buf, "r2q "))
		sscanf(strstr(buf, "r2q "), "r2q %d default %x", &r2q, &defcls);
	free(buf);
	q->ops->walk(q, hwalk_add, &w);
	if (w.oom) {
		l->oom = 1;
		free(w.c);
		return;
	}
	/* Check 10: default naming no leaf (0 is "none": the direct queue, as meant) */
	snprintf(deflt, sizeof(deflt), "the direct queue (unshaped)");
	if (defcls) {
		uint32_t id = TC_H_MAKE(q->handle, defcls);
		const struct hclass *h = hfind(&w, id);

		lint_name_classid(name, sizeof(name), id);
		if (h && !h->level)
			snprintf(deflt, sizeof(deflt), "the default class %s", name);
		else
			lint_warn(
			    l, q->where[0] ? q->where : NULL,
			    "htb %x: has default %x, but %s is %s, so unclassified packets go to "
			    "the direct queue, unshaped; create leaf %s or name an existing leaf "
			    "in default",
			    q->handle >> 16, defcls, name, h ? "an inner class" : "no class", name);
	}
	for (int i = 0; i < w.n; i++) {
		const struct hclass *h = &w.c[i];
		int64_t sum = 0, qt = r2q > 0 ? h->rate / 8 / r2q : 0;
		int nchild = 0;

		lint_name_classid(name, sizeof(name), h->classid);
		/* Check 9: ceil below rate */
		if (h->ceil < h->rate) {
			lint_fmt_bits(a, sizeof(a), (uint64_t)h->rate);
			lint_fmt_bits(b, sizeof(b), (uint64_t)h->ceil);
			lint_warn(
			    l, where_or(h->where, q),
			    "class %s has ceil %s below its rate %s, so it can never send at its "
			    "rate; set ceil at least the rate (or leave it out: it defaults to the "
			    "rate)",
			    name, b, a);
		}
		/* Check 11: a leaf's quantum outside what the kernel finds sane */
		if (!h->level && (h->quantum < 1000 || h->quantum > 200000))
			lint_warn(
			    l, where_or(h->where, q),
			    "class %s has quantum %lld, %s than the kernel's %s, so DRR among "
			    "its siblings is %s; give it a quantum between 1000 and 200000",
			    name, (long long)h->quantum, h->quantum < 1000 ? "less" : "more",
			    h->quantum < 1000 ? "1000" : "200000",
			    h->quantum < 1000 ? "slow (many rounds per packet)"
					      : "coarse (long bursts per turn)");
		else if (!h->level && ((h->quantum == 1000 && qt < 1000) ||
				       (h->quantum == 200000 && qt > 200000)))
			lint_warn(
			    l, where_or(h->where, q),
			    "class %s's rate / r2q %d is %lld bytes, which the kernel %s to "
			    "its quantum %lld (\"quantum of class %X is %s\"); give the class an "
			    "explicit quantum or change the qdisc's r2q",
			    name, r2q, (long long)qt, h->quantum == 1000 ? "raised" : "lowered",
			    (long long)h->quantum, h->classid,
			    h->quantum == 1000 ? "small" : "big");
		/* Check 8: the children's guaranteed rates above the parent's */
		for (int j = 0; j < w.n; j++)
			if (w.c[j].parent == h->classid) {
				sum += w.c[j].rate;
				nchild++;
			}
		if (nchild && sum > h->rate) {
			lint_fmt_bits(a, sizeof(a), (uint64_t)sum);
			lint_fmt_bits(b, sizeof(b), (uint64_t)h->rate);
			lint_warn(
			    l, where_or(h->where, q),
			    "the rates of class %s's %d children sum to %s, above its own rate "
			    "%s, so it cannot guarantee them all; lower the children's rates or "
			    "raise %s's",
			    name, nchild, a, b, name);
		}
	}
	check_htb_chain(l, q, &w, &q->chain, deflt);
	for (int i = 0; i < w.n; i++) {
		const struct tcf_chain *c = q->ops->class_chain(q, w.c[i].classid);

		if (c)
			check_htb_chain(l, q, &w, c, deflt);
	}
	free(w.c);
}
