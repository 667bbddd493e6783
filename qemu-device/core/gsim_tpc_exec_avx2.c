/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: the TPC interpreter (gsim_tpc_exec.c) built again
 * for hosts with AVX2, so its lane loops use the host's wider
 * vectors. gsim_tpc_isa.c runs it only on a CPU that has the ISA. Same
 * source, same results bit for bit.
 *
 * The headers come first, untouched by the target pragma; then the
 * interpreter's own functions are compiled for the ISA.
 */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <immintrin.h>

#include "gsim_bf16.h"
#include "gsim_tpc.h"

#define GSIM_TPC_ISA_TABLE	gsim_tpc_isa_avx2
#define GSIM_TPC_ISA_NAME	"avx2"

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC target("avx2")
#endif

#include "gsim_tpc_exec.c"

#if defined(__clang__)
#pragma clang attribute pop
#endif

#endif
