/* SPDX-License-Identifier: MIT */
/*
 * gaudisim hardware contract: which packet fields are defined, per opcode
 * and per queue class, and which sync-manager values are legal.
 *
 * The device and the driver's CB parser both decide with these functions,
 * so they agree bit for bit: a bit outside gaudisim_pkt_ctl_defined() or
 * gaudisim_pkt_dw0_defined() is reserved; the device fails such a packet
 * with GAUDISIM_CP_ERR_PKT_FIELD and the driver refuses the CB with EINVAL
 * before it reaches the device. gaudisim_pkt_allowed() says which queue
 * classes may carry an opcode at all (the device answers a refusal with
 * GAUDISIM_CP_ERR_PRIV, the driver with EPERM). The driver may narrow a
 * packet further for user CBs (address ranges, sync objects it owns); it
 * never accepts a bit the device would refuse.
 */
#ifndef GAUDISIM_HW_PKT_LEGAL_H
#define GAUDISIM_HW_PKT_LEGAL_H

#include "gaudisim_hw_packets.h"
#include "gaudisim_hw_sync.h"

/* Header bits every packet defines: opcode and the three barriers. */
#define GAUDISIM_PKT_CTL_HEADER \
	(GAUDISIM_PKT_CTL_OPCODE_MASK | GAUDISIM_PKT_CTL_EB | \
	 GAUDISIM_PKT_CTL_RB | GAUDISIM_PKT_CTL_MB)
#define GAUDISIM_PKT_CTL_MSG_FIELDS \
	(GAUDISIM_PKT_CTL_HEADER | GAUDISIM_MSG_CTL_WEAKLY_ORDERED | \
	 GAUDISIM_MSG_CTL_NO_SNOOP | GAUDISIM_MSG_CTL_OP_MASK)
/* ctl [7:0] of ARB_POINT is defined (accepted, ignored); its fields are in dw0. */
#define GAUDISIM_ARB_POINT_CTL_IGNORED	0xffu

/* Where a CB runs, i.e. whose rules apply to its packets. */
enum gaudisim_queue_class {
	/*
	 * A CB on an external (secured) CP: the driver built or copied it,
	 * so the device runs every packet but CP_DMA.
	 */
	GAUDISIM_QCLASS_SECURED,
	/* A user CB run in place by an internal CP, or a CP_DMA'd buffer. */
	GAUDISIM_QCLASS_INTERNAL,
	/*
	 * A user CB the driver's parser copies for an external queue: only
	 * packets the parser follows and checks completely.
	 */
	GAUDISIM_QCLASS_USER_EXTERNAL,
};

/* ctl bits an opcode defines; 0 for an opcode that does not exist. */
static inline unsigned int gaudisim_pkt_ctl_defined(unsigned int opcode)
{
	switch (opcode) {
	case GAUDISIM_PKT_WREG_32:
	case GAUDISIM_PKT_WREG_BULK:
		return GAUDISIM_PKT_CTL_HEADER | GAUDISIM_WREG32_CTL_REG_OFFSET_MASK;
	case GAUDISIM_PKT_MSG_LONG:
	case GAUDISIM_PKT_MSG_PROT:
		return GAUDISIM_PKT_CTL_MSG_FIELDS | GAUDISIM_PKT_CTL_PRED_MASK;
	case GAUDISIM_PKT_MSG_SHORT:
		return GAUDISIM_PKT_CTL_MSG_FIELDS | GAUDISIM_MSG_SHORT_CTL_OFFSET_MASK |
		       GAUDISIM_MSG_SHORT_CTL_BASE_MASK;
	case GAUDISIM_PKT_LIN_DMA:
		return GAUDISIM_PKT_CTL_HEADER | GAUDISIM_LIN_DMA_CTL_SUPPORTED |
		       GAUDISIM_LIN_DMA_CTL_WR_COMP_EN;
	case GAUDISIM_PKT_ARB_POINT:
		return GAUDISIM_PKT_CTL_HEADER | GAUDISIM_ARB_POINT_CTL_IGNORED;
	case GAUDISIM_PKT_NOP:
		/* A NOP ignores everything but its opcode. */
		return 0xffffffffu;
	case GAUDISIM_PKT_CP_DMA:
	case GAUDISIM_PKT_FENCE:
	case GAUDISIM_PKT_STOP:
	case GAUDISIM_PKT_LOAD_AND_EXE:
		return GAUDISIM_PKT_CTL_HEADER | GAUDISIM_PKT_CTL_PRED_MASK;
	case GAUDISIM_PKT_REPEAT:
	case GAUDISIM_PKT_WAIT:
		return GAUDISIM_PKT_CTL_HEADER;
	default:
		return 0;
	}
}

/* dw0 bits an opcode defines (all of them where dw0 is a value or a size). */
static inline unsigned int gaudisim_pkt_dw0_defined(unsigned int opcode)
{
	switch (opcode) {
	case GAUDISIM_PKT_WREG_BULK:
		return GAUDISIM_WREG_BULK_SIZE64_MASK;
	case GAUDISIM_PKT_REPEAT:
		return GAUDISIM_REPEAT_SORE_END | GAUDISIM_REPEAT_OUTER |
		       GAUDISIM_REPEAT_COUNT_MASK;
	case GAUDISIM_PKT_FENCE:
		return GAUDISIM_FENCE_DEC_VAL_MASK | GAUDISIM_FENCE_TARGET_MASK |
		       GAUDISIM_FENCE_ID_MASK;
	case GAUDISIM_PKT_ARB_POINT:
		return GAUDISIM_ARB_POINT_PRIORITY_MASK | GAUDISIM_ARB_POINT_RLS;
	case GAUDISIM_PKT_WAIT:
		return GAUDISIM_WAIT_CYCLES_MASK | GAUDISIM_WAIT_INC_VAL_MASK |
		       GAUDISIM_WAIT_ID_MASK;
	case GAUDISIM_PKT_LOAD_AND_EXE:
		return GAUDISIM_LOAD_AND_EXE_DST | GAUDISIM_LOAD_AND_EXE_LOAD |
		       GAUDISIM_LOAD_AND_EXE_EXE | GAUDISIM_LOAD_AND_EXE_ETYPE;
	default:
		/* WREG_32 and MSG_* values, LIN_DMA and CP_DMA sizes; NOP ignores it. */
		return 0xffffffffu;
	}
}

/* May a CB of this class carry the opcode? */
static inline int gaudisim_pkt_allowed(unsigned int opcode, enum gaudisim_queue_class qclass)
{
	switch (opcode) {
	case GAUDISIM_PKT_NOP:
	case GAUDISIM_PKT_FENCE:
	case GAUDISIM_PKT_ARB_POINT:
	case GAUDISIM_PKT_MSG_LONG:
	case GAUDISIM_PKT_MSG_SHORT:
	case GAUDISIM_PKT_LIN_DMA:
	case GAUDISIM_PKT_WREG_32:
	case GAUDISIM_PKT_LOAD_AND_EXE:
		/*
		 * The parser narrows their addresses and registers further
		 * (LOAD_AND_EXE: gaudisim_load_and_exe_allowed()).
		 */
		return 1;
	case GAUDISIM_PKT_MSG_PROT:
		/* The driver's completion messages; never from a user CB. */
		return qclass == GAUDISIM_QCLASS_SECURED;
	case GAUDISIM_PKT_CP_DMA:
		/* On a secured CP it would run a buffer the driver never saw. */
		return qclass == GAUDISIM_QCLASS_INTERNAL;
	case GAUDISIM_PKT_WREG_BULK:
	case GAUDISIM_PKT_REPEAT:
	case GAUDISIM_PKT_STOP:
	case GAUDISIM_PKT_WAIT:
		/*
		 * Not in user CBs of external queues: the parser would have to
		 * follow loops and bulk register writes.
		 */
		return qclass != GAUDISIM_QCLASS_USER_EXTERNAL;
	default:
		return 0;
	}
}

/*
 * May a CB of this class run a LOAD_AND_EXE with this cfg? User CBs of
 * external queues load predicates only, as on Gaudi: scalars (dst 1) and
 * exe would run a packet the parser never saw.
 */
static inline int gaudisim_load_and_exe_allowed(unsigned int cfg, enum gaudisim_queue_class qclass)
{
	if (qclass != GAUDISIM_QCLASS_USER_EXTERNAL)
		return 1;
	return !(cfg & (GAUDISIM_LOAD_AND_EXE_DST | GAUDISIM_LOAD_AND_EXE_EXE));
}

/* A sync-object update word ("so_upd") with no reserved bit set. */
static inline int gaudisim_sob_update_legal(unsigned int so_upd)
{
	return !(so_upd & GAUDISIM_SYNC_SOB_RESERVED_MASK);
}

/* A monitor arm word that watches at least one sync object. */
static inline int gaudisim_mon_arm_legal(unsigned int arm)
{
	return (arm & GAUDISIM_SYNC_MON_MASK_MASK) != GAUDISIM_SYNC_MON_MASK_MASK;
}

#endif /* GAUDISIM_HW_PKT_LEGAL_H */
