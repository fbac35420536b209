/* sandbox.c - the standard library a scenario gets: text chunks only, the
 * debug library cut to traceback and getinfo, and in the sandbox (fuzzing)
 * nothing that touches files, processes or finalizers. */
#include <string.h>

#include "lua_tcsim.h"

/* ---- the standard library, less what can break memory safety or escape ----
 *
 * Lua 5.4 does not verify bytecode: a crafted binary chunk reads and writes
 * memory at will. So every way a scenario loads code takes text only:
 * load, loadfile, dofile and require (package.loadlib and the C searchers
 * go too). The debug library can do the same (debug.setmetatable passes
 * one userdata for another, debug.setupvalue rewrites a C closure's state,
 * debug.sethook removes --timeout's hook): only traceback and getinfo are
 * left. The sandbox (fuzzing) also takes away what touches the world:
 * files, processes, exit, and __gc finalizers, which Lua runs where no
 * hook can stop them. */

/* load(chunk [, name [, mode [, env]]]) with mode "t". The number of
 * arguments is kept: an env given as nil is not an env left out. */
static int l_load_text(lua_State *L)
{
	int n = lua_gettop(L), mode_idx = lua_tointeger(L, lua_upvalueindex(2));

	if (n < mode_idx - 1)
		lua_settop(L, mode_idx - 1);
	if (n >= mode_idx) {
		const char *m = luaL_optstring(L, mode_idx, "bt");

		if (!strchr(m, 't')) {
			luaL_pushfail(L);
			lua_pushstring(
			    L, "tcsim loads text chunks only (a binary chunk is not verified)");
			return 2;
		}
		lua_pushliteral(L, "t");
		lua_replace(L, mode_idx);
	} else {
		lua_pushliteral(L, "t");
	}
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
	return lua_gettop(L);
}

static int dofile_cont(lua_State *L, int status, lua_KContext ctx)
{
	(void)status;
	(void)ctx;
	return lua_gettop(L) - 1;
}

static int l_dofile_text(lua_State *L)
{
	const char *fname = luaL_optstring(L, 1, NULL);

	lua_settop(L, 1);
	if (luaL_loadfilex(L, fname, "t") != LUA_OK)
		return lua_error(L);
	lua_callk(L, 0, LUA_MULTRET, 0, dofile_cont);
	return dofile_cont(L, 0, 0);
}

/* require's searcher for Lua files, as the standard one but text only. */
static int searcher_text(lua_State *L)
{
	const char *name = luaL_checkstring(L, 1), *file;

	lua_getfield(L, lua_upvalueindex(1), "searchpath");
	lua_pushvalue(L, 1);
	if (lua_getfield(L, lua_upvalueindex(1), "path") != LUA_TSTRING)
		return luaL_error(L, "'package.path' must be a string");
	lua_call(L, 2, 2);
	if (lua_isnil(L, -2))
		return 1; /* the message of the files tried */
	lua_pop(L, 1);
	file = luaL_checkstring(L, -1);
	if (luaL_loadfilex(L, file, "t") != LUA_OK)
		return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s", name, file,
				  lua_tostring(L, -1));
	lua_pushstring(L, file);
	return 2;
}

static int l_setmetatable_nogc(lua_State *L)
{
	if (lua_type(L, 2) == LUA_TTABLE) {
		lua_pushliteral(L, "__gc");
		if (lua_rawget(L, 2) != LUA_TNIL)
			return luaL_error(
			    L, "setmetatable: no __gc in the sandbox (finalizers run where "
			       "its bounds cannot stop them)");
		lua_pop(L, 1);
	}
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, lua_gettop(L) - 1, 1);
	return 1;
}

/* table.move loops in C, out of the hook's reach: the sandbox bounds it. */
static int l_table_move_bounded(lua_State *L)
{
	lua_Integer f = luaL_checkinteger(L, 2), e = luaL_checkinteger(L, 3);

	if (e >= f && (lua_Unsigned)e - (lua_Unsigned)f >= (1u << 20))
		return luaL_error(L, "table.move: at most 2^20 elements in the sandbox");
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, lua_gettop(L) - 1, 1);
	return 1;
}

/* xpcall's handler, as the script gave it, unless the scenario is stopped:
 * an error raised from the count hook runs the handler with hooks off, so
 * a handler that loops would be out of --timeout's reach. */
static int xpcall_handler(lua_State *L)
{
	if ((*(struct scenario **)lua_getextraspace(L))->stop)
		return 1;
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, lua_gettop(L) - 1, 1);
	return 1;
}

static int xpcall_cont(lua_State *L, int status, lua_KContext ctx)
{
	(void)status;
	(void)ctx;
	return lua_gettop(L);
}

static int l_xpcall_bounded(lua_State *L)
{
	luaL_checktype(L, 2, LUA_TFUNCTION);
	lua_pushvalue(L, 2);
	lua_pushcclosure(L, xpcall_handler, 1);
	lua_replace(L, 2);
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_callk(L, lua_gettop(L) - 1, LUA_MULTRET, 0, xpcall_cont); /* f may yield */
	return lua_gettop(L);
}

/* os.exit(code) as os.exit(code, true): the state is closed first, so the
 * simulations are released (a trace's temporary file goes with them) and
 * no output is written: the scenario did not end well. */
static int l_os_exit_closing(lua_State *L)
{
	(*(struct scenario **)lua_getextraspace(L))->closing = 1;
	lua_settop(L, 1);
	lua_pushboolean(L, 1);
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, 2, 0);
	return 0;
}
/* Replaces t[name] (t on top) with a C closure over the old value. */
static void wrap_field(lua_State *L, const char *name, lua_CFunction fn, int extra)
{
	lua_getfield(L, -1, name);
	if (extra)
		lua_pushinteger(L, extra);
	lua_pushcclosure(L, fn, extra ? 2 : 1);
	lua_setfield(L, -2, name);
}

/* Keeps only the named fields of library `lib` (keep NULL: removes it),
 * as a global and for require (package.loaded). */
static void keep_only(lua_State *L, const char *lib, const char *const *keep)
{
	if (!keep) {
		lua_pushnil(L);
	} else {
		lua_newtable(L);
		lua_getglobal(L, lib);
		for (int i = 0; keep[i]; i++) {
			lua_getfield(L, -1, keep[i]);
			lua_setfield(L, -3, keep[i]);
		}
		lua_pop(L, 1);
	}
	lua_pushvalue(L, -1);
	lua_setglobal(L, lib);
	lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
	lua_insert(L, -2);
	lua_setfield(L, -2, lib);
	lua_pop(L, 1);
}

void scenario_restrict_libs(lua_State *L, int sandbox)
{
	static const char *const debug_keep[] = {"traceback", "getinfo", NULL};
	static const char *const os_keep[] = {"clock", "date", "difftime", "time", NULL};

	lua_pushglobaltable(L);
	wrap_field(L, "load", l_load_text, 3);
	wrap_field(L, "loadfile", l_load_text, 2);
	lua_pushcfunction(L, l_dofile_text);
	lua_setfield(L, -2, "dofile");
	wrap_field(L, "xpcall", l_xpcall_bounded, 0);
	lua_pop(L, 1);

	lua_getglobal(L, "package");
	lua_pushnil(L);
	lua_setfield(L, -2, "loadlib");
	lua_pushliteral(L, "");
	lua_setfield(L, -2, "cpath");
	lua_createtable(L, 2, 0);
	lua_getfield(L, -2, "searchers");
	lua_rawgeti(L, -1, 1); /* package.preload */
	lua_rawseti(L, -3, 1);
	lua_pop(L, 1);
	lua_pushvalue(L, -2);
	lua_pushcclosure(L, searcher_text, 1);
	lua_rawseti(L, -2, 2);
	lua_setfield(L, -2, "searchers");
	lua_pop(L, 1);

	keep_only(L, "debug", debug_keep);
	if (!sandbox) {
		lua_getglobal(L, "os");
		wrap_field(L, "exit", l_os_exit_closing, 0);
		lua_pop(L, 1);
		return;
	}
	keep_only(L, "os", os_keep);
	keep_only(L, "io", NULL);
	keep_only(L, "package", NULL);
	lua_pushnil(L);
	lua_setglobal(L, "require");
	lua_pushnil(L);
	lua_setglobal(L, "loadfile");
	lua_pushnil(L);
	lua_setglobal(L, "dofile");
	lua_pushglobaltable(L);
	wrap_field(L, "setmetatable", l_setmetatable_nogc, 0);
	lua_pop(L, 1);
	lua_getglobal(L, "table");
	wrap_field(L, "move", l_table_move_bounded, 0);
	lua_pop(L, 1);
	/* math.random is seeded from the clock: a fuzzer wants the same run twice */
	lua_getglobal(L, "math");
	lua_getfield(L, -1, "randomseed");
	lua_pushinteger(L, 1);
	lua_call(L, 1, 0);
	lua_pop(L, 1);
}
