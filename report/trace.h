/* trace.h - per-packet traces and explanations (issue 6).
 *
 * A trace follows chosen packets through a simulation and writes one line
 * per thing that happens to them; `tcsim explain` tells one packet's story
 * in prose. Tracing costs untraced packets one predictable branch per hook
 * (p->traced, or sim->trace at arrival).
 *
 * ---- The trace format (stable: add keys at the end, never change one) ----
 *
 * One event per line, fields separated by one space:
 *
 *   <t_ns> <dev> #<id> <K>:<N> <event> key=value ...
 *
 *   t_ns   simulated time of the event, in ns from the start of the run
 *   dev    the device
 *   #id    the packet's global number, in arrival order from 1 (#- for a
 *          frame rejected before it became a packet)
 *   K:N    packet N (from 1) of source K (from 1, in the order the
 *          captures were given): the same as `tcsim explain --packet K:N`
 *   event  one of the words below
 *
 * Values hold no spaces, except the last key of a line, which may be
 * quoted ("...", with no quote inside). Handles print as `1:` (qdiscs)
 * and classids always as `major:minor` in hex, `4:0` included; ns are
 * integers. Every packet's events come in this order:
 *
 *   arrive    len=L caplen=C proto=0xPPPP priority=P [mark=0xM] [vlan=TCI] hdr="..."
 *             L = qdisc_pkt_len, C = bytes captured, proto = skb->protocol,
 *             P = skb->priority (decimal, or maj:min when it has a major),
 *             mark = skb->mark when not 0 (--mark);
 *             vlan = an offloaded tag's TCI; hdr = tcpdump-like summary.
 *   reject    why="..."   (#-) a frame that cannot be carried; nothing follows.
 *   filter    qdisc=H pref=P proto=NAME kind=bpf handle=0xH ret=R result=RES [class=X]
 *             one line per filter program consulted, in chain order (pref
 *             ascending, newest program first within a pref). R is the
 *             program's return (u32 decimal; 0xffffffff prints -1). RES:
 *               nomatch   R = 0: next program
 *               flowid    R = -1: the filter's flowid X
 *               classid   any other R: cls_bpf takes R itself as classid X
 *             or RES = skip (protocol mismatch: none of the filter's
 *             programs ran; no handle/ret).
 *   filter    qdisc=H pref=P proto=NAME kind=matchall|fw [handle=0xH] result=RES
 *             [class=X] why="..."   kinds without a return value: RES is
 *             nomatch or classid, handle is the matching filter's, why
 *             says what decided (fw: the masked mark, or the old method).
 *   classify  qdisc=H kind=K verdict=V [classid=X] [pref=P handle=0xH] rule=RULE [map=I] [band=B] [class=C]
 *             the qdisc's decision. V: filter | priority | unclassified
 *             (filters, none matched) | none (no filters). RULE:
 *               filter    the filters' classid X names band B (minor - 1)
 *               priority  skb->priority names class C of this qdisc
 *               priomap   no class from filters or priority: priomap[I],
 *                         I = priority & 15 (a priority of another major: 0)
 *               fallback  the classid names no band (minor 0 or beyond the
 *                         bands, e.g. tcpdump's 262144 = 4:0): priomap[0]
 *               drop      (sfq) the classid names no bucket: dropped
 *             class C = the class chosen (prio: H:B+1; sfq: a bucket).
 *   enqueue   qdisc=H kind=K parent=C qlen=Q backlog=BYTES [bucket=B slot=S flowlen=F] [band=B]
 *             queued in leaf H (below class C); Q and BYTES after it;
 *             sfq: hash bucket B, slot S, F packets now in that flow;
 *             pfifo_fast: its band.
 *   drop      reason=R qdisc=H kind=K at=arrival|queued [by=#id]
 *             R as the JSON report's drops (limit, sfq_depth, ...); H the
 *             leaf holding (or refusing) it; at=queued: dropped after it
 *             was queued, by=#id: to make room for that arriving packet.
 *             Nothing follows.
 *   throttled qdisc=H kind=K class=C until=T [by=B]
 *             (tbf, htb) first in its leaf, it waits for tokens: shaper H
 *             answered the device with nothing. C: the class it waits in
 *             (tbf: H:1; htb: the leaf); T: when the class short of tokens
 *             may send again; htb's B: that class, the leaf itself (over
 *             its ceil) or the first ancestor that cannot lend. Once per
 *             wait: asked again before T with the same T says nothing; a
 *             new T (a new wait) is a new line. Zero or more, before dequeue.
 *   borrow    class=C from=A level=N
 *             (htb) leaf C, over its rate, is sent on the tokens of its
 *             ancestor A, at htb level N (7 for a class at the top, as
 *             the kernel numbers them). Just before its dequeue.
 *   dequeue   class=C qdisc=H waited=NS left=Q
 *             taken by the idle device from class C (leaf H) after NS ns
 *             in the queue; Q packets stay in the root qdisc.
 *   tx_start  dur=NS wire=BYTES end=T   serialisation time, bytes on the
 *             wire (len + overhead + offloaded VLAN tag), its end
 *   tx_end    queue_delay=NS total_delay=NS depart=T
 *             total = queue + serialisation + the device's delay; T when
 *             it reaches the far end.
 *
 * grep ' #42 ' gives one packet's life, grep ' drop ' every drop,
 * grep 'rule=fallback' the tcpdump-filter trap.
 */
#ifndef TCSIM_TRACE_H
#define TCSIM_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim.h"

struct trace;

/* Starts tracing on s (before sim_run; devices added later are traced
 * too). Lines go to out (not closed by trace_close). filter_expr: a
 * tcpdump expression (libpcap, DLT_EN10MB) run on each frame as captured,
 * at its arrival; the packets it accepts are traced. NULL or "" traces
 * every packet. 0, or -errno with err: "--trace-filter 'EXPR': <libpcap's
 * message>". One trace per simulation. */
int trace_open(struct trace **t, struct sim *s, FILE *out, const char *filter_expr, char *err,
	       size_t errlen);
/* The same writing to path ("-" = stdout), through a temporary file in
 * the same folder that trace_finish renames into place: a failed run
 * leaves no partial trace. err: "--trace PATH: <strerror>". */
int trace_open_path(struct trace **t, struct sim *s, const char *path, const char *filter_expr,
		    char *err, size_t errlen);
/* After a successful run: flushes, and for trace_open_path renames the
 * file into place. 0, or -errno with err (a write error: disk full).
 * Detaches and frees t, as trace_close does. */
int trace_finish(struct trace *t, char *err, size_t errlen);
/* Detaches the trace from its simulation and frees it; a file of
 * trace_open_path not yet finished is removed. NULL is fine. */
void trace_close(struct trace *t);
/* Packets traced so far. */
uint64_t trace_count(const struct trace *t);

/* A one-line, tcpdump-like summary of an Ethernet frame (VLAN tags, ARP,
 * IPv4, IPv6, TCP, UDP, ICMP, ICMPv6; otherwise the EtherType); no
 * libpcap. vlan_tci >= 0: a tag offloaded out of the frame. */
void trace_frame_summary(char *buf, size_t n, const uint8_t *frame, uint32_t caplen,
			 uint32_t len, int vlan_tci);

#endif
