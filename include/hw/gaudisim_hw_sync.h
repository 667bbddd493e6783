/* SPDX-License-Identifier: MIT */
/*
 * gaudisim hardware contract: the sync manager (sync objects and monitors).
 *
 * Gaudi has four sync-manager blocks (W_S, W_N, E_S, E_N) of 2048 sync
 * objects and 512 monitors each; gaudisim models one such block, at
 * GAUDISIM_BLOCK_SYNC_MNGR, with the same register layout as a Gaudi block
 * relative to its base. Everything Gaudi software spreads over the four
 * blocks (driver sync streams, collectives, user synchronisation) lives in
 * this one, in the ranges reserved below.
 *
 * Sync object (SOB): a 15-bit counter. A 32-bit write to SOB_OBJ(n) - from
 * MMIO, a MSG_SHORT/MSG_LONG, a monitor payload or an engine completion
 * message - uses the "so_upd" format: SOB_VALUE [14:0] and SOB_INC [31]:
 * INC 0 sets the counter to VALUE, INC 1 adds VALUE modulo 2^15. Bit 30
 * (Gaudi's trace enable) is accepted and ignored; bits [29:15] must be 0.
 * A read returns the counter.
 *
 * Monitor: watches up to 8 SOBs of one group (SOBs 8*group .. 8*group+7).
 * MON_PAY_ADDRL/H and MON_PAY_DATA hold the payload: a 32-bit write of DATA
 * to the device address ADDRH:ADDRL (usually CFG_BASE + a QMAN's
 * CP_FENCE_RDATA register, which adds DATA to that fence counter; it may
 * also be HBM, SRAM or host memory). Writing MON_ARM (the "mon_arm"
 * format: group, mask, mode, value) arms the monitor. An armed monitor is
 * satisfied when every watched SOB (mask bit 0) is >= value (mode 0) or
 * == value (mode 1). It is checked when it is armed and whenever a
 * watched SOB changes; when satisfied it writes its payload once and
 * disarms. Re-arming replaces the previous arm. A payload write that
 * fails (bad address, host fault, register refused) sets MON_STATUS.ERR
 * and posts a sync-manager event; so does a chain of monitors that arm
 * each other more than GAUDISIM_SYNC_MAX_CHAIN deep (the payload at that
 * depth is dropped).
 *
 * Payload rights: the payload is written with the rights of whoever
 * armed the monitor. Armed over MMIO (the driver), it is a secured write.
 * Armed by a CB - of any queue, external ones included - it is a write by
 * the context that armed it, allowed only what the payload rights table
 * below grants that context (its SOBs, the fences of its queues, its
 * memory), and never reserved HBM or the physical host window. Device VAs
 * translate with that context's ASID. Such a refused payload also fails
 * the write that set the monitor off (the CB's MSG_SHORT/MSG_LONG or the
 * engine's completion message), with the code of the refusal. A payload
 * never writes a monitor's configuration, so monitors no longer arm each
 * other through CB-armed payloads; driver-armed ones still may.
 *
 * MON_STATUS is read-only to CBs; an MMIO write of 0 disarms the monitor
 * and clears its status (the driver does so when a user closes).
 *
 * Offsets are relative to GAUDISIM_BLOCK_SYNC_MNGR; device address =
 * GAUDISIM_CFG_BASE + GAUDISIM_BLOCK_SYNC_MNGR + offset.
 */
#ifndef GAUDISIM_HW_SYNC_H
#define GAUDISIM_HW_SYNC_H

#include "gaudisim_hw_regs.h"

#define GAUDISIM_SYNC_NUM_SOBS		2048
#define GAUDISIM_SYNC_NUM_MONITORS	512
#define GAUDISIM_SYNC_SOBS_PER_GROUP	8
#define GAUDISIM_SYNC_SOB_MAX		0x7fffu		/* 15-bit counters */

/* ---- Register layout (Gaudi's, relative to the block) ------------------ */

#define GAUDISIM_SYNC_SOB_OBJ(n)	(0x2000 + 4 * (n))	/* RW */
#define GAUDISIM_SYNC_MON_PAY_ADDRL(m)	(0x4000 + 4 * (m))	/* RW */
#define GAUDISIM_SYNC_MON_PAY_ADDRH(m)	(0x4800 + 4 * (m))	/* RW */
#define GAUDISIM_SYNC_MON_PAY_DATA(m)	(0x5000 + 4 * (m))	/* RW */
#define GAUDISIM_SYNC_MON_ARM(m)	(0x5800 + 4 * (m))	/* RW: reads the last arm */
#define GAUDISIM_SYNC_MON_STATUS(m)	(0x6000 + 4 * (m))	/* RO; MMIO 0 disarms */

/*
 * The usual CP_MSG_BASE targets: base 0 at the monitor arrays (a MSG_SHORT
 * offset then selects ADDRL/ADDRH/DATA/ARM of monitor m as
 * GAUDISIM_SYNC_MON_PAY_ADDRL(m) - GAUDISIM_SYNC_MON_BASE_OFFSET etc.) and
 * base 1 at the SOB array (offset 4 * sob), as Gaudi's driver sets them.
 */
#define GAUDISIM_SYNC_MON_BASE_OFFSET	GAUDISIM_SYNC_MON_PAY_ADDRL(0)
#define GAUDISIM_SYNC_SOB_BASE_OFFSET	GAUDISIM_SYNC_SOB_OBJ(0)
#define GAUDISIM_SYNC_MON_BASE_ADDR \
	(GAUDISIM_CFG_BASE + GAUDISIM_BLOCK_SYNC_MNGR + GAUDISIM_SYNC_MON_BASE_OFFSET)
#define GAUDISIM_SYNC_SOB_BASE_ADDR \
	(GAUDISIM_CFG_BASE + GAUDISIM_BLOCK_SYNC_MNGR + GAUDISIM_SYNC_SOB_BASE_OFFSET)

/* ---- Sync-object update word ("so_upd") -------------------------------- */

#define GAUDISIM_SYNC_SOB_VALUE_MASK	0x7fffu
#define GAUDISIM_SYNC_SOB_TE		(1u << 30)	/* ignored */
#define GAUDISIM_SYNC_SOB_INC		(1u << 31)	/* add instead of set */
#define GAUDISIM_SYNC_SOB_RESERVED_MASK	0x3fff8000u
#define GAUDISIM_SYNC_SOB_SET(v)	((v) & GAUDISIM_SYNC_SOB_VALUE_MASK)
#define GAUDISIM_SYNC_SOB_ADD(v) \
	(GAUDISIM_SYNC_SOB_INC | ((v) & GAUDISIM_SYNC_SOB_VALUE_MASK))

/* ---- Monitor arm word ("mon_arm") -------------------------------------- */

#define GAUDISIM_SYNC_MON_GROUP_MASK	0xffu		/* SOBs 8*group .. +7 */
#define GAUDISIM_SYNC_MON_MASK_SHIFT	8		/* bit i = 0: SOB i watched */
#define GAUDISIM_SYNC_MON_MASK_MASK	(0xffu << GAUDISIM_SYNC_MON_MASK_SHIFT)
#define GAUDISIM_SYNC_MON_MODE_EQ	(1u << 16)	/* 0: >=, 1: == */
#define GAUDISIM_SYNC_MON_VALUE_SHIFT	17
#define GAUDISIM_SYNC_MON_VALUE_MASK	(0x7fffu << GAUDISIM_SYNC_MON_VALUE_SHIFT)
#define GAUDISIM_SYNC_MON_ARM_VALUE(group, mask, eq, value) \
	(((group) & GAUDISIM_SYNC_MON_GROUP_MASK) | \
	 ((mask) & 0xffu) << GAUDISIM_SYNC_MON_MASK_SHIFT | \
	 ((eq) ? GAUDISIM_SYNC_MON_MODE_EQ : 0) | \
	 ((value) & 0x7fffu) << GAUDISIM_SYNC_MON_VALUE_SHIFT)
/* Arm word watching exactly SOB n. */
#define GAUDISIM_SYNC_MON_ARM_SOB(n, eq, value) \
	GAUDISIM_SYNC_MON_ARM_VALUE((n) / GAUDISIM_SYNC_SOBS_PER_GROUP, \
				    ~(1u << ((n) % GAUDISIM_SYNC_SOBS_PER_GROUP)), eq, value)

/* ---- MON_STATUS ----------------------------------------------------------- */

#define GAUDISIM_SYNC_MON_STATUS_ARMED	(1u << 0)	/* waiting for its condition */
#define GAUDISIM_SYNC_MON_STATUS_FIRED	(1u << 1)	/* payload written since the arm */
#define GAUDISIM_SYNC_MON_STATUS_ERR	(1u << 2)	/* the last payload write failed */

/* Monitors arming monitors through payloads: deepest chain that runs. */
#define GAUDISIM_SYNC_MAX_CHAIN		16

/*
 * ---- Payload rights table -------------------------------------------------
 *
 * A payload of a monitor armed by a CB is a write by the context that armed
 * it, with that context's protection bits, checked where it lands like any
 * other bus write. The driver tells the device what each context owns: one
 * entry per MMU ASID, programmed over MMIO when a context opens (and after
 * every hard reset, which clears the table), cleared when it closes. Entry 0
 * is the driver's own, for the monitors its CBs arm on the external queues.
 * CBs and payloads may not write the table.
 *
 * A payload may write, and nothing else:
 *   - SOB_OBJ(n) for SOB_FIRST <= n < SOB_END;
 *   - CP_FENCE_RDATA(f, s) of a queue whose bit is set in QUEUES(0..3)
 *     (bit q % 32 of word q / 32, q the queue ID of stream s);
 *   - USER_INTR (gaudisim_hw_regs.h) with an interrupt ID whose bit is set
 *     in USER_INTR (bit id - GAUDISIM_MSIX_VEC_USER_FIRST);
 *   - HBM in [HBM_BASE, HBM_BASE + HBM_SIZE), SRAM if CTRL.SRAM, and host
 *     memory through the device MMU with the entry's ASID.
 * Every other register - monitor configuration included, the payload's own
 * monitor's too, other QMAN registers, engines, MMU, NIC - is refused
 * (PRIV), as is memory outside the entry. A refused payload sets
 * MON_STATUS.ERR, posts a SYNC_ERR event and fails the write that
 * triggered it.
 *
 * Whose entry a monitor armed by a CB uses is fixed when it is armed: the
 * arming queue's MMU ASID if it has one (GAUDISIM_MMU_QUEUE_ASID); else the
 * valid entry whose monitor range holds the monitor (the driver only lets a
 * context's CBs arm monitors of its range); else, for an external queue,
 * entry 0; else none (every payload refused). Writing CTRL ends the
 * entry's generation: monitors armed under an earlier one, e.g. by a
 * context that has since closed, have no rights at all.
 */
#define GAUDISIM_SYNC_RIGHTS_BASE	0x8000
#define GAUDISIM_SYNC_RIGHTS_STRIDE	0x40
#define GAUDISIM_SYNC_RIGHTS_ENTRIES	8	/* one per MMU ASID */
#define GAUDISIM_SYNC_RIGHTS(asid, reg) \
	(GAUDISIM_SYNC_RIGHTS_BASE + GAUDISIM_SYNC_RIGHTS_STRIDE * (asid) + (reg))
#define GAUDISIM_RIGHTS_CTRL		0x00	/* RW, written last */
#define GAUDISIM_RIGHTS_CTRL_VALID	(1u << 0)
#define GAUDISIM_RIGHTS_CTRL_SRAM	(1u << 1)
#define GAUDISIM_RIGHTS_SOB_FIRST	0x04
#define GAUDISIM_RIGHTS_SOB_END		0x08	/* exclusive */
#define GAUDISIM_RIGHTS_MON_FIRST	0x0C
#define GAUDISIM_RIGHTS_MON_END		0x10	/* exclusive */
#define GAUDISIM_RIGHTS_QUEUES(i)	(0x14 + 4 * (i))	/* i < 4: queue IDs 32i.. */
#define GAUDISIM_RIGHTS_QUEUE_WORDS	4
#define GAUDISIM_RIGHTS_HBM_BASE_LO	0x24
#define GAUDISIM_RIGHTS_HBM_BASE_HI	0x28
#define GAUDISIM_RIGHTS_HBM_SIZE_LO	0x2C
#define GAUDISIM_RIGHTS_HBM_SIZE_HI	0x30
#define GAUDISIM_RIGHTS_USER_INTR	0x34	/* bit i: user interrupt VEC_USER_FIRST + i */

/*
 * ---- Reserved ranges (Gaudi's, kept so software ports 1:1) --------------
 * SOBs 0..127 and monitors 0..63: collectives. SOBs 128..143 and monitors
 * 64..71: the driver's sync streams (2 SOBs and 1 monitor per external
 * queue). Users start at SOB 144 and monitor 72. Monitors 200..211 are
 * reserved (Gaudi's firmware). The device does not enforce the ranges.
 */
#define GAUDISIM_SYNC_COLLECTIVE_SOB_FIRST	0
#define GAUDISIM_SYNC_COLLECTIVE_MON_FIRST	0
#define GAUDISIM_SYNC_DRIVER_SOB_FIRST		128
#define GAUDISIM_SYNC_DRIVER_MON_FIRST		64
#define GAUDISIM_SYNC_FIRST_USER_SOB		144
#define GAUDISIM_SYNC_FIRST_USER_MON		72
#define GAUDISIM_SYNC_RESERVED_MON_FIRST	200
#define GAUDISIM_SYNC_RESERVED_MON_LAST		211

#endif /* GAUDISIM_HW_SYNC_H */
