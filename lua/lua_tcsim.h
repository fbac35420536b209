/* lua_tcsim.h - what the scenario runner (scenario.c and its parts: bounds.c,
 * sandbox.c, golden.c, lint_kcheck.c) and the bindings (l_sim.c, l_traffic.c,
 * l_expect.c, ...) share. Not a public API. */
#ifndef TCSIM_LUA_TCSIM_H
#define TCSIM_LUA_TCSIM_H

#include <stdint.h>
#include <stdio.h>

#include <lauxlib.h>
#include <lua.h>

#include "scenario.h"
#include "sim.h"
#include "synth.h"
#include "explain.h"
#include "trace.h"
#include "ci_report.h"

#define LSIM_MT "tcsim.sim"
#define LDEV_MT "tcsim.dev"
#define LTRAFFIC_MT "tcsim.traffic"

/* The run of one scenario file, kept in the Lua registry. */
struct scenario {
	const struct scenario_opts *o;
	const char *path;  /* as given */
	char dir[4096];    /* its folder: where the files it reads are */
	char *src;         /* its text, for line numbers of embedded tc scripts */
	size_t srclen;
	FILE *out;         /* print(), reports, tc show */
	int sims_ref;      /* registry ref: every simulation, in creation order */
	int nsims;
	int accounting_failed;
	/* expectations */
	int passed, failed;
	char **failures; /* "file:line: message" of each failure */
	int nfailures, capfailures;
	struct ci_report ci; /* every check, for --junit and --tap */
	/* lint: warnings found while the script ran ("file:line: warning: ...") */
	char **notes;
	int nnotes;
	/* tcsim explain SCENARIO: the packet, in the simulation named (or the first) */
	struct explain_opts exo;
	const char *explain_sim;
	int explained;
	/* bounds (bounds.c): the first one reached stops the scenario for good */
	FILE *err;           /* messages */
	lua_State *L;        /* the main thread */
	uint64_t lua_bytes;  /* what the Lua allocator holds */
	uint64_t lua_limit;  /* --max-memory, 0 = none (lifted once the script has ended) */
	const void *refused_ptr; /* the last allocation refused, to tell Lua's retry after
				  * its emergency collection from a new request */
	size_t refused_osize, refused_nsize;
	int refused_pending;
	uint64_t deadline_ns; /* CLOCK_MONOTONIC, 0 = none */
	uint64_t instructions, events;
	unsigned samples;    /* bound checks made: the heap is sampled every 64th */
	int stop;            /* enum scenario_stop: why the scenario was stopped */
	char stop_where[300]; /* "file:line" it was running when stopped, if known */
	int closing;         /* the script has ended: the API refuses to be used */
};

enum scenario_stop { STOP_NONE, STOP_TIMEOUT, STOP_MEMORY, STOP_BUDGET };

/* ---- bounds.c ---- */

/* Raises the scenario's stop (a bound was reached) if there is one, or an
 * error when the script has ended (a finalizer calling the API during
 * lua_close); `call` names the API function, as "sim:run". */
void scenario_check_live(lua_State *L, const char *call);
/* Raises the stop as an error, recording where the script was. */
int scenario_raise_stop(lua_State *L);
/* The simulation's poll (sim.h): the scenario's bounds reach into sim_run. */
int scenario_sim_poll(void *arg, char *err, size_t errlen);
/* Lua's allocator, holding the scenario's memory to --max-memory. */
void *scenario_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
/* The stop's message in the registry (made while the script is set up). */
void scenario_bounds_open(lua_State *L);
/* The bounds, from the script's first byte on: the memory limit, the
 * deadline, the count hook, and the hard stop when tcsim owns the process. */
void scenario_bounds_start(struct scenario *sc);
/* Once the script has ended: 0, or the exit code after the one line of a stop. */
int scenario_bounds_end(struct scenario *sc);
void scenario_hard_stop_disarm(void);

/* The standard library less what breaks memory safety, and in the sandbox
 * less what touches the world (sandbox.c). */
void scenario_restrict_libs(lua_State *L, int sandbox);
/* --json, --write-golden, --expect (golden.c): 0, or 1 after printing why. */
int scenario_write_results(lua_State *L, struct scenario *sc);
/* tcsim lint SCENARIO (lint_kcheck.c): the warnings, counted in *n; 0, or 1
 * after printing why. */
int scenario_lint(lua_State *L, struct scenario *sc, int *n);
/* tcsim kernel-check SCENARIO: 0 same, 1 a difference or an error, 2 cannot run here. */
int scenario_kernel_check(lua_State *L, struct scenario *sc);

/* A simulation as Lua holds it. */
struct lsim {
	struct sim *s; /* NULL once closed */
	struct scenario *sc;
	char name[64];
	int nsynth; /* synthetic sources added: their seeds */
	struct outputs *outs; /* sim:outputs{...}: pcap and plot files, written at the end */
	struct trace *traces[8]; /* sim:trace{...}: written at the end */
	int ntraces;
	struct explain *explain; /* sim:explain{...}: told at the end */
	struct explain_opts exo;
	/* what the scenario did to it, for tcsim kernel-check and lint */
	char *tclog; /* every tc script run, in order */
	size_t tclog_len;
	struct lsim_input {
		char *capture;            /* a replayed capture, or NULL: */
		struct synth_spec *synth; /* a synthetic source */
		char dev[DEV_NAMELEN];
		int prio_forward;	  /* skb->priority as the source gives it */
		uint32_t priority;
		struct mark_rules marks;  /* skb->mark as the source gives it */
	} *inputs;
	int ninputs;
};

/* The simulation a method is called on (l_sim.c): a closed one, or any use
 * once the scenario has ended, is an error that names the call. */
struct lsim *lsim_check(lua_State *L, int idx, const char *call);
/* Remembers an input of the simulation (takes a copy). */
void lsim_note_input(lua_State *L, struct lsim *ls, const char *capture, const struct synth_spec *sp,
		     const char *dev, enum prio_mode prio_mode, uint32_t priority,
		     const struct mark_rules *marks);

struct ldev {
	struct lsim *ls;
	int idx; /* in ls->s->devs */
};

struct ltraffic {
	struct synth_spec spec;
	int has_dev;
};

/* a + b for times: saturating at TIME_MAX_NS, far below UINT64_MAX (which
 * means "to the end"), so sums of times never wrap */
#define TIME_MAX_NS (UINT64_MAX / 4)
static inline uint64_t time_add(uint64_t a, uint64_t b)
{
	if (a > TIME_MAX_NS || b > TIME_MAX_NS - a)
		return TIME_MAX_NS;
	return a + b;
}

struct scenario *scenario_get(lua_State *L);
void scenario_set(lua_State *L, struct scenario *sc);

/* Option tables. */
void opt_check_keys(lua_State *L, int idx, const char *what, const char *const *known);
int opt_field(lua_State *L, int idx, const char *key); /* pushes t[key], returns 0 if nil (popped) */
uint64_t opt_time_ns(lua_State *L, int vidx, const char *what);
uint64_t opt_rate_bps(lua_State *L, int vidx, const char *what);
uint64_t opt_uint(lua_State *L, int vidx, const char *what, uint64_t max);
double opt_number(lua_State *L, int vidx, const char *what);
uint32_t opt_priority(lua_State *L, int vidx, const char *what, enum prio_mode *mode);
/* skb->mark rules: a number (every packet) or a list of {expr, mark} pairs, the
 * first whose tcpdump expression selects the frame giving its mark. */
void opt_marks(lua_State *L, int vidx, const char *what, struct mark_rules *m);
/* Lint mode: a warning at the calling line. */
void scenario_note(lua_State *L, const char *msg);
/* The path of a file the scenario reads (relative to the scenario's folder). */
const char *scenario_path(lua_State *L, const char *name, char *buf, size_t n);
/* The line of the scenario that called the current C function. */
int scenario_line(lua_State *L);
/* Where text embedded in the calling line starts (name = its chunk): that line, or the next
 * when the line ends right after a long bracket [[ / [==[. */
int scenario_text_line(lua_State *L, const char *text, char *name, size_t n);

/* JSON results of a simulation, converted to a Lua table (the schema of
 * tcsim run --json, with arrays also keyed by name, classid and handle). */
int lsim_push_results(lua_State *L, const struct sim *s, int dev_idx);
char *lsim_results_json(const struct sim *s, size_t *len);

/* Writes every simulation's pcap and plot outputs and traces, and tells
 * the packets to explain (end of a scenario that succeeded); 0, or 1
 * after printing why. */
int lsim_finish_outputs(lua_State *L, struct scenario *sc);
/* The same for one simulation (sim:close); the first message in err. */
int lsim_finish_one(struct scenario *sc, struct lsim *ls, char *err, size_t errlen);
/* sim:outputs, sim:trace, sim:explain (l_outputs.c), in l_sim.c's method table */
int l_sim_outputs(lua_State *L);
int l_sim_trace(lua_State *L);
int l_sim_explain(lua_State *L);
void lsim_open(lua_State *L);     /* tcsim.sim, the sim and dev metatables */
void ltraffic_open(lua_State *L); /* tcsim.traffic, the traffic metatable */
int ltraffic_parse(lua_State *L, int idx, struct ltraffic *t, struct lsim *ls, struct dev **dev);
void lexpect_open(lua_State *L);  /* expect, expect_eq, ... */

#endif
