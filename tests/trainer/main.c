/* trainer-tests: the trainers' host suites; prints "N passed, N failed". */
#include <stdio.h>
#include <stdlib.h>

#include "suites.h"

int main(void)
{
	SRunner *sr = srunner_create(rng_suite());
	int run, failed;

	srunner_add_suite(sr, idx_suite());
	srunner_add_suite(sr, model_json_suite());
	srunner_add_suite(sr, safetensors_suite());
	srunner_add_suite(sr, ref_trainer_suite());
	srunner_add_suite(sr, train_loop_suite());
	srunner_add_suite(sr, cli_suite());
	srunner_run_all(sr, CK_NORMAL);
	run = srunner_ntests_run(sr);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	printf("%d passed, %d failed\n", run - failed, failed);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
