/* bpf.c - `tcsim bpf asm|disasm|check|run`: the classic BPF machine of
 * classifier/ on its own, without a simulation. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf.h"
#include "bpf_asm.h"
#include "bpf_load.h"
#include "capture.h"
#include "cmd.h"
#include "rng.h"
#include "run_opts.h"

#define ERRLEN 512

/* one line of source per line of the text, as it prints */
/* clang-format off */
static const char usage_bpf[] =
	"usage: tcsim bpf asm [-f tc|c] FILE.ops\n"
	"       tcsim bpf disasm FILTER\n"
	"       tcsim bpf check [--kernel current|3.13] FILTER\n"
	"       tcsim bpf run [-v] [--trace N] [--kernel current|3.13] [--seed S] FILTER CAPTURE\n"
	"FILTER: -b 'N,code jt jf k,...' | -F BYTECODE-FILE | -a FILE.ops | -e 'TCPDUMP EXPRESSION'\n";
/* clang-format on */

struct filter_arg {
	char kind; /* 'b' 'F' 'a' 'e' */
	const char *val;
};

struct bpf_opts {
	struct filter_arg filter;
	enum bpf_kernel kernel;
	int verbose;
	uint64_t trace; /* packet number, 0 = none */
	uint64_t seed;
	const char *format;
};

/* Loads the program a FILTER argument names, without checking it. */
static int filter_load(const struct filter_arg *f, struct sock_filter **insns, uint32_t *len,
		       char *err, size_t errlen)
{
	switch (f->kind) {
	case 'b': return bpf_parse_bytecode(f->val, "bytecode", insns, len, err, errlen);
	case 'F': return bpf_read_bytecode_file(f->val, insns, len, err, errlen);
	case 'a': return bpf_asm_file(f->val, insns, len, err, errlen);
	case 'e': return bpf_compile_expr(f->val, insns, len, err, errlen);
	default: snprintf(err, errlen, "no filter given (-b, -F, -a or -e)"); return -EINVAL;
	}
}

/* Common option parsing for the bpf subcommands; returns optind or -1. */
static int parse_bpf_opts(int argc, char **argv, struct bpf_opts *o)
{
	static const struct option longopts[] = {
	    {"kernel", required_argument, NULL, 'k'}, {"trace", required_argument, NULL, 't'},
	    {"seed", required_argument, NULL, 's'},   {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},	      {NULL, 0, NULL, 0},
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->seed = 1;
	o->format = "tc";
	optind = 1;
	while ((c = getopt_long(argc, argv, "+b:F:a:e:f:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
		case 'F':
		case 'a':
		case 'e':
			if (o->filter.kind) {
				fprintf(stderr,
					"tcsim: only one FILTER (-b, -F, -a or -e) may be given\n");
				return -1;
			}
			o->filter.kind = (char)c;
			o->filter.val = optarg;
			break;
		case 'f': o->format = optarg; break;
		case 'v': o->verbose = 1; break;
		case 'k':
			if (!strcmp(optarg, "current"))
				o->kernel = BPF_KERNEL_CURRENT;
			else if (!strcmp(optarg, "3.13"))
				o->kernel = BPF_KERNEL_3_13;
			else {
				fprintf(stderr, "tcsim: --kernel '%s': use 'current' or '3.13'\n",
					optarg);
				return -1;
			}
			break;
		case 't':
			if (opt_parse_u64(optarg, &o->trace) || o->trace == 0) {
				fprintf(stderr, "tcsim: --trace '%s': a packet number from 1\n",
					optarg);
				return -1;
			}
			break;
		case 's':
			if (opt_parse_u64(optarg, &o->seed)) {
				fprintf(stderr, "tcsim: --seed '%s': not a number\n", optarg);
				return -1;
			}
			break;
		case 'h': fputs(usage_bpf, stdout); exit(0);
		default: fputs(usage_bpf, stderr); return -1;
		}
	}
	return optind;
}

static int bpf_asm_cmd(int argc, char **argv)
{
	struct bpf_opts o;
	struct sock_filter *insns = NULL;
	uint32_t len = 0;
	char err[ERRLEN];
	int i = parse_bpf_opts(argc, argv, &o);

	if (i < 0)
		return 2;
	if (o.filter.kind || i != argc - 1) {
		fprintf(stderr, "tcsim bpf asm: give exactly one FILE.ops\n%s", usage_bpf);
		return 2;
	}
	if (strcmp(o.format, "tc") && strcmp(o.format, "c")) {
		fprintf(stderr, "tcsim bpf asm: -f '%s': use 'tc' or 'c'\n", o.format);
		return 2;
	}
	if (bpf_asm_file(argv[i], &insns, &len, err, sizeof(err))) {
		fprintf(stderr, "tcsim: %s\n", err);
		return 1;
	}
	if (bpf_check(insns, len, o.kernel, err, sizeof(err))) {
		fprintf(stderr, "tcsim: %s: the kernel would reject this program: %s\n", argv[i],
			err);
		free(insns);
		return 1;
	}
	if (!strcmp(o.format, "c")) {
		for (uint32_t pc = 0; pc < len; pc++)
			printf("{ 0x%02x, %u, %u, 0x%08x },\n", insns[pc].code, insns[pc].jt,
			       insns[pc].jf, insns[pc].k);
	} else {
		char *s = bpf_format_bytecode(insns, len);

		if (!s) {
			fprintf(stderr, "tcsim: out of memory\n");
			free(insns);
			return 1;
		}
		printf("%s\n", s);
		free(s);
	}
	free(insns);
	return 0;
}

static int bpf_disasm_cmd(int argc, char **argv)
{
	struct bpf_opts o;
	struct sock_filter *insns;
	uint32_t len;
	char err[ERRLEN];
	int i = parse_bpf_opts(argc, argv, &o);

	if (i < 0)
		return 2;
	if (!o.filter.kind || i != argc) {
		fprintf(stderr, "tcsim bpf disasm: give one FILTER\n%s", usage_bpf);
		return 2;
	}
	if (filter_load(&o.filter, &insns, &len, err, sizeof(err))) {
		fprintf(stderr, "tcsim: %s\n", err);
		return 1;
	}
	bpf_disasm(stdout, insns, len);
	free(insns);
	return 0;
}

static int bpf_check_cmd(int argc, char **argv)
{
	struct bpf_opts o;
	struct sock_filter *insns;
	uint32_t len;
	char err[ERRLEN];
	int i = parse_bpf_opts(argc, argv, &o);

	if (i < 0)
		return 2;
	if (!o.filter.kind || i != argc) {
		fprintf(stderr, "tcsim bpf check: give one FILTER\n%s", usage_bpf);
		return 2;
	}
	if (filter_load(&o.filter, &insns, &len, err, sizeof(err))) {
		fprintf(stderr, "tcsim: %s\n", err);
		return 1;
	}
	if (bpf_check(insns, len, o.kernel, err, sizeof(err))) {
		/* a file's program: name the file the instruction is in */
		if (o.filter.kind == 'F' || o.filter.kind == 'a')
			fprintf(stderr, "rejected: %s: %s\n", o.filter.val, err);
		else
			fprintf(stderr, "rejected: %s\n", err);
		free(insns);
		return 1;
	}
	printf("accepted: %u instructions\n", len);
	free(insns);
	return 0;
}

/* Prints the machine before each instruction in the layout of the
 * kernel's tools/bpf/bpf_dbg register dump. */
static void trace_print(const struct bpf_prog *prog, const struct bpf_trace_state *st, void *arg)
{
	char line[128];
	int any = 0;

	(void)arg;
	if (st->done) {
		if (st->fault)
			printf("fault:    %s\n", st->fault_why);
		printf("ret:      [0x%08x][%u]\n", st->ret, st->ret);
		return;
	}
	const struct sock_filter *f = &prog->insns[st->pc];

	bpf_disasm_insn(f, st->pc, line, sizeof(line));
	printf("-- register dump --\n");
	printf("pc:       [%u]\n", st->pc);
	printf("code:     [%u] jt[%u] jf[%u] k[%u]\n", f->code, f->jt, f->jf, f->k);
	printf("curr:     l%u:\t%s\n", st->pc, line);
	printf("A:        [0x%08x][%u]\n", st->A, st->A);
	printf("X:        [0x%08x][%u]\n", st->X, st->X);
	for (int i = 0; i < BPF_MEMWORDS; i++) {
		if (!(st->mem_valid & (1u << i)))
			continue;
		printf("M[%d]:%*s[0x%08x][%u]\n", i, i < 10 ? 6 : 5, "", st->M[i], st->M[i]);
		any = 1;
	}
	if (!any)
		printf("M[0,%d]:  (none written)\n", BPF_MEMWORDS - 1);
}

static int bpf_run_cmd(int argc, char **argv)
{
	struct bpf_opts o;
	struct sock_filter *insns;
	struct bpf_prog *prog = NULL;
	struct capture *cap = NULL;
	struct cap_pkt pkt;
	struct rng rng;
	uint64_t n = 0, matched = 0, rejected = 0;
	uint32_t len;
	char err[ERRLEN];
	int i = parse_bpf_opts(argc, argv, &o), r, rc = 0;

	if (i < 0)
		return 2;
	if (!o.filter.kind || i != argc - 1) {
		fprintf(stderr, "tcsim bpf run: give one FILTER and one CAPTURE\n%s", usage_bpf);
		return 2;
	}
	if (filter_load(&o.filter, &insns, &len, err, sizeof(err))) {
		fprintf(stderr, "tcsim: %s\n", err);
		return 1;
	}
	r = bpf_prog_load(&prog, insns, len, o.kernel, err, sizeof(err));
	free(insns);
	if (r) {
		fprintf(stderr, "tcsim: the kernel would reject this program: %s\n", err);
		return 1;
	}
	if (cap_open(&cap, argv[i], err, sizeof(err))) {
		fprintf(stderr, "tcsim: %s\n", err);
		bpf_prog_free(prog);
		return 1;
	}
	rng_seed(&rng, o.seed);
	while ((r = cap_next(cap, &pkt, err, sizeof(err))) == 1) {
		struct bpf_skb skb;
		uint32_t v;

		n++;
		if (pkt.reject) {
			rejected++;
			if (o.verbose)
				printf("%llu rejected: %s\n", (unsigned long long)pkt.index,
				       pkt.reject);
			continue;
		}
		bpf_skb_init_ether(&skb, pkt.data, pkt.caplen, pkt.len);
		skb.random = rng_u32_cb;
		skb.random_arg = &rng;
		if (o.trace == pkt.index) {
			printf("-- packet %llu: %u of %u bytes captured --\n",
			       (unsigned long long)pkt.index, pkt.caplen, pkt.len);
			v = bpf_prog_run_traced(prog, &skb, trace_print, NULL);
		} else {
			v = bpf_prog_run(prog, &skb);
		}
		if (v)
			matched++;
		if (o.verbose)
			printf("%llu 0x%08x\n", (unsigned long long)pkt.index, v);
	}
	if (r < 0) {
		fprintf(stderr, "tcsim: %s\n", err);
		rc = 1;
	} else {
		if (o.trace > n) {
			fprintf(stderr, "tcsim: --trace %llu: the capture has only %llu packets\n",
				(unsigned long long)o.trace, (unsigned long long)n);
			rc = 1;
			goto out;
		}
		if (rejected)
			printf("%llu packets could not be carried as Ethernet frames (not run)\n",
			       (unsigned long long)rejected);
		printf("matched %llu of %llu packets\n", (unsigned long long)matched,
		       (unsigned long long)n);
	}
out:
	cap_close(cap);
	bpf_prog_free(prog);
	return rc;
}

int cmd_bpf(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} cmds[] = {{"asm", bpf_asm_cmd},
		    {"disasm", bpf_disasm_cmd},
		    {"check", bpf_check_cmd},
		    {"run", bpf_run_cmd}};

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage_bpf, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "tcsim bpf: unknown command '%s'\n%s", argv[1], usage_bpf);
	return 2;
}
