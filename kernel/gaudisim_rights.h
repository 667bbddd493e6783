/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The device's payload rights table (hw/gaudisim_hw_sync.h): what each
 * context owns, so that a monitor payload armed by its CBs is checked as
 * a write by that context wherever it lands.
 */
#ifndef __GAUDISIM_RIGHTS_H__
#define __GAUDISIM_RIGHTS_H__

#include <linux/mutex.h>
#include <linux/types.h>

#include <hw/gaudisim_hw_sync.h>

struct gaudisim_ctx;
struct gaudisim_device;

/**
 * struct gaudisim_rights_entry - one entry as the driver last programmed it
 * @ctrl: GAUDISIM_RIGHTS_CTRL_*; 0: the entry grants nothing
 * @sob_first: first SOB; @sob_end: one past the last
 * @mon_first: first monitor; @mon_end: one past the last
 * @queues: bit q: the fences of queue q
 * @hbm_base: first HBM byte; @hbm_size: bytes (0: none)
 */
struct gaudisim_rights_entry {
	u32 ctrl;
	u32 sob_first, sob_end;
	u32 mon_first, mon_end;
	u32 queues[GAUDISIM_RIGHTS_QUEUE_WORDS];
	u64 hbm_base, hbm_size;
	u32 user_intr;
};

/**
 * struct gaudisim_rights - the driver's copy of the table, for resets
 * @lock: see below
 * @entry: indexed by ASID; entry 0 is the driver's own
 */
struct gaudisim_rights {
	/* Protects @entry and the device's table while it is programmed. */
	struct mutex lock;
	struct gaudisim_rights_entry entry[GAUDISIM_SYNC_RIGHTS_ENTRIES];
};

int gaudisim_rights_init(struct gaudisim_device *gdev);
void gaudisim_rights_hw_init(struct gaudisim_device *gdev);
void gaudisim_rights_ctx_init(struct gaudisim_ctx *ctx);
void gaudisim_rights_ctx_fini(struct gaudisim_ctx *ctx);

#endif /* __GAUDISIM_RIGHTS_H__ */
