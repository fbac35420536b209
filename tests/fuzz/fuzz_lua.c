/* fuzz_lua.c - the input as a Lua scenario, run by scenario_main as
 * `tcsim SCENARIO.lua` runs it, in the sandbox: no file written or removed,
 * no process run or ended, no __gc (see lua/sandbox.c), and bounded by a
 * Lua instruction and simulation event budget (clock-free, so an input
 * runs the same every time) and a Lua memory limit. Its printing and
 * messages are discarded.
 *
 * The script is named SCENARIOS/fuzz.lua, so the files it reads resolve
 * as a shipped scenario's do (captures/, filters/): SCENARIOS is
 * $TCSIM_FUZZ_SCENARIOS, else the repository's scenarios/ found from the
 * executable (BUILD/fuzz/NAME) or the working directory. */
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "scenario.h"

#define FUZZ_INSTRUCTIONS 2000000 /* about 20 ms of Lua */
#define FUZZ_EVENTS 200000
#define FUZZ_MEMORY (16u << 20) /* a hog reaches it in milliseconds, even under ASan */

static char scenario_path[PATH_MAX + 16];
static FILE *devnull;

static int is_dir(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *env = getenv("TCSIM_FUZZ_SCENARIOS");
	char dir[PATH_MAX], exe[PATH_MAX];
	ssize_t n;
	int fd;

	(void)argc;
	(void)argv;
	dir[0] = 0;
	if (env && is_dir(env))
		snprintf(dir, sizeof(dir), "%s", env);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (!dir[0] && n > 0) {
		char *slash;

		exe[n] = 0;
		for (int up = 0; up < 3 && (slash = strrchr(exe, '/')); up++)
			*slash = 0; /* BUILD/fuzz/NAME -> BUILD/.. */
		if (strlen(exe) + sizeof("/scenarios") <= sizeof(dir)) {
			snprintf(dir, sizeof(dir), "%s/scenarios", exe);
			if (!is_dir(dir))
				dir[0] = 0;
		}
	}
	if (!dir[0])
		snprintf(dir, sizeof(dir), "%s", is_dir("scenarios") ? "scenarios" : ".");
	snprintf(scenario_path, sizeof(scenario_path), "%s/fuzz.lua", dir);
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
	/* a tc bytecode-file /dev/stdin must not wait for a terminal */
	fd = open("/dev/null", O_RDONLY);
	if (fd < 0 || dup2(fd, 0) < 0)
		abort();
	close(fd);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scenario_opts o = {0};

	if (!devnull)
		LLVMFuzzerInitialize(NULL, NULL);
	o.path = scenario_path;
	o.text = (const char *)data;
	o.textlen = size;
	o.sandbox = 1;
	o.max_instructions = FUZZ_INSTRUCTIONS;
	o.max_events = FUZZ_EVENTS;
	o.max_memory = FUZZ_MEMORY;
	/* TCSIM_FUZZ_VERBOSE=1: see what an input does */
	o.out = getenv("TCSIM_FUZZ_VERBOSE") ? stdout : devnull;
	o.err = getenv("TCSIM_FUZZ_VERBOSE") ? stderr : devnull;
	scenario_main(&o);
	return 0;
}
