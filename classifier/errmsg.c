/* errmsg.c - one place to format error messages. */
#include <stdarg.h>
#include <stdio.h>

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

void errmsg_oneline(char *err, size_t errlen)
{
	char buf[2048];
	size_t o = 0;

	if (!err || !errlen)
		return;
	for (const unsigned char *p = (const unsigned char *)err; *p && o + 5 < sizeof(buf); p++) {
		if (*p >= 0x20 && *p != 0x7f) {
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
