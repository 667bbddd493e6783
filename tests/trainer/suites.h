/* Host Check suites of the trainers (apps/hl-train); no device needed. */
#ifndef TRAINER_SUITES_H
#define TRAINER_SUITES_H

#include <check.h>

Suite *rng_suite(void);
Suite *idx_suite(void);
Suite *model_json_suite(void);
Suite *safetensors_suite(void);
Suite *ref_trainer_suite(void);
Suite *lamb_suite(void);
Suite *train_loop_suite(void);
Suite *cli_suite(void);
Suite *prof_suite(void);
Suite *optimizers_suite(void);
Suite *lambda_suite(void);

#endif
