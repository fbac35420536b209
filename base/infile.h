/* infile.h - opening a file tcsim reads as input (a capture, a tc script,
 * a program, a golden, a scenario): regular files only. */
#ifndef TCSIM_INFILE_H
#define TCSIM_INFILE_H

#include <stddef.h>
#include <stdio.h>

/* Opens path for reading ("rb") without blocking on a FIFO that has no
 * writer. Returns 0, or a negative errno with *why set to a static text
 * for "PATH: <why>": strerror's, or "a FIFO, not a regular file" (and
 * likewise a directory, a character or block device, a socket). */
int infile_open(FILE **f, const char *path, const char **why);

/* Standard input as an input file (a capture named "-"): copied once into
 * an unlinked temporary file (read in place when it is a regular file),
 * each call a new FILE reading it from the start. A terminal is refused. */
int infile_open_stdin(FILE **f, const char **why);

#endif
