/* fmt.h - how trace lines and explanations write handles, classids and
 * priorities: as tc does, in hex, `1:` for a qdisc and `1:2` for a class. */
#ifndef TCSIM_FMT_H
#define TCSIM_FMT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "qdisc.h"

static inline void fmt_handle(char *b, size_t n, uint32_t h)
{
	snprintf(b, n, "%x:", h >> 16);
}

static inline void fmt_class(char *b, size_t n, uint32_t c)
{
	snprintf(b, n, "%x:%x", c >> 16, c & 0xffff);
}

/* skb->priority: decimal, or a classid when it has a major */
static inline void fmt_priority(char *b, size_t n, uint32_t prio)
{
	if (TC_H_MAJ(prio))
		fmt_class(b, n, prio);
	else
		snprintf(b, n, "%u", prio);
}

#endif
