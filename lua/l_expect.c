/* l_expect.c - expectations: a scenario states what it should see, and a
 * failure names the scenario's file:line, the message and the values. All
 * failures are collected; the run exits non-zero at the end if any failed.
 *
 *   expect(cond, msg)              expect_eq(actual, expected, msg)
 *   expect_between(v, lo, hi, msg) expect_near(actual, expected, rel, msg)
 *   expect_lt / expect_le / expect_gt / expect_ge(a, b, msg)
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lua_tcsim.h"

static void record(lua_State *L, int ok, const char *msg, const char *detail)
{
	struct scenario *sc = scenario_get(L);
	lua_Debug ar;
	char where[300] = "?";
	char file[300] = "";
	int line = 0;

	for (int level = 1; lua_getstack(L, level, &ar); level++) {
		lua_getinfo(L, "Sl", &ar);
		if (ar.currentline > 0) {
			snprintf(where, sizeof(where), "%s:%d", ar.short_src, ar.currentline);
			snprintf(file, sizeof(file), "%s", ar.short_src);
			line = ar.currentline;
			break;
		}
	}
	if (sc->o->junit || sc->o->tap) {
		char name[700];

		snprintf(name, sizeof(name), "%s: %s", where, msg);
		(void)ci_add(&sc->ci, name, file, line, ok ? CI_PASS : CI_FAIL,
			     ok ? NULL : (detail[0] ? detail : msg));
	}
	if (ok) {
		sc->passed++;
		fprintf(sc->out, "ok   %s: %s%s%s\n", where, msg, detail[0] ? " " : "", detail);
		return;
	}
	sc->failed++;
	fprintf(sc->out, "FAIL %s: %s%s%s\n", where, msg, detail[0] ? " " : "", detail);
	if (sc->nfailures == sc->capfailures) {
		int cap = sc->capfailures ? 2 * sc->capfailures : 16;
		char **f = realloc(sc->failures, (size_t)cap * sizeof(*f));

		if (!f)
			return; /* still counted */
		sc->failures = f;
		sc->capfailures = cap;
	}
	{
		size_t n = strlen(where) + strlen(msg) + strlen(detail) + 4;
		char *s = malloc(n);

		if (s) {
			snprintf(s, n, "%s: %s%s%s", where, msg, detail[0] ? " " : "", detail);
			sc->failures[sc->nfailures++] = s;
		}
	}
}

static const char *msg_arg(lua_State *L, int idx, const char *dflt)
{
	if (lua_isnoneornil(L, idx))
		return dflt;
	return luaL_checkstring(L, idx);
}

/* tostring of a value, kept on the stack. */
static const char *val(lua_State *L, int idx)
{
	return luaL_tolstring(L, idx, NULL);
}

static int l_expect(lua_State *L)
{
	luaL_checkany(L, 1);
	record(L, lua_toboolean(L, 1), msg_arg(L, 2, "expectation"), "");
	return 0;
}

static int l_expect_eq(lua_State *L)
{
	char d[512];
	int ok;

	luaL_checkany(L, 1);
	luaL_checkany(L, 2);
	ok = lua_compare(L, 1, 2, LUA_OPEQ);
	lua_settop(L, 3);
	if (ok)
		snprintf(d, sizeof(d), "(%s)", val(L, 1));
	else {
		const char *a = val(L, 1), *e = val(L, 2);

		snprintf(d, sizeof(d), "(got %s, expected %s)", a, e);
	}
	record(L, ok, msg_arg(L, 3, "values are equal"), d);
	return 0;
}

static double num(lua_State *L, int idx, const char *fn)
{
	if (lua_type(L, idx) != LUA_TNUMBER)
		luaL_error(L, "%s: argument %d must be a number, got %s", fn, idx, luaL_typename(L, idx));
	return lua_tonumber(L, idx);
}

static int l_expect_between(lua_State *L)
{
	char d[512];
	int ok;

	num(L, 1, "expect_between");
	num(L, 2, "expect_between");
	num(L, 3, "expect_between");
	ok = lua_compare(L, 2, 1, LUA_OPLE) && lua_compare(L, 1, 3, LUA_OPLE);
	lua_settop(L, 4);
	{
		const char *v = val(L, 1), *lo = val(L, 2), *hi = val(L, 3);

		snprintf(d, sizeof(d), "(%s %s [%s, %s])", v, ok ? "in" : "not in", lo, hi);
	}
	record(L, ok, msg_arg(L, 4, "value in range"), d);
	return 0;
}

static int l_expect_near(lua_State *L)
{
	double a = num(L, 1, "expect_near"), e = num(L, 2, "expect_near"), rel = num(L, 3, "expect_near");
	char d[512];
	int ok;

	if (rel < 0)
		return luaL_error(L, "expect_near: the relative tolerance must be 0 or more");
	ok = fabs(a - e) <= rel * fabs(e);
	lua_settop(L, 4);
	{
		const char *va = val(L, 1), *ve = val(L, 2);

		snprintf(d, sizeof(d), "(got %s, expected %s within %g%%)", va, ve, rel * 100.0);
	}
	record(L, ok, msg_arg(L, 4, "values are near"), d);
	return 0;
}

static int compare(lua_State *L, const char *fn, const char *sym, int op, int swap)
{
	char d[512];
	int ok;

	num(L, 1, fn);
	num(L, 2, fn);
	ok = swap ? lua_compare(L, 2, 1, op) : lua_compare(L, 1, 2, op);
	lua_settop(L, 3);
	{
		const char *a = val(L, 1), *b = val(L, 2);

		snprintf(d, sizeof(d), "(%s %s%s %s)", a, ok ? "" : "not ", sym, b);
	}
	record(L, ok, msg_arg(L, 3, fn), d);
	return 0;
}

static int l_expect_lt(lua_State *L) { return compare(L, "expect_lt", "<", LUA_OPLT, 0); }
static int l_expect_le(lua_State *L) { return compare(L, "expect_le", "<=", LUA_OPLE, 0); }
static int l_expect_gt(lua_State *L) { return compare(L, "expect_gt", ">", LUA_OPLT, 1); }
static int l_expect_ge(lua_State *L) { return compare(L, "expect_ge", ">=", LUA_OPLE, 1); }

static const luaL_Reg expect_fns[] = {
	{"expect", l_expect},	       {"expect_eq", l_expect_eq}, {"expect_between", l_expect_between},
	{"expect_near", l_expect_near}, {"expect_lt", l_expect_lt}, {"expect_le", l_expect_le},
	{"expect_gt", l_expect_gt},    {"expect_ge", l_expect_ge}, {NULL, NULL},
};

/* As globals, and in the tcsim table (on top of the stack). */
void lexpect_open(lua_State *L)
{
	for (const luaL_Reg *r = expect_fns; r->name; r++) {
		lua_pushcfunction(L, r->func);
		lua_pushvalue(L, -1);
		lua_setglobal(L, r->name);
		lua_setfield(L, -2, r->name);
	}
}
