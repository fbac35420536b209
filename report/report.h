/* report.h - the results of a run: the text report tcsim run prints, and
 * the JSON document (schema in README) that --json writes. */
#ifndef TCSIM_REPORT_H
#define TCSIM_REPORT_H

#include <stdio.h>

#include "sim.h"

/* The version of the JSON results' schema, MAJOR.MINOR (README, JSON):
 * a minor version only adds members; anything else is a new major. Its
 * major is also the document's "tcsim" member. */
#define REPORT_SCHEMA_VERSION "1.1"

void report_text(const struct sim *s, FILE *out);
void report_json(const struct sim *s, FILE *out);
/* "1:1", "8001:", "unclassified" for a verdict */
void report_verdict_key(char *buf, size_t n, enum pkt_verdict_kind kind, uint32_t classid);

#endif
