/* SPDX-License-Identifier: MIT */
/*
 * Graphs, the op registry and autodiff: the objects behind hlrt_graph,
 * hlrt_tensor and hlrt_node, and what an op is. The per-op rules the
 * registry points to take the lowering, compile and recipe types by
 * pointer only (declared here, defined by compile/ and recipe/).
 */
#ifndef HLRT_GRAPH_INTERNAL_H
#define HLRT_GRAPH_INTERNAL_H

#include "hlrt_common.h"

/* ---- graphs (graph.c) ---------------------------------------------------- */

struct hlrt_tensor {
	char name[HLRT_NAME_MAX];
	hlrt_dtype dtype;
	uint32_t ndims;
	uint64_t dims[HLRT_MAX_DIMS];
	hlrt_tensor_role role;
	void *data;			/* CONSTANT elements (owned) */
	uint32_t id;			/* index in graph->tensors */
	struct hlrt_node *producer;	/* last node writing it, or NULL */
	struct hlrt_graph *graph;
	struct hlrt_tensor *grad;	/* autodiff scratch */
};

struct op_def;

struct hlrt_node {
	char guid[HLRT_GUID_MAX];
	char name[HLRT_NAME_MAX];
	const struct op_def *op;
	struct hlrt_tensor *in[HLRT_MAX_IN];
	struct hlrt_tensor *out[HLRT_MAX_OUT];
	uint32_t n_in, n_out;
	uint8_t params[HLRT_MAX_PARAMS];
	uint32_t params_size;
	uint32_t id;
	bool backward;			/* made by autodiff */
};

struct hlrt_graph {
	struct hlrt_tensor **tensors;
	uint32_t n_tensors, cap_tensors;
	struct hlrt_node **nodes;
	uint32_t n_nodes, cap_nodes;
	uint32_t auto_names;
};

uint64_t hlrt_elems(uint32_t ndims, const uint64_t *dims);
/* A deep copy of g: tensors (constant data included) and nodes, same ids. */
hlrt_status hlrt_graph_clone(const hlrt_graph *g, hlrt_graph **out);
/* Create a tensor with a generated or given name (graph.c). */
hlrt_status hlrt_graph_new_tensor(hlrt_graph *g, const char *name, hlrt_dtype dtype,
				  uint32_t ndims, const uint64_t *dims,
				  hlrt_tensor_role role, hlrt_tensor **out);

/* ---- NumPy broadcasting (broadcast.c) ------------------------------------ */

/* The shape t[0..n-1] broadcast to; false when two dimensions clash. */
bool hlrt_bcast_shape(const hlrt_tensor *const *t, uint32_t n, uint32_t *nd, uint64_t *dims);
/*
 * Element strides of in read at the coordinates of a result of out_nd
 * dimensions out_dims (outermost first): 0 along the dimensions in repeats.
 */
void hlrt_bcast_strides(const hlrt_tensor *in, uint32_t out_nd, const uint64_t *out_dims,
			uint64_t *stride);
/* in has out's shape exactly (no broadcasting). */
bool hlrt_bcast_is_plain(const hlrt_tensor *in, const hlrt_tensor *out);

/* ---- the op registry (registry.c) ---------------------------------------- */

struct lower_ctx;
struct rwork;
struct hlrt_recipe;
struct ad_ctx;
struct cnode;

struct op_def {
	const char *guid;
	const char *op_class;		/* the placement log's "(MatMul)" */
	enum hlrt_engine engine;
	const char *signature;
	const char *summary;
	uint8_t n_in_min, n_in_max, n_out;
	uint8_t elementwise;		/* element by element (shape-preserving unless broadcast) */
	uint8_t in_place_ok;		/* outputs may be inputs (optimizers) */
	uint8_t broadcast;		/* inputs broadcast to the output (NumPy rules) */
	uint8_t device_i64;		/* its lowering handles INT64 operands itself */
	uint32_t params_size;		/* expected size, 0 = none */
	/* Check the inputs and params, write output shapes/dtypes (may lower n->n_out). */
	hlrt_status (*infer)(struct hlrt_node *n, struct hlrt_tensor_desc *outs);
	/* Emit the node's engine work (lower.c), NULL for logical ops. */
	hlrt_status (*lower)(struct lower_ctx *lc, const struct cnode *cn);
	/* Build the node's backward (autodiff.c); NULL: no gradient rule. */
	hlrt_status (*grad)(struct ad_ctx *ac, const struct hlrt_node *n);
	/* Run on the host (cpu_ops.c): for CPU placement; may be NULL. */
	hlrt_status (*cpu)(const struct rwork *w, const struct hlrt_recipe *r,
			   void *const *in, void *const *out);
	int dtype;			/* the dtype the GUID names, -1 none */
	int from;			/* casts: the input dtype, else -1 */
	/* A composite: builds primitive nodes instead of one node (conv2d). */
	hlrt_status (*expand)(hlrt_graph *g, hlrt_tensor *const *in, uint32_t n_in,
			      const void *params, const char *name, hlrt_tensor *out,
			      struct hlrt_node **last);
};

const struct op_def *hlrt_op_find(const char *guid);
/* Custom kernels (custom.c): found by GUID, listed, and their code by kernel name. */
const struct op_def *hlrt_custom_find(const char *guid);
uint32_t hlrt_custom_count(void);
const struct op_def *hlrt_custom_at(uint32_t i);
bool hlrt_custom_kernel(const char *name, const uint8_t **code, uint32_t *size);
/* What lowering needs of a custom kernel node (false: not one). */
struct hlrt_custom_launch {
	const char *kernel;		/* its TPC kernel's name */
	uint32_t n_in, n_out, n_scalars;
	bool rows;			/* one member per row, else 4096-element chunks */
	const float *defaults;		/* scalars when the node gives none */
};
bool hlrt_custom_launch_of(const struct hlrt_node *n, struct hlrt_custom_launch *out);
/* docs/ops.md as text (opsdoc.c); malloc'ed. */
char *hlrt_ops_markdown(void);
uint32_t hlrt_op_count(void);
const struct op_def *hlrt_op_at(uint32_t i);

/* ---- autodiff (autodiff.c) ----------------------------------------------- */

struct ad_ctx {
	hlrt_graph *g;
	uint32_t n_req;		/* tensors that existed when autodiff started */
	hlrt_tensor *seed;	/* d loss / d loss = 1 */
};

/* Gradient of t, creating it on first use; accumulates (add) when two nodes contribute. */
hlrt_status hlrt_ad_accumulate(struct ad_ctx *ac, hlrt_tensor *t, hlrt_tensor *g);
/* Create a backward node (helper for the grad rules). */
hlrt_status hlrt_ad_node(struct ad_ctx *ac, const char *guid, hlrt_tensor *const *in, uint32_t n_in,
		    const void *params, size_t psize, const char *name_suffix,
		    const struct hlrt_node *fwd, hlrt_tensor **out);

#endif /* HLRT_GRAPH_INTERNAL_H */
