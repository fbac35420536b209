/* pkt.c - packet records. */
#include <stdlib.h>
#include <string.h>

#include "pkt.h"

static const char *const drop_names[DROP_REASONS] = {
	[DROP_NONE] = "none",
	[DROP_QDISC_LIMIT] = "limit",
	[DROP_SFQ_DEPTH] = "sfq_depth",
	[DROP_SFQ_MAXFLOWS] = "sfq_maxflows",
	[DROP_SFQ_CLASSIFY] = "sfq_classify",
	[DROP_SFQ_REHASH] = "sfq_rehash",
	[DROP_QDISC_DESTROY] = "qdisc_destroyed",
	[DROP_NOOP] = "noop",
	[DROP_FILTER_SHOT] = "filter_shot",
	[DROP_TBF_SIZE] = "tbf_max_size",
	[DROP_CODEL] = "codel",
	[DROP_FQ_CODEL_FAT] = "fq_codel_overlimit",
	[DROP_FQ_CODEL_CLASSIFY] = "fq_codel_classify",
	[DROP_NOQUEUE] = "noqueue_busy",
	[DROP_HEAD_DROP] = "head_drop",
	[DROP_NETEM_LOSS] = "netem_loss",
};

const char *pkt_drop_name(enum pkt_drop r)
{
	return r < DROP_REASONS ? drop_names[r] : "unknown";
}

/* All fields 0, in plain vector stores: GCC would make one memset of the
 * whole record a `rep stos`, whose start-up costs more than the record. */
static void pkt_zero(struct pkt *p)
{
	char *b = (char *)p;

	_Static_assert(sizeof(*p) > 128 && sizeof(*p) <= 192, "pkt_zero covers the record");
	memset(b, 0, 64);
	memset(b + 64, 0, 64);
	memset(b + 128, 0, sizeof(*p) - 128);
}

static void pkt_fill(struct pkt *p, const uint8_t *frame, uint32_t caplen, uint32_t len)
{
	/* libc's memcpy: knowing caplen <= PKT_POOL_DATA, GCC would inline a
	 * `rep movsq`, slow to start for frames of a few hundred bytes */
	__asm__("" : "+r"(caplen));
	memcpy(p->data, frame, caplen);
	p->caplen = caplen;
	p->len = len < caplen ? caplen : len;
	p->protocol = eth_frame_protocol(p->data, caplen);
}

struct pkt *pkt_new(const uint8_t *frame, uint32_t caplen, uint32_t len)
{
	struct pkt *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->data = malloc(caplen ? caplen : 1);
	if (!p->data) {
		free(p);
		return NULL;
	}
	pkt_fill(p, frame, caplen, len);
	return p;
}

struct pkt *pkt_pool_new(struct pkt_pool *pool, const uint8_t *frame, uint32_t caplen,
			 uint32_t len)
{
	struct pkt *p;

	unsigned cls;

	if (caplen > PKT_POOL_DATA)
		return pkt_new(frame, caplen, len);
	/* the smallest room of 128 << cls bytes that holds caplen */
	cls = caplen <= 128 ? 0 : 32 - (unsigned)__builtin_clz(caplen - 1) - 7;
	p = pool->free[cls];
	if (p) {
		pool->free[cls] = p->next;
	} else {
		p = malloc(sizeof(*p) + (128u << cls));
		if (!p)
			return NULL;
	}
	pkt_zero(p);
	p->pool_class = (uint8_t)cls;
	p->data = (uint8_t *)(p + 1);
	p->pool = pool;
	pkt_fill(p, frame, caplen, len);
	return p;
}

void pkt_free(struct pkt *p)
{
	if (!p)
		return;
	if (p->pool) {
		p->next = p->pool->free[p->pool_class];
		p->pool->free[p->pool_class] = p;
		return;
	}
	free(p->data);
	free(p);
}

void pkt_pool_drain(struct pkt_pool *pool)
{
	for (int c = 0; c < PKT_POOL_CLASSES; c++)
		while (pool->free[c]) {
			struct pkt *p = pool->free[c];

			pool->free[c] = p->next;
			free(p);
		}
}

/* Moves the outer 802.1Q/802.1ad tag out of the data, as received frames
 * are untagged by the kernel and as a VLAN device with tx offload hands
 * them to the qdisc: the tag becomes vlan_tci/vlan_proto, the frame and
 * qdisc_pkt_len lose its four bytes, skb->protocol is the inner type. */
void pkt_vlan_offload(struct pkt *p)
{
	uint16_t type;

	if (p->caplen < 18)
		return;
	type = (uint16_t)(p->data[12] << 8 | p->data[13]);
	if (type != 0x8100 && type != 0x88a8)
		return;
	p->vlan_present = 1;
	p->vlan_proto = type;
	p->vlan_tci = (uint16_t)(p->data[14] << 8 | p->data[15]);
	memmove(p->data + 12, p->data + 16, p->caplen - 16);
	p->caplen -= 4;
	p->len -= 4;
	p->protocol = eth_frame_protocol(p->data, p->caplen);
}

#define ETH_HLEN 14

uint16_t eth_frame_protocol(const uint8_t *frame, uint32_t caplen)
{
	uint16_t type;

	if (caplen < ETH_HLEN)
		return 0;
	type = (uint16_t)(frame[12] << 8 | frame[13]);
	/* eth_type_trans: lengths below 0x600 are 802.3 frames, raw (IPX,
	 * 0xffff after the header) or LLC. */
	if (type >= 0x600)
		return type;
	if (caplen >= 16 && frame[14] == 0xff && frame[15] == 0xff)
		return 0x0001;
	return 0x0004;
}

const char *pkt_verdict_name(enum pkt_verdict_kind v)
{
	switch (v) {
	case VERDICT_FILTER: return "filter";
	case VERDICT_PRIORITY: return "priority";
	case VERDICT_UNCLASSIFIED: return "unclassified";
	default: return "none";
	}
}
