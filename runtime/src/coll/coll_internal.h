/* SPDX-License-Identifier: MIT */
/*
 * Collectives inside libhlrt: the communicator, the rendezvous records,
 * the ring plans and their command buffers. docs/collectives.md has the
 * design; this header is the contract between coll_*.c.
 */
#ifndef HLRT_COLL_INTERNAL_H
#define HLRT_COLL_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "exec/exec.h"

#define COLL_MAX_RANKS		16	/* two boxes of eight */
#define COLL_SLOTS		4	/* receive slots per communicator */
#define COLL_SLOT_BYTES		(1u << 20)	/* the largest chunk */
#define COLL_NUM_TPC		4	/* TPCs the sums are spread over */
#define COLL_CB_AREAS		4	/* launches whose CBs may be in flight */
#define COLL_CB_AREA_BYTES	(4u << 20)
#define COLL_MAX_CHUNKS		2048	/* chunks a rank receives per launch */
#define COLL_NIC_MONS		4	/* monitors per NIC queue */
#define COLL_MAX_JOBS		8	/* queues one launch uses */

/*
 * Sync objects of one parity set (16, two groups). ARRIVE and CREDIT
 * are raised by peers through their NICs; the rest by this device.
 */
enum coll_sob {
	COLL_SOB_START = 0,	/* the external job started the launch */
	COLL_SOB_ARRIVE,	/* chunks landed in the receive slots */
	COLL_SOB_CREDIT,	/* slots the right neighbour freed */
	COLL_SOB_DMA,		/* DMA jobs done (copies) */
	COLL_SOB_TPC0,		/* sums done on TPC k: COLL_SOB_TPC0 + k */
	COLL_SOB_SENT = COLL_SOB_TPC0 + COLL_NUM_TPC,	/* data transfers done */
	COLL_SOB_CREDITED,	/* credits sent back */
	COLL_SOBS_PER_SET = 16,
};

/* What a rank publishes at the rendezvous. */
struct coll_record {
	uint32_t rank, box, module;
	uint64_t recv_base;		/* COLL_SLOTS slots of COLL_SLOT_BYTES */
	uint32_t sob_first;		/* two sets of COLL_SOBS_PER_SET */
};

/* The calls, as they name a launch's key. */
enum coll_op {
	COLL_OP_ALL_REDUCE = 1,
	COLL_OP_REDUCE_SCATTER,
	COLL_OP_ALL_GATHER,
	COLL_OP_BROADCAST,
	COLL_OP_BARRIER,
};

/*
 * What one launch's command buffers are a function of, besides the
 * communicator and the parity: equal keys, equal CBs. A call repeated on
 * the same buffers (a training step's gradients) resubmits the CBs an
 * earlier launch left in a CB area instead of planning, emitting and
 * uploading them again.
 */
struct coll_key {
	enum coll_op op;
	hlrt_dtype dtype;
	uint64_t send, recv, count;	/* the call's arguments */
	uint64_t first;			/* the piece: its first element */
	uint64_t aux;			/* broadcast's root, reduce-scatter's scratch */
};

/* What a CB area holds: the launch of key on parity, ready to resubmit. */
struct coll_cached {
	bool valid;
	struct coll_key key;
	uint32_t parity;
	struct hlrt_be_job jobs[COLL_MAX_JOBS];
	uint32_t n_jobs;
	uint32_t *ext;			/* the external job's body */
	uint32_t n_ext;
	uint64_t last_use;		/* launch number, for the least recently used */
};

/* The path of one peer: which port of ours, which stream of it. */
struct coll_link {
	uint32_t rank;
	uint32_t port;
	uint32_t queue_data;	/* NIC queue sending data to it */
	uint32_t queue_credit;	/* NIC queue sending credits to it */
};

struct hlrt_comm {
	hlrt_device *dev;
	uint32_t rank, nranks;
	struct coll_record peers[COLL_MAX_RANKS];
	uint32_t ring[COLL_MAX_RANKS];	/* ring order: ranks */
	uint32_t ring_pos;		/* this rank's index in ring[] */
	struct coll_link right, left;	/* ring neighbours (data right, credits left) */
	uint64_t recv_base;		/* our receive slots */
	uint64_t kernels_addr;		/* add kernels in HBM */
	uint64_t kernel_off[3];		/* per dtype */
	uint32_t kernel_size[3];
	uint64_t cb_addr;		/* COLL_CB_AREAS areas */
	uint64_t cb_seq[COLL_CB_AREAS];	/* the launch using each area */
	struct coll_cached cached[COLL_CB_AREAS];	/* what each area holds */
	uint64_t launches;		/* launches submitted */
	uint64_t relaunches;		/* of them, CBs resubmitted from an area */
	uint64_t scratch;		/* reduce-scatter's working copy */
	uint64_t scratch_size;
	uint32_t sob_first;
	uint64_t nic_reg;		/* what peers may write here, 0: not registered */
	uint32_t nic_mon[2][COLL_NIC_MONS];	/* data and credit queues' monitors */
	uint32_t parity;
	bool broken;			/* a launch failed: no more launches */
	hlrt_stream *last_stream;	/* of the last launch */
};

/* ---- rendezvous (coll_bootstrap.c) --------------------------------------- */

/* Publish rec under id and read every rank's record into all[nranks]. */
hlrt_status hlrt_coll_rendezvous(const hlrt_comm_id *id, uint32_t nranks,
			    const struct coll_record *rec, struct coll_record *all);

/* ---- resources (coll_comm.c) --------------------------------------------- */

/*
 * The ring through n records: box 0 up the module IDs, box 1 down, ...;
 * fails when two neighbours cannot be linked (same module of one box, or
 * different modules of two boxes).
 */
hlrt_status hlrt_coll_ring_order(const struct coll_record *recs, uint32_t n, uint32_t *ring);
/* Monitors outside the runtime's queue pools, per device. */
hlrt_status hlrt_coll_take_monitors(hlrt_device *dev, uint32_t n, uint32_t *mons);
void hlrt_coll_put_monitors(hlrt_device *dev, uint32_t n, const uint32_t *mons);

/* ---- plans (coll_plan.c) ------------------------------------------------- */

enum coll_engine {
	COLL_ON_DMA = 0,
	COLL_ON_TPC,	/* + tpc index */
};

/* A counter reaching a value: the k-th job of a queue finished. */
struct coll_dep {
	uint32_t sob;		/* enum coll_sob, or COLL_DEP_NONE */
	uint32_t value;
};
#define COLL_DEP_NONE	0xffffffffu

/* The j-th chunk this rank receives: where it goes, and how. */
struct coll_recv {
	uint64_t dst;		/* device address in the working buffer */
	uint32_t bytes;
	bool reduce;		/* dst = dst + slot; else dst = slot */
	uint32_t tpc;		/* reduce: the TPC */
	struct coll_dep done;	/* filled in by the plan: its completion */
};

/* The j-th chunk this rank sends: from where, after what. */
struct coll_send {
	uint64_t src;
	uint32_t bytes;
	struct coll_dep after;
};

/* A device-side copy before (pre) or after (post) the ring. */
struct coll_copy {
	uint64_t dst, src, bytes;
};

struct coll_plan {
	hlrt_dtype dtype;
	struct coll_recv *recv;
	uint32_t n_recv;
	struct coll_send *send;
	uint32_t n_send;
	struct coll_copy pre[COLL_MAX_RANKS], post[2];
	uint32_t n_pre, n_post;
	/*
	 * TPCs the sums are dealt over (0: all): as many as a ring step has
	 * chunks, since one step's sums are the only ones that can run at
	 * once; an idle TPC would still cost its job in the submission.
	 */
	uint32_t tpcs;
	/* filled in by hlrt_coll_plan_finish: jobs per engine */
	uint32_t n_dma, n_tpc[COLL_NUM_TPC];
};

/* Segment r of the ring: rank ring[r]'s block (address and elements). */
struct coll_segs {
	uint64_t addr[COLL_MAX_RANKS];
	uint64_t elems[COLL_MAX_RANKS];
};

/* Ring reduce-scatter (rs) and/or all-gather (ag) over segs, in place. */
hlrt_status hlrt_coll_plan_ring(const hlrt_comm *c, struct coll_plan *p, const struct coll_segs *segs,
			   bool rs, bool ag);
/* A pipelined chain from the root's buffer through the ring. */
hlrt_status hlrt_coll_plan_chain(const hlrt_comm *c, struct coll_plan *p, uint32_t root,
			    uint64_t addr, uint64_t bytes);
/* Count the engine jobs and set the completion of every receive. */
void hlrt_coll_plan_finish(struct coll_plan *p);
void hlrt_coll_plan_free(struct coll_plan *p);
/* Receives a ring over segs of this many elements costs (for splitting). */
uint64_t hlrt_coll_ring_chunks(const hlrt_comm *c, uint64_t max_seg_bytes, bool rs, bool ag);

/* ---- command buffers (coll_emit.c) --------------------------------------- */

/*
 * Build the plan's CBs and submit them on stream as one launch; with a
 * key, the CB area remembers them for hlrt_coll_relaunch().
 */
hlrt_status hlrt_coll_launch(hlrt_comm *c, const struct coll_plan *p, hlrt_stream *stream,
			     const struct coll_key *key);
/*
 * The launch of key on this parity again, if a CB area still holds it:
 * *done tells whether it was submitted (then no plan is needed).
 */
hlrt_status hlrt_coll_relaunch(hlrt_comm *c, const struct coll_key *key, hlrt_stream *stream,
			       bool *done);
/* Forget what the CB areas hold (the communicator goes). */
void hlrt_coll_forget_cbs(hlrt_comm *c);

static inline uint32_t coll_dtype_size(hlrt_dtype t)
{
	return t == HLRT_BF16 ? 2 : 4;
}

#endif /* HLRT_COLL_INTERNAL_H */
