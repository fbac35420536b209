/* output.c - pcap files per band, and plots of backlog, throughput and
 * delay per device (issue 6, parts 4 and 5). The file names and formats
 * are in output.h.
 *
 * Where the data comes from:
 *  - sent and dropped packets: an observer's done hook (sim/observe.h). A packet's
 *    band is its leaf_classid (the class of the root it was queued in) when
 *    the root has leaf classes (prio), else the device's one "root" band.
 *    Rejected frames never become packets (they reach no qdisc and no
 *    hook, and a frame from a raw, loopback or cooked capture that could
 *    not be converted is not Ethernet), so no pcap holds them: the report
 *    counts them, by reason.
 *  - backlog: the simulation is stopped at every sample time and each
 *    band's leaf qdisc (the root itself for a root without leaf classes) is
 *    read: bytes and packets queued, not counting the packet on the wire.
 *  - throughput: the bytes (qdisc_pkt_len, as the report counts them) of
 *    each band's packets, spread over the bins their transmission spans
 *    (in proportion to the time spent in each: a bin never shows more than
 *    the line rate, and the bins add up to the report's bytes).
 *  - delay CDF: per band histograms of queue and total delay, the same
 *    samples (and the same bounded-error buckets) as the report's.
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
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "output_int.h"
#include "qdisc.h"

void out_set_err(struct outputs *o, int code, const char *fmt, ...)
{
	va_list ap;

	if (o->err)
		return;
	o->err = code;
	va_start(ap, fmt);
	vsnprintf(o->errmsg, sizeof(o->errmsg), fmt, ap);
	va_end(ap);
}

/* ---- names ---- */

static void safe_name(char *out, size_t n, const char *in)
{
	size_t i = 0;

	for (; *in && i + 1 < n; in++) {
		char c = *in;
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			 c == '.' || c == '_' || c == '-' || c == '+' || c == '@';

		out[i++] = ok ? c : '_';
	}
	out[i] = 0;
	if (out[0] == '.') /* never a hidden file */
		out[0] = '_';
}

static void band_names(struct band *b)
{
	if (b->key == BAND_ROOT) {
		snprintf(b->name, sizeof(b->name), "root");
	} else {
		tc_print_classid(b->name, sizeof(b->name), b->key);
	}
	snprintf(b->fname, sizeof(b->fname), "%s", b->name);
	for (char *c = b->fname; *c; c++)
		if (*c == ':')
			*c = '_';
	snprintf(b->label, sizeof(b->label), "%s", b->name);
}

/* ---- directories ---- */

char *out_path_join(const char *dir, const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", dir, name) < 0)
		return NULL;
	return p;
}

static int outdir_open(struct outdir *od, const char *dir, const char *what, char *err, size_t errlen)
{
	struct stat st;
	int e;

	od->dir = strdup(dir);
	if (!od->dir || asprintf(&od->tmp, "%s/.tcsim-%s-XXXXXX", dir, what) < 0) {
		od->tmp = NULL;
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (mkdir(dir, 0777) == 0) {
		od->created = 1;
	} else if (errno != EEXIST) {
		e = errno;
		snprintf(err, errlen, "%s: cannot create the directory: %s", dir, strerror(e));
		goto fail;
	}
	if (stat(dir, &st)) {
		e = errno;
		snprintf(err, errlen, "%s: %s", dir, strerror(e));
		goto fail;
	}
	if (!S_ISDIR(st.st_mode)) {
		e = ENOTDIR;
		snprintf(err, errlen, "%s: not a directory", dir);
		goto fail;
	}
	if (!mkdtemp(od->tmp)) {
		e = errno;
		snprintf(err, errlen, "%s: cannot write in the directory: %s", dir, strerror(e));
		goto fail;
	}
	return 0;
fail:
	free(od->tmp);
	od->tmp = NULL;
	return -e;
}

/* Records a file about to be created in the private directory; its path. */
char *outdir_add(struct outputs *o, struct outdir *od, const char *name)
{
	char **v;

	for (int i = 0; i < od->nnames; i++)
		if (!strcmp(od->names[i], name)) {
			out_set_err(o, -EEXIST, "%s/%s: two outputs want this name (device names too alike)",
				od->dir, name);
			return NULL;
		}
	v = realloc(od->names, (size_t)(od->nnames + 1) * sizeof(*v));
	if (!v || !(v[od->nnames] = strdup(name))) {
		if (v)
			od->names = v;
		out_set_err(o, -ENOMEM, "out of memory");
		return NULL;
	}
	od->names = v;
	od->nnames++;
	{
		char *p = out_path_join(od->tmp, name);

		if (!p)
			out_set_err(o, -ENOMEM, "out of memory");
		return p;
	}
}

/* Removes the private directory and everything in it, and whatever was
 * already renamed into place. */
static void outdir_remove(struct outdir *od)
{
	for (int i = 0; i < od->nplaced; i++) {
		unlink(od->placed[i]);
		free(od->placed[i]);
	}
	free(od->placed);
	od->placed = NULL;
	od->nplaced = 0;
	if (od->tmp) {
		DIR *dh = opendir(od->tmp);
		struct dirent *de;

		/* names we did not create too (a renderer's leftovers) */
		while (dh && (de = readdir(dh))) {
			char *p;

			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			p = out_path_join(od->tmp, de->d_name);
			if (p)
				unlink(p);
			free(p);
		}
		if (dh)
			closedir(dh);
		rmdir(od->tmp);
	}
	if (od->created && od->dir)
		rmdir(od->dir); /* only if empty */
}

static void outdir_free(struct outdir *od)
{
	for (int i = 0; i < od->nnames; i++)
		free(od->names[i]);
	free(od->names);
	for (int i = 0; i < od->nplaced; i++)
		free(od->placed[i]);
	free(od->placed);
	free(od->tmp);
	free(od->dir);
	memset(od, 0, sizeof(*od));
}

/* Renames every file into dir. */
static int outdir_place(struct outdir *od, char *err, size_t errlen)
{
	od->placed = calloc((size_t)od->nnames + 1, sizeof(*od->placed));
	if (!od->placed) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (int i = 0; i < od->nnames; i++) {
		char *from = out_path_join(od->tmp, od->names[i]), *to = out_path_join(od->dir, od->names[i]);
		int e;

		if (!from || !to) {
			free(from);
			free(to);
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		if (rename(from, to)) {
			e = errno;
			snprintf(err, errlen, "%s: cannot rename into place: %s", to, strerror(e));
			free(from);
			free(to);
			return -e;
		}
		free(from);
		od->placed[od->nplaced++] = to;
	}
	if (rmdir(od->tmp)) {
		int e = errno;

		snprintf(err, errlen, "%s: cannot remove: %s", od->tmp, strerror(e));
		return -e;
	}
	free(od->tmp);
	od->tmp = NULL;
	return 0;
}

/* ---- devices and bands ---- */

static struct odev *odev_get(struct outputs *o, const struct dev *d)
{
	for (int i = 0; i < o->ndevs; i++)
		if (o->devs[i].d == d)
			return &o->devs[i];
	if (o->ndevs == SIM_MAX_DEVS) {
		out_set_err(o, -ENOSPC, "too many devices");
		return NULL;
	}
	{
		struct odev *od = &o->devs[o->ndevs++];

		memset(od, 0, sizeof(*od));
		od->d = d;
		safe_name(od->fname, sizeof(od->fname), d->name);
		return od;
	}
}

/* Room for sample n in a band's backlog arrays (zeros up to it). */
static int band_bl_reserve(struct band *b, size_t n)
{
	if (n < b->bl_cap)
		return 0;
	{
		size_t cap = b->bl_cap ? b->bl_cap * 2 : 256;
		uint64_t *by;
		uint32_t *pk;

		while (cap <= n)
			cap *= 2;
		by = realloc(b->bl_bytes, cap * sizeof(*by));
		if (!by)
			return -ENOMEM;
		b->bl_bytes = by;
		pk = realloc(b->bl_pkts, cap * sizeof(*pk));
		if (!pk)
			return -ENOMEM;
		b->bl_pkts = pk;
		memset(by + b->bl_cap, 0, (cap - b->bl_cap) * sizeof(*by));
		memset(pk + b->bl_cap, 0, (cap - b->bl_cap) * sizeof(*pk));
		b->bl_cap = cap;
	}
	return 0;
}

static struct band *band_get(struct outputs *o, struct odev *od, uint32_t key)
{
	struct band *b;
	int i;

	if (od->hint < od->nbands && od->bands[od->hint].key == key)
		return &od->bands[od->hint];
	for (i = 0; i < od->nbands && od->bands[i].key < key; i++)
		;
	if (i < od->nbands && od->bands[i].key == key) {
		od->hint = i;
		return &od->bands[i];
	}
	b = realloc(od->bands, (size_t)(od->nbands + 1) * sizeof(*b));
	if (!b) {
		out_set_err(o, -ENOMEM, "out of memory");
		return NULL;
	}
	od->bands = b;
	memmove(&b[i + 1], &b[i], (size_t)(od->nbands - i) * sizeof(*b));
	od->nbands++;
	b = &od->bands[i];
	memset(b, 0, sizeof(*b));
	b->key = key;
	band_names(b);
	if (o->want_plot && band_bl_reserve(b, o->nsamples)) {
		out_set_err(o, -ENOMEM, "out of memory");
		return NULL;
	}
	od->hint = i;
	return b;
}

static void band_free(struct band *b)
{
	for (int k = 0; k < 2; k++)
		if (b->pcap[k])
			fclose(b->pcap[k]);
	free(b->bl_bytes);
	free(b->bl_pkts);
	free(b->tp);
	hist_free(&b->qd);
	hist_free(&b->td);
}

/* The root has classes with leaf qdiscs (prio): bands are those classes. */
static int root_has_leaves(const struct dev *d)
{
	return d->root->ops->leaf != NULL;
}

static uint32_t band_key(const struct dev *d, const struct pkt *p)
{
	return root_has_leaves(d) && TC_H_MIN(p->leaf_classid) ? p->leaf_classid : BAND_ROOT;
}

/* ---- the hook ---- */

static void on_done(void *arg, const struct dev *d, const struct pkt *p)
{
	struct outputs *o = arg;
	struct odev *od;
	struct band *b;
	int kind = p->drop == DROP_NONE ? P_SENT : P_DROPPED;

	if (o->err || !(od = odev_get(o, d)) || !(b = band_get(o, od, band_key(d, p))))
		return;
	b->pkts[kind]++;
	b->bytes[kind] += p->len;
	if (o->want_pcap)
		opcap_write(o, od, b, kind, p);
	if (o->want_plot && kind == P_SENT)
		oplot_sent(o, d, b, p);
}

/* ---- sampling ---- */

struct sample_ctx {
	struct outputs *o;
	struct odev *od;
	int end; /* the end sample, not sample o->nsamples */
};

static void sample_band(struct sample_ctx *c, uint32_t key, const struct qdisc *q)
{
	struct band *b = band_get(c->o, c->od, key);

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

static void take_sample(struct outputs *o, uint64_t t, int end)
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
		struct sample_ctx c = {o, odev_get(o, s->devs[i]), end};
		const struct dev *d = s->devs[i];

		if (!c.od)
			return;
		for (int k = 0; k < c.od->nbands; k++) {
			struct band *b = &c.od->bands[k];

			if (end) {
				b->end_bytes = 0;
				b->end_pkts = 0;
			} else if (band_bl_reserve(b, o->nsamples)) {
				out_set_err(o, -ENOMEM, "out of memory");
				return;
			} else {
				b->bl_bytes[o->nsamples] = 0;
				b->bl_pkts[o->nsamples] = 0;
			}
		}
		if (root_has_leaves(d) && d->root->ops->walk)
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
		take_sample(o, t, 0);
		o->next_sample = t + o->interval;
		if (o->adaptive && o->nsamples > ADAPT_MAX_POINTS)
			coarsen(o);
		else if (!o->adaptive && o->nsamples >= FIXED_MAX_POINTS)
			out_set_err(o, -E2BIG, "--plot-interval %" PRIu64 " ns: more than %u samples; "
				"give a longer interval", o->interval, FIXED_MAX_POINTS);
	}
	r = until == UINT64_MAX ? sim_run(s) : step(o, until);
	if (r)
		return r;
	take_sample(o, s->now, 1);
	return o->err;
}

const char *outputs_error(const struct outputs *o)
{
	if (o->s->failed)
		return o->s->err;
	return o->err ? o->errmsg : "";
}

/* ---- opening and closing ---- */

static void outputs_free(struct outputs *o)
{
	sim_unobserve(o->s, &o->obs);
	for (int i = 0; i < o->ndevs; i++) {
		for (int k = 0; k < o->devs[i].nbands; k++)
			band_free(&o->devs[i].bands[k]);
		free(o->devs[i].bands);
	}
	outdir_free(&o->pcap);
	outdir_free(&o->plot);
	free(o->times);
	free(o);
}

int outputs_open(struct outputs **out, struct sim *s, const struct output_opts *opt, char *err,
		 size_t errlen)
{
	struct outputs *o;
	int r;

	*out = NULL;
	o = calloc(1, sizeof(*o));
	if (!o) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	o->s = s;
	o->want_pcap = opt->pcap_dir != NULL;
	o->want_plot = opt->plot_dir != NULL;
	o->adaptive = opt->interval_ns == 0;
	o->interval = o->adaptive ? ADAPT_START_NS : opt->interval_ns;
	o->next_sample = (s->now + o->interval - 1) / o->interval * o->interval;
	if ((o->want_pcap && (r = outdir_open(&o->pcap, opt->pcap_dir, "pcap", err, errlen))) ||
	    (o->want_plot && (r = outdir_open(&o->plot, opt->plot_dir, "plot", err, errlen)))) {
		outdir_remove(&o->plot);
		outdir_remove(&o->pcap);
		outputs_free(o);
		return r;
	}
	o->obs = (struct sim_observer){.done = on_done, .arg = o};
	if ((r = sim_observe(s, &o->obs, err, errlen))) {
		outdir_remove(&o->plot);
		outdir_remove(&o->pcap);
		outputs_free(o);
		return r;
	}
	*out = o;
	return 0;
}

void outputs_abort(struct outputs *o)
{
	if (!o)
		return;
	for (int i = 0; i < o->ndevs; i++)
		for (int k = 0; k < o->devs[i].nbands; k++)
			for (int j = 0; j < 2; j++)
				if (o->devs[i].bands[k].pcap[j]) {
					fclose(o->devs[i].bands[k].pcap[j]);
					o->devs[i].bands[k].pcap[j] = NULL;
				}
	/* the plot directory may be inside a pcap directory outputs_open made */
	outdir_remove(&o->plot);
	outdir_remove(&o->pcap);
	outputs_free(o);
}

/* ---- finishing: bands ---- */

struct label_ctx {
	struct outputs *o;
	struct odev *od;
};

static void qdisc_desc(char *buf, size_t n, const struct qdisc *q)
{
	char h[32];

	if (q->invisible)
		snprintf(buf, n, "%s, default", q->ops->id);
	else {
		tc_print_classid(h, sizeof(h), q->handle);
		snprintf(buf, n, "%s %s", q->ops->id, h);
	}
}

static void label_class(void *arg, const struct qdisc_class *cl)
{
	struct label_ctx *c = arg;
	struct band *b;
	char q[64];

	if (!cl->leaf || !(b = band_get(c->o, c->od, cl->classid)))
		return;
	qdisc_desc(q, sizeof(q), cl->leaf);
	snprintf(b->label, sizeof(b->label), "%s (%s)", b->name, q);
}

/* Every band of the final tree has files, packets or not. */
static void cover_bands(struct outputs *o)
{
	struct sim *s = o->s;

	for (int i = 0; i < s->ndevs && !o->err; i++) {
		const struct dev *d = s->devs[i];
		struct label_ctx c = {o, odev_get(o, d)};

		if (!c.od)
			return;
		if (root_has_leaves(d) && d->root->ops->walk) {
			d->root->ops->walk(d->root, label_class, &c);
		} else {
			struct band *b = band_get(o, c.od, BAND_ROOT);
			char q[64];

			if (!b)
				return;
			qdisc_desc(q, sizeof(q), d->root);
			snprintf(b->label, sizeof(b->label), "root (%s)", q);
		}
	}
}

int outputs_finish(struct outputs *o, char *err, size_t errlen)
{
	int r;

	if (o->err)
		goto fail;
	cover_bands(o);
	if (o->want_pcap)
		opcap_close_pcaps(o);
	if (o->want_plot && !o->has_end)
		take_sample(o, o->s->now, 1); /* never stepped through outputs_run_until */
	if (o->want_plot)
		oplot_write_files(o);
	if (o->err)
		goto fail;
	if (o->want_plot && o->ndevs)
		oplot_render(o);
	if (o->err)
		goto fail;
	if ((o->want_pcap && (r = outdir_place(&o->pcap, err, errlen))) ||
	    (o->want_plot && (r = outdir_place(&o->plot, err, errlen)))) {
		outputs_abort(o);
		return r;
	}
	outputs_free(o);
	return 0;
fail:
	snprintf(err, errlen, "%s", o->errmsg);
	r = o->err;
	outputs_abort(o);
	return r;
}
