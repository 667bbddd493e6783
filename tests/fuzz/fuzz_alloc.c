/* SPDX-License-Identifier: MIT */
/*
 * A cache of large heap blocks for the fuzz builds (linked with
 * -Wl,--wrap=malloc,--wrap=free).
 *
 * The core allocates its per-stream frame buffers (2 MiB each, two per
 * stream) when it is created and frees them when it is freed. Under
 * AddressSanitizer every such block costs an mmap, 256 KiB of shadow
 * writes and an munmap, which made a fresh core per input ten times
 * slower than the input itself. Blocks of at least FZ_BIG_MIN bytes are
 * therefore kept when freed and handed out again for the same size. The
 * redzones ASan put around them when they were first allocated stay, so
 * overflows past a block's end are still reported; use after free of a
 * cached block is not. fz_alloc_in_use() lets the harness check that
 * every block the core took came back, which keeps the leak check for them.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "fuzz_alloc.h"

#define FZ_BIG_MIN	(1u << 20)
#define FZ_BIG_SLOTS	512

void *__real_malloc(size_t size);
void __real_free(void *p);
void *__wrap_malloc(size_t size);
void __wrap_free(void *p);

static struct big_block {
	void *p;
	size_t size;
	bool used;
} blocks[FZ_BIG_SLOTS];
static unsigned int nblocks;
/* OpenBLAS worker threads allocate too. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void *__wrap_malloc(size_t size)
{
	unsigned int i;
	void *p;

	if (size < FZ_BIG_MIN)
		return __real_malloc(size);
	pthread_mutex_lock(&lock);
	for (i = 0; i < nblocks; i++) {
		if (!blocks[i].used && blocks[i].size == size) {
			blocks[i].used = true;
			pthread_mutex_unlock(&lock);
			return blocks[i].p;
		}
	}
	p = __real_malloc(size);
	if (p && nblocks < FZ_BIG_SLOTS)
		blocks[nblocks++] = (struct big_block){ .p = p, .size = size, .used = true };
	pthread_mutex_unlock(&lock);
	return p;
}

void __wrap_free(void *p)
{
	unsigned int i;

	if (!p)
		return;
	pthread_mutex_lock(&lock);
	for (i = 0; i < nblocks; i++) {
		if (blocks[i].p == p) {
			blocks[i].used = false;
			pthread_mutex_unlock(&lock);
			return;
		}
	}
	pthread_mutex_unlock(&lock);
	__real_free(p);
}

unsigned int fz_alloc_in_use(void)
{
	unsigned int i, n = 0;

	pthread_mutex_lock(&lock);
	for (i = 0; i < nblocks; i++)
		n += blocks[i].used;
	pthread_mutex_unlock(&lock);
	return n;
}
