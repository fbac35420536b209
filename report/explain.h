/* explain.h - one packet's story: `tcsim explain` and sim:explain. An
 * observer (sim/observe.h) follows the packet through a run; afterwards
 * it says, in prose, what happened to it and why. */
#ifndef TCSIM_EXPLAIN_H
#define TCSIM_EXPLAIN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim.h"

struct explain_opts {
	int source;	   /* 0-based index in s->srcs */
	uint64_t seq;	   /* packet number in that source, from 1 */
	int verbose;	   /* the instruction-level trace of every program run */
	const char *label; /* how to name the source ("scenarios/x.pcap"), or NULL */
};

/* Runs s (configured, sources added, not yet run) to its end and writes
 * an account of one packet to out: headers, every filter consulted and
 * what its return means, the verdict, the band and the rule, how long it
 * waited and behind whom, its transmission or its drop. The simulation's
 * other observers still see every packet. 0; -ENOENT when that
 * packet never arrived (err: "capture 1 (PATH) has only 732 packets");
 * -errno when the run failed (err). Nothing is written on failure. */
int explain_packet(struct sim *s, const struct explain_opts *o, FILE *out, char *err,
		   size_t errlen);

/* The same in two halves, for a caller that runs the simulation itself (a
 * Lua scenario, in steps): begin before the run (sources may still be
 * added), end after it, which writes the account or says why it cannot
 * (the packet never arrived, no such capture). abort frees without a word.
 * o must live until end or abort. */
struct explain;
int explain_begin(struct explain **x, struct sim *s, const struct explain_opts *o, char *err,
		  size_t errlen);
int explain_end(struct explain *x, FILE *out, char *err, size_t errlen);
void explain_abort(struct explain *x);

#endif
