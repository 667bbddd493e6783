// SPDX-License-Identifier: MIT
/*
 * CB: creating, mapping, querying and destroying command buffers, and the
 * argument checks (sizes, handles, flags, pad, mmap bounds).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common.h"

static int cb_raw(int fd, union gaudisim_cb_args *args)
{
	return hlthunk_ioctl(fd, DRM_IOCTL_GAUDISIM_CB, args);
}

static const uint32_t good_sizes[] = { 8, 16, 4096, 4104, 64 * 1024, GAUDISIM_CB_MAX_SIZE };

START_TEST(create_map_destroy)
{
	uint32_t size = good_sizes[_i];
	uint32_t usage = ~0u, got = 0;
	struct test_cb cb;
	uint8_t *copy = malloc(size);

	ck_assert_ptr_nonnull(copy);
	cb_create_ok(dev_fd, &cb, size);
	/* The whole CB is writable and reads back. */
	fill_pattern(copy, size, size);
	memcpy(cb.ptr, copy, size);
	ck_assert_int_eq(first_difference(cb.ptr, copy, size), -1);
	free(copy);
	ck_assert_int_eq(hlthunk_get_cb_info(dev_fd, cb.handle, &usage, &got), 0);
	ck_assert_uint_eq(usage, 0);
	ck_assert_uint_eq(got, size);
	cb_destroy_ok(dev_fd, &cb);
}
END_TEST

static const uint32_t bad_sizes[] = { 0, 1, 4, GAUDISIM_CB_MAX_SIZE + 1,
				      GAUDISIM_CB_MAX_SIZE + 32, 0x80000000u, 0xffffffffu };

START_TEST(bad_sizes_are_einval)
{
	uint64_t handle;

	ck_assert_int_eq(hlthunk_request_command_buffer(dev_fd, bad_sizes[_i], &handle), -EINVAL);
}
END_TEST

START_TEST(destroy_twice_is_einval)
{
	uint64_t handle;

	ck_assert_int_eq(hlthunk_request_command_buffer(dev_fd, 4096, &handle), 0);
	ck_assert_int_eq(hlthunk_destroy_command_buffer(dev_fd, handle), 0);
	ck_assert_int_eq(hlthunk_destroy_command_buffer(dev_fd, handle), -EINVAL);
	ck_assert_int_eq(hlthunk_get_cb_info(dev_fd, handle, NULL, NULL), -EINVAL);
}
END_TEST

START_TEST(bad_handles_are_einval)
{
	static const uint64_t handles[] = { 0, 1, 0x1000, 0xdead0000ULL, UINT64_MAX };
	size_t i;

	for (i = 0; i < sizeof(handles) / sizeof(handles[0]); i++) {
		ck_assert_int_eq(hlthunk_destroy_command_buffer(dev_fd, handles[i]), -EINVAL);
		ck_assert_int_eq(hlthunk_get_cb_info(dev_fd, handles[i], NULL, NULL), -EINVAL);
	}
}
END_TEST

START_TEST(handles_are_distinct)
{
	uint64_t handles[64];
	int i, j;

	for (i = 0; i < 64; i++)
		ck_assert_int_eq(hlthunk_request_command_buffer(dev_fd, 4096, &handles[i]), 0);
	for (i = 0; i < 64; i++)
		for (j = i + 1; j < 64; j++)
			ck_assert_uint_ne(handles[i], handles[j]);
	for (i = 0; i < 64; i++)
		ck_assert_int_eq(hlthunk_destroy_command_buffer(dev_fd, handles[i]), 0);
}
END_TEST

START_TEST(destroy_while_mapped)
{
	struct test_cb cb;

	cb_create_ok(dev_fd, &cb, 8192);
	ck_assert_int_eq(hlthunk_destroy_command_buffer(dev_fd, cb.handle), 0);
	/* The mapping keeps the memory alive until munmap. */
	memset(cb.ptr, 0x5a, cb.size);
	ck_assert_uint_eq(cb.ptr[cb.size - 1], 0x5a);
	ck_assert_int_eq(hlthunk_cb_munmap(cb.ptr, cb.size), 0);
	ck_assert_int_eq(hlthunk_get_cb_info(dev_fd, cb.handle, NULL, NULL), -EINVAL);
}
END_TEST

START_TEST(mmap_bounds)
{
	uint64_t handle;
	void *p;

	ck_assert_int_eq(hlthunk_request_command_buffer(dev_fd, 4096, &handle), 0);
	/* More than the CB holds. */
	p = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, dev_fd, (off_t)handle);
	ck_assert_msg(p == MAP_FAILED, "mmap beyond the CB succeeded");
	/* An offset that is not a handle. */
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, dev_fd,
		 (off_t)(handle + 0x10000000));
	ck_assert_msg(p == MAP_FAILED, "mmap of a bogus handle succeeded");
	/* A destroyed CB. */
	ck_assert_int_eq(hlthunk_destroy_command_buffer(dev_fd, handle), 0);
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, dev_fd, (off_t)handle);
	ck_assert_msg(p == MAP_FAILED, "mmap of a destroyed CB succeeded");
}
END_TEST

START_TEST(cb_from_closed_file_is_gone)
{
	uint64_t handle;

	ck_assert_int_eq(hlthunk_request_command_buffer(dev_fd, 4096, &handle), 0);
	hlthunk_close(dev_fd);
	dev_fd = open_compute_ok();
	ck_assert_int_eq(hlthunk_get_cb_info(dev_fd, handle, NULL, NULL), -EINVAL);
}
END_TEST

START_TEST(cb_mapping_keeps_the_file_open)
{
	struct test_cb cb;
	int fd;

	/* Like any mmap, a CB mapping holds the file: the device stays taken. */
	cb_create_ok(dev_fd, &cb, 4096);
	hlthunk_close(dev_fd);
	dev_fd = -1;
	ck_assert_int_eq(hlthunk_open_by_index(test_device_index()), -EBUSY);
	cb.ptr[0] = 1;
	ck_assert_int_eq(hlthunk_cb_munmap(cb.ptr, cb.size), 0);
	fd = open_compute_ok();
	hlthunk_close(fd);
}
END_TEST

enum cb_case { UNKNOWN_OP, HIGH_OP, FLAGS, CTX_ID, INFO_FLAGS, DESTROY_CTX_ID, NUM_CB_CASES };

START_TEST(cb_args_refused)
{
	union gaudisim_cb_args a;
	uint64_t handle;

	ck_assert_int_eq(hlthunk_request_command_buffer(dev_fd, 4096, &handle), 0);
	memset(&a, 0, sizeof(a));
	a.in.op = GAUDISIM_CB_OP_CREATE;
	a.in.cb_size = 4096;
	switch (_i) {
	case UNKNOWN_OP:
		a.in.op = 3;
		break;
	case HIGH_OP:
		a.in.op = 0xffffffffu;
		break;
	case FLAGS:
		a.in.flags = 1;
		break;
	case CTX_ID:
		a.in.ctx_id = 1;
		break;
	case INFO_FLAGS:
		a.in.op = GAUDISIM_CB_OP_INFO;
		a.in.cb_handle = handle;
		a.in.flags = 0x80000000u;
		break;
	case DESTROY_CTX_ID:
		a.in.op = GAUDISIM_CB_OP_DESTROY;
		a.in.cb_handle = handle;
		a.in.ctx_id = 0x10;
		break;
	}
	ck_assert_int_eq(cb_raw(dev_fd, &a), -EINVAL);
	/* The refused call left the CB alone. */
	ck_assert_int_eq(hlthunk_destroy_command_buffer(dev_fd, handle), 0);
}
END_TEST

START_TEST(many_create_destroy_cycles)
{
	int i;

	for (i = 0; i < 500; i++) {
		uint64_t handle;

		ck_assert_int_eq(hlthunk_request_command_buffer(dev_fd, 64 * 1024, &handle), 0);
		ck_assert_int_eq(hlthunk_destroy_command_buffer(dev_fd, handle), 0);
	}
}
END_TEST

static Suite *cb_suite(void)
{
	Suite *s = suite_create("cb");
	TCase *life = compute_tcase("lifecycle", TCASE_TIMEOUT_SHORT);
	TCase *args = compute_tcase("arguments", TCASE_TIMEOUT_SHORT);

	tcase_add_loop_test(life, create_map_destroy, 0,
			    (int)(sizeof(good_sizes) / sizeof(good_sizes[0])));
	tcase_add_test(life, handles_are_distinct);
	tcase_add_test(life, destroy_while_mapped);
	tcase_add_test(life, cb_from_closed_file_is_gone);
	tcase_add_test(life, cb_mapping_keeps_the_file_open);
	tcase_add_test(life, many_create_destroy_cycles);
	suite_add_tcase(s, life);

	tcase_add_loop_test(args, bad_sizes_are_einval, 0,
			    (int)(sizeof(bad_sizes) / sizeof(bad_sizes[0])));
	tcase_add_test(args, destroy_twice_is_einval);
	tcase_add_test(args, bad_handles_are_einval);
	tcase_add_test(args, mmap_bounds);
	tcase_add_loop_test(args, cb_args_refused, 0, NUM_CB_CASES);
	suite_add_tcase(s, args);
	return s;
}

int main(void)
{
	return run_suite(cb_suite());
}
