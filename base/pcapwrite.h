/* pcapwrite.h - tcsim's one writer of capture files: classic pcap through
 * libpcap's own pcap_dump, pcapng (which libpcap cannot write) here.
 *
 * Both are Ethernet (LINKTYPE_ETHERNET) with nanosecond timestamps and a
 * snaplen of 262144, in the host's byte order as libpcap writes them:
 *  - pcap: libpcap's file header (magic 0xa1b23c4d, 2.4) and records;
 *  - pcapng: a section header block (shb_userappl "tcsim"), one interface
 *    description block (if_name, if_description when given, if_tsresol 9:
 *    nanoseconds) and one enhanced packet block per packet, with the
 *    packet's comment (opt_comment) and epb_flags when given.
 *
 * Use:
 *	pcapw_open(&w, f, PCAPW_PCAPNG, &ifc, err, len);  f is the writer's now
 *	pcapw_put(&w, t_ns, len, iov, niov, comment, flags);  per packet
 *	pcapw_close(&w);   flushes and closes f: 0 or -errno
 * or pcapw_abort(&w) to close without caring. */
#ifndef TCSIM_PCAPWRITE_H
#define TCSIM_PCAPWRITE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/uio.h>

#define PCAPW_SNAPLEN 262144u

enum pcapw_format { PCAPW_PCAP, PCAPW_PCAPNG };

/* epb_flags' direction bits (pcapng): 0 when not given */
#define PCAPW_OUTBOUND 2u

/* The interface of a pcapng file (NULL fields are left out). */
struct pcapw_iface {
	const char *name;	 /* if_name */
	const char *description; /* if_description */
};

struct pcapw {
	enum pcapw_format fmt;
	FILE *f;		    /* pcapng: the stream */
	struct pcap *dead;	    /* pcap: libpcap's handle and dumper over the stream */
	struct pcap_dumper *dump;
	uint8_t *buf;		    /* a frame or block assembled */
	size_t cap;
};

/* "pcap" or "pcapng" into *fmt: 0, or -1 for another word. */
int pcapw_format_parse(const char *word, enum pcapw_format *fmt);
/* The file name extension of a format, without the dot. */
const char *pcapw_ext(enum pcapw_format fmt);

/* Writes the file's header on f, which the writer owns from now on (and
 * closes on failure too). ifc: pcapng only, may be NULL. 0, or -errno with
 * a message (without the file's name) in err. */
int pcapw_open(struct pcapw *w, FILE *f, enum pcapw_format fmt, const struct pcapw_iface *ifc,
	       char *err, size_t errlen);

/* One packet stamped t_ns (from 1970): its original length len and the
 * captured bytes, the concatenation of iov[0..niov) (at most PCAPW_SNAPLEN
 * bytes are kept). comment and flags are pcapng's (NULL, 0: none) and
 * ignored in a pcap. 0, -EOVERFLOW for a pcap past its 32-bit seconds
 * (2106), or -errno of a write. */
int pcapw_put(struct pcapw *w, uint64_t t_ns, uint32_t len, const struct iovec *iov, int niov,
	      const char *comment, uint32_t flags);

/* Flushes and closes: 0, or -errno of the first failure seen. */
int pcapw_close(struct pcapw *w);
/* Closes without caring (error paths). Safe on a zeroed or closed writer. */
void pcapw_abort(struct pcapw *w);

#endif
