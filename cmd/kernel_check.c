/* kernel_check.c - `tcsim kernel-check SCENARIO.lua`: the Lua form; the
 * --tc form is kcheck_main in kernel/kcheck.c. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "run_opts.h"
#include "scenario.h"

/* tcsim kernel-check SCENARIO.lua [--seed N]: the scenario runs (its own
 * output discarded), then each device's tc commands and traffic are
 * compared with the kernel's classification. */
int cmd_kcheck_lua(int argc, char **argv)
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
		if (!strcmp(argv[i], "--seed") && i + 1 < argc &&
		    !opt_parse_u64(argv[i + 1], &o.seed)) {
			o.has_seed = 1;
			i++;
			continue;
		}
		fprintf(stderr,
			"tcsim kernel-check: '%s': a scenario takes only --seed N, --timeout T "
			"and --max-memory N\n",
			argv[i]);
		return 2;
	}
	return scenario_main(&o);
}
