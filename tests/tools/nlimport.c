/* nlimport.c - `tcsim import`'s parser and writer (kernel/nl_dump.c,
 * nl_scenario.c) fed with recorded netlink messages instead of a live
 * dump: the lines "NLDUMP TAG HEX" of stdin whose TAG is the argument
 * (tests/qemu/nldump.c prints them in the qemu oracle's guest), each one
 * whole message in hex. Prints the scenario as `tcsim import` would (device
 * eth0, mtu 1500) and the omissions on stderr. Exit 0, 3 with omissions, 1
 * on an error (a message the parser refuses, no message).
 *
 *   nlimport TAG < RECORDING */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netlink.h>

#include "nl_import.h"

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int main(int argc, char **argv)
{
	struct nl_import_model m;
	struct nl_import_opts o = {.kernel = "6.1 (recorded)"};
	static char line[1 << 17];
	static unsigned char msg[1 << 16];
	char err[512], *text = NULL, *omitted = NULL, want[80];
	int n = 0, r;

	if (argc != 2) {
		fprintf(stderr, "usage: nlimport TAG < RECORDING\n");
		return 2;
	}
	snprintf(want, sizeof(want), "NLDUMP %s ", argv[1]);
	nl_import_model_init(&m, "eth0", 0);
	m.has_link = 1;
	m.mtu = 1500;
	m.txqueuelen = 1000;
	while (fgets(line, sizeof(line), stdin)) {
		size_t len = 0;
		const char *p;

		if (strncmp(line, want, strlen(want)))
			continue;
		for (p = line + strlen(want);
		     hexval(p[0]) >= 0 && hexval(p[1]) >= 0 && len < sizeof(msg); p += 2)
			msg[len++] = (unsigned char)(hexval(p[0]) << 4 | hexval(p[1]));
		if (len < sizeof(struct nlmsghdr) || ((struct nlmsghdr *)msg)->nlmsg_len != len) {
			fprintf(stderr, "nlimport: a message of %zu bytes that says otherwise\n",
				len);
			nl_import_model_free(&m);
			return 1;
		}
		r = nl_import_parse(&m, (const struct nlmsghdr *)msg, err, sizeof(err));
		if (r < 0) {
			fprintf(stderr, "nlimport: %s\n", err);
			nl_import_model_free(&m);
			return 1;
		}
		n++;
	}
	if (!n) {
		fprintf(stderr, "nlimport: no message tagged %s\n", argv[1]);
		nl_import_model_free(&m);
		return 1;
	}
	r = nl_import_write(&m, &o, &text, &omitted, err, sizeof(err));
	nl_import_model_free(&m);
	if (r < 0) {
		fprintf(stderr, "nlimport: %s\n", err);
		return 1;
	}
	fputs(text, stdout);
	fputs(omitted, stderr);
	free(text);
	free(omitted);
	return r ? 3 : 0;
}
