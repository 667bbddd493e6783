// SPDX-License-Identifier: MIT
/*
 * Streams and events. A stream is one external queue: its submissions
 * run in order because the queue runs its jobs in order, and a launch's
 * engines start only when the launch's external job signals them (see
 * emit.c), so nothing on the stream needs a host round trip to stay in
 * order. Events are device timestamps written by the stream's queue,
 * and a sync object the queue adds 1 to at every record: a stream that
 * waits for an event arms a monitor of its own queue on that object
 * (>= the count of the event's records at the time of the wait) and
 * fences on it, so the wait is the sync manager's, not the host's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "prof/profiler.h"
#include "device/hlrt_cb.h"

#define WAIT_TIMEOUT_US	(600ull * 1000 * 1000)

hlrt_status hlrt_stream_create_internal(hlrt_device *dev, uint32_t index, hlrt_stream **out)
{
	hlrt_stream *s;

	if (dev->streams[index])
		return hlrt_fail(HLRT_INTERNAL, "stream %u exists", index);
	s = calloc(1, sizeof(*s));
	if (!s)
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "stream");
	s->dev = dev;
	s->index = index;
	s->ext_queue = dev->be->ops->ext_queue(dev->be, index);
	dev->streams[index] = s;
	*out = s;
	return HLRT_SUCCESS;
}

hlrt_status hlrt_stream_create(hlrt_device *device, hlrt_stream **stream)
{
	uint32_t i;

	if (!device || !stream)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_stream_create: NULL argument");
	/* The last stream is the runtime's own (synchronous copies, set-up). */
	for (i = 0; i < HLRT_MAX_STREAMS - 1; i++)
		if (!device->streams[i])
			return hlrt_stream_create_internal(device, i, stream);
	return hlrt_fail(HLRT_UNSUPPORTED, "a device has at most %u streams",
			 HLRT_MAX_STREAMS - 1);
}

hlrt_status hlrt_stream_destroy(hlrt_stream *stream)
{
	if (!stream)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_stream_destroy: NULL stream");
	hlrt_stream_synchronize(stream);
	if (stream->dev->last_launch_stream == stream)
		stream->dev->last_launch_stream = NULL;
	stream->dev->streams[stream->index] = NULL;
	free(stream);
	return HLRT_SUCCESS;
}

static hlrt_status wait_seq(hlrt_device *dev, uint64_t seq)
{
	int rc;

	if (!seq)
		return HLRT_SUCCESS;
	rc = dev->be->ops->wait(dev->be, seq, WAIT_TIMEOUT_US);
	if (rc == -ETIMEDOUT)
		return hlrt_fail(HLRT_TIMEOUT, "device work did not finish in %llu s",
				 WAIT_TIMEOUT_US / 1000000);
	if (rc == -EIO)
		return hlrt_fail(HLRT_DEVICE_ERROR,
				 "the device aborted the work (engine error or reset)");
	if (rc)
		return hlrt_fail_errno(rc, "waiting for the device");
	return HLRT_SUCCESS;
}

/* Turn a completed profiled launch's timestamps into trace events. */
static void harvest(hlrt_device *dev, const struct loaded_recipe *lr)
{
	const struct hlrt_recipe *r = lr->recipe;
	const uint64_t *ts = lr->ts_host;
	uint32_t i, s;

	if (!dev->prof || !lr->profiled || !r)
		return;
	for (i = 0; i < r->n_works; i++) {
		const struct rwork *w = &r->works[i];

		if (w->engine == ENG_CPU)
			continue;
		for (s = 0; s < HLRT_TS_QUEUES; s++) {
			const uint64_t *pair = ts + hlrt_ts_work(i, s) / 8;

			hlrt_profiler_device_event(dev, r->nodes[w->node].name,
						   hlrt_profiler_slot_lane(s), w->engine, pair[0],
						   pair[1]);
		}
	}
	for (s = 0; s < lr->n_segs; s++) {
		const uint64_t *seg = ts + hlrt_ts_seg(r->n_works, s) / 8;

		if (lr->segs[s].cpu)
			continue;
		hlrt_profiler_device_event(dev, "host->device copies", HLRT_LANE_DMA0, ENG_DMA,
					   seg[0], seg[1]);
		hlrt_profiler_device_event(dev, "launch (engines)", HLRT_LANE_LAUNCH, ENG_NONE,
					   seg[1], seg[2]);
	}
}

hlrt_status hlrt_stream_synchronize(hlrt_stream *stream)
{
	hlrt_status st;

	if (!stream)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_stream_synchronize: NULL stream");
	st = wait_seq(stream->dev, stream->last_seq);
	if (!st) {
		uint32_t i;

		stream->last_seq = 0;
		for (i = 0; i < stream->n_harvest; i++)
			harvest(stream->dev, stream->harvest[i]);
	}
	stream->n_harvest = 0;
	return st;
}

/*
 * The stream's pending event waits as a CS of their own on its queue:
 * a monitor per wait, then a FENCE for all; the queue runs nothing of
 * the stream's after it until the monitors fire.
 */
static hlrt_status submit_waits(hlrt_stream *s)
{
	const uint32_t *pool = hlrt_device_queue_monitors(s->dev, s->ext_queue);
	struct hlrt_be_ext ext = { 0 };
	uint32_t arms[HLRT_STREAM_WAITS], i;
	struct hlrt_pkt_buf b;
	uint64_t seq = 0;
	int rc;

	if (!s->n_waits)
		return HLRT_SUCCESS;
	if (hlrt_pkt_init(&b, 16 + 4 * s->n_waits))
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "stream wait");
	for (i = 0; i < s->n_waits; i++)
		arms[i] = GAUDISIM_SYNC_MON_ARM_SOB(s->waits[i].sob, 0, s->waits[i].value);
	hlrt_pkt_wait(&b, pool, HLRT_MONS_PER_QUEUE, arms, s->n_waits);
	if (b.oom) {
		hlrt_pkt_free(&b);
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "stream wait");
	}
	ext.body = b.dw;
	ext.n_body = b.n;
	rc = s->dev->be->ops->submit(s->dev->be, NULL, 0, s->ext_queue, &ext, &seq);
	hlrt_pkt_free(&b);
	if (rc)
		return hlrt_fail_errno(rc, "command submission (stream wait)");
	s->last_seq = seq;
	s->n_waits = 0;
	return HLRT_SUCCESS;
}

hlrt_status hlrt_stream_submit(hlrt_stream *s, const struct hlrt_be_job *jobs, uint32_t n_jobs,
			       const struct hlrt_be_ext *ext)
{
	hlrt_device *dev = s->dev;
	hlrt_status st;
	uint64_t seq = 0;
	int rc;

	/*
	 * Engine queues are shared by the streams: a launch of another
	 * stream still in flight would interleave with this one on them.
	 */
	if (n_jobs && dev->last_launch_stream && dev->last_launch_stream != s) {
		st = wait_seq(dev, dev->last_launch_seq);
		if (st)
			return st;
		dev->last_launch_stream = NULL;
	}
	st = submit_waits(s);
	if (st)
		return st;
	rc = dev->be->ops->submit(dev->be, jobs, n_jobs, s->ext_queue, ext, &seq);
	if (rc)
		return hlrt_fail_errno(rc, "command submission");
	s->last_seq = seq;
	if (n_jobs) {
		dev->last_launch_stream = s;
		dev->last_launch_seq = seq;
	}
	return HLRT_SUCCESS;
}

hlrt_status hlrt_stream_wait_event(hlrt_stream *stream, hlrt_event *event)
{
	uint32_t i;

	if (!stream || !event || event->dev != stream->dev)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_stream_wait_event: bad argument");
	if (!event->seq || event->stream == stream || event->done)
		return HLRT_SUCCESS;	/* nothing recorded / in order / already done */
	for (i = 0; i < stream->n_waits; i++) {
		if (stream->waits[i].sob == event->sob) {	/* counts only grow */
			stream->waits[i].value = event->records;
			return HLRT_SUCCESS;
		}
	}
	if (stream->n_waits == HLRT_STREAM_WAITS) {
		/* the monitors are full: the waits so far go to the queue now */
		hlrt_status st = submit_waits(stream);

		if (st)
			return st;
	}
	stream->waits[stream->n_waits].sob = event->sob;
	stream->waits[stream->n_waits].value = event->records;
	stream->n_waits++;
	return HLRT_SUCCESS;
}

/* ---- copies ---------------------------------------------------------------- */

/* The device's staging buffer for copies from memory that is not pinned. */
static hlrt_status staging(hlrt_device *dev, uint64_t size, void **p, uint64_t *va)
{
	hlrt_status st;

	if (dev->staging_size < size) {
		if (dev->staging)
			hlrt_host_free(dev, dev->staging);
		dev->staging = NULL;
		dev->staging_size = 0;
		st = hlrt_host_malloc(dev, size, &dev->staging);
		if (st)
			return st;
		dev->staging_size = size;
	}
	*p = dev->staging;
	return hlrt_host_va(dev, dev->staging, size, va);
}

static hlrt_status check_stream(hlrt_stream *s, uint64_t size, const char *what)
{
	if (!s)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: NULL stream", what);
	if (!size)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: size 0", what);
	return HLRT_SUCCESS;
}

hlrt_status hlrt_memcpy_h2d_async(hlrt_stream *stream, uint64_t dst, const void *src,
				  uint64_t size)
{
	struct hlrt_be_copy c = { .dev = dst, .size = size };
	struct hlrt_be_ext ext = { .pre = &c, .n_pre = 1 };
	hlrt_status st = check_stream(stream, size, "hlrt_memcpy_h2d_async");
	bool staged = false;

	if (st)
		return st;
	if (!src)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_memcpy_h2d_async: NULL source");
	c.host = (void *)src;
	if (hlrt_host_va(stream->dev, src, size, &c.va)) {
		st = staging(stream->dev, size, &c.host, &c.va);
		if (st)
			return st;
		memcpy(c.host, src, size);
		staged = true;
	}
	st = hlrt_stream_submit(stream, NULL, 0, &ext);
	if (!st && staged)
		st = hlrt_stream_synchronize(stream);
	return st;
}

hlrt_status hlrt_memcpy_d2h_async(hlrt_stream *stream, void *dst, uint64_t src, uint64_t size)
{
	struct hlrt_be_copy c = { .host = dst, .dev = src, .size = size };
	struct hlrt_be_ext ext = { .post = &c, .n_post = 1 };
	hlrt_status st = check_stream(stream, size, "hlrt_memcpy_d2h_async");
	bool staged = false;

	if (st)
		return st;
	if (!dst)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_memcpy_d2h_async: NULL destination");
	if (hlrt_host_va(stream->dev, dst, size, &c.va)) {
		st = staging(stream->dev, size, &c.host, &c.va);
		if (st)
			return st;
		staged = true;
	}
	st = hlrt_stream_submit(stream, NULL, 0, &ext);
	if (!st && staged) {
		st = hlrt_stream_synchronize(stream);
		if (!st)
			memcpy(dst, c.host, size);
	}
	return st;
}

/* LIN_DMA packets for a device-side copy or fill, split at 1 GiB. */
static hlrt_status dma_body(hlrt_stream *s, uint64_t dst, uint64_t src, uint64_t size,
			    bool memset)
{
	struct hlrt_be_ext ext = { 0 };
	struct hlrt_pkt_buf pb;
	uint64_t done = 0;
	hlrt_status st;

	if (hlrt_pkt_init(&pb, 64))
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "copy");
	while (done < size) {
		uint64_t chunk = size - done < (1ull << 30) ? size - done : 1ull << 30;

		hlrt_pkt_lin_dma(&pb, memset ? src : src + done, dst + done, (uint32_t)chunk,
				 memset, 0);
		done += chunk;
	}
	ext.body = pb.dw;
	ext.n_body = pb.n;
	st = pb.oom ? hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "copy") :
		      hlrt_stream_submit(s, NULL, 0, &ext);
	hlrt_pkt_free(&pb);
	return st;
}

hlrt_status hlrt_memcpy_d2d_async(hlrt_stream *stream, uint64_t dst, uint64_t src,
				  uint64_t size)
{
	hlrt_status st = check_stream(stream, size, "hlrt_memcpy_d2d_async");

	return st ? st : dma_body(stream, dst, src, size, false);
}

hlrt_status hlrt_memset_async(hlrt_stream *stream, uint64_t dst, uint8_t value, uint64_t size)
{
	hlrt_status st = check_stream(stream, size, "hlrt_memset_async");

	return st ? st : dma_body(stream, dst, value, size, true);
}

hlrt_status hlrt_memcpy_h2d(hlrt_device *device, uint64_t dst, const void *src, uint64_t size)
{
	hlrt_status st;

	if (!device)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_memcpy_h2d: NULL device");
	st = hlrt_memcpy_h2d_async(device->sync_stream, dst, src, size);
	return st ? st : hlrt_stream_synchronize(device->sync_stream);
}

hlrt_status hlrt_memcpy_d2h(hlrt_device *device, void *dst, uint64_t src, uint64_t size)
{
	hlrt_status st;

	if (!device)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_memcpy_d2h: NULL device");
	st = hlrt_memcpy_d2h_async(device->sync_stream, dst, src, size);
	return st ? st : hlrt_stream_synchronize(device->sync_stream);
}

/* ---- events ---------------------------------------------------------------- */

/* A sync object for an event, from the device's event groups. */
static hlrt_status event_sob_take(hlrt_device *dev, uint32_t *sob)
{
	uint32_t g, bit;
	hlrt_status st;

	for (g = 0; g < dev->n_ev_groups; g++) {
		if (dev->ev_group_used[g] == 0xff)
			continue;
		for (bit = 0; dev->ev_group_used[g] & (1u << bit); bit++)
			;
		dev->ev_group_used[g] |= (uint8_t)(1u << bit);
		*sob = dev->ev_group_first[g] + bit;
		return HLRT_SUCCESS;
	}
	if (dev->n_ev_groups == HLRT_EVENT_GROUPS)
		return hlrt_fail(HLRT_UNSUPPORTED, "at most %u events at a time",
				 8 * HLRT_EVENT_GROUPS);
	st = hlrt_device_take_sobs(dev, GAUDISIM_SYNC_SOBS_PER_GROUP,
				   &dev->ev_group_first[dev->n_ev_groups]);
	if (st)
		return st;
	dev->ev_group_used[dev->n_ev_groups] = 1;
	*sob = dev->ev_group_first[dev->n_ev_groups++];
	return HLRT_SUCCESS;
}

static void event_sob_put(hlrt_device *dev, uint32_t sob)
{
	uint32_t g;

	for (g = 0; g < dev->n_ev_groups; g++)
		if (sob >= dev->ev_group_first[g] && sob < dev->ev_group_first[g] + 8)
			dev->ev_group_used[g] &= (uint8_t)~(1u << (sob - dev->ev_group_first[g]));
}

/* Set an event's sync object on the device, after the stream's work. */
static hlrt_status event_sob_set(hlrt_stream *s, uint32_t sob, uint32_t so_upd,
				 const struct hlrt_be_ext *base)
{
	struct hlrt_be_ext ext = *base;
	struct hlrt_pkt_buf b;
	hlrt_status st;

	if (hlrt_pkt_init(&b, 8))
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "event");
	hlrt_pkt_sob(&b, sob, so_upd, GAUDISIM_PKT_CTL_EB | GAUDISIM_PKT_CTL_MB);
	ext.body = b.dw;
	ext.n_body = b.n;
	st = b.oom ? hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "event") :
		     hlrt_stream_submit(s, NULL, 0, &ext);
	hlrt_pkt_free(&b);
	return st;
}

hlrt_status hlrt_event_create(hlrt_device *device, hlrt_event **event)
{
	struct hlrt_be_ext none = { 0 };
	hlrt_event *e;
	hlrt_status st;

	if (!device || !event)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_event_create: NULL argument");
	e = calloc(1, sizeof(*e));
	if (!e)
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "event");
	e->dev = device;
	st = hlrt_host_malloc(device, sizeof(uint64_t), (void **)&e->ts);
	if (!st)
		st = hlrt_host_va(device, e->ts, sizeof(uint64_t), &e->ts_va);
	if (!st) {
		st = event_sob_take(device, &e->sob);
		/* a sync object may keep an earlier user's count: start from 0 */
		if (!st)
			st = event_sob_set(device->sync_stream, e->sob, GAUDISIM_SYNC_SOB_SET(0),
					   &none);
		if (!st)
			st = hlrt_stream_synchronize(device->sync_stream);
		if (st)
			event_sob_put(device, e->sob);
	}
	if (st) {
		if (e->ts)
			hlrt_host_free(device, e->ts);
		free(e);
		return st;
	}
	*event = e;
	return HLRT_SUCCESS;
}

/* Every stream of the device done: nothing waits on a sync object any more. */
static hlrt_status device_quiet(hlrt_device *dev)
{
	hlrt_status st = HLRT_SUCCESS, s2;
	uint32_t i;

	for (i = 0; i < HLRT_MAX_STREAMS; i++) {
		if (!dev->streams[i])
			continue;
		s2 = submit_waits(dev->streams[i]);
		if (!s2)
			s2 = hlrt_stream_synchronize(dev->streams[i]);
		st = st ? st : s2;
	}
	return st;
}

hlrt_status hlrt_event_destroy(hlrt_event *event)
{
	uint32_t i, j, k;

	if (!event)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_event_destroy: NULL event");
	/* a stream whose wait for it is still ahead must not see the object reused */
	for (i = 0; i < HLRT_MAX_STREAMS; i++) {
		hlrt_stream *s = event->dev->streams[i];

		for (j = 0, k = 0; s && j < s->n_waits; j++)
			if (s->waits[j].sob != event->sob)
				s->waits[k++] = s->waits[j];
		if (s)
			s->n_waits = k;
	}
	device_quiet(event->dev);
	event_sob_put(event->dev, event->sob);
	hlrt_host_free(event->dev, event->ts);
	free(event);
	return HLRT_SUCCESS;
}

hlrt_status hlrt_event_record(hlrt_event *event, hlrt_stream *stream)
{
	struct hlrt_be_ext ext = { 0 };
	hlrt_status st;

	uint32_t so_upd = GAUDISIM_SYNC_SOB_ADD(1);

	if (!event || !stream || event->dev != stream->dev)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_event_record: bad argument");
	if (event->records == GAUDISIM_SYNC_SOB_MAX) {
		/* the 15-bit count is full: start again at 1 once nobody waits */
		st = device_quiet(event->dev);
		if (st)
			return st;
		event->records = 0;
		so_upd = GAUDISIM_SYNC_SOB_SET(1);
	}
	*event->ts = 0;
	ext.ts_host = event->ts;
	ext.ts_va = event->ts_va;
	st = event_sob_set(stream, event->sob, so_upd, &ext);
	if (st)
		return st;
	event->records++;
	event->stream = stream;
	event->seq = stream->last_seq;
	event->done = false;
	return HLRT_SUCCESS;
}

hlrt_status hlrt_event_query(hlrt_event *event)
{
	int rc;

	if (!event)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_event_query: NULL event");
	if (!event->seq || event->done)
		return HLRT_SUCCESS;
	rc = event->dev->be->ops->wait(event->dev->be, event->seq, 0);
	if (rc == -ETIMEDOUT)
		return HLRT_NOT_READY;
	if (rc)
		return hlrt_fail_errno(rc, "event");
	event->done = true;
	return HLRT_SUCCESS;
}

hlrt_status hlrt_event_synchronize(hlrt_event *event)
{
	hlrt_status st;

	if (!event)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_event_synchronize: NULL event");
	if (!event->seq || event->done)
		return HLRT_SUCCESS;
	st = wait_seq(event->dev, event->seq);
	if (!st)
		event->done = true;
	return st;
}

hlrt_status hlrt_event_elapsed_ns(uint64_t *ns, hlrt_event *start, hlrt_event *end)
{
	if (!ns || !start || !end)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_event_elapsed_ns: NULL argument");
	if (!start->seq || !end->seq)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "event never recorded");
	if (hlrt_event_query(start) || hlrt_event_query(end))
		return hlrt_fail(HLRT_NOT_READY, "events not completed");
	if (!*start->ts || !*end->ts || *end->ts < *start->ts)
		return hlrt_fail(HLRT_DEVICE_ERROR, "event timestamps missing or out of order");
	*ns = *end->ts - *start->ts;
	return HLRT_SUCCESS;
}
