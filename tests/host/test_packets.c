// SPDX-License-Identifier: MIT
/*
 * The packet builders of hlthunk_packets.h must produce the bytes the
 * packet contract describes: little-endian dwords, opcode in ctl[28:24].
 * Expected bytes are written out by hand from the contract.
 */
#include <string.h>

#include "hlthunk_packets.h"
#include "suites.h"

static uint8_t cb[64];
static struct hlthunk_cb_writer w;

static void setup(void)
{
	memset(cb, 0xcc, sizeof(cb));
	hlthunk_cbw_init(&w, cb, sizeof(cb));
}

#define ck_assert_bytes(got, want) \
	ck_assert_mem_eq((got), (want), sizeof(want))

START_TEST(nop_bytes)
{
	static const uint8_t want[] = { 0, 0, 0, 0, 0x00, 0x00, 0x00, 0x0a };

	ck_assert_int_eq(hlthunk_cbw_nop(&w, 0), 0);
	ck_assert_uint_eq(w.used, GAUDISIM_PKT_SIZE_NOP);
	ck_assert_bytes(cb, want);
	ck_assert_uint_eq(cb[8], 0xcc);	/* nothing written past the packet */
}
END_TEST

START_TEST(nop_with_barriers)
{
	/* EB bit 29 + MB bit 31 on top of opcode 0xA: ctl 0xAA000000. */
	static const uint8_t want[] = { 0, 0, 0, 0, 0x00, 0x00, 0x00, 0xaa };

	ck_assert_int_eq(hlthunk_cbw_nop(&w, GAUDISIM_PKT_CTL_EB | GAUDISIM_PKT_CTL_MB), 0);
	ck_assert_bytes(cb, want);
}
END_TEST

START_TEST(lin_dma_bytes)
{
	static const uint8_t want[] = {
		0x00, 0x10, 0x00, 0x00,				/* tsize 0x1000 */
		0x08, 0x00, 0x00, 0x09,				/* LIN_DMA, LIN bit */
		0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,	/* src */
		0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00,	/* dst */
	};

	ck_assert_int_eq(hlthunk_cbw_lin_dma(&w, 0x1122334455667788ULL, 0x20000000ULL,
					     0x1000, 0, 0), 0);
	ck_assert_uint_eq(w.used, GAUDISIM_PKT_SIZE_LIN_DMA);
	ck_assert_bytes(cb, want);
}
END_TEST

START_TEST(lin_dma_decodes_with_contract_macros)
{
	uint32_t ctl;

	ck_assert_int_eq(hlthunk_cbw_lin_dma(&w, 1, 2, 3, 0, GAUDISIM_PKT_CTL_EB), 0);
	memcpy(&ctl, cb + 4, 4);
	ctl = le32toh(ctl);
	ck_assert_uint_eq(GAUDISIM_PKT_OPCODE(ctl), GAUDISIM_PKT_LIN_DMA);
	ck_assert(ctl & GAUDISIM_LIN_DMA_CTL_LIN);
	ck_assert(ctl & GAUDISIM_PKT_CTL_EB);
	/* Nothing outside what the device implements besides the header bits. */
	ck_assert_uint_eq(ctl & ~(GAUDISIM_PKT_CTL_OPCODE_MASK | GAUDISIM_PKT_CTL_EB |
				  GAUDISIM_PKT_CTL_RB | GAUDISIM_PKT_CTL_MB |
				  GAUDISIM_LIN_DMA_CTL_SUPPORTED), 0);
}
END_TEST

START_TEST(memset_bytes)
{
	static const uint8_t want[] = {
		0x00, 0x00, 0x20, 0x00,				/* tsize 2 MiB */
		0x18, 0x00, 0x00, 0x09,				/* LIN + MEMSET */
		0x5a, 0, 0, 0, 0, 0, 0, 0,			/* src = fill value */
		0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00,	/* dst */
	};

	ck_assert_int_eq(hlthunk_cbw_memset(&w, 0x40000000ULL, 0x5a, 0x200000, 0), 0);
	ck_assert_bytes(cb, want);
}
END_TEST

START_TEST(msg_long_bytes)
{
	static const uint8_t want[] = {
		0xef, 0xbe, 0xad, 0xde,				/* value */
		0x00, 0x00, 0x00, 0x03,				/* MSG_LONG, op write */
		0x40, 0x30, 0x20, 0x10, 0x00, 0x00, 0x01, 0x00,	/* addr */
	};

	ck_assert_int_eq(hlthunk_cbw_msg_long(&w, 0x0001000010203040ULL, 0xdeadbeef, 0), 0);
	ck_assert_uint_eq(w.used, GAUDISIM_PKT_SIZE_MSG_LONG);
	ck_assert_bytes(cb, want);
}
END_TEST

START_TEST(msg_long_timestamp_bytes)
{
	static const uint8_t want[] = {
		0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x10, 0x03,				/* op 1 in [21:20] */
		0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00,
	};

	ck_assert_int_eq(hlthunk_cbw_msg_long_timestamp(&w, 0x0001000000000008ULL, 0), 0);
	ck_assert_bytes(cb, want);
}
END_TEST

START_TEST(user_interrupt_bytes)
{
	static const uint8_t want[] = {
		0x09, 0x00, 0x00, 0x00,				/* interrupt ID */
		0x00, 0x00, 0x00, 0x83,				/* MSG_LONG, MB */
		0x84, 0x00, 0x00, 0xfc, 0x7f, 0x00, 0x00, 0x00,	/* CFG + USER_INTR */
	};

	ck_assert_int_eq(hlthunk_cbw_user_interrupt(&w, 9), 0);
	ck_assert_uint_eq(w.used, GAUDISIM_PKT_SIZE_MSG_LONG);
	ck_assert_bytes(cb, want);
}
END_TEST

START_TEST(fence_bytes)
{
	/* id 2 [31:30], target 5 [23:16], dec_val 1 [3:0]: cfg 0x80050001. */
	static const uint8_t want[] = { 0x01, 0x00, 0x05, 0x80, 0x00, 0x00, 0x00, 0x08 };

	ck_assert_int_eq(hlthunk_cbw_fence(&w, 2, 5, 1, 0), 0);
	ck_assert_uint_eq(w.used, GAUDISIM_PKT_SIZE_FENCE);
	ck_assert_bytes(cb, want);
}
END_TEST

START_TEST(fence_fields_are_masked)
{
	/* Out-of-range arguments must not spill into neighbouring fields. */
	static const uint8_t want[] = { 0x0f, 0x00, 0xff, 0xc0, 0x00, 0x00, 0x00, 0x08 };

	ck_assert_int_eq(hlthunk_cbw_fence(&w, 0xff, 0xfff, 0xff, 0), 0);
	ck_assert_bytes(cb, want);
}
END_TEST

START_TEST(wreg32_bytes)
{
	static const uint8_t want[] = { 0x07, 0x00, 0x00, 0x00, 0x34, 0x12, 0x00, 0x01 };

	ck_assert_int_eq(hlthunk_cbw_wreg32(&w, 0x1234, 7, 0), 0);
	ck_assert_bytes(cb, want);
}
END_TEST

START_TEST(msg_short_bytes)
{
	uint32_t value, ctl;

	ck_assert_int_eq(hlthunk_cbw_msg_short(&w, 1, 0x124, 0xdeadbeef, GAUDISIM_PKT_CTL_MB), 0);
	ck_assert_uint_eq(w.used, GAUDISIM_PKT_SIZE_MSG_SHORT);
	memcpy(&value, cb, 4);
	memcpy(&ctl, cb + 4, 4);
	ck_assert_uint_eq(le32toh(value), 0xdeadbeef);
	ctl = le32toh(ctl);
	ck_assert_uint_eq(GAUDISIM_PKT_OPCODE(ctl), GAUDISIM_PKT_MSG_SHORT);
	ck_assert_uint_eq((ctl & GAUDISIM_MSG_SHORT_CTL_BASE_MASK) >> GAUDISIM_MSG_SHORT_CTL_BASE_SHIFT, 1);
	ck_assert_uint_eq(ctl & GAUDISIM_MSG_SHORT_CTL_OFFSET_MASK, 0x124);
	ck_assert_uint_ne(ctl & GAUDISIM_PKT_CTL_MB, 0);
}
END_TEST

START_TEST(packets_append_in_order)
{
	uint32_t ctl;

	ck_assert_int_eq(hlthunk_cbw_nop(&w, 0), 0);
	ck_assert_int_eq(hlthunk_cbw_lin_dma(&w, 0, 0, 8, 0, 0), 0);
	ck_assert_int_eq(hlthunk_cbw_msg_long(&w, 0, 0, 0), 0);
	ck_assert_uint_eq(w.used, GAUDISIM_PKT_SIZE_NOP + GAUDISIM_PKT_SIZE_LIN_DMA +
				  GAUDISIM_PKT_SIZE_MSG_LONG);
	memcpy(&ctl, cb + GAUDISIM_PKT_SIZE_NOP + 4, 4);
	ck_assert_uint_eq(GAUDISIM_PKT_OPCODE(le32toh(ctl)), GAUDISIM_PKT_LIN_DMA);
	memcpy(&ctl, cb + GAUDISIM_PKT_SIZE_NOP + GAUDISIM_PKT_SIZE_LIN_DMA + 4, 4);
	ck_assert_uint_eq(GAUDISIM_PKT_OPCODE(le32toh(ctl)), GAUDISIM_PKT_MSG_LONG);
	ck_assert_uint_eq(w.used % GAUDISIM_PKT_ALIGN, 0);
}
END_TEST

START_TEST(full_buffer_is_refused)
{
	hlthunk_cbw_init(&w, cb, 16);
	ck_assert_int_eq(hlthunk_cbw_lin_dma(&w, 0, 0, 8, 0, 0), -ENOSPC);
	ck_assert_uint_eq(w.used, 0);
	ck_assert_uint_eq(cb[0], 0xcc);
	ck_assert_int_eq(hlthunk_cbw_nop(&w, 0), 0);
	ck_assert_int_eq(hlthunk_cbw_nop(&w, 0), 0);
	ck_assert_int_eq(hlthunk_cbw_nop(&w, 0), -ENOSPC);
	ck_assert_int_eq(hlthunk_cbw_msg_long(&w, 0, 0, 0), -ENOSPC);
	ck_assert_uint_eq(w.used, 16);
	ck_assert_uint_eq(cb[16], 0xcc);
}
END_TEST

Suite *packets_suite(void)
{
	Suite *s = suite_create("packets");
	TCase *tc = tcase_create("builders");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, nop_bytes);
	tcase_add_test(tc, nop_with_barriers);
	tcase_add_test(tc, lin_dma_bytes);
	tcase_add_test(tc, lin_dma_decodes_with_contract_macros);
	tcase_add_test(tc, memset_bytes);
	tcase_add_test(tc, msg_long_bytes);
	tcase_add_test(tc, msg_long_timestamp_bytes);
	tcase_add_test(tc, user_interrupt_bytes);
	tcase_add_test(tc, fence_bytes);
	tcase_add_test(tc, fence_fields_are_masked);
	tcase_add_test(tc, wreg32_bytes);
	tcase_add_test(tc, msg_short_bytes);
	tcase_add_test(tc, packets_append_in_order);
	tcase_add_test(tc, full_buffer_is_refused);
	suite_add_tcase(s, tc);
	return s;
}
