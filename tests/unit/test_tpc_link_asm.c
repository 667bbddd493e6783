/* SPDX-License-Identifier: MIT */
/*
 * The TPC assembler, linked into the unit tests so they can assemble
 * kernels from text. The top-level build compiles every C file of
 * tests/unit; building runtime/tpc/tpc_asm.c there directly would replace
 * this file.
 */
#include "../../runtime/tpc/tpc_asm.c"
