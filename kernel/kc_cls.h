/* kc_cls.h - kernel-check's filters of kinds other than bpf (kc_cls.c);
 * not a public header. */
#ifndef TCSIM_KC_CLS_H
#define TCSIM_KC_CLS_H

#include <stddef.h>
#include <stdint.h>

struct nl_sock;
struct tcf_chain;
struct tcf_proto;
struct kc_result;

/* Installs tp (of chain, attached at parent) in the kernel: u32 (all the
 * chain's u32 filters when tp is its first, nothing after), flower and
 * basic (each filter); a kind the kernel lacks is said (KCHECK_CANNOT_RUN),
 * other kinds say that kernel-check cannot install them. 0, or -1 with the
 * reason in r. */
int kc_add_cls(struct nl_sock *sk, int ifindex, const struct tcf_chain *chain,
	       const struct tcf_proto *tp, uint32_t parent, struct kc_result *r);

/* The RTM_NEWTFILTER that installs flower filter fi of tp at parent as
 * `tc filter add ... flower ...` would (f_flower.c's attributes for the key
 * tcsim keeps): NULL when out of memory. The unit tests read it back
 * through `tcsim import`. */
struct nl_msg;
struct cls_flower_info;
struct nl_msg *kc_flower_msg(int ifindex, uint32_t parent, const struct tcf_proto *tp,
			     const struct cls_flower_info *fi);
/* The same for basic filter bi of tp: TCA_BASIC_CLASSID and the ematch tree
 * (TCA_BASIC_EMATCHES) as m_ematch.c and em_cmp.c, em_u32.c, em_meta.c pack it. */
struct cls_basic_info;
struct nl_msg *kc_basic_msg(int ifindex, uint32_t parent, const struct tcf_proto *tp,
			    const struct cls_basic_info *bi);

/* The i-th message kernel-check sends for tp, a flower or basic filter;
 * NULL past the last, for other kinds, or when out of memory (the tool
 * tests/tools/kcmsg.c prints them). */
struct nl_msg *kc_cls_msg(int ifindex, uint32_t parent, const struct tcf_proto *tp, size_t i);

#endif
