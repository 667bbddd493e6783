// SPDX-License-Identifier: MIT
/*
 * INFO: every op on both nodes, the facts it reports, and its argument
 * checks (sizes, unknown ops, reserved and pad fields, bad pointers).
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "common.h"

#define SENTINEL 0xa5

struct info_op {
	uint32_t op;
	uint32_t size;
};

static const struct info_op info_ops[] = {
	{ GAUDISIM_INFO_HW_IP_INFO, sizeof(struct gaudisim_info_hw_ip_info) },
	{ GAUDISIM_INFO_DRAM_USAGE, sizeof(struct gaudisim_info_dram_usage) },
	{ GAUDISIM_INFO_HW_IDLE, sizeof(struct gaudisim_info_hw_idle) },
	{ GAUDISIM_INFO_DEVICE_STATUS, sizeof(struct gaudisim_info_device_status) },
	{ GAUDISIM_INFO_CS_COUNTERS, sizeof(struct gaudisim_info_cs_counters) },
	{ GAUDISIM_INFO_OPEN_STATS, sizeof(struct gaudisim_info_open_stats) },
	{ GAUDISIM_INFO_DRIVER_VERSION, sizeof(struct gaudisim_info_driver_version) },
};

#define NUM_INFO_OPS ((int)(sizeof(info_ops) / sizeof(info_ops[0])))

/* Loop index i: op i % NUM_INFO_OPS on the compute node, then on the control node. */
static int node_for(int i)
{
	return i < NUM_INFO_OPS ? dev_fd : open_control_ok();
}

static int info_raw(int fd, uint64_t ptr, uint32_t size, uint32_t op, uint32_t reserved,
		    uint32_t pad)
{
	struct gaudisim_info_args args = {
		.return_pointer = ptr, .return_size = size, .op = op,
		.reserved = reserved, .pad = pad,
	};

	return hlthunk_ioctl(fd, DRM_IOCTL_GAUDISIM_INFO, &args);
}

START_TEST(every_op_fills_its_struct)
{
	const struct info_op *o = &info_ops[_i % NUM_INFO_OPS];
	uint8_t buf[512];
	int fd = node_for(_i);

	memset(buf, SENTINEL, sizeof(buf));
	ck_assert_int_eq(hlthunk_get_info(fd, o->op, buf, o->size), 0);
	/* Nothing written past the struct. */
	ck_assert_uint_eq(buf[o->size], SENTINEL);
}
END_TEST

START_TEST(every_op_copies_min_size)
{
	const struct info_op *o = &info_ops[_i % NUM_INFO_OPS];
	uint8_t full[512], part[512];
	int fd = node_for(_i);
	uint32_t small = o->size >= 16 ? 8 : 4;

	memset(part, SENTINEL, sizeof(part));
	/* A bigger buffer gets the struct and no more. */
	ck_assert_int_eq(hlthunk_get_info(fd, o->op, part, o->size + 64), 0);
	ck_assert_uint_eq(part[o->size], SENTINEL);
	ck_assert_uint_eq(part[o->size + 63], SENTINEL);

	/* A smaller (older) buffer gets its prefix. */
	memset(part, SENTINEL, sizeof(part));
	ck_assert_int_eq(hlthunk_get_info(fd, o->op, part, small), 0);
	ck_assert_uint_eq(part[small], SENTINEL);
	if (o->op == GAUDISIM_INFO_HW_IP_INFO || o->op == GAUDISIM_INFO_DRIVER_VERSION ||
	    o->op == GAUDISIM_INFO_DEVICE_STATUS) {
		/* Facts that cannot change between the two calls. */
		ck_assert_int_eq(hlthunk_get_info(fd, o->op, full, o->size), 0);
		ck_assert_mem_eq(part, full, small);
	}
}
END_TEST

START_TEST(every_op_refuses_size_0)
{
	const struct info_op *o = &info_ops[_i % NUM_INFO_OPS];
	uint8_t buf[512];

	ck_assert_int_eq(info_raw(node_for(_i), (uint64_t)(uintptr_t)buf, 0, o->op, 0, 0),
			 -EINVAL);
}
END_TEST

START_TEST(every_op_refuses_reserved_and_pad)
{
	const struct info_op *o = &info_ops[_i % NUM_INFO_OPS];
	uint64_t ptr;
	uint8_t buf[512];
	int fd = node_for(_i);

	ptr = (uint64_t)(uintptr_t)buf;
	ck_assert_int_eq(info_raw(fd, ptr, o->size, o->op, 1, 0), -EINVAL);
	ck_assert_int_eq(info_raw(fd, ptr, o->size, o->op, 0, 1), -EINVAL);
	ck_assert_int_eq(info_raw(fd, ptr, o->size, o->op, 0x80000000u, 0x80000000u), -EINVAL);
}
END_TEST

START_TEST(every_op_refuses_bad_pointers)
{
	const struct info_op *o = &info_ops[_i % NUM_INFO_OPS];
	int fd = node_for(_i);
	void *ro;
	int rc;

	rc = info_raw(fd, 0, o->size, o->op, 0, 0);
	ck_assert_msg(rc == -EINVAL || rc == -EFAULT, "NULL pointer: %s", strerror(-rc));
	/* Kernel addresses and unmapped or read-only user memory. */
	ck_assert_int_eq(info_raw(fd, 0xffff800000000000ULL, o->size, o->op, 0, 0), -EFAULT);
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert(ro != MAP_FAILED);
	ck_assert_int_eq(info_raw(fd, (uint64_t)(uintptr_t)ro, o->size, o->op, 0, 0), -EFAULT);
	munmap(ro, 4096);
	ck_assert_int_eq(info_raw(fd, (uint64_t)(uintptr_t)ro, o->size, o->op, 0, 0), -EFAULT);
}
END_TEST

static const uint32_t unknown_ops[] = { 5, 6, 7, 8, 9, 10, 12, 17, 19, 63, 65, 0x7fffffff,
					0xffffffff };

START_TEST(unknown_ops_are_einval)
{
	uint8_t buf[512];

	ck_assert_int_eq(hlthunk_get_info(dev_fd, unknown_ops[_i], buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(hlthunk_get_info(open_control_ok(), unknown_ops[_i], buf, sizeof(buf)),
			 -EINVAL);
}
END_TEST

START_TEST(hw_ip_info_describes_the_device)
{
	struct gaudisim_info_hw_ip_info hw;
	size_t name_len;

	hw_ip_ok(dev_fd, &hw);
	ck_assert_uint_eq(hw.device_id, GAUDISIM_PCI_DEVICE_ID);
	ck_assert_uint_eq(hw.hw_version,
			  GAUDISIM_HW_VERSION_MAJOR << 16 | GAUDISIM_HW_VERSION_MINOR);
	ck_assert_uint_eq(hw.dram_base_address, GAUDISIM_HBM_USER_BASE);
	ck_assert_uint_ge(hw.hbm_total_size, GAUDISIM_HBM_RESERVED_SIZE + GAUDISIM_DRAM_PAGE_SIZE);
	ck_assert_uint_eq(hw.dram_size, hw.hbm_total_size - GAUDISIM_HBM_RESERVED_SIZE);
	ck_assert_uint_eq(hw.dram_size % GAUDISIM_DRAM_PAGE_SIZE, 0);
	ck_assert_uint_eq(hw.sram_base_address, GAUDISIM_SRAM_BASE);
	ck_assert_uint_eq(hw.sram_size, GAUDISIM_SRAM_SIZE);
	ck_assert_uint_eq(hw.host_base_address, GAUDISIM_HOST_BASE);
	ck_assert_uint_eq(hw.num_pci_dma, GAUDISIM_NUM_PCI_DMA);
	ck_assert_uint_eq(hw.num_queues, GAUDISIM_QUEUE_ID_SIZE);
	/* All external queues take chunks; the CPU queue hole never does. */
	ck_assert_uint_eq(hw.queue_mask[0] & ((1ULL << GAUDISIM_NUM_EXT_QUEUES) - 1),
			  (1ULL << GAUDISIM_NUM_EXT_QUEUES) - 1);
	ck_assert_uint_eq(hw.queue_mask[0] & (1ULL << GAUDISIM_QUEUE_ID_CPU_PQ), 0);
	ck_assert_uint_eq(hw.queue_mask[1] >> (GAUDISIM_QUEUE_ID_SIZE - 64), 0);
	name_len = strnlen(hw.card_name, sizeof(hw.card_name));
	ck_assert_uint_gt(name_len, 0);
	ck_assert_uint_lt(name_len, sizeof(hw.card_name));
}
END_TEST

START_TEST(hw_ip_info_same_on_both_nodes)
{
	struct gaudisim_info_hw_ip_info a, b;

	hw_ip_ok(dev_fd, &a);
	hw_ip_ok(open_control_ok(), &b);
	ck_assert_mem_eq(&a, &b, sizeof(a));
}
END_TEST

START_TEST(dram_usage_adds_up)
{
	struct gaudisim_info_hw_ip_info hw;
	struct gaudisim_info_dram_usage u;

	hw_ip_ok(dev_fd, &hw);
	dram_usage_ok(dev_fd, &u);
	ck_assert_uint_eq(u.dram_total_mem, hw.dram_size);
	ck_assert_uint_eq(u.dram_free_mem + u.dram_used_mem, u.dram_total_mem);
	/* A fresh context owns nothing, and nobody else can. */
	ck_assert_uint_eq(u.ctx_dram_mem, 0);
	ck_assert_uint_eq(u.dram_used_mem, 0);
}
END_TEST

START_TEST(idle_when_nothing_runs)
{
	struct gaudisim_info_hw_idle idle;

	memset(&idle, SENTINEL, sizeof(idle));
	ck_assert_int_eq(hlthunk_get_hw_idle(dev_fd, &idle), 0);
	ck_assert_uint_eq(idle.is_idle, 1);
	ck_assert_uint_eq(idle.pad, 0);
	ck_assert_uint_eq(idle.busy_queues_mask[0], 0);
	ck_assert_uint_eq(idle.busy_queues_mask[1], 0);
	ck_assert_int_eq(hlthunk_is_device_idle(dev_fd), 1);
}
END_TEST

START_TEST(status_is_operational)
{
	struct gaudisim_info_device_status st;

	memset(&st, SENTINEL, sizeof(st));
	ck_assert_int_eq(hlthunk_get_info(dev_fd, GAUDISIM_INFO_DEVICE_STATUS, &st, sizeof(st)),
			 0);
	ck_assert_uint_eq(st.status, GAUDISIM_DEVICE_STATUS_OPERATIONAL);
	ck_assert_uint_eq(st.pad, 0);
}
END_TEST

START_TEST(cs_counters_are_consistent)
{
	struct gaudisim_info_cs_counters c;

	ck_assert_int_eq(hlthunk_get_cs_counters(dev_fd, &c), 0);
	ck_assert_uint_le(c.completed + c.errors, c.submitted);
	ck_assert_uint_le(c.timed_out, c.submitted);
}
END_TEST

START_TEST(driver_version_is_a_string)
{
	struct gaudisim_info_driver_version v;
	char copy[8];
	size_t len;

	memset(&v, SENTINEL, sizeof(v));
	ck_assert_int_eq(hlthunk_get_info(dev_fd, GAUDISIM_INFO_DRIVER_VERSION, &v, sizeof(v)),
			 0);
	len = strnlen(v.version, sizeof(v.version));
	ck_assert_uint_gt(len, 0);
	ck_assert_uint_lt(len, sizeof(v.version));
	/* The library's copy truncates safely. */
	ck_assert_int_eq(hlthunk_get_driver_version(dev_fd, copy, sizeof(copy)), 0);
	ck_assert_uint_le(strlen(copy), sizeof(copy) - 1);
	ck_assert(!strncmp(copy, v.version, strlen(copy)));
}
END_TEST

START_TEST(info_keeps_working_after_errors)
{
	uint8_t buf[512];
	int i;

	for (i = 0; i < 100; i++)
		ck_assert_int_eq(hlthunk_get_info(dev_fd, 0xdead, buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(hlthunk_get_info(dev_fd, GAUDISIM_INFO_HW_IP_INFO, buf, sizeof(buf)), 0);
}
END_TEST

static Suite *info_suite(void)
{
	Suite *s = suite_create("info");
	TCase *ops = compute_tcase("ops", TCASE_TIMEOUT_SHORT);
	TCase *args = compute_tcase("arguments", TCASE_TIMEOUT_SHORT);
	TCase *facts = compute_tcase("facts", TCASE_TIMEOUT_SHORT);

	tcase_add_loop_test(ops, every_op_fills_its_struct, 0, 2 * NUM_INFO_OPS);
	tcase_add_loop_test(ops, every_op_copies_min_size, 0, 2 * NUM_INFO_OPS);
	suite_add_tcase(s, ops);

	tcase_add_loop_test(args, every_op_refuses_size_0, 0, 2 * NUM_INFO_OPS);
	tcase_add_loop_test(args, every_op_refuses_reserved_and_pad, 0, 2 * NUM_INFO_OPS);
	tcase_add_loop_test(args, every_op_refuses_bad_pointers, 0, 2 * NUM_INFO_OPS);
	tcase_add_loop_test(args, unknown_ops_are_einval, 0,
			    (int)(sizeof(unknown_ops) / sizeof(unknown_ops[0])));
	tcase_add_test(args, info_keeps_working_after_errors);
	suite_add_tcase(s, args);

	tcase_add_test(facts, hw_ip_info_describes_the_device);
	tcase_add_test(facts, hw_ip_info_same_on_both_nodes);
	tcase_add_test(facts, dram_usage_adds_up);
	tcase_add_test(facts, idle_when_nothing_runs);
	tcase_add_test(facts, status_is_operational);
	tcase_add_test(facts, cs_counters_are_consistent);
	tcase_add_test(facts, driver_version_is_a_string);
	suite_add_tcase(s, facts);
	return s;
}

int main(void)
{
	return run_suite(info_suite());
}
