/* SPDX-License-Identifier: GPL-2.0 */
/*
 * debugfs for driver developers: peek/poke, engines, CSs, CBs, userptrs,
 * MMU walk, state dump and the recent events.
 */
#ifndef __GAUDISIM_DEBUGFS_H__
#define __GAUDISIM_DEBUGFS_H__

struct gaudisim_device;
struct gsim_eq_entry;

int gsim_debugfs_init(struct gaudisim_device *gdev);
void gsim_debugfs_fini(struct gaudisim_device *gdev);

/* Keep @e in the history of the events file; called under eq.lock. */
void gsim_debugfs_record_event(struct gaudisim_device *gdev, const struct gsim_eq_entry *e);

#endif /* __GAUDISIM_DEBUGFS_H__ */
