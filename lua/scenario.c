/* scenario.c - runs a Lua 5.4 scenario: a fresh interpreter with the
 * standard libraries and the tcsim API, the script's errors reported with
 * a traceback, its expectations summed up, and its simulations' results
 * written (--json), stored (--write-golden) or compared with stored ones
 * (--expect). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lualib.h>

#include "json.h"
#include "kcheck.h"
#include "lint.h"
#include "infile.h"
#include "lua_tcsim.h"
#include "qdisc.h"

/* ---- small helpers in the tcsim table ---- */

static int l_time(lua_State *L)
{
	lua_pushinteger(L, (lua_Integer)opt_time_ns(L, 1, "tcsim.time"));
	return 1;
}

static int l_rate(lua_State *L)
{
	lua_pushinteger(L, (lua_Integer)opt_rate_bps(L, 1, "tcsim.rate"));
	return 1;
}

static int l_ms(lua_State *L)
{
	lua_pushnumber(L, luaL_checknumber(L, 1) / 1e6);
	return 1;
}

static int l_us(lua_State *L)
{
	lua_pushnumber(L, luaL_checknumber(L, 1) / 1e3);
	return 1;
}

/* print, to the scenario's output stream */
static int l_print(lua_State *L)
{
	struct scenario *sc = scenario_get(L);
	int n = lua_gettop(L);

	for (int i = 1; i <= n; i++) {
		size_t len;
		const char *s = luaL_tolstring(L, i, &len);

		if (i > 1)
			fputc('\t', sc->out);
		fwrite(s, 1, len, sc->out);
		lua_pop(L, 1);
	}
	fputc('\n', sc->out);
	return 0;
}

static const luaL_Reg tcsim_fns[] = {
	{"time", l_time}, {"rate", l_rate}, {"ms", l_ms}, {"us", l_us}, {NULL, NULL},
};

static int msgh(lua_State *L)
{
	const char *msg = lua_tostring(L, 1);

	if (!msg) {
		if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
			msg = lua_tostring(L, -1);
		else
			msg = lua_pushfstring(L, "(an error object of type %s)", luaL_typename(L, 1));
	}
	luaL_traceback(L, L, msg, 1);
	return 1;
}

/* The scenario's text; *why says what went wrong (a FIFO is refused, not
 * waited on: infile.h). */
static int read_file(const char *path, char **text, size_t *len, const char **why)
{
	FILE *f;
	char *buf = NULL;
	size_t cap = 0, n = 0;
	int e = infile_open(&f, path, why);

	if (e)
		return e;
	*why = "out of memory";
	for (;;) {
		size_t r;

		if (n == cap) {
			char *nb = realloc(buf, cap ? 2 * cap : 65536);

			if (!nb) {
				free(buf);
				fclose(f);
				return -ENOMEM;
			}
			buf = nb;
			cap = cap ? 2 * cap : 65536;
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	if (ferror(f)) {
		e = errno ? errno : EIO;
		*why = strerror(e);

		free(buf);
		fclose(f);
		return -e;
	}
	fclose(f);
	*text = buf;
	*len = n;
	return 0;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* Every simulation's results, in creation order, as one JSON document. */
static char *results_doc(lua_State *L, struct scenario *sc, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int first = 1;

	if (!f)
		return NULL;
	fputs("{\n\"tcsim\": 1,\n\"scenario\": \"", f);
	for (const char *p = base_name(sc->path); *p; p++)
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if ((unsigned char)*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	fputs("\",\n\"simulations\": [", f);
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
		fprintf(f, "%s\n{\"name\": \"%s\", \"result\":\n", first ? "" : ",", ls->name);
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
static int write_whole(const char *path, const char *text, size_t len, const char *what)
{
	char tmp[4200];
	FILE *f;

	if (!strcmp(path, "-")) {
		fwrite(text, 1, len, stdout);
		return fflush(stdout) ? 1 : 0;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "tcsim: %s %s: %s\n", what, path, strerror(errno));
		return 1;
	}
	fwrite(text, 1, len, f);
	if (fflush(f) || ferror(f) || fclose(f) || rename(tmp, path)) {
		fprintf(stderr, "tcsim: %s %s: %s\n", what, path, strerror(errno));
		unlink(tmp);
		return 1;
	}
	return 0;
}

/* --expect: the differences, on stdout; 0 when none. */
static int compare_golden(const struct scenario_opts *o, const char *text, size_t len)
{
	struct json *want = NULL, *got = NULL;
	struct json_diff_opts d = {0};
	char err[1024];
	int n;

	if (json_parse_file(o->expect, &want, err, sizeof(err))) {
		fprintf(stderr, "tcsim check: %s\n", err);
		return 1;
	}
	if (json_parse(text, len, &got, err, sizeof(err))) {
		fprintf(stderr, "tcsim check: internal error: results are not JSON: %s\n", err);
		json_free(want);
		return 1;
	}
	d.rel_tol = o->tol_rel;
	d.abs_tol = (double)o->tol_abs_ns;
	d.max_lines = o->max_diff_lines > 0 ? (size_t)o->max_diff_lines : 0;
	n = json_diff(want, got, &d, stdout);
	json_free(want);
	json_free(got);
	if (n < 0) {
		fprintf(stderr, "tcsim check: out of memory\n");
		return 1;
	}
	if (n) {
		printf("check %s: %d difference%s from %s\n", o->path, n, n == 1 ? "" : "s", o->expect);
		return 1;
	}
	printf("check %s: same as %s\n", o->path, o->expect);
	return 0;
}


/* ---- tcsim kernel-check SCENARIO.lua ---- */

/* Every simulation's devices that received traffic: their tc commands and
 * inputs (synthetic sources saved to temporary pcaps) through kernel_check.
 * 0 same, 1 a difference or an error, 2 cannot run here. */
static int kcheck_scenario(lua_State *L, struct scenario *sc)
{
	char dir[] = "/tmp/tcsim-kcheck-XXXXXX";
	int rc = 0, checked = 0, nfiles = 0;

	if (!mkdtemp(dir)) {
		fprintf(stderr, "tcsim kernel-check: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	lua_rawgeti(L, LUA_REGISTRYINDEX, sc->sims_ref);
	for (int i = 1; i <= sc->nsims && rc != 2; i++) {
		struct lsim *ls;

		lua_rawgeti(L, -1, i);
		ls = luaL_testudata(L, -1, LSIM_MT);
		lua_pop(L, 1);
		if (!ls || !ls->s)
			continue;
		for (int k = 0; k < ls->ninputs && rc != 2; k++) {
			const char *dev = ls->inputs[k].dev;
			const char **caps;
			struct kcheck_opts ko = {0};
			char err[1024];
			int n = 0, done = 0, r;

			for (int j = 0; j < k; j++)
				done |= !strcmp(ls->inputs[j].dev, dev);
			if (done)
				continue; /* this device was checked with its first input */
			caps = calloc((size_t)ls->ninputs, sizeof(*caps));
			if (!caps) {
				rc = 1;
				break;
			}
			for (int j = k; j < ls->ninputs && rc != 1; j++) {
				struct lsim_input *in = &ls->inputs[j];
				char path[4200];
				int64_t w;

				if (strcmp(in->dev, dev))
					continue;
				if (in->capture) {
					caps[n++] = in->capture;
					continue;
				}
				snprintf(path, sizeof(path), "%s/synth%d.pcap", dir, ++nfiles);
				w = synth_save_pcap(in->synth, path, err, sizeof(err));
				if (w < 0) {
					fprintf(stderr, "tcsim kernel-check: %s\n", err);
					rc = 1;
					break;
				}
				if (!(caps[n++] = strdup(path)))
					rc = 1;
			}
			if (rc == 1) {
				for (int j = 0; j < n; j++)
					if (!strncmp(caps[j], dir, strlen(dir)))
						free((char *)caps[j]);
				free(caps);
				break;
			}
			printf("== simulation %s, device %s\n", ls->name, dev);
			fflush(stdout);
			ko.seed = ls->s->cfg.seed;
			r = kernel_check(ls->tclog ? ls->tclog : "", sc->path, sc->dir[0] ? sc->dir : NULL, dev,
					 caps, n, &ko, stdout, err, sizeof(err));
			fflush(stdout);
			if (r == KCHECK_CANNOT_RUN) {
				fprintf(stderr, "tcsim kernel-check: cannot run here: %s\n", err);
				rc = 2;
			} else if (r == KCHECK_ERROR) {
				fprintf(stderr, "tcsim kernel-check: %s\n", err);
				rc = 1;
			} else if (r == KCHECK_DIFF) {
				rc = 1;
			}
			checked++;
			for (int j = 0; j < n; j++)
				if (!strncmp(caps[j], dir, strlen(dir))) {
					unlink(caps[j]);
					free((char *)caps[j]);
				}
			free(caps);
		}
	}
	lua_pop(L, 1);
	rmdir(dir);
	if (!checked && rc == 0) {
		fprintf(stderr, "tcsim kernel-check: %s: no simulation received traffic\n", sc->path);
		return 1;
	}
	return rc;
}

int scenario_main(const struct scenario_opts *o)
{
	struct scenario sc = {0};
	lua_State *L = NULL;
	const char *slash, *why;
	int rc = 0, r;

	sc.o = o;
	sc.path = o->path;
	sc.out = stdout;
	if (o->json && !strcmp(o->json, "-"))
		sc.out = stderr;
	if (o->quiet) {
		sc.out = fopen("/dev/null", "w");
		if (!sc.out) {
			fprintf(stderr, "tcsim: /dev/null: %s\n", strerror(errno));
			return 1;
		}
	}
	slash = strrchr(o->path, '/');
	if (slash)
		snprintf(sc.dir, sizeof(sc.dir), "%.*s", (int)(slash - o->path), o->path);
	if (slash == o->path)
		snprintf(sc.dir, sizeof(sc.dir), "/");
	r = read_file(o->path, &sc.src, &sc.srclen, &why);
	if (r) {
		fprintf(stderr, "tcsim: %s: %s\n", o->path, why);
		rc = 1;
		goto out;
	}
	L = luaL_newstate();
	if (!L) {
		fprintf(stderr, "tcsim: out of memory\n");
		rc = 1;
		goto out;
	}
	luaL_openlibs(L);
	scenario_set(L, &sc);
	lua_newtable(L);
	sc.sims_ref = luaL_ref(L, LUA_REGISTRYINDEX);
	lua_pushcfunction(L, l_print);
	lua_setglobal(L, "print");

	luaL_newlib(L, tcsim_fns);
	lsim_open(L);
	ltraffic_open(L);
	lexpect_open(L);
	lua_pushstring(L, sc.dir[0] ? sc.dir : ".");
	lua_setfield(L, -2, "dir");
	lua_setglobal(L, "tcsim");

	lua_createtable(L, o->argc, 1);
	lua_pushstring(L, o->path);
	lua_rawseti(L, -2, 0);
	for (int i = 0; i < o->argc; i++) {
		lua_pushstring(L, o->argv[i]);
		lua_rawseti(L, -2, i + 1);
	}
	lua_setglobal(L, "arg");

	lua_pushcfunction(L, msgh);
	{
		char chunk[4200];

		snprintf(chunk, sizeof(chunk), "@%s", o->path);
		r = luaL_loadbufferx(L, sc.src, sc.srclen, chunk, "t");
	}
	if (r) {
		fprintf(stderr, "tcsim: %s\n", lua_tostring(L, -1));
		rc = 1;
		goto out;
	}
	r = lua_pcall(L, 0, 0, -2);
	fflush(sc.out);
	if (r) {
		fprintf(stderr, "tcsim: %s\n", lua_tostring(L, -1));
		rc = sc.accounting_failed ? 3 : 1;
		goto out;
	}
	lua_pop(L, 1);

	if (lsim_finish_outputs(L, &sc))
		rc = 1;
	if (o->explain && !sc.explained) {
		if (o->explain_sim)
			fprintf(stderr, "tcsim explain: %s creates no simulation named '%s'\n", o->path,
				o->explain_sim);
		else
			fprintf(stderr, "tcsim explain: %s creates no simulation\n", o->path);
		rc = 1;
	}
	if (sc.passed + sc.failed)
		fprintf(sc.out, "expectations: %d passed, %d failed\n", sc.passed, sc.failed);
	fflush(sc.out);
	if (sc.failed) {
		fprintf(stderr, "tcsim: %s: %d expectation%s failed:\n", o->path, sc.failed,
			sc.failed == 1 ? "" : "s");
		for (int i = 0; i < sc.nfailures; i++)
			fprintf(stderr, "  %s\n", sc.failures[i]);
		rc = 1;
	}
	if (o->lint) {
		int n = 0;

		for (int i = 0; i < sc.nnotes; i++)
			printf("%s\n", sc.notes[i]);
		n += sc.nnotes;
		lua_rawgeti(L, LUA_REGISTRYINDEX, sc.sims_ref);
		for (int i = 1; i <= sc.nsims; i++) {
			struct lsim *ls;

			lua_rawgeti(L, -1, i);
			ls = luaL_testudata(L, -1, LSIM_MT);
			lua_pop(L, 1);
			if (ls && ls->s && lint_sim(ls->s, stdout, &n)) {
				fprintf(stderr, "tcsim lint: out of memory\n");
				rc = 1;
			}
		}
		lua_pop(L, 1);
		lint_summary(stdout, o->path, n);
		if (o->strict && n && !rc)
			rc = 1;
	}
	if (o->kernel_check && !sc.failed) {
		int k = kcheck_scenario(L, &sc);

		if (k)
			rc = k;
	}
	if (o->json || o->expect || o->write_golden) {
		size_t len;
		char *doc = results_doc(L, &sc, &len);

		if (!doc) {
			fprintf(stderr, "tcsim: out of memory\n");
			rc = 1;
			goto out;
		}
		if (o->json && write_whole(o->json, doc, len, "--json"))
			rc = 1;
		if (o->write_golden && sc.failed) {
			/* a golden records results someone checked: not failing ones */
			fprintf(stderr, "tcsim check: %s not written: the scenario's expectations failed\n",
				o->write_golden);
		} else if (o->write_golden) {
			if (write_whole(o->write_golden, doc, len, "--write-golden"))
				rc = 1;
			else
				printf("check %s: results written to %s\n", o->path, o->write_golden);
		}
		if (o->expect && compare_golden(o, doc, len))
			rc = 1;
		free(doc);
	}
out:
	if (L)
		lua_close(L);
	for (int i = 0; i < sc.nfailures; i++)
		free(sc.failures[i]);
	free(sc.failures);
	for (int i = 0; i < sc.nnotes; i++)
		free(sc.notes[i]);
	free(sc.notes);
	free(sc.src);
	if (o->quiet && sc.out)
		fclose(sc.out);
	return rc;
}
