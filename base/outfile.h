/* outfile.h - writing an output file whole or not at all: a temporary file
 * beside it, renamed into place once everything is written. A path that
 * is not a regular file (/dev/null, /dev/stdout, a terminal) is written in
 * place: renaming onto it would replace the device with a file. */
#ifndef TCSIM_OUTFILE_H
#define TCSIM_OUTFILE_H

#include <stdio.h>

struct outfile {
	FILE *f;    /* where to write */
	char *path; /* the final name */
	char *tmp;  /* the temporary name, or NULL when written in place */
};

/* Opens for writing (mode "w" or "wb"). 0, or -errno with errno set (the
 * caller names the path in its own message). */
int outfile_open(struct outfile *o, const char *path, const char *mode);
/* Flushes, closes and renames into place. 0, or -errno with errno set; the
 * temporary file is gone either way, o->path stays for the caller's
 * message until outfile_abort frees it. */
int outfile_commit(struct outfile *o);
/* outfile_commit for a stream its writer has closed already (o->f was
 * handed over and set to NULL: libpcap's pcap_dump_close closes it): renames
 * the temporary file into place. 0, or -errno with errno set. */
int outfile_place(struct outfile *o);
/* Closes and removes what was written (a device written in place keeps
 * what it got), and frees the names: after a commit it only frees. Safe
 * on a zeroed outfile and twice. */
void outfile_abort(struct outfile *o);

#endif
