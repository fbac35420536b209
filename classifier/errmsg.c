/* errmsg.c - one place to format error messages. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "errmsg.h"

int errmsg(char *err, size_t errlen, int code, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}

/* The length of the well-formed UTF-8 sequence at p (1 to 4), or 0. */
static size_t utf8_len(const unsigned char *p)
{
	size_t n = p[0] < 0x80			 ? 1
		   : p[0] >= 0xc2 && p[0] < 0xe0 ? 2
		   : p[0] >= 0xe0 && p[0] < 0xf0 ? 3
		   : p[0] >= 0xf0 && p[0] < 0xf5 ? 4
						 : 0;

	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	/* overlong 3/4-byte forms, surrogates, beyond U+10FFFF */
	if ((n == 3 && p[0] == 0xe0 && p[1] < 0xa0) || (n == 3 && p[0] == 0xed && p[1] >= 0xa0) ||
	    (n == 4 && p[0] == 0xf0 && p[1] < 0x90) || (n == 4 && p[0] == 0xf4 && p[1] >= 0x90))
		return 0;
	return n;
}

void errmsg_oneline(char *err, size_t errlen)
{
	char buf[2048];
	size_t o = 0, n;

	if (!err || !errlen)
		return;
	for (const unsigned char *p = (const unsigned char *)err; *p && o + 5 < sizeof(buf);
	     p += n) {
		n = utf8_len(p);
		if (n > 1 && o + n < sizeof(buf)) {
			memcpy(buf + o, p, n);
			o += n;
			continue;
		}
		n = 1;
		if (*p >= 0x20 && *p < 0x7f) {
			buf[o++] = (char)*p;
			continue;
		}
		buf[o++] = '\\';
		switch (*p) {
		case '\n': buf[o++] = 'n'; break;
		case '\r': buf[o++] = 'r'; break;
		case '\t': buf[o++] = 't'; break;
		default: o += (size_t)snprintf(buf + o, 4, "x%02x", *p); break;
		}
	}
	buf[o] = 0;
	snprintf(err, errlen, "%s", buf);
}
