/* output_int.h - the state of the outputs (output.h), shared by the files
 * that make them; not a public API: everyone else goes through output.h. */
#ifndef TCSIM_OUTPUT_INT_H
#define TCSIM_OUTPUT_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "output.h"
#include "qdisc.h"

#define BAND_ROOT TC_H_ROOT	    /* the key of a root without leaf classes */
#define ADAPT_START_NS 100000u	    /* adaptive sampling starts at 100 us */
#define ADAPT_MAX_POINTS 2500	    /* ... and coarsens past this many points */
#define FIXED_MAX_POINTS (1u << 22) /* a fixed interval: at most 4M samples */

enum { P_SENT, P_DROPPED }; /* the index of a band's pcap[], pkts[] and bytes[] */

struct band {
	uint32_t key;	 /* leaf_classid, or BAND_ROOT */
	char name[32];	 /* "1:1", "root" */
	char fname[32];	 /* "1_1", "root" */
	char label[128]; /* for plot legends: "1:1 (sfq 10:)" */
	struct pcapw pw[2]; /* pcap: sent, dropped; pcapng: both in pw[0] */
	int pw_open[2];
	uint64_t pkts[2], bytes[2];
	/* backlog at each sample (o->nsamples of them) and at the end */
	uint64_t *bl_bytes;
	uint32_t *bl_pkts;
	size_t bl_cap;
	uint64_t end_bytes;
	uint32_t end_pkts;
	/* bytes sent per throughput bin */
	uint64_t *tp;
	size_t ntp;
	struct hist qd, td;
};

struct odev {
	const struct dev *d;
	char fname[3 * DEV_NAMELEN];
	struct band *bands; /* ordered by key (root last) */
	int nbands;
	int hint;
};

/* A destination directory and the private directory its files are written
 * in until outputs_finish renames them. */
struct outdir {
	char *dir, *tmp;
	char **names; /* files created in tmp */
	int nnames;
	char **placed; /* renamed into dir so far (undone on error) */
	int nplaced;
	int created; /* outputs_open made dir (removed again if left empty) */
};

struct outputs {
	struct sim *s;
	struct sim_observer obs; /* told of every packet's end */
	struct outdir pcap, plot;
	int want_pcap, want_plot;
	enum pcapw_format fmt; /* of the pcap files */
	uint64_t interval;
	int adaptive, phase;
	/* the samples: times[i], each band's bl_*[i] */
	uint64_t next_sample;
	uint64_t *times;
	size_t nsamples, cap_samples;
	int has_end;
	uint64_t end_t;
	/* every event up to `processed` has run (if processed_valid) */
	int processed_valid;
	uint64_t processed;
	struct odev devs[SIM_MAX_DEVS];
	int ndevs;
	/* pcaps: the wall-clock time of simulated time 0, fixed at the first
	 * packet written (the earliest capture start then known) */
	int epoch_zero, epoch_set;
	uint64_t epoch;
	int err; /* first output failure, -errno */
	char errmsg[512];
};

/* output.c */

/* Records a failure in o->err and o->errmsg; only the first is kept, the
 * later ones being its consequences. */
void out_set_err(struct outputs *o, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Records a file about to be created in od's private directory; its path
 * (free it), or NULL with o->err set (two outputs with the same name). */
char *outdir_add(struct outputs *o, struct outdir *od, const char *name);
/* dir/name, malloc'd; NULL when out of memory. */
char *out_path_join(const char *dir, const char *name);

/* A device's entry, made on first use; NULL (o->err) past SIM_MAX_DEVS. */
struct odev *out_odev_get(struct outputs *o, const struct dev *d);
/* The band of key (a leaf classid or BAND_ROOT), made on first use with a
 * zero backlog so far; NULL (o->err) when out of memory. */
struct band *out_band_get(struct outputs *o, struct odev *od, uint32_t key);
/* Room for sample n in a band's backlog arrays (zeros up to it). 0 or
 * -ENOMEM. */
int out_band_bl_reserve(struct band *b, size_t n);
/* The root has classes with leaf qdiscs (prio): bands are those classes. */
int out_root_has_leaves(const struct dev *d);

/* out_sample.c */

/* Reads every band's backlog as the sample at t: the next one
 * (o->nsamples), or with end the end sample. A failure goes to o->err. */
void out_take_sample(struct outputs *o, uint64_t t, int end);

/* out_pcap.c */

/* Appends p to b's file of its kind (P_SENT, P_DROPPED; pcapng: the band's
 * one file, with its fate as a comment), created on the band's first packet. A failure goes to o->err. */
void opcap_write(struct outputs *o, struct odev *od, struct band *b, int kind, const struct pkt *p);
/* Closes every band's pcaps, creating the empty ones first. o->err. */
int opcap_close_pcaps(struct outputs *o);
/* Closes every file without caring (the outputs failed). */
void opcap_abort(struct outputs *o);

/* out_plot.c */

/* Adds a sent packet to its band's throughput bins and delay histograms;
 * called when its transmission ends. A failure goes to o->err. */
void oplot_sent(struct outputs *o, const struct dev *d, struct band *b, const struct pkt *p);
/* Writes every device's CSV files and gnuplot script. */
void oplot_write_files(struct outputs *o);
/* Runs gnuplot on the scripts; its PNG and SVG files join the outputs. A
 * missing or failing gnuplot is said on stderr, not an error. */
void oplot_render(struct outputs *o);

#endif
