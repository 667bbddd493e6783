/* SPDX-License-Identifier: MIT */
/*
 * Runs every suite of the device core unit tests and ends with the line
 * "N passed, N failed"; the exit status is non-zero when a test failed.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gsim_test.h"

int main(void)
{
	SRunner *sr = srunner_create(regs_suite());
	int run, failed;

	srunner_add_suite(sr, queue_suite());
	srunner_add_suite(sr, dma_suite());
	srunner_add_suite(sr, packet_suite());
	srunner_add_suite(sr, error_suite());
	srunner_add_suite(sr, reset_suite());
	srunner_add_suite(sr, random_suite());
	srunner_add_suite(sr, iq_suite());
	srunner_add_suite(sr, sync_suite());
	srunner_add_suite(sr, packet2_suite());
	srunner_add_suite(sr, engine_suite());
	srunner_add_suite(sr, eq_suite());
	srunner_add_suite(sr, tpc_suite());
	srunner_add_suite(sr, mme_suite());
	srunner_add_suite(sr, mmu_suite());
	srunner_add_suite(sr, telemetry_suite());
	srunner_add_suite(sr, faults_suite());
	srunner_add_suite(sr, wiring_suite());
	srunner_add_suite(sr, tpc_golden_suite());
	srunner_add_suite(sr, mmu_golden_suite());
	srunner_add_suite(sr, mme_backend_suite());
	srunner_add_suite(sr, threads_suite());
	srunner_add_suite(sr, mme_bf16_suite());
	srunner_add_suite(sr, security_suite());

	srunner_run_all(sr, CK_NORMAL);
	run = srunner_ntests_run(sr);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);

	fflush(stderr);
	printf("%d passed, %d failed\n", run - failed, failed);
	fflush(stdout);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
