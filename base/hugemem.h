/* hugemem.h - large tables that grow and are read at random (the
 * statistics of thousands of classes: sfq's buckets) in memory of their
 * own, which the kernel is asked to back with transparent huge pages
 * where it offers them ("madvise" mode): a 2 MiB page is one page fault
 * and one TLB entry where 4 KiB pages are 512 of each. The memory comes
 * zeroed. Built with AddressSanitizer, plain malloc, so its checks cover
 * these tables too. */
#ifndef TCSIM_HUGEMEM_H
#define TCSIM_HUGEMEM_H

#include <stddef.h>

/* A table that grows (by doubling): the block p of old_n bytes grown to
 * n (>= old_n, > 0), its contents kept, the new bytes zeroed; p NULL: a
 * new block. NULL when out of memory (p is then left as it was). Sizes
 * from 2 MiB are kept in whole huge pages, so what a growth adds is. */
void *hugemem_realloc(void *p, size_t old_n, size_t n);
/* Frees a block of n bytes (p NULL: nothing). */
void hugemem_free(void *p, size_t n);

#endif
