/* ci_report.c - JUnit XML and TAP 13 from a scenario's checks (ci_report.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ci_report.h"

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

int ci_add(struct ci_report *r, const char *name, const char *file, int line,
	   enum ci_outcome outcome, const char *message)
{
	struct ci_case *c;

	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;
		struct ci_case *v = realloc(r->c, cap * sizeof(*v));

		if (!v) {
			r->oom = 1;
			return -ENOMEM;
		}
		r->c = v;
		r->cap = cap;
	}
	c = &r->c[r->n];
	c->name = dup_or_null(name);
	c->file = dup_or_null(file);
	c->message = dup_or_null(message);
	c->line = line;
	c->outcome = outcome;
	if (!c->name || (file && !c->file) || (message && !c->message)) {
		free(c->name);
		free(c->file);
		free(c->message);
		r->oom = 1;
		return -ENOMEM;
	}
	r->n++;
	return 0;
}

int ci_note(struct ci_report *r, const char *text)
{
	char **v = realloc(r->notes, (r->nnotes + 1) * sizeof(*v));

	if (!v) {
		r->oom = 1;
		return -ENOMEM;
	}
	r->notes = v;
	if (!(v[r->nnotes] = strdup(text))) {
		r->oom = 1;
		return -ENOMEM;
	}
	r->nnotes++;
	return 0;
}

void ci_free(struct ci_report *r)
{
	for (size_t i = 0; i < r->nnotes; i++)
		free(r->notes[i]);
	free(r->notes);
	for (size_t i = 0; i < r->n; i++) {
		free(r->c[i].name);
		free(r->c[i].file);
		free(r->c[i].message);
	}
	free(r->c);
	memset(r, 0, sizeof(*r));
}

/* The length of the valid UTF-8 sequence at s (1..4), or 0. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		n = 2, cp = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3, cp = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates and beyond U+10FFFF are not UTF-8;
	 * U+FFFE and U+FFFF are not XML characters */
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff || cp == 0xfffe || cp == 0xffff)
		return 0;
	return n;
}

/* s as XML character data or attribute value */
static void xml_text(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");

	while (*s) {
		size_t n = utf8_len(s);

		if (!n || (*s < 0x20 && *s != '\t' && *s != '\n')) {
			fputc('?', out);
			s++;
			continue;
		}
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		case '\n': fputs("&#10;", out); break;
		case '\t': fputs("&#9;", out); break;
		default: fwrite(s, 1, n, out); break;
		}
		s += n;
	}
}

void ci_write_junit(const struct ci_report *r, const char *suite, FILE *out)
{
	size_t fail = 0, err = 0;

	for (size_t i = 0; i < r->n; i++) {
		fail += r->c[i].outcome == CI_FAIL;
		err += r->c[i].outcome == CI_ERROR;
	}
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
	fprintf(out, "<testsuites tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n", r->n, fail,
		err);
	fputs("  <testsuite name=\"", out);
	xml_text(out, suite);
	fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"0\">\n", r->n,
		fail, err);
	for (size_t i = 0; i < r->n; i++) {
		const struct ci_case *c = &r->c[i];

		fputs("    <testcase classname=\"", out);
		xml_text(out, suite);
		fputs("\" name=\"", out);
		xml_text(out, c->name);
		fputc('"', out);
		if (c->file) {
			fputs(" file=\"", out);
			xml_text(out, c->file);
			fputc('"', out);
		}
		if (c->line > 0)
			fprintf(out, " line=\"%d\"", c->line);
		if (c->outcome == CI_PASS) {
			fputs("/>\n", out);
			continue;
		}
		fprintf(out, ">\n      <%s message=\"",
			c->outcome == CI_FAIL ? "failure" : "error");
		xml_text(out, c->message ? c->message : c->name);
		fputs("\">", out);
		xml_text(out, c->message ? c->message : c->name);
		fprintf(out, "</%s>\n    </testcase>\n",
			c->outcome == CI_FAIL ? "failure" : "error");
	}
	if (r->nnotes) {
		fputs("    <system-out>", out);
		for (size_t i = 0; i < r->nnotes; i++) {
			xml_text(out, r->notes[i]);
			xml_text(out, "\n");
		}
		fputs("</system-out>\n", out);
	}
	fputs("  </testsuite>\n</testsuites>\n", out);
}

/* s on one TAP line: '#' escaped (it would start a directive), line
 * breaks and control characters as spaces */
static void tap_text(FILE *out, const char *str)
{
	for (const unsigned char *s = (const unsigned char *)(str ? str : ""); *s; s++) {
		if (*s == '#')
			fputs("\\#", out);
		else if (*s == '\\')
			fputs("\\\\", out);
		else if (*s < 0x20 || *s == 0x7f)
			fputc(' ', out);
		else
			fputc(*s, out);
	}
}

/* a YAML single-quoted scalar: quotes doubled, one line */
static void yaml_text(FILE *out, const char *str)
{
	fputc('\'', out);
	for (const unsigned char *s = (const unsigned char *)(str ? str : ""); *s; s++) {
		if (*s == '\'')
			fputs("''", out);
		else if (*s < 0x20 || *s == 0x7f)
			fputc(' ', out);
		else
			fputc(*s, out);
	}
	fputc('\'', out);
}

void ci_write_tap(const struct ci_report *r, FILE *out)
{
	fputs("TAP version 13\n", out);
	fprintf(out, "1..%zu\n", r->n);
	for (size_t i = 0; i < r->n; i++) {
		const struct ci_case *c = &r->c[i];

		fprintf(out, "%s %zu - ", c->outcome == CI_PASS ? "ok" : "not ok", i + 1);
		tap_text(out, c->name);
		fputc('\n', out);
		if (c->outcome == CI_PASS)
			continue;
		fputs("  ---\n  severity: ", out);
		fputs(c->outcome == CI_FAIL ? "fail" : "error", out);
		fputs("\n  message: ", out);
		yaml_text(out, c->message ? c->message : c->name);
		if (c->file) {
			fputs("\n  file: ", out);
			yaml_text(out, c->file);
		}
		if (c->line > 0)
			fprintf(out, "\n  line: %d", c->line);
		fputs("\n  ...\n", out);
	}
	for (size_t i = 0; i < r->nnotes; i++) {
		fputs("# ", out);
		tap_text(out, r->notes[i]);
		fputc('\n', out);
	}
}
