/* test_bpf_libpcap.c - tcsim's BPF interpreter against libpcap's bpf_filter on
 * real captures; known kernel/libpcap divergences are traced and counted. */
#include <CUnit/Basic.h>
#include "unit.h"
#include <pcap.h> /* before bpf.h, which then keeps libpcap's BPF_ macros */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf.h"
#include "bpf_gen.h"
#include "bpf_load.h"
#include "pcap_frames.h"

#define N_PROGS 3000
#define MAX_INSNS 64
#define FRAMES_PER_FILE 500
#define GEN_SEED 0x7c5d1f2e9a1bULL
#define MAX_REPORTS 10

static const char *const capture_files[] = {
	"lan_mixed_ssh_dns_dhcp.pcap",
	"http_wikipedia_mixed.pcap",
	"vlan_8021q_x11.pcap",
	"backbone_ip_in_mpls_snap256.pcap", /* caplen < len */
	"icmp_echo_5_pings.pcap",
	"ipv6_dns_ssh_icmpv6.pcap",
	"bad_snaplen68_smtp.pcap", /* caplen 68 < len */
	"bad_caplen8_ethernet.pcap", /* caplen 8: no whole MAC header */
};

static struct pcap_frames frames;    /* every frame compared */
static const char **frame_origin;    /* file each frame came from */
static size_t *frame_index;          /* index in that file */
static int have_captures;

/* ---- frames ------------------------------------------------------------ */

static int note_origin(const char *name, size_t idx)
{
	const char **no = realloc(frame_origin, frames.n * sizeof(*no));
	size_t *ni;

	if (!no)
		return -1;
	frame_origin = no;
	ni = realloc(frame_index, frames.n * sizeof(*ni));
	if (!ni)
		return -1;
	frame_index = ni;
	frame_origin[frames.n - 1] = name;
	frame_index[frames.n - 1] = idx;
	return 0;
}

/* Edge frames that exist on a bare clone too: an IPv4/TCP frame cut at
 * every interesting length, so loads at and past caplen are exercised. */
static int add_builtin_frames(void)
{
	static const uint8_t tcp[74] = {
		0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99,
		0xaa, 0xbb, 0x08, 0x00, /* IPv4 */
		0x45, 0x00, 0x00, 0x3c, 0x1c, 0x46, 0x40, 0x00, 0x40, 0x06,
		0x00, 0x00, 0xc0, 0xa8, 0x01, 0x02, 0x0a, 0x00, 0x00, 0x01,
		0xd4, 0x31, 0x00, 0x16, /* sport 54321, dport 22 */
		0x12, 0x34, 0x56, 0x78, 0x00, 0x00, 0x00, 0x00, 0xa0, 0x02,
		0xfa, 0xf0, 0x00, 0x00, 0x00, 0x00, 0x02, 0x04, 0x05, 0xb4,
		0x04, 0x02, 0x08, 0x0a, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
		0x00, 0x00, 0x01, 0x03,
	};
	static const uint32_t cuts[] = {0, 1, 8, 13, 14, 15, 23, 33, 34, 35,
					36, 37, 38, 47, 53, 54, 60, 74};

	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		if (pcap_frames_add(&frames, tcp, cuts[i], 74) ||
		    note_origin("(built-in)", i))
			return -1;
	}
	return 0;
}

/* Up to FRAMES_PER_FILE frames spread evenly over the file. */
static int add_capture(const char *dir, const char *name)
{
	struct pcap_frames all = {0};
	char path[4096], err[512];
	size_t step;

	snprintf(path, sizeof(path), "%s/pcaps/%s", dir, name);
	if (pcap_frames_load(&all, path, 0, err, sizeof(err))) {
		printf("\n  note: %s skipped (%s)", name, err);
		pcap_frames_free(&all);
		return 0;
	}
	step = all.n > FRAMES_PER_FILE ? all.n / FRAMES_PER_FILE : 1;
	for (size_t i = 0, taken = 0; i < all.n && taken < FRAMES_PER_FILE;
	     i += step, taken++) {
		if (pcap_frames_add(&frames, all.v[i].data, all.v[i].caplen,
				    all.v[i].len) ||
		    note_origin(name, i)) {
			pcap_frames_free(&all);
			return -1;
		}
	}
	pcap_frames_free(&all);
	return 0;
}

static int suite_init(void)
{
	const char *shared = pcap_frames_shared_dir();

	if (add_builtin_frames())
		return -1;
	if (!shared) {
		printf("\n  SKIP captures: no shared folder ($TCSIM_SHARED or "
		       "../shared); only built-in frames are compared\n");
		return 0;
	}
	for (size_t i = 0; i < sizeof(capture_files) / sizeof(*capture_files);
	     i++)
		if (add_capture(shared, capture_files[i]))
			return -1;
	have_captures = frames.n > 18;
	return 0;
}

static int suite_clean(void)
{
	pcap_frames_free(&frames);
	free(frame_origin);
	free(frame_index);
	return 0;
}

/* ---- running both engines ---------------------------------------------- */

/* bpf_prog_run: the JIT's code where it compiled the program; the
 * interpreter's verdict must be the same (counted in jit_differs). */
static unsigned long long jit_differs;

static uint32_t run_tcsim(const struct bpf_prog *prog,
			  const struct pcap_frame *f)
{
	struct bpf_skb skb;
	uint32_t v;

	bpf_skb_init_ether(&skb, f->data, f->caplen, f->len);
	v = bpf_prog_run(prog, &skb);
	jit_differs += v != bpf_prog_run_interp(prog, &skb);
	return v;
}

/* libpcap's struct bpf_insn has the same layout; copy rather than alias. */
static void to_pcap(const struct sock_filter *in, uint32_t len,
		    struct bpf_insn *out)
{
	for (uint32_t i = 0; i < len; i++) {
		out[i].code = in[i].code;
		out[i].jt = in[i].jt;
		out[i].jf = in[i].jf;
		out[i].k = in[i].k;
	}
}

static uint32_t run_libpcap(const struct bpf_insn *insns,
			    const struct pcap_frame *f)
{
	return bpf_filter(insns, f->data, f->len, f->caplen);
}

static void print_prog(const struct sock_filter *insns, uint32_t len)
{
	printf("%u", len);
	for (uint32_t i = 0; i < len; i++)
		printf(",%u %u %u %u", insns[i].code, insns[i].jt, insns[i].jf,
		       insns[i].k);
	printf("\n");
}

/* What the tracer saw of the situations where the kernel and libpcap
 * disagree by design. */
struct divergence_watch {
	unsigned shift_x_ge_32;  /* lsh/rsh x with X >= 32 */
	unsigned ind_wrap;       /* [x+k]: X+k >= 2^32 or s32(X+k) < 0 */
	unsigned neg_abs;        /* ABS/MSH k < 0 as s32 (generator avoids) */
	uint32_t first_pc, first_X;
};

static void divergence_tracer(const struct bpf_prog *prog,
			      const struct bpf_trace_state *st, void *arg)
{
	struct divergence_watch *w = arg;
	const struct sock_filter *in;
	unsigned before;

	if (st->done || st->pc >= prog->len)
		return;
	in = &prog->insns[st->pc];
	before = w->shift_x_ge_32 + w->ind_wrap + w->neg_abs;
	if ((in->code == (BPF_ALU | BPF_LSH | BPF_X) ||
	     in->code == (BPF_ALU | BPF_RSH | BPF_X)) &&
	    st->X >= 32)
		w->shift_x_ge_32++;
	if (BPF_CLASS(in->code) == BPF_LD && BPF_MODE(in->code) == BPF_IND) {
		uint64_t sum = (uint64_t)st->X + in->k;

		if (sum > UINT32_MAX || (int32_t)(uint32_t)sum < 0)
			w->ind_wrap++;
	}
	if (((BPF_CLASS(in->code) == BPF_LD && BPF_MODE(in->code) == BPF_ABS) ||
	     in->code == (BPF_LDX | BPF_B | BPF_MSH)) &&
	    (int32_t)in->k < 0)
		w->neg_abs++;
	if (before == 0 && w->shift_x_ge_32 + w->ind_wrap + w->neg_abs) {
		w->first_pc = st->pc;
		w->first_X = st->X;
	}
}

/* ---- random programs --------------------------------------------------- */

static void test_random_programs_agree_with_libpcap(void)
{
	static struct sock_filter insns[MAX_INSNS];
	static struct bpf_insn pinsns[MAX_INSNS];
	unsigned long long compared = 0, mismatches = 0, failures = 0;
	unsigned long long div_shift = 0, div_ind = 0, div_neg = 0;
	unsigned long long traced_checked = 0, traced_bad = 0;
	unsigned rejected = 0, reports = 0, shown[3] = {0, 0, 0};
	struct bpf_gen g;
	char err[BPF_ERRLEN];

	bpf_gen_seed(&g, GEN_SEED);
	for (unsigned p = 0; p < N_PROGS; p++) {
		uint32_t len = bpf_gen_valid(&g, insns, MAX_INSNS);
		struct bpf_prog *prog;

		if (bpf_prog_load(&prog, insns, len, BPF_KERNEL_CURRENT, err,
				  sizeof(err))) {
			if (rejected++ < MAX_REPORTS) {
				printf("\n  generated program %u rejected: "
				       "%s\n  ", p, err);
				print_prog(insns, len);
			}
			continue;
		}
		to_pcap(prog->insns, prog->len, pinsns);
		for (size_t i = 0; i < frames.n; i++) {
			const struct pcap_frame *f = &frames.v[i];
			uint32_t ours = run_tcsim(prog, f);
			uint32_t theirs = run_libpcap(pinsns, f);
			struct divergence_watch w = {0};
			struct bpf_skb skb;
			uint32_t traced;
			int kind;

			compared++;
			/* The traced path must agree with the fast one; spot
			 * check it on every 16th program. */
			if (ours == theirs && p % 16 != 0)
				continue;
			bpf_skb_init_ether(&skb, f->data, f->caplen, f->len);
			traced = bpf_prog_run_traced(prog, &skb,
						     divergence_tracer, &w);
			traced_checked++;
			if (traced != ours && traced_bad++ < MAX_REPORTS) {
				printf("\n  traced run gives %u, fast run %u "
				       "(program %u, %s #%zu):\n  ",
				       traced, ours, p, frame_origin[i],
				       frame_index[i]);
				print_prog(prog->insns, prog->len);
			}
			if (ours == theirs)
				continue;
			mismatches++;
			kind = w.shift_x_ge_32 ? 0 : w.ind_wrap ? 1
					       : w.neg_abs ? 2 : -1;
			if (kind >= 0) {
				div_shift += w.shift_x_ge_32 != 0;
				div_ind += w.ind_wrap != 0;
				div_neg += w.neg_abs != 0;
				if (shown[kind]++ == 0) {
					static const char *const what[] = {
						"shift by X >= 32",
						"[x+k] wraps or is negative",
						"negative ABS offset"};
					printf("\n  example divergence (%s): "
					       "program %u, %s #%zu, insn %u "
					       "with X=0x%x: tcsim %u, "
					       "libpcap %u\n  ",
					       what[kind], p, frame_origin[i],
					       frame_index[i], w.first_pc,
					       w.first_X, ours, theirs);
					print_prog(prog->insns, prog->len);
				}
				continue;
			}
			failures++;
			if (reports++ < MAX_REPORTS) {
				printf("\n  MISMATCH program %u on %s #%zu "
				       "(caplen %u, len %u): tcsim %u, "
				       "libpcap %u\n  ",
				       p, frame_origin[i], frame_index[i],
				       f->caplen, f->len, ours, theirs);
				print_prog(prog->insns, prog->len);
			}
		}
		bpf_prog_free(prog);
	}
	printf("\n  %u programs x %zu packets = %llu runs compared "
	       "(%s); %llu differ\n",
	       N_PROGS, frames.n, compared,
	       have_captures ? "captures + built-in frames"
			     : "built-in frames only",
	       mismatches);
	printf("  known divergences: shift by X>=32: %llu, [x+k] wrap/negative:"
	       " %llu, negative ABS: %llu; unexplained: %llu\n",
	       div_shift, div_ind, div_neg, failures);
	printf("  traced runs cross-checked: %llu, disagreeing with fast run:"
	       " %llu\n  ",
	       traced_checked, traced_bad);
	printf("JIT and interpreter differ on %llu of the runs\n  ", jit_differs);
	CU_ASSERT_EQUAL(jit_differs, 0);
	CU_ASSERT_EQUAL(rejected, 0);
	CU_ASSERT_EQUAL(failures, 0);
	CU_ASSERT_EQUAL(traced_bad, 0);
	CU_ASSERT_EQUAL(div_neg, 0);
}

/* ---- hand-built divergences ------------------------------------------- */

#define I(c, t, f, kk) {(uint16_t)(c), (t), (f), (uint32_t)(kk)}
#define LDX_IMM(kk) I(BPF_LDX | BPF_IMM, 0, 0, kk)
#define LD_IMM(kk) I(BPF_LD | BPF_IMM, 0, 0, kk)
#define RET_A I(BPF_RET | BPF_A, 0, 0, 0)
#define RET_K(kk) I(BPF_RET | BPF_K, 0, 0, kk)

static uint8_t hand_frame[64];

static void hand_frame_init(void)
{
	for (unsigned i = 0; i < sizeof(hand_frame); i++)
		hand_frame[i] = (uint8_t)(0xa0 + i);
	hand_frame[12] = 0x08; /* IPv4, so the network header is at 14 */
	hand_frame[13] = 0x00;
}

/* Runs a hand-built program in both engines. */
static void run_both(const struct sock_filter *insns, uint32_t len,
		     uint32_t *ours, uint32_t *theirs)
{
	struct bpf_insn pinsns[8];
	struct bpf_prog *prog = NULL;
	char err[BPF_ERRLEN];
	struct bpf_skb skb;

	*ours = *theirs = 0xdeadbeef;
	if (bpf_prog_load(&prog, insns, len, BPF_KERNEL_CURRENT, err,
			  sizeof(err))) {
		CU_FAIL("hand-built program rejected");
		printf("\n  rejected: %s\n  ", err);
		print_prog(insns, len);
		return;
	}
	bpf_skb_init_ether(&skb, hand_frame, sizeof(hand_frame),
			   sizeof(hand_frame));
	*ours = bpf_prog_run(prog, &skb);
	to_pcap(insns, len, pinsns);
	*theirs = bpf_filter(pinsns, hand_frame, sizeof(hand_frame),
			     sizeof(hand_frame));
	bpf_prog_free(prog);
}

static void test_shift_by_x_ge_32_masks_like_the_kernel(void)
{
	static const struct {
		uint32_t x, a;
		uint16_t op;
		uint32_t want;
	} cases[] = {
		{33, 1, BPF_LSH, 2},
		{32, 7, BPF_LSH, 7},
		{63, 1, BPF_LSH, 0x80000000u},
		{33, 4, BPF_RSH, 2},
		{0xffffffe1u, 0x80000000u, BPF_RSH, 0x40000000u},
		{31, 1, BPF_LSH, 0x80000000u}, /* no divergence: control */
	};

	hand_frame_init();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sock_filter p[] = {
			LDX_IMM(cases[i].x),
			LD_IMM(cases[i].a),
			I(BPF_ALU | cases[i].op | BPF_X, 0, 0, 0),
			RET_A,
		};
		uint32_t ours, theirs;

		run_both(p, 4, &ours, &theirs);
		CU_ASSERT_EQUAL(ours, cases[i].want);
		/* libpcap 1.10 shifts in C (undefined for >= 32), newer
		 * releases give 0: informative only. */
		printf("\n  ldx #%u; ld #0x%x; %s x: tcsim 0x%x, libpcap 0x%x",
		       cases[i].x, cases[i].a,
		       cases[i].op == BPF_LSH ? "lsh" : "rsh", ours, theirs);
	}
	printf("\n  ");
}

static void test_ind_offset_is_signed_like_the_kernel(void)
{
	/* ret #1 after the load tells a fault (0) from a read. */
	static const struct {
		uint32_t x, k;
		uint16_t size;
		uint32_t want_a;  /* A after the load, when it does not fault */
		int faults;
		const char *what;
	} cases[] = {
		{0xffffffffu, 1, BPF_B, 0xa0, 0, "X+k wraps to 0"},
		{0xfffffffeu, 4, BPF_H, 0xa2a3, 0, "X+k wraps to 2"},
		{0x80000000u, 0x80000010u, BPF_W, 0xb0b1b2b3u, 0,
		 "X+k wraps to 16"},
		{0, (uint32_t)SKF_NET_OFF, BPF_B, 0xae, 0,
		 "SKF_NET_OFF+0 is byte 14"},
		{(uint32_t)SKF_NET_OFF, 2, BPF_H, 0xb0b1, 0,
		 "X=SKF_NET_OFF, k=2 is bytes 16-17"},
		{(uint32_t)SKF_LL_OFF, 3, BPF_B, 0xa3, 0,
		 "SKF_LL_OFF+3 is byte 3"},
		{0, (uint32_t)SKF_LL_OFF + 60, BPF_W, 0xdcdddedfu, 0,
		 "SKF_LL_OFF+60 is the last word"},
		{0, (uint32_t)SKF_LL_OFF + 61, BPF_W, 0, 1,
		 "SKF_LL_OFF+61 runs past the end"},
		{0, (uint32_t)SKF_NET_OFF + 50, BPF_B, 0, 1,
		 "SKF_NET_OFF+50 is past the end"},
		{0, (uint32_t)SKF_LL_OFF - 1, BPF_B, 0, 1,
		 "below SKF_LL_OFF faults"},
		{0xffffffffu, 0, BPF_B, 0, 1, "s32 -1 faults"},
		{0, (uint32_t)SKF_AD_OFF + SKF_AD_PROTOCOL, BPF_H, 0, 1,
		 "the ancillary range through [x+k] is no ancillary load"},
	};

	hand_frame_init();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sock_filter ret_a[] = {
			LDX_IMM(cases[i].x),
			I(BPF_LD | cases[i].size | BPF_IND, 0, 0, cases[i].k),
			RET_A,
		};
		struct sock_filter ret_1[] = {
			LDX_IMM(cases[i].x),
			I(BPF_LD | cases[i].size | BPF_IND, 0, 0, cases[i].k),
			RET_K(1),
		};
		uint32_t ours, theirs, ours1, theirs1;

		run_both(ret_a, 3, &ours, &theirs);
		run_both(ret_1, 3, &ours1, &theirs1);
		printf("\n  %s: tcsim %s0x%x, libpcap 0x%x", cases[i].what,
		       ours1 ? "" : "fault ", ours, theirs);
		if (cases[i].faults) {
			CU_ASSERT_EQUAL(ours, 0);
			CU_ASSERT_EQUAL(ours1, 0);
		} else {
			CU_ASSERT_EQUAL(ours, cases[i].want_a);
			CU_ASSERT_EQUAL(ours1, 1);
		}
		/* libpcap treats X+k as unsigned and never wraps. */
		CU_ASSERT_EQUAL(theirs, 0);
		CU_ASSERT_EQUAL(theirs1, 0);
	}
	printf("\n  ");
}

/* The tracer must flag exactly these hand-built cases. */
static void test_tracer_flags_the_divergences(void)
{
	struct sock_filter shift[] = {LDX_IMM(40), LD_IMM(3),
				   I(BPF_ALU | BPF_LSH | BPF_X, 0, 0, 0),
				   RET_A};
	struct sock_filter wrap[] = {LDX_IMM(0xffffffffu),
				  I(BPF_LD | BPF_B | BPF_IND, 0, 0, 1), RET_A};
	struct sock_filter fine[] = {LDX_IMM(10),
				  I(BPF_LD | BPF_B | BPF_IND, 0, 0, 1),
				  I(BPF_ALU | BPF_LSH | BPF_X, 0, 0, 0),
				  RET_A};
	struct sock_filter *progs[] = {shift, wrap, fine};
	uint32_t lens[] = {4, 3, 4};
	char err[BPF_ERRLEN];
	struct bpf_skb skb;

	hand_frame_init();
	bpf_skb_init_ether(&skb, hand_frame, sizeof(hand_frame),
			   sizeof(hand_frame));
	for (int i = 0; i < 3; i++) {
		struct divergence_watch w = {0};
		struct bpf_prog *prog;

		if (bpf_prog_load(&prog, progs[i], lens[i], BPF_KERNEL_CURRENT,
				  err, sizeof(err))) {
			CU_FAIL("hand-built program rejected");
			continue;
		}
		CU_ASSERT_EQUAL(bpf_prog_run_traced(prog, &skb,
						    divergence_tracer, &w),
				bpf_prog_run(prog, &skb));
		CU_ASSERT_EQUAL(w.shift_x_ge_32, i == 0);
		CU_ASSERT_EQUAL(w.ind_wrap, i == 1);
		CU_ASSERT_EQUAL(w.neg_abs, 0);
		bpf_prog_free(prog);
	}
}

/* ---- tcpdump expressions ----------------------------------------------- */

/* Same bytes out of both compilers, same verdicts, and a match returns the
 * snaplen tcpdump compiles in. */
static int same_insns(const struct sock_filter *a, const struct bpf_insn *b,
		      uint32_t len)
{
	for (uint32_t i = 0; i < len; i++)
		if (a[i].code != b[i].code || a[i].jt != b[i].jt ||
		    a[i].jf != b[i].jf || a[i].k != b[i].k)
			return 0;
	return 1;
}

static void test_tcpdump_expressions_agree_with_libpcap(void)
{
	static const char *const exprs[] = {
		"tcp port 22",
		"udp",
		"icmp",
		"ip6",
		"vlan",
		"tcp[tcpflags] & tcp-syn != 0",
		"portrange 1-1024",
		"less 100",
	};
	pcap_t *dead = pcap_open_dead(DLT_EN10MB, BPF_TCPDUMP_SNAPLEN);
	char err[BPF_ERRLEN];

	CU_ASSERT_PTR_NOT_NULL_FATAL(dead);
	printf("\n  %-30s %5s %8s %8s", "expression", "insns", "matches",
	       "packets");
	for (size_t e = 0; e < sizeof(exprs) / sizeof(exprs[0]); e++) {
		struct sock_filter *ours_insns = NULL;
		struct bpf_program theirs;
		uint32_t ours_len = 0;
		struct bpf_prog *prog = NULL;
		size_t matches = 0, bad = 0;

		if (bpf_compile_expr(exprs[e], &ours_insns, &ours_len, err,
				     sizeof(err))) {
			printf("\n  bpf_compile_expr('%s'): %s", exprs[e], err);
			CU_FAIL("bpf_compile_expr failed");
			continue;
		}
		if (pcap_compile(dead, &theirs, exprs[e], 1,
				 PCAP_NETMASK_UNKNOWN)) {
			printf("\n  pcap_compile('%s'): %s", exprs[e],
			       pcap_geterr(dead));
			CU_FAIL("pcap_compile failed");
			free(ours_insns);
			continue;
		}
		CU_ASSERT_EQUAL(ours_len, theirs.bf_len);
		CU_ASSERT(ours_len == theirs.bf_len &&
			  same_insns(ours_insns, theirs.bf_insns, ours_len));
		if (bpf_prog_load(&prog, ours_insns, ours_len,
				  BPF_KERNEL_CURRENT, err, sizeof(err))) {
			printf("\n  '%s' rejected: %s", exprs[e], err);
			CU_FAIL("compiled expression rejected");
			free(ours_insns);
			pcap_freecode(&theirs);
			continue;
		}
		for (size_t i = 0; i < frames.n; i++) {
			const struct pcap_frame *f = &frames.v[i];
			uint32_t ours = run_tcsim(prog, f);
			uint32_t pc = run_libpcap(theirs.bf_insns, f);

			if (ours != pc ||
			    (ours != 0 && ours != BPF_TCPDUMP_SNAPLEN)) {
				if (bad++ < 3)
					printf("\n  '%s' on %s #%zu: tcsim %u, "
					       "libpcap %u",
					       exprs[e], frame_origin[i],
					       frame_index[i], ours, pc);
			}
			matches += ours == BPF_TCPDUMP_SNAPLEN;
		}
		CU_ASSERT_EQUAL(bad, 0);
		printf("\n  %-30s %5u %8zu %8zu", exprs[e], ours_len, matches,
		       frames.n);
		bpf_prog_free(prog);
		free(ours_insns);
		pcap_freecode(&theirs);
	}
	pcap_close(dead);
	printf("\n  ");
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	s = CU_add_suite("bpf_libpcap", suite_init, suite_clean);
	if (!s ||
	    !CU_add_test(s, "shift by X >= 32 masks like the kernel",
			 test_shift_by_x_ge_32_masks_like_the_kernel) ||
	    !CU_add_test(s, "[x+k] offset is signed like the kernel",
			 test_ind_offset_is_signed_like_the_kernel) ||
	    !CU_add_test(s, "tracer flags the divergences",
			 test_tracer_flags_the_divergences) ||
	    !CU_add_test(s, "random programs agree with libpcap",
			 test_random_programs_agree_with_libpcap) ||
	    !CU_add_test(s, "tcpdump expressions agree with libpcap",
			 test_tcpdump_expressions_agree_with_libpcap)) {
		CU_cleanup_registry();
		return 2;
	}
	return unit_run();
}
