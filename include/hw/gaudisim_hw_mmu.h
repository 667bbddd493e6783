/* SPDX-License-Identifier: MIT */
/*
 * gaudisim hardware contract: the device MMU for host memory.
 *
 * Engines reach host memory in two ways:
 *  - the physical host window (GAUDISIM_HOST_BASE + bus address), open only
 *    to the secured external queues, whose CBs the driver builds or copies;
 *  - device virtual addresses in [GAUDISIM_MMU_VA_BASE, + GAUDISIM_MMU_VA_SIZE),
 *    translated through per-ASID page tables that the driver keeps in the
 *    reserved part of HBM. Every other stream (internal queues, and through
 *    them the MME and TPC) must use this path.
 * The VA range starts above the end of the physical host window, so an
 * address is never both.
 *
 * Page tables follow Gaudi's PMMU: five hops of 512 eight-byte PTEs (one
 * 4 KiB table each). Hop h indexes VA bits [SHIFT(h) + 8 : SHIFT(h)];
 * hop 0 uses bits [56:48], of which only index 2 lies in the VA range.
 * A hop-4 entry maps a 4 KiB page; a hop-3 entry with LAST set maps a
 * 2 MiB page. Tables must lie inside the page-table area of reserved HBM.
 * docs/mmu.md describes the walk, the TLB and the fault registers.
 */
#ifndef GAUDISIM_HW_MMU_H
#define GAUDISIM_HW_MMU_H

#include "gaudisim_hw_queues.h"
#include "gaudisim_hw_regs.h"

/* ---- Address spaces ------------------------------------------------------ */

/* Device VAs for host memory: 2^49 + 48 bits of offset (= the uAPI's
 * GAUDISIM_HOST_VA_BASE/SIZE). */
#define GAUDISIM_MMU_VA_BASE		(2ULL << GAUDISIM_HOST_ADDR_BITS)
#define GAUDISIM_MMU_VA_SIZE		(1ULL << GAUDISIM_HOST_ADDR_BITS)

/*
 * Page-table area in reserved HBM, where Gaudi keeps its MMU tables
 * (after the 256 MiB firmware area, 191 MiB). Hop-0 tables and every table
 * a PTE points to must lie inside it.
 */
#define GAUDISIM_MMU_PGT_BASE		0x10000000ULL
#define GAUDISIM_MMU_PGT_SIZE		0x0BF00000ULL

#define GAUDISIM_MMU_NUM_ASIDS		8	/* ASID 0 is the driver's */
#define GAUDISIM_MMU_NUM_HOPS		5
#define GAUDISIM_MMU_HOP_ENTRIES	512
#define GAUDISIM_MMU_PTE_SIZE		8
#define GAUDISIM_MMU_HOP_TABLE_SIZE	(GAUDISIM_MMU_HOP_ENTRIES * GAUDISIM_MMU_PTE_SIZE)
#define GAUDISIM_MMU_HOP_SHIFT(h)	(48 - 9 * (h))	/* 48, 39, 30, 21, 12 */
#define GAUDISIM_MMU_HOP_INDEX(va, h) \
	(((va) >> GAUDISIM_MMU_HOP_SHIFT(h)) & (GAUDISIM_MMU_HOP_ENTRIES - 1))

#define GAUDISIM_MMU_PAGE_SHIFT		12
#define GAUDISIM_MMU_PAGE_SIZE		(1ULL << GAUDISIM_MMU_PAGE_SHIFT)	/* 4 KiB */
#define GAUDISIM_MMU_HUGE_PAGE_SHIFT	21
#define GAUDISIM_MMU_HUGE_PAGE_SIZE	(1ULL << GAUDISIM_MMU_HUGE_PAGE_SHIFT)	/* 2 MiB */
#define GAUDISIM_MMU_HUGE_HOP		3	/* a LAST PTE here maps 2 MiB */
#define GAUDISIM_MMU_LEAF_HOP		4	/* PTEs here always map 4 KiB */

/* ---- Page-table entries -------------------------------------------------- */

#define GAUDISIM_MMU_PTE_PRESENT	(1ULL << 0)
/* Leaf PTEs only: device writes allowed. Ignored in table PTEs. */
#define GAUDISIM_MMU_PTE_WRITABLE	(1ULL << 1)
/* Leaf marker: required for a 2 MiB page at hop 3, optional at hop 4. */
#define GAUDISIM_MMU_PTE_LAST		(1ULL << 11)
/*
 * Bits [47:12]: the next table's HBM address (table PTEs) or the page's
 * host bus address (leaf PTEs; bits [20:12] zero for 2 MiB pages).
 */
#define GAUDISIM_MMU_PTE_ADDR_MASK	0x0000FFFFFFFFF000ULL
/* Every other bit must be zero, or the walk faults with BAD_PTE. */
#define GAUDISIM_MMU_PTE_RESERVED_MASK \
	(~(GAUDISIM_MMU_PTE_ADDR_MASK | GAUDISIM_MMU_PTE_PRESENT | \
	   GAUDISIM_MMU_PTE_WRITABLE | GAUDISIM_MMU_PTE_LAST))

/* ---- Fault causes (FAULT_INFO[3:0], and gsim_mmu_translate's result) ---- */

#define GAUDISIM_MMU_CAUSE_NONE		0
#define GAUDISIM_MMU_CAUSE_NOT_PRESENT	1	/* a PTE on the walk is not present */
#define GAUDISIM_MMU_CAUSE_WRITE_PROT	2	/* write to a page without WRITABLE */
#define GAUDISIM_MMU_CAUSE_BAD_PTE	3	/* reserved bits, table outside the
						 * page-table area, misaligned page */
#define GAUDISIM_MMU_CAUSE_RANGE	4	/* address outside the VA range */
#define GAUDISIM_MMU_CAUSE_ASID		5	/* ASID too large, or no hop-0 table */
#define GAUDISIM_MMU_CAUSE_DISABLED	6	/* MMU off: VAs do not translate */

/* ---- Registers, offsets inside GAUDISIM_BLOCK_MMU ------------------------- */

/*
 * Only the driver (MMIO) may write MMU registers; command buffers get
 * GAUDISIM_CP_ERR_PRIV.
 */
#define GAUDISIM_MMU_CTRL		0x000	/* RW */
#define GAUDISIM_MMU_CTRL_ENABLE	(1u << 0)	/* translate VAs */
#define GAUDISIM_MMU_STATUS		0x004	/* RO */
#define GAUDISIM_MMU_STATUS_ENABLED	(1u << 0)
#define GAUDISIM_MMU_STATUS_INV_BUSY	(1u << 1)	/* always 0: invalidation is synchronous */

/*
 * TLB invalidation: program INV_ASID (and INV_VA/INV_SIZE for a range),
 * then write the command. It has completed when the write returns; poll
 * STATUS.INV_BUSY for symmetry with hardware that takes time.
 */
#define GAUDISIM_MMU_INV_CMD		0x010	/* WO */
#define GAUDISIM_MMU_INV_ALL		1	/* every entry */
#define GAUDISIM_MMU_INV_ASID_ALL	2	/* every entry of INV_ASID */
#define GAUDISIM_MMU_INV_RANGE		3	/* entries of INV_ASID overlapping
						 * [INV_VA, INV_VA + INV_SIZE) */
#define GAUDISIM_MMU_INV_ASID		0x014	/* RW */
#define GAUDISIM_MMU_INV_VA_LO		0x018	/* RW */
#define GAUDISIM_MMU_INV_VA_HI		0x01C
#define GAUDISIM_MMU_INV_SIZE_LO	0x020	/* RW, bytes */
#define GAUDISIM_MMU_INV_SIZE_HI	0x024

/*
 * Fault capture: the most recent translation fault. Any write to
 * FAULT_INFO clears the capture; FAULT_CNT counts every fault since reset.
 */
#define GAUDISIM_MMU_FAULT_INFO		0x040
#define GAUDISIM_MMU_FAULT_CAUSE_MASK	0xfu		/* GAUDISIM_MMU_CAUSE_* */
#define GAUDISIM_MMU_FAULT_WRITE	(1u << 4)	/* the access was a write */
#define GAUDISIM_MMU_FAULT_ASID_SHIFT	8		/* [15:8] */
#define GAUDISIM_MMU_FAULT_ASID_MASK	(0xffu << GAUDISIM_MMU_FAULT_ASID_SHIFT)
#define GAUDISIM_MMU_FAULT_HOP_SHIFT	16		/* [18:16] hop of the bad PTE */
#define GAUDISIM_MMU_FAULT_HOP_MASK	(0x7u << GAUDISIM_MMU_FAULT_HOP_SHIFT)
#define GAUDISIM_MMU_FAULT_VALID	(1u << 31)
#define GAUDISIM_MMU_FAULT_VA_LO	0x044	/* RO: faulting device address */
#define GAUDISIM_MMU_FAULT_VA_HI	0x048
#define GAUDISIM_MMU_FAULT_CNT		0x04C	/* RO */

/* RO TLB statistics (wrap at 2^32) and size. */
#define GAUDISIM_MMU_TLB_HIT_CNT	0x060
#define GAUDISIM_MMU_TLB_MISS_CNT	0x064
#define GAUDISIM_MMU_TLB_ENTRIES	0x068

/*
 * Per-ASID hop-0 table address (HBM, 4 KiB aligned, inside the page-table
 * area; 0 = ASID not set up). Writing either half drops the ASID's TLB
 * entries.
 */
#define GAUDISIM_MMU_HOP0_LO(asid)	(0x100 + 8 * (asid))
#define GAUDISIM_MMU_HOP0_HI(asid)	(0x104 + 8 * (asid))

/*
 * Per-queue ASID: the context whose tables translate the VAs used by the
 * queue's packets and by the engine jobs it starts. Reset value 0.
 */
#define GAUDISIM_MMU_QUEUE_ASID(q)	(0x400 + 4 * (q))	/* q < GAUDISIM_QUEUE_ID_SIZE */

#endif /* GAUDISIM_HW_MMU_H */
