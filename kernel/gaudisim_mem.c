// SPDX-License-Identifier: GPL-2.0
/*
 * MEMORY ioctl: HBM allocations and userptr mappings.
 *
 * HBM is not virtualised (Gaudi 1): ALLOC carves 2 MiB pages out of user
 * HBM with a device-wide allocator and MAP returns the physical device
 * address. Host memory is pinned, DMA-mapped and given a device VA in the
 * GAUDISIM_HOST_VA_BASE range; the parser translates those VAs to bus
 * addresses when it copies a CB. A guard page follows every mapping so
 * that adjacent mappings never look contiguous.
 *
 * Limits: pinned pages count against the opener's RLIMIT_MEMLOCK (in
 * mm->pinned_vm, like other drivers that pin long-term; CAP_IPC_LOCK
 * lifts the limit), and every lookup by a user-supplied device VA checks
 * the range before it searches the VA tree.
 */

#include <linux/capability.h>
#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/xarray.h>

#include <drm/drm_file.h>

#include "gaudisim_ctx.h"
#include "gaudisim_drv.h"
#include "gaudisim_mem.h"
#include "gaudisim_mmu.h"
#include "gaudisim_nic.h"
#include "gaudisim_release.h"

#define GAUDISIM_VA_GUARD		PAGE_SIZE

/* One HBM allocation of a context. */
/*
 * @freeing: a shared context's FREE is scrubbing it; CBs may not name it
 * and a second FREE of the handle is EINVAL (under ctx->mem_lock)
 */
struct gaudisim_hbm_alloc {
	struct drm_mm_node node;
	bool freeing;
};

/* How long a shared context's FREE waits for its jobs before EBUSY. */
#define GAUDISIM_HBM_FREE_WAIT	(5 * HZ)

/* ---- userptr ------------------------------------------------------------ */

static void gaudisim_userptr_release(struct kref *ref)
{
	struct gaudisim_userptr *up = container_of(ref, struct gaudisim_userptr, ref);

	dma_unmap_sgtable(&up->gdev->pdev->dev, &up->sgt, DMA_BIDIRECTIONAL, 0);
	sg_free_table(&up->sgt);
	/* The device may have written to any page. */
	unpin_user_pages_dirty_lock(up->pages, up->npages, true);
	atomic64_sub(up->npages, &up->mm->pinned_vm);
	mmdrop(up->mm);
	kvfree(up->pages);
	kvfree(up->segs);
	kfree(up);
}

void gaudisim_userptr_get(struct gaudisim_userptr *up)
{
	kref_get(&up->ref);
}

void gaudisim_userptr_put(struct gaudisim_userptr *up)
{
	kref_put(&up->ref, gaudisim_userptr_release);
}

/* Merge the DMA segments of the mapping into bus-contiguous pieces. */
static int gaudisim_userptr_build_segs(struct gaudisim_userptr *up)
{
	struct scatterlist *sg;
	u64 offset = 0;
	u32 n = 0;
	int i;

	up->segs = kvcalloc(up->sgt.nents, sizeof(*up->segs), GFP_KERNEL);
	if (!up->segs)
		return -ENOMEM;

	for_each_sgtable_dma_sg(&up->sgt, sg, i) {
		dma_addr_t addr = sg_dma_address(sg);
		u32 len = sg_dma_len(sg);

		if (n && up->segs[n - 1].addr + up->segs[n - 1].len == addr) {
			up->segs[n - 1].len += len;
		} else {
			up->segs[n].offset = offset;
			up->segs[n].addr = addr;
			up->segs[n].len = len;
			n++;
		}
		offset += len;
	}
	up->nsegs = n;

	return offset == up->size ? 0 : -EINVAL;
}

/*
 * Charge @npages to the caller's pinned_vm, within RLIMIT_MEMLOCK unless
 * it has CAP_IPC_LOCK.
 */
static int gaudisim_pinned_vm_charge(struct gaudisim_device *gdev, struct mm_struct *mm,
				     u64 npages)
{
	u64 limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	u64 pinned = atomic64_add_return(npages, &mm->pinned_vm);

	if (pinned > limit && !capable(CAP_IPC_LOCK)) {
		atomic64_sub(npages, &mm->pinned_vm);
		gaudisim_dbg(gdev, "pinning %llu pages exceeds RLIMIT_MEMLOCK (%llu pages, %llu pinned)\n",
			     npages, limit, pinned - npages);
		return -ENOMEM;
	}
	return 0;
}

static int gaudisim_userptr_pin(struct gaudisim_userptr *up, u64 addr)
{
	struct device *dev = &up->gdev->pdev->dev;
	int pinned, rc;

	rc = gaudisim_pinned_vm_charge(up->gdev, current->mm, up->npages);
	if (rc)
		return rc;
	up->pages = kvmalloc_array(up->npages, sizeof(*up->pages), GFP_KERNEL);
	if (!up->pages) {
		rc = -ENOMEM;
		goto err_uncharge;
	}

	pinned = pin_user_pages_fast(addr, up->npages, FOLL_WRITE | FOLL_LONGTERM,
				     up->pages);
	if (pinned != up->npages) {
		rc = pinned < 0 ? pinned : -EFAULT;
		if (pinned > 0)
			unpin_user_pages(up->pages, pinned);
		goto err_free_pages;
	}

	rc = sg_alloc_table_from_pages(&up->sgt, up->pages, up->npages, 0,
				       up->size, GFP_KERNEL);
	if (rc)
		goto err_unpin;

	rc = dma_map_sgtable(dev, &up->sgt, DMA_BIDIRECTIONAL, 0);
	if (rc)
		goto err_free_sgt;

	rc = gaudisim_userptr_build_segs(up);
	if (rc)
		goto err_unmap;
	return 0;

err_unmap:
	kvfree(up->segs);
	dma_unmap_sgtable(dev, &up->sgt, DMA_BIDIRECTIONAL, 0);
err_free_sgt:
	sg_free_table(&up->sgt);
err_unpin:
	unpin_user_pages(up->pages, up->npages);
err_free_pages:
	kvfree(up->pages);
err_uncharge:
	atomic64_sub(up->npages, &current->mm->pinned_vm);
	return rc;
}

/*
 * Place a mapping's VA: at @hint when it is a free, page-aligned address
 * inside the host VA range, elsewhere otherwise (habanalabs' hint rule).
 */
static int gaudisim_userptr_place(struct gaudisim_ctx *ctx, struct gaudisim_userptr *up,
				  u64 hint)
{
	const u64 lo = GAUDISIM_HOST_VA_BASE;
	const u64 hi = GAUDISIM_HOST_VA_BASE + GAUDISIM_HOST_VA_SIZE;
	u64 len = up->size + GAUDISIM_VA_GUARD;

	if (hint && PAGE_ALIGNED(hint) && hint >= lo && hint < hi && len <= hi - hint &&
	    !drm_mm_insert_node_in_range(&ctx->va_mm, &up->va_node, len, 0, 0,
					 hint, hint + len, DRM_MM_INSERT_LOW))
		return 0;
	if (hint)
		gaudisim_dbg(ctx->gdev, "hint 0x%llx not usable, placing elsewhere\n", hint);
	return drm_mm_insert_node_in_range(&ctx->va_mm, &up->va_node, len, 0, 0,
					   lo, hi, DRM_MM_INSERT_LOW);
}

static int gaudisim_userptr_map(struct gaudisim_ctx *ctx, u64 addr, u64 size, u64 hint,
				u64 *va)
{
	struct gaudisim_device *gdev = ctx->gdev;
	struct gaudisim_userptr *up;
	u64 end, first, span;
	int rc;

	/*
	 * Like habanalabs, any byte range may be mapped (malloc() memory is
	 * rarely page-aligned): the pages that cover it are pinned and mapped,
	 * and the VA returned keeps the buffer's offset in its first page.
	 */
	if (!size || check_add_overflow(addr, size, &end) || end > U64_MAX - PAGE_SIZE) {
		gaudisim_dbg(gdev, "bad userptr range 0x%llx + 0x%llx\n", addr, size);
		return -EINVAL;
	}
	first = round_down(addr, PAGE_SIZE);
	span = round_up(end, PAGE_SIZE) - first;
	if (span > GAUDISIM_USERPTR_MAX_SIZE) {
		gaudisim_dbg(gdev, "userptr range 0x%llx + 0x%llx spans more than %llu bytes\n",
			     addr, size, GAUDISIM_USERPTR_MAX_SIZE);
		return -EINVAL;
	}
	if (!access_ok(u64_to_user_ptr(first), span))
		return -EFAULT;

	up = kzalloc(sizeof(*up), GFP_KERNEL);
	if (!up)
		return -ENOMEM;
	kref_init(&up->ref);
	up->gdev = gdev;
	up->size = span;
	up->npages = span >> PAGE_SHIFT;
	up->offset = addr - first;

	rc = gaudisim_userptr_pin(up, first);
	if (rc) {
		gaudisim_dbg(gdev, "cannot pin 0x%llx + 0x%llx: %d\n", addr, size, rc);
		kfree(up);
		return rc;
	}
	/* The pages stay charged to this mm until the last job drops them. */
	up->mm = current->mm;
	mmgrab(up->mm);

	mutex_lock(&ctx->mem_lock);
	rc = gaudisim_userptr_place(ctx, up, hint);
	if (rc) {
		mutex_unlock(&ctx->mem_lock);
		gaudisim_dbg(gdev, "host VA range exhausted\n");
		gaudisim_userptr_put(up);
		return -ENOMEM;
	}
	up->va = up->va_node.start;
	/* Internal queues reach the pages through the device MMU. */
	rc = gaudisim_mmu_map_userptr(ctx, up);
	if (rc) {
		drm_mm_remove_node(&up->va_node);
		mutex_unlock(&ctx->mem_lock);
		gaudisim_dbg(gdev, "cannot map VA 0x%llx in the device MMU: %d\n",
			     up->va, rc);
		gaudisim_userptr_put(up);
		return rc;
	}
	mutex_unlock(&ctx->mem_lock);

	gaudisim_dbg(gdev, "mapped %llu bytes at VA 0x%llx in %u bus-contiguous pieces\n",
		     size, up->va + up->offset, up->nsegs);
	*va = up->va + up->offset;
	return 0;
}

/**
 * gaudisim_userptr_find() - the mapping that holds [va, va + len)
 * @ctx: the context, with mem_lock held
 * @va: device VA
 * @len: bytes, at least 1
 *
 * Return: the mapping (no reference taken), or NULL when the range is not
 * entirely inside one mapping.
 */
struct gaudisim_userptr *gaudisim_userptr_find(struct gaudisim_ctx *ctx, u64 va, u64 len)
{
	struct drm_mm_node *node;

	lockdep_assert_held(&ctx->mem_lock);

	/*
	 * drm_mm only answers for ranges inside the one it manages: outside,
	 * its range walk starts from the list head and never ends.
	 */
	if (!len || va < GAUDISIM_HOST_VA_BASE ||
	    va - GAUDISIM_HOST_VA_BASE >= GAUDISIM_HOST_VA_SIZE ||
	    len > GAUDISIM_HOST_VA_SIZE - (va - GAUDISIM_HOST_VA_BASE))
		return NULL;

	drm_mm_for_each_node_in_range(node, &ctx->va_mm, va, va + 1) {
		struct gaudisim_userptr *up = container_of(node, struct gaudisim_userptr,
						       va_node);
		u64 off = va - up->va;

		if (va >= up->va && off < up->size && len <= up->size - off)
			return up;
	}
	return NULL;
}

/**
 * gaudisim_userptr_translate() - bus address of a VA inside a mapping
 * @up: the mapping
 * @va: a device VA inside it
 * @bus: set to the bus address of @va
 * @contig: set to the bytes from @va that are bus-contiguous (at least 1)
 */
void gaudisim_userptr_translate(const struct gaudisim_userptr *up, u64 va,
				dma_addr_t *bus, u64 *contig)
{
	u64 off = va - up->va;
	u32 lo = 0, hi = up->nsegs;

	/* The last segment that starts at or before @off. */
	while (hi - lo > 1) {
		u32 mid = lo + (hi - lo) / 2;

		if (up->segs[mid].offset <= off)
			lo = mid;
		else
			hi = mid;
	}
	off -= up->segs[lo].offset;
	*bus = up->segs[lo].addr + off;
	*contig = up->segs[lo].len - off;
}

static int gaudisim_userptr_unmap(struct gaudisim_ctx *ctx, u64 va)
{
	struct gaudisim_userptr *up;

	mutex_lock(&ctx->mem_lock);
	up = gaudisim_userptr_find(ctx, va, 1);
	if (!up || up->va + up->offset != va) {
		mutex_unlock(&ctx->mem_lock);
		gaudisim_dbg(ctx->gdev, "no userptr mapping at 0x%llx\n", va);
		return -EINVAL;
	}
	gaudisim_mmu_unmap_userptr(ctx, up);
	drm_mm_remove_node(&up->va_node);
	mutex_unlock(&ctx->mem_lock);

	/* Jobs still using the pages keep them pinned until they complete. */
	gaudisim_userptr_put(up);
	return 0;
}

/* ---- HBM ------------------------------------------------------------------ */

static int gaudisim_hbm_alloc(struct gaudisim_ctx *ctx, u64 size, u64 *handle)
{
	struct gaudisim_device *gdev = ctx->gdev;
	struct gaudisim_hbm_alloc *alloc;
	u64 aligned;
	u32 id;
	int rc;

	if (!size) {
		gaudisim_dbg(gdev, "HBM allocation of 0 bytes\n");
		return -EINVAL;
	}
	if (size > gaudisim_hbm_user_size(gdev)) {
		gaudisim_dbg(gdev, "HBM allocation of %llu bytes exceeds HBM\n", size);
		return -ENOMEM;
	}
	aligned = round_up(size, GAUDISIM_DRAM_PAGE_SIZE);

	alloc = kzalloc(sizeof(*alloc), GFP_KERNEL);
	if (!alloc)
		return -ENOMEM;

	mutex_lock(&ctx->mem_lock);
	if (aligned > ctx->hbm_quota - ctx->dram_used) {
		gaudisim_dbg(gdev, "HBM quota: %llu of %llu bytes used, %llu more refused\n",
			     ctx->dram_used, ctx->hbm_quota, aligned);
		rc = -ENOMEM;
		goto err_unlock;
	}

	mutex_lock(&gdev->hbm_lock);
	rc = drm_mm_insert_node_generic(&gdev->hbm_mm, &alloc->node, aligned,
					GAUDISIM_DRAM_PAGE_SIZE, 0,
					DRM_MM_INSERT_BEST);
	if (!rc)
		gdev->hbm_used += aligned;
	mutex_unlock(&gdev->hbm_lock);
	if (rc) {
		gaudisim_dbg(gdev, "no %llu free bytes of HBM\n", aligned);
		rc = -ENOMEM;
		goto err_unlock;
	}

	rc = xa_alloc(&ctx->hbm_allocs, &id, alloc, xa_limit_32b, GFP_KERNEL);
	if (rc) {
		rc = -ENOMEM;
		goto err_remove_node;
	}
	ctx->dram_used += aligned;
	/* Everything the context ever held is scrubbed when it closes. */
	if (!ctx->hbm_dirty_end) {
		ctx->hbm_dirty_start = alloc->node.start;
		ctx->hbm_dirty_end = alloc->node.start + aligned;
	} else {
		ctx->hbm_dirty_start = min(ctx->hbm_dirty_start, alloc->node.start);
		ctx->hbm_dirty_end = max(ctx->hbm_dirty_end, alloc->node.start + aligned);
	}
	mutex_unlock(&ctx->mem_lock);

	*handle = id;
	return 0;

err_remove_node:
	mutex_lock(&gdev->hbm_lock);
	drm_mm_remove_node(&alloc->node);
	gdev->hbm_used -= aligned;
	mutex_unlock(&gdev->hbm_lock);
err_unlock:
	mutex_unlock(&ctx->mem_lock);
	kfree(alloc);
	return rc;
}

static void gaudisim_hbm_release(struct gaudisim_ctx *ctx, struct gaudisim_hbm_alloc *alloc)
{
	struct gaudisim_device *gdev = ctx->gdev;

	lockdep_assert_held(&ctx->mem_lock);

	/* Peers may no longer write memory the context gives back. */
	gaudisim_nic_drop_range(ctx, alloc->node.start, alloc->node.size);
	mutex_lock(&gdev->hbm_lock);
	gdev->hbm_used -= alloc->node.size;
	drm_mm_remove_node(&alloc->node);
	mutex_unlock(&gdev->hbm_lock);

	ctx->dram_used -= alloc->node.size;
	kfree(alloc);
}

/*
 * FREE of a shared context: other contexts may get the memory next, so
 * the device zeroes it first, once the context's jobs (which may still
 * use it) are done, and the CSs it is building (whose chunks may have
 * been approved while it was still the context's) are pushed and done.
 * New CBs cannot name it meanwhile (@freeing).
 */
static int gaudisim_hbm_free_shared(struct gaudisim_ctx *ctx, u64 handle,
				    struct gaudisim_hbm_alloc *alloc)
{
	bool idle;

	lockdep_assert_held(&ctx->mem_lock);
	alloc->freeing = true;
	mutex_unlock(&ctx->mem_lock);

	idle = wait_event_timeout(ctx->idle_wq, !atomic_read(&ctx->cs_building) &&
				  !atomic_read(&ctx->jobs_inflight), GAUDISIM_HBM_FREE_WAIT);
	if (idle)
		gaudisim_ctx_scrub_range(ctx, alloc->node.start,
					 alloc->node.start + alloc->node.size);

	mutex_lock(&ctx->mem_lock);
	if (!idle) {
		alloc->freeing = false;
		mutex_unlock(&ctx->mem_lock);
		gaudisim_dbg(ctx->gdev, "HBM handle %llu: the context's jobs still run\n", handle);
		return -EBUSY;
	}
	xa_erase(&ctx->hbm_allocs, handle);
	gaudisim_hbm_release(ctx, alloc);
	mutex_unlock(&ctx->mem_lock);
	return 0;
}

static int gaudisim_hbm_free(struct gaudisim_ctx *ctx, u64 handle)
{
	struct gaudisim_hbm_alloc *alloc = NULL;

	mutex_lock(&ctx->mem_lock);
	if (handle && handle <= U32_MAX)
		alloc = xa_load(&ctx->hbm_allocs, handle);
	if (!alloc || alloc->freeing) {
		mutex_unlock(&ctx->mem_lock);
		gaudisim_dbg(ctx->gdev, "no HBM allocation with handle %llu\n", handle);
		return -EINVAL;
	}
	if (ctx->shared)
		return gaudisim_hbm_free_shared(ctx, handle, alloc);
	xa_erase(&ctx->hbm_allocs, handle);
	gaudisim_hbm_release(ctx, alloc);
	mutex_unlock(&ctx->mem_lock);
	return 0;
}

/**
 * gaudisim_mem_owns_hbm() - does [addr, addr + len) lie in one allocation of @ctx?
 * @ctx: the context, its mem_lock held
 * @addr: HBM address
 * @len: bytes
 *
 * Allocations being freed do not count.
 */
bool gaudisim_mem_owns_hbm(struct gaudisim_ctx *ctx, u64 addr, u64 len)
{
	struct gaudisim_hbm_alloc *alloc;
	unsigned long id;

	lockdep_assert_held(&ctx->mem_lock);
	xa_for_each(&ctx->hbm_allocs, id, alloc) {
		u64 start = alloc->node.start;

		if (!alloc->freeing && addr >= start && len <= alloc->node.size &&
		    addr - start <= alloc->node.size - len)
			return true;
	}
	return false;
}

/*
 * Zero every live allocation of a closing shared context (on the device).
 * No mem_lock: the file is gone, nothing else touches the allocations, and
 * a scrub that fails resets the device, which takes submit_lock.
 */
void gaudisim_mem_scrub_allocs(struct gaudisim_ctx *ctx)
{
	struct gaudisim_hbm_alloc *alloc;
	unsigned long id;

	xa_for_each(&ctx->hbm_allocs, id, alloc)
		gaudisim_ctx_scrub_range(ctx, alloc->node.start,
					 alloc->node.start + alloc->node.size);
}

static int gaudisim_hbm_map(struct gaudisim_ctx *ctx, u64 handle, u64 *addr)
{
	struct gaudisim_hbm_alloc *alloc = NULL;

	mutex_lock(&ctx->mem_lock);
	if (handle && handle <= U32_MAX)
		alloc = xa_load(&ctx->hbm_allocs, handle);
	if (alloc)
		*addr = alloc->node.start;
	mutex_unlock(&ctx->mem_lock);

	if (!alloc) {
		gaudisim_dbg(ctx->gdev, "no HBM allocation with handle %llu\n", handle);
		return -EINVAL;
	}
	return 0;
}

/* HBM needs no mapping; UNMAP only checks that @addr is an allocation. */
static int gaudisim_hbm_unmap(struct gaudisim_ctx *ctx, u64 addr)
{
	struct gaudisim_hbm_alloc *alloc;
	unsigned long id;
	int rc = -EINVAL;

	mutex_lock(&ctx->mem_lock);
	xa_for_each(&ctx->hbm_allocs, id, alloc) {
		if (alloc->node.start == addr) {
			rc = 0;
			break;
		}
		cond_resched();
	}
	mutex_unlock(&ctx->mem_lock);

	if (rc)
		gaudisim_dbg(ctx->gdev, "nothing is mapped at 0x%llx\n", addr);
	return rc;
}

/* ---- ioctl and context life ---------------------------------------------- */

/* How many 64-bit words of the argument union an op reads. */
static unsigned int gaudisim_mem_op_words(const struct gaudisim_mem_in *in)
{
	switch (in->op) {
	case GAUDISIM_MEM_OP_ALLOC:
		return 2;
	case GAUDISIM_MEM_OP_MAP:
		return (in->flags & GAUDISIM_MEM_USERPTR) ? 3 : 2;
	case GAUDISIM_MEM_OP_NIC_REGISTER:
		return 3;
	default:
		return 1;
	}
}

int gaudisim_mem_ioctl(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct gaudisim_device *gdev = to_gaudisim(drm);
	struct gaudisim_ctx *ctx = file->driver_priv;
	union gaudisim_mem_args *args = data;
	struct gaudisim_mem_in in = args->in;
	u32 flags_ok = 0;
	u64 result = 0;
	int rc;

	if (in.ctx_id || in.num_of_elements) {
		gaudisim_dbg(gdev, "ctx_id and num_of_elements must be 0\n");
		return -EINVAL;
	}
	if (in.op == GAUDISIM_MEM_OP_MAP)
		flags_ok = GAUDISIM_MEM_USERPTR;
	else if (in.op == GAUDISIM_MEM_OP_ALLOC)
		flags_ok = GAUDISIM_MEM_CONTIGUOUS;
	if (in.flags & ~flags_ok) {
		gaudisim_dbg(gdev, "flags 0x%x are not valid for op %u\n", in.flags, in.op);
		return -EINVAL;
	}
	/* Words of the union the op does not use must be 0. */
	if (memchr_inv(&in.raw[gaudisim_mem_op_words(&in)], 0,
		       sizeof(in.raw) - gaudisim_mem_op_words(&in) * sizeof(in.raw[0]))) {
		gaudisim_dbg(gdev, "unused argument words must be 0\n");
		return -EINVAL;
	}
	if (in.op == GAUDISIM_MEM_OP_ALLOC && in.alloc.page_size &&
	    in.alloc.page_size != GAUDISIM_DRAM_PAGE_SIZE) {
		gaudisim_dbg(gdev, "page size 0x%llx is not offered\n", in.alloc.page_size);
		return -EINVAL;
	}
	if (in.op == GAUDISIM_MEM_OP_MAP && !(in.flags & GAUDISIM_MEM_USERPTR) &&
	    in.map_device.hint_addr) {
		gaudisim_dbg(gdev, "HBM is mapped where it lies: hint must be 0\n");
		return -EINVAL;
	}

	switch (in.op) {
	case GAUDISIM_MEM_OP_ALLOC:
		rc = gaudisim_hbm_alloc(ctx, in.alloc.mem_size, &result);
		break;
	case GAUDISIM_MEM_OP_FREE:
		rc = gaudisim_hbm_free(ctx, in.free.handle);
		break;
	case GAUDISIM_MEM_OP_MAP:
		if (in.flags & GAUDISIM_MEM_USERPTR)
			rc = gaudisim_userptr_map(ctx, in.map_host.host_virt_addr,
						  in.map_host.mem_size, in.map_host.hint_addr,
						  &result);
		else
			rc = gaudisim_hbm_map(ctx, in.map_device.handle, &result);
		break;
	case GAUDISIM_MEM_OP_UNMAP:
		if (in.unmap.device_virt_addr >= GAUDISIM_HOST_VA_BASE)
			rc = gaudisim_userptr_unmap(ctx, in.unmap.device_virt_addr);
		else
			rc = gaudisim_hbm_unmap(ctx, in.unmap.device_virt_addr);
		break;
	case GAUDISIM_MEM_OP_NIC_REGISTER:
		rc = gaudisim_nic_register(ctx, in.nic_register.device_addr, in.nic_register.size,
					   in.nic_register.sob_first, in.nic_register.sob_count,
					   &result);
		break;
	case GAUDISIM_MEM_OP_NIC_DEREGISTER:
		rc = gaudisim_nic_deregister(ctx, in.nic_deregister.handle);
		break;
	default:
		gaudisim_dbg(gdev, "unknown memory op %u\n", in.op);
		return -EINVAL;
	}
	if (rc)
		return rc;

	memset(args, 0, sizeof(*args));
	args->out.handle = result;
	return 0;
}

void gaudisim_mem_ctx_init(struct gaudisim_ctx *ctx)
{
	drm_mm_init(&ctx->va_mm, GAUDISIM_HOST_VA_BASE, GAUDISIM_HOST_VA_SIZE);
	xa_init_flags(&ctx->hbm_allocs, XA_FLAGS_ALLOC1);
}

/* Release every mapping and allocation of a closing context. */
void gaudisim_mem_ctx_fini(struct gaudisim_ctx *ctx)
{
	struct gaudisim_hbm_alloc *alloc;
	struct drm_mm_node *node, *next;
	unsigned long id;

	mutex_lock(&ctx->mem_lock);
	drm_mm_for_each_node_safe(node, next, &ctx->va_mm) {
		struct gaudisim_userptr *up = container_of(node, struct gaudisim_userptr,
						       va_node);

		drm_mm_remove_node(node);
		gaudisim_userptr_put(up);
		cond_resched();
	}
	drm_mm_takedown(&ctx->va_mm);

	xa_for_each(&ctx->hbm_allocs, id, alloc) {
		xa_erase(&ctx->hbm_allocs, id);
		gaudisim_hbm_release(ctx, alloc);
		cond_resched();
	}
	xa_destroy(&ctx->hbm_allocs);
	mutex_unlock(&ctx->mem_lock);
}
