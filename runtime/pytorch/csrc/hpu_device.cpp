// SPDX-License-Identifier: MIT
/*
 * The hpu bridge's device: libhlrt devices acquired on first use, one
 * stream per device for launches and copies (so they run in order), the
 * device guard PyTorch asks for the current device, and the caching
 * allocator of HBM.
 */
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <vector>

#include "hpu.h"

namespace hpu {

void check(hlrt_status st, const char *what)
{
	TORCH_CHECK(st == HLRT_SUCCESS, "hpu: ", what, ": ", hlrt_status_name(st), ": ",
		    hlrt_last_error());
}

namespace {

constexpr int kMaxDevices = 8;

struct DeviceSlot {
	hlrt_device *dev = nullptr;
	hlrt_stream *stream = nullptr;
};

std::mutex g_lock;
DeviceSlot g_slots[kMaxDevices];
int g_current = 0;

DeviceSlot &slot()
{
	std::lock_guard<std::mutex> guard(g_lock);
	DeviceSlot &s = g_slots[g_current];
	if (!s.dev) {
		check(hlrt_device_acquire(g_current, &s.dev), "acquiring the device");
		hlrt_status st = hlrt_stream_create(s.dev, &s.stream);
		if (st != HLRT_SUCCESS) {
			hlrt_device_release(s.dev);
			s.dev = nullptr;
			check(st, "creating a stream");
		}
	}
	return s;
}

} // namespace

hlrt_device *device()
{
	return slot().dev;
}

hlrt_stream *stream()
{
	return slot().stream;
}

int current_index()
{
	return g_current;
}

int device_count()
{
	uint32_t n = 0;

	if (hlrt_device_count(&n) != HLRT_SUCCESS)
		return 0;
	return n > kMaxDevices ? kMaxDevices : (int)n;
}

void set_current_index(int index)
{
	TORCH_CHECK(index >= 0 && index < device_count(), "hpu: no device ", index, " (",
		    device_count(), " visible)");
	g_current = index;
}

/*
 * At exit: wait for the work, then release every acquired device (which
 * also writes the runtime's profile, HLRT_PROFILE). Device memory still
 * referenced by tensors is not touched again: freeing only caches blocks.
 */
void release_devices()
{
	std::lock_guard<std::mutex> guard(g_lock);
	for (DeviceSlot &s : g_slots) {
		if (!s.dev)
			continue;
		hlrt_stream_synchronize(s.stream);
		hlrt_device_release(s.dev);
		s.dev = nullptr;
		s.stream = nullptr;
	}
}

void synchronize()
{
	check(hlrt_stream_synchronize(stream()), "synchronizing");
}

/* ---- the caching allocator --------------------------------------------- */

namespace {

/*
 * Blocks rounded up to 512 bytes, kept in per-size free lists when freed
 * and reused by the next allocation of that size, the lowest address
 * first: a training loop's steps then get the same few buffers in the
 * same places, so the op recipes keep their patched addresses (a
 * last-freed-first order rotates same-size buffers with a long period,
 * and each new address set re-patches a recipe). On out of HBM the cache
 * is returned to the device and the allocation retried. Statistics follow
 * the user's allocations (Habana's memory_stats keys).
 */
class CachingAllocator final : public c10::Allocator {
public:
	c10::DataPtr allocate(size_t nbytes) const override
	{
		int index = current_index();
		if (nbytes == 0)
			return {nullptr, nullptr, &release, c10::Device(c10::DeviceType::HPU, index)};
		uint64_t size = (nbytes + 511) & ~uint64_t(511);
		uint64_t addr = take(size);
		return {reinterpret_cast<void *>(addr), reinterpret_cast<void *>(addr), &release,
			c10::Device(c10::DeviceType::HPU, index)};
	}

	c10::DeleterFnPtr raw_deleter() const override
	{
		return &release;
	}

	static MemStats stats()
	{
		std::lock_guard<std::mutex> guard(lock_);
		MemStats s = stats_;
		struct hlrt_device_info info = {};
		if (hlrt_device_get_info(device(), &info) == HLRT_SUCCESS)
			s.limit = (int64_t)info.hbm_total;
		return s;
	}

	static void reset_peak()
	{
		std::lock_guard<std::mutex> guard(lock_);
		stats_.max_in_use = stats_.in_use;
		stats_.max_alloc_size = 0;
	}

private:
	static uint64_t take(uint64_t size)
	{
		hlrt_device *dev = device();
		std::lock_guard<std::mutex> guard(lock_);
		uint64_t addr = 0;
		auto it = free_.find(size);
		if (it != free_.end() && !it->second.empty()) {
			addr = *it->second.begin();
			it->second.erase(it->second.begin());
		} else {
			hlrt_status st = hlrt_device_malloc(dev, size, &addr);
			if (st == HLRT_OUT_OF_DEVICE_MEMORY) {
				empty_cache(dev);
				st = hlrt_device_malloc(dev, size, &addr);
			}
			check(st, "allocating device memory");
		}
		sizes_[addr] = size;
		stats_.in_use += size;
		stats_.num_allocs++;
		stats_.active_allocs++;
		if (stats_.in_use > stats_.max_in_use)
			stats_.max_in_use = stats_.in_use;
		if ((int64_t)size > stats_.max_alloc_size)
			stats_.max_alloc_size = size;
		return addr;
	}

	static void empty_cache(hlrt_device *dev)
	{
		hlrt_device_synchronize(dev);
		for (auto &kv : free_)
			for (uint64_t a : kv.second)
				hlrt_device_free(dev, a);
		free_.clear();
	}

	static void release(void *ctx)
	{
		if (!ctx)
			return;
		uint64_t addr = reinterpret_cast<uint64_t>(ctx);
		std::lock_guard<std::mutex> guard(lock_);
		auto it = sizes_.find(addr);
		if (it == sizes_.end())
			return;
		/* Queued work may still use it: reuse is ordered on the one stream. */
		free_[it->second].insert(addr);
		stats_.in_use -= it->second;
		stats_.num_frees++;
		stats_.active_allocs--;
		sizes_.erase(it);
	}

	static std::mutex lock_;
	static std::map<uint64_t, std::set<uint64_t>> free_;
	static std::map<uint64_t, uint64_t> sizes_;
	static MemStats stats_;
};

std::mutex CachingAllocator::lock_;
std::map<uint64_t, std::set<uint64_t>> CachingAllocator::free_;
std::map<uint64_t, uint64_t> CachingAllocator::sizes_;
MemStats CachingAllocator::stats_;

CachingAllocator g_allocator;

} // namespace

c10::Allocator *allocator()
{
	return &g_allocator;
}

MemStats memory_stats()
{
	return CachingAllocator::stats();
}

void reset_peak_memory_stats()
{
	CachingAllocator::reset_peak();
}

/* ---- the device guard --------------------------------------------------- */

namespace {

struct HpuGuardImpl final : public c10::impl::DeviceGuardImplInterface {
	static constexpr c10::DeviceType static_type = c10::DeviceType::HPU;

	c10::DeviceType type() const override
	{
		return c10::DeviceType::HPU;
	}

	c10::Device exchangeDevice(c10::Device d) const override
	{
		c10::Device old = getDevice();
		if (d.index() >= 0 && d.index() != old.index())
			set_current_index(d.index());
		return old;
	}

	c10::Device getDevice() const override
	{
		return c10::Device(c10::DeviceType::HPU, current_index());
	}

	void setDevice(c10::Device d) const override
	{
		if (d.index() >= 0)
			set_current_index(d.index());
	}

	void uncheckedSetDevice(c10::Device d) const noexcept override
	{
		if (d.index() >= 0 && d.index() < kMaxDevices)
			g_current = d.index();
	}

	c10::Stream getStream(c10::Device d) const noexcept override
	{
		return c10::Stream(c10::Stream::DEFAULT, d);
	}

	c10::Stream exchangeStream(c10::Stream s) const noexcept override
	{
		return c10::Stream(c10::Stream::DEFAULT, s.device());
	}

	c10::DeviceIndex deviceCount() const noexcept override
	{
		return device_count();
	}
};

} // namespace

C10_REGISTER_GUARD_IMPL(HPU, HpuGuardImpl);

/* ---- the placement log --------------------------------------------------- */

void log_placement(const std::string &op)
{
	static const bool enabled = [] {
		const char *v = std::getenv("HLRT_LOG_DEVICE_PLACEMENT");
		return v && *v && std::string(v) != "0";
	}();
	static std::mutex lock;
	static std::map<std::string, bool> seen;

	if (!enabled)
		return;
	std::lock_guard<std::mutex> guard(lock);
	if (seen.count(op))
		return;
	seen[op] = true;
	/* "nll_loss_forward.output" -> op class "NllLossForward" */
	std::string base = op.substr(0, op.find('.'));
	static const std::map<std::string, std::string> tf_names = {
		{"eq", "Equal"}, {"argmax", "ArgMax"}, {"mm", "MatMul"},
	};
	std::string cls;
	auto it = tf_names.find(base);
	if (it != tf_names.end()) {
		cls = it->second;
	} else {
		bool up = true;
		for (char c : base) {
			if (c == '_') {
				up = true;
				continue;
			}
			cls += up ? (char)toupper((unsigned char)c) : c;
			up = false;
		}
	}
	fprintf(stderr, "aten/%s: (%s): /device:CPU:0\n", op.c_str(), cls.c_str());
}

} // namespace hpu
