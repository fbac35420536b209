/* fuzz_json.c - the strict JSON reader behind tcsim check, the writer,
 * flattening and the golden diff: what parses must write back to text that
 * parses to a document with no differences from the first; and a diff
 * against a real golden never fails. */
#include "fuzz.h"

#include "json.h"
#include "json_diff.h"

static FILE *devnull;
static struct json *golden;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char doc[] =
	    "{\"tcsim\":1,\"simulations\":[{\"name\":\"sim1\",\"result\":{\"devices\":[{\"name\":"
	    "\"eth0\","
	    "\"classes\":[{\"classid\":\"1:1\",\"packets\":587,\"delay_ns\":{\"queue\":{\"min\":0,"
	    "\"p99\":1234567}}}],\"filters\":[{\"pref\":49152,\"handle\":\"0x1\",\"packets\":3}],"
	    "\"verdicts\":{\"4:\":33}}]}}]}";
	char err[256];

	devnull = fopen("/dev/null", "w");
	if (json_parse(doc, sizeof(doc) - 1, &golden, err, sizeof(err)))
		abort();
	return 0;
}

static int visit(void *arg, const char *path, int depth, const struct json *v)
{
	(*(size_t *)arg)++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json *v = NULL, *back = NULL;
	char err[512], *text = NULL;
	size_t textlen = 0, n = 0;
	struct json_diff_opts o = {.rel_tol = 0.01, .abs_tol = 10, .max_lines = 5};
	FILE *f;

	if (!devnull)
		LLVMFuzzerInitialize(NULL, NULL);
	if (json_parse((const char *)data, size, &v, err, sizeof(err))) {
		if (!err[0] || strchr(err, '\n'))
			abort();
		return 0;
	}
	f = open_memstream(&text, &textlen);
	if (!f)
		abort();
	json_write(f, v);
	fclose(f);
	if (json_parse(text, textlen, &back, err, sizeof(err))) {
		fprintf(stderr, "fuzz_json: what json_write wrote does not parse: %s\n", err);
		abort();
	}
	if (json_diff(v, back, NULL, NULL) != 0) {
		fprintf(stderr, "fuzz_json: written and read back, the document differs\n");
		abort();
	}
	if (json_flatten(v, NULL, visit, &n) < 0)
		abort();
	if (json_diff(golden, v, &o, devnull) < 0 || json_diff(v, golden, NULL, devnull) < 0)
		abort();
	json_free(back);
	json_free(v);
	free(text);
	return 0;
}
