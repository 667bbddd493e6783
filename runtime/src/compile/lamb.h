/* SPDX-License-Identifier: MIT */
/* The LAMB optimizer's nodes (lamb.c): shape rules, lowering, expansion. */
#ifndef HLRT_LAMB_H
#define HLRT_LAMB_H

#include "hlrt_internal.h"

hlrt_status hlrt_infer_lamb_moments(struct hlrt_node *n, struct hlrt_tensor_desc *o);
hlrt_status hlrt_infer_lamb_sumsq(struct hlrt_node *n, struct hlrt_tensor_desc *o);
hlrt_status hlrt_infer_lamb_apply(struct hlrt_node *n, struct hlrt_tensor_desc *o);
/* The three stages, by GUID. */
hlrt_status hlrt_lower_lamb(struct lower_ctx *lc, const struct cnode *cn);
hlrt_status hlrt_expand_lamb(hlrt_graph *g, hlrt_tensor *const *in, uint32_t n_in,
			const void *params, const char *name, hlrt_tensor *out,
			struct hlrt_node **last);

#endif /* HLRT_LAMB_H */
