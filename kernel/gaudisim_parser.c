// SPDX-License-Identifier: GPL-2.0
/*
 * CB parser: the security boundary of external queues.
 *
 * The CP of a PCI-DMA queue is secured, as on Gaudi: user space never
 * hands the device its own CB. The driver takes a snapshot of the user CB
 * (user space may keep writing through its mapping), then walks the
 * snapshot twice with the same code: a first pass that only validates and
 * measures, and a second pass that writes the patched packets into a
 * kernel CB of exactly that size. ctx->mem_lock is held across both
 * passes, so userptr mappings cannot change in between.
 *
 * Packet names, sizes and layouts come from hw/gaudisim_hw_packets.h.
 * Which opcodes a user CB may carry and which of their bits are reserved
 * come from the legality table in hw/gaudisim_hw_pkt_legal.h, the one the
 * device checks with: a reserved bit is EINVAL here, never a job the
 * device aborts. On top of it, what a packet may do:
 *  - NOP, FENCE, ARB_POINT: copied unchanged. MSG_LONG, FENCE and
 *    LOAD_AND_EXE keep their predicate (ctl [4:0]): the device skips them
 *    while it is false, which needs no check here.
 *  - LOAD_AND_EXE: loading predicates only (as Gaudi's driver allows), from
 *    user HBM, SRAM or a userptr page (translated); scalars and exe would
 *    run a packet the parser never saw (EPERM).
 *  - MSG_SHORT: a value (op 0) to a user sync object (base 1; a legal
 *    so_upd word) or to a register of a user monitor (base 0); the
 *    driver's and the reserved ranges of gaudisim_hw_sync.h are refused
 *    (EPERM). A monitor's payload address may name user HBM, SRAM or the
 *    register block, never reserved HBM or host memory (EPERM): the
 *    halves are written separately, so each is checked so that no
 *    combination of accepted halves reaches further. The device enforces
 *    the same on its side: a CB-armed monitor writes with the rights of
 *    the queue that armed it, never with the driver's.
 *  - WREG_32: only to the stream's own CP_FENCE_RDATA registers, which
 *    the device accepts from external CBs (a CB may signal its own fence).
 *  - MSG_LONG: a 32-bit value or a 64-bit timestamp to user HBM, SRAM or a
 *    userptr VA (translated); of the register space only a user interrupt
 *    ID to USER_INTR, so a CB can wake its own waiters.
 *  - LIN_DMA: between user HBM, SRAM and userptr VAs. Userptr VAs are
 *    translated to host device addresses; a transfer that crosses a bus
 *    discontinuity of the mapping is split into one packet per piece.
 *  - anything that writes registers or is driver-only: refused (EPERM).
 * Every address range is checked as a whole, with overflow checks.
 */

#include <linux/dma-mapping.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "gaudisim_cb.h"
#include "gaudisim_cs.h"
#include "gaudisim_ctx.h"
#include "gaudisim_drv.h"
#include "gaudisim_mem.h"
#include "gaudisim_parser.h"
#include "gaudisim_queue.h"

#include <hw/gaudisim_hw_gaudi_map.h>
#include <hw/gaudisim_hw_pkt_legal.h>
#include <hw/gaudisim_hw_sync.h>

/*
 * Largest patched body the driver builds for one job: with its tail it
 * is a CB of at most GAUDISIM_CB_MAX_SIZE + 32 bytes, what the device
 * fetches.
 */
#define GAUDISIM_KCB_MAX_BODY	GAUDISIM_CB_MAX_SIZE

static_assert(2 * sizeof(struct gaudisim_packet_msg_prot) == GAUDISIM_CB_COMPLETION_TAIL_SIZE);

/*
 * A user LIN_DMA may not ask for the engine's completion message: its
 * address registers are not the user's to program on external queues.
 */
#define GAUDISIM_LIN_DMA_CTL_ALLOWED \
	(GAUDISIM_PKT_CTL_HEADER | GAUDISIM_LIN_DMA_CTL_SUPPORTED)

/* Packets between two checks for rescheduling and fatal signals. */
#define GAUDISIM_PARSE_RESCHED_PKTS	4096

/**
 * struct gaudisim_parser - state of one pass over a CB snapshot
 * @ctx: context whose mappings the CB may address
 * @gdev: its device
 * @src: CB snapshot
 * @src_size: bytes in @src
 * @off: offset of the packet being parsed, for messages
 * @dst: kernel CB body; NULL in the measuring pass
 * @dst_cap: bytes available at @dst
 * @dst_len: bytes produced so far
 * @refs: userptr references taken for the job; NULL in the measuring pass
 * @max_refs: entries available at @refs
 * @nrefs: userptr uses seen so far
 * @has_dma: a LIN_DMA was seen
 * @stream: stream of the job's queue inside its QMAN
 */
struct gaudisim_parser {
	struct gaudisim_ctx *ctx;
	struct gaudisim_device *gdev;
	const u8 *src;
	u32 src_size;
	u32 off;
	u8 *dst;
	u32 dst_cap;
	u32 dst_len;
	struct gaudisim_userptr **refs;
	u32 max_refs;
	u32 nrefs;
	bool has_dma;
	u32 stream;
	const struct gaudisim_encap_info *encap;
	u32 encap_added;
};

static __printf(2, 3)
void gaudisim_parse_dbg(const struct gaudisim_parser *p, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	gaudisim_dbg(p->gdev, "packet at offset %u: %pV", p->off, &vaf);
	va_end(args);
}

static int gaudisim_emit(struct gaudisim_parser *p, const void *pkt, u32 size)
{
	if (size > GAUDISIM_KCB_MAX_BODY - p->dst_len) {
		gaudisim_parse_dbg(p, "patched CB would exceed %u bytes\n",
				   GAUDISIM_KCB_MAX_BODY);
		return -EINVAL;
	}
	if (p->dst) {
		/* Cannot happen while mem_lock is held; never overrun anyway. */
		if (size > p->dst_cap - p->dst_len)
			return -EINVAL;
		memcpy(p->dst + p->dst_len, pkt, size);
	}
	p->dst_len += size;
	return 0;
}

/* The job keeps a reference on every mapping its packets address. */
static int gaudisim_add_ref(struct gaudisim_parser *p, struct gaudisim_userptr *up)
{
	if (p->refs) {
		if (p->nrefs >= p->max_refs)
			return -EINVAL;
		gaudisim_userptr_get(up);
		p->refs[p->nrefs] = up;
	}
	p->nrefs++;
	return 0;
}

/**
 * gaudisim_check_range() - may a user packet address [addr, addr + len)?
 * @p: parser
 * @addr: device address or userptr VA
 * @len: bytes, at least 1
 * @up: set to the userptr mapping when @addr is a userptr VA, else NULL
 *
 * Return: 0 when the whole range lies in user HBM, in SRAM or inside one
 * userptr mapping; -EPERM for register space and raw host addresses;
 * -EINVAL for anything else (reserved HBM, holes, unmapped VAs, ranges
 * that leave their region).
 */
static int gaudisim_check_range(struct gaudisim_parser *p, u64 addr, u64 len,
				struct gaudisim_userptr **up)
{
	u64 hbm_end = p->gdev->hbm_size;
	u64 sram_end = GAUDISIM_SRAM_BASE + p->gdev->sram_size;
	u64 end;

	*up = NULL;
	if (check_add_overflow(addr, len, &end))
		return -EINVAL;

	if (addr >= GAUDISIM_HOST_VA_BASE &&
	    addr - GAUDISIM_HOST_VA_BASE < GAUDISIM_HOST_VA_SIZE) {
		*up = gaudisim_userptr_find(p->ctx, addr, len);
		return *up ? 0 : -EINVAL;
	}
	if (addr < hbm_end) {
		if (addr < GAUDISIM_HBM_USER_BASE || end > hbm_end)
			return -EINVAL;
		/* HBM is physical: a shared context reaches its own allocations only. */
		if (p->ctx->shared && !gaudisim_mem_owns_hbm(p->ctx, addr, len)) {
			gaudisim_parse_dbg(p, "HBM 0x%llx + %llu is not an allocation of this context\n",
					   addr, len);
			return -EPERM;
		}
		return 0;
	}
	if (addr >= GAUDISIM_SRAM_BASE && addr < sram_end) {
		if (p->ctx->shared) {
			gaudisim_parse_dbg(p, "SRAM is not partitioned: refused to shared contexts\n");
			return -EPERM;
		}
		return end <= sram_end ? 0 : -EINVAL;
	}
	if (end > GAUDISIM_CFG_BASE &&
	    addr < GAUDISIM_CFG_BASE + GAUDISIM_GAUDI_CFG_SIZE)
		return -EPERM;
	if (addr >= GAUDISIM_HOST_BASE && addr < GAUDISIM_HOST_END)
		return -EPERM;
	return -EINVAL;
}

/* May this context's work use queue @q (the rights the driver grants it)? */
static bool gaudisim_parse_owns_queue(struct gaudisim_parser *p, unsigned int q)
{
	if (q >= GAUDISIM_QUEUE_ID_SIZE)
		return false;
	if (GAUDISIM_QUEUE_IS_EXTERNAL(q))
		return p->gdev->queues[q].present;
	return !p->ctx->shared && p->gdev->iqueues[q].present;
}

/*
 * MSG_LONG to a QMAN register, at Gaudi's address or the register map's:
 * as on Gaudi, a user CB may add to the fence counters of its own queues
 * and set its QMANs' arbitration (stored, not scheduled by: device.md).
 * Everything else in register space stays the driver's.
 */
static int gaudisim_parse_qm_write(struct gaudisim_parser *p,
				   const struct gaudisim_packet_msg_long *pkt, u32 op, u64 addr)
{
	u64 off = addr - GAUDISIM_CFG_BASE;
	unsigned int reg, e, r, f, s, cp;

	if (!gaudisim_gaudi_cfg_decode(off, sizeof(u32), &reg)) {
		if (off >= GAUDISIM_CFG_BAR_SIZE)
			goto refused;
		reg = off;
	}
	if (op != GAUDISIM_MSG_OP_WRITE_VALUE || reg < GAUDISIM_ENGINE_BLOCK_BASE)
		goto refused;
	e = (reg - GAUDISIM_ENGINE_BLOCK_BASE) / GAUDISIM_ENGINE_BLOCK_SIZE;
	r = (reg - GAUDISIM_ENGINE_BLOCK_BASE) % GAUDISIM_ENGINE_BLOCK_SIZE;
	if (e >= GAUDISIM_ENGINE_COUNT || r < GAUDISIM_QM_OFFSET)
		goto refused;
	r -= GAUDISIM_QM_OFFSET;

	if (r == GAUDISIM_QM_ARB_CFG || r == GAUDISIM_QM_ARB_MST_QUIET_PER ||
	    (r >= GAUDISIM_QM_ARB_WRR_WEIGHT(0) &&
	     r < GAUDISIM_QM_ARB_WRR_WEIGHT(GAUDISIM_STREAMS_PER_QMAN))) {
		for (s = 0; s < GAUDISIM_STREAMS_PER_QMAN; s++)
			if (gaudisim_parse_owns_queue(p, gaudisim_engine_queue_id(e, s)))
				return gaudisim_emit(p, pkt, sizeof(*pkt));
		goto refused;
	}
	if (r >= GAUDISIM_QM_CP_FENCE_RDATA(0, 0) &&
	    r < GAUDISIM_QM_CP_FENCE_RDATA(GAUDISIM_QM_NUM_FENCES, 0)) {
		f = (r - GAUDISIM_QM_CP_FENCE_RDATA(0, 0)) / GAUDISIM_QM_CP_ARRAY_STRIDE;
		cp = (r - GAUDISIM_QM_CP_FENCE_RDATA(f, 0)) / 4;
		/* The lower CP runs buffers of all four streams: all must be ours. */
		for (s = 0; s < GAUDISIM_STREAMS_PER_QMAN; s++)
			if ((cp == s || cp == GAUDISIM_QM_LOWER_CP) &&
			    !gaudisim_parse_owns_queue(p, gaudisim_engine_queue_id(e, s)))
				goto refused;
		return gaudisim_emit(p, pkt, sizeof(*pkt));
	}
refused:
	gaudisim_parse_dbg(p, "MSG_LONG may not write register 0x%llx\n", addr);
	return -EPERM;
}

/* MSG_LONG to USER_INTR: a 32-bit user interrupt ID, nothing else. */
static int gaudisim_parse_user_intr(struct gaudisim_parser *p,
				    const struct gaudisim_packet_msg_long *pkt, u32 op)
{
	u32 id = le32_to_cpu(pkt->value);

	if (op != GAUDISIM_MSG_OP_WRITE_VALUE) {
		gaudisim_parse_dbg(p, "MSG_LONG to USER_INTR must write a value\n");
		return -EINVAL;
	}
	if (id < GAUDISIM_MSIX_VEC_USER_FIRST ||
	    id >= GAUDISIM_MSIX_VEC_USER_FIRST + GAUDISIM_MSIX_NUM_USER) {
		gaudisim_parse_dbg(p, "MSG_LONG raises %u, not a user interrupt\n", id);
		return -EINVAL;
	}
	if (id - p->ctx->uirq_first >= p->ctx->uirq_count) {
		gaudisim_parse_dbg(p, "MSG_LONG raises user interrupt %u of another context\n", id);
		return -EPERM;
	}
	return gaudisim_emit(p, pkt, sizeof(*pkt));
}

static int gaudisim_parse_msg_long(struct gaudisim_parser *p,
				   const struct gaudisim_packet_msg_long *pkt)
{
	struct gaudisim_packet_msg_long out = *pkt;
	u32 ctl = le32_to_cpu(pkt->ctl);
	u64 addr = le64_to_cpu(pkt->addr);
	struct gaudisim_userptr *up;
	u32 op, len;
	int rc;

	op = (ctl & GAUDISIM_MSG_CTL_OP_MASK) >> GAUDISIM_MSG_CTL_OP_SHIFT;
	switch (op) {
	case GAUDISIM_MSG_OP_WRITE_VALUE:
		len = sizeof(u32);
		break;
	case GAUDISIM_MSG_OP_WRITE_TIMESTAMP:
		len = sizeof(u64);
		break;
	default:
		gaudisim_parse_dbg(p, "MSG_LONG with unknown op %u\n", op);
		return -EINVAL;
	}

	if (addr == GAUDISIM_CFG_BASE + GAUDISIM_REG_USER_INTR)
		return gaudisim_parse_user_intr(p, pkt, op);
	if (!IS_ALIGNED(addr, sizeof(u32))) {
		gaudisim_parse_dbg(p, "MSG_LONG address 0x%llx is not 4-byte aligned\n",
				   addr);
		return -EINVAL;
	}
	if (addr >= GAUDISIM_CFG_BASE && addr - GAUDISIM_CFG_BASE < GAUDISIM_GAUDI_CFG_SIZE)
		return gaudisim_parse_qm_write(p, pkt, op, addr);
	rc = gaudisim_check_range(p, addr, len, &up);
	if (rc) {
		gaudisim_parse_dbg(p, "MSG_LONG may not write %u bytes at 0x%llx\n",
				   len, addr);
		return rc;
	}
	if (up) {
		dma_addr_t bus;
		u64 contig;

		gaudisim_userptr_translate(up, addr, &bus, &contig);
		if (contig < len) {
			gaudisim_parse_dbg(p, "MSG_LONG at 0x%llx crosses a host page boundary\n",
					   addr);
			return -EINVAL;
		}
		out.addr = cpu_to_le64(bus + GAUDISIM_HOST_BASE);
		rc = gaudisim_add_ref(p, up);
		if (rc)
			return rc;
	}
	return gaudisim_emit(p, &out, sizeof(out));
}

/* A zero-length transfer moves nothing: keep only its barriers. */
static int gaudisim_emit_nop(struct gaudisim_parser *p, u32 ctl)
{
	struct gaudisim_packet_nop nop = {
		.ctl = cpu_to_le32(GAUDISIM_PKT_CTL(GAUDISIM_PKT_NOP) |
				   (ctl & (GAUDISIM_PKT_CTL_EB |
					   GAUDISIM_PKT_CTL_RB |
					   GAUDISIM_PKT_CTL_MB))),
	};

	return gaudisim_emit(p, &nop, sizeof(nop));
}

/*
 * Emit a LIN_DMA whose source and/or destination is a userptr VA as one
 * packet per bus-contiguous piece, every piece translated.
 */
static int gaudisim_emit_lin_dma_split(struct gaudisim_parser *p,
				       const struct gaudisim_packet_lin_dma *pkt,
				       struct gaudisim_userptr *src_up,
				       struct gaudisim_userptr *dst_up)
{
	u64 dst_field = le64_to_cpu(pkt->dst);
	u64 dst_high = dst_field & ~GAUDISIM_LIN_DMA_DST_ADDR_MASK;
	u64 dst = dst_field & GAUDISIM_LIN_DMA_DST_ADDR_MASK;
	u64 src = le64_to_cpu(pkt->src);
	u32 tsize = le32_to_cpu(pkt->tsize);
	bool fill = le32_to_cpu(pkt->ctl) & GAUDISIM_LIN_DMA_CTL_MEMSET;
	u64 done = 0;
	int rc;

	while (done < tsize) {
		struct gaudisim_packet_lin_dma out = *pkt;
		u64 piece = tsize - done;
		/* A memset's source is its fill value: every piece keeps it. */
		u64 s = fill ? src : src + done;
		u64 d = dst + done;
		dma_addr_t bus;
		u64 contig;

		if (src_up) {
			gaudisim_userptr_translate(src_up, s, &bus, &contig);
			piece = min(piece, contig);
			s = bus + GAUDISIM_HOST_BASE;
		}
		if (dst_up) {
			gaudisim_userptr_translate(dst_up, d, &bus, &contig);
			piece = min(piece, contig);
			d = bus + GAUDISIM_HOST_BASE;
		}

		/* Translation of a VA inside its mapping yields at least 1 byte. */
		if (!piece)
			return -EINVAL;
		out.tsize = cpu_to_le32((u32)piece);
		out.src = cpu_to_le64(s);
		out.dst = cpu_to_le64(dst_high | (d & GAUDISIM_LIN_DMA_DST_ADDR_MASK));
		rc = gaudisim_emit(p, &out, sizeof(out));
		if (rc)
			return rc;
		done += piece;
	}

	if (src_up) {
		rc = gaudisim_add_ref(p, src_up);
		if (rc)
			return rc;
	}
	if (dst_up)
		return gaudisim_add_ref(p, dst_up);
	return 0;
}

static int gaudisim_parse_lin_dma(struct gaudisim_parser *p,
				  const struct gaudisim_packet_lin_dma *pkt)
{
	u32 tsize = le32_to_cpu(pkt->tsize);
	u32 ctl = le32_to_cpu(pkt->ctl);
	u64 src = le64_to_cpu(pkt->src);
	u64 dst = le64_to_cpu(pkt->dst) & GAUDISIM_LIN_DMA_DST_ADDR_MASK;
	struct gaudisim_userptr *src_up = NULL, *dst_up;
	int rc;

	if (ctl & ~GAUDISIM_LIN_DMA_CTL_ALLOWED) {
		gaudisim_parse_dbg(p, "LIN_DMA with ctl bits 0x%08x, which user CBs may not set\n",
				   ctl & ~GAUDISIM_LIN_DMA_CTL_ALLOWED);
		return -EINVAL;
	}
	if (!(ctl & GAUDISIM_LIN_DMA_CTL_LIN)) {
		gaudisim_parse_dbg(p, "LIN_DMA without the LIN bit\n");
		return -EINVAL;
	}
	p->has_dma = true;

	if (!tsize)
		return gaudisim_emit_nop(p, ctl);

	rc = gaudisim_check_range(p, dst, tsize, &dst_up);
	if (rc) {
		gaudisim_parse_dbg(p, "LIN_DMA may not write %u bytes at 0x%llx\n",
				   tsize, dst);
		return rc;
	}
	/* A memset's source is the fill value, not an address. */
	if (!(ctl & GAUDISIM_LIN_DMA_CTL_MEMSET)) {
		rc = gaudisim_check_range(p, src, tsize, &src_up);
		if (rc) {
			gaudisim_parse_dbg(p, "LIN_DMA may not read %u bytes at 0x%llx\n",
					   tsize, src);
			return rc;
		}
	}

	if (!src_up && !dst_up)
		return gaudisim_emit(p, pkt, sizeof(*pkt));
	return gaudisim_emit_lin_dma_split(p, pkt, src_up, dst_up);
}

/* May a user MSG_SHORT write this monitor (registers other than STATUS)? */
static bool gaudisim_user_monitor(u32 mon)
{
	return mon >= GAUDISIM_SYNC_FIRST_USER_MON &&
	       mon < GAUDISIM_SYNC_NUM_MONITORS &&
	       (mon < GAUDISIM_SYNC_RESERVED_MON_FIRST ||
		mon > GAUDISIM_SYNC_RESERVED_MON_LAST);
}

/*
 * May a user CB put @value into a monitor payload register at @reg (its
 * offset from the monitor arrays)? The address halves are checked one by
 * one: the high half names user HBM (at most the top of HBM) or the
 * SRAM/register window, never host memory or a device VA; the low half
 * never falls below the end of reserved HBM, so that with a high half of
 * 0 (its reset value) the address is still user HBM. Every combination of
 * accepted halves is then user HBM, SRAM, a register or a hole.
 */
static int gaudisim_check_mon_payload(struct gaudisim_parser *p, u32 reg, u32 value)
{
	u32 hbm_hi = upper_32_bits(p->gdev->hbm_size - 1);
	u32 win_hi = upper_32_bits(GAUDISIM_CFG_BASE);

	static_assert(upper_32_bits(GAUDISIM_SRAM_BASE) ==
		      upper_32_bits(GAUDISIM_CFG_BASE + GAUDISIM_CFG_BAR_SIZE - 1));
	static_assert(upper_32_bits(GAUDISIM_CFG_BASE) <
		      upper_32_bits(GAUDISIM_HOST_BASE));
	static_assert(lower_32_bits(GAUDISIM_SRAM_BASE) >= GAUDISIM_HBM_USER_BASE);

	if (reg < GAUDISIM_SYNC_MON_PAY_ADDRH(0) - GAUDISIM_SYNC_MON_BASE_OFFSET) {
		if (value >= GAUDISIM_HBM_USER_BASE)
			return 0;
		gaudisim_parse_dbg(p, "monitor payload address low half 0x%08x points into reserved HBM\n",
				   value);
		return -EPERM;
	}
	if (reg < GAUDISIM_SYNC_MON_PAY_DATA(0) - GAUDISIM_SYNC_MON_BASE_OFFSET) {
		/* Shared contexts: payloads raise fences, they never write HBM. */
		if (p->ctx->shared && value != win_hi) {
			gaudisim_parse_dbg(p, "monitor payload address high half 0x%08x: shared contexts target registers only\n",
					   value);
			return -EPERM;
		}
		if (value <= hbm_hi || value == win_hi)
			return 0;
		gaudisim_parse_dbg(p, "monitor payload address high half 0x%08x is outside device memory\n",
				   value);
		return -EPERM;
	}
	return 0;
}

/* A legal value for a sync-manager register a user CB writes. */
static int gaudisim_check_sync_value(struct gaudisim_parser *p, u32 base, u32 reg, u32 value)
{
	u32 arm = GAUDISIM_SYNC_MON_ARM(0) - GAUDISIM_SYNC_MON_BASE_OFFSET;

	if (base == GAUDISIM_MSG_BASE_SOB) {
		if (gaudisim_sob_update_legal(value))
			return 0;
		gaudisim_parse_dbg(p, "sync object update 0x%08x sets reserved bits\n", value);
		return -EINVAL;
	}
	if (reg >= arm) {
		u32 sob = (value & GAUDISIM_SYNC_MON_GROUP_MASK) * GAUDISIM_SYNC_SOBS_PER_GROUP;

		if (!gaudisim_mon_arm_legal(value)) {
			gaudisim_parse_dbg(p, "monitor arm word 0x%08x watches no sync object\n",
					   value);
			return -EINVAL;
		}
		if (p->ctx->shared && (sob < p->ctx->sob_first || sob >= p->ctx->sob_end)) {
			gaudisim_parse_dbg(p, "monitor arm watches SOBs %u.. outside this context's\n",
					   sob);
			return -EPERM;
		}
		return 0;
	}
	return gaudisim_check_mon_payload(p, reg, value);
}

/*
 * A CS with encapsulated signals adds to its reservation's SOB: an
 * increment (a set would move every later signal of the queue), at most
 * the reserved count per job.
 */
static int gaudisim_check_encap_signal(struct gaudisim_parser *p, u32 value)
{
	u32 add = value & GAUDISIM_SYNC_SOB_VALUE_MASK;

	if (!(value & GAUDISIM_SYNC_SOB_INC) || !gaudisim_sob_update_legal(value)) {
		gaudisim_parse_dbg(p, "reserved SOB %u: only increments, not 0x%08x\n",
				   p->encap->sob, value);
		return -EPERM;
	}
	if (add > p->encap->count - p->encap_added) {
		gaudisim_parse_dbg(p, "reserved SOB %u: more than the %u reserved signals\n",
				   p->encap->sob, p->encap->count);
		return -EPERM;
	}
	p->encap_added += add;
	return 0;
}

static int gaudisim_parse_msg_short(struct gaudisim_parser *p,
				    const struct gaudisim_packet_msg_short *pkt)
{
	u32 ctl = le32_to_cpu(pkt->ctl);
	u32 value = le32_to_cpu(pkt->value);
	u32 offset = ctl & GAUDISIM_MSG_SHORT_CTL_OFFSET_MASK;
	u32 base = (ctl & GAUDISIM_MSG_SHORT_CTL_BASE_MASK) >>
		   GAUDISIM_MSG_SHORT_CTL_BASE_SHIFT;
	u32 op = (ctl & GAUDISIM_MSG_CTL_OP_MASK) >> GAUDISIM_MSG_CTL_OP_SHIFT;
	/* Monitor registers are arrays of 4-byte registers, one per monitor. */
	u32 mon_array = GAUDISIM_SYNC_MON_PAY_ADDRH(0) - GAUDISIM_SYNC_MON_PAY_ADDRL(0);
	u32 mon_end = GAUDISIM_SYNC_MON_STATUS(0) - GAUDISIM_SYNC_MON_BASE_OFFSET;
	int rc;

	if (op != GAUDISIM_MSG_OP_WRITE_VALUE || !IS_ALIGNED(offset, sizeof(u32))) {
		gaudisim_parse_dbg(p, "MSG_SHORT with unsupported ctl 0x%08x\n", ctl);
		return -EINVAL;
	}
	/* The W_S bases name the same arrays (gaudisim_queue.h). */
	if (base == GAUDISIM_MSG_BASE_MON_W_S)
		base = GAUDISIM_MSG_BASE_MON;
	else if (base == GAUDISIM_MSG_BASE_SOB_W_S)
		base = GAUDISIM_MSG_BASE_SOB;
	switch (base) {
	case GAUDISIM_MSG_BASE_SOB:
		if (offset / 4 >= GAUDISIM_SYNC_NUM_SOBS)
			break;
		if (p->encap->id && offset / 4 == p->encap->sob) {
			rc = gaudisim_check_encap_signal(p, value);
			return rc ? rc : gaudisim_emit(p, pkt, sizeof(*pkt));
		}
		if (offset / 4 < GAUDISIM_SYNC_FIRST_USER_SOB) {
			gaudisim_parse_dbg(p, "MSG_SHORT to reserved SOB %u\n", offset / 4);
			return -EPERM;
		}
		if (offset / 4 < p->ctx->sob_first || offset / 4 >= p->ctx->sob_end) {
			gaudisim_parse_dbg(p, "MSG_SHORT to SOB %u of another context\n",
					   offset / 4);
			return -EPERM;
		}
		rc = gaudisim_check_sync_value(p, base, offset, value);
		return rc ? rc : gaudisim_emit(p, pkt, sizeof(*pkt));
	case GAUDISIM_MSG_BASE_MON:
		if (offset >= mon_end)
			break;
		if (!gaudisim_user_monitor((offset % mon_array) / 4)) {
			gaudisim_parse_dbg(p, "MSG_SHORT to reserved monitor %u\n",
					   (offset % mon_array) / 4);
			return -EPERM;
		}
		if ((offset % mon_array) / 4 < p->ctx->mon_first ||
		    (offset % mon_array) / 4 >= p->ctx->mon_end) {
			gaudisim_parse_dbg(p, "MSG_SHORT to monitor %u of another context\n",
					   (offset % mon_array) / 4);
			return -EPERM;
		}
		rc = gaudisim_check_sync_value(p, base, offset, value);
		return rc ? rc : gaudisim_emit(p, pkt, sizeof(*pkt));
	default:
		break;
	}
	gaudisim_parse_dbg(p, "MSG_SHORT to base %u offset 0x%x is outside the sync manager\n",
			   base, offset);
	return -EINVAL;
}

/* A CB may add to its own stream's fence counters, nothing else. */
static int gaudisim_parse_wreg32(struct gaudisim_parser *p,
				 const struct gaudisim_packet_wreg32 *pkt)
{
	u32 ctl = le32_to_cpu(pkt->ctl);
	u32 reg = ctl & GAUDISIM_WREG32_CTL_REG_OFFSET_MASK;
	u32 f;

	for (f = 0; f < GAUDISIM_QM_NUM_FENCES; f++)
		if (reg == GAUDISIM_QM_OFFSET + GAUDISIM_QM_CP_FENCE_RDATA(f, p->stream))
			return gaudisim_emit(p, pkt, sizeof(*pkt));
	gaudisim_parse_dbg(p, "WREG_32 to register 0x%x is not allowed on external queues\n",
			   reg);
	return -EPERM;
}

/*
 * LOAD_AND_EXE: predicates only, as Gaudi's driver allows on external
 * queues, from user HBM, SRAM or one userptr page (translated).
 */
static int gaudisim_parse_load_and_exe(struct gaudisim_parser *p,
				       const struct gaudisim_packet_load_and_exe *pkt)
{
	struct gaudisim_packet_load_and_exe out = *pkt;
	u32 cfg = le32_to_cpu(pkt->cfg);
	u64 src = le64_to_cpu(pkt->src);
	struct gaudisim_userptr *up;
	dma_addr_t bus;
	u64 contig;
	int rc;

	if (!gaudisim_load_and_exe_allowed(cfg, GAUDISIM_QCLASS_USER_EXTERNAL)) {
		gaudisim_parse_dbg(p, "LOAD_AND_EXE may only load predicates on external queues\n");
		return -EPERM;
	}
	if (!(cfg & GAUDISIM_LOAD_AND_EXE_LOAD))
		return gaudisim_emit(p, pkt, sizeof(*pkt));
	if (!IS_ALIGNED(src, sizeof(u32))) {
		gaudisim_parse_dbg(p, "LOAD_AND_EXE source 0x%llx is not 4-byte aligned\n", src);
		return -EINVAL;
	}
	rc = gaudisim_check_range(p, src, GAUDISIM_LOAD_AND_EXE_PRED_SIZE, &up);
	if (rc) {
		gaudisim_parse_dbg(p, "LOAD_AND_EXE may not read %u bytes at 0x%llx\n",
				   GAUDISIM_LOAD_AND_EXE_PRED_SIZE, src);
		return rc;
	}
	if (!up)
		return gaudisim_emit(p, pkt, sizeof(*pkt));
	gaudisim_userptr_translate(up, src, &bus, &contig);
	if (contig < GAUDISIM_LOAD_AND_EXE_PRED_SIZE) {
		gaudisim_parse_dbg(p, "LOAD_AND_EXE predicates at 0x%llx cross a host page boundary\n",
				   src);
		return -EINVAL;
	}
	out.src = cpu_to_le64(bus + GAUDISIM_HOST_BASE);
	rc = gaudisim_add_ref(p, up);
	return rc ? rc : gaudisim_emit(p, &out, sizeof(out));
}

/* One pass over the snapshot; see the comment at the top of the file. */
static int gaudisim_parse(struct gaudisim_parser *p)
{
	u32 pkt_size;
	int rc;

	for (p->off = 0; p->off < p->src_size; p->off += pkt_size) {
		const void *pkt = p->src + p->off;
		const struct gaudisim_packet_hdr *hdr = pkt;
		u32 ctl = le32_to_cpu(hdr->ctl);
		u32 op = GAUDISIM_PKT_OPCODE(ctl);
		u32 dw0 = le32_to_cpu(hdr->dw0);
		const struct gaudisim_pkt_info *info = gaudisim_pkt_info(op);

		/* A 2 MiB CB is 256 Ki packets: stay preemptible and killable. */
		if (p->off && !(p->off % (GAUDISIM_PARSE_RESCHED_PKTS * GAUDISIM_PKT_ALIGN))) {
			cond_resched();
			if (fatal_signal_pending(current))
				return -EINTR;
		}

		if (!info) {
			gaudisim_parse_dbg(p, "invalid packet header 0x%08x\n", ctl);
			return -EINVAL;
		}
		/*
		 * The fixed part: the one variable-size packet (WREG_BULK) is
		 * refused below before its body would matter.
		 */
		pkt_size = info->size;
		if (pkt_size > p->src_size - p->off) {
			gaudisim_parse_dbg(p, "%s runs past the end of the CB (%u bytes)\n",
					   info->name, p->src_size);
			return -EINVAL;
		}
		/* The device's own table: reserved bits fail here, not there. */
		if (ctl & ~gaudisim_pkt_ctl_defined(op)) {
			gaudisim_parse_dbg(p, "%s with reserved ctl bits 0x%08x\n",
					   info->name,
					   ctl & ~gaudisim_pkt_ctl_defined(op));
			return -EINVAL;
		}
		if (dw0 & ~gaudisim_pkt_dw0_defined(op)) {
			gaudisim_parse_dbg(p, "%s with reserved dw0 bits 0x%08x\n",
					   info->name,
					   dw0 & ~gaudisim_pkt_dw0_defined(op));
			return -EINVAL;
		}
		if (!gaudisim_pkt_allowed(op, GAUDISIM_QCLASS_USER_EXTERNAL)) {
			/*
			 * Bulk register writes (WREG_BULK), driver-only
			 * packets (MSG_PROT, CP_DMA, STOP) and what the
			 * parser does not follow (REPEAT, WAIT).
			 */
			gaudisim_parse_dbg(p, "%s is not allowed on external queues\n",
					   info->name);
			return -EPERM;
		}

		switch (op) {
		case GAUDISIM_PKT_NOP:
		case GAUDISIM_PKT_FENCE:
		case GAUDISIM_PKT_ARB_POINT:
			rc = gaudisim_emit(p, pkt, pkt_size);
			break;
		case GAUDISIM_PKT_MSG_LONG:
			rc = gaudisim_parse_msg_long(p, pkt);
			break;
		case GAUDISIM_PKT_LIN_DMA:
			rc = gaudisim_parse_lin_dma(p, pkt);
			break;
		case GAUDISIM_PKT_MSG_SHORT:
			rc = gaudisim_parse_msg_short(p, pkt);
			break;
		case GAUDISIM_PKT_WREG_32:
			rc = gaudisim_parse_wreg32(p, pkt);
			break;
		case GAUDISIM_PKT_LOAD_AND_EXE:
			rc = gaudisim_parse_load_and_exe(p, pkt);
			break;
		default:
			/* gaudisim_pkt_allowed() let through an opcode not handled here. */
			rc = -EPERM;
			break;
		}
		if (rc)
			return rc;
	}
	return 0;
}

/**
 * gaudisim_parser_make_kcb() - validate a user CB and build the job's kernel CB
 * @ctx: the submitting context
 * @job: the job; gets @kcb, @kcb_dma, @kcb_size, @has_dma and @uptrs
 * @cb: the user CB
 * @cb_size: bytes of @cb to run, a multiple of 8, at most @cb->size
 *
 * On error the job may hold part of its resources; the caller releases
 * them with the job.
 *
 * Return: 0, -EINVAL or -EPERM for a refused CB, -ENOMEM.
 */
int gaudisim_parser_make_kcb(struct gaudisim_ctx *ctx, struct gaudisim_job *job,
			     struct gaudisim_cb *cb, u32 cb_size)
{
	struct gaudisim_device *gdev = ctx->gdev;
	struct gaudisim_parser p = {
		.ctx = ctx,
		.gdev = gdev,
		.src_size = cb_size,
		.stream = gaudisim_queue_stream(job->queue_id),
		.encap = &job->cs->encap,
	};
	u8 *snapshot;
	u32 body;
	int rc;

	snapshot = kvmalloc(cb_size, GFP_KERNEL);
	if (!snapshot)
		return -ENOMEM;
	memcpy(snapshot, cb->vaddr, cb_size);
	p.src = snapshot;

	mutex_lock(&ctx->mem_lock);

	rc = gaudisim_parse(&p);
	if (rc)
		goto out_unlock;
	body = p.dst_len;

	rc = gaudisim_job_alloc_kcb(job, body + GAUDISIM_CB_COMPLETION_TAIL_SIZE);
	if (rc)
		goto out_unlock;
	if (p.nrefs) {
		job->uptrs = kvcalloc(p.nrefs, sizeof(*job->uptrs), GFP_KERNEL);
		if (!job->uptrs) {
			rc = -ENOMEM;
			goto out_unlock;
		}
	}

	p.dst = job->kcb;
	p.dst_cap = body;
	p.dst_len = 0;
	p.refs = job->uptrs;
	p.max_refs = p.nrefs;
	p.nrefs = 0;
	p.has_dma = false;
	p.encap_added = 0;
	rc = gaudisim_parse(&p);
	/* References taken before a failure are dropped with the job. */
	job->num_uptrs = p.nrefs;
	job->has_dma = p.has_dma;
	if (!rc && p.dst_len != body)
		rc = -EINVAL;

out_unlock:
	mutex_unlock(&ctx->mem_lock);
	kvfree(snapshot);
	return rc;
}

/**
 * gaudisim_job_write_tail() - write the completion tail of a job's kernel CB
 * @job: the job
 * @cq_addr: device address of the job's CQ slot
 * @cq_value: CQ entry to write (READY, SHADOW_VALID, shadow index)
 * @vector: MSI-X vector of the CQ
 *
 * Two MSG_PROTs, as on Gaudi: the CQ entry, then an MSI-X request. The
 * message barrier orders each after what precedes it; the engine barrier
 * makes the CQ entry wait for the body's DMA.
 */
void gaudisim_job_write_tail(struct gaudisim_job *job, u64 cq_addr, u32 cq_value,
			     u32 vector)
{
	struct gaudisim_packet_msg_prot *tail = job->kcb + job->kcb_size -
					       GAUDISIM_CB_COMPLETION_TAIL_SIZE;
	u32 ctl = gaudisim_msg_ctl(GAUDISIM_PKT_MSG_PROT, GAUDISIM_MSG_OP_WRITE_VALUE,
				   GAUDISIM_PKT_CTL_MB);

	tail[0].value = cpu_to_le32(cq_value);
	tail[0].ctl = cpu_to_le32(ctl | (job->has_dma ? GAUDISIM_PKT_CTL_EB : 0));
	tail[0].addr = cpu_to_le64(cq_addr);

	tail[1].value = cpu_to_le32(vector);
	tail[1].ctl = cpu_to_le32(ctl);
	tail[1].addr = cpu_to_le64(GAUDISIM_CFG_BASE + GAUDISIM_REG_MSIX_REQ);
}
