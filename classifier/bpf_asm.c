/* bpf_asm.c - classic BPF assembler for the language of netsniff-ng's bpfc
 * (0.6.8) and the kernel's tools/bpf/bpf_asm, byte-exact with bpfc.
 *
 * The language, as bpfc reads it:
 *  - free-form token stream: newlines only separate tokens, so several
 *    instructions may share a line; a label is `name:` before an
 *    instruction (same line or an earlier one), one label per instruction;
 *  - mnemonics, x, a, M, ancillary names and number prefixes are
 *    case-insensitive, labels are case-sensitive and have >= 2 characters
 *    ([A-Za-z_][A-Za-z0-9_]+) and may not be a keyword;
 *  - comments: `;` to end of line, C comments (may span lines), and a
 *    line whose first column is `#` (C preprocessor residue);
 *  - numbers: decimal with optional sign (two's complement), 0x hex, 0b
 *    binary, leading-0 octal;
 *  - jumps name labels only and go forward; jne/jneq/jlt/jle put their one
 *    target in jf (jlt -> jge, jle -> jgt), so "true" falls through.
 *
 * Deliberate differences from bpfc 0.6.8; whatever both accept encodes
 * identically (checked by the tests against the installed bpfc).
 * Accepted here, rejected by bpfc:
 *  - the kernel bpf_asm names #vlan_avail, #vlan_pr, #vlan_tpid, #rand;
 *  - `[x+14]` (bpfc lexes "+14" as a number and rejects it);
 *  - two targets on jne/jneq/jlt/jle (`jne #k, Lt, Lf` = jeq #k, Lf, Lt);
 *  - '\r' as whitespace (CRLF files), and "-0";
 *  - a C comment ending in "**" and a slash (bpfc's pattern misses it).
 * Rejected here, though bpfc assembles it to something surprising:
 *  - numbers beyond 32 bits (bpfc wraps or saturates), octal with 8 or 9
 *    (bpfc stops at the digit), a number glued to letters ("12ab");
 *  - duplicate labels (bpfc takes the first), backward jumps and
 *    conditional jumps beyond 255 (bpfc leaves them to its validator).
 * The `.insn` lines the disassembler prints for encodings that have no
 * syntax are rejected with a message saying so.
 *
 * The words of the language and the lexer are bpf_asm_lex.c; this file
 * parses, encodes and resolves the jumps. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bpf_asm.h"
#include "bpf_asm_lex.h"
#include "infile.h"

/* ---- parser state ---- */

struct label {
	const char *s;
	size_t n;
	uint32_t pc;
	unsigned line;
};

enum jfield { J_T, J_F, J_K };

struct fixup {
	const char *s; /* label name in the source */
	size_t n;
	unsigned line;
	uint32_t pc;
	enum jfield field;
};

struct asm_ctx {
	const char *name;
	struct lexpos lp;
	struct tok tk;      /* lookahead */
	unsigned last_line; /* line of the last consumed token */
	char *err;
	size_t errlen;
	int failed;
	struct sock_filter insns[BPF_MAXINSNS];
	uint32_t n;
	struct label labels[BPF_MAXINSNS + 1]; /* one per insn, + 1 at the end */
	uint32_t nlabels;
	struct fixup fix[2 * BPF_MAXINSNS];
	uint32_t nfix;
};

static int fail(struct asm_ctx *c, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct asm_ctx *c, unsigned line, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (c->failed || !c->err || c->errlen == 0) {
		c->failed = 1;
		return -EINVAL;
	}
	c->failed = 1;
	k = snprintf(c->err, c->errlen, "%s:%u: ", c->name, line);
	if (k >= 0 && (size_t)k < c->errlen) {
		va_start(ap, fmt);
		vsnprintf(c->err + k, c->errlen - (size_t)k, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* Token text for messages: quoted, non-printables escaped, at most 40. */
static const char *quote(const struct tok *t, char *buf, size_t n)
{
	size_t i, o = 0, len = t->n < 40 ? t->n : 40;

	if (t->kind == T_EOF)
		return "end of input";
	buf[o++] = '\'';
	for (i = 0; i < len && o + 6 < n; i++) {
		unsigned char ch = (unsigned char)t->s[i];

		if (isprint(ch))
			buf[o++] = (char)ch;
		else
			o += (size_t)snprintf(buf + o, n - o, "\\x%02x", ch);
	}
	if (len < t->n && o + 4 < n) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o++] = '\'';
	buf[o] = '\0';
	return buf;
}

static void advance(struct asm_ctx *c)
{
	c->last_line = c->tk.line;
	bpf_asm_lex(&c->lp, &c->tk);
}

/* The token after the lookahead, without consuming anything. */
static struct tok peek2(const struct asm_ctx *c)
{
	struct lexpos lp = c->lp;
	struct tok t;

	bpf_asm_lex(&lp, &t);
	return t;
}

static int lex_failed(struct asm_ctx *c)
{
	char q[64];

	if (c->tk.kind != T_ERR)
		return 0;
	fail(c, c->tk.line, "%s %s", c->tk.msg, quote(&c->tk, q, sizeof(q)));
	return 1;
}

static int is_punct(const struct tok *t, char ch)
{
	return t->kind == T_PUNCT && t->s[0] == ch;
}

static int accept(struct asm_ctx *c, char ch)
{
	if (!is_punct(&c->tk, ch))
		return 0;
	advance(c);
	return 1;
}

static int accept_kind(struct asm_ctx *c, enum tok_kind k)
{
	if (c->tk.kind != k)
		return 0;
	advance(c);
	return 1;
}

static int accept_num(struct asm_ctx *c, uint32_t *v)
{
	if (c->tk.kind != T_NUM)
		return 0;
	*v = c->tk.val;
	advance(c);
	return 1;
}

/* ---- operands: each returns 1 if the form matched, 0 if not ---- */

/* x or %x */
static int opnd_x(struct asm_ctx *c)
{
	if (is_punct(&c->tk, '%') && peek2(c).kind == T_X)
		advance(c);
	return accept_kind(c, T_X);
}

/* #k */
static int opnd_imm(struct asm_ctx *c, uint32_t *k)
{
	return accept(c, '#') && accept_num(c, k);
}

/* M[k] */
static int opnd_mem(struct asm_ctx *c, uint32_t *k)
{
	return accept_kind(c, T_M) && accept(c, '[') && accept_num(c, k) &&
	       accept(c, ']');
}

/* [k] or [x + k] ([%x + k], and [x+k] whose "+k" lexes as a number) */
static int opnd_pkt(struct asm_ctx *c, uint16_t *mode, uint32_t *k)
{
	if (!accept(c, '['))
		return 0;
	*mode = BPF_ABS;
	if (opnd_x(c)) {
		*mode = BPF_IND;
		if (!accept(c, '+') && !(c->tk.kind == T_NUM && c->tk.plus))
			return 0;
	}
	return accept_num(c, k) && accept(c, ']');
}

/* 4*([k]&0xf) */
static int opnd_msh(struct asm_ctx *c, uint32_t *k, int *odd)
{
	uint32_t four, mask;

	if (!(accept_num(c, &four) && accept(c, '*') && accept(c, '(') &&
	      accept(c, '[') && accept_num(c, k) && accept(c, ']') &&
	      accept(c, '&') && accept_num(c, &mask) && accept(c, ')')))
		return 0;
	*odd = four != 4 || mask != 0xf;
	return 1;
}

/* An ancillary name (not #len); k = SKF_AD_OFF + offset. */
static int opnd_anc(struct asm_ctx *c, uint32_t *k)
{
	if (c->tk.kind != T_EXT || bpf_asm_exts[c->tk.val].off == EXT_LEN)
		return 0;
	*k = (uint32_t)SKF_AD_OFF + bpf_asm_exts[c->tk.val].off;
	advance(c);
	return 1;
}

static int opnd_len(struct asm_ctx *c)
{
	if (c->tk.kind != T_EXT || bpf_asm_exts[c->tk.val].off != EXT_LEN)
		return 0;
	advance(c);
	return 1;
}

/* ---- instructions ---- */

static int emit(struct asm_ctx *c, uint16_t code, uint32_t k)
{
	struct sock_filter *in = &c->insns[c->n++];

	in->code = code;
	in->jt = 0;
	in->jf = 0;
	in->k = k;
	return 1;
}

static int ins_ld(struct asm_ctx *c, const struct mnem *m)
{
	uint16_t mode;
	uint32_t k;

	switch (c->tk.kind) {
	case T_EXT:
		if (opnd_len(c))
			return emit(c, BPF_LD | BPF_W | BPF_LEN, 0);
		return opnd_anc(c, &k) && emit(c, BPF_LD | BPF_W | BPF_ABS, k);
	case T_M:
		return opnd_mem(c, &k) && emit(c, BPF_LD | BPF_MEM, k);
	default:
		if (is_punct(&c->tk, '#'))
			return opnd_imm(c, &k) && emit(c, BPF_LD | BPF_IMM, k);
		return opnd_pkt(c, &mode, &k) && emit(c, m->code | mode, k);
	}
}

static int ins_ldhb(struct asm_ctx *c, const struct mnem *m)
{
	uint16_t mode;
	uint32_t k;

	if (opnd_anc(c, &k))
		return emit(c, m->code | BPF_ABS, k);
	return opnd_pkt(c, &mode, &k) && emit(c, m->code | mode, k);
}

static int ins_msh(struct asm_ctx *c, unsigned line)
{
	uint32_t k;
	int odd = 0;

	if (!opnd_msh(c, &k, &odd))
		return 0;
	if (odd)
		return fail(c, line, "only 4*([k]&0xf) exists (the IP header "
				     "length load)"), 0;
	return emit(c, BPF_LDX | BPF_B | BPF_MSH, k);
}

static int ins_ldx(struct asm_ctx *c, unsigned line)
{
	uint32_t k;

	if (opnd_len(c))
		return emit(c, BPF_LDX | BPF_W | BPF_LEN, 0);
	if (c->tk.kind == T_M)
		return opnd_mem(c, &k) && emit(c, BPF_LDX | BPF_MEM, k);
	if (c->tk.kind == T_NUM)
		return ins_msh(c, line);
	return opnd_imm(c, &k) && emit(c, BPF_LDX | BPF_IMM, k);
}

static int ins_ldi(struct asm_ctx *c, const struct mnem *m)
{
	uint32_t k;

	accept(c, '#');
	return accept_num(c, &k) && emit(c, m->code, k);
}

static int ins_st(struct asm_ctx *c, const struct mnem *m)
{
	uint32_t k;

	return opnd_mem(c, &k) && emit(c, m->code, k);
}

static int ins_alu(struct asm_ctx *c, const struct mnem *m)
{
	uint32_t k;

	if (opnd_x(c))
		return emit(c, m->code | BPF_X, 0);
	return opnd_imm(c, &k) && emit(c, m->code | BPF_K, k);
}

static int ins_ret(struct asm_ctx *c)
{
	uint32_t k;

	if (is_punct(&c->tk, '%') && peek2(c).kind == T_A)
		advance(c);
	if (accept_kind(c, T_A))
		return emit(c, BPF_RET | BPF_A, 0);
	if (opnd_x(c))
		return emit(c, BPF_RET | BPF_X, 0);
	return opnd_imm(c, &k) && emit(c, BPF_RET | BPF_K, k);
}

/* A label reference for field f of the instruction about to be emitted. */
static int label_ref(struct asm_ctx *c, enum jfield f)
{
	struct fixup *fx;

	if (c->tk.kind != T_LABEL)
		return 0;
	fx = &c->fix[c->nfix++];
	fx->s = c->tk.s;
	fx->n = c->tk.n;
	fx->line = c->tk.line;
	fx->pc = c->n;
	fx->field = f;
	advance(c);
	return 1;
}

static int ins_jcond(struct asm_ctx *c, const struct mnem *m)
{
	enum jfield first = m->fam == F_JNEG ? J_F : J_T;
	uint16_t src = BPF_X;
	uint32_t k = 0;

	if (!opnd_x(c)) {
		if (!opnd_imm(c, &k))
			return 0;
		src = BPF_K;
	}
	if (!(accept(c, ',') && label_ref(c, first)))
		return 0;
	if (accept(c, ',') && !label_ref(c, first == J_T ? J_F : J_T))
		return 0;
	return emit(c, m->code | src, k);
}

static int operands(struct asm_ctx *c, const struct mnem *m, unsigned line)
{
	switch (m->fam) {
	case F_LD:
		return ins_ld(c, m);
	case F_LDHB:
		return ins_ldhb(c, m);
	case F_LDI:
		return ins_ldi(c, m);
	case F_LDX:
		return ins_ldx(c, line);
	case F_LDXB:
		return c->tk.kind == T_NUM && ins_msh(c, line);
	case F_ST:
		return ins_st(c, m);
	case F_JA:
		return label_ref(c, J_K) && emit(c, m->code, 0);
	case F_JCOND:
	case F_JNEG:
		return ins_jcond(c, m);
	case F_ALU:
		return ins_alu(c, m);
	case F_BARE:
		return emit(c, m->code, 0);
	case F_RET:
		return ins_ret(c);
	}
	return 0;
}

static int instruction(struct asm_ctx *c)
{
	const struct mnem *m = &bpf_asm_mnems[c->tk.val];
	unsigned line = c->tk.line;
	uint32_t nfix = c->nfix;
	char q[64];

	if (c->n == BPF_MAXINSNS)
		return fail(c, line, "more than %d instructions (BPF_MAXINSNS)",
			    BPF_MAXINSNS);
	advance(c);
	if (operands(c, m, line))
		return 0;
	c->nfix = nfix;
	if (c->failed || lex_failed(c))
		return -EINVAL;
	return fail(c, line, "bad operand for '%s': expected %s, got %s",
		    m->name, m->forms,
		    c->tk.line == line ? quote(&c->tk, q, sizeof(q))
				       : "end of line");
}

/* ---- labels ---- */

static const struct label *find_label(const struct asm_ctx *c, const char *s,
				      size_t n)
{
	uint32_t i;

	for (i = 0; i < c->nlabels; i++)
		if (c->labels[i].n == n && memcmp(c->labels[i].s, s, n) == 0)
			return &c->labels[i];
	return NULL;
}

/* `name:` (lookahead is the name, the ':' follows). */
static int define_label(struct asm_ctx *c)
{
	const struct label *old = find_label(c, c->tk.s, c->tk.n);
	struct label *l;

	if (old)
		return fail(c, c->tk.line,
			    "duplicate label '%.*s' (first defined at line %u)",
			    (int)c->tk.n, c->tk.s, old->line);
	l = &c->labels[c->nlabels++];
	l->s = c->tk.s;
	l->n = c->tk.n;
	l->pc = c->n;
	l->line = c->tk.line;
	advance(c);
	advance(c);
	return 0;
}

static int is_label_def(const struct asm_ctx *c)
{
	struct tok t;

	if (c->tk.kind != T_LABEL)
		return 0;
	t = peek2(c);
	return is_punct(&t, ':');
}

/* After `name:` an instruction must follow (bpfc: one label each). */
static int after_label(struct asm_ctx *c, const struct label *l)
{
	char q[64];

	if (c->tk.kind == T_MNEM || lex_failed(c))
		return c->failed ? -EINVAL : 0;
	if (c->tk.kind == T_EOF)
		return fail(c, l->line, "label '%.*s' is not followed by an "
			    "instruction", (int)l->n, l->s);
	if (is_label_def(c))
		return fail(c, c->tk.line, "label '%.*s' directly follows "
			    "label '%.*s'; one label per instruction",
			    (int)c->tk.n, c->tk.s, (int)l->n, l->s);
	return fail(c, c->tk.line, "expected an instruction after label "
		    "'%.*s', got %s", (int)l->n, l->s,
		    quote(&c->tk, q, sizeof(q)));
}

/* The lookahead cannot start an instruction: say why. */
static int not_an_insn(struct asm_ctx *c, int after_insn)
{
	char q[64];

	if (lex_failed(c))
		return -EINVAL;
	quote(&c->tk, q, sizeof(q));
	if (after_insn && c->tk.line == c->last_line)
		return fail(c, c->tk.line, "trailing garbage %s after the "
			    "instruction", q);
	if (c->tk.kind == T_DIR && c->tk.n == 5 &&
	    strncasecmp(c->tk.s, ".insn", 5) == 0)
		return fail(c, c->tk.line, "'.insn' is a raw encoding the "
			    "disassembler prints when no assembly syntax "
			    "gives it; it cannot be assembled");
	if (c->tk.kind == T_DIR)
		return fail(c, c->tk.line, "unknown directive %s (there are "
			    "none)", q);
	if (c->tk.kind == T_LABEL)
		return fail(c, c->tk.line, "unknown mnemonic %s", q);
	return fail(c, c->tk.line, "expected an instruction, got %s", q);
}

/* ---- jump resolution ---- */

static int resolve(struct asm_ctx *c, const struct fixup *fx)
{
	const struct label *l = find_label(c, fx->s, fx->n);
	struct sock_filter *in = &c->insns[fx->pc];
	int n = (int)fx->n;
	uint32_t off;

	if (!l)
		return fail(c, fx->line, "undefined label '%.*s'", n,
			    fx->s);
	if (l->pc <= fx->pc)
		return fail(c, fx->line, "jump to '%.*s' goes backward "
			    "(label at line %u); classic BPF jumps only "
			    "forward", n, fx->s, l->line);
	off = l->pc - fx->pc - 1;
	if (fx->field != J_K && off > 255)
		return fail(c, fx->line, "jump to '%.*s' is %u "
			    "instructions away; conditional jumps reach at "
			    "most 255", n, fx->s, off);
	if (fx->field == J_K)
		in->k = off;
	else if (fx->field == J_T)
		in->jt = (uint8_t)off;
	else
		in->jf = (uint8_t)off;
	return 0;
}

/* ---- driver ---- */

static int parse(struct asm_ctx *c)
{
	int after_insn = 0;
	uint32_t i;

	bpf_asm_lex(&c->lp, &c->tk);
	while (c->tk.kind != T_EOF && !c->failed) {
		if (is_label_def(c)) {
			if (define_label(c) == 0)
				after_label(c, &c->labels[c->nlabels - 1]);
		} else if (c->tk.kind == T_MNEM) {
			instruction(c);
			after_insn = 1;
		} else {
			not_an_insn(c, after_insn);
		}
	}
	if (c->failed)
		return -EINVAL;
	if (c->n == 0)
		return fail(c, 1, "empty program: no instructions");
	for (i = 0; i < c->nfix; i++)
		if (resolve(c, &c->fix[i]) < 0)
			return -EINVAL;
	return 0;
}

int bpf_asm(const char *src, const char *name, struct sock_filter **out,
	    uint32_t *len, char *err, size_t errlen)
{
	struct asm_ctx *c = calloc(1, sizeof(*c));
	int rc;

	if (err && errlen)
		err[0] = '\0';
	if (!c) {
		if (err && errlen)
			snprintf(err, errlen, "%s: out of memory",
				 name ? name : "<input>");
		return -ENOMEM;
	}
	c->name = name ? name : "<input>";
	c->lp.src = src ? src : "";
	c->lp.line = 1;
	c->err = err;
	c->errlen = errlen;
	rc = parse(c);
	if (rc == 0) {
		*out = malloc(c->n * sizeof(**out));
		if (*out) {
			memcpy(*out, c->insns, c->n * sizeof(**out));
			*len = c->n;
		} else {
			rc = -ENOMEM;
			if (err && errlen)
				snprintf(err, errlen, "%s: out of memory",
					 c->name);
		}
	}
	free(c);
	return rc;
}

/* Whole file into a NUL-terminated buffer; a NUL inside is an error. */
static int read_text(const char *path, char **buf, char *err, size_t errlen)
{
	FILE *f;
	size_t cap = 4096, n = 0, got;
	char *b = NULL, *nb;
	const char *why;
	unsigned line = 1;
	int e = infile_open(&f, path, &why);

	if (e) {
		*buf = NULL;
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path, why);
		return e;
	}
	do {
		if (!(nb = realloc(b, cap + 1))) {
			errno = ENOMEM;
			goto io_error;
		}
		b = nb;
		n += got = fread(b + n, 1, cap - n, f);
		if (n == cap)
			cap *= 2;
	} while (got > 0);
	if (ferror(f))
		goto io_error;
	fclose(f);
	b[n] = '\0';
	*buf = b;
	if (strlen(b) == n)
		return 0;
	for (const char *q = b; *q; q++)
		line += *q == '\n';
	if (err && errlen)
		snprintf(err, errlen, "%s:%u: a NUL byte: assembly is text (a binary file?)", path, line);
	return -EINVAL;
io_error:
	e = errno ? errno : EIO;
	if (f)
		fclose(f);
	free(b);
	*buf = NULL;
	if (err && errlen)
		snprintf(err, errlen, "%s: %s", path, strerror(e));
	return -e;
}

int bpf_asm_file(const char *path, struct sock_filter **out, uint32_t *len,
		 char *err, size_t errlen)
{
	char *src = NULL;
	int rc = read_text(path, &src, err, errlen);

	if (rc == 0)
		rc = bpf_asm(src, path, out, len, err, errlen);
	free(src);
	return rc;
}
