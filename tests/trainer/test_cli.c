/* Command-line validation: each flag's bad values are refused. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "suites.h"

static int parse(int device, const char *a1, const char *a2, const char *a3)
{
	char *argv[8] = { "hl-train", "--model", "m.json" };
	int argc = 3;
	struct train_options o;

	if (a1)
		argv[argc++] = (char *)a1;
	if (a2)
		argv[argc++] = (char *)a2;
	if (a3)
		argv[argc++] = (char *)a3;
	optind = 1;
	return cli_parse(argc, argv, device, &o);
}

START_TEST(good_command_lines)
{
	char *argv[] = { "hl-train", "--model", "m.json", "--data", "fashion-mnist",
			 "--epochs", "3", "--batch=64", "--lr", "0.05", "--seed", "9",
			 "--save", "c.st", "--mllog", "--bf16", "--max-steps", "50", NULL };
	struct train_options o;

	optind = 1;
	ck_assert_int_eq(cli_parse(18, argv, 1, &o), 0);
	ck_assert_str_eq(o.data_name, "fashion-mnist");
	ck_assert_uint_eq(o.epochs, 3);
	ck_assert_uint_eq(o.batch, 64);
	ck_assert_float_eq(o.lr, 0.05f);
	ck_assert(o.has_seed && o.seed == 9);
	ck_assert_str_eq(o.save, "c.st");
	ck_assert(o.mllog && o.bf16);
	ck_assert_uint_eq(o.max_steps, 50);
	ck_assert_uint_eq(o.steps_per_execution, 0);	/* the model's */
	ck_assert_int_eq(parse(1, "--steps-per-execution", "8", NULL), 0);
	ck_assert_int_eq(parse(1, "--steps-per-execution", "32", NULL), 0);
}
END_TEST

START_TEST(bad_values_are_refused)
{
	ck_assert_int_eq(parse(1, "--epochs", "0", NULL), 1);
	ck_assert_int_eq(parse(1, "--epochs", "3x", NULL), 1);
	ck_assert_int_eq(parse(1, "--epochs", "-1", NULL), 1);
	ck_assert_int_eq(parse(1, "--batch", "100000", NULL), 1);
	ck_assert_int_eq(parse(1, "--lr", "0", NULL), 1);
	ck_assert_int_eq(parse(1, "--lr", "nan", NULL), 1);
	ck_assert_int_eq(parse(1, "--lr", "", NULL), 1);
	ck_assert_int_eq(parse(1, "--data", "cifar10", NULL), 1);
	ck_assert_int_eq(parse(1, "--seed", "-4", NULL), 1);
	ck_assert_int_eq(parse(1, "--max-steps", "0", NULL), 1);
	ck_assert_int_eq(parse(1, "--steps-per-execution", "0", NULL), 1);
	ck_assert_int_eq(parse(1, "--steps-per-execution", "33", NULL), 1);
	ck_assert_int_eq(parse(1, "--save", "", NULL), 1);
	ck_assert_int_eq(parse(1, "--frobnicate", NULL, NULL), 1);
	ck_assert_int_eq(parse(1, "--epochs", NULL, NULL), 1);
	ck_assert_int_eq(parse(1, "stray", NULL, NULL), 1);
	/* the device-only flags on the CPU reference */
	ck_assert_int_eq(parse(0, "--bf16", NULL, NULL), 1);
	ck_assert_int_eq(parse(0, "--eager", NULL, NULL), 1);
	ck_assert_int_eq(parse(1, "--help", NULL, NULL), 2);
}
END_TEST

START_TEST(model_is_required)
{
	char *argv[] = { "hl-train", "--data", "mnist", NULL };
	struct train_options o;

	optind = 1;
	ck_assert_int_eq(cli_parse(3, argv, 1, &o), 1);
}
END_TEST

Suite *cli_suite(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("cli");

	tcase_add_test(tc, good_command_lines);
	tcase_add_test(tc, bad_values_are_refused);
	tcase_add_test(tc, model_is_required);
	suite_add_tcase(s, tc);
	return s;
}
