/* utf8.h - well-formed UTF-8, as RFC 3629 defines it: what error messages
 * keep, what tc accepts in a device name, what JSON output writes. */
#ifndef TCSIM_UTF8_H
#define TCSIM_UTF8_H

#include <stddef.h>

/* The length (1 to 4) of the well-formed UTF-8 sequence at the start of
 * the n bytes at s, or 0 if there is none: a stray continuation byte, an
 * overlong form, a surrogate, a code point above U+10FFFF, a sequence cut
 * by the end, or n == 0. */
static inline size_t utf8_len(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned char c, lo = 0x80, hi = 0xbf;
	size_t k;

	if (!n)
		return 0;
	c = p[0];
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		k = 2;
	else if (c >= 0xe0 && c <= 0xef)
		k = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		k = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (n < k || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < k; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return k;
}

#endif
