/* synth.h - synthetic packet sources: a stream of well-formed Ethernet
 * frames (IPv4 or IPv6; TCP, UDP, ICMP or ICMPv6; optional 802.1Q tag)
 * at constant, Poisson or on/off arrivals, with fixed, uniform or discrete
 * frame sizes. A synth source is a struct source like a capture
 * (source.h), and the same packets can be written to a pcap file.
 *
 * Arrival times (start = start_ns, i = 0-based packet number, the
 * "gap" g = 1e9 / pps ns, held as an exact fraction; see synth.c):
 *  SYNTH_CONSTANT: t_i = start + floor(i * g), integer arithmetic on i
 *   (no drift). The first packet arrives at start.
 *  SYNTH_POISSON: t_i = t_{i-1} + round(-g * ln(1 - u_i)), t_{-1} = start,
 *   u_i uniform in [0, 1) from the seeded generator (inverse transform of
 *   the exponential distribution). The first packet arrives one random
 *   gap after start, as in a Poisson process started at start.
 *  SYNTH_ONOFF: cycles of on_ns + off_ns from start; in each on period
 *   packets at cycle + floor(j * g) for every j >= 0 with j * g < on_ns
 *   (the first at the start of the period), nothing in the off period.
 * bps instead of pps: pps = bps / (8 x mean frame size), the mean of the
 * size distribution (frames are paced by the mean, not their own size).
 * The source ends after count packets or at the first arrival later than
 * start + duration_ns (an arrival at exactly start + duration is yielded,
 * as capture sources do).
 *
 * The frames. Ethernet (dst, src, [0x8100 tci], 0x0800 | 0x86dd), then
 *  IPv4: IHL 5, tos, total length, id = packet number (from 1, 16-bit
 *   wrap), DF for TCP only, ttl, header checksum; or
 *  IPv6: traffic class = tos, flow label 0, payload length, hop limit = ttl;
 *  TCP: seq per flow (a seeded initial number, advancing by the payload
 *   length), ack per flow when ACK is in tcp_flags (else 0), data offset 5,
 *   window 65535, checksum; UDP: length, checksum (0 sent as 0xffff);
 *  ICMP / ICMPv6: type, code, checksum, identifier = the flow's "source
 *   port", sequence number per flow from 1 (ICMP has no ports: sport is
 *   the echo identifier and flows cycles it; dport is unused).
 *  The payload is byte k = k & 0xff (k from 0 at the end of the L4 header).
 * Frame length = caplen = len = the size drawn; no FCS.
 *
 * Random streams: the arrival gaps, the sizes and the TCP initial
 * sequence/ack numbers each come from their own generator derived from
 * seed, so changing the size distribution leaves Poisson times unchanged. */
#ifndef TCSIM_SYNTH_H
#define TCSIM_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "source.h"

enum synth_arrivals { SYNTH_CONSTANT, SYNTH_POISSON, SYNTH_ONOFF };
enum synth_size_kind { SYNTH_SIZE_FIXED, SYNTH_SIZE_UNIFORM, SYNTH_SIZE_DISCRETE };
#define SYNTH_MAX_SIZES 16
#define SYNTH_MAX_FRAME 65535

struct synth_spec {
	char name[64]; /* for reports and errors ("" = "synth") */
	enum synth_arrivals arrivals;
	double pps;    /* packets per second (> 0, up to 1e12), or: */
	uint64_t bps;  /* bits/s of frame bytes (mean); exactly one of pps, bps */
	uint64_t start_ns, duration_ns; /* duration 0 = until count */
	uint64_t count;                 /* 0 = until duration; at least one is set */
	uint64_t on_ns, off_ns;         /* SYNTH_ONOFF only (on_ns > 0), else 0 */
	/* the packet */
	uint8_t src_mac[6], dst_mac[6];
	uint16_t vlan_tci;
	int vlan;                     /* != 0: an 802.1Q tag with vlan_tci */
	int family;                   /* 4 or 6 */
	uint8_t saddr[16], daddr[16]; /* IPv4 in the first 4 bytes */
	int l4;                       /* 6 TCP, 17 UDP, 1 ICMP (IPv4), 58 ICMPv6 (IPv6) */
	uint16_t sport, dport;        /* ICMP: sport = echo identifier */
	uint32_t flows;    /* > 1: packet n uses sport + n % flows (0 counts as 1) */
	uint8_t tos;       /* IPv4 TOS / IPv6 traffic class (DSCP << 2 | ECN) */
	uint8_t ttl;       /* default 64 */
	uint8_t tcp_flags; /* default ACK|PSH (0x18) */
	int icmp_type;     /* -1 (default): echo request of the family, 8 or 128 */
	uint8_t icmp_code; /* default 0 */
	enum synth_size_kind size_kind;
	uint32_t size_min, size_max; /* frame bytes without FCS: fixed = size_min;
					uniform in [min, max] */
	uint32_t sizes[SYNTH_MAX_SIZES];
	double weights[SYNTH_MAX_SIZES];
	int nsizes; /* discrete: sizes[i] with probability weights[i] / sum */
	enum prio_mode prio_mode; /* PRIO_FORWARD: frame_forward_priority (IPv4
				     TOS; IPv6 0), PRIO_FIXED: priority */
	uint32_t priority;
	struct mark_rules marks; /* skb->mark: the first rule selecting the frame */
	uint64_t seed; /* the caller derives it from the simulation seed and the
			  source's index */
};

/* Defaults: constant arrivals, no rate and no end (both must be set),
 * 02:00:00:00:00:01 -> 02:00:00:00:00:02, IPv4 10.0.0.1 -> 10.0.0.2, UDP
 * 1024 -> 5201, one flow, ttl 64, tcp_flags 0x18, ICMP echo request, a
 * fixed 1000-byte frame, PRIO_FORWARD, seed 0. */
void synth_spec_default(struct synth_spec *sp);

/* 0, or -EINVAL with a one-line error naming the source, the field and the
 * rule, e.g. "udp1: size 20 is below the 42-byte minimum of an
 * Ethernet/IPv4/UDP frame". */
int synth_validate(const struct synth_spec *sp, char *err, size_t errlen);

/* A source of the spec's packets (validated first). Its name is the spec's.
 * next() fails (-EOVERFLOW) only if an arrival passes the 64-bit ns clock. */
int src_open_synth(struct source **out, const struct synth_spec *sp, char *err, size_t errlen);

/* Writes exactly the packets src_open_synth would yield (same times and
 * bytes) to a classic pcap file (LINKTYPE_ETHERNET, nanosecond magic
 * 0xa1b23c4d in host byte order, snaplen 262144, mode 0644), through a
 * temporary file in the same directory renamed into place, so nothing is
 * half-written on error. Returns the packets written or -errno. */
int64_t synth_save_pcap(const struct synth_spec *sp, const char *path, char *err, size_t errlen);

#endif
