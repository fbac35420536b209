/* test_bpf_asm.c - CUnit tests of the classic BPF assembler and disassembler:
 * the tests/data/asm .ops files against bpfc's stored (and, when installed,
 * live) output, disassemble/assemble round trips, and rejected input. */
#include <CUnit/Basic.h>
#include "unit.h"
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpf_asm.h"

#define N_OPS_FILES 16 /* .ops files in tests/data/asm */
#define N_BAD_FILES 7  /* .ops files in tests/data/asm/bad */
#define N_RANDOM 3000
#define N_RANDOM_BPFC 200
#define MAX_FILES 64

static char data_dir[PATH_MAX];
static const char *argv0 = "";

/* ---- helpers ---- */

static int is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* tests/data/asm from the source root: the working directory or up to
 * three levels above it, or above the test binary. */
static int find_data_dir(void)
{
	static const char *const ups[] = {"", "../", "../../", "../../../"};
	char base[PATH_MAX - 64];
	size_t i;

	snprintf(base, sizeof(base), "%s", argv0);
	if (strrchr(base, '/'))
		strrchr(base, '/')[1] = '\0';
	else
		base[0] = '\0';
	for (i = 0; i < 2 * sizeof(ups) / sizeof(ups[0]); i++) {
		snprintf(data_dir, sizeof(data_dir), "%s%stests/data/asm",
			 i < 4 ? "" : base, ups[i % 4]);
		if (is_dir(data_dir))
			return 0;
	}
	data_dir[0] = '\0';
	return -1;
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = '\0';
	fclose(f);
	return buf;
}

/* tc's "N,code jt jf k,..." without the trailing comma. */
static char *to_tc(const struct sock_filter *p, uint32_t n)
{
	size_t cap = 16 + (size_t)n * 32, o;
	char *s = malloc(cap);
	uint32_t i;

	o = (size_t)snprintf(s, cap, "%u", n);
	for (i = 0; i < n; i++)
		o += (size_t)snprintf(s + o, cap - o, ",%u %u %u %u", p[i].code,
				      p[i].jt, p[i].jf, p[i].k);
	return s;
}

/* Drops trailing blanks and one trailing comma (bpfc prints one). */
static void normalise(char *s)
{
	size_t n = strlen(s);

	while (n && strchr(" \t\r\n", s[n - 1]))
		s[--n] = '\0';
	if (n && s[n - 1] == ',')
		s[--n] = '\0';
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of the *.ops files in dir (malloc'd), or -1. */
static int list_ops(const char *dir, char **names, int max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)) && n < max) {
		size_t l = strlen(e->d_name);

		if (l > 4 && strcmp(e->d_name + l - 4, ".ops") == 0)
			names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof(*names), cmp_str);
	return n;
}

static void free_names(char **names, int n)
{
	while (n > 0)
		free(names[--n]);
}

static char *disasm_text(const struct sock_filter *p, uint32_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	bpf_disasm(f, p, n);
	fclose(f);
	return buf;
}

static int same_insns(const struct sock_filter *a, uint32_t na,
		      const struct sock_filter *b, uint32_t nb)
{
	return na == nb && memcmp(a, b, na * sizeof(*a)) == 0;
}

/* Assembles src that must be fine; NULL (and a CUnit failure) if not. */
static struct sock_filter *asm_ok(const char *src, const char *name,
				  uint32_t *n)
{
	struct sock_filter *p = NULL;
	char err[BPF_ERRLEN];
	int rc = bpf_asm(src, name, &p, n, err, sizeof(err));

	CU_ASSERT_EQUAL(rc, 0);
	if (rc != 0) {
		fprintf(stderr, "\n  %s\n", err);
		return NULL;
	}
	return p;
}

/* ---- bpfc ---- */

static const char *bpfc_path(void)
{
	static char found[PATH_MAX];
	const char *path = getenv("PATH");
	char *dirs, *tok, *save = NULL;

	if (access("/usr/sbin/bpfc", X_OK) == 0)
		return "/usr/sbin/bpfc";
	if (!path || !(dirs = strdup(path)))
		return NULL;
	found[0] = '\0';
	for (tok = strtok_r(dirs, ":", &save); tok && !found[0];
	     tok = strtok_r(NULL, ":", &save)) {
		snprintf(found, sizeof(found), "%s/bpfc", tok);
		if (access(found, X_OK) != 0)
			found[0] = '\0';
	}
	free(dirs);
	return found[0] ? found : NULL;
}

/* `bpfc -f tc -i file` stdout, normalised; NULL if it failed. */
static char *run_bpfc(const char *bpfc, const char *file)
{
	char buf[65536];
	size_t n = 0;
	ssize_t r;
	int fd[2], status;
	pid_t pid;

	if (pipe(fd) < 0)
		return NULL;
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execl(bpfc, "bpfc", "-f", "tc", "-i", file, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	while (pid > 0 && (r = read(fd[0], buf + n, sizeof(buf) - 1 - n)) > 0)
		n += (size_t)r;
	close(fd[0]);
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		return NULL;
	buf[n] = '\0';
	normalise(buf);
	return strdup(buf);
}

/* bpfc's output for a program given as text, via a temporary file. */
static char *bpfc_on_text(const char *bpfc, const char *text)
{
	char tmp[] = "/tmp/test_bpf_asm_XXXXXX";
	int fd = mkstemp(tmp);
	size_t len = strlen(text);
	char *out = NULL;

	if (fd < 0)
		return NULL;
	if (write(fd, text, len) == (ssize_t)len)
		out = run_bpfc(bpfc, tmp);
	close(fd);
	unlink(tmp);
	return out;
}

/* ---- the stored .ops/.expect pairs ---- */

static void check_expect_file(const char *name)
{
	char path[PATH_MAX + 8], *expect;
	struct sock_filter *p = NULL;
	char err[BPF_ERRLEN], *got;
	uint32_t n = 0;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", data_dir, name);
	rc = bpf_asm_file(path, &p, &n, err, sizeof(err));
	CU_ASSERT_EQUAL(rc, 0);
	if (rc) {
		fprintf(stderr, "\n  %s\n", err);
		return;
	}
	strcpy(path + strlen(path) - 4, ".expect");
	expect = read_all(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(expect);
	normalise(expect);
	got = to_tc(p, n);
	CU_ASSERT_STRING_EQUAL(got, expect);
	if (strcmp(got, expect) != 0)
		fprintf(stderr, "\n  %s:\n  got    %.200s\n  expect %.200s\n",
			name, got, expect);
	free(got);
	free(expect);
	free(p);
}

static void test_expect_files(void)
{
	char *names[MAX_FILES];
	int i, n;

	CU_ASSERT_FATAL(data_dir[0] != '\0');
	n = list_ops(data_dir, names, MAX_FILES);
	CU_ASSERT_EQUAL(n, N_OPS_FILES);
	for (i = 0; i < n; i++)
		check_expect_file(names[i]);
	free_names(names, n);
}

static void test_seed_ssh(void)
{
	static const char *const want =
		"13,40 0 0 12,21 0 10 2048,48 0 0 23,21 0 8 6,40 0 0 20,"
		"69 6 0 8191,177 0 0 14,72 0 0 14,21 2 0 22,72 0 0 16,"
		"21 0 1 22,6 0 0 4294967295,6 0 0 0";
	char path[PATH_MAX + 8], err[BPF_ERRLEN], *got;
	struct sock_filter *p = NULL;
	uint32_t n = 0;

	snprintf(path, sizeof(path), "%s/ssh.ops", data_dir);
	CU_ASSERT_EQUAL_FATAL(bpf_asm_file(path, &p, &n, err, sizeof(err)), 0);
	got = to_tc(p, n);
	CU_ASSERT_STRING_EQUAL(got, want);
	free(got);
	free(p);
}

/* Disassembles, reassembles, compares; returns 1 if identical. */
static int round_trip(const struct sock_filter *p, uint32_t n, int verbose)
{
	char *text = disasm_text(p, n), err[BPF_ERRLEN];
	struct sock_filter *q = NULL;
	uint32_t m = 0;
	int ok = bpf_asm(text, "disasm", &q, &m, err, sizeof(err)) == 0 &&
		 same_insns(p, n, q, m);

	if (!ok && verbose)
		fprintf(stderr, "\n  round trip failed (%s):\n%s\n", err, text);
	free(text);
	free(q);
	return ok;
}

static void test_roundtrip_files(void)
{
	char *names[MAX_FILES], path[PATH_MAX + 8], err[BPF_ERRLEN];
	int i, n, good = 0;

	n = list_ops(data_dir, names, MAX_FILES);
	for (i = 0; i < n; i++) {
		struct sock_filter *p = NULL;
		uint32_t len = 0;

		snprintf(path, sizeof(path), "%s/%s", data_dir, names[i]);
		if (bpf_asm_file(path, &p, &len, err, sizeof(err)) == 0)
			good += round_trip(p, len, 1);
		free(p);
	}
	CU_ASSERT_EQUAL(good, N_OPS_FILES);
	free_names(names, n);
}

/* Every .ops file, and its disassembly, through the installed bpfc. */
static void test_live_bpfc(void)
{
	const char *bpfc = bpfc_path();
	char *names[MAX_FILES], path[PATH_MAX + 8], err[BPF_ERRLEN];
	int i, n, same = 0, same_dis = 0;

	if (!bpfc) {
		printf("\n  SKIP: no bpfc (/usr/sbin/bpfc or on PATH); "
		       "compared with the stored .expect files only\n");
		return;
	}
	n = list_ops(data_dir, names, MAX_FILES);
	for (i = 0; i < n; i++) {
		struct sock_filter *p = NULL;
		uint32_t len = 0;
		char *live, *ours, *text, *dis;

		snprintf(path, sizeof(path), "%s/%s", data_dir, names[i]);
		if (bpf_asm_file(path, &p, &len, err, sizeof(err)) != 0)
			continue;
		live = run_bpfc(bpfc, path);
		ours = to_tc(p, len);
		text = disasm_text(p, len);
		dis = bpfc_on_text(bpfc, text);
		same += live && strcmp(live, ours) == 0;
		same_dis += dis && strcmp(dis, ours) == 0;
		if (!live || strcmp(live, ours) || !dis || strcmp(dis, ours))
			fprintf(stderr, "\n  %s: bpfc %s / on disasm %s\n",
				names[i], live ? live : "(failed)",
				dis ? dis : "(failed)");
		free(live);
		free(ours);
		free(text);
		free(dis);
		free(p);
	}
	CU_ASSERT_EQUAL(same, N_OPS_FILES);
	CU_ASSERT_EQUAL(same_dis, N_OPS_FILES);
	free_names(names, n);
}

/* ---- random whitelisted programs ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 16);
}

static uint32_t rnd_below(uint32_t n)
{
	return n ? rnd() % n : 0;
}

/* The kernel's whitelist (net/core/filter.c, bpf_check_classic). */
static const uint16_t wl_codes[] = {
	0x00, 0x20, 0x28, 0x30, 0x40, 0x48, 0x50, 0x60, 0x80, /* ld */
	0x01, 0x61, 0x81, 0xb1, 0x02, 0x03,		      /* ldx st stx */
	0x04, 0x0c, 0x14, 0x1c, 0x24, 0x2c, 0x34, 0x3c, 0x44, 0x4c,
	0x54, 0x5c, 0x64, 0x6c, 0x74, 0x7c, 0x84, 0x94, 0x9c, 0xa4, 0xac,
	0x05, 0x15, 0x1d, 0x25, 0x2d, 0x35, 0x3d, 0x45, 0x4d, /* jmp */
	0x06, 0x16, 0x07, 0x87,				      /* ret misc */
};
#define N_WL (sizeof(wl_codes) / sizeof(wl_codes[0]))

/* k for load/ALU: small, any, an ancillary or another negative offset. */
static uint32_t rnd_k(int bpfc_safe)
{
	switch (rnd_below(6)) {
	case 0:
		return rnd_below(16);
	case 1:
		return rnd_below(300);
	case 2:
		return rnd_below(70000);
	case 3:
		return (uint32_t)SKF_AD_OFF + 4 * rnd_below(bpfc_safe ? 14 : 17);
	case 4:
		return (uint32_t)SKF_NET_OFF + rnd_below(64);
	default:
		return rnd();
	}
}

/* One canonical instruction at pc of a len-long program. */
static struct sock_filter rnd_insn(uint32_t pc, uint32_t len, int bpfc_safe)
{
	struct sock_filter in = {wl_codes[rnd_below(N_WL)], 0, 0, 0};
	uint32_t room = len - pc - 2; /* the last insn is a ret */
	uint16_t c = in.code;

	if (pc == len - 1)
		in.code = c = rnd_below(2) ? 0x06 : 0x16;
	in.k = rnd_k(bpfc_safe);
	if (c == 0x60 || c == 0x61 || c == 0x02 || c == 0x03)
		in.k = rnd_below(bpfc_safe ? 16 : 40);
	if (BPF_CLASS(c) == BPF_JMP && BPF_OP(c) == BPF_JA) {
		in.k = rnd_below(2) ? rnd_below(room + 1)
				    : room - rnd_below(room + 1) / 4;
	} else if (BPF_CLASS(c) == BPF_JMP) {
		uint32_t lim = room < 255 ? room : 255;

		in.jt = (uint8_t)(rnd_below(3) ? rnd_below(lim + 1) : lim);
		in.jf = (uint8_t)rnd_below(lim + 1);
	}
	if (c == 0x80 || c == 0x81 || c == 0x16 || c == 0x07 || c == 0x87 ||
	    c == 0x84 || (BPF_SRC(c) == BPF_X && (BPF_CLASS(c) == BPF_ALU ||
						  BPF_CLASS(c) == BPF_JMP)))
		in.k = 0;
	return in;
}

static uint32_t rnd_len(void)
{
	uint32_t r = rnd_below(100);

	return r < 80 ? 1 + rnd_below(40) : r < 98 ? 1 + rnd_below(400)
						   : 1 + rnd_below(BPF_MAXINSNS);
}

static struct sock_filter *rnd_prog(uint32_t len, int bpfc_safe)
{
	struct sock_filter *p = malloc(len * sizeof(*p));
	uint32_t pc;

	for (pc = 0; pc < len; pc++)
		p[pc] = rnd_insn(pc, len, bpfc_safe);
	return p;
}

static void test_roundtrip_random(void)
{
	int i, good = 0, allowed = 1;

	for (i = 0; i < N_RANDOM; i++) {
		uint32_t len = rnd_len(), pc;
		struct sock_filter *p = rnd_prog(len, 0);

		for (pc = 0; pc < len; pc++)
			allowed &= bpf_code_allowed(p[pc].code);
		good += round_trip(p, len, good == i);
		free(p);
	}
	CU_ASSERT_EQUAL(good, N_RANDOM);
	CU_ASSERT_EQUAL(allowed, 1);
}

/* Random programs bpfc can take (no #rand/#vlan_tpid, M[k] below 16):
 * bpfc assembles our disassembly to the same bytes. */
static void test_random_live_bpfc(void)
{
	const char *bpfc = bpfc_path();
	int i, same = 0;

	if (!bpfc) {
		printf("\n  SKIP: no bpfc; random disassembly not checked "
		       "against it\n");
		return;
	}
	for (i = 0; i < N_RANDOM_BPFC; i++) {
		uint32_t len = 1 + rnd_below(60);
		struct sock_filter *p = rnd_prog(len, 1);
		char *text = disasm_text(p, len), *ours = to_tc(p, len);
		char *live = bpfc_on_text(bpfc, text);

		same += live && strcmp(live, ours) == 0;
		if (!live || strcmp(live, ours))
			fprintf(stderr, "\n  bpfc: %s\n  ours: %s\n%s",
				live ? live : "(failed)", ours, text);
		free(live);
		free(ours);
		free(text);
		free(p);
	}
	CU_ASSERT_EQUAL(same, N_RANDOM_BPFC);
}

/* Every whitelisted opcode has a spelling, nothing else but ret x has. */
static void test_opcode_coverage(void)
{
	uint32_t c;
	int spelled = 0, mismatch = 0;
	char buf[128];

	for (c = 0; c <= 0xffff; c++) {
		struct sock_filter in = {(uint16_t)c, 0, 0, 0};
		int has = bpf_disasm_insn(&in, 0, buf, sizeof(buf)) > 0 &&
			  strncmp(buf, ".insn", 5) != 0;

		spelled += has;
		mismatch += has != (bpf_code_allowed((uint16_t)c) ||
				    c == (BPF_RET | BPF_X));
	}
	CU_ASSERT_EQUAL(spelled, (int)N_WL + 1);
	CU_ASSERT_EQUAL(mismatch, 0);
}

/* ---- accepted beyond bpfc, and exact encodings ---- */

struct good_case {
	const char *src;
	const char *tc;
};

static const struct good_case good_cases[] = {
	/* kernel bpf_asm names bpfc 0.6.8 lacks */
	{"ld #vlan_avail\nret a", "2,32 0 0 4294963248,22 0 0 0"},
	{"ld vlan_pr\nret a", "2,32 0 0 4294963248,22 0 0 0"},
	{"ldh #vlan_tpid\nret a", "2,40 0 0 4294963260,22 0 0 0"},
	{"ldb #rand\nret a", "2,48 0 0 4294963256,22 0 0 0"},
	{"ld RAND\nret a", "2,32 0 0 4294963256,22 0 0 0"},
	/* [x+k] without blanks */
	{"ld [x+14]\nldh [%x+2]\nldb [X+0x10]\nret a",
	 "4,64 0 0 14,72 0 0 2,80 0 0 16,22 0 0 0"},
	/* two targets on the negated jumps: swapped */
	{"jne #1, tt, ff\ntt: ret #1\nff: ret #0", "3,21 1 0 1,6 0 0 1,6 0 0 0"},
	{"jneq x, tt, ff\ntt: ret #1\nff: ret #0", "3,29 1 0 0,6 0 0 1,6 0 0 0"},
	{"jlt #5, tt, ff\ntt: ret #1\nff: ret #0", "3,53 1 0 5,6 0 0 1,6 0 0 0"},
	{"jle x, tt, ff\ntt: ret #1\nff: ret #0", "3,45 1 0 0,6 0 0 1,6 0 0 0"},
	/* CRLF, "-0", a comment closed by "**" followed by a slash */
	{"ret #1\r\nret #2\r\n", "2,6 0 0 1,6 0 0 2"},
	{"ret #-0", "1,6 0 0 0"},
	{"ret #1 /* a **/", "1,6 0 0 1"},
	/* as bpfc: a label also on the same line as a previous instruction,
	 * ja with a far target, a jump to the next instruction */
	{"ret #0 xy: ret #1", "2,6 0 0 0,6 0 0 1"},
	{"jeq #1, nx, nx\nnx: ret #1", "2,21 0 0 1,6 0 0 1"},
	{"ldi #0xffffffff ldxi -2 ret x", "3,0 0 0 4294967295,1 0 0 4294967294,"
					  "14 0 0 0"},
};

static void test_good_cases(void)
{
	size_t i;

	for (i = 0; i < sizeof(good_cases) / sizeof(good_cases[0]); i++) {
		uint32_t n = 0;
		struct sock_filter *p = asm_ok(good_cases[i].src, "good", &n);
		char *got = p ? to_tc(p, n) : NULL;

		CU_ASSERT_PTR_NOT_NULL(got);
		if (got && strcmp(got, good_cases[i].tc) != 0)
			fprintf(stderr, "\n  case %zu: got %s\n", i, got);
		CU_ASSERT(got && strcmp(got, good_cases[i].tc) == 0);
		free(got);
		free(p);
	}
}

/* ---- rejected input ---- */

struct bad_case {
	const char *src;
	unsigned line;
	const char *msg;
};

static const struct bad_case bad_cases[] = {
	{"ldh [12]\nfoo #1\nret #0", 2, "unknown mnemonic 'foo'"},
	{"ldh [12]\n\tjeq #0x800, L1\n\tret #0\nL1 ret #1", 4,
	 "unknown mnemonic 'L1'"},
	{"ldb #5\nret a", 1, "bad operand for 'ldb': expected [k], [x + k] "
			     "or an ancillary like #proto, got '#'"},
	{"ld x\nret a", 1, "bad operand for 'ld'"},
	{"ld len\nldh len\nret a", 2, "bad operand for 'ldh'"},
	{"st #1\nret a", 1, "bad operand for 'st': expected M[k], got '#'"},
	{"ldh [x]\nret a", 1, "bad operand for 'ldh'"},
	{"ldh [14 + x]\nret a", 1, "bad operand for 'ldh'"},
	{"ld [x + 1\nret a", 1, "got end of line"},
	{"jeq #1\nret #0", 1, "bad operand for 'jeq'"},
	{"jmp 3\nret #0", 1, "bad operand for 'jmp': expected a label, got '3'"},
	{"jeq #1, 2, 3\nret #0", 1, "bad operand for 'jeq'"},
	{"ret\n#0", 1, "bad operand for 'ret': expected #k, a, %a, x or %x, "
		       "got end of line"},
	{"ret 5", 1, "bad operand for 'ret'"},
	{"ld # proto\nret a", 1, "bad operand for 'ld'"},
	{"ldxb 5*([14]&0xf)\nret x", 1, "only 4*([k]&0xf) exists"},
	{"ldx 4*([14]&0x7)\nret x", 1, "only 4*([k]&0xf) exists"},
	{"ldxb [14]\nret x", 1, "bad operand for 'ldxb'"},
	{"ret #1 garbage", 1, "trailing garbage 'garbage' after the instruction"},
	{"jeq #1, aa, bb, cc\naa: ret #0\nbb: ret #1", 1, "trailing garbage ','"},
	{"ret #1 */", 1, "trailing garbage '*'"},
	{"neg #1\nret a", 1, "trailing garbage '#'"},
	{"ld #0x1ffffffff\nret a", 1, "number does not fit in 32 bits "
				      "'0x1ffffffff'"},
	{"ld #99999999999999999999\nret a", 1, "does not fit in 32 bits"},
	{"ld #-4294967296\nret a", 1, "does not fit in 32 bits"},
	{"ld #09\nret a", 1, "bad number '09'"},
	{"ld #12ab\nret a", 1, "bad number '12ab'"},
	{"ld #0x\nret a", 1, "bad number '0x'"},
	{"ld #0b102\nret a", 1, "bad number '0b102'"},
	{"ld #-0x1\nret a", 1, "bad number '-0x1'"},
	{"ld #1\np: ret a", 2, "one-letter name (labels need 2 characters) 'p'"},
	{"ld #1 @\nret a", 1, "unexpected character '@'"},
	{"ret #1\n\x01", 2, "unexpected character '\\x01'"},
	{"ret #1 // c++", 1, "unexpected character '/'"},
	{"ret #0\n\naa:", 3, "label 'aa' is not followed by an instruction"},
	{"aa:\nbb: ret #0", 2, "label 'bb' directly follows label 'aa'"},
	{"aa: 5\nret #0", 1, "expected an instruction after label 'aa', got '5'"},
	{"aa: jeq #1, aa\nret #0", 1, "jump to 'aa' goes backward (label at "
				      "line 1)"},
	{"ldh [12]\njeq #1, out\nret #1\nout: ret #0\nja nope", 5,
	 "undefined label 'nope'"},
	{"jeq #1, Out\nout: ret #0", 1, "undefined label 'Out'"},
	{"x1: ret #0\nx1: ret #1", 2, "duplicate label 'x1' (first defined at "
				      "line 1)"},
	{"", 1, "empty program: no instructions"},
	{"   \n\n; nothing\n", 1, "empty program"},
	{"  # indented hash\nret #0", 1, "expected an instruction, got '#'"},
	{"Ret #0\nLD #1\nlEn: ret #0", 3, "expected an instruction, got 'lEn'"},
	{".word 1\nret #0", 1, "unknown directive '.word'"},
	{"ret #0\n.insn 0x0d, 0, 0, 0x0", 2, "'.insn' is a raw encoding"},
	{"ret #0 /* open", 1, "unterminated comment '/*'"},
	{"ret #0\n\n  /* open\n */ /*", 4, "unterminated comment"},
};

static void check_bad(const char *src, unsigned line, const char *msg)
{
	struct sock_filter *p = NULL;
	char err[BPF_ERRLEN], want[64];
	uint32_t n = 12345;
	int rc = bpf_asm(src, "in.ops", &p, &n, err, sizeof(err));

	snprintf(want, sizeof(want), "in.ops:%u: ", line);
	CU_ASSERT_EQUAL(rc, -EINVAL);
	CU_ASSERT_PTR_NULL(p);
	CU_ASSERT_EQUAL(n, 12345);
	CU_ASSERT_EQUAL(strncmp(err, want, strlen(want)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, msg));
	CU_ASSERT_PTR_NULL(strchr(err, '\n'));
	if (rc != -EINVAL || strncmp(err, want, strlen(want)) ||
	    !strstr(err, msg))
		fprintf(stderr, "\n  source %.40s\n  got  %s\n  want %s%s\n",
			src, err, want, msg);
	free(p);
}

static void test_bad_cases(void)
{
	size_t i;

	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++)
		check_bad(bad_cases[i].src, bad_cases[i].line,
			  bad_cases[i].msg);
}

/* A bad .ops file: its first line says "; error LINE: message". */
static void check_bad_file(const char *name)
{
	char path[PATH_MAX + 8], err[BPF_ERRLEN], want[PATH_MAX + 300];
	struct sock_filter *p = NULL;
	char *src, *nl;
	unsigned line = 0;
	int off = 0;
	uint32_t n;

	snprintf(path, sizeof(path), "%s/bad/%s", data_dir, name);
	src = read_all(path);
	CU_ASSERT_PTR_NOT_NULL_FATAL(src);
	CU_ASSERT_EQUAL(sscanf(src, "; error %u: %n", &line, &off), 1);
	nl = strchr(src, '\n');
	CU_ASSERT_FATAL(off > 0 && nl != NULL);
	snprintf(want, sizeof(want), "%s:%u: %.*s", path, line,
		 (int)(nl - src - off), src + off);
	CU_ASSERT_EQUAL(bpf_asm_file(path, &p, &n, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NULL(p);
	CU_ASSERT_EQUAL(strncmp(err, want, strlen(want)), 0);
	if (strncmp(err, want, strlen(want)))
		fprintf(stderr, "\n  got  %s\n  want %s\n", err, want);
	free(src);
}

static void test_bad_files(void)
{
	char *names[MAX_FILES], dir[PATH_MAX + 8];
	int i, n;

	snprintf(dir, sizeof(dir), "%s/bad", data_dir);
	n = list_ops(dir, names, MAX_FILES);
	CU_ASSERT_EQUAL(n, N_BAD_FILES);
	for (i = 0; i < n; i++)
		check_bad_file(names[i]);
	free_names(names, n);
}

static void test_file_errors(void)
{
	char tmp[] = "/tmp/test_bpf_asm_nul_XXXXXX", err[BPF_ERRLEN];
	struct sock_filter *p = NULL;
	uint32_t n = 0;
	int fd;

	CU_ASSERT_EQUAL(bpf_asm_file("/nonexistent/x.ops", &p, &n, err,
				     sizeof(err)), -ENOENT);
	CU_ASSERT_STRING_EQUAL(err, "/nonexistent/x.ops: No such file or "
				    "directory");
	CU_ASSERT_PTR_NULL(p);
	fd = mkstemp(tmp);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(write(fd, "ret #0\n\0ret #1\n", 15), 15);
	close(fd);
	CU_ASSERT_EQUAL(bpf_asm_file(tmp, &p, &n, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, ":2: a NUL byte"));
	CU_ASSERT_PTR_NULL(p);
	unlink(tmp);
	/* no error buffer at all, and a NULL source */
	CU_ASSERT_EQUAL(bpf_asm("ret", "x", &p, &n, NULL, 0), -EINVAL);
	CU_ASSERT_EQUAL(bpf_asm(NULL, NULL, &p, &n, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "<input>:1: empty program: no instructions");
	CU_ASSERT_EQUAL(bpf_asm("ret #0 x", "short", &p, &n, err, 10), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "short:1: ");
	CU_ASSERT_PTR_NULL(p);
}

/* ---- limits ---- */

/* n instructions: a jump over `gap` adds, then rets. */
static char *long_program(uint32_t n)
{
	char *s = malloc((size_t)n * 12 + 64), *o = s;
	uint32_t i;

	for (i = 0; i + 1 < n; i++)
		o += sprintf(o, "add #%u\n", i % 10);
	sprintf(o, "ret a\n");
	return s;
}

static void test_limits(void)
{
	char *src = long_program(BPF_MAXINSNS);
	struct sock_filter *p = NULL;
	uint32_t n = 0;

	p = asm_ok(src, "max", &n);
	CU_ASSERT_EQUAL(n, BPF_MAXINSNS);
	CU_ASSERT(p && p[n - 1].code == (BPF_RET | BPF_A));
	free(p);
	free(src);
	src = long_program(BPF_MAXINSNS + 1);
	check_bad(src, BPF_MAXINSNS + 1, "more than 4096 instructions");
	free(src);
	/* a ja across the whole maximal program */
	src = long_program(BPF_MAXINSNS - 1);
	{
		size_t len = strlen(src);
		char *s2 = malloc(len + 32);

		sprintf(s2, "ja end\n%.*send: ret #0\n", (int)len - 6, src);
		p = asm_ok(s2, "ja", &n);
		CU_ASSERT_EQUAL(n, BPF_MAXINSNS);
		CU_ASSERT(p && p[0].code == (BPF_JMP | BPF_JA) &&
			  p[0].k == BPF_MAXINSNS - 2);
		free(p);
		free(s2);
	}
	free(src);
}

/* ---- the disassembler ---- */

struct dis_case {
	struct sock_filter in;
	uint32_t pc;
	const char *text;
};

static const struct dis_case dis_cases[] = {
	{{0x28, 0, 0, 12}, 0, "ldh [12]"},
	{{0x15, 9, 2, 0x800}, 0, "jeq #0x800, L10, L3"},
	{{0xb1, 0, 0, 14}, 3, "ldxb 4*([14]&0xf)"},
	{{0x20, 0, 0, 0xfffff000}, 0, "ld #proto"},
	{{0x28, 0, 0, 0xfffff004}, 0, "ldh #type"},
	{{0x30, 0, 0, 0xfffff030}, 0, "ldb #vlanp"},
	{{0x20, 0, 0, 0xfffff02c}, 0, "ld #vlan_tci"},
	{{0x20, 0, 0, 0xfffff034}, 0, "ld #poff"},
	{{0x28, 0, 0, 0xfffff038}, 0, "ldh #rand"},
	{{0x20, 0, 0, 0xfffff03c}, 0, "ld #vlan_tpid"},
	{{0x20, 0, 0, 0xfffff028}, 0, "ld [0xfffff028]"},
	{{0x20, 0, 0, 0xfffff040}, 0, "ld [0xfffff040]"},
	{{0x20, 0, 0, 0xfffff002}, 0, "ld [0xfffff002]"},
	{{0x30, 0, 0, 0xfff0000e}, 0, "ldb [0xfff0000e]"},
	{{0x20, 0, 0, 65535}, 0, "ld [65535]"},
	{{0x20, 0, 0, 65536}, 0, "ld [0x10000]"},
	{{0x40, 0, 0, 14}, 0, "ld [x + 14]"},
	{{0x48, 0, 0, 0x10000}, 0, "ldh [x + 0x10000]"},
	{{0x50, 0, 0, 0}, 0, "ldb [x + 0]"},
	{{0x00, 0, 0, 5}, 0, "ld #5"},
	{{0x00, 0, 0, 255}, 0, "ld #255"},
	{{0x00, 0, 0, 256}, 0, "ld #0x100"},
	{{0x80, 0, 0, 0}, 0, "ld #len"},
	{{0x60, 0, 0, 3}, 0, "ld M[3]"},
	{{0x01, 0, 0, 0x10000}, 0, "ldx #0x10000"},
	{{0x81, 0, 0, 0}, 0, "ldx #len"},
	{{0x61, 0, 0, 15}, 0, "ldx M[15]"},
	{{0x02, 0, 0, 1}, 0, "st M[1]"},
	{{0x03, 0, 0, 40}, 0, "stx M[40]"},
	{{0x04, 0, 0, 1}, 0, "add #1"},
	{{0x0c, 0, 0, 0}, 0, "add x"},
	{{0x14, 0, 0, 2}, 0, "sub #2"},
	{{0x2c, 0, 0, 0}, 0, "mul x"},
	{{0x34, 0, 0, 0}, 0, "div #0"},
	{{0x44, 0, 0, 0x100}, 0, "or #0x100"},
	{{0x54, 0, 0, 0xf}, 0, "and #15"},
	{{0x64, 0, 0, 4}, 0, "lsh #4"},
	{{0x7c, 0, 0, 0}, 0, "rsh x"},
	{{0x84, 0, 0, 0}, 0, "neg"},
	{{0x94, 0, 0, 7}, 0, "mod #7"},
	{{0xac, 0, 0, 0}, 0, "xor x"},
	{{0x05, 0, 0, 3}, 2, "ja L6"},
	{{0x05, 0, 0, 0xffffffff}, 4095, "ja L4294971391"},
	{{0x1d, 0, 1, 0}, 4, "jeq x, L5, L6"},
	{{0x25, 255, 0, 1}, 0, "jgt #1, L256, L1"},
	{{0x2d, 1, 2, 0}, 0, "jgt x, L2, L3"},
	{{0x35, 0, 0, 0x600}, 7, "jge #0x600, L8, L8"},
	{{0x3d, 0, 0, 0}, 0, "jge x, L1, L1"},
	{{0x45, 3, 0, 0x1fff}, 1, "jset #0x1fff, L5, L2"},
	{{0x4d, 0, 0, 0}, 0, "jset x, L1, L1"},
	{{0x06, 0, 0, 0xffffffff}, 0, "ret #0xffffffff"},
	{{0x06, 0, 0, 0}, 0, "ret #0"},
	{{0x16, 0, 0, 0}, 0, "ret a"},
	{{0x0e, 0, 0, 0}, 0, "ret x"},
	{{0x07, 0, 0, 0}, 0, "tax"},
	{{0x87, 0, 0, 0}, 0, "txa"},
	{{0x0d, 0, 0, 0}, 0, ".insn 0x0d, 0, 0, 0x0 ; opcode not in the "
			     "kernel whitelist, no syntax"},
	{{0x1234, 1, 2, 0xabc}, 0, ".insn 0x1234, 1, 2, 0xabc ; opcode not in "
				   "the kernel whitelist, no syntax"},
	{{0x04, 1, 0, 5}, 0, ".insn 0x04, 1, 0, 0x5 ; add #5, with unused "
			     "fields set"},
	{{0x0c, 0, 0, 7}, 0, ".insn 0x0c, 0, 0, 0x7 ; add x, with unused "
			     "fields set"},
	{{0x05, 1, 0, 0}, 0, ".insn 0x05, 1, 0, 0x0 ; ja L1, with unused "
			     "fields set"},
	{{0x16, 0, 0, 1}, 0, ".insn 0x16, 0, 0, 0x1 ; ret a, with unused "
			     "fields set"},
	{{0x80, 0, 9, 0}, 0, ".insn 0x80, 0, 9, 0x0 ; ld #len, with unused "
			     "fields set"},
};

static void test_disasm_insn(void)
{
	char buf[160];
	size_t i;

	for (i = 0; i < sizeof(dis_cases) / sizeof(dis_cases[0]); i++) {
		const struct dis_case *d = &dis_cases[i];
		int n = bpf_disasm_insn(&d->in, d->pc, buf, sizeof(buf));

		CU_ASSERT_STRING_EQUAL(buf, d->text);
		CU_ASSERT_EQUAL(n, (int)strlen(d->text));
		if (strcmp(buf, d->text))
			fprintf(stderr, "\n  got %s\n  want %s\n", buf, d->text);
	}
	/* truncation: snprintf's contract */
	CU_ASSERT_EQUAL(bpf_disasm_insn(&dis_cases[1].in, 0, buf, 8), 19);
	CU_ASSERT_STRING_EQUAL(buf, "jeq #0x");
}

static void test_disasm_program(void)
{
	static const char *const want =
		"\tldh [12]\n\tjeq #0x800, L2, L12\nL2:\n\tldb [23]\n"
		"\tjeq #6, L4, L12\nL4:\n\tldh [20]\n\tjset #0x1fff, L12, L6\n"
		"L6:\n\tldxb 4*([14]&0xf)\n\tldh [x + 14]\n"
		"\tjeq #22, L11, L9\nL9:\n\tldh [x + 16]\n"
		"\tjeq #22, L11, L12\nL11:\n\tret #0xffffffff\nL12:\n\tret #0\n";
	/* a jump past the end: its label is named but has no line */
	static const struct sock_filter past[] = {
		{0x15, 5, 0, 1}, {0x05, 0, 0, 7}, {0x06, 0, 0, 0}};
	char path[PATH_MAX + 8], err[BPF_ERRLEN], *text;
	struct sock_filter *p = NULL;
	uint32_t n = 0;

	snprintf(path, sizeof(path), "%s/ssh.ops", data_dir);
	CU_ASSERT_EQUAL_FATAL(bpf_asm_file(path, &p, &n, err, sizeof(err)), 0);
	text = disasm_text(p, n);
	CU_ASSERT_STRING_EQUAL(text, want);
	free(text);
	free(p);
	text = disasm_text(past, 3);
	CU_ASSERT_STRING_EQUAL(text, "\tjeq #1, L6, L1\nL1:\n\tja L9\n"
				     "\tret #0\n");
	check_bad(text, 1, "undefined label 'L6'");
	free(text);
	text = disasm_text(past, 0);
	CU_ASSERT_STRING_EQUAL(text, "");
	free(text);
}

/* Non-canonical encodings print as .insn, which does not reassemble. */
static void test_disasm_unspellable(void)
{
	static const struct sock_filter prog[] = {
		{0x28, 0, 0, 12}, {0x04, 0, 3, 1}, {0x06, 0, 0, 0}};
	char *text = disasm_text(prog, 3);

	CU_ASSERT_STRING_EQUAL(text, "\tldh [12]\n\t.insn 0x04, 0, 3, 0x1 ; "
				     "add #1, with unused fields set\n"
				     "\tret #0\n");
	check_bad(text, 2, "'.insn' is a raw encoding the disassembler "
			   "prints when no assembly syntax gives it");
	free(text);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		CU_TestFunc fn;
	} tests[] = {
		{"stored bpfc output (.expect)", test_expect_files},
		{"seed ssh.ops", test_seed_ssh},
		{"live bpfc, files and their disassembly", test_live_bpfc},
		{"round trip: files", test_roundtrip_files},
		{"round trip: random whitelisted programs", test_roundtrip_random},
		{"live bpfc on random disassembly", test_random_live_bpfc},
		{"every whitelisted opcode has a spelling", test_opcode_coverage},
		{"accepted beyond bpfc", test_good_cases},
		{"rejected input", test_bad_cases},
		{"rejected input files (bad/*.ops)", test_bad_files},
		{"file and buffer errors", test_file_errors},
		{"instruction limit and far jumps", test_limits},
		{"disassembly of single instructions", test_disasm_insn},
		{"disassembly of programs", test_disasm_program},
		{"unspellable encodings", test_disasm_unspellable},
	};
	CU_pSuite suite;
	size_t i;

	argv0 = argc > 0 ? argv[0] : "";
	if (find_data_dir() < 0)
		fprintf(stderr, "test_bpf_asm: tests/data/asm not found from "
				"here or from %s\n", argv0);
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	suite = CU_add_suite("bpf_asm", NULL, NULL);
	for (i = 0; suite && i < sizeof(tests) / sizeof(tests[0]); i++)
		CU_add_test(suite, tests[i].name, tests[i].fn);
	return unit_run();
}
