/* bpf_run.c - the classic BPF interpreter with the kernel's semantics for an
 * skb on cls_bpf's egress path: programs are decoded once at load into a
 * dense form with absolute jump targets (and a load fused with the branch
 * that tests it), then run by threaded dispatch. The same loop, included
 * twice from bpf_run_loop.h, serves the instruction-level tracer. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf.h"
#include "bpf_jit.h"
#include "errmsg.h"
#include "pkt.h"

/* Decoded operations. The FUSED ones are a packet load at pc and the
 * conditional jump at pc + 1 that tests A against k, run as one. */
#define BPF_PLAIN_OPS(X)                                                          \
	X(LD_IMM) X(LD_W_ABS) X(LD_H_ABS) X(LD_B_ABS) X(LD_W_IND) X(LD_H_IND)     \
	X(LD_B_IND) X(LD_W_NEG) X(LD_H_NEG) X(LD_B_NEG) X(LD_MEM) X(LD_LEN)       \
	X(LDX_IMM) X(LDX_MEM) X(LDX_LEN) X(LDX_MSH) X(ST) X(STX)                  \
	X(ADD_K) X(ADD_X) X(SUB_K) X(SUB_X) X(MUL_K) X(MUL_X) X(DIV_K) X(DIV_X)   \
	X(MOD_K) X(MOD_X) X(AND_K) X(AND_X) X(OR_K) X(OR_X) X(XOR_K) X(XOR_X)     \
	X(LSH_K) X(LSH_X) X(RSH_K) X(RSH_X) X(NEG)                                \
	X(JA) X(JEQ_K) X(JEQ_X) X(JGT_K) X(JGT_X) X(JGE_K) X(JGE_X) X(JSET_K)     \
	X(JSET_X) X(RET_K) X(RET_A) X(TAX) X(TXA)                                 \
	X(ANC_PROTOCOL) X(ANC_PKTTYPE) X(ANC_IFINDEX) X(ANC_NLATTR)               \
	X(ANC_NLATTR_NEST) X(ANC_MARK) X(ANC_QUEUE) X(ANC_HATYPE) X(ANC_RXHASH)   \
	X(ANC_CPU) X(ANC_ALU_XOR_X) X(ANC_VLAN_TAG) X(ANC_VLAN_TAG_PRESENT)       \
	X(ANC_PAY_OFFSET) X(ANC_RANDOM) X(ANC_VLAN_TPID)
#define BPF_FUSED_OPS(X)                                                          \
	X(LDW_JEQ) X(LDW_JGT) X(LDW_JGE) X(LDW_JSET)                              \
	X(LDH_JEQ) X(LDH_JGT) X(LDH_JGE) X(LDH_JSET)                              \
	X(LDB_JEQ) X(LDB_JGT) X(LDB_JGE) X(LDB_JSET)                              \
	X(LDHX_JEQ)

#define AS_ENUM(name) D_##name,
enum bpf_dop { BPF_PLAIN_OPS(AS_ENUM) BPF_FUSED_OPS(AS_ENUM) D_NOPS };
#undef AS_ENUM

struct bpf_dinsn {
	uint16_t op;    /* what the fast loop runs */
	uint16_t plain; /* the unfused operation, for the tracer */
	uint16_t jt;    /* absolute targets (pc < 4096) */
	uint16_t jf;
	uint32_t k;
	uint32_t k2; /* fused: the jump's constant */
};
#define ETH_HLEN 14
#define ARPHRD_ETHER 1

void bpf_skb_init_ether(struct bpf_skb *skb, const uint8_t *frame,
			uint32_t caplen, uint32_t len)
{
	memset(skb, 0, sizeof(*skb));
	skb->data = frame;
	skb->caplen = caplen;
	skb->len = len;
	skb->net_off = ETH_HLEN;
	skb->ifindex = 2;
	skb->hatype = ARPHRD_ETHER;
	skb->protocol = eth_frame_protocol(frame, caplen);
}

/* ---- decoding ---- */

static uint32_t decode_ld(const struct sock_filter *in)
{
	uint32_t sz = BPF_SIZE(in->code);
	uint32_t base;

	switch (BPF_MODE(in->code)) {
	case BPF_IMM:
		return D_LD_IMM;
	case BPF_MEM:
		return D_LD_MEM;
	case BPF_LEN:
		return D_LD_LEN;
	case BPF_IND:
		base = D_LD_W_IND;
		break;
	default: /* ABS */
		if (in->k >= (uint32_t)SKF_AD_OFF)
			return D_ANC_PROTOCOL + (in->k - (uint32_t)SKF_AD_OFF) / 4;
		base = in->k >= 0x80000000u ? D_LD_W_NEG : D_LD_W_ABS;
		break;
	}
	return base + (sz == BPF_W ? 0 : sz == BPF_H ? 1 : 2);
}

static uint32_t decode_op(const struct sock_filter *in)
{
	uint16_t c = in->code;
	int x = BPF_SRC(c) == BPF_X;

	switch (BPF_CLASS(c)) {
	case BPF_LD:
		return decode_ld(in);
	case BPF_LDX:
		switch (BPF_MODE(c)) {
		case BPF_IMM: return D_LDX_IMM;
		case BPF_MEM: return D_LDX_MEM;
		case BPF_LEN: return D_LDX_LEN;
		default: return D_LDX_MSH;
		}
	case BPF_ST:
		return D_ST;
	case BPF_STX:
		return D_STX;
	case BPF_ALU:
		switch (BPF_OP(c)) {
		case BPF_ADD: return x ? D_ADD_X : D_ADD_K;
		case BPF_SUB: return x ? D_SUB_X : D_SUB_K;
		case BPF_MUL: return x ? D_MUL_X : D_MUL_K;
		case BPF_DIV: return x ? D_DIV_X : D_DIV_K;
		case BPF_MOD: return x ? D_MOD_X : D_MOD_K;
		case BPF_AND: return x ? D_AND_X : D_AND_K;
		case BPF_OR: return x ? D_OR_X : D_OR_K;
		case BPF_XOR: return x ? D_XOR_X : D_XOR_K;
		case BPF_LSH: return x ? D_LSH_X : D_LSH_K;
		case BPF_RSH: return x ? D_RSH_X : D_RSH_K;
		default: return D_NEG;
		}
	case BPF_JMP:
		switch (BPF_OP(c)) {
		case BPF_JA: return D_JA;
		case BPF_JEQ: return x ? D_JEQ_X : D_JEQ_K;
		case BPF_JGT: return x ? D_JGT_X : D_JGT_K;
		case BPF_JGE: return x ? D_JGE_X : D_JGE_K;
		default: return x ? D_JSET_X : D_JSET_K;
		}
	case BPF_RET:
		return BPF_RVAL(c) == BPF_A ? D_RET_A : D_RET_K;
	default:
		return BPF_MISCOP(c) == BPF_TXA ? D_TXA : D_TAX;
	}
}

static void decode(const struct sock_filter *in, uint32_t pc, struct bpf_dinsn *d)
{
	d->op = d->plain = (uint16_t)decode_op(in);
	d->k = in->k;
	d->k2 = 0;
	d->jt = (uint16_t)(pc + 1 + in->jt);
	d->jf = (uint16_t)(pc + 1 + in->jf);
	switch (d->op) {
	case D_JA:
		d->jt = d->jf = (uint16_t)(pc + 1 + in->k);
		break;
	case D_LSH_K:
	case D_RSH_K:
		/* Only 3.13 lets k >= 32 through; x86 masks the count. */
		d->k = in->k & 31;
		break;
	default:
		break;
	}
}

/* Index of the fused op for load `ld` followed by jump `j`, or -1. */
static int fuse(uint16_t ld, uint16_t j)
{
	static const uint16_t loads[] = {D_LD_W_ABS, D_LD_H_ABS, D_LD_B_ABS};
	static const uint16_t jumps[] = {D_JEQ_K, D_JGT_K, D_JGE_K, D_JSET_K};

	if (ld == D_LD_H_IND && j == D_JEQ_K)
		return D_LDHX_JEQ;
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 4; b++)
			if (loads[a] == ld && jumps[b] == j)
				return D_LDW_JEQ + a * 4 + b;
	return -1;
}

/* A load whose next instruction branches on A runs as one operation with
 * that branch's targets; the branch keeps its own slot for jumps into it. */
static void fuse_pairs(struct bpf_dinsn *code, uint32_t len)
{
	for (uint32_t pc = 0; pc + 1 < len; pc++) {
		int f = fuse(code[pc].plain, code[pc + 1].plain);

		if (f < 0)
			continue;
		code[pc].op = (uint16_t)f;
		code[pc].k2 = code[pc + 1].k;
		code[pc].jt = code[pc + 1].jt;
		code[pc].jf = code[pc + 1].jf;
	}
}

int bpf_jit_enabled(char *err, size_t errlen)
{
	const char *v = getenv("TCSIM_BPF_JIT");

	if (!v || !*v || strcmp(v, "1") == 0)
		return 1;
	if (strcmp(v, "0") == 0)
		return 0;
	return errmsg(err, errlen, -EINVAL,
		      "TCSIM_BPF_JIT=%s: use 1 (native code, the default) or 0 (interpreter)", v);
}

int bpf_prog_load(struct bpf_prog **out, const struct sock_filter *insns,
		  uint32_t len, enum bpf_kernel kernel, char *err, size_t errlen)
{
	struct bpf_prog *p;
	int ret = bpf_check(insns, len, kernel, err, errlen);
	int jit;

	*out = NULL;
	if (ret)
		return ret;
	jit = bpf_jit_enabled(err, errlen);
	if (jit < 0)
		return jit;
	p = calloc(1, sizeof(*p));
	if (!p)
		goto nomem;
	p->len = len;
	p->kernel = kernel;
	p->insns = malloc(len * sizeof(*insns));
	p->code = malloc(len * sizeof(*p->code));
	if (!p->insns || !p->code)
		goto nomem;
	memcpy(p->insns, insns, len * sizeof(*insns));
	for (uint32_t pc = 0; pc < len; pc++)
		decode(&insns[pc], pc, &p->code[pc]);
	fuse_pairs(p->code, len);
	/* A program the JIT cannot take (another architecture, no executable
	 * mapping) runs on the interpreter. */
	if (jit)
		(void)bpf_jit_compile(p);
	*out = p;
	return 0;
nomem:
	bpf_prog_free(p);
	snprintf(err, errlen, "out of memory loading a %u-instruction program", len);
	return -ENOMEM;
}

void bpf_prog_free(struct bpf_prog *prog)
{
	if (!prog)
		return;
	bpf_jit_free(prog);
	free(prog->insns);
	free(prog->code);
	free(prog);
}

/* ---- packet access ---- */

/* Resolves a load of `size` bytes at signed offset off to a data offset, or
 * -1 for a fault (bpf_skb_load_helper_convert_offset, then bounds). Bytes
 * past the capture are absent here, so they fault like bytes past len. */
static int64_t load_off(const struct bpf_skb *skb, int32_t off, uint32_t size)
{
	int64_t at;

	if (off >= 0)
		at = off;
	else if (off >= SKF_NET_OFF)
		at = (int64_t)skb->net_off + (off - SKF_NET_OFF);
	else if (off >= SKF_LL_OFF)
		at = off - SKF_LL_OFF;
	else
		return -1;
	if (at + size > skb->caplen || at + size > skb->len)
		return -1;
	return at;
}

static inline uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint32_t get16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

/* nla_find over [start, end) of the frame, host (little-endian) order as
 * netlink is on x86. Returns the attribute's offset or 0. */
static uint32_t nla_find_at(const struct bpf_skb *skb, uint32_t start, int64_t rem,
			    uint32_t type)
{
	uint32_t at = start;

	while (rem >= 4) {
		const uint8_t *p = skb->data + at;
		uint16_t nla_len = (uint16_t)(p[0] | p[1] << 8);
		uint16_t nla_type = (uint16_t)(p[2] | p[3] << 8) & 0x3fff;
		uint32_t step = (nla_len + 3u) & ~3u;

		if (nla_len < 4 || nla_len > rem)
			return 0;
		if (nla_type == type)
			return at;
		at += step;
		rem -= step;
	}
	return 0;
}

/* SKF_AD_NLATTR / NLATTR_NEST. *fault is set where 3.13 ends the program
 * (current kernels give A = 0 instead). */
static uint32_t anc_nlattr(const struct bpf_skb *skb, uint32_t A, uint32_t X, int nest,
			   int *fault)
{
	uint32_t len = skb->caplen < skb->len ? skb->caplen : skb->len;

	if (len < 4)
		return 0;
	if (A > len - 4) {
		*fault = 1;
		return 0;
	}
	if (!nest)
		return nla_find_at(skb, A, (int64_t)len - A, X);
	{
		const uint8_t *p = skb->data + A;
		uint16_t nla_len = (uint16_t)(p[0] | p[1] << 8);

		if (nla_len > len - A) {
			*fault = 1;
			return 0;
		}
		return nla_find_at(skb, A + 4, (int64_t)nla_len - 4, X);
	}
}

/* __skb_get_poff over the flow dissector: the payload offset of the
 * transport layer, 0 when the dissector gives up. */
static uint32_t anc_poff(const struct bpf_skb *skb)
{
	const uint8_t *d = skb->data;
	uint32_t cap = skb->caplen < skb->len ? skb->caplen : skb->len;
	uint32_t nh = skb->net_off;
	uint16_t proto = skb->protocol;
	uint8_t ip_proto;
	uint32_t poff;

again:
	switch (proto) {
	case 0x0800:
	ip:
		if (nh + 20 > cap || (d[nh] & 0xf) < 5)
			return 0;
		/* a fragment (MF or offset) carries no transport header */
		ip_proto = (get16(d + nh + 6) & 0x3fff) ? 0 : d[nh + 9];
		nh += (d[nh] & 0xf) * 4u;
		break;
	case 0x86dd:
	ipv6:
		if (nh + 40 > cap)
			return 0;
		ip_proto = d[nh + 6];
		nh += 40;
		break;
	case 0x8100:
	case 0x88a8:
		if (nh + 4 > cap)
			return 0;
		proto = (uint16_t)get16(d + nh + 2);
		nh += 4;
		goto again;
	case 0x8864: /* PPPoE session: 6-byte header, 2-byte PPP protocol */
		if (nh + 8 > cap)
			return 0;
		switch (get16(d + nh + 6)) {
		case 0x0021: proto = 0x0800; break;
		case 0x0057: proto = 0x86dd; break;
		default: return 0;
		}
		nh += 8;
		goto again;
	default:
		return 0;
	}
	switch (ip_proto) {
	case 47: { /* GRE version 0 without routing: look inside */
		uint16_t flags;

		if (nh + 4 > cap)
			return 0;
		flags = (uint16_t)get16(d + nh);
		if (flags & (0x0007 | 0x4000))
			break;
		proto = (uint16_t)get16(d + nh + 2);
		nh += 4;
		nh += (flags & 0x8000) ? 4 : 0;
		nh += (flags & 0x2000) ? 4 : 0;
		nh += (flags & 0x1000) ? 4 : 0;
		if (proto == 0x6558) { /* transparent Ethernet bridging */
			if (nh + 14 > cap)
				return 0;
			proto = (uint16_t)get16(d + nh + 12);
			nh += 14;
		}
		goto again;
	}
	case 4:
		proto = 0x0800;
		goto ip;
	case 41:
		proto = 0x86dd;
		goto ipv6;
	default:
		break;
	}
	poff = nh;
	switch (ip_proto) {
	case 6: /* TCP: the header length from doff, at least 20 */
		if (nh + 13 > cap)
			return poff;
		poff += (d[nh + 12] >> 4) * 4u < 20 ? 20 : (d[nh + 12] >> 4) * 4u;
		break;
	case 17: case 136: case 1: case 58: case 2:
		poff += 8; /* UDP, UDP-Lite, ICMP, ICMPv6, IGMP */
		break;
	case 33: case 132:
		poff += 12; /* DCCP, SCTP */
		break;
	default:
		break;
	}
	return poff;
}

/* ---- what JITed code calls ---- */

int64_t bpf_jit_load(const struct bpf_skb *skb, uint32_t off, uint32_t size)
{
	int64_t at = load_off(skb, (int32_t)off, size);

	if (at < 0)
		return -1;
	return size == 4 ? get32(skb->data + at)
	       : size == 2 ? get16(skb->data + at) : skb->data[at];
}

int64_t bpf_jit_anc(const struct bpf_skb *skb, uint32_t A, uint32_t X, uint32_t which)
{
	int fault = 0;
	uint32_t v;

	switch (which & 0xffff) {
	case SKF_AD_NLATTR:
	case SKF_AD_NLATTR_NEST:
		v = anc_nlattr(skb, A, X, (which & 0xffff) == SKF_AD_NLATTR_NEST, &fault);
		if (fault && (which >> 16) == BPF_KERNEL_3_13)
			return -1;
		return v;
	case SKF_AD_PAY_OFFSET:
		return anc_poff(skb);
	case SKF_AD_RANDOM:
		return skb->random ? skb->random(skb->random_arg) : 0;
	default:
		return 0;
	}
}

/* ---- the interpreter ---- */

struct run_ctx {
	bpf_tracer tracer;
	void *arg;
	uint16_t mem_valid;
};

static void trace_step(const struct bpf_prog *prog, struct run_ctx *c, uint32_t pc,
		       uint32_t A, uint32_t X, const uint32_t *M)
{
	struct bpf_trace_state st = {.pc = pc, .A = A, .X = X, .mem_valid = c->mem_valid};

	memcpy(st.M, M, sizeof(st.M));
	c->tracer(prog, &st, c->arg);
}

static uint32_t trace_end(const struct bpf_prog *prog, struct run_ctx *c, uint32_t A,
			  uint32_t X, const uint32_t *M, uint32_t ret, const char *why)
{
	struct bpf_trace_state st = {.pc = prog->len, .A = A, .X = X, .done = 1,
				     .fault = why != NULL, .fault_why = why, .ret = ret,
				     .mem_valid = c->mem_valid};

	memcpy(st.M, M, sizeof(st.M));
	c->tracer(prog, &st, c->arg);
	return ret;
}

#define TRACE 0
#define RUN_FN run_fast
#include "bpf_run_loop.h"
#undef TRACE
#undef RUN_FN
#define TRACE 1
#define RUN_FN run_traced
#include "bpf_run_loop.h"
#undef TRACE
#undef RUN_FN

uint32_t bpf_prog_run_interp(const struct bpf_prog *prog, const struct bpf_skb *skb)
{
	return run_fast(prog, skb, NULL);
}

uint32_t bpf_prog_run_traced(const struct bpf_prog *prog, const struct bpf_skb *skb,
			     bpf_tracer tracer, void *arg)
{
	struct run_ctx c = {.tracer = tracer, .arg = arg};

	return run_traced(prog, skb, &c);
}
