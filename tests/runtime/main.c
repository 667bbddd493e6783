// SPDX-License-Identifier: MIT
/* runtime-tests: the host tests of libhlrt; prints "N passed, N failed". */
#include <stdlib.h>

#include "check_runner.h"
#include "rt_test.h"

static const check_suite_fn suites[] = {
	api_suite, kernels_suite, compiler_suite, train_suite, custom_suite, session_suite,
	eager_suite, transpose_suite, lamb_suite, stream_wait_suite, conv_suite, coll_suite,
	optimizer_suite, gelu_suite, concat_suite,
};

int main(void)
{
	return CHECK_RUN_SUITES(suites);
}
