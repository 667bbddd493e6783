/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Event queue: the ring of device events (errors, MMU faults, engine
 * timeouts, ECC, thermal, heartbeat answers) and the heartbeat.
 */
#ifndef __GAUDISIM_EQ_H__
#define __GAUDISIM_EQ_H__

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include <hw/gaudisim_hw_eq.h>
#include <uapi/drm/gaudisim_accel.h>

struct gaudisim_device;

#define GAUDISIM_EQ_LEN_LOG2	8
#define GAUDISIM_EQ_LEN		BIT(GAUDISIM_EQ_LEN_LOG2)

static_assert(GAUDISIM_EQ_LEN_LOG2 >= GAUDISIM_EQ_SIZE_LOG2_MIN);
static_assert(GAUDISIM_EQ_LEN_LOG2 <= GAUDISIM_EQ_SIZE_LOG2_MAX);

/* struct gaudisim_eq_entry with its byte order spelt out for sparse. */
struct gaudisim_eq_entry_le {
	__le32 ctl;
	__le32 engine;
	__le32 queue;
	__le32 code;
	__le64 addr;
	__le64 timestamp;
	__le32 data[GAUDISIM_EQ_DATA_WORDS];
};

static_assert(sizeof(struct gaudisim_eq_entry_le) == GAUDISIM_EQ_ENTRY_SIZE);

/* Events kept for the debugfs events file and the crash dump. */
#define GAUDISIM_EQ_HISTORY	64

/**
 * struct gaudisim_eq - the event queue and the heartbeat
 * @ring: GAUDISIM_EQ_LEN entries in coherent memory
 * @ring_dma: its bus address
 * @irq: Linux IRQ of GAUDISIM_MSIX_VEC_EQ, 0 when not requested
 * @lock: serialises consumers (IRQ thread, heartbeat, reset) over @ci
 * @ci: next entry to consume, modulo 2 * GAUDISIM_EQ_LEN
 * @counts: events received per type since load (INFO HW_EVENTS_AGGREGATE)
 * @counts_at_reset: @counts at the last hard reset (INFO HW_EVENTS)
 * @hist_lock: protects the event history (taken under @lock)
 * @hist_total: events recorded since load; entry n is at n % GAUDISIM_EQ_HISTORY
 * @hist: the most recent events, heartbeats left out
 * @hb_work: periodic heartbeat
 * @hb_sent: sequence number of the last heartbeat request
 * @hb_answered: the last one the device answered
 * @hb_pending: a request is outstanding
 */
struct gaudisim_eq {
	struct gaudisim_eq_entry_le *ring;
	dma_addr_t ring_dma;
	int irq;

	/* Serialises the consumers of the ring and the heartbeat state. */
	struct mutex lock;
	u32 ci;

	atomic_t counts[GAUDISIM_INFO_HW_EVENTS_NUM];
	u32 counts_at_reset[GAUDISIM_INFO_HW_EVENTS_NUM];

	/* Protects @hist_total and @hist. Nests inside @lock. */
	spinlock_t hist_lock;
	u64 hist_total;
	struct gaudisim_eq_entry_le hist[GAUDISIM_EQ_HISTORY];

	struct delayed_work hb_work;
	u32 hb_sent;
	u32 hb_answered;
	bool hb_pending;
};

int gaudisim_eq_init(struct gaudisim_device *gdev);
void gaudisim_eq_hw_init(struct gaudisim_device *gdev);
int gaudisim_eq_irq_init(struct gaudisim_device *gdev);
void gaudisim_eq_fini(struct gaudisim_device *gdev);
void gaudisim_eq_drain(struct gaudisim_device *gdev);
void gaudisim_eq_counts(struct gaudisim_device *gdev, u32 *counts, bool aggregate);
void gaudisim_eq_mark_reset(struct gaudisim_device *gdev);
/* Copy up to @max of the most recent events, oldest first; returns how many. */
unsigned int gaudisim_eq_last_events(struct gaudisim_device *gdev,
				     struct gaudisim_eq_entry_le *out, unsigned int max,
				     u64 *total);
/* Name of an event type ("MMU fault"). */
const char *gaudisim_event_str(u32 type);

#endif /* __GAUDISIM_EQ_H__ */
