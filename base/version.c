/* version.c - tcsim_version (version.h). The Makefile compiles this file,
 * alone, with -DTCSIM_VERSION, and again whenever the version changes. */
#include <string.h>

#include "version.h"

#ifndef TCSIM_VERSION
#define TCSIM_VERSION "unknown"
#endif

const char *tcsim_version(void)
{
	return TCSIM_VERSION;
}

size_t tcsim_release_len(const char *v)
{
	const char *git = strstr(v, " (");

	return git ? (size_t)(git - v) : strlen(v);
}
