/* SPDX-License-Identifier: MIT */
/*
 * libhlrt: the gaudisim runtime - devices, memory, streams, events, graphs
 * of tensors and nodes, compilation into recipes, launch.
 *
 * The concepts are the Synapse API's, with this project's names:
 *
 *   hlrt_graph_create -> hlrt_tensor_create -> hlrt_node_create(guid, params)
 *   -> [hlrt_graph_train: autodiff + optimizer nodes]
 *   -> hlrt_graph_compile -> recipe
 *   hlrt_device_acquire -> hlrt_device_malloc / hlrt_stream_create
 *   -> hlrt_launch(stream, recipe, bindings, workspace) -> hlrt_stream_synchronize
 *
 * Conventions:
 *   - Every function returns an hlrt_status; HLRT_SUCCESS is 0. Output
 *     parameters are written only on success. hlrt_last_error() gives a
 *     message for the calling thread's last failure.
 *   - Handles are opaque. There is no hidden "current device": calls that
 *     touch a device take the device or a stream of it.
 *   - Shapes are row-major, outermost dimension first, like NumPy: a batch
 *     of 128 MNIST images is {128, 28, 28}; dims[ndims - 1] is contiguous.
 *   - Device memory is named by 64-bit device addresses.
 *   - Scalars that change between steps (learning rate, gather offset)
 *     travel as 1-element tensors, so changing them needs no recompile.
 *
 * What is implemented: see "STATUS" at the end of this file. Calls that are
 * declared but not implemented yet return HLRT_UNSUPPORTED with a message.
 */
#ifndef HLRT_H
#define HLRT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HLRT_VERSION_MAJOR	0
#define HLRT_VERSION_MINOR	1

/* ==== Status ============================================================== */

typedef enum hlrt_status {
	HLRT_SUCCESS = 0,
	HLRT_INVALID_ARGUMENT,		/* bad handle, shape, dtype, parameter */
	HLRT_NO_DEVICE,			/* no (visible) device with that index */
	HLRT_DEVICE_BUSY,		/* another process holds the device */
	HLRT_OUT_OF_DEVICE_MEMORY,	/* HBM exhausted */
	HLRT_OUT_OF_HOST_MEMORY,
	HLRT_UNSUPPORTED,		/* op/dtype/feature not available */
	HLRT_NOT_READY,			/* hlrt_event_query: work still pending */
	HLRT_TIMEOUT,			/* device work did not finish in time */
	HLRT_DEVICE_ERROR,		/* the device aborted the work */
	HLRT_NOT_FOUND,			/* name not found (binding, GUID, file) */
	HLRT_IO_ERROR,			/* file or ioctl failure */
	HLRT_BAD_FORMAT,		/* malformed recipe file / kernel descriptor */
	HLRT_INTERNAL,			/* a runtime bug: please report */
} hlrt_status;

/* Name of a status ("HLRT_INVALID_ARGUMENT"). */
const char *hlrt_status_name(hlrt_status status);
/* Message describing the calling thread's last failure ("" if none). */
const char *hlrt_last_error(void);
/* "0.1" */
const char *hlrt_version(void);

/* ==== Data types ========================================================== */

/* Gaudi's codes (include/hw/gaudisim_hw_dtypes.h) plus INT64, a host-only type. */
typedef enum hlrt_dtype {
	HLRT_FP32 = 0,
	HLRT_BF16 = 1,
	HLRT_INT32 = 2,
	HLRT_UINT32 = 3,
	HLRT_INT8 = 4,
	HLRT_UINT8 = 5,
	HLRT_INT16 = 7,
	HLRT_UINT16 = 8,
	HLRT_INT64 = 16,	/* no device arithmetic: ops on it run on the CPU (argmax_i64
				   writes it on the TPC) */
} hlrt_dtype;

/* Bytes per element, 0 for an unknown dtype. */
size_t hlrt_dtype_size(hlrt_dtype dtype);
/* "f32", "bf16", "i32", "u32", "i8", "u8", "i16", "u16", "i64"; NULL if unknown. */
const char *hlrt_dtype_suffix(hlrt_dtype dtype);

/* ==== Devices ============================================================= */

typedef struct hlrt_device hlrt_device;

/*
 * Visible devices: HABANA_VISIBLE_DEVICES filters by device index and
 * HABANA_VISIBLE_MODULES by module ID ("all", "0", "0,2", "1-3", "0,2-3");
 * the visible devices are renumbered 0..n-1 in ascending order.
 */
hlrt_status hlrt_device_count(uint32_t *count);

/* Acquire visible device <index> for this process (HLRT_DEVICE_BUSY if taken). */
hlrt_status hlrt_device_acquire(uint32_t index, hlrt_device **device);
/* Acquire the visible device with this module ID. */
hlrt_status hlrt_device_acquire_by_module(uint32_t module_id, hlrt_device **device);
/* Wait for all work, free everything the device still holds, release it. */
hlrt_status hlrt_device_release(hlrt_device *device);

struct hlrt_device_info {
	uint32_t index;			/* visible index */
	uint32_t module_id;
	char name[32];			/* card name */
	char bus_id[32];		/* "DDDD:BB:DD.F" */
	uint64_t hbm_base;		/* first user HBM address */
	uint64_t hbm_total;		/* user HBM bytes */
	uint64_t hbm_free;		/* user HBM bytes nobody has allocated */
	uint64_t sram_base;
	uint64_t sram_size;
	uint32_t num_tpc;
	uint32_t tpc_enabled_mask;
	uint32_t num_hbm_dma;
	uint32_t clock_mhz;		/* current core clock */
};

hlrt_status hlrt_device_get_info(hlrt_device *device, struct hlrt_device_info *info);
/* Wait until every stream of the device is idle. */
hlrt_status hlrt_device_synchronize(hlrt_device *device);

/* ==== Memory ============================================================== */

/*
 * Device memory (HBM) through the driver's MEMORY ioctl. Addresses are
 * aligned to at least 128 bytes. Freeing an address that is not the start
 * of an allocation is HLRT_INVALID_ARGUMENT.
 */
hlrt_status hlrt_device_malloc(hlrt_device *device, uint64_t size, uint64_t *device_addr);
hlrt_status hlrt_device_free(hlrt_device *device, uint64_t device_addr);

/*
 * Pinned host memory mapped into the device MMU: copies to and from it
 * are asynchronous (no staging). Other host memory works too, but the
 * copy then completes before the call returns.
 */
hlrt_status hlrt_host_malloc(hlrt_device *device, size_t size, void **ptr);
hlrt_status hlrt_host_free(hlrt_device *device, void *ptr);

/* ==== Streams and events ================================================== */

typedef struct hlrt_stream hlrt_stream;
typedef struct hlrt_event hlrt_event;

/*
 * A stream runs its work in order: copies, memsets, launches. Work on
 * different streams may overlap. A device has at most 3 streams (the
 * runtime keeps a fourth for its own copies).
 */
hlrt_status hlrt_stream_create(hlrt_device *device, hlrt_stream **stream);
hlrt_status hlrt_stream_destroy(hlrt_stream *stream);
/* Block until everything queued on the stream has finished. */
hlrt_status hlrt_stream_synchronize(hlrt_stream *stream);
/*
 * Work queued on the stream after this call waits for the event's last
 * record, on the device: the stream's queue fences on a sync-manager
 * monitor of the event's sync object; the host does not wait.
 */
hlrt_status hlrt_stream_wait_event(hlrt_stream *stream, hlrt_event *event);

hlrt_status hlrt_memcpy_h2d_async(hlrt_stream *stream, uint64_t dst, const void *src,
				  uint64_t size);
hlrt_status hlrt_memcpy_d2h_async(hlrt_stream *stream, void *dst, uint64_t src,
				  uint64_t size);
hlrt_status hlrt_memcpy_d2d_async(hlrt_stream *stream, uint64_t dst, uint64_t src,
				  uint64_t size);
/* Fill size bytes at dst with the byte value. */
hlrt_status hlrt_memset_async(hlrt_stream *stream, uint64_t dst, uint8_t value,
			      uint64_t size);
/* Synchronous conveniences (a stream of their own, waited for). */
hlrt_status hlrt_memcpy_h2d(hlrt_device *device, uint64_t dst, const void *src,
			    uint64_t size);
hlrt_status hlrt_memcpy_d2h(hlrt_device *device, void *dst, uint64_t src, uint64_t size);

/*
 * Events capture the work queued on a stream so far (CUDA semantics;
 * re-recording overwrites). The time of an event is the device's
 * timestamp counter when that work finished. Each event holds a sync
 * object (at most 128 events at a time); destroying one waits for the
 * device's streams.
 */
hlrt_status hlrt_event_create(hlrt_device *device, hlrt_event **event);
hlrt_status hlrt_event_destroy(hlrt_event *event);
hlrt_status hlrt_event_record(hlrt_event *event, hlrt_stream *stream);
/* HLRT_SUCCESS when done, HLRT_NOT_READY while pending. */
hlrt_status hlrt_event_query(hlrt_event *event);
hlrt_status hlrt_event_synchronize(hlrt_event *event);
/* Device time between two recorded, completed events, in nanoseconds. */
hlrt_status hlrt_event_elapsed_ns(uint64_t *ns, hlrt_event *start, hlrt_event *end);

/* ==== Graphs and tensors ================================================== */

typedef struct hlrt_graph hlrt_graph;
typedef struct hlrt_tensor hlrt_tensor;
typedef struct hlrt_node hlrt_node;

#define HLRT_MAX_DIMS		5
#define HLRT_NAME_MAX		64	/* tensor and node names, NUL included */
#define HLRT_GUID_MAX		32	/* GUIDs, NUL included */

typedef enum hlrt_tensor_role {
	/*
	 * Intermediate value: lives in the recipe's workspace, placed by the
	 * memory plan; not visible after the launch.
	 */
	HLRT_TENSOR_TEMPORARY = 0,
	/* Persistent, bound at launch by name: data the host provides. */
	HLRT_TENSOR_INPUT,
	/*
	 * Persistent, bound at launch: trained weights and optimizer state,
	 * read and updated in place by optimizer nodes.
	 */
	HLRT_TENSOR_PARAMETER,
	/* Persistent, bound at launch: results the host reads back. */
	HLRT_TENSOR_OUTPUT,
	/* Data given at creation (desc.data), copied into the recipe. */
	HLRT_TENSOR_CONSTANT,
} hlrt_tensor_role;

struct hlrt_tensor_desc {
	const char *name;		/* unique in the graph; NULL: generated */
	hlrt_dtype dtype;
	uint32_t ndims;			/* 1..HLRT_MAX_DIMS (0: a scalar = {1}) */
	uint64_t dims[HLRT_MAX_DIMS];	/* outermost first */
	hlrt_tensor_role role;
	const void *data;		/* CONSTANT: the elements; else NULL */
};

/* A graph is device-independent: build and compile it without a device. */
hlrt_status hlrt_graph_create(hlrt_graph **graph);
/* Destroys the graph, its tensors and nodes (recipes stay valid). */
hlrt_status hlrt_graph_destroy(hlrt_graph *graph);

hlrt_status hlrt_tensor_create(hlrt_graph *graph, const struct hlrt_tensor_desc *desc,
			       hlrt_tensor **tensor);
/* Look a tensor up by name (HLRT_NOT_FOUND). */
hlrt_status hlrt_graph_find_tensor(hlrt_graph *graph, const char *name,
				   hlrt_tensor **tensor);
/* Describe a tensor (shapes of node outputs are known once the node exists). */
hlrt_status hlrt_tensor_get_desc(const hlrt_tensor *tensor, struct hlrt_tensor_desc *desc);
const char *hlrt_tensor_name(const hlrt_tensor *tensor);
/* Bytes of the tensor's elements. */
uint64_t hlrt_tensor_bytes(const hlrt_tensor *tensor);
/* Change a TEMPORARY tensor into an OUTPUT (so it can be read back), etc. */
hlrt_status hlrt_tensor_set_role(hlrt_tensor *tensor, hlrt_tensor_role role);

/* ==== Nodes =============================================================== */

/*
 * hlrt_node_create(graph, guid, inputs, n_in, outputs, n_out, params,
 * params_size, name, &node): params points to the GUID's parameter struct
 * below (NULL/0 for GUIDs without one, or for the defaults). Output
 * tensors may be created by the caller with any role, or passed as NULL
 * entries, in which case the node creates TEMPORARY outputs of the
 * inferred shape (fetch them with hlrt_node_output()). name (may be NULL)
 * names the node in logs, e.g. "model/dense/MatMul".
 *
 * GUIDs carry the dtype like Synapse's: "relu_fwd_f32", "relu_fwd_bf16".
 * The registry lists every GUID with its signature (hlrt_registry_*
 * below; docs/ops.md is generated from it). The core set:
 *
 *  MME
 *   gemm_{f32,bf16}          {A[M,K], B[K,N]} -> {C[M,N]}      hlrt_gemm_params
 *                            (A and B may carry transposes; more than
 *                            2 dims in A are flattened into M)
 *   batch_gemm_f32           {A[b,M,K], B[b,K,N]} -> {C[b,M,N]}  hlrt_gemm_params
 *                            (optional: A stored [b,K,M], B [b,N,K])
 *   gemm_dedx_{f32,bf16}     {dC[M,N], B[K,N]} -> {dA[M,K]}     (dA = dC B^T)
 *   gemm_dedw_{f32,bf16}     {dC[M,N], A[M,K]} -> {dB[K,N]}     (dB = A^T dC)
 *  TPC, elementwise (inputs broadcast by NumPy's rules where marked *)
 *   add_f32 sub_f32 mul_f32  {a, b} -> {c}                      *
 *   div_f32                  {a, b} -> {c = a * (1 / b)}         *
 *   maximum_f32 minimum_f32  {a, b} -> {c}                      *
 *   add_i32                  {a, b} -> {c}, wrapping           *
 *   square_f32               {x} -> {y = x * x}
 *   tanh_fwd_f32 sigmoid_fwd_f32  {x} -> {y} (gradients: *_bwd_f32 {dy, y})
 *   gelu_fwd_f32             {x} -> {y = x * Phi(x)}             hlrt_gelu_params
 *   gelu_bwd_f32             {dy, x} -> {dx}                     hlrt_gelu_params
 *   where_f32 (select_f32)   {cond i32, a, b} -> {c = cond != 0 ? a : b}  *
 *   equal_{i32,f32} greater_f32 less_f32  {a, b} -> {c i32: 1 or 0}       *
 *   scale_f32                {x} -> {y = alpha * x}             hlrt_scale_params
 *   bias_add_f32             {x[..., N], b[N]} -> {y}
 *   relu_fwd_f32             {x} -> {y}
 *   relu_bwd_f32             {dy, x or y} -> {dx = x > 0 ? dy : 0}
 *   cast_<from>_to_<to>      {x} -> {y}  f32<->bf16, f32<->i32, i32<->i8/u8/i16/u16
 *  TPC, reductions and losses
 *   reduce_sum_{f32,i32}     {x} -> {y}, over one axis           hlrt_reduce_params
 *   broadcast_f32            {x} -> {y}, repeated along a new axis hlrt_broadcast_params
 *   reduce_mean_f32          {x} -> {y}
 *   softmax_fwd_f32          {x[B,C]} -> {y[B,C]}, along the last axis
 *   log_softmax_fwd_f32      {x[..., C]} -> {y}, along the last axis
 *   log_softmax_bwd_f32      {dy, y} -> {dx = dy - exp(y) * sum(dy)}, per row
 *   nll_loss_fwd_f32         {logp[B,C], labels i32[B]} -> {loss[B], weight[B]}
 *                            per row: -logp[label] and 1, or 0 and 0 where the
 *                            label is ignore_index                 hlrt_nll_params
 *   nll_loss_bwd_f32         {s[1], labels i32[B]} -> {dx[B,classes]}: -s at
 *                            the label, 0 elsewhere (and on ignored rows)
 *   softmax_cross_entropy_fwd_f32  {logits[B,C], labels i32[B]} -> {loss[1]}
 *                            mean (or sum) of -log softmax(logits)[label]
 *                                                                hlrt_sce_params
 *   softmax_cross_entropy_bwd_f32  {logits[B,C], labels i32[B]} -> {dlogits[B,C]}
 *                            (softmax - onehot) / B for the mean
 *   argmax_i32 / argmax_i64  {x[B,C]} -> {idx[B]} along the last axis
 *                            (both on the TPC)
 *   equal_i64                {a, b} -> {c i32: 1 where equal, else 0}, on the CPU *
 *   gather_rows_{f32,i32}    {src[R, ...], index i32[N], offset i32[1]}
 *                            -> {dst[B, ...]}: dst[i] = src[index[offset + i]]
 *                            (B rows; a row past the end of index reads 0s)
 *  TPC, layers with a training and an inference mode
 *   dropout_f32              {x, step i32[1]} -> {y, mask}       hlrt_dropout_params
 *                            y = x * mask, mask = 0 or 1/(1-rate) from
 *                            hlrt_dropout_keep(); the gradient is dy * mask
 *   batchnorm_fwd_f32        {x[..., C], gamma[C], beta[C], moving_mean[C],
 *                            moving_var[C]} -> {y, mean[C], invstd[C]
 *                            (, moving_mean, moving_var: training, in place)}
 *                                                                hlrt_batchnorm_params
 *   batchnorm_bwd_f32        {dy, x, gamma, mean, invstd} -> {dx, dgamma, dbeta}
 *  Optimizers (update PARAMETER tensors in place: outputs = the inputs)
 *   optimizer_sgd_f32        {grad, weights, lr[1] (, momentum)} -> {weights (, momentum)}
 *                                                                hlrt_sgd_params
 *   optimizer_adamw_f32      {grad, weights, lr[1], m, v, step i32[1]} -> {weights, m, v}
 *                            (step counts completed steps; hlrt_graph_apply_optimizer
 *                            adds the node that increments it)
 *   optimizer_adagrad_f32    {grad, weights, lr[1], accum} -> {weights, accum}
 *   optimizer_lamb_f32       {grad, weights, lr[1], m, v, step i32[1]} -> {weights, m, v}
 *  DMA and logical
 *   memcpy                   {x} -> {y}
 *   memset                   {} -> {y}                           hlrt_memset_params
 *   reshape, flatten         {x} -> {y} (a view: no work)        hlrt_reshape_params
 *   transpose_f32, _bf16     {x} -> {y}, y.dims[i] = x.dims[perm[i]]  hlrt_transpose_params
 *   concat_f32               {x0, .., x7} -> {y}, joined along an axis  hlrt_concat_params
 *   slice_f32                {x} -> {y}, a range of an axis       hlrt_slice_params
 *  Convolution (the MME's convolution modes, any stride), NHWC layout
 *   conv2d_fwd_f32           {x[N,H,W,C], w[KH,KW,C,F] (, b[F])} -> {y[N,OH,OW,F]}
 *   conv2d_dedx_f32          {dy, w} -> {dx}
 *   conv2d_dedw_f32          {dy, x} -> {dw}                     hlrt_conv_params
 *   conv2d_fwd_bf16, _dedx_bf16, _dedw_bf16: the same with BF16 operands
 *                            (x or dy, and w); FP32 bias, accumulation, result
 *   maxpool2d_fwd_f32        {x[N,H,W,C]} -> {y}
 *   maxpool2d_bwd_f32        {dy, x (, y)} -> {dx}               hlrt_pool_params
 *                            (any stride: overlapping windows add up)
 *   pad2d_f32                {x[N,H,W,C]} -> {y}, spatial padding  hlrt_pad2d_params
 */
struct hlrt_gemm_params {
	uint8_t transpose_a;		/* op(A) = A^T: A stored [K, M] */
	uint8_t transpose_b;		/* op(B) = B^T: B stored [N, K] */
	uint8_t pad[2];
	float alpha;			/* 0 means 1 (so a zeroed struct is plain) */
};

struct hlrt_scale_params {
	float alpha;
};

/*
 * gelu_fwd_f32 / gelu_bwd_f32: PyTorch's two forms. NONE: Phi by erf
 * (an erfc fit of relative error under 1.2e-7, so within a few ulp of
 * the exact function); TANH: 0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715
 * x^3))). Other values are refused.
 */
enum hlrt_gelu_approximate {
	HLRT_GELU_NONE = 0,
	HLRT_GELU_TANH = 1,
};

struct hlrt_gelu_params {
	uint32_t approximate;		/* enum hlrt_gelu_approximate */
};

struct hlrt_reduce_params {
	int32_t axis;			/* the first (0) or the last (-1) axis */
	uint32_t keepdims;		/* keep the axis as size 1 */
};

enum hlrt_sce_mode {
	HLRT_SCE_MEAN = 0,		/* loss = sum / B (Keras, PyTorch default) */
	HLRT_SCE_SUM = 1,
};

struct hlrt_sce_params {
	uint32_t mode;			/* enum hlrt_sce_mode */
};

/*
 * broadcast_f32 {x} -> {y}: the gradient of reduce_sum/reduce_mean:
 * y repeats alpha * x n times along a new first axis (axis 0) or a new
 * last axis (axis -1).
 */
struct hlrt_broadcast_params {
	int32_t axis;			/* 0 or -1 */
	float alpha;			/* 0 means 1 */
	uint64_t n;
};

struct hlrt_nll_params {
	int32_t ignore_index;		/* a label with this value counts for nothing */
	uint32_t classes;		/* nll_loss_bwd_f32: dx's last dimension */
};

struct hlrt_argmax_params {
	int32_t axis;			/* only the last axis (-1) is supported */
};

/*
 * dropout_f32: in training, element i of x is kept when
 * hlrt_dropout_keep(rate, seed, step, i) (i the row-major index; step the
 * INT32 input, e.g. the optimizer's step count) and scaled by 1/(1-rate)
 * (rounded to binary32); dropped elements give 0. training = 0 is the
 * identity (mask all 1). rate in [0, 1), else the node is refused.
 */
struct hlrt_dropout_params {
	float rate;			/* the share of elements dropped */
	uint32_t seed;
	uint32_t training;		/* 1: draw the mask; 0: y = x */
};

/*
 * The dropout decision, the same on the device and on the host:
 *   key = fmix32(seed ^ fmix32(step + 0x9e3779b9)),
 *   keep = (fmix32(index ^ key) >> 8) >= (uint32_t)(rate * 2^24)
 * (fmix32: MurmurHash3's 32-bit finalizer). Returns 1 to keep, 0 to drop.
 */
int hlrt_dropout_keep(float rate, uint32_t seed, uint32_t step, uint32_t index);

/*
 * batchnorm_fwd_f32 over the channel axis, the last one (NHWC, Keras):
 * statistics per channel over all other axes (R rows). Training (5
 * outputs; outputs 3 and 4 must be the moving_mean and moving_var inputs,
 * updated in place): mean and the biased variance of the batch, then
 *   moving = moving * momentum + batch * (1 - momentum)
 * (Keras' rule; PyTorch's momentum p is momentum = 1 - p), the variance
 * that enters the moving one multiplied by R/(R-1) when unbiased_moving_var
 * (PyTorch). Eval (3 outputs): the moving statistics. Both give
 *   invstd = 1/sqrt(var + epsilon), y = ((x - mean) * invstd) * gamma + beta
 * and output mean and invstd, which batchnorm_bwd_f32 takes. For Keras'
 * center = false / scale = false pass beta = 0 / gamma = 1. Taken as given:
 * epsilon > 0 and momentum in [0, 1], else the node is refused.
 */
struct hlrt_batchnorm_params {
	float momentum;
	float epsilon;
	uint32_t training;		/* 1: batch statistics; 0: moving ones */
	uint32_t unbiased_moving_var;	/* 1: PyTorch's running_var */
};

struct hlrt_sgd_params {
	float weight_decay;		/* added to the gradient: g + wd * w */
	float momentum;			/* 0: plain SGD, no momentum tensor */
	float dampening;
	uint32_t nesterov;
};

/*
 * Every field is taken as given, with no defaults: beta1 in [0, 1), beta2
 * in (0, 1), eps > 0, weight_decay >= 0, else the node is refused (so a
 * zeroed struct is refused). Keras' defaults are 0.9, 0.999, 1e-7.
 */
struct hlrt_adamw_params {
	float beta1, beta2, eps;
	float weight_decay;		/* decoupled: w -= lr * wd * w */
};

struct hlrt_adagrad_params {
	float eps;
	float weight_decay;
	float initial_accumulator;
};

struct hlrt_lamb_params {
	float beta1, beta2, eps;
	float weight_decay;
};

struct hlrt_memset_params {
	uint32_t value;			/* element bit pattern */
};

struct hlrt_reshape_params {
	uint32_t ndims;
	uint64_t dims[HLRT_MAX_DIMS];	/* flatten ignores this (keeps dim 0) */
};

struct hlrt_transpose_params {
	uint32_t perm[HLRT_MAX_DIMS];
};

/*
 * concat_f32: y = the inputs (1 to 8, the same shape but along axis) one
 * after another along axis; its gradient slices dy. slice_f32: y = x's
 * elements start .. start + length - 1 along axis. Each input or output
 * is one strided copy on the TPC.
 */
#define HLRT_MAX_CONCAT		8	/* inputs of one concat_f32 */

struct hlrt_concat_params {
	uint32_t axis;
};

struct hlrt_slice_params {
	uint32_t axis;
	uint32_t pad;
	uint64_t start, length;
};

struct hlrt_conv_params {
	uint32_t kernel_h, kernel_w;
	uint32_t stride_h, stride_w;	/* 0 means 1 */
	uint32_t pad_h, pad_w;		/* zero padding on each side */
};

/*
 * pad2d_f32: top/bottom rows and left/right columns of `value` around
 * x[N,H,W,C] (negative amounts crop; the result must keep at least one
 * row and column). Its gradient crops (the same op, signs turned).
 * Convolutions and pools with Keras' "same" padding of an odd total put
 * the extra row and column after: pad2d, then a "valid" one.
 */
struct hlrt_pad2d_params {
	int32_t top, bottom, left, right;
	float value;
};

struct hlrt_pool_params {
	uint32_t kernel_h, kernel_w;
	uint32_t stride_h, stride_w;	/* 0 means the kernel size */
};

/*
 * The nodes conv2d_* expand into (Synapse's MME nodes; autodiff
 * differentiates spatial_convolution into dedx and dedw):
 *   spatial_convolution_f32  {x, w (, b)} -> {y}            hlrt_conv_params
 *   dedx_f32                 {dy, w} -> {dx}                hlrt_col2im_params
 *   dedw_f32                 {dy, x} -> {dw}                hlrt_conv_params
 * and the TPC's column ops (stride 1):
 *   im2col_f32  {x[N,H,W,C]} -> {cols[N*OH*OW, KH*KW*C]}   hlrt_conv_params
 *   col2im_f32  {dcols} -> {dx[N,H,W,C]}                   hlrt_col2im_params
 */
struct hlrt_col2im_params {
	struct hlrt_conv_params conv;
	uint64_t n, h, w, c;		/* the shape of dx */
};

hlrt_status hlrt_node_create(hlrt_graph *graph, const char *guid,
			     hlrt_tensor *const *inputs, uint32_t n_inputs,
			     hlrt_tensor *const *outputs, uint32_t n_outputs,
			     const void *params, size_t params_size, const char *name,
			     hlrt_node **node);
/* Output i of a node (the tensor given or the one the node created). */
hlrt_tensor *hlrt_node_output(const hlrt_node *node, uint32_t i);

/* ==== Autodiff and optimizers ============================================= */

enum hlrt_optimizer_kind {
	HLRT_OPT_SGD = 0,
	HLRT_OPT_ADAMW,
	HLRT_OPT_ADAGRAD,
	HLRT_OPT_LAMB,
};

struct hlrt_optimizer_desc {
	uint32_t kind;			/* enum hlrt_optimizer_kind */
	union {
		struct hlrt_sgd_params sgd;
		struct hlrt_adamw_params adamw;
		struct hlrt_adagrad_params adagrad;
		struct hlrt_lamb_params lamb;
	} u;
};

/*
 * Build the backward graph of loss (a 1-element FP32 tensor) with respect
 * to each of params[0..n) and store the gradient tensors (TEMPORARY, set
 * their role to OUTPUT to read them back). Every op used in the forward
 * graph must have a gradient rule (the registry says which do).
 */
hlrt_status hlrt_graph_gradients(hlrt_graph *graph, hlrt_tensor *loss,
				 hlrt_tensor *const *params, uint32_t n,
				 hlrt_tensor **grads);

/*
 * The optimizer's state tensors, a contract (checkpoints store them under
 * these names): PARAMETER tensors the caller binds like the weights and
 * zero-initialises before the first update. Per parameter, of its shape,
 * named "<param>/<suffix>" with <param> cut to its first
 * HLRT_OPT_STATE_PARAM_CHARS characters:
 *   SGD with momentum   "<param>/momentum"
 *   AdamW, LAMB         "<param>/m", "<param>/v"
 *   Adagrad             "<param>/accum"
 * (plain SGD keeps none), and for AdamW and LAMB one INT32[1]
 * HLRT_OPT_STEP_NAME counting the updates done, shared by all parameters.
 */
#define HLRT_OPT_STATE_PARAM_CHARS	50
#define HLRT_OPT_STATE_MAX		2	/* state tensors per parameter */
#define HLRT_OPT_STEP_NAME		"optimizer/step"

/* Per-parameter state tensors of this optimizer (0 .. HLRT_OPT_STATE_MAX). */
uint32_t hlrt_optimizer_state_count(const struct hlrt_optimizer_desc *optimizer);

/*
 * One fused optimizer node per params[i], updating it in place from
 * grads[i] (FP32, as many elements: autodiff's, or an INPUT holding
 * gradients summed elsewhere, e.g. all-reduced over data-parallel ranks)
 * with lr (a 1-element FP32 tensor), plus the node counting the step.
 * Creates the state tensors above and owns them (the graph does); find
 * them with hlrt_graph_optimizer_state. Call it once per graph.
 */
hlrt_status hlrt_graph_apply_optimizer(hlrt_graph *graph,
				       const struct hlrt_optimizer_desc *optimizer,
				       hlrt_tensor *lr, hlrt_tensor *const *params,
				       hlrt_tensor *const *grads, uint32_t n);
/*
 * State tensor `slot` (0 .. hlrt_optimizer_state_count() - 1, in the
 * order listed above) of param, or with param NULL and slot 0 the update
 * count, as hlrt_graph_apply_optimizer or hlrt_graph_train created it.
 * HLRT_NOT_FOUND when the optimizer keeps no such tensor.
 */
hlrt_status hlrt_graph_optimizer_state(hlrt_graph *graph, const hlrt_tensor *param,
				       uint32_t slot, hlrt_tensor **state);

/*
 * Autodiff (hlrt_graph_gradients) of loss with respect to every FP32
 * PARAMETER tensor of the graph, then hlrt_graph_apply_optimizer on
 * those gradients with lr (a 1-element FP32 INPUT tensor).
 */
hlrt_status hlrt_graph_train(hlrt_graph *graph, hlrt_tensor *loss,
			     const struct hlrt_optimizer_desc *optimizer, hlrt_tensor *lr);

/* ==== Compile -> recipe =================================================== */

typedef struct hlrt_recipe hlrt_recipe;

struct hlrt_compile_options {
	uint32_t num_tpc;		/* TPCs to split over; 0: all 8 */
	uint32_t bf16;			/* autocast GEMM/conv inputs to BF16;
					 * also on when HLRT_BF16=1 */
	uint32_t no_fusion;		/* run fusable nodes apart (bias_add+relu;
					 * SCE forward, backward, argmax) */
	uint32_t no_cache;		/* skip the recipe cache */
	uint32_t eager;			/* HLRT_EAGER_*: serial launch */
};

/*
 * hlrt_compile_options.eager: 0 follows HLRT_LAZY_MODE (unset or 1: lazy).
 * What eager mode needs from a recipe is a serial launch: each node its
 * own submission, waited for before the next (the runtime's internal name
 * for it). An eager session (below) compiles with HLRT_EAGER_ON.
 */
enum hlrt_eager_option {
	HLRT_EAGER_FROM_ENV = 0,
	HLRT_EAGER_ON,		/* serial launch: each node its own submission, synchronized */
	HLRT_EAGER_OFF,		/* one submission per step, whatever the environment says */
};

/*
 * Compile the graph into a recipe, a device-independent program: shape
 * check, dead-node elimination, logical ops folded, elementwise fusion,
 * BF16 autocast (on the compile's own copy of the graph: the caller's
 * graph is not changed), placement (MME / TPC / DMA / CPU), memory plan
 * (liveness, 128-byte alignment), lowering of each node to engine works
 * (MME, TPC, DMA descriptors, CPU ops) that name tensors by recipe index,
 * and the dependencies between works. No device is touched and no
 * command buffer is built: that is hlrt_launch's first launch on a
 * device. Recipes of graphs with the same hash come from an in-process
 * cache (opts->no_cache). opts may be NULL. Every tensor that is not
 * TEMPORARY and not consumed or produced by a live node is an error, as
 * is a cycle.
 */
hlrt_status hlrt_graph_compile(hlrt_graph *graph, const struct hlrt_compile_options *opts,
			       hlrt_recipe **recipe);
hlrt_status hlrt_recipe_destroy(hlrt_recipe *recipe);

/* Bytes of workspace a launch needs (a multiple of 128; may be 0). */
hlrt_status hlrt_recipe_workspace_size(const hlrt_recipe *recipe, uint64_t *size);

struct hlrt_persistent_info {
	char name[HLRT_NAME_MAX];
	hlrt_dtype dtype;
	hlrt_tensor_role role;		/* INPUT, PARAMETER or OUTPUT */
	uint32_t ndims;
	uint64_t dims[HLRT_MAX_DIMS];
	uint64_t bytes;
};

/* The tensors a launch must bind. */
hlrt_status hlrt_recipe_persistent_count(const hlrt_recipe *recipe, uint32_t *count);
hlrt_status hlrt_recipe_persistent_info(const hlrt_recipe *recipe, uint32_t i,
					struct hlrt_persistent_info *info);

struct hlrt_recipe_stats {
	uint32_t nodes;			/* nodes after the passes */
	uint32_t mme_nodes, tpc_nodes, dma_nodes, cpu_nodes;
	uint32_t fused_nodes;		/* nodes removed by fusion */
	uint32_t folded_nodes;		/* logical nodes folded away */
	uint32_t dead_nodes;		/* removed as dead */
	uint32_t patch_points;
	uint32_t cb_bytes;		/* all command buffers */
	uint64_t workspace_bytes;	/* peak workspace from the memory plan */
	uint64_t hash;			/* graph hash (the cache key) */
};

hlrt_status hlrt_recipe_get_stats(const hlrt_recipe *recipe, struct hlrt_recipe_stats *stats);

/* Serialise to / restore from a file (a versioned binary format). */
hlrt_status hlrt_recipe_save(const hlrt_recipe *recipe, const char *path);
hlrt_status hlrt_recipe_load(const char *path, hlrt_recipe **recipe);
/* The same in memory: *buf is malloc'ed, free() it. */
hlrt_status hlrt_recipe_serialize(const hlrt_recipe *recipe, void **buf, size_t *size);
hlrt_status hlrt_recipe_deserialize(const void *buf, size_t size, hlrt_recipe **recipe);

/* ==== Launch ============================================================== */

struct hlrt_tensor_binding {
	const char *name;		/* persistent tensor name */
	uint64_t device_addr;		/* at least the tensor's bytes */
};

/*
 * A copy between host memory and the device that rides in a launch's
 * submission: "pre" copies (host -> device) run before the step's work,
 * "post" copies (device -> host) after it. host must be hlrt_host_malloc
 * memory. A trainer uploads the step's gather offset and reads the loss
 * back this way, so a training step is one submission and one wait.
 */
struct hlrt_host_copy {
	void *host;
	uint64_t device_addr;
	uint64_t size;
};

/*
 * Launch the recipe on the stream. The first launch on a device loads the
 * recipe: it emits the per-engine command buffers (the works chained
 * through sync objects, monitors and fences) and their patch table, and
 * lays kernels, constants and command buffers out in one device image
 * (again on another device, or when profiling is turned on or off, as it
 * adds packets). Every
 * launch then patches the persistent-tensor and workspace addresses into
 * the image and uploads it (only when they differ from the previous
 * launch of this recipe), runs CPU-placed nodes on the host between the
 * device segments, and queues each device segment as one command
 * submission: a step without CPU nodes is one submission (a recipe
 * compiled with HLRT_EAGER_ON launches serially: one submission per node,
 * each waited for). Every persistent tensor must be bound;
 * workspace needs hlrt_recipe_workspace_size() bytes (0 if none needed).
 * The call returns once the work is queued; hlrt_stream_synchronize()
 * (or an event) waits for it.
 */
hlrt_status hlrt_launch(hlrt_stream *stream, const hlrt_recipe *recipe,
			const struct hlrt_tensor_binding *bindings, uint32_t n_bindings,
			uint64_t workspace);
/* The same, plus host copies in the same submission (see above). */
hlrt_status hlrt_launch_ex(hlrt_stream *stream, const hlrt_recipe *recipe,
			   const struct hlrt_tensor_binding *bindings, uint32_t n_bindings,
			   uint64_t workspace,
			   const struct hlrt_host_copy *pre, uint32_t n_pre,
			   const struct hlrt_host_copy *post, uint32_t n_post);

/*
 * Run a recipe several times in one command submission (Keras'
 * steps_per_execution): K training steps over a data set in HBM cost one
 * submit and one wait. Iteration i (0..count-1) binds every binding
 * named in iters at its device_addr + i * stride, the others as given:
 * an input that advances (the batch offset) and an output kept per step
 * (the loss) each get a slot of their own. The "pre" copies run before
 * iteration 0, the "post" copies after the last. The results are
 * bit-identical to count hlrt_launch_ex() calls with those bindings.
 * One submission needs a recipe of one device segment (no CPU nodes, not
 * HLRT_EAGER_ON) launched without the profiler and command buffers that
 * fit count times; otherwise the iterations run as count launches, with
 * the same results. count is 1..HLRT_LAUNCH_REPEAT_MAX; a stride must be
 * a multiple of 4 and every iters name one of the bindings.
 */
#define HLRT_LAUNCH_REPEAT_MAX	32

struct hlrt_launch_iter {
	const char *name;		/* a binding that advances */
	uint64_t stride;		/* bytes added to its address per iteration */
};

hlrt_status hlrt_launch_repeat(hlrt_stream *stream, const hlrt_recipe *recipe,
			       const struct hlrt_tensor_binding *bindings, uint32_t n_bindings,
			       uint64_t workspace, uint32_t count,
			       const struct hlrt_launch_iter *iters, uint32_t n_iters,
			       const struct hlrt_host_copy *pre, uint32_t n_pre,
			       const struct hlrt_host_copy *post, uint32_t n_post);

/* ==== Eager and lazy execution ============================================ */

/*
 * A session runs ops on one device the way PyTorch on Gaudi does. In lazy
 * mode (the default; HLRT_LAZY_MODE=1) ops accumulate into a graph until
 * hlrt_mark_step() or a read back to the host, then one compiled (and
 * cached) recipe runs. In eager mode (HLRT_LAZY_MODE=0) each op is
 * compiled, cached and launched alone. Both give bit-identical results.
 * Session tensors are device buffers owned by the session.
 */
typedef struct hlrt_session hlrt_session;
typedef struct hlrt_value hlrt_value;	/* a session tensor */

enum hlrt_exec_mode {
	HLRT_MODE_DEFAULT = 0,		/* from HLRT_LAZY_MODE, default lazy */
	HLRT_MODE_LAZY,
	HLRT_MODE_EAGER,
};

hlrt_status hlrt_session_create(hlrt_device *device, uint32_t mode, hlrt_session **session);
hlrt_status hlrt_session_destroy(hlrt_session *session);
/* 1 when lazy. */
int hlrt_session_is_lazy(const hlrt_session *session);
/* A value holding host data (copied to the device at the next step). */
hlrt_status hlrt_value_from_host(hlrt_session *session, hlrt_dtype dtype, uint32_t ndims,
				 const uint64_t *dims, const void *data, hlrt_value **value);
/* Run guid on values; outputs are new values of inferred shapes. */
hlrt_status hlrt_op(hlrt_session *session, const char *guid, hlrt_value *const *inputs,
		    uint32_t n_inputs, const void *params, size_t params_size,
		    hlrt_value **outputs, uint32_t n_outputs);
/* Run everything queued (lazy mode); a no-op in eager mode. */
hlrt_status hlrt_mark_step(hlrt_session *session);
/* Copy a value to the host (runs pending work first). */
hlrt_status hlrt_value_read(hlrt_session *session, const hlrt_value *value, void *dst,
			    size_t size);
hlrt_status hlrt_value_release(hlrt_session *session, hlrt_value *value);

/* ==== Placement log ======================================================= */

/*
 * With HLRT_LOG_DEVICE_PLACEMENT=1 (or hlrt_set_log_placement(1)) compile
 * prints one line per op to stderr, in TensorFlow's style:
 *   model/ArgMax: (ArgMax): /device:HPU:0
 *   model/Equal: (Equal): /device:CPU:0
 * (node name, op class, device). Ops with a dtype the device lacks (INT64;
 * argmax_i64 is the exception, its kernel writes INT64 indices) or without
 * a device kernel run on the CPU, with the copies inserted.
 */
void hlrt_set_log_placement(int enable);

/* ==== Profiler ============================================================ */

/*
 * HLRT_PROFILE=FILE (or hlrt_profiler_start) records every launch: one
 * Chrome Trace Event JSON file, a lane per engine (DMA n, MME, TPC n)
 * from the device's timestamps plus a lane for the host API. Written at
 * hlrt_profiler_stop() or hlrt_device_release().
 */
hlrt_status hlrt_profiler_start(hlrt_device *device, const char *path);
hlrt_status hlrt_profiler_stop(hlrt_device *device);

/* ==== Kernel registry and custom kernels ================================== */

struct hlrt_op_info {
	char guid[HLRT_GUID_MAX];
	const char *engine;		/* "MME", "TPC", "DMA", "logical", "CPU" */
	const char *signature;		/* "{a, b} -> {c}" */
	const char *summary;
	uint32_t has_gradient;		/* autodiff knows its backward */
	uint32_t custom;		/* loaded from HLRT_KERNEL_PATH */
};

/*
 * Every GUID the runtime knows, built-in and custom. Custom kernels come
 * from the folders in HLRT_KERNEL_PATH (colon-separated): each NAME.json
 * descriptor with its NAME.tpcs (see docs/custom-kernels.md). A custom
 * node's params are its scalars as an array of floats (NULL: defaults).
 */
hlrt_status hlrt_registry_count(uint32_t *count);
hlrt_status hlrt_registry_get(uint32_t i, struct hlrt_op_info *info);
/* Load custom kernels from one more folder (HLRT_KERNEL_PATH does it at start). */
hlrt_status hlrt_registry_load_path(const char *dir);

/* ==== Collectives ========================================================= */

/*
 * HCCL-shaped collectives between devices over their NIC ports
 * (docs/collectives.md). One communicator per rank: every rank calls
 * hlrt_comm_init_rank() with the same id and nranks, its own rank and
 * its device; the ranks meet through files in the rendezvous directory
 * the id names (no network needed; a shared folder links VMs). The ops
 * are enqueued on a stream like every stream op and run on the devices
 * alone: the data moves NIC to NIC, sums run on the TPC. Buffers are
 * device addresses; counts are elements. An error (a cut link, a peer
 * gone) comes back from hlrt_stream_synchronize(); the communicator is
 * then unusable: destroy it and create a new one.
 */
typedef struct hlrt_comm hlrt_comm;

#define HLRT_COMM_ID_MAX	256	/* printable id, NUL included */

/* A rendezvous: printable ("hlrt1:<nonce>:<directory>"), env HLRT_COMM_ID. */
typedef struct hlrt_comm_id {
	char text[HLRT_COMM_ID_MAX];
} hlrt_comm_id;

typedef enum hlrt_reduce_op {
	HLRT_REDUCE_SUM = 0,
} hlrt_reduce_op;

/* A fresh id: a new directory under $HLRT_COMM_DIR (default /tmp) and a nonce. */
hlrt_status hlrt_comm_get_unique_id(hlrt_comm_id *id);
/* An id from its text (what a launcher passed on). */
hlrt_status hlrt_comm_id_parse(const char *text, hlrt_comm_id *id);
/*
 * Join the communicator: publish this rank's record and wait (at most
 * $HLRT_COMM_TIMEOUT_MS, default 60000) for every rank's. The box of the
 * device is $HLRT_BOX_ID (default 0).
 */
hlrt_status hlrt_comm_init_rank(hlrt_comm **comm, uint32_t nranks, const hlrt_comm_id *id,
				uint32_t rank, hlrt_device *device);
/* Waits for the communicator's work, then frees it. */
hlrt_status hlrt_comm_destroy(hlrt_comm *comm);
hlrt_status hlrt_comm_rank(const hlrt_comm *comm, uint32_t *rank);
hlrt_status hlrt_comm_count(const hlrt_comm *comm, uint32_t *nranks);

/*
 * The algorithm hlrt_all_reduce() takes for count elements of dtype:
 * "direct" (three ranks or more, one box, small enough: every rank sends
 * every peer its block, two hops), "ring" (otherwise, or
 * $HLRT_COLL_ALGO=ring), "copy" (one rank); NULL for a NULL communicator.
 */
const char *hlrt_all_reduce_algorithm(const hlrt_comm *comm, uint64_t count, hlrt_dtype dtype);
/* recvbuf = sum over ranks of sendbuf (count elements; in place when equal). */
hlrt_status hlrt_all_reduce(hlrt_comm *comm, uint64_t sendbuf, uint64_t recvbuf,
			    uint64_t count, hlrt_dtype dtype, hlrt_reduce_op op,
			    hlrt_stream *stream);
/* recvbuf (recvcount) = rank's block of the sum of sendbuf (nranks * recvcount). */
hlrt_status hlrt_reduce_scatter(hlrt_comm *comm, uint64_t sendbuf, uint64_t recvbuf,
				uint64_t recvcount, hlrt_dtype dtype, hlrt_reduce_op op,
				hlrt_stream *stream);
/* recvbuf (nranks * sendcount) = every rank's sendbuf, in rank order. */
hlrt_status hlrt_all_gather(hlrt_comm *comm, uint64_t sendbuf, uint64_t recvbuf,
			    uint64_t sendcount, hlrt_dtype dtype, hlrt_stream *stream);
/* recvbuf = root's sendbuf on every rank (sendbuf is read on the root only). */
hlrt_status hlrt_broadcast(hlrt_comm *comm, uint64_t sendbuf, uint64_t recvbuf,
			   uint64_t count, hlrt_dtype dtype, uint32_t root, hlrt_stream *stream);
/* Work after it on stream starts once every rank's stream reached it. */
hlrt_status hlrt_barrier(hlrt_comm *comm, hlrt_stream *stream);

/*
 * STATUS (this version; tests/runtime/test_api.c checks the ops list
 * against the registry):
 *   implemented: status, dtypes, devices (+ visibility), memory, streams,
 *   events, graphs; autodiff; compile with the passes above (BF16
 *   autocast, fusion, memory plan, sync-chained schedule, recipe cache);
 *   launch with patching; recipe serialise/deserialise; CPU fallback and
 *   the placement log; the profiler; custom kernels; eager and lazy
 *   sessions (forward ops; autodiff is for graphs); eager recipes
 *   (hlrt_compile_options.eager); cross-stream waits on the device;
 *   collectives (all-reduce, reduce-scatter, all-gather, broadcast,
 *   barrier; sums; ring over the NIC links, docs/collectives.md).
 *   ops (every GUID of docs/ops.md, by family, the dtype suffix dropped):
 *   add, argmax, batch_gemm, batchnorm_bwd, batchnorm_fwd, bias_add, broadcast,
 *   cast, col2im, concat, conv2d_dedw, conv2d_dedx, conv2d_fwd, dedw, dedx, div,
 *   dropout, equal, flatten, gather_rows, gelu_bwd, gelu_fwd, gemm, gemm_dedw,
 *   gemm_dedx, greater,
 *   im2col, lamb_apply, lamb_moments, lamb_sumsq, less, log_softmax_bwd,
 *   log_softmax_fwd, maximum, maxpool2d_bwd, maxpool2d_fwd, memcpy, memset,
 *   minimum, mul, nll_loss_bwd, nll_loss_fwd, optimizer_adagrad,
 *   optimizer_adamw, optimizer_lamb, optimizer_sgd, pad2d, reduce_mean,
 *   reduce_sum, relu_bwd, relu_fwd, reshape, scale, select, sigmoid_bwd, slice,
 *   sigmoid_fwd, softmax_cross_entropy_bwd,
 *   softmax_cross_entropy_fwd, softmax_fwd, spatial_convolution, square,
 *   square_bwd, sub, tanh_bwd, tanh_fwd, transpose, where, where_bwd.
 *   Convolutions take any stride (the MME's convolution modes); the
 *   optimizers sgd (momentum, nesterov, weight decay), adamw, adagrad and
 *   lamb are fused per parameter. dropout and batchnorm_fwd have a training
 *   and an inference mode; max pooling takes any stride (where windows
 *   overlap their gradients add up); pad2d gives "same" padding of any total.
 *   not yet (HLRT_UNSUPPORTED): im2col/col2im with a stride above 1;
 *   collectives other than sums of FP32, BF16 or INT32.
 */

#ifdef __cplusplus
}
#endif

#endif /* HLRT_H */
