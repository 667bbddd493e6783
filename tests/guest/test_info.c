// SPDX-License-Identifier: MIT
/*
 * INFO: every op on both nodes, the facts it reports, and its argument
 * checks (sizes, unknown ops, reserved and pad fields, bad pointers).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <hw/gaudisim_hw_sync.h>
#include <hw/gaudisim_hw_telemetry.h>

#include "common.h"
#include "sysfs_util.h"

#define SENTINEL 0xa5

struct info_op {
	uint32_t op;
	uint32_t size;
};

/* Ops that take no argument and answer on both nodes. */
static const struct info_op info_ops[] = {
	{ GAUDISIM_INFO_HW_IP_INFO, sizeof(struct gaudisim_info_hw_ip_info) },
	{ GAUDISIM_INFO_HW_EVENTS, GAUDISIM_INFO_HW_EVENTS_NUM * sizeof(uint32_t) },
	{ GAUDISIM_INFO_DRAM_USAGE, sizeof(struct gaudisim_info_dram_usage) },
	{ GAUDISIM_INFO_HW_IDLE, sizeof(struct gaudisim_info_hw_idle) },
	{ GAUDISIM_INFO_DEVICE_STATUS, sizeof(struct gaudisim_info_device_status) },
	{ GAUDISIM_INFO_HW_EVENTS_AGGREGATE, GAUDISIM_INFO_HW_EVENTS_NUM * sizeof(uint32_t) },
	{ GAUDISIM_INFO_CLK_RATE, sizeof(struct gaudisim_info_clk_rate) },
	{ GAUDISIM_INFO_RESET_COUNT, sizeof(struct gaudisim_info_reset_count) },
	{ GAUDISIM_INFO_TIME_SYNC, sizeof(struct gaudisim_info_time_sync) },
	{ GAUDISIM_INFO_CS_COUNTERS, sizeof(struct gaudisim_info_cs_counters) },
	{ GAUDISIM_INFO_CLK_THROTTLE_REASON, sizeof(struct gaudisim_info_clk_throttle) },
	{ GAUDISIM_INFO_SYNC_MANAGER, sizeof(struct gaudisim_info_sync_manager) },
	{ GAUDISIM_INFO_TOTAL_ENERGY, sizeof(struct gaudisim_info_energy) },
	{ GAUDISIM_INFO_POWER, sizeof(struct gaudisim_power_info) },
	{ GAUDISIM_INFO_OPEN_STATS, sizeof(struct gaudisim_info_open_stats) },
	{ GAUDISIM_INFO_LAST_ERR_OPEN_DEV_TIME,
	  sizeof(struct gaudisim_info_last_err_open_dev_time) },
	{ GAUDISIM_INFO_CS_TIMEOUT_EVENT, sizeof(struct gaudisim_info_cs_timeout_event) },
	{ GAUDISIM_INFO_RAZWI_EVENT, sizeof(struct gaudisim_info_razwi_event) },
	{ GAUDISIM_INFO_DEV_MEM_ALLOC_PAGE_SIZES,
	  sizeof(struct gaudisim_info_dev_memalloc_page_sizes) },
	{ GAUDISIM_INFO_UNDEFINED_OPCODE_EVENT,
	  sizeof(struct gaudisim_info_undefined_opcode_event) },
	{ GAUDISIM_INFO_PAGE_FAULT_EVENT, sizeof(struct gaudisim_page_fault_info) },
	{ GAUDISIM_INFO_DRIVER_VERSION, sizeof(struct gaudisim_info_driver_version) },
	{ GAUDISIM_INFO_HW_IP_EXT, sizeof(struct gaudisim_info_hw_ip_ext) },
	{ GAUDISIM_INFO_QUEUE_IDLE, sizeof(struct gaudisim_info_queue_idle) },
	{ GAUDISIM_INFO_CS_STATS, sizeof(struct gaudisim_info_cs_stats) },
	{ GAUDISIM_INFO_PCI_COUNTERS, sizeof(struct gaudisim_info_pci_counters) },
};

#define NUM_INFO_OPS ((int)(sizeof(info_ops) / sizeof(info_ops[0])))

/* Loop index i: op i % NUM_INFO_OPS on the compute node, then on the control node. */
static int node_for(int i)
{
	return i < NUM_INFO_OPS ? dev_fd : open_control_ok();
}

static int info_raw(int fd, uint64_t ptr, uint32_t size, uint32_t op, uint32_t arg,
		    uint32_t pad)
{
	struct gaudisim_info_args args = {
		.return_pointer = ptr, .return_size = size, .op = op,
		.ctx_id = arg, .pad = pad,
	};

	return hlthunk_ioctl(fd, DRM_IOCTL_GAUDISIM_INFO, &args);
}

START_TEST(every_op_fills_its_struct)
{
	const struct info_op *o = &info_ops[_i % NUM_INFO_OPS];
	uint8_t buf[512];
	int fd = node_for(_i);

	memset(buf, SENTINEL, sizeof(buf));
	ck_assert_int_eq(hlthunk_get_info_op(fd, o->op, buf, o->size), 0);
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
	ck_assert_int_eq(hlthunk_get_info_op(fd, o->op, part, o->size + 64), 0);
	ck_assert_uint_eq(part[o->size], SENTINEL);
	ck_assert_uint_eq(part[o->size + 63], SENTINEL);

	/* A smaller (older) buffer gets its prefix. */
	memset(part, SENTINEL, sizeof(part));
	ck_assert_int_eq(hlthunk_get_info_op(fd, o->op, part, small), 0);
	ck_assert_uint_eq(part[small], SENTINEL);
	if (o->op == GAUDISIM_INFO_HW_IP_INFO || o->op == GAUDISIM_INFO_DRIVER_VERSION ||
	    o->op == GAUDISIM_INFO_DEVICE_STATUS || o->op == GAUDISIM_INFO_HW_IP_EXT ||
	    o->op == GAUDISIM_INFO_DEV_MEM_ALLOC_PAGE_SIZES) {
		/* Facts that cannot change between the two calls. */
		ck_assert_int_eq(hlthunk_get_info_op(fd, o->op, full, o->size), 0);
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
	/* SYNC_MANAGER takes dcores 0..3: its first bad argument is 4. */
	uint32_t arg = o->op == GAUDISIM_INFO_SYNC_MANAGER ? GAUDISIM_DCORE_MAX : 1;
	uint64_t ptr;
	uint8_t buf[512];
	int fd = node_for(_i);

	ptr = (uint64_t)(uintptr_t)buf;
	ck_assert_int_eq(info_raw(fd, ptr, o->size, o->op, arg, 0), -EINVAL);
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

/* Holes among habanalabs' ops, ops gaudisim does not offer, and beyond. */
static const uint32_t unknown_ops[] = { 5, 19, 20, 21, 22, 27, 34, 35, 36, 37, 38,
					39, 63, 69, 0x7fffffff, 0xffffffff };

START_TEST(unknown_ops_are_einval)
{
	uint8_t buf[512];

	ck_assert_int_eq(hlthunk_get_info_op(dev_fd, unknown_ops[_i], buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(hlthunk_get_info_op(open_control_ok(), unknown_ops[_i], buf, sizeof(buf)),
			 -EINVAL);
}
END_TEST

START_TEST(hw_ip_info_describes_the_device)
{
	struct hlthunk_hw_ip_info hw;
	struct gaudisim_info_hw_ip_ext ext;
	size_t name_len;

	hw_ip_ok(dev_fd, &hw);
	ck_assert_int_eq(hlthunk_get_hw_ip_ext(dev_fd, &ext), 0);
	/* habanalabs' Gaudi ID, so its user space takes the device for a Gaudi. */
	ck_assert_uint_eq(hw.device_id, GAUDISIM_HL_DEVICE_ID_GAUDI);
	ck_assert_uint_eq(hw.num_of_events, GAUDISIM_INFO_HW_EVENTS_NUM);
	ck_assert_uint_eq(hw.tpc_enabled_mask, 0xff);
	ck_assert_uint_eq(hw.dram_enabled, 1);
	ck_assert_uint_eq(hw.dram_page_size, GAUDISIM_DRAM_PAGE_SIZE);
	ck_assert_uint_eq(hw.device_mem_alloc_default_page_size, GAUDISIM_DRAM_PAGE_SIZE);
	ck_assert_uint_eq(hw.reserved_dram_size, GAUDISIM_HBM_RESERVED_SIZE);
	ck_assert_uint_eq(ext.hw_version,
			  GAUDISIM_HW_VERSION_MAJOR << 16 | GAUDISIM_HW_VERSION_MINOR);
	ck_assert_uint_eq(hw.dram_base_address, GAUDISIM_HBM_USER_BASE);
	ck_assert_uint_ge(ext.hbm_total_size, GAUDISIM_HBM_RESERVED_SIZE + GAUDISIM_DRAM_PAGE_SIZE);
	ck_assert_uint_eq(hw.dram_size, ext.hbm_total_size - GAUDISIM_HBM_RESERVED_SIZE);
	ck_assert_uint_eq(hw.dram_size % GAUDISIM_DRAM_PAGE_SIZE, 0);
	ck_assert_uint_eq(hw.sram_base_address, GAUDISIM_SRAM_BASE);
	ck_assert_uint_eq(hw.sram_size, GAUDISIM_SRAM_SIZE);
	ck_assert_uint_eq(ext.host_base_address, GAUDISIM_HOST_BASE);
	ck_assert_uint_eq(ext.num_pci_dma, GAUDISIM_NUM_PCI_DMA);
	ck_assert_uint_eq(ext.num_tpc, GAUDISIM_NUM_TPC);
	ck_assert_uint_eq(ext.num_queues, GAUDISIM_QUEUE_ID_SIZE);
	/* All external queues take chunks; the CPU queue hole never does. */
	ck_assert_uint_eq(ext.queue_mask[0] & ((1ULL << GAUDISIM_NUM_EXT_QUEUES) - 1),
			  (1ULL << GAUDISIM_NUM_EXT_QUEUES) - 1);
	ck_assert_uint_eq(ext.queue_mask[0] & (1ULL << GAUDISIM_QUEUE_ID_CPU_PQ), 0);
	ck_assert_uint_eq(ext.queue_mask[1] >> (GAUDISIM_QUEUE_ID_SIZE - 64), 0);
	name_len = strnlen((const char *)hw.card_name, sizeof(hw.card_name));
	ck_assert_uint_gt(name_len, 0);
	ck_assert_uint_lt(name_len, sizeof(hw.card_name));
	ck_assert(!strncmp((const char *)hw.card_name, ext.card_name, name_len));
	name_len = strnlen((const char *)hw.cpucp_version, sizeof(hw.cpucp_version));
	ck_assert_uint_gt(name_len, 0);
	ck_assert_uint_lt(name_len, sizeof(hw.cpucp_version));
}
END_TEST

START_TEST(hw_ip_info_same_on_both_nodes)
{
	struct hlthunk_hw_ip_info a, b;

	hw_ip_ok(dev_fd, &a);
	hw_ip_ok(open_control_ok(), &b);
	ck_assert_mem_eq(&a, &b, sizeof(a));
}
END_TEST

START_TEST(dram_usage_adds_up)
{
	struct hlthunk_hw_ip_info hw;
	struct test_dram_usage u;

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
	struct gaudisim_info_queue_idle qidle;
	int i;

	memset(&idle, SENTINEL, sizeof(idle));
	ck_assert_int_eq(hlthunk_get_hw_idle(dev_fd, &idle), 0);
	ck_assert_uint_eq(idle.is_idle, 1);
	ck_assert_uint_eq(idle.busy_engines_mask, 0);
	for (i = 0; i < GAUDISIM_BUSY_ENGINES_MASK_EXT_SIZE; i++)
		ck_assert_uint_eq(idle.busy_engines_mask_ext[i], 0);
	memset(&qidle, SENTINEL, sizeof(qidle));
	ck_assert_int_eq(hlthunk_get_queue_idle(dev_fd, &qidle), 0);
	ck_assert_uint_eq(qidle.is_idle, 1);
	ck_assert_uint_eq(qidle.pad, 0);
	ck_assert_uint_eq(qidle.busy_queues_mask[0], 0);
	ck_assert_uint_eq(qidle.busy_queues_mask[1], 0);
	ck_assert_int_eq(hlthunk_is_device_idle(dev_fd), 1);
}
END_TEST

START_TEST(status_is_operational)
{
	struct gaudisim_info_device_status st;

	memset(&st, SENTINEL, sizeof(st));
	ck_assert_int_eq(hlthunk_get_info_op(dev_fd, GAUDISIM_INFO_DEVICE_STATUS, &st, sizeof(st)),
			 0);
	ck_assert_uint_eq(st.status, GAUDISIM_DEVICE_STATUS_OPERATIONAL);
	ck_assert_uint_eq(st.pad, 0);
}
END_TEST

START_TEST(cs_counters_are_consistent)
{
	struct gaudisim_info_cs_counters drops;
	struct gaudisim_info_cs_stats c;

	ck_assert_int_eq(hlthunk_get_cs_stats(dev_fd, &c), 0);
	ck_assert_uint_le(c.completed + c.errors, c.submitted);
	ck_assert_uint_le(c.timed_out, c.submitted);
	/* A fresh context has had nothing refused; the device may have. */
	ck_assert_int_eq(hlthunk_get_cs_counters_info(dev_fd, &drops), 0);
	ck_assert_uint_eq(drops.ctx_validation_drop_cnt, 0);
	ck_assert_uint_eq(drops.ctx_parsing_drop_cnt, 0);
	ck_assert_uint_eq(drops.ctx_queue_full_drop_cnt, 0);
	ck_assert_uint_le(drops.ctx_out_of_mem_drop_cnt, drops.total_out_of_mem_drop_cnt);
	/* The control node has no context. */
	ck_assert_int_eq(hlthunk_get_cs_counters_info(open_control_ok(), &drops), 0);
	ck_assert_uint_eq(drops.ctx_validation_drop_cnt, 0);
}
END_TEST

START_TEST(driver_version_is_a_string)
{
	struct gaudisim_info_driver_version v;
	char copy[8];
	size_t len;

	memset(&v, SENTINEL, sizeof(v));
	ck_assert_int_eq(hlthunk_get_info_op(dev_fd, GAUDISIM_INFO_DRIVER_VERSION, &v, sizeof(v)),
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
		ck_assert_int_eq(hlthunk_get_info_op(dev_fd, 0xdead, buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(hlthunk_get_info_op(dev_fd, GAUDISIM_INFO_HW_IP_INFO, buf, sizeof(buf)),
			 0);
}
END_TEST

/* ---- Telemetry and event ops (habanalabs' numbers) ----------------------- */

START_TEST(utilization_checks_its_period)
{
	static const uint32_t bad[] = { 0, 50, 99, 150, 1001, 1100, 0xffffffffu };
	uint32_t rate = ~0u;
	int fd = _i ? open_control_ok() : dev_fd;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_int_eq(hlthunk_get_device_utilization(fd, bad[i], &rate), -EINVAL);
	ck_assert_int_eq(hlthunk_get_device_utilization(fd, 100, &rate), 0);
	ck_assert_uint_le(rate, 100);
	ck_assert_int_eq(hlthunk_get_device_utilization(fd, 100, NULL), -EINVAL);
}
END_TEST

START_TEST(clock_rate_within_its_cap)
{
	uint32_t cur = 0, max = 0;
	struct hlthunk_pll_frequency_info pll;
	int fd = _i ? open_control_ok() : dev_fd, o;
	uint32_t p;

	ck_assert_int_eq(hlthunk_get_clk_rate(fd, &cur, &max), 0);
	ck_assert_uint_gt(cur, 0);
	ck_assert_uint_le(cur, max);
	ck_assert_uint_le(max, GAUDISIM_TEL_CLOCK_LIMIT_MHZ);
	/* The engine clock drives the MME and TPC PLLs, every output. */
	ck_assert_int_eq(hlthunk_get_pll_frequency(fd, GAUDISIM_MME_PLL, &pll), 0);
	for (o = 0; o < GAUDISIM_PLL_NUM_OUTPUTS; o++) {
		ck_assert_uint_gt(pll.output[o], 0);
		ck_assert_uint_le(pll.output[o], max);
	}
	/* Every PLL of habanalabs' Gaudi list answers, all outputs alike. */
	for (p = 0; p < GAUDISIM_PLL_MAX; p++) {
		ck_assert_int_eq(hlthunk_get_pll_frequency(fd, p, &pll), 0);
		for (o = 0; o < GAUDISIM_PLL_NUM_OUTPUTS; o++) {
			ck_assert_uint_gt(pll.output[o], 0);
			ck_assert_uint_le(pll.output[o], GAUDISIM_TEL_CLOCK_LIMIT_MHZ);
			ck_assert_uint_eq(pll.output[o], pll.output[0]);
		}
	}
	ck_assert_int_eq(hlthunk_get_pll_frequency(fd, GAUDISIM_PLL_MAX, &pll), -EINVAL);
	ck_assert_int_eq(hlthunk_get_pll_frequency(fd, 0xffffffffu, &pll), -EINVAL);
}
END_TEST

static uint64_t monotonic_raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint16_t pll_ok(uint32_t index)
{
	struct hlthunk_pll_frequency_info pll;

	ck_assert_int_eq(hlthunk_get_pll_frequency(dev_fd, index, &pll), 0);
	return pll.output[0];
}

/* Engine PLLs follow the engine clock's limit; the board's fixed ones do not. */
START_TEST(plls_follow_the_clock_model)
{
	char limit[PATH_LEN];
	uint16_t cpu = pll_ok(GAUDISIM_CPU_PLL), hbm = pll_ok(GAUDISIM_HBM_PLL);
	uint16_t dma = pll_ok(GAUDISIM_DMA_PLL);
	uint32_t cur = 0, max = 0;
	long long def;
	int o;

	dev_attr_path(limit, sizeof(limit), "clk_max_freq_mhz");
	def = read_number_ok(limit);
	ck_assert_int_eq(def, GAUDISIM_TEL_CLOCK_LIMIT_MHZ);
	ck_assert_uint_eq(pll_ok(GAUDISIM_MME_PLL), GAUDISIM_TEL_CLOCK_LIMIT_MHZ);
	write_number_ok(limit, GAUDISIM_TEL_CLOCK_LIMIT_MHZ / 2);
	/* An idle device runs at its limit at once. */
	ck_assert_int_eq(hlthunk_get_clk_rate(dev_fd, &cur, &max), 0);
	ck_assert_uint_eq(cur, GAUDISIM_TEL_CLOCK_LIMIT_MHZ / 2);
	ck_assert_uint_eq(pll_ok(GAUDISIM_MME_PLL), cur);
	ck_assert_uint_eq(pll_ok(GAUDISIM_TPC_PLL), cur);
	ck_assert_uint_eq(pll_ok(GAUDISIM_DMA_PLL), (dma + 1) / 2);
	ck_assert_uint_eq(pll_ok(GAUDISIM_CPU_PLL), cpu);
	ck_assert_uint_eq(pll_ok(GAUDISIM_HBM_PLL), hbm);
	/* Back at the full limit the clock climbs 50 MHz per 1 ms tick. */
	write_number_ok(limit, def);
	for (o = 0; o < 200 && pll_ok(GAUDISIM_DMA_PLL) != dma; o++)
		sleep_ms(10);
	ck_assert_uint_eq(pll_ok(GAUDISIM_DMA_PLL), dma);
	ck_assert_uint_eq(pll_ok(GAUDISIM_MME_PLL), GAUDISIM_TEL_CLOCK_LIMIT_MHZ);
}
END_TEST

START_TEST(time_sync_moves_with_host_time)
{
	struct hlthunk_time_sync_info a, b;
	uint64_t before, after;

	before = monotonic_raw_ns();
	ck_assert_int_eq(hlthunk_get_time_sync_info(dev_fd, &a), 0);
	after = monotonic_raw_ns();
	ck_assert_uint_ge(a.host_time, before);
	ck_assert_uint_le(a.host_time, after);
	sleep_ms(50);
	ck_assert_int_eq(hlthunk_get_time_sync_info(open_control_ok(), &b), 0);
	ck_assert_uint_gt(b.device_time, a.device_time);
	ck_assert_uint_ge(b.host_time - a.host_time, 50 * 1000000ull);
}
END_TEST

START_TEST(energy_grows_and_power_is_drawn)
{
	struct hlthunk_energy_info e0, e1;
	struct hlthunk_power_info p;

	ck_assert_int_eq(hlthunk_get_total_energy_consumption_info(dev_fd, &e0), 0);
	ck_assert_int_eq(hlthunk_get_power_info(dev_fd, &p), 0);
	/* Idle power is never 0 and never above the card's cap. */
	ck_assert_uint_gt(p.power, 0);
	ck_assert_uint_le(p.power, GAUDISIM_TEL_POWER_MAX_LIMIT_MW);
	sleep_ms(300);
	ck_assert_int_eq(hlthunk_get_total_energy_consumption_info(open_control_ok(), &e1), 0);
	ck_assert_uint_gt(e1.total_energy_consumption, e0.total_energy_consumption);
}
END_TEST

START_TEST(throttle_and_reset_facts)
{
	struct hlthunk_clk_throttle_info th;
	struct hlthunk_reset_count_info rc;
	uint64_t page_orders = 0;
	int i;

	ck_assert_int_eq(hlthunk_get_clk_throttle_info(dev_fd, &th), 0);
	ck_assert_uint_eq(th.clk_throttle_reason_bitmask &
			  ~(uint32_t)(GAUDISIM_CLK_THROTTLE_POWER | GAUDISIM_CLK_THROTTLE_THERMAL), 0);
	for (i = 0; i < GAUDISIM_CLK_THROTTLE_TYPE_MAX; i++)
		if (!(th.clk_throttle_reason_bitmask & (1u << i)))
			ck_assert_uint_eq(th.clk_throttle_start_timestamp_us[i], 0);
	ck_assert_int_eq(hlthunk_get_reset_count_info(dev_fd, &rc), 0);
	ck_assert_uint_eq(rc.soft_reset_count, 0);
	ck_assert_int_eq(hlthunk_get_dev_memalloc_page_orders(dev_fd, &page_orders), 0);
	ck_assert_uint_eq(page_orders, 0);
}
END_TEST

START_TEST(busy_engines_mask_matches_hw_idle)
{
	struct hlthunk_engines_idle_info e;

	ck_assert_int_eq(hlthunk_get_busy_engines_mask(dev_fd, &e), 0);
	ck_assert_uint_eq(e.is_idle, 1);
	ck_assert_uint_eq(e.mask[0], 0);
}
END_TEST

START_TEST(hw_events_arrays)
{
	uint32_t since_reset[GAUDISIM_INFO_HW_EVENTS_NUM], since_load[GAUDISIM_INFO_HW_EVENTS_NUM];
	int i;

	ck_assert_int_eq(hlthunk_get_hw_events_arr(dev_fd, false, sizeof(since_reset),
						   since_reset), 0);
	ck_assert_int_eq(hlthunk_get_hw_events_arr(dev_fd, true, sizeof(since_load),
						   since_load), 0);
	/* A reset only restarts the first count. */
	for (i = 0; i < GAUDISIM_INFO_HW_EVENTS_NUM; i++)
		ck_assert_uint_le(since_reset[i], since_load[i]);
	ck_assert_int_eq(hlthunk_get_hw_events_arr(dev_fd, true, 0, since_load), -EINVAL);
	ck_assert_int_eq(hlthunk_get_hw_events_arr(dev_fd, true, 4, NULL), -EINVAL);
}
END_TEST

START_TEST(sync_manager_answers_for_each_gaudi_dcore)
{
	struct hlthunk_sync_manager_info sm;
	int dcore;

	/* Gaudi's user space asks about the E_N dcore (hl-thunk's tests). */
	for (dcore = GAUDISIM_DCORE_WS; dcore < GAUDISIM_DCORE_MAX; dcore++) {
		memset(&sm, 0xff, sizeof(sm));
		ck_assert_int_eq(hlthunk_get_sync_manager_info(dev_fd, dcore, &sm), 0);
		ck_assert_uint_eq(sm.first_available_sync_object, GAUDISIM_SYNC_FIRST_USER_SOB);
		ck_assert_uint_eq(sm.first_available_monitor, GAUDISIM_SYNC_FIRST_USER_MON);
	}
	ck_assert_int_eq(hlthunk_get_sync_manager_info(dev_fd, GAUDISIM_DCORE_MAX, &sm), -EINVAL);
	ck_assert_int_eq(hlthunk_get_sync_manager_info(dev_fd, -1, &sm), -EINVAL);
}
END_TEST

START_TEST(captured_errors_are_in_the_past)
{
	struct gaudisim_info_last_err_open_dev_time open_dev;
	struct gaudisim_info_cs_timeout_event cs;
	struct gaudisim_info_razwi_event razwi;
	struct gaudisim_info_undefined_opcode_event undef;
	struct gaudisim_page_fault_info pf;
	struct timespec now;
	int64_t now_ns;

	ck_assert_int_eq(hlthunk_get_event_record(dev_fd, HLTHUNK_CS_TIMEOUT, &cs), 0);
	ck_assert_int_eq(hlthunk_get_event_record(dev_fd, HLTHUNK_RAZWI_EVENT, &razwi), 0);
	ck_assert_int_eq(hlthunk_get_event_record(dev_fd, HLTHUNK_UNDEFINED_OPCODE, &undef), 0);
	ck_assert_int_eq(hlthunk_get_page_fault_info(dev_fd, &pf), 0);
	ck_assert_int_eq(hlthunk_get_event_record(dev_fd, HLTHUNK_OPEN_DEV, &open_dev), 0);
	ck_assert_int_eq(hlthunk_get_event_record(dev_fd, 99, &cs), -EINVAL);
	clock_gettime(CLOCK_MONOTONIC, &now);
	now_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	/* 0 while nothing happened, else a CLOCK_MONOTONIC time already past. */
	ck_assert_int_le(cs.timestamp, now_ns);
	ck_assert_int_le(razwi.timestamp, now_ns);
	ck_assert_int_le(undef.timestamp, now_ns);
	ck_assert_int_le(pf.timestamp, now_ns);
	ck_assert(!cs.timestamp == !cs.seq);
	/* The open time is kept with this context's errors: set once one is. */
	ck_assert(!open_dev.timestamp == !(cs.timestamp || razwi.timestamp || undef.timestamp));
	ck_assert_int_le(open_dev.timestamp, now_ns);
	ck_assert_uint_le(razwi.num_of_possible_engines, 1);
}
END_TEST

/* As habanalabs on Gaudi: one HBM page size (hw_ip's), no choice offered. */
START_TEST(dev_mem_alloc_page_sizes_as_gaudi)
{
	struct gaudisim_info_hw_ip_info hw_ip;
	uint64_t mask = ~0ull;
	int fd = _i ? open_control_ok() : dev_fd;

	ck_assert_int_eq(hlthunk_get_dev_memalloc_page_orders(fd, &mask), 0);
	ck_assert_uint_eq(mask, 0);
	ck_assert_int_eq(hlthunk_get_info_op(fd, GAUDISIM_INFO_HW_IP_INFO, &hw_ip, sizeof(hw_ip)),
			 0);
	ck_assert_uint_eq(hw_ip.dram_page_size, 2u << 20);
}
END_TEST

START_TEST(engine_status_is_a_table)
{
	static char text[8192];
	char small[16];
	int fd = _i ? open_control_ok() : dev_fd, used = -1;

	memset(text, SENTINEL, sizeof(text));
	ck_assert_int_eq(hlthunk_get_engine_status(fd, text, sizeof(text), &used), 0);
	ck_assert_int_gt(used, 0);
	ck_assert_uint_eq(strlen(text) + 1, (size_t)used);
	ck_assert_ptr_nonnull(strstr(text, "is_idle"));
	ck_assert_ptr_nonnull(strstr(text, "DMA0"));
	ck_assert_ptr_nonnull(strstr(text, "MME0"));
	ck_assert_ptr_nonnull(strstr(text, "TPC7"));
	/* A short buffer gets a terminated prefix. */
	memset(small, SENTINEL, sizeof(small));
	ck_assert_int_eq(hlthunk_get_engine_status(fd, small, sizeof(small), &used), 0);
	ck_assert_int_eq(used, (int)sizeof(small));
	ck_assert_uint_eq(small[sizeof(small) - 1], '\0');
	ck_assert_int_eq(hlthunk_get_engine_status(fd, text, 0, &used), -EINVAL);
	ck_assert_int_eq(info_raw(fd, 0xffff800000000000ULL, 64, GAUDISIM_INFO_ENGINE_STATUS, 0, 0),
			 -EFAULT);
}
END_TEST

START_TEST(notifier_on_the_compute_node_only)
{
	uint64_t events = ~0ull, cnt = ~0ull;
	int control = open_control_ok(), h, efd;

	h = hlthunk_notifier_create(dev_fd);
	ck_assert_int_ge(h, 0);
	/* One eventfd per context. */
	ck_assert_int_eq(hlthunk_notifier_create(dev_fd), -EINVAL);
	/* Nothing happened: the wait times out with no count. */
	ck_assert_int_eq(hlthunk_notifier_recv(dev_fd, h, &events, &cnt, 0, 10), 0);
	ck_assert_uint_eq(cnt, 0);
	ck_assert_uint_eq(events, 0);
	ck_assert_int_eq(hlthunk_notifier_recv(dev_fd, h, &events, &cnt, 1, 10), -EINVAL);
	ck_assert_int_eq(hlthunk_notifier_release(dev_fd, h), 0);
	ck_assert_int_eq(hlthunk_notifier_release(dev_fd, h), -EINVAL);

	/* The control node has no context to notify. */
	ck_assert_int_eq(hlthunk_notifier_create(control), -EOPNOTSUPP);
	ck_assert_int_eq(hlthunk_get_info_op(control, GAUDISIM_INFO_GET_EVENTS, &events,
					  sizeof(events)), -EOPNOTSUPP);
	/* Only an eventfd registers. */
	ck_assert_int_eq(hlthunk_get_info_arg(dev_fd, GAUDISIM_INFO_REGISTER_EVENTFD,
					      (uint32_t)control, NULL, 0), -EINVAL);
	efd = 1000;
	ck_assert_int_eq(hlthunk_get_info_arg(dev_fd, GAUDISIM_INFO_REGISTER_EVENTFD,
					      (uint32_t)efd, NULL, 0), -EBADF);
	ck_assert_int_eq(hlthunk_get_info_op(dev_fd, GAUDISIM_INFO_GET_EVENTS, &events,
					  sizeof(events)), 0);
}
END_TEST

/* ---- PCI_COUNTERS: traffic from a DMA loop in a thread ------------------- */

/* Bytes each direction per CS: big enough to dominate the window. */
#define TRAFFIC_BYTES	(1u << 20)
/*
 * Idle, the link carries the driver's own register accesses and the odd
 * heartbeat entry: the guest measured 0..1 KB/s. Under the DMA loop it
 * measured about 1.2 million KB/s each way. 1000 KB/s (10 kB per 10 ms
 * window) sits far from both.
 */
#define IDLE_MAX_KBPS	1000

struct traffic {
	int fd;
	struct gaudisim_cs_chunk chunk;
	volatile int stop;
	int err;
	unsigned long runs;
};

/* No Check asserts off the main thread: errors are handed back. */
static void *traffic_loop(void *arg)
{
	struct traffic *t = arg;
	uint32_t status;
	uint64_t seq;

	while (!t->stop) {
		t->err = submit_chunk(t->fd, &t->chunk, &seq);
		if (!t->err)
			t->err = hlthunk_wait_for_cs(t->fd, seq, WAIT_US_DMA, &status);
		if (!t->err && status != GAUDISIM_WAIT_CS_STATUS_COMPLETED)
			t->err = -EIO;
		if (t->err)
			break;
		t->runs++;
	}
	return NULL;
}

START_TEST(pci_counters_follow_traffic)
{
	struct hlthunk_pci_counters_info busy = { 0 }, idle = { 0 };
	struct traffic t = { .fd = dev_fd };
	struct host_buf host;
	struct hbm_buf hbm;
	struct test_cb cb;
	pthread_t thread;
	int ctl = open_control_ok(), i;

	host_buf_map_ok(dev_fd, &host, TRAFFIC_BYTES);
	hbm_alloc_ok(dev_fd, &hbm, 2 * MiB);
	cb_create_ok(dev_fd, &cb, 4096);
	/* Host -> device (RX), then device -> host (TX). */
	ck_assert_int_eq(hlthunk_cbw_lin_dma(&cb.w, host.va, hbm.addr, TRAFFIC_BYTES, 0,
					     GAUDISIM_PKT_CTL_EB | GAUDISIM_PKT_CTL_MB), 0);
	ck_assert_int_eq(hlthunk_cbw_lin_dma(&cb.w, hbm.addr, host.va, TRAFFIC_BYTES, 0,
					     GAUDISIM_PKT_CTL_EB | GAUDISIM_PKT_CTL_MB), 0);
	t.chunk = make_chunk(cb.handle, QUEUE_H2D, cb.w.used);

	ck_assert_int_eq(pthread_create(&thread, NULL, traffic_loop, &t), 0);
	/*
	 * The best of a few windows: the loop has gaps between its CSs, and
	 * the first windows may pass before the thread submits at all.
	 */
	for (i = 0; i < 100 && (busy.rx_throughput <= IDLE_MAX_KBPS ||
				busy.tx_throughput <= IDLE_MAX_KBPS); i++) {
		struct hlthunk_pci_counters_info s;

		ck_assert_int_eq(hlthunk_get_pci_counters_info(ctl, &s), 0);
		if (s.rx_throughput > busy.rx_throughput)
			busy.rx_throughput = s.rx_throughput;
		if (s.tx_throughput > busy.tx_throughput)
			busy.tx_throughput = s.tx_throughput;
	}
	t.stop = 1;
	ck_assert_int_eq(pthread_join(thread, NULL), 0);
	ck_assert_msg(!t.err, "DMA loop: %s after %lu CSs", strerror(-t.err), t.runs);
	ck_assert_uint_gt(t.runs, 0);
	fprintf(stderr, "pci counters: busy rx %llu tx %llu KB/s over %lu CSs\n",
		(unsigned long long)busy.rx_throughput, (unsigned long long)busy.tx_throughput,
		t.runs);
	ck_assert_uint_gt(busy.rx_throughput, IDLE_MAX_KBPS);
	ck_assert_uint_gt(busy.tx_throughput, IDLE_MAX_KBPS);

	/* Idle (nothing in flight): back to about nothing. */
	ck_assert_int_eq(hlthunk_get_pci_counters_info(ctl, &idle), 0);
	fprintf(stderr, "pci counters: idle rx %llu tx %llu KB/s, %llu replays\n",
		(unsigned long long)idle.rx_throughput, (unsigned long long)idle.tx_throughput,
		(unsigned long long)idle.replay_cnt);
	ck_assert_uint_lt(idle.rx_throughput, IDLE_MAX_KBPS);
	ck_assert_uint_lt(idle.tx_throughput, IDLE_MAX_KBPS);
	/* The simulated link replays only when fault injection says so. */
	ck_assert_uint_eq(idle.replay_cnt, 0);

	cb_destroy_ok(dev_fd, &cb);
	hbm_free_ok(dev_fd, &hbm);
	host_buf_release(dev_fd, &host);
}
END_TEST

START_TEST(pci_counters_refuse_bad_buffers)
{
	struct gaudisim_info_pci_counters pci;
	uint8_t buf[64];

	ck_assert_int_eq(hlthunk_get_pci_counters_info(dev_fd, NULL), -EINVAL);
	/* Size 0 and a NULL pointer are refused; a short buffer gets its prefix. */
	ck_assert_int_eq(info_raw(dev_fd, (uint64_t)(uintptr_t)&pci, 0,
				  GAUDISIM_INFO_PCI_COUNTERS, 0, 0), -EINVAL);
	ck_assert_int_eq(info_raw(dev_fd, 0, sizeof(pci), GAUDISIM_INFO_PCI_COUNTERS, 0, 0),
			 -EINVAL);
	memset(buf, SENTINEL, sizeof(buf));
	ck_assert_int_eq(info_raw(dev_fd, (uint64_t)(uintptr_t)buf, 4,
				  GAUDISIM_INFO_PCI_COUNTERS, 0, 0), 0);
	ck_assert_uint_eq(buf[4], SENTINEL);
	/* The op takes no argument. */
	ck_assert_int_eq(info_raw(dev_fd, (uint64_t)(uintptr_t)&pci, sizeof(pci),
				  GAUDISIM_INFO_PCI_COUNTERS, 7, 0), -EINVAL);
}
END_TEST

/* ---- HW_IP_EXT identity: the VM's device properties ---------------------- */

START_TEST(hw_ip_ext_identity_matches_the_vm)
{
	struct gaudisim_info_hw_ip_ext ext;
	struct hlthunk_hw_ip_info hw;
	uint32_t module;
	uint8_t want[16] = { 0x67, 0x73, 0x6d, 0x00, 0, 0x00, 0x40, 0x00,
			     0x80, 0x00, 0, 0, 0, 0, 0, 0 };
	char serial[32];

	ck_assert_int_eq(hlthunk_get_info_op(open_control_ok(), GAUDISIM_INFO_HW_IP_EXT, &ext,
					  sizeof(ext)), 0);
	ck_assert(memchr(ext.serial, '\0', sizeof(ext.serial)) != NULL);
	ck_assert_uint_gt(strlen(ext.serial), 0);
	ck_assert_uint_ne(GAUDISIM_FW_VERSION_MAJOR(ext.fw_version) |
			  GAUDISIM_FW_VERSION_MINOR(ext.fw_version), 0);
	/* scripts/vm.sh: uuid 67736d00-MM00-4000-8000-0000000000MM. */
	hw_ip_ok(dev_fd, &hw);
	module = hw.module_id;
	want[4] = (uint8_t)module;
	want[15] = (uint8_t)module;
	ck_assert_mem_eq(ext.uuid, want, sizeof(want));
	/* qemu-device: "GS" and the first 10 hex digits of the UUID, upper case. */
	snprintf(serial, sizeof(serial), "GS67736D00%02X", module);
	ck_assert_str_eq(ext.serial, serial);
}
END_TEST

static Suite *info_suite(void)
{
	Suite *s = suite_create("info");
	TCase *ops = compute_tcase("ops", TCASE_TIMEOUT_SHORT);
	TCase *args = compute_tcase("arguments", TCASE_TIMEOUT_SHORT);
	TCase *facts = compute_tcase("facts", TCASE_TIMEOUT_SHORT);
	TCase *telemetry = compute_tcase("telemetry", TCASE_TIMEOUT_SHORT);
	TCase *pcie = compute_tcase("pcie", TCASE_TIMEOUT_DMA);

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
	tcase_add_loop_test(facts, dev_mem_alloc_page_sizes_as_gaudi, 0, 2);
	suite_add_tcase(s, facts);

	tcase_add_loop_test(telemetry, utilization_checks_its_period, 0, 2);
	tcase_add_loop_test(telemetry, clock_rate_within_its_cap, 0, 2);
	tcase_add_test(telemetry, plls_follow_the_clock_model);
	tcase_add_test(telemetry, time_sync_moves_with_host_time);
	tcase_add_test(telemetry, energy_grows_and_power_is_drawn);
	tcase_add_test(telemetry, throttle_and_reset_facts);
	tcase_add_test(telemetry, busy_engines_mask_matches_hw_idle);
	tcase_add_test(telemetry, hw_events_arrays);
	tcase_add_test(telemetry, sync_manager_answers_for_each_gaudi_dcore);
	tcase_add_test(telemetry, captured_errors_are_in_the_past);
	tcase_add_loop_test(telemetry, engine_status_is_a_table, 0, 2);
	tcase_add_test(telemetry, notifier_on_the_compute_node_only);
	tcase_add_test(telemetry, pci_counters_refuse_bad_buffers);
	tcase_add_test(facts, hw_ip_ext_identity_matches_the_vm);
	suite_add_tcase(s, telemetry);

	tcase_add_test(pcie, pci_counters_follow_traffic);
	suite_add_tcase(s, pcie);
	return s;
}

int main(void)
{
	return run_suite(info_suite());
}
