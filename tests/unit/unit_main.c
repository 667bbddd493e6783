/* SPDX-License-Identifier: MIT */
/*
 * Runs every suite of the device core unit tests and ends with the line
 * "N passed, N failed"; the exit status is non-zero when a test failed.
 */
#include <stdlib.h>

#include "check_runner.h"
#include "gsim_test.h"

static const check_suite_fn suites[] = {
	regs_suite,	   queue_suite,	      dma_suite,	 packet_suite,
	error_suite,	   reset_suite,	      random_suite,	 iq_suite,
	sync_suite,	   packet2_suite,     engine_suite,	 eq_suite,
	tpc_suite,	   mme_suite,	      mmu_suite,	 telemetry_suite,
	faults_suite,	   wiring_suite,      tpc_golden_suite,	 mmu_golden_suite,
	mme_backend_suite, threads_suite,     mme_bf16_suite,	 security_suite,
	mme_conv_suite,	   nic_suite,	      board_suite,	 pkt_table_suite,
	payload_rights_suite, gaudi_map_suite,
};

int main(void)
{
	return CHECK_RUN_SUITES(suites);
}
