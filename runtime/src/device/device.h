/* SPDX-License-Identifier: MIT */
/*
 * Devices, streams and events: the objects behind hlrt_device, hlrt_stream
 * and hlrt_event, their sync-manager resources and submission.
 */
#ifndef HLRT_DEVICE_H
#define HLRT_DEVICE_H

#include "hlrt_common.h"
#include "device/hlrt_backend.h"
#include "hw/gaudisim_hw_sync.h"

struct loaded_recipe;

/* ---- devices, streams (device.c, stream.c) ------------------------------- */

struct host_alloc {
	void *ptr;
	uint64_t size;
	uint64_t va;
	struct host_alloc *next;
};

struct dev_alloc {
	uint64_t addr, size, handle;
	struct dev_alloc *next;
};

/* A queue's monitors: configured once to add 1 to the queue's fence 0. */
#define HLRT_MONS_PER_QUEUE	12
/* Monitor pools: MME, TPC 0..7, DMA 2, and the 4 external streams. */
#define HLRT_QUEUE_SLOTS	14
/* Groups of 8 sync objects for events: at most 8 * this many events. */
#define HLRT_EVENT_GROUPS	16
/* Device-side waits a stream's next submission takes (one monitor each). */
#define HLRT_STREAM_WAITS	8

/* A stream waits until the sync object reaches value (monitor, >=). */
struct stream_wait {
	uint32_t sob, value;
};

struct hlrt_device {
	struct hlrt_backend *be;
	uint32_t index, module_id;
	struct hlrt_device_info info;
	struct dev_alloc *allocs;
	struct host_alloc *host_allocs;
	struct hlrt_stream *streams[HLRT_MAX_STREAMS];
	struct hlrt_stream *sync_stream;	/* for the synchronous helpers */
	/* sync-manager resources */
	uint32_t next_sob, sob_end;		/* the user range */
	bool sob_group_used[GAUDISIM_SYNC_NUM_SOBS / GAUDISIM_SYNC_SOBS_PER_GROUP];
	uint32_t mon_pool[HLRT_QUEUE_SLOTS][HLRT_MONS_PER_QUEUE];
	uint32_t info_first_mon, info_num_mons;
	/* the stream whose launch ran last: launches of two streams are ordered */
	struct hlrt_stream *last_launch_stream;
	uint64_t last_launch_seq;
	void *staging;				/* pinned bounce buffer for unpinned copies */
	uint64_t staging_size;
	struct loaded_recipe *loaded;		/* recipes loaded on this device */
	void (*unload_recipes)(hlrt_device *dev);	/* exec/'s, set at the first load */
	struct hlrt_profiler *prof;
	/* events' sync objects: groups of 8 taken as needed, a bit per event */
	uint32_t ev_group_first[HLRT_EVENT_GROUPS];
	uint8_t ev_group_used[HLRT_EVENT_GROUPS];
	uint32_t n_ev_groups;
};

struct hlrt_stream {
	hlrt_device *dev;
	uint32_t index;			/* 0..3: the external queue's stream */
	uint32_t ext_queue;
	uint64_t last_seq;		/* of the last submission, 0 if none */
	bool has_work;
	struct stream_wait waits[HLRT_STREAM_WAITS];	/* the next submission's, on the device */
	uint32_t n_waits;
	struct loaded_recipe *harvest[8];	/* profiled launches not yet read */
	uint32_t n_harvest;
	void *cb;			/* the external CB's host image */
	uint32_t cb_cap;
};

struct hlrt_event {
	hlrt_device *dev;
	hlrt_stream *stream;
	uint64_t seq;			/* 0: never recorded */
	uint32_t sob;			/* +1 on the device at every record */
	uint32_t records;		/* the value the sync object reaches at the last */
	uint64_t *ts;			/* pinned slot the device writes its clock to */
	uint64_t ts_va;
	bool done;
};

/* Queue slot numbers for the monitor pools: 0 = MME, 1..8 = TPC, 9 = DMA, 10.. = ext. */
uint32_t hlrt_queue_slot(uint32_t queue);
/* The monitor pool of a queue (payload: +1 to the queue's fence 0). */
const uint32_t *hlrt_device_queue_monitors(hlrt_device *dev, uint32_t queue);
hlrt_status hlrt_stream_create_internal(hlrt_device *dev, uint32_t index, hlrt_stream **out);
void hlrt_memory_release_all(hlrt_device *dev);
/* Take n consecutive sync objects aligned to a group of 8; give them back. */
hlrt_status hlrt_device_take_sobs(hlrt_device *dev, uint32_t n, uint32_t *first);
void hlrt_device_put_sobs(hlrt_device *dev, uint32_t first, uint32_t n);
/*
 * Let NIC peers write device memory [addr, + size) and signal sync objects
 * [sob_first, + sob_count) of dev; *handle for hlrt_device_nic_deregister.
 */
hlrt_status hlrt_device_nic_register(hlrt_device *dev, uint64_t addr, uint64_t size,
				     uint32_t sob_first, uint32_t sob_count, uint64_t *handle);
void hlrt_device_nic_deregister(hlrt_device *dev, uint64_t handle);

/* Host copies for a submission: in pinned memory, or staged. */
hlrt_status hlrt_host_va(hlrt_device *dev, const void *ptr, uint64_t size, uint64_t *va);

/*
 * Submit one CS on a stream: internal jobs plus the stream's external job
 * (ext: packets, the host copies around them). Orders after the previous
 * submission of the stream.
 */
hlrt_status hlrt_stream_submit(hlrt_stream *s, const struct hlrt_be_job *jobs, uint32_t n_jobs,
			       const struct hlrt_be_ext *ext);

#endif /* HLRT_DEVICE_H */
