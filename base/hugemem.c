/* hugemem.c - tables in mappings of their own, hinted for huge pages. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hugemem.h"

#if defined(__SANITIZE_ADDRESS__)
#define HUGEMEM_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HUGEMEM_MALLOC 1
#endif
#endif

#ifndef HUGEMEM_MALLOC
#define HUGE_PAGE ((size_t)2 << 20)

/* Whole pages; from a huge page on, whole huge pages, so that the part a
 * growth adds is whole huge pages too. */
static size_t page_round(size_t n)
{
	size_t pg = n >= HUGE_PAGE ? HUGE_PAGE : (size_t)sysconf(_SC_PAGESIZE);

	return (n + pg - 1) / pg * pg;
}

/* n bytes (whole pages) starting on a huge page's boundary when they
 * span one, hinted for huge pages (a hint: without THP, or with it off,
 * the pages are small). */
static void *map_aligned(size_t n)
{
	size_t al = n >= HUGE_PAGE ? HUGE_PAGE : 0;
	char *r = mmap(NULL, n + al, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (r == MAP_FAILED)
		return NULL;
	if (al) {
		char *a = (char *)(((uintptr_t)r + al - 1) & ~(uintptr_t)(al - 1));

		if (a > r)
			munmap(r, (size_t)(a - r));
		if (r + al > a)
			munmap(a + n, (size_t)(r + al - a));
		r = a;
	}
#ifdef MADV_HUGEPAGE
	(void)madvise(r, n, MADV_HUGEPAGE);
#endif
	return r;
}
#endif

void *hugemem_realloc(void *p, size_t old_n, size_t n)
{
#ifdef HUGEMEM_MALLOC
	void *q = realloc(p, n);

	if (q && n > old_n)
		memset((char *)q + old_n, 0, n - old_n);
	return q;
#else
	size_t on = p ? page_round(old_n) : 0, nn = page_round(n);
	void *q;

	if (nn == on)
		return p;
	q = map_aligned(nn);
	/* the old pages move to the start of the new block: nothing is copied */
	if (q && p && mremap(p, on, on, MREMAP_MAYMOVE | MREMAP_FIXED, q) == MAP_FAILED) {
		munmap(q, nn);
		return NULL;
	}
	return q;
#endif
}

void hugemem_free(void *p, size_t n)
{
#ifdef HUGEMEM_MALLOC
	(void)n;
	free(p);
#else
	if (p)
		munmap(p, page_round(n));
#endif
}
