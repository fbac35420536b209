/* netem_dist.h - the delay distribution tables iproute2 ships for netem
 * (normal.dist, pareto.dist, paretonormal.dist), computed here the way its
 * netem/normal.c, pareto.c and paretonormal.c compute them: 4096 signed
 * values of the inverse CDF, scaled by NETEM_DIST_SCALE (8192). */
#ifndef TCSIM_NETEM_DIST_H
#define TCSIM_NETEM_DIST_H

#include <stdint.h>

#define NETEM_DIST_SIZE 4096

/* The table of that name ("normal", "pareto", "paretonormal") and its
 * size, or NULL. The tables are constants, computed on first use. */
const int16_t *netem_dist_table(const char *name, uint32_t *size);

#endif
