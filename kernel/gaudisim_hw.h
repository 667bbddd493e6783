/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Register access, identity and hard reset of the gaudisim device.
 */
#ifndef __GAUDISIM_HW_H__
#define __GAUDISIM_HW_H__

#include <linux/io.h>
#include <linux/types.h>

#include "gaudisim_drv.h"

static inline u32 gaudisim_rreg(struct gaudisim_device *gdev, u32 offset)
{
	return readl(gdev->regs + offset);
}

static inline void gaudisim_wreg(struct gaudisim_device *gdev, u32 offset, u32 value)
{
	writel(value, gdev->regs + offset);
}

/* A LO/HI register pair; LO is read first (the device latches HI then). */
static inline u64 gaudisim_rreg64(struct gaudisim_device *gdev, u32 lo, u32 hi)
{
	u64 value = gaudisim_rreg(gdev, lo);

	return value | ((u64)gaudisim_rreg(gdev, hi) << 32);
}

/* Offset of a QMAN register of @engine in the CFG BAR. */
static inline u32 gaudisim_qm_reg(u32 engine, u32 reg)
{
	return GAUDISIM_QM_BLOCK(engine) + reg;
}

int gaudisim_hw_identify(struct gaudisim_device *gdev);
int gaudisim_hw_fw_string(struct gaudisim_device *gdev, char *buf, size_t size);
int gaudisim_hw_reset(struct gaudisim_device *gdev);
void gaudisim_hw_mark_dirty(struct gaudisim_device *gdev);
u32 gaudisim_hw_busy_streams(struct gaudisim_device *gdev, u32 engine);
/* habanalabs' engine ID (enum gaudi_engine_id) of a gaudisim engine. */
u32 gaudisim_hl_engine_id(u32 engine);

#endif /* __GAUDISIM_HW_H__ */
