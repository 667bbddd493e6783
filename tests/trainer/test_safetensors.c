/* safetensors: the exact bytes written, round trips, and rejected files. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkpoint.h"
#include "dataset.h"
#include "fixtures.h"
#include "safetensors.h"
#include "suites.h"

static char dir[256], path[512];
static struct train_err err;

static void setup(void)
{
	fx_tmpdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/w.safetensors", dir);
}

static void teardown(void)
{
	fx_rmtree(dir);
}

START_TEST(writes_the_documented_bytes)
{
	static const float v[2] = { 1.0f, -2.0f };
	struct safetensors_tensor t = { "a", 1, { 2 }, v };
	struct safetensors_meta meta = { "k", "v" };
	static const char json[] =
		"{\"__metadata__\":{\"k\":\"v\"},\"a\":{\"dtype\":\"F32\",\"shape\":[2],"
		"\"data_offsets\":[0,8]}}";
	/* 1.0f = 0x3f800000, -2.0f = 0xc0000000, little-endian */
	static const uint8_t data[8] = { 0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0 };
	size_t jlen = strlen(json), hlen = (jlen + 7) & ~(size_t)7;
	struct stat st;
	uint8_t buf[256];
	FILE *f;

	ck_assert_int_eq(safetensors_write(path, &t, 1, &meta, 1, &err), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_size, 8 + hlen + 8);
	f = fopen(path, "rb");
	ck_assert_uint_eq(fread(buf, 1, st.st_size, f), (size_t)st.st_size);
	fclose(f);
	ck_assert_uint_eq(buf[0], hlen);
	for (int i = 1; i < 8; i++)
		ck_assert_uint_eq(buf[i], 0);
	ck_assert_mem_eq(buf + 8, json, jlen);
	for (size_t i = jlen; i < hlen; i++)
		ck_assert_uint_eq(buf[8 + i], ' ');
	ck_assert_mem_eq(buf + 8 + hlen, data, 8);
}
END_TEST

START_TEST(round_trip)
{
	static float a[6] = { 0.5f, -1.25f, 3.0f, 1e-30f, -0.0f, 7.0f }, b[3] = { 9, 8, 7 };
	struct safetensors_tensor t[2] = { { "x/kernel", 2, { 2, 3 }, a }, { "x/bias", 1, { 3 }, b } };
	uint64_t da[2] = { 2, 3 }, db[1] = { 3 }, wrong[2] = { 3, 2 };
	struct safetensors_meta meta[2] = { { "epochs_done", "4" }, { "model", "m" } };
	struct safetensors_file f;
	float ra[6], rb[3];
	char tmp[600];

	ck_assert_int_eq(safetensors_write(path, t, 2, meta, 2, &err), 0);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	ck_assert_int_ne(access(tmp, F_OK), 0);	/* renamed into place */
	ck_assert_int_eq(safetensors_read(path, &f, &err), 0);
	ck_assert_int_eq(safetensors_get(&f, "x/kernel", 2, da, ra, &err), 0);
	ck_assert_int_eq(safetensors_get(&f, "x/bias", 1, db, rb, &err), 0);
	ck_assert_mem_eq(ra, a, sizeof(a));
	ck_assert_mem_eq(rb, b, sizeof(b));
	ck_assert_str_eq(safetensors_meta_get(&f, "epochs_done"), "4");
	ck_assert_ptr_null(safetensors_meta_get(&f, "nope"));
	ck_assert_int_eq(safetensors_get(&f, "x/kernel", 2, wrong, ra, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "another shape"));
	ck_assert_int_eq(safetensors_get(&f, "y", 1, db, rb, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "no tensor \"y\""));
	safetensors_close(&f);
}
END_TEST

START_TEST(rejects_bad_files)
{
	static const float v[2] = { 1, 2 };
	struct safetensors_tensor t = { "a", 1, { 2 }, v };
	struct safetensors_file f;
	uint8_t buf[256];
	size_t len;
	FILE *fp;
	char *p;

	fx_write(path, "abc", 3);
	ck_assert_int_eq(safetensors_read(path, &f, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "too short"));
	/* a header length past the end of the file */
	fx_write(path, "\xff\0\0\0\0\0\0\0{}", 10);
	ck_assert_int_eq(safetensors_read(path, &f, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "header length 255"));
	/* truncated data: offsets point past the end */
	ck_assert_int_eq(safetensors_write(path, &t, 1, NULL, 0, &err), 0);
	fp = fopen(path, "rb");
	len = fread(buf, 1, sizeof(buf), fp);
	fclose(fp);
	fx_write(path, buf, len - 1);
	ck_assert_int_eq(safetensors_read(path, &f, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "data offsets outside the file"));
	/* offsets that disagree with the shape */
	p = memmem(buf, len, "[0,8]", 5);
	ck_assert_ptr_nonnull(p);
	memcpy(p, "[0,4]", 5);
	fx_write(path, buf, len);
	ck_assert_int_eq(safetensors_read(path, &f, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "4 bytes for 2 F32 elements"));
	/* not JSON */
	memcpy(buf + 8, "!!", 2);
	fx_write(path, buf, len);
	ck_assert_int_eq(safetensors_read(path, &f, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "header: 1:1"));
}
END_TEST

START_TEST(failed_write_leaves_nothing)
{
	static const float v[1] = { 1 };
	struct safetensors_tensor t = { "a", 1, { 1 }, v };
	char bad[600];

	snprintf(bad, sizeof(bad), "%s/no-such-dir/w.safetensors", dir);
	ck_assert_int_eq(safetensors_write(bad, &t, 1, NULL, 0, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "No such file or directory"));
	ck_assert_int_ne(access(bad, F_OK), 0);
}
END_TEST

START_TEST(checkpoint_round_trip_and_model_check)
{
	struct model m;
	struct params p, q, mom, mom2;
	struct checkpoint_state st = { 3, 1407, 9 }, back;

	ck_assert_int_eq(model_parse("{\"name\": \"tiny\", \"input_shape\": [28, 28], \"layers\": "
				     "[{\"type\": \"Flatten\"}, {\"type\": \"Dense\", \"units\": 10}],"
				     " \"training\": {\"loss\": \"sparse_categorical_crossentropy\","
				     " \"from_logits\": true, \"optimizer\": {\"type\": \"sgd\","
				     " \"momentum\": 0.9}}}", "tiny", &m, &err), 0);
	ck_assert_int_eq(model_infer_shapes(&m, DATASET_CLASSES, &err), 0);
	ck_assert_int_eq(params_create(&m, &p, &err), 0);
	ck_assert_int_eq(params_create(&m, &q, &err), 0);
	ck_assert_int_eq(params_create_state(&m, &mom, &err), 0);
	ck_assert_int_eq(params_create_state(&m, &mom2, &err), 0);
	params_init_glorot(&m, &p);
	for (size_t i = 0; i < mom.total; i++)
		mom.storage[i] = (float)i * 0.25f;
	ck_assert_int_eq(checkpoint_save(path, &m, &p, &mom, &st, &err), 0);
	ck_assert_int_eq(checkpoint_load(path, &m, &q, &mom2, &back, &err), 0);
	ck_assert_mem_eq(p.storage, q.storage, p.total * sizeof(float));
	ck_assert_mem_eq(mom.storage, mom2.storage, mom.total * sizeof(float));
	ck_assert_uint_eq(back.epochs_done, 3);
	ck_assert_uint_eq(back.steps_done, 1407);
	ck_assert_uint_eq(back.seed, 9);
	snprintf(m.name, sizeof(m.name), "other");
	ck_assert_int_eq(checkpoint_load(path, &m, &q, &mom2, &back, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "a checkpoint of model \"tiny\", not \"other\""));
	params_free(&p);
	params_free(&q);
	params_free(&mom);
	params_free(&mom2);
}
END_TEST

/* LAMB's m, v and update count go through a checkpoint and come back. */
START_TEST(checkpoint_keeps_the_lamb_state)
{
	static const char json[] =
		"{\"name\": \"tiny\", \"input_shape\": [28, 28], \"layers\": "
		"[{\"type\": \"Flatten\"}, {\"type\": \"Dense\", \"units\": 10}],"
		" \"training\": {\"loss\": \"sparse_categorical_crossentropy\","
		" \"from_logits\": true, \"optimizer\": {\"type\": \"%s\"}}}";
	char text[512];
	struct model m, sgd;
	struct params p, q, s, s2;
	struct checkpoint_state st = { 1, 40, 2 }, back;
	struct safetensors_file f;

	snprintf(text, sizeof(text), json, "lamb");
	ck_assert_int_eq(model_parse(text, "tiny", &m, &err), 0);
	ck_assert_int_eq(model_infer_shapes(&m, DATASET_CLASSES, &err), 0);
	snprintf(text, sizeof(text), json, "sgd");
	ck_assert_int_eq(model_parse(text, "tiny", &sgd, &err), 0);
	ck_assert_int_eq(model_infer_shapes(&sgd, DATASET_CLASSES, &err), 0);
	ck_assert_int_eq(params_create(&m, &p, &err), 0);
	ck_assert_int_eq(params_create(&m, &q, &err), 0);
	ck_assert_int_eq(params_create_state(&m, &s, &err), 0);
	ck_assert_int_eq(params_create_state(&m, &s2, &err), 0);
	ck_assert_uint_eq(s.total, 2 * p.total);
	params_init_glorot(&m, &p);
	for (size_t i = 0; i < s.total; i++)
		s.storage[i] = (float)i * 0.5f - 7.0f;
	s.updates = 40;
	ck_assert_int_eq(checkpoint_save(path, &m, &p, &s, &st, &err), 0);
	/* libhlrt's names, and the count in the metadata */
	ck_assert_int_eq(safetensors_read(path, &f, &err), 0);
	ck_assert_str_eq(safetensors_meta_get(&f, "optimizer_updates"), "40");
	safetensors_close(&f);
	ck_assert_int_eq(checkpoint_load(path, &m, &q, &s2, &back, &err), 0);
	ck_assert_mem_eq(p.storage, q.storage, p.total * sizeof(float));
	ck_assert_mem_eq(s.storage, s2.storage, s.total * sizeof(float));
	ck_assert_uint_eq(s2.updates, 40);
	ck_assert_uint_eq(back.steps_done, 40);
	/* an SGD checkpoint has no moments for a LAMB run */
	ck_assert_int_eq(checkpoint_save(path, &sgd, &p, NULL, &st, &err), 0);
	ck_assert_int_eq(checkpoint_load(path, &m, &q, &s2, &back, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "dense/kernel/m"));
	params_free(&p);
	params_free(&q);
	params_free(&s);
	params_free(&s2);
}
END_TEST

Suite *safetensors_suite(void)
{
	Suite *s = suite_create("safetensors");
	TCase *tc = tcase_create("safetensors");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, writes_the_documented_bytes);
	tcase_add_test(tc, round_trip);
	tcase_add_test(tc, rejects_bad_files);
	tcase_add_test(tc, failed_write_leaves_nothing);
	tcase_add_test(tc, checkpoint_round_trip_and_model_check);
	tcase_add_test(tc, checkpoint_keeps_the_lamb_state);
	suite_add_tcase(s, tc);
	return s;
}
