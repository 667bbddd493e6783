/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: the event queue to the driver (hw/gaudisim_hw_eq.h).
 *
 * Events are written to the host ring as they happen; the interrupt is
 * batched: gsim_eq_post_event() only notes that one is due, and
 * gsim_eq_flush() - called at the end of every register access, run of
 * the engines and asynchronous completion - raises the EQ's MSI-X vector
 * once for everything written since the last one.
 *
 * The ring holds bus addresses the driver gave, so its writes go straight
 * to the host (like PQ fetches), not through the device MMU. An entry's
 * ctl word, which carries READY, is written after the rest of the entry.
 */
#include <inttypes.h>
#include <string.h>

#include "gsim_core_internal.h"

_Static_assert(sizeof(struct gaudisim_eq_entry) == GAUDISIM_EQ_ENTRY_SIZE,
	       "the EQ entry layout is 64 bytes");

void gsim_eq_reset(struct gsim_core *core)
{
	core->eq = (struct gsim_eq){ 0 };
}

static bool eq_enabled(const struct gsim_eq *eq)
{
	return eq->ctl & GAUDISIM_EQ_CTL_ENABLE;
}

static uint32_t eq_entries(const struct gsim_eq *eq)
{
	if (eq->size_log2 < GAUDISIM_EQ_SIZE_LOG2_MIN || eq->size_log2 > GAUDISIM_EQ_SIZE_LOG2_MAX)
		return 0;
	return 1u << eq->size_log2;
}

static void eq_drop(struct gsim_core *core, const struct gsim_event *ev, const char *why)
{
	struct gsim_eq *eq = &core->eq;

	eq->drop_cnt++;
	if (!eq_enabled(eq))
		return;		/* nobody listens: not an error */
	eq->sts |= GAUDISIM_EQ_STS_OVERFLOW;
	gsim_log(core, "event queue: event type %u dropped: %s", ev->type, why);
}

static void encode(uint8_t *p, const struct gsim_event *ev, uint32_t ctl, uint64_t now)
{
	unsigned int i;

	gsim_st_le32(p, ctl);
	gsim_st_le32(p + 4, ev->engine);
	gsim_st_le32(p + 8, ev->queue);
	gsim_st_le32(p + 12, ev->code);
	gsim_st_le64(p + 16, ev->addr);
	gsim_st_le64(p + 24, now);
	for (i = 0; i < GAUDISIM_EQ_DATA_WORDS; i++)
		gsim_st_le32(p + 32 + 4 * i, ev->data[i]);
}

void gsim_eq_post_event(struct gsim_core *core, const struct gsim_event *ev)
{
	struct gsim_eq *eq = &core->eq;
	uint32_t entries = eq_entries(eq);
	uint8_t raw[GAUDISIM_EQ_ENTRY_SIZE];
	uint64_t base, bus;
	uint32_t ctl;

	if (!eq_enabled(eq) || !entries) {
		eq_drop(core, ev, "the event queue is disabled");
		return;
	}
	if (((eq->pi - eq->ci) & (2 * entries - 1)) >= entries) {
		eq_drop(core, ev, "the event queue is full");
		return;
	}
	ctl = GAUDISIM_EQ_CTL_READY |
	      ((ev->type << GAUDISIM_EQ_CTL_TYPE_SHIFT) & GAUDISIM_EQ_CTL_TYPE_MASK) | eq->index;
	encode(raw, ev, ctl, core->ops.clock_ns(core->opaque));
	base = (uint64_t)eq->base_hi << 32 | eq->base_lo;
	bus = base + (uint64_t)(eq->pi & (entries - 1)) * GAUDISIM_EQ_ENTRY_SIZE;
	/* The body first, READY last: the driver never sees half an entry. */
	if (gsim_pcie_dma_write(core, bus + 4, raw + 4, sizeof(raw) - 4) ||
	    gsim_pcie_dma_write(core, bus, raw, 4)) {
		eq_drop(core, ev, "the entry could not be written to host memory");
		return;
	}
	eq->pi = (eq->pi + 1) & (2 * entries - 1);
	eq->index++;
	eq->event_cnt++;
	eq->irq_pending = true;
}

void gsim_eq_post(struct gsim_core *core, unsigned int type, uint32_t engine,
		  uint32_t queue, uint32_t code, uint64_t addr)
{
	struct gsim_event ev = {
		.type = type,
		.engine = engine,
		.queue = queue,
		.code = code,
		.addr = addr,
	};

	gsim_eq_post_event(core, &ev);
}

void gsim_eq_flush(struct gsim_core *core)
{
	struct gsim_eq *eq = &core->eq;

	if (!eq->irq_pending)
		return;
	eq->irq_pending = false;
	if (eq_enabled(eq))
		gsim_pcie_msix(core, GAUDISIM_MSIX_VEC_EQ);
}

bool gsim_eq_reg_read(struct gsim_core *core, uint32_t off, uint32_t *value)
{
	const struct gsim_eq *eq = &core->eq;

	switch (off) {
	case GAUDISIM_EQ_BASE_LO:
		*value = eq->base_lo;
		return true;
	case GAUDISIM_EQ_BASE_HI:
		*value = eq->base_hi;
		return true;
	case GAUDISIM_EQ_SIZE:
		*value = eq->size_log2;
		return true;
	case GAUDISIM_EQ_PI:
		*value = eq->pi;
		return true;
	case GAUDISIM_EQ_CI:
		*value = eq->ci;
		return true;
	case GAUDISIM_EQ_CTL:
		*value = eq->ctl;
		return true;
	case GAUDISIM_EQ_STS:
		*value = eq->sts;
		return true;
	case GAUDISIM_EQ_DROP_CNT:
		*value = eq->drop_cnt;
		return true;
	case GAUDISIM_EQ_EVENT_CNT:
		*value = eq->event_cnt;
		return true;
	case GAUDISIM_EQ_HEARTBEAT:	/* write-only */
		*value = 0;
		return true;
	default:
		*value = 0;
		return false;
	}
}

/* Ring geometry may only change while the EQ is off. */
static enum gsim_reg_status eq_idle(struct gsim_core *core, const char *name)
{
	if (!eq_enabled(&core->eq))
		return GSIM_REG_OK;
	gsim_log(core, "event queue: %s write refused while the EQ is enabled", name);
	return GSIM_REG_BAD_VALUE;
}

static enum gsim_reg_status eq_ci_write(struct gsim_core *core, uint32_t value)
{
	struct gsim_eq *eq = &core->eq;
	uint32_t entries = eq_entries(eq);

	if (!entries || value >= 2 * entries ||
	    ((eq->pi - value) & (2 * entries - 1)) > entries) {
		gsim_log(core, "event queue: EQ_CI %u out of range (PI %u, %u entries, "
			 "counts modulo %u)", value, eq->pi, entries, 2 * entries);
		return GSIM_REG_BAD_VALUE;
	}
	eq->ci = value;
	return GSIM_REG_OK;
}

static enum gsim_reg_status eq_ctl_write(struct gsim_core *core, uint32_t value)
{
	struct gsim_eq *eq = &core->eq;

	if (value & ~GAUDISIM_EQ_CTL_ENABLE) {
		gsim_log(core, "event queue: EQ_CTL 0x%x: only ENABLE (bit 0) exists", value);
		return GSIM_REG_BAD_VALUE;
	}
	if ((value & GAUDISIM_EQ_CTL_ENABLE) && !eq_enabled(eq)) {
		if (!eq_entries(eq)) {
			gsim_log(core, "event queue: enabled before EQ_SIZE was programmed");
			return GSIM_REG_BAD_VALUE;
		}
		/* A freshly enabled ring starts empty. */
		eq->pi = 0;
		eq->ci = 0;
		eq->index = 0;
	}
	if (!(value & GAUDISIM_EQ_CTL_ENABLE))
		eq->sts = 0;
	eq->ctl = value;
	return GSIM_REG_OK;
}

enum gsim_reg_status gsim_eq_reg_write(struct gsim_core *core, uint32_t off, uint32_t value,
				       enum gsim_reg_origin origin, unsigned int *kick)
{
	struct gsim_eq *eq = &core->eq;
	struct gsim_event hb = {
		.type = GAUDISIM_EQ_EVENT_HEARTBEAT,
		.engine = GAUDISIM_EQ_NONE,
		.queue = GAUDISIM_EQ_NONE,
		.data = { value },
	};
	enum gsim_reg_status st;

	(void)kick;
	switch (off) {
	case GAUDISIM_EQ_PI:
	case GAUDISIM_EQ_STS:
	case GAUDISIM_EQ_DROP_CNT:
	case GAUDISIM_EQ_EVENT_CNT:
		return GSIM_REG_READ_ONLY;
	case GAUDISIM_EQ_BASE_LO:
	case GAUDISIM_EQ_BASE_HI:
	case GAUDISIM_EQ_SIZE:
	case GAUDISIM_EQ_CI:
	case GAUDISIM_EQ_CTL:
	case GAUDISIM_EQ_HEARTBEAT:
		break;
	default:
		return GSIM_REG_UNKNOWN;
	}
	/* The EQ belongs to the driver. */
	if (origin == GSIM_ORIGIN_CB)
		return GSIM_REG_PROTECTED;

	switch (off) {
	case GAUDISIM_EQ_BASE_LO:
		if (value % GAUDISIM_EQ_ENTRY_SIZE) {
			gsim_log(core, "event queue: EQ_BASE_LO 0x%x not aligned to %u bytes",
				 value, GAUDISIM_EQ_ENTRY_SIZE);
			return GSIM_REG_BAD_VALUE;
		}
		st = eq_idle(core, "EQ_BASE_LO");
		if (st == GSIM_REG_OK)
			eq->base_lo = value;
		return st;
	case GAUDISIM_EQ_BASE_HI:
		st = eq_idle(core, "EQ_BASE_HI");
		if (st == GSIM_REG_OK)
			eq->base_hi = value;
		return st;
	case GAUDISIM_EQ_SIZE:
		if (value < GAUDISIM_EQ_SIZE_LOG2_MIN || value > GAUDISIM_EQ_SIZE_LOG2_MAX) {
			gsim_log(core, "event queue: EQ_SIZE %u out of range (log2 entries, "
				 "%u..%u)", value, GAUDISIM_EQ_SIZE_LOG2_MIN,
				 GAUDISIM_EQ_SIZE_LOG2_MAX);
			return GSIM_REG_BAD_VALUE;
		}
		st = eq_idle(core, "EQ_SIZE");
		if (st == GSIM_REG_OK)
			eq->size_log2 = value;
		return st;
	case GAUDISIM_EQ_CI:
		return eq_ci_write(core, value);
	case GAUDISIM_EQ_CTL:
		return eq_ctl_write(core, value);
	default: /* GAUDISIM_EQ_HEARTBEAT */
		gsim_eq_post_event(core, &hb);
		return GSIM_REG_OK;
	}
}
