/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: the pool of host worker threads that runs engine
 * work (MME GEMMs, TPC kernels, HBM-DMA transfers) off the caller's thread.
 *
 * A work item is submitted by the thread that owns the core (in QEMU: the
 * main loop, with the BQL), runs once on some worker, and comes back on the
 * pool's done list, which only the owning thread drains. The pool tells its
 * host that work finished through a callback that may be called from any
 * worker (QEMU: qemu_bh_schedule(), which is thread-safe).
 *
 * Cancellation is cooperative and synchronous: gsim_pool_cancel() sets the
 * item's cancel flag, takes it off the queue or the done list, and waits
 * for a worker that is running it to return. Long work polls
 * gsim_work_cancelled() between steps, so the wait is one step. When
 * gsim_pool_cancel() returns, no worker touches anything of the item's any
 * more: its results are dropped.
 *
 * Plain pthreads, no QEMU headers: the unit tests and benches link it.
 */
#ifndef GSIM_POOL_H
#define GSIM_POOL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

enum gsim_work_state {
	GSIM_WORK_IDLE,		/* not in the pool */
	GSIM_WORK_QUEUED,	/* waiting for a worker */
	GSIM_WORK_RUNNING,	/* a worker runs fn() */
	GSIM_WORK_DONE,		/* on the done list, not taken yet */
};

struct gsim_work {
	/* Runs on a worker; must touch only what the submitter handed over. */
	void (*fn)(struct gsim_work *w);
	/* Set by gsim_pool_cancel(); fn() returns early when it sees it. */
	atomic_bool cancel;
	/* Pool-private, under the pool's lock. */
	enum gsim_work_state state;
	struct gsim_work *next;
};

struct gsim_pool;

/*
 * Start 'threads' workers (>= 1). notify(opaque) is called by a worker
 * after each item it put on the done list (may be NULL). NULL on failure.
 */
struct gsim_pool *gsim_pool_new(unsigned int threads, void (*notify)(void *opaque),
				void *opaque);
/* Stop and join the workers; items still queued are dropped unrun. */
void gsim_pool_free(struct gsim_pool *pool);
unsigned int gsim_pool_threads(const struct gsim_pool *pool);

/* Queue w (which must be IDLE) for a worker. */
void gsim_pool_submit(struct gsim_pool *pool, struct gsim_work *w);
/* Drop w wherever it is (see the top of this file); IDLE afterwards. */
void gsim_pool_cancel(struct gsim_pool *pool, struct gsim_work *w);
/* The oldest finished item (now IDLE), or NULL. Owner thread only. */
struct gsim_work *gsim_pool_take_done(struct gsim_pool *pool);
/*
 * Wait up to timeout_ns for a finished item. true when one is on the done
 * list; false on timeout or when nothing is queued or running.
 */
bool gsim_pool_wait_done(struct gsim_pool *pool, uint64_t timeout_ns);
/* Items queued or running right now. */
unsigned int gsim_pool_in_flight(struct gsim_pool *pool);

static inline bool gsim_work_cancelled(const struct gsim_work *w)
{
	return atomic_load_explicit(&w->cancel, memory_order_relaxed);
}

#endif /* GSIM_POOL_H */
