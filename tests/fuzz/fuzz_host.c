/* SPDX-License-Identifier: MIT */
/*
 * Fake host of the fuzz harnesses: callbacks with invariant checks, and
 * the driver-side set-up steps.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_alloc.h"
#include "fuzz_guard.h"
#include "fuzz_host.h"
#include "hw/gaudisim_hw_tpc.h"

void fz_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fuzz invariant violated: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	abort();
}

/* ---- callbacks ------------------------------------------------------------ */

/* [bus, bus + len) inside the fake host memory and outside the fault window. */
static int host_span(struct fz_host *h, uint64_t bus, const void *buf, uint64_t len)
{
	uint64_t off;

	FZ_CHECK(buf != NULL, "DMA with a NULL device buffer (bus 0x%llx len 0x%llx)",
		 (unsigned long long)bus, (unsigned long long)len);
	/* A range that wraps the bus address space came from unchecked arithmetic. */
	FZ_CHECK(len == 0 || bus + len - 1 >= bus, "DMA range wraps: bus 0x%llx len 0x%llx",
		 (unsigned long long)bus, (unsigned long long)len);
	h->dma_calls++;
	if (bus < FZ_BUS_BASE)
		return -1;
	off = bus - FZ_BUS_BASE;
	if (off > FZ_HOST_SIZE || len > FZ_HOST_SIZE - off)
		return -1;
	if (h->fault_lo < h->fault_hi && bus < h->fault_hi && bus + len > h->fault_lo)
		return -1;
	return 0;
}

static int fake_dma_read(void *opaque, uint64_t bus, void *buf, uint64_t len)
{
	struct fz_host *h = opaque;

	if (host_span(h, bus, buf, len))
		return -1;
	memcpy(buf, h->mem + (bus - FZ_BUS_BASE), len);
	return 0;
}

static int fake_dma_write(void *opaque, uint64_t bus, const void *buf, uint64_t len)
{
	struct fz_host *h = opaque;

	if (host_span(h, bus, buf, len))
		return -1;
	memcpy(h->mem + (bus - FZ_BUS_BASE), buf, len);
	return 0;
}

static void fake_msix(void *opaque, unsigned int vector)
{
	struct fz_host *h = opaque;

	FZ_CHECK(vector < GAUDISIM_MSIX_NUM_VECTORS, "MSI-X vector %u out of range (%u vectors)",
		 vector, GAUDISIM_MSIX_NUM_VECTORS);
	h->msix[vector]++;
	h->msix_total++;
}

static void fake_guest_error(void *opaque, const char *msg)
{
	struct fz_host *h = opaque;

	FZ_CHECK(msg != NULL, "guest_error with a NULL message");
	h->guest_errors++;
	if (getenv("FUZZ_VERBOSE"))
		fprintf(stderr, "guest error: %s\n", msg);
}

static uint64_t fake_clock(void *opaque)
{
	struct fz_host *h = opaque;

	/* Deterministic, and moving, so timestamps differ between reads. */
	h->clock_ns += 7;
	return h->clock_ns;
}

static const struct gsim_host_ops fake_ops = {
	.dma_read = fake_dma_read,
	.dma_write = fake_dma_write,
	.msix_notify = fake_msix,
	.guest_error = fake_guest_error,
	.clock_ns = fake_clock,
};

/* ---- lifecycle ------------------------------------------------------------ */

void fz_host_init(struct fz_host *h)
{
	struct gsim_core_config cfg = { .hbm_size = FZ_HBM_SIZE, .hbm_bar_size = FZ_BAR_SIZE };
	const char *err = NULL;
	unsigned int guarded;

	memset(h, 0, sizeof(*h));
	h->mem = calloc(1, FZ_HOST_SIZE);
	FZ_CHECK(h->mem != NULL, "out of memory for the fake host");
	h->clock_ns = 1000;
	h->cb_next = FZ_CB_OFF;
	h->hbm_cb_next = FZ_HBM_CB_OFF;
	h->pgt_next = GAUDISIM_MMU_PGT_BASE + GAUDISIM_MMU_NUM_ASIDS * GAUDISIM_MMU_HOP_TABLE_SIZE;
	h->big_blocks = fz_alloc_in_use();
	guarded = fz_guard_mappings();
	h->core = gsim_core_new(&cfg, &fake_ops, h, &err);
	FZ_CHECK(h->core != NULL, "gsim_core_new: %s", err ? err : "?");
	/* An access past device memory must fault, not land next door. */
	FZ_CHECK(fz_guarded(gsim_core_hbm(h->core), FZ_HBM_SIZE) &&
		 fz_guard_mappings() >= guarded + 2,
		 "HBM and SRAM are not between guard pages (fuzz_guard.c)");
	h->quiet = true;
}

void fz_host_fini(struct fz_host *h)
{
	gsim_core_free(h->core);
	free(h->mem);
	h->core = NULL;
	h->mem = NULL;
	/* LeakSanitizer does not see cached blocks: count them here. */
	FZ_CHECK(fz_alloc_in_use() == h->big_blocks,
		 "the core kept %d large heap blocks after gsim_core_free()",
		 (int)fz_alloc_in_use() - (int)h->big_blocks);
}

/* ---- registers, run, reset -------------------------------------------------- */

uint32_t fz_rd(struct fz_host *h, uint32_t off)
{
	return gsim_core_reg_read(h->core, off);
}

static void check_window(struct fz_host *h)
{
	uint64_t win = gsim_core_hbm_window(h->core);

	FZ_CHECK(win % FZ_BAR_SIZE == 0 && win <= FZ_HBM_SIZE - FZ_BAR_SIZE,
		 "HBM window 0x%llx outside HBM or misaligned", (unsigned long long)win);
}

unsigned int fz_wr_raw(struct fz_host *h, uint32_t off, uint32_t value)
{
	unsigned int kick = gsim_core_reg_write(h->core, off, value);

	FZ_CHECK(!(kick & ~(unsigned int)(GSIM_KICK_RUN | GSIM_KICK_WINDOW | GSIM_KICK_RESET)),
		 "register write 0x%x returned unknown kick bits 0x%x", off, kick);
	if (kick & GSIM_KICK_RUN)
		h->quiet = false;
	if (kick & GSIM_KICK_WINDOW)
		check_window(h);
	return kick;
}

unsigned int fz_wr(struct fz_host *h, uint32_t off, uint32_t value)
{
	unsigned int kick = fz_wr_raw(h, off, value);

	if (kick & GSIM_KICK_RESET)
		fz_hard_reset(h);
	return kick;
}

bool fz_run(struct fz_host *h)
{
	unsigned int calls;

	for (calls = 0; calls < FZ_RUN_CAP; calls++) {
		uint64_t dma = h->dma_calls, msix = h->msix_total;
		bool was_quiet = h->quiet;
		bool more = gsim_core_run(h->core);

		/*
		 * The device went idle and no register write asked for a run
		 * since: QEMU would not call run() now, so work found here was
		 * started without a kick (or idle was reported too early).
		 */
		FZ_CHECK(!was_quiet || (!more && h->dma_calls == dma && h->msix_total == msix),
			 "run() on a device that was idle and not kicked since %s",
			 more ? "found work" : "moved data or raised MSI-X");
		if (!more) {
			h->quiet = true;
			/* Idle must be stable: a second call finds nothing. */
			dma = h->dma_calls;
			msix = h->msix_total;
			FZ_CHECK(!gsim_core_run(h->core) && h->dma_calls == dma &&
				 h->msix_total == msix,
				 "run() reported idle but the next run() did work");
			return true;
		}
		h->quiet = false;
	}
	h->cap_hits++;
	return false;
}

void fz_hard_reset(struct fz_host *h)
{
	uint64_t dma, msix;
	unsigned int e, s;

	gsim_core_reset(h->core);
	check_window(h);
	memset(h->cq_pi, 0, sizeof(h->cq_pi));
	h->eq_ci = 0;
	h->hop0_set = 0;
	h->quiet = true;

	/* Nothing of the work in flight may surface after a reset. */
	dma = h->dma_calls;
	msix = h->msix_total;
	FZ_CHECK(!gsim_core_run(h->core), "run() found work right after a hard reset");
	FZ_CHECK(h->dma_calls == dma && h->msix_total == msix,
		 "DMA or MSI-X right after a hard reset");
	FZ_CHECK(fz_rd(h, GAUDISIM_REG_DEV_STATUS) == GAUDISIM_DEV_STATUS_READY,
		 "DEV_STATUS 0x%x after a hard reset", fz_rd(h, GAUDISIM_REG_DEV_STATUS));
	for (e = 0; e < GAUDISIM_ENGINE_COUNT; e++) {
		uint32_t qm = GAUDISIM_QM_BLOCK(e);

		FZ_CHECK(fz_rd(h, qm + GAUDISIM_QM_GLBL_CFG0) == 0,
			 "engine %u: streams enabled after a hard reset", e);
		for (s = 0; s < GAUDISIM_STREAMS_PER_QMAN; s++) {
			FZ_CHECK(fz_rd(h, qm + GAUDISIM_QM_PQ_PI(s)) == 0 &&
				 fz_rd(h, qm + GAUDISIM_QM_PQ_CI(s)) == 0 &&
				 fz_rd(h, qm + GAUDISIM_QM_CP_STS(s)) == 0,
				 "engine %u stream %u: PI/CI/CP_STS not reset", e, s);
		}
	}
	FZ_CHECK(fz_rd(h, GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_CTL) == 0,
		 "event queue enabled after a hard reset");
}

void fz_report(struct fz_host *h)
{
	uint32_t tpc = 0;
	unsigned int n;

	if (!getenv("FUZZ_VERBOSE"))
		return;
	for (n = 0; n < GAUDISIM_NUM_TPC; n++)
		tpc += fz_rd(h, GAUDISIM_ENGINE_BLOCK(GAUDISIM_ENGINE_TPC_0 + n) +
			     GAUDISIM_ENG_LAUNCH_CNT);
	fprintf(stderr, "fuzz: msix %llu, guest errors %llu, cap hits %llu, CBs done %u, "
		"errors pkt %u dma %u pq %u, events %u (dropped %u), launches MME %u TPC %u, "
		"MMU faults %u\n",
		(unsigned long long)h->msix_total, (unsigned long long)h->guest_errors,
		(unsigned long long)h->cap_hits, fz_rd(h, GAUDISIM_REG_CB_DONE_CNT),
		fz_rd(h, GAUDISIM_REG_ERR_PKT_CNT), fz_rd(h, GAUDISIM_REG_ERR_DMA_CNT),
		fz_rd(h, GAUDISIM_REG_ERR_PQ_CNT), fz_rd(h, GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_EVENT_CNT),
		fz_rd(h, GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_DROP_CNT),
		fz_rd(h, GAUDISIM_ENGINE_BLOCK(GAUDISIM_ENGINE_MME) + GAUDISIM_ENG_LAUNCH_CNT),
		tpc,
		fz_rd(h, GAUDISIM_BLOCK_MMU + GAUDISIM_MMU_FAULT_CNT));
}

/* ---- memory helpers ------------------------------------------------------------ */

uint8_t *fz_hbm(struct fz_host *h, uint64_t addr, uint64_t len)
{
	if (addr > FZ_HBM_SIZE || len > FZ_HBM_SIZE - addr)
		return NULL;
	return gsim_core_hbm(h->core) + addr;
}

void fz_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

void fz_put64(uint8_t *p, uint64_t v)
{
	fz_put32(p, (uint32_t)v);
	fz_put32(p + 4, (uint32_t)(v >> 32));
}

uint32_t fz_get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)fz_get32(p) | (uint64_t)fz_get32(p + 4) << 32;
}

/* ---- driver-style set-up ------------------------------------------------------- */

void fz_queue_setup(struct fz_host *h, unsigned int q, unsigned int log2_entries)
{
	unsigned int e = (unsigned int)gaudisim_queue_engine(q);
	uint64_t base = fz_bus(FZ_PQ_OFF(q));

	if (!fz_queue_valid(q))
		return;
	if (log2_entries < GAUDISIM_QM_PQ_SIZE_LOG2_MIN)
		log2_entries = GAUDISIM_QM_PQ_SIZE_LOG2_MIN;
	if (log2_entries > FZ_PQ_LOG2_MAX)
		log2_entries = FZ_PQ_LOG2_MAX;
	fz_wr(h, FZ_QM_REG(q, GAUDISIM_QM_PQ_BASE_LO), (uint32_t)base);
	fz_wr(h, FZ_QM_REG(q, GAUDISIM_QM_PQ_BASE_HI), (uint32_t)(base >> 32));
	fz_wr(h, FZ_QM_REG(q, GAUDISIM_QM_PQ_SIZE), log2_entries);
	fz_wr(h, GAUDISIM_QM_BLOCK(e) + GAUDISIM_QM_GLBL_CFG0,
	      fz_rd(h, GAUDISIM_QM_BLOCK(e) + GAUDISIM_QM_GLBL_CFG0) |
	      1u << gaudisim_queue_stream(q));
}

void fz_queues_setup_all(struct fz_host *h)
{
	unsigned int q;

	for (q = 0; q < GAUDISIM_QUEUE_ID_SIZE; q++)
		fz_queue_setup(h, q, 4);
}

/* The queue's ring is ours and small enough for its slot in host memory. */
static bool queue_ours(struct fz_host *h, unsigned int q)
{
	uint64_t base = (uint64_t)fz_rd(h, FZ_QM_REG(q, GAUDISIM_QM_PQ_BASE_HI)) << 32 |
			fz_rd(h, FZ_QM_REG(q, GAUDISIM_QM_PQ_BASE_LO));
	uint32_t log2 = fz_rd(h, FZ_QM_REG(q, GAUDISIM_QM_PQ_SIZE));

	return base == fz_bus(FZ_PQ_OFF(q)) && log2 >= GAUDISIM_QM_PQ_SIZE_LOG2_MIN &&
	       log2 <= FZ_PQ_LOG2_MAX;
}

unsigned int fz_submit_bd(struct fz_host *h, unsigned int q, uint32_t ctl, uint32_t len,
			  uint64_t ptr)
{
	uint32_t entries, pi;
	uint8_t *bd;

	if (!fz_queue_valid(q))
		return 0;
	if (!queue_ours(h, q)) {
		fz_queue_setup(h, q, 4);
		/* Refused while the stream is busy: leave the queue alone. */
		if (!queue_ours(h, q))
			return 0;
	}
	entries = 1u << fz_rd(h, FZ_QM_REG(q, GAUDISIM_QM_PQ_SIZE));
	pi = fz_rd(h, FZ_QM_REG(q, GAUDISIM_QM_PQ_PI));
	bd = h->mem + FZ_PQ_OFF(q) + (pi & (entries - 1)) * GAUDISIM_BD_SIZE;
	fz_put32(bd, ctl);
	fz_put32(bd + 4, len);
	fz_put64(bd + 8, ptr);
	return fz_wr(h, FZ_QM_REG(q, GAUDISIM_QM_PQ_PI), (pi + 1) & (2 * entries - 1));
}

void fz_eq_setup(struct fz_host *h)
{
	uint64_t base = fz_bus(FZ_EQ_OFF);

	memset(h->mem + FZ_EQ_OFF, 0, (1u << FZ_EQ_LOG2) * GAUDISIM_EQ_ENTRY_SIZE);
	fz_wr(h, GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_CTL, 0);
	fz_wr(h, GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_BASE_LO, (uint32_t)base);
	fz_wr(h, GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_BASE_HI, (uint32_t)(base >> 32));
	fz_wr(h, GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_SIZE, FZ_EQ_LOG2);
	fz_wr(h, GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_CI, 0);
	fz_wr(h, GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_CTL, GAUDISIM_EQ_CTL_ENABLE);
	h->eq_ci = 0;
}

void fz_eq_drain(struct fz_host *h)
{
	uint32_t size = fz_rd(h, GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_SIZE);
	uint32_t pi = fz_rd(h, GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_PI);
	uint32_t entries, n;

	if (!(fz_rd(h, GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_CTL) & GAUDISIM_EQ_CTL_ENABLE))
		return;
	FZ_CHECK(size >= GAUDISIM_EQ_SIZE_LOG2_MIN && size <= GAUDISIM_EQ_SIZE_LOG2_MAX,
		 "EQ enabled with EQ_SIZE %u", size);
	entries = 1u << size;
	FZ_CHECK(pi < 2 * entries, "EQ_PI %u out of range (%u entries)", pi, entries);
	/* Only our own ring is drained; the contents may also come from an
	 * input's DMA, so they are not checked. */
	if (size != FZ_EQ_LOG2 ||
	    fz_rd(h, GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_BASE_LO) != (uint32_t)fz_bus(FZ_EQ_OFF) ||
	    fz_rd(h, GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_BASE_HI) != (uint32_t)(fz_bus(FZ_EQ_OFF) >> 32))
		return;
	h->eq_ci = fz_rd(h, GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_CI) & (2 * entries - 1);
	for (n = 0; n < entries && h->eq_ci != pi; n++) {
		uint8_t *ent = h->mem + FZ_EQ_OFF +
			       (h->eq_ci & (entries - 1)) * GAUDISIM_EQ_ENTRY_SIZE;

		fz_put32(ent, fz_get32(ent) & ~GAUDISIM_EQ_CTL_READY);
		h->eq_ci = (h->eq_ci + 1) & (2 * entries - 1);
	}
	fz_wr(h, GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_CI, h->eq_ci);
}

void fz_msg_bases_setup(struct fz_host *h)
{
	unsigned int q;

	for (q = 0; q < GAUDISIM_QUEUE_ID_SIZE; q++) {
		unsigned int s = gaudisim_queue_stream(q);
		uint32_t qm;

		if (!fz_queue_valid(q))
			continue;
		qm = GAUDISIM_QM_BLOCK((unsigned int)gaudisim_queue_engine(q));
		fz_wr(h, qm + GAUDISIM_QM_CP_MSG_BASE_LO(0, s), (uint32_t)GAUDISIM_SYNC_MON_BASE_ADDR);
		fz_wr(h, qm + GAUDISIM_QM_CP_MSG_BASE_HI(0, s),
		      (uint32_t)(GAUDISIM_SYNC_MON_BASE_ADDR >> 32));
		fz_wr(h, qm + GAUDISIM_QM_CP_MSG_BASE_LO(1, s), (uint32_t)GAUDISIM_SYNC_SOB_BASE_ADDR);
		fz_wr(h, qm + GAUDISIM_QM_CP_MSG_BASE_HI(1, s),
		      (uint32_t)(GAUDISIM_SYNC_SOB_BASE_ADDR >> 32));
	}
}

void fz_tpc_watchdogs(struct fz_host *h, uint32_t bundles)
{
	unsigned int n;

	for (n = 0; n < GAUDISIM_NUM_TPC; n++)
		fz_wr(h, GAUDISIM_TPC_BLOCK(n) + GAUDISIM_TPC_WATCHDOG, bundles);
}

void fz_driver_init(struct fz_host *h)
{
	unsigned int q;

	fz_wr(h, GAUDISIM_REG_HW_STATE, GAUDISIM_HW_STATE_DIRTY);
	fz_eq_setup(h);
	fz_msg_bases_setup(h);
	fz_tpc_watchdogs(h, FZ_TPC_WATCHDOG);
	fz_mmu_identity(h, FZ_ASID_USER);
	for (q = GAUDISIM_NUM_EXT_QUEUES; q < GAUDISIM_QUEUE_ID_SIZE; q++)
		if (fz_queue_valid(q))
			fz_wr(h, GAUDISIM_BLOCK_MMU + GAUDISIM_MMU_QUEUE_ASID(q), FZ_ASID_USER);
	fz_wr(h, GAUDISIM_BLOCK_MMU + GAUDISIM_MMU_CTRL, GAUDISIM_MMU_CTRL_ENABLE);
	fz_queues_setup_all(h);
}

/* ---- MMU page tables ---------------------------------------------------------- */

static uint64_t pgt_alloc(struct fz_host *h)
{
	uint64_t t = h->pgt_next;
	uint8_t *p;

	if (t + GAUDISIM_MMU_HOP_TABLE_SIZE > GAUDISIM_MMU_PGT_BASE + GAUDISIM_MMU_PGT_SIZE)
		return 0;
	p = fz_hbm(h, t, GAUDISIM_MMU_HOP_TABLE_SIZE);
	if (!p)
		return 0;
	memset(p, 0, GAUDISIM_MMU_HOP_TABLE_SIZE);
	h->pgt_next += GAUDISIM_MMU_HOP_TABLE_SIZE;
	return t;
}

static int map_page(struct fz_host *h, unsigned int asid, uint64_t va, uint64_t bus,
		    bool writable, bool huge)
{
	unsigned int leaf_hop = huge ? GAUDISIM_MMU_HUGE_HOP : GAUDISIM_MMU_LEAF_HOP;
	uint64_t table = GAUDISIM_MMU_PGT_BASE + (uint64_t)asid * GAUDISIM_MMU_HOP_TABLE_SIZE;
	uint64_t leaf;
	unsigned int hop;

	if (asid >= GAUDISIM_MMU_NUM_ASIDS)
		return -1;
	if (!(h->hop0_set & 1u << asid)) {
		uint8_t *p = fz_hbm(h, table, GAUDISIM_MMU_HOP_TABLE_SIZE);

		memset(p, 0, GAUDISIM_MMU_HOP_TABLE_SIZE);
		fz_wr(h, GAUDISIM_BLOCK_MMU + GAUDISIM_MMU_HOP0_LO(asid), (uint32_t)table);
		fz_wr(h, GAUDISIM_BLOCK_MMU + GAUDISIM_MMU_HOP0_HI(asid), (uint32_t)(table >> 32));
		h->hop0_set |= 1u << asid;
	}
	for (hop = 0; hop < leaf_hop; hop++) {
		uint8_t *pte = fz_hbm(h, table + GAUDISIM_MMU_HOP_INDEX(va, hop) *
				      GAUDISIM_MMU_PTE_SIZE, GAUDISIM_MMU_PTE_SIZE);
		uint64_t v = get64(pte);

		if (!(v & GAUDISIM_MMU_PTE_PRESENT) || (v & GAUDISIM_MMU_PTE_LAST)) {
			uint64_t next = pgt_alloc(h);

			if (!next)
				return -1;
			v = next | GAUDISIM_MMU_PTE_PRESENT;
			fz_put64(pte, v);
		}
		table = v & GAUDISIM_MMU_PTE_ADDR_MASK;
		/* An input may have pointed a PTE anywhere: stay in the table area. */
		if (table < GAUDISIM_MMU_PGT_BASE ||
		    table >= GAUDISIM_MMU_PGT_BASE + GAUDISIM_MMU_PGT_SIZE)
			return -1;
	}
	leaf = bus & GAUDISIM_MMU_PTE_ADDR_MASK;
	if (huge)
		leaf &= ~(GAUDISIM_MMU_HUGE_PAGE_SIZE - 1);
	leaf |= GAUDISIM_MMU_PTE_PRESENT | GAUDISIM_MMU_PTE_LAST |
		(writable ? GAUDISIM_MMU_PTE_WRITABLE : 0);
	fz_put64(fz_hbm(h, table + GAUDISIM_MMU_HOP_INDEX(va, leaf_hop) * GAUDISIM_MMU_PTE_SIZE,
			GAUDISIM_MMU_PTE_SIZE), leaf);
	return 0;
}

/* As the driver does after changing mappings. */
static void invalidate_asid(struct fz_host *h, unsigned int asid)
{
	fz_wr(h, GAUDISIM_BLOCK_MMU + GAUDISIM_MMU_INV_ASID, asid);
	fz_wr(h, GAUDISIM_BLOCK_MMU + GAUDISIM_MMU_INV_CMD, GAUDISIM_MMU_INV_ASID_ALL);
}

int fz_mmu_map(struct fz_host *h, unsigned int asid, uint64_t va, uint64_t bus,
	       bool writable, bool huge)
{
	int rc = map_page(h, asid, va, bus, writable, huge);

	invalidate_asid(h, asid);
	return rc;
}

void fz_mmu_identity(struct fz_host *h, unsigned int asid)
{
	uint64_t off;

	for (off = 0; off < FZ_HOST_SIZE; off += GAUDISIM_MMU_PAGE_SIZE)
		map_page(h, asid, FZ_VA_HOST + off, fz_bus(off), true, false);
	invalidate_asid(h, asid);
}

/* ---- CBs ------------------------------------------------------------------------ */

uint32_t fz_host_cb_alloc(struct fz_host *h, uint32_t cap)
{
	uint32_t off;

	cap = (cap + 63) & ~63u;
	if (cap > FZ_CB_END - FZ_CB_OFF)
		cap = FZ_CB_END - FZ_CB_OFF;
	if (h->cb_next + cap > FZ_CB_END)
		h->cb_next = FZ_CB_OFF;
	off = h->cb_next;
	h->cb_next += cap;
	return off;
}

uint64_t fz_hbm_cb_alloc(struct fz_host *h, uint32_t cap)
{
	uint32_t off;

	cap = (cap + 63) & ~63u;
	if (cap > FZ_HBM_USER_SIZE - FZ_HBM_CB_OFF)
		cap = FZ_HBM_USER_SIZE - FZ_HBM_CB_OFF;
	if (h->hbm_cb_next + cap > FZ_HBM_USER_SIZE)
		h->hbm_cb_next = FZ_HBM_CB_OFF;
	off = h->hbm_cb_next;
	h->hbm_cb_next += cap;
	return FZ_HBM_USER + off;
}

static void put_msg_prot(uint8_t *p, uint64_t addr, uint32_t value)
{
	fz_put32(p, value);
	fz_put32(p + 4, GAUDISIM_PKT_CTL(GAUDISIM_PKT_MSG_PROT) | GAUDISIM_PKT_CTL_MB);
	fz_put64(p + 8, addr);
}

unsigned int fz_submit_cb(struct fz_host *h, unsigned int q, const uint8_t *pkts, uint32_t len,
			  bool tail)
{
	uint32_t total;
	uint64_t addr;

	len &= ~(uint32_t)(GAUDISIM_PKT_ALIGN - 1);
	if (len > FZ_CB_MAX)
		len = FZ_CB_MAX;
	if (!fz_queue_valid(q))
		return 0;
	if (GAUDISIM_QUEUE_IS_EXTERNAL(q)) {
		uint32_t slot = h->cq_pi[q]++ % FZ_CQ_ENTRIES;
		uint32_t shadow = slot & GAUDISIM_BD_CTL_SHADOW_INDEX_MASK;
		uint64_t cq = FZ_CQ_OFF(q) + slot * GAUDISIM_CQ_ENTRY_SIZE;
		uint32_t off;
		uint8_t *p;

		total = len + (tail ? GAUDISIM_CB_COMPLETION_TAIL_SIZE : 0);
		if (!total)
			return 0;
		off = fz_host_cb_alloc(h, total);
		p = h->mem + off;
		memcpy(p, pkts, len);
		if (tail) {
			fz_put32(h->mem + cq, 0);
			put_msg_prot(p + len, fz_dev(cq), GAUDISIM_CQ_ENTRY_READY |
				     GAUDISIM_CQ_ENTRY_SHADOW_VALID | shadow);
			put_msg_prot(p + len + GAUDISIM_PKT_SIZE_MSG_PROT,
				     GAUDISIM_CFG_BASE + GAUDISIM_REG_MSIX_REQ, q);
		}
		return fz_submit_bd(h, q, tail ? shadow | GAUDISIM_BD_CTL_COMPLETION_TAIL : shadow,
				    total, fz_dev(off));
	}
	if (!len)
		return 0;
	addr = fz_hbm_cb_alloc(h, len);
	memcpy(fz_hbm(h, addr, len), pkts, len);
	return fz_submit_bd(h, q, 0, len, addr);
}
