/* tc_unit.h - what the CUnit suites of tc-configured kinds share: a
 * simulation made with a BPF kernel mode, a tc script run into a string,
 * and the two checks every classifier suite makes (this output; this
 * refusal, one line naming t.tc:1, leaving `tc filter show` as it was). */
#ifndef TCSIM_TC_UNIT_H
#define TCSIM_TC_UNIT_H

#include <stddef.h>
#include <stdint.h>

#include "cls.h"
#include "sim.h"

/* s made with the default configuration and BPF kernel mode k (CUnit
 * fatal assert on failure). */
void tcu_sim_new(struct sim *s, enum bpf_kernel k);
/* s made with the default configuration, its default kernel mode */
void tcu_sim_default(struct sim *s);
/* Runs a script named "t.tc" (files relative to dir, NULL for none); its
 * show output (malloc'd), result through ret and message through err. */
char *tcu_run(struct sim *s, const char *script, const char *dir, int *ret, char *err,
	      size_t errlen);
/* The script succeeds and prints exactly want. */
void tcu_expect_output(struct sim *s, const char *script, const char *want);
/* One line fails with code and a one-line message naming t.tc:1 and
 * holding m1 (and m2, unless NULL); `tc filter show dev eth0` is then
 * still `before`, unless that is NULL. */
void tcu_expect_refusal(struct sim *s, const char *line, int code, const char *m1, const char *m2,
			const char *before);

/* The root qdisc's filter chain of device eth0 on a 64-byte zero frame
 * with this mark and protocol: the classid (res->classid), or -1 when
 * nothing matched. */
long tcu_classify_mark(struct sim *s, uint32_t mark, uint16_t proto, struct tcf_result *res);

#endif
