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
	const char *junit;        /* every check as JUnit XML here */
	const char *tap;          /* ... and as TAP 13 ("-" = stdout) */
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
	/* Bounds (0 = none). A scenario that reaches one stops with one line on
	 * the error stream and SCENARIO_EXIT_TIMEOUT or SCENARIO_EXIT_MEMORY;
	 * it writes none of its outputs. */
	uint64_t timeout_ns;       /* --timeout: wall clock, in Lua and in the simulation alike */
	uint64_t max_memory;       /* --max-memory: bytes the Lua allocator may hold (and the
				    * process heap, sampled, when not under a sanitizer) */
	uint64_t max_instructions; /* Lua instructions (and 64 bytes allocated = 1): a clock-free bound (fuzzing) */
	uint64_t max_events;       /* simulation events, over all its runs: ditto */
	int owns_process;          /* tcsim itself, not a test or a fuzzer: --timeout also ends the
				    * process (SIGALRM) when the scenario is stuck where it cannot
				    * be stopped, and --max-memory also samples the process heap
				    * (see bounds.c) */
	int sandbox;               /* a hostile script: no file written or deleted, no process
				    * run or exited, no reading of devices (fuzzing) */
	FILE *out;                 /* the scenario's own printing [stdout] */
	FILE *err;                 /* messages [stderr] */
	const char *text;          /* the script itself, when not read from path (which then only
				    * names it and its folder) */
	size_t textlen;
};

#define SCENARIO_EXIT_TIMEOUT 124 /* as timeout(1) */
#define SCENARIO_EXIT_MEMORY 125

/* Runs the scenario; returns the process exit code: 0 all well, 1 a
 * scenario error, a failed expectation or a difference from the golden,
 * 3 an accounting failure. Messages go to stderr. */
int scenario_main(const struct scenario_opts *o);

#endif
