/* nl_import.h - `tcsim import dev DEV [--netns NAME] [--filters-only]`:
 * a device's qdiscs, classes and filters read from the running kernel
 * over rtnetlink (libnl-3, no `tc`), written out as a Lua scenario whose
 * tc lines tcsim runs. What is read and which errors stop it are described
 * at the top of nl_dump.c; the output format and the choices for what
 * tcsim does not model at the top of nl_scenario.c; the exit statuses
 * below (nl_import_main, in cmd/import.c).
 *
 * Three layers, each usable alone (the unit tests feed hand-built
 * messages to the second and read the third's text):
 *   nl_import_dump   - the netlink conversation (link, qdisc, class and
 *                      filter dumps), each answer handed to
 *   nl_import_parse  - one RTM_NEWQDISC / RTM_NEWTCLASS / RTM_NEWTFILTER
 *                      message into the model below (both nl_dump.c; htb
 *                      and tbf options: nl_htb_tbf.c), and
 *   nl_import_write  - the model as scenario text, plus the list of what
 *                      could not be reproduced, one line each (nl_scenario.c;
 *                      htb and tbf buckets: nl_ticks.c). */
#ifndef TCSIM_NL_IMPORT_H
#define TCSIM_NL_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "bpf.h"
#include "nl_cls.h"

struct nlmsghdr;

#define NLI_KINDLEN 32
#define NLI_DEVLEN 16
#define NLI_WHYLEN 192

/* sfq's options as dumped: struct tc_sfq_qopt (v0), and when the kernel
 * sent the longer struct tc_sfq_qopt_v1, its fields too. */
struct nli_sfq {
	uint32_t quantum;
	int32_t perturb; /* seconds */
	uint32_t limit, divisor, flows;
	int v1;
	uint32_t depth, headdrop;
	uint32_t red_limit, qth_min, qth_max, max_p; /* RED (not modelled) */
	uint8_t wlog, plog, scell_log, flags;
};

/* A rate as the kernel keeps it (struct psched_ratecfg, dumped as a
 * struct tc_ratespec plus TCA_*_RATE64 when it needs 64 bits). */
struct nli_rate {
	uint64_t bps; /* bytes per second */
	uint16_t overhead, mpu;
	uint8_t linklayer; /* TC_LINKLAYER_*: 1 ethernet, 2 atm */
};

#define NLI_LINKLAYER_ETHERNET 1
#define NLI_LINKLAYER_ATM 2

/* htb's qdisc options: TCA_HTB_INIT, TCA_HTB_DIRECT_QLEN, TCA_HTB_OFFLOAD. */
struct nli_htb {
	uint32_t r2q, defcls, direct_qlen;
	int has_direct_qlen; /* older kernels do not send it */
	int offload;
};

/* tbf's options: TCA_TBF_PARMS with TCA_TBF_RATE64/PRATE64. The buckets
 * are time, as the kernel stores them: ticks of 64 ns at the bucket's rate. */
struct nli_tbf {
	uint32_t limit;		    /* bytes */
	struct nli_rate rate, peak; /* peak.bps 0: no peakrate */
	uint32_t buffer, mtu;	    /* ticks: the rate's and the peakrate's bucket */
};

/* An htb class: TCA_HTB_PARMS with TCA_HTB_RATE64/CEIL64. */
struct nli_htb_class {
	struct nli_rate rate, ceil;
	uint32_t buffer, cbuffer; /* ticks of 64 ns at rate and at ceil */
	uint32_t quantum, level, prio;
	int offload;
};

/* codel's and fq_codel's options as dumped. The times are microseconds,
 * as the kernel reports them (codel_time_to_us of its 1024-ns ticks); what
 * they rebuild is worked out in nl_aqm.c. */
struct nli_codel {
	uint32_t limit;			 /* packets */
	uint32_t target, interval;	 /* us */
	uint32_t ce_threshold;		 /* us, when has_ce_threshold */
	int has_ce_threshold;		 /* absent: off (CODEL_DISABLED_THRESHOLD) */
	uint32_t ecn;
	/* fq_codel only */
	uint32_t flows, quantum;
	uint32_t memory_limit, drop_batch; /* bytes, packets: 4.13 and later */
	int has_memory_limit, has_drop_batch;
	uint8_t ce_selector, ce_mask;	 /* 5.16 and later, with ce_threshold */
};

/* netem's options as dumped (netem_dump): struct tc_netem_qopt, then the
 * nested attributes. Probabilities and correlations are the kernel's u32
 * scale (UINT32_MAX is 100%); latency and jitter in 64-ns ticks as the
 * qopt has them, and in ns as TCA_NETEM_LATENCY64/JITTER64 (4.15+) do. */
struct nli_netem {
	uint32_t limit, loss, gap, duplicate;
	uint32_t latency, jitter; /* ticks, capped at UINT32_MAX */
	int64_t latency64, jitter64; /* ns */
	int has_latency64, has_jitter64;
	uint32_t delay_corr, loss_corr, dup_corr;
	uint32_t reorder, reorder_corr, corrupt, corrupt_corr;
	uint32_t rate; /* bytes/s; ~0: see rate64 */
	int32_t packet_overhead, cell_overhead;
	uint32_t cell_size;
	uint64_t rate64;
	int has_rate64;
	uint32_t ecn;
	int loss_model;	  /* 0: random (qopt.loss); 1: 4-state (gi); 2: Gilbert-Elliott (ge) */
	uint32_t gi[5];	  /* p13 p31 p32 p14 p23, as struct tc_netem_gimodel */
	uint32_t ge[4];	  /* p r h k1, as struct tc_netem_gemodel */
	int has_slot;
	int64_t slot_min, slot_max, slot_dist_delay, slot_dist_jitter; /* ns */
	int32_t slot_packets, slot_bytes; /* 0: no budget */
	uint64_t seed;	  /* TCA_NETEM_PRNG_SEED (6.3+) */
	int has_seed;
};

struct nli_qdisc {
	char kind[NLI_KINDLEN];
	uint32_t handle, parent;
	int has_options;
	int bands;	     /* prio, pfifo_fast */
	uint8_t priomap[16]; /* prio, pfifo_fast */
	uint32_t limit;	     /* pfifo, pfifo_head_drop (packets), bfifo (bytes) */
	struct nli_codel codel; /* codel, fq_codel */
	struct nli_netem netem;
	struct nli_sfq sfq;
	struct nli_htb htb;
	struct nli_tbf tbf;
	int has_stab; /* a size table: not modelled */
};

struct nli_class {
	char kind[NLI_KINDLEN]; /* the kind of the qdisc it belongs to */
	uint32_t classid, parent, leaf;
	int has_options;
	struct nli_htb_class htb;
};

/* One RTM_NEWTFILTER: the tcf_proto's own line (handle 0, no options) or
 * one of its elements (a bpf program, the matchall filter, an fw filter). */
struct nli_filter {
	char kind[NLI_KINDLEN];
	uint32_t parent; /* the qdisc's handle, or a class */
	uint32_t pref, chain, handle;
	uint16_t protocol; /* host order */
	int has_options;
	uint32_t classid; /* TCA_BPF_/MATCHALL_/FW_CLASSID, 0 when absent */
	struct sock_filter *ops; /* TCA_BPF_OPS (malloc'd), NULL for none */
	uint16_t nops;
	/* bpf: TCA_BPF_FLAGS, TCA_BPF_FLAGS_GEN; matchall: 0, TCA_MATCHALL_FLAGS */
	uint32_t flags, gen_flags;
	uint32_t mask;	  /* fw: TCA_FW_MASK (the tcf_proto's), 0xffffffff when absent */
	int has_mask;	  /* fw: TCA_FW_MASK was sent */
	char why[NLI_WHYLEN];	   /* non-empty: tcsim cannot run this program */
	struct nli_u32 *u32;		   /* u32: its table or node (nl_cls.h), or NULL */
	struct nli_flower *flower; /* flower: its keys, or NULL */
	size_t seq;		   /* its place in the dump */
};

struct nl_import_model {
	char dev[NLI_DEVLEN];
	int ifindex; /* messages of other devices are ignored; 0 = take all */
	int has_link;
	uint32_t mtu, txqueuelen;
	struct nli_qdisc *qdiscs;
	size_t nqdiscs, qcap;
	struct nli_class *classes;
	size_t nclasses, ccap;
	struct nli_filter *filters;
	size_t nfilters, fcap;
};

void nl_import_model_init(struct nl_import_model *m, const char *dev, int ifindex);
void nl_import_model_free(struct nl_import_model *m);

/* One message of a dump. 0: taken into the model; 1: not for us (another
 * device, or not a tc message); -errno with a one-line message in err
 * when it is malformed (truncated attributes, no TCA_KIND, options of the
 * wrong size, TCA_BPF_OPS_LEN that disagrees with TCA_BPF_OPS) or holds an
 * attribute tcsim does not know. */
int nl_import_parse(struct nl_import_model *m, const struct nlmsghdr *nlh, char *err,
		    size_t errlen);

struct nl_import_opts {
	const char *kernel; /* uname's release for the header, or NULL */
	const char *netns;  /* named in the header, or NULL */
	int filters_only;   /* the root's filters under a prio stand-in */
};

/* The scenario (malloc'd, NUL-terminated) and what it leaves out: one
 * line per omission, each ending in '\n' (malloc'd, "" for none). Returns
 * the number of omissions (>= 0), or -errno with a message in err (and
 * nothing allocated). */
int nl_import_write(const struct nl_import_model *m, const struct nl_import_opts *o, char **text,
		    char **omitted, char *err, size_t errlen);

/* The kernel's view of dev, in the network namespace /run/netns/NAME when
 * netns is not NULL: link (ifindex, mtu, txqueuelen), then the qdisc,
 * class and filter dumps. 0 or -errno with a one-line message. */
int nl_import_dump(struct nl_import_model *m, const char *dev, const char *netns, char *err,
		   size_t errlen);

#endif
