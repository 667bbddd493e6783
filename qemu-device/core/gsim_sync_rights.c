/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: what a monitor payload may write (the payload
 * rights table of hw/gaudisim_hw_sync.h).
 *
 * On the real chip a sync-manager payload is a bus write carrying the
 * protection bits of whoever armed the monitor, and every target checks
 * it like any other write. Here the driver describes each context (one
 * entry per MMU ASID: its SOBs, monitors, queues and memory); a monitor
 * armed by a CB is bound to one entry and one generation of it when it is
 * armed (gsim_sync_rights_bind()), and its payload is checked against that
 * entry where it lands: registers in gsim_regs_write(), memory in
 * gsim_dev_write32(). A context that closes has its entry rewritten, which
 * ends the generation: monitors it left armed keep no rights.
 */
#include "gsim_core_internal.h"
#include "gsim_mmu.h"

#define RIGHTS_END	GAUDISIM_SYNC_RIGHTS(GAUDISIM_SYNC_RIGHTS_ENTRIES, 0)

bool gsim_sync_rights_reg(uint32_t off)
{
	return off >= GAUDISIM_SYNC_RIGHTS_BASE && off < RIGHTS_END;
}

static uint32_t *rights_field(struct gsim_rights *r, uint32_t reg)
{
	switch (reg) {
	case GAUDISIM_RIGHTS_CTRL:
		return &r->ctrl;
	case GAUDISIM_RIGHTS_SOB_FIRST:
		return &r->sob_first;
	case GAUDISIM_RIGHTS_SOB_END:
		return &r->sob_end;
	case GAUDISIM_RIGHTS_MON_FIRST:
		return &r->mon_first;
	case GAUDISIM_RIGHTS_MON_END:
		return &r->mon_end;
	case GAUDISIM_RIGHTS_HBM_BASE_LO:
		return &r->hbm_base_lo;
	case GAUDISIM_RIGHTS_HBM_BASE_HI:
		return &r->hbm_base_hi;
	case GAUDISIM_RIGHTS_HBM_SIZE_LO:
		return &r->hbm_size_lo;
	case GAUDISIM_RIGHTS_HBM_SIZE_HI:
		return &r->hbm_size_hi;
	case GAUDISIM_RIGHTS_USER_INTR:
		return &r->user_intr;
	default:
		break;
	}
	if (reg >= GAUDISIM_RIGHTS_QUEUES(0) &&
	    reg < GAUDISIM_RIGHTS_QUEUES(GAUDISIM_RIGHTS_QUEUE_WORDS))
		return &r->queues[(reg - GAUDISIM_RIGHTS_QUEUES(0)) / 4];
	return NULL;
}

bool gsim_sync_rights_read(struct gsim_core *core, uint32_t off, uint32_t *value)
{
	uint32_t rel = off - GAUDISIM_SYNC_RIGHTS_BASE;
	struct gsim_rights *r = &core->sync.rights[rel / GAUDISIM_SYNC_RIGHTS_STRIDE];
	uint32_t *f = rights_field(r, rel % GAUDISIM_SYNC_RIGHTS_STRIDE);

	*value = f ? *f : 0;
	return f != NULL;
}

enum gsim_reg_status gsim_sync_rights_write(struct gsim_core *core, uint32_t off,
					    uint32_t value, enum gsim_reg_origin origin)
{
	uint32_t rel = off - GAUDISIM_SYNC_RIGHTS_BASE;
	struct gsim_rights *r = &core->sync.rights[rel / GAUDISIM_SYNC_RIGHTS_STRIDE];
	uint32_t reg = rel % GAUDISIM_SYNC_RIGHTS_STRIDE;
	uint32_t *f = rights_field(r, reg);

	if (!f)
		return GSIM_REG_UNKNOWN;
	/* Only the driver says what a context owns. */
	if (origin != GSIM_ORIGIN_MMIO)
		return GSIM_REG_PROTECTED;
	if (reg == GAUDISIM_RIGHTS_CTRL) {
		if (value & ~(GAUDISIM_RIGHTS_CTRL_VALID | GAUDISIM_RIGHTS_CTRL_SRAM)) {
			gsim_log(core, "sync manager: rights CTRL 0x%x: only VALID and SRAM exist",
				 value);
			return GSIM_REG_BAD_VALUE;
		}
		/* A new generation: what was armed under the old one loses its rights. */
		r->gen++;
	}
	*f = value;
	return GSIM_REG_OK;
}

static bool rights_live(const struct gsim_rights *r)
{
	return r->ctrl & GAUDISIM_RIGHTS_CTRL_VALID;
}

void gsim_sync_rights_bind(struct gsim_core *core, unsigned int m, unsigned int req,
			   unsigned int *asid, uint32_t *gen)
{
	const struct gsim_sync *sync = &core->sync;
	unsigned int a = req < GAUDISIM_QUEUE_ID_SIZE ? gsim_mmu_queue_asid(core, req) : 0;
	unsigned int i;

	if (req >= GAUDISIM_QUEUE_ID_SIZE) {
		a = GSIM_RIGHTS_NONE;
	} else if (!a) {
		/* No context's ASID on the queue: the owner of the monitor. */
		a = GSIM_RIGHTS_NONE;
		for (i = 1; i < GAUDISIM_SYNC_RIGHTS_ENTRIES; i++) {
			const struct gsim_rights *r = &sync->rights[i];

			if (rights_live(r) && m >= r->mon_first && m < r->mon_end) {
				a = i;
				break;
			}
		}
		/* Only the driver's checked CBs run on external queues. */
		if (a == GSIM_RIGHTS_NONE && GAUDISIM_QUEUE_IS_EXTERNAL(req))
			a = 0;
	}
	*asid = a;
	*gen = a < GAUDISIM_SYNC_RIGHTS_ENTRIES ? sync->rights[a].gen : 0;
}

/* The entry of the payload being written now, or NULL: it has no rights. */
static const struct gsim_rights *payload_rights(const struct gsim_core *core)
{
	const struct gsim_sync *sync = &core->sync;
	const struct gsim_rights *r;

	if (sync->fire_asid >= GAUDISIM_SYNC_RIGHTS_ENTRIES)
		return NULL;
	r = &sync->rights[sync->fire_asid];
	return rights_live(r) && r->gen == sync->fire_gen ? r : NULL;
}

/*
 * A CP_FENCE_RDATA register: true, its engine in *e and its CP in *cp
 * (a stream, or GAUDISIM_QM_LOWER_CP).
 */
static bool fence_rdata_cp(uint32_t off, unsigned int *e, unsigned int *cp)
{
	uint32_t first = GAUDISIM_QM_CP_FENCE_RDATA(0, 0);
	uint32_t end = GAUDISIM_QM_CP_FENCE_RDATA(GAUDISIM_QM_NUM_FENCES, 0);
	uint32_t in, r;

	if (off < GAUDISIM_ENGINE_BLOCK_BASE)
		return false;
	*e = (off - GAUDISIM_ENGINE_BLOCK_BASE) / GAUDISIM_ENGINE_BLOCK_SIZE;
	in = (off - GAUDISIM_ENGINE_BLOCK_BASE) % GAUDISIM_ENGINE_BLOCK_SIZE;
	if (*e >= GAUDISIM_ENGINE_COUNT || in < GAUDISIM_QM_OFFSET)
		return false;
	r = in - GAUDISIM_QM_OFFSET;
	if (r < first || r >= end)
		return false;
	*cp = (r - first) % GAUDISIM_QM_CP_ARRAY_STRIDE / 4;
	return true;
}

/* May the entry raise a fence of CP cp of engine e's QMAN? */
static bool fence_cp_owned(const struct gsim_rights *r, unsigned int e, unsigned int cp)
{
	unsigned int s, q;

	/* The lower CP runs buffers of all four streams: all must be the context's. */
	for (s = 0; s < GAUDISIM_STREAMS_PER_QMAN; s++) {
		if (cp != s && cp != GAUDISIM_QM_LOWER_CP)
			continue;
		q = gaudisim_engine_queue_id(e, s);
		if (q >= GAUDISIM_QUEUE_ID_SIZE || !(r->queues[q / 32] & (1u << (q % 32))))
			return false;
	}
	return true;
}

bool gsim_sync_payload_reg_ok(const struct gsim_core *core, uint32_t off, uint32_t value)
{
	const struct gsim_rights *r = payload_rights(core);
	uint32_t sob_first = GAUDISIM_BLOCK_SYNC_MNGR + GAUDISIM_SYNC_SOB_OBJ(0);
	unsigned int e, cp;

	if (!r)
		return false;
	if (off == GAUDISIM_REG_USER_INTR) {
		/*
		 * Only the context's own interrupts: another's waiters are not its
		 * to wake. An ID that names no user interrupt passes on to the
		 * register, which drops and logs it.
		 */
		uint32_t bit = value - GAUDISIM_MSIX_VEC_USER_FIRST;

		return bit >= GAUDISIM_MSIX_NUM_USER || (r->user_intr & (1u << bit));
	}
	if (off >= sob_first && off < sob_first + 4 * GAUDISIM_SYNC_NUM_SOBS) {
		uint32_t n = (off - sob_first) / 4;

		return n >= r->sob_first && n < r->sob_end;
	}
	if (fence_rdata_cp(off, &e, &cp))
		return fence_cp_owned(r, e, cp);
	return false;
}

bool gsim_sync_payload_mem_ok(const struct gsim_core *core, enum gsim_region rgn,
			      uint64_t addr, uint64_t len)
{
	const struct gsim_rights *r = payload_rights(core);
	uint64_t base, size;

	if (!r)
		return false;
	switch (rgn) {
	case GSIM_RGN_HBM:
		base = (uint64_t)r->hbm_base_hi << 32 | r->hbm_base_lo;
		size = (uint64_t)r->hbm_size_hi << 32 | r->hbm_size_lo;
		return addr >= base && addr - base <= size && len <= size - (addr - base);
	case GSIM_RGN_SRAM:
		return r->ctrl & GAUDISIM_RIGHTS_CTRL_SRAM;
	case GSIM_RGN_HOST:
		/* Device VAs through this context's MMU mapping; the physical window never. */
		return gsim_mmu_is_va(addr);
	case GSIM_RGN_CFG:
		break;
	}
	return false;
}
