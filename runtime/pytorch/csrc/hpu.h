// SPDX-License-Identifier: MIT
/*
 * The hpu bridge: PyTorch's HPU device on libhlrt. The C++ here only
 * translates between ATen and libhlrt's C API (hlrt.h): device memory,
 * copies, and aten ops as libhlrt graphs compiled into recipes.
 *
 * An HPU tensor's data pointer is its device address (never dereferenced
 * on the host).
 */
#ifndef HPU_BRIDGE_H
#define HPU_BRIDGE_H

#include <ATen/ATen.h>
#include <c10/core/Allocator.h>

#include <cstdint>
#include <string>

#include "hlrt.h"

namespace hpu {

/* Throws a c10::Error with the runtime's message when st is not success. */
void check(hlrt_status st, const char *what);

/* The current device, acquired on first use, and its stream. */
hlrt_device *device();
hlrt_stream *stream();
int current_index();
void set_current_index(int index);
int device_count();
/* Wait for the work and release the devices (at exit). */
void release_devices();
/* Wait for every queued launch and copy. */
void synchronize();

/*
 * hlrt_launch on the stream; when the device's sync objects run out, the
 * op recipes other than r are unloaded first (hpu_ops.cpp).
 */
hlrt_status launch_recipe(hlrt_recipe *r, const struct hlrt_tensor_binding *b, size_t n,
			  uint64_t ws);

/* Lazy mode: run the ops recorded so far (hpu_ops.cpp); a no-op when none. */
void flush_pending();
/*
 * dst (contiguous) = src, a permutation of a contiguous FP32 tensor's
 * dims (a transpose or permute view), by a transpose on the device;
 * false when src is not such a view (hpu_ops_nn.cpp).
 */
bool copy_permuted(const at::Tensor &src, const at::Tensor &dst);

/* The caching allocator on device memory. */
c10::Allocator *allocator();
struct MemStats {
	int64_t limit, in_use, max_in_use, num_allocs, num_frees, active_allocs,
		max_alloc_size;
};
MemStats memory_stats();
void reset_peak_memory_stats();

/*
 * INT64 tensors are held as INT32 on the device, as Gaudi's bridge does:
 * element i of the storage at 4 * i (the storage keeps PyTorch's size);
 * copies to and from the host convert.
 */
inline int64_t device_element_size(const at::Tensor &t)
{
	return t.scalar_type() == at::kLong ? 4 : t.element_size();
}

inline uint64_t addr_of(const at::Tensor &t)
{
	return reinterpret_cast<uint64_t>(t.storage().data()) +
	       t.storage_offset() * device_element_size(t);
}

/*
 * With HLRT_LOG_DEVICE_PLACEMENT=1: the line of an op that ran on the CPU,
 * once per op ("aten/eq.Tensor: (Equal): /device:CPU:0"); the runtime's
 * compile prints those of the ops run on the device.
 */
void log_placement(const std::string &op);

/*
 * Inside autocast: whether Habana's lists (LOWER_LIST, FP32_LIST) run the
 * aten op in BF16 (its operands cast, FP32 accumulation and result).
 */
bool autocast_lowers(const std::string &op);

} // namespace hpu

#endif
