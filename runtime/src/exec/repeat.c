// SPDX-License-Identifier: MIT
/*
 * hlrt_launch_repeat: K launches of one recipe in one command submission.
 * Each queue gets one job holding the K iterations' command buffers back
 * to back, iteration i on SOB set (first + i) % 2 and patched for its own
 * addresses; the external job repeats the segment's start, wait and
 * reset K times. That is what K launches queued one after another put on
 * the queues, so the results are the same; only the submissions and the
 * waits for them are saved. The patched buffers are kept per first SOB
 * set and reused while the addresses stay the same.
 */
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "prof/profiler.h"
#include "gaudisim_accel.h"

void hlrt_repeat_free(struct loaded_recipe *lr)
{
	uint32_t p;

	for (p = 0; p < 2; p++) {
		struct rep_image *ri = &lr->rep[p];

		if (ri->addr)
			hlrt_device_free(lr->dev, ri->addr);
		if (ri->host)
			hlrt_host_free(lr->dev, ri->host);
		free(ri->bound);
		free(ri->end);
		memset(ri, 0, sizeof(*ri));
	}
	free(lr->rep_ext);
	lr->rep_ext = NULL;
	lr->cap_rep_ext = 0;
}

/* Iteration i's bindings: those named in iters advanced by i strides. */
static void iter_bindings(const struct hlrt_tensor_binding *b, uint32_t n,
			  const struct hlrt_launch_iter *it, uint32_t n_it, uint32_t i,
			  struct hlrt_tensor_binding *out)
{
	uint32_t j, m;

	for (j = 0; j < n; j++) {
		out[j] = b[j];
		for (m = 0; m < n_it; m++)
			if (b[j].name && !strcmp(b[j].name, it[m].name))
				out[j].device_addr += i * it[m].stride;
	}
}

static hlrt_status check_args(hlrt_stream *stream, const hlrt_recipe *r,
			      const struct hlrt_tensor_binding *b, uint32_t n, uint32_t count,
			      const struct hlrt_launch_iter *it, uint32_t n_it)
{
	uint32_t m, j;

	if (!stream || !r || (n && !b) || (n_it && !it))
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_launch_repeat: NULL argument");
	if (count < 1 || count > HLRT_LAUNCH_REPEAT_MAX)
		return hlrt_fail(HLRT_INVALID_ARGUMENT,
				 "hlrt_launch_repeat: count %u (1..%d iterations)", count,
				 HLRT_LAUNCH_REPEAT_MAX);
	for (m = 0; m < n_it; m++) {
		if (!it[m].name)
			return hlrt_fail(HLRT_INVALID_ARGUMENT,
					 "hlrt_launch_repeat: iteration binding %u has no name", m);
		if (it[m].stride % 4)
			return hlrt_fail(HLRT_INVALID_ARGUMENT,
					 "hlrt_launch_repeat: \"%s\": stride %llu is not a multiple of 4",
					 it[m].name, (unsigned long long)it[m].stride);
		for (j = 0; j < n && (!b[j].name || strcmp(b[j].name, it[m].name)); j++)
			;
		if (j == n)
			return hlrt_fail(HLRT_INVALID_ARGUMENT,
					 "hlrt_launch_repeat: \"%s\" advances but is not bound",
					 it[m].name);
	}
	return HLRT_SUCCESS;
}

/* The iterations as launches of their own: the same work, K submissions. */
static hlrt_status repeat_as_launches(hlrt_stream *stream, const hlrt_recipe *r,
				      const struct hlrt_tensor_binding *b, uint32_t n,
				      uint64_t ws, uint32_t count,
				      const struct hlrt_launch_iter *it, uint32_t n_it,
				      const struct hlrt_host_copy *pre, uint32_t n_pre,
				      const struct hlrt_host_copy *post, uint32_t n_post)
{
	struct hlrt_tensor_binding *bi = malloc(sizeof(*bi) * (n + 1));
	hlrt_status st = HLRT_SUCCESS;
	uint32_t i;

	if (!bi)
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "hlrt_launch_repeat");
	for (i = 0; i < count && !st; i++) {
		bool first = i == 0, last = i == count - 1;

		iter_bindings(b, n, it, n_it, i, bi);
		st = hlrt_launch_ex(stream, r, bi, n, ws, first ? pre : NULL, first ? n_pre : 0,
				    last ? post : NULL, last ? n_post : 0);
	}
	free(bi);
	return st;
}

/* Addresses per iteration, rows of n_persistent: the bound ones advanced. */
static uint64_t *iter_rows(const struct hlrt_recipe *r, const uint64_t *bound, uint32_t count,
			   const struct hlrt_launch_iter *it, uint32_t n_it)
{
	uint32_t np = r->n_persistent, i, m;
	uint64_t *rows = malloc(sizeof(uint64_t) * ((size_t)count * np + 1));

	if (!rows)
		return NULL;
	for (i = 0; i < count; i++) {
		memcpy(rows + (size_t)i * np, bound, sizeof(uint64_t) * np);
		for (m = 0; m < n_it; m++) {
			uint32_t t = hlrt_launch_find_tensor(r, it[m].name);

			if (t != ~0u)
				rows[(size_t)i * np + t] = bound[t] + i * it[m].stride;
		}
	}
	return rows;
}

/* The rows serve: the image holds at least count iterations patched alike. */
static bool rep_valid(const struct rep_image *ri, const struct hlrt_recipe *r,
		      const uint64_t *rows, uint32_t count, uint64_t ws)
{
	return ri->k >= count && ri->ws == ws &&
	       !memcmp(ri->bound, rows, sizeof(uint64_t) * count * r->n_persistent);
}

/*
 * Lay out and patch the iterations' CBs in ri (first SOB set p0), upload
 * them. HLRT_UNSUPPORTED when a queue's CB would outgrow the limit.
 */
static hlrt_status rep_build(struct loaded_recipe *lr, struct rep_image *ri, uint32_t p0,
			     uint64_t *rows, uint32_t count, uint64_t ws)
{
	const struct hlrt_recipe *r = lr->recipe;
	const struct seg_image *sg = &lr->segs[0];
	uint32_t *end = calloc((size_t)(count + 1) * HLRT_SEG_QUEUES, sizeof(uint32_t));
	uint64_t size = 0;
	uint32_t q, i, k;
	hlrt_status st = HLRT_SUCCESS;

	if (!end)
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "hlrt_launch_repeat");
	for (q = 0; q < HLRT_SEG_QUEUES; q++) {
		for (i = 0; i < count; i++) {
			const struct cb_image *cb = &lr->cbs[sg->cb_first[(p0 + i) & 1] + q];

			end[(i + 1) * HLRT_SEG_QUEUES + q] = end[i * HLRT_SEG_QUEUES + q] + cb->n;
		}
		if ((uint64_t)end[count * HLRT_SEG_QUEUES + q] * 4 > GAUDISIM_CB_MAX_SIZE) {
			free(end);
			return HLRT_UNSUPPORTED;	/* the caller runs them one by one */
		}
		ri->off[q] = size;
		size += hlrt_align_up((uint64_t)end[count * HLRT_SEG_QUEUES + q] * 4, HLRT_ALIGN);
	}
	if (!size)
		size = HLRT_ALIGN;
	/* the image may still be running: wait before rewriting it */
	if (lr->last_stream)
		st = hlrt_stream_synchronize(lr->last_stream);
	ri->k = 0;
	if (!st && size > ri->cap) {
		if (ri->addr)
			hlrt_device_free(lr->dev, ri->addr);
		if (ri->host)
			hlrt_host_free(lr->dev, ri->host);
		ri->addr = 0;
		ri->host = NULL;
		ri->cap = 0;
		st = hlrt_device_malloc(lr->dev, size, &ri->addr);
		if (!st)
			st = hlrt_host_malloc(lr->dev, size, (void **)&ri->host);
		if (!st)
			ri->cap = size;
	}
	if (st) {
		free(end);
		return st;
	}
	for (i = 0; i < count; i++) {
		uint32_t c0 = sg->cb_first[(p0 + i) & 1];
		const uint64_t *bound = rows + (size_t)i * r->n_persistent;

		for (q = 0; q < HLRT_SEG_QUEUES; q++)
			if (lr->cbs[c0 + q].n)
				memcpy(ri->host + ri->off[q] + 4ull * end[i * HLRT_SEG_QUEUES + q],
				       lr->cbs[c0 + q].dw, lr->cbs[c0 + q].n * 4);
		for (k = 0; k < lr->n_patches; k++) {
			const struct patch_point *pp = &lr->patches[k];
			struct raddr a = { .tensor = pp->rt, .offset = pp->addend };
			uint64_t v;
			uint32_t dw;

			if (pp->cb < c0 || pp->cb >= c0 + HLRT_SEG_QUEUES)
				continue;	/* the other SOB set's */
			q = pp->cb - c0;
			v = hlrt_resolve(r, lr, bound, ws, a);
			dw = pp->hi ? (uint32_t)(v >> 32) : (uint32_t)v;
			memcpy(ri->host + ri->off[q] +
			       4ull * (end[i * HLRT_SEG_QUEUES + q] + pp->dword), &dw, 4);
		}
	}
	st = hlrt_memcpy_h2d(lr->dev, ri->addr, ri->host, size);
	if (st) {
		free(end);
		return st;
	}
	free(ri->end);
	free(ri->bound);
	ri->end = end;
	ri->bound = rows;
	ri->k = count;
	ri->ws = ws;
	return HLRT_SUCCESS;
}

/* The external job: the segment's start, wait and reset, once per iteration. */
static hlrt_status rep_ext_body(hlrt_stream *stream, struct loaded_recipe *lr, uint32_t p0,
				uint32_t count, uint32_t *n_out)
{
	struct seg_image *sg = &lr->segs[0];
	uint32_t p, i, n = 0;
	hlrt_status st;

	for (p = 0; p < 2; p++) {
		if (sg->ext_body[p][stream->index])
			continue;
		st = hlrt_emit_ext(lr->dev, lr, sg, p, stream->index, stream->ext_queue);
		if (st)
			return st;
	}
	for (i = 0; i < count; i++)
		n += sg->ext_n[(p0 + i) & 1][stream->index];
	if (n > lr->cap_rep_ext) {
		uint32_t *b = realloc(lr->rep_ext, sizeof(uint32_t) * n);

		if (!b)
			return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "hlrt_launch_repeat");
		lr->rep_ext = b;
		lr->cap_rep_ext = n;
	}
	n = 0;
	for (i = 0; i < count; i++) {
		p = (p0 + i) & 1;
		memcpy(lr->rep_ext + n, sg->ext_body[p][stream->index],
		       sizeof(uint32_t) * sg->ext_n[p][stream->index]);
		n += sg->ext_n[p][stream->index];
	}
	*n_out = n;
	return HLRT_SUCCESS;
}

hlrt_status hlrt_launch_repeat(hlrt_stream *stream, const hlrt_recipe *recipe,
			       const struct hlrt_tensor_binding *bindings, uint32_t n_bindings,
			       uint64_t workspace, uint32_t count,
			       const struct hlrt_launch_iter *iters, uint32_t n_iters,
			       const struct hlrt_host_copy *pre, uint32_t n_pre,
			       const struct hlrt_host_copy *post, uint32_t n_post)
{
	struct hlrt_recipe *r = (struct hlrt_recipe *)recipe;
	struct hlrt_be_job jobs[HLRT_SEG_QUEUES];
	struct hlrt_be_copy bpre[16], bpost[16];
	struct hlrt_be_ext ext = { 0 };
	uint64_t t0 = hlrt_now_ns(), *rows;
	struct loaded_recipe *lr;
	struct rep_image *ri;
	uint32_t p0, q, nj = 0;
	hlrt_status st;

	st = check_args(stream, r, bindings, n_bindings, count, iters, n_iters);
	if (st)
		return st;
	if (n_pre > 16 || n_post > 16 || (n_pre && !pre) || (n_post && !post))
		return hlrt_fail(HLRT_INVALID_ARGUMENT,
				 "hlrt_launch_repeat: at most 16 copies each way");
	if (r->workspace_size && !workspace)
		return hlrt_fail(HLRT_INVALID_ARGUMENT,
				 "the recipe needs %llu bytes of workspace",
				 (unsigned long long)r->workspace_size);
	st = hlrt_launch_loaded(stream->dev, r, &lr);
	if (st)
		return st;
	/* one submission: one device segment, no profiler timestamps to bring back */
	if (count == 1 || r->serial_launch || lr->n_segs != 1 || lr->segs[0].cpu ||
	    lr->profiled)
		return repeat_as_launches(stream, r, bindings, n_bindings, workspace, count,
					  iters, n_iters, pre, n_pre, post, n_post);
	st = hlrt_launch_copies(stream->dev, pre, n_pre, bpre);
	if (!st)
		st = hlrt_launch_copies(stream->dev, post, n_post, bpost);
	if (!st)
		st = hlrt_launch_bind(lr, bindings, n_bindings, lr->bound_next);
	/* the code and constants the CBs point at are in the launch image */
	if (!st)
		st = hlrt_launch_upload(r, lr, lr->bound_next, workspace);
	if (st)
		return st;
	rows = iter_rows(r, lr->bound_next, count, iters, n_iters);
	if (!rows)
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "hlrt_launch_repeat");
	p0 = lr->parity;
	ri = &lr->rep[p0];
	if (rep_valid(ri, r, rows, count, workspace)) {
		free(rows);
	} else {
		st = rep_build(lr, ri, p0, rows, count, workspace);
		if (st) {
			free(rows);
			if (st != HLRT_UNSUPPORTED)
				return st;
			return repeat_as_launches(stream, r, bindings, n_bindings, workspace,
						  count, iters, n_iters, pre, n_pre, post, n_post);
		}
	}
	for (q = 0; q < HLRT_SEG_QUEUES; q++) {
		uint32_t n = ri->end[count * HLRT_SEG_QUEUES + q];

		if (!n)
			continue;
		jobs[nj].queue = lr->cbs[lr->segs[0].cb_first[p0] + q].queue;
		jobs[nj].size = n * 4;
		jobs[nj].cb_addr = ri->addr + ri->off[q];
		nj++;
	}
	st = rep_ext_body(stream, lr, p0, count, &ext.n_body);
	if (st)
		return st;
	ext.body = lr->rep_ext;
	ext.pre = bpre;
	ext.n_pre = n_pre;
	ext.post = bpost;
	ext.n_post = n_post;
	st = hlrt_stream_submit(stream, jobs, nj, &ext);
	if (st)
		return st;
	lr->parity = (p0 + count) & 1;
	lr->last_stream = stream;
	hlrt_profiler_host_event(stream->dev, "hlrt_launch_repeat", t0, hlrt_now_ns());
	return HLRT_SUCCESS;
}
