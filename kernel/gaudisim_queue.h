/* SPDX-License-Identifier: GPL-2.0 */
/*
 * External queues: per queue a PQ (ring of buffer descriptors) and a CQ
 * (ring of completion entries) in host coherent memory, a shadow table
 * mapping PQ slots to jobs, and the MSI-X vector of the CQ.
 */
#ifndef __GAUDISIM_QUEUE_H__
#define __GAUDISIM_QUEUE_H__

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include <hw/gaudisim_hw_packets.h>

struct gaudisim_device;
struct gaudisim_job;

/*
 * Ring entries per queue, a power of two. The shadow index carried in the
 * BD and echoed in the CQ entry is the PQ slot, so the ring must not be
 * longer than the shadow index field.
 */
#define GAUDISIM_QUEUE_LEN_LOG2	10
#define GAUDISIM_QUEUE_LEN		BIT(GAUDISIM_QUEUE_LEN_LOG2)

static_assert(GAUDISIM_QUEUE_LEN - 1 <= GAUDISIM_BD_CTL_SHADOW_INDEX_MASK);

/*
 * CP_MSG_BASE<n> of every stream: monitor arrays and SOB array. Gaudi's
 * driver points bases 0/1 at the E_N manager and 2/3 at the W_S manager,
 * where its reserved objects live; the one modelled sync manager stands
 * for both, so 2/3 name the same arrays as 0/1.
 */
#define GAUDISIM_MSG_BASE_MON	0
#define GAUDISIM_MSG_BASE_SOB	1
#define GAUDISIM_MSG_BASE_MON_W_S	2
#define GAUDISIM_MSG_BASE_SOB_W_S	3
static_assert(GAUDISIM_QUEUE_LEN_LOG2 >= GAUDISIM_QM_PQ_SIZE_LOG2_MIN);
static_assert(GAUDISIM_QUEUE_LEN_LOG2 <= GAUDISIM_QM_PQ_SIZE_LOG2_MAX);

/* struct gaudisim_bd with its byte order spelt out for sparse. */
struct gaudisim_bd_le {
	__le32 ctl;
	__le32 len;
	__le64 ptr;
};

static_assert(sizeof(struct gaudisim_bd_le) == GAUDISIM_BD_SIZE);
static_assert(offsetof(struct gaudisim_bd_le, ctl) == offsetof(struct gaudisim_bd, ctl));
static_assert(offsetof(struct gaudisim_bd_le, len) == offsetof(struct gaudisim_bd, len));
static_assert(offsetof(struct gaudisim_bd_le, ptr) == offsetof(struct gaudisim_bd, ptr));

/**
 * struct gaudisim_queue - one external queue and its completion queue
 * @gdev: owning device
 * @id: queue ID (= CQ index = MSI-X vector)
 * @engine: engine block of the QMAN
 * @stream: stream inside the QMAN
 * @present: the device implements this queue
 * @irq: Linux IRQ of the CQ's MSI-X vector, 0 when not requested
 * @irq_name: name shown in /proc/interrupts
 * @pq: PQ ring
 * @pq_dma: its bus address
 * @cq: CQ ring
 * @cq_dma: its bus address
 * @drain_lock: one drainer at a time (see gaudisim_queue_drain_cq())
 * @ringing: submitters between their doorbell and their drain of the CQ;
 *	while there is one, the interrupt leaves the CQ to it
 * @lock: see below
 * @pi: next PQ slot to fill, modulo 2 * GAUDISIM_QUEUE_LEN
 * @ci: oldest slot whose job has not completed, same modulus
 * @shadow: GAUDISIM_QUEUE_LEN entries: job occupying each slot, NULL when free
 * @slot_cb: GAUDISIM_QUEUE_LEN entries: the CB each slot ran last and its
 *	context's ASID, kept after the job completes so that an error event
 *	handled later still finds whose CB failed
 */
struct gaudisim_queue {
	struct gaudisim_device *gdev;
	u32 id;
	u32 engine;
	u32 stream;
	bool present;
	int irq;
	char irq_name[32];

	struct gaudisim_bd_le *pq;
	dma_addr_t pq_dma;
	__le32 *cq;
	dma_addr_t cq_dma;

	/* Serialises drainers: completions stay in slot order. */
	struct mutex drain_lock;
	atomic_t ringing;
	/*
	 * Protects @pi, @ci and @shadow between the submitter (which also
	 * holds gdev->submit_lock), the CQ interrupt thread and reset.
	 */
	spinlock_t lock;
	u32 pi;
	u32 ci;
	struct gaudisim_job **shadow;
	struct gaudisim_slot_cb {
		u64 addr;
		u32 size;
		u32 asid;
	} *slot_cb;
};

/*
 * Internal queues (HBM-DMA, MME, TPC): a PQ ring in host memory whose BDs
 * point at CBs the user placed in HBM or SRAM. No completion tail, no
 * shadow table: an internal job is done when its CS's external jobs are.
 */
#define GAUDISIM_IQUEUE_LEN_LOG2	8
#define GAUDISIM_IQUEUE_LEN		BIT(GAUDISIM_IQUEUE_LEN_LOG2)

static_assert(GAUDISIM_IQUEUE_LEN_LOG2 >= GAUDISIM_QM_PQ_SIZE_LOG2_MIN);
static_assert(GAUDISIM_IQUEUE_LEN_LOG2 <= GAUDISIM_QM_PQ_SIZE_LOG2_MAX);

/**
 * struct gaudisim_iqueue - one internal queue
 * @gdev: owning device
 * @id: queue ID
 * @engine: engine block of the QMAN
 * @stream: stream inside the QMAN
 * @present: the device implements this queue
 * @pq: PQ ring
 * @pq_dma: its bus address
 * @pi: next PQ slot to fill, modulo 2 * GAUDISIM_IQUEUE_LEN (under submit_lock)
 * @pushed: BDs pushed since probe (under submit_lock); a job's ticket is
 *          the count after its own BD
 */
struct gaudisim_iqueue {
	struct gaudisim_device *gdev;
	u32 id;
	u32 engine;
	u32 stream;
	bool present;
	struct gaudisim_bd_le *pq;
	dma_addr_t pq_dma;
	u32 pi;
	u64 pushed;
};

int gaudisim_queues_init(struct gaudisim_device *gdev);
void gaudisim_queues_hw_init(struct gaudisim_device *gdev);
u32 gaudisim_queue_free_slots(struct gaudisim_queue *q);
bool gaudisim_queue_busy(struct gaudisim_queue *q);
u32 gaudisim_queue_cb_asid(struct gaudisim_queue *q, u64 addr);
void gaudisim_queue_snapshot(struct gaudisim_queue *q, u32 *pi, u32 *ci);
void gaudisim_queue_push(struct gaudisim_queue *q, struct gaudisim_job *job);
void gaudisim_queue_ring_doorbell(struct gaudisim_queue *q);
void gaudisim_queue_doorbell_drain(struct gaudisim_queue *q);
void gaudisim_queue_drain_cq(struct gaudisim_queue *q);
bool gaudisim_queue_cq_ready(struct gaudisim_queue *q);
void gaudisim_queue_abort(struct gaudisim_queue *q);

u32 gaudisim_iqueue_free_slots(struct gaudisim_iqueue *q);
bool gaudisim_iqueue_busy(struct gaudisim_iqueue *q);
bool gaudisim_iqueue_job_done(struct gaudisim_iqueue *q, u64 ticket);
void gaudisim_iqueue_push(struct gaudisim_iqueue *q, struct gaudisim_job *job);
void gaudisim_iqueue_ring_doorbell(struct gaudisim_iqueue *q);

#endif /* __GAUDISIM_QUEUE_H__ */
