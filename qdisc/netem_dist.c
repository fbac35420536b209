/* netem_dist.c - iproute2's netem distribution tables, from the same
 * formulas (NIST Net's generators): the table tc would read from
 * /usr/lib/tc/NAME.dist and send to the kernel as TCA_NETEM_DELAY_DIST.
 * The test compares them with the installed files when there are some. */
#include <math.h>
#include <string.h>

#include <linux/pkt_sched.h>

#include "netem_dist.h"

#define GEN_SIZE 16384 /* the generators' resolution; every 4th entry is kept */

static double normal_cdf(double x)
{
	return .5 + .5 * erf(x / sqrt(2.0));
}

static int16_t clamp16(int v)
{
	return (int16_t)(v < INT16_MIN ? INT16_MIN : v > INT16_MAX ? INT16_MAX : v);
}

/* The inverse of the standard normal CDF sampled at GEN_SIZE + 1 points by
 * sweeping x over [-10, 10.05) in steps of 5e-5 and keeping, for each
 * rounded CDF index, the last x that lands on it (the generator's own
 * accumulation of the step, so the same doubles come out). */
static void normal_inverse(double *inv)
{
	for (double x = -10.0; x < 10.05; x += .00005) {
		int i = (int)rint(GEN_SIZE * normal_cdf(x));

		inv[i] = x;
	}
}

/* Pareto with shape 3, shifted to mean 0 and scaled to unit deviation
 * (4/3), at 1 - 4i/65536 of the probability: in table units. */
static int pareto_value(int i)
{
	double v = (double)(65536 - 4 * i) / 65536.0;

	v = 1.0 / pow(v, 1.0 / 3.0);
	v -= 1.5;
	v *= (4.0 / 3.0) * (double)NETEM_DIST_SCALE;
	if (v > 32767)
		v = 32767;
	return (int)rint(v);
}

static void build(int16_t *t, const char *name)
{
	static double inv[GEN_SIZE + 1];

	if (strcmp(name, "pareto"))
		normal_inverse(inv);
	for (int i = 0, n = 0; i < GEN_SIZE; i += 4, n++) {
		int norm = (int)rint(inv[i] * NETEM_DIST_SCALE);

		if (!strcmp(name, "normal"))
			t[n] = clamp16(norm);
		else if (!strcmp(name, "pareto"))
			t[n] = (int16_t)pareto_value(i); /* the largest is capped, the smallest is -1.5 * scale */
		else /* a quarter normal, three quarters pareto */
			t[n] = clamp16((norm + 3 * pareto_value(i)) / 4);
	}
}

const int16_t *netem_dist_table(const char *name, uint32_t *size)
{
	static const char *const names[] = {"normal", "pareto", "paretonormal"};
	static int16_t tables[3][NETEM_DIST_SIZE];
	static int built[3];

	for (int k = 0; k < 3; k++) {
		if (strcmp(name, names[k]))
			continue;
		if (!built[k]) {
			build(tables[k], names[k]);
			built[k] = 1;
		}
		*size = NETEM_DIST_SIZE;
		return tables[k];
	}
	return NULL;
}
