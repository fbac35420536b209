/* explain.c - `tcsim explain`: one packet's story (report/explain.c), over
 * a tc file and captures (explain_main) or in a scenario (cmd_explain_lua). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "explain.h"
#include "run_opts.h"
#include "scenario.h"
#include "tc.h"
#include "trace.h"

/* one line of source per line of the text, as it prints */
/* clang-format off */
static const char usage_explain[] =
	"usage: tcsim explain --tc FILE [run options] [-v] [--trace FILE|- [--trace-filter EXPR]]\n"
	"                     --packet [K:]N CAPTURE...\n"
	"  --packet N       packet N (from 1) of the first capture; K:N = of capture K\n"
	"  -v, --verbose    also the instruction-level trace of every filter program run on it\n"
	"  --trace FILE     also write the trace of the whole run (see docs/trace.md); '-' = stdout\n"
	"  --trace-filter E trace only the packets the tcpdump expression E accepts\n"
	"run options, as tcsim run: --rate --overhead --mtu --txqueuelen --delay --dev --speed\n"
	"  --pps --mbps --topspeed --loop --limit --duration --priority --mark --vlan --seed\n"
	"  --kernel --sfq-allot --sfq-hash --timer-latency --var --force   (tcsim run --help)\n";
/* clang-format on */

static int x_parse_packet(const char *a, int *source, uint64_t *seq)
{
	const char *colon = strchr(a, ':');
	uint64_t k = 1;

	if (colon) {
		char kb[32];

		if ((size_t)(colon - a) >= sizeof(kb))
			return -1;
		memcpy(kb, a, (size_t)(colon - a));
		kb[colon - a] = 0;
		if (opt_parse_u64(kb, &k) || !k || k > SIM_MAX_SOURCES)
			return -1;
		a = colon + 1;
	}
	if (opt_parse_u64(a, seq) || !*seq)
		return -1;
	*source = (int)k - 1;
	return 0;
}

int explain_main(int argc, char **argv)
{
	enum { O_PACKET = 256, O_TRACE, O_TFILTER, O_HELP };
	static const struct option own[] = {
	    {"packet", required_argument, NULL, O_PACKET},
	    {"trace", required_argument, NULL, O_TRACE},
	    {"trace-filter", required_argument, NULL, O_TFILTER},
	    {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, O_HELP},
	    {NULL, 0, NULL, 0},
	};
	struct option longopts[48];
	struct run_opts opts;
	struct sim_config cfg;
	struct explain_opts xo = {.source = -1};
	struct sim s;
	struct trace *tr = NULL;
	char *xout = NULL;
	size_t xout_len = 0;
	FILE *xmem = NULL, *devnull;
	const char *tcfile = NULL, *trace_path = NULL, *trace_filter = NULL;
	char err[1024];
	int c, li = 0, rc = 1;

	run_opts_default(&opts);
	run_opts_longopts(longopts, sizeof(longopts) / sizeof(longopts[0]), own);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "v", longopts, &li)) != -1) {
		const char *a = optarg;
		int bad = 0, r = run_opts_apply(&opts, c, a);

		if (r < 0)
			bad = 1;
		else if (r == 0)
			switch (c) {
			case O_PACKET: bad = x_parse_packet(a, &xo.source, &xo.seq); break;
			case O_TRACE: trace_path = a; break;
			case O_TFILTER: trace_filter = a; break;
			case 'v': xo.verbose = 1; break;
			case O_HELP: fputs(usage_explain, stdout); return 0;
			default: return run_opts_unknown("explain", run_opts_bad_word(argc, argv));
			}
		if (bad)
			return run_opts_bad(&opts, "explain",
					    c == 'v' ? "verbose" : longopts[li].name, a);
	}
	cfg = opts.cfg;
	tcfile = opts.tcfile;
	if (!tcfile || optind >= argc || xo.source < 0) {
		fprintf(stderr, "tcsim explain: give --tc FILE, --packet [K:]N and at least one "
				"CAPTURE (tcsim explain --help)\n");
		return 2;
	}
	if (trace_filter && !trace_path) {
		fprintf(stderr, "tcsim explain: --trace-filter needs --trace FILE\n");
		return 2;
	}
	if (xo.source >= argc - optind) {
		fprintf(stderr, "tcsim: --packet %d:%llu: there %s only %d %s\n", xo.source + 1,
			(unsigned long long)xo.seq, argc - optind == 1 ? "is" : "are",
			argc - optind, argc - optind == 1 ? "capture" : "captures");
		return 1;
	}
	xo.label = argv[optind + xo.source];
	if (sim_init(&s, &cfg)) {
		fprintf(stderr, "tcsim: out of memory\n");
		return 1;
	}
	/* show commands of the tc file: explain prints only its account */
	devnull = fopen("/dev/null", "w");
	if (!devnull || tc_run_file_opts(&s, tcfile, &opts.script, devnull, err, sizeof(err))) {
		fprintf(stderr, "tcsim: %s\n", devnull ? err : strerror(errno));
		goto out;
	}
	if (run_opts_add_captures(&s, &opts, argv + optind, argc - optind, err, sizeof(err))) {
		fprintf(stderr, "tcsim: %s\n", err);
		goto out;
	}
	xmem = open_memstream(&xout, &xout_len);
	if (!xmem) {
		fprintf(stderr, "tcsim: out of memory\n");
		goto out;
	}
	if (trace_path && trace_open_path(&tr, &s, trace_path, trace_filter, err, sizeof(err))) {
		fprintf(stderr, "tcsim: %s\n", err);
		goto out;
	}
	/* explain's own trace joins the file's: each sees the packets it chose */
	if (explain_packet(&s, &xo, xmem, err, sizeof(err))) {
		fprintf(stderr, "tcsim: %s\n", err);
		goto out;
	}
	if (tr) {
		int r = trace_finish(tr, err, sizeof(err));

		tr = NULL;
		if (r) {
			fprintf(stderr, "tcsim: %s\n", err);
			goto out;
		}
	}
	fflush(xmem);
	fwrite(xout, 1, xout_len, stdout);
	rc = 0;
out:
	trace_close(tr);
	if (xmem)
		fclose(xmem);
	free(xout);
	if (devnull)
		fclose(devnull);
	sim_free(&s);
	return rc;
}

/* tcsim explain SCENARIO.lua --packet [K:]N [--sim NAME] [-v] [--seed N]:
 * the scenario runs (its own output discarded) and tells the story of
 * packet N of source K (from 1, in the order the scenario added them) of
 * the simulation named (or the first it creates). */
int cmd_explain_lua(int argc, char **argv)
{
	struct scenario_opts o = {0};
	int have_packet = 0;

	o.path = argv[1];
	o.quiet = 1;
	o.explain = 1;
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		int b = bound_opt(argc, argv, &i, &o, "tcsim explain");

		if (b < 0)
			return 2;
		if (b)
			continue;

		if ((!strcmp(a, "-v") || !strcmp(a, "--verbose"))) {
			o.explain_verbose = 1;
		} else if (!strcmp(a, "--packet") && i + 1 < argc) {
			/* the same [K:]N as the --tc form takes */
			if (x_parse_packet(argv[++i], &o.explain_source, &o.explain_seq))
				goto bad;
			have_packet = 1;
		} else if (!strcmp(a, "--sim") && i + 1 < argc) {
			o.explain_sim = argv[++i];
		} else if (!strcmp(a, "--seed") && i + 1 < argc &&
			   !opt_parse_u64(argv[i + 1], &o.seed)) {
			o.has_seed = 1;
			i++;
		} else {
			fprintf(
			    stderr,
			    "tcsim explain: '%s': a scenario takes --packet [K:]N, --sim NAME, -v "
			    "--seed N, --timeout T and --max-memory N\n",
			    a);
			return 2;
		}
		continue;
	bad:
		fprintf(stderr, "tcsim explain: --packet '%s': give N or K:N (from 1)\n", argv[i]);
		return 2;
	}
	if (!have_packet) {
		fprintf(stderr, "tcsim explain: which packet? (--packet [K:]N)\n");
		return 2;
	}
	return scenario_main(&o);
}
