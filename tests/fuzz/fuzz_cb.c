/* SPDX-License-Identifier: MIT */
/*
 * Fuzz harness: command buffers and device programs.
 *
 * Every input runs on a fresh device core with the fake host of
 * fuzz_host.c. The first byte picks how the rest is read:
 *
 *   mode 0, 1  program: a sequence of operations a driver (or a hostile
 *              guest) can do - register writes biased towards the blocks
 *              that do something (QMANs, EQ, MMU, sync manager, engine
 *              blocks), host- and device-memory fills, PQ entries,
 *              doorbells, CBs built from plausible packets, runs of the
 *              device, hard and soft resets, MMU mappings, injected
 *              faults;
 *   mode 2     raw CB: the bytes after a 3-byte header are one CB, run on
 *              an external queue (with the driver's completion tail) and
 *              then on an internal queue, after the driver's set-up;
 *   mode 3     raw CB on all four streams of one engine at once.
 *
 * Invariants (besides ASan/UBSan/LSan): see fuzz_host.c (MSI-X range, DMA
 * ranges, no lost kick, stable idle, reset leaves the device idle and
 * silent, HBM window, EQ indices) and, for raw CBs on an external queue,
 * that a drained queue has written its completion in the CQ format.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_host.h"
#include "fuzz_input.h"
#include "gsim_faults.h"
#include "hw/gaudisim_hw_mme.h"
#include "hw/gaudisim_hw_telemetry.h"
#include "hw/gaudisim_hw_tpc.h"

#define MAX_OPS			192
#define MAX_PKTS		24
#define FEED_ROUNDS		4

/* Queues the device implements, in ID order. */
static unsigned int queue_list[GAUDISIM_QUEUE_ID_SIZE];
static unsigned int num_queues;

static void init_queue_list(void)
{
	unsigned int q;

	if (num_queues)
		return;
	for (q = 0; q < GAUDISIM_QUEUE_ID_SIZE; q++)
		if (fz_queue_valid(q))
			queue_list[num_queues++] = q;
}

static unsigned int pick_queue(struct fz_in *in)
{
	return queue_list[fz_u8(in) % num_queues];
}

/* ---- values and addresses ------------------------------------------------------- */

/*
 * Note for every reader below: C leaves the order of the operands of an
 * expression unspecified, so each field is read in its own statement;
 * otherwise gcc (replay) and clang (libFuzzer) would read an input
 * differently.
 */
static uint32_t pick_value(struct fz_in *in)
{
	uint32_t v;

	switch (fz_u8(in) % 8) {
	case 0:
		return fz_u8(in);
	case 1:
		return fz_u16(in);
	case 2:
		return 0;
	case 3:
		return 0xffffffffu;
	case 4:
		return 1u << (fz_u8(in) % 32);
	case 5:	/* a sync-object update */
		v = fz_u8(in) & 1 ? GAUDISIM_SYNC_SOB_INC : 0;
		return v | (fz_u16(in) & 0x7fff);
	default:
		return fz_u32(in);
	}
}

/* A CFG offset, biased towards the blocks that do something. */
static uint32_t pick_reg(struct fz_in *in)
{
	unsigned int sel = fz_u8(in), e;

	switch (sel % 16) {
	case 0:
		return (fz_u8(in) % 0x30u) * 4;
	case 1:
		return GAUDISIM_BLOCK_EQ + (fz_u8(in) % 12u) * 4;
	case 2:
		return GAUDISIM_BLOCK_MMU + (fz_u16(in) % 0x180u) * 4;
	case 3:
		return GAUDISIM_BLOCK_TELEMETRY + (fz_u16(in) % 0x100u) * 4;
	case 4:
		return GAUDISIM_BLOCK_SYNC_MNGR + GAUDISIM_SYNC_SOB_OBJ(fz_u16(in) %
									GAUDISIM_SYNC_NUM_SOBS);
	case 5:
		return GAUDISIM_BLOCK_SYNC_MNGR + GAUDISIM_SYNC_MON_PAY_ADDRL(0) +
		       (fz_u16(in) % 0xA00u) * 4;
	case 6:
	case 7:
	case 8:
	case 9:
		e = fz_u8(in) % GAUDISIM_ENGINE_COUNT;
		return GAUDISIM_ENGINE_BLOCK(e) + (fz_u16(in) % 0x100u) * 4;
	case 10:
		e = fz_u8(in) % GAUDISIM_ENGINE_COUNT;
		return GAUDISIM_ENGINE_BLOCK(e) + GAUDISIM_ENG_COMMON_BASE + (fz_u8(in) % 16u) * 4;
	case 11:
	case 12:
	case 13:
		e = fz_u8(in) % GAUDISIM_ENGINE_COUNT;
		return GAUDISIM_QM_BLOCK(e) + (fz_u16(in) % 0x290u) * 4;
	case 14:
		return (fz_u32(in) % (uint32_t)GAUDISIM_CFG_BAR_SIZE) & ~3u;
	default:
		return fz_u32(in);	/* unaligned or outside the BAR */
	}
}

/*
 * Keep work per input bounded where a register sets its size: the TPC
 * watchdog and the MME's GEMM and convolution sizes (valid huge values
 * would only make an input slow, not reach new code). Values the device
 * must refuse pass.
 */
static uint32_t tame(uint32_t reg, uint32_t value)
{
	uint32_t in_block;
	unsigned int e;

	if (reg < GAUDISIM_ENGINE_BLOCK_BASE ||
	    reg >= GAUDISIM_ENGINE_BLOCK(GAUDISIM_ENGINE_COUNT))
		return value;
	e = (reg - GAUDISIM_ENGINE_BLOCK_BASE) / GAUDISIM_ENGINE_BLOCK_SIZE;
	in_block = (reg - GAUDISIM_ENGINE_BLOCK_BASE) % GAUDISIM_ENGINE_BLOCK_SIZE;
	if (e >= GAUDISIM_ENGINE_TPC_0 && in_block == GAUDISIM_TPC_WATCHDOG &&
	    (value == 0 || value > FZ_TPC_WATCHDOG))
		return value % FZ_TPC_WATCHDOG + 1;
	if (e == GAUDISIM_ENGINE_MME) {
		switch (in_block) {
		case GAUDISIM_MME_M:
		case GAUDISIM_MME_N:
		case GAUDISIM_MME_K:
			if (value > 256 && value <= GAUDISIM_MME_DIM_MAX)
				return value % 256 + 1;
			break;
		case GAUDISIM_MME_BATCH:
			if (value > 8 && value <= GAUDISIM_MME_BATCH_MAX)
				return value % 8 + 1;
			break;
		case GAUDISIM_MME_CONV_N:
		case GAUDISIM_MME_CONV_H:
		case GAUDISIM_MME_CONV_W:
		case GAUDISIM_MME_CONV_C:
		case GAUDISIM_MME_CONV_K:
			if (value > 16 && value <= GAUDISIM_MME_CONV_NCK_MAX)
				return value % 16 + 1;
			break;
		case GAUDISIM_MME_CONV_KH:
		case GAUDISIM_MME_CONV_KW:
		case GAUDISIM_MME_CONV_PAD_H:
		case GAUDISIM_MME_CONV_PAD_W:
			if (value > 8 && value <= GAUDISIM_MME_CONV_TAP_MAX)
				return value % 8 + 1;
			break;
		}
	}
	return value;
}

/* A device address for a transfer of about len bytes. */
static uint64_t pick_addr(struct fz_in *in, uint32_t len)
{
	uint32_t r;

	switch (fz_u8(in) % 12) {
	case 0:
	case 1:
		r = fz_u32(in) % (FZ_HOST_SIZE - FZ_DATA_OFF);
		return fz_dev(FZ_DATA_OFF + (r & ~7u));
	case 2:
		return fz_dev(fz_u32(in) % FZ_HOST_SIZE);
	case 3:
		return FZ_VA_HOST + (fz_u32(in) % FZ_HOST_SIZE & ~7u);
	case 4:
	case 5:
		return FZ_HBM_USER + (fz_u32(in) % FZ_HBM_USER_SIZE & ~7u);
	case 6:
		return fz_u32(in) % GAUDISIM_HBM_RESERVED_SIZE;
	case 7:
		return GAUDISIM_SRAM_BASE + (fz_u32(in) % GAUDISIM_SRAM_SIZE & ~7u);
	case 8:
		return GAUDISIM_CFG_BASE + pick_reg(in);
	case 9:	/* around the ends of the regions */
		r = fz_u8(in);
		switch (r % 6) {
		case 0:
			return FZ_HBM_SIZE - len + (r >> 3);
		case 1:
			return GAUDISIM_SRAM_BASE + GAUDISIM_SRAM_SIZE - len + (r >> 3);
		case 2:
			return fz_dev(FZ_HOST_SIZE) - len + (r >> 3);
		case 3:
			return GAUDISIM_MMU_VA_BASE - len + (r >> 3);
		case 4:
			return GAUDISIM_HOST_END - len + (r >> 3);
		default:
			return UINT64_MAX - len + (r >> 3);
		}
	case 10:
		return GAUDISIM_SYNC_SOB_BASE_ADDR + 4 * (fz_u16(in) % GAUDISIM_SYNC_NUM_SOBS);
	default:
		return fz_u64(in);
	}
}

static uint32_t pick_size(struct fz_in *in)
{
	uint32_t v;

	switch (fz_u8(in) % 16) {
	case 0:
		return 0;
	case 1:
		return fz_u32(in);	/* anything: the device checks it */
	case 2:
	case 3:
		return fz_u16(in) * 8u;
	default:
		v = fz_u8(in) * 8u;
		return v + fz_u8(in) % 8;
	}
}

/* ---- packets ---------------------------------------------------------------------- */

struct pkts {
	uint8_t buf[FZ_CB_MAX];
	uint32_t len;
};

static void put(struct pkts *p, uint32_t v)
{
	if (p->len + 4 > sizeof(p->buf))
		return;
	fz_put32(p->buf + p->len, v);
	p->len += 4;
}

static void put64(struct pkts *p, uint64_t v)
{
	put(p, (uint32_t)v);
	put(p, (uint32_t)(v >> 32));
}

static uint32_t barriers(uint8_t sel)
{
	return (uint32_t)(sel & 7) << 29;	/* EB, RB, MB */
}

/* An engine-block offset of the queue's engine that a WREG may target. */
static uint32_t pick_engine_reg(struct fz_in *in)
{
	switch (fz_u8(in) % 4) {
	case 0:
		return GAUDISIM_ENG_COMMON_BASE + (fz_u8(in) % 16u) * 4;
	case 1:
		return GAUDISIM_QM_OFFSET + (fz_u16(in) % 0x290u) * 4;
	case 2:
		return fz_u16(in) & 0xfffcu;
	default:
		return (fz_u8(in) % 0xd4u) * 4;	/* MME and TPC configuration */
	}
}

static void gen_packets(struct fz_host *h, struct fz_in *in, unsigned int q, struct pkts *p,
			unsigned int n, unsigned int depth);

/* A small GEMM, valid or not, as the runtime would program it. */
static void gen_mme(struct fz_in *in, struct pkts *p)
{
	static const uint32_t regs[] = {
		GAUDISIM_MME_A_ADDR_LO, GAUDISIM_MME_B_ADDR_LO, GAUDISIM_MME_C_ADDR_LO,
		GAUDISIM_MME_D_ADDR_LO,
	};
	uint32_t m = fz_u8(in) % 33, n = fz_u8(in) % 33, k = fz_u8(in) % 33;
	uint32_t dt = fz_u8(in), ctl = fz_u8(in) % 5;
	unsigned int i;
	uint32_t wreg = GAUDISIM_PKT_CTL(GAUDISIM_PKT_WREG_32) | GAUDISIM_PKT_CTL_RB;

	for (i = 0; i < 4; i++) {
		uint32_t at = FZ_HBM_USER + (fz_u8(in) % 16u) * 0x4000u;

		/* Mostly aligned for FP32; now and then only for BF16. */
		put(p, at + (fz_u8(in) % 8 == 7 ? 2 : 0));
		put(p, wreg | regs[i]);
		put(p, fz_u8(in) % 32 ? 0 : 1);
		put(p, wreg | (regs[i] + 4));
	}
	put(p, m);
	put(p, wreg | GAUDISIM_MME_M);
	put(p, n);
	put(p, wreg | GAUDISIM_MME_N);
	put(p, k);
	put(p, wreg | GAUDISIM_MME_K);
	put(p, fz_u8(in) % 3 + 1);
	put(p, wreg | GAUDISIM_MME_BATCH);
	for (i = 0; i < 4; i++) {
		put(p, 32 + fz_u8(in) % 8);
		put(p, wreg | (GAUDISIM_MME_LDA + 4 * i));
	}
	put(p, (dt & 1) | (dt & 2) << 3 | (dt & 0x80 ? dt : 0));
	put(p, wreg | GAUDISIM_MME_DTYPE);
	put(p, ctl);
	put(p, wreg | GAUDISIM_MME_CTRL);
	put(p, fz_u8(in) & 1 ? 0x3f800000u : fz_u32(in));
	put(p, wreg | GAUDISIM_MME_ALPHA);
	put(p, fz_u8(in) & 1 ? 0 : 0x3f800000u);
	put(p, wreg | GAUDISIM_MME_BETA);
	put(p, GAUDISIM_MME_COMMIT_GO);
	put(p, wreg | GAUDISIM_MME_COMMIT | barriers(fz_u8(in)));
}

/* A TPC launch: kernel bundles from the input, copied to user HBM. */
static void gen_tpc(struct fz_host *h, struct fz_in *in, struct pkts *p)
{
	uint32_t wreg = GAUDISIM_PKT_CTL(GAUDISIM_PKT_WREG_32) | GAUDISIM_PKT_CTL_RB;
	unsigned int nb = fz_u8(in) % 8 + 1, d;
	uint64_t kaddr = fz_hbm_cb_alloc(h, nb * GAUDISIM_TPC_BUNDLE_SIZE);
	size_t got;
	const uint8_t *code = fz_bytes(in, nb * GAUDISIM_TPC_BUNDLE_SIZE, &got);
	uint8_t *dst = fz_hbm(h, kaddr, nb * GAUDISIM_TPC_BUNDLE_SIZE);

	memset(dst, 0, nb * GAUDISIM_TPC_BUNDLE_SIZE);
	memcpy(dst, code, got);
	put(p, (uint32_t)kaddr);
	put(p, wreg | GAUDISIM_TPC_KERNEL_ADDR_LO);
	put(p, 0);
	put(p, wreg | GAUDISIM_TPC_KERNEL_ADDR_HI);
	put(p, nb * GAUDISIM_TPC_BUNDLE_SIZE);
	put(p, wreg | GAUDISIM_TPC_KERNEL_SIZE);
	put(p, fz_u16(in) % 4096 + 1);
	put(p, wreg | GAUDISIM_TPC_WATCHDOG);
	for (d = 0; d < GAUDISIM_TPC_NUM_DIMS; d++) {
		put(p, fz_u8(in) % 3 + 1);
		put(p, wreg | GAUDISIM_TPC_ISPACE_SIZE(d));
	}
	for (d = 0; d < 2; d++) {
		uint32_t t = GAUDISIM_TPC_TENSOR(d);

		put(p, FZ_HBM_USER + d * 0x10000u);
		put(p, wreg | (t + GAUDISIM_TPC_T_BASE_LO));
		put(p, fz_u8(in) % 9);
		put(p, wreg | (t + GAUDISIM_TPC_T_DTYPE));
		put(p, 64u * (fz_u8(in) % 4 + 1));
		put(p, wreg | (t + GAUDISIM_TPC_T_SIZE(0)));
	}
	put(p, GAUDISIM_TPC_COMMIT_GO);
	put(p, wreg | GAUDISIM_TPC_COMMIT);
}

static void gen_packet(struct fz_host *h, struct fz_in *in, unsigned int q, struct pkts *p,
		       unsigned int depth)
{
	uint8_t b = fz_u8(in);
	uint32_t reg, size, cnt, i;
	uint64_t addr;

	switch (fz_u8(in) % 22) {
	case 0:
		put(p, 0);
		put(p, GAUDISIM_PKT_CTL(GAUDISIM_PKT_NOP) | barriers(b));
		break;
	case 1:
	case 2:
		reg = pick_engine_reg(in);
		put(p, tame(GAUDISIM_ENGINE_BLOCK((unsigned int)gaudisim_queue_engine(q)) + reg,
			    pick_value(in)));
		put(p, GAUDISIM_PKT_CTL(GAUDISIM_PKT_WREG_32) | barriers(b) | reg);
		break;
	case 3:
		reg = pick_engine_reg(in);
		cnt = fz_u8(in) % 4;
		put(p, cnt);
		put(p, GAUDISIM_PKT_CTL(GAUDISIM_PKT_WREG_BULK) | barriers(b) | reg);
		for (i = 0; i < 2 * cnt; i++)
			put(p, pick_value(in));
		break;
	case 4:
	case 5:
		put(p, pick_value(in));
		put(p, GAUDISIM_PKT_CTL(b & 8 ? GAUDISIM_PKT_MSG_PROT : GAUDISIM_PKT_MSG_LONG) |
		       barriers(b) | (uint32_t)(fz_u8(in) % 4) << GAUDISIM_MSG_CTL_OP_SHIFT);
		put64(p, pick_addr(in, 4));
		break;
	case 6:
		put(p, pick_value(in));
		reg = (uint32_t)(fz_u8(in) % 4) << GAUDISIM_MSG_SHORT_CTL_BASE_SHIFT;
		reg |= (uint32_t)(fz_u8(in) % 2) << GAUDISIM_MSG_CTL_OP_SHIFT;
		reg |= fz_u16(in) & 0x3ffcu;
		put(p, GAUDISIM_PKT_CTL(GAUDISIM_PKT_MSG_SHORT) | barriers(b) | reg);
		break;
	case 7: {
		/* A second buffer of packets in user HBM for the lower CP. */
		struct pkts *sub = malloc(sizeof(*sub));

		if (!sub)
			break;
		sub->len = 0;
		if (depth < 2)
			gen_packets(h, in, q, sub, fz_u8(in) % 6 + 1, depth + 1);
		addr = fz_hbm_cb_alloc(h, sub->len + 8);
		memcpy(fz_hbm(h, addr, sub->len), sub->buf, sub->len);
		size = b & 0x80 ? pick_size(in) : sub->len;
		put(p, size);
		put(p, GAUDISIM_PKT_CTL(GAUDISIM_PKT_CP_DMA) | barriers(b));
		put64(p, b & 0x40 ? pick_addr(in, size) : addr);
		free(sub);
		break;
	}
	case 8:
		cnt = fz_u8(in) % 4;
		if (b & 0x80)
			cnt += fz_u16(in);
		put(p, (cnt & 0xffff) << GAUDISIM_REPEAT_COUNT_SHIFT |
		       (b & 8 ? GAUDISIM_REPEAT_OUTER : 0));
		put(p, GAUDISIM_PKT_CTL(GAUDISIM_PKT_REPEAT) | barriers(b));
		break;
	case 9:
		put(p, GAUDISIM_REPEAT_SORE_END | (b & 8 ? GAUDISIM_REPEAT_OUTER : 0));
		put(p, GAUDISIM_PKT_CTL(GAUDISIM_PKT_REPEAT) | barriers(b));
		break;
	case 10:
		cnt = (uint32_t)(fz_u8(in) % 4) << GAUDISIM_FENCE_ID_SHIFT;
		cnt |= (uint32_t)(fz_u8(in) % 4) << GAUDISIM_FENCE_TARGET_SHIFT;
		put(p, cnt | (fz_u8(in) % 4));
		put(p, GAUDISIM_PKT_CTL(GAUDISIM_PKT_FENCE) | barriers(b));
		break;
	case 11:
	case 12:
	case 13:
		size = pick_size(in);
		i = fz_u8(in);
		put(p, size);
		put(p, GAUDISIM_PKT_CTL(GAUDISIM_PKT_LIN_DMA) | barriers(b) |
		       GAUDISIM_LIN_DMA_CTL_LIN |
		       (i & 1 ? GAUDISIM_LIN_DMA_CTL_MEMSET : 0) |
		       (i & 2 ? GAUDISIM_LIN_DMA_CTL_WR_COMP_EN : 0) |
		       (i & 4 ? 1u << (i >> 3) : 0));
		put64(p, i & 1 ? fz_u8(in) : pick_addr(in, size));
		put64(p, pick_addr(in, size));
		break;
	case 14:
		put(p, 0);
		put(p, GAUDISIM_PKT_CTL(GAUDISIM_PKT_STOP) | barriers(b));
		break;
	case 15:
		put(p, (b & 1 ? GAUDISIM_ARB_POINT_RLS : 0) | fz_u8(in));
		put(p, GAUDISIM_PKT_CTL(GAUDISIM_PKT_ARB_POINT) | barriers(b));
		break;
	case 16:
		cnt = fz_u8(in);
		cnt |= (uint32_t)(fz_u8(in) % 16) << GAUDISIM_WAIT_INC_VAL_SHIFT;
		put(p, cnt | (uint32_t)(fz_u8(in) % 4) << GAUDISIM_WAIT_ID_SHIFT);
		put(p, GAUDISIM_PKT_CTL(GAUDISIM_PKT_WAIT) | barriers(b));
		break;
	case 17: {
		/* Predicates, or scalars holding two WREG_32 of the engine, in user HBM. */
		uint32_t base = pick_engine_reg(in), reg;
		bool scalars = b & 0x10;
		uint32_t len = scalars ? GAUDISIM_LOAD_AND_EXE_SCALAR_SIZE :
					 GAUDISIM_LOAD_AND_EXE_PRED_SIZE;
		uint8_t *buf;

		addr = fz_hbm_cb_alloc(h, len);
		buf = fz_hbm(h, addr, len);
		for (i = 0; i < len / 8; i++) {
			reg = base + 4 * i;
			if (scalars) {
				fz_put32(buf + 8 * i, tame(GAUDISIM_ENGINE_BLOCK(
					(unsigned int)gaudisim_queue_engine(q)) + reg, pick_value(in)));
				fz_put32(buf + 8 * i + 4, gaudisim_wreg32_ctl(reg, 0));
			} else {
				fz_put32(buf + 8 * i, fz_u8(in) & 1);
				fz_put32(buf + 8 * i + 4, fz_u8(in) & 1);
			}
		}
		cnt = (b & 2 ? GAUDISIM_LOAD_AND_EXE_LOAD : 0) | (b & 4 ? GAUDISIM_LOAD_AND_EXE_EXE : 0) |
		      (scalars ? GAUDISIM_LOAD_AND_EXE_DST : 0) |
		      (b & 0x20 ? GAUDISIM_LOAD_AND_EXE_ETYPE : 0);
		if (b & 0x40) {
			uint32_t junk = fz_u8(in);

			cnt |= junk << (fz_u8(in) % 24);
		}
		put(p, cnt);
		put(p, gaudisim_load_and_exe_ctl(fz_u8(in) % 4, barriers(b)));
		put64(p, b & 8 ? pick_addr(in, 16) : addr);
		break;
	}
	case 18:
		put(p, fz_u32(in));
		put(p, fz_u32(in));
		break;
	case 19:
		gen_mme(in, p);
		break;
	case 20:
		gen_tpc(h, in, p);
		break;
	default:
		/* Arm a monitor on SOB n with a payload, then bump the SOB. */
		reg = fz_u16(in) % GAUDISIM_SYNC_NUM_MONITORS;
		cnt = fz_u16(in) % GAUDISIM_SYNC_NUM_SOBS;
		addr = pick_addr(in, 4);
		put(p, (uint32_t)addr);
		put(p, GAUDISIM_PKT_CTL(GAUDISIM_PKT_MSG_LONG));
		put64(p, GAUDISIM_CFG_BASE + GAUDISIM_BLOCK_SYNC_MNGR + GAUDISIM_SYNC_MON_PAY_ADDRL(reg));
		put(p, (uint32_t)(addr >> 32));
		put(p, GAUDISIM_PKT_CTL(GAUDISIM_PKT_MSG_LONG));
		put64(p, GAUDISIM_CFG_BASE + GAUDISIM_BLOCK_SYNC_MNGR + GAUDISIM_SYNC_MON_PAY_ADDRH(reg));
		put(p, pick_value(in));
		put(p, GAUDISIM_PKT_CTL(GAUDISIM_PKT_MSG_LONG));
		put64(p, GAUDISIM_CFG_BASE + GAUDISIM_BLOCK_SYNC_MNGR + GAUDISIM_SYNC_MON_PAY_DATA(reg));
		put(p, GAUDISIM_SYNC_MON_ARM_SOB(cnt, b & 1, fz_u8(in) % 4));
		put(p, GAUDISIM_PKT_CTL(GAUDISIM_PKT_MSG_LONG));
		put64(p, GAUDISIM_CFG_BASE + GAUDISIM_BLOCK_SYNC_MNGR + GAUDISIM_SYNC_MON_ARM(reg));
		put(p, GAUDISIM_SYNC_SOB_ADD(fz_u8(in) % 4));
		put(p, GAUDISIM_PKT_CTL(GAUDISIM_PKT_MSG_LONG) | GAUDISIM_PKT_CTL_MB);
		put64(p, GAUDISIM_SYNC_SOB_BASE_ADDR + 4 * cnt);
		break;
	}
}

static void gen_packets(struct fz_host *h, struct fz_in *in, unsigned int q, struct pkts *p,
			unsigned int n, unsigned int depth)
{
	while (n-- && fz_in_left(in))
		gen_packet(h, in, q, p, depth);
}

/* ---- operations of a program ------------------------------------------------------ */

/* Add to every fence of q, as monitors or the driver would. */
static void feed_fences(struct fz_host *h, unsigned int q, uint32_t value)
{
	unsigned int e = (unsigned int)gaudisim_queue_engine(q), f;

	for (f = 0; f < GAUDISIM_QM_NUM_FENCES; f++)
		fz_wr(h, GAUDISIM_QM_BLOCK(e) +
		      GAUDISIM_QM_CP_FENCE_RDATA(f, gaudisim_queue_stream(q)), value);
}

static void op_fault(struct fz_host *h, struct fz_in *in)
{
	uint8_t b = fz_u8(in);

	fz_stir(h);
	switch (b % 6) {
	case 0:
		gsim_fault_hang_engine(h->core, (int)(fz_u8(in) % (GAUDISIM_ENGINE_COUNT + 2)) - 1);
		break;
	case 1:
		gsim_fault_hang_engine(h->core, -1);
		break;
	case 2:
		gsim_fault_ecc(h->core, b & 0x80, fz_u8(in) % 4);
		break;
	case 3:
		gsim_fault_drop_irq(h->core, fz_u8(in) % 4);
		break;
	case 4:
		gsim_fault_thermal_spike(h->core, (int32_t)(int8_t)fz_u8(in) * 2);
		break;
	default:
		fz_wr(h, GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_HEARTBEAT, fz_u32(in));
		break;
	}
}

static void op_sync(struct fz_host *h, struct fz_in *in)
{
	uint32_t sync = GAUDISIM_BLOCK_SYNC_MNGR;
	unsigned int m = fz_u16(in) % GAUDISIM_SYNC_NUM_MONITORS;
	unsigned int sob = fz_u16(in) % GAUDISIM_SYNC_NUM_SOBS;
	uint32_t arm;
	uint64_t pay;

	switch (fz_u8(in) % 3) {
	case 0: {	/* payload at a fence of a queue, as the driver's sync streams do */
		unsigned int q = pick_queue(in), f = fz_u8(in) % 4;

		pay = GAUDISIM_CFG_BASE + GAUDISIM_QM_BLOCK((unsigned int)gaudisim_queue_engine(q)) +
		      GAUDISIM_QM_CP_FENCE_RDATA(f, gaudisim_queue_stream(q));
		break;
	}
	case 1:
		pay = GAUDISIM_SYNC_MON_BASE_ADDR + (GAUDISIM_SYNC_MON_ARM(fz_u16(in) %
			GAUDISIM_SYNC_NUM_MONITORS) - GAUDISIM_SYNC_MON_BASE_OFFSET);
		break;
	default:
		pay = pick_addr(in, 4);
		break;
	}
	fz_wr(h, sync + GAUDISIM_SYNC_MON_PAY_ADDRL(m), (uint32_t)pay);
	fz_wr(h, sync + GAUDISIM_SYNC_MON_PAY_ADDRH(m), (uint32_t)(pay >> 32));
	fz_wr(h, sync + GAUDISIM_SYNC_MON_PAY_DATA(m), pick_value(in));
	if (fz_u8(in) & 1) {
		arm = fz_u32(in);
	} else {
		unsigned int eq = fz_u8(in) & 1;

		arm = GAUDISIM_SYNC_MON_ARM_SOB(sob, eq, fz_u8(in) % 8);
	}
	fz_wr(h, sync + GAUDISIM_SYNC_MON_ARM(m), arm);
	fz_wr(h, sync + GAUDISIM_SYNC_SOB_OBJ(sob), pick_value(in));
}

static void op_submit(struct fz_host *h, struct fz_in *in, bool raw)
{
	unsigned int q = pick_queue(in);
	uint8_t flags = fz_u8(in);
	struct pkts *p = malloc(sizeof(*p));

	if (!p)
		return;
	p->len = 0;
	if (raw) {
		size_t got;
		const uint8_t *b = fz_bytes(in, (size_t)(fz_u8(in) + 1) * 8, &got);

		memcpy(p->buf, b, got);
		p->len = (uint32_t)got;
	} else {
		gen_packets(h, in, q, p, flags % MAX_PKTS + 1, 0);
	}
	fz_submit_cb(h, q, p->buf, p->len, !(flags & 0x80));
	free(p);
}

static void op_mmu_map(struct fz_host *h, struct fz_in *in)
{
	uint8_t b = fz_u8(in);
	unsigned int asid = fz_u8(in) % (GAUDISIM_MMU_NUM_ASIDS + 1);
	uint64_t va = FZ_VA_HOST + ((uint64_t)fz_u16(in) << GAUDISIM_MMU_PAGE_SHIFT);
	uint64_t bus = b & 0x40 ? fz_u64(in) : fz_bus((uint64_t)fz_u8(in) << 12);

	if (b & 0x20)
		va = fz_u64(in);
	fz_mmu_map(h, asid, va, bus, b & 1, b & 2);
	if (b & 4)
		fz_wr(h, GAUDISIM_BLOCK_MMU + GAUDISIM_MMU_QUEUE_ASID(pick_queue(in)), asid);
}

static void op_reset(struct fz_host *h, struct fz_in *in)
{
	uint8_t b = fz_u8(in);

	if (b & 1) {
		/* The reset kick is left pending for a while, then done. */
		fz_wr_raw(h, GAUDISIM_REG_RESET, GAUDISIM_RESET_HARD);
		FZ_CHECK(!gsim_core_run(h->core), "run() found work with a reset pending");
		fz_hard_reset(h);
	} else {
		fz_wr(h, GAUDISIM_REG_RESET, GAUDISIM_RESET_HARD);
	}
	if (b & 2)
		fz_driver_init(h);
}

static void run_program(struct fz_host *h, struct fz_in *in)
{
	unsigned int ops;

	if (fz_u8(in) & 1)
		fz_driver_init(h);
	for (ops = 0; ops < MAX_OPS && fz_in_left(in); ops++) {
		uint32_t reg, v;
		size_t got;
		const uint8_t *b;
		uint8_t *dst;
		unsigned int q;

		switch (fz_u8(in) % 24) {
		case 0:
		case 1:
		case 2:
			reg = pick_reg(in);
			fz_wr(h, reg, tame(reg, pick_value(in)));
			break;
		case 3:
			reg = pick_reg(in);
			fz_wr_raw(h, reg, tame(reg, pick_value(in)));
			break;
		case 4:
			fz_rd(h, pick_reg(in));
			break;
		case 5:
			v = fz_u32(in) % FZ_HOST_SIZE;
			b = fz_bytes(in, fz_u8(in), &got);
			if (got > FZ_HOST_SIZE - v)
				got = FZ_HOST_SIZE - v;
			memcpy(h->mem + v, b, got);
			break;
		case 6:
			v = fz_u32(in) % (FZ_HBM_USER + FZ_HBM_USER_SIZE);
			b = fz_bytes(in, fz_u8(in), &got);
			dst = fz_hbm(h, v, got);
			if (dst)
				memcpy(dst, b, got);
			break;
		case 7:
			q = pick_queue(in);
			fz_queue_setup(h, q, fz_u8(in) % (FZ_PQ_LOG2_MAX + 1));
			break;
		case 8:
		case 9:
		case 10:
			op_submit(h, in, false);
			break;
		case 11:
			op_submit(h, in, true);
			break;
		case 12: {
			uint32_t size;

			q = pick_queue(in);
			v = fz_u32(in);
			size = pick_size(in);
			fz_submit_bd(h, q, v, size, pick_addr(in, 64));
			break;
		}
		case 13:
			q = pick_queue(in);
			fz_wr(h, FZ_QM_REG(q, GAUDISIM_QM_PQ_PI), fz_u8(in) % 130);
			break;
		case 14:
		case 15:
			fz_run(h);
			break;
		case 16:
			op_reset(h, in);
			break;
		case 17:
			reg = GAUDISIM_ENGINE_BLOCK(fz_u8(in) % GAUDISIM_ENGINE_COUNT) +
			      GAUDISIM_ENG_SOFT_RESET;
			fz_wr(h, reg, fz_u8(in) % 8 ? GAUDISIM_ENG_SOFT_RESET_GO : 2);
			break;
		case 18:
			op_mmu_map(h, in);
			break;
		case 19:
			q = pick_queue(in);
			feed_fences(h, q, fz_u8(in));
			break;
		case 20:
			fz_eq_drain(h);
			v = fz_u16(in);
			h->clock_ns += (uint64_t)v << (fz_u8(in) % 24);
			break;
		case 21:
			v = fz_u32(in) % FZ_HOST_SIZE;
			h->fault_lo = fz_bus(v);
			h->fault_hi = fz_bus(v + fz_u16(in));
			break;
		case 22:
			op_sync(h, in);
			break;
		default:
			op_fault(h, in);
			break;
		}
	}
}

/* ---- raw CBs --------------------------------------------------------------------- */

static bool queue_drained(struct fz_host *h, unsigned int q)
{
	return fz_rd(h, FZ_QM_REG(q, GAUDISIM_QM_PQ_PI)) == fz_rd(h, FZ_QM_REG(q, GAUDISIM_QM_PQ_CI)) &&
	       !(fz_rd(h, FZ_QM_REG(q, GAUDISIM_QM_CP_STS)) & GAUDISIM_CP_STS_BUSY);
}

/* Run, feeding fences of q while it waits, until idle or out of rounds. */
static void run_feeding(struct fz_host *h, unsigned int q)
{
	unsigned int round;

	for (round = 0; round < FEED_ROUNDS; round++) {
		fz_run(h);
		if (queue_drained(h, q))
			return;
		feed_fences(h, q, 255);
	}
	fz_run(h);
}

static void raw_external(struct fz_host *h, unsigned int q, const uint8_t *cb, uint32_t len,
			 bool tail)
{
	uint32_t slot = h->cq_pi[q] % FZ_CQ_ENTRIES;
	unsigned int msix = h->msix[q];
	uint32_t v, base;

	if (!(fz_submit_cb(h, q, cb, len, tail) & GSIM_KICK_RUN))
		return;
	run_feeding(h, q);
	if (!tail || !queue_drained(h, q))
		return;
	/* The job ran to its end: the tail wrote a completion, clean or failed. */
	v = fz_get32(h->mem + FZ_CQ_OFF(q) + slot * GAUDISIM_CQ_ENTRY_SIZE);
	base = GAUDISIM_CQ_ENTRY_READY | GAUDISIM_CQ_ENTRY_SHADOW_VALID | slot;
	if (v & GAUDISIM_CQ_ENTRY_ERROR)
		FZ_CHECK((v & ~(GAUDISIM_CQ_ENTRY_ERROR | GAUDISIM_CQ_ENTRY_ERR_CODE_MASK)) == base &&
			 (v & GAUDISIM_CQ_ENTRY_ERR_CODE_MASK),
			 "queue %u: error completion 0x%08x for slot %u", q, v, slot);
	else
		FZ_CHECK(v == base, "queue %u: completion 0x%08x for slot %u, expected 0x%08x",
			 q, v, slot, base);
	FZ_CHECK(h->msix[q] > msix, "queue %u: job completed without its MSI-X", q);
}

static void run_raw(struct fz_host *h, struct fz_in *in, unsigned int mode)
{
	uint8_t sel_ext = fz_u8(in), sel_int = fz_u8(in);
	unsigned int q_ext = sel_ext % GAUDISIM_NUM_EXT_QUEUES;
	unsigned int q_int = queue_list[GAUDISIM_NUM_EXT_QUEUES + sel_int %
					(num_queues - GAUDISIM_NUM_EXT_QUEUES)];
	uint8_t nop[8] = { 0, 0, 0, 0, 0, 0, 0, GAUDISIM_PKT_NOP };
	const uint8_t *cb;
	size_t len;
	unsigned int e, s, round;

	fz_driver_init(h);
	cb = fz_bytes(in, FZ_CB_MAX, &len);
	len &= ~(size_t)7;
	if (!len) {
		cb = nop;
		len = sizeof(nop);
	}
	if (mode == 2) {
		raw_external(h, q_ext, cb, (uint32_t)len, !(sel_ext & 0x80));
		fz_submit_cb(h, q_int, cb, (uint32_t)len, false);
		run_feeding(h, q_int);
		return;
	}
	/* All streams of one engine at once: arbitration, fences across streams. */
	e = sel_int % GAUDISIM_ENGINE_COUNT;
	for (s = 0; s < GAUDISIM_STREAMS_PER_QMAN; s++)
		fz_submit_cb(h, gaudisim_engine_queue_id(e, s), cb, (uint32_t)len, true);
	for (round = 0; round < FEED_ROUNDS; round++) {
		fz_run(h);
		for (s = 0; s < GAUDISIM_STREAMS_PER_QMAN; s++)
			feed_fences(h, gaudisim_engine_queue_id(e, s), 255);
	}
	fz_run(h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	struct fz_host h;
	unsigned int mode;

	init_queue_list();
	fz_host_init(&h);
	mode = fz_u8(&in) % 4;
	if (mode < 2)
		run_program(&h, &in);
	else
		run_raw(&h, &in, mode);
	/* Whatever is left runs out (bounded), then a reset must silence it. */
	fz_run(&h);
	fz_eq_drain(&h);
	fz_report(&h);
	fz_hard_reset(&h);
	fz_host_fini(&h);
	return 0;
}
