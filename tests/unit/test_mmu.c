/* SPDX-License-Identifier: MIT */
/*
 * Device MMU: page-table walks (4 KiB and 2 MiB pages), ASID isolation,
 * faults with their address and cause, the TLB and its invalidation,
 * malformed tables, the register block and data movement through the MMU.
 *
 * The tests build page tables in HBM the way a driver does: hop tables are
 * carved from the page-table area in order, each 4 KiB and zeroed.
 */
#include <string.h>

#include "gsim_test.h"
#include "gsim_mmu.h"

#define VA(off)		(GAUDISIM_MMU_VA_BASE + (off))
#define RW		(GAUDISIM_MMU_PTE_PRESENT | GAUDISIM_MMU_PTE_WRITABLE)
#define RO		GAUDISIM_MMU_PTE_PRESENT

static uint64_t pgt_next;

static uint64_t pgt_alloc(void)
{
	uint64_t table = pgt_next;

	pgt_next += GAUDISIM_MMU_HOP_TABLE_SIZE;
	ck_assert_uint_le(pgt_next, GAUDISIM_MMU_PGT_BASE + GAUDISIM_MMU_PGT_SIZE);
	memset(hbm_ptr(table), 0, GAUDISIM_MMU_HOP_TABLE_SIZE);
	return table;
}

static uint64_t pte_get(uint64_t table, unsigned int index)
{
	uint64_t v;

	memcpy(&v, hbm_ptr(table + index * GAUDISIM_MMU_PTE_SIZE), sizeof(v));
	return v;
}

static void pte_set(uint64_t table, unsigned int index, uint64_t v)
{
	memcpy(hbm_ptr(table + index * GAUDISIM_MMU_PTE_SIZE), &v, sizeof(v));
}

static uint32_t mmu_rd(uint32_t off)
{
	return gsim_mmu_reg_read(T->core, off);
}

static enum gsim_reg_status mmu_wr(uint32_t off, uint32_t v)
{
	return gsim_mmu_reg_write(T->core, off, v, GSIM_ORIGIN_MMIO);
}

static uint64_t hop0_of(unsigned int asid)
{
	return (uint64_t)mmu_rd(GAUDISIM_MMU_HOP0_HI(asid)) << 32 |
	       mmu_rd(GAUDISIM_MMU_HOP0_LO(asid));
}

static void asid_setup(unsigned int asid)
{
	uint64_t hop0 = pgt_alloc();

	ck_assert_int_eq(mmu_wr(GAUDISIM_MMU_HOP0_LO(asid), (uint32_t)hop0), GSIM_REG_OK);
	ck_assert_int_eq(mmu_wr(GAUDISIM_MMU_HOP0_HI(asid), (uint32_t)(hop0 >> 32)),
			 GSIM_REG_OK);
}

/* Table at 'hop' on the walk of va, allocating missing ones. */
static uint64_t table_for(unsigned int asid, uint64_t va, unsigned int hop)
{
	uint64_t table = hop0_of(asid);
	unsigned int h;

	for (h = 0; h < hop; h++) {
		unsigned int i = GAUDISIM_MMU_HOP_INDEX(va, h);
		uint64_t pte = pte_get(table, i);

		if (!(pte & GAUDISIM_MMU_PTE_PRESENT)) {
			pte = pgt_alloc() | GAUDISIM_MMU_PTE_PRESENT;
			pte_set(table, i, pte);
		}
		table = pte & GAUDISIM_MMU_PTE_ADDR_MASK;
	}
	return table;
}

static void map4k(unsigned int asid, uint64_t va, uint64_t bus, uint64_t flags)
{
	uint64_t t = table_for(asid, va, GAUDISIM_MMU_LEAF_HOP);

	pte_set(t, GAUDISIM_MMU_HOP_INDEX(va, GAUDISIM_MMU_LEAF_HOP),
		bus | flags | GAUDISIM_MMU_PTE_LAST);
}

static void map2m(unsigned int asid, uint64_t va, uint64_t bus, uint64_t flags)
{
	uint64_t t = table_for(asid, va, GAUDISIM_MMU_HUGE_HOP);

	pte_set(t, GAUDISIM_MMU_HOP_INDEX(va, GAUDISIM_MMU_HUGE_HOP),
		bus | flags | GAUDISIM_MMU_PTE_LAST);
}

static int xlate(unsigned int asid, uint64_t va, uint64_t len, bool write,
		 uint64_t *bus, uint64_t *n)
{
	return gsim_mmu_translate(T->core, asid, va, len, write, bus, n);
}

static void mmu_setup(void)
{
	th_setup();
	pgt_next = GAUDISIM_MMU_PGT_BASE;
	ck_assert_int_eq(mmu_wr(GAUDISIM_MMU_CTRL, GAUDISIM_MMU_CTRL_ENABLE), GSIM_REG_OK);
	asid_setup(1);
}

START_TEST(test_mmu_4k_walk)
{
	uint64_t bus, n;

	map4k(1, VA(0x5000), 0x123456000ull, RW);
	ck_assert_int_eq(xlate(1, VA(0x5abc), 16, false, &bus, &n), 0);
	ck_assert_uint_eq(bus, 0x123456abcull);
	ck_assert_uint_eq(n, 16);
	/* The run stops at the page end when the next page is not mapped. */
	ck_assert_int_eq(xlate(1, VA(0x5f00), 0x1000, true, &bus, &n), 0);
	ck_assert_uint_eq(bus, 0x123456f00ull);
	ck_assert_uint_eq(n, 0x100);
	ck_assert_uint_eq(mmu_rd(GAUDISIM_MMU_FAULT_CNT), 0);
}
END_TEST

START_TEST(test_mmu_2m_walk)
{
	uint64_t bus, n;

	map2m(1, VA(0x40000000), 0x80000000ull, RW);
	ck_assert_int_eq(xlate(1, VA(0x40123456), 8, false, &bus, &n), 0);
	ck_assert_uint_eq(bus, 0x80123456ull);
	ck_assert_int_eq(xlate(1, VA(0x40000000), 4ull << 20, false, &bus, &n), 0);
	ck_assert_uint_eq(bus, 0x80000000ull);
	ck_assert_uint_eq(n, GAUDISIM_MMU_HUGE_PAGE_SIZE);
}
END_TEST

START_TEST(test_mmu_contiguous_merge)
{
	uint64_t bus, n;
	unsigned int i;

	/* Eight 4 KiB pages, physically in order except the last one. */
	for (i = 0; i < 7; i++)
		map4k(1, VA(0x100000 + i * 0x1000ull), 0x200000000ull + i * 0x1000ull, RW);
	map4k(1, VA(0x107000), 0x300000000ull, RW);
	ck_assert_int_eq(xlate(1, VA(0x100800), 0x8000, false, &bus, &n), 0);
	ck_assert_uint_eq(bus, 0x200000800ull);
	ck_assert_uint_eq(n, 0x7000 - 0x800);
	ck_assert_int_eq(xlate(1, VA(0x107000), 0x800, false, &bus, &n), 0);
	ck_assert_uint_eq(bus, 0x300000000ull);
	ck_assert_uint_eq(n, 0x800);
}
END_TEST

START_TEST(test_mmu_multi_level_sparse)
{
	/* VAs far apart share only the upper hops: each needs its own tables. */
	static const uint64_t offs[] = {
		0x0, 0x1000, 0x200000, 0x40000000, 0x8000000000ull, 0xFFFFFFFFF000ull,
	};
	uint64_t bus, n;
	unsigned int i;

	for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++)
		map4k(1, VA(offs[i]), 0x10000000ull * (i + 1), RO);
	for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		ck_assert_int_eq(xlate(1, VA(offs[i]) + 0x10, 1, false, &bus, &n), 0);
		ck_assert_uint_eq(bus, 0x10000000ull * (i + 1) + 0x10);
	}
}
END_TEST

START_TEST(test_mmu_asid_isolation)
{
	uint64_t bus, n;

	asid_setup(2);
	map4k(1, VA(0x7000), 0x111000, RW);
	map4k(2, VA(0x7000), 0x222000, RW);
	ck_assert_int_eq(xlate(1, VA(0x7008), 8, false, &bus, &n), 0);
	ck_assert_uint_eq(bus, 0x111008);
	ck_assert_int_eq(xlate(2, VA(0x7008), 8, false, &bus, &n), 0);
	ck_assert_uint_eq(bus, 0x222008);
	/* Again, now from the TLB: entries are tagged with their ASID. */
	ck_assert_int_eq(xlate(1, VA(0x7008), 8, false, &bus, &n), 0);
	ck_assert_uint_eq(bus, 0x111008);
	/* ASID 3 has no tables at all; 8 does not exist. */
	ck_assert_int_eq(xlate(3, VA(0x7008), 8, false, &bus, &n), GAUDISIM_MMU_CAUSE_ASID);
	ck_assert_int_eq(xlate(GAUDISIM_MMU_NUM_ASIDS, VA(0x7008), 8, false, &bus, &n),
			 GAUDISIM_MMU_CAUSE_ASID);
	/* A mapping only in ASID 2 is absent from ASID 1. */
	map4k(2, VA(0x9000), 0x333000, RW);
	ck_assert_int_eq(xlate(1, VA(0x9000), 8, false, &bus, &n),
			 GAUDISIM_MMU_CAUSE_NOT_PRESENT);
}
END_TEST

START_TEST(test_mmu_not_present_fault)
{
	struct gsim_mmu_fault f;
	uint64_t bus = 0xdead, n = 0xdead;
	uint32_t info;

	map4k(1, VA(0x1000), 0x5000, RW);
	ck_assert_int_eq(xlate(1, VA(0x2468), 4, true, &bus, &n),
			 GAUDISIM_MMU_CAUSE_NOT_PRESENT);
	/* Nothing is returned for a fault. */
	ck_assert_uint_eq(bus, 0xdead);
	ck_assert_uint_eq(n, 0xdead);

	gsim_mmu_last_fault(T->core, &f);
	ck_assert(f.valid);
	ck_assert_uint_eq(f.va, VA(0x2468));
	ck_assert_uint_eq(f.asid, 1);
	ck_assert(f.write);
	ck_assert_uint_eq(f.hop, GAUDISIM_MMU_LEAF_HOP);

	info = mmu_rd(GAUDISIM_MMU_FAULT_INFO);
	ck_assert(info & GAUDISIM_MMU_FAULT_VALID);
	ck_assert(info & GAUDISIM_MMU_FAULT_WRITE);
	ck_assert_uint_eq(info & GAUDISIM_MMU_FAULT_CAUSE_MASK, GAUDISIM_MMU_CAUSE_NOT_PRESENT);
	ck_assert_uint_eq((info & GAUDISIM_MMU_FAULT_ASID_MASK) >> GAUDISIM_MMU_FAULT_ASID_SHIFT, 1);
	ck_assert_uint_eq(mmu_rd(GAUDISIM_MMU_FAULT_VA_LO), (uint32_t)VA(0x2468));
	ck_assert_uint_eq(mmu_rd(GAUDISIM_MMU_FAULT_VA_HI), (uint32_t)(VA(0x2468) >> 32));
	ck_assert_uint_eq(mmu_rd(GAUDISIM_MMU_FAULT_CNT), 1);

	/* A VA whose upper hops are missing faults at hop 1. */
	ck_assert_int_eq(xlate(1, VA(0x8000000000ull), 4, false, &bus, &n),
			 GAUDISIM_MMU_CAUSE_NOT_PRESENT);
	gsim_mmu_last_fault(T->core, &f);
	ck_assert_uint_eq(f.hop, 1);
	ck_assert_uint_eq(mmu_rd(GAUDISIM_MMU_FAULT_CNT), 2);

	/* Writing FAULT_INFO clears the capture but not the count. */
	ck_assert_int_eq(mmu_wr(GAUDISIM_MMU_FAULT_INFO, 0), GSIM_REG_OK);
	ck_assert_uint_eq(mmu_rd(GAUDISIM_MMU_FAULT_INFO), 0);
	ck_assert_uint_eq(mmu_rd(GAUDISIM_MMU_FAULT_CNT), 2);
}
END_TEST

START_TEST(test_mmu_write_protect)
{
	uint64_t bus, n;

	map4k(1, VA(0x3000), 0x9000, RO);
	map2m(1, VA(0x600000), 0x40000000, RO);
	ck_assert_int_eq(xlate(1, VA(0x3010), 4, false, &bus, &n), 0);
	/* The read filled the TLB; the write must still be refused. */
	ck_assert_int_eq(xlate(1, VA(0x3010), 4, true, &bus, &n),
			 GAUDISIM_MMU_CAUSE_WRITE_PROT);
	ck_assert_int_eq(xlate(1, VA(0x700000), 4, true, &bus, &n),
			 GAUDISIM_MMU_CAUSE_WRITE_PROT);
	ck_assert_uint_eq(mmu_rd(GAUDISIM_MMU_FAULT_INFO) & GAUDISIM_MMU_FAULT_CAUSE_MASK,
			  GAUDISIM_MMU_CAUSE_WRITE_PROT);
	ck_assert_uint_eq(mmu_rd(GAUDISIM_MMU_FAULT_CNT), 2);
}
END_TEST

START_TEST(test_mmu_range_and_disabled)
{
	uint64_t bus, n;

	/* Physical addresses are not VAs; nor is anything past the range. */
	ck_assert_int_eq(xlate(1, GAUDISIM_HOST_BASE + 0x1000, 4, false, &bus, &n),
			 GAUDISIM_MMU_CAUSE_RANGE);
	ck_assert_int_eq(xlate(1, GAUDISIM_MMU_VA_BASE + GAUDISIM_MMU_VA_SIZE, 4, false,
			       &bus, &n), GAUDISIM_MMU_CAUSE_RANGE);
	ck_assert_int_eq(xlate(1, UINT64_MAX, 4, false, &bus, &n), GAUDISIM_MMU_CAUSE_RANGE);
	ck_assert(!gsim_mmu_is_va(GAUDISIM_MMU_VA_BASE - 1));
	ck_assert(gsim_mmu_is_va(GAUDISIM_MMU_VA_BASE));

	map4k(1, VA(0), 0x1000, RW);
	ck_assert_int_eq(mmu_wr(GAUDISIM_MMU_CTRL, 0), GSIM_REG_OK);
	ck_assert_uint_eq(mmu_rd(GAUDISIM_MMU_STATUS) & GAUDISIM_MMU_STATUS_ENABLED, 0);
	ck_assert(!gsim_mmu_enabled(T->core));
	ck_assert_int_eq(xlate(1, VA(0), 4, false, &bus, &n), GAUDISIM_MMU_CAUSE_DISABLED);
	ck_assert_int_eq(mmu_wr(GAUDISIM_MMU_CTRL, GAUDISIM_MMU_CTRL_ENABLE), GSIM_REG_OK);
	ck_assert_int_eq(xlate(1, VA(0), 4, false, &bus, &n), 0);
	ck_assert_uint_eq(bus, 0x1000);
}
END_TEST

START_TEST(test_mmu_range_end_run)
{
	uint64_t bus, n, fault_va = 0;

	/* The last page of the VA range: a run never leaves the range. */
	map4k(1, VA(GAUDISIM_MMU_VA_SIZE - 0x1000), 0x7000, RW);
	ck_assert_int_eq(xlate(1, VA(GAUDISIM_MMU_VA_SIZE - 0x10), 0x100, false, &bus, &n), 0);
	ck_assert_uint_eq(bus, 0x7ff0);
	ck_assert_uint_eq(n, 0x10);
	ck_assert_int_eq(gsim_mmu_check(T->core, 1, VA(GAUDISIM_MMU_VA_SIZE - 0x10), 0x100,
					false, &fault_va), GAUDISIM_MMU_CAUSE_RANGE);
	ck_assert_uint_eq(fault_va, VA(GAUDISIM_MMU_VA_SIZE));
}
END_TEST

START_TEST(test_mmu_tlb_hit_miss)
{
	uint64_t bus, n;
	uint32_t miss0;

	ck_assert_uint_eq(mmu_rd(GAUDISIM_MMU_TLB_ENTRIES), GSIM_MMU_TLB_ENTRIES);
	map4k(1, VA(0x4000), 0xa000, RW);
	map2m(1, VA(0x800000), 0x40000000, RW);
	miss0 = mmu_rd(GAUDISIM_MMU_TLB_MISS_CNT);
	ck_assert_int_eq(xlate(1, VA(0x4000), 8, false, &bus, &n), 0);
	ck_assert_uint_eq(mmu_rd(GAUDISIM_MMU_TLB_MISS_CNT), miss0 + 1);
	ck_assert_uint_eq(mmu_rd(GAUDISIM_MMU_TLB_HIT_CNT), 0);
	ck_assert_int_eq(xlate(1, VA(0x4ff0), 8, false, &bus, &n), 0);
	ck_assert_uint_eq(mmu_rd(GAUDISIM_MMU_TLB_HIT_CNT), 1);

	/* Anywhere in a 2 MiB page hits the one entry. */
	ck_assert_int_eq(xlate(1, VA(0x800000), 8, false, &bus, &n), 0);
	ck_assert_int_eq(xlate(1, VA(0x9ff000), 8, false, &bus, &n), 0);
	ck_assert_int_eq(xlate(1, VA(0x876540), 8, false, &bus, &n), 0);
	ck_assert_uint_eq(bus, 0x40076540);
	ck_assert_uint_eq(mmu_rd(GAUDISIM_MMU_TLB_MISS_CNT), miss0 + 2);
	ck_assert_uint_eq(mmu_rd(GAUDISIM_MMU_TLB_HIT_CNT), 3);
}
END_TEST

START_TEST(test_mmu_tlb_invalidation)
{
	uint64_t leaf_table, bus, n;
	unsigned int idx = GAUDISIM_MMU_HOP_INDEX(VA(0x6000), GAUDISIM_MMU_LEAF_HOP);

	map4k(1, VA(0x6000), 0x1000000, RW);
	ck_assert_int_eq(xlate(1, VA(0x6000), 8, false, &bus, &n), 0);
	ck_assert_uint_eq(bus, 0x1000000);

	/* Remap behind the TLB's back: the stale entry still answers. */
	leaf_table = table_for(1, VA(0x6000), GAUDISIM_MMU_LEAF_HOP);
	pte_set(leaf_table, idx, 0x2000000 | RW);
	ck_assert_int_eq(xlate(1, VA(0x6000), 8, false, &bus, &n), 0);
	ck_assert_uint_eq(bus, 0x1000000);

	/* Range invalidation of another range or ASID leaves it ... */
	mmu_wr(GAUDISIM_MMU_INV_ASID, 1);
	mmu_wr(GAUDISIM_MMU_INV_VA_LO, (uint32_t)VA(0x10000));
	mmu_wr(GAUDISIM_MMU_INV_VA_HI, (uint32_t)(VA(0x10000) >> 32));
	mmu_wr(GAUDISIM_MMU_INV_SIZE_LO, 0x1000);
	mmu_wr(GAUDISIM_MMU_INV_SIZE_HI, 0);
	ck_assert_int_eq(mmu_wr(GAUDISIM_MMU_INV_CMD, GAUDISIM_MMU_INV_RANGE), GSIM_REG_OK);
	ck_assert_int_eq(xlate(1, VA(0x6000), 8, false, &bus, &n), 0);
	ck_assert_uint_eq(bus, 0x1000000);
	mmu_wr(GAUDISIM_MMU_INV_ASID, 2);
	ck_assert_int_eq(mmu_wr(GAUDISIM_MMU_INV_CMD, GAUDISIM_MMU_INV_ASID_ALL), GSIM_REG_OK);
	ck_assert_int_eq(xlate(1, VA(0x6000), 8, false, &bus, &n), 0);
	ck_assert_uint_eq(bus, 0x1000000);

	/* ... the covering range makes the new mapping visible. */
	mmu_wr(GAUDISIM_MMU_INV_ASID, 1);
	mmu_wr(GAUDISIM_MMU_INV_VA_LO, (uint32_t)VA(0x6800));
	mmu_wr(GAUDISIM_MMU_INV_VA_HI, (uint32_t)(VA(0x6800) >> 32));
	mmu_wr(GAUDISIM_MMU_INV_SIZE_LO, 0x10);
	ck_assert_int_eq(mmu_wr(GAUDISIM_MMU_INV_CMD, GAUDISIM_MMU_INV_RANGE), GSIM_REG_OK);
	ck_assert_int_eq(xlate(1, VA(0x6000), 8, false, &bus, &n), 0);
	ck_assert_uint_eq(bus, 0x2000000);

	/* Unmapping + invalidate-all turns it into a fault. */
	pte_set(leaf_table, idx, 0);
	ck_assert_int_eq(mmu_wr(GAUDISIM_MMU_INV_CMD, GAUDISIM_MMU_INV_ALL), GSIM_REG_OK);
	ck_assert_int_eq(xlate(1, VA(0x6000), 8, false, &bus, &n),
			 GAUDISIM_MMU_CAUSE_NOT_PRESENT);
	ck_assert_uint_eq(mmu_rd(GAUDISIM_MMU_STATUS) & GAUDISIM_MMU_STATUS_INV_BUSY, 0);

	/* Unknown commands are refused. */
	ck_assert_int_eq(mmu_wr(GAUDISIM_MMU_INV_CMD, 7), GSIM_REG_BAD_VALUE);
	ck_assert_uint_gt(T->errors, 0);
}
END_TEST

START_TEST(test_mmu_hop0_change_drops_tlb)
{
	uint64_t bus, n;

	map4k(1, VA(0x2000), 0x4000, RW);
	ck_assert_int_eq(xlate(1, VA(0x2000), 8, false, &bus, &n), 0);
	/* A fresh, empty hop-0 table for ASID 1: no stale translation survives. */
	asid_setup(1);
	ck_assert_int_eq(xlate(1, VA(0x2000), 8, false, &bus, &n),
			 GAUDISIM_MMU_CAUSE_NOT_PRESENT);
}
END_TEST

START_TEST(test_mmu_malformed_tables)
{
	uint64_t hop0 = hop0_of(1), t1, bus, n;
	unsigned int i0 = GAUDISIM_MMU_HOP_INDEX(VA(0), 0);
	unsigned int i1 = GAUDISIM_MMU_HOP_INDEX(VA(0), 1);
	struct gsim_mmu_fault f;

	/* A table pointer outside HBM, outside the page-table area, misaligned. */
	pte_set(hop0, i0, 0x0000FFFFFFFFF000ull | GAUDISIM_MMU_PTE_PRESENT);
	ck_assert_int_eq(xlate(1, VA(0), 8, false, &bus, &n), GAUDISIM_MMU_CAUSE_BAD_PTE);
	gsim_mmu_last_fault(T->core, &f);
	ck_assert_uint_eq(f.hop, 0);
	pte_set(hop0, i0, GAUDISIM_HBM_USER_BASE | GAUDISIM_MMU_PTE_PRESENT);
	ck_assert_int_eq(xlate(1, VA(0), 8, false, &bus, &n), GAUDISIM_MMU_CAUSE_BAD_PTE);
	pte_set(hop0, i0, (GAUDISIM_MMU_PGT_BASE + GAUDISIM_MMU_PGT_SIZE) |
		GAUDISIM_MMU_PTE_PRESENT);
	ck_assert_int_eq(xlate(1, VA(0), 8, false, &bus, &n), GAUDISIM_MMU_CAUSE_BAD_PTE);
	/* Reserved bits. */
	t1 = pgt_alloc();
	pte_set(hop0, i0, t1 | GAUDISIM_MMU_PTE_PRESENT | (1ull << 63));
	ck_assert_int_eq(xlate(1, VA(0), 8, false, &bus, &n), GAUDISIM_MMU_CAUSE_BAD_PTE);
	pte_set(hop0, i0, t1 | GAUDISIM_MMU_PTE_PRESENT | (1ull << 5));
	ck_assert_int_eq(xlate(1, VA(0), 8, false, &bus, &n), GAUDISIM_MMU_CAUSE_BAD_PTE);
	/* LAST above the huge-page hop. */
	pte_set(hop0, i0, t1 | GAUDISIM_MMU_PTE_PRESENT);
	pte_set(t1, i1, 0x40000000 | RO | GAUDISIM_MMU_PTE_LAST);
	ck_assert_int_eq(xlate(1, VA(0), 8, false, &bus, &n), GAUDISIM_MMU_CAUSE_BAD_PTE);
	gsim_mmu_last_fault(T->core, &f);
	ck_assert_uint_eq(f.hop, 1);

	/* A 2 MiB page that is not 2 MiB aligned. */
	pte_set(t1, i1, 0);
	map2m(1, VA(0x200000), 0x40001000, RW);
	ck_assert_int_eq(xlate(1, VA(0x200000), 8, false, &bus, &n), GAUDISIM_MMU_CAUSE_BAD_PTE);

	/*
	 * A table pointing at itself cannot loop: the walk is five hops, and
	 * the fifth PTE read is taken as a 4 KiB leaf.
	 */
	pte_set(t1, i1, t1 | GAUDISIM_MMU_PTE_PRESENT);
	ck_assert_int_eq(xlate(1, VA(0), 8, false, &bus, &n), 0);
	ck_assert_uint_eq(bus, t1);

	/* A hop-0 register outside the area faults on use. */
	ck_assert_int_eq(mmu_wr(GAUDISIM_MMU_HOP0_LO(4), 0x1000), GSIM_REG_OK);
	ck_assert_int_eq(xlate(4, VA(0), 8, false, &bus, &n), GAUDISIM_MMU_CAUSE_BAD_PTE);
	ck_assert_uint_eq(mmu_rd(GAUDISIM_MMU_FAULT_CNT), 8);
}
END_TEST

START_TEST(test_mmu_registers)
{
	unsigned int q;

	/* Only the driver may touch the MMU. */
	ck_assert_int_eq(gsim_mmu_reg_write(T->core, GAUDISIM_MMU_CTRL, 0, GSIM_ORIGIN_CB),
			 GSIM_REG_PROTECTED);
	ck_assert_int_eq(gsim_mmu_reg_write(T->core, GAUDISIM_MMU_HOP0_LO(1), 0,
					    GSIM_ORIGIN_CB), GSIM_REG_PROTECTED);
	ck_assert(gsim_mmu_enabled(T->core));
	/* Bad values are refused with a message. */
	ck_assert_int_eq(mmu_wr(GAUDISIM_MMU_CTRL, 0x2), GSIM_REG_BAD_VALUE);
	ck_assert_int_eq(mmu_wr(GAUDISIM_MMU_HOP0_LO(1), GAUDISIM_MMU_PGT_BASE + 8),
			 GSIM_REG_BAD_VALUE);
	ck_assert_int_eq(mmu_wr(GAUDISIM_MMU_INV_ASID, GAUDISIM_MMU_NUM_ASIDS),
			 GSIM_REG_BAD_VALUE);
	ck_assert_int_eq(mmu_wr(GAUDISIM_MMU_QUEUE_ASID(9), GAUDISIM_MMU_NUM_ASIDS),
			 GSIM_REG_BAD_VALUE);
	/* Read-only and unknown registers. */
	ck_assert_int_eq(mmu_wr(GAUDISIM_MMU_FAULT_CNT, 1), GSIM_REG_READ_ONLY);
	ck_assert_int_eq(mmu_wr(GAUDISIM_MMU_TLB_HIT_CNT, 1), GSIM_REG_READ_ONLY);
	ck_assert_int_eq(mmu_wr(0xffc, 1), GSIM_REG_UNKNOWN);
	ck_assert_int_eq(mmu_wr(GAUDISIM_MMU_QUEUE_ASID(GAUDISIM_QUEUE_ID_SIZE), 1),
			 GSIM_REG_UNKNOWN);
	ck_assert_uint_eq(mmu_rd(0xffc), 0);

	/* Per-queue ASIDs. */
	for (q = 0; q < GAUDISIM_QUEUE_ID_SIZE; q++)
		ck_assert_uint_eq(gsim_mmu_queue_asid(T->core, q), 0);
	ck_assert_int_eq(mmu_wr(GAUDISIM_MMU_QUEUE_ASID(41), 3), GSIM_REG_OK);
	ck_assert_uint_eq(mmu_rd(GAUDISIM_MMU_QUEUE_ASID(41)), 3);
	ck_assert_uint_eq(gsim_mmu_queue_asid(T->core, 41), 3);
	ck_assert_uint_eq(gsim_mmu_queue_asid(T->core, 1000), 0);

	/* Trust rule: the physical host window is for external queues only. */
	ck_assert(gsim_mmu_phys_host_allowed(GAUDISIM_QUEUE_ID_DMA_0_0));
	ck_assert(gsim_mmu_phys_host_allowed(GAUDISIM_QUEUE_ID_DMA_1_3));
	ck_assert(!gsim_mmu_phys_host_allowed(GAUDISIM_QUEUE_ID_DMA_2_0));
	ck_assert(!gsim_mmu_phys_host_allowed(GAUDISIM_QUEUE_ID_TPC_0_0));
	ck_assert(!gsim_mmu_phys_host_allowed(GAUDISIM_QUEUE_ID_CPU_PQ));
	ck_assert(gsim_mmu_phys_host_allowed(GSIM_REQ_MMIO));
	ck_assert(!gsim_mmu_phys_host_allowed(GSIM_REQ_SYNC));
	ck_assert_uint_eq(gsim_mmu_queue_asid(T->core, GSIM_REQ_SYNC), 0);

	/* A hard reset turns the MMU off and forgets tables and ASIDs. */
	gsim_core_reset(T->core);
	ck_assert(!gsim_mmu_enabled(T->core));
	ck_assert_uint_eq(hop0_of(1), 0);
	ck_assert_uint_eq(gsim_mmu_queue_asid(T->core, 41), 0);
}
END_TEST

START_TEST(test_mmu_host_read_write)
{
	uint8_t buf[0x3000], back[0x3000];
	uint64_t fault_va = 0;
	unsigned int i;

	/* Three VA pages scattered over host memory, in reverse order. */
	for (i = 0; i < 3; i++)
		map4k(1, VA(0x10000 + i * 0x1000ull), host_bus(T_DATA_OFF + (2 - i) * 0x1000ull),
		      RW);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 7 + 1);
	ck_assert_int_eq(gsim_mmu_host_write(T->core, 1, VA(0x10000), buf, sizeof(buf),
					     &fault_va), 0);
	ck_assert_mem_eq(host_ptr(T_DATA_OFF + 0x2000), buf, 0x1000);
	ck_assert_mem_eq(host_ptr(T_DATA_OFF + 0x1000), buf + 0x1000, 0x1000);
	ck_assert_mem_eq(host_ptr(T_DATA_OFF), buf + 0x2000, 0x1000);
	ck_assert_int_eq(gsim_mmu_host_read(T->core, 1, VA(0x10000), back, sizeof(back),
					    &fault_va), 0);
	ck_assert_mem_eq(back, buf, sizeof(buf));

	/* Past the mapping: the fault names the first unmapped byte. */
	ck_assert_int_eq(gsim_mmu_host_read(T->core, 1, VA(0x12800), back, 0x1000, &fault_va),
			 GAUDISIM_MMU_CAUSE_NOT_PRESENT);
	ck_assert_uint_eq(fault_va, VA(0x13000));

	/* The host refusing the bus access (e.g. Bus Master Enable off). */
	T->fault_lo = host_bus(T_DATA_OFF + 0x1000);
	T->fault_hi = T->fault_lo + 0x1000;
	ck_assert_int_eq(gsim_mmu_host_read(T->core, 1, VA(0x10000), back, sizeof(back),
					    &fault_va), -1);
	ck_assert_uint_eq(fault_va, VA(0x11000));
}
END_TEST

START_TEST(test_mmu_check_whole_range)
{
	uint64_t fault_va = 0;
	unsigned int i;

	for (i = 0; i < 4; i++)
		map4k(1, VA(i * 0x1000ull), 0x100000 + i * 0x1000ull, i == 2 ? RO : RW);
	ck_assert_int_eq(gsim_mmu_check(T->core, 1, VA(0), 0x4000, false, &fault_va), 0);
	ck_assert_int_eq(gsim_mmu_check(T->core, 1, VA(0), 0x4000, true, &fault_va),
			 GAUDISIM_MMU_CAUSE_WRITE_PROT);
	ck_assert_uint_eq(fault_va, VA(0x2000));
	ck_assert_int_eq(gsim_mmu_check(T->core, 1, VA(0x3000), 0, true, &fault_va), 0);
}
END_TEST

/* Random PTEs all over the tables: every walk ends in a result, never a crash. */
START_TEST(test_mmu_random_tables)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull, bus, n;
	unsigned int i, t;
	uint64_t tables[8];

	for (t = 0; t < 8; t++)
		tables[t] = t ? pgt_alloc() : hop0_of(1);
	for (i = 0; i < 20000; i++) {
		uint64_t r, va;
		int rc;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		r = seed;
		/* Point at one of our tables, or anywhere, with random flags. */
		if (r & 1)
			r = (tables[(r >> 8) % 8] | (r & 0xfff)) ^ ((r >> 40) & 0x800);
		pte_set(tables[(seed >> 20) % 8], (unsigned int)(seed >> 33) % 512, r);
		mmu_wr(GAUDISIM_MMU_INV_CMD, GAUDISIM_MMU_INV_ALL);
		va = VA(seed >> 16 & (GAUDISIM_MMU_VA_SIZE - 1));
		rc = xlate(1, va, 1 + (seed >> 50), (seed >> 3) & 1, &bus, &n);
		ck_assert_int_ge(rc, 0);
		ck_assert_int_le(rc, GAUDISIM_MMU_CAUSE_DISABLED);
		if (!rc) {
			ck_assert_uint_ge(n, 1);
			ck_assert_uint_lt(bus, 1ull << GAUDISIM_HOST_ADDR_BITS);
		}
	}
}
END_TEST

/* The block is reachable through the register BAR, CB writes refused. */
START_TEST(test_mmu_through_bar)
{
	uint64_t bus, n;

	wr(GAUDISIM_BLOCK_MMU + GAUDISIM_MMU_CTRL, 0);
	ck_assert_uint_eq(rd(GAUDISIM_BLOCK_MMU + GAUDISIM_MMU_STATUS), 0);
	wr(GAUDISIM_BLOCK_MMU + GAUDISIM_MMU_CTRL, GAUDISIM_MMU_CTRL_ENABLE);
	ck_assert_uint_eq(rd(GAUDISIM_BLOCK_MMU + GAUDISIM_MMU_STATUS),
			  GAUDISIM_MMU_STATUS_ENABLED);
	wr(GAUDISIM_BLOCK_MMU + GAUDISIM_MMU_QUEUE_ASID(12), 1);
	ck_assert_uint_eq(gsim_mmu_queue_asid(T->core, 12), 1);
	ck_assert_uint_eq(rd(GAUDISIM_BLOCK_MMU + GAUDISIM_MMU_HOP0_LO(1)),
			  (uint32_t)GAUDISIM_MMU_PGT_BASE);
	ck_assert_int_eq(xlate(1, VA(0), 8, false, &bus, &n), GAUDISIM_MMU_CAUSE_NOT_PRESENT);
	ck_assert_uint_eq(rd(GAUDISIM_BLOCK_MMU + GAUDISIM_MMU_FAULT_CNT), 1);
	ck_assert_uint_eq(rd(GAUDISIM_BLOCK_MMU + GAUDISIM_MMU_FAULT_VA_HI),
			  (uint32_t)(VA(0) >> 32));
}
END_TEST

Suite *mmu_suite(void)
{
	Suite *s = suite_create("mmu");
	TCase *tc = tcase_create("mmu");

	tcase_add_checked_fixture(tc, mmu_setup, th_teardown);
	tcase_add_test(tc, test_mmu_4k_walk);
	tcase_add_test(tc, test_mmu_2m_walk);
	tcase_add_test(tc, test_mmu_contiguous_merge);
	tcase_add_test(tc, test_mmu_multi_level_sparse);
	tcase_add_test(tc, test_mmu_asid_isolation);
	tcase_add_test(tc, test_mmu_not_present_fault);
	tcase_add_test(tc, test_mmu_write_protect);
	tcase_add_test(tc, test_mmu_range_and_disabled);
	tcase_add_test(tc, test_mmu_range_end_run);
	tcase_add_test(tc, test_mmu_tlb_hit_miss);
	tcase_add_test(tc, test_mmu_tlb_invalidation);
	tcase_add_test(tc, test_mmu_hop0_change_drops_tlb);
	tcase_add_test(tc, test_mmu_malformed_tables);
	tcase_add_test(tc, test_mmu_registers);
	tcase_add_test(tc, test_mmu_host_read_write);
	tcase_add_test(tc, test_mmu_check_whole_range);
	tcase_add_test(tc, test_mmu_random_tables);
	tcase_add_test(tc, test_mmu_through_bar);
	suite_add_tcase(s, tc);
	return s;
}
