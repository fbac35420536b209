/* run_opts.h - the options `tcsim run`, `tcsim explain` and `tcsim lint`
 * share, parsed in one place: the tc file, the device (rate, overhead,
 * mtu, txqueuelen, delay, dev), the replay (tcpreplay's words, priority, mark,
 * vlan), the model (seed, kernel, sfq allot and hash, timer latency) and
 * the script (--var, --force). A command lists
 * its own options after these (run_opts_longopts) and hands every getopt
 * code to run_opts_apply first. */
#ifndef TCSIM_RUN_OPTS_H
#define TCSIM_RUN_OPTS_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>

#include "sim.h"
#include "source.h"
#include "tc.h"

/* getopt codes from here up are the shared options; commands use 256.. */
#define RUN_OPT_FIRST 0x1000

struct run_opts {
	struct sim_config cfg;
	struct replay_opts ro;
	const char *tcfile;	      /* --tc */
	const char *devname;	      /* --dev */
	const char *rate;	      /* --rate as written (lint reads the units) */
	struct tc_script_opts script; /* --var, --force; the environment's variables */
	char why[320];		      /* why run_opts_apply refused a value, when it can say more */
};
void run_opts_default(struct run_opts *o);

/* The shared options followed by `extra` (ending with a zero entry), into
 * out[cap]; 0, or -1 when cap is too small. */
int run_opts_longopts(struct option *out, size_t cap, const struct option *extra);

/* 1: c is a shared option and its value was taken; 0: not one of them;
 * -1: one of them with a value it does not take. */
int run_opts_apply(struct run_opts *o, int c, const char *arg);

/* Whole numbers and positive reals, as the command lines take them. */
int opt_parse_u64(const char *s, uint64_t *out);
int opt_parse_positive(const char *s, double *out);
/* --priority forward|N|X:Y (N decimal or 0x hex, X:Y a classid); 0 or -1. */
int opt_parse_priority(const char *s, enum prio_mode *mode, uint32_t *prio);

/* The captures, each a source on --dev (or the first device the tc file
 * made), with the replay options. 0, or -errno with a one-line message. */
int run_opts_add_captures(struct sim *s, const struct run_opts *o, char *const *paths, int n,
			  char *err, size_t errlen);

/* The two ways a command's option is wrong, said in one line on stderr
 * (naming the command's --help); both return 2, the usage exit code. */
int run_opts_unknown(const char *cmd, const char *word);
/* The word getopt_long just refused: in a cluster of short options (-odd)
 * it has not moved past it yet, and with GNU's reordering the word before
 * optind is then another one. */
const char *run_opts_bad_word(int argc, char **argv);
int run_opts_bad_value(const char *cmd, const char *name, const char *value);
/* run_opts_bad_value, or the reason run_opts_apply left in o->why. */
int run_opts_bad(const struct run_opts *o, const char *cmd, const char *name, const char *value);

#endif
