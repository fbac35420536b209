/* l_traffic.c - synthetic traffic described in Lua: sim:traffic{...} adds
 * a source to a simulation, tcsim.traffic{...} describes one on its own;
 * either can be written to a pcap with :save(path). The packet builder
 * and the arrival processes are synth.c's. */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "lua_tcsim.h"
#include "rng.h"

static const char *const traffic_keys[] = {
	"name", "dev", "arrivals", "pps", "rate", "start", "duration", "count", "on", "off", "proto",
	"src", "dst", "sport", "dport", "flows", "tos", "dscp", "ttl", "flags", "icmp_type", "icmp_code",
	"size", "weights", "priority", "mark", "vlan", "smac", "dmac", "seed", NULL,
};

static void parse_mac(lua_State *L, int vidx, const char *what, uint8_t mac[6])
{
	const char *s = luaL_checkstring(L, vidx);
	unsigned v[6];
	char tail;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &tail) != 6)
		luaL_error(L, "%s: '%s' is not a MAC address (aa:bb:cc:dd:ee:ff)", what, s);
	for (int i = 0; i < 6; i++) {
		if (v[i] > 255)
			luaL_error(L, "%s: '%s' is not a MAC address (aa:bb:cc:dd:ee:ff)", what, s);
		mac[i] = (uint8_t)v[i];
	}
}

/* Returns 4 or 6. */
static int parse_addr(lua_State *L, int vidx, const char *what, uint8_t addr[16])
{
	const char *s = luaL_checkstring(L, vidx);

	memset(addr, 0, 16);
	if (inet_pton(AF_INET, s, addr) == 1)
		return 4;
	if (inet_pton(AF_INET6, s, addr) == 1)
		return 6;
	luaL_error(L, "%s: '%s' is not an IPv4 or IPv6 address", what, s);
	return 0;
}

static uint8_t parse_flags(lua_State *L, int vidx)
{
	static const char names[] = "FSRPAUEC"; /* bit 0 = FIN ... bit 7 = CWR */
	uint8_t f = 0;

	if (lua_type(L, vidx) == LUA_TNUMBER)
		return (uint8_t)opt_uint(L, vidx, "flags", 255);
	for (const char *p = luaL_checkstring(L, vidx); *p; p++) {
		const char *c = strchr(names, *p);

		if (!c || !*p)
			luaL_error(L, "flags: '%c' is not a TCP flag (F S R P A U E C)", *p);
		f |= (uint8_t)(1u << (c - names));
	}
	return f;
}

static void parse_size(lua_State *L, int t, struct synth_spec *sp)
{
	if (opt_field(L, t, "size")) {
		if (lua_type(L, -1) == LUA_TNUMBER) {
			sp->size_kind = SYNTH_SIZE_FIXED;
			sp->size_min = sp->size_max = (uint32_t)opt_uint(L, -1, "size", SYNTH_MAX_FRAME);
		} else if (lua_type(L, -1) == LUA_TTABLE) {
			int s = lua_gettop(L);
			lua_Integer n = (lua_Integer)lua_rawlen(L, s); /* raw: no __len running the script mid-parse */

			if (n == 0) {
				static const char *const uk[] = {"min", "max", NULL};

				opt_check_keys(L, s, "size", uk);
				if (!opt_field(L, s, "min"))
					luaL_error(L, "size: give a number, {min = A, max = B} or a list of sizes");
				sp->size_min = (uint32_t)opt_uint(L, -1, "size.min", SYNTH_MAX_FRAME);
				lua_pop(L, 1);
				if (!opt_field(L, s, "max"))
					luaL_error(L, "size: {min = A, max = B} needs max");
				sp->size_max = (uint32_t)opt_uint(L, -1, "size.max", SYNTH_MAX_FRAME);
				lua_pop(L, 1);
				if (sp->size_max < sp->size_min)
					luaL_error(L, "size: max %d is below min %d", (int)sp->size_max, (int)sp->size_min);
				sp->size_kind = SYNTH_SIZE_UNIFORM;
			} else {
				if (n > SYNTH_MAX_SIZES)
					luaL_error(L, "size: at most %d sizes in a list", SYNTH_MAX_SIZES);
				sp->size_kind = SYNTH_SIZE_DISCRETE;
				sp->nsizes = (int)n;
				for (int i = 0; i < n; i++) {
					lua_rawgeti(L, s, i + 1);
					sp->sizes[i] = (uint32_t)opt_uint(L, -1, "size[i]", SYNTH_MAX_FRAME);
					sp->weights[i] = 1.0;
					lua_pop(L, 1);
				}
			}
		} else {
			luaL_error(L, "size: expected a number, {min = A, max = B} or a list of sizes, got %s",
				   luaL_typename(L, -1));
		}
		lua_pop(L, 1);
	}
	if (opt_field(L, t, "weights")) {
		int w = lua_gettop(L);

		luaL_checktype(L, w, LUA_TTABLE);
		if (sp->size_kind != SYNTH_SIZE_DISCRETE || (lua_Integer)lua_rawlen(L, w) != sp->nsizes)
			luaL_error(L, "weights: give one weight per size of a size list");
		for (int i = 0; i < sp->nsizes; i++) {
			lua_rawgeti(L, w, i + 1);
			sp->weights[i] = opt_number(L, -1, "weights[i]");
			if (sp->weights[i] < 0)
				luaL_error(L, "weights: %f is negative", sp->weights[i]);
			lua_pop(L, 1);
		}
		lua_pop(L, 1);
	}
}

/* Fills t->spec from the table at idx. With a simulation, dev may name
 * its device (*dev set) and the seed derives from the simulation's. */
int ltraffic_parse(lua_State *L, int idx, struct ltraffic *t, struct lsim *ls, struct dev **dev)
{
	struct synth_spec *sp = &t->spec;
	int fam_src = 0, fam_dst = 0;
	char err[512];

	idx = lua_absindex(L, idx);
	synth_spec_default(sp);
	opt_check_keys(L, idx, ls ? "sim:traffic" : "tcsim.traffic", traffic_keys);
	if (opt_field(L, idx, "name")) {
		snprintf(sp->name, sizeof(sp->name), "%s", luaL_checkstring(L, -1));
		lua_pop(L, 1);
	}
	if (opt_field(L, idx, "dev")) {
		if (!ls)
			luaL_error(L, "tcsim.traffic: dev belongs to sim:traffic (this traffic is not in a simulation)");
		if (lua_type(L, -1) == LUA_TSTRING) {
			*dev = sim_dev_find(ls->s, lua_tostring(L, -1));
			if (!*dev)
				luaL_error(L, "sim:traffic: no device '%s' in this simulation", lua_tostring(L, -1));
		} else {
			struct ldev *d = luaL_testudata(L, -1, LDEV_MT);

			if (!d || d->ls != ls)
				luaL_error(L, "sim:traffic: dev must be a device of this simulation or its name");
			*dev = d->ls->s->devs[d->idx];
		}
		lua_pop(L, 1);
	}
	if (opt_field(L, idx, "arrivals")) {
		const char *a = luaL_checkstring(L, -1);

		if (!strcmp(a, "constant"))
			sp->arrivals = SYNTH_CONSTANT;
		else if (!strcmp(a, "poisson"))
			sp->arrivals = SYNTH_POISSON;
		else if (!strcmp(a, "onoff"))
			sp->arrivals = SYNTH_ONOFF;
		else
			luaL_error(L, "arrivals '%s': expected \"constant\", \"poisson\" or \"onoff\"", a);
		lua_pop(L, 1);
	}
	if (opt_field(L, idx, "pps")) {
		sp->pps = opt_number(L, -1, "pps");
		lua_pop(L, 1);
	}
	if (opt_field(L, idx, "rate")) {
		sp->bps = opt_rate_bps(L, -1, "rate");
		lua_pop(L, 1);
	}
	if (opt_field(L, idx, "start")) {
		sp->start_ns = opt_time_ns(L, -1, "start");
		lua_pop(L, 1);
	}
	if (opt_field(L, idx, "duration")) {
		sp->duration_ns = opt_time_ns(L, -1, "duration");
		lua_pop(L, 1);
	}
	if (opt_field(L, idx, "count")) {
		sp->count = opt_uint(L, -1, "count", UINT64_MAX);
		lua_pop(L, 1);
	}
	if (opt_field(L, idx, "on")) {
		sp->on_ns = opt_time_ns(L, -1, "on");
		lua_pop(L, 1);
	}
	if (opt_field(L, idx, "off")) {
		sp->off_ns = opt_time_ns(L, -1, "off");
		lua_pop(L, 1);
	}
	if (opt_field(L, idx, "src")) {
		fam_src = parse_addr(L, -1, "src", sp->saddr);
		lua_pop(L, 1);
	}
	if (opt_field(L, idx, "dst")) {
		fam_dst = parse_addr(L, -1, "dst", sp->daddr);
		lua_pop(L, 1);
	}
	if (fam_src && fam_dst && fam_src != fam_dst)
		luaL_error(L, "src and dst: one is IPv%d, the other IPv%d", fam_src, fam_dst);
	if (fam_src || fam_dst) {
		sp->family = fam_src ? fam_src : fam_dst;
		if (!fam_src || !fam_dst)
			luaL_error(L, "give both src and dst addresses (or neither, for 10.0.0.1 -> 10.0.0.2)");
	}
	if (opt_field(L, idx, "proto")) {
		const char *p = luaL_checkstring(L, -1);

		if (!strcmp(p, "tcp"))
			sp->l4 = 6;
		else if (!strcmp(p, "udp"))
			sp->l4 = 17;
		else if (!strcmp(p, "icmp"))
			sp->l4 = sp->family == 6 ? 58 : 1;
		else if (!strcmp(p, "icmpv6"))
			sp->l4 = 58;
		else
			luaL_error(L, "proto '%s': expected \"tcp\", \"udp\", \"icmp\" or \"icmpv6\"", p);
		lua_pop(L, 1);
	}
	if (opt_field(L, idx, "sport")) {
		sp->sport = (uint16_t)opt_uint(L, -1, "sport", 65535);
		lua_pop(L, 1);
	}
	if (opt_field(L, idx, "dport")) {
		sp->dport = (uint16_t)opt_uint(L, -1, "dport", 65535);
		lua_pop(L, 1);
	}
	if (opt_field(L, idx, "flows")) {
		sp->flows = (uint32_t)opt_uint(L, -1, "flows", 65536);
		if (!sp->flows)
			luaL_error(L, "flows must be at least 1");
		lua_pop(L, 1);
	}
	if (opt_field(L, idx, "tos")) {
		sp->tos = (uint8_t)opt_uint(L, -1, "tos", 255);
		lua_pop(L, 1);
	}
	if (opt_field(L, idx, "dscp")) {
		lua_pushliteral(L, "tos");
		lua_rawget(L, idx);
		if (!lua_isnil(L, -1))
			luaL_error(L, "give tos or dscp, not both (tos = dscp << 2 | ecn)");
		lua_pop(L, 1);
		sp->tos = (uint8_t)(opt_uint(L, -1, "dscp", 63) << 2);
		lua_pop(L, 1);
	}
	if (opt_field(L, idx, "ttl")) {
		sp->ttl = (uint8_t)opt_uint(L, -1, "ttl", 255);
		lua_pop(L, 1);
	}
	if (opt_field(L, idx, "flags")) {
		sp->tcp_flags = parse_flags(L, -1);
		lua_pop(L, 1);
	}
	if (opt_field(L, idx, "icmp_type")) {
		sp->icmp_type = (int)opt_uint(L, -1, "icmp_type", 255);
		lua_pop(L, 1);
	}
	if (opt_field(L, idx, "icmp_code")) {
		sp->icmp_code = (uint8_t)opt_uint(L, -1, "icmp_code", 255);
		lua_pop(L, 1);
	}
	parse_size(L, idx, sp);
	if (opt_field(L, idx, "priority")) {
		sp->priority = opt_priority(L, -1, "priority", &sp->prio_mode);
		lua_pop(L, 1);
	}
	if (opt_field(L, idx, "mark")) {
		opt_marks(L, -1, "mark", &sp->marks);
		lua_pop(L, 1);
	}
	if (opt_field(L, idx, "vlan")) {
		sp->vlan = 1;
		sp->vlan_tci = (uint16_t)opt_uint(L, -1, "vlan (the tag's TCI: priority << 13 | id)", 65535);
		lua_pop(L, 1);
	}
	if (opt_field(L, idx, "smac")) {
		parse_mac(L, -1, "smac", sp->src_mac);
		lua_pop(L, 1);
	}
	if (opt_field(L, idx, "dmac")) {
		parse_mac(L, -1, "dmac", sp->dst_mac);
		lua_pop(L, 1);
	}
	if (opt_field(L, idx, "seed")) {
		if (ls)
			luaL_error(L, "sim:traffic: the seed comes from the simulation's (tcsim.sim{seed = N})");
		sp->seed = opt_uint(L, -1, "seed", UINT64_MAX);
		lua_pop(L, 1);
	}
	if (ls) {
		/* each synthetic source its own stream, fixed by the simulation's seed */
		struct rng r;

		rng_seed(&r, ls->s->cfg.seed ^ (0x5eed0000ull + (uint64_t)++ls->nsynth));
		sp->seed = rng_u64(&r);
		if (!sp->name[0])
			snprintf(sp->name, sizeof(sp->name), "traffic%d", ls->nsynth);
	}
	if (synth_validate(sp, err, sizeof(err)))
		luaL_error(L, "%s", err);
	return 0;
}

static struct ltraffic *check_traffic(lua_State *L, int idx, const char *call)
{
	struct ltraffic *t = luaL_checkudata(L, idx, LTRAFFIC_MT);

	scenario_check_live(L, call);
	return t;
}

/* tcsim.traffic{...}: a description, for :save */
static int l_traffic_new(lua_State *L)
{
	struct ltraffic *t;

	scenario_check_live(L, "tcsim.traffic");
	luaL_checktype(L, 1, LUA_TTABLE);
	t = lua_newuserdatauv(L, sizeof(*t), 0);
	memset(t, 0, sizeof(*t));
	luaL_setmetatable(L, LTRAFFIC_MT);
	ltraffic_parse(L, 1, t, NULL, NULL);
	return 1;
}

/* t:save(path) -> packets written. The file is written whole or not at all. */
static int l_traffic_save(lua_State *L)
{
	struct ltraffic *t = check_traffic(L, 1, "traffic:save");
	const char *path = luaL_checkstring(L, 2);
	char err[1024];
	int64_t n;

	if (scenario_get(L)->o->sandbox)
		return luaL_error(L, "traffic:save: no files are written in the sandbox");
	n = synth_save_pcap(&t->spec, path, err, sizeof(err));

	if (n < 0)
		return luaL_error(L, "save: %s", err);
	lua_pushinteger(L, (lua_Integer)n);
	return 1;
}

static int l_traffic_tostring(lua_State *L)
{
	struct ltraffic *t = luaL_checkudata(L, 1, LTRAFFIC_MT);

	lua_pushfstring(L, "tcsim.traffic %s", t->spec.name[0] ? t->spec.name : "synth");
	return 1;
}

static const luaL_Reg traffic_methods[] = {{"save", l_traffic_save}, {NULL, NULL}};

void ltraffic_open(lua_State *L)
{
	luaL_newmetatable(L, LTRAFFIC_MT);
	lua_pushliteral(L, LTRAFFIC_MT);
	lua_setfield(L, -2, "__metatable");
	luaL_newlib(L, traffic_methods);
	lua_setfield(L, -2, "__index");
	lua_pushcfunction(L, l_traffic_tostring);
	lua_setfield(L, -2, "__tostring");
	lua_pop(L, 1);
	lua_pushcfunction(L, l_traffic_new);
	lua_setfield(L, -2, "traffic");
}
