/* fuzz_capture.c - a capture file through the path `tcsim run` takes:
 * run_opts_add_captures, the seed commit's policy (prio, three sfq, four
 * bpf filters), sim_run, the accounting check and both reports. The first
 * input byte picks the model and replay options, the second whether the
 * run is traced (every packet, or through a tcpdump filter) or tells one
 * packet's story as tcsim explain does; the rest is the file (pcap or
 * pcapng, any link type). A run whose packets do not add up is a finding:
 * every packet read must be accounted for.
 *
 * The sfq leaves perturb every 1 and 16 s: a fuzzed capture spanning years
 * crosses its silences through the idle-time skip (sim.c). */
#include <errno.h>

#include "fuzz.h"

#include "report.h"
#include "run_opts.h"
#include "sim.h"
#include "tc.h"
#include "explain.h"
#include "trace.h"

static const char policy[] =
    "qdisc add dev eth0 root handle 1: prio bands 3 priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1\n"
    "qdisc add dev eth0 parent 1:1 handle 10: sfq perturb 1\n"
    "qdisc add dev eth0 parent 1:2 handle 20: sfq perturb 16 limit 20 depth 4 divisor 16\n"
    "qdisc add dev eth0 parent 1:3 handle 30: pfifo limit 8\n"
    "filter add dev eth0 parent 1: pref 1 bpf bytecode '13,40 0 0 12,21 0 10 2048,48 0 0 23,"
    "21 0 8 6,40 0 0 20,69 6 0 8191,177 0 0 14,72 0 0 14,21 2 0 22,72 0 0 16,21 0 1 22,"
    "6 0 0 4294967295,6 0 0 0' flowid 1:1\n"
    "filter add dev eth0 parent 1: pref 2 bpf bytecode '6,40 0 0 12,21 0 3 2048,48 0 0 23,"
    "21 0 1 1,6 0 0 4294967295,6 0 0 0' flowid 1:1\n"
    "filter add dev eth0 parent 1: pref 3 bpf bytecode '4,40 0 0 12,21 0 1 34525,"
    "6 0 0 262144,6 0 0 0' flowid 1:2\n"
    "filter add dev eth0 parent 1: pref 4 bpf bytecode '4,32 0 0 4294963200,"
    "21 1 0 2054,6 0 0 65539,6 0 0 4294967295' flowid 1:3\n";

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	devnull = fopen("/dev/null", "w");
	return 0;
}

/* Applies one command-line option of tcsim run, by its name. */
/* A budget of simulation events per input, so the fuzzer's time goes to
 * many inputs rather than to one long run: frames that claim a gigabyte
 * keep the 256 kbit/s line busy for hours of simulated time, sfq's
 * perturbation fires every second meanwhile and re-hashes every queued
 * packet, as the kernel's does (10 s under ASan and coverage for one 23 KB
 * input). A real capture needs a few events per packet, so the budget
 * grows with the packets read; past it the run stops with an error, which
 * the harness accepts like any failed run. */
static int budget(void *arg, char *err, size_t errlen)
{
	const struct sim *s = arg;
	uint64_t read = 0;

	for (int i = 0; i < s->nsrcs; i++)
		read += s->srcs[i].read;
	if (s->steps < 4 * SIM_POLL_EVERY + 8 * read)
		return 0;
	snprintf(err, errlen, "fuzz_capture: over its budget of events (%llu for %llu packets)",
		 (unsigned long long)s->steps, (unsigned long long)read);
	return -ETIME;
}

static void opt(struct run_opts *o, const char *name, const char *value)
{
	struct option lo[40];

	if (run_opts_longopts(lo, 40, NULL))
		abort();
	for (int i = 0; lo[i].name; i++)
		if (!strcmp(lo[i].name, name)) {
			if (run_opts_apply(o, lo[i].val, value) != 1)
				abort();
			return;
		}
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const pace[][2] = {
	    {NULL, NULL},  {"topspeed", NULL}, {"speed", "100"}, {"pps", "1000"},
	    {"mbps", "1"}, {"loop", "2"},      {"limit", "5"},	 {"duration", "1ms"},
	};
	struct run_opts o;
	struct sim s;
	struct trace *tr = NULL;
	uint8_t p[2];
	char path[64], err[1024];
	char *paths[1] = {path};
	int fd;

	if (!devnull)
		LLVMFuzzerInitialize(NULL, NULL);
	fuzz_take(&data, &size, p, sizeof(p));
	run_opts_default(&o);
	opt(&o, "rate", p[0] & 0x80 ? "10mbit" : "256kbit");
	opt(&o, "kernel", p[0] & 1 ? "3.13" : "current");
	opt(&o, "sfq-hash", p[0] & 2 ? "random" : "tuple");
	opt(&o, "vlan", p[0] & 4 ? "inline" : "offload");
	opt(&o, "priority", p[0] & 8 ? "1:3" : "forward");
	if (pace[(p[0] >> 4) & 7][0])
		opt(&o, pace[(p[0] >> 4) & 7][0], pace[(p[0] >> 4) & 7][1]);

	fd = fuzz_file(data, size, path, sizeof(path));
	if (sim_init(&s, &o.cfg))
		abort();
	s.poll = budget;
	s.poll_arg = &s;
	if (tc_run_script(&s, policy, "policy", NULL, devnull, err, sizeof(err))) {
		fprintf(stderr, "fuzz_capture: the policy itself failed: %s\n", err);
		abort();
	}
	if (run_opts_add_captures(&s, &o, paths, 1, err, sizeof(err)))
		goto out;
	if ((p[1] & 3) == 3) {
		struct explain_opts xo = {
		    .source = 0, .seq = 1 + ((p[1] >> 2) & 15), .verbose = p[1] >> 6 & 1};

		if (explain_packet(&s, &xo, devnull, err, sizeof(err)) && !err[0])
			abort();
		goto out;
	}
	if (p[1] & 3) {
		if (trace_open(&tr, &s, devnull,
			       (p[1] & 3) == 2 ? "tcp port 22 or icmp or vlan" : NULL, err,
			       sizeof(err)))
			abort();
	}
	if (!sim_run(&s)) {
		if (getenv("FUZZ_VERBOSE"))
			report_text(&s, stderr);
		if (getenv("FUZZ_VERBOSE") && tr)
			fprintf(stderr, "traced %llu packets\n",
				(unsigned long long)trace_count(tr));
		if (sim_check_accounting(&s, err, sizeof(err))) {
			fprintf(stderr, "fuzz_capture: %s\n", err);
			abort();
		}
		report_text(&s, devnull);
		report_json(&s, devnull);
		tc_show_qdisc(s.devs[0], devnull, 1);
		tc_show_class(s.devs[0], devnull, 1);
	} else if (getenv("FUZZ_VERBOSE")) {
		fprintf(stderr, "%s\n", s.failed ? s.err : err);
	}
out:
	trace_close(tr);
	sim_free(&s);
	close(fd);
	return 0;
}
