/* SPDX-License-Identifier: MIT */
/*
 * Collectives inside libhlrt: the communicator, the rendezvous records,
 * the ring plans, the direct all-reduce and their command buffers. docs/collectives.md has the
 * design; this header is the contract between coll_*.c.
 */
#ifndef HLRT_COLL_INTERNAL_H
#define HLRT_COLL_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "device/hlrt_cb.h"
#include "exec/exec.h"

#define COLL_MAX_RANKS		16	/* two boxes of eight */
#define COLL_SLOTS		4	/* receive slots per communicator */
#define COLL_SLOT_BYTES		(1u << 20)	/* the largest chunk */
#define COLL_NUM_TPC		4	/* TPCs the sums are spread over */
#define COLL_CB_AREAS		4	/* launches whose CBs may be in flight */
#define COLL_CB_AREA_BYTES	(4u << 20)
#define COLL_MAX_CHUNKS		2048	/* chunks a rank receives per launch */
#define COLL_NIC_MONS		4	/* monitors per NIC queue */
#define COLL_MAX_JOBS		16	/* queues one launch uses */
/*
 * The direct all-reduce's receive area, after the ring's slots: two
 * halves, one per direct parity, each holding a block from every peer for
 * the reduce-scatter and one for the all-gather.
 */
#define COLL_DIRECT_BYTES	(4u << 20)
#define COLL_RECV_BYTES		((uint64_t)COLL_SLOTS * COLL_SLOT_BYTES + COLL_DIRECT_BYTES)
/* Sync-object sets: two for the ring's parities, two for the direct ones. */
#define COLL_SOB_SETS		4

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
	COLL_SOB_GATHERED,	/* direct: all-gather blocks landed */
	COLL_SOBS_PER_SET = 16,
};

/* The TPC kernels a communicator loads: the ring's adds, the direct sums. */
enum coll_kernel {
	COLL_K_ADD_F32, COLL_K_ADD_BF16, COLL_K_ADD_I32,
	COLL_K_SUM_F32, COLL_K_SUM_BF16, COLL_K_SUM_I32,
	COLL_K_COUNT
};

/* What a rank publishes at the rendezvous. */
struct coll_record {
	uint32_t rank, box, module;
	uint64_t recv_base;		/* COLL_RECV_BYTES: the slots, the direct area */
	uint32_t sob_first;		/* COLL_SOB_SETS sets of COLL_SOBS_PER_SET */
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
	bool direct;			/* the direct algorithm (its own parity) */
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
	/*
	 * The direct all-reduce: every rank of one box linked to every other
	 * (stream 2 of the port to it), with monitors at each queue's fence.
	 */
	bool direct_ok;
	struct coll_link link[COLL_MAX_RANKS];	/* by ring position */
	uint32_t direct_mon[COLL_MAX_RANKS][COLL_NIC_MONS];
	uint32_t n_direct_mon;		/* monitors taken for them */
	uint32_t direct_parity;
	uint64_t recv_base;		/* our receive slots */
	uint64_t kernels_addr;		/* the add and sum kernels in HBM */
	uint64_t kernel_off[COLL_K_COUNT];
	uint32_t kernel_size[COLL_K_COUNT];
	uint64_t cb_addr;		/* COLL_CB_AREAS areas */
	uint64_t cb_seq[COLL_CB_AREAS];	/* the launch using each area */
	struct coll_cached cached[COLL_CB_AREAS];	/* what each area holds */
	uint64_t launches;		/* launches submitted */
	uint64_t relaunches;		/* of them, CBs resubmitted from an area */
	uint64_t direct_launches;	/* of them, direct all-reduces */
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

/* A wait of a launch: counter `which` of its set at least value (0: none). */
struct coll_cond {
	uint32_t which;		/* enum coll_sob */
	uint32_t value;
};

/*
 * A launch being built: one packet buffer per queue it uses, on the
 * sync-object set of its algorithm's parity. Every queue's first wait
 * starts it after the launch's START (or what implies it), so nothing of
 * launch k+1 runs before launch k is done on this stream.
 */
struct coll_launch {
	hlrt_comm *c;
	bool direct;		/* the direct algorithm's parity and sets */
	uint32_t set;		/* first SOB of the launch's set */
	uint32_t n_q;
	struct hlrt_pkt_buf q[COLL_MAX_JOBS];
	uint32_t queue[COLL_MAX_JOBS];
	const uint32_t *pool[COLL_MAX_JOBS];	/* monitors for the queue's waits */
	uint32_t pool_n[COLL_MAX_JOBS];
	bool used[COLL_MAX_JOBS];		/* submitted (else left out) */
};

/* The set of sync objects a launch of this algorithm uses now (absolute). */
uint32_t hlrt_coll_set(const hlrt_comm *c, uint32_t rank, bool direct);
hlrt_status hlrt_coll_launch_init(struct coll_launch *l, hlrt_comm *c, bool direct);
/* Add a queue (monitors: pool, or the runtime's pool of the queue); its index. */
uint32_t hlrt_coll_add_queue(struct coll_launch *l, uint32_t queue, const uint32_t *pool,
			     uint32_t pool_n);
void hlrt_coll_wait(struct coll_launch *l, uint32_t qi, const struct coll_cond *cs, uint32_t n);
/* +1 on counter which once the queue's engine is idle. */
void hlrt_coll_signal(struct coll_launch *l, uint32_t qi, uint32_t which);
/* A DMA copy on queue qi, then +1 on which. */
void hlrt_coll_copy(struct coll_launch *l, uint32_t qi, uint64_t dst, uint64_t src,
		    uint64_t bytes, uint32_t which);
/* A NIC transfer into a peer's dst, raising its remote_sob, then +1 on done. */
void hlrt_coll_xfer(struct coll_launch *l, uint32_t qi, uint64_t src, uint64_t dst,
		    uint32_t bytes, uint32_t remote_sob, uint32_t done);
/*
 * A TPC job of the communicator's kernel ki (enum coll_kernel) over
 * tensors of elems elements (T0..T7 at base[]; nt used, the rest copies
 * of T0), ARG0 = arg0, members of 4096 elements (64 for BF16's add).
 */
void hlrt_coll_tpc(struct coll_launch *l, uint32_t qi, enum coll_kernel ki, hlrt_dtype dt,
		   const uint64_t *base, uint32_t nt, uint32_t elems, uint32_t arg0);
/*
 * Submit the launch on stream: the external job raises START, waits for
 * every total, clears them; with a key, the CB area remembers it for
 * hlrt_coll_relaunch(). Frees the queues' buffers.
 */
hlrt_status hlrt_coll_launch_submit(struct coll_launch *l, hlrt_stream *stream,
				    const struct coll_cond *totals, uint32_t n_totals,
				    const struct coll_key *key);
void hlrt_coll_launch_free(struct coll_launch *l);

/* The ring's and chain's plans as one launch on the stream. */
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

/* ---- the direct all-reduce (coll_direct.c) ------------------------------- */

/* Whether one direct launch can take count elements of dt on this communicator. */
bool hlrt_coll_direct_fits(const hlrt_comm *c, uint64_t count, hlrt_dtype dt);
/* The half of rank's direct area a launch on the current direct parity uses. */
uint64_t hlrt_coll_direct_area(const hlrt_comm *c, uint32_t rank);
/* recv = the sum of every rank's send (in place allowed), one launch. */
hlrt_status hlrt_coll_all_reduce_direct(hlrt_comm *c, uint64_t send, uint64_t recv,
					uint64_t count, hlrt_dtype dt, hlrt_stream *stream,
					const struct coll_key *key);

static inline uint32_t coll_dtype_size(hlrt_dtype t)
{
	return t == HLRT_BF16 ? 2 : 4;
}

#endif /* HLRT_COLL_INTERNAL_H */
