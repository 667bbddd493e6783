// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <stdlib.h>

#include "check_runner.h"

int check_run_suites(const check_suite_fn *suites, size_t count)
{
	SRunner *sr;
	int run, failed;
	size_t i;

	if (!count) {
		fprintf(stderr, "check_run_suites: no suites\n");
		return EXIT_FAILURE;
	}
	sr = srunner_create(suites[0]());
	for (i = 1; i < count; i++)
		srunner_add_suite(sr, suites[i]());
	srunner_run_all(sr, CK_NORMAL);
	run = srunner_ntests_run(sr);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	/* Check reports failures on stderr: keep them before the tally. */
	fflush(stderr);
	printf("%d passed, %d failed\n", run - failed, failed);
	fflush(stdout);
	/* A suite that ran no test at all is a broken build, not a pass. */
	return (failed || !run) ? EXIT_FAILURE : EXIT_SUCCESS;
}
