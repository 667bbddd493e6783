/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Closing a compute context: stop the engines working for it, clear the
 * user sync-manager state, scrub the HBM it held (gaudisim_release.c).
 */
#ifndef __GAUDISIM_RELEASE_H__
#define __GAUDISIM_RELEASE_H__

#include <linux/types.h>

struct gaudisim_ctx;

void gaudisim_ctx_release_engines(struct gaudisim_ctx *ctx);
void gaudisim_ctx_scrub_hbm(struct gaudisim_ctx *ctx);
int gaudisim_ctx_scrub_range(struct gaudisim_ctx *ctx, u64 start, u64 end);

#endif /* __GAUDISIM_RELEASE_H__ */
