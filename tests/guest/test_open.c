// SPDX-License-Identifier: MIT
/*
 * Opening and closing: one compute user at a time (EBUSY for the next),
 * reopening after close, the control node (many openers, INFO only),
 * device enumeration and bus IDs, open statistics.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "sysfs_util.h"

#define CONTROL_OPENERS	16

START_TEST(open_close)
{
	int fd = open_compute_ok();

	ck_assert_int_eq(hlthunk_close(fd), 0);
}
END_TEST

START_TEST(second_open_is_ebusy)
{
	int fd = open_compute_ok();

	ck_assert_int_eq(hlthunk_open_by_index(test_device_index()), -EBUSY);
	ck_assert_int_eq(hlthunk_open_by_index(test_device_index()), -EBUSY);
	ck_assert_int_eq(hlthunk_close(fd), 0);
}
END_TEST

START_TEST(open_from_another_process_is_ebusy)
{
	int fd = open_compute_ok();
	int status;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* A fork shares the open file, but a fresh open must still fail. */
		close(fd);
		_exit(hlthunk_open_by_index(test_device_index()) == -EBUSY ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	ck_assert_int_eq(hlthunk_close(fd), 0);
}
END_TEST

START_TEST(reopen_after_close)
{
	int i;

	for (i = 0; i < 8; i++) {
		int fd = open_compute_ok();

		ck_assert_int_eq(hlthunk_close(fd), 0);
	}
}
END_TEST

START_TEST(control_opens_many_while_held)
{
	int fds[CONTROL_OPENERS];
	int compute = open_compute_ok();
	int i;

	for (i = 0; i < CONTROL_OPENERS; i++)
		fds[i] = open_control_ok();
	for (i = 0; i < CONTROL_OPENERS; i++) {
		struct hlthunk_hw_ip_info hw;
		uint32_t status;

		hw_ip_ok(fds[i], &hw);
		ck_assert_uint_eq(hw.device_id, GAUDISIM_HL_DEVICE_ID_GAUDI);
		ck_assert_int_eq(hlthunk_get_device_status(fds[i], &status), 0);
		ck_assert_uint_eq(status, GAUDISIM_DEVICE_STATUS_OPERATIONAL);
	}
	for (i = 0; i < CONTROL_OPENERS; i++)
		ck_assert_int_eq(hlthunk_close(fds[i]), 0);
	/* The compute user is unaffected. */
	ck_assert_int_eq(hlthunk_get_device_status(compute, &(uint32_t){ 0 }), 0);
	ck_assert_int_eq(hlthunk_close(compute), 0);
}
END_TEST

START_TEST(control_does_not_block_compute)
{
	int control = open_control_ok();
	int compute = open_compute_ok();

	ck_assert_int_eq(hlthunk_close(compute), 0);
	ck_assert_int_eq(hlthunk_close(control), 0);
}
END_TEST

/* Every ioctl but INFO, with otherwise valid arguments. */
START_TEST(control_node_is_not_world_accessible)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), HLTHUNK_DEV_NAME_CONTROL, test_device_index());
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0007, 0);
	ck_assert_int_eq(open_errno_as_nobody(path, O_RDONLY), EACCES);
}
END_TEST

START_TEST(control_refuses_other_ioctls)
{
	int fd = open_control_ok();
	union gaudisim_cb_args cb = { 0 };
	union gaudisim_cs_args cs = { 0 };
	union gaudisim_wait_cs_args wait = { 0 };
	union gaudisim_mem_args mem = { 0 };
	struct gaudisim_cs_chunk chunk = make_chunk(0, QUEUE_H2D, 8);

	cb.in.op = GAUDISIM_CB_OP_CREATE;
	cb.in.cb_size = 4096;
	ck_assert_int_eq(hlthunk_ioctl(fd, DRM_IOCTL_GAUDISIM_CB, &cb), -ENOTTY);

	cs.in.chunks_execute = (uint64_t)(uintptr_t)&chunk;
	cs.in.num_chunks_execute = 1;
	ck_assert_int_eq(hlthunk_ioctl(fd, DRM_IOCTL_GAUDISIM_CS, &cs), -ENOTTY);

	wait.in.seq = 1;
	ck_assert_int_eq(hlthunk_ioctl(fd, DRM_IOCTL_GAUDISIM_WAIT_CS, &wait), -ENOTTY);

	mem.in.op = GAUDISIM_MEM_OP_ALLOC;
	mem.in.alloc.mem_size = GAUDISIM_DRAM_PAGE_SIZE;
	ck_assert_int_eq(hlthunk_ioctl(fd, DRM_IOCTL_GAUDISIM_MEMORY, &mem), -ENOTTY);

	/* ...and still serves INFO afterwards. */
	ck_assert_int_eq(hlthunk_get_device_status(fd, &(uint32_t){ 0 }), 0);
	ck_assert_int_eq(hlthunk_close(fd), 0);
}
END_TEST

START_TEST(unknown_ioctl_is_refused)
{
	int fd = open_compute_ok();
	uint64_t arg[4] = { 0 };
	unsigned long bogus = DRM_IOWR(DRM_COMMAND_BASE + 0x3f, uint64_t[4]);
	int rc = hlthunk_ioctl(fd, bogus, arg);

	ck_assert_msg(rc == -EINVAL || rc == -ENOTTY, "unknown ioctl: %s", strerror(-rc));
	ck_assert_int_eq(hlthunk_close(fd), 0);
}
END_TEST

START_TEST(open_missing_minor_is_enoent)
{
	ck_assert_int_eq(hlthunk_open_by_index(HLTHUNK_MAX_MINOR - 1), -ENOENT);
	ck_assert_int_eq(hlthunk_open_control(HLTHUNK_MAX_MINOR - 1, NULL), -ENOENT);
}
END_TEST

START_TEST(enumeration_lists_the_device)
{
	int indices[HLTHUNK_MAX_MINOR];
	int i, n = hlthunk_list_devices(indices, HLTHUNK_MAX_MINOR);
	bool found = false;

	ck_assert_int_ge(n, 1);
	ck_assert_int_eq(hlthunk_get_device_count(HLTHUNK_DEVICE_DONT_CARE), n);
	for (i = 0; i < n; i++)
		found |= indices[i] == test_device_index();
	ck_assert(found);
}
END_TEST

START_TEST(bus_id_is_the_same_on_both_nodes)
{
	char from_compute[HLTHUNK_BUS_ID_MAX_LEN], from_control[HLTHUNK_BUS_ID_MAX_LEN];
	int compute = open_compute_ok();
	int control = open_control_ok();

	ck_assert_int_eq(hlthunk_get_pci_bus_id_from_fd(compute, from_compute,
							sizeof(from_compute)), 0);
	ck_assert_int_eq(hlthunk_get_pci_bus_id_from_fd(control, from_control,
							sizeof(from_control)), 0);
	ck_assert_str_eq(from_compute, from_control);
	ck_assert_int_eq(strlen(from_compute), 12);	/* DDDD:BB:DD.F */
	ck_assert_int_eq(hlthunk_get_device_index_from_pci_bus_id(from_compute),
			 test_device_index());
	hlthunk_close(control);
	hlthunk_close(compute);
}
END_TEST

/* hl-thunk reads an open node's PCI address from /sys/dev/char/MAJ:MIN/pci_addr. */
static void char_node_pci_addr_ok(int fd, char *buf, size_t len)
{
	char path[96];
	struct stat st;
	int rc;

	ck_assert_int_eq(fstat(fd, &st), 0);
	snprintf(path, sizeof(path), "/sys/dev/char/%u:%u/pci_addr", major(st.st_rdev),
		 minor(st.st_rdev));
	rc = read_text(path, buf, len);
	ck_assert_msg(rc == 0, "read %s: %s", path, strerror(-rc));
}

START_TEST(char_nodes_carry_pci_addr)
{
	char busid[HLTHUNK_BUS_ID_MAX_LEN], from_compute[TEXT_LEN], from_control[TEXT_LEN];
	int compute = open_compute_ok();
	int control = open_control_ok();

	ck_assert_int_eq(hlthunk_get_pci_bus_id_from_fd(control, busid, sizeof(busid)), 0);
	char_node_pci_addr_ok(compute, from_compute, sizeof(from_compute));
	char_node_pci_addr_ok(control, from_control, sizeof(from_control));
	ck_assert_str_eq(from_compute, busid);
	ck_assert_str_eq(from_control, busid);
	hlthunk_close(control);
	hlthunk_close(compute);
}
END_TEST

START_TEST(open_by_bus_id)
{
	char busid[HLTHUNK_BUS_ID_MAX_LEN];
	int fd = open_control_ok();

	ck_assert_int_eq(hlthunk_get_pci_bus_id_from_fd(fd, busid, sizeof(busid)), 0);
	hlthunk_close(fd);

	fd = hlthunk_open_by_busid(busid);
	ck_assert_msg(fd >= 0, "open_by_busid(%s): %s", busid, strerror(-fd));
	ck_assert_int_eq(hlthunk_open_by_busid(busid), -EBUSY);
	hlthunk_close(fd);

	/* Short form without the domain (the guest's domain is 0). */
	fd = hlthunk_open_by_busid(busid + 5);
	ck_assert_msg(fd >= 0, "open_by_busid(%s): %s", busid + 5, strerror(-fd));
	hlthunk_close(fd);

	ck_assert_int_eq(hlthunk_open_by_busid("00:1f.7"), -ENODEV);
	ck_assert_int_eq(hlthunk_open_by_busid("00:1f"), -EINVAL);
}
END_TEST

/* The driver's struct: it also names the holder (compute_pid). */
static void raw_open_stats_ok(int fd, struct gaudisim_info_open_stats *st)
{
	ck_assert_int_eq(hlthunk_get_info_op(fd, GAUDISIM_INFO_OPEN_STATS, st, sizeof(*st)), 0);
}

START_TEST(open_stats_track_the_holder)
{
	struct gaudisim_info_open_stats before, during, after;
	int control = open_control_ok();
	int compute;

	raw_open_stats_ok(control, &before);
	ck_assert_uint_eq(before.is_compute_ctx_active, 0);
	ck_assert_uint_eq(before.compute_pid, 0);

	compute = open_compute_ok();
	raw_open_stats_ok(control, &during);
	ck_assert_uint_eq(during.is_compute_ctx_active, 1);
	ck_assert_uint_eq(during.compute_pid, (uint32_t)getpid());
	ck_assert_uint_eq(during.open_counter, before.open_counter + 1);

	usleep(20 * 1000);
	hlthunk_close(compute);
	raw_open_stats_ok(control, &after);
	ck_assert_uint_eq(after.is_compute_ctx_active, 0);
	ck_assert_uint_eq(after.compute_pid, 0);
	ck_assert_uint_eq(after.open_counter, during.open_counter);
	ck_assert_uint_ge(after.last_open_period_ms, 20);
	hlthunk_close(control);
}
END_TEST

START_TEST(failed_open_does_not_count)
{
	struct gaudisim_info_open_stats before, after;
	int compute = open_compute_ok();
	int control = open_control_ok();

	raw_open_stats_ok(control, &before);
	ck_assert_int_eq(hlthunk_open_by_index(test_device_index()), -EBUSY);
	raw_open_stats_ok(control, &after);
	ck_assert_uint_eq(after.open_counter, before.open_counter);
	ck_assert_uint_eq(after.compute_pid, (uint32_t)getpid());
	hlthunk_close(control);
	hlthunk_close(compute);
}
END_TEST

static Suite *open_suite(void)
{
	Suite *s = suite_create("open");
	TCase *compute = tcase_create("compute-node");
	TCase *control = tcase_create("control-node");
	TCase *enumerate = tcase_create("enumeration");

	tcase_set_timeout(compute, TCASE_TIMEOUT_SHORT);
	tcase_add_test(compute, open_close);
	tcase_add_test(compute, second_open_is_ebusy);
	tcase_add_test(compute, open_from_another_process_is_ebusy);
	tcase_add_test(compute, reopen_after_close);
	tcase_add_test(compute, unknown_ioctl_is_refused);
	tcase_add_test(compute, open_missing_minor_is_enoent);
	tcase_add_test(compute, open_stats_track_the_holder);
	tcase_add_test(compute, failed_open_does_not_count);
	suite_add_tcase(s, compute);

	tcase_set_timeout(control, TCASE_TIMEOUT_SHORT);
	tcase_add_test(control, control_opens_many_while_held);
	tcase_add_test(control, control_does_not_block_compute);
	tcase_add_test(control, control_refuses_other_ioctls);
	tcase_add_test(control, control_node_is_not_world_accessible);
	suite_add_tcase(s, control);

	tcase_set_timeout(enumerate, TCASE_TIMEOUT_SHORT);
	tcase_add_test(enumerate, enumeration_lists_the_device);
	tcase_add_test(enumerate, bus_id_is_the_same_on_both_nodes);
	tcase_add_test(enumerate, char_nodes_carry_pci_addr);
	tcase_add_test(enumerate, open_by_bus_id);
	suite_add_tcase(s, enumerate);
	return s;
}

int main(void)
{
	return run_suite(open_suite());
}
