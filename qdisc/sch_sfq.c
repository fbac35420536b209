/* sch_sfq.c - the sfq qdisc of net/sched/sch_sfq.c (3.13 .. current):
 * packets hashed into buckets by flow, each busy bucket holding a slot
 * served by deficit round robin, with per-flow depth and a total limit.
 *
 * Flow identity (the kernel hashes with a random perturbation, so which
 * flows collide is unknowable): by default ("tuple" hash) two packets share
 * a bucket exactly when their flow keys are equal, buckets being handed out
 * first come from a cursor; "tcsim-hash random" hashes as 3.13 does
 * (jhash_3words of the keys and a perturbation drawn from the simulation's
 * generator), so collisions happen as in a kernel, reproducibly per seed. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow_dissect.h"
#include "jhash.h"
#include "qdisc.h"

#define SFQ_MAX_DEPTH 127 /* packets per flow */
#define SFQ_DEFAULT_FLOWS 128
#define SFQ_MAX_FLOWS (0x10000 - SFQ_MAX_DEPTH - 1)
#define SFQ_EMPTY_SLOT 0xffff
#define SFQ_DEFAULT_HASH_DIVISOR 1024
#define SFQ_HZ 250 /* timer ticks per second (Debian's CONFIG_HZ) for the period bound */
#define NSEC_PER_SEC 1000000000ull

/* cls_act verdicts that end classification without a class */
#define TC_ACT_SHOT 2
#define TC_ACT_STOLEN 4
#define TC_ACT_QUEUED 5
#define TC_ACT_TRAP 8

enum sfq_hash_mode {
	SFQ_HASH_TUPLE,	 /* equal keys share a bucket, distinct keys never do */
	SFQ_HASH_RANDOM, /* the kernel's hash with a seeded perturbation */
};

/* The simulation-wide default (tcsim run --sfq-hash); a qdisc may override
 * it with its tcsim-only word "tcsim-hash tuple|random". */
#define SFQ_ENV_HASH_MODE(env) ((env)->sfq_hash_random ? SFQ_HASH_RANDOM : SFQ_HASH_TUPLE)

/* Slot indexes below SFQ_MAX_FLOWS name slots; SFQ_MAX_FLOWS + d names
 * the head of depth list d, so one link type serves both. */
struct sfq_head {
	uint16_t next, prev;
};

struct sfq_slot {
	struct pkt_queue pkts;
	uint16_t qlen;
	uint16_t next; /* ring of active slots */
	struct sfq_head dep;
	uint16_t hash; /* its bucket */
	int32_t allot; /* credit: 8-byte units in a short (<= 6.12), or bytes */
	uint32_t backlog;
};

/* Key words a bucket is bound to in tuple mode: the ten 32-bit words of
 * the kernel's tuple (src[4], dst[4], ports, ip_proto | n_proto << 8),
 * paired into 64-bit words (word 2i low, 2i + 1 high). */
struct sfq_key {
	uint64_t w[5];
};

/* A slot of tuple mode's key index (open addressing with linear probing,
 * twice as many slots as buckets): 32 bits of the key's hash, whose low
 * bits place it and which a key must match before it is compared, and
 * the bucket + 1 (0: an empty slot). A lookup reads one or two of these
 * neighbours, not the 40-byte keys: with 65536 buckets the keys take
 * megabytes, and each one read is a cache miss. */
struct sfq_islot {
	uint32_t h32;
	uint32_t b1;
};

struct sfq_sched_data {
	uint32_t limit;
	uint32_t divisor;
	uint32_t maxflows;
	uint32_t maxdepth;
	uint32_t quantum;	/* bytes, as configured and dumped */
	int32_t quantum_credit; /* what a round gives, in allot units */
	int perturb_period;	/* seconds */
	int headdrop;
	int allot_bytes;
	int current; /* current kernel's rules, else 3.13's */
	enum sfq_hash_mode hash_mode;
	uint32_t perturbation;

	uint16_t *ht; /* bucket -> slot */
	struct sfq_slot *slots;
	uint16_t tail; /* last slot of the round, SFQ_EMPTY_SLOT when idle */
	uint8_t cur_depth;
	struct sfq_head dep[SFQ_MAX_DEPTH + 1];
	struct pkt *peeked; /* qdisc_peek_dequeued's stash */

	/* tuple mode: the key each bucket is bound to (if isbound) and its
	 * hash bits, found through the index ix of 2 x divisor slots */
	struct sfq_key *keys;
	uint32_t *keyh32;
	uint8_t *isbound;
	struct sfq_islot *ix;
	uint32_t ixmask;
	/* the buckets bound since the last reset, so a perturbation clears only
	 * those (a full sweep of divisor entries per firing made a long, busy
	 * run at divisor 65536 crawl); nbound > divisor: sweep everything */
	uint32_t *bound;
	uint32_t nbound;
	uint32_t cursor;
	uint32_t last; /* the bucket found last: packets come in bursts of a flow */
	/* buckets neither bound nor busy, and buckets busy (ht set): a new key
	 * scans for a bucket only when one exists (a scan of divisor entries per
	 * packet made 100k round-robin flows crawl) */
	uint32_t nfree, nbusy;
};

/* ---- option words (iproute2 tc/q_sfq.c) ---- */

struct sfq_opt {
	uint32_t quantum, limit, divisor, flows, depth;
	int perturb;
	int headdrop;
	int given;	    /* any option: tc sends TCA_OPTIONS */
	int red;	    /* any RED option */
	int hash_mode;	    /* -1 = the simulation's */
	uint32_t red_value; /* RED values are read, then refused */
	int red_flag;
};

/* The words tc takes: how each value is read ('u' u32, 's' size, 'i' int,
 * 'd' double, 'f' a flag), and which word tc's "Illegal" message names
 * (its own slips kept: quantum says "limit", depth says "flows"). */
static const struct sfq_word {
	const char *word;
	char kind;
	int red;
	const char *illegal;
	size_t off;
} sfq_words[] = {
    {"quantum", 's', 0, "limit", offsetof(struct sfq_opt, quantum)},
    {"perturb", 'i', 0, "perturb", offsetof(struct sfq_opt, perturb)},
    {"limit", 'u', 0, "limit", offsetof(struct sfq_opt, limit)},
    {"divisor", 'u', 0, "divisor", offsetof(struct sfq_opt, divisor)},
    {"flows", 'u', 0, "flows", offsetof(struct sfq_opt, flows)},
    {"depth", 'u', 0, "flows", offsetof(struct sfq_opt, depth)},
    {"headdrop", 'f', 0, NULL, offsetof(struct sfq_opt, headdrop)},
    {"redflowlimit", 'u', 1, "redflowlimit", offsetof(struct sfq_opt, red_value)},
    {"min", 'u', 1, "min", offsetof(struct sfq_opt, red_value)},
    {"max", 'u', 1, "max", offsetof(struct sfq_opt, red_value)},
    {"burst", 'u', 1, "burst", offsetof(struct sfq_opt, red_value)},
    {"avpkt", 's', 1, "avpkt", offsetof(struct sfq_opt, red_value)},
    {"probability", 'd', 1, "probability", 0},
    {"ecn", 'f', 1, NULL, offsetof(struct sfq_opt, red_flag)},
    {"harddrop", 'f', 1, NULL, offsetof(struct sfq_opt, red_flag)},
};

static const char sfq_usage[] =
    "Usage: ... sfq [ limit NUMBER ] [ perturb SECS ] [ quantum BYTES ] "
    "[ divisor NUMBER ] [ flows NUMBER] [ depth NUMBER ] [ headdrop ] "
    "[ redflowlimit BYTES ] [ min BYTES ] [ max BYTES ] [ avpkt BYTES ] "
    "[ burst PACKETS ] [ probability P ] [ ecn ] [ harddrop ]";

/* get_integer: an int in any base, nothing after it */
static int sfq_get_integer(int *out, const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (end == s || *end || errno == ERANGE || v < INT_MIN || v > INT_MAX)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

static int sfq_get_value(struct sfq_opt *o, const struct sfq_word *w, const char *v)
{
	void *field = (char *)o + w->off;
	char *end;

	switch (w->kind) {
	case 'u': return tc_get_u32(field, v, 0);
	case 's': return tc_get_size(field, v);
	case 'i': return sfq_get_integer(field, v);
	default: /* 'd': tc's sscanf("%lg") wants a number at the start */
		(void)strtod(v, &end);
		return end == v ? -EINVAL : 0;
	}
}

/* sfq_parse_opt of tc/q_sfq.c, and the tcsim-only "tcsim-hash" word. */
static int sfq_parse(struct sfq_opt *o, int argc, char **argv, char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	o->hash_mode = -1;
	for (int i = 0; i < argc; i++) {
		const struct sfq_word *w = NULL;

		for (size_t k = 0; k < sizeof(sfq_words) / sizeof(sfq_words[0]); k++)
			if (!strcmp(argv[i], sfq_words[k].word))
				w = &sfq_words[k];
		if (!strcmp(argv[i], "help")) {
			snprintf(err, errlen, "sfq: %s", sfq_usage);
			return -EINVAL;
		}
		if (!w && strcmp(argv[i], "tcsim-hash")) {
			snprintf(err, errlen, "sfq: What is \"%s\"? %s", argv[i], sfq_usage);
			return -EINVAL;
		}
		if ((!w || w->kind != 'f') && i + 1 >= argc) {
			snprintf(err, errlen, "Command line is not complete. Try option \"help\"");
			return -EINVAL;
		}
		if (!w) {
			const char *v = argv[++i];

			if (strcmp(v, "tuple") && strcmp(v, "random")) {
				snprintf(
				    err, errlen,
				    "sfq: \"tcsim-hash\" is \"tuple\" or \"random\", not \"%s\"",
				    v);
				return -EINVAL;
			}
			o->hash_mode = !strcmp(v, "tuple") ? SFQ_HASH_TUPLE : SFQ_HASH_RANDOM;
			continue;
		}
		if (w->kind == 'f') {
			*(int *)((char *)o + w->off) = 1;
		} else if (sfq_get_value(o, w, argv[++i])) {
			snprintf(err, errlen, "sfq: Illegal \"%s\"", w->illegal);
			return -EINVAL;
		}
		if (w->off == offsetof(struct sfq_opt, limit) && o->limit < 2) {
			snprintf(err, errlen, "sfq: Illegal \"limit\", must be > 1");
			return -EINVAL;
		}
		o->red |= w->red;
		o->given |= !w->red;
	}
	if (o->red) {
		snprintf(err, errlen,
			 "sfq: RED options (redflowlimit, min, max, avpkt, burst, probability, "
			 "ecn, harddrop) are not modelled: the kernel's RED marks and drops at "
			 "random, which a simulation cannot match packet for packet");
		return -EOPNOTSUPP;
	}
	return 0;
}

/* ---- credit arithmetic ---- */

/* 3.13 .. 6.12 keep the credit in a short: wrap as the store would. */
static int32_t sfq_short(int64_t v)
{
	v &= 0xffff;
	return (int32_t)(v >= 0x8000 ? v - 0x10000 : v);
}

static int32_t sfq_store_allot(const struct sfq_sched_data *sd, int64_t v)
{
	return sd->allot_bytes ? (int32_t)v : sfq_short(v);
}

static uint32_t sfq_cost(const struct sfq_sched_data *sd, uint32_t len)
{
	return sd->allot_bytes ? len : (uint32_t)(((uint64_t)len + 7) / 8);
}

/* ---- depth lists ---- */

static struct sfq_head *sfq_dep_head(struct sfq_sched_data *sd, uint16_t i)
{
	return i < SFQ_MAX_FLOWS ? &sd->slots[i].dep : &sd->dep[i - SFQ_MAX_FLOWS];
}

/* Links slot x at the head of the list of its current length. */
static void sfq_link(struct sfq_sched_data *sd, uint16_t x)
{
	struct sfq_slot *slot = &sd->slots[x];
	uint16_t head = (uint16_t)(SFQ_MAX_FLOWS + slot->qlen);
	uint16_t n = sd->dep[slot->qlen].next;

	slot->dep.next = n;
	slot->dep.prev = head;
	sd->dep[slot->qlen].next = x;
	sfq_dep_head(sd, n)->prev = x;
}

/* Unlinks slot x; tells whether it was alone in its list. */
static int sfq_unlink(struct sfq_sched_data *sd, uint16_t x)
{
	uint16_t n = sd->slots[x].dep.next, p = sd->slots[x].dep.prev;

	sfq_dep_head(sd, p)->next = n;
	sfq_dep_head(sd, n)->prev = p;
	return n == p;
}

static void sfq_dec(struct sfq_sched_data *sd, uint16_t x)
{
	int alone = sfq_unlink(sd, x);

	if (alone && sd->cur_depth == sd->slots[x].qlen)
		sd->cur_depth--;
	sd->slots[x].qlen--;
	sfq_link(sd, x);
}

static void sfq_inc(struct sfq_sched_data *sd, uint16_t x)
{
	sfq_unlink(sd, x);
	sd->slots[x].qlen++;
	if (sd->cur_depth < sd->slots[x].qlen)
		sd->cur_depth = (uint8_t)sd->slots[x].qlen;
	sfq_link(sd, x);
}

/* A slot that just got its first packet joins the end of the round with
 * a full quantum. */
static void sfq_activate(struct sfq_sched_data *sd, uint16_t x)
{
	struct sfq_slot *slot = &sd->slots[x];

	if (sd->tail == SFQ_EMPTY_SLOT) {
		slot->next = x;
	} else {
		slot->next = sd->slots[sd->tail].next;
		sd->slots[sd->tail].next = x;
	}
	sd->tail = x;
	slot->allot = sfq_store_allot(sd, sd->quantum_credit);
}


/* The key tuple of the kernel version: 3.13's (src, dst, ports, protocol)
 * or current's symmetric tuple with EtherType and full IPv6 addresses. */
static void sfq_flow_key(const struct qdisc *q, const struct pkt *p, struct flow_keys *fk)
{
	const struct sfq_sched_data *sd = q->priv;

	/* the frame as qdisc_pkt_skb shows it: network header after the
	 * 14-byte MAC header, skb->protocol the packet's */
	flow_dissect_frame(p->data, p->caplen, p->len, 14, p->protocol, q->env->kernel, fk);
	if (sd->current)
		flow_keys_symmetric(fk);
}

/* Word i of the tuple: src[4], dst[4], ports, ip_proto | n_proto << 8. */
static uint32_t sfq_key_word(const struct flow_keys *fk, int i)
{
	uint32_t v = i < 4 ? fk->src[i] : i < 8 ? fk->dst[i - 4] : i == 8 ? fk->ports
				      : fk->ip_proto | (uint32_t)fk->n_proto << 8;

	/* one 32-bit read each: the dissector has just stored these words one
	 * by one, and the wider reads a vectorising compiler would make of
	 * neighbours wait for those stores to retire */
	__asm__("" : "+r"(v));
	return v;
}

static void sfq_key_pack(struct sfq_key *key, const struct flow_keys *fk)
{
	for (int i = 0; i < 5; i++)
		key->w[i] = (uint64_t)sfq_key_word(fk, 2 * i) |
			    (uint64_t)sfq_key_word(fk, 2 * i + 1) << 32;
}

/* ht[b] = x, keeping nfree and nbusy */
static void sfq_ht_set(struct sfq_sched_data *sd, uint32_t b, uint16_t x)
{
	uint32_t was = sd->ht[b] == SFQ_EMPTY_SLOT, is = x == SFQ_EMPTY_SLOT;

	if (sd->isbound && !sd->isbound[b])
		sd->nfree += is - was;
	sd->nbusy += was - is;
	sd->ht[b] = x;
}

static void sfq_map_reset(struct sfq_sched_data *sd)
{
	if (!sd->isbound)
		return;
	if (sd->nbound > sd->divisor) {
		sd->nfree = 0;
		memset(sd->ix, 0, sizeof(*sd->ix) * (sd->ixmask + 1));
		for (uint32_t i = 0; i < sd->divisor; i++) {
			sd->isbound[i] = 0;
			sd->nfree += sd->ht[i] == SFQ_EMPTY_SLOT;
		}
	} else {
		/* every slot in use holds a bound bucket, and a bucket's slot
		 * lies in the run of used slots from its key's place: emptying
		 * the run from each bound key's place empties the index (what is
		 * left of a run after one is emptied is still a run) */
		for (uint32_t i = 0; i < sd->nbound; i++) {
			uint32_t b = sd->bound[i];

			if (sd->isbound[b]) {
				for (uint32_t k = sd->keyh32[b] & sd->ixmask;
				     sd->ix[k].b1; k = (k + 1) & sd->ixmask)
					sd->ix[k].b1 = 0;
				sd->isbound[b] = 0;
				sd->nfree += sd->ht[b] == SFQ_EMPTY_SLOT;
			}
		}
	}
	sd->nbound = 0;
	sd->cursor = 0;
}

/* Only an index into tcsim's own key table (never a bucket number the
 * kernel would see), so a cheap multiply-xor mix is enough. */
static uint32_t sfq_key_h32(const struct sfq_key *key)
{
	const uint64_t *w = key->w;
	uint64_t a, b;

	/* two independent lanes, then one more round to mix them */
	a = (0x9e3779b97f4a7c15ull ^ w[0]) * 0xff51afd7ed558ccdull;
	b = (0xc2b2ae3d27d4eb4full ^ w[1]) * 0xc4ceb9fe1a85ec53ull;
	a = (a ^ w[2]) * 0xff51afd7ed558ccdull;
	b = (b ^ w[3]) * 0xc4ceb9fe1a85ec53ull;
	a = (a ^ w[4] ^ (b >> 29) ^ b) * 0xff51afd7ed558ccdull;
	return (uint32_t)(a >> 32);
}

static int sfq_key_equal(const struct sfq_key *x, const struct sfq_key *y)
{
	const uint64_t *a = x->w, *b = y->w;

	return !((a[0] ^ b[0]) | (a[1] ^ b[1]) | (a[2] ^ b[2]) | (a[3] ^ b[3]) | (a[4] ^ b[4]));
}

/* Bucket b loses its key: its index slot is emptied, and the slots after
 * it that a lookup would then no longer reach move back (linear probing's
 * deletion: an entry stays where it is while its place lies cyclically
 * after the emptied slot and not after the entry). */
static void sfq_unbind(struct sfq_sched_data *sd, uint32_t b)
{
	uint32_t m = sd->ixmask, i = sd->keyh32[b] & m, j, k;

	while (sd->ix[i].b1 != b + 1)
		i = (i + 1) & m;
	for (j = (i + 1) & m; sd->ix[j].b1; j = (j + 1) & m) {
		k = sd->ix[j].h32 & m;
		if (i <= j ? i < k && k <= j : i < k || k <= j)
			continue;
		sd->ix[i] = sd->ix[j];
		i = j;
	}
	sd->ix[i].b1 = 0;
	sd->isbound[b] = 0;
	sd->nfree += sd->ht[b] == SFQ_EMPTY_SLOT;
}

/* Tuple mode: the bucket bound to this key; a new key takes the first
 * bucket from the cursor that is neither bound nor busy, else the first
 * idle one (whose old key loses it). Every bucket busy: -1, the flow has
 * no room (with flows <= divisor, no free slot either). */
static int32_t sfq_tuple_bucket(struct sfq_sched_data *sd, const struct sfq_key *key)
{
	uint32_t h32, mask = sd->divisor - 1, b, k;
	int32_t i;

	/* a key is bound to one bucket at most: if the last one holds it, that is it */
	if (sd->isbound[sd->last] && sfq_key_equal(&sd->keys[sd->last], key))
		return (int32_t)sd->last;
	/* a new key usually takes the bucket at the cursor, unbinding its old
	 * key: that key's index slot is fetched while this key's is looked
	 * up, the two cache misses at once, and so is the key's room */
	if (sd->isbound[sd->cursor] && sd->ht[sd->cursor] == SFQ_EMPTY_SLOT)
		__builtin_prefetch(&sd->ix[sd->keyh32[sd->cursor] & sd->ixmask], 1);
	__builtin_prefetch(&sd->keys[sd->cursor], 1);
	__builtin_prefetch((const char *)&sd->keys[sd->cursor + 1] - 1, 1);
	h32 = sfq_key_h32(key);
	for (k = h32 & sd->ixmask; sd->ix[k].b1; k = (k + 1) & sd->ixmask)
		if (sd->ix[k].h32 == h32 && sfq_key_equal(&sd->keys[sd->ix[k].b1 - 1], key)) {
			sd->last = sd->ix[k].b1 - 1;
			return (int32_t)sd->last;
		}
	for (i = 0; sd->nfree && i < (int32_t)sd->divisor; i++) {
		b = (sd->cursor + (uint32_t)i) & mask;
		if (!sd->isbound[b] && sd->ht[b] == SFQ_EMPTY_SLOT)
			goto take;
	}
	for (i = 0; sd->nbusy < sd->divisor && i < (int32_t)sd->divisor; i++) {
		b = (sd->cursor + (uint32_t)i) & mask;
		if (sd->ht[b] == SFQ_EMPTY_SLOT) {
			sfq_unbind(sd, b);
			goto take;
		}
	}
	return -1;
take:
	sd->nfree -= sd->ht[b] == SFQ_EMPTY_SLOT; /* it is idle: it was free */
	sd->keys[b] = *key;
	sd->keyh32[b] = h32;
	sd->isbound[b] = 1;
	if (sd->nbound < sd->divisor)
		sd->bound[sd->nbound] = b;
	if (sd->nbound <= sd->divisor)
		sd->nbound++;
	/* the first empty slot from its place (an unbind may have moved the
	 * slots the lookup saw) */
	for (k = h32 & sd->ixmask; sd->ix[k].b1; k = (k + 1) & sd->ixmask)
		;
	sd->ix[k].h32 = h32;
	sd->ix[k].b1 = b + 1;
	sd->cursor = (b + 1) & mask;
	sd->last = b;
	return (int32_t)b;
}

/* sfq_hash: the packet's bucket from its flow keys, -1 when tuple mode
 * has none to give. */
static int32_t sfq_hash(struct qdisc *q, const struct pkt *p)
{
	struct sfq_sched_data *sd = q->priv;
	struct flow_keys fk;
	struct sfq_key key;
	uint32_t w[10];

	sfq_flow_key(q, p, &fk);
	if (sd->hash_mode == SFQ_HASH_TUPLE) {
		sfq_key_pack(&key, &fk);
		return sfq_tuple_bucket(sd, &key);
	}
	if (!sd->current)
		return (int32_t)(jhash_3words(fk.dst[0], fk.src[0] ^ fk.ip_proto, fk.ports,
					      sd->perturbation) &
				 (sd->divisor - 1));
	/* current kernels: siphash of the keys with a random key; any good
	 * keyed hash collides alike */
	for (int i = 0; i < 10; i++)
		w[i] = sfq_key_word(&fk, i);
	return (int32_t)(jhash_words(w, 10, sd->perturbation) & (sd->divisor - 1));
}

static uint32_t sfq_random32(const struct qdisc *q)
{
	return q->env->random ? (uint32_t)(q->env->random(q->env->arg) >> 32) : 0;
}

/* ---- enqueue ---- */

/* A queued packet leaves sfq's counters (it is being dropped). */
static void sfq_unaccount(struct qdisc *q, const struct pkt *p)
{
	q->s.qlen--;
	q->s.backlog -= p->len;
}

/* A traced packet queued in slot x of bucket hash. */
static void sfq_trace_enqueue(const struct qdisc *q, const struct pkt *p, uint32_t hash,
			      uint16_t x)
{
	const struct sfq_sched_data *sd = q->priv;
	struct qtrace ev = {.kind = QTRACE_ENQUEUE, .band = -1, .has_bucket = 1,
			    .bucket = hash, .slot = x, .flow_qlen = sd->slots[x].qlen};

	qdisc_trace(q, p, &ev);
}

/* sfq_classify: bucket + 1, or 0 when the packet is gone (its drop is
 * done here, as the kernel's caller does it). */
static uint32_t sfq_classify(struct qdisc *q, struct pkt *p, int *ret)
{
	struct sfq_sched_data *sd = q->priv;
	uint32_t prio = p->priority;
	struct tcf_result res = {0};
	struct bpf_skb skb;
	int32_t b;
	int r;

	if (TC_H_MAJ(prio) == q->handle && TC_H_MIN(prio) > 0 && TC_H_MIN(prio) <= sd->divisor) {
		qdisc_record_verdict(q, p, VERDICT_PRIORITY, NULL, prio);
		if (p->traced)
			qdisc_trace_bucket(q, p, VERDICT_PRIORITY, prio, QRULE_PRIORITY, TC_H_MIN(prio));
		return TC_H_MIN(prio);
	}
	if (!q->chain.head) {
		qdisc_record_verdict(q, p, VERDICT_NONE, NULL, 0);
		b = sfq_hash(q, p);
		if (b >= 0)
			return (uint32_t)b + 1;
		*ret = qdisc_drop(q, p, DROP_SFQ_MAXFLOWS);
		return 0;
	}
	qdisc_pkt_skb(q, p, &skb);
	r = p->traced ? qdisc_classify_traced(q, p, &skb, &res)
		       : tcf_classify(&q->chain, &skb, qdisc_pkt_protocol(p), &res);
	if (p->traced)
		qdisc_trace_bucket(q, p, r >= 0 ? VERDICT_FILTER : VERDICT_UNCLASSIFIED,
				   r >= 0 ? res.classid : 0,
				   r >= 0 && r != TC_ACT_SHOT && TC_H_MIN(res.classid) <= sd->divisor &&
					   TC_H_MIN(res.classid) > 0
				       ? QRULE_FILTER
				       : QRULE_DROP,
				   TC_H_MIN(res.classid));
	qdisc_record_verdict(q, p, r >= 0 ? VERDICT_FILTER : VERDICT_UNCLASSIFIED, r >= 0 ? &res : NULL,
		   r >= 0 ? res.classid : 0);
	if (r == TC_ACT_STOLEN || r == TC_ACT_QUEUED || (r == TC_ACT_TRAP && sd->current)) {
		/* consumed by an action: gone, but not a drop of sfq's */
		p->drop = DROP_SFQ_CLASSIFY;
		q->env->drop(q->env->arg, p);
		*ret = NET_XMIT_DROP;
		return 0;
	}
	if (r >= 0 && r != TC_ACT_SHOT && TC_H_MIN(res.classid) <= sd->divisor &&
	    TC_H_MIN(res.classid) > 0)
		return TC_H_MIN(res.classid);
	*ret = qdisc_drop(q, p, DROP_SFQ_CLASSIFY);
	return 0;
}

/* sfq_drop: takes one packet off the longest slot (its tail, or its head
 * with headdrop); when every slot holds one packet, the next slot to be
 * served loses its packet and leaves the round. */
static struct pkt *sfq_drop(struct sfq_sched_data *sd)
{
	struct sfq_slot *slot;
	struct pkt *p;
	uint16_t x;

	if (sd->cur_depth > 1) {
		x = sd->dep[sd->cur_depth].next;
		slot = &sd->slots[x];
	} else if (sd->cur_depth == 1) {
		x = sd->slots[sd->tail].next;
		slot = &sd->slots[x];
		if (slot->next == x)
			sd->tail = SFQ_EMPTY_SLOT;
		else
			sd->slots[sd->tail].next = slot->next;
		sfq_ht_set(sd, slot->hash, SFQ_EMPTY_SLOT);
	} else {
		return NULL;
	}
	p = sd->headdrop ? pktq_pop_head(&slot->pkts) : pktq_pop_tail(&slot->pkts);
	slot->backlog -= p->len;
	sfq_dec(sd, x);
	return p;
}

/* The ancestors learn of packets sfq dropped on its own. 3.13 had only
 * qdisc_tree_decrease_qlen (packets); current kernels also pass bytes,
 * which may be "negative" (a wrapped difference, as in the kernel). */
static void sfq_tell_parents(struct qdisc *q, uint32_t n, uint64_t len)
{
	struct sfq_sched_data *sd = q->priv;

	if (!sd->current) {
		if (n)
			qdisc_tree_reduce_backlog(q, n, 0);
		return;
	}
	if (n || len)
		qdisc_tree_reduce_backlog(q, n, len);
}

static int sfq_enqueue(struct qdisc *q, struct pkt *p)
{
	struct sfq_sched_data *sd = q->priv;
	uint32_t len = p->len, hash, dropped_len;
	struct sfq_slot *slot;
	struct pkt *victim;
	uint16_t x, qlen;
	int ret = NET_XMIT_DROP;

	hash = sfq_classify(q, p, &ret);
	if (!hash)
		return ret;
	hash--;
	if (!q->parent_q)
		p->leaf_classid = TC_H_MAKE(q->handle, hash + 1);

	x = sd->ht[hash];
	if (x == SFQ_EMPTY_SLOT) {
		x = sd->dep[0].next; /* a free slot */
		if (x >= SFQ_MAX_FLOWS)
			return qdisc_drop(q, p, DROP_SFQ_MAXFLOWS);
		sfq_ht_set(sd, (uint32_t)hash, x);
		slot = &sd->slots[x];
		slot->hash = (uint16_t)hash;
		slot->backlog = 0;
		goto enqueue; /* a new flow skips the depth check */
	}
	slot = &sd->slots[x];
	if (slot->qlen >= sd->maxdepth) {
		struct pkt *head;
		uint32_t head_len;

		if (!sd->headdrop)
			return qdisc_drop(q, p, DROP_SFQ_DEPTH);
		/* the flow's oldest packet makes room; the count stays */
		head = pktq_pop_head(&slot->pkts);
		head_len = head->len;
		slot->backlog = slot->backlog - head_len + len;
		pktq_push_tail(&slot->pkts, p);
		sfq_unaccount(q, head);
		qdisc_enqueued(q, p);
		if (p->traced)
			sfq_trace_enqueue(q, p, hash, x);
		qdisc_drop(q, head, DROP_SFQ_DEPTH);
		sfq_tell_parents(q, 0, (uint64_t)head_len - len);
		return NET_XMIT_CN;
	}

enqueue:
	slot->backlog += len;
	pktq_push_tail(&slot->pkts, p);
	sfq_inc(sd, x);
	if (slot->qlen == 1)
		sfq_activate(sd, x);
	if (q->s.qlen + 1 <= sd->limit) {
		qdisc_enqueued(q, p);
		if (p->traced)
			sfq_trace_enqueue(q, p, hash, x);
		return NET_XMIT_SUCCESS;
	}

	/* Over the limit: the arriving packet is queued, then the longest
	 * flow loses one (it may be the arriving packet itself). */
	qlen = slot->qlen;
	victim = sfq_drop(sd);
	dropped_len = victim->len;
	if (victim != p) {
		sfq_unaccount(q, victim);
		qdisc_enqueued(q, p);
		if (p->traced)
			sfq_trace_enqueue(q, p, hash, x);
	}
	qdisc_drop(q, victim, DROP_QDISC_LIMIT);
	if (qlen != slot->qlen) {
		sfq_tell_parents(q, 0, (uint64_t)dropped_len - len);
		return NET_XMIT_CN;
	}
	sfq_tell_parents(q, 1, dropped_len);
	return NET_XMIT_SUCCESS;
}

/* ---- dequeue ---- */

/* The DRR step: the next slot with credit gives its head packet. */
static struct pkt *sfq_dequeue_slot(struct sfq_sched_data *sd)
{
	struct sfq_slot *slot;
	struct pkt *p;
	uint16_t a;

	if (sd->tail == SFQ_EMPTY_SLOT)
		return NULL;
	for (;;) {
		a = sd->slots[sd->tail].next;
		slot = &sd->slots[a];
		if (slot->allot > 0)
			break;
		sd->tail = a;
		slot->allot = sfq_store_allot(sd, (int64_t)slot->allot + sd->quantum_credit);
	}
	p = pktq_pop_head(&slot->pkts);
	sfq_dec(sd, a);
	slot->backlog -= p->len;
	if (slot->qlen == 0) {
		/* empty: out of the round, its credit forgotten */
		sfq_ht_set(sd, slot->hash, SFQ_EMPTY_SLOT);
		if (slot->next == a)
			sd->tail = SFQ_EMPTY_SLOT;
		else
			sd->slots[sd->tail].next = slot->next;
	} else {
		slot->allot = sfq_store_allot(sd, (int64_t)slot->allot - sfq_cost(sd, p->len));
	}
	return p;
}

static struct pkt *sfq_dequeue(struct qdisc *q)
{
	struct sfq_sched_data *sd = q->priv;
	struct pkt *p = sd->peeked;

	if (p) {
		/* qdisc_dequeue_peeked: counted when it was peeked */
		sd->peeked = NULL;
		q->s.qlen--;
		if (sd->current)
			q->s.backlog -= p->len;
		return p;
	}
	p = sfq_dequeue_slot(sd);
	if (p)
		qdisc_dequeued(q, p);
	return p;
}

/* The packet sfq_dequeue_slot would give, worked out on copies of the
 * credits: each pass round the ring tops up the slots it finds without
 * credit, so the first slot to reach a positive credit, in pass order and
 * then ring order, is served. For tracing only; NULL past a few passes. */
static const struct pkt *sfq_head_of(const struct qdisc *q)
{
	const struct sfq_sched_data *sd = q->priv;

	if (sd->peeked)
		return sd->peeked;
	if (sd->tail == SFQ_EMPTY_SLOT)
		return NULL;
	for (int pass = 0; pass < 8; pass++) {
		uint16_t a = sd->tail;

		do {
			const struct sfq_slot *slot;
			int32_t v;

			a = sd->slots[a].next;
			slot = &sd->slots[a];
			v = slot->allot;
			for (int k = 0; k < pass && v <= 0; k++)
				v = sfq_store_allot(sd, (int64_t)v + sd->quantum_credit);
			if (v > 0)
				return slot->pkts.head;
		} while (a != sd->tail);
	}
	return NULL;
}

/* qdisc_peek_dequeued: sfq cannot look ahead without serving, so the
 * packet is dequeued (bstats counted) and held; it still counts in qlen
 * (and, in current kernels, in the backlog). */
static const struct pkt *sfq_peek(struct qdisc *q)
{
	struct sfq_sched_data *sd = q->priv;
	struct pkt *p;

	if (sd->peeked)
		return sd->peeked;
	p = sfq_dequeue_slot(sd);
	if (!p)
		return NULL;
	qdisc_dequeued(q, p);
	q->s.qlen++;
	if (sd->current)
		q->s.backlog += p->len;
	sd->peeked = p;
	return p;
}

/* ---- perturbation ---- */

/* A packet lost in a rehash: gone, parents told, sfq's drops unchanged. */
static void sfq_rehash_drop(struct qdisc *q, struct pkt *p)
{
	sfq_unaccount(q, p);
	p->drop = DROP_SFQ_REHASH;
	q->env->drop(q->env->arg, p);
}

/* sfq_rehash: every queued packet, slot by slot in index order, goes back
 * in under the new hash; those that find no slot or a full one are lost. */
static void sfq_rehash(struct qdisc *q)
{
	struct sfq_sched_data *sd = q->priv;
	struct pkt_queue list = {0};
	uint32_t dropped = 0;
	uint64_t drop_len = 0;
	struct pkt *p;

	for (uint32_t i = 0; i < sd->maxflows; i++) {
		struct sfq_slot *slot = &sd->slots[i];

		if (!slot->qlen)
			continue;
		while (slot->qlen) {
			pktq_push_tail(&list, pktq_pop_head(&slot->pkts));
			sfq_dec(sd, (uint16_t)i);
		}
		slot->backlog = 0;
		sfq_ht_set(sd, slot->hash, SFQ_EMPTY_SLOT);
	}
	sd->tail = SFQ_EMPTY_SLOT;

	while ((p = pktq_pop_head(&list))) {
		int32_t hash = sfq_hash(q, p);
		struct sfq_slot *slot;
		uint16_t x;

		if (hash < 0)
			goto drop;
		x = sd->ht[hash];
		if (x == SFQ_EMPTY_SLOT) {
			x = sd->dep[0].next;
			if (x >= SFQ_MAX_FLOWS)
				goto drop;
			sfq_ht_set(sd, (uint32_t)hash, x);
			sd->slots[x].hash = (uint16_t)hash;
		}
		slot = &sd->slots[x];
		if (slot->qlen >= sd->maxdepth)
			goto drop;
		pktq_push_tail(&slot->pkts, p);
		slot->backlog += p->len;
		sfq_inc(sd, x);
		if (slot->qlen == 1)
			sfq_activate(sd, x);
		continue;
	drop:
		dropped++;
		drop_len += p->len;
		sfq_rehash_drop(q, p);
	}
	sfq_tell_parents(q, dropped, drop_len);
}

static void sfq_arm(struct qdisc *q)
{
	struct sfq_sched_data *sd = q->priv;
	uint64_t now = q->env->now ? q->env->now(q->env->arg) : 0;

	if (q->env->arm_timer)
		q->env->arm_timer(q->env->arg, q,
				  now + (uint64_t)sd->perturb_period * NSEC_PER_SEC);
}

/* sfq_perturbation: a new hash; what is queued is rehashed unless filters
 * choose the buckets. */
static void sfq_timer(struct qdisc *q)
{
	struct sfq_sched_data *sd = q->priv;

	sd->perturbation = sfq_random32(q);
	sfq_map_reset(sd);
	if (!q->chain.head && sd->tail != SFQ_EMPTY_SLOT)
		sfq_rehash(q);
	if (sd->perturb_period)
		sfq_arm(q);
}

/* Empty, a perturbation draws one value, finds nothing to rehash and
 * re-arms: the simulation may skip a run of them over idle time. */
static uint64_t sfq_idle_period(const struct qdisc *q)
{
	const struct sfq_sched_data *sd = q->priv;

	return q->s.qlen || sd->tail != SFQ_EMPTY_SLOT ? 0 : (uint64_t)sd->perturb_period * NSEC_PER_SEC;
}

/* ---- configuration ---- */

/* sfq_change as sfq_init runs it: validation, then the fields in the
 * kernel's order (zero keeps the default). */
static int sfq_configure(struct qdisc *q, const struct sfq_opt *o, char *err, size_t errlen)
{
	struct sfq_sched_data *sd = q->priv;
	uint32_t quantum = sd->quantum, maxflows = sd->maxflows, divisor = sd->divisor;
	uint32_t maxdepth = sd->maxdepth, limit = sd->limit;

	if (o->divisor && ((o->divisor & (o->divisor - 1)) || o->divisor > 65536)) {
		snprintf(err, errlen,
			 "RTNETLINK answers: Invalid argument (sfq: divisor %u is not a power of "
			 "two up to 65536)",
			 o->divisor);
		return -EINVAL;
	}
	if (sd->current && sd->allot_bytes && (int32_t)o->quantum < 0) {
		snprintf(err, errlen, "Error: sch_sfq: invalid quantum.");
		return -EINVAL;
	}
	if (sd->current && !sd->allot_bytes && o->quantum && (o->quantum + 7ull) / 8 > 32767) {
		snprintf(err, errlen,
			 "RTNETLINK answers: Invalid argument (sfq: quantum %u is more than 32767 "
			 "8-byte units)",
			 o->quantum);
		return -EINVAL;
	}
	if (o->perturb < 0 || o->perturb > INT_MAX / SFQ_HZ) {
		if (sd->current) {
			snprintf(err, errlen, "Error: sch_sfq: invalid perturb period.");
			return -EINVAL;
		}
		snprintf(err, errlen, "sfq: perturb %d is not modelled: %s", o->perturb,
			 o->perturb < 0
			     ? "3.13 would arm its timer in the past and re-hash on every tick"
			     : "3.13's period in timer ticks would overflow");
		return -EOPNOTSUPP;
	}

	if (o->quantum)
		quantum = o->quantum;
	if (o->flows)
		maxflows = o->flows < SFQ_MAX_FLOWS ? o->flows : SFQ_MAX_FLOWS;
	if (o->divisor) {
		divisor = o->divisor;
		if (maxflows > divisor)
			maxflows = divisor;
	}
	if (o->depth)
		maxdepth = o->depth < SFQ_MAX_DEPTH ? o->depth : SFQ_MAX_DEPTH;
	if (o->limit) {
		limit = o->limit < maxdepth * maxflows ? o->limit : maxdepth * maxflows;
		if (maxflows > limit)
			maxflows = limit;
	}
	if (sd->current && limit == 1) {
		snprintf(err, errlen, "Error: sch_sfq: invalid limit.");
		return -EINVAL;
	}
	sd->quantum = quantum;
	sd->perturb_period = o->perturb;
	sd->maxflows = maxflows;
	sd->divisor = divisor;
	sd->maxdepth = maxdepth;
	sd->headdrop = o->headdrop;
	sd->limit = limit;
	return 0;
}

static int sfq_init(struct qdisc *q, int argc, char **argv, char *err, size_t errlen)
{
	struct sfq_sched_data *sd = q->priv;
	struct sfq_opt o;
	int ret;

	ret = sfq_parse(&o, argc, argv, err, errlen);
	if (ret)
		return ret;

	for (int i = 0; i <= SFQ_MAX_DEPTH; i++)
		sd->dep[i].next = sd->dep[i].prev = (uint16_t)(SFQ_MAX_FLOWS + i);
	sd->current = q->env->kernel != BPF_KERNEL_3_13;
	sd->allot_bytes = q->env->sfq_allot_bytes;
	sd->hash_mode = o.hash_mode >= 0 ? (enum sfq_hash_mode)o.hash_mode
					 : (enum sfq_hash_mode)SFQ_ENV_HASH_MODE(q->env);
	sd->limit = SFQ_MAX_DEPTH;
	sd->maxdepth = SFQ_MAX_DEPTH;
	sd->cur_depth = 0;
	sd->tail = SFQ_EMPTY_SLOT;
	sd->divisor = SFQ_DEFAULT_HASH_DIVISOR;
	sd->maxflows = SFQ_DEFAULT_FLOWS;
	sd->quantum = q->env->mtu;
	if (sd->allot_bytes)
		sd->quantum = sd->quantum < 256		 ? 256
			      : sd->quantum > (1u << 20) ? 1u << 20
							 : sd->quantum;
	sd->perturb_period = 0;
	sd->perturbation = sfq_random32(q);

	if (o.given) {
		ret = sfq_configure(q, &o, err, errlen);
		if (ret)
			return ret;
		if (sd->perturb_period)
			sd->perturbation = sfq_random32(q);
	}
	sd->quantum_credit =
	    sd->allot_bytes ? (int32_t)sd->quantum : (int32_t)((sd->quantum + 7ull) / 8 % 65536);
	/* Credit that never turns positive would make the kernel's dequeue
	 * spin forever: a 16-bit credit of 0 or -32768, or no bytes. */
	if (sd->allot_bytes ? sd->quantum_credit <= 0 : sd->quantum_credit % 32768 == 0) {
		snprintf(
		    err, errlen,
		    "sfq: quantum %u is not modelled: its credit per round is %d in the kernel's "
		    "%s, and dequeue would loop forever",
		    sd->quantum, sfq_store_allot(sd, sd->quantum_credit),
		    sd->allot_bytes ? "int" : "16-bit count of 8-byte units");
		return -EOPNOTSUPP;
	}

	sd->ht = malloc(sizeof(*sd->ht) * sd->divisor);
	sd->slots = calloc(sd->maxflows, sizeof(*sd->slots));
	if (sd->hash_mode == SFQ_HASH_TUPLE) {
		sd->keys = malloc(sizeof(*sd->keys) * sd->divisor);
		sd->keyh32 = malloc(sizeof(*sd->keyh32) * sd->divisor);
		sd->isbound = malloc(sd->divisor);
		sd->ixmask = 2 * sd->divisor - 1;
		sd->ix = malloc(sizeof(*sd->ix) * 2 * sd->divisor);
		sd->bound = malloc(sizeof(*sd->bound) * sd->divisor);
	}
	if (!sd->ht || !sd->slots ||
	    (sd->hash_mode == SFQ_HASH_TUPLE &&
	     (!sd->keys || !sd->keyh32 || !sd->isbound || !sd->ix ||
	      !sd->bound))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < sd->divisor; i++)
		sd->ht[i] = SFQ_EMPTY_SLOT;
	sd->nbusy = 0;
	sd->nbound = sd->divisor + 1; /* the index is not initialised yet: sweep it all */
	sfq_map_reset(sd);
	for (uint32_t i = 0; i < sd->maxflows; i++)
		sfq_link(sd, (uint16_t)i);
	if (sd->perturb_period)
		sfq_arm(q);
	return 0;
}

/* ---- teardown ---- */

/* sfq_reset: everything queued is dropped, in the order dequeue would
 * have sent it (the kernel empties sfq through its dequeue). */
static void sfq_reset(struct qdisc *q)
{
	struct sfq_sched_data *sd = q->priv;
	struct pkt *p;

	if (!sd->slots)
		return;
	if (sd->peeked) {
		p = sd->peeked;
		sd->peeked = NULL;
		p->drop = DROP_QDISC_DESTROY;
		q->env->drop(q->env->arg, p);
	}
	while ((p = sfq_dequeue_slot(sd))) {
		p->drop = DROP_QDISC_DESTROY;
		q->env->drop(q->env->arg, p);
	}
	q->s.qlen = 0;
	q->s.backlog = 0;
}

static void sfq_destroy(struct qdisc *q)
{
	struct sfq_sched_data *sd = q->priv;

	sfq_reset(q);
	sd->perturb_period = 0;
	free(sd->ht);
	free(sd->slots);
	free(sd->keys);
	free(sd->keyh32);
	free(sd->isbound);
	free(sd->ix);
	free(sd->bound);
	sd->ht = NULL;
	sd->slots = NULL;
	sd->keys = NULL;
	sd->keyh32 = NULL;
	sd->isbound = NULL;
	sd->ix = NULL;
	sd->bound = NULL;
}

/* ---- tc qdisc show / tc class show ---- */

static void sfq_dump(const struct qdisc *q, struct tcprint *p, int details)
{
	const struct sfq_sched_data *sd = q->priv;

	pr_uint(p, PR_ANY, "limit", "limit %up ", sd->limit);
	pr_size(p, PR_ANY, "quantum", "quantum %s ", sd->quantum);
	pr_uint(p, PR_ANY, "depth", "depth %u ", sd->maxdepth);
	if (sd->headdrop)
		pr_bool(p, PR_ANY, "headdrop", "headdrop ", 1);
	if (details)
		pr_uint(p, PR_ANY, "flows", "flows %u ", sd->maxflows);
	pr_uint(p, PR_ANY, "divisor", "divisor %u ", sd->divisor);
	if (sd->perturb_period)
		pr_int(p, PR_ANY, "perturb", "perturb %dsec ", sd->perturb_period);
}

/* One class per busy bucket, numbered bucket + 1. */
static void sfq_walk(const struct qdisc *q, void (*fn)(void *arg, const struct qdisc_class *c),
		     void *arg)
{
	const struct sfq_sched_data *sd = q->priv;

	for (uint32_t i = 0; i < sd->divisor; i++) {
		const struct sfq_slot *slot;
		struct qdisc_class c = {0};
		int64_t allot;

		if (sd->ht[i] == SFQ_EMPTY_SLOT)
			continue;
		slot = &sd->slots[sd->ht[i]];
		/* xstats allot: the short scaled back to bytes, or bytes */
		allot = sd->allot_bytes ? slot->allot : (int64_t)slot->allot * 8;
		c.classid = TC_H_MAKE(q->handle, i + 1);
		c.parent = q->handle;
		c.stats.qlen = slot->qlen;
		c.stats.backlog = slot->backlog;
		c.allot = (uint64_t)allot;
		c.has_allot = 1;
		fn(arg, &c);
	}
}

const struct qdisc_ops sfq_qdisc_ops = {
    .id = "sfq",
    .priv_size = sizeof(struct sfq_sched_data),
    .has_filters = 1,
    .init = sfq_init,
    .change = NULL,
    .enqueue = sfq_enqueue,
    .dequeue = sfq_dequeue,
    .peek = sfq_peek,
    .head = sfq_head_of,
    .reset = sfq_reset,
    .destroy = sfq_destroy,
    .dump = sfq_dump,
    .timer = sfq_timer,
    .idle_period = sfq_idle_period,
    .walk = sfq_walk,
};
