// SPDX-License-Identifier: MIT
/*
 * MEMORY: HBM allocation, accounting and exhaustion, device addresses,
 * userptr mappings of host memory, and the argument checks of every op.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common.h"

#define PAGE GAUDISIM_DRAM_PAGE_SIZE

static int mem_raw(int fd, union gaudisim_mem_args *args)
{
	return hlthunk_ioctl(fd, DRM_IOCTL_GAUDISIM_MEMORY, args);
}

/* ---- HBM allocation and accounting ------------------------------------- */

START_TEST(alloc_free_accounting)
{
	struct test_dram_usage before, during, after;
	int control = open_control_ok();
	struct test_dram_usage seen;
	uint64_t handle;

	dram_usage_ok(dev_fd, &before);
	ck_assert_int_eq(mem_alloc_rc(dev_fd, 3 * PAGE, &handle), 0);
	dram_usage_ok(dev_fd, &during);
	ck_assert_uint_eq(during.dram_used_mem, before.dram_used_mem + 3 * PAGE);
	ck_assert_uint_eq(during.dram_free_mem, before.dram_free_mem - 3 * PAGE);
	ck_assert_uint_eq(during.ctx_dram_mem, before.ctx_dram_mem + 3 * PAGE);
	ck_assert_uint_eq(during.dram_total_mem, before.dram_total_mem);

	/* hl-smi's view from the control node sees the same totals. */
	dram_usage_ok(control, &seen);
	ck_assert_uint_eq(seen.dram_used_mem, during.dram_used_mem);
	ck_assert_uint_eq(seen.dram_free_mem, during.dram_free_mem);

	ck_assert_int_eq(hlthunk_device_memory_free(dev_fd, handle), 0);
	dram_usage_ok(dev_fd, &after);
	ck_assert_mem_eq(&after, &before, sizeof(after));
	hlthunk_close(control);
}
END_TEST

static const struct {
	uint64_t size;
	uint64_t charged;
} rounding[] = {
	{ 1, PAGE },
	{ PAGE - 1, PAGE },
	{ PAGE, PAGE },
	{ PAGE + 1, 2 * PAGE },
	{ 5 * PAGE + 4096, 6 * PAGE },
};

START_TEST(alloc_rounds_up_to_pages)
{
	struct test_dram_usage before, during;
	uint64_t handle;

	dram_usage_ok(dev_fd, &before);
	ck_assert_int_eq(mem_alloc_rc(dev_fd, rounding[_i].size, &handle), 0);
	dram_usage_ok(dev_fd, &during);
	ck_assert_uint_eq(during.dram_used_mem - before.dram_used_mem, rounding[_i].charged);
	ck_assert_int_eq(hlthunk_device_memory_free(dev_fd, handle), 0);
}
END_TEST

START_TEST(map_gives_user_hbm_addresses)
{
	struct hlthunk_hw_ip_info hw;
	struct hbm_buf a, b;

	hw_ip_ok(dev_fd, &hw);
	hbm_alloc_ok(dev_fd, &a, 4 * PAGE);
	hbm_alloc_ok(dev_fd, &b, PAGE);
	ck_assert_uint_ge(a.addr, hw.dram_base_address);
	ck_assert_uint_le(a.addr + 4 * PAGE, hw.dram_base_address + hw.dram_size);
	ck_assert_uint_ge(b.addr, hw.dram_base_address);
	ck_assert_uint_le(b.addr + PAGE, hw.dram_base_address + hw.dram_size);
	ck_assert_uint_eq(a.addr % PAGE, 0);
	ck_assert_uint_eq(b.addr % PAGE, 0);
	ck_assert_msg(a.addr + 4 * PAGE <= b.addr || b.addr + PAGE <= a.addr,
		      "allocations overlap: 0x%llx and 0x%llx", (unsigned long long)a.addr,
		      (unsigned long long)b.addr);
	ck_assert_uint_ne(a.handle, b.handle);
	/* Mapping again gives the same address. */
	ck_assert_int_eq(mem_map_rc(dev_fd, a.handle, &(uint64_t){ 0 }), 0);
	hbm_free_ok(dev_fd, &b);
	hbm_free_ok(dev_fd, &a);
}
END_TEST

START_TEST(alloc_until_exhausted)
{
	struct test_dram_usage start, full, end;
	uint64_t *handles;
	size_t max, n = 0, i;
	uint64_t chunk;
	int rc = 0;

	dram_usage_ok(dev_fd, &start);
	ck_assert_uint_eq(start.dram_used_mem, 0);
	/* Big chunks first, then single pages, so the loop stays short. */
	max = start.dram_total_mem / GiB + GiB / PAGE + 2;
	handles = calloc(max, sizeof(*handles));
	ck_assert_ptr_nonnull(handles);
	for (chunk = GiB; chunk >= PAGE; chunk = chunk == GiB ? PAGE : 0) {
		while (n < max) {
			rc = mem_alloc_rc(dev_fd, chunk, &handles[n]);
			if (rc)
				break;
			n++;
		}
		ck_assert_msg(rc == -ENOMEM, "allocating %llu bytes: %s (expected ENOMEM)",
			      (unsigned long long)chunk, strerror(-rc));
	}
	dram_usage_ok(dev_fd, &full);
	ck_assert_uint_eq(full.dram_free_mem, 0);
	ck_assert_uint_eq(full.dram_used_mem, full.dram_total_mem);
	ck_assert_uint_eq(full.ctx_dram_mem, full.dram_total_mem);
	ck_assert_int_eq(mem_alloc_rc(dev_fd, 1, &(uint64_t){ 0 }), -ENOMEM);

	for (i = 0; i < n; i++)
		ck_assert_int_eq(hlthunk_device_memory_free(dev_fd, handles[i]), 0);
	dram_usage_ok(dev_fd, &end);
	ck_assert_uint_eq(end.dram_used_mem, 0);
	ck_assert_uint_eq(end.ctx_dram_mem, 0);
	ck_assert_uint_eq(end.dram_free_mem, end.dram_total_mem);
	/* And the memory is usable again. */
	ck_assert_int_eq(mem_alloc_rc(dev_fd, GiB, &handles[0]), 0);
	ck_assert_int_eq(hlthunk_device_memory_free(dev_fd, handles[0]), 0);
	free(handles);
}
END_TEST

START_TEST(alloc_too_big_is_enomem)
{
	struct test_dram_usage u;
	uint64_t handle;
	int rc;

	dram_usage_ok(dev_fd, &u);
	ck_assert_int_eq(mem_alloc_rc(dev_fd, u.dram_total_mem + PAGE, &handle),
			 -ENOMEM);
	/* Sizes whose page rounding would overflow. */
	rc = mem_alloc_rc(dev_fd, UINT64_MAX, &handle);
	ck_assert_msg(rc == -ENOMEM || rc == -EINVAL, "UINT64_MAX: %s", strerror(-rc));
	rc = mem_alloc_rc(dev_fd, UINT64_MAX - PAGE + 2, &handle);
	ck_assert_msg(rc == -ENOMEM || rc == -EINVAL, "near UINT64_MAX: %s", strerror(-rc));
	dram_usage_ok(dev_fd, &u);
	ck_assert_uint_eq(u.dram_used_mem, 0);
}
END_TEST

START_TEST(alloc_size_0_is_einval)
{
	ck_assert_int_eq(mem_alloc_rc(dev_fd, 0, &(uint64_t){ 0 }), -EINVAL);
}
END_TEST

START_TEST(free_bad_handles)
{
	uint64_t handle;

	ck_assert_int_eq(hlthunk_device_memory_free(dev_fd, 0xdeadbeef00ULL), -EINVAL);
	ck_assert_int_eq(mem_alloc_rc(dev_fd, PAGE, &handle), 0);
	ck_assert_int_eq(hlthunk_device_memory_free(dev_fd, handle + 0x1000000), -EINVAL);
	ck_assert_int_eq(hlthunk_device_memory_free(dev_fd, handle), 0);
	ck_assert_int_eq(hlthunk_device_memory_free(dev_fd, handle), -EINVAL);
	ck_assert_int_eq(mem_map_rc(dev_fd, handle, &(uint64_t){ 0 }), -EINVAL);
}
END_TEST

START_TEST(close_frees_allocations)
{
	struct test_dram_usage u;
	uint64_t handle;
	int control = open_control_ok();

	ck_assert_int_eq(mem_alloc_rc(dev_fd, 8 * PAGE, &handle), 0);
	dram_usage_ok(control, &u);
	ck_assert_uint_eq(u.dram_used_mem, 8 * PAGE);
	hlthunk_close(dev_fd);
	dev_fd = -1;
	dram_usage_ok(control, &u);
	ck_assert_uint_eq(u.dram_used_mem, 0);
	dev_fd = open_compute_ok();
	dram_usage_ok(dev_fd, &u);
	ck_assert_uint_eq(u.ctx_dram_mem, 0);
	hlthunk_close(control);
}
END_TEST

/* ---- Userptr mappings --------------------------------------------------- */

START_TEST(userptr_map_unmap)
{
	struct host_buf a, b;

	host_buf_map_ok(dev_fd, &a, 64 * KiB);
	host_buf_map_ok(dev_fd, &b, 3 * 4096);
	ck_assert_msg(a.va + a.size <= b.va || b.va + b.size <= a.va,
		      "userptr VAs overlap");
	ck_assert_int_eq(hlthunk_memory_unmap(dev_fd, a.va), 0);
	ck_assert_int_eq(hlthunk_memory_unmap(dev_fd, a.va), -EINVAL);
	a.va = 0;
	host_buf_release(dev_fd, &a);
	host_buf_release(dev_fd, &b);
}
END_TEST

START_TEST(userptr_same_memory_twice)
{
	struct host_buf a;
	uint64_t va2;

	host_buf_map_ok(dev_fd, &a, 16 * KiB);
	ck_assert_int_eq(host_map_rc(dev_fd, a.ptr, a.size, &va2), 0);
	ck_assert_uint_ne(va2, a.va);
	ck_assert_int_eq(hlthunk_memory_unmap(dev_fd, va2), 0);
	host_buf_release(dev_fd, &a);
}
END_TEST

/* As habanalabs: any byte range maps, and the VA keeps the offset in its page. */
START_TEST(userptr_of_any_alignment)
{
	long page = sysconf(_SC_PAGESIZE);
	struct host_buf a;
	uint64_t va;

	host_buf_alloc_ok(&a, 4 * (uint64_t)page);
	ck_assert_int_eq(host_map_rc(dev_fd, a.ptr + 100, (uint64_t)page + 1, &va), 0);
	ck_assert_uint_eq(va % (uint64_t)page, 100);
	/* The device writes exactly where the buffer's bytes are. */
	memset(a.ptr, 0, a.size);
	memset_ok(dev_fd, va, 0x5a, 8, QUEUE_H2D);
	ck_assert_uint_eq(a.ptr[99], 0);
	ck_assert_uint_eq(a.ptr[100], 0x5a);
	ck_assert_uint_eq(a.ptr[107], 0x5a);
	ck_assert_uint_eq(a.ptr[108], 0);
	/* UNMAP takes the address MAP returned, not its page. */
	ck_assert_int_eq(hlthunk_memory_unmap(dev_fd, va - 100), -EINVAL);
	ck_assert_int_eq(hlthunk_memory_unmap(dev_fd, va), 0);
	host_buf_release(dev_fd, &a);
}
END_TEST

START_TEST(userptr_bad_arguments)
{
	long page = sysconf(_SC_PAGESIZE);
	struct host_buf a;
	uint64_t va;
	void *gone;
	int rc;

	host_buf_alloc_ok(&a, 4 * (uint64_t)page);
	ck_assert_int_eq(host_map_rc(dev_fd, a.ptr, 0, &va), -EINVAL);
	ck_assert_int_eq(host_map_rc(dev_fd, a.ptr, GAUDISIM_USERPTR_MAX_SIZE +
						 (uint64_t)page, &va), -EINVAL);
	ck_assert_int_eq(host_map_rc(dev_fd, a.ptr, UINT64_MAX - (uint64_t)page + 1,
						 &va), -EINVAL);
	/* Address space that is not mapped. */
	gone = mmap(NULL, (size_t)page * 4, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert(gone != MAP_FAILED);
	munmap(gone, (size_t)page * 4);
	ck_assert_int_eq(host_map_rc(dev_fd, gone, (uint64_t)page * 4, &va), -EFAULT);
	rc = host_map_rc(dev_fd, NULL, (uint64_t)page, &va);
	ck_assert_msg(rc == -EFAULT || rc == -EINVAL, "NULL: %s", strerror(-rc));
	/* Kernel addresses. */
	rc = host_map_rc(dev_fd, (void *)0xffff880000000000ULL, (uint64_t)page, &va);
	ck_assert_msg(rc == -EFAULT || rc == -EINVAL, "kernel address: %s", strerror(-rc));
	host_buf_release(dev_fd, &a);
}
END_TEST

/*
 * A host mapping may span more than 4 GiB, as on habanalabs: a range of
 * 4 GiB + 2 MiB built from one 2 MiB memfd mapped again and again (the
 * guest needs no such RAM) maps, and a DMA reaches its last page.
 */
START_TEST(userptr_above_4gib)
{
	const size_t piece = 2u << 20;
	const uint64_t span = (4ull << 30) + piece;
	uint8_t *range;
	struct hbm_buf h;
	uint64_t off, va = 0;
	int mfd;

	mfd = memfd_create("gsim-alias", 0);
	ck_assert_int_ge(mfd, 0);
	ck_assert_int_eq(ftruncate(mfd, (off_t)piece), 0);
	range = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ck_assert(range != MAP_FAILED);
	for (off = 0; off < span; off += piece)
		ck_assert(mmap(range + off, piece, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
			       mfd, 0) != MAP_FAILED);
	memset(range, 0, piece);

	ck_assert_int_eq(host_map_rc(dev_fd, range, span, &va), 0);
	hbm_alloc_ok(dev_fd, &h, 4096);
	memset_ok(dev_fd, h.addr, 0x5a, 4096, QUEUE_H2D);
	dma_ok(dev_fd, h.addr, va + span - 4096, 4096, QUEUE_D2H);
	/* The last page of the range is the memfd's last page. */
	ck_assert_int_eq(first_byte_not(range + piece - 4096, 4096, 0x5a), -1);
	ck_assert_int_eq(first_byte_not(range, piece - 4096, 0), -1);

	ck_assert_int_eq(hlthunk_memory_unmap(dev_fd, va), 0);
	hbm_free_ok(dev_fd, &h);
	ck_assert_int_eq(munmap(range, span), 0);
	close(mfd);
}
END_TEST

START_TEST(unmap_bad_addresses)
{
	ck_assert_int_eq(hlthunk_memory_unmap(dev_fd, 0), -EINVAL);
	ck_assert_int_eq(hlthunk_memory_unmap(dev_fd, GAUDISIM_HOST_VA_BASE), -EINVAL);
	ck_assert_int_eq(hlthunk_memory_unmap(dev_fd, GAUDISIM_HBM_USER_BASE), -EINVAL);
	ck_assert_int_eq(hlthunk_memory_unmap(dev_fd, UINT64_MAX), -EINVAL);
}
END_TEST

START_TEST(unmap_inside_a_mapping_is_einval)
{
	struct host_buf a;

	host_buf_map_ok(dev_fd, &a, 64 * KiB);
	ck_assert_int_eq(hlthunk_memory_unmap(dev_fd, a.va + 4096), -EINVAL);
	host_buf_release(dev_fd, &a);
}
END_TEST

START_TEST(many_userptr_mappings)
{
	struct host_buf bufs[64];
	int i;

	for (i = 0; i < 64; i++)
		host_buf_map_ok(dev_fd, &bufs[i], 4096);
	for (i = 0; i < 64; i += 2)
		host_buf_release(dev_fd, &bufs[i]);
	for (i = 0; i < 64; i += 2)
		host_buf_map_ok(dev_fd, &bufs[i], 8192);
	for (i = 0; i < 64; i++)
		host_buf_release(dev_fd, &bufs[i]);
}
END_TEST

/* ---- Argument checks ------------------------------------------------------ */

enum mem_case {
	UNKNOWN_OP, UNKNOWN_FLAG, HIGH_FLAG, USERPTR_WITH_ALLOC, USERPTR_WITH_FREE,
	CTX_ID, PAD, ALLOC_RESERVED, FREE_RESERVED, MAP_RESERVED, UNMAP_RESERVED,
	NUM_MEM_CASES
};

START_TEST(mem_args_refused)
{
	union gaudisim_mem_args a;
	uint64_t handle;

	ck_assert_int_eq(mem_alloc_rc(dev_fd, PAGE, &handle), 0);
	memset(&a, 0, sizeof(a));
	a.in.op = GAUDISIM_MEM_OP_ALLOC;
	a.in.alloc.mem_size = PAGE;
	switch (_i) {
	case UNKNOWN_OP:
		a.in.op = 4;
		break;
	case UNKNOWN_FLAG:
		a.in.flags = 0x2;	/* habanalabs' SHARED: not offered */
		break;
	case HIGH_FLAG:
		a.in.flags = 0x80000000u;
		break;
	case USERPTR_WITH_ALLOC:
		a.in.flags = GAUDISIM_MEM_USERPTR;
		break;
	case USERPTR_WITH_FREE:
		a.in.op = GAUDISIM_MEM_OP_FREE;
		a.in.free.handle = handle;
		a.in.flags = GAUDISIM_MEM_USERPTR;
		break;
	case CTX_ID:
		a.in.ctx_id = 1;
		break;
	case PAD:
		a.in.num_of_elements = 1;
		break;
	case ALLOC_RESERVED:
		a.in.alloc.page_size = 4096;	/* only 2 MiB pages */
		break;
	case FREE_RESERVED:
		a.in.op = GAUDISIM_MEM_OP_FREE;
		a.in.free.handle = handle;
		a.in.raw[1] = 1;
		break;
	case MAP_RESERVED:
		a.in.op = GAUDISIM_MEM_OP_MAP;
		a.in.map_device.handle = handle;
		a.in.map_device.hint_addr = GAUDISIM_HBM_USER_BASE;	/* HBM has no VA */
		break;
	case UNMAP_RESERVED:
		a.in.op = GAUDISIM_MEM_OP_UNMAP;
		a.in.unmap.device_virt_addr = GAUDISIM_HOST_VA_BASE;
		a.in.raw[2] = 1;
		break;
	}
	ck_assert_int_eq(mem_raw(dev_fd, &a), -EINVAL);
	/* The refused call changed nothing: the handle is still ours to free once. */
	ck_assert_int_eq(hlthunk_device_memory_free(dev_fd, handle), 0);
	{
		struct test_dram_usage u;

		dram_usage_ok(dev_fd, &u);
		ck_assert_uint_eq(u.dram_used_mem, 0);
	}
}
END_TEST

START_TEST(unknown_ops_refused)
{
	static const uint32_t ops[] = { 4, 5, 6, 99, 0xffffffff };
	union gaudisim_mem_args a;
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		memset(&a, 0, sizeof(a));
		a.in.op = ops[i];
		ck_assert_int_eq(mem_raw(dev_fd, &a), -EINVAL);
	}
}
END_TEST

static Suite *memory_suite(void)
{
	Suite *s = suite_create("memory");
	TCase *hbm = compute_tcase("hbm", TCASE_TIMEOUT_DMA);
	TCase *userptr = compute_tcase("userptr", TCASE_TIMEOUT_SHORT);
	TCase *args = compute_tcase("arguments", TCASE_TIMEOUT_SHORT);

	tcase_add_test(hbm, alloc_free_accounting);
	tcase_add_loop_test(hbm, alloc_rounds_up_to_pages, 0,
			    (int)(sizeof(rounding) / sizeof(rounding[0])));
	tcase_add_test(hbm, map_gives_user_hbm_addresses);
	tcase_add_test(hbm, alloc_until_exhausted);
	tcase_add_test(hbm, alloc_too_big_is_enomem);
	tcase_add_test(hbm, alloc_size_0_is_einval);
	tcase_add_test(hbm, free_bad_handles);
	tcase_add_test(hbm, close_frees_allocations);
	suite_add_tcase(s, hbm);

	tcase_add_test(userptr, userptr_map_unmap);
	tcase_add_test(userptr, userptr_same_memory_twice);
	tcase_add_test(userptr, userptr_of_any_alignment);
	tcase_add_test(userptr, userptr_bad_arguments);
	tcase_add_test(userptr, userptr_above_4gib);
	tcase_add_test(userptr, unmap_bad_addresses);
	tcase_add_test(userptr, unmap_inside_a_mapping_is_einval);
	tcase_add_test(userptr, many_userptr_mappings);
	suite_add_tcase(s, userptr);

	tcase_add_loop_test(args, mem_args_refused, 0, NUM_MEM_CASES);
	tcase_add_test(args, unknown_ops_refused);
	suite_add_tcase(s, args);
	return s;
}

int main(void)
{
	return run_suite(memory_suite());
}
