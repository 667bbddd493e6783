/* SPDX-License-Identifier: GPL-2.0 */
/*
 * debugfs for driver developers: peek/poke, engines, CSs, CBs, userptrs,
 * MMU walk, state dump and the recent events.
 */
#ifndef __GAUDISIM_DEBUGFS_H__
#define __GAUDISIM_DEBUGFS_H__

#include <linux/types.h>

struct gaudisim_device;
struct gaudisim_eq_entry_le;

int gaudisim_debugfs_init(struct gaudisim_device *gdev);
void gaudisim_debugfs_fini(struct gaudisim_device *gdev);

/* Keep @e in the history of the events file; called under eq.lock. */
void gaudisim_debugfs_record_event(struct gaudisim_device *gdev,
				   const struct gaudisim_eq_entry_le *e);
/* Copy up to @max of the most recent events, oldest first; returns how many. */
unsigned int gaudisim_debugfs_last_events(struct gaudisim_device *gdev,
					  struct gaudisim_eq_entry_le *out, unsigned int max,
					  u64 *total);

#endif /* __GAUDISIM_DEBUGFS_H__ */
