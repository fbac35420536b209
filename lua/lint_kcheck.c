/* lint_kcheck.c - `tcsim lint SCENARIO` and `tcsim kernel-check SCENARIO`:
 * what they do with the simulations a scenario built, once it has run. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kcheck.h"
#include "lint.h"
#include "lua_tcsim.h"

/* ---- tcsim lint SCENARIO.lua ---- */

/* The warnings the script's run noted, then every simulation's, and the
 * summary; *n counts them. 0, or 1 after printing why. */
int scenario_lint(lua_State *L, struct scenario *sc, int *n)
{
	int rc = 0;

	for (int i = 0; i < sc->nnotes; i++)
		printf("%s\n", sc->notes[i]);
	*n += sc->nnotes;
	lua_rawgeti(L, LUA_REGISTRYINDEX, sc->sims_ref);
	for (int i = 1; i <= sc->nsims; i++) {
		struct lsim *ls;

		lua_rawgeti(L, -1, i);
		ls = luaL_testudata(L, -1, LSIM_MT);
		lua_pop(L, 1);
		if (ls && ls->s) {
			/* the traffic, for the checks that need it: the captures it
			 * replays, and its synthetic sources that carry a VLAN tag,
			 * saved to temporary pcaps as kernel-check saves them */
			struct lint_input *in = calloc((size_t)ls->ninputs + 1, sizeof(*in));
			char (*names)[64] = calloc((size_t)ls->ninputs + 1, sizeof(*names));
			char (*paths)[64] = calloc((size_t)ls->ninputs + 1, sizeof(*paths));
			char err[1024], dir[] = "/tmp/tcsim-lint-XXXXXX";
			int nin = 0, r = 0, made = 0, nsynth = 0, nsrc = 0;

			for (int k = 0; in && names && paths && !r && k < ls->ninputs; k++) {
				const struct lsim_input *li = &ls->inputs[k];

				if (li->capture) {
					in[nin++] = (struct lint_input){.dev = li->dev, .capture = li->capture};
					continue;
				}
				if (!li->synth || (nsrc++, !li->synth->vlan))
					continue;
				if (!made && !mkdtemp(dir)) {
					snprintf(err, sizeof(err), "%s: %s", dir, strerror(errno));
					r = -EIO;
					break;
				}
				made = 1;
				snprintf(paths[nin], sizeof(paths[nin]), "%s/synth%d.pcap", dir, ++nsynth);
				snprintf(names[nin], sizeof(names[nin]), "sim:traffic #%d (synthetic)", nsrc);
				if (synth_save_pcap(li->synth, paths[nin], err, sizeof(err)) < 0) {
					r = -EIO;
					break;
				}
				in[nin] = (struct lint_input){.dev = li->dev, .capture = paths[nin], .name = names[nin]};
				nin++;
			}
			if (!in || !names || !paths)
				r = -ENOMEM;
			if (!r)
				r = lint_sim_traffic(ls->s, in, nin, stdout, n, err, sizeof(err));
			for (int k = 0; paths && k < nin; k++)
				if (paths[k][0])
					unlink(paths[k]);
			if (made)
				rmdir(dir);
			free(in);
			free(names);
			free(paths);
			if (r) {
				fprintf(sc->err, "tcsim lint: %s\n", r == -EIO ? err : "out of memory");
				rc = 1;
			}
		}
	}
	lua_pop(L, 1);
	lint_summary(stdout, sc->o->path, *n);
	return rc;
}

/* ---- tcsim kernel-check SCENARIO.lua ---- */

/* Every simulation's devices that received traffic: their tc commands and
 * inputs (synthetic sources saved to temporary pcaps) through kernel_check.
 * 0 same, 1 a difference or an error, 2 cannot run here. */
int scenario_kernel_check(lua_State *L, struct scenario *sc)
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
			struct kcheck_prio *prios;
			struct mark_rules *marks;
			struct kcheck_opts ko = {0};
			char err[1024];
			int n = 0, done = 0, r;

			for (int j = 0; j < k; j++)
				done |= !strcmp(ls->inputs[j].dev, dev);
			if (done)
				continue; /* this device was checked with its first input */
			caps = calloc((size_t)ls->ninputs, sizeof(*caps));
			prios = calloc((size_t)ls->ninputs, sizeof(*prios));
			marks = calloc((size_t)ls->ninputs, sizeof(*marks));
			if (!caps || !prios || !marks) {
				free(caps);
				free(prios);
				free(marks);
				rc = 1;
				break;
			}
			for (int j = k; j < ls->ninputs && rc != 1; j++) {
				struct lsim_input *in = &ls->inputs[j];
				char path[4200];
				int64_t w;

				if (strcmp(in->dev, dev))
					continue;
				/* skb->priority as the scenario gave it, on both sides */
				prios[n].forward = in->prio_forward;
				prios[n].priority = in->priority;
				marks[n] = in->marks; /* skb->mark too (SO_MARK) */
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
				free(prios);
				free(marks);
				break;
			}
			printf("== simulation %s, device %s\n", ls->name, dev);
			fflush(stdout);
			ko.seed = ls->s->cfg.seed;
			ko.cap_prio = prios;
			ko.cap_marks = marks;
			r = kernel_check(ls->tclog ? ls->tclog : "", sc->path,
					 sc->dir[0] ? sc->dir : NULL, dev, caps, n, &ko, stdout,
					 err, sizeof(err));
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
			free(prios);
			free(marks);
		}
	}
	lua_pop(L, 1);
	rmdir(dir);
	if (!checked && rc == 0) {
		fprintf(sc->err, "tcsim kernel-check: %s: no simulation received traffic\n",
			sc->path);
		return 1;
	}
	return rc;
}
