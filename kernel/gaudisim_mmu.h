/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device MMU: page tables of the compute context in the page-table area
 * of reserved HBM, written through the HBM BAR window.
 */
#ifndef __GAUDISIM_MMU_H__
#define __GAUDISIM_MMU_H__

#include <linux/io.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include <hw/gaudisim_hw_mmu.h>

/* Contexts one device admits at most: one per user ASID (1..7). */
#define GAUDISIM_MAX_CONTEXTS	(GAUDISIM_MMU_NUM_ASIDS - 1)

struct gaudisim_ctx;
struct gaudisim_device;
struct gaudisim_userptr;

/**
 * struct gaudisim_mmu - driver state of the device MMU
 * @lock: see below
 * @bar: HBM BAR mapping
 * @window: HBM offset the BAR shows now
 * @used: one bit per 4 KiB table of the page-table area
 * @shadow: table index -> kernel copy of the table (u64[512])
 * @owner: table index -> ASID whose tree holds it
 * @hop0: per ASID, the HBM address of its hop-0 table; 0 when unused
 * @last_asid: the ASID given to the latest open (ASIDs rotate)
 * @queue_asid: ASID of the internal queues: the one context's when the
 *              device admits one (max_contexts 1), else 0 (they are
 *              refused to shared contexts)
 */
struct gaudisim_mmu {
	/*
	 * Protects everything here and the HBM window register: the tables,
	 * their shadows and the window move together.
	 */
	struct mutex lock;
	void __iomem *bar;
	u64 window;
	unsigned long *used;
	struct xarray shadow;
	u8 *owner;
	u64 hop0[GAUDISIM_MMU_NUM_ASIDS];
	u32 last_asid;
	u32 queue_asid;
};

int gaudisim_mmu_init(struct gaudisim_device *gdev);
void gaudisim_mmu_fini(struct gaudisim_device *gdev);
void gaudisim_mmu_hw_init(struct gaudisim_device *gdev);
void __iomem *gaudisim_mmu_hbm_map(struct gaudisim_device *gdev, u64 addr);
int gaudisim_mmu_ctx_init(struct gaudisim_ctx *ctx, bool owns_queues);
void gaudisim_mmu_ctx_fini(struct gaudisim_ctx *ctx);
int gaudisim_mmu_map_userptr(struct gaudisim_ctx *ctx, struct gaudisim_userptr *up);
void gaudisim_mmu_unmap_userptr(struct gaudisim_ctx *ctx, struct gaudisim_userptr *up);

#endif /* __GAUDISIM_MMU_H__ */
