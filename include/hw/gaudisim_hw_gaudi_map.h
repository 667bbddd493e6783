/* SPDX-License-Identifier: MIT */
/*
 * gaudisim hardware contract: Gaudi's addresses for the registers a user
 * command buffer touches, and their decode onto the device's registers.
 *
 * Software written for Gaudi (the vendor's tests, ported kernels) names
 * QMAN fence and arbitration registers and sync-manager objects by their
 * Gaudi addresses, CFG_BASE + an offset in Gaudi's 64 MiB configuration
 * space. gaudisim's register BAR is a compact 4 MiB map of the same
 * registers (gaudisim_hw_regs.h); inside the device, every engine, CB
 * packet and monitor payload also reaches these blocks at Gaudi's
 * addresses:
 *
 *   - the QMAN of each engine Gaudi has: DMA0..7, the two MME QMANs
 *     (queues 33..36 on Gaudi's MME2_QM and 37..40 on MME0_QM, as
 *     habanalabs maps them: gaudisim's MME 0 and MME 1), TPC0..7 and the
 *     NIC ports 0..9 (port n: NIC<n/2>_QM<n%2>).
 *     A QMAN's registers have the same offsets in both maps, so Gaudi's
 *     QMAN block decodes onto GAUDISIM_QM_BLOCK(e).
 *   - the sync manager: gaudisim models one block (gaudisim_hw_sync.h),
 *     which stands for each of Gaudi's four as the driver's
 *     INFO_SYNC_MANAGER answers for every dcore: the E_N window (the one
 *     Gaudi's user CBs address through CP_MSG_BASE0/1), W_S (where Gaudi's
 *     driver keeps its reserved objects), E_S and W_N all decode onto it,
 *     so SOB n of any window is the same object, and Gaudi's W_S
 *     reservations apply to all four.
 *
 * Not decoded (an access fails as an address with no register,
 * GAUDISIM_CP_ERR_DMA_ADDR): engine core registers and every other Gaudi
 * block. The host reaches the registers through the compact BAR
 * only: Gaudi's map does not fit a 4 MiB BAR.
 *
 * The compact map keeps clear of the aliased blocks inside its 4 MiB (the
 * MME QMANs at 0x068000 and 0x168000), so an offset names one register.
 */
#ifndef GAUDISIM_HW_GAUDI_MAP_H
#define GAUDISIM_HW_GAUDI_MAP_H

#include "gaudisim_hw_queues.h"
#include "gaudisim_hw_regs.h"
#include "gaudisim_hw_sync.h"

/* Gaudi's configuration space: CFG_BASE up to host memory. */
#define GAUDISIM_GAUDI_CFG_SIZE		0x4000000ULL	/* 64 MiB */

/* QMAN blocks, offsets from CFG_BASE (Gaudi's mm<BLOCK>_QM_BASE - CFG_BASE). */
#define GAUDISIM_GAUDI_QM_SIZE		0x1000		/* covers GAUDISIM_QM_REGS_END */
#define GAUDISIM_GAUDI_DMA_QM(n)	(0x508000u + 0x20000u * (n))	/* n < 8 */
#define GAUDISIM_GAUDI_MME0_QM		0x068000u	/* queues 37..40: MME 1 */
#define GAUDISIM_GAUDI_MME2_QM		0x168000u	/* queues 33..36: MME 0 */
#define GAUDISIM_GAUDI_TPC_QM(n)	(0xE08000u + 0x40000u * (n))	/* n < 8 */
/* NIC port n (n < 10): two QMANs per NIC macro. */
#define GAUDISIM_GAUDI_NIC_QM(n)	(0xCE0000u + 0x40000u * ((n) / 2) + 0x2000u * ((n) % 2))

/* Sync-manager blocks; each has gaudisim_hw_sync.h's layout from its base. */
#define GAUDISIM_GAUDI_SYNC_W_S		0x490000u
#define GAUDISIM_GAUDI_SYNC_E_S		0x4B0000u
#define GAUDISIM_GAUDI_SYNC_W_N		0x4D0000u
#define GAUDISIM_GAUDI_SYNC_E_N		0x4F0000u
/* The aliased part of a block: SOBs and monitors (not the rights table). */
#define GAUDISIM_GAUDI_SYNC_SIZE	0x8000u

/* Gaudi's CFG-relative offset of engine e's QMAN block; 0 if Gaudi has none. */
static inline unsigned int gaudisim_gaudi_qm_block(unsigned int e)
{
	if (e <= GAUDISIM_ENGINE_DMA_7)
		return GAUDISIM_GAUDI_DMA_QM(e - GAUDISIM_ENGINE_DMA_0);
	if (e == GAUDISIM_ENGINE_MME)
		return GAUDISIM_GAUDI_MME2_QM;
	if (e == GAUDISIM_ENGINE_MME_1)
		return GAUDISIM_GAUDI_MME0_QM;
	if (e >= GAUDISIM_ENGINE_TPC_0 && e <= GAUDISIM_ENGINE_TPC_7)
		return GAUDISIM_GAUDI_TPC_QM(e - GAUDISIM_ENGINE_TPC_0);
	if (e >= GAUDISIM_ENGINE_NIC_0 && e <= GAUDISIM_ENGINE_NIC_9)
		return GAUDISIM_GAUDI_NIC_QM(e - GAUDISIM_ENGINE_NIC_0);
	return 0;
}

/*
 * Gaudi's CFG-relative address of SOB n in the W_S manager, where Gaudi's
 * driver keeps its own: what a SIGNAL CS reports as sob_base_addr_offset.
 */
static inline unsigned int gaudisim_gaudi_sob_offset(unsigned int n)
{
	return GAUDISIM_GAUDI_SYNC_W_S + GAUDISIM_SYNC_SOB_OBJ(n);
}

/* Gaudi's CFG-relative address of CP_FENCE<f>_RDATA of queue q's stream. */
static inline unsigned int gaudisim_gaudi_fence_rdata(unsigned int q, unsigned int f)
{
	int e = gaudisim_queue_engine(q);

	if (e < 0 || !gaudisim_gaudi_qm_block((unsigned int)e))
		return 0;
	return gaudisim_gaudi_qm_block((unsigned int)e) +
	       GAUDISIM_QM_CP_FENCE_RDATA(f, gaudisim_queue_stream(q));
}

/*
 * Index of the block of a strided array (count blocks of size bytes, stride
 * apart from first) holding [off, off + len), or -1.
 */
static inline int gaudisim_gaudi_block_index(unsigned long long off, unsigned long long len,
					     unsigned int first, unsigned int stride,
					     unsigned int count, unsigned int size)
{
	unsigned long long rel;

	if (off < first)
		return -1;
	rel = off - first;
	if (rel / stride >= count || rel % stride + len > size)
		return -1;
	return (int)(rel / stride);
}

/*
 * Decode [off, off + len), an offset from CFG_BASE as Gaudi names it, onto
 * the device's register map. Returns 1 and the register offset (from
 * CFG_BASE, inside the compact map) in *reg when the whole range falls in
 * one aliased block; 0 otherwise.
 */
static inline int gaudisim_gaudi_cfg_decode(unsigned long long off, unsigned long long len,
					    unsigned int *reg)
{
	const unsigned int qm = GAUDISIM_GAUDI_QM_SIZE;
	unsigned int in;
	int n;

	if (!len || off >= GAUDISIM_GAUDI_CFG_SIZE || len > GAUDISIM_GAUDI_CFG_SIZE - off)
		return 0;
	in = (unsigned int)(off % qm);
	n = gaudisim_gaudi_block_index(off, len, GAUDISIM_GAUDI_DMA_QM(0), 0x20000u, 8, qm);
	if (n >= 0) {
		*reg = GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_DMA_0 + n) + in;
		return 1;
	}
	if (gaudisim_gaudi_block_index(off, len, GAUDISIM_GAUDI_MME2_QM, qm, 1, qm) >= 0) {
		*reg = GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_MME) + in;
		return 1;
	}
	if (gaudisim_gaudi_block_index(off, len, GAUDISIM_GAUDI_MME0_QM, qm, 1, qm) >= 0) {
		*reg = GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_MME_1) + in;
		return 1;
	}
	n = gaudisim_gaudi_block_index(off, len, GAUDISIM_GAUDI_TPC_QM(0), 0x40000u, 8, qm);
	if (n >= 0) {
		*reg = GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_TPC_0 + n) + in;
		return 1;
	}
	/* NIC macros hold two QMANs 0x2000 apart: port 2m + p. */
	n = gaudisim_gaudi_block_index(off, len, GAUDISIM_GAUDI_NIC_QM(0), 0x2000u,
				       GAUDISIM_NUM_NIC / 2 * 0x20, qm);
	if (n >= 0 && n % 0x20 < 2) {
		*reg = GAUDISIM_QM_BLOCK(GAUDISIM_ENGINE_NIC_0 + n / 0x20 * 2 + n % 0x20) + in;
		return 1;
	}
	/* The four sync managers, 0x20000 apart from W_S, onto the one block. */
	n = gaudisim_gaudi_block_index(off, len, GAUDISIM_GAUDI_SYNC_W_S, 0x20000u, 4,
				       GAUDISIM_GAUDI_SYNC_SIZE);
	if (n >= 0) {
		*reg = GAUDISIM_BLOCK_SYNC_MNGR +
		       (unsigned int)(off - GAUDISIM_GAUDI_SYNC_W_S - 0x20000u * (unsigned int)n);
		return 1;
	}
	return 0;
}

#endif /* GAUDISIM_HW_GAUDI_MAP_H */
