/* SPDX-License-Identifier: MIT */
/* Convolution and pooling ops (conv.c): shape rules, lowerings, gradients, expansions. */
#ifndef HLRT_CONV_H
#define HLRT_CONV_H

#include "hlrt_internal.h"

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

#endif /* HLRT_CONV_H */
