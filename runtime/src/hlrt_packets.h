/* SPDX-License-Identifier: MIT */
/*
 * A growable packet buffer for the command buffers the runtime builds
 * (recipes' per-engine CBs, external jobs). Layouts are the packet
 * contract (hw/gaudisim_hw_packets.h); an allocation failure sets oom and
 * later appends do nothing, so callers check once at the end.
 */
#ifndef HLRT_PACKETS_H
#define HLRT_PACKETS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

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

static inline void hlrt_pkt_put(struct hlrt_pkt_buf *b, const uint32_t *d, uint32_t n)
{
	uint32_t i;

	if (b->oom)
		return;
	if (b->n + n > b->cap) {
		uint32_t cap = b->cap * 2 + n;
		uint32_t *p = realloc(b->dw, sizeof(uint32_t) * cap);

		if (!p) {
			b->oom = true;
			return;
		}
		b->dw = p;
		b->cap = cap;
	}
	for (i = 0; i < n; i++)
		b->dw[b->n + i] = d[i];
	b->n += n;
}

/* Register write inside the queue's engine block. */
static inline void hlrt_pkt_wreg(struct hlrt_pkt_buf *b, uint32_t reg, uint32_t value,
				 uint32_t barriers)
{
	const uint32_t p[2] = {
		value,
		GAUDISIM_PKT_CTL(GAUDISIM_PKT_WREG_32) |
			(reg & GAUDISIM_WREG32_CTL_REG_OFFSET_MASK) | barriers,
	};

	hlrt_pkt_put(b, p, 2);
}

/* MSG_SHORT through CP_MSG_BASE<base> (0: monitor arrays, 1: sync objects). */
static inline void hlrt_pkt_msg_short(struct hlrt_pkt_buf *b, uint32_t base, uint32_t offset,
				      uint32_t value, uint32_t barriers)
{
	const uint32_t p[2] = {
		value,
		GAUDISIM_PKT_CTL(GAUDISIM_PKT_MSG_SHORT) | barriers |
			base << GAUDISIM_MSG_SHORT_CTL_BASE_SHIFT |
			(offset & GAUDISIM_MSG_SHORT_CTL_OFFSET_MASK),
	};

	hlrt_pkt_put(b, p, 2);
}

static inline void hlrt_pkt_sob(struct hlrt_pkt_buf *b, uint32_t sob, uint32_t so_upd,
				uint32_t barriers)
{
	hlrt_pkt_msg_short(b, 1, 4 * sob, so_upd, barriers);
}

static inline void hlrt_pkt_mon_reg(struct hlrt_pkt_buf *b, uint32_t reg, uint32_t value)
{
	hlrt_pkt_msg_short(b, 0, reg - GAUDISIM_SYNC_MON_BASE_OFFSET, value, 0);
}

/* Wait until fence[id] >= target, then subtract dec. */
static inline void hlrt_pkt_fence(struct hlrt_pkt_buf *b, uint32_t id, uint32_t target,
				  uint32_t dec)
{
	const uint32_t p[2] = {
		(dec << GAUDISIM_FENCE_DEC_VAL_SHIFT & GAUDISIM_FENCE_DEC_VAL_MASK) |
			(target << GAUDISIM_FENCE_TARGET_SHIFT & GAUDISIM_FENCE_TARGET_MASK) |
			(id << GAUDISIM_FENCE_ID_SHIFT & GAUDISIM_FENCE_ID_MASK),
		GAUDISIM_PKT_CTL(GAUDISIM_PKT_FENCE),
	};

	hlrt_pkt_put(b, p, 2);
}

static inline void hlrt_pkt_lin_dma(struct hlrt_pkt_buf *b, uint64_t src, uint64_t dst,
				    uint32_t size, bool memset, uint32_t barriers)
{
	const uint32_t p[6] = {
		size,
		GAUDISIM_PKT_CTL(GAUDISIM_PKT_LIN_DMA) | GAUDISIM_LIN_DMA_CTL_LIN |
			(memset ? GAUDISIM_LIN_DMA_CTL_MEMSET : 0) | barriers,
		(uint32_t)src, (uint32_t)(src >> 32),
		(uint32_t)dst, (uint32_t)(dst >> 32),
	};

	hlrt_pkt_put(b, p, 6);
}

/* MSG_LONG writing the 64-bit device clock to addr. */
static inline void hlrt_pkt_timestamp(struct hlrt_pkt_buf *b, uint64_t addr, uint32_t barriers)
{
	const uint32_t p[4] = {
		0,
		GAUDISIM_PKT_CTL(GAUDISIM_PKT_MSG_LONG) |
			(GAUDISIM_MSG_OP_WRITE_TIMESTAMP << GAUDISIM_MSG_CTL_OP_SHIFT) | barriers,
		(uint32_t)addr, (uint32_t)(addr >> 32),
	};

	hlrt_pkt_put(b, p, 4);
}

static inline void hlrt_pkt_nop(struct hlrt_pkt_buf *b)
{
	const uint32_t p[2] = { 0, GAUDISIM_PKT_CTL(GAUDISIM_PKT_NOP) };

	hlrt_pkt_put(b, p, 2);
}

#endif /* HLRT_PACKETS_H */
