// SPDX-License-Identifier: MIT
/* host-user: runs the user-space host suites and prints "N passed, N failed". */
#include <stdio.h>
#include <stdlib.h>

#include "suites.h"

int main(void)
{
	SRunner *sr = srunner_create(smi_format_suite());
	int run, failed;

	srunner_add_suite(sr, packets_suite());
	srunner_add_suite(sr, thunk_suite());
	srunner_add_suite(sr, tpc_asm_suite());
	srunner_add_suite(sr, uapi_layout_suite());
	srunner_run_all(sr, CK_NORMAL);
	run = srunner_ntests_run(sr);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	printf("%d passed, %d failed\n", run - failed, failed);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
