/* pcap_frames.c - loads the frames of an Ethernet capture into memory with
 * libpcap. */
#include "pcap_frames.h"

#include <errno.h>
#include <pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int pcap_frames_add(struct pcap_frames *f, const uint8_t *data,
		    uint32_t caplen, uint32_t len)
{
	uint8_t *copy;

	if (f->n == f->cap) {
		size_t ncap = f->cap ? 2 * f->cap : 256;
		struct pcap_frame *nv = realloc(f->v, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		f->v = nv;
		f->cap = ncap;
	}
	copy = malloc(caplen ? caplen : 1);
	if (!copy)
		return -ENOMEM;
	if (caplen)
		memcpy(copy, data, caplen);
	f->v[f->n].data = copy;
	f->v[f->n].caplen = caplen;
	f->v[f->n].len = len;
	f->n++;
	return 0;
}

int pcap_frames_load(struct pcap_frames *f, const char *path, size_t max,
		     char *err, size_t errlen)
{
	char perr[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	size_t added = 0;
	pcap_t *p;
	int rc = 0, r;

	if (access(path, R_OK) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -ENOENT;
	}
	p = pcap_open_offline(path, perr);
	if (!p) {
		snprintf(err, errlen, "%s: %s", path, perr);
		return -EINVAL;
	}
	if (pcap_datalink(p) != DLT_EN10MB) {
		snprintf(err, errlen, "%s: link type %d, not Ethernet", path,
			 pcap_datalink(p));
		pcap_close(p);
		return -EINVAL;
	}
	while ((max == 0 || added < max) &&
	       (r = pcap_next_ex(p, &h, &data)) == 1) {
		rc = pcap_frames_add(f, data, h->caplen, h->len);
		if (rc) {
			snprintf(err, errlen, "%s: out of memory", path);
			break;
		}
		added++;
	}
	pcap_close(p);
	return rc;
}

void pcap_frames_free(struct pcap_frames *f)
{
	for (size_t i = 0; i < f->n; i++)
		free((void *)f->v[i].data);
	free(f->v);
	memset(f, 0, sizeof(*f));
}

const char *pcap_frames_shared_dir(void)
{
	const char *env = getenv("TCSIM_SHARED");
	struct stat st;

	if (env && *env)
		return env;
	if (stat("../shared", &st) == 0 && S_ISDIR(st.st_mode))
		return "../shared";
	return NULL;
}
