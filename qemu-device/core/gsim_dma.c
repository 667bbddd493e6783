/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: device address decoding and data movement.
 *
 * A device address names HBM, SRAM, the CFG block or host memory. Ranges
 * are checked with overflow-safe arithmetic before anything moves. HBM
 * and SRAM are the core's own memory, so host<->device copies go straight
 * between host memory and the backing store; only host->host copies and
 * host memsets use the bounce buffer.
 *
 * Every access to host memory goes through gsim_host_translate(), one
 * contiguous bus range at a time: device VAs go through the device MMU,
 * the physical host window is open to secured requesters only. The DMA
 * engines themselves have no registers of their own and no launch:
 * LIN_DMA runs inside the packet processor, which hands large transfers
 * inside device memory to a worker thread (gsim_dma_offload()).
 *
 * Range protection: the reserved start of HBM (page tables, the driver's
 * own data) is reachable only by secured requesters - the external
 * queues, whose CBs the driver builds or copies, and the host over MMIO.
 * gsim_dma_decode() refuses it to everyone else, so every engine that
 * decodes its addresses here (LIN_DMA, CB fetch, MME operands, TPC
 * tensors and kernels) obeys the same rule. A monitor payload is written
 * as GSIM_REQ_SYNC (unsecured, with the rights of the context that armed
 * the monitor) unless the driver armed it over MMIO; see gsim_sync.c and
 * gsim_sync_rights.c.
 */
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>

#include "hw/gaudisim_hw_gaudi_map.h"
#include "gsim_core_internal.h"
#include "gsim_mmu.h"
#include "gsim_telemetry.h"

#define GSIM_HOST_WINDOW_SIZE	(1ull << GAUDISIM_HOST_ADDR_BITS)

static bool is_mem(const struct gsim_span *s)
{
	return s->rgn == GSIM_RGN_HBM || s->rgn == GSIM_RGN_SRAM;
}

/*
 * HBM-DMA on workers: a LIN_DMA of at least GSIM_DMA_OFFLOAD_MIN bytes
 * between device-memory spans (or a memset of one) on an internal queue
 * of a threaded core is copied by a worker, GSIM_DMA_STEP bytes between
 * looks at the cancel flag; the stream waits on the engine meanwhile.
 * Smaller ones cost less inline than the hand-off.
 */
#define GSIM_DMA_OFFLOAD_MIN	(256u << 10)
#define GSIM_DMA_STEP		(4ull << 20)

static int dma_work(struct gsim_core *core, unsigned int e, const struct gsim_work *w)
{
	const struct gsim_dma_xfer *x = &core->dma_xfer[e];
	uint64_t done;

	/* One memmove keeps overlapping copies exact; they are rare. */
	if (x->src && x->src < x->dst + x->len && x->dst < x->src + x->len) {
		memmove(x->dst, x->src, x->len);
		return 0;
	}
	for (done = 0; done < x->len && !gsim_work_cancelled(w); done += GSIM_DMA_STEP) {
		uint64_t n = x->len - done < GSIM_DMA_STEP ? x->len - done : GSIM_DMA_STEP;

		if (x->src)
			memcpy(x->dst + done, x->src + done, n);
		else
			memset(x->dst + done, x->value, n);
	}
	return 0;
}

/* The transfer is done: the packet that waits for it finds it complete. */
static int dma_complete(struct gsim_core *core, unsigned int e, int result)
{
	const struct gsim_dma_xfer *x = &core->dma_xfer[e];
	struct gsim_stream *s = gsim_stream_by_slot(core, x->slot);
	const struct gsim_frame *f = &s->frame[x->depth];

	/* Resets cancel the transfer; this guards a stream reset on its own. */
	if (!s->active || s->depth != x->depth || f->addr != x->cb_addr || f->pc != x->pc)
		return result;
	s->pkt_done += x->len;
	core->dma_bytes += x->len;
	gsim_telemetry_dma_bytes(core, e, x->len);
	return result;
}

const struct gsim_engine_ops gsim_dma_engine_ops = {
	.name = "DMA",
	.work = dma_work,
	.complete = dma_complete,
};

bool gsim_dma_offload(struct gsim_core *core, struct gsim_stream *s,
		      const struct gsim_span *dst, const struct gsim_span *src, uint8_t value,
		      uint32_t tsize)
{
	struct gsim_dma_xfer *x = &core->dma_xfer[s->engine];
	uint64_t off = s->pkt_done;

	if (!gsim_engine_threaded(core) || s->external || tsize - off < GSIM_DMA_OFFLOAD_MIN ||
	    !is_mem(dst) || (src && !is_mem(src)))
		return false;
	s->park = GSIM_PARK_ENGINE;
	/* One transfer per engine at a time: the others wait for it. */
	if (gsim_engine_busy(core, s->engine))
		return true;
	*x = (struct gsim_dma_xfer){
		.dst = dst->mem + off,
		.src = src ? src->mem + off : NULL,
		.value = value,
		.len = tsize - off,
		.slot = s->engine * GAUDISIM_STREAMS_PER_QMAN + s->index,
		.cb_addr = gsim_stream_frame(s)->addr,
		.depth = s->depth,
		.pc = gsim_stream_frame(s)->pc,
	};
	gsim_engine_offload_transfer(core, s->engine);
	return true;
}

/* [addr, addr + len) inside [base, base + size), without overflow. */
static bool range_in(uint64_t addr, uint64_t len, uint64_t base, uint64_t size)
{
	uint64_t off;

	if (addr < base)
		return false;
	off = addr - base;
	return off <= size && len <= size - off;
}

/* [a, a + alen) and [b, b + blen) share a byte (lengths >= 1, no wrap needed). */
static bool ranges_overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b ? b - a < alen : a - b < blen;
}

/* The physical host window: device address = bus address + HOST_BASE. */
static bool phys_host_range(uint64_t addr, uint64_t len)
{
	return range_in(addr, len, GAUDISIM_HOST_BASE, GSIM_HOST_WINDOW_SIZE);
}

/* Device addresses that name host memory (translated by gsim_host_translate()). */
static bool host_range(uint64_t addr, uint64_t len)
{
	return phys_host_range(addr, len) ||
	       range_in(addr, len, GAUDISIM_MMU_VA_BASE, GAUDISIM_MMU_VA_SIZE);
}

bool gsim_requester_secured(unsigned int requester)
{
	return GAUDISIM_QUEUE_IS_EXTERNAL(requester) || requester == GSIM_REQ_MMIO;
}

bool gsim_dma_protected(const struct gsim_core *core, uint64_t addr, uint64_t len)
{
	if (gsim_requester_secured(core->requester))
		return false;
	return ranges_overlap(addr, len ? len : 1, GAUDISIM_HBM_BASE,
			      GAUDISIM_HBM_RESERVED_SIZE);
}

int gsim_dev_mem_check(struct gsim_core *core, uint64_t addr, uint64_t len, bool write)
{
	struct gsim_span span;

	(void)write;
	if (gsim_dma_protected(core, addr, len))
		return GAUDISIM_CP_ERR_PRIV;
	if (!gsim_dma_decode(core, addr, len, &span))
		return GAUDISIM_CP_ERR_DMA_ADDR;
	return 0;
}

bool gsim_dma_decode(const struct gsim_core *core, uint64_t addr, uint64_t len,
		     struct gsim_span *span)
{
	unsigned int reg;

	if (range_in(addr, len, GAUDISIM_HBM_BASE, core->hbm_size)) {
		if (gsim_dma_protected(core, addr, len))
			return false;
		span->rgn = GSIM_RGN_HBM;
		span->mem = core->hbm + (addr - GAUDISIM_HBM_BASE);
		span->off = 0;
		return true;
	}
	if (range_in(addr, len, GAUDISIM_SRAM_BASE, GAUDISIM_SRAM_SIZE)) {
		span->rgn = GSIM_RGN_SRAM;
		span->mem = core->sram + (addr - GAUDISIM_SRAM_BASE);
		span->off = 0;
		return true;
	}
	/* Gaudi's address of a QMAN or sync-manager register first (hw_gaudi_map.h). */
	if (range_in(addr, len, GAUDISIM_CFG_BASE, GAUDISIM_GAUDI_CFG_SIZE) &&
	    gaudisim_gaudi_cfg_decode(addr - GAUDISIM_CFG_BASE, len ? len : 1, &reg)) {
		span->rgn = GSIM_RGN_CFG;
		span->mem = NULL;
		span->off = reg;
		return true;
	}
	if (range_in(addr, len, GAUDISIM_CFG_BASE, GAUDISIM_CFG_BAR_SIZE)) {
		span->rgn = GSIM_RGN_CFG;
		span->mem = NULL;
		span->off = addr - GAUDISIM_CFG_BASE;
		return true;
	}
	if (host_range(addr, len)) {
		span->rgn = GSIM_RGN_HOST;
		span->mem = NULL;
		span->off = addr;
		return true;
	}
	return false;
}

const char *gsim_region_name(enum gsim_region rgn)
{
	switch (rgn) {
	case GSIM_RGN_HBM:
		return "HBM";
	case GSIM_RGN_SRAM:
		return "SRAM";
	case GSIM_RGN_CFG:
		return "CFG";
	case GSIM_RGN_HOST:
		return "host";
	}
	return "?";
}

int gsim_host_translate(struct gsim_core *core, uint64_t addr, uint64_t len, bool write,
			uint64_t *bus, uint64_t *contig)
{
	unsigned int req = core->requester;

	if (gsim_mmu_is_va(addr)) {
		unsigned int asid;
		int cause, engine;

		/* A monitor payload translates with the ASID of whoever armed it. */
		if (req == GSIM_REQ_SYNC) {
			asid = core->sync.fire_asid;
			req = core->sync.fire_queue;
		} else {
			asid = gsim_mmu_queue_asid(core, req);
		}
		cause = gsim_mmu_translate(core, asid, addr, len, write, bus, contig);
		if (!cause)
			return 0;
		engine = req < GAUDISIM_QUEUE_ID_SIZE ? gaudisim_queue_engine(req) : -1;
		gsim_log(core, "MMU fault: %s of 0x%" PRIx64 " (ASID %u, queue 0x%x): %s",
			 write ? "write" : "read", addr, asid, req, gsim_mmu_cause_name(cause));
		gsim_mmu_report_fault(core, engine >= 0 ? (uint32_t)engine : GAUDISIM_EQ_NONE,
				      req < GAUDISIM_QUEUE_ID_SIZE ? req : GAUDISIM_EQ_NONE);
		return GAUDISIM_CP_ERR_MMU_FAULT;
	}
	/* The physical window: bus address = device address - HOST_BASE. */
	if (!phys_host_range(addr, len ? len : 1))
		return GAUDISIM_CP_ERR_DMA_ADDR;
	if (!gsim_mmu_phys_host_allowed(req))
		return GAUDISIM_CP_ERR_PRIV;
	*bus = addr - GAUDISIM_HOST_BASE;
	*contig = len;
	return 0;
}

/* Move len bytes between buf and host memory at addr, one bus run at a time. */
static int host_access(struct gsim_core *core, uint64_t addr, uint8_t *rbuf,
		       const uint8_t *wbuf, uint64_t len)
{
	uint64_t done = 0;

	while (done < len) {
		uint64_t bus, n;
		int rc = gsim_host_translate(core, addr + done, len - done, wbuf != NULL,
					     &bus, &n);

		if (rc)
			return rc;
		if (!n || n > len - done)
			return GAUDISIM_CP_ERR_HOST_FAULT;
		rc = wbuf ? gsim_pcie_dma_write(core, bus, wbuf + done, n)
			  : gsim_pcie_dma_read(core, bus, rbuf + done, n);
		if (rc)
			return GAUDISIM_CP_ERR_HOST_FAULT;
		done += n;
	}
	return 0;
}

int gsim_host_read(struct gsim_core *core, uint64_t addr, void *buf, uint64_t len)
{
	return host_access(core, addr, buf, NULL, len);
}

int gsim_host_write(struct gsim_core *core, uint64_t addr, const void *buf, uint64_t len)
{
	return host_access(core, addr, NULL, buf, len);
}

int gsim_dma_copy(struct gsim_core *core, const struct gsim_span *dst,
		  const struct gsim_span *src, uint64_t off, uint64_t len)
{
	uint64_t done;
	int rc;

	if (is_mem(dst) && is_mem(src)) {
		memmove(dst->mem + off, src->mem + off, len);
		return 0;
	}
	if (is_mem(dst))
		return gsim_host_read(core, src->off + off, dst->mem + off, len);
	if (is_mem(src))
		return gsim_host_write(core, dst->off + off, src->mem + off, len);

	/* host -> host */
	for (done = 0; done < len;) {
		uint64_t n = len - done < GSIM_BOUNCE_SIZE ? len - done : GSIM_BOUNCE_SIZE;

		rc = gsim_host_read(core, src->off + off + done, core->bounce, n);
		if (!rc)
			rc = gsim_host_write(core, dst->off + off + done, core->bounce, n);
		if (rc)
			return rc;
		done += n;
	}
	return 0;
}

/*
 * Zero HBM. Whole 2 MiB stretches of the sparse anonymous mapping are
 * given back to the host instead of written: they read as zeros again,
 * so scrubbing (the driver zeroes everything a user held when it closes)
 * costs no host memory for HBM that was allocated but never touched.
 */
static void zero_hbm(uint8_t *p, uint64_t len)
{
	const uintptr_t huge = 2u << 20;
	uintptr_t start = ((uintptr_t)p + huge - 1) & ~(huge - 1);
	uintptr_t end = ((uintptr_t)p + len) & ~(huge - 1);

	if (end <= start || madvise((void *)start, end - start, MADV_DONTNEED)) {
		memset(p, 0, len);
		return;
	}
	memset(p, 0, start - (uintptr_t)p);
	memset((void *)end, 0, (uintptr_t)p + len - end);
}

int gsim_dma_fill(struct gsim_core *core, const struct gsim_span *dst,
		  uint64_t off, uint8_t value, uint64_t len)
{
	uint64_t done;
	int rc;

	if (dst->rgn == GSIM_RGN_HBM && !value) {
		zero_hbm(dst->mem + off, len);
		return 0;
	}
	if (is_mem(dst)) {
		memset(dst->mem + off, value, len);
		return 0;
	}
	memset(core->bounce, value, len < GSIM_BOUNCE_SIZE ? len : GSIM_BOUNCE_SIZE);
	for (done = 0; done < len;) {
		uint64_t n = len - done < GSIM_BOUNCE_SIZE ? len - done : GSIM_BOUNCE_SIZE;

		rc = gsim_host_write(core, dst->off + off + done, core->bounce, n);
		if (rc)
			return rc;
		done += n;
	}
	return 0;
}

int gsim_dma_store(struct gsim_core *core, const struct gsim_span *dst,
		   const void *buf, uint64_t len)
{
	if (is_mem(dst)) {
		memcpy(dst->mem, buf, len);
		return 0;
	}
	return gsim_host_write(core, dst->off, buf, len);
}

int gsim_dma_load(struct gsim_core *core, const struct gsim_span *src,
		  void *buf, uint64_t len)
{
	if (is_mem(src)) {
		memcpy(buf, src->mem, len);
		return 0;
	}
	return gsim_host_read(core, src->off, buf, len);
}

/* Error code for a register write refused on behalf of the device. */
static int reg_status_code(enum gsim_reg_status st)
{
	switch (st) {
	case GSIM_REG_PROTECTED:
		return GAUDISIM_CP_ERR_PRIV;
	case GSIM_REG_UNKNOWN:
	case GSIM_REG_READ_ONLY:
		return GAUDISIM_CP_ERR_DMA_ADDR;
	default:
		return GAUDISIM_CP_ERR_PKT_FIELD;
	}
}

/*
 * A register write that fired monitors: when one of them, armed by a CB,
 * had its payload refused, the write fails too, so the job that set the
 * monitor off ends in an error rather than waiting on a payload that will
 * never land.
 */
static int payload_denied(struct gsim_core *core, bool outermost, const char **why)
{
	if (!outermost || !core->sync.denied)
		return 0;
	*why = "it fired a monitor whose payload the arming queue may not write";
	return core->sync.denied;
}

int gsim_dev_write32(struct gsim_core *core, uint64_t addr, uint32_t value,
		     unsigned int *kick, const char **why)
{
	bool outermost = !core->sync.depth;
	struct gsim_span span;
	enum gsim_reg_status st;
	uint8_t buf[4];
	int rc;

	if (outermost)
		core->sync.denied = 0;
	if (addr % 4) {
		*why = "address not 4-byte aligned";
		return GAUDISIM_CP_ERR_PKT_FIELD;
	}
	if (!gsim_dma_decode(core, addr, 4, &span)) {
		*why = "address outside HBM, SRAM, CFG and host memory";
		return GAUDISIM_CP_ERR_DMA_ADDR;
	}
	if (span.rgn == GSIM_RGN_CFG) {
		/* Registers are written internally, never through the host. */
		st = gsim_regs_write(core, (uint32_t)span.off, value, GSIM_ORIGIN_CB, kick);
		if (st == GSIM_REG_OK)
			return payload_denied(core, outermost, why);
		*why = gsim_reg_status_str(st);
		return reg_status_code(st);
	}
	/* A CB-armed monitor's payload writes only its context's memory. */
	if (core->requester == GSIM_REQ_SYNC &&
	    !gsim_sync_payload_mem_ok(core, span.rgn, addr, sizeof(buf))) {
		*why = "memory the arming context does not own";
		return GAUDISIM_CP_ERR_PRIV;
	}
	gsim_st_le32(buf, value);
	rc = gsim_dma_store(core, &span, buf, sizeof(buf));
	if (rc)
		*why = "host memory access failed";
	return rc;
}
