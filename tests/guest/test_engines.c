// SPDX-License-Identifier: MIT
/*
 * Internal queues, the sync manager, the event queue and the device MMU
 * through the driver: CBs placed in HBM by an external LIN_DMA run on an
 * HBM-DMA queue; external and internal streams wait for each other through
 * sync objects, monitors and fences (Gaudi's signal/wait); a host buffer
 * mapped with MAP + USERPTR is reachable from an internal queue through its
 * device VA, and so is an internal CB or CP_DMA buffer placed in one; an
 * unmapped VA faults (event counted, CS aborted, device recovers); a GEMM
 * on the MME queue matches a CPU reference; device events are counted in
 * INFO HW_EVENTS(_AGGREGATE).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "hw/gaudisim_hw_eq.h"
#include "hw/gaudisim_hw_mme.h"
#include "hw/gaudisim_hw_sync.h"
#include "hw/gaudisim_hw_telemetry.h"

#define COPY_SIZE	(256 * KiB)
#define CB_BYTES	4096

/* Queues the tests use. */
#define QUEUE_INT	GAUDISIM_QUEUE_ID_DMA_2_0
#define QUEUE_EXT_A	GAUDISIM_QUEUE_ID_DMA_0_0
#define QUEUE_EXT_B	(GAUDISIM_QUEUE_ID_DMA_0_0 + 1)

static struct gaudisim_info_sync_manager sm;

static void sync_info_ok(void)
{
	memset(&sm, 0, sizeof(sm));
	ck_assert_int_eq(hlthunk_get_info_op(dev_fd, GAUDISIM_INFO_SYNC_MANAGER, &sm,
					  sizeof(sm)), 0);
}

/* User SOB / monitor number i (from the first ones the driver hands out). */
static uint32_t user_sob(uint32_t i)
{
	return sm.first_available_sync_object + i;
}

static uint32_t user_mon(uint32_t i)
{
	return sm.first_available_monitor + i;
}

/* Zero SOBs and arm monitors (one CS on an external queue, run to completion). */
static void arm_monitors_ok(const uint32_t *sobs, const uint32_t *mons,
			    const uint32_t *queues, unsigned int n)
{
	struct test_cb cb;
	unsigned int i;

	cb_create_ok(dev_fd, &cb, CB_BYTES);
	for (i = 0; i < n; i++)
		cbw_sob(&cb.w, sobs[i], GAUDISIM_SYNC_SOB_SET(0), 0);
	for (i = 0; i < n; i++)
		cbw_monitor_to_fence(&cb.w, mons[i], sobs[i], queues[i]);
	run_cb_ok(dev_fd, &cb, QUEUE_EXT_A, WAIT_US_SHORT);
	cb_destroy_ok(dev_fd, &cb);
}

/* ---- Discovery ----------------------------------------------------------- */

START_TEST(every_queue_is_present)
{
	struct gaudisim_info_hw_ip_ext hw;
	uint32_t q;

	ck_assert_int_eq(hlthunk_get_hw_ip_ext(dev_fd, &hw), 0);
	for (q = 0; q < GAUDISIM_QUEUE_ID_SIZE; q++) {
		int present = !!(hw.queue_mask[q / 64] & (1ULL << (q % 64)));

		ck_assert_msg(present == (gaudisim_queue_engine(q) >= 0),
			      "queue %u: present %d", q, present);
	}
}
END_TEST

START_TEST(sync_manager_info)
{
	struct gaudisim_info_hw_ip_ext ext;

	sync_info_ok();
	ck_assert_uint_eq(sm.first_available_sync_object, GAUDISIM_SYNC_FIRST_USER_SOB);
	ck_assert_uint_eq(sm.first_available_monitor, GAUDISIM_SYNC_FIRST_USER_MON);
	ck_assert_uint_eq(sm.first_available_cq, 0);
	ck_assert_uint_eq(sm.reserved, 0);
	ck_assert_int_eq(hlthunk_get_hw_ip_ext(dev_fd, &ext), 0);
	ck_assert_uint_eq(ext.num_sync_objects, GAUDISIM_SYNC_NUM_SOBS);
	ck_assert_uint_eq(ext.num_monitors, GAUDISIM_SYNC_NUM_MONITORS);
}
END_TEST

/* ---- Refusals ------------------------------------------------------------ */

START_TEST(internal_chunk_refusals)
{
	struct gaudisim_cs_chunk chunks[2];
	struct hbm_buf hbm;
	struct test_cb cb;
	uint64_t seq;

	hbm_alloc_ok(dev_fd, &hbm, 2 * MiB);
	cb_create_ok(dev_fd, &cb, CB_BYTES);
	ck_assert_int_eq(hlthunk_cbw_nop(&cb.w, 0), 0);
	chunks[1] = make_chunk(cb.handle, QUEUE_EXT_A, cb.w.used);

	/* A CS of internal jobs only: nothing would tell when it is done. */
	chunks[0] = make_chunk(hbm.addr, QUEUE_INT, 64);
	ck_assert_int_eq(submit_chunks(chunks, 1, 0, &seq), -EINVAL);
	/* CB in the driver's reserved HBM. */
	chunks[0] = make_chunk(GAUDISIM_HBM_USER_BASE - 4096, QUEUE_INT, 64);
	ck_assert_int_eq(submit_chunks(chunks, 2, 0, &seq), -EINVAL);
	/* CB running past the end of HBM / in host memory / misaligned. */
	chunks[0] = make_chunk(GAUDISIM_HBM_USER_BASE - 8, QUEUE_INT, 64);
	ck_assert_int_eq(submit_chunks(chunks, 2, 0, &seq), -EINVAL);
	chunks[0] = make_chunk(GAUDISIM_HOST_BASE, QUEUE_INT, 64);	/* physical */
	ck_assert_int_eq(submit_chunks(chunks, 2, 0, &seq), -EINVAL);
	chunks[0] = make_chunk(GAUDISIM_HOST_VA_BASE + GAUDISIM_HOST_VA_SIZE - 32, QUEUE_INT, 64);
	ck_assert_int_eq(submit_chunks(chunks, 2, 0, &seq), -EINVAL);
	chunks[0] = make_chunk(hbm.addr + 4, QUEUE_INT, 64);
	ck_assert_int_eq(submit_chunks(chunks, 2, 0, &seq), -EINVAL);
	/* Too long a CB. */
	chunks[0] = make_chunk(hbm.addr, QUEUE_INT, GAUDISIM_CB_MAX_SIZE + 8);
	ck_assert_int_eq(submit_chunks(chunks, 2, 0, &seq), -EINVAL);

	cb_destroy_ok(dev_fd, &cb);
	hbm_free_ok(dev_fd, &hbm);
}
END_TEST

/* habanalabs' USER_ALLOC_CB chunk flag: internal queues only, as Gaudi's. */
START_TEST(user_alloc_cb_flag_on_internal_queues_only)
{
	struct gaudisim_cs_chunk chunks[2];
	struct hlthunk_cb_writer iw;
	uint8_t icb[64];
	struct hbm_buf hbm;
	struct test_cb cb;
	uint32_t status;
	uint64_t seq;

	hbm_alloc_ok(dev_fd, &hbm, 2 * MiB);
	hlthunk_cbw_init(&iw, icb, sizeof(icb));
	ck_assert_int_eq(hlthunk_cbw_nop(&iw, 0), 0);
	put_in_hbm_ok(iw.base, iw.used, hbm.addr);
	cb_create_ok(dev_fd, &cb, CB_BYTES);
	ck_assert_int_eq(hlthunk_cbw_nop(&cb.w, 0), 0);

	chunks[0] = make_chunk(hbm.addr, QUEUE_INT, iw.used);
	chunks[0].cs_chunk_flags = GAUDISIM_CS_CHUNK_FLAGS_USER_ALLOC_CB;
	chunks[1] = make_chunk(cb.handle, QUEUE_EXT_A, cb.w.used);
	ck_assert_int_eq(submit_chunks(chunks, 2, 0, &seq), 0);
	status = ~0u;
	ck_assert_int_eq(hlthunk_wait_for_cs(dev_fd, seq, WAIT_US_SHORT, &status), 0);
	ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);

	/* Unknown flags, and the flag on an external queue's kernel CB. */
	chunks[0].cs_chunk_flags = 0x2;
	ck_assert_int_eq(submit_chunks(chunks, 2, 0, &seq), -EINVAL);
	chunks[0].cs_chunk_flags = 0;
	chunks[1].cs_chunk_flags = GAUDISIM_CS_CHUNK_FLAGS_USER_ALLOC_CB;
	ck_assert_int_eq(submit_chunks(chunks, 2, 0, &seq), -EINVAL);

	cb_destroy_ok(dev_fd, &cb);
	hbm_free_ok(dev_fd, &hbm);
}
END_TEST

START_TEST(external_sync_packets_checked)
{
	struct test_cb cb;
	struct gaudisim_cs_chunk chunk;
	uint64_t seq;

	sync_info_ok();
	cb_create_ok(dev_fd, &cb, CB_BYTES);

	/* The driver's sync objects and monitors are not the user's. */
	cbw_sob(&cb.w, GAUDISIM_SYNC_DRIVER_SOB_FIRST, GAUDISIM_SYNC_SOB_SET(0), 0);
	chunk = make_chunk(cb.handle, QUEUE_EXT_A, cb.w.used);
	ck_assert_int_eq(submit_chunk(dev_fd, &chunk, &seq), -EPERM);

	cb_reset(&cb);
	cbw_mon_reg(&cb.w, GAUDISIM_SYNC_MON_ARM(GAUDISIM_SYNC_DRIVER_MON_FIRST), 0);
	chunk = make_chunk(cb.handle, QUEUE_EXT_A, cb.w.used);
	ck_assert_int_eq(submit_chunk(dev_fd, &chunk, &seq), -EPERM);

	cb_reset(&cb);
	cbw_mon_reg(&cb.w, GAUDISIM_SYNC_MON_PAY_DATA(GAUDISIM_SYNC_RESERVED_MON_FIRST), 0);
	chunk = make_chunk(cb.handle, QUEUE_EXT_A, cb.w.used);
	ck_assert_int_eq(submit_chunk(dev_fd, &chunk, &seq), -EPERM);

	/* WREG_32 only to the stream's own fence registers. */
	cb_reset(&cb);
	ck_assert_int_eq(hlthunk_cbw_wreg32(&cb.w, GAUDISIM_QM_OFFSET +
					    GAUDISIM_QM_PQ_PI(0), 0, 0), 0);
	chunk = make_chunk(cb.handle, QUEUE_EXT_A, cb.w.used);
	ck_assert_int_eq(submit_chunk(dev_fd, &chunk, &seq), -EPERM);

	cb_reset(&cb);
	ck_assert_int_eq(hlthunk_cbw_wreg32(&cb.w, GAUDISIM_QM_OFFSET +
					    GAUDISIM_QM_CP_FENCE_RDATA(0, 1), 1, 0), 0);
	chunk = make_chunk(cb.handle, QUEUE_EXT_A, cb.w.used);
	ck_assert_int_eq(submit_chunk(dev_fd, &chunk, &seq), -EPERM);

	/* A CB that signals its own fence, then waits for it, completes. */
	cb_reset(&cb);
	ck_assert_int_eq(hlthunk_cbw_wreg32(&cb.w, GAUDISIM_QM_OFFSET +
					    GAUDISIM_QM_CP_FENCE_RDATA(2, 0), 1, 0), 0);
	ck_assert_int_eq(hlthunk_cbw_fence(&cb.w, 2, 1, 1, 0), 0);
	run_cb_ok(dev_fd, &cb, QUEUE_EXT_A, WAIT_US_SHORT);

	/* A user SOB, set from an external queue. */
	cb_reset(&cb);
	cbw_sob(&cb.w, user_sob(0), GAUDISIM_SYNC_SOB_SET(0), 0);
	run_cb_ok(dev_fd, &cb, QUEUE_EXT_A, WAIT_US_SHORT);

	cb_destroy_ok(dev_fd, &cb);
}
END_TEST

/* ---- Internal queues and sync -------------------------------------------- */

/* Internal HBM->HBM copy; an external job waits for it through SOB/monitor/fence. */
START_TEST(internal_hbm_dma_copy)
{
	const uint32_t sobs[1] = { 0 }, mons[1] = { 0 };
	uint32_t sob_ids[1], mon_ids[1];
	struct host_buf src, dst;
	struct hlthunk_cb_writer iw;
	uint8_t icb[256];
	struct hbm_buf hbm;
	uint32_t status;
	uint64_t a, b, icb_addr;
	long diff;

	sync_info_ok();
	sob_ids[0] = user_sob(sobs[0]);
	mon_ids[0] = user_mon(mons[0]);
	hbm_alloc_ok(dev_fd, &hbm, 4 * MiB);
	a = hbm.addr;
	b = hbm.addr + MiB;
	icb_addr = hbm.addr + 3 * MiB;

	host_buf_map_ok(dev_fd, &src, COPY_SIZE);
	host_buf_map_ok(dev_fd, &dst, COPY_SIZE);
	fill_pattern(src.ptr, COPY_SIZE, 31);
	memset(dst.ptr, 0, COPY_SIZE);
	dma_ok(dev_fd, src.va, a, COPY_SIZE, QUEUE_H2D);
	memset_ok(dev_fd, b, 0, COPY_SIZE, QUEUE_H2D);

	hlthunk_cbw_init(&iw, icb, sizeof(icb));
	ck_assert_int_eq(hlthunk_cbw_lin_dma(&iw, a, b, COPY_SIZE, 0, 0), 0);
	ck_assert_int_eq(run_internal_cb(&iw, icb_addr, QUEUE_INT, QUEUE_EXT_A, sob_ids[0],
					 mon_ids[0], &status), 0);
	ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);

	dma_ok(dev_fd, b, dst.va, COPY_SIZE, QUEUE_D2H);
	diff = first_difference(src.ptr, dst.ptr, COPY_SIZE);
	ck_assert_msg(diff < 0, "copy differs at byte %ld", diff);

	host_buf_release(dev_fd, &src);
	host_buf_release(dev_fd, &dst);
	hbm_free_ok(dev_fd, &hbm);
}
END_TEST

/*
 * One CS, three engines in a chain: external DMA host->A signals SOB 0;
 * monitor 0 releases the internal HBM-DMA (A->B), which signals SOB 1;
 * monitor 1 releases the second external stream (B->host).
 */
START_TEST(chain_external_internal_external)
{
	uint32_t sob_ids[2], mon_ids[2];
	const uint32_t queues[2] = { QUEUE_INT, QUEUE_EXT_B };
	struct gaudisim_cs_chunk chunks[3];
	struct host_buf src, dst;
	struct hlthunk_cb_writer iw;
	uint8_t icb[256];
	struct hbm_buf hbm;
	struct test_cb cb1, cb2;
	uint32_t status;
	uint64_t a, b, icb_addr, seq;
	long diff;

	sync_info_ok();
	sob_ids[0] = user_sob(1);
	sob_ids[1] = user_sob(2);
	mon_ids[0] = user_mon(1);
	mon_ids[1] = user_mon(2);
	hbm_alloc_ok(dev_fd, &hbm, 4 * MiB);
	a = hbm.addr;
	b = hbm.addr + MiB;
	icb_addr = hbm.addr + 3 * MiB;

	host_buf_map_ok(dev_fd, &src, COPY_SIZE);
	host_buf_map_ok(dev_fd, &dst, COPY_SIZE);
	fill_pattern(src.ptr, COPY_SIZE, 77);
	memset(dst.ptr, 0, COPY_SIZE);
	memset_ok(dev_fd, a, 0, COPY_SIZE, QUEUE_H2D);
	memset_ok(dev_fd, b, 0, COPY_SIZE, QUEUE_H2D);

	arm_monitors_ok(sob_ids, mon_ids, queues, 2);

	hlthunk_cbw_init(&iw, icb, sizeof(icb));
	ck_assert_int_eq(hlthunk_cbw_fence(&iw, 0, 1, 1, 0), 0);
	ck_assert_int_eq(hlthunk_cbw_lin_dma(&iw, a, b, COPY_SIZE, 0, 0), 0);
	cbw_sob(&iw, sob_ids[1], GAUDISIM_SYNC_SOB_ADD(1), GAUDISIM_PKT_CTL_EB);
	put_in_hbm_ok(icb, iw.used, icb_addr);

	cb_create_ok(dev_fd, &cb1, CB_BYTES);
	ck_assert_int_eq(hlthunk_cbw_lin_dma(&cb1.w, src.va, a, COPY_SIZE, 0, 0), 0);
	cbw_sob(&cb1.w, sob_ids[0], GAUDISIM_SYNC_SOB_ADD(1), GAUDISIM_PKT_CTL_EB);
	cb_create_ok(dev_fd, &cb2, CB_BYTES);
	ck_assert_int_eq(hlthunk_cbw_fence(&cb2.w, 0, 1, 1, 0), 0);
	ck_assert_int_eq(hlthunk_cbw_lin_dma(&cb2.w, b, dst.va, COPY_SIZE, 0, 0), 0);

	/* The consumer first: every stage must really wait for the previous one. */
	chunks[0] = make_chunk(cb2.handle, QUEUE_EXT_B, cb2.w.used);
	chunks[1] = make_chunk(icb_addr, QUEUE_INT, iw.used);
	chunks[2] = make_chunk(cb1.handle, QUEUE_EXT_A, cb1.w.used);
	ck_assert_int_eq(submit_chunks(chunks, 3, 60, &seq), 0);
	ck_assert_int_eq(hlthunk_wait_for_cs(dev_fd, seq, WAIT_US_DMA, &status), 0);
	ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);

	diff = first_difference(src.ptr, dst.ptr, COPY_SIZE);
	ck_assert_msg(diff < 0, "chain output differs at byte %ld", diff);

	cb_destroy_ok(dev_fd, &cb1);
	cb_destroy_ok(dev_fd, &cb2);
	host_buf_release(dev_fd, &src);
	host_buf_release(dev_fd, &dst);
	hbm_free_ok(dev_fd, &hbm);
}
END_TEST

/* ---- MMU ------------------------------------------------------------------ */

/*
 * Run an internal LIN_DMA src->dst on QUEUE_INT followed by a SOB signal,
 * with an external job waiting for it; returns the WAIT_CS rc.
 */
static int run_internal_dma(uint64_t src, uint64_t dst, uint32_t size, uint64_t icb_addr,
			    uint32_t *status)
{
	struct hlthunk_cb_writer iw;
	uint8_t icb[256];

	hlthunk_cbw_init(&iw, icb, sizeof(icb));
	ck_assert_int_eq(hlthunk_cbw_lin_dma(&iw, src, dst, size, 0, 0), 0);
	return run_internal_cb(&iw, icb_addr, QUEUE_INT, QUEUE_EXT_A, user_sob(3), user_mon(3),
			       status);
}

START_TEST(internal_dma_from_userptr_va)
{
	struct host_buf src, dst;
	struct hbm_buf hbm;
	uint32_t status;
	long diff;

	sync_info_ok();
	hbm_alloc_ok(dev_fd, &hbm, 4 * MiB);
	host_buf_map_ok(dev_fd, &src, COPY_SIZE);
	host_buf_map_ok(dev_fd, &dst, COPY_SIZE);
	fill_pattern(src.ptr, COPY_SIZE, 5);
	memset(dst.ptr, 0, COPY_SIZE);
	memset_ok(dev_fd, hbm.addr, 0, COPY_SIZE, QUEUE_H2D);

	/* Host (through the device MMU) -> HBM on an internal queue. */
	ck_assert_int_eq(run_internal_dma(src.va, hbm.addr, COPY_SIZE, hbm.addr + 3 * MiB,
					  &status), 0);
	ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);

	dma_ok(dev_fd, hbm.addr, dst.va, COPY_SIZE, QUEUE_D2H);
	diff = first_difference(src.ptr, dst.ptr, COPY_SIZE);
	ck_assert_msg(diff < 0, "copy differs at byte %ld", diff);

	host_buf_release(dev_fd, &src);
	host_buf_release(dev_fd, &dst);
	hbm_free_ok(dev_fd, &hbm);
}
END_TEST

/*
 * Gaudi's internal QMANs read CBs and CP_DMA buffers in host memory
 * through the MMU: an internal CB in a userptr mapping (_i == 0), and an
 * internal CB in HBM whose CP_DMA buffer is in one (_i == 1), each
 * writing a word into HBM.
 */
START_TEST(internal_cb_in_host_memory)
{
	const uint32_t word = 0x600dcb00u + (uint32_t)_i;
	struct hlthunk_cb_writer w;
	struct host_buf hcb, out;
	struct hbm_buf hbm;
	uint32_t status = ~0u;
	uint64_t cb_addr;
	uint32_t cb_size;

	sync_info_ok();
	hbm_alloc_ok(dev_fd, &hbm, 4 * MiB);
	memset_ok(dev_fd, hbm.addr, 0, 4096, QUEUE_H2D);
	host_buf_map_ok(dev_fd, &hcb, 4096);
	host_buf_map_ok(dev_fd, &out, 4096);

	hlthunk_cbw_init(&w, hcb.ptr, hcb.size);
	ck_assert_int_eq(hlthunk_cbw_msg_long(&w, hbm.addr + 64, word, 0), 0);
	if (_i == 0) {
		cbw_sob(&w, user_sob(4), GAUDISIM_SYNC_SOB_ADD(1), GAUDISIM_PKT_CTL_EB);
		cb_addr = hcb.va;
		cb_size = w.used;
	} else {
		struct gaudisim_packet_cp_dma cp = {
			.tsize = w.used,
			.ctl = GAUDISIM_PKT_CTL(GAUDISIM_PKT_CP_DMA),
			.src = hcb.va,
		};
		uint8_t icb[128];

		hlthunk_cbw_init(&w, icb, sizeof(icb));
		ck_assert_int_eq(hlthunk_cbw_packet(&w, &cp, sizeof(cp)), 0);
		cbw_sob(&w, user_sob(4), GAUDISIM_SYNC_SOB_ADD(1), GAUDISIM_PKT_CTL_EB);
		cb_addr = hbm.addr + 3 * MiB;
		cb_size = w.used;
		put_in_hbm_ok(icb, w.used, cb_addr);
	}
	ck_assert_int_eq(run_internal_cb_at(cb_addr, cb_size, QUEUE_INT, QUEUE_EXT_A,
					    user_sob(4), user_mon(4), &status), 0);
	ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);

	dma_ok(dev_fd, hbm.addr, out.va, 4096, QUEUE_D2H);
	ck_assert_uint_eq(*(uint32_t *)(out.ptr + 64), word);

	host_buf_release(dev_fd, &hcb);
	host_buf_release(dev_fd, &out);
	hbm_free_ok(dev_fd, &hbm);
}
END_TEST

/*
 * An internal CB at a host VA the context never mapped: the device MMU
 * faults with the context's ASID, the CS ends ABORTED, the device resets
 * and runs work again.
 */
START_TEST(internal_cb_at_unmapped_va_faults)
{
	uint32_t before[GAUDISIM_INFO_HW_EVENTS_NUM], after[GAUDISIM_INFO_HW_EVENTS_NUM];
	const uint64_t unmapped = GAUDISIM_HOST_VA_BASE + GAUDISIM_HOST_VA_SIZE - 16 * MiB;
	struct gaudisim_page_fault_info pf;
	uint32_t status = ~0u;
	int rc;

	sync_info_ok();
	events_ok(before);
	rc = run_internal_cb_at(unmapped, 64, QUEUE_INT, QUEUE_EXT_A, user_sob(5), user_mon(5),
				&status);
	ck_assert_msg(rc == -EIO && status == GAUDISIM_WAIT_CS_STATUS_ABORTED,
		      "wait rc %d status %u, expected an aborted CS", rc, status);
	events_ok(after);
	ck_assert_uint_gt(after[GAUDISIM_EQ_EVENT_MMU_FAULT],
			  before[GAUDISIM_EQ_EVENT_MMU_FAULT]);
	ck_assert_int_eq(hlthunk_get_page_fault_info(dev_fd, &pf), 0);
	ck_assert_msg(pf.addr >= unmapped && pf.addr < unmapped + 64, "fault at 0x%llx",
		      (unsigned long long)pf.addr);
	wait_operational_ok(dev_fd);
	{
		struct test_cb cb;

		cb_create_ok(dev_fd, &cb, 4096);
		ck_assert_int_eq(hlthunk_cbw_nop(&cb.w, 0), 0);
		run_cb_ok(dev_fd, &cb, QUEUE_EXT_A, WAIT_US_SHORT);
		cb_destroy_ok(dev_fd, &cb);
	}
}
END_TEST

START_TEST(internal_dma_from_unmapped_va_faults)
{
	uint32_t before[GAUDISIM_INFO_HW_EVENTS_NUM], after[GAUDISIM_INFO_HW_EVENTS_NUM];
	const uint64_t unmapped = GAUDISIM_HOST_VA_BASE + GAUDISIM_HOST_VA_SIZE - 16 * MiB;
	struct hbm_buf hbm;
	uint32_t status = ~0u, dev_status = ~0u;
	int rc, i;

	struct hlthunk_reset_count_info resets_before, resets_after;
	struct gaudisim_page_fault_info pf;
	struct gaudisim_info_razwi_event razwi;
	struct gaudisim_info_last_err_open_dev_time open_dev;
	uint64_t seen = 0, events, cnt;
	struct timespec start;
	int notifier;

	/* The fixture opened the device before this point. */
	clock_gettime(CLOCK_MONOTONIC, &start);
	sync_info_ok();
	hbm_alloc_ok(dev_fd, &hbm, 4 * MiB);
	events_ok(before);
	ck_assert_int_eq(hlthunk_get_reset_count_info(dev_fd, &resets_before), 0);
	notifier = hlthunk_notifier_create(dev_fd);
	ck_assert_int_ge(notifier, 0);

	rc = run_internal_dma(unmapped, hbm.addr, 4096, hbm.addr + 3 * MiB, &status);
	ck_assert_msg(rc == -EIO && status == GAUDISIM_WAIT_CS_STATUS_ABORTED,
		      "wait rc %d status %u, expected an aborted CS", rc, status);

	events_ok(after);
	ck_assert_uint_gt(after[GAUDISIM_EQ_EVENT_MMU_FAULT],
			  before[GAUDISIM_EQ_EVENT_MMU_FAULT]);

	/* The eventfd fires for the fault and for the reset that follows. */
	for (i = 0; i < 50 && (~seen & (GAUDISIM_NOTIFIER_EVENT_PAGE_FAULT |
					 GAUDISIM_NOTIFIER_EVENT_DEVICE_RESET)); i++) {
		ck_assert_int_eq(hlthunk_notifier_recv(dev_fd, notifier, &events, &cnt, 0, 100), 0);
		seen |= events;
	}
	ck_assert_msg(seen & GAUDISIM_NOTIFIER_EVENT_PAGE_FAULT, "events 0x%llx",
		      (unsigned long long)seen);
	ck_assert_msg(seen & GAUDISIM_NOTIFIER_EVENT_RAZWI, "events 0x%llx",
		      (unsigned long long)seen);
	ck_assert_msg(seen & GAUDISIM_NOTIFIER_EVENT_DEVICE_RESET, "events 0x%llx",
		      (unsigned long long)seen);
	ck_assert_int_eq(hlthunk_notifier_release(dev_fd, notifier), 0);

	/* PAGE_FAULT_EVENT and RAZWI_EVENT name the address and the engine. */
	ck_assert_int_eq(hlthunk_get_page_fault_info(dev_fd, &pf), 0);
	ck_assert_int_gt(pf.timestamp, 0);
	ck_assert_msg(pf.addr >= unmapped && pf.addr < unmapped + 4096, "fault at 0x%llx",
		      (unsigned long long)pf.addr);
	ck_assert_uint_le(pf.engine_id, GAUDISIM_HL_ENGINE_ID_DMA(7));
	ck_assert_int_eq(hlthunk_get_event_record(dev_fd, HLTHUNK_RAZWI_EVENT, &razwi), 0);
	ck_assert_int_eq(razwi.timestamp, pf.timestamp);
	ck_assert_uint_eq(razwi.addr, pf.addr);
	ck_assert_uint_eq(razwi.num_of_possible_engines, 1);
	ck_assert_uint_eq(razwi.engine_id[0], pf.engine_id);
	ck_assert_uint_eq(razwi.flags & GAUDISIM_RAZWI_READ, GAUDISIM_RAZWI_READ);
	/* LAST_ERR_OPEN_DEV_TIME: this file's open, before the fault. */
	ck_assert_int_eq(hlthunk_get_event_record(dev_fd, HLTHUNK_OPEN_DEV, &open_dev), 0);
	ck_assert_int_gt(open_dev.timestamp, 0);
	ck_assert_int_le(open_dev.timestamp, (int64_t)start.tv_sec * 1000000000 + start.tv_nsec);
	ck_assert_int_le(open_dev.timestamp, pf.timestamp);

	/* The device recovers from the reset and runs work again. */
	for (i = 0; i < 100; i++) {
		ck_assert_int_eq(hlthunk_get_device_status(dev_fd, &dev_status), 0);
		if (dev_status == GAUDISIM_DEVICE_STATUS_OPERATIONAL)
			break;
		sleep_ms(100);
	}
	ck_assert_uint_eq(dev_status, GAUDISIM_DEVICE_STATUS_OPERATIONAL);
	ck_assert_int_eq(hlthunk_get_reset_count_info(dev_fd, &resets_after), 0);
	ck_assert_uint_gt(resets_after.hard_reset_count, resets_before.hard_reset_count);
	/* HW_EVENTS restarted at the reset; the aggregate did not. */
	ck_assert_int_eq(hlthunk_get_hw_events_arr(dev_fd, false, sizeof(before), before), 0);
	ck_assert_int_eq(hlthunk_get_hw_events_arr(dev_fd, true, sizeof(after), after), 0);
	ck_assert_uint_lt(before[GAUDISIM_EQ_EVENT_MMU_FAULT], after[GAUDISIM_EQ_EVENT_MMU_FAULT]);
	memset_ok(dev_fd, hbm.addr, 0x5a, 4096, QUEUE_H2D);
	hbm_free_ok(dev_fd, &hbm);
}
END_TEST

/* ---- MME ------------------------------------------------------------------ */

#define GEMM_DIM	32

static void cbw_wreg(struct hlthunk_cb_writer *w, uint32_t reg, uint32_t value)
{
	ck_assert_int_eq(hlthunk_cbw_wreg32(w, reg, value, 0), 0);
}

static void cbw_wreg64(struct hlthunk_cb_writer *w, uint32_t reg_lo, uint64_t value)
{
	cbw_wreg(w, reg_lo, (uint32_t)value);
	cbw_wreg(w, reg_lo + 4, (uint32_t)(value >> 32));
}

/* D = A @ B (FP32, 32x32x32) on the MME queue, CB in HBM; exact integer data. */
START_TEST(mme_gemm_matches_reference)
{
	const uint32_t dim = GEMM_DIM, bytes = GEMM_DIM * GEMM_DIM * sizeof(float);
	const uint32_t queue = GAUDISIM_QUEUE_ID_MME_0;
	uint32_t sob_ids[1], mon_ids[1];
	struct host_buf host;
	struct hlthunk_cb_writer iw;
	uint8_t icb[1024];
	struct hbm_buf hbm;
	float *a, *b, *d, ref;
	uint64_t a_addr, b_addr, d_addr, icb_addr;
	uint32_t i, j, k, status;

	sync_info_ok();
	sob_ids[0] = user_sob(4);
	mon_ids[0] = user_mon(4);
	hbm_alloc_ok(dev_fd, &hbm, 4 * MiB);
	a_addr = hbm.addr;
	b_addr = hbm.addr + 64 * KiB;
	d_addr = hbm.addr + 128 * KiB;
	icb_addr = hbm.addr + 3 * MiB;

	host_buf_map_ok(dev_fd, &host, 3 * bytes);
	a = (float *)host.ptr;
	b = a + dim * dim;
	d = b + dim * dim;
	for (i = 0; i < dim; i++)
		for (j = 0; j < dim; j++) {
			a[i * dim + j] = (float)((int)((i + 2 * j) % 7) - 3);
			b[i * dim + j] = (float)((int)((3 * i + j) % 5) - 2);
		}
	dma_ok(dev_fd, host.va, a_addr, bytes, QUEUE_H2D);
	dma_ok(dev_fd, host.va + bytes, b_addr, bytes, QUEUE_H2D);
	memset_ok(dev_fd, d_addr, 0xff, bytes, QUEUE_H2D);

	hlthunk_cbw_init(&iw, icb, sizeof(icb));
	cbw_wreg64(&iw, GAUDISIM_MME_A_ADDR_LO, a_addr);
	cbw_wreg64(&iw, GAUDISIM_MME_B_ADDR_LO, b_addr);
	cbw_wreg64(&iw, GAUDISIM_MME_C_ADDR_LO, d_addr);
	cbw_wreg64(&iw, GAUDISIM_MME_D_ADDR_LO, d_addr);
	cbw_wreg(&iw, GAUDISIM_MME_M, dim);
	cbw_wreg(&iw, GAUDISIM_MME_N, dim);
	cbw_wreg(&iw, GAUDISIM_MME_K, dim);
	cbw_wreg(&iw, GAUDISIM_MME_BATCH, 1);
	cbw_wreg(&iw, GAUDISIM_MME_LDA, dim);
	cbw_wreg(&iw, GAUDISIM_MME_LDB, dim);
	cbw_wreg(&iw, GAUDISIM_MME_LDC, dim);
	cbw_wreg(&iw, GAUDISIM_MME_LDD, dim);
	cbw_wreg64(&iw, GAUDISIM_MME_A_BATCH_STRIDE_LO, 0);
	cbw_wreg64(&iw, GAUDISIM_MME_B_BATCH_STRIDE_LO, 0);
	cbw_wreg64(&iw, GAUDISIM_MME_C_BATCH_STRIDE_LO, 0);
	cbw_wreg64(&iw, GAUDISIM_MME_D_BATCH_STRIDE_LO, 0);
	cbw_wreg(&iw, GAUDISIM_MME_DTYPE,
		 GAUDISIM_MME_DTYPE_VALUE(GAUDISIM_DTYPE_FP32, GAUDISIM_DTYPE_FP32));
	cbw_wreg(&iw, GAUDISIM_MME_CTRL, 0);
	cbw_wreg(&iw, GAUDISIM_MME_ALPHA, 0x3F800000u);
	cbw_wreg(&iw, GAUDISIM_MME_BETA, 0);
	cbw_wreg(&iw, GAUDISIM_MME_COMMIT, GAUDISIM_MME_COMMIT_GO);
	ck_assert_int_eq(run_internal_cb(&iw, icb_addr, queue, QUEUE_EXT_A, sob_ids[0],
					 mon_ids[0], &status), 0);
	ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);

	memset(d, 0, bytes);
	dma_ok(dev_fd, d_addr, host.va + 2 * bytes, bytes, QUEUE_D2H);
	for (i = 0; i < dim; i++)
		for (j = 0; j < dim; j++) {
			ref = 0;
			for (k = 0; k < dim; k++)
				ref += a[i * dim + k] * b[k * dim + j];
			ck_assert_msg(d[i * dim + j] == ref, "D[%u][%u] = %g, expected %g",
				      i, j, (double)d[i * dim + j], (double)ref);
		}

	host_buf_release(dev_fd, &host);
	hbm_free_ok(dev_fd, &hbm);
}
END_TEST

/* ---- Telemetry follows the work ------------------------------------------ */

#define LOAD_DIM	256
#define LOAD_PERIOD_MS	500
/* The engine time one load GEMM books: a WAIT of the full cycle count. */
#define LOAD_BOOKED_NS	((uint64_t)GAUDISIM_WAIT_CYCLES_MASK * 1000 / GAUDISIM_TEL_CLOCK_LIMIT_MHZ)

/* One FP32 GEMM of LOAD_DIM^3 on zeroed HBM, from an internal CB in HBM. */
static int run_load_gemm(uint64_t base, uint32_t sob, uint32_t mon)
{
	const uint64_t mat = (uint64_t)LOAD_DIM * LOAD_DIM * sizeof(float);
	const uint32_t wait_pkt[2] = { GAUDISIM_WAIT_CYCLES_MASK,
				       GAUDISIM_PKT_CTL(GAUDISIM_PKT_WAIT) };
	struct hlthunk_cb_writer iw;
	uint8_t icb[1024];
	uint32_t status;
	int rc;

	hlthunk_cbw_init(&iw, icb, sizeof(icb));
	cbw_wreg64(&iw, GAUDISIM_MME_A_ADDR_LO, base);
	cbw_wreg64(&iw, GAUDISIM_MME_B_ADDR_LO, base + mat);
	cbw_wreg64(&iw, GAUDISIM_MME_C_ADDR_LO, base + 2 * mat);
	cbw_wreg64(&iw, GAUDISIM_MME_D_ADDR_LO, base + 2 * mat);
	cbw_wreg(&iw, GAUDISIM_MME_M, LOAD_DIM);
	cbw_wreg(&iw, GAUDISIM_MME_N, LOAD_DIM);
	cbw_wreg(&iw, GAUDISIM_MME_K, LOAD_DIM);
	cbw_wreg(&iw, GAUDISIM_MME_BATCH, 1);
	cbw_wreg(&iw, GAUDISIM_MME_LDA, LOAD_DIM);
	cbw_wreg(&iw, GAUDISIM_MME_LDB, LOAD_DIM);
	cbw_wreg(&iw, GAUDISIM_MME_LDC, LOAD_DIM);
	cbw_wreg(&iw, GAUDISIM_MME_LDD, LOAD_DIM);
	cbw_wreg64(&iw, GAUDISIM_MME_A_BATCH_STRIDE_LO, 0);
	cbw_wreg64(&iw, GAUDISIM_MME_B_BATCH_STRIDE_LO, 0);
	cbw_wreg64(&iw, GAUDISIM_MME_C_BATCH_STRIDE_LO, 0);
	cbw_wreg64(&iw, GAUDISIM_MME_D_BATCH_STRIDE_LO, 0);
	cbw_wreg(&iw, GAUDISIM_MME_DTYPE,
		 GAUDISIM_MME_DTYPE_VALUE(GAUDISIM_DTYPE_FP32, GAUDISIM_DTYPE_FP32));
	cbw_wreg(&iw, GAUDISIM_MME_CTRL, 0);
	cbw_wreg(&iw, GAUDISIM_MME_ALPHA, 0x3F800000u);
	cbw_wreg(&iw, GAUDISIM_MME_BETA, 0);
	cbw_wreg(&iw, GAUDISIM_MME_COMMIT, GAUDISIM_MME_COMMIT_GO);
	/*
	 * The model runs the MME at 65 TFLOPS, far ahead of what the simulator
	 * computes in the same wall time; a WAIT books 7.6 ms of engine time
	 * (2^24 cycles at 2.2 GHz), as a long GEMM would, without stalling.
	 */
	ck_assert_int_eq(hlthunk_cbw_dwords(&iw, wait_pkt, 2), 0);
	rc = run_internal_cb(&iw, base + 3 * MiB, GAUDISIM_QUEUE_ID_MME_0, QUEUE_EXT_A, sob, mon,
			     &status);
	return rc ? rc : (status == GAUDISIM_WAIT_CS_STATUS_COMPLETED ? 0 : -EIO);
}

struct load_sample {
	uint32_t utilization;	/* percent over LOAD_PERIOD_MS */
	uint64_t power_mw;	/* at the end of the period */
	int rc;
};

/* Measure through a control node, as a monitoring tool would. */
static struct load_sample measure_load(int control)
{
	struct load_sample m = { 0 };
	struct hlthunk_power_info p = { 0 };

	m.rc = hlthunk_get_device_utilization(control, LOAD_PERIOD_MS, &m.utilization);
	if (!m.rc)
		m.rc = hlthunk_get_power_info(control, &p);
	m.power_mw = p.power;
	return m;
}

/*
 * A child measures utilization and power while this process runs GEMMs on
 * the MME; then, with the device idle, both must fall back.
 */
START_TEST(telemetry_follows_the_work)
{
	struct load_sample busy, idle;
	struct hbm_buf hbm;
	struct pollfd pfd;
	int pipefd[2], control, loops, rc;
	uint64_t start;
	pid_t child;

	sync_info_ok();
	hbm_alloc_ok(dev_fd, &hbm, 4 * MiB);
	/* Warm up, so the child measures steady work. */
	ck_assert_int_eq(run_load_gemm(hbm.addr, user_sob(5), user_mon(5)), 0);

	ck_assert_int_eq(pipe(pipefd), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		struct load_sample m;

		control = hlthunk_open_control(test_device_index(), NULL);
		m = control < 0 ? (struct load_sample){ .rc = control } : measure_load(control);
		_exit(write(pipefd[1], &m, sizeof(m)) == (ssize_t)sizeof(m) ? 0 : 1);
	}
	close(pipefd[1]);
	pfd.fd = pipefd[0];
	pfd.events = POLLIN;
	/*
	 * Keep the MME busy until the child has its sample (bounded), no
	 * faster than the model's clock: each GEMM books LOAD_BOOKED_NS, and
	 * a host that submits faster would pile up a backlog that the model
	 * still works off (at full power) when the idle sample is taken.
	 */
	start = now_ns();
	for (loops = 0; loops < 10000; loops++) {
		uint64_t booked = (uint64_t)(loops + 1) * LOAD_BOOKED_NS, spent;

		rc = run_load_gemm(hbm.addr, user_sob(5), user_mon(5));
		ck_assert_int_eq(rc, 0);
		if (poll(&pfd, 1, 0) > 0)
			break;
		spent = now_ns() - start;
		if (booked > spent)
			sleep_ms((long)((booked - spent) / 1000000));
	}
	ck_assert_int_eq(read(pipefd[0], &busy, sizeof(busy)), (ssize_t)sizeof(busy));
	close(pipefd[0]);
	ck_assert_int_eq(waitpid(child, &rc, 0), child);
	ck_assert_int_eq(busy.rc, 0);

	/* Idle for longer than the power window, then measure again. */
	sleep_ms(1500);
	control = open_control_ok();
	idle = measure_load(control);
	ck_assert_int_eq(idle.rc, 0);

	ck_assert_msg(busy.utilization > idle.utilization,
		      "utilization %u%% busy, %u%% idle", busy.utilization, idle.utilization);
	ck_assert_msg(busy.power_mw > idle.power_mw, "power %llu mW busy, %llu mW idle",
		      (unsigned long long)busy.power_mw, (unsigned long long)idle.power_mw);
	ck_assert_uint_le(busy.utilization, 100);
	hbm_free_ok(dev_fd, &hbm);
}
END_TEST

/* ---- Events --------------------------------------------------------------- */

START_TEST(heartbeat_events_counted)
{
	uint32_t before[GAUDISIM_INFO_HW_EVENTS_NUM], now[GAUDISIM_INFO_HW_EVENTS_NUM];
	uint32_t small[2];
	int i;

	events_ok(before);
	/* The driver asks for a heartbeat every 5 s. */
	for (i = 0; i < 150; i++) {
		events_ok(now);
		if (now[GAUDISIM_EQ_EVENT_HEARTBEAT] > before[GAUDISIM_EQ_EVENT_HEARTBEAT])
			break;
		sleep_ms(100);
	}
	ck_assert_uint_gt(now[GAUDISIM_EQ_EVENT_HEARTBEAT], before[GAUDISIM_EQ_EVENT_HEARTBEAT]);

	/* A shorter buffer gets the first entries. */
	small[0] = small[1] = ~0u;
	ck_assert_int_eq(hlthunk_get_info_op(dev_fd, GAUDISIM_INFO_HW_EVENTS, small,
					  sizeof(small[0])), 0);
	ck_assert_uint_eq(small[1], ~0u);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("engines");
	TCase *tc;

	tc = compute_tcase("discovery", TCASE_TIMEOUT_SHORT);
	tcase_add_test(tc, every_queue_is_present);
	tcase_add_test(tc, sync_manager_info);
	tcase_add_test(tc, internal_chunk_refusals);
	tcase_add_test(tc, user_alloc_cb_flag_on_internal_queues_only);
	tcase_add_test(tc, external_sync_packets_checked);
	suite_add_tcase(s, tc);

	tc = compute_tcase("internal", TCASE_TIMEOUT_DMA);
	tcase_add_test(tc, internal_hbm_dma_copy);
	tcase_add_test(tc, chain_external_internal_external);
	tcase_add_test(tc, mme_gemm_matches_reference);
	tcase_add_test(tc, telemetry_follows_the_work);
	suite_add_tcase(s, tc);

	tc = compute_tcase("mmu", TCASE_TIMEOUT_DMA);
	tcase_add_test(tc, internal_dma_from_userptr_va);
	tcase_add_test(tc, internal_dma_from_unmapped_va_faults);
	tcase_add_loop_test(tc, internal_cb_in_host_memory, 0, 2);
	tcase_add_test(tc, internal_cb_at_unmapped_va_faults);
	suite_add_tcase(s, tc);

	tc = compute_tcase("events", TCASE_TIMEOUT_SHORT);
	tcase_add_test(tc, heartbeat_events_counted);
	suite_add_tcase(s, tc);

	return run_suite(s);
}
