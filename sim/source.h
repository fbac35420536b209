/* source.h - where packets come from: captures replayed with tcpreplay's
 * timing vocabulary (and, later, synthetic Lua sources), each read lazily,
 * one packet ahead. */
#ifndef TCSIM_SOURCE_H
#define TCSIM_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "mark.h"

/* How skb->priority is set for replayed packets. */
enum prio_mode {
	PRIO_FORWARD = 0, /* a router forwarding it: IPv4 rt_tos2priority(tos), else 0 */
	PRIO_FIXED,       /* one value for all, as a socket's SO_PRIORITY */
};

struct replay_opts {
	double speed;         /* timestamp multiplier: 2 = twice as fast (default 1) */
	double pps;           /* > 0: ignore timestamps, N packets per second */
	double mbps;          /* > 0: ignore timestamps, pace at N Mbit/s of frame bytes */
	int topspeed;         /* every packet arrives at t = 0 (in file order) */
	uint64_t loop;        /* play the capture this many times (default 1) */
	uint64_t limit;       /* stop after this many packets (0 = all) */
	uint64_t start_ns;    /* the source's t = 0 on the simulation clock */
	uint64_t duration_ns; /* stop at arrivals later than start + this (0 = no) */
	enum prio_mode prio_mode;
	uint32_t priority;    /* PRIO_FIXED: the value (may be a classid, 0x10003) */
	int vlan_inline;      /* keep 802.1Q tags in the data (default: offload) */
	struct mark_rules marks; /* skb->mark: the first rule selecting the frame (none: 0) */
};
void replay_opts_default(struct replay_opts *o);

/* One packet as a source yields it. data is valid until the next call. */
struct src_packet {
	const uint8_t *data; /* Ethernet frame as captured */
	uint32_t caplen;
	uint32_t len;        /* original length */
	uint64_t t_ns;       /* arrival time on the simulation clock */
	uint32_t priority;   /* skb->priority */
	uint32_t mark;       /* skb->mark */
	uint64_t seq;        /* packet number in this source, from 1 */
	const char *reject;  /* non-NULL: cannot be carried, why (still counted) */
};

struct source;
struct source_ops {
	/* 1 = *p filled; 0 = the source is finished; < 0 = error (err names
	 * the file and packet) */
	int (*next)(struct source *s, struct src_packet *p, char *err, size_t errlen);
	void (*close)(struct source *s);
};
struct source {
	const struct source_ops *ops;
	char name[256]; /* for reports: the capture's path */
	/* Packets whose capture timestamp was earlier than the latest one
	 * before it in the same pass, so their arrival was held at the
	 * previous arrival (the clock never goes back). Timestamp pacing only. */
	uint64_t clamped;
	/* Gaps of more than an hour between capture timestamps (in a pass,
	 * timestamp pacing): replayed as idle time, which a user may not
	 * expect (a capture joined from two days). */
	uint64_t long_gaps, longest_gap_ns;
	/* The wall-clock time of simulated time 0 by this capture: its first
	 * timestamp less its --start offset (--pcap-out stamps with it). */
	int has_epoch;
	uint64_t epoch_ns;
};

/* A capture file (pcap or pcapng, any link type capture.c converts). */
int src_open_capture(struct source **out, const char *path, const struct replay_opts *o,
		     char *err, size_t errlen);

/* rt_tos2priority: the kernel's ip_tos2prio table. */
uint32_t tos_to_priority(uint8_t tos);
/* The priority a forwarding router gives this Ethernet frame: IPv4 (after
 * any in-data VLAN tags) from its TOS, everything else 0. */
uint32_t frame_forward_priority(const uint8_t *frame, uint32_t caplen);

#endif
