/* out_plot.c - the plots of the outputs (output.h): per device, CSV files
 * of backlog, throughput and delay CDF, a gnuplot script, and its renders.
 *
 * Throughput bins and delay histograms are fed by each sent packet; the
 * backlog samples come from out_sample.c. gnuplot runs when present. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "output_int.h"

#define CDF_STEPS 1000

/* ---- fed by sent packets ---- */

/* A packet's bytes over the bins its transmission [from, to) spans, in
 * proportion to the time spent in each (all in the bin of `to` when the
 * transmission takes no time), so a bin never holds more than the line
 * rate allows; the shares add up to exactly `bytes`. */
static int tp_add(struct outputs *o, struct band *b, uint64_t from, uint64_t to, uint64_t bytes)
{
	uint64_t last = (to > from ? to - 1 : to) / o->interval,
		 first = from < to ? from / o->interval : last;
	uint64_t given = 0;

	if (last >= b->ntp) {
		size_t n = b->ntp ? b->ntp : 256;
		uint64_t *v;

		if (!o->adaptive && last >= FIXED_MAX_POINTS) {
			out_set_err(o, -E2BIG,
				    "--plot-interval %" PRIu64 " ns: more than %u throughput bins; "
				    "give a longer interval",
				    o->interval, FIXED_MAX_POINTS);
			return -E2BIG;
		}
		while (n <= last)
			n *= 2;
		v = realloc(b->tp, n * sizeof(*v));
		if (!v) {
			out_set_err(o, -ENOMEM, "out of memory");
			return -ENOMEM;
		}
		memset(v + b->ntp, 0, (n - b->ntp) * sizeof(*v));
		b->tp = v;
		b->ntp = n;
	}
	for (uint64_t k = first; k <= last; k++) {
		uint64_t end = k == last ? to : (k + 1) * o->interval;
		/* the share of [from, end): cumulative, so rounding loses nothing */
		uint64_t upto =
		    k == last ? bytes
			      : (uint64_t)((unsigned __int128)bytes * (end - from) / (to - from));

		b->tp[k] += upto - given;
		given = upto;
	}
	return 0;
}

void oplot_sent(struct outputs *o, const struct dev *d, struct band *b, const struct pkt *p)
{
	/* on_done runs when the transmission ends: now */
	if (tp_add(o, b, p->t_dequeue, d->sim->now, p->len))
		return;
	if (hist_add(&b->qd, p->t_dequeue - p->t_arrive) ||
	    hist_add(&b->td, p->t_depart - p->t_arrive))
		out_set_err(o, -ENOMEM, "out of memory");
}

/* ---- files ---- */

static FILE *plot_file(struct outputs *o, const struct odev *od, const char *suffix)
{
	char name[128];
	char *path;
	FILE *f;

	snprintf(name, sizeof(name), "%s%s", od->fname, suffix);
	if (!(path = outdir_add(o, &o->plot, name)))
		return NULL;
	f = fopen(path, "w");
	if (!f)
		out_set_err(o, -errno, "%s/%s: cannot write: %s", o->plot.dir, name,
			    strerror(errno));
	free(path);
	return f;
}

static void plot_close(struct outputs *o, FILE *f)
{
	int bad = fflush(f) || ferror(f);

	bad |= fclose(f) != 0;
	if (bad)
		out_set_err(o, errno ? -errno : -EIO, "%s: cannot write: %s", o->plot.dir,
			    strerror(errno ? errno : EIO));
}

static void put_seconds(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u, ns % 1000000000u);
}

static void write_backlog_csv(struct outputs *o, const struct odev *od)
{
	FILE *f = plot_file(o, od, "-backlog.csv");
	int end = o->has_end && (!o->nsamples || o->end_t > o->times[o->nsamples - 1]);

	if (!f)
		return;
	fputs("time_s", f);
	for (int k = 0; k < od->nbands; k++)
		fprintf(f, ",%s bytes,%s packets", od->bands[k].name, od->bands[k].name);
	fputc('\n', f);
	for (size_t i = 0; i < o->nsamples + (size_t)end; i++) {
		put_seconds(f, i < o->nsamples ? o->times[i] : o->end_t);
		for (int k = 0; k < od->nbands; k++) {
			const struct band *b = &od->bands[k];

			if (i < o->nsamples)
				fprintf(f, ",%" PRIu64 ",%u", b->bl_bytes[i], b->bl_pkts[i]);
			else
				fprintf(f, ",%" PRIu64 ",%u", b->end_bytes, b->end_pkts);
		}
		fputc('\n', f);
	}
	plot_close(o, f);
}

static uint64_t bins(const struct outputs *o)
{
	return (o->has_end ? o->end_t : 0) / o->interval + 1;
}

static void write_throughput_csv(struct outputs *o, const struct odev *od)
{
	FILE *f = plot_file(o, od, "-throughput.csv");
	double per_s = 8e9 / (double)o->interval;
	uint64_t n = bins(o);

	if (!f)
		return;
	fputs("time_s", f);
	for (int k = 0; k < od->nbands; k++)
		fprintf(f, ",%s bytes,%s bit/s", od->bands[k].name, od->bands[k].name);
	fputs(",total bit/s\n", f);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t total = 0;

		put_seconds(f, i * o->interval);
		for (int k = 0; k < od->nbands; k++) {
			const struct band *b = &od->bands[k];
			uint64_t by = i < b->ntp ? b->tp[i] : 0;

			total += by;
			fprintf(f, ",%" PRIu64 ",%.3f", by, (double)by * per_s);
		}
		fprintf(f, ",%.3f\n", (double)total * per_s);
	}
	plot_close(o, f);
}

static void put_us(FILE *f, const struct hist *h, double q)
{
	uint64_t v;

	if (!h->n) {
		fputs(",NaN", f);
		return;
	}
	v = q >= 1 ? h->max : hist_quantile(h, q);
	fprintf(f, ",%" PRIu64 ".%03" PRIu64, v / 1000, v % 1000);
}

static void write_cdf_csv(struct outputs *o, const struct odev *od)
{
	FILE *f = plot_file(o, od, "-delay_cdf.csv");

	if (!f)
		return;
	fputs("quantile", f);
	for (int k = 0; k < od->nbands; k++)
		fprintf(f, ",%s queue_us,%s total_us", od->bands[k].name, od->bands[k].name);
	fputc('\n', f);
	for (int i = 0; i <= CDF_STEPS; i++) {
		double q = (double)i / CDF_STEPS;

		fprintf(f, "%.3f", q);
		for (int k = 0; k < od->nbands; k++) {
			put_us(f, &od->bands[k].qd, q);
			put_us(f, &od->bands[k].td, q);
		}
		fputc('\n', f);
	}
	plot_close(o, f);
}

/* A gnuplot string literal. */
static void gp_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void rate_str(char *buf, size_t n, uint64_t bps)
{
	if (!bps)
		snprintf(buf, n, "unlimited");
	else if (bps % 1000000000u == 0)
		snprintf(buf, n, "%" PRIu64 " Gbit/s", bps / 1000000000u);
	else if (bps % 1000000u == 0)
		snprintf(buf, n, "%" PRIu64 " Mbit/s", bps / 1000000u);
	else if (bps % 1000u == 0)
		snprintf(buf, n, "%" PRIu64 " kbit/s", bps / 1000u);
	else
		snprintf(buf, n, "%" PRIu64 " bit/s", bps);
}

static void interval_str(char *buf, size_t n, uint64_t ns)
{
	if (ns % 1000000000u == 0)
		snprintf(buf, n, "%" PRIu64 " s", ns / 1000000000u);
	else if (ns % 1000000u == 0)
		snprintf(buf, n, "%" PRIu64 " ms", ns / 1000000u);
	else if (ns % 1000u == 0)
		snprintf(buf, n, "%" PRIu64 " us", ns / 1000u);
	else
		snprintf(buf, n, "%" PRIu64 " ns", ns);
}

/* One plot element per band: `plot 'file' using X:Y ..., ...`. */
static void gp_series(FILE *f, const struct odev *od, const char *file, const char *style,
		      int first_col, int stride, const char *lead)
{
	fputs(lead, f);
	for (int k = 0; k < od->nbands; k++) {
		int col = first_col + stride * k;

		fprintf(f, "%s", k ? ", \\\n     " : "");
		gp_str(f, file);
		fprintf(f, " using 1:%d", col);
		fprintf(f, " %s lc %d title ", style, k + 1);
		gp_str(f, od->bands[k].label);
	}
}

static void write_gp(struct outputs *o, const struct odev *od)
{
	FILE *f = plot_file(o, od, ".gp");
	const struct dev *d = od->d;
	char rate[64], iv[32], base[64], csv[3][96];
	double end_s = o->has_end ? (double)o->end_t / 1e9 : 0;

	if (!f)
		return;
	rate_str(rate, sizeof(rate), d->rate_bps);
	interval_str(iv, sizeof(iv), o->interval);
	snprintf(base, sizeof(base), "%s", od->fname);
	snprintf(csv[0], sizeof(csv[0]), "%s-backlog.csv", base);
	snprintf(csv[1], sizeof(csv[1]), "%s-throughput.csv", base);
	snprintf(csv[2], sizeof(csv[2]), "%s-delay_cdf.csv", base);
	fprintf(f,
		"# %s.gp - tcsim's plots of device %s. In this directory: gnuplot %s.gp\n"
		"# renders %s-backlog, %s-throughput and %s-delay_cdf as PNG and SVG\n"
		"# (gnuplot -e 'formats=\"png\"' %s.gp for PNG only).\n"
		"if (!exists(\"formats\")) formats = \"png svg\"\n"
		"set datafile separator \",\"\n"
		"set datafile missing \"NaN\"\n"
		"set grid\n"
		"set key outside right top vertical noenhanced\n"
		"set style line 100 lc rgb \"black\" dt 2 lw 1\n"
		"do for [fmt in formats] {\n"
		"  if (fmt eq \"png\") {\n"
		"    if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
		"      set terminal pngcairo size 1280,800 noenhanced font \"sans,10\"\n"
		"    } else {\n"
		"      set terminal png size 1280,800 noenhanced\n"
		"    }\n"
		"  } else {\n"
		"    set terminal svg size 1280,800 dynamic noenhanced font \"sans,10\" background "
		"\"white\"\n"
		"  }\n",
		base, d->name, base, base, base, base, base);

	/* backlog: bytes above, packets below */
	fprintf(f, "  set output \"%s-backlog.\".fmt\n", base);
	fputs("  set multiplot layout 2,1 title ", f);
	{
		char t[256];

		snprintf(t, sizeof(t),
			 "%s: backlog per band (queued in each band's qdisc, sampled every %s)",
			 d->name, iv);
		gp_str(f, t);
	}
	fputs("\n  unset logscale\n  set autoscale\n  set yrange [0:*]\n", f);
	if (end_s > 0)
		fprintf(f, "  set xrange [0:%.9f]\n", end_s);
	fputs("  set xlabel \"time (s)\"\n  set ylabel \"backlog (bytes)\"\n  set format y "
	      "\"%.1s%c\"\n  ",
	      f);
	gp_series(f, od, csv[0], "with steps lw 2", 2, 2, "plot ");
	fputs("\n  set ylabel \"backlog (packets)\"\n  set format y \"%g\"\n  ", f);
	gp_series(f, od, csv[0], "with steps lw 2", 3, 2, "plot ");
	fputs("\n  unset multiplot\n", f);

	/* throughput */
	fprintf(f, "  set output \"%s-throughput.\".fmt\n  set title ", base);
	{
		char t[256];

		snprintf(t, sizeof(t),
			 "%s: throughput per band (bits transmitted per %s bin; line rate %s)",
			 d->name, iv, rate);
		gp_str(f, t);
	}
	fputs("\n  set ylabel \"throughput (bit/s)\"\n  set format y \"%.1s%c\"\n  ", f);
	fputs("plot ", f);
	gp_str(f, csv[1]);
	fprintf(
	    f,
	    " using 1:%d with fillsteps fs solid 0.25 noborder lc rgb \"gray60\" title \"total\"",
	    2 + 2 * od->nbands);
	gp_series(f, od, csv[1], "with steps lw 2", 3, 2, ", \\\n     ");
	if (d->rate_bps)
		fprintf(f, ", \\\n     %" PRIu64 " with lines ls 100 title \"line rate %s\"",
			d->rate_bps, rate);
	fputs("\n  unset title\n", f);

	/* delay CDFs: queue and total side by side, log x when there is a
	 * positive delay to show (zero delays sit left of the axis) */
	fprintf(f, "  set output \"%s-delay_cdf.\".fmt\n", base);
	fputs("  set multiplot layout 1,2 title ", f);
	{
		char t[256];

		snprintf(t, sizeof(t), "%s: delay CDF per band (sent packets)", d->name);
		gp_str(f, t);
	}
	fputs(
	    "\n  set autoscale\n  set yrange [0:1]\n  set format y \"%g\"\n  set format x \"%g\"\n"
	    "  set ylabel \"fraction of packets\"\n  set key inside right bottom\n",
	    f);
	for (int panel = 0; panel < 2; panel++) {
		int nwith = 0, npos = 0;

		for (int k = 0; k < od->nbands; k++) {
			const struct hist *h = panel ? &od->bands[k].td : &od->bands[k].qd;

			nwith += h->n > 0;
			npos += h->n > 0 && h->max > 0;
		}
		fprintf(f, "  set title \"%s\"\n",
			panel ? "total delay (queue + transmission + propagation)"
			      : "queue delay (arrival to dequeue)");
		if (npos) {
			fputs("  set logscale x\n  set xlabel \"delay (ms, log scale; zero delays "
			      "not shown)\"\n",
			      f);
		} else {
			fputs("  unset logscale x\n  set xlabel \"delay (ms)\"\n", f);
		}
		if (!nwith) {
			fputs("  unset key\n  set label 1 \"no packets sent\" at graph 0.5,0.5 "
			      "center\n"
			      "  set xrange [0:1]\n  plot 2 notitle\n  unset label 1\n  set key\n"
			      "  set autoscale x\n",
			      f);
			continue;
		}
		fputs("  plot ", f);
		for (int k = 0, first = 1; k < od->nbands; k++) {
			const struct hist *h = panel ? &od->bands[k].td : &od->bands[k].qd;
			int col = 2 + 2 * k + panel;

			if (!h->n || (npos && !h->max))
				continue;
			fprintf(f, "%s", first ? "" : ", \\\n       ");
			first = 0;
			gp_str(f, csv[2]);
			if (npos)
				fprintf(f, " using ($%d > 0 ? $%d / 1000 : 1/0):1", col, col);
			else
				fprintf(f, " using ($%d / 1000):1", col);
			fprintf(f, " with lines lw 2 lc %d title ", k + 1);
			gp_str(f, od->bands[k].label);
		}
		fputc('\n', f);
	}
	fputs("  unset title\n  unset multiplot\n  set key outside right top vertical\n"
	      "  set output\n}\n",
	      f);
	plot_close(o, f);
}

void oplot_write_files(struct outputs *o)
{
	for (int i = 0; i < o->ndevs && !o->err; i++) {
		write_backlog_csv(o, &o->devs[i]);
		write_throughput_csv(o, &o->devs[i]);
		write_cdf_csv(o, &o->devs[i]);
		write_gp(o, &o->devs[i]);
	}
}

/* ---- rendering ---- */

static const char *const render_kinds[] = {"backlog", "throughput", "delay_cdf"};
static const char *const render_exts[] = {"png", "svg"};

static char *find_gnuplot(void)
{
	const char *env = getenv("TCSIM_GNUPLOT"), *path = getenv("PATH");

	if (env)
		return *env ? strdup(env) : NULL; /* "" = do not render */
	if (!path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		char *p;

		if (asprintf(&p, "%.*s/gnuplot", (int)n, path) >= 0) {
			if (n && access(p, X_OK) == 0)
				return p;
			free(p);
		}
		path += n + (path[n] == ':');
	}
	return NULL;
}

/* Runs gnuplot on every script, in the private directory; then the PNG
 * and SVG files join the outputs. A missing or failing gnuplot is said on
 * stderr, not an error. */
void oplot_render(struct outputs *o)
{
	static int told;
	char *gp = find_gnuplot();
	char **argv = NULL;
	FILE *log = NULL;
	pid_t pid;
	int status = 0, ok = 0;

	if (!gp) {
		const char *env = getenv("TCSIM_GNUPLOT");

		if (env && !*env)
			return; /* rendering turned off */
		if (!told)
			fprintf(
			    stderr,
			    "tcsim: gnuplot is not installed: PNG and SVG plots skipped (the CSV "
			    "files and gnuplot scripts are written; Debian: apt-get install "
			    "gnuplot-nox)\n");
		told = 1;
		return;
	}
	argv = calloc((size_t)o->ndevs + 2, sizeof(*argv));
	log = tmpfile();
	if (!argv || !log) {
		out_set_err(o, -ENOMEM, "out of memory");
		goto out;
	}
	argv[0] = gp;
	for (int i = 0; i < o->ndevs; i++)
		if (asprintf(&argv[i + 1], "%s.gp", o->devs[i].fname) < 0) {
			argv[i + 1] = NULL;
			out_set_err(o, -ENOMEM, "out of memory");
			goto out;
		}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "tcsim: cannot run %s: %s; PNG and SVG plots skipped\n", gp,
			strerror(errno));
		goto out;
	}
	if (pid == 0) {
		int nul = open("/dev/null", O_RDONLY);

		if (nul >= 0)
			dup2(nul, 0);
		dup2(fileno(log), 1);
		dup2(fileno(log), 2);
		if (chdir(o->plot.tmp) == 0)
			execvp(gp, argv);
		dprintf(2, "cannot run %s: %s\n", gp, strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			status = -1;
			break;
		}
	ok = status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
	if (!ok) {
		char line[512];
		int n = 0;

		fprintf(stderr,
			"tcsim: gnuplot (%s) failed; PNG and SVG plots skipped (the scripts are in "
			"%s):\n",
			gp, o->plot.dir);
		rewind(log);
		while (n++ < 8 && fgets(line, sizeof(line), log))
			fprintf(stderr, "  %s", line);
	}
	/* the renders join the outputs, or are removed */
	for (int i = 0; i < o->ndevs && !o->err; i++)
		for (size_t k = 0; k < sizeof(render_kinds) / sizeof(*render_kinds); k++)
			for (size_t e = 0; e < 2; e++) {
				char name[128], *p;
				struct stat st;

				snprintf(name, sizeof(name), "%s-%s.%s", o->devs[i].fname,
					 render_kinds[k], render_exts[e]);
				p = out_path_join(o->plot.tmp, name);
				if (!p) {
					out_set_err(o, -ENOMEM, "out of memory");
					break;
				}
				if (stat(p, &st) == 0) {
					if (ok) {
						free(p);
						if (!(p = outdir_add(o, &o->plot, name)))
							break;
					} else {
						unlink(p);
					}
				}
				free(p);
			}
out:
	if (argv)
		for (int i = 1; i <= o->ndevs; i++)
			free(argv[i]);
	free(argv);
	free(gp);
	if (log)
		fclose(log);
}
