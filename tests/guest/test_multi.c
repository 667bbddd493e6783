// SPDX-License-Identifier: MIT
/*
 * Several devices in one machine (the DL1 shape): they enumerate in module
 * order with unique, stable module IDs (HW_IP_INFO and sysfs agree), each
 * one carries a DMA round trip on its own and all of them do at once (one
 * process per device), the one-compute-user rule holds per device and not
 * across devices, and libhlrt's HABANA_VISIBLE_DEVICES /
 * HABANA_VISIBLE_MODULES masks select the right cards and refuse
 * malformed ones; hl-smi shows every card (table, -L, -Q rows, -i), and
 * its NIC section and topo -c matrix show the box's all-to-all links up.
 *   GSIM_EXPECT_DEVICES=N  the number of devices the machine was booted
 *                          with (default: at least 2)
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "hlrt.h"
#include "sysfs_util.h"

#define MAX_DEV		8
#define TRIP_BYTES	(1 * MiB)
#define TRIPS_AT_ONCE	4

/* The accel minors of every device, asserting the expected count. */
static int devices_ok(int *minor)
{
	const char *want = getenv("GSIM_EXPECT_DEVICES");
	int n = hlthunk_list_devices(minor, MAX_DEV);

	ck_assert_msg(n >= 2, "%d devices: this test needs a machine with 2 or more", n);
	ck_assert_msg(n <= MAX_DEV, "%d devices, more than %d", n, MAX_DEV);
	if (want && *want)
		ck_assert_int_eq(n, atoi(want));
	return n;
}

static long long sysfs_module_id_ok(int minor)
{
	char path[PATH_LEN];

	snprintf(path, sizeof(path), "/sys/class/accel/accel%d/device/module_id", minor);
	return read_number_ok(path);
}

START_TEST(enumerate_in_module_order)
{
	int minor[MAX_DEV], n = devices_ok(minor), i, j;
	char bus[MAX_DEV][32];
	uint32_t module[MAX_DEV];

	ck_assert_int_eq(hlthunk_get_device_count(HLTHUNK_DEVICE_DONT_CARE), n);
	for (i = 0; i < n; i++) {
		struct hlthunk_hw_ip_info hw;
		int fd = hlthunk_open_control(minor[i], NULL);

		ck_assert_msg(fd >= 0, "control node of accel%d: %s", minor[i], strerror(-fd));
		hw_ip_ok(fd, &hw);
		ck_assert_int_eq(hlthunk_get_pci_bus_id_from_fd(fd, bus[i], sizeof(bus[i])), 0);
		ck_assert_int_eq(hlthunk_close(fd), 0);
		module[i] = hw.module_id;
		ck_assert_msg(sysfs_module_id_ok(minor[i]) == hw.module_id,
			      "accel%d: sysfs module_id differs from HW_IP_INFO's %u",
			      minor[i], hw.module_id);
		/* The machine puts module i in the i-th slot. */
		ck_assert_msg(module[i] == (uint32_t)i,
			      "device %d (%s) has module ID %u, expected %d", i, bus[i],
			      module[i], i);
		for (j = 0; j < i; j++) {
			ck_assert_msg(module[j] != module[i], "devices %d and %d share module ID %u",
				      j, i, module[i]);
			ck_assert_msg(strcmp(bus[j], bus[i]) < 0,
				      "bus IDs out of order: %s before %s", bus[j], bus[i]);
		}
		ck_assert_int_eq(hlthunk_get_device_index_from_pci_bus_id(bus[i]), minor[i]);
	}
}
END_TEST

/* Open device minor, round-trip TRIP_BYTES through its HBM; 0 or a failure code. */
static int round_trip(int minor, uint32_t seed, int trips)
{
	struct host_buf src, dst;
	struct hbm_buf hbm;
	int fd = hlthunk_open_by_index(minor), t;

	if (fd < 0)
		return 10;
	host_buf_map_ok(fd, &src, TRIP_BYTES);
	host_buf_map_ok(fd, &dst, TRIP_BYTES);
	hbm_alloc_ok(fd, &hbm, TRIP_BYTES);
	for (t = 0; t < trips; t++) {
		fill_pattern(src.ptr, TRIP_BYTES, seed + (uint32_t)t);
		memset(dst.ptr, 0, TRIP_BYTES);
		dma_ok(fd, src.va, hbm.addr, TRIP_BYTES, QUEUE_H2D);
		dma_ok(fd, hbm.addr, dst.va, TRIP_BYTES, QUEUE_D2H);
		if (first_difference(src.ptr, dst.ptr, TRIP_BYTES) >= 0)
			return 11;
	}
	hbm_free_ok(fd, &hbm);
	host_buf_release(fd, &src);
	host_buf_release(fd, &dst);
	return hlthunk_close(fd) ? 12 : 0;
}

START_TEST(each_device_alone)
{
	int minor[MAX_DEV], n = devices_ok(minor), i;

	for (i = 0; i < n; i++)
		ck_assert_msg(round_trip(minor[i], 0x100u * (uint32_t)i, 1) == 0,
			      "round trip on accel%d failed", minor[i]);
}
END_TEST

/* Child processes run the asserting helpers: a failed assert exits non-zero. */
static pid_t spawn_round_trip(int minor, uint32_t seed, int trips)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(round_trip(minor, seed, trips));
	return pid;
}

START_TEST(all_devices_at_once)
{
	int minor[MAX_DEV], n = devices_ok(minor), i, status;
	pid_t pid[MAX_DEV];

	for (i = 0; i < n; i++)
		pid[i] = spawn_round_trip(minor[i], 0x9000u + 0x10u * (uint32_t)i, TRIPS_AT_ONCE);
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(waitpid(pid[i], &status, 0), pid[i]);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "the process on accel%d failed (status 0x%x)", minor[i], status);
	}
}
END_TEST

START_TEST(one_compute_user_per_device)
{
	int minor[MAX_DEV], n = devices_ok(minor), i;
	int fd[MAX_DEV];

	/* One process may hold every device; each one refuses a second open. */
	for (i = 0; i < n; i++) {
		fd[i] = hlthunk_open_by_index(minor[i]);
		ck_assert_msg(fd[i] >= 0, "accel%d: %s", minor[i], strerror(-fd[i]));
	}
	for (i = 0; i < n; i++)
		ck_assert_int_eq(hlthunk_open_by_index(minor[i]), -EBUSY);
	/* Freeing one device frees that one only. */
	ck_assert_int_eq(hlthunk_close(fd[1]), 0);
	ck_assert_int_eq(hlthunk_open_by_index(minor[0]), -EBUSY);
	fd[1] = hlthunk_open_by_index(minor[1]);
	ck_assert_int_ge(fd[1], 0);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(hlthunk_close(fd[i]), 0);
}
END_TEST

static void clear_masks(void)
{
	unsetenv("HABANA_VISIBLE_DEVICES");
	unsetenv("HABANA_VISIBLE_MODULES");
}

/* Acquire visible device index and return its module ID (asserting). */
static uint32_t visible_module_ok(uint32_t index, char *bus, size_t len)
{
	struct hlrt_device_info info;
	hlrt_device *d;

	ck_assert_msg(hlrt_device_acquire(index, &d) == HLRT_SUCCESS, "acquire %u: %s", index,
		      hlrt_last_error());
	ck_assert_int_eq(hlrt_device_get_info(d, &info), HLRT_SUCCESS);
	ck_assert_int_eq(hlrt_device_release(d), HLRT_SUCCESS);
	ck_assert_uint_eq(info.index, index);
	snprintf(bus, len, "%s", info.bus_id);
	return info.module_id;
}

START_TEST(visible_modules)
{
	int minor[MAX_DEV], n = devices_ok(minor);
	char bus[32], want[32], mask[16];
	uint32_t count;
	int fd;

	clear_masks();
	ck_assert_int_eq(hlrt_device_count(&count), HLRT_SUCCESS);
	ck_assert_uint_eq(count, (uint32_t)n);

	/* The last module alone: visible index 0 is that card. */
	snprintf(mask, sizeof(mask), "%d", n - 1);
	setenv("HABANA_VISIBLE_MODULES", mask, 1);
	ck_assert_int_eq(hlrt_device_count(&count), HLRT_SUCCESS);
	ck_assert_uint_eq(count, 1);
	ck_assert_uint_eq(visible_module_ok(0, bus, sizeof(bus)), (uint32_t)(n - 1));
	fd = hlthunk_open_control(minor[n - 1], NULL);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(hlthunk_get_pci_bus_id_from_fd(fd, want, sizeof(want)), 0);
	hlthunk_close(fd);
	ck_assert_str_eq(bus, want);
	ck_assert_int_eq(hlrt_device_acquire(1, &(hlrt_device *){ NULL }), HLRT_NO_DEVICE);

	/* "0,N-1": two cards, in module order whatever the list's order. */
	snprintf(mask, sizeof(mask), "%d,0", n - 1);
	setenv("HABANA_VISIBLE_MODULES", mask, 1);
	ck_assert_int_eq(hlrt_device_count(&count), HLRT_SUCCESS);
	ck_assert_uint_eq(count, 2);
	ck_assert_uint_eq(visible_module_ok(0, bus, sizeof(bus)), 0);
	ck_assert_uint_eq(visible_module_ok(1, bus, sizeof(bus)), (uint32_t)(n - 1));
	clear_masks();
}
END_TEST

START_TEST(visible_devices_and_both_masks)
{
	int minor[MAX_DEV], n = devices_ok(minor);
	char bus[32];
	uint32_t count;

	clear_masks();
	setenv("HABANA_VISIBLE_DEVICES", "1-7", 1);
	ck_assert_int_eq(hlrt_device_count(&count), HLRT_SUCCESS);
	ck_assert_uint_eq(count, (uint32_t)n - 1);
	ck_assert_uint_eq(visible_module_ok(0, bus, sizeof(bus)), 1);
	/* Both masks: a card must pass each. */
	setenv("HABANA_VISIBLE_MODULES", "0,1", 1);
	ck_assert_int_eq(hlrt_device_count(&count), HLRT_SUCCESS);
	ck_assert_uint_eq(count, 1);
	ck_assert_uint_eq(visible_module_ok(0, bus, sizeof(bus)), 1);
	/* A mask naming no present card leaves none visible. */
	setenv("HABANA_VISIBLE_MODULES", "63", 1);
	ck_assert_int_eq(hlrt_device_count(&count), HLRT_SUCCESS);
	ck_assert_uint_eq(count, 0);
	clear_masks();
}
END_TEST

START_TEST(malformed_masks_are_refused)
{
	static const char *const bad[] = { "1,,2", "0x1", "3-1", "-2", "one", "1-", "2," };
	hlrt_device *d = NULL;
	uint32_t count;
	size_t i;

	devices_ok((int[MAX_DEV]){ 0 });
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		clear_masks();
		setenv(i % 2 ? "HABANA_VISIBLE_DEVICES" : "HABANA_VISIBLE_MODULES", bad[i], 1);
		ck_assert_msg(hlrt_device_count(&count) == HLRT_INVALID_ARGUMENT,
			      "mask '%s' was accepted", bad[i]);
		ck_assert_msg(strstr(hlrt_last_error(), bad[i]) &&
			      strstr(hlrt_last_error(), "HABANA_VISIBLE_"),
			      "unclear error for '%s': %s", bad[i], hlrt_last_error());
		ck_assert_int_eq(hlrt_device_acquire(0, &d), HLRT_INVALID_ARGUMENT);
		ck_assert_int_eq(hlrt_device_acquire_by_module(0, &d), HLRT_INVALID_ARGUMENT);
	}
	/* And the runtime works again once the mask is fixed. */
	setenv("HABANA_VISIBLE_MODULES", "all", 1);
	ck_assert_int_eq(hlrt_device_count(&count), HLRT_SUCCESS);
	ck_assert_uint_ge(count, 2);
	clear_masks();
}
END_TEST

START_TEST(busy_device_through_the_runtime)
{
	int minor[MAX_DEV];
	hlrt_device *a, *b;
	uint32_t count;
	int fd;

	devices_ok(minor);
	clear_masks();
	/* Another process holds module 0: the runtime says so, module 1 still works. */
	fd = hlthunk_open_by_index(minor[0]);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(hlrt_device_acquire_by_module(0, &a), HLRT_DEVICE_BUSY);
	ck_assert_msg(hlrt_device_acquire_by_module(1, &b) == HLRT_SUCCESS, "%s",
		      hlrt_last_error());
	setenv("HABANA_VISIBLE_MODULES", "1", 1);
	ck_assert_int_eq(hlrt_device_count(&count), HLRT_SUCCESS);
	ck_assert_uint_eq(count, 1);
	ck_assert_int_eq(hlrt_device_release(b), HLRT_SUCCESS);
	ck_assert_int_eq(hlthunk_close(fd), 0);
	clear_masks();
}
END_TEST

/* ---- hl-smi on every card ($HL_SMI, default hl-smi from PATH) ------------ */

#define SMI_OUT_MAX	(64 * 1024)
static char smi_out[SMI_OUT_MAX];

static int run_smi(const char *args)
{
	const char *smi = getenv("HL_SMI");
	char cmd[512];
	size_t n;
	FILE *p;
	int status;

	snprintf(cmd, sizeof(cmd), "%s %s 2>&1", smi && *smi ? smi : "hl-smi", args);
	p = popen(cmd, "r");
	ck_assert_msg(p != NULL, "popen(%s): %s", cmd, strerror(errno));
	n = fread(smi_out, 1, sizeof(smi_out) - 1, p);
	smi_out[n] = '\0';
	status = pclose(p);
	ck_assert_msg(WIFEXITED(status), "%s did not exit normally", cmd);
	return WEXITSTATUS(status);
}

static int count_lines_with(const char *text, const char *needle)
{
	int n = 0;

	for (; (text = strstr(text, needle)); text += strlen(needle))
		n++;
	return n;
}

START_TEST(smi_shows_every_card)
{
	int minor[MAX_DEV], n = devices_ok(minor), i;
	char want[64], *line;

	ck_assert_int_eq(run_smi(""), 0);
	for (i = 0; i < n; i++) {
		snprintf(want, sizeof(want), "\n|   %d  ", i);
		ck_assert_msg(strstr(smi_out, want), "table has no row for AIP %d:\n%s", i, smi_out);
	}
	ck_assert_int_eq(run_smi("-L"), 0);
	ck_assert_int_eq(count_lines_with(smi_out, "] AIP (accel"), n);
	/* -Q: one row per card, index and module ID agreeing. */
	ck_assert_int_eq(run_smi("-Q index,module_id -f csv,noheader"), 0);
	for (i = 0, line = smi_out; i < n; i++) {
		int idx, mod;

		ck_assert_msg(sscanf(line, "%d, %d", &idx, &mod) == 2, "row %d: %s", i, line);
		ck_assert_int_eq(idx, i);
		ck_assert_int_eq(mod, i);
		line = strchr(line, '\n');
		ck_assert_ptr_nonnull(line);
		line++;
	}
	ck_assert_str_eq(line, "");
	/* -i picks one card among them. */
	snprintf(want, sizeof(want), "-i %d -Q index,module_id -f csv,noheader", n - 1);
	ck_assert_int_eq(run_smi(want), 0);
	snprintf(want, sizeof(want), "%d, %d\n", n - 1, n - 1);
	ck_assert_str_eq(smi_out, want);
	snprintf(want, sizeof(want), "-i %d", n);
	ck_assert_int_eq(run_smi(want), 1);
}
END_TEST

START_TEST(smi_nic_links)
{
	int minor[MAX_DEV], n = devices_ok(minor), i, j;
	char want[96], *row;

	/* Card 0's port p reaches module p + 1 (docs/nic.md's box topology). */
	ck_assert_int_eq(run_smi("-i 0 -q -d NIC"), 0);
	ck_assert_ptr_nonnull(strstr(smi_out, "    NIC\n"));
	for (i = 1; i < n; i++) {
		snprintf(want, sizeof(want), ": up, in-box, module %d port 0,", i);
		ck_assert_msg(strstr(smi_out, want), "no '%s' in:\n%s", want, smi_out);
	}
	ck_assert_ptr_nonnull(strstr(smi_out, "Port 9 "));
	ck_assert_int_eq(run_smi("topo -c"), 0);
	for (i = 0; i < n; i++) {
		snprintf(want, sizeof(want), "\nAIP%d ", i);
		row = strstr(smi_out, want);
		ck_assert_msg(row != NULL, "topo has no row for AIP%d:\n%s", i, smi_out);
		row += strlen(want);
		for (j = 0; j < n; j++) {
			char cell[16];

			ck_assert_int_eq(sscanf(row, "%15s", cell), 1);
			ck_assert_msg(!strcmp(cell, i == j ? "X" : "1"),
				      "AIP%d to AIP%d: '%s', expected one link up", i, j, cell);
			row += strspn(row, " ");
			row += strcspn(row, " ");
		}
	}
	ck_assert_int_eq(run_smi("topo -x"), 2);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("multi");
	TCase *tc = fixture_tcase("enumerate", NULL, NULL, TCASE_TIMEOUT_SHORT);

	tcase_add_test(tc, enumerate_in_module_order);
	suite_add_tcase(s, tc);
	tc = fixture_tcase("dma", NULL, NULL, TCASE_TIMEOUT_DMA);
	tcase_add_test(tc, each_device_alone);
	tcase_add_test(tc, all_devices_at_once);
	suite_add_tcase(s, tc);
	tc = fixture_tcase("open", NULL, NULL, TCASE_TIMEOUT_SHORT);
	tcase_add_test(tc, one_compute_user_per_device);
	tcase_add_test(tc, busy_device_through_the_runtime);
	suite_add_tcase(s, tc);
	tc = fixture_tcase("visibility", NULL, NULL, TCASE_TIMEOUT_SHORT);
	tcase_add_test(tc, visible_modules);
	tcase_add_test(tc, visible_devices_and_both_masks);
	tcase_add_test(tc, malformed_masks_are_refused);
	suite_add_tcase(s, tc);
	tc = fixture_tcase("smi", NULL, NULL, TCASE_TIMEOUT_SHORT);
	tcase_add_test(tc, smi_shows_every_card);
	tcase_add_test(tc, smi_nic_links);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
