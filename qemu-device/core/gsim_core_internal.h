/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: private state shared by the core's source files.
 *
 * Layout of the core:
 *   gsim_core.c     creation, configuration checks, reset, the run loop,
 *                   guest-error formatting
 *   gsim_regs.c     the CFG BAR register file (global block + QMAN blocks)
 *   gsim_qman.c     per-stream command processor: PQ entry fetch, CB fetch,
 *                   packet sequencing, fences, error completion
 *   gsim_packets.c  execution of one packet
 *   gsim_dma.c      device address decoding and data movement
 *
 * Nothing here is visible to the QEMU glue or the tests; they use
 * gsim_core.h only.
 */
#ifndef GSIM_CORE_INTERNAL_H
#define GSIM_CORE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "gsim_core.h"
#include "hw/gaudisim_packets.h"
#include "hw/gaudisim_queues.h"
#include "hw/gaudisim_regs.h"

/* Only the two PCI-DMA QMANs (external queues 0..7) are implemented. */
#define GSIM_NUM_QMANS		GAUDISIM_NUM_PCI_DMA
#define GSIM_NUM_STREAMS	(GSIM_NUM_QMANS * GAUDISIM_STREAMS_PER_QMAN)
_Static_assert(GSIM_NUM_STREAMS == GAUDISIM_NUM_EXT_QUEUES,
	       "the PCI-DMA QMAN streams are exactly the external queues");

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
#define GSIM_SLICE_PACKETS	256u

/* Staging buffer for the transfers that need one (host->host, memset). */
#define GSIM_BOUNCE_SIZE	(1u << 20)

struct gsim_budget {
	uint64_t bytes;
	uint32_t packets;
};

static inline bool gsim_budget_left(const struct gsim_budget *b)
{
	return b->bytes > 0 && b->packets > 0;
}

static inline void gsim_budget_take_bytes(struct gsim_budget *b, uint64_t n)
{
	b->bytes = n >= b->bytes ? 0 : b->bytes - n;
}

/* One upper CP: a PQ feeding CBs to a packet processor. */
struct gsim_stream {
	unsigned int queue_id;
	unsigned int engine;		/* engine block index */
	unsigned int index;		/* stream index inside its QMAN */

	/* Registers. */
	uint32_t pq_base_lo;
	uint32_t pq_base_hi;
	uint32_t pq_size_log2;		/* 0 = not programmed */
	uint32_t pi;			/* modulo 2 * entries */
	uint32_t ci;			/* modulo 2 * entries */
	uint32_t fence[GAUDISIM_QM_NUM_FENCES];
	uint32_t last_err;		/* GAUDISIM_CP_ERR_*, CP_STS[15:8] */
	uint64_t err_addr;		/* CB address of the last error */
	uint32_t err_cnt;

	/* The CB being executed, if active. */
	bool active;
	bool fence_wait;		/* parked on a FENCE packet */
	unsigned int wait_fence_id;
	uint32_t wait_target;
	bool has_tail;			/* last 32 bytes are the completion tail */
	bool in_tail;			/* executing the tail */
	uint8_t tail_err;		/* error code OR-ed into the tail, 0 if none */
	uint64_t cb_addr;		/* device address */
	uint32_t cb_len;
	uint32_t body_end;		/* cb_len, or cb_len - tail size */
	uint32_t pc;			/* offset of the current packet */
	uint64_t pkt_done;		/* bytes of the current LIN_DMA already moved */
	uint8_t pkt_err;		/* error code of the packet that failed */
	uint8_t *cb;			/* GSIM_CB_MAX_LEN bytes */
};

struct gsim_qman {
	uint32_t glbl_cfg0;		/* stream enable bits */
	struct gsim_stream stream[GAUDISIM_STREAMS_PER_QMAN];
};

struct gsim_core {
	struct gsim_host_ops ops;
	void *opaque;

	uint64_t hbm_size;
	uint64_t hbm_bar_size;
	uint8_t *hbm;
	uint8_t *sram;
	uint8_t *bounce;

	/* Global registers. */
	uint64_t hbm_window;
	uint32_t hbm_window_lo_latch;	/* applied by the HI write */
	uint32_t hw_state;
	bool reset_pending;		/* RESET written, gsim_core_reset() not yet called */
	uint32_t timestamp_hi_latch;
	uint32_t err_pkt_cnt;
	uint32_t err_dma_cnt;
	uint32_t err_pq_cnt;
	uint64_t dma_bytes;
	uint32_t cb_done_cnt;

	struct gsim_qman qman[GSIM_NUM_QMANS];
	unsigned int rr_next;		/* first stream of the next run round */
};

/* ---- gsim_core.c ---------------------------------------------------------- */

void gsim_log(struct gsim_core *core, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
struct gsim_stream *gsim_stream_by_queue(struct gsim_core *core, unsigned int queue_id);

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
};

enum gsim_reg_status gsim_regs_write(struct gsim_core *core, uint32_t offset,
				     uint32_t value, enum gsim_reg_origin origin,
				     unsigned int *kick);
const char *gsim_reg_status_str(enum gsim_reg_status st);

/* ---- gsim_qman.c ---------------------------------------------------------- */

void gsim_stream_init(struct gsim_stream *s, unsigned int engine, unsigned int index);
void gsim_stream_reset(struct gsim_stream *s);
uint32_t gsim_stream_entries(const struct gsim_stream *s);
bool gsim_stream_busy(const struct gsim_stream *s);
bool gsim_stream_runnable(const struct gsim_core *core, const struct gsim_stream *s);
/* Add to a fence counter; true when a stream parked on it may now resume. */
bool gsim_stream_fence_add(struct gsim_stream *s, unsigned int fence, uint32_t value);
/* Run one slice of a runnable stream. */
void gsim_stream_step(struct gsim_core *core, struct gsim_stream *s,
		      struct gsim_budget *budget);

/* ---- gsim_packets.c ------------------------------------------------------- */

enum gsim_pkt_result {
	GSIM_PKT_NEXT,		/* done; s->pc moved past it */
	GSIM_PKT_YIELD,		/* partly done (budget); run it again */
	GSIM_PKT_BLOCKED,	/* FENCE not satisfied; s->fence_wait set */
	GSIM_PKT_ERROR,		/* failed; s->pkt_err holds the code, already logged */
};

/* Execute the packet at s->pc; the packet must end at or before 'end'. */
enum gsim_pkt_result gsim_pkt_exec(struct gsim_core *core, struct gsim_stream *s,
				   uint32_t end, struct gsim_budget *budget);
const char *gsim_pkt_name(unsigned int opcode);

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
	uint64_t off;		/* HOST: bus address; CFG: register offset */
};

/* Decode [addr, addr + len); false when it is not inside one region. */
bool gsim_dma_decode(const struct gsim_core *core, uint64_t addr, uint64_t len,
		     struct gsim_span *span);
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
