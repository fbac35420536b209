/* pcap_frames.h - the Ethernet frames of a capture file held in memory (via
 * libpcap), for tests and the bench. */
#ifndef TCSIM_PCAP_FRAMES_H
#define TCSIM_PCAP_FRAMES_H

#include <stddef.h>
#include <stdint.h>

struct pcap_frame {
	const uint8_t *data; /* caplen bytes */
	uint32_t caplen;
	uint32_t len; /* length on the wire */
};

struct pcap_frames {
	struct pcap_frame *v;
	size_t n;
	size_t cap;
};

/* Appends up to max frames (0: all) of an Ethernet (DLT_EN10MB) capture.
 * Returns 0, or -ENOENT if the file is missing, -EINVAL if libpcap refuses
 * it or it is not Ethernet, -ENOMEM; err says which. */
int pcap_frames_load(struct pcap_frames *f, const char *path, size_t max,
		     char *err, size_t errlen);

/* Appends one frame (a copy of data). */
int pcap_frames_add(struct pcap_frames *f, const uint8_t *data,
		    uint32_t caplen, uint32_t len);

void pcap_frames_free(struct pcap_frames *f);

/* The shared folder of test assets: $TCSIM_SHARED, else ../shared if it
 * exists, else NULL (a user's clone has none). */
const char *pcap_frames_shared_dir(void);

#endif
