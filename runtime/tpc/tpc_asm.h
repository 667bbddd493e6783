/* SPDX-License-Identifier: MIT */
/*
 * TPC assembler and disassembler library (C11). The text syntax is
 * docs/tpc-isa.md; the encoding is hw/gaudisim_hw_tpc.h.
 *
 *   tpc_asm.c   text -> bundles
 *   tpc_dis.c   bundles -> text that tpc_assemble() turns back into the
 *               same bytes
 *   tpc_isa.c   names shared by both, and a generator of random legal
 *               bundles for round-trip tests and fuzzing
 */
#ifndef TPC_ASM_H
#define TPC_ASM_H

#include <stddef.h>
#include <stdint.h>

#include "hw/gaudisim_hw_tpc.h"

/*
 * Assemble len bytes of source text. name prefixes error messages
 * ("name:line: message"). On success returns 0 and a malloc'ed buffer of
 * *size bytes (a multiple of GAUDISIM_TPC_BUNDLE_SIZE) in *code, which the
 * caller frees. On error returns -1 and writes the first error into err.
 */
int tpc_assemble(const char *src, size_t len, const char *name, uint8_t **code, size_t *size,
		 char *err, size_t errlen);

/*
 * Disassemble one bundle into one line of text (no newline, no label).
 * Branch targets below nbundles print as labels "L<index>", others as
 * "@<index>"; an illegal bundle prints as a ".raw" directive. Returns the
 * length of the text, or -1 when outlen is too small.
 */
int tpc_disasm_bundle(const uint8_t *bundle, uint32_t nbundles, char *out, size_t outlen);

/*
 * Disassemble a program of size bytes (a multiple of the bundle size):
 * one line per bundle, with a label line before every branch target.
 * Returns malloc'ed text, or NULL (bad size or out of memory).
 */
char *tpc_disassemble(const uint8_t *code, size_t size);

/* ---- tpc_isa.c ------------------------------------------------------------- */

/* Suffix of a dtype ("f32", "bf16", "i32", "u32", "i8", "u8", "i16",
 * "u16"), or NULL. */
const char *tpc_dtype_name(unsigned int dt);
/* dtype code of a suffix, or -1. */
int tpc_dtype_parse(const char *s, size_t n);
extern const char *const tpc_cond_names[GAUDISIM_TPC_NUM_CONDS];
extern const char *const tpc_rm_names[4];

/* Text of a special register for RD ("isize.0", "T3.stride.1", ...). */
int tpc_spec_format(unsigned int spec, char *out, size_t outlen);
/* Special register code of a text, or -1. */
int tpc_spec_parse(const char *s, size_t n);

/*
 * A random legal bundle (gaudisim_tpc_check_bundle() accepts it with
 * nbundles), from a 64-bit generator state.
 */
void tpc_random_bundle(uint64_t *state, uint32_t nbundles, uint8_t out[GAUDISIM_TPC_BUNDLE_SIZE]);
uint64_t tpc_rand64(uint64_t *state);

#endif /* TPC_ASM_H */
