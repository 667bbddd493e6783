// SPDX-License-Identifier: GPL-2.0
/*
 * Device MMU for host memory (docs/mmu.md).
 *
 * Internal queues, and the engines they drive, reach host memory only
 * through device VAs; the driver maps every userptr mapping of the
 * compute context at the VA the MEMORY ioctl gave it, with 4 KiB pages.
 * External queues keep using the physical host window: their CBs are
 * copied and patched by the parser, so nothing changes there.
 *
 * Each open compute context (up to max_contexts at once) gets its own
 * ASID of 1..7 (0 is the driver's) and its own tree; ASIDs rotate, so
 * stale TLB entries of a previous user can hardly match, and each is
 * invalidated when its context closes. Hop tables come from the
 * page-table area of reserved HBM;
 * the driver keeps a shadow copy of each table to walk without reading
 * HBM, and writes PTEs through the HBM BAR, moving its window as needed.
 * A context's tables are freed when it closes; a hard reset keeps HBM,
 * so only the MMU registers are programmed again.
 */

#include <linux/bitmap.h>
#include <linux/pci.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>
#include <drm/drm_managed.h>

#include <hw/gaudisim_hw_mmu.h>

#include "gaudisim_ctx.h"
#include "gaudisim_drv.h"
#include "gaudisim_hw.h"
#include "gaudisim_mem.h"
#include "gaudisim_mmu.h"

#define GAUDISIM_MMU_NUM_TABLES \
	(GAUDISIM_MMU_PGT_SIZE / GAUDISIM_MMU_HOP_TABLE_SIZE)
/* PTE loops give up the CPU once per this many bytes of mapping. */
#define GAUDISIM_MMU_RESCHED_BYTES	SZ_2M
#define GAUDISIM_MMU_LEAF_FLAGS \
	(GAUDISIM_MMU_PTE_PRESENT | GAUDISIM_MMU_PTE_WRITABLE | GAUDISIM_MMU_PTE_LAST)

static_assert(PAGE_SIZE == GAUDISIM_MMU_PAGE_SIZE);

static u32 gaudisim_mmu_reg(u32 reg)
{
	return GAUDISIM_BLOCK_MMU + reg;
}

static u64 gaudisim_mmu_table_addr(u32 index)
{
	return GAUDISIM_MMU_PGT_BASE + (u64)index * GAUDISIM_MMU_HOP_TABLE_SIZE;
}

/*
 * Point the HBM BAR window at @addr (moving it only when needed); returns
 * the mapping of @addr. The window is shared state: hold mmu->lock.
 */
void __iomem *gaudisim_mmu_hbm_map(struct gaudisim_device *gdev, u64 addr)
{
	struct gaudisim_mmu *mmu = &gdev->mmu;
	u64 window = round_down(addr, gdev->hbm_bar_size);

	lockdep_assert_held(&mmu->lock);

	if (window != mmu->window) {
		gaudisim_wreg(gdev, GAUDISIM_REG_HBM_WINDOW_LO, lower_32_bits(window));
		gaudisim_wreg(gdev, GAUDISIM_REG_HBM_WINDOW_HI, upper_32_bits(window));
		mmu->window = window;
	}
	return mmu->bar + (addr - window);
}

/* Write one PTE at HBM address @addr through the BAR window. */
static void gaudisim_mmu_write_hbm(struct gaudisim_device *gdev, u64 addr, u64 value)
{
	writeq(value, gaudisim_mmu_hbm_map(gdev, addr));
}

static u64 *gaudisim_mmu_shadow(struct gaudisim_mmu *mmu, u64 table)
{
	return xa_load(&mmu->shadow, (table - GAUDISIM_MMU_PGT_BASE) /
			GAUDISIM_MMU_HOP_TABLE_SIZE);
}

static void gaudisim_mmu_set_pte(struct gaudisim_device *gdev, u64 table, u32 index,
				 u64 pte)
{
	u64 *shadow = gaudisim_mmu_shadow(&gdev->mmu, table);

	shadow[index] = pte;
	gaudisim_mmu_write_hbm(gdev, table + index * GAUDISIM_MMU_PTE_SIZE, pte);
}

/* A zeroed table of @asid's tree; 0 when the page-table area is full. */
static u64 gaudisim_mmu_alloc_table(struct gaudisim_device *gdev, u32 asid)
{
	struct gaudisim_mmu *mmu = &gdev->mmu;
	u64 *shadow, table;
	u32 index, i;

	lockdep_assert_held(&mmu->lock);

	index = find_first_zero_bit(mmu->used, GAUDISIM_MMU_NUM_TABLES);
	if (index >= GAUDISIM_MMU_NUM_TABLES)
		return 0;
	shadow = kzalloc(GAUDISIM_MMU_HOP_TABLE_SIZE, GFP_KERNEL);
	if (!shadow)
		return 0;
	if (xa_err(xa_store(&mmu->shadow, index, shadow, GFP_KERNEL))) {
		kfree(shadow);
		return 0;
	}
	set_bit(index, mmu->used);
	mmu->owner[index] = asid;
	table = gaudisim_mmu_table_addr(index);
	for (i = 0; i < GAUDISIM_MMU_HOP_ENTRIES; i++)
		gaudisim_mmu_write_hbm(gdev, table + i * GAUDISIM_MMU_PTE_SIZE, 0);
	return table;
}

/* Free the tables of @asid's tree, or every table when @asid is 0. */
static void gaudisim_mmu_free_tables(struct gaudisim_mmu *mmu, u32 asid)
{
	unsigned long index;
	u64 *shadow;

	xa_for_each(&mmu->shadow, index, shadow) {
		if (asid && mmu->owner[index] != asid)
			continue;
		xa_erase(&mmu->shadow, index);
		kfree(shadow);
		clear_bit(index, mmu->used);
	}
}

static void gaudisim_mmu_invalidate(struct gaudisim_device *gdev, u32 asid, u64 va, u64 size)
{
	gaudisim_wreg(gdev, gaudisim_mmu_reg(GAUDISIM_MMU_INV_ASID), asid);
	gaudisim_wreg(gdev, gaudisim_mmu_reg(GAUDISIM_MMU_INV_VA_LO), lower_32_bits(va));
	gaudisim_wreg(gdev, gaudisim_mmu_reg(GAUDISIM_MMU_INV_VA_HI), upper_32_bits(va));
	gaudisim_wreg(gdev, gaudisim_mmu_reg(GAUDISIM_MMU_INV_SIZE_LO), lower_32_bits(size));
	gaudisim_wreg(gdev, gaudisim_mmu_reg(GAUDISIM_MMU_INV_SIZE_HI), upper_32_bits(size));
	gaudisim_wreg(gdev, gaudisim_mmu_reg(GAUDISIM_MMU_INV_CMD), GAUDISIM_MMU_INV_RANGE);
}

/* Program the hop-0 registers of @asid (0 for @hop0 clears them). */
static void gaudisim_mmu_hw_asid(struct gaudisim_device *gdev, u32 asid, u64 hop0)
{
	gaudisim_wreg(gdev, gaudisim_mmu_reg(GAUDISIM_MMU_HOP0_LO(asid)), lower_32_bits(hop0));
	gaudisim_wreg(gdev, gaudisim_mmu_reg(GAUDISIM_MMU_HOP0_HI(asid)), upper_32_bits(hop0));
}

/* Give every internal queue mmu->queue_asid. */
static void gaudisim_mmu_hw_queues(struct gaudisim_device *gdev)
{
	u32 q;

	for (q = GAUDISIM_NUM_EXT_QUEUES; q < GAUDISIM_QUEUE_ID_SIZE; q++)
		if (gdev->iqueues[q].present)
			gaudisim_wreg(gdev, gaudisim_mmu_reg(GAUDISIM_MMU_QUEUE_ASID(q)),
				      gdev->mmu.queue_asid);
}

int gaudisim_mmu_init(struct gaudisim_device *gdev)
{
	struct pci_dev *pdev = gdev->pdev;
	struct gaudisim_mmu *mmu = &gdev->mmu;
	int rc;

	rc = drmm_mutex_init(&gdev->drm, &mmu->lock);
	if (rc)
		return rc;
	if (!gdev->hbm_bar_size || !is_power_of_2(gdev->hbm_bar_size) ||
	    gdev->hbm_bar_size > pci_resource_len(pdev, GAUDISIM_BAR_HBM)) {
		dev_err(&pdev->dev, "unusable HBM window of %llu bytes\n",
			gdev->hbm_bar_size);
		return -ENODEV;
	}
	mmu->bar = devm_ioremap_wc(&pdev->dev, pci_resource_start(pdev, GAUDISIM_BAR_HBM),
				   gdev->hbm_bar_size);
	if (!mmu->bar)
		return -ENOMEM;
	mmu->used = devm_bitmap_zalloc(&pdev->dev, GAUDISIM_MMU_NUM_TABLES, GFP_KERNEL);
	mmu->owner = devm_kzalloc(&pdev->dev, GAUDISIM_MMU_NUM_TABLES, GFP_KERNEL);
	if (!mmu->used || !mmu->owner)
		return -ENOMEM;
	xa_init(&mmu->shadow);
	return 0;
}

void gaudisim_mmu_fini(struct gaudisim_device *gdev)
{
	mutex_lock(&gdev->mmu.lock);
	gaudisim_mmu_free_tables(&gdev->mmu, 0);
	mutex_unlock(&gdev->mmu.lock);
	xa_destroy(&gdev->mmu.shadow);
}

/* At probe and after a hard reset, which turns the MMU off and forgets it. */
void gaudisim_mmu_hw_init(struct gaudisim_device *gdev)
{
	struct gaudisim_mmu *mmu = &gdev->mmu;
	u32 asid;

	mutex_lock(&mmu->lock);
	mmu->window = 0;
	gaudisim_wreg(gdev, GAUDISIM_REG_HBM_WINDOW_LO, 0);
	gaudisim_wreg(gdev, GAUDISIM_REG_HBM_WINDOW_HI, 0);
	for (asid = 1; asid < GAUDISIM_MMU_NUM_ASIDS; asid++)
		if (mmu->hop0[asid])
			gaudisim_mmu_hw_asid(gdev, asid, mmu->hop0[asid]);
	gaudisim_mmu_hw_queues(gdev);
	gaudisim_wreg(gdev, gaudisim_mmu_reg(GAUDISIM_MMU_CTRL), GAUDISIM_MMU_CTRL_ENABLE);
	mutex_unlock(&mmu->lock);
}

/**
 * gaudisim_mmu_ctx_init() - give a new context an ASID and an empty tree
 * @ctx: the context being opened
 * @owns_queues: the context is the device's only one: internal queues
 *               take its ASID
 *
 * Return: 0, -EBUSY when every ASID is taken, -ENOMEM, -ENODEV.
 */
int gaudisim_mmu_ctx_init(struct gaudisim_ctx *ctx, bool owns_queues)
{
	struct gaudisim_device *gdev = ctx->gdev;
	struct gaudisim_mmu *mmu = &gdev->mmu;
	u32 asid = 0, i;
	int rc = 0, idx;
	u64 hop0;

	if (!drm_dev_enter(&gdev->drm, &idx))
		return -ENODEV;
	mutex_lock(&mmu->lock);
	/* The next free ASID after the last one given. */
	for (i = 1; i < GAUDISIM_MMU_NUM_ASIDS && !asid; i++) {
		u32 a = 1 + (mmu->last_asid + i - 1) % (GAUDISIM_MMU_NUM_ASIDS - 1);

		if (!mmu->hop0[a])
			asid = a;
	}
	if (!asid) {
		rc = -EBUSY;
		goto out_unlock;
	}
	hop0 = gaudisim_mmu_alloc_table(gdev, asid);
	if (!hop0) {
		rc = -ENOMEM;
		goto out_unlock;
	}
	ctx->asid = asid;
	mmu->last_asid = asid;
	mmu->hop0[asid] = hop0;
	/* The zeroed hop-0 table is in HBM before the device may walk it. */
	wmb();
	gaudisim_mmu_hw_asid(gdev, asid, hop0);
	if (owns_queues) {
		mmu->queue_asid = asid;
		gaudisim_mmu_hw_queues(gdev);
	}
out_unlock:
	mutex_unlock(&mmu->lock);
	drm_dev_exit(idx);
	return rc;
}

/* Forget every table of the closing context; its mappings are gone. */
void gaudisim_mmu_ctx_fini(struct gaudisim_ctx *ctx)
{
	struct gaudisim_device *gdev = ctx->gdev;
	struct gaudisim_mmu *mmu = &gdev->mmu;
	int idx;

	mutex_lock(&mmu->lock);
	if (ctx->asid && mmu->hop0[ctx->asid]) {
		if (mmu->queue_asid == ctx->asid)
			mmu->queue_asid = 0;
		if (drm_dev_enter(&gdev->drm, &idx)) {
			gaudisim_mmu_hw_queues(gdev);
			gaudisim_mmu_hw_asid(gdev, ctx->asid, 0);
			gaudisim_wreg(gdev, gaudisim_mmu_reg(GAUDISIM_MMU_INV_ASID), ctx->asid);
			gaudisim_wreg(gdev, gaudisim_mmu_reg(GAUDISIM_MMU_INV_CMD),
				      GAUDISIM_MMU_INV_ASID_ALL);
			drm_dev_exit(idx);
		}
		gaudisim_mmu_free_tables(mmu, ctx->asid);
		mmu->hop0[ctx->asid] = 0;
	}
	mutex_unlock(&mmu->lock);
}

/* Table PTE of @va at @hop of the tree under @table; allocates on demand. */
static u64 gaudisim_mmu_next_table(struct gaudisim_device *gdev, u32 asid, u64 table,
				   u64 va, u32 hop, bool alloc)
{
	u32 index = GAUDISIM_MMU_HOP_INDEX(va, hop);
	u64 pte = gaudisim_mmu_shadow(&gdev->mmu, table)[index];
	u64 next;

	if (pte & GAUDISIM_MMU_PTE_PRESENT)
		return pte & GAUDISIM_MMU_PTE_ADDR_MASK;
	if (!alloc)
		return 0;
	next = gaudisim_mmu_alloc_table(gdev, asid);
	if (next)
		gaudisim_mmu_set_pte(gdev, table, index, next | GAUDISIM_MMU_PTE_PRESENT);
	return next;
}

/* Leaf table of @va in @asid's tree, 0 if absent (and not allocated). */
static u64 gaudisim_mmu_leaf_table(struct gaudisim_device *gdev, u32 asid, u64 va, bool alloc)
{
	u64 table = gdev->mmu.hop0[asid];
	u32 hop;

	for (hop = 0; table && hop < GAUDISIM_MMU_LEAF_HOP; hop++)
		table = gaudisim_mmu_next_table(gdev, asid, table, va, hop, alloc);
	return table;
}

static void gaudisim_mmu_clear_range(struct gaudisim_device *gdev, u32 asid, u64 va, u64 size)
{
	u64 off;

	for (off = 0; off < size; off += GAUDISIM_MMU_PAGE_SIZE) {
		u64 table = gaudisim_mmu_leaf_table(gdev, asid, va + off, false);

		/* A 4 GiB mapping is a million PTEs: let others run. */
		if (!(off & (GAUDISIM_MMU_RESCHED_BYTES - 1)))
			cond_resched();
		if (table)
			gaudisim_mmu_set_pte(gdev, table,
					     GAUDISIM_MMU_HOP_INDEX(va + off,
								    GAUDISIM_MMU_LEAF_HOP),
					     0);
	}
	gaudisim_mmu_invalidate(gdev, asid, va, size);
}

/**
 * gaudisim_mmu_map_userptr() - map a userptr mapping at its device VA
 * @ctx: the compute context
 * @up: the mapping, with its VA assigned
 *
 * Return: 0, -ENOMEM when the page-table area or memory ran out, -ENODEV.
 */
int gaudisim_mmu_map_userptr(struct gaudisim_ctx *ctx, struct gaudisim_userptr *up)
{
	struct gaudisim_device *gdev = ctx->gdev;
	struct gaudisim_mmu *mmu = &gdev->mmu;
	int rc = 0, idx;
	u32 s;

	if (!drm_dev_enter(&gdev->drm, &idx))
		return -ENODEV;
	mutex_lock(&mmu->lock);
	if (!ctx->asid || !mmu->hop0[ctx->asid]) {
		rc = -ENODEV;
		goto out_unlock;
	}
	for (s = 0; s < up->nsegs && !rc; s++) {
		const struct gaudisim_dma_seg *seg = &up->segs[s];
		u64 off;

		for (off = 0; off < seg->len; off += GAUDISIM_MMU_PAGE_SIZE) {
			u64 va = up->va + seg->offset + off;
			u64 table = gaudisim_mmu_leaf_table(gdev, ctx->asid, va, true);

			if (!(off & (GAUDISIM_MMU_RESCHED_BYTES - 1)))
				cond_resched();
			if (!table) {
				rc = -ENOMEM;
				break;
			}
			gaudisim_mmu_set_pte(gdev, table,
					     GAUDISIM_MMU_HOP_INDEX(va, GAUDISIM_MMU_LEAF_HOP),
					     (seg->addr + off) | GAUDISIM_MMU_LEAF_FLAGS);
		}
	}
	if (rc)
		gaudisim_mmu_clear_range(gdev, ctx->asid, up->va, up->size);
	/* PTEs in HBM before any job can use the VA. */
	wmb();
out_unlock:
	mutex_unlock(&mmu->lock);
	drm_dev_exit(idx);
	return rc;
}

/* Remove the PTEs of a mapping and drop them from the TLB. */
void gaudisim_mmu_unmap_userptr(struct gaudisim_ctx *ctx, struct gaudisim_userptr *up)
{
	struct gaudisim_device *gdev = ctx->gdev;
	struct gaudisim_mmu *mmu = &gdev->mmu;
	int idx;

	if (!drm_dev_enter(&gdev->drm, &idx))
		return;
	mutex_lock(&mmu->lock);
	if (ctx->asid && mmu->hop0[ctx->asid])
		gaudisim_mmu_clear_range(gdev, ctx->asid, up->va, up->size);
	mutex_unlock(&mmu->lock);
	drm_dev_exit(idx);
}
