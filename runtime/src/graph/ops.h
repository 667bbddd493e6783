/* SPDX-License-Identifier: MIT */
/*
 * The per-op functions the registry points to: lowerings (lower.c),
 * gradient rules (autodiff.c) and host implementations (cpu_ops.c).
 */
#ifndef HLRT_OPS_H
#define HLRT_OPS_H

#include "hlrt_internal.h"

hlrt_dtype op_dtype(const struct hlrt_node *n);

hlrt_status lower_gemm(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status lower_batch_gemm(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status lower_softmax(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status lower_gemm_dedx(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status lower_gemm_dedw(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status lower_binary(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status lower_unary(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status lower_scale(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status lower_reduce(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status lower_broadcast(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status lower_sce_fwd(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status lower_sce_bwd(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status lower_argmax(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status lower_gather(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status lower_sgd(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status lower_opt_state(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status lower_memcpy(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status lower_memset(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status lower_transpose(struct lower_ctx *lc, const struct cnode *cn);

hlrt_status grad_gemm(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status grad_add(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status grad_sub(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status grad_mul(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status grad_scale(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status grad_bias_add(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status grad_relu(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status grad_reduce_sum(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status grad_reduce_mean(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status grad_sce(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status grad_reshape(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status grad_transpose(struct ad_ctx *ac, const struct hlrt_node *n);

hlrt_status cpu_argmax(const struct rwork *w, const struct hlrt_recipe *r,
		       void *const *in, void *const *out);
hlrt_status cpu_equal(const struct rwork *w, const struct hlrt_recipe *r,
		      void *const *in, void *const *out);
hlrt_status cpu_cast(const struct rwork *w, const struct hlrt_recipe *r,
		     void *const *in, void *const *out);

#endif /* HLRT_OPS_H */
