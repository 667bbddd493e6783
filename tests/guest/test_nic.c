// SPDX-License-Identifier: MIT
/*
 * NIC ports between two devices on one fabric (docs/nic.md), through the
 * driver: INFO NIC_LINKS reports the all-to-all links; a CB on device A's
 * NIC queue writes into a buffer of device B and signals B's SOB, which
 * releases a job waiting on B (B sees the data); a write outside B's
 * receive window fails A's job cleanly (CS aborted, A recovers), is
 * counted at B, and B's memory is untouched.
 *
 * Needs a VM with two devices on one fabric, e.g.
 *   GAUDISIM_DEVICE_ARGS=",module-id=0,fabric=fab0"
 *   GAUDISIM_QEMU_ARGS="-object gaudisim-fabric,id=fab0
 *                       -device gaudisim,module-id=1,fabric=fab0"
 * With fewer devices it cannot test anything and fails, saying why.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "hw/gaudisim_hw_eq.h"
#include "hw/gaudisim_hw_nic.h"
#include "hw/gaudisim_hw_sync.h"

#define XFER_SIZE	(64 * KiB)
#define QUEUE_EXT	GAUDISIM_QUEUE_ID_DMA_0_0

/* Devices A (index 0, sends) and B (index 1, receives). */
static int fd_a = -1, fd_b = -1;
static uint32_t port_ab, port_ba;	/* A's port to B, B's port to A */
static uint32_t module_a, module_b;
static struct gaudisim_info_sync_manager sm;

static void pair_setup(void)
{
	struct hlthunk_hw_ip_info hw_a, hw_b;
	int p;

	fd_a = hlthunk_open_by_index(0);
	ck_assert_msg(fd_a >= 0, "open device 0: %s", strerror(-fd_a));
	fd_b = hlthunk_open_by_index(1);
	ck_assert_msg(fd_b >= 0, "open device 1: %s", strerror(-fd_b));
	/* common.c's helpers that take no fd work on device A. */
	dev_fd = fd_a;
	hw_ip_ok(fd_a, &hw_a);
	hw_ip_ok(fd_b, &hw_b);
	ck_assert_uint_ne(hw_a.module_id, hw_b.module_id);
	module_a = hw_a.module_id;
	module_b = hw_b.module_id;
	p = gaudisim_nic_port_to(hw_a.module_id, hw_b.module_id);
	ck_assert_int_ge(p, 0);
	port_ab = (uint32_t)p;
	port_ba = (uint32_t)gaudisim_nic_port_to(hw_b.module_id, hw_a.module_id);
	memset(&sm, 0, sizeof(sm));
	ck_assert_int_eq(hlthunk_get_info_op(fd_a, GAUDISIM_INFO_SYNC_MANAGER, &sm, sizeof(sm)), 0);
}

static void pair_teardown(void)
{
	if (fd_b >= 0)
		hlthunk_close(fd_b);
	if (fd_a >= 0)
		hlthunk_close(fd_a);
	fd_a = fd_b = dev_fd = -1;
}

static void nic_links_ok(int fd, struct gaudisim_info_nic_links *l)
{
	memset(l, 0, sizeof(*l));
	ck_assert_int_eq(hlthunk_get_nic_links(fd, l), 0);
	ck_assert_uint_eq(l->num_ports, GAUDISIM_NIC_NUM_PORTS);
}

static uint32_t event_count(int fd, unsigned int type)
{
	uint32_t counts[GAUDISIM_INFO_HW_EVENTS_NUM] = { 0 };

	ck_assert_int_eq(hlthunk_get_info_op(fd, GAUDISIM_INFO_HW_EVENTS_AGGREGATE, counts,
					  sizeof(counts)), 0);
	return counts[type];
}

/* Packets on A's NIC queue: write size bytes src (A) -> dst (B), then SOB += 1 on B. */
static void cbw_nic_write(struct hlthunk_cb_writer *w, uint64_t src, uint64_t dst,
			  uint32_t size, uint32_t sob)
{
	const uint32_t regs[][2] = {
		{ GAUDISIM_NIC_TX_SRC_LO, (uint32_t)src },
		{ GAUDISIM_NIC_TX_SRC_HI, (uint32_t)(src >> 32) },
		{ GAUDISIM_NIC_TX_DST_LO, (uint32_t)dst },
		{ GAUDISIM_NIC_TX_DST_HI, (uint32_t)(dst >> 32) },
		{ GAUDISIM_NIC_TX_SIZE, size },
		{ GAUDISIM_NIC_TX_REMOTE_SOB, GAUDISIM_NIC_TX_REMOTE_SOB_EN | sob },
		{ GAUDISIM_NIC_TX_REMOTE_SOB_DATA, GAUDISIM_SYNC_SOB_ADD(1) },
		{ GAUDISIM_NIC_TX_COMMIT, 1 },
	};
	size_t i;

	for (i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		ck_assert_int_eq(hlthunk_cbw_wreg32(w, regs[i][0], regs[i][1], 0), 0);
}

static uint32_t nic_queue(uint32_t port)
{
	return GAUDISIM_QUEUE_ID_NIC_0_0 + GAUDISIM_STREAMS_PER_QMAN * port;
}

START_TEST(links_all_to_all)
{
	struct gaudisim_info_nic_links la, lb;
	uint32_t p;

	nic_links_ok(fd_a, &la);
	nic_links_ok(fd_b, &lb);
	/* INFO NIC_LINKS and HW_IP_INFO agree on where each device sits. */
	ck_assert_uint_eq(la.module_id, module_a);
	ck_assert_uint_eq(lb.module_id, module_b);
	ck_assert_uint_eq(la.port[port_ab].link,
			  GAUDISIM_INFO_NIC_LINK_UP | GAUDISIM_INFO_NIC_LINK_CABLED);
	ck_assert_uint_eq(la.port[port_ab].peer_module, lb.module_id);
	ck_assert_uint_eq(la.port[port_ab].peer_port, port_ba);
	ck_assert_uint_eq(lb.port[port_ba].peer_module, la.module_id);
	for (p = GAUDISIM_NIC_FIRST_SCALEOUT; p < GAUDISIM_NIC_NUM_PORTS; p++)
		ck_assert(la.port[p].link & GAUDISIM_INFO_NIC_LINK_SCALEOUT);
}
END_TEST

START_TEST(write_signals_peer)
{
	const uint32_t sob = sm.first_available_sync_object, mon = sm.first_available_monitor;
	struct gaudisim_info_nic_links la0, la1, lb0, lb1;
	struct gaudisim_cs_chunk chunk;
	struct hbm_buf src, dst, icb_mem;
	struct host_buf hsrc, hdst;
	struct hlthunk_cb_writer iw;
	struct test_cb wait_cb;
	uint8_t icb[512];
	uint32_t status = ~0u;
	uint64_t seq_b;
	long diff;

	hbm_alloc_ok(fd_a, &src, 2 * MiB);
	hbm_alloc_ok(fd_a, &icb_mem, 2 * MiB);
	hbm_alloc_ok(fd_b, &dst, 2 * MiB);
	host_buf_map_ok(fd_a, &hsrc, XFER_SIZE);
	host_buf_map_ok(fd_b, &hdst, XFER_SIZE);
	fill_pattern(hsrc.ptr, XFER_SIZE, 77);
	dma_ok(fd_a, hsrc.va, src.addr, XFER_SIZE, QUEUE_H2D);
	memset_ok(fd_b, dst.addr, 0, XFER_SIZE, QUEUE_H2D);

	/* B: a job that waits for the SOB the transfer signals. */
	cb_create_ok(fd_b, &wait_cb, 4096);
	cbw_sob(&wait_cb.w, sob, GAUDISIM_SYNC_SOB_SET(0), 0);
	cbw_monitor_to_fence(&wait_cb.w, mon, sob, QUEUE_EXT);
	run_cb_ok(fd_b, &wait_cb, QUEUE_EXT, WAIT_US_SHORT);
	cb_reset(&wait_cb);
	ck_assert_int_eq(hlthunk_cbw_fence(&wait_cb.w, 0, 1, 1, 0), 0);
	chunk = make_chunk(wait_cb.handle, QUEUE_EXT, wait_cb.w.used);
	ck_assert_int_eq(submit_chunk(fd_b, &chunk, &seq_b), 0);

	nic_links_ok(fd_a, &la0);
	nic_links_ok(fd_b, &lb0);
	/* A: the transfer from a CB on its NIC queue, then its own completion. */
	hlthunk_cbw_init(&iw, icb, sizeof(icb));
	cbw_nic_write(&iw, src.addr, dst.addr, XFER_SIZE, sob);
	ck_assert_int_eq(run_internal_cb(&iw, icb_mem.addr, nic_queue(port_ab), QUEUE_EXT,
					 sob + 1, mon + 1, &status), 0);
	ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);

	/* B's job was released by the data's arrival. */
	status = ~0u;
	ck_assert_int_eq(hlthunk_wait_for_cs(fd_b, seq_b, WAIT_US_DMA, &status), 0);
	ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);
	dma_ok(fd_b, dst.addr, hdst.va, XFER_SIZE, QUEUE_D2H);
	diff = first_difference(hsrc.ptr, hdst.ptr, XFER_SIZE);
	ck_assert_msg(diff < 0, "B's buffer differs at byte %ld", diff);

	nic_links_ok(fd_a, &la1);
	nic_links_ok(fd_b, &lb1);
	ck_assert_uint_eq(la1.port[port_ab].tx_bytes - la0.port[port_ab].tx_bytes, XFER_SIZE);
	ck_assert_uint_eq(la1.port[port_ab].tx_xfers - la0.port[port_ab].tx_xfers, 1);
	ck_assert_uint_eq(lb1.port[port_ba].rx_bytes - lb0.port[port_ba].rx_bytes, XFER_SIZE);
	ck_assert_uint_eq(lb1.port[port_ba].rx_refused, lb0.port[port_ba].rx_refused);

	cb_destroy_ok(fd_b, &wait_cb);
	host_buf_release(fd_a, &hsrc);
	host_buf_release(fd_b, &hdst);
	hbm_free_ok(fd_a, &src);
	hbm_free_ok(fd_a, &icb_mem);
	hbm_free_ok(fd_b, &dst);
}
END_TEST

START_TEST(write_outside_window_fails)
{
	const uint32_t sob = sm.first_available_sync_object, mon = sm.first_available_monitor;
	/* B's reserved HBM: below its receive window (the user range). */
	const uint64_t forbidden = GAUDISIM_HBM_BASE + 16 * MiB;
	struct gaudisim_info_nic_links lb0, lb1;
	struct hbm_buf src, icb_mem, probe;
	struct host_buf h;
	struct hlthunk_cb_writer iw;
	uint32_t nic_err0, status = ~0u;
	uint8_t icb[512];
	int rc;

	hbm_alloc_ok(fd_a, &src, 2 * MiB);
	hbm_alloc_ok(fd_a, &icb_mem, 2 * MiB);
	nic_links_ok(fd_b, &lb0);
	nic_err0 = event_count(fd_b, GAUDISIM_EQ_EVENT_NIC_ERR);

	hlthunk_cbw_init(&iw, icb, sizeof(icb));
	cbw_nic_write(&iw, src.addr, forbidden, XFER_SIZE, sob);
	rc = run_internal_cb(&iw, icb_mem.addr, nic_queue(port_ab), QUEUE_EXT, sob + 1, mon + 1,
			     &status);
	ck_assert_msg(rc == -EIO && status == GAUDISIM_WAIT_CS_STATUS_ABORTED,
		      "wait rc %d status %u, expected an aborted CS", rc, status);

	/* B refused it and said so; it keeps working. */
	nic_links_ok(fd_b, &lb1);
	ck_assert_uint_eq(lb1.port[port_ba].rx_refused - lb0.port[port_ba].rx_refused, 1);
	ck_assert_uint_eq(lb1.port[port_ba].rx_bytes, lb0.port[port_ba].rx_bytes);
	ck_assert_uint_gt(event_count(fd_b, GAUDISIM_EQ_EVENT_NIC_ERR), nic_err0);
	hbm_alloc_ok(fd_b, &probe, 2 * MiB);
	host_buf_map_ok(fd_b, &h, 4096);
	memset_ok(fd_b, probe.addr, 0xa5, 4096, QUEUE_H2D);
	dma_ok(fd_b, probe.addr, h.va, 4096, QUEUE_D2H);
	ck_assert_int_lt(first_byte_not(h.ptr, 4096, 0xa5), 0);

	host_buf_release(fd_b, &h);
	hbm_free_ok(fd_b, &probe);

	/* A recovered from the reset its failed job caused. */
	host_buf_map_ok(fd_a, &h, 4096);
	memset_ok(fd_a, src.addr, 0x3c, 4096, QUEUE_H2D);
	dma_ok(fd_a, src.addr, h.va, 4096, QUEUE_D2H);
	ck_assert_int_lt(first_byte_not(h.ptr, 4096, 0x3c), 0);
	host_buf_release(fd_a, &h);
	hbm_free_ok(fd_a, &src);
	hbm_free_ok(fd_a, &icb_mem);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("nic");
	TCase *tc;
	int fd = hlthunk_open_by_index(1);

	if (fd < 0) {
		/* Not a pass: nothing was tested. */
		printf("gsim-test-nic: skipped: needs two gaudisim devices on one fabric "
		       "(device 1: %s)\n", strerror(-fd));
		printf("0 passed, 1 failed\n");
		return EXIT_FAILURE;
	}
	hlthunk_close(fd);
	tc = fixture_tcase("links", pair_setup, pair_teardown, TCASE_TIMEOUT_SHORT);
	tcase_add_test(tc, links_all_to_all);
	suite_add_tcase(s, tc);
	tc = fixture_tcase("rdma", pair_setup, pair_teardown, TCASE_TIMEOUT_DMA);
	tcase_add_test(tc, write_signals_peer);
	tcase_add_test(tc, write_outside_window_fails);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
