/* ci_report.h - a scenario's checks as CI systems read test results:
 * JUnit XML (one <testcase> per check, <failure> or <error> inside) and
 * TAP version 13 (one "ok"/"not ok" line per check, a YAML block with the
 * message). A check is an expectation of the scenario (file:line and its
 * message), a difference from a golden file (its JSON path), or the
 * scenario's own error (a Lua error, a bound reached).
 *
 * Text from the scenario (messages, paths) is made safe for the format:
 * XML's five entities escaped, control characters and invalid UTF-8
 * replaced by '?'; in TAP a '#' is escaped and a message stays on its line. */
#ifndef TCSIM_CI_REPORT_H
#define TCSIM_CI_REPORT_H

#include <stddef.h>
#include <stdio.h>

enum ci_outcome { CI_PASS = 0, CI_FAIL, CI_ERROR };

struct ci_case {
	char *name; /* "scenarios/x.lua:12: the message", "golden: devices[eth0]..." */
	char *file; /* the scenario (or golden) file, for JUnit's file attribute */
	int line;   /* its line, 0 if none */
	enum ci_outcome outcome;
	char *message; /* why it failed (values, difference), or NULL */
};

struct ci_report {
	struct ci_case *c;
	size_t n, cap;
	char **notes; /* lines that are no check (a golden made by another tcsim) */
	size_t nnotes;
	int oom; /* a case could not be recorded: the writers refuse */
};

/* Adds a case (the strings are copied). 0, or -ENOMEM (and r->oom). */
int ci_add(struct ci_report *r, const char *name, const char *file, int line,
	   enum ci_outcome outcome, const char *message);
/* Adds a note: no test case, but what a reader of the report should know
 * (JUnit: the suite's <system-out>; TAP: a "# " line). 0, or -ENOMEM. */
int ci_note(struct ci_report *r, const char *text);
void ci_free(struct ci_report *r);

/* The whole document for suite `suite` (the scenario's path). */
void ci_write_junit(const struct ci_report *r, const char *suite, FILE *out);
void ci_write_tap(const struct ci_report *r, FILE *out);

#endif
