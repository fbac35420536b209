/* scenario.c - runs a Lua 5.4 scenario: a fresh interpreter with the
 * standard libraries and the tcsim API, the script's errors reported with
 * a traceback, its expectations summed up, and its simulations' results
 * written (--json), stored (--write-golden) or compared with stored ones
 * (--expect). Its parts: bounds.c stops a scenario, sandbox.c cuts the
 * standard library down, golden.c writes and compares the results, and
 * lint_kcheck.c is what tcsim lint and kernel-check do after the run. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <lualib.h>

#include "infile.h"
#include "outfile.h"
#include "lua_tcsim.h"

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
	const char *msg;

	/* a stop ends with its own one line: no traceback, and nothing allocated */
	if (scenario_get(L)->stop)
		return 1;
	msg = lua_tostring(L, 1);

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

/* Everything the script sees, made in protected mode: Lua raises memory
 * errors, and unprotected they abort. */
static int setup(lua_State *L)
{
	struct scenario *sc = lua_touserdata(L, 1);
	const struct scenario_opts *o = sc->o;

	luaL_openlibs(L);
	scenario_restrict_libs(L, o->sandbox);
	scenario_set(L, sc);
	lua_newtable(L);
	sc->sims_ref = luaL_ref(L, LUA_REGISTRYINDEX);
	scenario_bounds_open(L);
	lua_pushcfunction(L, l_print);
	lua_setglobal(L, "print");

	luaL_newlib(L, tcsim_fns);
	lsim_open(L);
	ltraffic_open(L);
	lexpect_open(L);
	lua_pushstring(L, sc->dir[0] ? sc->dir : ".");
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
	return 0;
}

static const char *errmsg(lua_State *L)
{
	const char *m = lua_tostring(L, -1);

	return m ? m : "(an error object that is not a string)";
}

/* --junit FILE and --tap FILE|-: every check of the run, whole or not at
 * all. 0, or 1 after a message. */
static int write_ci_reports(struct scenario *sc)
{
	const struct scenario_opts *o = sc->o;
	const char *paths[2] = {o->junit, o->tap};
	int rc = 0;

	if (sc->ci.oom) {
		fprintf(sc->err, "tcsim: out of memory: --junit/--tap not written\n");
		return 1;
	}
	if (!sc->ci.n)
		(void)ci_add(&sc->ci, "the scenario ran", o->path, 0, CI_PASS, NULL);
	for (int k = 0; k < 2; k++) {
		struct outfile of = {0};
		int r;

		if (!paths[k])
			continue;
		if (k == 1 && !strcmp(paths[k], "-")) {
			ci_write_tap(&sc->ci, stdout);
			fflush(stdout);
			continue;
		}
		if (outfile_open(&of, paths[k], "w")) {
			fprintf(sc->err, "tcsim: %s %s: %s\n", k ? "--tap" : "--junit", paths[k],
				strerror(errno));
			rc = 1;
			continue;
		}
		if (k)
			ci_write_tap(&sc->ci, of.f);
		else
			ci_write_junit(&sc->ci, o->path, of.f);
		if ((r = outfile_commit(&of))) {
			fprintf(sc->err, "tcsim: %s %s: %s\n", k ? "--tap" : "--junit", paths[k],
				strerror(-r));
			rc = 1;
		}
		outfile_abort(&of);
	}
	return rc;
}

int scenario_main(const struct scenario_opts *o)
{
	struct scenario sc = {0};
	lua_State *L = NULL;
	const char *slash, *why;
	int rc = 0, r, own_out = 0;

	sc.o = o;
	sc.path = o->path;
	sc.err = o->err ? o->err : stderr;
	sc.out = o->out ? o->out : stdout;
	if (!o->out && o->json && !strcmp(o->json, "-"))
		sc.out = stderr;
	if (o->quiet && !o->out) {
		sc.out = fopen("/dev/null", "w");
		if (!sc.out) {
			fprintf(sc.err, "tcsim: /dev/null: %s\n", strerror(errno));
			return 1;
		}
		own_out = 1;
	}
	slash = strrchr(o->path, '/');
	if (slash)
		snprintf(sc.dir, sizeof(sc.dir), "%.*s", (int)(slash - o->path), o->path);
	if (slash == o->path)
		snprintf(sc.dir, sizeof(sc.dir), "/");
	if (o->text) {
		sc.src = malloc(o->textlen + 1);
		if (!sc.src) {
			fprintf(sc.err, "tcsim: out of memory\n");
			rc = 1;
			goto out;
		}
		memcpy(sc.src, o->text, o->textlen);
		sc.src[o->textlen] = 0;
		sc.srclen = o->textlen;
	} else {
		r = read_file(o->path, &sc.src, &sc.srclen, &why);
		if (r) {
			fprintf(sc.err, "tcsim: %s: %s\n", o->path, why);
			rc = 1;
			goto out;
		}
	}
	L = lua_newstate(scenario_alloc, &sc);
	if (!L) {
		fprintf(sc.err, "tcsim: out of memory\n");
		rc = 1;
		goto out;
	}
	sc.L = L;
	/* copied into every coroutine: the hook finds the scenario without a lookup */
	*(struct scenario **)lua_getextraspace(L) = &sc;
	lua_pushcfunction(L, setup);
	lua_pushlightuserdata(L, &sc);
	if (lua_pcall(L, 1, 0, 0)) {
		fprintf(sc.err, "tcsim: %s: %s\n", o->path, errmsg(L));
		rc = 1;
		goto out;
	}

	scenario_bounds_start(&sc);
	lua_pushcfunction(L, msgh);
	{
		char chunk[4200];

		snprintf(chunk, sizeof(chunk), "@%s", o->path);
		r = luaL_loadbufferx(L, sc.src, sc.srclen, chunk, "t");
	}
	if (!r)
		r = lua_pcall(L, 0, 0, -2);
	fflush(sc.out);
	/* what follows is tcsim's own work, not the script's */
	sc.closing = 1;
	sc.lua_limit = 0;
	rc = scenario_bounds_end(&sc);
	if (rc)
		goto out;
	if (r) {
		if (r == LUA_ERRMEM)
			fprintf(sc.err, "tcsim: %s: out of memory\n", o->path);
		else
			fprintf(sc.err, "tcsim: %s\n", errmsg(L));
		rc = sc.accounting_failed ? 3 : 1;
		if (o->junit || o->tap) {
			(void)ci_add(&sc.ci, "the scenario runs to its end", o->path, 0, CI_ERROR,
				     r == LUA_ERRMEM ? "out of memory" : errmsg(L));
			(void)write_ci_reports(&sc);
		}
		goto out;
	}
	lua_pop(L, 1);

	if (lsim_finish_outputs(L, &sc))
		rc = 1;
	if (o->explain && !sc.explained) {
		if (o->explain_sim)
			fprintf(sc.err, "tcsim explain: %s creates no simulation named '%s'\n", o->path,
				o->explain_sim);
		else
			fprintf(sc.err, "tcsim explain: %s creates no simulation\n", o->path);
		rc = 1;
	}
	if (sc.passed + sc.failed)
		fprintf(sc.out, "expectations: %d passed, %d failed\n", sc.passed, sc.failed);
	fflush(sc.out);
	if (sc.failed) {
		fprintf(sc.err, "tcsim: %s: %d expectation%s failed:\n", o->path, sc.failed,
			sc.failed == 1 ? "" : "s");
		for (int i = 0; i < sc.nfailures; i++)
			fprintf(sc.err, "  %s\n", sc.failures[i]);
		rc = 1;
	}
	if (o->lint) {
		int n = 0;

		if (scenario_lint(L, &sc, &n))
			rc = 1;
		if (o->strict && n && !rc)
			rc = 1;
	}
	if (o->kernel_check && !sc.failed) {
		int k = scenario_kernel_check(L, &sc);

		if (k)
			rc = k;
	}
	if ((o->json || o->expect || o->write_golden) && (r = scenario_write_results(L, &sc)))
		rc = r == 2 ? 2 : 1; /* 2: the golden is missing or malformed */
	if ((o->junit || o->tap) && write_ci_reports(&sc))
		rc = 1;
out:
	sc.closing = 1;
	if (L)
		lua_close(L); /* finalizers may still run: the hard stop stays armed */
	scenario_hard_stop_disarm();
	for (int i = 0; i < sc.nfailures; i++)
		free(sc.failures[i]);
	free(sc.failures);
	ci_free(&sc.ci);
	for (int i = 0; i < sc.nnotes; i++)
		free(sc.notes[i]);
	free(sc.notes);
	free(sc.src);
	if (own_out)
		fclose(sc.out);
	return rc;
}
