/* import.c - `tcsim import dev DEV [--netns NAME] [--filters-only]`:
 * kernel/nl_dump.c reads the device's traffic control from the kernel,
 * kernel/nl_scenario.c writes it as a Lua scenario; both say how. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "cmd.h"
#include "nl_import.h"

/* ---- tcsim import ---- */

static const char usage[] =
    "usage: tcsim import dev DEV [--netns NAME] [--filters-only]\n"
    "Reads DEV's qdiscs, classes and filters from the running kernel (rtnetlink;\n"
    "no privilege needed, but --netns needs CAP_SYS_ADMIN) and prints a tcsim\n"
    "scenario that rebuilds them: prio, sfq, pfifo, bfifo, pfifo_head_drop, htb\n"
    "with its classes, tbf, codel, fq_codel, netem, noqueue, and classic bpf, u32,\n"
    "matchall, fw, flower and basic filters on qdiscs and htb classes.\n"
    "What tcsim does not model is commented in the scenario and listed on stderr.\n"
    "  --netns NAME    the device of network namespace /run/netns/NAME\n"
    "  --filters-only  the root's filters only, under a prio root with its handle\n"
    "                  (to try a root's filter chain on its own)\n"
    "Exit status: 0 everything reproduced; 3 printed, with omissions on stderr;\n"
    "1 error (nothing printed); 2 usage.\n";

int nl_import_main(int argc, char **argv)
{
	struct nl_import_opts o = {0};
	struct nl_import_model m;
	struct utsname u;
	const char *dev = NULL;
	char err[768], *text = NULL, *omitted = NULL;
	int ret;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(a, "dev") && i + 1 < argc && !dev) {
			dev = argv[++i];
		} else if (!strcmp(a, "--netns") && i + 1 < argc && !o.netns) {
			o.netns = argv[++i];
		} else if (!strncmp(a, "--netns=", 8) && !o.netns) {
			o.netns = a + 8;
		} else if (!strcmp(a, "--filters-only")) {
			o.filters_only = 1;
		} else {
			fprintf(stderr, "tcsim import: unexpected \"%s\"\n%s", a, usage);
			return 2;
		}
	}
	if (!dev) {
		fprintf(stderr, "tcsim import: which device? (dev DEV)\n%s", usage);
		return 2;
	}
	if (!uname(&u))
		o.kernel = u.release;
	nl_import_model_init(&m, dev, 0);
	ret = nl_import_dump(&m, dev, o.netns, err, sizeof(err));
	if (!ret) {
		ret = nl_import_write(&m, &o, &text, &omitted, err, sizeof(err));
		if (ret >= 0) {
			const char *p = omitted;

			fputs(text, stdout);
			while (*p) {
				const char *nl = strchr(p, '\n');
				size_t len = nl ? (size_t)(nl - p) : strlen(p);

				fprintf(stderr, "tcsim import: %s: %.*s\n", dev, (int)len, p);
				p += len + (nl ? 1 : 0);
			}
			free(text);
			free(omitted);
			nl_import_model_free(&m);
			if (fflush(stdout)) {
				fprintf(stderr, "tcsim import: writing the scenario: %s\n",
					strerror(errno));
				return 1;
			}
			return ret ? 3 : 0;
		}
	}
	nl_import_model_free(&m);
	fprintf(stderr, "tcsim import: %s\n", err);
	return 1;
}
