// SPDX-License-Identifier: MIT
/*
 * DMA through the external queues: host->HBM->host round trips at many
 * sizes and alignments (byte-for-byte, with guard bytes around the
 * destination), every queue, memset, HBM->HBM copies, several packets per
 * CB and several chunks per CS.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define GUARD		64
#define GUARD_BYTE	0xa5

struct round_trip {
	uint32_t size;
	uint32_t src_off;	/* in the source host buffer */
	uint32_t hbm_off;	/* in the HBM allocation */
	uint32_t dst_off;	/* in the destination host buffer (>= GUARD) */
};

static const struct round_trip trips[] = {
	{ 1, 0, 0, GUARD },
	{ 1, 4095, 7, GUARD + 1 },
	{ 3, 1, 1, GUARD + 5 },
	{ 7, 4093, 4095, GUARD + 3 },
	{ 4095, 1, 3, GUARD + 7 },
	{ 4097, 7, 4093, GUARD + 3 },
	{ 4096, 0, 0, GUARD },
	{ 4096, 2048, 4096 - 1, GUARD + 2047 },
	{ 65536 + 17, 13, 65536 - 9, GUARD + 101 },
	{ 1 << 20, 0, 0, GUARD },
	{ (1 << 20) + 13, 13, (2 << 20) - 5, GUARD + 101 },
	{ 64 << 20, 0, 0, GUARD },
	{ (64 << 20) - 3, 3, 1, GUARD + 1 },
};

static void round_trip(const struct round_trip *t, uint32_t h2d, uint32_t d2h)
{
	struct host_buf src, dst;
	struct hbm_buf hbm;
	uint64_t dst_len = (uint64_t)t->dst_off + t->size + GUARD;
	long diff;

	host_buf_map_ok(dev_fd, &src, (uint64_t)t->src_off + t->size);
	host_buf_map_ok(dev_fd, &dst, dst_len);
	hbm_alloc_ok(dev_fd, &hbm, (uint64_t)t->hbm_off + t->size);
	fill_pattern(src.ptr, src.size, t->size ^ t->src_off);
	memset(dst.ptr, GUARD_BYTE, dst.size);

	dma_ok(dev_fd, src.va + t->src_off, hbm.addr + t->hbm_off, t->size, h2d);
	dma_ok(dev_fd, hbm.addr + t->hbm_off, dst.va + t->dst_off, t->size, d2h);

	diff = first_difference(src.ptr + t->src_off, dst.ptr + t->dst_off, t->size);
	ck_assert_msg(diff < 0, "size %u: first difference at byte %ld", t->size, diff);
	diff = first_byte_not(dst.ptr, t->dst_off, GUARD_BYTE);
	ck_assert_msg(diff < 0, "guard byte %ld before the copy changed", diff);
	diff = first_byte_not(dst.ptr + t->dst_off + t->size,
			      dst.size - t->dst_off - t->size, GUARD_BYTE);
	ck_assert_msg(diff < 0, "guard byte %ld after the copy changed", diff);

	hbm_free_ok(dev_fd, &hbm);
	host_buf_release(dev_fd, &dst);
	host_buf_release(dev_fd, &src);
}

START_TEST(round_trip_sizes)
{
	round_trip(&trips[_i], QUEUE_H2D, QUEUE_D2H);
}
END_TEST

START_TEST(round_trip_each_queue)
{
	static const struct round_trip t = { 65536 + 5, 3, 11, GUARD + 1 };
	uint32_t q = (uint32_t)_i;

	/* Down on queue q, up on the other engine's matching stream. */
	round_trip(&t, q, (q + GAUDISIM_STREAMS_PER_QMAN) % GAUDISIM_NUM_EXT_QUEUES);
}
END_TEST

START_TEST(memset_hbm)
{
	struct host_buf buf;
	struct hbm_buf hbm;
	long diff;

	host_buf_map_ok(dev_fd, &buf, 1 * MiB);
	hbm_alloc_ok(dev_fd, &hbm, 1 * MiB);
	memset_ok(dev_fd, hbm.addr, 0x5a, 1 * MiB, QUEUE_H2D);
	memset(buf.ptr, 0, buf.size);
	dma_ok(dev_fd, hbm.addr, buf.va, 1 * MiB, QUEUE_D2H);
	diff = first_byte_not(buf.ptr, 1 * MiB, 0x5a);
	ck_assert_msg(diff < 0, "byte %ld is 0x%02x", diff, diff < 0 ? 0 : buf.ptr[diff]);
	hbm_free_ok(dev_fd, &hbm);
	host_buf_release(dev_fd, &buf);
}
END_TEST

START_TEST(memset_inside_data)
{
	struct host_buf src, dst;
	struct hbm_buf hbm;
	const uint32_t size = 64 * 1024, off = 13, len = 1001;
	long diff;

	host_buf_map_ok(dev_fd, &src, size);
	host_buf_map_ok(dev_fd, &dst, size);
	hbm_alloc_ok(dev_fd, &hbm, size);
	fill_pattern(src.ptr, size, 77);
	dma_ok(dev_fd, src.va, hbm.addr, size, QUEUE_H2D);
	memset_ok(dev_fd, hbm.addr + off, 0xe7, len, QUEUE_H2D);
	dma_ok(dev_fd, hbm.addr, dst.va, size, QUEUE_D2H);
	/* Only [off, off + len) changed. */
	diff = first_difference(dst.ptr, src.ptr, off);
	ck_assert_msg(diff < 0, "byte %ld before the memset changed", diff);
	diff = first_byte_not(dst.ptr + off, len, 0xe7);
	ck_assert_msg(diff < 0, "memset byte %ld not set", diff);
	diff = first_difference(dst.ptr + off + len, src.ptr + off + len, size - off - len);
	ck_assert_msg(diff < 0, "byte %ld after the memset changed", diff);
	hbm_free_ok(dev_fd, &hbm);
	host_buf_release(dev_fd, &dst);
	host_buf_release(dev_fd, &src);
}
END_TEST

START_TEST(hbm_to_hbm)
{
	const uint32_t size = 4 * MiB + 123;
	struct host_buf src, dst;
	struct hbm_buf a, b;
	long diff;

	host_buf_map_ok(dev_fd, &src, size);
	host_buf_map_ok(dev_fd, &dst, size);
	hbm_alloc_ok(dev_fd, &a, size + 64);
	hbm_alloc_ok(dev_fd, &b, size + 64);
	fill_pattern(src.ptr, size, 4242);
	dma_ok(dev_fd, src.va, a.addr + 5, size, QUEUE_H2D);
	dma_ok(dev_fd, a.addr + 5, b.addr + 17, size, QUEUE_H2D + 1);
	dma_ok(dev_fd, b.addr + 17, dst.va, size, QUEUE_D2H);
	diff = first_difference(src.ptr, dst.ptr, size);
	ck_assert_msg(diff < 0, "first difference at byte %ld", diff);
	hbm_free_ok(dev_fd, &b);
	hbm_free_ok(dev_fd, &a);
	host_buf_release(dev_fd, &dst);
	host_buf_release(dev_fd, &src);
}
END_TEST

START_TEST(many_packets_in_one_cb)
{
	const uint32_t piece = 4096 + 8, pieces = 32;
	struct host_buf src, dst;
	struct hbm_buf hbm;
	struct test_cb cb;
	uint32_t i;
	long diff;

	host_buf_map_ok(dev_fd, &src, piece * pieces);
	host_buf_map_ok(dev_fd, &dst, piece * pieces);
	hbm_alloc_ok(dev_fd, &hbm, 2 * piece * pieces);
	fill_pattern(src.ptr, src.size, 9);
	memset(dst.ptr, 0, dst.size);
	cb_create_ok(dev_fd, &cb, 4096);
	/* Scatter to every other slot in HBM, in reverse order. */
	for (i = 0; i < pieces; i++)
		ck_assert_int_eq(hlthunk_cbw_lin_dma(&cb.w, src.va + i * piece,
						     hbm.addr + 2 * (pieces - 1 - i) * piece,
						     piece, 0, 0), 0);
	run_cb_ok(dev_fd, &cb, QUEUE_H2D, WAIT_US_DMA);
	cb_reset(&cb);
	for (i = 0; i < pieces; i++)
		ck_assert_int_eq(hlthunk_cbw_lin_dma(&cb.w,
						     hbm.addr + 2 * (pieces - 1 - i) * piece,
						     dst.va + i * piece, piece, 0, 0), 0);
	run_cb_ok(dev_fd, &cb, QUEUE_D2H, WAIT_US_DMA);
	diff = first_difference(src.ptr, dst.ptr, piece * pieces);
	ck_assert_msg(diff < 0, "first difference at byte %ld", diff);
	cb_destroy_ok(dev_fd, &cb);
	hbm_free_ok(dev_fd, &hbm);
	host_buf_release(dev_fd, &dst);
	host_buf_release(dev_fd, &src);
}
END_TEST

START_TEST(chunks_on_all_queues_in_one_cs)
{
	const uint32_t part = 256 * 1024;
	struct gaudisim_cs_chunk chunks[GAUDISIM_NUM_EXT_QUEUES];
	struct test_cb cbs[GAUDISIM_NUM_EXT_QUEUES];
	struct hlthunk_cs_in in = { .chunks_execute = chunks,
				    .num_chunks_execute = GAUDISIM_NUM_EXT_QUEUES };
	struct hlthunk_cs_out out;
	struct host_buf src, dst;
	struct hbm_buf hbm;
	uint32_t q;
	int pass;
	long diff;

	host_buf_map_ok(dev_fd, &src, part * GAUDISIM_NUM_EXT_QUEUES);
	host_buf_map_ok(dev_fd, &dst, part * GAUDISIM_NUM_EXT_QUEUES);
	hbm_alloc_ok(dev_fd, &hbm, part * GAUDISIM_NUM_EXT_QUEUES);
	fill_pattern(src.ptr, src.size, 31337);
	memset(dst.ptr, 0, dst.size);
	for (q = 0; q < GAUDISIM_NUM_EXT_QUEUES; q++)
		cb_create_ok(dev_fd, &cbs[q], 64);
	/* Pass 0: each queue moves its part down; pass 1: each moves it back up. */
	for (pass = 0; pass < 2; pass++) {
		for (q = 0; q < GAUDISIM_NUM_EXT_QUEUES; q++) {
			uint64_t host = (pass ? dst.va : src.va) + q * part;
			uint64_t dev = hbm.addr + q * part;

			cb_reset(&cbs[q]);
			ck_assert_int_eq(hlthunk_cbw_lin_dma(&cbs[q].w, pass ? dev : host,
							     pass ? host : dev, part, 0, 0), 0);
			chunks[q] = make_chunk(cbs[q].handle, q, cbs[q].w.used);
		}
		ck_assert_int_eq(hlthunk_command_submission(dev_fd, &in, &out), 0);
		wait_completed_ok(dev_fd, out.seq, WAIT_US_DMA);
	}
	diff = first_difference(src.ptr, dst.ptr, src.size);
	ck_assert_msg(diff < 0, "first difference at byte %ld", diff);
	for (q = 0; q < GAUDISIM_NUM_EXT_QUEUES; q++)
		cb_destroy_ok(dev_fd, &cbs[q]);
	hbm_free_ok(dev_fd, &hbm);
	host_buf_release(dev_fd, &dst);
	host_buf_release(dev_fd, &src);
}
END_TEST

START_TEST(hbm_keeps_data_between_cs)
{
	/* Write, then read back with many NOP CSs in between on other queues. */
	const uint32_t size = 8192;
	struct host_buf src, dst;
	struct hbm_buf hbm;
	struct test_cb nop;
	int i;

	host_buf_map_ok(dev_fd, &src, size);
	host_buf_map_ok(dev_fd, &dst, size);
	hbm_alloc_ok(dev_fd, &hbm, size);
	fill_pattern(src.ptr, size, 5);
	dma_ok(dev_fd, src.va, hbm.addr, size, QUEUE_H2D);
	cb_create_ok(dev_fd, &nop, 64);
	ck_assert_int_eq(hlthunk_cbw_nop(&nop.w, 0), 0);
	for (i = 0; i < 32; i++)
		run_cb_ok(dev_fd, &nop, (uint32_t)i % GAUDISIM_NUM_EXT_QUEUES, WAIT_US_SHORT);
	dma_ok(dev_fd, hbm.addr, dst.va, size, QUEUE_D2H);
	ck_assert_int_eq(first_difference(src.ptr, dst.ptr, size), -1);
	cb_destroy_ok(dev_fd, &nop);
	hbm_free_ok(dev_fd, &hbm);
	host_buf_release(dev_fd, &dst);
	host_buf_release(dev_fd, &src);
}
END_TEST

START_TEST(round_trip_through_sram)
{
	struct hlthunk_hw_ip_info hw;
	const uint32_t size = 1 * MiB + 3;
	struct host_buf src, dst;
	long diff;

	hw_ip_ok(dev_fd, &hw);
	ck_assert_uint_ge(hw.sram_size, size + 5);
	host_buf_map_ok(dev_fd, &src, size);
	host_buf_map_ok(dev_fd, &dst, size);
	fill_pattern(src.ptr, size, 0x5a5a);
	memset(dst.ptr, 0, dst.size);
	dma_ok(dev_fd, src.va, hw.sram_base_address + 5, size, QUEUE_H2D);
	dma_ok(dev_fd, hw.sram_base_address + 5, dst.va, size, QUEUE_D2H);
	diff = first_difference(src.ptr, dst.ptr, size);
	ck_assert_msg(diff < 0, "first difference at byte %ld", diff);
	host_buf_release(dev_fd, &dst);
	host_buf_release(dev_fd, &src);
}
END_TEST

START_TEST(memset_host_buffer)
{
	struct host_buf buf;
	long diff;

	host_buf_map_ok(dev_fd, &buf, 64 * KiB);
	memset(buf.ptr, 0x11, buf.size);
	memset_ok(dev_fd, buf.va + 100, 0xc3, 3000, QUEUE_D2H);
	diff = first_byte_not(buf.ptr, 100, 0x11);
	ck_assert_msg(diff < 0, "byte %ld before the memset changed", diff);
	diff = first_byte_not(buf.ptr + 100, 3000, 0xc3);
	ck_assert_msg(diff < 0, "memset byte %ld not set", diff);
	diff = first_byte_not(buf.ptr + 3100, buf.size - 3100, 0x11);
	ck_assert_msg(diff < 0, "byte %ld after the memset changed", diff);
	host_buf_release(dev_fd, &buf);
}
END_TEST

START_TEST(msg_long_to_hbm)
{
	struct host_buf buf;
	struct hbm_buf hbm;
	struct test_cb cb;
	uint32_t got[4];

	host_buf_map_ok(dev_fd, &buf, 4096);
	hbm_alloc_ok(dev_fd, &hbm, 4096);
	memset_ok(dev_fd, hbm.addr, 0, 64, QUEUE_H2D);
	cb_create_ok(dev_fd, &cb, 64);
	ck_assert_int_eq(hlthunk_cbw_msg_long(&cb.w, hbm.addr + 4, 0xfeedf00d, 0), 0);
	ck_assert_int_eq(hlthunk_cbw_msg_long(&cb.w, hbm.addr + 12, 0x12345678,
					      GAUDISIM_PKT_CTL_MB), 0);
	run_cb_ok(dev_fd, &cb, QUEUE_H2D, WAIT_US_SHORT);
	dma_ok(dev_fd, hbm.addr, buf.va, sizeof(got), QUEUE_D2H);
	memcpy(got, buf.ptr, sizeof(got));
	ck_assert_uint_eq(got[0], 0);
	ck_assert_uint_eq(got[1], 0xfeedf00d);
	ck_assert_uint_eq(got[2], 0);
	ck_assert_uint_eq(got[3], 0x12345678);
	cb_destroy_ok(dev_fd, &cb);
	hbm_free_ok(dev_fd, &hbm);
	host_buf_release(dev_fd, &buf);
}
END_TEST

START_TEST(unmap_while_in_flight)
{
	const uint32_t size = 16 * MiB;
	struct host_buf src, dst;
	struct hbm_buf hbm;
	struct test_cb cb;
	struct gaudisim_cs_chunk chunk;
	uint8_t *want;
	uint64_t seq;

	host_buf_map_ok(dev_fd, &src, size);
	hbm_alloc_ok(dev_fd, &hbm, size);
	fill_pattern(src.ptr, size, 99);
	cb_create_ok(dev_fd, &cb, 64);
	ck_assert_int_eq(hlthunk_cbw_lin_dma(&cb.w, src.va, hbm.addr, size, 0, 0), 0);
	chunk = make_chunk(cb.handle, QUEUE_H2D, cb.w.used);
	ck_assert_int_eq(submit_chunk(dev_fd, &chunk, &seq), 0);
	/* Give the mapping and the memory back at once: the job keeps its pages. */
	host_buf_release(dev_fd, &src);
	wait_completed_ok(dev_fd, seq, WAIT_US_DMA);

	want = malloc(size);
	ck_assert_ptr_nonnull(want);
	fill_pattern(want, size, 99);
	host_buf_map_ok(dev_fd, &dst, size);
	dma_ok(dev_fd, hbm.addr, dst.va, size, QUEUE_D2H);
	ck_assert_int_eq(first_difference(want, dst.ptr, size), -1);
	free(want);
	cb_destroy_ok(dev_fd, &cb);
	hbm_free_ok(dev_fd, &hbm);
	host_buf_release(dev_fd, &dst);
}
END_TEST

START_TEST(remap_after_unmap)
{
	const uint32_t size = 256 * KiB;
	struct host_buf a, b;
	struct hbm_buf hbm;
	int round;

	hbm_alloc_ok(dev_fd, &hbm, size);
	for (round = 0; round < 8; round++) {
		host_buf_map_ok(dev_fd, &a, size);
		host_buf_map_ok(dev_fd, &b, size);
		fill_pattern(a.ptr, size, (uint32_t)round);
		memset(b.ptr, 0, size);
		dma_ok(dev_fd, a.va, hbm.addr, size, QUEUE_H2D);
		dma_ok(dev_fd, hbm.addr, b.va, size, QUEUE_D2H);
		ck_assert_int_eq(first_difference(a.ptr, b.ptr, size), -1);
		host_buf_release(dev_fd, &b);
		host_buf_release(dev_fd, &a);
	}
	hbm_free_ok(dev_fd, &hbm);
}
END_TEST

static Suite *dma_suite(void)
{
	Suite *s = suite_create("dma");
	TCase *trip = compute_tcase("round-trip", TCASE_TIMEOUT_DMA);
	TCase *ops = compute_tcase("operations", TCASE_TIMEOUT_DMA);

	tcase_add_loop_test(trip, round_trip_sizes, 0, (int)(sizeof(trips) / sizeof(trips[0])));
	tcase_add_loop_test(trip, round_trip_each_queue, 0, GAUDISIM_NUM_EXT_QUEUES);
	suite_add_tcase(s, trip);

	tcase_add_test(ops, memset_hbm);
	tcase_add_test(ops, memset_inside_data);
	tcase_add_test(ops, hbm_to_hbm);
	tcase_add_test(ops, many_packets_in_one_cb);
	tcase_add_test(ops, chunks_on_all_queues_in_one_cs);
	tcase_add_test(ops, hbm_keeps_data_between_cs);
	tcase_add_test(ops, round_trip_through_sram);
	tcase_add_test(ops, memset_host_buffer);
	tcase_add_test(ops, msg_long_to_hbm);
	tcase_add_test(ops, unmap_while_in_flight);
	tcase_add_test(ops, remap_after_unmap);
	suite_add_tcase(s, ops);
	return s;
}

int main(void)
{
	return run_suite(dma_suite());
}
