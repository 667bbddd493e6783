/* SPDX-License-Identifier: MIT */
/*
 * The per-op functions the registry points to: lowerings (lower.c),
 * gradient rules (autodiff.c) and host implementations (cpu_ops.c).
 */
#ifndef HLRT_OPS_H
#define HLRT_OPS_H

#include "hlrt_internal.h"

hlrt_dtype hlrt_op_dtype(const struct hlrt_node *n);

hlrt_status hlrt_lower_gemm(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_batch_gemm(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_softmax(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_gemm_dedx(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_gemm_dedw(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_binary(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_unary(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_scale(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_reduce(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_broadcast(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_sce_fwd(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_sce_bwd(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_argmax(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_gather(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_sgd(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_opt_state(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_memcpy(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_memset(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_transpose(struct lower_ctx *lc, const struct cnode *cn);

hlrt_status hlrt_grad_gemm(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status hlrt_grad_add(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status hlrt_grad_sub(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status hlrt_grad_mul(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status hlrt_grad_scale(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status hlrt_grad_bias_add(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status hlrt_grad_relu(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status hlrt_grad_reduce_sum(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status hlrt_grad_reduce_mean(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status hlrt_grad_sce(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status hlrt_grad_reshape(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status hlrt_grad_transpose(struct ad_ctx *ac, const struct hlrt_node *n);

hlrt_status hlrt_cpu_argmax(const struct rwork *w, const struct hlrt_recipe *r,
		       void *const *in, void *const *out);
hlrt_status hlrt_cpu_equal(const struct rwork *w, const struct hlrt_recipe *r,
		      void *const *in, void *const *out);
hlrt_status hlrt_cpu_cast(const struct rwork *w, const struct hlrt_recipe *r,
		     void *const *in, void *const *out);

#endif /* HLRT_OPS_H */
