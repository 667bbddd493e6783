// SPDX-License-Identifier: MIT
/*
 * The ops of convolutional networks on the device: conv2d and its
 * gradients (convolution_overrideable, the entry PyTorch gives backends of
 * their own; BF16 operands inside autocast), max_pool2d (any window, one
 * stride, padding) and avg_pool2d (windows that tile the input) and their
 * gradients, batch_norm (training and eval) with its gradient, and
 * dropout. PyTorch's tensors are NCHW; libhlrt's convolution, pooling and
 * batch norm are NHWC (channels last), so the graph brackets them with
 * transposes, which lazy mode records with the rest of the step. Inputs
 * they do not take run on the CPU.
 */
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/native/CPUFallback.h>
#include <ATen/Operators.h>
#include <ATen/ops/dropout_native.h>
#include <ATen/ops/max_pool2d_native.h>
#include <torch/autograd.h>
#include <torch/library.h>

#include <limits>

#include "hpu.h"
#include "hpu_fallback.h"
#include "hpu_graph.h"

namespace hpu {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

const std::vector<uint32_t> kToNHWC = {0, 2, 3, 1}, kToNCHW = {0, 3, 1, 2};

hlrt_tensor *transpose(hlrt_graph *g, hlrt_tensor *t, const std::vector<uint32_t> &perm,
		       const std::string &name)
{
	struct hlrt_transpose_params tp = {};
	for (size_t i = 0; i < perm.size(); i++)
		tp.perm[i] = perm[i];
	return node(g, "transpose_f32", {t}, &tp, sizeof(tp), name);
}

std::string ints(at::IntArrayRef v)
{
	std::string s;
	for (int64_t x : v)
		s += std::to_string(x) + ",";
	return s;
}

std::string name_of(const char *op, const char *part)
{
	return std::string("aten/") + op + "/" + part;
}

/* ---- convolution ---------------------------------------------------------- */

/* A convolution's operand, cast to BF16 when autocast lowers the op. */
hlrt_tensor *operand(hlrt_graph *g, hlrt_tensor *t, bool bf16, const std::string &name)
{
	return bf16 ? node(g, "cast_f32_to_bf16", {t}, nullptr, 0, name) : t;
}

bool conv_ok(const at::Tensor &x, const at::Tensor &w, at::IntArrayRef stride,
	     at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed, int64_t groups)
{
	return unary_ok(x) && unary_ok(w) && x.dim() == 4 && w.dim() == 4 &&
	       x.size(1) == w.size(1) && groups == 1 && !transposed && stride.size() == 2 &&
	       padding.size() == 2 && dilation.size() == 2 && dilation[0] == 1 &&
	       dilation[1] == 1;
}

struct hlrt_conv_params conv_params(const at::Tensor &w, at::IntArrayRef stride,
				    at::IntArrayRef padding)
{
	struct hlrt_conv_params p = {};
	p.kernel_h = w.size(2);
	p.kernel_w = w.size(3);
	p.stride_h = stride[0];
	p.stride_w = stride[1];
	p.pad_h = padding[0];
	p.pad_w = padding[1];
	return p;
}

at::Tensor cpu_of(const at::Tensor &t)
{
	return t.defined() ? t.cpu() : t;
}

at::Tensor hpu_of(const at::Tensor &t)
{
	return t.defined() ? t.to(c10::Device(c10::DeviceType::HPU, current_index())) : t;
}

at::Tensor hpu_convolution(const at::Tensor &x, const at::Tensor &w,
			   const c10::optional<at::Tensor> &bias, at::IntArrayRef stride,
			   at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed,
			   at::IntArrayRef output_padding, int64_t groups)
{
	bool has_bias = bias && bias->defined();
	if (!conv_ok(x, w, stride, padding, dilation, transposed, groups) ||
	    (has_bias && !unary_ok(*bias))) {
		/* The CPU's convolution, with the copies the fallback would make. */
		log_placement("convolution_overrideable");
		flush_pending();
		return hpu_of(at::convolution(cpu_of(x), cpu_of(w), bias ? cpu_of(*bias) : at::Tensor(),
					      stride, padding, dilation, transposed, output_padding,
					      groups));
	}
	struct hlrt_conv_params p = conv_params(w, stride, padding);
	int64_t oh = (x.size(2) + 2 * padding[0] - w.size(2)) / stride[0] + 1;
	int64_t ow = (x.size(3) + 2 * padding[1] - w.size(3)) / stride[1] + 1;
	at::Tensor y = new_like(x, {x.size(0), w.size(0), oh, ow});
	std::vector<Arg> ins = {arg(x), arg(w)};
	if (has_bias)
		ins.push_back(arg(*bias));
	const char *op = "convolution";
	bool bf16 = autocast_lowers(op);
	launch(op, ins, {arg(y)}, ints(stride) + ints(padding) + (bf16 ? "bf16" : ""),
	       [=](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
		       std::vector<hlrt_tensor *> c = {
			       operand(g, transpose(g, in[0], kToNHWC, name_of(op, "x")), bf16,
				       name_of(op, "cast0_bf16")),
			       operand(g, transpose(g, in[1], {2, 3, 1, 0}, name_of(op, "w")), bf16,
				       name_of(op, "cast1_bf16"))};
		       if (in.size() > 2)
			       c.push_back(in[2]);
		       hlrt_tensor *t = node(g, bf16 ? "conv2d_fwd_bf16" : "conv2d_fwd_f32", c, &p,
					     sizeof(p), name_of(op, "Conv2D"));
		       return std::vector<hlrt_tensor *>{transpose(g, t, kToNCHW, name_of(op, "y"))};
	       });
	return y;
}

std::tuple<at::Tensor, at::Tensor, at::Tensor>
hpu_convolution_backward(const at::Tensor &dy, const at::Tensor &x, const at::Tensor &w,
			 at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef dilation,
			 bool transposed, at::IntArrayRef output_padding, int64_t groups,
			 std::array<bool, 3> mask)
{
	/* dedx gives the smallest input that makes the output: x must be that one. */
	bool ok = conv_ok(x, w, stride, padding, dilation, transposed, groups) && unary_ok(dy) &&
		  dy.dim() == 4 &&
		  (dy.size(2) - 1) * stride[0] + w.size(2) - 2 * padding[0] == x.size(2) &&
		  (dy.size(3) - 1) * stride[1] + w.size(3) - 2 * padding[1] == x.size(3);
	if (!ok) {
		log_placement("convolution_backward_overrideable");
		flush_pending();
		std::vector<int64_t> bias_sizes = {w.size(0)};
		auto r = at::convolution_backward(cpu_of(dy), cpu_of(x), cpu_of(w), bias_sizes,
						  stride, padding, dilation, transposed,
						  output_padding, groups, mask);
		return {hpu_of(std::get<0>(r)), hpu_of(std::get<1>(r)), hpu_of(std::get<2>(r))};
	}
	struct hlrt_conv_params p = conv_params(w, stride, padding);
	at::Tensor dx, dw, db;
	std::vector<Arg> outs;
	if (mask[0]) {
		dx = new_like(x, x.sizes());
		outs.push_back(arg(dx));
	}
	if (mask[1]) {
		dw = new_like(w, w.sizes());
		outs.push_back(arg(dw));
	}
	if (mask[2]) {
		db = new_like(w, {w.size(0)});
		outs.push_back(arg(db));
	}
	if (outs.empty())
		return {dx, dw, db};
	uint64_t rows = dy.size(0) * dy.size(2) * dy.size(3), f = dy.size(1);
	const char *op = "convolution_backward";
	bool bf16 = autocast_lowers(op);
	launch(op, {arg(dy), arg(x), arg(w)}, outs,
	       ints(stride) + ints(padding) + std::to_string(mask[0]) + std::to_string(mask[1]) +
		       std::to_string(mask[2]) + (bf16 ? "bf16" : ""),
	       [=](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
		       std::vector<hlrt_tensor *> r;
		       hlrt_tensor *dyt = transpose(g, in[0], kToNHWC, name_of(op, "dy"));
		       hlrt_tensor *dyo = mask[0] || mask[1] ?
						  operand(g, dyt, bf16, name_of(op, "cast0_bf16")) :
						  dyt;
		       if (mask[0]) {
			       hlrt_tensor *wt = operand(g, transpose(g, in[2], {2, 3, 1, 0},
								       name_of(op, "w")),
							 bf16, name_of(op, "cast1_bf16"));
			       hlrt_tensor *t = node(g, bf16 ? "conv2d_dedx_bf16" : "conv2d_dedx_f32",
						     {dyo, wt}, &p, sizeof(p),
						     name_of(op, "Conv2DBackpropInput"));
			       r.push_back(transpose(g, t, kToNCHW, name_of(op, "dx")));
		       }
		       if (mask[1]) {
			       hlrt_tensor *xt = operand(g, transpose(g, in[1], kToNHWC,
								       name_of(op, "x")),
							 bf16, name_of(op, "cast2_bf16"));
			       hlrt_tensor *t = node(g, bf16 ? "conv2d_dedw_bf16" : "conv2d_dedw_f32",
						     {dyo, xt}, &p, sizeof(p),
						     name_of(op, "Conv2DBackpropFilter"));
			       r.push_back(transpose(g, t, {3, 2, 0, 1}, name_of(op, "dw")));
		       }
		       if (mask[2]) {
			       struct hlrt_reduce_params rp = {0, 0};
			       hlrt_tensor *m = reshape(g, dyt, {rows, f}, name_of(op, "rows"));
			       r.push_back(node(g, "reduce_sum_f32", {m}, &rp, sizeof(rp),
						name_of(op, "BiasGrad")));
		       }
		       return r;
	       });
	return {dx, dw, db};
}

/* ---- max pooling: any window, one stride for both axes, padding ------------ */

/* A max pooling the device takes: its window, stride and padding. */
struct Pool {
	int64_t kh, kw, s, ph, pw;
};

bool max_pool_ok(const at::Tensor &x, at::IntArrayRef kernel, at::IntArrayRef stride,
		 at::IntArrayRef padding, at::IntArrayRef dilation, bool ceil_mode, Pool *p)
{
	if (!unary_ok(x) || x.dim() != 4 || kernel.empty() || kernel.size() > 2 ||
	    stride.size() > 2 || padding.size() > 2 || dilation.size() > 2)
		return false;
	/* one number: both axes; no stride: the window's */
	p->kh = kernel[0];
	p->kw = kernel[kernel.size() > 1];
	int64_t sh = stride.empty() ? p->kh : stride[0];
	int64_t sw = stride.empty() ? p->kw : stride[stride.size() > 1];
	p->s = sh;
	p->ph = padding.empty() ? 0 : padding[0];
	p->pw = padding.empty() ? 0 : padding[padding.size() > 1];
	for (int64_t v : dilation)
		if (v != 1)
			return false;
	/* libhlrt's pooling has one stride; PyTorch pads at most half a window */
	if (sh != sw || sh < 1 || p->kh < 1 || p->kw < 1 || p->ph < 0 || p->pw < 0 ||
	    2 * p->ph > p->kh || 2 * p->pw > p->kw || x.size(2) + 2 * p->ph < p->kh ||
	    x.size(3) + 2 * p->pw < p->kw)
		return false;
	/* ceil_mode only where it gives the floor's size */
	return !ceil_mode || ((x.size(2) + 2 * p->ph - p->kh) % sh == 0 &&
			      (x.size(3) + 2 * p->pw - p->kw) % sw == 0);
}

std::string pool_key(const Pool &p)
{
	return std::to_string(p.kh) + "," + std::to_string(p.kw) + "," + std::to_string(p.s) +
	       "," + std::to_string(p.ph) + "," + std::to_string(p.pw);
}

/* x [N,H,W,C] padded by -inf (PyTorch's implicit padding), or cropped back (sign -1). */
hlrt_tensor *pad_or_crop(hlrt_graph *g, hlrt_tensor *t, const Pool &p, int sign,
			 const std::string &name)
{
	if (!p.ph && !p.pw)
		return t;
	struct hlrt_pad2d_params pp = {};
	pp.top = pp.bottom = (int32_t)(sign * p.ph);
	pp.left = pp.right = (int32_t)(sign * p.pw);
	pp.value = -std::numeric_limits<float>::infinity();
	return node(g, "pad2d_f32", {t}, &pp, sizeof(pp), name);
}

struct MaxPool : public torch::autograd::Function<MaxPool> {
	static at::Tensor forward(AutogradContext *ctx, const at::Tensor &x, int64_t kh,
				  int64_t kw, int64_t s, int64_t ph, int64_t pw)
	{
		Pool pl = {kh, kw, s, ph, pw};
		struct hlrt_pool_params p = {(uint32_t)kh, (uint32_t)kw, (uint32_t)s, (uint32_t)s};
		at::Tensor y = new_like(x, {x.size(0), x.size(1), (x.size(2) + 2 * ph - kh) / s + 1,
					    (x.size(3) + 2 * pw - kw) / s + 1});
		const char *op = "max_pool2d";
		launch(op, {arg(x)}, {arg(y)}, pool_key(pl),
		       [=](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
			       hlrt_tensor *t = transpose(g, in[0], kToNHWC, name_of(op, "x"));
			       t = pad_or_crop(g, t, pl, 1, name_of(op, "Pad"));
			       t = node(g, "maxpool2d_fwd_f32", {t}, &p, sizeof(p),
					name_of(op, "MaxPool"));
			       return std::vector<hlrt_tensor *>{
				       transpose(g, t, kToNCHW, name_of(op, "y"))};
		       });
		ctx->save_for_backward({x});
		ctx->saved_data["kh"] = kh;
		ctx->saved_data["kw"] = kw;
		ctx->saved_data["s"] = s;
		ctx->saved_data["ph"] = ph;
		ctx->saved_data["pw"] = pw;
		return y;
	}

	static variable_list backward(AutogradContext *ctx, variable_list grads)
	{
		at::Tensor x = ctx->get_saved_variables()[0];
		at::Tensor dy = grads[0].contiguous();
		Pool pl = {ctx->saved_data["kh"].toInt(), ctx->saved_data["kw"].toInt(),
			   ctx->saved_data["s"].toInt(), ctx->saved_data["ph"].toInt(),
			   ctx->saved_data["pw"].toInt()};
		struct hlrt_pool_params p = {(uint32_t)pl.kh, (uint32_t)pl.kw, (uint32_t)pl.s,
					     (uint32_t)pl.s};
		at::Tensor dx = new_like(x, x.sizes());
		const char *op = "max_pool2d_backward";
		launch(op, {arg(dy), arg(x)}, {arg(dx)}, pool_key(pl),
		       [=](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
			       hlrt_tensor *d = transpose(g, in[0], kToNHWC, name_of(op, "dy"));
			       hlrt_tensor *t = transpose(g, in[1], kToNHWC, name_of(op, "x"));
			       t = pad_or_crop(g, t, pl, 1, name_of(op, "Pad"));
			       t = node(g, "maxpool2d_bwd_f32", {d, t}, &p, sizeof(p),
					name_of(op, "MaxPoolGrad"));
			       t = pad_or_crop(g, t, pl, -1, name_of(op, "Crop"));
			       return std::vector<hlrt_tensor *>{
				       transpose(g, t, kToNCHW, name_of(op, "dx"))};
		       });
		return {dx, at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor()};
	}
};

/*
 * max_pool2d is composite in PyTorch (it returns max_pool2d_with_indices'
 * first output); the device's pooling keeps no indices, so the bridge
 * takes max_pool2d itself, with its own gradient, at the autograd key.
 */
at::Tensor hpu_max_pool2d(const at::Tensor &x, at::IntArrayRef kernel, at::IntArrayRef stride,
			  at::IntArrayRef padding, at::IntArrayRef dilation, bool ceil_mode)
{
	Pool p;
	if (!max_pool_ok(x, kernel, stride, padding, dilation, ceil_mode, &p))
		return at::native::max_pool2d(x, kernel, stride, padding, dilation, ceil_mode);
	return MaxPool::apply(x, p.kh, p.kw, p.s, p.ph, p.pw);
}

/* ---- average pooling: windows that tile the input (kernel = stride, no padding) ---- */

bool pool_ok(const at::Tensor &x, at::IntArrayRef kernel, at::IntArrayRef stride,
	     at::IntArrayRef padding, at::IntArrayRef dilation)
{
	if (!unary_ok(x) || x.dim() != 4 || kernel.size() != 2)
		return false;
	int64_t kh = kernel[0], kw = kernel[1];
	/* no stride: the kernel size; one number: both dimensions */
	int64_t sh = stride.empty() ? kh : stride[0];
	int64_t sw = stride.empty() ? kw : stride[stride.size() > 1];
	for (int64_t v : padding)
		if (v)
			return false;
	for (int64_t v : dilation)
		if (v != 1)
			return false;
	return sh == kh && sw == kw && x.size(2) % kh == 0 && x.size(3) % kw == 0;
}

/* [N, C, H, W] as [N*C, H/kh, kh, W/kw, kw] */
std::vector<uint64_t> windows(const at::Tensor &x, int64_t kh, int64_t kw)
{
	return {(uint64_t)(x.size(0) * x.size(1)), (uint64_t)(x.size(2) / kh), (uint64_t)kh,
		(uint64_t)(x.size(3) / kw), (uint64_t)kw};
}

/* The windows' elements made the last axis, its mean taken. */
at::Tensor hpu_avg_pool2d(const at::Tensor &x, at::IntArrayRef kernel, at::IntArrayRef stride,
			  at::IntArrayRef padding, bool ceil_mode, bool count_include_pad,
			  c10::optional<int64_t> divisor)
{
	if (!pool_ok(x, kernel, stride, padding, {}) || divisor)
		return at::native::call_fallback_fn<&fallback, ATEN_OP(avg_pool2d)>::call(
			x, kernel, stride, padding, ceil_mode, count_include_pad, divisor);
	int64_t kh = kernel[0], kw = kernel[1];
	at::Tensor y = new_like(x, {x.size(0), x.size(1), x.size(2) / kh, x.size(3) / kw});
	uint64_t m = y.numel(), k = kh * kw;
	const char *op = "avg_pool2d";
	launch(op, {arg_as(x, windows(x, kh, kw))}, {arg_as(y, {m})},
	       std::to_string(kh) + "," + std::to_string(kw),
	       [=](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
		       struct hlrt_reduce_params rp = {-1, 0};
		       hlrt_tensor *t = transpose(g, in[0], {0, 1, 3, 2, 4}, name_of(op, "windows"));
		       t = reshape(g, t, {m, k}, name_of(op, "rows"));
		       return std::vector<hlrt_tensor *>{
			       node(g, "reduce_mean_f32", {t}, &rp, sizeof(rp), name_of(op, "Mean"))};
	       });
	return y;
}

/* dy / (kh * kw) repeated over each window */
at::Tensor hpu_avg_pool2d_backward(const at::Tensor &dy, const at::Tensor &x,
				   at::IntArrayRef kernel, at::IntArrayRef stride,
				   at::IntArrayRef padding, bool ceil_mode, bool count_include_pad,
				   c10::optional<int64_t> divisor)
{
	if (!pool_ok(x, kernel, stride, padding, {}) || divisor || !unary_ok(dy))
		return at::native::call_fallback_fn<&fallback, ATEN_OP(avg_pool2d_backward)>::call(
			dy, x, kernel, stride, padding, ceil_mode, count_include_pad, divisor);
	int64_t kh = kernel[0], kw = kernel[1];
	at::Tensor dx = new_like(x, x.sizes());
	uint64_t m = dy.numel(), k = kh * kw;
	std::vector<uint64_t> win = windows(x, kh, kw);
	const char *op = "avg_pool2d_backward";
	launch(op, {arg_as(dy, {m})}, {arg_as(dx, win)}, std::to_string(kh) + "," + std::to_string(kw),
	       [=](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
		       struct hlrt_broadcast_params bp = {-1, 1.0f / (float)k, k};
		       hlrt_tensor *t = node(g, "broadcast_f32", {in[0]}, &bp, sizeof(bp),
					     name_of(op, "Broadcast"));
		       t = reshape(g, t, {win[0], win[1], win[3], win[2], win[4]},
				   name_of(op, "windows"));
		       return std::vector<hlrt_tensor *>{
			       transpose(g, t, {0, 1, 3, 2, 4}, name_of(op, "dx"))};
	       });
	return dx;
}

/* ---- batch norm over dim 1 (NCHW, or [N, C]) -------------------------------- */

bool bn_ok(const at::Tensor &x, const c10::optional<at::Tensor> &w,
	   const c10::optional<at::Tensor> &b, const c10::optional<at::Tensor> &rm,
	   const c10::optional<at::Tensor> &rv)
{
	if (!unary_ok(x) || (x.dim() != 2 && x.dim() != 4))
		return false;
	for (const c10::optional<at::Tensor> *t : {&w, &b, &rm, &rv})
		if (!*t || !(*t)->defined() || !unary_ok(**t) || (*t)->numel() != x.size(1))
			return false;
	return true;
}

/* x's channels made the last axis, and back */
hlrt_tensor *channels_last(hlrt_graph *g, hlrt_tensor *t, int64_t dim, const std::string &name)
{
	return dim == 4 ? transpose(g, t, kToNHWC, name) : t;
}

hlrt_tensor *channels_first(hlrt_graph *g, hlrt_tensor *t, int64_t dim, const std::string &name)
{
	return dim == 4 ? transpose(g, t, kToNCHW, name) : t;
}

std::tuple<at::Tensor, at::Tensor, at::Tensor>
hpu_batch_norm(const at::Tensor &x, const c10::optional<at::Tensor> &w,
	       const c10::optional<at::Tensor> &b, const c10::optional<at::Tensor> &rm,
	       const c10::optional<at::Tensor> &rv, bool training, double momentum, double eps)
{
	if (!bn_ok(x, w, b, rm, rv) || eps <= 0 || momentum < 0 || momentum > 1)
		return at::native::call_fallback_fn<&fallback, ATEN_OP(native_batch_norm)>::call(
			x, w, b, rm, rv, training, momentum, eps);
	/* PyTorch's momentum p: running = (1 - p) * running + p * batch */
	struct hlrt_batchnorm_params p = {(float)(1.0 - momentum), (float)eps, training, 1};
	at::Tensor y = new_like(x, x.sizes());
	at::Tensor mean = new_like(x, {x.size(1)}), invstd = new_like(x, {x.size(1)});
	int64_t nd = x.dim();
	const char *op = "native_batch_norm";
	launch(op, {arg(x), arg(*w), arg(*b), arg(*rm), arg(*rv)}, {arg(y), arg(mean), arg(invstd)},
	       std::to_string(training) + "," + std::to_string(momentum) + "," + std::to_string(eps),
	       [=](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
		       hlrt_tensor *t = channels_last(g, in[0], nd, name_of(op, "x"));
		       /* training updates the running statistics in place: outputs 3, 4 */
		       std::vector<hlrt_tensor *> o(5, nullptr);
		       if (training) {
			       o[3] = in[3];
			       o[4] = in[4];
		       }
		       hlrt_node *n = nullptr;
		       std::vector<hlrt_tensor *> i = {t, in[1], in[2], in[3], in[4]};
		       std::string nm = name_of(op, "BatchNorm");
		       check(hlrt_node_create(g, "batchnorm_fwd_f32", i.data(), 5, o.data(),
					      training ? 5 : 3, &p, sizeof(p), nm.c_str(), &n),
			     "batchnorm_fwd_f32");
		       return std::vector<hlrt_tensor *>{
			       channels_first(g, hlrt_node_output(n, 0), nd, name_of(op, "y")),
			       hlrt_node_output(n, 1), hlrt_node_output(n, 2)};
	       });
	return {y, mean, invstd};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor>
hpu_batch_norm_backward(const at::Tensor &dy, const at::Tensor &x,
			const c10::optional<at::Tensor> &w, const c10::optional<at::Tensor> &rm,
			const c10::optional<at::Tensor> &rv, const c10::optional<at::Tensor> &mean,
			const c10::optional<at::Tensor> &invstd, bool train, double eps,
			std::array<bool, 3> mask)
{
	bool ok = train && unary_ok(dy) && dy.sizes() == x.sizes() && bn_ok(x, w, w, mean, invstd);
	if (!ok)
		return at::native::call_fallback_fn<&fallback,
						    ATEN_OP(native_batch_norm_backward)>::call(
			dy, x, w, rm, rv, mean, invstd, train, eps, mask);
	at::Tensor dx = new_like(x, x.sizes()), dw = new_like(x, {x.size(1)}),
		   db = new_like(x, {x.size(1)});
	struct hlrt_batchnorm_params p = {0.9f, (float)eps, 1, 1};
	int64_t nd = x.dim();
	const char *op = "native_batch_norm_backward";
	launch(op, {arg(dy), arg(x), arg(*w), arg(*mean), arg(*invstd)}, {arg(dx), arg(dw), arg(db)},
	       std::to_string(eps),
	       [=](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
		       hlrt_tensor *d = channels_last(g, in[0], nd, name_of(op, "dy"));
		       hlrt_tensor *t = channels_last(g, in[1], nd, name_of(op, "x"));
		       std::vector<hlrt_tensor *> r = node_outs(
			       g, "batchnorm_bwd_f32", {d, t, in[2], in[3], in[4]}, 3, &p, sizeof(p),
			       name_of(op, "BatchNormGrad"));
		       r[0] = channels_first(g, r[0], nd, name_of(op, "dx"));
		       return r;
	       });
	return {mask[0] ? dx : at::Tensor(), mask[1] ? dw : at::Tensor(),
		mask[2] ? db : at::Tensor()};
}

/* ---- dropout -------------------------------------------------------------- */

/*
 * libhlrt's dropout_f32: the mask from a hash of (seed, step, index), the
 * step a per-process count uploaded with each call, so each call draws a
 * new mask without a new recipe.
 */
struct Dropout : public torch::autograd::Function<Dropout> {
	static at::Tensor forward(AutogradContext *ctx, const at::Tensor &x, double rate)
	{
		static int32_t calls;
		static const uint32_t seed = (uint32_t)at::detail::getDefaultCPUGenerator().current_seed();
		int32_t step = calls++;
		at::Tensor st = at::empty({1}, x.options().dtype(at::kInt));
		/* Fresh memory no recorded op touches: no flush needed. */
		check(hlrt_memcpy_h2d_async(stream(), addr_of(st), &step, sizeof(step)),
		      "copying to the device");
		struct hlrt_dropout_params p = {(float)rate, seed, 1};
		at::Tensor y = new_like(x, x.sizes()), mask = new_like(x, x.sizes());
		launch("dropout", {arg(x), arg(st)}, {arg(y), arg(mask)}, std::to_string(rate),
		       [=](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
			       return node_outs(g, "dropout_f32", {in[0], in[1]}, 2, &p, sizeof(p),
						"aten/dropout");
		       });
		ctx->save_for_backward({mask});
		return y;
	}

	static variable_list backward(AutogradContext *ctx, variable_list grads)
	{
		at::Tensor mask = ctx->get_saved_variables()[0];
		return {grads[0].contiguous() * mask, at::Tensor()};
	}
};

/* dropout is composite in PyTorch (a bernoulli_ mask): taken at the autograd key. */
at::Tensor hpu_dropout(const at::Tensor &x, double p, bool train)
{
	if (!train || p == 0.0)
		return x;
	if (!unary_ok(x) || p < 0.0 || p >= 1.0)
		return at::native::dropout(x, p, train);
	return Dropout::apply(x, p);
}

} // namespace

TORCH_LIBRARY_IMPL(aten, HPU, m)
{
	m.impl("convolution_overrideable", hpu_convolution);
	m.impl("convolution_backward_overrideable", hpu_convolution_backward);
	m.impl("avg_pool2d", hpu_avg_pool2d);
	m.impl("avg_pool2d_backward", hpu_avg_pool2d_backward);
	m.impl("native_batch_norm", hpu_batch_norm);
	m.impl("native_batch_norm_backward", hpu_batch_norm_backward);
}

TORCH_LIBRARY_IMPL(aten, AutogradHPU, m)
{
	m.impl("max_pool2d", hpu_max_pool2d);
	m.impl("dropout", hpu_dropout);
}

} // namespace hpu
