/* kcheck.h - `tcsim kernel-check`: the same tc configuration and the same
 * captures through tcsim and through the running kernel, side by side.
 *
 * tcsim runs the tc script and the captures as `tcsim run --vlan inline
 * --priority P` would (802.1Q tags stay in the frame data; P is 0 unless
 * kcheck_opts says otherwise, as for frames sent from a packet socket, and
 * the kernel's socket is given the same P per frame with SO_PRIORITY), on
 * an infinitely fast device (nothing queues, nothing is dropped).
 *
 * The kernel side lives in a child process that unshare()s a private
 * network namespace: IPv6 off (before any link exists), one veth pair named
 * after the tc file's device (MTU 65535, txqueuelen 1000, NOARP, no
 * multicast, up, no addresses: the kernel sends nothing of its own there,
 * and every run checks that the root qdisc counted exactly the frames sent).
 * Qdiscs and classes are made with libnl-route, the bpf filters with raw
 * RTM_NEWTFILTER messages (kind "bpf", TCA_BPF_OPS_LEN/OPS/CLASSID) with
 * tcsim's own pref, handle, protocol and parent, oldest program first, so
 * the kernel's lists are in tcsim's order. The child sends every frame of
 * every capture, capture after capture, in file order, from an AF_PACKET
 * SOCK_RAW socket (protocol 0, bound to the veth: skb->protocol is the
 * frame's EtherType, as with tcpreplay), waits until the qdisc is empty,
 * reads the counters back (RTM_GETTCLASS / RTM_GETQDISC dumps, TCA_STATS2)
 * and reports them to the parent over a pipe. The namespace belongs to that
 * child alone (no bind mount, no name): when it exits or is killed, the
 * kernel frees it. The child dies with its parent (PR_SET_PDEATHSIG), and
 * SIGINT/SIGTERM during kernel_check() kill it before the signal is raised
 * again with the caller's own disposition. Nothing leaks.
 *
 * Two ways to build the kernel side (shaping trees: README, "Limits"):
 *   tree: the scenario's own qdisc tree (prio, sfq, htb, tbf, pfifo, bfifo,
 *     pfifo_head_drop, codel, fq_codel, noqueue; bpf, matchall and fw
 *     filters on any qdisc and htb class; a noqueue root, which keeps no
 *     counters, compared by the veth's tx counters; htb and tbf sent as tc sends them,
 *     with tcsim's parameters, and every limit below them raised on both
 *     sides so no queue drops), when the kernel has every kind it uses (a probe adds
 *     each; ENOENT/EOPNOTSUPP = absent). The table compares each class of
 *     the root (prio's bands): packets and bytes sent, drops. sfq's depth
 *     and divisor are left at the kernel's defaults (libnl cannot set them;
 *     they change no count without drops).
 *   htb: the counting stand-in of tests/kernel/kernel_classify_diff.sh,
 *     when a kind is absent (this project's kernels have htb, cls_bpf and
 *     veth but neither sch_prio nor sch_sfq) or when asked for: an htb root
 *     with the prio root's handle, a class MAJOR:m at 10 Gbit/s over a
 *     pfifo of 100000 packets for every band m (1..bands), every flowid of
 *     MAJOR and every classid of MAJOR tcsim's filters returned, and a
 *     default class (MAJOR:99, or the first free minor above). Only the
 *     root prio's filters can be checked this way. htb_classify() folds
 *     classids (verified on Linux 6.18 by kernel_classify_diff.sh):
 *       MAJOR:m of an existing class    -> that class
 *       MAJOR:0, the root's own handle  -> htb's direct queue (row
 *                                          "MAJOR: (direct)", the qdisc's
 *                                          direct_packets_stat)
 *       anything else -> the default class: no match ("unclassified"),
 *         a minor without a class, another major (4: = tcpdump's 262144,
 *         ffff:1), major 0 (flowid :1, return value 2), classid 0 (ret -1
 *         without flowid)
 *     and tcsim's per-verdict counts are folded the same way (the table's
 *     last column names what tcsim folded into a row). prio would instead
 *     send minor 0 or a minor beyond the bands to priomap[0]; the stand-in
 *     compares the classification, not the bands.
 *
 * Known differences (shown, counted as DIFF, explained in a note):
 *   - snaplen-truncated frames (caplen < len): the kernel receives only the
 *     captured bytes, so its skb->len and byte counts are the caplen where
 *     tcsim keeps the wire length; filters reading `len` or bytes past the
 *     caplen may decide differently (tests/data/kdiff/known_differences.txt,
 *     "len").
 *   - 802.3 frames (type/length < 0x600): a packet socket leaves
 *     skb->protocol = the length field, tcsim models eth_type_trans()'s
 *     ETH_P_802_2/ETH_P_802_3, so `protocol 802_2`, `802_3` and `ld #proto`
 *     differ for them (known_differences.txt, "llc").
 *   - `ld #rand` draws from different generators.
 *   - frames tcsim rejects (shorter than an Ethernet header, or that cannot
 *     be given one) are not sent: a packet socket cannot send them either.
 *   - several captures: tcsim merges them by time, the kernel gets them one
 *     after the other; counts do not depend on the order.
 *   - a frame longer than 65535 + 14 bytes cannot be sent into a veth: it
 *     is counted as "not sent" and makes the run differ.
 */
#ifndef TCSIM_KCHECK_H
#define TCSIM_KCHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mark.h"

/* kernel_check's results (kcheck_main exits with the first three, and with
 * 2 for KCHECK_CANNOT_RUN too). */
#define KCHECK_SAME 0       /* every row equal */
#define KCHECK_DIFF 1       /* some row differs (DIFF lines printed) */
#define KCHECK_ERROR 2      /* bad input or a failure on the way; err says */
#define KCHECK_CANNOT_RUN 3 /* not here: not root, no veth, no htb, no cls_bpf; err says why */

enum kcheck_mode {
	KCHECK_AUTO = 0, /* the scenario's tree if the kernel has its kinds, else htb */
	KCHECK_HTB,      /* always the htb stand-in */
	KCHECK_TREE,     /* always the scenario's tree (CANNOT_RUN if a kind is absent) */
};

struct kcheck_opts {
	enum kcheck_mode mode;
	uint64_t limit;  /* at most this many packets per capture (rejected ones too); 0 = all */
	uint64_t seed;   /* tcsim's seed (#rand, sfq); 0 = 1 */
	int verbose;     /* also print the kernel's raw class list */
	/* skb->priority of every frame, on both sides: zeroed = fixed 0, what a
	 * packet socket gives by default. prio_forward: frame_forward_priority()
	 * of each frame (a router's rt_tos2priority), set on the kernel's socket
	 * with SO_PRIORITY; else priority, fixed. A fixed one whose major is the
	 * root's handle names a class, which prio and the htb stand-in take
	 * differently: it needs the tree mode. */
	int prio_forward;
	uint32_t priority;
	/* or per capture: ncaptures entries, each as the pair above (NULL: every
	 * capture as prio_forward / priority say) */
	const struct kcheck_prio {
		int forward;
		uint32_t priority;
	} *cap_prio;
	/* skb->mark of every frame, on both sides, as `tcsim run --mark` gives it:
	 * the first rule whose tcpdump expression selects the frame (as captured,
	 * 802.1Q tags inline) gives its mark, none 0. The kernel's socket is given
	 * the same mark per frame with SO_MARK (packet_snd copies sk_mark to
	 * skb->mark). cap_marks: per capture (NULL: marks for every capture). */
	struct mark_rules marks;
	const struct mark_rules *cap_marks;
};

/* The library entry: tc_text is a tc script (as tc_run_script takes it),
 * tc_name names it in messages, basedir is where its relative file names
 * start (NULL: the working directory), devname the device the captures
 * enter (NULL: the first the script names). Prints the table to out.
 * Returns KCHECK_*; err holds a one-line reason for ERROR / CANNOT_RUN.
 * While it runs, SIGINT and SIGTERM kill the namespace's process; the
 * signal is then raised again under the caller's own handler. */
int kernel_check(const char *tc_text, const char *tc_name, const char *basedir,
		 const char *devname, const char *const *captures, int ncaptures,
		 const struct kcheck_opts *o, FILE *out, char *err, size_t errlen);

#endif
