/* out_pcap.c - the pcap files of the outputs (output.h): per band, the
 * packets it sent, stamped at departure, and those it dropped, at arrival.
 *
 * A file is made on its band's first packet, or at the end for a band that
 * had none, so that every band of the final tree has both. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output_int.h"

static const char *const pcap_kind[2] = {"sent", "dropped"};

struct pcap_hdr {
	uint32_t magic;
	uint16_t major, minor;
	int32_t thiszone;
	uint32_t sigfigs, snaplen, linktype;
};

struct pcap_rec {
	uint32_t sec, nsec, caplen, len;
};

#define PCAP_SNAPLEN 262144u

static FILE *opcap_create(struct outputs *o, struct odev *od, struct band *b, int kind)
{
	static const struct pcap_hdr h = {0xa1b23c4d, 2, 4, 0, 0, PCAP_SNAPLEN, 1 /* ETHERNET */};
	char name[128];
	char *path;
	FILE *f;

	snprintf(name, sizeof(name), "%s-%s-%s.pcap", od->fname, b->fname, pcap_kind[kind]);
	path = outdir_add(o, &o->pcap, name);
	if (!path)
		return NULL;
	f = fopen(path, "wb");
	if (!f || fwrite(&h, sizeof(h), 1, f) != 1) {
		int e = errno ? errno : EIO;

		out_set_err(o, -e, "%s/%s: cannot write: %s", o->pcap.dir, name, strerror(e));
		if (f)
			fclose(f);
		free(path);
		return NULL;
	}
	free(path);
	return f;
}

/* The frame as on the wire: an offloaded VLAN tag goes back after the MAC
 * addresses (the NIC inserts it on transmit). */
/* The capture's own clock: the earliest start of the captures replayed */
static uint64_t opcap_epoch(struct outputs *o)
{
	if (!o->epoch_set) {
		o->epoch_set = 1;
		for (int i = 0; !o->epoch_zero && i < o->s->nsrcs; i++) {
			const struct source *src = o->s->srcs[i].src;

			if (src->has_epoch && (!o->epoch || src->epoch_ns < o->epoch))
				o->epoch = src->epoch_ns;
		}
	}
	return o->epoch;
}

void opcap_write(struct outputs *o, struct odev *od, struct band *b, int kind, const struct pkt *p)
{
	uint64_t t = (kind == P_SENT ? p->t_depart : p->t_arrive) + opcap_epoch(o);
	uint32_t tag = p->vlan_present ? 4 : 0;
	struct pcap_rec rec = {(uint32_t)(t / 1000000000u), (uint32_t)(t % 1000000000u),
			       p->caplen + tag, p->len + tag};
	FILE *f = b->pcap[kind];

	if (!f && !(f = b->pcap[kind] = opcap_create(o, od, b, kind)))
		return;
	if (t / 1000000000u > UINT32_MAX) {
		out_set_err(o, -EOVERFLOW,
			    "%s: packet %" PRIu64 " at %" PRIu64
			    " ns: past the 32-bit seconds of pcap",
			    od->d->name, p->id, t);
		return;
	}
	if (rec.caplen > PCAP_SNAPLEN)
		rec.caplen = PCAP_SNAPLEN; /* never: frames are < 2^18 bytes */
	if (fwrite(&rec, sizeof(rec), 1, f) != 1)
		goto io;
	if (tag) {
		uint32_t head = p->caplen < 12 ? p->caplen : 12;
		uint8_t vh[4] = {(uint8_t)(p->vlan_proto >> 8), (uint8_t)p->vlan_proto,
				 (uint8_t)(p->vlan_tci >> 8), (uint8_t)p->vlan_tci};

		if ((head && fwrite(p->data, head, 1, f) != 1) || fwrite(vh, 4, 1, f) != 1 ||
		    (p->caplen > head && fwrite(p->data + head, rec.caplen - 4 - head, 1, f) != 1))
			goto io;
	} else if (rec.caplen && fwrite(p->data, rec.caplen, 1, f) != 1) {
		goto io;
	}
	return;
io:
	out_set_err(o, errno ? -errno : -EIO, "%s: cannot write a %s pcap of %s: %s", o->pcap.dir,
		    pcap_kind[kind], od->d->name, strerror(errno ? errno : EIO));
}

/* Writes and closes every pcap; a band without packets gets its empty
 * files here. The first write error (a full disk shows at fflush or
 * fclose) becomes the outputs' error. */
int opcap_close_pcaps(struct outputs *o)
{
	for (int i = 0; i < o->ndevs; i++)
		for (int k = 0; k < o->devs[i].nbands; k++) {
			struct band *b = &o->devs[i].bands[k];

			for (int j = 0; j < 2; j++) {
				if (!b->pcap[j] && !o->err)
					b->pcap[j] = opcap_create(o, &o->devs[i], b, j);
				if (b->pcap[j]) {
					int bad = fflush(b->pcap[j]) || ferror(b->pcap[j]);

					bad |= fclose(b->pcap[j]) != 0;
					b->pcap[j] = NULL;
					if (bad)
						out_set_err(o, errno ? -errno : -EIO,
							    "%s: cannot write: %s", o->pcap.dir,
							    strerror(errno ? errno : EIO));
				}
			}
		}
	return o->err;
}
