/* test_sched_rate.c - the kernel's rate arithmetic and tc's words and
 * printers, against values computed by hand and values the real kernel and
 * iproute2 6.1 gave (tc qdisc add ... tbf, then tc -d qdisc show). */
#include <CUnit/CUnit.h>
#include <string.h>

#include "sched_rate.h"
#include "unit.h"

static struct psched_ratecfg ratecfg(uint64_t bytes_ps, uint16_t overhead, uint16_t mpu,
				     uint8_t linklayer)
{
	struct tc_ratespec conf = {.rate = bytes_ps > UINT32_MAX ? UINT32_MAX : (uint32_t)bytes_ps,
				   .overhead = overhead,
				   .mpu = mpu,
				   .linklayer = linklayer};
	struct psched_ratecfg r;

	psched_ratecfg_precompute(&r, &conf, bytes_ps);
	return r;
}

/* 1mbit = 125000 B/s: 1e9 / 125000 = 8000 ns per byte, doubled until it
 * reaches 2^31: 8000 << 18 = 2097152000 is still below 2147483648, so
 * shift 19, mult 8000 << 19 = 4194304000 (exact: no rounding at all). */
static void test_precompute_exact_rate(void)
{
	struct psched_ratecfg r = ratecfg(125000, 0, 0, TC_LINKLAYER_ETHERNET);

	CU_ASSERT_EQUAL(r.shift, 19);
	CU_ASSERT_EQUAL(r.mult, 4194304000u);
	CU_ASSERT_EQUAL(psched_l2t_ns(&r, 1514), 12112000); /* 1514 * 8000 */
	CU_ASSERT_EQUAL(psched_l2t_ns(&r, 10240), 81920000);
	CU_ASSERT_EQUAL(psched_l2t_ns(&r, 0), 0);
}

/* 1.5mbit = 187500 B/s: 5333.33.. ns per byte; 5333.33 << 18 < 2^31, so
 * shift 19 and mult = floor(1e9 * 2^19 / 187500) = 2796202666 (down from
 * 2796202666.67); 1000 bytes: 2796202666000 >> 19 = 5333333.33.. -> 5333333. */
static void test_precompute_rounds_down(void)
{
	struct psched_ratecfg r = ratecfg(187500, 0, 0, TC_LINKLAYER_ETHERNET);

	CU_ASSERT_EQUAL(r.shift, 19);
	CU_ASSERT_EQUAL(r.mult, 2796202666u);
	CU_ASSERT_EQUAL(psched_l2t_ns(&r, 1000), 5333333);
	CU_ASSERT_EQUAL(psched_l2t_ns(&r, 1), 5333); /* 2796202666 >> 19 = 5333.33 */
}

/* 10gbit = 1.25e9 B/s: 0.8 ns per byte; 0.8 * 2^31 < 2^31, so shift 32,
 * mult = floor(0.8 * 2^32) = 3435973836; 1 MiB: 2^20 * 3435973836 >> 32 =
 * 3435973836 / 4096 = 838860.8 -> 838860. */
static void test_precompute_fast_rate(void)
{
	struct psched_ratecfg r = ratecfg(1250000000, 0, 0, TC_LINKLAYER_ETHERNET);

	CU_ASSERT_EQUAL(r.shift, 32);
	CU_ASSERT_EQUAL(r.mult, 3435973836u);
	CU_ASSERT_EQUAL(psched_l2t_ns(&r, 1048576), 838860);
}

/* A 64-bit rate of 2^62 B/s: the factor 1e9 << 34 reaches bit 63 before
 * mult reaches bit 31: mult = floor(1e9 * 2^34 / 2^62) = 3. */
static void test_precompute_factor_limit(void)
{
	struct psched_ratecfg r = ratecfg(1ull << 62, 0, 0, TC_LINKLAYER_ETHERNET);

	CU_ASSERT_EQUAL(r.rate_bytes_ps, 1ull << 62);
	CU_ASSERT_EQUAL(r.shift, 34);
	CU_ASSERT_EQUAL(r.mult, 3);
}

/* Rate 0: mult 1, shift 0 (the kernel never divides by it). */
static void test_precompute_zero(void)
{
	struct psched_ratecfg r = ratecfg(0, 0, 0, TC_LINKLAYER_ETHERNET);

	CU_ASSERT_EQUAL(r.mult, 1);
	CU_ASSERT_EQUAL(r.shift, 0);
	CU_ASSERT_EQUAL(psched_l2t_ns(&r, 1000), 1000);
}

/* The larger of the 32-bit rate and the 64-bit one; getrate saturates. */
static void test_rate64_and_getrate(void)
{
	struct tc_ratespec conf = {.rate = UINT32_MAX,
				   .overhead = 4,
				   .mpu = 64,
				   .cell_log = 3,
				   .linklayer = TC_LINKLAYER_ATM | 0xf0};
	struct psched_ratecfg r;
	struct tc_ratespec back;

	psched_ratecfg_precompute(&r, &conf, 5000000000ull);
	CU_ASSERT_EQUAL(r.rate_bytes_ps, 5000000000ull);
	CU_ASSERT_EQUAL(r.linklayer, TC_LINKLAYER_ATM);
	psched_ratecfg_getrate(&back, &r);
	CU_ASSERT_EQUAL(back.rate, UINT32_MAX);
	CU_ASSERT_EQUAL(back.overhead, 4);
	CU_ASSERT_EQUAL(back.mpu, 64);
	CU_ASSERT_EQUAL(back.cell_log, 0);
	psched_ratecfg_precompute(&r, &conf, 0);
	CU_ASSERT_EQUAL(r.rate_bytes_ps, UINT32_MAX);
}

/* At 8000 ns per byte: overhead is added, then mpu raises, then ATM cells. */
static void test_l2t_overhead_mpu_atm(void)
{
	struct psched_ratecfg r = ratecfg(125000, 10, 0, TC_LINKLAYER_ETHERNET);

	CU_ASSERT_EQUAL(psched_l2t_ns(&r, 100), 110 * 8000);
	r = ratecfg(125000, 0, 64, TC_LINKLAYER_ETHERNET);
	CU_ASSERT_EQUAL(psched_l2t_ns(&r, 40), 64 * 8000);
	CU_ASSERT_EQUAL(psched_l2t_ns(&r, 65), 65 * 8000);
	r = ratecfg(125000, 4, 60, TC_LINKLAYER_ETHERNET);
	CU_ASSERT_EQUAL(psched_l2t_ns(&r, 50), 60 * 8000); /* 54 < mpu 60 */
	/* 100 + 10 = 110 bytes: 3 cells of 48, 159 bytes on the wire */
	r = ratecfg(125000, 10, 0, TC_LINKLAYER_ATM);
	CU_ASSERT_EQUAL(psched_l2t_ns(&r, 100), 159 * 8000);
	CU_ASSERT_EQUAL(psched_l2t_ns(&r, 86), 106 * 8000); /* 96: exactly 2 cells */
	CU_ASSERT_EQUAL(psched_l2t_ns(&r, 87), 159 * 8000); /* 97: 3 */
	/* mpu before the cells: 20 + 10 = 30 -> 64 -> 2 cells */
	r = ratecfg(125000, 10, 64, TC_LINKLAYER_ATM);
	CU_ASSERT_EQUAL(psched_l2t_ns(&r, 20), 106 * 8000);
}

/* 15.625 ticks per microsecond, truncated at each step as tc does. */
static void test_ticks(void)
{
	CU_ASSERT_EQUAL(tc_core_time2tick(81920), 1280000);
	CU_ASSERT_EQUAL(tc_core_time2tick(3), 46); /* 46.875 */
	CU_ASSERT_EQUAL(tc_core_tick2time(1280000), 81920);
	CU_ASSERT_EQUAL(tc_core_tick2time(13107), 838); /* 838.848 */
	CU_ASSERT_EQUAL(PSCHED_TICKS2NS(1280000), 81920000);
	CU_ASSERT_EQUAL(PSCHED_NS2TICKS(838860), 13107);
	/* 10 KiB at 1mbit: 81920 us = 1280000 ticks */
	CU_ASSERT_EQUAL(tc_calc_xmittime(125000, 10240), 1280000);
	/* 1514 at 1.5mbit: 8074.67 us -> 8074 -> 126156.25 ticks -> 126156 */
	CU_ASSERT_EQUAL(tc_calc_xmittime(187500, 1514), 126156);
	/* 13107 ticks = 838 us at 10gbit: 1047500 bytes */
	CU_ASSERT_EQUAL(tc_calc_xmitsize(1250000000, 13107), 1047500);
	CU_ASSERT_EQUAL(tc_calc_xmitsize(125000, 1280000), 10240);
}

/* What tc -d qdisc show printed for tbf bursts the real kernel stored:
 * iproute2 sends the burst in bytes, the kernel keeps psched_l2t_ns of it
 * and dumps it in ticks, tc turns the ticks back into bytes. */
static unsigned int burst_shown(uint64_t rate, uint32_t burst, uint16_t overhead, uint8_t ll)
{
	struct psched_ratecfg r = ratecfg(rate, overhead, 0, ll);

	return tc_calc_xmitsize(rate, (unsigned int)PSCHED_NS2TICKS(psched_l2t_ns(&r, burst)));
}

static void test_burst_round_trip_as_kernel(void)
{
	char b[TC_SPRINT_BSIZE];

	/* rate 1mbit burst 10kb: "burst 10Kb" */
	CU_ASSERT_STRING_EQUAL(tc_sprint_size(burst_shown(125000, 10240, 0, 1), b), "10Kb");
	/* rate 12345678 burst 5000: 3240001 ns, 50625 ticks, 3240 us: "4999b" */
	CU_ASSERT_EQUAL(burst_shown(1543209, 5000, 0, 1), 4999);
	/* rate 10gbit burst 1mb: "1047500b" */
	CU_ASSERT_EQUAL(burst_shown(1250000000, 1048576, 0, 1), 1047500);
	/* rate 100kbps burst 10k overhead 24 linklayer atm: 214 cells, "11341b" */
	CU_ASSERT_EQUAL(burst_shown(100000, 10240, 24, TC_LINKLAYER_ATM), 11341);
	/* rate 1mbit burst 10k linklayer adsl: "11342b" */
	CU_ASSERT_EQUAL(burst_shown(125000, 10240, 0, TC_LINKLAYER_ATM), 11342);
	/* rate 1mbit burst 10kbit: 1280 bytes, "1280b" */
	CU_ASSERT_EQUAL(burst_shown(125000, 1280, 0, 1), 1280);
}

static void test_get_rate(void)
{
	uint64_t r;
	uint32_t r32;

	CU_ASSERT(!tc_get_rate64(&r, "1mbit") && r == 125000);
	CU_ASSERT(!tc_get_rate64(&r, "1MBIT") && r == 125000);
	CU_ASSERT(!tc_get_rate64(&r, "1.5mbit") && r == 187500);
	CU_ASSERT(!tc_get_rate64(&r, "100kbps") && r == 100000); /* bytes! */
	CU_ASSERT(!tc_get_rate64(&r, "1kibit") && r == 128);
	CU_ASSERT(!tc_get_rate64(&r, "1mibps") && r == 1048576);
	CU_ASSERT(!tc_get_rate64(&r, "12345678") && r == 1543209); /* bits, truncated */
	CU_ASSERT(!tc_get_rate64(&r, "7bit") && r == 0);
	CU_ASSERT(!tc_get_rate64(&r, "10gbit") && r == 1250000000);
	CU_ASSERT(!tc_get_rate64(&r, "40gbit") && r == 5000000000ull);
	CU_ASSERT(!tc_get_rate64(&r, "1e3kbit") && r == 125000);
	/* tc takes a negative rate and wraps it */
	CU_ASSERT(!tc_get_rate64(&r, "-1mbit") && r == 0 - 125000ull);
	CU_ASSERT(tc_get_rate64(&r, "1xbit"));
	CU_ASSERT(tc_get_rate64(&r, "mbit"));
	CU_ASSERT(tc_get_rate64(&r, ""));
	CU_ASSERT(tc_get_rate64(&r, "1 mbit"));
	/* get_rate refuses what does not fit 32 bits, and negatives */
	CU_ASSERT(!tc_get_rate32(&r32, "1mbit") && r32 == 125000);
	CU_ASSERT(tc_get_rate32(&r32, "40gbit"));
	CU_ASSERT(tc_get_rate32(&r32, "-1mbit"));
}

static void test_get_size(void)
{
	uint32_t s;
	int cell = -1;

	CU_ASSERT(!tc_get_size(&s, "1514") && s == 1514);
	CU_ASSERT(!tc_get_size(&s, "10kb") && s == 10240);
	CU_ASSERT(!tc_get_size(&s, "10K") && s == 10240);
	CU_ASSERT(!tc_get_size(&s, "1.5k") && s == 1536);
	CU_ASSERT(!tc_get_size(&s, "1m") && s == 1048576);
	CU_ASSERT(!tc_get_size(&s, "10kbit") && s == 1280);
	CU_ASSERT(!tc_get_size(&s, "2mbit") && s == 262144);
	CU_ASSERT(!tc_get_size(&s, "1gbit") && s == 134217728);
	CU_ASSERT(!tc_get_size(&s, "3.5") && s == 3);
	CU_ASSERT(!tc_get_size(&s, "100b") && s == 100);
	CU_ASSERT(tc_get_size(&s, "10bit")); /* tc 6.1 has no "bit" size */
	CU_ASSERT(tc_get_size(&s, "4g"));    /* 2^32 */
	CU_ASSERT(tc_get_size(&s, "-1"));
	CU_ASSERT(tc_get_size(&s, "kb"));
	CU_ASSERT(!tc_get_size_and_cell(&s, &cell, "10k/64") && s == 10240 && cell == 6);
	CU_ASSERT(!tc_get_size_and_cell(&s, &cell, "1514/1") && s == 1514 && cell == 0);
	CU_ASSERT(!tc_get_size_and_cell(&s, &cell, "2k/0x10") && s == 2048 && cell == 4);
	cell = -1;
	CU_ASSERT(!tc_get_size_and_cell(&s, &cell, "3000") && s == 3000 && cell == -1);
	CU_ASSERT(tc_get_size_and_cell(&s, &cell, "10k/3"));
	CU_ASSERT(tc_get_size_and_cell(&s, &cell, "10k/"));
	CU_ASSERT(tc_get_size_and_cell(&s, &cell, "10x/8"));
}

static void test_get_time_and_linklayer(void)
{
	uint32_t t;
	unsigned int ll;

	CU_ASSERT(!tc_get_time(&t, "50ms") && t == 50000);
	CU_ASSERT(!tc_get_time(&t, "50000") && t == 50000); /* bare: microseconds */
	CU_ASSERT(!tc_get_time(&t, "1s") && t == 1000000);
	CU_ASSERT(!tc_get_time(&t, "1.5msec") && t == 1500);
	CU_ASSERT(!tc_get_time(&t, "10usecs") && t == 10);
	CU_ASSERT(tc_get_time(&t, "5ns"));
	CU_ASSERT(tc_get_time(&t, "ms"));
	CU_ASSERT(!tc_get_linklayer(&ll, "atm") && ll == TC_LINKLAYER_ATM);
	CU_ASSERT(!tc_get_linklayer(&ll, "adsl") && ll == TC_LINKLAYER_ATM);
	CU_ASSERT(!tc_get_linklayer(&ll, "a") && ll == TC_LINKLAYER_ATM);
	CU_ASSERT(!tc_get_linklayer(&ll, "eth") && ll == TC_LINKLAYER_ETHERNET);
	CU_ASSERT(tc_get_linklayer(&ll, "foo"));
	CU_ASSERT(tc_get_linklayer(&ll, ""));
	CU_ASSERT_STRING_EQUAL(tc_sprint_linklayer(TC_LINKLAYER_ATM), "atm");
	CU_ASSERT_STRING_EQUAL(tc_sprint_linklayer(TC_LINKLAYER_ETHERNET), "ethernet");
}

/* Each checked against tc 6.1's output on this machine. */
static void test_printers(void)
{
	char b[TC_SPRINT_BSIZE];

	CU_ASSERT_STRING_EQUAL(tc_sprint_rate(125000, b), "1Mbit");
	CU_ASSERT_STRING_EQUAL(tc_sprint_rate(187500, b), "1500Kbit");
	CU_ASSERT_STRING_EQUAL(tc_sprint_rate(100000, b), "800Kbit");
	CU_ASSERT_STRING_EQUAL(tc_sprint_rate(1543209, b), "12345Kbit");
	CU_ASSERT_STRING_EQUAL(tc_sprint_rate(1250000000, b), "10Gbit");
	CU_ASSERT_STRING_EQUAL(tc_sprint_rate(100, b), "800bit");
	CU_ASSERT_STRING_EQUAL(tc_sprint_rate(125, b), "1Kbit");
	CU_ASSERT_STRING_EQUAL(tc_sprint_rate(0 - 125000ull, b), "18446744Tbit");
	CU_ASSERT_STRING_EQUAL(tc_sprint_size(10240, b), "10Kb");
	CU_ASSERT_STRING_EQUAL(tc_sprint_size(10230, b), "10Kb"); /* within 16 bytes */
	CU_ASSERT_STRING_EQUAL(tc_sprint_size(10250, b), "10Kb");
	CU_ASSERT_STRING_EQUAL(tc_sprint_size(1514, b), "1514b");
	CU_ASSERT_STRING_EQUAL(tc_sprint_size(3000, b), "3000b");
	CU_ASSERT_STRING_EQUAL(tc_sprint_size(1047500, b), "1047500b");
	CU_ASSERT_STRING_EQUAL(tc_sprint_size(2097152, b), "2Mb");
	CU_ASSERT_STRING_EQUAL(tc_sprint_size(1536, b), "1536b");
	CU_ASSERT_STRING_EQUAL(tc_sprint_size(0, b), "0b");
	CU_ASSERT_STRING_EQUAL(tc_sprint_time(50000, b), "50ms");
	CU_ASSERT_STRING_EQUAL(tc_sprint_time(71700, b), "71.7ms");
	CU_ASSERT_STRING_EQUAL(tc_sprint_time(910581, b), "911ms");
	CU_ASSERT_STRING_EQUAL(tc_sprint_time(1000000, b), "1s");
	CU_ASSERT_STRING_EQUAL(tc_sprint_time(1234567, b), "1.23s");
	CU_ASSERT_STRING_EQUAL(tc_sprint_time(999, b), "999us");
	CU_ASSERT_STRING_EQUAL(tc_sprint_time(0, b), "0us");
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("sched_rate", NULL, NULL);
	CU_add_test(s, "precompute: an exact rate", test_precompute_exact_rate);
	CU_add_test(s, "precompute: mult rounds down", test_precompute_rounds_down);
	CU_add_test(s, "precompute: a rate above 1 byte/ns", test_precompute_fast_rate);
	CU_add_test(s, "precompute: the factor's bit 63", test_precompute_factor_limit);
	CU_add_test(s, "precompute: rate 0", test_precompute_zero);
	CU_add_test(s, "rate64 and getrate", test_rate64_and_getrate);
	CU_add_test(s, "l2t: overhead, mpu, ATM cells", test_l2t_overhead_mpu_atm);
	CU_add_test(s, "tc's ticks", test_ticks);
	CU_add_test(s, "bursts read back as the kernel dumps them",
		    test_burst_round_trip_as_kernel);
	CU_add_test(s, "get_rate", test_get_rate);
	CU_add_test(s, "get_size and /cell", test_get_size);
	CU_add_test(s, "get_time and linklayer", test_get_time_and_linklayer);
	CU_add_test(s, "sprint_rate, sprint_size, sprint_time", test_printers);
	return unit_run();
}
