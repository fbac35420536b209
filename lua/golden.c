/* golden.c - a scenario's results as one JSON document: written (--json),
 * stored as its golden (--write-golden) or compared with one (--expect, as
 * `tcsim check` runs it). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "json_diff.h"
#include "lua_tcsim.h"
#include "outfile.h"
#include "report.h"
#include "version.h"

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* s as the body of a JSON string (a scenario names its simulations freely) */
static void json_chars(FILE *f, const char *s)
{
	for (const char *p = s; *p; p++)
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if ((unsigned char)*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
}

/* The kernel mode of the scenario's simulations: the rules they model
 * (tcsim.sim{kernel = "current"|"3.13"}, and sfq_allot = "bytes" for
 * 6.13's sfq), each mode once, in creation order ("; " between them);
 * "none" without a simulation. */
static void kernel_mode(lua_State *L, struct scenario *sc, char *buf, size_t n)
{
	size_t k = 0;
	unsigned seen = 0; /* bit (3.13 ? 2 : 0) + bytes: the four modes */

	buf[0] = 0;
	lua_rawgeti(L, LUA_REGISTRYINDEX, sc->sims_ref);
	for (int i = 1; i <= sc->nsims; i++) {
		struct lsim *ls;
		unsigned bit;

		lua_rawgeti(L, -1, i);
		ls = luaL_testudata(L, -1, LSIM_MT);
		lua_pop(L, 1);
		if (!ls || !ls->s)
			continue;
		bit = 1u << ((ls->s->cfg.kernel == BPF_KERNEL_3_13 ? 2 : 0) +
			     !!ls->s->cfg.sfq_allot_bytes);
		if (seen & bit)
			continue;
		seen |= bit;
		if (k < n)
			k += (size_t)snprintf(
			    buf + k, n - k, "%s%s%s", k ? "; " : "",
			    ls->s->cfg.kernel == BPF_KERNEL_3_13 ? "3.13" : "current",
			    ls->s->cfg.sfq_allot_bytes ? ", sfq-allot bytes" : "");
	}
	lua_pop(L, 1);
	if (!buf[0])
		snprintf(buf, n, "none");
}

/* Every simulation's results, in creation order, as one JSON document; a
 * golden (made_with) also records which tcsim made it, and the kernel
 * mode, which comparisons ignore. */
static char *results_doc(lua_State *L, struct scenario *sc, size_t *len, int made_with)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int first = 1;

	if (!f)
		return NULL;
	fputs("{\n\"tcsim\": 1,\n\"schema_version\": \"" REPORT_SCHEMA_VERSION
	      "\",\n\"scenario\": \"",
	      f);
	json_chars(f, base_name(sc->path));
	fputs("\",\n", f);
	if (made_with) {
		char mode[256];

		kernel_mode(L, sc, mode, sizeof(mode));
		fputs("\"made_with\": {\"tcsim\": \"", f);
		json_chars(f, tcsim_version());
		fputs("\", \"kernel\": \"", f);
		json_chars(f, mode);
		fputs("\"},\n", f);
	}
	fputs("\"simulations\": [", f);
	lua_rawgeti(L, LUA_REGISTRYINDEX, sc->sims_ref);
	for (int i = 1; i <= sc->nsims; i++) {
		struct lsim *ls;
		char *r;
		size_t rl;

		lua_rawgeti(L, -1, i);
		ls = luaL_testudata(L, -1, LSIM_MT);
		lua_pop(L, 1);
		if (!ls || !ls->s)
			continue; /* closed by the script */
		r = lsim_results_json(ls->s, &rl);
		if (!r) {
			fclose(f);
			free(buf);
			lua_pop(L, 1);
			return NULL;
		}
		fprintf(f, "%s\n{\"name\": \"", first ? "" : ",");
		json_chars(f, ls->name);
		fputs("\", \"result\":\n", f);
		fwrite(r, 1, rl, f);
		fputs("}", f);
		free(r);
		first = 0;
	}
	lua_pop(L, 1);
	fputs("\n]\n}\n", f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* path whole, or not at all; "-" = stdout */
static int write_whole(const char *path, const char *text, size_t len, const char *what, FILE *err)
{
	struct outfile o;
	int r;

	if (!strcmp(path, "-")) {
		fwrite(text, 1, len, stdout);
		return fflush(stdout) ? 1 : 0;
	}
	if (outfile_open(&o, path, "w")) {
		fprintf(err, "tcsim: %s %s: %s\n", what, path, strerror(errno));
		return 1;
	}
	fwrite(text, 1, len, o.f);
	if ((r = outfile_commit(&o)))
		fprintf(err, "tcsim: %s %s: %s\n", what, path, strerror(-r));
	outfile_abort(&o);
	return r ? 1 : 0;
}

/* --junit / --tap: each difference a failed check named by its JSON path
 * (all of them, whatever --max-lines), or one passed check when none. */
static void golden_cases(struct scenario *sc, const struct json *want, const struct json *got,
			 const struct json_diff_opts *d0)
{
	struct json_diff_opts d = *d0;
	char *buf = NULL, *line, *next, name[600];
	size_t len = 0;
	FILE *f;
	int n;

	d.max_lines = 0;
	f = open_memstream(&buf, &len);
	if (!f) {
		sc->ci.oom = 1;
		return;
	}
	n = json_diff(want, got, &d, f);
	fclose(f);
	if (n == 0) {
		snprintf(name, sizeof(name), "results same as %s", sc->o->expect);
		(void)ci_add(&sc->ci, name, sc->o->expect, 0, CI_PASS, NULL);
	}
	for (line = buf; n > 0 && line && *line; line = next) {
		char *colon;

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		colon = strstr(line, ": ");
		if (colon)
			*colon = 0;
		snprintf(name, sizeof(name), "golden %s: %s", sc->o->expect, line);
		(void)ci_add(&sc->ci, name, sc->o->expect, 0, CI_FAIL, colon ? colon + 2 : line);
	}
	if (n < 0)
		sc->ci.oom = 1;
	free(buf);
}

/* s on one line: a golden's control characters print as '?' */
/* s with control characters as '?', into buf (cut to its size) */
static const char *line_safe(const char *s, char *buf, size_t size)
{
	size_t i = 0;

	for (; *s && i + 1 < size; s++)
		buf[i++] = (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s;
	buf[i] = 0;
	return buf;
}

/* One line when the golden was made by another release of tcsim, or for
 * another kernel mode, than this run: the results compare all the same
 * (made_with is ignored), but a difference may come from there. Another
 * commit of the same release is said only when the results differ, so
 * that a CI run on every commit is not one note per golden. A golden
 * without made_with (made before tcsim recorded it) gets no line. */
static void made_with_note(lua_State *L, struct scenario *sc, const struct json *want, int ndiff)
{
	const struct json *mw = json_get(want, "made_with");
	const char *v = json_string(json_get(mw, "tcsim")),
		   *k = json_string(json_get(mw, "kernel"));
	const char *me = tcsim_version();
	char mode[256];
	char vs[128], ks[256], note[1024];
	size_t vl, ml;

	if (!v || !k)
		return;
	kernel_mode(L, sc, mode, sizeof(mode));
	vl = tcsim_release_len(v);
	ml = tcsim_release_len(me);
	if (!strcmp(k, mode) && vl == ml && !strncmp(v, me, vl) && !(ndiff && strcmp(v, me)))
		return;
	snprintf(note, sizeof(note),
		 "%s was made by tcsim %s, kernel %s; this is tcsim %s, kernel %s", sc->o->expect,
		 line_safe(v, vs, sizeof(vs)), line_safe(k, ks, sizeof(ks)), me, mode);
	printf("check %s: %s\n", sc->o->path, note);
	if (sc->o->junit || sc->o->tap)
		(void)ci_note(&sc->ci, note);
}

/* --expect: the differences, on stdout; 0 when none. */
static int compare_golden(lua_State *L, struct scenario *sc, const char *text, size_t len,
			  FILE *errf)
{
	const struct scenario_opts *o = sc->o;
	struct json *want = NULL, *got = NULL;
	struct json_diff_opts d = {0};
	char err[1024];
	int n;

	if (json_parse_file(o->expect, &want, err, sizeof(err))) {
		fprintf(errf, "tcsim check: %s\n", err);
		if (o->junit || o->tap)
			(void)ci_add(&sc->ci, "golden file readable", o->expect, 0, CI_ERROR, err);
		return 2; /* unreadable input, not a difference */
	}
	if (json_parse(text, len, &got, err, sizeof(err))) {
		fprintf(errf, "tcsim check: internal error: results are not JSON: %s\n", err);
		json_free(want);
		return 1;
	}
	/* a golden records results: a renamed scenario keeps its golden */
	/* ... and which tcsim made it: a new version does not fail every golden;
	 * the schema's version is told apart, not counted as a difference */
	static const char *const ignore[] = {"scenario", "made_with", "schema_version",
					     "*.schema_version", NULL};
	const char *gv = json_string(json_get(want, "schema_version"));

	d.ignore = ignore;
	d.rel_tol = o->tol_rel;
	d.abs_tol = (double)o->tol_abs_ns;
	d.max_lines = o->max_diff_lines > 0 ? (size_t)o->max_diff_lines : 0;
	if (o->junit || o->tap)
		golden_cases(sc, want, got, &d);
	n = json_diff(want, got, &d, stdout);
	if (n >= 0)
		made_with_note(L, sc, want, n);
	if (n > 0 && (!gv || strcmp(gv, REPORT_SCHEMA_VERSION))) {
		char gs[64], note[1024];

		snprintf(note, sizeof(note),
			 "%s holds results of schema %s, tcsim writes %s: members added since "
			 "show as only in actual (--write-golden renews it)",
			 o->expect, gv ? line_safe(gv, gs, sizeof(gs)) : "1.0",
			 REPORT_SCHEMA_VERSION);
		printf("note: %s\n", note);
		if (o->junit || o->tap)
			(void)ci_note(&sc->ci, note);
	}
	json_free(want);
	json_free(got);
	if (n < 0) {
		fprintf(errf, "tcsim check: out of memory\n");
		return 1;
	}
	if (n) {
		printf("check %s: %d difference%s from %s\n", o->path, n, n == 1 ? "" : "s",
		       o->expect);
		return 1;
	}
	printf("check %s: same as %s\n", o->path, o->expect);
	return 0;
}

/* --json, --write-golden and --expect, once the scenario has run: 0, or 1
 * after printing why (a difference, an output not written), or 2 when the
 * golden cannot be read (missing, malformed). */
int scenario_write_results(lua_State *L, struct scenario *sc)
{
	const struct scenario_opts *o = sc->o;
	size_t len;
	char *doc = results_doc(L, sc, &len, 0);
	int rc = 0;

	if (!doc) {
		fprintf(sc->err, "tcsim: out of memory\n");
		return 1;
	}
	if (o->json && write_whole(o->json, doc, len, "--json", sc->err))
		rc = 1;
	if (o->write_golden && sc->failed) {
		/* a golden records results someone checked: not failing ones */
		fprintf(sc->err,
			"tcsim check: %s not written: the scenario's expectations failed\n",
			o->write_golden);
	} else if (o->write_golden) {
		size_t glen;
		char *golden = results_doc(L, sc, &glen, 1);

		if (!golden) {
			fprintf(sc->err, "tcsim: out of memory\n");
			rc = 1;
		} else if (write_whole(o->write_golden, golden, glen, "--write-golden", sc->err))
			rc = 1;
		else
			printf("check %s: results written to %s\n", o->path, o->write_golden);
		free(golden);
	}
	if (o->expect) {
		int c = compare_golden(L, sc, doc, len, sc->err);

		if (c)
			rc = c;
	}
	free(doc);
	return rc;
}
