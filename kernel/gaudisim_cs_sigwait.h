/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SIGNAL and WAIT command submissions: the driver's sync objects per
 * external queue, signal values, wait CBs.
 */
#ifndef __GAUDISIM_CS_SIGWAIT_H__
#define __GAUDISIM_CS_SIGWAIT_H__

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/types.h>

#include <hw/gaudisim_hw_queues.h>
#include <uapi/drm/gaudisim_accel.h>

struct gaudisim_cs;
struct gaudisim_cs_in;
struct gaudisim_cs_out;
struct gaudisim_ctx;
struct gaudisim_device;

/* Driver sync objects of the SIGNAL/WAIT CSs: two per external queue. */
#define GAUDISIM_SIGWAIT_SOBS_PER_QUEUE	2
#define GAUDISIM_SIGWAIT_NUM_SOBS \
	(GAUDISIM_NUM_EXT_QUEUES * GAUDISIM_SIGWAIT_SOBS_PER_QUEUE)

/*
 * Reservations of encapsulated signals one context may hold at once: a
 * struct gaudisim_encap each (64 KiB per context at most).
 */
#define GAUDISIM_ENCAP_MAX_PER_CTX	GAUDISIM_CS_ENCAP_MAX_RESERVATIONS

/**
 * struct gaudisim_encap - signals reserved on an external queue's SOB
 * @node: in gdev->sigwait.encaps
 * @ctx: the context that reserved them (removed before it is freed)
 * @id: the handle, unique in the device, never 0
 * @queue_id: the external queue
 * @sob: the driver SOB (one reference in sigwait.users); 0 once a hard
 *       reset zeroed it
 * @pre: the SOB's value before the first reserved signal
 * @count: signals reserved
 * @cs_seq: the last CS submitted with the handle, 0 before one
 */
struct gaudisim_encap {
	struct list_head node;
	struct gaudisim_ctx *ctx;
	u32 id;
	u32 queue_id;
	u16 sob;
	u16 pre;
	u16 count;
	u64 cs_seq;
};

/**
 * struct gaudisim_encap_info - what a CS with ENCAP_SIGNALS may signal
 * @id: the handle (0: none)
 * @sob: the SOB its jobs may add to
 * @count: the most one job may add
 * @pre: the SOB's value before the reservation
 */
struct gaudisim_encap_info {
	u32 id;
	u16 sob;
	u16 count;
	u16 pre;
};

/**
 * struct gaudisim_sigwait - device-wide state of SIGNAL/WAIT CSs
 * @curr: per external queue, which of its two sync objects signals go to
 * @count: per external queue, the value that SOB holds once every SIGNAL
 *         queued so far has run
 * @users: per driver SOB, jobs not yet done that signal or watch it and
 *         reservations on it; a SOB is zeroed and reused (wraparound)
 *         only when it has none
 * @encaps: reservations of encapsulated signals (struct gaudisim_encap)
 * @next_encap_id: the handle the next reservation gets
 *
 * @curr, @count, @encaps and @next_encap_id are under gdev->submit_lock;
 * @users is atomic (jobs finish from interrupt threads).
 */
struct gaudisim_sigwait {
	u16 curr[GAUDISIM_NUM_EXT_QUEUES];
	u16 count[GAUDISIM_NUM_EXT_QUEUES];
	atomic_t users[GAUDISIM_SIGWAIT_NUM_SOBS];
	struct list_head encaps;
	u32 next_encap_id;
};

int gaudisim_cs_sigwait_submit(struct gaudisim_ctx *ctx, const struct gaudisim_cs_in *in,
			       u32 timeout_s, struct gaudisim_cs_out *out);
int gaudisim_cs_sigwait_prepare(struct gaudisim_cs *cs);
void gaudisim_sigwait_put_sobs(struct gaudisim_device *gdev, u16 sob_refs);
void gaudisim_sigwait_hw_reset(struct gaudisim_device *gdev);
void gaudisim_sigwait_init(struct gaudisim_device *gdev);
int gaudisim_encap_reserve(struct gaudisim_ctx *ctx, const struct gaudisim_cs_in *in,
			   struct gaudisim_cs_out *out);
int gaudisim_encap_unreserve(struct gaudisim_ctx *ctx, const struct gaudisim_cs_in *in);
int gaudisim_encap_get(struct gaudisim_ctx *ctx, u32 id, struct gaudisim_encap_info *info);
int gaudisim_encap_check(struct gaudisim_ctx *ctx, const struct gaudisim_encap_info *info);
void gaudisim_encap_bind(struct gaudisim_ctx *ctx, u32 id, u64 seq);
void gaudisim_encap_ctx_fini(struct gaudisim_ctx *ctx);

#endif /* __GAUDISIM_CS_SIGWAIT_H__ */
