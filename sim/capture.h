/* capture.h - reading captures (pcap, pcapng) lazily through libpcap, one
 * packet at a time, each turned into the Ethernet frame an egress device
 * would carry. */
#ifndef TCSIM_CAPTURE_H
#define TCSIM_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

struct capture;

struct cap_pkt {
	const uint8_t *data; /* Ethernet frame (valid until the next cap_next) */
	uint32_t caplen;     /* bytes present */
	uint32_t len;        /* original frame length */
	uint64_t ts_ns;      /* capture timestamp, ns since the epoch */
	uint64_t index;      /* 1-based packet number in the file */
	const char *reject;  /* non-NULL: the frame cannot be carried, why */
};

/* Opens a capture. Link types: EN10MB, RAW/IPV4/IPV6, NULL/LOOP,
 * LINUX_SLL, LINUX_SLL2. Errors name the file. */
int cap_open(struct capture **out, const char *path, char *err, size_t errlen);
/* 1: *pkt holds the next packet; 0: end of file; <0: a read error (err
 * names the file and the packet number). */
int cap_next(struct capture *c, struct cap_pkt *pkt, char *err, size_t errlen);
/* 0: the next cap_next reads the first packet again; -1: it cannot (read
 * through libpcap), close and open the file instead. */
int cap_rewind(struct capture *c);
const char *cap_linktype(const struct capture *c);
void cap_close(struct capture *c);

#endif
