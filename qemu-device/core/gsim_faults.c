/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: fault injection state and the checks the rest of
 * the device makes against it.
 */
#include <stdlib.h>

#include "gsim_core_internal.h"
#include "gsim_faults.h"
#include "gsim_telemetry.h"

#define GSIM_FAULT_ECC_ADDR_SHIFT	21

struct gsim_faults {
	int hang_engine;		/* -1: no engine hangs */
	uint32_t drop_irq_left;		/* MSI-X messages still to swallow */
	uint64_t irq_dropped;		/* swallowed so far (not reset) */
	uint32_t ecc_poisoned;		/* HBM accesses that will fail */
	uint64_t ecc_seq;		/* injections so far, for the error address */
	int32_t last_spike_c;
};

struct gsim_faults *gsim_faults_new(void)
{
	struct gsim_faults *f = calloc(1, sizeof(*f));

	if (f)
		f->hang_engine = -1;
	return f;
}

void gsim_faults_free(struct gsim_faults *faults)
{
	free(faults);
}

void gsim_faults_reset(struct gsim_core *core)
{
	struct gsim_faults *f = core->faults;

	f->hang_engine = -1;
	f->drop_irq_left = 0;
	f->ecc_poisoned = 0;
}

int gsim_fault_hang_engine(struct gsim_core *core, int engine)
{
	if (engine < -1 || engine >= GAUDISIM_ENGINE_COUNT)
		return -1;
	core->faults->hang_engine = engine;
	return 0;
}

int gsim_fault_hung_engine(const struct gsim_core *core)
{
	return core->faults->hang_engine;
}

bool gsim_fault_engine_hung(const struct gsim_core *core, unsigned int engine)
{
	return core->faults->hang_engine >= 0 &&
	       (unsigned int)core->faults->hang_engine == engine;
}

void gsim_fault_engine_reset(struct gsim_core *core, unsigned int engine)
{
	if (gsim_fault_engine_hung(core, engine))
		core->faults->hang_engine = -1;
}

/*
 * Where an injected error "is": a different 2 MiB page of user HBM each
 * time, so successive events are distinguishable. Deterministic.
 */
static uint64_t ecc_addr(struct gsim_core *core)
{
	uint64_t user = core->hbm_size - GAUDISIM_HBM_USER_BASE;

	return GAUDISIM_HBM_USER_BASE +
	       (core->faults->ecc_seq++ << GSIM_FAULT_ECC_ADDR_SHIFT) % user;
}

void gsim_fault_ecc(struct gsim_core *core, bool uncorrectable, uint32_t count)
{
	struct gsim_faults *f = core->faults;

	if (!count)
		return;
	if (uncorrectable)
		f->ecc_poisoned = count > UINT32_MAX - f->ecc_poisoned ? UINT32_MAX
								       : f->ecc_poisoned + count;
	gsim_telemetry_ecc(core, uncorrectable, count, ecc_addr(core));
	gsim_eq_flush(core);
}

uint32_t gsim_fault_ecc_count(struct gsim_core *core, bool uncorrectable)
{
	return gsim_telemetry_reg_read(core, uncorrectable ? GAUDISIM_TEL_ECC_UNCORRECTABLE
							  : GAUDISIM_TEL_ECC_CORRECTABLE);
}

bool gsim_fault_take_hbm_ecc(struct gsim_core *core)
{
	if (!core->faults->ecc_poisoned)
		return false;
	core->faults->ecc_poisoned--;
	return true;
}

uint32_t gsim_fault_hbm_ecc_pending(const struct gsim_core *core)
{
	return core->faults->ecc_poisoned;
}

void gsim_fault_drop_irq(struct gsim_core *core, uint32_t count)
{
	core->faults->drop_irq_left = count;
}

uint32_t gsim_fault_drop_irq_left(const struct gsim_core *core)
{
	return core->faults->drop_irq_left;
}

uint64_t gsim_fault_irq_dropped(const struct gsim_core *core)
{
	return core->faults->irq_dropped;
}

bool gsim_fault_should_drop_irq(struct gsim_core *core)
{
	struct gsim_faults *f = core->faults;

	if (!f->drop_irq_left)
		return false;
	f->drop_irq_left--;
	f->irq_dropped++;
	return true;
}

int gsim_fault_thermal_spike(struct gsim_core *core, int32_t degrees_c)
{
	if (degrees_c < 0 || degrees_c > GSIM_FAULT_SPIKE_MAX_C)
		return -1;
	core->faults->last_spike_c = degrees_c;
	gsim_telemetry_thermal_spike(core, degrees_c * 1000);
	gsim_eq_flush(core);
	return 0;
}

int32_t gsim_fault_last_spike(const struct gsim_core *core)
{
	return core->faults->last_spike_c;
}

void gsim_fault_pcie_replay(struct gsim_core *core, uint32_t count)
{
	gsim_pcie_add_replays(core, count);
}

uint32_t gsim_fault_pcie_replay_count(const struct gsim_core *core)
{
	return gsim_pcie_replays(core);
}
