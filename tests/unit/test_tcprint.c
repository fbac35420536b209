/* test_tcprint.c - the printer behind tc show and tc -j: one call per
 * field gives the text or the JSON (iproute2 6.1's layout, -p's too),
 * strings escaped, PR_TEXT and PR_JSON fields only in their mode. */
#include "unit.h"
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcprint.h"

/* A tiny dump in the style of the kinds: an object with scalars, a
 * priomap-like array, a nested object and fields of one mode only. */
static void dump(struct tcprint *p)
{
	pr_open_array(p, NULL, NULL);
	pr_open_object(p, NULL);
	pr_string(p, PR_ANY, "kind", "qdisc %s ", "prio");
	pr_bool(p, PR_ANY, "root", "root ", 1);
	pr_open_object(p, "options");
	pr_uint(p, PR_ANY, "bands", "bands %u ", 3);
	pr_open_array(p, "priomap", "priomap");
	for (unsigned i = 0; i < 3; i++)
		pr_uint(p, PR_ANY, NULL, " %u", i);
	pr_close_array(p, NULL);
	pr_bool(p, PR_JSON, "multiqueue", NULL, 0);
	pr_text(p, " text-only %d", 7);
	pr_hex(p, PR_ANY, "hex", " %08x", 0xab);
	pr_0xhex(p, PR_ANY, "ohex", " %#llx", 0x10);
	pr_s64(p, PR_ANY, "neg", " %lld", -5);
	pr_float(p, PR_ANY, "f", " %g", 0.25);
	pr_null(p, PR_ANY, "none", " none");
	pr_string(p, PR_ANY, "s", " %s", "a\"b\\c\n\x01");
	pr_close_object(p);
	pr_close_object(p);
	pr_open_object(p, NULL);
	pr_open_array(p, "empty", NULL);
	pr_close_array(p, NULL);
	pr_close_object(p);
	pr_close_array(p, NULL);
	pr_end(p);
}

static char *run(int json, int pretty)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct tcprint p;

	pr_init(&p, f, json, pretty);
	dump(&p);
	fclose(f);
	return buf;
}

static void test_text(void)
{
	char *t = run(0, 0);

	CU_ASSERT_STRING_EQUAL(t, "qdisc prio root bands 3 priomap 0 1 2 text-only 7 000000ab "
				  "0x10 -5 0.25 none a\"b\\c\n\x01");
	free(t);
}

static void test_json(void)
{
	char *t = run(1, 0);

	CU_ASSERT_STRING_EQUAL(t, "[{\"kind\":\"prio\",\"root\":true,\"options\":{\"bands\":3,"
				  "\"priomap\":[0,1,2],\"multiqueue\":false,\"hex\":\"ab\","
				  "\"ohex\":\"0x10\",\"neg\":-5,\"f\":0.25,\"none\":null,"
				  "\"s\":\"a\\\"b\\\\c\\n\\u0001\"}},{\"empty\":[]}]\n");
	free(t);
}

static void test_pretty(void)
{
	char *t = run(1, 1);

	CU_ASSERT_STRING_EQUAL(t, "[ {\n"
				  "        \"kind\": \"prio\",\n"
				  "        \"root\": true,\n"
				  "        \"options\": {\n"
				  "            \"bands\": 3,\n"
				  "            \"priomap\": [ 0,1,2 ],\n"
				  "            \"multiqueue\": false,\n"
				  "            \"hex\": \"ab\",\n"
				  "            \"ohex\": \"0x10\",\n"
				  "            \"neg\": -5,\n"
				  "            \"f\": 0.25,\n"
				  "            \"none\": null,\n"
				  "            \"s\": \"a\\\"b\\\\c\\n\\u0001\"\n"
				  "        }\n"
				  "    },{\n"
				  "        \"empty\": [ ]\n"
				  "    } ]\n");
	free(t);
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("tcprint", NULL, NULL);
	if (!s)
		return 1;
	CU_add_test(s, "text: fmt of PR_ANY and PR_TEXT fields", test_text);
	CU_add_test(s, "JSON: keys, arrays, escapes", test_json);
	CU_add_test(s, "JSON -p: iproute2's layout", test_pretty);
	return unit_run();
}
