/* SPDX-License-Identifier: MIT */
/*
 * Watching a device recover: kernel uevents of the PCI device and its
 * crash dumps in /sys/class/devcoredump.
 */
#ifndef GUEST_RECOVERY_UTIL_H
#define GUEST_RECOVERY_UTIL_H

#include <stddef.h>
#include <stdint.h>

#define UEVENT_LEN	4096

/* A socket on the kernel's uevent multicast group (asserting). */
int uevent_open_ok(void);
/*
 * Wait up to timeout_ms for a uevent carrying the variable want
 * ("GAUDISIM_EVENT=RESET"); its variables go to env as "K=V\n" lines.
 * Returns 0, or -ETIMEDOUT.
 */
int uevent_wait(int sock, const char *want, char *env, size_t len, int timeout_ms);

/* The devcoredump folder of the device under test, or "" (returns -ENOENT). */
int coredump_find(char *dir, size_t len);
/* Read a dump's data (NUL-terminated, at most len - 1 bytes); returns the length. */
long coredump_read_ok(const char *dir, char *buf, size_t len);
/* Free the device's dump, if any, and wait until it is gone (asserting). */
void coredump_discard_ok(void);

#endif /* GUEST_RECOVERY_UTIL_H */
