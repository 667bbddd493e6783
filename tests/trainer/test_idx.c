/* IDX and data-set loading: good files, and each way a file can be bad. */
#include <stdio.h>
#include <string.h>

#include "dataset.h"
#include "fixtures.h"
#include "idx.h"
#include "suites.h"

static char dir[256], path[512];

static void setup(void)
{
	fx_tmpdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/f-idx3-ubyte", dir);
}

static void teardown(void)
{
	fx_rmtree(dir);
}

START_TEST(loads_a_good_file)
{
	uint32_t dims[3] = { 2, 28, 28 }, want[3] = { 0, 28, 28 };
	static uint8_t data[2 * 784];
	struct train_err err;
	struct idx_array a;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)i;
	fx_write_idx(path, 0, 3, dims, data, sizeof(data));
	ck_assert_int_eq(idx_load(path, 3, want, &a, &err), 0);
	ck_assert_uint_eq(a.dims[0], 2);
	ck_assert_uint_eq(a.count, sizeof(data));
	ck_assert_mem_eq(a.data, data, sizeof(data));
	idx_free(&a);
}
END_TEST

START_TEST(rejects_bad_magic)
{
	uint32_t dims[1] = { 4 };
	uint8_t data[4] = { 1, 2, 3, 4 };
	struct train_err err;
	struct idx_array a;

	/* 0x0d = float elements, not unsigned bytes */
	fx_write_idx(path, 0x00000d01, 1, dims, data, 4);
	ck_assert_int_eq(idx_load(path, 1, NULL, &a, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "bad IDX magic 0x00000d01"));
	ck_assert_ptr_nonnull(strstr(err.msg, path));
	ck_assert_ptr_null(a.data);
	/* right type, wrong rank */
	fx_write_idx(path, 0, 1, dims, data, 4);
	ck_assert_int_eq(idx_load(path, 3, NULL, &a, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "expected 0x00000803"));
}
END_TEST

START_TEST(rejects_wrong_dims)
{
	uint32_t dims[3] = { 1, 27, 28 }, want[3] = { 0, 28, 28 };
	static uint8_t data[27 * 28];
	struct train_err err;
	struct idx_array a;

	fx_write_idx(path, 0, 3, dims, data, sizeof(data));
	ck_assert_int_eq(idx_load(path, 3, want, &a, &err), -1);
	ck_assert_str_eq(strstr(err.msg, "dimension"), "dimension 1 is 27 (expected 28)");
}
END_TEST

START_TEST(rejects_truncated_and_overlong_files)
{
	uint32_t dims[1] = { 10 };
	uint8_t data[12] = { 0 };
	struct train_err err;
	struct idx_array a;

	fx_write_idx(path, 0, 1, dims, data, 9);
	ck_assert_int_eq(idx_load(path, 1, NULL, &a, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "truncated file: 9 data bytes, the header says 10"));
	fx_write_idx(path, 0, 1, dims, data, 12);
	ck_assert_int_eq(idx_load(path, 1, NULL, &a, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "trailing bytes"));
	/* a header cut short */
	fx_write(path, "\0\0\x08\x03\0\0", 6);
	ck_assert_int_eq(idx_load(path, 3, NULL, &a, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "truncated IDX header"));
	fx_write(path, "", 0);
	ck_assert_int_eq(idx_load(path, 1, NULL, &a, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "truncated IDX header"));
}
END_TEST

START_TEST(missing_file_names_the_cause)
{
	struct train_err err;
	struct idx_array a;

	ck_assert_int_eq(idx_load("/nonexistent/x-ubyte", 1, NULL, &a, &err), -1);
	ck_assert_str_eq(err.msg, "/nonexistent/x-ubyte: No such file or directory");
}
END_TEST

START_TEST(dataset_loads_and_scales)
{
	struct train_err err;
	struct dataset ds;

	fx_synthetic_mnist(dir, 20, 10);
	ck_assert_int_eq(dataset_load(dir, "mnist", &ds, &err), 0);
	ck_assert_uint_eq(ds.train.count, 20);
	ck_assert_uint_eq(ds.test.count, 10);
	for (size_t i = 0; i < 20 * 784; i++)
		ck_assert(ds.train.images[i] >= 0.0f && ds.train.images[i] <= 1.0f);
	/* sample 0 is class 0, its square starts at row 2, column 1: 250/255 */
	ck_assert_int_eq(ds.train.labels[0], 0);
	ck_assert_float_eq(ds.train.images[2 * 28 + 1], 250.0f / 255.0f);
	dataset_free(&ds);
	ck_assert_int_eq(dataset_load(dir, "cifar", &ds, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "unknown data set 'cifar'"));
}
END_TEST

START_TEST(dataset_rejects_bad_labels)
{
	uint32_t dims[1] = { 20 };
	uint8_t lbl[20] = { 0 };
	char lpath[600];
	struct train_err err;
	struct dataset ds;

	fx_synthetic_mnist(dir, 20, 10);
	snprintf(lpath, sizeof(lpath), "%s/mnist/train-labels-idx1-ubyte", dir);
	lbl[5] = 10;
	fx_write_idx(lpath, 0, 1, dims, lbl, 20);
	ck_assert_int_eq(dataset_load(dir, "mnist", &ds, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "label 10 of sample 5"));
	dims[0] = 19;
	fx_write_idx(lpath, 0, 1, dims, lbl, 19);
	ck_assert_int_eq(dataset_load(dir, "mnist", &ds, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "19 labels for 20 images"));
}
END_TEST

Suite *idx_suite(void)
{
	Suite *s = suite_create("idx");
	TCase *tc = tcase_create("idx");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, loads_a_good_file);
	tcase_add_test(tc, rejects_bad_magic);
	tcase_add_test(tc, rejects_wrong_dims);
	tcase_add_test(tc, rejects_truncated_and_overlong_files);
	tcase_add_test(tc, missing_file_names_the_cause);
	tcase_add_test(tc, dataset_loads_and_scales);
	tcase_add_test(tc, dataset_rejects_bad_labels);
	suite_add_tcase(s, tc);
	return s;
}
