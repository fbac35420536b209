/* mark.h - skb->mark of the packets a source yields, as iptables MARK
 * rules in the mangle table would set it before the qdisc: an ordered list
 * of (tcpdump expression, mark); the first rule whose expression selects
 * the frame gives its mark, no rule leaves 0. */
#ifndef TCSIM_MARK_H
#define TCSIM_MARK_H

#include <stddef.h>
#include <stdint.h>

#define MARK_RULES_MAX 16
#define MARK_EXPR_MAX 240

struct mark_rule {
	char expr[MARK_EXPR_MAX]; /* "": every packet */
	uint32_t mark;
};

/* A plain value (copied into the options of each source). */
struct mark_rules {
	size_t n;
	struct mark_rule r[MARK_RULES_MAX];
};

/* Appends a rule; the expression is compiled once to check it. 0, or
 * -EINVAL / -E2BIG with a one-line message naming the expression. */
int mark_rules_add(struct mark_rules *m, const char *expr, uint32_t mark, char *err,
		   size_t errlen);
/* A command-line word: "M" (every packet) or "EXPR=M", M decimal or 0x
 * hex; the mark is after the last '=', so an expression may hold '='. */
int mark_rules_parse(struct mark_rules *m, const char *word, char *err, size_t errlen);

/* The rules compiled for matching Ethernet frames. */
struct mark_filter;
int mark_filter_new(struct mark_filter **out, const struct mark_rules *m, char *err,
		    size_t errlen);
/* The mark of a frame as captured (caplen bytes of len). NULL f: 0. */
uint32_t mark_filter_apply(const struct mark_filter *f, const uint8_t *data, uint32_t caplen,
			   uint32_t len);
void mark_filter_free(struct mark_filter *f);

#endif
