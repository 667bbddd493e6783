// SPDX-License-Identifier: MIT
/*
 * libhlrt on the device through the driver: the seed model (Flatten +
 * Dense(10), SGD, softmax cross-entropy) trains on synthetic data, each
 * step's loss and the final weights equal to a plain-C trainer's; eager
 * recipes match lazy ones bit for bit; a stream waiting for another's
 * event sees its results. The tests are tests/runtime/test_train.c,
 * test_eager.c and test_stream_wait.c, built here against the driver
 * instead of the in-process device.
 */
#include <stdio.h>
#include <stdlib.h>

#include "rt_test.h"

int main(void)
{
	SRunner *sr = srunner_create(train_suite());

	srunner_add_suite(sr, eager_suite());
	srunner_add_suite(sr, stream_wait_suite());
	int run, failed;

	srunner_run_all(sr, CK_NORMAL);
	run = srunner_ntests_run(sr);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	printf("%d passed, %d failed\n", run - failed, failed);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
