/* bpf_asm_lex.h - what the assembler's lexer (bpf_asm_lex.c) gives its
 * parser (bpf_asm.c): tokens, the mnemonics and ancillary names they index,
 * and the lexer. Not a public header; the language is told in bpf_asm.c. */
#ifndef TCSIM_BPF_ASM_LEX_H
#define TCSIM_BPF_ASM_LEX_H

#include <stddef.h>
#include <stdint.h>

enum tok_kind {
	T_EOF,
	T_ERR,	 /* lexical error; msg says what */
	T_NUM,	 /* val */
	T_LABEL, /* a name that is no keyword */
	T_MNEM,	 /* val: index into bpf_asm_mnems[] */
	T_EXT,	 /* val: index into bpf_asm_exts[] */
	T_X,
	T_A,
	T_M,
	T_DIR,	 /* .name */
	T_PUNCT, /* text[0] */
};

struct tok {
	enum tok_kind kind;
	const char *s; /* text in the source */
	size_t n;
	unsigned line;
	uint32_t val;
	int plus;	 /* a number written with an explicit '+' */
	const char *msg; /* T_ERR */
};

enum family {
	F_LD,
	F_LDHB,
	F_LDI,
	F_LDX,
	F_LDXB,
	F_ST,
	F_JA,
	F_JCOND,
	F_JNEG,
	F_ALU,
	F_BARE,
	F_RET,
};

struct mnem {
	const char *name;
	enum family fam;
	uint16_t code;
	const char *forms; /* for "bad operand" messages */
};

/* The mnemonics, indexed by a T_MNEM token's val. */
extern const struct mnem bpf_asm_mnems[];

#define EXT_LEN 0xffffffffu /* #len: not an ancillary offset */

/* The ancillary names, indexed by a T_EXT token's val. */
struct ext {
	const char *name;
	uint32_t off; /* from SKF_AD_OFF, or EXT_LEN */
};

extern const struct ext bpf_asm_exts[];

/* ---- lexer: a pure function of (src, position, line) ---- */

struct lexpos {
	const char *src;
	size_t pos;
	unsigned line;
};

/* The token at lp (t), and lp moved past it. */
void bpf_asm_lex(struct lexpos *lp, struct tok *t);

#endif
