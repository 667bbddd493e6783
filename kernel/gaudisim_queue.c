// SPDX-License-Identifier: GPL-2.0
/*
 * External queues: PQ/CQ rings, the shadow table and the doorbell.
 *
 * Every job owns one PQ slot and the CQ slot of the same index: its
 * completion tail writes the CQ entry of its own slot, so a job that never
 * completes (a CB the device could not fetch) does not hide the entries of
 * the jobs behind it. @ci only moves over completed slots, so a slot is
 * reused only after its job and every job before it are done.
 */

#include <linux/dma-mapping.h>
#include <linux/list.h>

#include <hw/gaudisim_hw_sync.h>

#include "gaudisim_cs.h"
#include "gaudisim_ctx.h"
#include "gaudisim_drv.h"
#include "gaudisim_hw.h"
#include "gaudisim_parser.h"
#include "gaudisim_queue.h"

/* PI and CI count modulo twice the ring length: full differs from empty. */
#define GAUDISIM_QUEUE_PTR_MASK	(2 * GAUDISIM_QUEUE_LEN - 1)

static u32 gaudisim_queue_next(u32 ptr)
{
	return (ptr + 1) & GAUDISIM_QUEUE_PTR_MASK;
}

static u32 gaudisim_queue_slot(u32 ptr)
{
	return ptr & (GAUDISIM_QUEUE_LEN - 1);
}

int gaudisim_queues_init(struct gaudisim_device *gdev)
{
	struct device *dev = &gdev->pdev->dev;
	u32 i;

	for (i = 0; i < GAUDISIM_NUM_EXT_QUEUES; i++) {
		struct gaudisim_queue *q = &gdev->queues[i];

		q->gdev = gdev;
		q->id = i;
		q->engine = gaudisim_queue_engine(i);
		q->stream = gaudisim_queue_stream(i);
		q->present = gaudisim_queue_present(gdev, i);
		spin_lock_init(&q->lock);
		mutex_init(&q->drain_lock);
		atomic_set(&q->ringing, 0);
		if (!q->present)
			continue;

		q->pq = dmam_alloc_coherent(dev, GAUDISIM_QUEUE_LEN * sizeof(*q->pq),
					    &q->pq_dma, GFP_KERNEL);
		q->cq = dmam_alloc_coherent(dev, GAUDISIM_QUEUE_LEN * sizeof(*q->cq),
					    &q->cq_dma, GFP_KERNEL);
		q->shadow = devm_kcalloc(dev, GAUDISIM_QUEUE_LEN, sizeof(*q->shadow),
					 GFP_KERNEL);
		q->slot_cb = devm_kcalloc(dev, GAUDISIM_QUEUE_LEN, sizeof(*q->slot_cb),
					  GFP_KERNEL);
		if (!q->pq || !q->cq || !q->shadow || !q->slot_cb)
			return -ENOMEM;
	}

	for (i = GAUDISIM_NUM_EXT_QUEUES; i < GAUDISIM_QUEUE_ID_SIZE; i++) {
		struct gaudisim_iqueue *q = &gdev->iqueues[i];

		if (gaudisim_queue_engine(i) < 0 || !gaudisim_queue_present(gdev, i))
			continue;
		q->gdev = gdev;
		q->id = i;
		q->engine = gaudisim_queue_engine(i);
		q->stream = gaudisim_queue_stream(i);
		q->present = true;
		q->pq = dmam_alloc_coherent(dev, GAUDISIM_IQUEUE_LEN * sizeof(*q->pq),
					    &q->pq_dma, GFP_KERNEL);
		if (!q->pq)
			return -ENOMEM;
		gdev->num_int_queues++;
	}
	return 0;
}

/* Point a stream's MSG_SHORT bases at the sync manager, as Gaudi does. */
static void gaudisim_stream_msg_bases_init(struct gaudisim_device *gdev, u32 engine,
					   u32 stream)
{
	static const u64 base[GAUDISIM_QM_NUM_MSG_BASES] = {
		[GAUDISIM_MSG_BASE_MON] = GAUDISIM_SYNC_MON_BASE_ADDR,
		[GAUDISIM_MSG_BASE_SOB] = GAUDISIM_SYNC_SOB_BASE_ADDR,
		[GAUDISIM_MSG_BASE_MON_W_S] = GAUDISIM_SYNC_MON_BASE_ADDR,
		[GAUDISIM_MSG_BASE_SOB_W_S] = GAUDISIM_SYNC_SOB_BASE_ADDR,
	};
	u32 b;

	for (b = 0; b < GAUDISIM_QM_NUM_MSG_BASES; b++) {
		gaudisim_wreg(gdev, gaudisim_qm_reg(engine, GAUDISIM_QM_CP_MSG_BASE_LO(b, stream)),
			      lower_32_bits(base[b]));
		gaudisim_wreg(gdev, gaudisim_qm_reg(engine, GAUDISIM_QM_CP_MSG_BASE_HI(b, stream)),
			      upper_32_bits(base[b]));
	}
}

static void gaudisim_iqueues_hw_init(struct gaudisim_device *gdev)
{
	u32 enable[GAUDISIM_ENGINE_COUNT] = {};
	u32 i;

	for (i = GAUDISIM_NUM_EXT_QUEUES; i < GAUDISIM_QUEUE_ID_SIZE; i++) {
		struct gaudisim_iqueue *q = &gdev->iqueues[i];

		if (!q->present)
			continue;
		q->pi = 0;
		memset(q->pq, 0, GAUDISIM_IQUEUE_LEN * sizeof(*q->pq));
		gaudisim_wreg(gdev, gaudisim_qm_reg(q->engine, GAUDISIM_QM_PQ_BASE_LO(q->stream)),
			      lower_32_bits(q->pq_dma));
		gaudisim_wreg(gdev, gaudisim_qm_reg(q->engine, GAUDISIM_QM_PQ_BASE_HI(q->stream)),
			      upper_32_bits(q->pq_dma));
		gaudisim_wreg(gdev, gaudisim_qm_reg(q->engine, GAUDISIM_QM_PQ_SIZE(q->stream)),
			      GAUDISIM_IQUEUE_LEN_LOG2);
		gaudisim_wreg(gdev, gaudisim_qm_reg(q->engine, GAUDISIM_QM_PQ_PI(q->stream)), 0);
		gaudisim_stream_msg_bases_init(gdev, q->engine, q->stream);
		enable[q->engine] |= BIT(q->stream);
	}

	for (i = GAUDISIM_ENGINE_DMA_2; i < GAUDISIM_ENGINE_COUNT; i++)
		if (enable[i])
			gaudisim_wreg(gdev, gaudisim_qm_reg(i, GAUDISIM_QM_GLBL_CFG0), enable[i]);
}

/*
 * Program the PQ registers of every present queue and enable its stream.
 * Called at probe and after a hard reset, with no job in flight.
 */
void gaudisim_queues_hw_init(struct gaudisim_device *gdev)
{
	u32 enable[GAUDISIM_NUM_PCI_DMA] = {};
	u32 i;

	for (i = 0; i < GAUDISIM_NUM_EXT_QUEUES; i++) {
		struct gaudisim_queue *q = &gdev->queues[i];

		if (!q->present)
			continue;

		spin_lock(&q->lock);
		q->pi = 0;
		q->ci = 0;
		memset(q->cq, 0, GAUDISIM_QUEUE_LEN * sizeof(*q->cq));
		spin_unlock(&q->lock);

		/* The PQ base is a plain bus address, not a device address. */
		gaudisim_wreg(gdev, gaudisim_qm_reg(q->engine, GAUDISIM_QM_PQ_BASE_LO(q->stream)),
			      lower_32_bits(q->pq_dma));
		gaudisim_wreg(gdev, gaudisim_qm_reg(q->engine, GAUDISIM_QM_PQ_BASE_HI(q->stream)),
			      upper_32_bits(q->pq_dma));
		gaudisim_wreg(gdev, gaudisim_qm_reg(q->engine, GAUDISIM_QM_PQ_SIZE(q->stream)),
			      GAUDISIM_QUEUE_LEN_LOG2);
		gaudisim_wreg(gdev, gaudisim_qm_reg(q->engine, GAUDISIM_QM_PQ_PI(q->stream)), 0);
		gaudisim_stream_msg_bases_init(gdev, q->engine, q->stream);
		enable[q->engine] |= BIT(q->stream);
	}

	for (i = 0; i < GAUDISIM_NUM_PCI_DMA; i++)
		gaudisim_wreg(gdev, gaudisim_qm_reg(i, GAUDISIM_QM_GLBL_CFG0), enable[i]);

	gaudisim_iqueues_hw_init(gdev);
}

u32 gaudisim_queue_free_slots(struct gaudisim_queue *q)
{
	u32 used;

	spin_lock(&q->lock);
	used = (q->pi - q->ci) & GAUDISIM_QUEUE_PTR_MASK;
	spin_unlock(&q->lock);

	return GAUDISIM_QUEUE_LEN - used;
}

/* The driver's PI and CI of @q, read together (for dumps). */
void gaudisim_queue_snapshot(struct gaudisim_queue *q, u32 *pi, u32 *ci)
{
	spin_lock(&q->lock);
	*pi = q->pi;
	*ci = q->ci;
	spin_unlock(&q->lock);
}

/**
 * gaudisim_queue_cb_asid() - whose CB on @q holds device address @addr?
 * @q: an external queue
 * @addr: a CB address from an error event
 *
 * Looks from the newest slot back, so a kernel CB whose memory was reused
 * is found as its latest job's.
 *
 * Return: the ASID of that job's context, 0 when no slot ran such a CB.
 */
u32 gaudisim_queue_cb_asid(struct gaudisim_queue *q, u64 addr)
{
	u32 n, slot, asid = 0;

	spin_lock(&q->lock);
	for (n = 1; n <= GAUDISIM_QUEUE_LEN; n++) {
		const struct gaudisim_slot_cb *cb;

		slot = gaudisim_queue_slot(q->pi - n);
		cb = &q->slot_cb[slot];
		if (cb->size && addr >= cb->addr && addr - cb->addr < cb->size) {
			asid = cb->asid;
			break;
		}
	}
	spin_unlock(&q->lock);
	return asid;
}

/* Whether jobs are in flight on @q; a snapshot for INFO. */
bool gaudisim_queue_busy(struct gaudisim_queue *q)
{
	return READ_ONCE(q->pi) != READ_ONCE(q->ci);
}

/**
 * gaudisim_queue_push() - put a job into the next PQ slot
 * @q: the queue, with a free slot (checked by the caller)
 * @job: a job whose kernel CB is complete except for its completion tail
 *
 * Writes the completion tail for the slot, the shadow entry and the BD.
 * The doorbell is rung separately, once per queue and submission.
 */
void gaudisim_queue_push(struct gaudisim_queue *q, struct gaudisim_job *job)
{
	u64 cq_addr;
	u32 slot;

	lockdep_assert_held(&q->gdev->submit_lock);

	spin_lock(&q->lock);
	slot = gaudisim_queue_slot(q->pi);
	cq_addr = q->cq_dma + slot * GAUDISIM_CQ_ENTRY_SIZE + GAUDISIM_HOST_BASE;
	gaudisim_job_write_tail(job, cq_addr,
				GAUDISIM_CQ_ENTRY_READY | GAUDISIM_CQ_ENTRY_SHADOW_VALID | slot,
				q->id);
	q->shadow[slot] = job;
	q->slot_cb[slot].addr = job->kcb_dma + GAUDISIM_HOST_BASE;
	q->slot_cb[slot].size = job->kcb_size;
	q->slot_cb[slot].asid = job->cs->ctx->asid;

	q->pq[slot].ctl = cpu_to_le32(slot | GAUDISIM_BD_CTL_COMPLETION_TAIL);
	q->pq[slot].len = cpu_to_le32(job->kcb_size);
	q->pq[slot].ptr = cpu_to_le64(job->kcb_dma + GAUDISIM_HOST_BASE);
	q->pi = gaudisim_queue_next(q->pi);
	spin_unlock(&q->lock);
}

/*
 * The caller follows up with gaudisim_queue_doorbell_drain(), once it no
 * longer holds submit_lock.
 */
void gaudisim_queue_ring_doorbell(struct gaudisim_queue *q)
{
	lockdep_assert_held(&q->gdev->submit_lock);

	atomic_inc(&q->ringing);
	/*
	 * The BDs and kernel CBs (and @ringing) must be visible before the
	 * device sees PI.
	 */
	wmb();
	gaudisim_wreg(q->gdev, gaudisim_qm_reg(q->engine, GAUDISIM_QM_PQ_PI(q->stream)),
		      q->pi);
}

/**
 * gaudisim_queue_doorbell_drain() - complete what the doorbell already ran
 * @q: a queue whose doorbell the caller rang
 *
 * The device runs a short CB inside the doorbell write, so its CQ entry
 * and MSI-X are often there before the write returns. An interrupt that
 * came while @ringing was held did not wake the thread (on the submitting
 * CPU it would have preempted the submitter only to hand the job back);
 * this drain, after @ringing drops, completes what it announced.
 */
void gaudisim_queue_doorbell_drain(struct gaudisim_queue *q)
{
	atomic_dec(&q->ringing);
	/* CQ entries are read after the decrement (see gaudisim_cq_irq()). */
	smp_mb__after_atomic();
	if (gaudisim_queue_cq_ready(q))
		gaudisim_queue_drain_cq(q);
}

/* Move @ci over the slots whose jobs have completed. */
static void gaudisim_queue_advance_ci(struct gaudisim_queue *q)
{
	lockdep_assert_held(&q->lock);

	while (q->ci != q->pi && !q->shadow[gaudisim_queue_slot(q->ci)])
		q->ci = gaudisim_queue_next(q->ci);
}

/**
 * gaudisim_queue_drain_cq() - complete the jobs whose CQ entries are READY
 * @q: the queue
 *
 * Called by the CQ interrupt thread, by reset and by a waiter before it
 * sleeps. A job is taken out of the shadow table under @q->lock, so
 * exactly one caller completes it; @q->drain_lock keeps the completions
 * of a queue in slot order, as a single interrupt thread had them.
 */
void gaudisim_queue_drain_cq(struct gaudisim_queue *q)
{
	struct gaudisim_job *job, *tmp;
	LIST_HEAD(done);
	u32 pos;

	mutex_lock(&q->drain_lock);
	spin_lock(&q->lock);
	for (pos = q->ci; pos != q->pi; pos = gaudisim_queue_next(pos)) {
		u32 slot = gaudisim_queue_slot(pos);
		u32 entry;

		job = q->shadow[slot];
		if (!job)
			continue;
		entry = le32_to_cpu(READ_ONCE(q->cq[slot]));
		if (!(entry & GAUDISIM_CQ_ENTRY_READY))
			continue;
		/* Act on nothing the device wrote before it set READY. */
		dma_rmb();
		WRITE_ONCE(q->cq[slot], 0);
		q->shadow[slot] = NULL;
		job->cq_entry = entry;
		list_add_tail(&job->done_node, &done);
	}
	gaudisim_queue_advance_ci(q);
	spin_unlock(&q->lock);

	list_for_each_entry_safe(job, tmp, &done, done_node) {
		list_del(&job->done_node);
		gaudisim_job_complete(job);
	}
	mutex_unlock(&q->drain_lock);
}

/**
 * gaudisim_queue_cq_ready() - does a CQ entry wait for a drainer?
 * @q: the queue
 *
 * Lockless, for the hard-IRQ half. The device writes a job's CQ entry
 * before the MSI-X of that job, and a drainer clears the entry when it
 * takes the job, so false means every job announced so far is taken.
 * PI is read before CI: the window seen is never longer than the ring,
 * and a CI past that PI means every slot before it is taken.
 *
 * Return: true when some slot in flight holds a READY entry.
 */
bool gaudisim_queue_cq_ready(struct gaudisim_queue *q)
{
	u32 pi = READ_ONCE(q->pi);
	u32 pos, n;

	/* PI before CI, see above. */
	smp_rmb();
	pos = READ_ONCE(q->ci);
	n = (pi - pos) & GAUDISIM_QUEUE_PTR_MASK;
	if (n > GAUDISIM_QUEUE_LEN)
		return false;
	for (; n; n--, pos = gaudisim_queue_next(pos))
		if (le32_to_cpu(READ_ONCE(q->cq[gaudisim_queue_slot(pos)])) &
		    GAUDISIM_CQ_ENTRY_READY)
			return true;
	return false;
}

/**
 * gaudisim_queue_abort() - fail every job still on @q and empty the rings
 * @q: the queue, after a hard reset stopped it (nothing DMAs any more)
 */
void gaudisim_queue_abort(struct gaudisim_queue *q)
{
	struct gaudisim_job *job, *tmp;
	LIST_HEAD(aborted);
	u32 pos;

	spin_lock(&q->lock);
	for (pos = q->ci; pos != q->pi; pos = gaudisim_queue_next(pos)) {
		u32 slot = gaudisim_queue_slot(pos);

		job = q->shadow[slot];
		if (!job)
			continue;
		q->shadow[slot] = NULL;
		list_add_tail(&job->done_node, &aborted);
	}
	q->pi = 0;
	q->ci = 0;
	memset(q->cq, 0, GAUDISIM_QUEUE_LEN * sizeof(*q->cq));
	spin_unlock(&q->lock);

	list_for_each_entry_safe(job, tmp, &aborted, done_node) {
		list_del(&job->done_node);
		gaudisim_job_abort(job, -EIO);
	}
}

/* The device's consumer index of an internal queue, same modulus as @pi. */
static u32 gaudisim_iqueue_hw_ci(struct gaudisim_iqueue *q)
{
	return gaudisim_rreg(q->gdev, gaudisim_qm_reg(q->engine, GAUDISIM_QM_PQ_CI(q->stream))) &
	       (2 * GAUDISIM_IQUEUE_LEN - 1);
}

/*
 * Free slots of an internal queue. Gaudi's driver frees a slot when the
 * CS that used it is released; reading the device's PQ_CI is as cheap
 * here and never lets a BD be overwritten before the CP fetched it.
 */
u32 gaudisim_iqueue_free_slots(struct gaudisim_iqueue *q)
{
	u32 used = (q->pi - gaudisim_iqueue_hw_ci(q)) & (2 * GAUDISIM_IQUEUE_LEN - 1);

	lockdep_assert_held(&q->gdev->submit_lock);
	return used > GAUDISIM_IQUEUE_LEN ? 0 : GAUDISIM_IQUEUE_LEN - used;
}

/* Whether the CP has BDs of @q left to fetch; a snapshot for INFO. */
bool gaudisim_iqueue_busy(struct gaudisim_iqueue *q)
{
	return READ_ONCE(q->pi) != gaudisim_iqueue_hw_ci(q);
}

/* Put an internal job (a CB in HBM or SRAM) into the next PQ slot. */
void gaudisim_iqueue_push(struct gaudisim_iqueue *q, struct gaudisim_job *job)
{
	u32 slot = q->pi & (GAUDISIM_IQUEUE_LEN - 1);

	lockdep_assert_held(&q->gdev->submit_lock);

	q->pq[slot].ctl = 0;
	q->pq[slot].len = cpu_to_le32(job->kcb_size);
	q->pq[slot].ptr = cpu_to_le64(job->cb_addr);
	q->pi = (q->pi + 1) & (2 * GAUDISIM_IQUEUE_LEN - 1);
	job->iq_ticket = ++q->pushed;
}

/**
 * gaudisim_iqueue_job_done() - has the CP finished the job of @ticket?
 * @q: the internal queue
 * @ticket: the job's gaudisim_job.iq_ticket
 *
 * The CP moves PQ_CI past a BD when it finished that CB, so the BDs not
 * yet finished are the last PI - CI pushed. A reset empties the ring:
 * every job pushed before it counts as done.
 *
 * Return: true when the job is off the engine.
 */
bool gaudisim_iqueue_job_done(struct gaudisim_iqueue *q, u64 ticket)
{
	u32 left;

	lockdep_assert_held(&q->gdev->submit_lock);
	left = (q->pi - gaudisim_iqueue_hw_ci(q)) & (2 * GAUDISIM_IQUEUE_LEN - 1);
	return q->pushed - left >= ticket;
}

void gaudisim_iqueue_ring_doorbell(struct gaudisim_iqueue *q)
{
	lockdep_assert_held(&q->gdev->submit_lock);

	/* The BDs must be visible before the device sees PI. */
	wmb();
	gaudisim_wreg(q->gdev, gaudisim_qm_reg(q->engine, GAUDISIM_QM_PQ_PI(q->stream)),
		      q->pi);
}
