/* SPDX-License-Identifier: MIT */
/*
 * Fault injection knobs: engine hang, ECC errors (counters, events, the
 * poisoned HBM access), dropped interrupts, thermal spike, and what a hard
 * reset disarms.
 */
#include <string.h>

#include "gsim_test.h"
#include "gsim_faults.h"
#include "gsim_mmu.h"
#include "gsim_telemetry.h"
#include "hw/gaudisim_hw_eq.h"

static unsigned int n_events;
static enum gsim_tel_event last_ev;
static uint32_t last_value;
static uint64_t last_addr;

static void record_event(struct gsim_core *core, enum gsim_tel_event ev, uint32_t value,
			 uint64_t addr)
{
	(void)core;
	n_events++;
	last_ev = ev;
	last_value = value;
	last_addr = addr;
}

static void faults_setup(void)
{
	th_setup();
	n_events = 0;
	gsim_telemetry_set_event_hook(T->core, record_event);
}

START_TEST(test_fault_hang_engine)
{
	unsigned int e;

	ck_assert_int_eq(gsim_fault_hung_engine(T->core), -1);
	for (e = 0; e < GAUDISIM_ENGINE_COUNT; e++)
		ck_assert(!gsim_fault_engine_hung(T->core, e));

	ck_assert_int_eq(gsim_fault_hang_engine(T->core, GAUDISIM_ENGINE_MME), 0);
	ck_assert_int_eq(gsim_fault_hung_engine(T->core), GAUDISIM_ENGINE_MME);
	for (e = 0; e < GAUDISIM_ENGINE_COUNT + 2; e++)
		ck_assert(gsim_fault_engine_hung(T->core, e) == (e == GAUDISIM_ENGINE_MME));

	/* Indices that name no engine are refused and change nothing. */
	ck_assert_int_eq(gsim_fault_hang_engine(T->core, GAUDISIM_ENGINE_COUNT), -1);
	ck_assert_int_eq(gsim_fault_hang_engine(T->core, -2), -1);
	ck_assert_int_eq(gsim_fault_hung_engine(T->core), GAUDISIM_ENGINE_MME);

	/* A soft reset of another engine keeps it; of this engine, releases it. */
	gsim_fault_engine_reset(T->core, GAUDISIM_ENGINE_TPC_0);
	ck_assert(gsim_fault_engine_hung(T->core, GAUDISIM_ENGINE_MME));
	gsim_fault_engine_reset(T->core, GAUDISIM_ENGINE_MME);
	ck_assert_int_eq(gsim_fault_hung_engine(T->core), -1);

	/* -1 clears it; a hard reset clears it too. */
	gsim_fault_hang_engine(T->core, 0);
	ck_assert(gsim_fault_engine_hung(T->core, 0));
	ck_assert_int_eq(gsim_fault_hang_engine(T->core, -1), 0);
	ck_assert(!gsim_fault_engine_hung(T->core, 0));
	gsim_fault_hang_engine(T->core, GAUDISIM_ENGINE_TPC_7);
	gsim_core_reset(T->core);
	ck_assert_int_eq(gsim_fault_hung_engine(T->core), -1);
}
END_TEST

START_TEST(test_fault_ecc_correctable)
{
	gsim_fault_ecc(T->core, false, 5);
	ck_assert_uint_eq(gsim_telemetry_reg_read(T->core, GAUDISIM_TEL_ECC_CORRECTABLE), 5);
	ck_assert_uint_eq(gsim_telemetry_reg_read(T->core, GAUDISIM_TEL_ECC_UNCORRECTABLE), 0);
	ck_assert_uint_eq(n_events, 1);
	ck_assert_int_eq(last_ev, GSIM_TEL_EVENT_ECC_CORRECTABLE);
	ck_assert_uint_eq(last_value, 5);
	ck_assert_uint_ge(last_addr, GAUDISIM_HBM_USER_BASE);
	ck_assert_uint_lt(last_addr, T_HBM_SIZE);
	/* Correctable errors poison nothing. */
	ck_assert_uint_eq(gsim_fault_hbm_ecc_pending(T->core), 0);
	ck_assert(!gsim_fault_take_hbm_ecc(T->core));

	/* Each injection is one event at a new address; 0 does nothing. */
	gsim_fault_ecc(T->core, false, 1);
	ck_assert_uint_eq(n_events, 2);
	ck_assert_uint_ne(last_addr, 0);
	gsim_fault_ecc(T->core, false, 0);
	ck_assert_uint_eq(n_events, 2);
	ck_assert_uint_eq(gsim_telemetry_reg_read(T->core, GAUDISIM_TEL_ECC_CORRECTABLE), 6);
	ck_assert_uint_eq(gsim_fault_ecc_count(T->core, false), 6);
	ck_assert_uint_eq(gsim_fault_ecc_count(T->core, true), 0);
}
END_TEST

START_TEST(test_fault_ecc_uncorrectable)
{
	gsim_fault_ecc(T->core, true, 2);
	ck_assert_uint_eq(gsim_telemetry_reg_read(T->core, GAUDISIM_TEL_ECC_UNCORRECTABLE), 2);
	ck_assert_uint_eq(n_events, 1);
	ck_assert_int_eq(last_ev, GSIM_TEL_EVENT_ECC_UNCORRECTABLE);
	ck_assert_uint_eq(last_value, 2);
	/* The next two HBM accesses fail, then HBM is healthy again. */
	ck_assert_uint_eq(gsim_fault_hbm_ecc_pending(T->core), 2);
	ck_assert(gsim_fault_take_hbm_ecc(T->core));
	ck_assert(gsim_fault_take_hbm_ecc(T->core));
	ck_assert(!gsim_fault_take_hbm_ecc(T->core));

	/* A hard reset disarms poisoned accesses still pending. */
	gsim_fault_ecc(T->core, true, 3);
	gsim_core_reset(T->core);
	ck_assert_uint_eq(gsim_fault_hbm_ecc_pending(T->core), 0);
	ck_assert(!gsim_fault_take_hbm_ecc(T->core));
}
END_TEST

START_TEST(test_fault_drop_irq)
{
	unsigned int i;

	ck_assert(!gsim_fault_should_drop_irq(T->core));
	gsim_fault_drop_irq(T->core, 3);
	ck_assert_uint_eq(gsim_fault_drop_irq_left(T->core), 3);
	for (i = 0; i < 3; i++)
		ck_assert(gsim_fault_should_drop_irq(T->core));
	ck_assert(!gsim_fault_should_drop_irq(T->core));
	ck_assert(!gsim_fault_should_drop_irq(T->core));
	ck_assert_uint_eq(gsim_fault_drop_irq_left(T->core), 0);
	ck_assert_uint_eq(gsim_fault_irq_dropped(T->core), 3);

	/* Setting the knob replaces the count; 0 disarms. */
	gsim_fault_drop_irq(T->core, 5);
	gsim_fault_drop_irq(T->core, 1);
	ck_assert(gsim_fault_should_drop_irq(T->core));
	ck_assert(!gsim_fault_should_drop_irq(T->core));
	gsim_fault_drop_irq(T->core, 2);
	gsim_fault_drop_irq(T->core, 0);
	ck_assert(!gsim_fault_should_drop_irq(T->core));

	/* A reset disarms what is left; the total dropped stays. */
	gsim_fault_drop_irq(T->core, 4);
	gsim_core_reset(T->core);
	ck_assert(!gsim_fault_should_drop_irq(T->core));
	ck_assert_uint_eq(gsim_fault_irq_dropped(T->core), 4);
}
END_TEST

START_TEST(test_fault_thermal_spike)
{
	uint32_t t0 = gsim_telemetry_reg_read(T->core, GAUDISIM_TEL_TEMP_MC);

	ck_assert_int_eq(gsim_fault_thermal_spike(T->core, -1), -1);
	ck_assert_int_eq(gsim_fault_thermal_spike(T->core, GSIM_FAULT_SPIKE_MAX_C + 1), -1);
	ck_assert_uint_eq(gsim_telemetry_reg_read(T->core, GAUDISIM_TEL_TEMP_MC), t0);

	ck_assert_int_eq(gsim_fault_thermal_spike(T->core, 10), 0);
	ck_assert_int_eq(gsim_fault_last_spike(T->core), 10);
	ck_assert_uint_eq(gsim_telemetry_reg_read(T->core, GAUDISIM_TEL_TEMP_MC), t0 + 10000);
	ck_assert_uint_eq(gsim_telemetry_reg_read(T->core, GAUDISIM_TEL_THROTTLE), 0);
	ck_assert_uint_eq(n_events, 0);

	/* Far enough to reach the critical temperature: event and throttle. */
	ck_assert_int_eq(gsim_fault_thermal_spike(T->core, 60), 0);
	ck_assert_uint_eq(gsim_telemetry_reg_read(T->core, GAUDISIM_TEL_THERMAL_EVENT_CNT), 1);
	ck_assert(gsim_telemetry_reg_read(T->core, GAUDISIM_TEL_THROTTLE) &
		  GAUDISIM_TEL_THROTTLE_THERMAL);
	ck_assert_uint_eq(gsim_telemetry_reg_read(T->core, GAUDISIM_TEL_CLOCK_MHZ),
			  GSIM_TEL_CLOCK_MIN_MHZ);
	ck_assert_uint_eq(n_events, 2);
}
END_TEST

/* With the default hook, injected faults reach the driver's event queue. */
#define EQ_OFF		(T_DATA_OFF + 0x100000u)
#define EQ_LOG2		4

static void eq_setup(void)
{
	th_setup();
	wr(GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_BASE_LO, (uint32_t)host_bus(EQ_OFF));
	wr(GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_BASE_HI, (uint32_t)(host_bus(EQ_OFF) >> 32));
	wr(GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_SIZE, EQ_LOG2);
	wr(GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_CI, 0);
	wr(GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_CTL, GAUDISIM_EQ_CTL_ENABLE);
}

static uint32_t eq_word(unsigned int entry, unsigned int byte)
{
	return host_rd32(EQ_OFF + entry * GAUDISIM_EQ_ENTRY_SIZE + byte);
}

#define EQ_CTL(i)	eq_word((i), 0)
#define EQ_CODE(i)	eq_word((i), 12)
#define EQ_ADDR(i)	(eq_word((i), 16) | (uint64_t)eq_word((i), 20) << 32)
#define EQ_DATA0(i)	eq_word((i), 32)

START_TEST(test_fault_events_reach_eq)
{
	uint32_t ctl;

	gsim_fault_ecc(T->core, false, 4);
	ck_assert_uint_eq(rd(GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_PI), 1);
	ctl = EQ_CTL(0);
	ck_assert(ctl & GAUDISIM_EQ_CTL_READY);
	ck_assert_uint_eq(GAUDISIM_EQ_CTL_TYPE(ctl), GAUDISIM_EQ_EVENT_ECC_CORRECTABLE);
	ck_assert_uint_eq(EQ_DATA0(0), 4);
	ck_assert_uint_ge(EQ_ADDR(0), GAUDISIM_HBM_USER_BASE);
	/* The injection raised the EQ's interrupt itself. */
	ck_assert_uint_eq(T->msix[GAUDISIM_MSIX_VEC_EQ], 1);

	gsim_fault_ecc(T->core, true, 1);
	ck_assert_uint_eq(GAUDISIM_EQ_CTL_TYPE(EQ_CTL(1)), GAUDISIM_EQ_EVENT_ECC_UNCORRECTABLE);
	ck_assert_uint_eq(T->msix[GAUDISIM_MSIX_VEC_EQ], 2);

	/* A critical spike: critical then throttle-on, one interrupt. */
	gsim_fault_thermal_spike(T->core, 70);
	ck_assert_uint_eq(rd(GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_PI), 4);
	ck_assert_uint_eq(GAUDISIM_EQ_CTL_TYPE(EQ_CTL(2)), GAUDISIM_EQ_EVENT_THERMAL);
	ck_assert_uint_eq(EQ_CODE(2), GSIM_TEL_THERMAL_CODE_CRITICAL);
	ck_assert_uint_eq(EQ_DATA0(2), 109000);
	ck_assert_uint_eq(GAUDISIM_EQ_CTL_TYPE(EQ_CTL(3)), GAUDISIM_EQ_EVENT_THERMAL);
	ck_assert_uint_eq(EQ_CODE(3), GSIM_TEL_THERMAL_CODE_ON);
	ck_assert_uint_eq(T->msix[GAUDISIM_MSIX_VEC_EQ], 3);

	/* Cooling down, seen by a register read: throttle-off event. */
	T->clock_ns += 20000000000ull;
	ck_assert_uint_lt(rd(GAUDISIM_BLOCK_TELEMETRY + GAUDISIM_TEL_TEMP_MC), 87000);
	ck_assert_uint_eq(rd(GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_PI), 5);
	ck_assert_uint_eq(EQ_CODE(4), GSIM_TEL_THERMAL_CODE_OFF);
	ck_assert_uint_eq(T->msix[GAUDISIM_MSIX_VEC_EQ], 4);
}
END_TEST

/* An MMU fault, reported by the engine that hit it, reaches the EQ. */
START_TEST(test_mmu_fault_event)
{
	uint64_t bus, n;

	gsim_mmu_reg_write(T->core, GAUDISIM_MMU_CTRL, GAUDISIM_MMU_CTRL_ENABLE,
			   GSIM_ORIGIN_MMIO);
	memset(hbm_ptr(GAUDISIM_MMU_PGT_BASE), 0, GAUDISIM_MMU_HOP_TABLE_SIZE);
	gsim_mmu_reg_write(T->core, GAUDISIM_MMU_HOP0_LO(2), (uint32_t)GAUDISIM_MMU_PGT_BASE,
			   GSIM_ORIGIN_MMIO);
	/* Nothing captured yet: nothing to report. */
	gsim_mmu_report_fault(T->core, GAUDISIM_ENGINE_DMA_2, GAUDISIM_QUEUE_ID_DMA_2_0);
	ck_assert_uint_eq(rd(GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_PI), 0);

	ck_assert_int_eq(gsim_mmu_translate(T->core, 2, GAUDISIM_MMU_VA_BASE + 0x1234, 4, true,
					    &bus, &n), GAUDISIM_MMU_CAUSE_NOT_PRESENT);
	gsim_mmu_report_fault(T->core, GAUDISIM_ENGINE_DMA_2, GAUDISIM_QUEUE_ID_DMA_2_0);
	ck_assert_uint_eq(rd(GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_PI), 1);
	ck_assert_uint_eq(GAUDISIM_EQ_CTL_TYPE(EQ_CTL(0)), GAUDISIM_EQ_EVENT_MMU_FAULT);
	ck_assert_uint_eq(eq_word(0, 4), GAUDISIM_ENGINE_DMA_2);
	ck_assert_uint_eq(eq_word(0, 8), GAUDISIM_QUEUE_ID_DMA_2_0);
	ck_assert_uint_eq(EQ_CODE(0), GAUDISIM_MMU_CAUSE_NOT_PRESENT);
	ck_assert_uint_eq(EQ_ADDR(0), GAUDISIM_MMU_VA_BASE + 0x1234);
	ck_assert_uint_eq(EQ_DATA0(0), 2);
	ck_assert_uint_eq(eq_word(0, 36), 1);
}
END_TEST

Suite *faults_suite(void)
{
	Suite *s = suite_create("faults");
	TCase *tc = tcase_create("faults");

	tcase_add_checked_fixture(tc, faults_setup, th_teardown);
	tcase_add_test(tc, test_fault_hang_engine);
	tcase_add_test(tc, test_fault_ecc_correctable);
	tcase_add_test(tc, test_fault_ecc_uncorrectable);
	tcase_add_test(tc, test_fault_drop_irq);
	tcase_add_test(tc, test_fault_thermal_spike);
	suite_add_tcase(s, tc);

	tc = tcase_create("faults-eq");
	tcase_add_checked_fixture(tc, eq_setup, th_teardown);
	tcase_add_test(tc, test_fault_events_reach_eq);
	tcase_add_test(tc, test_mmu_fault_event);
	suite_add_tcase(s, tc);
	return s;
}
