/* cmd.h - the commands of tcsim, one file each in cmd/, dispatched by
 * main.c: each takes its own argv (argv[0] = the command's name) and
 * returns the process's exit code. */
#ifndef TCSIM_CMD_H
#define TCSIM_CMD_H

#include <stdint.h>

struct scenario_opts;

/* tcsim run --tc FILE [device, replay, model and output options] CAPTURE...
 * (run.c) */
int cmd_sim_run(int argc, char **argv);

/* tcsim scenario SCENARIO.lua [--seed N] [--json OUT|-] [bounds] [-- ARGS...],
 * and tcsim SCENARIO.lua ... with argv[0] = anything (scenario.c) */
int cmd_scenario(int argc, char **argv);
/* tcsim check SCENARIO.lua --expect|--write-golden GOLDEN.json [options]
 * (scenario.c: one option table with the scenario form) */
int cmd_check(int argc, char **argv);

/* tcsim explain --tc FILE [run options] [-v] [--trace FILE|- [--trace-filter EXPR]]
 *              --packet [K:]N CAPTURE... (explain.c) */
int explain_main(int argc, char **argv);
/* tcsim explain SCENARIO.lua --packet [K:]N [--sim NAME] [-v] [--seed N] [bounds] */
int cmd_explain_lua(int argc, char **argv);

/* tcsim lint --tc FILE [--strict] [tcsim run's device and model options]
 * [CAPTURE... ignored]. Prints the warnings and a summary on stdout; exit
 * 0, or 1 with --strict when there are warnings; 2 on bad input (one line
 * on stderr, nothing on stdout). (lint.c) */
int lint_main(int argc, char **argv);
/* tcsim lint SCENARIO.lua [--strict] [--seed N] [bounds] */
int cmd_lint_lua(int argc, char **argv);

/* `tcsim kernel-check --tc FILE [--dev NAME] [--htb|--tree] [--limit N]
 * [-v] CAPTURE...`; argv[0] = "kernel-check". Exit code: 0 same, 1 differ,
 * 2 usage, error or cannot run here (the message says which). And the Lua
 * form, tcsim kernel-check SCENARIO.lua [--seed N] [bounds] (kernel_check.c). */
int kcheck_main(int argc, char **argv);
int cmd_kcheck_lua(int argc, char **argv);

/* `tcsim import ...` with argv[0] = "import". Exit status: 0 the scenario
 * reproduces everything; 3 it was printed but leaves something out (each
 * omission on stderr); 1 an error (nothing on stdout); 2 bad usage (import.c). */
int nl_import_main(int argc, char **argv);

/* tcsim bpf asm|disasm|check|run ...: argv[1] names the subcommand (bpf.c). */
int cmd_bpf(int argc, char **argv);

/* ---- shared (cmd_util.c) ---- */

/* 1 if the word names a scenario (ends in .lua) rather than a command. */
int is_lua(const char *s);

/* The bounds every Lua form takes (--timeout T, --max-memory N, also as
 * --opt=value): 1 when argv[*i] was one (and its value consumed), 0 when it
 * is not one, -1 (after saying why, as cmd) when bad. */
int bound_opt(int argc, char **argv, int *i, struct scenario_opts *o, const char *cmd);

/* --timeout T and --max-memory N as values: 0, or non-zero when bad. */
int parse_timeout(const char *s, uint64_t *ns);
int parse_size(const char *s, uint64_t *out);

#endif
