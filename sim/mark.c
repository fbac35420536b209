/* mark.c - skb->mark rules: tcpdump expressions compiled by libpcap for
 * Ethernet, tried in order on each frame, as iptables' mangle table would
 * be before the packet reaches the qdisc (first match wins). */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "mark.h"

/* The snaplen libpcap gives Ethernet: expressions are compiled for it. */
#define MARK_SNAPLEN 262144

struct mark_filter {
	size_t n;
	struct {
		int all; /* no expression: every frame */
		struct bpf_program prog;
		uint32_t mark;
	} r[MARK_RULES_MAX];
};

/* Compiles expr for Ethernet into *prog; the message is libpcap's. */
static int mark_compile(const char *expr, struct bpf_program *prog, char *err, size_t errlen)
{
	pcap_t *p = pcap_open_dead(DLT_EN10MB, MARK_SNAPLEN);
	int ret = 0;

	if (!p)
		return errmsg(err, errlen, -ENOMEM, "out of memory");
	if (pcap_compile(p, prog, expr, 1, PCAP_NETMASK_UNKNOWN) < 0)
		ret = errmsg(err, errlen, -EINVAL, "mark rule '%s': %s", expr, pcap_geterr(p));
	pcap_close(p);
	return ret;
}

int mark_rules_add(struct mark_rules *m, const char *expr, uint32_t mark, char *err,
		   size_t errlen)
{
	struct bpf_program prog;
	int ret;

	if (m->n >= MARK_RULES_MAX)
		return errmsg(err, errlen, -E2BIG, "mark rule '%s': at most %d rules", expr,
			      MARK_RULES_MAX);
	if (strlen(expr) >= MARK_EXPR_MAX)
		return errmsg(err, errlen, -E2BIG,
			      "mark rule '%.40s...': the expression is over %d characters", expr,
			      MARK_EXPR_MAX - 1);
	if (*expr) {
		ret = mark_compile(expr, &prog, err, errlen);
		if (ret)
			return ret;
		pcap_freecode(&prog);
	}
	snprintf(m->r[m->n].expr, sizeof(m->r[m->n].expr), "%s", expr);
	m->r[m->n].mark = mark;
	m->n++;
	return 0;
}

/* A mark: a whole u32, decimal or 0x hex (iptables' --set-mark). */
static int mark_value(const char *s, uint32_t *out)
{
	unsigned long long v;
	char *end;

	while (*s == ' ')
		s++;
	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	while (*end == ' ')
		end++;
	if (errno || *end || v > 0xffffffffu)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int mark_rules_parse(struct mark_rules *m, const char *word, char *err, size_t errlen)
{
	const char *eq = strrchr(word, '=');
	char expr[MARK_EXPR_MAX];
	uint32_t mark;
	size_t n;

	if (!eq) {
		if (mark_value(word, &mark))
			return errmsg(err, errlen, -EINVAL,
				      "mark '%s': not a number (M, or EXPR=M with a tcpdump "
				      "expression)",
				      word);
		return mark_rules_add(m, "", mark, err, errlen);
	}
	if (mark_value(eq + 1, &mark))
		return errmsg(err, errlen, -EINVAL,
			      "mark rule '%s': '%s' after the last '=' is not a mark (a number)",
			      word, eq + 1);
	n = (size_t)(eq - word);
	if (n >= sizeof(expr))
		return errmsg(err, errlen, -E2BIG,
			      "mark rule '%.40s...': the expression is over %d characters", word,
			      MARK_EXPR_MAX - 1);
	memcpy(expr, word, n);
	expr[n] = 0;
	if (!expr[strspn(expr, " ")])
		return errmsg(err, errlen, -EINVAL,
			      "mark rule '%s': no expression before '=' (for every packet, "
			      "give the mark alone)",
			      word);
	return mark_rules_add(m, expr, mark, err, errlen);
}

int mark_filter_new(struct mark_filter **out, const struct mark_rules *m, char *err,
		    size_t errlen)
{
	struct mark_filter *f;
	int ret;

	*out = NULL;
	if (!m || !m->n)
		return 0;
	if (m->n > MARK_RULES_MAX)
		return errmsg(err, errlen, -EINVAL, "%zu mark rules: at most %d", m->n,
			      MARK_RULES_MAX);
	f = calloc(1, sizeof(*f));
	if (!f)
		return errmsg(err, errlen, -ENOMEM, "out of memory");
	for (size_t i = 0; i < m->n; i++) {
		f->r[i].mark = m->r[i].mark;
		f->r[i].all = !m->r[i].expr[0];
		if (f->r[i].all)
			continue;
		f->n = i; /* the rules before i are what to free on failure */
		ret = mark_compile(m->r[i].expr, &f->r[i].prog, err, errlen);
		if (ret) {
			mark_filter_free(f);
			return ret;
		}
	}
	f->n = m->n;
	*out = f;
	return 0;
}

uint32_t mark_filter_apply(const struct mark_filter *f, const uint8_t *data, uint32_t caplen,
			   uint32_t len)
{
	struct pcap_pkthdr h = {.caplen = caplen, .len = len};

	if (!f)
		return 0;
	for (size_t i = 0; i < f->n; i++)
		if (f->r[i].all || pcap_offline_filter(&f->r[i].prog, &h, data))
			return f->r[i].mark;
	return 0;
}

void mark_filter_free(struct mark_filter *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++)
		if (!f->r[i].all)
			pcap_freecode(&f->r[i].prog);
	free(f);
}
