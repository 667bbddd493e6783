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
#include "hw/gaudisim_hw_eq.h"
#include "hw/gaudisim_hw_packets.h"
#include "hw/gaudisim_hw_queues.h"
#include "hw/gaudisim_hw_regs.h"
#include "hw/gaudisim_hw_sync.h"

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
	uint64_t clock_step;		/* added to clock_ns after every read */
	uint64_t max_dma_len;		/* largest single dma_read/dma_write */
	unsigned int kicks;		/* host_ops.kick() calls (NIC peers) */

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
/* The same with 'threads' engine worker threads (0: synchronous engines). */
struct th *th_new_threads(uint64_t host_size, unsigned int threads);
/* Longest wait for one piece of engine work on a worker (a hung test). */
#define T_WORK_TIMEOUT_NS	(60ull * 1000000000u)
void th_free(struct th *t);
/*
 * Program payload rights entry asid (hw/gaudisim_hw_sync.h) on t's core:
 * SOBs and monitors [first, end), the queues whose bits are set in
 * queues[4], HBM [hbm_base, hbm_base + hbm_size), SRAM if sram.
 */
struct th_rights {
	uint32_t sob_first, sob_end, mon_first, mon_end;
	uint32_t queues[GAUDISIM_RIGHTS_QUEUE_WORDS];
	uint64_t hbm_base, hbm_size;
	uint32_t user_intr;
	bool sram;
};
void th_grant(struct th *t, unsigned int asid, const struct th_rights *r);
/* Register writes th_grant() makes. */
#define T_GRANT_WRITES		(10 + GAUDISIM_RIGHTS_QUEUE_WORDS)
void th_revoke(struct th *t, unsigned int asid);
/*
 * What the driver grants the one context of a device (ASID T_ASID): the
 * user SOBs and monitors, every queue, user HBM and SRAM. Every th_new()
 * core starts with it.
 */
#define T_ASID			1
extern const struct th_rights th_rights_exclusive;

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

/*
 * Internal queues, the sync manager and the event queue (gsim_test_iq.c).
 * Internal PQ rings live in host memory at T_IPQ_OFF(q) (<= 256 BDs), as
 * on Gaudi; their CBs are copied into HBM with cb_to_hbm(). The event
 * ring is at T_EQ_OFF (<= 1024 entries).
 */
#define T_IPQ_OFF(q)		(0x900000u + (q) * 0x1000u)
#define T_EQ_OFF		0x960000u
#define T_HBM_CB_BASE		(GAUDISIM_HBM_USER_BASE + (448ull << 20))	/* CB arena */

/* Registers of queue ID q (any queue) and of its fences. */
#define QQ_REG(q, macro) \
	(GAUDISIM_QM_BLOCK(gaudisim_queue_engine(q)) + macro(gaudisim_queue_stream(q)))
#define QQ_FENCE_REG(q, macro, f) \
	(GAUDISIM_QM_BLOCK(gaudisim_queue_engine(q)) + macro((f), gaudisim_queue_stream(q)))
/* Sync-manager register offsets and device addresses. */
#define SYNC_REG(off)		(GAUDISIM_BLOCK_SYNC_MNGR + (off))
#define SYNC_ADDR(off)		(GAUDISIM_CFG_BASE + GAUDISIM_BLOCK_SYNC_MNGR + (off))
#define FENCE_ADDR(q, f)	(GAUDISIM_CFG_BASE + QQ_FENCE_REG(q, GAUDISIM_QM_CP_FENCE_RDATA, f))

/*
 * Program queue q like the driver: PQ ring at T_IPQ_OFF(q) for internal
 * queues (external ones use q_setup()), CP_MSG_BASE0 = monitor arrays,
 * CP_MSG_BASE1 = sync objects, stream enabled.
 */
void iq_setup(unsigned int q, unsigned int log2_entries);
/* Set CP_MSG_BASE0/1 of queue q (done by iq_setup(); external queues call it). */
void q_msg_bases(unsigned int q);
/* Append a BD {ctl, len, ptr} to internal queue q and ring its doorbell. */
unsigned int iq_submit_bd(unsigned int q, uint32_t ctl, uint32_t len, uint64_t ptr);
/* Copy a CB built in host memory to HBM (T_HBM_CB_BASE arena); its address. */
uint64_t cb_to_hbm(const struct cb *cb);
/* Copy the CB to HBM and submit it to internal queue q. */
void iq_submit(unsigned int q, const struct cb *cb);

/* Packets for the sync manager (MSG_SHORT through CP_MSG_BASE0/1). */
void cb_msg_short(struct cb *cb, unsigned int base, uint32_t offset, uint32_t value,
		  uint32_t ctl_extra);
void cb_sob_set(struct cb *cb, unsigned int sob, uint32_t value);
void cb_sob_add(struct cb *cb, unsigned int sob, uint32_t value);
/* Payload (address, data) of monitor m, then its arm word. */
void cb_mon_payload(struct cb *cb, unsigned int m, uint64_t addr, uint32_t data);
void cb_mon_arm(struct cb *cb, unsigned int m, uint32_t arm);
/* The same over MMIO. */
void sm_mon_setup(unsigned int m, uint64_t addr, uint32_t data);
unsigned int sm_mon_arm(unsigned int m, uint32_t arm);
uint32_t sm_sob_rd(unsigned int sob);
unsigned int sm_sob_wr(unsigned int sob, uint32_t value);

/* Event queue at T_EQ_OFF with 2^log2 entries, enabled. */
void th_eq_setup(unsigned int log2_entries);
/* Entry i of the ring as the device wrote it (host endianness = device). */
struct gaudisim_eq_entry th_eq_entry(unsigned int i);
/* Events written so far (EQ_EVENT_CNT). */
uint32_t th_eq_count(void);
/* Index of the first entry of type 'type' at or after 'from', or -1. */
int th_eq_find(unsigned int from, unsigned int type);

/* Suites. */
Suite *regs_suite(void);
Suite *nic_suite(void);
Suite *queue_suite(void);
Suite *dma_suite(void);
Suite *packet_suite(void);
Suite *error_suite(void);
Suite *reset_suite(void);
Suite *random_suite(void);
Suite *iq_suite(void);
Suite *sync_suite(void);
Suite *packet2_suite(void);
Suite *engine_suite(void);
Suite *eq_suite(void);
Suite *tpc_suite(void);
Suite *mme_suite(void);
Suite *mme_conv_suite(void);
Suite *mmu_suite(void);
Suite *telemetry_suite(void);
Suite *faults_suite(void);
Suite *tpc_golden_suite(void);
Suite *mmu_golden_suite(void);
Suite *mme_backend_suite(void);
Suite *wiring_suite(void);
Suite *threads_suite(void);
Suite *mme_bf16_suite(void);
Suite *security_suite(void);
Suite *payload_rights_suite(void);
Suite *gaudi_map_suite(void);
Suite *board_suite(void);
Suite *pkt_table_suite(void);

#endif /* GSIM_TEST_H */
