/* nl_scen_netem.c - `tcsim import`'s writing of netem lines (nl_netem.c
 * reads them from the kernel): every value the kernel keeps, as tc 6.1's
 * words, in the order limit, delay, loss, duplicate, reorder and gap,
 * corrupt, rate, slot, ecn.
 *
 * Delay and jitter: tc 6.1 sends whole microseconds as 64-ns ticks, so the
 * word is the microsecond count whose ticks are the kernel's. A delay that
 * is not a whole number of ticks (set in ns by a newer iproute2, 6.9+) or
 * that no microsecond count gives is written as near as it gets, and
 * listed. Correlations: tc sends TCA_NETEM_CORR (all three of them) only
 * with a delay or loss correlation, so when any is set the delay is
 * written with its correlation (0% if need be).
 *
 * Listed, because no dump says it or tc's words cannot: the delay
 * distribution table (jitter is written uniform), the slot distribution
 * table (written `normal`), a random loss beside a loss model, ecn without
 * a loss model, reorder without a delay or with gap 0, rate overheads
 * without a rate, a slot whose max is below its min. The kernel's prng
 * seed (6.3+) is a comment: tcsim's draws come from --seed (README). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "nl_import.h"
#include "nl_int.h"
#include "nl_scen.h"

/* A delay (the qopt's ticks, or the 64-bit ns when dumped) as tc's word;
 * 1 when the word gives the kernel's value back. */
static int delay_word(char *w, size_t n, uint32_t ticks, int has64, int64_t ns)
{
	int exact = 1;

	if (has64) {
		if (ns < 0 || ns % 64 || ns / 64 > UINT32_MAX)
			exact = 0;
		ticks = ns < 0 ? 0 : ns / 64 > UINT32_MAX ? UINT32_MAX : (uint32_t)(ns / 64);
	}
	return nl_netem_ticks_word(w, n, ticks) && exact;
}

static void pct(char *buf, size_t n, size_t *k, struct nl_writer *w, const char *desc,
		const char *what, uint32_t v)
{
	char word[48];

	if (!nl_netem_percent_word(word, sizeof(word), v) && w)
		nl_omit(w, "not reproduced: %s: %s %u/2^32 has no exact percent; written %s", desc,
			what, v, word);
	nl_addf(buf, n, k, " %s", word);
}

/* The words, and with w the omissions (each once: the words are built
 * twice, for the line and for the list). */
static void compose(char *buf, size_t n, size_t *k, const struct nli_qdisc *q, struct nl_writer *w,
		    const char *desc)
{
	const struct nli_netem *ne = &q->netem;
	char lw[32], jw[32], t1[32], t2[32];
	int lat_ok = delay_word(lw, sizeof(lw), ne->latency, ne->has_latency64, ne->latency64);
	int jit_ok = delay_word(jw, sizeof(jw), ne->jitter, ne->has_jitter64, ne->jitter64);
	int has_lat = ne->has_latency64 ? ne->latency64 != 0 : ne->latency != 0;
	int has_jit = ne->has_jitter64 ? ne->jitter64 != 0 : ne->jitter != 0;
	int corr = ne->delay_corr || ne->loss_corr || ne->dup_corr;
	int model = ne->loss_model != 0;
	uint64_t bps = ne->has_rate64 && ne->rate == ~0u ? ne->rate64 : ne->rate;

	nl_addf(buf, n, k, " limit %u", ne->limit);
	if (has_lat || has_jit || corr) {
		nl_addf(buf, n, k, " delay %s", lw);
		if (has_jit || corr)
			nl_addf(buf, n, k, " %s", jw);
		if (corr)
			pct(buf, n, k, w, desc, "delay correlation", ne->delay_corr);
		if (w && has_lat && !lat_ok)
			nl_omit(w,
				"not reproduced: %s: delay %lld ns is no delay tc 6.1 sets (whole "
				"microseconds in 64-ns ticks); written %s",
				desc,
				(long long)(ne->has_latency64 ? ne->latency64 : ne->latency * 64ll),
				lw);
		if (w && has_jit && !jit_ok)
			nl_omit(
			    w,
			    "not reproduced: %s: jitter %lld ns is no jitter tc 6.1 sets (whole "
			    "microseconds in 64-ns ticks); written %s",
			    desc, (long long)(ne->has_jitter64 ? ne->jitter64 : ne->jitter * 64ll),
			    jw);
		if (w && has_jit)
			nl_omit(w,
				"not reproduced: %s: the delay distribution (the kernel never "
				"dumps its "
				"table, so uniform, normal, pareto, paretonormal or a custom one "
				"cannot "
				"be told apart): written uniform; add `distribution NAME` if it "
				"had one",
				desc);
	}
	if (ne->loss_model == 1) {
		nl_addf(buf, n, k, " loss state");
		pct(buf, n, k, w, desc, "p13", ne->gi[0]);
		pct(buf, n, k, w, desc, "p31", ne->gi[1]);
		pct(buf, n, k, w, desc, "p32", ne->gi[2]);
		pct(buf, n, k, w, desc, "p23", ne->gi[4]);
		pct(buf, n, k, w, desc, "p14", ne->gi[3]);
	} else if (ne->loss_model == 2) {
		nl_addf(buf, n, k, " loss gemodel");
		pct(buf, n, k, w, desc, "p", ne->ge[0]);
		pct(buf, n, k, w, desc, "r", ne->ge[1]);
		pct(buf, n, k, w, desc, "1-h", UINT32_MAX - ne->ge[2]);
		pct(buf, n, k, w, desc, "1-k", ne->ge[3]);
	} else if (ne->loss || ne->loss_corr) {
		nl_addf(buf, n, k, " loss random");
		pct(buf, n, k, w, desc, "loss", ne->loss);
		if (ne->loss_corr)
			pct(buf, n, k, w, desc, "loss correlation", ne->loss_corr);
	}
	if (w && model && ne->loss)
		nl_omit(w,
			"not reproduced: %s: a random loss of %u/2^32 beside the %s loss model (tc "
			"says one or the other; the kernel uses the model): not written",
			desc, ne->loss, ne->loss_model == 1 ? "4-state" : "Gilbert-Elliott");
	if (ne->duplicate || ne->dup_corr) {
		nl_addf(buf, n, k, " duplicate");
		pct(buf, n, k, w, desc, "duplicate", ne->duplicate);
		if (ne->dup_corr)
			pct(buf, n, k, w, desc, "duplicate correlation", ne->dup_corr);
	}
	if (ne->reorder && (!has_lat || !ne->gap)) {
		if (w)
			nl_omit(
			    w,
			    "not reproduced: %s: reorder %u/2^32 %s (tc refuses reorder without a "
			    "delay and sets gap 1 with it; the kernel never reorders at gap 0): "
			    "not written",
			    desc, ne->reorder, !has_lat ? "without a delay" : "with gap 0");
	} else if (ne->reorder) {
		nl_addf(buf, n, k, " reorder");
		pct(buf, n, k, w, desc, "reorder", ne->reorder);
		if (ne->reorder_corr)
			pct(buf, n, k, w, desc, "reorder correlation", ne->reorder_corr);
		nl_addf(buf, n, k, " gap %u", ne->gap);
	}
	if (ne->corrupt) {
		nl_addf(buf, n, k, " corrupt");
		pct(buf, n, k, w, desc, "corrupt", ne->corrupt);
		if (ne->corrupt_corr)
			pct(buf, n, k, w, desc, "corrupt correlation", ne->corrupt_corr);
	}
	if (bps) {
		nl_addf(buf, n, k, " rate %s", nl_rate_word(t1, sizeof(t1), bps));
		if (ne->packet_overhead || ne->cell_size || ne->cell_overhead)
			nl_addf(buf, n, k, " %d", ne->packet_overhead);
		if (ne->cell_size || ne->cell_overhead)
			nl_addf(buf, n, k, " %u", ne->cell_size);
		if (ne->cell_overhead)
			nl_addf(buf, n, k, " %d", ne->cell_overhead);
	} else if (w && (ne->packet_overhead || ne->cell_size || ne->cell_overhead)) {
		nl_omit(w,
			"not reproduced: %s: rate overheads (%d, cell %u, %d) without a rate (they "
			"do nothing): not written",
			desc, ne->packet_overhead, ne->cell_size, ne->cell_overhead);
	}
	if (ne->has_slot) {
		if (ne->slot_dist_jitter > 0 && ne->slot_dist_delay >= 0) {
			nl_addf(buf, n, k, " slot distribution normal %s %s",
			     nl_ns_word(t1, sizeof(t1), ne->slot_dist_delay),
			     nl_ns_word(t2, sizeof(t2), ne->slot_dist_jitter));
			if (w)
				nl_omit(
				    w,
				    "not reproduced: %s: the slot distribution (the kernel never "
				    "dumps its table): written `normal`, set yours",
				    desc);
		} else if (ne->slot_dist_jitter > 0 || ne->slot_min < 0 ||
			   ne->slot_max < ne->slot_min) {
			if (w)
				nl_omit(
				    w,
				    "not reproduced: %s: slot %lld..%lld ns (delay %lld, jitter "
				    "%lld): no tc words give it; not written",
				    desc, (long long)ne->slot_min, (long long)ne->slot_max,
				    (long long)ne->slot_dist_delay,
				    (long long)ne->slot_dist_jitter);
			goto ecn;
		} else {
			nl_addf(buf, n, k, " slot %s %s", nl_ns_word(t1, sizeof(t1), ne->slot_min),
			     nl_ns_word(t2, sizeof(t2), ne->slot_max));
		}
		if (ne->slot_packets > 0)
			nl_addf(buf, n, k, " packets %d", ne->slot_packets);
		if (ne->slot_bytes > 0)
			nl_addf(buf, n, k, " bytes %d", ne->slot_bytes);
	}
ecn:
	if (ne->ecn && (model || ne->loss))
		nl_addf(buf, n, k, " ecn");
	else if (ne->ecn && w)
		nl_omit(w,
			"not reproduced: %s: ecn without a loss model (tc refuses it; it marks "
			"nothing then): not written",
			desc);
}

void nl_netem_words(char *buf, size_t n, size_t *k, const struct nli_qdisc *q)
{
	compose(buf, n, k, q, NULL, NULL);
}

void nl_netem_notes(struct nl_writer *w, const struct nli_qdisc *q, const char *desc)
{
	char scratch[512];
	size_t k = 0;
	char id[32];

	if (!nl_is_kind(q->kind, "netem"))
		return;
	compose(scratch, sizeof(scratch), &k, q, w, desc);
	if (q->netem.has_seed)
		fprintf(w->tc,
			"  # netem %s the kernel's prng seed 0x%llx; tcsim draws from the "
			"simulation's --seed instead (README: netem)\n",
			nl_qhandle(id, sizeof(id), q->handle), (unsigned long long)q->netem.seed);
}
