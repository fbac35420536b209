/* bpf_jit.c - classic BPF compiled to x86-64 machine code, with the
 * interpreter's (bpf_run.c) semantics to the bit: A and X start at 0, a
 * packet load past the bytes present ends the program with 0, X = 0 in
 * div/mod ends it with 0, shifts by X use X & 31, scratch cells are the
 * stack's (the checker proves each read follows a store).
 *
 * Registers: A in eax, X in ecx (shifts take cl), the skb in rdi, the frame
 * bytes in rsi, min(caplen, len) in r8d; edx and r9 are scratch. M[]
 * lives in the red zone below rsp, or in a 72-byte frame when the program
 * calls a helper (loads through SKF_NET_OFF/SKF_LL_OFF and the few ancillary
 * loads that are not a field of the skb: NLATTR, NLATTR_NEST, PAY_OFFSET,
 * RANDOM), which keeps rsp 16-byte aligned at the call.
 *
 * Jumps are short (rel8) where their target is near: the code is laid out
 * again until no jump shrinks (a jump once short stays short, so it ends),
 * then emitted into a fresh read-write mapping that becomes read-exec
 * before it runs (never writable and executable at once). */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bpf.h"
#include "bpf_jit.h"

#if defined(__x86_64__) && defined(__linux__) && !defined(TCSIM_NO_JIT)
#include <sys/mman.h>

enum { RAX = 0, RCX = 1, RDX = 2, RSP = 4, RSI = 6, RDI = 7, R8 = 8, R9 = 9 };
enum { CC_B = 2, CC_AE = 3, CC_E = 4, CC_NE = 5, CC_A = 7, CC_S = 8, CC_NS = 9, JMP = -1 };
#define FRAME 72   /* M[16] plus padding: rsp 16-aligned inside */
#define UNSET UINT32_MAX
/* Per instruction: its bounds check is not proven by every path to it
 * already; it is a load whose value only the jump after it tests, which
 * then compares the loaded bytes with the constant byte-swapped (F_FUSED,
 * the jump F_SKIP); it is an [x + k] load whose X + k can neither wrap nor
 * turn negative on any path to it (F_SMALL_X: X set by msh or a small
 * constant), so it needs no helper for negative offsets. */
enum { F_CHECK = 1, F_FUSED = 2, F_SKIP = 4, F_SMALL_X = 8 };

struct jit {
	const struct bpf_prog *prog;
	uint8_t *buf;       /* NULL while laying out */
	uint32_t pos;
	uint32_t *addr;     /* this pass: start of insn i; [len] the fault exit */
	uint32_t *prev;     /* the previous pass's addr */
	uint32_t *site_at;  /* this pass: where each jump starts */
	uint32_t *site_prev;
	uint8_t *is_short;  /* per jump, once set never cleared */
	uint32_t nsites, site;
	int decide;         /* prev/site_prev hold a whole pass */
	int changed;
	int frame;          /* 1: sub rsp, FRAME (the program calls helpers) */
	int32_t mbase;      /* M[0] relative to rsp */
	uint32_t *fault_to; /* per insn: where a fault jumps (a later ret #0) */
	uint8_t *flags;     /* per insn: F_* */
	int zero_a, zero_x; /* A or X may be read before the program sets it */
	int packet;         /* the program reads the frame */
};

/* ---- bytes ---- */

static void b1(struct jit *j, uint32_t v)
{
	if (j->buf)
		j->buf[j->pos] = (uint8_t)v;
	j->pos++;
}

static void b4(struct jit *j, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b1(j, v >> (8 * i));
}

static void rex(struct jit *j, int w, int r, int x, int b)
{
	uint32_t v = 0x40 | (w ? 8 : 0) | (r & 8 ? 4 : 0) | (x & 8 ? 2 : 0) | (b & 8 ? 1 : 0);

	if (v != 0x40)
		b1(j, v);
}

static void opcode(struct jit *j, uint32_t op)
{
	if (op > 0xff)
		b1(j, op >> 8);
	b1(j, op & 0xff);
}

/* op reg, rm between registers. */
static void op_rr(struct jit *j, int w, uint32_t op, int reg, int rm)
{
	rex(j, w, reg, 0, rm);
	opcode(j, op);
	b1(j, 0xc0 | (reg & 7) << 3 | (rm & 7));
}

/* op reg, [base + disp]. */
static void op_rm(struct jit *j, int w, uint32_t op, int reg, int base, int32_t disp)
{
	int short_disp = disp >= -128 && disp <= 127;

	rex(j, w, reg, 0, base);
	opcode(j, op);
	b1(j, (short_disp ? 0x40 : 0x80) | (reg & 7) << 3 | (base & 7));
	if ((base & 7) == RSP)
		b1(j, 0x24);
	if (short_disp)
		b1(j, (uint32_t)disp & 0xff);
	else
		b4(j, (uint32_t)disp);
}

/* op reg, [base + index + disp]. */
static void op_ri(struct jit *j, uint32_t op, int reg, int base, int index, int32_t disp)
{
	int mod = disp == 0 && (base & 7) != 5 ? 0 : disp >= -128 && disp <= 127 ? 1 : 2;

	rex(j, 0, reg, index, base);
	opcode(j, op);
	b1(j, (uint32_t)mod << 6 | (reg & 7) << 3 | 4);
	b1(j, (index & 7) << 3 | (base & 7));
	if (mod == 1)
		b1(j, (uint32_t)disp & 0xff);
	else if (mod == 2)
		b4(j, (uint32_t)disp);
}

/* add/or/and/sub/xor/cmp (digit 0/1/4/5/6/7) r32, imm. */
static void alu_ri(struct jit *j, int digit, int reg, uint32_t imm)
{
	int small = (int32_t)imm >= -128 && (int32_t)imm <= 127;

	rex(j, 0, 0, 0, reg);
	b1(j, small ? 0x83 : 0x81);
	b1(j, 0xc0 | digit << 3 | (reg & 7));
	if (small)
		b1(j, imm & 0xff);
	else
		b4(j, imm);
}

static void mov_ri(struct jit *j, int reg, uint32_t imm)
{
	if (imm == 0) {
		op_rr(j, 0, 0x31, reg, reg); /* xor */
		return;
	}
	rex(j, 0, 0, 0, reg);
	b1(j, 0xb8 + (reg & 7));
	b4(j, imm);
}

static void shift_ri(struct jit *j, int digit, int reg, uint32_t n)
{
	if (n == 0)
		return;
	rex(j, 0, 0, 0, reg);
	b1(j, 0xc1);
	b1(j, 0xc0 | digit << 3 | (reg & 7));
	b1(j, n);
}

/* eax = big-endian 16/32-bit value already loaded little-endian. */
static void swap_a(struct jit *j, uint32_t size)
{
	if (size == 1)
		return;
	b1(j, 0x0f);
	b1(j, 0xc8); /* bswap eax */
	if (size == 2)
		shift_ri(j, 5, RAX, 16);
}

/* ---- jumps ---- */

/* A jump (cc, or JMP) to addr index target, short when the previous
 * layout proves it reaches. */
static void jump(struct jit *j, int cc, uint32_t target)
{
	uint32_t s = j->site++;
	int64_t rel;

	if (s >= j->nsites)
		abort(); /* nsites bounds every instruction's jumps */
	if (j->decide && !j->is_short[s] &&
	    (int64_t)j->prev[target] - (j->site_prev[s] + 2) <= 127) {
		j->is_short[s] = 1;
		j->changed = 1;
	}
	j->site_at[s] = j->pos;
	if (j->is_short[s]) {
		rel = (int64_t)j->prev[target] - (j->pos + 2);
		if (j->buf && (rel < 0 || rel > 127))
			abort(); /* the layout converged: cannot happen */
		b1(j, cc == JMP ? 0xeb : 0x70 + (uint32_t)cc);
		b1(j, (uint32_t)rel & 0xff);
		return;
	}
	rel = (int64_t)j->prev[target] - (j->pos + (cc == JMP ? 5 : 6));
	if (cc == JMP) {
		b1(j, 0xe9);
	} else {
		b1(j, 0x0f);
		b1(j, 0x80 + (uint32_t)cc);
	}
	b4(j, (uint32_t)rel);
}

/* A short jump over code emitted next; fix_over() patches it. */
static uint32_t over(struct jit *j, int cc)
{
	b1(j, cc == JMP ? 0xeb : 0x70 + (uint32_t)cc);
	b1(j, 0);
	return j->pos;
}

static void fix_over(struct jit *j, uint32_t from)
{
	if (j->pos - from > 127)
		abort(); /* the code jumped over is a few dozen bytes */
	if (j->buf)
		j->buf[from - 1] = (uint8_t)(j->pos - from);
}

/* Branch on cc to t, else to f; the next instruction is pc + 1. */
static void branch(struct jit *j, uint32_t pc, int cc, uint32_t t, uint32_t f)
{
	if (t == f) {
		if (t != pc + 1)
			jump(j, JMP, t);
	} else if (t == pc + 1) {
		jump(j, cc ^ 1, f);
	} else {
		jump(j, cc, t);
		if (f != pc + 1)
			jump(j, JMP, f);
	}
}

/* ---- pieces ---- */

static void ret(struct jit *j)
{
	if (j->frame) {
		b1(j, 0x48);
		alu_ri(j, 0, RSP, FRAME); /* add rsp */
	}
	b1(j, 0xc3);
}

/* How a helper gets its arguments after skb (already in rdi). */
enum helper_args {
	ARGS_LOAD_EDX, /* bpf_jit_load(skb, edx, a) */
	ARGS_LOAD_K,   /* bpf_jit_load(skb, a, b) */
	ARGS_ANC,      /* bpf_jit_anc(skb, A, X, a) */
};

/* Calls fn with every live register saved; the result lands in r9, and a
 * negative one faults. */
static void call_helper(struct jit *j, uint32_t pc, uintptr_t fn, enum helper_args how,
			uint32_t a, uint32_t b)
{
	static const int saved[] = {RAX, RCX, RDX, RSI, RDI, R8}; /* 48 bytes */

	for (int i = 0; i < 6; i++) {
		rex(j, 0, 0, 0, saved[i]);
		b1(j, 0x50 + (saved[i] & 7)); /* push */
	}
	switch (how) {
	case ARGS_LOAD_EDX:
		op_rr(j, 0, 0x89, RDX, RSI); /* mov esi, edx */
		mov_ri(j, RDX, a);
		break;
	case ARGS_LOAD_K:
		mov_ri(j, RSI, a);
		mov_ri(j, RDX, b);
		break;
	case ARGS_ANC:
		op_rr(j, 0, 0x89, RAX, RSI);
		op_rr(j, 0, 0x89, RCX, RDX);
		mov_ri(j, RCX, a);
		break;
	}
	b1(j, 0x48);
	b1(j, 0xb8); /* mov rax, imm64 */
	b4(j, (uint32_t)fn);
	b4(j, (uint32_t)((uint64_t)fn >> 32));
	b1(j, 0xff);
	b1(j, 0xd0); /* call rax */
	op_rr(j, 1, 0x89, RAX, R9);
	for (int i = 5; i >= 0; i--) {
		rex(j, 0, 0, 0, saved[i]);
		b1(j, 0x58 + (saved[i] & 7)); /* pop */
	}
	op_rr(j, 1, 0x85, R9, R9); /* test r9, r9 */
	jump(j, CC_S, j->fault_to[pc]);
}

/* movzx/mov eax <- [base + disp] of size 1, 2 or 4 (no swap). */
static void load_field(struct jit *j, int reg, int base, int32_t disp, uint32_t size)
{
	op_rm(j, 0, size == 4 ? 0x8b : size == 2 ? 0x0fb7 : 0x0fb6, reg, base, disp);
}

static void load_neg(struct jit *j, uint32_t pc, uint32_t k, uint32_t size)
{
	call_helper(j, pc, (uintptr_t)bpf_jit_load, ARGS_LOAD_K, k, size);
	op_rr(j, 0, 0x89, R9, RAX); /* mov eax, r9d */
}

static void emit_anc(struct jit *j, uint32_t pc, uint32_t k)
{
	uint32_t n = k - (uint32_t)SKF_AD_OFF;

#define OFF(f) ((int32_t)offsetof(struct bpf_skb, f))
	switch (n) {
	case SKF_AD_PROTOCOL: load_field(j, RAX, RDI, OFF(protocol), 2); break;
	case SKF_AD_PKTTYPE: load_field(j, RAX, RDI, OFF(pkttype), 1); break;
	case SKF_AD_IFINDEX: load_field(j, RAX, RDI, OFF(ifindex), 4); break;
	case SKF_AD_MARK: load_field(j, RAX, RDI, OFF(mark), 4); break;
	case SKF_AD_QUEUE: load_field(j, RAX, RDI, OFF(queue_mapping), 4); break;
	case SKF_AD_HATYPE: load_field(j, RAX, RDI, OFF(hatype), 4); break;
	case SKF_AD_RXHASH: load_field(j, RAX, RDI, OFF(hash), 4); break;
	case SKF_AD_CPU: load_field(j, RAX, RDI, OFF(cpu), 4); break;
	case SKF_AD_ALU_XOR_X: op_rr(j, 0, 0x31, RCX, RAX); break;
	case SKF_AD_VLAN_TAG:
	case SKF_AD_VLAN_TPID:
		/* the field, or 0 without a tag: cmove from a zeroed edx */
		load_field(j, RAX, RDI, n == SKF_AD_VLAN_TAG ? OFF(vlan_tci) : OFF(vlan_proto), 2);
		if (n == SKF_AD_VLAN_TAG && j->prog->kernel == BPF_KERNEL_3_13)
			alu_ri(j, 4, RAX, ~0x1000u);
		mov_ri(j, RDX, 0);
		op_rm(j, 0, 0x80, 7, RDI, OFF(vlan_present)); /* cmp byte [..], 0 */
		b1(j, 0);
		op_rr(j, 0, 0x0f44, RAX, RDX); /* cmove eax, edx */
		break;
	case SKF_AD_VLAN_TAG_PRESENT:
		op_rm(j, 0, 0x80, 7, RDI, OFF(vlan_present));
		b1(j, 0);
		b1(j, 0x0f);
		b1(j, 0x95);
		b1(j, 0xc0); /* setne al */
		op_rr(j, 0, 0x0fb6, RAX, RAX); /* movzx eax, al */
		break;
	default: /* NLATTR, NLATTR_NEST, PAY_OFFSET, RANDOM */
		call_helper(j, pc, (uintptr_t)bpf_jit_anc, ARGS_ANC,
			    n | (uint32_t)j->prog->kernel << 16, 0);
		op_rr(j, 0, 0x89, R9, RAX);
		break;
	}
#undef OFF
}

static uint32_t size_of(uint16_t code)
{
	return BPF_SIZE(code) == BPF_W ? 4 : BPF_SIZE(code) == BPF_H ? 2 : 1;
}

/* The flags of A against k for jeq, jgt, jge (cmp) or jset (test). */
static void compare_k(struct jit *j, uint32_t op, uint32_t k)
{
	if (op == BPF_JSET) {
		b1(j, 0xa9); /* test eax, imm32 */
		b4(j, k);
	} else if (k == 0) {
		op_rr(j, 0, 0x85, RAX, RAX); /* test: the flags of cmp 0 */
	} else {
		alu_ri(j, 7, RAX, k);
	}
}

/* The jeq or jset after a load whose value nothing else reads (F_FUSED):
 * A holds the bytes as loaded, tested against the constant swapped. */
static void fused_jump(struct jit *j, uint32_t pc, uint32_t size)
{
	const struct sock_filter *jmp = &j->prog->insns[pc + 1];
	uint32_t v = size == 4 ? __builtin_bswap32(jmp->k) : __builtin_bswap16((uint16_t)jmp->k);

	if (size == 2 && jmp->k > 0xffff) /* a halfword never equals it */
		v = jmp->code == (BPF_JMP | BPF_JEQ | BPF_K) ? 0xffffffffu : v;
	compare_k(j, BPF_OP(jmp->code), v);
	branch(j, pc + 1, BPF_OP(jmp->code) == BPF_JEQ ? CC_E : CC_NE, pc + 2 + jmp->jt,
	       pc + 2 + jmp->jf);
}

/* A = [k], k < 2^31. */
static void load_abs(struct jit *j, uint32_t pc, uint32_t k, uint32_t size)
{
	if ((j->flags[pc] & F_CHECK)) {
		alu_ri(j, 7, R8, k + size); /* cmp r8d, k + size */
		jump(j, CC_B, j->fault_to[pc]);
	}
	load_field(j, RAX, RSI, (int32_t)k, size);
	if (j->flags[pc] & F_FUSED)
		fused_jump(j, pc, size);
	else
		swap_a(j, size);
}

/* A = [X + k]: the offset wraps at 32 bits, then counts as signed. */
static void load_ind(struct jit *j, uint32_t pc, uint32_t k, uint32_t size)
{
	uint32_t neg, done;

	if (j->flags[pc] & F_SMALL_X) { /* 0 <= X + k < 2^31 - 4 */
		op_rm(j, 0, 0x8d, R9, RCX, (int32_t)(k + size)); /* lea r9d, [rcx + k + size] */
		op_rr(j, 0, 0x39, R8, R9);                       /* cmp r9d, r8d */
		jump(j, CC_A, j->fault_to[pc]);
		op_ri(j, size == 4 ? 0x8b : size == 2 ? 0x0fb7 : 0x0fb6, RAX, RSI, RCX, (int32_t)k);
		if (j->flags[pc] & F_FUSED)
			fused_jump(j, pc, size);
		else
			swap_a(j, size);
		return;
	}

	op_rm(j, 0, 0x8d, RDX, RCX, (int32_t)k); /* lea edx, [rcx + k] */
	op_rr(j, 0, 0x85, RDX, RDX);
	neg = over(j, CC_S);
	op_rm(j, 0, 0x8d, R9, RDX, (int32_t)size); /* lea r9d, [rdx + size] */
	op_rr(j, 0, 0x39, R8, R9);                 /* cmp r9d, r8d */
	jump(j, CC_A, j->fault_to[pc]);
	op_ri(j, size == 4 ? 0x8b : size == 2 ? 0x0fb7 : 0x0fb6, RAX, RSI, RDX, 0);
	swap_a(j, size);
	done = over(j, JMP);
	fix_over(j, neg);
	call_helper(j, pc, (uintptr_t)bpf_jit_load, ARGS_LOAD_EDX, size, 0);
	op_rr(j, 0, 0x89, R9, RAX);
	fix_over(j, done);
}

/* X = 4 * ([k] & 0xf). */
static void load_msh(struct jit *j, uint32_t pc, uint32_t k)
{
	if (k >= 0x80000000u) {
		call_helper(j, pc, (uintptr_t)bpf_jit_load, ARGS_LOAD_K, k, 1);
		op_rr(j, 0, 0x89, R9, RCX);
	} else {
		if ((j->flags[pc] & F_CHECK)) {
			alu_ri(j, 7, R8, k + 1);
			jump(j, CC_B, j->fault_to[pc]);
		}
		load_field(j, RCX, RSI, (int32_t)k, 1);
	}
	alu_ri(j, 4, RCX, 0xf);
	shift_ri(j, 4, RCX, 2);
}

static void div_mod(struct jit *j, uint32_t pc, int x, uint32_t k, int mod)
{
	int divisor = RCX;

	if (!x && (k & (k - 1)) == 0) { /* a power of two */
		if (mod)
			alu_ri(j, 4, RAX, k - 1);
		else
			shift_ri(j, 5, RAX, (uint32_t)__builtin_ctz(k));
		return;
	}
	if (x) {
		op_rr(j, 0, 0x85, RCX, RCX);
		jump(j, CC_E, j->fault_to[pc]);
	} else {
		mov_ri(j, R9, k);
		divisor = R9;
	}
	mov_ri(j, RDX, 0);
	rex(j, 0, 0, 0, divisor);
	b1(j, 0xf7);
	b1(j, 0xc0 | 6 << 3 | (divisor & 7)); /* div */
	if (mod)
		op_rr(j, 0, 0x89, RDX, RAX);
}

static void alu(struct jit *j, uint32_t pc, const struct sock_filter *in)
{
	int x = BPF_SRC(in->code) == BPF_X;
	static const int digit[16] = {[BPF_ADD >> 4] = 0, [BPF_OR >> 4] = 1, [BPF_AND >> 4] = 4,
				      [BPF_SUB >> 4] = 5, [BPF_XOR >> 4] = 6};
	static const uint8_t rr[16] = {[BPF_ADD >> 4] = 0x01, [BPF_OR >> 4] = 0x09,
				       [BPF_AND >> 4] = 0x21, [BPF_SUB >> 4] = 0x29,
				       [BPF_XOR >> 4] = 0x31};
	uint32_t op = BPF_OP(in->code);

	switch (op) {
	case BPF_ADD: case BPF_SUB: case BPF_OR: case BPF_AND: case BPF_XOR:
		if (x)
			op_rr(j, 0, rr[op >> 4], RCX, RAX);
		else
			alu_ri(j, digit[op >> 4], RAX, in->k);
		break;
	case BPF_MUL:
		if (x) {
			op_rr(j, 0, 0x0faf, RAX, RCX); /* imul eax, ecx */
		} else {
			int small = (int32_t)in->k >= -128 && (int32_t)in->k <= 127;

			op_rr(j, 0, small ? 0x6b : 0x69, RAX, RAX); /* imul eax, eax, k */
			if (small)
				b1(j, in->k & 0xff);
			else
				b4(j, in->k);
		}
		break;
	case BPF_DIV:
	case BPF_MOD:
		div_mod(j, pc, x, in->k, op == BPF_MOD);
		break;
	case BPF_LSH:
	case BPF_RSH:
		if (x)
			op_rr(j, 0, 0xd3, op == BPF_LSH ? 4 : 5, RAX); /* shl/shr eax, cl */
		else /* only 3.13 lets k >= 32 through; x86 masks the count */
			shift_ri(j, op == BPF_LSH ? 4 : 5, RAX, in->k & 31);
		break;
	default: /* NEG */
		op_rr(j, 0, 0xf7, 3, RAX);
		break;
	}
}

static void emit_insn(struct jit *j, uint32_t pc)
{
	const struct sock_filter *in = &j->prog->insns[pc];
	uint16_t c = in->code;
	uint32_t k = in->k, t = pc + 1 + in->jt, f = pc + 1 + in->jf;
	static const int jcc[16] = {[BPF_JEQ >> 4] = CC_E, [BPF_JGT >> 4] = CC_A,
				    [BPF_JGE >> 4] = CC_AE, [BPF_JSET >> 4] = CC_NE};

	switch (BPF_CLASS(c)) {
	case BPF_LD:
		switch (BPF_MODE(c)) {
		case BPF_IMM: mov_ri(j, RAX, k); break;
		case BPF_MEM: op_rm(j, 0, 0x8b, RAX, RSP, j->mbase + 4 * (int32_t)k); break;
		case BPF_LEN: load_field(j, RAX, RDI, offsetof(struct bpf_skb, len), 4); break;
		case BPF_IND: load_ind(j, pc, k, size_of(c)); break;
		default: /* ABS */
			if (k >= (uint32_t)SKF_AD_OFF)
				emit_anc(j, pc, k);
			else if (k >= 0x80000000u)
				load_neg(j, pc, k, size_of(c));
			else
				load_abs(j, pc, k, size_of(c));
			break;
		}
		break;
	case BPF_LDX:
		switch (BPF_MODE(c)) {
		case BPF_IMM: mov_ri(j, RCX, k); break;
		case BPF_MEM: op_rm(j, 0, 0x8b, RCX, RSP, j->mbase + 4 * (int32_t)k); break;
		case BPF_LEN: load_field(j, RCX, RDI, offsetof(struct bpf_skb, len), 4); break;
		default: load_msh(j, pc, k); break;
		}
		break;
	case BPF_ST:
	case BPF_STX:
		op_rm(j, 0, 0x89, BPF_CLASS(c) == BPF_ST ? RAX : RCX, RSP, j->mbase + 4 * (int32_t)k);
		break;
	case BPF_ALU:
		alu(j, pc, in);
		break;
	case BPF_JMP:
		if (BPF_OP(c) == BPF_JA) {
			if (k != 0)
				jump(j, JMP, pc + 1 + k);
			break;
		}
		if (BPF_SRC(c) == BPF_X)
			op_rr(j, 0, BPF_OP(c) == BPF_JSET ? 0x85 : 0x39, RCX, RAX);
		else
			compare_k(j, BPF_OP(c), k);
		branch(j, pc, jcc[BPF_OP(c) >> 4], t, f);
		break;
	case BPF_RET:
		if (BPF_RVAL(c) == BPF_K)
			mov_ri(j, RAX, k);
		ret(j);
		break;
	default: /* MISC */
		if (BPF_MISCOP(c) == BPF_TXA)
			op_rr(j, 0, 0x89, RCX, RAX);
		else
			op_rr(j, 0, 0x89, RAX, RCX);
		break;
	}
}

/* ---- analysis ---- */

static int needs_helper(const struct sock_filter *in)
{
	uint16_t c = in->code;
	uint32_t n = in->k - (uint32_t)SKF_AD_OFF;

	if (c == (BPF_LD | BPF_W | BPF_IND) || c == (BPF_LD | BPF_H | BPF_IND) ||
	    c == (BPF_LD | BPF_B | BPF_IND))
		return 1;
	if (c == (BPF_LDX | BPF_B | BPF_MSH))
		return in->k >= 0x80000000u;
	if (BPF_CLASS(c) != BPF_LD || BPF_MODE(c) != BPF_ABS || in->k < 0x80000000u)
		return 0;
	if (in->k < (uint32_t)SKF_AD_OFF)
		return 1;
	return n == SKF_AD_NLATTR || n == SKF_AD_NLATTR_NEST || n == SKF_AD_PAY_OFFSET ||
	       n == SKF_AD_RANDOM;
}

/* The end of the constant-offset load at pc, or 0 for another insn. */
static uint32_t abs_end(const struct sock_filter *in)
{
	if (BPF_CLASS(in->code) == BPF_LD && BPF_MODE(in->code) == BPF_ABS && in->k < 0x80000000u)
		return in->k + size_of(in->code);
	if (in->code == (BPF_LDX | BPF_B | BPF_MSH) && in->k < 0x80000000u)
		return in->k + 1;
	return 0;
}

/* What an instruction does with A and X: bit 0 reads A, 1 writes A,
 * 2 reads X, 3 writes X. */
enum { RD_A = 1, WR_A = 2, RD_X = 4, WR_X = 8 };

static int uses(const struct sock_filter *in)
{
	uint16_t c = in->code;
	uint32_t n = in->k - (uint32_t)SKF_AD_OFF;
	int x = BPF_SRC(c) == BPF_X;

	switch (BPF_CLASS(c)) {
	case BPF_LD:
		if (BPF_MODE(c) == BPF_IND)
			return WR_A | RD_X;
		if (BPF_MODE(c) == BPF_ABS && in->k >= (uint32_t)SKF_AD_OFF &&
		    (n == SKF_AD_NLATTR || n == SKF_AD_NLATTR_NEST || n == SKF_AD_ALU_XOR_X))
			return RD_A | WR_A | RD_X;
		return WR_A;
	case BPF_LDX: return WR_X;
	case BPF_ST: return RD_A;
	case BPF_STX: return RD_X;
	case BPF_ALU: return RD_A | WR_A | (x ? RD_X : 0);
	case BPF_JMP:
		if (BPF_OP(c) == BPF_JA)
			return 0;
		return RD_A | (x ? RD_X : 0);
	case BPF_RET: return BPF_RVAL(c) == BPF_A ? RD_A : 0;
	default: return BPF_MISCOP(c) == BPF_TXA ? RD_X | WR_A : RD_A | WR_X;
	}
}

/* Successors of pc: returns how many (0..2) in s. */
static int succs(const struct sock_filter *in, uint32_t pc, uint32_t s[2])
{
	if (BPF_CLASS(in->code) == BPF_RET)
		return 0;
	if (in->code == (BPF_JMP | BPF_JA)) {
		s[0] = pc + 1 + in->k;
		return 1;
	}
	if (BPF_CLASS(in->code) == BPF_JMP) {
		s[0] = pc + 1 + in->jt;
		s[1] = pc + 1 + in->jf;
		return 2;
	}
	s[0] = pc + 1;
	return 1;
}

/* One pass forward (jumps only go forward, so an insn's predecessors all
 * come first): which bounds checks every path to them has made already,
 * which insns are jump targets, whether X is ever read. One pass
 * backward: where A is live, so a load that only the next jump tests may
 * keep its bytes in network order (F_FUSED). And where each insn's faults
 * go: the nearest later `ret #0` if any, so the jump is short, else the
 * shared fault exit. */
static int analyse(struct jit *j)
{
	const struct sock_filter *ins = j->prog->insns;
	uint32_t len = j->prog->len;
	uint32_t *known = malloc(len * sizeof(*known));
	uint32_t *xmax = calloc(len, sizeof(*xmax)); /* X <= xmax on entry */
	uint8_t *live = calloc(len, 1), *target = calloc(len, 1);
	uint32_t next_ret0 = len, s[2];

	if (!known || !xmax || !live || !target) {
		free(known);
		free(xmax);
		free(live);
		free(target);
		return -ENOMEM;
	}
	for (uint32_t pc = 0; pc < len; pc++)
		known[pc] = pc ? UNSET : 0;
	j->zero_a = (uses(&ins[0]) & (RD_A | WR_A)) != WR_A;
	for (uint32_t pc = 0; pc < len; pc++) {
		const struct sock_filter *in = &ins[pc];
		uint32_t cur = known[pc] == UNSET ? 0 : known[pc];
		uint32_t end = abs_end(in);
		uint32_t x = known[pc] == UNSET ? UINT32_MAX : xmax[pc];
		int n = succs(in, pc, s);

		if (end > cur) {
			j->flags[pc] |= F_CHECK;
			cur = end;
		}
		if (end || BPF_MODE(in->code) == BPF_IND)
			j->packet = 1;
		if (BPF_CLASS(in->code) == BPF_LD && BPF_MODE(in->code) == BPF_IND &&
		    (uint64_t)x + in->k + 4 < 0x80000000u)
			j->flags[pc] |= F_SMALL_X;
		if (needs_helper(in) && !(j->flags[pc] & F_SMALL_X))
			j->frame = 1;
		if (in->code == (BPF_LDX | BPF_B | BPF_MSH))
			x = 60;
		else if (in->code == (BPF_LDX | BPF_IMM))
			x = in->k;
		else if (uses(in) & WR_X)
			x = UINT32_MAX;
		if (uses(in) & RD_X)
			j->zero_x = 1;
		for (int i = 0; i < n; i++) {
			if (known[s[i]] == UNSET || xmax[s[i]] < x)
				xmax[s[i]] = x;
			known[s[i]] = known[s[i]] < cur ? known[s[i]] : cur;
			if (BPF_CLASS(in->code) == BPF_JMP)
				target[s[i]] = 1;
		}
	}
	for (uint32_t pc = len; pc-- > 0;) {
		const struct sock_filter *in = &ins[pc];
		int u = uses(in), n = succs(in, pc, s);
		int out = 0;

		for (int i = 0; i < n; i++)
			out |= live[s[i]];
		live[pc] = (u & RD_A) || (!(u & WR_A) && out);
		j->fault_to[pc] = next_ret0;
		if (in->code == (BPF_RET | BPF_K) && in->k == 0)
			next_ret0 = pc;
	}
	for (uint32_t pc = 0; pc + 1 < len; pc++) {
		const struct sock_filter *ld = &ins[pc], *jmp = &ins[pc + 1];

		int wide = BPF_SIZE(ld->code) != BPF_B;

		if (((wide && BPF_CLASS(ld->code) == BPF_LD && BPF_MODE(ld->code) == BPF_ABS &&
		      ld->k < 0x80000000u) ||
		     (wide && (j->flags[pc] & F_SMALL_X))) &&
		    (jmp->code == (BPF_JMP | BPF_JEQ | BPF_K) || jmp->code == (BPF_JMP | BPF_JSET | BPF_K)) &&
		    !target[pc + 1] && !live[pc + 2 + jmp->jt] && !live[pc + 2 + jmp->jf]) {
			j->flags[pc] |= F_FUSED;
			j->flags[pc + 1] |= F_SKIP;
		}
	}
	free(known);
	free(xmax);
	free(live);
	free(target);
	return 0;
}

/* ---- passes ---- */

static void emit_prog(struct jit *j)
{
	const struct bpf_prog *p = j->prog;

	j->pos = 0;
	j->site = 0;
	if (j->frame) {
		b1(j, 0x48);
		alu_ri(j, 5, RSP, FRAME); /* sub rsp */
	}
	if (j->zero_a)
		mov_ri(j, RAX, 0);
	if (j->zero_x)
		mov_ri(j, RCX, 0);
	if (j->packet) {
		op_rm(j, 1, 0x8b, RSI, RDI, offsetof(struct bpf_skb, data));
		load_field(j, R8, RDI, offsetof(struct bpf_skb, caplen), 4);
		op_rm(j, 0, 0x3b, R8, RDI, offsetof(struct bpf_skb, len)); /* cmp */
		op_rm(j, 0, 0x0f47, R8, RDI, offsetof(struct bpf_skb, len)); /* cmova */
	}
	for (uint32_t pc = 0; pc < p->len; pc++) {
		j->addr[pc] = j->pos;
		if (!(j->flags[pc] & F_SKIP))
			emit_insn(j, pc);
	}
	j->addr[p->len] = j->pos; /* the fault exit */
	mov_ri(j, RAX, 0);
	ret(j);
}

static void swap(uint32_t **a, uint32_t **b)
{
	uint32_t *t = *a;

	*a = *b;
	*b = t;
}

int bpf_jit_compile(struct bpf_prog *prog)
{
	struct jit j = {.prog = prog};
	uint32_t len = prog->len;
	size_t map = 0;
	void *mem = MAP_FAILED;
	int ret = -ENOMEM;

	j.nsites = 3 * len + 1;
	j.addr = calloc(len + 1, sizeof(*j.addr));
	j.prev = calloc(len + 1, sizeof(*j.prev));
	j.site_at = calloc(j.nsites, sizeof(*j.site_at));
	j.site_prev = calloc(j.nsites, sizeof(*j.site_prev));
	j.is_short = calloc(j.nsites, 1);
	j.fault_to = calloc(len, sizeof(*j.fault_to));
	j.flags = calloc(len, 1);
	if (!j.addr || !j.prev || !j.site_at || !j.site_prev || !j.is_short || !j.fault_to ||
	    !j.flags || analyse(&j))
		goto out;
	j.mbase = j.frame ? 0 : -4 * BPF_MEMWORDS;
	emit_prog(&j); /* every jump long */
	do {
		swap(&j.addr, &j.prev);
		swap(&j.site_at, &j.site_prev);
		j.decide = 1;
		j.changed = 0;
		emit_prog(&j);
	} while (j.changed);
	/* This layout is the previous one: emit it for real. */
	swap(&j.addr, &j.prev);
	swap(&j.site_at, &j.site_prev);
	j.decide = 0;
	map = ((size_t)j.prev[len] + 64 + 4095) & ~(size_t)4095;
	mem = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		goto out;
	j.buf = mem;
	emit_prog(&j);
	if (j.addr[len] != j.prev[len] || mprotect(mem, map, PROT_READ | PROT_EXEC)) {
		ret = -EPERM;
		goto out;
	}
	prog->jit_image = mem;
	prog->jit_size = map;
	{
		union {
			void *p;
			uint32_t (*f)(const struct bpf_skb *);
		} u = {.p = mem};

		prog->jited = u.f;
	}
	mem = MAP_FAILED;
	ret = 0;
out:
	if (mem != MAP_FAILED)
		munmap(mem, map);
	free(j.addr);
	free(j.prev);
	free(j.site_at);
	free(j.site_prev);
	free(j.is_short);
	free(j.fault_to);
	free(j.flags);
	return ret;
}

void bpf_jit_free(struct bpf_prog *prog)
{
	if (prog->jit_image)
		munmap(prog->jit_image, prog->jit_size);
	prog->jit_image = NULL;
	prog->jited = NULL;
}

#else /* not x86-64 Linux (or built with -DTCSIM_NO_JIT): the interpreter
       * runs every program */

int bpf_jit_compile(struct bpf_prog *prog)
{
	(void)prog;
	return -EOPNOTSUPP;
}

void bpf_jit_free(struct bpf_prog *prog)
{
	prog->jited = NULL;
}

#endif
