// SPDX-License-Identifier: GPL-2.0
/*
 * Interrupts: one MSI-X vector per completion queue (vector i = CQ i =
 * queue ID i, the number the completion tail writes to MSIX_REQ), then
 * the event-queue vector, then the user interrupts (gaudisim_uirq.c).
 *
 * The handlers are threaded, so completing a job may sleep. The hard-IRQ
 * half wakes the thread only when a READY entry waits and no submitter is
 * about to drain the CQ (gaudisim_queue_doorbell_drain()); a waiter also
 * drains before it sleeps, and when one got there first the thread stays
 * asleep.
 */

#include <linux/interrupt.h>
#include <linux/pci.h>

#include "gaudisim_drv.h"
#include "gaudisim_irq.h"
#include "gaudisim_queue.h"
#include "gaudisim_uirq.h"

static irqreturn_t gaudisim_cq_irq(int irq, void *arg)
{
	struct gaudisim_queue *q = arg;

	/*
	 * Pairs with the barrier after the decrement of @ringing: either the
	 * submitter's drain sees the entries this interrupt announced, or
	 * this sees @ringing at 0.
	 */
	smp_mb();
	if (atomic_read(&q->ringing))
		return IRQ_HANDLED;
	return gaudisim_queue_cq_ready(q) ? IRQ_WAKE_THREAD : IRQ_HANDLED;
}

static irqreturn_t gaudisim_cq_irq_thread(int irq, void *arg)
{
	struct gaudisim_queue *q = arg;

	gaudisim_queue_drain_cq(q);
	return IRQ_HANDLED;
}

int gaudisim_irq_init(struct gaudisim_device *gdev)
{
	struct pci_dev *pdev = gdev->pdev;
	int nvec, rc;
	u32 i;

	/* Vectors are released by pcim on driver detach. */
	nvec = pci_alloc_irq_vectors(pdev, GAUDISIM_MSIX_NUM_VECTORS,
				     GAUDISIM_MSIX_NUM_VECTORS, PCI_IRQ_MSIX);
	if (nvec < 0) {
		dev_err(&pdev->dev, "cannot allocate %u MSI-X vectors: %d\n",
			GAUDISIM_MSIX_NUM_VECTORS, nvec);
		return nvec;
	}

	for (i = 0; i < GAUDISIM_NUM_CQ; i++) {
		struct gaudisim_queue *q = &gdev->queues[i];
		int irq;

		if (!q->present)
			continue;

		irq = pci_irq_vector(pdev, q->id);
		if (irq < 0) {
			rc = irq;
			goto err_free;
		}
		snprintf(q->irq_name, sizeof(q->irq_name), "gaudisim-cq%u", q->id);
		rc = request_threaded_irq(irq, gaudisim_cq_irq, gaudisim_cq_irq_thread,
					  IRQF_ONESHOT, q->irq_name, q);
		if (rc) {
			dev_err(&pdev->dev, "cannot request the IRQ of CQ %u: %d\n",
				q->id, rc);
			goto err_free;
		}
		q->irq = irq;
	}
	rc = gaudisim_uirq_init(gdev);
	if (rc)
		goto err_free;
	return 0;

err_free:
	gaudisim_irq_fini(gdev);
	return rc;
}

void gaudisim_irq_fini(struct gaudisim_device *gdev)
{
	u32 i;

	gaudisim_uirq_fini(gdev);
	for (i = 0; i < GAUDISIM_NUM_CQ; i++) {
		struct gaudisim_queue *q = &gdev->queues[i];

		if (q->irq) {
			free_irq(q->irq, q);
			q->irq = 0;
		}
	}
}

/* Wait until no CQ handler runs, e.g. after a reset stopped the device. */
void gaudisim_irq_sync(struct gaudisim_device *gdev)
{
	u32 i;

	for (i = 0; i < GAUDISIM_NUM_CQ; i++)
		if (gdev->queues[i].irq)
			synchronize_irq(gdev->queues[i].irq);
}
