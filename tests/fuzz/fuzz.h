/* fuzz.h - what every fuzz target shares. A target is one file,
 * tests/fuzz/fuzz_NAME.c, defining LLVMFuzzerTestOneInput (and, if it needs
 * one-time setup, LLVMFuzzerInitialize). `make fuzz` links it with clang's
 * libFuzzer; `make check` links the same file with replay.c, which feeds it
 * the committed regression inputs of tests/fuzz/regress/NAME/. */
#ifndef TCSIM_FUZZ_H
#define TCSIM_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* The input as a NUL-terminated string (it may hold NULs of its own). */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* The input as a file that the path-taking readers can open: an in-memory
 * file named /proc/self/fd/N. Returns the descriptor, closed with close(). */
static inline int fuzz_file(const uint8_t *data, size_t size, char *path, size_t n)
{
	int fd = memfd_create("fuzz", 0);
	size_t off = 0;

	if (fd < 0)
		abort();
	while (off < size) {
		ssize_t w = write(fd, data + off, size - off);

		if (w <= 0)
			abort();
		off += (size_t)w;
	}
	snprintf(path, n, "/proc/self/fd/%d", fd);
	return fd;
}

/* Takes the first `want` bytes of the input as parameters (zeros past its
 * end) and moves the input past them. */
static inline void fuzz_take(const uint8_t **data, size_t *size, uint8_t *out, size_t want)
{
	size_t k = *size < want ? *size : want;

	memset(out, 0, want);
	if (k)
		memcpy(out, *data, k);
	*data += k;
	*size -= k;
}

#endif
