// SPDX-License-Identifier: GPL-2.0
/*
 * Command submission: CS and WAIT_CS ioctls, job completion, CS timeouts.
 *
 * Life of a CS: the ioctl copies the chunks, builds one job per chunk
 * (validated kernel CB, see gaudisim_parser.c), then under
 * gdev->submit_lock takes a sequence number, reserves the PQ slots, arms
 * the timeout and rings the doorbells. The outcome is final when every
 * job completed, when a job reported an error (-EIO), when the timeout
 * fired (-ETIMEDOUT) or when a reset aborted it (-EIO). Jobs keep their
 * kernel CBs and mappings until the device is done with them, even after
 * the CS's outcome is known.
 */

#include <linux/bitmap.h>
#include <linux/dma-mapping.h>
#include <linux/jiffies.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>

#include <hw/gaudisim_hw_gaudi_map.h>

#include "gaudisim_cb.h"
#include "gaudisim_coredump.h"
#include "gaudisim_cs.h"
#include "gaudisim_cs_sigwait.h"
#include "gaudisim_ctx.h"
#include "gaudisim_drv.h"
#include "gaudisim_fdinfo.h"
#include "gaudisim_mem.h"
#include "gaudisim_notify.h"
#include "gaudisim_parser.h"
#include "gaudisim_queue.h"
#include "gaudisim_reset.h"
#include "gaudisim_uirq.h"

#define GAUDISIM_CS_TIMEOUT_MAX_S	3600
/*
 * Kernel CB memory (coherent DMA memory) the jobs of one context may hold
 * at once; the patched copies of 128 user CBs of the largest size.
 */
#define GAUDISIM_CTX_KCB_BYTES_MAX	SZ_256M

static void gaudisim_cs_release(struct kref *ref)
{
	struct gaudisim_cs *cs = container_of(ref, struct gaudisim_cs, ref);

	if (cs->staged_head)
		gaudisim_cs_put(cs->staged_head);
	gaudisim_ctx_put(cs->ctx);
	kvfree(cs);
}

void gaudisim_cs_put(struct gaudisim_cs *cs)
{
	kref_put(&cs->ref, gaudisim_cs_release);
}

/*
 * May jobs of @cs still be on the device? External jobs that have not
 * completed (of any part of a staged CS, which may still get parts), or
 * internal jobs (they have no completion of their own).
 */
static bool gaudisim_cs_may_linger(struct gaudisim_cs *cs)
{
	return atomic_read(&cs->jobs_left) || cs->num_jobs != cs->num_ext_jobs ||
	       READ_ONCE(cs->staged_internal);
}

/* Off gaudisim_device.cs_linger; before the TDR's reference goes. */
static void gaudisim_cs_unlinger(struct gaudisim_cs *cs)
{
	struct gaudisim_device *gdev = cs->ctx->gdev;

	spin_lock(&gdev->cs_linger_lock);
	list_del_init(&cs->linger_node);
	spin_unlock(&gdev->cs_linger_lock);
}

static void gaudisim_cs_cancel_tdr(struct gaudisim_cs *cs)
{
	if (cancel_delayed_work(&cs->tdr)) {
		gaudisim_cs_unlinger(cs);
		gaudisim_cs_put(cs);
	}
}

/**
 * gaudisim_cs_flush_lingering() - end the timeouts failed CSs left armed
 * @gdev: the device
 * @ctx: only the CSs of this context; NULL for all
 *
 * For a closing context once none of its jobs is on the device, and at
 * removal once the device is stopped. Process context, no lock held: it
 * waits for a timeout that is running.
 */
void gaudisim_cs_flush_lingering(struct gaudisim_device *gdev, struct gaudisim_ctx *ctx)
{
	struct gaudisim_cs *cs, *it;

	for (;;) {
		cs = NULL;
		spin_lock(&gdev->cs_linger_lock);
		list_for_each_entry(it, &gdev->cs_linger, linger_node) {
			if (!ctx || it->ctx == ctx) {
				cs = it;
				break;
			}
		}
		/* On the list, the TDR's reference keeps it: take our own. */
		if (cs) {
			list_del_init(&cs->linger_node);
			kref_get(&cs->ref);
		}
		spin_unlock(&gdev->cs_linger_lock);
		if (!cs)
			return;
		if (cancel_delayed_work_sync(&cs->tdr))
			gaudisim_cs_put(cs);
		gaudisim_cs_put(cs);
	}
}

/*
 * Make the outcome of @cs final. Only the first call counts; it returns
 * true. -ETIMEDOUT comes from the TDR only (process context). Drops the
 * pending-table reference, and the TDR's unless an error left jobs of the
 * CS on the device: the TDR then ends them as it ends a CS that timed out
 * (gaudisim_cs_tdr_work()).
 */
static bool gaudisim_cs_signal(struct gaudisim_cs *cs, int status)
{
	struct gaudisim_ctx *ctx = cs->ctx;
	struct gaudisim_cs_counters *cnt = &ctx->gdev->cs_cnt;
	bool linger;

	spin_lock(&ctx->cs_lock);
	if (cs->signalled) {
		spin_unlock(&ctx->cs_lock);
		return false;
	}
	cs->signalled = true;
	/* Listed before a TDR that is running can look for it (it signals first). */
	linger = status && cs->timeout_s && gaudisim_cs_may_linger(cs);
	if (linger) {
		spin_lock(&ctx->gdev->cs_linger_lock);
		list_add_tail(&cs->linger_node, &ctx->gdev->cs_linger);
		spin_unlock(&ctx->gdev->cs_linger_lock);
	}
	cs->status = status;
	cs->timestamp_ns = ktime_get_ns();
	if (cs->seq) {
		struct gaudisim_cs_outcome *o =
			&ctx->outcomes[cs->seq & (GAUDISIM_CS_OUTCOMES - 1)];

		o->seq = cs->seq;
		o->status = status;
		o->timestamp_valid = cs->flags & GAUDISIM_CS_FLAGS_TIMESTAMP;
		o->timestamp_ns = cs->timestamp_ns;
		o->is_signal = cs->type == GAUDISIM_CS_TYPE_SIGNAL;
		if (o->timestamp_valid)
			ctx->ts_outcomes[ctx->ts_next++ & (GAUDISIM_CS_TS_OUTCOMES - 1)] = *o;
		ctx->pending[cs->seq & (GAUDISIM_MAX_PENDING_CS - 1)] = NULL;
	}
	spin_unlock(&ctx->cs_lock);

	/* Counted, and a timeout recorded, before a waiter can ask about it. */
	if (cs->seq) {
		if (!status) {
			atomic64_inc(&cnt->completed);
		} else if (status == -EIO) {
			atomic64_inc(&cnt->errors);
		} else if (status == -ETIMEDOUT) {
			atomic64_inc(&cnt->timed_out);
			gaudisim_capture_cs_timeout(ctx->gdev, ctx->asid, cs->seq);
		}
	}

	complete_all(&cs->done);
	if (cs->seq)
		wake_up_all(&ctx->cs_done_wq);

	if (!linger)
		gaudisim_cs_cancel_tdr(cs);
	if (cs->seq)
		gaudisim_cs_put(cs);
	return true;
}

/* Count a refused CS device-wide and for its context (INFO CS_COUNTERS). */
void gaudisim_cs_count_drop(struct gaudisim_ctx *ctx, enum gaudisim_cs_drop why)
{
	atomic64_inc(&ctx->gdev->cs_cnt.drop[why]);
	atomic64_inc(&ctx->drop[why]);
}

/*
 * Are jobs of @cs still on the device, its outcome an error? Internal jobs
 * are looked up on their queues.
 */
static bool gaudisim_cs_on_device(struct gaudisim_cs *cs)
{
	struct gaudisim_device *gdev = cs->ctx->gdev;
	/* An open staged CS counts one more, for the LAST part to come. */
	bool on = atomic_read(&cs->jobs_left) > atomic_read(&cs->staged_open);
	int idx;
	u32 i;

	/* Internal jobs of later parts are not looked up: assume they run. */
	if (READ_ONCE(cs->staged_internal))
		return true;
	if (on || cs->num_jobs == cs->num_ext_jobs)
		return on;
	/* After removal the device was stopped: nothing runs. */
	if (!drm_dev_enter(&gdev->drm, &idx))
		return false;
	mutex_lock(&gdev->submit_lock);
	for (i = 0; !on && i < cs->num_jobs; i++) {
		const struct gaudisim_job *job = &cs->jobs[i];

		on = job->internal &&
		     !gaudisim_iqueue_job_done(&gdev->iqueues[job->queue_id], job->iq_ticket);
	}
	mutex_unlock(&gdev->submit_lock);
	drm_dev_exit(idx);
	return on;
}

/*
 * The CS's timeout: it has not finished, or it failed while some of its
 * jobs stayed on the device (a sibling parked on a FENCE the failed job
 * would have raised). Either way the device is locked up for those
 * engines, and is reset as after any lockup.
 */
static void gaudisim_cs_tdr_work(struct work_struct *work)
{
	struct gaudisim_cs *cs = container_of(to_delayed_work(work), struct gaudisim_cs, tdr);
	struct gaudisim_device *gdev = cs->ctx->gdev;

	if (gaudisim_cs_signal(cs, -ETIMEDOUT)) {
		gaudisim_err_ratelimited(gdev, "CS %llu has not finished in %u seconds\n",
					 cs->seq, cs->timeout_s);
		/* A staged CS whose LAST part never came: nothing to reset. */
		if (!gaudisim_cs_on_device(cs))
			goto out;
	} else if (gaudisim_cs_on_device(cs)) {
		gaudisim_err_ratelimited(gdev, "CS %llu failed; jobs of it still run after %u seconds\n",
					 cs->seq, cs->timeout_s);
	} else {
		goto out;
	}
	gaudisim_coredump_note_cs(gdev, cs);
	if (gaudisim_reset_on_lockup)
		gaudisim_request_reset(gdev, "command submission timed out");
	else
		gaudisim_coredump_capture(gdev, "command submission timed out");
out:
	gaudisim_cs_unlinger(cs);
	gaudisim_cs_put(cs);
}

/* Free what a job holds; the job itself lives inside its CS. */
static void gaudisim_job_release(struct gaudisim_job *job)
{
	struct gaudisim_device *gdev = job->cs->ctx->gdev;
	u32 i;

	if (job->kcb) {
		dma_free_coherent(&gdev->pdev->dev, job->kcb_size, job->kcb,
				  job->kcb_dma);
		atomic64_sub(job->kcb_size, &job->cs->ctx->kcb_bytes);
	}
	job->kcb = NULL;
	/* The device is done with the sync objects the job signals or watches. */
	if (job->sob_refs)
		gaudisim_sigwait_put_sobs(gdev, job->sob_refs);
	job->sob_refs = 0;

	for (i = 0; i < job->num_uptrs; i++)
		gaudisim_userptr_put(job->uptrs[i]);
	kvfree(job->uptrs);
	job->uptrs = NULL;
	job->num_uptrs = 0;

	if (job->user_cb) {
		atomic_dec(&job->user_cb->usage);
		gaudisim_cb_put(job->user_cb);
		job->user_cb = NULL;
	}
}

/**
 * gaudisim_job_alloc_kcb() - allocate the kernel CB of an external job
 * @job: the job
 * @size: bytes, completion tail included
 *
 * The context's kernel CB memory is capped at GAUDISIM_CTX_KCB_BYTES_MAX.
 *
 * Return: 0, or -ENOMEM when the cap or memory ran out.
 */
int gaudisim_job_alloc_kcb(struct gaudisim_job *job, u32 size)
{
	struct gaudisim_ctx *ctx = job->cs->ctx;
	struct gaudisim_device *gdev = ctx->gdev;

	if (atomic64_add_return(size, &ctx->kcb_bytes) > GAUDISIM_CTX_KCB_BYTES_MAX) {
		atomic64_sub(size, &ctx->kcb_bytes);
		gaudisim_dbg(gdev, "the context's kernel CBs would exceed %u MiB\n",
			     GAUDISIM_CTX_KCB_BYTES_MAX >> 20);
		return -ENOMEM;
	}
	job->kcb = dma_alloc_coherent(&gdev->pdev->dev, size, &job->kcb_dma,
				      GFP_KERNEL);
	if (!job->kcb) {
		atomic64_sub(size, &ctx->kcb_bytes);
		return -ENOMEM;
	}
	job->kcb_size = size;
	return 0;
}

/*
 * One unit of the work @cs waits for is done: an external job, or the
 * LAST part of a staged CS arrived. The last unit completes the CS.
 */
static void gaudisim_cs_work_done(struct gaudisim_cs *cs)
{
	if (!atomic_dec_and_test(&cs->jobs_left))
		return;
	gaudisim_fdinfo_cs_done(cs);
	/* After an error: every external job is off the device now. */
	if (!gaudisim_cs_signal(cs, 0) && !gaudisim_cs_may_linger(cs))
		gaudisim_cs_cancel_tdr(cs);
}

static void gaudisim_job_finish(struct gaudisim_job *job, int err)
{
	struct gaudisim_cs *cs = job->cs;
	/* The jobs of a later staged part count towards the staged CS. */
	struct gaudisim_cs *owner = cs->staged_head ? cs->staged_head : cs;
	struct gaudisim_ctx *ctx = cs->ctx;

	gaudisim_job_release(job);

	/*
	 * The error is final before this job counts as done, so no sibling
	 * completes the CS first; the TDR stays armed until the last one.
	 */
	if (err)
		gaudisim_cs_signal(owner, err);
	gaudisim_cs_work_done(owner);
	if (atomic_dec_and_test(&ctx->jobs_inflight))
		wake_up_all(&ctx->idle_wq);

	gaudisim_cs_put(cs);
}

/**
 * gaudisim_job_complete() - the device completed a job
 * @job: the job, already out of its queue's shadow table
 *
 * An error completion (the CP abandoned the body) aborts the whole CS.
 */
void gaudisim_job_complete(struct gaudisim_job *job)
{
	u32 entry = job->cq_entry;
	int err = 0;

	if (entry & GAUDISIM_CQ_ENTRY_ERROR) {
		gaudisim_dbg(job->cs->ctx->gdev,
			     "CS %llu: job on queue %u failed, CP error %u\n",
			     job->cs->seq, job->queue_id,
			     (entry & GAUDISIM_CQ_ENTRY_ERR_CODE_MASK) >>
			     GAUDISIM_CQ_ENTRY_ERR_CODE_SHIFT);
		err = -EIO;
	}
	gaudisim_job_finish(job, err);
}

/* A reset or teardown took the job away from the device. */
void gaudisim_job_abort(struct gaudisim_job *job, int err)
{
	gaudisim_job_finish(job, err);
}

struct gaudisim_cs *gaudisim_cs_alloc(struct gaudisim_ctx *ctx, u32 num_jobs,
				      u32 flags, u32 timeout_s)
{
	struct gaudisim_cs *cs;
	u32 i;

	cs = kvzalloc(struct_size(cs, jobs, num_jobs), GFP_KERNEL);
	if (!cs)
		return NULL;

	kref_init(&cs->ref);
	gaudisim_ctx_get(ctx);
	cs->ctx = ctx;
	cs->flags = flags;
	cs->timeout_s = timeout_s;
	init_completion(&cs->done);
	INIT_DELAYED_WORK(&cs->tdr, gaudisim_cs_tdr_work);
	INIT_LIST_HEAD(&cs->linger_node);
	cs->num_jobs = num_jobs;
	for (i = 0; i < num_jobs; i++)
		cs->jobs[i].cs = cs;
	return cs;
}

/* Drop a CS that never reached the device. */
void gaudisim_cs_discard(struct gaudisim_cs *cs)
{
	u32 i;

	for (i = 0; i < cs->num_jobs; i++)
		gaudisim_job_release(&cs->jobs[i]);
	gaudisim_cs_put(cs);
}

/* Checks of a chunk that do not need its CB (counted as validation drops). */
static int gaudisim_chunk_check(struct gaudisim_device *gdev,
				const struct gaudisim_cs_chunk *chunk)
{
	u32 q = chunk->queue_index;

	if ((chunk->cs_chunk_flags & ~GAUDISIM_CS_CHUNK_FLAGS_USER_ALLOC_CB) ||
	    chunk->collective_engine_id || memchr_inv(chunk->pad, 0, sizeof(chunk->pad))) {
		gaudisim_dbg(gdev, "unknown chunk flags, collective engine and padding must be 0\n");
		return -EINVAL;
	}
	if (q >= GAUDISIM_QUEUE_ID_SIZE || gaudisim_queue_engine(q) < 0) {
		gaudisim_dbg(gdev, "queue %u does not exist\n", q);
		return -EINVAL;
	}
	/* As habanalabs: external queues take kernel CBs only. */
	if ((chunk->cs_chunk_flags & GAUDISIM_CS_CHUNK_FLAGS_USER_ALLOC_CB) &&
	    GAUDISIM_QUEUE_IS_EXTERNAL(q)) {
		gaudisim_dbg(gdev, "queue %u does not take a user-allocated CB\n", q);
		return -EINVAL;
	}
	if (!gaudisim_queue_present(gdev, q)) {
		gaudisim_dbg(gdev, "queue %u is not present on this device\n", q);
		return -EINVAL;
	}
	if (chunk->cb_size < GAUDISIM_PKT_ALIGN ||
	    !IS_ALIGNED(chunk->cb_size, GAUDISIM_PKT_ALIGN)) {
		gaudisim_dbg(gdev, "CB size %u is not a multiple of %u\n",
			     chunk->cb_size, GAUDISIM_PKT_ALIGN);
		return -EINVAL;
	}
	return 0;
}

/*
 * An internal job runs the user's CB in place: it must lie, whole, in
 * user HBM, in SRAM or in the device VAs of host memory, and be no longer
 * than a CB the device accepts. The device reads a host CB through its
 * MMU with the context's ASID (internal queues serve only a context that
 * has the device to itself): a VA the context did not map faults there.
 */
static int gaudisim_internal_job_prepare(struct gaudisim_device *gdev,
					 struct gaudisim_job *job,
					 const struct gaudisim_cs_chunk *chunk)
{
	u64 addr = chunk->cb_handle;
	u64 sram_end = GAUDISIM_SRAM_BASE + gdev->sram_size;
	u64 end;

	if (chunk->cb_size > GAUDISIM_CB_MAX_SIZE) {
		gaudisim_dbg(gdev, "internal CB of %u bytes exceeds %u\n",
			     chunk->cb_size, GAUDISIM_CB_MAX_SIZE);
		return -EINVAL;
	}
	if (!IS_ALIGNED(addr, GAUDISIM_PKT_ALIGN) ||
	    check_add_overflow(addr, (u64)chunk->cb_size, &end) ||
	    !((addr >= GAUDISIM_HBM_USER_BASE && end <= gdev->hbm_size) ||
	      (addr >= GAUDISIM_SRAM_BASE && end <= sram_end) ||
	      (addr >= GAUDISIM_HOST_VA_BASE &&
	       end <= GAUDISIM_HOST_VA_BASE + GAUDISIM_HOST_VA_SIZE))) {
		gaudisim_dbg(gdev, "internal CB 0x%llx + %u is not in user HBM, SRAM or host VAs\n",
			     addr, chunk->cb_size);
		return -EINVAL;
	}
	job->internal = true;
	job->queue_id = chunk->queue_index;
	job->cb_addr = addr;
	job->kcb_size = chunk->cb_size;
	return 0;
}

/* Validate one chunk and turn it into a job with a kernel CB. */
static int gaudisim_job_prepare(struct gaudisim_ctx *ctx, struct gaudisim_job *job,
				const struct gaudisim_cs_chunk *chunk)
{
	struct gaudisim_device *gdev = ctx->gdev;
	struct gaudisim_cb *cb;
	int rc;

	rc = gaudisim_chunk_check(gdev, chunk);
	if (rc)
		goto validation_drop;

	if (!GAUDISIM_QUEUE_IS_EXTERNAL(chunk->queue_index)) {
		/* Their CBs run in place with physical HBM addresses nobody checks. */
		if (ctx->shared) {
			gaudisim_dbg(gdev, "internal queue %u: refused to contexts sharing the device\n",
				     chunk->queue_index);
			rc = -EPERM;
			goto validation_drop;
		}
		rc = gaudisim_internal_job_prepare(gdev, job, chunk);
		if (rc)
			goto validation_drop;
		return 0;
	}

	cb = gaudisim_cb_lookup(ctx, chunk->cb_handle);
	if (!cb) {
		gaudisim_dbg(gdev, "no CB with handle 0x%llx\n", chunk->cb_handle);
		rc = -EINVAL;
		goto validation_drop;
	}
	atomic_inc(&cb->usage);
	job->user_cb = cb;
	job->queue_id = chunk->queue_index;

	if (chunk->cb_size > cb->size) {
		gaudisim_dbg(gdev, "chunk runs %u bytes of a %u-byte CB\n",
			     chunk->cb_size, cb->size);
		rc = -EINVAL;
		goto validation_drop;
	}

	rc = gaudisim_parser_make_kcb(ctx, job, cb, chunk->cb_size);
	if (rc == -EINVAL || rc == -EPERM)
		gaudisim_cs_count_drop(ctx, GAUDISIM_DROP_PARSING);
	return rc;

validation_drop:
	gaudisim_cs_count_drop(ctx, GAUDISIM_DROP_VALIDATION);
	return rc;
}

/*
 * Copy a chunk array from user space and build a CS from it; @head: the
 * staged CS this is a later part of, or NULL; @encap: the reserved
 * signals its jobs may add to, or NULL (a later part has its head's).
 */
static int gaudisim_cs_build(struct gaudisim_ctx *ctx, u64 uptr, u32 num_chunks,
			     u32 flags, u32 timeout_s, struct gaudisim_cs *head,
			     const struct gaudisim_encap_info *encap,
			     struct gaudisim_cs **out)
{
	struct gaudisim_cs_chunk *chunks;
	struct gaudisim_cs *cs;
	u32 i;
	int rc;

	chunks = kvmalloc_array(num_chunks, sizeof(*chunks), GFP_KERNEL);
	if (!chunks) {
		gaudisim_cs_count_drop(ctx, GAUDISIM_DROP_OUT_OF_MEM);
		return -ENOMEM;
	}
	if (copy_from_user(chunks, u64_to_user_ptr(uptr),
			   array_size(num_chunks, sizeof(*chunks)))) {
		rc = -EFAULT;
		goto out_free_chunks;
	}

	/* A later part runs under the staged CS's timeout. */
	cs = gaudisim_cs_alloc(ctx, num_chunks, flags, head ? 0 : timeout_s);
	if (!cs) {
		gaudisim_cs_count_drop(ctx, GAUDISIM_DROP_OUT_OF_MEM);
		rc = -ENOMEM;
		goto out_free_chunks;
	}
	if (head) {
		kref_get(&head->ref);
		cs->staged_head = head;
		cs->encap = head->encap;
	} else if (encap) {
		cs->encap = *encap;
	}

	for (i = 0; i < num_chunks; i++) {
		/* Up to 512 chunks of 2 MiB each: stay preemptible and killable. */
		cond_resched();
		rc = fatal_signal_pending(current) ? -EINTR :
		     gaudisim_job_prepare(ctx, &cs->jobs[i], &chunks[i]);
		if (rc) {
			gaudisim_dbg(ctx->gdev, "chunk %u refused: %d\n", i, rc);
			gaudisim_cs_discard(cs);
			goto out_free_chunks;
		}
		if (!cs->jobs[i].internal)
			cs->num_ext_jobs++;
	}
	/*
	 * Internal jobs complete with the external jobs of their CS (which
	 * wait for them through the sync manager), as on Gaudi; without an
	 * external job nothing would ever tell the CS is done. Parts of a
	 * staged CS but its LAST complete with the later parts.
	 */
	if (!cs->num_ext_jobs &&
	    (!(flags & GAUDISIM_CS_FLAGS_STAGED_SUBMISSION) ||
	     (flags & GAUDISIM_CS_FLAGS_STAGED_SUBMISSION_LAST))) {
		gaudisim_dbg(ctx->gdev, "a CS needs at least one external queue job\n");
		gaudisim_cs_count_drop(ctx, GAUDISIM_DROP_VALIDATION);
		gaudisim_cs_discard(cs);
		rc = -EINVAL;
		goto out_free_chunks;
	}
	*out = cs;
	rc = 0;

out_free_chunks:
	kvfree(chunks);
	return rc;
}

/**
 * gaudisim_cs_push() - hand a built CS to the device
 * @cs: the CS; the caller keeps its own reference
 * @user: the CS gets a sequence number and a pending-table slot
 *
 * Either every job is queued or none is. The caller is inside
 * drm_dev_enter(). Jobs the device finished by the time the doorbell
 * writes return are completed before this returns.
 *
 * Return: 0, -EBUSY when the device is not operational, -EAGAIN when a
 * queue or the pending table is full.
 */
int gaudisim_cs_push(struct gaudisim_cs *cs, bool user)
{
	struct gaudisim_ctx *ctx = cs->ctx;
	struct gaudisim_device *gdev = ctx->gdev;
	u32 needed[GAUDISIM_QUEUE_ID_SIZE] = {};
	int rc = 0;
	u32 i;

	for (i = 0; i < cs->num_jobs; i++)
		needed[cs->jobs[i].queue_id]++;

	mutex_lock(&gdev->submit_lock);
	cs->start_ns = ktime_get_ns();

	if (gaudisim_status(gdev) != GAUDISIM_DEVICE_STATUS_OPERATIONAL) {
		gaudisim_cs_count_drop(ctx, GAUDISIM_DROP_DEVICE_IN_RESET);
		gaudisim_dbg(gdev, "device is not operational (status %d)\n",
			     gaudisim_status(gdev));
		rc = -EBUSY;
		goto out_unlock;
	}

	for (i = 0; i < GAUDISIM_QUEUE_ID_SIZE; i++) {
		u32 free;

		if (!needed[i])
			continue;
		if (GAUDISIM_QUEUE_IS_EXTERNAL(i))
			free = gaudisim_queue_free_slots(&gdev->queues[i]);
		else
			free = gaudisim_iqueue_free_slots(&gdev->iqueues[i]);
		if (needed[i] > free) {
			gaudisim_cs_count_drop(ctx, GAUDISIM_DROP_QUEUE_FULL);
			gaudisim_dbg(gdev, "queue %u is full\n", i);
			rc = -EAGAIN;
			goto out_unlock;
		}
	}

	/* next_seq moves and slots fill only under submit_lock: the check holds. */
	if (user) {
		bool full;

		spin_lock(&ctx->cs_lock);
		full = ctx->pending[ctx->next_seq & (GAUDISIM_MAX_PENDING_CS - 1)];
		spin_unlock(&ctx->cs_lock);
		if (full) {
			gaudisim_cs_count_drop(ctx, GAUDISIM_DROP_MAX_CS_IN_FLIGHT);
			gaudisim_dbg(gdev, "too many CSs in flight\n");
			rc = -EAGAIN;
			goto out_unlock;
		}
	}

	/* SIGNAL/WAIT jobs get their sync-object values in submission order. */
	if (cs->type != GAUDISIM_CS_TYPE_DEFAULT) {
		rc = gaudisim_cs_sigwait_prepare(cs);
		if (rc)
			goto out_unlock;
	}
	/* Its jobs add to a reserved SOB: still reserved, not reset since. */
	if (cs->encap.id) {
		rc = gaudisim_encap_check(ctx, &cs->encap);
		if (rc)
			goto out_unlock;
	}

	if (user) {
		u64 seq;

		spin_lock(&ctx->cs_lock);
		seq = ctx->next_seq;
		kref_get(&cs->ref);
		ctx->pending[seq & (GAUDISIM_MAX_PENDING_CS - 1)] = cs;
		cs->seq = seq;
		ctx->next_seq++;
		spin_unlock(&ctx->cs_lock);
		atomic64_inc(&gdev->cs_cnt.submitted);
		/* WAIT CSs on the reserved signals name this CS from now on. */
		if (cs->encap.id && !cs->staged_head)
			gaudisim_encap_bind(ctx, cs->encap.id, seq);
	}

	if (cs->staged_head) {
		atomic_add(cs->num_ext_jobs, &cs->staged_head->jobs_left);
		if (cs->num_jobs != cs->num_ext_jobs)
			WRITE_ONCE(cs->staged_head->staged_internal, true);
	} else {
		atomic_set(&cs->jobs_left, cs->num_ext_jobs + atomic_read(&cs->staged_open));
	}
	atomic_add(cs->num_ext_jobs, &ctx->jobs_inflight);

	if (cs->timeout_s) {
		kref_get(&cs->ref);
		queue_delayed_work(gdev->wq, &cs->tdr,
				   (unsigned long)cs->timeout_s * HZ);
	}

	/* Internal work first, so the external jobs find it queued. */
	for (i = 0; i < cs->num_jobs; i++) {
		if (!cs->jobs[i].internal)
			continue;
		/* Close waits for (or resets) every queue the context used. */
		__set_bit(cs->jobs[i].queue_id, ctx->iq_used);
		gaudisim_iqueue_push(&gdev->iqueues[cs->jobs[i].queue_id], &cs->jobs[i]);
	}
	for (i = GAUDISIM_NUM_EXT_QUEUES; i < GAUDISIM_QUEUE_ID_SIZE; i++)
		if (needed[i])
			gaudisim_iqueue_ring_doorbell(&gdev->iqueues[i]);

	for (i = 0; i < cs->num_jobs; i++) {
		if (cs->jobs[i].internal)
			continue;
		kref_get(&cs->ref);
		gaudisim_queue_push(&gdev->queues[cs->jobs[i].queue_id], &cs->jobs[i]);
	}
	for (i = 0; i < GAUDISIM_NUM_EXT_QUEUES; i++)
		if (needed[i])
			gaudisim_queue_ring_doorbell(&gdev->queues[i]);

out_unlock:
	mutex_unlock(&gdev->submit_lock);
	/* A short CS is often complete now: finish it without an interrupt. */
	for (i = 0; !rc && i < GAUDISIM_NUM_EXT_QUEUES; i++)
		if (needed[i])
			gaudisim_queue_doorbell_drain(&gdev->queues[i]);
	return rc;
}

/* Build and push a CS; returns the CS with the caller's reference. */
static int gaudisim_cs_submit(struct gaudisim_ctx *ctx, u64 chunks, u32 num_chunks,
			      u32 flags, u32 timeout_s, bool user,
			      struct gaudisim_cs *head,
			      const struct gaudisim_encap_info *encap,
			      struct gaudisim_cs **out)
{
	struct gaudisim_device *gdev = ctx->gdev;
	struct gaudisim_cs *cs;
	int rc, idx;

	if (!drm_dev_enter(&gdev->drm, &idx))
		return -ENODEV;

	/*
	 * Ownership is checked chunk by chunk while building: until the push
	 * counts the jobs in flight, a FREE must wait for this CS too.
	 */
	atomic_inc(&ctx->cs_building);
	rc = gaudisim_cs_build(ctx, chunks, num_chunks, flags, timeout_s, head, encap, &cs);
	if (rc)
		goto out_built;
	/* A FIRST part without LAST waits for the LAST part to come. */
	if ((flags & GAUDISIM_CS_FLAGS_STAGED_SUBMISSION_FIRST) &&
	    !(flags & GAUDISIM_CS_FLAGS_STAGED_SUBMISSION_LAST))
		atomic_set(&cs->staged_open, 1);

	rc = gaudisim_cs_push(cs, user && !head);
	if (rc) {
		gaudisim_cs_discard(cs);
		goto out_built;
	}
	*out = cs;

out_built:
	if (atomic_dec_and_test(&ctx->cs_building))
		wake_up_all(&ctx->idle_wq);
	drm_dev_exit(idx);
	return rc;
}

/**
 * gaudisim_cs_run_driver_cb() - run packets the driver wrote, and wait for them
 * @ctx: the context the work is done for (it may be closing)
 * @queue_id: external queue
 * @body: packets; the completion tail is appended
 * @size: bytes of @body, a multiple of 8
 * @timeout_s: CS timeout, at least 1
 *
 * The job runs like a user job (CQ completion, timeout, abort on reset)
 * but skips the parser: the driver is the author. The wait cannot be
 * interrupted; the timeout bounds it.
 *
 * Return: 0, -EIO, -ETIMEDOUT, -EBUSY, -EAGAIN, -ENOMEM or -ENODEV.
 */
int gaudisim_cs_run_driver_cb(struct gaudisim_ctx *ctx, u32 queue_id, const void *body,
			      u32 size, u32 timeout_s)
{
	struct gaudisim_device *gdev = ctx->gdev;
	struct gaudisim_job *job;
	struct gaudisim_cs *cs;
	int rc, idx;

	if (!drm_dev_enter(&gdev->drm, &idx))
		return -ENODEV;
	cs = gaudisim_cs_alloc(ctx, 1, 0, timeout_s);
	if (!cs) {
		drm_dev_exit(idx);
		return -ENOMEM;
	}
	job = &cs->jobs[0];
	job->queue_id = queue_id;
	job->has_dma = true;
	cs->num_ext_jobs = 1;
	rc = gaudisim_job_alloc_kcb(job, size + GAUDISIM_CB_COMPLETION_TAIL_SIZE);
	if (!rc) {
		memcpy(job->kcb, body, size);
		rc = gaudisim_cs_push(cs, false);
	}
	drm_dev_exit(idx);
	if (rc) {
		gaudisim_cs_discard(cs);
		return rc;
	}

	/* The TDR ends the CS at timeout_s; the extra second is a backstop. */
	if (!wait_for_completion_timeout(&cs->done, (timeout_s + 1) * HZ))
		rc = -ETIMEDOUT;
	else
		rc = cs->status;
	gaudisim_cs_put(cs);
	return rc;
}

/*
 * Restore phase: run the restore chunks to completion before the first
 * CS of a context (or a FORCE_RESTORE one). They form an internal CS
 * without a sequence number.
 */
static int gaudisim_cs_restore(struct gaudisim_ctx *ctx,
			       const struct gaudisim_cs_in *in, u32 timeout_s)
{
	struct gaudisim_cs *cs;
	int rc;

	lockdep_assert_held(&ctx->restore_lock);

	rc = gaudisim_cs_submit(ctx, in->chunks_restore, in->num_chunks_restore,
				0, timeout_s, false, NULL, NULL, &cs);
	if (rc)
		return rc;

	/*
	 * Only a fatal signal ends the wait: an ordinary one would let the
	 * caller start the restore phase again while this one still runs.
	 * The CS's own timeout bounds the wait.
	 */
	if (wait_for_completion_killable(&cs->done))
		rc = -EINTR;
	else
		rc = cs->status;
	gaudisim_cs_put(cs);
	if (rc)
		gaudisim_dbg(ctx->gdev, "restore phase failed: %d\n", rc);
	return rc;
}

static int gaudisim_cs_check_args(struct gaudisim_device *gdev,
				  const struct gaudisim_cs_in *in, u32 *timeout_s)
{
	u32 staged = in->cs_flags & (GAUDISIM_CS_FLAGS_STAGED_SUBMISSION |
				     GAUDISIM_CS_FLAGS_STAGED_SUBMISSION_FIRST |
				     GAUDISIM_CS_FLAGS_STAGED_SUBMISSION_LAST);
	/* seq names the staged CS a later part belongs to, and nothing else. */
	bool part = staged && !(staged & GAUDISIM_CS_FLAGS_STAGED_SUBMISSION_FIRST);
	/* A CS with encapsulated signals names its reservation there instead. */
	bool encap = (in->cs_flags & GAUDISIM_CS_FLAGS_ENCAP_SIGNALS) &&
		     !(in->cs_flags & GAUDISIM_CS_FLAGS_WAIT);

	if (in->ctx_id || memchr_inv(in->pad, 0, sizeof(in->pad)) ||
	    (encap ? part || !in->encaps_sig_handle_id || upper_32_bits(in->seq) :
		     part != !!in->seq)) {
		gaudisim_dbg(gdev, "ctx_id and pad must be 0, seq only names a staged CS or a reservation\n");
		return -EINVAL;
	}
	if (in->cs_flags & ~GAUDISIM_CS_FLAGS_ALL) {
		gaudisim_dbg(gdev, "unknown CS flags 0x%x\n",
			     in->cs_flags & ~GAUDISIM_CS_FLAGS_ALL);
		return -EINVAL;
	}
	if (staged && (!(staged & GAUDISIM_CS_FLAGS_STAGED_SUBMISSION) ||
		       (in->cs_flags & (GAUDISIM_CS_FLAGS_SIGNAL | GAUDISIM_CS_FLAGS_WAIT)))) {
		gaudisim_dbg(gdev, "staged FIRST / LAST need STAGED_SUBMISSION, never SIGNAL or WAIT\n");
		return -EINVAL;
	}
	if (!in->num_chunks_execute ||
	    in->num_chunks_execute > GAUDISIM_MAX_JOBS_PER_CS ||
	    in->num_chunks_restore > GAUDISIM_MAX_JOBS_PER_CS) {
		gaudisim_dbg(gdev, "bad chunk counts: %u execute, %u restore\n",
			     in->num_chunks_execute, in->num_chunks_restore);
		return -EINVAL;
	}

	*timeout_s = gaudisim_timeout_locked;
	if (in->cs_flags & GAUDISIM_CS_FLAGS_CUSTOM_TIMEOUT) {
		if (!in->timeout || in->timeout > GAUDISIM_CS_TIMEOUT_MAX_S) {
			gaudisim_dbg(gdev, "custom timeout %u s is out of range\n",
				     in->timeout);
			return -EINVAL;
		}
		*timeout_s = in->timeout;
	}
	return 0;
}

/*
 * A later part of a staged CS: its jobs count towards the staged CS named
 * by in->seq (of this context, still open, not ended); the LAST part
 * closes it. *out gets the staged CS (a reference), whose seq answers.
 */
static int gaudisim_cs_staged_part(struct gaudisim_ctx *ctx, const struct gaudisim_cs_in *in,
				   u32 timeout_s, struct gaudisim_cs **out)
{
	struct gaudisim_cs *head, *part;
	int rc;

	spin_lock(&ctx->cs_lock);
	head = in->seq < ctx->next_seq ?
	       ctx->pending[in->seq & (GAUDISIM_MAX_PENDING_CS - 1)] : NULL;
	if (head && (head->seq != in->seq || head->signalled ||
		     !atomic_read(&head->staged_open)))
		head = NULL;
	if (head)
		kref_get(&head->ref);
	spin_unlock(&ctx->cs_lock);
	if (!head) {
		gaudisim_dbg(ctx->gdev, "no open staged CS %llu\n", in->seq);
		gaudisim_cs_count_drop(ctx, GAUDISIM_DROP_VALIDATION);
		return -EINVAL;
	}

	rc = gaudisim_cs_submit(ctx, in->chunks_execute, in->num_chunks_execute, in->cs_flags,
				timeout_s, true, head, NULL, &part);
	if (rc) {
		gaudisim_cs_put(head);
		return rc;
	}
	gaudisim_cs_put(part);
	/* Only one LAST part closes it; a second one's jobs still count. */
	if ((in->cs_flags & GAUDISIM_CS_FLAGS_STAGED_SUBMISSION_LAST) &&
	    atomic_xchg(&head->staged_open, 0))
		gaudisim_cs_work_done(head);
	*out = head;
	return 0;
}

/* RESERVE_SIGNALS_ONLY and UNRESERVE_SIGNALS_ONLY: nothing is submitted. */
static int gaudisim_cs_reservation(struct gaudisim_ctx *ctx, union gaudisim_cs_args *args)
{
	const struct gaudisim_cs_in in = args->in;
	u32 flags = in.cs_flags & ~GAUDISIM_CS_FLAGS_FORCE_RESTORE;
	struct gaudisim_cs_out out = {};
	int rc;

	if ((flags != GAUDISIM_CS_FLAGS_RESERVE_SIGNALS_ONLY &&
	     flags != GAUDISIM_CS_FLAGS_UNRESERVE_SIGNALS_ONLY) ||
	    in.ctx_id || memchr_inv(in.pad, 0, sizeof(in.pad))) {
		gaudisim_dbg(ctx->gdev, "(UN)RESERVE_SIGNALS_ONLY takes no other flag; ctx_id and pad 0\n");
		return -EINVAL;
	}
	if (flags == GAUDISIM_CS_FLAGS_RESERVE_SIGNALS_ONLY) {
		rc = gaudisim_encap_reserve(ctx, &in, &out);
	} else {
		rc = gaudisim_encap_unreserve(ctx, &in);
		out.status = GAUDISIM_CS_STATUS_SUCCESS;
	}
	if (rc)
		return rc;
	args->out = out;
	return 0;
}

int gaudisim_cs_ioctl(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct gaudisim_device *gdev = to_gaudisim(drm);
	struct gaudisim_ctx *ctx = file->driver_priv;
	union gaudisim_cs_args *args = data;
	struct gaudisim_cs_in in = args->in;
	struct gaudisim_cs_out sw_out = {};
	struct gaudisim_encap_info encap = {};
	struct gaudisim_cs *cs = NULL;
	bool restore;
	u32 timeout_s;
	int rc;

	if (in.cs_flags & (GAUDISIM_CS_FLAGS_RESERVE_SIGNALS_ONLY |
			   GAUDISIM_CS_FLAGS_UNRESERVE_SIGNALS_ONLY))
		return gaudisim_cs_reservation(ctx, args);

	rc = gaudisim_cs_check_args(gdev, &in, &timeout_s);
	if (rc)
		return rc;
	if ((in.cs_flags & GAUDISIM_CS_FLAGS_ENCAP_SIGNALS) &&
	    !(in.cs_flags & GAUDISIM_CS_FLAGS_WAIT)) {
		rc = gaudisim_encap_get(ctx, in.encaps_sig_handle_id, &encap);
		if (rc) {
			gaudisim_cs_count_drop(ctx, GAUDISIM_DROP_VALIDATION);
			return rc;
		}
	}

	/*
	 * Until the first CS went through, every CS takes restore_lock, so the
	 * restore phase runs once per context however many threads submit.
	 */
	restore = !READ_ONCE(ctx->restore_done) ||
		  (in.num_chunks_restore && (in.cs_flags & GAUDISIM_CS_FLAGS_FORCE_RESTORE));
	if (restore) {
		if (mutex_lock_killable(&ctx->restore_lock))
			return -EINTR;
		if (in.num_chunks_restore &&
		    (!ctx->restore_done || (in.cs_flags & GAUDISIM_CS_FLAGS_FORCE_RESTORE))) {
			rc = gaudisim_cs_restore(ctx, &in, timeout_s);
			if (rc) {
				mutex_unlock(&ctx->restore_lock);
				return rc;
			}
		}
	}

	if (in.cs_flags & (GAUDISIM_CS_FLAGS_SIGNAL | GAUDISIM_CS_FLAGS_WAIT))
		rc = gaudisim_cs_sigwait_submit(ctx, &in, timeout_s, &sw_out);
	else if (in.seq && !encap.id)
		rc = gaudisim_cs_staged_part(ctx, &in, timeout_s, &cs);
	else
		rc = gaudisim_cs_submit(ctx, in.chunks_execute, in.num_chunks_execute,
					in.cs_flags, timeout_s, true, NULL,
					encap.id ? &encap : NULL, &cs);
	if (restore) {
		if (!rc)
			WRITE_ONCE(ctx->restore_done, true);
		mutex_unlock(&ctx->restore_lock);
	}
	if (rc)
		return rc;

	memset(args, 0, sizeof(*args));
	if (!cs) {
		args->out = sw_out;
		return 0;
	}
	args->out.seq = cs->seq;
	args->out.status = GAUDISIM_CS_STATUS_SUCCESS;
	if (encap.id) {
		args->out.sob_base_addr_offset = gaudisim_gaudi_sob_offset(encap.sob);
		args->out.sob_count_before_submission = encap.pre;
	}
	gaudisim_cs_put(cs);
	return 0;
}

/*
 * A timeout never ends early: round up to whole jiffies and add one, since
 * the current jiffy is already partly gone when the waiter sleeps (as
 * msleep() does).
 */
static unsigned long gaudisim_us_to_jiffies(u64 us)
{
	u64 j;

	if (us > U64_MAX / NSEC_PER_USEC - TICK_NSEC)
		return MAX_SCHEDULE_TIMEOUT;
	j = nsecs_to_jiffies64(us * NSEC_PER_USEC + TICK_NSEC - 1) + 1;
	if (j >= MAX_SCHEDULE_TIMEOUT)
		return MAX_SCHEDULE_TIMEOUT;
	return j;
}

/*
 * Complete what the device already finished on the queues of @cs, before
 * the waiter sleeps: a short CS is often done by now (the device runs a
 * little work inside the doorbell write), and completing it here spares
 * the interrupt thread's wake-up and its hand-over to the waiter.
 */
static void gaudisim_cs_reap(struct gaudisim_cs *cs)
{
	struct gaudisim_device *gdev = cs->ctx->gdev;
	DECLARE_BITMAP(seen, GAUDISIM_NUM_EXT_QUEUES) = {};
	int idx;
	u32 i;

	/* The rings are device-managed: gone once the device is unplugged. */
	if (!drm_dev_enter(&gdev->drm, &idx))
		return;
	for (i = 0; i < cs->num_jobs && !completion_done(&cs->done); i++) {
		u32 q = cs->jobs[i].queue_id;

		if (cs->jobs[i].internal || __test_and_set_bit(q, seen))
			continue;
		gaudisim_queue_drain_cq(&gdev->queues[q]);
	}
	drm_dev_exit(idx);
}

/* Fill the WAIT_CS answer from a final outcome; returns the ioctl's rc. */
static int gaudisim_wait_outcome(int status, bool timestamp_valid, u64 timestamp_ns,
				 struct gaudisim_wait_cs_out *out)
{
	if (timestamp_valid) {
		out->flags |= GAUDISIM_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD;
		out->timestamp_nsec = timestamp_ns;
	}
	switch (status) {
	case 0:
		out->status = GAUDISIM_WAIT_CS_STATUS_COMPLETED;
		return 0;
	case -ETIMEDOUT:
		out->status = GAUDISIM_WAIT_CS_STATUS_TIMEDOUT;
		return -ETIMEDOUT;
	default:
		out->status = GAUDISIM_WAIT_CS_STATUS_ABORTED;
		return -EIO;
	}
}

/* The CSs of a multi-CS wait and what one look at them found. */
struct gaudisim_mcs {
	u64 seq[GAUDISIM_WAIT_MULTI_CS_LIST_MAX_LEN];
	u32 n;
	u32 map;		/* bit i: seq[i] has completed */
	u64 first_ts_ns;	/* earliest completion time of a TIMESTAMP CS; 0 none */
};

/*
 * The outcome of retired CS @seq, if still known: from the window of the
 * last GAUDISIM_CS_OUTCOMES CSs, else from the TIMESTAMP outcomes, which
 * give it once (habanalabs pops its outcome store). Under ctx->cs_lock.
 */
static bool gaudisim_cs_find_outcome(struct gaudisim_ctx *ctx, u64 seq,
				     struct gaudisim_cs_outcome *out)
{
	struct gaudisim_cs_outcome *o = &ctx->outcomes[seq & (GAUDISIM_CS_OUTCOMES - 1)];
	u32 i;

	lockdep_assert_held(&ctx->cs_lock);
	if (o->seq == seq) {
		*out = *o;
		return true;
	}
	for (i = 0; i < GAUDISIM_CS_TS_OUTCOMES; i++) {
		o = &ctx->ts_outcomes[i];
		if (o->seq == seq) {
			*out = *o;
			o->seq = 0;
			return true;
		}
	}
	return false;
}

/*
 * Look at every CS of @m once. As habanalabs: an unknown sequence is
 * -EINVAL, a CS that ended badly fails the wait with its error, a CS long
 * retired counts as completed.
 */
static int gaudisim_mcs_poll(struct gaudisim_ctx *ctx, struct gaudisim_mcs *m)
{
	int rc = 0;
	u32 i;

	m->map = 0;
	spin_lock(&ctx->cs_lock);
	for (i = 0; i < m->n; i++) {
		u64 seq = m->seq[i];
		struct gaudisim_cs_outcome o;
		struct gaudisim_cs *cs;

		if (!seq || seq >= ctx->next_seq) {
			rc = -EINVAL;
			break;
		}
		cs = ctx->pending[seq & (GAUDISIM_MAX_PENDING_CS - 1)];
		if (cs && cs->seq == seq)
			continue;
		if (gaudisim_cs_find_outcome(ctx, seq, &o)) {
			if (o.status) {
				rc = o.status == -ETIMEDOUT ? -ETIMEDOUT : -EIO;
				break;
			}
			if (o.timestamp_valid &&
			    (!m->first_ts_ns || o.timestamp_ns < m->first_ts_ns))
				m->first_ts_ns = o.timestamp_ns;
		}
		m->map |= BIT(i);
	}
	spin_unlock(&ctx->cs_lock);
	return rc;
}

/*
 * WAIT_CS with MULTI_CS: in.seq points to seq_arr_len sequence numbers.
 * Returns once at least one has completed (or the timeout ends) with the
 * bitmap of those that have, and the earliest completion time.
 */
static int gaudisim_wait_multi_cs(struct gaudisim_device *gdev, struct gaudisim_ctx *ctx,
				  const struct gaudisim_wait_cs_in *in,
				  union gaudisim_wait_cs_args *args)
{
	struct gaudisim_mcs *m;
	long left;
	int rc;

	if (!in->seq_arr_len || in->seq_arr_len > GAUDISIM_WAIT_MULTI_CS_LIST_MAX_LEN) {
		gaudisim_dbg(gdev, "multi-CS wait on %u CSs; 1 to %u allowed\n",
			     in->seq_arr_len, GAUDISIM_WAIT_MULTI_CS_LIST_MAX_LEN);
		return -EINVAL;
	}
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->n = in->seq_arr_len;
	if (copy_from_user(m->seq, u64_to_user_ptr(in->seq), m->n * sizeof(m->seq[0]))) {
		rc = -EFAULT;
		goto out;
	}

	rc = gaudisim_mcs_poll(ctx, m);
	if (!rc && !m->map && in->timeout_us) {
		left = wait_event_interruptible_timeout(ctx->cs_done_wq,
							(rc = gaudisim_mcs_poll(ctx, m)) || m->map,
							gaudisim_us_to_jiffies(in->timeout_us));
		if (left < 0)
			rc = -EINTR;
	}
	if (rc) {
		if (rc == -EINVAL)
			gaudisim_dbg(gdev, "multi-CS wait on a CS that was never submitted\n");
		goto out;
	}

	memset(args, 0, sizeof(*args));
	if (m->map) {
		args->out.status = GAUDISIM_WAIT_CS_STATUS_COMPLETED;
		args->out.cs_completion_map = m->map;
		/* As habanalabs: no completion time means GONE. */
		if (m->first_ts_ns) {
			args->out.flags = GAUDISIM_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD;
			args->out.timestamp_nsec = m->first_ts_ns;
		} else {
			args->out.flags = GAUDISIM_WAIT_CS_STATUS_FLAG_GONE;
		}
	} else {
		args->out.status = GAUDISIM_WAIT_CS_STATUS_BUSY;
	}
out:
	kfree(m);
	return rc;
}

int gaudisim_wait_cs_ioctl(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct gaudisim_device *gdev = to_gaudisim(drm);
	struct gaudisim_ctx *ctx = file->driver_priv;
	union gaudisim_wait_cs_args *args = data;
	struct gaudisim_wait_cs_in in = args->in;
	struct gaudisim_wait_cs_out out = {};
	struct gaudisim_cs_outcome outcome = {};
	struct gaudisim_cs *cs;
	u64 next_seq;
	long left;
	int rc;

	if (in.flags & GAUDISIM_WAIT_CS_FLAGS_INTERRUPT) {
		rc = gaudisim_uirq_wait(gdev, ctx, &in,
					in.interrupt_timeout_us ?
					gaudisim_us_to_jiffies(in.interrupt_timeout_us) : 0,
					&out);
		goto out;
	}
	if (in.ctx_id || (in.flags & ~GAUDISIM_WAIT_CS_FLAGS_MULTI_CS) ||
	    memchr_inv(in.pad, 0, sizeof(in.pad)) || in.cq_counters_offset ||
	    in.timestamp_handle || in.timestamp_offset) {
		gaudisim_dbg(gdev, "ctx_id, unknown flags and the interrupt-wait fields must be 0\n");
		return -EINVAL;
	}
	if (in.flags & GAUDISIM_WAIT_CS_FLAGS_MULTI_CS)
		return gaudisim_wait_multi_cs(gdev, ctx, &in, args);
	if (in.seq_arr_len) {
		gaudisim_dbg(gdev, "seq_arr_len is for multi-CS waits\n");
		return -EINVAL;
	}

	spin_lock(&ctx->cs_lock);
	next_seq = ctx->next_seq;
	if (!in.seq || in.seq >= next_seq) {
		spin_unlock(&ctx->cs_lock);
		gaudisim_dbg(gdev, "no CS %llu: the next CS is %llu\n", in.seq,
			     next_seq);
		return -EINVAL;
	}
	cs = ctx->pending[in.seq & (GAUDISIM_MAX_PENDING_CS - 1)];
	if (cs && cs->seq == in.seq)
		kref_get(&cs->ref);
	else
		cs = NULL;
	if (!cs && !gaudisim_cs_find_outcome(ctx, in.seq, &outcome))
		outcome.seq = 0;
	spin_unlock(&ctx->cs_lock);

	if (!cs) {
		if (outcome.seq == in.seq) {
			rc = gaudisim_wait_outcome(outcome.status, outcome.timestamp_valid,
						   outcome.timestamp_ns, &out);
		} else {
			out.status = GAUDISIM_WAIT_CS_STATUS_COMPLETED;
			out.flags = GAUDISIM_WAIT_CS_STATUS_FLAG_GONE;
			rc = 0;
		}
		goto out;
	}

	gaudisim_cs_reap(cs);
	if (in.timeout_us) {
		unsigned long timeout = gaudisim_us_to_jiffies(in.timeout_us);

		left = wait_for_completion_interruptible_timeout(&cs->done, timeout);
		if (left < 0) {
			gaudisim_cs_put(cs);
			return -EINTR;
		}
	}

	if (completion_done(&cs->done)) {
		spin_lock(&ctx->cs_lock);
		outcome.status = cs->status;
		outcome.timestamp_ns = cs->timestamp_ns;
		spin_unlock(&ctx->cs_lock);
		rc = gaudisim_wait_outcome(outcome.status,
					   cs->flags & GAUDISIM_CS_FLAGS_TIMESTAMP,
					   outcome.timestamp_ns, &out);
	} else {
		out.status = GAUDISIM_WAIT_CS_STATUS_BUSY;
		rc = 0;
	}
	gaudisim_cs_put(cs);

out:
	memset(args, 0, sizeof(*args));
	args->out = out;
	return rc;
}
