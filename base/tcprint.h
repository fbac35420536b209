/* tcprint.h - one printer for `tc ... show` text and `tc -j` JSON, after
 * iproute2's print_uint(PRINT_ANY, "limit", "limit %u ", v): a dump calls
 * one function per field with its JSON key and its text format, and the
 * printer writes whichever the mode asks, so each kind's dump is the one
 * source of both. The JSON is laid out as iproute2's json_writer does
 * (no spaces; with pretty, members on their own lines indented by four
 * and arrays as "[ a,b ]"). Below qdisc/ and classifier/: it knows
 * nothing of tc. */
#ifndef TCSIM_TCPRINT_H
#define TCSIM_TCPRINT_H

#include <stdint.h>
#include <stdio.h>

/* Which output a field goes to (iproute2's PRINT_ANY, PRINT_FP, PRINT_JSON) */
enum pr_mode {
	PR_ANY,	 /* text with fmt, JSON with key */
	PR_TEXT, /* text only */
	PR_JSON, /* JSON only */
};

#define PR_MAX_DEPTH 32

struct tcprint {
	FILE *out;
	int json;   /* 1: JSON, 0: text */
	int pretty; /* JSON: iproute2's -p layout */
	unsigned depth;
	char sep; /* ',' once the current collection has a member */
};

void pr_init(struct tcprint *p, FILE *out, int json, int pretty);
static inline int pr_is_json(const struct tcprint *p)
{
	return p->json;
}

/* Collections (JSON only): key NULL inside an array or at the top. With
 * text, the text form (may be NULL) is printed instead. */
void pr_open_object(struct tcprint *p, const char *key);
void pr_close_object(struct tcprint *p);
void pr_open_array(struct tcprint *p, const char *key, const char *text);
void pr_close_array(struct tcprint *p, const char *text);
/* The end of a top-level array: iproute2 ends its JSON with a newline */
void pr_end(struct tcprint *p);

/* Text only, printf-like (iproute2's fprintf beside the JSON calls) */
void pr_text(struct tcprint *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One field each: fmt takes the one value (text); key names it (JSON; NULL
 * inside an array). */
void pr_uint(struct tcprint *p, enum pr_mode m, const char *key, const char *fmt, unsigned v);
void pr_int(struct tcprint *p, enum pr_mode m, const char *key, const char *fmt, int v);
void pr_u64(struct tcprint *p, enum pr_mode m, const char *key, const char *fmt, uint64_t v);
void pr_s64(struct tcprint *p, enum pr_mode m, const char *key, const char *fmt, int64_t v);
/* v a JSON string; text: fmt with v */
void pr_string(struct tcprint *p, enum pr_mode m, const char *key, const char *fmt, const char *v);
/* JSON true/false; text: fmt with "true" or "false" (a fmt without %s is
 * printed as it is) */
void pr_bool(struct tcprint *p, enum pr_mode m, const char *key, const char *fmt, int v);
/* JSON null; text: fmt as it is */
void pr_null(struct tcprint *p, enum pr_mode m, const char *key, const char *fmt);
/* JSON the string "%x" of v (iproute2's print_hex); text fmt with v */
void pr_hex(struct tcprint *p, enum pr_mode m, const char *key, const char *fmt, unsigned v);
/* JSON the string "%#x" of v (print_0xhex) */
void pr_0xhex(struct tcprint *p, enum pr_mode m, const char *key, const char *fmt, uint64_t v);
/* JSON the number "%g" of v; text fmt with v */
void pr_float(struct tcprint *p, enum pr_mode m, const char *key, const char *fmt, double v);

#endif
