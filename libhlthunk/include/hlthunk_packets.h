/* SPDX-License-Identifier: MIT */
/*
 * Packet builders for gaudisim command buffers.
 *
 * A struct hlthunk_cb_writer appends packets to a CB (usually the memory
 * returned by hlthunk_cb_mmap). Layouts (struct gaudisim_packet_*) and
 * field encoders come from hw/gaudisim_hw_packets.h, the ones the device
 * decodes with; packets are little-endian dwords. Every append
 * returns 0, or -ENOSPC and leaves the writer unchanged when the packet
 * does not fit. `barriers` is any mix of GAUDISIM_PKT_CTL_EB/RB/MB.
 */
#ifndef HLTHUNK_PACKETS_H
#define HLTHUNK_PACKETS_H

#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "hw/gaudisim_hw_packets.h"
#include "hw/gaudisim_hw_regs.h"

#ifdef __cplusplus
extern "C" {
#endif

struct hlthunk_cb_writer {
	uint8_t *base;
	uint32_t capacity;	/* bytes */
	uint32_t used;		/* bytes written so far = size to submit */
};

static inline void hlthunk_cbw_init(struct hlthunk_cb_writer *w, void *base,
				    uint32_t capacity)
{
	w->base = (uint8_t *)base;
	w->capacity = capacity;
	w->used = 0;
}

/* Append ndwords raw dwords (host order; stored little-endian). */
static inline int hlthunk_cbw_dwords(struct hlthunk_cb_writer *w,
				     const uint32_t *dwords, uint32_t ndwords)
{
	uint32_t i;

	if (ndwords > (w->capacity - w->used) / 4)
		return -ENOSPC;
	for (i = 0; i < ndwords; i++) {
		uint32_t le = htole32(dwords[i]);

		memcpy(w->base + w->used + 4 * i, &le, sizeof(le));
	}
	w->used += 4 * ndwords;
	return 0;
}

/* Append one packet already laid out little-endian (a struct gaudisim_packet_*). */
static inline int hlthunk_cbw_packet(struct hlthunk_cb_writer *w, const void *pkt,
				     uint32_t size)
{
	if (size > w->capacity - w->used)
		return -ENOSPC;
	memcpy(w->base + w->used, pkt, size);
	w->used += size;
	return 0;
}

static inline int hlthunk_cbw_nop(struct hlthunk_cb_writer *w, uint32_t barriers)
{
	const struct gaudisim_packet_nop pkt = {
		.ctl = htole32(GAUDISIM_PKT_CTL(GAUDISIM_PKT_NOP) | barriers),
	};

	return hlthunk_cbw_packet(w, &pkt, sizeof(pkt));
}

/*
 * LIN_DMA of size bytes from src to dst (device addresses). extra_ctl adds
 * LIN_DMA ctl bits beyond GAUDISIM_LIN_DMA_CTL_LIN, e.g. MEMSET.
 */
static inline int hlthunk_cbw_lin_dma(struct hlthunk_cb_writer *w, uint64_t src,
				      uint64_t dst, uint32_t size,
				      uint32_t extra_ctl, uint32_t barriers)
{
	const struct gaudisim_packet_lin_dma pkt = {
		.tsize = htole32(size),
		.ctl = htole32(gaudisim_lin_dma_ctl(extra_ctl, barriers)),
		.src = htole64(src),
		.dst = htole64(dst),
	};

	return hlthunk_cbw_packet(w, &pkt, sizeof(pkt));
}

/* Fill size bytes at dst with value (a LIN_DMA memset: src carries the value). */
static inline int hlthunk_cbw_memset(struct hlthunk_cb_writer *w, uint64_t dst,
				     uint8_t value, uint32_t size, uint32_t barriers)
{
	return hlthunk_cbw_lin_dma(w, value, dst, size,
				   GAUDISIM_LIN_DMA_CTL_MEMSET, barriers);
}

/* Shared body of MSG_LONG and MSG_PROT: op selects value or timestamp. */
static inline int hlthunk_cbw_msg(struct hlthunk_cb_writer *w, uint32_t opcode,
				  uint64_t addr, uint32_t value, uint32_t op,
				  uint32_t barriers)
{
	/* MSG_PROT has the same layout. */
	const struct gaudisim_packet_msg_long pkt = {
		.value = htole32(value),
		.ctl = htole32(gaudisim_msg_ctl(opcode, op, barriers)),
		.addr = htole64(addr),
	};

	return hlthunk_cbw_packet(w, &pkt, sizeof(pkt));
}

/* Write the 32-bit value to the device address addr. */
static inline int hlthunk_cbw_msg_long(struct hlthunk_cb_writer *w, uint64_t addr,
				       uint32_t value, uint32_t barriers)
{
	return hlthunk_cbw_msg(w, GAUDISIM_PKT_MSG_LONG, addr, value,
			       GAUDISIM_MSG_OP_WRITE_VALUE, barriers);
}

/* Write the 64-bit device clock to the device address addr. */
static inline int hlthunk_cbw_msg_long_timestamp(struct hlthunk_cb_writer *w,
						 uint64_t addr, uint32_t barriers)
{
	return hlthunk_cbw_msg(w, GAUDISIM_PKT_MSG_LONG, addr, 0,
			       GAUDISIM_MSG_OP_WRITE_TIMESTAMP, barriers);
}

/*
 * Raise user interrupt id (from HW_IP_INFO's first_available_interrupt_id),
 * behind a message barrier: the CB's earlier writes land first.
 */
static inline int hlthunk_cbw_user_interrupt(struct hlthunk_cb_writer *w, uint32_t id)
{
	return hlthunk_cbw_msg_long(w, GAUDISIM_CFG_BASE + GAUDISIM_REG_USER_INTR, id,
				    GAUDISIM_PKT_CTL_MB);
}

/* Block the stream until fence[id] >= target, then subtract dec_val. */
static inline int hlthunk_cbw_fence(struct hlthunk_cb_writer *w, uint32_t id,
				    uint32_t target, uint32_t dec_val,
				    uint32_t barriers)
{
	const struct gaudisim_packet_fence pkt = {
		.cfg = htole32(gaudisim_fence_cfg(id, target, dec_val)),
		.ctl = htole32(GAUDISIM_PKT_CTL(GAUDISIM_PKT_FENCE) | barriers),
	};

	return hlthunk_cbw_packet(w, &pkt, sizeof(pkt));
}

/* Write value to the register at reg_offset inside the queue's engine block. */
static inline int hlthunk_cbw_wreg32(struct hlthunk_cb_writer *w, uint32_t reg_offset,
				     uint32_t value, uint32_t barriers)
{
	const struct gaudisim_packet_wreg32 pkt = {
		.value = htole32(value),
		.ctl = htole32(gaudisim_wreg32_ctl(reg_offset, barriers)),
	};

	return hlthunk_cbw_packet(w, &pkt, sizeof(pkt));
}

/*
 * MSG_SHORT: write value at offset (bytes) in the block that the queue's
 * CP_MSG_BASE<base> register points to (the runtime's convention: 0 the
 * monitor arrays, 1 the sync objects).
 */
static inline int hlthunk_cbw_msg_short(struct hlthunk_cb_writer *w, uint32_t base,
					uint32_t offset, uint32_t value,
					uint32_t barriers)
{
	const struct gaudisim_packet_msg_short pkt = {
		.value = htole32(value),
		.ctl = htole32(gaudisim_msg_short_ctl(base, offset, barriers)),
	};

	return hlthunk_cbw_packet(w, &pkt, sizeof(pkt));
}

#ifdef __cplusplus
}
#endif

#endif /* HLTHUNK_PACKETS_H */
