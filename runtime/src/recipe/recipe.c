// SPDX-License-Identifier: MIT
/*
 * Recipes: the device-independent result of a compile (tensor table,
 * engine works with their dependencies, kernels, constants), its queries,
 * serialisation to a versioned binary format, and the in-process cache
 * keyed by the graph hash.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recipe/recipe.h"
#include "graph/graph_internal.h"

#define RECIPE_MAGIC	"HLRTRCP"
#define RECIPE_VERSION	2
#define CACHE_MAX	64

hlrt_status hlrt_recipe_alloc(struct hlrt_recipe **r)
{
	*r = calloc(1, sizeof(**r));
	if (!*r)
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "recipe");
	(*r)->refs = 1;
	return HLRT_SUCCESS;
}

void hlrt_recipe_free(struct hlrt_recipe *r)
{
	uint32_t i;

	if (!r)
		return;
	if (r->loaded)
		r->unload(r->loaded);
	for (i = 0; i < r->n_kernels; i++)
		free(r->kernels[i].code);
	free(r->kernels);
	free(r->tensors);
	free(r->works);
	free(r->nodes);
	free(r->consts);
	free(r);
}

/* ---- cache ------------------------------------------------------------------ */

static struct hlrt_recipe *cache[CACHE_MAX];
static uint32_t cache_n;

struct hlrt_recipe *hlrt_cache_get(uint64_t hash)
{
	uint32_t i;

	for (i = 0; i < cache_n; i++) {
		if (cache[i]->hash == hash) {
			cache[i]->refs++;
			return cache[i];
		}
	}
	return NULL;
}

void hlrt_cache_put(struct hlrt_recipe *r)
{
	if (cache_n == CACHE_MAX)
		return;
	r->refs++;
	cache[cache_n++] = r;
}

hlrt_status hlrt_recipe_destroy(hlrt_recipe *recipe)
{
	if (!recipe)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_recipe_destroy: NULL recipe");
	if (--recipe->refs == 0)
		hlrt_recipe_free(recipe);
	return HLRT_SUCCESS;
}

/* ---- queries ---------------------------------------------------------------- */

hlrt_status hlrt_recipe_workspace_size(const hlrt_recipe *recipe, uint64_t *size)
{
	if (!recipe || !size)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_recipe_workspace_size: NULL");
	*size = recipe->workspace_size;
	return HLRT_SUCCESS;
}

hlrt_status hlrt_recipe_persistent_count(const hlrt_recipe *recipe, uint32_t *count)
{
	if (!recipe || !count)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_recipe_persistent_count: NULL");
	*count = recipe->n_persistent;
	return HLRT_SUCCESS;
}

hlrt_status hlrt_recipe_persistent_info(const hlrt_recipe *recipe, uint32_t i,
					struct hlrt_persistent_info *info)
{
	const struct rtensor *t;

	if (!recipe || !info || i >= recipe->n_persistent)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_recipe_persistent_info: bad index");
	t = &recipe->tensors[i];
	memset(info, 0, sizeof(*info));
	memcpy(info->name, t->name, sizeof(info->name));
	info->dtype = (hlrt_dtype)t->dtype;
	info->role = (hlrt_tensor_role)t->role;
	info->ndims = t->ndims;
	memcpy(info->dims, t->dims, sizeof(info->dims));
	info->bytes = t->bytes;
	return HLRT_SUCCESS;
}

/* ---- serialisation ---------------------------------------------------------- */

struct file_header {
	char magic[8];
	uint32_t version;
	uint32_t sizes[4];	/* struct sizes: a file from another build is refused */
	uint32_t n_tensors, n_persistent, n_works, n_nodes, n_kernels, num_tpc, serial_launch;
	uint64_t hash, workspace_size, const_size;
	struct hlrt_recipe_stats stats;
};

struct wbuf {
	uint8_t *p;
	size_t n, cap;
	bool oom;
};

static void put(struct wbuf *b, const void *d, size_t n)
{
	if (b->oom)
		return;
	if (b->n + n > b->cap) {
		size_t cap = (b->cap + n) * 2;
		uint8_t *p = realloc(b->p, cap);

		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
}

static void struct_sizes(uint32_t *s)
{
	s[0] = sizeof(struct rtensor);
	s[1] = sizeof(struct rwork);
	s[2] = sizeof(struct rnode_info);
	s[3] = sizeof(struct hlrt_recipe_stats);
}

hlrt_status hlrt_recipe_serialize(const hlrt_recipe *r, void **buf, size_t *size)
{
	struct file_header h;
	struct wbuf b = { 0 };
	uint32_t i;

	if (!r || !buf || !size)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_recipe_serialize: NULL argument");
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, RECIPE_MAGIC, sizeof(RECIPE_MAGIC));
	h.version = RECIPE_VERSION;
	struct_sizes(h.sizes);
	h.n_tensors = r->n_tensors;
	h.n_persistent = r->n_persistent;
	h.n_works = r->n_works;
	h.n_nodes = r->n_nodes;
	h.n_kernels = r->n_kernels;
	h.num_tpc = r->num_tpc;
	h.serial_launch = r->serial_launch;
	h.hash = r->hash;
	h.workspace_size = r->workspace_size;
	h.const_size = r->const_size;
	h.stats = r->stats;
	put(&b, &h, sizeof(h));
	put(&b, r->tensors, sizeof(*r->tensors) * r->n_tensors);
	put(&b, r->works, sizeof(*r->works) * r->n_works);
	put(&b, r->nodes, sizeof(*r->nodes) * r->n_nodes);
	for (i = 0; i < r->n_kernels; i++) {
		put(&b, r->kernels[i].name, sizeof(r->kernels[i].name));
		put(&b, &r->kernels[i].size, sizeof(r->kernels[i].size));
		put(&b, r->kernels[i].code, r->kernels[i].size);
	}
	if (r->const_size)
		put(&b, r->consts, r->const_size);
	if (b.oom) {
		free(b.p);
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "serialising a recipe");
	}
	*buf = b.p;
	*size = b.n;
	return HLRT_SUCCESS;
}

struct rbuf {
	const uint8_t *p;
	size_t n, off;
};

static bool take(struct rbuf *b, void *d, size_t n)
{
	if (n > b->n - b->off)
		return false;
	memcpy(d, b->p + b->off, n);
	b->off += n;
	return true;
}

static bool addr_ok(const struct hlrt_recipe *r, struct raddr a, uint64_t size)
{
	const struct rtensor *t;

	if (a.tensor & RADDR_CODE)
		return (a.tensor & ~RADDR_CODE) < r->n_kernels;
	if (a.tensor >= r->n_tensors)
		return false;
	t = &r->tensors[a.tensor];
	return a.offset <= t->bytes && size <= t->bytes - a.offset;
}

/* Every index and range of a recipe read from a file is checked before use. */
static hlrt_status validate(const struct hlrt_recipe *r)
{
	uint32_t i, j;

	for (i = 0; i < r->n_tensors; i++) {
		const struct rtensor *t = &r->tensors[i];

		if (t->kind > RT_CONST || (t->kind == RT_PERSISTENT) != (i < r->n_persistent) ||
		    t->ndims > HLRT_MAX_DIMS || !hlrt_dtype_size((hlrt_dtype)t->dtype) ||
		    (t->kind == RT_CONST && (t->offset > r->const_size ||
					     t->bytes > r->const_size - t->offset)) ||
		    (t->kind == RT_WORKSPACE && (t->offset > r->workspace_size ||
						 t->bytes > r->workspace_size - t->offset)) ||
		    memchr(t->name, 0, sizeof(t->name)) == NULL)
			return hlrt_fail(HLRT_BAD_FORMAT, "recipe tensor %u is malformed", i);
	}
	for (i = 0; i < r->n_works; i++) {
		const struct rwork *w = &r->works[i];
		bool ok = w->node < r->n_nodes && w->n_deps <= 32 && w->n_tensors <= 8 &&
			  w->n_args <= 16 && w->engine >= ENG_MME && w->engine <= ENG_CPU;

		for (j = 0; ok && j < w->n_deps; j++)
			ok = w->deps[j] < i;
		if (ok && w->engine == ENG_TPC) {
			ok = w->kernel < r->n_kernels;
			for (j = 0; ok && j < w->n_tensors; j++)
				ok = addr_ok(r, w->t[j].base, 0);
			for (j = 0; ok && j < 5; j++)
				ok = w->ispace[j] >= 1;
		}
		if (ok && w->engine == ENG_MME)
			ok = addr_ok(r, w->a, 0) && addr_ok(r, w->b, 0) && addr_ok(r, w->d, 0);
		if (ok && w->engine == ENG_DMA)
			ok = addr_ok(r, w->dst, w->size) && (w->memset || addr_ok(r, w->src, w->size));
		if (ok && w->engine == ENG_CPU) {
			ok = w->n_cin <= 4 && w->n_cout <= 2 && w->params_size <= HLRT_MAX_PARAMS &&
			     memchr(w->guid, 0, sizeof(w->guid)) && hlrt_op_find(w->guid) &&
			     hlrt_op_find(w->guid)->cpu;
			for (j = 0; ok && j < w->n_cin; j++)
				ok = addr_ok(r, w->cin[j], w->cin_bytes[j]);
			for (j = 0; ok && j < w->n_cout; j++)
				ok = addr_ok(r, w->cout[j], w->cout_bytes[j]);
		}
		if (!ok)
			return hlrt_fail(HLRT_BAD_FORMAT, "recipe work %u is malformed", i);
	}
	for (i = 0; i < r->n_kernels; i++)
		if (!r->kernels[i].size || r->kernels[i].size % 32 ||
		    !memchr(r->kernels[i].name, 0, sizeof(r->kernels[i].name)))
			return hlrt_fail(HLRT_BAD_FORMAT, "recipe kernel %u is malformed", i);
	return HLRT_SUCCESS;
}

hlrt_status hlrt_recipe_deserialize(const void *buf, size_t size, hlrt_recipe **recipe)
{
	struct rbuf b = { .p = buf, .n = size };
	struct file_header h;
	uint32_t sizes[4], i;
	struct hlrt_recipe *r;
	hlrt_status st;

	if (!buf || !recipe)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_recipe_deserialize: NULL argument");
	struct_sizes(sizes);
	if (!take(&b, &h, sizeof(h)) || memcmp(h.magic, RECIPE_MAGIC, sizeof(RECIPE_MAGIC)))
		return hlrt_fail(HLRT_BAD_FORMAT, "not a recipe");
	if (h.version != RECIPE_VERSION || memcmp(h.sizes, sizes, sizeof(sizes)))
		return hlrt_fail(HLRT_BAD_FORMAT, "recipe from another runtime version");
	if (h.n_tensors > (1u << 20) || h.n_works > (1u << 20) || h.n_nodes > (1u << 20) ||
	    h.n_kernels > 1024 || h.n_persistent > h.n_tensors || h.const_size > size ||
	    !h.num_tpc || h.num_tpc > 8 || h.serial_launch > 1)
		return hlrt_fail(HLRT_BAD_FORMAT, "recipe header out of range");
	st = hlrt_recipe_alloc(&r);
	if (st)
		return st;
	r->hash = h.hash;
	r->n_tensors = h.n_tensors;
	r->n_persistent = h.n_persistent;
	r->n_works = h.n_works;
	r->n_nodes = h.n_nodes;
	r->num_tpc = h.num_tpc;
	r->serial_launch = h.serial_launch;
	r->workspace_size = h.workspace_size;
	r->const_size = h.const_size;
	r->stats = h.stats;
	r->tensors = calloc(h.n_tensors + 1, sizeof(*r->tensors));
	r->works = calloc(h.n_works + 1, sizeof(*r->works));
	r->nodes = calloc(h.n_nodes + 1, sizeof(*r->nodes));
	r->kernels = calloc(h.n_kernels + 1, sizeof(*r->kernels));
	r->consts = malloc(h.const_size + 1);
	st = HLRT_OUT_OF_HOST_MEMORY;
	if (!r->tensors || !r->works || !r->nodes || !r->kernels || !r->consts)
		goto fail;
	st = HLRT_BAD_FORMAT;
	if (!take(&b, r->tensors, sizeof(*r->tensors) * h.n_tensors) ||
	    !take(&b, r->works, sizeof(*r->works) * h.n_works) ||
	    !take(&b, r->nodes, sizeof(*r->nodes) * h.n_nodes))
		goto fail;
	for (i = 0; i < h.n_kernels; i++) {
		struct rkernel *k = &r->kernels[i];

		if (!take(&b, k->name, sizeof(k->name)) || !take(&b, &k->size, sizeof(k->size)) ||
		    k->size > (1u << 21) || k->size % 32 || !k->size)
			goto fail;
		k->code = malloc(k->size);
		if (!k->code) {
			st = HLRT_OUT_OF_HOST_MEMORY;
			goto fail;
		}
		r->n_kernels = i + 1;
		if (!take(&b, k->code, k->size))
			goto fail;
	}
	if (!take(&b, r->consts, h.const_size) || b.off != b.n)
		goto fail;
	st = validate(r);
	if (st) {
		hlrt_recipe_free(r);
		return st;
	}
	*recipe = r;
	return HLRT_SUCCESS;
fail:
	hlrt_recipe_free(r);
	return st == HLRT_BAD_FORMAT ? hlrt_fail(st, "recipe truncated or malformed") :
				       hlrt_fail(st, "loading a recipe");
}

hlrt_status hlrt_recipe_save(const hlrt_recipe *recipe, const char *path)
{
	char tmp[4096];
	size_t size;
	void *buf;
	FILE *f;
	hlrt_status st;

	if (!path || strlen(path) + 8 > sizeof(tmp))
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_recipe_save: bad path");
	st = hlrt_recipe_serialize(recipe, &buf, &size);
	if (st)
		return st;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "wb");
	if (!f) {
		free(buf);
		return hlrt_fail(HLRT_IO_ERROR, "cannot write %s", tmp);
	}
	if (fwrite(buf, 1, size, f) != size || fclose(f) != 0 || rename(tmp, path) != 0) {
		remove(tmp);
		free(buf);
		return hlrt_fail(HLRT_IO_ERROR, "writing %s failed", path);
	}
	free(buf);
	return HLRT_SUCCESS;
}

hlrt_status hlrt_recipe_load(const char *path, hlrt_recipe **recipe)
{
	hlrt_status st;
	long size;
	void *buf;
	FILE *f;

	if (!path || !recipe)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_recipe_load: NULL argument");
	f = fopen(path, "rb");
	if (!f)
		return hlrt_fail(HLRT_NOT_FOUND, "cannot open %s", path);
	if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return hlrt_fail(HLRT_IO_ERROR, "cannot read %s", path);
	}
	buf = malloc((size_t)size + 1);
	if (!buf) {
		fclose(f);
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "%s", path);
	}
	if (fread(buf, 1, (size_t)size, f) != (size_t)size) {
		fclose(f);
		free(buf);
		return hlrt_fail(HLRT_IO_ERROR, "cannot read %s", path);
	}
	fclose(f);
	st = hlrt_recipe_deserialize(buf, (size_t)size, recipe);
	free(buf);
	return st;
}
