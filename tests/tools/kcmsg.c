/* kcmsg.c - the filter messages `tcsim kernel-check` sends, in a form that
 * can be compared with what iproute2's tc sends for the same line
 * (tests/kernel/kc_msg_tc.sh records tc's with strace):
 *   kcmsg --tc FILE   runs the tc file in a simulation and prints, for each
 *                     flower (and basic) filter on the root of its first
 *                     device, the RTM_NEWTFILTER kernel-check would send;
 *   kcmsg --raw --tc FILE  the same messages whole, one "KCMSG HEX" line
 *                     each (tests/qemu/nldump.c send installs them in the
 *                     qemu oracle's kernel);
 *   kcmsg --hex       reads the hex bytes of one netlink message (spaces and
 *                     newlines ignored) and prints it the same way.
 * One line per message: "pref P proto 0xPPPP handle 0xH KIND", then one
 * line per TCA_OPTIONS attribute, "  PATH=HEX", sorted by PATH: the
 * attribute numbers from TCA_OPTIONS down, joined by '.', nested ones
 * (basic's ematch tree) opened. The handle is left out with --hex when it
 * is 0 (tc lets the kernel pick it). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>

#undef TC_H_MAJ
#undef TC_H_MIN
#undef TC_H_MAKE
#undef TC_H_ROOT
#undef TC_H_UNSPEC

#include "cls.h"
#include "kc_cls.h"
#include "sim.h"
#include "tc.h"

#define MAXLINES 512

static char *lines[MAXLINES];
static int nlines;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* nested: the paths whose attributes hold attributes (basic's tree) */
static int is_nested(const char *kind, const char *path)
{
	return !strcmp(kind, "basic") && (!strcmp(path, "02") || !strcmp(path, "02.02"));
}

static void walk(const char *kind, const char *path, const uint8_t *p, int len)
{
	while (len >= 4) {
		uint16_t alen, type;
		char sub[64], *l;
		size_t k;

		memcpy(&alen, p, 2);
		memcpy(&type, p + 2, 2);
		if (alen < 4 || alen > len)
			break;
		snprintf(sub, sizeof(sub), "%s%s%02u", path, *path ? "." : "", type & 0x3fff);
		if (is_nested(kind, sub)) {
			walk(kind, sub, p + 4, alen - 4);
		} else if (nlines < MAXLINES && (l = malloc(strlen(sub) + 2 * alen + 8))) {
			k = (size_t)sprintf(l, "  %s=", sub);
			for (int i = 4; i < alen; i++)
				k += (size_t)sprintf(l + k, "%02x", p[i]);
			lines[nlines++] = l;
		}
		alen = (uint16_t)((alen + 3) & ~3);
		if (alen > len)
			break;
		p += alen;
		len -= alen;
	}
}

static void print_msg(const struct nlmsghdr *h, int with_handle)
{
	const struct tcmsg *t = nlmsg_data(h);
	struct nlattr *kind = nlmsg_find_attr((struct nlmsghdr *)h, sizeof(*t), TCA_KIND);
	struct nlattr *opts = nlmsg_find_attr((struct nlmsghdr *)h, sizeof(*t), TCA_OPTIONS);
	const char *k = kind ? nla_get_string(kind) : "?";

	printf("pref %u proto 0x%04x", t->tcm_info >> 16,
	       (unsigned)((t->tcm_info & 0xff) << 8 | (t->tcm_info >> 8 & 0xff)));
	if (with_handle || t->tcm_handle)
		printf(" handle 0x%x", t->tcm_handle);
	printf(" %s\n", k);
	nlines = 0;
	if (opts)
		walk(k, "", nla_data(opts), nla_len(opts));
	/* paths were printed with two digits per level so that they sort */
	qsort(lines, (size_t)nlines, sizeof(*lines), cmp_str);
	for (int i = 0; i < nlines; i++) {
		puts(lines[i]);
		free(lines[i]);
	}
}

static int from_hex(void)
{
	static uint8_t buf[65536];
	size_t n = 0;
	int c, hi = -1;

	while ((c = getchar()) != EOF && n < sizeof(buf)) {
		int v = isdigit(c) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;

		if (v < 0)
			continue;
		if (hi < 0) {
			hi = v;
		} else {
			buf[n++] = (uint8_t)(hi << 4 | v);
			hi = -1;
		}
	}
	if (n < sizeof(struct nlmsghdr) + sizeof(struct tcmsg)) {
		fprintf(stderr, "kcmsg: %zu bytes: not a tc message\n", n);
		return 1;
	}
	print_msg((const struct nlmsghdr *)buf, 0);
	return 0;
}

static int raw;

static int from_tc(const char *file)
{
	struct sim_config cfg;
	struct sim s;
	char err[1024], *text = NULL;
	size_t len = 0;
	FILE *f = fopen(file, "r"), *mem = open_memstream(&text, &len);
	int rc = 0;

	if (!f || !mem) {
		fprintf(stderr, "kcmsg: %s: cannot open\n", file);
		return 1;
	}
	for (int c; (c = getc(f)) != EOF;)
		putc(c, mem);
	fclose(f);
	fclose(mem);
	sim_config_default(&cfg);
	if (sim_init(&s, &cfg) || tc_run_script(&s, text, file, NULL, NULL, err, sizeof(err))) {
		fprintf(stderr, "kcmsg: %s\n", err);
		free(text);
		return 1;
	}
	for (const struct tcf_proto *tp = s.ndevs ? s.devs[0]->root->chain.head : NULL; tp;
	     tp = tp->next)
		for (size_t i = 0;; i++) {
			struct nl_msg *m = kc_cls_msg(1, s.devs[0]->root->handle, tp, i);

			if (!m)
				break;
			if (raw) {
				const unsigned char *b = (const unsigned char *)nlmsg_hdr(m);

				printf("KCMSG ");
				for (unsigned k = 0; k < nlmsg_hdr(m)->nlmsg_len; k++)
					printf("%02x", b[k]);
				printf("\n");
			} else {
				print_msg(nlmsg_hdr(m), 1);
			}
			nlmsg_free(m);
		}
	sim_free(&s);
	free(text);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--tc"))
		return from_tc(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "--raw") && !strcmp(argv[2], "--tc")) {
		raw = 1;
		return from_tc(argv[3]);
	}
	if (argc == 2 && !strcmp(argv[1], "--hex"))
		return from_hex();
	fprintf(stderr, "usage: kcmsg [--raw] --tc FILE | kcmsg --hex < BYTES\n");
	return 2;
}
