/* sched_rate.c - the kernel's rate arithmetic (sch_generic.c
 * psched_ratecfg_precompute) and iproute2 6.1's conversions, words and
 * printers for rates, sizes and times, to the last truncation. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sched_rate.h"

void psched_ratecfg_precompute(struct psched_ratecfg *r, const struct tc_ratespec *conf,
			       uint64_t rate64)
{
	memset(r, 0, sizeof(*r));
	r->overhead = conf->overhead;
	r->mpu = conf->mpu;
	r->rate_bytes_ps = conf->rate > rate64 ? conf->rate : rate64;
	r->linklayer = conf->linklayer & TC_LINKLAYER_MASK;
	r->mult = 1;
	if (!r->rate_bytes_ps)
		return;
	/* the largest mult that keeps len * mult from overflowing for any
	 * frame: stop once it has reached bit 31, or the factor bit 63 */
	for (uint64_t factor = NSEC_PER_SEC;; factor <<= 1, r->shift++) {
		r->mult = (uint32_t)(factor / r->rate_bytes_ps);
		if ((r->mult & (1u << 31)) || (factor & (1ull << 63)))
			break;
	}
}

void psched_ratecfg_getrate(struct tc_ratespec *res, const struct psched_ratecfg *r)
{
	memset(res, 0, sizeof(*res));
	res->rate = r->rate_bytes_ps > UINT32_MAX ? UINT32_MAX : (uint32_t)r->rate_bytes_ps;
	res->overhead = r->overhead;
	res->mpu = r->mpu;
	res->linklayer = r->linklayer & TC_LINKLAYER_MASK;
}

/* ---- iproute2's arithmetic in doubles ----
 *
 * tc converts doubles to unsigned int and __u64 by plain assignment. Out of
 * range that is undefined in C; iproute2 as built for x86-64 truncates
 * through a signed 64-bit conversion (cvttsd2si), which gives these. */
static uint64_t tc_d2u64(double x)
{
	if (x != x || x >= 18446744073709551616.0)
		return 0;
	if (x >= 9223372036854775808.0)
		return (uint64_t)(x - 9223372036854775808.0) | (1ull << 63);
	if (x >= -9223372036854775808.0)
		return (uint64_t)(int64_t)x;
	return 1ull << 63;
}

static unsigned int tc_d2u(double x)
{
	if (x != x || x >= 9223372036854775808.0 || x < -9223372036854775808.0)
		return 0; /* 0x8000000000000000's low half */
	return (unsigned int)(uint64_t)(int64_t)x;
}

/* /proc/net/psched of current kernels reads "000003e8 00000040 000f4240":
 * 1000 / 64 ticks per microsecond, a clock factor of 1 */
static const double tick_in_usec = 1000.0 / 64.0;

unsigned int tc_core_time2tick(unsigned int usec)
{
	return tc_d2u(usec * tick_in_usec);
}

unsigned int tc_core_tick2time(unsigned int ticks)
{
	return tc_d2u(ticks / tick_in_usec);
}

unsigned int tc_calc_xmittime(uint64_t rate, unsigned int size)
{
	return tc_core_time2tick(tc_d2u(TIME_UNITS_PER_SEC * ((double)size / (double)rate)));
}

unsigned int tc_calc_xmitsize(uint64_t rate, unsigned int ticks)
{
	return tc_d2u(((double)rate * tc_core_tick2time(ticks)) / TIME_UNITS_PER_SEC);
}

/* ---- words ---- */

/* iproute2's matches(): word is a non-empty prefix of full */
static int tc_prefix(const char *word, const char *full)
{
	if (!*word)
		return 0;
	while (*full && *word == *full) {
		word++;
		full++;
	}
	return !*word;
}

int tc_get_u32(uint32_t *out, const char *s, int base)
{
	unsigned long long v;
	char *end;

	if (!*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno || *end || v > 0xffffffffull)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

static const struct rate_unit {
	const char *name;
	double scale; /* bits */
} rate_units[] = {
    {"bit", 1.},
    {"kibit", 1024.},
    {"kbit", 1000.},
    {"mibit", 1024. * 1024.},
    {"mbit", 1000000.},
    {"gibit", 1024. * 1024. * 1024.},
    {"gbit", 1000000000.},
    {"tibit", 1024. * 1024. * 1024. * 1024.},
    {"tbit", 1000000000000.},
    {"bps", 8.},
    {"kibps", 8. * 1024.},
    {"kbps", 8000.},
    {"mibps", 8. * 1024. * 1024.},
    {"mbps", 8000000.},
    {"gibps", 8. * 1024. * 1024. * 1024.},
    {"gbps", 8000000000.},
    {"tibps", 8. * 1024. * 1024. * 1024. * 1024.},
    {"tbps", 8000000000000.},
};

/* the number and its unit, in bytes per second, before the conversion */
static int rate_bytes(double *out, const char *s)
{
	char *p;
	double bps = strtod(s, &p);

	if (p == s)
		return -EINVAL;
	if (*p) {
		size_t i;

		for (i = 0; i < sizeof(rate_units) / sizeof(rate_units[0]); i++)
			if (!strcasecmp(rate_units[i].name, p))
				break;
		if (i == sizeof(rate_units) / sizeof(rate_units[0]))
			return -EINVAL;
		bps *= rate_units[i].scale;
	}
	*out = bps / 8;
	return 0;
}

int tc_get_rate64(uint64_t *bytes_ps, const char *s)
{
	double b;

	if (rate_bytes(&b, s))
		return -EINVAL;
	*bytes_ps = tc_d2u64(b);
	return 0;
}

int tc_get_rate32(uint32_t *bytes_ps, const char *s)
{
	double b;

	if (rate_bytes(&b, s))
		return -EINVAL;
	*bytes_ps = tc_d2u(b);
	return *bytes_ps != floor(b) ? -EINVAL : 0; /* tc's overflow test */
}

int tc_get_size(uint32_t *out, const char *s)
{
	char *p;
	double sz = strtod(s, &p);
	uint32_t v;

	if (p == s)
		return -EINVAL;
	if (*p) {
		if (!strcasecmp(p, "kb") || !strcasecmp(p, "k"))
			sz *= 1024;
		else if (!strcasecmp(p, "gb") || !strcasecmp(p, "g"))
			sz *= 1024 * 1024 * 1024;
		else if (!strcasecmp(p, "gbit"))
			sz *= 1024 * 1024 * 1024 / 8;
		else if (!strcasecmp(p, "mb") || !strcasecmp(p, "m"))
			sz *= 1024 * 1024;
		else if (!strcasecmp(p, "mbit"))
			sz *= 1024 * 1024 / 8;
		else if (!strcasecmp(p, "kbit"))
			sz *= 1024 / 8;
		else if (strcasecmp(p, "b"))
			return -EINVAL;
	}
	v = tc_d2u(sz);
	if (v != floor(sz))
		return -EINVAL;
	*out = v;
	return 0;
}

int tc_get_size_and_cell(uint32_t *size, int *cell_log, const char *s)
{
	const char *slash = strchr(s, '/');
	char word[128];
	long cell;
	char *end;

	if (!slash)
		return tc_get_size(size, s);
	if ((size_t)(slash - s) >= sizeof(word))
		return -EINVAL;
	memcpy(word, s, (size_t)(slash - s));
	word[slash - s] = 0;
	if (tc_get_size(size, word))
		return -EINVAL;
	/* get_integer: strtol base 0, the whole word, an int */
	errno = 0;
	cell = strtol(slash + 1, &end, 0);
	if (!slash[1] || *end || errno || cell < -2147483647L - 1 || cell > 2147483647L)
		return -EINVAL;
	for (int i = 0; i < 32; i++)
		if ((int)(1u << i) == (int)cell) {
			*cell_log = i;
			return 0;
		}
	return -EINVAL;
}

int tc_get_time(uint32_t *usec, const char *s)
{
	char *p;
	double t = strtod(s, &p);

	if (p == s)
		return -EINVAL;
	if (*p) {
		if (!strcasecmp(p, "s") || !strcasecmp(p, "sec") || !strcasecmp(p, "secs"))
			t *= TIME_UNITS_PER_SEC;
		else if (!strcasecmp(p, "ms") || !strcasecmp(p, "msec") || !strcasecmp(p, "msecs"))
			t *= TIME_UNITS_PER_SEC / 1000;
		else if (!strcasecmp(p, "us") || !strcasecmp(p, "usec") || !strcasecmp(p, "usecs"))
			t *= TIME_UNITS_PER_SEC / 1000000;
		else
			return -EINVAL;
	}
	*usec = tc_d2u(t);
	return 0;
}

int tc_get_linklayer(unsigned int *ll, const char *s)
{
	if (tc_prefix(s, "ethernet"))
		*ll = TC_LINKLAYER_ETHERNET;
	else if (tc_prefix(s, "atm") || tc_prefix(s, "adsl"))
		*ll = TC_LINKLAYER_ATM;
	else
		return -EINVAL;
	return 0;
}

/* ---- printers ---- */

char *tc_sprint_rate(uint64_t bytes_ps, char *buf)
{
	static const char *const units[] = {"", "K", "M", "G", "T"};
	uint64_t rate = bytes_ps << 3; /* wraps as tc's does */
	size_t i;

	/* divide by 1000 while the rate stays whole, or is a million or more */
	for (i = 0; i < sizeof(units) / sizeof(units[0]) - 1; i++) {
		if (rate < 1000)
			break;
		if (rate % 1000 && rate < 1000 * 1000)
			break;
		rate /= 1000;
	}
	snprintf(buf, TC_SPRINT_BSIZE, "%.0f%sbit", (double)rate, units[i]);
	return buf;
}

char *tc_sprint_size(uint32_t sz, char *buf)
{
	const double kilo = 1024, mega = kilo * kilo;
	double tmp = sz;

	/* a multiple of a unit within 1 KiB (MiB) or 16 bytes (KiB) */
	if (sz >= mega && fabs(mega * rint(tmp / mega) - sz) < 1024)
		snprintf(buf, TC_SPRINT_BSIZE, "%gMb", rint(tmp / mega));
	else if (sz >= kilo && fabs(kilo * rint(tmp / kilo) - sz) < 16)
		snprintf(buf, TC_SPRINT_BSIZE, "%gKb", rint(tmp / kilo));
	else
		snprintf(buf, TC_SPRINT_BSIZE, "%ub", sz);
	return buf;
}

char *tc_sprint_time(uint32_t usec, char *buf)
{
	double tmp = usec;

	if (tmp >= TIME_UNITS_PER_SEC)
		snprintf(buf, TC_SPRINT_BSIZE, "%.3gs", tmp / TIME_UNITS_PER_SEC);
	else if (tmp >= TIME_UNITS_PER_SEC / 1000)
		snprintf(buf, TC_SPRINT_BSIZE, "%.3gms", tmp / (TIME_UNITS_PER_SEC / 1000));
	else
		snprintf(buf, TC_SPRINT_BSIZE, "%uus", usec);
	return buf;
}

const char *tc_sprint_linklayer(unsigned int ll)
{
	switch (ll) {
	case TC_LINKLAYER_UNAWARE: return "unspec";
	case TC_LINKLAYER_ETHERNET: return "ethernet";
	case TC_LINKLAYER_ATM: return "atm";
	default: return "unknown";
	}
}

/* ---- tcsim's own words ---- */

void tc_print_size(FILE *out, uint64_t bytes)
{
	char b[TC_SPRINT_BSIZE];

	fputs(tc_sprint_size((uint32_t)bytes, b), out);
}

/* A number followed by one of the units of the table (case-insensitive),
 * scaled and rounded to an integer that fits 64 bits. */
struct unit {
	const char *unit;
	double mult;
};

static int get_scaled(uint64_t *out, const char *s, const struct unit *units, size_t n)
{
	char *end;
	double v;

	if (!*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!strcasecmp(end, units[i].unit)) {
			v *= units[i].mult;
			if (v > 1.8e19)
				return -EINVAL;
			*out = (uint64_t)(v + 0.5);
			return 0;
		}
	return -EINVAL;
}

int tc_get_rate(uint64_t *bps, const char *s)
{
	static const struct unit units[] = {
	    {"", 1},
	    {"bit", 1},
	    {"kbit", 1e3},
	    {"mbit", 1e6},
	    {"gbit", 1e9},
	    {"tbit", 1e12},
	    {"kibit", 1024.0},
	    {"mibit", 1048576.0},
	    {"gibit", 1073741824.0},
	    {"tibit", 1099511627776.0},
	    {"bps", 8},
	    {"kbps", 8e3},
	    {"mbps", 8e6},
	    {"gbps", 8e9},
	    {"tbps", 8e12},
	    {"kibps", 8 * 1024.0},
	    {"mibps", 8 * 1048576.0},
	    {"gibps", 8 * 1073741824.0},
	};

	return get_scaled(bps, s, units, sizeof(units) / sizeof(units[0]));
}

int tc_get_time_ns(uint64_t *ns, const char *s)
{
	static const struct unit units[] = {
	    {"", 1e9},	    {"s", 1e9},	 {"sec", 1e9},	{"secs", 1e9},	{"ms", 1e6}, {"msec", 1e6},
	    {"msecs", 1e6}, {"us", 1e3}, {"usec", 1e3}, {"usecs", 1e3}, {"ns", 1},   {"nsec", 1},
	};

	return get_scaled(ns, s, units, sizeof(units) / sizeof(units[0]));
}

/* ---- one call per field, text or JSON (tcprint.h) ---- */

void pr_rate(struct tcprint *p, enum pr_mode m, const char *key, const char *fmt, uint64_t bytes_ps)
{
	char b[TC_SPRINT_BSIZE];

	if (p->json)
		pr_u64(p, m, key, NULL, bytes_ps);
	else
		pr_string(p, m, key, fmt, tc_sprint_rate(bytes_ps, b));
}

void pr_size(struct tcprint *p, enum pr_mode m, const char *key, const char *fmt, uint32_t bytes)
{
	char b[TC_SPRINT_BSIZE];

	if (p->json)
		pr_uint(p, m, key, NULL, bytes);
	else
		pr_string(p, m, key, fmt, tc_sprint_size(bytes, b));
}

void pr_time(struct tcprint *p, enum pr_mode m, const char *key, const char *fmt, uint32_t usec)
{
	char b[TC_SPRINT_BSIZE];

	if (p->json)
		pr_uint(p, m, key, NULL, usec);
	else
		pr_string(p, m, key, fmt, tc_sprint_time(usec, b));
}
