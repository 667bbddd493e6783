// SPDX-License-Identifier: MIT
/*
 * Recording device ops (hpu_graph.h) and the basic ops: each op, for one
 * signature (op, shapes, parameters), adds a few libhlrt nodes; eager mode
 * runs it alone, lazy mode a recorded sequence as one graph, compiled once
 * per structure into a recipe (cached here) and launched on the device's
 * stream with the tensors' device addresses bound; the launch is
 * asynchronous, a read back to the host waits for it. Here: matrix
 * products (BF16 under autocast, per Habana's lists), broadcasting
 * elementwise ops, relu, zero_, sums and means. Inputs the device ops do
 * not take (other dtypes, strided layouts other than a transposed matrix)
 * go to the CPU fallback.
 */
#include <ATen/native/CPUFallback.h>
#include <ATen/Operators.h>
#include <torch/library.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <vector>

#include "hpu.h"
#include "hpu_fallback.h"
#include "hpu_graph.h"

namespace hpu {

uint64_t Arg::bytes() const
{
	uint64_t n = dtype == HLRT_UINT8 ? 1 : 4;
	for (uint64_t d : dims)
		n *= d;
	return n;
}

namespace {

/*
 * A structure's recipe as loaded with one set of addresses. libhlrt
 * patches the bound addresses into a loaded recipe's image and uploads it
 * again, after waiting for its last launch, whenever a launch binds
 * others; the caching allocator hands a loop's steps a few buffers in
 * turn (the seed step's address sets repeat every 2 to 6 steps), so one
 * recipe per structure would be re-patched nearly every step. A structure
 * keeps up to kVariants copies of its recipe instead, each launched again
 * with the addresses it was last patched for.
 */
struct Variant {
	hlrt_recipe *recipe;
	std::vector<uint64_t> addrs;	/* the bindings' and the workspace's, last launch */
	uint64_t used;			/* g_runs at its last launch: the least recent goes */
};

constexpr size_t kVariants = 8;

struct CachedRecipe {
	std::vector<Variant> variants;	/* [0] compiled, the others its copies */
	std::vector<std::string> outputs;
	uint64_t workspace;
};

/* An op recorded for the device: its signature, tensors and graph builder. */
struct PendingOp {
	std::string key;
	std::vector<Arg> ins, outs;
	Builder build;
};

std::mutex g_lock;
std::map<std::string, CachedRecipe> g_cache;
std::vector<PendingOp> g_pending;	/* lazy mode: the ops since the last run */
bool g_bf16;				/* autocast: GEMMs in BF16 (set_autocast) */
int64_t g_ops, g_runs, g_compiles;
int64_t g_copies, g_patches;	/* recipe variants made; launches that re-patched one */

std::string dims_key(const std::vector<uint64_t> &d)
{
	std::string s = "[";
	for (uint64_t v : d)
		s += std::to_string(v) + ",";
	return s + "]";
}

bool lazy_mode()
{
	const char *v = std::getenv("PT_HPU_LAZY_MODE");
	return !(v && std::string(v) == "0");
}

/*
 * Where each input of each op comes from: an output of an earlier op of
 * the sequence (the same memory) or a graph input.
 */
struct Link {
	int op;		/* -1: graph input number `out` */
	int out;
};

/*
 * Unload recipes to free sync objects, never keep: with whole, every
 * structure but keep's goes (to be compiled again when next run); else
 * each structure keeps one of its copies (keep, or the first).
 */
void drop_recipes(hlrt_recipe *keep, bool whole)
{
	for (auto e = g_cache.begin(); e != g_cache.end();) {
		std::vector<Variant> &vs = e->second.variants;
		bool has = false;
		for (const Variant &v : vs)
			has |= v.recipe == keep;
		std::vector<Variant> kept;
		for (size_t i = 0; i < vs.size(); i++) {
			if (has ? vs[i].recipe == keep : !whole && i == 0)
				kept.push_back(vs[i]);
			else
				hlrt_recipe_destroy(vs[i].recipe);
		}
		if (kept.empty()) {
			e = g_cache.erase(e);
			continue;
		}
		vs.swap(kept);
		++e;
	}
}

bool out_of_sync_objects(hlrt_status st)
{
	return st == HLRT_UNSUPPORTED && std::strstr(hlrt_last_error(), "sync objects");
}

/*
 * Launch a recipe. Every recipe loaded on the device holds sync objects:
 * with many distinct op sequences (shapes) or copies they run out, and
 * then the other copies are unloaded and the launch tried again, and if
 * that is not enough the op recipes other than this one.
 */
hlrt_status launch_locked(hlrt_recipe *r, const struct hlrt_tensor_binding *b, size_t n,
			  uint64_t ws)
{
	hlrt_status st = hlrt_launch(stream(), r, b, n, ws);
	if (!out_of_sync_objects(st))
		return st;
	synchronize();
	drop_recipes(r, false);
	st = hlrt_launch(stream(), r, b, n, ws);
	if (!out_of_sync_objects(st))
		return st;
	drop_recipes(r, true);
	return hlrt_launch(stream(), r, b, n, ws);
}

/* A copy of a recipe, to be loaded on its own (hlrt_recipe_serialize's round trip). */
hlrt_recipe *copy_recipe(const hlrt_recipe *r)
{
	void *buf = nullptr;
	size_t size = 0;
	check(hlrt_recipe_serialize(r, &buf, &size), "copying a recipe");
	hlrt_recipe *copy = nullptr;
	hlrt_status st = hlrt_recipe_deserialize(buf, size, &copy);
	std::free(buf);
	check(st, "copying a recipe");
	return copy;
}

/*
 * The variant of c to launch with addrs: the one last launched with them;
 * else a new copy while there are fewer than kVariants; else the least
 * recently launched one, which libhlrt re-patches.
 */
Variant &pick_variant(CachedRecipe &c, const std::vector<uint64_t> &addrs)
{
	for (Variant &v : c.variants)
		if (v.addrs == addrs)
			return v;
	for (Variant &v : c.variants)
		if (v.addrs.empty())	/* compiled, never launched */
			return v;
	if (c.variants.size() < kVariants) {
		c.variants.push_back({copy_recipe(c.variants[0].recipe), {}, 0});
		g_copies++;
		return c.variants.back();
	}
	Variant *lru = &c.variants[0];
	for (Variant &v : c.variants)
		if (v.used < lru->used)
			lru = &v;
	g_patches++;
	return *lru;
}

/*
 * One graph for a sequence of ops, compiled once per structure (the ops'
 * signatures and how they connect) and launched with every op's outputs
 * bound: PyTorch holds each of them.
 */
void run_ops(const std::vector<PendingOp> &ops)
{
	std::string key;
	std::vector<std::vector<Link>> links(ops.size());
	std::vector<const Arg *> graph_ins;
	for (size_t i = 0; i < ops.size(); i++) {
		key += ops[i].key + "{";
		for (const Arg &a : ops[i].ins) {
			Link l = {-1, (int)graph_ins.size()};
			for (size_t j = i; j-- > 0 && l.op < 0;)
				for (size_t m = 0; m < ops[j].outs.size(); m++)
					if (ops[j].outs[m].addr == a.addr &&
					    ops[j].outs[m].bytes() == a.bytes()) {
						l = {(int)j, (int)m};
						break;
					}
			if (l.op < 0) {
				graph_ins.push_back(&a);
				key += "i";
			} else {
				key += "o" + std::to_string(l.op) + "." + std::to_string(l.out);
			}
			links[i].push_back(l);
		}
		key += "}";
	}

	auto it = g_cache.find(key);
	if (it == g_cache.end()) {
		hlrt_graph *g = nullptr;
		check(hlrt_graph_create(&g), "creating a graph");
		std::unique_ptr<hlrt_graph, decltype(&hlrt_graph_destroy)> owner(
			g, hlrt_graph_destroy);
		CachedRecipe c = {};
		std::vector<std::vector<hlrt_tensor *>> outs(ops.size());
		for (size_t i = 0; i < ops.size(); i++) {
			std::vector<hlrt_tensor *> tin;
			for (size_t k = 0; k < ops[i].ins.size(); k++) {
				const Arg &a = ops[i].ins[k];
				const Link &l = links[i][k];
				hlrt_tensor *t = nullptr;
				struct hlrt_tensor_desc d = {};
				std::string name = "in" + std::to_string(l.out);
				if (l.op < 0) {
					d.name = name.c_str();
					d.dtype = a.dtype;
					d.ndims = a.dims.size();
					for (size_t n = 0; n < a.dims.size(); n++)
						d.dims[n] = a.dims[n];
					d.role = HLRT_TENSOR_INPUT;
					check(hlrt_tensor_create(g, &d, &t), "creating a tensor");
				} else {
					t = outs[l.op][l.out];
					/* The same memory seen with another shape. */
					if (ops[l.op].outs[l.out].dims != a.dims)
						t = reshape(g, t, a.dims, "aten/view");
				}
				tin.push_back(t);
			}
			outs[i] = ops[i].build(g, tin);
			TORCH_CHECK(outs[i].size() == ops[i].outs.size(), "hpu: ", ops[i].key,
				    ": output count");
			for (hlrt_tensor *t : outs[i]) {
				check(hlrt_tensor_set_role(t, HLRT_TENSOR_OUTPUT), "marking an output");
				c.outputs.push_back(hlrt_tensor_name(t));
			}
		}
		struct hlrt_compile_options opts = {};
		opts.eager = HLRT_EAGER_OFF;
		opts.no_cache = 1;	/* cached here, so destroying one unloads it */
		hlrt_recipe *r = nullptr;
		check(hlrt_graph_compile(g, &opts, &r), "compiling");
		c.variants.push_back({r, {}, 0});
		check(hlrt_recipe_workspace_size(r, &c.workspace), "sizing the workspace");
		it = g_cache.emplace(key, c).first;
		g_compiles++;
	}
	CachedRecipe &c = it->second;

	std::vector<std::string> names;
	std::vector<struct hlrt_tensor_binding> b;
	for (size_t i = 0; i < graph_ins.size(); i++)
		names.push_back("in" + std::to_string(i));
	for (size_t i = 0; i < graph_ins.size(); i++)
		b.push_back({names[i].c_str(), graph_ins[i]->addr});
	size_t n = 0;
	for (const PendingOp &op : ops)
		for (const Arg &a : op.outs)
			b.push_back({c.outputs[n++].c_str(), a.addr});
	/* Freed right after the launch: the next user is queued after it. */
	c10::DataPtr ws = allocator()->allocate(c.workspace);
	std::vector<uint64_t> addrs;
	for (const struct hlrt_tensor_binding &x : b)
		addrs.push_back(x.device_addr);
	addrs.push_back(reinterpret_cast<uint64_t>(ws.get()));
	Variant &v = pick_variant(c, addrs);
	hlrt_recipe *r = v.recipe;
	v.addrs = addrs;
	v.used = g_runs;
	/* (launch_locked may unload other recipes, never this entry or r) */
	hlrt_status st = launch_locked(r, b.data(), b.size(), reinterpret_cast<uint64_t>(ws.get()));
	if (st) {
		/* libhlrt keeps no patch of a failed launch: nothing to reuse */
		for (Variant &x : it->second.variants)
			if (x.recipe == r)
				x.addrs.clear();
	}
	check(st, "launching");
	g_runs++;
	/* The placement log's lines for the ops come from the runtime's compile. */
}

bool overlaps(const Arg &a, const Arg &b)
{
	return a.addr < b.addr + b.bytes() && b.addr < a.addr + a.bytes();
}

} // namespace

/*
 * Run an op on the device: at once in eager mode; in lazy mode recorded,
 * to run with the ops around it at the next flush (mark_step, a read back
 * to the host, a copy, a fallback op). An input that shares memory with a
 * recorded output other than as that whole output runs what is recorded
 * first, and so does an in-place update of memory a recorded op reads (the
 * graph would not order the two).
 */
void launch(const std::string &op, const std::vector<Arg> &ins, const std::vector<Arg> &outs,
	    const std::string &params, const Builder &build, bool in_place)
{
	std::string key = op + "|" + params;
	for (const Arg &a : ins)
		key += dims_key(a.dims);
	std::lock_guard<std::mutex> guard(g_lock);
	g_ops++;
	if (!lazy_mode()) {
		if (!g_pending.empty()) {
			run_ops(g_pending);
			g_pending.clear();
		}
		run_ops({{key, ins, outs, build}});
		return;
	}
	bool flush = false;
	for (const Arg &a : ins)
		for (const PendingOp &p : g_pending)
			for (const Arg &o : p.outs)
				if (overlaps(a, o) && !(a.addr == o.addr && a.bytes() == o.bytes()))
					flush = true;
	if (in_place)
		for (const PendingOp &p : g_pending)
			for (const Arg &i : p.ins)
				if (overlaps(i, outs[0]))
					flush = true;
	if (flush) {
		run_ops(g_pending);
		g_pending.clear();
	}
	g_pending.push_back({key, ins, outs, build});
}

std::vector<hlrt_tensor *> node_outs(hlrt_graph *g, const char *guid,
				     std::vector<hlrt_tensor *> in, uint32_t n_out,
				     const void *params, size_t size, const std::string &name)
{
	std::vector<hlrt_tensor *> out(n_out, nullptr);
	hlrt_node *n = nullptr;
	check(hlrt_node_create(g, guid, in.data(), in.size(), out.data(), n_out, params, size,
			       name.c_str(), &n),
	      guid);
	for (uint32_t i = 0; i < n_out; i++)
		out[i] = hlrt_node_output(n, i);
	return out;
}

hlrt_tensor *node(hlrt_graph *g, const char *guid, std::vector<hlrt_tensor *> in,
		  const void *params, size_t size, const std::string &name)
{
	return node_outs(g, guid, in, 1, params, size, name)[0];
}

hlrt_tensor *reshape(hlrt_graph *g, hlrt_tensor *t, const std::vector<uint64_t> &dims,
		     const std::string &name)
{
	struct hlrt_reshape_params rp = {};
	rp.ndims = dims.size();
	for (size_t n = 0; n < dims.size(); n++)
		rp.dims[n] = dims[n];
	return node(g, "reshape", {t}, &rp, sizeof(rp), name);
}

bool device_dtype(const at::Tensor &t, hlrt_dtype *dt)
{
	switch (t.scalar_type()) {
	case at::kFloat:
		*dt = HLRT_FP32;
		return true;
	case at::kInt:
	case at::kLong:		/* held as INT32 */
		*dt = HLRT_INT32;
		return true;
	case at::kBool:
		*dt = HLRT_UINT8;
		return true;
	default:
		return false;
	}
}

bool is_f32(const at::Tensor &t)
{
	return t.device().type() == c10::DeviceType::HPU && t.scalar_type() == at::kFloat;
}

std::vector<uint64_t> udims(at::IntArrayRef s)
{
	std::vector<uint64_t> d;
	for (int64_t v : s)
		d.push_back(v);
	if (d.empty())
		d.push_back(1);
	return d;
}

Arg arg_as(const at::Tensor &t, const std::vector<uint64_t> &dims)
{
	hlrt_dtype dt = HLRT_FP32;
	TORCH_CHECK(device_dtype(t, &dt), "hpu: no device dtype for ", t.scalar_type());
	return {addr_of(t), dims, t, dt};
}

Arg arg(const at::Tensor &t)
{
	return arg_as(t, udims(t.sizes()));
}

/* A 1-element device tensor of dtype holding the 32 bits of v, uploaded once. */
static at::Tensor constant_bits(uint32_t bits, at::ScalarType dtype)
{
	static std::mutex lock;
	static std::map<std::pair<uint32_t, int>, at::Tensor> consts;
	std::lock_guard<std::mutex> guard(lock);
	auto key = std::make_pair(bits, (int)dtype);
	auto it = consts.find(key);
	if (it != consts.end())
		return it->second;
	at::Tensor t = at::empty({1}, at::TensorOptions().dtype(dtype).device(c10::DeviceType::HPU));
	/* Fresh memory no recorded op touches: no flush needed. */
	check(hlrt_memcpy_h2d_async(stream(), addr_of(t), &bits, sizeof(bits)),
	      "copying to the device");
	consts.emplace(key, t);
	return t;
}

at::Tensor device_constant(float v)
{
	uint32_t bits;
	std::memcpy(&bits, &v, sizeof(bits));
	return constant_bits(bits, at::kFloat);
}

static at::Tensor device_constant_i32(int32_t v)
{
	return constant_bits((uint32_t)v, at::kInt);
}

bool unary_ok(const at::Tensor &x)
{
	return is_f32(x) && x.is_contiguous() && x.numel() > 0;
}

at::Tensor new_like(const at::Tensor &t, at::IntArrayRef sizes)
{
	return at::empty(sizes, t.options());
}

namespace {

/* An FP32 matrix as the MME takes it: stored row-major, or its transpose. */
struct Matrix {
	bool ok;
	bool transposed;
	Arg a;
};

Matrix matrix(const at::Tensor &t)
{
	if (!is_f32(t) || t.dim() != 2 || t.numel() == 0)
		return {false, false, {}};
	if (t.is_contiguous())
		return {true, false, arg(t)};
	if (t.stride(0) == 1 && t.stride(1) == t.size(0))
		return {true, true, arg_as(t, {(uint64_t)t.size(1), (uint64_t)t.size(0)})};
	return {false, false, {}};
}

/* ---- matrix products ---------------------------------------------------- */

/*
 * Habana's autocast lists: the ops that run in BF16 inside autocast, by
 * aten name. LOWER_LIST and FP32_LIST name files of op names, one a line:
 * LOWER_LIST replaces the default list (the ops with a BF16 form here:
 * the matrix products mm and addmm, and the convolution and its
 * gradients), FP32_LIST keeps its ops in FP32.
 */
std::set<std::string> op_list(const char *env, std::set<std::string> dflt)
{
	const char *path = std::getenv(env);
	if (!path || !*path)
		return dflt;
	std::ifstream f(path);
	TORCH_CHECK(f, "hpu autocast: ", env, "=", path, ": cannot read the file");
	std::set<std::string> ops;
	std::string line;
	while (std::getline(f, line)) {
		line.erase(0, line.find_first_not_of(" \t"));
		line.erase(line.find_last_not_of(" \t\r") + 1);
		if (!line.empty() && line[0] != '#')
			ops.insert(line);
	}
	return ops;
}

} // namespace

bool autocast_lowers(const std::string &op)
{
	static const std::set<std::string> lower =
		op_list("LOWER_LIST", {"mm", "addmm", "convolution", "convolution_backward"});
	static const std::set<std::string> fp32 = op_list("FP32_LIST", {});
	return g_bf16 && lower.count(op) && !fp32.count(op);
}

namespace {

/*
 * A matrix product; inside autocast, when the lists lower it, its inputs
 * are cast to BF16 and the MME accumulates and returns FP32.
 */
at::Tensor gemm(const Matrix &a, const Matrix &b, const at::Tensor *bias, at::Tensor out,
		const char *op)
{
	struct hlrt_gemm_params p = {};
	p.transpose_a = a.transposed;
	p.transpose_b = b.transposed;
	std::vector<Arg> ins = {a.a, b.a};
	if (bias)
		ins.push_back(arg(*bias));
	bool bf16 = autocast_lowers(op);
	std::string params = std::to_string(p.transpose_a) + std::to_string(p.transpose_b) +
			     (bf16 ? "bf16" : "");
	launch(op, ins, {arg(out)}, params,
	       [=](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
		       std::string name = std::string("aten/") + op;
		       hlrt_tensor *x = in[0], *y = in[1];
		       if (bf16) {
			       x = node(g, "cast_f32_to_bf16", {x}, nullptr, 0, name + "/cast0_bf16");
			       y = node(g, "cast_f32_to_bf16", {y}, nullptr, 0, name + "/cast1_bf16");
		       }
		       hlrt_tensor *c = node(g, bf16 ? "gemm_bf16" : "gemm_f32", {x, y}, &p,
					     sizeof(p), name + "/MatMul");
		       if (in.size() > 2)
			       c = node(g, "bias_add_f32", {c, in[2]}, nullptr, 0,
					std::string("aten/") + op + "/BiasAdd");
		       return std::vector<hlrt_tensor *>{c};
	       });
	return out;
}

at::Tensor hpu_mm(const at::Tensor &self, const at::Tensor &mat2)
{
	Matrix a = matrix(self), b = matrix(mat2);
	if (!a.ok || !b.ok || self.size(1) != mat2.size(0))
		return at::native::call_fallback_fn<&fallback, ATEN_OP(mm)>::call(self, mat2);
	return gemm(a, b, nullptr, new_like(self, {self.size(0), mat2.size(1)}), "mm");
}

at::Tensor hpu_addmm(const at::Tensor &bias, const at::Tensor &m1, const at::Tensor &m2,
		     const at::Scalar &beta, const at::Scalar &alpha)
{
	Matrix a = matrix(m1), b = matrix(m2);
	if (!a.ok || !b.ok || m1.size(1) != m2.size(0) || beta.toDouble() != 1.0 ||
	    alpha.toDouble() != 1.0 || !is_f32(bias) || bias.dim() != 1 ||
	    bias.size(0) != m2.size(1) || !bias.is_contiguous())
		return at::native::call_fallback_fn<&fallback, ATEN_OP(addmm)>::call(bias, m1, m2,
										     beta, alpha);
	return gemm(a, b, &bias, new_like(m1, {m1.size(0), m2.size(1)}), "addmm");
}

/*
 * A stack of FP32 matrices [b, M, K] as the MME's batched GEMM takes it:
 * stored row-major, or each matrix transposed (a transpose(1, 2) view of
 * a contiguous tensor, as bmm's gradients pass them).
 */
Matrix batch_matrix(const at::Tensor &t)
{
	if (!is_f32(t) || t.dim() != 3 || t.numel() == 0)
		return {false, false, {}};
	if (t.is_contiguous())
		return {true, false, arg(t)};
	if (t.stride(0) == t.size(1) * t.size(2) && t.stride(1) == 1 && t.stride(2) == t.size(1))
		return {true, true,
			arg_as(t, {(uint64_t)t.size(0), (uint64_t)t.size(2), (uint64_t)t.size(1)})};
	return {false, false, {}};
}

/* bmm (and matmul of stacks): b products in one MME launch. */
at::Tensor hpu_bmm(const at::Tensor &self, const at::Tensor &mat2)
{
	Matrix a = batch_matrix(self), b = batch_matrix(mat2);
	if (!a.ok || !b.ok || self.size(0) != mat2.size(0) || self.size(2) != mat2.size(1))
		return at::native::call_fallback_fn<&fallback, ATEN_OP(bmm)>::call(self, mat2);
	struct hlrt_gemm_params p = {};
	p.transpose_a = a.transposed;
	p.transpose_b = b.transposed;
	at::Tensor out = new_like(self, {self.size(0), self.size(1), mat2.size(2)});
	launch("bmm", {a.a, b.a}, {arg(out)}, std::to_string(p.transpose_a) +
						       std::to_string(p.transpose_b),
	       [=](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
		       return std::vector<hlrt_tensor *>{node(g, "batch_gemm_f32", {in[0], in[1]}, &p,
							      sizeof(p), "aten/bmm/BatchMatMul")};
	       });
	return out;
}

/* ---- elementwise ---------------------------------------------------------- */

/*
 * An FP32 operand of a broadcasting op: a contiguous device tensor, or a
 * number (a 0-dim host tensor, as `x + 1.0` passes it), which becomes a
 * device constant.
 */
bool operand(const at::Tensor &t, at::Tensor *dev)
{
	if (t.device().is_cpu() && t.dim() == 0 && t.is_floating_point()) {
		*dev = device_constant(t.item<float>());
		return true;
	}
	*dev = t;
	return is_f32(t) && t.is_contiguous() && t.numel() > 0 && t.dim() <= HLRT_MAX_DIMS;
}

/* Both operands on the device and their broadcast shape (NumPy's rules, as libhlrt's). */
bool broadcast_ok(const at::Tensor &a, const at::Tensor &b, at::Tensor *da, at::Tensor *db,
		  std::vector<int64_t> *shape)
{
	if (!operand(a, da) || !operand(b, db) || a.device().is_cpu())
		return false;
	at::DimVector s = at::infer_size_dimvector(da->sizes(), db->sizes());
	shape->assign(s.begin(), s.end());
	return true;
}

at::Tensor binary_into(const char *guid, const char *op, const at::Tensor &a, const at::Tensor &b,
		       double alpha, const at::Tensor &out, bool in_place)
{
	struct hlrt_scale_params sp = {(float)alpha};
	launch(op, {arg(a), arg(b)}, {arg(out)}, std::to_string(alpha),
	       [=](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
		       hlrt_tensor *rhs = in[1];
		       if (alpha != 1.0)
			       rhs = node(g, "scale_f32", {rhs}, &sp, sizeof(sp),
					  std::string("aten/") + op + "/Scale");
		       return std::vector<hlrt_tensor *>{
			       node(g, guid, {in[0], rhs}, nullptr, 0, std::string("aten/") + op)};
	       },
	       in_place);
	return out;
}

at::Tensor binary(const char *guid, const char *op, const at::Tensor &a, const at::Tensor &b,
		  double alpha, at::IntArrayRef shape)
{
	return binary_into(guid, op, a, b, alpha, new_like(a, shape), false);
}

at::Tensor hpu_add(const at::Tensor &self, const at::Tensor &other, const at::Scalar &alpha)
{
	at::Tensor a, b;
	std::vector<int64_t> shape;
	if (!broadcast_ok(self, other, &a, &b, &shape))
		return at::native::call_fallback_fn<&fallback, ATEN_OP2(add, Tensor)>::call(
			self, other, alpha);
	return binary("add_f32", "add.Tensor", a, b, alpha.toDouble(), shape);
}

/* An integer counter's += n (BatchNorm's num_batches_tracked), INT32 on the device. */
bool int_add_(at::Tensor &self, const at::Tensor &other, const at::Scalar &alpha)
{
	bool int_self = self.scalar_type() == at::kLong || self.scalar_type() == at::kInt;
	if (!int_self || self.device().type() != c10::DeviceType::HPU || !self.is_contiguous() ||
	    !self.numel() || !other.device().is_cpu() || other.dim() != 0 ||
	    other.is_floating_point() || !alpha.isIntegral(false))
		return false;
	int64_t v = other.item<int64_t>() * alpha.toLong();
	if (v < INT32_MIN || v > INT32_MAX)
		return false;
	at::Tensor c = device_constant_i32((int32_t)v);
	launch("add_.Tensor", {arg(self), arg(c)}, {arg(self)}, "int",
	       [](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
		       return std::vector<hlrt_tensor *>{
			       node(g, "add_i32", {in[0], in[1]}, nullptr, 0, "aten/add_.Tensor")};
	       },
	       true);
	return true;
}

/* In place, on the device (recorded in lazy mode, as the optimizer's update). */
at::Tensor &hpu_add_(at::Tensor &self, const at::Tensor &other, const at::Scalar &alpha)
{
	if (int_add_(self, other, alpha))
		return self;
	at::Tensor a, b;
	std::vector<int64_t> shape;
	if (!broadcast_ok(self, other, &a, &b, &shape) || at::IntArrayRef(shape) != self.sizes())
		return at::native::call_fallback_fn<&fallback, ATEN_OP2(add_, Tensor)>::call(
			self, other, alpha);
	binary_into("add_f32", "add_.Tensor", a, b, alpha.toDouble(), self, true);
	return self;
}

at::Tensor hpu_sub(const at::Tensor &self, const at::Tensor &other, const at::Scalar &alpha)
{
	at::Tensor a, b;
	std::vector<int64_t> shape;
	if (!broadcast_ok(self, other, &a, &b, &shape))
		return at::native::call_fallback_fn<&fallback, ATEN_OP2(sub, Tensor)>::call(
			self, other, alpha);
	return binary("sub_f32", "sub.Tensor", a, b, alpha.toDouble(), shape);
}

at::Tensor hpu_mul_scalar(const at::Tensor &self, const at::Scalar &other);

at::Tensor hpu_mul(const at::Tensor &self, const at::Tensor &other)
{
	/* x * 2.5: the number arrives as a 0-dim CPU tensor. */
	if (other.device().is_cpu() && other.dim() == 0 && is_f32(self))
		return hpu_mul_scalar(self, other.item());
	at::Tensor a, b;
	std::vector<int64_t> shape;
	if (!broadcast_ok(self, other, &a, &b, &shape))
		return at::native::call_fallback_fn<&fallback, ATEN_OP2(mul, Tensor)>::call(self,
											  other);
	return binary("mul_f32", "mul.Tensor", a, b, 1.0, shape);
}

at::Tensor unary(const char *guid, const char *op, const at::Tensor &x, const void *params,
		 size_t size, const std::string &pkey)
{
	at::Tensor out = new_like(x, x.sizes());
	/* The builder may run later (lazy mode): it keeps its own copy. */
	std::string blob(static_cast<const char *>(params), size);
	launch(op, {arg(x)}, {arg(out)}, pkey,
	       [=](hlrt_graph *g, const std::vector<hlrt_tensor *> &in) {
		       return std::vector<hlrt_tensor *>{
			       node(g, guid, {in[0]}, blob.empty() ? nullptr : blob.data(),
				    blob.size(), std::string("aten/") + op)};
	       });
	return out;
}

at::Tensor hpu_mul_scalar(const at::Tensor &self, const at::Scalar &other)
{
	if (!unary_ok(self))
		return at::native::call_fallback_fn<&fallback, ATEN_OP2(mul, Scalar)>::call(self,
											  other);
	struct hlrt_scale_params p = {(float)other.toDouble()};
	return unary("scale_f32", "mul.Scalar", self, &p, sizeof(p),
		     std::to_string(other.toDouble()));
}

/* a / b as a * (1 / b), as libhlrt's div_f32 does; a number divisor is a scale. */
at::Tensor hpu_div(const at::Tensor &self, const at::Tensor &other)
{
	if (other.device().is_cpu() && other.dim() == 0 && is_f32(self) && unary_ok(self)) {
		struct hlrt_scale_params p = {1.0f / other.item<float>()};
		return unary("scale_f32", "div.Tensor", self, &p, sizeof(p),
			     std::to_string(p.alpha));
	}
	at::Tensor a, b;
	std::vector<int64_t> shape;
	if (!broadcast_ok(self, other, &a, &b, &shape))
		return at::native::call_fallback_fn<&fallback, ATEN_OP2(div, Tensor)>::call(self,
											  other);
	return binary("div_f32", "div.Tensor", a, b, 1.0, shape);
}

at::Tensor hpu_relu(const at::Tensor &self)
{
	if (!unary_ok(self))
		return at::native::call_fallback_fn<&fallback, ATEN_OP(relu)>::call(self);
	return unary("relu_fwd_f32", "relu", self, nullptr, 0, "");
}

bool same_shape_ok(const at::Tensor &a, const at::Tensor &b)
{
	return unary_ok(a) && unary_ok(b) && a.sizes() == b.sizes();
}

at::Tensor hpu_threshold_backward(const at::Tensor &grad, const at::Tensor &self,
				  const at::Scalar &threshold)
{
	if (!same_shape_ok(grad, self) || threshold.toDouble() != 0.0)
		return at::native::call_fallback_fn<&fallback, ATEN_OP(threshold_backward)>::call(
			grad, self, threshold);
	return binary("relu_bwd_f32", "threshold_backward", grad, self, 1.0, grad.sizes());
}

/* zero_ (optimizer.zero_grad()): a memset on the stream, after what is recorded. */
at::Tensor &hpu_zero_(at::Tensor &self)
{
	if (self.device().type() != c10::DeviceType::HPU || !self.is_contiguous())
		return at::native::call_fallback_fn<&fallback, ATEN_OP(zero_)>::call(self);
	flush_pending();
	if (self.numel())
		check(hlrt_memset_async(stream(), addr_of(self), 0,
					self.numel() * device_element_size(self)),
		      "zeroing device memory");
	return self;
}

/* ---- reductions: over the leading or the trailing dimensions ------------- */

at::Tensor reduce(const char *guid, const char *op, const at::Tensor &self, at::IntArrayRef dim,
		  bool keepdim, bool &ok)
{
	ok = false;
	if (!unary_ok(self))
		return {};
	int64_t nd = self.dim();
	std::vector<bool> red(std::max<int64_t>(nd, 1), dim.empty());
	for (int64_t d : dim)
		red[c10::maybe_wrap_dim(d, nd)] = true;
	/* The reduced dims must be a prefix or a suffix of the shape. */
	int64_t lead = 0, trail = 0;
	while (lead < nd && red[lead])
		lead++;
	while (trail < nd && red[nd - 1 - trail])
		trail++;
	int64_t nred = 0;
	for (bool r : red)
		nred += r;
	int32_t axis;
	uint64_t outer = 1, inner = 1;
	if (nd == 0 || nred == nd) {
		axis = -1;
		inner = self.numel();
	} else if (lead == nred) {
		axis = 0;
		for (int64_t i = 0; i < nd; i++)
			(red[i] ? outer : inner) *= self.size(i);
	} else if (trail == nred) {
		axis = -1;
		for (int64_t i = 0; i < nd; i++)
			(red[i] ? inner : outer) *= self.size(i);
	} else {
		return {};
	}
	std::vector<int64_t> shape;
	for (int64_t i = 0; i < nd; i++) {
		if (!red[i])
			shape.push_back(self.size(i));
		else if (keepdim)
			shape.push_back(1);
	}
	at::Tensor out = new_like(self, shape);
	struct hlrt_reduce_params p = {axis, 0};
	Arg in = arg_as(self, {outer, inner});
	launch(op, {in}, {arg(out)}, std::to_string(axis),
	       [=](hlrt_graph *g, const std::vector<hlrt_tensor *> &t) {
		       return std::vector<hlrt_tensor *>{
			       node(g, guid, {t[0]}, &p, sizeof(p), std::string("aten/") + op)};
	       });
	ok = true;
	return out;
}

at::Tensor hpu_sum_dim(const at::Tensor &self, at::OptionalIntArrayRef dim, bool keepdim,
		       c10::optional<at::ScalarType> dtype)
{
	bool ok = false;
	at::Tensor r;
	if (!dtype || *dtype == at::kFloat)
		r = reduce("reduce_sum_f32", "sum.dim_IntList", self,
			   dim ? *dim : at::IntArrayRef(), keepdim, ok);
	if (!ok)
		return at::native::call_fallback_fn<&fallback, ATEN_OP2(sum, dim_IntList)>::call(
			self, dim, keepdim, dtype);
	return r;
}

/*
 * The sum of all elements of a bool or integer tensor (the count of
 * correct predictions): INT32 on the device, an INT64 result held as INT32.
 */
bool int_sum(const at::Tensor &self, c10::optional<at::ScalarType> dtype, at::Tensor *out)
{
	at::ScalarType st = self.scalar_type();
	if (self.device().type() != c10::DeviceType::HPU || !self.is_contiguous() ||
	    !self.numel() || (st != at::kBool && st != at::kInt && st != at::kLong) ||
	    (dtype && *dtype != at::kLong))
		return false;
	*out = at::empty({}, self.options().dtype(at::kLong));
	bool cast = st == at::kBool;
	struct hlrt_reduce_params p = {-1, 0};
	launch("sum.int", {arg_as(self, {(uint64_t)self.numel()})}, {arg(*out)}, "",
	       [=](hlrt_graph *g, const std::vector<hlrt_tensor *> &t) {
		       hlrt_tensor *x = t[0];
		       if (cast)
			       x = node(g, "cast_u8_to_i32", {x}, nullptr, 0, "aten/sum/Cast");
		       return std::vector<hlrt_tensor *>{
			       node(g, "reduce_sum_i32", {x}, &p, sizeof(p), "aten/sum")};
	       });
	return true;
}

at::Tensor hpu_sum(const at::Tensor &self, c10::optional<at::ScalarType> dtype)
{
	bool ok = false;
	at::Tensor r;
	if (int_sum(self, dtype, &r))
		return r;
	if (!dtype || *dtype == at::kFloat)
		r = reduce("reduce_sum_f32", "sum", self, at::IntArrayRef(), false, ok);
	if (!ok)
		return at::native::call_fallback_fn<&fallback, ATEN_OP(sum)>::call(self, dtype);
	return r;
}

at::Tensor hpu_mean_dim(const at::Tensor &self, at::OptionalIntArrayRef dim, bool keepdim,
			c10::optional<at::ScalarType> dtype)
{
	bool ok = false;
	at::Tensor r;
	if (!dtype || *dtype == at::kFloat)
		r = reduce("reduce_mean_f32", "mean.dim", self, dim ? *dim : at::IntArrayRef(),
			   keepdim, ok);
	if (!ok)
		return at::native::call_fallback_fn<&fallback, ATEN_OP2(mean, dim)>::call(
			self, dim, keepdim, dtype);
	return r;
}

} // namespace

hlrt_status launch_recipe(hlrt_recipe *r, const struct hlrt_tensor_binding *b, size_t n,
			  uint64_t ws)
{
	std::lock_guard<std::mutex> guard(g_lock);
	return launch_locked(r, b, n, ws);
}

/* Run what lazy mode recorded. */
void flush_pending()
{
	std::lock_guard<std::mutex> guard(g_lock);
	if (!g_pending.empty()) {
		std::vector<PendingOp> ops;
		ops.swap(g_pending);
		run_ops(ops);
	}
}

/*
 * BF16 autocast on or off for the ops from now on: what is recorded runs
 * first, so one graph never mixes the two.
 */
bool set_autocast(bool on)
{
	std::lock_guard<std::mutex> guard(g_lock);
	if (!g_pending.empty()) {
		std::vector<PendingOp> ops;
		ops.swap(g_pending);
		run_ops(ops);
	}
	bool old = g_bf16;
	g_bf16 = on;
	return old;
}

/* Recipes compiled so far (each op sequence's structure once while cached). */
int64_t compiled_recipes()
{
	std::lock_guard<std::mutex> guard(g_lock);
	return g_compiles;
}

/*
 * Copies of compiled recipes made so far (a structure launched with more
 * than one set of addresses), and launches that re-patched one (libhlrt
 * rewrote and uploaded its image for other addresses).
 */
int64_t recipe_copies()
{
	std::lock_guard<std::mutex> guard(g_lock);
	return g_copies;
}

int64_t recipe_patches()
{
	std::lock_guard<std::mutex> guard(g_lock);
	return g_patches;
}

/* Ops given to the device so far, and the launches that ran them. */
int64_t device_ops()
{
	std::lock_guard<std::mutex> guard(g_lock);
	return g_ops;
}

int64_t device_runs()
{
	std::lock_guard<std::mutex> guard(g_lock);
	return g_runs;
}

TORCH_LIBRARY_IMPL(aten, HPU, m)
{
	m.impl("mm", hpu_mm);
	m.impl("addmm", hpu_addmm);
	m.impl("bmm", hpu_bmm);
	m.impl("add.Tensor", hpu_add);
	m.impl("add_.Tensor", hpu_add_);
	m.impl("sub.Tensor", hpu_sub);
	m.impl("mul.Tensor", hpu_mul);
	m.impl("mul.Scalar", hpu_mul_scalar);
	m.impl("div.Tensor", hpu_div);
	m.impl("relu", hpu_relu);
	m.impl("zero_", hpu_zero_);
	m.impl("threshold_backward", hpu_threshold_backward);
	m.impl("sum", hpu_sum);
	m.impl("sum.dim_IntList", hpu_sum_dim);
	m.impl("mean.dim", hpu_mean_dim);
}

} // namespace hpu
