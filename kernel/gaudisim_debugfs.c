// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs for driver developers, in the accel device's debugfs folder,
 * with habanalabs' file names:
 *   addr               device address for data32/data64 (hex)
 *   data32, data64     read or write the word at addr: a register
 *                      (GAUDISIM_CFG_BASE + offset), HBM (through the HBM
 *                      BAR), SRAM (through the device's debug memory port)
 *                      or host memory at a device VA (the MMU tables are
 *                      walked to its bus address, read through the port);
 *                      root with CAP_SYS_RAWIO. Seekable text files, as
 *                      habanalabs': pread() at any offset reads the value
 *                      text from there; one write sets the value
 *   engines            QMAN busy streams, CP status and busy time per engine
 *   command_submission CSs in flight of the compute context
 *   command_buffers    its user CBs
 *   userptr            its host memory mappings
 *   mmu                write a device VA, read its walk to the bus address
 *   state_dump         device, queue, event-queue and telemetry state
 *   events             the most recent event-queue entries (no heartbeats)
 *   clk_gate           habanalabs' clock-gating mask: the model gates no
 *                      engine clock, so it reads 0 and only 0 may be written
 * The accel core names the folder after the PCI device; links named after
 * the accel minor index point at it: accel/<index>/ and
 * habanalabs/hl<index>/, the two places habanalabs' user space looks.
 *
 * Locking: the context is pinned with a reference taken under open_lock;
 * CSs are listed under ctx->cs_lock and CBs under the xarray lock
 * (spinlocks: only seq_printf() inside), mappings under ctx->mem_lock,
 * MMU tables, the HBM window and the debug memory port under mmu.lock (a
 * host page cannot be unmapped and unpinned while it is accessed). Every
 * device access is
 * inside drm_dev_enter(), and remove deletes the files (waiting for
 * readers) before the device goes away.
 */

#include <linux/capability.h>
#include <linux/debugfs.h>
#include <linux/io.h>
#include <linux/pci.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_managed.h>

#include <hw/gaudisim_hw_mmu.h>
#include <hw/gaudisim_hw_telemetry.h>

#include "gaudisim_cb.h"
#include "gaudisim_cs.h"
#include "gaudisim_ctx.h"
#include "gaudisim_debugfs.h"
#include "gaudisim_drv.h"
#include "gaudisim_eq.h"
#include "gaudisim_hw.h"
#include "gaudisim_mem.h"
#include "gaudisim_mmu.h"
#include "gaudisim_queue.h"
#include "gaudisim_sysfs.h"

/**
 * struct gaudisim_debugfs - debugfs state of one device
 * @gdev: the device
 * @addr: device address of data32/data64
 * @mmu_va: device VA the mmu file walks
 */
struct gaudisim_debugfs {
	struct gaudisim_device *gdev;
	u64 addr;
	u64 mmu_va;
};

static const char *const gaudisim_dbg_files[] = {
	"addr", "data32", "data64", "engines", "command_submission",
	"command_buffers", "userptr", "mmu", "state_dump", "events", "clk_gate",
};

/* ---- MMU walk -------------------------------------------------------------- */

/**
 * struct gaudisim_dbg_walk - a walk of the device MMU tables for one VA
 * @asid: the address space walked; GAUDISIM_MMU_NUM_ASIDS when none is in use
 * @hops: PTEs read (table[], index[] and pte[] entries valid)
 * @table: HBM address of the table read at each hop
 * @index: the entry read in it
 * @pte: its value
 * @bad_table: the walk stopped at a table outside HBM (corrupt PTE)
 * @mapped: the VA translates: @pa and @page_size are set
 * @pa: the bus address of the VA
 * @page_size: the page it is in
 */
struct gaudisim_dbg_walk {
	u32 asid;
	u32 hops;
	u64 table[GAUDISIM_MMU_NUM_HOPS];
	u32 index[GAUDISIM_MMU_NUM_HOPS];
	u64 pte[GAUDISIM_MMU_NUM_HOPS];
	bool bad_table;
	bool mapped;
	u64 pa;
	u64 page_size;
};

/*
 * Walk the tables the device walks (in HBM), not the driver's shadows, of
 * the lowest ASID in use (the only one unless contexts share the device).
 * Caller holds mmu.lock.
 */
static void gaudisim_dbg_mmu_walk(struct gaudisim_device *gdev, u64 va,
				  struct gaudisim_dbg_walk *w)
{
	struct gaudisim_mmu *mmu = &gdev->mmu;
	u64 table = 0, pte;
	u32 hop;

	lockdep_assert_held(&mmu->lock);
	memset(w, 0, sizeof(*w));
	for (w->asid = 0; w->asid < GAUDISIM_MMU_NUM_ASIDS && !table; w->asid++)
		table = mmu->hop0[w->asid];
	if (!table) {
		w->asid = GAUDISIM_MMU_NUM_ASIDS;
		return;
	}
	w->asid--;
	for (hop = 0; hop < GAUDISIM_MMU_NUM_HOPS; hop++) {
		/* A corrupt PTE must not move the window outside HBM. */
		if (table >= gdev->hbm_size) {
			w->table[hop] = table;
			w->bad_table = true;
			return;
		}
		w->table[hop] = table;
		w->index[hop] = GAUDISIM_MMU_HOP_INDEX(va, hop);
		pte = readq(gaudisim_mmu_hbm_map(gdev, table + w->index[hop] *
						 GAUDISIM_MMU_PTE_SIZE));
		w->pte[hop] = pte;
		w->hops = hop + 1;
		if (!(pte & GAUDISIM_MMU_PTE_PRESENT))
			return;
		if (hop == GAUDISIM_MMU_LEAF_HOP ||
		    (hop == GAUDISIM_MMU_HUGE_HOP && (pte & GAUDISIM_MMU_PTE_LAST)))
			break;
		table = pte & GAUDISIM_MMU_PTE_ADDR_MASK;
	}
	w->page_size = hop == GAUDISIM_MMU_LEAF_HOP ? GAUDISIM_MMU_PAGE_SIZE :
						      GAUDISIM_MMU_HUGE_PAGE_SIZE;
	w->pa = (pte & GAUDISIM_MMU_PTE_ADDR_MASK) + (va & (w->page_size - 1));
	w->mapped = true;
}

/* ---- Register and memory peek/poke ------------------------------------------ */

static bool gaudisim_dbg_is_va(u64 addr, u32 width)
{
	return addr >= GAUDISIM_MMU_VA_BASE &&
	       addr - GAUDISIM_MMU_VA_BASE <= GAUDISIM_MMU_VA_SIZE - width;
}

static bool gaudisim_dbg_is_sram(u64 addr, u32 width)
{
	return addr >= GAUDISIM_SRAM_BASE &&
	       addr - GAUDISIM_SRAM_BASE <= GAUDISIM_SRAM_SIZE - width;
}

/*
 * One or two 32-bit accesses through the device's debug memory port at the
 * device address addr (SRAM, or host memory at HOST_BASE + bus address).
 * Caller holds mmu.lock, which serialises the port.
 */
static int gaudisim_dbg_port_access(struct gaudisim_device *gdev, u64 addr, u32 width,
				    u64 *val, bool write)
{
	u32 i, word;

	for (i = 0; i < width / 4; i++) {
		gaudisim_wreg(gdev, GAUDISIM_BLOCK_DBG_MEM + GAUDISIM_DBG_MEM_ADDR_LO,
			      lower_32_bits(addr + 4 * i));
		gaudisim_wreg(gdev, GAUDISIM_BLOCK_DBG_MEM + GAUDISIM_DBG_MEM_ADDR_HI,
			      upper_32_bits(addr + 4 * i));
		if (write) {
			word = i ? upper_32_bits(*val) : lower_32_bits(*val);
			gaudisim_wreg(gdev, GAUDISIM_BLOCK_DBG_MEM + GAUDISIM_DBG_MEM_DATA, word);
		} else {
			word = gaudisim_rreg(gdev, GAUDISIM_BLOCK_DBG_MEM + GAUDISIM_DBG_MEM_DATA);
			*val = i ? *val | (u64)word << 32 : word;
		}
		if (gaudisim_rreg(gdev, GAUDISIM_BLOCK_DBG_MEM + GAUDISIM_DBG_MEM_STS))
			return -EIO;
	}
	return 0;
}

/* Host memory at a device VA of the compute context: walk, then the port. */
static int gaudisim_dbg_va_access(struct gaudisim_device *gdev, u64 va, u32 width, u64 *val,
				  bool write)
{
	struct gaudisim_dbg_walk w;

	gaudisim_dbg_mmu_walk(gdev, va, &w);
	if (!w.mapped)
		return -EFAULT;
	/* The device could not write there either. */
	if (write && !(w.pte[w.hops - 1] & GAUDISIM_MMU_PTE_WRITABLE))
		return -EACCES;
	return gaudisim_dbg_port_access(gdev, GAUDISIM_HOST_BASE + w.pa, width, val, write);
}

static int gaudisim_dbg_hbm_access(struct gaudisim_device *gdev, u64 addr, u32 width, u64 *val,
				   bool write)
{
	void __iomem *p = gaudisim_mmu_hbm_map(gdev, addr);

	if (write && width == 8)
		writeq(*val, p);
	else if (write)
		writel(*val, p);
	else
		*val = width == 8 ? readq(p) : readl(p);
	return 0;
}

static int gaudisim_dbg_access(struct gaudisim_debugfs *dbg, u32 width, u64 *val, bool write)
{
	struct gaudisim_device *gdev = dbg->gdev;
	u64 addr = READ_ONCE(dbg->addr);
	void __iomem *p;
	int rc, idx;

	if (!capable(CAP_SYS_RAWIO))
		return -EPERM;
	if (!IS_ALIGNED(addr, width))
		return -EINVAL;
	if (write && width == 4 && *val > U32_MAX)
		return -ERANGE;
	if (!drm_dev_enter(&gdev->drm, &idx))
		return -ENODEV;

	if (addr >= GAUDISIM_CFG_BASE &&
	    addr - GAUDISIM_CFG_BASE <= GAUDISIM_CFG_BAR_SIZE - width) {
		p = gdev->regs + (addr - GAUDISIM_CFG_BASE);
		/* 64-bit registers are LO/HI pairs: LO first. */
		if (write) {
			writel(lower_32_bits(*val), p);
			if (width == 8)
				writel(upper_32_bits(*val), p + 4);
		} else {
			*val = readl(p);
			if (width == 8)
				*val |= (u64)readl(p + 4) << 32;
		}
		rc = 0;
	} else if (addr < gdev->hbm_size && gdev->hbm_size - addr >= width) {
		mutex_lock(&gdev->mmu.lock);
		rc = gaudisim_dbg_hbm_access(gdev, addr, width, val, write);
		mutex_unlock(&gdev->mmu.lock);
	} else if (gaudisim_dbg_is_sram(addr, width)) {
		mutex_lock(&gdev->mmu.lock);
		rc = gaudisim_dbg_port_access(gdev, addr, width, val, write);
		mutex_unlock(&gdev->mmu.lock);
	} else if (gaudisim_dbg_is_va(addr, width)) {
		mutex_lock(&gdev->mmu.lock);
		rc = gaudisim_dbg_va_access(gdev, addr, width, val, write);
		mutex_unlock(&gdev->mmu.lock);
	} else {
		/* The physical host window and the holes of the map. */
		rc = -EINVAL;
	}
	drm_dev_exit(idx);
	return rc;
}

/*
 * data32, data64 and clk_gate are seekable text files, as habanalabs' are:
 * its user space pread()s them at offset 0 and write()s them without
 * seeking. Each read at offset 0 reads the value again.
 */
struct gaudisim_dbg_value {
	int (*get)(struct gaudisim_debugfs *dbg, u64 *val);
	int (*set)(struct gaudisim_debugfs *dbg, u64 val);
	const char *fmt;
};

static ssize_t gaudisim_dbg_value_read(struct file *file, char __user *ubuf, size_t count,
				       loff_t *ppos, const struct gaudisim_dbg_value *v)
{
	char text[24];
	u64 val;
	int rc, len;

	if (*ppos < 0)
		return -EINVAL;
	rc = v->get(file->private_data, &val);
	if (rc)
		return rc;
	len = scnprintf(text, sizeof(text), v->fmt, val);
	return simple_read_from_buffer(ubuf, count, ppos, text, len);
}

static ssize_t gaudisim_dbg_value_write(struct file *file, const char __user *ubuf, size_t count,
					const struct gaudisim_dbg_value *v)
{
	u64 val;
	int rc;

	/* A trailing NUL or newline, as habanalabs' user space sends, is fine. */
	rc = kstrtou64_from_user(ubuf, count, 0, &val);
	if (rc)
		return rc;
	rc = v->set(file->private_data, val);
	return rc ? rc : count;
}

static int gaudisim_dbg_data32_get(struct gaudisim_debugfs *dbg, u64 *val)
{
	return gaudisim_dbg_access(dbg, 4, val, false);
}

static int gaudisim_dbg_data32_set(struct gaudisim_debugfs *dbg, u64 val)
{
	return gaudisim_dbg_access(dbg, 4, &val, true);
}

static int gaudisim_dbg_data64_get(struct gaudisim_debugfs *dbg, u64 *val)
{
	return gaudisim_dbg_access(dbg, 8, val, false);
}

static int gaudisim_dbg_data64_set(struct gaudisim_debugfs *dbg, u64 val)
{
	return gaudisim_dbg_access(dbg, 8, &val, true);
}

/*
 * clk_gate: the engines whose clocks habanalabs may gate when idle. The
 * model has no clock gating: the mask is 0 and enabling it is refused.
 */
static int gaudisim_dbg_clk_gate_get(struct gaudisim_debugfs *dbg, u64 *val)
{
	*val = 0;
	return 0;
}

static int gaudisim_dbg_clk_gate_set(struct gaudisim_debugfs *dbg, u64 val)
{
	return val ? -EOPNOTSUPP : 0;
}

#define GAUDISIM_DBG_VALUE_FOPS(name, format)						\
static const struct gaudisim_dbg_value gaudisim_dbg_##name##_value = {			\
	.get = gaudisim_dbg_##name##_get,						\
	.set = gaudisim_dbg_##name##_set,						\
	.fmt = format,									\
};											\
static ssize_t gaudisim_dbg_##name##_read(struct file *file, char __user *ubuf,	\
					  size_t count, loff_t *ppos)			\
{											\
	return gaudisim_dbg_value_read(file, ubuf, count, ppos,			\
				       &gaudisim_dbg_##name##_value);			\
}											\
static ssize_t gaudisim_dbg_##name##_write(struct file *file, const char __user *ubuf,	\
					   size_t count, loff_t *ppos)			\
{											\
	return gaudisim_dbg_value_write(file, ubuf, count, &gaudisim_dbg_##name##_value); \
}											\
static const struct file_operations gaudisim_dbg_##name##_fops = {			\
	.owner = THIS_MODULE,								\
	.open = simple_open,								\
	.read = gaudisim_dbg_##name##_read,						\
	.write = gaudisim_dbg_##name##_write,						\
	.llseek = default_llseek,							\
}

GAUDISIM_DBG_VALUE_FOPS(data32, "0x%08llx\n");
GAUDISIM_DBG_VALUE_FOPS(data64, "0x%016llx\n");
GAUDISIM_DBG_VALUE_FOPS(clk_gate, "0x%llx\n");

/* ---- Engines --------------------------------------------------------------- */

static u64 gaudisim_dbg_tel64(struct gaudisim_device *gdev, u32 lo)
{
	u64 value = gaudisim_rreg(gdev, GAUDISIM_BLOCK_TELEMETRY + lo);

	return value | (u64)gaudisim_rreg(gdev, GAUDISIM_BLOCK_TELEMETRY + lo + 4) << 32;
}

static int gaudisim_dbg_engines_show(struct seq_file *m, void *unused)
{
	struct gaudisim_debugfs *dbg = m->private;
	struct gaudisim_device *gdev = dbg->gdev;
	u32 e, s;
	int idx;

	if (!drm_dev_enter(&gdev->drm, &idx))
		return -ENODEV;
	seq_puts(m, "engine  busy-streams  cp-sts(s0..s3)                           busy-ns\n");
	for (e = 0; e < GAUDISIM_ENGINE_COUNT; e++) {
		seq_printf(m, "%-6s  0x%x           ", gaudisim_engine_name(e),
			   gaudisim_hw_busy_streams(gdev, e));
		for (s = 0; s < GAUDISIM_STREAMS_PER_QMAN; s++)
			seq_printf(m, "0x%08x ",
				   gaudisim_rreg(gdev, gaudisim_qm_reg(e, GAUDISIM_QM_CP_STS(s))));
		seq_printf(m, "%llu\n", gaudisim_dbg_tel64(gdev,
							   GAUDISIM_TEL_ENGINE_BUSY_NS_LO(e)));
	}
	drm_dev_exit(idx);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(gaudisim_dbg_engines);

/* ---- Context state --------------------------------------------------------- */

/*
 * The compute context (the lowest slot's when several share the device)
 * with a reference, or NULL when nobody holds the device.
 */
static struct gaudisim_ctx *gaudisim_dbg_get_ctx(struct gaudisim_device *gdev)
{
	struct gaudisim_ctx *ctx = NULL;
	u32 i;

	mutex_lock(&gdev->open_lock);
	for (i = 0; i < GAUDISIM_MAX_CONTEXTS && !ctx; i++)
		ctx = gdev->ctxs[i];
	if (ctx)
		gaudisim_ctx_get(ctx);
	mutex_unlock(&gdev->open_lock);
	return ctx;
}

static int gaudisim_dbg_cs_show(struct seq_file *m, void *unused)
{
	struct gaudisim_debugfs *dbg = m->private;
	struct gaudisim_ctx *ctx = gaudisim_dbg_get_ctx(dbg->gdev);
	u32 i, j;

	if (!ctx) {
		seq_puts(m, "no compute context\n");
		return 0;
	}
	spin_lock(&ctx->cs_lock);
	seq_printf(m, "pid %d asid %u next-seq %llu\n", ctx->pid, ctx->asid, ctx->next_seq);
	seq_puts(m, "seq       jobs  ext-left  timeout-s  queues\n");
	for (i = 0; i < GAUDISIM_MAX_PENDING_CS; i++) {
		struct gaudisim_cs *cs = ctx->pending[i];

		if (!cs)
			continue;
		seq_printf(m, "%-8llu  %-4u  %-8d  %-9u ", cs->seq, cs->num_jobs,
			   atomic_read(&cs->jobs_left), cs->timeout_s);
		for (j = 0; j < cs->num_jobs; j++)
			seq_printf(m, " %u", cs->jobs[j].queue_id);
		seq_putc(m, '\n');
	}
	spin_unlock(&ctx->cs_lock);
	gaudisim_ctx_put(ctx);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(gaudisim_dbg_cs);

static int gaudisim_dbg_cb_show(struct seq_file *m, void *unused)
{
	struct gaudisim_debugfs *dbg = m->private;
	struct gaudisim_ctx *ctx = gaudisim_dbg_get_ctx(dbg->gdev);
	struct gaudisim_cb *cb;
	unsigned long id;

	if (!ctx) {
		seq_puts(m, "no compute context\n");
		return 0;
	}
	seq_puts(m, "id        size      refs  jobs\n");
	/* The handle's reference keeps each CB alive while it is in the xarray. */
	xa_lock(&ctx->cbs);
	xa_for_each(&ctx->cbs, id, cb)
		seq_printf(m, "%-8u  %-8u  %-4u  %d\n", cb->id, cb->size,
			   kref_read(&cb->ref), atomic_read(&cb->usage));
	xa_unlock(&ctx->cbs);
	gaudisim_ctx_put(ctx);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(gaudisim_dbg_cb);

static int gaudisim_dbg_userptr_show(struct seq_file *m, void *unused)
{
	struct gaudisim_debugfs *dbg = m->private;
	struct gaudisim_ctx *ctx = gaudisim_dbg_get_ctx(dbg->gdev);
	struct drm_mm_node *node;

	if (!ctx) {
		seq_puts(m, "no compute context\n");
		return 0;
	}
	seq_puts(m, "device-va           size        pages     dma-segments  refs\n");
	mutex_lock(&ctx->mem_lock);
	drm_mm_for_each_node(node, &ctx->va_mm) {
		struct gaudisim_userptr *up = container_of(node, struct gaudisim_userptr, va_node);

		seq_printf(m, "0x%016llx  %-10llu  %-8u  %-12u  %u\n", up->va, up->size,
			   up->npages, up->nsegs, kref_read(&up->ref));
	}
	mutex_unlock(&ctx->mem_lock);
	gaudisim_ctx_put(ctx);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(gaudisim_dbg_userptr);

/* ---- The mmu file ------------------------------------------------------------ */

static void gaudisim_dbg_mmu_print(struct seq_file *m, struct gaudisim_device *gdev, u64 va)
{
	struct gaudisim_dbg_walk w;
	u32 hop;

	mutex_lock(&gdev->mmu.lock);
	gaudisim_dbg_mmu_walk(gdev, va, &w);
	mutex_unlock(&gdev->mmu.lock);
	if (w.asid == GAUDISIM_MMU_NUM_ASIDS) {
		seq_printf(m, "va 0x%llx: no address space (no compute context)\n", va);
		return;
	}
	seq_printf(m, "asid %u va 0x%llx\n", w.asid, va);
	for (hop = 0; hop < w.hops; hop++)
		seq_printf(m, "hop%u 0x%llx[%u] = 0x%016llx\n", hop, w.table[hop], w.index[hop],
			   w.pte[hop]);
	if (w.bad_table)
		seq_printf(m, "hop%u table 0x%llx is outside HBM\n", w.hops, w.table[w.hops]);
	else if (!w.mapped)
		seq_printf(m, "not mapped (hop %u PTE not present)\n", w.hops - 1);
	else
		seq_printf(m, "pa 0x%llx (%s page, %s)\n", w.pa,
			   w.page_size == GAUDISIM_MMU_PAGE_SIZE ? "4 KiB" : "2 MiB",
			   w.pte[w.hops - 1] & GAUDISIM_MMU_PTE_WRITABLE ? "writable" :
									   "read-only");
}

static int gaudisim_dbg_mmu_show(struct seq_file *m, void *unused)
{
	struct gaudisim_debugfs *dbg = m->private;
	struct gaudisim_device *gdev = dbg->gdev;
	int idx;

	if (!drm_dev_enter(&gdev->drm, &idx))
		return -ENODEV;
	gaudisim_dbg_mmu_print(m, gdev, READ_ONCE(dbg->mmu_va));
	drm_dev_exit(idx);
	return 0;
}

static int gaudisim_dbg_mmu_open(struct inode *inode, struct file *file)
{
	return single_open(file, gaudisim_dbg_mmu_show, inode->i_private);
}

static ssize_t gaudisim_dbg_mmu_write(struct file *file, const char __user *ubuf,
				      size_t count, loff_t *ppos)
{
	struct gaudisim_debugfs *dbg = ((struct seq_file *)file->private_data)->private;
	u64 va;
	int rc;

	rc = kstrtou64_from_user(ubuf, count, 0, &va);
	if (rc)
		return rc;
	if (va < GAUDISIM_MMU_VA_BASE || va - GAUDISIM_MMU_VA_BASE >= GAUDISIM_MMU_VA_SIZE)
		return -EINVAL;
	WRITE_ONCE(dbg->mmu_va, va);
	return count;
}

static const struct file_operations gaudisim_dbg_mmu_fops = {
	.owner = THIS_MODULE,
	.open = gaudisim_dbg_mmu_open,
	.read = seq_read,
	.write = gaudisim_dbg_mmu_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/* ---- State dump ------------------------------------------------------------ */

static void gaudisim_dbg_dump_device(struct seq_file *m, struct gaudisim_device *gdev)
{
	u32 eq = GAUDISIM_BLOCK_EQ, tel = GAUDISIM_BLOCK_TELEMETRY;

	seq_printf(m, "status: %s\n", gaudisim_status_name(gaudisim_status(gdev)));
	seq_printf(m, "DEV_STATUS 0x%08x HW_STATE 0x%08x\n",
		   gaudisim_rreg(gdev, GAUDISIM_REG_DEV_STATUS),
		   gaudisim_rreg(gdev, GAUDISIM_REG_HW_STATE));
	seq_printf(m, "errors: packets %u dma %u pq %u; cbs done %u\n",
		   gaudisim_rreg(gdev, GAUDISIM_REG_ERR_PKT_CNT),
		   gaudisim_rreg(gdev, GAUDISIM_REG_ERR_DMA_CNT),
		   gaudisim_rreg(gdev, GAUDISIM_REG_ERR_PQ_CNT),
		   gaudisim_rreg(gdev, GAUDISIM_REG_CB_DONE_CNT));
	seq_printf(m, "hard resets %d\n", atomic_read(&gdev->hard_reset_cnt));
	seq_printf(m, "eq: pi %u ci %u (driver %u) sts 0x%x events %u dropped %u\n",
		   gaudisim_rreg(gdev, eq + GAUDISIM_EQ_PI), gaudisim_rreg(gdev,
									   eq + GAUDISIM_EQ_CI),
		   READ_ONCE(gdev->eq.ci), gaudisim_rreg(gdev, eq + GAUDISIM_EQ_STS),
		   gaudisim_rreg(gdev, eq + GAUDISIM_EQ_EVENT_CNT),
		   gaudisim_rreg(gdev, eq + GAUDISIM_EQ_DROP_CNT));
	seq_printf(m, "telemetry: power %u mW (cap %u) temp %u mC clock %u MHz (max %u) throttle 0x%x ecc %u/%u\n",
		   gaudisim_rreg(gdev, tel + GAUDISIM_TEL_POWER_MW),
		   gaudisim_rreg(gdev, tel + GAUDISIM_TEL_POWER_MAX_MW),
		   gaudisim_rreg(gdev, tel + GAUDISIM_TEL_TEMP_MC),
		   gaudisim_rreg(gdev, tel + GAUDISIM_TEL_CLOCK_MHZ),
		   gaudisim_rreg(gdev, tel + GAUDISIM_TEL_CLOCK_MAX_MHZ),
		   gaudisim_rreg(gdev, tel + GAUDISIM_TEL_THROTTLE),
		   gaudisim_rreg(gdev, tel + GAUDISIM_TEL_ECC_CORRECTABLE),
		   gaudisim_rreg(gdev, tel + GAUDISIM_TEL_ECC_UNCORRECTABLE));
}

static void gaudisim_dbg_dump_queues(struct seq_file *m, struct gaudisim_device *gdev)
{
	u32 i, pi, ci;

	seq_puts(m, "queue  driver-pi  driver-ci  hw-pi  hw-ci  cp-sts\n");
	for (i = 0; i < GAUDISIM_NUM_EXT_QUEUES; i++) {
		struct gaudisim_queue *q = &gdev->queues[i];

		if (!q->present)
			continue;
		gaudisim_queue_snapshot(q, &pi, &ci);
		seq_printf(m, "%-5u  %-9u  %-9u  %-5u  %-5u  0x%08x\n", i, pi, ci,
			   gaudisim_rreg(gdev, gaudisim_qm_reg(q->engine,
							       GAUDISIM_QM_PQ_PI(q->stream))),
			   gaudisim_rreg(gdev, gaudisim_qm_reg(q->engine,
							       GAUDISIM_QM_PQ_CI(q->stream))),
			   gaudisim_rreg(gdev, gaudisim_qm_reg(q->engine,
							       GAUDISIM_QM_CP_STS(q->stream))));
	}
}

static int gaudisim_dbg_state_show(struct seq_file *m, void *unused)
{
	struct gaudisim_debugfs *dbg = m->private;
	struct gaudisim_device *gdev = dbg->gdev;
	struct gaudisim_ctx *ctx;
	u64 hbm_used;
	int idx;

	if (!drm_dev_enter(&gdev->drm, &idx))
		return -ENODEV;
	gaudisim_dbg_dump_device(m, gdev);
	gaudisim_dbg_dump_queues(m, gdev);
	drm_dev_exit(idx);

	mutex_lock(&gdev->hbm_lock);
	hbm_used = gdev->hbm_used;
	mutex_unlock(&gdev->hbm_lock);
	seq_printf(m, "hbm: %llu of %llu user bytes allocated\n", hbm_used,
		   gaudisim_hbm_user_size(gdev));
	seq_printf(m, "cs: submitted %lld completed %lld errors %lld timed-out %lld\n",
		   atomic64_read(&gdev->cs_cnt.submitted), atomic64_read(&gdev->cs_cnt.completed),
		   atomic64_read(&gdev->cs_cnt.errors), atomic64_read(&gdev->cs_cnt.timed_out));

	ctx = gaudisim_dbg_get_ctx(gdev);
	if (!ctx) {
		seq_puts(m, "context: none\n");
		return 0;
	}
	seq_printf(m, "context: pid %d asid %u jobs-in-flight %d cbs %d cb-bytes %lld\n",
		   ctx->pid, ctx->asid, atomic_read(&ctx->jobs_inflight),
		   atomic_read(&ctx->cb_count), atomic64_read(&ctx->cb_bytes));
	gaudisim_ctx_put(ctx);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(gaudisim_dbg_state);

/* ---- Events ---------------------------------------------------------------- */

static int gaudisim_dbg_events_show(struct seq_file *m, void *unused)
{
	struct gaudisim_debugfs *dbg = m->private;
	struct gaudisim_eq_entry_le *copy;
	unsigned int n, i;
	u64 total;

	copy = kmalloc_array(GAUDISIM_EQ_HISTORY, sizeof(*copy), GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	n = gaudisim_eq_last_events(dbg->gdev, copy, GAUDISIM_EQ_HISTORY, &total);

	seq_printf(m, "%llu events recorded, the last %u follow (oldest first)\n", total, n);
	seq_puts(m, "index  timestamp-ns      type                     engine  queue  code  addr                data0\n");
	for (i = 0; i < n; i++) {
		const struct gaudisim_eq_entry_le *e = &copy[i];
		u32 ctl = le32_to_cpu(e->ctl);

		seq_printf(m, "%-5u  %-16llu  %-23s  %-6d  %-5d  %-4u  0x%016llx  0x%x\n",
			   ctl & GAUDISIM_EQ_CTL_INDEX_MASK, le64_to_cpu(e->timestamp),
			   gaudisim_event_str(GAUDISIM_EQ_CTL_TYPE(ctl)),
			   (int)le32_to_cpu(e->engine),
			   (int)le32_to_cpu(e->queue), le32_to_cpu(e->code),
			   le64_to_cpu(e->addr), le32_to_cpu(e->data[0]));
	}
	kfree(copy);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(gaudisim_dbg_events);

/* ---- Setup ----------------------------------------------------------------- */

/* habanalabs/, where habanalabs' user space finds hl<index>/; NULL without debugfs. */
static struct dentry *gaudisim_dbg_hl_root;

void gaudisim_debugfs_module_init(void)
{
	struct dentry *dir = debugfs_create_dir("habanalabs", NULL);

	/* Taken (habanalabs itself is loaded) or no debugfs: no links there. */
	gaudisim_dbg_hl_root = IS_ERR(dir) ? NULL : dir;
}

void gaudisim_debugfs_module_exit(void)
{
	debugfs_remove(gaudisim_dbg_hl_root);
	gaudisim_dbg_hl_root = NULL;
}

/*
 * accel/<minor index> and habanalabs/hl<minor index> -> accel/<drm unique,
 * the PCI name>: add or remove the links.
 */
static void gaudisim_debugfs_index_links(struct gaudisim_device *gdev, struct dentry *root,
					 bool add)
{
	char name[16], target[64];

	if (!gdev->drm.accel || !gdev->drm.unique || !root->d_parent)
		return;
	snprintf(name, sizeof(name), "%d", gdev->drm.accel->index);
	if (add)
		debugfs_create_symlink(name, root->d_parent, gdev->drm.unique);
	else
		debugfs_lookup_and_remove(name, root->d_parent);

	if (!gaudisim_dbg_hl_root)
		return;
	snprintf(name, sizeof(name), "hl%d", gdev->drm.accel->index);
	snprintf(target, sizeof(target), "../accel/%s", gdev->drm.unique);
	if (add)
		debugfs_create_symlink(name, gaudisim_dbg_hl_root, target);
	else
		debugfs_lookup_and_remove(name, gaudisim_dbg_hl_root);
}

int gaudisim_debugfs_init(struct gaudisim_device *gdev)
{
	struct dentry *root = gdev->drm.debugfs_root;
	struct gaudisim_debugfs *dbg;

	dbg = drmm_kzalloc(&gdev->drm, sizeof(*dbg), GFP_KERNEL);
	if (!dbg)
		return -ENOMEM;
	dbg->gdev = gdev;
	dbg->mmu_va = GAUDISIM_MMU_VA_BASE;

	/* No debugfs (not built or not allowed). */
	if (IS_ERR_OR_NULL(root))
		return 0;
	debugfs_create_x64("addr", 0600, root, &dbg->addr);
	debugfs_create_file("data32", 0600, root, dbg, &gaudisim_dbg_data32_fops);
	debugfs_create_file("data64", 0600, root, dbg, &gaudisim_dbg_data64_fops);
	debugfs_create_file("engines", 0400, root, dbg, &gaudisim_dbg_engines_fops);
	debugfs_create_file("command_submission", 0400, root, dbg, &gaudisim_dbg_cs_fops);
	debugfs_create_file("command_buffers", 0400, root, dbg, &gaudisim_dbg_cb_fops);
	debugfs_create_file("userptr", 0400, root, dbg, &gaudisim_dbg_userptr_fops);
	debugfs_create_file("mmu", 0600, root, dbg, &gaudisim_dbg_mmu_fops);
	debugfs_create_file("state_dump", 0400, root, dbg, &gaudisim_dbg_state_fops);
	debugfs_create_file("events", 0400, root, dbg, &gaudisim_dbg_events_fops);
	debugfs_create_file("clk_gate", 0600, root, dbg, &gaudisim_dbg_clk_gate_fops);
	gaudisim_debugfs_index_links(gdev, root, true);
	return 0;
}

/* Remove the files (waiting for readers in them) before the device goes. */
void gaudisim_debugfs_fini(struct gaudisim_device *gdev)
{
	struct dentry *root = gdev->drm.debugfs_root;
	u32 i;

	if (IS_ERR_OR_NULL(root))
		return;
	gaudisim_debugfs_index_links(gdev, root, false);
	for (i = 0; i < ARRAY_SIZE(gaudisim_dbg_files); i++)
		debugfs_lookup_and_remove(gaudisim_dbg_files[i], root);
}
