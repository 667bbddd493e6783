// SPDX-License-Identifier: GPL-2.0
/*
 * Event queue and heartbeat.
 *
 * The device writes events into a ring in host memory and raises the EQ
 * vector. A threaded handler consumes READY entries, logs and counts them
 * (INFO HW_EVENTS) and acts:
 *  - errors of external queues need nothing more: the job's CQ entry
 *    already carries the error and fails its CS;
 *  - errors of internal queues (a bad packet, a DMA or MMU fault, an
 *    engine error) leave the CS waiting for work that will never signal
 *    it, and engine timeouts leave an engine stuck: the driver hard-resets
 *    the device, which aborts the CSs in flight (-EIO) at once instead of
 *    at their timeout, and brings every queue back;
 *  - ECC, thermal and informational events are logged.
 * Every GAUDISIM_HB_PERIOD the driver polls the ring (an interrupt may have
 * been lost) and asks for a heartbeat; if the previous one was not
 * answered, the device is reset.
 */

#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/jiffies.h>
#include <linux/pci.h>

#include <drm/drm_drv.h>
#include <drm/drm_managed.h>

#include <hw/gaudisim_hw_queues.h>

#include "gaudisim_drv.h"
#include "gaudisim_eq.h"
#include "gaudisim_hw.h"
#include "gaudisim_notify.h"
#include "gaudisim_queue.h"
#include "gaudisim_reset.h"

#define GAUDISIM_HB_PERIOD		(5 * HZ)
#define GAUDISIM_EQ_PTR_MASK	(2 * GAUDISIM_EQ_LEN - 1)

static const char * const gaudisim_event_name[] = {
	[GAUDISIM_EQ_EVENT_QMAN_ERR] = "QMAN error",
	[GAUDISIM_EQ_EVENT_DMA_ERR] = "DMA error",
	[GAUDISIM_EQ_EVENT_MMU_FAULT] = "MMU fault",
	[GAUDISIM_EQ_EVENT_ENGINE_TIMEOUT] = "engine timeout",
	[GAUDISIM_EQ_EVENT_ENGINE_ERR] = "engine error",
	[GAUDISIM_EQ_EVENT_ECC_CORRECTABLE] = "correctable ECC error",
	[GAUDISIM_EQ_EVENT_ECC_UNCORRECTABLE] = "uncorrectable ECC error",
	[GAUDISIM_EQ_EVENT_THERMAL] = "thermal event",
	[GAUDISIM_EQ_EVENT_HEARTBEAT] = "heartbeat",
	[GAUDISIM_EQ_EVENT_RESET_DONE] = "engine reset done",
	[GAUDISIM_EQ_EVENT_SYNC_ERR] = "sync manager error",
	[GAUDISIM_EQ_EVENT_QMAN_STOP] = "QMAN stop",
	[GAUDISIM_EQ_EVENT_NIC_ERR] = "NIC write refused",
	[GAUDISIM_EQ_EVENT_NIC_LINK] = "NIC link change",
};

const char *gaudisim_event_str(u32 type)
{
	if (type < ARRAY_SIZE(gaudisim_event_name) && gaudisim_event_name[type])
		return gaudisim_event_name[type];
	return "unknown event";
}

static u32 gaudisim_eq_reg(u32 reg)
{
	return GAUDISIM_BLOCK_EQ + reg;
}

/* Did the event come from an internal queue or an engine it drives? */
static bool gaudisim_event_internal(u32 engine, u32 queue)
{
	if (queue != GAUDISIM_EQ_NONE)
		return queue >= GAUDISIM_NUM_EXT_QUEUES && queue < GAUDISIM_QUEUE_ID_SIZE;
	return engine != GAUDISIM_EQ_NONE && engine >= GAUDISIM_ENGINE_DMA_2 &&
	       engine < GAUDISIM_ENGINE_COUNT;
}

/* habanalabs' engine ID of an event's engine, NA when it names none. */
static u16 gaudisim_event_engine(u32 engine)
{
	if (engine >= GAUDISIM_ENGINE_COUNT)
		return GAUDISIM_RAZWI_NA_ENG_ID;
	return gaudisim_hl_engine_id(engine);
}

/*
 * The ASID of the context an error event belongs to, 0 when unknown: an
 * MMU fault names it; a failed CB of an external queue is looked up by
 * its address among the queue's jobs; internal queues run with the one
 * context's ASID (shared contexts may not use them).
 */
static u32 gaudisim_event_asid(struct gaudisim_device *gdev, u32 type, u32 queue, u64 addr,
			       const struct gaudisim_eq_entry_le *e)
{
	u32 asid = 0;

	if (type == GAUDISIM_EQ_EVENT_MMU_FAULT)
		asid = le32_to_cpu(e->data[0]);
	else if (queue < GAUDISIM_NUM_EXT_QUEUES && gdev->queues[queue].present)
		asid = gaudisim_queue_cb_asid(&gdev->queues[queue], addr);
	else if (queue < GAUDISIM_QUEUE_ID_SIZE)
		asid = READ_ONCE(gdev->mmu.queue_asid);
	return asid < GAUDISIM_MMU_NUM_ASIDS ? asid : 0;
}

/*
 * Keep the last error of each kind for the INFO *_EVENT ops, device-wide
 * and for the context it belongs to, and tell the open contexts: packet
 * errors are habanalabs' undefined-opcode events, bad addresses its razwi,
 * MMU faults its page faults (and razwi).
 */
static void gaudisim_eq_capture(struct gaudisim_device *gdev, u32 type,
				const struct gaudisim_eq_entry_le *e)
{
	struct gaudisim_captured_errors *err = &gdev->errors;
	u32 engine = le32_to_cpu(e->engine);
	u32 queue = le32_to_cpu(e->queue);
	u64 addr = le64_to_cpu(e->addr);
	s64 now = ktime_get_ns();
	u64 events = 0;
	u32 asid = 0;

	if (type == GAUDISIM_EQ_EVENT_QMAN_ERR || type == GAUDISIM_EQ_EVENT_DMA_ERR ||
	    type == GAUDISIM_EQ_EVENT_MMU_FAULT)
		asid = gaudisim_event_asid(gdev, type, queue, addr, e);

	spin_lock(&gdev->err_lock);
	switch (type) {
	case GAUDISIM_EQ_EVENT_QMAN_ERR:
		err->open_dev_time = READ_ONCE(gdev->last_open_ns);
		memset(&err->undef_opcode, 0, sizeof(err->undef_opcode));
		err->undef_opcode.timestamp = now;
		err->undef_opcode.cq_addr = addr + le32_to_cpu(e->data[0]);
		err->undef_opcode.cb_addr_streams_len = 1;
		err->undef_opcode.engine_id = gaudisim_event_engine(engine);
		if (queue < GAUDISIM_QUEUE_ID_SIZE) {
			err->undef_opcode.stream_id = gaudisim_queue_stream(queue);
			err->undef_opcode.cb_addr_streams[err->undef_opcode.stream_id][0] = addr;
		}
		events = GAUDISIM_NOTIFIER_EVENT_UNDEFINED_OPCODE;
		break;
	case GAUDISIM_EQ_EVENT_MMU_FAULT:
		err->page_fault.timestamp = now;
		err->page_fault.addr = addr;
		err->page_fault.engine_id = gaudisim_event_engine(engine);
		events = GAUDISIM_NOTIFIER_EVENT_PAGE_FAULT;
		fallthrough;
	case GAUDISIM_EQ_EVENT_DMA_ERR:
		err->open_dev_time = READ_ONCE(gdev->last_open_ns);
		memset(&err->razwi, 0, sizeof(err->razwi));
		err->razwi.timestamp = now;
		err->razwi.addr = addr;
		err->razwi.engine_id[0] = gaudisim_event_engine(engine);
		err->razwi.num_of_possible_engines = engine < GAUDISIM_ENGINE_COUNT;
		err->razwi.flags = GAUDISIM_RAZWI_HBW |
			(type == GAUDISIM_EQ_EVENT_DMA_ERR ? GAUDISIM_RAZWI_ADDR_DEC :
			 le32_to_cpu(e->data[1]) ? GAUDISIM_RAZWI_WRITE : GAUDISIM_RAZWI_READ);
		events |= GAUDISIM_NOTIFIER_EVENT_RAZWI;
		break;
	case GAUDISIM_EQ_EVENT_ENGINE_TIMEOUT:
	case GAUDISIM_EQ_EVENT_ENGINE_ERR:
	case GAUDISIM_EQ_EVENT_SYNC_ERR:
		events = GAUDISIM_NOTIFIER_EVENT_USER_ENGINE_ERR;
		break;
	case GAUDISIM_EQ_EVENT_ECC_UNCORRECTABLE:
		events = GAUDISIM_NOTIFIER_EVENT_CRITICAL_HW_ERR;
		break;
	case GAUDISIM_EQ_EVENT_THERMAL:
		events = GAUDISIM_NOTIFIER_EVENT_GENERAL_HW_ERR;
		break;
	default:
		break;
	}
	if (asid) {
		struct gaudisim_captured_errors *mine = &gdev->ctx_errors[asid];

		mine->open_dev_time = err->open_dev_time;
		if (type == GAUDISIM_EQ_EVENT_QMAN_ERR) {
			mine->undef_opcode = err->undef_opcode;
		} else {
			mine->razwi = err->razwi;
			if (type == GAUDISIM_EQ_EVENT_MMU_FAULT)
				mine->page_fault = err->page_fault;
		}
	}
	spin_unlock(&gdev->err_lock);
	if (events)
		gaudisim_notify(gdev, events);
}

static void gaudisim_eq_handle(struct gaudisim_device *gdev, const struct gaudisim_eq_entry_le *e)
{
	struct gaudisim_eq *eq = &gdev->eq;
	u32 ctl = le32_to_cpu(e->ctl);
	u32 type = GAUDISIM_EQ_CTL_TYPE(ctl);
	u32 engine = le32_to_cpu(e->engine);
	u32 queue = le32_to_cpu(e->queue);
	u32 code = le32_to_cpu(e->code);
	u64 addr = le64_to_cpu(e->addr);
	u32 data0 = le32_to_cpu(e->data[0]);

	lockdep_assert_held(&eq->lock);

	if (type < GAUDISIM_INFO_HW_EVENTS_NUM)
		atomic_inc(&eq->counts[type]);
	gaudisim_eq_capture(gdev, type, e);

	switch (type) {
	case GAUDISIM_EQ_EVENT_HEARTBEAT:
		eq->hb_answered = data0;
		return;
	case GAUDISIM_EQ_EVENT_RESET_DONE:
	case GAUDISIM_EQ_EVENT_QMAN_STOP:
		gaudisim_dbg(gdev, "%s: engine %d queue %d addr 0x%llx\n",
			     gaudisim_event_str(type), (int)engine, (int)queue, addr);
		return;
	case GAUDISIM_EQ_EVENT_ECC_CORRECTABLE:
	case GAUDISIM_EQ_EVENT_THERMAL:
	case GAUDISIM_EQ_EVENT_NIC_LINK:
		dev_warn_ratelimited(&gdev->pdev->dev, "%s: code %u addr 0x%llx data 0x%x\n",
				     gaudisim_event_str(type), code, addr, data0);
		return;
	default:
		break;
	}

	gaudisim_err_ratelimited(gdev, "%s: engine %d queue %d code %u addr 0x%llx data 0x%x 0x%x\n",
				 gaudisim_event_str(type), (int)engine, (int)queue, code,
				 addr, data0, le32_to_cpu(e->data[1]));

	switch (type) {
	case GAUDISIM_EQ_EVENT_ENGINE_TIMEOUT:
		gaudisim_request_reset(gdev, "engine timeout");
		break;
	case GAUDISIM_EQ_EVENT_QMAN_ERR:
	case GAUDISIM_EQ_EVENT_DMA_ERR:
	case GAUDISIM_EQ_EVENT_MMU_FAULT:
	case GAUDISIM_EQ_EVENT_ENGINE_ERR:
	case GAUDISIM_EQ_EVENT_SYNC_ERR:
		/*
		 * A refused monitor payload (queue: the one that armed it)
		 * also fails the write that fired it; the work of an internal
		 * queue waiting on it would hang until its timeout.
		 */
		if (gaudisim_event_internal(engine, queue))
			gaudisim_request_reset(gdev, "internal queue error");
		break;
	default:
		break;
	}
}

/* Keep @e in the event history; called under eq.lock. */
static void gaudisim_eq_record(struct gaudisim_eq *eq, const struct gaudisim_eq_entry_le *e)
{
	/* A heartbeat a second would push every real event out. */
	if (GAUDISIM_EQ_CTL_TYPE(le32_to_cpu(e->ctl)) == GAUDISIM_EQ_EVENT_HEARTBEAT)
		return;
	spin_lock(&eq->hist_lock);
	eq->hist[eq->hist_total % GAUDISIM_EQ_HISTORY] = *e;
	eq->hist_total++;
	spin_unlock(&eq->hist_lock);
}

/**
 * gaudisim_eq_last_events() - the most recent events, oldest first
 * @gdev: the device
 * @out: room for @max entries
 * @max: how many to copy at most (no more than GAUDISIM_EQ_HISTORY are kept)
 * @total: set to the number of events recorded since load
 *
 * Context: process context; takes eq.hist_lock.
 * Return: the number of entries copied.
 */
unsigned int gaudisim_eq_last_events(struct gaudisim_device *gdev,
				     struct gaudisim_eq_entry_le *out, unsigned int max,
				     u64 *total)
{
	struct gaudisim_eq *eq = &gdev->eq;
	unsigned int n = 0;
	u64 first;

	max = min_t(unsigned int, max, GAUDISIM_EQ_HISTORY);
	spin_lock(&eq->hist_lock);
	*total = eq->hist_total;
	first = eq->hist_total > max ? eq->hist_total - max : 0;
	for (; first < eq->hist_total; first++)
		out[n++] = eq->hist[first % GAUDISIM_EQ_HISTORY];
	spin_unlock(&eq->hist_lock);
	return n;
}

/**
 * gaudisim_eq_drain() - consume every READY event
 * @gdev: the device, inside drm_dev_enter() or with the IRQ alive
 */
void gaudisim_eq_drain(struct gaudisim_device *gdev)
{
	struct gaudisim_eq *eq = &gdev->eq;
	struct gaudisim_eq_entry_le ev;
	u32 n;

	mutex_lock(&eq->lock);
	for (n = 0; n < GAUDISIM_EQ_LEN; n++) {
		struct gaudisim_eq_entry_le *e = &eq->ring[eq->ci & (GAUDISIM_EQ_LEN - 1)];

		if (!(le32_to_cpu(READ_ONCE(e->ctl)) & GAUDISIM_EQ_CTL_READY))
			break;
		/* Read nothing the device wrote before it set READY. */
		dma_rmb();
		ev = *e;
		WRITE_ONCE(e->ctl, 0);
		eq->ci = (eq->ci + 1) & GAUDISIM_EQ_PTR_MASK;
		gaudisim_eq_record(eq, &ev);
		gaudisim_eq_handle(gdev, &ev);
	}
	if (n)
		gaudisim_wreg(gdev, gaudisim_eq_reg(GAUDISIM_EQ_CI), eq->ci);
	mutex_unlock(&eq->lock);
}

static irqreturn_t gaudisim_eq_irq_thread(int irq, void *arg)
{
	gaudisim_eq_drain(arg);
	return IRQ_HANDLED;
}

static void gaudisim_eq_hb_work(struct work_struct *work)
{
	struct gaudisim_device *gdev = container_of(to_delayed_work(work),
						    struct gaudisim_device, eq.hb_work);
	struct gaudisim_eq *eq = &gdev->eq;
	bool missed = false;
	int idx;

	if (!drm_dev_enter(&gdev->drm, &idx))
		return;

	if (gaudisim_status(gdev) == GAUDISIM_DEVICE_STATUS_OPERATIONAL) {
		gaudisim_eq_drain(gdev);
		mutex_lock(&eq->lock);
		if (eq->hb_pending && eq->hb_answered != eq->hb_sent) {
			missed = true;
		} else {
			eq->hb_sent++;
			eq->hb_pending = true;
			gaudisim_wreg(gdev, gaudisim_eq_reg(GAUDISIM_EQ_HEARTBEAT), eq->hb_sent);
		}
		mutex_unlock(&eq->lock);
		if (missed) {
			gaudisim_err(gdev, "heartbeat %u was not answered\n", eq->hb_sent);
			gaudisim_request_reset(gdev, "heartbeat lost");
		}
	}
	schedule_delayed_work(&eq->hb_work, GAUDISIM_HB_PERIOD);
	drm_dev_exit(idx);
}

int gaudisim_eq_init(struct gaudisim_device *gdev)
{
	struct gaudisim_eq *eq = &gdev->eq;
	int rc;

	rc = drmm_mutex_init(&gdev->drm, &eq->lock);
	if (rc)
		return rc;
	spin_lock_init(&eq->hist_lock);
	eq->ring = dmam_alloc_coherent(&gdev->pdev->dev,
				       GAUDISIM_EQ_LEN * sizeof(*eq->ring),
				       &eq->ring_dma, GFP_KERNEL);
	if (!eq->ring)
		return -ENOMEM;
	INIT_DELAYED_WORK(&eq->hb_work, gaudisim_eq_hb_work);
	return 0;
}

/*
 * Program and enable the EQ: at probe and after every hard reset (which
 * disables it), with the ring emptied; events of before the reset are gone.
 */
void gaudisim_eq_hw_init(struct gaudisim_device *gdev)
{
	struct gaudisim_eq *eq = &gdev->eq;

	mutex_lock(&eq->lock);
	eq->ci = 0;
	eq->hb_pending = false;
	memset(eq->ring, 0, GAUDISIM_EQ_LEN * sizeof(*eq->ring));
	gaudisim_wreg(gdev, gaudisim_eq_reg(GAUDISIM_EQ_CTL), 0);
	gaudisim_wreg(gdev, gaudisim_eq_reg(GAUDISIM_EQ_BASE_LO), lower_32_bits(eq->ring_dma));
	gaudisim_wreg(gdev, gaudisim_eq_reg(GAUDISIM_EQ_BASE_HI), upper_32_bits(eq->ring_dma));
	gaudisim_wreg(gdev, gaudisim_eq_reg(GAUDISIM_EQ_SIZE), GAUDISIM_EQ_LEN_LOG2);
	gaudisim_wreg(gdev, gaudisim_eq_reg(GAUDISIM_EQ_CI), 0);
	gaudisim_wreg(gdev, gaudisim_eq_reg(GAUDISIM_EQ_CTL), GAUDISIM_EQ_CTL_ENABLE);
	mutex_unlock(&eq->lock);
}

/* Request the EQ vector and start the heartbeat. */
int gaudisim_eq_irq_init(struct gaudisim_device *gdev)
{
	struct gaudisim_eq *eq = &gdev->eq;
	int irq, rc;

	irq = pci_irq_vector(gdev->pdev, GAUDISIM_MSIX_VEC_EQ);
	if (irq < 0)
		return irq;
	rc = request_threaded_irq(irq, NULL, gaudisim_eq_irq_thread, IRQF_ONESHOT,
				  "gaudisim-eq", gdev);
	if (rc) {
		dev_err(&gdev->pdev->dev, "cannot request the EQ IRQ: %d\n", rc);
		return rc;
	}
	eq->irq = irq;
	schedule_delayed_work(&eq->hb_work, GAUDISIM_HB_PERIOD);
	return 0;
}

void gaudisim_eq_fini(struct gaudisim_device *gdev)
{
	struct gaudisim_eq *eq = &gdev->eq;

	cancel_delayed_work_sync(&eq->hb_work);
	if (eq->irq) {
		free_irq(eq->irq, gdev);
		eq->irq = 0;
	}
}

/*
 * Per-type event counts for INFO: since the driver loaded (@aggregate) or
 * since the last hard reset (HW_EVENTS).
 */
void gaudisim_eq_counts(struct gaudisim_device *gdev, u32 *counts, bool aggregate)
{
	struct gaudisim_eq *eq = &gdev->eq;
	u32 i;

	for (i = 0; i < GAUDISIM_INFO_HW_EVENTS_NUM; i++) {
		counts[i] = atomic_read(&eq->counts[i]);
		if (!aggregate)
			counts[i] -= READ_ONCE(eq->counts_at_reset[i]);
	}
}

/* A hard reset happened: HW_EVENTS counts from here. */
void gaudisim_eq_mark_reset(struct gaudisim_device *gdev)
{
	struct gaudisim_eq *eq = &gdev->eq;
	u32 i;

	for (i = 0; i < GAUDISIM_INFO_HW_EVENTS_NUM; i++)
		WRITE_ONCE(eq->counts_at_reset[i], atomic_read(&eq->counts[i]));
}
