/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: TPC kernel decoding.
 *
 * A kernel is decoded once per distinct content: every bundle is checked
 * with the contract's legality check (hw/gaudisim_hw_tpc.h), its non-NOP
 * slots become handler calls in execution order, VPU immediates are
 * broadcast into vectors once, and the tensors the code loads from or
 * stores to are recorded with their dtype so a launch can check exactly
 * those descriptors. An illegal bundle is kept, marked: it fails the
 * launch only if it is executed.
 */
#include <stdlib.h>
#include <string.h>

#include "gsim_tpc.h"

uint64_t gsim_tpc_code_hash(const uint8_t *code, uint32_t size)
{
	uint64_t h = 0xcbf29ce484222325ull;
	uint32_t i;

	/* FNV-1a over 64-bit words (size is a multiple of the bundle size). */
	for (i = 0; i + 8 <= size; i += 8) {
		uint64_t w;

		memcpy(&w, code + i, sizeof(w));
		h ^= w;
		h *= 0x100000001b3ull;
		h ^= h >> 29;
	}
	return h;
}

void gsim_tpc_kernel_put(struct gsim_tpc_kernel *k)
{
	if (!k || --k->refs)
		return;
	free(k->bytes);
	free(k->b);
	free(k->immv);
	free(k);
}

static void note_tensor(struct gsim_tpc_kernel *k, unsigned int t, unsigned int dt)
{
	if (k->tensor_dt[t] == GSIM_TPC_TENSOR_UNUSED)
		k->tensor_dt[t] = (uint8_t)dt;
	else if (k->tensor_dt[t] != dt)
		k->tensor_dt[t] = GSIM_TPC_TENSOR_MIXED;
}

static bool vpu_uses_imm_vector(const uint8_t *bundle)
{
	struct gaudisim_tpc_slot s;

	gaudisim_tpc_slot_decode(bundle, GAUDISIM_TPC_SLOT_VPU, &s);
	return s.opc != GAUDISIM_TPC_OP_NOP && s.bk == GAUDISIM_TPC_BK_IMM;
}

static void decode_bundle(struct gsim_tpc_kernel *k, uint32_t pc, uint32_t *nimm)
{
	const uint8_t *p = k->bytes + (uint64_t)pc * GAUDISIM_TPC_BUNDLE_SIZE;
	struct gsim_tpc_dbundle *b = &k->b[pc];
	unsigned int slot, bad_slot = 0;
	int bad = gaudisim_tpc_check_bundle(p, k->nbundles, &bad_slot);

	if (bad != GAUDISIM_TPC_OK) {
		b->bad = (uint8_t)bad;
		b->bad_slot = (uint8_t)bad_slot;
		return;
	}
	for (slot = 0; slot < GAUDISIM_TPC_NUM_SLOTS; slot++) {
		struct gsim_tpc_uop *u = &b->u[b->n];
		struct gaudisim_tpc_slot s;
		int i;

		gaudisim_tpc_slot_decode(p, slot, &s);
		if (s.opc == 0)
			continue;
		memset(u, 0, sizeof(*u));
		u->slot = (uint8_t)slot;
		u->opc = (uint8_t)s.opc;
		u->dt = (uint8_t)s.dt;
		u->d = (uint8_t)s.dst;
		u->a = (uint8_t)s.sa;
		u->b = (uint8_t)s.sb;
		u->bk = (uint8_t)s.bk;
		u->pred = (uint8_t)s.pred;
		u->pneg = (uint8_t)s.pneg;
		u->pvec = (uint8_t)s.pvec;
		u->mod = (uint16_t)s.mod;
		u->imm = s.imm;
		if (slot == GAUDISIM_TPC_SLOT_VPU && s.bk == GAUDISIM_TPC_BK_IMM) {
			union gsim_tpc_vreg *v = &k->immv[(*nimm)++];

			for (i = 0; i < GSIM_TPC_L; i++)
				v->u[i] = s.imm;
			u->immv = v;
		}
		if (slot == GAUDISIM_TPC_SLOT_LOAD)
			note_tensor(k, s.sa, s.dt);
		else if (slot == GAUDISIM_TPC_SLOT_STORE)
			note_tensor(k, s.dst, s.dt);
		k->isa->bind(u, k->portable);
		b->n++;
	}
	k->isa->fuse(b, pc, k->portable);
}

struct gsim_tpc_kernel *gsim_tpc_kernel_decode(const uint8_t *code, uint32_t size,
					       bool portable, const struct gsim_tpc_isa *isa)
{
	struct gsim_tpc_kernel *k = calloc(1, sizeof(*k));
	uint32_t pc, nimm = 0;

	if (!k)
		return NULL;
	k->refs = 1;
	k->portable = portable;
	k->isa = isa ? isa : &gsim_tpc_isa_base;
	k->size = size;
	k->nbundles = size / GAUDISIM_TPC_BUNDLE_SIZE;
	k->hash = gsim_tpc_code_hash(code, size);
	memset(k->tensor_dt, GSIM_TPC_TENSOR_UNUSED, sizeof(k->tensor_dt));
	k->bytes = malloc(size);
	k->b = calloc(k->nbundles, sizeof(*k->b));
	if (!k->bytes || !k->b)
		goto fail;
	memcpy(k->bytes, code, size);

	for (pc = 0; pc < k->nbundles; pc++) {
		const uint8_t *p = code + (uint64_t)pc * GAUDISIM_TPC_BUNDLE_SIZE;

		if (vpu_uses_imm_vector(p) &&
		    gaudisim_tpc_check_bundle(p, k->nbundles, NULL) == GAUDISIM_TPC_OK)
			nimm++;
	}
	if (nimm) {
		k->immv = aligned_alloc(_Alignof(union gsim_tpc_vreg),
					nimm * sizeof(union gsim_tpc_vreg));
		if (!k->immv)
			goto fail;
	}
	nimm = 0;
	for (pc = 0; pc < k->nbundles; pc++)
		decode_bundle(k, pc, &nimm);
	return k;

fail:
	gsim_tpc_kernel_put(k);
	return NULL;
}
