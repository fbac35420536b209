/* observe.h - what the engine tells those who watch it: one table of
 * packet events, as the kernel's tracepoints or ns-3's trace sources.
 *
 * The engine calls nothing above itself. Traces, `tcsim explain`, the pcap
 * and plot outputs and kernel-check's recorder register a struct
 * sim_observer on a simulation and are called from here. Watching costs
 * packets nobody follows one predictable branch per event (p->traced, or
 * s->followers at arrival), and each packet's end one more (s->nwatch_done).
 *
 * Events of one packet come in this order (the fields of struct
 * sim_event that each sets are named in brackets):
 *
 *   ARRIVE    the frame reached the device's root qdisc, before it is
 *             classified [frame, caplen, len]
 *   REJECT    a frame that cannot be carried (p is NULL; nothing follows)
 *             [source, seq, frame, caplen, len, why]
 *   FILTER    a filter consulted by a qdisc [q, qt]       (qdisc tracer)
 *   CLASSIFY  the qdisc's decision [q, qt]                 (qdisc tracer)
 *   ENQUEUE   queued in a leaf [q, qt]                     (qdisc tracer)
 *   DROP      dropped, at its arrival or later [q = the leaf, at_arrival,
 *             by = the arriving packet that pushed it out, or 0]
 *   THROTTLED at the head of its leaf, it waits for tokens: its qdisc
 *             answered a dequeue with nothing [q = the shaper, qt]
 *             (qdisc tracer; once per wait, possibly several times)
 *   BORROW    htb takes it on an ancestor's tokens [q, qt] (qdisc tracer)
 *   DEQUEUE   taken by the idle device [q = the leaf, dur, wire]
 *   TX_END    its transmission ended; t_depart is set
 */
#ifndef TCSIM_OBSERVE_H
#define TCSIM_OBSERVE_H

#include <stddef.h>
#include <stdint.h>

#include "bpf.h"
#include "pkt.h"
#include "qdisc.h"

struct sim;
struct dev;

enum sim_ev_kind {
	SIM_EV_ARRIVE,
	SIM_EV_REJECT,
	SIM_EV_FILTER,
	SIM_EV_CLASSIFY,
	SIM_EV_ENQUEUE,
	SIM_EV_DROP,
	SIM_EV_DEQUEUE,
	SIM_EV_TX_END,
	SIM_EV_THROTTLED,
	SIM_EV_BORROW,
	SIM_EV_MARK, /* codel marked it CE (e->qt: level = why, until = sojourn) */
};

/* One event of a followed packet. */
struct sim_event {
	enum sim_ev_kind kind;
	uint64_t t;
	const struct dev *dev;
	const struct pkt *p;     /* NULL for SIM_EV_REJECT */
	uint64_t id;             /* 0 for SIM_EV_REJECT */
	int source;              /* 0-based */
	uint64_t seq;
	const struct qdisc *q;   /* FILTER, CLASSIFY, ENQUEUE, THROTTLED, BORROW:
				    the reporting qdisc;
				    DROP, DEQUEUE: the leaf */
	const struct qtrace *qt; /* FILTER, CLASSIFY, ENQUEUE, THROTTLED, BORROW */
	const uint8_t *frame;    /* ARRIVE, REJECT: as captured */
	uint32_t caplen, len;
	const char *why;         /* REJECT */
	int at_arrival;          /* DROP */
	uint64_t by;             /* DROP: the arriving packet that made it go, or 0 */
	uint64_t dur;            /* DEQUEUE: serialisation time */
	uint32_t wire;           /* DEQUEUE: bytes on the wire */
};

/* A watcher of one simulation. Every callback may be NULL; arg is theirs. */
struct sim_observer {
	/* An ARRIVE or REJECT: non-zero follows that packet, whose later
	 * events (and this one) then go to event. An observer with a select
	 * is a follower; a simulation has at most SIM_MAX_FOLLOWERS. */
	int (*select)(void *arg, const struct sim_event *e);
	void (*event)(void *arg, const struct sim_event *e);
	/* Each instruction of the filter programs run on followed packets
	 * (any follower's), before it executes: explain -v. */
	bpf_tracer insn;
	/* Every packet that leaves the simulation, followed or not: sent (at
	 * the end of its transmission) or dropped. */
	void (*done)(void *arg, const struct dev *d, const struct pkt *p);
	void *arg;

	/* the engine's own */
	struct sim_observer *next;
	uint8_t bit; /* its bit in p->traced */
};

#define SIM_MAX_FOLLOWERS 8

/* Registers o (which must live until sim_unobserve or sim_free) after the
 * observers already there: they are called in that order. 0, or -EBUSY
 * when o has a select and SIM_MAX_FOLLOWERS followers are registered
 * (err says so), -EEXIST when o is registered already. */
int sim_observe(struct sim *s, struct sim_observer *o, char *err, size_t errlen);
/* Removes o; one not registered is ignored. */
void sim_unobserve(struct sim *s, struct sim_observer *o);

/* ---- the engine's side (sim.c only) ---- */
void sim_obs_arrival(struct dev *d, struct pkt *p, const uint8_t *frame, uint32_t caplen,
		     uint32_t len);
void sim_obs_arrival_done(struct dev *d);
void sim_obs_reject(struct dev *d, int source, uint64_t seq, const uint8_t *frame,
		    uint32_t caplen, uint32_t len, const char *why);
void sim_obs_drop(struct dev *d, const struct pkt *p);
void sim_obs_dequeue(struct dev *d, const struct pkt *p);
void sim_obs_tx_end(struct dev *d, const struct pkt *p);
void sim_obs_done(struct dev *d, const struct pkt *p);

#endif
