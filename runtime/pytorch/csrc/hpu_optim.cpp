// SPDX-License-Identifier: MIT
/*
 * Habana's fused optimizers on libhlrt's fused-optimizer nodes: one graph
 * per parameter list and hyper-parameters, built by the runtime's public
 * optimizer call (hlrt_graph_apply_optimizer), compiled once and launched
 * every step with the parameters, gradients and state tensors bound.
 * The weights and the state are updated in place in device memory.
 */
#include <torch/library.h>

#include <map>
#include <mutex>
#include <vector>

#include "hpu.h"

namespace hpu {

namespace {

struct OptRecipe {
	hlrt_recipe *recipe;
	uint64_t workspace;
	std::vector<std::string> state_names;	/* per param, n_state each */
	std::string step_name;			/* "" when the kind keeps no count */
};

std::mutex g_lock;
std::map<std::string, OptRecipe> g_cache;

hlrt_tensor *make(hlrt_graph *g, const std::string &name, hlrt_dtype dt, const at::Tensor &t,
		  hlrt_tensor_role role)
{
	struct hlrt_tensor_desc d = {};
	d.name = name.c_str();
	d.dtype = dt;
	d.ndims = t.dim() ? t.dim() : 1;
	for (int64_t i = 0; i < t.dim(); i++)
		d.dims[i] = t.size(i);
	if (!t.dim())
		d.dims[0] = 1;
	d.role = role;
	hlrt_tensor *out = nullptr;
	check(hlrt_tensor_create(g, &d, &out), "creating a tensor");
	return out;
}

void check_dev(const at::Tensor &t, at::ScalarType st, const char *what)
{
	TORCH_CHECK(t.device().type() == c10::DeviceType::HPU && t.scalar_type() == st &&
			    t.is_contiguous(),
		    "hpu fused optimizer: ", what, " must be a contiguous hpu tensor of ", st);
}

/*
 * kind: enum hlrt_optimizer_kind; hyper: the kind's parameter struct as
 * floats (sgd: weight_decay, momentum, dampening, nesterov; adamw and
 * lamb: beta1, beta2, eps, weight_decay; adagrad: eps, weight_decay,
 * initial_accumulator); state: hlrt_optimizer_state_count() tensors per
 * parameter, in its order; step: INT32[1] for AdamW and LAMB.
 */
void fused_step(int64_t kind, std::vector<at::Tensor> params, std::vector<at::Tensor> grads,
		std::vector<at::Tensor> state, c10::optional<at::Tensor> step, at::Tensor lr,
		std::vector<double> hyper)
{
	struct hlrt_optimizer_desc desc = {};
	desc.kind = kind;
	float *f = reinterpret_cast<float *>(&desc.u);
	TORCH_CHECK(hyper.size() <= sizeof(desc.u) / sizeof(float), "hpu: too many hyper-parameters");
	for (size_t i = 0; i < hyper.size(); i++)
		f[i] = (float)hyper[i];
	if (kind == HLRT_OPT_SGD) {
		uint32_t nesterov = hyper.size() > 3 && hyper[3] != 0.0;
		desc.u.sgd.nesterov = nesterov;
	}
	TORCH_CHECK(!params.empty() && params.size() == grads.size(),
		    "hpu fused optimizer: as many gradients as parameters");
	uint32_t n_state = hlrt_optimizer_state_count(&desc);
	TORCH_CHECK(state.size() == params.size() * n_state, "hpu fused optimizer: ",
		    params.size() * n_state, " state tensors expected");
	check_dev(lr, at::kFloat, "lr");
	std::string key = std::to_string(kind);
	for (double h : hyper)
		key += "," + std::to_string(h);
	for (size_t i = 0; i < params.size(); i++) {
		check_dev(params[i], at::kFloat, "a parameter");
		check_dev(grads[i], at::kFloat, "a gradient");
		TORCH_CHECK(grads[i].sizes() == params[i].sizes(), "hpu fused optimizer: gradient shape");
		for (uint32_t s = 0; s < n_state; s++) {
			check_dev(state[i * n_state + s], at::kFloat, "a state tensor");
			TORCH_CHECK(state[i * n_state + s].sizes() == params[i].sizes(),
				    "hpu fused optimizer: state shape");
		}
		key += "|" + std::to_string(params[i].numel());
		for (int64_t d : params[i].sizes())
			key += "," + std::to_string(d);
	}

	flush_pending();
	std::lock_guard<std::mutex> guard(g_lock);
	auto it = g_cache.find(key);
	if (it == g_cache.end()) {
		hlrt_graph *g = nullptr;
		check(hlrt_graph_create(&g), "creating a graph");
		std::unique_ptr<hlrt_graph, decltype(&hlrt_graph_destroy)> owner(g, hlrt_graph_destroy);
		std::vector<hlrt_tensor *> tp, tg;
		for (size_t i = 0; i < params.size(); i++) {
			tp.push_back(make(g, "p" + std::to_string(i), HLRT_FP32, params[i],
					  HLRT_TENSOR_PARAMETER));
			tg.push_back(make(g, "g" + std::to_string(i), HLRT_FP32, grads[i],
					  HLRT_TENSOR_INPUT));
		}
		hlrt_tensor *tlr = make(g, "lr", HLRT_FP32, lr, HLRT_TENSOR_INPUT);
		check(hlrt_graph_apply_optimizer(g, &desc, tlr, tp.data(), tg.data(), tp.size()),
		      "building the optimizer");
		OptRecipe r = {};
		for (size_t i = 0; i < params.size(); i++)
			for (uint32_t s = 0; s < n_state; s++) {
				hlrt_tensor *t = nullptr;
				check(hlrt_graph_optimizer_state(g, tp[i], s, &t), "optimizer state");
				r.state_names.push_back(hlrt_tensor_name(t));
			}
		hlrt_tensor *ts = nullptr;
		if (hlrt_graph_optimizer_state(g, nullptr, 0, &ts) == HLRT_SUCCESS)
			r.step_name = hlrt_tensor_name(ts);
		struct hlrt_compile_options opts = {};
		opts.eager = HLRT_EAGER_OFF;
		check(hlrt_graph_compile(g, &opts, &r.recipe), "compiling the optimizer");
		check(hlrt_recipe_workspace_size(r.recipe, &r.workspace), "sizing the workspace");
		it = g_cache.emplace(key, r).first;
	}
	const OptRecipe &r = it->second;
	TORCH_CHECK(r.step_name.empty() || (step && step->defined()),
		    "hpu fused optimizer: this optimizer needs its step count tensor");
	if (!r.step_name.empty())
		check_dev(*step, at::kInt, "the step count");

	std::vector<std::string> names;
	std::vector<uint64_t> addrs;
	for (size_t i = 0; i < params.size(); i++) {
		names.push_back("p" + std::to_string(i));
		addrs.push_back(addr_of(params[i]));
		names.push_back("g" + std::to_string(i));
		addrs.push_back(addr_of(grads[i]));
	}
	names.push_back("lr");
	addrs.push_back(addr_of(lr));
	for (size_t i = 0; i < r.state_names.size(); i++) {
		names.push_back(r.state_names[i]);
		addrs.push_back(addr_of(state[i]));
	}
	if (!r.step_name.empty()) {
		names.push_back(r.step_name);
		addrs.push_back(addr_of(*step));
	}
	std::vector<struct hlrt_tensor_binding> b;
	for (size_t i = 0; i < names.size(); i++)
		b.push_back({names[i].c_str(), addrs[i]});
	c10::DataPtr ws = allocator()->allocate(r.workspace);
	check(launch_recipe(r.recipe, b.data(), b.size(), reinterpret_cast<uint64_t>(ws.get())),
	      "launching the optimizer");
}

} // namespace

TORCH_LIBRARY_FRAGMENT(hpu_bridge, m)
{
	m.def("fused_step", fused_step);
}

} // namespace hpu
