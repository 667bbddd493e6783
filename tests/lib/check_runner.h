/* SPDX-License-Identifier: MIT */
/*
 * The one main() shape of every Check-based host suite: run the listed
 * suites, print "N passed, N failed" (the line scripts/run-tests.sh reads)
 * and give the exit status.
 */
#ifndef GAUDISIM_TESTS_CHECK_RUNNER_H
#define GAUDISIM_TESTS_CHECK_RUNNER_H

#include <stddef.h>

#include <check.h>

typedef Suite *(*check_suite_fn)(void);

/* Runs suites[0..count-1]; returns EXIT_SUCCESS when every test passed. */
int check_run_suites(const check_suite_fn *suites, size_t count);

/*
 * Record, while building the suites, a test not added because this host
 * cannot run it (what: the variant). The runner prints each as
 * "skipped: TEST[WHAT]: WHY" before the tally, so a missing path is never
 * counted as passed without a word.
 */
void check_skip(const char *test, const char *what, const char *why);

#define CHECK_RUN_SUITES(table) check_run_suites((table), sizeof(table) / sizeof((table)[0]))

#endif
