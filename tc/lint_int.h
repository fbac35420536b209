/* lint_int.h - what lint.c shares with the checks of one kind in their own
 * file (lint_htb.c): the warning list and the words warnings use. */
#ifndef TCSIM_LINT_INT_H
#define TCSIM_LINT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "qdisc.h"

struct warning {
	char *file;
	long line;
	size_t seq;
	char *text;
};

struct lint {
	struct warning *w;
	size_t n, cap;
	int oom;
	const char *dev;   /* the device being linted */
	uint64_t dev_rate; /* its line rate, bits per second (0: unlimited) */
};

/* One warning at where ("file:line", or NULL), sorted by line at the end. */
void lint_warn(struct lint *l, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A rate in tc's words ("1Mbit"), a classid as tc writes it ("1:10"). */
void lint_fmt_bits(char *buf, size_t n, uint64_t bps);
void lint_name_classid(char *buf, size_t n, uint32_t classid);

/* The qdisc's own `tc qdisc show` options (details: as tc -d), malloc'd;
 * NULL when out of memory (l->oom is then set). Checks read options back
 * from it, as a user reads them. */
char *lint_qdisc_text(struct lint *l, const struct qdisc *q, int details);
/* The word that stands skip words after the first key in text, into out
 * (cut at n); "" when there is none. */
void lint_word_after(const char *text, const char *key, int skip, char *out, size_t n);

/* Checks 8 to 12 on one htb qdisc (lint_htb.c). */
void lint_check_htb(struct lint *l, struct qdisc *q);
/* Checks 13 and 14 on one codel or fq_codel (lint_aqm.c). */
void lint_check_aqm(struct lint *l, const struct qdisc *q);
/* Check 20 on one netem (lint_netem.c): rate_bps, the device's line rate. */
void lint_check_netem(struct lint *l, const struct qdisc *q, uint64_t rate_bps);
/* Check 19 over the traffic in (lint_vlan.c): 0, or -EIO with err. */
struct sim;
struct lint_input;
int lint_check_vlan(struct lint *l, const struct sim *s, const struct lint_input *in, int nin,
		    char *err, size_t errlen);

#endif
