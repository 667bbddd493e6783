/* SPDX-License-Identifier: MIT */
/*
 * gaudisim hardware contract: the TPC (tensor processor core).
 *
 * Eight TPCs, each a VLIW SIMD core, run kernels written in the TPC
 * instruction set that docs/tpc-isa.md describes in full. This header
 * holds what software and the device must agree on:
 *   - the TPC core register block (kernel, index space, tensor
 *     descriptors, scalar arguments, COMMIT, error details),
 *   - the bundle encoding and the opcode numbers,
 *   - the operand table and the legality check of a bundle, shared by the
 *     device's decoder, the assembler and the disassembler,
 *   - the index-space split that the runtime uses to spread one launch
 *     over several TPCs.
 *
 * A TPC is programmed like the MME: a CB on one of the TPC's queues
 * writes the configuration registers (WREG_32), then COMMIT launches the
 * kernel with the values the registers hold at that moment. The kernel
 * runs once for every member of the TPC's part of the index space (a 5-D
 * box); the common GAUDISIM_ENG_STATUS tells how the launch ended.
 *
 * Register offsets are relative to the TPC's engine block,
 * GAUDISIM_TPC_BLOCK(n); the core registers use +0x000..+0x3FF and the
 * TPC's QMAN sits at +GAUDISIM_QM_OFFSET. Every register is 32 bits;
 * 64-bit values are split into LO and HI halves.
 */
#ifndef GAUDISIM_HW_TPC_H
#define GAUDISIM_HW_TPC_H

#include "gaudisim_hw_dtypes.h"
#include "gaudisim_hw_queues.h"
#include "gaudisim_hw_regs.h"

/* CFG BAR offset of TPC n's engine block. */
#define GAUDISIM_TPC_BLOCK(n)		GAUDISIM_ENGINE_BLOCK(GAUDISIM_ENGINE_TPC_0 + (n))

/* ---- Machine shape ------------------------------------------------------ */

#define GAUDISIM_TPC_LANES		64	/* 32-bit lanes per vector (2048 bits) */
#define GAUDISIM_TPC_NUM_VREGS		32	/* V0..V31 */
#define GAUDISIM_TPC_NUM_SREGS		32	/* S0..S31 */
#define GAUDISIM_TPC_NUM_VPREDS		8	/* VP0..VP7, VP0 = all lanes true */
#define GAUDISIM_TPC_NUM_SPREDS		8	/* SP0..SP7, SP0 = true */
#define GAUDISIM_TPC_NUM_IREGS		8	/* I0..I7, 5-D coordinates */
#define GAUDISIM_TPC_NUM_TENSORS	8	/* T0..T7 */
#define GAUDISIM_TPC_NUM_DIMS		5
#define GAUDISIM_TPC_NUM_ARGS		16	/* S0..S15 at member start */

#define GAUDISIM_TPC_BUNDLE_SIZE	32	/* bytes: 256 bits */
#define GAUDISIM_TPC_MAX_BUNDLES	65536	/* branch targets are 16 bits */

/* ---- Register block ----------------------------------------------------- */

/* Kernel: device address (HBM or SRAM, 32-byte aligned) and size in bytes
 * (a multiple of 32, 32 .. GAUDISIM_TPC_MAX_BUNDLES * 32). */
#define GAUDISIM_TPC_KERNEL_ADDR_LO	0x000
#define GAUDISIM_TPC_KERNEL_ADDR_HI	0x004
#define GAUDISIM_TPC_KERNEL_SIZE	0x008
/* Bundle budget of one launch; 0 selects GAUDISIM_TPC_WATCHDOG_DEFAULT.
 * A launch that would run more bundles stops with ERR_WATCHDOG. */
#define GAUDISIM_TPC_WATCHDOG		0x00C
#define GAUDISIM_TPC_WATCHDOG_DEFAULT	(1u << 28)

/* Index space: size per dimension (>= 1; reset value 1). */
#define GAUDISIM_TPC_ISPACE_SIZE(d)	(0x020 + 4 * (d))
/*
 * This TPC's part of the index space: the box start[d] .. start[d] +
 * size[d] - 1 in every dimension. PART_SIZE 0 means "to the end of the
 * index space" (reset value), so one TPC running a whole index space needs
 * only ISPACE_SIZE. The box must lie inside the index space.
 */
#define GAUDISIM_TPC_PART_START(d)	(0x040 + 4 * (d))
#define GAUDISIM_TPC_PART_SIZE(d)	(0x060 + 4 * (d))
/* Scalar kernel arguments: S0..S15 hold ARG(0..15) when a member starts. */
#define GAUDISIM_TPC_ARG(i)		(0x080 + 4 * (i))

/*
 * Tensor descriptors T0..T7. Only the tensors a kernel loads from or
 * stores to are checked at COMMIT: the dtype must be a memory type equal
 * to the dtype of every instruction that accesses the tensor, sizes >= 1,
 * the base aligned to the element size, and every element the sizes and
 * strides can reach inside HBM or inside SRAM. Sizes and strides count
 * elements; element (c0..c4) is at BASE + sum(c[d] * STRIDE[d]) * esize.
 * PAD is the register-format value (see docs/tpc-isa.md) that a load
 * returns for an element outside the tensor. Reset: BASE 0, DTYPE FP32,
 * PAD 0, every SIZE 1, STRIDE(0) 1 and the other strides 0.
 */
#define GAUDISIM_TPC_TENSOR_BASE	0x100
#define GAUDISIM_TPC_TENSOR_STRIDE	0x40	/* bytes between descriptors */
#define GAUDISIM_TPC_TENSOR(t)		(GAUDISIM_TPC_TENSOR_BASE + GAUDISIM_TPC_TENSOR_STRIDE * (t))
#define GAUDISIM_TPC_T_BASE_LO		0x00	/* offsets inside a descriptor */
#define GAUDISIM_TPC_T_BASE_HI		0x04
#define GAUDISIM_TPC_T_DTYPE		0x08	/* enum gaudisim_dtype */
#define GAUDISIM_TPC_T_PAD		0x0C
#define GAUDISIM_TPC_T_SIZE(d)		(0x10 + 4 * (d))
#define GAUDISIM_TPC_T_STRIDE(d)	(0x24 + 4 * (d))
/* 0x38, 0x3C: reserved (read 0, writes refused) */
#define GAUDISIM_TPC_T_END		0x38

/* Configuration registers end here; they read back what was written. */
#define GAUDISIM_TPC_CFG_END		0x300

/* WO: write GAUDISIM_TPC_COMMIT_GO to launch the configured kernel. */
#define GAUDISIM_TPC_COMMIT		0x300
#define GAUDISIM_TPC_COMMIT_GO		0x1
/*
 * Busy, the outcome of the last launch and the launch and error counts
 * are the common engine registers (GAUDISIM_ENG_STATUS, _LAUNCH_CNT,
 * _ERR_CNT in gaudisim_hw_regs.h). The TPC adds, RO: where the last failed
 * launch stopped - bundle index, a detail code (GAUDISIM_TPC_BAD_* | slot
 * << 8 for ERR_ILLEGAL, the tensor for ERR_TENSOR) and the coordinates of
 * the member that was running - and the bundles and members executed
 * since reset (64-bit).
 */
#define GAUDISIM_TPC_ERR_PC		0x304
#define GAUDISIM_TPC_ERR_INFO		0x308
#define GAUDISIM_TPC_ERR_COORD(d)	(0x30C + 4 * (d))
#define GAUDISIM_TPC_BUNDLES_LO		0x320
#define GAUDISIM_TPC_BUNDLES_HI		0x324
#define GAUDISIM_TPC_MEMBERS_LO		0x328
#define GAUDISIM_TPC_MEMBERS_HI		0x32C
#define GAUDISIM_TPC_REGS_END		0x330

/* Engine error codes, in GAUDISIM_ENG_STATUS[15:8] of a TPC block. */
#define GAUDISIM_TPC_ERR_NONE		0
#define GAUDISIM_TPC_ERR_KERNEL		1	/* kernel address/size/alignment/range */
#define GAUDISIM_TPC_ERR_ISPACE		2	/* index-space size or part out of range */
#define GAUDISIM_TPC_ERR_TENSOR		3	/* descriptor of a used tensor refused */
#define GAUDISIM_TPC_ERR_ILLEGAL	4	/* an illegal bundle was executed */
#define GAUDISIM_TPC_ERR_END		5	/* execution ran past the last bundle */
#define GAUDISIM_TPC_ERR_WATCHDOG	6	/* bundle budget exhausted (timeout) */
#define GAUDISIM_TPC_ERR_BUSY		7	/* COMMIT while a launch is running */
#define GAUDISIM_TPC_ERR_NOMEM		8	/* simulator out of host memory */

/* ---- Bundle encoding ---------------------------------------------------- */

/*
 * A bundle is 32 bytes, little-endian:
 *   bytes  0..5   LOAD slot  (48 bits)
 *   bytes  6..11  VPU slot
 *   bytes 12..17  STORE slot
 *   bytes 18..23  SPU slot
 *   bytes 24..27  VPU immediate
 *   bytes 28..31  SPU immediate
 * The slots execute in that order (LOAD, VPU, STORE, SPU); each slot sees
 * the registers written by the slots before it in the same bundle.
 *
 * A slot is a 48-bit value:
 *   [5:0]   opcode (0 = NOP: every other field of the slot must be 0)
 *   [9:6]   dtype (enum gaudisim_dtype) or 0 for untyped operations
 *   [12:10] predicate register, [13] negate it, [14] vector predicate
 *   [19:15] DST, [24:20] SRC_A, [29:25] SRC_B
 *   [31:30] SRC_B kind: 0 register, 1 scalar register (vector operations:
 *           broadcast), 2 the slot's immediate (SRC_B must be 0), 3 reserved
 *   [47:32] modifier (meaning per opcode; 0 where unused)
 * Fields an operation does not use must be 0, and an immediate that no
 * operation of the bundle uses must be 0: a bundle has exactly one
 * encoding, which is what lets the disassembler print text that
 * assembles back to the same bytes.
 */
enum gaudisim_tpc_slot_id {
	GAUDISIM_TPC_SLOT_LOAD = 0,
	GAUDISIM_TPC_SLOT_VPU = 1,
	GAUDISIM_TPC_SLOT_STORE = 2,
	GAUDISIM_TPC_SLOT_SPU = 3,
	GAUDISIM_TPC_NUM_SLOTS = 4,
};

#define GAUDISIM_TPC_SLOT_BYTES		6
#define GAUDISIM_TPC_IMM_VPU_OFFSET	24
#define GAUDISIM_TPC_IMM_SPU_OFFSET	28

#define GAUDISIM_TPC_F_OPC_SHIFT	0
#define GAUDISIM_TPC_F_OPC_BITS		6
#define GAUDISIM_TPC_F_DT_SHIFT		6
#define GAUDISIM_TPC_F_DT_BITS		4
#define GAUDISIM_TPC_F_PRED_SHIFT	10
#define GAUDISIM_TPC_F_PRED_BITS	3
#define GAUDISIM_TPC_F_PNEG_SHIFT	13
#define GAUDISIM_TPC_F_PVEC_SHIFT	14
#define GAUDISIM_TPC_F_DST_SHIFT	15
#define GAUDISIM_TPC_F_SA_SHIFT		20
#define GAUDISIM_TPC_F_SB_SHIFT		25
#define GAUDISIM_TPC_F_REG_BITS		5
#define GAUDISIM_TPC_F_BK_SHIFT		30
#define GAUDISIM_TPC_F_BK_BITS		2
#define GAUDISIM_TPC_F_MOD_SHIFT	32
#define GAUDISIM_TPC_F_MOD_BITS		16

/* SRC_B kinds. */
#define GAUDISIM_TPC_BK_REG		0
#define GAUDISIM_TPC_BK_SREG		1
#define GAUDISIM_TPC_BK_IMM		2

/* LOAD slot opcodes. */
enum gaudisim_tpc_load_op {
	GAUDISIM_TPC_LD_NOP = 0,
	GAUDISIM_TPC_LD_TNSR = 1,	/* ld.dt   Vd, Tt, Ik: 64 elements along dim 0 */
	GAUDISIM_TPC_LD_SCALAR = 2,	/* lds.dt  Sd, Tt, Ik: one element */
};

/* STORE slot opcodes. */
enum gaudisim_tpc_store_op {
	GAUDISIM_TPC_ST_NOP = 0,
	GAUDISIM_TPC_ST_TNSR = 1,	/* st.dt   Tt, Ik, Va */
	GAUDISIM_TPC_ST_SCALAR = 2,	/* sts.dt  Tt, Ik, Sa */
};

/*
 * VPU and SPU opcodes: one numbering; an operation that exists in both
 * units has the same number in both. The VPU works on V (and VP)
 * registers, the SPU on S (and SP, I) registers.
 */
enum gaudisim_tpc_alu_op {
	GAUDISIM_TPC_OP_NOP = 0,
	GAUDISIM_TPC_OP_HALT = 1,	/* SPU: end this member after the bundle */
	GAUDISIM_TPC_OP_MOV = 2,	/* d = b (vector: broadcast of S/imm) */
	GAUDISIM_TPC_OP_ADD = 3,	/* d = a + b */
	GAUDISIM_TPC_OP_SUB = 4,	/* d = a - b */
	GAUDISIM_TPC_OP_MUL = 5,	/* d = a * b */
	GAUDISIM_TPC_OP_MAC = 6,	/* d = d + a * b (product rounded first) */
	GAUDISIM_TPC_OP_MIN = 7,	/* d = a < b ? a : b */
	GAUDISIM_TPC_OP_MAX = 8,	/* d = a > b ? a : b */
	GAUDISIM_TPC_OP_AND = 9,
	GAUDISIM_TPC_OP_OR = 10,
	GAUDISIM_TPC_OP_XOR = 11,
	GAUDISIM_TPC_OP_SHL = 12,	/* d = a << (b & 31) */
	GAUDISIM_TPC_OP_SHR = 13,	/* arithmetic for signed, logical for unsigned */
	GAUDISIM_TPC_OP_NOT = 14,	/* d = ~a */
	GAUDISIM_TPC_OP_ABS = 15,
	GAUDISIM_TPC_OP_NEG = 16,
	GAUDISIM_TPC_OP_CMP = 17,	/* predicate d = a <cond> b */
	GAUDISIM_TPC_OP_SEL = 18,	/* d = p ? a : b */
	GAUDISIM_TPC_OP_CVT = 19,	/* d = convert(a) from dtype to MOD dtype */
	GAUDISIM_TPC_OP_EXP = 20,
	GAUDISIM_TPC_OP_LOG = 21,
	GAUDISIM_TPC_OP_RCP = 22,	/* 1 / a */
	GAUDISIM_TPC_OP_RSQRT = 23,	/* 1 / sqrt(a) */
	GAUDISIM_TPC_OP_SQRT = 24,
	GAUDISIM_TPC_OP_TANH = 25,
	GAUDISIM_TPC_OP_RSUM = 26,	/* VPU: every lane = sum of a's 64 lanes */
	GAUDISIM_TPC_OP_RMAX = 27,
	GAUDISIM_TPC_OP_RMIN = 28,
	GAUDISIM_TPC_OP_IOTA = 29,	/* VPU: lane i = i */
	GAUDISIM_TPC_OP_PAND = 30,	/* predicate logic */
	GAUDISIM_TPC_OP_POR = 31,
	GAUDISIM_TPC_OP_PXOR = 32,
	GAUDISIM_TPC_OP_PNOT = 33,
	GAUDISIM_TPC_OP_JMP = 40,	/* SPU: jump to MOD */
	GAUDISIM_TPC_OP_LOOP = 41,	/* SPU: d += 1; if d < b jump to MOD */
	GAUDISIM_TPC_OP_ILOOP = 42,	/* SPU: Id[a] += imm; loop while < / > Sb */
	GAUDISIM_TPC_OP_ISET = 43,	/* SPU: Id[dims of MOD] = b */
	GAUDISIM_TPC_OP_IADD = 44,	/* SPU: Id = Ia, dims of MOD += b */
	GAUDISIM_TPC_OP_IMUL = 45,	/* SPU: Id = Ia, dims of MOD *= b */
	GAUDISIM_TPC_OP_IGET = 46,	/* SPU: Sd = Ia[MOD] */
	GAUDISIM_TPC_OP_RD = 47,	/* SPU: Sd = special register MOD */
	GAUDISIM_TPC_NUM_OPCODES = 64,
};

/* CMP conditions (MOD). */
enum gaudisim_tpc_cond {
	GAUDISIM_TPC_CMP_EQ = 0,
	GAUDISIM_TPC_CMP_NE = 1,
	GAUDISIM_TPC_CMP_LT = 2,
	GAUDISIM_TPC_CMP_LE = 3,
	GAUDISIM_TPC_CMP_GT = 4,
	GAUDISIM_TPC_CMP_GE = 5,
	GAUDISIM_TPC_NUM_CONDS = 6,
};

/* SEL: MOD[2:0] selector predicate, MOD[3] negates it. */
#define GAUDISIM_TPC_SEL_PRED_MASK	0x7u
#define GAUDISIM_TPC_SEL_NEG		0x8u

/* CVT: MOD[3:0] destination dtype, MOD[5:4] rounding mode. */
#define GAUDISIM_TPC_CVT_DT_MASK	0xfu
#define GAUDISIM_TPC_CVT_RM_SHIFT	4
#define GAUDISIM_TPC_CVT_RM_MASK	0x3u
enum gaudisim_tpc_round {
	GAUDISIM_TPC_RM_RNE = 0,	/* to nearest, ties to even */
	GAUDISIM_TPC_RM_RZ = 1,		/* toward zero */
	GAUDISIM_TPC_RM_RD = 2,		/* toward -infinity */
	GAUDISIM_TPC_RM_RU = 3,		/* toward +infinity */
};

/* ISET/IADD/IMUL: MOD[4:0] dimension mask (bit d = dimension d), not 0. */
#define GAUDISIM_TPC_DIM_MASK_ALL	0x1fu

/* RD special registers (MOD). */
#define GAUDISIM_TPC_SPEC_ISIZE(d)	(0x000 + (d))	/* index-space size */
#define GAUDISIM_TPC_SPEC_PSTART(d)	(0x008 + (d))	/* this TPC's part: first */
#define GAUDISIM_TPC_SPEC_PEND(d)	(0x010 + (d))	/* ... and end (exclusive) */
#define GAUDISIM_TPC_SPEC_TPCID		0x018		/* TPC number 0..7 */
#define GAUDISIM_TPC_SPEC_TSIZE(t, d)	(0x100 + ((t) << 4) + (d))
#define GAUDISIM_TPC_SPEC_TSTRIDE(t, d)	(0x108 + ((t) << 4) + (d))

/* Decoded fields of one slot plus the immediate it may use. */
struct gaudisim_tpc_slot {
	unsigned int opc, dt, pred, pneg, pvec, dst, sa, sb, bk, mod;
	unsigned int imm;	/* the slot's immediate (VPU, SPU), else 0 */
};

static inline unsigned long long gaudisim_tpc_slot_bits(const unsigned char *bundle,
							 unsigned int slot)
{
	const unsigned char *p = bundle + slot * GAUDISIM_TPC_SLOT_BYTES;
	unsigned long long v = 0;
	int i;

	for (i = GAUDISIM_TPC_SLOT_BYTES - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static inline unsigned int gaudisim_tpc_imm_bits(const unsigned char *bundle,
						 unsigned int slot)
{
	const unsigned char *p;

	if (slot == GAUDISIM_TPC_SLOT_VPU)
		p = bundle + GAUDISIM_TPC_IMM_VPU_OFFSET;
	else if (slot == GAUDISIM_TPC_SLOT_SPU)
		p = bundle + GAUDISIM_TPC_IMM_SPU_OFFSET;
	else
		return 0;
	return (unsigned int)p[0] | (unsigned int)p[1] << 8 |
	       (unsigned int)p[2] << 16 | (unsigned int)p[3] << 24;
}

#define GAUDISIM_TPC_FIELD(v, shift, bits) \
	((unsigned int)(((v) >> (shift)) & ((1ull << (bits)) - 1)))

static inline void gaudisim_tpc_slot_decode(const unsigned char *bundle, unsigned int slot,
					    struct gaudisim_tpc_slot *s)
{
	unsigned long long v = gaudisim_tpc_slot_bits(bundle, slot);

	s->opc = GAUDISIM_TPC_FIELD(v, GAUDISIM_TPC_F_OPC_SHIFT, GAUDISIM_TPC_F_OPC_BITS);
	s->dt = GAUDISIM_TPC_FIELD(v, GAUDISIM_TPC_F_DT_SHIFT, GAUDISIM_TPC_F_DT_BITS);
	s->pred = GAUDISIM_TPC_FIELD(v, GAUDISIM_TPC_F_PRED_SHIFT, GAUDISIM_TPC_F_PRED_BITS);
	s->pneg = GAUDISIM_TPC_FIELD(v, GAUDISIM_TPC_F_PNEG_SHIFT, 1);
	s->pvec = GAUDISIM_TPC_FIELD(v, GAUDISIM_TPC_F_PVEC_SHIFT, 1);
	s->dst = GAUDISIM_TPC_FIELD(v, GAUDISIM_TPC_F_DST_SHIFT, GAUDISIM_TPC_F_REG_BITS);
	s->sa = GAUDISIM_TPC_FIELD(v, GAUDISIM_TPC_F_SA_SHIFT, GAUDISIM_TPC_F_REG_BITS);
	s->sb = GAUDISIM_TPC_FIELD(v, GAUDISIM_TPC_F_SB_SHIFT, GAUDISIM_TPC_F_REG_BITS);
	s->bk = GAUDISIM_TPC_FIELD(v, GAUDISIM_TPC_F_BK_SHIFT, GAUDISIM_TPC_F_BK_BITS);
	s->mod = GAUDISIM_TPC_FIELD(v, GAUDISIM_TPC_F_MOD_SHIFT, GAUDISIM_TPC_F_MOD_BITS);
	s->imm = gaudisim_tpc_imm_bits(bundle, slot);
}

/* Pack a slot's fields (each masked to its width) and its immediate. */
static inline void gaudisim_tpc_slot_encode(unsigned char *bundle, unsigned int slot,
					    const struct gaudisim_tpc_slot *s)
{
	unsigned long long v = 0;
	unsigned char *p = bundle + slot * GAUDISIM_TPC_SLOT_BYTES;
	int i;

#define GAUDISIM_TPC_PUT(val, shift, bits) \
	(v |= ((unsigned long long)(val) & ((1ull << (bits)) - 1)) << (shift))
	GAUDISIM_TPC_PUT(s->opc, GAUDISIM_TPC_F_OPC_SHIFT, GAUDISIM_TPC_F_OPC_BITS);
	GAUDISIM_TPC_PUT(s->dt, GAUDISIM_TPC_F_DT_SHIFT, GAUDISIM_TPC_F_DT_BITS);
	GAUDISIM_TPC_PUT(s->pred, GAUDISIM_TPC_F_PRED_SHIFT, GAUDISIM_TPC_F_PRED_BITS);
	GAUDISIM_TPC_PUT(s->pneg, GAUDISIM_TPC_F_PNEG_SHIFT, 1);
	GAUDISIM_TPC_PUT(s->pvec, GAUDISIM_TPC_F_PVEC_SHIFT, 1);
	GAUDISIM_TPC_PUT(s->dst, GAUDISIM_TPC_F_DST_SHIFT, GAUDISIM_TPC_F_REG_BITS);
	GAUDISIM_TPC_PUT(s->sa, GAUDISIM_TPC_F_SA_SHIFT, GAUDISIM_TPC_F_REG_BITS);
	GAUDISIM_TPC_PUT(s->sb, GAUDISIM_TPC_F_SB_SHIFT, GAUDISIM_TPC_F_REG_BITS);
	GAUDISIM_TPC_PUT(s->bk, GAUDISIM_TPC_F_BK_SHIFT, GAUDISIM_TPC_F_BK_BITS);
	GAUDISIM_TPC_PUT(s->mod, GAUDISIM_TPC_F_MOD_SHIFT, GAUDISIM_TPC_F_MOD_BITS);
#undef GAUDISIM_TPC_PUT
	for (i = 0; i < GAUDISIM_TPC_SLOT_BYTES; i++)
		p[i] = (unsigned char)(v >> (8 * i));
	if (slot == GAUDISIM_TPC_SLOT_VPU || slot == GAUDISIM_TPC_SLOT_SPU) {
		p = bundle + (slot == GAUDISIM_TPC_SLOT_VPU ? GAUDISIM_TPC_IMM_VPU_OFFSET
							     : GAUDISIM_TPC_IMM_SPU_OFFSET);
		for (i = 0; i < 4; i++)
			p[i] = (unsigned char)(s->imm >> (8 * i));
	}
}

/* ---- Operand table ------------------------------------------------------ */

/* Operand roles of DST, SRC_A and SRC_B. */
enum gaudisim_tpc_role {
	GAUDISIM_TPC_R_NONE = 0,	/* field must be 0 */
	GAUDISIM_TPC_R_V,		/* V0..V31 */
	GAUDISIM_TPC_R_S,		/* S0..S31 */
	GAUDISIM_TPC_R_VP,		/* VP0..VP7 (read) */
	GAUDISIM_TPC_R_SP,		/* SP0..SP7 (read) */
	GAUDISIM_TPC_R_VPW,		/* VP1..VP7 (written) */
	GAUDISIM_TPC_R_SPW,		/* SP1..SP7 (written) */
	GAUDISIM_TPC_R_I,		/* I0..I7 */
	GAUDISIM_TPC_R_T,		/* T0..T7 */
	GAUDISIM_TPC_R_DIM,		/* a dimension number 0..4 */
	GAUDISIM_TPC_R_VB,		/* SRC_B: V, S (broadcast) or immediate */
	GAUDISIM_TPC_R_SB,		/* SRC_B: S or immediate */
};

/* Data-type classes of the dtype field. */
enum gaudisim_tpc_tclass {
	GAUDISIM_TPC_T_NONE = 0,	/* untyped: field must be 0 */
	GAUDISIM_TPC_T_ANY,		/* any of the eight memory types */
	GAUDISIM_TPC_T_FLOAT,		/* FP32, BF16 */
	GAUDISIM_TPC_T_INT,		/* the six integer types */
	GAUDISIM_TPC_T_BITS,		/* FP32 and the integer types (bitwise) */
};

/* Meanings of the modifier field. */
enum gaudisim_tpc_modkind {
	GAUDISIM_TPC_M_NONE = 0,	/* must be 0 */
	GAUDISIM_TPC_M_COND,		/* enum gaudisim_tpc_cond */
	GAUDISIM_TPC_M_SEL,		/* selector predicate + negate */
	GAUDISIM_TPC_M_CVT,		/* destination dtype + rounding mode */
	GAUDISIM_TPC_M_MASK,		/* dimension mask 1..31 */
	GAUDISIM_TPC_M_DIM,		/* dimension 0..4 */
	GAUDISIM_TPC_M_TARGET,		/* bundle index (checked against the kernel) */
	GAUDISIM_TPC_M_SPECIAL,		/* GAUDISIM_TPC_SPEC_* */
};

/* Flags. */
#define GAUDISIM_TPC_OPF_VPRED		0x1	/* may take a vector predicate */
#define GAUDISIM_TPC_OPF_IMM		0x2	/* always uses the slot's immediate */
#define GAUDISIM_TPC_OPF_BRANCH		0x4	/* may change the next bundle */

struct gaudisim_tpc_opinfo {
	const char *name;		/* mnemonic; NULL: no such opcode */
	unsigned char dst, a, b;	/* enum gaudisim_tpc_role */
	unsigned char types;		/* enum gaudisim_tpc_tclass */
	unsigned char mod;		/* enum gaudisim_tpc_modkind */
	unsigned char flags;		/* GAUDISIM_TPC_OPF_* */
};

/* The operation an opcode names in a slot, or NULL. */
static inline const struct gaudisim_tpc_opinfo *
gaudisim_tpc_opinfo(unsigned int slot, unsigned int opc)
{
#define R_(x) GAUDISIM_TPC_R_##x
#define T_(x) GAUDISIM_TPC_T_##x
#define M_(x) GAUDISIM_TPC_M_##x
#define VP_ GAUDISIM_TPC_OPF_VPRED
	static const struct gaudisim_tpc_opinfo load[GAUDISIM_TPC_NUM_OPCODES] = {
		[GAUDISIM_TPC_LD_NOP] = { "nop", 0, 0, 0, 0, 0, 0 },
		[GAUDISIM_TPC_LD_TNSR] = { "ld", R_(V), R_(T), R_(I), T_(ANY), M_(NONE), VP_ },
		[GAUDISIM_TPC_LD_SCALAR] = { "lds", R_(S), R_(T), R_(I), T_(ANY), M_(NONE), 0 },
	};
	static const struct gaudisim_tpc_opinfo store[GAUDISIM_TPC_NUM_OPCODES] = {
		[GAUDISIM_TPC_ST_NOP] = { "nop", 0, 0, 0, 0, 0, 0 },
		[GAUDISIM_TPC_ST_TNSR] = { "st", R_(T), R_(I), R_(V), T_(ANY), M_(NONE), VP_ },
		[GAUDISIM_TPC_ST_SCALAR] = { "sts", R_(T), R_(I), R_(S), T_(ANY), M_(NONE), 0 },
	};
	static const struct gaudisim_tpc_opinfo vpu[GAUDISIM_TPC_NUM_OPCODES] = {
		[GAUDISIM_TPC_OP_NOP] = { "nop", 0, 0, 0, 0, 0, 0 },
		[GAUDISIM_TPC_OP_MOV] = { "mov", R_(V), R_(NONE), R_(VB), T_(ANY), M_(NONE), VP_ },
		[GAUDISIM_TPC_OP_ADD] = { "add", R_(V), R_(V), R_(VB), T_(ANY), M_(NONE), VP_ },
		[GAUDISIM_TPC_OP_SUB] = { "sub", R_(V), R_(V), R_(VB), T_(ANY), M_(NONE), VP_ },
		[GAUDISIM_TPC_OP_MUL] = { "mul", R_(V), R_(V), R_(VB), T_(ANY), M_(NONE), VP_ },
		[GAUDISIM_TPC_OP_MAC] = { "mac", R_(V), R_(V), R_(VB), T_(ANY), M_(NONE), VP_ },
		[GAUDISIM_TPC_OP_MIN] = { "min", R_(V), R_(V), R_(VB), T_(ANY), M_(NONE), VP_ },
		[GAUDISIM_TPC_OP_MAX] = { "max", R_(V), R_(V), R_(VB), T_(ANY), M_(NONE), VP_ },
		[GAUDISIM_TPC_OP_AND] = { "and", R_(V), R_(V), R_(VB), T_(BITS), M_(NONE), VP_ },
		[GAUDISIM_TPC_OP_OR] = { "or", R_(V), R_(V), R_(VB), T_(BITS), M_(NONE), VP_ },
		[GAUDISIM_TPC_OP_XOR] = { "xor", R_(V), R_(V), R_(VB), T_(BITS), M_(NONE), VP_ },
		[GAUDISIM_TPC_OP_SHL] = { "shl", R_(V), R_(V), R_(VB), T_(INT), M_(NONE), VP_ },
		[GAUDISIM_TPC_OP_SHR] = { "shr", R_(V), R_(V), R_(VB), T_(INT), M_(NONE), VP_ },
		[GAUDISIM_TPC_OP_NOT] = { "not", R_(V), R_(V), R_(NONE), T_(BITS), M_(NONE), VP_ },
		[GAUDISIM_TPC_OP_ABS] = { "abs", R_(V), R_(V), R_(NONE), T_(ANY), M_(NONE), VP_ },
		[GAUDISIM_TPC_OP_NEG] = { "neg", R_(V), R_(V), R_(NONE), T_(ANY), M_(NONE), VP_ },
		[GAUDISIM_TPC_OP_CMP] = { "cmp", R_(VPW), R_(V), R_(VB), T_(ANY), M_(COND), VP_ },
		[GAUDISIM_TPC_OP_SEL] = { "sel", R_(V), R_(V), R_(VB), T_(ANY), M_(SEL), VP_ },
		[GAUDISIM_TPC_OP_CVT] = { "cvt", R_(V), R_(V), R_(NONE), T_(ANY), M_(CVT), VP_ },
		[GAUDISIM_TPC_OP_EXP] = { "exp", R_(V), R_(V), R_(NONE), T_(FLOAT), M_(NONE), VP_ },
		[GAUDISIM_TPC_OP_LOG] = { "log", R_(V), R_(V), R_(NONE), T_(FLOAT), M_(NONE), VP_ },
		[GAUDISIM_TPC_OP_RCP] = { "rcp", R_(V), R_(V), R_(NONE), T_(FLOAT), M_(NONE), VP_ },
		[GAUDISIM_TPC_OP_RSQRT] = { "rsqrt", R_(V), R_(V), R_(NONE), T_(FLOAT), M_(NONE), VP_ },
		[GAUDISIM_TPC_OP_SQRT] = { "sqrt", R_(V), R_(V), R_(NONE), T_(FLOAT), M_(NONE), VP_ },
		[GAUDISIM_TPC_OP_TANH] = { "tanh", R_(V), R_(V), R_(NONE), T_(FLOAT), M_(NONE), VP_ },
		[GAUDISIM_TPC_OP_RSUM] = { "rsum", R_(V), R_(V), R_(NONE), T_(ANY), M_(NONE), VP_ },
		[GAUDISIM_TPC_OP_RMAX] = { "rmax", R_(V), R_(V), R_(NONE), T_(ANY), M_(NONE), VP_ },
		[GAUDISIM_TPC_OP_RMIN] = { "rmin", R_(V), R_(V), R_(NONE), T_(ANY), M_(NONE), VP_ },
		[GAUDISIM_TPC_OP_IOTA] = { "iota", R_(V), R_(NONE), R_(NONE), T_(ANY), M_(NONE), VP_ },
		[GAUDISIM_TPC_OP_PAND] = { "pand", R_(VPW), R_(VP), R_(VP), T_(NONE), M_(NONE), VP_ },
		[GAUDISIM_TPC_OP_POR] = { "por", R_(VPW), R_(VP), R_(VP), T_(NONE), M_(NONE), VP_ },
		[GAUDISIM_TPC_OP_PXOR] = { "pxor", R_(VPW), R_(VP), R_(VP), T_(NONE), M_(NONE), VP_ },
		[GAUDISIM_TPC_OP_PNOT] = { "pnot", R_(VPW), R_(VP), R_(NONE), T_(NONE), M_(NONE), VP_ },
	};
	static const struct gaudisim_tpc_opinfo spu[GAUDISIM_TPC_NUM_OPCODES] = {
		[GAUDISIM_TPC_OP_NOP] = { "nop", 0, 0, 0, 0, 0, 0 },
		[GAUDISIM_TPC_OP_HALT] = { "halt", 0, 0, 0, T_(NONE), M_(NONE), 0 },
		[GAUDISIM_TPC_OP_MOV] = { "mov", R_(S), R_(NONE), R_(SB), T_(ANY), M_(NONE), 0 },
		[GAUDISIM_TPC_OP_ADD] = { "add", R_(S), R_(S), R_(SB), T_(ANY), M_(NONE), 0 },
		[GAUDISIM_TPC_OP_SUB] = { "sub", R_(S), R_(S), R_(SB), T_(ANY), M_(NONE), 0 },
		[GAUDISIM_TPC_OP_MUL] = { "mul", R_(S), R_(S), R_(SB), T_(ANY), M_(NONE), 0 },
		[GAUDISIM_TPC_OP_MAC] = { "mac", R_(S), R_(S), R_(SB), T_(ANY), M_(NONE), 0 },
		[GAUDISIM_TPC_OP_MIN] = { "min", R_(S), R_(S), R_(SB), T_(ANY), M_(NONE), 0 },
		[GAUDISIM_TPC_OP_MAX] = { "max", R_(S), R_(S), R_(SB), T_(ANY), M_(NONE), 0 },
		[GAUDISIM_TPC_OP_AND] = { "and", R_(S), R_(S), R_(SB), T_(BITS), M_(NONE), 0 },
		[GAUDISIM_TPC_OP_OR] = { "or", R_(S), R_(S), R_(SB), T_(BITS), M_(NONE), 0 },
		[GAUDISIM_TPC_OP_XOR] = { "xor", R_(S), R_(S), R_(SB), T_(BITS), M_(NONE), 0 },
		[GAUDISIM_TPC_OP_SHL] = { "shl", R_(S), R_(S), R_(SB), T_(INT), M_(NONE), 0 },
		[GAUDISIM_TPC_OP_SHR] = { "shr", R_(S), R_(S), R_(SB), T_(INT), M_(NONE), 0 },
		[GAUDISIM_TPC_OP_NOT] = { "not", R_(S), R_(S), R_(NONE), T_(BITS), M_(NONE), 0 },
		[GAUDISIM_TPC_OP_ABS] = { "abs", R_(S), R_(S), R_(NONE), T_(ANY), M_(NONE), 0 },
		[GAUDISIM_TPC_OP_NEG] = { "neg", R_(S), R_(S), R_(NONE), T_(ANY), M_(NONE), 0 },
		[GAUDISIM_TPC_OP_CMP] = { "cmp", R_(SPW), R_(S), R_(SB), T_(ANY), M_(COND), 0 },
		[GAUDISIM_TPC_OP_SEL] = { "sel", R_(S), R_(S), R_(SB), T_(ANY), M_(SEL), 0 },
		[GAUDISIM_TPC_OP_CVT] = { "cvt", R_(S), R_(S), R_(NONE), T_(ANY), M_(CVT), 0 },
		[GAUDISIM_TPC_OP_EXP] = { "exp", R_(S), R_(S), R_(NONE), T_(FLOAT), M_(NONE), 0 },
		[GAUDISIM_TPC_OP_LOG] = { "log", R_(S), R_(S), R_(NONE), T_(FLOAT), M_(NONE), 0 },
		[GAUDISIM_TPC_OP_RCP] = { "rcp", R_(S), R_(S), R_(NONE), T_(FLOAT), M_(NONE), 0 },
		[GAUDISIM_TPC_OP_RSQRT] = { "rsqrt", R_(S), R_(S), R_(NONE), T_(FLOAT), M_(NONE), 0 },
		[GAUDISIM_TPC_OP_SQRT] = { "sqrt", R_(S), R_(S), R_(NONE), T_(FLOAT), M_(NONE), 0 },
		[GAUDISIM_TPC_OP_TANH] = { "tanh", R_(S), R_(S), R_(NONE), T_(FLOAT), M_(NONE), 0 },
		[GAUDISIM_TPC_OP_PAND] = { "pand", R_(SPW), R_(SP), R_(SP), T_(NONE), M_(NONE), 0 },
		[GAUDISIM_TPC_OP_POR] = { "por", R_(SPW), R_(SP), R_(SP), T_(NONE), M_(NONE), 0 },
		[GAUDISIM_TPC_OP_PXOR] = { "pxor", R_(SPW), R_(SP), R_(SP), T_(NONE), M_(NONE), 0 },
		[GAUDISIM_TPC_OP_PNOT] = { "pnot", R_(SPW), R_(SP), R_(NONE), T_(NONE), M_(NONE), 0 },
		[GAUDISIM_TPC_OP_JMP] = { "jmp", R_(NONE), R_(NONE), R_(NONE), T_(NONE), M_(TARGET),
					  GAUDISIM_TPC_OPF_BRANCH },
		[GAUDISIM_TPC_OP_LOOP] = { "loop", R_(S), R_(NONE), R_(SB), T_(NONE), M_(TARGET),
					   GAUDISIM_TPC_OPF_BRANCH },
		[GAUDISIM_TPC_OP_ILOOP] = { "iloop", R_(I), R_(DIM), R_(S), T_(NONE), M_(TARGET),
					    GAUDISIM_TPC_OPF_BRANCH | GAUDISIM_TPC_OPF_IMM },
		[GAUDISIM_TPC_OP_ISET] = { "iset", R_(I), R_(NONE), R_(SB), T_(NONE), M_(MASK), 0 },
		[GAUDISIM_TPC_OP_IADD] = { "iadd", R_(I), R_(I), R_(SB), T_(NONE), M_(MASK), 0 },
		[GAUDISIM_TPC_OP_IMUL] = { "imul", R_(I), R_(I), R_(SB), T_(NONE), M_(MASK), 0 },
		[GAUDISIM_TPC_OP_IGET] = { "iget", R_(S), R_(I), R_(NONE), T_(NONE), M_(DIM), 0 },
		[GAUDISIM_TPC_OP_RD] = { "rd", R_(S), R_(NONE), R_(NONE), T_(NONE), M_(SPECIAL), 0 },
	};
#undef R_
#undef T_
#undef M_
#undef VP_
	const struct gaudisim_tpc_opinfo *tab;

	if (opc >= GAUDISIM_TPC_NUM_OPCODES)
		return 0;
	switch (slot) {
	case GAUDISIM_TPC_SLOT_LOAD:
		tab = load;
		break;
	case GAUDISIM_TPC_SLOT_VPU:
		tab = vpu;
		break;
	case GAUDISIM_TPC_SLOT_STORE:
		tab = store;
		break;
	case GAUDISIM_TPC_SLOT_SPU:
		tab = spu;
		break;
	default:
		return 0;
	}
	return tab[opc].name ? &tab[opc] : 0;
}

/* Why a slot is illegal (ERR_INFO[7:0] of ERR_ILLEGAL; [15:8] = slot). */
enum gaudisim_tpc_bad {
	GAUDISIM_TPC_OK = 0,
	GAUDISIM_TPC_BAD_OPCODE = 1,	/* no such operation in this slot */
	GAUDISIM_TPC_BAD_NOP = 2,	/* NOP with a field set */
	GAUDISIM_TPC_BAD_DTYPE = 3,	/* dtype not allowed for the operation */
	GAUDISIM_TPC_BAD_PRED = 4,	/* vector predicate where not allowed */
	GAUDISIM_TPC_BAD_OPERAND = 5,	/* register number out of range / unused set */
	GAUDISIM_TPC_BAD_BKIND = 6,	/* SRC_B kind not allowed */
	GAUDISIM_TPC_BAD_MOD = 7,	/* modifier value not allowed */
	GAUDISIM_TPC_BAD_IMM = 8,	/* immediate set but unused */
	GAUDISIM_TPC_BAD_TARGET = 9,	/* branch target past the kernel */
};

static inline int gaudisim_tpc_dtype_in(unsigned int dt, unsigned int tclass)
{
	int is_float = dt == GAUDISIM_DTYPE_FP32 || dt == GAUDISIM_DTYPE_BF16;

	if (tclass == GAUDISIM_TPC_T_NONE)
		return dt == 0;
	if (!gaudisim_dtype_size(dt))
		return 0;
	switch (tclass) {
	case GAUDISIM_TPC_T_ANY:
		return 1;
	case GAUDISIM_TPC_T_FLOAT:
		return is_float;
	case GAUDISIM_TPC_T_INT:
		return !is_float;
	case GAUDISIM_TPC_T_BITS:
		return dt != GAUDISIM_DTYPE_BF16;
	}
	return 0;
}

static inline int gaudisim_tpc_spec_valid(unsigned int spec)
{
	unsigned int d = spec & 0x7;

	if (spec < 0x100)
		return (spec < 0x018 && d < GAUDISIM_TPC_NUM_DIMS) ||
		       spec == GAUDISIM_TPC_SPEC_TPCID;
	if (spec >= 0x180)
		return 0;
	return d < GAUDISIM_TPC_NUM_DIMS;
}

/* Does role r accept field value v? */
static inline int gaudisim_tpc_role_ok(unsigned int r, unsigned int v)
{
	switch (r) {
	case GAUDISIM_TPC_R_NONE:
		return v == 0;
	case GAUDISIM_TPC_R_V:
	case GAUDISIM_TPC_R_S:
		return v < 32;
	case GAUDISIM_TPC_R_VP:
	case GAUDISIM_TPC_R_SP:
	case GAUDISIM_TPC_R_I:
	case GAUDISIM_TPC_R_T:
		return v < 8;
	case GAUDISIM_TPC_R_VPW:
	case GAUDISIM_TPC_R_SPW:
		return v >= 1 && v < 8;
	case GAUDISIM_TPC_R_DIM:
		return v < GAUDISIM_TPC_NUM_DIMS;
	}
	return 0;
}

/*
 * Check one slot. nbundles is the kernel length for branch targets (0:
 * do not check targets). Returns GAUDISIM_TPC_OK or a GAUDISIM_TPC_BAD_*.
 * *uses_imm tells whether the slot consumes its immediate.
 */
static inline int gaudisim_tpc_check_slot(unsigned int slot, const struct gaudisim_tpc_slot *s,
					  unsigned int nbundles, int *uses_imm)
{
	const struct gaudisim_tpc_opinfo *op = gaudisim_tpc_opinfo(slot, s->opc);
	int bok;

	*uses_imm = 0;
	if (!op)
		return GAUDISIM_TPC_BAD_OPCODE;
	if (s->opc == 0)
		return (s->dt | s->pred | s->pneg | s->pvec | s->dst | s->sa | s->sb |
			s->bk | s->mod) ? GAUDISIM_TPC_BAD_NOP : GAUDISIM_TPC_OK;
	if (!gaudisim_tpc_dtype_in(s->dt, op->types))
		return GAUDISIM_TPC_BAD_DTYPE;
	if (s->pvec && !(op->flags & GAUDISIM_TPC_OPF_VPRED))
		return GAUDISIM_TPC_BAD_PRED;
	if (!gaudisim_tpc_role_ok(op->dst, s->dst) || !gaudisim_tpc_role_ok(op->a, s->sa))
		return GAUDISIM_TPC_BAD_OPERAND;

	switch (op->b) {
	case GAUDISIM_TPC_R_VB:
		bok = s->bk == GAUDISIM_TPC_BK_REG || s->bk == GAUDISIM_TPC_BK_SREG ||
		      (s->bk == GAUDISIM_TPC_BK_IMM && s->sb == 0);
		break;
	case GAUDISIM_TPC_R_SB:
		bok = s->bk == GAUDISIM_TPC_BK_REG ||
		      (s->bk == GAUDISIM_TPC_BK_IMM && s->sb == 0);
		break;
	default:
		if (s->bk != GAUDISIM_TPC_BK_REG)
			return GAUDISIM_TPC_BAD_BKIND;
		bok = 1;
		if (!gaudisim_tpc_role_ok(op->b, s->sb))
			return GAUDISIM_TPC_BAD_OPERAND;
		break;
	}
	if (!bok)
		return GAUDISIM_TPC_BAD_BKIND;
	*uses_imm = s->bk == GAUDISIM_TPC_BK_IMM || (op->flags & GAUDISIM_TPC_OPF_IMM);

	switch (op->mod) {
	case GAUDISIM_TPC_M_NONE:
		return s->mod ? GAUDISIM_TPC_BAD_MOD : GAUDISIM_TPC_OK;
	case GAUDISIM_TPC_M_COND:
		return s->mod < GAUDISIM_TPC_NUM_CONDS ? GAUDISIM_TPC_OK : GAUDISIM_TPC_BAD_MOD;
	case GAUDISIM_TPC_M_SEL:
		return s->mod <= (GAUDISIM_TPC_SEL_PRED_MASK | GAUDISIM_TPC_SEL_NEG) ?
		       GAUDISIM_TPC_OK : GAUDISIM_TPC_BAD_MOD;
	case GAUDISIM_TPC_M_CVT:
		if (s->mod >> (GAUDISIM_TPC_CVT_RM_SHIFT + 2))
			return GAUDISIM_TPC_BAD_MOD;
		return gaudisim_dtype_size(s->mod & GAUDISIM_TPC_CVT_DT_MASK) ?
		       GAUDISIM_TPC_OK : GAUDISIM_TPC_BAD_MOD;
	case GAUDISIM_TPC_M_MASK:
		return s->mod >= 1 && s->mod <= GAUDISIM_TPC_DIM_MASK_ALL ?
		       GAUDISIM_TPC_OK : GAUDISIM_TPC_BAD_MOD;
	case GAUDISIM_TPC_M_DIM:
		return s->mod < GAUDISIM_TPC_NUM_DIMS ? GAUDISIM_TPC_OK : GAUDISIM_TPC_BAD_MOD;
	case GAUDISIM_TPC_M_TARGET:
		return nbundles && s->mod >= nbundles ? GAUDISIM_TPC_BAD_TARGET : GAUDISIM_TPC_OK;
	case GAUDISIM_TPC_M_SPECIAL:
		return gaudisim_tpc_spec_valid(s->mod) ? GAUDISIM_TPC_OK : GAUDISIM_TPC_BAD_MOD;
	}
	return GAUDISIM_TPC_BAD_MOD;
}

/*
 * Check a whole bundle: every slot, and immediates that no slot uses must
 * be 0. Returns GAUDISIM_TPC_OK or the first GAUDISIM_TPC_BAD_*; *bad_slot
 * (if not NULL) names the slot.
 */
static inline int gaudisim_tpc_check_bundle(const unsigned char *bundle, unsigned int nbundles,
					    unsigned int *bad_slot)
{
	unsigned int slot;

	for (slot = 0; slot < GAUDISIM_TPC_NUM_SLOTS; slot++) {
		struct gaudisim_tpc_slot s;
		int uses_imm, bad;

		gaudisim_tpc_slot_decode(bundle, slot, &s);
		bad = gaudisim_tpc_check_slot(slot, &s, nbundles, &uses_imm);
		if (bad == GAUDISIM_TPC_OK && !uses_imm && s.imm)
			bad = GAUDISIM_TPC_BAD_IMM;
		if (bad != GAUDISIM_TPC_OK) {
			if (bad_slot)
				*bad_slot = slot;
			return bad;
		}
	}
	return GAUDISIM_TPC_OK;
}

/* ---- Index-space split -------------------------------------------------- */

/* One TPC's part of an index space: PART_START / PART_SIZE values. */
struct gaudisim_tpc_part {
	unsigned int start[GAUDISIM_TPC_NUM_DIMS];
	unsigned int size[GAUDISIM_TPC_NUM_DIMS];
};

/*
 * Split an index space over at most max_parts TPCs. The split runs along
 * one dimension: the highest one whose size is at least max_parts, else
 * the largest one (so each TPC gets a contiguous slab of the outer
 * dimensions, or of the row when there is only one). Parts are near-equal
 * chunks; fewer than max_parts come out when the dimension is short.
 * Returns the number of parts written, 0 when a size is 0 or max_parts is 0.
 *
 * The runtime programs TPC i with the same kernel, tensors, arguments and
 * ISPACE_SIZE, and with PART_START(d) = parts[i].start[d] and
 * PART_SIZE(d) = parts[i].size[d], then writes COMMIT on each of the
 * returned number of TPCs.
 */
static inline unsigned int gaudisim_tpc_split(const unsigned int isize[GAUDISIM_TPC_NUM_DIMS],
					      unsigned int max_parts,
					      struct gaudisim_tpc_part *parts)
{
	unsigned int d, split = 0, chunk, n, i;

	if (!max_parts)
		return 0;
	for (d = 0; d < GAUDISIM_TPC_NUM_DIMS; d++)
		if (!isize[d])
			return 0;
	for (d = GAUDISIM_TPC_NUM_DIMS; d-- > 0;)
		if (isize[d] >= max_parts)
			break;
	if (d < GAUDISIM_TPC_NUM_DIMS) {
		split = d;
	} else {
		for (d = 0; d < GAUDISIM_TPC_NUM_DIMS; d++)
			if (isize[d] >= isize[split])
				split = d;
	}
	n = isize[split] < max_parts ? isize[split] : max_parts;
	chunk = isize[split] / n + (isize[split] % n != 0);
	n = isize[split] / chunk + (isize[split] % chunk != 0);
	for (i = 0; i < n; i++) {
		for (d = 0; d < GAUDISIM_TPC_NUM_DIMS; d++) {
			parts[i].start[d] = 0;
			parts[i].size[d] = isize[d];
		}
		parts[i].start[split] = i * chunk;
		parts[i].size[split] = isize[split] - i * chunk < chunk ?
				       isize[split] - i * chunk : chunk;
	}
	return n;
}

#endif /* GAUDISIM_HW_TPC_H */
