/* test_bpf_interp.c - every classic BPF opcode and ancillary load against
 * hand-computed values, on a hand-built Ethernet/IPv4/TCP frame. */
#include <CUnit/Basic.h>
#include "unit.h"
#include <stdlib.h>
#include <string.h>

#include "bpf.h"
#include "bpf_gen.h"

#define I(c, t, f, k) {(uint16_t)(c), (uint8_t)(t), (uint8_t)(f), (uint32_t)(k)}
#define N(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))

/* 60 bytes: Ethernet, IPv4 192.168.1.2 -> .3 (DF, ttl 64, TCP), TCP 22 ->
 * 54321 seq 0x01020304 ack 0x05060708 doff 5 PSH|ACK, payload "hello!". */
static const uint8_t frame[60] = {
	0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0x08, 0x00,
	0x45, 0x00, 0x00, 0x2e, 0x12, 0x34, 0x40, 0x00, 0x40, 0x06, 0x00, 0x00,
	0xc0, 0xa8, 0x01, 0x02, 0xc0, 0xa8, 0x01, 0x03,
	0x00, 0x16, 0xd4, 0x31, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	0x50, 0x18, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
	'h', 'e', 'l', 'l', 'o', '!',
};

static uint32_t run_k(const struct sock_filter *p, uint32_t n, enum bpf_kernel kv,
		      const struct bpf_skb *skb)
{
	struct bpf_prog *prog;
	char err[BPF_ERRLEN];
	uint32_t v;

	if (bpf_prog_load(&prog, p, n, kv, err, sizeof(err))) {
		CU_FAIL_FATAL(err);
	}
	/* The interpreter is the reference; the JIT (bpf_prog_run, when it
	 * compiled the program) must give the same (test_bpf_jit.c). */
	v = bpf_prog_run_interp(prog, skb);
	CU_ASSERT_EQUAL(bpf_prog_run(prog, skb), v);
	bpf_prog_free(prog);
	return v;
}

static uint32_t run_len(const struct sock_filter *p, uint32_t n, uint32_t caplen, uint32_t len)
{
	struct bpf_skb skb;

	bpf_skb_init_ether(&skb, frame, caplen, len);
	return run_k(p, n, BPF_KERNEL_CURRENT, &skb);
}

static uint32_t run(const struct sock_filter *p, uint32_t n)
{
	return run_len(p, n, sizeof(frame), sizeof(frame));
}

/* A = a, X = x, then one ALU instruction, ret a. */
static uint32_t alu(uint16_t code, uint32_t a, uint32_t x, uint32_t k)
{
	struct sock_filter p[] = {
		I(BPF_LD | BPF_IMM, 0, 0, a), I(BPF_LDX | BPF_IMM, 0, 0, x),
		I(code, 0, 0, k), I(BPF_RET | BPF_A, 0, 0, 0),
	};
	return run(p, N(p));
}

/* A = a, X = x, jump: ret 1 when taken, 2 when not. */
static uint32_t jmp(uint16_t code, uint32_t a, uint32_t x, uint32_t k)
{
	struct sock_filter p[] = {
		I(BPF_LD | BPF_IMM, 0, 0, a), I(BPF_LDX | BPF_IMM, 0, 0, x),
		I(code, 0, 1, k), I(BPF_RET, 0, 0, 1), I(BPF_RET, 0, 0, 2),
	};
	return run(p, N(p));
}

static void test_loads_abs(void)
{
	struct sock_filter w[] = {I(0x20, 0, 0, 26), I(0x16, 0, 0, 0)};
	struct sock_filter h[] = {I(0x28, 0, 0, 12), I(0x16, 0, 0, 0)};
	struct sock_filter b[] = {I(0x30, 0, 0, 23), I(0x16, 0, 0, 0)};
	struct sock_filter last[] = {I(0x30, 0, 0, 59), I(0x16, 0, 0, 0)};

	CU_ASSERT_EQUAL(run(w, 2), 0xc0a80102);
	CU_ASSERT_EQUAL(run(h, 2), 0x0800);
	CU_ASSERT_EQUAL(run(b, 2), 6);
	CU_ASSERT_EQUAL(run(last, 2), '!');
}

static void test_loads_past_end_return_zero(void)
{
	struct sock_filter w[] = {I(0x20, 0, 0, 57), I(0x06, 0, 0, 7)};
	struct sock_filter h[] = {I(0x28, 0, 0, 59), I(0x06, 0, 0, 7)};
	struct sock_filter b[] = {I(0x30, 0, 0, 60), I(0x06, 0, 0, 7)};
	struct sock_filter ok[] = {I(0x20, 0, 0, 56), I(0x06, 0, 0, 7)};
	struct sock_filter huge[] = {I(0x20, 0, 0, 0x7ffffffe), I(0x06, 0, 0, 7)};

	CU_ASSERT_EQUAL(run(w, 2), 0);
	CU_ASSERT_EQUAL(run(h, 2), 0);
	CU_ASSERT_EQUAL(run(b, 2), 0);
	CU_ASSERT_EQUAL(run(ok, 2), 7);
	CU_ASSERT_EQUAL(run(huge, 2), 0);
}

static void test_truncated_capture(void)
{
	/* 34 of 60 bytes captured: IP header readable, TCP ports not; len
	 * still reports the original 60. */
	struct sock_filter ipsrc[] = {I(0x20, 0, 0, 26), I(0x16, 0, 0, 0)};
	struct sock_filter port[] = {I(0x28, 0, 0, 34), I(0x06, 0, 0, 9)};
	struct sock_filter len[] = {I(0x80, 0, 0, 0), I(0x16, 0, 0, 0)};

	CU_ASSERT_EQUAL(run_len(ipsrc, 2, 34, 60), 0xc0a80102);
	CU_ASSERT_EQUAL(run_len(port, 2, 34, 60), 0);
	CU_ASSERT_EQUAL(run_len(len, 2, 34, 60), 60);
}

static void test_loads_ind_and_msh(void)
{
	/* ldxb 4*([14]&0xf) = 20; ldh [x+14] = TCP source port 22 */
	struct sock_filter p[] = {I(0xb1, 0, 0, 14), I(0x48, 0, 0, 14), I(0x16, 0, 0, 0)};
	struct sock_filter x[] = {I(0xb1, 0, 0, 14), I(0x87, 0, 0, 0), I(0x16, 0, 0, 0)};
	struct sock_filter w[] = {I(0x01, 0, 0, 4), I(0x40, 0, 0, 34), I(0x16, 0, 0, 0)};
	struct sock_filter b[] = {I(0x01, 0, 0, 50), I(0x50, 0, 0, 4), I(0x16, 0, 0, 0)};
	struct sock_filter past[] = {I(0x01, 0, 0, 50), I(0x50, 0, 0, 10), I(0x06, 0, 0, 5)};
	struct sock_filter mshpast[] = {I(0xb1, 0, 0, 60), I(0x06, 0, 0, 5)};

	CU_ASSERT_EQUAL(run(p, N(p)), 22);
	CU_ASSERT_EQUAL(run(x, N(x)), 20);
	CU_ASSERT_EQUAL(run(w, N(w)), 0x01020304);
	CU_ASSERT_EQUAL(run(b, N(b)), 'h');
	CU_ASSERT_EQUAL(run(past, N(past)), 0);
	CU_ASSERT_EQUAL(run(mshpast, N(mshpast)), 0);
}

static void test_negative_offsets(void)
{
	/* SKF_NET_OFF + 9 is the IP protocol byte (absolute 23); SKF_LL_OFF + 12
	 * the EtherType; below SKF_LL_OFF faults. IND with X + k negative too. */
	struct sock_filter net[] = {I(0x30, 0, 0, (uint32_t)(SKF_NET_OFF + 9)), I(0x16, 0, 0, 0)};
	struct sock_filter ll[] = {I(0x28, 0, 0, (uint32_t)(SKF_LL_OFF + 12)), I(0x16, 0, 0, 0)};
	struct sock_filter low[] = {I(0x30, 0, 0, (uint32_t)(SKF_LL_OFF - 1)), I(0x06, 0, 0, 3)};
	struct sock_filter netpast[] = {I(0x30, 0, 0, (uint32_t)(SKF_NET_OFF + 46)), I(0x06, 0, 0, 3)};
	struct sock_filter ind[] = {I(0x01, 0, 0, (uint32_t)SKF_NET_OFF), I(0x50, 0, 0, 9),
				    I(0x16, 0, 0, 0)};
	/* X + k wraps past 2^32 to offset 0: the kernel reads byte 0 */
	struct sock_filter wrap[] = {I(0x01, 0, 0, 0xffffffff), I(0x50, 0, 0, 1), I(0x16, 0, 0, 0)};
	struct sock_filter msh[] = {I(0xb1, 0, 0, (uint32_t)(SKF_NET_OFF)), I(0x87, 0, 0, 0),
				    I(0x16, 0, 0, 0)};

	CU_ASSERT_EQUAL(run(net, 2), 6);
	CU_ASSERT_EQUAL(run(ll, 2), 0x0800);
	CU_ASSERT_EQUAL(run(low, 2), 0);
	CU_ASSERT_EQUAL(run(netpast, 2), 0);
	CU_ASSERT_EQUAL(run(ind, 3), 6);
	CU_ASSERT_EQUAL(run(wrap, 3), 0x00);
	CU_ASSERT_EQUAL(run(msh, 3), 20);
}

static void test_imm_len_mem(void)
{
	struct sock_filter imm[] = {I(0x00, 0, 0, 0xdeadbeef), I(0x16, 0, 0, 0)};
	struct sock_filter len[] = {I(0x80, 0, 0, 0), I(0x16, 0, 0, 0)};
	struct sock_filter xlen[] = {I(0x81, 0, 0, 0), I(0x87, 0, 0, 0), I(0x16, 0, 0, 0)};
	struct sock_filter mem[] = {
		I(0x00, 0, 0, 11), I(0x02, 0, 0, 3),  /* M[3] = 11 */
		I(0x01, 0, 0, 22), I(0x03, 0, 0, 15), /* M[15] = 22 */
		I(0x00, 0, 0, 0),  I(0x61, 0, 0, 3),  /* X = M[3] */
		I(0x60, 0, 0, 15),		      /* A = M[15] */
		I(0x0c, 0, 0, 0),  I(0x16, 0, 0, 0),  /* ret A + X */
	};

	CU_ASSERT_EQUAL(run(imm, 2), 0xdeadbeef);
	CU_ASSERT_EQUAL(run(len, 2), 60);
	CU_ASSERT_EQUAL(run(xlen, 3), 60);
	CU_ASSERT_EQUAL(run(mem, N(mem)), 33);
}

static void test_alu(void)
{
	CU_ASSERT_EQUAL(alu(0x04, 0xffffffff, 0, 2), 1);	  /* add #k wraps */
	CU_ASSERT_EQUAL(alu(0x0c, 5, 7, 0), 12);		  /* add x */
	CU_ASSERT_EQUAL(alu(0x14, 1, 0, 2), 0xffffffff);	  /* sub #k wraps */
	CU_ASSERT_EQUAL(alu(0x1c, 10, 3, 0), 7);		  /* sub x */
	CU_ASSERT_EQUAL(alu(0x24, 0x10000, 0, 0x10001), 0x10000); /* mul low 32 */
	CU_ASSERT_EQUAL(alu(0x2c, 6, 7, 0), 42);		  /* mul x */
	CU_ASSERT_EQUAL(alu(0x34, 100, 0, 7), 14);		  /* div #k */
	CU_ASSERT_EQUAL(alu(0x34, 0xffffffff, 0, 1), 0xffffffff); /* div #1 exact */
	CU_ASSERT_EQUAL(alu(0x3c, 100, 9, 0), 11);		  /* div x */
	CU_ASSERT_EQUAL(alu(0x94, 100, 0, 7), 2);		  /* mod #k */
	CU_ASSERT_EQUAL(alu(0x9c, 100, 9, 0), 1);		  /* mod x */
	CU_ASSERT_EQUAL(alu(0x44, 0xf0, 0, 0x0f), 0xff);	  /* or */
	CU_ASSERT_EQUAL(alu(0x4c, 0xf0, 0x0f00, 0), 0x0ff0);
	CU_ASSERT_EQUAL(alu(0x54, 0xabcd, 0, 0xff), 0xcd);	  /* and */
	CU_ASSERT_EQUAL(alu(0x5c, 0xabcd, 0xff00, 0), 0xab00);
	CU_ASSERT_EQUAL(alu(0xa4, 0xff, 0, 0x0f), 0xf0);	  /* xor */
	CU_ASSERT_EQUAL(alu(0xac, 0xff, 0xff, 0), 0);
	CU_ASSERT_EQUAL(alu(0x64, 0x80000001, 0, 1), 2);	  /* lsh #k */
	CU_ASSERT_EQUAL(alu(0x64, 1, 0, 31), 0x80000000);
	CU_ASSERT_EQUAL(alu(0x6c, 1, 4, 0), 16);		  /* lsh x */
	CU_ASSERT_EQUAL(alu(0x74, 0x80000000, 0, 31), 1);	  /* rsh is logical */
	CU_ASSERT_EQUAL(alu(0x7c, 0x100, 4, 0), 0x10);
	CU_ASSERT_EQUAL(alu(0x84, 1, 0, 0), 0xffffffff);	  /* neg */
	CU_ASSERT_EQUAL(alu(0x84, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(alu(0x84, 0x80000000, 0, 0), 0x80000000);
}

static void test_shift_by_x_masks_31(void)
{
	CU_ASSERT_EQUAL(alu(0x6c, 1, 33, 0), 2);
	CU_ASSERT_EQUAL(alu(0x6c, 1, 32, 0), 1);
	CU_ASSERT_EQUAL(alu(0x7c, 0x80000000, 63, 0), 1);
}

static void test_shift_const_3_13(void)
{
	/* 3.13 accepts lsh #33 and x86 shifts by 33 & 31 = 1 */
	struct sock_filter p[] = {I(0x00, 0, 0, 3), I(0x64, 0, 0, 33), I(0x16, 0, 0, 0)};
	struct bpf_skb skb;
	char err[BPF_ERRLEN];

	bpf_skb_init_ether(&skb, frame, sizeof(frame), sizeof(frame));
	CU_ASSERT_EQUAL(run_k(p, 3, BPF_KERNEL_3_13, &skb), 6);
	CU_ASSERT_EQUAL(bpf_check(p, 3, BPF_KERNEL_CURRENT, err, sizeof(err)), -22);
}

static void test_div_mod_by_x_zero_ends_with_zero(void)
{
	struct sock_filter d[] = {I(0x00, 0, 0, 9), I(0x01, 0, 0, 0), I(0x3c, 0, 0, 0),
				  I(0x06, 0, 0, 77)};
	struct sock_filter m[] = {I(0x00, 0, 0, 9), I(0x01, 0, 0, 0), I(0x9c, 0, 0, 0),
				  I(0x06, 0, 0, 77)};

	CU_ASSERT_EQUAL(run(d, 4), 0);
	CU_ASSERT_EQUAL(run(m, 4), 0);
}

static void test_jumps(void)
{
	CU_ASSERT_EQUAL(jmp(0x15, 5, 0, 5), 1); /* jeq #k */
	CU_ASSERT_EQUAL(jmp(0x15, 5, 0, 6), 2);
	CU_ASSERT_EQUAL(jmp(0x1d, 5, 5, 0), 1); /* jeq x */
	CU_ASSERT_EQUAL(jmp(0x1d, 5, 4, 0), 2);
	CU_ASSERT_EQUAL(jmp(0x25, 6, 0, 5), 1); /* jgt #k */
	CU_ASSERT_EQUAL(jmp(0x25, 5, 0, 5), 2);
	/* unsigned: 0xffffffff > 1 */
	CU_ASSERT_EQUAL(jmp(0x25, 0xffffffff, 0, 1), 1);
	CU_ASSERT_EQUAL(jmp(0x2d, 6, 5, 0), 1); /* jgt x */
	CU_ASSERT_EQUAL(jmp(0x2d, 1, 0xffffffff, 0), 2);
	CU_ASSERT_EQUAL(jmp(0x35, 5, 0, 5), 1); /* jge #k */
	CU_ASSERT_EQUAL(jmp(0x35, 4, 0, 5), 2);
	CU_ASSERT_EQUAL(jmp(0x3d, 5, 5, 0), 1); /* jge x */
	CU_ASSERT_EQUAL(jmp(0x3d, 4, 5, 0), 2);
	CU_ASSERT_EQUAL(jmp(0x45, 6, 0, 2), 1); /* jset #k */
	CU_ASSERT_EQUAL(jmp(0x45, 5, 0, 2), 2);
	CU_ASSERT_EQUAL(jmp(0x4d, 6, 4, 0), 1); /* jset x */
	CU_ASSERT_EQUAL(jmp(0x4d, 6, 1, 0), 2);
	{
		/* ja skips; jt/jf of ja are ignored */
		struct sock_filter p[] = {I(0x05, 9, 9, 1), I(0x06, 0, 0, 1), I(0x06, 0, 0, 2)};

		CU_ASSERT_EQUAL(run(p, 3), 2);
	}
}

static void test_ret_tax_txa(void)
{
	struct sock_filter rk[] = {I(0x06, 0, 0, 0x10002)};
	struct sock_filter ra[] = {I(0x00, 0, 0, 262144), I(0x16, 0, 0, 0)};
	struct sock_filter tax[] = {I(0x00, 0, 0, 9), I(0x07, 0, 0, 0), I(0x00, 0, 0, 1),
				    I(0x0c, 0, 0, 0), I(0x16, 0, 0, 0)};
	struct sock_filter txa[] = {I(0x01, 0, 0, 0x1234), I(0x87, 0, 0, 0), I(0x16, 0, 0, 0)};
	struct sock_filter zero[] = {I(0x16, 0, 0, 0)}; /* A starts at 0 */

	CU_ASSERT_EQUAL(run(rk, 1), 0x10002);
	CU_ASSERT_EQUAL(run(ra, 2), 262144);
	CU_ASSERT_EQUAL(run(tax, 5), 10);
	CU_ASSERT_EQUAL(run(txa, 3), 0x1234);
	CU_ASSERT_EQUAL(run(zero, 1), 0);
}

static uint32_t anc(uint32_t n, uint16_t size, const struct bpf_skb *skb, enum bpf_kernel kv)
{
	struct sock_filter p[] = {I(BPF_LD | size | BPF_ABS, 0, 0, (uint32_t)SKF_AD_OFF + n),
				  I(0x16, 0, 0, 0)};
	return run_k(p, 2, kv, skb);
}

static uint32_t fixed_random(void *arg)
{
	return *(uint32_t *)arg;
}

static void test_ancillary_defaults(void)
{
	struct bpf_skb skb;

	bpf_skb_init_ether(&skb, frame, sizeof(frame), sizeof(frame));
	CU_ASSERT_EQUAL(anc(SKF_AD_PROTOCOL, BPF_H, &skb, 0), 0x0800);
	CU_ASSERT_EQUAL(anc(SKF_AD_PROTOCOL, BPF_B, &skb, 0), 0x0800); /* size ignored */
	CU_ASSERT_EQUAL(anc(SKF_AD_PKTTYPE, BPF_W, &skb, 0), 0);
	CU_ASSERT_EQUAL(anc(SKF_AD_IFINDEX, BPF_W, &skb, 0), 2);
	CU_ASSERT_EQUAL(anc(SKF_AD_MARK, BPF_W, &skb, 0), 0);
	CU_ASSERT_EQUAL(anc(SKF_AD_QUEUE, BPF_W, &skb, 0), 0);
	CU_ASSERT_EQUAL(anc(SKF_AD_HATYPE, BPF_W, &skb, 0), 1);
	CU_ASSERT_EQUAL(anc(SKF_AD_RXHASH, BPF_W, &skb, 0), 0);
	CU_ASSERT_EQUAL(anc(SKF_AD_CPU, BPF_W, &skb, 0), 0);
	CU_ASSERT_EQUAL(anc(SKF_AD_VLAN_TAG, BPF_W, &skb, 0), 0);
	CU_ASSERT_EQUAL(anc(SKF_AD_VLAN_TAG_PRESENT, BPF_W, &skb, 0), 0);
	CU_ASSERT_EQUAL(anc(SKF_AD_VLAN_TPID, BPF_W, &skb, 0), 0);
	CU_ASSERT_EQUAL(anc(SKF_AD_RANDOM, BPF_W, &skb, 0), 0); /* no generator */
	/* TCP over IPv4: 14 + 20 + doff 5 * 4 */
	CU_ASSERT_EQUAL(anc(SKF_AD_PAY_OFFSET, BPF_W, &skb, 0), 54);
}

static void test_ancillary_set_values(void)
{
	struct bpf_skb skb;
	uint32_t r = 0xfeedf00d;

	bpf_skb_init_ether(&skb, frame, sizeof(frame), sizeof(frame));
	skb.mark = 7;
	skb.queue_mapping = 3;
	skb.hash = 0xabcdef01;
	skb.cpu = 1;
	skb.ifindex = 42;
	skb.vlan_present = 1;
	skb.vlan_tci = 0x1064; /* CFI/DEI bit set, VID 100 */
	skb.vlan_proto = 0x8100;
	skb.random = fixed_random;
	skb.random_arg = &r;
	CU_ASSERT_EQUAL(anc(SKF_AD_MARK, BPF_W, &skb, 0), 7);
	CU_ASSERT_EQUAL(anc(SKF_AD_QUEUE, BPF_W, &skb, 0), 3);
	CU_ASSERT_EQUAL(anc(SKF_AD_RXHASH, BPF_W, &skb, 0), 0xabcdef01);
	CU_ASSERT_EQUAL(anc(SKF_AD_CPU, BPF_W, &skb, 0), 1);
	CU_ASSERT_EQUAL(anc(SKF_AD_IFINDEX, BPF_W, &skb, 0), 42);
	CU_ASSERT_EQUAL(anc(SKF_AD_VLAN_TAG, BPF_W, &skb, BPF_KERNEL_CURRENT), 0x1064);
	CU_ASSERT_EQUAL(anc(SKF_AD_VLAN_TAG, BPF_W, &skb, BPF_KERNEL_3_13), 0x0064);
	CU_ASSERT_EQUAL(anc(SKF_AD_VLAN_TAG_PRESENT, BPF_W, &skb, 0), 1);
	CU_ASSERT_EQUAL(anc(SKF_AD_VLAN_TPID, BPF_W, &skb, 0), 0x8100);
	CU_ASSERT_EQUAL(anc(SKF_AD_RANDOM, BPF_W, &skb, 0), 0xfeedf00d);
}

static void test_alu_xor_x(void)
{
	struct sock_filter p[] = {I(0x00, 0, 0, 0xff00), I(0x01, 0, 0, 0x0ff0),
				  I(0x20, 0, 0, (uint32_t)SKF_AD_OFF + SKF_AD_ALU_XOR_X),
				  I(0x16, 0, 0, 0)};

	CU_ASSERT_EQUAL(run(p, 4), 0xf0f0);
}

static void test_protocol_of_frames(void)
{
	uint8_t f[64];
	struct bpf_skb skb;

	memcpy(f, frame, sizeof(frame));
	f[12] = 0x00; /* 802.3 length field, LLC below */
	f[13] = 0x2e;
	bpf_skb_init_ether(&skb, f, 60, 60);
	CU_ASSERT_EQUAL(skb.protocol, 0x0004);
	f[14] = f[15] = 0xff; /* raw 802.3 (IPX) */
	bpf_skb_init_ether(&skb, f, 60, 60);
	CU_ASSERT_EQUAL(skb.protocol, 0x0001);
	f[12] = 0x86;
	f[13] = 0xdd;
	bpf_skb_init_ether(&skb, f, 60, 60);
	CU_ASSERT_EQUAL(skb.protocol, 0x86dd);
}

static void test_pay_offset_protocols(void)
{
	uint8_t f[80];
	struct bpf_skb skb;

	memset(f, 0, sizeof(f));
	memcpy(f, frame, sizeof(frame));
	f[23] = 17; /* UDP */
	bpf_skb_init_ether(&skb, f, 60, 60);
	CU_ASSERT_EQUAL(anc(SKF_AD_PAY_OFFSET, BPF_W, &skb, 0), 14 + 20 + 8);
	f[23] = 6;
	f[46] = 0x80; /* TCP doff 8: 32-byte header */
	bpf_skb_init_ether(&skb, f, 80, 80);
	CU_ASSERT_EQUAL(anc(SKF_AD_PAY_OFFSET, BPF_W, &skb, 0), 14 + 20 + 32);
	f[46] = 0x20; /* doff 2 is raised to the minimum 20 */
	CU_ASSERT_EQUAL(anc(SKF_AD_PAY_OFFSET, BPF_W, &skb, 0), 14 + 20 + 20);
	f[20] = 0x20; /* MF: a fragment has no transport header */
	CU_ASSERT_EQUAL(anc(SKF_AD_PAY_OFFSET, BPF_W, &skb, 0), 14 + 20);
	f[20] = 0x40;
	f[14] = 0x46; /* ihl 6 */
	CU_ASSERT_EQUAL(anc(SKF_AD_PAY_OFFSET, BPF_W, &skb, 0), 14 + 24 + 20);
	f[12] = 0x08;
	f[13] = 0x06; /* ARP: the dissector gives up */
	bpf_skb_init_ether(&skb, f, 80, 80);
	CU_ASSERT_EQUAL(anc(SKF_AD_PAY_OFFSET, BPF_W, &skb, 0), 0);
}

static void test_nlattr(void)
{
	/* Attributes from offset 0: {len 8, type 1}, {len 6, type 2} (padded
	 * to 8), {len 12, type 3 nested: {len 8, type 7}}. */
	uint8_t nl[28] = {8, 0, 1, 0, 0xaa, 0xbb, 0xcc, 0xdd, 6, 0, 2, 0, 1, 2, 0, 0,
			  12, 0, 3, 0x80, 8, 0, 7, 0, 9, 9, 9, 9};
	struct bpf_skb skb;
	struct sock_filter find[] = {I(0x00, 0, 0, 0), I(0x01, 0, 0, 3),
				     I(0x20, 0, 0, (uint32_t)SKF_AD_OFF + SKF_AD_NLATTR),
				     I(0x16, 0, 0, 0)};
	struct sock_filter nest[] = {I(0x00, 0, 0, 16), I(0x01, 0, 0, 7),
				     I(0x20, 0, 0, (uint32_t)SKF_AD_OFF + SKF_AD_NLATTR_NEST),
				     I(0x16, 0, 0, 0)};
	struct sock_filter none[] = {I(0x00, 0, 0, 0), I(0x01, 0, 0, 9),
				     I(0x20, 0, 0, (uint32_t)SKF_AD_OFF + SKF_AD_NLATTR),
				     I(0x06, 0, 0, 5)};
	struct sock_filter far[] = {I(0x00, 0, 0, 100), I(0x01, 0, 0, 1),
				    I(0x20, 0, 0, (uint32_t)SKF_AD_OFF + SKF_AD_NLATTR),
				    I(0x06, 0, 0, 5)};

	memset(&skb, 0, sizeof(skb));
	skb.data = nl;
	skb.caplen = skb.len = sizeof(nl);
	CU_ASSERT_EQUAL(run_k(find, 4, 0, &skb), 16);
	CU_ASSERT_EQUAL(run_k(nest, 4, 0, &skb), 20);
	CU_ASSERT_EQUAL(run_k(none, 4, 0, &skb), 5);
	/* A beyond the packet: current kernels set A = 0 and go on, 3.13 ends */
	CU_ASSERT_EQUAL(run_k(far, 4, BPF_KERNEL_CURRENT, &skb), 5);
	CU_ASSERT_EQUAL(run_k(far, 4, BPF_KERNEL_3_13, &skb), 0);
}

/* The traced path is the same dispatch loop; check it agrees on random
 * programs and that it reports each executed pc in order. */
struct trace_count {
	uint32_t steps;
	uint32_t last_pc;
	int ordered;
	uint32_t ret;
};

static void count_steps(const struct bpf_prog *prog, const struct bpf_trace_state *st, void *arg)
{
	struct trace_count *t = arg;

	(void)prog;
	if (st->done) {
		t->ret = st->ret;
		return;
	}
	if (t->steps && st->pc <= t->last_pc)
		t->ordered = 0;
	t->last_pc = st->pc;
	t->steps++;
}

static void test_traced_run_agrees(void)
{
	struct bpf_gen g;
	struct sock_filter p[64];
	struct bpf_skb skb;
	char err[BPF_ERRLEN];
	int disagree = 0;

	bpf_gen_seed(&g, 7);
	bpf_skb_init_ether(&skb, frame, sizeof(frame), sizeof(frame));
	for (int i = 0; i < 2000; i++) {
		uint32_t n = bpf_gen_valid(&g, p, 64);
		struct bpf_prog *prog;
		struct trace_count t = {.ordered = 1};

		if (bpf_prog_load(&prog, p, n, BPF_KERNEL_CURRENT, err, sizeof(err))) {
			CU_FAIL(err);
			continue;
		}
		uint32_t a = bpf_prog_run_interp(prog, &skb);
		uint32_t b = bpf_prog_run_traced(prog, &skb, count_steps, &t);

		if (a != b || t.ret != a || !t.ordered || t.steps == 0 || t.steps > n)
			disagree++;
		bpf_prog_free(prog);
	}
	CU_ASSERT_EQUAL(disagree, 0);
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	s = CU_add_suite("bpf_interp", NULL, NULL);
	CU_add_test(s, "absolute loads", test_loads_abs);
	CU_add_test(s, "loads past the end return 0", test_loads_past_end_return_zero);
	CU_add_test(s, "truncated capture keeps len", test_truncated_capture);
	CU_add_test(s, "indirect loads and ldxb msh", test_loads_ind_and_msh);
	CU_add_test(s, "SKF_NET_OFF / SKF_LL_OFF offsets", test_negative_offsets);
	CU_add_test(s, "ld #k, len, scratch memory", test_imm_len_mem);
	CU_add_test(s, "ALU with wrap-around", test_alu);
	CU_add_test(s, "shift by X uses X & 31", test_shift_by_x_masks_31);
	CU_add_test(s, "3.13 constant shift >= 32", test_shift_const_3_13);
	CU_add_test(s, "div/mod by X = 0 returns 0", test_div_mod_by_x_zero_ends_with_zero);
	CU_add_test(s, "conditional and unconditional jumps", test_jumps);
	CU_add_test(s, "ret, tax, txa", test_ret_tax_txa);
	CU_add_test(s, "ancillary defaults at egress", test_ancillary_defaults);
	CU_add_test(s, "ancillary values from the skb", test_ancillary_set_values);
	CU_add_test(s, "alu_xor_x", test_alu_xor_x);
	CU_add_test(s, "skb->protocol of 802.3 frames", test_protocol_of_frames);
	CU_add_test(s, "pay_offset per protocol", test_pay_offset_protocols);
	CU_add_test(s, "nlattr and nlattr_nest", test_nlattr);
	CU_add_test(s, "traced run agrees with the fast path", test_traced_run_agrees);
	return unit_run();
}
