/* SPDX-License-Identifier: MIT */
/*
 * The compiler's state, shared by its passes (compile.c runs them): a
 * graph in, a recipe out.
 */
#ifndef HLRT_COMPILE_STATE_H
#define HLRT_COMPILE_STATE_H

#include "graph/graph_internal.h"
#include "recipe/recipe.h"

/* ---- compiler (compile.c, passes.c, memplan.c, lower/) ------------------- */

/* What a node runs besides its own op, when a fusion gave it a partner's. */
enum cfusion {
	CFUSION_NONE,
	/* the partner, a bias_add whose sum only feeds this relu_fwd: never stored */
	CFUSION_BIAS_RELU,
	/*
	 * the partner, the sce_bwd of this sce_fwd's logits and labels, and
	 * fused_also, an argmax of the logits or -1: one pass a row
	 */
	CFUSION_SCE_FWD_BWD,
};

/* A node of the graph being compiled, with its placement. */
struct cnode {
	struct hlrt_node *node;
	const struct op_def *op;
	enum hlrt_engine engine;
	bool dead;
	bool folded;		/* logical: its output aliases its input */
	uint32_t first_work, n_works;
	int32_t fused_into;	/* -1, or the node that runs this one's work */
	int32_t fused_from;	/* -1, or the node fused into this one */
	enum cfusion fusion;	/* with fused_from: how the two run as one work */
	int32_t fused_also;	/* -1, or a second node fused into this one */
};

/* Compile-time view of a tensor: where its storage is. */
struct ctensor {
	struct hlrt_tensor *t;
	int32_t alias_of;	/* view: the ctensor whose storage it shares */
	uint64_t alias_offset;
	int32_t rt;		/* rtensor index (storage owners only), -1 */
	int32_t first_use, last_use;	/* schedule positions, -1 unused */
	bool used;
};

struct compile_state {
	hlrt_graph *g;
	struct hlrt_compile_options opts;
	struct cnode *cn;
	uint32_t n_cn;
	struct ctensor *ct;	/* one per graph tensor */
	struct hlrt_recipe *r;
	uint32_t works_cap;
	bool log_placement;
	bool bf16;
};

hlrt_status hlrt_pass_shape_check(struct compile_state *cs);
hlrt_status hlrt_pass_dead_nodes(struct compile_state *cs);
hlrt_status hlrt_pass_fold_logical(struct compile_state *cs);
/* bias_add+relu_fwd, and sce_fwd+sce_bwd (+ an argmax of its logits), as one work each. */
hlrt_status hlrt_pass_fuse(struct compile_state *cs);
/* Rewrite the graph's FP32 GEMMs to BF16 inputs (autocast.c); the compile's own copy. */
hlrt_status hlrt_bf16_autocast(hlrt_graph *g);
hlrt_status hlrt_pass_placement(struct compile_state *cs);
hlrt_status hlrt_pass_memory_plan(struct compile_state *cs);
/* Each live node to engine works (lower/pass_lower.c). */
hlrt_status hlrt_pass_lower(struct compile_state *cs);
hlrt_status hlrt_pass_dependencies(struct compile_state *cs);

/* Storage owner of a tensor and the byte offset of the view in it (memplan.c). */
uint32_t hlrt_ct_root(const struct compile_state *cs, uint32_t t, uint64_t *offset);

#endif /* HLRT_COMPILE_STATE_H */
