/* SPDX-License-Identifier: MIT */
/*
 * MMU hop indices against values worked out by hand from the contract's
 * description (hw/gaudisim_hw_mmu.h: five hops of 512 PTEs; hop h indexes VA
 * bits [SHIFT(h) + 8 : SHIFT(h)] with shifts 48, 39, 30, 21, 12).
 *
 * The device's walk and the tests of test_mmu.c both use
 * GAUDISIM_MMU_HOP_INDEX(), so a wrong shift would agree with itself.
 * Here each virtual address is written as a sum of hand-picked indices,
 * the page tables are laid out by hand (PTE byte offsets = index * 8,
 * written as numbers), and the device must find the page through them,
 * and must not find it when the leaf PTE sits one slot off.
 */
#include <string.h>

#include "gsim_test.h"
#include "gsim_mmu.h"

#define RW	(GAUDISIM_MMU_PTE_PRESENT | GAUDISIM_MMU_PTE_WRITABLE)

struct hand_va {
	uint64_t va;
	unsigned int index[GAUDISIM_MMU_NUM_HOPS];
	/* Byte offsets of the PTEs in their tables (index * 8, by hand). */
	unsigned int pte_off[GAUDISIM_MMU_NUM_HOPS];
	uint64_t page_off;	/* offset inside the 4 KiB page */
};

static const struct hand_va hand[] = {
	/*
	 * 0x0002_0000_0000_0000 (hop 0 index 2: the VA range)
	 * + 0x1a3 << 39 = 0xd18000000000
	 * + 0x05c << 30 = 0x001700000000
	 * + 0x1ff << 21 = 0x00003fe00000
	 * + 0x001 << 12 = 0x000000001000
	 * + 0xabc
	 */
	{ 0x0002d1973fe01abcull, { 2, 0x1a3, 0x05c, 0x1ff, 0x001 },
	  { 0x10, 0xd18, 0x2e0, 0xff8, 0x008 }, 0xabc },
	/* The first byte of the range: every index below hop 0 is 0. */
	{ 0x0002000000000000ull, { 2, 0, 0, 0, 0 }, { 0x10, 0, 0, 0, 0 }, 0 },
	/* The last byte of the range: every index 511 (offset 0xff8). */
	{ 0x0002ffffffffffffull, { 2, 511, 511, 511, 511 },
	  { 0x10, 0xff8, 0xff8, 0xff8, 0xff8 }, 0xfff },
	/* 0x0002 + 0x0aa << 39 (0x550000000000) + 0x155 << 30 (0x5540000000)
	 * + 0x0aa << 21 (0x15400000) + 0x155 << 12 (0x155000) + 0x555 */
	{ 0x0002555555555555ull, { 2, 0x0aa, 0x155, 0x0aa, 0x155 },
	  { 0x10, 0x550, 0xaa8, 0x550, 0xaa8 }, 0x555 },
};
#define N_HAND (sizeof(hand) / sizeof(hand[0]))

START_TEST(test_mmu_golden_shifts)
{
	ck_assert_uint_eq(GAUDISIM_MMU_HOP_SHIFT(0), 48);
	ck_assert_uint_eq(GAUDISIM_MMU_HOP_SHIFT(1), 39);
	ck_assert_uint_eq(GAUDISIM_MMU_HOP_SHIFT(2), 30);
	ck_assert_uint_eq(GAUDISIM_MMU_HOP_SHIFT(3), 21);
	ck_assert_uint_eq(GAUDISIM_MMU_HOP_SHIFT(4), 12);
	ck_assert_uint_eq(GAUDISIM_MMU_HOP_TABLE_SIZE, 4096);
	ck_assert_uint_eq(GAUDISIM_MMU_VA_BASE, 0x0002000000000000ull);
}
END_TEST

START_TEST(test_mmu_golden_indices)
{
	const struct hand_va *h = &hand[_i];
	unsigned int hop;

	for (hop = 0; hop < GAUDISIM_MMU_NUM_HOPS; hop++) {
		ck_assert_uint_eq(h->pte_off[hop], h->index[hop] * 8);
		ck_assert_msg(GAUDISIM_MMU_HOP_INDEX(h->va, hop) == h->index[hop],
			      "va 0x%llx hop %u: macro gives %llu, by hand %u",
			      (unsigned long long)h->va, hop,
			      (unsigned long long)GAUDISIM_MMU_HOP_INDEX(h->va, hop), h->index[hop]);
	}
	ck_assert_uint_eq(h->va & 0xfff, h->page_off);
}
END_TEST

static void put64(uint64_t hbm_addr, uint64_t v)
{
	memcpy(hbm_ptr(hbm_addr), &v, sizeof(v));
}

/* Hop tables at fixed, hand-placed addresses of the page-table area. */
#define TABLE(h)	(0x10000000ull + 0x1000ull * (h))
#define PAGE_BUS	0x0000123456789000ull

/* Lay out the walk of h->va by hand; the leaf PTE at leaf_off. */
static void hand_tables(const struct hand_va *h, unsigned int leaf_off)
{
	unsigned int hop;

	for (hop = 0; hop < GAUDISIM_MMU_NUM_HOPS; hop++)
		memset(hbm_ptr(TABLE(hop)), 0, 0x1000);
	for (hop = 0; hop + 1 < GAUDISIM_MMU_NUM_HOPS; hop++)
		put64(TABLE(hop) + h->pte_off[hop], TABLE(hop + 1) | GAUDISIM_MMU_PTE_PRESENT);
	put64(TABLE(4) + leaf_off, PAGE_BUS | RW | GAUDISIM_MMU_PTE_LAST);
	ck_assert_int_eq(gsim_mmu_reg_write(T->core, GAUDISIM_MMU_HOP0_LO(1), (uint32_t)TABLE(0),
					    GSIM_ORIGIN_MMIO), GSIM_REG_OK);
	ck_assert_int_eq(gsim_mmu_reg_write(T->core, GAUDISIM_MMU_HOP0_HI(1), 0, GSIM_ORIGIN_MMIO),
			 GSIM_REG_OK);
}

START_TEST(test_mmu_golden_walk)
{
	const struct hand_va *h = &hand[_i];
	uint64_t bus = 0, n = 0;
	unsigned int wrong;

	ck_assert_int_eq(gsim_mmu_reg_write(T->core, GAUDISIM_MMU_CTRL, GAUDISIM_MMU_CTRL_ENABLE,
					    GSIM_ORIGIN_MMIO), GSIM_REG_OK);
	hand_tables(h, h->pte_off[4]);
	ck_assert_int_eq(gsim_mmu_translate(T->core, 1, h->va, 1, true, &bus, &n), 0);
	ck_assert_uint_eq(bus, PAGE_BUS + h->page_off);
	ck_assert_uint_eq(n, 1);

	/* The leaf one slot off (the neighbour inside the same table). */
	wrong = h->pte_off[4] == 0xff8 ? 0xff0 : h->pte_off[4] + 8;
	hand_tables(h, wrong);
	ck_assert_int_eq(gsim_mmu_reg_write(T->core, GAUDISIM_MMU_INV_CMD, GAUDISIM_MMU_INV_ALL,
					    GSIM_ORIGIN_MMIO), GSIM_REG_OK);
	ck_assert_int_eq(gsim_mmu_translate(T->core, 1, h->va, 1, false, &bus, &n),
			 GAUDISIM_MMU_CAUSE_NOT_PRESENT);
	ck_assert_uint_eq((gsim_mmu_reg_read(T->core, GAUDISIM_MMU_FAULT_INFO) &
			   GAUDISIM_MMU_FAULT_HOP_MASK) >> GAUDISIM_MMU_FAULT_HOP_SHIFT, 4);
}
END_TEST

/* A 2 MiB page: the walk stops at hop 3 and keeps VA bits [20:0]. */
START_TEST(test_mmu_golden_huge)
{
	/* 0x0002_0000_0000_0000 + 0x1ff << 30 (0x7fc0000000)
	 * + 0x002 << 21 (0x400000) + 0x12345 */
	const uint64_t va = 0x0002007fc0412345ull;
	uint64_t bus = 0, n = 0;
	unsigned int hop;

	ck_assert_int_eq(gsim_mmu_reg_write(T->core, GAUDISIM_MMU_CTRL, GAUDISIM_MMU_CTRL_ENABLE,
					    GSIM_ORIGIN_MMIO), GSIM_REG_OK);
	for (hop = 0; hop < 4; hop++)
		memset(hbm_ptr(TABLE(hop)), 0, 0x1000);
	put64(TABLE(0) + 0x10, TABLE(1) | GAUDISIM_MMU_PTE_PRESENT);	/* index 2 */
	put64(TABLE(1) + 0x000, TABLE(2) | GAUDISIM_MMU_PTE_PRESENT);	/* index 0 */
	put64(TABLE(2) + 0xff8, TABLE(3) | GAUDISIM_MMU_PTE_PRESENT);	/* index 511 */
	put64(TABLE(3) + 0x010, 0x40000000ull | RW | GAUDISIM_MMU_PTE_LAST);	/* index 2 */
	ck_assert_int_eq(gsim_mmu_reg_write(T->core, GAUDISIM_MMU_HOP0_LO(1), (uint32_t)TABLE(0),
					    GSIM_ORIGIN_MMIO), GSIM_REG_OK);
	ck_assert_int_eq(gsim_mmu_translate(T->core, 1, va, 1, false, &bus, &n), 0);
	ck_assert_uint_eq(bus, 0x40012345ull);
}
END_TEST

Suite *mmu_golden_suite(void)
{
	Suite *s = suite_create("mmu_golden");
	TCase *tc = tcase_create("mmu_golden");

	tcase_add_checked_fixture(tc, th_setup, th_teardown);
	tcase_add_test(tc, test_mmu_golden_shifts);
	tcase_add_loop_test(tc, test_mmu_golden_indices, 0, (int)N_HAND);
	tcase_add_loop_test(tc, test_mmu_golden_walk, 0, (int)N_HAND);
	tcase_add_test(tc, test_mmu_golden_huge);
	suite_add_tcase(s, tc);
	return s;
}
