/* test_json.c - the strict JSON reader (every construct, a table of
 * invalid inputs with their error positions), flattening paths, and the
 * golden diff of tcsim's JSON results (counts exact, latency tolerances,
 * keyed arrays, only-in lines, line limit). */
#include "unit.h"
#include <CUnit/Basic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "json_diff.h"

/* A trimmed `tcsim run --tc scenarios/ssh_http.tc --rate 256kbit --json -`
 * of scenarios/captures/ssh_hydra.pcap. */
static const char tcsim_doc[] =
    "{\n"
    "  \"tcsim\": 1,\n"
    "  \"seed\": 1,\n"
    "  \"kernel\": \"current\",\n"
    "  \"time_ns\": 17466681750,\n"
    "  \"devices\": [\n"
    "    {\n"
    "      \"name\": \"eth0\",\n"
    "      \"rate_bps\": 256000, \"overhead\": 0, \"mtu\": 1500, \"txqueuelen\": 1000, "
    "\"delay_ns\": 0,\n"
    "      \"totals\": {\"arrived\": 189, \"sent\": 189, \"dropped\": 0, \"queued\": 0, "
    "\"rejected\": 0, \"sent_bytes\": 33259, \"dropped_bytes\": 0},\n"
    "      \"drops\": {},\n"
    "      \"rejects\": {\"shorter than an Ethernet header\": 0},\n"
    "      \"classes\": [\n"
    "        {\"classid\": \"1:1\", \"packets\": 188, \"bytes\": 33152, \"drops\": 0, "
    "\"delay_ns\": {\"queue\": {\"min\": 0, \"mean\": 283635508, \"p50\": 339738624, "
    "\"p90\": 595591168, \"p99\": 666894336, \"max\": 669659000}, \"total\": {\"min\": "
    "2312500, \"mean\": 289146146, \"p50\": 352321536, \"p90\": 595591168, \"p99\": "
    "671088640, \"max\": 674339000}}},\n"
    "        {\"classid\": \"1:2\", \"packets\": 0, \"bytes\": 0, \"drops\": 0, "
    "\"delay_ns\": {\"queue\": {\"min\": 0, \"mean\": 0, \"p50\": 0, \"p90\": 0, \"p99\": "
    "1234567, \"max\": 0}, \"total\": {\"min\": 0, \"mean\": 0, \"p50\": 0, \"p90\": 0, "
    "\"p99\": 0, \"max\": 0}}},\n"
    "        {\"classid\": \"1:3\", \"packets\": 1, \"bytes\": 107, \"drops\": 0, "
    "\"delay_ns\": {\"queue\": {\"min\": 0, \"mean\": 0, \"p50\": 0, \"p90\": 0, \"p99\": 0, "
    "\"max\": 0}, \"total\": {\"min\": 3343750, \"mean\": 3343750, \"p50\": 3343750, "
    "\"p90\": 3343750, \"p99\": 3343750, \"max\": 3343750}}}\n"
    "      ],\n"
    "      \"verdicts\": {\"1:1\": 188, \"1:3\": 1},\n"
    "      \"filters\": [{\"pref\": 1, \"handle\": \"0x1\", \"packets\": 188}, "
    "{\"pref\": 49152, \"handle\": \"0x1\", \"packets\": 1}],\n"
    "      \"qdiscs\": [\n"
    "        {\"kind\": \"prio\", \"handle\": \"1:\", \"parent\": \"root\", \"sent_bytes\": "
    "33259, \"sent_packets\": 189, \"drops\": 0, \"qlen\": 0, \"peak_qlen\": 100},\n"
    "        {\"kind\": \"sfq\", \"handle\": \"10:\", \"parent\": \"1:1\", \"sent_bytes\": "
    "33152, \"sent_packets\": 188, \"drops\": 0, \"qlen\": 0, \"peak_qlen\": 100}\n"
    "      ]\n"
    "    }\n"
    "  ]\n"
    "}\n";

static struct json *parse(const char *s)
{
	struct json *v = NULL;
	char err[256];

	if (json_parse(s, strlen(s), &v, err, sizeof(err))) {
		fprintf(stderr, "unexpected parse error: %s\n", err);
		return NULL;
	}
	return v;
}

/* Text of json_write(v). */
static char *written(const struct json *v)
{
	char *mem = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&mem, &len);

	if (!f)
		return NULL;
	json_write(f, v);
	fclose(f);
	return mem;
}

struct diffres {
	int n;
	char *text;
};

static struct diffres diff(const char *e, const char *a, const struct json_diff_opts *o)
{
	struct json *je = parse(e), *ja = parse(a);
	struct diffres r = {-100, NULL};
	size_t len = 0;
	FILE *f = open_memstream(&r.text, &len);

	if (je && ja && f)
		r.n = json_diff(je, ja, o, f);
	if (f)
		fclose(f);
	json_free(je);
	json_free(ja);
	return r;
}

/* Replace the first occurrence of from in s by to (a new string). */
static char *subst(const char *s, const char *from, const char *to)
{
	const char *p = strstr(s, from);
	size_t n = strlen(s) - strlen(from) + strlen(to) + 1;
	char *r = malloc(n);

	if (!p || !r) {
		free(r);
		return NULL;
	}
	snprintf(r, n, "%.*s%s%s", (int)(p - s), s, to, p + strlen(from));
	return r;
}

/* ---- parsing valid input ---------------------------------------------- */

static void test_scalars(void)
{
	struct json *v;
	int64_t i;

	v = parse("null");
	CU_ASSERT_EQUAL(json_type(v), JSON_NULL);
	CU_ASSERT_PTR_NOT_NULL(v);
	json_free(v);
	v = parse(" true ");
	CU_ASSERT_EQUAL(json_type(v), JSON_BOOL);
	CU_ASSERT_EQUAL(json_bool(v), 1);
	json_free(v);
	v = parse("\t\r\nfalse\n");
	CU_ASSERT_EQUAL(json_bool(v), 0);
	CU_ASSERT_TRUE(isnan(json_number(v)));
	json_free(v);
	v = parse("\"hi\"");
	CU_ASSERT_STRING_EQUAL(json_string(v), "hi");
	CU_ASSERT_EQUAL(json_bool(v), -1);
	CU_ASSERT_EQUAL(json_int(v, &i), -1);
	json_free(v);
}

static void test_numbers(void)
{
	static const struct {
		const char *text;
		double d;
		int is_int;
		int64_t i;
	} t[] = {
	    {"0", 0, 1, 0},
	    {"-0", -0.0, 1, 0},
	    {"7", 7, 1, 7},
	    {"-12", -12, 1, -12},
	    {"1.5", 1.5, 0, 0},
	    {"1.5e3", 1500, 0, 0},
	    {"-12.25E-2", -0.1225, 0, 0},
	    {"2E+2", 200, 0, 0},
	    {"0.0", 0, 0, 0},
	    {"1e0", 1, 0, 0},
	    {"9223372036854775807", 9223372036854775807.0, 1, INT64_MAX},
	    {"-9223372036854775808", -9223372036854775808.0, 1, INT64_MIN},
	    {"9223372036854775808", 9223372036854775808.0, 0, 0},
	    {"-9223372036854775809", -9223372036854775809.0, 0, 0},
	    {"123456789012345678901234567890", 1.2345678901234568e29, 0, 0},
	};

	for (size_t k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
		struct json *v = parse(t[k].text);
		int64_t i = 42;

		CU_ASSERT_EQUAL_FATAL(json_type(v), JSON_NUMBER);
		CU_ASSERT_STRING_EQUAL(json_number_text(v), t[k].text);
		CU_ASSERT_DOUBLE_EQUAL(json_number(v), t[k].d, fabs(t[k].d) * 1e-15);
		CU_ASSERT_EQUAL(json_int(v, &i), t[k].is_int ? 0 : -1);
		if (t[k].is_int)
			CU_ASSERT_EQUAL(i, t[k].i);
		json_free(v);
	}
	/* out of double range is still valid JSON, its text kept */
	{
		struct json *v = parse("1e400");

		CU_ASSERT_TRUE(isinf(json_number(v)));
		CU_ASSERT_STRING_EQUAL(json_number_text(v), "1e400");
		json_free(v);
	}
}

static void test_string_escapes(void)
{
	struct json *v = parse("\"a\\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti\\u0041\\u00e9\\u20AC"
			       "\\uD83D\\uDE00\\u0000z\"");
	static const char want[] = "a\"b\\c/d\be\ff\ng\rh\ti"
				   "A\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\0z";

	CU_ASSERT_EQUAL_FATAL(json_type(v), JSON_STRING);
	CU_ASSERT_EQUAL(json_string_len(v), sizeof(want) - 1);
	CU_ASSERT_EQUAL(memcmp(json_string(v), want, sizeof(want)), 0);
	json_free(v);
	/* raw UTF-8 (2, 3 and 4 bytes) passes through */
	v = parse("\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf\"");
	CU_ASSERT_STRING_EQUAL(json_string(v),
			       "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf");
	json_free(v);
	/* highest pair: U+10FFFF */
	v = parse("\"\\uDBFF\\uDFFF\"");
	CU_ASSERT_STRING_EQUAL(json_string(v), "\xf4\x8f\xbf\xbf");
	json_free(v);
	v = parse("\"\"");
	CU_ASSERT_STRING_EQUAL(json_string(v), "");
	CU_ASSERT_EQUAL(json_string_len(v), 0);
	json_free(v);
}

static void test_containers(void)
{
	struct json *v = parse("{\"z\": [1, [], {}, [[true]]], \"a\": {\"b\": null}, \"m\": \"x\","
			       " \"\": 0}");
	const struct json *z;
	int64_t i = 0;

	CU_ASSERT_EQUAL_FATAL(json_type(v), JSON_OBJECT);
	CU_ASSERT_EQUAL(json_len(v), 4);
	/* member order is kept */
	CU_ASSERT_STRING_EQUAL(json_key_at(v, 0), "z");
	CU_ASSERT_STRING_EQUAL(json_key_at(v, 1), "a");
	CU_ASSERT_STRING_EQUAL(json_key_at(v, 2), "m");
	CU_ASSERT_STRING_EQUAL(json_key_at(v, 3), "");
	CU_ASSERT_PTR_NULL(json_key_at(v, 4));
	CU_ASSERT_PTR_EQUAL(json_value_at(v, 2), json_get(v, "m"));
	z = json_get(v, "z");
	CU_ASSERT_EQUAL(json_type(z), JSON_ARRAY);
	CU_ASSERT_EQUAL(json_len(z), 4);
	CU_ASSERT_EQUAL(json_int(json_at(z, 0), &i), 0);
	CU_ASSERT_EQUAL(i, 1);
	CU_ASSERT_EQUAL(json_type(json_at(z, 1)), JSON_ARRAY);
	CU_ASSERT_EQUAL(json_len(json_at(z, 1)), 0);
	CU_ASSERT_EQUAL(json_type(json_at(z, 2)), JSON_OBJECT);
	CU_ASSERT_EQUAL(json_bool(json_at(json_at(json_at(z, 3), 0), 0)), 1);
	CU_ASSERT_PTR_NULL(json_at(z, 4));
	CU_ASSERT_EQUAL(json_type(json_get(json_get(v, "a"), "b")), JSON_NULL);
	CU_ASSERT_PTR_NOT_NULL(json_get(json_get(v, "a"), "b"));
	CU_ASSERT_PTR_NULL(json_get(v, "missing"));
	CU_ASSERT_PTR_NULL(json_get(z, "z")); /* not an object */
	CU_ASSERT_PTR_NULL(json_at(v, 0));    /* not an array */
	CU_ASSERT_PTR_NOT_NULL(json_get(v, ""));
	CU_ASSERT_STRING_EQUAL(json_type_name(JSON_OBJECT), "object");
	json_free(v);
}

static void test_max_depth_accepted(void)
{
	char s[2 * JSON_MAX_DEPTH + 1];
	struct json *v;

	memset(s, '[', JSON_MAX_DEPTH);
	memset(s + JSON_MAX_DEPTH, ']', JSON_MAX_DEPTH);
	s[2 * JSON_MAX_DEPTH] = '\0';
	v = parse(s);
	CU_ASSERT_PTR_NOT_NULL(v);
	json_free(v);
}

/* Many members: the duplicate check's hash table, not the linear scan. */
static void test_large_object(void)
{
	size_t cap = 200000, n = 0;
	char *s = malloc(cap), err[256];
	struct json *v = NULL;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	n += (size_t)snprintf(s + n, cap - n, "{");
	for (int i = 0; i < 5000; i++)
		n += (size_t)snprintf(s + n, cap - n, "%s\"k%d\": %d", i ? ", " : "", i, i);
	snprintf(s + n, cap - n, "}");
	CU_ASSERT_EQUAL(json_parse(s, strlen(s), &v, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(json_len(v), 5000);
	CU_ASSERT_STRING_EQUAL(json_number_text(json_get(v, "k4321")), "4321");
	json_free(v);
	/* the same with k17 repeated at the end */
	snprintf(s + n, cap - n, ", \"k17\": 1}");
	CU_ASSERT_EQUAL(json_parse(s, strlen(s), &v, err, sizeof(err)), -1);
	CU_ASSERT_PTR_NULL(v);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "duplicate member name \"k17\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "line 1, column "));
	free(s);
}

/* ---- invalid input ------------------------------------------------------- */

static void test_invalid_table(void)
{
	static const struct {
		const char *text;
		size_t len; /* 0: strlen */
		const char *err;
	} t[] = {
	    {"", 0, "line 1, column 1: expected a value (end of input)"},
	    {"   ", 0, "line 1, column 4: expected a value (end of input)"},
	    {"[1,2,]", 0, "line 1, column 6: trailing comma before ']'"},
	    {"{\"a\":1,}", 0, "line 1, column 8: trailing comma before '}'"},
	    {"01", 0, "line 1, column 1: leading zeros are not allowed in a number"},
	    {"[-01]", 0, "line 1, column 3: leading zeros are not allowed in a number"},
	    {"[00.5]", 0, "line 1, column 2: leading zeros are not allowed in a number"},
	    {"\"\\uD800\"", 0, "line 1, column 2: lone high surrogate \\uD800"},
	    {"\"ab\\uDBFFx\"", 0, "line 1, column 4: lone high surrogate \\uDBFF"},
	    {"\"\\uD800\\u0041\"", 0, "line 1, column 2: lone high surrogate \\uD800"},
	    {"\"\\uD800\\uD800\"", 0, "line 1, column 2: lone high surrogate \\uD800"},
	    {"\"\\uDC00\"", 0, "line 1, column 2: lone low surrogate \\uDC00"},
	    {"\"a\nb\"", 0,
	     "line 1, column 3: control character U+000A in a string must be escaped"},
	    {"\"a\tb\"", 0, "line 1, column 3: control character U+0009"},
	    {"\"a\0b\"", 5, "line 1, column 3: control character U+0000"},
	    {"[\"abc", 0, "line 1, column 2: unterminated string"},
	    {"\"abc\\", 0, "line 1, column 1: unterminated string"},
	    {"[1, 2", 0,
	     "line 1, column 6: expected ',' or ']' after an array element (end of input)"},
	    {"[1 2]", 0, "line 1, column 4: expected ',' or ']' after an array element"},
	    {"{\"a\":1 \"b\":2}", 0,
	     "line 1, column 8: expected ',' or '}' after an object member"},
	    {"{\n  \"a\": 1\n  \"b\": 2\n}", 0,
	     "line 3, column 3: expected ',' or '}' after an object member"},
	    {"{\"a\" 1}", 0, "line 1, column 6: expected ':' after a member name"},
	    {"{1:2}", 0, "line 1, column 2: expected a member name (a string) or '}' after '{'"},
	    {"{\"a\":1,2:3}", 0, "line 1, column 8: expected a member name (a string) after ','"},
	    {"{\"a\":1,\"b\":2,\"a\":3}", 0, "line 1, column 14: duplicate member name \"a\""},
	    {"{\"a\":{\"x\":1,\"x\":1}}", 0, "line 1, column 13: duplicate member name \"x\""},
	    {"{\"a\":1} x", 0, "line 1, column 9: unexpected characters after the JSON value"},
	    {"1 2", 0, "line 1, column 3: unexpected characters after the JSON value"},
	    {"[1]\0", 4, "line 1, column 4: unexpected characters after the JSON value"},
	    {"0x10", 0, "line 1, column 2: unexpected characters after the JSON value"},
	    {"tru", 0, "line 1, column 1: expected a value (invalid literal"},
	    {"True", 0, "line 1, column 1: expected a value"},
	    {"[nul]", 0, "line 1, column 2: expected a value (invalid literal"},
	    {"NaN", 0, "line 1, column 1: expected a value"},
	    {"[Infinity]", 0, "line 1, column 2: expected a value"},
	    {"-", 0, "line 1, column 2: expected a digit after '-' (end of input)"},
	    {"-x", 0, "line 1, column 2: expected a digit after '-'"},
	    {"+1", 0, "line 1, column 1: expected a value"},
	    {".5", 0, "line 1, column 1: expected a value"},
	    {"1.", 0, "line 1, column 3: expected a digit after '.' in a number (end of input)"},
	    {"1.e5", 0, "line 1, column 3: expected a digit after '.' in a number"},
	    {"1e", 0, "line 1, column 3: expected a digit in the exponent of a number"},
	    {"1e+", 0, "line 1, column 4: expected a digit in the exponent of a number"},
	    {"\"\\x\"", 0, "line 1, column 2: invalid escape '\\x' in a string"},
	    {"\"\\u12G4\"", 0, "line 1, column 2: expected four hex digits after '\\u'"},
	    {"\"\\u12\"", 0, "line 1, column 2: expected four hex digits after '\\u'"},
	    {"\"\xc0\xaf\"", 0, "line 1, column 2: invalid UTF-8 in a string"},
	    {"\"\xed\xa0\x80\"", 0, "line 1, column 2: invalid UTF-8 in a string"},
	    {"\"\xf4\x90\x80\x80\"", 0, "line 1, column 2: invalid UTF-8 in a string"},
	    {"\"\xe2\x82\"", 0, "line 1, column 2: invalid UTF-8 in a string"},
	    {"\"\x80\"", 0, "line 1, column 2: invalid UTF-8 in a string"},
	    /* columns count characters, not bytes */
	    {"\"\xc3\xa9\xe2\x82\xac\" x", 0, "line 1, column 6: unexpected characters"},
	    {"'a'", 0, "line 1, column 1: expected a value"},
	    {"/* c */ 1", 0, "line 1, column 1: expected a value"},
	    {"\xef\xbb\xbf"
	     "1",
	     0, "line 1, column 1: expected a value"},
	    {"[1,\r\n\r\n ]", 0, "line 3, column 2: trailing comma before ']'"},
	};

	for (size_t k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
		struct json *v = (struct json *)1;
		char err[256];
		size_t len = t[k].len ? t[k].len : strlen(t[k].text);
		int rc = json_parse(t[k].text, len, &v, err, sizeof(err));

		CU_ASSERT_EQUAL(rc, -1);
		CU_ASSERT_PTR_NULL(v);
		if (rc == 0) {
			fprintf(stderr, "accepted #%zu: %s\n", k, t[k].text);
			json_free(v);
		} else if (strncmp(err, t[k].err, strlen(t[k].err))) {
			fprintf(stderr, "#%zu %s\n  want %s\n  got  %s\n", k, t[k].text, t[k].err,
				err);
			CU_FAIL("error message");
		}
	}
}

static void test_depth_overflow(void)
{
	size_t n = JSON_MAX_DEPTH + 1;
	char *s = malloc(2 * n + 1), err[256], want[128];
	struct json *v;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	memset(s, '[', n);
	memset(s + n, ']', n);
	s[2 * n] = '\0';
	CU_ASSERT_EQUAL(json_parse(s, 2 * n, &v, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "line 1, column %zu: nesting deeper than %d", n,
		 JSON_MAX_DEPTH);
	CU_ASSERT_EQUAL(strncmp(err, want, strlen(want)), 0);
	free(s);
	/* a million levels: an error, not a stack overflow */
	n = 1000000;
	s = malloc(n);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	memset(s, '[', n);
	CU_ASSERT_EQUAL(json_parse(s, n, &v, err, sizeof(err)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "nesting deeper"));
	free(s);
}

static void test_error_buffer(void)
{
	struct json *v;
	char err[8];

	/* a short or absent buffer is not overrun */
	CU_ASSERT_EQUAL(json_parse("[", 1, &v, err, sizeof(err)), -1);
	CU_ASSERT_EQUAL(strlen(err), sizeof(err) - 1);
	CU_ASSERT_EQUAL(json_parse("[", 1, &v, NULL, 0), -1);
	CU_ASSERT_EQUAL(json_parse(NULL, 0, &v, NULL, 0), -1);
}

static void test_parse_file(void)
{
	char dir[] = "/tmp/test_json.XXXXXX", path[300], err[512], want[400];
	struct json *v = NULL;
	FILE *f;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/golden.json", dir);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(tcsim_doc, f);
	fclose(f);
	CU_ASSERT_EQUAL(json_parse_file(path, &v, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(json_string(json_get(json_at(json_get(v, "devices"), 0), "name")),
			       "eth0");
	json_free(v);

	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("{\n  \"a\": [1,\n   2,]\n}\n", f);
	fclose(f);
	CU_ASSERT_EQUAL(json_parse_file(path, &v, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s: line 3, column 6: trailing comma before ']'", path);
	CU_ASSERT_STRING_EQUAL(err, want);
	unlink(path);

	CU_ASSERT_EQUAL(json_parse_file(path, &v, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s: No such file or directory", path);
	CU_ASSERT_STRING_EQUAL(err, want);

	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fclose(f);
	CU_ASSERT_EQUAL(json_parse_file(path, &v, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s: line 1, column 1: expected a value (end of input)", path);
	CU_ASSERT_STRING_EQUAL(err, want);
	unlink(path);
	rmdir(dir);
}

/* ---- writing and round trip -------------------------------------------- */

static void test_write(void)
{
	struct json *v =
	    parse("{\"a\" :[1,-2.50e+3,true,false,null,\"q\\\"\\\\\\n\\u0001\xc3\xa9\"],"
		  "\"b\":{}, \"c\":[]}");
	char *s = written(v);

	CU_ASSERT_STRING_EQUAL(s, "{\"a\": [1, -2.50e+3, true, false, null, "
				  "\"q\\\"\\\\\\n\\u0001\xc3\xa9\"], \"b\": {}, \"c\": []}");
	free(s);
	json_free(v);
}

static void test_round_trip_tcsim(void)
{
	struct json *a = parse(tcsim_doc), *b;
	char *s1, *s2;

	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	s1 = written(a);
	b = parse(s1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	s2 = written(b);
	CU_ASSERT_STRING_EQUAL(s1, s2);
	CU_ASSERT_EQUAL(json_diff(a, b, NULL, NULL), 0);
	CU_ASSERT_EQUAL(json_len(json_get(json_at(json_get(b, "devices"), 0), "classes")), 3);
	free(s1);
	free(s2);
	json_free(a);
	json_free(b);
}

/* ---- flattening ----------------------------------------------------------- */

struct paths {
	char *text;
	size_t len;
	FILE *f;
	int leaves;
};

static int add_path(void *arg, const char *path, int depth, const struct json *v)
{
	struct paths *p = arg;

	fprintf(p->f, "%d %s\n", depth, path);
	if (json_type(v) != JSON_ARRAY && json_type(v) != JSON_OBJECT)
		p->leaves++;
	return 0;
}

static char *flatten(const char *doc, const struct json_key_rule *keys, int *leaves)
{
	struct json *v = parse(doc);
	struct paths p = {0};

	p.f = open_memstream(&p.text, &p.len);
	if (!v || !p.f)
		return NULL;
	json_flatten(v, keys, add_path, &p);
	fclose(p.f);
	json_free(v);
	if (leaves)
		*leaves = p.leaves;
	return p.text;
}

static void test_flatten_tcsim_paths(void)
{
	static const char *const want[] = {
	    "\n0 \n",
	    "\n1 time_ns\n",
	    "\n2 devices[eth0]\n",
	    "\n3 devices[eth0].delay_ns\n",
	    "\n4 devices[eth0].totals.sent\n",
	    "\n3 devices[eth0].drops\n",
	    "\n4 devices[eth0].rejects[shorter than an Ethernet header]\n",
	    "\n4 devices[eth0].classes[1:1]\n",
	    "\n5 devices[eth0].classes[1:1].packets\n",
	    "\n7 devices[eth0].classes[1:2].delay_ns.queue.p99\n",
	    "\n7 devices[eth0].classes[1:3].delay_ns.total.max\n",
	    "\n4 devices[eth0].verdicts[1:1]\n",
	    "\n5 devices[eth0].filters[49152/0x1].packets\n",
	    "\n5 devices[eth0].qdiscs[1:].kind\n",
	    "\n5 devices[eth0].qdiscs[10:].parent\n",
	};
	int leaves = 0;
	char *s = flatten(tcsim_doc, NULL, &leaves);
	char *nl;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	nl = malloc(strlen(s) + 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(nl);
	nl[0] = '\n';
	strcpy(nl + 1, s);
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++)
		if (!strstr(nl, want[k])) {
			fprintf(stderr, "missing path:%s", want[k]);
			CU_FAIL("flattened path");
		}
	/* 4 + 6 (device scalars) + 7 totals + 1 reject + 3 x (4 + 12)
	 * + 2 verdicts + 2 x 3 filter + 2 x 8 qdisc */
	CU_ASSERT_EQUAL(leaves, 4 + 6 + 7 + 1 + 3 * 16 + 2 + 6 + 16);
	free(nl);
	free(s);
}

static void test_flatten_keys(void)
{
	static const struct json_key_rule flows[] = {
	    {"flows", {"src", "dst"}},
	    {NULL, {"name"}},
	    {NULL, {NULL}},
	};
	char *s;

	/* index when no rule applies, nested arrays, repeated keys get #n */
	s = flatten("{\"x\": [[1], {\"name\": \"a\"}, {\"name\": \"a\"}, {\"name\": 3},"
		    " {\"name\": {}}, {\"name\": \"a\"}], \"a.b\": 1}",
		    NULL, NULL);
	CU_ASSERT_STRING_EQUAL(s, "0 \n1 x\n2 x[0]\n3 x[0][0]\n2 x[a]\n3 x[a].name\n2 x[a#2]\n"
				  "3 x[a#2].name\n2 x[3]\n3 x[3].name\n2 x[4]\n3 x[4].name\n"
				  "2 x[a#3]\n3 x[a#3].name\n1 [a.b]\n");
	free(s);
	/* a caller's table: a rule bound to one array name, members joined by / */
	s = flatten("{\"flows\": [{\"src\": \"h1\", \"dst\": \"h2\", \"name\": \"f\"}],"
		    " \"other\": [{\"src\": \"h1\", \"dst\": \"h2\"}]}",
		    flows, NULL);
	CU_ASSERT_STRING_EQUAL(s, "0 \n1 flows\n2 flows[h1/h2]\n3 flows[h1/h2].src\n"
				  "3 flows[h1/h2].dst\n3 flows[h1/h2].name\n1 other\n2 other[0]\n"
				  "3 other[0].src\n3 other[0].dst\n");
	free(s);
	/* bracketed text is escaped so that distinct values keep distinct paths */
	s = flatten("{\"x\": [{\"name\": \"a]b\"}, {\"name\": \"a#2\"}, {\"name\": \"a\\u0001\"}],"
		    " \"a][b\": 1, \"a\": {\"b\": 1}}",
		    NULL, NULL);
	CU_ASSERT_STRING_EQUAL(s, "0 \n1 x\n2 x[a\\]b]\n3 x[a\\]b].name\n2 x[a\\#2]\n"
				  "3 x[a\\#2].name\n2 x[a\\u0001]\n3 x[a\\u0001].name\n"
				  "1 [a\\]\\[b]\n1 a\n2 a.b\n");
	free(s);
}

static int stop_at_third(void *arg, const char *path, int depth, const struct json *v)
{
	return ++*(int *)arg == 3 ? 7 : 0;
}

static void test_flatten_stops(void)
{
	struct json *v = parse("[1, 2, 3, 4]");
	int n = 0;

	CU_ASSERT_EQUAL(json_flatten(v, NULL, stop_at_third, &n), 7);
	CU_ASSERT_EQUAL(n, 3);
	json_free(v);
}

/* ---- diff ---------------------------------------------------------------- */

static void test_diff_identical(void)
{
	struct diffres r = diff(tcsim_doc, tcsim_doc, NULL);

	CU_ASSERT_EQUAL(r.n, 0);
	CU_ASSERT_STRING_EQUAL(r.text, "");
	free(r.text);
	/* whitespace, number spelling and member order do not matter */
	r = diff("{\"a\": 1, \"b\": [1.0, 2e0]}", "{\"b\":[1,2],\"a\":10e-1}", NULL);
	CU_ASSERT_EQUAL(r.n, 0);
	CU_ASSERT_STRING_EQUAL(r.text, "");
	free(r.text);
}

static void test_diff_changed_count(void)
{
	char *a = subst(tcsim_doc, "\"packets\": 188, \"bytes\"", "\"packets\": 187, \"bytes\"");
	struct json_diff_opts o = {.rel_tol = 0.5, .abs_tol = 1000};
	struct diffres r = diff(tcsim_doc, a, NULL);

	CU_ASSERT_EQUAL(r.n, 1);
	CU_ASSERT_STRING_EQUAL(r.text,
			       "devices[eth0].classes[1:1].packets: expected 188, got 187 (-1)\n");
	free(r.text);
	/* latency tolerances do not apply to counts */
	r = diff(tcsim_doc, a, &o);
	CU_ASSERT_EQUAL(r.n, 1);
	free(r.text);
	free(a);
	/* nor to the device's configured delay_ns, a number, not a statistic */
	a = subst(tcsim_doc, "\"delay_ns\": 0,", "\"delay_ns\": 5,");
	r = diff(tcsim_doc, a, &o);
	CU_ASSERT_EQUAL(r.n, 1);
	CU_ASSERT_STRING_EQUAL(r.text, "devices[eth0].delay_ns: expected 0, got 5 (+5)\n");
	free(r.text);
	free(a);
}

static void test_diff_latency_tolerance(void)
{
	char *a = subst(tcsim_doc, "\"p99\": 1234567", "\"p99\": 1300000");
	struct json_diff_opts o = {.rel_tol = 0.01};
	struct diffres r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	r = diff(tcsim_doc, a, &o);
	CU_ASSERT_EQUAL(r.n, 1);
	CU_ASSERT_STRING_EQUAL(r.text, "devices[eth0].classes[1:2].delay_ns.queue.p99: expected "
				       "1234567, got 1300000 (+5.3%, tolerance 1%)\n");
	free(r.text);
	o.rel_tol = 0.06; /* within 6 % */
	r = diff(tcsim_doc, a, &o);
	CU_ASSERT_EQUAL(r.n, 0);
	CU_ASSERT_STRING_EQUAL(r.text, "");
	free(r.text);
	/* the edge: 65433 / 1234567 = 5.30003 % */
	o.rel_tol = 0.0530;
	r = diff(tcsim_doc, a, &o);
	CU_ASSERT_EQUAL(r.n, 1);
	free(r.text);
	o.rel_tol = 0.05301;
	r = diff(tcsim_doc, a, &o);
	CU_ASSERT_EQUAL(r.n, 0);
	free(r.text);
	o = (struct json_diff_opts){.abs_tol = 65433}; /* exactly the change */
	r = diff(tcsim_doc, a, &o);
	CU_ASSERT_EQUAL(r.n, 0);
	free(r.text);
	o.abs_tol = 65432;
	r = diff(tcsim_doc, a, &o);
	CU_ASSERT_EQUAL(r.n, 1);
	CU_ASSERT_STRING_EQUAL(r.text, "devices[eth0].classes[1:2].delay_ns.queue.p99: expected "
				       "1234567, got 1300000 (+5.3%, tolerance 65432 ns)\n");
	free(r.text);
	o.rel_tol = 0.01;
	r = diff(tcsim_doc, a, &o);
	CU_ASSERT_EQUAL(r.n, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.text, "(+5.3%, tolerance 1% or 65432 ns)"));
	free(r.text);
	/* exact by default */
	r = diff(tcsim_doc, a, NULL);
	CU_ASSERT_EQUAL(r.n, 1);
	CU_ASSERT_STRING_EQUAL(r.text, "devices[eth0].classes[1:2].delay_ns.queue.p99: expected "
				       "1234567, got 1300000 (+5.3%)\n");
	free(r.text);
	free(a);
	/* from zero there is no percentage */
	r = diff("{\"delay_ns\": {\"q\": {\"min\": 0}}}", "{\"delay_ns\": {\"q\": {\"min\": 12}}}",
		 &(struct json_diff_opts){.rel_tol = 0.5});
	CU_ASSERT_EQUAL(r.n, 1);
	CU_ASSERT_STRING_EQUAL(r.text, "delay_ns.q.min: expected 0, got 12 (+12, tolerance 50%)\n");
	free(r.text);
	/* only the six statistics: other members under delay_ns are exact */
	r = diff("{\"delay_ns\": {\"count\": 10, \"p99\": 100}}",
		 "{\"delay_ns\": {\"count\": 11, \"p99\": 101}}",
		 &(struct json_diff_opts){.rel_tol = 0.5});
	CU_ASSERT_EQUAL(r.n, 1);
	CU_ASSERT_STRING_EQUAL(r.text, "delay_ns.count: expected 10, got 11 (+1)\n");
	free(r.text);
}

static void test_diff_reordered_classes(void)
{
	static const char e[] =
	    "{\"classes\": [{\"classid\": \"1:1\", \"packets\": 5}, "
	    "{\"classid\": \"1:2\", \"packets\": 6}, {\"classid\": \"1:3\", "
	    "\"packets\": 7}], \"filters\": [{\"pref\": 1, \"handle\": \"0x1\"}, "
	    "{\"pref\": 2, \"handle\": \"0x1\"}]}";
	static const char a[] = "{\"filters\": [{\"handle\": \"0x1\", \"pref\": 2}, "
				"{\"pref\": 1, \"handle\": \"0x1\"}], \"classes\": [{\"classid\": "
				"\"1:3\", \"packets\": 7}, {\"packets\": 5, \"classid\": \"1:1\"}, "
				"{\"classid\": \"1:2\", \"packets\": 6}]}";
	struct diffres r = diff(e, a, NULL);

	CU_ASSERT_EQUAL(r.n, 0);
	CU_ASSERT_STRING_EQUAL(r.text, "");
	free(r.text);
	/* arrays without a key member are compared by position */
	r = diff("{\"x\": [1, 2, 3]}", "{\"x\": [3, 2, 1]}", NULL);
	CU_ASSERT_EQUAL(r.n, 2);
	CU_ASSERT_STRING_EQUAL(r.text,
			       "x[0]: expected 1, got 3 (+2)\nx[2]: expected 3, got 1 (-2)\n");
	free(r.text);
}

static void test_diff_only_in(void)
{
	char *a = subst(tcsim_doc, "\"verdicts\": {\"1:1\": 188, \"1:3\": 1}",
			"\"verdicts\": {\"1:1\": 188, \"1:3\": 1, \"4:\": 33}");
	char *e;
	struct diffres r = diff(tcsim_doc, a, NULL);

	CU_ASSERT_EQUAL(r.n, 1);
	CU_ASSERT_STRING_EQUAL(r.text, "devices[eth0].verdicts[4:]: only in actual (33)\n");
	free(r.text);
	r = diff(a, tcsim_doc, NULL);
	CU_ASSERT_EQUAL(r.n, 1);
	CU_ASSERT_STRING_EQUAL(r.text, "devices[eth0].verdicts[4:]: only in expected (33)\n");
	free(r.text);
	free(a);
	/* a whole missing element is one line, its value shortened */
	e = subst(tcsim_doc, "\"filters\": [",
		  "\"filters\": [{\"pref\": 7, \"handle\": \"0x2\", "
		  "\"packets\": 3}, ");
	r = diff(e, tcsim_doc, NULL);
	CU_ASSERT_EQUAL(r.n, 1);
	CU_ASSERT_STRING_EQUAL(r.text, "devices[eth0].filters[7/0x2]: only in expected "
				       "({\"pref\": 7, \"handle\": \"0x2\", \"packets\": 3})\n");
	free(r.text);
	free(e);
	r = diff("{\"d\": [{\"name\": \"eth0\", \"n\": 1}]}",
		 "{\"d\": [{\"name\": \"eth0\", \"n\": 1}, {\"name\": \"eth1\", \"n\": 2, "
		 "\"long\": \"0123456789012345678901234567890123456789\"}], \"z\": null}",
		 NULL);
	CU_ASSERT_EQUAL(r.n, 2);
	CU_ASSERT_STRING_EQUAL(r.text,
			       "d[eth1]: only in actual ({\"name\": \"eth1\", \"n\": 2, "
			       "\"long\": \"0123456789012345678901 ...})\nz: only in actual "
			       "(null)\n");
	free(r.text);
	/* an index-keyed array that got shorter; an empty object that lost a member */
	r = diff("{\"x\": [1, 2, 3], \"drops\": {\"limit\": 2}}", "{\"x\": [1, 2], \"drops\": {}}",
		 NULL);
	CU_ASSERT_EQUAL(r.n, 2);
	CU_ASSERT_STRING_EQUAL(r.text,
			       "x[2]: only in expected (3)\ndrops.limit: only in expected (2)\n");
	free(r.text);
}

static void test_diff_types_and_values(void)
{
	struct diffres r;

	r = diff(
	    "{\"a\": 3, \"b\": \"x\", \"c\": true, \"d\": [1], \"e\": null, \"f\": 1.5,"
	    " \"g\": 12345678901234567890123}",
	    "{\"a\": \"3\", \"b\": \"y\", \"c\": false, \"d\": {\"0\": 1}, \"e\": null, \"f\": 2,"
	    " \"g\": 12345678901234567890124}",
	    NULL);
	CU_ASSERT_EQUAL(r.n, 6);
	CU_ASSERT_STRING_EQUAL(r.text, "a: expected 3, got \"3\" (number, now string)\n"
				       "b: expected \"x\", got \"y\"\n"
				       "c: expected true, got false\n"
				       "d: expected [1], got {\"0\": 1} (array, now object)\n"
				       "f: expected 1.5, got 2 (+0.5)\n"
				       "g: expected 12345678901234567890123, got "
				       "12345678901234567890124\n");
	free(r.text);
	/* documents that are not objects */
	r = diff("1", "2", NULL);
	CU_ASSERT_EQUAL(r.n, 1);
	CU_ASSERT_STRING_EQUAL(r.text, "(root): expected 1, got 2 (+1)\n");
	free(r.text);
	/* int64 extremes do not overflow the difference */
	r = diff("[-9223372036854775808]", "[9223372036854775807]", NULL);
	CU_ASSERT_EQUAL(r.n, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.text, "[0]: expected -9223372036854775808, got "
					      "9223372036854775807 (+1.84467e+19)"));
	free(r.text);
}

static void test_diff_ignore_and_limit(void)
{
	static const char *const ignore[] = {"time_ns", "devices[eth0].qdiscs", NULL};
	static const char *const near[] = {"time", "devices[eth0].qdisc", NULL};
	char *a = subst(tcsim_doc, "17466681750", "17466681751"), *b;
	struct json_diff_opts o = {.ignore = ignore};
	struct diffres r;

	b = subst(a, "\"peak_qlen\": 100}", "\"peak_qlen\": 99}");
	r = diff(tcsim_doc, b, &o);
	CU_ASSERT_EQUAL(r.n, 0);
	free(r.text);
	/* prefixes match whole path segments only */
	o.ignore = near;
	r = diff(tcsim_doc, b, &o);
	CU_ASSERT_EQUAL(r.n, 2);
	CU_ASSERT_STRING_EQUAL(r.text,
			       "time_ns: expected 17466681750, got 17466681751 (+1)\n"
			       "devices[eth0].qdiscs[1:].peak_qlen: expected 100, got 99 (-1)\n");
	free(r.text);
	free(a);
	free(b);

	r = diff("[1, 2, 3, 4, 5]", "[0, 0, 0, 0, 0]", &(struct json_diff_opts){.max_lines = 2});
	CU_ASSERT_EQUAL(r.n, 5);
	CU_ASSERT_STRING_EQUAL(r.text, "[0]: expected 1, got 0 (-1)\n[1]: expected 2, got 0 (-2)\n"
				       "... and 3 more\n");
	free(r.text);
	r = diff("[1, 2]", "[0, 0]", &(struct json_diff_opts){.max_lines = 2});
	CU_ASSERT_EQUAL(r.n, 2);
	CU_ASSERT_STRING_EQUAL(r.text,
			       "[0]: expected 1, got 0 (-1)\n[1]: expected 2, got 0 (-2)\n");
	free(r.text);
}

/* "*.name": a member at any depth, never a member that only ends alike */
static void test_diff_ignore_member(void)
{
	static const char *const ignore[] = {"*.schema_version", NULL};
	struct json_diff_opts o = {.ignore = ignore};
	struct diffres r;

	r = diff("{\"s\": [{\"name\": \"a\", \"r\": {\"schema_version\": \"1.0\", \"x\": 1}}]}",
		 "{\"s\": [{\"name\": \"a\", \"r\": {\"schema_version\": \"1.1\", \"x\": 1, "
		 "\"my_schema_version\": 2}}]}",
		 &o);
	CU_ASSERT_EQUAL(r.n, 1);
	CU_ASSERT_STRING_EQUAL(r.text, "s[a].r.my_schema_version: only in actual (2)\n");
	free(r.text);
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("json", NULL, NULL);
	if (!s)
		return 1;
	CU_add_test(s, "scalars", test_scalars);
	CU_add_test(s, "numbers: text, double, exact int64", test_numbers);
	CU_add_test(s, "string escapes and surrogate pairs", test_string_escapes);
	CU_add_test(s, "arrays, objects, member order, accessors", test_containers);
	CU_add_test(s, "nesting up to the depth limit", test_max_depth_accepted);
	CU_add_test(s, "5000 members, one duplicate", test_large_object);
	CU_add_test(s, "invalid input: rule and position", test_invalid_table);
	CU_add_test(s, "depth overflow is an error", test_depth_overflow);
	CU_add_test(s, "error buffers", test_error_buffer);
	CU_add_test(s, "json_parse_file names the file", test_parse_file);
	CU_add_test(s, "compact writer", test_write);
	CU_add_test(s, "round trip of tcsim's JSON", test_round_trip_tcsim);
	CU_add_test(s, "flattened paths of tcsim's JSON", test_flatten_tcsim_paths);
	CU_add_test(s, "key rules, indices, repeated keys", test_flatten_keys);
	CU_add_test(s, "a visitor stops the walk", test_flatten_stops);
	CU_add_test(s, "diff: identical", test_diff_identical);
	CU_add_test(s, "diff: a changed count", test_diff_changed_count);
	CU_add_test(s, "diff: latency tolerance", test_diff_latency_tolerance);
	CU_add_test(s, "diff: keyed arrays reordered", test_diff_reordered_classes);
	CU_add_test(s, "diff: only in expected / actual", test_diff_only_in);
	CU_add_test(s, "diff: type changes and values", test_diff_types_and_values);
	CU_add_test(s, "diff: ignore prefixes and line limit", test_diff_ignore_and_limit);
	CU_add_test(s, "diff: ignore a member at any depth", test_diff_ignore_member);
	return unit_run();
}
