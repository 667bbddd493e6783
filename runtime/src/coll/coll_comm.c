// SPDX-License-Identifier: MIT
/*
 * Communicators: a rank's device resources (receive slots, sync objects,
 * the NIC queues' monitors, the add kernels in HBM, CB areas), the
 * rendezvous, and the ring through the NIC links. The ring visits the
 * modules of a box in order and crosses between boxes on scale-out
 * ports, which link the same module of two boxes: box 0 goes up the
 * module IDs, box 1 comes back down, so both crossings are between
 * equal modules.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll_internal.h"
#include "device/hlrt_cb.h"
#include "hw/gaudisim_hw_nic.h"
#include "hw/gaudisim_hw_regs.h"

/* ---- monitors beyond the runtime's queue pools ----------------------------- */

#define MAX_DEVS	16

/* Guards mon_table, and the kernel table's answer (upload_kernels). */
static pthread_mutex_t mon_lock = PTHREAD_MUTEX_INITIALIZER;
/* Per device: the monitors communicators hold. */
static struct {
	const hlrt_device *dev;
	uint8_t used[GAUDISIM_SYNC_NUM_MONITORS / 8];
	uint32_t users;
} mon_table[MAX_DEVS];

/* The first monitor no queue pool uses. */
static uint32_t first_free_monitor(const hlrt_device *dev)
{
	uint32_t s, j, top = dev->info_first_mon;

	for (s = 0; s < HLRT_QUEUE_SLOTS; s++)
		for (j = 0; j < HLRT_MONS_PER_QUEUE; j++)
			if (dev->mon_pool[s][j] + 1 > top)
				top = dev->mon_pool[s][j] + 1;
	return top;
}

hlrt_status hlrt_coll_take_monitors(hlrt_device *dev, uint32_t n, uint32_t *mons)
{
	uint32_t i, m, got = 0, slot = MAX_DEVS;

	pthread_mutex_lock(&mon_lock);
	for (i = 0; i < MAX_DEVS; i++) {
		if (mon_table[i].dev == dev) {
			slot = i;
			break;
		}
		if (!mon_table[i].dev && slot == MAX_DEVS)
			slot = i;
	}
	if (slot == MAX_DEVS) {
		pthread_mutex_unlock(&mon_lock);
		return hlrt_fail(HLRT_UNSUPPORTED, "communicators on more than %u devices", MAX_DEVS);
	}
	mon_table[slot].dev = dev;
	for (m = first_free_monitor(dev); m < dev->info_num_mons && got < n; m++) {
		if ((m >= GAUDISIM_SYNC_RESERVED_MON_FIRST && m <= GAUDISIM_SYNC_RESERVED_MON_LAST) ||
		    mon_table[slot].used[m / 8] & (1u << (m % 8)))
			continue;
		mon_table[slot].used[m / 8] |= (uint8_t)(1u << (m % 8));
		mons[got++] = m;
	}
	if (got < n) {
		for (i = 0; i < got; i++)
			mon_table[slot].used[mons[i] / 8] &= (uint8_t)~(1u << (mons[i] % 8));
		if (!mon_table[slot].users)
			mon_table[slot].dev = NULL;
		pthread_mutex_unlock(&mon_lock);
		return hlrt_fail(HLRT_UNSUPPORTED, "out of monitors for a communicator");
	}
	mon_table[slot].users++;
	pthread_mutex_unlock(&mon_lock);
	return HLRT_SUCCESS;
}

void hlrt_coll_put_monitors(hlrt_device *dev, uint32_t n, const uint32_t *mons)
{
	uint32_t i, k;

	pthread_mutex_lock(&mon_lock);
	for (i = 0; i < MAX_DEVS; i++) {
		if (mon_table[i].dev != dev)
			continue;
		for (k = 0; k < n; k++)
			mon_table[i].used[mons[k] / 8] &= (uint8_t)~(1u << (mons[k] % 8));
		if (!--mon_table[i].users)
			mon_table[i].dev = NULL;
	}
	pthread_mutex_unlock(&mon_lock);
}

/* ---- the ring -------------------------------------------------------------- */

static int cmp_box_module(const struct coll_record *a, const struct coll_record *b)
{
	if (a->box != b->box)
		return a->box < b->box ? -1 : 1;
	if (a->box % 2)		/* odd boxes run down the modules */
		return a->module > b->module ? -1 : a->module < b->module;
	return a->module < b->module ? -1 : a->module > b->module;
}

static hlrt_status link_to(hlrt_comm *c, uint32_t peer, struct coll_link *l, uint32_t stream)
{
	const struct coll_record *me = &c->peers[c->rank], *p = &c->peers[peer];
	int port;

	if (p->box == me->box) {
		port = gaudisim_nic_port_to(me->module, p->module);
	} else if (p->module == me->module) {
		port = GAUDISIM_NIC_FIRST_SCALEOUT;
	} else {
		return hlrt_fail(HLRT_UNSUPPORTED,
				 "ranks %u and %u are in different boxes on modules %u and %u: "
				 "scale-out ports link equal modules only", c->rank, peer,
				 me->module, p->module);
	}
	if (port < 0)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "ranks %u and %u share module %u of box %u",
				 c->rank, peer, me->module, me->box);
	l->rank = peer;
	l->port = (uint32_t)port;
	l->queue_data = GAUDISIM_QUEUE_ID_NIC_0_0 + GAUDISIM_STREAMS_PER_QMAN * port + stream;
	l->queue_credit = l->queue_data;
	return HLRT_SUCCESS;
}

hlrt_status hlrt_coll_ring_order(const struct coll_record *recs, uint32_t n, uint32_t *ring)
{
	uint32_t i, j;

	for (i = 0; i < n; i++)
		ring[i] = i;
	for (i = 1; i < n; i++) {	/* insertion sort: n <= 16 */
		uint32_t r = ring[i];

		for (j = i; j > 0 && cmp_box_module(&recs[r], &recs[ring[j - 1]]) < 0; j--)
			ring[j] = ring[j - 1];
		ring[j] = r;
	}
	for (i = 0; i < n && n > 1; i++) {
		const struct coll_record *a = &recs[ring[i]], *b = &recs[ring[(i + 1) % n]];

		if (a->box == b->box && a->module == b->module)
			return hlrt_fail(HLRT_INVALID_ARGUMENT,
					 "ranks %u and %u share module %u of box %u", a->rank,
					 b->rank, a->module, a->box);
		if (a->box == b->box &&
		    (a->module >= GAUDISIM_NIC_MAX_MODULES || b->module >= GAUDISIM_NIC_MAX_MODULES))
			return hlrt_fail(HLRT_INVALID_ARGUMENT, "module ID above %u",
					 GAUDISIM_NIC_MAX_MODULES - 1);
		if (a->box != b->box && a->module != b->module)
			return hlrt_fail(HLRT_UNSUPPORTED,
					 "the ring crosses from box %u module %u to box %u module %u: "
					 "scale-out ports link equal modules only (boxes need the "
					 "same modules)", a->box, a->module, b->box, b->module);
	}
	return HLRT_SUCCESS;
}

/*
 * The direct all-reduce links every rank to every other: inside one box
 * only (scale-out ports link equal modules), on stream 2 of each port.
 */
static hlrt_status make_direct_links(hlrt_comm *c)
{
	uint32_t i, n = c->nranks;
	hlrt_status st;

	for (i = 0; i < n; i++)
		if (c->peers[i].box != c->peers[c->rank].box)
			return HLRT_SUCCESS;
	for (i = 1; i < n; i++) {
		st = link_to(c, c->ring[(c->ring_pos + i) % n], &c->link[i], 2);
		if (st)
			return st;
	}
	c->direct_ok = true;
	return HLRT_SUCCESS;
}

static hlrt_status make_ring(hlrt_comm *c)
{
	uint32_t i, n = c->nranks;
	hlrt_status st = hlrt_coll_ring_order(c->peers, n, c->ring);

	if (st)
		return st;
	for (i = 0; i < n; i++)
		if (c->ring[i] == c->rank)
			c->ring_pos = i;
	if (n == 1)
		return HLRT_SUCCESS;
	/* data goes right on stream 0 of its port, credits left on stream 1 of theirs */
	st = link_to(c, c->ring[(c->ring_pos + 1) % n], &c->right, 0);
	if (!st)
		st = link_to(c, c->ring[(c->ring_pos + n - 1) % n], &c->left, 1);
	return st ? st : make_direct_links(c);
}

/* ---- device resources ------------------------------------------------------ */

static const char *const kernel_names[COLL_K_COUNT] = {
	[COLL_K_ADD_F32] = "add_f32", [COLL_K_ADD_BF16] = "vector_add_bf16",
	[COLL_K_ADD_I32] = "add_i32", [COLL_K_SUM_F32] = "coll_sum_f32",
	[COLL_K_SUM_BF16] = "coll_sum_bf16", [COLL_K_SUM_I32] = "coll_sum_i32",
};

static hlrt_status upload_kernels(hlrt_comm *c)
{
	uint64_t off = 0;
	uint8_t *img;
	hlrt_status st;
	uint32_t i;

	img = calloc(1, 1u << 16);
	if (!img)
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "communicator");
	/* hlrt_kernel_find() answers in one static: ranks may be threads */
	pthread_mutex_lock(&mon_lock);
	for (i = 0; i < COLL_K_COUNT; i++) {
		const struct hlrt_kernel *k = hlrt_kernel_find(kernel_names[i]);

		if (!k || off + k->size > (1u << 16)) {
			pthread_mutex_unlock(&mon_lock);
			free(img);
			return hlrt_fail(HLRT_INTERNAL, "kernel %s missing", kernel_names[i]);
		}
		memcpy(img + off, k->code, k->size);
		c->kernel_off[i] = off;
		c->kernel_size[i] = k->size;
		off = hlrt_align_up(off + k->size, 256);
	}
	pthread_mutex_unlock(&mon_lock);
	st = hlrt_device_malloc(c->dev, 1u << 16, &c->kernels_addr);
	if (!st)
		st = hlrt_memcpy_h2d(c->dev, c->kernels_addr, img, off);
	free(img);
	return st;
}

static uint64_t fence_addr(uint32_t queue)
{
	return GAUDISIM_CFG_BASE + GAUDISIM_QM_BLOCK(gaudisim_queue_engine(queue)) +
	       GAUDISIM_QM_CP_FENCE_RDATA(0, gaudisim_queue_stream(queue));
}

/* The NIC queue's COLL_NIC_MONS monitors release its fence. */
static void point_monitors(struct hlrt_pkt_buf *b, const uint32_t *mons, uint32_t queue)
{
	uint64_t addr = fence_addr(queue);
	uint32_t i;

	for (i = 0; i < COLL_NIC_MONS; i++) {
		hlrt_pkt_mon_reg(b, GAUDISIM_SYNC_MON_PAY_ADDRL(mons[i]), (uint32_t)addr);
		hlrt_pkt_mon_reg(b, GAUDISIM_SYNC_MON_PAY_ADDRH(mons[i]), (uint32_t)(addr >> 32));
		hlrt_pkt_mon_reg(b, GAUDISIM_SYNC_MON_PAY_DATA(mons[i]), 1);
	}
}

/*
 * zero: clear our sync objects (before the record is published: a peer
 * may signal them as soon as it read it); else point the NIC queues'
 * monitors at their fences.
 */
static hlrt_status setup_sync(hlrt_comm *c, bool zero)
{
	struct hlrt_be_ext ext = { 0 };
	struct hlrt_pkt_buf b;
	hlrt_status st;
	uint32_t i, q;

	if (hlrt_pkt_init(&b, 256))
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "communicator");
	for (i = 0; zero && i < COLL_SOB_SETS * COLL_SOBS_PER_SET; i++)
		hlrt_pkt_sob(&b, c->sob_first + i, GAUDISIM_SYNC_SOB_SET(0), 0);
	for (q = 0; q < 2 && c->nranks > 1 && !zero; q++)
		point_monitors(&b, c->nic_mon[q], q ? c->left.queue_credit : c->right.queue_data);
	for (q = 1; q < c->nranks && c->n_direct_mon && !zero; q++)
		point_monitors(&b, c->direct_mon[q - 1], c->link[q].queue_data);
	if (b.oom) {
		hlrt_pkt_free(&b);
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "communicator");
	}
	ext.body = b.dw;
	ext.n_body = b.n;
	st = hlrt_stream_submit(c->dev->sync_stream, NULL, 0, &ext);
	hlrt_pkt_free(&b);
	return st ? st : hlrt_stream_synchronize(c->dev->sync_stream);
}

static void release(hlrt_comm *c)
{
	/* Peers stop writing here before the memory and SOBs go back. */
	if (c->nic_reg)
		hlrt_device_nic_deregister(c->dev, c->nic_reg);
	if (c->recv_base)
		hlrt_device_free(c->dev, c->recv_base);
	if (c->kernels_addr)
		hlrt_device_free(c->dev, c->kernels_addr);
	if (c->cb_addr)
		hlrt_device_free(c->dev, c->cb_addr);
	if (c->scratch)
		hlrt_device_free(c->dev, c->scratch);
	if (c->sob_first)
		hlrt_device_put_sobs(c->dev, c->sob_first, COLL_SOB_SETS * COLL_SOBS_PER_SET);
	if (c->nic_mon[0][0])
		hlrt_coll_put_monitors(c->dev, 2 * COLL_NIC_MONS, &c->nic_mon[0][0]);
	if (c->n_direct_mon)
		hlrt_coll_put_monitors(c->dev, c->n_direct_mon, &c->direct_mon[0][0]);
	hlrt_coll_forget_cbs(c);
	free(c);
}

hlrt_status hlrt_comm_init_rank(hlrt_comm **comm, uint32_t nranks, const hlrt_comm_id *id,
				uint32_t rank, hlrt_device *device)
{
	struct coll_record me = { 0 };
	hlrt_comm *c;
	hlrt_status st;

	if (!comm || !id || !device)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_comm_init_rank: NULL argument");
	if (!nranks || nranks > COLL_MAX_RANKS || rank >= nranks)
		return hlrt_fail(HLRT_INVALID_ARGUMENT,
				 "hlrt_comm_init_rank: rank %u of %u (at most %u ranks)", rank,
				 nranks, COLL_MAX_RANKS);
	c = calloc(1, sizeof(*c));
	if (!c)
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "communicator");
	c->dev = device;
	c->rank = rank;
	c->nranks = nranks;
	st = hlrt_device_malloc(device, COLL_RECV_BYTES, &c->recv_base);
	if (!st)
		st = hlrt_device_malloc(device, (uint64_t)COLL_CB_AREAS * COLL_CB_AREA_BYTES,
					&c->cb_addr);
	if (!st)
		st = upload_kernels(c);
	if (!st)
		st = hlrt_device_take_sobs(device, COLL_SOB_SETS * COLL_SOBS_PER_SET, &c->sob_first);
	if (!st)
		st = setup_sync(c, true);
	/* Peers write our receive slots and raise our SOBs: nothing else of ours. */
	if (!st && nranks > 1)
		st = hlrt_device_nic_register(device, c->recv_base, COLL_RECV_BYTES, c->sob_first,
					      COLL_SOB_SETS * COLL_SOBS_PER_SET, &c->nic_reg);
	if (st)
		goto fail;
	me.rank = rank;
	me.box = hlrt_config_box_id();
	me.module = device->module_id;
	me.recv_base = c->recv_base;
	me.sob_first = c->sob_first;
	st = hlrt_coll_rendezvous(id, nranks, &me, c->peers);
	if (!st)
		st = make_ring(c);
	if (!st && nranks > 1)
		st = hlrt_coll_take_monitors(device, 2 * COLL_NIC_MONS, &c->nic_mon[0][0]);
	if (!st && c->direct_ok) {
		st = hlrt_coll_take_monitors(device, (nranks - 1) * COLL_NIC_MONS,
					     &c->direct_mon[0][0]);
		if (!st)
			c->n_direct_mon = (nranks - 1) * COLL_NIC_MONS;
	}
	if (!st && nranks > 1)
		st = setup_sync(c, false);
	if (st)
		goto fail;
	*comm = c;
	return HLRT_SUCCESS;
fail:
	release(c);
	return st;
}

hlrt_status hlrt_comm_destroy(hlrt_comm *comm)
{
	hlrt_status st = HLRT_SUCCESS;

	if (!comm)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_comm_destroy: NULL communicator");
	if (comm->last_stream && !comm->broken)
		st = hlrt_stream_synchronize(comm->last_stream);
	release(comm);
	return st;
}

hlrt_status hlrt_comm_rank(const hlrt_comm *comm, uint32_t *rank)
{
	if (!comm || !rank)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_comm_rank: NULL argument");
	*rank = comm->rank;
	return HLRT_SUCCESS;
}

hlrt_status hlrt_comm_count(const hlrt_comm *comm, uint32_t *nranks)
{
	if (!comm || !nranks)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_comm_count: NULL argument");
	*nranks = comm->nranks;
	return HLRT_SUCCESS;
}
