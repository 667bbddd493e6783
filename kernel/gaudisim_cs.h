/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Command submissions: a CS is a set of jobs, one per chunk; a job is a
 * kernel copy of a user CB bound to an external queue.
 */
#ifndef __GAUDISIM_CS_H__
#define __GAUDISIM_CS_H__

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include <hw/gaudisim_hw_queues.h>
#include <uapi/drm/gaudisim_accel.h>

#include "gaudisim_cs_sigwait.h"

/* Why a command submission was refused (INFO CS_COUNTERS, in its order). */
enum gaudisim_cs_drop {
	GAUDISIM_DROP_OUT_OF_MEM,
	GAUDISIM_DROP_PARSING,
	GAUDISIM_DROP_QUEUE_FULL,
	GAUDISIM_DROP_DEVICE_IN_RESET,
	GAUDISIM_DROP_MAX_CS_IN_FLIGHT,
	GAUDISIM_DROP_VALIDATION,
	GAUDISIM_DROP_COUNT,
};

struct drm_device;
struct drm_file;
struct gaudisim_ctx;
struct gaudisim_cb;
struct gaudisim_device;
struct gaudisim_userptr;

/*
 * CSs in flight per context; a CS whose slot is still busy gets EAGAIN.
 * The slots (ctx->pending, 128 KiB) are allocated with the context.
 */
#define GAUDISIM_MAX_PENDING_CS	GAUDISIM_CS_MAX_PENDING
/*
 * Outcomes (status, timestamp) of retired CSs kept per context for late
 * WAIT_CS calls: as many as habanalabs keeps fences on Gaudi (its
 * max_pending_cs), so a WAIT_CS that gets an answer there gets it here.
 */
#define GAUDISIM_CS_OUTCOMES	16384
/*
 * Outcomes of TIMESTAMP CSs kept beyond that window, as habanalabs' outcome
 * store keeps them: the last 256, the oldest overwritten first; a WAIT_CS
 * that finds one there takes it out.
 */
#define GAUDISIM_CS_TS_OUTCOMES	256

static_assert((GAUDISIM_MAX_PENDING_CS & (GAUDISIM_MAX_PENDING_CS - 1)) == 0);
static_assert((GAUDISIM_CS_OUTCOMES & (GAUDISIM_CS_OUTCOMES - 1)) == 0);
static_assert((GAUDISIM_CS_TS_OUTCOMES & (GAUDISIM_CS_TS_OUTCOMES - 1)) == 0);

/**
 * struct gaudisim_job - one chunk of a CS
 * @cs: the CS (the job holds a reference on it)
 * @queue_id: queue ID
 * @internal: an internal-queue job: the device runs the user's CB at
 *            @cb_addr in place; no kernel CB, no completion of its own
 * @cb_addr: device address of the CB of an internal job
 * @iq_ticket: internal job: its place on the queue (gaudisim_iqueue_job_done())
 * @user_cb: the user CB it was copied from (reference, usage count)
 * @kcb: kernel CB: patched packets followed by the completion tail
 * @kcb_dma: its bus address
 * @kcb_size: bytes of @kcb the device runs (body + tail); for an internal
 *            job, the size of the CB at @cb_addr
 * @has_dma: the body contains a LIN_DMA (engine barrier on the tail)
 * @uptrs: userptr mappings the body addresses (one reference each)
 * @num_uptrs: entries in @uptrs
 * @sob_refs: driver sync objects the job signals or waits on, bit i for
 *            SOB GAUDISIM_SYNC_DRIVER_SOB_FIRST + i (one reference each)
 * @cq_entry: CQ entry that completed the job
 * @done_node: link in a list of jobs completed or aborted together
 */
struct gaudisim_job {
	struct gaudisim_cs *cs;
	u32 queue_id;
	bool internal;
	u64 cb_addr;
	u64 iq_ticket;
	struct gaudisim_cb *user_cb;
	void *kcb;
	dma_addr_t kcb_dma;
	u32 kcb_size;
	bool has_dma;
	struct gaudisim_userptr **uptrs;
	u32 num_uptrs;
	u16 sob_refs;
	u32 cq_entry;
	struct list_head done_node;
};

enum gaudisim_cs_type {
	GAUDISIM_CS_TYPE_DEFAULT,
	GAUDISIM_CS_TYPE_SIGNAL,
	GAUDISIM_CS_TYPE_WAIT,
};

/**
 * struct gaudisim_cs - a command submission
 * @ref: held by the submitter, each job, the pending table, the TDR
 *       and waiters
 * @ctx: owning context (reference)
 * @seq: sequence number; 0 for the internal restore-phase CS
 * @flags: GAUDISIM_CS_FLAGS_*
 * @timeout_s: seconds before the CS times out, 0 for never
 * @start_ns: CLOCK_MONOTONIC time it was pushed (fdinfo engine time)
 * @jobs_left: jobs not yet completed
 * @signalled: the outcome is final (under ctx->cs_lock)
 * @status: 0, -EIO or -ETIMEDOUT (under ctx->cs_lock)
 * @timestamp_ns: CLOCK_MONOTONIC time of the outcome (under ctx->cs_lock)
 * @done: completed when the outcome is final
 * @tdr: timeout work; it stays armed after an error outcome while jobs
 *       of the CS may still be on the device (gaudisim_cs_tdr_work())
 * @type: default, SIGNAL or WAIT (gaudisim_cs_sigwait.c)
 * @sig_sob: SIGNAL: the sync object it adds 1 to
 * @sig_value: SIGNAL: the value that SOB holds once the signal happened
 * @wait_seqs: WAIT: the signal seqs, copied from the user
 * @num_wait_seqs: WAIT: entries in @wait_seqs
 * @encap_offset: WAIT with ENCAP_SIGNALS: the reserved signals to wait for
 * @encap: CS with ENCAP_SIGNALS (a staged part: its head's): the SOB its
 *         jobs may add to
 * @staged_head: a later part of a staged submission: the CS of its
 *               FIRST part, whose outcome its jobs count towards (reference)
 * @staged_open: a staged CS whose LAST part has not come: 1, and one
 *               more in @jobs_left; dropped by the LAST part
 * @staged_internal: a part of this staged CS has internal jobs
 * @linger_node: in gaudisim_device.cs_linger while its timeout stays armed
 *               after an error outcome
 * @num_ext_jobs: jobs on external queues (the ones that complete)
 * @num_jobs: entries in @jobs
 * @jobs: the jobs
 */
struct gaudisim_cs {
	struct kref ref;
	struct gaudisim_ctx *ctx;
	u64 seq;
	u32 flags;
	u32 timeout_s;
	u64 start_ns;
	atomic_t jobs_left;
	bool signalled;
	int status;
	u64 timestamp_ns;
	struct completion done;
	struct delayed_work tdr;
	enum gaudisim_cs_type type;
	u16 sig_sob;
	u16 sig_value;
	u64 wait_seqs[GAUDISIM_CS_WAIT_MAX_SIGNALS];
	u32 num_wait_seqs;
	u32 encap_offset;
	struct gaudisim_encap_info encap;
	struct gaudisim_cs *staged_head;
	atomic_t staged_open;
	bool staged_internal;
	struct list_head linger_node;
	u32 num_ext_jobs;
	u32 num_jobs;
	struct gaudisim_job jobs[] __counted_by(num_jobs);
};

/* What a retired CS left behind for WAIT_CS. */
struct gaudisim_cs_outcome {
	u64 seq;
	int status;
	bool timestamp_valid;
	bool is_signal;
	u64 timestamp_ns;
};

int gaudisim_job_alloc_kcb(struct gaudisim_job *job, u32 size);
struct gaudisim_cs *gaudisim_cs_alloc(struct gaudisim_ctx *ctx, u32 num_jobs,
				      u32 flags, u32 timeout_s);
int gaudisim_cs_push(struct gaudisim_cs *cs, bool user);
void gaudisim_cs_discard(struct gaudisim_cs *cs);
void gaudisim_cs_put(struct gaudisim_cs *cs);
void gaudisim_cs_count_drop(struct gaudisim_ctx *ctx, enum gaudisim_cs_drop why);

void gaudisim_job_complete(struct gaudisim_job *job);
void gaudisim_job_abort(struct gaudisim_job *job, int err);

void gaudisim_cs_flush_lingering(struct gaudisim_device *gdev, struct gaudisim_ctx *ctx);
int gaudisim_cs_run_driver_cb(struct gaudisim_ctx *ctx, u32 queue_id, const void *body,
			      u32 size, u32 timeout_s);
int gaudisim_cs_ioctl(struct drm_device *drm, void *data, struct drm_file *file);
int gaudisim_wait_cs_ioctl(struct drm_device *drm, void *data, struct drm_file *file);

#endif /* __GAUDISIM_CS_H__ */
