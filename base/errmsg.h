/* errmsg.h - the project's error convention: a function returns a
 * negative errno and leaves a one-line message for its caller to print. */
#ifndef TCSIM_ERRMSG_H
#define TCSIM_ERRMSG_H

#include <stddef.h>

/* Formats the message into err (if any) and returns code. */
int errmsg(char *err, size_t errlen, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Keeps a message on one line and printable: control bytes (a newline
 * inside a quoted word) and bytes that are not well-formed UTF-8 become
 * \n, \r, \t or \xHH; truncated to errlen. */
void errmsg_oneline(char *err, size_t errlen);

#endif
