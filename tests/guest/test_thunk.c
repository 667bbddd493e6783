// SPDX-License-Identifier: MIT
/*
 * libhlthunk with hl-thunk's signatures: opening by ASIC name and bus ID
 * (a held device is skipped, all held is EBUSY), the control node by
 * index, bus ID and name, INFO with the caller's args struct, the
 * handle / address memory calls (0 and errno on failure, the hint used),
 * CB usage counts, CS with a timeout and the completion timestamp, device
 * name and ID from an fd, and the debugfs register helpers (root only).
 */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "hw/gaudisim_hw_telemetry.h"
#include "sysfs_util.h"

#define WAIT_US		(5 * 1000 * 1000ULL)
#define NOBODY		65534
/* A bus ID no guest device has. */
#define ABSENT_BUSID	"0000:7f:1f.7"

/* Bus ID ("DDDD:BB:DD.F") of the device under test. */
static void test_busid_ok(char *busid, int len)
{
	int fd = open_control_ok();

	ck_assert_int_eq(hlthunk_get_pci_bus_id_from_fd(fd, busid, len), 0);
	hlthunk_close(fd);
}

static void busid_of_fd_is(int fd, const char *want)
{
	char busid[HLTHUNK_BUS_ID_MAX_LEN];

	ck_assert_int_eq(hlthunk_get_pci_bus_id_from_fd(fd, busid, sizeof(busid)), 0);
	ck_assert_str_eq(busid, want);
}

/* ---- Open ---------------------------------------------------------------- */

START_TEST(open_gaudi_by_busid)
{
	char busid[HLTHUNK_BUS_ID_MAX_LEN];
	int fd;

	test_busid_ok(busid, sizeof(busid));
	fd = hlthunk_open(HLTHUNK_DEVICE_GAUDI, busid);
	ck_assert_msg(fd >= 0, "open GAUDI %s: %s", busid, strerror(-fd));
	busid_of_fd_is(fd, busid);
	ck_assert_int_eq(hlthunk_get_device_name_from_fd(fd), HLTHUNK_DEVICE_GAUDI);
	ck_assert_uint_eq(hlthunk_get_device_id_from_fd(fd), GAUDISIM_HL_DEVICE_ID_GAUDI);
	ck_assert_int_eq(hlthunk_close(fd), 0);

	/* The short form without the domain names the same device. */
	fd = hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, busid + 5);
	ck_assert_msg(fd >= 0, "open %s: %s", busid + 5, strerror(-fd));
	busid_of_fd_is(fd, busid);
	ck_assert_int_eq(hlthunk_close(fd), 0);
	ck_assert_int_eq(hlthunk_get_device_index_from_pci_bus_id(busid), test_device_index());
}
END_TEST

START_TEST(open_dont_care_takes_a_free_device)
{
	int fd = hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, NULL);

	ck_assert_msg(fd >= 0, "open DONT_CARE: %s", strerror(-fd));
	ck_assert_int_eq(hlthunk_get_device_name_from_fd(fd), HLTHUNK_DEVICE_GAUDI);
	ck_assert_int_eq(hlthunk_close(fd), 0);
	fd = hlthunk_open(HLTHUNK_DEVICE_GAUDI, NULL);
	ck_assert_msg(fd >= 0, "open GAUDI: %s", strerror(-fd));
	ck_assert_int_eq(hlthunk_close(fd), 0);
}
END_TEST

/* A held device is passed over; when none is free the answer is EBUSY. */
START_TEST(open_skips_held_devices)
{
	int indices[HLTHUNK_MAX_MINOR], fds[HLTHUNK_MAX_MINOR];
	char first[HLTHUNK_BUS_ID_MAX_LEN], other[HLTHUNK_BUS_ID_MAX_LEN];
	int n = hlthunk_list_devices(indices, HLTHUNK_MAX_MINOR);
	int i, fd;

	ck_assert_int_ge(n, 1);
	fds[0] = hlthunk_open_by_index(indices[0]);
	ck_assert_int_ge(fds[0], 0);
	ck_assert_int_eq(hlthunk_get_pci_bus_id_from_fd(fds[0], first, sizeof(first)), 0);
	fd = hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, NULL);
	if (n == 1) {
		ck_assert_int_eq(fd, -EBUSY);
	} else {
		ck_assert_msg(fd >= 0, "second device: %s", strerror(-fd));
		ck_assert_int_eq(hlthunk_get_pci_bus_id_from_fd(fd, other, sizeof(other)), 0);
		ck_assert_str_ne(other, first);
		hlthunk_close(fd);
	}
	/* A named device that is held is EBUSY, not some other device. */
	ck_assert_int_eq(hlthunk_open(HLTHUNK_DEVICE_GAUDI, first), -EBUSY);

	for (i = 1; i < n; i++) {
		fds[i] = hlthunk_open_by_index(indices[i]);
		ck_assert_int_ge(fds[i], 0);
	}
	ck_assert_int_eq(hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, NULL), -EBUSY);
	ck_assert_int_eq(hlthunk_open(HLTHUNK_DEVICE_GAUDI, NULL), -EBUSY);
	for (i = 0; i < n; i++)
		hlthunk_close(fds[i]);
	fd = hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, NULL);
	ck_assert_int_ge(fd, 0);
	hlthunk_close(fd);
}
END_TEST

START_TEST(open_other_names_and_absent_busid)
{
	int n = hlthunk_list_devices(NULL, 0);

	ck_assert_int_ge(n, 1);
	ck_assert_int_eq(hlthunk_get_device_count(HLTHUNK_DEVICE_DONT_CARE), n);
	ck_assert_int_eq(hlthunk_get_device_count(HLTHUNK_DEVICE_GAUDI), n);
	ck_assert_int_eq(hlthunk_get_device_count(HLTHUNK_DEVICE_GOYA), 0);
	ck_assert_int_eq(hlthunk_open(HLTHUNK_DEVICE_GOYA, NULL), -ENODEV);
	ck_assert_int_eq(hlthunk_open(HLTHUNK_DEVICE_GAUDI2, NULL), -ENODEV);
	ck_assert_int_eq(hlthunk_open(HLTHUNK_DEVICE_MAX, NULL), -EINVAL);
	ck_assert_int_eq(hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, ABSENT_BUSID), -ENODEV);
	ck_assert_int_eq(hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, "00:03"), -EINVAL);
	ck_assert_int_eq(hlthunk_open_control(0, ABSENT_BUSID), -ENODEV);
	ck_assert_int_eq(hlthunk_get_device_index_from_pci_bus_id(ABSENT_BUSID), -ENODEV);
}
END_TEST

START_TEST(open_control_by_index_busid_and_name)
{
	char busid[HLTHUNK_BUS_ID_MAX_LEN];
	int indices[1], compute, fd;

	test_busid_ok(busid, sizeof(busid));
	/* The control node serves while the compute node is held. */
	compute = open_compute_ok();
	fd = hlthunk_open_control(test_device_index(), NULL);
	ck_assert_int_ge(fd, 0);
	busid_of_fd_is(fd, busid);
	hlthunk_close(fd);
	/* With a bus ID, dev_id is not looked at. */
	fd = hlthunk_open_control(-1, busid);
	ck_assert_msg(fd >= 0, "control %s: %s", busid, strerror(-fd));
	busid_of_fd_is(fd, busid);
	ck_assert_uint_eq(hlthunk_get_device_id_from_fd(fd), GAUDISIM_HL_DEVICE_ID_GAUDI);
	ck_assert_int_eq(hlthunk_get_device_name_from_fd(fd), HLTHUNK_DEVICE_GAUDI);
	hlthunk_close(fd);
	fd = hlthunk_open_control_by_bus_id(busid);
	ck_assert_int_ge(fd, 0);
	busid_of_fd_is(fd, busid);
	hlthunk_close(fd);

	ck_assert_int_ge(hlthunk_list_devices(indices, 1), 1);
	fd = hlthunk_open_control_by_name(HLTHUNK_DEVICE_GAUDI);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(hlthunk_get_device_index_from_pci_bus_id(busid), test_device_index());
	{
		char first[HLTHUNK_BUS_ID_MAX_LEN];
		int cfd = hlthunk_open_control(indices[0], NULL);

		ck_assert_int_ge(cfd, 0);
		ck_assert_int_eq(hlthunk_get_pci_bus_id_from_fd(cfd, first, sizeof(first)), 0);
		busid_of_fd_is(fd, first);
		hlthunk_close(cfd);
	}
	hlthunk_close(fd);
	ck_assert_int_eq(hlthunk_open_control_by_name(HLTHUNK_DEVICE_GOYA), -ENODEV);
	hlthunk_close(compute);
}
END_TEST

/* ---- INFO ---------------------------------------------------------------- */

START_TEST(get_info_takes_the_args_struct)
{
	struct gaudisim_info_hw_ip_info raw;
	struct hlthunk_hw_ip_info hw;
	struct gaudisim_info_args args;

	memset(&raw, 0, sizeof(raw));
	memset(&args, 0, sizeof(args));
	args.op = GAUDISIM_INFO_HW_IP_INFO;
	args.return_pointer = (uint64_t)(uintptr_t)&raw;
	args.return_size = sizeof(raw);
	ck_assert_int_eq(hlthunk_get_info(dev_fd, &args), 0);
	ck_assert_uint_eq(raw.device_id, GAUDISIM_HL_DEVICE_ID_GAUDI);

	/* hl-thunk's struct carries the same facts, field by field. */
	memset(&hw, 0xa5, sizeof(hw));
	ck_assert_int_eq(hlthunk_get_hw_ip_info(dev_fd, &hw), 0);
	ck_assert_uint_eq(hw.device_id, raw.device_id);
	ck_assert_uint_eq(hw.dram_base_address, raw.dram_base_address);
	ck_assert_uint_eq(hw.dram_size, raw.dram_size);
	ck_assert_uint_eq(hw.sram_base_address, raw.sram_base_address);
	ck_assert_uint_eq(hw.sram_size, raw.sram_size);
	ck_assert_uint_eq(hw.tpc_enabled_mask, raw.tpc_enabled_mask);
	ck_assert_uint_eq(hw.dram_page_size, GAUDISIM_DRAM_PAGE_SIZE);
	ck_assert_uint_eq(hw.first_available_interrupt_id, raw.first_available_interrupt_id);
	ck_assert_uint_eq(hw.number_of_user_interrupts, raw.number_of_user_interrupts);
	ck_assert_uint_eq(hw.cpld_version, raw.cpld_version);
	ck_assert_uint_eq(hw.reserved_dram_size, raw.reserved_dram_size);
	ck_assert_uint_eq(hw.reserved1, 0);
	ck_assert_int_eq(memcmp(hw.card_name, raw.card_name, sizeof(hw.card_name)), 0);
	ck_assert_int_eq(memcmp(hw.cpucp_version, raw.cpucp_version, sizeof(hw.cpucp_version)), 0);

	/* The driver's own checks come back unchanged. */
	args.pad = 1;
	ck_assert_int_eq(hlthunk_get_info(dev_fd, &args), -EINVAL);
	ck_assert_int_eq(hlthunk_get_info(dev_fd, NULL), -EINVAL);
}
END_TEST

START_TEST(idle_status_and_open_stats)
{
	struct gaudisim_info_open_stats raw;
	struct hlthunk_open_stats_info st;
	int control = open_control_ok();

	ck_assert(hlthunk_is_device_idle(dev_fd));
	ck_assert_int_eq(hlthunk_get_device_status_info(dev_fd),
			 GAUDISIM_DEVICE_STATUS_OPERATIONAL);
	ck_assert_int_eq(hlthunk_get_device_status_info(control),
			 GAUDISIM_DEVICE_STATUS_OPERATIONAL);
	ck_assert_int_eq(hlthunk_get_open_stats(control, &st), 0);
	ck_assert_int_eq(hlthunk_get_info_op(control, GAUDISIM_INFO_OPEN_STATS, &raw,
					     sizeof(raw)), 0);
	ck_assert_uint_eq(st.is_compute_ctx_active, 1);
	ck_assert_uint_eq(st.compute_ctx_in_release, 0);
	ck_assert_uint_eq(st.open_counter, raw.open_counter);
	ck_assert_uint_ge(st.open_counter, 1);
	hlthunk_close(control);
}
END_TEST

/* ---- Memory -------------------------------------------------------------- */

START_TEST(hbm_handle_and_address)
{
	struct hlthunk_dram_usage_info before, during, after;
	struct hlthunk_hw_ip_info hw;
	uint64_t handle, addr;

	hw_ip_ok(dev_fd, &hw);
	ck_assert_int_eq(hlthunk_get_dram_usage(dev_fd, &before), 0);
	handle = hlthunk_device_memory_alloc(dev_fd, 3 * MiB, GAUDISIM_DRAM_PAGE_SIZE, true,
					     false);
	ck_assert_uint_ne(handle, 0);
	ck_assert_int_eq(hlthunk_get_dram_usage(dev_fd, &during), 0);
	ck_assert_uint_eq(during.ctx_dram_mem, before.ctx_dram_mem + 2 * GAUDISIM_DRAM_PAGE_SIZE);
	ck_assert_uint_eq(during.dram_free_mem, before.dram_free_mem - 2 * GAUDISIM_DRAM_PAGE_SIZE);

	addr = hlthunk_device_memory_map(dev_fd, handle, 0);
	ck_assert_uint_ge(addr, hw.dram_base_address);
	ck_assert_uint_lt(addr, hw.dram_base_address + hw.dram_size);
	/* HBM lies where it lies: a hint is refused rather than ignored. */
	errno = 0;
	ck_assert_uint_eq(hlthunk_device_memory_map(dev_fd, handle, addr + GAUDISIM_DRAM_PAGE_SIZE),
			  0);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_uint_eq(hlthunk_device_memory_map(dev_fd, handle + 1000, 0), 0);
	ck_assert_int_eq(errno, EINVAL);

	/* The data lands at the address map gave. */
	{
		struct host_buf b;

		host_buf_map_ok(dev_fd, &b, 4096);
		memset_ok(dev_fd, addr, 0x5a, 4096, QUEUE_H2D);
		dma_ok(dev_fd, addr, b.va, 4096, QUEUE_D2H);
		ck_assert_int_eq(first_byte_not(b.ptr, 4096, 0x5a), -1);
		host_buf_release(dev_fd, &b);
	}
	ck_assert_int_eq(hlthunk_device_memory_free(dev_fd, handle), 0);
	ck_assert_int_eq(hlthunk_get_dram_usage(dev_fd, &after), 0);
	ck_assert_uint_eq(after.ctx_dram_mem, before.ctx_dram_mem);
}
END_TEST

START_TEST(hbm_alloc_failures_set_errno)
{
	errno = 0;
	ck_assert_uint_eq(hlthunk_device_memory_alloc(dev_fd, 0, 0, false, false), 0);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_uint_eq(hlthunk_device_memory_alloc(dev_fd, MiB, 4096, false, false), 0);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_uint_eq(hlthunk_device_memory_alloc(dev_fd, MiB, 0, false, true), 0);
	ck_assert_int_eq(errno, EOPNOTSUPP);
	errno = 0;
	ck_assert_uint_eq(hlthunk_device_memory_alloc(dev_fd, UINT64_MAX, 0, false, false), 0);
	ck_assert_msg(errno == ENOMEM || errno == EINVAL, "errno %d", errno);
}
END_TEST

START_TEST(host_map_uses_the_hint)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t size = 4 * (uint64_t)page;
	uint64_t hint = GAUDISIM_HOST_VA_BASE + 256 * MiB;
	uint8_t *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	uint64_t va, va2;

	ck_assert_ptr_ne(p, MAP_FAILED);
	va = hlthunk_host_memory_map(dev_fd, p, 0, size);
	ck_assert_uint_ge(va, GAUDISIM_HOST_VA_BASE);
	ck_assert_uint_lt(va, GAUDISIM_HOST_VA_BASE + GAUDISIM_HOST_VA_SIZE);
	ck_assert_int_eq(hlthunk_memory_unmap(dev_fd, va), 0);

	va = hlthunk_host_memory_map(dev_fd, p, hint, size);
	ck_assert_uint_eq(va, hint);
	/* A taken hint is only advice: the mapping goes elsewhere. */
	va2 = hlthunk_host_memory_map(dev_fd, p, hint, size);
	ck_assert_uint_ne(va2, 0);
	ck_assert_uint_ne(va2, hint);
	ck_assert_int_eq(hlthunk_memory_unmap(dev_fd, va2), 0);
	ck_assert_int_eq(hlthunk_memory_unmap(dev_fd, va), 0);

	/* Unaligned buffers map, as habanalabs': the VA keeps the offset. */
	va = hlthunk_host_memory_map(dev_fd, p + 1, 0, (uint64_t)page);
	ck_assert_uint_eq(va % (uint64_t)page, 1);
	ck_assert_int_eq(hlthunk_memory_unmap(dev_fd, va), 0);
	errno = 0;
	ck_assert_uint_eq(hlthunk_host_memory_map(dev_fd, p, 0, 0), 0);
	ck_assert_int_eq(errno, EINVAL);
	munmap(p, size);
}
END_TEST

/* ---- CB and CS ----------------------------------------------------------- */

START_TEST(cb_usage_count_and_cs_timeout)
{
	struct timespec t0, t1;
	struct hlthunk_cs_in in;
	struct hlthunk_cs_out out;
	struct gaudisim_cs_chunk chunk;
	struct test_cb cb;
	uint32_t usage = ~0u, status = ~0u;
	uint64_t ts = 0;

	cb_create_ok(dev_fd, &cb, 4096);
	hlthunk_cbw_nop(&cb.w, GAUDISIM_PKT_CTL_EB | GAUDISIM_PKT_CTL_MB);
	ck_assert_int_eq(hlthunk_get_cb_usage_count(dev_fd, cb.handle, &usage), 0);
	ck_assert_uint_eq(usage, 0);
	ck_assert_int_eq(hlthunk_get_cb_usage_count(dev_fd, cb.handle + 4096 * 1000, &usage),
			 -EINVAL);

	chunk = make_chunk(cb.handle, QUEUE_H2D, cb.w.used);
	memset(&in, 0, sizeof(in));
	in.chunks_execute = &chunk;
	in.num_chunks_execute = 1;
	in.flags = GAUDISIM_CS_FLAGS_TIMESTAMP;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(hlthunk_command_submission_timeout(dev_fd, &in, &out, 5), 0);
	ck_assert_uint_eq(out.status, GAUDISIM_CS_STATUS_SUCCESS);
	ck_assert_int_eq(hlthunk_wait_for_cs_with_timestamp(dev_fd, out.seq, WAIT_US, &status,
							    &ts), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);
	ck_assert_uint_ge(ts, (uint64_t)t0.tv_sec * 1000000000ULL + (uint64_t)t0.tv_nsec);
	ck_assert_uint_le(ts, (uint64_t)t1.tv_sec * 1000000000ULL + (uint64_t)t1.tv_nsec);

	/* Without TIMESTAMP the driver gives none, and the call says 0. */
	in.flags = 0;
	ck_assert_int_eq(hlthunk_command_submission_timeout(dev_fd, &in, &out, 0), 0);
	ts = 1;
	ck_assert_int_eq(hlthunk_wait_for_cs_with_timestamp(dev_fd, out.seq, WAIT_US, &status,
							    &ts), 0);
	ck_assert_uint_eq(ts, 0);
	cb_destroy_ok(dev_fd, &cb);
}
END_TEST

/* ---- debugfs (root) ------------------------------------------------------ */

START_TEST(debugfs_reads_and_writes_registers)
{
	uint64_t id = GAUDISIM_CFG_BASE + GAUDISIM_REG_ID;
	uint64_t reg = GAUDISIM_CFG_BASE + GAUDISIM_BLOCK_TELEMETRY + GAUDISIM_TEL_POWER_MAX_MW;
	struct hlthunk_debugfs dbg;
	char dir[256], max_power[256];
	uint32_t v = 0, def = 0;

	debugfs_dir_ok(dir, sizeof(dir));	/* mounts debugfs when needed */
	dev_attr_path(max_power, sizeof(max_power), "max_power");
	ck_assert_int_eq(hlthunk_debugfs_open(dev_fd, &dbg), 0);
	ck_assert_int_eq(dbg.clk_gate_fd, -1);
	ck_assert_int_eq(hlthunk_debugfs_read(&dbg, id, &v), 0);
	ck_assert_uint_eq(v, GAUDISIM_ID_MAGIC);
	ck_assert_int_eq(hlthunk_debugfs_read(&dbg, reg, &def), 0);
	ck_assert_int_eq(hlthunk_debugfs_write(&dbg, reg, 280000), 0);
	ck_assert_int_eq(read_number_ok(max_power), 280000);
	ck_assert_int_eq(hlthunk_debugfs_read(&dbg, reg, &v), 0);
	ck_assert_uint_eq(v, 280000);
	ck_assert_int_eq(hlthunk_debugfs_write(&dbg, reg, def), 0);
	/* A word must be aligned. */
	ck_assert_int_eq(hlthunk_debugfs_read(&dbg, id + 2, &v), -EINVAL);
	ck_assert_int_eq(hlthunk_debugfs_close(&dbg), 0);
	ck_assert_int_eq(dbg.addr_fd, -1);
	ck_assert_int_eq(dbg.data_fd, -1);
	ck_assert_int_eq(hlthunk_debugfs_read(&dbg, id, &v), -EINVAL);
}
END_TEST

START_TEST(debugfs_refuses_nobody)
{
	struct hlthunk_debugfs dbg;
	char dir[256];
	int status, fd;
	pid_t pid;

	debugfs_dir_ok(dir, sizeof(dir));
	fd = open_control_ok();
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int rc;

		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(255);
		rc = hlthunk_debugfs_open(fd, &dbg);
		_exit(rc == -EACCES || rc == -EPERM ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	hlthunk_close(fd);
}
END_TEST

static Suite *thunk_suite(void)
{
	Suite *s = suite_create("thunk");
	TCase *open_tc = fixture_tcase("open", NULL, NULL, 60);
	TCase *info = compute_tcase("info", 30);
	TCase *mem = compute_tcase("memory", 60);
	TCase *cs = compute_tcase("cs", 60);
	TCase *dbg = compute_tcase("debugfs", 30);

	tcase_add_test(open_tc, open_gaudi_by_busid);
	tcase_add_test(open_tc, open_dont_care_takes_a_free_device);
	tcase_add_test(open_tc, open_skips_held_devices);
	tcase_add_test(open_tc, open_other_names_and_absent_busid);
	tcase_add_test(open_tc, open_control_by_index_busid_and_name);
	suite_add_tcase(s, open_tc);
	tcase_add_test(info, get_info_takes_the_args_struct);
	tcase_add_test(info, idle_status_and_open_stats);
	suite_add_tcase(s, info);
	tcase_add_test(mem, hbm_handle_and_address);
	tcase_add_test(mem, hbm_alloc_failures_set_errno);
	tcase_add_test(mem, host_map_uses_the_hint);
	suite_add_tcase(s, mem);
	tcase_add_test(cs, cb_usage_count_and_cs_timeout);
	suite_add_tcase(s, cs);
	tcase_add_test(dbg, debugfs_reads_and_writes_registers);
	tcase_add_test(dbg, debugfs_refuses_nobody);
	suite_add_tcase(s, dbg);
	return s;
}

int main(void)
{
	return run_suite(thunk_suite());
}
