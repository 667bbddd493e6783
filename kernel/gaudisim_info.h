/* SPDX-License-Identifier: GPL-2.0 */
/*
 * INFO ioctl of the compute and the control node.
 */
#ifndef __GAUDISIM_INFO_H__
#define __GAUDISIM_INFO_H__

struct drm_device;
struct drm_file;
struct gaudisim_ctx;
struct gaudisim_device;
struct gaudisim_info_args;

int gaudisim_info_query(struct gaudisim_device *gdev, struct gaudisim_ctx *ctx,
			struct gaudisim_info_args *args);
int gaudisim_info_ioctl(struct drm_device *drm, void *data, struct drm_file *file);

#endif /* __GAUDISIM_INFO_H__ */
