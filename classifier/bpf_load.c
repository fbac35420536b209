/* bpf_load.c - loaders for the ways tc takes a classic BPF program: the
 * bytecode string and bytecode file of iproute2's lib/bpf_legacy.c, and
 * tcpdump expressions compiled by libpcap. */
#include <ctype.h>
#include <errno.h>
#include <pcap/pcap.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "bpf_load.h"
#include "infile.h"

/* A scanf "%u"-style field: blanks, optional sign, decimal digits. Values
 * that do not fit `max` are refused (glibc's scanf would truncate them). */
static int scan_num(const char **sp, uint64_t max, int allow_neg, uint64_t *out,
		    int *neg_out)
{
	const char *s = *sp;
	uint64_t v = 0;
	int neg = 0, digits = 0;

	while (isspace((unsigned char)*s))
		s++;
	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	while (isdigit((unsigned char)*s)) {
		if (v <= 0xffffffffffull)
			v = v * 10 + (uint64_t)(*s - '0');
		s++;
		digits++;
	}
	if (!digits)
		return -1;
	*sp = s;
	*neg_out = neg;
	if (neg && !allow_neg)
		return -2;
	if (neg && v > 0x80000000ull && v != 0)
		return -2;
	if (neg) {
		*out = (uint32_t)(0u - (uint32_t)v);
		return 0;
	}
	if (v > max)
		return -2;
	*out = v;
	return 0;
}

int bpf_parse_bytecode(const char *str, const char *where, struct sock_filter **out,
		       uint32_t *len, char *err, size_t errlen)
{
	static const char *const field[] = {"code", "jt", "jf", "k"};
	static const uint64_t max[] = {0xffff, 0xff, 0xff, 0xffffffff};
	const char *s = str, *tok;
	struct sock_filter *insns;
	uint64_t n, v;
	uint32_t i = 0;
	int neg, r;

	*out = NULL;
	*len = 0;
	r = scan_num(&s, 0xffff, 0, &n, &neg);
	if (r == -2) {
		while (isspace((unsigned char)*str))
			str++;
		return errmsg(err, errlen, -EINVAL, "%s: instruction count %.*s: it must be 1..%d",
			      where, (int)(s - str), str, BPF_MAXINSNS);
	}
	if (r || *s != ',')
		return errmsg(err, errlen, -EINVAL,
			    "%s: bytecode must start with the instruction count and a comma (\"N,code jt jf k,...\")",
			    where);
	if (n == 0 || n > BPF_MAXINSNS)
		return errmsg(err, errlen, -EINVAL,
			    "%s: instruction count %llu: it must be 1..%d", where,
			    (unsigned long long)n, BPF_MAXINSNS);
	insns = calloc(n, sizeof(*insns));
	if (!insns)
		return errmsg(err, errlen, -ENOMEM, "%s: out of memory", where);
	tok = s;
	while ((tok = strchr(tok, ',')) && *++tok) {
		uint64_t f[4];

		if (i >= n) {
			free(insns);
			return errmsg(err, errlen, -EINVAL,
				    "%s: more instructions than the count %llu says", where,
				    (unsigned long long)n);
		}
		s = tok;
		for (int j = 0; j < 4; j++) {
			r = scan_num(&s, max[j], j == 3, &v, &neg);

			if (r == -1) {
				free(insns);
				return errmsg(err, errlen, -EINVAL,
					    "%s: instruction %u: expected four numbers \"code jt jf k\", %s missing",
					    where, i, field[j]);
			}
			if (r == -2) {
				free(insns);
				return errmsg(err, errlen, -EINVAL,
					    "%s: instruction %u: %s is out of range (at most %llu)",
					    where, i, field[j], (unsigned long long)max[j]);
			}
			f[j] = v;
		}
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s && *s != ',') {
			const char *e = strchr(s, ',');

			free(insns);
			return errmsg(err, errlen, -EINVAL,
				      "%s: instruction %u: \"%.*s\" after its four numbers \"code jt jf k\"",
				      where, i, e ? (int)(e - s) : (int)strlen(s), s);
		}
		insns[i].code = (uint16_t)f[0];
		insns[i].jt = (uint8_t)f[1];
		insns[i].jf = (uint8_t)f[2];
		insns[i].k = (uint32_t)f[3];
		i++;
	}
	if (i != n) {
		free(insns);
		return errmsg(err, errlen, -EINVAL,
			    "%s: the count says %llu instructions but %u follow", where,
			    (unsigned long long)n, i);
	}
	*out = insns;
	*len = (uint32_t)n;
	return 0;
}

int bpf_read_bytecode_file(const char *path, struct sock_filter **out, uint32_t *len,
			   char *err, size_t errlen)
{
	/* The same bound iproute2 puts on the normalised text. */
	const size_t limit = sizeof("4096,") + BPF_MAXINSNS * sizeof("65535 255 255 4294967295,");
	FILE *f;
	char *buf, last = 0;
	size_t n = 0;
	unsigned line = 1;
	const char *why;
	int c, ret = infile_open(&f, path, &why);

	*out = NULL;
	*len = 0;
	if (ret)
		return errmsg(err, errlen, ret, "%s: %s", path, why);
	buf = malloc(limit + 1);
	if (!buf) {
		fclose(f);
		return errmsg(err, errlen, -ENOMEM, "%s: out of memory", path);
	}
	/* Newlines become commas (never two in a row); blank runs collapse. */
	while ((c = fgetc(f)) != EOF) {
		if (c == 0) {
			free(buf);
			fclose(f);
			return errmsg(err, errlen, -EINVAL,
				      "%s:%u: a NUL byte: a bytecode file is text (a binary file?)", path, line);
		}
		line += c == '\n';
		if (c == '\n' || c == '\r') {
			if (last == ',' || n == 0)
				continue;
			c = ',';
		} else if (c == ' ' || c == '\t') {
			if (last == ' ')
				continue;
			c = ' ';
		}
		if (n == limit) {
			free(buf);
			fclose(f);
			return errmsg(err, errlen, -E2BIG, "%s: too long for a %d-instruction program",
				    path, BPF_MAXINSNS);
		}
		buf[n++] = (char)c;
		last = (char)c;
	}
	if (ferror(f)) {
		ret = errmsg(err, errlen, -EIO, "%s: read error", path);
		free(buf);
		fclose(f);
		return ret;
	}
	fclose(f);
	buf[n] = 0;
	ret = bpf_parse_bytecode(buf, path, out, len, err, errlen);
	free(buf);
	return ret;
}

int bpf_compile_expr(const char *expr, struct sock_filter **out, uint32_t *len,
		     char *err, size_t errlen)
{
	pcap_t *p = pcap_open_dead(DLT_EN10MB, BPF_TCPDUMP_SNAPLEN);
	struct bpf_program fp;
	int ret = 0;

	*out = NULL;
	*len = 0;
	if (!p)
		return errmsg(err, errlen, -ENOMEM, "expression: libpcap could not start");
	/* tcpdump: optimised, netmask 0 when the capture device has none. */
	if (pcap_compile(p, &fp, expr, 1, 0) < 0) {
		/* a long expression is cut, so that the rule stays in the message */
		int n = (int)strlen(expr);

		ret = errmsg(err, errlen, -EINVAL, "expression '%.*s%s': %s", n > 64 ? 60 : n, expr,
			     n > 64 ? "..." : "", pcap_geterr(p));
		errmsg_oneline(err, errlen); /* the expression may hold newlines */
		goto out;
	}
	*out = malloc(fp.bf_len * sizeof(**out));
	if (!*out) {
		ret = errmsg(err, errlen, -ENOMEM, "expression: out of memory");
	} else {
		for (u_int i = 0; i < fp.bf_len; i++) {
			(*out)[i].code = fp.bf_insns[i].code;
			(*out)[i].jt = fp.bf_insns[i].jt;
			(*out)[i].jf = fp.bf_insns[i].jf;
			(*out)[i].k = fp.bf_insns[i].k;
		}
		*len = fp.bf_len;
	}
	pcap_freecode(&fp);
out:
	pcap_close(p);
	return ret;
}

char *bpf_format_bytecode(const struct sock_filter *insns, uint32_t len)
{
	size_t cap = 16 + (size_t)len * 32, n;
	char *s = malloc(cap);

	if (!s)
		return NULL;
	n = (size_t)snprintf(s, cap, "%u", len);
	for (uint32_t i = 0; i < len; i++)
		n += (size_t)snprintf(s + n, cap - n, ",%u %u %u %u", insns[i].code, insns[i].jt,
				      insns[i].jf, insns[i].k);
	return s;
}
