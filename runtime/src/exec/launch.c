// SPDX-License-Identifier: MIT
/*
 * Launch: load a recipe onto a device once (schedule its command buffers,
 * lay out code, constants and CBs in one HBM image), then for each launch
 * resolve the bindings, patch and re-upload the image only when an
 * address changed, and submit each segment as one command submission
 * (serial-launch recipes: one per node, each waited for before the next).
 * The per-launch host work is proportional to the number of bindings.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "prof/profiler.h"
#include "device/hlrt_cb.h"


void hlrt_loaded_free(struct loaded_recipe *lr)
{
	struct loaded_recipe **pp;
	uint32_t i;

	if (!lr)
		return;
	for (pp = &lr->dev->loaded; *pp; pp = &(*pp)->next) {
		if (*pp == lr) {
			*pp = lr->next;
			break;
		}
	}
	if (lr->recipe)
		lr->recipe->loaded = NULL;
	for (i = 0; i < HLRT_MAX_STREAMS; i++) {
		hlrt_stream *s = lr->dev->streams[i];
		uint32_t j, k = 0;

		for (j = 0; s && j < s->n_harvest; j++)
			if (s->harvest[j] != lr)
				s->harvest[k++] = s->harvest[j];
		if (s)
			s->n_harvest = k;
	}
	for (i = 0; i < lr->n_cbs; i++)
		free(lr->cbs[i].dw);
	for (i = 0; i < lr->n_segs; i++) {
		uint32_t j;

		for (j = 0; j < 2; j++)
			if (lr->segs[i].sob_taken[j])
				hlrt_device_put_sobs(lr->dev, lr->segs[i].sob_first[j],
						     lr->segs[i].n_sobs);
		for (j = 0; j < HLRT_MAX_STREAMS; j++) {
			free(lr->segs[i].ext_body[0][j]);
			free(lr->segs[i].ext_body[1][j]);
		}
	}
	if (lr->image_addr)
		hlrt_device_free(lr->dev, lr->image_addr);
	if (lr->image)
		hlrt_host_free(lr->dev, lr->image);
	if (lr->ts_addr)
		hlrt_device_free(lr->dev, lr->ts_addr);
	if (lr->ts_host)
		hlrt_host_free(lr->dev, lr->ts_host);
	free(lr->kernel_off);
	free(lr->cbs);
	free(lr->segs);
	free(lr->patches);
	free(lr->bound);
	free(lr->bound_next);
	free(lr->bind_memo);
	hlrt_repeat_free(lr);
	free(lr);
}

void hlrt_recipes_unload(hlrt_device *dev)
{
	while (dev->loaded)
		hlrt_loaded_free(dev->loaded);
}

uint64_t hlrt_resolve(const struct hlrt_recipe *r, const struct loaded_recipe *lr,
		      const uint64_t *bound, uint64_t ws, struct raddr a)
{
	const struct rtensor *t;

	if (a.tensor & RADDR_CODE)
		return lr->image_addr + lr->code_offset + lr->kernel_off[a.tensor & ~RADDR_CODE] +
		       a.offset;
	if (a.tensor == RADDR_PROF)
		return lr->ts_addr + a.offset;
	t = &r->tensors[a.tensor];
	switch (t->kind) {
	case RT_PERSISTENT:
		return bound[a.tensor] + a.offset;
	case RT_WORKSPACE:
		return ws + t->offset + a.offset;
	default:
		return lr->image_addr + lr->const_offset + t->offset + a.offset;
	}
}

/* Sync objects handed back by an aborted launch may not be 0: clear them. */
static hlrt_status reset_sobs(hlrt_device *dev, const struct loaded_recipe *lr)
{
	struct hlrt_be_ext ext = { 0 };
	struct hlrt_pkt_buf b;
	uint32_t s, p, i;
	hlrt_status st;

	if (hlrt_pkt_init(&b, 256))
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "loading a recipe");
	for (s = 0; s < lr->n_segs; s++)
		for (p = 0; p < 2; p++)
			for (i = 0; lr->segs[s].sob_taken[p] && i < lr->segs[s].n_sobs; i++)
				hlrt_pkt_sob(&b, lr->segs[s].sob_first[p] + i,
					     GAUDISIM_SYNC_SOB_SET(0), 0);
	if (!b.n) {
		hlrt_pkt_free(&b);
		return HLRT_SUCCESS;
	}
	ext.body = b.dw;
	ext.n_body = b.n;
	st = b.oom ? hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "loading a recipe") :
		     hlrt_stream_submit(dev->sync_stream, NULL, 0, &ext);
	hlrt_pkt_free(&b);
	return st ? st : hlrt_stream_synchronize(dev->sync_stream);
}

hlrt_status hlrt_recipe_load_on(hlrt_device *dev, struct hlrt_recipe *r,
				struct loaded_recipe **out)
{
	struct loaded_recipe *lr = calloc(1, sizeof(*lr));
	uint64_t off = 0;
	hlrt_status st;
	uint32_t i;

	if (!lr)
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "loading a recipe");
	lr->dev = dev;
	lr->recipe = r;
	dev->unload_recipes = hlrt_recipes_unload;
	lr->next = dev->loaded;
	dev->loaded = lr;
	lr->bound = calloc(r->n_persistent + 1, sizeof(uint64_t));
	lr->bound_next = calloc(r->n_persistent + 1, sizeof(uint64_t));
	lr->kernel_off = calloc(r->n_kernels + 1, sizeof(uint64_t));
	if (!lr->bound || !lr->bound_next || !lr->kernel_off) {
		st = hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "loading a recipe");
		goto fail;
	}
	lr->profiled = dev->prof != NULL;
	if (lr->profiled) {
		lr->ts_size = hlrt_ts_seg(r->n_works, r->n_works + 1);
		st = hlrt_device_malloc(dev, lr->ts_size, &lr->ts_addr);
		if (!st)
			st = hlrt_host_malloc(dev, lr->ts_size, (void **)&lr->ts_host);
		if (st)
			goto fail;
	}
	st = hlrt_emit(dev, r, lr);
	if (!st)
		st = reset_sobs(dev, lr);
	if (st)
		goto fail;
	/* image: kernels, constants, CBs */
	lr->code_offset = 0;
	for (i = 0; i < r->n_kernels; i++) {
		lr->kernel_off[i] = off;
		off += hlrt_align_up(r->kernels[i].size, HLRT_ALIGN);
	}
	lr->const_offset = off;
	off += hlrt_align_up(r->const_size, HLRT_ALIGN);
	for (i = 0; i < lr->n_cbs; i++) {
		if (!lr->cbs[i].n)
			continue;
		lr->cbs[i].dev_offset = off;
		off += hlrt_align_up((uint64_t)lr->cbs[i].n * 4, HLRT_ALIGN);
		lr->cb_bytes += lr->cbs[i].n * 4;
	}
	/* a recipe of CPU works only has an empty image: keep one unit */
	lr->image_size = off ? off : HLRT_ALIGN;
	st = hlrt_device_malloc(dev, lr->image_size, &lr->image_addr);
	if (!st)
		st = hlrt_host_malloc(dev, lr->image_size, (void **)&lr->image);
	if (st)
		goto fail;
	for (i = 0; i < r->n_kernels; i++)
		memcpy(lr->image + lr->kernel_off[i], r->kernels[i].code, r->kernels[i].size);
	if (r->const_size)
		memcpy(lr->image + lr->const_offset, r->consts, r->const_size);
	for (i = 0; i < lr->n_cbs; i++)
		if (lr->cbs[i].n)
			memcpy(lr->image + lr->cbs[i].dev_offset, lr->cbs[i].dw, lr->cbs[i].n * 4);
	*out = lr;
	return HLRT_SUCCESS;
fail:
	hlrt_loaded_free(lr);
	return st;
}

/* Write every patch point of the image for these addresses. */
static void apply_patches(const struct hlrt_recipe *r, struct loaded_recipe *lr,
			  const uint64_t *bound, uint64_t ws)
{
	uint32_t i;

	for (i = 0; i < lr->n_patches; i++) {
		const struct patch_point *p = &lr->patches[i];
		struct raddr a = { .tensor = p->rt, .offset = p->addend };
		uint64_t v = hlrt_resolve(r, lr, bound, ws, a);
		uint32_t dw = p->hi ? (uint32_t)(v >> 32) : (uint32_t)v;

		memcpy(lr->image + lr->cbs[p->cb].dev_offset + 4ull * p->dword, &dw, 4);
	}
}

/* The persistent tensor a binding names, ~0u when the recipe has none of that name. */
uint32_t hlrt_launch_find_tensor(const struct hlrt_recipe *r, const char *name)
{
	uint32_t i;

	for (i = 0; i < r->n_persistent; i++)
		if (!strcmp(r->tensors[i].name, name))
			return i;
	return ~0u;
}

/*
 * The tensor binding j names: the last launch's answer when its binding j
 * had the same name (remembered for the next launch otherwise). A name
 * too long to remember is looked up every time.
 */
static uint32_t bind_lookup(struct loaded_recipe *lr, uint32_t j, const char *name)
{
	struct bind_memo *m;

	if (j < lr->n_bind_memo && !strcmp(lr->bind_memo[j].name, name))
		return lr->bind_memo[j].tensor;
	if (strnlen(name, HLRT_NAME_MAX) == HLRT_NAME_MAX)
		return hlrt_launch_find_tensor(lr->recipe, name);
	if (j >= lr->cap_bind_memo) {
		uint32_t cap = j < 16 ? 16 : 2 * j;

		m = realloc(lr->bind_memo, sizeof(*m) * cap);
		if (!m)
			return hlrt_launch_find_tensor(lr->recipe, name);
		lr->bind_memo = m;
		lr->cap_bind_memo = cap;
	}
	/* a gap (an earlier name not remembered) ends what the next launch reuses */
	if (j > lr->n_bind_memo)
		return hlrt_launch_find_tensor(lr->recipe, name);
	m = &lr->bind_memo[j];
	strcpy(m->name, name);
	m->tensor = hlrt_launch_find_tensor(lr->recipe, name);
	lr->n_bind_memo = j + 1;
	return m->tensor;
}

/* Bindings by name -> addresses per persistent tensor. */
hlrt_status hlrt_launch_bind(struct loaded_recipe *lr, const struct hlrt_tensor_binding *b,
			     uint32_t n, uint64_t *bound)
{
	const struct hlrt_recipe *r = lr->recipe;
	uint32_t i, j;

	for (i = 0; i < r->n_persistent; i++)
		bound[i] = 0;
	for (j = 0; j < n; j++) {
		if (!b[j].name)
			return hlrt_fail(HLRT_INVALID_ARGUMENT, "binding %u has no name", j);
		i = bind_lookup(lr, j, b[j].name);
		if (i == ~0u)
			continue;	/* a tensor this recipe does not touch */
		if (!b[j].device_addr || b[j].device_addr % 4)
			return hlrt_fail(HLRT_INVALID_ARGUMENT, "binding \"%s\": bad address 0x%llx",
					 b[j].name, (unsigned long long)b[j].device_addr);
		bound[i] = b[j].device_addr;
	}
	for (i = 0; i < r->n_persistent; i++)
		if (!bound[i])
			return hlrt_fail(HLRT_INVALID_ARGUMENT,
					 "persistent tensor \"%s\" is not bound", r->tensors[i].name);
	return HLRT_SUCCESS;
}

hlrt_status hlrt_launch_copies(hlrt_device *dev, const struct hlrt_host_copy *c, uint32_t n,
			       struct hlrt_be_copy *out)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (!c[i].host || !c[i].size ||
		    hlrt_host_va(dev, c[i].host, c[i].size, &out[i].va))
			return hlrt_fail(HLRT_INVALID_ARGUMENT,
					 "launch copy %u: host memory must come from hlrt_host_malloc",
					 i);
		out[i].host = c[i].host;
		out[i].dev = c[i].device_addr;
		out[i].size = c[i].size;
	}
	return HLRT_SUCCESS;
}

static hlrt_status run_cpu(hlrt_stream *s, const struct hlrt_recipe *r,
			   const struct loaded_recipe *lr, const uint64_t *bound, uint64_t ws,
			   const struct rwork *w)
{
	void *in[4] = { 0 }, *out[2] = { 0 };
	hlrt_status st = hlrt_stream_synchronize(s);
	uint32_t i;

	for (i = 0; i < w->n_cin && !st; i++) {
		in[i] = malloc(w->cin_bytes[i]);
		if (!in[i])
			st = hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "CPU op");
		else
			st = hlrt_memcpy_d2h(s->dev, in[i], hlrt_resolve(r, lr, bound, ws, w->cin[i]),
					     w->cin_bytes[i]);
	}
	for (i = 0; i < w->n_cout && !st; i++) {
		out[i] = calloc(1, w->cout_bytes[i]);
		if (!out[i])
			st = hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "CPU op");
	}
	if (!st) {
		uint64_t t0 = hlrt_now_ns();

		st = hlrt_cpu_run(r, w, in, out);
		hlrt_profiler_cpu_event(s->dev, r->nodes[w->node].name, t0, hlrt_now_ns());
	}
	for (i = 0; i < w->n_cout && !st; i++)
		st = hlrt_memcpy_h2d(s->dev, hlrt_resolve(r, lr, bound, ws, w->cout[i]), out[i],
				     w->cout_bytes[i]);
	for (i = 0; i < 4; i++)
		free(in[i]);
	for (i = 0; i < 2; i++)
		free(out[i]);
	return st;
}

/* The timestamps of a profiled launch ride back with its last copies. */
#define HLRT_PROFILE_COPY(copies, n, lr) \
	do { \
		(copies)[(n)].host = (lr)->ts_host; \
		hlrt_host_va((lr)->dev, (lr)->ts_host, (lr)->ts_size, &(copies)[(n)].va); \
		(copies)[(n)].dev = (lr)->ts_addr; \
		(copies)[(n)].size = (lr)->ts_size; \
		(n)++; \
	} while (0)

/* The recipe loaded on the stream's device, the way the profiler wants it. */
hlrt_status hlrt_launch_loaded(hlrt_device *dev, struct hlrt_recipe *r,
			       struct loaded_recipe **out)
{
	struct loaded_recipe *lr = r->loaded;
	hlrt_status st;

	/* profiling adds packets: a recipe loaded the other way is reloaded */
	if (lr && (lr->dev != dev || lr->profiled != (dev->prof != NULL))) {
		if (lr->last_stream)
			hlrt_stream_synchronize(lr->last_stream);
		hlrt_loaded_free(lr);
		lr = NULL;
	}
	if (!lr) {
		st = hlrt_recipe_load_on(dev, r, &lr);
		if (st)
			return st;
		r->loaded = lr;
		r->unload = hlrt_loaded_free;
	}
	*out = lr;
	return HLRT_SUCCESS;
}

/* Patch the bound addresses into the image and upload it, if any changed. */
hlrt_status hlrt_launch_upload(const struct hlrt_recipe *r, struct loaded_recipe *lr,
			       const uint64_t *bound, uint64_t workspace)
{
	hlrt_status st = HLRT_SUCCESS;

	if (lr->uploaded && lr->bound_ws == workspace &&
	    !memcmp(bound, lr->bound, sizeof(uint64_t) * r->n_persistent))
		return HLRT_SUCCESS;
	/* the image may still be running: wait before rewriting it */
	if (lr->last_stream)
		st = hlrt_stream_synchronize(lr->last_stream);
	if (!st) {
		apply_patches(r, lr, bound, workspace);
		st = hlrt_memcpy_h2d(lr->dev, lr->image_addr, lr->image, lr->image_size);
	}
	if (st) {
		lr->uploaded = false;
		return st;
	}
	memcpy(lr->bound, bound, sizeof(uint64_t) * r->n_persistent);
	lr->bound_ws = workspace;
	lr->uploaded = true;
	return HLRT_SUCCESS;
}

/* What the segment loop needs to place the host copies. */
struct seg_span {
	bool cpu;			/* the recipe has CPU segments */
	uint32_t first_dev, last_dev;	/* first and last device segments, ~0u none */
};

static struct seg_span seg_span(const struct loaded_recipe *lr)
{
	struct seg_span sp = { .first_dev = ~0u, .last_dev = ~0u };
	uint32_t s;

	for (s = 0; s < lr->n_segs; s++) {
		if (lr->segs[s].cpu) {
			sp.cpu = true;
			continue;
		}
		if (sp.first_dev == ~0u)
			sp.first_dev = s;
		sp.last_dev = s;
	}
	return sp;
}

/* Submit device segment s with SOB set p; the host copies given ride with it. */
static hlrt_status submit_segment(hlrt_stream *stream, struct hlrt_recipe *r,
				  struct loaded_recipe *lr, uint32_t s, uint32_t p,
				  const struct hlrt_be_copy *pre, uint32_t n_pre,
				  const struct hlrt_be_copy *post, uint32_t n_post)
{
	struct hlrt_be_job jobs[GAUDISIM_NUM_TPC + 2];
	const struct seg_image *sg = &lr->segs[s];
	struct hlrt_be_ext ext = { 0 };
	uint32_t i, nj = 0;
	hlrt_status st;

	for (i = sg->cb_first[p]; i < sg->cb_first[p] + GAUDISIM_NUM_TPC + 2; i++) {
		if (!lr->cbs[i].n)
			continue;
		jobs[nj].queue = lr->cbs[i].queue;
		jobs[nj].size = lr->cbs[i].n * 4;
		jobs[nj].cb_addr = lr->image_addr + lr->cbs[i].dev_offset;
		nj++;
	}
	if (lr->profiled) {
		uint64_t ts = lr->ts_addr + hlrt_ts_seg(r->n_works, s);

		/* (the copy back of the timestamps is itself a post copy) */
		ext.ts_first_dev = ts;
	}
	if (!sg->ext_body[p][stream->index]) {
		st = hlrt_emit_ext(lr->dev, lr, &lr->segs[s], p, stream->index,
				   stream->ext_queue);
		if (st)
			return st;
	}
	ext.body = sg->ext_body[p][stream->index];
	ext.n_body = sg->ext_n[p][stream->index];
	ext.pre = pre;
	ext.n_pre = n_pre;
	ext.post = post;
	ext.n_post = n_post;
	st = hlrt_stream_submit(stream, jobs, nj, &ext);
	/* serial launch: each node finishes before the next one is submitted */
	if (!st && r->serial_launch)
		st = hlrt_stream_synchronize(stream);
	return st;
}

/*
 * Run the segments in order: device segments as submissions, CPU segments
 * on the host. The pre copies go with the first device segment (before
 * everything, on their own, when CPU nodes may read them); the post copies
 * with the last segment, or on their own after a final CPU segment.
 */
static hlrt_status run_segments(hlrt_stream *stream, struct hlrt_recipe *r,
				struct loaded_recipe *lr, uint32_t p, const uint64_t *bound,
				uint64_t workspace, const struct hlrt_be_copy *bpre, uint32_t n_pre,
				const struct hlrt_be_copy *bpost, uint32_t n_post)
{
	struct seg_span sp = seg_span(lr);
	hlrt_status st = HLRT_SUCCESS;
	uint32_t s;

	if (sp.cpu && n_pre) {
		struct hlrt_be_ext ext = { .pre = bpre, .n_pre = n_pre };

		st = hlrt_stream_submit(stream, NULL, 0, &ext);
	}
	for (s = 0; s < lr->n_segs && !st; s++) {
		bool with_pre = !sp.cpu && s == sp.first_dev;
		bool with_post = s == sp.last_dev && (!sp.cpu || s == lr->n_segs - 1);

		if (lr->segs[s].cpu) {
			st = run_cpu(stream, r, lr, bound, workspace,
				     &r->works[lr->segs[s].first_work]);
			continue;
		}
		st = submit_segment(stream, r, lr, s, p, with_pre ? bpre : NULL,
				    with_pre ? n_pre : 0, with_post ? bpost : NULL,
				    with_post ? n_post : 0);
		if (with_post)
			n_post = 0;
	}
	if (!st && n_post) {
		struct hlrt_be_ext ext = { .post = bpost, .n_post = n_post };

		st = hlrt_stream_synchronize(stream);
		if (!st)
			st = hlrt_stream_submit(stream, NULL, 0, &ext);
	}
	return st;
}

hlrt_status hlrt_launch_ex(hlrt_stream *stream, const hlrt_recipe *recipe,
			   const struct hlrt_tensor_binding *bindings, uint32_t n_bindings,
			   uint64_t workspace,
			   const struct hlrt_host_copy *pre, uint32_t n_pre,
			   const struct hlrt_host_copy *post, uint32_t n_post)
{
	struct hlrt_recipe *r = (struct hlrt_recipe *)recipe;
	struct hlrt_be_copy bpre[16], bpost[17];
	uint64_t t0 = hlrt_now_ns();
	struct loaded_recipe *lr;
	hlrt_device *dev;
	uint64_t *bound;
	uint32_t p;
	hlrt_status st;

	if (!stream || !r || (n_bindings && !bindings))
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_launch: NULL argument");
	if (n_pre > 16 || n_post > 16 || (n_pre && !pre) || (n_post && !post))
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_launch: at most 16 copies each way");
	if (r->workspace_size && !workspace)
		return hlrt_fail(HLRT_INVALID_ARGUMENT,
				 "the recipe needs %llu bytes of workspace",
				 (unsigned long long)r->workspace_size);
	dev = stream->dev;
	st = hlrt_launch_copies(dev, pre, n_pre, bpre);
	if (!st)
		st = hlrt_launch_copies(dev, post, n_post, bpost);
	if (!st)
		st = hlrt_launch_loaded(dev, r, &lr);
	if (st)
		return st;
	bound = lr->bound_next;
	st = hlrt_launch_bind(lr, bindings, n_bindings, bound);
	if (!st)
		st = hlrt_launch_upload(r, lr, bound, workspace);
	if (st)
		return st;
	p = lr->parity;
	lr->parity ^= 1;
	lr->last_stream = stream;
	if (lr->profiled) {
		/* one profiled launch in flight per recipe: its timestamps come back */
		st = hlrt_stream_synchronize(stream);
		if (st)
			return st;
		memset(lr->ts_host, 0, lr->ts_size);
		HLRT_PROFILE_COPY(bpost, n_post, lr);
	}
	st = run_segments(stream, r, lr, p, bound, workspace, bpre, n_pre, bpost, n_post);
	if (!st && lr->profiled && stream->n_harvest < 8)
		stream->harvest[stream->n_harvest++] = lr;
	hlrt_profiler_host_event(dev, "hlrt_launch", t0, hlrt_now_ns());
	return st;
}

/* The recipe's compile-time stats, plus its loaded form's when it has one. */
hlrt_status hlrt_recipe_get_stats(const hlrt_recipe *recipe, struct hlrt_recipe_stats *stats)
{
	if (!recipe || !stats)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_recipe_get_stats: NULL");
	*stats = recipe->stats;
	stats->hash = recipe->hash;
	if (recipe->loaded) {
		stats->patch_points = recipe->loaded->n_patches;
		stats->cb_bytes = recipe->loaded->cb_bytes;
	}
	return HLRT_SUCCESS;
}

hlrt_status hlrt_launch(hlrt_stream *stream, const hlrt_recipe *recipe,
			const struct hlrt_tensor_binding *bindings, uint32_t n_bindings,
			uint64_t workspace)
{
	return hlrt_launch_ex(stream, recipe, bindings, n_bindings, workspace, NULL, 0, NULL, 0);
}
