/* main.c - the tcsim command line: the only code that knows every layer. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf.h"
#include "bpf_asm.h"
#include "bpf_load.h"
#include "capture.h"
#include "rng.h"
#include "report.h"
#include "run_opts.h"
#include "scenario.h"
#include "nl_import.h"
#include "kcheck.h"
#include "output.h"
#include "sim.h"
#include "source.h"
#include "tc.h"
#include "cmd.h"
#include "trace.h"

/* The Makefile passes `git describe` when built from git. */
#ifndef TCSIM_VERSION
#define TCSIM_VERSION "unknown"
#endif

static const char usage_top[] =
	"tcsim - a discrete-event simulator of Linux traffic control\n"
	"usage: tcsim SCENARIO.lua [--seed N] [--json OUT] [--timeout T] [--max-memory N]   (tcsim scenario --help)\n"
	"       tcsim check SCENARIO.lua --expect|--write-golden GOLDEN.json\n"
	"       tcsim run --tc FILE [options] CAPTURE...   (tcsim run --help)\n"
	"       tcsim kernel-check SCENARIO.lua | --tc FILE [--dev NAME] [--htb|--tree] CAPTURE...   (root)\n"
	"       tcsim lint SCENARIO.lua | --tc FILE [--strict] [run's device options]   (tcsim lint --help)\n"
	"       tcsim explain SCENARIO.lua | --tc FILE [run options] CAPTURE... [-v] --packet [K:]N\n"
	"       tcsim import dev DEV [--netns NAME] [--filters-only]   (tcsim import --help)\n"
	"       tcsim bpf asm|disasm|check|run ...       (tcsim bpf --help)\n"
	"       tcsim help [COMMAND]   tcsim --version   (man tcsim: every option, exit codes)\n";

/* ---- Lua scenarios ---- */

static const char usage_scenario[] =
	"usage: tcsim SCENARIO.lua [--seed N] [--json OUT|-] [--timeout T] [--max-memory N] [-- ARGS...]\n"
	"       tcsim check SCENARIO.lua --expect GOLDEN.json [--tolerance PCT] [--tolerance-ns N]\n"
	"                   [--max-lines N] [--seed N] [--quiet] [--timeout T] [--max-memory N]\n"
	"       tcsim check SCENARIO.lua --write-golden GOLDEN.json [--seed N] [--quiet] [bounds]\n"
	"  --seed N         the default seed of tcsim.sim{} (a seed the scenario gives wins)\n"
	"  --json OUT       every simulation's results, as JSON ('-' = stdout; the scenario's\n"
	"                   own output then goes to stderr)\n"
	"  --expect G       compare the results with G; list what differs; exit 1 if anything does\n"
	"  --write-golden G store the results as G\n"
	"  --tolerance PCT  latency statistics (delay_ns.*) may differ by PCT percent [0: exact];\n"
	"  --tolerance-ns N   ... or by N ns; counts always compare exactly\n"
	"  --max-lines N    print at most N differences\n"
	"  --quiet          check: discard the scenario's own printing\n"
	"  --timeout T      stop a scenario still running after T (2s, 500ms; bare = s), in Lua\n"
	"                   or in a simulation: one line on stderr, exit 124, no output written\n"
	"  --max-memory N   stop a scenario whose Lua memory (or, sampled, the process heap)\n"
	"                   passes N (bytes, or 256M, 1G): one line, exit 125, no output written\n"
	"The scenario API: docs/lua-api.md.\n";

static int cmd_scenario(int argc, char **argv, int check)
{
	enum { O_SEED = 256, O_JSON, O_EXPECT, O_WRITE, O_TOL, O_TOLNS, O_MAXL, O_QUIET, O_HELP, O_TIMEOUT,
	       O_MAXMEM };
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
		case O_EXPECT: o.expect = a; bad = !check; break;
		case O_WRITE: o.write_golden = a; bad = !check; break;
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
		case O_QUIET: o.quiet = 1; bad = !check; break;
		case O_TIMEOUT:
			bad = parse_timeout(a, &o.timeout_ns);
			break;
		case O_MAXMEM: bad = parse_size(a, &o.max_memory); break;
		case O_HELP: fputs(usage_scenario, stdout); return 0;
		default:
			fprintf(stderr, "tcsim: unknown option or missing value '%s' (tcsim check --help)\n",
				argv[optind - 1]);
			return 2;
		}
		if (bad) {
			fprintf(stderr, "tcsim: --%s%s%s: %s (tcsim check --help)\n", longopts[li].name, a ? " " : "",
				a ? a : "",
				check || c == O_SEED || c == O_TIMEOUT || c == O_MAXMEM ? "not a valid value"
										     : "belongs to tcsim check");
			return 2;
		}
	}
	if (optind < argc && !strcmp(argv[optind - 1], "--"))
		; /* the rest are the script's */
	else if (optind < argc) {
		fprintf(stderr, "tcsim: '%s': the scenario's own arguments go after --\n", argv[optind]);
		return 2;
	}
	if (check && !o.expect && !o.write_golden) {
		fprintf(stderr, "tcsim check: give --expect GOLDEN.json or --write-golden GOLDEN.json\n");
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

/* tcsim explain SCENARIO.lua --packet [K:]N [--sim NAME] [-v] [--seed N]:
 * the scenario runs (its own output discarded) and tells the story of
 * packet N of source K (from 1, in the order the scenario added them) of
 * the simulation named (or the first it creates). */
static int cmd_explain_lua(int argc, char **argv)
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
			const char *p = argv[++i], *colon = strchr(p, ':');
			uint64_t k = 1, n;
			char buf[64];

			if (colon) {
				snprintf(buf, sizeof(buf), "%.*s", (int)(colon - p), p);
				if (opt_parse_u64(buf, &k) || !k || k > SIM_MAX_SOURCES)
					goto bad;
				p = colon + 1;
			}
			if (opt_parse_u64(p, &n) || !n)
				goto bad;
			o.explain_source = (int)k - 1;
			o.explain_seq = n;
			have_packet = 1;
		} else if (!strcmp(a, "--sim") && i + 1 < argc) {
			o.explain_sim = argv[++i];
		} else if (!strcmp(a, "--seed") && i + 1 < argc && !opt_parse_u64(argv[i + 1], &o.seed)) {
			o.has_seed = 1;
			i++;
		} else {
			fprintf(stderr, "tcsim explain: '%s': a scenario takes --packet [K:]N, --sim NAME, -v "
					"--seed N, --timeout T and --max-memory N\n", a);
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

/* tcsim kernel-check SCENARIO.lua [--seed N]: the scenario runs (its own
 * output discarded), then each device's tc commands and traffic are
 * compared with the kernel's classification. */
static int cmd_kcheck_lua(int argc, char **argv)
{
	struct scenario_opts o = {0};

	o.path = argv[1];
	o.quiet = 1;
	o.kernel_check = 1;
	for (int i = 2; i < argc; i++) {
		int b = bound_opt(argc, argv, &i, &o, "tcsim kernel-check");

		if (b < 0)
			return 2;
		if (b)
			continue;
		if (!strcmp(argv[i], "--seed") && i + 1 < argc && !opt_parse_u64(argv[i + 1], &o.seed)) {
			o.has_seed = 1;
			i++;
			continue;
		}
		fprintf(stderr, "tcsim kernel-check: '%s': a scenario takes only --seed N, --timeout T "
				"and --max-memory N\n", argv[i]);
		return 2;
	}
	return scenario_main(&o);
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "bpf"))
		return cmd_bpf(argc - 1, argv + 1);
	if (argc >= 3 && !strcmp(argv[1], "explain") && is_lua(argv[2]))
		return cmd_explain_lua(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "explain"))
		return explain_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return cmd_sim_run(argc - 1, argv + 1);
	if (argc >= 3 && !strcmp(argv[1], "lint") && is_lua(argv[2]))
		return cmd_lint_lua(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "lint"))
		return lint_main(argc - 1, argv + 1);
	if (argc >= 3 && !strcmp(argv[1], "kernel-check") && is_lua(argv[2]))
		return cmd_kcheck_lua(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "kernel-check"))
		return kcheck_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "import"))
		return nl_import_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "check"))
		return cmd_scenario(argc - 1, argv + 1, 1);
	if (argc >= 2 && !strcmp(argv[1], "scenario"))
		return cmd_scenario(argc - 1, argv + 1, 0);
	if (argc >= 2 && is_lua(argv[1]))
		return cmd_scenario(argc, argv, 0);
	if (argc >= 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version"))) {
		printf("tcsim %s\n", TCSIM_VERSION);
		return 0;
	}
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help"))) {
		/* tcsim help CMD: that command's own --help */
		if (argc >= 3 && strcmp(argv[1], "help") == 0 && strcmp(argv[2], "help")) {
			char *hv[] = {argv[0], argv[2], "--help", NULL};

			return main(3, hv);
		}
		fputs(usage_top, stdout);
		return 0;
	}
	if (argc >= 2) {
		fprintf(stderr, "tcsim: '%s' is not a tcsim command or scenario (a scenario ends in .lua; tcsim help)\n",
			argv[1]);
		return 2;
	}
	fputs(usage_top, stderr);
	return 2;
}
