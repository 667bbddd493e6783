/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: the TPC interpreter (gsim_tpc_exec.c) built again
 * for hosts with AVX-512 (F, BW, DQ, VL), so its lane loops use the host's wider
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

#define GSIM_TPC_ISA_TABLE	gsim_tpc_isa_avx512
#define GSIM_TPC_ISA_NAME	"avx512"

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"))), \
			     apply_to = function)
#else
/* GCC would keep to 256-bit vectors for some tunings: ask for 512. */
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl,prefer-vector-width=512")
#endif

#include "gsim_tpc_exec.c"

#if defined(__clang__)
#pragma clang attribute pop
#endif

#endif
