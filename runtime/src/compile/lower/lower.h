/* SPDX-License-Identifier: MIT */
/*
 * The lowering context: the only interface per-op lowering rules (lower.c,
 * conv.c, lamb.c, custom.c here) use to write the recipe being compiled.
 */
#ifndef HLRT_LOWER_H
#define HLRT_LOWER_H

#include "compile/compile_state.h"

/* Lowering context: appends works to the recipe. */
struct lower_ctx {
	struct compile_state *cs;
	const struct cnode *cn;
};

/* Append a work for the node being lowered; *w is zeroed, engine set. */
hlrt_status hlrt_lower_new_work(struct lower_ctx *lc, enum hlrt_engine engine, struct rwork **w);
/* Append a TPC work running kernel over a one-member index space. */
hlrt_status hlrt_lower_tpc_work(struct lower_ctx *lc, const char *kernel, struct rwork **w);
/* Descriptor slot of a TPC work: t seen with nd sizes and strides (elements). */
void hlrt_lower_tdesc(struct lower_ctx *lc, struct rwork *w, uint32_t slot, const hlrt_tensor *t,
		 const uint64_t *size, const uint64_t *stride, uint32_t nd, uint32_t pad,
		 bool write);
/* Record that work w reads or writes size bytes at a. */
void hlrt_lower_access(struct rwork *w, struct raddr a, uint64_t size, bool write);
/* The recipe address of a graph tensor (plus bytes). */
struct raddr hlrt_lower_addr(struct lower_ctx *lc, const struct hlrt_tensor *t, uint64_t offset);

/*
 * sce_fwd node f, the sce_bwd b of the same logits and labels and an
 * argmax a of the logits (or NULL) as one TPC work (lower.c).
 */
hlrt_status hlrt_lower_sce_fwd_bwd(struct lower_ctx *lc, const struct hlrt_node *f,
				   const struct hlrt_node *b, const struct hlrt_node *a);

/* Kernel index inside the recipe (adds it on first use). */
hlrt_status hlrt_lower_kernel(struct hlrt_recipe *r, const char *name, uint32_t *idx);

#endif /* HLRT_LOWER_H */
