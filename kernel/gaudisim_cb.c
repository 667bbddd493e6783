// SPDX-License-Identifier: GPL-2.0
/*
 * User command buffers: CB ioctl and mmap.
 *
 * A CB is plain vmalloc_user() memory: the device never reads it, the
 * parser copies it into a kernel CB at submission. Its handle is the mmap
 * offset, (id << PAGE_SHIFT). The CB lives while its handle, a job made
 * from it or a mapping of it exists; DESTROY only drops the handle. Like
 * any mapping of a device file, a CB mapping keeps the file, and so the
 * compute node, held until it is unmapped.
 */

#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/xarray.h>

#include <drm/drm_file.h>

#include "gaudisim_cb.h"
#include "gaudisim_ctx.h"
#include "gaudisim_drv.h"

/*
 * Limits of what one context may hold in CBs (handles, or CBs that jobs
 * and mappings keep alive): memory the kernel allocates on user request,
 * so it is capped; beyond either limit CREATE fails with ENOMEM. habanalabs
 * has no cap, and its tests hold 32768 CBs of 4 KiB at once: the caps sit
 * above that.
 */
#define GAUDISIM_CB_MAX_ID		0xffffu
#define GAUDISIM_CTX_CB_COUNT_MAX	65535
#define GAUDISIM_CTX_CB_BYTES_MAX	SZ_256M

static void gaudisim_cb_release(struct kref *ref)
{
	struct gaudisim_cb *cb = container_of(ref, struct gaudisim_cb, ref);
	struct gaudisim_ctx *ctx = cb->ctx;

	atomic64_sub(PAGE_ALIGN(cb->size), &ctx->cb_bytes);
	atomic_dec(&ctx->cb_count);
	vfree(cb->vaddr);
	kfree(cb);
	gaudisim_ctx_put(ctx);
}

void gaudisim_cb_put(struct gaudisim_cb *cb)
{
	kref_put(&cb->ref, gaudisim_cb_release);
}

static struct gaudisim_cb *gaudisim_cb_get_id(struct gaudisim_ctx *ctx, unsigned long id)
{
	struct gaudisim_cb *cb;

	xa_lock(&ctx->cbs);
	cb = xa_load(&ctx->cbs, id);
	if (cb)
		kref_get(&cb->ref);
	xa_unlock(&ctx->cbs);
	return cb;
}

/* Map a handle to a CB id; 0 for anything that is not a handle. */
static unsigned long gaudisim_cb_handle_to_id(u64 handle)
{
	if (handle & ~PAGE_MASK)
		return 0;
	handle >>= PAGE_SHIFT;
	return handle <= GAUDISIM_CB_MAX_ID ? handle : 0;
}

/**
 * gaudisim_cb_lookup() - take a reference on the CB named by a handle
 * @ctx: the context that owns the handle
 * @handle: CB handle
 *
 * Return: the CB, or NULL when @handle names none.
 */
struct gaudisim_cb *gaudisim_cb_lookup(struct gaudisim_ctx *ctx, u64 handle)
{
	unsigned long id = gaudisim_cb_handle_to_id(handle);

	return id ? gaudisim_cb_get_id(ctx, id) : NULL;
}

static int gaudisim_cb_create(struct gaudisim_ctx *ctx, u32 size, u64 *handle)
{
	struct gaudisim_device *gdev = ctx->gdev;
	u32 alloc_size = PAGE_ALIGN(size);
	struct gaudisim_cb *cb;
	int rc;

	if (size < GAUDISIM_PKT_ALIGN || size > GAUDISIM_CB_MAX_SIZE) {
		gaudisim_dbg(gdev, "CB size %u is not in [%u, %u]\n", size,
			     GAUDISIM_PKT_ALIGN, GAUDISIM_CB_MAX_SIZE);
		return -EINVAL;
	}
	if (atomic_inc_return(&ctx->cb_count) > GAUDISIM_CTX_CB_COUNT_MAX) {
		gaudisim_dbg(gdev, "context holds %u CBs already\n", GAUDISIM_CTX_CB_COUNT_MAX);
		atomic_dec(&ctx->cb_count);
		return -ENOMEM;
	}
	if (atomic64_add_return(alloc_size, &ctx->cb_bytes) > GAUDISIM_CTX_CB_BYTES_MAX) {
		gaudisim_dbg(gdev, "context's CBs would exceed %u MiB\n",
			     GAUDISIM_CTX_CB_BYTES_MAX >> 20);
		rc = -ENOMEM;
		goto err_unaccount;
	}

	cb = kzalloc(sizeof(*cb), GFP_KERNEL);
	if (!cb) {
		rc = -ENOMEM;
		goto err_unaccount;
	}
	cb->vaddr = vmalloc_user(alloc_size);
	if (!cb->vaddr) {
		rc = -ENOMEM;
		goto err_free_cb;
	}
	kref_init(&cb->ref);
	gaudisim_ctx_get(ctx);
	cb->ctx = ctx;
	cb->size = size;
	atomic_set(&cb->usage, 0);

	rc = xa_alloc(&ctx->cbs, &cb->id, cb, XA_LIMIT(1, GAUDISIM_CB_MAX_ID), GFP_KERNEL);
	if (rc) {
		gaudisim_dbg(gdev, "no free CB handle\n");
		/* The release accounts the memory back and drops the context. */
		gaudisim_cb_put(cb);
		return rc == -EBUSY ? -ENOMEM : rc;
	}

	*handle = (u64)cb->id << PAGE_SHIFT;
	return 0;

err_free_cb:
	kfree(cb);
err_unaccount:
	atomic64_sub(alloc_size, &ctx->cb_bytes);
	atomic_dec(&ctx->cb_count);
	return rc;
}

static int gaudisim_cb_destroy(struct gaudisim_ctx *ctx, u64 handle)
{
	unsigned long id = gaudisim_cb_handle_to_id(handle);
	struct gaudisim_cb *cb = id ? xa_erase(&ctx->cbs, id) : NULL;

	if (!cb) {
		gaudisim_dbg(ctx->gdev, "no CB with handle 0x%llx\n", handle);
		return -EINVAL;
	}
	gaudisim_cb_put(cb);
	return 0;
}

int gaudisim_cb_ioctl(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct gaudisim_device *gdev = to_gaudisim(drm);
	struct gaudisim_ctx *ctx = file->driver_priv;
	union gaudisim_cb_args *args = data;
	struct gaudisim_cb_in in = args->in;
	struct gaudisim_cb *cb;
	u64 handle;
	int rc;

	if (in.ctx_id || in.flags) {
		gaudisim_dbg(gdev, "ctx_id and flags must be 0\n");
		return -EINVAL;
	}

	switch (in.op) {
	case GAUDISIM_CB_OP_CREATE:
		rc = gaudisim_cb_create(ctx, in.cb_size, &handle);
		if (rc)
			return rc;
		memset(args, 0, sizeof(*args));
		args->out.cb_handle = handle;
		return 0;
	case GAUDISIM_CB_OP_DESTROY:
		rc = gaudisim_cb_destroy(ctx, in.cb_handle);
		if (rc)
			return rc;
		memset(args, 0, sizeof(*args));
		return 0;
	case GAUDISIM_CB_OP_INFO:
		cb = gaudisim_cb_lookup(ctx, in.cb_handle);
		if (!cb) {
			gaudisim_dbg(gdev, "no CB with handle 0x%llx\n", in.cb_handle);
			return -EINVAL;
		}
		memset(args, 0, sizeof(*args));
		args->out.usage_cnt = atomic_read(&cb->usage);
		args->out.size = cb->size;
		gaudisim_cb_put(cb);
		return 0;
	default:
		gaudisim_dbg(gdev, "unknown CB op %u\n", in.op);
		return -EINVAL;
	}
}

/* Every VMA of a CB mapping holds a reference on the CB. */
static void gaudisim_cb_vm_open(struct vm_area_struct *vma)
{
	struct gaudisim_cb *cb = vma->vm_private_data;

	kref_get(&cb->ref);
}

static void gaudisim_cb_vm_close(struct vm_area_struct *vma)
{
	gaudisim_cb_put(vma->vm_private_data);
}

/*
 * Pages are inserted on fault rather than at mmap time: when the device
 * goes away the DRM core zaps every mapping of the device file, and the
 * CB, still alive, is simply faulted in again.
 */
static vm_fault_t gaudisim_cb_vm_fault(struct vm_fault *vmf)
{
	struct gaudisim_cb *cb = vmf->vma->vm_private_data;
	unsigned long offset = (vmf->pgoff - cb->id) << PAGE_SHIFT;
	struct page *page;

	if (vmf->pgoff < cb->id || offset >= PAGE_ALIGN(cb->size))
		return VM_FAULT_SIGBUS;

	page = vmalloc_to_page(cb->vaddr + offset);
	get_page(page);
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct gaudisim_cb_vm_ops = {
	.open = gaudisim_cb_vm_open,
	.close = gaudisim_cb_vm_close,
	.fault = gaudisim_cb_vm_fault,
};

/**
 * gaudisim_cb_mmap() - map a CB into user space
 * @ctx: the context of the file being mapped
 * @vma: the mapping; its offset is the CB handle
 *
 * Return: 0, -EINVAL for a bad handle, size or a private mapping.
 */
int gaudisim_cb_mmap(struct gaudisim_ctx *ctx, struct vm_area_struct *vma)
{
	unsigned long len = vma->vm_end - vma->vm_start;
	struct gaudisim_cb *cb;

	if (!(vma->vm_flags & VM_SHARED)) {
		gaudisim_dbg(ctx->gdev, "CBs must be mapped MAP_SHARED\n");
		return -EINVAL;
	}
	if (!vma->vm_pgoff || vma->vm_pgoff > GAUDISIM_CB_MAX_ID)
		return -EINVAL;

	cb = gaudisim_cb_get_id(ctx, vma->vm_pgoff);
	if (!cb) {
		gaudisim_dbg(ctx->gdev, "no CB at mmap offset 0x%lx\n",
			     vma->vm_pgoff << PAGE_SHIFT);
		return -EINVAL;
	}
	if (len > PAGE_ALIGN(cb->size)) {
		gaudisim_dbg(ctx->gdev, "mapping of %lu bytes exceeds the %u-byte CB\n",
			     len, cb->size);
		gaudisim_cb_put(cb);
		return -EINVAL;
	}

	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_private_data = cb;
	vma->vm_ops = &gaudisim_cb_vm_ops;
	return 0;
}

/* Drop every handle of a closing context. */
void gaudisim_cb_ctx_fini(struct gaudisim_ctx *ctx)
{
	struct gaudisim_cb *cb;
	unsigned long id;

	xa_for_each(&ctx->cbs, id, cb) {
		xa_erase(&ctx->cbs, id);
		gaudisim_cb_put(cb);
		cond_resched();
	}
	xa_destroy(&ctx->cbs);
}
