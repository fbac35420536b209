/* output.c - the outputs' common part (output.h): devices and bands, the
 * observer feeding pcaps and plots, and the opening and finishing of all.
 *
 * The pcap files are out_pcap.c's, the plots out_plot.c's and the backlog
 * samples out_sample.c's; this file hands them the packets and owns the
 * private directories that outputs_finish renames into place. File names
 * and formats: output.h (issue 6, parts 4 and 5).
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
 *    samples (and the same bounded-error buckets) as the report's. */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
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
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-' || c == '+' ||
			 c == '@';

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

static int outdir_open(struct outdir *od, const char *dir, const char *what, char *err,
		       size_t errlen)
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
			out_set_err(o, -EEXIST,
				    "%s/%s: two outputs want this name (device names too alike)",
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
		char *from = out_path_join(od->tmp, od->names[i]),
		     *to = out_path_join(od->dir, od->names[i]);
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

struct odev *out_odev_get(struct outputs *o, const struct dev *d)
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
int out_band_bl_reserve(struct band *b, size_t n)
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

struct band *out_band_get(struct outputs *o, struct odev *od, uint32_t key)
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
	if (o->want_plot && out_band_bl_reserve(b, o->nsamples)) {
		out_set_err(o, -ENOMEM, "out of memory");
		return NULL;
	}
	od->hint = i;
	return b;
}

static void band_free(struct band *b)
{
	for (int k = 0; k < 2; k++)
		pcapw_abort(&b->pw[k]);
	free(b->bl_bytes);
	free(b->bl_pkts);
	free(b->tp);
	hist_free(&b->qd);
	hist_free(&b->td);
}

/* The root has classes with leaf qdiscs (prio): bands are those classes. */
int out_root_has_leaves(const struct dev *d)
{
	return d->root->ops->leaf != NULL;
}

static uint32_t band_key(const struct dev *d, const struct pkt *p)
{
	return out_root_has_leaves(d) && TC_H_MIN(p->leaf_classid) ? p->leaf_classid : BAND_ROOT;
}

/* ---- the hook ---- */

static void on_done(void *arg, const struct dev *d, const struct pkt *p)
{
	struct outputs *o = arg;
	struct odev *od;
	struct band *b;
	int kind = p->drop == DROP_NONE ? P_SENT : P_DROPPED;

	if (o->err || !(od = out_odev_get(o, d)) || !(b = out_band_get(o, od, band_key(d, p))))
		return;
	b->pkts[kind]++;
	b->bytes[kind] += p->len;
	if (o->want_pcap)
		opcap_write(o, od, b, kind, p);
	if (o->want_plot && kind == P_SENT)
		oplot_sent(o, d, b, p);
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
	o->epoch_zero = opt->epoch_zero;
	o->fmt = opt->pcap_format;
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
	opcap_abort(o);
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

	if (!cl->leaf || !(b = out_band_get(c->o, c->od, cl->classid)))
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
		struct label_ctx c = {o, out_odev_get(o, d)};

		if (!c.od)
			return;
		if (out_root_has_leaves(d) && d->root->ops->walk) {
			d->root->ops->walk(d->root, label_class, &c);
		} else {
			struct band *b = out_band_get(o, c.od, BAND_ROOT);
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
		out_take_sample(o, o->s->now, 1); /* never stepped through outputs_run_until */
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
