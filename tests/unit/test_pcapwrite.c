/* test_pcapwrite.c - the capture file writer (base/pcapwrite.h): pcap and
 * pcapng files read back through libpcap (stamps to the nanosecond, lengths,
 * bytes, a frame given in pieces), pcapng's blocks walked by hand (lengths,
 * padding, the comment and flags options, a 64-bit stamp past 2106), and
 * the errors: a pcap past its 32-bit seconds, a full disk. */
#include "unit.h"
#include <CUnit/Basic.h>
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcapwrite.h"

static char path[256];

static int suite_init(void)
{
	snprintf(path, sizeof(path), "/tmp/tcsim-test-pcapwrite-%d", (int)getpid());
	return 0;
}

static int suite_clean(void)
{
	unlink(path);
	return 0;
}

static uint8_t frame[200];

/* Writes three packets: whole, in three pieces (a VLAN tag put back),
 * and caplen < len. */
static void write_three(enum pcapw_format fmt, uint64_t t0)
{
	struct pcapw w;
	struct pcapw_iface ifc = {"eth0", "eth0 band 1:1"};
	char err[256];
	FILE *f = fopen(path, "wb");
	uint8_t tag[4] = {0x81, 0x00, 0x00, 0x05};
	struct iovec whole = {frame, 60};
	struct iovec parts[3] = {{frame, 12}, {tag, 4}, {frame + 12, 48}};
	struct iovec cut = {frame, 33};

	for (size_t i = 0; i < sizeof(frame); i++)
		frame[i] = (uint8_t)(i * 7 + 1);
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL_FATAL(pcapw_open(&w, f, fmt, &ifc, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(pcapw_put(&w, t0, 60, &whole, 1, "sent band=1:1 x", PCAPW_OUTBOUND), 0);
	CU_ASSERT_EQUAL(pcapw_put(&w, t0 + 1, 64, parts, 3, NULL, 0), 0);
	CU_ASSERT_EQUAL(pcapw_put(&w, t0 + 999999999, 1500, &cut, 1, "dropped", 0), 0);
	CU_ASSERT_EQUAL(pcapw_close(&w), 0);
}

static void read_back(uint64_t t0)
{
	char perr[PCAP_ERRBUF_SIZE];
	pcap_t *pc = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, perr);
	struct pcap_pkthdr *h;
	const u_char *d;
	uint64_t want_t[3] = {t0, t0 + 1, t0 + 999999999};
	uint32_t want_cap[3] = {60, 64, 33}, want_len[3] = {60, 64, 1500};
	int n = 0;

	CU_ASSERT_FATAL(pc != NULL);
	CU_ASSERT_EQUAL(pcap_datalink(pc), DLT_EN10MB);
	CU_ASSERT_EQUAL(pcap_snapshot(pc), 262144);
	while (pcap_next_ex(pc, &h, &d) == 1 && n < 3) {
		uint64_t t = (uint64_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec;

		CU_ASSERT_EQUAL(t, want_t[n]);
		CU_ASSERT_EQUAL(h->caplen, want_cap[n]);
		CU_ASSERT_EQUAL(h->len, want_len[n]);
		if (n == 1) {
			CU_ASSERT(!memcmp(d, frame, 12));
			CU_ASSERT(d[12] == 0x81 && d[13] == 0 && d[14] == 0 && d[15] == 5);
			CU_ASSERT(!memcmp(d + 16, frame + 12, 48));
		} else {
			CU_ASSERT(!memcmp(d, frame, want_cap[n]));
		}
		n++;
	}
	CU_ASSERT_EQUAL(n, 3);
	pcap_close(pc);
}

static void test_pcap_roundtrip(void)
{
	uint64_t t0 = 1300475167101160000ull;
	uint8_t head[24];
	FILE *f;

	write_three(PCAPW_PCAP, t0);
	read_back(t0);
	/* libpcap's header: nanosecond magic, 2.4, snaplen, Ethernet */
	f = fopen(path, "rb");
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(fread(head, 24, 1, f), 1);
	fclose(f);
	{
		uint32_t magic, snap, lt;
		uint16_t maj, min;

		memcpy(&magic, head, 4);
		memcpy(&maj, head + 4, 2);
		memcpy(&min, head + 6, 2);
		memcpy(&snap, head + 16, 4);
		memcpy(&lt, head + 20, 4);
		CU_ASSERT_EQUAL(magic, 0xa1b23c4du);
		CU_ASSERT(maj == 2 && min == 4);
		CU_ASSERT_EQUAL(snap, 262144u);
		CU_ASSERT_EQUAL(lt, 1u);
	}
}

static void test_pcapng_roundtrip(void)
{
	uint64_t t0 = 1300475167101160000ull;

	write_three(PCAPW_PCAPNG, t0);
	read_back(t0);
}

static uint32_t u32at(const uint8_t *b, size_t o)
{
	uint32_t v;

	memcpy(&v, b + o, 4);
	return v;
}

/* The blocks by hand: SHB, IDB (if_tsresol 9), three EPBs with their
 * options; a stamp past 2^32 seconds keeps its 64 bits. */
static void test_pcapng_blocks(void)
{
	uint64_t t0 = 5000000000ull * 1000000000ull; /* year 2128: past classic pcap */
	uint8_t b[4096];
	size_t n, o = 0;
	int blocks = 0, epbs = 0;
	FILE *f;

	write_three(PCAPW_PCAPNG, t0);
	f = fopen(path, "rb");
	CU_ASSERT_FATAL(f != NULL);
	n = fread(b, 1, sizeof(b), f);
	fclose(f);
	CU_ASSERT_FATAL(n > 28 && n < sizeof(b));
	CU_ASSERT_EQUAL(u32at(b, 0), 0x0A0D0D0Au);
	CU_ASSERT_EQUAL(u32at(b, 8), 0x1A2B3C4Du);
	while (o + 12 <= n) {
		uint32_t type = u32at(b, o), len = u32at(b, o + 4);

		CU_ASSERT_FATAL(len % 4 == 0 && len >= 12 && o + len <= n);
		CU_ASSERT_EQUAL(u32at(b, o + len - 4), len);
		if (type == 1) {
			/* linktype 1, snaplen, then options: if_name, if_description, if_tsresol */
			CU_ASSERT_EQUAL(u32at(b, o + 8), 1u);
			CU_ASSERT_EQUAL(u32at(b, o + 12), 262144u);
			CU_ASSERT(!memcmp(b + o + 16, "\x02\x00\x04\x00" "eth0", 8));
			CU_ASSERT(!memcmp(b + o + 24, "\x03\x00\x0d\x00" "eth0 band 1:1\0\0\0", 20));
			CU_ASSERT(!memcmp(b + o + 44, "\x09\x00\x01\x00\x09\0\0\0" "\0\0\0\0", 12));
			CU_ASSERT_EQUAL(len, 60u);
		}
		if (type == 6) {
			uint32_t cap = u32at(b, o + 20);
			size_t opt = o + 28 + (cap + 3) / 4 * 4;
			uint64_t t = ((uint64_t)u32at(b, o + 12) << 32) | u32at(b, o + 16);

			CU_ASSERT_EQUAL(t, t0 + (epbs == 0 ? 0 : epbs == 1 ? 1 : 999999999));
			if (epbs == 0) {
				/* comment of 15 bytes padded to 16, flags, end */
				CU_ASSERT(!memcmp(b + opt, "\x01\x00\x0f\x00" "sent band=1:1 x\0", 20));
				CU_ASSERT(!memcmp(b + opt + 20, "\x02\x00\x04\x00\x02\0\0\0" "\0\0\0\0", 12));
			} else if (epbs == 1) {
				CU_ASSERT_EQUAL(opt, o + len - 4); /* no options at all */
			} else {
				CU_ASSERT(!memcmp(b + opt, "\x01\x00\x07\x00" "dropped\0" "\0\0\0\0", 16));
			}
			epbs++;
		}
		blocks++;
		o += len;
	}
	CU_ASSERT_EQUAL(o, n);
	CU_ASSERT_EQUAL(blocks, 5);
	CU_ASSERT_EQUAL(epbs, 3);
}

static void test_pcap_past_2106(void)
{
	struct pcapw w;
	char err[256];
	FILE *f = fopen(path, "wb");
	struct iovec v = {frame, 60};

	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL_FATAL(pcapw_open(&w, f, PCAPW_PCAP, NULL, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(pcapw_put(&w, 4294967295ull * 1000000000ull + 999999999u, 60, &v, 1, NULL, 0), 0);
	CU_ASSERT_EQUAL(pcapw_put(&w, 4294967296ull * 1000000000ull, 60, &v, 1, NULL, 0), -EOVERFLOW);
	pcapw_abort(&w);
}

/* A full disk shows at the latest when the writer closes. */
static void test_full_disk(void)
{
	for (int fmt = PCAPW_PCAP; fmt <= PCAPW_PCAPNG; fmt++) {
		struct pcapw w;
		char err[256];
		FILE *f = fopen("/dev/full", "wb");
		struct iovec v = {frame, 60};
		int r = 0;

		if (!f) {
			printf("(no /dev/full: skipped) ");
			return;
		}
		if (pcapw_open(&w, f, (enum pcapw_format)fmt, NULL, err, sizeof(err)))
			continue; /* refused at once: fine too */
		for (int i = 0; i < 1000 && !r; i++)
			r = pcapw_put(&w, 1, 60, &v, 1, "x", 0);
		if (!r)
			r = pcapw_close(&w);
		else
			pcapw_abort(&w);
		CU_ASSERT_EQUAL(r, -ENOSPC);
	}
}

static void test_format_words(void)
{
	enum pcapw_format f = PCAPW_PCAP;

	CU_ASSERT(pcapw_format_parse("pcapng", &f) == 0 && f == PCAPW_PCAPNG);
	CU_ASSERT(pcapw_format_parse("pcap", &f) == 0 && f == PCAPW_PCAP);
	CU_ASSERT_EQUAL(pcapw_format_parse("PCAP", &f), -1);
	CU_ASSERT_EQUAL(pcapw_format_parse("", &f), -1);
	CU_ASSERT_STRING_EQUAL(pcapw_ext(PCAPW_PCAPNG), "pcapng");
	CU_ASSERT_STRING_EQUAL(pcapw_ext(PCAPW_PCAP), "pcap");
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("pcapwrite", suite_init, suite_clean);
	if (!s)
		return 1;
	CU_add_test(s, "pcap: libpcap reads back stamps, lengths, pieces", test_pcap_roundtrip);
	CU_add_test(s, "pcapng: libpcap reads back the same", test_pcapng_roundtrip);
	CU_add_test(s, "pcapng: blocks, options, padding, a 64-bit stamp", test_pcapng_blocks);
	CU_add_test(s, "pcap: past 2^32 seconds is -EOVERFLOW", test_pcap_past_2106);
	CU_add_test(s, "a full disk: -ENOSPC", test_full_disk);
	CU_add_test(s, "format words", test_format_words);
	return unit_run();
}
