/* lint.h - `tcsim lint`: static warnings about a traffic-control policy
 * that the kernel accepts but that does not do what its author meant
 * (tc/lint.c has the list of checks, tc/lint_bpf.c the program analysis
 * they rest on and its limits, cmd/lint.c the command line).
 *
 * Every warning is one line, "FILE:LINE: warning: <what>; <fix>", where
 * FILE:LINE is the tc command that added the filter concerned. */
#ifndef TCSIM_LINT_H
#define TCSIM_LINT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bpf.h"

struct sim;

/* Lints every device of a configured simulation: prints one line per
 * warning to out, sorted by file and line, and adds their number to
 * *nwarnings (if not NULL). No summary line (lint_summary). 0, or -ENOMEM. */
int lint_sim(const struct sim *s, FILE *out, int *nwarnings);

/* The traffic lint reads (check 19): a capture and the device it enters. */
struct lint_input {
	const char *dev;
	const char *capture;
	const char *name; /* what warnings call it (NULL: the capture's path) */
};
/* lint_sim, and the checks that need the traffic too (lint_vlan.c). 0,
 * -ENOMEM, or -EIO with a one-line message in err (a capture it cannot read;
 * nothing printed then). */
int lint_sim_traffic(const struct sim *s, const struct lint_input *in, int nin, FILE *out,
		     int *nwarnings, char *err, size_t errlen);

/* "lint: NAME: no warnings" / "lint: NAME: 1 warning" / "... N warnings". */
void lint_summary(FILE *out, const char *name, int nwarnings);

/* A rate word in tc's units ("1mbps", Lua's rate = "..."): 1 and the
 * warning text (without "where: warning: ") in msg when it is given in
 * bytes per second (tc's bps), else 0. */
int lint_rate_word(const char *word, char *msg, size_t n);

/* ---- the program analysis (lint_bpf.c; exported for tests) ---- */

#define LINT_MAX_RETS 32

/* What a classic BPF program can return, found by walking its reachable
 * instructions with a small abstract interpretation: A, X and M[] are sets
 * of up to 8 constants or "anything"; a conditional jump that no value of
 * the set can take is not followed, and one that compares with a constant
 * narrows A on each side. */
struct lint_rets {
	uint32_t v[LINT_MAX_RETS]; /* the values some path returns, ascending (0 included) */
	int n;
	int computed;	      /* some reachable `ret a` returns a value not enumerated */
	uint32_t computed_pc; /* the first such instruction */
	int may_fault;	      /* some path can end at run time with 0 (a load past the
			       * packet's end, division by X = 0) */
};

/* 0, or -ENOMEM. insns need not have passed the checker: jumps out of the
 * program and falling off its end are not followed. */
int lint_prog_returns(const struct sock_filter *insns, uint32_t len, struct lint_rets *r);
/* 1 if v is among the values the program can return. */
int lint_rets_has(const struct lint_rets *r, uint32_t v);
/* 1 if the program returns non-zero on every path (a catch-all). */
int lint_rets_catch_all(const struct lint_rets *r);

/* ---- prio (lint.c; exported for tests) ---- */

/* prio_classify's rule for a classid from a filter: band TC_H_MIN - 1 when
 * that is below bands, whatever the major; -1 when prio falls back to
 * priomap[0] (minor 0 or beyond the bands). */
int lint_prio_band(uint32_t classid, int bands);

#endif
