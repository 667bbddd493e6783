// SPDX-License-Identifier: GPL-2.0
/*
 * User interrupts and the WAIT_CS INTERRUPT wait (habanalabs'
 * hl_interrupt_wait_ioctl with a user address).
 *
 * The hard-IRQ handler only stamps the time, bumps the line's counter and
 * wakes its waiters; it never reads user memory. A waiter reads the
 * counter, then the value at the user address (which may fault and sleep,
 * so it is read outside any lock and outside the wait-queue sleep), and
 * sleeps until the counter moves: an interrupt that fires between the
 * read and the sleep is never missed, and nothing polls.
 *
 * A device reset aborts every wait with -EIO and status ABORTED, as
 * habanalabs does: the work that was to raise the interrupt is gone.
 *
 * On a shared device each context slot has its own interrupts (an even
 * split, gaudisim_ctx.c): a context waits only on its own, and its "any"
 * wait only counts its own.
 */

#include <linux/bitfield.h>
#include <linux/interrupt.h>
#include <linux/ktime.h>
#include <linux/pci.h>
#include <linux/uaccess.h>

#include "gaudisim_ctx.h"
#include "gaudisim_drv.h"
#include "gaudisim_uirq.h"

#define GAUDISIM_UIRQ_ID_ANY \
	FIELD_GET(GAUDISIM_WAIT_CS_FLAGS_INTERRUPT_MASK, \
		  GAUDISIM_WAIT_CS_FLAGS_ANY_CQ_INTERRUPT)

static irqreturn_t gaudisim_uirq_handler(int irq, void *arg)
{
	struct gaudisim_uirq_line *l = arg;
	struct gaudisim_uirq *u = l->owner;
	u64 now = ktime_get_ns();

	WRITE_ONCE(l->last_ns, now);
	WRITE_ONCE(u->any.last_ns, now);
	/* A waiter that sees the new count also sees the time. */
	smp_wmb();
	atomic64_inc(&l->count);
	atomic64_inc(&u->any.count);
	if (l->group) {
		WRITE_ONCE(l->group->last_ns, now);
		/* As above: the slot's "any" waiters see the time with the count. */
		smp_wmb();
		atomic64_inc(&l->group->count);
		wake_up_all(&l->group->wq);
	}
	wake_up_all(&l->wq);
	wake_up_all(&u->any.wq);
	return IRQ_HANDLED;
}

static void gaudisim_uirq_line_init(struct gaudisim_uirq *u, struct gaudisim_uirq_line *l)
{
	init_waitqueue_head(&l->wq);
	atomic64_set(&l->count, 0);
	l->owner = u;
}

/**
 * gaudisim_uirq_init() - set up the wait lists and request the user vectors
 * @gdev: the device, its MSI-X vectors allocated
 *
 * Return: 0 or the error of request_irq(); nothing is left requested then.
 */
int gaudisim_uirq_init(struct gaudisim_device *gdev)
{
	struct gaudisim_uirq *u = &gdev->uirq;
	u32 i;
	int rc;

	atomic_set(&u->reset_gen, 0);
	gaudisim_uirq_line_init(u, &u->any);
	for (i = 0; i < GAUDISIM_MSIX_NUM_USER; i++)
		gaudisim_uirq_line_init(u, &u->slot_any[i]);
	for (i = 0; i < GAUDISIM_MSIX_NUM_USER; i++) {
		struct gaudisim_uirq_line *l = &u->line[i];
		u32 vec = GAUDISIM_MSIX_VEC_USER_FIRST + i;
		u32 per = GAUDISIM_MSIX_NUM_USER / gaudisim_max_contexts;
		int irq;

		gaudisim_uirq_line_init(u, l);
		if (gaudisim_max_contexts > 1 && i / per < gaudisim_max_contexts)
			l->group = &u->slot_any[i / per];
		irq = pci_irq_vector(gdev->pdev, vec);
		if (irq < 0) {
			rc = irq;
			goto err;
		}
		snprintf(l->name, sizeof(l->name), "gaudisim-user%u", vec);
		rc = request_irq(irq, gaudisim_uirq_handler, 0, l->name, l);
		if (rc) {
			dev_err(&gdev->pdev->dev, "cannot request user interrupt %u: %d\n",
				vec, rc);
			goto err;
		}
		l->irq = irq;
	}
	return 0;

err:
	gaudisim_uirq_fini(gdev);
	return rc;
}

void gaudisim_uirq_fini(struct gaudisim_device *gdev)
{
	u32 i;

	for (i = 0; i < GAUDISIM_MSIX_NUM_USER; i++) {
		struct gaudisim_uirq_line *l = &gdev->uirq.line[i];

		if (l->irq) {
			free_irq(l->irq, l);
			l->irq = 0;
		}
	}
}

/* A reset (or the device going away): every waiter returns ABORTED. */
void gaudisim_uirq_reset(struct gaudisim_device *gdev)
{
	struct gaudisim_uirq *u = &gdev->uirq;
	u32 i;

	atomic_inc(&u->reset_gen);
	/* Pairs with the waiter's barrier before it reads @reset_gen. */
	smp_mb__after_atomic();
	for (i = 0; i < GAUDISIM_MSIX_NUM_USER; i++) {
		wake_up_all(&u->line[i].wq);
		wake_up_all(&u->slot_any[i].wq);
	}
	wake_up_all(&u->any.wq);
}

/*
 * The line of a WAIT_CS INTERRUPT's flags, or NULL for a bad request or
 * another context's interrupt.
 */
static struct gaudisim_uirq_line *
gaudisim_uirq_line_of(struct gaudisim_device *gdev, struct gaudisim_ctx *ctx,
		      const struct gaudisim_wait_cs_in *in)
{
	u32 id = FIELD_GET(GAUDISIM_WAIT_CS_FLAGS_INTERRUPT_MASK, in->flags);
	u32 other = in->flags & ~(GAUDISIM_WAIT_CS_FLAGS_INTERRUPT |
				  GAUDISIM_WAIT_CS_FLAGS_INTERRUPT_MASK);

	if (other) {
		/* MULTI_CS, KERNEL_CQ and REGISTER_INTERRUPT included. */
		gaudisim_dbg(gdev, "interrupt wait with unsupported flags 0x%x\n", other);
		return NULL;
	}
	if (in->ctx_id || in->cq_counters_offset || in->timestamp_handle ||
	    in->timestamp_offset) {
		gaudisim_dbg(gdev, "interrupt wait: ctx_id and the kernel-CQ fields must be 0\n");
		return NULL;
	}
	if (id == GAUDISIM_UIRQ_ID_ANY)
		return ctx->shared ? &gdev->uirq.slot_any[ctx->slot] : &gdev->uirq.any;
	if (id - ctx->uirq_first < ctx->uirq_count)
		return &gdev->uirq.line[id - GAUDISIM_MSIX_VEC_USER_FIRST];
	gaudisim_dbg(gdev, "invalid interrupt ID %u: this context's are %u..%u or ANY\n",
		     id, ctx->uirq_first, ctx->uirq_first + ctx->uirq_count - 1);
	return NULL;
}

/**
 * gaudisim_uirq_wait() - WAIT_CS with the INTERRUPT flag
 * @gdev: the device
 * @ctx: the waiting context
 * @in: the request (addr, target, flags with the interrupt ID)
 * @timeout: jiffies to wait at most; 0 checks the value once
 * @out: status COMPLETED (with the time of the interrupt that ended the
 *	 wait, or of the check that found it done) or BUSY on timeout
 *
 * Return: 0; -EINVAL for a bad request, -EFAULT when @in->addr cannot be
 * read, -EINTR on a signal, -EIO (status ABORTED) after a device reset.
 */
int gaudisim_uirq_wait(struct gaudisim_device *gdev, struct gaudisim_ctx *ctx,
		       const struct gaudisim_wait_cs_in *in, unsigned long timeout,
		       struct gaudisim_wait_cs_out *out)
{
	u64 __user *uaddr = u64_to_user_ptr(in->addr);
	struct gaudisim_uirq *u = &gdev->uirq;
	struct gaudisim_uirq_line *l;
	u64 value, seen, ts = 0;
	bool woken = false;
	long left = timeout;
	int gen;

	l = gaudisim_uirq_line_of(gdev, ctx, in);
	if (!l)
		return -EINVAL;

	gen = atomic_read(&u->reset_gen);
	for (;;) {
		seen = atomic64_read(&l->count);
		/* Pairs with the handler's smp_wmb(): @last_ns is at least as new. */
		smp_rmb();
		if (woken)
			ts = READ_ONCE(l->last_ns);
		if (copy_from_user(&value, uaddr, sizeof(value))) {
			gaudisim_dbg(gdev, "interrupt wait: cannot read 0x%llx\n", in->addr);
			return -EFAULT;
		}
		if (value >= in->target) {
			out->status = GAUDISIM_WAIT_CS_STATUS_COMPLETED;
			/* No interrupt ended it: as habanalabs, completion is now. */
			out->timestamp_nsec = woken ? ts : ktime_get_ns();
			out->flags |= GAUDISIM_WAIT_CS_STATUS_FLAG_TIMESTAMP_VLD;
			return 0;
		}
		if (!left) {
			/* Not submitted through the driver: still running, BUSY. */
			out->status = GAUDISIM_WAIT_CS_STATUS_BUSY;
			return 0;
		}
		left = wait_event_interruptible_timeout(l->wq,
							atomic64_read(&l->count) != seen ||
							atomic_read(&u->reset_gen) != gen,
							left);
		if (left < 0) {
			out->status = GAUDISIM_WAIT_CS_STATUS_ABORTED;
			return -EINTR;
		}
		if (atomic_read(&u->reset_gen) != gen) {
			gaudisim_dbg(gdev, "interrupt wait aborted by a device reset\n");
			out->status = GAUDISIM_WAIT_CS_STATUS_ABORTED;
			return -EIO;
		}
		woken = atomic64_read(&l->count) != seen;
	}
}
