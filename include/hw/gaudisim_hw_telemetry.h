/* SPDX-License-Identifier: MIT */
/*
 * gaudisim hardware contract: telemetry registers (power, thermal, clocks,
 * activity counters, HBM ECC), offsets inside GAUDISIM_BLOCK_TELEMETRY.
 *
 * The values come from a model that follows the work the engines do: each
 * engine's activity drives a power model (idle power plus activity-weighted
 * dynamic power, capped by POWER_MAX by lowering the clock) and an RC
 * thermal model (clock throttling above TEMP_THROTTLE, a thermal event at
 * TEMP_CRIT). docs/telemetry.md gives the equations and constants.
 *
 * 64-bit counters are LO/HI pairs: reading LO latches HI, so read LO first.
 * The free-running device timestamp is the global block's TIMESTAMP_LO/HI.
 * Only the driver (MMIO) may write; command buffers get GAUDISIM_CP_ERR_PRIV.
 */
#ifndef GAUDISIM_HW_TELEMETRY_H
#define GAUDISIM_HW_TELEMETRY_H

#include "gaudisim_hw_queues.h"

/* ---- Power ---------------------------------------------------------------- */

#define GAUDISIM_TEL_POWER_MW		0x000	/* RO: average over POWER_WINDOW_US */
#define GAUDISIM_TEL_POWER_MAX_MW	0x004	/* RW: power cap */
#define GAUDISIM_TEL_POWER_IDLE_MW	0x008	/* RO: power with every engine idle */
#define GAUDISIM_TEL_POWER_PEAK_MW	0x00C	/* RO: highest POWER since RESET_HISTORY */
#define GAUDISIM_TEL_POWER_WINDOW_US	0x010	/* RO: averaging window */

/* Gaudi HL-205 mezzanine card; a write outside [IDLE, LIMIT] is refused. */
#define GAUDISIM_TEL_POWER_MAX_DEFAULT_MW	350000u
#define GAUDISIM_TEL_POWER_MAX_LIMIT_MW		600000u

/* ---- Temperature (milli-degrees Celsius) ----------------------------------- */

#define GAUDISIM_TEL_TEMP_MC		0x020	/* RO: die temperature */
#define GAUDISIM_TEL_TEMP_PEAK_MC	0x024	/* RO: highest since RESET_HISTORY */
#define GAUDISIM_TEL_TEMP_AMBIENT_MC	0x028	/* RO: inlet temperature of the model */
#define GAUDISIM_TEL_TEMP_THROTTLE_MC	0x02C	/* RO: clock throttles at or above */
#define GAUDISIM_TEL_TEMP_CRIT_MC	0x030	/* RO: thermal event at or above */

/* ---- Clock ----------------------------------------------------------------- */

#define GAUDISIM_TEL_CLOCK_MHZ		0x040	/* RO: current engine clock */
#define GAUDISIM_TEL_CLOCK_MAX_MHZ	0x044	/* RW: [CLOCK_MIN, GAUDISIM_TEL_CLOCK_LIMIT_MHZ] */
#define GAUDISIM_TEL_CLOCK_MIN_MHZ	0x048	/* RO: floor of throttling */
#define GAUDISIM_TEL_CLOCK_LIMIT_MHZ	2200u	/* Gaudi's MME PLL maximum */

/*
 * PLLs, in habanalabs' Gaudi order (its enum hl_gaudi_pll_index): output o
 * (0..3) of PLL p reads its frequency in MHz (RO; the model gives all four
 * outputs of a PLL one frequency). The PLLs of the modelled engines (DMA,
 * NIC, MME, TPC) scale with CLOCK_MHZ as their work rates do, the MME and
 * TPC PLLs being CLOCK_MHZ itself; the others are fixed clocks of the
 * board. docs/telemetry.md lists the frequencies.
 */
#define GAUDISIM_TEL_PLL_CPU		0
#define GAUDISIM_TEL_PLL_PCI		1
#define GAUDISIM_TEL_PLL_SRAM		2
#define GAUDISIM_TEL_PLL_HBM		3
#define GAUDISIM_TEL_PLL_NIC		4
#define GAUDISIM_TEL_PLL_DMA		5
#define GAUDISIM_TEL_PLL_MESH		6
#define GAUDISIM_TEL_PLL_MME		7
#define GAUDISIM_TEL_PLL_TPC		8
#define GAUDISIM_TEL_PLL_IF		9
#define GAUDISIM_TEL_NUM_PLLS		10
#define GAUDISIM_TEL_PLL_OUTPUTS	4
#define GAUDISIM_TEL_PLL_MHZ(p, o)	(0x600 + 16 * (p) + 4 * (o))

/* Why the clock is below CLOCK_MAX right now. */
#define GAUDISIM_TEL_THROTTLE		0x050	/* RO: GAUDISIM_TEL_THROTTLE_* */
#define GAUDISIM_TEL_THROTTLE_POWER	(1u << 0)
#define GAUDISIM_TEL_THROTTLE_THERMAL	(1u << 1)
/* Time spent throttled for each reason since reset, in ns. */
#define GAUDISIM_TEL_THROTTLE_POWER_NS_LO	0x058
#define GAUDISIM_TEL_THROTTLE_POWER_NS_HI	0x05C
#define GAUDISIM_TEL_THROTTLE_THERMAL_NS_LO	0x060
#define GAUDISIM_TEL_THROTTLE_THERMAL_NS_HI	0x064

/* ---- Energy, ECC, events ----------------------------------------------------- */

#define GAUDISIM_TEL_ENERGY_MJ_LO	0x070	/* RO: energy since power-on, mJ */
#define GAUDISIM_TEL_ENERGY_MJ_HI	0x074
#define GAUDISIM_TEL_ECC_CORRECTABLE	0x078	/* RO: HBM single-bit errors */
#define GAUDISIM_TEL_ECC_UNCORRECTABLE	0x07C	/* RO: HBM multi-bit errors */
#define GAUDISIM_TEL_THERMAL_EVENT_CNT	0x080	/* RO: critical-temperature events */
/* WO: any value clears POWER_PEAK and TEMP_PEAK (hwmon reset_history). */
#define GAUDISIM_TEL_RESET_HISTORY	0x084

/* ---- Activity counters (64-bit, LO at the offset, HI at +4) ---------------- */

/*
 * Two kinds of time. BUSY is modelled hardware time: the work an engine
 * reported at its modelled rate (what a real Gaudi would need). ACTIVE is
 * device time (the timestamp's clock) during which the engine had work in
 * flight - a CB in a queue that is not waiting on a fence, or a launch not
 * finished - however long the simulator takes for it; utilization is
 * delta(ACTIVE) / delta(TIMESTAMP), and power follows ACTIVE too.
 */
/* Busy time of engine e (enum gaudisim_engine_id), ns, modelled. */
#define GAUDISIM_TEL_ENGINE_BUSY_NS_LO(e)	(0x100 + 8 * (e))
#define GAUDISIM_TEL_ENGINE_BUSY_NS_HI(e)	(0x104 + 8 * (e))
/* Bytes moved by DMA engine d (0..7: PCI-DMA 0,1 then HBM-DMA 2..7). */
#define GAUDISIM_TEL_DMA_BYTES_LO(d)		(0x200 + 8 * (d))
#define GAUDISIM_TEL_DMA_BYTES_HI(d)		(0x204 + 8 * (d))
/* Floating-point operations done by the MMEs, both together (2 per multiply-add). */
#define GAUDISIM_TEL_MME_FLOPS_LO		0x300
#define GAUDISIM_TEL_MME_FLOPS_HI		0x304
/* Instruction bundles executed by TPC t (0..7). */
#define GAUDISIM_TEL_TPC_INSTR_LO(t)		(0x310 + 8 * (t))
#define GAUDISIM_TEL_TPC_INSTR_HI(t)		(0x314 + 8 * (t))

/* Device time with work in flight on engine e, ns. */
#define GAUDISIM_TEL_ENGINE_ACTIVE_NS_LO(e)	(0x400 + 8 * (e))
#define GAUDISIM_TEL_ENGINE_ACTIVE_NS_HI(e)	(0x404 + 8 * (e))
/* Device time with work in flight on any engine of class c, ns. */
#define GAUDISIM_TEL_CLASS_DMA			0	/* DMA 0..7 */
#define GAUDISIM_TEL_CLASS_MME			1	/* MME 0..1 */
#define GAUDISIM_TEL_CLASS_TPC			2	/* TPC 0..7 */
#define GAUDISIM_TEL_CLASS_NIC			3	/* NIC ports 0..9 */
#define GAUDISIM_TEL_NUM_CLASSES		4
#define GAUDISIM_TEL_CLASS_ACTIVE_NS_LO(c)	(0x500 + 8 * (c))
#define GAUDISIM_TEL_CLASS_ACTIVE_NS_HI(c)	(0x504 + 8 * (c))
/* Device time with work in flight on any engine, ns. */
#define GAUDISIM_TEL_CARD_ACTIVE_NS_LO		0x520
#define GAUDISIM_TEL_CARD_ACTIVE_NS_HI		0x524

#endif /* GAUDISIM_HW_TELEMETRY_H */
