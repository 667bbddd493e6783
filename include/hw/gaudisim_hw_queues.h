/* SPDX-License-Identifier: MIT */
/*
 * gaudisim hardware contract: engines and queue IDs.
 *
 * Queue IDs are Gaudi's: every QMAN has 4 streams, one queue ID each.
 * 0..7 are the external (PCI-DMA) queues whose PQ, CB and completion queue
 * live in host memory; 8 is Gaudi's device-CPU queue, kept as a hole so the
 * numbering matches; 9..72 are internal queues (HBM-DMA, the two MMEs, TPC) and
 * 73..112 the NIC ports' queues (gaudisim_hw_nic.h).
 */
#ifndef GAUDISIM_HW_QUEUES_H
#define GAUDISIM_HW_QUEUES_H

#define GAUDISIM_STREAMS_PER_QMAN	4

/* Engine indices: the engine block index in the register map. */
enum gaudisim_engine_id {
	GAUDISIM_ENGINE_DMA_0 = 0,	/* PCI DMA, external queues */
	GAUDISIM_ENGINE_DMA_1 = 1,	/* PCI DMA, external queues */
	GAUDISIM_ENGINE_DMA_2 = 2,	/* HBM DMA 2..7, internal queues */
	GAUDISIM_ENGINE_DMA_7 = 7,
	GAUDISIM_ENGINE_MME = 8,	/* MME 0: queues 33..36 */
	GAUDISIM_ENGINE_MME_1 = 9,	/* MME 1: queues 37..40 */
	GAUDISIM_ENGINE_TPC_0 = 10,	/* TPC 0..7 */
	GAUDISIM_ENGINE_TPC_7 = 17,
	GAUDISIM_ENGINE_NIC_0 = 18,	/* NIC ports 0..9 */
	GAUDISIM_ENGINE_NIC_9 = 27,
	GAUDISIM_ENGINE_COUNT = 28,
};

#define GAUDISIM_NUM_PCI_DMA		2
#define GAUDISIM_NUM_HBM_DMA		6
#define GAUDISIM_NUM_MME		2	/* Gaudi's two master MMEs, a QMAN each */
#define GAUDISIM_NUM_TPC		8
#define GAUDISIM_NUM_NIC		10

enum gaudisim_queue_id {
	GAUDISIM_QUEUE_ID_DMA_0_0 = 0,	/* external: DMA_0 streams 0..3 */
	GAUDISIM_QUEUE_ID_DMA_0_3 = 3,
	GAUDISIM_QUEUE_ID_DMA_1_0 = 4,	/* external: DMA_1 streams 0..3 */
	GAUDISIM_QUEUE_ID_DMA_1_3 = 7,
	GAUDISIM_QUEUE_ID_CPU_PQ = 8,	/* reserved (Gaudi's device-CPU queue) */
	GAUDISIM_QUEUE_ID_DMA_2_0 = 9,	/* internal: DMA_2..7, 4 streams each */
	GAUDISIM_QUEUE_ID_MME_0 = 33,	/* internal: MME 0 streams 0..3 */
	GAUDISIM_QUEUE_ID_MME_1 = 37,	/* internal: MME 1 streams 0..3 */
	GAUDISIM_QUEUE_ID_TPC_0_0 = 41,	/* internal: TPC n stream s = 41 + 4n + s */
	GAUDISIM_QUEUE_ID_NIC_0_0 = 73,	/* internal: NIC port n stream s = 73 + 4n + s */
	GAUDISIM_QUEUE_ID_SIZE = 113,
};

#define GAUDISIM_NUM_EXT_QUEUES		8	/* queue IDs 0..7 */
/* One completion queue per external queue: CQ i belongs to queue ID i. */
#define GAUDISIM_NUM_CQ			GAUDISIM_NUM_EXT_QUEUES

#define GAUDISIM_QUEUE_IS_EXTERNAL(q)	((q) < GAUDISIM_NUM_EXT_QUEUES)

/*
 * Map a queue ID to its engine and stream. Returns the engine index, or -1
 * for IDs that name no queue (8, out of range).
 */
static inline int gaudisim_queue_engine(unsigned int q)
{
	if (q < GAUDISIM_QUEUE_ID_CPU_PQ)
		return (int)(q / GAUDISIM_STREAMS_PER_QMAN);
	if (q >= GAUDISIM_QUEUE_ID_DMA_2_0 && q < GAUDISIM_QUEUE_ID_MME_0)
		return GAUDISIM_ENGINE_DMA_2 +
		       (int)((q - GAUDISIM_QUEUE_ID_DMA_2_0) / GAUDISIM_STREAMS_PER_QMAN);
	if (q >= GAUDISIM_QUEUE_ID_MME_0 && q < GAUDISIM_QUEUE_ID_TPC_0_0)
		return GAUDISIM_ENGINE_MME +
		       (int)((q - GAUDISIM_QUEUE_ID_MME_0) / GAUDISIM_STREAMS_PER_QMAN);
	if (q >= GAUDISIM_QUEUE_ID_TPC_0_0 && q < GAUDISIM_QUEUE_ID_NIC_0_0)
		return GAUDISIM_ENGINE_TPC_0 +
		       (int)((q - GAUDISIM_QUEUE_ID_TPC_0_0) / GAUDISIM_STREAMS_PER_QMAN);
	if (q >= GAUDISIM_QUEUE_ID_NIC_0_0 && q < GAUDISIM_QUEUE_ID_SIZE)
		return GAUDISIM_ENGINE_NIC_0 +
		       (int)((q - GAUDISIM_QUEUE_ID_NIC_0_0) / GAUDISIM_STREAMS_PER_QMAN);
	return -1;
}

static inline unsigned int gaudisim_queue_stream(unsigned int q)
{
	if (q >= GAUDISIM_QUEUE_ID_NIC_0_0)
		return (q - GAUDISIM_QUEUE_ID_NIC_0_0) % GAUDISIM_STREAMS_PER_QMAN;
	if (q >= GAUDISIM_QUEUE_ID_TPC_0_0)
		return (q - GAUDISIM_QUEUE_ID_TPC_0_0) % GAUDISIM_STREAMS_PER_QMAN;
	if (q >= GAUDISIM_QUEUE_ID_DMA_2_0)
		return (q - GAUDISIM_QUEUE_ID_DMA_2_0) % GAUDISIM_STREAMS_PER_QMAN;
	return q % GAUDISIM_STREAMS_PER_QMAN;
}

/* Queue ID of stream s of engine e's QMAN: the inverse of the two above. */
static inline unsigned int gaudisim_engine_queue_id(unsigned int e, unsigned int s)
{
	if (e < GAUDISIM_ENGINE_DMA_2)
		return e * GAUDISIM_STREAMS_PER_QMAN + s;
	if (e < GAUDISIM_ENGINE_MME)
		return GAUDISIM_QUEUE_ID_DMA_2_0 +
		       (e - GAUDISIM_ENGINE_DMA_2) * GAUDISIM_STREAMS_PER_QMAN + s;
	if (e <= GAUDISIM_ENGINE_MME_1)
		return GAUDISIM_QUEUE_ID_MME_0 +
		       (e - GAUDISIM_ENGINE_MME) * GAUDISIM_STREAMS_PER_QMAN + s;
	if (e < GAUDISIM_ENGINE_NIC_0)
		return GAUDISIM_QUEUE_ID_TPC_0_0 +
		       (e - GAUDISIM_ENGINE_TPC_0) * GAUDISIM_STREAMS_PER_QMAN + s;
	return GAUDISIM_QUEUE_ID_NIC_0_0 +
	       (e - GAUDISIM_ENGINE_NIC_0) * GAUDISIM_STREAMS_PER_QMAN + s;
}

/* Engine names as habanalabs prints them (DMA0, MME0, TPC3, NIC9); "?" past the end. */
static inline const char *gaudisim_engine_name(unsigned int e)
{
	static const char *const names[GAUDISIM_ENGINE_COUNT] = {
		"DMA0", "DMA1", "DMA2", "DMA3", "DMA4", "DMA5", "DMA6", "DMA7", "MME0",
		"MME1", "TPC0", "TPC1", "TPC2", "TPC3", "TPC4", "TPC5", "TPC6", "TPC7",
		"NIC0", "NIC1", "NIC2", "NIC3", "NIC4", "NIC5", "NIC6", "NIC7", "NIC8", "NIC9",
	};

	return e < GAUDISIM_ENGINE_COUNT ? names[e] : "?";
}

/* The kinds of engine, for per-kind accounting (DRM fdinfo's drm-engine-<class>). */
enum gaudisim_engine_class {
	GAUDISIM_ENGINE_CLASS_DMA,
	GAUDISIM_ENGINE_CLASS_MME,
	GAUDISIM_ENGINE_CLASS_TPC,
	GAUDISIM_ENGINE_CLASS_NIC,
	GAUDISIM_ENGINE_CLASS_COUNT,
};

static inline enum gaudisim_engine_class gaudisim_engine_class(unsigned int e)
{
	if (e <= GAUDISIM_ENGINE_DMA_7)
		return GAUDISIM_ENGINE_CLASS_DMA;
	if (e <= GAUDISIM_ENGINE_MME_1)
		return GAUDISIM_ENGINE_CLASS_MME;
	if (e < GAUDISIM_ENGINE_NIC_0)
		return GAUDISIM_ENGINE_CLASS_TPC;
	return GAUDISIM_ENGINE_CLASS_NIC;
}

#endif /* GAUDISIM_HW_QUEUES_H */
