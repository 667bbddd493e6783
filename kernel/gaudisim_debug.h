/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The DEBUG ioctl: habanalabs' debug (profiling) mode.
 */
#ifndef __GAUDISIM_DEBUG_H__
#define __GAUDISIM_DEBUG_H__

struct drm_device;
struct drm_file;
struct gaudisim_ctx;

int gaudisim_debug_ioctl(struct drm_device *drm, void *data, struct drm_file *file);
/* A closing context leaves debug mode if it holds it. */
void gaudisim_debug_ctx_fini(struct gaudisim_ctx *ctx);

#endif /* __GAUDISIM_DEBUG_H__ */
