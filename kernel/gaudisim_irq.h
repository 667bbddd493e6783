/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interrupts: the MSI-X vectors of the device and the threaded handlers of
 * the completion queues (vector i = CQ i = external queue ID i).
 */
#ifndef __GAUDISIM_IRQ_H__
#define __GAUDISIM_IRQ_H__

struct gaudisim_device;

int gaudisim_irq_init(struct gaudisim_device *gdev);
void gaudisim_irq_fini(struct gaudisim_device *gdev);
void gaudisim_irq_sync(struct gaudisim_device *gdev);

#endif /* __GAUDISIM_IRQ_H__ */
