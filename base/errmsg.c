/* errmsg.c - one place to format error messages. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "utf8.h"
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
	size_t o = 0, n;
	const char *end;

	if (!err || !errlen)
		return;
	end = err + strlen(err);
	for (const unsigned char *p = (const unsigned char *)err; *p && o + 5 < sizeof(buf);
	     p += n) {
		n = utf8_len((const char *)p, (size_t)(end - (const char *)p));
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
