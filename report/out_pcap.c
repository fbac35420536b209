/* out_pcap.c - the capture files of the outputs (output.h), written by
 * base/pcapwrite.c (libpcap's pcap_dump for pcap, tcsim's pcapng):
 *  - pcap: per band, the packets it sent, stamped at departure, and those
 *    it dropped, at arrival, in two files;
 *  - pcapng: per band, one file of both, in the order their fate was
 *    decided, each packet with a comment saying it (fate_comment).
 *
 * A file is made on its band's first packet, or at the end for a band that
 * had none, so that every band of the final tree has its files. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output_int.h"

static const char *const pcap_kind[2] = {"sent", "dropped"};

/* the file of a packet of kind: pcapng keeps both kinds in pw[0] */
static int file_of(const struct outputs *o, int kind)
{
	return o->fmt == PCAPW_PCAPNG ? 0 : kind;
}

static int nfiles(const struct outputs *o)
{
	return o->fmt == PCAPW_PCAPNG ? 1 : 2;
}

static int opcap_create(struct outputs *o, struct odev *od, struct band *b, int kind)
{
	struct pcapw_iface ifc = {.name = od->d->name};
	char name[128], desc[96], why[256];
	char *path;
	FILE *f;

	if (o->fmt == PCAPW_PCAPNG)
		snprintf(name, sizeof(name), "%s-%s.pcapng", od->fname, b->fname);
	else
		snprintf(name, sizeof(name), "%s-%s-%s.pcap", od->fname, b->fname, pcap_kind[kind]);
	snprintf(desc, sizeof(desc), "%s band %s", od->d->name, b->name);
	ifc.description = desc;
	path = outdir_add(o, &o->pcap, name);
	if (!path)
		return -1;
	errno = 0;
	f = fopen(path, "wb");
	free(path);
	if (!f) {
		int e = errno ? errno : EIO;

		out_set_err(o, -e, "%s/%s: cannot write: %s", o->pcap.dir, name, strerror(e));
		return -1;
	}
	if (pcapw_open(&b->pw[kind], f, o->fmt, &ifc, why, sizeof(why))) {
		out_set_err(o, -EIO, "%s/%s: cannot write: %s", o->pcap.dir, name, why);
		return -1;
	}
	b->pw_open[kind] = 1;
	return 0;
}

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

/* A packet's fate as its pcapng comment, keys as in trace lines
 * (docs/trace.md), times in ns:
 *   sent band=1:1 packet=K:N id=I verdict=filter classid=1:1 pref=P handle=0xH
 *	queue_ns=Q total_ns=T
 *   dropped band=1:2 packet=K:N id=I verdict=... reason=sfq_depth queue_ns=Q
 * (a dropped packet's queue_ns: from its arrival to its drop). */
static void fate_comment(char *buf, size_t n, const struct outputs *o, const struct band *b,
			 int kind, const struct pkt *p)
{
	int k = snprintf(buf, n, "%s band=%s packet=%d:%" PRIu64 " id=%" PRIu64 " verdict=%s",
			 pcap_kind[kind], b->name, p->source + 1, p->src_seq, p->id,
			 pkt_verdict_name(p->verdict));

	if (k > 0 && (size_t)k < n &&
	    (p->verdict == VERDICT_FILTER || p->verdict == VERDICT_PRIORITY)) {
		char cid[32];

		tc_print_classid(cid, sizeof(cid), p->classid);
		k += snprintf(buf + k, n - (size_t)k, " classid=%s", cid);
		if (p->verdict == VERDICT_FILTER && p->filter_pref && (size_t)k < n)
			k += snprintf(buf + k, n - (size_t)k, " pref=%u handle=0x%x", p->filter_pref,
				      p->filter_handle);
	}
	if (k < 0 || (size_t)k >= n)
		return;
	if (kind == P_SENT)
		snprintf(buf + k, n - (size_t)k, " queue_ns=%" PRIu64 " total_ns=%" PRIu64,
			 p->t_dequeue - p->t_arrive, p->t_depart - p->t_arrive);
	else
		snprintf(buf + k, n - (size_t)k, " reason=%s queue_ns=%" PRIu64,
			 pkt_drop_name(p->drop), o->s->now - p->t_arrive);
}

void opcap_write(struct outputs *o, struct odev *od, struct band *b, int kind, const struct pkt *p)
{
	uint64_t t = (kind == P_SENT ? p->t_depart : p->t_arrive) + opcap_epoch(o);
	int fi = file_of(o, kind);
	struct iovec iov[3];
	uint8_t vh[4];
	char comment[320];
	int niov = 1, r;

	if (!b->pw_open[fi] && opcap_create(o, od, b, fi))
		return;
	/* The frame as on the wire: an offloaded VLAN tag goes back after the
	 * MAC addresses (the NIC inserts it on transmit). */
	iov[0] = (struct iovec){p->data, p->caplen};
	if (p->vlan_present) {
		uint32_t head = p->caplen < 12 ? p->caplen : 12;

		vh[0] = (uint8_t)(p->vlan_proto >> 8);
		vh[1] = (uint8_t)p->vlan_proto;
		vh[2] = (uint8_t)(p->vlan_tci >> 8);
		vh[3] = (uint8_t)p->vlan_tci;
		iov[0].iov_len = head;
		iov[1] = (struct iovec){vh, 4};
		iov[2] = (struct iovec){p->data + head, p->caplen - head};
		niov = 3;
	}
	if (o->fmt == PCAPW_PCAPNG)
		fate_comment(comment, sizeof(comment), o, b, kind, p);
	r = pcapw_put(&b->pw[fi], t, p->len + (p->vlan_present ? 4 : 0), iov, niov,
		      o->fmt == PCAPW_PCAPNG ? comment : NULL,
		      o->fmt == PCAPW_PCAPNG ? PCAPW_OUTBOUND : 0);
	if (r == -EOVERFLOW)
		out_set_err(o, -EOVERFLOW,
			    "%s: packet %" PRIu64 " at %" PRIu64 " ns: past the 32-bit seconds of pcap",
			    od->d->name, p->id, t);
	else if (r)
		out_set_err(o, r, "%s: cannot write a %s %s of %s: %s", o->pcap.dir,
			    o->fmt == PCAPW_PCAPNG ? "band's" : pcap_kind[kind], pcapw_ext(o->fmt),
			    od->d->name, strerror(-r));
}

/* Writes and closes every file; a band without packets gets its empty
 * files here. The first write error (a full disk shows when the last
 * buffer is flushed) becomes the outputs' error. */
int opcap_close_pcaps(struct outputs *o)
{
	for (int i = 0; i < o->ndevs; i++)
		for (int k = 0; k < o->devs[i].nbands; k++) {
			struct band *b = &o->devs[i].bands[k];

			for (int j = 0; j < nfiles(o); j++) {
				int r;

				if (!b->pw_open[j] && !o->err)
					opcap_create(o, &o->devs[i], b, j);
				if (!b->pw_open[j])
					continue;
				b->pw_open[j] = 0;
				if ((r = pcapw_close(&b->pw[j])))
					out_set_err(o, r, "%s: cannot write: %s", o->pcap.dir,
						    strerror(-r));
			}
		}
	return o->err;
}

/* Closes every file without caring (the outputs failed). */
void opcap_abort(struct outputs *o)
{
	for (int i = 0; i < o->ndevs; i++)
		for (int k = 0; k < o->devs[i].nbands; k++)
			for (int j = 0; j < 2; j++) {
				pcapw_abort(&o->devs[i].bands[k].pw[j]);
				o->devs[i].bands[k].pw_open[j] = 0;
			}
}
