/* unit.h - the closing of every CUnit suite program: run verbosely, count
 * failed asserts, failed suite set-ups and framework errors, exit 0 or 1. */
#ifndef TCSIM_UNIT_H
#define TCSIM_UNIT_H

#include <CUnit/Basic.h>

static inline int unit_run(void)
{
	unsigned fails;

	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	fails = CU_get_number_of_failures() + CU_get_run_summary()->nSuitesFailed;
	if (CU_get_error() != CUE_SUCCESS)
		fails++;
	CU_cleanup_registry();
	return fails ? 1 : 0;
}

#endif
