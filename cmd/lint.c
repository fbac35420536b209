/* lint.c - `tcsim lint`: the command line of the policy lint (tc/lint.c
 * holds the checks), over a tc file or over a scenario's simulations. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "lint.h"
#include "run_opts.h"
#include "scenario.h"
#include "sim.h"
#include "tc.h"

/* one line of source per line of the text, as it prints */
/* clang-format off */
static const char usage_lint[] =
	"usage: tcsim lint --tc FILE [--strict] [tcsim run's device and model options] [CAPTURE...]\n"
	"  prints what the policy does that its author probably did not mean, one line each:\n"
	"  FILE:LINE: warning: WHAT; FIX   then a summary line\n"
	"  --strict         exit 1 when there are warnings (for CI) [exit 0]\n"
	"  --rate R, --overhead B, --mtu N, --txqueuelen N, --delay T, --dev NAME,\n"
	"  --kernel current|3.13, --sfq-allot units|bytes, --sfq-hash tuple|random, --seed N,\n"
	"  --timer-latency T, --var NAME=VALUE, --force:\n"
	"                   as tcsim run (a --rate in bps is bytes per second: a warning)\n"
	"  CAPTURE...       the traffic that enters the device (--dev, or the first the tc file\n"
	"                   names): read for the warnings that need packets (a protocol ip/ipv6\n"
	"                   filter in front of VLAN-tagged IPv4/IPv6)\n"
	"  the replay and output options of tcsim run are accepted (checked) and ignored\n"
	"exit: 0, 1 (--strict and warnings), 2 (bad input)\n";
/* clang-format on */

int lint_main(int argc, char **argv)
{
	enum { O_STRICT = 256, O_IGNORED_ARG, O_HELP };
	static const struct option own[] = {
	    {"strict", no_argument, NULL, O_STRICT},
	    /* tcsim run's output options: accepted, not used */
	    {"json", required_argument, NULL, O_IGNORED_ARG},
	    {"pcap-out", required_argument, NULL, O_IGNORED_ARG},
	    {"plot", required_argument, NULL, O_IGNORED_ARG},
	    {"plot-interval", required_argument, NULL, O_IGNORED_ARG},
	    {"trace", required_argument, NULL, O_IGNORED_ARG},
	    {"trace-filter", required_argument, NULL, O_IGNORED_ARG},
	    {"help", no_argument, NULL, O_HELP},
	    {NULL, 0, NULL, 0},
	};
	struct option longopts[48];
	struct run_opts opts;
	struct sim_config cfg;
	struct sim s;
	const char *tcfile = NULL, *rate = NULL, *devname = NULL;
	char err[1024], msg[256];
	char *shown = NULL;
	size_t shown_len = 0;
	FILE *devnull;
	int c, li = 0, strict = 0, nwarn = 0, ret;

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
			case O_STRICT: strict = 1; break;
			case O_IGNORED_ARG: break;
			case O_HELP: fputs(usage_lint, stdout); return 0;
			default: return run_opts_unknown("lint", run_opts_bad_word(argc, argv));
			}
		if (bad)
			return run_opts_bad(&opts, "lint", longopts[li].name, a);
	}
	cfg = opts.cfg;
	tcfile = opts.tcfile;
	rate = opts.rate;
	devname = opts.devname;
	if (!tcfile) {
		fprintf(stderr, "tcsim lint: give --tc FILE (tcsim lint --help)\n");
		return 2;
	}
	devnull = open_memstream(&shown, &shown_len); /* show commands print nothing */
	if (!devnull || sim_init(&s, &cfg)) {
		fprintf(stderr, "tcsim lint: out of memory\n");
		if (devnull)
			fclose(devnull);
		free(shown);
		return 2;
	}
	ret = tc_run_file_opts(&s, tcfile, &opts.script, devnull, err, sizeof(err));
	fclose(devnull);
	free(shown);
	if (ret) {
		fprintf(stderr, "tcsim lint: %s\n", err);
		sim_free(&s);
		return 2;
	}
	if (devname && !sim_dev_find(&s, devname)) {
		fprintf(stderr, "tcsim lint: --dev %s: %s configures no such device\n", devname,
			tcfile);
		sim_free(&s);
		return 2;
	}
	if (rate && lint_rate_word(rate, msg, sizeof(msg))) {
		printf("--rate: warning: %s\n", msg);
		nwarn++;
	}
	if (optind < argc) {
		struct lint_input *in = calloc((size_t)(argc - optind), sizeof(*in));
		const char *dev = devname ? devname : s.ndevs ? s.devs[0]->name : "";

		if (!in) {
			sim_free(&s);
			fprintf(stderr, "tcsim lint: out of memory\n");
			return 2;
		}
		for (int i = optind; i < argc; i++)
			in[i - optind] = (struct lint_input){.dev = dev, .capture = argv[i]};
		ret = lint_sim_traffic(&s, in, argc - optind, stdout, &nwarn, err, sizeof(err));
		free(in);
	} else {
		ret = lint_sim(&s, stdout, &nwarn);
	}
	sim_free(&s);
	if (ret) {
		fflush(stdout);
		fprintf(stderr, "tcsim lint: %s\n", ret == -EIO ? err : "out of memory");
		return 2;
	}
	lint_summary(stdout, tcfile, nwarn);
	return strict && nwarn ? 1 : 0;
}

/* tcsim lint SCENARIO.lua [--strict] [--seed N]: the scenario runs (its
 * own output discarded), then every simulation's policy is linted. */
int cmd_lint_lua(int argc, char **argv)
{
	struct scenario_opts o = {0};

	o.path = argv[1];
	o.quiet = 1;
	o.lint = 1;
	for (int i = 2; i < argc; i++) {
		int b = bound_opt(argc, argv, &i, &o, "tcsim lint");

		if (b < 0)
			return 2;
		if (b)
			continue;
		if (!strcmp(argv[i], "--strict")) {
			o.strict = 1;
			continue;
		}
		if (!strcmp(argv[i], "--seed") && i + 1 < argc &&
		    !opt_parse_u64(argv[i + 1], &o.seed)) {
			o.has_seed = 1;
			i++;
			continue;
		}
		fprintf(stderr,
			"tcsim lint: '%s': a scenario takes only --strict, --seed N, --timeout T "
			"and --max-memory N\n",
			argv[i]);
		return 2;
	}
	return scenario_main(&o);
}
