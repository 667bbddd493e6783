/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: telemetry - activity counters, the power and
 * thermal model, clock throttling and HBM ECC counters
 * (hw/gaudisim_hw_telemetry.h is the register contract, docs/telemetry.md the
 * model).
 *
 * The model runs on device time (the host's clock_ns) and is evaluated
 * lazily: whenever an engine reports work or a register is read, it first
 * integrates from the last evaluation to now in 1 ms control ticks. No
 * timer is needed and the result depends only on the reported work and the
 * clock readings, so it is deterministic under a fake clock.
 *
 * Engines report work with one call per piece of work:
 *   gsim_telemetry_dma_bytes()  DMA engine moved bytes (busy time modelled
 *                               from the engine's bandwidth)
 *   gsim_telemetry_mme_flops()  MME finished flops (busy time from its peak)
 *   gsim_telemetry_tpc_instr()  TPC executed bundles (one per clock)
 *   gsim_telemetry_engine_busy() any other busy time (e.g. WAIT cycles)
 * Work is queued on the engine's timeline: it starts when the engine's
 * earlier work ends and progresses at the current clock, so a throttled
 * engine stays busy longer (at lower power). That is the modelled busy
 * time (BUSY_NS). Separately the core reports which engines have work in
 * flight (gsim_telemetry_set_inflight()); that wall-clock activity
 * (ACTIVE_NS) is what utilization reads and what drives the power model.
 */
#ifndef GSIM_TELEMETRY_H
#define GSIM_TELEMETRY_H

#include <stdbool.h>
#include <stdint.h>

#include "gsim_core_internal.h"
#include "hw/gaudisim_hw_telemetry.h"

/* ---- Model constants (docs/telemetry.md) ------------------------------------ */

#define GSIM_TEL_TICK_NS		1000000ull	/* control period: 1 ms */
#define GSIM_TEL_WINDOW_TICKS		16u		/* POWER averages 16 ms */
#define GSIM_TEL_IDLE_MW		60000u		/* Gaudi's DC power */
#define GSIM_TEL_AMBIENT_MC		30000		/* 30 C inlet */
#define GSIM_TEL_R_TH			0.15		/* K/W, die to ambient */
#define GSIM_TEL_C_TH			40.0		/* J/K: tau = R*C = 6 s */
#define GSIM_TEL_TEMP_THROTTLE_MC	90000
#define GSIM_TEL_TEMP_THROTTLE_HYST_MC	3000		/* released below 87 C */
#define GSIM_TEL_TEMP_CRIT_MC		100000
#define GSIM_TEL_TEMP_CRIT_HYST_MC	5000		/* re-armed below 95 C */
#define GSIM_TEL_CLOCK_MIN_MHZ		400u
#define GSIM_TEL_CLOCK_RAISE_MHZ	50u		/* per tick, recovering */
#define GSIM_TEL_CLOCK_THERMAL_STEP_MHZ	100u		/* per tick, too hot */
/* Beyond this many ticks in one evaluation, the rest is one coarse step. */
#define GSIM_TEL_MAX_TICKS		100000u

/* Dynamic power of a fully busy engine at GAUDISIM_TEL_CLOCK_LIMIT_MHZ. */
#define GSIM_TEL_DYN_PCI_DMA_MW		8000u
#define GSIM_TEL_DYN_HBM_DMA_MW		10000u
#define GSIM_TEL_DYN_MME_MW		70000u		/* each of the two */
#define GSIM_TEL_DYN_TPC_MW		18000u
#define GSIM_TEL_DYN_NIC_MW		1000u		/* per port */

/*
 * PLL frequencies at GAUDISIM_TEL_CLOCK_LIMIT_MHZ (GAUDISIM_TEL_PLL_*
 * order); those of the engine PLLs (DMA, NIC, MME, TPC) scale with the
 * engine clock, the others are fixed.
 */
#define GSIM_TEL_PLL_NOMINAL_MHZ	{ 1000, 500, 1500, 1000, 1250, 1500, 1500, \
					  GAUDISIM_TEL_CLOCK_LIMIT_MHZ, \
					  GAUDISIM_TEL_CLOCK_LIMIT_MHZ, 1500 }
#define GSIM_TEL_PLL_ENGINE_MASK	((1u << GAUDISIM_TEL_PLL_NIC) | \
					 (1u << GAUDISIM_TEL_PLL_DMA) | \
					 (1u << GAUDISIM_TEL_PLL_MME) | \
					 (1u << GAUDISIM_TEL_PLL_TPC))

/* Work rates at GAUDISIM_TEL_CLOCK_LIMIT_MHZ, for the modelled busy time. */
#define GSIM_TEL_PCI_DMA_BYTES_PER_NS	16u		/* 16 GB/s, PCIe Gen3 x16 class */
#define GSIM_TEL_HBM_DMA_BYTES_PER_NS	128u		/* 128 GB/s per HBM-DMA engine */
/* A NIC port's line rate, 100 Gb/s: 12.5 bytes per ns, as a fraction. */
#define GSIM_TEL_NIC_NS_PER_BYTE_NUM	2u
#define GSIM_TEL_NIC_NS_PER_BYTE_DEN	25u
#define GSIM_TEL_MME_FLOPS_PER_NS	65536u		/* ~65 TFLOPS per MME */
/* TPC: one instruction bundle per clock cycle. */

#define GSIM_TEL_NUM_DMA		(GAUDISIM_NUM_PCI_DMA + GAUDISIM_NUM_HBM_DMA)

/*
 * Events the model raises. By default they go to the event queue as
 * GAUDISIM_EQ_EVENT_THERMAL (code GSIM_TEL_THERMAL_CODE_*, data[0] the
 * temperature) and GAUDISIM_EQ_EVENT_ECC_{CORRECTABLE,UNCORRECTABLE}
 * (addr, data[0] the count).
 */
enum gsim_tel_event {
	GSIM_TEL_EVENT_THERMAL_THROTTLE_ON,	/* value = temperature, m C */
	GSIM_TEL_EVENT_THERMAL_THROTTLE_OFF,	/* value = temperature, m C */
	GSIM_TEL_EVENT_THERMAL_CRITICAL,	/* value = temperature, m C */
	GSIM_TEL_EVENT_ECC_CORRECTABLE,		/* value = errors, addr = HBM address */
	GSIM_TEL_EVENT_ECC_UNCORRECTABLE,	/* value = errors, addr = HBM address */
};

/*
 * May be called from any core entry point that evaluates the model: a
 * register read or write, an activity report, a fault injection.
 */
/* GAUDISIM_EQ_EVENT_THERMAL codes (hw/gaudisim_hw_eq.h). */
#define GSIM_TEL_THERMAL_CODE_OFF	0
#define GSIM_TEL_THERMAL_CODE_ON	1
#define GSIM_TEL_THERMAL_CODE_CRITICAL	2

typedef void (*gsim_tel_event_fn)(struct gsim_core *core, enum gsim_tel_event ev,
				  uint32_t value, uint64_t addr);

/* Lifecycle, called by gsim_core.c. The clock is read at creation. */
struct gsim_telemetry *gsim_telemetry_new(struct gsim_core *core);
void gsim_telemetry_free(struct gsim_telemetry *tel);
/*
 * Hard reset: counters, queued work, peaks and the power/clock settings go
 * back to their defaults; the die temperature, the clock the thermal state
 * allows and the energy meter are physical and carry on. The hook stays.
 */
void gsim_telemetry_reset(struct gsim_core *core);
/*
 * Where events go. The default posts them to the event queue; tests
 * install their own; NULL drops them (the counters still count). Survives
 * resets.
 */
void gsim_telemetry_set_event_hook(struct gsim_core *core, gsim_tel_event_fn fn);

/* Register block (offsets inside GAUDISIM_BLOCK_TELEMETRY). */
uint32_t gsim_telemetry_reg_read(struct gsim_core *core, uint32_t offset);
enum gsim_reg_status gsim_telemetry_reg_write(struct gsim_core *core, uint32_t offset,
					      uint32_t value, enum gsim_reg_origin origin);

/* Activity reports from the engines; out-of-range indices are ignored. */
void gsim_telemetry_engine_busy(struct gsim_core *core, unsigned int engine, uint64_t ns);
void gsim_telemetry_dma_bytes(struct gsim_core *core, unsigned int engine, uint64_t bytes);
void gsim_telemetry_mme_flops(struct gsim_core *core, unsigned int engine, uint64_t flops);
void gsim_telemetry_tpc_instr(struct gsim_core *core, unsigned int tpc, uint64_t bundles);

/*
 * The engines that have work in flight from now on, a bit per engine (the
 * core computes it from its queues and launches). The time up to now is
 * accounted with the previous set: ACTIVE_NS counters, and power, which
 * takes a fully busy engine for each one in flight (the modelled work only
 * adds where nothing is in flight).
 */
void gsim_telemetry_set_inflight(struct gsim_core *core, uint32_t engines);
/* The engines of class cls (GAUDISIM_TEL_CLASS_*), a bit per engine. */
uint32_t gsim_telemetry_class_mask(unsigned int cls);

/* HBM ECC errors at device address addr: count them and raise one event. */
void gsim_telemetry_ecc(struct gsim_core *core, bool uncorrectable, uint32_t count,
			uint64_t addr);
/* Raise the die temperature at once (fault injection). */
void gsim_telemetry_thermal_spike(struct gsim_core *core, int32_t milli_c);

/* Current model outputs, evaluated up to now (for tests and the glue). */
struct gsim_tel_snapshot {
	uint32_t power_mw;
	uint32_t temp_mc;
	uint32_t clock_mhz;
	uint32_t throttle;	/* GAUDISIM_TEL_THROTTLE_* */
	uint64_t energy_mj;
	uint32_t ecc_correctable;
	uint32_t ecc_uncorrectable;
	uint32_t thermal_events;
};
void gsim_telemetry_snapshot(struct gsim_core *core, struct gsim_tel_snapshot *snap);

#endif /* GSIM_TELEMETRY_H */
