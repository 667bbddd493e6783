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
 *
 * Everything about a packet is defined here once: its opcode, its name
 * and size (gaudisim_pkt_info()), the layout of its words (struct
 * gaudisim_packet_*) and the encoding of its fields (gaudisim_*_ctl(),
 * gaudisim_*_cfg()). The device decodes with them, the driver's parser
 * walks user CBs with them, and the driver and libhlthunk build with them.
 */
#ifndef GAUDISIM_HW_PACKETS_H
#define GAUDISIM_HW_PACKETS_H

/* ---- Common header (dword 1 of every packet) ---------------------------- */

#define GAUDISIM_PKT_CTL_OPCODE_SHIFT	24
#define GAUDISIM_PKT_CTL_OPCODE_MASK	(0x1fu << GAUDISIM_PKT_CTL_OPCODE_SHIFT)
#define GAUDISIM_PKT_CTL_EB		(1u << 29)	/* engine barrier */
#define GAUDISIM_PKT_CTL_RB		(1u << 30)	/* register barrier */
#define GAUDISIM_PKT_CTL_MB		(1u << 31)	/* message barrier */

/*
 * Predicate, ctl [4:0] of MSG_LONG, MSG_PROT, CP_DMA, FENCE, STOP and
 * LOAD_AND_EXE (gaudisim_pkt_has_pred()): 0 names P0, which is always
 * true; n runs the packet only while predicate n of the stream is set,
 * else the CP skips it (no barrier wait, no effect). LOAD_AND_EXE loads
 * the predicates; each CB fetched from the PQ starts with P1..P31 clear.
 */
#define GAUDISIM_PKT_CTL_PRED_MASK	0x1fu
#define GAUDISIM_PKT_NUM_PREDS		32

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

/*
 * ---- WREG_BULK: dw0 size64 [15:0]; ctl reg_offset [15:0] as WREG_32 -----
 * size64 qwords follow the header; they hold 2 * size64 register values,
 * low dword first, written to reg_offset, reg_offset + 4, ... of the
 * engine block. The packet is 8 + 8 * size64 bytes.
 */
#define GAUDISIM_WREG_BULK_SIZE64_MASK	0xffffu

/*
 * ---- MSG_SHORT: dw0 value; ctl offset [15:0], op [21:20], base [23:22] --
 * Writes dw0 (op 0) or the 64-bit device clock (op 1) to
 * CP_MSG_BASE<base> of the issuing stream + offset. dw0 is usually a
 * sync-object update or a monitor arm word (gaudisim_hw_sync.h formats).
 */
#define GAUDISIM_MSG_SHORT_CTL_OFFSET_MASK	0xffffu
#define GAUDISIM_MSG_SHORT_CTL_BASE_SHIFT	22
#define GAUDISIM_MSG_SHORT_CTL_BASE_MASK	(0x3u << GAUDISIM_MSG_SHORT_CTL_BASE_SHIFT)
/* op, weakly_ordered and no_snoop use the GAUDISIM_MSG_CTL_* positions. */

/*
 * ---- CP_DMA: dw0 tsize; qword1 src ------------------------------------
 * The upper CP hands tsize bytes of packets at src (HBM or SRAM, a
 * multiple of 8, at most 2 MiB) to the lower CP, which runs them before
 * the packet after the CP_DMA. A CP_DMA'd buffer may not contain CP_DMA
 * or MSG_PROT. Internal queues only: on an external (secured) queue the
 * buffer would escape the driver's CB copy, so CP_DMA is a privilege error.
 */

/*
 * ---- REPEAT: dw0 cfg ------------------------------------------------------
 * Loops over the packets between a start REPEAT (sore 0) and the end
 * REPEAT (sore 1) of the same level: the body runs COUNT times (1..65535,
 * from the start packet). Two levels, inner (o 0) and outer (o 1); an
 * inner loop must lie inside the outer one. Loops belong to one buffer (a
 * CB or a CP_DMA'd buffer); an end without its start is a field error.
 */
#define GAUDISIM_REPEAT_SORE_END	(1u << 0)	/* 0 start, 1 end */
#define GAUDISIM_REPEAT_OUTER		(1u << 1)	/* 0 inner, 1 outer */
#define GAUDISIM_REPEAT_COUNT_SHIFT	16		/* start only */
#define GAUDISIM_REPEAT_COUNT_MASK	(0xffffu << GAUDISIM_REPEAT_COUNT_SHIFT)

/*
 * ---- ARB_POINT: dw0 priority [7:0], rls [31] (see GAUDISIM_QM_ARB_OWNER).
 * Under priority arbitration (ARB_CFG EN, TYPE 0) the arbiter goes to the
 * stream asking with the highest priority; otherwise priority is ignored.
 */
#define GAUDISIM_ARB_POINT_PRIORITY_MASK	0xffu
#define GAUDISIM_ARB_POINT_RLS			(1u << 31)

/* ---- WAIT: dw0 cycles [23:0], inc_val [27:24], id [29:28] ---------------
 * Adds inc_val to fence id. The stream does not stall; the cycles count
 * as busy time of the engine in the telemetry. */
#define GAUDISIM_WAIT_CYCLES_MASK	0xffffffu
#define GAUDISIM_WAIT_INC_VAL_SHIFT	24
#define GAUDISIM_WAIT_INC_VAL_MASK	(0xfu << GAUDISIM_WAIT_INC_VAL_SHIFT)
#define GAUDISIM_WAIT_ID_SHIFT		28
#define GAUDISIM_WAIT_ID_MASK		(0x3u << GAUDISIM_WAIT_ID_SHIFT)

/*
 * ---- LOAD_AND_EXE: dw0 cfg; qword1 src, as on Gaudi ---------------------
 * With load, the CP reads src (HBM, SRAM or host memory at a device VA;
 * 4-byte aligned) into the stream's
 *  - predicates (dst 0): GAUDISIM_LOAD_AND_EXE_PRED_SIZE bytes, 32 dwords;
 *    bit 0 of dword n is predicate n (P0 is not loaded: always true);
 *  - scalars (dst 1): GAUDISIM_LOAD_AND_EXE_SCALAR_SIZE bytes, four 32-bit
 *    register-file entries RF0..RF3.
 * With exe (after the load, when both are set), the CP runs the packet
 * held in the scalars: etype 0 the packet at RF0 (8 or 16 bytes: the
 * lower two RFs or all four), etype 1 the 8-byte packet at RF2 (the upper
 * two). That packet may not be CP_DMA, REPEAT or LOAD_AND_EXE; its own
 * barriers and predicate apply. Each CB from the PQ starts with the
 * scalars zeroed. On external queues user CBs may load predicates only
 * (no dst 1, no exe): gaudisim_load_and_exe_allowed().
 */
#define GAUDISIM_LOAD_AND_EXE_DST	(1u << 0)	/* 0 predicates, 1 scalars */
#define GAUDISIM_LOAD_AND_EXE_LOAD	(1u << 8)
#define GAUDISIM_LOAD_AND_EXE_EXE	(1u << 9)
#define GAUDISIM_LOAD_AND_EXE_ETYPE	(1u << 10)	/* 0 RF0 (all/lower), 1 RF2 (upper) */
#define GAUDISIM_LOAD_AND_EXE_PRED_SIZE	128u
#define GAUDISIM_LOAD_AND_EXE_SCALAR_SIZE 16u
#define GAUDISIM_LOAD_AND_EXE_UPPER_RF	8u	/* byte offset of RF2 */

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
/*
 * Bits of ctl that this device implements for LIN_DMA, besides the header,
 * and that the driver accepts from users. The device also implements
 * WR_COMP_EN: after the transfer, the engine's completion message
 * (GAUDISIM_ENG_WR_COMP_*) is written.
 */
#define GAUDISIM_LIN_DMA_CTL_SUPPORTED \
	(GAUDISIM_LIN_DMA_CTL_LIN | GAUDISIM_LIN_DMA_CTL_MEMSET | \
	 GAUDISIM_LIN_DMA_CTL_CTX_ID_LOW_MASK)
#define GAUDISIM_LIN_DMA_DST_ADDR_MASK	0x00ffffffffffffffULL	/* [55:0] */
/* A memset writes the low byte of src, repeated. */

/* Largest transfer a single LIN_DMA may describe (dw0 is 32 bits). */
#define GAUDISIM_LIN_DMA_MAX_TSIZE	0xffffffffu

/*
 * Storage of a packet's words: little-endian, checked by sparse in the
 * kernel; plain integers elsewhere, stored with the user's own
 * little-endian helpers (htole32, gsim_st_le32, ...).
 */
#ifdef __KERNEL__
#include <linux/types.h>
#define GAUDISIM_LE32	__le32
#define GAUDISIM_LE64	__le64
#else
#define GAUDISIM_LE32	unsigned int
#define GAUDISIM_LE64	unsigned long long
#endif

/* ---- Packet layouts, one struct per opcode ------------------------------ */

/* The first two dwords of every packet; ctl holds the opcode. */
struct gaudisim_packet_hdr {
	GAUDISIM_LE32 dw0;
	GAUDISIM_LE32 ctl;
};

struct gaudisim_packet_wreg32 {
	GAUDISIM_LE32 value;
	GAUDISIM_LE32 ctl;
};

struct gaudisim_packet_wreg_bulk {
	GAUDISIM_LE32 size64;
	GAUDISIM_LE32 ctl;
	GAUDISIM_LE64 values[];		/* size64 qwords, two registers each */
};

struct gaudisim_packet_msg_long {
	GAUDISIM_LE32 value;
	GAUDISIM_LE32 ctl;
	GAUDISIM_LE64 addr;
};

struct gaudisim_packet_msg_short {
	GAUDISIM_LE32 value;
	GAUDISIM_LE32 ctl;
};

struct gaudisim_packet_cp_dma {
	GAUDISIM_LE32 tsize;
	GAUDISIM_LE32 ctl;
	GAUDISIM_LE64 src;
};

struct gaudisim_packet_repeat {
	GAUDISIM_LE32 cfg;
	GAUDISIM_LE32 ctl;
};

struct gaudisim_packet_msg_prot {
	GAUDISIM_LE32 value;
	GAUDISIM_LE32 ctl;
	GAUDISIM_LE64 addr;
};

struct gaudisim_packet_fence {
	GAUDISIM_LE32 cfg;
	GAUDISIM_LE32 ctl;
};

struct gaudisim_packet_lin_dma {
	GAUDISIM_LE32 tsize;
	GAUDISIM_LE32 ctl;
	GAUDISIM_LE64 src;		/* the fill value for a memset */
	GAUDISIM_LE64 dst;		/* address in [55:0] */
};

struct gaudisim_packet_nop {
	GAUDISIM_LE32 reserved;
	GAUDISIM_LE32 ctl;
};

struct gaudisim_packet_stop {
	GAUDISIM_LE32 reserved;
	GAUDISIM_LE32 ctl;
};

struct gaudisim_packet_arb_point {
	GAUDISIM_LE32 cfg;
	GAUDISIM_LE32 ctl;
};

struct gaudisim_packet_wait {
	GAUDISIM_LE32 cfg;
	GAUDISIM_LE32 ctl;
};

struct gaudisim_packet_load_and_exe {
	GAUDISIM_LE32 cfg;
	GAUDISIM_LE32 ctl;
	GAUDISIM_LE64 src;
};

_Static_assert(sizeof(struct gaudisim_packet_hdr) == GAUDISIM_PKT_ALIGN, "header");
_Static_assert(sizeof(struct gaudisim_packet_wreg32) == GAUDISIM_PKT_SIZE_WREG_32, "WREG_32");
_Static_assert(sizeof(struct gaudisim_packet_wreg_bulk) == GAUDISIM_PKT_SIZE_WREG_BULK_HDR,
	       "WREG_BULK");
_Static_assert(sizeof(struct gaudisim_packet_msg_long) == GAUDISIM_PKT_SIZE_MSG_LONG, "MSG_LONG");
_Static_assert(sizeof(struct gaudisim_packet_msg_short) == GAUDISIM_PKT_SIZE_MSG_SHORT,
	       "MSG_SHORT");
_Static_assert(sizeof(struct gaudisim_packet_cp_dma) == GAUDISIM_PKT_SIZE_CP_DMA, "CP_DMA");
_Static_assert(sizeof(struct gaudisim_packet_repeat) == GAUDISIM_PKT_SIZE_REPEAT, "REPEAT");
_Static_assert(sizeof(struct gaudisim_packet_msg_prot) == GAUDISIM_PKT_SIZE_MSG_PROT, "MSG_PROT");
_Static_assert(sizeof(struct gaudisim_packet_fence) == GAUDISIM_PKT_SIZE_FENCE, "FENCE");
_Static_assert(sizeof(struct gaudisim_packet_lin_dma) == GAUDISIM_PKT_SIZE_LIN_DMA, "LIN_DMA");
_Static_assert(sizeof(struct gaudisim_packet_nop) == GAUDISIM_PKT_SIZE_NOP, "NOP");
_Static_assert(sizeof(struct gaudisim_packet_stop) == GAUDISIM_PKT_SIZE_STOP, "STOP");
_Static_assert(sizeof(struct gaudisim_packet_arb_point) == GAUDISIM_PKT_SIZE_ARB_POINT,
	       "ARB_POINT");
_Static_assert(sizeof(struct gaudisim_packet_wait) == GAUDISIM_PKT_SIZE_WAIT, "WAIT");
_Static_assert(sizeof(struct gaudisim_packet_load_and_exe) == GAUDISIM_PKT_SIZE_LOAD_AND_EXE,
	       "LOAD_AND_EXE");

/* ---- The opcode table ------------------------------------------------------ */

/* How a packet's size follows from its header. */
enum gaudisim_pkt_size_rule {
	GAUDISIM_PKT_FIXED,		/* always info->size bytes */
	GAUDISIM_PKT_PLUS_SIZE64,	/* info->size + 8 * size64 of dw0 (WREG_BULK) */
};

struct gaudisim_pkt_info {
	const char *name;		/* the opcode's name, as in logs */
	unsigned char size;		/* bytes; the header's alone for a variable size */
	unsigned char rule;		/* enum gaudisim_pkt_size_rule */
};

/* The table entry of an opcode, or NULL for an opcode that does not exist. */
static inline const struct gaudisim_pkt_info *gaudisim_pkt_info(unsigned int opcode)
{
#define GAUDISIM_PKT_INFO_(op, size, rule) \
	[GAUDISIM_PKT_##op] = { #op, GAUDISIM_PKT_SIZE_##size, GAUDISIM_PKT_##rule }
	static const struct gaudisim_pkt_info table[GAUDISIM_PKT_MAX_OPCODE + 1] = {
		GAUDISIM_PKT_INFO_(WREG_32, WREG_32, FIXED),
		GAUDISIM_PKT_INFO_(WREG_BULK, WREG_BULK_HDR, PLUS_SIZE64),
		GAUDISIM_PKT_INFO_(MSG_LONG, MSG_LONG, FIXED),
		GAUDISIM_PKT_INFO_(MSG_SHORT, MSG_SHORT, FIXED),
		GAUDISIM_PKT_INFO_(CP_DMA, CP_DMA, FIXED),
		GAUDISIM_PKT_INFO_(REPEAT, REPEAT, FIXED),
		GAUDISIM_PKT_INFO_(MSG_PROT, MSG_PROT, FIXED),
		GAUDISIM_PKT_INFO_(FENCE, FENCE, FIXED),
		GAUDISIM_PKT_INFO_(LIN_DMA, LIN_DMA, FIXED),
		GAUDISIM_PKT_INFO_(NOP, NOP, FIXED),
		GAUDISIM_PKT_INFO_(STOP, STOP, FIXED),
		GAUDISIM_PKT_INFO_(ARB_POINT, ARB_POINT, FIXED),
		GAUDISIM_PKT_INFO_(WAIT, WAIT, FIXED),
		GAUDISIM_PKT_INFO_(LOAD_AND_EXE, LOAD_AND_EXE, FIXED),
	};
#undef GAUDISIM_PKT_INFO_

	if (opcode > GAUDISIM_PKT_MAX_OPCODE || !table[opcode].name)
		return (const struct gaudisim_pkt_info *)0;
	return &table[opcode];
}

/* The opcode's name; "undefined" for an opcode that does not exist. */
static inline const char *gaudisim_pkt_name(unsigned int opcode)
{
	const struct gaudisim_pkt_info *info = gaudisim_pkt_info(opcode);

	return info ? info->name : "undefined";
}

/*
 * Bytes of the packet whose first dwords are dw0 and ctl (host order);
 * 0 for an undefined opcode.
 */
static inline unsigned int gaudisim_pkt_size(unsigned int dw0, unsigned int ctl)
{
	const struct gaudisim_pkt_info *info = gaudisim_pkt_info(GAUDISIM_PKT_OPCODE(ctl));

	if (!info)
		return 0;
	if (info->rule == GAUDISIM_PKT_PLUS_SIZE64)
		return info->size + 8 * (dw0 & GAUDISIM_WREG_BULK_SIZE64_MASK);
	return info->size;
}

/* ---- Field encoders (host order), for every builder ---------------------- */

/* Does the opcode carry a predicate in ctl [4:0]? */
static inline int gaudisim_pkt_has_pred(unsigned int opcode)
{
	return opcode == GAUDISIM_PKT_MSG_LONG || opcode == GAUDISIM_PKT_MSG_PROT ||
	       opcode == GAUDISIM_PKT_CP_DMA || opcode == GAUDISIM_PKT_FENCE ||
	       opcode == GAUDISIM_PKT_STOP || opcode == GAUDISIM_PKT_LOAD_AND_EXE;
}

/* ctl of a LOAD_AND_EXE. */
static inline unsigned int gaudisim_load_and_exe_ctl(unsigned int pred, unsigned int barriers)
{
	return GAUDISIM_PKT_CTL(GAUDISIM_PKT_LOAD_AND_EXE) | (pred & GAUDISIM_PKT_CTL_PRED_MASK) |
	       barriers;
}

static inline unsigned int gaudisim_wreg32_ctl(unsigned int reg_offset, unsigned int barriers)
{
	return GAUDISIM_PKT_CTL(GAUDISIM_PKT_WREG_32) |
	       (reg_offset & GAUDISIM_WREG32_CTL_REG_OFFSET_MASK) | barriers;
}

/* ctl of a MSG_LONG or MSG_PROT; op is a GAUDISIM_MSG_OP_*. */
static inline unsigned int gaudisim_msg_ctl(unsigned int opcode, unsigned int op,
					    unsigned int barriers)
{
	return GAUDISIM_PKT_CTL(opcode) |
	       ((op << GAUDISIM_MSG_CTL_OP_SHIFT) & GAUDISIM_MSG_CTL_OP_MASK) | barriers;
}

/* ctl of a MSG_SHORT writing a value through CP_MSG_BASE<base> + offset. */
static inline unsigned int gaudisim_msg_short_ctl(unsigned int base, unsigned int offset,
						  unsigned int barriers)
{
	return GAUDISIM_PKT_CTL(GAUDISIM_PKT_MSG_SHORT) | barriers |
	       ((base << GAUDISIM_MSG_SHORT_CTL_BASE_SHIFT) & GAUDISIM_MSG_SHORT_CTL_BASE_MASK) |
	       (offset & GAUDISIM_MSG_SHORT_CTL_OFFSET_MASK);
}

static inline unsigned int gaudisim_fence_cfg(unsigned int id, unsigned int target,
					      unsigned int dec_val)
{
	return ((dec_val << GAUDISIM_FENCE_DEC_VAL_SHIFT) & GAUDISIM_FENCE_DEC_VAL_MASK) |
	       ((target << GAUDISIM_FENCE_TARGET_SHIFT) & GAUDISIM_FENCE_TARGET_MASK) |
	       ((id << GAUDISIM_FENCE_ID_SHIFT) & GAUDISIM_FENCE_ID_MASK);
}

/* ctl of a LIN_DMA: the lin bit, extra_ctl (e.g. MEMSET) and barriers. */
static inline unsigned int gaudisim_lin_dma_ctl(unsigned int extra_ctl, unsigned int barriers)
{
	return GAUDISIM_PKT_CTL(GAUDISIM_PKT_LIN_DMA) | GAUDISIM_LIN_DMA_CTL_LIN | extra_ctl |
	       barriers;
}

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
