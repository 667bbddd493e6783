/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device memory (HBM allocations) and host memory mapped for DMA
 * (userptr mappings with device VAs in the GAUDISIM_HOST_VA_BASE range).
 */
#ifndef __GAUDISIM_MEM_H__
#define __GAUDISIM_MEM_H__

#include <linux/kref.h>
#include <linux/scatterlist.h>
#include <linux/types.h>

#include <drm/drm_mm.h>

struct drm_device;
struct drm_file;
struct gaudisim_ctx;
struct gaudisim_device;
struct mm_struct;
struct page;

/* One bus-contiguous piece of a userptr mapping. */
struct gaudisim_dma_seg {
	u64 offset;	/* from the start of the mapping */
	dma_addr_t addr;
	u64 len;
};

/**
 * struct gaudisim_userptr - pinned, DMA-mapped user memory
 * @ref: held by the mapping (until UNMAP) and by each job using it
 * @gdev: the device it is mapped for
 * @mm: the address space charged for the pinned pages (mmgrab reference)
 * @va_node: its device VA range in ctx->va_mm, plus a guard page
 * @va: first device VA, page-aligned
 * @size: bytes mapped: the whole pages that cover the user's range
 * @offset: where the user's range starts in the first page; MAP returns
 *          @va + @offset and UNMAP takes that address
 * @pages: pinned pages
 * @npages: entries in @pages
 * @sgt: DMA-mapped scatter table
 * @segs: bus-contiguous pieces, sorted by offset
 * @nsegs: entries in @segs
 */
struct gaudisim_userptr {
	struct kref ref;
	struct gaudisim_device *gdev;
	struct mm_struct *mm;
	struct drm_mm_node va_node;
	u64 va;
	u64 size;
	u32 offset;
	struct page **pages;
	u32 npages;
	struct sg_table sgt;
	struct gaudisim_dma_seg *segs;
	u32 nsegs;
};

struct gaudisim_userptr *gaudisim_userptr_find(struct gaudisim_ctx *ctx, u64 va, u64 len);
void gaudisim_userptr_translate(const struct gaudisim_userptr *up, u64 va,
				dma_addr_t *bus, u64 *contig);
void gaudisim_userptr_get(struct gaudisim_userptr *up);
void gaudisim_userptr_put(struct gaudisim_userptr *up);

void gaudisim_mem_ctx_init(struct gaudisim_ctx *ctx);
bool gaudisim_mem_owns_hbm(struct gaudisim_ctx *ctx, u64 addr, u64 len);
void gaudisim_mem_scrub_allocs(struct gaudisim_ctx *ctx);
void gaudisim_mem_ctx_fini(struct gaudisim_ctx *ctx);
int gaudisim_mem_ioctl(struct drm_device *drm, void *data, struct drm_file *file);

#endif /* __GAUDISIM_MEM_H__ */
