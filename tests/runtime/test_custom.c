// SPDX-License-Identifier: MIT
/*
 * Custom kernels: the leaky ReLU example of docs/custom-kernels.md
 * (runtime/examples/custom-kernels) registers from its folder, runs as a
 * node with its default and with a given alpha and matches plain C;
 * broken descriptors and kernels are refused with the file and the place.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_test.h"

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void remove_dir(const char *dir, const char *const *names, unsigned int n)
{
	char path[512];
	unsigned int i;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

START_TEST(leaky_relu_example_runs)
{
	struct rt_arg in[1] = { { .dtype = HLRT_FP32, .ndims = 2, .dims = { 7, 1300 } } }, out[1];
	const float alphas[2] = { 0.01f, 0.25f };
	uint32_t count, i, s = 5, k;
	struct hlrt_op_info info;
	bool listed = false;

	HLRT_OK(hlrt_registry_load_path(RT_CUSTOM_DIR));
	HLRT_OK(hlrt_registry_count(&count));
	for (i = 0; i < count; i++) {
		HLRT_OK(hlrt_registry_get(i, &info));
		if (!strcmp(info.guid, "leaky_relu_fwd_f32"))
			listed = info.custom && !strcmp(info.engine, "TPC");
	}
	ck_assert(listed);
	in[0].data = malloc(4 * 7 * 1300);
	for (i = 0; i < 7 * 1300; i++)
		((float *)in[0].data)[i] = rt_randf(&s, -2, 2);
	for (k = 0; k < 2; k++) {
		/* k = 0: the descriptor's default alpha; k = 1: a given one */
		rt_run_op("leaky_relu_fwd_f32", in, 1, out, 1, k ? &alphas[1] : NULL,
			  k ? sizeof(float) : 0, 0);
		for (i = 0; i < 7 * 1300; i++) {
			float x = ((float *)in[0].data)[i];

			ck_assert_float_eq(((float *)out[0].data)[i], x > 0 ? x : x * alphas[k]);
		}
		free(out[0].data);
	}
	free(in[0].data);
	/* a second load of the same folder: the GUID exists */
	ck_assert_int_eq(hlrt_registry_load_path(RT_CUSTOM_DIR), HLRT_INVALID_ARGUMENT);
}
END_TEST

START_TEST(broken_descriptors_refused)
{
	static const char *const names[] = { "a.json", "b.json", "b.tpcs", "c.json" };
	char dir[] = "/tmp/hlrt-kernels-XXXXXX";

	ck_assert_ptr_nonnull(mkdtemp(dir));
	write_file(dir, "a.json", "{ \"guid\": \"x_f32\",\n  \"inputs\": [\"f32\"] oops }\n");
	ck_assert_int_eq(hlrt_registry_load_path(dir), HLRT_BAD_FORMAT);
	ck_assert_ptr_nonnull(strstr(hlrt_last_error(), "a.json:2:"));
	remove_dir(dir, names, 1);

	ck_assert_ptr_nonnull(mkdtemp(strcpy(dir, "/tmp/hlrt-kernels-XXXXXX")));
	write_file(dir, "b.json", "{ \"guid\": \"bad_kernel_f32\", \"inputs\": [\"f32\"],"
		   " \"outputs\": [\"f32\"], \"index_space\": \"elementwise\" }\n");
	write_file(dir, "b.tpcs", "\tld.f32 V1, T0, I1\n\tfrobnicate V1\n\thalt\n");
	ck_assert_int_eq(hlrt_registry_load_path(dir), HLRT_BAD_FORMAT);
	ck_assert_ptr_nonnull(strstr(hlrt_last_error(), "b.tpcs:2"));
	remove_dir(dir, names + 1, 2);

	ck_assert_ptr_nonnull(mkdtemp(strcpy(dir, "/tmp/hlrt-kernels-XXXXXX")));
	write_file(dir, "c.json", "{ \"guid\": \"c_f32\", \"inputs\": [\"f64\"],"
		   " \"outputs\": [\"f32\"], \"index_space\": \"elementwise\" }\n");
	ck_assert_int_eq(hlrt_registry_load_path(dir), HLRT_BAD_FORMAT);
	ck_assert_ptr_nonnull(strstr(hlrt_last_error(), "not a dtype"));
	remove_dir(dir, names + 3, 1);
	ck_assert_int_eq(hlrt_registry_load_path("/nonexistent-kernels"), HLRT_NOT_FOUND);
}
END_TEST

Suite *custom_suite(void)
{
	Suite *s = suite_create("custom");
	TCase *tc = tcase_create("custom");

	tcase_add_checked_fixture(tc, rt_setup, rt_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, leaky_relu_example_runs);
	tcase_add_test(tc, broken_descriptors_refused);
	suite_add_tcase(s, tc);
	return s;
}
