/* bpf_asm_lex.c - the words of the assembler's language (mnemonics with
 * their encodings, ancillary names) and its lexer; bpf_asm.c tells the
 * language and parses it. */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "bpf.h"
#include "bpf_asm_lex.h"

#define JFORMS "#k, x or %x, then one or two labels"
#define NFORMS "#k, x or %x, then one label (or two)"
#define AFORMS "#k, x or %x"

const struct mnem bpf_asm_mnems[] = {
    {"ld", F_LD, BPF_LD | BPF_W, "#k, #len, an ancillary like #proto, M[k], [k] or [x + k]"},
    {"ldi", F_LDI, BPF_LD | BPF_IMM, "#k or k"},
    {"ldh", F_LDHB, BPF_LD | BPF_H, "[k], [x + k] or an ancillary like #proto"},
    {"ldb", F_LDHB, BPF_LD | BPF_B, "[k], [x + k] or an ancillary like #proto"},
    {"ldx", F_LDX, BPF_LDX, "#k, #len, M[k] or 4*([k]&0xf)"},
    {"ldxi", F_LDI, BPF_LDX | BPF_IMM, "#k or k"},
    {"ldxb", F_LDXB, BPF_LDX | BPF_B | BPF_MSH, "4*([k]&0xf)"},
    {"st", F_ST, BPF_ST, "M[k]"},
    {"stx", F_ST, BPF_STX, "M[k]"},
    {"jmp", F_JA, BPF_JMP | BPF_JA, "a label"},
    {"ja", F_JA, BPF_JMP | BPF_JA, "a label"},
    {"jeq", F_JCOND, BPF_JMP | BPF_JEQ, JFORMS},
    {"jneq", F_JNEG, BPF_JMP | BPF_JEQ, NFORMS},
    {"jne", F_JNEG, BPF_JMP | BPF_JEQ, NFORMS},
    {"jlt", F_JNEG, BPF_JMP | BPF_JGE, NFORMS},
    {"jle", F_JNEG, BPF_JMP | BPF_JGT, NFORMS},
    {"jgt", F_JCOND, BPF_JMP | BPF_JGT, JFORMS},
    {"jge", F_JCOND, BPF_JMP | BPF_JGE, JFORMS},
    {"jset", F_JCOND, BPF_JMP | BPF_JSET, JFORMS},
    {"add", F_ALU, BPF_ALU | BPF_ADD, AFORMS},
    {"sub", F_ALU, BPF_ALU | BPF_SUB, AFORMS},
    {"mul", F_ALU, BPF_ALU | BPF_MUL, AFORMS},
    {"div", F_ALU, BPF_ALU | BPF_DIV, AFORMS},
    {"mod", F_ALU, BPF_ALU | BPF_MOD, AFORMS},
    {"neg", F_BARE, BPF_ALU | BPF_NEG, "nothing"},
    {"and", F_ALU, BPF_ALU | BPF_AND, AFORMS},
    {"or", F_ALU, BPF_ALU | BPF_OR, AFORMS},
    {"xor", F_ALU, BPF_ALU | BPF_XOR, AFORMS},
    {"lsh", F_ALU, BPF_ALU | BPF_LSH, AFORMS},
    {"rsh", F_ALU, BPF_ALU | BPF_RSH, AFORMS},
    {"tax", F_BARE, BPF_MISC | BPF_TAX, "nothing"},
    {"txa", F_BARE, BPF_MISC | BPF_TXA, "nothing"},
    {"ret", F_RET, BPF_RET, "#k, a, %a, x or %x"},
};

/* Ancillary names, with or without '#': bpfc's spellings and aliases, then
 * the kernel bpf_asm's (the last four bpfc 0.6.8 does not know). */
const struct ext bpf_asm_exts[] = {
    {"len", EXT_LEN},
    {"pktlen", EXT_LEN},
    {"proto", SKF_AD_PROTOCOL},
    {"pto", SKF_AD_PROTOCOL},
    {"type", SKF_AD_PKTTYPE},
    {"poff", SKF_AD_PAY_OFFSET},
    {"ifidx", SKF_AD_IFINDEX},
    {"ifx", SKF_AD_IFINDEX},
    {"nla", SKF_AD_NLATTR},
    {"nlan", SKF_AD_NLATTR_NEST},
    {"mark", SKF_AD_MARK},
    {"queue", SKF_AD_QUEUE},
    {"que", SKF_AD_QUEUE},
    {"q", SKF_AD_QUEUE},
    {"hatype", SKF_AD_HATYPE},
    {"hat", SKF_AD_HATYPE},
    {"rxhash", SKF_AD_RXHASH},
    {"rxh", SKF_AD_RXHASH},
    {"cpu", SKF_AD_CPU},
    {"vlan_tci", SKF_AD_VLAN_TAG},
    {"vlant", SKF_AD_VLAN_TAG},
    {"vlanp", SKF_AD_VLAN_TAG_PRESENT},
    {"vlana", SKF_AD_VLAN_TAG_PRESENT},
    {"vlan_acc", SKF_AD_VLAN_TAG_PRESENT},
    {"vlan_avail", SKF_AD_VLAN_TAG_PRESENT},
    {"vlan_pr", SKF_AD_VLAN_TAG_PRESENT},
    {"vlan_tpid", SKF_AD_VLAN_TPID},
    {"rand", SKF_AD_RANDOM},
};

#define NMNEMS (sizeof(bpf_asm_mnems) / sizeof(bpf_asm_mnems[0]))
#define NEXTS (sizeof(bpf_asm_exts) / sizeof(bpf_asm_exts[0]))

/* ---- lexer: a pure function of (src, position, line) ---- */

static int is_name_start(int c)
{
	return isalpha(c) || c == '_';
}

static int is_name_char(int c)
{
	return isalnum(c) || c == '_';
}

static int find_word(const char *s, size_t n, int exts_table)
{
	size_t i, cnt = exts_table ? NEXTS : NMNEMS;

	for (i = 0; i < cnt; i++) {
		const char *w = exts_table ? bpf_asm_exts[i].name : bpf_asm_mnems[i].name;

		if (strlen(w) == n && strncasecmp(w, s, n) == 0)
			return (int)i;
	}
	return -1;
}

static void lex_error(struct tok *t, const char *msg, size_t n)
{
	t->kind = T_ERR;
	t->msg = msg;
	t->n = n;
}

/* Skips blanks and comments; returns 0, or -1 on an unterminated comment
 * (t set to the error at the comment's start). */
static int skip_space(struct lexpos *lp, struct tok *t)
{
	const char *s = lp->src;

	for (;;) {
		char c = s[lp->pos];

		if (c == ' ' || c == '\t' || c == '\r') {
			lp->pos++;
		} else if (c == '\n') {
			lp->pos++;
			lp->line++;
		} else if (c == ';' || (c == '#' && (lp->pos == 0 || s[lp->pos - 1] == '\n'))) {
			while (s[lp->pos] && s[lp->pos] != '\n')
				lp->pos++;
		} else if (c == '/' && s[lp->pos + 1] == '*') {
			const char *end = strstr(s + lp->pos + 2, "*/");

			if (!end) {
				t->s = s + lp->pos;
				t->line = lp->line;
				lex_error(t, "unterminated comment", 2);
				return -1;
			}
			for (; s + lp->pos < end + 2; lp->pos++)
				lp->line += s[lp->pos] == '\n';
		} else {
			return 0;
		}
	}
}

static int digit_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

/* Digits of s[0..n) in base; -1 if one is not a digit, -2 on overflow. */
static int parse_digits(const char *s, size_t n, unsigned base, uint64_t *v)
{
	size_t i;

	*v = 0;
	if (n == 0)
		return -1;
	for (i = 0; i < n; i++) {
		int d = digit_value((unsigned char)s[i]);

		if (d >= (int)base)
			return -1;
		*v = *v * base + (unsigned)d;
		if (*v > 0xffffffffu)
			return -2;
	}
	return 0;
}

/* A number token: the whole run of name characters after an optional sign
 * must be one number of bpfc's forms. */
static void lex_number(const char *p, struct tok *t)
{
	size_t sign = (*p == '-' || *p == '+'), n = sign;
	const char *d = p + sign;
	uint64_t v;
	int rc;

	while (is_name_char((unsigned char)p[n]))
		n++;
	t->kind = T_NUM;
	t->n = n;
	t->plus = *p == '+';
	if (!sign && d[0] == '0' && (d[1] == 'x' || d[1] == 'X'))
		rc = parse_digits(d + 2, n - 2, 16, &v);
	else if (!sign && d[0] == '0' && (d[1] == 'b' || d[1] == 'B'))
		rc = parse_digits(d + 2, n - 2, 2, &v);
	else if (!sign && d[0] == '0' && n > 1)
		rc = parse_digits(d + 1, n - 1, 8, &v);
	else
		rc = parse_digits(d, n - sign, 10, &v);
	if (rc == -1)
		lex_error(t, "bad number", n);
	else if (rc == -2)
		lex_error(t, "number does not fit in 32 bits", n);
	else
		t->val = *p == '-' ? (uint32_t)(0u - (uint32_t)v) : (uint32_t)v;
}

/* A name: mnemonic, ancillary, x/a/M, or a label. */
static void lex_name(const char *p, struct tok *t)
{
	size_t n = 0;
	int i;

	while (is_name_char((unsigned char)p[n]))
		n++;
	t->n = n;
	if ((i = find_word(p, n, 0)) >= 0) {
		t->kind = T_MNEM;
		t->val = (uint32_t)i;
	} else if ((i = find_word(p, n, 1)) >= 0) {
		t->kind = T_EXT;
		t->val = (uint32_t)i;
	} else if (n == 1 && (*p == 'x' || *p == 'X')) {
		t->kind = T_X;
	} else if (n == 1 && (*p == 'a' || *p == 'A')) {
		t->kind = T_A;
	} else if (n == 1 && (*p == 'm' || *p == 'M')) {
		t->kind = T_M;
	} else if (n == 1) {
		lex_error(t, "one-letter name (labels need 2 characters)", 1);
	} else {
		t->kind = T_LABEL;
	}
}

/* '#' directly followed by an ancillary name is one token, as in bpfc. */
static void lex_hash(const char *p, struct tok *t)
{
	size_t n = 0;
	int i;

	while (is_name_char((unsigned char)p[1 + n]))
		n++;
	i = n ? find_word(p + 1, n, 1) : -1;
	if (i >= 0) {
		t->kind = T_EXT;
		t->val = (uint32_t)i;
		t->n = n + 1;
	} else {
		t->kind = T_PUNCT;
		t->n = 1;
	}
}

void bpf_asm_lex(struct lexpos *lp, struct tok *t)
{
	const char *p;

	memset(t, 0, sizeof(*t));
	if (skip_space(lp, t) < 0)
		return;
	p = lp->src + lp->pos;
	t->s = p;
	t->line = lp->line;
	if (*p == '\0') {
		t->kind = T_EOF;
	} else if (*p == '+' && p[1] == '0' && is_name_char((unsigned char)p[2])) {
		/* signed numbers are decimal: "[x+0x10]" is '+' 0x10 */
		t->kind = T_PUNCT;
		t->n = 1;
	} else if (isdigit((unsigned char)*p) ||
		   ((*p == '-' || *p == '+') && isdigit((unsigned char)p[1]))) {
		lex_number(p, t);
	} else if (is_name_start((unsigned char)*p)) {
		lex_name(p, t);
	} else if (*p == '#') {
		lex_hash(p, t);
	} else if (*p == '.' && is_name_start((unsigned char)p[1])) {
		lex_name(p + 1, t);
		t->kind = T_DIR;
		t->n++;
	} else if (strchr(":,[]()+*&%", *p)) {
		t->kind = T_PUNCT;
		t->n = 1;
	} else {
		lex_error(t, "unexpected character", 1);
	}
	lp->pos += t->n;
}
