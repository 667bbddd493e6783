/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: the sync manager (hw/gaudisim_hw_sync.h).
 *
 * Sync objects are 15-bit counters; monitors watch up to 8 of them and,
 * when their condition holds, write a 32-bit payload to a device address
 * (typically a QMAN fence register, which wakes a stream parked on a
 * FENCE). A monitor is checked when armed and when a SOB of its group
 * changes; armed[] counts the armed monitors per group so that a SOB
 * update in an unwatched group costs nothing.
 *
 * A payload write can update another SOB or arm another monitor, so
 * firing recurses. The recursion is bounded: each firing disarms its
 * monitor, and a chain deeper than GAUDISIM_SYNC_MAX_CHAIN drops its
 * payload with an error (MON_STATUS.ERR and a SYNC_ERR event).
 *
 * Rights: a payload write carries the rights of whoever armed the
 * monitor, never those of whoever happens to trigger it. Armed by the
 * driver over MMIO, it is secured; armed by a CB (any queue, external ones
 * included), it is a write by the context that armed it (GSIM_REQ_SYNC),
 * bound at arm time to that context's entry of the payload rights table
 * (gsim_sync_rights.c) and checked where it lands: its own SOBs, the
 * fences of its queues, its memory; never a monitor's configuration, so
 * such payloads do not arm monitors. A refused payload of a CB-armed
 * monitor also fails the write that triggered it (see gsim_dev_write32()),
 * so the job responsible ends in an error.
 */
#include <inttypes.h>

#include "gsim_core_internal.h"
#include "hw/gaudisim_hw_pkt_legal.h"

#define SOB_FIRST	GAUDISIM_SYNC_SOB_OBJ(0)
#define SOB_END		GAUDISIM_SYNC_SOB_OBJ(GAUDISIM_SYNC_NUM_SOBS)
#define MON_ARRAY_SIZE	(4 * GAUDISIM_SYNC_NUM_MONITORS)

enum mon_reg {
	MON_NONE,
	MON_ADDRL,
	MON_ADDRH,
	MON_DATA,
	MON_ARM,
	MON_STATUS,
};

static const struct {
	uint32_t base;
	enum mon_reg reg;
} mon_arrays[] = {
	{ GAUDISIM_SYNC_MON_PAY_ADDRL(0), MON_ADDRL },
	{ GAUDISIM_SYNC_MON_PAY_ADDRH(0), MON_ADDRH },
	{ GAUDISIM_SYNC_MON_PAY_DATA(0), MON_DATA },
	{ GAUDISIM_SYNC_MON_ARM(0), MON_ARM },
	{ GAUDISIM_SYNC_MON_STATUS(0), MON_STATUS },
};

static enum mon_reg mon_decode(uint32_t off, unsigned int *m)
{
	size_t i;

	for (i = 0; i < sizeof(mon_arrays) / sizeof(mon_arrays[0]); i++) {
		if (off >= mon_arrays[i].base && off < mon_arrays[i].base + MON_ARRAY_SIZE) {
			*m = (off - mon_arrays[i].base) / 4;
			return mon_arrays[i].reg;
		}
	}
	return MON_NONE;
}

void gsim_sync_reset(struct gsim_core *core)
{
	core->sync = (struct gsim_sync){ 0 };
}

static unsigned int arm_group(uint32_t arm)
{
	return arm & GAUDISIM_SYNC_MON_GROUP_MASK;
}

static bool mon_armed(const struct gsim_monitor *mon)
{
	return mon->status & GAUDISIM_SYNC_MON_STATUS_ARMED;
}

/* Every watched SOB of the group meets the condition. */
static bool mon_satisfied(const struct gsim_sync *sync, const struct gsim_monitor *mon)
{
	unsigned int group = arm_group(mon->arm), i;
	uint32_t mask = (mon->arm & GAUDISIM_SYNC_MON_MASK_MASK) >> GAUDISIM_SYNC_MON_MASK_SHIFT;
	uint32_t value = (mon->arm & GAUDISIM_SYNC_MON_VALUE_MASK) >> GAUDISIM_SYNC_MON_VALUE_SHIFT;
	bool eq = mon->arm & GAUDISIM_SYNC_MON_MODE_EQ;

	for (i = 0; i < GAUDISIM_SYNC_SOBS_PER_GROUP; i++) {
		uint32_t sob = sync->sob[group * GAUDISIM_SYNC_SOBS_PER_GROUP + i];

		if (mask & (1u << i))
			continue;
		if (eq ? sob != value : sob < value)
			return false;
	}
	return true;
}

static void mon_disarm(struct gsim_sync *sync, struct gsim_monitor *mon)
{
	if (!mon_armed(mon))
		return;
	mon->status &= ~GAUDISIM_SYNC_MON_STATUS_ARMED;
	sync->armed[arm_group(mon->arm)]--;
}

static void mon_failed(struct gsim_core *core, unsigned int m, uint64_t addr, int code,
		       const char *why)
{
	struct gsim_monitor *mon = &core->sync.mon[m];
	int engine = mon->pay_queue < GAUDISIM_QUEUE_ID_SIZE ?
		     gaudisim_queue_engine(mon->pay_queue) : -1;
	struct gsim_event ev = {
		.type = GAUDISIM_EQ_EVENT_SYNC_ERR,
		.engine = engine >= 0 ? (uint32_t)engine : GAUDISIM_EQ_NONE,
		.queue = mon->pay_queue,
		.code = (uint32_t)code,
		.addr = addr,
		.data = { m, mon->pay_asid },
	};

	mon->status |= GAUDISIM_SYNC_MON_STATUS_ERR;
	if (mon->pay_secured)
		gsim_log(core, "sync manager: monitor %u payload 0x%x to 0x%" PRIx64 " failed: "
			 "%s (error %d)", m, mon->pay_data, addr, why, code);
	else
		gsim_log(core, "sync manager: monitor %u (armed by queue %u, ASID %u) payload "
			 "0x%x to 0x%" PRIx64 " refused: %s (error %d)", m, mon->pay_queue,
			 mon->pay_asid, mon->pay_data, addr, why, code);
	gsim_eq_post_event(core, &ev);
	/* The write that triggered a CB-armed monitor answers for it. */
	if (!mon->pay_secured && !core->sync.denied)
		core->sync.denied = code;
}

/* The monitor takes the rights of the requester arming it (see the top). */
static void mon_take_rights(struct gsim_core *core, unsigned int m)
{
	struct gsim_monitor *mon = &core->sync.mon[m];
	unsigned int req = core->requester;

	mon->pay_secured = req == GSIM_REQ_MMIO;
	mon->pay_queue = req < GAUDISIM_QUEUE_ID_SIZE ? req : GAUDISIM_EQ_NONE;
	mon->pay_asid = 0;
	mon->pay_gen = 0;
	if (!mon->pay_secured)
		gsim_sync_rights_bind(core, m, req, &mon->pay_asid, &mon->pay_gen);
}

/* The condition holds: write the payload once and disarm. */
static void mon_fire(struct gsim_core *core, unsigned int m, unsigned int *kick)
{
	struct gsim_sync *sync = &core->sync;
	struct gsim_monitor *mon = &sync->mon[m];
	uint64_t addr = (uint64_t)mon->pay_addr_hi << 32 | mon->pay_addr_lo;
	unsigned int saved = core->requester;
	unsigned int saved_asid = sync->fire_asid, saved_queue = sync->fire_queue;
	uint32_t saved_gen = sync->fire_gen;
	const char *why = "";
	int rc;

	mon_disarm(sync, mon);
	mon->status |= GAUDISIM_SYNC_MON_STATUS_FIRED;
	if (sync->depth >= GAUDISIM_SYNC_MAX_CHAIN) {
		mon_failed(core, m, addr, GAUDISIM_CP_ERR_PKT_FIELD,
			   "monitors trigger each other too deep");
		return;
	}
	/* Cleared first: a nested firing of the same monitor may fail after us. */
	mon->status &= ~GAUDISIM_SYNC_MON_STATUS_ERR;
	/* The rights of whoever armed it, never those of the trigger. */
	core->requester = mon->pay_secured ? GSIM_REQ_MMIO : GSIM_REQ_SYNC;
	sync->fire_asid = mon->pay_asid;
	sync->fire_gen = mon->pay_gen;
	sync->fire_queue = mon->pay_queue;
	sync->depth++;
	rc = gsim_dev_write32(core, addr, mon->pay_data, kick, &why);
	sync->depth--;
	core->requester = saved;
	sync->fire_asid = saved_asid;
	sync->fire_gen = saved_gen;
	sync->fire_queue = saved_queue;
	if (rc)
		mon_failed(core, m, addr, rc, why);
}

/* A SOB of group changed: fire every armed monitor of the group that holds. */
static void check_group(struct gsim_core *core, unsigned int group, unsigned int *kick)
{
	struct gsim_sync *sync = &core->sync;
	unsigned int m;

	for (m = 0; m < GAUDISIM_SYNC_NUM_MONITORS && sync->armed[group]; m++) {
		struct gsim_monitor *mon = &sync->mon[m];

		/* Re-read every time: a payload may have changed any monitor. */
		if (mon_armed(mon) && arm_group(mon->arm) == group && mon_satisfied(sync, mon))
			mon_fire(core, m, kick);
	}
}

static enum gsim_reg_status sob_write(struct gsim_core *core, unsigned int n, uint32_t value,
				      enum gsim_reg_origin origin, unsigned int *kick)
{
	struct gsim_sync *sync = &core->sync;
	uint32_t v = value & GAUDISIM_SYNC_SOB_VALUE_MASK;

	if (!gaudisim_sob_update_legal(value)) {
		if (origin == GSIM_ORIGIN_MMIO)
			gsim_log(core, "sync manager: SOB %u update 0x%08x: bits [29:15] must "
				 "be 0", n, value);
		return GSIM_REG_BAD_VALUE;
	}
	if (value & GAUDISIM_SYNC_SOB_INC)
		v = (sync->sob[n] + v) & GAUDISIM_SYNC_SOB_MAX;
	sync->sob[n] = (uint16_t)v;
	check_group(core, n / GAUDISIM_SYNC_SOBS_PER_GROUP, kick);
	return GSIM_REG_OK;
}

static enum gsim_reg_status mon_arm(struct gsim_core *core, unsigned int m, uint32_t value,
				    enum gsim_reg_origin origin, unsigned int *kick)
{
	struct gsim_sync *sync = &core->sync;
	struct gsim_monitor *mon = &sync->mon[m];

	if (!gaudisim_mon_arm_legal(value)) {
		if (origin == GSIM_ORIGIN_MMIO)
			gsim_log(core, "sync manager: monitor %u arm 0x%08x: the mask watches "
				 "no sync object", m, value);
		return GSIM_REG_BAD_VALUE;
	}
	mon_disarm(sync, mon);
	mon_take_rights(core, m);
	mon->arm = value;
	mon->status = GAUDISIM_SYNC_MON_STATUS_ARMED;
	sync->armed[arm_group(value)]++;
	/* Armed when already true: it fires at once. */
	if (mon_satisfied(sync, mon))
		mon_fire(core, m, kick);
	return GSIM_REG_OK;
}

bool gsim_sync_reg_read(struct gsim_core *core, uint32_t off, uint32_t *value)
{
	const struct gsim_sync *sync = &core->sync;
	unsigned int m;

	*value = 0;
	if (off % 4)
		return false;
	if (off >= SOB_FIRST && off < SOB_END) {
		*value = sync->sob[(off - SOB_FIRST) / 4];
		return true;
	}
	if (gsim_sync_rights_reg(off))
		return gsim_sync_rights_read(core, off, value);
	switch (mon_decode(off, &m)) {
	case MON_ADDRL:
		*value = sync->mon[m].pay_addr_lo;
		return true;
	case MON_ADDRH:
		*value = sync->mon[m].pay_addr_hi;
		return true;
	case MON_DATA:
		*value = sync->mon[m].pay_data;
		return true;
	case MON_ARM:
		*value = sync->mon[m].arm;
		return true;
	case MON_STATUS:
		*value = sync->mon[m].status;
		return true;
	case MON_NONE:
		break;
	}
	return false;
}

enum gsim_reg_status gsim_sync_reg_write(struct gsim_core *core, uint32_t off, uint32_t value,
					 enum gsim_reg_origin origin, unsigned int *kick)
{
	struct gsim_sync *sync = &core->sync;
	unsigned int m;

	if (off % 4)
		return GSIM_REG_UNKNOWN;
	if (off >= SOB_FIRST && off < SOB_END)
		return sob_write(core, (off - SOB_FIRST) / 4, value, origin, kick);
	if (gsim_sync_rights_reg(off))
		return gsim_sync_rights_write(core, off, value, origin);
	/* No payload of a CB-armed monitor configures a monitor, its own included. */
	if (core->requester == GSIM_REQ_SYNC && mon_decode(off, &m) != MON_NONE)
		return GSIM_REG_PROTECTED;
	switch (mon_decode(off, &m)) {
	case MON_ADDRL:
		sync->mon[m].pay_addr_lo = value;
		return GSIM_REG_OK;
	case MON_ADDRH:
		sync->mon[m].pay_addr_hi = value;
		return GSIM_REG_OK;
	case MON_DATA:
		sync->mon[m].pay_data = value;
		return GSIM_REG_OK;
	case MON_ARM:
		return mon_arm(core, m, value, origin, kick);
	case MON_STATUS:
		/* The driver disarms a monitor by clearing its status. */
		if (origin != GSIM_ORIGIN_MMIO)
			return GSIM_REG_READ_ONLY;
		if (value) {
			gsim_log(core, "sync manager: monitor %u status 0x%08x: only 0 (disarm) "
				 "may be written", m, value);
			return GSIM_REG_BAD_VALUE;
		}
		mon_disarm(sync, &sync->mon[m]);
		sync->mon[m].status = 0;
		return GSIM_REG_OK;
	case MON_NONE:
		break;
	}
	return GSIM_REG_UNKNOWN;
}
