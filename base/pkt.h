/* pkt.h - the packet record, tcsim's skb: the frame, the metadata the
 * qdiscs and classifiers read, and the timestamps of its journey. */
#ifndef TCSIM_PKT_H
#define TCSIM_PKT_H

#include <stddef.h>
#include <stdint.h>

/* Why a packet left the simulation without being sent. */
enum pkt_drop {
	DROP_NONE = 0,
	DROP_QDISC_LIMIT,   /* pfifo/bfifo full, sfq total limit overflow */
	DROP_SFQ_DEPTH,     /* sfq per-flow depth reached */
	DROP_SFQ_MAXFLOWS,  /* sfq had no free slot for a new flow */
	DROP_SFQ_CLASSIFY,  /* sfq filters matched nothing / minor 0 */
	DROP_SFQ_REHASH,    /* lost when sfq re-hashed its queues */
	DROP_QDISC_DESTROY, /* queued in a qdisc that was replaced/removed */
	DROP_NOOP,          /* sent to a noop qdisc (3.13 after del of a leaf) */
	DROP_FILTER_SHOT,   /* a filter's action took it (TC_ACT_SHOT, STOLEN, ...: htb) */
	DROP_TBF_SIZE,      /* longer than tbf's max_size (its burst, or mtu) */
	DROP_CODEL,         /* codel (or fq_codel's codel) dropped it at the head: sojourn above target */
	DROP_FQ_CODEL_FAT,  /* fq_codel over its limit or memory: taken from the fattest flow */
	DROP_FQ_CODEL_CLASSIFY, /* fq_codel filters gave no flow (or minor 0, or a shot) */
	DROP_NOQUEUE,       /* noqueue root: the driver (the wire) was busy */
	DROP_HEAD_DROP,     /* pfifo_head_drop full: the oldest packet made room */
	DROP_NETEM_LOSS,    /* netem's loss model lost it (random, 4-state or Gilbert-Elliott) */
	DROP_REASONS
};
const char *pkt_drop_name(enum pkt_drop r);

/* What decided the class: recorded per packet for reports and explain. */
enum pkt_verdict_kind {
	VERDICT_NONE = 0,     /* not classified (root without filters) */
	VERDICT_PRIORITY,     /* skb->priority named the class directly */
	VERDICT_FILTER,       /* a filter matched: classid below */
	VERDICT_UNCLASSIFIED, /* filters present, none matched */
};
/* its word in trace lines and pcapng comments: none, priority, filter,
 * unclassified */
const char *pkt_verdict_name(enum pkt_verdict_kind v);

struct pkt {
	struct pkt *next; /* queue link, owned by whoever queues it */
	struct pkt *prev;
	uint8_t *data;    /* the captured bytes of the frame (owned) */
	uint32_t caplen;  /* bytes in data */
	uint32_t len;     /* qdisc_pkt_len: the original L2 frame length */
	uint16_t protocol;
	uint8_t vlan_present;
	uint8_t traced;   /* report/trace.h follows this packet (fills a padding byte) */
	uint16_t vlan_tci;
	uint16_t vlan_proto;
	uint32_t priority; /* skb->priority */
	uint32_t mark;
	uint32_t hash;
	uint8_t pool_class; /* its pool's free list: data room 128 << pool_class (fills padding) */
	struct pkt_pool *pool; /* where the record returns, or NULL */

	uint64_t id;      /* arrival order, from 1 */
	int source;       /* index of the source it came from */
	uint64_t src_seq; /* packet number within that source, from 1 */
	uint64_t t_arrive, t_dequeue, t_depart; /* ns */
	uint64_t t_cb; /* a qdisc's own time stamp (codel: enqueue time), the kernel's skb cb */

	/* classification at the root, as recorded */
	enum pkt_verdict_kind verdict;
	uint32_t classid;     /* the classid the filter gave (or priority's) */
	uint32_t filter_pref; /* which filter: pref and handle */
	uint32_t filter_handle;
	uint32_t leaf_classid; /* the class of the root it was queued in */
	enum pkt_drop drop;
};

/* A FIFO of packets linked through next/prev. The head's prev is left
 * stale when the packet before it leaves (clearing it would touch a record
 * that is otherwise cold until its own turn); nothing reads it. */
struct pkt_queue {
	struct pkt *head, *tail;
	uint32_t len;
};

static inline void pktq_push_tail(struct pkt_queue *q, struct pkt *p)
{
	p->next = NULL;
	p->prev = q->tail;
	if (q->tail)
		q->tail->next = p;
	else
		q->head = p;
	q->tail = p;
	q->len++;
}

static inline struct pkt *pktq_pop_head(struct pkt_queue *q)
{
	struct pkt *p = q->head;

	if (!p)
		return NULL;
	q->head = p->next;
	if (!q->head)
		q->tail = NULL;
	q->len--;
	p->next = p->prev = NULL;
	return p;
}

static inline struct pkt *pktq_pop_tail(struct pkt_queue *q)
{
	struct pkt *p = q->tail;

	if (!p)
		return NULL;
	if (p == q->head) {
		q->head = q->tail = NULL;
	} else {
		q->tail = p->prev;
		q->tail->next = NULL;
	}
	q->len--;
	p->next = p->prev = NULL;
	return p;
}

/* Recycled packet records of one simulation: a record and room for its
 * bytes in one block (128, 256, ... PKT_POOL_DATA: the smallest that
 * holds them), kept on the free list of its size when released, so the
 * hot path does not call malloc. Memory stays bounded by the packets in
 * flight at the busiest moment, each taking about its own size. */
#define PKT_POOL_DATA 2048
#define PKT_POOL_CLASSES 5 /* 128 << 0 .. 128 << 4 = PKT_POOL_DATA */
struct pkt_pool {
	struct pkt *free[PKT_POOL_CLASSES];
};

/* Copies caplen bytes of frame; NULL when out of memory. With a pool the
 * record comes from it (and goes back to it in pkt_free). */
struct pkt *pkt_new(const uint8_t *frame, uint32_t caplen, uint32_t len);
struct pkt *pkt_pool_new(struct pkt_pool *pool, const uint8_t *frame, uint32_t caplen,
			 uint32_t len);
void pkt_free(struct pkt *p);
void pkt_pool_drain(struct pkt_pool *pool);

/* Gives dst, a record made by pkt_new or pkt_pool_new with src's bytes,
 * every other field of src: dst keeps its own room for the bytes and its
 * pool (a clone, or a record read back from a spill file). */
static inline void pkt_copy_fields(struct pkt *dst, const struct pkt *src)
{
	uint8_t *data = dst->data;
	struct pkt_pool *pool = dst->pool;
	uint8_t cls = dst->pool_class;

	*dst = *src;
	dst->data = data;
	dst->pool = pool;
	dst->pool_class = cls;
}

/* Outer 802.1Q/802.1ad tag to out-of-band (tx VLAN offload). */
void pkt_vlan_offload(struct pkt *p);

/* skb->protocol as eth_type_trans sets it for an Ethernet frame (0 if
 * shorter than its header). */
uint16_t eth_frame_protocol(const uint8_t *frame, uint32_t caplen);

#endif
