/* test_bpf_jit.c - the classic BPF JIT against the interpreter (the
 * reference): hand-built edge cases (loads at and past the end, negative
 * offsets, div/mod by X = 0, every jump kind, ld msh, scratch memory,
 * jumps over more than 127 bytes of code, every ancillary load, 3.13's
 * rules), random programs over every capture of the shared folder, the
 * TCSIM_BPF_JIT switch, and the mapping never writable and executable. */
#include <CUnit/Basic.h>
#include "unit.h"
#include <dirent.h>
#include <pcap.h> /* before bpf.h, which then keeps libpcap's BPF_ macros */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf.h"
#include "bpf_gen.h"
#include "pcap_frames.h"

#define I(c, t, f, k) {(uint16_t)(c), (uint8_t)(t), (uint8_t)(f), (uint32_t)(k)}
#define N(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))
#define LD_IMM(k) I(BPF_LD | BPF_IMM, 0, 0, k)
#define LDX_IMM(k) I(BPF_LDX | BPF_IMM, 0, 0, k)
#define RET_A I(BPF_RET | BPF_A, 0, 0, 0)
#define RET_K(k) I(BPF_RET | BPF_K, 0, 0, k)

#if defined(__x86_64__) && defined(__linux__) && !defined(TCSIM_NO_JIT)
#define HAVE_JIT 1
#else
#define HAVE_JIT 0
#endif

#define N_PROGS 2500
#define MAX_INSNS 64
#define FRAMES_PER_FILE 200

/* 64 bytes: Ethernet (IPv4), IPv4 TCP, then counting bytes. */
static uint8_t frame[64];

static void frame_init(void)
{
	static const uint8_t head[] = {
		0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb,
		0x08, 0x00, 0x45, 0x00, 0x00, 0x32, 0x12, 0x34, 0x40, 0x00, 0x40, 0x06,
		0x00, 0x00, 0xc0, 0xa8, 0x01, 0x02, 0xc0, 0xa8, 0x01, 0x03, 0x00, 0x16,
		0xd4, 0x31, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x50, 0x18,
	};

	for (unsigned i = 0; i < sizeof(frame); i++)
		frame[i] = (uint8_t)(0xa0 + i);
	memcpy(frame, head, sizeof(head));
}

static uint32_t rand_state;

static uint32_t next_random(void *arg)
{
	uint32_t *s = arg;

	*s = *s * 1103515245u + 12345u;
	return *s;
}

/* Loads, runs both engines on skb (the random generator restarted for
 * each), checks they agree and that the JIT took the program. Returns the
 * interpreter's verdict. */
static uint32_t run_skb(const struct sock_filter *p, uint32_t n, enum bpf_kernel kv,
			struct bpf_skb *skb)
{
	struct bpf_prog *prog;
	char err[BPF_ERRLEN];
	uint32_t a, b;

	if (bpf_prog_load(&prog, p, n, kv, err, sizeof(err))) {
		printf("\n  rejected: %s\n  ", err);
		CU_FAIL("program rejected");
		return 0xdeadbeef;
	}
	if (HAVE_JIT)
		CU_ASSERT_PTR_NOT_NULL(prog->jited);
	rand_state = 1;
	a = bpf_prog_run_interp(prog, skb);
	rand_state = 1;
	b = bpf_prog_run(prog, skb);
	if (a != b) {
		printf("\n  JIT %u (0x%x), interpreter %u (0x%x):", b, b, a, a);
		for (uint32_t i = 0; i < n; i++)
			printf(" %u %u %u %u,", p[i].code, p[i].jt, p[i].jf, p[i].k);
		printf("\n  ");
	}
	CU_ASSERT_EQUAL(a, b);
	bpf_prog_free(prog);
	return a;
}

static uint32_t run_len(const struct sock_filter *p, uint32_t n, uint32_t caplen,
			uint32_t len)
{
	struct bpf_skb skb;

	bpf_skb_init_ether(&skb, frame, caplen, len);
	return run_skb(p, n, BPF_KERNEL_CURRENT, &skb);
}

static uint32_t run(const struct sock_filter *p, uint32_t n)
{
	return run_len(p, n, sizeof(frame), sizeof(frame));
}

/* ---- the mapping and the switch ---------------------------------------- */

static void test_image_is_read_exec_only(void)
{
	struct sock_filter p[] = {I(BPF_LD | BPF_H | BPF_ABS, 0, 0, 12), RET_A};
	struct bpf_prog *prog;
	char err[BPF_ERRLEN], line[512];
	int found = 0;
	FILE *maps;

	if (!HAVE_JIT) {
		printf("\n  SKIP: no JIT on this architecture; the interpreter runs\n  ");
		return;
	}
	CU_ASSERT_FATAL(bpf_prog_load(&prog, p, N(p), BPF_KERNEL_CURRENT, err, sizeof(err)) == 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(prog->jited);
	maps = fopen("/proc/self/maps", "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(maps);
	while (fgets(line, sizeof(line), maps)) {
		unsigned long lo, hi;
		char perm[5];
		uintptr_t at = (uintptr_t)prog->jit_image;

		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perm) == 3 && at >= lo && at < hi) {
			found = 1;
			CU_ASSERT_EQUAL(perm[0], 'r');
			CU_ASSERT_EQUAL(perm[1], '-');
			CU_ASSERT_EQUAL(perm[2], 'x');
		}
	}
	fclose(maps);
	CU_ASSERT(found);
	bpf_prog_free(prog);
}

static void test_switch(void)
{
	struct sock_filter p[] = {RET_K(7)};
	struct bpf_prog *prog;
	char err[BPF_ERRLEN] = "";
	struct bpf_skb skb;

	frame_init();
	bpf_skb_init_ether(&skb, frame, sizeof(frame), sizeof(frame));
	setenv("TCSIM_BPF_JIT", "0", 1);
	CU_ASSERT_FATAL(bpf_prog_load(&prog, p, 1, BPF_KERNEL_CURRENT, err, sizeof(err)) == 0);
	CU_ASSERT_PTR_NULL(prog->jited);
	CU_ASSERT_EQUAL(bpf_prog_run(prog, &skb), 7);
	bpf_prog_free(prog);
	setenv("TCSIM_BPF_JIT", "1", 1);
	CU_ASSERT_FATAL(bpf_prog_load(&prog, p, 1, BPF_KERNEL_CURRENT, err, sizeof(err)) == 0);
	CU_ASSERT_EQUAL(prog->jited != NULL, HAVE_JIT);
	CU_ASSERT_EQUAL(bpf_prog_run(prog, &skb), 7);
	bpf_prog_free(prog);
	setenv("TCSIM_BPF_JIT", "yes", 1);
	CU_ASSERT_EQUAL(bpf_prog_load(&prog, p, 1, BPF_KERNEL_CURRENT, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NULL(prog);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "TCSIM_BPF_JIT=yes"));
	unsetenv("TCSIM_BPF_JIT");
	CU_ASSERT_EQUAL(bpf_jit_enabled(err, sizeof(err)), 1);
}

/* ---- edge cases --------------------------------------------------------- */

static void test_initial_state(void)
{
	struct sock_filter a[] = {RET_A};
	struct sock_filter x[] = {I(BPF_MISC | BPF_TXA, 0, 0, 0), RET_A};
	struct sock_filter len[] = {I(BPF_LD | BPF_W | BPF_LEN, 0, 0, 0), RET_A};
	struct sock_filter xlen[] = {I(BPF_LDX | BPF_W | BPF_LEN, 0, 0, 0),
				     I(BPF_MISC | BPF_TXA, 0, 0, 0), RET_A};
	struct sock_filter xa[] = {I(BPF_ALU | BPF_ADD | BPF_X, 0, 0, 0), RET_A};

	frame_init();
	CU_ASSERT_EQUAL(run(a, N(a)), 0);
	CU_ASSERT_EQUAL(run(x, N(x)), 0);
	CU_ASSERT_EQUAL(run(xa, N(xa)), 0);
	CU_ASSERT_EQUAL(run_len(len, N(len), 60, 1514), 1514);
	CU_ASSERT_EQUAL(run_len(xlen, N(xlen), 64, 64), 64);
}

/* ld[size] at k, then ret a (value) or ret #1 (reached). */
static void abs_case(uint16_t size, uint32_t k, uint32_t caplen, uint32_t len, int faults)
{
	struct sock_filter val[] = {I(BPF_LD | size | BPF_ABS, 0, 0, k), RET_A};
	struct sock_filter reach[] = {I(BPF_LD | size | BPF_ABS, 0, 0, k), RET_K(1)};

	CU_ASSERT_EQUAL(run_len(reach, 2, caplen, len), faults ? 0 : 1);
	(void)run_len(val, 2, caplen, len);
}

static void test_out_of_bounds(void)
{
	static const uint16_t sizes[] = {BPF_B, BPF_H, BPF_W};
	static const uint32_t ns[] = {1, 2, 4};

	frame_init();
	for (int s = 0; s < 3; s++) {
		uint32_t n = ns[s];

		for (uint32_t cap = 0; cap <= 64; cap += 13) {
			/* the last byte present, one past it, caplen vs len */
			if (cap >= n)
				abs_case(sizes[s], cap - n, cap, 64, 0);
			if (cap + 1 >= n)
				abs_case(sizes[s], cap - n + 1, cap, 64, 1);
			if (cap >= n)
				abs_case(sizes[s], cap - n, 64, cap, 0);
			if (cap + 1 >= n)
				abs_case(sizes[s], cap - n + 1, 64, cap, 1);
		}
		abs_case(sizes[s], 0x7fffffffu, 64, 64, 1);
		abs_case(sizes[s], 0x7ffffffcu, 64, 64, 1);
		abs_case(sizes[s], 65535, 64, 64, 1);
		/* negative offsets: through the network and link-layer bases */
		abs_case(sizes[s], (uint32_t)SKF_NET_OFF, 64, 64, 0);
		abs_case(sizes[s], (uint32_t)SKF_NET_OFF + 50 - n, 64, 64, 0);
		abs_case(sizes[s], (uint32_t)SKF_NET_OFF + 51 - n, 64, 64, 1);
		abs_case(sizes[s], (uint32_t)SKF_LL_OFF + 3, 64, 64, 0);
		abs_case(sizes[s], (uint32_t)SKF_LL_OFF + 64 - n, 64, 64, 0);
		abs_case(sizes[s], (uint32_t)SKF_LL_OFF + 65 - n, 64, 64, 1);
		abs_case(sizes[s], (uint32_t)SKF_LL_OFF - 1, 64, 64, 1);
		abs_case(sizes[s], 0x80000000u, 64, 64, 1);
	}
	/* A load the path proved in bounds needs no check; one further on does. */
	{
		struct sock_filter p[] = {
			I(BPF_LD | BPF_W | BPF_ABS, 0, 0, 40), I(BPF_LD | BPF_H | BPF_ABS, 0, 0, 20),
			I(BPF_LD | BPF_B | BPF_ABS, 0, 0, 43), I(BPF_LD | BPF_B | BPF_ABS, 0, 0, 44),
			RET_K(9),
		};

		CU_ASSERT_EQUAL(run_len(p, N(p), 44, 64), 0);
		CU_ASSERT_EQUAL(run_len(p, N(p), 45, 64), 9);
	}
}

/* ldx #x; ld[size] [x + k]; ret a and ret #1. */
static void ind_case(uint16_t size, uint32_t x, uint32_t k, int faults)
{
	struct sock_filter val[] = {LDX_IMM(x), I(BPF_LD | size | BPF_IND, 0, 0, k), RET_A};
	struct sock_filter reach[] = {LDX_IMM(x), I(BPF_LD | size | BPF_IND, 0, 0, k), RET_K(1)};

	CU_ASSERT_EQUAL(run(reach, 3), faults ? 0 : 1);
	(void)run(val, 3);
}

static void test_indirect_loads(void)
{
	static const uint16_t sizes[] = {BPF_B, BPF_H, BPF_W};
	static const uint32_t ns[] = {1, 2, 4};

	frame_init();
	for (int s = 0; s < 3; s++) {
		uint32_t n = ns[s];

		ind_case(sizes[s], 14, 0, 0);
		ind_case(sizes[s], 60, 4 - n, 0);
		ind_case(sizes[s], 60, 5 - n, 1);
		ind_case(sizes[s], 0xffffffffu, 1, 0);                /* wraps to 0 */
		ind_case(sizes[s], 0x80000000u, 0x80000010u, 0);      /* wraps to 16 */
		ind_case(sizes[s], 0xffffffffu, 0, 1);                /* s32 -1 */
		ind_case(sizes[s], 0, (uint32_t)SKF_NET_OFF + 2, 0);
		ind_case(sizes[s], (uint32_t)SKF_NET_OFF, 51 - n, 1);
		ind_case(sizes[s], (uint32_t)SKF_LL_OFF, 7, 0);
		ind_case(sizes[s], 0, (uint32_t)SKF_LL_OFF - 4, 1);
		ind_case(sizes[s], 0, (uint32_t)SKF_AD_OFF, 1); /* no ancillary via [x+k] */
		ind_case(sizes[s], 0x7fffffffu, 1, 1);
		ind_case(sizes[s], 0x7ffffff0u, 0, 1);
	}
}

static void test_msh(void)
{
	static const uint32_t ks[] = {14, 0, 63, 64, 65, 0x7fffffffu, (uint32_t)SKF_NET_OFF,
				      (uint32_t)SKF_NET_OFF + 49, (uint32_t)SKF_NET_OFF + 50,
				      (uint32_t)SKF_LL_OFF + 14, (uint32_t)SKF_LL_OFF - 1,
				      0xffffffffu, (uint32_t)SKF_AD_OFF};

	frame_init();
	for (size_t i = 0; i < N(ks); i++) {
		struct sock_filter p[] = {LD_IMM(0x5a5a), I(BPF_LDX | BPF_B | BPF_MSH, 0, 0, ks[i]),
					  I(BPF_ALU | BPF_ADD | BPF_X, 0, 0, 0), RET_A};

		(void)run(p, N(p));
	}
	{
		struct sock_filter p[] = {I(BPF_LDX | BPF_B | BPF_MSH, 0, 0, 14),
					  I(BPF_MISC | BPF_TXA, 0, 0, 0), RET_A};

		CU_ASSERT_EQUAL(run(p, N(p)), 20);
	}
}

static uint32_t alu2(uint16_t code, uint32_t a, uint32_t x, uint32_t k)
{
	struct sock_filter p[] = {LD_IMM(a), LDX_IMM(x), I(code, 0, 0, k), RET_A};

	return run(p, N(p));
}

static void test_div_mod(void)
{
	static const uint32_t vals[] = {0, 1, 2, 3, 7, 8, 16, 255, 0x10000, 0x7fffffff,
					0x80000000u, 0xfffffffeu, 0xffffffffu};

	frame_init();
	/* by X = 0: the program ends with 0 whatever follows */
	{
		struct sock_filter d[] = {LD_IMM(10), I(BPF_ALU | BPF_DIV | BPF_X, 0, 0, 0), RET_K(7)};
		struct sock_filter m[] = {LD_IMM(10), I(BPF_ALU | BPF_MOD | BPF_X, 0, 0, 0), RET_K(7)};

		CU_ASSERT_EQUAL(run(d, N(d)), 0);
		CU_ASSERT_EQUAL(run(m, N(m)), 0);
	}
	for (size_t i = 0; i < N(vals); i++)
		for (size_t j = 1; j < N(vals); j++) {
			uint32_t a = vals[i], b = vals[j];

			CU_ASSERT_EQUAL(alu2(BPF_ALU | BPF_DIV | BPF_X, a, b, 0), a / b);
			CU_ASSERT_EQUAL(alu2(BPF_ALU | BPF_MOD | BPF_X, a, b, 0), a % b);
			CU_ASSERT_EQUAL(alu2(BPF_ALU | BPF_DIV | BPF_K, a, 0, b), a / b);
			CU_ASSERT_EQUAL(alu2(BPF_ALU | BPF_MOD | BPF_K, a, 0, b), a % b);
		}
}

static void test_alu(void)
{
	static const uint32_t vals[] = {0, 1, 5, 31, 32, 33, 0x7f, 0x80, 0xff, 0x12345678,
					0x80000000u, 0xffffff80u, 0xffffffffu};
	static const uint16_t ops[] = {BPF_ADD, BPF_SUB, BPF_MUL, BPF_OR, BPF_AND, BPF_XOR,
				       BPF_LSH, BPF_RSH};

	frame_init();
	for (size_t o = 0; o < N(ops); o++)
		for (size_t i = 0; i < N(vals); i++)
			for (size_t j = 0; j < N(vals); j++) {
				uint32_t a = vals[i], b = vals[j];

				(void)alu2(BPF_ALU | ops[o] | BPF_X, a, b, 0);
				if ((ops[o] != BPF_LSH && ops[o] != BPF_RSH) || b < 32)
					(void)alu2(BPF_ALU | ops[o] | BPF_K, a, 0, b);
			}
	for (size_t i = 0; i < N(vals); i++)
		CU_ASSERT_EQUAL(alu2(BPF_ALU | BPF_NEG, vals[i], 0, 0), 0u - vals[i]);
	CU_ASSERT_EQUAL(alu2(BPF_ALU | BPF_LSH | BPF_X, 1, 33, 0), 2); /* X & 31 */
	CU_ASSERT_EQUAL(alu2(BPF_ALU | BPF_RSH | BPF_X, 4, 33, 0), 2);
	/* 3.13 takes a constant shift >= 32; x86 masks the count */
	{
		struct sock_filter p[] = {LD_IMM(3), I(BPF_ALU | BPF_LSH | BPF_K, 0, 0, 33), RET_A};
		struct bpf_skb skb;

		bpf_skb_init_ether(&skb, frame, sizeof(frame), sizeof(frame));
		CU_ASSERT_EQUAL(run_skb(p, N(p), BPF_KERNEL_3_13, &skb), 6);
	}
}

static int holds(uint16_t op, uint32_t a, uint32_t k)
{
	switch (op) {
	case BPF_JEQ: return a == k;
	case BPF_JGT: return a > k;
	case BPF_JGE: return a >= k;
	default: return (a & k) != 0;
	}
}

static void test_jumps(void)
{
	static const uint32_t vals[] = {0, 1, 2, 0x7f, 0x80, 0x800, 0x7fffffff, 0x80000000u,
					0xfffffffeu, 0xffffffffu};
	static const uint16_t ops[] = {BPF_JEQ, BPF_JGT, BPF_JGE, BPF_JSET};

	frame_init();
	for (size_t o = 0; o < N(ops); o++)
		for (size_t i = 0; i < N(vals); i++)
			for (size_t j = 0; j < N(vals); j++) {
				uint32_t a = vals[i], k = vals[j];
				struct sock_filter pk[] = {LD_IMM(a), I(BPF_JMP | ops[o] | BPF_K, 1, 0, k),
							   RET_K(2), RET_K(1)};
				struct sock_filter px[] = {LDX_IMM(k), LD_IMM(a),
							   I(BPF_JMP | ops[o] | BPF_X, 0, 1, 0),
							   RET_K(1), RET_K(2)};
				/* both targets away from the next insn */
				struct sock_filter pf[] = {LD_IMM(a), I(BPF_JMP | ops[o] | BPF_K, 2, 1, k),
							   RET_K(3), RET_K(2), RET_K(1)};
				/* same target both ways */
				struct sock_filter ps[] = {LD_IMM(a), I(BPF_JMP | ops[o] | BPF_K, 1, 1, k),
							   RET_K(3), RET_K(4)};
				uint32_t want = holds(ops[o], a, k) ? 1 : 2;

				CU_ASSERT_EQUAL(run(pk, N(pk)), want);
				CU_ASSERT_EQUAL(run(px, N(px)), want);
				CU_ASSERT_EQUAL(run(pf, N(pf)), want);
				CU_ASSERT_EQUAL(run(ps, N(ps)), 4);
			}
	{
		struct sock_filter ja[] = {I(BPF_JMP | BPF_JA, 0, 0, 1), RET_K(1), RET_K(2)};
		struct sock_filter ja0[] = {I(BPF_JMP | BPF_JA, 0, 0, 0), RET_K(1), RET_K(2)};

		CU_ASSERT_EQUAL(run(ja, N(ja)), 2);
		CU_ASSERT_EQUAL(run(ja0, N(ja0)), 1);
	}
	/* a load only the next jeq/jset tests (compared in network order) */
	for (size_t j = 0; j < N(vals); j++) {
		static const uint16_t sz[] = {BPF_H, BPF_W};

		for (int s = 0; s < 2; s++)
			for (int jo = 0; jo < 2; jo++) {
				uint16_t op = jo ? BPF_JSET : BPF_JEQ;
				uint32_t k = vals[j];
				struct sock_filter p[] = {I(BPF_LD | sz[s] | BPF_ABS, 0, 0, 12),
							  I(BPF_JMP | op | BPF_K, 0, 1, k),
							  RET_K(1), RET_K(2)};
				struct sock_filter live[] = {I(BPF_LD | sz[s] | BPF_ABS, 0, 0, 12),
							     I(BPF_JMP | op | BPF_K, 0, 1, k),
							     RET_A, RET_A};

				(void)run(p, N(p));
				(void)run(live, N(live));
			}
	}
	{
		struct sock_filter h[] = {I(BPF_LD | BPF_H | BPF_ABS, 0, 0, 12),
					  I(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0x0800), RET_K(1), RET_K(2)};
		struct sock_filter big[] = {I(BPF_LD | BPF_H | BPF_ABS, 0, 0, 12),
					    I(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0x10800), RET_K(1),
					    RET_K(2)};
		struct sock_filter set[] = {I(BPF_LD | BPF_H | BPF_ABS, 0, 0, 12),
					    I(BPF_JMP | BPF_JSET | BPF_K, 0, 1, 0xff0800), RET_K(1),
					    RET_K(2)};

		CU_ASSERT_EQUAL(run(h, N(h)), 1);
		CU_ASSERT_EQUAL(run(big, N(big)), 2);
		CU_ASSERT_EQUAL(run(set, N(set)), 1);
	}
}

static void test_scratch(void)
{
	/* M[i] = A = i * 3 + 1 and M[15 - i]... X; then the sum of all. */
	struct sock_filter p[80];
	struct sock_filter q[80];
	uint32_t n = 0, want = 0;

	frame_init();
	for (uint32_t i = 0; i < 16; i++) {
		p[n++] = (struct sock_filter)LD_IMM(i * 0x01010101u + 1);
		p[n++] = (struct sock_filter)I(i % 2 ? BPF_ST : BPF_MISC | BPF_TAX, 0, 0, i);
		if (i % 2 == 0)
			p[n++] = (struct sock_filter)I(BPF_STX, 0, 0, i);
		want += i * 0x01010101u + 1;
	}
	p[n++] = (struct sock_filter)LD_IMM(0);
	for (uint32_t i = 16; i-- > 0;) {
		p[n++] = (struct sock_filter)I(BPF_LDX | BPF_MEM, 0, 0, i);
		p[n++] = (struct sock_filter)I(BPF_ALU | BPF_ADD | BPF_X, 0, 0, 0);
	}
	p[n++] = (struct sock_filter)RET_A;
	CU_ASSERT_EQUAL(run(p, n), want);
	/* the same with a helper call (the frame, not the red zone) and ld M */
	memcpy(q, p, n * sizeof(*p));
	q[n - 1] = (struct sock_filter)I(BPF_ST, 0, 0, 3);
	q[n] = (struct sock_filter)I(BPF_LD | BPF_W | BPF_ABS, 0, 0, (uint32_t)SKF_AD_OFF + SKF_AD_RANDOM);
	q[n + 1] = (struct sock_filter)I(BPF_LD | BPF_MEM, 0, 0, 3);
	q[n + 2] = (struct sock_filter)RET_A;
	CU_ASSERT_EQUAL(run(q, n + 3), want);
}

/* A jump over `adds` 3-byte instructions: short or long as they grow. */
static void test_long_jumps(void)
{
	static struct sock_filter p[400];

	frame_init();
	for (uint32_t adds = 0; adds <= 300; adds += adds < 60 ? 1 : 40) {
		for (int taken = 0; taken < 2; taken++) {
			uint32_t n = 0;

			p[n++] = (struct sock_filter)LD_IMM(taken ? 5 : 6);
			p[n++] = (struct sock_filter)I(BPF_JMP | BPF_JEQ | BPF_K, 0, (uint8_t)(adds + 1 > 255 ? 255 : adds + 1), 5);
			if (adds + 1 > 255) {
				/* a jf past 255 insns: go through ja */
				p[n - 1].jf = 0;
				p[n - 1].jt = 1;
				p[n++] = (struct sock_filter)I(BPF_JMP | BPF_JA, 0, 0, adds + 1);
			}
			for (uint32_t i = 0; i < adds; i++)
				p[n++] = (struct sock_filter)I(BPF_ALU | BPF_ADD | BPF_K, 0, 0, 1);
			p[n++] = (struct sock_filter)RET_A;
			p[n++] = (struct sock_filter)RET_K(77);
			CU_ASSERT_EQUAL(run(p, n), taken ? 5 + adds : 77);
		}
		/* a fault far from the shared exit: no `ret #0` after it */
		{
			uint32_t n = 0;

			p[n++] = (struct sock_filter)I(BPF_LD | BPF_W | BPF_ABS, 0, 0, 1000);
			for (uint32_t i = 0; i < adds; i++)
				p[n++] = (struct sock_filter)I(BPF_ALU | BPF_ADD | BPF_K, 0, 0, 1);
			p[n++] = (struct sock_filter)RET_A;
			CU_ASSERT_EQUAL(run(p, n), 0);
			p[0] = (struct sock_filter)I(BPF_LD | BPF_W | BPF_ABS, 0, 0, 10);
			CU_ASSERT_EQUAL(run(p, n), 0xaabb0800u + adds);
		}
	}
}

static void test_ancillary(void)
{
	static const uint32_t ks[] = {SKF_AD_PROTOCOL, SKF_AD_PKTTYPE, SKF_AD_IFINDEX,
				      SKF_AD_NLATTR, SKF_AD_NLATTR_NEST, SKF_AD_MARK, SKF_AD_QUEUE,
				      SKF_AD_HATYPE, SKF_AD_RXHASH, SKF_AD_CPU, SKF_AD_ALU_XOR_X,
				      SKF_AD_VLAN_TAG, SKF_AD_VLAN_TAG_PRESENT, SKF_AD_PAY_OFFSET,
				      SKF_AD_RANDOM, SKF_AD_VLAN_TPID};
	static const uint32_t as[] = {0, 4, 14, 20, 60, 61, 1000};
	uint8_t nl[64];

	frame_init();
	/* netlink attributes at 0: len 8 type 1, len 12 type 2 (nested 8/3) */
	memcpy(nl, frame, sizeof(nl));
	memcpy(nl, (const uint8_t[]){8, 0, 1, 0, 0, 0, 0, 0, 12, 0, 2, 0, 8, 0, 3, 0}, 16);
	for (int kv = 0; kv < 2; kv++)
		for (int variant = 0; variant < 4; variant++)
			for (size_t i = 0; i < N(ks); i++)
				for (size_t a = 0; a < N(as); a++) {
					struct sock_filter p[] = {
						LD_IMM(as[a]), LDX_IMM(variant + 1),
						I(BPF_LD | BPF_W | BPF_ABS, 0, 0, (uint32_t)SKF_AD_OFF + ks[i]),
						RET_A};
					struct sock_filter r1[] = {
						LD_IMM(as[a]), LDX_IMM(variant + 1),
						I(BPF_LD | BPF_W | BPF_ABS, 0, 0, (uint32_t)SKF_AD_OFF + ks[i]),
						RET_K(1)};
					struct bpf_skb skb;

					if (kv == BPF_KERNEL_3_13 && ks[i] >= SKF_AD_RANDOM)
						continue;
					bpf_skb_init_ether(&skb, variant >= 2 ? nl : frame,
							   variant == 3 ? 20 : 64, 64);
					skb.vlan_present = (uint8_t)(variant & 1);
					skb.vlan_tci = 0x1064;
					skb.vlan_proto = 0x88a8;
					skb.mark = 0xdeadbeef;
					skb.queue_mapping = 3;
					skb.hash = 0x12345678;
					skb.cpu = 1;
					skb.pkttype = 4;
					skb.random = variant ? next_random : NULL;
					skb.random_arg = &rand_state;
					(void)run_skb(p, N(p), (enum bpf_kernel)kv, &skb);
					(void)run_skb(r1, N(r1), (enum bpf_kernel)kv, &skb);
				}
}

/* ---- random programs over every capture --------------------------------- */

static struct pcap_frames frames;
static size_t nfiles;

/* Up to FRAMES_PER_FILE records spread over a capture, whatever its link
 * type: the programs only see bytes. */
static void add_capture(const char *path)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *d;
	size_t total = 0, step, i = 0;
	pcap_t *p = pcap_open_offline(path, errbuf);

	if (!p)
		return;
	while (pcap_next_ex(p, &h, &d) == 1)
		total++;
	pcap_close(p);
	if (total == 0 || !(p = pcap_open_offline(path, errbuf)))
		return;
	step = total > FRAMES_PER_FILE ? total / FRAMES_PER_FILE : 1;
	while (pcap_next_ex(p, &h, &d) == 1) {
		if (i++ % step == 0)
			(void)pcap_frames_add(&frames, d, h->caplen, h->len);
	}
	pcap_close(p);
	nfiles++;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int suite_init(void)
{
	const char *shared = pcap_frames_shared_dir();
	static const uint32_t cuts[] = {0, 1, 8, 13, 14, 15, 23, 34, 38, 54, 64};
	char dir[4096], path[8192];
	char *names[256];
	size_t nn = 0;
	struct dirent *e;
	DIR *dp;

	frame_init();
	for (size_t i = 0; i < N(cuts); i++)
		if (pcap_frames_add(&frames, frame, cuts[i], 64))
			return -1;
	if (!shared) {
		printf("\n  SKIP captures: no shared folder ($TCSIM_SHARED or ../shared);"
		       " only built-in frames are compared\n");
		return 0;
	}
	snprintf(dir, sizeof(dir), "%s/pcaps", shared);
	dp = opendir(dir);
	if (!dp)
		return 0;
	while ((e = readdir(dp)) && nn < 256)
		if (strstr(e->d_name, ".pcap"))
			names[nn++] = strdup(e->d_name);
	closedir(dp);
	qsort(names, nn, sizeof(*names), cmp_str);
	for (size_t i = 0; i < nn; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		add_capture(path);
		free(names[i]);
	}
	return 0;
}

static int suite_clean(void)
{
	pcap_frames_free(&frames);
	return 0;
}

/* Some loads of a valid program made ancillary or negative-offset ones
 * (loads neither read scratch nor jump, so the program stays valid). */
static void mutate_loads(struct bpf_gen *g, struct sock_filter *p, uint32_t n)
{
	static const int32_t negs[] = {SKF_NET_OFF, SKF_NET_OFF + 9, SKF_NET_OFF + 40,
				       SKF_LL_OFF, SKF_LL_OFF + 12, SKF_LL_OFF + 2000,
				       SKF_LL_OFF - 4};

	for (uint32_t i = 0; i < n; i++) {
		struct sock_filter *in = &p[i];

		if (BPF_CLASS(in->code) != BPF_LD || BPF_MODE(in->code) != BPF_ABS ||
		    bpf_gen_below(g, 3))
			continue;
		if (bpf_gen_below(g, 2))
			in->k = (uint32_t)SKF_AD_OFF + 4 * bpf_gen_below(g, 16);
		else
			in->k = (uint32_t)negs[bpf_gen_below(g, N(negs))] + bpf_gen_below(g, 4);
	}
}

static void test_random_programs(void)
{
	static struct sock_filter p[MAX_INSNS];
	unsigned long long compared = 0, mismatches = 0, jited = 0, loaded = 0;
	struct bpf_gen g;
	char err[BPF_ERRLEN];

	bpf_gen_seed(&g, 0x51ced0c0ffeeULL);
	for (unsigned i = 0; i < N_PROGS; i++) {
		uint32_t n = i % 4 == 3 ? bpf_gen_any(&g, p, MAX_INSNS) : bpf_gen_valid(&g, p, MAX_INSNS);
		enum bpf_kernel kv = i % 8 == 5 ? BPF_KERNEL_3_13 : BPF_KERNEL_CURRENT;
		struct bpf_prog *prog;

		if (i % 4 == 1)
			mutate_loads(&g, p, n);
		if (bpf_prog_load(&prog, p, n, kv, err, sizeof(err)))
			continue; /* bpf_gen_any's rejected ones */
		loaded++;
		jited += prog->jited != NULL;
		for (size_t f = 0; f < frames.n; f++) {
			struct bpf_skb skb;
			uint32_t a, b;

			bpf_skb_init_ether(&skb, frames.v[f].data, frames.v[f].caplen, frames.v[f].len);
			skb.vlan_present = f % 3 == 0;
			skb.vlan_tci = (uint16_t)(f * 37);
			skb.vlan_proto = 0x8100;
			skb.mark = (uint32_t)f;
			skb.hash = (uint32_t)f * 2654435761u;
			skb.queue_mapping = (uint32_t)f % 4;
			skb.random = f % 2 ? next_random : NULL;
			skb.random_arg = &rand_state;
			rand_state = (uint32_t)f;
			a = bpf_prog_run_interp(prog, &skb);
			rand_state = (uint32_t)f;
			b = bpf_prog_run(prog, &skb);
			compared++;
			if (a != b && mismatches++ < 5) {
				printf("\n  MISMATCH: JIT %u, interpreter %u, frame %zu (caplen %u, "
				       "len %u), kernel %d:\n  %u",
				       b, a, f, frames.v[f].caplen, frames.v[f].len, kv, n);
				for (uint32_t k = 0; k < n; k++)
					printf(",%u %u %u %u", p[k].code, p[k].jt, p[k].jf, p[k].k);
			}
		}
		bpf_prog_free(prog);
	}
	printf("\n  %llu programs (%llu compiled) x %zu packets (%zu captures + built-in) = "
	       "%llu runs compared; %llu differ\n  ",
	       loaded, jited, frames.n, nfiles, compared, mismatches);
	CU_ASSERT_EQUAL(mismatches, 0);
	if (HAVE_JIT)
		CU_ASSERT_EQUAL(jited, loaded);
	CU_ASSERT(loaded > N_PROGS / 2);
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	unsetenv("TCSIM_BPF_JIT");
	s = CU_add_suite("bpf_jit", suite_init, suite_clean);
	if (!s ||
	    !CU_add_test(s, "the image is read + exec, never writable", test_image_is_read_exec_only) ||
	    !CU_add_test(s, "TCSIM_BPF_JIT switches it", test_switch) ||
	    !CU_add_test(s, "A and X start at 0; ld len", test_initial_state) ||
	    !CU_add_test(s, "loads at and past the end, negative offsets", test_out_of_bounds) ||
	    !CU_add_test(s, "[x+k] loads", test_indirect_loads) ||
	    !CU_add_test(s, "ldx msh", test_msh) ||
	    !CU_add_test(s, "div and mod, by X = 0", test_div_mod) ||
	    !CU_add_test(s, "alu ops", test_alu) ||
	    !CU_add_test(s, "every jump kind", test_jumps) ||
	    !CU_add_test(s, "scratch memory", test_scratch) ||
	    !CU_add_test(s, "jumps over more than 127 bytes", test_long_jumps) ||
	    !CU_add_test(s, "ancillary loads, both kernels", test_ancillary) ||
	    !CU_add_test(s, "random programs over every capture", test_random_programs)) {
		CU_cleanup_registry();
		return 2;
	}
	return unit_run();
}
