// SPDX-License-Identifier: MIT
/*
 * The bridge's own calls for the Python package (torch.ops.hpu_bridge.*):
 * device count and selection, synchronisation, memory statistics.
 */
#include <torch/library.h>

#include "hpu.h"

namespace hpu {

int64_t compiled_recipes();
int64_t device_ops();
bool set_autocast(bool on);
int64_t device_runs();
int64_t recipe_copies();
int64_t recipe_patches();

namespace {

int64_t op_device_count()
{
	return device_count();
}

int64_t op_current_device()
{
	return current_index();
}

void op_set_device(int64_t index)
{
	set_current_index(index);
}

void op_synchronize()
{
	flush_pending();
	synchronize();
}

/* Limit, InUse, MaxInUse, NumAllocs, NumFrees, ActiveAllocs, MaxAllocSize. */
std::vector<int64_t> op_memory_stats()
{
	MemStats s = memory_stats();
	return {s.limit, s.in_use, s.max_in_use, s.num_allocs, s.num_frees, s.active_allocs,
		s.max_alloc_size};
}

void op_reset_peak_memory_stats()
{
	reset_peak_memory_stats();
}

int64_t op_compiled_recipes()
{
	return compiled_recipes();
}

int64_t op_device_ops()
{
	return device_ops();
}

int64_t op_device_runs()
{
	return device_runs();
}

int64_t op_recipe_copies()
{
	return recipe_copies();
}

int64_t op_recipe_patches()
{
	return recipe_patches();
}

void op_release()
{
	flush_pending();
	release_devices();
}

bool op_set_autocast(bool on)
{
	return set_autocast(on);
}

void op_mark_step()
{
	flush_pending();
}

} // namespace

TORCH_LIBRARY(hpu_bridge, m)
{
	m.def("device_count", op_device_count);
	m.def("current_device", op_current_device);
	m.def("set_device", op_set_device);
	m.def("synchronize", op_synchronize);
	m.def("memory_stats", op_memory_stats);
	m.def("reset_peak_memory_stats", op_reset_peak_memory_stats);
	m.def("compiled_recipes", op_compiled_recipes);
	m.def("device_ops", op_device_ops);
	m.def("device_runs", op_device_runs);
	m.def("recipe_copies", op_recipe_copies);
	m.def("recipe_patches", op_recipe_patches);
	m.def("mark_step", op_mark_step);
	m.def("set_autocast", op_set_autocast);
	m.def("release", op_release);
}

} // namespace hpu
