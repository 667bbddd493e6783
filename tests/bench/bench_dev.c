/* SPDX-License-Identifier: MIT */
/*
 * The benchmarks' host for the device core (see bench_dev.h): fake host
 * memory for the PQ rings, driver-style set-up of internal queues, CB
 * submission and completion through a sync object.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_dev.h"
#include "bench_stats.h"
#include "hw/gaudisim_hw_packets.h"
#include "hw/gaudisim_hw_queues.h"
#include "hw/gaudisim_hw_regs.h"
#include "hw/gaudisim_hw_sync.h"

/* Host memory: PQ rings only, 16 entries for each of the 73 queues. */
#define HOST_BUS		0x100000000ull
#define PQ_LOG2			4
#define PQ_BYTES		((1u << PQ_LOG2) * GAUDISIM_BD_SIZE)
#define HOST_SIZE		(GAUDISIM_QUEUE_ID_SIZE * PQ_BYTES)

struct bench_dev {
	struct gsim_core *core;
	uint8_t host[HOST_SIZE];
	bool queue_ready[GAUDISIM_QUEUE_ID_SIZE];
	uint64_t cb_next;
};

static void die(const char *msg)
{
	fprintf(stderr, "bench: %s\n", msg);
	exit(1);
}

static int host_read(void *opaque, uint64_t bus, void *buf, uint64_t len)
{
	struct bench_dev *d = opaque;

	if (bus < HOST_BUS || bus - HOST_BUS > HOST_SIZE || len > HOST_SIZE - (bus - HOST_BUS))
		return -1;
	memcpy(buf, d->host + (bus - HOST_BUS), len);
	return 0;
}

static int host_write(void *opaque, uint64_t bus, const void *buf, uint64_t len)
{
	struct bench_dev *d = opaque;

	if (bus < HOST_BUS || bus - HOST_BUS > HOST_SIZE || len > HOST_SIZE - (bus - HOST_BUS))
		return -1;
	memcpy(d->host + (bus - HOST_BUS), buf, len);
	return 0;
}

static void msix(void *opaque, unsigned int vector)
{
	(void)opaque, (void)vector;
}

/* A benchmark whose device reports an error measures nothing: stop. */
static void guest_error(void *opaque, const char *msg)
{
	(void)opaque;
	fprintf(stderr, "bench: device reported: %s\n", msg);
	exit(1);
}

static uint64_t clock_ns(void *opaque)
{
	(void)opaque;
	return (uint64_t)(bench_now() * 1e9);
}

static const struct gsim_host_ops ops = {
	.dma_read = host_read,
	.dma_write = host_write,
	.msix_notify = msix,
	.guest_error = guest_error,
	.clock_ns = clock_ns,
};

static void wr(struct bench_dev *d, uint32_t off, uint32_t value)
{
	unsigned int kick = gsim_core_reg_write(d->core, off, value);

	if (kick & GSIM_KICK_RESET)
		die("a register write asked for a reset");
}

struct bench_dev *bench_dev_new(uint64_t hbm_size, unsigned int threads)
{
	return bench_dev_new_tpc(hbm_size, threads, false);
}

struct bench_dev *bench_dev_new_tpc(uint64_t hbm_size, unsigned int threads, bool tpc_portable)
{
	struct gsim_core_config cfg = {
		.hbm_size = hbm_size, .hbm_bar_size = 256ull << 20, .threads = threads,
		.tpc_portable = tpc_portable,
	};
	struct bench_dev *d = calloc(1, sizeof(*d));
	const char *err = NULL;

	if (!d)
		die("out of memory");
	d->core = gsim_core_new(&cfg, &ops, d, &err);
	if (!d->core)
		die(err ? err : "cannot create the device core");
	if (gsim_core_threads(d->core) != threads)
		die("the core did not start the worker threads asked for");
	d->cb_next = BENCH_CB_BASE;
	return d;
}

void bench_dev_free(struct bench_dev *d)
{
	gsim_core_free(d->core);
	free(d);
}

struct gsim_core *bench_core(struct bench_dev *d)
{
	return d->core;
}

uint8_t *bench_hbm(struct bench_dev *d, uint64_t addr, uint64_t len)
{
	uint64_t size = gsim_core_hbm_size(d->core);

	if (addr > size || len > size - addr)
		die("HBM address outside the device");
	return gsim_core_hbm(d->core) + addr;
}

/* ---- packets --------------------------------------------------------------- */

static void put(struct bench_cb *cb, uint32_t dw0, uint32_t ctl)
{
	if (cb->len + 8 > BENCH_CB_MAX)
		die("command buffer too long");
	memcpy(cb->bytes + cb->len, &dw0, 4);
	memcpy(cb->bytes + cb->len + 4, &ctl, 4);
	cb->len += 8;
}

static void put64(struct bench_cb *cb, uint64_t v)
{
	put(cb, (uint32_t)v, (uint32_t)(v >> 32));
}

void bench_cb_reset(struct bench_cb *cb)
{
	cb->len = 0;
}

void bench_cb_wreg(struct bench_cb *cb, uint32_t reg, uint32_t value)
{
	put(cb, value, GAUDISIM_PKT_CTL(GAUDISIM_PKT_WREG_32) | GAUDISIM_PKT_CTL_RB | reg);
}

void bench_cb_memset(struct bench_cb *cb, uint64_t dst, uint8_t value, uint32_t size)
{
	put(cb, size, GAUDISIM_PKT_CTL(GAUDISIM_PKT_LIN_DMA) | GAUDISIM_PKT_CTL_RB |
	    GAUDISIM_LIN_DMA_CTL_LIN | GAUDISIM_LIN_DMA_CTL_MEMSET);
	put64(cb, value);
	put64(cb, dst);
}

void bench_cb_signal(struct bench_cb *cb, unsigned int sob)
{
	/* MSG_SHORT through CP_MSG_BASE1 (the sync objects), engine barrier. */
	put(cb, GAUDISIM_SYNC_SOB_ADD(1), GAUDISIM_PKT_CTL(GAUDISIM_PKT_MSG_SHORT) |
	    GAUDISIM_PKT_CTL_MB | GAUDISIM_PKT_CTL_EB | 1u << GAUDISIM_MSG_SHORT_CTL_BASE_SHIFT |
	    4 * sob);
}

/* ---- queues ---------------------------------------------------------------- */

static void queue_setup(struct bench_dev *d, unsigned int q)
{
	int e = gaudisim_queue_engine(q);
	unsigned int s = gaudisim_queue_stream(q);
	uint64_t pq = HOST_BUS + (uint64_t)q * PQ_BYTES;
	uint64_t mon = GAUDISIM_SYNC_MON_BASE_ADDR, sob = GAUDISIM_SYNC_SOB_BASE_ADDR;
	uint32_t blk, cfg0;

	if (e < 0 || GAUDISIM_QUEUE_IS_EXTERNAL(q))
		die("not an internal queue");
	blk = GAUDISIM_QM_BLOCK((unsigned int)e);
	wr(d, blk + GAUDISIM_QM_PQ_BASE_LO(s), (uint32_t)pq);
	wr(d, blk + GAUDISIM_QM_PQ_BASE_HI(s), (uint32_t)(pq >> 32));
	wr(d, blk + GAUDISIM_QM_PQ_SIZE(s), PQ_LOG2);
	wr(d, blk + GAUDISIM_QM_CP_MSG_BASE_LO(0, s), (uint32_t)mon);
	wr(d, blk + GAUDISIM_QM_CP_MSG_BASE_HI(0, s), (uint32_t)(mon >> 32));
	wr(d, blk + GAUDISIM_QM_CP_MSG_BASE_LO(1, s), (uint32_t)sob);
	wr(d, blk + GAUDISIM_QM_CP_MSG_BASE_HI(1, s), (uint32_t)(sob >> 32));
	cfg0 = gsim_core_reg_read(d->core, blk + GAUDISIM_QM_GLBL_CFG0);
	wr(d, blk + GAUDISIM_QM_GLBL_CFG0, cfg0 | 1u << s);
	d->queue_ready[q] = true;
}

void bench_submit(struct bench_dev *d, unsigned int q, const struct bench_cb *cb)
{
	int e = gaudisim_queue_engine(q);
	unsigned int s;
	uint32_t blk, pi;
	struct gaudisim_bd bd;

	if (q >= GAUDISIM_QUEUE_ID_SIZE || e < 0)
		die("no such queue");
	if (!d->queue_ready[q])
		queue_setup(d, q);
	s = gaudisim_queue_stream(q);
	blk = GAUDISIM_QM_BLOCK((unsigned int)e);
	/* CBs go round a 16 MiB arena: earlier ones have finished by then. */
	if (d->cb_next + cb->len > BENCH_CB_BASE + BENCH_CB_SIZE)
		d->cb_next = BENCH_CB_BASE;
	memcpy(bench_hbm(d, d->cb_next, cb->len), cb->bytes, cb->len);
	bd = (struct gaudisim_bd){ .ctl = 0, .len = cb->len, .ptr = d->cb_next };
	d->cb_next += (cb->len + 63) & ~63ull;
	pi = gsim_core_reg_read(d->core, blk + GAUDISIM_QM_PQ_PI(s));
	memcpy(d->host + (uint64_t)q * PQ_BYTES + (pi & ((1u << PQ_LOG2) - 1)) * GAUDISIM_BD_SIZE,
	       &bd, sizeof(bd));
	wr(d, blk + GAUDISIM_QM_PQ_PI(s), (pi + 1) & ((2u << PQ_LOG2) - 1));
}

void bench_sob_clear(struct bench_dev *d, unsigned int sob)
{
	wr(d, GAUDISIM_BLOCK_SYNC_MNGR + GAUDISIM_SYNC_SOB_OBJ(sob), 0);
}

void bench_wait_sob(struct bench_dev *d, unsigned int sob, uint32_t value, double timeout_s)
{
	const uint32_t reg = GAUDISIM_BLOCK_SYNC_MNGR + GAUDISIM_SYNC_SOB_OBJ(sob);
	double end = bench_now() + timeout_s;

	for (;;) {
		bool more = gsim_core_run(d->core);

		if (gsim_core_reg_read(d->core, reg) >= value)
			return;
		if (bench_now() > end)
			die("timed out waiting for the device");
		if (more)
			continue;
		if (!gsim_core_work_in_flight(d->core))
			die("the device went idle before the job signalled completion");
		gsim_core_wait_work(d->core, 100000000ull);
	}
}
