/* json_tree.c - a parsed JSON value: json_free, the accessors and the
 * compact writer (json_write). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "json_priv.h"

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
