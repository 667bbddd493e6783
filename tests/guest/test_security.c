// SPDX-License-Identifier: MIT
/*
 * Attacks and races against the driver, each run as an unprivileged user
 * (uid/gid 65534; main() makes the compute node accessible for the run):
 * MEMORY UNMAP of VAs past the host-VA range answers EINVAL at once;
 * monitor payloads can reach neither the page tables in reserved HBM nor
 * guest memory through the physical host window, whoever programs or arms
 * them (the CS fails, a sync-manager event is counted, the page tables
 * still translate as before); a memset split at a userptr discontinuity
 * keeps its fill value; a second user finds zeros where the first left
 * data, also where a parked internal job would have written after close;
 * nothing the first user armed or redirected from an internal CB (a
 * reserved or collective monitor, a queue's message base, a fence, an
 * engine's completion message, a NIC transfer descriptor) survives its
 * close, and its page fault is reported to it, not to the next user;
 * pinned memory counts against RLIMIT_MEMLOCK; CB count and bytes, and
 * the kernel CBs of a context's jobs, are capped; reserved packet bits
 * are EINVAL at submission; the restore phase runs once under racing,
 * signalled submitters; a long submission dies at once on SIGKILL.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "hw/gaudisim_hw_eq.h"
#include "hw/gaudisim_hw_mmu.h"
#include "hw/gaudisim_hw_nic.h"
#include "hw/gaudisim_hw_sync.h"
#include "sysfs_util.h"

#define NOBODY		65534
#define CB_BYTES	4096

#define QUEUE_EXT	GAUDISIM_QUEUE_ID_DMA_0_0
#define QUEUE_INT	GAUDISIM_QUEUE_ID_DMA_2_0

/* User sync objects and monitors the tests use (all in the user range). */
#define SOB_DONE	(GAUDISIM_SYNC_FIRST_USER_SOB + 0)
#define SOB_TRIGGER	(GAUDISIM_SYNC_FIRST_USER_SOB + 8)
#define SOB_RESTORE	(GAUDISIM_SYNC_FIRST_USER_SOB + 16)
#define MON_DONE	(GAUDISIM_SYNC_FIRST_USER_MON + 0)
#define MON_EVIL	(GAUDISIM_SYNC_FIRST_USER_MON + 1)
#define MON_GOOD	(GAUDISIM_SYNC_FIRST_USER_MON + 2)
#define MON_COUNT_EQ1	(GAUDISIM_SYNC_FIRST_USER_MON + 3)
#define MON_COUNT_GE2	(GAUDISIM_SYNC_FIRST_USER_MON + 4)
#define MON_WAKE	(GAUDISIM_SYNC_FIRST_USER_MON + 5)

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void drop_privileges(void)
{
	ck_assert_int_eq(setgroups(0, NULL), 0);
	ck_assert_int_eq(setresgid(NOBODY, NOBODY, NOBODY), 0);
	ck_assert_int_eq(setresuid(NOBODY, NOBODY, NOBODY), 0);
	ck_assert_uint_eq(geteuid(), NOBODY);
}

static void user_setup(void)
{
	drop_privileges();
	compute_setup();
}


/* Physical address of a resident page of this process (needs root). */
static uint64_t phys_addr_of(const void *p)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), entry = 0;
	off_t off = (off_t)((uintptr_t)p / page * sizeof(entry));
	int fd = open("/proc/self/pagemap", O_RDONLY);

	ck_assert_msg(fd >= 0, "pagemap: %s", strerror(errno));
	ck_assert_int_eq(pread(fd, &entry, sizeof(entry), off), (ssize_t)sizeof(entry));
	close(fd);
	ck_assert_msg(entry & (1ULL << 63), "page not present");
	ck_assert_msg(entry & ((1ULL << 55) - 1), "no PFN (not root?)");
	return (entry & ((1ULL << 55) - 1)) * page + (uintptr_t)p % page;
}

static void get_counters(struct cs_counts *c)
{
	cs_counts_ok(dev_fd, c);
}

/* Run one external CB to completion. */
static void run_ext_ok(void (*build)(struct hlthunk_cb_writer *w, uint64_t arg), uint64_t arg)
{
	struct test_cb cb;

	cb_create_ok(dev_fd, &cb, CB_BYTES);
	build(&cb.w, arg);
	run_cb_ok(dev_fd, &cb, QUEUE_EXT, WAIT_US_SHORT);
	cb_destroy_ok(dev_fd, &cb);
}

/* Submit one external CB; returns the submit rc (EPERM/EINVAL expected). */
static int submit_ext(void (*build)(struct hlthunk_cb_writer *w, uint64_t arg), uint64_t arg)
{
	struct gaudisim_cs_chunk chunk;
	struct test_cb cb;
	uint64_t seq = 0;
	int rc;

	cb_create_ok(dev_fd, &cb, CB_BYTES);
	build(&cb.w, arg);
	chunk = make_chunk(cb.handle, QUEUE_EXT, cb.w.used);
	rc = submit_chunk(dev_fd, &chunk, &seq);
	if (!rc)
		wait_completed_ok(dev_fd, seq, WAIT_US_SHORT);
	cb_destroy_ok(dev_fd, &cb);
	return rc;
}

/* Monitor m: when sob >= value, write data to addr. */
static void cbw_monitor(struct hlthunk_cb_writer *w, uint32_t m, uint32_t sob, uint32_t value,
			uint64_t addr, uint32_t data)
{
	cbw_mon_reg(w, GAUDISIM_SYNC_MON_PAY_ADDRL(m), (uint32_t)addr);
	cbw_mon_reg(w, GAUDISIM_SYNC_MON_PAY_ADDRH(m), (uint32_t)(addr >> 32));
	cbw_mon_reg(w, GAUDISIM_SYNC_MON_PAY_DATA(m), data);
	cbw_mon_reg(w, GAUDISIM_SYNC_MON_ARM(m), GAUDISIM_SYNC_MON_ARM_SOB(sob, 0, value));
}

/*
 * Run the packets of body on QUEUE_INT from HBM at icb_addr, with an
 * external job waiting for them (SOB_DONE, MON_DONE). Returns the wait rc.
 */
static int run_internal(const struct hlthunk_cb_writer *body, uint64_t icb_addr)
{
	struct hlthunk_cb_writer iw;
	uint8_t icb[1024];
	uint32_t status;
	int rc;

	hlthunk_cbw_init(&iw, icb, sizeof(icb));
	ck_assert_int_eq(hlthunk_cbw_dwords(&iw, (const uint32_t *)body->base, body->used / 4), 0);
	rc = run_internal_cb(&iw, icb_addr, QUEUE_INT, QUEUE_EXT, SOB_DONE, MON_DONE, &status);
	if (!rc)
		ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);
	return rc;
}

/* ---- MEMORY UNMAP range checks ------------------------------------------- */

START_TEST(unmap_outside_va_range_is_einval)
{
	static const uint64_t bad[] = {
		GAUDISIM_HOST_VA_BASE + GAUDISIM_HOST_VA_SIZE,
		GAUDISIM_HOST_VA_BASE + GAUDISIM_HOST_VA_SIZE + 4096,
		GAUDISIM_HOST_VA_BASE + 2 * GAUDISIM_HOST_VA_SIZE,
		GAUDISIM_HOST_VA_BASE + GAUDISIM_HOST_VA_SIZE - 4096,	/* inside, unmapped */
		~0ULL,
		~0ULL - 4095,
	};
	struct host_buf hb;
	unsigned int round, i;

	/* Once with an empty VA tree, once with a mapping in it. */
	for (round = 0; round < 2; round++) {
		if (round)
			host_buf_map_ok(dev_fd, &hb, 64 * KiB);
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			double t0 = now_s();
			int rc = hlthunk_memory_unmap(dev_fd, bad[i]);
			double dt = now_s() - t0;

			ck_assert_msg(rc == -EINVAL, "UNMAP 0x%llx: %d", (unsigned long long)bad[i],
				      rc);
			ck_assert_msg(dt < 0.5, "UNMAP 0x%llx took %.3f s",
				      (unsigned long long)bad[i], dt);
		}
	}
	/* The real mapping still works and unmaps. */
	memset(hb.ptr, 0x6b, hb.size);
	memset_ok(dev_fd, hb.va, 0x11, 4096, QUEUE_EXT);
	ck_assert_int_eq(first_byte_not(hb.ptr, 4096, 0x11), -1);
	ck_assert_int_eq(first_byte_not(hb.ptr + 4096, hb.size - 4096, 0x6b), -1);
	host_buf_release(dev_fd, &hb);
}
END_TEST

/* A packet whose range runs past the end of the host-VA range. */
static void build_dma_past_va_end(struct hlthunk_cb_writer *w, uint64_t dst)
{
	ck_assert_int_eq(hlthunk_cbw_lin_dma(w, GAUDISIM_HOST_VA_BASE + GAUDISIM_HOST_VA_SIZE - 8,
					     dst, 16, 0, 0), 0);
}

START_TEST(cs_with_va_past_range_is_einval)
{
	struct hbm_buf hbm;

	hbm_alloc_ok(dev_fd, &hbm, 2 * MiB);
	ck_assert_int_eq(submit_ext(build_dma_past_va_end, hbm.addr), -EINVAL);
}
END_TEST

/* ---- Monitor payload rights ---------------------------------------------- */

/* State shared by the payload tests: user memory and a canary page. */
struct payload_rig {
	struct host_buf buf;		/* userptr mapping, device-visible pattern */
	struct hbm_buf hbm;		/* internal CB at +0, data at +1 MiB */
	uint8_t *canary;		/* a page of ours, by physical address */
	uint64_t canary_phys;
	uint64_t hop0_pte;		/* HBM addresses of the PTEs of buf's VA */
	uint64_t leaf_pte;
};

static struct payload_rig rig;

#define CANARY_BYTE	0x5a
#define EVIL_WORD	0xdeadbeefu

/* As root: a canary page and its physical address; then drop and open. */
static void payload_setup(void)
{
	rig.canary = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	ck_assert(rig.canary != MAP_FAILED);
	memset(rig.canary, CANARY_BYTE, 4096);
	ck_assert_int_eq(mlock(rig.canary, 4096), 0);
	rig.canary_phys = phys_addr_of(rig.canary);
	user_setup();

	/* The context's first tables: hop 0 at the start of the area, then
	 * one table per hop for the first mapping, in order. */
	host_buf_map_ok(dev_fd, &rig.buf, 64 * KiB);
	fill_pattern(rig.buf.ptr, rig.buf.size, 0x5ec);
	rig.hop0_pte = GAUDISIM_MMU_PGT_BASE +
		       GAUDISIM_MMU_HOP_INDEX(rig.buf.va, 0) * GAUDISIM_MMU_PTE_SIZE;
	rig.leaf_pte = GAUDISIM_MMU_PGT_BASE +
		       GAUDISIM_MMU_LEAF_HOP * GAUDISIM_MMU_HOP_TABLE_SIZE +
		       GAUDISIM_MMU_HOP_INDEX(rig.buf.va, GAUDISIM_MMU_LEAF_HOP) *
		       GAUDISIM_MMU_PTE_SIZE;
	hbm_alloc_ok(dev_fd, &rig.hbm, 4 * MiB);
}

static void payload_teardown(void)
{
	compute_teardown();
	munmap(rig.canary, 4096);
}

/*
 * Nothing changed: the canary page is intact and an internal DMA through
 * buf's VA (a walk of every table on its path) still reads buf.
 */
static void assert_tables_and_host_intact(void)
{
	struct hlthunk_cb_writer w;
	uint32_t body[16];
	struct host_buf back;

	ck_assert_int_eq(first_byte_not(rig.canary, 4096, CANARY_BYTE), -1);
	hlthunk_cbw_init(&w, body, sizeof(body));
	ck_assert_int_eq(hlthunk_cbw_lin_dma(&w, rig.buf.va, rig.hbm.addr + MiB,
					     (uint32_t)rig.buf.size, 0, 0), 0);
	ck_assert_int_eq(run_internal(&w, rig.hbm.addr), 0);
	host_buf_map_ok(dev_fd, &back, rig.buf.size);
	dma_ok(dev_fd, rig.hbm.addr + MiB, back.va, (uint32_t)back.size, QUEUE_EXT);
	ck_assert_int_eq(first_difference(back.ptr, rig.buf.ptr, back.size), -1);
	host_buf_release(dev_fd, &back);
}

static void build_payload_half(struct hlthunk_cb_writer *w, uint64_t reg_value)
{
	cbw_mon_reg(w, (uint32_t)(reg_value >> 32), (uint32_t)reg_value);
}

/* The parser refuses payload address halves that reach past user memory. */
START_TEST(external_payload_address_refused)
{
	const uint32_t lo = GAUDISIM_SYNC_MON_PAY_ADDRL(MON_EVIL);
	const uint32_t hi = GAUDISIM_SYNC_MON_PAY_ADDRH(MON_EVIL);
	const uint64_t host = GAUDISIM_HOST_BASE + rig.canary_phys;
	struct cs_counts before, after;

	get_counters(&before);
	ck_assert_int_eq(submit_ext(build_payload_half, (uint64_t)lo << 32 |
				    (uint32_t)rig.leaf_pte), -EPERM);
	ck_assert_int_eq(submit_ext(build_payload_half, (uint64_t)lo << 32 |
				    (uint32_t)rig.hop0_pte), -EPERM);
	ck_assert_int_eq(submit_ext(build_payload_half, (uint64_t)hi << 32 |
				    (uint32_t)(host >> 32)), -EPERM);
	ck_assert_int_eq(submit_ext(build_payload_half, (uint64_t)hi << 32 |
				    (uint32_t)(rig.buf.va >> 32)), -EPERM);
	get_counters(&after);
	ck_assert_uint_eq(after.parsing_drop, before.parsing_drop + 4);
	ck_assert_uint_eq(after.submitted, before.submitted);
	/* What a user monitor normally targets is accepted. */
	ck_assert_int_eq(submit_ext(build_payload_half, (uint64_t)lo << 32 |
				    (uint32_t)fence_rdata_addr(QUEUE_EXT, 1)), 0);
	ck_assert_int_eq(submit_ext(build_payload_half, (uint64_t)hi << 32 |
				    (uint32_t)(fence_rdata_addr(QUEUE_EXT, 1) >> 32)), 0);
	assert_tables_and_host_intact();
}
END_TEST

static uint32_t sync_errors(void)
{
	uint32_t counts[GAUDISIM_INFO_HW_EVENTS_NUM];

	events_ok(counts);
	return counts[GAUDISIM_EQ_EVENT_SYNC_ERR];
}

/* The event queue is drained by its own interrupt: give it a moment. */
static void assert_sync_error_after(uint32_t before)
{
	int i;

	for (i = 0; i < 100 && sync_errors() == before; i++)
		sleep_ms(10);
	ck_assert_msg(sync_errors() > before, "no sync-manager event was raised");
}

/* A failed internal job resets the device; wait until it takes work again. */
/*
 * An internal CB (unparsed, run in place) programs and arms a monitor
 * whose payload targets addr: the device refuses the payload, the CS fails.
 */
static void internal_monitor_attack(uint64_t addr, uint32_t data)
{
	struct hlthunk_cb_writer w;
	uint32_t body[32];
	uint32_t errs = sync_errors();

	hlthunk_cbw_init(&w, body, sizeof(body));
	cbw_sob(&w, SOB_TRIGGER, GAUDISIM_SYNC_SOB_SET(0), 0);
	/* Condition already true: it fires while the arming packet runs. */
	cbw_monitor(&w, MON_EVIL, SOB_TRIGGER, 0, addr, data);
	ck_assert_int_eq(run_internal(&w, rig.hbm.addr), -EIO);
	assert_sync_error_after(errs);
	wait_operational_ok(dev_fd);
}

START_TEST(internal_monitor_cannot_write_page_tables)
{
	internal_monitor_attack(rig.leaf_pte, (uint32_t)rig.canary_phys |
				(uint32_t)(GAUDISIM_MMU_PTE_PRESENT | GAUDISIM_MMU_PTE_WRITABLE |
					   GAUDISIM_MMU_PTE_LAST));
	internal_monitor_attack(rig.hop0_pte, 0);
	internal_monitor_attack(GAUDISIM_HBM_BASE, EVIL_WORD);
	assert_tables_and_host_intact();
}
END_TEST

START_TEST(internal_monitor_cannot_write_host_window)
{
	internal_monitor_attack(GAUDISIM_HOST_BASE + rig.canary_phys, EVIL_WORD);
	assert_tables_and_host_intact();
}
END_TEST

/*
 * MSIX_REQ raises the driver's own vectors (completions, events): an
 * internal CB may not write it, directly or through a monitor it arms.
 */
START_TEST(internal_cb_cannot_raise_driver_interrupts)
{
	static const uint32_t vectors[] = { GAUDISIM_MSIX_VEC_EQ, QUEUE_EXT };
	const uint64_t msix_req = GAUDISIM_CFG_BASE + GAUDISIM_REG_MSIX_REQ;
	struct hlthunk_cb_writer w;
	uint32_t body[32];
	unsigned int i;

	for (i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		hlthunk_cbw_init(&w, body, sizeof(body));
		ck_assert_int_eq(hlthunk_cbw_msg_long(&w, msix_req, vectors[i], 0), 0);
		ck_assert_msg(run_internal(&w, rig.hbm.addr) == -EIO,
			      "internal CB raised vector %u", vectors[i]);
		wait_operational_ok(dev_fd);
		internal_monitor_attack(msix_req, vectors[i]);
	}
	/* The user interrupts stay open to internal CBs. */
	hlthunk_cbw_init(&w, body, sizeof(body));
	ck_assert_int_eq(hlthunk_cbw_user_interrupt(&w, GAUDISIM_MSIX_VEC_USER_FIRST), 0);
	ck_assert_int_eq(run_internal(&w, rig.hbm.addr), 0);
}
END_TEST

/* Arm MON_EVIL (whose payload someone else programmed) from an external CB. */
static void build_arm_evil(struct hlthunk_cb_writer *w, uint64_t unused)
{
	(void)unused;
	cbw_sob(w, SOB_TRIGGER, GAUDISIM_SYNC_SOB_SET(0), 0);
	cbw_mon_reg(w, GAUDISIM_SYNC_MON_ARM(MON_EVIL), GAUDISIM_SYNC_MON_ARM_SOB(SOB_TRIGGER, 0, 0));
}

/*
 * Split rights: an internal CB writes the payload address (it may), an
 * external CB arms the monitor (it may). The payload still carries a
 * user's rights, not the external queue's.
 */
START_TEST(split_programming_gains_nothing)
{
	const uint64_t targets[] = { GAUDISIM_HOST_BASE + rig.canary_phys, rig.leaf_pte };
	struct gaudisim_cs_chunk chunk;
	struct hlthunk_cb_writer w;
	uint32_t body[32], status, errs;
	struct test_cb cb;
	unsigned int i;
	uint64_t seq;

	for (i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
		hlthunk_cbw_init(&w, body, sizeof(body));
		cbw_mon_reg(&w, GAUDISIM_SYNC_MON_PAY_ADDRL(MON_EVIL), (uint32_t)targets[i]);
		cbw_mon_reg(&w, GAUDISIM_SYNC_MON_PAY_ADDRH(MON_EVIL), (uint32_t)(targets[i] >> 32));
		cbw_mon_reg(&w, GAUDISIM_SYNC_MON_PAY_DATA(MON_EVIL), EVIL_WORD);
		ck_assert_int_eq(run_internal(&w, rig.hbm.addr), 0);

		errs = sync_errors();
		cb_create_ok(dev_fd, &cb, CB_BYTES);
		build_arm_evil(&cb.w, 0);
		chunk = make_chunk(cb.handle, QUEUE_EXT, cb.w.used);
		ck_assert_int_eq(submit_chunk(dev_fd, &chunk, &seq), 0);
		ck_assert_int_eq(hlthunk_wait_for_cs(dev_fd, seq, WAIT_US_SHORT, &status), -EIO);
		ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_ABORTED);
		cb_destroy_ok(dev_fd, &cb);
		assert_sync_error_after(errs);
		wait_operational_ok(dev_fd);
	}
	assert_tables_and_host_intact();
}
END_TEST

/* Only the rights changed: a user monitor's payload to user HBM still lands. */
START_TEST(internal_monitor_to_user_hbm_works)
{
	const uint64_t word = rig.hbm.addr + 2 * MiB;
	struct hlthunk_cb_writer w;
	uint32_t body[32];
	struct host_buf back;

	hlthunk_cbw_init(&w, body, sizeof(body));
	cbw_sob(&w, SOB_TRIGGER, GAUDISIM_SYNC_SOB_SET(0), 0);
	cbw_monitor(&w, MON_GOOD, SOB_TRIGGER, 0, word, 0x600d);
	ck_assert_int_eq(run_internal(&w, rig.hbm.addr), 0);
	host_buf_map_ok(dev_fd, &back, 4096);
	dma_ok(dev_fd, word, back.va, 4, QUEUE_EXT);
	ck_assert_uint_eq(*(uint32_t *)back.ptr, 0x600d);
	host_buf_release(dev_fd, &back);
}
END_TEST

/* ---- Device state left behind at close ------------------------------------ */

#define QUEUE_INT_1	(GAUDISIM_QUEUE_ID_DMA_2_0 + 1)	/* DMA_2 stream 1 */
#define LEFT_SIZE	(2 * MiB)
#define LEFT_FILL	0x11
/* Outside the range the driver clears for a shared context's slice. */
#define MON_RESERVED	GAUDISIM_SYNC_RESERVED_MON_FIRST
#define MON_COLLECTIVE	(GAUDISIM_SYNC_COLLECTIVE_MON_FIRST + 10)

static uint64_t cfg_addr(uint32_t offset)
{
	return GAUDISIM_CFG_BASE + offset;
}

static uint32_t sync_reg(uint32_t reg)
{
	return GAUDISIM_BLOCK_SYNC_MNGR + reg;
}

static uint32_t dma2_qm_reg(uint32_t reg)
{
	return GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_DMA_2) + reg;
}

static void cbw_msg_long_ok(struct hlthunk_cb_writer *w, uint32_t offset, uint32_t value)
{
	ck_assert_int_eq(hlthunk_cbw_msg_long(w, cfg_addr(offset), value, 0), 0);
}

/*
 * User 1, as nobody in a child: from an internal CB it arms a reserved and
 * a collective monitor at its HBM, points stream 1 of DMA_2 at its HBM for
 * sync-object writes, raises one of that stream's fences, and leaves a
 * completion message on the MME and a transfer descriptor on NIC port 0.
 * Exits 0 once the CB ran, closing the device.
 */
static void leave_state_behind(uint64_t *hbm_addr)
{
	struct hlthunk_cb_writer w;
	struct hbm_buf buf;
	uint32_t body[128];
	uint64_t target;

	drop_privileges();
	compute_setup();
	hbm_alloc_ok(dev_fd, &buf, LEFT_SIZE);
	*hbm_addr = buf.addr;
	target = buf.addr + 4096;

	hlthunk_cbw_init(&w, body, sizeof(body));
	cbw_sob(&w, SOB_TRIGGER, GAUDISIM_SYNC_SOB_SET(0), 0);
	cbw_monitor(&w, MON_RESERVED, SOB_TRIGGER, 1, target, EVIL_WORD);
	cbw_monitor(&w, MON_COLLECTIVE, SOB_TRIGGER, 1, target + 4, EVIL_WORD);
	cbw_msg_long_ok(&w, dma2_qm_reg(GAUDISIM_QM_CP_MSG_BASE_LO(1, 1)), (uint32_t)target);
	cbw_msg_long_ok(&w, dma2_qm_reg(GAUDISIM_QM_CP_MSG_BASE_HI(1, 1)),
			(uint32_t)(target >> 32));
	cbw_msg_long_ok(&w, dma2_qm_reg(GAUDISIM_QM_CP_FENCE_RDATA(1, 1)), 1);
	cbw_msg_long_ok(&w, GAUDISIM_ENGINE_BLOCK(GAUDISIM_ENGINE_MME) +
			GAUDISIM_ENG_WR_COMP_ADDR_LO, (uint32_t)target + 8);
	cbw_msg_long_ok(&w, GAUDISIM_ENGINE_BLOCK(GAUDISIM_ENGINE_MME) +
			GAUDISIM_ENG_WR_COMP_WDATA, EVIL_WORD);
	cbw_msg_long_ok(&w, GAUDISIM_ENGINE_BLOCK(GAUDISIM_ENGINE_MME) +
			GAUDISIM_ENG_WR_COMP_EN, 1);
	cbw_msg_long_ok(&w, GAUDISIM_ENGINE_BLOCK(GAUDISIM_ENGINE_NIC_0) +
			GAUDISIM_NIC_TX_DST_LO, (uint32_t)target);
	cbw_msg_long_ok(&w, GAUDISIM_ENGINE_BLOCK(GAUDISIM_ENGINE_NIC_0) +
			GAUDISIM_NIC_TX_REMOTE_SOB,
			GAUDISIM_NIC_TX_REMOTE_SOB_EN | SOB_TRIGGER);
	ck_assert_int_eq(run_internal(&w, buf.addr), 0);
	compute_teardown();
}

/* Set off whatever watches SOB_TRIGGER. */
static void build_trigger(struct hlthunk_cb_writer *w, uint64_t unused)
{
	(void)unused;
	cbw_sob(w, SOB_TRIGGER, GAUDISIM_SYNC_SOB_SET(1), 0);
}

static char dbg_dir[PATH_LEN];

/* A register of the device, read as root through debugfs. */
static uint32_t reg_ok(uint32_t offset)
{
	char path[PATH_LEN], buf[32], *end;
	unsigned long v;

	snprintf(buf, sizeof(buf), "0x%" PRIx64, cfg_addr(offset));
	join_path(path, sizeof(path), dbg_dir, "addr");
	ck_assert_int_eq(write_text(path, buf), 0);
	join_path(path, sizeof(path), dbg_dir, "data32");
	ck_assert_int_eq(read_text(path, buf, sizeof(buf)), 0);
	v = strtoul(buf, &end, 16);
	ck_assert_msg(end != buf && *end == '\0', "data32: '%s'", buf);
	return (uint32_t)v;
}

static void assert_monitor_clean(uint32_t m)
{
	ck_assert_msg(!(reg_ok(sync_reg(GAUDISIM_SYNC_MON_STATUS(m))) &
			GAUDISIM_SYNC_MON_STATUS_ARMED), "monitor %u still armed after close", m);
	ck_assert_uint_eq(reg_ok(sync_reg(GAUDISIM_SYNC_MON_PAY_ADDRL(m))), 0);
	ck_assert_uint_eq(reg_ok(sync_reg(GAUDISIM_SYNC_MON_PAY_DATA(m))), 0);
}

/* What the driver found after user 1's close: its state is gone. */
static void assert_device_clean(void)
{
	const uint64_t sob_base = GAUDISIM_SYNC_SOB_BASE_ADDR;
	const uint32_t mme = GAUDISIM_ENGINE_BLOCK(GAUDISIM_ENGINE_MME);
	const uint32_t nic = GAUDISIM_ENGINE_BLOCK(GAUDISIM_ENGINE_NIC_0);

	debugfs_dir_ok(dbg_dir, sizeof(dbg_dir));
	assert_monitor_clean(MON_RESERVED);
	assert_monitor_clean(MON_COLLECTIVE);
	ck_assert_uint_eq(reg_ok(dma2_qm_reg(GAUDISIM_QM_CP_MSG_BASE_LO(1, 1))),
			  (uint32_t)sob_base);
	ck_assert_uint_eq(reg_ok(dma2_qm_reg(GAUDISIM_QM_CP_MSG_BASE_HI(1, 1))),
			  (uint32_t)(sob_base >> 32));
	ck_assert_uint_eq(reg_ok(dma2_qm_reg(GAUDISIM_QM_CP_FENCE_CNT(1, 1))), 0);
	ck_assert_uint_eq(reg_ok(mme + GAUDISIM_ENG_WR_COMP_EN), 0);
	ck_assert_uint_eq(reg_ok(mme + GAUDISIM_ENG_WR_COMP_ADDR_LO), 0);
	if (reg_ok(GAUDISIM_REG_CAPS) & GAUDISIM_CAP_NIC) {
		ck_assert_uint_eq(reg_ok(nic + GAUDISIM_NIC_TX_DST_LO), 0);
		ck_assert_uint_eq(reg_ok(nic + GAUDISIM_NIC_TX_REMOTE_SOB), 0);
	}
}

/*
 * User 2, as nobody in a child: the same HBM, filled, survives its own
 * signal on the SOB user 1's monitors watched, and its internal job on
 * stream 1 of DMA_2 signals its SOB where the driver put the base.
 */
static void next_user_unharmed(uint64_t hbm_addr)
{
	struct hlthunk_cb_writer w;
	struct host_buf back;
	struct hbm_buf buf;
	uint32_t body[8], status = ~0u;

	drop_privileges();
	compute_setup();
	hbm_alloc_ok(dev_fd, &buf, LEFT_SIZE);
	ck_assert_uint_eq(buf.addr, hbm_addr);
	memset_ok(dev_fd, buf.addr, LEFT_FILL, LEFT_SIZE, QUEUE_EXT);
	run_ext_ok(build_trigger, 0);
	hlthunk_cbw_init(&w, body, sizeof(body));
	ck_assert_int_eq(run_internal_cb(&w, buf.addr + LEFT_SIZE - 4096, QUEUE_INT_1, QUEUE_EXT,
					 SOB_DONE, MON_DONE, &status), 0);
	ck_assert_uint_eq(status, GAUDISIM_WAIT_CS_STATUS_COMPLETED);
	sleep_ms(100);
	host_buf_map_ok(dev_fd, &back, 64 * KiB);
	dma_ok(dev_fd, buf.addr, back.va, 64 * KiB, QUEUE_EXT);
	ck_assert_int_eq(first_byte_not(back.ptr, 64 * KiB, LEFT_FILL), -1);
	host_buf_release(dev_fd, &back);
	compute_teardown();
}

/* Run fn as nobody in a child; assert it exited 0. */
static void as_nobody_ok(void (*fn)(uint64_t *addr), uint64_t *addr)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		fn(addr);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "user child failed");
}

static void next_user_child(uint64_t *addr)
{
	next_user_unharmed(*addr);
}

/*
 * User 1 (nobody, in a child): an internal DMA from a VA it never mapped
 * faults; it finds its fault in PAGE_FAULT_EVENT and RAZWI_EVENT.
 */
static void fault_and_see_it(uint64_t *unused)
{
	const uint64_t unmapped = GAUDISIM_HOST_VA_BASE + GAUDISIM_HOST_VA_SIZE - 16 * MiB;
	struct gaudisim_info_razwi_event razwi;
	struct gaudisim_page_fault_info pf;
	struct hlthunk_cb_writer w;
	struct hbm_buf buf;
	uint32_t body[16];

	(void)unused;
	drop_privileges();
	compute_setup();
	hbm_alloc_ok(dev_fd, &buf, LEFT_SIZE);
	hlthunk_cbw_init(&w, body, sizeof(body));
	ck_assert_int_eq(hlthunk_cbw_lin_dma(&w, unmapped, buf.addr, 4096, 0, 0), 0);
	ck_assert_int_eq(run_internal(&w, buf.addr + LEFT_SIZE - 4096), -EIO);
	wait_operational_ok(dev_fd);
	ck_assert_int_eq(hlthunk_get_page_fault_info(dev_fd, &pf), 0);
	ck_assert_msg(pf.timestamp && pf.addr >= unmapped && pf.addr < unmapped + 4096,
		      "own fault not reported: at 0x%llx", (unsigned long long)pf.addr);
	ck_assert_int_eq(hlthunk_get_event_record(dev_fd, HLTHUNK_RAZWI_EVENT, &razwi), 0);
	ck_assert_uint_eq(razwi.addr, pf.addr);
	compute_teardown();
}

/* User 2 (nobody, in a child): nothing of user 1's fault. */
static void see_no_fault(uint64_t *unused)
{
	struct gaudisim_info_razwi_event razwi;
	struct gaudisim_page_fault_info pf;

	(void)unused;
	drop_privileges();
	compute_setup();
	ck_assert_int_eq(hlthunk_get_page_fault_info(dev_fd, &pf), 0);
	ck_assert_msg(!pf.timestamp && !pf.addr, "the previous user's fault at 0x%llx is shown",
		      (unsigned long long)pf.addr);
	ck_assert_int_eq(hlthunk_get_event_record(dev_fd, HLTHUNK_RAZWI_EVENT, &razwi), 0);
	ck_assert_msg(!razwi.timestamp && !razwi.addr, "the previous user's razwi is shown");
	compute_teardown();
}

START_TEST(fault_reports_stay_with_their_user)
{
	struct gaudisim_page_fault_info pf;
	int ctl;

	as_nobody_ok(fault_and_see_it, NULL);
	as_nobody_ok(see_no_fault, NULL);
	/* The control node still reports every fault of the device. */
	ctl = open_control_ok();
	ck_assert_int_eq(hlthunk_get_page_fault_info(ctl, &pf), 0);
	ck_assert_int_gt(pf.timestamp, 0);
	hlthunk_close(ctl);
}
END_TEST

START_TEST(close_leaves_nothing_armed)
{
	uint64_t *addr = mmap(NULL, sizeof(*addr), PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(addr, MAP_FAILED);
	as_nobody_ok(leave_state_behind, addr);
	assert_device_clean();
	as_nobody_ok(next_user_child, addr);
	munmap(addr, sizeof(*addr));
}
END_TEST

/* ---- Memset across a userptr discontinuity -------------------------------- */

START_TEST(memset_split_keeps_fill_value)
{
	const size_t pages = 64, page = 4096, head = 0x123;
	unsigned int breaks = 0;
	struct host_buf hb;
	uint64_t prev = 0;
	size_t i;

	/* Small pages in a scattered order, so the bus addresses jump. */
	host_buf_alloc_ok(&hb, pages * page);
	madvise(hb.ptr, hb.size, MADV_NOHUGEPAGE);
	for (i = 0; i < pages; i++) {
		uint64_t phys;

		hb.ptr[(i * 37 % pages) * page] = 0;
		phys = phys_addr_of(hb.ptr + i * page);
		if (i && phys != prev + page)
			breaks++;
		prev = phys;
	}
	ck_assert_msg(breaks > 0, "the buffer is physically contiguous: nothing to split");
	memset(hb.ptr, 0, hb.size);

	user_setup();
	ck_assert_int_eq(host_map_rc(dev_fd, hb.ptr, hb.size, &hb.va), 0);
	memset_ok(dev_fd, hb.va + head, 0xa5, (uint32_t)(hb.size - 2 * head), QUEUE_EXT);
	ck_assert_int_eq(first_byte_not(hb.ptr, head, 0), -1);
	ck_assert_int_eq(first_byte_not(hb.ptr + head, hb.size - 2 * head, 0xa5), -1);
	ck_assert_int_eq(first_byte_not(hb.ptr + hb.size - head, head, 0), -1);
	host_buf_release(dev_fd, &hb);
	compute_teardown();
}
END_TEST

/* ---- HBM scrub and engine release on close -------------------------------- */

#define SCRUB_SIZE	(8 * MiB)

/* Park an internal job on fence 1 of QUEUE_INT; woken, it would memset. */
static void park_internal_memset(uint64_t icb_addr, uint64_t dst, uint32_t size)
{
	struct gaudisim_cs_chunk chunks[2];
	struct hlthunk_cb_writer iw;
	uint8_t icb[128];
	struct test_cb cb;
	uint64_t seq;

	hlthunk_cbw_init(&iw, icb, sizeof(icb));
	ck_assert_int_eq(hlthunk_cbw_fence(&iw, 1, 1, 1, 0), 0);
	ck_assert_int_eq(hlthunk_cbw_memset(&iw, dst, 0x3c, size, 0), 0);
	put_in_hbm_ok(icb, iw.used, icb_addr);
	cb_create_ok(dev_fd, &cb, CB_BYTES);
	ck_assert_int_eq(hlthunk_cbw_nop(&cb.w, 0), 0);
	chunks[0] = make_chunk(icb_addr, QUEUE_INT, iw.used);
	chunks[1] = make_chunk(cb.handle, QUEUE_EXT, cb.w.used);
	ck_assert_int_eq(submit_chunks(chunks, 2, 30, &seq), 0);
	wait_completed_ok(dev_fd, seq, WAIT_US_SHORT);
	cb_destroy_ok(dev_fd, &cb);
}

/* Add 1 to fence 1 of QUEUE_INT through a monitor payload. */
static void build_wake_internal(struct hlthunk_cb_writer *w, uint64_t unused)
{
	(void)unused;
	cbw_sob(w, SOB_TRIGGER, GAUDISIM_SYNC_SOB_SET(0), 0);
	cbw_monitor(w, MON_WAKE, SOB_TRIGGER, 0, fence_rdata_addr(QUEUE_INT, 1), 1);
}

START_TEST(second_user_reads_zeros)
{
	struct hbm_buf a, freed;
	struct host_buf back;
	uint64_t addr;

	/* User 1: data in HBM, a freed allocation, a job parked on a fence. */
	hbm_alloc_ok(dev_fd, &freed, 2 * MiB);
	memset_ok(dev_fd, freed.addr, 0x77, 2 * MiB, QUEUE_EXT);
	hbm_free_ok(dev_fd, &freed);
	hbm_alloc_ok(dev_fd, &a, SCRUB_SIZE);
	addr = a.addr;
	memset_ok(dev_fd, a.addr, 0xc3, SCRUB_SIZE / 2, QUEUE_EXT);
	park_internal_memset(a.addr + SCRUB_SIZE - 4096, a.addr + SCRUB_SIZE / 2,
			     SCRUB_SIZE / 2 - 4096);
	compute_teardown();

	/* User 2 (another open): the same HBM reads back as zeros. */
	compute_setup();
	hbm_alloc_ok(dev_fd, &a, SCRUB_SIZE);
	ck_assert_uint_eq(a.addr, addr);
	/* Wake the parked job, had it survived the close; give it time. */
	run_ext_ok(build_wake_internal, 0);
	sleep_ms(200);
	host_buf_map_ok(dev_fd, &back, SCRUB_SIZE);
	memset(back.ptr, 0xff, back.size);
	dma_ok(dev_fd, a.addr, back.va, SCRUB_SIZE, QUEUE_EXT);
	ck_assert_int_eq(first_byte_not(back.ptr, SCRUB_SIZE, 0), -1);
	host_buf_release(dev_fd, &back);
}
END_TEST

/* ---- RLIMIT_MEMLOCK -------------------------------------------------------- */

START_TEST(pinning_obeys_rlimit_memlock)
{
	const struct rlimit lim = { 1 * MiB, 1 * MiB };
	struct host_buf a, b, c;
	int rc;

	ck_assert_int_eq(setrlimit(RLIMIT_MEMLOCK, &lim), 0);
	host_buf_map_ok(dev_fd, &a, 768 * KiB);
	host_buf_alloc_ok(&b, 512 * KiB);
	rc = host_map_rc(dev_fd, b.ptr, b.size, &b.va);
	ck_assert_msg(rc == -ENOMEM, "map beyond RLIMIT_MEMLOCK: %d", rc);
	host_buf_alloc_ok(&c, 2 * MiB);
	ck_assert_int_eq(host_map_rc(dev_fd, c.ptr, c.size, &c.va), -ENOMEM);
	/* Unmapping gives the pages back to the limit. */
	host_buf_release(dev_fd, &a);
	ck_assert_int_eq(host_map_rc(dev_fd, b.ptr, b.size, &b.va), 0);
	memset_ok(dev_fd, b.va, 0x42, 4096, QUEUE_EXT);
	ck_assert_int_eq(first_byte_not(b.ptr, 4096, 0x42), -1);
	host_buf_release(dev_fd, &b);
	host_buf_release(dev_fd, &c);
}
END_TEST

/* ---- CB caps ----------------------------------------------------------------- */

#define CB_COUNT_MAX	65535
#define CB_BYTES_MAX	(256 * MiB)

START_TEST(cb_count_and_bytes_capped)
{
	static uint64_t handles[CB_COUNT_MAX];
	const uint32_t big = GAUDISIM_CB_MAX_SIZE;
	uint64_t extra;
	unsigned int i, n;

	for (i = 0; i < CB_COUNT_MAX; i++)
		ck_assert_int_eq(hlthunk_request_command_buffer(dev_fd, 4096, &handles[i]), 0);
	ck_assert_int_eq(hlthunk_request_command_buffer(dev_fd, 4096, &extra), -ENOMEM);
	ck_assert_int_eq(hlthunk_destroy_command_buffer(dev_fd, handles[0]), 0);
	ck_assert_int_eq(hlthunk_request_command_buffer(dev_fd, 4096, &handles[0]), 0);
	for (i = 0; i < CB_COUNT_MAX; i++)
		ck_assert_int_eq(hlthunk_destroy_command_buffer(dev_fd, handles[i]), 0);

	/* Bytes: the largest CBs, each a 2 MiB allocation. */
	n = CB_BYTES_MAX / (2 * MiB);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(hlthunk_request_command_buffer(dev_fd, big, &handles[i]), 0);
	ck_assert_int_eq(hlthunk_request_command_buffer(dev_fd, big, &extra), -ENOMEM);
	ck_assert_int_eq(hlthunk_request_command_buffer(dev_fd, 4096, &extra), -ENOMEM);
	ck_assert_int_eq(hlthunk_destroy_command_buffer(dev_fd, handles[0]), 0);
	ck_assert_int_eq(hlthunk_request_command_buffer(dev_fd, big, &handles[0]), 0);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(hlthunk_destroy_command_buffer(dev_fd, handles[i]), 0);
}
END_TEST

/* A CB of the largest size full of NOPs, and chunks that all run it. */
static uint64_t nop_cb_chunks(struct gaudisim_cs_chunk *chunks, unsigned int n)
{
	uint32_t size = GAUDISIM_CB_MAX_SIZE & ~7u;
	struct hlthunk_cb_writer w;
	uint64_t handle;
	unsigned int i;
	void *p;

	ck_assert_int_eq(hlthunk_request_command_buffer(dev_fd, size, &handle), 0);
	p = hlthunk_cb_mmap(dev_fd, handle, size);
	ck_assert_ptr_nonnull(p);
	hlthunk_cbw_init(&w, p, size);
	while (!hlthunk_cbw_nop(&w, 0))
		;
	for (i = 0; i < n; i++)
		chunks[i] = make_chunk(handle, QUEUE_EXT + i % 4, w.used);
	return handle;
}

#define KCB_CAP_CHUNKS	129	/* 2 MiB kernel CBs: one more than 256 MiB holds */

START_TEST(kernel_cb_memory_capped)
{
	static struct gaudisim_cs_chunk chunks[KCB_CAP_CHUNKS];
	uint64_t seq;

	nop_cb_chunks(chunks, KCB_CAP_CHUNKS);
	ck_assert_int_eq(submit_chunks(chunks, KCB_CAP_CHUNKS, 0, &seq), -ENOMEM);
	/* Everything was given back: half of the cap goes through. */
	ck_assert_int_eq(submit_chunks(chunks, KCB_CAP_CHUNKS / 2, 0, &seq), 0);
	wait_completed_ok(dev_fd, seq, WAIT_US_DMA);
}
END_TEST

/* ---- Reserved bits: EINVAL at submission -------------------------------- */

static void build_raw(struct hlthunk_cb_writer *w, uint64_t pkt)
{
	const uint32_t dw[2] = { (uint32_t)pkt, (uint32_t)(pkt >> 32) };

	ck_assert_int_eq(hlthunk_cbw_dwords(w, dw, 2), 0);
}

static uint64_t raw(uint32_t dw0, uint32_t ctl)
{
	return (uint64_t)ctl << 32 | dw0;
}

static uint64_t msg_short(uint32_t base, uint32_t offset, uint32_t value)
{
	return raw(value, GAUDISIM_PKT_CTL(GAUDISIM_PKT_MSG_SHORT) |
		   base << GAUDISIM_MSG_SHORT_CTL_BASE_SHIFT | offset);
}

START_TEST(reserved_bits_are_einval)
{
	const uint32_t sob_off = 4 * SOB_TRIGGER;
	const uint32_t arm_off = GAUDISIM_SYNC_MON_ARM(MON_GOOD) - GAUDISIM_SYNC_MON_BASE_OFFSET;
	const uint64_t bad[] = {
		msg_short(1, sob_off, 1u << 15),			/* so_upd bits [29:15] */
		msg_short(1, sob_off, GAUDISIM_SYNC_SOB_INC | 1u << 20),
		msg_short(0, arm_off, GAUDISIM_SYNC_MON_ARM_VALUE(SOB_TRIGGER / 8, 0xff, 0, 1)),
		raw(1u << 8, GAUDISIM_PKT_CTL(GAUDISIM_PKT_ARB_POINT)),	/* ARB_POINT dw0 */
		raw(0, GAUDISIM_PKT_CTL(GAUDISIM_PKT_ARB_POINT) | 1u << 12),
		raw(1u << 4, GAUDISIM_PKT_CTL(GAUDISIM_PKT_FENCE)),	/* FENCE dw0 */
		raw(0, GAUDISIM_PKT_CTL(GAUDISIM_PKT_FENCE) | 1u << 5),
		raw(0, GAUDISIM_PKT_CTL(GAUDISIM_PKT_WREG_32) | 1u << 16),
	};
	const uint64_t good[] = {
		msg_short(1, sob_off, GAUDISIM_SYNC_SOB_TE | GAUDISIM_SYNC_SOB_ADD(1)),
		raw(0xff | GAUDISIM_ARB_POINT_RLS, GAUDISIM_PKT_CTL(GAUDISIM_PKT_ARB_POINT)),
		raw(0x12345678, GAUDISIM_PKT_CTL(GAUDISIM_PKT_NOP) | 0xffff),
		raw(0, GAUDISIM_PKT_CTL(GAUDISIM_PKT_FENCE) | 1u),	/* predicate 1 */
	};
	struct cs_counts before, after;
	unsigned int i;

	get_counters(&before);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(submit_ext(build_raw, bad[i]) == -EINVAL, "case %u not EINVAL", i);
	get_counters(&after);
	ck_assert_uint_eq(after.parsing_drop, before.parsing_drop + i);
	ck_assert_uint_eq(after.submitted, before.submitted);
	ck_assert_uint_eq(after.errors, before.errors);
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ck_assert_msg(submit_ext(build_raw, good[i]) == 0, "good case %u refused", i);
	get_counters(&after);
	ck_assert_uint_eq(after.errors, before.errors);
}
END_TEST

/* ---- Restore phase: once per context -------------------------------------- */

#define RESTORE_THREADS	6
#define RESTORE_FILL	(128 * MiB)

static struct {
	pthread_barrier_t start;
	struct test_cb restore, exec;
	volatile int stop;
	pthread_t submitters[RESTORE_THREADS];
	int rc[RESTORE_THREADS];
	unsigned int eintr;
} race;

static void on_sigusr1(int sig)
{
	(void)sig;
}

/* One CS with restore chunks, retried on EINTR like any caller would. */
static void *restore_submitter(void *arg)
{
	int i = (int)(intptr_t)arg, rc;
	struct gaudisim_cs_chunk restore = make_chunk(race.restore.handle, QUEUE_EXT,
						      race.restore.w.used);
	struct gaudisim_cs_chunk exec = make_chunk(race.exec.handle, QUEUE_EXT + 1,
						   race.exec.w.used);
	union gaudisim_cs_args args;

	pthread_barrier_wait(&race.start);
	do {
		memset(&args, 0, sizeof(args));
		args.in.chunks_restore = (uint64_t)(uintptr_t)&restore;
		args.in.num_chunks_restore = 1;
		args.in.chunks_execute = (uint64_t)(uintptr_t)&exec;
		args.in.num_chunks_execute = 1;
		rc = ioctl(dev_fd, DRM_IOCTL_GAUDISIM_CS, &args) ? -errno : 0;
		if (rc == -EINTR)
			__atomic_add_fetch(&race.eintr, 1, __ATOMIC_RELAXED);
	} while (rc == -EINTR || rc == -EAGAIN);
	race.rc[i] = rc;
	if (!rc)
		wait_completed_ok(dev_fd, args.out.seq, WAIT_US_DMA);
	return NULL;
}

/* Count SOB_RESTORE: == 1 writes 1 at word, >= 2 writes 2 at word + 4. */
static void build_count_monitors(struct hlthunk_cb_writer *w, uint64_t word)
{
	cbw_mon_reg(w, GAUDISIM_SYNC_MON_PAY_ADDRL(MON_COUNT_EQ1), (uint32_t)word);
	cbw_mon_reg(w, GAUDISIM_SYNC_MON_PAY_ADDRH(MON_COUNT_EQ1), (uint32_t)(word >> 32));
	cbw_mon_reg(w, GAUDISIM_SYNC_MON_PAY_DATA(MON_COUNT_EQ1), 1);
	cbw_mon_reg(w, GAUDISIM_SYNC_MON_ARM(MON_COUNT_EQ1),
		    GAUDISIM_SYNC_MON_ARM_SOB(SOB_RESTORE, 1, 1));
	cbw_monitor(w, MON_COUNT_GE2, SOB_RESTORE, 2, word + 4, 2);
}

START_TEST(restore_runs_once)
{
	struct sigaction sa = { .sa_handler = on_sigusr1 };
	struct hbm_buf hbm;
	struct host_buf back;
	int i;

	ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);	/* no SA_RESTART */
	/* No CS before the race: the first one of a context runs the restore. */
	hbm_alloc_ok(dev_fd, &hbm, RESTORE_FILL + 2 * MiB);

	/* The restore chunk counts itself, after a fill long enough to signal. */
	cb_create_ok(dev_fd, &race.restore, CB_BYTES);
	ck_assert_int_eq(hlthunk_cbw_memset(&race.restore.w, hbm.addr, 0xee, RESTORE_FILL, 0), 0);
	cbw_sob(&race.restore.w, SOB_RESTORE, GAUDISIM_SYNC_SOB_ADD(1), GAUDISIM_PKT_CTL_EB);
	cb_create_ok(dev_fd, &race.exec, CB_BYTES);
	ck_assert_int_eq(hlthunk_cbw_nop(&race.exec.w, 0), 0);

	ck_assert_int_eq(pthread_barrier_init(&race.start, NULL, RESTORE_THREADS + 1), 0);
	for (i = 0; i < RESTORE_THREADS; i++)
		ck_assert_int_eq(pthread_create(&race.submitters[i], NULL, restore_submitter,
						(void *)(intptr_t)i), 0);
	pthread_barrier_wait(&race.start);
	/* Signal storm while the restore phase runs. */
	for (i = 0; i < 400; i++) {
		int t;

		for (t = 0; t < RESTORE_THREADS; t++)
			pthread_kill(race.submitters[t], SIGUSR1);
		sleep_ms(1);
	}
	for (i = 0; i < RESTORE_THREADS; i++) {
		pthread_join(race.submitters[i], NULL);
		ck_assert_msg(race.rc[i] == 0, "submitter %d: %d", i, race.rc[i]);
	}

	memset_ok(dev_fd, hbm.addr + RESTORE_FILL, 0, 8, QUEUE_EXT);
	run_ext_ok(build_count_monitors, hbm.addr + RESTORE_FILL);
	host_buf_map_ok(dev_fd, &back, 4096);
	dma_ok(dev_fd, hbm.addr + RESTORE_FILL, back.va, 8, QUEUE_EXT);
	ck_assert_msg(((uint32_t *)back.ptr)[0] == 1 && ((uint32_t *)back.ptr)[1] == 0,
		      "restore phase ran %s (%u EINTR)",
		      ((uint32_t *)back.ptr)[1] ? "more than once" : "never", race.eintr);
	host_buf_release(dev_fd, &back);
}
END_TEST

/* ---- A long submission dies at once on SIGKILL ----------------------------- */

#define LONG_CHUNKS	100

START_TEST(long_submission_is_killable)
{
	static struct gaudisim_cs_chunk chunks[LONG_CHUNKS];
	double t0, t_kill, dt;
	int status = 0;
	uint64_t seq;
	pid_t pid;

	nop_cb_chunks(chunks, LONG_CHUNKS);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		/* Parsing 100 x 256 Ki packets twice takes far longer than the kill. */
		submit_chunks(chunks, LONG_CHUNKS, 0, &seq);
		_exit(0);
	}
	t0 = now_s();
	sleep_ms(300);
	t_kill = now_s();
	ck_assert_int_eq(kill(pid, SIGKILL), 0);
	while (waitpid(pid, &status, WNOHANG) == 0 && now_s() - t_kill < 10)
		sleep_ms(5);
	dt = now_s() - t_kill;
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
		      "the submission ended by itself (status 0x%x) %.3f s after it started",
		      status, t_kill - t0);
	ck_assert_msg(dt < 1.0, "SIGKILL took %.3f s to end the submission", dt);
}
END_TEST

static Suite *security_suite(void)
{
	Suite *s = suite_create("security");
	TCase *tc;

	tc = fixture_tcase("unmap", user_setup, compute_teardown, TCASE_TIMEOUT_SHORT);
	tcase_add_test(tc, unmap_outside_va_range_is_einval);
	tcase_add_test(tc, cs_with_va_past_range_is_einval);
	suite_add_tcase(s, tc);

	tc = fixture_tcase("monitor_payload", payload_setup, payload_teardown, TCASE_TIMEOUT_DMA);
	tcase_add_test(tc, external_payload_address_refused);
	tcase_add_test(tc, internal_monitor_cannot_write_page_tables);
	tcase_add_test(tc, internal_monitor_cannot_write_host_window);
	tcase_add_test(tc, internal_cb_cannot_raise_driver_interrupts);
	tcase_add_test(tc, split_programming_gains_nothing);
	tcase_add_test(tc, internal_monitor_to_user_hbm_works);
	suite_add_tcase(s, tc);

	/* It drops privileges itself, after some work as root. */
	tc = fixture_tcase("memset_split", NULL, NULL, TCASE_TIMEOUT_SHORT);
	tcase_add_test(tc, memset_split_keeps_fill_value);
	suite_add_tcase(s, tc);

	tc = fixture_tcase("release", user_setup, compute_teardown, TCASE_TIMEOUT_DMA);
	tcase_add_test(tc, second_user_reads_zeros);
	suite_add_tcase(s, tc);

	/* It forks the users itself and checks the device as root in between. */
	tc = fixture_tcase("leftovers", NULL, NULL, TCASE_TIMEOUT_DMA);
	tcase_add_test(tc, close_leaves_nothing_armed);
	tcase_add_test(tc, fault_reports_stay_with_their_user);
	suite_add_tcase(s, tc);

	tc = fixture_tcase("limits", user_setup, compute_teardown, TCASE_TIMEOUT_DMA);
	tcase_add_test(tc, pinning_obeys_rlimit_memlock);
	tcase_add_test(tc, cb_count_and_bytes_capped);
	tcase_add_test(tc, kernel_cb_memory_capped);
	tcase_add_test(tc, reserved_bits_are_einval);
	suite_add_tcase(s, tc);

	tc = fixture_tcase("races", user_setup, compute_teardown, TCASE_TIMEOUT_DMA);
	tcase_add_test(tc, restore_runs_once);
	tcase_add_test(tc, long_submission_is_killable);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	char node[64];
	struct stat st;
	int rc;

	/* The attacks run as nobody: open the compute node to everyone meanwhile. */
	snprintf(node, sizeof(node), "/dev/accel/accel%d", test_device_index());
	if (stat(node, &st) || chmod(node, 0666)) {
		printf("%s: %s\n0 passed, 1 failed\n", node, strerror(errno));
		return 1;
	}
	rc = run_suite(security_suite());
	chmod(node, st.st_mode & 07777);
	return rc;
}
