/* SPDX-License-Identifier: MIT */
/*
 * libhlrt internals shared by the runtime's sources: the objects behind
 * the public handles, the device-independent recipe, and the interfaces
 * between the compiler passes. Not installed.
 */
#ifndef HLRT_INTERNAL_H
#define HLRT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hlrt.h"
#include "device/hlrt_backend.h"
#include "hw/gaudisim_hw_sync.h"

#define HLRT_ALIGN		128u	/* memory plan and malloc alignment */
#define HLRT_MAX_IN		8
#define HLRT_MAX_OUT		4
#define HLRT_MAX_PARAMS		64	/* bytes of a node's parameter struct */
#define HLRT_MAX_STREAMS	4

/* ---- errors (status.c) --------------------------------------------------- */

/* Record a message for hlrt_last_error() and return status. */
hlrt_status hlrt_fail(hlrt_status status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Map a negative errno from the backend to a status, with a message. */
hlrt_status hlrt_fail_errno(int neg_errno, const char *what);

static inline uint64_t hlrt_align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

/* ---- the environment (config.c: every variable is read there) ----------- */

bool hlrt_config_bf16(void);			/* HLRT_BF16, default off */
bool hlrt_config_lazy(void);			/* HLRT_LAZY_MODE, default on */
bool hlrt_config_log_placement(void);		/* HLRT_LOG_DEVICE_PLACEMENT */
const char *hlrt_config_kernel_path(void);	/* HLRT_KERNEL_PATH, or NULL */
const char *hlrt_config_profile(void);		/* HLRT_PROFILE, or NULL */
const char *hlrt_config_visible_devices(void);	/* HABANA_VISIBLE_DEVICES, or NULL */
const char *hlrt_config_visible_modules(void);	/* HABANA_VISIBLE_MODULES, or NULL */
const char *hlrt_config_comm_dir(void);		/* HLRT_COMM_DIR, or NULL */
uint64_t hlrt_config_comm_timeout_ms(void);	/* HLRT_COMM_TIMEOUT_MS, default 60000 */
uint32_t hlrt_config_box_id(void);		/* HLRT_BOX_ID, default 0 */

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

/* ---- the op registry (registry.c) ---------------------------------------- */

enum hlrt_engine {
	ENG_NONE = 0,		/* logical: a view, no work */
	ENG_MME,
	ENG_TPC,
	ENG_DMA,
	ENG_CPU,
};

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
	uint8_t elementwise;		/* fusable, shape-preserving */
	uint8_t in_place_ok;		/* outputs may be inputs (optimizers) */
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
/* "MME", "TPC", "DMA", "CPU" or "view". */
const char *hlrt_engine_name(enum hlrt_engine e);
/* Custom kernels (custom.c): found by GUID, listed, and their code by kernel name. */
const struct op_def *hlrt_custom_find(const char *guid);
uint32_t hlrt_custom_count(void);
const struct op_def *hlrt_custom_at(uint32_t i);
bool hlrt_custom_kernel(const char *name, const uint8_t **code, uint32_t *size);
/* docs/ops.md as text (opsdoc.c); malloc'ed. */
char *hlrt_ops_markdown(void);
uint32_t hlrt_op_count(void);
const struct op_def *hlrt_op_at(uint32_t i);

/* ---- kernels (kernels.c, generated) -------------------------------------- */

struct hlrt_kernel {
	const char *name;		/* file name without .tpcs */
	const uint8_t *code;
	uint32_t size;			/* bytes, multiple of 32 */
};

const struct hlrt_kernel *hlrt_kernel_find(const char *name);

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
	/* per-device state (emit.c / launch.c) */
	struct loaded_recipe *loaded;
};

hlrt_status hlrt_recipe_alloc(struct hlrt_recipe **r);
void hlrt_recipe_free(struct hlrt_recipe *r);
/* Kernel index inside the recipe (adds it on first use). */
hlrt_status hlrt_recipe_kernel(struct hlrt_recipe *r, const char *name, uint32_t *idx);
/* Recipe cache (recipe.c). */
struct hlrt_recipe *hlrt_cache_get(uint64_t hash);
void hlrt_cache_put(struct hlrt_recipe *r);

/* ---- compiler (compile.c, passes.c, memplan.c, lower.c) ------------------ */

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
hlrt_status hlrt_pass_fuse_elementwise(struct compile_state *cs);
/* Rewrite the graph's FP32 GEMMs to BF16 inputs (autocast.c); the compile's own copy. */
hlrt_status hlrt_bf16_autocast(hlrt_graph *g);
hlrt_status hlrt_pass_placement(struct compile_state *cs);
hlrt_status hlrt_pass_memory_plan(struct compile_state *cs);
hlrt_status hlrt_pass_lower(struct compile_state *cs);
hlrt_status hlrt_pass_dependencies(struct compile_state *cs);

/* Storage owner of a tensor and the byte offset of the view in it. */
uint32_t hlrt_ct_root(const struct compile_state *cs, uint32_t t, uint64_t *offset);

/* Lowering context: appends works to the recipe. */
struct lower_ctx {
	struct compile_state *cs;
	const struct cnode *cn;
};

/* Append a work for the node being lowered; *w is zeroed, engine set. */
hlrt_status hlrt_lower_new_work(struct lower_ctx *lc, enum hlrt_engine engine, struct rwork **w);
/* Descriptor slot of a TPC work: t seen with nd sizes and strides (elements). */
void hlrt_lower_tdesc(struct lower_ctx *lc, struct rwork *w, uint32_t slot, const hlrt_tensor *t,
		 const uint64_t *size, const uint64_t *stride, uint32_t nd, uint32_t pad,
		 bool write);
/* Record that work w reads or writes size bytes at a. */
void hlrt_lower_access(struct rwork *w, struct raddr a, uint64_t size, bool write);
/* The recipe address of a graph tensor (plus bytes). */
struct raddr hlrt_lower_addr(struct lower_ctx *lc, const struct hlrt_tensor *t, uint64_t offset);

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

/* ---- devices, streams (device.c, stream.c) ------------------------------- */

struct host_alloc {
	void *ptr;
	uint64_t size;
	uint64_t va;
	struct host_alloc *next;
};

struct dev_alloc {
	uint64_t addr, size, handle;
	struct dev_alloc *next;
};

/* A queue's monitors: configured once to add 1 to the queue's fence 0. */
#define HLRT_MONS_PER_QUEUE	12
/* Monitor pools: MME, TPC 0..7, DMA 2, and the 4 external streams. */
#define HLRT_QUEUE_SLOTS	14
/* Groups of 8 sync objects for events: at most 8 * this many events. */
#define HLRT_EVENT_GROUPS	16
/* Device-side waits a stream's next submission takes (one monitor each). */
#define HLRT_STREAM_WAITS	8

/* A stream waits until the sync object reaches value (monitor, >=). */
struct stream_wait {
	uint32_t sob, value;
};

struct hlrt_device {
	struct hlrt_backend *be;
	uint32_t index, module_id;
	struct hlrt_device_info info;
	struct dev_alloc *allocs;
	struct host_alloc *host_allocs;
	struct hlrt_stream *streams[HLRT_MAX_STREAMS];
	struct hlrt_stream *sync_stream;	/* for the synchronous helpers */
	/* sync-manager resources */
	uint32_t next_sob, sob_end;		/* the user range */
	bool sob_group_used[GAUDISIM_SYNC_NUM_SOBS / GAUDISIM_SYNC_SOBS_PER_GROUP];
	uint32_t mon_pool[HLRT_QUEUE_SLOTS][HLRT_MONS_PER_QUEUE];
	uint32_t info_first_mon, info_num_mons;
	/* the stream whose launch ran last: launches of two streams are ordered */
	struct hlrt_stream *last_launch_stream;
	uint64_t last_launch_seq;
	void *staging;				/* pinned bounce buffer for unpinned copies */
	uint64_t staging_size;
	struct loaded_recipe *loaded;		/* recipes loaded on this device */
	struct hlrt_profiler *prof;
	/* events' sync objects: groups of 8 taken as needed, a bit per event */
	uint32_t ev_group_first[HLRT_EVENT_GROUPS];
	uint8_t ev_group_used[HLRT_EVENT_GROUPS];
	uint32_t n_ev_groups;
};

struct hlrt_stream {
	hlrt_device *dev;
	uint32_t index;			/* 0..3: the external queue's stream */
	uint32_t ext_queue;
	uint64_t last_seq;		/* of the last submission, 0 if none */
	bool has_work;
	struct stream_wait waits[HLRT_STREAM_WAITS];	/* the next submission's, on the device */
	uint32_t n_waits;
	struct loaded_recipe *harvest[8];	/* profiled launches not yet read */
	uint32_t n_harvest;
	void *cb;			/* the external CB's host image */
	uint32_t cb_cap;
};

struct hlrt_event {
	hlrt_device *dev;
	hlrt_stream *stream;
	uint64_t seq;			/* 0: never recorded */
	uint32_t sob;			/* +1 on the device at every record */
	uint32_t records;		/* the value the sync object reaches at the last */
	uint64_t *ts;			/* pinned slot the device writes its clock to */
	uint64_t ts_va;
	bool done;
};

/* Queue slot numbers for the monitor pools: 0 = MME, 1..8 = TPC, 9 = DMA, 10.. = ext. */
uint32_t hlrt_queue_slot(uint32_t queue);
/* The monitor pool of a queue (payload: +1 to the queue's fence 0). */
const uint32_t *hlrt_device_queue_monitors(hlrt_device *dev, uint32_t queue);
hlrt_status hlrt_stream_create_internal(hlrt_device *dev, uint32_t index, hlrt_stream **out);
void hlrt_memory_release_all(hlrt_device *dev);
/* Take n consecutive sync objects aligned to a group of 8; give them back. */
hlrt_status hlrt_device_take_sobs(hlrt_device *dev, uint32_t n, uint32_t *first);
void hlrt_device_put_sobs(hlrt_device *dev, uint32_t first, uint32_t n);

/* Host copies for a submission: in pinned memory, or staged. */
hlrt_status hlrt_host_va(hlrt_device *dev, const void *ptr, uint64_t size, uint64_t *va);

/*
 * Submit one CS on a stream: internal jobs plus the stream's external job
 * (ext: packets, the host copies around them). Orders after the previous
 * submission of the stream.
 */
hlrt_status hlrt_stream_submit(hlrt_stream *s, const struct hlrt_be_job *jobs, uint32_t n_jobs,
			       const struct hlrt_be_ext *ext);

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
	uint64_t bound_ws;
	bool uploaded;
	uint32_t parity;			/* SOB set of the next launch */
	uint8_t *image;				/* pinned host copy of the image */
	hlrt_stream *last_stream;		/* the stream of the last launch */
	/* profiling: device timestamps per (work, queue) and per segment */
	bool profiled;
	uint64_t ts_addr, ts_size;
	uint64_t *ts_host;			/* pinned: where a launch copies them */
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
struct gaudisim_tpc_part;
uint32_t hlrt_work_tpc_split(const struct hlrt_recipe *r, const struct rwork *w,
			     struct gaudisim_tpc_part *parts);
hlrt_status hlrt_emit_ext(hlrt_device *dev, struct loaded_recipe *lr, struct seg_image *sg,
			  uint32_t parity, uint32_t stream, uint32_t ext_queue);
void hlrt_recipes_unload(hlrt_device *dev);
hlrt_status hlrt_recipe_load_on(hlrt_device *dev, struct hlrt_recipe *r,
				struct loaded_recipe **out);
void hlrt_loaded_free(struct loaded_recipe *lr);
/* Resolve a recipe address against bindings (launch.c). */
uint64_t hlrt_resolve(const struct hlrt_recipe *r, const struct loaded_recipe *lr,
		      const uint64_t *bound, uint64_t ws, struct raddr a);

/* ---- CPU fallback (cpu_ops.c) -------------------------------------------- */

hlrt_status hlrt_cpu_run(const struct hlrt_recipe *r, const struct rwork *w,
			 void *const *in, void *const *out);

/* ---- placement log ------------------------------------------------------- */

bool hlrt_log_placement_enabled(void);

/* ---- profiler (profiler.c) ----------------------------------------------- */

struct hlrt_profiler;
void hlrt_profiler_host_event(hlrt_device *dev, const char *name, uint64_t t0_ns,
			      uint64_t t1_ns);
/* Turn a completed profiled launch's timestamps into trace events. */
void hlrt_profiler_harvest(hlrt_device *dev, const struct loaded_recipe *lr);
/* Start the profile HLRT_PROFILE names, if any (at device acquire). */
void hlrt_profiler_from_env(hlrt_device *dev);
uint64_t hlrt_now_ns(void);

#endif /* HLRT_INTERNAL_H */
