/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: the device MMU for host memory.
 *
 * A five-hop walk over page tables in reserved HBM (hw/gaudisim_hw_mmu.h)
 * with a small direct-mapped TLB in front of it. Every table address and
 * every PTE is checked before use, so a malformed table faults the access
 * instead of reading outside the page-table area.
 *
 * The TLB caches leaf translations only, never faults. Each lookup probes
 * two slots: one indexed by the 4 KiB page number (holding 4 KiB leaves)
 * and one by the 2 MiB page number (holding 2 MiB leaves), so accesses
 * anywhere inside a huge page hit the same entry. Like hardware, the TLB
 * is not coherent with the tables: the driver invalidates after changing
 * a mapping (INV_CMD), and a new hop-0 table or an MMU enable/disable drops
 * the affected entries by itself.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "gsim_mmu.h"

struct gsim_tlb_entry {
	bool valid;
	bool writable;
	uint8_t asid;
	uint8_t shift;		/* page size: GAUDISIM_MMU_{,HUGE_}PAGE_SHIFT */
	uint64_t vpn;		/* va >> shift */
	uint64_t bus;		/* host bus address of the page */
};

struct gsim_mmu {
	uint32_t ctrl;
	uint64_t hop0[GAUDISIM_MMU_NUM_ASIDS];
	uint8_t queue_asid[GAUDISIM_QUEUE_ID_SIZE];

	uint32_t inv_asid;
	uint64_t inv_va;
	uint64_t inv_size;

	struct gsim_mmu_fault fault;
	uint32_t fault_cnt;
	uint32_t hit_cnt;
	uint32_t miss_cnt;

	struct gsim_tlb_entry tlb[GSIM_MMU_TLB_ENTRIES];
};

/* A successful lookup: the page that maps the address. */
struct gsim_leaf {
	uint64_t bus;		/* bus address of the page */
	unsigned int shift;
	bool writable;
	unsigned int hop;
};

struct gsim_mmu *gsim_mmu_new(void)
{
	return calloc(1, sizeof(struct gsim_mmu));
}

void gsim_mmu_free(struct gsim_mmu *mmu)
{
	free(mmu);
}

void gsim_mmu_reset(struct gsim_core *core)
{
	memset(core->mmu, 0, sizeof(*core->mmu));
}

bool gsim_mmu_enabled(const struct gsim_core *core)
{
	return core->mmu->ctrl & GAUDISIM_MMU_CTRL_ENABLE;
}

bool gsim_mmu_is_va(uint64_t addr)
{
	return addr >= GAUDISIM_MMU_VA_BASE &&
	       addr - GAUDISIM_MMU_VA_BASE < GAUDISIM_MMU_VA_SIZE;
}

bool gsim_mmu_phys_host_allowed(unsigned int requester)
{
	return GAUDISIM_QUEUE_IS_EXTERNAL(requester) || requester == GSIM_REQ_MMIO;
}

unsigned int gsim_mmu_queue_asid(const struct gsim_core *core, unsigned int requester)
{
	return requester < GAUDISIM_QUEUE_ID_SIZE ? core->mmu->queue_asid[requester] : 0;
}

const char *gsim_mmu_cause_name(unsigned int cause)
{
	switch (cause) {
	case GAUDISIM_MMU_CAUSE_NONE:
		return "no fault";
	case GAUDISIM_MMU_CAUSE_NOT_PRESENT:
		return "page not present";
	case GAUDISIM_MMU_CAUSE_WRITE_PROT:
		return "write to a read-only page";
	case GAUDISIM_MMU_CAUSE_BAD_PTE:
		return "malformed page table";
	case GAUDISIM_MMU_CAUSE_RANGE:
		return "address outside the MMU's VA range";
	case GAUDISIM_MMU_CAUSE_ASID:
		return "ASID without page tables";
	case GAUDISIM_MMU_CAUSE_DISABLED:
		return "MMU disabled";
	}
	return "unknown cause";
}

/* ---- TLB ------------------------------------------------------------------ */

static unsigned int tlb_slot(unsigned int asid, uint64_t vpn)
{
	/* Consecutive pages take consecutive slots; ASIDs are spread apart. */
	return (unsigned int)((vpn + (uint64_t)asid * 17) % GSIM_MMU_TLB_ENTRIES);
}

static bool tlb_match(const struct gsim_tlb_entry *e, unsigned int asid, uint64_t va,
		      unsigned int shift)
{
	return e->valid && e->asid == asid && e->shift == shift && e->vpn == va >> shift;
}

static bool tlb_lookup(struct gsim_mmu *mmu, unsigned int asid, uint64_t va,
		       struct gsim_leaf *leaf)
{
	static const unsigned int shifts[] = {
		GAUDISIM_MMU_PAGE_SHIFT, GAUDISIM_MMU_HUGE_PAGE_SHIFT,
	};
	unsigned int i;

	for (i = 0; i < 2; i++) {
		const struct gsim_tlb_entry *e =
			&mmu->tlb[tlb_slot(asid, va >> shifts[i])];

		if (tlb_match(e, asid, va, shifts[i])) {
			leaf->bus = e->bus;
			leaf->shift = e->shift;
			leaf->writable = e->writable;
			leaf->hop = e->shift == GAUDISIM_MMU_PAGE_SHIFT ?
				    GAUDISIM_MMU_LEAF_HOP : GAUDISIM_MMU_HUGE_HOP;
			return true;
		}
	}
	return false;
}

static void tlb_fill(struct gsim_mmu *mmu, unsigned int asid, uint64_t va,
		     const struct gsim_leaf *leaf)
{
	struct gsim_tlb_entry *e = &mmu->tlb[tlb_slot(asid, va >> leaf->shift)];

	e->valid = true;
	e->asid = (uint8_t)asid;
	e->shift = (uint8_t)leaf->shift;
	e->vpn = va >> leaf->shift;
	e->bus = leaf->bus;
	e->writable = leaf->writable;
}

/* Drop entries of one ASID (all ASIDs when asid < 0) overlapping [va, end). */
static void tlb_invalidate(struct gsim_mmu *mmu, int asid, uint64_t va, uint64_t end)
{
	unsigned int i;

	for (i = 0; i < GSIM_MMU_TLB_ENTRIES; i++) {
		struct gsim_tlb_entry *e = &mmu->tlb[i];
		uint64_t start = e->vpn << e->shift;
		uint64_t last = start + ((1ull << e->shift) - 1);

		if (!e->valid || (asid >= 0 && e->asid != (unsigned int)asid))
			continue;
		if (last >= va && start < end)
			e->valid = false;
	}
}

/* ---- table walk ----------------------------------------------------------- */

static bool table_ok(const struct gsim_core *core, uint64_t table)
{
	return table % GAUDISIM_MMU_HOP_TABLE_SIZE == 0 &&
	       table >= GAUDISIM_MMU_PGT_BASE &&
	       table - GAUDISIM_MMU_PGT_BASE <=
	       GAUDISIM_MMU_PGT_SIZE - GAUDISIM_MMU_HOP_TABLE_SIZE &&
	       table + GAUDISIM_MMU_HOP_TABLE_SIZE <= core->hbm_size;
}

static int walk(const struct gsim_core *core, unsigned int asid, uint64_t va,
		struct gsim_leaf *leaf)
{
	uint64_t table = core->mmu->hop0[asid];
	unsigned int hop;

	leaf->hop = 0;
	if (!table)
		return GAUDISIM_MMU_CAUSE_ASID;
	if (!table_ok(core, table))
		return GAUDISIM_MMU_CAUSE_BAD_PTE;

	for (hop = 0; hop < GAUDISIM_MMU_NUM_HOPS; hop++) {
		uint64_t pte = gsim_ld_le64(core->hbm + table +
					    GAUDISIM_MMU_HOP_INDEX(va, hop) *
					    GAUDISIM_MMU_PTE_SIZE);
		uint64_t addr = pte & GAUDISIM_MMU_PTE_ADDR_MASK;
		bool last = pte & GAUDISIM_MMU_PTE_LAST;

		leaf->hop = hop;
		if (!(pte & GAUDISIM_MMU_PTE_PRESENT))
			return GAUDISIM_MMU_CAUSE_NOT_PRESENT;
		if (pte & GAUDISIM_MMU_PTE_RESERVED_MASK)
			return GAUDISIM_MMU_CAUSE_BAD_PTE;
		if (last && hop < GAUDISIM_MMU_HUGE_HOP)
			return GAUDISIM_MMU_CAUSE_BAD_PTE;
		if (hop == GAUDISIM_MMU_LEAF_HOP || last) {
			leaf->shift = hop == GAUDISIM_MMU_LEAF_HOP ?
				      GAUDISIM_MMU_PAGE_SHIFT : GAUDISIM_MMU_HUGE_PAGE_SHIFT;
			if (addr & ((1ull << leaf->shift) - 1))
				return GAUDISIM_MMU_CAUSE_BAD_PTE;
			leaf->bus = addr;
			leaf->writable = pte & GAUDISIM_MMU_PTE_WRITABLE;
			return 0;
		}
		if (!table_ok(core, addr))
			return GAUDISIM_MMU_CAUSE_BAD_PTE;
		table = addr;
	}
	return GAUDISIM_MMU_CAUSE_BAD_PTE;	/* not reached: hop 4 is a leaf */
}

/* Find the page mapping va, through the TLB; records nothing on a fault. */
static int lookup(struct gsim_core *core, unsigned int asid, uint64_t va, bool write,
		  struct gsim_leaf *leaf)
{
	struct gsim_mmu *mmu = core->mmu;
	int rc;

	leaf->hop = 0;
	if (!(mmu->ctrl & GAUDISIM_MMU_CTRL_ENABLE))
		return GAUDISIM_MMU_CAUSE_DISABLED;
	if (!gsim_mmu_is_va(va))
		return GAUDISIM_MMU_CAUSE_RANGE;
	if (asid >= GAUDISIM_MMU_NUM_ASIDS)
		return GAUDISIM_MMU_CAUSE_ASID;

	if (tlb_lookup(mmu, asid, va, leaf)) {
		mmu->hit_cnt++;
	} else {
		mmu->miss_cnt++;
		rc = walk(core, asid, va, leaf);
		if (rc)
			return rc;
		tlb_fill(mmu, asid, va, leaf);
	}
	if (write && !leaf->writable)
		return GAUDISIM_MMU_CAUSE_WRITE_PROT;
	return 0;
}

static void record_fault(struct gsim_mmu *mmu, int cause, unsigned int asid,
			 unsigned int hop, bool write, uint64_t va)
{
	mmu->fault.valid = true;
	mmu->fault.cause = (unsigned int)cause;
	mmu->fault.asid = asid;
	mmu->fault.hop = hop;
	mmu->fault.write = write;
	mmu->fault.va = va;
	mmu->fault_cnt++;
}

/* Bytes from va to the end of the page the leaf maps. */
static uint64_t page_rest(const struct gsim_leaf *leaf, uint64_t va)
{
	uint64_t size = 1ull << leaf->shift;

	return size - (va & (size - 1));
}

int gsim_mmu_translate(struct gsim_core *core, unsigned int asid, uint64_t va,
		       uint64_t len, bool write, uint64_t *bus_addr, uint64_t *contig_len)
{
	struct gsim_leaf leaf;
	uint64_t bus, run;
	int rc;

	if (!len)
		len = 1;
	rc = lookup(core, asid, va, write, &leaf);
	if (rc) {
		record_fault(core->mmu, rc, asid, leaf.hop, write, va);
		return rc;
	}
	bus = leaf.bus + (va & ((1ull << leaf.shift) - 1));
	run = page_rest(&leaf, va);

	/*
	 * Extend the run over following pages while they are physically
	 * adjacent, so a DMA over a buffer mapped in order moves in one piece.
	 * A page that would fault ends the run without being recorded: the
	 * caller gets the fault when it asks for that address.
	 */
	while (run < len) {
		uint64_t next = va + run;

		if (lookup(core, asid, next, write, &leaf) ||
		    leaf.bus + (next & ((1ull << leaf.shift) - 1)) != bus + run)
			break;
		run += page_rest(&leaf, next);
	}
	*bus_addr = bus;
	*contig_len = run < len ? run : len;
	return 0;
}

int gsim_mmu_check(struct gsim_core *core, unsigned int asid, uint64_t va,
		   uint64_t len, bool write, uint64_t *fault_va)
{
	uint64_t done = 0, bus, n;
	int rc;

	do {
		rc = gsim_mmu_translate(core, asid, va + done, len - done, write, &bus, &n);
		if (rc) {
			*fault_va = va + done;
			return rc;
		}
		done += n;
	} while (done < len);
	return 0;
}

static int host_xfer(struct gsim_core *core, unsigned int asid, uint64_t va,
		     uint8_t *rbuf, const uint8_t *wbuf, uint64_t len, uint64_t *fault_va)
{
	bool write = wbuf != NULL;
	uint64_t done = 0, bus, n;
	int rc;

	while (done < len) {
		rc = gsim_mmu_translate(core, asid, va + done, len - done, write, &bus, &n);
		if (rc) {
			*fault_va = va + done;
			return rc;
		}
		if (write)
			rc = gsim_pcie_dma_write(core, bus, wbuf + done, n);
		else
			rc = gsim_pcie_dma_read(core, bus, rbuf + done, n);
		if (rc) {
			*fault_va = va + done;
			return -1;
		}
		done += n;
	}
	return 0;
}

int gsim_mmu_host_read(struct gsim_core *core, unsigned int asid, uint64_t va,
		       void *buf, uint64_t len, uint64_t *fault_va)
{
	return host_xfer(core, asid, va, buf, NULL, len, fault_va);
}

int gsim_mmu_host_write(struct gsim_core *core, unsigned int asid, uint64_t va,
			const void *buf, uint64_t len, uint64_t *fault_va)
{
	return host_xfer(core, asid, va, NULL, buf, len, fault_va);
}

void gsim_mmu_report_fault(struct gsim_core *core, uint32_t engine, uint32_t queue)
{
	const struct gsim_mmu_fault *f = &core->mmu->fault;
	struct gsim_event ev = {
		.type = GAUDISIM_EQ_EVENT_MMU_FAULT,
		.engine = engine,
		.queue = queue,
		.code = f->cause,
		.addr = f->va,
		.data = { f->asid, f->write },
	};

	if (f->valid)
		gsim_eq_post_event(core, &ev);
}

void gsim_mmu_last_fault(const struct gsim_core *core, struct gsim_mmu_fault *fault)
{
	*fault = core->mmu->fault;
}

/* ---- registers ------------------------------------------------------------ */

static uint32_t fault_info(const struct gsim_mmu_fault *f)
{
	if (!f->valid)
		return 0;
	return GAUDISIM_MMU_FAULT_VALID |
	       (f->cause & GAUDISIM_MMU_FAULT_CAUSE_MASK) |
	       (f->write ? GAUDISIM_MMU_FAULT_WRITE : 0) |
	       (f->asid << GAUDISIM_MMU_FAULT_ASID_SHIFT & GAUDISIM_MMU_FAULT_ASID_MASK) |
	       (f->hop << GAUDISIM_MMU_FAULT_HOP_SHIFT & GAUDISIM_MMU_FAULT_HOP_MASK);
}

/* Index of a per-ASID or per-queue register, or -1. */
static int array_index(uint32_t offset, uint32_t base, uint32_t stride, uint32_t count)
{
	if (offset < base || (offset - base) % stride || (offset - base) / stride >= count)
		return -1;
	return (int)((offset - base) / stride);
}

uint32_t gsim_mmu_reg_read(struct gsim_core *core, uint32_t offset)
{
	struct gsim_mmu *mmu = core->mmu;
	int i;

	switch (offset) {
	case GAUDISIM_MMU_CTRL:
		return mmu->ctrl;
	case GAUDISIM_MMU_STATUS:
		return mmu->ctrl & GAUDISIM_MMU_CTRL_ENABLE ? GAUDISIM_MMU_STATUS_ENABLED : 0;
	case GAUDISIM_MMU_INV_ASID:
		return mmu->inv_asid;
	case GAUDISIM_MMU_INV_VA_LO:
		return (uint32_t)mmu->inv_va;
	case GAUDISIM_MMU_INV_VA_HI:
		return (uint32_t)(mmu->inv_va >> 32);
	case GAUDISIM_MMU_INV_SIZE_LO:
		return (uint32_t)mmu->inv_size;
	case GAUDISIM_MMU_INV_SIZE_HI:
		return (uint32_t)(mmu->inv_size >> 32);
	case GAUDISIM_MMU_FAULT_INFO:
		return fault_info(&mmu->fault);
	case GAUDISIM_MMU_FAULT_VA_LO:
		return (uint32_t)mmu->fault.va;
	case GAUDISIM_MMU_FAULT_VA_HI:
		return (uint32_t)(mmu->fault.va >> 32);
	case GAUDISIM_MMU_FAULT_CNT:
		return mmu->fault_cnt;
	case GAUDISIM_MMU_TLB_HIT_CNT:
		return mmu->hit_cnt;
	case GAUDISIM_MMU_TLB_MISS_CNT:
		return mmu->miss_cnt;
	case GAUDISIM_MMU_TLB_ENTRIES:
		return GSIM_MMU_TLB_ENTRIES;
	default:
		break;
	}
	i = array_index(offset, GAUDISIM_MMU_HOP0_LO(0), 8, GAUDISIM_MMU_NUM_ASIDS);
	if (i >= 0)
		return (uint32_t)mmu->hop0[i];
	i = array_index(offset, GAUDISIM_MMU_HOP0_HI(0), 8, GAUDISIM_MMU_NUM_ASIDS);
	if (i >= 0)
		return (uint32_t)(mmu->hop0[i] >> 32);
	i = array_index(offset, GAUDISIM_MMU_QUEUE_ASID(0), 4, GAUDISIM_QUEUE_ID_SIZE);
	if (i >= 0)
		return mmu->queue_asid[i];
	return 0;	/* INV_CMD is write-only; holes read as zero */
}

static bool is_read_only(uint32_t offset)
{
	switch (offset) {
	case GAUDISIM_MMU_STATUS:
	case GAUDISIM_MMU_FAULT_VA_LO:
	case GAUDISIM_MMU_FAULT_VA_HI:
	case GAUDISIM_MMU_FAULT_CNT:
	case GAUDISIM_MMU_TLB_HIT_CNT:
	case GAUDISIM_MMU_TLB_MISS_CNT:
	case GAUDISIM_MMU_TLB_ENTRIES:
		return true;
	default:
		return false;
	}
}

static bool is_known(uint32_t offset)
{
	switch (offset) {
	case GAUDISIM_MMU_CTRL:
	case GAUDISIM_MMU_INV_CMD:
	case GAUDISIM_MMU_INV_ASID:
	case GAUDISIM_MMU_INV_VA_LO:
	case GAUDISIM_MMU_INV_VA_HI:
	case GAUDISIM_MMU_INV_SIZE_LO:
	case GAUDISIM_MMU_INV_SIZE_HI:
	case GAUDISIM_MMU_FAULT_INFO:
		return true;
	default:
		return is_read_only(offset) ||
		       array_index(offset, GAUDISIM_MMU_HOP0_LO(0), 4,
				   2 * GAUDISIM_MMU_NUM_ASIDS) >= 0 ||
		       array_index(offset, GAUDISIM_MMU_QUEUE_ASID(0), 4,
				   GAUDISIM_QUEUE_ID_SIZE) >= 0;
	}
}

static enum gsim_reg_status inv_command(struct gsim_core *core, uint32_t cmd)
{
	struct gsim_mmu *mmu = core->mmu;
	uint64_t end;

	switch (cmd) {
	case GAUDISIM_MMU_INV_ALL:
		tlb_invalidate(mmu, -1, 0, UINT64_MAX);
		return GSIM_REG_OK;
	case GAUDISIM_MMU_INV_ASID_ALL:
		tlb_invalidate(mmu, (int)mmu->inv_asid, 0, UINT64_MAX);
		return GSIM_REG_OK;
	case GAUDISIM_MMU_INV_RANGE:
		end = mmu->inv_size > UINT64_MAX - mmu->inv_va ? UINT64_MAX
							      : mmu->inv_va + mmu->inv_size;
		tlb_invalidate(mmu, (int)mmu->inv_asid, mmu->inv_va, end);
		return GSIM_REG_OK;
	default:
		gsim_log(core, "MMU INV_CMD %u: unknown command (1 all, 2 ASID, 3 range)", cmd);
		return GSIM_REG_BAD_VALUE;
	}
}

static enum gsim_reg_status hop0_write(struct gsim_core *core, unsigned int asid,
				       bool hi, uint32_t value)
{
	struct gsim_mmu *mmu = core->mmu;
	uint64_t v = mmu->hop0[asid];

	if (!hi && value % GAUDISIM_MMU_HOP_TABLE_SIZE) {
		gsim_log(core, "MMU HOP0_LO(%u) 0x%x: a hop table is %u-byte aligned",
			 asid, value, GAUDISIM_MMU_HOP_TABLE_SIZE);
		return GSIM_REG_BAD_VALUE;
	}
	v = hi ? (v & 0xffffffffull) | (uint64_t)value << 32
	       : (v & ~0xffffffffull) | value;
	mmu->hop0[asid] = v;
	/* The old tables' translations must not outlive them. */
	tlb_invalidate(mmu, (int)asid, 0, UINT64_MAX);
	return GSIM_REG_OK;
}

enum gsim_reg_status gsim_mmu_reg_write(struct gsim_core *core, uint32_t offset,
					uint32_t value, enum gsim_reg_origin origin)
{
	struct gsim_mmu *mmu = core->mmu;
	int i;

	if (!is_known(offset))
		return GSIM_REG_UNKNOWN;
	if (is_read_only(offset))
		return GSIM_REG_READ_ONLY;
	/* Page tables and ASIDs are the driver's alone. */
	if (origin != GSIM_ORIGIN_MMIO)
		return GSIM_REG_PROTECTED;

	switch (offset) {
	case GAUDISIM_MMU_CTRL:
		if (value & ~GAUDISIM_MMU_CTRL_ENABLE) {
			gsim_log(core, "MMU CTRL 0x%x: only bit 0 (enable) exists", value);
			return GSIM_REG_BAD_VALUE;
		}
		if (value != mmu->ctrl)
			tlb_invalidate(mmu, -1, 0, UINT64_MAX);
		mmu->ctrl = value;
		return GSIM_REG_OK;
	case GAUDISIM_MMU_INV_CMD:
		return inv_command(core, value);
	case GAUDISIM_MMU_INV_ASID:
		if (value >= GAUDISIM_MMU_NUM_ASIDS) {
			gsim_log(core, "MMU INV_ASID %u: the device has ASIDs 0..%u", value,
				 GAUDISIM_MMU_NUM_ASIDS - 1);
			return GSIM_REG_BAD_VALUE;
		}
		mmu->inv_asid = value;
		return GSIM_REG_OK;
	case GAUDISIM_MMU_INV_VA_LO:
		mmu->inv_va = (mmu->inv_va & ~0xffffffffull) | value;
		return GSIM_REG_OK;
	case GAUDISIM_MMU_INV_VA_HI:
		mmu->inv_va = (mmu->inv_va & 0xffffffffull) | (uint64_t)value << 32;
		return GSIM_REG_OK;
	case GAUDISIM_MMU_INV_SIZE_LO:
		mmu->inv_size = (mmu->inv_size & ~0xffffffffull) | value;
		return GSIM_REG_OK;
	case GAUDISIM_MMU_INV_SIZE_HI:
		mmu->inv_size = (mmu->inv_size & 0xffffffffull) | (uint64_t)value << 32;
		return GSIM_REG_OK;
	case GAUDISIM_MMU_FAULT_INFO:
		memset(&mmu->fault, 0, sizeof(mmu->fault));
		return GSIM_REG_OK;
	default:
		break;
	}
	i = array_index(offset, GAUDISIM_MMU_HOP0_LO(0), 8, GAUDISIM_MMU_NUM_ASIDS);
	if (i >= 0)
		return hop0_write(core, (unsigned int)i, false, value);
	i = array_index(offset, GAUDISIM_MMU_HOP0_HI(0), 8, GAUDISIM_MMU_NUM_ASIDS);
	if (i >= 0)
		return hop0_write(core, (unsigned int)i, true, value);
	i = array_index(offset, GAUDISIM_MMU_QUEUE_ASID(0), 4, GAUDISIM_QUEUE_ID_SIZE);
	if (value >= GAUDISIM_MMU_NUM_ASIDS) {
		gsim_log(core, "MMU QUEUE_ASID(%d) %u: the device has ASIDs 0..%u", i, value,
			 GAUDISIM_MMU_NUM_ASIDS - 1);
		return GSIM_REG_BAD_VALUE;
	}
	mmu->queue_asid[i] = (uint8_t)value;
	return GSIM_REG_OK;
}
