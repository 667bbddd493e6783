// SPDX-License-Identifier: MIT
/*
 * How the bridge's device ops are recorded (hpu_ops.cpp): an op names its
 * input and output tensors (Arg) and a builder that adds its libhlrt nodes
 * to a graph; launch() runs it at once (eager mode) or records it for the
 * next flush (lazy mode). The op files (hpu_ops*.cpp) use these helpers.
 */
#ifndef HPU_GRAPH_H
#define HPU_GRAPH_H

#include <functional>
#include <string>
#include <vector>

#include "hpu.h"

namespace hpu {

/* A tensor as a graph sees it: device address, shape, dtype on the device. */
struct Arg {
	uint64_t addr;
	std::vector<uint64_t> dims;
	at::Tensor keep;	/* holds the memory until the op has run */
	hlrt_dtype dtype;

	uint64_t bytes() const;
};

using Builder = std::function<std::vector<hlrt_tensor *>(hlrt_graph *,
							 const std::vector<hlrt_tensor *> &)>;

/*
 * Run an op on the device (eager) or record it (lazy). outs are bound to
 * what the builder returns, in order. in_place: outs[0] is also an input
 * (an update like add_): what is recorded runs first if any recorded op
 * reads that memory.
 */
void launch(const std::string &op, const std::vector<Arg> &ins, const std::vector<Arg> &outs,
	    const std::string &params, const Builder &build, bool in_place = false);

/* One node with one output (NULL: inferred) in the graph. */
hlrt_tensor *node(hlrt_graph *g, const char *guid, std::vector<hlrt_tensor *> in,
		  const void *params, size_t size, const std::string &name);
/* One node, all its outputs. */
std::vector<hlrt_tensor *> node_outs(hlrt_graph *g, const char *guid,
				     std::vector<hlrt_tensor *> in, uint32_t n_out,
				     const void *params, size_t size, const std::string &name);
/* A reshape node (a view: no work). */
hlrt_tensor *reshape(hlrt_graph *g, hlrt_tensor *t, const std::vector<uint64_t> &dims,
		     const std::string &name);

/* The device dtype of a tensor: FP32, INT32 (also INT64, held as INT32), UINT8 (bool). */
bool device_dtype(const at::Tensor &t, hlrt_dtype *dt);
bool is_f32(const at::Tensor &t);
std::vector<uint64_t> udims(at::IntArrayRef s);
Arg arg(const at::Tensor &t);
/* t seen with other dims (same memory, as many elements). */
Arg arg_as(const at::Tensor &t, const std::vector<uint64_t> &dims);
/* A contiguous HPU FP32 tensor with elements. */
bool unary_ok(const at::Tensor &x);
at::Tensor new_like(const at::Tensor &t, at::IntArrayRef sizes);
/* A 1-element FP32 device tensor holding v, uploaded once per value. */
at::Tensor device_constant(float v);

} // namespace hpu

#endif
