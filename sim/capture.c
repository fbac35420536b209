/* capture.c - captures read through libpcap and rebuilt as the Ethernet
 * frames an egress Ethernet device carries. Non-Ethernet link layers get a
 * synthetic header: destination 02:00:00:00:00:02, source 02:00:00:00:00:01
 * (SLL's own source address when it has six bytes), and the EtherType of
 * the network protocol. */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"

#define ETH_HLEN 14
#define FRAME_MAX (262144 + ETH_HLEN)
#define CAP_IOBUF (1 << 20)

struct capture {
	pcap_t *p;
	char *path;
	int dlt;
	FILE *fp;     /* owned by libpcap once it opened the capture */
	char *buf;    /* fp's stdio buffer */
	uint64_t count;
	uint8_t *frame;
};

static const uint8_t dst_mac[6] = {0x02, 0, 0, 0, 0, 0x02};
static const uint8_t src_mac[6] = {0x02, 0, 0, 0, 0, 0x01};

int cap_open(struct capture **out, const char *path, char *err, size_t errlen)
{
	char perr[PCAP_ERRBUF_SIZE] = "";
	struct capture *c;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		goto nomem;
	/* Our own FILE with a 1 MiB buffer: libpcap reads record by record, and
	 * stdio's default 4 KiB buffer made that a third of a replay's time. */
	c->fp = fopen(path, "rb");
	if (!c->fp) {
		int e = errno;

		snprintf(err, errlen, "%s: not a readable capture: %s", path, strerror(e));
		free(c);
		return -e;
	}
	c->buf = malloc(CAP_IOBUF);
	if (c->buf)
		setvbuf(c->fp, c->buf, _IOFBF, CAP_IOBUF);
	c->p = pcap_fopen_offline_with_tstamp_precision(c->fp, PCAP_TSTAMP_PRECISION_NANO, perr);
	if (!c->p) {
		fclose(c->fp);
		free(c->buf);
		size_t n = strlen(path);
		const char *why = !strncmp(perr, path, n) && perr[n] == ':' ? perr + n + 1 : perr;

		while (*why == ' ')
			why++;
		snprintf(err, errlen, "%s: not a readable capture: %s", path, why);
		free(c);
		return -EINVAL;
	}
	c->dlt = pcap_datalink(c->p);
	switch (c->dlt) {
	case DLT_EN10MB: case DLT_RAW: case DLT_IPV4: case DLT_IPV6: case DLT_NULL:
	case DLT_LOOP: case DLT_LINUX_SLL: case DLT_LINUX_SLL2:
		break;
	default:
		snprintf(err, errlen,
			 "%s: link type %s (%d) cannot be turned into Ethernet frames (supported: EN10MB, RAW, IPV4, IPV6, NULL, LOOP, LINUX_SLL, LINUX_SLL2)",
			 path, pcap_datalink_val_to_name(c->dlt) ? pcap_datalink_val_to_name(c->dlt) : "?",
			 c->dlt);
		pcap_close(c->p);
		free(c->buf);
		free(c);
		return -EINVAL;
	}
	c->path = strdup(path);
	c->frame = malloc(FRAME_MAX);
	if (!c->path || !c->frame) {
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
static void wrap(struct capture *c, struct cap_pkt *pkt, const uint8_t *src,
		 uint16_t type, const uint8_t *l3, uint32_t l3cap, uint32_t l3len)
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
	pkt->len = l3len + ETH_HLEN;
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
	case DLT_RAW: case DLT_IPV4: case DLT_IPV6:
		type = ip_ethertype(d, cap);
		if (!type) {
			pkt->reject = "raw packet is neither IPv4 nor IPv6";
			break;
		}
		wrap(c, pkt, NULL, type, d, cap, len);
		return;
	case DLT_NULL: case DLT_LOOP:
		if (cap < 4) {
			pkt->reject = "shorter than the 4-byte loopback header";
			break;
		}
		/* NULL: host order of the writer; LOOP: network order. */
		af = host32(d, c->dlt == DLT_LOOP ? 1 : pcap_is_swapped(c->p));
		type = af == 2 ? 0x0800 : (af == 10 || af == 24 || af == 28 || af == 30) ? 0x86dd : 0;
		if (!type) {
			pkt->reject = "loopback address family is neither IPv4 nor IPv6";
			break;
		}
		wrap(c, pkt, NULL, type, d + 4, cap - 4, len - 4);
		return;
	case DLT_LINUX_SLL: case DLT_LINUX_SLL2:
		hl = c->dlt == DLT_LINUX_SLL ? 16 : 20;
		if (cap < hl) {
			pkt->reject = "shorter than the Linux cooked header";
			break;
		}
		{
			const uint8_t *proto = c->dlt == DLT_LINUX_SLL ? d + 14 : d;
			uint16_t halen = c->dlt == DLT_LINUX_SLL ? (uint16_t)(d[4] << 8 | d[5]) : d[11];
			const uint8_t *addr = c->dlt == DLT_LINUX_SLL ? d + 6 : d + 12;

			type = (uint16_t)(proto[0] << 8 | proto[1]);
			if (type < 0x600) {
				pkt->reject = "cooked header carries no EtherType (802.2/802.3 or CAN)";
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

int cap_next(struct capture *c, struct cap_pkt *pkt, char *err, size_t errlen)
{
	struct pcap_pkthdr *h;
	const u_char *d;
	int r = pcap_next_ex(c->p, &h, &d);

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

void cap_close(struct capture *c)
{
	if (!c)
		return;
	if (c->p)
		pcap_close(c->p);
	free(c->buf); /* after pcap_close, which closed fp */
	free(c->path);
	free(c->frame);
	free(c);
}
