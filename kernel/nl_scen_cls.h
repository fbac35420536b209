/* nl_scen_cls.h - the u32 and flower lines of `tcsim import`'s scenario
 * (nl_scen_u32_flower.c), called from nl_scenario.c's write_filters; not
 * a public header. */
#ifndef TCSIM_NL_SCEN_CLS_H
#define TCSIM_NL_SCEN_CLS_H

#include <stddef.h>
#include <stdint.h>

struct nl_writer;

/* 1: filters of this kind are written by nl_write_cls. */
int nl_cls_written(const char *kind);

/* The tcf_proto v[s..e) (chain 0, one pref) of the filters v[0..n) at
 * parent, sorted by chain, pref and dump order. u32: every u32 tcf_proto
 * of parent is written when the first is met (they share their tables'
 * ids), later calls write nothing. */
void nl_write_cls(struct nl_writer *w, const size_t *v, size_t n, size_t s, size_t e,
		  uint32_t parent);

#endif
