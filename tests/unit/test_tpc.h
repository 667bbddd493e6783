/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the TPC unit tests (test_tpc*.c): the eight TPC
 * engines of the test core, launches described in one struct and split
 * over N TPCs like the runtime does, kernels assembled from text with the
 * runtime's assembler.
 */
#ifndef TEST_TPC_H
#define TEST_TPC_H

#include "gsim_test.h"
#include "gsim_ref_tpc.h"
#include "gsim_tpc.h"
#include "../../runtime/tpc/tpc_asm.h"

#define TT_E(n)		(GAUDISIM_ENGINE_TPC_0 + (n))
/* Device memory of the tests: kernels, then data (user HBM). */
#define TT_KERNEL	GAUDISIM_HBM_USER_BASE
#define TT_KERNEL2	(GAUDISIM_HBM_USER_BASE + 0x80000)
#define TT_DATA		(GAUDISIM_HBM_USER_BASE + 0x100000)
#define TT_DATA_SIZE	(256u << 20)

struct tt_tensor {
	uint64_t addr;
	unsigned int dtype;
	uint32_t size[GAUDISIM_TPC_NUM_DIMS];
	uint32_t stride[GAUDISIM_TPC_NUM_DIMS];
	uint32_t pad;
	bool used;
};

/* Everything a launch needs; tt_run() writes it into the TPCs. */
struct tt_launch {
	uint64_t kernel;
	uint32_t ksize;
	uint32_t isize[GAUDISIM_TPC_NUM_DIMS];
	uint32_t args[GAUDISIM_TPC_NUM_ARGS];
	uint32_t watchdog;
	struct tt_tensor t[GAUDISIM_TPC_NUM_TENSORS];
};

void tt_setup(void);
void tt_teardown(void);

uint32_t tt_rd(unsigned int n, uint32_t off);
enum gsim_reg_status tt_wr(unsigned int n, uint32_t off, uint32_t value);
uint8_t *tt_mem(uint64_t addr);

/* Assemble text into device memory at addr (fails the test on an error). */
uint32_t tt_asm(uint64_t addr, const char *text);
/* Same, from a kernel file of runtime/kernels. */
uint32_t tt_asm_file(uint64_t addr, const char *kernel_name);

/* A launch of ksize bytes at kernel over a 1x1x1x1x1 index space. */
void tt_init(struct tt_launch *l, uint64_t kernel, uint32_t ksize);
/* Tensor t: dense (strides from the sizes) unless stride is given. */
void tt_tensor(struct tt_launch *l, unsigned int t, uint64_t addr, unsigned int dtype,
	       const uint32_t *size, const uint32_t *stride, uint32_t pad);
/* Write l into TPC n with the given part (NULL: the whole index space). */
void tt_program(unsigned int n, const struct tt_launch *l, const struct gaudisim_tpc_part *p);
/* Split over ntpc TPCs, launch each; the first error code (0 if none). */
int tt_run(const struct tt_launch *l, unsigned int ntpc);
/* STATUS error field of TPC n. */
unsigned int tt_err(unsigned int n);

/* Random numbers for the tests (deterministic per seed). */
uint64_t tt_rand(void);
void tt_seed(uint64_t seed);
/* A random lane value of dtype in register format, specials included. */
uint32_t tt_rand_value(unsigned int dt);

void tpc_add_reg_tests(Suite *s);
void tpc_add_op_tests(Suite *s);
void tpc_add_kernel_tests(Suite *s);
void tpc_add_random_tests(Suite *s);

#endif /* TEST_TPC_H */
