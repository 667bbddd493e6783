/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NIC ports: what peers may write on this device, and their link state.
 */
#ifndef __GAUDISIM_NIC_H__
#define __GAUDISIM_NIC_H__

#include <linux/types.h>

#include <hw/gaudisim_hw_nic.h>

struct gaudisim_ctx;
struct gaudisim_device;
struct gaudisim_info_nic_links;

/**
 * struct gaudisim_nic_mr - one receive registration (GAUDISIM_NIC_RX_MR_*)
 * @owner: the context that registered it; NULL when the entry is free
 * @addr: HBM address peers may write from; @size: bytes (0: none)
 * @sob_first: first SOB peers may signal; @sob_count: how many (0: none)
 */
struct gaudisim_nic_mr {
	struct gaudisim_ctx *owner;
	u64 addr, size;
	u32 sob_first, sob_count;
};

/*
 * Open every port's receive window and SOB range to the user's and program
 * the registrations again; at probe and after every hard reset.
 */
void gaudisim_nic_hw_init(struct gaudisim_device *gdev);
/* INFO NIC_LINKS; the caller is inside drm_dev_enter(). */
void gaudisim_nic_info(struct gaudisim_device *gdev, struct gaudisim_info_nic_links *links);

/* MEMORY NIC_REGISTER: returns the handle in *handle. */
int gaudisim_nic_register(struct gaudisim_ctx *ctx, u64 addr, u64 size, u32 sob_first,
			  u32 sob_count, u64 *handle);
/* MEMORY NIC_DEREGISTER. */
int gaudisim_nic_deregister(struct gaudisim_ctx *ctx, u64 handle);
/* Drop @ctx's registrations that overlap HBM [addr, addr + size) (FREE). */
void gaudisim_nic_drop_range(struct gaudisim_ctx *ctx, u64 addr, u64 size);
/* Drop every registration of a closing context. */
void gaudisim_nic_ctx_release(struct gaudisim_ctx *ctx);

#endif /* __GAUDISIM_NIC_H__ */
