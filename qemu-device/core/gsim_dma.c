/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: device address decoding and data movement.
 *
 * A device address names HBM, SRAM, the CFG block or host memory (bus
 * address + GAUDISIM_HOST_BASE). Ranges are checked with overflow-safe
 * arithmetic before anything moves. HBM and SRAM are the core's own
 * memory, so host<->device copies go straight between host memory and the
 * backing store through the host's dma_read/dma_write, in one call per
 * chunk; only host->host copies and host memsets use the bounce buffer.
 */
#include <string.h>

#include "gsim_core_internal.h"

#define GSIM_HOST_WINDOW_SIZE	(1ull << GAUDISIM_HOST_ADDR_BITS)

/* [addr, addr + len) inside [base, base + size), without overflow. */
static bool range_in(uint64_t addr, uint64_t len, uint64_t base, uint64_t size)
{
	uint64_t off;

	if (addr < base)
		return false;
	off = addr - base;
	return off <= size && len <= size - off;
}

bool gsim_dma_decode(const struct gsim_core *core, uint64_t addr, uint64_t len,
		     struct gsim_span *span)
{
	if (range_in(addr, len, GAUDISIM_HBM_BASE, core->hbm_size)) {
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
	if (range_in(addr, len, GAUDISIM_CFG_BASE, GAUDISIM_CFG_BAR_SIZE)) {
		span->rgn = GSIM_RGN_CFG;
		span->mem = NULL;
		span->off = addr - GAUDISIM_CFG_BASE;
		return true;
	}
	if (range_in(addr, len, GAUDISIM_HOST_BASE, GSIM_HOST_WINDOW_SIZE)) {
		span->rgn = GSIM_RGN_HOST;
		span->mem = NULL;
		span->off = addr - GAUDISIM_HOST_BASE;
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

static bool is_mem(const struct gsim_span *s)
{
	return s->rgn == GSIM_RGN_HBM || s->rgn == GSIM_RGN_SRAM;
}

int gsim_dma_copy(struct gsim_core *core, const struct gsim_span *dst,
		  const struct gsim_span *src, uint64_t off, uint64_t len)
{
	void *op = core->opaque;
	uint64_t done;

	if (is_mem(dst) && is_mem(src)) {
		memmove(dst->mem + off, src->mem + off, len);
		return 0;
	}
	if (is_mem(dst))
		return core->ops.dma_read(op, src->off + off, dst->mem + off, len) ?
		       GAUDISIM_CP_ERR_HOST_FAULT : 0;
	if (is_mem(src))
		return core->ops.dma_write(op, dst->off + off, src->mem + off, len) ?
		       GAUDISIM_CP_ERR_HOST_FAULT : 0;

	/* host -> host */
	for (done = 0; done < len;) {
		uint64_t n = len - done < GSIM_BOUNCE_SIZE ? len - done : GSIM_BOUNCE_SIZE;

		if (core->ops.dma_read(op, src->off + off + done, core->bounce, n) ||
		    core->ops.dma_write(op, dst->off + off + done, core->bounce, n))
			return GAUDISIM_CP_ERR_HOST_FAULT;
		done += n;
	}
	return 0;
}

int gsim_dma_fill(struct gsim_core *core, const struct gsim_span *dst,
		  uint64_t off, uint8_t value, uint64_t len)
{
	uint64_t done;

	if (is_mem(dst)) {
		memset(dst->mem + off, value, len);
		return 0;
	}
	memset(core->bounce, value, len < GSIM_BOUNCE_SIZE ? len : GSIM_BOUNCE_SIZE);
	for (done = 0; done < len;) {
		uint64_t n = len - done < GSIM_BOUNCE_SIZE ? len - done : GSIM_BOUNCE_SIZE;

		if (core->ops.dma_write(core->opaque, dst->off + off + done, core->bounce, n))
			return GAUDISIM_CP_ERR_HOST_FAULT;
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
	return core->ops.dma_write(core->opaque, dst->off, buf, len) ?
	       GAUDISIM_CP_ERR_HOST_FAULT : 0;
}
