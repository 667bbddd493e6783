// SPDX-License-Identifier: MIT
/*
 * The driver backend: libhlrt's device operations on the gaudisim accel
 * driver through libhlthunk. The external job of a submission is built in
 * a driver CB (the driver copies it at submission, so one CB per queue is
 * reused); internal jobs name CBs the runtime placed in HBM.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "device/device.h"
#include "hlthunk.h"
#include "hlthunk_packets.h"
#include "hw/gaudisim_hw_sync.h"

#define EXT_CB_BYTES	(256u * 1024u)
/* Generous: the guest runs under TCG and a step may move a data set. */
#define SUBMIT_TIMEOUT_S 600

struct drv {
	int fd;
	uint64_t cb_handle[GAUDISIM_STREAMS_PER_QMAN];
	void *cb[GAUDISIM_STREAMS_PER_QMAN];
};

static void drv_close(struct hlrt_backend *be)
{
	struct drv *d = be->priv;
	unsigned int i;

	for (i = 0; i < GAUDISIM_STREAMS_PER_QMAN; i++) {
		if (d->cb[i])
			hlthunk_cb_munmap(d->cb[i], EXT_CB_BYTES);
		if (d->cb_handle[i])
			hlthunk_destroy_command_buffer(d->fd, d->cb_handle[i]);
	}
	hlthunk_close(d->fd);
	free(d);
	free(be);
}

static int drv_info(struct hlrt_backend *be, struct hlrt_be_info *info)
{
	struct drv *d = be->priv;
	struct hlthunk_hw_ip_info hw;
	struct gaudisim_info_hw_ip_ext ext;
	struct gaudisim_info_sync_manager sm;
	int rc;

	memset(&hw, 0, sizeof(hw));
	memset(&ext, 0, sizeof(ext));
	memset(&sm, 0, sizeof(sm));
	rc = hlthunk_get_hw_ip_info(d->fd, &hw);
	if (!rc)
		rc = hlthunk_get_hw_ip_ext(d->fd, &ext);
	if (rc)
		return rc;
	rc = hlthunk_get_info_op(d->fd, GAUDISIM_INFO_SYNC_MANAGER, &sm, sizeof(sm));
	if (rc)
		return rc;
	memset(info, 0, sizeof(*info));
	memcpy(info->name, ext.card_name, sizeof(info->name) - 1);
	hlthunk_get_pci_bus_id_from_fd(d->fd, info->bus_id, sizeof(info->bus_id));
	info->hbm_base = hw.dram_base_address;
	info->hbm_size = hw.dram_size;
	info->sram_base = hw.sram_base_address;
	info->sram_size = hw.sram_size;
	info->num_tpc = ext.num_tpc;
	info->tpc_enabled_mask = hw.tpc_enabled_mask;
	info->num_hbm_dma = ext.num_hbm_dma;
	info->clock_mhz = 0;
	info->first_sob = sm.first_available_sync_object;
	info->first_mon = sm.first_available_monitor;
	info->num_sobs = ext.num_sync_objects;
	info->num_mons = ext.num_monitors;
	return 0;
}

static int drv_hbm_free_bytes(struct hlrt_backend *be, uint64_t *free_bytes)
{
	struct drv *d = be->priv;
	struct hlthunk_dram_usage_info u;
	int rc = hlthunk_get_dram_usage(d->fd, &u);

	if (!rc)
		*free_bytes = u.dram_free_mem;
	return rc;
}

static int drv_hbm_alloc(struct hlrt_backend *be, uint64_t size, uint64_t *handle,
			 uint64_t *addr)
{
	struct drv *d = be->priv;
	uint64_t h, a;
	int rc;

	/* libhlthunk answers 0 with errno set; the backend speaks -errno. */
	h = hlthunk_device_memory_alloc(d->fd, size, 0, true, false);
	if (!h)
		return -errno;
	a = hlthunk_device_memory_map(d->fd, h, 0);
	if (!a) {
		rc = -errno;
		hlthunk_device_memory_free(d->fd, h);
		return rc;
	}
	*handle = h;
	*addr = a;
	return 0;
}

static int drv_hbm_free(struct hlrt_backend *be, uint64_t handle)
{
	struct drv *d = be->priv;

	return hlthunk_device_memory_free(d->fd, handle);
}

static int drv_host_map(struct hlrt_backend *be, void *ptr, uint64_t size, uint64_t *va)
{
	struct drv *d = be->priv;

	uint64_t v = hlthunk_host_memory_map(d->fd, ptr, 0, size);

	if (!v)
		return -errno;
	*va = v;
	return 0;
}

static int drv_host_unmap(struct hlrt_backend *be, uint64_t va)
{
	struct drv *d = be->priv;

	return hlthunk_memory_unmap(d->fd, va);
}

static int drv_nic_register(struct hlrt_backend *be, uint64_t addr, uint64_t size,
			    uint32_t sob_first, uint32_t sob_count, uint64_t *handle)
{
	struct drv *d = be->priv;

	return hlthunk_nic_register(d->fd, addr, size, sob_first, sob_count, handle);
}

static int drv_nic_deregister(struct hlrt_backend *be, uint64_t handle)
{
	struct drv *d = be->priv;

	return hlthunk_nic_deregister(d->fd, handle);
}

static uint32_t drv_ext_queue(struct hlrt_backend *be, uint32_t s)
{
	(void)be;
	return GAUDISIM_QUEUE_ID_DMA_0_0 + s;
}

/* Copies split at the LIN_DMA size limit. */
static int put_copies(struct hlthunk_cb_writer *w, const struct hlrt_be_copy *c, uint32_t n,
		      bool to_device)
{
	uint32_t i;
	int rc;

	for (i = 0; i < n; i++) {
		uint64_t done = 0;

		while (done < c[i].size) {
			uint64_t chunk = c[i].size - done;

			if (chunk > (1ull << 30))
				chunk = 1ull << 30;
			rc = hlthunk_cbw_lin_dma(w, to_device ? c[i].va + done : c[i].dev + done,
						 to_device ? c[i].dev + done : c[i].va + done,
						 (uint32_t)chunk, 0, 0);
			if (rc)
				return rc;
			done += chunk;
		}
	}
	return 0;
}

static int drv_submit(struct hlrt_backend *be, const struct hlrt_be_job *jobs, uint32_t n_jobs,
		      uint32_t ext_queue, const struct hlrt_be_ext *ext, uint64_t *seq)
{
	struct gaudisim_cs_chunk chunks[GAUDISIM_MAX_JOBS_PER_CS];
	struct drv *d = be->priv;
	uint32_t s = ext_queue - GAUDISIM_QUEUE_ID_DMA_0_0, i;
	struct hlthunk_cb_writer w;
	struct hlthunk_cs_in in = { 0 };
	struct hlthunk_cs_out out = { 0 };
	int rc;

	if (s >= GAUDISIM_STREAMS_PER_QMAN || n_jobs + 1 > GAUDISIM_MAX_JOBS_PER_CS)
		return -EINVAL;
	if (!d->cb[s]) {
		rc = hlthunk_request_command_buffer(d->fd, EXT_CB_BYTES, &d->cb_handle[s]);
		if (rc)
			return rc;
		d->cb[s] = hlthunk_cb_mmap(d->fd, d->cb_handle[s], EXT_CB_BYTES);
		if (!d->cb[s]) {
			hlthunk_destroy_command_buffer(d->fd, d->cb_handle[s]);
			d->cb_handle[s] = 0;
			return -ENOMEM;
		}
	}
	hlthunk_cbw_init(&w, d->cb[s], EXT_CB_BYTES);
	rc = 0;
	if (ext->ts_first_dev)
		rc = hlthunk_cbw_msg_long_timestamp(&w, ext->ts_first_dev, GAUDISIM_PKT_CTL_MB);
	if (!rc)
		rc = put_copies(&w, ext->pre, ext->n_pre, true);
	if (!rc && ext->n_body)
		rc = hlthunk_cbw_dwords(&w, ext->body, ext->n_body);
	if (!rc)
		rc = put_copies(&w, ext->post, ext->n_post, false);
	if (!rc && ext->ts_last_dev)
		rc = hlthunk_cbw_msg_long_timestamp(&w, ext->ts_last_dev, GAUDISIM_PKT_CTL_EB |
						    GAUDISIM_PKT_CTL_MB);
	if (!rc && ext->ts_host)
		rc = hlthunk_cbw_msg_long_timestamp(&w, ext->ts_va, GAUDISIM_PKT_CTL_EB |
						    GAUDISIM_PKT_CTL_MB);
	if (!rc && !w.used)
		rc = hlthunk_cbw_nop(&w, 0);
	if (rc)
		return rc;

	memset(chunks, 0, sizeof(chunks[0]) * (n_jobs + 1));
	for (i = 0; i < n_jobs; i++) {
		chunks[i].cb_handle = jobs[i].cb_addr;
		chunks[i].queue_index = jobs[i].queue;
		chunks[i].cb_size = jobs[i].size;
	}
	chunks[n_jobs].cb_handle = d->cb_handle[s];
	chunks[n_jobs].queue_index = ext_queue;
	chunks[n_jobs].cb_size = w.used;
	in.chunks_execute = chunks;
	in.num_chunks_execute = n_jobs + 1;
	in.flags = GAUDISIM_CS_FLAGS_CUSTOM_TIMEOUT;
	in.timeout_s = SUBMIT_TIMEOUT_S;
	rc = hlthunk_command_submission(d->fd, &in, &out);
	if (!rc)
		*seq = out.seq;
	return rc;
}

static int drv_wait(struct hlrt_backend *be, uint64_t seq, uint64_t timeout_us)
{
	struct drv *d = be->priv;
	uint32_t status = 0;
	int rc = hlthunk_wait_for_cs(d->fd, seq, timeout_us, &status);

	if (rc)
		return rc;
	if (status == GAUDISIM_WAIT_CS_STATUS_COMPLETED)
		return 0;
	if (status == GAUDISIM_WAIT_CS_STATUS_BUSY || status == GAUDISIM_WAIT_CS_STATUS_TIMEDOUT)
		return -ETIMEDOUT;
	return -EIO;
}

static int drv_device_time(struct hlrt_backend *be, uint64_t *ns)
{
	struct drv *d = be->priv;
	struct hlthunk_time_sync_info t;
	int rc = hlthunk_get_time_sync_info(d->fd, &t);

	if (!rc)
		*ns = t.device_time;
	return rc;
}

static const struct hlrt_backend_ops drv_ops = {
	.close = drv_close,
	.info = drv_info,
	.hbm_free_bytes = drv_hbm_free_bytes,
	.hbm_alloc = drv_hbm_alloc,
	.hbm_free = drv_hbm_free,
	.host_map = drv_host_map,
	.host_unmap = drv_host_unmap,
	.ext_queue = drv_ext_queue,
	.submit = drv_submit,
	.wait = drv_wait,
	.nic_register = drv_nic_register,
	.nic_deregister = drv_nic_deregister,
	.device_time = drv_device_time,
};

static int drv_count(uint32_t *module_ids, uint32_t max)
{
	int idx[HLTHUNK_MAX_MINOR];
	int n = hlthunk_list_devices(idx, HLTHUNK_MAX_MINOR), i;

	if (n < 0)
		return n;
	for (i = 0; i < n && (uint32_t)i < max && module_ids; i++)
		module_ids[i] = (uint32_t)idx[i];
	return n;
}

static int drv_open(uint32_t index, struct hlrt_backend **out)
{
	int idx[HLTHUNK_MAX_MINOR];
	int n = hlthunk_list_devices(idx, HLTHUNK_MAX_MINOR), fd;
	struct hlrt_backend *be;
	struct drv *d;

	if (n < 0)
		return n;
	if ((int)index >= n)
		return -ENODEV;
	fd = hlthunk_open_by_index(idx[index]);
	if (fd < 0)
		return fd;
	be = calloc(1, sizeof(*be));
	d = calloc(1, sizeof(*d));
	if (!be || !d) {
		free(be);
		free(d);
		hlthunk_close(fd);
		return -ENOMEM;
	}
	d->fd = fd;
	be->ops = &drv_ops;
	be->priv = d;
	*out = be;
	return 0;
}

static const struct hlrt_backend_provider driver_provider = {
	.count = drv_count,
	.open = drv_open,
};

const struct hlrt_backend_provider *hlrt_default_provider(void)
{
	return &driver_provider;
}
