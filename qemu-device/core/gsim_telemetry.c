/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: telemetry, the power and thermal model.
 *
 * Device time is cut into 1 ms ticks. Within a tick the clock is constant,
 * every engine works off its queued work at that clock, and the energy of
 * the interval is exact: idle power plus each engine's dynamic power
 * (proportional to the clock) times its busy time. The die temperature
 * follows an RC circuit driven by the interval's average power:
 *     C dT/dt = P - (T - T_amb) / R
 * solved exactly for a constant P:
 *     T(t + dt) = T_eq + (T(t) - T_eq) exp(-dt / RC),  T_eq = T_amb + P R.
 * At the end of each tick a controller sets the next tick's clock: it
 * lowers it so the tick's power would have met POWER_MAX (dynamic power
 * scales with the clock), steps it down while the die is at or above the
 * throttle temperature, drops it to the minimum at the critical
 * temperature (raising a thermal event once per excursion), and otherwise
 * lets it climb back to CLOCK_MAX in steps.
 *
 * Long idle stretches at full clock are skipped in one step (the result is
 * the same as ticking through them), so reading a register after hours of
 * idle costs no more than after a millisecond.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gsim_telemetry.h"

struct tel_engine {
	double pending_ns;	/* queued work, in ns at the clock limit */
	double busy_ns;		/* modelled busy time so far */
	uint64_t active_ns;	/* device time with work in flight so far */
};

struct gsim_telemetry {
	gsim_tel_event_fn hook;

	/* Model state: physical, survives a hard reset. */
	uint64_t last_ns;		/* evaluated up to this device time */
	uint64_t tick_end;		/* end of the current tick */
	double tick_uj;			/* energy of the current tick so far */
	double ring_uj[GSIM_TEL_WINDOW_TICKS];	/* energy of the last ticks */
	unsigned int ring_pos;
	double temp_c;
	double energy_uj;
	uint32_t clock_mhz;
	uint32_t throttle;		/* GAUDISIM_TEL_THROTTLE_* */
	uint32_t inflight;		/* engines with work in flight, bit per engine */
	bool thermal_hot;		/* at/above throttle, until below it - hyst */
	bool crit_hot;			/* at/above critical, until below it - hyst */

	/* Settings. */
	uint32_t power_max_mw;
	uint32_t clock_max_mhz;

	/* Counters since reset. */
	double throttle_power_ns;
	double throttle_thermal_ns;
	uint32_t power_peak_mw;
	uint32_t temp_peak_mc;
	uint32_t ecc_ce;
	uint32_t ecc_ue;
	uint32_t thermal_events;
	struct tel_engine eng[GAUDISIM_ENGINE_COUNT];
	uint64_t class_active_ns[GAUDISIM_TEL_NUM_CLASSES];
	uint64_t card_active_ns;
	uint64_t dma_bytes[GSIM_TEL_NUM_DMA];
	uint64_t mme_flops;
	uint64_t tpc_instr[GAUDISIM_NUM_TPC];

	/* HI half captured by the last LO read of a 64-bit pair. */
	bool latch_valid;
	uint32_t latch_off;		/* offset of that HI register */
	uint32_t latch_hi;
};

static uint32_t dyn_mw(unsigned int engine)
{
	if (engine < GAUDISIM_NUM_PCI_DMA)
		return GSIM_TEL_DYN_PCI_DMA_MW;
	if (engine <= GAUDISIM_ENGINE_DMA_7)
		return GSIM_TEL_DYN_HBM_DMA_MW;
	if (engine <= GAUDISIM_ENGINE_MME_1)
		return GSIM_TEL_DYN_MME_MW;
	if (engine >= GAUDISIM_ENGINE_NIC_0)
		return GSIM_TEL_DYN_NIC_MW;
	return GSIM_TEL_DYN_TPC_MW;
}

static double idle_tick_uj(void)
{
	/* mW x ns = 1e-6 uJ */
	return (double)GSIM_TEL_IDLE_MW * (double)GSIM_TEL_TICK_NS * 1e-6;
}

static uint32_t temp_mc(const struct gsim_telemetry *t)
{
	double mc = t->temp_c * 1000.0;

	return mc <= 0 ? 0 : mc >= UINT32_MAX ? UINT32_MAX : (uint32_t)lround(mc);
}

static uint32_t window_mw(const struct gsim_telemetry *t)
{
	double sum = 0;
	unsigned int i;

	for (i = 0; i < GSIM_TEL_WINDOW_TICKS; i++)
		sum += t->ring_uj[i];
	/* uJ / ns = 1e3 W = 1e6 mW */
	return (uint32_t)lround(sum / ((double)GSIM_TEL_WINDOW_TICKS * GSIM_TEL_TICK_NS) * 1e6);
}

static void update_peaks(struct gsim_telemetry *t)
{
	uint32_t mc = temp_mc(t);

	if (mc > t->temp_peak_mc)
		t->temp_peak_mc = mc;
}

/* The default hook: one event-queue entry per model event. */
static void post_to_eq(struct gsim_core *core, enum gsim_tel_event ev, uint32_t value,
		       uint64_t addr)
{
	struct gsim_event e = {
		.engine = GAUDISIM_EQ_NONE,
		.queue = GAUDISIM_EQ_NONE,
		.data = { value },
	};

	switch (ev) {
	case GSIM_TEL_EVENT_THERMAL_THROTTLE_ON:
		e.type = GAUDISIM_EQ_EVENT_THERMAL;
		e.code = GSIM_TEL_THERMAL_CODE_ON;
		break;
	case GSIM_TEL_EVENT_THERMAL_THROTTLE_OFF:
		e.type = GAUDISIM_EQ_EVENT_THERMAL;
		e.code = GSIM_TEL_THERMAL_CODE_OFF;
		break;
	case GSIM_TEL_EVENT_THERMAL_CRITICAL:
		e.type = GAUDISIM_EQ_EVENT_THERMAL;
		e.code = GSIM_TEL_THERMAL_CODE_CRITICAL;
		break;
	case GSIM_TEL_EVENT_ECC_CORRECTABLE:
		e.type = GAUDISIM_EQ_EVENT_ECC_CORRECTABLE;
		e.addr = addr;
		break;
	case GSIM_TEL_EVENT_ECC_UNCORRECTABLE:
		e.type = GAUDISIM_EQ_EVENT_ECC_UNCORRECTABLE;
		e.addr = addr;
		break;
	}
	gsim_eq_post_event(core, &e);
}

static void post(struct gsim_core *core, enum gsim_tel_event ev, uint32_t value,
		 uint64_t addr)
{
	if (core->tel->hook)
		core->tel->hook(core, ev, value, addr);
}

/* ---- the model ---------------------------------------------------------- */

/* Integrate dt ns at the current clock. */
static void integrate(struct gsim_telemetry *t, uint64_t dt)
{
	double ratio = (double)t->clock_mhz / GAUDISIM_TEL_CLOCK_LIMIT_MHZ;
	double dtd = (double)dt;
	double uj = (double)GSIM_TEL_IDLE_MW * dtd * 1e-6;
	double p_w, t_eq;
	unsigned int e;

	if (!dt)
		return;
	for (e = 0; e < GAUDISIM_ENGINE_COUNT; e++) {
		struct tel_engine *eng = &t->eng[e];
		bool inflight = t->inflight & (1u << e);
		double need, active = 0;

		if (eng->pending_ns > 0) {
			need = eng->pending_ns / ratio;
			if (need <= dtd) {
				active = need;
				eng->pending_ns = 0;
			} else {
				active = dtd;
				eng->pending_ns -= dtd * ratio;
			}
			eng->busy_ns += active;
		}
		/* Power follows the work in flight; the modelled time is a floor. */
		if (inflight) {
			eng->active_ns += dt;
			active = dtd;
		}
		uj += (double)dyn_mw(e) * ratio * active * 1e-6;
	}
	if (t->inflight) {
		unsigned int c;

		t->card_active_ns += dt;
		for (c = 0; c < GAUDISIM_TEL_NUM_CLASSES; c++)
			if (t->inflight & gsim_telemetry_class_mask(c))
				t->class_active_ns[c] += dt;
	}

	p_w = uj / dtd * 1e3;
	t_eq = GSIM_TEL_AMBIENT_MC / 1000.0 + p_w * GSIM_TEL_R_TH;
	t->temp_c = t_eq + (t->temp_c - t_eq) *
		    exp(-dtd / (GSIM_TEL_R_TH * GSIM_TEL_C_TH * 1e9));
	t->energy_uj += uj;
	t->tick_uj += uj;
	if (t->throttle & GAUDISIM_TEL_THROTTLE_POWER)
		t->throttle_power_ns += dtd;
	if (t->throttle & GAUDISIM_TEL_THROTTLE_THERMAL)
		t->throttle_thermal_ns += dtd;
	update_peaks(t);
}

/* Thermal latches and their events; at the critical point the clock drops at once. */
static void thermal_check(struct gsim_core *core)
{
	struct gsim_telemetry *t = core->tel;
	uint32_t mc = temp_mc(t);

	if (mc >= GSIM_TEL_TEMP_CRIT_MC) {
		if (!t->crit_hot) {
			t->crit_hot = true;
			t->thermal_events++;
			post(core, GSIM_TEL_EVENT_THERMAL_CRITICAL, mc, 0);
		}
	} else if (t->crit_hot && mc < GSIM_TEL_TEMP_CRIT_MC - GSIM_TEL_TEMP_CRIT_HYST_MC) {
		t->crit_hot = false;
	}

	if (mc >= GSIM_TEL_TEMP_THROTTLE_MC) {
		if (!t->thermal_hot) {
			t->thermal_hot = true;
			post(core, GSIM_TEL_EVENT_THERMAL_THROTTLE_ON, mc, 0);
		}
	} else if (t->thermal_hot &&
		   mc < GSIM_TEL_TEMP_THROTTLE_MC - GSIM_TEL_TEMP_THROTTLE_HYST_MC) {
		t->thermal_hot = false;
		post(core, GSIM_TEL_EVENT_THERMAL_THROTTLE_OFF, mc, 0);
	}
	if (t->crit_hot) {
		t->clock_mhz = GSIM_TEL_CLOCK_MIN_MHZ;
		t->throttle |= GAUDISIM_TEL_THROTTLE_THERMAL;
	}
}

static uint32_t clamp_clock(const struct gsim_telemetry *t, double mhz)
{
	if (mhz <= GSIM_TEL_CLOCK_MIN_MHZ)
		return GSIM_TEL_CLOCK_MIN_MHZ;
	if (mhz >= t->clock_max_mhz)
		return t->clock_max_mhz;
	return (uint32_t)mhz;
}

/* Choose the next tick's clock from the tick that just ended. */
static void control(struct gsim_core *core, double p_tick_mw)
{
	struct gsim_telemetry *t = core->tel;
	double target = t->clock_max_mhz;
	double dyn = p_tick_mw - GSIM_TEL_IDLE_MW;
	uint32_t reasons = 0;

	thermal_check(core);
	if (t->crit_hot) {
		target = GSIM_TEL_CLOCK_MIN_MHZ;
		reasons |= GAUDISIM_TEL_THROTTLE_THERMAL;
	} else if (t->thermal_hot) {
		/* Step down while at/above the threshold, hold in the hysteresis band. */
		target = temp_mc(t) >= GSIM_TEL_TEMP_THROTTLE_MC ?
			 (double)t->clock_mhz - GSIM_TEL_CLOCK_THERMAL_STEP_MHZ : t->clock_mhz;
		reasons |= GAUDISIM_TEL_THROTTLE_THERMAL;
	}

	/* The clock at which this tick's activity would have drawn POWER_MAX. */
	if (dyn > 0) {
		double allowed = t->clock_mhz * ((double)t->power_max_mw - GSIM_TEL_IDLE_MW) / dyn;

		if (allowed < t->clock_max_mhz && allowed < target) {
			target = floor(allowed);
			reasons |= GAUDISIM_TEL_THROTTLE_POWER;
		}
	}
	if (target > (double)t->clock_mhz + GSIM_TEL_CLOCK_RAISE_MHZ)
		target = (double)t->clock_mhz + GSIM_TEL_CLOCK_RAISE_MHZ;

	t->clock_mhz = clamp_clock(t, target);
	t->throttle = reasons;
}

static void end_tick(struct gsim_core *core)
{
	struct gsim_telemetry *t = core->tel;
	double p_tick_mw = t->tick_uj / (double)GSIM_TEL_TICK_NS * 1e6;
	uint32_t mw;

	t->ring_uj[t->ring_pos] = t->tick_uj;
	t->ring_pos = (t->ring_pos + 1) % GSIM_TEL_WINDOW_TICKS;
	t->tick_uj = 0;
	mw = window_mw(t);
	if (mw > t->power_peak_mw)
		t->power_peak_mw = mw;
	control(core, p_tick_mw);
}

/* Nothing can change while idle at full clock: no work, no limit, cool. */
static bool idle_steady(const struct gsim_telemetry *t)
{
	unsigned int e;

	if (t->clock_mhz != t->clock_max_mhz || t->throttle || t->thermal_hot || t->crit_hot ||
	    t->inflight)
		return false;
	for (e = 0; e < GAUDISIM_ENGINE_COUNT; e++)
		if (t->eng[e].pending_ns > 0)
			return false;
	return true;
}

/* Skip k whole idle ticks starting at a tick boundary. */
static void skip_idle_ticks(struct gsim_telemetry *t, uint64_t k)
{
	uint64_t i, fill = k < GSIM_TEL_WINDOW_TICKS ? k : GSIM_TEL_WINDOW_TICKS;

	integrate(t, k * GSIM_TEL_TICK_NS);
	t->tick_uj = 0;
	for (i = 0; i < fill; i++) {
		t->ring_uj[t->ring_pos] = idle_tick_uj();
		t->ring_pos = (t->ring_pos + 1) % GSIM_TEL_WINDOW_TICKS;
	}
	if (window_mw(t) > t->power_peak_mw)
		t->power_peak_mw = window_mw(t);
	t->last_ns += k * GSIM_TEL_TICK_NS;
	t->tick_end += k * GSIM_TEL_TICK_NS;
}

/* Bring the model up to the current device time. */
static void advance(struct gsim_core *core)
{
	struct gsim_telemetry *t = core->tel;
	uint64_t now = core->ops.clock_ns(core->opaque);
	unsigned int steps = 0;

	while (t->last_ns < now) {
		uint64_t seg_end = now < t->tick_end ? now : t->tick_end;

		if (t->last_ns + GSIM_TEL_TICK_NS == t->tick_end && t->tick_uj == 0 &&
		    now - t->last_ns >= GSIM_TEL_TICK_NS && idle_steady(t)) {
			skip_idle_ticks(t, (now - t->last_ns) / GSIM_TEL_TICK_NS);
			continue;
		}
		if (++steps > 2 * GSIM_TEL_MAX_TICKS) {
			/* Catching up on very long busy stretches: one coarse step. */
			integrate(t, now - t->last_ns);
			t->last_ns = now;
			t->tick_end = (now / GSIM_TEL_TICK_NS + 1) * GSIM_TEL_TICK_NS;
			t->tick_uj = 0;
			break;
		}
		integrate(t, seg_end - t->last_ns);
		t->last_ns = seg_end;
		if (t->last_ns == t->tick_end) {
			end_tick(core);
			t->tick_end += GSIM_TEL_TICK_NS;
		}
	}
}

/* ---- lifecycle ------------------------------------------------------------ */

struct gsim_telemetry *gsim_telemetry_new(struct gsim_core *core)
{
	struct gsim_telemetry *t = calloc(1, sizeof(*t));
	uint64_t now;
	unsigned int i;

	if (!t)
		return NULL;
	now = core->ops.clock_ns(core->opaque);
	t->last_ns = now;
	t->tick_end = (now / GSIM_TEL_TICK_NS + 1) * GSIM_TEL_TICK_NS;
	for (i = 0; i < GSIM_TEL_WINDOW_TICKS; i++)
		t->ring_uj[i] = idle_tick_uj();
	/* Power-on at the idle equilibrium, so an idle device reads steady. */
	t->temp_c = GSIM_TEL_AMBIENT_MC / 1000.0 + GSIM_TEL_IDLE_MW / 1000.0 * GSIM_TEL_R_TH;
	t->clock_mhz = GAUDISIM_TEL_CLOCK_LIMIT_MHZ;
	t->clock_max_mhz = GAUDISIM_TEL_CLOCK_LIMIT_MHZ;
	t->power_max_mw = GAUDISIM_TEL_POWER_MAX_DEFAULT_MW;
	t->power_peak_mw = window_mw(t);
	t->temp_peak_mc = temp_mc(t);
	t->hook = post_to_eq;
	return t;
}

void gsim_telemetry_free(struct gsim_telemetry *tel)
{
	free(tel);
}

void gsim_telemetry_reset(struct gsim_core *core)
{
	struct gsim_telemetry *t = core->tel;

	advance(core);
	t->power_max_mw = GAUDISIM_TEL_POWER_MAX_DEFAULT_MW;
	t->clock_max_mhz = GAUDISIM_TEL_CLOCK_LIMIT_MHZ;
	t->throttle_power_ns = 0;
	t->throttle_thermal_ns = 0;
	t->ecc_ce = 0;
	t->ecc_ue = 0;
	t->thermal_events = 0;
	memset(t->eng, 0, sizeof(t->eng));
	memset(t->class_active_ns, 0, sizeof(t->class_active_ns));
	t->card_active_ns = 0;
	t->inflight = 0;
	memset(t->dma_bytes, 0, sizeof(t->dma_bytes));
	t->mme_flops = 0;
	memset(t->tpc_instr, 0, sizeof(t->tpc_instr));
	t->power_peak_mw = window_mw(t);
	t->temp_peak_mc = temp_mc(t);
	t->latch_valid = false;
}

void gsim_telemetry_set_event_hook(struct gsim_core *core, gsim_tel_event_fn fn)
{
	core->tel->hook = fn;
}

/* ---- activity reports --------------------------------------------------- */

uint32_t gsim_telemetry_class_mask(unsigned int cls)
{
	switch (cls) {
	case GAUDISIM_TEL_CLASS_DMA:
		return ((1u << (GAUDISIM_ENGINE_DMA_7 + 1)) - 1) << GAUDISIM_ENGINE_DMA_0;
	case GAUDISIM_TEL_CLASS_MME:
		return ((1u << GAUDISIM_NUM_MME) - 1) << GAUDISIM_ENGINE_MME;
	case GAUDISIM_TEL_CLASS_TPC:
		return ((1u << GAUDISIM_NUM_TPC) - 1) << GAUDISIM_ENGINE_TPC_0;
	case GAUDISIM_TEL_CLASS_NIC:
		return ((1u << GAUDISIM_NUM_NIC) - 1) << GAUDISIM_ENGINE_NIC_0;
	default:
		return 0;
	}
}

void gsim_telemetry_set_inflight(struct gsim_core *core, uint32_t engines)
{
	engines &= (uint32_t)((1ull << GAUDISIM_ENGINE_COUNT) - 1);
	if (engines == core->tel->inflight)
		return;
	/* The time up to now had the old set in flight. */
	advance(core);
	core->tel->inflight = engines;
}

/* Queue ns of work (at the clock limit) on an engine's timeline. */
static void queue_work(struct gsim_core *core, unsigned int engine, double ns)
{
	if (engine >= GAUDISIM_ENGINE_COUNT || ns <= 0)
		return;
	/* Earlier time is accounted first, so this work starts no earlier than now. */
	advance(core);
	core->tel->eng[engine].pending_ns += ns;
}

void gsim_telemetry_engine_busy(struct gsim_core *core, unsigned int engine, uint64_t ns)
{
	queue_work(core, engine, (double)ns);
}

void gsim_telemetry_dma_bytes(struct gsim_core *core, unsigned int engine, uint64_t bytes)
{
	double rate = engine < GAUDISIM_NUM_PCI_DMA ? GSIM_TEL_PCI_DMA_BYTES_PER_NS
						    : GSIM_TEL_HBM_DMA_BYTES_PER_NS;

	if (engine >= GSIM_TEL_NUM_DMA)
		return;
	core->tel->dma_bytes[engine] += bytes;
	queue_work(core, engine, (double)bytes / rate);
}

void gsim_telemetry_mme_flops(struct gsim_core *core, unsigned int engine, uint64_t flops)
{
	core->tel->mme_flops += flops;
	queue_work(core, engine, (double)flops / GSIM_TEL_MME_FLOPS_PER_NS);
}

void gsim_telemetry_tpc_instr(struct gsim_core *core, unsigned int tpc, uint64_t bundles)
{
	if (tpc >= GAUDISIM_NUM_TPC)
		return;
	core->tel->tpc_instr[tpc] += bundles;
	/* One bundle per cycle: ns = bundles * 1000 / MHz. */
	queue_work(core, GAUDISIM_ENGINE_TPC_0 + tpc,
		   (double)bundles * 1000.0 / GAUDISIM_TEL_CLOCK_LIMIT_MHZ);
}

static uint32_t add_sat32(uint32_t a, uint32_t b)
{
	return b > UINT32_MAX - a ? UINT32_MAX : a + b;
}

void gsim_telemetry_ecc(struct gsim_core *core, bool uncorrectable, uint32_t count,
			uint64_t addr)
{
	struct gsim_telemetry *t = core->tel;

	if (!count)
		return;
	if (uncorrectable) {
		t->ecc_ue = add_sat32(t->ecc_ue, count);
		post(core, GSIM_TEL_EVENT_ECC_UNCORRECTABLE, count, addr);
	} else {
		t->ecc_ce = add_sat32(t->ecc_ce, count);
		post(core, GSIM_TEL_EVENT_ECC_CORRECTABLE, count, addr);
	}
}

void gsim_telemetry_thermal_spike(struct gsim_core *core, int32_t milli_c)
{
	struct gsim_telemetry *t = core->tel;

	advance(core);
	t->temp_c += milli_c / 1000.0;
	update_peaks(t);
	/* Throttling and the critical event start now, not at the next tick. */
	thermal_check(core);
	if (t->thermal_hot)
		t->throttle |= GAUDISIM_TEL_THROTTLE_THERMAL;
}

void gsim_telemetry_snapshot(struct gsim_core *core, struct gsim_tel_snapshot *snap)
{
	struct gsim_telemetry *t = core->tel;

	advance(core);
	gsim_eq_flush(core);
	memset(snap, 0, sizeof(*snap));	/* padding too: callers may memcmp */
	snap->power_mw = window_mw(t);
	snap->temp_mc = temp_mc(t);
	snap->clock_mhz = t->clock_mhz;
	snap->throttle = t->throttle;
	snap->energy_mj = (uint64_t)(t->energy_uj / 1000.0);
	snap->ecc_correctable = t->ecc_ce;
	snap->ecc_uncorrectable = t->ecc_ue;
	snap->thermal_events = t->thermal_events;
}

/* ---- registers ------------------------------------------------------------ */

/* Value of the 64-bit counter whose LO half is at offset (ns to the nearest). */
static bool counter64(const struct gsim_telemetry *t, uint32_t offset, uint64_t *v)
{
	uint32_t i;

	switch (offset) {
	case GAUDISIM_TEL_THROTTLE_POWER_NS_LO:
		*v = (uint64_t)llround(t->throttle_power_ns);
		return true;
	case GAUDISIM_TEL_THROTTLE_THERMAL_NS_LO:
		*v = (uint64_t)llround(t->throttle_thermal_ns);
		return true;
	case GAUDISIM_TEL_ENERGY_MJ_LO:
		*v = (uint64_t)(t->energy_uj / 1000.0);
		return true;
	case GAUDISIM_TEL_MME_FLOPS_LO:
		*v = t->mme_flops;
		return true;
	default:
		break;
	}
	for (i = 0; i < GAUDISIM_ENGINE_COUNT; i++) {
		if (offset == GAUDISIM_TEL_ENGINE_BUSY_NS_LO(i)) {
			*v = (uint64_t)llround(t->eng[i].busy_ns);
			return true;
		}
	}
	for (i = 0; i < GAUDISIM_ENGINE_COUNT; i++) {
		if (offset == GAUDISIM_TEL_ENGINE_ACTIVE_NS_LO(i)) {
			*v = t->eng[i].active_ns;
			return true;
		}
	}
	for (i = 0; i < GAUDISIM_TEL_NUM_CLASSES; i++) {
		if (offset == GAUDISIM_TEL_CLASS_ACTIVE_NS_LO(i)) {
			*v = t->class_active_ns[i];
			return true;
		}
	}
	if (offset == GAUDISIM_TEL_CARD_ACTIVE_NS_LO) {
		*v = t->card_active_ns;
		return true;
	}
	for (i = 0; i < GSIM_TEL_NUM_DMA; i++) {
		if (offset == GAUDISIM_TEL_DMA_BYTES_LO(i)) {
			*v = t->dma_bytes[i];
			return true;
		}
	}
	for (i = 0; i < GAUDISIM_NUM_TPC; i++) {
		if (offset == GAUDISIM_TEL_TPC_INSTR_LO(i)) {
			*v = t->tpc_instr[i];
			return true;
		}
	}
	return false;
}

/* Frequency of PLL p: the engine PLLs scale with the engine clock. */
static uint32_t pll_mhz(const struct gsim_telemetry *t, uint32_t p)
{
	static const uint32_t nominal[GAUDISIM_TEL_NUM_PLLS] = GSIM_TEL_PLL_NOMINAL_MHZ;

	if (!(GSIM_TEL_PLL_ENGINE_MASK & (1u << p)))
		return nominal[p];
	return (uint32_t)(((uint64_t)nominal[p] * t->clock_mhz + GAUDISIM_TEL_CLOCK_LIMIT_MHZ / 2) /
			  GAUDISIM_TEL_CLOCK_LIMIT_MHZ);
}

static bool reg32(const struct gsim_telemetry *t, uint32_t offset, uint32_t *v)
{
	if (offset >= GAUDISIM_TEL_PLL_MHZ(0, 0) &&
	    offset < GAUDISIM_TEL_PLL_MHZ(GAUDISIM_TEL_NUM_PLLS, 0) && !(offset & 3)) {
		*v = pll_mhz(t, (offset - GAUDISIM_TEL_PLL_MHZ(0, 0)) /
				(GAUDISIM_TEL_PLL_MHZ(1, 0) - GAUDISIM_TEL_PLL_MHZ(0, 0)));
		return true;
	}
	switch (offset) {
	case GAUDISIM_TEL_POWER_MW:
		*v = window_mw(t);
		return true;
	case GAUDISIM_TEL_POWER_MAX_MW:
		*v = t->power_max_mw;
		return true;
	case GAUDISIM_TEL_POWER_IDLE_MW:
		*v = GSIM_TEL_IDLE_MW;
		return true;
	case GAUDISIM_TEL_POWER_PEAK_MW:
		*v = t->power_peak_mw;
		return true;
	case GAUDISIM_TEL_POWER_WINDOW_US:
		*v = (uint32_t)(GSIM_TEL_WINDOW_TICKS * GSIM_TEL_TICK_NS / 1000);
		return true;
	case GAUDISIM_TEL_TEMP_MC:
		*v = temp_mc(t);
		return true;
	case GAUDISIM_TEL_TEMP_PEAK_MC:
		*v = t->temp_peak_mc;
		return true;
	case GAUDISIM_TEL_TEMP_AMBIENT_MC:
		*v = GSIM_TEL_AMBIENT_MC;
		return true;
	case GAUDISIM_TEL_TEMP_THROTTLE_MC:
		*v = GSIM_TEL_TEMP_THROTTLE_MC;
		return true;
	case GAUDISIM_TEL_TEMP_CRIT_MC:
		*v = GSIM_TEL_TEMP_CRIT_MC;
		return true;
	case GAUDISIM_TEL_CLOCK_MHZ:
		*v = t->clock_mhz;
		return true;
	case GAUDISIM_TEL_CLOCK_MAX_MHZ:
		*v = t->clock_max_mhz;
		return true;
	case GAUDISIM_TEL_CLOCK_MIN_MHZ:
		*v = GSIM_TEL_CLOCK_MIN_MHZ;
		return true;
	case GAUDISIM_TEL_THROTTLE:
		*v = t->throttle;
		return true;
	case GAUDISIM_TEL_ECC_CORRECTABLE:
		*v = t->ecc_ce;
		return true;
	case GAUDISIM_TEL_ECC_UNCORRECTABLE:
		*v = t->ecc_ue;
		return true;
	case GAUDISIM_TEL_THERMAL_EVENT_CNT:
		*v = t->thermal_events;
		return true;
	default:
		return false;
	}
}

uint32_t gsim_telemetry_reg_read(struct gsim_core *core, uint32_t offset)
{
	struct gsim_telemetry *t = core->tel;
	uint64_t v64;
	uint32_t v;

	advance(core);
	/* Catching up may have raised thermal events: interrupt now, as writes do. */
	gsim_eq_flush(core);
	if (counter64(t, offset, &v64)) {
		t->latch_valid = true;
		t->latch_off = offset + 4;
		t->latch_hi = (uint32_t)(v64 >> 32);
		return (uint32_t)v64;
	}
	if (offset >= 4 && counter64(t, offset - 4, &v64))
		return t->latch_valid && t->latch_off == offset ? t->latch_hi
								: (uint32_t)(v64 >> 32);
	if (reg32(t, offset, &v))
		return v;
	return 0;	/* RESET_HISTORY is write-only; holes read as zero */
}

enum gsim_reg_status gsim_telemetry_reg_write(struct gsim_core *core, uint32_t offset,
					      uint32_t value, enum gsim_reg_origin origin)
{
	struct gsim_telemetry *t = core->tel;
	uint64_t v64;
	uint32_t v;
	bool writable = offset == GAUDISIM_TEL_POWER_MAX_MW ||
			offset == GAUDISIM_TEL_CLOCK_MAX_MHZ ||
			offset == GAUDISIM_TEL_RESET_HISTORY;

	if (!writable) {
		if (reg32(t, offset, &v) || counter64(t, offset, &v64) ||
		    (offset >= 4 && counter64(t, offset - 4, &v64)))
			return GSIM_REG_READ_ONLY;
		return GSIM_REG_UNKNOWN;
	}
	if (origin != GSIM_ORIGIN_MMIO)
		return GSIM_REG_PROTECTED;

	/* Settings take effect from now on, not retroactively. */
	advance(core);
	switch (offset) {
	case GAUDISIM_TEL_POWER_MAX_MW:
		if (value < GSIM_TEL_IDLE_MW || value > GAUDISIM_TEL_POWER_MAX_LIMIT_MW) {
			gsim_log(core, "telemetry POWER_MAX_MW %u refused: must be %u..%u mW",
				 value, GSIM_TEL_IDLE_MW, GAUDISIM_TEL_POWER_MAX_LIMIT_MW);
			return GSIM_REG_BAD_VALUE;
		}
		t->power_max_mw = value;
		return GSIM_REG_OK;
	case GAUDISIM_TEL_CLOCK_MAX_MHZ:
		if (value < GSIM_TEL_CLOCK_MIN_MHZ || value > GAUDISIM_TEL_CLOCK_LIMIT_MHZ) {
			gsim_log(core, "telemetry CLOCK_MAX_MHZ %u refused: must be %u..%u MHz",
				 value, GSIM_TEL_CLOCK_MIN_MHZ, GAUDISIM_TEL_CLOCK_LIMIT_MHZ);
			return GSIM_REG_BAD_VALUE;
		}
		t->clock_max_mhz = value;
		if (t->clock_mhz > value)
			t->clock_mhz = value;
		return GSIM_REG_OK;
	default: /* GAUDISIM_TEL_RESET_HISTORY */
		t->power_peak_mw = window_mw(t);
		t->temp_peak_mc = temp_mc(t);
		return GSIM_REG_OK;
	}
}
