/* SPDX-License-Identifier: MIT */
/*
 * LIN_DMA data movement: host<->HBM, HBM->HBM, SRAM, host->host, memset,
 * single bytes, unaligned ranges, zero size, 64 MiB transfers compared byte
 * for byte, and the DMA byte counter.
 */
#include <stdlib.h>
#include <string.h>

#include "gsim_test.h"

#define Q		0
#define HBM_A		(GAUDISIM_HBM_USER_BASE)
#define HBM_B		(GAUDISIM_HBM_USER_BASE + (128ull << 20))

static void fill_pattern(uint8_t *p, uint64_t len, uint32_t seed)
{
	uint32_t x = seed | 1;
	uint64_t i;

	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (uint8_t)x;
	}
}

static void dma_setup(void)
{
	th_setup();
	q_setup(Q, 3);
}

static void dma_setup_large(void)
{
	th_setup_large();
	q_setup(Q, 3);
}

/* Run one job of LIN_DMAs and check it completed cleanly. */
static void run_job(struct cb *cb)
{
	uint32_t slot = job_submit(Q, cb);

	run_all();
	ck_assert_uint_eq(cq_entry(Q, slot), cq_ok(slot));
}

static void copy_job(uint64_t src, uint64_t dst, uint32_t size)
{
	struct cb cb = cb_new(128);

	cb_lin_dma(&cb, src, dst, size, 0);
	run_job(&cb);
}

START_TEST(test_host_hbm_roundtrip)
{
	const uint32_t size = 3 * 4096 + 512;
	uint8_t *src = host_ptr(T_DATA_OFF);
	uint8_t *back = host_ptr(T_DATA_OFF + (4u << 20));

	fill_pattern(src, size, 1);
	copy_job(host_dev(T_DATA_OFF), HBM_A, size);
	ck_assert_mem_eq(hbm_ptr(HBM_A), src, size);
	copy_job(HBM_A, HBM_B, size);
	ck_assert_mem_eq(hbm_ptr(HBM_B), src, size);
	copy_job(HBM_B, host_dev(T_DATA_OFF + (4u << 20)), size);
	ck_assert_mem_eq(back, src, size);
	ck_assert_uint_eq(back[size], 0);
	ck_assert_uint_eq(hbm_ptr(HBM_B)[size], 0);
	ck_assert_uint_eq(rd(GAUDISIM_REG_DMA_BYTES_LO), 3 * size);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

START_TEST(test_sram_paths)
{
	const uint32_t size = 8192;
	uint8_t *src = host_ptr(T_DATA_OFF);
	uint64_t sram_end = GAUDISIM_SRAM_BASE + GAUDISIM_SRAM_SIZE;

	fill_pattern(src, size, 2);
	/* Host -> last bytes of SRAM -> HBM -> host. */
	copy_job(host_dev(T_DATA_OFF), sram_end - size, size);
	copy_job(sram_end - size, HBM_A + 4, size);
	ck_assert_mem_eq(hbm_ptr(HBM_A + 4), src, size);
	copy_job(sram_end - size, host_dev(T_DATA_OFF + size), size);
	ck_assert_mem_eq(host_ptr(T_DATA_OFF + size), src, size);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

START_TEST(test_memset)
{
	struct cb cb = cb_new(256);
	const uint32_t host_len = 3u << 20;	/* larger than the bounce buffer */
	uint8_t *host = host_ptr(T_DATA_OFF);
	uint32_t i;

	memset(hbm_ptr(HBM_A), 0x11, 2048);
	memset(host_ptr(T_DATA_OFF), 0x22, host_len + 2);
	/* Only the low byte of src is the fill value. */
	cb_lin_dma(&cb, 0xdeadbe5aull, HBM_A + 1, 1000, GAUDISIM_LIN_DMA_CTL_MEMSET);
	cb_memset(&cb, host_dev(T_DATA_OFF + 1), 0x9d, host_len);
	cb_memset(&cb, GAUDISIM_SRAM_BASE + 16, 0x77, 16);
	run_job(&cb);

	ck_assert_uint_eq(hbm_ptr(HBM_A)[0], 0x11);
	for (i = 1; i <= 1000; i++)
		ck_assert_uint_eq(hbm_ptr(HBM_A)[i], 0x5a);
	ck_assert_uint_eq(hbm_ptr(HBM_A)[1001], 0x11);
	ck_assert_uint_eq(host[0], 0x22);
	for (i = 1; i <= host_len; i++)
		if (host[i] != 0x9d)
			ck_abort_msg("host byte %u not filled", i);
	ck_assert_uint_eq(host[host_len + 1], 0x22);
	ck_assert_uint_eq(rd(GAUDISIM_REG_DMA_BYTES_LO), 1000 + host_len + 16);

	/* SRAM content is visible to a following copy. */
	memset(host, 0, 32);
	copy_job(GAUDISIM_SRAM_BASE + 8, host_dev(T_DATA_OFF), 32);
	for (i = 0; i < 32; i++)
		ck_assert_uint_eq(host_ptr(T_DATA_OFF)[i], i >= 8 && i < 24 ? 0x77 : 0);
}
END_TEST

START_TEST(test_single_byte_and_unaligned)
{
	uint8_t *src = host_ptr(T_DATA_OFF);
	uint8_t *dst = host_ptr(T_DATA_OFF + 0x1000);
	uint32_t i;

	fill_pattern(src, 256, 3);
	copy_job(host_dev(T_DATA_OFF + 7), HBM_A + 3, 1);
	ck_assert_uint_eq(hbm_ptr(HBM_A)[3], src[7]);
	ck_assert_uint_eq(hbm_ptr(HBM_A)[2], 0);
	ck_assert_uint_eq(hbm_ptr(HBM_A)[4], 0);

	copy_job(host_dev(T_DATA_OFF + 3), HBM_A + 0x105, 13);
	copy_job(HBM_A + 0x105, host_dev(T_DATA_OFF + 0x1000 + 1), 13);
	for (i = 0; i < 13; i++)
		ck_assert_uint_eq(dst[1 + i], src[3 + i]);
	ck_assert_uint_eq(dst[0], 0);
	ck_assert_uint_eq(dst[14], 0);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

START_TEST(test_zero_size)
{
	struct cb cb = cb_new(128);

	/* tsize 0 is a no-op even with addresses that would be refused. */
	cb_lin_dma(&cb, ~0ull, ~0ull, 0, 0);
	cb_lin_dma(&cb, 0, ~0ull, 0, GAUDISIM_LIN_DMA_CTL_MEMSET);
	run_job(&cb);
	ck_assert_uint_eq(rd(GAUDISIM_REG_DMA_BYTES_LO), 0);
	ck_assert_uint_eq(rd(GAUDISIM_REG_ERR_DMA_CNT), 0);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

START_TEST(test_host_to_host)
{
	const uint32_t size = (2u << 20) + 100;	/* several bounce buffers */

	fill_pattern(host_ptr(T_DATA_OFF), size, 4);
	copy_job(host_dev(T_DATA_OFF), host_dev(T_DATA_OFF + (8u << 20)), size);
	ck_assert_mem_eq(host_ptr(T_DATA_OFF + (8u << 20)), host_ptr(T_DATA_OFF), size);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

START_TEST(test_overlapping_copy)
{
	uint8_t ref[4096 + 100];

	fill_pattern(hbm_ptr(HBM_A), sizeof(ref), 5);
	memcpy(ref, hbm_ptr(HBM_A), sizeof(ref));
	copy_job(HBM_A, HBM_A + 100, 4096);
	ck_assert_mem_eq(hbm_ptr(HBM_A + 100), ref, 4096);
	ck_assert_mem_eq(hbm_ptr(HBM_A), ref, 100);
}
END_TEST

START_TEST(test_dst_context_id_high_ignored)
{
	uint8_t *src = host_ptr(T_DATA_OFF);

	fill_pattern(src, 64, 6);
	/* dst [63:56] carries context_id_high, not address bits. */
	copy_job(host_dev(T_DATA_OFF), HBM_A | 0xab00000000000000ull, 64);
	ck_assert_mem_eq(hbm_ptr(HBM_A), src, 64);
}
END_TEST

START_TEST(test_large_64mib)
{
	const uint32_t size = 64u << 20;
	const uint64_t src_off = T_DATA_OFF, back_off = T_DATA_OFF + (72u << 20);
	uint8_t *src = host_ptr(src_off);
	uint8_t *back = host_ptr(back_off);
	struct cb cb = cb_new(256);
	unsigned int calls;
	uint64_t bytes;
	uint32_t slot;

	fill_pattern(src, size, 7);
	cb_lin_dma(&cb, host_dev(src_off), HBM_A, size, 0);
	cb_lin_dma(&cb, HBM_A, HBM_B, size, 0);
	cb_lin_dma(&cb, HBM_B, host_dev(back_off), size, 0);
	slot = job_submit(Q, &cb);
	calls = run_all();
	ck_assert_uint_eq(cq_entry(Q, slot), cq_ok(slot));

	/* 192 MiB do not fit in one run call. */
	ck_assert_uint_ge(calls, 3);
	/* Host<->HBM moves in large chunks straight from/to the host. */
	ck_assert_uint_ge(T->max_dma_len, 32u << 20);
	ck_assert(memcmp(hbm_ptr(HBM_A), src, size) == 0);
	ck_assert(memcmp(hbm_ptr(HBM_B), src, size) == 0);
	ck_assert(memcmp(back, src, size) == 0);
	bytes = rd(GAUDISIM_REG_DMA_BYTES_LO) | (uint64_t)rd(GAUDISIM_REG_DMA_BYTES_HI) << 32;
	ck_assert_uint_eq(bytes, 3ull * size);
	ck_assert_uint_eq(T->errors, 0);
}
END_TEST

START_TEST(test_large_overlapping_copy)
{
	const uint32_t size = 100u << 20, shift = 1u << 20;
	uint32_t *w = (uint32_t *)hbm_ptr(HBM_A);
	uint32_t i;

	/* Larger than one call's budget: must still behave like memmove. */
	for (i = 0; i < (size + shift) / 4; i++)
		w[i] = i;
	copy_job(HBM_A, HBM_A + shift, size);
	for (i = 0; i < size / 4; i++)
		if (w[shift / 4 + i] != i)
			ck_abort_msg("word %u is %u", i, w[shift / 4 + i]);
	for (i = 0; i < shift / 4; i++)
		ck_assert_uint_eq(w[i], i);
}
END_TEST

Suite *dma_suite(void)
{
	Suite *s = suite_create("dma");
	TCase *tc = tcase_create("dma");
	TCase *big = tcase_create("dma-large");

	tcase_add_checked_fixture(tc, dma_setup, th_teardown);
	tcase_add_test(tc, test_host_hbm_roundtrip);
	tcase_add_test(tc, test_sram_paths);
	tcase_add_test(tc, test_memset);
	tcase_add_test(tc, test_single_byte_and_unaligned);
	tcase_add_test(tc, test_zero_size);
	tcase_add_test(tc, test_host_to_host);
	tcase_add_test(tc, test_overlapping_copy);
	tcase_add_test(tc, test_dst_context_id_high_ignored);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(big, dma_setup_large, th_teardown);
	tcase_set_timeout(big, 30);
	tcase_add_test(big, test_large_64mib);
	tcase_add_test(big, test_large_overlapping_copy);
	suite_add_tcase(s, big);
	return s;
}
