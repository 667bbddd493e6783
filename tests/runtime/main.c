// SPDX-License-Identifier: MIT
/* runtime-tests: the host tests of libhlrt; prints "N passed, N failed". */
#include <stdio.h>
#include <stdlib.h>

#include "rt_test.h"

int main(void)
{
	SRunner *sr = srunner_create(api_suite());
	int run, failed;

	srunner_add_suite(sr, kernels_suite());
	srunner_add_suite(sr, compiler_suite());
	srunner_add_suite(sr, train_suite());
	srunner_add_suite(sr, custom_suite());
	srunner_add_suite(sr, session_suite());
	srunner_run_all(sr, CK_NORMAL);
	run = srunner_ntests_run(sr);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	printf("%d passed, %d failed\n", run - failed, failed);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
