/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User interrupts: MSI-X vectors GAUDISIM_MSIX_VEC_USER_FIRST.. that a
 * process raises from its own work (USER_INTR written by a CB or a monitor
 * payload), and the WAIT_CS INTERRUPT waits that sleep on them.
 */
#ifndef __GAUDISIM_UIRQ_H__
#define __GAUDISIM_UIRQ_H__

#include <linux/atomic.h>
#include <linux/types.h>
#include <linux/wait.h>

#include <hw/gaudisim_hw_regs.h>
#include <uapi/drm/gaudisim_accel.h>

struct gaudisim_ctx;
struct gaudisim_device;
struct gaudisim_uirq;

/**
 * struct gaudisim_uirq_line - one user interrupt ID, or "any of them"
 * @wq: waiters of this ID
 * @count: interrupts seen since load; a waiter sleeps until it changes
 * @last_ns: CLOCK_MONOTONIC time of the latest, written before @count
 * @irq: Linux IRQ number; 0 when not requested (and for "any")
 * @owner: the set this line belongs to
 * @group: the "any" line of the shared context slot this interrupt
 *	belongs to, NULL when the device is not shared (or no slot has it)
 * @name: IRQ name
 */
struct gaudisim_uirq_line {
	wait_queue_head_t wq;
	atomic64_t count;
	u64 last_ns;
	int irq;
	struct gaudisim_uirq *owner;
	struct gaudisim_uirq_line *group;
	char name[24];
};

/**
 * struct gaudisim_uirq - the user interrupts of a device
 * @line: one per user interrupt, index = ID - GAUDISIM_MSIX_VEC_USER_FIRST
 * @any: every user interrupt also counts here (ANY_CQ_INTERRUPT waits)
 * @slot_any: shared devices: the interrupts of context slot i also count
 *	in @slot_any[i], that context's ANY_CQ_INTERRUPT line
 * @reset_gen: bumped by a device reset; waiters that saw it change abort
 */
struct gaudisim_uirq {
	struct gaudisim_uirq_line line[GAUDISIM_MSIX_NUM_USER];
	struct gaudisim_uirq_line any;
	struct gaudisim_uirq_line slot_any[GAUDISIM_MSIX_NUM_USER];
	atomic_t reset_gen;
};

int gaudisim_uirq_init(struct gaudisim_device *gdev);
void gaudisim_uirq_fini(struct gaudisim_device *gdev);
void gaudisim_uirq_reset(struct gaudisim_device *gdev);
int gaudisim_uirq_wait(struct gaudisim_device *gdev, struct gaudisim_ctx *ctx,
		       const struct gaudisim_wait_cs_in *in, unsigned long timeout,
		       struct gaudisim_wait_cs_out *out);

#endif /* __GAUDISIM_UIRQ_H__ */
