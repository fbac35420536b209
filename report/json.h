/* json.h - a small, strict JSON reader (RFC 8259): parsing, the value
 * tree's accessors and a compact writer. The golden diff behind
 * `tcsim check --expect` is json_diff.h. */
#ifndef TCSIM_JSON_H
#define TCSIM_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 256 /* nested arrays/objects; deeper input is an error */

enum json_type { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT };

struct json; /* one value; a parsed document is owned by its root */

/* Parses exactly one JSON text of len bytes (no NUL needed). Strict: no
 * trailing commas, comments, leading zeros, lone surrogates, unescaped
 * control characters, invalid UTF-8, duplicate member names, or anything
 * after the value. Returns 0 and *out, or -1 with err set to
 * "line L, column C: rule" (C counts characters from 1). */
int json_parse(const char *text, size_t len, struct json **out, char *err, size_t errlen);
/* The same for a whole file; errors are prefixed "PATH: ". */
int json_parse_file(const char *path, struct json **out, char *err, size_t errlen);
void json_free(struct json *v);

/* Compact one-line JSON (", " and ": " separators), numbers as written. */
void json_write(FILE *out, const struct json *v);

/* Accessors; all take NULL or a value of the wrong type gracefully. */
enum json_type json_type(const struct json *v); /* JSON_NULL for NULL */
const char *json_type_name(enum json_type t);	/* "object", "number", ... */
size_t json_len(const struct json *v);		/* array elements, object members, else 0 */
const struct json *json_at(const struct json *arr, size_t i);	      /* NULL if out of range */
const char *json_key_at(const struct json *obj, size_t i);	      /* member name */
const struct json *json_value_at(const struct json *obj, size_t i);   /* member value */
const struct json *json_get(const struct json *obj, const char *key); /* NULL if absent */
int json_bool(const struct json *v);		    /* 1 true, 0 false, -1 not a boolean */
double json_number(const struct json *v);	    /* NAN if not a number */
const char *json_number_text(const struct json *v); /* as written, NULL if not a number */
/* 0 and *out when v is an integer literal (no fraction or exponent) that
 * fits int64_t; -1 otherwise. */
int json_int(const struct json *v, int64_t *out);
const char *json_string(const struct json *v); /* NUL-terminated, NULL if not a string */
size_t json_string_len(const struct json *v);  /* may hold \u0000 */

#endif
