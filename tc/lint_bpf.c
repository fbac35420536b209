/* lint_bpf.c - what a classic BPF program can return, for tcsim lint's checks (lint.h,
 * struct lint_rets): an abstract interpretation of A, X and M[] as small sets of constants.
 *
 * Limits: the analysis knows constants only (sets of up to 8 per register);
 * a packet load is assumed to fault unless it reads the Ethernet header
 * (bytes 0..13), which every frame tcsim accepts has. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lint.h"

#define VS_MAX 8

/* A set of possible 32-bit values, or anything (top). */
struct vset {
	uint8_t n, top;
	uint32_t v[VS_MAX];
};

struct astate {
	int reached;
	struct vset a, x, m[BPF_MEMWORDS];
};

static struct vset vs_top(void)
{
	struct vset s = {.top = 1};

	return s;
}

static struct vset vs_const(uint32_t k)
{
	struct vset s = {.n = 1, .v = {k}};

	return s;
}

static void vs_add(struct vset *s, uint32_t v)
{
	int i;

	if (s->top)
		return;
	for (i = 0; i < s->n && s->v[i] < v; i++)
		;
	if (i < s->n && s->v[i] == v)
		return;
	if (s->n == VS_MAX) {
		*s = vs_top();
		return;
	}
	memmove(&s->v[i + 1], &s->v[i], (size_t)(s->n - i) * sizeof(s->v[0]));
	s->v[i] = v;
	s->n++;
}

static void vs_join(struct vset *d, const struct vset *s)
{
	if (s->top) {
		*d = vs_top();
		return;
	}
	for (int i = 0; i < s->n; i++)
		vs_add(d, s->v[i]);
}

static void st_join(struct astate *d, const struct astate *s)
{
	if (!d->reached) {
		*d = *s;
		return;
	}
	vs_join(&d->a, &s->a);
	vs_join(&d->x, &s->x);
	for (int i = 0; i < BPF_MEMWORDS; i++)
		vs_join(&d->m[i], &s->m[i]);
}

/* One ALU operation as the interpreter does it; 0 on a fault (division
 * by zero ends the program with 0). */
static int alu(uint16_t op, uint32_t a, uint32_t b, uint32_t *out)
{
	switch (op) {
	case BPF_ADD: *out = a + b; return 1;
	case BPF_SUB: *out = a - b; return 1;
	case BPF_MUL: *out = a * b; return 1;
	case BPF_DIV:
		if (!b)
			return 0;
		*out = a / b;
		return 1;
	case BPF_MOD:
		if (!b)
			return 0;
		*out = a % b;
		return 1;
	case BPF_OR: *out = a | b; return 1;
	case BPF_AND: *out = a & b; return 1;
	case BPF_XOR: *out = a ^ b; return 1;
	case BPF_LSH: *out = a << (b & 31); return 1;
	case BPF_RSH: *out = a >> (b & 31); return 1;
	case BPF_NEG: *out = -a; return 1;
	default: return 0;
	}
}

static struct vset vs_alu(uint16_t op, const struct vset *a, const struct vset *b, int *fault)
{
	struct vset r = {0};

	if ((op == BPF_DIV || op == BPF_MOD) && (b->top || (b->n && b->v[0] == 0)))
		*fault = 1;
	if (op == BPF_NEG)
		b = a; /* unused operand */
	if (a->top || b->top) {
		/* a few results are known whatever the unknown side is */
		if (!b->top && b->n == 1 && ((op == BPF_AND || op == BPF_MUL) && b->v[0] == 0))
			return vs_const(0);
		/* a mask of up to 3 bits: every combination of them */
		if (a->top && !b->top && b->n == 1 && op == BPF_AND &&
		    __builtin_popcount(b->v[0]) <= 3) {
			uint32_t k = b->v[0], sub = k;

			do {
				vs_add(&r, sub);
				sub = (sub - 1) & k;
			} while (sub != k);
			return r;
		}
		return vs_top();
	}
	for (int i = 0; i < a->n; i++)
		for (int j = 0; j < b->n; j++) {
			uint32_t v;

			if (alu(op, a->v[i], b->v[j], &v))
				vs_add(&r, v);
			if (r.top)
				return r;
		}
	return r;
}

static int cond(uint16_t op, uint32_t a, uint32_t b)
{
	switch (op) {
	case BPF_JEQ: return a == b;
	case BPF_JGT: return a > b;
	case BPF_JGE: return a >= b;
	default: return (a & b) != 0; /* BPF_JSET */
	}
}

/* Splits A over a conditional jump: the values that can take each edge
 * (*t_ok, *f_ok say whether the edge is feasible at all). */
static void split(uint16_t op, const struct vset *a, const struct vset *b, struct vset *t,
		  struct vset *f, int *t_ok, int *f_ok)
{
	*t = *a;
	*f = *a;
	*t_ok = *f_ok = 1;
	if (a->top) {
		if (op == BPF_JEQ && !b->top)
			*t = *b; /* equal to one of the operand's values */
		return;
	}
	if (b->top)
		return;
	t->n = f->n = 0;
	for (int i = 0; i < a->n; i++) {
		int any_t = 0, any_f = 0;

		for (int j = 0; j < b->n; j++) {
			if (cond(op, a->v[i], b->v[j]))
				any_t = 1;
			else
				any_f = 1;
		}
		if (any_t)
			vs_add(t, a->v[i]);
		if (any_f)
			vs_add(f, a->v[i]);
	}
	*t_ok = t->n > 0;
	*f_ok = f->n > 0;
}

static void ret_add(struct lint_rets *r, uint32_t v)
{
	int i;

	for (i = 0; i < r->n && r->v[i] < v; i++)
		;
	if (i < r->n && r->v[i] == v)
		return;
	if (r->n == LINT_MAX_RETS) {
		r->computed = 1; /* too many to list */
		return;
	}
	memmove(&r->v[i + 1], &r->v[i], (size_t)(r->n - i) * sizeof(r->v[0]));
	r->v[i] = v;
	r->n++;
}

static void flow(struct astate *st, uint32_t len, uint32_t to, const struct astate *s)
{
	if (to < len)
		st_join(&st[to], s);
}

/* A packet load of `size` bytes at absolute offset k: can it fault? */
static int abs_may_fault(uint32_t k, uint32_t size)
{
	return (uint64_t)k + size > 14;
}

int lint_prog_returns(const struct sock_filter *insns, uint32_t len, struct lint_rets *r)
{
	struct astate *st;

	memset(r, 0, sizeof(*r));
	if (!len)
		return 0;
	st = calloc(len, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st[0].reached = 1;
	st[0].a = vs_const(0);
	st[0].x = vs_const(0);
	for (int i = 0; i < BPF_MEMWORDS; i++)
		st[0].m[i] = vs_top();
	for (uint32_t pc = 0; pc < len; pc++) {
		const struct sock_filter *in = &insns[pc];
		struct astate s;
		uint16_t c = in->code;
		uint32_t size;

		if (!st[pc].reached)
			continue;
		s = st[pc];
		switch (BPF_CLASS(c)) {
		case BPF_LD:
			size = BPF_SIZE(c) == BPF_W ? 4 : BPF_SIZE(c) == BPF_H ? 2 : 1;
			switch (BPF_MODE(c)) {
			case BPF_IMM: s.a = vs_const(in->k); break;
			case BPF_MEM: s.a = s.m[in->k % BPF_MEMWORDS]; break;
			case BPF_LEN: s.a = vs_top(); break;
			case BPF_ABS:
				if (in->k >= (uint32_t)SKF_AD_OFF) {
					uint32_t n = in->k - (uint32_t)SKF_AD_OFF;

					if (n == SKF_AD_ALU_XOR_X) {
						s.a = vs_alu(BPF_XOR, &s.a, &s.x, &r->may_fault);
						break;
					}
					if (n == SKF_AD_NLATTR || n == SKF_AD_NLATTR_NEST)
						r->may_fault = 1; /* 3.13: A past the packet */
					s.a = vs_top();
				} else {
					if (in->k >= (uint32_t)SKF_LL_OFF ||
					    abs_may_fault(in->k, size))
						r->may_fault = 1;
					s.a = vs_top();
				}
				break;
			default: /* BPF_IND and anything else */
				r->may_fault = 1;
				s.a = vs_top();
				break;
			}
			flow(st, len, pc + 1, &s);
			break;
		case BPF_LDX:
			switch (BPF_MODE(c)) {
			case BPF_IMM: s.x = vs_const(in->k); break;
			case BPF_MEM: s.x = s.m[in->k % BPF_MEMWORDS]; break;
			case BPF_MSH:
				if (abs_may_fault(in->k, 1))
					r->may_fault = 1;
				s.x = vs_top();
				break;
			default: s.x = vs_top(); break;
			}
			flow(st, len, pc + 1, &s);
			break;
		case BPF_ST:
			s.m[in->k % BPF_MEMWORDS] = s.a;
			flow(st, len, pc + 1, &s);
			break;
		case BPF_STX:
			s.m[in->k % BPF_MEMWORDS] = s.x;
			flow(st, len, pc + 1, &s);
			break;
		case BPF_ALU: {
			struct vset k = vs_const(in->k);

			s.a =
			    vs_alu(BPF_OP(c), &s.a, BPF_SRC(c) == BPF_X ? &s.x : &k, &r->may_fault);
			flow(st, len, pc + 1, &s);
			break;
		}
		case BPF_JMP:
			if (BPF_OP(c) == BPF_JA) {
				if ((uint64_t)pc + 1 + in->k < len)
					flow(st, len, pc + 1 + in->k, &s);
			} else {
				struct vset k = vs_const(in->k), t, f;
				struct astate ts = s, fs = s;
				int t_ok, f_ok;

				split(BPF_OP(c), &s.a, BPF_SRC(c) == BPF_X ? &s.x : &k, &t, &f,
				      &t_ok, &f_ok);
				ts.a = t;
				fs.a = f;
				if (t_ok)
					flow(st, len, pc + 1 + in->jt, &ts);
				if (f_ok)
					flow(st, len, pc + 1 + in->jf, &fs);
			}
			break;
		case BPF_RET:
			if (BPF_RVAL(c) == BPF_K) {
				ret_add(r, in->k);
			} else if (BPF_RVAL(c) == BPF_A && !s.a.top) {
				for (int i = 0; i < s.a.n; i++)
					ret_add(r, s.a.v[i]);
			} else if (!r->computed) {
				r->computed = 1;
				r->computed_pc = pc;
			}
			break;
		default: /* BPF_MISC */
			if (BPF_MISCOP(c) == BPF_TAX)
				s.x = s.a;
			else if (BPF_MISCOP(c) == BPF_TXA)
				s.a = s.x;
			flow(st, len, pc + 1, &s);
			break;
		}
	}
	free(st);
	return 0;
}

int lint_rets_has(const struct lint_rets *r, uint32_t v)
{
	for (int i = 0; i < r->n; i++)
		if (r->v[i] == v)
			return 1;
	return 0;
}

int lint_rets_catch_all(const struct lint_rets *r)
{
	return r->n > 0 && !r->computed && !r->may_fault && !lint_rets_has(r, 0);
}
