// SPDX-License-Identifier: MIT
/*
 * libhlthunk pieces that need no device: bus ID parsing and formatting,
 * argument checks that answer before any ioctl.
 */
#include <errno.h>
#include <string.h>

#include "hlthunk.h"
#include "pci.h"	/* libhlthunk's private PCI address code */
#include "suites.h"

START_TEST(busid_full_form)
{
	struct hlthunk_pci_addr a;

	ck_assert_int_eq(hlthunk_pci_addr_parse("0001:af:1f.7", &a), 0);
	ck_assert_uint_eq(a.domain, 1);
	ck_assert_uint_eq(a.bus, 0xaf);
	ck_assert_uint_eq(a.dev, 0x1f);
	ck_assert_uint_eq(a.fn, 7);
}
END_TEST

START_TEST(busid_short_form_means_domain_0)
{
	struct hlthunk_pci_addr a = { .domain = 99 };

	ck_assert_int_eq(hlthunk_pci_addr_parse("00:03.0", &a), 0);
	ck_assert_uint_eq(a.domain, 0);
	ck_assert_uint_eq(a.bus, 0);
	ck_assert_uint_eq(a.dev, 3);
	ck_assert_uint_eq(a.fn, 0);
}
END_TEST

static const char *const bad_busids[] = {
	"", "00:03", "0000:00:03", "00:20.0", "00:03.8", "100:03.0", " 00:03.0",
	"00:03.0 ", "00:03.0x", "0x00:03.0", "-1:03.0", "0000:00:03.0.1", "zz:03.0",
	"0000::03.0", "accel0",
};

START_TEST(busid_malformed_is_einval)
{
	struct hlthunk_pci_addr a;

	ck_assert_msg(hlthunk_pci_addr_parse(bad_busids[_i], &a) == -EINVAL,
		      "accepted '%s'", bad_busids[_i]);
}
END_TEST

START_TEST(busid_format_round_trip)
{
	struct hlthunk_pci_addr a;
	char buf[HLTHUNK_BUS_ID_MAX_LEN];

	ck_assert_int_eq(hlthunk_pci_addr_parse("3:4.5", &a), 0);
	ck_assert_int_eq(hlthunk_pci_addr_format(&a, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "0000:03:04.5");
	ck_assert_int_eq(hlthunk_pci_addr_format(&a, buf, 12), -ERANGE);
}
END_TEST

START_TEST(public_busid_parser)
{
	char buf[HLTHUNK_BUS_ID_MAX_LEN];

	ck_assert_int_eq(hlthunk_parse_pci_bus_id("00:03.0", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "0000:00:03.0");
	ck_assert_int_eq(hlthunk_parse_pci_bus_id("0000:AF:1F.7", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "0000:af:1f.7");
	ck_assert_int_eq(hlthunk_parse_pci_bus_id("00:03.0", NULL, 0), 0);
	ck_assert_int_eq(hlthunk_parse_pci_bus_id("0", NULL, 0), -EINVAL);
	ck_assert_int_eq(hlthunk_parse_pci_bus_id(NULL, buf, sizeof(buf)), -EINVAL);
}
END_TEST

START_TEST(open_checks_index)
{
	ck_assert_int_eq(hlthunk_open_by_index(-1), -EINVAL);
	ck_assert_int_eq(hlthunk_open_by_index(HLTHUNK_MAX_MINOR), -EINVAL);
	ck_assert_int_eq(hlthunk_open_control(-1, NULL), -EINVAL);
	ck_assert_int_eq(hlthunk_open_control(HLTHUNK_MAX_MINOR, NULL), -EINVAL);
}
END_TEST

START_TEST(open_by_busid_checks_syntax)
{
	ck_assert_int_eq(hlthunk_open_by_busid("not-a-bus-id"), -EINVAL);
	ck_assert_int_eq(hlthunk_open_by_busid(NULL), -EINVAL);
	ck_assert_int_eq(hlthunk_get_device_index_from_pci_bus_id("00:03"), -EINVAL);
}
END_TEST

START_TEST(calls_on_a_bad_fd_fail_cleanly)
{
	struct hlthunk_hw_ip_info hw;
	char busid[HLTHUNK_BUS_ID_MAX_LEN];
	uint32_t status;

	ck_assert_int_eq(hlthunk_get_hw_ip_info(-1, &hw), -EBADF);
	ck_assert_int_eq(hlthunk_wait_for_cs(-1, 1, 0, &status), -EBADF);
	ck_assert_int_eq(hlthunk_get_pci_bus_id_from_fd(-1, busid, sizeof(busid)), -EBADF);
	ck_assert_int_eq(hlthunk_get_hw_ip_info(0, NULL), -EINVAL);
}
END_TEST

START_TEST(wait_for_interrupt_checks_arguments)
{
	uint64_t counter = 0, ts = 1;
	uint32_t status = 7;

	ck_assert_int_eq(hlthunk_wait_for_interrupt(-1, NULL, 1, 9, 0, &status), -EINVAL);
	ck_assert_int_eq(hlthunk_wait_for_interrupt(-1, &counter, 1, 9, 0, NULL), -EINVAL);
	/* Wider than the 12-bit ID field, but not UINT32_MAX (any). */
	ck_assert_int_eq(hlthunk_wait_for_interrupt(-1, &counter, 1, 0x1009, 0, &status),
			 -EINVAL);
	ck_assert_uint_eq(status, 7);
	/* Valid requests reach the ioctl. */
	ck_assert_int_eq(hlthunk_wait_for_interrupt(-1, &counter, 1, 9, 0, &status), -EBADF);
	ck_assert_int_eq(hlthunk_wait_for_interrupt_with_timestamp(-1, &counter, 1, UINT32_MAX,
								   0, &status, &ts), -EBADF);
	ck_assert_uint_eq(ts, 0);
}
END_TEST

START_TEST(nic_register_checks_arguments)
{
	uint64_t handle = 77;

	/* Nothing to register, or nowhere to return the handle: no ioctl. */
	ck_assert_int_eq(hlthunk_nic_register(-1, 0x20000000, 0, 0, 0, &handle), -EINVAL);
	ck_assert_int_eq(hlthunk_nic_register(-1, 0x20000000, 4096, 0, 0, NULL), -EINVAL);
	ck_assert_int_eq(hlthunk_nic_deregister(-1, 0), -EINVAL);
	ck_assert_uint_eq(handle, 77);
	/* Valid requests reach the ioctl: memory only, SOBs only, both. */
	ck_assert_int_eq(hlthunk_nic_register(-1, 0x20000000, 4096, 0, 0, &handle), -EBADF);
	ck_assert_int_eq(hlthunk_nic_register(-1, 0, 0, 64, 8, &handle), -EBADF);
	ck_assert_int_eq(hlthunk_nic_register(-1, 0x20000000, 4096, 64, 8, &handle), -EBADF);
	ck_assert_uint_eq(handle, 77);
	ck_assert_int_eq(hlthunk_nic_deregister(-1, 1), -EBADF);
}
END_TEST

START_TEST(cb_mmap_refuses_size_0)
{
	errno = 0;
	ck_assert_ptr_null(hlthunk_cb_mmap(-1, 0, 0));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

/*
 * hl-thunk's prototypes, written out: a signature that drifts from
 * hl-thunk's breaks this file's build (incompatible pointer types).
 */
static const struct {
	int (*open)(enum hlthunk_device_name, const char *);
	int (*open_control)(int, const char *);
	int (*get_info)(int, struct hl_info_args *);
	int (*cs_counters)(int, struct hl_info_cs_counters *);
	enum hl_device_status (*status_info)(int);
	uint64_t (*mem_alloc)(int, uint64_t, uint64_t, bool, bool);
	uint64_t (*mem_map)(int, uint64_t, uint64_t);
	uint64_t (*host_map)(int, void *, uint64_t, uint64_t);
	int (*mem_free)(int, uint64_t);
	int (*unmap)(int, uint64_t);
	enum hlthunk_device_name (*name_from_fd)(int);
	uint32_t (*id_from_fd)(int);
	int (*index_from_busid)(const char *);
	int (*busid_from_fd)(int, char *, int);
	int (*hw_ip)(int, struct hlthunk_hw_ip_info *);
	int (*dram_usage)(int, struct hlthunk_dram_usage_info *);
	bool (*is_idle)(int);
	int (*open_stats)(int, struct hlthunk_open_stats_info *);
	int (*device_count)(enum hlthunk_device_name);
	int (*request_cb)(int, uint32_t, uint64_t *);
	int (*destroy_cb)(int, uint64_t);
	int (*cb_usage)(int, uint64_t, uint32_t *);
	int (*cs)(int, struct hlthunk_cs_in *, struct hlthunk_cs_out *);
	int (*cs_timeout)(int, struct hlthunk_cs_in *, struct hlthunk_cs_out *, uint32_t);
	int (*wait_cs)(int, uint64_t, uint64_t, uint32_t *);
	int (*wait_cs_ts)(int, uint64_t, uint64_t, uint32_t *, uint64_t *);
	int (*dbg_open)(int, struct hlthunk_debugfs *);
	int (*dbg_read)(struct hlthunk_debugfs *, uint64_t, uint32_t *);
	int (*dbg_write)(struct hlthunk_debugfs *, uint64_t, uint32_t);
	int (*dbg_close)(struct hlthunk_debugfs *);
	char *(*version)(void);
	void *(*lib_malloc)(size_t);
	void (*lib_free)(void *);
	int (*debug)(int, struct hl_debug_args *);
} hl_thunk_api = {
	hlthunk_open, hlthunk_open_control, hlthunk_get_info, hlthunk_get_cs_counters_info,
	hlthunk_get_device_status_info, hlthunk_device_memory_alloc,
	hlthunk_device_memory_map, hlthunk_host_memory_map, hlthunk_device_memory_free,
	hlthunk_memory_unmap, hlthunk_get_device_name_from_fd, hlthunk_get_device_id_from_fd,
	hlthunk_get_device_index_from_pci_bus_id, hlthunk_get_pci_bus_id_from_fd,
	hlthunk_get_hw_ip_info, hlthunk_get_dram_usage, hlthunk_is_device_idle,
	hlthunk_get_open_stats, hlthunk_get_device_count, hlthunk_request_command_buffer,
	hlthunk_destroy_command_buffer, hlthunk_get_cb_usage_count,
	hlthunk_command_submission, hlthunk_command_submission_timeout,
	hlthunk_wait_for_cs, hlthunk_wait_for_cs_with_timestamp, hlthunk_debugfs_open,
	hlthunk_debugfs_read, hlthunk_debugfs_write, hlthunk_debugfs_close, hlthunk_get_version,
	hlthunk_malloc, hlthunk_free, hlthunk_debug,
};

/* hl-thunk's enum values, which programs may have stored. */
START_TEST(hl_thunk_names_and_values)
{
	ck_assert_ptr_nonnull(hl_thunk_api.open);
	ck_assert_int_eq(HLTHUNK_DEVICE_GOYA, 0);
	ck_assert_int_eq(HLTHUNK_DEVICE_GAUDI, 2);
	ck_assert_int_eq(HLTHUNK_DEVICE_INVALID, 3);
	ck_assert_int_eq(HLTHUNK_DEVICE_DONT_CARE, 4);
	ck_assert_int_eq(HLTHUNK_DEVICE_GAUDI2, 5);
	ck_assert_int_eq(HLTHUNK_DEVICE_MAX, 9);
}
END_TEST

START_TEST(version_is_a_copy_to_free)
{
	char *a = hlthunk_get_version();
	char *b = hlthunk_get_version();

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_ne(a, b);
	ck_assert_str_eq(a, b);
	ck_assert_str_eq(a, "2.0.0");
	hlthunk_free(a);
	hlthunk_free(b);
}
END_TEST

START_TEST(open_by_name_checks_the_name)
{
	ck_assert_int_eq(hlthunk_open(HLTHUNK_DEVICE_MAX, NULL), -EINVAL);
	ck_assert_int_eq(hlthunk_open((enum hlthunk_device_name)-1, NULL), -EINVAL);
	/* gaudisim devices are Gaudis: no other ASIC is ever found. */
	ck_assert_int_eq(hlthunk_open(HLTHUNK_DEVICE_GOYA, NULL), -ENODEV);
	ck_assert_int_eq(hlthunk_open(HLTHUNK_DEVICE_GAUDI2, NULL), -ENODEV);
	ck_assert_int_eq(hlthunk_open(HLTHUNK_DEVICE_DONT_CARE, "nonsense"), -EINVAL);
	ck_assert_int_eq(hlthunk_open_control(0, "0000:00"), -EINVAL);
	ck_assert_int_eq(hlthunk_open_control_by_bus_id(NULL), -EINVAL);
	ck_assert_int_eq(hlthunk_open_control_by_name(HLTHUNK_DEVICE_MAX), -EINVAL);
	ck_assert_int_eq(hlthunk_open_control_by_name(HLTHUNK_DEVICE_GOYA), -ENODEV);
	ck_assert_int_eq(hlthunk_get_device_count(HLTHUNK_DEVICE_GOYA), 0);
	ck_assert_int_eq(hlthunk_get_device_count(HLTHUNK_DEVICE_MAX), -EINVAL);
}
END_TEST

/* The handle / address calls answer 0 and leave the reason in errno. */
START_TEST(memory_calls_return_0_with_errno)
{
	char page[64];

	errno = 0;
	ck_assert_uint_eq(hlthunk_device_memory_alloc(-1, 4096, 0, false, false), 0);
	ck_assert_int_eq(errno, EBADF);
	errno = 0;
	ck_assert_uint_eq(hlthunk_device_memory_alloc(-1, 4096, 0, false, true), 0);
	ck_assert_int_eq(errno, EOPNOTSUPP);
	errno = 0;
	ck_assert_uint_eq(hlthunk_device_memory_map(-1, 1, 0), 0);
	ck_assert_int_eq(errno, EBADF);
	errno = 0;
	ck_assert_uint_eq(hlthunk_host_memory_map(-1, page, 0, sizeof(page)), 0);
	ck_assert_int_eq(errno, EBADF);
}
END_TEST

START_TEST(fd_queries_on_a_bad_fd)
{
	struct gaudisim_info_args args = { .op = GAUDISIM_INFO_HW_IP_INFO };
	struct hlthunk_cs_in in = { 0 };
	struct hlthunk_cs_out out;
	struct hlthunk_debugfs dbg;
	uint64_t ts = 99;
	uint32_t status, usage;

	ck_assert_uint_eq(hlthunk_get_device_id_from_fd(-1), 0);
	ck_assert_int_eq(hlthunk_get_device_name_from_fd(-1), HLTHUNK_DEVICE_INVALID);
	ck_assert(!hlthunk_is_device_idle(-1));
	ck_assert_int_eq(hlthunk_get_device_status_info(-1), GAUDISIM_DEVICE_STATUS_MALFUNCTION);
	ck_assert_int_eq(hlthunk_get_info(-1, &args), -EBADF);
	ck_assert_int_eq(hlthunk_get_info(0, NULL), -EINVAL);
	ck_assert_int_eq(hlthunk_debug(0, NULL), -EINVAL);
	ck_assert_int_eq(hlthunk_wait_for_cs_with_timestamp(-1, 1, 0, &status, &ts), -EBADF);
	ck_assert_uint_eq(ts, 0);
	ck_assert_int_eq(hlthunk_wait_for_cs_with_timestamp(-1, 1, 0, &status, NULL), -EINVAL);
	ck_assert_int_eq(hlthunk_command_submission_timeout(-1, &in, &out, 5), -EBADF);
	ck_assert_int_eq(hlthunk_get_cb_usage_count(-1, 1, &usage), -EBADF);
	ck_assert_int_eq(hlthunk_get_cb_usage_count(-1, 1, NULL), -EINVAL);
	ck_assert_int_eq(hlthunk_get_pci_bus_id_from_fd(0, (char[4]){ 0 }, 0), -EINVAL);
	ck_assert_int_eq(hlthunk_debugfs_open(-1, &dbg), -EBADF);
	ck_assert_int_eq(hlthunk_debugfs_open(0, NULL), -EINVAL);
	dbg.addr_fd = dbg.data_fd = dbg.clk_gate_fd = -1;
	ck_assert_int_eq(hlthunk_debugfs_read(&dbg, 0, &status), -EINVAL);
	ck_assert_int_eq(hlthunk_debugfs_write(&dbg, 0, 1), -EINVAL);
	ck_assert_int_eq(hlthunk_debugfs_close(&dbg), 0);
}
END_TEST

Suite *thunk_suite(void)
{
	Suite *s = suite_create("thunk");
	TCase *tc = tcase_create("no-device");

	tcase_add_test(tc, busid_full_form);
	tcase_add_test(tc, busid_short_form_means_domain_0);
	tcase_add_loop_test(tc, busid_malformed_is_einval, 0,
			    (int)(sizeof(bad_busids) / sizeof(bad_busids[0])));
	tcase_add_test(tc, busid_format_round_trip);
	tcase_add_test(tc, public_busid_parser);
	tcase_add_test(tc, open_checks_index);
	tcase_add_test(tc, open_by_busid_checks_syntax);
	tcase_add_test(tc, calls_on_a_bad_fd_fail_cleanly);
	tcase_add_test(tc, wait_for_interrupt_checks_arguments);
	tcase_add_test(tc, nic_register_checks_arguments);
	tcase_add_test(tc, cb_mmap_refuses_size_0);
	tcase_add_test(tc, hl_thunk_names_and_values);
	tcase_add_test(tc, version_is_a_copy_to_free);
	tcase_add_test(tc, open_by_name_checks_the_name);
	tcase_add_test(tc, memory_calls_return_0_with_errno);
	tcase_add_test(tc, fd_queries_on_a_bad_fd);
	suite_add_tcase(s, tc);
	return s;
}
