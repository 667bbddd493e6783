// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <stdlib.h>

#include "check_runner.h"

#define CHECK_MAX_SKIPS	32

static struct {
	const char *test, *what, *why;
} skips[CHECK_MAX_SKIPS];
static unsigned int nskips;

void check_skip(const char *test, const char *what, const char *why)
{
	if (nskips < CHECK_MAX_SKIPS) {
		skips[nskips].test = test;
		skips[nskips].what = what;
		skips[nskips].why = why;
	}
	nskips++;
}

int check_run_suites(const check_suite_fn *suites, size_t count)
{
	SRunner *sr;
	int run, failed;
	size_t i;
	unsigned int s;

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
	for (s = 0; s < nskips && s < CHECK_MAX_SKIPS; s++)
		printf("skipped: %s[%s]: %s\n", skips[s].test, skips[s].what, skips[s].why);
	if (nskips > CHECK_MAX_SKIPS)
		printf("skipped: %u more\n", nskips - CHECK_MAX_SKIPS);
	printf("%d passed, %d failed\n", run - failed, failed);
	fflush(stdout);
	/* A suite that ran no test at all is a broken build, not a pass. */
	return (failed || !run) ? EXIT_FAILURE : EXIT_SUCCESS;
}
