/* cls.h - the filter chain of a qdisc (the kernel's tcf_chain/tcf_proto of
 * net/sched/cls_api.c) and the classifier kinds behind it. One classifier
 * kind per file, each with one ops table (cls_bpf.c). */
#ifndef TCSIM_CLS_H
#define TCSIM_CLS_H

#include <stddef.h>
#include <stdint.h>

#include "bpf.h"
#include "pkt.h"
#include "tcprint.h"

#define TC_H_MAJ(h) ((h)&0xffff0000u)
#define TC_H_MIN(h) ((h)&0x0000ffffu)
#define TC_H_MAKE(maj, min) (((maj)&0xffff0000u) | ((min)&0x0000ffffu))
#define TC_H_ROOT 0xffffffffu
#define TC_H_UNSPEC 0u

#define ETH_P_ALL 0x0003

/* What a classifier hands back on a match (struct tcf_result). */
struct tcf_result {
	uint32_t classid;
	uint32_t pref;   /* the matching filter's pref */
	uint32_t handle; /* and program handle */
	uint32_t ret;    /* the program's return value */
};

struct tcf_proto;
struct tcf_chain;

/* Tracing (report/trace.h): one record per filter program consulted for a
 * traced packet, handed to tcf_tracer.filter in the order the chain runs
 * them. A tcf_proto whose protocol does not match gives one record with
 * skipped set and no program. */
struct tcf_trace {
	uint32_t pref;
	uint16_t protocol; /* the tcf_proto's, host order (ETH_P_ALL = any) */
	const char *kind;  /* "bpf" */
	int skipped;       /* protocol mismatch: none of its programs ran */
	int has_handle;
	uint32_t handle;
	uint32_t ret;      /* what the program returned (bpf) */
	int match;         /* this program decided the packet's classid */
	uint32_t classid;  /* on a match: the classid it gave */
	int has_flowid;    /* the program's configured flowid */
	uint32_t flowid;
	const char *origin; /* where the program came from, or NULL */
	/* kinds other than bpf: why it matched or not, in words (fw: "mark
	 * 0x307 & 0xff = 0x7 is this filter's handle"); "" for bpf, whose
	 * return value says it */
	char why[128];
	const char *detail; /* the kind's own account of this record (u32: which key
			     * decided and why), or NULL; valid during the call */
};
struct tcf_tracer {
	void (*filter)(void *arg, const struct tcf_trace *ft);
	void *arg;
	bpf_tracer insn; /* non-NULL: every instruction of every program run */
	void *insn_arg;
};

/* A request to add/change/delete a filter, as tc's command line makes it
 * (RTM_NEWTFILTER / RTM_DELTFILTER). The kind's options are still words:
 * each kind parses its own, as iproute2's f_*.c do. */
struct tcf_request {
	uint32_t pref;     /* 0 = automatic */
	uint16_t protocol; /* host order; 0 = any existing (change/del) */
	uint32_t handle;   /* 0 = automatic */
	int create;        /* NLM_F_CREATE */
	int excl;          /* NLM_F_EXCL (add) */
	const char *kind;  /* "bpf"; NULL for del */
	int argc;          /* the kind's words */
	char **argv;
	const char *where; /* "file:line" for messages */
	const char *basedir; /* relative bytecode-file paths start here */
	const char *handle_word; /* the `handle` word as typed (fw: M/MASK), or NULL */
};

/* The kernel version whose rules apply to the chain. */
struct tcf_env {
	enum bpf_kernel kernel;
	uint32_t ifindex;
	uint32_t qdisc; /* the handle of the qdisc whose block holds the chain (fw) */
	/* The qdisc's slot for what its u32 filters share (the kernel's
	 * tc_u_common: hash tables one filter makes, another links to);
	 * NULL: each u32 filter keeps its own. */
	void **u32_node;
};

/* Where a filter dump goes (tc_show.c): for each program, begin() prints
 * the tcf_proto's header (text: "filter parent 1: protocol all pref 1 bpf
 * chain 0 "; JSON: a new object with those members and an open "options"
 * object), the kind prints the program through p, one pr_* call per field
 * with iproute2 6.1's key and text (tc/f_KIND.c), and end() finishes it. */
struct tcf_dump {
	struct tcprint *p;
	void (*begin)(struct tcf_dump *d);
	void (*end)(struct tcf_dump *d);
	void *arg;
};
/* One program whose options a kind prints as one text: text only, JSON
 * gets an empty "options" (the kinds not converted yet). */
void tcf_dump_text(struct tcf_dump *d, const char *text);

struct tcf_proto_ops {
	const char *kind;
	/* Creates or changes the program `handle` of tp from the request. */
	int (*change)(struct tcf_proto *tp, const struct tcf_request *req,
		      const struct tcf_env *env, char *err, size_t errlen);
	/* Removes one program; 1 if tp became empty. */
	int (*delete)(struct tcf_proto *tp, uint32_t handle, char *err, size_t errlen);
	/* >= 0 on a match (the TC_ACT code), -1 otherwise. */
	int (*classify)(const struct tcf_proto *tp, const struct bpf_skb *skb,
			struct tcf_result *res);
	void (*destroy)(struct tcf_proto *tp);
	/* tc filter show: one line per program (after the tcf_proto's header
	 * line), each starting after "filter parent ... pref N <kind> chain 0 ",
	 * and tc -j filter show's "options" (struct tcf_dump) */
	void (*dump)(const struct tcf_proto *tp, struct tcf_dump *d);
	/* Number of programs, and the handle of the i-th (0, or -1 past the end). */
	size_t (*count)(const struct tcf_proto *tp);
	int (*handle_at)(const struct tcf_proto *tp, size_t i, uint32_t *handle);
	/* classify, reporting each program through tr (ft: pref, protocol and
	 * kind filled in); NULL: tcf_classify_traced reports classify's result */
	int (*classify_traced)(const struct tcf_proto *tp, const struct bpf_skb *skb,
			       struct tcf_result *res, const struct tcf_tracer *tr,
			       struct tcf_trace *ft);
	/* Optional. tc's handle word for this kind (its f_KIND.c parse_fopt):
	 * 0, or -EINVAL with the message tc prints; NULL: a base-0 u32. */
	int (*get_handle)(const char *word, uint32_t *handle, char *err, size_t errlen);
	/* Optional. `tc -s filter show`: as dump, with the kind's statistics. */
	void (*dump_stats)(const struct tcf_proto *tp, struct tcf_dump *d);
	/* Optional. 1: the kernel's walk of tp stops the dump (fw without
	 * filters), so `tc filter show` ends after its header line, failing. */
	int (*dump_stops)(const struct tcf_proto *tp);
};

struct tcf_proto {
	struct tcf_proto *next;
	uint32_t prio;     /* pref << 16 */
	uint16_t protocol; /* host order, ETH_P_ALL = any */
	const struct tcf_proto_ops *ops;
	void *priv;
	uint64_t hits; /* packets this tcf_proto matched */
	int auto_pref;  /* its pref was automatic (tcf_auto_prio), for tcsim lint */
	char where[160]; /* "file:line" of the command that made it, for tcsim lint */
};

struct tcf_chain {
	struct tcf_proto *head;
	enum bpf_kernel kernel;
};

/* Applies a filter request to the chain with the kernel's rules
 * (tc_new_tfilter / tcf_auto_prio). Errors as negative errno + message. */
int tcf_chain_change(struct tcf_chain *chain, const struct tcf_request *req,
		     const struct tcf_env *env, char *err, size_t errlen);
int tcf_chain_delete(struct tcf_chain *chain, const struct tcf_request *req,
		     char *err, size_t errlen);
void tcf_chain_flush(struct tcf_chain *chain);

/* The classification walk (__tcf_classify): >= 0 and *res on the first
 * match in ascending pref among tcf_protos whose protocol matches, -1 when
 * none does. `proto` is the packet's protocol as tc_skb_protocol sees it. */
int tcf_classify(const struct tcf_chain *chain, const struct bpf_skb *skb, uint16_t proto,
		 struct tcf_result *res);
/* The same walk for a traced packet (slow path): every filter consulted is
 * reported to tr, programs may run under tr->insn. Same result. */
int tcf_classify_traced(const struct tcf_chain *chain, const struct bpf_skb *skb, uint16_t proto,
			struct tcf_result *res, const struct tcf_tracer *tr);

const struct tcf_proto_ops *tcf_ops_find(const char *kind);
/* The kinds a tc line can name, in registry order: "bpf, ...". */
void tcf_kind_names(char *buf, size_t n);
extern const struct tcf_proto_ops cls_bpf_ops;
extern const struct tcf_proto_ops cls_flower_ops;
extern const struct tcf_proto_ops cls_u32_ops;

/* One element of a u32 filter as u32_dump reports it, for kernel-check to
 * build the kernel's messages from (cls_u32_elem_at, read-only, in
 * u32_walk's order: the tables made at the filter's pref, newest first,
 * each followed by its nodes bucket by bucket). Host order throughout. */
struct cls_u32_elem_key {
	uint32_t val, mask;
	int32_t off, offmask;
};
struct cls_u32_elem {
	uint32_t handle;
	int is_table;
	int is_root;	      /* the table the tcf_proto made (no tc word names its id) */
	unsigned int divisor; /* tables: buckets */
	uint32_t classid;     /* nodes: 0 for none */
	uint32_t link;	      /* the table it links to, 0 for none */
	uint32_t flags;	      /* TCA_CLS_FLAGS_SKIP_HW */
	uint32_t mark_val, mark_mask;
	uint8_t sflags, offshift; /* struct tc_u32_sel */
	uint16_t offmask, off;
	int16_t offoff, hoff;
	uint32_t hmask;
	unsigned int nkeys;
	struct cls_u32_elem_key keys[128];
};
int cls_u32_elem_at(const struct tcf_proto *tp, size_t i, struct cls_u32_elem *e);

/* One program of a bpf filter, as cls_bpf_prog_at (cls_bpf.c) reports it. */
struct cls_bpf_info {
	uint32_t handle;
	uint32_t classid; /* the flowid, if has_classid */
	int has_classid;
	const struct sock_filter *insns;
	uint32_t len;
	const char *where; /* "file:line" of the tc command that added it, or NULL */
};
int cls_bpf_prog_at(const struct tcf_proto *tp, size_t i, struct cls_bpf_info *info);

/* One node of a u32 filter, as cls_u32_node_at (cls_u32.c) reports it
 * for tcsim lint: its handle and classid (0: none), whether it sits in the
 * filter's root table, links on, and where each key reads (nexthdr: from
 * the offset a link computed, else from the network header). */
#define CLS_U32_INFO_KEYS 128
struct cls_u32_info {
	uint32_t handle, classid;
	int in_root, links;
	const char *where; /* "file:line" of the tc command, or NULL */
	uint32_t nkeys;
	int32_t off[CLS_U32_INFO_KEYS];
	uint32_t val[CLS_U32_INFO_KEYS], mask[CLS_U32_INFO_KEYS]; /* host order */
	uint8_t nexthdr[CLS_U32_INFO_KEYS];
};
int cls_u32_node_at(const struct tcf_proto *tp, size_t i, struct cls_u32_info *info);

/* The matchall filter and the fw filters of a tcf_proto, as kernel-check
 * (kernel/kc_tree.c) sends them to the kernel: matchall's one filter (-1:
 * tp holds none); fw's table (has_table 0: no filter was ever added, the
 * old method classifies: 1 for i 0) and its i-th filter (0; -1 past the
 * last), in the order fw_dump lists them. */
struct cls_mall_info {
	uint32_t handle, classid, flags; /* flags: TCA_CLS_FLAGS_* as the kernel keeps them */
};
int cls_mall_get(const struct tcf_proto *tp, struct cls_mall_info *info);
struct cls_fw_info {
	int has_table;
	uint32_t mask;
	uint32_t handle, classid; /* of filter i */
};
int cls_fw_at(const struct tcf_proto *tp, size_t i, struct cls_fw_info *info);

/* A flower filter's key and mask as fl_set_key keeps them (struct
 * fl_flow_key, the fields tcsim models; host order except the addresses,
 * which are in network order), for kernel-check to send the attributes
 * that make the same key in the kernel (cls_flower_at, cls_flower.c: the
 * masks in the order they are tried, each with its filters in creation
 * order; -1 past the last). */
struct cls_flower_key {
	uint8_t dst_mac[6], src_mac[6];
	uint16_t n_proto;
	uint8_t ip_proto;
	uint8_t addr_type; /* 4 or 6 (mask 0xff) when an address is matched */
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
	uint16_t sport_min, sport_max, dport_min, dport_max; /* tp_range */
	uint8_t tos, ttl;
	uint16_t tcp_flags;
	uint8_t icmp_type, icmp_code;
	uint8_t vlan_prio;
	uint16_t vlan_id, vlan_tpid, vlan_eth_type;
};
struct cls_flower_info {
	uint32_t handle, classid, flags; /* flags: TCA_CLS_FLAGS_SKIP_HW */
	int vlan_ethtype;		  /* the request named vlan_ethtype */
	struct cls_flower_key key, mask;
};
int cls_flower_at(const struct tcf_proto *tp, size_t i, struct cls_flower_info *info);

/* A basic filter as cls_basic_at (cls_basic.c) reports it for kernel-check
 * and as `tcsim import` reads it back: its ematch tree flattened as the
 * kernel keeps it (struct tcf_ematch_tree: a sequence, then the sequences
 * of its containers), with the kernel's numbers. i counts the filters in
 * the order they were made (-1 past the last). */
#define CLS_BASIC_MAX_EM 256
#define CLS_EM_CONTAINER 0 /* TCF_EM_* */
#define CLS_EM_CMP 1
#define CLS_EM_U32 3
#define CLS_EM_META 4
#define CLS_META_VALUE 0     /* TCF_META_ID_* */
#define CLS_META_PRIORITY 6
#define CLS_META_NFMARK 12
struct cls_basic_em {
	uint16_t kind;	     /* CLS_EM_* */
	uint8_t invert, rel; /* rel: TCF_EM_REL_END 0, _AND 1, _OR 2 */
	uint32_t ref;	     /* container: the index of its sequence's first match */
	/* cmp: struct tcf_em_cmp (align 1, 2 or 4; layer 0..2; opnd eq 0, gt 1, lt 2) */
	uint32_t cmp_val, cmp_mask;
	uint16_t cmp_off;
	uint8_t cmp_align, cmp_layer, cmp_opnd, cmp_trans;
	/* u32: struct tc_u32_key, host order */
	uint32_t u32_val, u32_mask;
	int32_t u32_off, u32_offmask;
	/* meta: each side (0 left, 1 right) an id (CLS_META_*) with its shift
	 * and mask, or a value (CLS_META_VALUE); op as cmp's opnd */
	uint16_t meta_id[2];
	uint8_t meta_shift[2], meta_op;
	uint32_t meta_val[2];
};
struct cls_basic_info {
	uint32_t handle, classid;
	int has_classid;
	unsigned n; /* matches in em (0: no tree, every packet matches) */
	struct cls_basic_em em[CLS_BASIC_MAX_EM];
};
extern const struct tcf_proto_ops cls_basic_ops;
int cls_basic_at(const struct tcf_proto *tp, size_t i, struct cls_basic_info *info);

/* tc's classid words: "1:2", ":2", "1:", "root", "none", bare hex. */
int tc_get_classid(uint32_t *out, const char *s);
/* As tc prints one: root, none, ":%x", "%x:", "%x:%x". */
void tc_print_classid(char *buf, size_t n, uint32_t h);
/* EtherType names as tc takes them (ll_proto_a2n): all ip ipv6 arp 802.1Q
 * 802.1ad ... or a number. */
int tc_get_protocol(uint16_t *out, const char *s);
/* ll_proto_n2a: a known EtherType by name, any other in decimal, "[4660]". */
void tc_print_protocol(char *buf, size_t n, uint16_t proto);
/* tc's keyword prefix match: arg is a non-empty prefix of keyword. */
int tc_matches(const char *arg, const char *keyword);


/* The view a BPF program gets of packet p leaving device ifindex. */
void pkt_bpf_skb(const struct pkt *p, uint32_t ifindex, struct bpf_skb *skb);

#endif
