/* run_opts.c - the device, replay and model options of tcsim run, explain
 * and lint: one table, one parser. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cls.h"
#include "qdisc.h"
#include "run_opts.h"

enum {
	O_TC = RUN_OPT_FIRST,
	O_RATE,
	O_OVERHEAD,
	O_MTU,
	O_TXQ,
	O_DELAY,
	O_DEV,
	O_SPEED,
	O_PPS,
	O_MBPS,
	O_TOPSPEED,
	O_LOOP,
	O_LIMIT,
	O_DURATION,
	O_PRIORITY,
	O_VLAN,
	O_SEED,
	O_KERNEL,
	O_ALLOT,
	O_HASH,
	O_TIMER,
	O_VAR,
	O_FORCE,
	O_MARK,
};

static const struct option shared[] = {
    {"tc", required_argument, NULL, O_TC},
    {"rate", required_argument, NULL, O_RATE},
    {"overhead", required_argument, NULL, O_OVERHEAD},
    {"mtu", required_argument, NULL, O_MTU},
    {"txqueuelen", required_argument, NULL, O_TXQ},
    {"delay", required_argument, NULL, O_DELAY},
    {"dev", required_argument, NULL, O_DEV},
    {"speed", required_argument, NULL, O_SPEED},
    {"pps", required_argument, NULL, O_PPS},
    {"mbps", required_argument, NULL, O_MBPS},
    {"topspeed", no_argument, NULL, O_TOPSPEED},
    {"loop", required_argument, NULL, O_LOOP},
    {"limit", required_argument, NULL, O_LIMIT},
    {"duration", required_argument, NULL, O_DURATION},
    {"priority", required_argument, NULL, O_PRIORITY},
    {"mark", required_argument, NULL, O_MARK},
    {"vlan", required_argument, NULL, O_VLAN},
    {"seed", required_argument, NULL, O_SEED},
    {"kernel", required_argument, NULL, O_KERNEL},
    {"sfq-allot", required_argument, NULL, O_ALLOT},
    {"sfq-hash", required_argument, NULL, O_HASH},
    {"timer-latency", required_argument, NULL, O_TIMER},
    {"var", required_argument, NULL, O_VAR},
    {"force", no_argument, NULL, O_FORCE},
};

void run_opts_default(struct run_opts *o)
{
	memset(o, 0, sizeof(*o));
	sim_config_default(&o->cfg);
	replay_opts_default(&o->ro);
	o->script.environ = 1; /* $DEV from the caller's shell, as tc scripts expect */
}

int run_opts_longopts(struct option *out, size_t cap, const struct option *extra)
{
	size_t n = sizeof(shared) / sizeof(shared[0]), k = 0;

	while (extra && extra[k].name)
		k++;
	if (n + k + 1 > cap)
		return -1;
	memcpy(out, shared, sizeof(shared));
	if (k)
		memcpy(out + n, extra, k * sizeof(*extra));
	memset(out + n + k, 0, sizeof(*out));
	return 0;
}

int opt_parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 0);
	return errno || *end ? -1 : 0;
}

int opt_parse_positive(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return errno || end == s || *end || !isfinite(*out) || *out <= 0 ? -1 : 0;
}

/* --priority forward|N|X:Y, for `tcsim run` and `tcsim kernel-check` alike:
 * the two must mean the same thing by the same words. */
int opt_parse_priority(const char *s, enum prio_mode *mode, uint32_t *prio)
{
	uint32_t v;

	if (!strcmp(s, "forward")) {
		*mode = PRIO_FORWARD;
		return 0;
	}
	if (strchr(s, ':') ? tc_get_classid(&v, s) : tc_get_u32(&v, s, 0))
		return -1;
	*mode = PRIO_FIXED;
	*prio = v;
	return 0;
}

/* --pps and --mbps: what src_open_capture takes, 1e-6 to 1e12 */
static int rate_in_range(double v)
{
	return v * 1e6 >= 0.5 && v <= 1e12;
}

/* word must be one of two; *flag = 1 for the second */
static int either(const char *a, const char *first, const char *second, int *flag)
{
	if (!strcmp(a, first))
		*flag = 0;
	else if (!strcmp(a, second))
		*flag = 1;
	else
		return -1;
	return 0;
}

int run_opts_apply(struct run_opts *o, int c, const char *a)
{
	struct sim_config *cfg = &o->cfg;
	struct replay_opts *ro = &o->ro;
	int bad = 0, flag;

	switch (c) {
	case O_TC: o->tcfile = a; break;
	case O_RATE:
		o->rate = a;
		bad = tc_get_rate(&cfg->rate_bps, a);
		break;
	case O_OVERHEAD: bad = tc_get_u32(&cfg->overhead, a, 0) || cfg->overhead > 65535; break;
	case O_MTU: bad = tc_get_u32(&cfg->mtu, a, 0) || cfg->mtu < 68; break;
	case O_TXQ: bad = tc_get_u32(&cfg->txqueuelen, a, 0); break;
	case O_DELAY: bad = tc_get_time_ns(&cfg->delay_ns, a); break;
	case O_DEV: o->devname = a; break;
	case O_SPEED: bad = opt_parse_positive(a, &ro->speed); break;
	case O_PPS: bad = opt_parse_positive(a, &ro->pps) || !rate_in_range(ro->pps); break;
	case O_MBPS: bad = opt_parse_positive(a, &ro->mbps) || !rate_in_range(ro->mbps); break;
	case O_TOPSPEED: ro->topspeed = 1; break;
	case O_LOOP: bad = opt_parse_u64(a, &ro->loop); break; /* 0 = forever */
	case O_LIMIT: bad = opt_parse_u64(a, &ro->limit) || ro->limit == 0; break;
	case O_DURATION: bad = tc_get_time_ns(&ro->duration_ns, a); break;
	case O_PRIORITY: bad = opt_parse_priority(a, &ro->prio_mode, &ro->priority); break;
	case O_MARK: bad = mark_rules_parse(&ro->marks, a, o->why, sizeof(o->why)); break;
	case O_VLAN:
		if (!(bad = either(a, "offload", "inline", &flag)))
			ro->vlan_inline = flag;
		break;
	case O_SEED: bad = opt_parse_u64(a, &cfg->seed); break;
	case O_KERNEL:
		if (!(bad = either(a, "current", "3.13", &flag)))
			cfg->kernel = flag ? BPF_KERNEL_3_13 : BPF_KERNEL_CURRENT;
		break;
	case O_ALLOT:
		if (!(bad = either(a, "units", "bytes", &flag)))
			cfg->sfq_allot_bytes = flag;
		break;
	case O_HASH:
		if (!(bad = either(a, "tuple", "random", &flag)))
			cfg->sfq_hash_random = flag;
		break;
	case O_TIMER: bad = tc_get_time_ns(&cfg->timer_latency_ns, a); break;
	case O_VAR:
		bad = !tc_is_assignment(a, strlen(a)) || o->script.nvars == TC_MAX_VARS;
		if (!bad)
			o->script.vars[o->script.nvars++] = a;
		break;
	case O_FORCE: o->script.force = 1; break;
	default: return 0;
	}
	return bad ? -1 : 1;
}

int run_opts_add_captures(struct sim *s, const struct run_opts *o, char *const *paths, int n,
			  char *err, size_t errlen)
{
	struct dev *d = o->devname ? sim_dev_find(s, o->devname) : s->ndevs ? s->devs[0] : NULL;

	if (!d) {
		if (o->devname)
			snprintf(err, errlen, "--dev %s: %s configures no such device", o->devname,
				 o->tcfile);
		else
			snprintf(err, errlen, "%s: configures no device (no \"dev NAME\")",
				 o->tcfile);
		return -ENODEV;
	}
	for (int i = 0; i < n; i++) {
		struct source *src;
		int r = src_open_capture(&src, paths[i], &o->ro, err, errlen);

		if (r || (r = sim_add_source(s, src, d, o->ro.vlan_inline, err, errlen)))
			return r;
	}
	return 0;
}

int run_opts_unknown(const char *cmd, const char *word)
{
	fprintf(stderr, "tcsim %s: unknown option or missing value '%s' (tcsim %s --help)\n", cmd,
		word, cmd);
	return 2;
}

int run_opts_bad_value(const char *cmd, const char *name, const char *value)
{
	fprintf(stderr, "tcsim %s: --%s '%s': not a valid value (tcsim %s --help)\n", cmd, name,
		value, cmd);
	return 2;
}

int run_opts_bad(const struct run_opts *o, const char *cmd, const char *name, const char *value)
{
	if (!o->why[0])
		return run_opts_bad_value(cmd, name, value);
	fprintf(stderr, "tcsim %s: --%s: %s (tcsim %s --help)\n", cmd, name, o->why, cmd);
	return 2;
}

const char *run_opts_bad_word(int argc, char **argv)
{
	if (optopt > 0 && optopt < 128 && optind < argc && argv[optind][0] == '-' &&
	    argv[optind][1] && argv[optind][1] != '-' && strchr(argv[optind] + 1, optopt))
		return argv[optind];
	return argv[optind - 1];
}
