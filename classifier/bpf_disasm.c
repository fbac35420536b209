/* bpf_disasm.c - classic BPF disassembler printing the bpfc / bpf_asm syntax
 * that bpf_asm() (and, but for #rand and #vlan_tpid, bpfc) reassembles to
 * the same bytes.
 *
 * Spelling: immediates #k in decimal below 256, else hex; packet offsets
 * [k] / [x + k] in decimal below 65536, else hex; M[k] in decimal; jump
 * targets as pc-absolute labels "L<n>", conditional jumps always with both
 * targets; ancillary loads by bpfc's names (#vlanp for the VLAN-present
 * bit, #rand and #vlan_tpid, which bpfc lacks, as the kernel's bpf_asm
 * names them); unnamed ancillary offsets as plain [0xfffff0NN].
 *
 * Two kinds of instruction have no spelling and print as
 *     .insn 0xCODE, JT, JF, 0xK ; why
 * which the assembler rejects with a message (bpfc has no raw directive):
 * opcodes outside the kernel's whitelist (`ret x`, 0x0e, is the one
 * non-whitelisted opcode the syntax has, and prints as such), and
 * whitelisted opcodes whose unused fields (jt/jf of a non-jump, k of an
 * X-source or operand-less instruction) are non-zero: the kernel ignores
 * them, but no spelling would carry them back.
 *
 * A jump whose target lies beyond the last instruction still names its
 * label, but bpf_disasm prints no line for that label, so the output does
 * not reassemble ("undefined label"); the kernel checker rejects such a
 * program anyway. */
#include <stdio.h>
#include <stdlib.h>

#include "bpf_asm.h"

/* bpfc spellings of the ancillary loads, indexed by offset / 4. */
static const char *const anc_names[] = {
	"#proto", "#type",     "#ifidx", "#nla",  "#nlan",
	"#mark",  "#queue",    "#hatype", "#rxhash", "#cpu",
	NULL /* ALU_XOR_X: no name */, "#vlan_tci", "#vlanp", "#poff",
	"#rand",  "#vlan_tpid",
};

static const char *anc(uint32_t k)
{
	uint32_t off = k - (uint32_t)SKF_AD_OFF;

	if (k < (uint32_t)SKF_AD_OFF || off % 4 ||
	    off / 4 >= sizeof(anc_names) / sizeof(anc_names[0]))
		return NULL;
	return anc_names[off / 4];
}

struct num {
	char s[16];
};

static struct num imm(uint32_t k)
{
	struct num r;

	snprintf(r.s, sizeof(r.s), k < 256 ? "%u" : "0x%x", k);
	return r;
}

static struct num off(uint32_t k)
{
	struct num r;

	snprintf(r.s, sizeof(r.s), k < 65536 ? "%u" : "0x%x", k);
	return r;
}

static const char *size_suffix(uint16_t code)
{
	return BPF_SIZE(code) == BPF_H ? "h" : BPF_SIZE(code) == BPF_B ? "b" : "";
}

static const char *alu_name(uint16_t code)
{
	static const char *const names[16] = {
		"add", "sub", "mul", "div", "or", "and", "lsh", "rsh",
		"neg", "mod", "xor",
	};

	return names[BPF_OP(code) >> 4];
}

static const char *jmp_name(uint16_t code)
{
	static const char *const names[] = {"ja", "jeq", "jgt", "jge", "jset"};

	return names[BPF_OP(code) >> 4];
}

static int fmt_ld(const struct sock_filter *in, char *buf, size_t n)
{
	const char *sz = size_suffix(in->code);

	switch (in->code) {
	case BPF_LD | BPF_IMM:
		return snprintf(buf, n, "ld #%s", imm(in->k).s);
	case BPF_LD | BPF_W | BPF_LEN:
		return snprintf(buf, n, "ld #len");
	case BPF_LD | BPF_MEM:
		return snprintf(buf, n, "ld M[%u]", in->k);
	case BPF_LD | BPF_W | BPF_ABS:
	case BPF_LD | BPF_H | BPF_ABS:
	case BPF_LD | BPF_B | BPF_ABS:
		if (anc(in->k))
			return snprintf(buf, n, "ld%s %s", sz, anc(in->k));
		return snprintf(buf, n, "ld%s [%s]", sz, off(in->k).s);
	case BPF_LD | BPF_W | BPF_IND:
	case BPF_LD | BPF_H | BPF_IND:
	case BPF_LD | BPF_B | BPF_IND:
		return snprintf(buf, n, "ld%s [x + %s]", sz, off(in->k).s);
	}
	return -1;
}

static int fmt_ldx_st(const struct sock_filter *in, char *buf, size_t n)
{
	switch (in->code) {
	case BPF_LDX | BPF_IMM:
		return snprintf(buf, n, "ldx #%s", imm(in->k).s);
	case BPF_LDX | BPF_W | BPF_LEN:
		return snprintf(buf, n, "ldx #len");
	case BPF_LDX | BPF_MEM:
		return snprintf(buf, n, "ldx M[%u]", in->k);
	case BPF_LDX | BPF_B | BPF_MSH:
		return snprintf(buf, n, "ldxb 4*([%s]&0xf)", off(in->k).s);
	case BPF_ST:
		return snprintf(buf, n, "st M[%u]", in->k);
	case BPF_STX:
		return snprintf(buf, n, "stx M[%u]", in->k);
	}
	return -1;
}

static int fmt_alu(const struct sock_filter *in, char *buf, size_t n)
{
	uint16_t op = BPF_OP(in->code);

	if (in->code == (BPF_ALU | BPF_NEG))
		return snprintf(buf, n, "neg");
	if (op > BPF_XOR || op == BPF_NEG)
		return -1;
	if (BPF_SRC(in->code) == BPF_X)
		return snprintf(buf, n, "%s x", alu_name(in->code));
	return snprintf(buf, n, "%s #%s", alu_name(in->code), imm(in->k).s);
}

static int fmt_jmp(const struct sock_filter *in, uint32_t pc, char *buf,
		   size_t n)
{
	uint16_t op = BPF_OP(in->code);
	unsigned long long jt = (unsigned long long)pc + 1 + in->jt;
	unsigned long long jf = (unsigned long long)pc + 1 + in->jf;

	if (in->code == (BPF_JMP | BPF_JA))
		return snprintf(buf, n, "ja L%llu",
				(unsigned long long)pc + 1 + in->k);
	if (op < BPF_JEQ || op > BPF_JSET)
		return -1;
	if (BPF_SRC(in->code) == BPF_X)
		return snprintf(buf, n, "%s x, L%llu, L%llu", jmp_name(in->code),
				jt, jf);
	return snprintf(buf, n, "%s #%s, L%llu, L%llu", jmp_name(in->code),
			imm(in->k).s, jt, jf);
}

static int fmt_misc(const struct sock_filter *in, char *buf, size_t n)
{
	switch (in->code) {
	case BPF_RET | BPF_K:
		return snprintf(buf, n, "ret #%s", imm(in->k).s);
	case BPF_RET | BPF_A:
		return snprintf(buf, n, "ret a");
	case BPF_RET | BPF_X:
		return snprintf(buf, n, "ret x");
	case BPF_MISC | BPF_TAX:
		return snprintf(buf, n, "tax");
	case BPF_MISC | BPF_TXA:
		return snprintf(buf, n, "txa");
	}
	return -1;
}

/* The spelling of in, or -1 if its opcode has none. */
static int fmt_insn(const struct sock_filter *in, uint32_t pc, char *buf,
		    size_t n)
{
	if (in->code > 0xff)
		return -1;
	switch (BPF_CLASS(in->code)) {
	case BPF_LD:
		return fmt_ld(in, buf, n);
	case BPF_LDX:
	case BPF_ST:
	case BPF_STX:
		return fmt_ldx_st(in, buf, n);
	case BPF_ALU:
		return fmt_alu(in, buf, n);
	case BPF_JMP:
		return fmt_jmp(in, pc, buf, n);
	default:
		return fmt_misc(in, buf, n);
	}
}

/* 1 if k is ignored by the instruction (and so must be 0 to reassemble). */
static int k_unused(uint16_t code)
{
	switch (BPF_CLASS(code)) {
	case BPF_LD:
	case BPF_LDX:
		return BPF_MODE(code) == BPF_LEN;
	case BPF_ALU:
		return BPF_OP(code) == BPF_NEG || BPF_SRC(code) == BPF_X;
	case BPF_JMP:
		return BPF_OP(code) != BPF_JA && BPF_SRC(code) == BPF_X;
	case BPF_RET:
		return BPF_RVAL(code) != BPF_K;
	case BPF_MISC:
		return 1;
	}
	return 0;
}

/* in with the fields its opcode ignores cleared. */
static struct sock_filter canonical(const struct sock_filter *in)
{
	struct sock_filter c = *in;
	int cond = BPF_CLASS(c.code) == BPF_JMP && BPF_OP(c.code) != BPF_JA;

	if (!cond)
		c.jt = c.jf = 0;
	if (k_unused(c.code))
		c.k = 0;
	return c;
}

int bpf_disasm_insn(const struct sock_filter *in, uint32_t pc, char *buf,
		    size_t n)
{
	struct sock_filter c = canonical(in);
	char tmp[64];

	if (fmt_insn(&c, pc, tmp, sizeof(tmp)) < 0)
		return snprintf(buf, n, ".insn 0x%02x, %u, %u, 0x%x ; opcode "
				"not in the kernel whitelist, no syntax",
				in->code, in->jt, in->jf, in->k);
	if (c.jt != in->jt || c.jf != in->jf || c.k != in->k)
		return snprintf(buf, n, ".insn 0x%02x, %u, %u, 0x%x ; %s, "
				"with unused fields set", in->code, in->jt,
				in->jf, in->k, tmp);
	return snprintf(buf, n, "%s", tmp);
}

/* Marks the in-program targets of insns[pc] if it prints as a jump. */
static void mark_targets(const struct sock_filter *insns, uint32_t len,
			 uint32_t pc, unsigned char *is_target)
{
	const struct sock_filter *in = &insns[pc];
	struct sock_filter c = canonical(in);
	uint64_t t[2] = {(uint64_t)pc + 1 + in->jt, (uint64_t)pc + 1 + in->jf};
	char tmp[64];
	int i;

	if (BPF_CLASS(in->code) != BPF_JMP || c.jt != in->jt ||
	    c.jf != in->jf || c.k != in->k || fmt_insn(&c, pc, tmp,
						       sizeof(tmp)) < 0)
		return;
	if (BPF_OP(in->code) == BPF_JA)
		t[0] = t[1] = (uint64_t)pc + 1 + in->k;
	for (i = 0; i < 2; i++)
		if (t[i] < len)
			is_target[t[i]] = 1;
}

void bpf_disasm(FILE *f, const struct sock_filter *insns, uint32_t len)
{
	unsigned char *is_target = calloc(len ? len : 1, 1);
	char buf[160];
	uint32_t pc;

	for (pc = 0; is_target && pc < len; pc++)
		mark_targets(insns, len, pc, is_target);
	for (pc = 0; pc < len; pc++) {
		/* Without memory for the marks, a label on every line. */
		if (!is_target || is_target[pc])
			fprintf(f, "L%u:\n", pc);
		bpf_disasm_insn(&insns[pc], pc, buf, sizeof(buf));
		fprintf(f, "\t%s\n", buf);
	}
	free(is_target);
}
