/* pktspill.c - the disk part of a long FIFO (pktspill.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errmsg.h"
#include "pktspill.h"

/* One chunk on disk: its slot, its bytes and packets. */
struct spill_chunk {
	uint32_t slot, bytes, count;
};

struct pkt_spill {
	int fd;		       /* -1 until the first chunk is written */
	int broken;	       /* an I/O error was reported: nothing more goes to disk */
	struct pkt_queue tail; /* the newest packets, in memory, up to a chunk */
	size_t tail_bytes;     /* their records' size on disk */
	/* the chunks on disk, oldest first: a ring of cap (a power of two) */
	struct spill_chunk *ring;
	uint32_t first, nchunks, cap;
	uint32_t *free_slots; /* slots read back, for the next chunks */
	uint32_t nfree, free_cap;
	uint32_t nslots; /* slots in the file */
	uint32_t disk;	 /* packets on disk */
	uint8_t *buf;	 /* one chunk's bytes */
	char dir[256];	 /* the file's directory, for messages */
};

/* A record: the struct as it is, then the caplen bytes, 8-aligned. */
static size_t rec_size(const struct pkt *p)
{
	return (sizeof(*p) + p->caplen + 7) & ~(size_t)7;
}

static uint32_t threshold(const struct pkt_spillq *s)
{
	return s->cfg && s->cfg->after ? s->cfg->after : UINT32_MAX;
}

void pktsq_init(struct pkt_spillq *s, const struct pkt_spill_cfg *cfg)
{
	s->cfg = cfg;
	s->spill_at = s->out ? 0 : threshold(s);
}

static void report(struct pkt_spillq *s, int e, const char *what)
{
	struct pkt_spill *sp = s->sp;
	char msg[512];

	if (sp->broken)
		return;
	sp->broken = 1;
	snprintf(msg, sizeof(msg),
		 "a queue of %u packets cannot spill to its temporary file in %s: %s: %s",
		 pktsq_len(s), sp->dir, what, strerror(e));
	if (s->cfg && s->cfg->fail)
		s->cfg->fail(s->cfg->arg, -e, msg);
}

static int open_file(struct pkt_spillq *s)
{
	struct pkt_spill *sp = s->sp;
	const char *dir = s->cfg->dir;
	char tmpl[PATH_MAX];

	if (!dir || !*dir)
		dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	snprintf(sp->dir, sizeof(sp->dir), "%s", dir);
	if ((size_t)snprintf(tmpl, sizeof(tmpl), "%s/tcsim-spill-XXXXXX", dir) >= sizeof(tmpl)) {
		report(s, ENAMETOOLONG, "creating it");
		return -1;
	}
	sp->fd = mkostemp(tmpl, O_CLOEXEC);
	if (sp->fd < 0) {
		report(s, errno, "creating it");
		return -1;
	}
	unlink(tmpl);
	return 0;
}

static int full_pwrite(int fd, const uint8_t *b, size_t n, off_t at)
{
	while (n) {
		ssize_t k = pwrite(fd, b, n, at);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return errno;
		if (k == 0)
			return ENOSPC;
		b += k;
		n -= (size_t)k;
		at += k;
	}
	return 0;
}

static int full_pread(int fd, uint8_t *b, size_t n, off_t at)
{
	while (n) {
		ssize_t k = pread(fd, b, n, at);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return errno;
		if (k == 0)
			return EIO; /* the file is shorter than what was written */
		b += k;
		n -= (size_t)k;
		at += k;
	}
	return 0;
}

static int ring_grow(struct pkt_spill *sp)
{
	uint32_t cap = sp->cap ? sp->cap * 2 : 16;
	struct spill_chunk *r = malloc(cap * sizeof(*r));

	if (!r)
		return -1;
	for (uint32_t i = 0; i < sp->nchunks; i++)
		r[i] = sp->ring[(sp->first + i) & (sp->cap - 1)];
	free(sp->ring);
	sp->ring = r;
	sp->first = 0;
	sp->cap = cap;
	return 0;
}

/* Writes the tail part as the newest chunk and frees its records. */
static void flush_tail(struct pkt_spillq *s)
{
	struct pkt_spill *sp = s->sp;
	uint32_t slot;
	size_t off = 0;
	int e;

	if (sp->fd < 0 && open_file(s))
		return;
	if (sp->nchunks == sp->cap && ring_grow(sp)) {
		report(s, ENOMEM, "keeping its index");
		return;
	}
	if (!sp->nfree && sp->free_cap <= sp->nslots) {
		/* room to take back every slot there will be */
		uint32_t cap = sp->free_cap ? sp->free_cap * 2 : 16;
		uint32_t *f = realloc(sp->free_slots, cap * sizeof(*f));

		if (!f) {
			report(s, ENOMEM, "keeping its index");
			return;
		}
		sp->free_slots = f;
		sp->free_cap = cap;
	}
	for (const struct pkt *p = sp->tail.head; p; p = p->next) {
		memcpy(sp->buf + off, p, sizeof(*p));
		memcpy(sp->buf + off + sizeof(*p), p->data, p->caplen);
		off += rec_size(p);
	}
	slot = sp->nfree ? sp->free_slots[--sp->nfree] : sp->nslots;
	e = full_pwrite(sp->fd, sp->buf, off, (off_t)slot * PKT_SPILL_CHUNK);
	if (e) {
		if (slot != sp->nslots)
			sp->nfree++; /* still free */
		report(s, e, "writing");
		return;
	}
	if (slot == sp->nslots)
		sp->nslots++;
	sp->ring[(sp->first + sp->nchunks++) & (sp->cap - 1)] =
	    (struct spill_chunk){.slot = slot, .bytes = (uint32_t)off, .count = sp->tail.len};
	sp->disk += sp->tail.len;
	for (struct pkt *p = sp->tail.head, *n; p; p = n) {
		n = p->next;
		pkt_free(p);
	}
	sp->tail = (struct pkt_queue){0};
	sp->tail_bytes = 0;
}

void pktsq_push_slow(struct pkt_spillq *s, struct pkt *p)
{
	struct pkt_spill *sp = s->sp;
	size_t need = rec_size(p);

	if (!s->out && s->q.len < threshold(s)) {
		/* not configured (a zeroed queue), or configured again */
		s->spill_at = threshold(s);
		pktq_push_tail(&s->q, p);
		return;
	}
	if (!sp) {
		sp = s->sp = calloc(1, sizeof(*sp));
		if (sp) {
			sp->fd = -1;
			sp->buf = calloc(1, PKT_SPILL_CHUNK); /* pads are written too */
		}
		if (!sp || !sp->buf) {
			free(sp);
			s->sp = NULL;
			/* no memory to spill with: hold it, and try again later */
			pktq_push_tail(&s->q, p);
			return;
		}
	}
	if (sp->tail.len && !sp->broken &&
	    (sp->tail_bytes + need > PKT_SPILL_CHUNK || sp->tail.len >= threshold(s)))
		flush_tail(s);
	if (need > PKT_SPILL_CHUNK && !sp->broken)
		report(s, EFBIG, "a record larger than a chunk");
	pktq_push_tail(&sp->tail, p);
	sp->tail_bytes += need;
	s->out++;
	s->spill_at = 0;
}

/* Reads the chunk at ring index i back into new records, appended to dst.
 * 0, or an errno (the chunk is then lost). */
static int load_chunk(struct pkt_spillq *s, uint32_t i, struct pkt_queue *dst)
{
	struct pkt_spill *sp = s->sp;
	struct spill_chunk c = sp->ring[i & (sp->cap - 1)];
	size_t off = 0;
	int e = full_pread(sp->fd, sp->buf, c.bytes, (off_t)c.slot * PKT_SPILL_CHUNK);

	sp->free_slots[sp->nfree++] = c.slot;
	sp->disk -= c.count;
	s->out -= c.count;
	for (uint32_t k = 0; !e && k < c.count; k++) {
		struct pkt rec, *p;
		const uint8_t *data;

		if (off + sizeof(rec) > c.bytes) {
			e = EIO;
			break;
		}
		memcpy(&rec, sp->buf + off, sizeof(rec));
		if (off + rec_size(&rec) > c.bytes) {
			e = EIO;
			break;
		}
		data = sp->buf + off + sizeof(rec);
		p = rec.pool ? pkt_pool_new(rec.pool, data, rec.caplen, rec.len)
			     : pkt_new(data, rec.caplen, rec.len);
		if (!p) {
			e = ENOMEM;
			break;
		}
		pkt_copy_fields(p, &rec);
		pktq_push_tail(dst, p);
		off += rec_size(&rec);
	}
	return e;
}

/* A read failed: the chunks on disk are lost, the run is to stop. */
static void lose_disk(struct pkt_spillq *s)
{
	struct pkt_spill *sp = s->sp;

	s->out -= sp->disk;
	sp->disk = 0;
	sp->nchunks = 0;
}

/* Nothing on disk any more: the file is emptied, its slots forgotten. */
static void disk_empty(struct pkt_spill *sp)
{
	if (sp->nchunks || sp->fd < 0 || !sp->nslots)
		return;
	sp->nslots = 0;
	sp->nfree = 0;
	(void)!ftruncate(sp->fd, 0); /* failing, the slots are reused from 0 all the same */
}

static void settle(struct pkt_spillq *s)
{
	if (!s->out)
		s->spill_at = threshold(s);
}

void pktsq_refill(struct pkt_spillq *s)
{
	struct pkt_spill *sp = s->sp;

	if (sp->nchunks) {
		int e = load_chunk(s, sp->first, &s->q);

		sp->first++;
		sp->nchunks--;
		if (e) {
			report(s, e, "reading it back");
			lose_disk(s);
		}
		disk_empty(sp);
	}
	if (!s->q.head && sp->tail.len) {
		/* nothing on disk: the tail part is the rest of the FIFO */
		s->q = sp->tail;
		s->out -= sp->tail.len;
		sp->tail = (struct pkt_queue){0};
		sp->tail_bytes = 0;
	}
	settle(s);
}

/* With the tail part empty (pop_tail took it) and chunks on disk, the
 * newest chunk comes back as the tail part. */
static void load_newest(struct pkt_spillq *s)
{
	struct pkt_spill *sp = s->sp;
	int e;

	if (sp->tail.len || !sp->nchunks)
		return;
	e = load_chunk(s, sp->first + sp->nchunks - 1, &sp->tail);
	sp->nchunks--;
	s->out += sp->tail.len;
	sp->tail_bytes = 0;
	for (const struct pkt *t = sp->tail.head; t; t = t->next)
		sp->tail_bytes += rec_size(t);
	if (e) {
		report(s, e, "reading it back");
		lose_disk(s);
	}
	disk_empty(sp);
}

struct pkt *pktsq_tail_slow(struct pkt_spillq *s)
{
	struct pkt_spill *sp = s->sp;

	load_newest(s);
	return sp->tail.tail ? sp->tail.tail : s->q.tail;
}

struct pkt *pktsq_pop_tail_slow(struct pkt_spillq *s)
{
	struct pkt_spill *sp = s->sp;
	struct pkt *p;

	load_newest(s);
	p = pktq_pop_tail(&sp->tail);
	if (p) {
		sp->tail_bytes -= rec_size(p);
		s->out--;
	} else {
		p = pktq_pop_tail(&s->q);
	}
	settle(s);
	return p;
}

void pktsq_free(struct pkt_spillq *s)
{
	struct pkt_spill *sp = s->sp;
	struct pkt *p;

	if (!sp)
		return;
	while ((p = pktq_pop_head(&sp->tail)))
		pkt_free(p);
	if (sp->fd >= 0)
		close(sp->fd);
	free(sp->ring);
	free(sp->free_slots);
	free(sp->buf);
	free(sp);
	s->sp = NULL;
	s->out = 0;
	settle(s);
}

int pkt_spill_after_env(uint32_t *after, char *err, size_t errlen)
{
	const char *v = getenv("TCSIM_SPILL_AFTER");
	char *end;
	unsigned long long n;

	if (!v || !*v)
		return 0;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (*v < '0' || *v > '9' || *end || errno || n > UINT32_MAX)
		return errmsg(err, errlen, -EINVAL,
			      "TCSIM_SPILL_AFTER=%s: use a number of packets a queue holds in "
			      "memory before the rest goes to a temporary file (0: never)",
			      v);
	*after = (uint32_t)n;
	return 0;
}

void pktsq_stats(const struct pkt_spillq *s, struct pkt_spill_stats *st)
{
	const struct pkt_spill *sp = s->sp;

	*st = (struct pkt_spill_stats){0};
	if (!sp)
		return;
	st->disk = sp->disk;
	st->chunks = sp->nchunks;
	st->slots = sp->nslots;
	st->broken = sp->broken;
}
