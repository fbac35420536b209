/* bpf_gen.c - seeded random classic-BPF program generator for tests (valid and mutated programs). */
#include "bpf_gen.h"

#include <string.h>

void bpf_gen_seed(struct bpf_gen *g, uint64_t seed)
{
	/* splitmix64 of the seed, so nearby seeds give unrelated streams and
	 * the xorshift state is never 0. */
	uint64_t z = seed + 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	g->s = z ? z : 0x2545f4914f6cdd1dULL;
}

uint32_t bpf_gen_u32(struct bpf_gen *g)
{
	uint64_t x = g->s;
	if (!x)
		x = 0x2545f4914f6cdd1dULL;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	g->s = x;
	return (uint32_t)((x * 0x2545f4914f6cdd1dULL) >> 32);
}

uint32_t bpf_gen_below(struct bpf_gen *g, uint32_t n)
{
	if (n == 0)
		return 0;
	return (uint32_t)(((uint64_t)bpf_gen_u32(g) * n) >> 32);
}

/* 1 with probability pct/100. */
static int chance(struct bpf_gen *g, uint32_t pct)
{
	return bpf_gen_below(g, 100) < pct;
}

/* ---- valid programs ---------------------------------------------------- */

/* Builder state. The scratch bookkeeping is the kernel's rule-4 pass itself
 * (spec 1.9), run as we emit: since every jump is forward, the set of
 * cells the kernel considers stored at pc is known when pc is emitted. */
struct gctx {
	struct bpf_gen *g;
	struct sock_filter *out;
	uint32_t n;  /* final length; out[n-1] is the closing ret */
	uint32_t pc; /* next slot */
	uint16_t valid;
	uint16_t mask[BPF_MAXINSNS];
};

static uint32_t room(const struct gctx *c)
{
	return c->n - 1 - c->pc; /* slots before the closing ret */
}

static uint16_t cur_valid(const struct gctx *c)
{
	return c->valid & c->mask[c->pc];
}

static void emit(struct gctx *c, uint16_t code, uint8_t jt, uint8_t jf, uint32_t k)
{
	uint16_t v = cur_valid(c);
	struct sock_filter *in = &c->out[c->pc];
	in->code = code;
	in->jt = jt;
	in->jf = jf;
	in->k = k;
	switch (BPF_CLASS(code)) {
	case BPF_ST:
	case BPF_STX:
		v |= (uint16_t)(1u << (k & 15));
		c->valid = v;
		break;
	case BPF_JMP:
		if (BPF_OP(code) == BPF_JA) {
			c->mask[c->pc + 1 + k] &= v;
		} else {
			c->mask[c->pc + 1 + jt] &= v;
			c->mask[c->pc + 1 + jf] &= v;
		}
		c->valid = 0xffff;
		break;
	default:
		c->valid = v;
		break;
	}
	c->pc++;
}

/* A forward offset from the current pc (the jump's own slot) whose target
 * is at most the closing ret, capped at lim. */
static uint32_t pick_off(struct gctx *c, uint32_t lim)
{
	uint32_t maxoff = c->n - 2 - c->pc;
	if (maxoff > lim)
		maxoff = lim;
	uint32_t r = bpf_gen_below(c->g, 100);
	if (r < 35)
		return 0;
	if (r < 75)
		return bpf_gen_below(c->g, (maxoff < 6 ? maxoff : 6) + 1);
	if (r < 92)
		return bpf_gen_below(c->g, maxoff + 1);
	return maxoff;
}

static uint32_t pick_ret(struct bpf_gen *g)
{
	static const uint32_t vals[] = {0,       0xffffffffu, 0x10001, 0x10002,
					0x10003, 0x20001,     1,       2,
					3,       0xffff,      0x10000, 0x7fffffff};
	if (chance(g, 10))
		return bpf_gen_u32(g);
	return vals[bpf_gen_below(g, sizeof vals / sizeof vals[0])];
}

/* Packet offset for a load of size sz: mostly in the first 100 bytes,
 * sometimes past any realistic frame (the out-of-bounds path). Always
 * < 0x80000000 (never negative, never ancillary). */
static uint32_t pick_pkt_off(struct bpf_gen *g)
{
	static const uint32_t far[] = {1514, 1515, 1600, 9000, 65535, 65536,
				       0x7ffffffc, 0x7fffffff, 0x10000000};
	uint32_t r = bpf_gen_below(g, 100);
	if (r < 85)
		return bpf_gen_below(g, 101);
	if (r < 95)
		return 100 + bpf_gen_below(g, 1500);
	return far[bpf_gen_below(g, sizeof far / sizeof far[0])];
}

static uint32_t pick_imm(struct bpf_gen *g)
{
	static const uint32_t vals[] = {0, 1, 2, 4, 8, 14, 0xff, 0xffff,
					0x0800, 0x86dd, 6, 17, 0x80000000u, 0xffffffffu};
	uint32_t r = bpf_gen_below(g, 100);
	if (r < 40)
		return bpf_gen_below(g, 64);
	if (r < 75)
		return vals[bpf_gen_below(g, sizeof vals / sizeof vals[0])];
	return bpf_gen_u32(g);
}

static const uint16_t ld_sizes[] = {BPF_W, BPF_H, BPF_B};

/* Realistic header fields of Ethernet/IPv4/IPv6/TCP frames and values they
 * often hold, so branches depend on real packet bytes. */
struct field {
	uint32_t off;
	uint16_t size;
	uint32_t val;
};
static const struct field fields[] = {
	{12, BPF_H, 0x0800}, {12, BPF_H, 0x86dd}, {12, BPF_H, 0x0806},
	{12, BPF_H, 0x8100}, {14, BPF_B, 0x45},   {23, BPF_B, 6},
	{23, BPF_B, 17},     {23, BPF_B, 1},      {20, BPF_H, 0x1fff},
	{20, BPF_B, 6},      {20, BPF_B, 17},     {26, BPF_W, 0x0a000001},
	{30, BPF_W, 0xc0a80001}, {34, BPF_H, 22}, {36, BPF_H, 22},
	{36, BPF_H, 80},     {34, BPF_H, 443},    {47, BPF_B, 0x02},
	{0, BPF_W, 0xffffffffu}, {0, BPF_H, 0xffff}, {15, BPF_B, 0x10},
	{54, BPF_H, 22},     {56, BPF_H, 443},    {16, BPF_H, 40},
};
#define NFIELDS (sizeof fields / sizeof fields[0])

static void emit_ret(struct gctx *c)
{
	if (chance(c->g, 45))
		emit(c, BPF_RET | BPF_A, 0, 0, chance(c->g, 90) ? 0 : bpf_gen_u32(c->g));
	else
		emit(c, BPF_RET | BPF_K, 0, 0, pick_ret(c->g));
}

/* Conditional jump on A against k (or X). */
static void emit_cjmp(struct gctx *c, uint32_t k)
{
	static const uint16_t ops[] = {BPF_JEQ, BPF_JEQ, BPF_JEQ, BPF_JGT, BPF_JGE, BPF_JSET};
	uint16_t op = ops[bpf_gen_below(c->g, 6)];
	uint16_t src = chance(c->g, 20) ? BPF_X : BPF_K;
	uint32_t jt = pick_off(c, 255), jf = pick_off(c, 255);
	emit(c, (uint16_t)(BPF_JMP | op | src), (uint8_t)jt, (uint8_t)jf,
	     src == BPF_X && chance(c->g, 80) ? 0 : k);
}

/* Packet load into A of a realistic field, then a test on it. */
static void idiom_field_test(struct gctx *c)
{
	const struct field *f = &fields[bpf_gen_below(c->g, NFIELDS)];
	uint32_t k = f->val;
	emit(c, (uint16_t)(BPF_LD | f->size | BPF_ABS), 0, 0, f->off);
	if (room(c) == 0)
		return;
	if (chance(c->g, 20))
		k = chance(c->g, 50) ? k + 1 : pick_imm(c->g);
	emit_cjmp(c, k);
}

/* ldxb 4*([14]&0xf); ldh/ldb/ld [x+k]; test. */
static void idiom_msh_ind(struct gctx *c)
{
	uint32_t mk = chance(c->g, 80) ? 14 : pick_pkt_off(c->g);
	emit(c, BPF_LDX | BPF_B | BPF_MSH, 0, 0, mk);
	if (room(c) == 0)
		return;
	uint16_t sz = ld_sizes[bpf_gen_below(c->g, 3)];
	uint32_t k = chance(c->g, 70) ? 14 + bpf_gen_below(c->g, 24) : pick_pkt_off(c->g);
	emit(c, (uint16_t)(BPF_LD | sz | BPF_IND), 0, 0, k);
	if (room(c) == 0)
		return;
	static const uint32_t ports[] = {22, 80, 443, 53, 0x0002, 0x0010, 0x0012};
	emit_cjmp(c, ports[bpf_gen_below(c->g, sizeof ports / sizeof ports[0])]);
}

static void emit_ld_any(struct gctx *c)
{
	uint32_t r = bpf_gen_below(c->g, 100);
	uint16_t sz = ld_sizes[bpf_gen_below(c->g, 3)];
	uint16_t v = cur_valid(c);
	if (r < 35)
		emit(c, (uint16_t)(BPF_LD | sz | BPF_ABS), 0, 0, pick_pkt_off(c->g));
	else if (r < 50)
		emit(c, (uint16_t)(BPF_LD | sz | BPF_IND), 0, 0,
		     chance(c->g, 85) ? bpf_gen_below(c->g, 101) : pick_pkt_off(c->g));
	else if (r < 62)
		emit(c, BPF_LD | BPF_W | BPF_LEN, 0, 0, 0);
	else if (r < 74)
		emit(c, BPF_LD | BPF_W | BPF_IMM, 0, 0, pick_imm(c->g));
	else if (r < 88 && v) {
		uint32_t i;
		do
			i = bpf_gen_below(c->g, 16);
		while (!(v & (1u << i)));
		emit(c, BPF_LD | BPF_W | BPF_MEM, 0, 0, i);
	} else
		emit(c, BPF_MISC | BPF_TXA, 0, 0, 0);
}

static void emit_ldx_any(struct gctx *c)
{
	uint32_t r = bpf_gen_below(c->g, 100);
	uint16_t v = cur_valid(c);
	if (r < 25)
		emit(c, BPF_LDX | BPF_W | BPF_IMM, 0, 0,
		     chance(c->g, 30) ? 0 : pick_imm(c->g));
	else if (r < 40)
		emit(c, BPF_LDX | BPF_W | BPF_LEN, 0, 0, 0);
	else if (r < 55)
		emit(c, BPF_LDX | BPF_B | BPF_MSH, 0, 0, pick_pkt_off(c->g));
	else if (r < 70 && v) {
		uint32_t i;
		do
			i = bpf_gen_below(c->g, 16);
		while (!(v & (1u << i)));
		emit(c, BPF_LDX | BPF_W | BPF_MEM, 0, 0, i);
	} else
		emit(c, BPF_MISC | BPF_TAX, 0, 0, 0);
}

static const uint16_t alu_ops[] = {BPF_ADD, BPF_SUB, BPF_MUL, BPF_DIV, BPF_OR, BPF_AND,
				   BPF_LSH, BPF_RSH, BPF_NEG, BPF_MOD, BPF_XOR};

static void emit_alu_k(struct gctx *c)
{
	uint16_t op = alu_ops[bpf_gen_below(c->g, 11)];
	uint32_t k;
	if (op == BPF_DIV || op == BPF_MOD) {
		k = chance(c->g, 70) ? 1 + bpf_gen_below(c->g, 16) : bpf_gen_u32(c->g);
		if (k == 0)
			k = 0xffffffffu;
	} else if (op == BPF_LSH || op == BPF_RSH) {
		k = bpf_gen_below(c->g, 32);
	} else if (op == BPF_NEG) {
		k = chance(c->g, 90) ? 0 : bpf_gen_u32(c->g); /* k unused, unchecked */
	} else {
		k = pick_imm(c->g);
	}
	emit(c, (uint16_t)(BPF_ALU | op | BPF_K), 0, 0, k);
}

static void emit_alu_x(struct gctx *c)
{
	uint16_t op;
	do
		op = alu_ops[bpf_gen_below(c->g, 11)];
	while (op == BPF_NEG);
	emit(c, (uint16_t)(BPF_ALU | op | BPF_X), 0, 0, chance(c->g, 90) ? 0 : bpf_gen_u32(c->g));
}

/* Set X (sometimes to 0), then an ALU op with X (div/mod often). */
static void idiom_alu_x(struct gctx *c)
{
	emit_ldx_any(c);
	if (room(c) == 0)
		return;
	if (chance(c->g, 40)) {
		uint16_t op = chance(c->g, 50) ? BPF_DIV : BPF_MOD;
		emit(c, (uint16_t)(BPF_ALU | op | BPF_X), 0, 0, 0);
	} else {
		emit_alu_x(c);
	}
}

static void emit_store(struct gctx *c)
{
	uint16_t cls = chance(c->g, 50) ? BPF_ST : BPF_STX;
	emit(c, cls, 0, 0, bpf_gen_below(c->g, 16));
}

static void emit_ja(struct gctx *c)
{
	emit(c, BPF_JMP | BPF_JA, chance(c->g, 90) ? 0 : (uint8_t)bpf_gen_u32(c->g),
	     chance(c->g, 90) ? 0 : (uint8_t)bpf_gen_u32(c->g), pick_off(c, 0xffffffffu));
}

/* One step: an idiom or a single instruction, never past the closing ret. */
static void gen_step(struct gctx *c)
{
	uint32_t r = bpf_gen_below(c->g, 100);
	if (r < 16)
		idiom_field_test(c);
	else if (r < 24)
		idiom_msh_ind(c);
	else if (r < 34)
		idiom_alu_x(c);
	else if (r < 46)
		emit_ld_any(c);
	else if (r < 52)
		emit_ldx_any(c);
	else if (r < 62)
		emit_alu_k(c);
	else if (r < 66)
		emit_alu_x(c);
	else if (r < 74)
		emit_store(c);
	else if (r < 82) {
		uint32_t k = chance(c->g, 50) ? pick_imm(c->g) : fields[bpf_gen_below(c->g, NFIELDS)].val;
		emit_cjmp(c, k);
	} else if (r < 86)
		emit_ja(c);
	else if (r < 94)
		emit_ret(c);
	else if (r < 97)
		emit(c, BPF_MISC | BPF_TAX, 0, 0, 0);
	else
		emit(c, BPF_MISC | BPF_TXA, 0, 0, 0);
}

static uint32_t gen_valid_n(struct bpf_gen *g, struct sock_filter *out, uint32_t n)
{
	struct gctx c;
	c.g = g;
	c.out = out;
	c.n = n;
	c.pc = 0;
	c.valid = 0;
	memset(c.mask, 0xff, sizeof c.mask);
	while (room(&c) > 0)
		gen_step(&c);
	emit_ret(&c);
	return n;
}

static uint32_t clamp_max(uint32_t max)
{
	return max > BPF_MAXINSNS ? BPF_MAXINSNS : max;
}

uint32_t bpf_gen_valid(struct bpf_gen *g, struct sock_filter *out, uint32_t max)
{
	max = clamp_max(max);
	if (max == 0)
		return 0;
	if (max == 1) {
		out[0].code = BPF_RET | BPF_K;
		out[0].jt = out[0].jf = 0;
		out[0].k = pick_ret(g);
		return 1;
	}
	return gen_valid_n(g, out, 2 + bpf_gen_below(g, max - 1));
}

/* ---- mutated programs -------------------------------------------------- */

/* Codes outside the whitelist: bits the decoder ignores, seccomp's ldx abs,
 * alu neg x, ret x, eBPF-only ops, sizes in modes that have none. */
static const uint16_t bad_codes[] = {
	0x0e, 0x21, 0x8c, 0x0f, 0xff, 0x1f, 0x08, 0x09, 0x0a, 0x0b, 0x0d, 0x17,
	0x1e, 0x26, 0x8e, 0xa7, 0xb4, 0xc4, 0xd4, 0xe4, 0x55, 0x5d, 0x65, 0xa5,
	0x38, 0x68, 0x70, 0x88, 0x90, 0xa0, 0xb0, 0xa9, 0x62, 0x63, 0x29, 0x31,
	0x41, 0x0c | 0x100, 0x06 | 0x100, 0x20 | 0x8000, 0xffff, 0x1006, 0x0116,
	0x1c | 0x1000, 0x22, 0x42, 0x8f, 0x97, 0x7f, 0xb5, 0xc5, 0xd5,
};
#define NBAD (sizeof bad_codes / sizeof bad_codes[0])

/* The whitelist of spec 1.3, for random-but-allowed replacements. */
static const uint16_t good_codes[] = {
	0x00, 0x20, 0x28, 0x30, 0x40, 0x48, 0x50, 0x60, 0x80, 0x01, 0x61, 0x81,
	0xb1, 0x02, 0x03, 0x04, 0x0c, 0x14, 0x1c, 0x24, 0x2c, 0x34, 0x3c, 0x94,
	0x9c, 0x44, 0x4c, 0x54, 0x5c, 0xa4, 0xac, 0x64, 0x6c, 0x74, 0x7c, 0x84,
	0x05, 0x15, 0x1d, 0x25, 0x2d, 0x35, 0x3d, 0x45, 0x4d, 0x06, 0x16, 0x07,
	0x87,
};
#define NGOOD (sizeof good_codes / sizeof good_codes[0])

static const uint16_t cjmp_codes[] = {0x15, 0x1d, 0x25, 0x2d, 0x35, 0x3d, 0x45, 0x4d};

static void put(struct sock_filter *in, uint16_t code, uint8_t jt, uint8_t jf, uint32_t k)
{
	in->code = code;
	in->jt = jt;
	in->jf = jf;
	in->k = k;
}

static uint32_t anc_known_n(struct bpf_gen *g)
{
	return 4 * bpf_gen_below(g, 16); /* 0..60: every current offset */
}

static uint32_t anc_unknown_n(struct bpf_gen *g)
{
	static const uint32_t ns[] = {1, 2, 3, 5, 6, 7, 13, 57, 59, 62, 63, 0x40, 0x44,
				      0x48, 0x80, 0x100, 0x800, 0xffc, 0xffd, 0xfff};
	if (chance(g, 15)) {
		uint32_t n = bpf_gen_below(g, 0x1000);
		if (n < 64 && n % 4 == 0)
			n += 1;
		return n;
	}
	return ns[bpf_gen_below(g, sizeof ns / sizeof ns[0])];
}

static uint32_t mutate(struct bpf_gen *g, struct sock_filter *out, uint32_t n, uint32_t max)
{
	uint32_t pc = bpf_gen_below(g, n);
	uint32_t body = n > 1 ? bpf_gen_below(g, n - 1) : 0; /* not the last */
	uint16_t sz = ld_sizes[bpf_gen_below(g, 3)];
	switch (bpf_gen_below(g, 20)) {
	case 0: /* opcode outside the whitelist */
	case 1:
		out[pc].code = bad_codes[bpf_gen_below(g, NBAD)];
		break;
	case 2: /* div/mod #0, or the accepted neighbours */
		put(&out[body], chance(g, 50) ? 0x34 : 0x94, 0, 0,
		    chance(g, 75) ? 0 : bpf_gen_below(g, 3));
		if (chance(g, 25))
			out[body].code |= BPF_X; /* div/mod x: k ignored */
		break;
	case 3: { /* constant shifts around 32 */
		static const uint32_t ks[] = {31, 32, 33, 63, 64, 255, 0x80000000u, 0xffffffffu, 0};
		put(&out[body], chance(g, 50) ? 0x64 : 0x74, 0, 0,
		    ks[bpf_gen_below(g, sizeof ks / sizeof ks[0])]);
		break;
	}
	case 4: { /* scratch index around 16 */
		static const uint16_t cs[] = {0x02, 0x03, 0x60, 0x61};
		static const uint32_t ks[] = {15, 16, 17, 31, 0x10000, 0xffffffffu};
		put(&out[body], cs[bpf_gen_below(g, 4)], 0, 0, ks[bpf_gen_below(g, 6)]);
		break;
	}
	case 5: { /* ja near and past the end */
		uint32_t lim = n - body - 1; /* k >= lim rejects */
		static const int32_t ds[] = {-1, 0, 1, 2};
		uint32_t k = chance(g, 15) ? (chance(g, 50) ? 0xffffffffu : 0x80000000u)
					   : lim + (uint32_t)ds[bpf_gen_below(g, 4)];
		put(&out[body], BPF_JMP | BPF_JA, (uint8_t)bpf_gen_u32(g), (uint8_t)bpf_gen_u32(g), k);
		break;
	}
	case 6: { /* conditional jt/jf near and past the end */
		uint32_t lim = n - body - 1;
		uint32_t a = lim > 0 ? lim - 1 : 0, b = lim + bpf_gen_below(g, 2);
		if (b > 255)
			b = 255;
		if (a > 255)
			a = 255;
		uint32_t jt = chance(g, 50) ? a : b, jf = chance(g, 50) ? a : bpf_gen_below(g, a + 1);
		if (chance(g, 50)) {
			uint32_t t = jt;
			jt = jf;
			jf = t;
		}
		put(&out[body], cjmp_codes[bpf_gen_below(g, 8)], (uint8_t)jt,
		    (uint8_t)jf, pick_imm(g));
		break;
	}
	case 7: /* last not ret */
		if (chance(g, 50) && n > 1)
			return 1 + bpf_gen_below(g, n - 1); /* truncate */
		do
			out[n - 1].code = good_codes[bpf_gen_below(g, NGOOD)];
		while (BPF_CLASS(out[n - 1].code) == BPF_RET);
		if (BPF_CLASS(out[n - 1].code) == BPF_JMP)
			out[n - 1].jt = out[n - 1].jf = 0, out[n - 1].k = 0;
		break;
	case 8: /* a scratch read that may not be stored on every path */
		put(&out[body], chance(g, 50) ? 0x60 : 0x61, 0, 0, bpf_gen_below(g, 16));
		break;
	case 9: /* one-path store then read: jeq; st; ld */
		if (n >= 4) {
			uint32_t p = bpf_gen_below(g, n - 3), m = bpf_gen_below(g, 16);
			put(&out[p], 0x15, 0, 1, pick_imm(g));
			put(&out[p + 1], chance(g, 50) ? 0x02 : 0x03, 0, 0, m);
			put(&out[p + 2], chance(g, 50) ? 0x60 : 0x61, 0, 0, m);
		}
		break;
	case 10: /* spec 1.9 rule 4: state after ret merges into pc+1 */
		if (n >= 6) {
			uint32_t p = bpf_gen_below(g, n - 5), m = bpf_gen_below(g, 16);
			put(&out[p], 0x15, 0, 2, pick_imm(g));
			put(&out[p + 1], 0x02, 0, 0, m);
			put(&out[p + 2], 0x05, 0, 0, 1);
			put(&out[p + 3], chance(g, 50) ? 0x06 : 0x16, 0, 0, pick_ret(g));
			put(&out[p + 4], chance(g, 50) ? 0x60 : 0x61, 0, 0, m);
		} else if (max >= 6) {
			uint32_t m = bpf_gen_below(g, 16);
			n = 6;
			put(&out[0], 0x15, 0, 2, 1);
			put(&out[1], 0x02, 0, 0, m);
			put(&out[2], 0x05, 0, 0, 1);
			put(&out[3], 0x06, 0, 0, 0);
			put(&out[4], 0x60, 0, 0, m);
			put(&out[5], 0x16, 0, 0, 0);
		}
		break;
	case 11: /* unknown ancillary offset */
		put(&out[body], (uint16_t)(BPF_LD | sz | BPF_ABS), 0, 0, 0xfffff000u + anc_unknown_n(g));
		break;
	case 12: /* known ancillary offset (any size) */
		put(&out[body], (uint16_t)(BPF_LD | sz | BPF_ABS), 0, 0, 0xfffff000u + anc_known_n(g));
		break;
	case 13: /* IND or msh with k in the ancillary range: not checked */
		put(&out[body], chance(g, 50) ? (uint16_t)(BPF_LD | sz | BPF_IND) : 0xb1, 0, 0,
		    0xfffff000u + (chance(g, 50) ? anc_known_n(g) : anc_unknown_n(g)));
		break;
	case 14: { /* negative ABS offsets below the ancillary range */
		static const uint32_t ks[] = {0xfff00000u, 0xfff0000eu, 0xffe00000u, 0xffe0000cu,
					      0xffefffffu, 0x80000000u, 0xffdfffffu, 0xffffefffu};
		put(&out[body], (uint16_t)(BPF_LD | sz | BPF_ABS), 0, 0,
		    ks[bpf_gen_below(g, sizeof ks / sizeof ks[0])]);
		break;
	}
	case 15: /* random allowed instruction with random operands */
		put(&out[pc], good_codes[bpf_gen_below(g, NGOOD)], (uint8_t)bpf_gen_u32(g),
		    (uint8_t)bpf_gen_u32(g), chance(g, 50) ? bpf_gen_u32(g) : bpf_gen_below(g, 20));
		break;
	case 16: /* garbage in fields nobody reads */
		if (BPF_CLASS(out[pc].code) != BPF_JMP || BPF_OP(out[pc].code) == BPF_JA) {
			out[pc].jt = (uint8_t)bpf_gen_u32(g);
			out[pc].jf = (uint8_t)bpf_gen_u32(g);
		}
		if (out[pc].code == 0x07 || out[pc].code == 0x87 || out[pc].code == 0x80 ||
		    out[pc].code == 0x81 || out[pc].code == 0x16 || out[pc].code == 0x84)
			out[pc].k = bpf_gen_u32(g);
		break;
	case 17: /* ret-only / very short program */
		if (chance(g, 50)) {
			put(&out[0], chance(g, 50) ? 0x06 : 0x16, 0, 0, pick_ret(g));
			return 1;
		}
		return 1 + bpf_gen_below(g, n < 3 ? n : 3);
	case 18: /* totally random code word */
		out[pc].code = (uint16_t)bpf_gen_u32(g);
		if (chance(g, 70))
			out[pc].code &= 0xff;
		break;
	default: /* a ret-merge store/read pair without the jump structure */
		if (n >= 3) {
			uint32_t p = bpf_gen_below(g, n - 2), m = bpf_gen_below(g, 16);
			put(&out[p], 0x06, 0, 0, 0);
			put(&out[p + 1], chance(g, 50) ? 0x60 : 0x61, 0, 0, m);
		}
		break;
	}
	return n;
}

uint32_t bpf_gen_any(struct bpf_gen *g, struct sock_filter *out, uint32_t max)
{
	max = clamp_max(max);
	if (max == 0)
		return 0;
	uint32_t n = bpf_gen_valid(g, out, max);
	uint32_t muts = 1 + bpf_gen_below(g, 3);
	for (uint32_t i = 0; i < muts; i++)
		n = mutate(g, out, n, max);
	return n;
}
