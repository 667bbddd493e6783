// SPDX-License-Identifier: GPL-2.0
/*
 * Crash dumps of a hung device, through devcoredump, and the uevent of a
 * reset.
 *
 * When a CS times out the TDR notes it (queues, CB addresses, the first
 * bytes of its first kernel CB); the reset worker then captures the
 * device before it resets it: status and error counters, the QMAN and
 * engine state of every engine (stream enables and busy bits, CP_STS,
 * PQ PI/CI, fence counters, CP error count and address, ENG_STATUS and
 * its counts), the driver's view of the external queues, the last entries
 * the event queue recorded and the reset counters. The text goes to
 * dev_coredumpv(), which shows it in /sys/class/devcoredump/devcdN/data
 * until it is written to (or five minutes pass). devcoredump keeps one
 * dump per device: a later hang while one is unread is not dumped.
 * docs/recovery.md describes the format.
 */

#include <linux/devcoredump.h>
#include <linux/kobject.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/stdarg.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include <drm/drm_drv.h>

#include "gaudisim_coredump.h"
#include "gaudisim_cs.h"
#include "gaudisim_ctx.h"
#include "gaudisim_drv.h"
#include "gaudisim_eq.h"
#include "gaudisim_hw.h"
#include "gaudisim_queue.h"
#include "gaudisim_sysfs.h"

/* Room for every section with all 27 engines; the text is about 12 KiB. */
#define GAUDISIM_COREDUMP_SIZE		SZ_64K
/* Event-queue entries dumped, the most recent ones. */
#define GAUDISIM_COREDUMP_EVENTS	16
#define GAUDISIM_COREDUMP_VERSION	1

struct gaudisim_dump_buf {
	char *text;
	size_t len;
};

static __printf(2, 3) void gaudisim_dump_printf(struct gaudisim_dump_buf *b,
						const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	b->len += vscnprintf(b->text + b->len, GAUDISIM_COREDUMP_SIZE - b->len, fmt, args);
	va_end(args);
}

void gaudisim_coredump_init(struct gaudisim_device *gdev)
{
	spin_lock_init(&gdev->coredump.lock);
	atomic_set(&gdev->coredump.dumps, 0);
}

/* Driver removal: a dump of a device that is gone is dropped with it. */
void gaudisim_coredump_fini(struct gaudisim_device *gdev)
{
	dev_coredump_put(&gdev->pdev->dev);
}

/*
 * Copy the first bytes of an external job's kernel CB while the job is
 * still on its queue: the completion path takes it out of the shadow
 * table under the queue's lock before it frees the CB.
 */
static u32 gaudisim_copy_kcb(struct gaudisim_device *gdev, const struct gaudisim_job *job,
			     u8 *buf, u32 len)
{
	struct gaudisim_queue *q = &gdev->queues[job->queue_id];
	u32 slot, copied = 0;

	spin_lock(&q->lock);
	for (slot = 0; slot < GAUDISIM_QUEUE_LEN; slot++) {
		if (q->shadow[slot] != job)
			continue;
		if (job->kcb) {
			copied = min(job->kcb_size, len);
			memcpy(buf, job->kcb, copied);
		}
		break;
	}
	spin_unlock(&q->lock);
	return copied;
}

/**
 * gaudisim_coredump_note_cs() - remember a CS that timed out for the dump
 * @gdev: the device
 * @cs: the CS (a reference is held); its jobs may be completing meanwhile
 *
 * Context: process context (the TDR); takes the queue locks, then
 * gdev->coredump.lock.
 */
void gaudisim_coredump_note_cs(struct gaudisim_device *gdev, struct gaudisim_cs *cs)
{
	struct gaudisim_hang_note note = {
		.valid = true,
		.seq = cs->seq,
		.pid = cs->ctx->pid,
		.timeout_s = cs->timeout_s,
		.num_jobs = cs->num_jobs,
	};
	u32 i;

	for (i = 0; i < min_t(u32, cs->num_jobs, GAUDISIM_COREDUMP_JOBS); i++) {
		const struct gaudisim_job *job = &cs->jobs[i];

		note.queue_id[i] = job->queue_id;
		note.cb_addr[i] = job->internal ? job->cb_addr : job->kcb_dma;
		note.cb_size[i] = job->kcb_size;
		if (!note.cb_len && !job->internal && job->queue_id < GAUDISIM_NUM_EXT_QUEUES)
			note.cb_len = gaudisim_copy_kcb(gdev, job, note.cb, sizeof(note.cb));
	}
	spin_lock(&gdev->coredump.lock);
	gdev->coredump.note = note;
	spin_unlock(&gdev->coredump.lock);
}

static void gaudisim_dump_header(struct gaudisim_dump_buf *b, struct gaudisim_device *gdev,
				 const char *cause)
{
	u32 ts_lo = gaudisim_rreg(gdev, GAUDISIM_REG_TIMESTAMP_LO);
	u32 ts_hi = gaudisim_rreg(gdev, GAUDISIM_REG_TIMESTAMP_HI);

	gaudisim_dump_printf(b, "gaudisim devcoredump v%d\n", GAUDISIM_COREDUMP_VERSION);
	gaudisim_dump_printf(b, "driver: %s\ndevice: %s hw-version 0x%08x\n",
			     GAUDISIM_DRIVER_VERSION, pci_name(gdev->pdev), gdev->hw_version);
	gaudisim_dump_printf(b, "cause: %s\n", cause);
	gaudisim_dump_printf(b, "time: realtime-ns %lld boottime-ns %lld device-ns %llu\n",
			     ktime_get_real_ns(), ktime_get_boottime_ns(),
			     (u64)ts_hi << 32 | ts_lo);
	gaudisim_dump_printf(b, "status: %s\n", gaudisim_status_name(gaudisim_status(gdev)));
	gaudisim_dump_printf(b, "resets: hard %d soft 0\n", atomic_read(&gdev->hard_reset_cnt));
	gaudisim_dump_printf(b, "DEV_STATUS 0x%08x HW_STATE 0x%08x\n",
			     gaudisim_rreg(gdev, GAUDISIM_REG_DEV_STATUS),
			     gaudisim_rreg(gdev, GAUDISIM_REG_HW_STATE));
	gaudisim_dump_printf(b, "errors: packets %u dma %u pq %u; cbs done %u\n",
			     gaudisim_rreg(gdev, GAUDISIM_REG_ERR_PKT_CNT),
			     gaudisim_rreg(gdev, GAUDISIM_REG_ERR_DMA_CNT),
			     gaudisim_rreg(gdev, GAUDISIM_REG_ERR_PQ_CNT),
			     gaudisim_rreg(gdev, GAUDISIM_REG_CB_DONE_CNT));
	gaudisim_dump_printf(b, "cs: submitted %lld completed %lld errors %lld timed-out %lld\n",
			     atomic64_read(&gdev->cs_cnt.submitted),
			     atomic64_read(&gdev->cs_cnt.completed),
			     atomic64_read(&gdev->cs_cnt.errors),
			     atomic64_read(&gdev->cs_cnt.timed_out));
}

static void gaudisim_dump_hung_cs(struct gaudisim_dump_buf *b, struct gaudisim_device *gdev)
{
	struct gaudisim_hang_note note;
	u32 i;

	spin_lock(&gdev->coredump.lock);
	note = gdev->coredump.note;
	gdev->coredump.note.valid = false;
	spin_unlock(&gdev->coredump.lock);

	gaudisim_dump_printf(b, "\n[hung-cs]\n");
	if (!note.valid) {
		gaudisim_dump_printf(b, "none\n");
		return;
	}
	gaudisim_dump_printf(b, "seq %llu pid %d timeout-s %u jobs %u\n", note.seq, note.pid,
			     note.timeout_s, note.num_jobs);
	for (i = 0; i < min_t(u32, note.num_jobs, GAUDISIM_COREDUMP_JOBS); i++)
		gaudisim_dump_printf(b, "job %u queue %u cb 0x%016llx size %u\n", i,
				     note.queue_id[i], note.cb_addr[i], note.cb_size[i]);
	for (i = 0; i < note.cb_len; i += 16)
		gaudisim_dump_printf(b, "cb+%02x: %*ph\n", i,
				     (int)min_t(u32, 16, note.cb_len - i), note.cb + i);
}

static u32 gaudisim_dump_qm(struct gaudisim_device *gdev, u32 engine, u32 reg)
{
	return gaudisim_rreg(gdev, gaudisim_qm_reg(engine, reg));
}

static void gaudisim_dump_stream(struct gaudisim_dump_buf *b, struct gaudisim_device *gdev,
				 u32 e, u32 s)
{
	u32 fence[GAUDISIM_QM_NUM_FENCES];
	u32 f;

	for (f = 0; f < GAUDISIM_QM_NUM_FENCES; f++)
		fence[f] = gaudisim_dump_qm(gdev, e, GAUDISIM_QM_CP_FENCE_CNT(f, s));
	gaudisim_dump_printf(b, "  s%u CP_STS 0x%08x PQ_PI %u PQ_CI %u FENCE_CNT %u %u %u %u",
			     s, gaudisim_dump_qm(gdev, e, GAUDISIM_QM_CP_STS(s)),
			     gaudisim_dump_qm(gdev, e, GAUDISIM_QM_PQ_PI(s)),
			     gaudisim_dump_qm(gdev, e, GAUDISIM_QM_PQ_CI(s)),
			     fence[0], fence[1], fence[2], fence[3]);
	gaudisim_dump_printf(b, " CP_ERR_CNT %u CP_ERR_ADDR 0x%08x%08x\n",
			     gaudisim_dump_qm(gdev, e, GAUDISIM_QM_CP_ERR_CNT(s)),
			     gaudisim_dump_qm(gdev, e, GAUDISIM_QM_CP_ERR_ADDR_HI(s)),
			     gaudisim_dump_qm(gdev, e, GAUDISIM_QM_CP_ERR_ADDR_LO(s)));
}

static void gaudisim_dump_engines(struct gaudisim_dump_buf *b, struct gaudisim_device *gdev)
{
	u32 e, s;

	gaudisim_dump_printf(b, "\n[engines]\n");
	for (e = 0; e < GAUDISIM_ENGINE_COUNT; e++) {
		u32 blk = GAUDISIM_ENGINE_BLOCK(e);

		gaudisim_dump_printf(b, "%s GLBL_CFG0 0x%x GLBL_STS0 0x%x", gaudisim_engine_name(e),
				     gaudisim_dump_qm(gdev, e, GAUDISIM_QM_GLBL_CFG0),
				     gaudisim_dump_qm(gdev, e, GAUDISIM_QM_GLBL_STS0));
		gaudisim_dump_printf(b, " ENG_STATUS 0x%08x launches %u errors %u\n",
				     gaudisim_rreg(gdev, blk + GAUDISIM_ENG_STATUS),
				     gaudisim_rreg(gdev, blk + GAUDISIM_ENG_LAUNCH_CNT),
				     gaudisim_rreg(gdev, blk + GAUDISIM_ENG_ERR_CNT));
		for (s = 0; s < GAUDISIM_STREAMS_PER_QMAN; s++)
			gaudisim_dump_stream(b, gdev, e, s);
	}
}

static void gaudisim_dump_queues(struct gaudisim_dump_buf *b, struct gaudisim_device *gdev)
{
	u32 i, pi, ci;

	gaudisim_dump_printf(b, "\n[queues]\n");
	for (i = 0; i < GAUDISIM_NUM_EXT_QUEUES; i++) {
		struct gaudisim_queue *q = &gdev->queues[i];

		if (!q->present)
			continue;
		gaudisim_queue_snapshot(q, &pi, &ci);
		gaudisim_dump_printf(b, "queue %u driver-pi %u driver-ci %u in-flight %u\n", i, pi,
				     ci, pi - ci);
	}
}

/* The most recent event-queue entries (heartbeats left out), oldest first. */
static void gaudisim_dump_events(struct gaudisim_dump_buf *b, struct gaudisim_device *gdev)
{
	struct gaudisim_eq_entry_le *ev;
	unsigned int n, i;
	u64 total;

	gaudisim_dump_printf(b, "\n[events]\n");
	ev = kmalloc_array(GAUDISIM_COREDUMP_EVENTS, sizeof(*ev), GFP_KERNEL);
	if (!ev) {
		gaudisim_dump_printf(b, "not captured (no memory)\n");
		return;
	}
	n = gaudisim_eq_last_events(gdev, ev, GAUDISIM_COREDUMP_EVENTS, &total);
	gaudisim_dump_printf(b, "recorded %llu, last %u follow; ring pi %u ci %u\n", total, n,
			     gaudisim_rreg(gdev, GAUDISIM_BLOCK_EQ + GAUDISIM_EQ_PI),
			     READ_ONCE(gdev->eq.ci));
	for (i = 0; i < n; i++) {
		const struct gaudisim_eq_entry_le *e = &ev[i];
		u32 ctl = le32_to_cpu(e->ctl);

		gaudisim_dump_printf(b, "%u ts %llu %s engine %d queue %d",
				     ctl & GAUDISIM_EQ_CTL_INDEX_MASK, le64_to_cpu(e->timestamp),
				     gaudisim_event_str(GAUDISIM_EQ_CTL_TYPE(ctl)),
				     (int)le32_to_cpu(e->engine), (int)le32_to_cpu(e->queue));
		gaudisim_dump_printf(b, " code %u addr 0x%016llx data0 0x%x\n",
				     le32_to_cpu(e->code), le64_to_cpu(e->addr),
				     le32_to_cpu(e->data[0]));
	}
	kfree(ev);
}

/**
 * gaudisim_coredump_capture() - dump the device state to devcoredump
 * @gdev: the device, not yet reset
 * @cause: why (static string)
 *
 * Context: process context; takes the queue locks, coredump.lock and the
 * event history's lock one after the other. Skipped when the device is gone.
 */
void gaudisim_coredump_capture(struct gaudisim_device *gdev, const char *cause)
{
	struct gaudisim_dump_buf b = { };
	int idx;

	b.text = vmalloc(GAUDISIM_COREDUMP_SIZE);
	if (!b.text)
		return;
	if (!drm_dev_enter(&gdev->drm, &idx)) {
		vfree(b.text);
		return;
	}
	gaudisim_dump_header(&b, gdev, cause);
	gaudisim_dump_hung_cs(&b, gdev);
	gaudisim_dump_engines(&b, gdev);
	gaudisim_dump_queues(&b, gdev);
	gaudisim_dump_events(&b, gdev);
	drm_dev_exit(idx);
	gaudisim_dump_printf(&b, "\nend\n");

	atomic_inc(&gdev->coredump.dumps);
	gaudisim_warn(gdev, "device state handed to devcoredump (%s)\n", cause);
	/* devcoredump owns the text from here, and vfree()s it. */
	dev_coredumpv(&gdev->pdev->dev, b.text, b.len, GFP_KERNEL);
}

/**
 * gaudisim_reset_uevent() - tell user space that the device was reset
 * @gdev: the device
 * @cause: why
 * @rc: the result of the reset (0: the device works again)
 *
 * KOBJ_CHANGE on the PCI device with GAUDISIM_EVENT=RESET, RESET_CAUSE,
 * RESET_RESULT=ok|failed and HARD_RESET_COUNT.
 */
void gaudisim_reset_uevent(struct gaudisim_device *gdev, const char *cause, int rc)
{
	char event_env[] = "GAUDISIM_EVENT=RESET";
	char ok_env[] = "RESET_RESULT=ok", failed_env[] = "RESET_RESULT=failed";
	char cause_env[96], count_env[40];
	char *envp[5];

	envp[0] = event_env;
	envp[1] = cause_env;
	envp[2] = rc ? failed_env : ok_env;
	envp[3] = count_env;
	envp[4] = NULL;
	snprintf(cause_env, sizeof(cause_env), "RESET_CAUSE=%s", cause);
	snprintf(count_env, sizeof(count_env), "HARD_RESET_COUNT=%d",
		 atomic_read(&gdev->hard_reset_cnt));
	kobject_uevent_env(&gdev->pdev->dev.kobj, KOBJ_CHANGE, envp);
}
