/* fuzz_tc.c - a whole tc script through the control plane: word splitting,
 * every qdisc and filter command, show commands, then a short synthetic
 * burst through whatever tree the script built, the accounting check and
 * the reports. A failed command must leave the tree runnable. */
#include "fuzz.h"

#include "report.h"
#include "sim.h"
#include "synth.h"
#include "tc.h"

static FILE *devnull;

/* Twelve packets of three flows (TCP, UDP with TOS 0x10, ICMP) on every
 * device: enough to reach each band, sfq bucket and filter kind. */
static void fuzz_synth_burst(struct sim *s)
{
	static const int l4[] = {6, 17, 1};
	char err[256];

	for (int d = 0; d < s->ndevs; d++)
		for (int k = 0; k < 3; k++) {
			struct synth_spec sp;
			struct source *src;

			synth_spec_default(&sp);
			sp.l4 = l4[k];
			sp.dport = k ? 5201 : 22;
			sp.tos = k == 1 ? 0x10 : 0;
			sp.pps = 10000;
			sp.count = 4;
			sp.flows = 2;
			sp.size_min = 200 + 300 * k;
			sp.seed = (uint64_t)k;
			if (src_open_synth(&src, &sp, err, sizeof(err)))
				abort();
			if (sim_add_source(s, src, s->devs[d], 0, err, sizeof(err)))
				abort();
		}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	devnull = fopen("/dev/null", "w");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	struct sim_config cfg;
	struct tc_script_opts so;
	struct sim s;
	char err[1024];
	int r;

	if (!devnull)
		LLVMFuzzerInitialize(NULL, NULL);
	sim_config_default(&cfg);
	cfg.rate_bps = 1000000;
	if (sim_init(&s, &cfg))
		abort();
	/* files the script names are looked up under a folder that has none;
	 * variables as --var gives them (not the environment: an input must run
	 * the same everywhere), and tc -force when the input asks for it */
	so = (struct tc_script_opts){.vars = {"DEV=eth0", "RATE=1mbit", "SPLIT= prio  bands 3 ", "EMPTY="},
				     .nvars = 4,
				     .force = !strncmp(text, "#!force", 7)};
	r = tc_run_script_opts(&s, text, "fuzz.tc", "/nonexistent", &so, devnull, err, sizeof(err));
	if (r && (!err[0] || strchr(err, '\n'))) {
		fprintf(stderr, "fuzz_tc: not one line: \"%s\"\n", err);
		abort(); /* one line, always */
	}
	if (s.ndevs == 0 && sim_dev_add(&s, "eth0", NULL, err, sizeof(err)))
		abort();
	for (int i = 0; i < s.ndevs; i++) {
		tc_show_qdisc(s.devs[i], devnull, 1);
		tc_show_class(s.devs[i], devnull, 1);
		tc_show_filter(s.devs[i], devnull);
	}
	fuzz_synth_burst(&s);
	if (!sim_run(&s)) {
		if (sim_check_accounting(&s, err, sizeof(err))) {
			fprintf(stderr, "fuzz_tc: %s\n", err);
			abort();
		}
		report_text(&s, devnull);
		report_json(&s, devnull);
	}
	sim_free(&s);
	free(text);
	return 0;
}
