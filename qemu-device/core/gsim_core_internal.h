/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: private state shared by the core's source files.
 *
 * Layout of the core:
 *   gsim_core.c     creation, configuration checks, reset, the run loop,
 *                   guest-error formatting
 *   gsim_regs.c     the CFG BAR register file: global block, QMAN blocks,
 *                   dispatch to the other blocks
 *   gsim_qman.c     per-stream command processor: PQ entry fetch, CB fetch,
 *                   packet sequencing, fences, arbitration, error completion
 *   gsim_packets.c  execution of one packet
 *   gsim_dma.c      device address decoding, data movement, the host-memory
 *                   translation hook
 *   gsim_engine.c   what every engine shares: the engine-ops table, launch
 *                   and completion, completion messages, soft reset
 *   gsim_sync.c     the sync manager: sync objects and monitors
 *   gsim_eq.c       the event queue to the driver
 *   gsim_pool.c     the worker threads that run MME, TPC and HBM-DMA work
 *   gsim_pcie.c     the link to the host: host DMA, MSI-X, traffic counters
 *
 * Nothing here is visible to the QEMU glue or the tests; they use
 * gsim_core.h only.
 */
#ifndef GSIM_CORE_INTERNAL_H
#define GSIM_CORE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "gsim_core.h"
#include "gsim_nic.h"
#include "gsim_pool.h"
#include "hw/gaudisim_hw_eq.h"
#include "hw/gaudisim_hw_packets.h"
#include "hw/gaudisim_hw_queues.h"
#include "hw/gaudisim_hw_regs.h"
#include "hw/gaudisim_hw_sync.h"

/* Every engine has a QMAN; streams are numbered engine * 4 + stream. */
#define GSIM_NUM_QMANS		GAUDISIM_ENGINE_COUNT
#define GSIM_NUM_STREAMS	(GSIM_NUM_QMANS * GAUDISIM_STREAMS_PER_QMAN)

/*
 * Who is accessing memory or registers right now (core->requester): the
 * queue ID of the stream executing a packet, or one of these. The MMU
 * picks the address space from it.
 */
#define GSIM_REQ_MMIO		0xffffu	/* the host, through the register BAR */
/* A monitor armed from a CB writing its payload: unsecured, as the context
 * of rights entry core->sync.fire_asid (generation fire_gen), armed from
 * queue fire_queue (gsim_sync.c, gsim_sync_rights.c). */
#define GSIM_REQ_SYNC		0xfffeu

/*
 * Largest CB a PQ entry may describe: the driver's largest user CB plus
 * the completion tail it appends, i.e. 2 MiB.
 */
#define GSIM_CB_MAX_LEN		(2u << 20)

/*
 * Work done by one gsim_core_run() call, so the caller's main loop stays
 * responsive: about 64 MiB of data or 4096 packets, whichever comes first.
 * A stream runs at most GSIM_SLICE_PACKETS before the next stream gets
 * its turn.
 */
#define GSIM_RUN_BUDGET_BYTES	(64ull << 20)
#define GSIM_RUN_BUDGET_PACKETS	4096u
/* The clock time synchronous MME and TPC jobs may take in one run (gsim_engine.c). */
#define GSIM_RUN_SYNC_NS	500000u
#define GSIM_SLICE_PACKETS	256u

/* Staging buffer for the transfers that need one (host->host, memset). */
#define GSIM_BOUNCE_SIZE	(1u << 20)

struct gsim_budget {
	uint64_t bytes;
	uint32_t packets;
	/* the core's clock past which a synchronous job ends the run */
	uint64_t sync_deadline;
};

static inline bool gsim_budget_left(const struct gsim_budget *b)
{
	return b->bytes > 0 && b->packets > 0;
}

static inline void gsim_budget_take_bytes(struct gsim_budget *b, uint64_t n)
{
	b->bytes = n >= b->bytes ? 0 : b->bytes - n;
}

/* REPEAT levels: inner (o = 0) and outer (o = 1). */
#define GSIM_LOOP_LEVELS	2

/* A buffer of packets being executed: the CB from the PQ, or a CP_DMA'd one. */
struct gsim_frame {
	uint8_t *buf;			/* GSIM_CB_MAX_LEN bytes, a private copy */
	uint64_t addr;			/* device address it was fetched from */
	uint32_t len;
	uint32_t end;			/* packets stop here: len, or len - tail */
	uint32_t pc;			/* offset of the current packet */
	struct gsim_loop {
		bool open;
		uint32_t start;		/* offset of the first packet of the body */
		uint32_t left;		/* iterations still to start */
	} loop[GSIM_LOOP_LEVELS];
};

/* Frames: [0] the CB from the PQ (upper CP), [1] a CP_DMA'd buffer (lower CP). */
#define GSIM_FRAME_CB		0
#define GSIM_FRAME_CP_DMA	1
#define GSIM_NUM_FRAMES		2

/* Why an active stream does not run. */
enum gsim_park {
	GSIM_PARK_NONE,
	GSIM_PARK_FENCE,		/* FENCE not satisfied yet */
	GSIM_PARK_ENGINE,		/* EB: its engine is still busy */
};

/* One upper CP: a PQ feeding CBs to a packet processor. */
struct gsim_stream {
	unsigned int queue_id;
	unsigned int engine;		/* engine block index */
	unsigned int index;		/* stream index inside its QMAN */
	bool external;			/* secured CP: PQ, CQ and CBs from the driver */

	/* Registers. */
	uint32_t pq_base_lo;
	uint32_t pq_base_hi;
	uint32_t pq_size_log2;		/* 0 = not programmed */
	uint32_t pi;			/* modulo 2 * entries */
	uint32_t ci;			/* modulo 2 * entries */
	uint32_t fence[GAUDISIM_QM_NUM_FENCES];
	uint32_t msg_base_lo[GAUDISIM_QM_NUM_MSG_BASES];
	uint32_t msg_base_hi[GAUDISIM_QM_NUM_MSG_BASES];
	uint32_t last_err;		/* GAUDISIM_CP_ERR_*, CP_STS[15:8] */
	uint64_t err_addr;		/* CB address of the last error */
	uint32_t err_cnt;
	bool stopped;			/* STOP ran; cleared when enabled again */

	/* The CB being executed, if active. */
	bool active;
	enum gsim_park park;
	unsigned int wait_fence_id;	/* GSIM_PARK_FENCE */
	uint32_t wait_target;
	bool has_tail;			/* last 32 bytes are the completion tail */
	bool in_tail;			/* executing the tail */
	uint8_t tail_err;		/* error code OR-ed into the tail, 0 if none */
	unsigned int depth;		/* index of the frame executing */
	struct gsim_frame frame[GSIM_NUM_FRAMES];
	uint64_t pkt_done;		/* bytes of the current LIN_DMA already moved */
	uint8_t pkt_err;		/* error code of the packet that failed */
	/* LOAD_AND_EXE state, cleared with every CB from the PQ. */
	uint32_t pred;			/* bit n: predicate n; bit 0 always set */
	/*
	 * Priority arbitration: the priority this stream asks the arbiter
	 * with at an ARB_POINT, -1 when it is not asking (gsim_packets.c).
	 */
	int arb_request;
	uint8_t scalars[GAUDISIM_LOAD_AND_EXE_SCALAR_SIZE];	/* RF0..RF3 */
};

struct gsim_qman {
	uint32_t glbl_cfg0;		/* stream enable bits */
	int arb_owner;			/* stream holding the arbiter, -1 if none */
	/*
	 * Fence counters of Gaudi's lower CP (CP 4): a FENCE or WAIT in a
	 * CP_DMA'd buffer uses these, shared by the QMAN's streams, raised by
	 * CP_FENCE<f>_RDATA_4.
	 */
	uint32_t lower_fence[GAUDISIM_QM_NUM_FENCES];
	/*
	 * Gaudi's arbitration settings: priority arbitration (EN, TYPE 0)
	 * decides ARB_POINT grants; the WRR weights and the quiet period are
	 * stored, not used to schedule.
	 */
	uint32_t arb_cfg;
	uint32_t arb_wrr_weight[GAUDISIM_STREAMS_PER_QMAN];
	uint32_t arb_mst_quiet_per;
	struct gsim_stream stream[GAUDISIM_STREAMS_PER_QMAN];
};

/* ---- engines (gsim_engine.c) --------------------------------------------- */

/* The table an engine model plugs in with: see the gsim_engine.c section. */
struct gsim_engine_ops;

/*
 * A launch handed to a worker. Between submission and completion the
 * worker owns the engine model's job state (the decoded GEMM and the MME
 * scratch, the TPC's job and machine state, the DMA transfer); the owner
 * thread touches neither until it took the job back from the pool's done
 * list, or cancelled it.
 */
struct gsim_engine_job {
	struct gsim_work work;		/* first: the pool hands this back */
	struct gsim_core *core;
	unsigned int e;
	uint32_t epoch;			/* the engine's epoch at submission */
	int result;			/* ops->work()'s return value */
	bool submitted;			/* in the pool (queued, running or done) */
	bool transfer;			/* a packet's transfer, not a launch */
};

/* Per-engine state the core keeps for every engine. */
struct gsim_engine {
	const struct gsim_engine_ops *ops;
	struct gsim_engine_job job;	/* work on a worker; see above */
	uint32_t wr_comp_addr_lo;
	uint32_t wr_comp_addr_hi;
	uint32_t wr_comp_wdata;
	uint32_t wr_comp_en;
	bool launch_pending;		/* asked for; not started yet */
	unsigned int launch_req;	/* requester that asked (queue ID or GSIM_REQ_*) */
	bool running;			/* launched asynchronously, not done yet */
	bool done_deferred;		/* finished while hung (fault injection) */
	int deferred_err;		/* its result, for finish_launch() */
	uint32_t epoch;			/* bumped by every reset of the engine */
	uint8_t last_err;		/* engine error code of the last launch */
	uint32_t launch_cnt;
	uint32_t err_cnt;
};

/* ---- sync manager (gsim_sync.c) ------------------------------------------ */

#define GSIM_SYNC_NUM_GROUPS	(GAUDISIM_SYNC_NUM_SOBS / GAUDISIM_SYNC_SOBS_PER_GROUP)

struct gsim_monitor {
	uint32_t pay_addr_lo;
	uint32_t pay_addr_hi;
	uint32_t pay_data;
	/*
	 * Rights of the payload write, taken from whoever armed the monitor:
	 * the driver over MMIO (secured), or a queue's CB: unsecured, bound
	 * to a rights entry (pay_asid, or GSIM_RIGHTS_NONE) and its
	 * generation at arm time (gsim_sync_rights.c).
	 */
	bool pay_secured;
	unsigned int pay_asid;
	uint32_t pay_gen;
	unsigned int pay_queue;		/* arming queue, GAUDISIM_EQ_NONE for MMIO */
	uint32_t arm;			/* the last arm word */
	uint32_t status;		/* GAUDISIM_SYNC_MON_STATUS_* */
};

/* One entry of the payload rights table (hw/gaudisim_hw_sync.h). */
struct gsim_rights {
	uint32_t ctrl;
	uint32_t sob_first, sob_end;
	uint32_t mon_first, mon_end;
	uint32_t queues[GAUDISIM_RIGHTS_QUEUE_WORDS];
	uint32_t hbm_base_lo, hbm_base_hi;
	uint32_t hbm_size_lo, hbm_size_hi;
	uint32_t user_intr;		/* bit i: may raise user interrupt i */
	uint32_t gen;			/* bumped by every CTRL write */
};

/* pay_asid of a monitor bound to no rights entry: its payloads are refused. */
#define GSIM_RIGHTS_NONE	GAUDISIM_SYNC_RIGHTS_ENTRIES

struct gsim_sync {
	uint16_t sob[GAUDISIM_SYNC_NUM_SOBS];
	struct gsim_monitor mon[GAUDISIM_SYNC_NUM_MONITORS];
	uint16_t armed[GSIM_SYNC_NUM_GROUPS];	/* armed monitors per group */
	unsigned int depth;		/* payload writes nested right now */
	/* Rights of the payload being written (valid while depth > 0). */
	unsigned int fire_asid;
	uint32_t fire_gen;
	unsigned int fire_queue;
	/* Cleared by a hard reset; the driver programs it again. */
	struct gsim_rights rights[GAUDISIM_SYNC_RIGHTS_ENTRIES];
	/* A payload refused for lack of rights since gsim_dev_write32() began. */
	int denied;
};

/* ---- event queue (gsim_eq.c) ---------------------------------------------- */

struct gsim_eq {
	uint32_t base_lo;
	uint32_t base_hi;
	uint32_t size_log2;
	uint32_t pi;			/* modulo 2 * entries */
	uint32_t ci;
	uint32_t ctl;
	uint32_t sts;
	uint32_t drop_cnt;
	uint32_t event_cnt;
	uint16_t index;			/* INDEX of the next event */
	bool irq_pending;		/* events written since the last MSI-X */
};

/* An event for gsim_eq_post_event(); unused fields GAUDISIM_EQ_NONE / 0. */
struct gsim_event {
	unsigned int type;		/* GAUDISIM_EQ_EVENT_* */
	uint32_t engine;
	uint32_t queue;
	uint32_t code;
	uint64_t addr;
	uint32_t data[GAUDISIM_EQ_DATA_WORDS];
};

/* ---- PCIe link (gsim_pcie.c) ---------------------------------------------- */

/* An MSI-X message is one 32-bit memory write on the link. */
#define GSIM_PCIE_MSIX_BYTES	4u

/* HI half of a 64-bit counter, taken when its LO half was read. */
struct gsim_pcie_latch {
	bool valid;
	uint32_t hi;
};

/* Traffic since the last hard reset (GAUDISIM_REG_PCIE_*). */
struct gsim_pcie {
	uint64_t rx_bytes;
	uint64_t tx_bytes;
	uint32_t replay_cnt;		/* injected by fault injection only */
	struct gsim_pcie_latch rx_latch;
	struct gsim_pcie_latch tx_latch;
};

struct gsim_core {
	struct gsim_host_ops ops;
	void *opaque;

	uint64_t hbm_size;
	uint64_t hbm_bar_size;
	/* gsim_core_config.tpc_portable; tests switch it on a live core. */
	bool tpc_portable;
	/* The TPC interpreter build (gsim_tpc_isa.c); tests switch it too. */
	const struct gsim_tpc_isa *tpc_isa;
	uint8_t *hbm;
	uint8_t *sram;
	uint8_t *bounce;

	/* Global registers. */
	uint64_t hbm_window;
	uint32_t hbm_window_lo_latch;	/* applied by the HI write */
	uint64_t dbg_mem_addr;		/* debug memory port: ADDR_HI:LO */
	uint32_t dbg_mem_sts;		/* its STS: error of the last access */
	uint32_t hw_state;
	bool reset_pending;		/* RESET written, gsim_core_reset() not yet called */
	uint32_t timestamp_hi_latch;
	uint32_t err_pkt_cnt;
	uint32_t err_dma_cnt;
	uint32_t err_pq_cnt;
	uint64_t dma_bytes;
	uint32_t cb_done_cnt;
	struct gsim_pcie pcie;

	/* Board identity (GAUDISIM_REG_SERIAL, _UUID): kept across resets. */
	char serial[GAUDISIM_SERIAL_MAX_LEN + 1];
	uint8_t uuid[GSIM_UUID_LEN];

	struct gsim_qman qman[GSIM_NUM_QMANS];
	unsigned int rr_next;		/* first stream of the next run round */

	/* Device MMU, telemetry model, fault injection: gsim_{mmu,telemetry,faults}.h */
	struct gsim_mmu *mmu;
	struct gsim_telemetry *tel;
	struct gsim_faults *faults;

	/* Engines, sync manager, event queue: gsim_{engine,sync,eq}.c */
	struct gsim_engine engine[GAUDISIM_ENGINE_COUNT];
	struct gsim_sync sync;
	struct gsim_eq eq;
	/* The HBM-DMA transfer each DMA engine has on a worker (gsim_dma.c). */
	struct gsim_dma_xfer {
		uint8_t *dst;
		const uint8_t *src;	/* NULL: memset with value */
		uint8_t value;
		uint64_t len;
		unsigned int slot;	/* the stream that waits for it ... */
		uint64_t cb_addr;	/* ... on the packet at this frame and pc */
		unsigned int depth;
		uint32_t pc;
	} dma_xfer[GAUDISIM_ENGINE_DMA_7 + 1];
	struct gsim_tpc_set *tpc;	/* TPC engines' state: gsim_tpc.h */
	struct gsim_mme *mme[GAUDISIM_NUM_MME];	/* per MME: gsim_mme.h */
	/* NIC ports and the fabric this device is attached to: gsim_nic.h. */
	struct gsim_nic_port nic[GAUDISIM_NUM_NIC];
	struct gsim_nic_mr nic_mr[GAUDISIM_NIC_RX_NUM_MR];	/* receive registrations */
	struct gsim_fabric *fabric;	/* NULL: not attached */
	unsigned int module_id;
	bool in_run;			/* inside gsim_core_run(): work may run now */
	struct gsim_budget *budget;	/* of the current gsim_core_run(), or NULL */
	/*
	 * This core's share of the process-wide worker pool that runs engine
	 * work (gsim_pool.h); NULL: synchronous.
	 */
	struct gsim_client *pool;
	unsigned int requester;		/* queue ID or GSIM_REQ_*, see above */
};

/* ---- gsim_core.c ---------------------------------------------------------- */

void gsim_log(struct gsim_core *core, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Pass a trace point to the host, if it traces (owner thread only). */
void gsim_trace(struct gsim_core *core, enum gsim_trace what, unsigned int engine,
		uint64_t a, uint64_t b);
/* NULL for a queue ID that names no queue. */
struct gsim_stream *gsim_stream_by_queue(struct gsim_core *core, unsigned int queue_id);
/* Stream slot i = engine * 4 + stream, i < GSIM_NUM_STREAMS. */
struct gsim_stream *gsim_stream_by_slot(struct gsim_core *core, unsigned int slot);

/* ---- gsim_regs.c ---------------------------------------------------------- */

/* Who writes a register: the host over MMIO, or a packet in a CB. */
enum gsim_reg_origin {
	GSIM_ORIGIN_MMIO,
	GSIM_ORIGIN_CB,
};

enum gsim_reg_status {
	GSIM_REG_OK,
	GSIM_REG_UNKNOWN,	/* no register at this offset */
	GSIM_REG_READ_ONLY,
	GSIM_REG_PROTECTED,	/* not writable from a command buffer */
	GSIM_REG_BAD_VALUE,	/* value refused (logged for MMIO writes) */
	GSIM_REG_LAUNCH_FAILED,	/* a CB's write launched the engine, which failed */
};

enum gsim_reg_status gsim_regs_write(struct gsim_core *core, uint32_t offset,
				     uint32_t value, enum gsim_reg_origin origin,
				     unsigned int *kick);
const char *gsim_reg_status_str(enum gsim_reg_status st);

/* ---- gsim_pcie.c ---------------------------------------------------------- */

void gsim_pcie_reset(struct gsim_core *core);
/*
 * The only way to host memory and MSI-X: the host ops, counted. Bus
 * addresses (already translated); 0, or -1 when the host refused.
 */
int gsim_pcie_dma_read(struct gsim_core *core, uint64_t bus, void *buf, uint64_t len);
int gsim_pcie_dma_write(struct gsim_core *core, uint64_t bus, const void *buf, uint64_t len);
void gsim_pcie_msix(struct gsim_core *core, unsigned int vector);
/* One 32-bit access through the register BAR. */
void gsim_pcie_mmio(struct gsim_core *core, bool write);
/* Replays: only fault injection makes them (saturating). */
void gsim_pcie_add_replays(struct gsim_core *core, uint32_t count);
uint32_t gsim_pcie_replays(const struct gsim_core *core);
/* The PCIE_* registers of the global block; false for other offsets. */
bool gsim_pcie_reg_read(struct gsim_core *core, uint32_t offset, uint32_t *value);

/* ---- gsim_qman.c ---------------------------------------------------------- */

void gsim_stream_init(struct gsim_stream *s, unsigned int engine, unsigned int index);
/* Every register and all state to reset values; the buffers are kept. */
void gsim_stream_reset(struct gsim_stream *s);
/* Allocate / free the frame buffers (0 or -1). */
int gsim_stream_alloc(struct gsim_stream *s);
void gsim_stream_free(struct gsim_stream *s);
/* Reset a QMAN: every stream, enables and the arbiter. */
void gsim_qman_reset(struct gsim_qman *qm);
uint32_t gsim_stream_entries(const struct gsim_stream *s);
bool gsim_stream_busy(const struct gsim_stream *s);
bool gsim_stream_runnable(const struct gsim_core *core, const struct gsim_stream *s);
/* Add to a fence counter; true when a stream parked on it may now resume. */
bool gsim_stream_fence_add(struct gsim_stream *s, unsigned int fence, uint32_t value);
bool gsim_qman_lower_fence_add(struct gsim_qman *qm, unsigned int fence, uint32_t value);
/* The fence counter a FENCE or WAIT of the stream's current frame uses. */
uint32_t *gsim_stream_fence_cnt(struct gsim_qman *qm, struct gsim_stream *s, unsigned int id);
/* Run one slice of a runnable stream. */
void gsim_stream_step(struct gsim_core *core, struct gsim_stream *s,
		      struct gsim_budget *budget);
/* The frame executing now. */
static inline struct gsim_frame *gsim_stream_frame(struct gsim_stream *s)
{
	return &s->frame[s->depth];
}

/* ---- gsim_packets.c ------------------------------------------------------- */

enum gsim_pkt_result {
	GSIM_PKT_NEXT,		/* done; the frame's pc moved on */
	GSIM_PKT_YIELD,		/* partly done (budget); run it again */
	GSIM_PKT_BLOCKED,	/* parked (FENCE, EB) or stopped; s->park says which */
	GSIM_PKT_ERROR,		/* failed; s->pkt_err holds the code, already logged */
};

/* Execute the packet at the current frame's pc, which is below its end. */
enum gsim_pkt_result gsim_pkt_exec(struct gsim_core *core, struct gsim_stream *s,
				   struct gsim_budget *budget);

/* ---- gsim_dma.c ----------------------------------------------------------- */

enum gsim_region {
	GSIM_RGN_HBM,
	GSIM_RGN_SRAM,
	GSIM_RGN_CFG,
	GSIM_RGN_HOST,
};

/* A validated device address range. */
struct gsim_span {
	enum gsim_region rgn;
	uint8_t *mem;		/* HBM/SRAM: host pointer to the first byte */
	uint64_t off;		/* HOST: device address; CFG: register offset */
};

/*
 * Decode [addr, addr + len); false when it is not inside one region, or
 * when it touches reserved HBM and core->requester is not secured.
 */
bool gsim_dma_decode(const struct gsim_core *core, uint64_t addr, uint64_t len,
		     struct gsim_span *span);
/* Secured requesters: the external queues and the host (MMIO). */
bool gsim_requester_secured(unsigned int requester);
/* [addr, addr + len) touches reserved HBM and core->requester may not. */
bool gsim_dma_protected(const struct gsim_core *core, uint64_t addr, uint64_t len);
/*
 * May core->requester access device memory [addr, addr + len)? 0, or
 * GAUDISIM_CP_ERR_PRIV (reserved HBM) / GAUDISIM_CP_ERR_DMA_ADDR.
 */
int gsim_dev_mem_check(struct gsim_core *core, uint64_t addr, uint64_t len, bool write);
const char *gsim_region_name(enum gsim_region rgn);
/*
 * Move len bytes from src + off to dst + off (memory or host spans). 0, or
 * GAUDISIM_CP_ERR_HOST_FAULT when the host refused an access.
 */
int gsim_dma_copy(struct gsim_core *core, const struct gsim_span *dst,
		  const struct gsim_span *src, uint64_t off, uint64_t len);
/* Fill dst + off .. + len with value; same return as gsim_dma_copy(). */
int gsim_dma_fill(struct gsim_core *core, const struct gsim_span *dst,
		  uint64_t off, uint8_t value, uint64_t len);
/* Write a small buffer at a memory or host span; same return. */
int gsim_dma_store(struct gsim_core *core, const struct gsim_span *dst,
		   const void *buf, uint64_t len);
/* Read len bytes of a memory or host span into buf; same return. */
int gsim_dma_load(struct gsim_core *core, const struct gsim_span *src,
		  void *buf, uint64_t len);

/*
 * The host-memory hook: every device access to host memory (a HOST span)
 * goes through it, for the requester in core->requester. Translates the
 * device address addr for an access of len bytes (len >= 1): *bus is the
 * host bus address of addr and *contig how many bytes from there are
 * contiguous (1..len). Returns 0, or the GAUDISIM_CP_ERR_* code the
 * access fails with: device VAs translate through the MMU with the
 * requester's ASID (a fault is recorded, posted as an MMU_FAULT event and
 * returns GAUDISIM_CP_ERR_MMU_FAULT); the physical window (bus = addr -
 * GAUDISIM_HOST_BASE) is open to secured requesters only (else PRIV).
 */
int gsim_host_translate(struct gsim_core *core, uint64_t addr, uint64_t len, bool write,
			uint64_t *bus, uint64_t *contig);
/*
 * Hand the rest of stream s's LIN_DMA (tsize bytes in total) to a worker
 * when it is a large transfer inside device memory on an internal queue of
 * a threaded core: true when the stream now waits (GSIM_PARK_ENGINE) for
 * it or for the engine's previous transfer; the packet runs again then and
 * finds s->pkt_done == tsize. src == NULL: a memset with value.
 */
bool gsim_dma_offload(struct gsim_core *core, struct gsim_stream *s,
		      const struct gsim_span *dst, const struct gsim_span *src, uint8_t value,
		      uint32_t tsize);
/* Move bytes between buf and host memory at device address addr, through
 * gsim_host_translate(); 0 or a GAUDISIM_CP_ERR_* code. */
int gsim_host_read(struct gsim_core *core, uint64_t addr, void *buf, uint64_t len);
int gsim_host_write(struct gsim_core *core, uint64_t addr, const void *buf, uint64_t len);

/*
 * A 32-bit write by the device to a device address (messages, monitor
 * payloads, completion messages): registers as a command buffer may write
 * them, HBM, SRAM or host memory. Returns 0 or a GAUDISIM_CP_ERR_* code,
 * with the reason in *why (static text) on failure.
 */
int gsim_dev_write32(struct gsim_core *core, uint64_t addr, uint32_t value,
		     unsigned int *kick, const char **why);

/* ---- gsim_engine.c -------------------------------------------------------- */

/* gsim_engine_ops.launch() result: still running, gsim_engine_done() follows. */
#define GSIM_ENGINE_ASYNC	(-1)
/*
 * OR-ed into an error code returned by launch() or passed to
 * gsim_engine_done() when the engine already posted its own event (e.g.
 * ENGINE_TIMEOUT): the core then does not post ENGINE_ERR.
 */
#define GSIM_ENGINE_ERR_POSTED	0x100
#define GSIM_ENGINE_ERR_CODE(e)	((e) & 0xff)

/*
 * What an engine model plugs into the core: one table per engine kind,
 * listed in gsim_engine.c. Every member may be NULL. The engine index e
 * is the engine block index (GAUDISIM_ENGINE_*); offsets are inside the
 * engine block and below GAUDISIM_ENG_COMMON_BASE (the core handles the
 * common registers and the QMAN itself).
 */
struct gsim_engine_ops {
	const char *name;
	/* Creation and destruction of the engine's state (0 or -1). fini also
	 * runs after a failed init, on whatever init left. */
	int (*init)(struct gsim_core *core, unsigned int e);
	void (*fini)(struct gsim_core *core, unsigned int e);
	/* Hard or soft reset: registers to reset values, work in flight dropped;
	 * busy() is false afterwards. */
	void (*reset)(struct gsim_core *core, unsigned int e);
	/* false: no register at off (reads as 0). */
	bool (*reg_read)(struct gsim_core *core, unsigned int e, uint32_t off, uint32_t *value);
	/* Latch a write. *launch = true asks the core to launch the engine
	 * (COMMIT); the core calls launch() at once when a packet wrote it, or
	 * from the run loop when the host did. */
	enum gsim_reg_status (*reg_write)(struct gsim_core *core, unsigned int e, uint32_t off,
					  uint32_t value, enum gsim_reg_origin origin,
					  bool *launch);
	/* Run the work the registers describe: 0 done, > 0 failed with that
	 * engine error code (optionally | GSIM_ENGINE_ERR_POSTED), or
	 * GSIM_ENGINE_ASYNC. */
	int (*launch)(struct gsim_core *core, unsigned int e);
	/* Work launched asynchronously is still running. */
	bool (*busy)(const struct gsim_core *core, unsigned int e);
	/*
	 * Worker side of a launch: when the core has workers, launch() only
	 * decodes and returns GSIM_ENGINE_ASYNC, and the core runs work() on a
	 * worker. It computes on device memory and the engine's job state
	 * only (no logging, no host callbacks), returns early when
	 * gsim_work_cancelled(w), and returns a value for complete().
	 */
	int (*work)(struct gsim_core *core, unsigned int e, const struct gsim_work *w);
	/* Owner side after work(): counters, logs, events; returns the launch's
	 * result as launch() would. NULL: work()'s value is the result. */
	int (*complete)(struct gsim_core *core, unsigned int e, int result);
	/*
	 * A launch from a CB that fails at once also fails the packet that
	 * wrote COMMIT (GAUDISIM_CP_ERR_ENGINE): for engines whose failure
	 * leaves a job waiting on a signal that will never come (NIC).
	 */
	bool fail_cb_on_error;
};

/* The engine models' tables (defined in their files). */
extern const struct gsim_engine_ops gsim_dma_engine_ops;
/* gsim_nic_engine_ops: gsim_nic.h */

/* The NIC receive registrations (GAUDISIM_BLOCK_NIC_RX, gsim_nic.c): MMIO only. */
bool gsim_nic_rx_reg_read(struct gsim_core *core, uint32_t off, uint32_t *value);
enum gsim_reg_status gsim_nic_rx_reg_write(struct gsim_core *core, uint32_t off,
					   uint32_t value, enum gsim_reg_origin origin,
					   unsigned int *kick);
/* Hard reset: every registration dropped. */
void gsim_nic_rx_reset(struct gsim_core *core);

int gsim_engines_init(struct gsim_core *core);
void gsim_engines_fini(struct gsim_core *core);
/* Hard reset of every engine (registers, launches; epochs move on). */
void gsim_engines_reset(struct gsim_core *core);
/* Soft reset of engine e and its QMAN; posts RESET_DONE. */
void gsim_engine_soft_reset(struct gsim_core *core, unsigned int e);
/* Registers of an engine block below GAUDISIM_QM_OFFSET. */
bool gsim_engine_reg_read(struct gsim_core *core, unsigned int e, uint32_t off,
			  uint32_t *value);
enum gsim_reg_status gsim_engine_reg_write(struct gsim_core *core, unsigned int e,
					   uint32_t off, uint32_t value,
					   enum gsim_reg_origin origin, unsigned int *kick);
/* Ask for a launch of engine e (a COMMIT write); false when the
 * engine has nothing to launch. Runs it now when inside the run loop. */
bool gsim_engine_request_launch(struct gsim_core *core, unsigned int e, unsigned int *kick);
/* Start launches the host asked for; true when one started. */
bool gsim_engines_start_pending(struct gsim_core *core);
/* Launched work not finished yet (pending or running). */
bool gsim_engine_busy(const struct gsim_core *core, unsigned int e);
/* Tell the telemetry which engines have work in flight now. */
void gsim_engines_note_activity(struct gsim_core *core);
/* Engine work runs on workers (launch() may hand its work to work()). */
static inline bool gsim_engine_threaded(const struct gsim_core *core)
{
	return core->pool != NULL;
}
/* Cancel every engine's work on the workers and wait for it (no reset). */
void gsim_engines_cancel(struct gsim_core *core);
/* Run engine e's work() on a worker for a packet that waits for it (a
 * transfer: no launch count, status or completion message of its own). */
void gsim_engine_offload_transfer(struct gsim_core *core, unsigned int e);
/* Take back the work workers finished and complete it; GSIM_KICK_* bits. */
unsigned int gsim_engines_complete(struct gsim_core *core);
/* The engine's current epoch, to pass back to gsim_engine_done(). */
uint32_t gsim_engine_epoch(const struct gsim_core *core, unsigned int e);
/*
 * An asynchronous launch finished (main thread only): err as launch()
 * returns it. Dropped when the engine was reset since (epoch differs).
 * Returns GSIM_KICK_RUN when streams may continue.
 */
unsigned int gsim_engine_done(struct gsim_core *core, unsigned int e, uint32_t epoch, int err);
/* Write engine e's completion message (GAUDISIM_ENG_WR_COMP_*): 0 or a
 * GAUDISIM_CP_ERR_* code with the reason in *why; the caller reports it. */
int gsim_engine_completion_msg(struct gsim_core *core, unsigned int e, unsigned int *kick,
			       const char **why);
/* "DMA 3", "MME", "TPC 5", for logs. */
const char *gsim_engine_name(unsigned int e);

/* ---- gsim_sync.c ---------------------------------------------------------- */

void gsim_sync_reset(struct gsim_core *core);
/* Offsets inside GAUDISIM_BLOCK_SYNC_MNGR. */
bool gsim_sync_reg_read(struct gsim_core *core, uint32_t off, uint32_t *value);
enum gsim_reg_status gsim_sync_reg_write(struct gsim_core *core, uint32_t off, uint32_t value,
					 enum gsim_reg_origin origin, unsigned int *kick);

/* ---- gsim_sync_rights.c --------------------------------------------------- */

/* Offsets inside GAUDISIM_BLOCK_SYNC_MNGR that belong to the rights table. */
bool gsim_sync_rights_reg(uint32_t off);
bool gsim_sync_rights_read(struct gsim_core *core, uint32_t off, uint32_t *value);
enum gsim_reg_status gsim_sync_rights_write(struct gsim_core *core, uint32_t off,
					    uint32_t value, enum gsim_reg_origin origin);
/* The rights entry and generation a CB of queue req arming monitor m binds it to. */
void gsim_sync_rights_bind(struct gsim_core *core, unsigned int m, unsigned int req,
			   unsigned int *asid, uint32_t *gen);
/*
 * May the payload being written now (core->requester == GSIM_REQ_SYNC)
 * write the register at CFG offset off / this memory?
 */
bool gsim_sync_payload_reg_ok(const struct gsim_core *core, uint32_t off, uint32_t value);
bool gsim_sync_payload_mem_ok(const struct gsim_core *core, enum gsim_region rgn,
			      uint64_t addr, uint64_t len);

/* ---- gsim_eq.c ------------------------------------------------------------ */

void gsim_eq_reset(struct gsim_core *core);
/* Offsets inside GAUDISIM_BLOCK_EQ. */
bool gsim_eq_reg_read(struct gsim_core *core, uint32_t off, uint32_t *value);
enum gsim_reg_status gsim_eq_reg_write(struct gsim_core *core, uint32_t off, uint32_t value,
				       enum gsim_reg_origin origin, unsigned int *kick);
/*
 * Post an event (any thread holding the core, i.e. the main thread). It is
 * written at once when the EQ is enabled and has room, else dropped and
 * counted; the MSI-X vector follows at the end of the current register
 * access or run (gsim_eq_flush()).
 */
void gsim_eq_post_event(struct gsim_core *core, const struct gsim_event *ev);
void gsim_eq_post(struct gsim_core *core, unsigned int type, uint32_t engine,
		  uint32_t queue, uint32_t code, uint64_t addr);
/* Raise the EQ's MSI-X vector if events were written since the last one. */
void gsim_eq_flush(struct gsim_core *core);

/* ---- little-endian helpers ------------------------------------------------ */

static inline uint32_t gsim_ld_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t gsim_ld_le64(const uint8_t *p)
{
	return (uint64_t)gsim_ld_le32(p) | (uint64_t)gsim_ld_le32(p + 4) << 32;
}

static inline void gsim_st_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline void gsim_st_le64(uint8_t *p, uint64_t v)
{
	gsim_st_le32(p, (uint32_t)v);
	gsim_st_le32(p + 4, (uint32_t)(v >> 32));
}

#endif /* GSIM_CORE_INTERNAL_H */
