/* scenario.c - runs a Lua 5.4 scenario: a fresh interpreter with the
 * standard libraries and the tcsim API, the script's errors reported with
 * a traceback, its expectations summed up, and its simulations' results
 * written (--json), stored (--write-golden) or compared with stored ones
 * (--expect). */
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <lualib.h>

#include "json.h"
#include "json_diff.h"
#include "kcheck.h"
#include "lint.h"
#include "infile.h"
#include "lua_tcsim.h"
#include "qdisc.h"

/* ---- bounds: --timeout, --max-memory, and the fuzzer's budgets ----
 *
 * A scenario is stopped, for good, by the first bound it reaches. The Lua
 * side is reached by a count hook (every HOOK_EVERY instructions: the
 * clock, the budgets, a sample of the heap) and by the allocator; the C
 * side by the simulation's poll (sim.h), every SIM_POLL_EVERY events. Once
 * stopped, the hook raises the stop again every HOOK_EVERY instructions, so
 * a pcall catching it only delays the end, and every API call raises it at
 * once. What neither reaches (one huge C call such as string.rep, or a
 * __gc finalizer looping: Lua runs finalizers without hooks) is what
 * hard_stop is for: with --timeout, tcsim also arms SIGALRM for the
 * deadline plus HARD_GRACE_NS, which prints the same one line and ends the
 * process (nothing it writes is renamed into place by then). */
#define HOOK_EVERY 1000
#define HEAP_SAMPLE_EVERY 64      /* bound checks between two heap samples */
#define STOP_RESERVE (1u << 20)   /* what error handling may still allocate once stopped */
#define HARD_GRACE_NS 500000000ull

static const char stop_key = 'x';

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The process heap in use, or 0 where it cannot be read cheaply (under a
 * sanitizer, whose allocator glibc's counters do not see). */
static uint64_t heap_in_use(void)
{
#if defined(__SANITIZE_ADDRESS__)
	return 0;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
	return 0;
#else
	struct mallinfo2 mi = mallinfo2();

	return (uint64_t)mi.uordblks + (uint64_t)mi.hblkhd;
#endif
#else
	struct mallinfo2 mi = mallinfo2();

	return (uint64_t)mi.uordblks + (uint64_t)mi.hblkhd;
#endif
}

static void check_bounds(struct scenario *sc)
{
	const struct scenario_opts *o = sc->o;

	if (sc->stop)
		return;
	if ((o->max_instructions && sc->instructions > o->max_instructions) ||
	    (o->max_events && sc->events > o->max_events))
		sc->stop = STOP_BUDGET;
	else if (sc->deadline_ns && mono_ns() >= sc->deadline_ns)
		sc->stop = STOP_TIMEOUT;
	else if (o->max_memory && o->owns_process && !(++sc->samples % HEAP_SAMPLE_EVERY) &&
		 heap_in_use() > o->max_memory)
		sc->stop = STOP_MEMORY;
}

/* Lua's allocator, holding the scenario's memory to --max-memory. A
 * refused request is retried by Lua after an emergency collection; only a
 * second refusal of the same request means the scenario needs more. */
static void *l_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	struct scenario *sc = ud;
	size_t old = ptr ? osize : 0;
	void *p;

	if (nsize == 0) {
		free(ptr);
		sc->lua_bytes -= old;
		return NULL;
	}
	if (sc->lua_limit && nsize > old &&
	    sc->lua_bytes - old + nsize > sc->lua_limit + (sc->stop ? STOP_RESERVE : 0)) {
		if (sc->refused_pending && sc->refused_ptr == ptr && sc->refused_osize == osize &&
		    sc->refused_nsize == nsize) {
			if (!sc->stop)
				sc->stop = STOP_MEMORY;
		}
		sc->refused_pending = 1;
		sc->refused_ptr = ptr;
		sc->refused_osize = osize;
		sc->refused_nsize = nsize;
		return NULL;
	}
	p = realloc(ptr, nsize);
	if (!p)
		return NULL;
	sc->refused_pending = 0;
	sc->lua_bytes = sc->lua_bytes - old + nsize;
	return p;
}

int scenario_raise_stop(lua_State *L)
{
	struct scenario *sc = scenario_get(L);

	if (!sc->stop_where[0]) {
		lua_Debug ar;

		for (int level = 0; lua_getstack(L, level, &ar); level++) {
			lua_getinfo(L, "Sl", &ar);
			if (ar.currentline > 0) {
				snprintf(sc->stop_where, sizeof(sc->stop_where), "%s:%d", ar.short_src,
					 ar.currentline);
				break;
			}
		}
	}
	/* a string made at the start: raising it allocates nothing */
	lua_rawgetp(L, LUA_REGISTRYINDEX, &stop_key);
	return lua_error(L);
}

static void hook(lua_State *L, lua_Debug *ar)
{
	struct scenario *sc = *(struct scenario **)lua_getextraspace(L);

	sc->instructions += HOOK_EVERY;
	check_bounds(sc);
	if (sc->stop) {
		if (!sc->stop_where[0] && lua_getinfo(L, "Sl", ar) && ar->currentline > 0)
			snprintf(sc->stop_where, sizeof(sc->stop_where), "%s:%d", ar->short_src, ar->currentline);
		/* from now on at every instruction: a pcall that caught the stop
		 * gets it again at the first instruction after it returns */
		lua_sethook(L, hook, LUA_MASKCOUNT, 1);
		scenario_raise_stop(L);
	}
}

int scenario_sim_poll(void *arg, char *err, size_t errlen)
{
	struct scenario *sc = arg;

	sc->events += SIM_POLL_EVERY;
	check_bounds(sc);
	if (!sc->stop)
		return 0;
	snprintf(err, errlen, "stopped");
	return -ETIME;
}

void scenario_check_live(lua_State *L, const char *call)
{
	struct scenario *sc = scenario_get(L);

	if (sc->stop)
		scenario_raise_stop(L);
	if (sc->closing)
		luaL_error(L, "%s: the scenario has ended (called from a finalizer?)", call);
}

static void fmt_size(char *b, size_t n, uint64_t v)
{
	if (v && !(v % (1ull << 30)))
		snprintf(b, n, "%" PRIu64 "G", v >> 30);
	else if (v && !(v % (1ull << 20)))
		snprintf(b, n, "%" PRIu64 "M", v >> 20);
	else if (v && !(v % (1ull << 10)))
		snprintf(b, n, "%" PRIu64 "K", v >> 10);
	else
		snprintf(b, n, "%" PRIu64, v);
}

static void fmt_secs(char *b, size_t n, uint64_t ns)
{
	if (ns % 1000000000ull)
		snprintf(b, n, "%gms", (double)ns / 1e6);
	else
		snprintf(b, n, "%" PRIu64 "s", (uint64_t)(ns / 1000000000u));
}

/* The one line a stopped scenario ends with, and its exit code. */
static int stop_message(const struct scenario *sc, char *b, size_t n)
{
	const char *where = sc->stop_where[0] ? sc->stop_where : sc->path;
	char v[64];

	switch (sc->stop) {
	case STOP_TIMEOUT:
		fmt_secs(v, sizeof(v), sc->o->timeout_ns);
		snprintf(b, n, "tcsim: %s: stopped: still running after --timeout %s\n", where, v);
		return SCENARIO_EXIT_TIMEOUT;
	case STOP_MEMORY:
		fmt_size(v, sizeof(v), sc->o->max_memory);
		snprintf(b, n, "tcsim: %s: stopped: the scenario needs more memory than --max-memory %s\n",
			 where, v);
		return SCENARIO_EXIT_MEMORY;
	default:
		snprintf(b, n, "tcsim: %s: stopped: over its budget of %" PRIu64 " Lua instructions or %" PRIu64
			 " simulation events\n", where, sc->o->max_instructions, sc->o->max_events);
		return SCENARIO_EXIT_TIMEOUT;
	}
}

/* The last resort of --timeout (see above). The message is made before the
 * alarm is armed: the handler only writes it. */
static char hard_msg[512];
static size_t hard_len;
static volatile sig_atomic_t hard_printed;

static void hard_stop_handler(int sig)
{
	(void)sig;
	if (!hard_printed && write(2, hard_msg, hard_len) < 0)
		_exit(SCENARIO_EXIT_TIMEOUT);
	_exit(SCENARIO_EXIT_TIMEOUT);
}

struct hard_stop {
	int armed;
	struct sigaction old;
};

static void hard_stop_arm(struct hard_stop *h, const struct scenario *sc)
{
	struct scenario tmp = *sc;
	struct itimerval it = {0};
	struct sigaction sa = {0};
	uint64_t ns = sc->o->timeout_ns + HARD_GRACE_NS;

	tmp.stop = STOP_TIMEOUT;
	tmp.stop_where[0] = 0;
	stop_message(&tmp, hard_msg, sizeof(hard_msg));
	hard_len = strlen(hard_msg);
	hard_printed = 0;
	sa.sa_handler = hard_stop_handler;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, &h->old))
		return;
	it.it_value.tv_sec = (time_t)(ns / 1000000000ull);
	it.it_value.tv_usec = (suseconds_t)(ns % 1000000000ull / 1000);
	if (setitimer(ITIMER_REAL, &it, NULL)) {
		sigaction(SIGALRM, &h->old, NULL);
		return;
	}
	h->armed = 1;
}

static void hard_stop_disarm(struct hard_stop *h)
{
	struct itimerval it = {0};

	if (!h->armed)
		return;
	setitimer(ITIMER_REAL, &it, NULL);
	sigaction(SIGALRM, &h->old, NULL);
	h->armed = 0;
}

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
			lua_pushstring(L, "tcsim loads text chunks only (a binary chunk is not verified)");
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
			return luaL_error(L, "setmetatable: no __gc in the sandbox (finalizers run where "
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

static void restrict_libs(lua_State *L, int sandbox)
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

/* Every simulation's results, in creation order, as one JSON document. */
static char *results_doc(lua_State *L, struct scenario *sc, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int first = 1;

	if (!f)
		return NULL;
	fputs("{\n\"tcsim\": 1,\n\"scenario\": \"", f);
	json_chars(f, base_name(sc->path));
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
	char tmp[4200];
	FILE *f;

	if (!strcmp(path, "-")) {
		fwrite(text, 1, len, stdout);
		return fflush(stdout) ? 1 : 0;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(err, "tcsim: %s %s: %s\n", what, path, strerror(errno));
		return 1;
	}
	fwrite(text, 1, len, f);
	if (fflush(f) || ferror(f) || fclose(f) || rename(tmp, path)) {
		fprintf(err, "tcsim: %s %s: %s\n", what, path, strerror(errno));
		unlink(tmp);
		return 1;
	}
	return 0;
}

/* --expect: the differences, on stdout; 0 when none. */
static int compare_golden(const struct scenario_opts *o, const char *text, size_t len, FILE *errf)
{
	struct json *want = NULL, *got = NULL;
	struct json_diff_opts d = {0};
	char err[1024];
	int n;

	if (json_parse_file(o->expect, &want, err, sizeof(err))) {
		fprintf(errf, "tcsim check: %s\n", err);
		return 1;
	}
	if (json_parse(text, len, &got, err, sizeof(err))) {
		fprintf(errf, "tcsim check: internal error: results are not JSON: %s\n", err);
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
		fprintf(errf, "tcsim check: out of memory\n");
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
		fprintf(sc->err, "tcsim kernel-check: %s: %s\n", dir, strerror(errno));
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
					fprintf(sc->err, "tcsim kernel-check: %s\n", err);
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
				fprintf(sc->err, "tcsim kernel-check: cannot run here: %s\n", err);
				rc = 2;
			} else if (r == KCHECK_ERROR) {
				fprintf(sc->err, "tcsim kernel-check: %s\n", err);
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
		fprintf(sc->err, "tcsim kernel-check: %s: no simulation received traffic\n", sc->path);
		return 1;
	}
	return rc;
}

/* Everything the script sees, made in protected mode: Lua raises memory
 * errors, and unprotected they abort. */
static int setup(lua_State *L)
{
	struct scenario *sc = lua_touserdata(L, 1);
	const struct scenario_opts *o = sc->o;

	luaL_openlibs(L);
	restrict_libs(L, o->sandbox);
	scenario_set(L, sc);
	lua_newtable(L);
	sc->sims_ref = luaL_ref(L, LUA_REGISTRYINDEX);
	lua_pushliteral(L, "tcsim: the scenario was stopped (--timeout or --max-memory)");
	lua_rawsetp(L, LUA_REGISTRYINDEX, &stop_key);
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

int scenario_main(const struct scenario_opts *o)
{
	struct scenario sc = {0};
	struct hard_stop hs = {0};
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
	L = lua_newstate(l_alloc, &sc);
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

	/* the script's bounds, from its first byte on */
	sc.lua_limit = o->max_memory;
	if (o->timeout_ns)
		sc.deadline_ns = mono_ns() + o->timeout_ns;
	if (o->timeout_ns || o->max_instructions || o->max_memory)
		lua_sethook(L, hook, LUA_MASKCOUNT, HOOK_EVERY);
	if (o->owns_process && o->timeout_ns)
		hard_stop_arm(&hs, &sc);
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
	check_bounds(&sc);
	if (sc.stop) {
		char msg[512];

		rc = stop_message(&sc, msg, sizeof(msg));
		hard_printed = 1;
		fputs(msg, sc.err);
		goto out;
	}
	if (r) {
		if (r == LUA_ERRMEM)
			fprintf(sc.err, "tcsim: %s: out of memory\n", o->path);
		else
			fprintf(sc.err, "tcsim: %s\n", errmsg(L));
		rc = sc.accounting_failed ? 3 : 1;
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
				fprintf(sc.err, "tcsim lint: out of memory\n");
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
			fprintf(sc.err, "tcsim: out of memory\n");
			rc = 1;
			goto out;
		}
		if (o->json && write_whole(o->json, doc, len, "--json", sc.err))
			rc = 1;
		if (o->write_golden && sc.failed) {
			/* a golden records results someone checked: not failing ones */
			fprintf(sc.err, "tcsim check: %s not written: the scenario's expectations failed\n",
				o->write_golden);
		} else if (o->write_golden) {
			if (write_whole(o->write_golden, doc, len, "--write-golden", sc.err))
				rc = 1;
			else
				printf("check %s: results written to %s\n", o->path, o->write_golden);
		}
		if (o->expect && compare_golden(o, doc, len, sc.err))
			rc = 1;
		free(doc);
	}
out:
	sc.closing = 1;
	if (L)
		lua_close(L); /* finalizers may still run: the hard stop stays armed */
	hard_stop_disarm(&hs);
	for (int i = 0; i < sc.nfailures; i++)
		free(sc.failures[i]);
	free(sc.failures);
	for (int i = 0; i < sc.nnotes; i++)
		free(sc.notes[i]);
	free(sc.notes);
	free(sc.src);
	if (own_out)
		fclose(sc.out);
	return rc;
}
