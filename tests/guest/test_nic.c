// SPDX-License-Identifier: MIT
/*
 * NIC ports between two devices on one fabric (docs/nic.md), through the
 * driver: INFO NIC_LINKS reports the all-to-all links; a CB on device A's
 * NIC queue writes into a buffer of device B and signals B's SOB, which
 * releases a job waiting on B (B sees the data) once B registered the
 * buffer and the SOB (MEMORY NIC_REGISTER); the same write after B
 * deregistered, or outside B's receive window, fails A's job cleanly (CS
 * aborted, A recovers), is counted at B, and B's memory is untouched.
 * Two unprivileged users, one per device: the holder of device 0 can
 * neither write the HBM the other holds on device 1, which registered
 * nothing there, nor signal its SOB; both keep working.
 *
 * Needs a VM with two devices on one fabric, e.g.
 *   GAUDISIM_DEVICE_ARGS=",module-id=0,fabric=fab0"
 *   GAUDISIM_QEMU_ARGS="-object gaudisim-fabric,id=fab0
 *                       -device gaudisim,module-id=1,fabric=fab0"
 * With fewer devices it cannot test anything and fails, saying why.
 */
#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

/* Events reach the driver through B's event queue, after A's CS ended: wait (bounded). */
static bool event_count_reaches(int fd, unsigned int type, uint32_t want)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (event_count(fd, type) >= want)
			return true;
		sleep_ms(50);
	}
	return false;
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
	uint64_t seq_b, reg;
	long diff;

	hbm_alloc_ok(fd_a, &src, 2 * MiB);
	hbm_alloc_ok(fd_a, &icb_mem, 2 * MiB);
	hbm_alloc_ok(fd_b, &dst, 2 * MiB);
	/* B lets peers write exactly the buffer and raise the SOB. */
	ck_assert_int_eq(hlthunk_nic_register(fd_b, dst.addr, XFER_SIZE, sob, 1, &reg), 0);
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

	/* Deregistered: the same write is refused at B and fails A's job. */
	ck_assert_int_eq(hlthunk_nic_deregister(fd_b, reg), 0);
	ck_assert_int_eq(hlthunk_nic_deregister(fd_b, reg), -EINVAL);
	memset_ok(fd_b, dst.addr, 0, XFER_SIZE, QUEUE_H2D);
	hlthunk_cbw_init(&iw, icb, sizeof(icb));
	cbw_nic_write(&iw, src.addr, dst.addr, XFER_SIZE, sob);
	ck_assert_int_eq(run_internal_cb(&iw, icb_mem.addr, nic_queue(port_ab), QUEUE_EXT,
					 sob + 1, mon + 1, &status), -EIO);
	ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_ABORTED);
	dma_ok(fd_b, dst.addr, hdst.va, XFER_SIZE, QUEUE_D2H);
	ck_assert_int_lt(first_byte_not(hdst.ptr, XFER_SIZE, 0), 0);
	nic_links_ok(fd_b, &lb0);
	ck_assert_uint_eq(lb0.port[port_ba].rx_refused - lb1.port[port_ba].rx_refused, 1);

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
	ck_assert_msg(event_count_reaches(fd_b, GAUDISIM_EQ_EVENT_NIC_ERR, nic_err0 + 1),
		      "B posted no NIC_ERR event for the refused write");
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

START_TEST(register_checks_ownership)
{
	struct gaudisim_info_sync_manager smb = { 0 };
	uint64_t h[GAUDISIM_NIC_RX_NUM_MR + 1];
	struct hbm_buf buf;
	uint32_t i;
	int rc;

	ck_assert_int_eq(hlthunk_get_info_op(fd_b, GAUDISIM_INFO_SYNC_MANAGER, &smb, sizeof(smb)),
			 0);
	hbm_alloc_ok(fd_b, &buf, 2 * MiB);
	/* The driver's reserved HBM and SOBs, ranges that wrap: refused. */
	ck_assert_int_eq(hlthunk_nic_register(fd_b, GAUDISIM_HBM_BASE, 4096, 0, 0, &h[0]),
			 -EINVAL);
	ck_assert_int_eq(hlthunk_nic_register(fd_b, buf.addr, ~0ull - buf.addr + 2, 0, 0, &h[0]),
			 -EINVAL);
	ck_assert_int_eq(hlthunk_nic_register(fd_b, 0, 0, smb.first_available_sync_object - 1,
					      1, &h[0]), -EPERM);
	/* A handle that is not ours, or never was. */
	ck_assert_int_eq(hlthunk_nic_deregister(fd_b, GAUDISIM_NIC_RX_NUM_MR + 1), -EINVAL);
	/* The table is finite: ENOSPC, and deregistering makes room again. */
	for (i = 0; i <= GAUDISIM_NIC_RX_NUM_MR; i++) {
		rc = hlthunk_nic_register(fd_b, buf.addr, 4096, 0, 0, &h[i]);
		if (rc)
			break;
	}
	ck_assert_int_eq(rc, -ENOSPC);
	ck_assert_uint_gt(i, 0);
	ck_assert_int_eq(hlthunk_nic_deregister(fd_b, h[0]), 0);
	ck_assert_int_eq(hlthunk_nic_register(fd_b, buf.addr, 4096, 0, 0, &h[0]), 0);
	/* FREE drops the registrations over the memory; close drops the rest. */
	hbm_free_ok(fd_b, &buf);
	ck_assert_int_eq(hlthunk_nic_deregister(fd_b, h[0]), -EINVAL);
}
END_TEST

/* ---- Two users, one device each ------------------------------------------ */

#define VICTIM_UID	65533
#define ATTACKER_UID	65534

static void become(uid_t id)
{
	ck_assert_int_eq(setgroups(0, NULL), 0);
	ck_assert_int_eq(setresgid(id, id, id), 0);
	ck_assert_int_eq(setresuid(id, id, id), 0);
	ck_assert_uint_eq(geteuid(), id);
}

/* One DMA job on dev_fd that must work: HBM filled and read back. */
static void later_job_ok(int fd, uint64_t addr, uint8_t value)
{
	struct host_buf h;

	host_buf_map_ok(fd, &h, 4096);
	memset_ok(fd, addr, value, 4096, QUEUE_H2D);
	dma_ok(fd, addr, h.va, 4096, QUEUE_D2H);
	ck_assert_int_lt(first_byte_not(h.ptr, 4096, value), 0);
	host_buf_release(fd, &h);
}

/*
 * The victim holds device 1: a secret in its HBM, nothing registered for
 * peers. It publishes the secret's address, waits until the attacker is
 * done, then finds its secret intact, the refusal counted, and works on.
 */
static void victim(int to_attacker, int from_attacker)
{
	struct gaudisim_info_sync_manager smv = { 0 };
	struct gaudisim_info_nic_links l0, l1;
	struct hbm_buf secret;
	struct host_buf h, back;
	uint64_t target[2];
	uint32_t nic_err0;
	uint8_t done = 0;
	int fd;

	become(VICTIM_UID);
	fd = hlthunk_open_by_index(1);
	ck_assert_msg(fd >= 0, "victim: open device 1: %s", strerror(-fd));
	dev_fd = fd;
	ck_assert_int_eq(hlthunk_get_info_op(fd, GAUDISIM_INFO_SYNC_MANAGER, &smv, sizeof(smv)),
			 0);
	hbm_alloc_ok(fd, &secret, 2 * MiB);
	host_buf_map_ok(fd, &h, XFER_SIZE);
	host_buf_map_ok(fd, &back, XFER_SIZE);
	fill_pattern(h.ptr, XFER_SIZE, 1234);
	dma_ok(fd, h.va, secret.addr, XFER_SIZE, QUEUE_H2D);
	nic_links_ok(fd, &l0);
	nic_err0 = event_count(fd, GAUDISIM_EQ_EVENT_NIC_ERR);
	target[0] = secret.addr;
	target[1] = smv.first_available_sync_object;
	ck_assert_int_eq(write(to_attacker, target, sizeof(target)), (ssize_t)sizeof(target));
	ck_assert_int_eq(read(from_attacker, &done, 1), 1);

	dma_ok(fd, secret.addr, back.va, XFER_SIZE, QUEUE_D2H);
	ck_assert_msg(first_difference(h.ptr, back.ptr, XFER_SIZE) < 0,
		      "victim: the secret was overwritten at byte %ld",
		      first_difference(h.ptr, back.ptr, XFER_SIZE));
	nic_links_ok(fd, &l1);
	/* The write and the signal alone were both refused here. */
	ck_assert_uint_eq(l1.port[port_ba].rx_refused - l0.port[port_ba].rx_refused, 2);
	ck_assert_uint_eq(l1.port[port_ba].rx_bytes, l0.port[port_ba].rx_bytes);
	ck_assert_uint_eq(l1.port[port_ba].rx_xfers, l0.port[port_ba].rx_xfers);
	ck_assert_msg(event_count_reaches(fd, GAUDISIM_EQ_EVENT_NIC_ERR, nic_err0 + 2),
		      "victim: no NIC_ERR event for each refused write");
	later_job_ok(fd, secret.addr, 0x5c);
	host_buf_release(fd, &h);
	host_buf_release(fd, &back);
	hbm_free_ok(fd, &secret);
	hlthunk_close(fd);
}

/* The attacker holds device 0 and sends into the victim's secret and SOB. */
static void attacker(int from_victim, int to_victim)
{
	struct gaudisim_info_sync_manager sma = { 0 };
	struct hbm_buf src, icb_mem;
	struct hlthunk_cb_writer iw;
	uint32_t status = ~0u;
	uint64_t target[2] = { 0 };
	uint8_t icb[512], done = 1;
	int fd, rc;

	become(ATTACKER_UID);
	fd = hlthunk_open_by_index(0);
	ck_assert_msg(fd >= 0, "attacker: open device 0: %s", strerror(-fd));
	dev_fd = fd;
	ck_assert_int_eq(hlthunk_get_info_op(fd, GAUDISIM_INFO_SYNC_MANAGER, &sma, sizeof(sma)),
			 0);
	hbm_alloc_ok(fd, &src, 2 * MiB);
	hbm_alloc_ok(fd, &icb_mem, 2 * MiB);
	memset_ok(fd, src.addr, 0xee, XFER_SIZE, QUEUE_H2D);
	ck_assert_int_eq(read(from_victim, target, sizeof(target)), (ssize_t)sizeof(target));

	/* The victim's secret, then a signal alone to the victim's SOB. */
	hlthunk_cbw_init(&iw, icb, sizeof(icb));
	cbw_nic_write(&iw, src.addr, target[0], XFER_SIZE, (uint32_t)target[1]);
	rc = run_internal_cb(&iw, icb_mem.addr, nic_queue(port_ab), QUEUE_EXT,
			     sma.first_available_sync_object + 1,
			     sma.first_available_monitor + 1, &status);
	ck_assert_msg(rc == -EIO && status == GAUDISIM_WAIT_CS_STATUS_ABORTED,
		      "attacker: write: wait rc %d status %u, expected an aborted CS", rc, status);
	wait_operational_ok(fd);
	hlthunk_cbw_init(&iw, icb, sizeof(icb));
	cbw_nic_write(&iw, src.addr, target[0], 0, (uint32_t)target[1]);
	rc = run_internal_cb(&iw, icb_mem.addr, nic_queue(port_ab), QUEUE_EXT,
			     sma.first_available_sync_object + 1,
			     sma.first_available_monitor + 1, &status);
	ck_assert_msg(rc == -EIO && status == GAUDISIM_WAIT_CS_STATUS_ABORTED,
		      "attacker: signal: wait rc %d status %u, expected an aborted CS", rc, status);
	wait_operational_ok(fd);
	later_job_ok(fd, src.addr, 0x3c);
	ck_assert_int_eq(write(to_victim, &done, 1), 1);
	hbm_free_ok(fd, &src);
	hbm_free_ok(fd, &icb_mem);
	hlthunk_close(fd);
}

/* Wait (bounded) for a child; true when it exited 0. */
static bool child_ok(pid_t pid, const char *who)
{
	int status = 0, i;

	for (i = 0; i < 1200 && waitpid(pid, &status, WNOHANG) == 0; i++)
		sleep_ms(50);
	if (i == 1200) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		printf("%s: still running after 60 s\n", who);
		return false;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		printf("%s: ended with status 0x%x\n", who, status);
	return WIFEXITED(status) && !WEXITSTATUS(status);
}

START_TEST(other_users_hbm_is_refused)
{
	int v2a[2], a2v[2];
	pid_t pv, pa;
	bool ok_v, ok_a;

	ck_assert_int_eq(pipe(v2a), 0);
	ck_assert_int_eq(pipe(a2v), 0);
	pv = fork();
	ck_assert_int_ge(pv, 0);
	if (!pv) {
		victim(v2a[1], a2v[0]);
		_exit(0);
	}
	pa = fork();
	ck_assert_int_ge(pa, 0);
	if (!pa) {
		attacker(v2a[0], a2v[1]);
		_exit(0);
	}
	close(v2a[0]);
	close(v2a[1]);
	close(a2v[0]);
	close(a2v[1]);
	ok_a = child_ok(pa, "attacker");
	ok_v = child_ok(pv, "victim");
	ck_assert_msg(ok_a && ok_v, "attacker %s, victim %s", ok_a ? "ok" : "failed",
		      ok_v ? "ok" : "failed");
}
END_TEST

/* The module IDs and ports only; the users open the devices themselves. */
static void users_setup(void)
{
	pair_setup();
	pair_teardown();
}

static int chmod_nodes(mode_t *saved, bool restore)
{
	char node[64];
	struct stat st;
	int i;

	for (i = 0; i < 2; i++) {
		snprintf(node, sizeof(node), "/dev/accel/accel%d", i);
		if (restore) {
			chmod(node, saved[i]);
			continue;
		}
		if (stat(node, &st) || chmod(node, 0666)) {
			printf("%s: %s\n", node, strerror(errno));
			return -1;
		}
		saved[i] = st.st_mode & 07777;
	}
	return 0;
}

int main(void)
{
	Suite *s = suite_create("nic");
	TCase *tc;
	int fd = hlthunk_open_by_index(1), rc;
	mode_t modes[2];

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
	tcase_add_test(tc, register_checks_ownership);
	suite_add_tcase(s, tc);
	tc = fixture_tcase("users", users_setup, NULL, TCASE_TIMEOUT_DMA);
	tcase_add_test(tc, other_users_hbm_is_refused);
	suite_add_tcase(s, tc);
	/* The users are unprivileged: open both compute nodes to everyone meanwhile. */
	if (chmod_nodes(modes, false)) {
		printf("0 passed, 1 failed\n");
		return EXIT_FAILURE;
	}
	rc = run_suite(s);
	chmod_nodes(modes, true);
	return rc;
}
