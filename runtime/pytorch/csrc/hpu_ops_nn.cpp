// SPDX-License-Identifier: MIT
/*
 * The ops a classifier's training step and evaluation add to the matrix
 * products and elementwise ops of hpu_ops.cpp, on the device: log_softmax
 * and softmax with their gradients, nll_loss (cross_entropy's second half)
 * and mse_loss with theirs, sigmoid, tanh and gelu, pow 2 (square), fill_
 * (ones_like seeding backward), argmax, eq and where, cat, and a
 * contiguous copy of a permuted view. Each maps onto libhlrt graph ops; inputs they
 * do not take go to the CPU fallback.
 */
#include <ATen/native/CPUFallback.h>
#include <ATen/Operators.h>
#include <torch/library.h>

#include <algorithm>
#include <numeric>

#include "hpu.h"
#include "hpu_fallback.h"
#include "hpu_graph.h"

namespace hpu {

namespace {

std::string name_of(const char *op, const char *part = nullptr)
{
	return std::string("aten/") + op + (part ? std::string("/") + part : "");
}

bool last_dim(const at::Tensor &x, int64_t dim)
{
	return x.dim() >= 1 && c10::maybe_wrap_dim(dim, x.dim()) == x.dim() - 1;
}

/* An op of FP32 inputs and one FP32 output of out's shape, from one builder. */
at::Tensor record(const char *op, const std::vector<at::Tensor> &ins, at::Tensor out,
		  const std::string &params,
		  std::function<hlrt_tensor *(hlrt_graph *, const std::vector<hlrt_tensor *> &)> f)
{
	std::vector<Arg> a;
	for (const at::Tensor &t : ins)
		a.push_back(arg(t));
	launch(op, a, {arg(out)}, params,
	       [=](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
		       return std::vector<hlrt_tensor *>{f(g, in)};
	       });
	return out;
}

/* ---- softmax and log_softmax along the last dimension ------------------------- */

at::Tensor hpu_log_softmax(const at::Tensor &self, int64_t dim, bool half_to_float)
{
	if (!unary_ok(self) || !last_dim(self, dim) || half_to_float)
		return at::native::call_fallback_fn<&fallback, ATEN_OP(_log_softmax)>::call(
			self, dim, half_to_float);
	return record("_log_softmax", {self}, new_like(self, self.sizes()), "",
		      [](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
			      return node(g, "log_softmax_fwd_f32", {in[0]}, nullptr, 0,
					  name_of("_log_softmax"));
		      });
}

at::Tensor hpu_log_softmax_backward(const at::Tensor &grad, const at::Tensor &output, int64_t dim,
				    at::ScalarType input_dtype)
{
	if (!unary_ok(grad) || !unary_ok(output) || grad.sizes() != output.sizes() ||
	    !last_dim(output, dim) || input_dtype != at::kFloat)
		return at::native::call_fallback_fn<&fallback,
						    ATEN_OP(_log_softmax_backward_data)>::call(
			grad, output, dim, input_dtype);
	return record("_log_softmax_backward_data", {grad, output}, new_like(grad, grad.sizes()), "",
		      [](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
			      return node(g, "log_softmax_bwd_f32", {in[0], in[1]}, nullptr, 0,
					  name_of("_log_softmax_backward_data"));
		      });
}

at::Tensor hpu_softmax(const at::Tensor &self, int64_t dim, bool half_to_float)
{
	if (!unary_ok(self) || !last_dim(self, dim) || half_to_float)
		return at::native::call_fallback_fn<&fallback, ATEN_OP(_softmax)>::call(
			self, dim, half_to_float);
	return record("_softmax", {self}, new_like(self, self.sizes()), "",
		      [](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
			      return node(g, "softmax_fwd_f32", {in[0]}, nullptr, 0,
					  name_of("_softmax"));
		      });
}

/* dx = y * (dy - sum(dy * y)) along the last dimension: four libhlrt nodes. */
at::Tensor hpu_softmax_backward(const at::Tensor &grad, const at::Tensor &output, int64_t dim,
				at::ScalarType input_dtype)
{
	if (!unary_ok(grad) || !unary_ok(output) || grad.sizes() != output.sizes() ||
	    !last_dim(output, dim) || input_dtype != at::kFloat)
		return at::native::call_fallback_fn<&fallback,
						    ATEN_OP(_softmax_backward_data)>::call(
			grad, output, dim, input_dtype);
	const char *op = "_softmax_backward_data";
	return record(op, {grad, output}, new_like(grad, grad.sizes()), "",
		      [=](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
			      struct hlrt_reduce_params p = {-1, 1};
			      hlrt_tensor *gy = node(g, "mul_f32", {in[0], in[1]}, nullptr, 0,
						     name_of(op, "Mul"));
			      hlrt_tensor *s = node(g, "reduce_sum_f32", {gy}, &p, sizeof(p),
						    name_of(op, "Sum"));
			      hlrt_tensor *d = node(g, "sub_f32", {in[0], s}, nullptr, 0,
						    name_of(op, "Sub"));
			      return node(g, "mul_f32", {in[1], d}, nullptr, 0,
					  name_of(op, "Mul_1"));
		      });
}

/* ---- nll_loss: mean or sum over the batch, no class weights --------------- */

enum { REDUCTION_NONE = 0, REDUCTION_MEAN = 1, REDUCTION_SUM = 2 };

/* Labels as the device holds them: INT64 (held as INT32) or INT32, one per row. */
bool labels_ok(const at::Tensor &t, int64_t rows)
{
	return t.device().type() == c10::DeviceType::HPU &&
	       (t.scalar_type() == at::kLong || t.scalar_type() == at::kInt) && t.dim() == 1 &&
	       t.size(0) == rows && t.is_contiguous();
}

/*
 * A label equal to ignore_index counts for nothing; one outside the classes
 * is an error in PyTorch and gives an infinite loss here, so an ignore_index
 * that is a class falls back (the device would not tell the two apart).
 */
bool nll_ok(const at::Tensor &self, const at::Tensor &target,
	    const c10::optional<at::Tensor> &weight, int64_t reduction, int64_t ignore_index)
{
	return unary_ok(self) && self.dim() == 2 && labels_ok(target, self.size(0)) &&
	       !(weight && weight->defined()) &&
	       (reduction == REDUCTION_MEAN || reduction == REDUCTION_SUM) &&
	       (ignore_index < 0 || ignore_index >= self.size(1)) && ignore_index >= INT32_MIN;
}

std::tuple<at::Tensor, at::Tensor> hpu_nll_loss_forward(const at::Tensor &self,
							const at::Tensor &target,
							const c10::optional<at::Tensor> &weight,
							int64_t reduction, int64_t ignore_index)
{
	if (!nll_ok(self, target, weight, reduction, ignore_index))
		return at::native::call_fallback_fn<&fallback, ATEN_OP(nll_loss_forward)>::call(
			self, target, weight, reduction, ignore_index);
	at::Tensor loss = at::empty({}, self.options()), total = at::empty({}, self.options());
	struct hlrt_nll_params p = {(int32_t)ignore_index, (uint32_t)self.size(1)};
	bool mean = reduction == REDUCTION_MEAN;
	const char *op = "nll_loss_forward";
	launch(op, {arg(self), arg(target)}, {arg(loss), arg(total)},
	       std::to_string(reduction) + "," + std::to_string(ignore_index),
	       [=](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
		       struct hlrt_reduce_params r = {-1, 0};
		       std::vector<hlrt_tensor *> rows = node_outs(
			       g, "nll_loss_fwd_f32", {in[0], in[1]}, 2, &p, sizeof(p), name_of(op));
		       hlrt_tensor *sum = node(g, "reduce_sum_f32", {rows[0]}, &r, sizeof(r),
					       name_of(op, "Sum"));
		       hlrt_tensor *w = node(g, "reduce_sum_f32", {rows[1]}, &r, sizeof(r),
					     name_of(op, "TotalWeight"));
		       if (mean)
			       sum = node(g, "div_f32", {sum, w}, nullptr, 0, name_of(op, "Mean"));
		       return std::vector<hlrt_tensor *>{sum, w};
	       });
	return {loss, total};
}

at::Tensor hpu_nll_loss_backward(const at::Tensor &grad, const at::Tensor &self,
				 const at::Tensor &target, const c10::optional<at::Tensor> &weight,
				 int64_t reduction, int64_t ignore_index,
				 const at::Tensor &total_weight)
{
	if (!nll_ok(self, target, weight, reduction, ignore_index) || !unary_ok(grad) ||
	    grad.numel() != 1 || !unary_ok(total_weight) || total_weight.numel() != 1)
		return at::native::call_fallback_fn<&fallback, ATEN_OP(nll_loss_backward)>::call(
			grad, self, target, weight, reduction, ignore_index, total_weight);
	at::Tensor dx = new_like(self, self.sizes());
	struct hlrt_nll_params p = {(int32_t)ignore_index, (uint32_t)self.size(1)};
	bool mean = reduction == REDUCTION_MEAN;
	const char *op = "nll_loss_backward";
	launch(op, {arg_as(grad, {1}), arg(target), arg_as(total_weight, {1})}, {arg(dx)},
	       std::to_string(reduction) + "," + std::to_string(ignore_index) + "," +
		       std::to_string(self.size(1)),
	       [=](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
		       hlrt_tensor *s = in[0];
		       if (mean)
			       s = node(g, "div_f32", {s, in[2]}, nullptr, 0, name_of(op, "Mean"));
		       return std::vector<hlrt_tensor *>{node(g, "nll_loss_bwd_f32", {s, in[1]},
							     &p, sizeof(p), name_of(op))};
	       });
	return dx;
}

/* ---- mse_loss: mean or sum ------------------------------------------------- */

bool mse_ok(const at::Tensor &self, const at::Tensor &target, int64_t reduction)
{
	return unary_ok(self) && unary_ok(target) && self.sizes() == target.sizes() &&
	       (reduction == REDUCTION_MEAN || reduction == REDUCTION_SUM);
}

at::Tensor hpu_mse_loss(const at::Tensor &self, const at::Tensor &target, int64_t reduction)
{
	if (!mse_ok(self, target, reduction))
		return at::native::call_fallback_fn<&fallback, ATEN_OP(mse_loss)>::call(
			self, target, reduction);
	const char *op = "mse_loss";
	const char *guid = reduction == REDUCTION_MEAN ? "reduce_mean_f32" : "reduce_sum_f32";
	uint64_t n = self.numel();
	std::vector<Arg> ins = {arg_as(self, {n}), arg_as(target, {n})};
	at::Tensor out = at::empty({}, self.options());
	launch(op, ins, {arg(out)}, std::to_string(reduction),
	       [=](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
		       struct hlrt_reduce_params r = {-1, 0};
		       hlrt_tensor *d = node(g, "sub_f32", {in[0], in[1]}, nullptr, 0,
					     name_of(op, "Sub"));
		       hlrt_tensor *sq = node(g, "square_f32", {d}, nullptr, 0,
					      name_of(op, "Square"));
		       return std::vector<hlrt_tensor *>{
			       node(g, guid, {sq}, &r, sizeof(r), name_of(op, "Reduce"))};
	       });
	return out;
}

/* dx = (self - target) * (2 / n, or 2 for the sum) * dloss */
at::Tensor hpu_mse_loss_backward(const at::Tensor &grad, const at::Tensor &self,
				 const at::Tensor &target, int64_t reduction)
{
	if (!mse_ok(self, target, reduction) || !unary_ok(grad) || grad.numel() != 1)
		return at::native::call_fallback_fn<&fallback, ATEN_OP(mse_loss_backward)>::call(
			grad, self, target, reduction);
	const char *op = "mse_loss_backward";
	struct hlrt_scale_params sp = {reduction == REDUCTION_MEAN ? 2.0f / self.numel() : 2.0f};
	at::Tensor dx = new_like(self, self.sizes());
	launch(op, {arg_as(grad, {1}), arg(self), arg(target)}, {arg(dx)}, std::to_string(reduction),
	       [=](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
		       hlrt_tensor *d = node(g, "sub_f32", {in[1], in[2]}, nullptr, 0,
					     name_of(op, "Sub"));
		       d = node(g, "scale_f32", {d}, &sp, sizeof(sp), name_of(op, "Scale"));
		       return std::vector<hlrt_tensor *>{
			       node(g, "mul_f32", {d, in[0]}, nullptr, 0, name_of(op, "Mul"))};
	       });
	return dx;
}

/* ---- activations ------------------------------------------------------------ */

at::Tensor activation(const char *guid, const char *op, const at::Tensor &x)
{
	return record(op, {x}, new_like(x, x.sizes()), "",
		      [=](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
			      return node(g, guid, {in[0]}, nullptr, 0, name_of(op));
		      });
}

/* {dy, y} -> dx, y the forward's output (tanh, sigmoid) */
at::Tensor activation_grad(const char *guid, const char *op, const at::Tensor &dy,
			   const at::Tensor &y)
{
	return record(op, {dy, y}, new_like(dy, dy.sizes()), "",
		      [=](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
			      return node(g, guid, {in[0], in[1]}, nullptr, 0, name_of(op));
		      });
}

at::Tensor hpu_sigmoid(const at::Tensor &self)
{
	if (!unary_ok(self))
		return at::native::call_fallback_fn<&fallback, ATEN_OP(sigmoid)>::call(self);
	return activation("sigmoid_fwd_f32", "sigmoid", self);
}

at::Tensor hpu_tanh(const at::Tensor &self)
{
	if (!unary_ok(self))
		return at::native::call_fallback_fn<&fallback, ATEN_OP(tanh)>::call(self);
	return activation("tanh_fwd_f32", "tanh", self);
}

at::Tensor hpu_sigmoid_backward(const at::Tensor &grad, const at::Tensor &output)
{
	if (!unary_ok(grad) || !unary_ok(output) || grad.sizes() != output.sizes())
		return at::native::call_fallback_fn<&fallback, ATEN_OP(sigmoid_backward)>::call(
			grad, output);
	return activation_grad("sigmoid_bwd_f32", "sigmoid_backward", grad, output);
}

at::Tensor hpu_tanh_backward(const at::Tensor &grad, const at::Tensor &output)
{
	if (!unary_ok(grad) || !unary_ok(output) || grad.sizes() != output.sizes())
		return at::native::call_fallback_fn<&fallback, ATEN_OP(tanh_backward)>::call(
			grad, output);
	return activation_grad("tanh_bwd_f32", "tanh_backward", grad, output);
}

/* gelu's two forms, as libhlrt's enum; false for a form it does not know. */
bool gelu_form(c10::string_view approximate, struct hlrt_gelu_params *p)
{
	if (approximate == "none")
		p->approximate = HLRT_GELU_NONE;
	else if (approximate == "tanh")
		p->approximate = HLRT_GELU_TANH;
	else
		return false;
	return true;
}

at::Tensor hpu_gelu(const at::Tensor &self, c10::string_view approximate)
{
	struct hlrt_gelu_params p = {};
	if (!unary_ok(self) || !gelu_form(approximate, &p))
		return at::native::call_fallback_fn<&fallback, ATEN_OP(gelu)>::call(self,
										     approximate);
	return record("gelu", {self}, new_like(self, self.sizes()), std::string(approximate),
		      [=](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
			      return node(g, "gelu_fwd_f32", {in[0]}, &p, sizeof(p),
					  name_of("gelu"));
		      });
}

/* {dy, x} -> dx, x the forward's input */
at::Tensor hpu_gelu_backward(const at::Tensor &grad, const at::Tensor &self,
			     c10::string_view approximate)
{
	struct hlrt_gelu_params p = {};
	if (!unary_ok(grad) || !unary_ok(self) || grad.sizes() != self.sizes() ||
	    !gelu_form(approximate, &p))
		return at::native::call_fallback_fn<&fallback, ATEN_OP(gelu_backward)>::call(
			grad, self, approximate);
	return record("gelu_backward", {grad, self}, new_like(grad, grad.sizes()),
		      std::string(approximate),
		      [=](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
			      return node(g, "gelu_bwd_f32", {in[0], in[1]}, &p, sizeof(p),
					  name_of("gelu_backward"));
		      });
}

/* x ** 2 (torch.square) and x ** 1 (its gradient's power) */
at::Tensor hpu_pow(const at::Tensor &self, const at::Scalar &exponent)
{
	double e = exponent.toDouble();
	if (!unary_ok(self) || (e != 2.0 && e != 1.0))
		return at::native::call_fallback_fn<&fallback, ATEN_OP2(pow, Tensor_Scalar)>::call(
			self, exponent);
	if (e == 1.0) {
		struct hlrt_scale_params sp = {1.0f};
		return record("pow.Tensor_Scalar", {self}, new_like(self, self.sizes()), "1",
			      [=](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
				      return node(g, "scale_f32", {in[0]}, &sp, sizeof(sp),
						  name_of("pow.Tensor_Scalar"));
			      });
	}
	return activation("square_f32", "pow.Tensor_Scalar", self);
}

/*
 * fill_ (ones_like seeding backward, full): the value as a device
 * constant repeated over the tensor, so lazy mode records it.
 */
at::Tensor &hpu_fill_(at::Tensor &self, const at::Scalar &value)
{
	if (!unary_ok(self))
		return at::native::call_fallback_fn<&fallback, ATEN_OP2(fill_, Scalar)>::call(
			self, value);
	at::Tensor c = device_constant(value.toFloat());
	struct hlrt_broadcast_params bp = {0, 1.0f, (uint64_t)self.numel()};
	launch("fill_.Scalar", {arg(c)}, {arg_as(self, {(uint64_t)self.numel(), 1})},
	       std::to_string(self.numel()),
	       [=](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
		       return std::vector<hlrt_tensor *>{node(g, "broadcast_f32", {in[0]}, &bp,
							      sizeof(bp), name_of("fill_"))};
	       },
	       true);
	return self;
}

/* ---- argmax, eq, where ---------------------------------------------------- */

/* Along the last dimension of a matrix; the INT64 result held as INT32. */
at::Tensor hpu_argmax(const at::Tensor &self, c10::optional<int64_t> dim, bool keepdim)
{
	if (!unary_ok(self) || self.dim() != 2 || !dim || !last_dim(self, *dim) || keepdim)
		return at::native::call_fallback_fn<&fallback, ATEN_OP(argmax)>::call(self, dim,
										       keepdim);
	at::Tensor out = at::empty({self.size(0)}, self.options().dtype(at::kLong));
	struct hlrt_argmax_params p = {-1};
	launch("argmax", {arg(self)}, {arg(out)}, "",
	       [=](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
		       return std::vector<hlrt_tensor *>{
			       node(g, "argmax_i32", {in[0]}, &p, sizeof(p), name_of("argmax"))};
	       });
	return out;
}

/* Two FP32, or two integer (INT64 held as INT32, INT32) device tensors that broadcast. */
bool compare_ok(const at::Tensor &a, const at::Tensor &b, bool *f32)
{
	auto integer = [](const at::Tensor &t) {
		return t.scalar_type() == at::kLong || t.scalar_type() == at::kInt;
	};
	for (const at::Tensor *t : {&a, &b})
		if (t->device().type() != c10::DeviceType::HPU || !t->is_contiguous() ||
		    !t->numel() || t->dim() > HLRT_MAX_DIMS)
			return false;
	*f32 = a.scalar_type() == at::kFloat && b.scalar_type() == at::kFloat;
	if (!*f32 && !(integer(a) && integer(b)))
		return false;
	at::infer_size_dimvector(a.sizes(), b.sizes());		/* throws if they do not */
	return true;
}

/* a == b as bool (UINT8 on the device) */
at::Tensor hpu_eq(const at::Tensor &self, const at::Tensor &other)
{
	bool f32 = false;
	if (!compare_ok(self, other, &f32))
		return at::native::call_fallback_fn<&fallback, ATEN_OP2(eq, Tensor)>::call(self,
											 other);
	at::Tensor out = at::empty(at::infer_size_dimvector(self.sizes(), other.sizes()),
				   self.options().dtype(at::kBool));
	const char *guid = f32 ? "equal_f32" : "equal_i32";
	launch("eq.Tensor", {arg(self), arg(other)}, {arg(out)}, "",
	       [=](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
		       hlrt_tensor *c = node(g, guid, {in[0], in[1]}, nullptr, 0, name_of("eq"));
		       return std::vector<hlrt_tensor *>{
			       node(g, "cast_i32_to_u8", {c}, nullptr, 0, name_of("eq", "Cast"))};
	       });
	return out;
}

at::Tensor hpu_where(const at::Tensor &cond, const at::Tensor &self, const at::Tensor &other)
{
	bool ok = cond.device().type() == c10::DeviceType::HPU && cond.scalar_type() == at::kBool &&
		  cond.is_contiguous() && cond.numel() && unary_ok(self) && unary_ok(other) &&
		  cond.dim() <= HLRT_MAX_DIMS && self.dim() <= HLRT_MAX_DIMS &&
		  other.dim() <= HLRT_MAX_DIMS;
	if (!ok)
		return at::native::call_fallback_fn<&fallback, ATEN_OP2(where, self)>::call(
			cond, self, other);
	at::Tensor out = new_like(self, at::infer_size_dimvector(
						cond.sizes(),
						at::infer_size_dimvector(self.sizes(), other.sizes())));
	launch("where.self", {arg(cond), arg(self), arg(other)}, {arg(out)}, "",
	       [=](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
		       hlrt_tensor *c = node(g, "cast_u8_to_i32", {in[0]}, nullptr, 0,
					     name_of("where", "Cast"));
		       return std::vector<hlrt_tensor *>{node(g, "where_f32", {c, in[1], in[2]},
							      nullptr, 0, name_of("where"))};
	       });
	return out;
}

/* ---- cat ------------------------------------------------------------------- */

/*
 * cat of contiguous FP32 tensors of up to 5 dimensions: libhlrt's
 * concat_f32 (a strided copy of each input into its place), 8 inputs a
 * node, a longer list joined in steps. Its gradient is PyTorch's: views of
 * dy, copied where an op needs them contiguous.
 */
at::Tensor hpu_cat(const at::ITensorListRef &tensors, int64_t dim)
{
	std::vector<at::Tensor> ins;
	for (const at::Tensor &t : tensors)
		ins.push_back(t);
	bool ok = !ins.empty() && ins[0].dim() >= 1 && ins[0].dim() <= HLRT_MAX_DIMS;
	int64_t d = ok ? c10::maybe_wrap_dim(dim, ins[0].dim()) : 0, along = 0;
	for (const at::Tensor &t : ins) {
		ok = ok && unary_ok(t) && t.dim() == ins[0].dim();
		for (int64_t i = 0; ok && i < t.dim(); i++)
			ok = i == d || t.size(i) == ins[0].size(i);
		along += ok ? t.size(d) : 0;
	}
	if (!ok)
		return at::native::call_fallback_fn<&fallback, ATEN_OP(cat)>::call(tensors, dim);
	std::vector<int64_t> sizes = ins[0].sizes().vec();
	sizes[d] = along;
	struct hlrt_concat_params p = {};
	p.axis = (uint32_t)d;
	return record("cat", ins, new_like(ins[0], sizes), std::to_string(d),
		      [=](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
			      std::vector<hlrt_tensor *> rest(in);
			      hlrt_tensor *y = nullptr;
			      while (!y) {
				      size_t n = std::min<size_t>(rest.size(), HLRT_MAX_CONCAT);
				      hlrt_tensor *t = node(g, "concat_f32",
							    {rest.begin(), rest.begin() + n}, &p,
							    sizeof(p), name_of("cat"));
				      rest.erase(rest.begin(), rest.begin() + n);
				      if (rest.empty())
					      y = t;
				      else
					      rest.insert(rest.begin(), t);
			      }
			      return y;
		      });
}

} // namespace

bool copy_permuted(const at::Tensor &src, const at::Tensor &dst)
{
	if (!is_f32(src) || !is_f32(dst) || !dst.is_contiguous() || src.sizes() != dst.sizes() ||
	    src.is_contiguous() || !src.numel() || src.dim() > HLRT_MAX_DIMS)
		return false;
	/* The stored order: src's dims by decreasing stride. */
	int64_t nd = src.dim();
	std::vector<int64_t> order(nd);
	std::iota(order.begin(), order.end(), 0);
	std::stable_sort(order.begin(), order.end(),
			 [&](int64_t a, int64_t b) { return src.stride(a) > src.stride(b); });
	std::vector<uint64_t> base(nd);
	int64_t expect = 1;
	for (int64_t i = nd - 1; i >= 0; i--) {
		int64_t d = order[i];
		if (src.size(d) != 1 && src.stride(d) != expect)
			return false;
		expect *= src.size(d);
		base[i] = src.size(d);
	}
	/* dst dim i is stored dim perm[i] */
	struct hlrt_transpose_params tp = {};
	std::string key;
	for (int64_t i = 0; i < nd; i++) {
		tp.perm[order[i]] = i;
		key += std::to_string(order[i]) + ",";
	}
	launch("permute", {arg_as(src, base)}, {arg(dst)}, key,
	       [=](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
		       return std::vector<hlrt_tensor *>{node(g, "transpose_f32", {in[0]}, &tp,
							      sizeof(tp), name_of("contiguous"))};
	       },
	       true);
	return true;
}

TORCH_LIBRARY_IMPL(aten, HPU, m)
{
	m.impl("_log_softmax", hpu_log_softmax);
	m.impl("_log_softmax_backward_data", hpu_log_softmax_backward);
	m.impl("_softmax", hpu_softmax);
	m.impl("_softmax_backward_data", hpu_softmax_backward);
	m.impl("nll_loss_forward", hpu_nll_loss_forward);
	m.impl("nll_loss_backward", hpu_nll_loss_backward);
	m.impl("mse_loss", hpu_mse_loss);
	m.impl("mse_loss_backward", hpu_mse_loss_backward);
	m.impl("sigmoid", hpu_sigmoid);
	m.impl("tanh", hpu_tanh);
	m.impl("sigmoid_backward", hpu_sigmoid_backward);
	m.impl("tanh_backward", hpu_tanh_backward);
	m.impl("gelu", hpu_gelu);
	m.impl("gelu_backward", hpu_gelu_backward);
	m.impl("pow.Tensor_Scalar", hpu_pow);
	m.impl("fill_.Scalar", hpu_fill_);
	m.impl("argmax", hpu_argmax);
	m.impl("eq.Tensor", hpu_eq);
	m.impl("where.self", hpu_where);
	m.impl("cat", hpu_cat);
}

} // namespace hpu
