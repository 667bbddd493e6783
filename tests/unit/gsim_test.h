/* SPDX-License-Identifier: MIT */
/*
 * Host unit tests of the gaudisim device core: a fake host (malloc'ed
 * "host memory" at a bus address offset, MSI-X and guest-error recording,
 * a fake clock) and helpers that build CBs and drive the external queues
 * the way the driver does.
 */
#ifndef GSIM_TEST_H
#define GSIM_TEST_H

#include <check.h>
#include <stdbool.h>
#include <stdint.h>

#include "gsim_core.h"
#include "hw/gaudisim_packets.h"
#include "hw/gaudisim_queues.h"
#include "hw/gaudisim_regs.h"

/* Device configuration used by the tests (1 GiB keeps page tables small). */
#define T_HBM_SIZE		(1ull << 30)
#define T_BAR_SIZE		(256ull << 20)

/* Host memory: bus addresses [T_BUS_BASE, T_BUS_BASE + size). */
#define T_BUS_BASE		0x100000000ull
#define T_HOST_SIZE		(48u << 20)
#define T_HOST_SIZE_LARGE	(160u << 20)

/* Host memory layout, as offsets into the fake host memory. */
#define T_PQ_OFF(q)		(0x0000u + (q) * 0x1000u)	/* <= 256 BDs */
#define T_CQ_OFF(q)		(0x10000u + (q) * 0x1000u)	/* 1024 entries */
#define T_CQ_ENTRIES		1024u
#define T_CB_OFF		0x20000u			/* CB arena */
#define T_CB_END		0x900000u
#define T_DATA_OFF		0x1000000u			/* free for data */

struct th {
	struct gsim_core *core;
	uint8_t *mem;
	uint64_t mem_size;
	/* Bus addresses in [fault_lo, fault_hi) fail like an IOMMU fault. */
	uint64_t fault_lo, fault_hi;

	unsigned int msix[GAUDISIM_MSIX_NUM_VECTORS];
	unsigned int msix_total;
	unsigned int errors;
	char last_error[512];
	uint64_t clock_ns;
	uint64_t max_dma_len;		/* largest single dma_read/dma_write */

	/* Driver-side queue state. */
	uint32_t pi[GAUDISIM_NUM_EXT_QUEUES];
	uint32_t pq_log2[GAUDISIM_NUM_EXT_QUEUES];
	uint32_t cq_pi[GAUDISIM_NUM_EXT_QUEUES];
	uint32_t cb_next;
};

/* The fixture of the running test (Check runs each test in its own fork). */
extern struct th *T;

void th_setup(void);
void th_setup_large(void);
void th_teardown(void);
struct th *th_new(uint64_t host_size);
void th_free(struct th *t);

/* Registers. */
uint32_t rd(uint32_t off);
unsigned int wr(uint32_t off, uint32_t value);
uint32_t qrd_pi(unsigned int q);
uint32_t qrd_ci(unsigned int q);
uint32_t qrd_sts(unsigned int q);
uint32_t qrd_fence(unsigned int q, unsigned int f);
#define QM_REG(q, macro) \
	(GAUDISIM_QM_BLOCK((q) / GAUDISIM_STREAMS_PER_QMAN) + macro((q) % GAUDISIM_STREAMS_PER_QMAN))
#define QM_FENCE_REG(q, macro, f) \
	(GAUDISIM_QM_BLOCK((q) / GAUDISIM_STREAMS_PER_QMAN) + \
	 macro((f), (q) % GAUDISIM_STREAMS_PER_QMAN))

/* Addresses. */
uint64_t host_dev(uint64_t off);	/* device address of host memory offset */
uint64_t host_bus(uint64_t off);	/* bus address of host memory offset */
uint8_t *host_ptr(uint64_t off);
uint8_t *hbm_ptr(uint64_t addr);
uint32_t host_rd32(uint64_t off);
uint64_t host_rd64(uint64_t off);
uint32_t dev_rd32(const uint8_t *p);

/* CB building. */
struct cb {
	uint8_t *p;
	uint64_t off;	/* host memory offset */
	uint32_t len;
	uint32_t cap;
};
struct cb cb_new(uint32_t cap);
void cb_arena_reset(void);
uint64_t cb_dev(const struct cb *cb);
void cb_raw(struct cb *cb, uint32_t dw0, uint32_t ctl);
void cb_raw64(struct cb *cb, uint64_t v);
void cb_nop(struct cb *cb);
void cb_lin_dma(struct cb *cb, uint64_t src, uint64_t dst, uint32_t size, uint32_t ctl_extra);
void cb_memset(struct cb *cb, uint64_t dst, uint8_t value, uint32_t size);
void cb_msg(struct cb *cb, unsigned int opcode, uint64_t addr, uint32_t value, unsigned int op);
void cb_fence(struct cb *cb, unsigned int id, unsigned int target, unsigned int dec);
void cb_wreg32(struct cb *cb, uint32_t reg, uint32_t value);

/* Queues. */
void q_setup(unsigned int q, unsigned int log2_entries);
unsigned int q_submit_bd(unsigned int q, uint32_t ctl, uint32_t len, uint64_t ptr);
/*
 * A job as the driver builds it: append the completion tail (CQ entry +
 * MSI-X request), submit. Returns the CQ slot the job completes into.
 */
uint32_t job_submit(unsigned int q, struct cb *cb);
uint32_t job_shadow(uint32_t slot);
uint32_t cq_entry(unsigned int q, uint32_t slot);
uint32_t cq_ok(uint32_t slot);
uint32_t cq_err(uint32_t slot, unsigned int code);
/* Run the core until idle; fails the test if it does not become idle. */
unsigned int run_all(void);

/* Suites. */
Suite *regs_suite(void);
Suite *queue_suite(void);
Suite *dma_suite(void);
Suite *packet_suite(void);
Suite *error_suite(void);
Suite *reset_suite(void);
Suite *random_suite(void);

#endif /* GSIM_TEST_H */
