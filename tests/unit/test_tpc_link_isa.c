/* SPDX-License-Identifier: MIT */
/*
 * The TPC assembler's shared names and random-bundle generator, linked
 * into the unit tests (see test_tpc_link_asm.c).
 */
#include "../../runtime/tpc/tpc_isa.c"
