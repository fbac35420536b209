/* run.c - `tcsim run --tc FILE [options] CAPTURE...`: one simulation of a
 * tc file over captures, reported as text or JSON, with pcaps, plots, traces. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "outfile.h"
#include "output.h"
#include "report.h"
#include "run_opts.h"
#include "sim.h"
#include "tc.h"
#include "trace.h"

/* one line of source per line of the text, as it prints */
/* clang-format off */
static const char usage_run[] =
	"usage: tcsim run --tc FILE [device options] [replay options] [--json OUT|-] CAPTURE...\n"
	"device (every device the tc file names):\n"
	"  --rate R         line rate in tc units: 10mbit, 1gbit, 100kbps (= bytes/s) [10mbit]\n"
	"  --overhead B     bytes added to each frame on the wire [0]\n"
	"  --mtu N          [1500]     --txqueuelen N  [1000]     --delay T  propagation [0]\n"
	"  --dev NAME       the device the captures enter [the first one the tc file names]\n"
	"replay (tcpreplay's words):\n"
	"  --speed X        X times the capture's pace     --pps N / --mbps N   fixed pace\n"
	"  --topspeed       every packet at t = 0          --loop N   play N times\n"
	"  --limit N        at most N packets per capture  --duration T  stop after T (s, ms, us, ns)\n"
	"                   (--loop 0 = forever, with --limit or --duration)\n"
	"  --priority forward|N|X:Y   skb->priority: a router's TOS->priority (default) or fixed\n"
	"  --mark M | --mark EXPR=M   skb->mark: M for every packet, or for those the tcpdump\n"
	"                   expression selects; repeated, the first rule that selects wins [0]\n"
	"  --vlan offload|inline      802.1Q tags out of band (default) or kept in the frame\n"
	"model:\n"
	"  --seed N         the generator behind sfq perturbation and #rand [1]\n"
	"  --kernel current|3.13     --sfq-allot units|bytes  (8-byte units: 3.13..6.12)\n"
	"  --sfq-hash tuple|random   distinct flows never share a bucket (default), or the\n"
	"                   kernel's jhash with a seeded perturbation: collisions as on Linux\n"
	"  --timer-latency T  a shaper's watchdog (tbf, htb) fires T after its time, as the\n"
	"                   kernel's timer interrupt and softirq do (5us-20us) [0: on time]\n"
	"tc file:\n"
	"  --var NAME=VALUE  $NAME, ${NAME}, ${NAME:-W}, ${NAME-W} in the tc file (repeatable;\n"
	"                   above its own NAME=VALUE lines and the environment)\n"
	"  --force          as tc -force: report a failing tc line, go on, exit 1 at the end\n"
	"output:\n"
	"  --json OUT|-     the results as JSON (README, JSON); '-' = only JSON, on stdout\n"
	"  --tc-json FILE   what tc -s -j qdisc|class|filter show print at the end, as one\n"
	"                   JSON object {\"qdisc\": [...], \"class\": [...], \"filter\": [...]}\n"
	"  --pcap-out DIR   per device and band: DEV-BAND-sent.pcap (stamped at departure) and\n"
	"                   DEV-BAND-dropped.pcap (stamped at arrival), nanosecond pcap\n"
	"  --pcap-format pcap|pcapng  pcapng: one DEV-BAND.pcapng per band instead, each packet\n"
	"                   with a comment saying its fate (verdict, delays, drop reason) [pcap]\n"
	"  --pcap-epoch capture|zero  their clock: the first capture's own (its first packet's\n"
	"                   time + simulated time) [capture], or simulated time from 1970\n"
	"  --plot DIR       per device: backlog and throughput per band over time, delay CDFs:\n"
	"                   CSV + gnuplot script always, PNG/SVG when gnuplot is installed\n"
	"  --plot-interval T  sampling interval of the plots [adaptive: 500-2500 points]\n"
	"  --trace FILE|-   one line per event of every packet (docs/trace.md); '-' = stdout,\n"
	"                   before the report\n"
	"  --trace-filter EXPR  trace only the packets this tcpdump expression accepts\n"
	"  --quiet          no progress line (shown on a terminal once a run takes a second) and\n"
	"                   no warning about a capture's timestamps (going back, hours apart)\n";
/* clang-format on */

/* The JSON report goes to a temporary file opened before the run, renamed
 * into place only when everything succeeded: a failure leaves nothing. */
struct json_out {
	struct outfile o; /* o.f NULL: no file (none asked, or "-") */
	const char *path;
	const char *opt; /* "--json" or "--tc-json" (tc_show_json) */
};

static int json_open(struct json_out *j, const char *path, const char *opt)
{
	j->path = path;
	j->opt = opt;
	j->o = (struct outfile){0};
	if (!path || !strcmp(path, "-"))
		return 0;
	if (outfile_open(&j->o, path, "w")) {
		fprintf(stderr, "tcsim: %s %s: %s\n", opt, path, strerror(errno));
		return 1;
	}
	return 0;
}

static void json_abort(struct json_out *j)
{
	outfile_abort(&j->o);
}

static int json_commit(struct json_out *j, const struct sim *s)
{
	if (!j->o.f)
		return 0;
	if (!strcmp(j->opt, "--tc-json"))
		tc_show_json(s, j->o.f, 0);
	else
		report_json(s, j->o.f);
	if (outfile_commit(&j->o)) {
		fprintf(stderr, "tcsim: %s %s: %s\n", j->opt, j->path, strerror(errno));
		return 1;
	}
	return 0;
}

/* ---- what a long run and an odd capture tell the user ---- */

/* A progress line on a terminal once a run has taken a second: rewritten
 * in place four times a second, erased at the end. It reads the clock
 * only in the simulation's poll (every SIM_POLL_EVERY events), so the run
 * itself is unchanged. */
struct progress {
	struct sim *s;
	struct timespec t0, last;
	int shown;
	double after; /* seconds before the first line: 1, or TCSIM_PROGRESS_AFTER (tests) */
};

static double since(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static int progress_poll(void *arg, char *err, size_t errlen)
{
	struct progress *p = arg;
	struct timespec now;
	uint64_t arrived = 0;
	double el;

	(void)err;
	(void)errlen;
	clock_gettime(CLOCK_MONOTONIC, &now);
	el = since(&p->t0, &now);
	if (el < p->after || (p->shown && since(&p->last, &now) < 0.25))
		return 0;
	p->last = now;
	for (int i = 0; i < p->s->ndevs; i++)
		arrived += p->s->devs[i]->st.arrived;
	fprintf(stderr, "\rtcsim: %llu packets, %.3f s simulated, %.0f packets/s\033[K",
		(unsigned long long)arrived, p->s->now / 1e9, arrived / el);
	fflush(stderr);
	p->shown = 1;
	return 0;
}

static void progress_end(struct progress *p)
{
	if (p->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		p->shown = 0;
	}
}

/* One line per capture whose timestamps went back (those packets went
 * with the one before, as tcpreplay sends them) or jumped by more than an
 * hour (replayed as idle time). */
static void capture_warnings(const struct sim *s)
{
	for (int i = 0; i < s->nsrcs; i++) {
		const struct source *src = s->srcs[i].src;
		char gap[64] = "";

		if (!src->clamped && !src->long_gaps)
			continue;
		if (src->long_gaps)
			snprintf(gap, sizeof(gap), "%.1f h", src->longest_gap_ns / 3.6e12);
		fprintf(stderr, "tcsim: %s:", src->name);
		if (src->clamped)
			fprintf(
			    stderr,
			    " %llu packet%s stamped earlier than one before %s sent with it (the "
			    "clock never goes back)%s",
			    (unsigned long long)src->clamped, src->clamped == 1 ? "" : "s",
			    src->clamped == 1 ? "was" : "were", src->long_gaps ? ";" : "");
		if (src->long_gaps)
			fprintf(stderr,
				" %llu gap%s of more than an hour between timestamps (the "
				"longest %s), replayed as idle time",
				(unsigned long long)src->long_gaps, src->long_gaps == 1 ? "" : "s",
				gap);
		fputs(" (--quiet: no such lines)\n", stderr);
	}
}

int cmd_sim_run(int argc, char **argv)
{
	enum {
		O_JSON = 256,
		O_TCJSON,
		O_PCAP,
		O_PLOT,
		O_PLOTINT,
		O_TRACE,
		O_TFILTER,
		O_QUIET,
		O_EPOCH,
		O_FORMAT,
		O_HELP
	};
	static const struct option own[] = {
	    {"json", required_argument, NULL, O_JSON},
	    {"tc-json", required_argument, NULL, O_TCJSON},
	    {"trace", required_argument, NULL, O_TRACE},
	    {"trace-filter", required_argument, NULL, O_TFILTER},
	    {"pcap-out", required_argument, NULL, O_PCAP},
	    {"plot", required_argument, NULL, O_PLOT},
	    {"plot-interval", required_argument, NULL, O_PLOTINT},
	    {"quiet", no_argument, NULL, O_QUIET},
	    {"pcap-epoch", required_argument, NULL, O_EPOCH},
	    {"pcap-format", required_argument, NULL, O_FORMAT},
	    {"help", no_argument, NULL, O_HELP},
	    {NULL, 0, NULL, 0},
	};
	struct option longopts[48];
	struct run_opts opts;
	struct sim_config cfg;
	struct sim s;
	struct json_out jo = {0}, tj = {0};
	struct output_opts oo = {0};
	struct outputs *outs = NULL;
	char *tcout = NULL;
	size_t tcout_len = 0;
	const char *trace_path = NULL, *trace_filter = NULL;
	struct trace *tr = NULL;
	FILE *tcmem;
	const char *tcfile = NULL, *json = NULL, *tcjson = NULL;
	char err[1024];
	int c, li = 0, rc = 1, quiet = 0;
	struct progress prog = {0};

	run_opts_default(&opts);
	run_opts_longopts(longopts, sizeof(longopts) / sizeof(longopts[0]), own);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, &li)) != -1) {
		const char *a = optarg;
		int bad = 0, r = run_opts_apply(&opts, c, a);

		if (r < 0)
			bad = 1;
		else if (r == 0)
			switch (c) {
			case O_JSON: json = a; break;
			case O_TCJSON: tcjson = a; break;
			case O_TRACE: trace_path = a; break;
			case O_TFILTER: trace_filter = a; break;
			case O_QUIET: quiet = 1; break;
			case O_EPOCH:
				bad = strcmp(a, "capture") && strcmp(a, "zero");
				oo.epoch_zero = !strcmp(a, "zero");
				break;
			case O_FORMAT: bad = pcapw_format_parse(a, &oo.pcap_format); break;
			case O_PCAP: oo.pcap_dir = a; break;
			case O_PLOT: oo.plot_dir = a; break;
			case O_PLOTINT:
				bad = tc_get_time_ns(&oo.interval_ns, a) || !oo.interval_ns;
				break;
			case O_HELP: fputs(usage_run, stdout); return 0;
			default: return run_opts_unknown("run", run_opts_bad_word(argc, argv));
			}
		if (bad)
			return run_opts_bad(&opts, "run", longopts[li].name, a);
	}
	cfg = opts.cfg;
	tcfile = opts.tcfile;
	if (!tcfile || optind >= argc) {
		fprintf(stderr,
			"tcsim run: give --tc FILE and at least one CAPTURE (tcsim run --help)\n");
		return 2;
	}
	if (tcjson && !strcmp(tcjson, "-")) {
		fprintf(
		    stderr,
		    "tcsim run: --tc-json needs a FILE (tc -j in the tc file prints to stdout)\n");
		return 2;
	}
	if (json_open(&jo, json, "--json"))
		return 1;
	if (json_open(&tj, tcjson, "--tc-json")) {
		json_abort(&jo);
		return 1;
	}
	tcmem = open_memstream(&tcout, &tcout_len);
	if (!tcmem || sim_init(&s, &cfg)) {
		fprintf(stderr, "tcsim: out of memory\n");
		json_abort(&jo);
		json_abort(&tj);
		if (tcmem)
			fclose(tcmem);
		free(tcout);
		return 1;
	}
	/* show commands in the tc file print only once the run succeeded */
	if (tc_run_file_opts(&s, tcfile, &opts.script, tcmem, err, sizeof(err))) {
		fprintf(stderr, "tcsim: %s\n", err);
		goto out;
	}
	if (run_opts_add_captures(&s, &opts, argv + optind, argc - optind, err, sizeof(err))) {
		fprintf(stderr, "tcsim: %s\n", err);
		goto out;
	}
	if (trace_path && json && !strcmp(trace_path, "-") && !strcmp(json, "-")) {
		fprintf(stderr, "tcsim run: --trace - and --json - would both write to stdout\n");
		rc = 2;
		goto out;
	}
	if (oo.pcap_format != PCAPW_PCAP && !oo.pcap_dir) {
		fprintf(stderr, "tcsim run: --pcap-format needs --pcap-out DIR\n");
		rc = 2;
		goto out;
	}
	if (trace_filter && !trace_path) {
		fprintf(stderr, "tcsim run: --trace-filter needs --trace FILE\n");
		rc = 2;
		goto out;
	}
	if (trace_path && trace_open_path(&tr, &s, trace_path, trace_filter, err, sizeof(err))) {
		fprintf(stderr, "tcsim: %s\n", err);
		goto out;
	}
	if (!quiet && isatty(STDERR_FILENO)) {
		prog.s = &s;
		prog.after =
		    getenv("TCSIM_PROGRESS_AFTER") ? atof(getenv("TCSIM_PROGRESS_AFTER")) : 1.0;
		clock_gettime(CLOCK_MONOTONIC, &prog.t0);
		s.poll = progress_poll;
		s.poll_arg = &prog;
	}
	if (oo.pcap_dir || oo.plot_dir) {
		if (outputs_open(&outs, &s, &oo, err, sizeof(err))) {
			fprintf(stderr, "tcsim: %s\n", err);
			goto out;
		}
		if (outputs_run_until(outs, UINT64_MAX)) {
			progress_end(&prog);
			fprintf(stderr, "tcsim: %s\n", outputs_error(outs));
			goto out;
		}
	} else if (sim_run(&s)) {
		progress_end(&prog);
		fprintf(stderr, "tcsim: %s\n", s.err);
		goto out;
	}
	progress_end(&prog);
	if (!quiet)
		capture_warnings(&s);
	if (sim_check_accounting(&s, err, sizeof(err))) {
		fprintf(stderr, "tcsim: %s\n", err);
		rc = 3;
		goto out;
	}
	if (outs) {
		int r = outputs_finish(outs, err, sizeof(err));

		outs = NULL;
		if (r) {
			fprintf(stderr, "tcsim: %s\n", err);
			goto out;
		}
	}
	if (tr) {
		int r = trace_finish(tr, err, sizeof(err));

		tr = NULL;
		if (r) {
			fprintf(stderr, "tcsim: %s\n", err);
			goto out;
		}
	}
	fflush(tcmem);
	fwrite(tcout, 1, tcout_len, json && !strcmp(json, "-") ? stderr : stdout);
	if (json && !strcmp(json, "-"))
		report_json(&s, stdout);
	else
		report_text(&s, stdout);
	rc = json_commit(&jo, &s);
	if (!rc)
		rc = json_commit(&tj, &s);
	if (!rc && opts.script.failed) {
		fprintf(stderr, "tcsim run: %d tc command%s failed and %s passed over (--force)\n",
			opts.script.failed, opts.script.failed == 1 ? "" : "s",
			opts.script.failed == 1 ? "was" : "were");
		rc = 1;
	}
out:
	progress_end(&prog);
	json_abort(&jo);
	json_abort(&tj);
	trace_close(tr);
	outputs_abort(outs);
	fclose(tcmem);
	free(tcout);
	sim_free(&s);
	return rc;
}
