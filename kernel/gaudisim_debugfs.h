/* SPDX-License-Identifier: GPL-2.0 */
/*
 * debugfs for driver developers: peek/poke, engines, CSs, CBs, userptrs,
 * MMU walk, state dump and the recent events.
 */
#ifndef __GAUDISIM_DEBUGFS_H__
#define __GAUDISIM_DEBUGFS_H__

#include <linux/types.h>

struct gaudisim_device;

/* The habanalabs/ folder for the hl<index> links, at module load and unload. */
void gaudisim_debugfs_module_init(void);
void gaudisim_debugfs_module_exit(void);
int gaudisim_debugfs_init(struct gaudisim_device *gdev);
void gaudisim_debugfs_fini(struct gaudisim_device *gdev);

#endif /* __GAUDISIM_DEBUGFS_H__ */
