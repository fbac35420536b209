/* tc_int.h - what tc.c, tc_qdisc.c, tc_class.c and tc_filter.c share: the
 * command being run, its one-line messages and its device. Private to tc/. */
#ifndef TCSIM_TC_INT_H
#define TCSIM_TC_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tc.h"

/* One tc command being run (tc_exec): the simulation it changes, "where"
 * for its messages, where its relative file names start, where show
 * commands print, and the global options -s and -d. */
struct tc_cmd {
	struct sim *s;
	const char *where;
	const char *basedir;
	FILE *out;
	char *err;
	size_t errlen;
	int stats, details;
	int json, pretty; /* -j, -p: show commands print iproute2 6.1's JSON */
};

/* ---- messages (tc.c): each writes "where: ..." to c->err, returns code ---- */

/* A refusal in tc's own words. */
int tc_fail(struct tc_cmd *c, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A refusal by the kernel: "RTNETLINK answers: <errno text> (<extack>: <what
 * fmt says>)"; fmt may be NULL. */
int tc_kfail(struct tc_cmd *c, int code, const char *extack, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A message from a layer below, which may already start with "where: ". */
int tc_pass_on(struct tc_cmd *c, int code, const char *msg);
/* tc's refusals of a command line: a keyword without its value, a keyword
 * given twice, a value tc cannot parse. */
int tc_incomplete(struct tc_cmd *c);
int tc_duparg(struct tc_cmd *c, const char *key, const char *arg);
int tc_invarg(struct tc_cmd *c, const char *msg, const char *arg);
/* What tc and Linux have and tcsim does not model: a word, and a qdisc or
 * filter kind ("qdisc" or "filter" in what). */
int tc_not_modelled(struct tc_cmd *c, const char *what);
int tc_kind_not_modelled(struct tc_cmd *c, const char *what, const char *kind);

/* ---- words and devices (tc.c) ---- */

/* 1 if w is one of the NULL-terminated list l. */
int tc_in_list(const char *const *l, const char *w);
/* tc's text of a classid ("1:2", "root"), in buf. */
char *tc_classid_str(char *buf, size_t n, uint32_t h);
/* The device `dev NAME` names; with create, made with the simulation's
 * defaults when it does not exist yet (the commands that change something). */
int tc_get_dev(struct tc_cmd *c, const char *name, int create, struct dev **d);

/* ---- the objects: tc_qdisc.c, tc_class.c, tc_filter.c ---- */

/* 1 if q has classes (it may have children and filters). */
int tc_classful(const struct qdisc *q);

/* tc qdisc|class|filter COMMAND ...: argv starts at COMMAND. */
int tc_do_qdisc(struct tc_cmd *c, int argc, char **argv);
int tc_do_class(struct tc_cmd *c, int argc, char **argv);
int tc_do_filter(struct tc_cmd *c, int argc, char **argv);

#endif
