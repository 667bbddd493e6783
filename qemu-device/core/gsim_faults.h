/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: fault injection (docs/fault-injection.md).
 *
 * The QEMU glue exposes these knobs as QOM properties (qom-set over QMP);
 * the tests call them directly. Each knob arms a fault that the rest of the
 * device consults at a well-defined point:
 *
 *   engine hang      gsim_fault_engine_hung(): the command processor and the
 *                    engine stop making progress on that engine; its job
 *                    never completes until a reset (or the knob is cleared)
 *   ECC errors       counted and raised as events at once (telemetry);
 *                    an uncorrectable error also poisons the next engine
 *                    access to HBM: gsim_fault_take_hbm_ecc() says which
 *                    access, and that job fails
 *   dropped IRQ      gsim_fault_should_drop_irq(): the next N MSI-X messages
 *                    are swallowed (checked where MSI-X is raised)
 *   thermal spike    the die temperature jumps at once (telemetry), which
 *                    throttles the clock and may raise the thermal event
 *   PCIe replays     the link's replay counter grows at once (a simulated
 *                    link never replays on its own; nothing is resent)
 *
 * A hard reset disarms everything that is still armed (hang, pending
 * poisoned accesses, interrupts left to drop); counters of what already
 * happened live in telemetry and follow its reset rules.
 *
 * This header is public like gsim_core.h (the glue includes it): it needs
 * nothing from the core's internals. Injections that raise events flush
 * the event queue's interrupt themselves, as a register access does.
 */
#ifndef GSIM_FAULTS_H
#define GSIM_FAULTS_H

#include <stdbool.h>
#include <stdint.h>

#include "gsim_core.h"

#define GSIM_FAULT_SPIKE_MAX_C	200	/* largest thermal spike accepted */

struct gsim_faults;

/* Lifecycle, called by gsim_core.c. */
struct gsim_faults *gsim_faults_new(void);
void gsim_faults_free(struct gsim_faults *faults);
void gsim_faults_reset(struct gsim_core *core);

/* Engine hang: engine index (enum gaudisim_engine_id), or -1 to clear.
 * Returns 0, or -1 for an index that names no engine. */
int gsim_fault_hang_engine(struct gsim_core *core, int engine);
int gsim_fault_hung_engine(const struct gsim_core *core);	/* -1: none */
bool gsim_fault_engine_hung(const struct gsim_core *core, unsigned int engine);
/* An engine soft reset releases that engine's hang. */
void gsim_fault_engine_reset(struct gsim_core *core, unsigned int engine);

/* HBM ECC errors: count them, raise the events; uncorrectable ones poison
 * as many upcoming HBM accesses. */
void gsim_fault_ecc(struct gsim_core *core, bool uncorrectable, uint32_t count);
/* The ECC error counters (telemetry registers ECC_{,UN}CORRECTABLE). */
uint32_t gsim_fault_ecc_count(struct gsim_core *core, bool uncorrectable);
/* Called by an engine before it touches HBM for a job: true means this
 * access hits a poisoned location and the job must fail. */
bool gsim_fault_take_hbm_ecc(struct gsim_core *core);
uint32_t gsim_fault_hbm_ecc_pending(const struct gsim_core *core);

/* Dropped interrupts: swallow the next count MSI-X messages (0 disarms). */
void gsim_fault_drop_irq(struct gsim_core *core, uint32_t count);
uint32_t gsim_fault_drop_irq_left(const struct gsim_core *core);
uint64_t gsim_fault_irq_dropped(const struct gsim_core *core);
/* Called wherever an MSI-X message is about to be sent: true = drop it. */
bool gsim_fault_should_drop_irq(struct gsim_core *core);

/* Thermal spike of degrees_c (0..GSIM_FAULT_SPIKE_MAX_C). 0 or -1. */
int gsim_fault_thermal_spike(struct gsim_core *core, int32_t degrees_c);
int32_t gsim_fault_last_spike(const struct gsim_core *core);

/* PCIe replays: add count to GAUDISIM_REG_PCIE_REPLAY_CNT (saturating at
 * UINT32_MAX); the counter, like the byte counters, clears on hard reset. */
void gsim_fault_pcie_replay(struct gsim_core *core, uint32_t count);
uint32_t gsim_fault_pcie_replay_count(const struct gsim_core *core);

#endif /* GSIM_FAULTS_H */
