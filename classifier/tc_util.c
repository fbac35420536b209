/* tc_util.c - the words tc uses for classids and protocols, read and
 * printed as iproute2's tc_util.c and ll_proto.c do. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cls.h"

int tc_matches(const char *arg, const char *keyword)
{
	size_t n = strlen(arg);

	return n > 0 && n <= strlen(keyword) && !strncmp(arg, keyword, n);
}

/* One hex half of a classid: empty is 0; must be < 0x10000. */
static int hex_part(const char *s, size_t n, uint32_t *out)
{
	uint32_t v = 0;

	if (n > 8)
		return -1;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		int d = c >= '0' && c <= '9' ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;

		if (d < 0)
			return -1;
		v = v * 16 + (uint32_t)d;
	}
	if (v >= 0x10000)
		return -1;
	*out = v;
	return 0;
}

int tc_get_classid(uint32_t *out, const char *s)
{
	const char *colon = strchr(s, ':');
	uint32_t maj, min;
	char *end;

	if (!strcmp(s, "root")) {
		*out = TC_H_ROOT;
		return 0;
	}
	if (!strcmp(s, "none")) {
		*out = TC_H_UNSPEC;
		return 0;
	}
	if (!colon) {
		/* a bare hex number is the whole 32-bit value */
		unsigned long v;

		if (!*s)
			return -EINVAL;
		errno = 0;
		v = strtoul(s, &end, 16);
		if (errno || *end || v > 0xffffffffUL || *s == '-')
			return -EINVAL;
		*out = (uint32_t)v;
		return 0;
	}
	if (hex_part(s, (size_t)(colon - s), &maj) || hex_part(colon + 1, strlen(colon + 1), &min))
		return -EINVAL;
	*out = TC_H_MAKE(maj << 16, min);
	return 0;
}

void tc_print_classid(char *buf, size_t n, uint32_t h)
{
	if (h == TC_H_ROOT)
		snprintf(buf, n, "root");
	else if (h == TC_H_UNSPEC)
		snprintf(buf, n, "none");
	else if (TC_H_MAJ(h) == 0)
		snprintf(buf, n, ":%x", TC_H_MIN(h));
	else if (TC_H_MIN(h) == 0)
		snprintf(buf, n, "%x:", TC_H_MAJ(h) >> 16);
	else
		snprintf(buf, n, "%x:%x", TC_H_MAJ(h) >> 16, TC_H_MIN(h));
}

static const struct {
	const char *name;
	uint16_t id;
} protos[] = {
	{"all", 0x0003},     {"ip", 0x0800},	     {"ipv6", 0x86dd},	{"arp", 0x0806},
	{"802.1Q", 0x8100},  {"802.1ad", 0x88a8},    {"rarp", 0x8035},	{"ipx", 0x8137},
	{"802_3", 0x0001},   {"802_2", 0x0004},	     {"mpls_uc", 0x8847}, {"mpls_mc", 0x8848},
	{"pppoes", 0x8864},  {"pppoed", 0x8863},     {"lldp", 0x88cc},	{"loop", 0x0060},
};

int tc_get_protocol(uint16_t *out, const char *s)
{
	unsigned long v;
	char *end;

	for (size_t i = 0; i < sizeof(protos) / sizeof(protos[0]); i++)
		if (!strcasecmp(s, protos[i].name)) {
			*out = protos[i].id;
			return 0;
		}
	errno = 0;
	v = strtoul(s, &end, 0);
	if (!*s || errno || *end || v > 0xffff || *s == '-')
		return -EINVAL;
	*out = (uint16_t)v;
	return 0;
}

void tc_print_protocol(char *buf, size_t n, uint16_t proto)
{
	for (size_t i = 0; i < sizeof(protos) / sizeof(protos[0]); i++)
		if (protos[i].id == proto) {
			snprintf(buf, n, "%s", protos[i].name);
			return;
		}
	snprintf(buf, n, "[%u]", proto);
}
