/* SPDX-License-Identifier: MIT */
/*
 * A growable command buffer for the packets the runtime builds (recipes'
 * per-engine CBs, external jobs, collectives, monitor set-up). Packets are
 * built by libhlthunk's writer (hlthunk_packets.h) at the buffer's tail;
 * this only adds growth: an allocation failure sets oom and later appends
 * do nothing, so callers check once at the end.
 */
#ifndef HLRT_CB_H
#define HLRT_CB_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "hlthunk_packets.h"
#include "hw/gaudisim_hw_packets.h"
#include "hw/gaudisim_hw_sync.h"

struct hlrt_pkt_buf {
	uint32_t *dw;
	uint32_t n, cap;	/* dwords */
	bool oom;
};

static inline int hlrt_pkt_init(struct hlrt_pkt_buf *b, uint32_t cap)
{
	b->dw = malloc(sizeof(uint32_t) * cap);
	b->n = 0;
	b->cap = cap;
	b->oom = !b->dw;
	return b->oom ? -1 : 0;
}

static inline void hlrt_pkt_free(struct hlrt_pkt_buf *b)
{
	free(b->dw);
	b->dw = NULL;
	b->n = b->cap = 0;
}

/* Room for n more dwords; false (and oom) when there is none. */
static inline bool hlrt_pkt_reserve(struct hlrt_pkt_buf *b, uint32_t n)
{
	if (b->oom)
		return false;
	if (b->n + n > b->cap) {
		uint32_t cap = b->cap * 2 + n;
		uint32_t *p = realloc(b->dw, sizeof(uint32_t) * cap);

		if (!p) {
			b->oom = true;
			return false;
		}
		b->dw = p;
		b->cap = cap;
	}
	return true;
}

/* A libhlthunk writer over the reserved tail; hlrt_pkt_commit takes what it wrote. */
static inline struct hlthunk_cb_writer hlrt_pkt_tail(struct hlrt_pkt_buf *b)
{
	struct hlthunk_cb_writer w;

	hlthunk_cbw_init(&w, b->dw + b->n, 4 * (b->cap - b->n));
	return w;
}

static inline void hlrt_pkt_commit(struct hlrt_pkt_buf *b, const struct hlthunk_cb_writer *w)
{
	b->n += w->used / 4;
}

/* Append one packet: reserve its size, build it with call on writer w, commit. */
#define HLRT_PKT(b, size, call) \
	do { \
		if (hlrt_pkt_reserve((b), (size) / 4)) { \
			struct hlthunk_cb_writer w = hlrt_pkt_tail(b); \
			(void)(call); \
			hlrt_pkt_commit((b), &w); \
		} \
	} while (0)

/* Register write inside the queue's engine block. */
static inline void hlrt_pkt_wreg(struct hlrt_pkt_buf *b, uint32_t reg, uint32_t value,
				 uint32_t barriers)
{
	HLRT_PKT(b, GAUDISIM_PKT_SIZE_WREG_32, hlthunk_cbw_wreg32(&w, reg, value, barriers));
}

/* Add (or set) a sync object: MSG_SHORT through CP_MSG_BASE1. */
static inline void hlrt_pkt_sob(struct hlrt_pkt_buf *b, uint32_t sob, uint32_t so_upd,
				uint32_t barriers)
{
	HLRT_PKT(b, GAUDISIM_PKT_SIZE_MSG_SHORT,
		 hlthunk_cbw_msg_short(&w, 1, 4 * sob, so_upd, barriers));
}

/* A monitor register: MSG_SHORT through CP_MSG_BASE0. */
static inline void hlrt_pkt_mon_reg(struct hlrt_pkt_buf *b, uint32_t reg, uint32_t value)
{
	HLRT_PKT(b, GAUDISIM_PKT_SIZE_MSG_SHORT,
		 hlthunk_cbw_msg_short(&w, 0, reg - GAUDISIM_SYNC_MON_BASE_OFFSET, value, 0));
}

/* Wait until fence[id] >= target, then subtract dec. */
static inline void hlrt_pkt_fence(struct hlrt_pkt_buf *b, uint32_t id, uint32_t target,
				  uint32_t dec)
{
	HLRT_PKT(b, GAUDISIM_PKT_SIZE_FENCE, hlthunk_cbw_fence(&w, id, target, dec, 0));
}

static inline void hlrt_pkt_lin_dma(struct hlrt_pkt_buf *b, uint64_t src, uint64_t dst,
				    uint32_t size, bool memset, uint32_t barriers)
{
	HLRT_PKT(b, GAUDISIM_PKT_SIZE_LIN_DMA,
		 hlthunk_cbw_lin_dma(&w, src, dst, size, memset ? GAUDISIM_LIN_DMA_CTL_MEMSET : 0,
				     barriers));
}

/* MSG_LONG writing the 64-bit device clock to addr. */
static inline void hlrt_pkt_timestamp(struct hlrt_pkt_buf *b, uint64_t addr, uint32_t barriers)
{
	HLRT_PKT(b, GAUDISIM_PKT_SIZE_MSG_LONG, hlthunk_cbw_msg_long_timestamp(&w, addr, barriers));
}

static inline void hlrt_pkt_nop(struct hlrt_pkt_buf *b)
{
	HLRT_PKT(b, GAUDISIM_PKT_SIZE_NOP, hlthunk_cbw_nop(&w, 0));
}

/*
 * The one monitor wait: arm the queue's monitors pool[0..pool_n) with the
 * n arm words (GAUDISIM_SYNC_MON_ARM_*), a FENCE on fence 0 after every
 * pool-full and after the last, so the queue goes on once every condition
 * holds. The monitors' payload adds 1 to that fence (hlrt_device_queue_monitors).
 */
static inline void hlrt_pkt_wait(struct hlrt_pkt_buf *b, const uint32_t *pool, uint32_t pool_n,
				 const uint32_t *arms, uint32_t n)
{
	uint32_t i, armed = 0;

	for (i = 0; i < n; i++) {
		if (armed == pool_n) {
			hlrt_pkt_fence(b, 0, armed, armed);
			armed = 0;
		}
		hlrt_pkt_mon_reg(b, GAUDISIM_SYNC_MON_ARM(pool[armed]), arms[i]);
		armed++;
	}
	if (armed)
		hlrt_pkt_fence(b, 0, armed, armed);
}

#endif /* HLRT_CB_H */
