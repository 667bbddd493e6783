/* SPDX-License-Identifier: MIT */
/*
 * Telemetry: the power and thermal model against its equations under the
 * fake clock, throttling, events, activity counters and the register
 * block.
 */
#include <math.h>
#include <string.h>

#include "gsim_test.h"
#include "gsim_telemetry.h"

#define MS	1000000ull
#define SEC	(1000 * MS)
/* Work that keeps every engine busy for a long time. */
#define LONG_WORK_NS	(100 * SEC)

struct ev_log {
	unsigned int n;
	enum gsim_tel_event ev[32];
	uint32_t value[32];
	uint64_t addr[32];
};

static struct ev_log evs;

static void record_event(struct gsim_core *core, enum gsim_tel_event ev, uint32_t value,
			 uint64_t addr)
{
	(void)core;
	if (evs.n < 32) {
		evs.ev[evs.n] = ev;
		evs.value[evs.n] = value;
		evs.addr[evs.n] = addr;
	}
	evs.n++;
}

static void tel_setup(void)
{
	th_setup();
	memset(&evs, 0, sizeof(evs));
	gsim_telemetry_set_event_hook(T->core, record_event);
}

static void wait_ns(uint64_t ns)
{
	T->clock_ns += ns;
}

static uint32_t tel(uint32_t off)
{
	return gsim_telemetry_reg_read(T->core, off);
}

static uint64_t tel64(uint32_t lo)
{
	uint32_t l = tel(lo);

	return (uint64_t)tel(lo + 4) << 32 | l;
}

static struct gsim_tel_snapshot snap(void)
{
	struct gsim_tel_snapshot s;

	gsim_telemetry_snapshot(T->core, &s);
	return s;
}

/* The RC model's temperature after dt at constant power, in m C. */
static double rc_temp_mc(double t0_c, double p_w, double dt_s)
{
	double teq = GSIM_TEL_AMBIENT_MC / 1000.0 + p_w * GSIM_TEL_R_TH;

	return 1000.0 * (teq + (t0_c - teq) * exp(-dt_s / (GSIM_TEL_R_TH * GSIM_TEL_C_TH)));
}

static void busy_all(uint64_t ns)
{
	unsigned int e;

	for (e = 0; e < GAUDISIM_ENGINE_COUNT; e++)
		gsim_telemetry_engine_busy(T->core, e, ns);
}

START_TEST(test_tel_idle_at_rest)
{
	const uint32_t idle_mc = GSIM_TEL_AMBIENT_MC +
				 (uint32_t)(GSIM_TEL_IDLE_MW * GSIM_TEL_R_TH);
	struct gsim_tel_snapshot s = snap();

	ck_assert_uint_eq(s.power_mw, GSIM_TEL_IDLE_MW);
	ck_assert_uint_eq(s.temp_mc, idle_mc);
	ck_assert_uint_eq(s.clock_mhz, GAUDISIM_TEL_CLOCK_LIMIT_MHZ);
	ck_assert_uint_eq(s.throttle, 0);

	wait_ns(10 * SEC + 123);
	s = snap();
	ck_assert_uint_eq(s.power_mw, GSIM_TEL_IDLE_MW);
	ck_assert_uint_eq(s.temp_mc, idle_mc);
	ck_assert_uint_eq(s.clock_mhz, GAUDISIM_TEL_CLOCK_LIMIT_MHZ);
	/* 60 W for 10 s = 600 J. */
	ck_assert_uint_ge(s.energy_mj, 599999);
	ck_assert_uint_le(s.energy_mj, 600001);
	ck_assert_uint_eq(tel(GAUDISIM_TEL_POWER_IDLE_MW), GSIM_TEL_IDLE_MW);
	ck_assert_uint_eq(tel(GAUDISIM_TEL_POWER_PEAK_MW), GSIM_TEL_IDLE_MW);
	ck_assert_uint_eq(tel(GAUDISIM_TEL_POWER_WINDOW_US),
			  GSIM_TEL_WINDOW_TICKS * GSIM_TEL_TICK_NS / 1000);
	ck_assert_uint_eq(evs.n, 0);
}
END_TEST

START_TEST(test_tel_long_idle_is_cheap)
{
	struct gsim_tel_snapshot s;

	/* A day of idle device time evaluates in one step, exactly. */
	wait_ns(24ull * 3600 * SEC);
	s = snap();
	ck_assert_uint_eq(s.power_mw, GSIM_TEL_IDLE_MW);
	ck_assert_uint_ge(s.energy_mj, 5183999000ull);
	ck_assert_uint_le(s.energy_mj, 5184001000ull);
}
END_TEST

START_TEST(test_tel_busy_raises_power)
{
	const double mme_w = GSIM_TEL_DYN_MME_MW / 1000.0;
	struct gsim_tel_snapshot s;
	uint64_t e0;

	e0 = snap().energy_mj;
	/* 100 ms of MME work at the full clock. */
	gsim_telemetry_mme_flops(T->core, GAUDISIM_ENGINE_MME, (uint64_t)GSIM_TEL_MME_FLOPS_PER_NS * 100 * MS);
	ck_assert_uint_eq(tel64(GAUDISIM_TEL_MME_FLOPS_LO),
			  (uint64_t)GSIM_TEL_MME_FLOPS_PER_NS * 100 * MS);
	wait_ns(40 * MS);
	s = snap();
	ck_assert_uint_eq(s.power_mw, GSIM_TEL_IDLE_MW + GSIM_TEL_DYN_MME_MW);
	ck_assert_uint_eq(s.throttle, 0);
	ck_assert_uint_eq(tel64(GAUDISIM_TEL_ENGINE_BUSY_NS_LO(GAUDISIM_ENGINE_MME)), 40 * MS);
	ck_assert_uint_eq(tel64(GAUDISIM_TEL_ENGINE_BUSY_NS_LO(GAUDISIM_ENGINE_TPC_0)), 0);

	/* The work ends after 100 ms; the window then falls back to idle. */
	wait_ns(160 * MS);
	s = snap();
	ck_assert_uint_eq(s.power_mw, GSIM_TEL_IDLE_MW);
	ck_assert_uint_eq(tel64(GAUDISIM_TEL_ENGINE_BUSY_NS_LO(GAUDISIM_ENGINE_MME)), 100 * MS);
	ck_assert_uint_eq(tel(GAUDISIM_TEL_POWER_PEAK_MW),
			  GSIM_TEL_IDLE_MW + GSIM_TEL_DYN_MME_MW);
	/* Energy: 60 W for 200 ms plus 140 W for 100 ms. */
	ck_assert_uint_ge(s.energy_mj - e0, (uint64_t)(60 * 200 + mme_w * 100) - 1);
	ck_assert_uint_le(s.energy_mj - e0, (uint64_t)(60 * 200 + mme_w * 100) + 1);
	/* The die warmed a little and is cooling again. */
	ck_assert_uint_gt(s.temp_mc, GSIM_TEL_AMBIENT_MC + 9000);
	ck_assert_uint_eq(tel(GAUDISIM_TEL_TEMP_PEAK_MC) >= s.temp_mc, 1);
}
END_TEST

START_TEST(test_tel_work_queues_per_engine)
{
	/* Two reports on one engine run back to back, not in parallel. */
	gsim_telemetry_engine_busy(T->core, GAUDISIM_ENGINE_TPC_0 + 3, 5 * MS);
	gsim_telemetry_engine_busy(T->core, GAUDISIM_ENGINE_TPC_0 + 3, 5 * MS);
	wait_ns(6 * MS);
	ck_assert_uint_eq(tel64(GAUDISIM_TEL_ENGINE_BUSY_NS_LO(GAUDISIM_ENGINE_TPC_0 + 3)),
			  6 * MS);
	wait_ns(20 * MS);
	ck_assert_uint_eq(tel64(GAUDISIM_TEL_ENGINE_BUSY_NS_LO(GAUDISIM_ENGINE_TPC_0 + 3)),
			  10 * MS);
	/* Out-of-range engines are ignored. */
	gsim_telemetry_engine_busy(T->core, GAUDISIM_ENGINE_COUNT, 5 * MS);
	gsim_telemetry_dma_bytes(T->core, GSIM_TEL_NUM_DMA, 4096);
	gsim_telemetry_tpc_instr(T->core, GAUDISIM_NUM_TPC, 4096);
	wait_ns(MS);
	ck_assert_uint_eq(snap().power_mw, GSIM_TEL_IDLE_MW);
}
END_TEST

START_TEST(test_tel_counters_64bit)
{
	const uint64_t bytes = 5ull << 30;
	uint32_t lo;

	gsim_telemetry_dma_bytes(T->core, 0, bytes);
	gsim_telemetry_dma_bytes(T->core, GAUDISIM_ENGINE_DMA_7, 1000);
	gsim_telemetry_tpc_instr(T->core, 5, 2200);
	ck_assert_uint_eq(tel64(GAUDISIM_TEL_DMA_BYTES_LO(0)), bytes);
	ck_assert_uint_eq(tel64(GAUDISIM_TEL_DMA_BYTES_LO(7)), 1000);
	ck_assert_uint_eq(tel64(GAUDISIM_TEL_DMA_BYTES_LO(1)), 0);
	ck_assert_uint_eq(tel64(GAUDISIM_TEL_TPC_INSTR_LO(5)), 2200);

	/* LO latches HI: a HI read after it returns the latched half. */
	lo = tel(GAUDISIM_TEL_DMA_BYTES_LO(0));
	gsim_telemetry_dma_bytes(T->core, 0, 4ull << 30);
	ck_assert_uint_eq(lo, (uint32_t)bytes);
	ck_assert_uint_eq(tel(GAUDISIM_TEL_DMA_BYTES_HI(0)), (uint32_t)(bytes >> 32));
	ck_assert_uint_eq(tel64(GAUDISIM_TEL_DMA_BYTES_LO(0)), bytes + (4ull << 30));

	/* PCI-DMA at 16 B/ns: 9 GiB keep it busy for ~604 ms; 1 s later it is idle. */
	wait_ns(SEC);
	ck_assert_uint_eq(tel64(GAUDISIM_TEL_ENGINE_BUSY_NS_LO(0)),
			  (9ull << 30) / GSIM_TEL_PCI_DMA_BYTES_PER_NS);
	/* One bundle per cycle at 2200 MHz: 2200 bundles = 1 us. */
	ck_assert_uint_eq(tel64(GAUDISIM_TEL_ENGINE_BUSY_NS_LO(GAUDISIM_ENGINE_TPC_0 + 5)),
			  1000);
}
END_TEST

START_TEST(test_tel_power_cap_throttles)
{
	struct gsim_tel_snapshot s;
	uint32_t clk;

	busy_all(LONG_WORK_NS);
	wait_ns(200 * MS);
	s = snap();
	/* Full load would draw 430 W; the clock comes down until 350 W. */
	ck_assert_uint_lt(s.clock_mhz, GAUDISIM_TEL_CLOCK_LIMIT_MHZ);
	ck_assert_uint_gt(s.clock_mhz, 1700);
	ck_assert(s.throttle & GAUDISIM_TEL_THROTTLE_POWER);
	ck_assert(!(s.throttle & GAUDISIM_TEL_THROTTLE_THERMAL));
	ck_assert_uint_le(s.power_mw, GAUDISIM_TEL_POWER_MAX_DEFAULT_MW + 1000);
	ck_assert_uint_ge(s.power_mw, GAUDISIM_TEL_POWER_MAX_DEFAULT_MW - 3000);
	ck_assert_uint_ge(tel64(GAUDISIM_TEL_THROTTLE_POWER_NS_LO), 190 * MS);
	ck_assert_uint_eq(tel64(GAUDISIM_TEL_THROTTLE_THERMAL_NS_LO), 0);
	/* Work progresses at the throttled clock: less than 200 ms of it is done. */
	ck_assert_uint_eq(tel64(GAUDISIM_TEL_ENGINE_BUSY_NS_LO(GAUDISIM_ENGINE_MME)), 200 * MS);

	/* A lower cap, set by the driver, lowers the clock further. */
	clk = s.clock_mhz;
	ck_assert_int_eq(gsim_telemetry_reg_write(T->core, GAUDISIM_TEL_POWER_MAX_MW, 200000,
						  GSIM_ORIGIN_MMIO), GSIM_REG_OK);
	wait_ns(100 * MS);
	s = snap();
	ck_assert_uint_lt(s.clock_mhz, clk);
	ck_assert_uint_le(s.power_mw, 201000);
	ck_assert_uint_ge(s.power_mw, 197000);

	/* Work done: the limit lets go and the clock climbs back. */
	memset(&s, 0, sizeof(s));
	gsim_core_reset(T->core);	/* drops the queued work */
	wait_ns(100 * MS);
	s = snap();
	ck_assert_uint_eq(s.clock_mhz, GAUDISIM_TEL_CLOCK_LIMIT_MHZ);
	ck_assert_uint_eq(s.throttle, 0);
	ck_assert_uint_eq(s.power_mw, GSIM_TEL_IDLE_MW);
	ck_assert_uint_eq(evs.n, 0);
}
END_TEST

START_TEST(test_tel_rc_model)
{
	const double p_w = (GSIM_TEL_IDLE_MW + 2 * GSIM_TEL_DYN_MME_MW) / 1000.0;
	double t0 = snap().temp_mc / 1000.0, t1;
	uint32_t mc;

	/* Both MMEs busy (200 W total): one time constant later, 63 % of the way up. */
	gsim_telemetry_engine_busy(T->core, GAUDISIM_ENGINE_MME, 60 * SEC);
	gsim_telemetry_engine_busy(T->core, GAUDISIM_ENGINE_MME_1, 60 * SEC);
	wait_ns(6 * SEC);
	mc = snap().temp_mc;
	ck_assert_double_eq_tol(mc, rc_temp_mc(t0, p_w, 6.0), 50);
	ck_assert_uint_gt(mc, 52000);

	/* Five time constants: at equilibrium, 30 C + 200 W x 0.15 K/W. */
	wait_ns(24 * SEC);
	mc = snap().temp_mc;
	ck_assert_double_eq_tol(mc, rc_temp_mc(t0, p_w, 30.0), 50);
	ck_assert_uint_gt(mc, 59800);
	ck_assert_uint_le(mc, 60000);

	/* The work ends at 60 s; then it decays towards the idle 39 C. */
	wait_ns(30 * SEC);
	t1 = snap().temp_mc / 1000.0;
	wait_ns(12 * SEC);
	mc = snap().temp_mc;
	ck_assert_double_eq_tol(mc, rc_temp_mc(t1, GSIM_TEL_IDLE_MW / 1000.0, 12.0), 50);
	ck_assert_uint_lt(mc, 42000);
	ck_assert_uint_gt(mc, 39000);
	ck_assert_uint_ge(tel(GAUDISIM_TEL_TEMP_PEAK_MC), 59800);
	ck_assert_uint_eq(evs.n, 0);
}
END_TEST

START_TEST(test_tel_thermal_throttle)
{
	struct gsim_tel_snapshot s;

	/* 39 C + 55 C: over the throttle point, under the critical one. */
	gsim_telemetry_thermal_spike(T->core, 55000);
	s = snap();
	ck_assert_uint_eq(s.temp_mc, 94000);
	ck_assert(s.throttle & GAUDISIM_TEL_THROTTLE_THERMAL);
	ck_assert_uint_eq(evs.n, 1);
	ck_assert_int_eq(evs.ev[0], GSIM_TEL_EVENT_THERMAL_THROTTLE_ON);
	ck_assert_uint_eq(evs.value[0], 94000);

	/* The clock steps down by 100 MHz a tick while hot. */
	wait_ns(5 * MS);
	s = snap();
	ck_assert_uint_eq(s.clock_mhz, GAUDISIM_TEL_CLOCK_LIMIT_MHZ -
			  5 * GSIM_TEL_CLOCK_THERMAL_STEP_MHZ);
	ck_assert_uint_eq(s.thermal_events, 0);

	/* Cooling below 87 C (about 0.8 s) releases it, with an event. */
	wait_ns(2 * SEC);
	s = snap();
	ck_assert_uint_lt(s.temp_mc, 87000);
	ck_assert(!(s.throttle & GAUDISIM_TEL_THROTTLE_THERMAL));
	ck_assert_uint_eq(s.clock_mhz, GAUDISIM_TEL_CLOCK_LIMIT_MHZ);
	ck_assert_uint_eq(evs.n, 2);
	ck_assert_int_eq(evs.ev[1], GSIM_TEL_EVENT_THERMAL_THROTTLE_OFF);
	ck_assert_uint_gt(tel64(GAUDISIM_TEL_THROTTLE_THERMAL_NS_LO), 700 * MS);
	ck_assert_uint_lt(tel64(GAUDISIM_TEL_THROTTLE_THERMAL_NS_LO), 1000 * MS);
}
END_TEST

START_TEST(test_tel_thermal_critical)
{
	struct gsim_tel_snapshot s;

	gsim_telemetry_thermal_spike(T->core, 65000);	/* 104 C */
	s = snap();
	ck_assert_uint_eq(s.clock_mhz, GSIM_TEL_CLOCK_MIN_MHZ);
	ck_assert_uint_eq(s.thermal_events, 1);
	ck_assert_uint_eq(tel(GAUDISIM_TEL_THERMAL_EVENT_CNT), 1);
	ck_assert_uint_eq(evs.n, 2);
	ck_assert_int_eq(evs.ev[0], GSIM_TEL_EVENT_THERMAL_CRITICAL);
	ck_assert_uint_eq(evs.value[0], 104000);
	ck_assert_int_eq(evs.ev[1], GSIM_TEL_EVENT_THERMAL_THROTTLE_ON);

	/* Still critical: no second event for the same excursion. */
	wait_ns(10 * MS);
	gsim_telemetry_thermal_spike(T->core, 1000);
	ck_assert_uint_eq(snap().thermal_events, 1);
	ck_assert_uint_eq(snap().clock_mhz, GSIM_TEL_CLOCK_MIN_MHZ);

	/* Below 95 C it re-arms; the next excursion is a new event. */
	wait_ns(2 * SEC);
	s = snap();
	ck_assert_uint_lt(s.temp_mc, 95000);
	gsim_telemetry_thermal_spike(T->core, 100000);
	ck_assert_uint_eq(snap().thermal_events, 2);
}
END_TEST

START_TEST(test_tel_clock_max_register)
{
	struct gsim_tel_snapshot s;

	ck_assert_int_eq(gsim_telemetry_reg_write(T->core, GAUDISIM_TEL_CLOCK_MAX_MHZ, 1000,
						  GSIM_ORIGIN_MMIO), GSIM_REG_OK);
	ck_assert_uint_eq(tel(GAUDISIM_TEL_CLOCK_MHZ), 1000);
	ck_assert_uint_eq(tel(GAUDISIM_TEL_CLOCK_MAX_MHZ), 1000);
	/* Work at half the clock takes ~twice as long, at ~half the dynamic power. */
	gsim_telemetry_engine_busy(T->core, GAUDISIM_ENGINE_MME, 10 * MS);
	wait_ns(20 * MS);
	ck_assert_uint_eq(tel64(GAUDISIM_TEL_ENGINE_BUSY_NS_LO(GAUDISIM_ENGINE_MME)), 20 * MS);
	wait_ns(20 * MS);
	ck_assert_uint_eq(tel64(GAUDISIM_TEL_ENGINE_BUSY_NS_LO(GAUDISIM_ENGINE_MME)), 22 * MS);
	s = snap();
	ck_assert_uint_eq(s.clock_mhz, 1000);
	ck_assert_uint_eq(s.throttle, 0);

	/* Out-of-range values are refused with a message. */
	ck_assert_int_eq(gsim_telemetry_reg_write(T->core, GAUDISIM_TEL_CLOCK_MAX_MHZ, 2201,
						  GSIM_ORIGIN_MMIO), GSIM_REG_BAD_VALUE);
	ck_assert_int_eq(gsim_telemetry_reg_write(T->core, GAUDISIM_TEL_CLOCK_MAX_MHZ, 10,
						  GSIM_ORIGIN_MMIO), GSIM_REG_BAD_VALUE);
	ck_assert_int_eq(gsim_telemetry_reg_write(T->core, GAUDISIM_TEL_POWER_MAX_MW, 1000,
						  GSIM_ORIGIN_MMIO), GSIM_REG_BAD_VALUE);
	ck_assert_int_eq(gsim_telemetry_reg_write(T->core, GAUDISIM_TEL_POWER_MAX_MW,
						  GAUDISIM_TEL_POWER_MAX_LIMIT_MW + 1,
						  GSIM_ORIGIN_MMIO), GSIM_REG_BAD_VALUE);
	ck_assert_uint_ge(T->errors, 4);
	ck_assert_uint_eq(tel(GAUDISIM_TEL_CLOCK_MAX_MHZ), 1000);
	ck_assert_uint_eq(tel(GAUDISIM_TEL_POWER_MAX_MW), GAUDISIM_TEL_POWER_MAX_DEFAULT_MW);
}
END_TEST

/* PLL_MHZ: engine PLLs scale with the engine clock, the others are fixed. */
START_TEST(test_tel_pll_registers)
{
	uint32_t p, o, cpu = tel(GAUDISIM_TEL_PLL_MHZ(GAUDISIM_TEL_PLL_CPU, 0));
	uint32_t dma = tel(GAUDISIM_TEL_PLL_MHZ(GAUDISIM_TEL_PLL_DMA, 0));

	for (p = 0; p < GAUDISIM_TEL_NUM_PLLS; p++)
		for (o = 0; o < GAUDISIM_TEL_PLL_OUTPUTS; o++) {
			ck_assert_uint_gt(tel(GAUDISIM_TEL_PLL_MHZ(p, o)), 0);
			ck_assert_uint_eq(tel(GAUDISIM_TEL_PLL_MHZ(p, o)),
					  tel(GAUDISIM_TEL_PLL_MHZ(p, 0)));
		}
	ck_assert_uint_eq(tel(GAUDISIM_TEL_PLL_MHZ(GAUDISIM_TEL_PLL_MME, 0)),
			  GAUDISIM_TEL_CLOCK_LIMIT_MHZ);
	ck_assert_uint_eq(tel(GAUDISIM_TEL_PLL_MHZ(GAUDISIM_TEL_PLL_TPC, 3)),
			  GAUDISIM_TEL_CLOCK_LIMIT_MHZ);

	/* Half the engine clock: the engine PLLs halve, the fixed ones stay. */
	ck_assert_int_eq(gsim_telemetry_reg_write(T->core, GAUDISIM_TEL_CLOCK_MAX_MHZ,
						  GAUDISIM_TEL_CLOCK_LIMIT_MHZ / 2,
						  GSIM_ORIGIN_MMIO), GSIM_REG_OK);
	ck_assert_uint_eq(tel(GAUDISIM_TEL_PLL_MHZ(GAUDISIM_TEL_PLL_MME, 0)),
			  tel(GAUDISIM_TEL_CLOCK_MHZ));
	ck_assert_uint_eq(tel(GAUDISIM_TEL_PLL_MHZ(GAUDISIM_TEL_PLL_TPC, 0)),
			  GAUDISIM_TEL_CLOCK_LIMIT_MHZ / 2);
	ck_assert_uint_eq(tel(GAUDISIM_TEL_PLL_MHZ(GAUDISIM_TEL_PLL_DMA, 2)), (dma + 1) / 2);
	ck_assert_uint_eq(tel(GAUDISIM_TEL_PLL_MHZ(GAUDISIM_TEL_PLL_CPU, 1)), cpu);

	/* Past the last PLL and between outputs: holes read 0. */
	ck_assert_uint_eq(tel(GAUDISIM_TEL_PLL_MHZ(GAUDISIM_TEL_NUM_PLLS, 0)), 0);
	ck_assert_uint_eq(tel(GAUDISIM_TEL_PLL_MHZ(0, 0) + 2), 0);
}
END_TEST

START_TEST(test_tel_registers)
{
	ck_assert_uint_eq(tel(GAUDISIM_TEL_TEMP_AMBIENT_MC), GSIM_TEL_AMBIENT_MC);
	ck_assert_uint_eq(tel(GAUDISIM_TEL_TEMP_THROTTLE_MC), GSIM_TEL_TEMP_THROTTLE_MC);
	ck_assert_uint_eq(tel(GAUDISIM_TEL_TEMP_CRIT_MC), GSIM_TEL_TEMP_CRIT_MC);
	ck_assert_uint_eq(tel(GAUDISIM_TEL_CLOCK_MIN_MHZ), GSIM_TEL_CLOCK_MIN_MHZ);
	ck_assert_uint_eq(tel(GAUDISIM_TEL_POWER_MAX_MW), GAUDISIM_TEL_POWER_MAX_DEFAULT_MW);
	ck_assert_uint_eq(tel(0xffc), 0);
	ck_assert_uint_eq(tel(GAUDISIM_TEL_RESET_HISTORY), 0);

	/* Command buffers may not change settings; RO and unknown are refused. */
	ck_assert_int_eq(gsim_telemetry_reg_write(T->core, GAUDISIM_TEL_POWER_MAX_MW, 100000,
						  GSIM_ORIGIN_CB), GSIM_REG_PROTECTED);
	ck_assert_int_eq(gsim_telemetry_reg_write(T->core, GAUDISIM_TEL_TEMP_MC, 1,
						  GSIM_ORIGIN_MMIO), GSIM_REG_READ_ONLY);
	ck_assert_int_eq(gsim_telemetry_reg_write(T->core, GAUDISIM_TEL_ENERGY_MJ_HI, 1,
						  GSIM_ORIGIN_MMIO), GSIM_REG_READ_ONLY);
	ck_assert_int_eq(gsim_telemetry_reg_write(T->core,
						  GAUDISIM_TEL_ENGINE_BUSY_NS_LO(3), 1,
						  GSIM_ORIGIN_MMIO), GSIM_REG_READ_ONLY);
	ck_assert_int_eq(gsim_telemetry_reg_write(T->core, 0xffc, 1, GSIM_ORIGIN_MMIO),
			 GSIM_REG_UNKNOWN);

	/* RESET_HISTORY brings the peaks down to the present values. */
	gsim_telemetry_thermal_spike(T->core, 20000);
	wait_ns(30 * SEC);
	ck_assert_uint_ge(tel(GAUDISIM_TEL_TEMP_PEAK_MC), 59000);
	ck_assert_int_eq(gsim_telemetry_reg_write(T->core, GAUDISIM_TEL_RESET_HISTORY, 1,
						  GSIM_ORIGIN_MMIO), GSIM_REG_OK);
	ck_assert_uint_eq(tel(GAUDISIM_TEL_TEMP_PEAK_MC), tel(GAUDISIM_TEL_TEMP_MC));
}
END_TEST

START_TEST(test_tel_ecc_events)
{
	gsim_telemetry_ecc(T->core, false, 3, 0x20000000);
	gsim_telemetry_ecc(T->core, true, 1, 0x20200000);
	gsim_telemetry_ecc(T->core, true, 0, 0x20400000);	/* nothing */
	ck_assert_uint_eq(tel(GAUDISIM_TEL_ECC_CORRECTABLE), 3);
	ck_assert_uint_eq(tel(GAUDISIM_TEL_ECC_UNCORRECTABLE), 1);
	ck_assert_uint_eq(evs.n, 2);
	ck_assert_int_eq(evs.ev[0], GSIM_TEL_EVENT_ECC_CORRECTABLE);
	ck_assert_uint_eq(evs.value[0], 3);
	ck_assert_uint_eq(evs.addr[0], 0x20000000);
	ck_assert_int_eq(evs.ev[1], GSIM_TEL_EVENT_ECC_UNCORRECTABLE);
	ck_assert_uint_eq(evs.addr[1], 0x20200000);
}
END_TEST

START_TEST(test_tel_reset)
{
	uint32_t mc;

	gsim_telemetry_dma_bytes(T->core, 2, 1 << 20);
	gsim_telemetry_ecc(T->core, false, 2, 0);
	gsim_telemetry_engine_busy(T->core, GAUDISIM_ENGINE_MME, 30 * SEC);
	gsim_telemetry_engine_busy(T->core, GAUDISIM_ENGINE_MME_1, 30 * SEC);
	wait_ns(10 * SEC);
	gsim_telemetry_reg_write(T->core, GAUDISIM_TEL_POWER_MAX_MW, 300000, GSIM_ORIGIN_MMIO);
	mc = snap().temp_mc;
	ck_assert_uint_gt(mc, 50000);

	gsim_core_reset(T->core);
	/* Counters and settings start over; the die stays as warm as it was. */
	ck_assert_uint_eq(tel64(GAUDISIM_TEL_DMA_BYTES_LO(2)), 0);
	ck_assert_uint_eq(tel64(GAUDISIM_TEL_ENGINE_BUSY_NS_LO(GAUDISIM_ENGINE_MME)), 0);
	ck_assert_uint_eq(tel(GAUDISIM_TEL_ECC_CORRECTABLE), 0);
	ck_assert_uint_eq(tel(GAUDISIM_TEL_POWER_MAX_MW), GAUDISIM_TEL_POWER_MAX_DEFAULT_MW);
	ck_assert_uint_eq(snap().temp_mc, mc);
	ck_assert_uint_gt(tel64(GAUDISIM_TEL_ENERGY_MJ_LO), 600000);
	/* The queued MME work died with the reset: the device cools. */
	wait_ns(SEC);
	ck_assert_uint_eq(tel64(GAUDISIM_TEL_ENGINE_BUSY_NS_LO(GAUDISIM_ENGINE_MME)), 0);
	ck_assert_uint_lt(snap().temp_mc, mc);
}
END_TEST

/* The block is reachable through the register BAR; CB-only refusals hold. */
START_TEST(test_tel_through_bar)
{
	ck_assert_uint_eq(rd(GAUDISIM_BLOCK_TELEMETRY + GAUDISIM_TEL_POWER_MW), GSIM_TEL_IDLE_MW);
	wr(GAUDISIM_BLOCK_TELEMETRY + GAUDISIM_TEL_CLOCK_MAX_MHZ, 1500);
	ck_assert_uint_eq(rd(GAUDISIM_BLOCK_TELEMETRY + GAUDISIM_TEL_CLOCK_MHZ), 1500);
	gsim_telemetry_dma_bytes(T->core, 1, 0x123456789ull);
	ck_assert_uint_eq(rd(GAUDISIM_BLOCK_TELEMETRY + GAUDISIM_TEL_DMA_BYTES_LO(1)), 0x23456789);
	ck_assert_uint_eq(rd(GAUDISIM_BLOCK_TELEMETRY + GAUDISIM_TEL_DMA_BYTES_HI(1)), 0x1);
}
END_TEST

/* Both MMEs: 140 W together. */
#define MME_BIT		(1u << GAUDISIM_ENGINE_MME | 1u << GAUDISIM_ENGINE_MME_1)
#define TPC0_BIT	(1u << GAUDISIM_ENGINE_TPC_0)

/*
 * Utilization is device time with work in flight: per engine, per class
 * (any engine of it) and for the card (any engine); power follows it while
 * the modelled busy time stays apart.
 */
START_TEST(test_tel_inflight_active)
{
	struct gsim_tel_snapshot s;
	uint32_t mc0 = snap().temp_mc;

	/* MMEs in flight 0..300 ms, TPC 0 200..500 ms, then idle to 1 s. */
	gsim_telemetry_set_inflight(T->core, MME_BIT);
	wait_ns(40 * MS);
	/* The 16 ms window saw both MMEs fully busy at the full clock. */
	ck_assert_uint_eq(tel(GAUDISIM_TEL_POWER_MW), GSIM_TEL_IDLE_MW + 2 * GSIM_TEL_DYN_MME_MW);
	wait_ns(160 * MS);
	gsim_telemetry_set_inflight(T->core, MME_BIT | TPC0_BIT);
	wait_ns(100 * MS);
	gsim_telemetry_set_inflight(T->core, TPC0_BIT);
	wait_ns(200 * MS);
	gsim_telemetry_set_inflight(T->core, 0);
	wait_ns(500 * MS);

	ck_assert_uint_eq(tel64(GAUDISIM_TEL_ENGINE_ACTIVE_NS_LO(GAUDISIM_ENGINE_MME)), 300 * MS);
	ck_assert_uint_eq(tel64(GAUDISIM_TEL_ENGINE_ACTIVE_NS_LO(GAUDISIM_ENGINE_TPC_0)), 300 * MS);
	ck_assert_uint_eq(tel64(GAUDISIM_TEL_ENGINE_ACTIVE_NS_LO(GAUDISIM_ENGINE_TPC_0 + 1)), 0);
	ck_assert_uint_eq(tel64(GAUDISIM_TEL_CLASS_ACTIVE_NS_LO(GAUDISIM_TEL_CLASS_MME)), 300 * MS);
	ck_assert_uint_eq(tel64(GAUDISIM_TEL_CLASS_ACTIVE_NS_LO(GAUDISIM_TEL_CLASS_TPC)), 300 * MS);
	ck_assert_uint_eq(tel64(GAUDISIM_TEL_CLASS_ACTIVE_NS_LO(GAUDISIM_TEL_CLASS_DMA)), 0);
	ck_assert_uint_eq(tel64(GAUDISIM_TEL_CLASS_ACTIVE_NS_LO(GAUDISIM_TEL_CLASS_NIC)), 0);
	/* The card: the union, 0..500 ms. */
	ck_assert_uint_eq(tel64(GAUDISIM_TEL_CARD_ACTIVE_NS_LO), 500 * MS);
	/* No work was reported: the modelled busy time stays 0. */
	ck_assert_uint_eq(tel64(GAUDISIM_TEL_ENGINE_BUSY_NS_LO(GAUDISIM_ENGINE_MME)), 0);
	/* Back at idle power; the die warmed and cools again. */
	s = snap();
	ck_assert_uint_eq(s.power_mw, GSIM_TEL_IDLE_MW);
	ck_assert_uint_gt(tel(GAUDISIM_TEL_TEMP_PEAK_MC), mc0 + 500);
	ck_assert_uint_lt(s.temp_mc, tel(GAUDISIM_TEL_TEMP_PEAK_MC));
	/* 60 W x 1 s + 140 W x 0.3 s + 18 W x 0.3 s. */
	ck_assert_uint_ge(s.energy_mj, 60000 + 42000 + 5400 - 2);
	ck_assert_uint_le(s.energy_mj, 60000 + 42000 + 5400 + 2);

	/* The idle fast path is not taken while work is in flight. */
	gsim_telemetry_set_inflight(T->core, MME_BIT);
	wait_ns(3 * SEC);
	ck_assert_uint_eq(tel64(GAUDISIM_TEL_CARD_ACTIVE_NS_LO), 3500 * MS);
	ck_assert_uint_eq(tel(GAUDISIM_TEL_POWER_MW), GSIM_TEL_IDLE_MW + 2 * GSIM_TEL_DYN_MME_MW);
	/* A reset clears the counters and what was in flight. */
	gsim_core_reset(T->core);
	wait_ns(SEC);
	ck_assert_uint_eq(tel64(GAUDISIM_TEL_CARD_ACTIVE_NS_LO), 0);
	ck_assert_uint_eq(tel64(GAUDISIM_TEL_ENGINE_ACTIVE_NS_LO(GAUDISIM_ENGINE_MME)), 0);
}
END_TEST

/*
 * The core reports what is in flight: a CB queued on a DMA queue counts
 * until it completes; a CB parked on a fence (waiting for someone else)
 * does not.
 */
START_TEST(test_tel_inflight_from_queues)
{
	const uint32_t dma0 = GAUDISIM_TEL_ENGINE_ACTIVE_NS_LO(GAUDISIM_ENGINE_DMA_0);
	struct cb parked = cb_new(64), work = cb_new(64);
	uint32_t slot;

	q_setup(1, 2);
	q_setup(2, 2);
	/* Queued, not run yet: in flight from the doorbell on. */
	cb_nop(&work);
	slot = job_submit(2, &work);
	wait_ns(10 * MS);
	ck_assert_uint_eq(tel64(dma0), 10 * MS);
	ck_assert_uint_eq(tel64(GAUDISIM_TEL_CLASS_ACTIVE_NS_LO(GAUDISIM_TEL_CLASS_DMA)), 10 * MS);
	run_all();
	ck_assert_uint_eq(cq_entry(2, slot), cq_ok(slot));
	wait_ns(10 * MS);
	ck_assert_uint_eq(tel64(dma0), 10 * MS);

	/* Parked on a fence: not work of this engine. */
	cb_fence(&parked, 0, 1, 1);
	slot = job_submit(1, &parked);
	ck_assert(!gsim_core_run(T->core));
	wait_ns(20 * MS);
	ck_assert_uint_eq(tel64(dma0), 10 * MS);
	ck_assert_uint_eq(tel64(GAUDISIM_TEL_CARD_ACTIVE_NS_LO), 10 * MS);
	wr(QM_FENCE_REG(1, GAUDISIM_QM_CP_FENCE_RDATA, 0), 1);
	run_all();
	ck_assert_uint_eq(cq_entry(1, slot), cq_ok(slot));
	wait_ns(20 * MS);
	ck_assert_uint_eq(tel64(dma0), 10 * MS);
	ck_assert_uint_eq(snap().power_mw, GSIM_TEL_IDLE_MW);
}
END_TEST

/* Same inputs, same outputs: two devices fed alike agree exactly. */
START_TEST(test_tel_deterministic)
{
	struct th *u = th_new(T_HOST_SIZE);
	struct gsim_tel_snapshot a, b;
	struct th *both[2] = { T, u };
	unsigned int i, k;

	for (i = 0; i < 200; i++) {
		for (k = 0; k < 2; k++) {
			struct gsim_core *c = both[k]->core;

			both[k]->clock_ns += 123457 * (i % 7 + 1);
			gsim_telemetry_engine_busy(c, i % GAUDISIM_ENGINE_COUNT, 300000 * (i % 5));
			gsim_telemetry_dma_bytes(c, i % 8, 1 << (i % 24));
			if (i == 100)
				gsim_telemetry_thermal_spike(c, 40000);
		}
	}
	gsim_telemetry_snapshot(T->core, &a);
	gsim_telemetry_snapshot(u->core, &b);
	ck_assert_mem_eq(&a, &b, sizeof(a));
	for (i = 0; i < GAUDISIM_BLOCK_SIZE; i += 4)
		ck_assert_uint_eq(gsim_telemetry_reg_read(T->core, i),
				  gsim_telemetry_reg_read(u->core, i));
	th_free(u);
}
END_TEST

Suite *telemetry_suite(void)
{
	Suite *s = suite_create("telemetry");
	TCase *tc = tcase_create("telemetry");

	tcase_add_checked_fixture(tc, tel_setup, th_teardown);
	tcase_add_test(tc, test_tel_idle_at_rest);
	tcase_add_test(tc, test_tel_long_idle_is_cheap);
	tcase_add_test(tc, test_tel_busy_raises_power);
	tcase_add_test(tc, test_tel_work_queues_per_engine);
	tcase_add_test(tc, test_tel_counters_64bit);
	tcase_add_test(tc, test_tel_power_cap_throttles);
	tcase_add_test(tc, test_tel_rc_model);
	tcase_add_test(tc, test_tel_thermal_throttle);
	tcase_add_test(tc, test_tel_thermal_critical);
	tcase_add_test(tc, test_tel_clock_max_register);
	tcase_add_test(tc, test_tel_pll_registers);
	tcase_add_test(tc, test_tel_registers);
	tcase_add_test(tc, test_tel_ecc_events);
	tcase_add_test(tc, test_tel_reset);
	tcase_add_test(tc, test_tel_through_bar);
	tcase_add_test(tc, test_tel_deterministic);
	tcase_add_test(tc, test_tel_inflight_active);
	tcase_add_test(tc, test_tel_inflight_from_queues);
	suite_add_tcase(s, tc);
	return s;
}
