/* l_results.c - a simulation's results as Lua tables: exactly the JSON
 * document `tcsim run --json` writes (report.c), parsed back, so a
 * scenario reads the same names its golden file stores. Arrays of devices,
 * classes and qdiscs are also keyed by name, classid and handle:
 * st.devices.eth0.classes["1:1"].packets. */
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "lua_tcsim.h"
#include "report.h"

char *lsim_results_json(const struct sim *s, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	report_json(s, f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static const char *array_key(const char *array)
{
	if (!array)
		return NULL;
	if (!strcmp(array, "devices"))
		return "name";
	if (!strcmp(array, "classes"))
		return "classid";
	if (!strcmp(array, "qdiscs"))
		return "handle";
	if (!strcmp(array, "sources"))
		return "name";
	return NULL;
}

static void push_json(lua_State *L, const struct json *v, const char *name)
{
	int64_t i;

	luaL_checkstack(L, 4, "results too deep");
	switch (json_type(v)) {
	case JSON_NULL: lua_pushnil(L); break;
	case JSON_BOOL: lua_pushboolean(L, json_bool(v) == 1); break;
	case JSON_NUMBER:
		if (!json_int(v, &i))
			lua_pushinteger(L, (lua_Integer)i);
		else
			lua_pushnumber(L, json_number(v));
		break;
	case JSON_STRING: lua_pushlstring(L, json_string(v), json_string_len(v)); break;
	case JSON_ARRAY: {
		const char *key = array_key(name);

		lua_createtable(L, (int)json_len(v), key ? (int)json_len(v) : 0);
		for (size_t k = 0; k < json_len(v); k++) {
			const struct json *e = json_at(v, k);
			const char *id = key ? json_string(json_get(e, key)) : NULL;

			push_json(L, e, NULL);
			if (id) {
				lua_pushvalue(L, -1);
				lua_setfield(L, -3, id);
			}
			lua_rawseti(L, -2, (lua_Integer)k + 1);
		}
		break;
	}
	case JSON_OBJECT:
		lua_createtable(L, 0, (int)json_len(v));
		for (size_t k = 0; k < json_len(v); k++) {
			push_json(L, json_value_at(v, k), json_key_at(v, k));
			lua_setfield(L, -2, json_key_at(v, k));
		}
		break;
	}
}

/* In protected mode (lsim_push_results): a memory error while building the
 * tables must not leak the parsed document. */
static int push_doc(lua_State *L)
{
	const struct json *doc = lua_touserdata(L, 1);
	lua_Integer dev_idx = lua_tointeger(L, 2);

	if (dev_idx >= 0)
		push_json(L, json_at(json_get(doc, "devices"), (size_t)dev_idx), NULL);
	else
		push_json(L, doc, NULL);
	return 1;
}

int lsim_push_results(lua_State *L, const struct sim *s, int dev_idx)
{
	struct json *doc;
	char err[256];
	size_t len;
	char *text;
	int r;

	lua_pushcfunction(L, push_doc); /* before anything is allocated: this may raise */
	text = lsim_results_json(s, &len);
	if (!text)
		return luaL_error(L, "out of memory");
	if (json_parse(text, len, &doc, err, sizeof(err))) {
		free(text);
		return luaL_error(L, "internal error: the results are not valid JSON: %s", err);
	}
	free(text);
	lua_pushlightuserdata(L, doc);
	lua_pushinteger(L, dev_idx);
	r = lua_pcall(L, 2, 1, 0);
	json_free(doc);
	if (r)
		return lua_error(L);
	return 1;
}
