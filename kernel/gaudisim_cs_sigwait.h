/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SIGNAL and WAIT command submissions: the driver's sync objects per
 * external queue, signal values, wait CBs.
 */
#ifndef __GAUDISIM_CS_SIGWAIT_H__
#define __GAUDISIM_CS_SIGWAIT_H__

#include <linux/atomic.h>
#include <linux/types.h>

#include <hw/gaudisim_hw_queues.h>

struct gaudisim_cs;
struct gaudisim_cs_in;
struct gaudisim_cs_out;
struct gaudisim_ctx;
struct gaudisim_device;

/* Driver sync objects of the SIGNAL/WAIT CSs: two per external queue. */
#define GAUDISIM_SIGWAIT_SOBS_PER_QUEUE	2
#define GAUDISIM_SIGWAIT_NUM_SOBS \
	(GAUDISIM_NUM_EXT_QUEUES * GAUDISIM_SIGWAIT_SOBS_PER_QUEUE)

/**
 * struct gaudisim_sigwait - device-wide state of SIGNAL/WAIT CSs
 * @curr: per external queue, which of its two sync objects signals go to
 * @count: per external queue, the value that SOB holds once every SIGNAL
 *         queued so far has run
 * @users: per driver SOB, jobs not yet done that signal or watch it; a
 *         SOB is zeroed and reused (wraparound) only when it has none
 *
 * @curr and @count are under gdev->submit_lock; @users is atomic (jobs
 * finish from interrupt threads).
 */
struct gaudisim_sigwait {
	u16 curr[GAUDISIM_NUM_EXT_QUEUES];
	u16 count[GAUDISIM_NUM_EXT_QUEUES];
	atomic_t users[GAUDISIM_SIGWAIT_NUM_SOBS];
};

int gaudisim_cs_sigwait_submit(struct gaudisim_ctx *ctx, const struct gaudisim_cs_in *in,
			       u32 timeout_s, struct gaudisim_cs_out *out);
int gaudisim_cs_sigwait_prepare(struct gaudisim_cs *cs);
void gaudisim_sigwait_put_sobs(struct gaudisim_device *gdev, u16 sob_refs);
void gaudisim_sigwait_hw_reset(struct gaudisim_device *gdev);

#endif /* __GAUDISIM_CS_SIGWAIT_H__ */
