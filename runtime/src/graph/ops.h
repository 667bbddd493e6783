/* SPDX-License-Identifier: MIT */
/*
 * The per-op functions the registry points to: lowerings (compile/lower/),
 * gradient rules (autodiff.c) and host implementations (exec/cpu_ops.c).
 * This list is the registry's whole dependency on those folders: it takes
 * their rules by pointer, and their types only as incomplete structs.
 */
#ifndef HLRT_OPS_H
#define HLRT_OPS_H

#include "graph/graph_internal.h"

hlrt_dtype hlrt_op_dtype(const struct hlrt_node *n);

hlrt_status hlrt_lower_gemm(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_batch_gemm(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_softmax(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_gemm_dedx(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_gemm_dedw(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_binary(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_unary(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_gelu(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_scale(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_reduce(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_broadcast(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_log_softmax_bwd(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_nll_fwd(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_nll_bwd(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_sce_fwd(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_sce_bwd(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_argmax(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_gather(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_sgd(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_opt_state(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_memcpy(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_memset(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_transpose(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_custom(struct lower_ctx *lc, const struct cnode *cn);

hlrt_status hlrt_grad_gemm(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status hlrt_grad_add(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status hlrt_grad_sub(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status hlrt_grad_mul(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status hlrt_grad_scale(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status hlrt_grad_bias_add(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status hlrt_grad_relu(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status hlrt_grad_square(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status hlrt_grad_tanh(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status hlrt_grad_gelu(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status hlrt_grad_sigmoid(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status hlrt_grad_softmax(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status hlrt_grad_where(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status hlrt_grad_reduce_sum(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status hlrt_grad_reduce_mean(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status hlrt_grad_sce(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status hlrt_grad_reshape(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status hlrt_grad_transpose(struct ad_ctx *ac, const struct hlrt_node *n);

/*
 * How a CPU-placed broadcasting op reads its two inputs at the output's
 * coordinates: lowering stores it in the work's params (the comparisons
 * have none of their own).
 */
struct hlrt_cpu_bcast {
	uint32_t ndims;
	uint32_t dims[HLRT_MAX_DIMS];		/* the output's, outermost first */
	uint32_t stride[2][HLRT_MAX_DIMS];	/* inputs 0 and 1, in elements */
};

hlrt_status hlrt_cpu_argmax(const struct rwork *w, const struct hlrt_recipe *r,
		       void *const *in, void *const *out);
hlrt_status hlrt_cpu_compare(const struct rwork *w, const struct hlrt_recipe *r,
			void *const *in, void *const *out);
hlrt_status hlrt_cpu_cast(const struct rwork *w, const struct hlrt_recipe *r,
		     void *const *in, void *const *out);

/* Convolutions and pooling (compile/lower/conv.c). */
hlrt_status hlrt_infer_im2col(struct hlrt_node *n, struct hlrt_tensor_desc *o);
hlrt_status hlrt_infer_col2im(struct hlrt_node *n, struct hlrt_tensor_desc *o);
hlrt_status hlrt_infer_maxpool_fwd(struct hlrt_node *n, struct hlrt_tensor_desc *o);
hlrt_status hlrt_infer_maxpool_bwd(struct hlrt_node *n, struct hlrt_tensor_desc *o);
hlrt_status hlrt_lower_im2col(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_col2im(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_maxpool_fwd(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_maxpool_bwd(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_grad_im2col(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status hlrt_grad_maxpool(struct ad_ctx *ac, const struct hlrt_node *n);
/* spatial_convolution_f32, dedx_f32, dedw_f32: the MME's convolution modes. */
hlrt_status hlrt_infer_conv_mme(struct hlrt_node *n, struct hlrt_tensor_desc *o);
hlrt_status hlrt_lower_conv_mme(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_grad_conv_mme(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status hlrt_expand_conv2d_fwd(hlrt_graph *g, hlrt_tensor *const *in, uint32_t n_in,
			      const void *params, const char *name, hlrt_tensor *out,
			      struct hlrt_node **last);
hlrt_status hlrt_expand_conv2d_dedx(hlrt_graph *g, hlrt_tensor *const *in, uint32_t n_in,
			       const void *params, const char *name, hlrt_tensor *out,
			       struct hlrt_node **last);
hlrt_status hlrt_expand_conv2d_dedw(hlrt_graph *g, hlrt_tensor *const *in, uint32_t n_in,
			       const void *params, const char *name, hlrt_tensor *out,
			       struct hlrt_node **last);
hlrt_status hlrt_expand_conv2d_fwd_bf16(hlrt_graph *g, hlrt_tensor *const *in, uint32_t n_in,
				   const void *params, const char *name, hlrt_tensor *out,
				   struct hlrt_node **last);
hlrt_status hlrt_expand_conv2d_dedx_bf16(hlrt_graph *g, hlrt_tensor *const *in, uint32_t n_in,
				    const void *params, const char *name, hlrt_tensor *out,
				    struct hlrt_node **last);
hlrt_status hlrt_expand_conv2d_dedw_bf16(hlrt_graph *g, hlrt_tensor *const *in, uint32_t n_in,
				    const void *params, const char *name, hlrt_tensor *out,
				    struct hlrt_node **last);

/* Dropout and batch normalization (compile/lower/norm.c, graph/dropout_hash.c). */
uint32_t hlrt_dropout_threshold(float rate);
hlrt_status hlrt_infer_dropout(struct hlrt_node *n, struct hlrt_tensor_desc *o);
hlrt_status hlrt_lower_dropout(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_grad_dropout(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status hlrt_infer_batchnorm_fwd(struct hlrt_node *n, struct hlrt_tensor_desc *o);
hlrt_status hlrt_infer_batchnorm_bwd(struct hlrt_node *n, struct hlrt_tensor_desc *o);
hlrt_status hlrt_lower_batchnorm_fwd(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_lower_batchnorm_bwd(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_grad_batchnorm(struct ad_ctx *ac, const struct hlrt_node *n);

/* Spatial padding (compile/lower/pad.c). */
hlrt_status hlrt_infer_concat(struct hlrt_node *n, struct hlrt_tensor_desc *o);
hlrt_status hlrt_lower_concat(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_grad_concat(struct ad_ctx *ac, const struct hlrt_node *n);
hlrt_status hlrt_infer_slice(struct hlrt_node *n, struct hlrt_tensor_desc *o);
hlrt_status hlrt_lower_slice(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_infer_pad2d(struct hlrt_node *n, struct hlrt_tensor_desc *o);
hlrt_status hlrt_lower_pad2d(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_grad_pad2d(struct ad_ctx *ac, const struct hlrt_node *n);

/* LAMB (compile/lower/lamb.c). */
hlrt_status hlrt_infer_lamb_moments(struct hlrt_node *n, struct hlrt_tensor_desc *o);
hlrt_status hlrt_infer_lamb_sumsq(struct hlrt_node *n, struct hlrt_tensor_desc *o);
hlrt_status hlrt_infer_lamb_apply(struct hlrt_node *n, struct hlrt_tensor_desc *o);
/* The three stages, by GUID. */
hlrt_status hlrt_lower_lamb(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_expand_lamb(hlrt_graph *g, hlrt_tensor *const *in, uint32_t n_in,
			const void *params, const char *name, hlrt_tensor *out,
			struct hlrt_node **last);

#endif /* HLRT_OPS_H */
