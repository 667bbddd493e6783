/* SPDX-License-Identifier: MIT */
/*
 * Guard pages for the fuzz builds (linked with -Wl,--wrap=mmap,--wrap=munmap).
 *
 * HBM and SRAM are anonymous mappings, which AddressSanitizer does not
 * watch: an engine that reads or writes a little past the end (or before
 * the start) of device memory would hit whatever mapping lies next to it
 * and go unnoticed. Every anonymous mapping of at least FZ_GUARD_MIN bytes
 * the core asks for is therefore placed between two inaccessible
 * FZ_GUARD bytes regions, so such an access faults at once and the fuzzer
 * reports it. The guard is 2 MiB so the mapping keeps the alignment the
 * kernel gave the reservation (transparent huge pages stay possible).
 */
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>

#include "fuzz_guard.h"

#define FZ_GUARD	(2ul << 20)
#define FZ_GUARD_MIN	(1ul << 20)
#define FZ_GUARD_SLOTS	64

void *__real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int __real_munmap(void *addr, size_t len);
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int __wrap_munmap(void *addr, size_t len);

static struct guarded {
	uint8_t *user;		/* what the caller got */
	size_t len;		/* what the caller asked for */
} maps[FZ_GUARD_SLOTS];
/* Worker threads of the core may map too. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	unsigned int i;
	uint8_t *base;

	if (addr || !(flags & MAP_ANONYMOUS) || len < FZ_GUARD_MIN || len > SIZE_MAX - 2 * FZ_GUARD)
		return __real_mmap(addr, len, prot, flags, fd, off);
	pthread_mutex_lock(&lock);
	for (i = 0; i < FZ_GUARD_SLOTS && maps[i].user; i++)
		;
	if (i == FZ_GUARD_SLOTS) {
		pthread_mutex_unlock(&lock);
		return __real_mmap(addr, len, prot, flags, fd, off);
	}
	/* Reserve guard + mapping + guard, inaccessible; open the middle. */
	base = __real_mmap(NULL, len + 2 * FZ_GUARD, PROT_NONE, flags | MAP_NORESERVE, fd, off);
	if (base == MAP_FAILED) {
		pthread_mutex_unlock(&lock);
		return MAP_FAILED;
	}
	if (mprotect(base + FZ_GUARD, len, prot)) {
		__real_munmap(base, len + 2 * FZ_GUARD);
		pthread_mutex_unlock(&lock);
		return MAP_FAILED;
	}
	maps[i] = (struct guarded){ .user = base + FZ_GUARD, .len = len };
	pthread_mutex_unlock(&lock);
	return base + FZ_GUARD;
}

int __wrap_munmap(void *addr, size_t len)
{
	unsigned int i;

	pthread_mutex_lock(&lock);
	for (i = 0; i < FZ_GUARD_SLOTS; i++) {
		if (maps[i].user && maps[i].user == addr && maps[i].len == len) {
			maps[i].user = NULL;
			pthread_mutex_unlock(&lock);
			return __real_munmap((uint8_t *)addr - FZ_GUARD, len + 2 * FZ_GUARD);
		}
	}
	pthread_mutex_unlock(&lock);
	return __real_munmap(addr, len);
}

unsigned int fz_guard_mappings(void)
{
	unsigned int i, n = 0;

	pthread_mutex_lock(&lock);
	for (i = 0; i < FZ_GUARD_SLOTS; i++)
		n += maps[i].user != NULL;
	pthread_mutex_unlock(&lock);
	return n;
}

bool fz_guarded(const void *p, size_t len)
{
	unsigned int i;
	bool found = false;

	pthread_mutex_lock(&lock);
	for (i = 0; i < FZ_GUARD_SLOTS && !found; i++)
		found = maps[i].user && maps[i].user == p && maps[i].len >= len;
	pthread_mutex_unlock(&lock);
	return found;
}
