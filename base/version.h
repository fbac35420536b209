/* version.h - which tcsim this is, as `tcsim --version` prints it and a
 * golden records it. */
#ifndef TCSIM_VERSION_H
#define TCSIM_VERSION_H

#include <stddef.h>

/* "0.9.0 (git 1e49110)" from a git checkout (the Makefile's VERSION and
 * `git describe --always --dirty`), "0.9.0" otherwise, "unknown" when built
 * without the Makefile. */
const char *tcsim_version(void);

/* The length of v's release, the part before " (git ...)": two versions
 * of the same release built from different commits share it. */
size_t tcsim_release_len(const char *v);

#endif
