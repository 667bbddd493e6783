/* SPDX-License-Identifier: MIT */
/*
 * The recipe: the device-independent program compile/ writes and exec/
 * runs, the only contract between the two. Serialisable; names tensors
 * by index and kernels by name, holds no device address.
 */
#ifndef HLRT_RECIPE_H
#define HLRT_RECIPE_H

#include "hlrt_common.h"

struct loaded_recipe;

/* ---- the device-independent recipe (recipe.c) ---------------------------- */

enum rt_kind {
	RT_PERSISTENT = 0,	/* bound at launch */
	RT_WORKSPACE,		/* workspace base + offset */
	RT_CONST,		/* the recipe's constant section + offset */
};

struct rtensor {
	char name[HLRT_NAME_MAX];
	uint32_t dtype, role, ndims, kind;
	uint64_t dims[HLRT_MAX_DIMS];
	uint64_t bytes;
	uint64_t offset;	/* WORKSPACE / CONST: offset; PERSISTENT: binding index */
	int32_t live_first, live_last;	/* schedule positions using it */
};

/* An address inside a recipe: a tensor (plus bytes) or a kernel's code. */
struct raddr {
	uint32_t tensor;	/* rtensor index, or RADDR_CODE | kernel index */
	uint32_t pad;
	uint64_t offset;
};
#define RADDR_CODE	0x80000000u
#define RADDR_PROF	0x40000000u	/* the loaded recipe's timestamp buffer */

struct rtpc_tensor {
	struct raddr base;
	uint32_t dtype, pad_value;
	uint32_t size[5], stride[5];	/* TPC order: dim 0 innermost */
};

/* One engine job; a TPC job runs on every TPC it is split over. */
struct rwork {
	uint32_t engine;		/* enum hlrt_engine */
	uint32_t node;			/* index into recipe->nodes */
	/* TPC */
	uint32_t kernel;		/* index into recipe->kernels */
	uint32_t ispace[5];
	uint32_t n_tensors;
	struct rtpc_tensor t[8];
	uint32_t n_args;
	uint32_t args[16];
	/* MME */
	struct raddr a, b, c, d;
	uint32_t m, n, k, batch, lda, ldb, ldc, ldd;
	uint64_t sa, sb, sc, sd;
	uint32_t mme_dtype, ctrl, alpha, beta;
	/* DMA */
	struct raddr src, dst;
	uint64_t size;
	uint32_t memset, memset_value;
	/* CPU: the op and its operands (rows x cols elements of in[0]) */
	char guid[HLRT_GUID_MAX];
	uint8_t params[HLRT_MAX_PARAMS];
	uint32_t params_size;
	uint32_t n_cin, n_cout;
	struct raddr cin[4], cout[2];
	uint64_t cin_bytes[4], cout_bytes[2];
	uint64_t rows, cols;
	/* dependencies: earlier works this one must wait for */
	uint32_t n_deps;
	uint32_t deps[32];
	/* compile time only: the memory the work touches */
	uint32_t n_acc;
	struct raccess {
		uint32_t rt;
		uint32_t write;
		uint64_t offset, size;
	} acc[12];
};

struct rnode_info {
	char name[HLRT_NAME_MAX];
	char op_class[32];
	char guid[HLRT_GUID_MAX];
	uint32_t engine;
};

struct rkernel {
	char name[HLRT_NAME_MAX];
	uint32_t size;
	uint8_t *code;
};

struct hlrt_recipe {
	uint64_t hash;
	struct rtensor *tensors;
	uint32_t n_tensors;
	uint32_t n_persistent;		/* rtensors [0, n_persistent) are persistent */
	struct rwork *works;
	uint32_t n_works;
	struct rnode_info *nodes;
	uint32_t n_nodes;
	struct rkernel *kernels;
	uint32_t n_kernels;
	uint8_t *consts;
	uint64_t const_size;
	uint64_t workspace_size;
	uint32_t num_tpc;
	uint32_t serial_launch;		/* one segment per node, each waited for (HLRT_EAGER_ON) */
	struct hlrt_recipe_stats stats;
	uint32_t refs;			/* the cache holds one */
	/* per-device state, owned by exec/: set with the function that frees it */
	struct loaded_recipe *loaded;
	void (*unload)(struct loaded_recipe *lr);
};

hlrt_status hlrt_recipe_alloc(struct hlrt_recipe **r);
void hlrt_recipe_free(struct hlrt_recipe *r);
/* Recipe cache (recipe.c). */
struct hlrt_recipe *hlrt_cache_get(uint64_t hash);
void hlrt_cache_put(struct hlrt_recipe *r);

#endif /* HLRT_RECIPE_H */
