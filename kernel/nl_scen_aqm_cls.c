/* nl_scen_aqm_cls.c - `tcsim import`'s writing of codel, fq_codel and
 * pfifo_head_drop lines, and of matchall and fw filters. nl_scenario.c
 * writes the rest of the scenario and calls these where such a qdisc or
 * filter comes; nl_aqm.c and nl_mall_fw.c read them from the kernel.
 *
 * codel and fq_codel: every value the kernel keeps spelled out (ecn and
 * noecn too: their defaults differ), times as the roundest word that gives
 * the kernel's ticks back (nl_codel_time_word: the dumped microseconds
 * themselves often do not). What tc's words cannot rebuild is listed: a
 * limit, target or interval of 0 (tc sends none, and the kernel keeps its
 * default), an fq_codel ce_threshold selector whose value is 0xff (tc's
 * "not given": it sends nothing). The selector is written after
 * ce_threshold; the kernel dumps it only with ce_threshold, and keeps it
 * (unseen) without.
 *
 * matchall: `handle H matchall [skip_hw] classid C` (skip_hw first: tc
 * steps over the word after it before looking at it again); classid 0 as
 * `classid none`, which tc sends as 0, as the kernel keeps it.
 *
 * fw: one line per element, `handle M[/MASK] fw classid C` (C `none` for an
 * element without one, which the kernel dumps without options). The
 * elements are written in the reverse of the dump's order, so that each of
 * the 256 buckets lists them newest first as the kernel's did, and tcsim's
 * `tc filter show` prints them in the kernel's order. An fw tcf_proto
 * without elements is the old method (the mark is the classid): written as
 * `fw` without options; the kernel's dump stops at it (fw_walk), so
 * whatever came after it in that qdisc's dump is missing: listed. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cls.h"
#include "nl_import.h"
#include "nl_int.h"
#include "nl_scen.h"

static void time_word(char *buf, size_t n, size_t *k, const char *name, uint32_t us)
{
	char t[32];

	nl_codel_time_word(t, sizeof(t), us);
	nl_addf(buf, n, k, " %s %s", name, t);
}

void nl_aqm_words(char *buf, size_t n, size_t *k, const struct nli_qdisc *q)
{
	const struct nli_codel *c = &q->codel;
	int fq = nl_is_kind(q->kind, "fq_codel");
	char sz[32];

	if (nl_is_kind(q->kind, "pfifo_head_drop")) {
		nl_addf(buf, n, k, " limit %u", q->limit);
		return;
	}
	if (c->limit)
		nl_addf(buf, n, k, " limit %u", c->limit);
	if (fq)
		nl_addf(buf, n, k, " flows %u quantum %u", c->flows, c->quantum);
	if (c->target)
		time_word(buf, n, k, "target", c->target);
	if (c->interval)
		time_word(buf, n, k, "interval", c->interval);
	if (fq && c->has_memory_limit)
		nl_addf(buf, n, k, " memory_limit %s", nl_size_word(sz, sizeof(sz), c->memory_limit));
	if (fq && c->has_drop_batch)
		nl_addf(buf, n, k, " drop_batch %u", c->drop_batch);
	if (c->has_ce_threshold)
		time_word(buf, n, k, "ce_threshold", c->ce_threshold);
	/* a value of 0xff tc takes for "not given": listed by nl_aqm_notes */
	if (fq && c->has_ce_threshold && (c->ce_selector || c->ce_mask) && c->ce_selector != 0xff)
		nl_addf(buf, n, k, " ce_threshold_selector 0x%x/0x%x", c->ce_selector, c->ce_mask);
	nl_addf(buf, n, k, " %s", c->ecn ? "ecn" : "noecn");
}

const char *nl_aqm_problem(const struct nli_qdisc *q)
{
	if (nl_is_kind(q->kind, "noqueue") && q->parent != TC_H_ROOT)
		return "noqueue under a class (tcsim refuses it there, as Linux 6.18 does)";
	return NULL;
}

void nl_aqm_notes(struct nl_writer *w, const struct nli_qdisc *q, const char *desc)
{
	const struct nli_codel *c = &q->codel;
	static const char *const names[] = {"limit", "target", "interval", "ce_threshold"};
	const uint32_t vals[] = {c->limit, c->target, c->interval, c->ce_threshold};
	char word[32];

	if (!nl_is_kind(q->kind, "codel") && !nl_is_kind(q->kind, "fq_codel"))
		return;
	if (nl_is_kind(q->kind, "fq_codel") && c->has_ce_threshold && c->ce_selector == 0xff)
		nl_omit(w,
			"not reproduced: %s: ce_threshold_selector 0xff/0x%x (tc takes a value of "
			"0xff as not given and sends nothing; not written)",
			desc, c->ce_mask);
	for (int i = 0; i < 3; i++)
		if (!vals[i])
			nl_omit(w,
				"not reproduced: %s: %s 0 (tc sends no zero %s, so the kernel keeps "
				"its default; not written)",
				desc, names[i], names[i]);
	for (int i = 1; i < 4; i++)
		if ((i < 3 || c->has_ce_threshold) && vals[i] &&
		    !nl_codel_time_word(word, sizeof(word), vals[i]))
			nl_omit(w,
				"not reproduced: %s: %s %uus is no value the kernel dumps (ticks of "
				"1024 ns); written %s",
				desc, names[i], vals[i], word);
}

/* ---- matchall and fw filters ---- */

static void proto_word(char *buf, size_t n, uint16_t p)
{
	uint16_t back;

	tc_print_protocol(buf, n, p);
	if (buf[0] == '[' || tc_get_protocol(&back, buf) || back != p)
		snprintf(buf, n, "0x%04x", p);
}

static void classid_word(char *buf, size_t n, uint32_t classid)
{
	if (classid)
		tc_print_classid(buf, n, classid);
	else
		snprintf(buf, n, "none");
}

void nl_write_mall_fw(struct nl_writer *w, const size_t *v, size_t s, size_t e, uint32_t parent,
		      const char *tp, const char *comment)
{
	const struct nl_import_model *m = w->m;
	const struct nli_filter *f0 = &m->filters[v[s]];
	int fw = nl_is_kind(f0->kind, "fw"), elements = 0, mask_known = 0;
	uint32_t mask = 0xffffffffu;
	char pid[32], pw[24], cid[32], hw[16];

	nl_classid(pid, sizeof(pid), parent);
	proto_word(pw, sizeof(pw), f0->protocol);
	for (size_t k = s; k < e; k++) {
		const struct nli_filter *f = &m->filters[v[k]];

		elements += f->handle || f->has_options;
		if (fw && f->has_options && !mask_known) {
			mask = f->mask;
			mask_known = 1;
		}
	}
	if (fw && !elements) {
		fprintf(w->tc, "  %sfilter add dev %s parent %s pref %u protocol %s fw\n",
			comment ? comment : "", w->devq, pid, f0->pref, pw);
		if (!comment)
			nl_omit(w,
				"not reproduced: %s: an fw filter without elements (the old method: "
				"the mark is the classid) ends the kernel's filter dump of %s "
				"(fw_walk stops there): filters after it, if any, are missing",
				tp, pid);
		return;
	}
	if (fw && !mask_known && !comment)
		nl_omit(w,
			"not reproduced: %s: no element has a classid, so the kernel dumped no mask; "
			"written with the default 0xffffffff",
			tp);
	for (size_t k = e; k-- > s;) {
		const struct nli_filter *f = &m->filters[v[k]];
		char handle[40];

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
		classid_word(cid, sizeof(cid), f->classid);
		if (fw && mask != 0xffffffffu)
			snprintf(handle, sizeof(handle), "0x%x/0x%x", f->handle, mask);
		else
			snprintf(handle, sizeof(handle), "0x%x", f->handle);
		hw[0] = 0;
		if (!fw && (f->gen_flags & CLS_FLAGS_SKIP_HW))
			snprintf(hw, sizeof(hw), " skip_hw");
		fprintf(w->tc,
			"  %sfilter add dev %s parent %s pref %u protocol %s handle %s %s%s classid "
			"%s\n",
			comment ? comment : "", w->devq, pid, f->pref, pw, handle, f->kind, hw, cid);
	}
}
