// SPDX-License-Identifier: MIT
/*
 * The DEBUG ioctl: debug mode with habanalabs' rules (one holder, EFAULT
 * for a second enable or a disable outside it, dropped when its holder
 * closes the device), the CoreSight ops (EFAULT outside debug mode,
 * EOPNOTSUPP inside: the device has no trace blocks), bad arguments, and
 * the control node, which refuses it.
 */
#include <errno.h>
#include <string.h>

#include "common.h"

static int debug_op(int fd, uint32_t op, uint32_t enable)
{
	struct gaudisim_debug_args args;

	memset(&args, 0, sizeof(args));
	args.op = op;
	args.enable = enable;
	return hlthunk_debug(fd, &args);
}

START_TEST(set_mode_on_and_off)
{
	ck_assert_int_eq(debug_op(dev_fd, GAUDISIM_DEBUG_OP_SET_MODE, 1), 0);
	ck_assert_int_eq(debug_op(dev_fd, GAUDISIM_DEBUG_OP_SET_MODE, 0), 0);
	/* Any nonzero value enables, as habanalabs' (bool) cast. */
	ck_assert_int_eq(debug_op(dev_fd, GAUDISIM_DEBUG_OP_SET_MODE, 7), 0);
	ck_assert_int_eq(debug_op(dev_fd, GAUDISIM_DEBUG_OP_SET_MODE, 0), 0);
}
END_TEST

START_TEST(second_enable_and_stray_disable_are_efault)
{
	ck_assert_int_eq(debug_op(dev_fd, GAUDISIM_DEBUG_OP_SET_MODE, 0), -EFAULT);
	ck_assert_int_eq(debug_op(dev_fd, GAUDISIM_DEBUG_OP_SET_MODE, 1), 0);
	ck_assert_int_eq(debug_op(dev_fd, GAUDISIM_DEBUG_OP_SET_MODE, 1), -EFAULT);
	ck_assert_int_eq(debug_op(dev_fd, GAUDISIM_DEBUG_OP_SET_MODE, 0), 0);
	ck_assert_int_eq(debug_op(dev_fd, GAUDISIM_DEBUG_OP_SET_MODE, 0), -EFAULT);
}
END_TEST

START_TEST(coresight_ops_need_debug_mode_and_are_unsupported)
{
	uint32_t op;

	for (op = GAUDISIM_DEBUG_OP_ETR; op <= GAUDISIM_DEBUG_OP_TIMESTAMP; op++)
		ck_assert_int_eq(debug_op(dev_fd, op, 1), -EFAULT);
	ck_assert_int_eq(debug_op(dev_fd, GAUDISIM_DEBUG_OP_SET_MODE, 1), 0);
	for (op = GAUDISIM_DEBUG_OP_ETR; op <= GAUDISIM_DEBUG_OP_TIMESTAMP; op++)
		ck_assert_int_eq(debug_op(dev_fd, op, 1), -EOPNOTSUPP);
	ck_assert_int_eq(debug_op(dev_fd, GAUDISIM_DEBUG_OP_SET_MODE, 0), 0);
}
END_TEST

START_TEST(bad_arguments_are_einval)
{
	struct gaudisim_debug_args args;

	ck_assert_int_eq(debug_op(dev_fd, GAUDISIM_DEBUG_OP_SET_MODE + 1, 1), -EINVAL);
	ck_assert_int_eq(debug_op(dev_fd, UINT32_MAX, 1), -EINVAL);
	memset(&args, 0, sizeof(args));
	args.op = GAUDISIM_DEBUG_OP_SET_MODE;
	args.enable = 1;
	args.ctx_id = 1;
	ck_assert_int_eq(hlthunk_debug(dev_fd, &args), -EINVAL);
	ck_assert_int_eq(hlthunk_debug(dev_fd, NULL), -EINVAL);
	/* Nothing was enabled by the refused calls. */
	ck_assert_int_eq(debug_op(dev_fd, GAUDISIM_DEBUG_OP_SET_MODE, 0), -EFAULT);
}
END_TEST

/* What hl-thunk's test_close_without_releasing_debug checks. */
START_TEST(close_drops_debug_mode)
{
	int fd = open_compute_ok();

	ck_assert_int_eq(debug_op(fd, GAUDISIM_DEBUG_OP_SET_MODE, 1), 0);
	ck_assert_int_eq(hlthunk_close(fd), 0);
	fd = open_compute_ok();
	ck_assert_int_eq(debug_op(fd, GAUDISIM_DEBUG_OP_SET_MODE, 0), -EFAULT);
	ck_assert_int_eq(debug_op(fd, GAUDISIM_DEBUG_OP_SET_MODE, 1), 0);
	ck_assert_int_eq(hlthunk_close(fd), 0);
}
END_TEST

START_TEST(control_node_refuses_debug)
{
	int fd = open_control_ok();

	ck_assert_int_eq(debug_op(fd, GAUDISIM_DEBUG_OP_SET_MODE, 1), -ENOTTY);
	ck_assert_int_eq(hlthunk_close(fd), 0);
}
END_TEST

static Suite *debugmode_suite(void)
{
	Suite *s = suite_create("debugmode");
	TCase *held = tcase_create("held");
	TCase *open = tcase_create("open");

	tcase_add_checked_fixture(held, compute_setup, compute_teardown);
	tcase_set_timeout(held, TCASE_TIMEOUT_SHORT);
	tcase_add_test(held, set_mode_on_and_off);
	tcase_add_test(held, second_enable_and_stray_disable_are_efault);
	tcase_add_test(held, coresight_ops_need_debug_mode_and_are_unsupported);
	tcase_add_test(held, bad_arguments_are_einval);
	suite_add_tcase(s, held);

	tcase_set_timeout(open, TCASE_TIMEOUT_SHORT);
	tcase_add_test(open, close_drops_debug_mode);
	tcase_add_test(open, control_node_refuses_debug);
	suite_add_tcase(s, open);
	return s;
}

int main(void)
{
	return run_suite(debugmode_suite());
}
