/* Helpers shared by the CUnit suites: one main per suite file. */
#ifndef CONFAB_UNIT_H
#define CONFAB_UNIT_H

#include <CUnit/Basic.h>

struct unit_test {
	const char *name;
	void (*fn)(void);
};

/* Runs the tests as one suite named name; returns the process exit status. */
static inline int unit_run(const char *name, const struct unit_test *tests)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite suite = CU_add_suite(name, NULL, NULL);
	for (const struct unit_test *t = tests; t->name != NULL; t++)
		CU_add_test(suite, t->name, t->fn);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned int failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}

#endif
