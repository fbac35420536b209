/* json.c - strict JSON reader (recursive descent, depth-limited), compact
 * writer, path flattening and the golden diff of tcsim's JSON results. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"
#include "infile.h"
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

/* ---- growable byte buffer -------------------------------------------- */

struct buf {
	char *s;
	size_t len, cap;
};

static int buf_grow(struct buf *b, size_t more)
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

static int buf_add(struct buf *b, const void *p, size_t n)
{
	if (buf_grow(b, n))
		return -1;
	memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
	return 0;
}

static int buf_addc(struct buf *b, char c)
{
	return buf_add(b, &c, 1);
}

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
			size_t n =
			    utf8_len(ps->p, (size_t)(ps->end - ps->p));

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

static int same_key(const struct json_member *m, const char *k, size_t n)
{
	return m->klen == n && !memcmp(m->key, k, n);
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

/* Only parsed documents exist, so the recursion is bounded by
 * JSON_MAX_DEPTH. */
void json_free(struct json *v)
{
	if (!v)
		return;
	switch (v->type) {
	case JSON_NUMBER: free(v->u.num.text); break;
	case JSON_STRING: free(v->u.str.s); break;
	case JSON_ARRAY:
		for (size_t i = 0; i < v->u.arr.n; i++)
			json_free(v->u.arr.v[i]);
		free(v->u.arr.v);
		break;
	case JSON_OBJECT:
		for (size_t i = 0; i < v->u.obj.n; i++) {
			free(v->u.obj.m[i].key);
			json_free(v->u.obj.m[i].v);
		}
		free(v->u.obj.m);
		break;
	default: break;
	}
	free(v);
}

/* ---- accessors -------------------------------------------------------- */

enum json_type json_type(const struct json *v)
{
	return v ? v->type : JSON_NULL;
}

const char *json_type_name(enum json_type t)
{
	static const char *const names[] = {"null",   "boolean", "number",
					    "string", "array",	 "object"};

	return (unsigned)t < sizeof(names) / sizeof(names[0]) ? names[t] : "?";
}

size_t json_len(const struct json *v)
{
	if (v && v->type == JSON_ARRAY)
		return v->u.arr.n;
	if (v && v->type == JSON_OBJECT)
		return v->u.obj.n;
	return 0;
}

const struct json *json_at(const struct json *arr, size_t i)
{
	return arr && arr->type == JSON_ARRAY && i < arr->u.arr.n ? arr->u.arr.v[i] : NULL;
}

const char *json_key_at(const struct json *obj, size_t i)
{
	return obj && obj->type == JSON_OBJECT && i < obj->u.obj.n ? obj->u.obj.m[i].key : NULL;
}

const struct json *json_value_at(const struct json *obj, size_t i)
{
	return obj && obj->type == JSON_OBJECT && i < obj->u.obj.n ? obj->u.obj.m[i].v : NULL;
}

const struct json *json_get(const struct json *obj, const char *key)
{
	size_t n = strlen(key);

	if (!obj || obj->type != JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < obj->u.obj.n; i++)
		if (same_key(&obj->u.obj.m[i], key, n))
			return obj->u.obj.m[i].v;
	return NULL;
}

int json_bool(const struct json *v)
{
	return v && v->type == JSON_BOOL ? v->u.b : -1;
}

double json_number(const struct json *v)
{
	return v && v->type == JSON_NUMBER ? v->u.num.d : NAN;
}

const char *json_number_text(const struct json *v)
{
	return v && v->type == JSON_NUMBER ? v->u.num.text : NULL;
}

int json_int(const struct json *v, int64_t *out)
{
	if (!v || v->type != JSON_NUMBER || !v->u.num.is_int)
		return -1;
	*out = v->u.num.i;
	return 0;
}

const char *json_string(const struct json *v)
{
	return v && v->type == JSON_STRING ? v->u.str.s : NULL;
}

size_t json_string_len(const struct json *v)
{
	return v && v->type == JSON_STRING ? v->u.str.len : 0;
}

/* ---- writer ----------------------------------------------------------- */

static void write_str(FILE *out, const char *s, size_t n)
{
	fputc('"', out);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\b': fputs("\\b", out); break;
		case '\f': fputs("\\f", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		default:
			if (c < 0x20)
				fprintf(out, "\\u%04x", c);
			else
				fputc(c, out);
		}
	}
	fputc('"', out);
}

void json_write(FILE *out, const struct json *v)
{
	switch (json_type(v)) {
	case JSON_NULL: fputs("null", out); break;
	case JSON_BOOL: fputs(v->u.b ? "true" : "false", out); break;
	case JSON_NUMBER: fputs(v->u.num.text, out); break;
	case JSON_STRING: write_str(out, v->u.str.s, v->u.str.len); break;
	case JSON_ARRAY:
		fputc('[', out);
		for (size_t i = 0; i < v->u.arr.n; i++) {
			if (i)
				fputs(", ", out);
			json_write(out, v->u.arr.v[i]);
		}
		fputc(']', out);
		break;
	case JSON_OBJECT:
		fputc('{', out);
		for (size_t i = 0; i < v->u.obj.n; i++) {
			if (i)
				fputs(", ", out);
			write_str(out, v->u.obj.m[i].key, v->u.obj.m[i].klen);
			fputs(": ", out);
			json_write(out, v->u.obj.m[i].v);
		}
		fputc('}', out);
		break;
	}
}

/* ---- flattening ------------------------------------------------------- */

const struct json_key_rule json_default_keys[] = {
    {NULL, {"pref", "handle"}}, {NULL, {"name"}}, {NULL, {"classid"}},
    {NULL, {"handle"}},		{NULL, {NULL}},
};

static const char *const latency_stats[] = {"min", "mean", "p50", "p90", "p99", "max"};

/* What the walk tells its (internal) visitor besides the public four. */
struct walk {
	const struct json_key_rule *keys;
	int (*fn)(struct walk *w, const char *path, int depth, const struct json *v, int latency);
	json_visit_fn user;
	void *arg;
	struct buf path;
};

static int is_ident(const char *s, size_t n)
{
	if (!n || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || s[i] == '_' ||
		      (s[i] >= '0' && s[i] <= '9')))
			return 0;
	return 1;
}

/* Text inside "[...]": '\', '[', ']', '#' and '/' are escaped with '\',
 * control characters as \uXXXX, so distinct paths stay distinct. */
static int add_bracketed(struct buf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char u[8];

		if (c < 0x20) {
			snprintf(u, sizeof(u), "\\u%04x", c);
			if (buf_add(b, u, 6))
				return -1;
		} else if ((strchr("\\[]#/", c) && buf_addc(b, '\\')) || buf_addc(b, (char)c)) {
			return -1;
		}
	}
	return 0;
}

static int add_scalar(struct buf *b, const struct json *v)
{
	if (v->type == JSON_STRING)
		return add_bracketed(b, v->u.str.s, v->u.str.len);
	return buf_add(b, v->u.num.text, strlen(v->u.num.text));
}

/* The "[...]" segment of element e of an array held by member name. */
static int element_segment(const struct json_key_rule *keys, const char *name, const struct json *e,
			   size_t idx, struct buf *seg)
{
	char num[32];

	if (buf_addc(seg, '['))
		return -1;
	for (const struct json_key_rule *r = keys; e->type == JSON_OBJECT && r->members[0]; r++) {
		int ok = 1;

		if (r->array && (!name || strcmp(r->array, name)))
			continue;
		for (size_t k = 0; ok && k < 3 && r->members[k]; k++) {
			const struct json *m = json_get(e, r->members[k]);

			ok = m && (m->type == JSON_STRING || m->type == JSON_NUMBER);
		}
		if (!ok)
			continue;
		for (size_t k = 0; k < 3 && r->members[k]; k++)
			if ((k && buf_addc(seg, '/')) ||
			    add_scalar(seg, json_get(e, r->members[k])))
				return -1;
		return buf_addc(seg, ']');
	}
	snprintf(num, sizeof(num), "%zu]", idx);
	return buf_add(seg, num, strlen(num));
}

struct seg {
	char *s;
	size_t idx;
};

static int seg_cmp(const void *a, const void *b)
{
	const struct seg *x = a, *y = b;
	int c = strcmp(x->s, y->s);

	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

static int seg_idx_cmp(const void *a, const void *b)
{
	const struct seg *x = a, *y = b;

	return (x->idx > y->idx) - (x->idx < y->idx);
}

static int walk(struct walk *w, const struct json *v, const char *name, int depth, int in_delay);

static int walk_child(struct walk *w, const char *seg, size_t n, const struct json *v,
		      const char *name, int depth, int in_delay)
{
	size_t keep = w->path.len;
	int rc;

	if (buf_add(&w->path, seg, n))
		return -1;
	rc = walk(w, v, name, depth, in_delay);
	w->path.len = keep;
	w->path.s[keep] = '\0';
	return rc;
}

static int walk_array(struct walk *w, const struct json *v, const char *name, int depth,
		      int in_delay)
{
	size_t n = v->u.arr.n, i;
	struct seg *segs = calloc(n ? n : 1, sizeof(*segs));
	int rc = -1;

	if (!segs)
		return -1;
	for (i = 0; i < n; i++) {
		struct buf b = {0};

		segs[i].idx = i;
		if (element_segment(w->keys, name, v->u.arr.v[i], i, &b)) {
			free(b.s);
			goto out;
		}
		segs[i].s = b.s;
	}
	/* Repeated segments become [X#2], [X#3]... in document order. */
	qsort(segs, n, sizeof(*segs), seg_cmp);
	for (i = 1; i < n; i++) {
		size_t first = i - 1;

		while (i < n && !strcmp(segs[i].s, segs[first].s)) {
			size_t len = strlen(segs[i].s);
			char *s = malloc(len + 24);

			if (!s)
				goto out;
			snprintf(s, len + 24, "%.*s#%zu]", (int)(len - 1), segs[i].s,
				 i - first + 1);
			free(segs[i].s);
			segs[i].s = s;
			i++;
		}
	}
	/* back to document order */
	qsort(segs, n, sizeof(*segs), seg_idx_cmp);
	for (i = 0; i < n; i++) {
		rc = walk_child(w, segs[i].s, strlen(segs[i].s), v->u.arr.v[i], NULL, depth + 1,
				in_delay);
		if (rc)
			goto out;
	}
	rc = 0;
out:
	for (i = 0; i < n; i++)
		free(segs[i].s);
	free(segs);
	return rc;
}

static int walk(struct walk *w, const struct json *v, const char *name, int depth, int in_delay)
{
	int latency = 0, rc;

	if (in_delay && name && v->type != JSON_ARRAY && v->type != JSON_OBJECT)
		for (size_t i = 0; i < sizeof(latency_stats) / sizeof(latency_stats[0]); i++)
			if (!strcmp(name, latency_stats[i]))
				latency = 1;
	rc = w->fn(w, w->path.s, depth, v, latency);
	if (rc)
		return rc;
	if (v->type == JSON_ARRAY)
		return walk_array(w, v, name, depth, in_delay);
	if (v->type != JSON_OBJECT)
		return 0;
	for (size_t i = 0; i < v->u.obj.n; i++) {
		const struct json_member *m = &v->u.obj.m[i];
		struct buf seg = {0};
		int delay = in_delay || (!strcmp(m->key, "delay_ns") && m->v->type == JSON_OBJECT);

		if (is_ident(m->key, m->klen))
			rc = (depth && buf_addc(&seg, '.')) || buf_add(&seg, m->key, m->klen);
		else
			rc = buf_addc(&seg, '[') || add_bracketed(&seg, m->key, m->klen) ||
			     buf_addc(&seg, ']');
		if (!rc)
			rc = walk_child(w, seg.s, seg.len, m->v, m->key, depth + 1, delay);
		else
			rc = -1;
		free(seg.s);
		if (rc)
			return rc;
	}
	return 0;
}

static int walk_root(struct walk *w, const struct json *root)
{
	int rc;

	if (!w->keys)
		w->keys = json_default_keys;
	if (buf_grow(&w->path, 0))
		return -1;
	w->path.s[0] = '\0';
	rc = walk(w, root, NULL, 0, 0);
	free(w->path.s);
	return rc;
}

static int user_visit(struct walk *w, const char *path, int depth, const struct json *v, int lat)
{
	return w->user(w->arg, path, depth, v);
}

int json_flatten(const struct json *root, const struct json_key_rule *keys, json_visit_fn fn,
		 void *arg)
{
	struct walk w = {.keys = keys, .fn = user_visit, .user = fn, .arg = arg};

	return walk_root(&w, root);
}

/* ---- diff ------------------------------------------------------------- */

struct node {
	char *path;
	const struct json *v;
	int depth;
	unsigned latency : 1, matched : 1, retyped : 1;
};

struct side {
	struct node *n;
	size_t len, cap;
	const char *const *ignore;
};

static int ignored(const char *const *ignore, const char *path)
{
	for (; ignore && *ignore; ignore++) {
		size_t n = strlen(*ignore);

		if (!strncmp(path, *ignore, n) &&
		    (!path[n] || path[n] == '.' || path[n] == '[' || !n))
			return 1;
	}
	return 0;
}

static int collect(struct walk *w, const char *path, int depth, const struct json *v, int lat)
{
	struct side *s = w->arg;
	struct node *n;

	if (ignored(s->ignore, path))
		return 0;
	if (s->len == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;

		n = realloc(s->n, cap * sizeof(*n));
		if (!n)
			return -1;
		s->n = n;
		s->cap = cap;
	}
	n = &s->n[s->len];
	*n = (struct node){.v = v, .depth = depth, .latency = (unsigned)lat};
	n->path = strdup(path);
	if (!n->path)
		return -1;
	s->len++;
	return 0;
}

static void side_free(struct side *s)
{
	for (size_t i = 0; i < s->len; i++)
		free(s->n[i].path);
	free(s->n);
}

static int idx_cmp(const void *a, const void *b, void *arg)
{
	const struct node *n = arg;

	return strcmp(n[*(const size_t *)a].path, n[*(const size_t *)b].path);
}

struct lookup {
	const struct node *n;
	size_t *idx, len;
};

static long find(const struct lookup *l, const char *path)
{
	size_t lo = 0, hi = l->len;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(path, l->n[l->idx[mid]].path);

		if (!c)
			return (long)l->idx[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

/* The index after i's descendants (document order keeps them together). */
static size_t skip_subtree(const struct side *s, size_t i)
{
	size_t j = i + 1;

	while (j < s->len && s->n[j].depth > s->n[i].depth)
		j++;
	return j;
}

static int is_container(const struct json *v)
{
	return v->type == JSON_ARRAY || v->type == JSON_OBJECT;
}

/* Compact JSON, at most about 60 characters. */
static void show(char *buf, size_t n, const struct json *v)
{
	char *mem = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&mem, &len);

	if (!f) {
		snprintf(buf, n, "%s", json_type_name(json_type(v)));
		return;
	}
	json_write(f, v);
	fclose(f);
	if (len > 60 && n > 64 && is_container(v))
		snprintf(buf, n, "%.56s ...%c", mem, v->type == JSON_ARRAY ? ']' : '}');
	else if (len > 60 && n > 64)
		snprintf(buf, n, "%.56s ...", mem);
	else
		snprintf(buf, n, "%s", mem ? mem : "");
	free(mem);
}

struct report {
	FILE *out;
	size_t max, count;
};

static void report(struct report *r, const char *path, const char *fmt, ...)
{
	va_list ap;

	r->count++;
	if (!r->out || (r->max && r->count > r->max))
		return;
	fprintf(r->out, "%s: ", *path ? path : "(root)");
	va_start(ap, fmt);
	vfprintf(r->out, fmt, ap);
	va_end(ap);
	fputc('\n', r->out);
}

static int integer_text(const struct json *v)
{
	return !strpbrk(v->u.num.text, ".eE");
}

static void pct(char *buf, size_t n, double p)
{
	if (fabs(p) >= 0.1 || p == 0)
		snprintf(buf, n, "%+.1f%%", p);
	else
		snprintf(buf, n, "%+.2g%%", p);
}

static void diff_numbers(struct report *r, const struct node *e, const struct node *a,
			 const struct json_diff_opts *o)
{
	const struct json *x = e->v, *y = a->v;
	char delta[64], tol[64] = "";
	double dx = x->u.num.d, dy = y->u.num.d, d;
	int64_t di;

	if (x->u.num.is_int && y->u.num.is_int) {
		if (x->u.num.i == y->u.num.i)
			return;
		if (!__builtin_sub_overflow(y->u.num.i, x->u.num.i, &di))
			snprintf(delta, sizeof(delta), "%+" PRId64, di);
		else
			snprintf(delta, sizeof(delta), "%+g", dy - dx);
	} else if (integer_text(x) && integer_text(y) && !x->u.num.is_int && !y->u.num.is_int) {
		/* beyond int64: the canonical texts decide */
		if (!strcmp(x->u.num.text, y->u.num.text))
			return;
		delta[0] = '\0'; /* too close for a double to tell */
		if (dy != dx)
			snprintf(delta, sizeof(delta), "%+g", dy - dx);
	} else {
		if (dx == dy)
			return;
		snprintf(delta, sizeof(delta), "%+g", dy - dx);
	}
	if (e->latency && a->latency) {
		d = fabs(dy - dx);
		if ((o->abs_tol > 0 && d <= o->abs_tol) ||
		    (o->rel_tol > 0 && d <= o->rel_tol * fabs(dx)))
			return;
		if (dx != 0)
			pct(delta, sizeof(delta), (dy - dx) / fabs(dx) * 100);
		if (o->rel_tol > 0 && o->abs_tol > 0)
			snprintf(tol, sizeof(tol), "tolerance %g%% or %g ns", o->rel_tol * 100,
				 o->abs_tol);
		else if (o->rel_tol > 0)
			snprintf(tol, sizeof(tol), "tolerance %g%%", o->rel_tol * 100);
		else if (o->abs_tol > 0)
			snprintf(tol, sizeof(tol), "tolerance %g ns", o->abs_tol);
	}
	if (delta[0] && tol[0])
		report(r, e->path, "expected %s, got %s (%s, %s)", x->u.num.text, y->u.num.text,
		       delta, tol);
	else if (delta[0] || tol[0])
		report(r, e->path, "expected %s, got %s (%s)", x->u.num.text, y->u.num.text,
		       delta[0] ? delta : tol);
	else
		report(r, e->path, "expected %s, got %s", x->u.num.text, y->u.num.text);
}

static void diff_values(struct report *r, const struct node *e, const struct node *a,
			const struct json_diff_opts *o)
{
	const struct json *x = e->v, *y = a->v;
	char sx[80], sy[80];

	switch (x->type) {
	case JSON_NUMBER: diff_numbers(r, e, a, o); return;
	case JSON_STRING:
		if (x->u.str.len == y->u.str.len && !memcmp(x->u.str.s, y->u.str.s, x->u.str.len))
			return;
		break;
	case JSON_BOOL:
		if (x->u.b == y->u.b)
			return;
		break;
	default: return; /* null, or containers: their contents are compared */
	}
	show(sx, sizeof(sx), x);
	show(sy, sizeof(sy), y);
	report(r, e->path, "expected %s, got %s", sx, sy);
}

int json_diff(const struct json *expected, const struct json *actual,
	      const struct json_diff_opts *opts, FILE *out)
{
	static const struct json_diff_opts exact;
	const struct json_diff_opts *o = opts ? opts : &exact;
	struct side es = {.ignore = o->ignore}, as = {.ignore = o->ignore};
	struct walk w = {.keys = o->keys, .fn = collect};
	struct report r = {.out = out, .max = o->max_lines};
	struct lookup l = {0};
	char sx[80], sy[80];
	size_t i;
	int rc = -1;

	w.arg = &es;
	if (walk_root(&w, expected))
		goto out;
	w = (struct walk){.keys = o->keys, .fn = collect, .arg = &as};
	if (walk_root(&w, actual))
		goto out;
	l.n = as.n;
	l.len = as.len;
	l.idx = malloc((as.len ? as.len : 1) * sizeof(*l.idx));
	if (!l.idx)
		goto out;
	for (i = 0; i < as.len; i++)
		l.idx[i] = i;
	qsort_r(l.idx, as.len, sizeof(*l.idx), idx_cmp, as.n);

	for (i = 0; i < es.len;) {
		struct node *e = &es.n[i];
		long j = find(&l, e->path);
		struct node *a = j >= 0 ? &as.n[j] : NULL;

		if (!a) {
			show(sx, sizeof(sx), e->v);
			report(&r, e->path, "only in expected (%s)", sx);
			i = skip_subtree(&es, i);
			continue;
		}
		a->matched = 1;
		if (e->v->type != a->v->type) {
			show(sx, sizeof(sx), e->v);
			show(sy, sizeof(sy), a->v);
			report(&r, e->path, "expected %s, got %s (%s, now %s)", sx, sy,
			       json_type_name(e->v->type), json_type_name(a->v->type));
			a->retyped = 1;
			i = skip_subtree(&es, i);
			continue;
		}
		if (!is_container(e->v))
			diff_values(&r, e, a, o);
		i++;
	}
	for (i = 0; i < as.len;) {
		struct node *a = &as.n[i];

		if (!a->matched) {
			show(sy, sizeof(sy), a->v);
			report(&r, a->path, "only in actual (%s)", sy);
		}
		i = !a->matched || a->retyped ? skip_subtree(&as, i) : i + 1;
	}
	if (out && r.max && r.count > r.max)
		fprintf(out, "... and %zu more\n", r.count - r.max);
	rc = r.count > (size_t)INT32_MAX ? INT32_MAX : (int)r.count;
out:
	free(l.idx);
	side_free(&es);
	side_free(&as);
	return rc;
}
