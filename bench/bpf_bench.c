/* bpf_bench.c - ns/packet of tcsim's BPF interpreter and of its JIT against
 * libpcap's bpf_filter, same programs over the same frames (`make bench`). */
#include <math.h>
#include <pcap.h> /* before bpf.h, which then keeps libpcap's BPF_ macros */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "bpf.h"
#include "bpf_load.h"
#include "pcap_frames.h"

#define REPS 7
#define REP_NS 100000000.0  /* each timed repetition runs >= 100 ms */
#define WARMUP_NS 30000000.0
#define TARGET 0.80     /* interpreter, geometric mean over the programs */
#define JIT_TARGET 0.30 /* JIT, every program: median of the paired runs */

struct bench_prog {
	const char *name;
	const char *bytecode; /* tc bytecode, or NULL */
	const char *expr;     /* tcpdump expression, or NULL */
	uint32_t min_insns, max_insns; /* 0: any */
	int floor; /* shown, not judged: what one call costs */
	struct sock_filter *insns;
	struct bpf_insn *pinsns; /* the same, as libpcap's type */
	uint32_t len;
	struct bpf_prog *prog;
};

static struct bench_prog progs[] = {
	{.name = "ret #1 (the call alone)", .bytecode = "1,6 0 0 1", .floor = 1},
	{.name = "ip (short)", .expr = "ip", .min_insns = 4, .max_insns = 4},
	{.name = "ssh.ops (seed)",
	 .bytecode = "13,40 0 0 12,21 0 10 2048,48 0 0 23,21 0 8 6,"
		     "40 0 0 20,69 6 0 8191,177 0 0 14,72 0 0 14,21 2 0 22,"
		     "72 0 0 16,21 0 1 22,6 0 0 4294967295,6 0 0 0"},
	{.name = "tcp port 80", .expr = "tcp port 80"},
	{.name = "syn/fin/psh, 3 ports, not 2 nets",
	 .expr = "tcp[tcpflags] & (tcp-syn|tcp-fin|tcp-push) != 0 and "
		 "(port 80 or port 443 or port 22) and "
		 "not net 172.16.0.0/12 and not net 192.168.0.0/24",
	 .min_insns = 30},
};
#define NPROGS (sizeof(progs) / sizeof(progs[0]))

static struct pcap_frames frames;
static struct bpf_skb *skbs;
static volatile uint64_t sink;

/* ---- frames ------------------------------------------------------------ */

static uint32_t lcg_state = 12345;

static uint32_t lcg(void)
{
	lcg_state = lcg_state * 1103515245u + 12345u;
	return lcg_state >> 8;
}

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

/* A made-up but well-formed frame: IPv4 TCP (ports 22, 80, 443 or high,
 * some SYN/FIN), IPv4 UDP, ICMP, ARP, 802.1Q-tagged TCP, IPv6 TCP. */
static void synth_frame(uint8_t *f, uint32_t *len)
{
	static const uint16_t ports[] = {22, 80, 443, 8080, 53211, 6000};
	static const uint32_t nets[] = {0x0a000000, 0xc0a80000, 0xac100000,
					0x5db8d800, 0x08080000};
	static const uint8_t flags[] = {0x02, 0x10, 0x11, 0x18, 0x12, 0x04};
	uint32_t kind = lcg() % 20, off = 14, l4;
	uint32_t payload = lcg() % 1400;

	memset(f, 0, 1514);
	for (int i = 0; i < 12; i++)
		f[i] = (uint8_t)lcg();
	if (kind < 2) { /* ARP */
		put16(f + 12, 0x0806);
		put16(f + 14, 1);
		put16(f + 16, 0x0800);
		f[18] = 6;
		f[19] = 4;
		put16(f + 20, 1 + lcg() % 2);
		*len = 60;
		return;
	}
	if (kind < 4) { /* IPv6 TCP */
		put16(f + 12, 0x86dd);
		f[14] = 0x60;
		put16(f + 18, 20 + payload % 200);
		f[20] = 6;
		f[21] = 64;
		for (int i = 22; i < 54; i++)
			f[i] = (uint8_t)lcg();
		put16(f + 54, 40000 + lcg() % 1000);
		put16(f + 56, ports[lcg() % 6]);
		f[66] = 0x50;
		f[67] = flags[lcg() % 6];
		*len = 74 + payload % 200;
		return;
	}
	if (kind == 4) { /* 802.1Q */
		put16(f + 12, 0x8100);
		put16(f + 14, lcg() % 4095);
		off = 18;
	}
	put16(f + off - 2, 0x0800);
	f[off] = 0x45;
	f[off + 8] = 64;
	put32(f + off + 12, nets[lcg() % 5] | (lcg() & 0xffff));
	put32(f + off + 16, nets[lcg() % 5] | (lcg() & 0xffff));
	if (lcg() % 16 == 0)
		put16(f + off + 6, 0x2000 | 185); /* a fragment */
	l4 = off + 20;
	if (kind < 14) { /* TCP */
		uint32_t well_known = ports[lcg() % 6];
		uint32_t eph = 30000 + lcg() % 30000;

		f[off + 9] = 6;
		put16(f + l4, kind & 1 ? well_known : eph);
		put16(f + l4 + 2, kind & 1 ? eph : well_known);
		f[l4 + 12] = 0x50;
		f[l4 + 13] = flags[lcg() % 6];
		*len = l4 + 20 + payload;
	} else if (kind < 18) { /* UDP */
		f[off + 9] = 17;
		put16(f + l4, 30000 + lcg() % 30000);
		put16(f + l4 + 2, lcg() % 2 ? 53 : 123);
		*len = l4 + 8 + payload % 512;
	} else { /* ICMP echo */
		f[off + 9] = 1;
		f[l4] = 8;
		*len = l4 + 64;
	}
	if (*len > 1514)
		*len = 1514;
	put16(f + off + 2, *len - off);
}

static const char *load_frames(void)
{
	static const char *const files[] = {"lan_mixed_ssh_dns_dhcp.pcap",
					    "http_bro_org_browse.pcap"};
	const char *shared = pcap_frames_shared_dir();
	static char where[256];
	char path[4096], err[512];
	size_t nfiles = 0;

	for (size_t i = 0; shared && i < 2; i++) {
		snprintf(path, sizeof(path), "%s/pcaps/%s", shared, files[i]);
		if (pcap_frames_load(&frames, path, 0, err, sizeof(err)) == 0)
			nfiles++;
	}
	if (nfiles == 2)
		return "lan_mixed_ssh_dns_dhcp.pcap + http_bro_org_browse.pcap";
	pcap_frames_free(&frames);
	for (int i = 0; i < 2048; i++) {
		uint8_t f[1514];
		uint32_t len;

		synth_frame(f, &len);
		if (pcap_frames_add(&frames, f, len, len))
			return NULL;
	}
	snprintf(where, sizeof(where), "synthetic frames (no %s)",
		 shared ? "captures" : "shared folder");
	return where;
}

/* ---- timing ------------------------------------------------------------ */

enum engine { E_INTERP, E_JIT, E_PCAP, NENGINES };

static uint64_t pass_interp(const struct bpf_prog *prog, size_t passes)
{
	uint64_t acc = 0;

	for (size_t r = 0; r < passes; r++)
		for (size_t i = 0; i < frames.n; i++)
			acc += bpf_prog_run_interp(prog, &skbs[i]);
	return acc;
}

/* bpf_prog_run, as cls_bpf calls it: the program's native code. */
static uint64_t pass_jit(const struct bpf_prog *prog, size_t passes)
{
	uint64_t acc = 0;

	for (size_t r = 0; r < passes; r++)
		for (size_t i = 0; i < frames.n; i++)
			acc += bpf_prog_run(prog, &skbs[i]);
	return acc;
}

static uint64_t pass_libpcap(const struct bpf_insn *insns, size_t passes)
{
	uint64_t acc = 0;

	for (size_t r = 0; r < passes; r++)
		for (size_t i = 0; i < frames.n; i++)
			acc += bpf_filter(insns, frames.v[i].data,
					  frames.v[i].len, frames.v[i].caplen);
	return acc;
}

/* ns per packet of `passes` passes over all frames. */
static double time_engine(const struct bench_prog *bp, int e, size_t passes)
{
	double t0 = bench_now_s() * 1e9;

	sink += e == E_PCAP ? pass_libpcap(bp->pinsns, passes)
		: e == E_JIT ? pass_jit(bp->prog, passes)
			     : pass_interp(bp->prog, passes);
	return (bench_now_s() * 1e9 - t0) / ((double)passes * frames.n);
}

static size_t passes_for(const struct bench_prog *bp, int e, double ns)
{
	double per_pass = time_engine(bp, e, 1) * frames.n;
	size_t passes = per_pass > 0 ? (size_t)(ns / per_pass) + 1 : 1;

	return passes;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Same verdict on every frame, or the numbers mean nothing. */
static int check_verdicts(const struct bench_prog *bp, size_t *matches)
{
	size_t ours_match = 0, theirs_match = 0, differ = 0;

	for (size_t i = 0; i < frames.n; i++) {
		uint32_t a = bpf_prog_run_interp(bp->prog, &skbs[i]);
		uint32_t j = bpf_prog_run(bp->prog, &skbs[i]);
		uint32_t b = bpf_filter(bp->pinsns, frames.v[i].data,
					frames.v[i].len, frames.v[i].caplen);

		ours_match += a != 0;
		theirs_match += b != 0;
		if ((a != b || j != a) && differ++ < 3)
			fprintf(stderr, "bpf_bench: %s: frame %zu: tcsim %u, "
				"JIT %u, libpcap %u\n", bp->name, i, a, j, b);
	}
	if (differ || ours_match != theirs_match) {
		fprintf(stderr, "bpf_bench: %s: verdicts differ on %zu frames "
			"(matches: tcsim %zu, libpcap %zu)\n",
			bp->name, differ, ours_match, theirs_match);
		return -1;
	}
	*matches = ours_match;
	return 0;
}

int main(void)
{
	char err[BPF_ERRLEN];
	const char *source = load_frames();
	double log_sum = 0;
	int jit_ok = 1, judged = 0;
	double floor_jit = 0; /* the floor row's JIT: one call that only returns */
	char missed[1024] = "";
	size_t nmissed = 0;

	if (!source || frames.n == 0) {
		fprintf(stderr, "bpf_bench: no frames\n");
		return 1;
	}
	skbs = calloc(frames.n, sizeof(*skbs));
	if (!skbs)
		return 1;
	for (size_t i = 0; i < frames.n; i++)
		bpf_skb_init_ether(&skbs[i], frames.v[i].data,
				   frames.v[i].caplen, frames.v[i].len);

	for (size_t p = 0; p < NPROGS; p++) {
		struct bench_prog *bp = &progs[p];
		int rc = bp->bytecode
				 ? bpf_parse_bytecode(bp->bytecode, bp->name,
						      &bp->insns, &bp->len, err,
						      sizeof(err))
				 : bpf_compile_expr(bp->expr, &bp->insns,
						    &bp->len, err, sizeof(err));

		if (rc == 0)
			rc = bpf_prog_load(&bp->prog, bp->insns, bp->len,
					   BPF_KERNEL_CURRENT, err,
					   sizeof(err));
		if (rc) {
			fprintf(stderr, "bpf_bench: %s: %s\n", bp->name, err);
			return 1;
		}
		if (bp->len < bp->min_insns) {
			fprintf(stderr, "bpf_bench: %s: %u insns, want >= %u\n",
				bp->name, bp->len, bp->min_insns);
			return 1;
		}
		if (bp->max_insns && bp->len > bp->max_insns) {
			fprintf(stderr, "bpf_bench: %s: %u insns, want <= %u\n",
				bp->name, bp->len, bp->max_insns);
			return 1;
		}
		if (!bp->prog->jited)
			fprintf(stderr, "bpf_bench: %s: not compiled to native "
				"code (TCSIM_BPF_JIT=0, or not x86-64): the JIT "
				"rows time the interpreter\n", bp->name);
		bp->pinsns = calloc(bp->len, sizeof(*bp->pinsns));
		if (!bp->pinsns)
			return 1;
		for (uint32_t i = 0; i < bp->len; i++) {
			bp->pinsns[i].code = bp->insns[i].code;
			bp->pinsns[i].jt = bp->insns[i].jt;
			bp->pinsns[i].jf = bp->insns[i].jf;
			bp->pinsns[i].k = bp->insns[i].k;
		}
	}

	printf("bpf_bench: %zu frames from %s; %d interleaved runs of >= %.0f ms"
	       " per engine and program\n",
	       frames.n, source, REPS, REP_NS / 1e6);
	printf("ns/pkt: best run; JIT/libpcap: the run-by-run ratios, min/median/max\n");
	printf("%-34s %5s %8s %8s %8s %8s %8s %20s\n", "program", "insns",
	       "matches", "interp", "JIT", "libpcap", "int/pcap",
	       "JIT/pcap min/med/max");
	for (size_t p = 0; p < NPROGS; p++) {
		struct bench_prog *bp = &progs[p];
		double t[NENGINES][REPS], best[NENGINES], jr[REPS];
		size_t passes[NENGINES];
		size_t matches;

		if (check_verdicts(bp, &matches))
			abort();
		for (int e = 0; e < NENGINES; e++) {
			passes_for(bp, e, WARMUP_NS); /* warm caches */
			time_engine(bp, e, passes_for(bp, e, WARMUP_NS));
			passes[e] = passes_for(bp, e, REP_NS);
		}
		/* Interleaved so drift hits the engines alike. */
		for (int r = 0; r < REPS; r++) {
			for (int e = 0; e < NENGINES; e++)
				t[e][r] = time_engine(bp, e, passes[e]);
			jr[r] = t[E_JIT][r] / t[E_PCAP][r];
		}
		for (int e = 0; e < NENGINES; e++) {
			qsort(t[e], REPS, sizeof(double), cmp_double);
			best[e] = t[e][0]; /* least disturbed by other load */
		}
		qsort(jr, REPS, sizeof(double), cmp_double);
		if (!bp->floor) {
			log_sum += log(best[E_INTERP] / best[E_PCAP]);
			judged++;
			if (jr[REPS / 2] > JIT_TARGET) {
				jit_ok = 0;
				if (nmissed < sizeof(missed))
					nmissed += (size_t)snprintf(
					    missed + nmissed, sizeof(missed) - nmissed,
					    "  %s: the target is %.2f ns/pkt; one call "
					    "per packet alone (the floor row's JIT) costs "
					    "%.2f ns, %.2f of libpcap's %.2f\n",
					    bp->name, JIT_TARGET * best[E_PCAP], floor_jit,
					    floor_jit / best[E_PCAP], best[E_PCAP]);
			}
		} else {
			floor_jit = best[E_JIT];
		}
		printf("%-34s %5u %8zu %8.2f %8.2f %8.2f %8.3f %6.3f/%.3f/%.3f\n",
		       bp->name, bp->len, matches, best[E_INTERP], best[E_JIT],
		       best[E_PCAP], best[E_INTERP] / best[E_PCAP], jr[0],
		       jr[REPS / 2], jr[REPS - 1]);
	}
	{
		double gm = exp(log_sum / judged);

		printf("geometric-mean ratio interpreter/libpcap: %.3f   target <= "
		       "%.2f: %s\n",
		       gm, TARGET, gm <= TARGET ? "met" : "NOT met");
		printf("JIT/libpcap, median of the paired runs, every program "
		       "(short and long): target <= %.2f: %s\n",
		       JIT_TARGET, jit_ok ? "MET" : "NOT met");
		if (!jit_ok)
			printf("%s", missed);
		printf("(the first row, not judged, is the floor: a call that only "
		       "returns, for each engine)\n");
	}
	for (size_t p = 0; p < NPROGS; p++) {
		bpf_prog_free(progs[p].prog);
		free(progs[p].insns);
		free(progs[p].pinsns);
	}
	free(skbs);
	pcap_frames_free(&frames);
	return 0;
}
