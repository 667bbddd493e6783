// SPDX-License-Identifier: GPL-2.0
/*
 * Device reset. Gaudi always resets the whole device; so does gaudisim.
 *
 * A reset holds gdev->submit_lock, so no submission is half-written while
 * it runs. After the hardware reset nothing DMAs or interrupts for old
 * work; entries that completed before it are still honoured, the rest of
 * the jobs are aborted with -EIO (their CSs end ABORTED, unless they had
 * already timed out), waits on user interrupts end ABORTED, and the
 * queues are set up again.
 */

#include <drm/drm_drv.h>

#include "gaudisim_coredump.h"
#include "gaudisim_cs_sigwait.h"
#include "gaudisim_drv.h"
#include "gaudisim_eq.h"
#include "gaudisim_hw.h"
#include "gaudisim_irq.h"
#include "gaudisim_mmu.h"
#include "gaudisim_nic.h"
#include "gaudisim_notify.h"
#include "gaudisim_queue.h"
#include "gaudisim_reset.h"
#include "gaudisim_rights.h"
#include "gaudisim_uirq.h"

static void gaudisim_abort_all(struct gaudisim_device *gdev)
{
	u32 i;

	lockdep_assert_held(&gdev->submit_lock);

	gaudisim_irq_sync(gdev);
	for (i = 0; i < GAUDISIM_NUM_EXT_QUEUES; i++) {
		struct gaudisim_queue *q = &gdev->queues[i];

		if (!q->present)
			continue;
		gaudisim_queue_drain_cq(q);
		gaudisim_queue_abort(q);
	}
}

/**
 * gaudisim_device_hard_reset() - reset the device and abort in-flight work
 * @gdev: the device; the caller is inside drm_dev_enter()
 * @reason: for the log
 *
 * Return: 0, or -ETIMEDOUT when the device did not come back; it is then
 * marked MALFUNCTION and refuses new work.
 */
int gaudisim_device_hard_reset(struct gaudisim_device *gdev, const char *reason)
{
	int rc;

	mutex_lock(&gdev->submit_lock);
	gaudisim_set_status(gdev, GAUDISIM_DEVICE_STATUS_IN_RESET);
	gaudisim_warn(gdev, "hard reset: %s\n", reason);

	rc = gaudisim_hw_reset(gdev);
	gaudisim_abort_all(gdev);
	gaudisim_sigwait_hw_reset(gdev);
	gaudisim_uirq_reset(gdev);
	atomic_inc(&gdev->hard_reset_cnt);
	gaudisim_eq_mark_reset(gdev);

	if (rc) {
		gaudisim_err(gdev, "device did not come back from reset and is not usable\n");
		gaudisim_set_status(gdev, GAUDISIM_DEVICE_STATUS_MALFUNCTION);
	} else {
		gaudisim_queues_hw_init(gdev);
		gaudisim_eq_hw_init(gdev);
		gaudisim_mmu_hw_init(gdev);
		gaudisim_nic_hw_init(gdev);
		gaudisim_rights_hw_init(gdev);
		gaudisim_hw_mark_dirty(gdev);
		gaudisim_set_status(gdev, GAUDISIM_DEVICE_STATUS_OPERATIONAL);
	}
	mutex_unlock(&gdev->submit_lock);
	gaudisim_notify(gdev, GAUDISIM_NOTIFIER_EVENT_DEVICE_RESET |
		    (rc ? GAUDISIM_NOTIFIER_EVENT_DEVICE_UNAVAILABLE : 0));
	gaudisim_reset_uevent(gdev, reason, rc);
	return rc;
}

/* Stop the device for good (driver removal): reset, abort everything. */
void gaudisim_device_stop(struct gaudisim_device *gdev)
{
	mutex_lock(&gdev->submit_lock);
	gaudisim_set_status(gdev, GAUDISIM_DEVICE_STATUS_MALFUNCTION);
	gaudisim_hw_reset(gdev);
	gaudisim_abort_all(gdev);
	gaudisim_uirq_reset(gdev);
	mutex_unlock(&gdev->submit_lock);
}

/*
 * Reset requested by a CS timeout (gaudisim_reset_on_lockup) or an event:
 * a fault, so the state of the device is dumped before the reset.
 */
void gaudisim_reset_work(struct work_struct *work)
{
	struct gaudisim_device *gdev = container_of(work, struct gaudisim_device,
						    reset_work);
	const char *reason = READ_ONCE(gdev->reset_reason);
	int idx;

	if (!reason)
		reason = "requested";
	if (!drm_dev_enter(&gdev->drm, &idx))
		return;
	gaudisim_coredump_capture(gdev, reason);
	gaudisim_device_hard_reset(gdev, reason);
	drm_dev_exit(idx);
}

/* Queue a hard reset on the device's workqueue; @reason must be static. */
void gaudisim_request_reset(struct gaudisim_device *gdev, const char *reason)
{
	WRITE_ONCE(gdev->reset_reason, reason);
	queue_work(gdev->wq, &gdev->reset_work);
}
