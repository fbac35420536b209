/* main.c - the tcsim command line: finds the command a word names and hands
 * it the rest of argv; each command lives in its own file of cmd/ (cmd.h). */
#include <stdio.h>
#include <string.h>

#include "bpf.h"
#include "cmd.h"
#include "pktspill.h"
#include "version.h"

/* one line of source per line of the text, as it prints */
/* clang-format off */
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
/* clang-format on */

/* A command gets argv from its own name on. Some take a scenario in place
 * of their options (tcsim lint X.lua): lua, when the word after the
 * command ends in .lua. */
static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	int (*lua)(int argc, char **argv);
} commands[] = {
    {"run", cmd_sim_run, NULL},			   /* run.c */
    {"scenario", cmd_scenario, NULL},		   /* scenario.c */
    {"check", cmd_check, NULL},			   /* scenario.c */
    {"explain", explain_main, cmd_explain_lua},	   /* explain.c */
    {"lint", lint_main, cmd_lint_lua},		   /* lint.c */
    {"kernel-check", kcheck_main, cmd_kcheck_lua}, /* kernel_check.c */
    {"import", nl_import_main, NULL},		   /* import.c */
    {"bpf", cmd_bpf, NULL},			   /* bpf.c */
};

/* GNU order for the scenario forms: the first word from argv[from] on (up
 * to "--") that names a scenario is moved to argv[from], so that
 * `tcsim lint --strict X.lua` is `tcsim lint X.lua --strict`. Not when a
 * --tc names a tc file: then the command's tc form parses everything. 1
 * when a scenario was found. */
static int scenario_first(int argc, char **argv, int from)
{
	int at = -1;

	for (int i = from; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--tc") || !strncmp(argv[i], "--tc=", 5))
			return 0;
		if (at < 0 && argv[i][0] != '-' && is_lua(argv[i]))
			at = i;
	}
	if (at < 0)
		return 0;
	for (char *s = argv[at]; at > from; at--)
		argv[at] = argv[at - 1], argv[at - 1] = s;
	return 1;
}

int main(int argc, char **argv)
{
	char err[256];
	uint32_t after = 0;

	/* a bad JIT switch or spill threshold is the environment's fault: said
	 * once, up front */
	if (bpf_jit_enabled(err, sizeof(err)) < 0 ||
	    pkt_spill_after_env(&after, err, sizeof(err)) < 0) {
		fprintf(stderr, "tcsim: %s\n", err);
		return 2;
	}
	if (argc < 2) {
		fputs(usage_top, stderr);
		return 2;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		const struct command *c = &commands[i];

		if (strcmp(argv[1], c->name))
			continue;
		if (c->lua && scenario_first(argc, argv, 2))
			return c->lua(argc - 1, argv + 1);
		if (c->run == cmd_scenario || c->run == cmd_check)
			(void)scenario_first(argc, argv, 2);
		return c->run(argc - 1, argv + 1);
	}
	/* tcsim X.lua: the scenario form, argv[0] standing for its name */
	if (is_lua(argv[1]))
		return cmd_scenario(argc, argv);
	/* tcsim --seed 3 X.lua: options before the scenario */
	if (argv[1][0] == '-' && strcmp(argv[1], "--help") && strcmp(argv[1], "-h") &&
	    strcmp(argv[1], "--version") && scenario_first(argc, argv, 1))
		return cmd_scenario(argc, argv);
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("tcsim %s\n", tcsim_version());
		return 0;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		/* tcsim help CMD: that command's own --help */
		if (argc >= 3 && strcmp(argv[1], "help") == 0 && strcmp(argv[2], "help")) {
			char *hv[] = {argv[0], argv[2], "--help", NULL};

			return main(3, hv);
		}
		fputs(usage_top, stdout);
		return 0;
	}
	fprintf(stderr,
		"tcsim: '%s' is not a tcsim command or scenario "
		"(a scenario ends in .lua; tcsim help)\n",
		argv[1]);
	return 2;
}
