/* SPDX-License-Identifier: MIT */
/*
 * Fake host for the fuzz harnesses: bounded host memory at a fixed bus
 * address, a deterministic clock, MSI-X and DMA recording with the
 * invariants every harness checks, and the driver-side set-up steps
 * (queues, event queue, sync-manager bases, MMU page tables) done the way
 * the driver does them, so fuzz inputs start from a realistic device.
 *
 * Invariant violations call fz_fail(), which prints the reason and
 * aborts: libFuzzer (and the replay runner) report that as a crash.
 */
#ifndef FUZZ_HOST_H
#define FUZZ_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gsim_core.h"
#include "hw/gaudisim_hw_eq.h"
#include "hw/gaudisim_hw_mmu.h"
#include "hw/gaudisim_hw_packets.h"
#include "hw/gaudisim_hw_queues.h"
#include "hw/gaudisim_hw_regs.h"
#include "hw/gaudisim_hw_sync.h"

/*
 * Device configuration: the smallest HBM the core accepts (the reserved
 * area plus 2 MiB); the backing store is sparse, so only what an input
 * touches costs memory.
 */
#define FZ_HBM_SIZE		(GAUDISIM_HBM_RESERVED_SIZE + (2ull << 20))
#define FZ_BAR_SIZE		(2ull << 20)

/* Host memory: bus addresses [FZ_BUS_BASE, FZ_BUS_BASE + FZ_HOST_SIZE). */
#define FZ_BUS_BASE		0x40000000ull
#define FZ_HOST_SIZE		(1u << 20)

/* Host memory layout (offsets). PQ rings hold at most FZ_PQ_LOG2_MAX entries. */
#define FZ_PQ_LOG2_MAX		6
#define FZ_PQ_STRIDE		((1u << FZ_PQ_LOG2_MAX) * GAUDISIM_BD_SIZE)
#define FZ_PQ_OFF(q)		((q) * FZ_PQ_STRIDE)			/* 73 rings */
#define FZ_CQ_ENTRIES		256u
#define FZ_CQ_OFF(q)		(0x14000u + (q) * FZ_CQ_ENTRIES * GAUDISIM_CQ_ENTRY_SIZE)
#define FZ_EQ_LOG2		6
#define FZ_EQ_OFF		0x16000u
#define FZ_CB_OFF		0x20000u	/* CB arena */
#define FZ_CB_END		0x80000u
#define FZ_DATA_OFF		0x80000u	/* free for data up to FZ_HOST_SIZE */

/* Device memory the harnesses use (user HBM, past the reserved area). */
#define FZ_HBM_USER		GAUDISIM_HBM_USER_BASE
#define FZ_HBM_USER_SIZE	(2u << 20)
#define FZ_HBM_CB_OFF		0x100000u	/* internal CBs: user HBM + this */

/* Device VA window mapped onto the whole fake host memory by fz_mmu_identity(). */
#define FZ_VA_HOST		GAUDISIM_MMU_VA_BASE
#define FZ_ASID_USER		1

/* Work bounds. */
#define FZ_RUN_CAP		64u	/* gsim_core_run() calls per drain */
#define FZ_TPC_WATCHDOG		(1u << 13)	/* bundle budget the harnesses program */

struct fz_host {
	struct gsim_core *core;
	uint8_t *mem;			/* FZ_HOST_SIZE bytes */
	uint64_t clock_ns;
	/* Bus addresses in [fault_lo, fault_hi) fail like an IOMMU fault. */
	uint64_t fault_lo, fault_hi;

	/* Observations, for the invariants. */
	uint64_t msix_total;
	unsigned int msix[GAUDISIM_MSIX_NUM_VECTORS];
	uint64_t dma_calls;
	uint64_t guest_errors;
	uint64_t cap_hits;
	unsigned int big_blocks;		/* fz_alloc_in_use() before the core */

	/* The device went idle and nothing has kicked it since. */
	bool quiet;

	/* Driver-side state. */
	uint32_t cq_pi[GAUDISIM_NUM_EXT_QUEUES];
	uint32_t cb_next;		/* host CB arena offset */
	uint32_t hbm_cb_next;		/* internal CB arena offset in user HBM */
	uint32_t eq_ci;
	uint64_t pgt_next;		/* next free page-table page in HBM */
	uint32_t hop0_set;		/* ASIDs whose hop-0 register is written */
};

/* Print the reason and abort (a crash for libFuzzer). */
void fz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
#define FZ_CHECK(cond, ...) \
	do { \
		if (!(cond)) \
			fz_fail(__VA_ARGS__); \
	} while (0)

/* A fresh core and host memory per input. */
void fz_host_init(struct fz_host *h);
void fz_host_fini(struct fz_host *h);

/* Register access as the QEMU glue does it (a RESET kick resets at once). */
uint32_t fz_rd(struct fz_host *h, uint32_t off);
unsigned int fz_wr(struct fz_host *h, uint32_t off, uint32_t value);
/* As fz_wr, but a RESET kick is left pending until fz_hard_reset(). */
unsigned int fz_wr_raw(struct fz_host *h, uint32_t off, uint32_t value);
/* Something other than a register write may have created work. */
static inline void fz_stir(struct fz_host *h)
{
	h->quiet = false;
}

/*
 * Run until the core reports no more work, at most FZ_RUN_CAP calls.
 * Checks that a quiet device does no work (no lost kick) and that idle
 * is stable. Returns true when the device went idle.
 */
bool fz_run(struct fz_host *h);
/* Hard reset as the glue does it; the device must then be idle and silent. */
void fz_hard_reset(struct fz_host *h);
/* With FUZZ_VERBOSE set: one line of what the input made the device do. */
void fz_report(struct fz_host *h);

/* Addresses. */
static inline uint64_t fz_bus(uint64_t off)
{
	return FZ_BUS_BASE + off;
}

static inline uint64_t fz_dev(uint64_t off)
{
	return GAUDISIM_HOST_BASE + FZ_BUS_BASE + off;
}

/* Host pointer to HBM [addr, addr + len), NULL if outside. */
uint8_t *fz_hbm(struct fz_host *h, uint64_t addr, uint64_t len);
void fz_put32(uint8_t *p, uint32_t v);
void fz_put64(uint8_t *p, uint64_t v);
uint32_t fz_get32(const uint8_t *p);

/* QMAN register of queue q; reg is a GAUDISIM_QM_* per-stream macro. */
#define FZ_QM_REG(q, reg) \
	(GAUDISIM_QM_BLOCK((unsigned int)gaudisim_queue_engine(q)) + reg(gaudisim_queue_stream(q)))

/* Is q a queue the device implements (0..7, 9..36, 41..72)? */
static inline bool fz_queue_valid(unsigned int q)
{
	return q < GAUDISIM_QUEUE_ID_SIZE && gaudisim_queue_engine(q) >= 0;
}

/* Driver-style set-up. */
void fz_queue_setup(struct fz_host *h, unsigned int q, unsigned int log2_entries);
void fz_queues_setup_all(struct fz_host *h);
/* Write a BD at the queue's PI and ring the doorbell; the queue is set up
 * first if it is not programmed the harness's way. Returns the kick bits. */
unsigned int fz_submit_bd(struct fz_host *h, unsigned int q, uint32_t ctl, uint32_t len,
			  uint64_t ptr);
void fz_eq_setup(struct fz_host *h);
/* Consume READY EQ entries as the driver does; checks their format. */
void fz_eq_drain(struct fz_host *h);
/* CP_MSG_BASE 0/1 of every stream at the monitor and SOB arrays. */
void fz_msg_bases_setup(struct fz_host *h);
void fz_tpc_watchdogs(struct fz_host *h, uint32_t bundles);
/* What a driver does after probe or a hard reset: all of the above. */
void fz_driver_init(struct fz_host *h);

/* MMU: map one page (4 KiB, or 2 MiB with huge) of asid at va to bus. */
int fz_mmu_map(struct fz_host *h, unsigned int asid, uint64_t va, uint64_t bus,
	       bool writable, bool huge);
/* Map [FZ_VA_HOST, + FZ_HOST_SIZE) of asid onto the fake host memory. */
void fz_mmu_identity(struct fz_host *h, unsigned int asid);

/* Space for cap bytes in the host CB arena (offset) / user-HBM CB arena
 * (device address), wrapping around. */
uint32_t fz_host_cb_alloc(struct fz_host *h, uint32_t cap);
uint64_t fz_hbm_cb_alloc(struct fz_host *h, uint32_t cap);

/*
 * Submit len bytes of packets (a multiple of 8, at most FZ_CB_MAX) as the
 * driver would: on an external queue the CB goes to host memory, with the
 * completion tail (CQ entry + MSI-X) appended when tail is set; on an
 * internal queue it goes to user HBM. Returns the kick bits.
 */
#define FZ_CB_MAX		0x10000u
unsigned int fz_submit_cb(struct fz_host *h, unsigned int q, const uint8_t *pkts, uint32_t len,
			  bool tail);

#endif /* FUZZ_HOST_H */
