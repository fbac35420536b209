/* sim.h - a simulation is a value: its clock, its one event queue, its
 * seeded generator, its devices and sources, and the record of every
 * packet's fate. Two simulations can live in one process. */
#ifndef TCSIM_SIM_H
#define TCSIM_SIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bpf.h"
#include "observe.h"
#include "pkt.h"
#include "qdisc.h"
#include "rng.h"
#include "source.h"
#include "stats.h"

#define SIM_MAX_DEVS 16
#define SIM_MAX_SOURCES 64
#define DEV_NAMELEN 16
#define SIM_POLL_EVERY 1024

/* The device model: a work-conserving transmitter at a line rate. */
struct dev {
	char name[DEV_NAMELEN];
	uint32_t ifindex;
	uint64_t rate_bps;   /* bits per second; 0 = infinitely fast */
	uint32_t overhead;   /* bytes added to every frame on the wire */
	uint32_t mtu;        /* 1500 */
	uint32_t txqueuelen; /* 1000 */
	uint64_t delay_ns;   /* propagation delay after the wire */
	struct qdisc *root;  /* never NULL: pfifo_fast until tc replaces it */
	struct qdisc_env env;
	struct sim *sim;
	struct pkt *on_wire; /* the packet being serialised, or NULL */
	/* its transmission's end, an event kept by the device itself (like a
	 * source's next arrival) rather than in the heap */
	uint64_t tx_done_t, tx_done_seq;
	uint64_t tx_rate, tx_rate_inv; /* floor((2^64 - 1) / tx_rate), for tx_time */
	struct dev_stats st; /* per-device results (stats.h) */
	int classified;   /* the root reported a verdict for the packet in hand */
	int tearing_down; /* packets freed now are not drops */
};

struct sim_config {
	uint64_t seed;
	enum bpf_kernel kernel;
	int sfq_allot_bytes;  /* model 6.13+ byte credit (default: 8-byte units) */
	int sfq_hash_random;  /* sfq buckets from a seeded jhash, so flows can collide */
	/* defaults for devices the tc commands create */
	uint64_t rate_bps;
	uint32_t overhead, mtu, txqueuelen;
	uint64_t delay_ns;
	/* A qdisc watchdog (tbf, htb) fires this long after the time it was
	 * armed for: the kernel's timer interrupt and softirq latency [0]. */
	uint64_t timer_latency_ns;
	/* Fire every idle timer one by one instead of applying runs of them at
	 * once (sim.c, idle time): the reference the tests compare with. */
	int step_idle;
	/* a fifo holding more packets than this keeps the rest in a temporary
	 * file (base/pktspill.h; 0: never): PKT_SPILL_AFTER, or
	 * TCSIM_SPILL_AFTER */
	uint32_t spill_after;
};
void sim_config_default(struct sim_config *c);

struct ev_heap;
struct sim {
	struct sim_config cfg;
	uint64_t now;
	struct rng rng;
	struct ev_heap *events;
	uint64_t next_seq; /* insertion order, the tie-break of simultaneous events */
	uint64_t work_events; /* pending arrivals and transmissions (not timers) */
	uint32_t qdisc_autohandle; /* the kernel's qdisc_alloc_handle counter */
	struct dev *devs[SIM_MAX_DEVS];
	int ndevs;
	struct sim_source {
		struct source *src;
		struct dev *dev;
		struct src_packet next; /* read ahead */
		int has_next;
		int done;
		int vlan_inline; /* keep 802.1Q tags in the frame data */
		int pending;      /* next is scheduled to arrive at next.t_ns */
		uint64_t seq;     /* its place among simultaneous events */
		uint64_t read;
	} srcs[SIM_MAX_SOURCES];
	/* the qdiscs that have armed a watchdog (sim.c keeps them out of the
	 * heap); wd_min indexes the earliest pending one (-1: none) while
	 * wd_min_ok says it is still right */
	struct sim_wd {
		struct qdisc *q;
		struct dev *d;
	} *wds;
	int nwds, wds_cap, wd_min, wd_min_ok;
	int nsrcs;
	uint64_t next_pkt_id;
	struct pkt_pool pool; /* recycled packet records */
	char err[512]; /* the first error that stopped the run */
	int failed;
	/* those who watch (observe.h), in registration order */
	struct sim_observer *observers;
	uint8_t followers; /* the bits of the observers that follow packets */
	int nwatch_done;   /* observers told of every packet's end */
	/* the tracer every device's qdiscs report to: &qt while anyone
	 * follows packets, else NULL */
	const struct qdisc_tracer *qtracer;
	struct qdisc_tracer qt;
	const struct pkt *arriving; /* being enqueued now (followers only) */
	uint64_t arriving_id;
	/* when set, called every SIM_POLL_EVERY steps of a run: a non-zero
	 * return (-errno, with err filled) stops the run as a failure. This is
	 * how a scenario's --timeout reaches into one long sim:run. */
	int (*poll)(void *arg, char *err, size_t errlen);
	void *poll_arg;
	uint64_t steps; /* events processed, over every run */
};

int sim_init(struct sim *s, const struct sim_config *cfg);
void sim_free(struct sim *s);

/* Devices: found by name, created with the config's defaults. */
struct dev *sim_dev_find(struct sim *s, const char *name);
int sim_dev_add(struct sim *s, const char *name, struct dev **out, char *err, size_t errlen);
/* Replaces the device's root qdisc (the old tree's packets are dropped). */
void dev_set_root(struct dev *d, struct qdisc *root);

/* After changing mtu or txqueuelen. */
void dev_sync_env(struct dev *d);
/* Packets in the root qdisc plus the one on the wire. */
uint64_t dev_queued(const struct dev *d);

/* Sources feed one device; the simulation owns them from here on. */
int sim_add_source(struct sim *s, struct source *src, struct dev *d, int vlan_inline,
		   char *err, size_t errlen);

/* Runs until the event queue is empty (all sources done, all queues
 * drained), or until time `until` (inclusive). 0 or -errno (s->err). */
int sim_run(struct sim *s);
int sim_run_until(struct sim *s, uint64_t until);

/* Checks every device's accounting: arrived = sent + dropped + queued +
 * rejected. 0 or -EPROTO with the numbers in err. */
int sim_check_accounting(const struct sim *s, char *err, size_t errlen);

#endif
