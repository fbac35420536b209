/* l_sim.c - simulations and devices as Lua values: tcsim.sim{...},
 * sim:dev, sim:tc, sim:replay, sim:traffic, sim:run, sim:run_until,
 * sim:stats, sim:report, sim:close, dev:tc, dev:stats, dev:class, dev:qdisc,
 * dev:backlog, dev:set; what a simulation writes at the end (sim:outputs,
 * sim:trace, sim:explain) is l_outputs.c. Every API error is raised at the
 * scenario's line. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "cls.h"
#include "lua_tcsim.h"
#include "output.h"
#include "qdisc.h"
#include "report.h"
#include "source.h"
#include "tc.h"

/* The simulation a method is called on. A closed one, or any use once the
 * scenario has ended (a finalizer during lua_close), is an error that
 * names the call: the C side of a closed simulation is gone. */
struct lsim *lsim_check(lua_State *L, int idx, const char *call)
{
	struct lsim *ls = luaL_checkudata(L, idx, LSIM_MT);

	scenario_check_live(L, call);
	if (!ls->s)
		luaL_error(L, "%s: the simulation %s was closed", call, ls->name);
	return ls;
}

static struct ldev *check_dev(lua_State *L, int idx, const char *call)
{
	struct ldev *d = luaL_checkudata(L, idx, LDEV_MT);

	scenario_check_live(L, call);
	if (!d->ls->s)
		luaL_error(L, "%s: the simulation %s of this device was closed", call, d->ls->name);
	return d;
}

static struct dev *ldev_dev(const struct ldev *d)
{
	return d->ls->s->devs[d->idx];
}

/* Pushes the device userdata for s->devs[idx], creating it once per sim
 * (cached in the sim's user value, a table indexed by name). */
static void push_dev(lua_State *L, int sim_idx, struct lsim *ls, int idx)
{
	const char *name = ls->s->devs[idx]->name;
	struct ldev *d;

	sim_idx = lua_absindex(L, sim_idx);
	lua_getiuservalue(L, sim_idx, 1);
	if (lua_getfield(L, -1, name) == LUA_TUSERDATA) {
		lua_remove(L, -2);
		return;
	}
	lua_pop(L, 1);
	d = lua_newuserdatauv(L, sizeof(*d), 1);
	d->ls = ls;
	d->idx = idx;
	luaL_setmetatable(L, LDEV_MT);
	lua_pushvalue(L, sim_idx); /* the device keeps its simulation alive */
	lua_setiuservalue(L, -2, 1);
	lua_pushvalue(L, -1);
	lua_setfield(L, -3, name);
	lua_remove(L, -2);
}

static int dev_index(struct sim *s, const struct dev *d)
{
	for (int i = 0; i < s->ndevs; i++)
		if (s->devs[i] == d)
			return i;
	return -1;
}

/* A device argument: a dev value of this simulation or a device name. */
static struct dev *arg_dev(lua_State *L, int vidx, struct lsim *ls, const char *what)
{
	if (lua_type(L, vidx) == LUA_TSTRING) {
		struct dev *d = sim_dev_find(ls->s, lua_tostring(L, vidx));

		if (!d)
			luaL_error(L, "%s: no device '%s' in this simulation (configure it with tc first)", what,
				   lua_tostring(L, vidx));
		return d;
	}
	{
		struct ldev *d = luaL_testudata(L, vidx, LDEV_MT);

		if (!d)
			luaL_error(L, "%s: expected a device or a device name, got %s", what, luaL_typename(L, vidx));
		/* (its simulation may be closed: only the Lua side is left to name) */
		if (d->ls != ls)
			luaL_error(L, "%s: this device belongs to simulation %s, not %s", what, d->ls->name,
				   ls->name);
		return ldev_dev(d);
	}
}

/* The device a source goes to: opts.dev, or the simulation's only device. */
static struct dev *source_dev(lua_State *L, int opts, struct lsim *ls, const char *what)
{
	struct dev *d = NULL;

	if (opts && opt_field(L, opts, "dev")) {
		d = arg_dev(L, -1, ls, what);
		lua_pop(L, 1);
		return d;
	}
	if (ls->s->ndevs == 1)
		return ls->s->devs[0];
	if (ls->s->ndevs == 0)
		luaL_error(L, "%s: the simulation has no device yet (sim:dev or sim:tc first)", what);
	luaL_error(L, "%s: the simulation has %d devices: say which with dev = ...", what, ls->s->ndevs);
	return NULL;
}

/* ---- tcsim.sim{...} ---- */

static const char *const sim_keys[] = {"name",	   "seed",     "kernel",  "sfq_allot", "sfq_hash", "rate",
				       "overhead", "mtu",      "txqueuelen", "delay",  "timer_latency", NULL};

static void dev_opts(lua_State *L, int t, uint64_t *rate, uint32_t *overhead, uint32_t *mtu,
		     uint32_t *txq, uint64_t *delay)
{
	if (opt_field(L, t, "rate")) {
		*rate = opt_rate_bps(L, -1, "rate");
		lua_pop(L, 1);
	}
	if (opt_field(L, t, "overhead")) {
		*overhead = (uint32_t)opt_uint(L, -1, "overhead", 65535);
		lua_pop(L, 1);
	}
	if (opt_field(L, t, "mtu")) {
		*mtu = (uint32_t)opt_uint(L, -1, "mtu", 65535);
		if (*mtu < 68)
			luaL_error(L, "mtu %d: below IPv4's minimum of 68", (int)*mtu);
		lua_pop(L, 1);
	}
	if (opt_field(L, t, "txqueuelen")) {
		*txq = (uint32_t)opt_uint(L, -1, "txqueuelen", UINT32_MAX);
		lua_pop(L, 1);
	}
	if (opt_field(L, t, "delay")) {
		*delay = opt_time_ns(L, -1, "delay");
		lua_pop(L, 1);
	}
}

static int l_sim_new(lua_State *L)
{
	struct scenario *sc = scenario_get(L);
	struct sim_config cfg;
	struct lsim *ls;
	char name[sizeof(((struct lsim *)0)->name)];
	int has_name = 0;

	scenario_check_live(L, "tcsim.sim");
	sim_config_default(&cfg);
	if (sc->o->has_seed)
		cfg.seed = sc->o->seed;
	if (!lua_isnoneornil(L, 1)) {
		luaL_checktype(L, 1, LUA_TTABLE);
		opt_check_keys(L, 1, "tcsim.sim", sim_keys);
		if (opt_field(L, 1, "name")) {
			/* copied before the pop: a number converted to a string
			 * here lives only in this stack slot (fuzz_lua found the
			 * collected string read below) */
			snprintf(name, sizeof(name), "%s", luaL_checkstring(L, -1));
			has_name = 1;
			lua_pop(L, 1);
		}
		if (opt_field(L, 1, "seed")) {
			cfg.seed = opt_uint(L, -1, "seed", UINT64_MAX);
			lua_pop(L, 1);
		}
		if (opt_field(L, 1, "kernel")) {
			const char *k = luaL_checkstring(L, -1);

			if (!strcmp(k, "current"))
				cfg.kernel = BPF_KERNEL_CURRENT;
			else if (!strcmp(k, "3.13"))
				cfg.kernel = BPF_KERNEL_3_13;
			else
				luaL_error(L, "kernel '%s': expected \"current\" or \"3.13\"", k);
			lua_pop(L, 1);
		}
		if (opt_field(L, 1, "sfq_allot")) {
			const char *k = luaL_checkstring(L, -1);

			if (strcmp(k, "units") && strcmp(k, "bytes"))
				luaL_error(L, "sfq_allot '%s': expected \"units\" or \"bytes\"", k);
			cfg.sfq_allot_bytes = !strcmp(k, "bytes");
			lua_pop(L, 1);
		}
		if (opt_field(L, 1, "sfq_hash")) {
			const char *k = luaL_checkstring(L, -1);

			if (strcmp(k, "tuple") && strcmp(k, "random"))
				luaL_error(L, "sfq_hash '%s': expected \"tuple\" or \"random\"", k);
			cfg.sfq_hash_random = !strcmp(k, "random");
			lua_pop(L, 1);
		}
		if (opt_field(L, 1, "timer_latency")) {
			cfg.timer_latency_ns = opt_time_ns(L, -1, "timer_latency");
			lua_pop(L, 1);
		}
		dev_opts(L, 1, &cfg.rate_bps, &cfg.overhead, &cfg.mtu, &cfg.txqueuelen, &cfg.delay_ns);
	}
	ls = lua_newuserdatauv(L, sizeof(*ls), 1);
	memset(ls, 0, sizeof(*ls));
	ls->sc = sc;
	luaL_setmetatable(L, LSIM_MT);
	lua_newtable(L); /* its devices by name */
	lua_setiuservalue(L, -2, 1);
	ls->s = malloc(sizeof(*ls->s));
	if (!ls->s || sim_init(ls->s, &cfg)) {
		free(ls->s);
		ls->s = NULL;
		return luaL_error(L, "out of memory");
	}
	if (sc->o->timeout_ns || sc->o->max_events || sc->o->max_memory) {
		ls->s->poll = scenario_sim_poll;
		ls->s->poll_arg = sc;
	}
	sc->nsims++;
	if (has_name)
		snprintf(ls->name, sizeof(ls->name), "%s", name);
	else
		snprintf(ls->name, sizeof(ls->name), "sim%d", sc->nsims);
	if (sc->o->explain && !sc->explained &&
	    (!sc->o->explain_sim || !strcmp(sc->o->explain_sim, ls->name))) {
		char err[512];

		ls->exo.source = sc->o->explain_source;
		ls->exo.seq = sc->o->explain_seq;
		ls->exo.verbose = sc->o->explain_verbose;
		if (explain_begin(&ls->explain, ls->s, &ls->exo, err, sizeof(err)))
			return luaL_error(L, "tcsim explain: %s", err);
		sc->explained = 1;
	}
	/* the scenario keeps every simulation for its results */
	lua_rawgeti(L, LUA_REGISTRYINDEX, sc->sims_ref);
	lua_pushvalue(L, -2);
	lua_rawseti(L, -2, sc->nsims);
	lua_pop(L, 1);
	return 1;
}

static void lsim_release(struct lsim *ls)
{
	for (int i = 0; i < ls->ntraces; i++)
		trace_close(ls->traces[i]);
	ls->ntraces = 0;
	explain_abort(ls->explain);
	ls->explain = NULL;
	outputs_abort(ls->outs); /* before the simulation goes */
	ls->outs = NULL;
	if (ls->s) {
		sim_free(ls->s);
		free(ls->s);
		ls->s = NULL;
	}
	free(ls->tclog);
	ls->tclog = NULL;
	ls->tclog_len = 0;
	for (int i = 0; i < ls->ninputs; i++) {
		free(ls->inputs[i].capture);
		free(ls->inputs[i].synth);
	}
	free(ls->inputs);
	ls->inputs = NULL;
	ls->ninputs = 0;
}

static int l_sim_gc(lua_State *L)
{
	lsim_release(luaL_checkudata(L, 1, LSIM_MT));
	return 0;
}

void lsim_note_input(lua_State *L, struct lsim *ls, const char *capture, const struct synth_spec *sp,
		     const char *dev, enum prio_mode prio_mode, uint32_t priority,
		     const struct mark_rules *marks)
{
	struct lsim_input *in = realloc(ls->inputs, (size_t)(ls->ninputs + 1) * sizeof(*in));

	if (!in)
		luaL_error(L, "out of memory");
	ls->inputs = in;
	in = &ls->inputs[ls->ninputs];
	memset(in, 0, sizeof(*in));
	snprintf(in->dev, sizeof(in->dev), "%s", dev);
	in->prio_forward = prio_mode == PRIO_FORWARD;
	in->priority = priority;
	if (marks)
		in->marks = *marks;
	if (capture && !(in->capture = strdup(capture)))
		luaL_error(L, "out of memory");
	if (sp) {
		if (!(in->synth = malloc(sizeof(*sp))))
			luaL_error(L, "out of memory");
		*in->synth = *sp;
	}
	ls->ninputs++;
}

/* Appends a tc script that ran, as one more script for kernel-check and lint. */
static void note_tc(lua_State *L, struct lsim *ls, const char *text)
{
	size_t n = strlen(text);
	char *b = realloc(ls->tclog, ls->tclog_len + n + 2);

	if (!b)
		luaL_error(L, "out of memory");
	memcpy(b + ls->tclog_len, text, n);
	ls->tclog_len += n;
	b[ls->tclog_len++] = '\n';
	b[ls->tclog_len] = 0;
	ls->tclog = b;
}

static int l_sim_tostring(lua_State *L)
{
	struct lsim *ls = luaL_checkudata(L, 1, LSIM_MT);

	if (!ls->s)
		lua_pushfstring(L, "tcsim.sim %s (closed)", ls->name);
	else
		lua_pushfstring(L, "tcsim.sim %s: %d devices, %d sources, t = %f s", ls->name, ls->s->ndevs,
				ls->s->nsrcs, (double)ls->s->now / 1e9);
	return 1;
}

/* sim:dev(name [, {rate=, overhead=, mtu=, txqueuelen=, delay=}]) */
static const char *const dev_keys[] = {"rate", "overhead", "mtu", "txqueuelen", "delay", NULL};

static int l_sim_dev(lua_State *L)
{
	struct lsim *ls = lsim_check(L, 1, "sim:dev");
	const char *name = luaL_checkstring(L, 2);
	struct dev *d = sim_dev_find(ls->s, name);
	char err[512];

	if (!d) {
		if (sim_dev_add(ls->s, name, &d, err, sizeof(err)))
			return luaL_error(L, "sim:dev: %s", err);
	}
	if (!lua_isnoneornil(L, 3)) {
		luaL_checktype(L, 3, LUA_TTABLE);
		opt_check_keys(L, 3, "sim:dev", dev_keys);
		dev_opts(L, 3, &d->rate_bps, &d->overhead, &d->mtu, &d->txqueuelen, &d->delay_ns);
		dev_sync_env(d);
	}
	push_dev(L, 1, ls, dev_index(ls->s, d));
	return 1;
}

/* tc lines, one or a script, at the scenario's line. */
static int run_tc(lua_State *L, struct lsim *ls, const char *text)
{
	struct scenario *sc = ls->sc;
	char err[1024], name[256];
	int first = scenario_text_line(L, text, name, sizeof(name));
	int r;

	r = tc_run_script_at(ls->s, text, name, first, sc->dir, sc->out, err, sizeof(err));
	if (r) {
		/* err already starts with the scenario's file:line */
		lua_pushstring(L, err);
		return lua_error(L);
	}
	note_tc(L, ls, text);
	return 0;
}

static int l_sim_tc(lua_State *L)
{
	struct lsim *ls = lsim_check(L, 1, "sim:tc");

	run_tc(L, ls, luaL_checkstring(L, 2));
	lua_settop(L, 1);
	return 1;
}

/* sim:replay(path, {dev=, speed=, pps=, mbps=, topspeed=, loop=, limit=,
 * start=, duration=, priority=, mark=, vlan=}) */
static const char *const replay_keys[] = {"dev",      "speed", "pps",	   "mbps",     "topspeed", "loop",
					  "limit",    "start", "duration", "priority", "mark",	   "vlan", NULL};

static int l_sim_replay(lua_State *L)
{
	struct lsim *ls = lsim_check(L, 1, "sim:replay");
	const char *name = luaL_checkstring(L, 2);
	struct replay_opts ro;
	struct source *src;
	struct dev *d;
	char path[4096], err[1024];
	int opts = 0, npace = 0;

	replay_opts_default(&ro);
	if (!lua_isnoneornil(L, 3)) {
		luaL_checktype(L, 3, LUA_TTABLE);
		opts = 3;
		opt_check_keys(L, 3, "sim:replay", replay_keys);
	}
	d = source_dev(L, opts, ls, "sim:replay");
	if (opts) {
		if (opt_field(L, 3, "speed")) {
			ro.speed = opt_number(L, -1, "speed");
			if (!(ro.speed > 0))
				luaL_error(L, "speed must be above 0");
			npace++;
			lua_pop(L, 1);
		}
		if (opt_field(L, 3, "pps")) {
			ro.pps = opt_number(L, -1, "pps");
			if (!(ro.pps > 0))
				luaL_error(L, "pps must be above 0");
			npace++;
			lua_pop(L, 1);
		}
		if (opt_field(L, 3, "mbps")) {
			ro.mbps = opt_number(L, -1, "mbps");
			if (!(ro.mbps > 0))
				luaL_error(L, "mbps must be above 0");
			npace++;
			lua_pop(L, 1);
		}
		if (opt_field(L, 3, "topspeed")) {
			luaL_checktype(L, -1, LUA_TBOOLEAN);
			ro.topspeed = lua_toboolean(L, -1);
			npace += ro.topspeed;
			lua_pop(L, 1);
		}
		if (npace > 1)
			luaL_error(L, "sim:replay: speed, pps, mbps and topspeed exclude each other (as in tcpreplay)");
		if (opt_field(L, 3, "loop")) {
			ro.loop = opt_uint(L, -1, "loop", UINT64_MAX);
			lua_pop(L, 1);
		}
		if (opt_field(L, 3, "limit")) {
			ro.limit = opt_uint(L, -1, "limit", UINT64_MAX);
			if (!ro.limit)
				luaL_error(L, "limit must be at least 1");
			lua_pop(L, 1);
		}
		if (opt_field(L, 3, "start")) {
			ro.start_ns = opt_time_ns(L, -1, "start");
			lua_pop(L, 1);
		}
		if (opt_field(L, 3, "duration")) {
			ro.duration_ns = opt_time_ns(L, -1, "duration");
			lua_pop(L, 1);
		}
		if (opt_field(L, 3, "priority")) {
			ro.priority = opt_priority(L, -1, "priority", &ro.prio_mode);
			lua_pop(L, 1);
		}
		if (opt_field(L, 3, "mark")) {
			opt_marks(L, -1, "mark", &ro.marks);
			lua_pop(L, 1);
		}
		if (opt_field(L, 3, "vlan")) {
			const char *v = luaL_checkstring(L, -1);

			if (strcmp(v, "offload") && strcmp(v, "inline"))
				luaL_error(L, "vlan '%s': expected \"offload\" or \"inline\"", v);
			ro.vlan_inline = !strcmp(v, "inline");
			lua_pop(L, 1);
		}
	}
	/* a source added mid-run starts now, not in the past */
	ro.start_ns = time_add(ro.start_ns, ls->s->now);
	scenario_path(L, name, path, sizeof(path));
	if (ls->sc->o->sandbox) {
		struct stat st;

		/* a device or a fifo could block the run for ever */
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			return luaL_error(L, "sim:replay: %s: not a regular file (the sandbox reads no others)", path);
	}
	if (src_open_capture(&src, path, &ro, err, sizeof(err)) ||
	    sim_add_source(ls->s, src, d, ro.vlan_inline, err, sizeof(err)))
		return luaL_error(L, "sim:replay: %s", err);
	lsim_note_input(L, ls, path, NULL, d->name, ro.prio_mode, ro.priority, &ro.marks);
	lua_settop(L, 1);
	return 1;
}

/* sim:traffic{...}: a synthetic source (l_traffic.c parses it). */
static int l_sim_traffic(lua_State *L)
{
	struct lsim *ls = lsim_check(L, 1, "sim:traffic");
	struct ltraffic *t;
	struct source *src;
	struct dev *d = NULL;
	char err[1024];

	luaL_checktype(L, 2, LUA_TTABLE);
	t = lua_newuserdatauv(L, sizeof(*t), 0);
	memset(t, 0, sizeof(*t));
	luaL_setmetatable(L, LTRAFFIC_MT);
	ltraffic_parse(L, 2, t, ls, &d);
	if (!d)
		d = source_dev(L, 0, ls, "sim:traffic");
	t->spec.start_ns = time_add(t->spec.start_ns, ls->s->now);
	if (src_open_synth(&src, &t->spec, err, sizeof(err)) ||
	    sim_add_source(ls->s, src, d, 0, err, sizeof(err)))
		return luaL_error(L, "sim:traffic: %s", err);
	lsim_note_input(L, ls, NULL, &t->spec, d->name, t->spec.prio_mode, t->spec.priority,
			&t->spec.marks);
	return 1;
}

/* UINT64_MAX: to the end. Through the outputs when there are some. */
static int run_until(struct lsim *ls, uint64_t t)
{
	if (ls->outs)
		return outputs_run_until(ls->outs, t);
	return t == UINT64_MAX ? sim_run(ls->s) : sim_run_until(ls->s, t);
}

static void check_run(lua_State *L, struct lsim *ls, int r)
{
	char err[1024];

	if (r && ls->sc->stop)
		scenario_raise_stop(L); /* a bound reached inside the run */
	if (r)
		luaL_error(L, "simulation %s: %s", ls->name, ls->outs ? outputs_error(ls->outs) : ls->s->err);
	if (sim_check_accounting(ls->s, err, sizeof(err))) {
		ls->sc->accounting_failed = 1;
		luaL_error(L, "simulation %s: %s", ls->name, err);
	}
}

/* sim:run() to the end; sim:run{duration = T} for T more. Returns now. */
static const char *const run_keys[] = {"duration", NULL};

static int l_sim_run(lua_State *L)
{
	struct lsim *ls = lsim_check(L, 1, "sim:run");

	if (!lua_isnoneornil(L, 2)) {
		uint64_t dur;

		luaL_checktype(L, 2, LUA_TTABLE);
		opt_check_keys(L, 2, "sim:run", run_keys);
		if (!opt_field(L, 2, "duration"))
			return luaL_error(L, "sim:run: give {duration = T}, or nothing to run to the end");
		dur = opt_time_ns(L, -1, "duration");
		check_run(L, ls, run_until(ls, time_add(ls->s->now, dur)));
	} else {
		check_run(L, ls, run_until(ls, UINT64_MAX));
	}
	lua_pushinteger(L, (lua_Integer)ls->s->now);
	return 1;
}

static int l_sim_run_until(lua_State *L)
{
	struct lsim *ls = lsim_check(L, 1, "sim:run_until");
	uint64_t t = opt_time_ns(L, 2, "sim:run_until");

	if (t < ls->s->now)
		return luaL_error(L, "sim:run_until: %f s is in the past (now %f s)", (double)t / 1e9,
				  (double)ls->s->now / 1e9);
	check_run(L, ls, run_until(ls, t));
	lua_pushinteger(L, (lua_Integer)ls->s->now);
	return 1;
}

static int l_sim_now(lua_State *L)
{
	lua_pushinteger(L, (lua_Integer)lsim_check(L, 1, "sim:now")->s->now);
	return 1;
}

static int l_sim_stats(lua_State *L)
{
	return lsim_push_results(L, lsim_check(L, 1, "sim:stats")->s, -1);
}

/* sim:devices() -> array of devs */
static int l_sim_devices(lua_State *L)
{
	struct lsim *ls = lsim_check(L, 1, "sim:devices");

	lua_createtable(L, ls->s->ndevs, 0);
	for (int i = 0; i < ls->s->ndevs; i++) {
		push_dev(L, 1, ls, i);
		lua_rawseti(L, -2, i + 1);
	}
	return 1;
}

/* Writes to a temporary file renamed into place: nothing half-written. */
static int write_json_file(lua_State *L, const struct sim *s, const char *path)
{
	struct outfile o;
	int r;

	if (outfile_open(&o, path, "w"))
		return luaL_error(L, "report: %s: %s", path, strerror(errno));
	report_json(s, o.f);
	r = outfile_commit(&o);
	outfile_abort(&o);
	if (r)
		return luaL_error(L, "report: %s: %s", path, strerror(-r));
	return 0;
}

/* sim:report() prints the text report; sim:report{json = PATH|"-"} */
static const char *const report_keys[] = {"json", NULL};

static int l_sim_report(lua_State *L)
{
	struct lsim *ls = lsim_check(L, 1, "sim:report");
	struct scenario *sc = ls->sc;

	if (!lua_isnoneornil(L, 2)) {
		const char *path;

		luaL_checktype(L, 2, LUA_TTABLE);
		opt_check_keys(L, 2, "sim:report", report_keys);
		if (!opt_field(L, 2, "json"))
			return luaL_error(L, "sim:report: give {json = FILE} or nothing");
		path = luaL_checkstring(L, -1);
		if (!strcmp(path, "-"))
			report_json(ls->s, sc->out);
		else if (sc->o->sandbox)
			return luaL_error(L, "sim:report: no files are written in the sandbox");
		else
			write_json_file(L, ls->s, path);
		return 0;
	}
	report_text(ls->s, sc->out);
	fflush(sc->out);
	return 0;
}

static int l_sim_close(lua_State *L)
{
	struct lsim *ls = lsim_check(L, 1, "sim:close");
	char err[1024];

	/* closing ends the simulation well: its outputs and traces are written */
	if (lsim_finish_one(ls->sc, ls, err, sizeof(err))) {
		l_sim_gc(L);
		return luaL_error(L, "sim:close: %s", err);
	}
	return l_sim_gc(L);
}

/* ---- devices ---- */

static int l_dev_tc(lua_State *L)
{
	struct ldev *d = check_dev(L, 1, "dev:tc");

	run_tc(L, d->ls, luaL_checkstring(L, 2));
	lua_settop(L, 1);
	return 1;
}

static int l_dev_stats(lua_State *L)
{
	struct ldev *d = check_dev(L, 1, "dev:stats");

	return lsim_push_results(L, d->ls->s, d->idx);
}

/* dev:class("1:1") -> the class row of the results, or nil */
static int l_dev_class(lua_State *L)
{
	struct ldev *d = check_dev(L, 1, "dev:class");
	uint32_t id;
	char key[32];

	if (tc_get_classid(&id, luaL_checkstring(L, 2)))
		return luaL_error(L, "dev:class: '%s' is not a classid", lua_tostring(L, 2));
	tc_print_classid(key, sizeof(key), id);
	lsim_push_results(L, d->ls->s, d->idx);
	lua_getfield(L, -1, "classes");
	lua_getfield(L, -1, key);
	return 1;
}

/* dev:qdisc("10:") -> the qdisc row of the results, or nil */
static int l_dev_qdisc(lua_State *L)
{
	struct ldev *d = check_dev(L, 1, "dev:qdisc");
	uint32_t id;
	char key[32];

	if (tc_get_classid(&id, luaL_checkstring(L, 2)))
		return luaL_error(L, "dev:qdisc: '%s' is not a handle", lua_tostring(L, 2));
	tc_print_classid(key, sizeof(key), id);
	lsim_push_results(L, d->ls->s, d->idx);
	lua_getfield(L, -1, "qdiscs");
	lua_getfield(L, -1, key);
	return 1;
}

/* dev:backlog() -> bytes, packets queued in the root qdisc now */
static int l_dev_backlog(lua_State *L)
{
	struct dev *d = ldev_dev(check_dev(L, 1, "dev:backlog"));

	lua_pushinteger(L, (lua_Integer)d->root->s.backlog);
	lua_pushinteger(L, (lua_Integer)d->root->s.qlen);
	return 2;
}

static int l_dev_name(lua_State *L)
{
	lua_pushstring(L, ldev_dev(check_dev(L, 1, "dev:name"))->name);
	return 1;
}

static int l_dev_tostring(lua_State *L)
{
	struct ldev *d = luaL_checkudata(L, 1, LDEV_MT);

	if (!d->ls->s)
		lua_pushstring(L, "tcsim.dev (closed)");
	else
		lua_pushfstring(L, "tcsim.dev %s of %s", ldev_dev(d)->name, d->ls->name);
	return 1;
}

/* dev:set{rate=, ...}: change the link mid-run */
static int l_dev_set(lua_State *L)
{
	struct dev *d = ldev_dev(check_dev(L, 1, "dev:set"));

	luaL_checktype(L, 2, LUA_TTABLE);
	opt_check_keys(L, 2, "dev:set", dev_keys);
	dev_opts(L, 2, &d->rate_bps, &d->overhead, &d->mtu, &d->txqueuelen, &d->delay_ns);
	dev_sync_env(d);
	lua_settop(L, 1);
	return 1;
}

static const luaL_Reg sim_methods[] = {
	{"outputs", l_sim_outputs},
	{"trace", l_sim_trace},
	{"explain", l_sim_explain},
	{"dev", l_sim_dev},	  {"devices", l_sim_devices}, {"tc", l_sim_tc},	    {"replay", l_sim_replay},
	{"traffic", l_sim_traffic}, {"run", l_sim_run},	      {"run_until", l_sim_run_until},
	{"now", l_sim_now},	  {"stats", l_sim_stats},     {"report", l_sim_report}, {"close", l_sim_close},
	{NULL, NULL},
};

static const luaL_Reg dev_methods[] = {
	{"tc", l_dev_tc},	  {"stats", l_dev_stats}, {"class", l_dev_class}, {"qdisc", l_dev_qdisc},
	{"backlog", l_dev_backlog}, {"name", l_dev_name},   {"set", l_dev_set},	    {NULL, NULL},
};

void lsim_open(lua_State *L)
{
	luaL_newmetatable(L, LSIM_MT);
	/* getmetatable(sim) must not reach __gc: calling it, or removing it
	 * (the simulation would never be freed), is not the script's to do */
	lua_pushliteral(L, LSIM_MT);
	lua_setfield(L, -2, "__metatable");
	luaL_newlib(L, sim_methods);
	lua_setfield(L, -2, "__index");
	lua_pushcfunction(L, l_sim_gc);
	lua_setfield(L, -2, "__gc");
	lua_pushcfunction(L, l_sim_gc);
	lua_setfield(L, -2, "__close");
	lua_pushcfunction(L, l_sim_tostring);
	lua_setfield(L, -2, "__tostring");
	lua_pop(L, 1);

	luaL_newmetatable(L, LDEV_MT);
	lua_pushliteral(L, LDEV_MT);
	lua_setfield(L, -2, "__metatable");
	luaL_newlib(L, dev_methods);
	lua_setfield(L, -2, "__index");
	lua_pushcfunction(L, l_dev_tostring);
	lua_setfield(L, -2, "__tostring");
	lua_pop(L, 1);

	/* tcsim.sim (the tcsim table is on top) */
	lua_pushcfunction(L, l_sim_new);
	lua_setfield(L, -2, "sim");
}
