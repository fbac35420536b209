/* l_outputs.c - what a simulation writes when the scenario ends well:
 * sim:outputs (pcaps and plots), sim:trace and sim:explain, and the end
 * that writes them (lsim_finish_outputs, and sim:close for one). */
#include <string.h>

#include "lua_tcsim.h"
#include "output.h"

/* sim:trace{file = PATH|"-", filter = "tcpdump expression"}: one line per
 * event of every (matching) packet, from now on; written at the end. */
static const char *const trace_keys[] = {"file", "filter", NULL};

int l_sim_trace(lua_State *L)
{
	struct lsim *ls = lsim_check(L, 1, "sim:trace");
	const char *file, *filter = NULL;
	char err[1024];

	luaL_checktype(L, 2, LUA_TTABLE);
	opt_check_keys(L, 2, "sim:trace", trace_keys);
	if (!opt_field(L, 2, "file"))
		return luaL_error(L, "sim:trace: give file = PATH (or \"-\" for the output)");
	file = luaL_checkstring(L, -1);
	if (opt_field(L, 2, "filter"))
		filter = luaL_checkstring(L, -1);
	if (ls->ntraces == (int)(sizeof(ls->traces) / sizeof(ls->traces[0])))
		return luaL_error(L, "sim:trace: at most %d traces per simulation", ls->ntraces);
	if (strcmp(file, "-") && ls->sc->o->sandbox)
		return luaL_error(
		    L, "sim:trace: no files are written in the sandbox (file = \"-\" prints)");
	/* "-" is the scenario's own output (stderr under --json -, nothing under --quiet) */
	if (!strcmp(file, "-")
		? trace_open(&ls->traces[ls->ntraces], ls->s, ls->sc->out, filter, err, sizeof(err))
		: trace_open_path(&ls->traces[ls->ntraces], ls->s, file, filter, err, sizeof(err)))
		return luaL_error(L, "sim:trace: %s", err);
	ls->ntraces++;
	lua_settop(L, 1);
	return 1;
}

/* sim:explain{packet = N, source = K, verbose = b}: the story of packet N
 * of the simulation's K-th source (from 1), told when the scenario ends. */
static const char *const explain_keys[] = {"packet", "source", "verbose", NULL};

int l_sim_explain(lua_State *L)
{
	struct lsim *ls = lsim_check(L, 1, "sim:explain");
	char err[512];

	luaL_checktype(L, 2, LUA_TTABLE);
	opt_check_keys(L, 2, "sim:explain", explain_keys);
	if (ls->explain)
		return luaL_error(L, "sim:explain: one packet per simulation");
	memset(&ls->exo, 0, sizeof(ls->exo));
	if (!opt_field(L, 2, "packet"))
		return luaL_error(L, "sim:explain: give packet = N");
	ls->exo.seq = opt_uint(L, -1, "packet", UINT64_MAX);
	ls->exo.source = 0;
	if (opt_field(L, 2, "source"))
		ls->exo.source = (int)opt_uint(L, -1, "source", SIM_MAX_SOURCES) - 1;
	if (opt_field(L, 2, "verbose"))
		ls->exo.verbose = lua_toboolean(L, -1);
	if (explain_begin(&ls->explain, ls->s, &ls->exo, err, sizeof(err)))
		return luaL_error(L, "sim:explain: %s", err);
	lua_settop(L, 1);
	return 1;
}

/* sim:outputs{pcap = DIR, plot = DIR, interval = T, pcap_epoch = "capture"|"zero",
 * pcap_format = "pcap"|"pcapng"}:
 * files written when the scenario ends well (nothing is left behind when
 * it fails). */
static const char *const outputs_keys[] = {"pcap",	  "plot",	"interval",
					   "pcap_epoch", "pcap_format", NULL};

int l_sim_outputs(lua_State *L)
{
	struct lsim *ls = lsim_check(L, 1, "sim:outputs");
	struct output_opts oo = {0};
	char err[1024];

	luaL_checktype(L, 2, LUA_TTABLE);
	opt_check_keys(L, 2, "sim:outputs", outputs_keys);
	if (ls->outs)
		return luaL_error(L, "sim:outputs: this simulation already has outputs");
	if (ls->sc->o->sandbox)
		return luaL_error(L, "sim:outputs: no files are written in the sandbox");
	if (opt_field(L, 2, "pcap"))
		oo.pcap_dir = luaL_checkstring(L, -1);
	if (opt_field(L, 2, "plot"))
		oo.plot_dir = luaL_checkstring(L, -1);
	if (opt_field(L, 2, "interval")) {
		oo.interval_ns = opt_time_ns(L, -1, "interval");
		if (!oo.interval_ns)
			return luaL_error(L, "sim:outputs: interval must be above 0");
	}
	if (opt_field(L, 2, "pcap_epoch")) {
		const char *e = luaL_checkstring(L, -1);

		if (strcmp(e, "capture") && strcmp(e, "zero"))
			return luaL_error(L, "sim:outputs: pcap_epoch is \"capture\" or \"zero\", not \"%s\"", e);
		oo.epoch_zero = !strcmp(e, "zero");
	}
	if (opt_field(L, 2, "pcap_format")) {
		const char *e = luaL_checkstring(L, -1);

		if (pcapw_format_parse(e, &oo.pcap_format))
			return luaL_error(L, "sim:outputs: pcap_format is \"pcap\" or \"pcapng\", not \"%s\"", e);
		if (!oo.pcap_dir)
			return luaL_error(L, "sim:outputs: pcap_format needs pcap = DIR");
	}
	if (!oo.pcap_dir && !oo.plot_dir)
		return luaL_error(L, "sim:outputs: give pcap = DIR and/or plot = DIR");
	if (outputs_open(&ls->outs, ls->s, &oo, err, sizeof(err)))
		return luaL_error(L, "sim:outputs: %s", err);
	lua_settop(L, 1);
	return 1;
}

/* What a simulation writes when it ends well: its outputs, its traces and
 * the packet it explains. Messages go to err (the first) and stderr. */
int lsim_finish_one(struct scenario *sc, struct lsim *ls, char *err, size_t errlen)
{
	char e[1024];
	int rc = 0;

	err[0] = 0;
	if (ls->outs && outputs_finish(ls->outs, e, sizeof(e))) {
		snprintf(err, errlen, "%s", e);
		rc = 1;
	}
	ls->outs = NULL;
	for (int k = 0; k < ls->ntraces; k++)
		if (trace_finish(ls->traces[k], e, sizeof(e)) && !rc++)
			snprintf(err, errlen, "%s", e);
	ls->ntraces = 0;
	if (ls->explain) {
		FILE *out = sc->o->explain ? stdout : sc->out;

		if (explain_end(ls->explain, out, e, sizeof(e)) && !rc++)
			snprintf(err, errlen, "explain: %.900s", e);
		ls->explain = NULL;
	}
	return rc;
}

int lsim_finish_outputs(lua_State *L, struct scenario *sc)
{
	int rc = 0;

	lua_rawgeti(L, LUA_REGISTRYINDEX, sc->sims_ref);
	for (int i = 1; i <= sc->nsims; i++) {
		struct lsim *ls;
		char err[1024];

		lua_rawgeti(L, -1, i);
		ls = luaL_testudata(L, -1, LSIM_MT);
		lua_pop(L, 1);
		if (ls && ls->s && lsim_finish_one(sc, ls, err, sizeof(err))) {
			fprintf(sc->err, "tcsim: simulation %s: %s\n", ls->name, err);
			rc = 1;
		}
	}
	lua_pop(L, 1);
	return rc;
}
