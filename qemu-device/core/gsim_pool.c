/* SPDX-License-Identifier: MIT */
/*
 * gaudisim device core: the worker-thread pool (see gsim_pool.h).
 *
 * One mutex guards the queue, every client's done list and counts, and
 * every item's state; the workers sleep on 'wake', an owner thread sleeps on
 * 'settled' when it waits for a cancelled item to leave a worker or for an
 * item of its client to finish. fn() and notify() run without the lock held.
 * The shared pools are kept in a short list under their own mutex.
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
	/*
	 * Protects queue_*, stop, every client's done list and counts,
	 * and every item's state/next/client.
	 */
	pthread_mutex_t lock;
	pthread_cond_t wake;		/* an item was queued, or stop */
	pthread_cond_t settled;		/* an item finished running */
	struct gsim_work *queue_head, *queue_tail;
	bool stop;

	unsigned int nthreads;
	pthread_t *threads;

	/* Shared pools only, under shared_lock. */
	unsigned int refs;
	struct gsim_pool *shared_next;
};

struct gsim_client {
	struct gsim_pool *pool;
	struct gsim_work *done_head, *done_tail;
	unsigned int queued;		/* items on the pool's queue */
	unsigned int running;		/* items in fn() right now */
	unsigned int notifying;		/* workers in notify() right now */
	void (*notify)(void *opaque);
	void *opaque;
};

static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static struct gsim_pool *shared_pools;

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
		struct gsim_client *client;
		struct gsim_work *w;

		while (!pool->stop && !pool->queue_head)
			pthread_cond_wait(&pool->wake, &pool->lock);
		if (pool->stop)
			break;
		w = pool->queue_head;
		client = w->client;
		list_remove(&pool->queue_head, &pool->queue_tail, w);
		w->state = GSIM_WORK_RUNNING;
		client->queued--;
		client->running++;
		pthread_mutex_unlock(&pool->lock);

		w->fn(w);

		pthread_mutex_lock(&pool->lock);
		client->running--;
		if (gsim_work_cancelled(w)) {
			/* The canceller waits for this and takes it back. */
			w->state = GSIM_WORK_IDLE;
			pthread_cond_broadcast(&pool->settled);
			continue;
		}
		w->state = GSIM_WORK_DONE;
		list_append(&client->done_head, &client->done_tail, w);
		pthread_cond_broadcast(&pool->settled);
		/* gsim_client_free() waits for 'notifying' to drop to 0. */
		if (client->notify) {
			client->notifying++;
			pthread_mutex_unlock(&pool->lock);
			client->notify(client->opaque);
			pthread_mutex_lock(&pool->lock);
			client->notifying--;
			pthread_cond_broadcast(&pool->settled);
		}
	}
	pthread_mutex_unlock(&pool->lock);
	return NULL;
}

struct gsim_pool *gsim_pool_new(unsigned int threads)
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

struct gsim_pool *gsim_pool_get_shared(unsigned int threads)
{
	struct gsim_pool *pool;

	pthread_mutex_lock(&shared_lock);
	for (pool = shared_pools; pool; pool = pool->shared_next)
		if (pool->nthreads == threads)
			break;
	if (!pool) {
		pool = gsim_pool_new(threads);
		if (pool) {
			pool->shared_next = shared_pools;
			shared_pools = pool;
		}
	}
	if (pool)
		pool->refs++;
	pthread_mutex_unlock(&shared_lock);
	return pool;
}

void gsim_pool_put_shared(struct gsim_pool *pool)
{
	struct gsim_pool **link;

	if (!pool)
		return;
	pthread_mutex_lock(&shared_lock);
	if (--pool->refs) {
		pthread_mutex_unlock(&shared_lock);
		return;
	}
	for (link = &shared_pools; *link != pool; link = &(*link)->shared_next)
		;
	*link = pool->shared_next;
	pthread_mutex_unlock(&shared_lock);
	gsim_pool_free(pool);
}

struct gsim_client *gsim_client_new(struct gsim_pool *pool, void (*notify)(void *opaque),
				    void *opaque)
{
	struct gsim_client *client;

	if (!pool)
		return NULL;
	client = calloc(1, sizeof(*client));
	if (!client)
		return NULL;
	client->pool = pool;
	client->notify = notify;
	client->opaque = opaque;
	return client;
}

struct gsim_pool *gsim_client_pool(const struct gsim_client *client)
{
	return client ? client->pool : NULL;
}

void gsim_pool_submit(struct gsim_client *client, struct gsim_work *w)
{
	struct gsim_pool *pool = client->pool;

	atomic_store(&w->cancel, false);
	pthread_mutex_lock(&pool->lock);
	w->state = GSIM_WORK_QUEUED;
	w->client = client;
	client->queued++;
	list_append(&pool->queue_head, &pool->queue_tail, w);
	pthread_cond_signal(&pool->wake);
	pthread_mutex_unlock(&pool->lock);
}

/* Under the pool's lock. */
static void cancel_locked(struct gsim_client *client, struct gsim_work *w)
{
	struct gsim_pool *pool = client->pool;

	atomic_store(&w->cancel, true);
	switch (w->state) {
	case GSIM_WORK_QUEUED:
		list_remove(&pool->queue_head, &pool->queue_tail, w);
		client->queued--;
		break;
	case GSIM_WORK_RUNNING:
		while (w->state == GSIM_WORK_RUNNING)
			pthread_cond_wait(&pool->settled, &pool->lock);
		break;
	case GSIM_WORK_DONE:
		list_remove(&client->done_head, &client->done_tail, w);
		break;
	case GSIM_WORK_IDLE:
		break;
	}
	w->state = GSIM_WORK_IDLE;
}

void gsim_pool_cancel(struct gsim_client *client, struct gsim_work *w)
{
	pthread_mutex_lock(&client->pool->lock);
	cancel_locked(client, w);
	pthread_mutex_unlock(&client->pool->lock);
}

void gsim_client_free(struct gsim_client *client)
{
	struct gsim_pool *pool;
	struct gsim_work *w, *next;

	if (!client)
		return;
	pool = client->pool;
	pthread_mutex_lock(&pool->lock);
	for (w = pool->queue_head; w; w = next) {
		next = w->next;
		if (w->client == client)
			cancel_locked(client, w);
	}
	/* Items in fn() and notify() calls still under way; then every finished one. */
	while (client->running || client->notifying)
		pthread_cond_wait(&pool->settled, &pool->lock);
	while (client->done_head)
		cancel_locked(client, client->done_head);
	pthread_mutex_unlock(&pool->lock);
	free(client);
}

struct gsim_work *gsim_pool_take_done(struct gsim_client *client)
{
	struct gsim_pool *pool = client->pool;
	struct gsim_work *w;

	pthread_mutex_lock(&pool->lock);
	w = client->done_head;
	if (w) {
		list_remove(&client->done_head, &client->done_tail, w);
		w->state = GSIM_WORK_IDLE;
	}
	pthread_mutex_unlock(&pool->lock);
	return w;
}

bool gsim_pool_wait_done(struct gsim_client *client, uint64_t timeout_ns)
{
	struct gsim_pool *pool = client->pool;
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
	while (!client->done_head && (client->queued || client->running)) {
		if (pthread_cond_timedwait(&pool->settled, &pool->lock, &until) == ETIMEDOUT)
			break;
	}
	ready = client->done_head != NULL;
	pthread_mutex_unlock(&pool->lock);
	return ready;
}

unsigned int gsim_pool_in_flight(struct gsim_client *client)
{
	unsigned int n;

	pthread_mutex_lock(&client->pool->lock);
	n = client->queued + client->running;
	pthread_mutex_unlock(&client->pool->lock);
	return n;
}
