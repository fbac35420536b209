/* json_diff.h - the "golden diff" behind `tcsim check --expect`: documents
 * are flattened to one path per value (arrays of objects keyed by their
 * identifying member, so reordering is not a change) and compared, one
 * readable line per difference. */
#ifndef TCSIM_JSON_DIFF_H
#define TCSIM_JSON_DIFF_H

#include <stddef.h>
#include <stdio.h>

#include "json.h"

/* Flattening. A member is written ".name" (no dot at the start), or
 * "[name]" when it is not an identifier ([A-Za-z_][A-Za-z0-9_]*). An
 * array element is "[KEY]" when it is an object matching a key rule, the
 * values of the rule's members joined by '/', else "[INDEX]"; a segment
 * that repeats within one array gets "#2", "#3"... (in order). Inside
 * brackets '\', '[', ']', '#' and '/' are escaped with '\', control
 * characters as \uXXXX, so distinct values keep distinct paths. Rules are
 * tried in order; the first whose array name matches (NULL: any array; the
 * name is the member holding the array) and whose members are all present
 * as strings or numbers wins. json_default_keys, for tcsim's results:
 *   pref+handle  filters[49152/0x1]
 *   name         devices[eth0], simulations[NAME]
 *   classid      classes[1:1]
 *   handle       qdiscs[1:]
 * A table ends with an entry whose members[0] is NULL. */
struct json_key_rule {
	const char *array;
	const char *members[3]; /* 1 to 3 names, unused ones NULL */
};
extern const struct json_key_rule json_default_keys[];

/* Calls fn for every value in document order, containers before their
 * contents (root: path "", depth 0). Stops at fn's first non-zero return
 * and returns it; -1 when out of memory. keys NULL = json_default_keys. */
typedef int (*json_visit_fn)(void *arg, const char *path, int depth, const struct json *v);
int json_flatten(const struct json *root, const struct json_key_rule *keys, json_visit_fn fn,
		 void *arg);

/* Comparison. Values are matched by path; numbers compare by value (1.0
 * equals 1; integers exactly), strings and booleans exactly, a change of
 * type is a difference. Tolerances apply only to latency statistics: a
 * min, mean, p50, p90, p99 or max member anywhere under a "delay_ns"
 * object; a value is within tolerance when |got - expected| <= abs_tol or
 * <= rel_tol * |expected|. Everything else (counts, bytes, drops, verdicts,
 * filters) is exact. A value missing on one side is reported once, at the
 * outermost missing path. */
struct json_diff_opts {
	double rel_tol;		   /* latency: relative tolerance, 0.01 = 1 %; 0 = exact */
	double abs_tol;		   /* latency: absolute tolerance in their unit (ns); 0 = none */
	const char *const *ignore; /* NULL-terminated path prefixes to skip, or NULL;
				    * "*.name" skips member name at any depth */
	size_t max_lines; /* print at most this many lines, then "... and K more"; 0 = all */
	const struct json_key_rule *keys; /* NULL = json_default_keys */
};

/* Prints one line per difference to out (NULL: count only), in
 * expected's order, then what is only in actual:
 *   devices[eth0].classes[1:1].packets: expected 188, got 187 (-1)
 *   devices[eth0].classes[1:2].delay_ns.queue.p99: expected 1234567,
 *     got 1300000 (+5.3%, tolerance 1%)          (one line)
 *   devices[eth0].verdicts[4:]: only in actual (33)
 * Returns the number of differences (0: same), -1 when out of memory.
 * opts NULL = exact. */
int json_diff(const struct json *expected, const struct json *actual,
	      const struct json_diff_opts *opts, FILE *out);

#endif
