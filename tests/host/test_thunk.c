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
	ck_assert_int_eq(hlthunk_open(-1), -EINVAL);
	ck_assert_int_eq(hlthunk_open(HLTHUNK_MAX_MINOR), -EINVAL);
	ck_assert_int_eq(hlthunk_open_control(-1), -EINVAL);
	ck_assert_int_eq(hlthunk_open_control(HLTHUNK_MAX_MINOR), -EINVAL);
}
END_TEST

START_TEST(open_by_busid_checks_syntax)
{
	ck_assert_int_eq(hlthunk_open_by_busid("not-a-bus-id"), -EINVAL);
	ck_assert_int_eq(hlthunk_open_by_busid(NULL), -EINVAL);
	ck_assert_int_eq(hlthunk_get_device_index_by_busid("00:03"), -EINVAL);
}
END_TEST

START_TEST(calls_on_a_bad_fd_fail_cleanly)
{
	struct gaudisim_info_hw_ip_info hw;
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

START_TEST(cb_mmap_refuses_size_0)
{
	errno = 0;
	ck_assert_ptr_null(hlthunk_cb_mmap(-1, 0, 0));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

START_TEST(version_is_set)
{
	ck_assert_ptr_nonnull(hlthunk_get_version());
	ck_assert_int_gt(strlen(hlthunk_get_version()), 0);
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
	tcase_add_test(tc, cb_mmap_refuses_size_0);
	tcase_add_test(tc, version_is_set);
	suite_add_tcase(s, tc);
	return s;
}
