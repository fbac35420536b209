/* kc_netns.c - `tcsim kernel-check`'s kernel side: a forked child alone in
 * a private network namespace builds a veth pair and the tree (kc_tree.c)
 * over rtnetlink, sends every frame from a packet socket, reads the
 * counters back and reports them to the parent over a pipe. How and why:
 * kcheck.h; kcheck.c decides what to build and compares. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/gen_stats.h>
#include <linux/if.h>
#include <linux/if_packet.h>
#include <linux/pkt_sched.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/route/class.h>
#include <netlink/route/link.h>
#include <netlink/route/link/veth.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/qdisc/fifo.h>
#include <netlink/route/qdisc/htb.h>
#include <netlink/route/qdisc/prio.h>
#include <netlink/route/qdisc/sfq.h>
#include <netlink/route/tc.h>

/* the kernel's pkt_sched.h and tcsim's cls.h define the same handle
 * macros; tcsim's win from here on */
#undef TC_H_MAJ
#undef TC_H_MIN
#undef TC_H_MAKE
#undef TC_H_ROOT
#undef TC_H_UNSPEC

#include "capture.h"
#include "kc_int.h"
#include "kcheck.h"
#include "qdisc.h"
#include "sim.h"
#include "source.h"


int kc_rfail(struct kc_result *r, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
	r->status = status;
	return -1;
}

/* ---- netlink: counters ---- */

struct dump_ctx {
	int ifindex, classes;
	struct kc_result *r;
};

static void parse_stats(struct nlattr **tb, struct kc_row *row)
{
	if (tb[TCA_STATS2]) {
		struct nlattr *st[TCA_STATS_MAX + 1];

		if (nla_parse_nested(st, TCA_STATS_MAX, tb[TCA_STATS2], NULL) < 0)
			return;
		if (st[TCA_STATS_BASIC] && nla_len(st[TCA_STATS_BASIC]) >= 12) {
			const char *b = nla_data(st[TCA_STATS_BASIC]);
			uint32_t p32;

			memcpy(&row->bytes, b, 8);
			memcpy(&p32, b + 8, 4);
			row->packets = p32;
		}
		if (st[TCA_STATS_PKT64] && nla_len(st[TCA_STATS_PKT64]) >= 8)
			memcpy(&row->packets, nla_data(st[TCA_STATS_PKT64]), 8);
		if (st[TCA_STATS_QUEUE] &&
		    nla_len(st[TCA_STATS_QUEUE]) >= (int)sizeof(struct gnet_stats_queue)) {
			struct gnet_stats_queue gq;

			memcpy(&gq, nla_data(st[TCA_STATS_QUEUE]), sizeof(gq));
			row->drops = gq.drops;
			row->qlen = gq.qlen;
		}
	} else if (tb[TCA_STATS] && nla_len(tb[TCA_STATS]) >= (int)sizeof(struct tc_stats)) {
		struct tc_stats ts;

		memcpy(&ts, nla_data(tb[TCA_STATS]), sizeof(ts));
		row->bytes = ts.bytes;
		row->packets = ts.packets;
		row->drops = ts.drops;
		row->qlen = ts.qlen;
	}
}

static int dump_cb(struct nl_msg *msg, void *arg)
{
	struct dump_ctx *c = arg;
	struct nlmsghdr *nh = nlmsg_hdr(msg);
	struct tcmsg *t = nlmsg_data(nh);
	struct nlattr *tb[TCA_MAX + 1];
	struct kc_row row = {0};

	if (nlmsg_parse(nh, sizeof(*t), tb, TCA_MAX, NULL) < 0 || t->tcm_ifindex != c->ifindex)
		return NL_OK;
	row.classid = t->tcm_handle;
	row.parent = t->tcm_parent;
	if (tb[TCA_KIND])
		snprintf(row.kind, sizeof(row.kind), "%s", (const char *)nla_data(tb[TCA_KIND]));
	parse_stats(tb, &row);
	if (c->classes) {
		if (c->r->nrows < KC_MAXROWS)
			c->r->rows[c->r->nrows++] = row;
		return NL_OK;
	}
	if (c->r->nqrows < KC_MAXROWS)
		c->r->qrows[c->r->nqrows++] = row;
	if (t->tcm_parent == TC_H_ROOT) {
		c->r->q_packets = row.packets;
		c->r->q_bytes = row.bytes;
		c->r->q_drops = row.drops;
		c->r->q_qlen = row.qlen;
		if (!strcmp(row.kind, "htb") && tb[TCA_OPTIONS]) {
			struct nlattr *o[TCA_HTB_MAX + 1];

			if (nla_parse_nested(o, TCA_HTB_MAX, tb[TCA_OPTIONS], NULL) >= 0 &&
			    o[TCA_HTB_INIT] &&
			    nla_len(o[TCA_HTB_INIT]) >= (int)sizeof(struct tc_htb_glob)) {
				struct tc_htb_glob g;

				memcpy(&g, nla_data(o[TCA_HTB_INIT]), sizeof(g));
				c->r->direct = g.direct_pkts;
				c->r->have_direct = 1;
			}
		}
	}
	return NL_OK;
}

static int kc_nl_dump(struct nl_sock *sk, int type, int ifindex, struct kc_result *r)
{
	struct tcmsg t = {.tcm_family = AF_UNSPEC, .tcm_ifindex = ifindex};
	struct dump_ctx c = {.ifindex = ifindex, .classes = type == RTM_GETTCLASS, .r = r};
	struct nl_cb *base = nl_socket_get_cb(sk), *cb = base ? nl_cb_clone(base) : NULL;
	int rc;

	nl_cb_put(base);
	if (!cb)
		return -NLE_NOMEM;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, dump_cb, &c);
	if (c.classes)
		r->nrows = 0;
	else
		r->nqrows = 0;
	{
		/* TCA_DUMP_INVISIBLE: the default children (an htb leaf's pfifo,
		 * tbf's bfifo) are TCQ_F_INVISIBLE, left out of a plain dump; tcsim
		 * counts them, so the kernel's are wanted too */
		struct nl_msg *m = nlmsg_alloc_simple(type, NLM_F_DUMP);

		rc = -NLE_NOMEM;
		if (m && nlmsg_append(m, &t, sizeof(t), NLMSG_ALIGNTO) >= 0 &&
		    (c.classes || nla_put_flag(m, TCA_DUMP_INVISIBLE) >= 0))
			rc = nl_send_auto(sk, m);
		nlmsg_free(m);
	}
	if (rc >= 0)
		rc = nl_recvmsgs(sk, cb);
	nl_cb_put(cb);
	return rc < 0 ? rc : 0;
}

/* ---- the child: namespace, links, tree, replay, counters ---- */

static int write_sysctl(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return errno == ENOENT ? 0 : -1; /* no IPv6 at all: nothing to disable */
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -1;
}

static int link_setup(struct nl_sock *sk, const char *name, struct rtnl_link **out,
		      struct kc_result *r)
{
	struct rtnl_link *l = NULL, *chg = rtnl_link_alloc();
	int rc;

	if (!chg)
		return kc_rfail(r, KCHECK_ERROR, "out of memory");
	rc = rtnl_link_get_kernel(sk, 0, name, &l);
	if (rc < 0) {
		rtnl_link_put(chg);
		return kc_rfail(r, KCHECK_ERROR, "veth %s: %s", name, nl_geterror(rc));
	}
	rtnl_link_set_mtu(chg, 65535); /* veth's max_mtu: any captured frame fits */
	rtnl_link_set_txqlen(chg, KC_TXQLEN);
	rtnl_link_set_flags(chg, IFF_NOARP | IFF_UP);
	rtnl_link_unset_flags(chg, IFF_MULTICAST);
	rc = rtnl_link_change(sk, l, chg, 0);
	rtnl_link_put(chg);
	if (rc < 0) {
		rtnl_link_put(l);
		return kc_rfail(r, KCHECK_ERROR,
			     "cannot set veth %s up (mtu 65535, noarp, no multicast): %s", name,
			     nl_geterror(rc));
	}
	rtnl_link_put(l);
	/* fresh: its new mtu for libnl's rate tables */
	rc = rtnl_link_get_kernel(sk, 0, name, out);
	if (rc < 0)
		return kc_rfail(r, KCHECK_ERROR, "veth %s: %s", name, nl_geterror(rc));
	if (rtnl_link_get_flags(*out) & IFF_MULTICAST || !(rtnl_link_get_flags(*out) & IFF_NOARP))
		return kc_rfail(r, KCHECK_ERROR, "veth %s kept ARP or multicast on", name);
	return 0;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* skb->priority as tcsim gave the frame: packet_snd copies the socket's
 * sk_priority, so set it only when it changes (one syscall per change, not
 * per frame). Above 6 needs CAP_NET_ADMIN, which the root child has. */
static int set_priority(int fd, uint32_t want, uint32_t *cur, struct kc_result *r)
{
	int v = (int)want; /* SO_PRIORITY takes an int, the kernel keeps its u32 bits */

	if (want == *cur)
		return 0;
	if (setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &v, sizeof(v)))
		return kc_rfail(r, KCHECK_ERROR, "SO_PRIORITY %#x on the packet socket: %s", want,
			     strerror(errno));
	*cur = want;
	return 0;
}

/* skb->mark as tcsim gave the frame (kcheck_opts' rules): packet_snd copies
 * the socket's sk_mark (sockcm_init), so SO_MARK is set when it changes,
 * as for the priority. SO_MARK needs CAP_NET_ADMIN, which the child has. */
static int set_mark(int fd, uint32_t want, uint32_t *cur, struct kc_result *r)
{
	if (want == *cur)
		return 0;
	if (setsockopt(fd, SOL_SOCKET, SO_MARK, &want, sizeof(want)))
		return kc_rfail(r, KCHECK_ERROR, "SO_MARK %#x on the packet socket: %s", want,
				strerror(errno));
	*cur = want;
	return 0;
}

static int replay(const struct kc_plan *pl, int ifindex, struct kc_result *r)
{
	struct sockaddr_ll sll = {
	    .sll_family = AF_PACKET, .sll_protocol = 0, .sll_ifindex = ifindex};
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0), rc = 0;
	uint32_t cur = 0; /* a new socket's sk_priority, which packet_snd copies to the skb */
	uint32_t curmark = 0; /* and its sk_mark */
	char err[512];

	if (fd < 0)
		return kc_rfail(r, KCHECK_CANNOT_RUN, "cannot open a packet socket: %s",
			     strerror(errno));
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		kc_rfail(r, KCHECK_ERROR, "cannot bind a packet socket to %s: %s", pl->kdev,
		      strerror(errno));
		close(fd);
		return -1;
	}
	for (int i = 0; i < pl->ncaps && !rc; i++) {
		struct capture *cap;
		struct cap_pkt p;
		uint64_t n = 0;
		int k = 1;
		int fwd = pl->cap_prio ? pl->cap_prio[i].forward : pl->prio_forward;
		uint32_t prio = pl->cap_prio ? pl->cap_prio[i].priority : pl->priority;
		const struct mark_rules *mr = pl->cap_marks ? &pl->cap_marks[i] : pl->marks;
		struct mark_filter *mf = NULL;

		if (mr && mr->n && mark_filter_new(&mf, mr, err, sizeof(err))) {
			rc = kc_rfail(r, KCHECK_ERROR, "%s", err);
			break;
		}
		if (cap_open(&cap, pl->caps[i], err, sizeof(err))) {
			rc = kc_rfail(r, KCHECK_ERROR, "%s", err);
			mark_filter_free(mf);
			break;
		}
		while ((!pl->limit || n < pl->limit) &&
		       (k = cap_next(cap, &p, err, sizeof(err))) == 1) {
			n++;
			r->read++;
			if (p.reject) {
				r->rejected++;
				continue;
			}
			if (p.caplen < p.len)
				r->truncated++;
			if (set_priority(fd, fwd ? frame_forward_priority(p.data, p.caplen) : prio, &cur,
					 r)) {
				rc = -1;
				break;
			}
			if (mf && set_mark(fd, mark_filter_apply(mf, p.data, p.caplen, p.len), &curmark,
					   r)) {
				rc = -1;
				break;
			}
			if (send(fd, p.data, p.caplen, 0) == (ssize_t)p.caplen) {
				r->sent++;
				r->sent_bytes += p.caplen;
			} else if (errno == ENOBUFS) {
				/* dev_queue_xmit said NET_XMIT_DROP: the frame reached the
				 * qdisc, which dropped it (a tbf's packet over its burst) */
				r->sent++;
				r->sent_bytes += p.caplen;
				r->xmit_drops++;
			} else {
				if (!r->failed++) {
					r->fail_errno = errno;
					r->fail_index = p.index;
					r->fail_cap = i;
				}
			}
		}
		if ((!pl->limit || n < pl->limit) && k < 0)
			rc = kc_rfail(r, KCHECK_ERROR, "%s", err);
		cap_close(cap);
		mark_filter_free(mf);
	}
	close(fd);
	return rc;
}

/* What iproute2 itself reads back from the kernel (`tc -d qdisc show`,
 * `tc -d class show`), before any packet: kernel-check -v prints it next to
 * tcsim's own, so a reader (and tests/kernel/kcheck_e2e.sh) sees that the
 * kernel holds the parameters tcsim simulated. No tc here: said so. */
static void capture_show(const char *dev, struct kc_result *r)
{
	char cmd[160];
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof(cmd), "tc -d qdisc show dev %s 2>&1; tc -d class show dev %s 2>&1",
		 dev, dev);
	p = popen(cmd, "r");
	if (!p) {
		snprintf(r->show, sizeof(r->show), "(cannot run tc: %s)\n", strerror(errno));
		return;
	}
	n = fread(r->show, 1, sizeof(r->show) - 1, p);
	r->show[n] = 0;
	pclose(p);
}

/* The veth's transmit counters. A noqueue root keeps none (the kernel
 * sends straight to the driver), so for it these stand in for the root's. */
static int link_tx(struct nl_sock *sk, int ifindex, uint64_t *packets, uint64_t *bytes)
{
	struct rtnl_link *l = NULL;
	int rc = rtnl_link_get_kernel(sk, ifindex, NULL, &l);

	if (rc < 0)
		return rc;
	*packets = rtnl_link_get_stat(l, RTNL_LINK_TX_PACKETS);
	*bytes = rtnl_link_get_stat(l, RTNL_LINK_TX_BYTES);
	rtnl_link_put(l);
	return 0;
}

static int kernel_side(const struct kc_plan *pl, struct kc_result *r)
{
	struct nl_sock *sk;
	struct rtnl_link *link = NULL, *peer = NULL;
	int rc, tree = 0, noqueue = pl->d->root->ops == &noqueue_qdisc_ops;
	uint64_t tx0 = 0, txb0 = 0;

	if (unshare(CLONE_NEWNET))
		return kc_rfail(r, KCHECK_CANNOT_RUN,
			     "cannot create a network namespace (%s): kernel-check needs root "
			     "(CAP_SYS_ADMIN, CAP_NET_ADMIN, CAP_NET_RAW)",
			     strerror(errno));
	/* /proc/sys/net is this process's namespace's: IPv6 off before any link
	 * exists, so no link-local address, no ND, no MLD */
	if (write_sysctl("/proc/sys/net/ipv6/conf/all/disable_ipv6", "1") ||
	    write_sysctl("/proc/sys/net/ipv6/conf/default/disable_ipv6", "1"))
		return kc_rfail(r, KCHECK_ERROR, "cannot disable IPv6 in the namespace: %s",
			     strerror(errno));
	sk = nl_socket_alloc();
	if (!sk)
		return kc_rfail(r, KCHECK_ERROR, "out of memory");
	if ((rc = nl_connect(sk, NETLINK_ROUTE)) < 0) {
		nl_socket_free(sk);
		return kc_rfail(r, KCHECK_ERROR, "rtnetlink: %s", nl_geterror(rc));
	}
	rc = rtnl_link_veth_add(sk, pl->kdev, pl->kpeer, getpid());
	if (rc < 0) {
		kc_rfail(r, kc_is_absent(rc) ? KCHECK_CANNOT_RUN : KCHECK_ERROR,
		      "the kernel cannot create a veth pair: %s%s", nl_geterror(rc),
		      kc_is_absent(rc) ? " (no veth module?)" : "");
		goto out;
	}
	if (link_setup(sk, pl->kpeer, &peer, r) || link_setup(sk, pl->kdev, &link, r))
		goto out;
	if (pl->mode != KCHECK_HTB) {
		tree = 1;
		for (int i = 0; i < pl->nkinds; i++) {
			int has = kc_probe_kind(sk, link, pl->kinds[i], r);

			if (has < 0)
				goto out;
			if (!has) {
				snprintf(r->absent + strlen(r->absent),
					 sizeof(r->absent) - strlen(r->absent), "%ssch_%s",
					 r->absent[0] ? ", " : "", pl->kinds[i]);
				tree = 0;
			}
		}
		if (!tree && pl->mode == KCHECK_TREE) {
			kc_rfail(r, KCHECK_CANNOT_RUN, "the kernel lacks %s (%s)", r->absent,
			      pl->forced_tree ? pl->forced_tree
					      : "--tree");
			goto out;
		}
	}
	r->tree = tree;
	if (tree ? kc_build_tree(sk, link, pl->d->root, TC_H_ROOT, r) : kc_build_htb(sk, link, pl, r))
		goto out;
	if (pl->show)
		capture_show(pl->kdev, r);
	if (noqueue && (rc = link_tx(sk, rtnl_link_get_ifindex(link), &tx0, &txb0)) < 0) {
		kc_rfail(r, KCHECK_ERROR, "reading the veth's counters: %s", nl_geterror(rc));
		goto out;
	}
	if (replay(pl, rtnl_link_get_ifindex(link), r))
		goto out;
	/* until the qdisc is empty: a shaper sends at its rate, so wait as long
	 * as it makes progress, and give up after 10 s without a departure */
	for (int i = 0; i < 1000; i++) {
		uint64_t before = r->q_packets;

		if ((rc = kc_nl_dump(sk, RTM_GETQDISC, rtnl_link_get_ifindex(link), r)) < 0) {
			kc_rfail(r, KCHECK_ERROR, "reading the qdisc's counters: %s", nl_geterror(rc));
			goto out;
		}
		if (!r->q_qlen) {
			r->drained = 1;
			break;
		}
		if (r->q_packets != before)
			i = 0;
		sleep_ms(10);
	}
	if (noqueue) {
		uint64_t tx, txb;

		if ((rc = link_tx(sk, rtnl_link_get_ifindex(link), &tx, &txb)) < 0) {
			kc_rfail(r, KCHECK_ERROR, "reading the veth's counters: %s", nl_geterror(rc));
			goto out;
		}
		r->q_packets = tx - tx0;
		r->q_bytes = txb - txb0;
		r->noqueue = 1;
	}
	if ((rc = kc_nl_dump(sk, RTM_GETTCLASS, rtnl_link_get_ifindex(link), r)) < 0) {
		kc_rfail(r, KCHECK_ERROR, "reading the classes' counters: %s", nl_geterror(rc));
		goto out;
	}
	r->status = KCHECK_SAME;
out:
	if (link)
		rtnl_link_put(link);
	if (peer)
		rtnl_link_put(peer);
	nl_socket_free(sk);
	return r->status == KCHECK_SAME ? 0 : -1;
}

static void write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

static void child_main(const struct kc_plan *pl, pid_t parent, int fd)
{
	static struct kc_result res;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	res.status = KCHECK_ERROR;
	snprintf(res.msg, sizeof(res.msg), "the namespace's process stopped");
	kernel_side(pl, &res);
	write_all(fd, &res, sizeof(res));
	_exit(0);
}

/* ---- the parent: signals ---- */

volatile sig_atomic_t kc_signal;
static volatile pid_t kc_child;
static const int kc_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define KC_NSIG ((int)(sizeof(kc_signals) / sizeof(kc_signals[0])))

static void kc_on_signal(int sig)
{
	kc_signal = sig;
	if (kc_child > 0)
		kill(kc_child, SIGKILL);
}

/* Forks the child, reads its report. 0, or -1 with the reason in r. */
int kc_run_kernel(const struct kc_plan *pl, struct kc_result *r)
{
	struct sigaction sa = {0}, old[KC_NSIG] = {0};
	sigset_t block, prev;
	int fds[2], status = 0;
	size_t got = 0;
	pid_t pid, self = getpid();

	if (pipe2(fds, O_CLOEXEC))
		return kc_rfail(r, KCHECK_ERROR, "pipe: %s", strerror(errno));
	sigemptyset(&block);
	for (int i = 0; i < KC_NSIG; i++)
		sigaddset(&block, kc_signals[i]);
	sigprocmask(SIG_BLOCK, &block, &prev);
	sa.sa_handler = kc_on_signal; /* no SA_RESTART: read() returns */
	sigemptyset(&sa.sa_mask);
	kc_signal = 0;
	kc_child = 0;
	/* a signal the caller ignores (a background job's SIGINT) stays ignored */
	for (int i = 0; i < KC_NSIG; i++)
		if (!sigaction(kc_signals[i], NULL, &old[i]) && old[i].sa_handler != SIG_IGN)
			sigaction(kc_signals[i], &sa, NULL);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		for (int i = 0; i < KC_NSIG; i++)
			signal(kc_signals[i], old[i].sa_handler == SIG_IGN ? SIG_IGN : SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		sigprocmask(SIG_SETMASK, &prev, NULL);
		close(fds[0]);
		child_main(pl, self, fds[1]);
	}
	if (pid > 0)
		kc_child = pid;
	sigprocmask(SIG_SETMASK, &prev, NULL);
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		for (int i = 0; i < KC_NSIG; i++)
			sigaction(kc_signals[i], &old[i], NULL);
		return kc_rfail(r, KCHECK_ERROR, "fork: %s", strerror(errno));
	}
	while (got < sizeof(*r)) {
		ssize_t n = read(fds[0], (char *)r + got, sizeof(*r) - got);

		if (n < 0 && errno == EINTR && !kc_signal)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fds[0]);
	if (kc_signal || got < sizeof(*r))
		kill(pid, SIGKILL); /* the namespace goes with it */
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	kc_child = 0;
	for (int i = 0; i < KC_NSIG; i++)
		sigaction(kc_signals[i], &old[i], NULL);
	if (kc_signal)
		return kc_rfail(r, KCHECK_ERROR, "interrupted (%s): the namespace is gone",
			     strsignal(kc_signal));
	if (got < sizeof(*r)) {
		if (WIFSIGNALED(status))
			return kc_rfail(r, KCHECK_ERROR, "the namespace's process died (%s)",
				     strsignal(WTERMSIG(status)));
		return kc_rfail(r, KCHECK_ERROR, "the namespace's process stopped without a report");
	}
	return r->status == KCHECK_SAME ? 0 : -1;
}
