// SPDX-License-Identifier: MIT
/*
 * sysfs attributes of the device (habanalabs' names): each reads what the
 * driver knows, the writable ones take good values and refuse bad ones
 * with an error while the device keeps working, and only root may write.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "hw/gaudisim_hw_telemetry.h"
#include "sysfs_util.h"

static char path[PATH_LEN], text[TEXT_LEN];

static const char *attr(const char *name)
{
	dev_attr_path(path, sizeof(path), name);
	return path;
}

static const char *read_attr_ok(const char *name)
{
	int rc = read_text(attr(name), text, sizeof(text));

	ck_assert_msg(rc == 0, "read %s: %s", name, strerror(-rc));
	return text;
}

START_TEST(identity)
{
	char busid[HLTHUNK_BUS_ID_MAX_LEN];
	unsigned int major, minor, build;
	char tail;
	int fd = open_control_ok();

	ck_assert_int_eq(hlthunk_get_pci_bus_id_from_fd(fd, busid, sizeof(busid)), 0);
	hlthunk_close(fd);
	ck_assert_str_eq(read_attr_ok("pci_addr"), busid);
	ck_assert_str_eq(read_attr_ok("device_type"), "GAUDI");
	ck_assert_str_eq(read_attr_ok("status"), "operational");
	ck_assert_str_eq(read_attr_ok("module_id"), "0");
	ck_assert_str_eq(read_attr_ok("soft_reset_cnt"), "0");
	/* The model's firmware is 1.2.3 (docs/device.md, FW_VERSION). */
	ck_assert_msg(sscanf(read_attr_ok("cpucp_ver"), "gaudisim-fw-%u.%u.%u%c", &major, &minor,
			     &build, &tail) == 3, "cpucp_ver '%s'", text);
	ck_assert_uint_eq(major, 1);
	ck_assert_uint_eq(minor, 2);
	ck_assert_uint_eq(build, 3);
	ck_assert_str_eq(read_attr_ok("armcp_ver"), "gaudisim-fw-1.2.3");
	/* habanalabs' "0x<timestamp><version>"; the model's CPLD is 0x10. */
	ck_assert_str_eq(read_attr_ok("cpld_ver"), "0x0000000000000010");
}
END_TEST

/* Project-only serial_number and uuid: the same identity as HW_IP_EXT. */
START_TEST(board_identity)
{
	struct gaudisim_info_hw_ip_ext ext;
	const uint8_t *u = ext.uuid;
	char want[40];
	int fd = open_control_ok();

	ck_assert_int_eq(hlthunk_get_info_op(fd, GAUDISIM_INFO_HW_IP_EXT, &ext, sizeof(ext)), 0);
	hlthunk_close(fd);
	ck_assert_str_eq(read_attr_ok("serial_number"), ext.serial);
	/* vm.sh gives module 0 this serial; qemu-device derives it from the UUID. */
	ck_assert_str_eq(text, "GS67736D0000");
	snprintf(want, sizeof(want),
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
		 u[12], u[13], u[14], u[15]);
	ck_assert_str_eq(read_attr_ok("uuid"), want);
	ck_assert_str_eq(text, "67736d00-0000-4000-8000-000000000000");
}
END_TEST

START_TEST(max_power_rw)
{
	long long def = read_number_ok(attr("max_power"));

	ck_assert_int_eq(def, GAUDISIM_TEL_POWER_MAX_DEFAULT_MW);
	write_number_ok(attr("max_power"), 300000);
	write_number_ok(attr("max_power"), def);
}
END_TEST

static const struct {
	const char *attr, *value;
	int err;
} bad_writes[] = {
	{ "max_power", "abc", -EINVAL },
	{ "max_power", "1000", -ERANGE },		/* below idle power */
	{ "max_power", "600001", -ERANGE },		/* above the card's limit */
	{ "max_power", "-5", -EINVAL },
	{ "clk_max_freq_mhz", "0", -ERANGE },
	{ "clk_max_freq_mhz", "2201", -ERANGE },
	{ "clk_max_freq_mhz", "fast", -EINVAL },
	{ "hard_reset", "0", -EINVAL },
	{ "hard_reset", "2", -EINVAL },
	{ "hard_reset", "yes", -EINVAL },
	{ "soft_reset", "7", -EINVAL },
	{ "status", "operational", -EACCES },		/* read-only attributes */
	{ "clk_cur_freq_mhz", "100", -EACCES },
	{ "hard_reset_cnt", "0", -EACCES },
	{ "device_type", "GAUDI2", -EACCES },
};

START_TEST(bad_write_refused)
{
	char before[TEXT_LEN] = "", after[TEXT_LEN] = "";
	long long resets = read_number_ok(attr("hard_reset_cnt"));
	bool readable = strcmp(bad_writes[_i].attr, "hard_reset") &&
			strcmp(bad_writes[_i].attr, "soft_reset");
	int rc;

	if (readable)
		ck_assert_int_eq(read_text(attr(bad_writes[_i].attr), before, sizeof(before)), 0);
	rc = write_text(attr(bad_writes[_i].attr), bad_writes[_i].value);
	ck_assert_msg(rc == bad_writes[_i].err, "write '%s' to %s: %d (%s), want %d",
		      bad_writes[_i].value, bad_writes[_i].attr, rc, strerror(-rc),
		      bad_writes[_i].err);
	if (readable && strcmp(bad_writes[_i].attr, "clk_cur_freq_mhz")) {
		ck_assert_int_eq(read_text(attr(bad_writes[_i].attr), after, sizeof(after)), 0);
		ck_assert_str_eq(after, before);
	}
	ck_assert_int_eq(read_number_ok(attr("hard_reset_cnt")), resets);
	ck_assert_str_eq(read_attr_ok("status"), "operational");
	device_works_ok();
}
END_TEST

START_TEST(clock_limit_rw)
{
	long long def = read_number_ok(attr("clk_max_freq_mhz"));
	long long cur = read_number_ok(attr("clk_cur_freq_mhz"));

	ck_assert_int_gt(def, 0);
	ck_assert_int_le(def, GAUDISIM_TEL_CLOCK_LIMIT_MHZ);
	ck_assert_int_gt(cur, 0);
	ck_assert_int_le(cur, def);
	write_number_ok(attr("clk_max_freq_mhz"), 1200);
	/* The engine clock follows the new limit at once when idle. */
	ck_assert_int_le(read_number_ok(attr("clk_cur_freq_mhz")), 1200);
	write_number_ok(attr("clk_max_freq_mhz"), def);
}
END_TEST

static void reset_through(const char *name)
{
	long long before = read_number_ok(attr("hard_reset_cnt"));
	int rc = write_text(attr(name), "1");

	ck_assert_msg(rc == 0, "write 1 to %s: %s", name, strerror(-rc));
	ck_assert_int_eq(read_number_ok(attr("hard_reset_cnt")), before + 1);
	ck_assert_str_eq(read_attr_ok("status"), "operational");
	/* Gaudi has no soft reset: it is done as a hard one. */
	ck_assert_str_eq(read_attr_ok("soft_reset_cnt"), "0");
	device_works_ok();
}

START_TEST(hard_reset_resets)
{
	reset_through("hard_reset");
}
END_TEST

START_TEST(soft_reset_resets)
{
	reset_through("soft_reset");
}
END_TEST

/* A reset while this process holds the device: it may go on afterwards. */
START_TEST(reset_while_held)
{
	struct hbm_buf hbm;
	int fd = open_compute_ok();

	hbm_alloc_ok(fd, &hbm, 2 * MiB);
	ck_assert_int_eq(write_text(attr("hard_reset"), "1"), 0);
	memset_ok(fd, hbm.addr, 0x11, 4096, QUEUE_H2D);
	hbm_free_ok(fd, &hbm);
	hlthunk_close(fd);
}
END_TEST

static const struct {
	const char *attr;
	int flags, err;
} nobody_opens[] = {
	{ "status", O_RDONLY, 0 },
	{ "max_power", O_RDONLY, 0 },
	{ "clk_cur_freq_mhz", O_RDONLY, 0 },
	{ "serial_number", O_RDONLY, 0 },
	{ "uuid", O_RDONLY, 0 },
	{ "cpld_ver", O_RDONLY, 0 },
	{ "max_power", O_WRONLY, EACCES },
	{ "clk_max_freq_mhz", O_WRONLY, EACCES },
	{ "hard_reset", O_WRONLY, EACCES },
	{ "soft_reset", O_WRONLY, EACCES },
};

START_TEST(unprivileged_access)
{
	int err = open_errno_as_nobody(attr(nobody_opens[_i].attr), nobody_opens[_i].flags);

	ck_assert_msg(err == nobody_opens[_i].err, "nobody opening %s (%s): %s, want %s",
		      nobody_opens[_i].attr, nobody_opens[_i].flags == O_RDONLY ? "read" : "write",
		      strerror(err), strerror(nobody_opens[_i].err));
}
END_TEST

static Suite *sysfs_suite(void)
{
	Suite *s = suite_create("sysfs");
	TCase *tc = tcase_create("attributes");

	tcase_set_timeout(tc, TCASE_TIMEOUT_DMA);
	tcase_add_test(tc, identity);
	tcase_add_test(tc, board_identity);
	tcase_add_test(tc, max_power_rw);
	tcase_add_test(tc, clock_limit_rw);
	tcase_add_loop_test(tc, bad_write_refused, 0,
			    (int)(sizeof(bad_writes) / sizeof(bad_writes[0])));
	tcase_add_test(tc, hard_reset_resets);
	tcase_add_test(tc, soft_reset_resets);
	tcase_add_test(tc, reset_while_held);
	tcase_add_loop_test(tc, unprivileged_access, 0,
			    (int)(sizeof(nobody_opens) / sizeof(nobody_opens[0])));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(sysfs_suite());
}
