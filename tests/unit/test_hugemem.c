/* test_hugemem.c - base/hugemem: a table grown by doubling from a page to
 * 16 MiB (past the 2 MiB from which it is kept in whole huge pages) keeps
 * every byte written before each growth and reads zero in what it adds. */
#include <CUnit/Basic.h>
#include <stdint.h>
#include <string.h>

#include "hugemem.h"
#include "unit.h"

static uint8_t pattern(size_t i)
{
	return (uint8_t)(i * 2654435761u >> 24) | 1; /* never 0 */
}

static void test_grow(void)
{
	size_t n = 0;
	uint8_t *p = NULL;

	for (size_t want = 3000; want <= (size_t)16 << 20; want *= 2) {
		uint8_t *q = hugemem_realloc(p, n, want);
		size_t bad_old = 0, bad_new = 0;

		CU_ASSERT_PTR_NOT_NULL_FATAL(q);
		for (size_t i = 0; i < n; i++)
			bad_old += q[i] != pattern(i);
		for (size_t i = n; i < want; i++)
			bad_new += q[i] != 0;
		CU_ASSERT_EQUAL(bad_old, 0);
		CU_ASSERT_EQUAL(bad_new, 0);
		for (size_t i = n; i < want; i++)
			q[i] = pattern(i);
		p = q;
		n = want;
	}
	/* the same size again: the contents kept (a new block under ASan) */
	p = hugemem_realloc(p, n, n);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(p[n - 1], pattern(n - 1));
	hugemem_free(p, n);
	hugemem_free(NULL, 0);
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("hugemem", NULL, NULL);
	CU_add_test(s, "grown by doubling: contents kept, new bytes zero", test_grow);
	return unit_run();
}
