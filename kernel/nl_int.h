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

#endif
