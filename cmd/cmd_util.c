/* cmd_util.c - what several commands share: telling a scenario from a
 * command word, and the bounds (--timeout, --max-memory) every Lua form takes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "scenario.h"
#include "tc.h"

/* --timeout T: tc's time syntax (2s, 500ms; bare = seconds), above 0. */
int parse_timeout(const char *s, uint64_t *ns)
{
	return tc_get_time_ns(ns, s) || !*ns || *ns > UINT64_MAX / 4;
}

/* --max-memory N: bytes, or with K, M, G or T (powers of 1024; KiB, MB, ...
 * read the same), at least 1M: Lua's own libraries need some. */
int parse_size(const char *s, uint64_t *out)
{
	char *end;
	double v;
	uint64_t mul = 1;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !(v > 0))
		return -1;
	switch (*end) {
	case 'k':
	case 'K':
		mul = 1ull << 10;
		end++;
		break;
	case 'm':
	case 'M':
		mul = 1ull << 20;
		end++;
		break;
	case 'g':
	case 'G':
		mul = 1ull << 30;
		end++;
		break;
	case 't':
	case 'T':
		mul = 1ull << 40;
		end++;
		break;
	}
	if (mul > 1 && (!strcmp(end, "iB") || !strcmp(end, "B") || !strcmp(end, "b")))
		end += strlen(end);
	if (*end || v * (double)mul > 1e18 || v * (double)mul < (double)(1 << 20))
		return -1;
	*out = (uint64_t)(v * (double)mul);
	return 0;
}

/* The bounds every Lua form takes: 1 when argv[*i] was one (and its value
 * consumed), 0 when it is not one, -1 (after saying why) when bad. */
int bound_opt(int argc, char **argv, int *i, struct scenario_opts *o, const char *cmd)
{
	const char *a = argv[*i], *v;
	int timeout = !strcmp(a, "--timeout"), mem = !strcmp(a, "--max-memory");

	if (!timeout && !mem) {
		if (!strncmp(a, "--timeout=", 10))
			timeout = 1, v = a + 10;
		else if (!strncmp(a, "--max-memory=", 13))
			mem = 1, v = a + 13;
		else
			return 0;
	} else {
		if (*i + 1 >= argc) {
			fprintf(stderr, "%s: %s needs a value\n", cmd, a);
			return -1;
		}
		v = argv[++*i];
	}
	if (timeout && parse_timeout(v, &o->timeout_ns)) {
		fprintf(stderr,
			"%s: --timeout '%s': give a time above 0 (2s, 500ms; bare = seconds)\n",
			cmd, v);
		return -1;
	}
	if (mem && parse_size(v, &o->max_memory)) {
		fprintf(stderr,
			"%s: --max-memory '%s': give a size of 1M or more (bytes, or K, M, G)\n",
			cmd, v);
		return -1;
	}
	o->owns_process = 1;
	return 1;
}

int is_lua(const char *s)
{
	size_t n = strlen(s);

	return n > 4 && !strcmp(s + n - 4, ".lua");
}
