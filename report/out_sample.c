/* out_sample.c - the plots' backlog samples (output.h): outputs_run_until
 * steps the run from one sample time to the next and reads every band.
 *
 * Stopping at sample times must not change the run. sim_run_until(t) runs
 * every event up to t, so a sequence of steps runs the events of one long
 * step, in the same order; two things differ at the very end of an
 * open-ended run: sim_run stops as soon as no arrival or transmission is
 * left (a later sfq perturbation timer does not fire, and the clock stays
 * at the last event), while a step to t fires every timer up to t and
 * moves the clock to t. So when every pending arrival and transmission
 * falls before the next sample time (the run may end before it), the steps
 * go to just before the latest of them, then to it, and when that instant
 * is the run's last work, sim_run itself runs it (outputs_run_until).
 * This reads the simulation's state (sources' pending arrivals, the packet
 * on each wire, work_events) and the README's transmission-time formula;
 * tests/unit/test_output.c checks that reports, clock and generator come out
 * identical. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "output_int.h"

/* ---- sampling ---- */

struct sample_ctx {
	struct outputs *o;
	struct odev *od;
	int end; /* the end sample, not sample o->nsamples */
};

static void sample_band(struct sample_ctx *c, uint32_t key, const struct qdisc *q)
{
	struct band *b = out_band_get(c->o, c->od, key);

	if (!b)
		return;
	if (c->end) {
		b->end_bytes = q->s.backlog;
		b->end_pkts = q->s.qlen;
	} else {
		b->bl_bytes[c->o->nsamples] = q->s.backlog;
		b->bl_pkts[c->o->nsamples] = q->s.qlen;
	}
}

static void sample_class(void *arg, const struct qdisc_class *cl)
{
	if (cl->leaf)
		sample_band(arg, cl->classid, cl->leaf);
}

void out_take_sample(struct outputs *o, uint64_t t, int end)
{
	struct sim *s = o->s;

	if (!end && o->nsamples == o->cap_samples) {
		size_t cap = o->cap_samples ? o->cap_samples * 2 : 256;
		uint64_t *v = realloc(o->times, cap * sizeof(*v));

		if (!v) {
			out_set_err(o, -ENOMEM, "out of memory");
			return;
		}
		o->times = v;
		o->cap_samples = cap;
	}
	for (int i = 0; i < s->ndevs && !o->err; i++) {
		struct sample_ctx c = {o, out_odev_get(o, s->devs[i]), end};
		const struct dev *d = s->devs[i];

		if (!c.od)
			return;
		for (int k = 0; k < c.od->nbands; k++) {
			struct band *b = &c.od->bands[k];

			if (end) {
				b->end_bytes = 0;
				b->end_pkts = 0;
			} else if (out_band_bl_reserve(b, o->nsamples)) {
				out_set_err(o, -ENOMEM, "out of memory");
				return;
			} else {
				b->bl_bytes[o->nsamples] = 0;
				b->bl_pkts[o->nsamples] = 0;
			}
		}
		if (out_root_has_leaves(d) && d->root->ops->walk)
			d->root->ops->walk(d->root, sample_class, &c);
		else
			sample_band(&c, BAND_ROOT, d->root);
	}
	if (o->err)
		return;
	if (end) {
		o->has_end = 1;
		o->end_t = t;
	} else {
		o->times[o->nsamples++] = t;
	}
}

/* Adaptive sampling: past ADAPT_MAX_POINTS, the interval goes up the
 * 1-5-10 series; samples on the new grid stay, throughput bins merge. */
static void coarsen(struct outputs *o)
{
	uint64_t f = o->phase % 2 == 0 ? 5 : 2, ni = o->interval * f;
	size_t n = 0;

	for (size_t i = 0; i < o->nsamples; i++) {
		if (o->times[i] % ni)
			continue;
		for (int d = 0; d < o->ndevs; d++)
			for (int k = 0; k < o->devs[d].nbands; k++) {
				struct band *b = &o->devs[d].bands[k];

				b->bl_bytes[n] = b->bl_bytes[i];
				b->bl_pkts[n] = b->bl_pkts[i];
			}
		o->times[n++] = o->times[i];
	}
	o->nsamples = n;
	for (int d = 0; d < o->ndevs; d++)
		for (int k = 0; k < o->devs[d].nbands; k++) {
			struct band *b = &o->devs[d].bands[k];
			size_t m = (b->ntp + f - 1) / f;

			for (size_t j = 0; j < m; j++) {
				uint64_t sum = 0;

				for (size_t i = j * f; i < j * f + f && i < b->ntp; i++)
					sum += b->tp[i];
				b->tp[j] = sum;
			}
			if (b->tp)
				memset(b->tp + m, 0, (b->ntp - m) * sizeof(*b->tp));
		}
	o->interval = ni;
	o->phase++;
	o->next_sample = (o->next_sample + ni - 1) / ni * ni;
}

/* ---- stepping ---- */

/* When the packet on the wire has been sent: the README's timing model,
 * ceil((len + overhead + offloaded tag) * 8e9 / rate). */
static uint64_t tx_end(const struct dev *d)
{
	const struct pkt *p = d->on_wire;
	uint64_t wire = (uint64_t)p->len + d->overhead + (p->vlan_present ? 4u : 0u);
	unsigned __int128 bits = (unsigned __int128)wire * 8u * 1000000000u;

	if (!d->rate_bps)
		return p->t_dequeue;
	return p->t_dequeue + (uint64_t)((bits + d->rate_bps - 1) / d->rate_bps);
}

/* The latest pending arrival or transmission end: the run goes on at least
 * until then (so every timer before it fires in sim_run too). */
static uint64_t horizon(const struct sim *s)
{
	uint64_t h = 0;

	for (int i = 0; i < s->nsrcs; i++)
		if (s->srcs[i].pending && s->srcs[i].next.t_ns > h)
			h = s->srcs[i].next.t_ns;
	for (int i = 0; i < s->ndevs; i++)
		if (s->devs[i]->on_wire) {
			uint64_t t = tx_end(s->devs[i]);

			if (t > h)
				h = t;
		}
	return h;
}

/* Every event before h has run and every pending arrival or transmission
 * is at h: is that instant the run's last work? Then no packet arrives any
 * more and each busy device finishes with an empty queue (or sends the
 * rest at once, at rate 0). */
static int ends_at(const struct sim *s)
{
	for (int i = 0; i < s->nsrcs; i++)
		if (s->srcs[i].pending)
			return 0;
	for (int i = 0; i < s->ndevs; i++) {
		const struct dev *d = s->devs[i];

		if (d->on_wire && d->root->s.qlen && d->rate_bps)
			return 0;
	}
	return 1;
}

static int step(struct outputs *o, uint64_t t)
{
	int r = sim_run_until(o->s, t);

	if (!r && (!o->processed_valid || t > o->processed)) {
		o->processed = t;
		o->processed_valid = 1;
	}
	return r;
}

int outputs_run_until(struct outputs *o, uint64_t until)
{
	struct sim *s = o->s;
	int r;

	if (o->err)
		return o->err;
	if (!o->want_plot)
		return until == UINT64_MAX ? sim_run(s) : sim_run_until(s, until);
	if (o->next_sample < s->now) /* the simulation ran without us meanwhile */
		o->next_sample = (s->now + o->interval - 1) / o->interval * o->interval;
	for (;;) {
		uint64_t t = o->next_sample, h;

		if (s->failed)
			return s->failed;
		if (o->err)
			return o->err;
		if (t > until)
			break;
		if (until == UINT64_MAX) {
			if (!s->work_events)
				break;
			h = horizon(s);
			/* (a horizon already passed is stale: a device whose
			 * rate changed during a transmission; step to t) */
			if (h <= t && !(o->processed_valid && h <= o->processed)) {
				/* the run may end before t: go from one pending
				 * arrival or transmission to the next, and leave
				 * the last to sim_run */
				if (h >= 1 && (!o->processed_valid || h - 1 > o->processed)) {
					if ((r = step(o, h - 1)))
						return r;
					continue;
				}
				if (ends_at(s))
					break;
				if ((r = step(o, h)))
					return r;
				continue;
			}
		}
		if ((r = step(o, t)))
			return r;
		out_take_sample(o, t, 0);
		o->next_sample = t + o->interval;
		if (o->adaptive && o->nsamples > ADAPT_MAX_POINTS)
			coarsen(o);
		else if (!o->adaptive && o->nsamples >= FIXED_MAX_POINTS)
			out_set_err(o, -E2BIG,
				    "--plot-interval %" PRIu64 " ns: more than %u samples; "
				    "give a longer interval",
				    o->interval, FIXED_MAX_POINTS);
	}
	r = until == UINT64_MAX ? sim_run(s) : step(o, until);
	if (r)
		return r;
	out_take_sample(o, s->now, 1);
	return o->err;
}

const char *outputs_error(const struct outputs *o)
{
	if (o->s->failed)
		return o->s->err;
	return o->err ? o->errmsg : "";
}
