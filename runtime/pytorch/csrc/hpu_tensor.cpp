// SPDX-License-Identifier: MIT
/*
 * HPU tensors: creation on the caching allocator, copies between the host
 * and the device by DMA (strided copies done here: ATen's generic copy
 * would call back into the device for them), resize and the view ops, and
 * the boxed CPU fallback every other aten op takes.
 */
#include <ATen/EmptyTensor.h>
#include <ATen/native/CPUFallback.h>
#include <torch/library.h>

#include "hpu.h"
#include "hpu_fallback.h"

#include <ATen/ops/_reshape_alias_native.h>
#include <ATen/ops/as_strided_native.h>
#include <ATen/ops/view_native.h>

namespace hpu {

namespace {

constexpr c10::DispatchKeySet kHpuKeys{c10::DispatchKey::HPU};

/* Elements of storage a (possibly strided) tensor spans from its first element. */
int64_t span_elems(const at::Tensor &t)
{
	int64_t n = 1;

	for (int64_t i = 0; i < t.dim(); i++)
		n += (t.size(i) - 1) * t.stride(i);
	return n;
}

/*
 * The device storage a tensor spans, read to a host buffer of its dtype
 * (INT64 converted from the INT32 the device holds).
 */
at::Tensor read_span(const at::Tensor &t)
{
	int64_t n = span_elems(t);
	bool i64 = t.scalar_type() == at::kLong;
	at::Tensor buf = at::empty({n}, t.options().device(at::kCPU).dtype(i64 ? at::kInt :
									  t.scalar_type()));
	check(hlrt_memcpy_d2h_async(stream(), buf.data_ptr(), addr_of(t),
				    n * device_element_size(t)),
	      "copying to the host");
	synchronize();
	return i64 ? buf.to(at::kLong) : buf;
}

/* A host buffer of t's span written back to the device. */
void write_span(const at::Tensor &t, const at::Tensor &buf)
{
	at::Tensor b = t.scalar_type() == at::kLong ? buf.to(at::kInt).contiguous() : buf;
	/* From pageable memory the runtime completes the copy before returning. */
	check(hlrt_memcpy_h2d_async(stream(), addr_of(t), b.data_ptr(),
				    b.numel() * device_element_size(t)),
	      "copying to the device");
}

/* The device tensor's span read to the host, viewed with its strides. */
at::Tensor read_to_host(const at::Tensor &t)
{
	if (t.numel() == 0)
		return at::empty(t.sizes(), t.options().device(at::kCPU));
	return read_span(t).as_strided(t.sizes(), t.strides(), 0);
}

/* Write host data (dst's dtype, broadcastable to it) into a device tensor. */
void write_from_host(const at::Tensor &dst, const at::Tensor &src)
{
	if (dst.numel() == 0)
		return;
	if (dst.is_contiguous()) {
		write_span(dst, src.expand(dst.sizes()).contiguous());
		return;
	}
	/* Strided destination: update its span on the host, write it back. */
	at::Tensor span = read_span(dst);
	span.as_strided(dst.sizes(), dst.strides(), 0).copy_(src);
	write_span(dst, span);
	synchronize();
}

at::Tensor hpu_empty(at::IntArrayRef size, c10::optional<at::ScalarType> dtype,
		     c10::optional<at::Layout> layout, c10::optional<at::Device> dev,
		     c10::optional<bool> pin_memory, c10::optional<at::MemoryFormat> memory_format)
{
	(void)layout;
	(void)pin_memory;
	if (dev && dev->has_index())
		set_current_index(dev->index());
	return at::detail::empty_generic(size, allocator(), kHpuKeys,
					 c10::dtype_or_default(dtype), memory_format);
}

at::Tensor hpu_empty_strided(at::IntArrayRef size, at::IntArrayRef stride,
			     c10::optional<at::ScalarType> dtype, c10::optional<at::Layout> layout,
			     c10::optional<at::Device> dev, c10::optional<bool> pin_memory)
{
	(void)layout;
	(void)pin_memory;
	if (dev && dev->has_index())
		set_current_index(dev->index());
	return at::detail::empty_strided_generic(size, stride, allocator(), kHpuKeys,
						 c10::dtype_or_default(dtype));
}

at::Tensor hpu_copy_from(const at::Tensor &self, const at::Tensor &dst, bool non_blocking)
{
	(void)non_blocking;
	bool src_dev = self.device().type() == c10::DeviceType::HPU;
	bool dst_dev = dst.device().type() == c10::DeviceType::HPU;

	if (src_dev && dst_dev && copy_permuted(self, dst))
		return dst;	/* recorded with the ops around it */
	flush_pending();
	if (src_dev && !dst_dev) {
		dst.copy_(read_to_host(self));
	} else if (!src_dev && dst_dev) {
		write_from_host(dst, self.to(dst.scalar_type()));
	} else if (src_dev && dst_dev && self.scalar_type() == dst.scalar_type() &&
		   self.sizes() == dst.sizes() && self.is_contiguous() && dst.is_contiguous()) {
		if (dst.numel())
			check(hlrt_memcpy_d2d_async(stream(), addr_of(dst), addr_of(self),
						    dst.numel() * device_element_size(dst)),
			      "copying on the device");
	} else {
		write_from_host(dst, read_to_host(self).to(dst.scalar_type()));
	}
	return dst;
}

at::Tensor hpu_copy_from_and_resize(const at::Tensor &self, const at::Tensor &dst)
{
	dst.resize_(self.sizes());
	return hpu_copy_from(self, dst, false);
}

const at::Tensor &hpu_resize_(const at::Tensor &self, at::IntArrayRef size,
			      c10::optional<at::MemoryFormat> memory_format)
{
	(void)memory_format;
	flush_pending();
	c10::TensorImpl *impl = self.unsafeGetTensorImpl();
	impl->set_sizes_contiguous(size);
	uint64_t need = (impl->storage_offset() + impl->numel()) * self.element_size();
	c10::StorageImpl *storage = impl->storage().unsafeGetStorageImpl();
	if (need > storage->nbytes()) {
		c10::DataPtr fresh = allocator()->allocate(need);
		uint64_t old = reinterpret_cast<uint64_t>(storage->data());
		if (storage->nbytes() && old)
			check(hlrt_memcpy_d2d_async(stream(), reinterpret_cast<uint64_t>(fresh.get()),
						    old, storage->nbytes()),
			      "copying on the device");
		storage->set_data_ptr_noswap(std::move(fresh));
		storage->set_nbytes(need);
	}
	return self;
}

/* loss.item(): a read back to the host, not a fallback op. */
at::Scalar hpu_local_scalar_dense(const at::Tensor &self)
{
	flush_pending();
	return at::_local_scalar_dense(read_to_host(self));
}

} // namespace

at::Tensor to_host(const at::Tensor &t)
{
	flush_pending();
	return read_to_host(t).clone();
}

TORCH_LIBRARY_IMPL(aten, HPU, m)
{
	m.impl("empty.memory_format", hpu_empty);
	m.impl("empty_strided", hpu_empty_strided);
	m.impl("_copy_from", hpu_copy_from);
	m.impl("_copy_from_and_resize", hpu_copy_from_and_resize);
	m.impl("resize_", hpu_resize_);
	m.impl("_local_scalar_dense", hpu_local_scalar_dense);
	m.impl("as_strided", at::native::as_strided_tensorimpl);
	m.impl("view", at::native::view);
	m.impl("_reshape_alias", at::native::_reshape_alias);
}

void fallback(const c10::OperatorHandle &op, torch::jit::Stack *stack)
{
	flush_pending();
	const auto &name = op.schema().operator_name();
	std::string base = name.name.substr(name.name.find("::") + 2);
	log_placement(name.overload_name.empty() ? base : base + "." + name.overload_name);
	at::native::cpu_fallback(op, stack);
}

TORCH_LIBRARY_IMPL(_, HPU, m)
{
	m.fallback(torch::CppFunction::makeFromBoxedFunction<&fallback>());
}

} // namespace hpu
