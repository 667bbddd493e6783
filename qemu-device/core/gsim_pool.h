/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: the pool of host worker threads that runs engine
 * work (MME GEMMs, TPC kernels, HBM-DMA transfers) off the caller's thread.
 *
 * One pool serves every device of a process that asks for the same number
 * of workers (gsim_pool_get_shared()): a box of eight devices on a host of
 * two CPUs runs two workers, not sixteen that compete for the same cores.
 * Each device is a client of the pool with its own done list and its own
 * callback; the queue is one, first in first out, across all clients.
 *
 * A work item is submitted through its client by the thread that owns that
 * client's core (in QEMU: the main loop, with the BQL), runs once on some
 * worker, and comes back on the client's done list, which only the owning
 * thread drains. The pool tells the client's host that work finished through
 * a callback that may be called from any worker (QEMU: qemu_bh_schedule(),
 * which is thread-safe).
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
	struct gsim_client *client;	/* set by gsim_pool_submit() */
	struct gsim_work *next;
};

struct gsim_pool;
/* One user's (one core's) share of a pool: its done list and callback. */
struct gsim_client;

/* Start 'threads' workers (>= 1). NULL on failure. */
struct gsim_pool *gsim_pool_new(unsigned int threads);
/* Stop and join the workers; the pool must have no clients left. */
void gsim_pool_free(struct gsim_pool *pool);
unsigned int gsim_pool_threads(const struct gsim_pool *pool);

/*
 * The process-wide pool of 'threads' workers, started on first use and
 * shared by every caller that asks for the same number; each call takes a
 * reference, gsim_pool_put_shared() drops it and stops the workers with the
 * last one. NULL on failure.
 */
struct gsim_pool *gsim_pool_get_shared(unsigned int threads);
void gsim_pool_put_shared(struct gsim_pool *pool);

/*
 * A new client of pool. notify(opaque) is called by a worker after each
 * item of this client it put on the client's done list (may be NULL).
 * NULL on failure.
 */
struct gsim_client *gsim_client_new(struct gsim_pool *pool, void (*notify)(void *opaque),
				    void *opaque);
/*
 * Drop the client's queued and finished items, wait for those a worker is
 * running (cancel them first with gsim_pool_cancel() to make that short;
 * their results are dropped too), then free it: no worker touches any of
 * its items afterwards.
 */
void gsim_client_free(struct gsim_client *client);
struct gsim_pool *gsim_client_pool(const struct gsim_client *client);

/* Queue w (which must be IDLE) for a worker. */
void gsim_pool_submit(struct gsim_client *client, struct gsim_work *w);
/* Drop w wherever it is (see the top of this file); IDLE afterwards. */
void gsim_pool_cancel(struct gsim_client *client, struct gsim_work *w);
/* The client's oldest finished item (now IDLE), or NULL. Owner thread only. */
struct gsim_work *gsim_pool_take_done(struct gsim_client *client);
/*
 * Wait up to timeout_ns for a finished item of the client. true when one is
 * on its done list; false on timeout or when it has nothing queued or
 * running.
 */
bool gsim_pool_wait_done(struct gsim_client *client, uint64_t timeout_ns);
/* The client's items queued or running right now. */
unsigned int gsim_pool_in_flight(struct gsim_client *client);

static inline bool gsim_work_cancelled(const struct gsim_work *w)
{
	return atomic_load_explicit(&w->cancel, memory_order_relaxed);
}

#endif /* GSIM_POOL_H */
