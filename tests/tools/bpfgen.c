/* bpfgen.c - prints seeded random classic-BPF programs as tc bytecode strings (tests/support/bpf_gen). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf.h"
#include "bpf_gen.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: bpfgen [--valid|--any] [--seed S] [--count N] [--max M] [--verify]\n"
		   "  prints N programs, one per line, as tc bytecode 'N,code jt jf k,...'\n"
		   "  --valid    programs the current kernel's checker accepts (default)\n"
		   "  --any      mutated programs that may be rejected\n"
		   "  --seed S   generator seed (default 1)\n"
		   "  --count N  number of programs (default 10)\n"
		   "  --max M    maximum instructions per program, 1..4096 (default 64)\n"
		   "  --verify   print only a summary: every program goes through bpf_check\n"
		   "             (current kernel) and the tool's own reading of spec 1.9;\n"
		   "             they must agree, and --valid programs must all pass\n");
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-')
		return -1;
	*v = x;
	return 0;
}

/* Independent reading of the checker rules of spec 1.9 (current kernel), so
 * the generator can be verified without the engine. Returns NULL if the
 * program is accepted, else the rule keyword. */
static const char *ref_check(const struct sock_filter *p, uint32_t n)
{
	static const uint16_t ok[] = {
		0x00, 0x20, 0x28, 0x30, 0x40, 0x48, 0x50, 0x60, 0x80, 0x01, 0x61, 0x81, 0xb1,
		0x02, 0x03, 0x04, 0x0c, 0x14, 0x1c, 0x24, 0x2c, 0x34, 0x3c, 0x94, 0x9c, 0x44,
		0x4c, 0x54, 0x5c, 0xa4, 0xac, 0x64, 0x6c, 0x74, 0x7c, 0x84, 0x05, 0x15, 0x1d,
		0x25, 0x2d, 0x35, 0x3d, 0x45, 0x4d, 0x06, 0x16, 0x07, 0x87};
	if (n == 0 || n > BPF_MAXINSNS)
		return "length";
	for (uint32_t pc = 0; pc < n; pc++) {
		uint16_t c = p[pc].code;
		uint32_t k = p[pc].k;
		size_t i;
		for (i = 0; i < sizeof ok / sizeof ok[0]; i++)
			if (ok[i] == c)
				break;
		if (i == sizeof ok / sizeof ok[0])
			return "opcode";
		if ((c == 0x34 || c == 0x94) && k == 0)
			return "division";
		if ((c == 0x64 || c == 0x74) && k >= 32)
			return "shift";
		if ((c == 0x60 || c == 0x61 || c == 0x02 || c == 0x03) && k >= BPF_MEMWORDS)
			return "scratch";
		if (c == 0x05 && k >= n - pc - 1)
			return "jump";
		if (BPF_CLASS(c) == BPF_JMP && c != 0x05 &&
		    (pc + 1 + p[pc].jt >= n || pc + 1 + p[pc].jf >= n))
			return "jump";
		if ((c == 0x20 || c == 0x28 || c == 0x30) && k >= 0xfffff000u &&
		    !((k - 0xfffff000u) % 4 == 0 && k - 0xfffff000u <= 60))
			return "ancillary";
	}
	if (BPF_CLASS(p[n - 1].code) != BPF_RET)
		return "return";
	static uint16_t mask[BPF_MAXINSNS];
	uint16_t valid = 0;
	for (uint32_t pc = 0; pc < n; pc++)
		mask[pc] = 0xffff;
	for (uint32_t pc = 0; pc < n; pc++) {
		uint16_t c = p[pc].code;
		valid &= mask[pc];
		if (c == 0x02 || c == 0x03)
			valid |= (uint16_t)(1u << p[pc].k);
		else if ((c == 0x60 || c == 0x61) && !(valid & (1u << p[pc].k)))
			return "uninitialized";
		else if (c == 0x05) {
			mask[pc + 1 + p[pc].k] &= valid;
			valid = 0xffff;
		} else if (BPF_CLASS(c) == BPF_JMP) {
			mask[pc + 1 + p[pc].jt] &= valid;
			mask[pc + 1 + p[pc].jf] &= valid;
			valid = 0xffff;
		}
	}
	return NULL;
}

/* One program as a tc bytecode string and a newline. */
static void print_prog(FILE *f, const struct sock_filter *p, uint32_t n)
{
	fprintf(f, "%" PRIu32, n);
	for (uint32_t j = 0; j < n; j++)
		fprintf(f, ",%u %u %u %" PRIu32, p[j].code, p[j].jt, p[j].jf, p[j].k);
	fputc('\n', f);
}

int main(int argc, char **argv)
{
	int any = 0, verify = 0;
	uint64_t seed = 1, count = 10, max = 64;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		uint64_t *dst = NULL;
		if (!strcmp(a, "--valid"))
			any = 0;
		else if (!strcmp(a, "--any"))
			any = 1;
		else if (!strcmp(a, "--verify"))
			verify = 1;
		else if (!strcmp(a, "--seed"))
			dst = &seed;
		else if (!strcmp(a, "--count"))
			dst = &count;
		else if (!strcmp(a, "--max"))
			dst = &max;
		else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "bpfgen: unknown argument '%s'\n", a);
			usage(stderr);
			return 2;
		}
		if (dst) {
			if (i + 1 >= argc || parse_u64(argv[i + 1], dst)) {
				fprintf(stderr, "bpfgen: %s needs a non-negative number\n", a);
				return 2;
			}
			i++;
		}
	}
	if (max < 1 || max > BPF_MAXINSNS) {
		fprintf(stderr, "bpfgen: --max must be 1..%d\n", BPF_MAXINSNS);
		return 2;
	}

	static struct sock_filter prog[BPF_MAXINSNS];
	struct bpf_gen g;
	bpf_gen_seed(&g, seed);
	uint64_t accepted = 0, bad = 0;
	uint64_t by_rule[16] = {0};
	static const char *rules[] = {"length",     "opcode", "division", "shift",
				      "scratch",    "jump",   "return",   "uninitialized",
				      "ancillary"};
	for (uint64_t i = 0; i < count; i++) {
		uint32_t n = any ? bpf_gen_any(&g, prog, (uint32_t)max)
				 : bpf_gen_valid(&g, prog, (uint32_t)max);
		if (verify) {
			const char *why = ref_check(prog, n);
			char err[BPF_ERRLEN] = "";
			int rc = bpf_check(prog, n, BPF_KERNEL_CURRENT, err, sizeof err);
			if ((rc == 0) != (why == NULL) || (why && !strstr(err, why))) {
				bad++;
				fprintf(stderr, "bpfgen: program %" PRIu64 ": bpf_check %s (%s), spec 1.9 reading %s:",
					i, rc ? "rejects" : "accepts", err, why ? why : "accepts");
				print_prog(stderr, prog, n);
			}
			if (!why)
				accepted++;
			else
				for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++)
					if (!strcmp(rules[r], why))
						by_rule[r]++;
			if (why && !any) {
				bad++;
				fprintf(stderr, "bpfgen: valid program %" PRIu64 " rejected (%s):", i, why);
				print_prog(stderr, prog, n);
			}
			continue;
		}
		print_prog(stdout, prog, n);
	}
	if (verify) {
		printf("bpfgen: %" PRIu64 " programs, %" PRIu64 " accepted", count, accepted);
		for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++)
			if (by_rule[r])
				printf(", %s %" PRIu64, rules[r], by_rule[r]);
		putchar('\n');
		return bad ? 1 : 0;
	}
	return fflush(stdout) ? 1 : 0;
}
