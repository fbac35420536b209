/* nl_scen.h - what the two files of `tcsim import`'s writing side share
 * (nl_scenario.c writes the scenario, nl_scen_htb_tbf.c the lines of htb
 * qdiscs, their classes and tbf); not a public header. */
#ifndef TCSIM_NL_SCEN_H
#define TCSIM_NL_SCEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "nl_import.h"

struct nl_writer {
	const struct nl_import_model *m;
	const struct nl_import_opts *o;
	FILE *tc;   /* the tc script's lines */
	FILE *omit; /* one line per omission */
	int nomit;
	char devq[48];	/* the device as a tc word */
	char *done;	/* qdiscs written or listed */
	char *fdone;	/* filters written or listed */
	size_t *order;	/* qdiscs in the order written (tree order) */
	char *cdone;	/* classes written or listed */
	size_t *corder; /* htb classes written, in order */
	size_t ncorder;
	size_t norder;
};

/* nl_scenario.c: something left out, a comment at its place in the tc
 * script and a line of the list. */
void nl_omit(struct nl_writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends to a line being built in buf (n bytes, *k used): cut at n, and
 * nothing more once it is full. */
void nl_addf(char *buf, size_t n, size_t *k, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* nl_scenario.c: the qdisc with handle h (not the ingress one), or NULL. */
const struct nli_qdisc *nl_qdisc_by_handle(const struct nl_import_model *m, uint32_t h);

/* nl_scen_htb_tbf.c: the options of an htb or a tbf qdisc q, appended to
 * its `qdisc add` line in buf (n bytes, *k used) as tc's words. */
void nl_htb_tbf_words(char *buf, size_t n, size_t *k, const struct nl_writer *w,
		      const struct nli_qdisc *q);

/* nl_scen_htb_tbf.c: what those words cannot say for an htb or a tbf
 * (desc names q), each an omission. */
void nl_htb_tbf_notes(struct nl_writer *w, const struct nli_qdisc *q, const char *desc);

/* nl_scen_htb_tbf.c: all of htb q's classes, parents first and siblings
 * by classid, then those whose parent class the dump lacks (listed);
 * `blocked` names a not-written ancestor qdisc (they are then listed). */
void nl_write_htb_classes(struct nl_writer *w, const struct nli_qdisc *q, const char *blocked);

/* nl_scen_aqm_cls.c: the options of a codel, fq_codel or pfifo_head_drop
 * q appended to its `qdisc add` line as tc's words; why such a qdisc (or
 * noqueue) cannot be written at all (NULL: it can); what the words cannot
 * say of a codel or fq_codel, each an omission. */
void nl_aqm_words(char *buf, size_t n, size_t *k, const struct nli_qdisc *q);
const char *nl_aqm_problem(const struct nli_qdisc *q);
void nl_aqm_notes(struct nl_writer *w, const struct nli_qdisc *q, const char *desc);

/* nl_scen_netem.c: a netem q's options appended to its `qdisc add` line
 * as tc 6.1's words, and what they cannot say (desc names q), each an
 * omission (and the kernel's prng seed as a comment). */
void nl_netem_words(char *buf, size_t n, size_t *k, const struct nli_qdisc *q);
void nl_netem_notes(struct nl_writer *w, const struct nli_qdisc *q, const char *desc);

/* nl_scen_aqm_cls.c: the elements v[s..e) of one matchall or fw tcf_proto
 * (tp names it in omissions) as tc lines; with a comment prefix they are
 * only shown (their qdisc is not written). */
void nl_write_mall_fw(struct nl_writer *w, const size_t *v, size_t s, size_t e, uint32_t parent,
		      const char *tp, const char *comment);

/* nl_basic.c: the elements v[s..e) of one basic tcf_proto (tp names it in
 * omissions) as tc lines, oldest first; with a comment prefix they are
 * only shown. */
void nl_write_basic(struct nl_writer *w, const size_t *v, size_t s, size_t e, uint32_t parent,
		    const char *tp, const char *comment);

#endif
