/* kernel_check.c - `tcsim kernel-check`: the --tc form over a tc file and captures,
 * and the Lua form over a scenario (kernel/kcheck.c does the work). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "infile.h"
#include "kcheck.h"
#include "run_opts.h"
#include "scenario.h"

static const char usage_kcheck[] =
    "usage: tcsim kernel-check --tc FILE [--dev NAME] [--htb|--tree] [--priority P] [--mark "
    "M|EXPR=M]... [--limit N] [-v] CAPTURE...\n"
    "  Runs the tc file and the captures through tcsim and through this kernel (root:\n"
    "  a private network namespace, a veth pair, the same filters, every frame sent\n"
    "  from a packet socket) and compares the per-class counts.\n"
    "  --dev NAME   the device the captures enter [the first one the tc file names]\n"
    "  --htb        always use the htb counting stand-in (compares classification)\n"
    "  --tree       always build the tc file's own qdisc tree (its kinds must exist)\n"
    "               [default: the tree if the kernel has its qdisc kinds, else htb]\n"
    "  --priority forward|N|X:Y  skb->priority of every frame, on both sides: a\n"
    "               router's (IPv4 TOS) or fixed, as in tcsim run [0, a packet socket's];\n"
    "               one naming a class of the root (X:Y, X its handle) needs the tree\n"
    "  --mark M|EXPR=M  skb->mark of the frames, on both sides, as in tcsim run: the\n"
    "               first rule whose tcpdump expression selects a frame gives its mark\n"
    "               (repeatable; the kernel's socket gets it with SO_MARK) [0]\n"
    "  --limit N    at most N packets of each capture\n"
    "  -v           also list the kernel's classes as read back\n"
    "exit: 0 same, 1 different, 2 usage, error or cannot run here\n";

int kcheck_main(int argc, char **argv)
{
	struct kcheck_opts o = {0};
	const char *tcfile = NULL, *devname = NULL;
	const char **caps;
	int ncaps = 0, rc;
	char err[1024], *text = NULL, *dir, *slash;
	size_t tlen = 0;
	FILE *f, *mem;
	const char *why;

	caps = calloc((size_t)argc + 1, sizeof(*caps));
	if (!caps)
		return 2;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage_kcheck, stdout);
			free(caps);
			return 0;
		} else if ((!strcmp(a, "--tc") || !strcmp(a, "--dev") || !strcmp(a, "--limit") ||
			    !strcmp(a, "--priority") || !strcmp(a, "--mark")) &&
			   i + 1 < argc) {
			const char *v = argv[++i];

			if (!strcmp(a, "--tc")) {
				tcfile = v;
			} else if (!strcmp(a, "--dev")) {
				devname = v;
			} else if (!strcmp(a, "--mark")) {
				char merr[512];

				if (mark_rules_parse(&o.marks, v, merr, sizeof(merr))) {
					fprintf(stderr, "tcsim kernel-check: --mark '%s': %s\n", v,
						merr);
					free(caps);
					return 2;
				}
			} else if (!strcmp(a, "--priority")) {
				enum prio_mode m = PRIO_FIXED;

				if (opt_parse_priority(v, &m, &o.priority)) {
					free(caps);
					return run_opts_bad_value("kernel-check", "priority", v);
				}
				o.prio_forward = m == PRIO_FORWARD;
			} else {
				char *end;

				errno = 0;
				o.limit = strtoull(v, &end, 10);
				if (errno || end == v || *end || !o.limit || *v == '-') {
					fprintf(stderr,
						"tcsim kernel-check: --limit '%s': not a positive "
						"number\n",
						v);
					free(caps);
					return 2;
				}
			}
		} else if (!strcmp(a, "--htb")) {
			o.mode = KCHECK_HTB;
		} else if (!strcmp(a, "--tree")) {
			o.mode = KCHECK_TREE;
		} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			o.verbose = 1;
		} else if (!strcmp(a, "--")) { /* the rest are captures, whatever their names */
			while (++i < argc)
				caps[ncaps++] = argv[i];
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr,
				"tcsim kernel-check: unknown option or missing value '%s'\n%s", a,
				usage_kcheck);
			free(caps);
			return 2;
		} else {
			caps[ncaps++] = a;
		}
	}
	if (!tcfile || !ncaps) {
		fprintf(stderr, "tcsim kernel-check: give --tc FILE and at least one CAPTURE\n%s",
			usage_kcheck);
		free(caps);
		return 2;
	}
	if (infile_open(&f, tcfile, &why)) {
		fprintf(stderr, "tcsim kernel-check: %s: cannot open: %s\n", tcfile, why);
		free(caps);
		return KCHECK_ERROR; /* 1 would read as "the kernel differs" */
	}
	mem = open_memstream(&text, &tlen);
	if (!mem) {
		fprintf(stderr, "tcsim kernel-check: %s: %s\n", tcfile, strerror(errno));
		fclose(f);
		free(text);
		free(caps);
		return 2;
	}
	for (int c; (c = getc(f)) != EOF;)
		putc(c, mem);
	fclose(f);
	fclose(mem);
	if (strlen(text) != tlen) { /* the script would end there, silently */
		int line = 1;

		for (const char *q = text; *q; q++)
			line += *q == '\n';
		fprintf(
		    stderr,
		    "tcsim kernel-check: %s:%d: a NUL byte: a tc script is text (a binary file?)\n",
		    tcfile, line);
		free(text);
		free(caps);
		return 1;
	}
	dir = strdup(tcfile);
	if (!dir) {
		free(text);
		free(caps);
		return 2;
	}
	slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir] = 0;
	rc = kernel_check(text, tcfile, slash ? dir : NULL, devname, caps, ncaps, &o, stdout, err,
			  sizeof(err));
	fflush(stdout);
	if (rc == KCHECK_CANNOT_RUN)
		fprintf(stderr, "tcsim kernel-check: cannot run here: %s\n", err);
	else if (rc == KCHECK_ERROR)
		fprintf(stderr, "tcsim kernel-check: %s\n", err);
	free(dir);
	free(text);
	free(caps);
	return rc == KCHECK_CANNOT_RUN ? 2 : rc;
}

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
