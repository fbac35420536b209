/* lint_netem.c - check 20 of `tcsim lint` (tc/lint.c lists them all), on
 * netem, read back from its `tc qdisc show` text:
 *
 * 20. a delay whose packets in flight outnumber the limit: netem keeps
 *     every packet until its time to send, so at the device's line rate
 *     a delay D holds rate x D worth of frames; when even full-size
 *     frames (the fewest packets for those bytes) outnumber `limit`
 *     (tc's default is 1000), netem drops at that rate though nothing is
 *     congested: the classic "netem loses packets at 1 Gbit/s with 100 ms"
 *     surprise. Raise the limit to the number said. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lint_int.h"
#include "sched_rate.h"

#define FULL_FRAME 1514u /* bytes on the wire of a full-size Ethernet frame */

void lint_check_netem(struct lint *l, const struct qdisc *q, uint64_t rate_bps)
{
	char *buf, delay[32], jitter[32], lim[32], rate[32];
	uint32_t d_us = 0, j_us = 0;
	unsigned lim_p;
	uint64_t frames;

	if (strcmp(q->ops->id, "netem") || !rate_bps || !(buf = lint_qdisc_text(l, q, 0)))
		return;
	lint_word_after(buf, "limit ", 0, lim, sizeof(lim));
	lint_word_after(buf, " delay ", 0, delay, sizeof(delay));
	lint_word_after(buf, " delay ", 1, jitter, sizeof(jitter));
	free(buf);
	if (!delay[0] || tc_get_time(&d_us, delay))
		return;
	/* the second word is the jitter when it is a time (not "loss", ...) */
	if (jitter[0] && tc_get_time(&j_us, jitter))
		j_us = 0;
	if (sscanf(lim, "%u", &lim_p) != 1)
		return;
	frames = rate_bps / 8 * ((uint64_t)d_us + j_us) / 1000000u / FULL_FRAME;
	if (frames <= lim_p)
		return;
	lint_fmt_bits(rate, sizeof(rate), rate_bps);
	lint_warn(l, q->where[0] ? q->where : NULL,
		  "netem %x: a delay of %s%s%s at %s's %s holds up to %llu full-size frames, "
		  "more than its limit %u, so it drops at that rate though nothing is "
		  "congested; raise limit to %llu or more",
		  q->handle >> 16, delay, j_us ? " + " : "", j_us ? jitter : "",
		  l->dev ? l->dev : "the device", rate, (unsigned long long)frames, lim_p,
		  (unsigned long long)frames);
}
