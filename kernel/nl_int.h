/* nl_int.h - what the two halves of `tcsim import` (nl_dump.c reads the
 * kernel, nl_scenario.c writes the scenario) share; not a public header. */
#ifndef TCSIM_NL_INT_H
#define TCSIM_NL_INT_H

#include <stddef.h>
#include <stdint.h>

/* The kernel's ABI, spelled out (nl_dump.c says why). */
#define NLI_H_INGRESS 0xfffffff1u /* TC_H_INGRESS, also clsact's parent */
#define CLS_FLAGS_SKIP_HW 0x1u	  /* TCA_CLS_FLAGS_*: a filter's gen_flags */
#define CLS_FLAGS_SKIP_SW 0x2u
#define CLS_FLAGS_IN_HW 0x4u
#define CLS_FLAGS_NOT_IN_HW 0x8u
#define CLS_FLAGS_VERBOSE 0x10u

/* Defined in nl_dump.c. A one-line message into err (when there is one);
 * returns code. */
int nl_failf(char *err, size_t errlen, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* tc's spelling of a classid, of a qdisc handle ("1:"), and of where a
 * qdisc hangs ("root", "parent 1:2"), each into buf and returned. */
const char *nl_classid(char *buf, size_t n, uint32_t h);
const char *nl_qhandle(char *buf, size_t n, uint32_t h);
const char *nl_where_str(char *buf, size_t n, uint32_t parent);

int nl_is_kind(const char *k, const char *a);

struct nlattr;
struct nlmsghdr;
struct nli_qdisc;
struct nli_class;
struct nli_rate;

/* Attributes laid end to end in len bytes: 1 when every one is whole. */
int nl_attrs_whole(const struct nlattr *head, int len);

/* nl_htb_tbf.c: the options of an htb qdisc, an htb class and a tbf (o:
 * the message's TCA_OPTIONS, NULL when absent) into the model, read with
 * libnl-route's rtnl_htb_* / rtnl_qdisc_tbf_* getters where they are
 * exact. wh names the object in messages. 0 or -errno with one line. */
int nl_htb_qdisc_parse(struct nli_qdisc *q, const struct nlmsghdr *nlh, struct nlattr *o,
		       const char *wh, char *err, size_t errlen);
int nl_htb_class_parse(struct nli_class *c, const struct nlmsghdr *nlh, struct nlattr *o,
		       const char *wh, char *err, size_t errlen);
int nl_tbf_parse(struct nli_qdisc *q, const struct nlmsghdr *nlh, struct nlattr *o, const char *wh,
		 char *err, size_t errlen);

/* nl_aqm.c: the options of a codel and an fq_codel qdisc (fq_codel's
 * through libnl-route's rtnl_qdisc_fq_codel_get_* where libnl 3.7 has
 * them), and a time the kernel dumped as codel microseconds as the tc word
 * that gives the kernel's ticks back. */
int nl_codel_parse(struct nli_qdisc *q, struct nlattr *o, const char *wh, char *err,
		   size_t errlen);
int nl_fq_codel_parse(struct nli_qdisc *q, const struct nlmsghdr *nlh, struct nlattr *o,
		      const char *wh, char *err, size_t errlen);
struct rtnl_qdisc;
int nl_libnl_qdisc(const struct nlmsghdr *nlh, const char *wh, struct rtnl_qdisc **out, char *err,
		   size_t errlen);
/* The word ("5ms", "4999us") for a dumped value us: 1 when tc's word gives
 * the ticks (us * 1000 >> 10) the dump came from, 0 when no tick count
 * dumps as us (a message no kernel sends; the word is then us itself). */
int nl_codel_time_word(char *buf, size_t n, uint32_t us);

/* nl_netem.c: a netem qdisc's options into the model (libnl-route's
 * rtnl_netem_get_* where it has them), and tc 6.1's words for what it
 * dumps: a delay of so many 64-ns ticks (1: the word gives those ticks
 * back; 0: no word does, the nearest is written), a probability of the
 * u32 scale (1: exact), a time in ns (slot). */
int nl_netem_parse(struct nli_qdisc *q, const struct nlmsghdr *nlh, struct nlattr *o,
		   const char *wh, char *err, size_t errlen);
int nl_netem_ticks_word(char *buf, size_t n, uint32_t ticks);
int nl_netem_percent_word(char *buf, size_t n, uint32_t v);
const char *nl_ns_word(char *buf, size_t n, int64_t ns);

/* nl_mall_fw.c: a matchall or fw filter's TCA_OPTIONS (opts) into f, and
 * the reasons tcsim could not rebuild it in f->why. */
struct nli_filter;
int nl_matchall_parse(struct nli_filter *f, struct nlattr *opts, const char *wh, char *err,
		      size_t errlen);
int nl_fw_parse(struct nli_filter *f, struct nlattr *opts, const char *wh, char *err,
		size_t errlen);
/* nl_dump.c: a reason more (after "; ") in f->why. */
void nl_why_add(struct nli_filter *f, const char *text);

/* nl_ticks.c: bucket sizes. The kernel keeps htb's and tbf's buckets as
 * time (dumped in ticks of 64 ns); tc's words give bytes. */

/* The ticks iproute2 makes of `burst BYTES` for an htb class at rate
 * (bytes/s): before 6.15, microseconds then ticks, each truncated
 * (tc_calc_xmittime); from 6.15 one rounding up. */
uint32_t nl_tc_ticks_trunc(uint64_t rate, uint32_t bytes);
uint32_t nl_tc_ticks_ceil(uint64_t rate, uint32_t bytes);
/* The ticks the kernel makes of tbf's TCA_TBF_BURST/PBURST bytes at r
 * (psched_l2t_ns: overhead, mpu and ATM cells included, then >> 6). */
uint32_t nl_kernel_ticks(const struct nli_rate *r, uint32_t bytes);

/* A byte count whose ticks are `ticks`. htb: by tc's arithmetic, one both
 * iproute2 roundings agree on when there is one, the roundest of several
 * (a multiple of 1 MiB, 1 KiB, 1000, 100, 10); tbf: by the kernel's, the
 * largest (tbf drops packets above it: nl_ticks.c says why). 1: *bytes is
 * exact; 0: no byte count gives these ticks and *bytes is the nearest. */
int nl_htb_burst(uint64_t rate, uint32_t ticks, uint32_t *bytes);
int nl_tbf_burst(const struct nli_rate *r, uint32_t ticks, uint32_t *bytes);

/* tc's words for a size ("15kb", "1mb", "1600") and a rate in bits
 * ("100mbit", "3500kbit", "12345bit"), both read back exactly. */
const char *nl_size_word(char *buf, size_t n, uint32_t bytes);
const char *nl_rate_word(char *buf, size_t n, uint64_t bps);

#endif
