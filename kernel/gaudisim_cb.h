/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User command buffers: host memory that user space fills through mmap()
 * and that the driver copies into kernel CBs at submission.
 */
#ifndef __GAUDISIM_CB_H__
#define __GAUDISIM_CB_H__

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/types.h>

struct drm_device;
struct drm_file;
struct gaudisim_ctx;
struct vm_area_struct;

/**
 * struct gaudisim_cb - a user CB
 * @ref: held by the handle, each job made from it and each mapping
 * @ctx: owning context (reference), for the memory accounting
 * @vaddr: vmalloc_user() memory, PAGE_ALIGN(@size) bytes
 * @size: bytes asked for at creation
 * @id: handle id (handle and mmap offset are id << PAGE_SHIFT)
 * @usage: jobs holding the CB
 */
struct gaudisim_cb {
	struct kref ref;
	struct gaudisim_ctx *ctx;
	void *vaddr;
	u32 size;
	u32 id;
	atomic_t usage;
};

struct gaudisim_cb *gaudisim_cb_lookup(struct gaudisim_ctx *ctx, u64 handle);
void gaudisim_cb_put(struct gaudisim_cb *cb);
void gaudisim_cb_ctx_fini(struct gaudisim_ctx *ctx);
int gaudisim_cb_mmap(struct gaudisim_ctx *ctx, struct vm_area_struct *vma);
int gaudisim_cb_ioctl(struct drm_device *drm, void *data, struct drm_file *file);

#endif /* __GAUDISIM_CB_H__ */
