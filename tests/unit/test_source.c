/* test_source.c - capture sources: tcpreplay's timing vocabulary (exact
 * nanoseconds), loops, limits, clamping of timestamps that go backwards,
 * link-type conversion, errors, and skb->priority from the TOS table.
 * Built-in captures are written here with libpcap; the shared real ones
 * are used when ../shared (or $TCSIM_SHARED) exists. */
#include "unit.h"
#include <CUnit/Basic.h>
#include <errno.h>
#include <math.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcap_frames.h"
#include "source.h"

#define MAXP 64
#define BASE_NS 1700000000000000000ull /* 2023-11-14, built-in captures' t0 */

/* ---- building captures -------------------------------------------------- */

struct bframe {
	uint64_t ts; /* ns after BASE_NS */
	uint8_t data[1600];
	uint32_t caplen, len;
};

static char tmpdir[256];

static void tmp_path(char *path, size_t n, const char *name)
{
	snprintf(path, n, "%s/%s", tmpdir, name);
}

static int write_capture(const char *path, int dlt, int nano, const struct bframe *f, size_t n)
{
	pcap_t *p = pcap_open_dead_with_tstamp_precision(
	    dlt, 262144, nano ? PCAP_TSTAMP_PRECISION_NANO : PCAP_TSTAMP_PRECISION_MICRO);
	pcap_dumper_t *d;

	if (!p)
		return -1;
	d = pcap_dump_open(p, path);
	if (!d) {
		pcap_close(p);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		struct pcap_pkthdr h = {0};
		uint64_t ts = BASE_NS + f[i].ts;

		h.ts.tv_sec = (time_t)(ts / 1000000000u);
		h.ts.tv_usec = (suseconds_t)(nano ? ts % 1000000000u : ts % 1000000000u / 1000);
		h.caplen = f[i].caplen;
		h.len = f[i].len;
		pcap_dump((u_char *)d, &h, f[i].data);
	}
	pcap_dump_close(d);
	pcap_close(p);
	return 0;
}

static void eth(struct bframe *f, uint16_t type)
{
	static const uint8_t macs[12] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55,
					 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb};

	memset(f->data, 0, sizeof(f->data));
	memcpy(f->data, macs, 12);
	f->data[12] = (uint8_t)(type >> 8);
	f->data[13] = (uint8_t)type;
}

static void ipv4_at(uint8_t *ip, uint8_t tos, uint16_t totlen)
{
	ip[0] = 0x45;
	ip[1] = tos;
	ip[2] = (uint8_t)(totlen >> 8);
	ip[3] = (uint8_t)totlen;
	ip[8] = 64;
	ip[9] = 17;
	memcpy(ip + 12, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
}

static void ipv4_frame(struct bframe *f, uint8_t tos, uint32_t len, uint32_t caplen)
{
	eth(f, 0x0800);
	ipv4_at(f->data + 14, tos, (uint16_t)(len - 14));
	f->len = len;
	f->caplen = caplen;
}

static void vlan_ipv4_frame(struct bframe *f, uint16_t outer, uint8_t tos, uint32_t len)
{
	eth(f, outer);
	f->data[14] = 0x00;
	f->data[15] = 0x2a; /* VID 42 */
	f->data[16] = 0x08;
	f->data[17] = 0x00;
	ipv4_at(f->data + 18, tos, (uint16_t)(len - 18));
	f->len = f->caplen = len;
}

static void ipv6_frame(struct bframe *f, uint8_t tclass, uint32_t len)
{
	eth(f, 0x86dd);
	f->data[14] = (uint8_t)(0x60 | tclass >> 4);
	f->data[15] = (uint8_t)(tclass << 4);
	f->data[20] = 17;
	f->data[21] = 64;
	f->len = f->caplen = len;
}

static void arp_frame(struct bframe *f, uint32_t len)
{
	eth(f, 0x0806);
	memcpy(f->data + 14, "\x00\x01\x08\x00\x06\x04\x00\x01", 8);
	f->len = f->caplen = len;
}

/* Capture B: five frames, nanosecond timestamps, mixed lengths and
 * priorities; the last one is cut (caplen 100 < len 200). */
static const uint64_t b_ts[5] = {0, 1234, 1000001, 2000007, 3000000999ull};
static const uint32_t b_len[5] = {60, 100, 1514, 64, 200};
static const uint32_t b_prio[5] = {6, 2, 0, 0, 4};
static struct bframe b_frames[5];
static char path_b[300], path_back[300], path_sll[300], path_raw[300], path_short[300],
    path_empty[300], path_trunc[300], path_trunc_hdr[300], path_junk[300], path_usec[300];

/* Capture K: timestamps that go backwards (in ns after BASE_NS). */
static const uint64_t k_ts[9] = {8, 10, 20, 15, 17, 25, 5, 30, 12};
static const uint64_t k_rel[9] = {0, 2, 12, 12, 12, 17, 17, 22, 22};

static long file_size(const char *path)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fclose(f);
	return n;
}

static int suite_init(void)
{
	struct bframe *f = calloc(9, sizeof(*f));
	const char *t = getenv("TMPDIR");
	int r = 0;

	if (!f)
		return -1;
	snprintf(tmpdir, sizeof(tmpdir), "%s/tcsim-src-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(tmpdir)) {
		free(f);
		return -1;
	}
	tmp_path(path_b, sizeof(path_b), "b.pcap");
	tmp_path(path_back, sizeof(path_back), "back.pcap");
	tmp_path(path_sll, sizeof(path_sll), "sll.pcap");
	tmp_path(path_raw, sizeof(path_raw), "raw.pcap");
	tmp_path(path_short, sizeof(path_short), "short.pcap");
	tmp_path(path_empty, sizeof(path_empty), "empty.pcap");
	tmp_path(path_trunc, sizeof(path_trunc), "trunc.pcap");
	tmp_path(path_trunc_hdr, sizeof(path_trunc_hdr), "trunc-hdr.pcap");
	tmp_path(path_junk, sizeof(path_junk), "junk.pcap");
	tmp_path(path_usec, sizeof(path_usec), "usec.pcap");

	ipv4_frame(&b_frames[0], 0x10, 60, 60);
	vlan_ipv4_frame(&b_frames[1], 0x8100, 0x08, 100);
	ipv6_frame(&b_frames[2], 0x10, 1514);
	arp_frame(&b_frames[3], 64);
	ipv4_frame(&b_frames[4], 0xb8, 200, 100);
	for (int i = 0; i < 5; i++)
		b_frames[i].ts = b_ts[i];
	r |= write_capture(path_b, DLT_EN10MB, 1, b_frames, 5);
	r |= write_capture(path_empty, DLT_EN10MB, 1, b_frames, 0);

	/* microsecond file with the same first four timestamps (whole us) */
	for (int i = 0; i < 4; i++) {
		f[i] = b_frames[i];
		f[i].ts = b_ts[i] / 1000 * 1000;
	}
	r |= write_capture(path_usec, DLT_EN10MB, 0, f, 4);

	for (int i = 0; i < 9; i++) {
		ipv4_frame(&f[i], 0, 60, 60);
		f[i].ts = k_ts[i];
	}
	r |= write_capture(path_back, DLT_EN10MB, 1, f, 9);

	/* Linux cooked (SLL): outgoing IPv4 with TOS 0x10, source MAC known */
	memset(&f[0], 0, sizeof(f[0]));
	memcpy(f[0].data, "\x00\x04\x00\x01\x00\x06\x00\x11\x22\x33\x44\x55\x00\x00\x08\x00", 16);
	ipv4_at(f[0].data + 16, 0x10, 20);
	f[0].caplen = f[0].len = 36;
	f[0].ts = 0;
	/* SLL carrying 802.2 (protocol < 0x600): rejected, still yielded */
	memset(&f[1], 0, sizeof(f[1]));
	memcpy(f[1].data, "\x00\x00\x00\x01\x00\x06\x00\x11\x22\x33\x44\x55\x00\x00\x00\x04", 16);
	f[1].caplen = f[1].len = 30;
	f[1].ts = 500;
	r |= write_capture(path_sll, DLT_LINUX_SLL, 1, f, 2);

	/* RAW: an IPv6 packet, then bytes that are neither IPv4 nor IPv6 */
	memset(&f[0], 0, sizeof(f[0]));
	f[0].data[0] = 0x60;
	f[0].caplen = f[0].len = 40;
	memset(&f[1], 0, sizeof(f[1]));
	f[1].data[0] = 0x15;
	f[1].caplen = f[1].len = 20;
	f[1].ts = 7;
	r |= write_capture(path_raw, DLT_RAW, 1, f, 2);

	/* Ethernet record of 8 bytes (no whole MAC header) between two good ones */
	f[0] = b_frames[0];
	f[1] = b_frames[0];
	f[1].caplen = 8;
	f[1].ts = 100;
	f[2] = b_frames[0];
	f[2].ts = 200;
	r |= write_capture(path_short, DLT_EN10MB, 1, f, 3);

	/* B cut 10 bytes into packet 5's data, and 5 bytes into packet 2's header */
	r |= write_capture(path_trunc, DLT_EN10MB, 1, b_frames, 5);
	r |= write_capture(path_trunc_hdr, DLT_EN10MB, 1, b_frames, 5);
	if (!r) {
		long sz = file_size(path_trunc);

		r |= truncate(path_trunc, sz - 90);
		r |= truncate(path_trunc_hdr, 24 + 16 + 60 + 5);
	}
	{
		FILE *j = fopen(path_junk, "wb");

		if (!j || fputs("this is not a capture file at all\n", j) < 0)
			r = -1;
		if (j)
			fclose(j);
	}
	free(f);
	return r ? -1 : 0;
}

static int suite_clean(void)
{
	const char *all[] = {path_b,	 path_back,  path_sll,	     path_raw,	path_short,
			     path_empty, path_trunc, path_trunc_hdr, path_junk, path_usec};

	for (size_t i = 0; i < sizeof(all) / sizeof(*all); i++)
		unlink(all[i]);
	rmdir(tmpdir);
	return 0;
}

/* ---- reading a source ---------------------------------------------------- */

struct got {
	size_t n;
	uint64_t t[MAXP];
	uint32_t prio[MAXP], caplen[MAXP], len[MAXP];
	uint64_t seq[MAXP];
	uint16_t type[MAXP];
	const char *reject[MAXP];
	uint64_t clamped;
	int rc; /* last return of next */
	char err[512];
};

/* Reads a source to its end (or error); the first MAXP packets are kept. */
static int drain(const char *path, const struct replay_opts *o, struct got *g)
{
	struct source *s;
	struct src_packet p;
	int r;

	memset(g, 0, sizeof(*g));
	r = src_open_capture(&s, path, o, g->err, sizeof(g->err));
	if (r) {
		CU_ASSERT_PTR_NULL(s);
		g->rc = r;
		return r;
	}
	CU_ASSERT_STRING_EQUAL(s->name, path);
	while ((r = s->ops->next(s, &p, g->err, sizeof(g->err))) == 1) {
		if (g->n < MAXP) {
			g->t[g->n] = p.t_ns;
			g->prio[g->n] = p.priority;
			g->caplen[g->n] = p.caplen;
			g->len[g->n] = p.len;
			g->seq[g->n] = p.seq;
			g->reject[g->n] = p.reject;
			g->type[g->n] =
			    p.caplen >= 14 ? (uint16_t)(p.data[12] << 8 | p.data[13]) : 0;
		}
		g->n++;
	}
	g->rc = r;
	if (r == 0) /* finished sources stay finished */
		CU_ASSERT_EQUAL(s->ops->next(s, &p, NULL, 0), 0);
	g->clamped = s->clamped;
	s->ops->close(s);
	return r;
}

static void opts(struct replay_opts *o)
{
	replay_opts_default(o);
}

static void expect_times(const struct got *g, const uint64_t *want, size_t n)
{
	CU_ASSERT_EQUAL_FATAL(g->rc, 0);
	CU_ASSERT_EQUAL_FATAL(g->n, n);
	for (size_t i = 0; i < n && i < MAXP; i++) {
		if (g->t[i] != want[i])
			printf("\n    packet %zu: t %llu, want %llu", i + 1,
			       (unsigned long long)g->t[i], (unsigned long long)want[i]);
		CU_ASSERT_EQUAL(g->t[i], want[i]);
	}
}

/* ---- options ------------------------------------------------------------- */

static void test_defaults(void)
{
	struct replay_opts o;

	memset(&o, 0xa5, sizeof(o));
	replay_opts_default(&o);
	CU_ASSERT_EQUAL(o.speed, 1.0);
	CU_ASSERT_EQUAL(o.pps, 0.0);
	CU_ASSERT_EQUAL(o.mbps, 0.0);
	CU_ASSERT_EQUAL(o.topspeed, 0);
	CU_ASSERT_EQUAL(o.loop, 1);
	CU_ASSERT_EQUAL(o.limit, 0);
	CU_ASSERT_EQUAL(o.start_ns, 0);
	CU_ASSERT_EQUAL(o.duration_ns, 0);
	CU_ASSERT_EQUAL(o.prio_mode, PRIO_FORWARD);
	CU_ASSERT_EQUAL(o.priority, 0);
	CU_ASSERT_EQUAL(o.vlan_inline, 0);
}

static void expect_bad_opts(const struct replay_opts *o, const char *what)
{
	struct got g;

	CU_ASSERT_EQUAL(drain(path_b, o, &g), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(g.err, path_b));
	CU_ASSERT_PTR_NOT_NULL(strstr(g.err, what));
	CU_ASSERT_PTR_NULL(strchr(g.err, '\n'));
}

static void test_bad_options_refused(void)
{
	static const struct {
		double speed, pps, mbps;
		int topspeed, prio_mode;
		uint64_t loop;
		const char *what; /* in the message */
	} bad[] = {
	    {0, 0, 0, 0, PRIO_FORWARD, 1, "speed"},
	    {-2, 0, 0, 0, PRIO_FORWARD, 1, "speed"},
	    {NAN, 0, 0, 0, PRIO_FORWARD, 1, "speed"},
	    {INFINITY, 0, 0, 0, PRIO_FORWARD, 1, "speed"},
	    {1, -1, 0, 0, PRIO_FORWARD, 1, "pps"},
	    {1, 0, NAN, 0, PRIO_FORWARD, 1, "mbps"},
	    {1, 1e-9, 0, 0, PRIO_FORWARD, 1, "pps"},
	    {1, 10, 1, 0, PRIO_FORWARD, 1, "exclusive"},
	    {1, 10, 0, 1, PRIO_FORWARD, 1, "exclusive"},
	    {2, 0, 10, 0, PRIO_FORWARD, 1, "exclusive"},
	    {1, 0, 0, 0, 7, 1, "priority"},
	    {1, 0, 0, 0, PRIO_FORWARD, 0, "loop 0"},
	};
	struct replay_opts o;

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		opts(&o);
		o.speed = bad[i].speed;
		o.pps = bad[i].pps;
		o.mbps = bad[i].mbps;
		o.topspeed = bad[i].topspeed;
		o.prio_mode = (enum prio_mode)bad[i].prio_mode;
		o.loop = bad[i].loop;
		expect_bad_opts(&o, bad[i].what);
	}
}

static void test_null_opts_are_defaults(void)
{
	struct got g;
	uint64_t want[5];

	for (int i = 0; i < 5; i++)
		want[i] = b_ts[i];
	drain(path_b, NULL, &g);
	expect_times(&g, want, 5);
}

/* ---- timing ------------------------------------------------------------- */

static void test_timestamps_shifted_to_start(void)
{
	struct replay_opts o;
	struct got g;
	uint64_t want[5];

	opts(&o);
	drain(path_b, &o, &g);
	expect_times(&g, b_ts, 5);
	for (int i = 0; i < 5; i++) {
		CU_ASSERT_EQUAL(g.seq[i], (uint64_t)i + 1);
		CU_ASSERT_EQUAL(g.len[i], b_len[i]);
		CU_ASSERT_PTR_NULL(g.reject[i]);
	}
	CU_ASSERT_EQUAL(g.caplen[4], 100);
	CU_ASSERT_EQUAL(g.clamped, 0);

	o.start_ns = 5000000000ull;
	for (int i = 0; i < 5; i++)
		want[i] = b_ts[i] + 5000000000ull;
	drain(path_b, &o, &g);
	expect_times(&g, want, 5);
}

static void test_microsecond_file_in_ns(void)
{
	static const uint64_t want[4] = {0, 1000, 1000000, 2000000};
	struct replay_opts o;
	struct got g;

	opts(&o);
	drain(path_usec, &o, &g);
	expect_times(&g, want, 4);
}

static void test_speed_divides_gaps(void)
{
	/* halves round up: 1000001 / 2 = 500000.5 -> 500001 */
	static const uint64_t x2[5] = {0, 617, 500001, 1000004, 1500000500};
	static const uint64_t half[5] = {0, 2468, 2000002, 4000014, 6000001998ull};
	static const uint64_t x3[5] = {0, 411, 333334, 666669, 1000000333};
	struct replay_opts o;
	struct got g;

	opts(&o);
	o.speed = 2;
	drain(path_b, &o, &g);
	expect_times(&g, x2, 5);
	o.speed = 0.5;
	drain(path_b, &o, &g);
	expect_times(&g, half, 5);
	o.speed = 3;
	drain(path_b, &o, &g);
	expect_times(&g, x3, 5);
}

static void test_pps_exact(void)
{
	static const uint64_t k1000[5] = {0, 1000000, 2000000, 3000000, 4000000};
	static const uint64_t k3[5] = {0, 333333333, 666666666, 1000000000, 1333333333};
	static const uint64_t k2_5[5] = {0, 400000000, 800000000, 1200000000, 1600000000};
	struct replay_opts o;
	struct got g;

	opts(&o);
	o.pps = 1000;
	drain(path_b, &o, &g);
	expect_times(&g, k1000, 5);
	o.pps = 3;
	drain(path_b, &o, &g);
	expect_times(&g, k3, 5);
	o.pps = 2.5;
	drain(path_b, &o, &g);
	expect_times(&g, k2_5, 5);
}

static void test_pps_no_drift_over_loops(void)
{
	struct replay_opts o;
	struct source *s;
	struct src_packet p;
	char err[256];
	uint64_t i = 0, bad = 0;

	opts(&o);
	o.pps = 3;
	o.loop = 20000; /* 100000 packets */
	CU_ASSERT_EQUAL_FATAL(src_open_capture(&s, path_b, &o, err, sizeof(err)), 0);
	while (s->ops->next(s, &p, err, sizeof(err)) == 1) {
		/* floor(i * 1e9 / 3) */
		if (p.t_ns != i * 1000000000ull / 3)
			bad++;
		i++;
	}
	s->ops->close(s);
	CU_ASSERT_EQUAL(i, 100000);
	CU_ASSERT_EQUAL(bad, 0);
}

static void test_mbps_paces_by_bytes(void)
{
	/* cumulative bytes 60, 160, 1674, 1738, 1938 (len, not caplen: the
	 * last frame is cut to 100 of 200); first packet at 0, packet i>=1
	 * when packets 0..i fit the rate */
	static const uint64_t m1[5] = {0, 1280000, 13392000, 13904000, 15504000};
	static const uint64_t m2_5[5] = {0, 512000, 5356800, 5561600, 6201600};
	static const uint64_t m0_3[5] = {0, 4266666, 44640000, 46346666, 51680000};
	struct replay_opts o;
	struct got g;

	opts(&o);
	o.mbps = 1;
	drain(path_b, &o, &g);
	expect_times(&g, m1, 5);
	o.mbps = 2.5;
	drain(path_b, &o, &g);
	expect_times(&g, m2_5, 5);
	o.mbps = 0.3;
	drain(path_b, &o, &g);
	expect_times(&g, m0_3, 5);
}

static void test_mbps_bytes_run_on_across_loops(void)
{
	/* pass 2 continues: 1938 + 60 = 1998 bytes -> 15984000 at 1 Mbit/s */
	struct replay_opts o;
	struct got g;

	opts(&o);
	o.mbps = 1;
	o.loop = 2;
	drain(path_b, &o, &g);
	CU_ASSERT_EQUAL_FATAL(g.n, 10);
	CU_ASSERT_EQUAL(g.t[4], 15504000);
	CU_ASSERT_EQUAL(g.t[5], 15984000);
	CU_ASSERT_EQUAL(g.t[9], 2 * 1938 * 8000);
}

static void test_topspeed_all_at_start(void)
{
	static const uint64_t want[5] = {7, 7, 7, 7, 7};
	struct replay_opts o;
	struct got g;

	opts(&o);
	o.topspeed = 1;
	o.start_ns = 7;
	drain(path_b, &o, &g);
	expect_times(&g, want, 5);
	for (int i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(g.seq[i], (uint64_t)i + 1);
}

static void test_loop_offsets_by_span(void)
{
	struct replay_opts o;
	struct got g;
	uint64_t want[15];

	for (int k = 0; k < 3; k++)
		for (int i = 0; i < 5; i++)
			want[k * 5 + i] = k * 3000000999ull + b_ts[i];
	opts(&o);
	o.loop = 3;
	drain(path_b, &o, &g);
	expect_times(&g, want, 15);
	/* loop k+1's first packet coincides with loop k's last */
	CU_ASSERT_EQUAL(g.t[5], g.t[4]);
	for (int i = 0; i < 15; i++) {
		CU_ASSERT_EQUAL(g.seq[i], (uint64_t)i + 1);
		CU_ASSERT_EQUAL(g.prio[i], b_prio[i % 5]);
	}

	o.speed = 2;
	drain(path_b, &o, &g);
	CU_ASSERT_EQUAL_FATAL(g.n, 15);
	CU_ASSERT_EQUAL(g.t[5], 1500000500);
	CU_ASSERT_EQUAL(g.t[14], 4500001499ull); /* 9000002997 / 2, half up */
}

/* A copy of src in the other byte order: libpcap reads it (capture.c's
 * direct reader takes host order only), so a loop re-opens it. */
static int write_swapped(const char *src, const char *dst)
{
	FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
	uint8_t hdr[24], rec[16], data[2048];
	int r = -1;

	if (!in || !out || fread(hdr, 1, 24, in) != 24)
		goto done;
	for (int o = 0; o < 24; o += o == 4 || o == 6 ? 2 : 4) {
		uint8_t t[4];
		int w = o == 4 || o == 6 ? 2 : 4;

		for (int i = 0; i < w; i++)
			t[i] = hdr[o + w - 1 - i];
		memcpy(hdr + o, t, (size_t)w);
	}
	fwrite(hdr, 1, 24, out);
	while (fread(rec, 1, 16, in) == 16) {
		uint32_t cap;

		memcpy(&cap, rec + 8, 4);
		if (cap > sizeof(data) || fread(data, 1, cap, in) != cap)
			goto done;
		for (int o = 0; o < 16; o += 4) {
			uint8_t t[4] = {rec[o + 3], rec[o + 2], rec[o + 1], rec[o]};

			memcpy(rec + o, t, 4);
		}
		fwrite(rec, 1, 16, out);
		fwrite(data, 1, cap, out);
	}
	r = 0;
done:
	if (in)
		fclose(in);
	if (out && fclose(out))
		r = -1;
	return r;
}

/* Every pass reads the file again, whether it is rewound (read directly)
 * or re-opened (read by libpcap): the same packets at the same times. */
static void test_loop_rewound_or_reopened_alike(void)
{
	struct replay_opts o;
	struct got g, h;
	char path[300];

	tmp_path(path, sizeof(path), "swapped.pcap");
	CU_ASSERT_EQUAL_FATAL(write_swapped(path_b, path), 0);
	opts(&o);
	o.loop = 3;
	drain(path_b, &o, &g);
	drain(path, &o, &h);
	CU_ASSERT_EQUAL_FATAL(g.rc, 0);
	CU_ASSERT_EQUAL_FATAL(h.rc, 0);
	CU_ASSERT_EQUAL_FATAL(g.n, 15);
	CU_ASSERT_EQUAL_FATAL(h.n, 15);
	for (int i = 0; i < 15; i++) {
		CU_ASSERT_EQUAL(g.t[i], h.t[i]);
		CU_ASSERT_EQUAL(g.len[i], h.len[i]);
		CU_ASSERT_EQUAL(g.len[i], b_len[i % 5]);
		CU_ASSERT_EQUAL(g.seq[i], (uint64_t)i + 1);
	}
	unlink(path);
}

/* A capture that grows while it is read (tcpdump -w still writing it):
 * the records appended are read in the same pass and in the next, though
 * the first read window was sized to the five-packet file (a small file's
 * window is its own size, rounded up to a page). */
static void test_capture_growing_while_read(void)
{
	static struct bframe many[40];
	struct replay_opts o;
	struct source *s;
	struct src_packet p;
	char path[300], more[300], err[256];
	uint8_t buf[65536];
	size_t got;
	FILE *in, *out;
	int n, r;

	for (int i = 0; i < 40; i++) {
		many[i] = b_frames[2];
		many[i].ts = 4000000000ull + (uint64_t)i * 1000;
		many[i].data[20] = (uint8_t)i;
	}
	tmp_path(path, sizeof(path), "growing.pcap");
	tmp_path(more, sizeof(more), "more.pcap");
	CU_ASSERT_EQUAL_FATAL(write_capture(path, DLT_EN10MB, 1, b_frames, 5), 0);
	CU_ASSERT_EQUAL_FATAL(write_capture(more, DLT_EN10MB, 1, many, 40), 0);
	opts(&o);
	o.loop = 2;
	o.topspeed = 1;
	CU_ASSERT_EQUAL_FATAL(src_open_capture(&s, path, &o, err, sizeof(err)), 0);
	for (n = 0; n < 5 && s->ops->next(s, &p, err, sizeof(err)) == 1; n++)
		;
	CU_ASSERT_EQUAL_FATAL(n, 5);
	/* append the forty records (60 KiB), without their file header */
	in = fopen(more, "rb");
	out = fopen(path, "ab");
	CU_ASSERT_FATAL(in && out);
	got = fread(buf, 1, sizeof(buf), in);
	CU_ASSERT_FATAL(got > 24 && got < sizeof(buf));
	CU_ASSERT_EQUAL(fwrite(buf + 24, 1, got - 24, out), got - 24);
	fclose(in);
	CU_ASSERT_EQUAL(fclose(out), 0);
	for (n = 5; (r = s->ops->next(s, &p, err, sizeof(err))) == 1; n++) {
		int k = n % 45;

		CU_ASSERT_EQUAL(p.seq, (uint64_t)n + 1);
		CU_ASSERT_EQUAL(p.len, k < 5 ? b_len[k] : 1514);
		if (k >= 5 && p.caplen > 20)
			CU_ASSERT_EQUAL(p.data[20], k - 5);
	}
	CU_ASSERT_EQUAL(r, 0);
	CU_ASSERT_EQUAL(n, 90);
	s->ops->close(s);
	unlink(path);
	unlink(more);
}

static void test_limit_cuts_exactly(void)
{
	struct replay_opts o;
	struct got g;

	opts(&o);
	o.limit = 3;
	drain(path_b, &o, &g);
	CU_ASSERT_EQUAL(g.rc, 0);
	CU_ASSERT_EQUAL(g.n, 3);
	o.limit = 7;
	o.loop = 3;
	drain(path_b, &o, &g);
	CU_ASSERT_EQUAL(g.n, 7);
	CU_ASSERT_EQUAL(g.t[6], 3000000999ull + 1234);
	CU_ASSERT_EQUAL(g.seq[6], 7);
	o.limit = 100; /* more than there is */
	drain(path_b, &o, &g);
	CU_ASSERT_EQUAL(g.n, 15);
}

static void test_duration_cuts_exactly(void)
{
	struct replay_opts o;
	struct got g;

	opts(&o);
	o.start_ns = 1000;
	o.duration_ns = 2000007; /* packet 4 is exactly at the end: kept */
	drain(path_b, &o, &g);
	CU_ASSERT_EQUAL(g.rc, 0);
	CU_ASSERT_EQUAL(g.n, 4);
	CU_ASSERT_EQUAL(g.t[3], 1000 + 2000007);
	o.duration_ns = 2000006;
	drain(path_b, &o, &g);
	CU_ASSERT_EQUAL(g.n, 3);
	o.pps = 1000;
	o.duration_ns = 2000000; /* 0, 1 ms, 2 ms */
	drain(path_b, &o, &g);
	CU_ASSERT_EQUAL(g.n, 3);
}

static void test_loop_forever_needs_an_end(void)
{
	struct replay_opts o;
	struct got g;

	opts(&o);
	o.loop = 0;
	o.limit = 12;
	drain(path_b, &o, &g);
	CU_ASSERT_EQUAL(g.rc, 0);
	CU_ASSERT_EQUAL(g.n, 12);
	CU_ASSERT_EQUAL(g.t[11], 2 * 3000000999ull + 1234);

	/* passes of 3000000999 ns: 3 whole ones and 4 packets of the 4th fit
	 * in 10 s; the 4th pass's last is at 12000003996 */
	o.limit = 0;
	o.duration_ns = 10000000000ull;
	drain(path_b, &o, &g);
	CU_ASSERT_EQUAL(g.rc, 0);
	CU_ASSERT_EQUAL(g.n, 19);

	/* topspeed never gets past the duration: refused, not a hang */
	o.topspeed = 1;
	drain(path_b, &o, &g);
	CU_ASSERT_EQUAL(g.rc, -EINVAL);
	CU_ASSERT_EQUAL(g.n, 5);
	CU_ASSERT_PTR_NOT_NULL(strstr(g.err, path_b));

	/* an empty capture ends at once even when looping forever */
	o.topspeed = 0;
	o.limit = 5;
	drain(path_empty, &o, &g);
	CU_ASSERT_EQUAL(g.rc, 0);
	CU_ASSERT_EQUAL(g.n, 0);
}

static void test_backwards_timestamps_clamped(void)
{
	struct replay_opts o;
	struct got g;
	uint64_t want[18];

	opts(&o);
	drain(path_back, &o, &g);
	expect_times(&g, k_rel, 9);
	CU_ASSERT_EQUAL(g.clamped, 4); /* 15, 17, 5 and 12 */

	/* the next pass starts where this one reached (latest - first = 22),
	 * not at last - first (4) */
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < 9; i++)
			want[k * 9 + i] = k * 22 + k_rel[i];
	o.loop = 2;
	drain(path_back, &o, &g);
	expect_times(&g, want, 18);
	CU_ASSERT_EQUAL(g.clamped, 8);

	/* rate pacing ignores the timestamps: nothing to clamp */
	o.pps = 1e9;
	drain(path_back, &o, &g);
	CU_ASSERT_EQUAL(g.n, 18);
	CU_ASSERT_EQUAL(g.t[17], 17);
	CU_ASSERT_EQUAL(g.clamped, 0);
}

/* ---- priority ------------------------------------------------------------ */

static void test_tos_table_rows(void)
{
	static const uint32_t row[16] = {0, 0, 0, 0, 2, 2, 2, 2, 6, 6, 6, 6, 4, 4, 4, 4};

	for (unsigned idx = 0; idx < 16; idx++) {
		uint8_t tos = (uint8_t)(idx << 1);

		CU_ASSERT_EQUAL(tos_to_priority(tos), row[idx]);
		/* precedence/DSCP class bits and bit 0 do not count */
		CU_ASSERT_EQUAL(tos_to_priority((uint8_t)(tos | 0x01)), row[idx]);
		CU_ASSERT_EQUAL(tos_to_priority((uint8_t)(tos | 0xe0)), row[idx]);
		CU_ASSERT_EQUAL(tos_to_priority((uint8_t)(tos | 0xa1)), row[idx]);
	}
}

static void test_tos_examples(void)
{
	CU_ASSERT_EQUAL(tos_to_priority(0x10), 6); /* lowdelay */
	CU_ASSERT_EQUAL(tos_to_priority(0x08), 2); /* throughput */
	CU_ASSERT_EQUAL(tos_to_priority(0xb8), 4); /* DSCP EF */
	CU_ASSERT_EQUAL(tos_to_priority(0xc0), 0); /* CS6 */
	CU_ASSERT_EQUAL(tos_to_priority(0x02), 0); /* ECT(0): not FILLER on 3.13+ */
	CU_ASSERT_EQUAL(tos_to_priority(0x00), 0);
}

static void test_forward_priority_of_frames(void)
{
	struct bframe f;

	ipv4_frame(&f, 0x10, 60, 60);
	CU_ASSERT_EQUAL(frame_forward_priority(f.data, f.caplen), 6);
	ipv4_frame(&f, 0xb8, 60, 34); /* header whole, payload cut */
	CU_ASSERT_EQUAL(frame_forward_priority(f.data, f.caplen), 4);
	CU_ASSERT_EQUAL(frame_forward_priority(f.data, 33), 0); /* header cut */
	CU_ASSERT_EQUAL(frame_forward_priority(f.data, 15), 0);
	CU_ASSERT_EQUAL(frame_forward_priority(f.data, 8), 0);
	CU_ASSERT_EQUAL(frame_forward_priority(f.data, 0), 0);
	CU_ASSERT_EQUAL(frame_forward_priority(NULL, 0), 0);
	f.data[14] = 0x65; /* says version 6 under EtherType IPv4 */
	CU_ASSERT_EQUAL(frame_forward_priority(f.data, f.caplen), 0);
	f.data[14] = 0x44; /* IHL 4 */
	CU_ASSERT_EQUAL(frame_forward_priority(f.data, f.caplen), 0);

	vlan_ipv4_frame(&f, 0x8100, 0x08, 64);
	CU_ASSERT_EQUAL(frame_forward_priority(f.data, f.caplen), 2);
	CU_ASSERT_EQUAL(frame_forward_priority(f.data, 18 + 19), 0);
	CU_ASSERT_EQUAL(frame_forward_priority(f.data, 17), 0); /* tag cut */
	vlan_ipv4_frame(&f, 0x88a8, 0x10, 64);			/* 802.1ad outer tag */
	CU_ASSERT_EQUAL(frame_forward_priority(f.data, f.caplen), 6);
	/* QinQ: 802.1ad then 802.1Q then IPv4 */
	eth(&f, 0x88a8);
	memcpy(f.data + 14, "\x00\xc8\x81\x00\x07\xd1\x08\x00", 8);
	ipv4_at(f.data + 22, 0x18, 46);
	CU_ASSERT_EQUAL(frame_forward_priority(f.data, 68), 4);
	vlan_ipv4_frame(&f, 0x9100, 0x10, 64); /* not a kernel VLAN type */
	CU_ASSERT_EQUAL(frame_forward_priority(f.data, f.caplen), 0);

	ipv6_frame(&f, 0x10, 80);
	CU_ASSERT_EQUAL(frame_forward_priority(f.data, f.caplen), 0);
	arp_frame(&f, 60);
	CU_ASSERT_EQUAL(frame_forward_priority(f.data, f.caplen), 0);
}

static void test_priority_modes(void)
{
	struct replay_opts o;
	struct got g;

	opts(&o);
	drain(path_b, &o, &g);
	CU_ASSERT_EQUAL_FATAL(g.n, 5);
	for (int i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(g.prio[i], b_prio[i]);
	o.prio_mode = PRIO_FIXED;
	o.priority = 0x10003;
	drain(path_b, &o, &g);
	CU_ASSERT_EQUAL_FATAL(g.n, 5);
	for (int i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(g.prio[i], 0x10003);
}

/* ---- link types, rejects, errors --------------------------------------- */

static void test_sll_becomes_ethernet(void)
{
	struct replay_opts o;
	struct got g;

	opts(&o);
	drain(path_sll, &o, &g);
	CU_ASSERT_EQUAL(g.rc, 0);
	CU_ASSERT_EQUAL_FATAL(g.n, 2);
	CU_ASSERT_EQUAL(g.type[0], 0x0800);
	CU_ASSERT_EQUAL(g.caplen[0], 34);
	CU_ASSERT_EQUAL(g.len[0], 34);
	CU_ASSERT_EQUAL(g.prio[0], 6);
	CU_ASSERT_PTR_NULL(g.reject[0]);
	CU_ASSERT_PTR_NOT_NULL(g.reject[1]); /* 802.2: yielded, marked */
	CU_ASSERT_EQUAL(g.prio[1], 0);
	CU_ASSERT_EQUAL(g.t[1], 500);
}

static void test_raw_becomes_ethernet(void)
{
	struct replay_opts o;
	struct got g;

	opts(&o);
	o.prio_mode = PRIO_FIXED;
	o.priority = 3;
	drain(path_raw, &o, &g);
	CU_ASSERT_EQUAL(g.rc, 0);
	CU_ASSERT_EQUAL_FATAL(g.n, 2);
	CU_ASSERT_EQUAL(g.type[0], 0x86dd);
	CU_ASSERT_EQUAL(g.caplen[0], 54);
	CU_ASSERT_PTR_NULL(g.reject[0]);
	CU_ASSERT_PTR_NOT_NULL(g.reject[1]);
	CU_ASSERT_EQUAL(g.prio[1], 3);
	CU_ASSERT_EQUAL(g.t[1], 7);
}

static void test_rejected_frames_still_yielded(void)
{
	struct replay_opts o;
	struct got g;

	opts(&o);
	o.pps = 1000;
	drain(path_short, &o, &g);
	CU_ASSERT_EQUAL(g.rc, 0);
	CU_ASSERT_EQUAL_FATAL(g.n, 3);
	CU_ASSERT_PTR_NULL(g.reject[0]);
	CU_ASSERT_PTR_NOT_NULL(g.reject[1]);
	CU_ASSERT_EQUAL(g.caplen[1], 8);
	CU_ASSERT_EQUAL(g.prio[1], 0);
	CU_ASSERT_EQUAL(g.t[1], 1000000); /* it takes its slot */
	CU_ASSERT_EQUAL(g.seq[2], 3);
	CU_ASSERT_EQUAL(g.t[2], 2000000);
}

static void test_truncated_file_errors(void)
{
	struct replay_opts o;
	struct source *s;
	struct src_packet p;
	char err[512], err2[512];
	int r, n = 0;

	opts(&o);
	CU_ASSERT_EQUAL_FATAL(src_open_capture(&s, path_trunc, &o, err, sizeof(err)), 0);
	while ((r = s->ops->next(s, &p, err, sizeof(err))) == 1)
		n++;
	CU_ASSERT_EQUAL(n, 4);
	CU_ASSERT_EQUAL(r, -EIO);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, path_trunc));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "packet 5"));
	CU_ASSERT_PTR_NULL(strchr(err, '\n'));
	/* the error sticks */
	CU_ASSERT_EQUAL(s->ops->next(s, &p, err2, sizeof(err2)), -EIO);
	CU_ASSERT_STRING_EQUAL(err, err2);
	s->ops->close(s);

	/* in a later loop the message says which */
	o.loop = 2;
	CU_ASSERT_EQUAL_FATAL(src_open_capture(&s, path_trunc_hdr, &o, err, sizeof(err)), 0);
	n = 0;
	while ((r = s->ops->next(s, &p, err, sizeof(err))) == 1)
		n++;
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_EQUAL(r, -EIO);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, path_trunc_hdr));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "packet 2"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "(loop 1)"));
	s->ops->close(s);
}

static void test_unreadable_files_refused(void)
{
	struct got g;
	char missing[300];

	tmp_path(missing, sizeof(missing), "no-such.pcap");
	CU_ASSERT_EQUAL(drain(missing, NULL, &g), -ENOENT); /* the errno of the failed open */
	CU_ASSERT_PTR_NOT_NULL(strstr(g.err, missing));
	CU_ASSERT_EQUAL(drain(path_junk, NULL, &g), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(g.err, path_junk));
	CU_ASSERT_PTR_NULL(strchr(g.err, '\n'));
}

static void test_empty_capture(void)
{
	struct got g;

	CU_ASSERT_EQUAL(drain(path_empty, NULL, &g), 0);
	CU_ASSERT_EQUAL(g.n, 0);
}

static void test_clock_overflow_is_an_error(void)
{
	struct replay_opts o;
	struct got g;

	opts(&o);
	o.start_ns = UINT64_MAX - 1000;
	drain(path_b, &o, &g);
	CU_ASSERT_EQUAL(g.rc, -EINVAL);
	CU_ASSERT_EQUAL(g.n, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(g.err, path_b));
	CU_ASSERT_PTR_NOT_NULL(strstr(g.err, "packet 2"));
}

/* ---- real captures (shared folder) -------------------------------------- */

static const char *shared_pcap(char *buf, size_t n, const char *name)
{
	static int told;
	const char *dir = pcap_frames_shared_dir();

	if (!dir) {
		if (!told++)
			printf("\n    SKIP real captures: no shared folder ($TCSIM_SHARED or "
			       "../shared)\n");
		return NULL;
	}
	snprintf(buf, n, "%s/pcaps/%s", dir, name);
	if (access(buf, R_OK)) {
		printf("\n    skip: %s not found", buf);
		return NULL;
	}
	return buf;
}

/* tcpdump -tt: 1607454603.986596 first; offsets from it, in ns */
static const uint64_t icmp_rel[10] = {
    0,		26299000,   1000899000, 1024150000, 2001610000,
    2033952000, 3002242000, 3032794000, 4003199000, 4032397000,
};

static void test_real_icmp_timing(void)
{
	struct replay_opts o;
	struct got g;
	uint64_t want[30];
	char buf[4096];
	const char *path = shared_pcap(buf, sizeof(buf), "icmp_echo_5_pings.pcap");

	if (!path)
		return;
	opts(&o);
	drain(path, &o, &g);
	expect_times(&g, icmp_rel, 10);

	o.speed = 2;
	for (int i = 0; i < 10; i++)
		want[i] = icmp_rel[i] / 2;
	drain(path, &o, &g);
	expect_times(&g, want, 10);

	opts(&o);
	o.pps = 1000;
	for (int i = 0; i < 10; i++)
		want[i] = (uint64_t)i * 1000000;
	drain(path, &o, &g);
	expect_times(&g, want, 10);

	/* 98-byte frames at 1 Mbit/s: 784 us each, the first gap two frames
	 * (tcpreplay 4.4.3 on lo measured 0, 1.581 ms, 2.298 ms, ...) */
	opts(&o);
	o.mbps = 1;
	want[0] = 0;
	for (int i = 1; i < 10; i++)
		want[i] = (uint64_t)(i + 1) * 784000;
	drain(path, &o, &g);
	expect_times(&g, want, 10);

	opts(&o);
	o.topspeed = 1;
	memset(want, 0, sizeof(want));
	drain(path, &o, &g);
	expect_times(&g, want, 10);

	opts(&o);
	o.loop = 3;
	for (int k = 0; k < 3; k++)
		for (int i = 0; i < 10; i++)
			want[k * 10 + i] = k * 4032397000ull + icmp_rel[i];
	drain(path, &o, &g);
	expect_times(&g, want, 30);
	for (int i = 0; i < 30; i++)
		CU_ASSERT_EQUAL(g.prio[i], 0); /* tos 0x0 */

	o.limit = 13;
	drain(path, &o, &g);
	CU_ASSERT_EQUAL(g.n, 13);
	o.limit = 0;
	o.duration_ns = 1000000000; /* 2 packets (tcpreplay --duration 1 sends a 3rd) */
	drain(path, &o, &g);
	CU_ASSERT_EQUAL(g.n, 2);
}

static void test_real_nanosecond_pcap(void)
{
	struct replay_opts o;
	struct got g;
	char buf[4096];
	const char *path = shared_pcap(buf, sizeof(buf), "nsec_100_packets.pcap");

	if (!path)
		return;
	opts(&o);
	o.start_ns = 1;
	drain(path, &o, &g);
	CU_ASSERT_EQUAL(g.rc, 0);
	CU_ASSERT_EQUAL_FATAL(g.n, 100);
	/* tcpdump --nano -tt: ...801.000721000, .000789000, .000803000, ... .028488000 */
	CU_ASSERT_EQUAL(g.t[0], 1);
	CU_ASSERT_EQUAL(g.t[1], 1 + 68000);
	CU_ASSERT_EQUAL(g.t[2], 1 + 82000);
	CU_ASSERT_EQUAL(g.t[3], 1 + 121000);
	CU_ASSERT_EQUAL(g.t[4], 1 + 436000);
	CU_ASSERT_EQUAL(g.clamped, 0);
	o.speed = 1000;
	drain(path, &o, &g);
	CU_ASSERT_EQUAL(g.t[1], 1 + 68);
	CU_ASSERT_EQUAL(g.t[2], 1 + 82);
}

static void test_real_merged_pcapng_never_goes_back(void)
{
	/* 699 packets, 22 interfaces; 17 packets (503-512, 617-623) are
	 * stamped before the latest one read; first 1595957694.169758000,
	 * latest (and last) 1722540110.397706326 */
	const uint64_t span = 126582416227948326ull;
	struct replay_opts o;
	struct source *s;
	struct src_packet p;
	char buf[4096], err[512];
	uint64_t n = 0, prev = 0, back = 0, first2 = 0, last = 0;
	const char *path = shared_pcap(buf, sizeof(buf), "pcapng_22_interfaces_merged.pcapng");

	if (!path)
		return;
	opts(&o);
	o.loop = 2;
	CU_ASSERT_EQUAL_FATAL(src_open_capture(&s, path, &o, err, sizeof(err)), 0);
	while (s->ops->next(s, &p, err, sizeof(err)) == 1) {
		if (p.t_ns < prev)
			back++;
		if (n == 698)
			CU_ASSERT_EQUAL(s->clamped, 17);
		if (n == 699)
			first2 = p.t_ns;
		prev = last = p.t_ns;
		n++;
	}
	CU_ASSERT_EQUAL(n, 1398);
	CU_ASSERT_EQUAL(back, 0);
	CU_ASSERT_EQUAL(s->clamped, 34);
	CU_ASSERT_EQUAL(first2, span);
	CU_ASSERT_EQUAL(last, 2 * span);
	s->ops->close(s);
}

static void test_real_link_types_become_ethernet(void)
{
	static const struct {
		const char *name;
		uint64_t packets;
		uint16_t only_type; /* 0: any EtherType */
	} caps[] = {
	    {"linux_sll_kakaotalk.pcap", 3203, 0},
	    {"linux_sll2_icmp_arp.pcap", 6, 0},
	    {"rawip_android_app.pcap", 946, 0x0800},
	    {"null_loopback_ipv6_http.pcap", 24, 0x86dd},
	};

	for (size_t c = 0; c < sizeof(caps) / sizeof(*caps); c++) {
		struct source *s;
		struct src_packet p;
		char buf[4096], err[512];
		uint64_t n = 0, bad = 0, rejected = 0;
		const char *path = shared_pcap(buf, sizeof(buf), caps[c].name);

		if (!path)
			continue;
		CU_ASSERT_EQUAL_FATAL(src_open_capture(&s, path, NULL, err, sizeof(err)), 0);
		while (s->ops->next(s, &p, err, sizeof(err)) == 1) {
			uint16_t type;

			n++;
			if (p.reject) {
				rejected++;
				continue;
			}
			type = p.caplen >= 14 ? (uint16_t)(p.data[12] << 8 | p.data[13]) : 0;
			if (type < 0x600 || (caps[c].only_type && type != caps[c].only_type) ||
			    p.len < p.caplen)
				bad++;
		}
		s->ops->close(s);
		if (n != caps[c].packets || bad || rejected)
			printf("\n    %s: %llu packets, %llu bad, %llu rejected", caps[c].name,
			       (unsigned long long)n, (unsigned long long)bad,
			       (unsigned long long)rejected);
		CU_ASSERT_EQUAL(n, caps[c].packets);
		CU_ASSERT_EQUAL(bad, 0);
		CU_ASSERT_EQUAL(rejected, 0);
	}
}

static void test_real_forward_priorities(void)
{
	/* per tcpdump -v: ssh_interactive 547 x tos 0x10, the rest tos 0 or
	 * not IPv4; lan_mixed 654 x 0x10, 29 x 0x08 + 67 x 0x0a (BULK) */
	static const struct {
		const char *name;
		uint64_t p6, p2, p0;
	} caps[] = {
	    {"ssh_interactive_session.pcap", 547, 0, 39},
	    {"lan_mixed_ssh_dns_dhcp.pcap", 654, 96, 1250},
	    {"vlan_8021q_x11.pcap", 0, 0, 395},
	};

	for (size_t c = 0; c < sizeof(caps) / sizeof(*caps); c++) {
		struct source *s;
		struct src_packet p;
		char buf[4096], err[512];
		uint64_t n[8] = {0}, other = 0;
		const char *path = shared_pcap(buf, sizeof(buf), caps[c].name);

		if (!path)
			continue;
		CU_ASSERT_EQUAL_FATAL(src_open_capture(&s, path, NULL, err, sizeof(err)), 0);
		while (s->ops->next(s, &p, err, sizeof(err)) == 1) {
			if (p.priority < 8)
				n[p.priority]++;
			else
				other++;
		}
		s->ops->close(s);
		CU_ASSERT_EQUAL(n[6], caps[c].p6);
		CU_ASSERT_EQUAL(n[2], caps[c].p2);
		CU_ASSERT_EQUAL(n[0], caps[c].p0);
		CU_ASSERT_EQUAL(n[1] + n[3] + n[4] + n[5] + n[7] + other, 0);
	}
}

static void test_real_bad_captures(void)
{
	struct got g;
	char buf[4096];
	const char *path = shared_pcap(buf, sizeof(buf), "bad_caplen8_ethernet.pcap");

	if (path) {
		drain(path, NULL, &g);
		CU_ASSERT_EQUAL(g.rc, 0);
		CU_ASSERT_EQUAL_FATAL(g.n, 1);
		CU_ASSERT_PTR_NOT_NULL(g.reject[0]);
	}
	path = shared_pcap(buf, sizeof(buf), "bad_record_len_truncated_eof.pcap");
	if (path) {
		/* one record, then the file ends 2 bytes into the next header */
		drain(path, NULL, &g);
		CU_ASSERT_EQUAL(g.rc, -EIO);
		CU_ASSERT_EQUAL(g.n, 1);
		CU_ASSERT_PTR_NOT_NULL(strstr(g.err, path));
		CU_ASSERT_PTR_NOT_NULL(strstr(g.err, "packet 2"));
	}
	path = shared_pcap(buf, sizeof(buf), "bad_file_version.pcap");
	if (path) {
		CU_ASSERT_EQUAL(drain(path, NULL, &g), -EINVAL);
		CU_ASSERT_PTR_NOT_NULL(strstr(g.err, path));
	}
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("source", suite_init, suite_clean);
	if (!s)
		return 1;
	CU_add_test(s, "replay_opts_default values", test_defaults);
	CU_add_test(s, "bad options are refused naming the file", test_bad_options_refused);
	CU_add_test(s, "NULL options are the defaults", test_null_opts_are_defaults);
	CU_add_test(s, "timestamps are shifted to start_ns", test_timestamps_shifted_to_start);
	CU_add_test(s, "a microsecond file is read in ns", test_microsecond_file_in_ns);
	CU_add_test(s, "speed divides the gaps, rounding halves up", test_speed_divides_gaps);
	CU_add_test(s, "pps: floor(i * 1e9 / pps)", test_pps_exact);
	CU_add_test(s, "pps does not drift over 100000 packets", test_pps_no_drift_over_loops);
	CU_add_test(s, "mbps paces by bytes of packets 0..i", test_mbps_paces_by_bytes);
	CU_add_test(s, "mbps byte count runs on across loops", test_mbps_bytes_run_on_across_loops);
	CU_add_test(s, "topspeed: every packet at start_ns", test_topspeed_all_at_start);
	CU_add_test(s, "loop k is offset by k x span", test_loop_offsets_by_span);
	CU_add_test(s, "a loop reads the file again, rewound or re-opened alike",
		    test_loop_rewound_or_reopened_alike);
	CU_add_test(s, "a capture growing while read", test_capture_growing_while_read);
	CU_add_test(s, "limit cuts exactly, across loops", test_limit_cuts_exactly);
	CU_add_test(s, "duration cuts exactly", test_duration_cuts_exactly);
	CU_add_test(s, "loop 0 runs until the limit or duration", test_loop_forever_needs_an_end);
	CU_add_test(s, "backwards timestamps are clamped and counted",
		    test_backwards_timestamps_clamped);
	CU_add_test(s, "tos_to_priority: the 16 rows", test_tos_table_rows);
	CU_add_test(s, "tos_to_priority: spec 7.1 examples", test_tos_examples);
	CU_add_test(s, "frame_forward_priority of frames", test_forward_priority_of_frames);
	CU_add_test(s, "PRIO_FORWARD and PRIO_FIXED", test_priority_modes);
	CU_add_test(s, "SLL becomes Ethernet", test_sll_becomes_ethernet);
	CU_add_test(s, "RAW becomes Ethernet", test_raw_becomes_ethernet);
	CU_add_test(s, "rejected frames are still yielded", test_rejected_frames_still_yielded);
	CU_add_test(s, "a truncated file errors naming file and packet",
		    test_truncated_file_errors);
	CU_add_test(s, "unreadable files are refused", test_unreadable_files_refused);
	CU_add_test(s, "an empty capture yields nothing", test_empty_capture);
	CU_add_test(s, "an arrival past the 64-bit clock is an error",
		    test_clock_overflow_is_an_error);
	CU_add_test(s, "real: icmp_echo_5_pings timing", test_real_icmp_timing);
	CU_add_test(s, "real: nanosecond pcap keeps ns", test_real_nanosecond_pcap);
	CU_add_test(s, "real: 22-interface pcapng never goes back",
		    test_real_merged_pcapng_never_goes_back);
	CU_add_test(s, "real: SLL, SLL2, RAW, NULL become Ethernet",
		    test_real_link_types_become_ethernet);
	CU_add_test(s, "real: forwarded priorities from TOS", test_real_forward_priorities);
	CU_add_test(s, "real: bad captures", test_real_bad_captures);
	return unit_run();
}
