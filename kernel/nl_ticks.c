/* nl_ticks.c - htb's and tbf's buckets for `tcsim import`: the ticks the
 * kernel keeps, and the byte count a `burst` word needs to give them back.
 *
 * The kernel stores a bucket as time and dumps it in ticks of 64 ns
 * (PSCHED_SHIFT 6; /proc/net/psched tells tc 1000 ns per us over 64 ns
 * per tick). tc's words are bytes, so each import has to find a byte count
 * whose ticks are the dumped ones, and the two kinds get there differently:
 *  - htb: tc converts (tc_calc_xmittime) and sends ticks. Before iproute2
 *    6.15 it truncated twice, to whole microseconds and then to ticks; 6.15
 *    rounds up once. 15kb at 100mbit is 19187 ticks for 6.1 and 19200 for
 *    6.15, so no word is right for both; a byte count both agree on is
 *    taken when there is one, else the older arithmetic's (this machine's
 *    iproute2 6.1), else the newer's.
 *  - tbf: tc also sends the bytes (TCA_TBF_BURST, PBURST) and the kernel
 *    converts them itself (psched_l2t_ns: overhead and mpu added, ATM cells
 *    counted, a reciprocal multiply), the same with every iproute2.
 * At fast rates, and with ATM cells, several byte counts give the same
 * ticks (8 at 1gbit, 48 with ATM). For htb, whose class keeps only the
 * ticks, the roundest is written (a multiple of 1 MiB, 1 KiB, 1000, 100,
 * 10). A tbf also keeps the bytes themselves, undumped: max_size, the
 * smaller of burst and mtu, above which it drops a packet. The largest
 * byte count is written for it: the rebuilt tbf then passes every packet
 * the original passed (and those up to a tick or a cell larger), where a
 * rounder, smaller one could drop them: `mtu 1514` with ATM is 1489..1536
 * bytes, of which 1500 would drop full Ethernet frames. */
#include <math.h>
#include <stdio.h>

#include "nl_import.h"
#include "nl_int.h"

#define TICK_IN_USEC (1000.0 / 64)
/* the largest byte count tried (3.5 GiB): far beyond any bucket, and the
 * kernel's 32-bit arithmetic (len + overhead, in ATM cells of 53 bytes per
 * 48) does not wrap below it */
#define BYTES_MAX 0xe0000000u

uint32_t nl_tc_ticks_trunc(uint64_t rate, uint32_t bytes)
{
	double us, t;

	if (!rate)
		return UINT32_MAX;
	us = 1000000.0 * ((double)bytes / (double)rate);
	if (us >= 4294967296.0)
		return UINT32_MAX; /* beyond tc's unsigned int */
	t = (double)(uint32_t)us * TICK_IN_USEC;
	return t >= 4294967296.0 ? UINT32_MAX : (uint32_t)t;
}

uint32_t nl_tc_ticks_ceil(uint64_t rate, uint32_t bytes)
{
	double t;

	if (!rate)
		return UINT32_MAX;
	t = ceil(1000000.0 * ((double)bytes / (double)rate) * TICK_IN_USEC);
	return t >= 4294967295.0 ? UINT32_MAX : (uint32_t)t;
}

/* psched_ratecfg_precompute__: ns = (len * mult) >> shift, mult as large
 * as fits in 32 bits */
static void psched_mult(uint64_t rate, uint32_t *mult, unsigned *shift)
{
	uint64_t factor = 1000000000;

	*mult = 1;
	*shift = 0;
	if (!rate)
		return;
	for (;;) {
		*mult = (uint32_t)(factor / rate);
		if ((*mult & (1u << 31)) || (factor & (1ull << 63)))
			break;
		factor <<= 1;
		(*shift)++;
	}
}

uint32_t nl_kernel_ticks(const struct nli_rate *r, uint32_t bytes)
{
	uint32_t mult, len = bytes + r->overhead;
	unsigned shift;
	uint64_t ns;

	psched_mult(r->bps, &mult, &shift);
	if (len < r->mpu)
		len = r->mpu;
	if (r->linklayer == NLI_LINKLAYER_ATM)
		len = (len + 47) / 48 * 53; /* whole 53-byte cells of 48 bytes each */
	ns = ((uint64_t)len * mult) >> shift;
	/* PSCHED_NS2TICKS into tc_tbf_qopt's u32; past 2^32 ticks (275 s) the
	 * kernel's dump wraps, here it saturates so that the search below
	 * sees a function that grows */
	ns >>= 6;
	return ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
}

struct ticks_fn {
	uint32_t (*f)(const struct ticks_fn *fn, uint32_t bytes);
	uint64_t rate;
	const struct nli_rate *r;
};

static uint32_t f_trunc(const struct ticks_fn *fn, uint32_t b)
{
	return nl_tc_ticks_trunc(fn->rate, b);
}

static uint32_t f_ceil(const struct ticks_fn *fn, uint32_t b)
{
	return nl_tc_ticks_ceil(fn->rate, b);
}

static uint32_t f_kernel(const struct ticks_fn *fn, uint32_t b)
{
	return nl_kernel_ticks(fn->r, b);
}

/* The first byte count in 1..BYTES_MAX whose ticks reach t (BYTES_MAX + 1
 * for none); every f here grows with the bytes. */
static uint64_t first_reaching(const struct ticks_fn *fn, uint32_t t)
{
	uint64_t lo = 1, hi = (uint64_t)BYTES_MAX + 1;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (fn->f(fn, (uint32_t)mid) >= t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* The byte counts [lo, hi] whose ticks are t; 0 when there are none. */
static int exact_range(const struct ticks_fn *fn, uint32_t t, uint64_t *lo, uint64_t *hi)
{
	*lo = first_reaching(fn, t);
	if (*lo > BYTES_MAX || fn->f(fn, (uint32_t)*lo) != t)
		return 0;
	*hi = t == UINT32_MAX ? BYTES_MAX : first_reaching(fn, t + 1) - 1;
	return 1;
}

static uint32_t roundest(uint64_t lo, uint64_t hi)
{
	static const uint64_t steps[] = {1048576, 1024, 1000, 100, 10};

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		uint64_t c = (lo + steps[i] - 1) / steps[i] * steps[i];

		if (c <= hi)
			return (uint32_t)c;
	}
	return (uint32_t)lo;
}

/* No byte count gives t: the one whose ticks come nearest. */
static uint32_t nearest(const struct ticks_fn *fn, uint32_t t)
{
	uint64_t above = first_reaching(fn, t);
	uint32_t a, b;

	if (above > BYTES_MAX)
		return BYTES_MAX;
	if (above == 1)
		return 1;
	a = fn->f(fn, (uint32_t)above) - t;
	b = t - fn->f(fn, (uint32_t)above - 1);
	return b <= a ? (uint32_t)above - 1 : (uint32_t)above;
}

int nl_htb_burst(uint64_t rate, uint32_t ticks, uint32_t *bytes)
{
	struct ticks_fn old = {f_trunc, rate, NULL}, new = {f_ceil, rate, NULL};
	uint64_t lo1, hi1, lo2, hi2;
	int e1 = exact_range(&old, ticks, &lo1, &hi1), e2 = exact_range(&new, ticks, &lo2, &hi2);

	if (e1 && e2 && lo1 <= hi2 && lo2 <= hi1)
		*bytes = roundest(lo1 > lo2 ? lo1 : lo2, hi1 < hi2 ? hi1 : hi2);
	else if (e1)
		*bytes = roundest(lo1, hi1);
	else if (e2)
		*bytes = roundest(lo2, hi2);
	else
		*bytes = nearest(&old, ticks);
	return e1 || e2;
}

int nl_tbf_burst(const struct nli_rate *r, uint32_t ticks, uint32_t *bytes)
{
	struct ticks_fn k = {f_kernel, 0, r};
	uint64_t lo, hi;

	if (exact_range(&k, ticks, &lo, &hi)) {
		*bytes = (uint32_t)hi;
		return 1;
	}
	*bytes = nearest(&k, ticks);
	return 0;
}

const char *nl_size_word(char *buf, size_t n, uint32_t bytes)
{
	if (bytes && bytes % 1048576 == 0)
		snprintf(buf, n, "%umb", bytes / 1048576);
	else if (bytes && bytes % 1024 == 0)
		snprintf(buf, n, "%ukb", bytes / 1024);
	else
		snprintf(buf, n, "%u", bytes);
	return buf;
}

/* In bits, with the largest unit that keeps the number whole: tc reads
 * NUMBER * unit / 8, exact for the multiple of 8 that bits are. */
const char *nl_rate_word(char *buf, size_t n, uint64_t bps)
{
	static const struct {
		const char *unit;
		uint64_t scale;
	} units[] = {
	    {"tbit", 1000000000000ull}, {"gbit", 1000000000}, {"mbit", 1000000}, {"kbit", 1000}};
	uint64_t bits = bps * 8;

	if (bps > UINT64_MAX / 8 || bits > (1ull << 53)) {
		/* beyond a double's exact integers: bytes, as tc's "bps" reads them */
		snprintf(buf, n, "%llubps", (unsigned long long)bps);
		return buf;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (bits && bits % units[i].scale == 0) {
			snprintf(buf, n, "%llu%s", (unsigned long long)(bits / units[i].scale),
				 units[i].unit);
			return buf;
		}
	snprintf(buf, n, "%llubit", (unsigned long long)bits);
	return buf;
}
