/* report.h - the results of a run: the text report tcsim run prints, and
 * the JSON document (schema in README) that --json writes. */
#ifndef TCSIM_REPORT_H
#define TCSIM_REPORT_H

#include <stdio.h>

#include "sim.h"

void report_text(const struct sim *s, FILE *out);
void report_json(const struct sim *s, FILE *out);
/* "1:1", "8001:", "unclassified" for a verdict */
void report_verdict_key(char *buf, size_t n, enum pkt_verdict_kind kind, uint32_t classid);

#endif
