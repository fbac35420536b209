/* sched_rate.h - rates, sizes and times as the kernel computes them
 * (psched_ratecfg, psched_l2t_ns) and as iproute2's tc reads and prints them
 * (tc_core.c's ticks, utils_math.c's words, the sprint_* printers). */
#ifndef TCSIM_SCHED_RATE_H
#define TCSIM_SCHED_RATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* the uapi's tc_ratespec (what tc sends for a rate: 32-bit bytes/s, a
 * larger one in a separate 64-bit attribute) and TC_LINKLAYER_* */
#include <linux/pkt_sched.h>

#include "tcprint.h"

#define NSEC_PER_SEC 1000000000ull

/* The kernel's psched clock: one tick is 64 ns (PSCHED_SHIFT 6); tc's
 * rate tables and tbf's buffer/mtu travel in ticks. */
#define PSCHED_SHIFT 6
#define PSCHED_TICKS2NS(x) ((uint64_t)(x) << PSCHED_SHIFT)
#define PSCHED_NS2TICKS(x) ((uint64_t)(x) >> PSCHED_SHIFT)

/* tc's time unit is the microsecond (TIME_UNITS_PER_SEC) */
#define TIME_UNITS_PER_SEC 1000000u

/* The kernel's precomputed rate: time = (len * mult) >> shift. */
struct psched_ratecfg {
	uint64_t rate_bytes_ps;
	uint32_t mult;
	uint16_t overhead;
	uint16_t mpu;
	uint8_t linklayer;
	uint8_t shift;
};

/* psched_ratecfg_precompute: rate = max(conf->rate, rate64); mult =
 * floor((1e9 << shift) / rate) for the first shift that brings it to 2^31
 * (or the factor to 2^63): the most precise that cannot overflow. */
void psched_ratecfg_precompute(struct psched_ratecfg *r, const struct tc_ratespec *conf,
			       uint64_t rate64);
/* psched_ratecfg_getrate: what a dump reports (rate saturated at 32 bits,
 * cell_log and cell_align zero). */
void psched_ratecfg_getrate(struct tc_ratespec *res, const struct psched_ratecfg *r);

/* psched_l2t_ns: ns to send len bytes (overhead added, then raised to mpu,
 * then whole 53-byte ATM cells per 48 bytes). len is an unsigned int in the
 * kernel: the sum wraps as it does there. */
static inline uint64_t psched_l2t_ns(const struct psched_ratecfg *r, unsigned int len)
{
	len += r->overhead;
	if (len < r->mpu)
		len = r->mpu;
	if (r->linklayer == TC_LINKLAYER_ATM)
		return ((uint64_t)((len + 47) / 48 * 53) * r->mult) >> r->shift;
	return ((uint64_t)len * r->mult) >> r->shift;
}

/* ---- iproute2's tc_core.c with /proc/net/psched of current kernels
 * (1000 64 1000000: 15.625 ticks per microsecond, clock factor 1) ---- */
unsigned int tc_core_time2tick(unsigned int usec);
unsigned int tc_core_tick2time(unsigned int ticks);
/* ticks to send size bytes at rate bytes/s; size bytes sent in ticks */
unsigned int tc_calc_xmittime(uint64_t rate, unsigned int size);
unsigned int tc_calc_xmitsize(uint64_t rate, unsigned int ticks);

/* ---- tc's words (iproute2 6.1) ---- */

/* get_u32: a whole number in base (0: C's prefixes), no sign. */
int tc_get_u32(uint32_t *out, const char *s, int base);
/* get_rate64 / get_rate: a number with bit, kbit, mbit, gbit, tbit (1000s),
 * kibit .. tibit (1024s), or Bps, KBps .. TBps, KiBps .. TiBps in BYTES (so
 * "kbps" is kilobytes); case-insensitive; bare = bits. Result in bytes/s,
 * truncated. get_rate also refuses what does not fit 32 bits. */
int tc_get_rate64(uint64_t *bytes_ps, const char *s);
int tc_get_rate32(uint32_t *bytes_ps, const char *s);
/* get_size: bytes, b, k/kb, m/mb, g/gb (1024s), kbit/mbit/gbit (/8);
 * truncated; refuses what does not fit 32 bits. */
int tc_get_size(uint32_t *out, const char *s);
/* get_size_and_cell: SIZE[/CELL], CELL a power of two; *cell_log left
 * alone without one. The word is not modified. */
int tc_get_size_and_cell(uint32_t *size, int *cell_log, const char *s);
/* get_time: microseconds; s/sec/secs, ms/msec/msecs, us/usec/usecs;
 * bare = microseconds; truncated to 32 bits as tc stores it. */
int tc_get_time(uint32_t *usec, const char *s);
/* get_linklayer: ethernet, atm or adsl (atm), any prefix tc's matches() takes */
int tc_get_linklayer(unsigned int *ll, const char *s);

/* The printers: a buffer of TC_SPRINT_BSIZE, returned. */
#define TC_SPRINT_BSIZE 64
char *tc_sprint_rate(uint64_t bytes_ps, char *buf); /* 1Mbit, 1500Kbit, 800bit */
char *tc_sprint_size(uint32_t bytes, char *buf);    /* 10Kb, 1514b, 2Mb */
char *tc_sprint_time(uint32_t usec, char *buf);	    /* 50ms, 71.7ms, 1s, 980us */
const char *tc_sprint_linklayer(unsigned int ll);   /* ethernet, atm, unspec */

/* iproute2 6.1's print_rate, print_size and print_time: text fmt with
 * the sprint form (fmt takes a %s), JSON the number (bytes per second,
 * bytes, microseconds) */
void pr_rate(struct tcprint *p, enum pr_mode m, const char *key, const char *fmt, uint64_t bytes_ps);
void pr_size(struct tcprint *p, enum pr_mode m, const char *key, const char *fmt, uint32_t bytes);
void pr_time(struct tcprint *p, enum pr_mode m, const char *key, const char *fmt, uint32_t usec);

/* tcsim's own words, for its command line and Lua (not tc's): */
/* a byte size as sprint_size prints it */
void tc_print_size(FILE *out, uint64_t bytes);
/* a rate in BITS per second, rounded: "10mbit", "1gbit", "100kbps" (bytes!) */
int tc_get_rate(uint64_t *bps, const char *s);
/* a duration in ns: ns, us/usec, ms/msec, s/sec; bare = seconds */
int tc_get_time_ns(uint64_t *ns, const char *s);

#endif
