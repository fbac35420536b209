/* nl_scen_htb_tbf.c - `tcsim import`'s writing of htb and tbf: the words
 * of an htb or a tbf qdisc line, the lines of htb's classes (parents
 * first, siblings by classid), and the omissions for what tc's words
 * cannot say of them. nl_scenario.c writes the rest of the scenario and
 * calls these where an htb or a tbf comes in the tree; nl_htb_tbf.c reads
 * them from the kernel, nl_ticks.c turns their buckets into byte counts.
 *
 * Every value the kernel keeps is reproduced: burst and cburst as byte
 * counts whose ticks are the dumped ones, quantum when it is not the one
 * r2q gives, tc's defaults (ceil equal to rate, r2q 10, default 0, the
 * device's txqueuelen as direct_qlen) left out. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cls.h"
#include "nl_import.h"
#include "nl_int.h"
#include "nl_scen.h"

/* tc's words for what a rate's bytes go through (mpu, overhead, link
 * layer); the kernel's defaults are not written. */
static void rate_extras(char *buf, size_t n, size_t *k, const struct nli_rate *r)
{
	if (r->mpu)
		nl_addf(buf, n, k, " mpu %u", r->mpu);
	if (r->overhead)
		nl_addf(buf, n, k, " overhead %u", r->overhead);
	if (r->linklayer == NLI_LINKLAYER_ATM)
		nl_addf(buf, n, k, " linklayer atm");
}

/* The quantum htb_change_class gives a class when tc sends none: rate /
 * r2q (r2q at least 1), then at least 1000 and at most 200000. */
static uint32_t htb_default_quantum(uint64_t bps, uint32_t r2q)
{
	uint64_t q = bps / (r2q ? r2q : 1);

	if (q > INT32_MAX)
		q = INT32_MAX;
	return q < 1000 ? 1000 : q > 200000 ? 200000 : (uint32_t)q;
}

/* htb_init's direct_qlen when tc sends none: the device's txqueuelen. */
static int htb_default_qlen(const struct nl_writer *w, const struct nli_htb *h)
{
	return !h->has_direct_qlen || (w->m->has_link && h->direct_qlen == w->m->txqueuelen);
}

static const char *cdesc(char *buf, size_t n, const struct nli_class *c)
{
	char id[32], wh[48];

	snprintf(buf, n, "class %s %s %s", c->kind, nl_classid(id, sizeof(id), c->classid),
		 nl_where_str(wh, sizeof(wh), c->parent));
	return buf;
}

/* The tc command that creates htb class c, every value the kernel keeps
 * reproduced: burst and cburst as byte counts whose ticks are the dumped
 * ones (nl_ticks.c), quantum when it is not the one r2q gives. */
static void class_line(char *buf, size_t n, const struct nl_writer *w, const struct nli_class *c)
{
	const struct nli_htb_class *h = &c->htb;
	const struct nli_qdisc *q = nl_qdisc_by_handle(w->m, TC_H_MAJ(c->classid));
	char id[32], pid[32], word[40];
	uint32_t b;
	size_t k = 0;

	nl_addf(buf, n, &k, "class add dev %s parent %s classid %s htb rate %s", w->devq,
	     c->parent == TC_H_ROOT ? nl_qhandle(pid, sizeof(pid), TC_H_MAJ(c->classid))
				    : nl_classid(pid, sizeof(pid), c->parent),
	     nl_classid(id, sizeof(id), c->classid), nl_rate_word(word, sizeof(word), h->rate.bps));
	if (h->ceil.bps != h->rate.bps)
		nl_addf(buf, n, &k, " ceil %s", nl_rate_word(word, sizeof(word), h->ceil.bps));
	nl_htb_burst(h->rate.bps, h->buffer, &b);
	nl_addf(buf, n, &k, " burst %s", nl_size_word(word, sizeof(word), b));
	nl_htb_burst(h->ceil.bps, h->cbuffer, &b);
	nl_addf(buf, n, &k, " cburst %s", nl_size_word(word, sizeof(word), b));
	if (h->prio)
		nl_addf(buf, n, &k, " prio %u", h->prio);
	if (!q || h->quantum != htb_default_quantum(h->rate.bps, q->htb.r2q))
		nl_addf(buf, n, &k, " quantum %u", h->quantum);
	rate_extras(buf, n, &k, &h->rate);
}

/* What class_line could not say, each an omission: a bucket no byte count
 * rebuilds, a ceil with other size adjustments than the rate (tc sets
 * both from the same words), a link layer tc cannot name. */
static void class_notes(struct nl_writer *w, const struct nli_class *c)
{
	const struct nli_htb_class *h = &c->htb;
	const char *what[2] = {"burst", "cburst"};
	const struct nli_rate *rate[2] = {&h->rate, &h->ceil};
	const uint32_t ticks[2] = {h->buffer, h->cbuffer};
	char desc[96], word[40], bw[32];
	uint32_t b;

	cdesc(desc, sizeof(desc), c);
	for (int i = 0; i < 2; i++)
		if (!nl_htb_burst(rate[i]->bps, ticks[i], &b))
			nl_omit(
			    w,
			    "not reproduced: %s: %s: no byte count gives the kernel's %u ticks "
			    "at %s through tc; written %s (%u ticks)",
			    desc, what[i], ticks[i], nl_rate_word(word, sizeof(word), rate[i]->bps),
			    nl_size_word(bw, sizeof(bw), b), nl_tc_ticks_trunc(rate[i]->bps, b));
	if (h->ceil.mpu != h->rate.mpu || h->ceil.overhead != h->rate.overhead ||
	    h->ceil.linklayer != h->rate.linklayer)
		nl_omit(
		    w,
		    "not reproduced: %s: the ceil's mpu %u overhead %u linklayer %u differ from "
		    "the rate's (tc sets both from one set of words; the rate's are written)",
		    desc, h->ceil.mpu, h->ceil.overhead, h->ceil.linklayer);
	if (h->rate.linklayer != NLI_LINKLAYER_ETHERNET && h->rate.linklayer != NLI_LINKLAYER_ATM)
		nl_omit(w, "not reproduced: %s: link layer %u (tc names ethernet and atm only)",
			desc, h->rate.linklayer);
}

/* What nl_htb_tbf_words could not say for an htb or a tbf, each an omission. */
void nl_htb_tbf_notes(struct nl_writer *w, const struct nli_qdisc *q, const char *desc)
{
	char word[40], bw[32];
	uint32_t b;

	if (nl_is_kind(q->kind, "htb") && q->htb.offload)
		nl_omit(
		    w,
		    "not modelled: %s: offload (the classes live in the NIC); written without it",
		    desc);
	if (!nl_is_kind(q->kind, "tbf"))
		return;
	if (!nl_tbf_burst(&q->tbf.rate, q->tbf.buffer, &b))
		nl_omit(
		    w,
		    "not reproduced: %s: burst: no byte count gives the kernel's %u ticks at %s; "
		    "written %s (%u ticks)",
		    desc, q->tbf.buffer, nl_rate_word(word, sizeof(word), q->tbf.rate.bps),
		    nl_size_word(bw, sizeof(bw), b), nl_kernel_ticks(&q->tbf.rate, b));
	if (q->tbf.peak.bps && !nl_tbf_burst(&q->tbf.peak, q->tbf.mtu, &b))
		nl_omit(w,
			"not reproduced: %s: mtu: no byte count gives the kernel's %u ticks at %s; "
			"written %s (%u ticks)",
			desc, q->tbf.mtu, nl_rate_word(word, sizeof(word), q->tbf.peak.bps),
			nl_size_word(bw, sizeof(bw), b), nl_kernel_ticks(&q->tbf.peak, b));
	if (q->tbf.peak.bps &&
	    (q->tbf.peak.mpu != q->tbf.rate.mpu || q->tbf.peak.overhead != q->tbf.rate.overhead ||
	     q->tbf.peak.linklayer != q->tbf.rate.linklayer))
		nl_omit(
		    w,
		    "not reproduced: %s: the peakrate's mpu %u overhead %u linklayer %u differ "
		    "from the rate's (tc sets both from one set of words; the rate's are written)",
		    desc, q->tbf.peak.mpu, q->tbf.peak.overhead, q->tbf.peak.linklayer);
	if (q->tbf.rate.linklayer != NLI_LINKLAYER_ETHERNET &&
	    q->tbf.rate.linklayer != NLI_LINKLAYER_ATM)
		nl_omit(w, "not reproduced: %s: link layer %u (tc names ethernet and atm only)",
			desc, q->tbf.rate.linklayer);
}

/* The options of htb or tbf q on its `qdisc add` line (as the kernel
 * dumped them). */
void nl_htb_tbf_words(char *buf, size_t n, size_t *k, const struct nl_writer *w,
		      const struct nli_qdisc *q)
{
	if (nl_is_kind(q->kind, "htb")) {
		const struct nli_htb *h = &q->htb;

		/* tc's defaults (default 0, r2q 10, the txqueuelen) are not written */
		if (h->defcls)
			nl_addf(buf, n, k, " default %x", h->defcls); /* tc reads it in hex */
		if (h->r2q != 10)
			nl_addf(buf, n, k, " r2q %u", h->r2q);
		if (!htb_default_qlen(w, h))
			nl_addf(buf, n, k, " direct_qlen %u", h->direct_qlen);
	} else if (nl_is_kind(q->kind, "tbf")) {
		const struct nli_tbf *t = &q->tbf;
		char word[40];
		uint32_t b;

		/* limit in bytes, which the kernel keeps (latency is tc's arithmetic) */
		nl_tbf_burst(&t->rate, t->buffer, &b);
		nl_addf(buf, n, k, " rate %s", nl_rate_word(word, sizeof(word), t->rate.bps));
		nl_addf(buf, n, k, " burst %s", nl_size_word(word, sizeof(word), b));
		if (t->peak.bps) {
			nl_tbf_burst(&t->peak, t->mtu, &b);
			nl_addf(buf, n, k, " peakrate %s",
			     nl_rate_word(word, sizeof(word), t->peak.bps));
			nl_addf(buf, n, k, " mtu %s", nl_size_word(word, sizeof(word), b));
		}
		nl_addf(buf, n, k, " limit %s", nl_size_word(word, sizeof(word), t->limit));
		rate_extras(buf, n, k, &t->rate);
	}
}

/* The htb classes of q under `parent` (TC_H_ROOT: q's own), parents first
 * and siblings by classid: written with their notes, or listed with their
 * lines (under `blocked`, a qdisc that is not written), or commented
 * (--filters-only). */
static void write_classes(struct nl_writer *w, const struct nli_qdisc *q, uint32_t parent,
			  const char *blocked, int depth)
{
	const struct nl_import_model *m = w->m;
	char desc[96], line[512];

	if (depth > 64)
		return;
	for (;;) {
		const struct nli_class *c;
		size_t best = m->nclasses;

		for (size_t j = 0; j < m->nclasses; j++) {
			c = &m->classes[j];
			if (w->cdone[j] || !nl_is_kind(c->kind, "htb") ||
			    TC_H_MAJ(c->classid) != q->handle || !TC_H_MIN(c->classid) ||
			    (c->parent != parent &&
			     !(parent == TC_H_ROOT && c->parent == q->handle)))
				continue;
			if (best == m->nclasses || c->classid < m->classes[best].classid)
				best = j;
		}
		if (best == m->nclasses)
			return;
		w->cdone[best] = 1;
		c = &m->classes[best];
		cdesc(desc, sizeof(desc), c);
		if (w->o->filters_only) {
			fprintf(w->tc, "  # left out by --filters-only: %s\n", desc);
		} else if (blocked) {
			class_line(line, sizeof(line), w, c);
			nl_omit(w, "left out: %s (under %s, which is not modelled): %s", desc,
				blocked, line);
		} else {
			class_line(line, sizeof(line), w, c);
			fprintf(w->tc, "  %s\n", line);
			class_notes(w, c);
			w->corder[w->ncorder++] = best;
		}
		write_classes(w, q, c->classid, blocked, depth + 1);
	}
}

/* All of htb q's classes: the tree, then those whose parent class the dump
 * lacks (listed). */
void nl_write_htb_classes(struct nl_writer *w, const struct nli_qdisc *q, const char *blocked)
{
	const struct nl_import_model *m = w->m;
	char desc[96];

	write_classes(w, q, TC_H_ROOT, blocked, 0);
	for (size_t j = 0; j < m->nclasses; j++) {
		const struct nli_class *c = &m->classes[j];

		if (w->cdone[j] || !nl_is_kind(c->kind, "htb") || TC_H_MAJ(c->classid) != q->handle)
			continue;
		w->cdone[j] = 1;
		nl_omit(w, "left out: %s (its parent class is not in the dump)",
			cdesc(desc, sizeof(desc), c));
	}
}
