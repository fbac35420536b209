/* kc_int.h - what kcheck.c (the comparison) and kc_netns.c (the kernel
 * side in its namespace) share; not a public header. How and why: kcheck.h. */
#ifndef TCSIM_KC_INT_H
#define TCSIM_KC_INT_H

#include <linux/if.h>
#include <signal.h>
#include <stdint.h>

#include "kcheck.h"
#include "qdisc.h"

struct dev;

#define KC_MAXCLASSES 64
#define KC_MAXROWS 256
#define KC_MAXKINDS 8
/* The veth's and tcsim's txqueuelen: the limit of default leaves (htb's
 * pfifos) and of htb's direct queue, large enough that a shaper fed faster
 * than in the capture (the replay sends as fast as it can) drops nothing. */
#define KC_TXQLEN 1000000
/* Explicit limits are raised to these in shaping trees, for the same reason. */
#define KC_LIMIT_PKTS 1000000
#define KC_LIMIT_BYTES 2000000000u

/* ---- what the parent decides, read by the child after fork ---- */

struct kc_plan {
	const struct dev *d; /* tcsim's device, after the run */
	char kdev[IFNAMSIZ], kpeer[IFNAMSIZ];
	enum kcheck_mode mode;
	const char *const *caps;
	int ncaps;
	uint64_t limit;
	uint32_t handle; /* the root's */
	/* htb stand-in */
	uint32_t minors[KC_MAXCLASSES];
	int nminors;
	uint32_t defminor;
	/* tree: the kinds it uses */
	char kinds[KC_MAXKINDS][16];
	int nkinds;
	int inner_filters; /* a qdisc other than the root has filters */
	const char *forced_tree; /* why the tree is built whatever the mode (the
				  * root is not prio, a priority was asked for),
				  * or NULL */
	int prio_forward;	  /* skb->priority: kcheck_opts' */
	uint32_t priority;
	const struct kcheck_prio *cap_prio; /* per capture, or NULL */
	const struct mark_rules *marks;     /* skb->mark rules: kcheck_opts' */
	const struct mark_rules *cap_marks; /* per capture, or NULL */
	int shaper;	  /* the tree has htb or tbf: rows are every qdisc and class */
	int show;	  /* the child captures tc -d qdisc/class show after building */
	char raised[1024]; /* the limits raised, as printed */
};

/* ---- what the child reports ---- */

struct kc_row {
	uint32_t classid, parent;
	char kind[16];
	uint64_t packets, bytes, drops, qlen;
};

struct kc_result {
	int status; /* KCHECK_SAME (done), KCHECK_ERROR, KCHECK_CANNOT_RUN */
	char msg[1024];
	int tree;	  /* the scenario's tree was built (else htb) */
	int noqueue;	  /* a noqueue root: q_packets, q_bytes are the veth's tx counters */
	char absent[128]; /* the kinds this kernel lacks */
	uint64_t read, sent, failed, rejected, truncated, sent_bytes;
	uint64_t xmit_drops; /* sent, and dropped by the qdisc at once (ENOBUFS) */
	int fail_errno;	     /* the first send error */
	uint64_t fail_index; /* ... its packet number */
	int fail_cap;	     /* ... and capture */
	uint64_t q_packets, q_bytes, q_drops, q_qlen, direct;
	int have_direct, drained;
	int nrows;
	struct kc_row rows[KC_MAXROWS];
	int nqrows; /* every qdisc of the device */
	struct kc_row qrows[KC_MAXROWS];
	char show[16384]; /* tc -d qdisc show; tc -d class show, in the namespace */
};

/* A qdisc's classes as its walk reports them (kc_collect_class adds one). */
struct kc_classes {
	struct qdisc_class c[KC_MAXROWS];
	int n;
};

/* Defined in kc_tree.c. */
void kc_collect_class(void *arg, const struct qdisc_class *c);

/* The child's failure: the message into r, its status, -1 (kc_netns.c). */
int kc_rfail(struct kc_result *r, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Building the kernel's tree (kc_tree.c), inside the child's namespace:
 * is_absent says a netlink error means "the kernel lacks that kind";
 * probe_kind tries a kind on the link; build_tree makes q and what hangs
 * below it under parent; build_htb makes the htb stand-in of the plan.
 * 0, or -1 with the reason in r. */
struct nl_sock;
struct rtnl_link;
int kc_is_absent(int nlerr);
int kc_probe_kind(struct nl_sock *sk, struct rtnl_link *link, const char *kind,
		  struct kc_result *r);
int kc_build_tree(struct nl_sock *sk, struct rtnl_link *link, const struct qdisc *q,
		  uint32_t parent, struct kc_result *r);
int kc_build_htb(struct nl_sock *sk, struct rtnl_link *link, const struct kc_plan *pl,
		 struct kc_result *r);

/* Forks the child, reads its report. 0, or -1 with the reason in r. */
int kc_run_kernel(const struct kc_plan *pl, struct kc_result *r);

/* The signal that interrupted kc_run_kernel (SIGINT, SIGTERM, SIGHUP), or
 * 0: kernel_check raises it again once everything is freed. */
extern volatile sig_atomic_t kc_signal;

#endif
