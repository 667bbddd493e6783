/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: the worker-thread pool (see gsim_pool.h).
 *
 * One mutex guards the queue, the done list and every item's state; the
 * workers sleep on 'wake', the owner thread sleeps on 'settled' when it
 * waits for a cancelled item to leave a worker or for any item to finish.
 * fn() and notify() run without the lock held.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "gsim_pool.h"

/*
 * Workers run at this nice value: on an oversubscribed host the threads
 * that keep the machine responsive (QEMU's vCPUs and main loop) get the
 * CPU first, engine work takes what is left.
 */
#define GSIM_POOL_NICE		10

struct gsim_pool {
	/* Protects queue_*, done_*, running, stop and every item's state/next. */
	pthread_mutex_t lock;
	pthread_cond_t wake;		/* an item was queued, or stop */
	pthread_cond_t settled;		/* an item finished running */
	struct gsim_work *queue_head, *queue_tail;
	struct gsim_work *done_head, *done_tail;
	unsigned int running;		/* items in fn() right now */
	bool stop;

	void (*notify)(void *opaque);
	void *opaque;
	unsigned int nthreads;
	pthread_t *threads;
};

static void list_append(struct gsim_work **head, struct gsim_work **tail, struct gsim_work *w)
{
	w->next = NULL;
	if (*tail)
		(*tail)->next = w;
	else
		*head = w;
	*tail = w;
}

static void list_remove(struct gsim_work **head, struct gsim_work **tail, struct gsim_work *w)
{
	struct gsim_work *prev = NULL, *it;

	for (it = *head; it && it != w; it = it->next)
		prev = it;
	if (!it)
		return;
	if (prev)
		prev->next = w->next;
	else
		*head = w->next;
	if (*tail == w)
		*tail = prev;
	w->next = NULL;
}

/* Lower this thread's priority (Linux: nice is per thread). Best effort. */
static void worker_lower_priority(void)
{
#ifdef __linux__
	int rc = setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), GSIM_POOL_NICE);

	(void)rc;	/* refused (e.g. by a sandbox): the worker runs as it is */
#endif
}

static void *worker_main(void *arg)
{
	struct gsim_pool *pool = arg;

	worker_lower_priority();
	pthread_mutex_lock(&pool->lock);
	for (;;) {
		struct gsim_work *w;

		while (!pool->stop && !pool->queue_head)
			pthread_cond_wait(&pool->wake, &pool->lock);
		if (pool->stop)
			break;
		w = pool->queue_head;
		list_remove(&pool->queue_head, &pool->queue_tail, w);
		w->state = GSIM_WORK_RUNNING;
		pool->running++;
		pthread_mutex_unlock(&pool->lock);

		w->fn(w);

		pthread_mutex_lock(&pool->lock);
		pool->running--;
		if (gsim_work_cancelled(w)) {
			/* The canceller waits for this and takes it back. */
			w->state = GSIM_WORK_IDLE;
			pthread_cond_broadcast(&pool->settled);
			continue;
		}
		w->state = GSIM_WORK_DONE;
		list_append(&pool->done_head, &pool->done_tail, w);
		pthread_cond_broadcast(&pool->settled);
		if (pool->notify) {
			pthread_mutex_unlock(&pool->lock);
			pool->notify(pool->opaque);
			pthread_mutex_lock(&pool->lock);
		}
	}
	pthread_mutex_unlock(&pool->lock);
	return NULL;
}

struct gsim_pool *gsim_pool_new(unsigned int threads, void (*notify)(void *opaque),
				void *opaque)
{
	struct gsim_pool *pool;
	unsigned int i;

	if (!threads)
		return NULL;
	pool = calloc(1, sizeof(*pool));
	if (!pool)
		return NULL;
	pool->threads = calloc(threads, sizeof(*pool->threads));
	if (!pool->threads) {
		free(pool);
		return NULL;
	}
	pool->notify = notify;
	pool->opaque = opaque;
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->wake, NULL);
	pthread_cond_init(&pool->settled, NULL);
	for (i = 0; i < threads; i++) {
		if (pthread_create(&pool->threads[i], NULL, worker_main, pool))
			break;
		pool->nthreads++;
	}
	if (pool->nthreads < threads) {
		gsim_pool_free(pool);
		return NULL;
	}
	return pool;
}

void gsim_pool_free(struct gsim_pool *pool)
{
	unsigned int i;

	if (!pool)
		return;
	pthread_mutex_lock(&pool->lock);
	pool->stop = true;
	pthread_cond_broadcast(&pool->wake);
	pthread_mutex_unlock(&pool->lock);
	for (i = 0; i < pool->nthreads; i++)
		pthread_join(pool->threads[i], NULL);
	pthread_cond_destroy(&pool->settled);
	pthread_cond_destroy(&pool->wake);
	pthread_mutex_destroy(&pool->lock);
	free(pool->threads);
	free(pool);
}

unsigned int gsim_pool_threads(const struct gsim_pool *pool)
{
	return pool ? pool->nthreads : 0;
}

void gsim_pool_submit(struct gsim_pool *pool, struct gsim_work *w)
{
	atomic_store(&w->cancel, false);
	pthread_mutex_lock(&pool->lock);
	w->state = GSIM_WORK_QUEUED;
	list_append(&pool->queue_head, &pool->queue_tail, w);
	pthread_cond_signal(&pool->wake);
	pthread_mutex_unlock(&pool->lock);
}

void gsim_pool_cancel(struct gsim_pool *pool, struct gsim_work *w)
{
	pthread_mutex_lock(&pool->lock);
	atomic_store(&w->cancel, true);
	switch (w->state) {
	case GSIM_WORK_QUEUED:
		list_remove(&pool->queue_head, &pool->queue_tail, w);
		break;
	case GSIM_WORK_RUNNING:
		while (w->state == GSIM_WORK_RUNNING)
			pthread_cond_wait(&pool->settled, &pool->lock);
		break;
	case GSIM_WORK_DONE:
		list_remove(&pool->done_head, &pool->done_tail, w);
		break;
	case GSIM_WORK_IDLE:
		break;
	}
	w->state = GSIM_WORK_IDLE;
	pthread_mutex_unlock(&pool->lock);
}

struct gsim_work *gsim_pool_take_done(struct gsim_pool *pool)
{
	struct gsim_work *w;

	pthread_mutex_lock(&pool->lock);
	w = pool->done_head;
	if (w) {
		list_remove(&pool->done_head, &pool->done_tail, w);
		w->state = GSIM_WORK_IDLE;
	}
	pthread_mutex_unlock(&pool->lock);
	return w;
}

bool gsim_pool_wait_done(struct gsim_pool *pool, uint64_t timeout_ns)
{
	struct timespec until;
	bool ready;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)(timeout_ns / 1000000000u);
	until.tv_nsec += (long)(timeout_ns % 1000000000u);
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&pool->lock);
	while (!pool->done_head && (pool->queue_head || pool->running)) {
		if (pthread_cond_timedwait(&pool->settled, &pool->lock, &until) == ETIMEDOUT)
			break;
	}
	ready = pool->done_head != NULL;
	pthread_mutex_unlock(&pool->lock);
	return ready;
}

unsigned int gsim_pool_in_flight(struct gsim_pool *pool)
{
	unsigned int n = 0;
	struct gsim_work *w;

	pthread_mutex_lock(&pool->lock);
	for (w = pool->queue_head; w; w = w->next)
		n++;
	n += pool->running;
	pthread_mutex_unlock(&pool->lock);
	return n;
}
