// SPDX-License-Identifier: MIT
/*
 * Devices: visibility (HABANA_VISIBLE_DEVICES / HABANA_VISIBLE_MODULES),
 * acquire and release, device info, and the sync-manager resources the
 * runtime hands to recipes (sync objects, per-queue monitor pools).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "device/device.h"
#include "device/hlrt_cb.h"
#include "hw/gaudisim_hw_sync.h"

#define MAX_DEVICES	64

static const struct hlrt_backend_provider *provider;

void hlrt_set_backend_provider(const struct hlrt_backend_provider *p)
{
	provider = p;
}

/* The provider a test installed, else the library's default (the driver). */
static const struct hlrt_backend_provider *current(void)
{
	return provider ? provider : hlrt_default_provider();
}

/*
 * Does the visibility list ("all", "0,2", "1-3") name value? Returns 1 or
 * 0, or -1 when the list is malformed: a typo must not silently expose or
 * hide cards, so the caller refuses it.
 */
static int list_has(const char *list, uint32_t value)
{
	const char *p = list;
	bool found = false;

	if (!strcasecmp(list, "all"))
		return 1;
	while (*p) {
		char *end;
		unsigned long a, b;

		while (*p == ' ')
			p++;
		if (*p < '0' || *p > '9')
			return -1;
		a = strtoul(p, &end, 10);
		b = a;
		p = end;
		if (*p == '-') {
			if (p[1] < '0' || p[1] > '9')
				return -1;
			b = strtoul(p + 1, &end, 10);
			if (b < a)
				return -1;
			p = end;
		}
		found = found || (value >= a && value <= b);
		while (*p == ' ')
			p++;
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			return -1;
	}
	return found ? 1 : 0;
}

/* Is the mask in environment variable name, if set, well formed? */
static hlrt_status check_mask(const char *name, const char *v)
{
	if (v && *v && list_has(v, 0) < 0)
		return hlrt_fail(HLRT_INVALID_ARGUMENT,
				 "%s='%s' is malformed: use 'all' or indices and ranges such as '0,2,4-7'",
				 name, v);
	return HLRT_SUCCESS;
}

/*
 * Provider indices of the visible devices, ascending; returns how many or
 * a negative errno. The masks were checked by check_mask first.
 */
static int visible_devices(uint32_t *index, uint32_t *module, uint32_t max)
{
	const char *devs = hlrt_config_visible_devices();
	const char *mods = hlrt_config_visible_modules();
	uint32_t ids[MAX_DEVICES];
	int n = current()->count(ids, MAX_DEVICES), i, k = 0;

	if (n < 0)
		return n;
	if (n > MAX_DEVICES)
		n = MAX_DEVICES;
	for (i = 0; i < n; i++) {
		if (devs && *devs && list_has(devs, (uint32_t)i) != 1)
			continue;
		if (mods && *mods && list_has(mods, ids[i]) != 1)
			continue;
		if ((uint32_t)k < max) {
			index[k] = (uint32_t)i;
			module[k] = ids[i];
		}
		k++;
	}
	return k;
}

/* Both masks well formed, then the visible devices (status on failure). */
static hlrt_status list_visible(uint32_t *index, uint32_t *module, int *count)
{
	hlrt_status st = check_mask("HABANA_VISIBLE_DEVICES", hlrt_config_visible_devices());
	int n;

	if (!st)
		st = check_mask("HABANA_VISIBLE_MODULES", hlrt_config_visible_modules());
	if (st)
		return st;
	n = visible_devices(index, module, MAX_DEVICES);
	if (n < 0)
		return hlrt_fail_errno(n, "listing devices");
	*count = n;
	return HLRT_SUCCESS;
}

hlrt_status hlrt_device_count(uint32_t *count)
{
	uint32_t idx[MAX_DEVICES], mod[MAX_DEVICES];
	hlrt_status st;
	int n;

	if (!count)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_device_count: count is NULL");
	st = list_visible(idx, mod, &n);
	if (st)
		return st;
	*count = (uint32_t)n;
	return HLRT_SUCCESS;
}

uint32_t hlrt_queue_slot(uint32_t queue)
{
	if (queue == GAUDISIM_QUEUE_ID_MME_0)
		return 0;
	if (queue >= GAUDISIM_QUEUE_ID_TPC_0_0)
		return 1 + (queue - GAUDISIM_QUEUE_ID_TPC_0_0) / GAUDISIM_STREAMS_PER_QMAN;
	if (queue == GAUDISIM_QUEUE_ID_DMA_2_0)
		return 9;
	/* the external (or stand-in) queue of runtime stream s */
	return 10 + gaudisim_queue_stream(queue);
}

/* Device address of a queue's CP_FENCE_RDATA(0): a monitor payload adds to it. */
static uint64_t fence_addr(uint32_t queue)
{
	return GAUDISIM_CFG_BASE + GAUDISIM_QM_BLOCK(gaudisim_queue_engine(queue)) +
	       GAUDISIM_QM_CP_FENCE_RDATA(0, gaudisim_queue_stream(queue));
}

/* Give every queue the runtime uses its pool of monitors (one submission). */
static hlrt_status setup_monitors(hlrt_device *dev)
{
	uint32_t queues[HLRT_QUEUE_SLOTS], nq = 0, q, i, j, mon = dev->info_first_mon;
	struct hlrt_pkt_buf pb;
	struct hlrt_be_ext ext = { 0 };
	hlrt_status st;

	queues[nq++] = GAUDISIM_QUEUE_ID_MME_0;
	for (i = 0; i < GAUDISIM_NUM_TPC; i++)
		queues[nq++] = GAUDISIM_QUEUE_ID_TPC_0_0 + GAUDISIM_STREAMS_PER_QMAN * i;
	queues[nq++] = GAUDISIM_QUEUE_ID_DMA_2_0;
	for (i = 0; i < HLRT_MAX_STREAMS; i++)
		queues[nq++] = dev->be->ops->ext_queue(dev->be, i);

	if (hlrt_pkt_init(&pb, 4096))
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "monitor setup");
	for (q = 0; q < nq; q++) {
		uint32_t slot = hlrt_queue_slot(queues[q]);
		uint64_t addr = fence_addr(queues[q]);

		for (j = 0; j < HLRT_MONS_PER_QUEUE; j++) {
			if (mon >= GAUDISIM_SYNC_RESERVED_MON_FIRST &&
			    mon <= GAUDISIM_SYNC_RESERVED_MON_LAST)
				mon = GAUDISIM_SYNC_RESERVED_MON_LAST + 1;
			if (mon >= dev->info_num_mons) {
				hlrt_pkt_free(&pb);
				return hlrt_fail(HLRT_INTERNAL, "not enough monitors");
			}
			dev->mon_pool[slot][j] = mon;
			hlrt_pkt_mon_reg(&pb, GAUDISIM_SYNC_MON_PAY_ADDRL(mon), (uint32_t)addr);
			hlrt_pkt_mon_reg(&pb, GAUDISIM_SYNC_MON_PAY_ADDRH(mon),
					 (uint32_t)(addr >> 32));
			hlrt_pkt_mon_reg(&pb, GAUDISIM_SYNC_MON_PAY_DATA(mon), 1);
			mon++;
		}
	}
	if (pb.oom) {
		hlrt_pkt_free(&pb);
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "monitor setup");
	}
	ext.body = pb.dw;
	ext.n_body = pb.n;
	st = hlrt_stream_submit(dev->sync_stream, NULL, 0, &ext);
	hlrt_pkt_free(&pb);
	if (!st)
		st = hlrt_stream_synchronize(dev->sync_stream);
	return st;
}

const uint32_t *hlrt_device_queue_monitors(hlrt_device *dev, uint32_t queue)
{
	return dev->mon_pool[hlrt_queue_slot(queue)];
}

/* Groups of 8 sync objects, first fit, so recipes unloaded give theirs back. */
hlrt_status hlrt_device_take_sobs(hlrt_device *dev, uint32_t n, uint32_t *first)
{
	uint32_t groups = (n + GAUDISIM_SYNC_SOBS_PER_GROUP - 1) / GAUDISIM_SYNC_SOBS_PER_GROUP;
	uint32_t g0 = (uint32_t)hlrt_align_up(dev->next_sob, GAUDISIM_SYNC_SOBS_PER_GROUP) /
		      GAUDISIM_SYNC_SOBS_PER_GROUP;
	uint32_t end = dev->sob_end / GAUDISIM_SYNC_SOBS_PER_GROUP, g, k;

	for (g = g0; g + groups <= end; g++) {
		for (k = 0; k < groups && !dev->sob_group_used[g + k]; k++)
			;
		if (k < groups) {
			g += k;
			continue;
		}
		for (k = 0; k < groups; k++)
			dev->sob_group_used[g + k] = true;
		*first = g * GAUDISIM_SYNC_SOBS_PER_GROUP;
		return HLRT_SUCCESS;
	}
	return hlrt_fail(HLRT_UNSUPPORTED,
			 "out of sync objects (%u more needed): destroy unused recipes", n);
}

void hlrt_device_put_sobs(hlrt_device *dev, uint32_t first, uint32_t n)
{
	uint32_t g = first / GAUDISIM_SYNC_SOBS_PER_GROUP, k;
	uint32_t groups = (n + GAUDISIM_SYNC_SOBS_PER_GROUP - 1) / GAUDISIM_SYNC_SOBS_PER_GROUP;

	for (k = 0; k < groups && g + k < GAUDISIM_SYNC_NUM_SOBS / GAUDISIM_SYNC_SOBS_PER_GROUP; k++)
		dev->sob_group_used[g + k] = false;
}

/* Start the profile HLRT_PROFILE names, if any; a failure is reported, not fatal. */
static void profile_from_env(hlrt_device *dev)
{
	const char *path = hlrt_config_profile();

	if (path && *path && hlrt_profiler_start(dev, path))
		fprintf(stderr, "hlrt: HLRT_PROFILE: %s\n", hlrt_last_error());
}

static hlrt_status acquire_provider_index(uint32_t pindex, uint32_t vindex, uint32_t module,
					  hlrt_device **device)
{
	struct hlrt_be_info bi;
	hlrt_device *dev;
	hlrt_status st;
	int rc;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "device");
	rc = current()->open(pindex, &dev->be);
	if (rc) {
		free(dev);
		if (rc == -EBUSY)
			return hlrt_fail(HLRT_DEVICE_BUSY,
					 "device %u is in use by another process", vindex);
		return hlrt_fail_errno(rc, "opening the device");
	}
	rc = dev->be->ops->info(dev->be, &bi);
	if (rc) {
		dev->be->ops->close(dev->be);
		free(dev);
		return hlrt_fail_errno(rc, "device info");
	}
	dev->index = vindex;
	dev->module_id = module;
	dev->info.index = vindex;
	dev->info.module_id = module;
	memcpy(dev->info.name, bi.name, sizeof(dev->info.name));
	memcpy(dev->info.bus_id, bi.bus_id, sizeof(dev->info.bus_id));
	dev->info.hbm_base = bi.hbm_base;
	dev->info.hbm_total = bi.hbm_size;
	dev->info.sram_base = bi.sram_base;
	dev->info.sram_size = bi.sram_size;
	dev->info.num_tpc = bi.num_tpc;
	dev->info.tpc_enabled_mask = bi.tpc_enabled_mask;
	dev->info.num_hbm_dma = bi.num_hbm_dma;
	dev->info.clock_mhz = bi.clock_mhz;
	dev->info_first_mon = bi.first_mon;
	dev->info_num_mons = bi.num_mons;
	dev->next_sob = bi.first_sob;
	dev->sob_end = bi.num_sobs;

	st = hlrt_stream_create_internal(dev, HLRT_MAX_STREAMS - 1, &dev->sync_stream);
	if (!st)
		st = setup_monitors(dev);
	if (st) {
		hlrt_device_release(dev);
		return st;
	}
	profile_from_env(dev);
	*device = dev;
	return HLRT_SUCCESS;
}

hlrt_status hlrt_device_acquire(uint32_t index, hlrt_device **device)
{
	uint32_t idx[MAX_DEVICES], mod[MAX_DEVICES];
	hlrt_status st;
	int n;

	if (!device)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_device_acquire: device is NULL");
	st = list_visible(idx, mod, &n);
	if (st)
		return st;
	if (index >= (uint32_t)n) {
		const char *devs = hlrt_config_visible_devices();
		const char *mods = hlrt_config_visible_modules();
		int present = current()->count(NULL, 0);
		char masks[256] = "";

		/* Say which mask hid the devices there are. */
		if (devs && *devs)
			snprintf(masks, sizeof(masks), "; HABANA_VISIBLE_DEVICES=%s", devs);
		if (mods && *mods)
			snprintf(masks + strlen(masks), sizeof(masks) - strlen(masks),
				 "; HABANA_VISIBLE_MODULES=%s", mods);
		return hlrt_fail(HLRT_NO_DEVICE, "no visible device %u (%d visible of %d present%s)",
				 index, n, present < 0 ? 0 : present, masks);
	}
	return acquire_provider_index(idx[index], index, mod[index], device);
}

hlrt_status hlrt_device_acquire_by_module(uint32_t module_id, hlrt_device **device)
{
	uint32_t idx[MAX_DEVICES], mod[MAX_DEVICES];
	hlrt_status st;
	int n, i;

	if (!device)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_device_acquire_by_module: NULL");
	st = list_visible(idx, mod, &n);
	if (st)
		return st;
	for (i = 0; i < n && i < MAX_DEVICES; i++)
		if (mod[i] == module_id)
			return acquire_provider_index(idx[i], (uint32_t)i, module_id, device);
	return hlrt_fail(HLRT_NO_DEVICE, "no visible device with module ID %u", module_id);
}

hlrt_status hlrt_device_synchronize(hlrt_device *device)
{
	hlrt_status st = HLRT_SUCCESS, s2;
	uint32_t i;

	if (!device)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_device_synchronize: NULL device");
	for (i = 0; i < HLRT_MAX_STREAMS; i++) {
		if (!device->streams[i])
			continue;
		s2 = hlrt_stream_synchronize(device->streams[i]);
		if (!st)
			st = s2;
	}
	return st;
}

hlrt_status hlrt_device_release(hlrt_device *device)
{
	uint32_t i;

	if (!device)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_device_release: NULL device");
	hlrt_profiler_stop(device);
	hlrt_device_synchronize(device);
	if (device->unload_recipes)
		device->unload_recipes(device);
	for (i = 0; i < HLRT_MAX_STREAMS; i++)
		if (device->streams[i])
			hlrt_stream_destroy(device->streams[i]);
	hlrt_memory_release_all(device);
	device->be->ops->close(device->be);
	free(device);
	return HLRT_SUCCESS;
}

hlrt_status hlrt_device_get_info(hlrt_device *device, struct hlrt_device_info *info)
{
	uint64_t free_bytes = 0;
	int rc;

	if (!device || !info)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_device_get_info: NULL argument");
	rc = device->be->ops->hbm_free_bytes(device->be, &free_bytes);
	if (rc)
		return hlrt_fail_errno(rc, "HBM usage");
	*info = device->info;
	info->hbm_free = free_bytes;
	return HLRT_SUCCESS;
}
