/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CB parser: validates every packet of a user CB bound for an external
 * queue and writes a patched copy into a kernel CB. This is the security
 * boundary between user space and the device.
 */
#ifndef __GAUDISIM_PARSER_H__
#define __GAUDISIM_PARSER_H__

#include <linux/types.h>

struct gaudisim_ctx;
struct gaudisim_cb;
struct gaudisim_job;

int gaudisim_parser_make_kcb(struct gaudisim_ctx *ctx, struct gaudisim_job *job,
			     struct gaudisim_cb *cb, u32 cb_size);
void gaudisim_job_write_tail(struct gaudisim_job *job, u64 cq_addr, u32 cq_value,
			     u32 vector);

#endif /* __GAUDISIM_PARSER_H__ */
