/* SPDX-License-Identifier: MIT */
/*
 * Fake host and driver-side helpers for the device core unit tests.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gsim_test.h"

struct th *T;

static int fake_dma_ok(struct th *t, uint64_t bus, uint64_t len)
{
	if (len > t->max_dma_len)
		t->max_dma_len = len;
	if (bus < T_BUS_BASE || bus - T_BUS_BASE > t->mem_size ||
	    len > t->mem_size - (bus - T_BUS_BASE))
		return 0;
	/* Overlap with the fault window fails the whole access. */
	if (t->fault_lo < t->fault_hi && bus < t->fault_hi && bus + len > t->fault_lo)
		return 0;
	return 1;
}

static int fake_dma_read(void *opaque, uint64_t bus, void *buf, uint64_t len)
{
	struct th *t = opaque;

	if (!fake_dma_ok(t, bus, len))
		return -1;
	memcpy(buf, t->mem + (bus - T_BUS_BASE), len);
	return 0;
}

static int fake_dma_write(void *opaque, uint64_t bus, const void *buf, uint64_t len)
{
	struct th *t = opaque;

	if (!fake_dma_ok(t, bus, len))
		return -1;
	memcpy(t->mem + (bus - T_BUS_BASE), buf, len);
	return 0;
}

static void fake_msix(void *opaque, unsigned int vector)
{
	struct th *t = opaque;

	ck_assert_uint_lt(vector, GAUDISIM_MSIX_NUM_VECTORS);
	t->msix[vector]++;
	t->msix_total++;
}

static void fake_guest_error(void *opaque, const char *msg)
{
	struct th *t = opaque;

	t->errors++;
	snprintf(t->last_error, sizeof(t->last_error), "%s", msg);
	if (getenv("GSIM_TEST_VERBOSE"))
		fprintf(stderr, "guest error: %s\n", msg);
}

static uint64_t fake_clock(void *opaque)
{
	struct th *t = opaque;
	uint64_t now = t->clock_ns;

	t->clock_ns += t->clock_step;
	return now;
}

/* A peer device made this one runnable (NIC delivery). */
static void fake_kick(void *opaque)
{
	struct th *t = opaque;

	t->kicks++;
}

static const struct gsim_host_ops fake_ops = {
	.dma_read = fake_dma_read,
	.dma_write = fake_dma_write,
	.msix_notify = fake_msix,
	.guest_error = fake_guest_error,
	.clock_ns = fake_clock,
	.kick = fake_kick,
};

struct th *th_new(uint64_t host_size)
{
	return th_new_threads(host_size, 0);
}

struct th *th_new_threads(uint64_t host_size, unsigned int threads)
{
	struct gsim_core_config cfg = {
		.hbm_size = T_HBM_SIZE,
		.hbm_bar_size = T_BAR_SIZE,
		.threads = threads,
	};
	const char *err = NULL;
	struct th *t = calloc(1, sizeof(*t));

	ck_assert_ptr_nonnull(t);
	t->mem_size = host_size;
	t->mem = calloc(1, host_size);
	ck_assert_ptr_nonnull(t->mem);
	t->clock_ns = 1000;
	t->cb_next = T_CB_OFF;
	t->core = gsim_core_new(&cfg, &fake_ops, t, &err);
	ck_assert_msg(t->core != NULL, "gsim_core_new: %s", err ? err : "?");
	th_grant(t, T_ASID, &th_rights_exclusive);
	return t;
}

const struct th_rights th_rights_exclusive = {
	.sob_first = GAUDISIM_SYNC_FIRST_USER_SOB,
	.sob_end = GAUDISIM_SYNC_NUM_SOBS,
	.mon_first = GAUDISIM_SYNC_FIRST_USER_MON,
	.mon_end = GAUDISIM_SYNC_NUM_MONITORS,
	.queues = { ~0u, ~0u, ~0u, ~0u },
	.hbm_base = GAUDISIM_HBM_USER_BASE,
	.hbm_size = T_HBM_SIZE - GAUDISIM_HBM_USER_BASE,
	.user_intr = (1u << GAUDISIM_MSIX_NUM_USER) - 1,
	.sram = true,
};

static void rights_wr(struct th *t, unsigned int asid, uint32_t reg, uint32_t value)
{
	gsim_core_reg_write(t->core, GAUDISIM_BLOCK_SYNC_MNGR + GAUDISIM_SYNC_RIGHTS(asid, reg),
			    value);
}

void th_grant(struct th *t, unsigned int asid, const struct th_rights *r)
{
	unsigned int i;

	rights_wr(t, asid, GAUDISIM_RIGHTS_SOB_FIRST, r->sob_first);
	rights_wr(t, asid, GAUDISIM_RIGHTS_SOB_END, r->sob_end);
	rights_wr(t, asid, GAUDISIM_RIGHTS_MON_FIRST, r->mon_first);
	rights_wr(t, asid, GAUDISIM_RIGHTS_MON_END, r->mon_end);
	for (i = 0; i < GAUDISIM_RIGHTS_QUEUE_WORDS; i++)
		rights_wr(t, asid, GAUDISIM_RIGHTS_QUEUES(i), r->queues[i]);
	rights_wr(t, asid, GAUDISIM_RIGHTS_HBM_BASE_LO, (uint32_t)r->hbm_base);
	rights_wr(t, asid, GAUDISIM_RIGHTS_HBM_BASE_HI, (uint32_t)(r->hbm_base >> 32));
	rights_wr(t, asid, GAUDISIM_RIGHTS_HBM_SIZE_LO, (uint32_t)r->hbm_size);
	rights_wr(t, asid, GAUDISIM_RIGHTS_HBM_SIZE_HI, (uint32_t)(r->hbm_size >> 32));
	rights_wr(t, asid, GAUDISIM_RIGHTS_USER_INTR, r->user_intr);
	rights_wr(t, asid, GAUDISIM_RIGHTS_CTRL,
		  GAUDISIM_RIGHTS_CTRL_VALID | (r->sram ? GAUDISIM_RIGHTS_CTRL_SRAM : 0));
}

void th_revoke(struct th *t, unsigned int asid)
{
	rights_wr(t, asid, GAUDISIM_RIGHTS_CTRL, 0);
}

void th_free(struct th *t)
{
	gsim_core_free(t->core);
	free(t->mem);
	free(t);
}

void th_setup(void)
{
	T = th_new(T_HOST_SIZE);
}

void th_setup_large(void)
{
	T = th_new(T_HOST_SIZE_LARGE);
}

void th_teardown(void)
{
	th_free(T);
	T = NULL;
}

uint32_t rd(uint32_t off)
{
	return gsim_core_reg_read(T->core, off);
}

unsigned int wr(uint32_t off, uint32_t value)
{
	return gsim_core_reg_write(T->core, off, value);
}

uint32_t qrd_pi(unsigned int q)
{
	return rd(QM_REG(q, GAUDISIM_QM_PQ_PI));
}

uint32_t qrd_ci(unsigned int q)
{
	return rd(QM_REG(q, GAUDISIM_QM_PQ_CI));
}

uint32_t qrd_sts(unsigned int q)
{
	return rd(QM_REG(q, GAUDISIM_QM_CP_STS));
}

uint32_t qrd_fence(unsigned int q, unsigned int f)
{
	return rd(QM_FENCE_REG(q, GAUDISIM_QM_CP_FENCE_CNT, f));
}

uint64_t host_bus(uint64_t off)
{
	return T_BUS_BASE + off;
}

uint64_t host_dev(uint64_t off)
{
	return GAUDISIM_HOST_BASE + T_BUS_BASE + off;
}

uint8_t *host_ptr(uint64_t off)
{
	ck_assert_uint_lt(off, T->mem_size);
	return T->mem + off;
}

uint8_t *hbm_ptr(uint64_t addr)
{
	ck_assert_uint_lt(addr, gsim_core_hbm_size(T->core));
	return gsim_core_hbm(T->core) + addr;
}

uint32_t host_rd32(uint64_t off)
{
	uint32_t v;

	memcpy(&v, host_ptr(off), sizeof(v));
	return v;
}

uint64_t host_rd64(uint64_t off)
{
	uint64_t v;

	memcpy(&v, host_ptr(off), sizeof(v));
	return v;
}

uint32_t dev_rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* ---- CBs ------------------------------------------------------------------ */

struct cb cb_new(uint32_t cap)
{
	struct cb cb;

	cap = (cap + 7) & ~7u;
	if (T->cb_next + cap > T_CB_END)
		T->cb_next = T_CB_OFF;
	ck_assert_uint_le(T->cb_next + cap, T_CB_END);
	cb.off = T->cb_next;
	cb.p = host_ptr(cb.off);
	cb.len = 0;
	cb.cap = cap;
	T->cb_next += (cap + 63) & ~63u;
	memset(cb.p, 0, cap);
	return cb;
}

void cb_arena_reset(void)
{
	T->cb_next = T_CB_OFF;
}

uint64_t cb_dev(const struct cb *cb)
{
	return host_dev(cb->off);
}

static void put32(struct cb *cb, uint32_t v)
{
	ck_assert_uint_le(cb->len + 4, cb->cap);
	cb->p[cb->len++] = (uint8_t)v;
	cb->p[cb->len++] = (uint8_t)(v >> 8);
	cb->p[cb->len++] = (uint8_t)(v >> 16);
	cb->p[cb->len++] = (uint8_t)(v >> 24);
}

void cb_raw(struct cb *cb, uint32_t dw0, uint32_t ctl)
{
	put32(cb, dw0);
	put32(cb, ctl);
}

void cb_raw64(struct cb *cb, uint64_t v)
{
	put32(cb, (uint32_t)v);
	put32(cb, (uint32_t)(v >> 32));
}

void cb_nop(struct cb *cb)
{
	cb_raw(cb, 0, GAUDISIM_PKT_CTL(GAUDISIM_PKT_NOP));
}

void cb_lin_dma(struct cb *cb, uint64_t src, uint64_t dst, uint32_t size, uint32_t ctl_extra)
{
	cb_raw(cb, size, GAUDISIM_PKT_CTL(GAUDISIM_PKT_LIN_DMA) | GAUDISIM_PKT_CTL_RB |
	       GAUDISIM_LIN_DMA_CTL_LIN | ctl_extra);
	cb_raw64(cb, src);
	cb_raw64(cb, dst);
}

void cb_memset(struct cb *cb, uint64_t dst, uint8_t value, uint32_t size)
{
	cb_lin_dma(cb, value, dst, size, GAUDISIM_LIN_DMA_CTL_MEMSET);
}

void cb_msg(struct cb *cb, unsigned int opcode, uint64_t addr, uint32_t value, unsigned int op)
{
	cb_raw(cb, value, GAUDISIM_PKT_CTL(opcode) | GAUDISIM_PKT_CTL_MB |
	       op << GAUDISIM_MSG_CTL_OP_SHIFT);
	cb_raw64(cb, addr);
}

void cb_fence(struct cb *cb, unsigned int id, unsigned int target, unsigned int dec)
{
	cb_raw(cb, id << GAUDISIM_FENCE_ID_SHIFT | target << GAUDISIM_FENCE_TARGET_SHIFT |
	       dec << GAUDISIM_FENCE_DEC_VAL_SHIFT, GAUDISIM_PKT_CTL(GAUDISIM_PKT_FENCE));
}

void cb_wreg32(struct cb *cb, uint32_t reg, uint32_t value)
{
	cb_raw(cb, value, GAUDISIM_PKT_CTL(GAUDISIM_PKT_WREG_32) | GAUDISIM_PKT_CTL_RB | reg);
}

/* ---- queues --------------------------------------------------------------- */

void q_setup(unsigned int q, unsigned int log2_entries)
{
	unsigned int e = q / GAUDISIM_STREAMS_PER_QMAN;
	uint32_t cfg0;

	ck_assert_uint_le(log2_entries, 8);	/* T_PQ_OFF spacing */
	ck_assert_uint_eq(wr(QM_REG(q, GAUDISIM_QM_PQ_BASE_LO), (uint32_t)host_bus(T_PQ_OFF(q))), 0);
	ck_assert_uint_eq(wr(QM_REG(q, GAUDISIM_QM_PQ_BASE_HI),
			     (uint32_t)(host_bus(T_PQ_OFF(q)) >> 32)), 0);
	ck_assert_uint_eq(wr(QM_REG(q, GAUDISIM_QM_PQ_SIZE), log2_entries), 0);
	cfg0 = rd(GAUDISIM_QM_BLOCK(e) + GAUDISIM_QM_GLBL_CFG0);
	wr(GAUDISIM_QM_BLOCK(e) + GAUDISIM_QM_GLBL_CFG0,
	   cfg0 | 1u << (q % GAUDISIM_STREAMS_PER_QMAN));
	T->pi[q] = 0;
	T->pq_log2[q] = log2_entries;
}

unsigned int q_submit_bd(unsigned int q, uint32_t ctl, uint32_t len, uint64_t ptr)
{
	uint32_t entries = 1u << T->pq_log2[q];
	uint8_t *bd = host_ptr(T_PQ_OFF(q) + (T->pi[q] & (entries - 1)) * GAUDISIM_BD_SIZE);
	struct gaudisim_bd b = { .ctl = ctl, .len = len, .ptr = ptr };

	/* x86 is little-endian, like the device. */
	memcpy(bd, &b, sizeof(b));
	T->pi[q] = (T->pi[q] + 1) & (2 * entries - 1);
	return wr(QM_REG(q, GAUDISIM_QM_PQ_PI), T->pi[q]);
}

uint32_t job_shadow(uint32_t slot)
{
	return slot & GAUDISIM_BD_CTL_SHADOW_INDEX_MASK;
}

uint32_t cq_ok(uint32_t slot)
{
	return GAUDISIM_CQ_ENTRY_READY | GAUDISIM_CQ_ENTRY_SHADOW_VALID | job_shadow(slot);
}

uint32_t cq_err(uint32_t slot, unsigned int code)
{
	return cq_ok(slot) | GAUDISIM_CQ_ENTRY_ERROR | code << GAUDISIM_CQ_ENTRY_ERR_CODE_SHIFT;
}

uint32_t job_submit(unsigned int q, struct cb *cb)
{
	uint32_t slot = T->cq_pi[q]++ % T_CQ_ENTRIES;
	uint64_t cq_addr = host_dev(T_CQ_OFF(q) + slot * GAUDISIM_CQ_ENTRY_SIZE);

	/* The CQ slot starts empty so a test sees exactly what the device wrote. */
	memset(host_ptr(T_CQ_OFF(q) + slot * GAUDISIM_CQ_ENTRY_SIZE), 0, 4);
	cb_msg(cb, GAUDISIM_PKT_MSG_PROT, cq_addr, cq_ok(slot), GAUDISIM_MSG_OP_WRITE_VALUE);
	cb_msg(cb, GAUDISIM_PKT_MSG_PROT, GAUDISIM_CFG_BASE + GAUDISIM_REG_MSIX_REQ, q,
	       GAUDISIM_MSG_OP_WRITE_VALUE);
	ck_assert_uint_eq(q_submit_bd(q, job_shadow(slot) | GAUDISIM_BD_CTL_COMPLETION_TAIL,
				      cb->len, cb_dev(cb)), GSIM_KICK_RUN);
	return slot;
}

uint32_t cq_entry(unsigned int q, uint32_t slot)
{
	uint32_t v;

	memcpy(&v, host_ptr(T_CQ_OFF(q) + slot * GAUDISIM_CQ_ENTRY_SIZE), 4);
	return v;
}

unsigned int run_all(void)
{
	unsigned int calls = 0, waits = 0;

	for (;;) {
		while (gsim_core_run(T->core)) {
			calls++;
			ck_assert_msg(calls < 1000, "device never became idle");
		}
		/* Engine work on the workers: wait for it, then complete it. */
		if (!gsim_core_work_in_flight(T->core))
			break;
		ck_assert_msg(gsim_core_wait_work(T->core, T_WORK_TIMEOUT_NS),
			      "engine work on a worker did not finish");
		ck_assert_msg(++waits < 100000, "engine work never settled");
	}
	return calls + 1;
}
