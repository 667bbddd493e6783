/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MSI-X vectors and the completion-queue interrupts of the external queues.
 */
#ifndef __GAUDISIM_IRQ_H__
#define __GAUDISIM_IRQ_H__

struct gaudisim_device;

int gaudisim_irq_init(struct gaudisim_device *gdev);
void gaudisim_irq_fini(struct gaudisim_device *gdev);
void gaudisim_irq_sync(struct gaudisim_device *gdev);

#endif /* __GAUDISIM_IRQ_H__ */
