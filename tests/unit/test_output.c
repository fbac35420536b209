/* test_output.c - pcap files and plots of a run (report/output.c, out_*.c): the files
 * hold exactly what the report counts, with the right timestamps and
 * frames; backlog samples follow a schedule computed by hand; a run with
 * outputs gives byte-identical reports and ends in the same state as one
 * without; failures and aborts leave no file behind. */
#include <CUnit/Basic.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"
#include "report.h"
#include "sim.h"
#include "tc.h"
#include "test_src.h"
#include "unit.h"

/* ---- workloads ---- */

struct wl_pkt {
	uint64_t t;
	uint32_t len;	   /* frame length, without a VLAN tag */
	uint32_t priority; /* 0x1000N addresses band N of 1: */
	uint16_t sport;
	uint16_t vlan_tci; /* non-zero: an 802.1Q tag in the frame */
};

struct wl {
	const struct wl_pkt *v;
	int n, i;
};

/* The frame as the source gives it (and as the wire should show it). */
static uint32_t wl_frame(const struct wl_pkt *w, uint8_t *buf)
{
	uint32_t len = test_frame_udp(buf, w->len, 0x0a000001, 0x0a000002, w->sport, 5001, 0);

	if (w->vlan_tci) {
		memmove(buf + 16, buf + 12, len - 12);
		buf[12] = 0x81;
		buf[13] = 0x00;
		buf[14] = (uint8_t)(w->vlan_tci >> 8);
		buf[15] = (uint8_t)w->vlan_tci;
		len += 4;
	}
	return len;
}

static int wl_gen(void *arg, uint8_t *buf, struct src_packet *p)
{
	struct wl *w = arg;
	const struct wl_pkt *sp;

	if (w->i == w->n)
		return 0;
	sp = &w->v[w->i++];
	p->data = buf;
	p->caplen = p->len = wl_frame(sp, buf);
	p->t_ns = sp->t;
	p->priority = sp->priority;
	return 1;
}

/* A busy mix over three bands: bursts, all sizes, some tagged frames. */
#define RAND_N 1500
static struct wl_pkt rand_pkts[RAND_N];

static void make_random(void)
{
	uint64_t x = 88172645463325252ull, t = 0;

	for (int i = 0; i < RAND_N; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		t += (x % 7 == 0) ? (x >> 20) % 40000000 : (x >> 20) % 900000;
		rand_pkts[i] = (struct wl_pkt){
		    .t = t,
		    .len = 60 + (uint32_t)((x >> 8) % 1455),
		    .priority = x % 11 == 0 ? 0 : 0x10001 + (uint32_t)((x >> 40) % 3),
		    .sport = (uint16_t)(1000 + (x >> 30) % 13),
		    .vlan_tci = x % 5 == 0 ? (uint16_t)(0x2000 | ((x >> 16) % 4095 + 1)) : 0,
		};
	}
}

static const char *const prio_tc =
    "qdisc add dev eth0 root handle 1: prio bands 3 priomap 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2\n"
    "qdisc add dev eth0 parent 1:1 handle 10: sfq perturb 1 limit 20\n"
    "qdisc add dev eth0 parent 1:2 handle 20: pfifo limit 6\n"
    "qdisc add dev eth0 parent 1:3 handle 30: sfq perturb 2 limit 12 depth 4\n";

struct setup {
	const char *tc;
	uint64_t rate, delay;
	const struct wl_pkt *v;
	int n;
	int vlan_inline;
};

static struct dev *build(struct sim *s, const struct setup *c, struct wl *w)
{
	struct sim_config cfg;
	char err[512];

	sim_config_default(&cfg);
	cfg.rate_bps = c->rate;
	cfg.delay_ns = c->delay;
	CU_ASSERT_FATAL(sim_init(s, &cfg) == 0);
	if (tc_run_script(s, c->tc, "test", ".", stdout, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		CU_FAIL_FATAL("tc script");
	}
	*w = (struct wl){c->v, c->n, 0};
	CU_ASSERT_FATAL(sim_add_source(s, test_src_new(wl_gen, w), s->devs[0], c->vlan_inline, err,
				       sizeof(err)) == 0);
	return s->devs[0];
}

static char *report_of(const struct sim *s)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	report_json(s, f);
	report_text(s, f);
	fclose(f);
	return buf;
}

/* ---- what left the device, recorded by a hook set before the outputs ---- */

struct rec {
	uint64_t id, t;
	uint32_t leaf, caplen, len;
	int sent, vlan;
};

struct recorder {
	struct rec *v;
	size_t n, cap;
	int calls;
	struct sim_observer obs;
};

static void rec_done(void *arg, const struct dev *d, const struct pkt *p)
{
	struct recorder *r = arg;

	(void)d;
	r->calls++;
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 256;
		r->v = realloc(r->v, r->cap * sizeof(*r->v));
	}
	r->v[r->n++] = (struct rec){
	    .id = p->id,
	    .t = p->drop == DROP_NONE ? p->t_depart : p->t_arrive,
	    .leaf = p->leaf_classid,
	    .caplen = p->caplen,
	    .len = p->len,
	    .sent = p->drop == DROP_NONE,
	    .vlan = p->vlan_present,
	};
}

/* ---- files ---- */

static char *mktmp(void)
{
	char *d = strdup("/tmp/tcsim-test-output-XXXXXX");

	CU_ASSERT_FATAL(d && mkdtemp(d));
	return d;
}

static char *join(const char *a, const char *b)
{
	char *p;

	CU_ASSERT_FATAL(asprintf(&p, "%s/%s", a, b) >= 0);
	return p;
}

/* Files in dir (hidden ones too), or -1. */
static int count_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void rm_rf(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char *p;
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		p = join(dir, de->d_name);
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			rm_rf(p);
		else
			unlink(p);
		free(p);
	}
	closedir(d);
	rmdir(dir);
}

static int exists(const char *dir, const char *name)
{
	char *p = join(dir, name);
	struct stat st;
	int r = stat(p, &st) == 0;

	free(p);
	return r;
}

struct pcap_rd {
	size_t n;
	uint64_t *ts;
	uint32_t *caplen, *len;
	uint8_t **data;
};

static void pcap_rd_free(struct pcap_rd *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->data[i]);
	free(r->ts);
	free(r->caplen);
	free(r->len);
	free(r->data);
	memset(r, 0, sizeof(*r));
}

/* Reads a whole pcap with libpcap at nanosecond precision; 0 or -1. */
static int read_pcap(const char *dir, const char *name, struct pcap_rd *r)
{
	char eb[PCAP_ERRBUF_SIZE], *path = join(dir, name);
	pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, eb);
	struct pcap_pkthdr *h;
	const u_char *data;
	size_t cap = 0;

	memset(r, 0, sizeof(*r));
	free(path);
	if (!p) {
		fprintf(stderr, "%s: %s\n", name, eb);
		return -1;
	}
	CU_ASSERT(pcap_datalink(p) == DLT_EN10MB);
	while (pcap_next_ex(p, &h, &data) == 1) {
		if (r->n == cap) {
			cap = cap ? 2 * cap : 64;
			r->ts = realloc(r->ts, cap * sizeof(*r->ts));
			r->caplen = realloc(r->caplen, cap * sizeof(*r->caplen));
			r->len = realloc(r->len, cap * sizeof(*r->len));
			r->data = realloc(r->data, cap * sizeof(*r->data));
		}
		r->ts[r->n] = (uint64_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec;
		r->caplen[r->n] = h->caplen;
		r->len[r->n] = h->len;
		r->data[r->n] = malloc(h->caplen ? h->caplen : 1);
		memcpy(r->data[r->n], data, h->caplen);
		r->n++;
	}
	pcap_close(p);
	return 0;
}

/* A CSV file: header names and rows of numbers (NaN allowed). */
struct csv {
	int ncols;
	char **names;
	size_t nrows;
	double *v; /* nrows * ncols */
};

static void csv_free(struct csv *c)
{
	for (int i = 0; i < c->ncols; i++)
		free(c->names[i]);
	free(c->names);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

static int read_csv(const char *dir, const char *name, struct csv *c)
{
	char *path = join(dir, name), *line = NULL;
	FILE *f = fopen(path, "r");
	size_t lcap = 0, cap = 0;
	ssize_t len;

	memset(c, 0, sizeof(*c));
	free(path);
	if (!f)
		return -1;
	if ((len = getline(&line, &lcap, f)) <= 0) {
		fclose(f);
		free(line);
		return -1;
	}
	line[strcspn(line, "\n")] = 0;
	for (char *save = NULL, *tok = strtok_r(line, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		c->names = realloc(c->names, (size_t)(c->ncols + 1) * sizeof(*c->names));
		c->names[c->ncols++] = strdup(tok);
	}
	while ((len = getline(&line, &lcap, f)) > 0) {
		char *s = line;

		if (c->nrows == cap) {
			cap = cap ? 2 * cap : 256;
			c->v = realloc(c->v, cap * (size_t)c->ncols * sizeof(*c->v));
		}
		for (int i = 0; i < c->ncols; i++) {
			char *end;

			c->v[c->nrows * (size_t)c->ncols + (size_t)i] = strtod(s, &end);
			CU_ASSERT(end != s);
			s = *end == ',' ? end + 1 : end;
		}
		c->nrows++;
	}
	free(line);
	fclose(f);
	return 0;
}

static int csv_col(const struct csv *c, const char *name)
{
	for (int i = 0; i < c->ncols; i++)
		if (!strcmp(c->names[i], name))
			return i;
	return -1;
}

static double csv_at(const struct csv *c, size_t row, int col)
{
	return c->v[row * (size_t)c->ncols + (size_t)col];
}

/* ---- a run with outputs ---- */

/* Builds, opens outputs on fresh directories, runs to the end, finishes. */
static int run_with(struct sim *s, const struct setup *c, struct wl *w, struct output_opts *oo,
		    struct recorder *rec, char *err, size_t errlen)
{
	struct outputs *o;
	int r;

	build(s, c, w);
	if (rec) {
		rec->obs = (struct sim_observer){.done = rec_done, .arg = rec};
		CU_ASSERT_FATAL(sim_observe(s, &rec->obs, err, errlen) == 0);
	}
	if ((r = outputs_open(&o, s, oo, err, errlen)))
		return r;
	CU_ASSERT(!rec || (s->observers == &rec->obs && rec->obs.next)); /* outputs after it */
	if ((r = outputs_run_until(o, UINT64_MAX))) {
		snprintf(err, errlen, "%s", outputs_error(o));
		outputs_abort(o);
		return r;
	}
	r = outputs_finish(o, err, errlen);
	if (rec)
		CU_ASSERT(s->observers == &rec->obs && !rec->obs.next); /* outputs gone */
	return r;
}

static void check_band_pcaps(const char *dir, const struct dev *d, const struct recorder *rec,
			     const char *fname, uint32_t leaf)
{
	const struct class_stats *cs = NULL;

	for (int i = 0; i < d->st.nclasses; i++)
		if (d->st.classes[i].classid == leaf)
			cs = &d->st.classes[i];
	CU_ASSERT_FATAL(cs != NULL);
	for (int sent = 1; sent >= 0; sent--) {
		char name[128];
		struct pcap_rd r;
		size_t k = 0;
		uint64_t bytes = 0;

		snprintf(name, sizeof(name), "%s-%s-%s.pcap", d->name, fname,
			 sent ? "sent" : "dropped");
		CU_ASSERT_FATAL(read_pcap(dir, name, &r) == 0);
		CU_ASSERT_EQUAL(r.n, sent ? cs->packets : cs->drops);
		for (size_t i = 0; i < rec->n; i++) {
			const struct rec *x = &rec->v[i];

			if (x->leaf != leaf || x->sent != sent)
				continue;
			if (k >= r.n) {
				k++;
				continue;
			}
			/* in the order they left; sent at t_depart, dropped at arrival */
			CU_ASSERT_EQUAL(r.ts[k], x->t);
			CU_ASSERT_EQUAL(r.len[k], x->len + (x->vlan ? 4u : 0u));
			CU_ASSERT_EQUAL(r.caplen[k], x->caplen + (x->vlan ? 4u : 0u));
			bytes += x->len;
			k++;
		}
		CU_ASSERT_EQUAL(k, r.n);
		CU_ASSERT_EQUAL(bytes, sent ? cs->bytes : cs->drop_bytes);
		pcap_rd_free(&r);
	}
}

static void test_pcaps_and_csvs_match_the_report(void)
{
	struct setup c = {prio_tc, 2000000, 3000000, rand_pkts, RAND_N, 0};
	char *top = mktmp(), *pd = join(top, "pcap"), *gd = join(top, "plots"), err[512];
	struct output_opts oo = {.pcap_dir = pd, .plot_dir = gd, .interval_ns = 0};
	struct recorder rec = {0};
	struct csv tp, bl, cdf;
	struct wl w;
	struct sim s;
	const struct dev *d;
	uint64_t drops = 0;

	setenv("TCSIM_GNUPLOT", "", 1); /* no rendering here */
	CU_ASSERT_FATAL(run_with(&s, &c, &w, &oo, &rec, err, sizeof(err)) == 0);
	d = s.devs[0];
	CU_ASSERT_EQUAL(rec.calls, (int)(d->st.sent + d->st.dropped));
	for (int i = 0; i < d->st.nclasses; i++)
		drops += d->st.classes[i].drops;
	CU_ASSERT(drops > 20); /* the workload overflows the queues */
	CU_ASSERT(d->st.classes[0].packets > 100 && d->st.classes[2].packets > 100);
	check_band_pcaps(pd, d, &rec, "1_1", 0x10001);
	check_band_pcaps(pd, d, &rec, "1_2", 0x10002);
	check_band_pcaps(pd, d, &rec, "1_3", 0x10003);
	CU_ASSERT_EQUAL(count_files(pd), 6);

	/* throughput: each band's bytes add up to the class's */
	CU_ASSERT_FATAL(read_csv(gd, "eth0-throughput.csv", &tp) == 0);
	CU_ASSERT_STRING_EQUAL(tp.names[0], "time_s");
	for (int k = 0; k < 3; k++) {
		char col[32];
		int ci;
		double sum = 0;

		snprintf(col, sizeof(col), "1:%d bytes", k + 1);
		ci = csv_col(&tp, col);
		CU_ASSERT_FATAL(ci > 0);
		for (size_t i = 0; i < tp.nrows; i++) {
			sum += csv_at(&tp, i, ci);
			/* never more than the line rate */
			CU_ASSERT(csv_at(&tp, i, ci + 1) <= 2000000 * 1.000001);
		}
		CU_ASSERT_EQUAL((uint64_t)sum, d->st.classes[k].bytes);
	}
	CU_ASSERT(tp.nrows >= 500 && tp.nrows <= 2600); /* the adaptive interval */

	/* backlog: sampled times rise, the pfifo band never holds more than
	 * its limit, and the run ends empty */
	CU_ASSERT_FATAL(read_csv(gd, "eth0-backlog.csv", &bl) == 0);
	CU_ASSERT_EQUAL(bl.ncols, 7);
	CU_ASSERT_STRING_EQUAL(bl.names[3], "1:2 bytes");
	for (size_t i = 1; i < bl.nrows; i++) {
		CU_ASSERT(csv_at(&bl, i, 0) > csv_at(&bl, i - 1, 0));
		CU_ASSERT(csv_at(&bl, i, 4) <= 6);
	}
	for (int k = 1; k < 7; k++)
		CU_ASSERT(csv_at(&bl, bl.nrows - 1, k) == 0);
	CU_ASSERT(csv_at(&bl, bl.nrows - 1, 0) * 1e9 > (double)(s.now - 1000));
	{
		double peak = 0;

		for (size_t i = 0; i < bl.nrows; i++)
			if (csv_at(&bl, i, 1) > peak)
				peak = csv_at(&bl, i, 1);
		CU_ASSERT(peak > 0);
	}

	/* the CDF: quantiles of the report's histograms */
	CU_ASSERT_FATAL(read_csv(gd, "eth0-delay_cdf.csv", &cdf) == 0);
	CU_ASSERT_EQUAL(cdf.nrows, 1001);
	for (int k = 0; k < 3; k++) {
		const struct class_stats *cs = &d->st.classes[k];
		char col[32];
		int qc, tc;

		snprintf(col, sizeof(col), "1:%d queue_us", k + 1);
		qc = csv_col(&cdf, col);
		snprintf(col, sizeof(col), "1:%d total_us", k + 1);
		tc = csv_col(&cdf, col);
		CU_ASSERT_FATAL(qc > 0 && tc > 0);
		CU_ASSERT_EQUAL((uint64_t)(csv_at(&cdf, 500, qc) * 1000 + 0.5),
				hist_quantile(&cs->queue_delay, 0.5));
		CU_ASSERT_EQUAL((uint64_t)(csv_at(&cdf, 990, tc) * 1000 + 0.5),
				hist_quantile(&cs->total_delay, 0.99));
		CU_ASSERT_EQUAL((uint64_t)(csv_at(&cdf, 1000, tc) * 1000 + 0.5),
				cs->total_delay.max);
		CU_ASSERT_EQUAL((uint64_t)(csv_at(&cdf, 0, qc) * 1000 + 0.5), cs->queue_delay.min);
	}
	CU_ASSERT(exists(gd, "eth0.gp"));
	CU_ASSERT_EQUAL(count_files(gd), 4); /* 3 CSVs and the script: gnuplot was off */
	csv_free(&tp);
	csv_free(&bl);
	csv_free(&cdf);
	free(rec.v);
	sim_free(&s);
	rm_rf(top);
	free(top);
	free(pd);
	free(gd);
	unsetenv("TCSIM_GNUPLOT");
}

/* ---- the run is not changed ---- */

/* The report, the clock and the generator after a plain run, and after one
 * with outputs (splitting it at `split` first, as a Lua scenario might,
 * or letting the simulation run on its own until then: `bypass`). */
static void same_run(const struct setup *c, uint64_t interval, int pcap, int plot, uint64_t split,
		     int bypass)
{
	struct sim a, b;
	struct wl wa, wb;
	struct outputs *o;
	char *ra, *rb, *top = mktmp(), err[512];
	struct output_opts oo = {
	    .pcap_dir = pcap ? top : NULL, .plot_dir = plot ? top : NULL, .interval_ns = interval};

	build(&a, c, &wa);
	if (split)
		CU_ASSERT(sim_run_until(&a, split) == 0);
	CU_ASSERT(sim_run(&a) == 0);
	build(&b, c, &wb);
	CU_ASSERT_FATAL(outputs_open(&o, &b, &oo, err, sizeof(err)) == 0);
	if (split)
		CU_ASSERT((bypass ? sim_run_until(&b, split) : outputs_run_until(o, split)) == 0);
	CU_ASSERT(outputs_run_until(o, UINT64_MAX) == 0);
	CU_ASSERT(outputs_finish(o, err, sizeof(err)) == 0);
	ra = report_of(&a);
	rb = report_of(&b);
	CU_ASSERT_STRING_EQUAL(ra, rb);
	CU_ASSERT_EQUAL(a.now, b.now);
	CU_ASSERT(memcmp(&a.rng, &b.rng, sizeof(a.rng)) == 0); /* no extra perturbation */
	if (strcmp(ra, rb) || a.now != b.now)
		printf("\n  differs: interval %" PRIu64 " pcap %d plot %d split %" PRIu64 " ",
		       interval, pcap, plot, split);
	free(ra);
	free(rb);
	sim_free(&a);
	sim_free(&b);
	rm_rf(top);
	free(top);
}

/* The last transmission ends exactly when sfq's perturbation timer (1 s)
 * is due: sim_run stops before the timer; a naive step to 1 s fires it. */
static const struct wl_pkt edge_pkts[] = {
    {.t = 0, .len = 125, .priority = 0x10001, .sport = 1},
    {.t = 200000, .len = 250, .priority = 0x10003, .sport = 2},
    {.t = 999000000, .len = 125, .priority = 0x10001, .sport = 3}, /* ends at 1 s */
};

static void test_reports_identical(void)
{
	struct setup rnd = {prio_tc, 2000000, 3000000, rand_pkts, RAND_N, 0};
	struct setup edge = {prio_tc, 1000000, 0, edge_pkts, 3, 0};
	static const uint64_t intervals[] = {0, 1000000, 77777, 250000000};

	setenv("TCSIM_GNUPLOT", "", 1);
	for (size_t i = 0; i < sizeof(intervals) / sizeof(*intervals); i++) {
		same_run(&rnd, intervals[i], 1, 1, 0, 0);
		same_run(&edge, intervals[i], 0, 1, 0, 0);
		same_run(&rnd, intervals[i], 0, 1, 123456789, 0);
		same_run(&edge, intervals[i], 1, 1, 999000000, 0);
	}
	same_run(&rnd, 0, 1, 0, 0, 0);
	same_run(&rnd, 0, 1, 0, 5000000, 0);
	same_run(&rnd, 0, 1, 1, 2000000000, 1); /* the simulation ran on its own a while */
	same_run(&edge, 1000000, 1, 1, 500000000, 1);
	unsetenv("TCSIM_GNUPLOT");
}

/* The trap the stepping avoids is real: stepping every millisecond with
 * sim_run_until fires the timer that sim_run does not. */
static void test_naive_stepping_differs(void)
{
	struct setup edge = {prio_tc, 1000000, 0, edge_pkts, 3, 0};
	struct sim a, b;
	struct wl wa, wb;

	build(&a, &edge, &wa);
	CU_ASSERT(sim_run(&a) == 0);
	build(&b, &edge, &wb);
	for (uint64_t t = 0; b.work_events; t += 1000000)
		CU_ASSERT(sim_run_until(&b, t) == 0);
	CU_ASSERT(sim_run(&b) == 0);
	CU_ASSERT_EQUAL(a.now, 1000000000u);
	CU_ASSERT(memcmp(&a.rng, &b.rng, sizeof(a.rng)) != 0);
	sim_free(&a);
	sim_free(&b);
}

/* ---- a schedule by hand ---- */

/* 1 Mbit/s: 125 bytes take 1 ms. Five packets for band 1:2 at t = 0: the
 * first goes on the wire at once, four wait; one leaves each ms. */
static void test_backlog_schedule(void)
{
	static const struct wl_pkt v[] = {
	    {.t = 0, .len = 125, .priority = 0x10002}, {.t = 0, .len = 125, .priority = 0x10002},
	    {.t = 0, .len = 125, .priority = 0x10002}, {.t = 0, .len = 125, .priority = 0x10002},
	    {.t = 0, .len = 125, .priority = 0x10002},
	};
	static const double want[][3] = {
	    /* time_s, 1:2 bytes, 1:2 packets */
	    {0.000, 500, 4}, {0.001, 375, 3}, {0.002, 250, 2},
	    {0.003, 125, 1}, {0.004, 0, 0},   {0.005, 0, 0}, /* the end: the last transmission */
	};
	struct setup c = {prio_tc, 1000000, 10000000, v, 5, 0};
	char *top = mktmp(), err[512];
	struct output_opts oo = {.pcap_dir = top, .plot_dir = top, .interval_ns = 1000000};
	struct csv bl, tp;
	struct pcap_rd r;
	struct wl w;
	struct sim s;

	setenv("TCSIM_GNUPLOT", "", 1);
	CU_ASSERT_FATAL(run_with(&s, &c, &w, &oo, NULL, err, sizeof(err)) == 0);
	CU_ASSERT_FATAL(read_csv(top, "eth0-backlog.csv", &bl) == 0);
	CU_ASSERT_EQUAL_FATAL(bl.nrows, 6);
	for (size_t i = 0; i < 6; i++) {
		CU_ASSERT_DOUBLE_EQUAL(csv_at(&bl, i, 0), want[i][0], 1e-12);
		CU_ASSERT_EQUAL(csv_at(&bl, i, 3), want[i][1]);
		CU_ASSERT_EQUAL(csv_at(&bl, i, 4), want[i][2]);
		CU_ASSERT_EQUAL(csv_at(&bl, i, 1), 0);
		CU_ASSERT_EQUAL(csv_at(&bl, i, 5), 0);
	}
	/* one packet per 1 ms bin: 1 Mbit/s in each */
	CU_ASSERT_FATAL(read_csv(top, "eth0-throughput.csv", &tp) == 0);
	CU_ASSERT_EQUAL_FATAL(tp.nrows, 6);
	for (size_t i = 0; i < 5; i++) {
		CU_ASSERT_EQUAL(csv_at(&tp, i, csv_col(&tp, "1:2 bytes")), 125);
		CU_ASSERT_EQUAL(csv_at(&tp, i, csv_col(&tp, "1:2 bit/s")), 1000000);
		CU_ASSERT_EQUAL(csv_at(&tp, i, csv_col(&tp, "total bit/s")), 1000000);
	}
	CU_ASSERT_EQUAL(csv_at(&tp, 5, csv_col(&tp, "total bit/s")), 0);
	/* departures: end of transmission + 10 ms of propagation */
	CU_ASSERT_FATAL(read_pcap(top, "eth0-1_2-sent.pcap", &r) == 0);
	CU_ASSERT_EQUAL_FATAL(r.n, 5);
	for (size_t i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(r.ts[i], 11000000u + 1000000u * i);
	pcap_rd_free(&r);
	csv_free(&bl);
	csv_free(&tp);
	sim_free(&s);
	rm_rf(top);
	free(top);
	unsetenv("TCSIM_GNUPLOT");
}

/* A packet spanning bins: 1500 bytes at 1 Mbit/s take 12 ms; in 5 ms bins
 * that is 5/12, 5/12 and 2/12 of it, in whole bytes adding up to 1500. */
static void test_throughput_spread(void)
{
	static const struct wl_pkt v[] = {{.t = 0, .len = 1500, .priority = 0x10001}};
	struct setup c = {prio_tc, 1000000, 0, v, 1, 0};
	char *top = mktmp(), err[512];
	struct output_opts oo = {.pcap_dir = NULL, .plot_dir = top, .interval_ns = 5000000};
	struct csv tp;
	struct wl w;
	struct sim s;
	int col;

	setenv("TCSIM_GNUPLOT", "", 1);
	CU_ASSERT_FATAL(run_with(&s, &c, &w, &oo, NULL, err, sizeof(err)) == 0);
	CU_ASSERT_FATAL(read_csv(top, "eth0-throughput.csv", &tp) == 0);
	col = csv_col(&tp, "1:1 bytes");
	CU_ASSERT_EQUAL_FATAL(tp.nrows, 3);
	CU_ASSERT_EQUAL(csv_at(&tp, 0, col), 625);
	CU_ASSERT_EQUAL(csv_at(&tp, 1, col), 625);
	CU_ASSERT_EQUAL(csv_at(&tp, 2, col), 250);
	CU_ASSERT_EQUAL(csv_at(&tp, 0, col + 1), 1000000);
	csv_free(&tp);
	sim_free(&s);
	rm_rf(top);
	free(top);
	unsetenv("TCSIM_GNUPLOT");
}

/* ---- frames as on the wire ---- */

static void test_vlan_tag_reinserted(void)
{
	static const struct wl_pkt v[] = {
	    {.t = 0, .len = 100, .priority = 0x10001, .vlan_tci = 0x2005},
	    {.t = 10, .len = 200, .priority = 0x10001},
	    {.t = 20, .len = 300, .priority = 0x10001, .vlan_tci = 0x0fff},
	};

	for (int inl = 0; inl <= 1; inl++) {
		struct setup c = {prio_tc, 1000000, 0, v, 3, inl};
		char *top = mktmp(), err[512];
		struct output_opts oo = {.pcap_dir = top, .plot_dir = NULL, .interval_ns = 0};
		struct recorder rec = {0};
		struct pcap_rd r;
		struct wl w;
		struct sim s;

		CU_ASSERT_FATAL(run_with(&s, &c, &w, &oo, &rec, err, sizeof(err)) == 0);
		CU_ASSERT_EQUAL(rec.v[0].vlan, !inl); /* offloaded, or kept in the data */
		CU_ASSERT_FATAL(read_pcap(top, "eth0-1_1-sent.pcap", &r) == 0);
		CU_ASSERT_EQUAL_FATAL(r.n, 3);
		for (int i = 0; i < 3; i++) {
			uint8_t frame[2048];
			uint32_t n = wl_frame(&v[i], frame);

			CU_ASSERT_EQUAL(r.caplen[i], n);
			CU_ASSERT_EQUAL(r.len[i], n);
			CU_ASSERT(r.caplen[i] == n && memcmp(r.data[i], frame, n) == 0);
		}
		pcap_rd_free(&r);
		free(rec.v);
		sim_free(&s);
		rm_rf(top);
		free(top);
	}
}

/* ---- roots without classes, several devices ---- */

static void test_classless_root_and_names(void)
{
	static const struct wl_pkt v[] = {
	    {.t = 0, .len = 1000}, {.t = 0, .len = 1000}, {.t = 0, .len = 1000},
	    {.t = 0, .len = 1000}, {.t = 0, .len = 1000},
	};
	struct setup c = {"qdisc add dev eth0 root handle 1: pfifo limit 2\n"
			  "qdisc add dev we=1 root handle 5: sfq\n",
			  1000000,
			  0,
			  v,
			  5,
			  0};
	char *top = mktmp(), err[512];
	struct output_opts oo = {.pcap_dir = top, .plot_dir = top, .interval_ns = 0};
	struct pcap_rd r;
	struct csv bl;
	struct wl w;
	struct sim s;

	setenv("TCSIM_GNUPLOT", "", 1);
	CU_ASSERT_FATAL(run_with(&s, &c, &w, &oo, NULL, err, sizeof(err)) == 0);
	CU_ASSERT_FATAL(read_pcap(top, "eth0-root-sent.pcap", &r) == 0);
	CU_ASSERT_EQUAL(r.n, 3); /* one on the wire, two queued */
	pcap_rd_free(&r);
	CU_ASSERT_FATAL(read_pcap(top, "eth0-root-dropped.pcap", &r) == 0);
	CU_ASSERT_EQUAL(r.n, 2);
	pcap_rd_free(&r);
	/* the idle second device: its name made safe, its files empty */
	CU_ASSERT_FATAL(read_pcap(top, "we_1-root-sent.pcap", &r) == 0);
	CU_ASSERT_EQUAL(r.n, 0);
	pcap_rd_free(&r);
	CU_ASSERT(exists(top, "we_1-root-dropped.pcap"));
	CU_ASSERT(exists(top, "we_1.gp") && exists(top, "we_1-delay_cdf.csv"));
	CU_ASSERT_FATAL(read_csv(top, "eth0-backlog.csv", &bl) == 0);
	CU_ASSERT_EQUAL(bl.ncols, 3);
	CU_ASSERT_STRING_EQUAL(bl.names[1], "root bytes");
	CU_ASSERT_EQUAL(csv_at(&bl, 0, 1), 2000); /* at t = 0: two of 1000 bytes wait */
	CU_ASSERT_EQUAL(csv_at(&bl, 0, 2), 2);
	csv_free(&bl);
	CU_ASSERT_EQUAL(count_files(top), 4 + 8); /* pcaps; CSVs and scripts */
	sim_free(&s);
	rm_rf(top);
	free(top);
	unsetenv("TCSIM_GNUPLOT");
}

/* ---- failures leave nothing ---- */

static void test_bad_directories(void)
{
	struct setup c = {prio_tc, 2000000, 0, rand_pkts, 10, 0};
	char *top = mktmp(), *file = join(top, "file"), *under = join(file, "x"),
	     *deep = join(top, "a/b"), *good = join(top, "good"), err[512];
	struct outputs *o = (struct outputs *)1;
	struct wl w;
	struct sim s;
	FILE *f = fopen(file, "w");

	CU_ASSERT_FATAL(f != NULL);
	fclose(f);
	build(&s, &c, &w);
	{
		struct output_opts bad[] = {
		    {.pcap_dir = file, .plot_dir = NULL},
		    {.pcap_dir = NULL, .plot_dir = under},
		    {.pcap_dir = deep, .plot_dir = NULL},
		    {.pcap_dir = good, .plot_dir = file},
		    {.pcap_dir = good, .plot_dir = "/proc/tcsim-no"},
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
			err[0] = 0;
			CU_ASSERT(outputs_open(&o, &s, &bad[i], err, sizeof(err)) < 0);
			CU_ASSERT(o == NULL);
			CU_ASSERT(err[0] != 0);
			CU_ASSERT(s.observers == NULL);
			/* only the file we made: no directory, no temporary left */
			CU_ASSERT_EQUAL(count_files(top), 1);
		}
	}
	sim_free(&s);
	rm_rf(top);
	free(top);
	free(file);
	free(under);
	free(deep);
	free(good);
}

static void test_abort_removes_everything(void)
{
	struct setup c = {prio_tc, 2000000, 0, rand_pkts, RAND_N, 0};
	char *top = mktmp(), *sub = join(top, "made"), err[512];
	struct output_opts oo = {.pcap_dir = top, .plot_dir = sub, .interval_ns = 0};
	struct recorder rec = {0};
	struct outputs *o;
	struct wl w;
	struct sim s;

	build(&s, &c, &w);
	rec.obs = (struct sim_observer){.done = rec_done, .arg = &rec};
	CU_ASSERT_FATAL(sim_observe(&s, &rec.obs, err, sizeof(err)) == 0);
	CU_ASSERT_FATAL(outputs_open(&o, &s, &oo, err, sizeof(err)) == 0);
	CU_ASSERT(outputs_run_until(o, 200000000) == 0);
	CU_ASSERT(count_files(top) == 2); /* the private directories */
	outputs_abort(o);
	CU_ASSERT_EQUAL(count_files(top), 0); /* "made" was made by open: gone */
	CU_ASSERT(s.observers == &rec.obs && !rec.obs.next);
	CU_ASSERT(rec.n > 0);
	outputs_abort(NULL);
	free(rec.v);
	sim_free(&s);
	rm_rf(top);
	free(top);
	free(sub);
}

/* A write failing (the file size limit) in the middle of the run: the run
 * or finish reports it, and no file is left. */
static void test_write_failure_leaves_nothing(void)
{
	struct setup c = {prio_tc, 2000000, 0, rand_pkts, RAND_N, 0};
	char *top = mktmp(), err[512] = "";
	struct output_opts oo = {.pcap_dir = top, .plot_dir = top, .interval_ns = 0};
	struct rlimit old, lim;
	struct outputs *o;
	struct wl w;
	struct sim s;
	int r;

	build(&s, &c, &w);
	CU_ASSERT_FATAL(outputs_open(&o, &s, &oo, err, sizeof(err)) == 0);
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = 20000;
	signal(SIGXFSZ, SIG_IGN);
	CU_ASSERT_FATAL(setrlimit(RLIMIT_FSIZE, &lim) == 0);
	r = outputs_run_until(o, UINT64_MAX);
	if (r) {
		CU_ASSERT_EQUAL(s.failed, 0);
		CU_ASSERT(strstr(outputs_error(o), "cannot write") != NULL);
		outputs_abort(o);
	} else {
		CU_ASSERT(outputs_finish(o, err, sizeof(err)) < 0);
		CU_ASSERT(strstr(err, "cannot write") != NULL);
	}
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, SIG_DFL);
	CU_ASSERT_EQUAL(count_files(top), 0);
	sim_free(&s);
	rm_rf(top);
	free(top);
}

/* ---- rendering ---- */

static int gnuplot_installed(void)
{
	return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

static int file_starts(const char *dir, const char *name, const void *magic, size_t n)
{
	char *p = join(dir, name), buf[16];
	FILE *f = fopen(p, "rb");
	int ok = f && fread(buf, 1, n, f) == n && memcmp(buf, magic, n) == 0;

	if (f)
		fclose(f);
	free(p);
	return ok;
}

static void test_render(void)
{
	struct setup c = {prio_tc, 2000000, 0, rand_pkts, 300, 0};
	char *top = mktmp(), err[512];
	struct output_opts oo = {.pcap_dir = NULL, .plot_dir = top, .interval_ns = 0};
	static const char *const kinds[] = {"backlog", "throughput", "delay_cdf"};
	struct wl w;
	struct sim s;

	if (!gnuplot_installed()) {
		printf("\n  gnuplot is not installed: rendering not tested (apt-get install "
		       "gnuplot-nox) ");
		rm_rf(top);
		free(top);
		return;
	}
	CU_ASSERT_FATAL(run_with(&s, &c, &w, &oo, NULL, err, sizeof(err)) == 0);
	for (int k = 0; k < 3; k++) {
		char png[64], svg[64];

		snprintf(png, sizeof(png), "eth0-%s.png", kinds[k]);
		snprintf(svg, sizeof(svg), "eth0-%s.svg", kinds[k]);
		CU_ASSERT(file_starts(top, png, "\x89PNG\r\n\x1a\n", 8));
		CU_ASSERT(file_starts(top, svg, "<?xml", 5));
	}
	CU_ASSERT_EQUAL(count_files(top), 4 + 6);
	sim_free(&s);
	rm_rf(top);

	/* a gnuplot that fails: the data and scripts stay, no picture */
	setenv("TCSIM_GNUPLOT", "false", 1);
	CU_ASSERT_FATAL(run_with(&s, &c, &w, &oo, NULL, err, sizeof(err)) == 0);
	CU_ASSERT_EQUAL(count_files(top), 4);
	unsetenv("TCSIM_GNUPLOT");
	sim_free(&s);
	rm_rf(top);
	free(top);
}

int main(void)
{
	CU_pSuite s;

	make_random();
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	s = CU_add_suite("output", NULL, NULL);
	CU_add_test(s, "pcaps and CSVs hold what the report counts",
		    test_pcaps_and_csvs_match_the_report);
	CU_add_test(s, "reports identical with and without outputs", test_reports_identical);
	CU_add_test(s, "naive stepping would fire a timer sim_run does not",
		    test_naive_stepping_differs);
	CU_add_test(s, "backlog and throughput of a hand-computed schedule", test_backlog_schedule);
	CU_add_test(s, "throughput spread over the bins a transmission spans",
		    test_throughput_spread);
	CU_add_test(s, "VLAN tags back in the frame", test_vlan_tag_reinserted);
	CU_add_test(s, "classless roots, device names, idle devices",
		    test_classless_root_and_names);
	CU_add_test(s, "bad directories: error, nothing left", test_bad_directories);
	CU_add_test(s, "abort removes everything", test_abort_removes_everything);
	CU_add_test(s, "a failing write leaves nothing", test_write_failure_leaves_nothing);
	CU_add_test(s, "PNG and SVG rendered by gnuplot", test_render);
	return unit_run();
}
