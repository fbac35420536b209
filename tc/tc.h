/* tc.h - iproute2's `tc` for the simulation: qdisc, class and filter
 * commands applied with the kernel's rules (net/sched/sch_api.c,
 * cls_api.c), and the show commands in current tc's output format. */
#ifndef TCSIM_TC_H
#define TCSIM_TC_H

#include <stddef.h>
#include <stdio.h>

#include "sim.h"
#include "tcprint.h"

/* One tc command, already split into words, with or without the leading
 * "tc". `where` ("file:line") starts every error message; `basedir` is
 * where relative file names (bpf bytecode-file, asm-file) start, NULL for
 * the working directory. Show commands print to `out`. 0 or -errno with
 * a one-line message in err. A failed command leaves every qdisc and
 * filter as it was (a device it named may have been created). */
int tc_exec(struct sim *s, int argc, char **argv, const char *where, const char *basedir, FILE *out,
	    char *err, size_t errlen);

/* A script of tc commands: one per line, optional leading "tc", '#'
 * comments, '\' continuations, and single and double quotes grouping
 * words as a shell does (no expansions). Stops at the first error, which
 * names "name:line" and the word at fault. */
int tc_run_script(struct sim *s, const char *text, const char *name, const char *basedir, FILE *out,
		  char *err, size_t errlen);
/* The same, numbering the text's lines from first_line (a script embedded
 * in a larger file, such as a Lua scenario's string). */
int tc_run_script_at(struct sim *s, const char *text, const char *name, int first_line,
		     const char *basedir, FILE *out, char *err, size_t errlen);
/* The same for a file; relative file names inside start at its folder. */
int tc_run_file(struct sim *s, const char *path, FILE *out, char *err, size_t errlen);

/* How a script is run beyond that (tcsim run --var, --force): shell
 * variables and tc -force. With none (NULL), a $ a shell would expand is
 * an error naming it. */
#define TC_MAX_VARS 64
struct tc_script_opts {
	/* "NAME=VALUE" (--var): $NAME, ${NAME}, ${NAME:-default} and
	 * ${NAME-default} expand to VALUE; they win over the script's own
	 * NAME=VALUE lines, which win over the environment */
	const char *vars[TC_MAX_VARS + 1];
	int nvars;
	int environ; /* look names up in the environment too */
	/* tc -force -batch: a failing line is reported on stderr and the
	 * script goes on; failed counts them */
	int force;
	int failed;
};
/* tc_run_file with those; so may be NULL. */
int tc_run_file_opts(struct sim *s, const char *path, struct tc_script_opts *so, FILE *out,
		     char *err, size_t errlen);
/* tc_run_script with those; so may be NULL. */
int tc_run_script_opts(struct sim *s, const char *text, const char *name, const char *basedir,
		       struct tc_script_opts *so, FILE *out, char *err, size_t errlen);
/* 1 when w is NAME=VALUE with a shell variable's NAME (the --var form). */
int tc_is_assignment(const char *w, size_t len);

/* tc [-s] qdisc show dev D, tc [-s] class show dev D, tc filter show dev D */
void tc_show_qdisc(const struct dev *d, FILE *out, int stats);
void tc_show_class(const struct dev *d, FILE *out, int stats);
void tc_show_filter(const struct dev *d, FILE *out);

/* What a show command selects and how it prints (tc_show.c). */
struct tc_show_opts {
	int stats, details;
	int with_dev;	/* no "dev D" given: lines name the device */
	int invisible;	/* tc qdisc show ... invisible */
	int has_parent; /* "parent P" or "root" given */
	uint32_t parent;
	int has_handle; /* tc qdisc show ... handle H, tc class show ... classid C */
	uint32_t handle;
	uint32_t pref;	   /* tc filter show ... pref N (0: all) */
	uint16_t protocol; /* ... protocol P (0: all) */
	int has_chain;	   /* ... chain 0 */
	/* tc -j: JSON as iproute2 6.1 prints it (-p: pretty); classes stay text,
	 * as 6.1's. pr: print through this printer, inside the JSON array its
	 * caller opened (several devices); NULL: a printer of its own on out. */
	int json, pretty;
	struct tcprint *pr;
	int class_json; /* classes as JSON too (later iproute2's shape) */
};
void tc_show_qdisc_opts(const struct dev *d, FILE *out, const struct tc_show_opts *o);
void tc_show_class_opts(const struct dev *d, FILE *out, const struct tc_show_opts *o);
/* 0, or -EMSGSIZE when the kernel's dump would stop early (an fw filter
 * without a table): what was printed is what tc prints before it fails. */
int tc_show_filter_opts(const struct dev *d, FILE *out, const struct tc_show_opts *o);
/* tcsim run --tc-json: {"qdisc": [...], "class": [...], "filter": [...]}, each
 * array what `tc -s -j qdisc|class|filter show` prints for every device
 * (iproute2 6.1's shape; classes in later iproute2's, as 6.1 has none) */
void tc_show_json(const struct sim *s, FILE *out, int pretty);

#endif
