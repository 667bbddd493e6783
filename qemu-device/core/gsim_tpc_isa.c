/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: which build of the TPC interpreter runs.
 *
 * gsim_tpc_exec.c is compiled for the baseline ISA and, on x86-64, again
 * for AVX2 and for AVX-512 (gsim_tpc_exec_avx2.c, gsim_tpc_exec_avx512.c).
 * The builds compute the same bits; the wider ones only move more lanes
 * per host instruction. A core uses the widest build its CPU runs unless
 * its configuration or the environment (GSIM_TPC_ISA) names one, which is
 * how tests and benchmarks force each path.
 */
#include <stdlib.h>
#include <string.h>

#include "gsim_tpc.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GSIM_TPC_ISA_X86
extern const struct gsim_tpc_isa gsim_tpc_isa_avx2;
extern const struct gsim_tpc_isa gsim_tpc_isa_avx512;
#endif

/* Widest first: the first one the CPU runs is the default. */
static const struct gsim_tpc_isa *const isa_builds[] = {
#ifdef GSIM_TPC_ISA_X86
	&gsim_tpc_isa_avx512,
	&gsim_tpc_isa_avx2,
#endif
	&gsim_tpc_isa_base,
};

#define ISA_BUILDS	(sizeof(isa_builds) / sizeof(isa_builds[0]))

unsigned int gsim_tpc_isa_count(void)
{
	return ISA_BUILDS;
}

const struct gsim_tpc_isa *gsim_tpc_isa_at(unsigned int i)
{
	return i < ISA_BUILDS ? isa_builds[i] : NULL;
}

bool gsim_tpc_isa_runs(const struct gsim_tpc_isa *isa)
{
	if (isa == &gsim_tpc_isa_base)
		return true;
#ifdef GSIM_TPC_ISA_X86
	/* The checks include the OS saving the wide registers (XCR0). */
	__builtin_cpu_init();
	if (isa == &gsim_tpc_isa_avx2)
		return __builtin_cpu_supports("avx2");
	if (isa == &gsim_tpc_isa_avx512)
		return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
		       __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
#endif
	return false;
}

const struct gsim_tpc_isa *gsim_tpc_isa_choose(const char *name, const char **err)
{
	unsigned int i;

	if (!name || !*name)
		name = getenv("GSIM_TPC_ISA");
	if (!name || !*name || !strcmp(name, "auto")) {
		for (i = 0; i < ISA_BUILDS; i++)
			if (gsim_tpc_isa_runs(isa_builds[i]))
				return isa_builds[i];
		return &gsim_tpc_isa_base;
	}
	if (!strcmp(name, "base"))
		return &gsim_tpc_isa_base;
	for (i = 0; i < ISA_BUILDS; i++) {
		if (strcmp(name, isa_builds[i]->name))
			continue;
		if (gsim_tpc_isa_runs(isa_builds[i]))
			return isa_builds[i];
		*err = "gaudisim: this CPU cannot run the TPC interpreter build named by tpc-isa "
		       "or GSIM_TPC_ISA";
		return NULL;
	}
	*err = "gaudisim: unknown TPC interpreter build in tpc-isa or GSIM_TPC_ISA (auto, avx512, avx2, "
	       GSIM_TPC_ISA_BASE ", base)";
	return NULL;
}
