/* json_read.c - the strict JSON reader: recursive descent, depth-limited,
 * building the tree of json_priv.h; json_parse and json_parse_file. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "infile.h"
#include "json.h"
#include "json_priv.h"
#include "utf8.h"

/* ---- parser ----------------------------------------------------------- */

struct parser {
	const char *s, *p, *end;
	int depth;
	char *err;
	size_t errlen;
};

static int fail(struct parser *ps, const char *at, const char *fmt, ...)
{
	int line = 1, col = 1;
	size_t n;
	va_list ap;

	if (!ps->err || !ps->errlen)
		return -1;
	for (const char *q = ps->s; q < at && q < ps->end; q++) {
		if (*q == '\n') {
			line++;
			col = 1;
		} else if (((unsigned char)*q & 0xc0) != 0x80) {
			col++;
		}
	}
	snprintf(ps->err, ps->errlen, "line %d, column %d: ", line, col);
	n = strlen(ps->err);
	va_start(ap, fmt);
	vsnprintf(ps->err + n, ps->errlen - n, fmt, ap);
	va_end(ap);
	if (at >= ps->end) {
		n = strlen(ps->err);
		snprintf(ps->err + n, ps->errlen - n, " (end of input)");
	}
	return -1;
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end &&
	       (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static struct json *new_value(enum json_type t)
{
	struct json *v = calloc(1, sizeof(*v));

	if (v)
		v->type = t;
	return v;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The 4 hex digits after "\u" at p (which points at the backslash). */
static long read_u4(struct parser *ps, const char *p)
{
	long v = 0;

	if (ps->end - p < 6)
		return -1;
	for (int i = 2; i < 6; i++) {
		int h = hexval((unsigned char)p[i]);

		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

static int put_utf8(struct buf *b, unsigned long cp)
{
	char u[4];
	size_t n;

	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | cp >> 6);
		u[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | cp >> 12);
		u[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | cp >> 18);
		u[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		u[2] = (char)(0x80 | (cp >> 6 & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	return buf_add(b, u, n);
}

/* A string at ps->p (the opening quote) into a NUL-terminated buffer. */
static int parse_string(struct parser *ps, struct buf *b)
{
	const char *open = ps->p++;

	b->len = 0;
	if (buf_grow(b, 0))
		return fail(ps, open, "out of memory");
	b->s[0] = '\0';
	for (;;) {
		const char *run = ps->p;
		unsigned char c;

		while (ps->p < ps->end && (unsigned char)*ps->p >= 0x20 && *ps->p != '"' &&
		       *ps->p != '\\' && (unsigned char)*ps->p < 0x80)
			ps->p++;
		if (ps->p > run && buf_add(b, run, (size_t)(ps->p - run)))
			return fail(ps, open, "out of memory");
		if (ps->p >= ps->end)
			return fail(ps, open, "unterminated string");
		c = (unsigned char)*ps->p;
		if (c == '"') {
			ps->p++;
			return 0;
		}
		if (c < 0x20)
			return fail(ps, ps->p,
				    "control character U+%04X in a string must be escaped", c);
		if (c >= 0x80) {
			size_t n = utf8_len(ps->p, (size_t)(ps->end - ps->p));

			if (!n)
				return fail(ps, ps->p, "invalid UTF-8 in a string");
			if (buf_add(b, ps->p, n))
				return fail(ps, open, "out of memory");
			ps->p += n;
			continue;
		}
		/* an escape */
		if (ps->end - ps->p < 2)
			return fail(ps, open, "unterminated string");
		switch (ps->p[1]) {
		case '"': c = '"'; break;
		case '\\': c = '\\'; break;
		case '/': c = '/'; break;
		case 'b': c = '\b'; break;
		case 'f': c = '\f'; break;
		case 'n': c = '\n'; break;
		case 'r': c = '\r'; break;
		case 't': c = '\t'; break;
		case 'u': {
			long cp = read_u4(ps, ps->p), lo;

			if (cp < 0)
				return fail(ps, ps->p, "expected four hex digits after '\\u'");
			if (cp >= 0xdc00 && cp <= 0xdfff)
				return fail(ps, ps->p, "lone low surrogate \\u%04lX", cp);
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (ps->end - ps->p < 12 || ps->p[6] != '\\' || ps->p[7] != 'u' ||
				    (lo = read_u4(ps, ps->p + 6)) < 0xdc00 || lo > 0xdfff)
					return fail(ps, ps->p,
						    "lone high surrogate \\u%04lX (a low surrogate "
						    "\\uDC00-\\uDFFF must follow)",
						    cp);
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				ps->p += 6;
			}
			if (put_utf8(b, (unsigned long)cp))
				return fail(ps, open, "out of memory");
			ps->p += 6;
			continue;
		}
		default:
			if ((unsigned char)ps->p[1] > 0x20 && (unsigned char)ps->p[1] < 0x7f)
				return fail(ps, ps->p, "invalid escape '\\%c' in a string",
					    ps->p[1]);
			return fail(ps, ps->p, "invalid escape in a string");
		}
		if (buf_addc(b, (char)c))
			return fail(ps, open, "out of memory");
		ps->p += 2;
	}
}

static int is_digit(const struct parser *ps, const char *p)
{
	return p < ps->end && *p >= '0' && *p <= '9';
}

static int parse_number(struct parser *ps, struct json **out)
{
	const char *start = ps->p, *p = ps->p;
	int integer = 1;
	struct json *v;
	size_t n;

	if (*p == '-')
		p++;
	if (!is_digit(ps, p))
		return fail(ps, p, "expected a digit after '-'");
	if (*p == '0') {
		if (is_digit(ps, p + 1))
			return fail(ps, p, "leading zeros are not allowed in a number");
		p++;
	} else {
		while (is_digit(ps, p))
			p++;
	}
	if (p < ps->end && *p == '.') {
		integer = 0;
		if (!is_digit(ps, ++p))
			return fail(ps, p, "expected a digit after '.' in a number");
		while (is_digit(ps, p))
			p++;
	}
	if (p < ps->end && (*p == 'e' || *p == 'E')) {
		integer = 0;
		p++;
		if (p < ps->end && (*p == '+' || *p == '-'))
			p++;
		if (!is_digit(ps, p))
			return fail(ps, p, "expected a digit in the exponent of a number");
		while (is_digit(ps, p))
			p++;
	}
	n = (size_t)(p - start);
	v = new_value(JSON_NUMBER);
	if (!v || !(v->u.num.text = malloc(n + 1))) {
		free(v);
		return fail(ps, start, "out of memory");
	}
	memcpy(v->u.num.text, start, n);
	v->u.num.text[n] = '\0';
	v->u.num.d = strtod(v->u.num.text, NULL);
	if (integer) {
		const char *q = v->u.num.text;
		int neg = *q == '-';
		uint64_t m = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;

		v->u.num.is_int = 1;
		for (q += neg; *q; q++) {
			unsigned d = (unsigned)(*q - '0');

			if (m > (lim - d) / 10) {
				v->u.num.is_int = 0;
				break;
			}
			m = m * 10 + d;
		}
		if (v->u.num.is_int)
			v->u.num.i = neg && m ? -(int64_t)(m - 1) - 1 : (int64_t)m;
	}
	ps->p = p;
	*out = v;
	return 0;
}

static int parse_value(struct parser *ps, struct json **out);

static int parse_array(struct parser *ps, struct json **out)
{
	struct json *v = new_value(JSON_ARRAY);
	size_t cap = 0;

	if (!v)
		return fail(ps, ps->p, "out of memory");
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == ']') {
		ps->p++;
		*out = v;
		return 0;
	}
	for (;;) {
		struct json *e;

		if (v->u.arr.n == cap) {
			struct json **a = realloc(v->u.arr.v, (cap ? cap * 2 : 4) * sizeof(*a));

			if (!a) {
				json_free(v);
				return fail(ps, ps->p, "out of memory");
			}
			v->u.arr.v = a;
			cap = cap ? cap * 2 : 4;
		}
		if (parse_value(ps, &e)) {
			json_free(v);
			return -1;
		}
		v->u.arr.v[v->u.arr.n++] = e;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			skip_ws(ps);
			if (ps->p < ps->end && *ps->p == ']') {
				json_free(v);
				return fail(ps, ps->p, "trailing comma before ']'");
			}
			continue;
		}
		if (ps->p < ps->end && *ps->p == ']') {
			ps->p++;
			*out = v;
			return 0;
		}
		json_free(v);
		return fail(ps, ps->p, "expected ',' or ']' after an array element");
	}
}

/* Duplicate detection: a linear scan while an object is small, then an
 * open-addressing table of member indices. */
#define DUP_LINEAR 16

struct dupset {
	size_t *slot; /* member index + 1, 0 = empty */
	size_t cap;
};

static size_t key_hash(const char *k, size_t n)
{
	size_t h = 1469598103934665603u;

	while (n--)
		h = (h ^ (unsigned char)*k++) * 1099511628211u;
	return h;
}

/* 1 if k is already a member, 0 if not (and remembered when hashing), -1
 * out of memory. */
static int dup_check(struct dupset *d, const struct json *o, const char *k, size_t n)
{
	const struct json_member *m = o->u.obj.m;
	size_t cnt = o->u.obj.n, i;

	if (cnt < DUP_LINEAR) {
		for (i = 0; i < cnt; i++)
			if (same_key(&m[i], k, n))
				return 1;
		return 0;
	}
	if (cnt * 2 >= d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 64;
		size_t *slot;

		while (cnt * 2 >= cap)
			cap *= 2;
		slot = calloc(cap, sizeof(*slot));
		if (!slot)
			return -1;
		free(d->slot);
		d->slot = slot;
		d->cap = cap;
		for (size_t j = 0; j < cnt; j++) {
			i = key_hash(m[j].key, m[j].klen) & (cap - 1);
			while (slot[i])
				i = (i + 1) & (cap - 1);
			slot[i] = j + 1;
		}
	}
	for (i = key_hash(k, n) & (d->cap - 1); d->slot[i]; i = (i + 1) & (d->cap - 1))
		if (same_key(&m[d->slot[i] - 1], k, n))
			return 1;
	d->slot[i] = cnt + 1; /* the member about to be added */
	return 0;
}

static int parse_object(struct parser *ps, struct json **out)
{
	struct json *v = new_value(JSON_OBJECT);
	struct dupset dup = {0};
	struct buf key = {0};
	size_t cap = 0;
	int rc = -1;

	if (!v)
		return fail(ps, ps->p, "out of memory");
	ps->p++;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == '}') {
		ps->p++;
		*out = v;
		return 0;
	}
	for (int first = 1;; first = 0) {
		const char *kat = ps->p;
		struct json_member *m;
		int d;

		if (ps->p >= ps->end || *ps->p != '"') {
			if (first)
				fail(ps, ps->p,
				     "expected a member name (a string) or '}' after '{'");
			else if (ps->p < ps->end && *ps->p == '}')
				fail(ps, ps->p, "trailing comma before '}'");
			else
				fail(ps, ps->p, "expected a member name (a string) after ','");
			goto out;
		}
		if (parse_string(ps, &key))
			goto out;
		d = dup_check(&dup, v, key.s, key.len);
		if (d) {
			if (d < 0)
				fail(ps, kat, "out of memory");
			else
				fail(ps, kat, "duplicate member name \"%s\"", key.s);
			goto out;
		}
		if (v->u.obj.n == cap) {
			m = realloc(v->u.obj.m, (cap ? cap * 2 : 4) * sizeof(*m));
			if (!m) {
				fail(ps, kat, "out of memory");
				goto out;
			}
			v->u.obj.m = m;
			cap = cap ? cap * 2 : 4;
		}
		m = &v->u.obj.m[v->u.obj.n];
		m->klen = key.len;
		m->key = key.s;
		m->v = NULL;
		v->u.obj.n++;
		key = (struct buf){0};
		skip_ws(ps);
		if (ps->p >= ps->end || *ps->p != ':') {
			fail(ps, ps->p, "expected ':' after a member name");
			goto out;
		}
		ps->p++;
		if (parse_value(ps, &m->v))
			goto out;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			skip_ws(ps);
			continue;
		}
		if (ps->p < ps->end && *ps->p == '}') {
			ps->p++;
			*out = v;
			v = NULL;
			rc = 0;
			goto out;
		}
		fail(ps, ps->p, "expected ',' or '}' after an object member");
		goto out;
	}
out:
	free(dup.slot);
	free(key.s);
	json_free(v);
	return rc;
}

static int parse_literal(struct parser *ps, const char *word, struct json **out)
{
	size_t n = strlen(word);
	struct json *v;

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n))
		return fail(ps, ps->p,
			    "expected a value (invalid literal; true, false and null "
			    "are lower case)");
	v = new_value(word[0] == 'n' ? JSON_NULL : JSON_BOOL);
	if (!v)
		return fail(ps, ps->p, "out of memory");
	v->u.b = word[0] == 't';
	ps->p += n;
	*out = v;
	return 0;
}

static int parse_value(struct parser *ps, struct json **out)
{
	int rc;

	skip_ws(ps);
	if (ps->p >= ps->end)
		return fail(ps, ps->p, "expected a value");
	switch (*ps->p) {
	case '{':
	case '[':
		if (ps->depth >= JSON_MAX_DEPTH)
			return fail(ps, ps->p, "nesting deeper than %d arrays and objects",
				    JSON_MAX_DEPTH);
		ps->depth++;
		rc = *ps->p == '{' ? parse_object(ps, out) : parse_array(ps, out);
		ps->depth--;
		return rc;
	case '"': {
		struct buf b = {0};
		struct json *v;

		if (parse_string(ps, &b)) {
			free(b.s);
			return -1;
		}
		v = new_value(JSON_STRING);
		if (!v) {
			free(b.s);
			return fail(ps, ps->p, "out of memory");
		}
		v->u.str.s = b.s;
		v->u.str.len = b.len;
		*out = v;
		return 0;
	}
	case 't': return parse_literal(ps, "true", out);
	case 'f': return parse_literal(ps, "false", out);
	case 'n': return parse_literal(ps, "null", out);
	default:
		if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))
			return parse_number(ps, out);
		return fail(ps, ps->p, "expected a value");
	}
}

int json_parse(const char *text, size_t len, struct json **out, char *err, size_t errlen)
{
	struct parser ps;
	struct json *v;

	if (!text)
		text = "";
	ps = (struct parser){.s = text, .p = text, .end = text + len, .err = err, .errlen = errlen};
	*out = NULL;
	if (err && errlen)
		err[0] = '\0';
	if (parse_value(&ps, &v))
		return -1;
	skip_ws(&ps);
	if (ps.p < ps.end) {
		json_free(v);
		return fail(&ps, ps.p, "unexpected characters after the JSON value");
	}
	*out = v;
	return 0;
}

int json_parse_file(const char *path, struct json **out, char *err, size_t errlen)
{
	struct buf b = {0};
	char chunk[65536], msg[512], dummy[1];
	const char *why;
	FILE *f;
	size_t n;
	int rc = infile_open(&f, path, &why);

	if (!err || !errlen) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	*out = NULL;
	if (rc) {
		snprintf(err, errlen, "%s: %s", path, why);
		return -1;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		if (buf_add(&b, chunk, n)) {
			fclose(f);
			free(b.s);
			snprintf(err, errlen, "%s: out of memory", path);
			return -1;
		}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		fclose(f);
		free(b.s);
		return -1;
	}
	fclose(f);
	rc = json_parse(b.s ? b.s : "", b.len, out, msg, sizeof(msg));
	if (rc)
		snprintf(err, errlen, "%s: %s", path, msg);
	free(b.s);
	return rc;
}
