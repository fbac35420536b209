/* capture.c - captures read through libpcap and rebuilt as the Ethernet
 * frames an egress Ethernet device carries. Non-Ethernet link layers get a
 * synthetic header: destination 02:00:00:00:00:02, source 02:00:00:00:00:01
 * (SLL's own source address when it has six bytes), and the EtherType of
 * the network protocol.
 *
 * libpcap opens every capture and so checks its file header (magic,
 * version, snaplen, link type) with its own messages. The records of a
 * plain classic pcap file (a regular file in this machine's byte order,
 * version 2.4, micro- or nanosecond stamps) are then read through a sliding
 * 1 MiB buffer filled by pread, instead of through
 * pcap_next_ex's stdio reads and copies, for as long as each record is
 * whole and its caplen within the snaplen and libpcap's 262144-byte
 * maximum. The first record that is not (a cut header or body, an
 * oversized caplen, a failed read) is handed back to libpcap from its
 * own offset, so it fails or is trimmed with libpcap's rules and message;
 * libpcap reads the rest. pcapng, byte-swapped and older files are read by
 * libpcap throughout; a FIFO, device or directory is refused (infile.c). */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "capture.h"
#include "infile.h"

#define ETH_HLEN 14
#define FRAME_MAX (262144 + ETH_HLEN)
#define CAP_IOBUF (1 << 20)

/* The direct reader (classic pcap, host byte order). */
#define PCAP_MAGIC_US 0xa1b2c3d4u
#define PCAP_MAGIC_NS 0xa1b23c4du
#define PCAP_FILE_HDR 24
#define PCAP_REC_HDR 16
#define PCAP_MAX_SNAP 262144u /* libpcap's max_snaplen_for_dlt, for our link types */
#define DIRECT_MAP (1 << 20)  /* the largest read window; any whole record fits */
#define DIRECT_AHEAD 4096     /* prefetch distance */
#ifndef MAP_POPULATE
#define MAP_POPULATE 0
#endif

struct capture {
	pcap_t *p;
	char *path;
	int dlt;
	FILE *fp;  /* owned by libpcap once it opened the capture */
	char *buf; /* fp's stdio buffer */
	uint64_t count;
	uint8_t *frame;
	/* direct reading: the file's bytes [roff, roff + rend) are mapped at
	 * rbuf (NULL before the first record); the next record is at rpos */
	int direct;
	int fd;
	int nsec;	  /* stamps in ns (else us, scaled up as libpcap does) */
	uint32_t snaplen; /* pcap_snapshot */
	int map_failed;	  /* libpcap takes over at the record that needed it */
	uint8_t *rbuf;
	size_t rpos, rend;
	size_t rcap; /* the window: DIRECT_MAP, or less for a smaller file */
	off_t roff;
};

static const uint8_t dst_mac[6] = {0x02, 0, 0, 0, 0, 0x02};
static const uint8_t src_mac[6] = {0x02, 0, 0, 0, 0, 0x01};

/* A regular file whose first bytes are a classic pcap header in host
 * order; libpcap still has the last word on the header. */
static int direct_candidate(struct capture *c)
{
	uint8_t hdr[PCAP_FILE_HDR];
	uint32_t magic;
	uint16_t major, minor;
	struct stat st;

	if (c->fd < 0 || fstat(c->fd, &st) || !S_ISREG(st.st_mode) ||
	    pread(c->fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr))
		return 0;
	memcpy(&magic, hdr, 4);
	memcpy(&major, hdr + 4, 2);
	memcpy(&minor, hdr + 6, 2);
	if (magic != PCAP_MAGIC_US && magic != PCAP_MAGIC_NS)
		return 0;
	c->nsec = magic == PCAP_MAGIC_NS;
	/* a small file gets a window its size (rounded to pages): looping a
	 * few packets must not cost a megabyte per pass. A record that later
	 * outgrows it (the file grew) is read by libpcap. */
	c->rcap =
	    st.st_size < DIRECT_MAP ? ((size_t)st.st_size + 4095) & ~(size_t)4095 : DIRECT_MAP;
	return major == 2 && minor == 4;
}

int cap_open(struct capture **out, const char *path, char *err, size_t errlen)
{
	char perr[PCAP_ERRBUF_SIZE] = "";
	struct capture *c;
	const char *why;
	int e;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		goto nomem;
	/* Our own FILE with a 1 MiB buffer: libpcap reads record by record, and
	 * stdio's default 4 KiB buffer made that a third of a replay's time. */
	e = strcmp(path, "-") ? infile_open(&c->fp, path, &why) : infile_open_stdin(&c->fp, &why);
	if (e) {
		snprintf(err, errlen, "%s: not a readable capture: %s", path, why);
		free(c);
		return e;
	}
	c->fd = fileno(c->fp);
	c->direct = direct_candidate(c);
	if (!c->direct) { /* else libpcap reads only the file header through fp */
		c->buf = malloc(CAP_IOBUF);
		if (c->buf)
			setvbuf(c->fp, c->buf, _IOFBF, CAP_IOBUF);
	}
	c->p = pcap_fopen_offline_with_tstamp_precision(c->fp, PCAP_TSTAMP_PRECISION_NANO, perr);
	if (!c->p) {
		fclose(c->fp);
		free(c->buf);
		size_t n = strlen(path);
		why = !strncmp(perr, path, n) && perr[n] == ':' ? perr + n + 1 : perr;

		while (*why == ' ')
			why++;
		snprintf(err, errlen, "%s: not a readable capture: %s", path, why);
		free(c);
		return -EINVAL;
	}
	c->dlt = pcap_datalink(c->p);
	switch (c->dlt) {
	case DLT_EN10MB:
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
	case DLT_NULL:
	case DLT_LOOP:
	case DLT_LINUX_SLL:
	case DLT_LINUX_SLL2: break;
	default:
		snprintf(err, errlen,
			 "%s: link type %s (%d) cannot be turned into Ethernet frames (supported: "
			 "EN10MB, RAW, IPV4, IPV6, NULL, LOOP, LINUX_SLL, LINUX_SLL2)",
			 path,
			 pcap_datalink_val_to_name(c->dlt) ? pcap_datalink_val_to_name(c->dlt)
							   : "?",
			 c->dlt);
		pcap_close(c->p);
		free(c->buf);
		free(c);
		return -EINVAL;
	}
	if (c->direct && (pcap_is_swapped(c->p) || pcap_major_version(c->p) != 2 ||
			  pcap_minor_version(c->p) != 4 || pcap_snapshot(c->p) <= 0 ||
			  ftello(c->fp) != PCAP_FILE_HDR))
		c->direct = 0;
	if (c->direct) {
		c->snaplen = (uint32_t)pcap_snapshot(c->p);
		c->roff = PCAP_FILE_HDR;
	}
	c->path = strdup(path);
	/* the frame a header is put in front of: not needed for Ethernet */
	if (c->dlt != DLT_EN10MB)
		c->frame = malloc(FRAME_MAX);
	if (!c->path || (c->dlt != DLT_EN10MB && !c->frame)) {
		cap_close(c);
		goto nomem;
	}
	*out = c;
	return 0;
nomem:
	snprintf(err, errlen, "%s: out of memory", path);
	return -ENOMEM;
}

const char *cap_linktype(const struct capture *c)
{
	const char *n = pcap_datalink_val_to_name(c->dlt);

	return n ? n : "unknown";
}

static uint16_t ip_ethertype(const uint8_t *l3, uint32_t caplen)
{
	if (caplen < 1)
		return 0;
	switch (l3[0] >> 4) {
	case 4: return 0x0800;
	case 6: return 0x86dd;
	default: return 0;
	}
}

/* Frame = synthetic MAC header + the L3 packet at l3. */
static void wrap(struct capture *c, struct cap_pkt *pkt, const uint8_t *src, uint16_t type,
		 const uint8_t *l3, uint32_t l3cap, uint32_t l3len)
{
	if (l3cap > FRAME_MAX - ETH_HLEN)
		l3cap = FRAME_MAX - ETH_HLEN;
	memcpy(c->frame, dst_mac, 6);
	memcpy(c->frame + 6, src ? src : src_mac, 6);
	c->frame[12] = (uint8_t)(type >> 8);
	c->frame[13] = (uint8_t)type;
	memcpy(c->frame + ETH_HLEN, l3, l3cap);
	pkt->data = c->frame;
	pkt->caplen = l3cap + ETH_HLEN;
	/* a record may claim an original length near 4 GiB: the header added
	 * must not wrap it below the bytes present */
	pkt->len = l3len > UINT32_MAX - ETH_HLEN ? UINT32_MAX : l3len + ETH_HLEN;
}

static uint32_t host32(const uint8_t *p, int swapped)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swapped ? __builtin_bswap32(v) : v;
}

static void convert(struct capture *c, const uint8_t *d, uint32_t cap, uint32_t len,
		    struct cap_pkt *pkt)
{
	uint32_t hl, af;
	uint16_t type;

	pkt->reject = NULL;
	switch (c->dlt) {
	case DLT_EN10MB:
		pkt->data = d;
		pkt->caplen = cap;
		pkt->len = len;
		if (cap < ETH_HLEN)
			pkt->reject = "shorter than an Ethernet header";
		return;
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
		type = ip_ethertype(d, cap);
		if (!type) {
			pkt->reject = "raw packet is neither IPv4 nor IPv6";
			break;
		}
		wrap(c, pkt, NULL, type, d, cap, len);
		return;
	case DLT_NULL:
	case DLT_LOOP:
		if (cap < 4) {
			pkt->reject = "shorter than the 4-byte loopback header";
			break;
		}
		/* NULL: host order of the writer; LOOP: network order. */
		af = host32(d, c->dlt == DLT_LOOP ? 1 : pcap_is_swapped(c->p));
		type = af == 2						? 0x0800
		       : (af == 10 || af == 24 || af == 28 || af == 30) ? 0x86dd
									: 0;
		if (!type) {
			pkt->reject = "loopback address family is neither IPv4 nor IPv6";
			break;
		}
		wrap(c, pkt, NULL, type, d + 4, cap - 4, len - 4);
		return;
	case DLT_LINUX_SLL:
	case DLT_LINUX_SLL2:
		hl = c->dlt == DLT_LINUX_SLL ? 16 : 20;
		if (cap < hl) {
			pkt->reject = "shorter than the Linux cooked header";
			break;
		}
		{
			const uint8_t *proto = c->dlt == DLT_LINUX_SLL ? d + 14 : d;
			uint16_t halen =
			    c->dlt == DLT_LINUX_SLL ? (uint16_t)(d[4] << 8 | d[5]) : d[11];
			const uint8_t *addr = c->dlt == DLT_LINUX_SLL ? d + 6 : d + 12;

			type = (uint16_t)(proto[0] << 8 | proto[1]);
			if (type < 0x600) {
				pkt->reject =
				    "cooked header carries no EtherType (802.2/802.3 or CAN)";
				break;
			}
			wrap(c, pkt, halen == 6 ? addr : NULL, type, d + hl, cap - hl, len - hl);
		}
		return;
	}
	pkt->data = d;
	pkt->caplen = cap;
	pkt->len = len;
}

/* At least `need` bytes buffered at rbuf + rpos, unless the file ends (or
 * a read fails) first; returns how many there are. The window slides: what
 * is left moves to the front and pread fills the rest, so a capture cut
 * short by another process mid-run reads as a truncated file, never as a
 * fault (a mapping would end the reader with SIGBUS). */
static size_t direct_fill(struct capture *c, size_t need)
{
	size_t have = c->rend - c->rpos;

	if (have >= need || c->map_failed)
		return have;
	if (!c->rbuf && !(c->rbuf = malloc(c->rcap))) {
		c->map_failed = 1;
		return have;
	}
	memmove(c->rbuf, c->rbuf + c->rpos, have);
	c->roff += (off_t)c->rpos;
	c->rpos = 0;
	c->rend = have;
	while (c->rend < c->rcap) {
		ssize_t r =
		    pread(c->fd, c->rbuf + c->rend, c->rcap - c->rend, c->roff + (off_t)c->rend);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			c->map_failed = 1; /* libpcap re-reads this record and reports */
			break;
		}
		if (r == 0)
			break;
		c->rend += (size_t)r;
	}
	return c->rend - c->rpos;
}

/* The next record in place: 1, 0 at a clean end of file, or -1 when
 * libpcap must read this record (and the rest of the file). */
static int direct_next(struct capture *c, struct cap_pkt *pkt)
{
	uint32_t w[4], caplen, len;
	const uint8_t *r;
	size_t have = direct_fill(c, PCAP_REC_HDR);

	if (have < PCAP_REC_HDR)
		return have == 0 && !c->map_failed ? 0 : -1;
	memcpy(w, c->rbuf + c->rpos, sizeof(w));
	caplen = w[2];
	if (caplen > c->snaplen || caplen > PCAP_MAX_SNAP)
		return -1;
	if (have < PCAP_REC_HDR + caplen &&
	    direct_fill(c, PCAP_REC_HDR + caplen) < PCAP_REC_HDR + caplen)
		return -1;
	r = c->rbuf + c->rpos;
	c->rpos += PCAP_REC_HDR + caplen;
	/* ask for what comes a few KiB ahead (the hardware prefetcher stops
	 * at page boundaries) */
	{
		/* the window's end bounds the loop, not a test per line */
		size_t end = c->rpos + 64,
		       lim = c->rend > DIRECT_AHEAD ? c->rend - DIRECT_AHEAD : 0;

		if (end > lim)
			end = lim;
		for (size_t o = c->rpos - PCAP_REC_HDR - caplen; o < end; o += 64)
			__builtin_prefetch(c->rbuf + o + DIRECT_AHEAD);
	}
	c->count++;
	len = w[3];
	memset(pkt, 0, sizeof(*pkt));
	pkt->index = c->count;
	/* struct pcap_pkthdr from the file's signed 32-bit words, as libpcap */
	pkt->ts_ns = (uint64_t)(int64_t)(int32_t)w[0] * 1000000000ull +
		     (c->nsec ? (uint64_t)(int64_t)(int32_t)w[1]
			      : (uint64_t)((int64_t)(int32_t)w[1] * 1000));
	convert(c, r + PCAP_REC_HDR, caplen, len < caplen ? caplen : len, pkt);
	return 1;
}

int cap_next(struct capture *c, struct cap_pkt *pkt, char *err, size_t errlen)
{
	struct pcap_pkthdr *h;
	const u_char *d;
	int r;

	if (c->direct) {
		r = direct_next(c, pkt);
		if (r >= 0)
			return r;
		/* libpcap goes on from this record's first byte */
		c->direct = 0;
		if (fseeko(c->fp, c->roff + (off_t)c->rpos, SEEK_SET)) {
			snprintf(err, errlen, "%s: packet %llu: %s", c->path,
				 (unsigned long long)c->count + 1, strerror(errno));
			return -EIO;
		}
	}
	r = pcap_next_ex(c->p, &h, &d);

	if (r == PCAP_ERROR_BREAK)
		return 0;
	if (r != 1) {
		snprintf(err, errlen, "%s: packet %llu: %s", c->path,
			 (unsigned long long)c->count + 1, pcap_geterr(c->p));
		return -EIO;
	}
	c->count++;
	memset(pkt, 0, sizeof(*pkt));
	pkt->index = c->count;
	pkt->ts_ns = (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec;
	convert(c, d, h->caplen, h->len < h->caplen ? h->caplen : h->len, pkt);
	return 1;
}

/* Back to the first record for another pass, keeping the buffers; the
 * bytes are read again, so the pass sees the file as it is now. Only a
 * capture still read directly can; -1 asks the caller to reopen it. */
int cap_rewind(struct capture *c)
{
	if (!c->direct || c->map_failed)
		return -1;
	c->roff = PCAP_FILE_HDR;
	c->rpos = 0;
	c->rend = 0;
	c->count = 0;
	return 0;
}

void cap_close(struct capture *c)
{
	if (!c)
		return;
	if (c->p)
		pcap_close(c->p);
	free(c->buf); /* after pcap_close, which closed fp */
	free(c->rbuf);
	free(c->path);
	free(c->frame);
	free(c);
}
