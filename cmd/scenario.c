/* scenario.c - running a Lua scenario (`tcsim SCENARIO.lua`, `tcsim
 * scenario`) and comparing its results with a golden file (`tcsim check`). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "run_opts.h"
#include "scenario.h"

/* one line of source per line of the text, as it prints */
/* clang-format off */
static const char usage_scenario[] =
	"usage: tcsim SCENARIO.lua [--seed N] [--json OUT|-] [--junit F] [--tap F|-] [--timeout T]\n"
	"                          [--max-memory N] [-- ARGS...]\n"
	"       tcsim check SCENARIO.lua --expect GOLDEN.json [--tolerance PCT] [--tolerance-ns N]\n"
	"                   [--max-lines N] [--seed N] [--quiet] [--junit F] [--tap F|-] [bounds]\n"
	"       tcsim check SCENARIO.lua --write-golden GOLDEN.json [--seed N] [--quiet] [bounds]\n"
	"  --seed N         the default seed of tcsim.sim{} (a seed the scenario gives wins)\n"
	"  --json OUT       every simulation's results, as JSON ('-' = stdout; the scenario's\n"
	"                   own output then goes to stderr)\n"
	"  --expect G       compare the results with G; list what differs; exit 1 if anything does\n"
	"  --write-golden G store the results as G (and made_with: this tcsim, the kernel mode)\n"
	"  --tolerance PCT  latency statistics (delay_ns.*) may differ by PCT percent [0: exact];\n"
	"  --tolerance-ns N   ... or by N ns; counts always compare exactly\n"
	"  --max-lines N    print at most N differences\n"
	"  --quiet          check: discard the scenario's own printing\n"
	"  --timeout T      stop a scenario still running after T (2s, 500ms; bare = s), in Lua\n"
	"                   or in a simulation: one line on stderr, exit 124, no output written\n"
	"  --max-memory N   stop a scenario whose Lua memory (or, sampled, the process heap)\n"
	"                   passes N (bytes, or 256M, 1G): one line, exit 125, no output written\n"
	"  --junit FILE     every check (each expectation, each difference from the golden, a\n"
	"                   Lua error) as a JUnit XML test case, for CI; written whole or not at all\n"
	"  --tap FILE|-     the same as TAP version 13 ('-' = stdout)\n"
	"The scenario API: docs/lua-api.md.\n";
/* clang-format on */

static int run_scenario(int argc, char **argv, int check)
{
	enum {
		O_SEED = 256,
		O_JSON,
		O_EXPECT,
		O_WRITE,
		O_TOL,
		O_TOLNS,
		O_MAXL,
		O_QUIET,
		O_HELP,
		O_TIMEOUT,
		O_MAXMEM,
		O_JUNIT,
		O_TAP
	};
	static const struct option longopts[] = {
	    {"seed", required_argument, NULL, O_SEED},
	    {"json", required_argument, NULL, O_JSON},
	    {"expect", required_argument, NULL, O_EXPECT},
	    {"write-golden", required_argument, NULL, O_WRITE},
	    {"tolerance", required_argument, NULL, O_TOL},
	    {"tolerance-ns", required_argument, NULL, O_TOLNS},
	    {"max-lines", required_argument, NULL, O_MAXL},
	    {"quiet", no_argument, NULL, O_QUIET},
	    {"help", no_argument, NULL, O_HELP},
	    {"timeout", required_argument, NULL, O_TIMEOUT},
	    {"max-memory", required_argument, NULL, O_MAXMEM},
	    {"junit", required_argument, NULL, O_JUNIT},
	    {"tap", required_argument, NULL, O_TAP},
	    {NULL, 0, NULL, 0},
	};
	struct scenario_opts o = {0};
	int c, li = 0;

	if (argc < 2 || argv[1][0] == '-') {
		if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
			fputs(usage_scenario, stdout);
			return 0;
		}
		fputs(usage_scenario, stderr);
		return 2;
	}
	o.path = argv[1];
	optind = 2;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+", longopts, &li)) != -1) {
		const char *a = optarg;
		int bad = 0;
		double d = 0;
		uint64_t u = 0;

		switch (c) {
		case O_SEED:
			bad = opt_parse_u64(a, &o.seed);
			o.has_seed = 1;
			break;
		case O_JSON: o.json = a; break;
		case O_EXPECT:
			o.expect = a;
			bad = !check;
			break;
		case O_WRITE:
			o.write_golden = a;
			bad = !check;
			break;
		case O_TOL:
			/* 0 is allowed: exact, as without the option */
			bad = !check || (strcmp(a, "0") && opt_parse_positive(a, &d)) || d > 1e6;
			o.tol_rel = d / 100.0;
			break;
		case O_TOLNS:
			bad = !check || opt_parse_u64(a, &u);
			o.tol_abs_ns = u;
			break;
		case O_MAXL:
			bad = !check || opt_parse_u64(a, &u) || u > 1000000;
			o.max_diff_lines = (int)u;
			break;
		case O_QUIET:
			o.quiet = 1;
			bad = !check;
			break;
		case O_TIMEOUT: bad = parse_timeout(a, &o.timeout_ns); break;
		case O_MAXMEM: bad = parse_size(a, &o.max_memory); break;
		case O_JUNIT: o.junit = a; break;
		case O_TAP: o.tap = a; break;
		case O_HELP: fputs(usage_scenario, stdout); return 0;
		default:
			fprintf(
			    stderr,
			    "tcsim: unknown option or missing value '%s' (tcsim check --help)\n",
			    argv[optind - 1]);
			return 2;
		}
		if (bad) {
			fprintf(stderr, "tcsim: --%s%s%s: %s (tcsim check --help)\n",
				longopts[li].name, a ? " " : "", a ? a : "",
				check || c == O_SEED || c == O_TIMEOUT || c == O_MAXMEM
				    ? "not a valid value"
				    : "belongs to tcsim check");
			return 2;
		}
	}
	if (optind < argc && !strcmp(argv[optind - 1], "--"))
		; /* the rest are the script's */
	else if (optind < argc) {
		fprintf(stderr, "tcsim: '%s': the scenario's own arguments go after --\n",
			argv[optind]);
		return 2;
	}
	if (check && !o.expect && !o.write_golden) {
		fprintf(stderr,
			"tcsim check: give --expect GOLDEN.json or --write-golden GOLDEN.json\n");
		return 2;
	}
	if (check && o.expect && o.write_golden) {
		fprintf(stderr, "tcsim check: --expect and --write-golden exclude each other\n");
		return 2;
	}
	o.argc = argc - optind;
	o.argv = argv + optind;
	o.owns_process = 1;
	return scenario_main(&o);
}

int cmd_scenario(int argc, char **argv)
{
	return run_scenario(argc, argv, 0);
}

/* check shares the scenario form's one option table and usage text: the
 * check options are known to both, so that a scenario given one is told
 * it belongs to tcsim check. */
int cmd_check(int argc, char **argv)
{
	return run_scenario(argc, argv, 1);
}
