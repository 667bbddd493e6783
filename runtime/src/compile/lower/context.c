// SPDX-License-Identifier: MIT
/*
 * The lowering context: what a per-op rule may do to the recipe being
 * built (append a work, name a tensor's address, describe a TPC operand,
 * record an access, add a kernel), so the rules never reach into the
 * compiler's state.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/lower/lower.h"

hlrt_status hlrt_lower_new_work(struct lower_ctx *lc, enum hlrt_engine engine, struct rwork **w)
{
	struct compile_state *cs = lc->cs;
	struct hlrt_recipe *r = cs->r;

	if (r->n_works == cs->works_cap) {
		uint32_t cap = cs->works_cap ? 2 * cs->works_cap : 64;
		struct rwork *p = realloc(r->works, sizeof(*p) * cap);

		if (!p)
			return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "compile");
		r->works = p;
		cs->works_cap = cap;
	}
	*w = &r->works[r->n_works++];
	memset(*w, 0, sizeof(**w));
	(*w)->engine = engine;
	(*w)->node = r->n_nodes - 1;
	return HLRT_SUCCESS;
}

hlrt_status hlrt_lower_tpc_work(struct lower_ctx *lc, const char *kernel, struct rwork **out)
{
	struct rwork *w;
	hlrt_status st = hlrt_lower_new_work(lc, ENG_TPC, &w);

	if (st)
		return st;
	st = hlrt_lower_kernel(lc->cs->r, kernel, &w->kernel);
	if (st)
		return st;
	w->ispace[0] = w->ispace[1] = w->ispace[2] = w->ispace[3] = w->ispace[4] = 1;
	*out = w;
	return HLRT_SUCCESS;
}

struct raddr hlrt_lower_addr(struct lower_ctx *lc, const struct hlrt_tensor *t, uint64_t offset)
{
	uint64_t voff;
	uint32_t root = hlrt_ct_root(lc->cs, t->id, &voff);
	struct raddr a = { .tensor = (uint32_t)lc->cs->ct[root].rt, .offset = voff + offset };

	return a;
}

void hlrt_lower_access(struct rwork *w, struct raddr a, uint64_t size, bool write)
{
	if (a.tensor & RADDR_CODE || w->n_acc == sizeof(w->acc) / sizeof(w->acc[0]))
		return;
	w->acc[w->n_acc].rt = a.tensor;
	w->acc[w->n_acc].write = write;
	w->acc[w->n_acc].offset = a.offset;
	w->acc[w->n_acc].size = size;
	w->n_acc++;
}

void hlrt_lower_tdesc(struct lower_ctx *lc, struct rwork *w, uint32_t slot, const hlrt_tensor *t,
		 const uint64_t *size, const uint64_t *stride, uint32_t nd, uint32_t pad,
		 bool write)
{
	struct rtpc_tensor *d = &w->t[slot];
	uint32_t i;

	d->base = hlrt_lower_addr(lc, t, 0);
	d->dtype = t->dtype;
	d->pad_value = pad;
	for (i = 0; i < 5; i++) {
		d->size[i] = i < nd ? (uint32_t)size[i] : 1;
		d->stride[i] = i < nd ? (uint32_t)stride[i] : 0;
	}
	if (slot + 1 > w->n_tensors)
		w->n_tensors = slot + 1;
	hlrt_lower_access(w, d->base, hlrt_tensor_bytes(t), write);
}

hlrt_status hlrt_lower_kernel(struct hlrt_recipe *r, const char *name, uint32_t *idx)
{
	const struct hlrt_kernel *k;
	const uint8_t *code;
	struct rkernel *p;
	uint32_t i, size;

	for (i = 0; i < r->n_kernels; i++) {
		if (!strcmp(r->kernels[i].name, name)) {
			*idx = i;
			return HLRT_SUCCESS;
		}
	}
	k = hlrt_kernel_find(name);
	if (k) {
		code = k->code;
		size = k->size;
	} else if (!hlrt_custom_kernel(name, &code, &size)) {
		return hlrt_fail(HLRT_INTERNAL, "no TPC kernel \"%s\" in the library", name);
	}
	p = realloc(r->kernels, sizeof(*p) * (r->n_kernels + 1));
	if (!p)
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "recipe kernels");
	r->kernels = p;
	p = &r->kernels[r->n_kernels];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->size = size;
	p->code = malloc(size);
	if (!p->code)
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "recipe kernels");
	memcpy(p->code, code, size);
	*idx = r->n_kernels++;
	return HLRT_SUCCESS;
}
