// SPDX-License-Identifier: GPL-2.0
/*
 * SIGNAL and WAIT command submissions, as Gaudi-1's habanalabs has them.
 *
 * Each external queue owns two of the driver's sync objects (SOBs 128..143)
 * and one monitor (64..71). A SIGNAL CS is one driver job on its queue: a
 * MSG_SHORT, behind an engine barrier, that adds 1 to the queue's current
 * SOB. Its value after the signal is fixed when the CS is pushed (under
 * gdev->submit_lock, in queue order), so a WAIT CS knows what to wait for:
 * its driver job arms the waiting queue's monitor on that SOB reaching the
 * value, with a payload that raises fence 2 of the waiting stream, and
 * then FENCEs on it. The queue waits in the sync manager; the host does
 * not poll. Several signals are waited for one after the other with the
 * same monitor (the queue runs one CB at a time).
 *
 * Wraparound: SOBs count to signal_sob_max (Gaudi's 15-bit limit by
 * default). The signal that would pass it moves the queue to its other
 * SOB, which is zeroed first; it may be only when no job still signals or
 * watches it, else the SIGNAL CS gets EBUSY (not EAGAIN, which libdrm
 * retries at once; habanalabs answers EINVAL). A hard reset zeroes every
 * SOB in the device and the counts here.
 *
 * Encapsulated signals: a reservation takes a run of values of the
 * queue's current SOB, as that many SIGNAL CSs would, and holds the SOB
 * against wraparound until it is released. A CS submitted with the handle
 * may add to that SOB itself (the parser lets each job add up to the
 * reserved count); a WAIT CS naming that CS's seq and an offset waits for
 * the SOB to reach the reservation's start plus the offset. A hard reset
 * ends every reservation's signals: waits on them then fail with EIO.
 */

#include <linux/list.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <drm/drm_drv.h>

#include <hw/gaudisim_hw_gaudi_map.h>
#include <hw/gaudisim_hw_packets.h>
#include <hw/gaudisim_hw_sync.h>

#include "gaudisim_cs.h"
#include "gaudisim_cs_sigwait.h"
#include "gaudisim_ctx.h"
#include "gaudisim_drv.h"
#include "gaudisim_hw.h"
#include "gaudisim_queue.h"

/* The fence of a stream that WAIT jobs use (habanalabs' Gaudi uses 2 too). */
#define GAUDISIM_SIGWAIT_FENCE_ID	2

static unsigned int gaudisim_signal_sob_max = GAUDISIM_SYNC_SOB_MAX;

static int gaudisim_signal_sob_max_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;
	int rc;

	rc = kstrtouint(val, 0, &v);
	if (rc)
		return rc;
	if (v < 2 || v > GAUDISIM_SYNC_SOB_MAX)
		return -EINVAL;
	WRITE_ONCE(gaudisim_signal_sob_max, v);
	return 0;
}

static const struct kernel_param_ops gaudisim_signal_sob_max_ops = {
	.set = gaudisim_signal_sob_max_set,
	.get = param_get_uint,
};

module_param_cb(signal_sob_max, &gaudisim_signal_sob_max_ops, &gaudisim_signal_sob_max, 0644);
MODULE_PARM_DESC(signal_sob_max,
		 "highest count of a SIGNAL sync object before the queue moves to its other one (2..32767)");

/*
 * A WAIT job is a run of 8-byte packets, one slot per packet: per awaited
 * signal, MSG_SHORT payload setup (3), arm (1) and FENCE (1), or five NOPs.
 */
union gaudisim_sigwait_pkt {
	struct gaudisim_packet_msg_short msg;
	struct gaudisim_packet_fence fence;
	struct gaudisim_packet_nop nop;
};

static_assert(sizeof(union gaudisim_sigwait_pkt) == GAUDISIM_PKT_SIZE_MSG_SHORT);
static_assert(sizeof(union gaudisim_sigwait_pkt) == GAUDISIM_PKT_SIZE_FENCE);
static_assert(sizeof(union gaudisim_sigwait_pkt) == GAUDISIM_PKT_SIZE_NOP);

#define GAUDISIM_WAIT_PKTS_PER_SIGNAL	5

static u32 gaudisim_sigwait_sob(u32 q, u32 idx)
{
	return GAUDISIM_SYNC_DRIVER_SOB_FIRST + q * GAUDISIM_SIGWAIT_SOBS_PER_QUEUE + idx;
}

static u32 gaudisim_sigwait_mon(u32 q)
{
	return GAUDISIM_SYNC_DRIVER_MON_FIRST + q;
}

static void gaudisim_sigwait_msg_short(struct gaudisim_packet_msg_short *p, u32 base,
				       u32 offset, u32 value, u32 barriers)
{
	p->value = cpu_to_le32(value);
	p->ctl = cpu_to_le32(gaudisim_msg_short_ctl(base, offset, barriers));
}

static void gaudisim_sigwait_mon_reg(union gaudisim_sigwait_pkt *p, u32 reg, u32 value)
{
	gaudisim_sigwait_msg_short(&p->msg, GAUDISIM_MSG_BASE_MON,
				   reg - GAUDISIM_SYNC_MON_BASE_OFFSET, value, 0);
}

static void gaudisim_sigwait_nop(union gaudisim_sigwait_pkt *p)
{
	p->nop.reserved = 0;
	p->nop.ctl = cpu_to_le32(GAUDISIM_PKT_CTL(GAUDISIM_PKT_NOP));
}

/**
 * gaudisim_sigwait_put_sobs() - drop a finished job's SOB references
 * @gdev: the device
 * @sob_refs: bit i: driver SOB GAUDISIM_SYNC_DRIVER_SOB_FIRST + i
 */
void gaudisim_sigwait_put_sobs(struct gaudisim_device *gdev, u16 sob_refs)
{
	unsigned long refs = sob_refs;
	u32 i;

	for_each_set_bit(i, &refs, GAUDISIM_SIGWAIT_NUM_SOBS)
		atomic_dec(&gdev->sigwait.users[i]);
}

static void gaudisim_sigwait_get_sob(struct gaudisim_device *gdev, struct gaudisim_job *job,
				     u32 sob)
{
	u32 i = sob - GAUDISIM_SYNC_DRIVER_SOB_FIRST;

	if (job->sob_refs & BIT(i))
		return;
	job->sob_refs |= BIT(i);
	atomic_inc(&gdev->sigwait.users[i]);
}

/**
 * gaudisim_sigwait_hw_reset() - forget the SOB counts after a hard reset
 * @gdev: the device, its sync manager just reset (every SOB is 0)
 *
 * Called under submit_lock once every job was aborted, so no job holds a
 * SOB any more; reservations drop theirs.
 */
void gaudisim_sigwait_hw_reset(struct gaudisim_device *gdev)
{
	struct gaudisim_encap *e;

	lockdep_assert_held(&gdev->submit_lock);
	/* Reservations stay until released, their signals gone. */
	list_for_each_entry(e, &gdev->sigwait.encaps, node) {
		if (e->sob)
			atomic_dec(&gdev->sigwait.users[e->sob - GAUDISIM_SYNC_DRIVER_SOB_FIRST]);
		e->sob = 0;
	}
	memset(gdev->sigwait.curr, 0, sizeof(gdev->sigwait.curr));
	memset(gdev->sigwait.count, 0, sizeof(gdev->sigwait.count));
}

/*
 * Under submit_lock: take @n values of queue @q's current SOB, moving to
 * its other SOB first when they would pass signal_sob_max. *@pre gets
 * the SOB's value before them.
 */
static int gaudisim_sigwait_take(struct gaudisim_device *gdev, u32 q, u32 n, u32 *sob, u16 *pre)
{
	struct gaudisim_sigwait *sw = &gdev->sigwait;

	if (sw->count[q] + n > READ_ONCE(gaudisim_signal_sob_max)) {
		u32 other = sw->curr[q] ^ 1;
		u32 osob = gaudisim_sigwait_sob(q, other);

		if (atomic_read(&sw->users[osob - GAUDISIM_SYNC_DRIVER_SOB_FIRST])) {
			gaudisim_dbg(gdev, "queue %u: SOB %u is still in use, cannot wrap\n",
				     q, osob);
			return -EBUSY;
		}
		/* Nothing signals or watches it: zero it for its next round. */
		gaudisim_wreg(gdev, GAUDISIM_BLOCK_SYNC_MNGR + GAUDISIM_SYNC_SOB_OBJ(osob),
			      GAUDISIM_SYNC_SOB_SET(0));
		sw->curr[q] = other;
		sw->count[q] = 0;
	}
	*sob = gaudisim_sigwait_sob(q, sw->curr[q]);
	*pre = sw->count[q];
	sw->count[q] += n;
	return 0;
}

/* Under submit_lock: give a SIGNAL CS its SOB and value, write its packet. */
static int gaudisim_signal_prepare(struct gaudisim_cs *cs)
{
	struct gaudisim_device *gdev = cs->ctx->gdev;
	struct gaudisim_job *job = &cs->jobs[0];
	u32 sob;
	u16 pre;
	int rc;

	rc = gaudisim_sigwait_take(gdev, job->queue_id, 1, &sob, &pre);
	if (rc)
		return rc;
	cs->sig_sob = sob;
	cs->sig_value = pre + 1;
	gaudisim_sigwait_get_sob(gdev, job, sob);
	/* Behind the queue's earlier work: engine and message barriers. */
	gaudisim_sigwait_msg_short(job->kcb, GAUDISIM_MSG_BASE_SOB, 4 * sob,
				   GAUDISIM_SYNC_SOB_ADD(1),
				   GAUDISIM_PKT_CTL_EB | GAUDISIM_PKT_CTL_MB);
	return 0;
}

/* Under submit_lock: @ctx's reservation @id, or NULL. */
static struct gaudisim_encap *gaudisim_encap_find(struct gaudisim_ctx *ctx, u32 id)
{
	struct gaudisim_encap *e;

	lockdep_assert_held(&ctx->gdev->submit_lock);
	list_for_each_entry(e, &ctx->gdev->sigwait.encaps, node)
		if (e->ctx == ctx && e->id == id)
			return e;
	return NULL;
}

/* Under submit_lock: @ctx's reservation whose last CS is @seq, or NULL. */
static struct gaudisim_encap *gaudisim_encap_find_seq(struct gaudisim_ctx *ctx, u64 seq)
{
	struct gaudisim_encap *e;

	list_for_each_entry(e, &ctx->gdev->sigwait.encaps, node)
		if (e->ctx == ctx && e->cs_seq == seq)
			return e;
	return NULL;
}

static void gaudisim_encap_free(struct gaudisim_device *gdev, struct gaudisim_encap *e)
{
	if (e->sob)
		atomic_dec(&gdev->sigwait.users[e->sob - GAUDISIM_SYNC_DRIVER_SOB_FIRST]);
	list_del(&e->node);
	kfree(e);
}

/**
 * gaudisim_encap_reserve() - RESERVE_SIGNALS_ONLY
 * @ctx: the context
 * @in: encaps_signals_q_idx and encaps_signals_count
 * @out: the handle, the count and the SOB's offset from CFG_BASE
 *
 * Return: 0; -EINVAL for a queue without a sync stream, a count of 0 or
 * above signal_sob_max, or too many reservations; -EBUSY when the queue
 * cannot move to its other SOB, or the device is not operational.
 */
int gaudisim_encap_reserve(struct gaudisim_ctx *ctx, const struct gaudisim_cs_in *in,
			   struct gaudisim_cs_out *out)
{
	struct gaudisim_device *gdev = ctx->gdev;
	struct gaudisim_sigwait *sw = &gdev->sigwait;
	u32 q = in->encaps_signals_q_idx, n = in->encaps_signals_count;
	struct gaudisim_encap *e, *it;
	u32 held = 0, sob;
	int rc, idx;

	if (q >= GAUDISIM_QUEUE_ID_SIZE || !GAUDISIM_QUEUE_IS_EXTERNAL(q) ||
	    !gaudisim_queue_present(gdev, q)) {
		gaudisim_dbg(gdev, "queue %u has no sync stream to reserve signals on\n", q);
		return -EINVAL;
	}
	if (!n || n > READ_ONCE(gaudisim_signal_sob_max)) {
		gaudisim_dbg(gdev, "cannot reserve %u signals (1..%u)\n", n,
			     READ_ONCE(gaudisim_signal_sob_max));
		return -EINVAL;
	}
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	if (!drm_dev_enter(&gdev->drm, &idx)) {
		kfree(e);
		return -ENODEV;
	}
	mutex_lock(&gdev->submit_lock);
	list_for_each_entry(it, &sw->encaps, node)
		held += it->ctx == ctx;
	if (held >= GAUDISIM_ENCAP_MAX_PER_CTX) {
		gaudisim_dbg(gdev, "a context holds at most %u reservations\n",
			     GAUDISIM_ENCAP_MAX_PER_CTX);
		rc = -EINVAL;
		goto out_unlock;
	}
	if (gaudisim_status(gdev) != GAUDISIM_DEVICE_STATUS_OPERATIONAL) {
		rc = -EBUSY;
		goto out_unlock;
	}
	rc = gaudisim_sigwait_take(gdev, q, n, &sob, &e->pre);
	if (rc)
		goto out_unlock;
	atomic_inc(&sw->users[sob - GAUDISIM_SYNC_DRIVER_SOB_FIRST]);
	e->ctx = ctx;
	e->queue_id = q;
	e->sob = sob;
	e->count = n;
	/* Handles stay unique however many come and go (0 is never one). */
	do {
		e->id = ++sw->next_encap_id;
	} while (!e->id || gaudisim_encap_find(ctx, e->id));
	list_add_tail(&e->node, &sw->encaps);

	memset(out, 0, sizeof(*out));
	out->handle_id = e->id;
	out->count = n;
	out->sob_base_addr_offset = gaudisim_gaudi_sob_offset(sob);
	out->status = GAUDISIM_CS_STATUS_SUCCESS;
	e = NULL;
out_unlock:
	mutex_unlock(&gdev->submit_lock);
	drm_dev_exit(idx);
	kfree(e);
	return rc;
}

/**
 * gaudisim_encap_unreserve() - UNRESERVE_SIGNALS_ONLY
 * @ctx: the context
 * @in: encaps_sig_handle_id
 *
 * The handle ends. Its signals go back to the queue when no CS used it
 * and nothing was reserved or signalled on the queue since; otherwise
 * they stay counted, so later signals keep values the SOB will reach.
 *
 * Return: 0, or -EINVAL for a handle this context does not hold.
 */
int gaudisim_encap_unreserve(struct gaudisim_ctx *ctx, const struct gaudisim_cs_in *in)
{
	struct gaudisim_device *gdev = ctx->gdev;
	struct gaudisim_sigwait *sw = &gdev->sigwait;
	struct gaudisim_encap *e;
	u32 q;

	mutex_lock(&gdev->submit_lock);
	e = gaudisim_encap_find(ctx, in->encaps_sig_handle_id);
	if (!e) {
		mutex_unlock(&gdev->submit_lock);
		gaudisim_dbg(gdev, "no reserved signals with handle %u\n",
			     in->encaps_sig_handle_id);
		return -EINVAL;
	}
	q = e->queue_id;
	if (e->sob && !e->cs_seq && e->sob == gaudisim_sigwait_sob(q, sw->curr[q]) &&
	    sw->count[q] == e->pre + e->count)
		sw->count[q] = e->pre;
	gaudisim_encap_free(gdev, e);
	mutex_unlock(&gdev->submit_lock);
	return 0;
}

/* Under submit_lock: -EINVAL, -EIO or 0 for @ctx's handle @id. */
static int gaudisim_encap_state(struct gaudisim_ctx *ctx, u32 id, struct gaudisim_encap **out)
{
	struct gaudisim_encap *e = gaudisim_encap_find(ctx, id);

	if (!e) {
		gaudisim_dbg(ctx->gdev, "no reserved signals with handle %u\n", id);
		return -EINVAL;
	}
	if (!e->sob) {
		gaudisim_dbg(ctx->gdev, "reserved signals %u were lost to a reset\n", id);
		return -EIO;
	}
	*out = e;
	return 0;
}

/**
 * gaudisim_encap_get() - the reservation a CS with ENCAP_SIGNALS names
 * @ctx: the context
 * @id: the handle
 * @info: what its jobs may signal
 *
 * Return: 0, -EINVAL for a handle this context does not hold, -EIO for
 * one a hard reset ended.
 */
int gaudisim_encap_get(struct gaudisim_ctx *ctx, u32 id, struct gaudisim_encap_info *info)
{
	struct gaudisim_encap *e;
	int rc;

	mutex_lock(&ctx->gdev->submit_lock);
	rc = gaudisim_encap_state(ctx, id, &e);
	if (!rc) {
		info->id = id;
		info->sob = e->sob;
		info->count = e->count;
		info->pre = e->pre;
	}
	mutex_unlock(&ctx->gdev->submit_lock);
	return rc;
}

/**
 * gaudisim_encap_check() - is a CS's reservation still what it was parsed for
 * @ctx: the context; gdev->submit_lock is held
 * @info: what gaudisim_encap_get() answered when the CS was built
 *
 * Return: 0, -EINVAL when the handle was released meanwhile, -EIO when a
 * hard reset ended it.
 */
int gaudisim_encap_check(struct gaudisim_ctx *ctx, const struct gaudisim_encap_info *info)
{
	struct gaudisim_encap *e;

	lockdep_assert_held(&ctx->gdev->submit_lock);
	return gaudisim_encap_state(ctx, info->id, &e);
}

/**
 * gaudisim_encap_bind() - a CS with ENCAP_SIGNALS got its seq
 * @ctx: the context; gdev->submit_lock is held
 * @id: its handle (gaudisim_encap_check() found it)
 * @seq: the CS's seq, which WAIT CSs name from now on
 */
void gaudisim_encap_bind(struct gaudisim_ctx *ctx, u32 id, u64 seq)
{
	struct gaudisim_encap *e = gaudisim_encap_find(ctx, id);

	if (e)
		e->cs_seq = seq;
}

/**
 * gaudisim_encap_ctx_fini() - end a closing context's reservations
 * @ctx: the context; none of its jobs is on the device any more
 */
void gaudisim_encap_ctx_fini(struct gaudisim_ctx *ctx)
{
	struct gaudisim_device *gdev = ctx->gdev;
	struct gaudisim_encap *e, *tmp;

	mutex_lock(&gdev->submit_lock);
	list_for_each_entry_safe(e, tmp, &gdev->sigwait.encaps, node)
		if (e->ctx == ctx)
			gaudisim_encap_free(gdev, e);
	mutex_unlock(&gdev->submit_lock);
}

/**
 * gaudisim_sigwait_init() - empty SIGNAL/WAIT state at probe
 * @gdev: the device
 */
void gaudisim_sigwait_init(struct gaudisim_device *gdev)
{
	INIT_LIST_HEAD(&gdev->sigwait.encaps);
}

/*
 * Look a signal seq up in @ctx. Returns 1 when the signal still has to
 * happen (*sob and *value say what to wait for), 0 when it happened (or
 * is too old to know), or a negative error: -EINVAL for a seq that is not
 * a SIGNAL CS of this context, -EIO for a signal that failed.
 */
static int gaudisim_signal_lookup(struct gaudisim_ctx *ctx, u64 seq, u32 *sob, u32 *value)
{
	struct gaudisim_device *gdev = ctx->gdev;
	struct gaudisim_cs_outcome *o;
	struct gaudisim_cs *cs;
	int rc;

	spin_lock(&ctx->cs_lock);
	if (!seq || seq >= ctx->next_seq) {
		rc = -EINVAL;
		gaudisim_dbg(gdev, "no CS %llu in this context\n", seq);
		goto out;
	}
	cs = ctx->pending[seq & (GAUDISIM_MAX_PENDING_CS - 1)];
	if (cs && cs->seq == seq) {
		if (cs->type != GAUDISIM_CS_TYPE_SIGNAL) {
			rc = -EINVAL;
			gaudisim_dbg(gdev, "CS %llu is not a SIGNAL CS\n", seq);
			goto out;
		}
		*sob = cs->sig_sob;
		*value = cs->sig_value;
		rc = 1;
		goto out;
	}
	o = &ctx->outcomes[seq & (GAUDISIM_CS_OUTCOMES - 1)];
	if (o->seq != seq) {
		/* Retired beyond the outcome history: it completed long ago. */
		rc = 0;
		goto out;
	}
	if (!o->is_signal) {
		rc = -EINVAL;
		gaudisim_dbg(gdev, "CS %llu is not a SIGNAL CS\n", seq);
	} else if (o->status) {
		rc = -EIO;
		gaudisim_dbg(gdev, "SIGNAL CS %llu failed (%d)\n", seq, o->status);
	} else {
		rc = 0;
	}
out:
	spin_unlock(&ctx->cs_lock);
	return rc;
}

/*
 * Under submit_lock: what a WAIT on @offset signals of the reservation
 * last used by CS @seq waits for (always 1: the SOB is read by the
 * monitor), -EINVAL for no such reservation or an offset past it, -EIO
 * for one a hard reset ended.
 */
static int gaudisim_encap_lookup(struct gaudisim_ctx *ctx, u64 seq, u32 offset,
				 u32 *sob, u32 *value)
{
	struct gaudisim_device *gdev = ctx->gdev;
	struct gaudisim_encap *e = seq ? gaudisim_encap_find_seq(ctx, seq) : NULL;

	if (!e) {
		gaudisim_dbg(gdev, "no reserved signals used by CS %llu\n", seq);
		return -EINVAL;
	}
	if (offset > e->count) {
		gaudisim_dbg(gdev, "offset %u is past the %u reserved signals\n",
			     offset, e->count);
		return -EINVAL;
	}
	if (!e->sob) {
		gaudisim_dbg(gdev, "reserved signals %u were lost to a reset\n", e->id);
		return -EIO;
	}
	*sob = e->sob;
	*value = e->pre + offset;
	return 1;
}

/*
 * Under submit_lock: write the WAIT job's packets for the signals still
 * to come (NOPs for those that already happened) and hold their SOBs.
 */
static int gaudisim_wait_prepare(struct gaudisim_cs *cs)
{
	struct gaudisim_ctx *ctx = cs->ctx;
	struct gaudisim_device *gdev = ctx->gdev;
	struct gaudisim_job *job = &cs->jobs[0];
	union gaudisim_sigwait_pkt *p = job->kcb;
	u32 q = job->queue_id, mon = gaudisim_sigwait_mon(q);
	u64 fence = GAUDISIM_CFG_BASE + GAUDISIM_QM_BLOCK(gaudisim_queue_engine(q)) +
		    GAUDISIM_QM_CP_FENCE_RDATA(GAUDISIM_SIGWAIT_FENCE_ID,
					       gaudisim_queue_stream(q));
	u32 i, j, sob, value;
	int rc;

	for (i = 0; i < cs->num_wait_seqs; i++, p += GAUDISIM_WAIT_PKTS_PER_SIGNAL) {
		if (cs->flags & GAUDISIM_CS_FLAGS_ENCAP_SIGNALS)
			rc = gaudisim_encap_lookup(ctx, cs->wait_seqs[i], cs->encap_offset,
						   &sob, &value);
		else
			rc = gaudisim_signal_lookup(ctx, cs->wait_seqs[i], &sob, &value);
		if (rc < 0)
			goto err;
		if (!rc) {
			for (j = 0; j < GAUDISIM_WAIT_PKTS_PER_SIGNAL; j++)
				gaudisim_sigwait_nop(&p[j]);
			continue;
		}
		gaudisim_sigwait_get_sob(gdev, job, sob);
		gaudisim_sigwait_mon_reg(&p[0], GAUDISIM_SYNC_MON_PAY_ADDRL(mon),
					 lower_32_bits(fence));
		gaudisim_sigwait_mon_reg(&p[1], GAUDISIM_SYNC_MON_PAY_ADDRH(mon),
					 upper_32_bits(fence));
		gaudisim_sigwait_mon_reg(&p[2], GAUDISIM_SYNC_MON_PAY_DATA(mon), 1);
		gaudisim_sigwait_mon_reg(&p[3], GAUDISIM_SYNC_MON_ARM(mon),
					 GAUDISIM_SYNC_MON_ARM_SOB(sob, false, value));
		p[4].fence.cfg = cpu_to_le32(gaudisim_fence_cfg(GAUDISIM_SIGWAIT_FENCE_ID, 1, 1));
		p[4].fence.ctl = cpu_to_le32(GAUDISIM_PKT_CTL(GAUDISIM_PKT_FENCE));
	}
	return 0;

err:
	gaudisim_sigwait_put_sobs(gdev, job->sob_refs);
	job->sob_refs = 0;
	return rc;
}

/**
 * gaudisim_cs_sigwait_prepare() - fill a SIGNAL/WAIT job at push time
 * @cs: the CS; gdev->submit_lock is held and the device is operational
 *
 * Return: 0, -EBUSY (SOB wraparound blocked), -EINVAL or -EIO (a WAIT on
 * a signal that is not one or that failed).
 */
int gaudisim_cs_sigwait_prepare(struct gaudisim_cs *cs)
{
	lockdep_assert_held(&cs->ctx->gdev->submit_lock);

	if (cs->type == GAUDISIM_CS_TYPE_SIGNAL)
		return gaudisim_signal_prepare(cs);
	return gaudisim_wait_prepare(cs);
}

/* Checks of the one chunk of a SIGNAL/WAIT CS. */
static int gaudisim_sigwait_chunk_check(struct gaudisim_device *gdev,
					const struct gaudisim_cs_chunk *chunk, bool wait,
					bool encap)
{
	u32 q = chunk->queue_index;

	if (chunk->cs_chunk_flags || chunk->collective_engine_id ||
	    memchr_inv(chunk->pad, 0, sizeof(chunk->pad))) {
		gaudisim_dbg(gdev, "chunk flags, collective engine and padding must be 0\n");
		return -EINVAL;
	}
	if (q >= GAUDISIM_QUEUE_ID_SIZE || !gaudisim_queue_present(gdev, q)) {
		gaudisim_dbg(gdev, "queue %u does not exist\n", q);
		return -EINVAL;
	}
	if (!GAUDISIM_QUEUE_IS_EXTERNAL(q)) {
		gaudisim_dbg(gdev, "queue %u has no sync stream: only external queues signal and wait\n",
			     q);
		return -EINVAL;
	}
	if (wait && encap) {
		if (!chunk->encaps_signal_seq) {
			gaudisim_dbg(gdev, "a WAIT on encapsulated signals names a CS\n");
			return -EINVAL;
		}
	} else if (wait) {
		if (!chunk->num_signal_seq_arr ||
		    chunk->num_signal_seq_arr > GAUDISIM_CS_WAIT_MAX_SIGNALS) {
			gaudisim_dbg(gdev, "a WAIT CS names 1 to %u signals, not %u\n",
				     GAUDISIM_CS_WAIT_MAX_SIGNALS, chunk->num_signal_seq_arr);
			return -EINVAL;
		}
	} else if (chunk->cb_handle || chunk->cb_size) {
		gaudisim_dbg(gdev, "a SIGNAL chunk has no CB: handle and size must be 0\n");
		return -EINVAL;
	}
	return 0;
}

/* Has every signal of @seqs happened? -errno for a bad seq. */
static int gaudisim_signals_done(struct gaudisim_ctx *ctx, const u64 *seqs, u32 n)
{
	u32 i, sob, value;
	int rc, pending = 0;

	for (i = 0; i < n; i++) {
		rc = gaudisim_signal_lookup(ctx, seqs[i], &sob, &value);
		if (rc < 0)
			return rc;
		pending |= rc;
	}
	return !pending;
}

/**
 * gaudisim_cs_sigwait_submit() - the CS ioctl for SIGNAL and WAIT flags
 * @ctx: the submitting context
 * @in: the ioctl's input (flags checked against GAUDISIM_CS_FLAGS_ALL)
 * @timeout_s: the CS's timeout
 * @out: the answer: seq (ULLONG_MAX for a WAIT with nothing left to wait
 *       for), status, and for a SIGNAL its SOB and that SOB's count before
 *
 * Return: 0 or a negative errno; the CS then was not submitted.
 */
int gaudisim_cs_sigwait_submit(struct gaudisim_ctx *ctx, const struct gaudisim_cs_in *in,
			       u32 timeout_s, struct gaudisim_cs_out *out)
{
	struct gaudisim_device *gdev = ctx->gdev;
	bool wait = in->cs_flags & GAUDISIM_CS_FLAGS_WAIT;
	bool encap = in->cs_flags & GAUDISIM_CS_FLAGS_ENCAP_SIGNALS;
	struct gaudisim_cs_chunk chunk;
	struct gaudisim_job *job;
	struct gaudisim_cs *cs;
	u32 size;
	int rc, idx;

	if (((in->cs_flags & GAUDISIM_CS_FLAGS_SIGNAL) && wait) || (encap && !wait)) {
		gaudisim_dbg(gdev, "a CS is SIGNAL or WAIT, not both; ENCAP_SIGNALS only WAITs\n");
		rc = -EINVAL;
		goto validation_drop;
	}
	if (in->num_chunks_execute != 1) {
		gaudisim_dbg(gdev, "a SIGNAL/WAIT CS has one chunk, not %u\n",
			     in->num_chunks_execute);
		rc = -EINVAL;
		goto validation_drop;
	}
	if (copy_from_user(&chunk, u64_to_user_ptr(in->chunks_execute), sizeof(chunk)))
		return -EFAULT;
	rc = gaudisim_sigwait_chunk_check(gdev, &chunk, wait, encap);
	if (rc)
		goto validation_drop;

	cs = gaudisim_cs_alloc(ctx, 1, in->cs_flags, timeout_s);
	if (!cs) {
		gaudisim_cs_count_drop(ctx, GAUDISIM_DROP_OUT_OF_MEM);
		return -ENOMEM;
	}
	job = &cs->jobs[0];
	job->queue_id = chunk.queue_index;
	cs->num_ext_jobs = 1;
	if (wait && encap) {
		cs->type = GAUDISIM_CS_TYPE_WAIT;
		cs->num_wait_seqs = 1;
		cs->wait_seqs[0] = chunk.encaps_signal_seq;
		cs->encap_offset = chunk.encaps_signal_offset;
		size = GAUDISIM_WAIT_PKTS_PER_SIGNAL * sizeof(union gaudisim_sigwait_pkt);
	} else if (wait) {
		cs->type = GAUDISIM_CS_TYPE_WAIT;
		cs->num_wait_seqs = chunk.num_signal_seq_arr;
		if (copy_from_user(cs->wait_seqs, u64_to_user_ptr(chunk.signal_seq_arr),
				   cs->num_wait_seqs * sizeof(cs->wait_seqs[0]))) {
			rc = -EFAULT;
			goto out_discard;
		}
		rc = gaudisim_signals_done(ctx, cs->wait_seqs, cs->num_wait_seqs);
		if (rc < 0) {
			gaudisim_cs_count_drop(ctx, GAUDISIM_DROP_VALIDATION);
			goto out_discard;
		}
		if (rc) {
			/* As habanalabs: nothing to wait for, nothing submitted. */
			memset(out, 0, sizeof(*out));
			out->seq = U64_MAX;
			out->status = GAUDISIM_CS_STATUS_SUCCESS;
			rc = 0;
			goto out_discard;
		}
		size = cs->num_wait_seqs * GAUDISIM_WAIT_PKTS_PER_SIGNAL *
		       sizeof(union gaudisim_sigwait_pkt);
	} else {
		cs->type = GAUDISIM_CS_TYPE_SIGNAL;
		size = sizeof(struct gaudisim_packet_msg_short);
	}

	rc = gaudisim_job_alloc_kcb(job, size + GAUDISIM_CB_COMPLETION_TAIL_SIZE);
	if (rc) {
		gaudisim_cs_count_drop(ctx, GAUDISIM_DROP_OUT_OF_MEM);
		goto out_discard;
	}

	if (!drm_dev_enter(&gdev->drm, &idx)) {
		rc = -ENODEV;
		goto out_discard;
	}
	rc = gaudisim_cs_push(cs, true);
	drm_dev_exit(idx);
	if (rc) {
		if (rc == -EINVAL || rc == -EIO)
			gaudisim_cs_count_drop(ctx, GAUDISIM_DROP_VALIDATION);
		goto out_discard;
	}

	memset(out, 0, sizeof(*out));
	out->seq = cs->seq;
	out->status = GAUDISIM_CS_STATUS_SUCCESS;
	if (!wait) {
		out->sob_base_addr_offset = gaudisim_gaudi_sob_offset(cs->sig_sob);
		out->sob_count_before_submission = cs->sig_value - 1;
	}
	gaudisim_cs_put(cs);
	return 0;

out_discard:
	gaudisim_cs_discard(cs);
	return rc;

validation_drop:
	gaudisim_cs_count_drop(ctx, GAUDISIM_DROP_VALIDATION);
	return rc;
}
