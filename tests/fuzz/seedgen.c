/* SPDX-License-Identifier: MIT */
/*
 * Writes the seed corpus of the fuzz harnesses: meaningful inputs in the
 * formats fuzz_cb.c and fuzz_tpc.c read, so fuzzing starts from jobs
 * that reach every engine instead of from random bytes.
 *
 *   seedgen OUTDIR KERNELDIR     OUTDIR/cb/<name>, OUTDIR/tpc/<name>
 *
 * KERNELDIR holds the runtime's TPC kernels (*.tpcs), assembled here.
 * The seeds are committed; run `make -C tests/fuzz seeds` after changing
 * an input format, then check the replay still passes.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_host.h"
#include "hw/gaudisim_hw_mme.h"
#include "hw/gaudisim_hw_telemetry.h"
#include "hw/gaudisim_hw_tpc.h"
#include "tpc_asm.h"

static const char *outdir, *kerneldir;
static unsigned int written;

/* ---- byte buffers --------------------------------------------------------------- */

struct buf {
	uint8_t b[1 << 16];
	size_t n;
};

static void b8(struct buf *s, unsigned int v)
{
	if (s->n >= sizeof(s->b)) {
		fprintf(stderr, "seedgen: seed too large\n");
		exit(1);
	}
	s->b[s->n++] = (uint8_t)v;
}

static void b16(struct buf *s, unsigned int v)
{
	b8(s, v);
	b8(s, v >> 8);
}

static void b32(struct buf *s, uint32_t v)
{
	b16(s, v);
	b16(s, v >> 16);
}

static void b64(struct buf *s, uint64_t v)
{
	b32(s, (uint32_t)v);
	b32(s, (uint32_t)(v >> 32));
}

static void bbytes(struct buf *s, const void *p, size_t n)
{
	const uint8_t *q = p;

	while (n--)
		b8(s, *q++);
}

static void save(const char *sub, const char *name, const struct buf *s)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", outdir, sub);
	mkdir(outdir, 0755);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", outdir, sub, name);
	f = fopen(path, "wb");
	if (!f || fwrite(s->b, 1, s->n, f) != s->n || fclose(f)) {
		fprintf(stderr, "seedgen: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	written++;
}

/* ---- packets ---------------------------------------------------------------------- */

static void pkt(struct buf *c, uint32_t dw0, uint32_t ctl)
{
	b32(c, dw0);
	b32(c, ctl);
}

static void nop(struct buf *c)
{
	pkt(c, 0, GAUDISIM_PKT_CTL(GAUDISIM_PKT_NOP));
}

static void wreg(struct buf *c, uint32_t reg, uint32_t v)
{
	pkt(c, v, GAUDISIM_PKT_CTL(GAUDISIM_PKT_WREG_32) | GAUDISIM_PKT_CTL_RB | reg);
}

static void lin_dma(struct buf *c, uint64_t src, uint64_t dst, uint32_t size, uint32_t extra)
{
	pkt(c, size, GAUDISIM_PKT_CTL(GAUDISIM_PKT_LIN_DMA) | GAUDISIM_PKT_CTL_RB |
	    GAUDISIM_LIN_DMA_CTL_LIN | extra);
	b64(c, src);
	b64(c, dst);
}

static void memset_dma(struct buf *c, uint64_t dst, uint8_t v, uint32_t size)
{
	lin_dma(c, v, dst, size, GAUDISIM_LIN_DMA_CTL_MEMSET);
}

static void msg(struct buf *c, unsigned int opcode, uint64_t addr, uint32_t v, unsigned int op)
{
	pkt(c, v, GAUDISIM_PKT_CTL(opcode) | GAUDISIM_PKT_CTL_MB | op << GAUDISIM_MSG_CTL_OP_SHIFT);
	b64(c, addr);
}

static void msg_long(struct buf *c, uint64_t addr, uint32_t v)
{
	msg(c, GAUDISIM_PKT_MSG_LONG, addr, v, GAUDISIM_MSG_OP_WRITE_VALUE);
}

/* MSG_SHORT through CP_MSG_BASE1 (the SOB array, as the driver sets it). */
static void sob_add(struct buf *c, unsigned int sob, unsigned int v)
{
	pkt(c, GAUDISIM_SYNC_SOB_ADD(v), GAUDISIM_PKT_CTL(GAUDISIM_PKT_MSG_SHORT) |
	    GAUDISIM_PKT_CTL_MB | 1u << GAUDISIM_MSG_SHORT_CTL_BASE_SHIFT | 4 * sob);
}

static void fence(struct buf *c, unsigned int id, unsigned int target, unsigned int dec)
{
	pkt(c, id << GAUDISIM_FENCE_ID_SHIFT | target << GAUDISIM_FENCE_TARGET_SHIFT |
	    dec << GAUDISIM_FENCE_DEC_VAL_SHIFT, GAUDISIM_PKT_CTL(GAUDISIM_PKT_FENCE));
}

static void repeat(struct buf *c, bool outer, unsigned int count)
{
	pkt(c, count << GAUDISIM_REPEAT_COUNT_SHIFT | (outer ? GAUDISIM_REPEAT_OUTER : 0),
	    GAUDISIM_PKT_CTL(GAUDISIM_PKT_REPEAT));
}

static void repeat_end(struct buf *c, bool outer)
{
	pkt(c, GAUDISIM_REPEAT_SORE_END | (outer ? GAUDISIM_REPEAT_OUTER : 0),
	    GAUDISIM_PKT_CTL(GAUDISIM_PKT_REPEAT));
}

static uint64_t sob_addr(unsigned int sob)
{
	return GAUDISIM_SYNC_SOB_BASE_ADDR + 4 * sob;
}

static uint64_t mon_reg(uint32_t reg)
{
	return GAUDISIM_CFG_BASE + GAUDISIM_BLOCK_SYNC_MNGR + reg;
}

static uint64_t fence_rdata(unsigned int q, unsigned int f)
{
	return GAUDISIM_CFG_BASE + GAUDISIM_QM_BLOCK((unsigned int)gaudisim_queue_engine(q)) +
	       GAUDISIM_QM_CP_FENCE_RDATA(f, gaudisim_queue_stream(q));
}

/* Arm monitor m (from a CB): when SOB sob >= value, add 1 to fence f of q. */
static void arm_monitor(struct buf *c, unsigned int m, unsigned int sob, unsigned int value,
			unsigned int q, unsigned int f)
{
	uint64_t pay = fence_rdata(q, f);

	msg_long(c, mon_reg(GAUDISIM_SYNC_MON_PAY_ADDRL(m)), (uint32_t)pay);
	msg_long(c, mon_reg(GAUDISIM_SYNC_MON_PAY_ADDRH(m)), (uint32_t)(pay >> 32));
	msg_long(c, mon_reg(GAUDISIM_SYNC_MON_PAY_DATA(m)), 1);
	msg_long(c, mon_reg(GAUDISIM_SYNC_MON_ARM(m)), GAUDISIM_SYNC_MON_ARM_SOB(sob, 0, value));
}

/* A 16x16x16 FP32 GEMM on the MME: D = A @ B (+ C), then COMMIT. */
static void mme_gemm(struct buf *c, uint64_t a, uint64_t b, uint64_t cc, uint64_t d,
		     unsigned int m, unsigned int n, unsigned int k, uint32_t dtype, uint32_t beta)
{
	wreg(c, GAUDISIM_MME_A_ADDR_LO, (uint32_t)a);
	wreg(c, GAUDISIM_MME_A_ADDR_HI, (uint32_t)(a >> 32));
	wreg(c, GAUDISIM_MME_B_ADDR_LO, (uint32_t)b);
	wreg(c, GAUDISIM_MME_B_ADDR_HI, (uint32_t)(b >> 32));
	wreg(c, GAUDISIM_MME_C_ADDR_LO, (uint32_t)cc);
	wreg(c, GAUDISIM_MME_C_ADDR_HI, (uint32_t)(cc >> 32));
	wreg(c, GAUDISIM_MME_D_ADDR_LO, (uint32_t)d);
	wreg(c, GAUDISIM_MME_D_ADDR_HI, (uint32_t)(d >> 32));
	wreg(c, GAUDISIM_MME_M, m);
	wreg(c, GAUDISIM_MME_N, n);
	wreg(c, GAUDISIM_MME_K, k);
	wreg(c, GAUDISIM_MME_BATCH, 1);
	wreg(c, GAUDISIM_MME_LDA, k);
	wreg(c, GAUDISIM_MME_LDB, n);
	wreg(c, GAUDISIM_MME_LDC, n);
	wreg(c, GAUDISIM_MME_LDD, n);
	wreg(c, GAUDISIM_MME_DTYPE, dtype);
	wreg(c, GAUDISIM_MME_CTRL, 0);
	wreg(c, GAUDISIM_MME_ALPHA, 0x3f800000u);
	wreg(c, GAUDISIM_MME_BETA, beta);
	wreg(c, GAUDISIM_MME_COMMIT, GAUDISIM_MME_COMMIT_GO);
}

/* ---- fuzz_cb program encoding (see fuzz_cb.c run_program()) ------------------------ */

enum {
	OP_REG_WRITE = 0, OP_REG_WRITE_RAW = 3, OP_REG_READ = 4, OP_HOST_FILL = 5,
	OP_HBM_FILL = 6, OP_QUEUE_SETUP = 7, OP_SUBMIT = 8, OP_SUBMIT_RAW = 11, OP_BD = 12,
	OP_DOORBELL = 13, OP_RUN = 14, OP_RESET = 16, OP_SOFT_RESET = 17, OP_MMU_MAP = 18,
	OP_FENCES = 19, OP_EQ_CLOCK = 20, OP_FAULT_WINDOW = 21, OP_SYNC = 22, OP_FAULT = 23,
};

/* Index of queue q in fuzz_cb's list of queues: every queue ID but 8. */
static unsigned int qsel(unsigned int q)
{
	if (q < GAUDISIM_QUEUE_ID_CPU_PQ)
		return q;
	return q - 1;
}

/* Program header: mode 0 (program), driver set-up or not. */
static void prog_begin(struct buf *p, bool driver)
{
	p->n = 0;
	b8(p, 0);
	b8(p, driver);
}

/* pick_value(): selector 7 = a raw u32. */
static void value(struct buf *p, uint32_t v)
{
	b8(p, 7);
	b32(p, v);
}

/* pick_reg(): selector 14 = an aligned offset inside the BAR. */
static void reg(struct buf *p, uint32_t off)
{
	b8(p, 14);
	b32(p, off);
}

static void op_wr(struct buf *p, uint32_t off, uint32_t v)
{
	b8(p, OP_REG_WRITE);
	reg(p, off);
	value(p, v);
}

static void op_run(struct buf *p)
{
	b8(p, OP_RUN);
}

static void op_submit_raw(struct buf *p, unsigned int q, bool tail, const struct buf *cb)
{
	size_t at = 0;

	/* A raw submit carries at most 256 packets' worth (2 KiB). */
	while (at < cb->n) {
		size_t n = cb->n - at > 2048 ? 2048 : cb->n - at;

		b8(p, OP_SUBMIT_RAW);
		b8(p, qsel(q));
		b8(p, tail ? 0 : 0x80);
		b8(p, (unsigned int)(n / 8 - 1));
		bbytes(p, cb->b + at, n);
		at += n;
	}
}

static void op_hbm_fill(struct buf *p, uint64_t addr, const void *data, size_t n)
{
	const uint8_t *d = data;

	while (n) {
		size_t k = n > 255 ? 255 : n;

		b8(p, OP_HBM_FILL);
		b32(p, (uint32_t)addr);
		b8(p, (unsigned int)k);
		bbytes(p, d, k);
		d += k;
		addr += k;
		n -= k;
	}
}

static void op_fences(struct buf *p, unsigned int q, unsigned int v)
{
	b8(p, OP_FENCES);
	b8(p, qsel(q));
	b8(p, v);
}

/* ---- fuzz_cb seeds --------------------------------------------------------------- */

#define HBM(off)	(FZ_HBM_USER + (off))
#define HOST(off)	fz_dev(FZ_DATA_OFF + (off))
#define VA(off)		(FZ_VA_HOST + FZ_DATA_OFF + (off))
#define Q_DMA2		GAUDISIM_QUEUE_ID_DMA_2_0
#define Q_MME		GAUDISIM_QUEUE_ID_MME_0
#define Q_TPC0		GAUDISIM_QUEUE_ID_TPC_0_0

/* mode 2 (raw CB): external queue sel, internal queue sel, CB. */
static void raw_seed(const char *name, unsigned int q_ext, bool tail, unsigned int q_int,
		     const struct buf *cb)
{
	struct buf s = { .n = 0 };

	b8(&s, 2);
	b8(&s, q_ext | (tail ? 0 : 0x80));
	b8(&s, qsel(q_int) - GAUDISIM_NUM_EXT_QUEUES);
	bbytes(&s, cb->b, cb->n);
	save("cb", name, &s);
}

static void raw_seeds(void)
{
	static struct buf c;

	c.n = 0;
	nop(&c);
	nop(&c);
	raw_seed("raw-nop", 0, true, Q_DMA2, &c);

	/* Every LIN_DMA direction; host addresses work on the external queue. */
	c.n = 0;
	lin_dma(&c, HOST(0), HBM(0x1000), 0x800, 0);
	lin_dma(&c, HBM(0x1000), HBM(0x3000), 0x800, 0);
	lin_dma(&c, HBM(0x3000), HOST(0x4000), 0x800, 0);
	lin_dma(&c, HOST(0x4000), HOST(0x8000), 0x100, 0);
	memset_dma(&c, HBM(0x5000), 0xa5, 0x1000);
	memset_dma(&c, GAUDISIM_SRAM_BASE + 0x100, 0x5a, 0x200);
	/* A completion message to a SOB after the next transfer. */
	wreg(&c, GAUDISIM_ENG_WR_COMP_ADDR_LO, (uint32_t)sob_addr(145));
	wreg(&c, GAUDISIM_ENG_WR_COMP_ADDR_HI, (uint32_t)(sob_addr(145) >> 32));
	wreg(&c, GAUDISIM_ENG_WR_COMP_WDATA, GAUDISIM_SYNC_SOB_ADD(1));
	lin_dma(&c, GAUDISIM_SRAM_BASE + 0x100, HBM(0x6000), 0x200, GAUDISIM_LIN_DMA_CTL_WR_COMP_EN);
	raw_seed("raw-lin-dma", 1, true, Q_DMA2 + 5, &c);

	/* The same through device VAs: the internal queue's way to host memory. */
	c.n = 0;
	lin_dma(&c, VA(0), HBM(0x1000), 0x2000, 0);
	lin_dma(&c, HBM(0x1000), VA(0x3000), 0x2000, 0);
	memset_dma(&c, VA(0x8000), 0x11, 0x1000);
	lin_dma(&c, GAUDISIM_MMU_VA_BASE + 0x7fff0000ull, HBM(0), 0x100, 0);	/* unmapped */
	raw_seed("raw-va-dma", 2, true, Q_DMA2 + 9, &c);

	/* Messages: value, timestamp, protected, short to a SOB, to registers. */
	c.n = 0;
	msg_long(&c, HBM(0x100), 0x12345678);
	msg(&c, GAUDISIM_PKT_MSG_LONG, HBM(0x108), 0, GAUDISIM_MSG_OP_WRITE_TIMESTAMP);
	msg(&c, GAUDISIM_PKT_MSG_PROT, sob_addr(150), GAUDISIM_SYNC_SOB_SET(7), 0);
	sob_add(&c, 151, 3);
	msg_long(&c, HOST(0x10), 0xcafe);
	msg_long(&c, GAUDISIM_CFG_BASE + GAUDISIM_REG_MSIX_REQ, 3);
	msg_long(&c, GAUDISIM_CFG_BASE + GAUDISIM_REG_RESET, GAUDISIM_RESET_HARD);	/* refused */
	raw_seed("raw-msg", 3, true, Q_MME + 1, &c);

	/* FENCE (fed by the harness) and WAIT feeding a fence. */
	c.n = 0;
	pkt(&c, 2u << GAUDISIM_WAIT_ID_SHIFT | 3u << GAUDISIM_WAIT_INC_VAL_SHIFT | 100,
	    GAUDISIM_PKT_CTL(GAUDISIM_PKT_WAIT));
	fence(&c, 2, 3, 3);
	fence(&c, 1, 200, 1);
	msg_long(&c, HBM(0x200), 1);
	raw_seed("raw-fence-wait", 4, true, Q_TPC0 + 2, &c);

	/* Nested REPEAT loops around messages. */
	c.n = 0;
	repeat(&c, true, 3);
	sob_add(&c, 160, 1);
	repeat(&c, false, 4);
	sob_add(&c, 161, 1);
	nop(&c);
	repeat_end(&c, false);
	repeat_end(&c, true);
	msg_long(&c, HBM(0x300), 2);
	raw_seed("raw-repeat", 5, true, Q_DMA2 + 13, &c);

	/*
	 * CP_DMA (internal queues only): the CB copies part of itself to HBM,
	 * through the VA of the external phase's copy, and runs it from there.
	 */
	c.n = 0;
	lin_dma(&c, FZ_VA_HOST + FZ_CB_OFF + 48, HBM(0x8000), 24, 0);
	pkt(&c, 24, GAUDISIM_PKT_CTL(GAUDISIM_PKT_CP_DMA));
	b64(&c, HBM(0x8000));
	sob_add(&c, 170, 1);
	msg_long(&c, HBM(0x400), 3);
	nop(&c);
	raw_seed("raw-cp-dma", 6, true, Q_DMA2, &c);

	/* Arbitration, WREG_BULK, STOP. */
	c.n = 0;
	pkt(&c, 5, GAUDISIM_PKT_CTL(GAUDISIM_PKT_ARB_POINT));
	nop(&c);
	pkt(&c, GAUDISIM_ARB_POINT_RLS, GAUDISIM_PKT_CTL(GAUDISIM_PKT_ARB_POINT));
	pkt(&c, 1, GAUDISIM_PKT_CTL(GAUDISIM_PKT_WREG_BULK) | GAUDISIM_ENG_WR_COMP_ADDR_LO);
	b32(&c, (uint32_t)sob_addr(180));
	b32(&c, (uint32_t)(sob_addr(180) >> 32));
	pkt(&c, 0, GAUDISIM_PKT_CTL(GAUDISIM_PKT_STOP));
	raw_seed("raw-arb-stop", 7, true, Q_DMA2 + 2, &c);

	/* Malformed: undefined opcode, then a packet overrunning the CB. */
	c.n = 0;
	nop(&c);
	pkt(&c, 0, GAUDISIM_PKT_CTL(0x1e));
	raw_seed("raw-bad-opcode", 0, true, Q_DMA2 + 1, &c);
	c.n = 0;
	pkt(&c, 0x100, GAUDISIM_PKT_CTL(GAUDISIM_PKT_LIN_DMA) | GAUDISIM_LIN_DMA_CTL_LIN);
	raw_seed("raw-overrun", 1, false, Q_DMA2 + 3, &c);

	/* An MME GEMM from the MME queue (on zeroed memory), then EB and a SOB. */
	c.n = 0;
	mme_gemm(&c, HBM(0x10000), HBM(0x11000), HBM(0x12000), HBM(0x13000), 16, 16, 16,
		 GAUDISIM_MME_DTYPE_VALUE(GAUDISIM_DTYPE_FP32, GAUDISIM_DTYPE_FP32), 0);
	pkt(&c, 0, GAUDISIM_PKT_CTL(GAUDISIM_PKT_NOP) | GAUDISIM_PKT_CTL_EB);
	sob_add(&c, 190, 1);
	raw_seed("raw-mme", 2, true, Q_MME, &c);
	/* BF16 in and out, accumulating into C == D, transposed B. */
	c.n = 0;
	mme_gemm(&c, HBM(0x10000), HBM(0x11000), HBM(0x13000), HBM(0x13000), 24, 8, 40,
		 GAUDISIM_MME_DTYPE_VALUE(GAUDISIM_DTYPE_BF16, GAUDISIM_DTYPE_BF16), 0x3f800000u);
	raw_seed("raw-mme-bf16", 3, true, Q_MME + 2, &c);

	/* Four streams of one engine at once (mode 3): fences, arbitration. */
	{
		struct buf s = { .n = 0 };

		b8(&s, 3);
		b8(&s, 0);
		b8(&s, GAUDISIM_ENGINE_DMA_2);
		c.n = 0;
		pkt(&c, 0, GAUDISIM_PKT_CTL(GAUDISIM_PKT_ARB_POINT));
		sob_add(&c, 200, 1);
		fence(&c, 0, 1, 1);
		pkt(&c, GAUDISIM_ARB_POINT_RLS, GAUDISIM_PKT_CTL(GAUDISIM_PKT_ARB_POINT));
		memset_dma(&c, HBM(0x20000), 1, 0x100);
		bbytes(&s, c.b, c.n);
		save("cb", "raw4-arb-fence", &s);
	}
}

/* Driver-like programs. */
static void program_seeds(void)
{
	static struct buf p, c;
	float data[256];
	unsigned int i;

	/* A job per external queue, completions, EQ drain; then a hard reset. */
	prog_begin(&p, true);
	for (i = 0; i < GAUDISIM_NUM_EXT_QUEUES; i++) {
		c.n = 0;
		lin_dma(&c, HOST(0x100 * i), HBM(0x100 * i), 0x100, 0);
		sob_add(&c, 144 + i, 1);
		op_submit_raw(&p, i, true, &c);
	}
	op_run(&p);
	b8(&p, OP_EQ_CLOCK);
	b16(&p, 1000);
	b8(&p, 4);
	b8(&p, OP_RESET);
	b8(&p, 3);		/* pending reset, then the driver again */
	c.n = 0;
	msg_long(&c, HBM(0), 1);
	op_submit_raw(&p, 0, true, &c);
	op_run(&p);
	save("cb", "prog-ext-queues", &p);

	/* A chain across engines through the sync manager: DMA -> MME -> TPC -> DMA. */
	for (i = 0; i < 256; i++)
		data[i] = (float)(i % 7) - 3.0f;
	prog_begin(&p, true);
	op_hbm_fill(&p, HBM(0x10000), data, sizeof(data));	/* A 16x16 */
	op_hbm_fill(&p, HBM(0x11000), data, sizeof(data));	/* B 16x16 */
	/* The TPC's part: a kernel that just halts. */
	{
		uint8_t halt[GAUDISIM_TPC_BUNDLE_SIZE] = { 0 };
		struct gaudisim_tpc_slot s = { .opc = GAUDISIM_TPC_OP_HALT };

		gaudisim_tpc_slot_encode(halt, GAUDISIM_TPC_SLOT_SPU, &s);
		op_hbm_fill(&p, HBM(0x30000), halt, sizeof(halt));
	}
	/* DMA_2: copy, signal SOB 300; a monitor moves MME stream 0's fence. */
	c.n = 0;
	arm_monitor(&c, 100, 300, 1, Q_MME, 0);
	arm_monitor(&c, 101, 301, 1, Q_TPC0, 0);
	arm_monitor(&c, 102, 302, 1, 0, 0);
	lin_dma(&c, HBM(0x10000), HBM(0x14000), 1024, 0);
	sob_add(&c, 300, 1);
	op_submit_raw(&p, Q_DMA2, false, &c);
	c.n = 0;
	fence(&c, 0, 1, 1);
	mme_gemm(&c, HBM(0x14000), HBM(0x11000), 0, HBM(0x15000), 16, 16, 16,
		 GAUDISIM_MME_DTYPE_VALUE(GAUDISIM_DTYPE_FP32, GAUDISIM_DTYPE_FP32), 0);
	pkt(&c, GAUDISIM_SYNC_SOB_ADD(1), GAUDISIM_PKT_CTL(GAUDISIM_PKT_MSG_SHORT) |
	    GAUDISIM_PKT_CTL_EB | GAUDISIM_PKT_CTL_MB | 1u << GAUDISIM_MSG_SHORT_CTL_BASE_SHIFT |
	    4 * 301);
	op_submit_raw(&p, Q_MME, false, &c);
	c.n = 0;
	fence(&c, 0, 1, 1);
	wreg(&c, GAUDISIM_TPC_KERNEL_ADDR_LO, (uint32_t)HBM(0x30000));
	wreg(&c, GAUDISIM_TPC_KERNEL_SIZE, GAUDISIM_TPC_BUNDLE_SIZE);
	wreg(&c, GAUDISIM_TPC_WATCHDOG, 1000);
	wreg(&c, GAUDISIM_ENG_WR_COMP_ADDR_LO, (uint32_t)sob_addr(302));
	wreg(&c, GAUDISIM_ENG_WR_COMP_ADDR_HI, (uint32_t)(sob_addr(302) >> 32));
	wreg(&c, GAUDISIM_ENG_WR_COMP_WDATA, GAUDISIM_SYNC_SOB_ADD(1));
	wreg(&c, GAUDISIM_ENG_WR_COMP_EN, 1);
	wreg(&c, GAUDISIM_TPC_COMMIT, GAUDISIM_TPC_COMMIT_GO);
	op_submit_raw(&p, Q_TPC0, false, &c);
	c.n = 0;
	fence(&c, 0, 1, 1);
	lin_dma(&c, HBM(0x15000), HOST(0), 1024, 0);
	op_submit_raw(&p, 0, true, &c);
	op_run(&p);
	save("cb", "prog-chain", &p);

	/* MMU: map pages (one read-only, one 2 MiB), use them from an internal queue. */
	prog_begin(&p, true);
	b8(&p, OP_MMU_MAP);
	b8(&p, 0x04);			/* read-only 4 KiB page, set queue ASID */
	b8(&p, 2);			/* ASID 2 */
	b16(&p, 0x200);			/* VA page */
	b8(&p, 0x90);			/* host page */
	b8(&p, qsel(Q_DMA2 + 4));
	b8(&p, OP_MMU_MAP);
	b8(&p, 0x03);			/* writable 2 MiB page */
	b8(&p, 2);
	b16(&p, 0x400);
	b8(&p, 0);
	c.n = 0;
	lin_dma(&c, FZ_VA_HOST + (0x200ull << 12), HBM(0x100), 0x100, 0);
	lin_dma(&c, HBM(0x100), FZ_VA_HOST + (0x200ull << 12), 0x100, 0);	/* write fault */
	op_submit_raw(&p, Q_DMA2 + 4, false, &c);
	op_run(&p);
	op_wr(&p, GAUDISIM_BLOCK_MMU + GAUDISIM_MMU_FAULT_INFO, 0);
	save("cb", "prog-mmu", &p);

	/* Reset in the middle of a job that waits on a fence; soft reset of the MME. */
	prog_begin(&p, true);
	c.n = 0;
	fence(&c, 1, 5, 5);
	msg_long(&c, HBM(0), 9);
	op_submit_raw(&p, 2, true, &c);
	op_submit_raw(&p, Q_MME + 2, false, &c);
	op_run(&p);
	op_fences(&p, 2, 2);
	op_run(&p);
	b8(&p, OP_SOFT_RESET);
	b8(&p, GAUDISIM_ENGINE_MME);
	b8(&p, 1);
	op_run(&p);
	b8(&p, OP_RESET);
	b8(&p, 0);
	op_run(&p);
	save("cb", "prog-reset-mid-job", &p);

	/* LOAD_AND_EXE: predicates, then an MME launch run from the scalars. */
	{
		uint32_t preds[GAUDISIM_PKT_NUM_PREDS] = { [1] = 1 };
		uint32_t scal[4] = { 0, GAUDISIM_PKT_CTL(GAUDISIM_PKT_NOP), GAUDISIM_MME_COMMIT_GO,
				     gaudisim_wreg32_ctl(GAUDISIM_MME_COMMIT, 0) };

		prog_begin(&p, true);
		op_hbm_fill(&p, HBM(0x10000), data, sizeof(data));
		op_hbm_fill(&p, HBM(0x20000), preds, sizeof(preds));
		op_hbm_fill(&p, HBM(0x20100), scal, sizeof(scal));
		c.n = 0;
		mme_gemm(&c, HBM(0x10000), HBM(0x10000), 0, HBM(0x12000), 8, 8, 8,
			 GAUDISIM_MME_DTYPE_VALUE(GAUDISIM_DTYPE_BF16, GAUDISIM_DTYPE_FP32), 0);
		/* mme_gemm() ends with its COMMIT: drop it, the scalars hold one. */
		c.n -= 8;
		pkt(&c, GAUDISIM_LOAD_AND_EXE_LOAD, gaudisim_load_and_exe_ctl(0, 0));
		b64(&c, HBM(0x20000));
		pkt(&c, GAUDISIM_LOAD_AND_EXE_LOAD | GAUDISIM_LOAD_AND_EXE_DST,
		    gaudisim_load_and_exe_ctl(1, 0));
		b64(&c, HBM(0x20100));
		pkt(&c, GAUDISIM_LOAD_AND_EXE_EXE | GAUDISIM_LOAD_AND_EXE_ETYPE,
		    gaudisim_load_and_exe_ctl(1, 0));
		b64(&c, 0);
		pkt(&c, 0, GAUDISIM_PKT_CTL(GAUDISIM_PKT_NOP) | GAUDISIM_PKT_CTL_EB);
		op_submit_raw(&p, Q_MME + 1, false, &c);
		op_run(&p);
		save("cb", "prog-load-and-exe", &p);
	}

	/* Injected faults: engine hang with EB waiting on it, ECC, dropped IRQs. */
	prog_begin(&p, true);
	b8(&p, OP_FAULT);
	b8(&p, 0);
	b8(&p, GAUDISIM_ENGINE_MME + 1);	/* hang the MME */
	c.n = 0;
	mme_gemm(&c, HBM(0x10000), HBM(0x10000), 0, HBM(0x12000), 8, 8, 8,
		 GAUDISIM_MME_DTYPE_VALUE(GAUDISIM_DTYPE_BF16, GAUDISIM_DTYPE_FP32), 0);
	pkt(&c, 0, GAUDISIM_PKT_CTL(GAUDISIM_PKT_NOP) | GAUDISIM_PKT_CTL_EB);
	op_submit_raw(&p, Q_MME + 3, false, &c);
	op_run(&p);
	b8(&p, OP_FAULT);
	b8(&p, 1);			/* release the hang */
	op_run(&p);
	b8(&p, OP_FAULT);
	b8(&p, 0x80);			/* uncorrectable ECC */
	b8(&p, 2);
	b8(&p, OP_FAULT);
	b8(&p, 3);			/* drop interrupts */
	b8(&p, 2);
	c.n = 0;
	nop(&c);
	op_submit_raw(&p, 5, true, &c);
	op_run(&p);
	b8(&p, OP_FAULT);
	b8(&p, 4);			/* thermal spike */
	b8(&p, 60);
	b8(&p, OP_FAULT);
	b8(&p, 5);			/* heartbeat */
	b32(&p, 0x1234);
	b8(&p, OP_EQ_CLOCK);
	b16(&p, 0xffff);
	b8(&p, 16);
	save("cb", "prog-faults", &p);

	/* Driver's register traffic: window, telemetry, host-side fault window. */
	prog_begin(&p, false);
	op_wr(&p, GAUDISIM_REG_HBM_WINDOW_LO, (uint32_t)FZ_BAR_SIZE);
	op_wr(&p, GAUDISIM_REG_HBM_WINDOW_HI, 0);
	op_wr(&p, GAUDISIM_BLOCK_TELEMETRY + GAUDISIM_TEL_POWER_MAX_MW, 200000);
	op_wr(&p, GAUDISIM_BLOCK_TELEMETRY + GAUDISIM_TEL_CLOCK_MAX_MHZ, 1000);
	op_wr(&p, GAUDISIM_BLOCK_TELEMETRY + GAUDISIM_TEL_RESET_HISTORY, 1);
	b8(&p, OP_REG_READ);
	reg(&p, GAUDISIM_BLOCK_TELEMETRY + GAUDISIM_TEL_POWER_MW);
	b8(&p, OP_QUEUE_SETUP);
	b8(&p, qsel(6));
	b8(&p, 3);
	b8(&p, OP_FAULT_WINDOW);
	b32(&p, FZ_CB_OFF);
	b16(&p, 0x1000);
	c.n = 0;
	nop(&c);
	op_submit_raw(&p, 6, true, &c);	/* its CB fetch faults */
	op_run(&p);
	b8(&p, OP_BD);
	b8(&p, qsel(6));
	b32(&p, 0xffffffffu);		/* reserved BD bits */
	b8(&p, 4);			/* size: 8 * 8 + 0 */
	b8(&p, 8);
	b8(&p, 0);
	b8(&p, 4);			/* CB in user HBM */
	b32(&p, 0x1000);
	b8(&p, OP_DOORBELL);
	b8(&p, qsel(7));
	b8(&p, 129);
	op_run(&p);
	save("cb", "prog-registers", &p);

	/* Structured submissions (fuzz_cb's own packet generator), two queues. */
	prog_begin(&p, true);
	for (i = 0; i < 2; i++) {
		unsigned int k;

		b8(&p, OP_SUBMIT);
		b8(&p, qsel(i ? Q_MME : 0));
		b8(&p, 23);		/* 24 packets, with tail */
		for (k = 0; k < 24; k++) {
			b8(&p, 0);	/* barriers */
			b8(&p, k);	/* packet kind */
			b32(&p, 0x01020304u * (k + 1));
			b32(&p, 0x10203040u + k);
		}
	}
	op_run(&p);
	save("cb", "prog-generated", &p);

	/* The EQ overflowing: many refused PQ entries, no drain. */
	prog_begin(&p, true);
	for (i = 0; i < 80; i++) {
		b8(&p, OP_BD);
		b8(&p, qsel(Q_DMA2 + i % 16));
		b32(&p, 0);
		b8(&p, 4);		/* size 61: not a multiple of 8 */
		b8(&p, 7);
		b8(&p, 5);
		b8(&p, 4);
		b32(&p, 0x2000);
	}
	op_run(&p);
	save("cb", "prog-eq-overflow", &p);
}

/* ---- fuzz_tpc seeds ---------------------------------------------------------------- */

#define T_CB		0x08
#define T_LEGAL		0x10
#define T_RERUN		0x20
#define T_SPLIT		0x40

struct tensor_seed {
	uint8_t base, dtype, layout;
	uint32_t size[5];
	uint32_t pad;
};

static uint8_t *assemble_text(const char *name, const char *text, size_t *size)
{
	char err[256];
	uint8_t *code;

	if (tpc_assemble(text, strlen(text), name, &code, size, err, sizeof(err))) {
		fprintf(stderr, "seedgen: %s\n", err);
		exit(1);
	}
	return code;
}

static uint8_t *assemble_file(const char *kernel, size_t *size)
{
	char path[4096], *text;
	long len;
	FILE *f;
	uint8_t *code;

	snprintf(path, sizeof(path), "%s/%s.tpcs", kerneldir, kernel);
	f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "seedgen: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	text = calloc(1, (size_t)len + 1);
	if (!text || fread(text, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "seedgen: %s: read error\n", path);
		exit(1);
	}
	fclose(f);
	code = assemble_text(kernel, text, size);
	free(text);
	return code;
}

static void tpc_seed(const char *name, unsigned int flags, uint32_t watchdog,
		     const uint32_t isize[5], const uint32_t *args, unsigned int nargs,
		     const struct tensor_seed *t, unsigned int nt, const uint8_t *code, size_t size)
{
	struct buf s = { .n = 0 };
	unsigned int i, d;

	b8(&s, flags);
	b16(&s, watchdog - 1);
	for (d = 0; d < 5; d++) {
		if (isize[d] >= 1 && isize[d] <= 4) {
			b8(&s, isize[d] - 1);
		} else {
			b8(&s, 0xf0);
			b32(&s, isize[d]);
		}
	}
	b8(&s, nargs);
	for (i = 0; i < nargs; i++)
		b32(&s, args[i]);
	b8(&s, nt);
	for (i = 0; i < nt; i++) {
		b8(&s, t[i].base);
		b8(&s, t[i].dtype);
		b8(&s, t[i].layout);
		b8(&s, t[i].size[0] - 1);
		for (d = 1; d < 5; d++)
			b8(&s, t[i].size[d] - 1);
		if (t[i].layout & 2)
			b32(&s, t[i].pad);
	}
	bbytes(&s, code, size);
	save("tpc", name, &s);
}

static void tpc_seeds(void)
{
	const uint32_t one[5] = { 1, 1, 1, 1, 1 };
	const uint32_t rows[5] = { 1, 3, 2, 1, 1 };
	const uint32_t tiles[5] = { 2, 3, 2, 1, 1 };
	const uint32_t args[3] = { 7, 0xffffffffu, 0x3f800000u };
	/* buffer 0 (FP32 data), 1 (BF16 pairs), 2 and 3 (outputs) */
	const struct tensor_seed vec3[3] = {
		{ 0, GAUDISIM_DTYPE_FP32, 0, { 100, 3, 2, 1, 1 }, 0 },
		{ 4, GAUDISIM_DTYPE_FP32, 0, { 100, 3, 2, 1, 1 }, 0 },
		{ 2, GAUDISIM_DTYPE_FP32, 0, { 100, 3, 2, 1, 1 }, 0 },
	};
	const struct tensor_seed bf3[3] = {
		{ 1, GAUDISIM_DTYPE_BF16, 0, { 100, 3, 2, 1, 1 }, 0 },
		{ 5, GAUDISIM_DTYPE_BF16, 0, { 100, 3, 2, 1, 1 }, 0 },
		{ 3, GAUDISIM_DTYPE_BF16, 0, { 100, 3, 2, 1, 1 }, 0 },
	};
	const struct tensor_seed unary[2] = {
		{ 0, GAUDISIM_DTYPE_FP32, 0, { 200, 3, 2, 1, 1 }, 0 },
		{ 2, GAUDISIM_DTYPE_FP32, 0, { 200, 3, 2, 1, 1 }, 0 },
	};
	const struct tensor_seed reduce[2] = {
		{ 0, GAUDISIM_DTYPE_FP32, 2, { 150, 3, 2, 1, 1 }, 0 },
		{ 2, GAUDISIM_DTYPE_FP32, 0, { 1, 3, 2, 1, 1 }, 0 },
	};
	const struct tensor_seed smax[2] = {
		{ 0, GAUDISIM_DTYPE_FP32, 2, { 150, 3, 2, 1, 1 }, 0xff800000u },
		{ 2, GAUDISIM_DTYPE_FP32, 0, { 150, 3, 2, 1, 1 }, 0 },
	};
	const struct tensor_seed ints[2] = {
		{ 2, GAUDISIM_DTYPE_INT32, 0, { 64, 1, 1, 1, 1 }, 0 },
		{ 3, GAUDISIM_DTYPE_UINT8, 0, { 64, 1, 1, 1, 1 }, 0 },
	};
	const struct tensor_seed bad[2] = {
		{ 0x80 | 2, GAUDISIM_DTYPE_FP32, 0x90, { 64, 1, 1, 1, 1 }, 0 },	/* misaligned */
		{ 15, 9, 0, { 64, 1, 1, 1, 1 }, 0 },				/* bad dtype */
	};
	uint8_t *code;
	size_t size;

	code = assemble_text("halt", "halt\n", &size);
	tpc_seed("halt", 0, 10, one, NULL, 0, NULL, 0, code, size);
	tpc_seed("halt-split", T_SPLIT | 7, 100, tiles, NULL, 0, NULL, 0, code, size);
	free(code);

	code = assemble_file("vector_add", &size);
	tpc_seed("vector-add", 0, 1000, tiles, NULL, 0, vec3, 3, code, size);
	tpc_seed("vector-add-cb-rerun", T_CB | T_RERUN | 2, 1000, tiles, NULL, 0, vec3, 3, code,
		 size);
	tpc_seed("vector-add-split", T_SPLIT | 3, 1000, tiles, NULL, 0, vec3, 3, code, size);
	free(code);

	code = assemble_file("vector_add_bf16", &size);
	tpc_seed("vector-add-bf16", T_RERUN | 5, 1000, tiles, NULL, 0, bf3, 3, code, size);
	free(code);

	code = assemble_file("relu", &size);
	tpc_seed("relu", 1, 1000, rows, NULL, 0, unary, 2, code, size);
	free(code);

	code = assemble_file("reduce_sum", &size);
	tpc_seed("reduce-sum", T_RERUN | 4, 5000, rows, NULL, 0, reduce, 2, code, size);
	free(code);

	code = assemble_file("softmax", &size);
	tpc_seed("softmax", T_CB | 6, 5000, rows, NULL, 0, smax, 2, code, size);
	tpc_seed("softmax-legalized", T_LEGAL | 6, 5000, rows, NULL, 0, smax, 2, code, size);
	free(code);

	/* Scalar unit, predicates, conversions, special registers, loops. */
	code = assemble_text("scalar",
		"mov.i32 S5, 0\n"
		"rd S23, tpcid\n"
		"top: add.i32 S5, S5, 3\n"
		"loop S6, 10, top\n"
		"cmp.eq.i32 SP1, S5, 30\n"
		"iota.i32 V3 ; rd S24, isize.0\n"
		"cvt.i32.f32.rne V4, V3\n"
		"cmp.lt.f32 VP2, V4, 10.0\n"
		"sel.f32 V5, V4, V3, VP2\n"
		"(SP1) mov.i32 S7, 5\n"
		"rsum.f32 V6, V5 ; iget S20, I0.0\n"
		"st.i32 T0, I0, V3\n"
		"sts.u8 T1, I0, S5 ; halt\n", &size);
	tpc_seed("scalar-ops", T_RERUN, 1000, one, args, 3, ints, 2, code, size);
	free(code);

	/* Every memory type through the vector load and store units. */
	{
		const struct tensor_seed types[8] = {
			{ 0, GAUDISIM_DTYPE_INT8, 0, { 64, 2, 1, 1, 1 }, 0 },
			{ 2, GAUDISIM_DTYPE_INT8, 0, { 64, 2, 1, 1, 1 }, 0 },
			{ 4, GAUDISIM_DTYPE_UINT16, 0, { 64, 2, 1, 1, 1 }, 0 },
			{ 6, GAUDISIM_DTYPE_UINT16, 0, { 64, 2, 1, 1, 1 }, 0 },
			{ 8, GAUDISIM_DTYPE_INT16, 0, { 64, 2, 1, 1, 1 }, 0 },
			{ 10, GAUDISIM_DTYPE_INT16, 0, { 64, 2, 1, 1, 1 }, 0 },
			{ 12, GAUDISIM_DTYPE_UINT8, 0, { 100, 2, 1, 1, 1 }, 0 },
			{ 14, GAUDISIM_DTYPE_UINT8, 0, { 100, 2, 1, 1, 1 }, 0 },
		};
		const uint32_t two[5] = { 1, 2, 1, 1, 1 };

		code = assemble_text("types",
			"ld.i8 V1, T0, I0 ; st.i8 T1, I0, V1\n"
			"ld.u16 V2, T2, I0 ; st.u16 T3, I0, V2\n"
			"ld.i16 V3, T4, I0 ; st.i16 T5, I0, V3\n"
			"ld.u8 V4, T6, I0 ; st.u8 T7, I0, V4\n"
			"mov.f32 V5, 2.5\n"
			"cvt.f32.u16.rne V6, V5\n"
			"cvt.f32.i8.rz V7, V5\n"
			"cvt.f32.i16.ru V8, V5 ; st.u16 T3, I0, V6\n"
			"cvt.f32.u8.rd V9, V5 ; st.i8 T1, I0, V7\n"
			"st.i16 T5, I0, V8\n"
			"st.u8 T7, I0, V9 ; halt\n", &size);
		tpc_seed("memory-types", T_RERUN, 1000, two, NULL, 0, types, 8, code, size);
		free(code);
	}

	/* Errors: a spin loop (watchdog), no HALT (runs past the end), illegal
	 * bundle, bad tensors, bad index space. */
	code = assemble_text("spin", "top: jmp top\n", &size);
	tpc_seed("spin-watchdog", 0, 5000, one, NULL, 0, NULL, 0, code, size);
	tpc_seed("spin-watchdog-cb", T_CB | 1, 300, tiles, NULL, 0, NULL, 0, code, size);
	free(code);
	code = assemble_text("noend", "mov.i32 S1, 1\nmov.i32 S2, 2\n", &size);
	tpc_seed("past-end", 0, 100, one, NULL, 0, NULL, 0, code, size);
	free(code);
	code = assemble_text("illegal", "iset I1.0, 1\n.raw 0x3f, 0, 0, 0, 0, 0, 0, 0\nhalt\n", &size);
	tpc_seed("illegal", 0, 100, one, NULL, 0, NULL, 0, code, size);
	free(code);
	code = assemble_text("badtensor", "ld.f32 V1, T0, I0 ; halt\nlds.i32 S1, T1, I0\n", &size);
	tpc_seed("bad-tensors", 0, 100, one, NULL, 0, bad, 2, code, size);
	free(code);
	{
		const uint32_t huge[5] = { 0x10000, 0x10000, 1, 1, 0 };

		code = assemble_text("halt", "halt\n", &size);
		tpc_seed("bad-ispace", 0, 100, huge, NULL, 0, NULL, 0, code, size);
		free(code);
	}
}

/* ---- TPC operation seeds (fuzz_tpc_ops.c) ---------------------------------------- */

/* One seed per operation and dtype family, lanes with the values that
 * matter: zeros, ones, signs, infinities, NaNs, denormals, extremes. */
static void tpc_ops_seeds(void)
{
	static const uint32_t special[] = {
		0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000,
		0x7fc00000, 0x00000001, 0x7f7fffff, 0x00800000, 0x3fc00000, 0x40490fdb,
		0xffffffff, 0x7fffffff, 0x0000007f, 0x00008000,
	};
	static const unsigned int dtypes[] = { GAUDISIM_DTYPE_FP32, GAUDISIM_DTYPE_INT32,
					       GAUDISIM_DTYPE_BF16 };
	const unsigned int nops = 26, nspecial = sizeof(special) / sizeof(special[0]);
	unsigned int op, t, i, v;
	uint32_t x = 12345;
	char name[64];

	for (op = 0; op < nops; op++) {
		for (t = 0; t < 3; t++) {
			struct buf *s = calloc(1, sizeof(*s));

			if (!s)
				exit(1);
			b8(s, op);
			b8(s, dtypes[t]);
			b8(s, (op + t) % 3);		/* SRC_B kind */
			b8(s, (op * 7 + t) & 0x3f);	/* condition / conversion */
			b32(s, special[(op + t) % nspecial]);
			for (v = 0; v < 3; v++) {
				for (i = 0; i < 64; i++) {
					x = x * 1103515245u + 12345u;
					b32(s, i < nspecial ? special[(i + v * 5) % nspecial] :
					    i % 2 ? x : (uint32_t)((int32_t)(x >> 16) - 32768) * 3u);
				}
			}
			snprintf(name, sizeof(name), "op%02u-dt%u", op, dtypes[t]);
			save("tpc_ops", name, s);
			free(s);
		}
	}
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s OUTDIR KERNELDIR\n", argv[0]);
		return 2;
	}
	outdir = argv[1];
	kerneldir = argv[2];
	raw_seeds();
	program_seeds();
	tpc_seeds();
	tpc_ops_seeds();
	printf("seedgen: %u seeds in %s\n", written, outdir);
	return 0;
}
