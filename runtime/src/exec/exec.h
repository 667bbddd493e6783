/* SPDX-License-Identifier: MIT */
/*
 * Execution: a recipe loaded on a device (its command buffers, patch
 * table and HBM image), launched, and its CPU nodes run on the host.
 */
#ifndef HLRT_EXEC_H
#define HLRT_EXEC_H

#include "device/device.h"
#include "recipe/recipe.h"

/* ---- loaded recipes and launch (emit.c, launch.c) ------------------------ */

struct patch_point {
	uint32_t cb;		/* index of the CB image */
	uint32_t dword;		/* dword in it */
	uint32_t rt;		/* rtensor index, or RADDR_CODE for the code section */
	uint32_t hi;		/* 1: the upper half of the address */
	uint64_t addend;
};

struct cb_image {
	uint32_t queue;
	uint32_t *dw;
	uint32_t n;		/* dwords */
	uint64_t dev_offset;	/* offset in the loaded image in HBM */
};

/* The queue slots of a segment's command buffers: MME, TPC 0..7, DMA. */
#define HLRT_SEG_QUEUES		(GAUDISIM_NUM_TPC + 2)

/*
 * hlrt_launch_repeat's command buffers for K iterations starting on one
 * SOB set: per queue, the iterations' CBs back to back, each patched
 * for its iteration's addresses; the first j of them serve j <= K.
 */
struct rep_image {
	uint32_t k;			/* iterations it holds, 0: none */
	uint64_t ws;			/* the workspace it was patched for */
	uint64_t *bound;		/* k rows of n_persistent addresses */
	uint8_t *host;			/* pinned staging */
	uint64_t addr, cap;		/* in HBM */
	uint64_t off[HLRT_SEG_QUEUES];	/* each queue's CB in it */
	uint32_t *end;			/* (k + 1) rows per queue: dwords before iteration i */
};

/* One segment: device work between CPU nodes. */
struct seg_image {
	uint32_t first_work, end_work;
	bool cpu;			/* a CPU node: works [first, end) run on the host */
	uint32_t cb_first[2];		/* per SOB set: its CBs, one slot per queue */
	uint32_t n_cbs;
	/* the external job, per SOB set and stream (built on first use) */
	uint32_t *ext_body[2][HLRT_MAX_STREAMS];
	uint32_t ext_n[2][HLRT_MAX_STREAMS];
	uint32_t sob_first[2], n_sobs;
	bool sob_taken[2];
};

struct loaded_recipe {
	hlrt_device *dev;
	struct hlrt_recipe *recipe;
	struct loaded_recipe *next;		/* the device's list */
	struct seg_image *segs;
	uint32_t n_segs;
	struct cb_image *cbs;
	uint32_t n_cbs;
	uint32_t cb_bytes;
	struct patch_point *patches;
	uint32_t n_patches, cap_patches;
	uint64_t image_addr, image_size;	/* kernels + constants + CBs in HBM */
	uint64_t code_offset, const_offset;
	uint64_t *kernel_off;
	uint64_t *bound;			/* last bound addresses, per persistent tensor */
	uint64_t *bound_next;			/* this launch's, before they are kept */
	uint64_t bound_ws;
	/*
	 * The last launch's bindings by name and the persistent tensor each
	 * named (~0u: none): a launch with the same names in the same order
	 * finds its tensors with one comparison per binding.
	 */
	struct bind_memo {
		char name[HLRT_NAME_MAX];
		uint32_t tensor;
	} *bind_memo;
	uint32_t n_bind_memo, cap_bind_memo;
	bool uploaded;
	uint32_t parity;			/* SOB set of the next launch */
	uint8_t *image;				/* pinned host copy of the image */
	hlrt_stream *last_stream;		/* the stream of the last launch */
	/* profiling: device timestamps per (work, queue) and per segment */
	bool profiled;
	uint64_t ts_addr, ts_size;
	uint64_t *ts_host;			/* pinned: where a launch copies them */
	struct rep_image rep[2];		/* per first SOB set (repeat.c) */
	uint32_t *rep_ext;			/* the external job of a repeat */
	uint32_t cap_rep_ext;
};

/* Timestamp slots: (work, queue slot) start/end pairs, then 4 per segment. */
#define HLRT_TS_QUEUES		10
static inline uint64_t hlrt_ts_work(uint32_t work, uint32_t slot)
{
	return ((uint64_t)work * HLRT_TS_QUEUES + slot) * 16;
}

static inline uint64_t hlrt_ts_seg(uint32_t n_works, uint32_t seg)
{
	return hlrt_ts_work(n_works, 0) + (uint64_t)seg * 32;
}

hlrt_status hlrt_emit(hlrt_device *dev, struct hlrt_recipe *r, struct loaded_recipe *lr);
/*
 * The TPCs a TPC work runs on (emit.c): at least this many members each.
 * On the seed model's step 32, 64 and 128 measured alike, some 10% faster
 * than all 8 TPCs; the smallest keeps mid-sized nodes on all 8.
 */
#define HLRT_TPC_MIN_MEMBERS	32
/*
 * ... and no more parts than keep each within this many bundles: the
 * device runs a launch that small whole on the thread that decodes it
 * (docs/device.md, "Threads and locks"), and hands a bigger one to a
 * worker part-way, so a small work split finer would run its parts one
 * after another anyway, each paying its own launch.
 */
#define HLRT_TPC_PART_WORK	4096
struct gaudisim_tpc_part;
uint32_t hlrt_work_tpc_split(const struct hlrt_recipe *r, const struct rwork *w,
			     struct gaudisim_tpc_part *parts);
hlrt_status hlrt_emit_ext(hlrt_device *dev, struct loaded_recipe *lr, struct seg_image *sg,
			  uint32_t parity, uint32_t stream, uint32_t ext_queue);
void hlrt_recipes_unload(hlrt_device *dev);
hlrt_status hlrt_recipe_load_on(hlrt_device *dev, struct hlrt_recipe *r,
				struct loaded_recipe **out);
void hlrt_loaded_free(struct loaded_recipe *lr);
/* The steps of a launch (launch.c), shared with hlrt_launch_repeat (repeat.c). */
hlrt_status hlrt_launch_loaded(hlrt_device *dev, struct hlrt_recipe *r,
			       struct loaded_recipe **out);
hlrt_status hlrt_launch_bind(struct loaded_recipe *lr, const struct hlrt_tensor_binding *b,
			     uint32_t n, uint64_t *bound);
hlrt_status hlrt_launch_upload(const struct hlrt_recipe *r, struct loaded_recipe *lr,
			       const uint64_t *bound, uint64_t workspace);
hlrt_status hlrt_launch_copies(hlrt_device *dev, const struct hlrt_host_copy *c, uint32_t n,
			       struct hlrt_be_copy *out);
uint32_t hlrt_launch_find_tensor(const struct hlrt_recipe *r, const char *name);
void hlrt_repeat_free(struct loaded_recipe *lr);
/* Resolve a recipe address against bindings (launch.c). */
uint64_t hlrt_resolve(const struct hlrt_recipe *r, const struct loaded_recipe *lr,
		      const uint64_t *bound, uint64_t ws, struct raddr a);

/* ---- CPU fallback (cpu_ops.c) -------------------------------------------- */

hlrt_status hlrt_cpu_run(const struct hlrt_recipe *r, const struct rwork *w,
			 void *const *in, void *const *out);

#endif /* HLRT_EXEC_H */
