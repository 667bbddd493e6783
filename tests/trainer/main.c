// SPDX-License-Identifier: MIT
/* trainer-tests: the trainers' host suites; prints "N passed, N failed". */
#include <stdlib.h>

#include "check_runner.h"
#include "suites.h"

static const check_suite_fn suites[] = {
	rng_suite,	   idx_suite,	     model_json_suite, safetensors_suite,
	ref_trainer_suite, lamb_suite,	     train_loop_suite, cli_suite,
	prof_suite,
	optimizers_suite, lambda_suite,
};

int main(void)
{
	return CHECK_RUN_SUITES(suites);
}
