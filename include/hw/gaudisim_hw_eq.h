/* SPDX-License-Identifier: MIT */
/*
 * gaudisim hardware contract: the event queue (EQ).
 *
 * The device reports asynchronous events - engine and queue errors, MMU
 * faults, engine timeouts, ECC errors, thermal events, heartbeats - in a
 * ring of 64-byte entries in host memory, like Gaudi's firmware event
 * queue. The driver allocates the ring (coherent memory), writes
 * EQ_BASE_LO/HI (plain bus address, as PQ_BASE), EQ_SIZE (log2 entries),
 * EQ_CI = 0 and sets EQ_CTL.ENABLE. The device writes each event at
 * entry PI % entries with READY set in ctl (written last), advances EQ_PI,
 * and raises MSI-X vector GAUDISIM_MSIX_VEC_EQ once per batch of events
 * (events posted by one register access or one run of the engines). The
 * driver consumes entries while READY is set, clears READY, and writes the
 * new EQ_CI. EQ_PI and EQ_CI count modulo 2 * entries. When the ring is
 * full, or the EQ is disabled, or the entry cannot be written, the event
 * is dropped and counted in EQ_DROP_CNT; EQ_STS.OVERFLOW latches until
 * the EQ is disabled.
 *
 * Offsets are relative to GAUDISIM_BLOCK_EQ. A hard reset disables the EQ
 * and clears every register; the driver programs it again.
 */
#ifndef GAUDISIM_HW_EQ_H
#define GAUDISIM_HW_EQ_H

#include "gaudisim_hw_regs.h"

/* ---- Registers ------------------------------------------------------------ */

#define GAUDISIM_EQ_BASE_LO		0x000	/* bus address, entry-aligned */
#define GAUDISIM_EQ_BASE_HI		0x004
#define GAUDISIM_EQ_SIZE		0x008	/* log2(entries) */
#define GAUDISIM_EQ_PI			0x00C	/* RO */
#define GAUDISIM_EQ_CI			0x010	/* driver writes */
#define GAUDISIM_EQ_CTL			0x014
#define GAUDISIM_EQ_CTL_ENABLE		(1u << 0)
#define GAUDISIM_EQ_STS			0x018	/* RO */
#define GAUDISIM_EQ_STS_OVERFLOW	(1u << 0)	/* an event was dropped */
#define GAUDISIM_EQ_DROP_CNT		0x01C	/* RO: events dropped */
#define GAUDISIM_EQ_EVENT_CNT		0x020	/* RO: events written */
/*
 * WO: request a heartbeat. The device answers with a HEARTBEAT event whose
 * data[0] is the value written (the driver's sequence number).
 */
#define GAUDISIM_EQ_HEARTBEAT		0x024

/* BASE, SIZE and the enable may change only while the EQ is disabled. */
#define GAUDISIM_EQ_SIZE_LOG2_MIN	1
#define GAUDISIM_EQ_SIZE_LOG2_MAX	12

/* ---- Entry ------------------------------------------------------------------ */

#define GAUDISIM_EQ_DATA_WORDS		8

struct gaudisim_eq_entry {
	unsigned int ctl;		/* READY, TYPE, INDEX */
	unsigned int engine;		/* GAUDISIM_ENGINE_*, or GAUDISIM_EQ_NONE */
	unsigned int queue;		/* queue ID, or GAUDISIM_EQ_NONE */
	unsigned int code;		/* type-specific error code */
	unsigned long long addr;	/* address involved, 0 if none */
	unsigned long long timestamp;	/* device clock (ns) when posted */
	unsigned int data[GAUDISIM_EQ_DATA_WORDS];	/* type-specific */
};

#define GAUDISIM_EQ_ENTRY_SIZE		64
#define GAUDISIM_EQ_CTL_READY		(1u << 31)
#define GAUDISIM_EQ_CTL_TYPE_SHIFT	16
#define GAUDISIM_EQ_CTL_TYPE_MASK	(0xfffu << GAUDISIM_EQ_CTL_TYPE_SHIFT)
#define GAUDISIM_EQ_CTL_INDEX_MASK	0xffffu		/* event sequence number */
#define GAUDISIM_EQ_CTL_TYPE(ctl) \
	(((ctl) & GAUDISIM_EQ_CTL_TYPE_MASK) >> GAUDISIM_EQ_CTL_TYPE_SHIFT)
#define GAUDISIM_EQ_NONE		0xffffffffu

/*
 * Event types (ctl [27:16]) and what the fields carry. INDEX counts every
 * event written since the EQ was enabled (mod 2^16), so a gap shows drops.
 */
enum gaudisim_eq_event_type {
	/* A CB or PQ entry failed in a QMAN: code GAUDISIM_CP_ERR_*, engine,
	 * queue, addr = CB address (bus address of the entry for PQ errors),
	 * data[0] = offset of the packet in the CB, data[1] = opcode. */
	GAUDISIM_EQ_EVENT_QMAN_ERR = 1,
	/* A transfer or message failed: as QMAN_ERR, code DMA_ADDR or
	 * HOST_FAULT. */
	GAUDISIM_EQ_EVENT_DMA_ERR = 2,
	/* A device MMU translation failed: addr = VA, code = cause,
	 * engine/queue of the access, data[0] = ASID, data[1] = 1 for a write. */
	GAUDISIM_EQ_EVENT_MMU_FAULT = 3,
	/* A launched engine exceeded its watchdog: engine, code = engine
	 * error code. */
	GAUDISIM_EQ_EVENT_ENGINE_TIMEOUT = 4,
	/* A launched engine refused or failed its work: engine, queue of the
	 * launch, code = engine error code (e.g. GAUDISIM_MME_ERR_*). */
	GAUDISIM_EQ_EVENT_ENGINE_ERR = 5,
	/* HBM ECC: addr = device address, data[0] = count. */
	GAUDISIM_EQ_EVENT_ECC_CORRECTABLE = 6,
	GAUDISIM_EQ_EVENT_ECC_UNCORRECTABLE = 7,
	/* Thermal: data[0] = temperature (m°C), code = 1 throttling on,
	 * 0 off, 2 critical. */
	GAUDISIM_EQ_EVENT_THERMAL = 8,
	/* Answer to GAUDISIM_EQ_HEARTBEAT: data[0] = the value written. */
	GAUDISIM_EQ_EVENT_HEARTBEAT = 9,
	/* An engine soft reset finished: engine. */
	GAUDISIM_EQ_EVENT_RESET_DONE = 10,
	/* A monitor's payload write failed or its chain was too deep:
	 * data[0] = monitor, addr = payload address, code GAUDISIM_CP_ERR_*;
	 * engine/queue = the queue whose CB armed it (NONE: armed over MMIO),
	 * data[1] = the ASID the payload was written with. */
	GAUDISIM_EQ_EVENT_SYNC_ERR = 11,
	/* A stream executed STOP: engine, queue, addr = CB address. */
	GAUDISIM_EQ_EVENT_QMAN_STOP = 12,
	/* A NIC port refused an incoming write or lost a transfer: engine =
	 * the port's NIC engine, code GAUDISIM_NIC_ERR_*, addr = the target
	 * HBM address, data[0] = the peer's module ID, data[1] = SOB index. */
	GAUDISIM_EQ_EVENT_NIC_ERR = 13,
	/* A NIC link went up (code 1) or down (code 0): engine = the port's
	 * NIC engine, data[0] = the peer's module ID. */
	GAUDISIM_EQ_EVENT_NIC_LINK = 14,
	GAUDISIM_EQ_EVENT_MAX = 0xfff,
};

#endif /* GAUDISIM_HW_EQ_H */
