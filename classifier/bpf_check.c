/* bpf_check.c - the kernel's classic BPF load-time checker, rule for rule
 * (net/core/filter.c: bpf_check_basics_ok, bpf_check_classic,
 * chk_code_allowed, check_load_and_stores). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "bpf.h"
#include "errmsg.h"

static const uint16_t allowed_codes[] = {
	BPF_LD | BPF_IMM,	     BPF_LD | BPF_W | BPF_ABS,	BPF_LD | BPF_H | BPF_ABS,
	BPF_LD | BPF_B | BPF_ABS,    BPF_LD | BPF_W | BPF_IND,	BPF_LD | BPF_H | BPF_IND,
	BPF_LD | BPF_B | BPF_IND,    BPF_LD | BPF_MEM,		BPF_LD | BPF_W | BPF_LEN,
	BPF_LDX | BPF_IMM,	     BPF_LDX | BPF_MEM,		BPF_LDX | BPF_W | BPF_LEN,
	BPF_LDX | BPF_B | BPF_MSH,   BPF_ST,			BPF_STX,
	BPF_ALU | BPF_ADD | BPF_K,   BPF_ALU | BPF_ADD | BPF_X, BPF_ALU | BPF_SUB | BPF_K,
	BPF_ALU | BPF_SUB | BPF_X,   BPF_ALU | BPF_MUL | BPF_K, BPF_ALU | BPF_MUL | BPF_X,
	BPF_ALU | BPF_DIV | BPF_K,   BPF_ALU | BPF_DIV | BPF_X, BPF_ALU | BPF_MOD | BPF_K,
	BPF_ALU | BPF_MOD | BPF_X,   BPF_ALU | BPF_AND | BPF_K, BPF_ALU | BPF_AND | BPF_X,
	BPF_ALU | BPF_OR | BPF_K,    BPF_ALU | BPF_OR | BPF_X,	BPF_ALU | BPF_XOR | BPF_K,
	BPF_ALU | BPF_XOR | BPF_X,   BPF_ALU | BPF_LSH | BPF_K, BPF_ALU | BPF_LSH | BPF_X,
	BPF_ALU | BPF_RSH | BPF_K,   BPF_ALU | BPF_RSH | BPF_X, BPF_ALU | BPF_NEG,
	BPF_JMP | BPF_JA,	     BPF_JMP | BPF_JEQ | BPF_K, BPF_JMP | BPF_JEQ | BPF_X,
	BPF_JMP | BPF_JGT | BPF_K,   BPF_JMP | BPF_JGT | BPF_X, BPF_JMP | BPF_JGE | BPF_K,
	BPF_JMP | BPF_JGE | BPF_X,   BPF_JMP | BPF_JSET | BPF_K, BPF_JMP | BPF_JSET | BPF_X,
	BPF_RET | BPF_K,	     BPF_RET | BPF_A,		BPF_MISC | BPF_TAX,
	BPF_MISC | BPF_TXA,
};

int bpf_code_allowed(uint16_t code)
{
	for (size_t i = 0; i < sizeof(allowed_codes) / sizeof(allowed_codes[0]); i++)
		if (allowed_codes[i] == code)
			return 1;
	return 0;
}

static const char *const anc_names[] = {
	[SKF_AD_PROTOCOL / 4] = "proto",     [SKF_AD_PKTTYPE / 4] = "type",
	[SKF_AD_IFINDEX / 4] = "ifidx",	     [SKF_AD_NLATTR / 4] = "nla",
	[SKF_AD_NLATTR_NEST / 4] = "nlan",   [SKF_AD_MARK / 4] = "mark",
	[SKF_AD_QUEUE / 4] = "queue",	     [SKF_AD_HATYPE / 4] = "hatype",
	[SKF_AD_RXHASH / 4] = "rxhash",	     [SKF_AD_CPU / 4] = "cpu",
	[SKF_AD_ALU_XOR_X / 4] = "xor_x",    [SKF_AD_VLAN_TAG / 4] = "vlan_tci",
	[SKF_AD_VLAN_TAG_PRESENT / 4] = "vlan_avail",
	[SKF_AD_PAY_OFFSET / 4] = "poff",    [SKF_AD_RANDOM / 4] = "rand",
	[SKF_AD_VLAN_TPID / 4] = "vlan_tpid",
};

const char *bpf_anc_name(uint32_t k)
{
	uint32_t n = k - (uint32_t)SKF_AD_OFF;

	if (k < (uint32_t)SKF_AD_OFF || n % 4 || n / 4 >= sizeof(anc_names) / sizeof(anc_names[0]))
		return NULL;
	return anc_names[n / 4];
}

int bpf_anc_known(uint32_t k, enum bpf_kernel kernel)
{
	uint32_t n = k - (uint32_t)SKF_AD_OFF;

	if (!bpf_anc_name(k))
		return 0;
	/* 3.13's SKF_AD_MAX is 56: RANDOM (3.16) and VLAN_TPID (4.1) are unknown. */
	if (kernel == BPF_KERNEL_3_13 && n >= SKF_AD_RANDOM)
		return 0;
	return 1;
}

static int is_mem_op(uint16_t c)
{
	return c == (BPF_LD | BPF_MEM) || c == (BPF_LDX | BPF_MEM) || c == BPF_ST ||
	       c == BPF_STX;
}

static int check_insn(const struct sock_filter *in, uint32_t pc, uint32_t len,
		      enum bpf_kernel kernel, char *err, size_t errlen)
{
	uint16_t c = in->code;

	if (!bpf_code_allowed(c))
		return errmsg(err, errlen, -EINVAL,
			    "instruction %u: opcode 0x%02x is not in the kernel's classic BPF opcode whitelist",
			    pc, c);
	if ((c == (BPF_ALU | BPF_DIV | BPF_K) || c == (BPF_ALU | BPF_MOD | BPF_K)) && in->k == 0)
		return errmsg(err, errlen, -EINVAL, "instruction %u: %s by constant 0 (division by zero is rejected at load)",
			    pc, BPF_OP(c) == BPF_DIV ? "div" : "mod");
	if (kernel == BPF_KERNEL_CURRENT &&
	    (c == (BPF_ALU | BPF_LSH | BPF_K) || c == (BPF_ALU | BPF_RSH | BPF_K)) && in->k >= 32)
		return errmsg(err, errlen, -EINVAL, "instruction %u: constant shift by %u (a shift must be below 32)",
			    pc, in->k);
	if (is_mem_op(c) && in->k >= BPF_MEMWORDS)
		return errmsg(err, errlen, -EINVAL, "instruction %u: scratch memory index M[%u] (only M[0]..M[15] exist)",
			    pc, in->k);
	if (c == (BPF_JMP | BPF_JA)) {
		if (in->k >= len - pc - 1)
			return errmsg(err, errlen, -EINVAL, "instruction %u: ja %u jumps past the last instruction %u",
				    pc, in->k, len - 1);
	} else if (BPF_CLASS(c) == BPF_JMP) {
		if (pc + 1 + in->jt >= len || pc + 1 + in->jf >= len)
			return errmsg(err, errlen, -EINVAL,
				    "instruction %u: jump target (jt %u, jf %u) past the last instruction %u",
				    pc, in->jt, in->jf, len - 1);
	}
	if (BPF_CLASS(c) == BPF_LD && BPF_MODE(c) == BPF_ABS && in->k >= (uint32_t)SKF_AD_OFF &&
	    !bpf_anc_known(in->k, kernel))
		return errmsg(err, errlen, -EINVAL, "instruction %u: unknown ancillary offset SKF_AD_OFF%+d",
			    pc, (int32_t)(in->k - (uint32_t)SKF_AD_OFF));
	return 0;
}

/* check_load_and_stores: a cell may be read only if every path stores it
 * first. The path state flows linearly, merged at jump targets; the state
 * after a ret flows into the next instruction, as the kernel does. */
static int check_scratch(const struct sock_filter *insns, uint32_t len, char *err,
			 size_t errlen)
{
	uint16_t *masks = malloc(len * sizeof(*masks));
	uint16_t memvalid = 0;
	int ret = 0;

	if (!masks)
		return errmsg(err, errlen, -EINVAL, "out of memory");
	for (uint32_t i = 0; i < len; i++)
		masks[i] = 0xffff;
	for (uint32_t pc = 0; pc < len; pc++) {
		const struct sock_filter *in = &insns[pc];

		memvalid &= masks[pc];
		switch (in->code) {
		case BPF_ST:
		case BPF_STX:
			memvalid |= 1u << in->k;
			break;
		case BPF_LD | BPF_MEM:
		case BPF_LDX | BPF_MEM:
			if (!(memvalid & (1u << in->k))) {
				ret = errmsg(err, errlen, -EINVAL,
					   "instruction %u: reads M[%u], which is uninitialized on some path to it",
					   pc, in->k);
				goto out;
			}
			break;
		case BPF_JMP | BPF_JA:
			masks[pc + 1 + in->k] &= memvalid;
			memvalid = 0xffff;
			break;
		default:
			if (BPF_CLASS(in->code) == BPF_JMP) {
				masks[pc + 1 + in->jt] &= memvalid;
				masks[pc + 1 + in->jf] &= memvalid;
				memvalid = 0xffff;
			}
			break;
		}
	}
out:
	free(masks);
	return ret;
}

int bpf_check(const struct sock_filter *insns, uint32_t len, enum bpf_kernel kernel,
	      char *err, size_t errlen)
{
	int ret;

	if (len == 0 || len > BPF_MAXINSNS)
		return errmsg(err, errlen, -EINVAL, "program length %u: it must be 1..%d instructions", len,
			    BPF_MAXINSNS);
	for (uint32_t pc = 0; pc < len; pc++) {
		ret = check_insn(&insns[pc], pc, len, kernel, err, errlen);
		if (ret)
			return ret;
	}
	if (BPF_CLASS(insns[len - 1].code) != BPF_RET)
		return errmsg(err, errlen, -EINVAL, "instruction %u: the last instruction must be a return (ret)",
			    len - 1);
	return check_scratch(insns, len, err, errlen);
}
