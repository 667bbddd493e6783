/* SPDX-License-Identifier: MIT */
/*
 * gaudisim hardware contract: command-buffer packets, PQ entries (buffer
 * descriptors) and completion-queue entries.
 *
 * Packets use Gaudi's opcode numbers and header layout: little-endian,
 * a 64-bit header whose second dword (ctl) carries the opcode in [28:24]
 * and the engine/register/message barriers in bits 29/30/31. Field
 * positions follow Gaudi's gaudi_packets.h; they are written as shifts and
 * masks so the same header builds in the kernel, QEMU and user space.
 */
#ifndef GAUDISIM_HW_PACKETS_H
#define GAUDISIM_HW_PACKETS_H

/* ---- Common header (dword 1 of every packet) ---------------------------- */

#define GAUDISIM_PKT_CTL_OPCODE_SHIFT	24
#define GAUDISIM_PKT_CTL_OPCODE_MASK	(0x1fu << GAUDISIM_PKT_CTL_OPCODE_SHIFT)
#define GAUDISIM_PKT_CTL_EB		(1u << 29)	/* engine barrier */
#define GAUDISIM_PKT_CTL_RB		(1u << 30)	/* register barrier */
#define GAUDISIM_PKT_CTL_MB		(1u << 31)	/* message barrier */

#define GAUDISIM_PKT_OPCODE(ctl) \
	(((ctl) & GAUDISIM_PKT_CTL_OPCODE_MASK) >> GAUDISIM_PKT_CTL_OPCODE_SHIFT)
#define GAUDISIM_PKT_CTL(op)	((unsigned int)(op) << GAUDISIM_PKT_CTL_OPCODE_SHIFT)

enum gaudisim_packet_id {
	GAUDISIM_PKT_WREG_32 = 0x1,
	GAUDISIM_PKT_WREG_BULK = 0x2,
	GAUDISIM_PKT_MSG_LONG = 0x3,
	GAUDISIM_PKT_MSG_SHORT = 0x4,
	GAUDISIM_PKT_CP_DMA = 0x5,
	GAUDISIM_PKT_REPEAT = 0x6,
	GAUDISIM_PKT_MSG_PROT = 0x7,
	GAUDISIM_PKT_FENCE = 0x8,
	GAUDISIM_PKT_LIN_DMA = 0x9,
	GAUDISIM_PKT_NOP = 0xA,
	GAUDISIM_PKT_STOP = 0xB,
	GAUDISIM_PKT_ARB_POINT = 0xC,
	GAUDISIM_PKT_WAIT = 0xD,
	GAUDISIM_PKT_LOAD_AND_EXE = 0xF,
	GAUDISIM_PKT_MAX_OPCODE = 0x1F,
};

/* Packet sizes in bytes (WREG_BULK: 8 + 8 * count). */
#define GAUDISIM_PKT_SIZE_WREG_32	8
#define GAUDISIM_PKT_SIZE_WREG_BULK_HDR	8
#define GAUDISIM_PKT_SIZE_MSG_LONG	16
#define GAUDISIM_PKT_SIZE_MSG_SHORT	8
#define GAUDISIM_PKT_SIZE_CP_DMA	16
#define GAUDISIM_PKT_SIZE_REPEAT	8
#define GAUDISIM_PKT_SIZE_MSG_PROT	16
#define GAUDISIM_PKT_SIZE_FENCE		8
#define GAUDISIM_PKT_SIZE_LIN_DMA	24
#define GAUDISIM_PKT_SIZE_NOP		8
#define GAUDISIM_PKT_SIZE_STOP		8
#define GAUDISIM_PKT_SIZE_ARB_POINT	8
#define GAUDISIM_PKT_SIZE_WAIT		8
#define GAUDISIM_PKT_SIZE_LOAD_AND_EXE	16

/* Packets are 8-byte aligned; CB sizes are multiples of 8. */
#define GAUDISIM_PKT_ALIGN		8

/* ---- WREG_32: dw0 value; ctl reg_offset [15:0] inside the engine block -- */
#define GAUDISIM_WREG32_CTL_REG_OFFSET_MASK	0xffffu

/* ---- MSG_LONG / MSG_PROT: dw0 value; qword1 device address ------------- */
#define GAUDISIM_MSG_CTL_WEAKLY_ORDERED	(1u << 16)
#define GAUDISIM_MSG_CTL_NO_SNOOP	(1u << 17)
#define GAUDISIM_MSG_CTL_OP_SHIFT	20
#define GAUDISIM_MSG_CTL_OP_MASK	(0x3u << GAUDISIM_MSG_CTL_OP_SHIFT)
#define GAUDISIM_MSG_OP_WRITE_VALUE	0	/* write dw0 (32 bits) */
#define GAUDISIM_MSG_OP_WRITE_TIMESTAMP	1	/* write the 64-bit device clock */

/* ---- FENCE: wait until fence[id] >= target, then subtract dec_val ------ */
#define GAUDISIM_FENCE_DEC_VAL_SHIFT	0
#define GAUDISIM_FENCE_DEC_VAL_MASK	0xfu
#define GAUDISIM_FENCE_TARGET_SHIFT	16
#define GAUDISIM_FENCE_TARGET_MASK	(0xffu << GAUDISIM_FENCE_TARGET_SHIFT)
#define GAUDISIM_FENCE_ID_SHIFT		30
#define GAUDISIM_FENCE_ID_MASK		(0x3u << GAUDISIM_FENCE_ID_SHIFT)

/* ---- LIN_DMA: dw0 tsize (bytes); qword1 src; qword2 dst ---------------- */
#define GAUDISIM_LIN_DMA_CTL_WR_COMP_EN	(1u << 0)
#define GAUDISIM_LIN_DMA_CTL_TRANSPOSE	(1u << 1)
#define GAUDISIM_LIN_DMA_CTL_DTYPE	(1u << 2)
#define GAUDISIM_LIN_DMA_CTL_LIN	(1u << 3)	/* must be 1 */
#define GAUDISIM_LIN_DMA_CTL_MEMSET	(1u << 4)	/* src is the fill value */
#define GAUDISIM_LIN_DMA_CTL_COMPRESS	(1u << 5)
#define GAUDISIM_LIN_DMA_CTL_DECOMPRESS	(1u << 6)
#define GAUDISIM_LIN_DMA_CTL_CTX_ID_LOW_SHIFT 16
#define GAUDISIM_LIN_DMA_CTL_CTX_ID_LOW_MASK (0xffu << 16)
/* Bits of ctl that this device implements for LIN_DMA, besides the header. */
#define GAUDISIM_LIN_DMA_CTL_SUPPORTED \
	(GAUDISIM_LIN_DMA_CTL_LIN | GAUDISIM_LIN_DMA_CTL_MEMSET | \
	 GAUDISIM_LIN_DMA_CTL_CTX_ID_LOW_MASK)
#define GAUDISIM_LIN_DMA_DST_ADDR_MASK	0x00ffffffffffffffULL	/* [55:0] */
/* A memset writes the low byte of src, repeated. */

/* Largest transfer a single LIN_DMA may describe (dw0 is 32 bits). */
#define GAUDISIM_LIN_DMA_MAX_TSIZE	0xffffffffu

/* ---- PQ entry: buffer descriptor, 16 bytes ------------------------------ */
struct gaudisim_bd {
	unsigned int ctl;	/* GAUDISIM_BD_CTL_* */
	unsigned int len;	/* CB length in bytes, multiple of 8 */
	unsigned long long ptr;	/* CB device address (host: + HOST_BASE) */
};

#define GAUDISIM_BD_SIZE		16
#define GAUDISIM_BD_CTL_SHADOW_INDEX_MASK 0xfffu	/* [11:0] echoed in the CQ */
/*
 * The CB ends with a completion tail of GAUDISIM_CB_COMPLETION_TAIL_SIZE
 * bytes (MSG_PROT to the CQ entry, MSG_PROT to MSIX_REQ). If the body
 * fails, the CP abandons it, runs the tail with GAUDISIM_CQ_ENTRY_ERROR
 * set in the first MSG_PROT's value, and so still completes the job.
 */
#define GAUDISIM_BD_CTL_COMPLETION_TAIL	(1u << 16)
#define GAUDISIM_BD_CTL_RESERVED_MASK	0xfffef000u

#define GAUDISIM_CB_COMPLETION_TAIL_SIZE (2 * GAUDISIM_PKT_SIZE_MSG_PROT)

/* ---- Completion-queue entry: one u32 in host memory --------------------- */
#define GAUDISIM_CQ_ENTRY_READY		(1u << 31)
#define GAUDISIM_CQ_ENTRY_SHADOW_VALID	(1u << 30)
#define GAUDISIM_CQ_ENTRY_ERROR		(1u << 29)	/* job failed in the CP */
#define GAUDISIM_CQ_ENTRY_ERR_CODE_SHIFT 16		/* GAUDISIM_CP_ERR_* */
#define GAUDISIM_CQ_ENTRY_ERR_CODE_MASK	(0xffu << GAUDISIM_CQ_ENTRY_ERR_CODE_SHIFT)
#define GAUDISIM_CQ_ENTRY_SHADOW_MASK	0xfffu
#define GAUDISIM_CQ_ENTRY_SIZE		4

#endif /* GAUDISIM_HW_PACKETS_H */
