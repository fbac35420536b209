/* test_bpf_check.c - the load-time checker against a table of accepted and
 * rejected programs (tests/data/checker_cases.txt, also replayed against
 * the real kernel by tests/kernel/kernel_check_diff.sh), plus the cases a
 * table line cannot carry. */
#include <CUnit/Basic.h>
#include "unit.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf.h"
#include "bpf_load.h"

#define I(c, t, f, k) {(uint16_t)(c), (uint8_t)(t), (uint8_t)(f), (uint32_t)(k)}

static const char *cases_path = "tests/data/checker_cases.txt";

static int check_str(const char *bc, enum bpf_kernel kv, char *err, size_t errlen)
{
	struct sock_filter *p;
	uint32_t n;
	int r = bpf_parse_bytecode(bc, "case", &p, &n, err, errlen);

	if (r)
		return 1000; /* a table line that does not parse is a test bug */
	r = bpf_check(p, n, kv, err, errlen);
	free(p);
	return r;
}

static void test_table(void)
{
	FILE *f = fopen(cases_path, "r");
	char line[70000], err[BPF_ERRLEN];
	int lineno = 0, accept = 0, reject = 0, bad = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	while (fgets(line, sizeof(line), f)) {
		char verdict[16], name[128], kw[32];
		int off = 0, r;

		lineno++;
		line[strcspn(line, "\n")] = 0;
		if (!line[0] || line[0] == '#')
			continue;
		if (sscanf(line, "%15s %127s %n", verdict, name, &off) != 2) {
			printf("\n  %s:%d: malformed line\n", cases_path, lineno);
			bad++;
			continue;
		}
		if (!strcmp(verdict, "ACCEPT")) {
			r = check_str(line + off, BPF_KERNEL_CURRENT, err, sizeof(err));
			if (r) {
				printf("\n  %s:%d %s: expected accept, got: %s\n", cases_path, lineno, name, err);
				bad++;
			}
			accept++;
		} else if (!strcmp(verdict, "REJECT")) {
			int off2 = 0;

			if (sscanf(line + off, "%31s %n", kw, &off2) != 1) {
				bad++;
				continue;
			}
			r = check_str(line + off + off2, BPF_KERNEL_CURRENT, err, sizeof(err));
			if (r != -EINVAL || !strstr(err, kw)) {
				printf("\n  %s:%d %s: expected reject for '%s', got %d: %s\n", cases_path,
				       lineno, name, kw, r, r ? err : "accepted");
				bad++;
			}
			reject++;
		} else {
			printf("\n  %s:%d: verdict must be ACCEPT or REJECT\n", cases_path, lineno);
			bad++;
		}
	}
	fclose(f);
	printf("\n  %d accepted and %d rejected cases checked ", accept, reject);
	CU_ASSERT(accept >= 20);
	CU_ASSERT(reject >= 20);
	CU_ASSERT_EQUAL(bad, 0);
}

static struct sock_filter *long_prog(uint32_t n)
{
	struct sock_filter *p = calloc(n, sizeof(*p));

	for (uint32_t i = 0; i < n; i++)
		p[i] = (struct sock_filter)I(BPF_LD | BPF_IMM, 0, 0, i);
	p[n - 1] = (struct sock_filter)I(BPF_RET | BPF_A, 0, 0, 0);
	return p;
}

static void test_lengths(void)
{
	char err[BPF_ERRLEN];
	struct sock_filter *p = long_prog(4097);

	p[4095] = (struct sock_filter)I(BPF_RET | BPF_A, 0, 0, 0);
	CU_ASSERT_EQUAL(bpf_check(p, 4096, BPF_KERNEL_CURRENT, err, sizeof(err)), 0);
	p[4095] = (struct sock_filter)I(BPF_LD | BPF_IMM, 0, 0, 0);
	p[4096] = (struct sock_filter)I(BPF_RET | BPF_A, 0, 0, 0);
	CU_ASSERT_EQUAL(bpf_check(p, 4097, BPF_KERNEL_CURRENT, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "length 4097"));
	CU_ASSERT_EQUAL(bpf_check(p, 0, BPF_KERNEL_CURRENT, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "length 0"));
	free(p);
}

static void test_long_ja_to_last(void)
{
	char err[BPF_ERRLEN];
	struct sock_filter *p = long_prog(4096);

	p[0] = (struct sock_filter)I(BPF_JMP | BPF_JA, 0, 0, 4094);
	CU_ASSERT_EQUAL(bpf_check(p, 4096, BPF_KERNEL_CURRENT, err, sizeof(err)), 0);
	p[0].k = 4095;
	CU_ASSERT_EQUAL(bpf_check(p, 4096, BPF_KERNEL_CURRENT, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "instruction 0"));
	p[0].k = 0xffffffff; /* would wrap to pc 0 */
	CU_ASSERT_EQUAL(bpf_check(p, 4096, BPF_KERNEL_CURRENT, err, sizeof(err)), -EINVAL);
	free(p);
}

static void test_first_failure_named(void)
{
	/* Two faults: the scan stops at the first, pc 1. */
	struct sock_filter p[] = {I(0x00, 0, 0, 0), I(0x34, 0, 0, 0), I(0x0e, 0, 0, 0),
				  I(0x06, 0, 0, 0)};
	char err[BPF_ERRLEN];

	CU_ASSERT_EQUAL(bpf_check(p, 4, BPF_KERNEL_CURRENT, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "instruction 1: div by constant 0 (division by zero is rejected at load)");
}

static void test_3_13_differences(void)
{
	struct sock_filter shift[] = {I(0x64, 0, 0, 32), I(0x06, 0, 0, 0)};
	struct sock_filter rnd[] = {I(0x20, 0, 0, 0xfffff038), I(0x16, 0, 0, 0)};
	struct sock_filter tpid[] = {I(0x20, 0, 0, 0xfffff03c), I(0x16, 0, 0, 0)};
	struct sock_filter poff[] = {I(0x20, 0, 0, 0xfffff034), I(0x16, 0, 0, 0)};
	char err[BPF_ERRLEN];

	CU_ASSERT_EQUAL(bpf_check(shift, 2, BPF_KERNEL_CURRENT, err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(bpf_check(shift, 2, BPF_KERNEL_3_13, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(bpf_check(rnd, 2, BPF_KERNEL_CURRENT, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(bpf_check(rnd, 2, BPF_KERNEL_3_13, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "ancillary"));
	CU_ASSERT_EQUAL(bpf_check(tpid, 2, BPF_KERNEL_CURRENT, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(bpf_check(tpid, 2, BPF_KERNEL_3_13, err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(bpf_check(poff, 2, BPF_KERNEL_3_13, err, sizeof(err)), 0);
}

static void test_ret_state_merges(void)
{
	/* spec 1.9 rule 4: safe, yet rejected because ret's state flows on */
	char err[BPF_ERRLEN];

	CU_ASSERT_EQUAL(check_str("6,21 0 2 1,2 0 0 0,5 0 0 1,6 0 0 0,96 0 0 0,22 0 0 0",
				  BPF_KERNEL_CURRENT, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "instruction 4: reads M[0], which is uninitialized on some path to it");
	/* stored on both paths: accepted */
	CU_ASSERT_EQUAL(check_str("6,21 0 1 1,2 0 0 0,2 0 0 0,96 0 0 0,22 0 0 0,6 0 0 0",
				  BPF_KERNEL_CURRENT, err, sizeof(err)),
			0);
}

int main(int argc, char **argv)
{
	CU_pSuite s;

	if (argc > 1)
		cases_path = argv[1];
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	s = CU_add_suite("bpf_check", NULL, NULL);
	CU_add_test(s, "table of accepted and rejected programs", test_table);
	CU_add_test(s, "program length 0, 4096, 4097", test_lengths);
	CU_add_test(s, "ja to the last instruction of 4096", test_long_ja_to_last);
	CU_add_test(s, "the first failing instruction is named", test_first_failure_named);
	CU_add_test(s, "3.13 versus current rules", test_3_13_differences);
	CU_add_test(s, "state after ret merges into the next pc", test_ret_state_merges);
	return unit_run();
}
