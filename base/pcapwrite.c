/* pcapwrite.c - capture files written (pcapwrite.h): pcap by libpcap's
 * pcap_dump, pcapng by the blocks below (the pcapng specification,
 * draft-ietf-opsawg-pcapng: SHB, IDB, EPB and their options). */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>

#include "pcapwrite.h"

#define LINKTYPE_ETHERNET 1

/* pcapng block types and option codes */
#define BT_SHB 0x0A0D0D0Au
#define BT_IDB 0x00000001u
#define BT_EPB 0x00000006u
#define BOM 0x1A2B3C4Du
#define OPT_END 0
#define OPT_COMMENT 1
#define SHB_USERAPPL 4
#define IF_NAME 2
#define IF_DESCRIPTION 3
#define IF_TSRESOL 9
#define EPB_FLAGS 2

int pcapw_format_parse(const char *word, enum pcapw_format *fmt)
{
	if (!strcmp(word, "pcap"))
		*fmt = PCAPW_PCAP;
	else if (!strcmp(word, "pcapng"))
		*fmt = PCAPW_PCAPNG;
	else
		return -1;
	return 0;
}

const char *pcapw_ext(enum pcapw_format fmt)
{
	return fmt == PCAPW_PCAPNG ? "pcapng" : "pcap";
}

/* ---- a block assembled in w->buf ---- */

struct blk {
	struct pcapw *w;
	size_t n;
	int oom;
};

static void put(struct blk *b, const void *p, size_t n)
{
	struct pcapw *w = b->w;

	if (b->oom)
		return;
	if (b->n + n + 3 > w->cap) {
		size_t cap = w->cap ? w->cap : 2048;
		uint8_t *nb;

		while (b->n + n + 3 > cap)
			cap *= 2;
		nb = realloc(w->buf, cap);
		if (!nb) {
			b->oom = 1;
			return;
		}
		w->buf = nb;
		w->cap = cap;
	}
	memcpy(w->buf + b->n, p, n);
	b->n += n;
}

static void put32(struct blk *b, uint32_t v)
{
	put(b, &v, 4);
}

static void put16(struct blk *b, uint16_t v)
{
	put(b, &v, 2);
}

static void pad4(struct blk *b)
{
	static const uint8_t zero[3];

	put(b, zero, (4 - b->n % 4) % 4);
}

/* An option: code, length, value, padding to 32 bits. */
static void opt(struct blk *b, uint16_t code, const void *v, size_t len)
{
	if (len > 0xffff)
		len = 0xffff; /* an option's length is 16 bits: a comment that long is cut */
	put16(b, code);
	put16(b, (uint16_t)len);
	put(b, v, len);
	pad4(b);
}

static void opt_str(struct blk *b, uint16_t code, const char *s)
{
	if (s)
		opt(b, code, s, strlen(s));
}

static void begin(struct blk *b, struct pcapw *w, uint32_t type)
{
	*b = (struct blk){.w = w};
	put32(b, type);
	put32(b, 0); /* total length, set by end() */
}

/* Ends the options and the block (its length at both ends) and writes it. */
static int end(struct blk *b, int options)
{
	uint32_t total;

	if (options)
		put32(b, OPT_END); /* opt_endofopt: code 0, length 0 */
	total = (uint32_t)b->n + 4;
	put32(b, total);
	if (b->oom)
		return -ENOMEM;
	memcpy(b->w->buf + 4, &total, 4);
	if (fwrite(b->w->buf, b->n, 1, b->w->f) != 1)
		return errno ? -errno : -EIO;
	return 0;
}

static int ng_header(struct pcapw *w, const struct pcapw_iface *ifc)
{
	struct blk b;
	int64_t section_len = -1; /* not given */
	uint8_t tsresol = 9;	  /* 10^-9 s */
	int r;

	begin(&b, w, BT_SHB);
	put32(&b, BOM);
	put16(&b, 1); /* version 1.0 */
	put16(&b, 0);
	put(&b, &section_len, 8);
	opt_str(&b, SHB_USERAPPL, "tcsim");
	if ((r = end(&b, 1)))
		return r;
	begin(&b, w, BT_IDB);
	put16(&b, LINKTYPE_ETHERNET);
	put16(&b, 0);
	put32(&b, PCAPW_SNAPLEN);
	if (ifc) {
		opt_str(&b, IF_NAME, ifc->name);
		opt_str(&b, IF_DESCRIPTION, ifc->description);
	}
	opt(&b, IF_TSRESOL, &tsresol, 1);
	return end(&b, 1);
}

static int ng_put(struct pcapw *w, uint64_t t_ns, uint32_t len, const struct iovec *iov,
		  int niov, size_t caplen, const char *comment, uint32_t flags)
{
	struct blk b;
	size_t left = caplen;

	begin(&b, w, BT_EPB);
	put32(&b, 0); /* interface 0 */
	put32(&b, (uint32_t)(t_ns >> 32));
	put32(&b, (uint32_t)t_ns);
	put32(&b, (uint32_t)caplen);
	put32(&b, len);
	for (int i = 0; i < niov && left; i++) {
		size_t n = iov[i].iov_len < left ? iov[i].iov_len : left;

		put(&b, iov[i].iov_base, n);
		left -= n;
	}
	pad4(&b);
	opt_str(&b, OPT_COMMENT, comment);
	if (flags)
		opt(&b, EPB_FLAGS, &flags, 4);
	return end(&b, comment || flags);
}

/* ---- the writer ---- */

int pcapw_open(struct pcapw *w, FILE *f, enum pcapw_format fmt, const struct pcapw_iface *ifc,
	       char *err, size_t errlen)
{
	int r;

	memset(w, 0, sizeof(*w));
	w->fmt = fmt;
	if (fmt == PCAPW_PCAPNG) {
		w->f = f;
		errno = 0;
		if ((r = ng_header(w, ifc))) {
			snprintf(err, errlen, "%s", strerror(-r));
			pcapw_abort(w);
		}
		return r;
	}
	w->dead = pcap_open_dead_with_tstamp_precision(LINKTYPE_ETHERNET, PCAPW_SNAPLEN,
						       PCAP_TSTAMP_PRECISION_NANO);
	if (!w->dead) {
		fclose(f);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	errno = 0;
	w->dump = pcap_dump_fopen(w->dead, f);
	if (!w->dump) {
		r = errno ? -errno : -EIO;
		snprintf(err, errlen, "%s", pcap_geterr(w->dead));
		fclose(f);
		pcapw_abort(w);
		return r;
	}
	return 0;
}

int pcapw_put(struct pcapw *w, uint64_t t_ns, uint32_t len, const struct iovec *iov, int niov,
	      const char *comment, uint32_t flags)
{
	size_t caplen = 0;
	const uint8_t *data;

	for (int i = 0; i < niov; i++)
		caplen += iov[i].iov_len;
	if (caplen > PCAPW_SNAPLEN)
		caplen = PCAPW_SNAPLEN; /* never: frames are < 2^18 bytes */
	errno = 0;
	if (w->fmt == PCAPW_PCAPNG)
		return ng_put(w, t_ns, len, iov, niov, caplen, comment, flags);
	if (t_ns / 1000000000u > UINT32_MAX)
		return -EOVERFLOW;
	if (niov == 1) {
		data = iov[0].iov_base;
	} else {
		struct blk b = {.w = w};
		size_t left = caplen;

		for (int i = 0; i < niov && left; i++) {
			size_t n = iov[i].iov_len < left ? iov[i].iov_len : left;

			put(&b, iov[i].iov_base, n);
			left -= n;
		}
		if (b.oom)
			return -ENOMEM;
		data = w->buf;
	}
	{
		/* tv_usec holds nanoseconds: the dead handle's precision is nano */
		struct pcap_pkthdr h = {.caplen = (bpf_u_int32)caplen, .len = len};

		h.ts.tv_sec = (time_t)(t_ns / 1000000000u);
		h.ts.tv_usec = (suseconds_t)(t_ns % 1000000000u);
		pcap_dump((u_char *)w->dump, &h, data);
	}
	return ferror(pcap_dump_file(w->dump)) ? (errno ? -errno : -EIO) : 0;
}

int pcapw_close(struct pcapw *w)
{
	int e = 0;

	if (w->fmt == PCAPW_PCAPNG && w->f) {
		if (fflush(w->f) || ferror(w->f))
			e = errno ? errno : EIO;
		if (fclose(w->f) && !e)
			e = errno ? errno : EIO;
		w->f = NULL;
	} else if (w->dump) {
		/* pcap_dump_close says nothing of fclose: the flush is the check */
		errno = 0;
		if (pcap_dump_flush(w->dump) || ferror(pcap_dump_file(w->dump)))
			e = errno ? errno : EIO;
		pcap_dump_close(w->dump);
		w->dump = NULL;
	}
	pcapw_abort(w);
	return -e;
}

void pcapw_abort(struct pcapw *w)
{
	if (w->f)
		fclose(w->f);
	if (w->dump)
		pcap_dump_close(w->dump);
	if (w->dead)
		pcap_close(w->dead);
	free(w->buf);
	memset(w, 0, sizeof(*w));
}
