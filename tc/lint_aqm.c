/* lint_aqm.c - checks 13 and 14 of `tcsim lint` (tc/lint.c lists them all),
 * on codel and fq_codel, read back from their `tc qdisc show` text:
 *
 * 13. a target not below the interval: codel then waits for delays longer
 *     than its whole interval before dropping, which is not what the
 *     control law is for (RFC 8289: target 5-10 % of interval);
 * 14. fq_codel's memory_limit reached before its packet limit: with
 *     full-size frames the buffers' truesize (tcsim counts 2304 bytes for
 *     a 1514-byte frame) fills memory_limit first, so drops come from
 *     memory (drop_overmemory), not from limit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lint_int.h"
#include "sched_rate.h"

void lint_check_aqm(struct lint *l, const struct qdisc *q)
{
	char *buf, target[32], interval[32], mem[32], limit[32];
	uint32_t t_us, i_us, mem_b, lim;
	const char *where = q->where[0] ? q->where : NULL;

	if ((strcmp(q->ops->id, "codel") && strcmp(q->ops->id, "fq_codel")) ||
	    !(buf = lint_qdisc_text(l, q, 0)))
		return;
	lint_word_after(buf, " target ", 0, target, sizeof(target));
	lint_word_after(buf, " interval ", 0, interval, sizeof(interval));
	lint_word_after(buf, "memory_limit ", 0, mem, sizeof(mem));
	lint_word_after(buf, "limit ", 0, limit, sizeof(limit));
	free(buf);
	if (!tc_get_time(&t_us, target) && !tc_get_time(&i_us, interval) && t_us >= i_us)
		lint_warn(l, where,
			  "%s %x: target %s is not below its interval %s, so codel drops only "
			  "after a delay longer than a whole interval; make target 5-10%% of "
			  "interval (5ms for 100ms)",
			  q->ops->id, q->handle >> 16, target, interval);
	if (!strcmp(q->ops->id, "fq_codel") && !tc_get_size(&mem_b, mem) &&
	    sscanf(limit, "%up", &lim) == 1 && (uint64_t)mem_b / 2304u < lim)
		lint_warn(
		    l, where,
		    "fq_codel %x: memory_limit %s holds about %u full-size frames (2304 "
		    "bytes of buffer each), fewer than its limit %u, so it drops for memory "
		    "first (drop_overmemory); raise memory_limit to %llu bytes or lower limit",
		    q->handle >> 16, mem, mem_b / 2304u, lim, (unsigned long long)lim * 2304u);
}
