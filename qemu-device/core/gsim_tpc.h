/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: the eight TPCs (hw/gaudisim_hw_tpc.h is the register
 * and encoding contract, docs/tpc-isa.md the instruction set).
 *
 * Files:
 *   gsim_tpc.c         register block, launch checks, the decode cache,
 *                      status and counters, the engine-ops table
 *   gsim_tpc_decode.c  kernel bytes -> decoded bundles (done once per
 *                      kernel content, cached)
 *   gsim_tpc_exec.c    the interpreter: per-member loop, slot handlers,
 *                      fused bundle and loop handlers, the lane arithmetic
 *                      in plain loops
 *   gsim_tpc_exec_avx2.c, gsim_tpc_exec_avx512.c
 *                      the same interpreter built again for wider host
 *                      vectors
 *   gsim_tpc_isa.c     which of those builds runs (CPU, GSIM_TPC_ISA)
 *
 * A launch goes through three steps so that the heavy part can leave the
 * MMIO path:
 *   gsim_tpc_start()   main loop: snapshot the registers, check them,
 *                      look the kernel up in the decode cache (logs)
 *   gsim_tpc_run()     the bundles, on device memory only: no logging, no
 *                      host callbacks, resumable after max_bundles (safe in
 *                      a worker thread that owns the TPC)
 *   gsim_tpc_finish()  main loop: error details, counters, log, events
 * gsim_tpc_launch() is the engine-ops table's launch(): start, then on a
 * core with worker threads the first bundles right there (a short launch
 * ends and finishes at once), and GSIM_ENGINE_ASYNC if bundles remain (a
 * worker runs them, the owner thread finishes); without workers all three
 * at once.
 */
#ifndef GSIM_TPC_H
#define GSIM_TPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gsim_core_internal.h"
#include "hw/gaudisim_hw_tpc.h"

#define GSIM_TPC_L		GAUDISIM_TPC_LANES
#define GSIM_TPC_NUM_CFG_REGS	(GAUDISIM_TPC_CFG_END / 4)
/* Decoded kernels kept; all TPCs share them (one kernel, eight launches). */
#define GSIM_TPC_CACHE_ENTRIES	16

/* A vector register: 64 lanes of 32 bits, read as the operation's type. */
union gsim_tpc_vreg {
	_Alignas(64) uint32_t u[GSIM_TPC_L];
	int32_t i[GSIM_TPC_L];
	float f[GSIM_TPC_L];
};

struct gsim_tpc_exec;
struct gsim_tpc_uop;

/* A slot handler: 0, or GSIM_TPC_HALTED when the member ends. */
typedef int (*gsim_tpc_fn)(struct gsim_tpc_exec *x, const struct gsim_tpc_uop *u);
/* A lane kernel: r = f(a, b, c) over 64 lanes; c is the old destination. */
typedef void (*gsim_tpc_vk)(union gsim_tpc_vreg *r, const union gsim_tpc_vreg *a,
			    const union gsim_tpc_vreg *b, const union gsim_tpc_vreg *c);
/* A reduction tree over a's 64 lanes (t is scratch): lane 0's raw result. */
typedef uint32_t (*gsim_tpc_rk)(const union gsim_tpc_vreg *a, union gsim_tpc_vreg *t);
#define GSIM_TPC_HALTED		1

/* One decoded slot. */
struct gsim_tpc_uop {
	gsim_tpc_fn fn;
	gsim_tpc_vk vk;				/* fast vector kernel, or NULL */
	gsim_tpc_rk rk;				/* fast reduction, or NULL */
	const union gsim_tpc_vreg *immv;	/* VPU immediate, broadcast */
	uint32_t imm;
	uint16_t mod;
	uint8_t slot, opc, dt;
	uint8_t d, a, b, bk;
	uint8_t pred, pneg, pvec;
};

struct gsim_tpc_dbundle;
struct gsim_tpc_isa;

/* A handler for a whole bundle (a fused common shape), or NULL. */
typedef int (*gsim_tpc_bfn)(struct gsim_tpc_exec *x, const struct gsim_tpc_dbundle *b);
/*
 * A handler for a bundle that loops to itself (its iloop targets its own
 * pc): runs it up to n >= 1 times, leaves x->next_pc where the last run
 * went and returns the runs done, each counted as one bundle.
 */
typedef uint64_t (*gsim_tpc_lfn)(struct gsim_tpc_exec *x, const struct gsim_tpc_dbundle *b,
				 uint64_t n);

struct gsim_tpc_dbundle {
	gsim_tpc_bfn fused;
	gsim_tpc_lfn loop;
	uint8_t n;				/* uops (non-NOP slots), in slot order */
	uint8_t bad;				/* GAUDISIM_TPC_BAD_* or 0 */
	uint8_t bad_slot;
	struct gsim_tpc_uop u[GAUDISIM_TPC_NUM_SLOTS];
};

#define GSIM_TPC_TENSOR_UNUSED	0xff
#define GSIM_TPC_TENSOR_MIXED	0xfe	/* accessed with different dtypes */

/* A decoded kernel; shared by the cache and the launches using it. */
struct gsim_tpc_kernel {
	uint64_t hash;
	uint32_t size;				/* bytes */
	uint32_t nbundles;
	unsigned int refs;
	uint64_t lru;
	uint8_t *bytes;				/* copy of the code: the cache key */
	bool portable;				/* bound to the portable handlers */
	const struct gsim_tpc_isa *isa;		/* the interpreter build bound */
	struct gsim_tpc_dbundle *b;
	union gsim_tpc_vreg *immv;
	/* dtype every load/store of tensor t uses, or GSIM_TPC_TENSOR_*. */
	uint8_t tensor_dt[GAUDISIM_TPC_NUM_TENSORS];
};

/* A checked tensor descriptor, as the interpreter uses it. */
struct gsim_tpc_tensor {
	uint8_t *base;				/* host pointer to element 0 */
	uint64_t stride[GAUDISIM_TPC_NUM_DIMS];
	uint32_t size[GAUDISIM_TPC_NUM_DIMS];
	uint32_t pad;
	uint8_t dtype;
	uint8_t esize;
	bool stream;				/* larger than the caches: stream stores */
};

/*
 * Tensors of at least this many bytes are written with non-temporal
 * stores where the host has them: such an output is not read back from
 * the caches anyway, and streaming saves reading every line before it is
 * overwritten.
 */
#define GSIM_TPC_STREAM_BYTES	(8ull << 20)

/* One launch of one TPC: the checked snapshot plus the progress. */
struct gsim_tpc_job {
	struct gsim_tpc_kernel *k;
	unsigned int tpc;
	uint32_t isize[GAUDISIM_TPC_NUM_DIMS];
	uint32_t pstart[GAUDISIM_TPC_NUM_DIMS];
	uint32_t pend[GAUDISIM_TPC_NUM_DIMS];	/* exclusive */
	uint32_t args[GAUDISIM_TPC_NUM_ARGS];
	uint32_t tsize[GAUDISIM_TPC_NUM_TENSORS][GAUDISIM_TPC_NUM_DIMS];	/* for RD */
	uint32_t tstride[GAUDISIM_TPC_NUM_TENSORS][GAUDISIM_TPC_NUM_DIMS];
	struct gsim_tpc_tensor t[GAUDISIM_TPC_NUM_TENSORS];

	uint32_t coord[GAUDISIM_TPC_NUM_DIMS];	/* member running, or next */
	uint32_t pc;
	bool in_member;
	bool done;
	uint64_t budget;			/* bundles left before the watchdog */
	uint64_t bundles, members;		/* executed */
	uint8_t err;				/* GAUDISIM_TPC_ERR_* */
	uint32_t err_pc, err_info;
};

/* Machine state of one TPC while it runs a launch. */
struct gsim_tpc_exec {
	union gsim_tpc_vreg v[GAUDISIM_TPC_NUM_VREGS];
	union gsim_tpc_vreg vp[GAUDISIM_TPC_NUM_VPREDS];	/* lanes 0 or ~0 */
	union gsim_tpc_vreg tmp;			/* predicated results */
	union gsim_tpc_vreg bcast;			/* broadcast scalar operand */
	uint32_t s[GAUDISIM_TPC_NUM_SREGS];
	int32_t irf[GAUDISIM_TPC_NUM_IREGS][GAUDISIM_TPC_NUM_DIMS];
	uint8_t sp[GAUDISIM_TPC_NUM_SPREDS];		/* 0 or 1; sp[0] = 1 */
	uint32_t next_pc;
	struct gsim_tpc_job *job;
};

/* One TPC engine. */
struct gsim_tpc_unit {
	bool present;				/* init() ran */
	uint32_t cfg[GSIM_TPC_NUM_CFG_REGS];	/* configuration registers */
	bool busy;				/* started, not finished */
	uint8_t last_err;			/* of the last launch (the core shows it
						 * in GAUDISIM_ENG_STATUS) */
	uint32_t err_pc, err_info;
	uint32_t err_coord[GAUDISIM_TPC_NUM_DIMS];
	uint64_t bundles, members;
	struct gsim_tpc_job job;
	struct gsim_tpc_exec *x;		/* 64-byte aligned */
};

struct gsim_tpc_set {
	struct gsim_tpc_unit unit[GAUDISIM_NUM_TPC];
	unsigned int units;			/* present units */
	struct gsim_tpc_kernel *cache[GSIM_TPC_CACHE_ENTRIES];
	uint64_t lru_clock;
	uint64_t cache_hits, cache_misses;	/* for tests and statistics */
};

/* ---- gsim_tpc.c: engine interface (e = GAUDISIM_ENGINE_TPC_0 + n) -------- */

extern const struct gsim_engine_ops gsim_tpc_engine_ops;

int gsim_tpc_init(struct gsim_core *core, unsigned int e);
void gsim_tpc_fini(struct gsim_core *core, unsigned int e);
void gsim_tpc_reset(struct gsim_core *core, unsigned int e);
bool gsim_tpc_reg_read(struct gsim_core *core, unsigned int e, uint32_t off, uint32_t *value);
enum gsim_reg_status gsim_tpc_reg_write(struct gsim_core *core, unsigned int e, uint32_t off,
					uint32_t value, enum gsim_reg_origin origin,
					bool *launch);
/* Start + run to the end + finish: GAUDISIM_TPC_ERR_* (| GSIM_ENGINE_ERR_POSTED
 * when the TPC posted its own event, i.e. ENGINE_TIMEOUT); GSIM_ENGINE_ASYNC
 * after a good start on a core with workers. */
int gsim_tpc_launch(struct gsim_core *core, unsigned int e);
bool gsim_tpc_busy(const struct gsim_core *core, unsigned int e);

/* The three steps of a launch (see the top of this file). start() returns
 * 0 when the launch runs, else the error (the launch is already finished). */
int gsim_tpc_start(struct gsim_core *core, unsigned int e);
/* true while bundles remain; false when the launch ended (finish() next). */
bool gsim_tpc_run(struct gsim_core *core, unsigned int e, uint64_t max_bundles);
int gsim_tpc_finish(struct gsim_core *core, unsigned int e);

/* Name of a GAUDISIM_TPC_ERR_* code, for logs. */
const char *gsim_tpc_err_name(int err);

/* ---- gsim_tpc_decode.c ----------------------------------------------------- */

/* Decode size bytes of code (a multiple of the bundle size) for the
 * interpreter build isa (gsim_tpc_isa_base when NULL). NULL: no memory. */
struct gsim_tpc_kernel *gsim_tpc_kernel_decode(const uint8_t *code, uint32_t size,
					       bool portable, const struct gsim_tpc_isa *isa);
void gsim_tpc_kernel_put(struct gsim_tpc_kernel *k);
uint64_t gsim_tpc_code_hash(const uint8_t *code, uint32_t size);

/* ---- gsim_tpc_exec.c ------------------------------------------------------- */

/*
 * The portable interpreter: every operation lane by lane through the
 * generic handlers, no specialised loops, no fused bundles. It is the
 * reference the fast handlers are tested against (bit for bit). The
 * core's configuration selects it (gsim_core_config.tpc_portable, kept in
 * core->tpc_portable, which tests switch); a kernel is decoded for one
 * interpreter, and a switch decodes it again.
 *
 * gsim_tpc_exec.c is compiled once per host vector ISA (the baseline, and
 * AVX2 and AVX-512 on x86-64); each build exports its entry points as one
 * table. All builds give the same results bit for bit: the source is the
 * same, float operations never contract, reductions keep their tree.
 */
struct gsim_tpc_isa {
	const char *name;			/* "avx512", "avx2", GSIM_TPC_ISA_BASE */
	/* Choose the handler of a decoded slot (fills fn, vk and rk). */
	void (*bind)(struct gsim_tpc_uop *u, bool portable);
	/* After all slots are bound: fused handlers for the bundle at pc, if one fits. */
	void (*fuse)(struct gsim_tpc_dbundle *b, uint32_t pc, bool portable);
	/* Reset the machine state for a new launch of x->job. */
	void (*begin)(struct gsim_tpc_exec *x);
	/* Run at most max_bundles of x->job; true while bundles remain. */
	bool (*run)(struct gsim_tpc_exec *x, uint64_t max_bundles);
};

#if defined(__x86_64__) || defined(__i386__)
#define GSIM_TPC_ISA_BASE	"sse2"
#else
#define GSIM_TPC_ISA_BASE	"generic"
#endif

/* The baseline build: runs on every host. */
extern const struct gsim_tpc_isa gsim_tpc_isa_base;

/* ---- gsim_tpc_isa.c -------------------------------------------------------- */

/* The builds of this binary, widest first (index 0..count-1). */
unsigned int gsim_tpc_isa_count(void);
const struct gsim_tpc_isa *gsim_tpc_isa_at(unsigned int i);
/* Does this CPU (and OS) run the build? */
bool gsim_tpc_isa_runs(const struct gsim_tpc_isa *isa);
/*
 * The build to use: name ("avx512", "avx2", GSIM_TPC_ISA_BASE, or "base")
 * when given, else the environment's GSIM_TPC_ISA when set, else the
 * widest build this CPU runs ("auto" also means that). NULL with *err set
 * to a static message when the name is unknown or this CPU cannot run it.
 */
const struct gsim_tpc_isa *gsim_tpc_isa_choose(const char *name, const char **err);

#endif /* GSIM_TPC_H */
