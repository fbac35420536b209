/* bpf_run_loop.h - the body of the interpreter, included twice by
 * bpf_run.c: with TRACE 0 as the fast loop, with TRACE 1 as the tracer's,
 * which dispatches on the unfused operations and reports every step. Each
 * operation ends by jumping straight to the next one's handler. */

#define NAME_LABEL(name) [D_##name] = &&op_##name,
static uint32_t RUN_FN(const struct bpf_prog *prog, const struct bpf_skb *skb,
		       struct run_ctx *c)
{
	static const void *const handlers[D_NOPS] = {
		BPF_PLAIN_OPS(NAME_LABEL) BPF_FUSED_OPS(NAME_LABEL)};
	const struct bpf_dinsn *const code = prog->code;
	const struct bpf_dinsn *d = code;
	const uint8_t *const data = skb->data;
	const uint32_t avail = skb->caplen < skb->len ? skb->caplen : skb->len;
	uint32_t A = 0, X = 0, M[BPF_MEMWORDS];
	const char *why = NULL;
	int64_t at;
	int anc_fault;

	(void)c;
	(void)why;
#if TRACE
	/* The checker proves every read follows a store; zeroing keeps the
	 * tracer's view defined. */
	memset(M, 0, sizeof(M));
#define DISPATCH()                                                   \
	do {                                                         \
		trace_step(prog, c, (uint32_t)(d - code), A, X, M); \
		goto *handlers[d->plain];                            \
	} while (0)
#define FINISH(v) return trace_end(prog, c, A, X, M, (v), NULL)
#define FAULT(msg) return trace_end(prog, c, A, X, M, 0, (msg))
#define STORED(i) (c->mem_valid |= (uint16_t)(1u << (i)))
#else
#define DISPATCH() goto *handlers[d->op]
#define FINISH(v) return (v)
#define FAULT(msg) return 0
#define STORED(i) ((void)0)
#endif
#define NEXT() do { d++; DISPATCH(); } while (0)
#define JUMP(t) do { d = code + (t); DISPATCH(); } while (0)
#define ABS_LOAD(size, expr) \
	do { if (d->k + (size) > avail) FAULT("load past the end of the packet"); A = (expr); } while (0)
#define SIGNED_LOAD(xoff, size, expr)                                        \
	do {                                                                  \
		at = load_off(skb, (int32_t)((xoff) + d->k), (size));         \
		if (at < 0)                                                   \
			FAULT("load outside the packet");                     \
		A = (expr);                                                   \
	} while (0)

	DISPATCH();

op_LD_IMM: A = d->k; NEXT();
op_LD_W_ABS: ABS_LOAD(4, get32(data + d->k)); NEXT();
op_LD_H_ABS: ABS_LOAD(2, get16(data + d->k)); NEXT();
op_LD_B_ABS: ABS_LOAD(1, data[d->k]); NEXT();
op_LD_W_IND: SIGNED_LOAD(X, 4, get32(data + at)); NEXT();
op_LD_H_IND: SIGNED_LOAD(X, 2, get16(data + at)); NEXT();
op_LD_B_IND: SIGNED_LOAD(X, 1, data[at]); NEXT();
op_LD_W_NEG: SIGNED_LOAD(0, 4, get32(data + at)); NEXT();
op_LD_H_NEG: SIGNED_LOAD(0, 2, get16(data + at)); NEXT();
op_LD_B_NEG: SIGNED_LOAD(0, 1, data[at]); NEXT();
op_LD_MEM: A = M[d->k]; NEXT();
op_LD_LEN: A = skb->len; NEXT();
op_LDX_IMM: X = d->k; NEXT();
op_LDX_MEM: X = M[d->k]; NEXT();
op_LDX_LEN: X = skb->len; NEXT();
op_LDX_MSH:
	at = load_off(skb, (int32_t)d->k, 1);
	if (at < 0)
		FAULT("load outside the packet");
	X = (data[at] & 0xfu) << 2;
	NEXT();
op_ST: M[d->k] = A; STORED(d->k); NEXT();
op_STX: M[d->k] = X; STORED(d->k); NEXT();
op_ADD_K: A += d->k; NEXT();
op_ADD_X: A += X; NEXT();
op_SUB_K: A -= d->k; NEXT();
op_SUB_X: A -= X; NEXT();
op_MUL_K: A *= d->k; NEXT();
op_MUL_X: A *= X; NEXT();
op_DIV_K: A /= d->k; NEXT();
op_DIV_X:
	if (X == 0)
		FAULT("division by X = 0");
	A /= X;
	NEXT();
op_MOD_K: A %= d->k; NEXT();
op_MOD_X:
	if (X == 0)
		FAULT("modulo by X = 0");
	A %= X;
	NEXT();
op_AND_K: A &= d->k; NEXT();
op_AND_X: A &= X; NEXT();
op_OR_K: A |= d->k; NEXT();
op_OR_X: A |= X; NEXT();
op_XOR_K: A ^= d->k; NEXT();
op_XOR_X: A ^= X; NEXT();
op_LSH_K: A <<= d->k; NEXT();
op_LSH_X: A <<= (X & 31); NEXT();
op_RSH_K: A >>= d->k; NEXT();
op_RSH_X: A >>= (X & 31); NEXT();
op_NEG: A = 0u - A; NEXT();
op_JA: JUMP(d->jt);
op_JEQ_K: JUMP(A == d->k ? d->jt : d->jf);
op_JEQ_X: JUMP(A == X ? d->jt : d->jf);
op_JGT_K: JUMP(A > d->k ? d->jt : d->jf);
op_JGT_X: JUMP(A > X ? d->jt : d->jf);
op_JGE_K: JUMP(A >= d->k ? d->jt : d->jf);
op_JGE_X: JUMP(A >= X ? d->jt : d->jf);
op_JSET_K: JUMP(A & d->k ? d->jt : d->jf);
op_JSET_X: JUMP(A & X ? d->jt : d->jf);
op_RET_K: FINISH(d->k);
op_RET_A: FINISH(A);
op_TAX: X = A; NEXT();
op_TXA: A = X; NEXT();
op_ANC_PROTOCOL: A = skb->protocol; NEXT();
op_ANC_PKTTYPE: A = skb->pkttype; NEXT();
op_ANC_IFINDEX: A = skb->ifindex; NEXT();
op_ANC_NLATTR:
op_ANC_NLATTR_NEST:
	anc_fault = 0;
	A = anc_nlattr(skb, A, X, d->plain == D_ANC_NLATTR_NEST, &anc_fault);
	if (anc_fault && prog->kernel == BPF_KERNEL_3_13)
		FAULT("netlink attribute offset A outside the packet");
	NEXT();
op_ANC_MARK: A = skb->mark; NEXT();
op_ANC_QUEUE: A = skb->queue_mapping; NEXT();
op_ANC_HATYPE: A = skb->hatype; NEXT();
op_ANC_RXHASH: A = skb->hash; NEXT();
op_ANC_CPU: A = skb->cpu; NEXT();
op_ANC_ALU_XOR_X: A ^= X; NEXT();
op_ANC_VLAN_TAG:
	/* 3.13 kept "tag present" in TCI bit 0x1000 and masked it off */
	A = !skb->vlan_present ? 0
	    : prog->kernel == BPF_KERNEL_3_13 ? (skb->vlan_tci & ~0x1000u) : skb->vlan_tci;
	NEXT();
op_ANC_VLAN_TAG_PRESENT: A = skb->vlan_present ? 1 : 0; NEXT();
op_ANC_PAY_OFFSET: A = anc_poff(skb); NEXT();
op_ANC_RANDOM: A = skb->random ? skb->random(skb->random_arg) : 0; NEXT();
op_ANC_VLAN_TPID: A = skb->vlan_present ? skb->vlan_proto : 0; NEXT();

	/* Fused load + branch (the fast loop only). */
#define FUSED(size, expr, cond) \
	do { ABS_LOAD(size, expr); JUMP((cond) ? d->jt : d->jf); } while (0)
op_LDW_JEQ: FUSED(4, get32(data + d->k), A == d->k2);
op_LDW_JGT: FUSED(4, get32(data + d->k), A > d->k2);
op_LDW_JGE: FUSED(4, get32(data + d->k), A >= d->k2);
op_LDW_JSET: FUSED(4, get32(data + d->k), A & d->k2);
op_LDH_JEQ: FUSED(2, get16(data + d->k), A == d->k2);
op_LDH_JGT: FUSED(2, get16(data + d->k), A > d->k2);
op_LDH_JGE: FUSED(2, get16(data + d->k), A >= d->k2);
op_LDH_JSET: FUSED(2, get16(data + d->k), A & d->k2);
op_LDB_JEQ: FUSED(1, data[d->k], A == d->k2);
op_LDB_JGT: FUSED(1, data[d->k], A > d->k2);
op_LDB_JGE: FUSED(1, data[d->k], A >= d->k2);
op_LDB_JSET: FUSED(1, data[d->k], A & d->k2);
op_LDHX_JEQ:
	SIGNED_LOAD(X, 2, get16(data + at));
	JUMP(A == d->k2 ? d->jt : d->jf);

#undef FUSED
#undef DISPATCH
#undef FINISH
#undef FAULT
#undef STORED
#undef NEXT
#undef JUMP
#undef ABS_LOAD
#undef SIGNED_LOAD
}
#undef NAME_LABEL
