/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: the device MMU (hw/gaudisim_hw_mmu.h is the register
 * and page-table contract, docs/mmu.md the description).
 *
 * Who calls what:
 *  - the register file forwards GAUDISIM_BLOCK_MMU offsets to
 *    gsim_mmu_reg_read() / gsim_mmu_reg_write();
 *  - the packet processor and the engines translate every device address
 *    in the VA range with gsim_mmu_translate() (or move data with
 *    gsim_mmu_host_read() / gsim_mmu_host_write()), using the ASID of the
 *    queue that issued the work, gsim_mmu_queue_asid();
 *  - a translation fault is recorded here (FAULT_* registers); the caller
 *    fails the job and posts the MMU-fault event with the address.
 */
#ifndef GSIM_MMU_H
#define GSIM_MMU_H

#include <stdbool.h>
#include <stdint.h>

#include "gsim_core_internal.h"
#include "hw/gaudisim_hw_mmu.h"

#define GSIM_MMU_TLB_ENTRIES	64	/* direct-mapped */

/* The last fault, as the FAULT_* registers show it. */
struct gsim_mmu_fault {
	bool valid;
	unsigned int cause;	/* GAUDISIM_MMU_CAUSE_* */
	unsigned int asid;
	unsigned int hop;	/* hop of the PTE that failed, 0 if none */
	bool write;
	uint64_t va;
};

/* Lifecycle, called by gsim_core.c. */
struct gsim_mmu *gsim_mmu_new(void);
void gsim_mmu_free(struct gsim_mmu *mmu);
/* Hard reset: MMU off, no tables, empty TLB, counters and capture cleared. */
void gsim_mmu_reset(struct gsim_core *core);

/* Register block (offsets inside GAUDISIM_BLOCK_MMU). */
uint32_t gsim_mmu_reg_read(struct gsim_core *core, uint32_t offset);
enum gsim_reg_status gsim_mmu_reg_write(struct gsim_core *core, uint32_t offset,
					uint32_t value, enum gsim_reg_origin origin);

/* True when addr is a device VA that the MMU would translate. */
bool gsim_mmu_is_va(uint64_t addr);
/*
 * Trust rule for a requester (core->requester: a queue ID or GSIM_REQ_*):
 * only secured requesters - the external queues, whose CBs the driver
 * builds or copies, and the driver itself through the register BAR - may
 * use the physical host window. Everyone else (internal queues and the
 * engine jobs they start, monitors armed by user CBs) reaches host memory
 * through the MMU only.
 */
bool gsim_mmu_phys_host_allowed(unsigned int requester);
/* ASID of a queue (MMU_QUEUE_ASID register); 0 (the driver's) for any
 * other requester. */
unsigned int gsim_mmu_queue_asid(const struct gsim_core *core, unsigned int requester);
bool gsim_mmu_enabled(const struct gsim_core *core);

/*
 * Translate the device VA va for an access of len bytes (len 0 is treated
 * as 1). Returns 0 with *bus_addr = host bus address of va and *contig_len
 * = how many of the len bytes are mapped contiguously from there (at least
 * one byte, at most len; physically adjacent pages are merged, and the run
 * stops before a page that would fault), or a GAUDISIM_MMU_CAUSE_* when va
 * itself cannot be accessed: the fault is then recorded (FAULT_* registers,
 * FAULT_CNT) and the caller fails the job and posts the event.
 */
int gsim_mmu_translate(struct gsim_core *core, unsigned int asid, uint64_t va,
		       uint64_t len, bool write, uint64_t *bus_addr, uint64_t *contig_len);

/*
 * Check that all of [va, va + len) is accessible, without moving data.
 * Returns 0 or the cause, with the first faulting address in *fault_va.
 */
int gsim_mmu_check(struct gsim_core *core, unsigned int asid, uint64_t va,
		   uint64_t len, bool write, uint64_t *fault_va);

/*
 * Move data between host memory at device VA va and buf, chunk by chunk
 * through the host's dma_read/dma_write. Returns 0; a
 * GAUDISIM_MMU_CAUSE_* when a translation faulted (recorded, *fault_va set;
 * bytes before the faulting page may have moved); or -1 when the host
 * refused a bus access (e.g. Bus Master Enable off), *fault_va set.
 */
int gsim_mmu_host_read(struct gsim_core *core, unsigned int asid, uint64_t va,
		       void *buf, uint64_t len, uint64_t *fault_va);
int gsim_mmu_host_write(struct gsim_core *core, unsigned int asid, uint64_t va,
			const void *buf, uint64_t len, uint64_t *fault_va);

/*
 * Post the last recorded fault to the event queue as
 * GAUDISIM_EQ_EVENT_MMU_FAULT (addr = VA, code = cause, data[0] = ASID,
 * data[1] = 1 for a write), for the engine and queue that made the access
 * (GAUDISIM_EQ_NONE when none applies). Does nothing when no fault is
 * captured.
 */
void gsim_mmu_report_fault(struct gsim_core *core, uint32_t engine, uint32_t queue);

/* The last recorded fault (valid == false when none since the last clear). */
void gsim_mmu_last_fault(const struct gsim_core *core, struct gsim_mmu_fault *fault);
const char *gsim_mmu_cause_name(unsigned int cause);

#endif /* GSIM_MMU_H */
