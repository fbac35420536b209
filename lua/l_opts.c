/* l_opts.c - reading the scenario's option tables: unknown names are
 * errors (a typo must not be silently ignored), times and rates take tc's
 * units as strings or plain numbers, and every message names the option. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cls.h"
#include "lint.h"
#include "lua_tcsim.h"
#include "qdisc.h"

static const char scenario_key = 's';

struct scenario *scenario_get(lua_State *L)
{
	struct scenario *sc;

	lua_rawgetp(L, LUA_REGISTRYINDEX, &scenario_key);
	sc = lua_touserdata(L, -1);
	lua_pop(L, 1);
	return sc;
}

void scenario_set(lua_State *L, struct scenario *sc)
{
	lua_pushlightuserdata(L, sc);
	lua_rawsetp(L, LUA_REGISTRYINDEX, &scenario_key);
}

void opt_check_keys(lua_State *L, int idx, const char *what, const char *const *known)
{
	idx = lua_absindex(L, idx);
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		int ok = 0;

		lua_pop(L, 1);
		if (lua_type(L, -1) == LUA_TSTRING) {
			const char *k = lua_tostring(L, -1);

			for (int i = 0; known[i]; i++)
				if (!strcmp(k, known[i]))
					ok = 1;
			if (!ok) {
				luaL_Buffer b;

				luaL_buffinit(L, &b);
				for (int i = 0; known[i]; i++) {
					luaL_addstring(&b, i ? ", " : "");
					luaL_addstring(&b, known[i]);
				}
				luaL_pushresult(&b);
				luaL_error(L, "%s: unknown option '%s' (known: %s)", what, k, lua_tostring(L, -1));
			}
		} else {
			luaL_error(L, "%s: options are named (name = value), got a %s key", what,
				   luaL_typename(L, -1));
		}
	}
}

/* Raw: an __index metamethod would run the script in the middle of a
 * binding, which could close the very simulation being configured. */
int opt_field(lua_State *L, int idx, const char *key)
{
	idx = lua_absindex(L, idx);
	lua_pushstring(L, key);
	if (lua_rawget(L, idx) == LUA_TNIL) {
		lua_pop(L, 1);
		return 0;
	}
	return 1;
}

/* Seconds as a number, or tc's time syntax: "10ms", "1.5s", "250us". */
uint64_t opt_time_ns(lua_State *L, int vidx, const char *what)
{
	uint64_t ns;

	if (lua_type(L, vidx) == LUA_TNUMBER) {
		double s = lua_tonumber(L, vidx);

		if (!(s >= 0))
			luaL_error(L, "%s: %f s is not a time from 0 up (seconds, or a string such as \"10ms\")",
				   what, s);
		/* times the API returns are integer ns: one passed back here as
		 * seconds is a mistake worth stopping (1e5 s is 27.8 hours) */
		if ((lua_isinteger(L, vidx) && s >= 1e5) || s > (double)TIME_MAX_NS / 1e9) {
			char m[300];

			snprintf(m, sizeof(m),
				 "%s: %.0f s is over a day; a number here is seconds, and nanoseconds (from "
				 "tcsim.time, sim:now or the statistics) must be divided by 1e9 (or write "
				 "a string: \"%.0fs\")", what, s, s);
			luaL_error(L, "%s", m);
		}
		return (uint64_t)llround(s * 1e9);
	}
	if (lua_type(L, vidx) != LUA_TSTRING)
		luaL_error(L, "%s: expected a time (seconds, or a string such as \"10ms\"), got %s", what,
			   luaL_typename(L, vidx));
	if (tc_get_time_ns(&ns, lua_tostring(L, vidx)))
		luaL_error(L, "%s: '%s' is not a time (tc's units: s, ms, us, ns; bare = s)", what,
			   lua_tostring(L, vidx));
	if (ns > TIME_MAX_NS)
		luaL_error(L, "%s: '%s' is too far (at most %.0f s)", what, lua_tostring(L, vidx),
			   (double)TIME_MAX_NS / 1e9);
	return ns;
}

/* Bits per second as a number, or tc's rate syntax ("256kbit"; "1mbps"
 * is megabytes per second, as in tc). */
uint64_t opt_rate_bps(lua_State *L, int vidx, const char *what)
{
	uint64_t bps;

	if (lua_type(L, vidx) == LUA_TNUMBER) {
		double r = lua_tonumber(L, vidx);

		if (!(r >= 0) || r > 1.8e19)
			luaL_error(L, "%s: %f is not a rate in bit/s", what, r);
		/* llround overflows a long long past 2^63 */
		return r < 9e18 ? (uint64_t)llround(r) : (uint64_t)r;
	}
	if (lua_type(L, vidx) != LUA_TSTRING)
		luaL_error(L, "%s: expected a rate (bit/s, or a string such as \"256kbit\"), got %s", what,
			   luaL_typename(L, vidx));
	if (tc_get_rate(&bps, lua_tostring(L, vidx)))
		luaL_error(L, "%s: '%s' is not a rate (tc's units: bit kbit mbit gbit, kibit..., "
			      "bps kbps mbps = bytes/s)", what, lua_tostring(L, vidx));
	if (scenario_get(L)->o->lint) {
		char msg[256];

		if (lint_rate_word(lua_tostring(L, vidx), msg, sizeof(msg)))
			scenario_note(L, msg);
	}
	return bps;
}

uint64_t opt_uint(lua_State *L, int vidx, const char *what, uint64_t max)
{
	lua_Integer v;
	int isint = 0;

	v = lua_tointegerx(L, vidx, &isint);
	if (!isint)
		luaL_error(L, "%s: expected a whole number, got %s", what,
			   lua_type(L, vidx) == LUA_TNUMBER ? "a fraction" : luaL_typename(L, vidx));
	if (v < 0 || (uint64_t)v > max)
		luaL_error(L, "%s: %I is out of range (0 to %I)", what, (lua_Integer)v,
			   max > (uint64_t)INT64_MAX ? (lua_Integer)INT64_MAX : (lua_Integer)max);
	return (uint64_t)v;
}

double opt_number(lua_State *L, int vidx, const char *what)
{
	int isnum = 0;
	double v = lua_tonumberx(L, vidx, &isnum);

	if (!isnum || lua_type(L, vidx) != LUA_TNUMBER)
		luaL_error(L, "%s: expected a number, got %s", what, luaL_typename(L, vidx));
	if (!isfinite(v))
		luaL_error(L, "%s: expected a finite number", what);
	return v;
}

/* "forward" (a router's TOS table), a number (SO_PRIORITY), or "X:Y". */
uint32_t opt_priority(lua_State *L, int vidx, const char *what, enum prio_mode *mode)
{
	uint32_t v;

	if (lua_type(L, vidx) == LUA_TNUMBER) {
		*mode = PRIO_FIXED;
		return (uint32_t)opt_uint(L, vidx, what, UINT32_MAX);
	}
	if (lua_type(L, vidx) == LUA_TSTRING) {
		const char *s = lua_tostring(L, vidx);

		if (!strcmp(s, "forward")) {
			*mode = PRIO_FORWARD;
			return 0;
		}
		if (strchr(s, ':') ? !tc_get_classid(&v, s) : !tc_get_u32(&v, s, 0)) {
			*mode = PRIO_FIXED;
			return v;
		}
		luaL_error(L, "%s: '%s' is not \"forward\", a number or a classid such as \"1:3\"", what, s);
	}
	luaL_error(L, "%s: expected \"forward\", a number or a classid string, got %s", what,
		   luaL_typename(L, vidx));
	return 0;
}

const char *scenario_path(lua_State *L, const char *name, char *buf, size_t n)
{
	struct scenario *sc = scenario_get(L);

	if (name[0] == '/' || !sc->dir[0])
		snprintf(buf, n, "%s", name);
	else
		snprintf(buf, n, "%s/%s", sc->dir, name);
	return buf;
}

int scenario_line(lua_State *L)
{
	lua_Debug ar;

	for (int level = 1; lua_getstack(L, level, &ar); level++) {
		lua_getinfo(L, "Sl", &ar);
		if (ar.currentline > 0)
			return ar.currentline;
	}
	return 0;
}

/* A long bracket opening at the end of line `line` of the source. */
static int line_ends_in_long_bracket(const struct scenario *sc, int line)
{
	const char *p = sc->src, *end = sc->src + sc->srclen, *eol;

	for (int l = 1; l < line && p < end; l++) {
		p = memchr(p, '\n', (size_t)(end - p));
		if (!p)
			return 0;
		p++;
	}
	eol = memchr(p, '\n', (size_t)(end - p));
	if (!eol)
		eol = end;
	while (eol > p && strchr(" \t\r", eol[-1]))
		eol--;
	if (eol == p || eol[-1] != '[')
		return 0;
	for (eol--; eol > p && eol[-1] == '='; eol--)
		;
	return eol > p && eol[-1] == '[';
}

int scenario_text_line(lua_State *L, const char *text, char *name, size_t n)
{
	struct scenario *sc = scenario_get(L);
	lua_Debug ar;
	int line = 0;

	snprintf(name, n, "%s", sc->path);
	for (int level = 1; lua_getstack(L, level, &ar); level++) {
		lua_getinfo(L, "Sl", &ar);
		if (ar.currentline > 0) {
			line = ar.currentline;
			snprintf(name, n, "%s", ar.short_src);
			break;
		}
	}
	if (line <= 0)
		return 1;
	/* only the scenario's own text is at hand */
	if (ar.source[0] == '@' && !strcmp(ar.source + 1, sc->path) && sc->src && strchr(text, '\n') &&
	    line_ends_in_long_bracket(sc, line))
		return line + 1;
	return line;
}

void scenario_note(lua_State *L, const char *msg)
{
	struct scenario *sc = scenario_get(L);
	lua_Debug ar;
	char where[300] = "?";
	char **n;
	size_t len;

	for (int level = 1; lua_getstack(L, level, &ar); level++) {
		lua_getinfo(L, "Sl", &ar);
		if (ar.currentline > 0) {
			snprintf(where, sizeof(where), "%s:%d", ar.short_src, ar.currentline);
			break;
		}
	}
	n = realloc(sc->notes, (size_t)(sc->nnotes + 1) * sizeof(*n));
	if (!n)
		luaL_error(L, "out of memory");
	sc->notes = n;
	len = strlen(where) + strlen(msg) + 16;
	if (!(n[sc->nnotes] = malloc(len)))
		luaL_error(L, "out of memory");
	snprintf(n[sc->nnotes++], len, "%s: warning: %s", where, msg);
}

/* mark = M, or mark = { {"tcp port 22", 7}, {"udp", 9}, ... } */
void opt_marks(lua_State *L, int vidx, const char *what, struct mark_rules *m)
{
	char err[512];
	lua_Integer n;

	vidx = lua_absindex(L, vidx);
	memset(m, 0, sizeof(*m));
	if (lua_type(L, vidx) == LUA_TNUMBER) {
		if (mark_rules_add(m, "", (uint32_t)opt_uint(L, vidx, what, UINT32_MAX), err,
				   sizeof(err)))
			luaL_error(L, "%s: %s", what, err);
		return;
	}
	if (lua_type(L, vidx) != LUA_TTABLE)
		luaL_error(L, "%s: expected a number or a list of {expr, mark} pairs, got %s", what,
			   luaL_typename(L, vidx));
	n = luaL_len(L, vidx);
	for (lua_Integer i = 1; i <= n; i++) {
		const char *expr;
		uint32_t mark;

		if (lua_geti(L, vidx, i) != LUA_TTABLE)
			luaL_error(L, "%s[%d]: expected a pair {expr, mark}, got %s", what, (int)i,
				   luaL_typename(L, -1));
		if (lua_geti(L, -1, 1) != LUA_TSTRING)
			luaL_error(L, "%s[%d][1]: expected a tcpdump expression (a string), got %s",
				   what, (int)i, luaL_typename(L, -1));
		expr = lua_tostring(L, -1);
		lua_geti(L, -2, 2);
		mark = (uint32_t)opt_uint(L, -1, "mark", UINT32_MAX);
		if (!*expr)
			luaL_error(L, "%s[%d]: an empty expression (for every packet, mark = N)", what,
				   (int)i);
		if (mark_rules_add(m, expr, mark, err, sizeof(err)))
			luaL_error(L, "%s[%d]: %s", what, (int)i, err);
		lua_pop(L, 3);
	}
}
