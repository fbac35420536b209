/* bounds.c - how a scenario is stopped: --timeout, --max-memory and the
 * fuzzer's budgets, reached by Lua's count hook, its allocator and the
 * simulation's poll, with SIGALRM as the last resort. */
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "lua_tcsim.h"

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
#define HEAP_SAMPLE_EVERY 64	/* bound checks between two heap samples */
#define STOP_RESERVE (1u << 20) /* what error handling may still allocate once stopped */
#define HARD_GRACE_NS 500000000ull
#define ALLOC_BYTES_PER_INSN 16 /* the instruction budget's price of allocation: 2M
				 * instructions allow 32 MB of allocation, under
				 * ASan half a second */

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
void *scenario_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
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
	/* the clock-free budget counts work, not only instructions: one
	 * string.rep or table.concat can copy megabytes in one instruction, so
	 * every ALLOC_BYTES_PER_INSN bytes allocated count as one */
	if (nsize > old)
		sc->instructions += (nsize - old) / ALLOC_BYTES_PER_INSN;
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
				snprintf(sc->stop_where, sizeof(sc->stop_where), "%s:%d",
					 ar.short_src, ar.currentline);
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
			snprintf(sc->stop_where, sizeof(sc->stop_where), "%s:%d", ar->short_src,
				 ar->currentline);
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
		snprintf(
		    b, n,
		    "tcsim: %s: stopped: the scenario needs more memory than --max-memory %s\n",
		    where, v);
		return SCENARIO_EXIT_MEMORY;
	default:
		snprintf(b, n,
			 "tcsim: %s: stopped: over its budget of %" PRIu64
			 " Lua instructions (64 bytes allocated count as one) or %" PRIu64
			 " simulation events\n",
			 where, sc->o->max_instructions, sc->o->max_events);
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

/* One for the process, as SIGALRM is. */
static struct hard_stop hard;

/* The stop's message, made with the rest of what the script sees: raising
 * it later allocates nothing. */
void scenario_bounds_open(lua_State *L)
{
	lua_pushliteral(L, "tcsim: the scenario was stopped (--timeout or --max-memory)");
	lua_rawsetp(L, LUA_REGISTRYINDEX, &stop_key);
}

/* The script's bounds, from its first byte on. */
void scenario_bounds_start(struct scenario *sc)
{
	const struct scenario_opts *o = sc->o;

	sc->lua_limit = o->max_memory;
	if (o->timeout_ns)
		sc->deadline_ns = mono_ns() + o->timeout_ns;
	if (o->timeout_ns || o->max_instructions || o->max_memory)
		lua_sethook(sc->L, hook, LUA_MASKCOUNT, HOOK_EVERY);
	if (o->owns_process && o->timeout_ns)
		hard_stop_arm(&hard, sc);
}

int scenario_bounds_end(struct scenario *sc)
{
	char msg[512];
	int rc;

	check_bounds(sc);
	if (!sc->stop)
		return 0;
	rc = stop_message(sc, msg, sizeof(msg));
	hard_printed = 1;
	fputs(msg, sc->err);
	return rc;
}

void scenario_hard_stop_disarm(void)
{
	hard_stop_disarm(&hard);
}
