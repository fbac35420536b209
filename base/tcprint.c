/* tcprint.c - text or JSON from one call per field (tcprint.h). */
#include <stdarg.h>

#include "tcprint.h"

void pr_init(struct tcprint *p, FILE *out, int json, int pretty)
{
	p->out = out;
	p->json = json;
	p->pretty = pretty;
	p->depth = 0;
	p->sep = 0;
}

/* A comma before every member but the first of its collection */
static void sep(struct tcprint *p)
{
	if (p->sep)
		putc(p->sep, p->out);
	p->sep = ',';
}

static void eol(struct tcprint *p)
{
	if (!p->pretty)
		return;
	putc('\n', p->out);
	for (unsigned i = 0; i < p->depth; i++)
		fputs("    ", p->out);
}

static void jstr(struct tcprint *p, const char *s)
{
	putc('"', p->out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '"': fputs("\\\"", p->out); break;
		case '\\': fputs("\\\\", p->out); break;
		case '\n': fputs("\\n", p->out); break;
		case '\t': fputs("\\t", p->out); break;
		case '\r': fputs("\\r", p->out); break;
		default:
			if (c < 0x20)
				fprintf(p->out, "\\u%04x", c);
			else
				putc(c, p->out);
		}
	}
	putc('"', p->out);
}

/* The member's name (inside an object), or the separator of an element */
static void name(struct tcprint *p, const char *key)
{
	sep(p);
	if (!key)
		return;
	eol(p);
	jstr(p, key);
	putc(':', p->out);
	if (p->pretty)
		putc(' ', p->out);
}

static void begin(struct tcprint *p, const char *key, int c)
{
	name(p, key);
	putc(c, p->out);
	p->depth++;
	p->sep = 0;
}

void pr_open_object(struct tcprint *p, const char *key)
{
	if (p->json)
		begin(p, key, '{');
}

void pr_close_object(struct tcprint *p)
{
	if (!p->json)
		return;
	p->depth--;
	if (p->sep)
		eol(p);
	putc('}', p->out);
	p->sep = ',';
}

void pr_open_array(struct tcprint *p, const char *key, const char *text)
{
	if (!p->json) {
		if (text)
			fputs(text, p->out);
		return;
	}
	begin(p, key, '[');
	if (p->pretty)
		putc(' ', p->out);
}

void pr_close_array(struct tcprint *p, const char *text)
{
	if (!p->json) {
		if (text)
			fputs(text, p->out);
		return;
	}
	if (p->pretty && p->sep)
		putc(' ', p->out);
	p->depth--;
	putc(']', p->out);
	p->sep = ',';
}

void pr_end(struct tcprint *p)
{
	if (p->json)
		putc('\n', p->out);
	fflush(p->out);
}

void pr_text(struct tcprint *p, const char *fmt, ...)
{
	va_list ap;

	if (p->json)
		return;
	va_start(ap, fmt);
	vfprintf(p->out, fmt, ap);
	va_end(ap);
}

/* Whether this call writes: text for PR_ANY/PR_TEXT, JSON for PR_ANY/PR_JSON */
static int text_of(const struct tcprint *p, enum pr_mode m)
{
	return !p->json && m != PR_JSON;
}

static int json_of(const struct tcprint *p, enum pr_mode m)
{
	return p->json && m != PR_TEXT;
}

void pr_uint(struct tcprint *p, enum pr_mode m, const char *key, const char *fmt, unsigned v)
{
	if (text_of(p, m)) {
		fprintf(p->out, fmt, v);
	} else if (json_of(p, m)) {
		name(p, key);
		fprintf(p->out, "%u", v);
	}
}

void pr_int(struct tcprint *p, enum pr_mode m, const char *key, const char *fmt, int v)
{
	if (text_of(p, m)) {
		fprintf(p->out, fmt, v);
	} else if (json_of(p, m)) {
		name(p, key);
		fprintf(p->out, "%d", v);
	}
}

void pr_u64(struct tcprint *p, enum pr_mode m, const char *key, const char *fmt, uint64_t v)
{
	if (text_of(p, m)) {
		fprintf(p->out, fmt, (unsigned long long)v);
	} else if (json_of(p, m)) {
		name(p, key);
		fprintf(p->out, "%llu", (unsigned long long)v);
	}
}

void pr_s64(struct tcprint *p, enum pr_mode m, const char *key, const char *fmt, int64_t v)
{
	if (text_of(p, m)) {
		fprintf(p->out, fmt, (long long)v);
	} else if (json_of(p, m)) {
		name(p, key);
		fprintf(p->out, "%lld", (long long)v);
	}
}

void pr_string(struct tcprint *p, enum pr_mode m, const char *key, const char *fmt, const char *v)
{
	if (text_of(p, m)) {
		fprintf(p->out, fmt, v);
	} else if (json_of(p, m)) {
		name(p, key);
		jstr(p, v);
	}
}

void pr_bool(struct tcprint *p, enum pr_mode m, const char *key, const char *fmt, int v)
{
	if (text_of(p, m)) {
		fprintf(p->out, fmt, v ? "true" : "false");
	} else if (json_of(p, m)) {
		name(p, key);
		fputs(v ? "true" : "false", p->out);
	}
}

void pr_null(struct tcprint *p, enum pr_mode m, const char *key, const char *fmt)
{
	if (text_of(p, m)) {
		fputs(fmt, p->out);
	} else if (json_of(p, m)) {
		name(p, key);
		fputs("null", p->out);
	}
}

void pr_hex(struct tcprint *p, enum pr_mode m, const char *key, const char *fmt, unsigned v)
{
	char b[16];

	if (text_of(p, m)) {
		fprintf(p->out, fmt, v);
	} else if (json_of(p, m)) {
		snprintf(b, sizeof(b), "%x", v);
		name(p, key);
		jstr(p, b);
	}
}

void pr_0xhex(struct tcprint *p, enum pr_mode m, const char *key, const char *fmt, uint64_t v)
{
	char b[32];

	if (text_of(p, m)) {
		fprintf(p->out, fmt, (unsigned long long)v);
	} else if (json_of(p, m)) {
		snprintf(b, sizeof(b), "%#llx", (unsigned long long)v);
		name(p, key);
		jstr(p, b);
	}
}

void pr_float(struct tcprint *p, enum pr_mode m, const char *key, const char *fmt, double v)
{
	if (text_of(p, m)) {
		fprintf(p->out, fmt, v);
	} else if (json_of(p, m)) {
		name(p, key);
		fprintf(p->out, "%g", v);
	}
}
