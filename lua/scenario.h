/* scenario.h - Lua 5.4 scenarios: a script that builds simulations with
 * tc's own command lines, feeds them captures and synthetic traffic, runs
 * them (to the end, for a while, or step by step), reads their statistics
 * and checks expectations. The API is documented in docs/lua-api.md. */
#ifndef TCSIM_SCENARIO_H
#define TCSIM_SCENARIO_H

#include <stddef.h>
#include <stdint.h>

struct scenario_opts {
	const char *path;   /* the scenario file */
	int argc;           /* its arguments: the script's `arg` table */
	char **argv;
	int has_seed;       /* --seed: the default seed of tcsim.sim{} */
	uint64_t seed;
	const char *json;   /* write every simulation's results here ("-" = stdout) */
	/* regression check against stored results */
	const char *expect;       /* golden file to compare with */
	const char *write_golden; /* store the results as the golden */
	double tol_rel;           /* latency statistics: relative tolerance */
	uint64_t tol_abs_ns;      /* ... and absolute, in ns (either suffices) */
	int max_diff_lines;       /* 0 = all */
	int quiet;                /* check: the scenario's own printing is discarded */
	int kernel_check;         /* then compare its classification with the kernel's */
	int lint;                 /* then lint every simulation (tcsim lint SCENARIO) */
	int strict;               /* lint: exit 1 on warnings */
	int explain;              /* tcsim explain SCENARIO: tell one packet's story */
	int explain_source;       /* 0-based, in the simulation's sources */
	uint64_t explain_seq;
	int explain_verbose;
	const char *explain_sim;  /* the simulation's name, or NULL: the first */
};

/* Runs the scenario; returns the process exit code: 0 all well, 1 a
 * scenario error, a failed expectation or a difference from the golden,
 * 3 an accounting failure. Messages go to stderr. */
int scenario_main(const struct scenario_opts *o);

#endif
