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
 * @asid: ASID of the compute context, 0 when none
 * @hop0: HBM address of its hop-0 table
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
	u32 asid;
	u64 hop0;
};

int gaudisim_mmu_init(struct gaudisim_device *gdev);
void gaudisim_mmu_fini(struct gaudisim_device *gdev);
void gaudisim_mmu_hw_init(struct gaudisim_device *gdev);
void __iomem *gaudisim_mmu_hbm_map(struct gaudisim_device *gdev, u64 addr);
int gaudisim_mmu_ctx_init(struct gaudisim_ctx *ctx);
void gaudisim_mmu_ctx_fini(struct gaudisim_ctx *ctx);
int gaudisim_mmu_map_userptr(struct gaudisim_ctx *ctx, struct gaudisim_userptr *up);
void gaudisim_mmu_unmap_userptr(struct gaudisim_ctx *ctx, struct gaudisim_userptr *up);

#endif /* __GAUDISIM_MMU_H__ */
