/* json_priv.h - the layout of a parsed JSON value and the growable buffer,
 * shared by the reader, the tree and the diff (report/json_*.c). Not a
 * public API: everyone else goes through json.h. */
#ifndef TCSIM_JSON_PRIV_H
#define TCSIM_JSON_PRIV_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

struct json_member {
	char *key;
	size_t klen;
	struct json *v;
};

struct json {
	enum json_type type;
	union {
		int b;
		struct {
			char *text;
			double d;
			int64_t i;
			int is_int;
		} num;
		struct {
			char *s;
			size_t len;
		} str;
		struct {
			struct json **v;
			size_t n;
		} arr;
		struct {
			struct json_member *m;
			size_t n;
		} obj;
	} u;
};

/* Member names may hold \u0000, so they compare by length and bytes. */
static inline int same_key(const struct json_member *m, const char *k, size_t n)
{
	return m->klen == n && !memcmp(m->key, k, n);
}

/* A growable byte buffer, always NUL-terminated. Inline, so that these
 * short names stay out of libtcsim's symbols. */
struct buf {
	char *s;
	size_t len, cap;
};

static inline int buf_grow(struct buf *b, size_t more)
{
	size_t cap = b->cap ? b->cap : 32;
	char *s;

	if (b->len + more + 1 <= b->cap)
		return 0;
	while (cap < b->len + more + 1)
		cap *= 2;
	s = realloc(b->s, cap);
	if (!s)
		return -1;
	b->s = s;
	b->cap = cap;
	return 0;
}

static inline int buf_add(struct buf *b, const void *p, size_t n)
{
	if (buf_grow(b, n))
		return -1;
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
	return 0;
}

static inline int buf_addc(struct buf *b, char c)
{
	return buf_add(b, &c, 1);
}

#endif
