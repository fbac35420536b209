/* output.h - what a run leaves on disk besides its report (issue 6):
 * pcap files of the packets each band sent and dropped, and per-device
 * plots of backlog, throughput and delay (CSV + a gnuplot script, rendered
 * to PNG and SVG when gnuplot is installed).
 *
 * Use:
 *	outputs_open(&o, s, &opts, err, len);   after the devices exist
 *	outputs_run_until(o, UINT64_MAX);       instead of sim_run (or _until)
 *	outputs_finish(o, err, len);            or outputs_abort(o) on failure
 *	... report, sim_free(s)                  only after finish/abort
 *
 * Files (DEV = the device name, with any character other than
 * [A-Za-z0-9._+@-] written as '_'; BAND = the root's class as tc prints
 * it with ':' written as '_', e.g. 1_1, or "root" for a root without
 * leaf classes: pfifo, bfifo, pfifo_fast, sfq):
 *
 *	PCAPDIR/DEV-BAND-sent.pcap      packets the band sent, stamped with
 *	                                t_depart (end of transmission + delay)
 *	PCAPDIR/DEV-BAND-dropped.pcap   packets the band dropped, stamped with
 *	                                their arrival time
 *	PCAPDIR/DEV-BAND.pcapng         with pcap_format PCAPW_PCAPNG, instead of
 *	                                both: every packet of the band, stamped
 *	                                as above, with its fate as a comment
 *	PLOTDIR/DEV-backlog.csv         time_s, per band: bytes, packets
 *	PLOTDIR/DEV-throughput.csv      time_s, per band: bytes, bit/s; total bit/s
 *	PLOTDIR/DEV-delay_cdf.csv       quantile, per band: queue_us, total_us
 *	PLOTDIR/DEV.gp                  gnuplot script (run it in PLOTDIR)
 *	PLOTDIR/DEV-{backlog,throughput,delay_cdf}.{png,svg}  if gnuplot runs
 *
 * gnuplot is looked up in PATH; the environment variable TCSIM_GNUPLOT names
 * another program, or, empty, turns rendering off (tests).
 *
 * Every file is written in a private temporary directory inside its
 * destination and renamed into place by outputs_finish, all or nothing:
 * after an error (or outputs_abort) no file of the run is left. */
#ifndef TCSIM_OUTPUT_H
#define TCSIM_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

#include "pcapwrite.h"
#include "sim.h"

struct output_opts {
	const char *pcap_dir;  /* NULL: no pcap files */
	const char *plot_dir;  /* NULL: no plots */
	uint64_t interval_ns;  /* backlog samples and throughput bins; 0 = adaptive:
				* from 100 us up the 1-5-10 series (500 us, 1 ms, 5 ms,
				* ...) so that a run has 500 to 2500 points */
	int epoch_zero;        /* pcaps stamped from 1970 (simulated time), not from the
				* first capture's own start */
	enum pcapw_format pcap_format; /* PCAPW_PCAP (0): DEV-BAND-sent.pcap and
					-dropped.pcap; PCAPW_PCAPNG: DEV-BAND.pcapng */
};

struct outputs;

/* Creates the directories if missing (one level), checks that they are
 * writable (by creating the temporary directory in each), and registers as
 * an observer of s (sim/observe.h), after those already there. 0 or
 * -errno (err). */
int outputs_open(struct outputs **out, struct sim *s, const struct output_opts *o, char *err,
		 size_t errlen);

/* sim_run_until (UINT64_MAX: sim_run) that stops at each sample time to
 * record the backlogs. The simulation runs exactly the same events in the
 * same order, and ends in the same state (clock included), as without
 * outputs. Returns what sim_run_until returns, or -errno when an output
 * failed (disk full...): outputs_error tells which; outputs_finish then
 * fails with the same message. */
int outputs_run_until(struct outputs *o, uint64_t until);

/* The message of the failure outputs_run_until returned: the simulation's
 * (s->err) or the outputs'. "" when none. */
const char *outputs_error(const struct outputs *o);

/* Writes the CSVs and scripts, renders them with gnuplot when it is
 * installed (else says so once on stderr; not an error; a failing gnuplot
 * is reported on stderr, and its PNG/SVG are skipped, not an error either),
 * and renames every file into place. Stops observing and frees o (also on
 * error, when nothing is left on disk). 0 or -errno (err). */
int outputs_finish(struct outputs *o, char *err, size_t errlen);

/* Removes every file written, stops observing, frees o. NULL is fine. */
void outputs_abort(struct outputs *o);

#endif
