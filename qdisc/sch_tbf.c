/* sch_tbf.c - the token bucket filter of net/sched/sch_tbf.c: a child qdisc
 * (a bfifo of `limit` bytes by default) whose head leaves only when a bucket
 * of `rate` (and one of `peakrate`) holds the time to send it, kept in ns. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qdisc.h"

struct tbf_sched_data {
	/* parameters, as tbf_change leaves them */
	uint32_t limit;	   /* bytes: the default bfifo's */
	uint32_t max_size; /* longer packets are dropped at enqueue */
	int64_t buffer;	   /* ns: the depth of the rate bucket */
	int64_t mtu;	   /* ns: the depth of the peak bucket */
	struct psched_ratecfg rate, peak;
	/* the buckets */
	int64_t tokens, ptokens; /* ns */
	int64_t t_c;		 /* when they were last charged */
	struct qdisc *qdisc;	 /* the child: 1:1 */
	struct pkt *peeked;	 /* qdisc_peek_dequeued's stash, for a parent that peeks */
	struct tbf_kc_req req; /* the last request applied: kernel-check sends it again */
	/* the last wait reported for a traced packet (QTRACE_THROTTLED): its
	 * id and until, so a dequeue asked again in the same wait says nothing */
	uint64_t thr_id, thr_until;
};

/* What tc sends (q_tbf.c's netlink request) is struct tbf_kc_req of qdisc.h:
 * tc_tbf_qopt, the 64-bit rates (sent when >= 2^32) and TCA_TBF_BURST and
 * TCA_TBF_PBURST (with a peakrate). */

static const char tbf_usage[] =
    "Usage: ... tbf limit BYTES burst BYTES[/BYTES] rate KBPS [ mtu BYTES[/BYTES] ] "
    "[ peakrate KBPS ] [ latency TIME ] [ overhead BYTES ] [ linklayer TYPE ]";

/* iproute2's matches(): w is a non-empty prefix of full */
static int tbf_matches(const char *w, const char *full)
{
	size_t n = strlen(w);

	return n && !strncmp(w, full, n) && n <= strlen(full);
}

/* get_u16 base 10: strtoul of the whole word, at most 0xffff */
static int tbf_get_u16(uint16_t *out, const char *s)
{
	unsigned long v;
	char *end;

	if (!*s)
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*end || errno || v > 0xffff)
		return -EINVAL;
	*out = (uint16_t)v;
	return 0;
}

static int tbf_illegal(char *err, size_t errlen, const char *name, const char *val)
{
	snprintf(err, errlen, "tbf: illegal value for \"%s\": \"%s\"", name, val);
	return -EINVAL;
}

static int tbf_fail(char *err, size_t errlen, const char *msg)
{
	snprintf(err, errlen, "tbf: %s", msg);
	return -EINVAL;
}

/* tbf_parse_opt of iproute2 6.1's q_tbf.c: its words (some by prefix),
 * its checks and messages (several at once, joined on one line), then
 * what it computes: the limit from a latency, the ticks, the linklayer. */
static int tbf_parse(struct tbf_kc_req *r, int argc, char **argv, char *err, size_t errlen)
{
	uint32_t buffer = 0, mtu = 0, mpu = 0, latency = 0;
	int rcell_log = -1, pcell_log = -1;
	unsigned int linklayer = TC_LINKLAYER_ETHERNET;
	uint16_t overhead = 0;
	uint64_t rate64 = 0, prate64 = 0;
	size_t n = 0;

	memset(r, 0, sizeof(*r));
	for (int i = 0; i < argc; i++) {
		const char *w = argv[i], *v;

		if (!strcmp(w, "help")) {
			snprintf(err, errlen, "%s", tbf_usage);
			return -EINVAL;
		}
		if (!tbf_matches(w, "limit") && !tbf_matches(w, "latency") &&
		    !tbf_matches(w, "burst") && strcmp(w, "buffer") && strcmp(w, "maxburst") &&
		    strcmp(w, "mtu") && strcmp(w, "minburst") && strcmp(w, "mpu") &&
		    strcmp(w, "rate") && !tbf_matches(w, "peakrate") &&
		    !tbf_matches(w, "overhead") && !tbf_matches(w, "linklayer")) {
			snprintf(err, errlen, "tbf: unknown parameter \"%s\" %s", w, tbf_usage);
			return -EINVAL;
		}
		if (i + 1 >= argc) {
			snprintf(err, errlen, "Command line is not complete. Try option \"help\"");
			return -EINVAL;
		}
		v = argv[++i];
		if (tbf_matches(w, "limit")) {
			if (r->opt.limit)
				return tbf_fail(err, errlen, "duplicate \"limit\" specification");
			if (latency)
				return tbf_fail(
				    err, errlen,
				    "specifying both \"latency\" and \"limit\" is not allowed");
			if (tc_get_size(&r->opt.limit, v))
				return tbf_illegal(err, errlen, "limit", v);
		} else if (tbf_matches(w, "latency")) {
			if (latency)
				return tbf_fail(err, errlen, "duplicate \"latency\" specification");
			if (r->opt.limit) /* sic: tc's message has the slash */
				return tbf_fail(
				    err, errlen,
				    "specifying both \"limit\" and \"/latency\" is not allowed");
			if (tc_get_time(&latency, v))
				return tbf_illegal(err, errlen, "latency", v);
		} else if (tbf_matches(w, "burst") || !strcmp(w, "buffer") ||
			   !strcmp(w, "maxburst")) {
			if (buffer)
				return tbf_fail(
				    err, errlen,
				    "duplicate \"buffer/burst/maxburst\" specification");
			if (tc_get_size_and_cell(&buffer, &rcell_log, v))
				return tbf_illegal(err, errlen, w, v);
		} else if (!strcmp(w, "mtu") || !strcmp(w, "minburst")) {
			if (mtu)
				return tbf_fail(err, errlen,
						"duplicate \"mtu/minburst\" specification");
			if (tc_get_size_and_cell(&mtu, &pcell_log, v))
				return tbf_illegal(err, errlen, w, v);
		} else if (!strcmp(w, "mpu")) {
			if (mpu)
				return tbf_fail(err, errlen, "duplicate \"mpu\" specification");
			if (tc_get_size(&mpu, v))
				return tbf_illegal(err, errlen, "mpu", v);
		} else if (!strcmp(w, "rate") || tbf_matches(w, "peakrate")) {
			int peak = strcmp(w, "rate") != 0;
			uint64_t *dst = peak ? &prate64 : &rate64;

			if (*dst) {
				snprintf(err, errlen, "tbf: duplicate \"%s\" specification",
					 peak ? "peakrate" : "rate");
				return -EINVAL;
			}
			if (strchr(v, '%')) {
				snprintf(
				    err, errlen,
				    "tbf: a %s in percent of the device's speed is not modelled "
				    "(\"%s\"): give it in bits or bytes per second",
				    peak ? "peakrate" : "rate", v);
				return -EOPNOTSUPP;
			}
			if (tc_get_rate64(dst, v))
				return tbf_illegal(err, errlen, peak ? "peakrate" : "rate", v);
		} else if (tbf_matches(w, "overhead")) {
			if (overhead)
				return tbf_fail(err, errlen,
						"duplicate \"overhead\" specification");
			if (tbf_get_u16(&overhead, v))
				return tbf_illegal(err, errlen, "overhead", v);
		} else if (tc_get_linklayer(&linklayer, v)) {
			return tbf_illegal(err, errlen, "linklayer", v);
		}
	}

	/* every missing parameter at once, as tc does */
	if (!rate64)
		n += (size_t)snprintf(err + n, errlen - n,
				      "tbf: the \"rate\" parameter is mandatory. ");
	if (!buffer && n < errlen)
		n += (size_t)snprintf(err + n, errlen - n,
				      "tbf: the \"burst\" parameter is mandatory. ");
	if (prate64 && !mtu && n < errlen)
		n += (size_t)snprintf(
		    err + n, errlen - n,
		    "tbf: when \"peakrate\" is specified, \"mtu\" must also be specified. ");
	if (!r->opt.limit && !latency && n < errlen)
		n += (size_t)snprintf(err + n, errlen - n,
				      "tbf: either \"limit\" or \"latency\" is required. ");
	if (n) {
		if (n < errlen)
			snprintf(err + n, errlen - n, "%s", tbf_usage);
		return -EINVAL;
	}

	r->opt.rate.rate = rate64 >= (1ull << 32) ? UINT32_MAX : (uint32_t)rate64;
	r->opt.peakrate.rate = prate64 >= (1ull << 32) ? UINT32_MAX : (uint32_t)prate64;
	if (!r->opt.limit) {
		double lim = rate64 * (double)latency / TIME_UNITS_PER_SEC + buffer;

		if (prate64) {
			double lim2 = prate64 * (double)latency / TIME_UNITS_PER_SEC + mtu;

			if (lim2 < lim)
				lim = lim2;
		}
		/* the low 32 bits, as tc's conversion gives on x86-64 */
		r->opt.limit = (uint32_t)(uint64_t)lim;
	}
	/* tc_calc_rtable: the kernel ignores the table once a linklayer is set,
	 * and reports no cell_log; what it keeps is mpu, overhead, linklayer */
	r->opt.rate.mpu = (uint16_t)mpu;
	r->opt.rate.overhead = overhead;
	r->opt.rate.linklayer = (uint8_t)(linklayer & TC_LINKLAYER_MASK);
	r->opt.buffer = tc_calc_xmittime(r->opt.rate.rate, buffer);
	if (r->opt.peakrate.rate) {
		r->opt.peakrate.mpu = (uint16_t)mpu;
		r->opt.peakrate.overhead = overhead;
		r->opt.peakrate.linklayer = (uint8_t)(linklayer & TC_LINKLAYER_MASK);
		r->opt.mtu = tc_calc_xmittime(r->opt.peakrate.rate, mtu);
		r->pburst = mtu;
	}
	r->burst = buffer;
	r->rate64 = rate64 >= (1ull << 32) ? rate64 : 0;
	r->prate64 = prate64 >= (1ull << 32) ? prate64 : 0;
	return 0;
}

/* The default child: a bfifo of `limit` bytes at 1:1, handle 0 (not
 * listed but by `tc qdisc show invisible`), as fifo_create_dflt makes it. */
static struct qdisc *tbf_create_dflt(struct qdisc *q, uint32_t limit)
{
	char lim[16], *argv[] = {"limit", lim}, msg[256];
	struct qdisc *child;

	snprintf(lim, sizeof(lim), "%u", limit);
	if (qdisc_create(&child, "bfifo", q->env, 0, TC_H_MAKE(q->handle, 1), 2, argv, msg,
			 sizeof(msg)))
		return NULL;
	child->invisible = 1;
	child->parent_q = q;
	return child;
}

/* fifo_set_limit: a pfifo or bfifo child takes the new limit (a pfifo as a
 * packet count: the kernel passes the bytes as they are); others keep
 * theirs. */
static int tbf_fifo_set_limit(struct qdisc *child, uint32_t limit, char *err, size_t errlen)
{
	char lim[16], *argv[] = {"limit", lim};

	if (child->ops != &pfifo_qdisc_ops && child->ops != &bfifo_qdisc_ops)
		return 0;
	snprintf(lim, sizeof(lim), "%u", limit);
	return child->ops->change(child, 2, argv, err, errlen);
}

/* psched_ns_t2l: the bytes the rate sends in ns (used without a burst
 * attribute, which iproute2 always sends; kept for the kernel's rules). */
static uint64_t tbf_ns_t2l(const struct psched_ratecfg *r, uint64_t ns)
{
	uint64_t len = (uint64_t)(((unsigned __int128)ns * r->rate_bytes_ps) / NSEC_PER_SEC);

	if (r->linklayer == TC_LINKLAYER_ATM)
		len = len / 53 * 48;
	return len > r->overhead ? len - r->overhead : 0;
}

/* tbf_change of the kernel, from what tc sent. */
static int tbf_apply(struct qdisc *q, const struct tbf_kc_req *r, char *err, size_t errlen)
{
	struct tbf_sched_data *td = q->priv;
	struct psched_ratecfg rate, peak;
	struct qdisc *child = NULL;
	uint64_t max_size, buffer, mtu;
	int ret;

	buffer = PSCHED_TICKS2NS(r->opt.buffer);
	if (buffer > UINT32_MAX)
		buffer = UINT32_MAX;
	mtu = PSCHED_TICKS2NS(r->opt.mtu);
	if (mtu > UINT32_MAX)
		mtu = UINT32_MAX;
	psched_ratecfg_precompute(&rate, &r->opt.rate, r->rate64);
	if (r->burst) {
		max_size = r->burst;
		buffer = psched_l2t_ns(&rate, r->burst);
	} else {
		max_size = tbf_ns_t2l(&rate, buffer);
		if (max_size > UINT32_MAX)
			max_size = UINT32_MAX;
	}
	memset(&peak, 0, sizeof(peak));
	if (r->opt.peakrate.rate) {
		psched_ratecfg_precompute(&peak, &r->opt.peakrate, r->prate64);
		if (peak.rate_bytes_ps <= rate.rate_bytes_ps) {
			snprintf(
			    err, errlen,
			    "RTNETLINK answers: Invalid argument (sch_tbf: peakrate %llu is lower "
			    "than or equals to rate %llu)",
			    (unsigned long long)peak.rate_bytes_ps,
			    (unsigned long long)rate.rate_bytes_ps);
			return -EINVAL;
		}
		if (r->pburst) {
			if (r->pburst < max_size)
				max_size = r->pburst;
			mtu = psched_l2t_ns(&peak, r->pburst);
		} else {
			uint64_t l = tbf_ns_t2l(&peak, mtu);

			if (l < max_size)
				max_size = l;
		}
	}
	if (!max_size) {
		snprintf(err, errlen, "RTNETLINK answers: Invalid argument (sch_tbf: burst 0)");
		return -EINVAL;
	}
	if (td->qdisc && td->qdisc->ops != &noop_qdisc_ops) {
		ret = tbf_fifo_set_limit(td->qdisc, r->opt.limit, err, errlen);
		if (ret)
			return ret;
	} else if (r->opt.limit > 0) {
		child = tbf_create_dflt(q, r->opt.limit);
		if (!child) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
	}
	if (child) {
		struct qdisc *old = td->qdisc;

		td->qdisc = child;
		if (old) {
			qdisc_tree_reduce_backlog(old, old->s.qlen, old->s.backlog);
			qdisc_destroy(old);
		}
	} else if (!td->qdisc) {
		/* tbf_init starts from noop_qdisc: a zero limit keeps it */
		td->qdisc = qdisc_create_noop(q->env, TC_H_MAKE(q->handle, 1));
		if (!td->qdisc) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		td->qdisc->parent_q = q;
	}
	td->req = *r;
	td->limit = r->opt.limit;
	td->mtu = r->pburst ? (int64_t)mtu : (int64_t)PSCHED_TICKS2NS(r->opt.mtu);
	td->max_size = (uint32_t)max_size;
	td->buffer = r->burst ? (int64_t)buffer : (int64_t)PSCHED_TICKS2NS(r->opt.buffer);
	td->tokens = td->buffer;
	td->ptokens = td->mtu;
	td->rate = rate;
	td->peak = peak;
	return 0;
}

static int tbf_change(struct qdisc *q, int argc, char **argv, char *err, size_t errlen)
{
	struct tbf_kc_req r;
	int ret = tbf_parse(&r, argc, argv, err, errlen);

	return ret ? ret : tbf_apply(q, &r, err, errlen);
}

static int tbf_init(struct qdisc *q, int argc, char **argv, char *err, size_t errlen)
{
	struct tbf_sched_data *td = q->priv;

	td->t_c = (int64_t)q->env->now(q->env->arg);
	return tbf_change(q, argc, argv, err, errlen);
}

static int tbf_enqueue(struct qdisc *q, struct pkt *p)
{
	struct tbf_sched_data *td = q->priv;
	uint32_t len = p->len;
	int ret;

	/* tcsim has no GSO packets: a long frame is one packet, which
	 * tbf_segment would otherwise have cut into segments */
	if (len > td->max_size)
		return qdisc_drop(q, p, DROP_TBF_SIZE);
	if (!q->parent_q)
		p->leaf_classid = TC_H_MAKE(q->handle, 1);
	ret = td->qdisc->ops->enqueue(td->qdisc, p);
	if (ret != NET_XMIT_SUCCESS) {
		if (ret != NET_XMIT_CN) /* net_xmit_drop_count */
			q->s.drops++;
		return ret;
	}
	qdisc_enqueued(q, p);
	return NET_XMIT_SUCCESS;
}

static int tbf_peak_present(const struct tbf_sched_data *td)
{
	return td->peak.rate_bytes_ps != 0;
}

/* A traced head that must wait: tbf has one class, H:1, whose child holds
 * it, and its buckets are the qdisc's own (no by). */
static void tbf_trace_throttled(struct qdisc *q, const struct pkt *head, uint64_t until)
{
	struct tbf_sched_data *td = q->priv;
	struct qtrace ev = {.kind = QTRACE_THROTTLED, .band = -1, .until = until};

	ev.wclass = TC_H_MAKE(q->handle, 1);
	td->thr_id = head->id;
	td->thr_until = until;
	qdisc_trace(q, head, &ev);
}

/* tbf_dequeue: the child's head leaves when both buckets, refilled for the
 * time since t_c and capped at their depths, hold its time; else the
 * watchdog is armed for when the emptier one will. */
static struct pkt *tbf_dequeue_tokens(struct qdisc *q)
{
	struct tbf_sched_data *td = q->priv;
	const struct pkt *head = td->qdisc->ops->peek(td->qdisc);
	struct pkt *p;
	int64_t now, toks, ptoks = 0;
	uint64_t until;

	if (!head)
		return NULL;
	now = (int64_t)q->env->now(q->env->arg);
	toks = now - td->t_c < td->buffer ? now - td->t_c : td->buffer;
	if (tbf_peak_present(td)) {
		ptoks = toks + td->ptokens;
		if (ptoks > td->mtu)
			ptoks = td->mtu;
		ptoks -= (int64_t)psched_l2t_ns(&td->peak, head->len);
	}
	toks += td->tokens;
	if (toks > td->buffer)
		toks = td->buffer;
	toks -= (int64_t)psched_l2t_ns(&td->rate, head->len);
	if ((toks | ptoks) >= 0) {
		p = td->qdisc->ops->dequeue(td->qdisc);
		if (!p)
			return NULL;
		td->t_c = now;
		td->tokens = toks;
		td->ptokens = ptoks;
		qdisc_dequeued(q, p);
		return p;
	}
	until = (uint64_t)(now + (-toks > -ptoks ? -toks : -ptoks));
	qdisc_watchdog_schedule_ns(q, until);
	q->s.overlimits++;
	if (head->traced && q->env->tracer && (head->id != td->thr_id || until != td->thr_until))
		tbf_trace_throttled(q, head, until);
	return NULL;
}

static struct pkt *tbf_dequeue(struct qdisc *q)
{
	struct tbf_sched_data *td = q->priv;
	struct pkt *p = td->peeked;

	if (!p)
		return tbf_dequeue_tokens(q);
	/* qdisc_dequeue_peeked: counted in bstats when it was peeked */
	td->peeked = NULL;
	q->s.qlen--;
	q->s.backlog -= p->len;
	return p;
}

/* qdisc_peek_dequeued: tbf cannot tell what it will send without charging
 * the buckets, so a peek dequeues and holds the packet (still queued). */
static const struct pkt *tbf_peek(struct qdisc *q)
{
	struct tbf_sched_data *td = q->priv;

	if (!td->peeked) {
		td->peeked = tbf_dequeue_tokens(q);
		if (td->peeked) {
			q->s.qlen++;
			q->s.backlog += td->peeked->len;
		}
	}
	return td->peeked;
}

/* The packet it holds from a peek, else its child's head. */
static const struct pkt *tbf_head(const struct qdisc *q)
{
	const struct tbf_sched_data *td = q->priv;

	if (td->peeked)
		return td->peeked;
	return td->qdisc && td->qdisc->ops->head ? td->qdisc->ops->head(td->qdisc) : NULL;
}

static void tbf_reset(struct qdisc *q)
{
	struct tbf_sched_data *td = q->priv;

	if (td->qdisc && td->qdisc->ops->reset)
		td->qdisc->ops->reset(td->qdisc);
	if (td->peeked) {
		td->peeked->drop = DROP_QDISC_DESTROY;
		q->env->drop(q->env->arg, td->peeked);
		td->peeked = NULL;
	}
	q->s.qlen = 0;
	q->s.backlog = 0;
	td->t_c = (int64_t)q->env->now(q->env->arg);
	td->tokens = td->buffer;
	td->ptokens = td->mtu;
	qdisc_watchdog_cancel(q);
}

static void tbf_destroy(struct qdisc *q)
{
	struct tbf_sched_data *td = q->priv;

	qdisc_watchdog_cancel(q);
	qdisc_destroy(td->qdisc);
	td->qdisc = NULL;
}

/* tbf_print_opt of iproute2 6.1, from what tbf_dump reports: the rates,
 * buffer and mtu in ticks (read back into bytes), limit, mpu, overhead and
 * linklayer; cell_log comes back 0 ("/1"). The trailing space is tc's. */
static void tbf_dump(const struct qdisc *q, struct tcprint *p, int details)
{
	const struct tbf_sched_data *td = q->priv;
	unsigned int buffer = (unsigned int)PSCHED_NS2TICKS(td->buffer);
	unsigned int mtu = (unsigned int)PSCHED_NS2TICKS(td->mtu);
	uint64_t rate64 = td->rate.rate_bytes_ps, prate64 = td->peak.rate_bytes_ps;
	char b1[TC_SPRINT_BSIZE], b2[2 * TC_SPRINT_BSIZE];
	double latency;

	pr_rate(p, PR_ANY, "rate", "rate %s ", rate64);
	if (details) {
		/* "burst" becomes the string "10Kb/1" */
		snprintf(b2, sizeof(b2), "%s/1",
			 tc_sprint_size(tc_calc_xmitsize(rate64, buffer), b1));
		pr_string(p, PR_ANY, "burst", "burst %s ", b2);
		pr_size(p, PR_ANY, "mpu", "mpu %s ", td->rate.mpu);
	} else {
		pr_size(p, PR_ANY, "burst", "burst %s ", tc_calc_xmitsize(rate64, buffer));
	}
	if (prate64) {
		/* 6.1 prints peakrate as text only: -j has no "peakrate" */
		pr_rate(p, PR_TEXT, NULL, "peakrate %s ", prate64);
		if (mtu || td->peak.mpu) {
			if (details) {
				snprintf(b2, sizeof(b2), "%s/1",
					 tc_sprint_size(tc_calc_xmitsize(prate64, mtu), b1));
				pr_string(p, PR_ANY, "mtu", "mtu %s ", b2);
				pr_size(p, PR_ANY, "mpu", "mpu %s ", td->peak.mpu);
			} else {
				pr_size(p, PR_ANY, "minburst", "minburst %s ",
					tc_calc_xmitsize(prate64, mtu));
			}
		}
	}
	latency = TIME_UNITS_PER_SEC * (td->limit / (double)rate64) - tc_core_tick2time(buffer);
	if (prate64) {
		double lat2 =
		    TIME_UNITS_PER_SEC * (td->limit / (double)prate64) - tc_core_tick2time(mtu);

		if (lat2 > latency)
			latency = lat2;
	}
	if (latency >= 0.0)
		pr_time(p, PR_ANY, "lat", "lat %s ", (uint32_t)(uint64_t)latency);
	else
		pr_size(p, PR_ANY, "limit", "limit %s ", td->limit);
	if (td->rate.overhead)
		pr_int(p, PR_ANY, "overhead", "overhead %d ", td->rate.overhead);
	if (td->rate.linklayer > TC_LINKLAYER_ETHERNET || details)
		pr_string(p, PR_ANY, "linklayer", "linklayer %s ",
			  tc_sprint_linklayer(td->rate.linklayer));
}

/* tbf_graft: any classid names the one class; no child (tc qdisc del)
 * leaves noop_qdisc, which drops everything. The old child's packets are
 * gone from tbf and its ancestors (qdisc_purge_queue). */
static int tbf_graft(struct qdisc *q, uint32_t classid, struct qdisc *child, char *err,
		     size_t errlen)
{
	struct tbf_sched_data *td = q->priv;
	struct qdisc *old = td->qdisc;

	if (!child) {
		child = qdisc_create_noop(q->env, classid);
		if (!child) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
	}
	child->parent_q = q;
	child->parent = classid;
	td->qdisc = child;
	qdisc_tree_reduce_backlog(old, old->s.qlen, old->s.backlog);
	qdisc_destroy(old);
	return 0;
}

static struct qdisc *tbf_leaf(struct qdisc *q, uint32_t classid)
{
	return ((struct tbf_sched_data *)q->priv)->qdisc;
}

/* One class, 1:1; the kernel dumps no statistics for it (tc prints an
 * empty line), and noop_qdisc is no leaf. */
static void tbf_walk(const struct qdisc *q, void (*fn)(void *arg, const struct qdisc_class *c),
		     void *arg)
{
	const struct tbf_sched_data *td = q->priv;
	struct qdisc_class c = {
	    .classid = TC_H_MAKE(q->handle, 1),
	    .parent = q->handle,
	    .leaf = td->qdisc->ops == &noop_qdisc_ops ? NULL : td->qdisc,
	    .no_stats = 1,
	};

	fn(arg, &c);
}

const struct qdisc_ops tbf_qdisc_ops = {
    .id = "tbf",
    .priv_size = sizeof(struct tbf_sched_data),
    .init = tbf_init,
    .change = tbf_change,
    .enqueue = tbf_enqueue,
    .dequeue = tbf_dequeue,
    .peek = tbf_peek,
    .head = tbf_head,
    .reset = tbf_reset,
    .destroy = tbf_destroy,
    .dump = tbf_dump,
    .graft = tbf_graft,
    .leaf = tbf_leaf,
    .walk = tbf_walk,
};

void tbf_kc_get(const struct qdisc *q, struct tbf_kc_req *out)
{
	*out = ((const struct tbf_sched_data *)q->priv)->req;
}

/* The request tc would send for `tc qdisc change ... limit N` with every
 * other word as before: the same rate, buckets and child. */
int tbf_kc_set_limit(struct qdisc *q, uint32_t limit, char *err, size_t errlen)
{
	struct tbf_kc_req r = ((struct tbf_sched_data *)q->priv)->req;

	r.opt.limit = limit;
	return tbf_apply(q, &r, err, errlen);
}
