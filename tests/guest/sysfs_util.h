/* SPDX-License-Identifier: MIT */
/*
 * Files of the driver outside /dev, for the sysfs, hwmon and debugfs tests:
 * where they are, reading and writing them with the errno kept, running a
 * check as an unprivileged user, and a quick proof that the device still
 * runs work.
 */
#ifndef GUEST_SYSFS_UTIL_H
#define GUEST_SYSFS_UTIL_H

#include <stddef.h>

#define PATH_LEN	256
#define TEXT_LEN	4096

/* /sys/class/accel/accelN/device/<attr> of the device under test. */
void dev_attr_path(char *buf, size_t len, const char *attr);
/* The device's hwmon folder (asserting there is one named "gaudisim"). */
void hwmon_dir_ok(char *buf, size_t len);
/* The device's debugfs folder, mounting debugfs when needed (asserting). */
void debugfs_dir_ok(char *buf, size_t len);
/* "<dir>/<name>" */
void join_path(char *buf, size_t len, const char *dir, const char *name);

/* Whole file into buf, trailing newline removed; 0 or -errno. */
int read_text(const char *path, char *buf, size_t len);
/* One write() of text; 0 or -errno of open() or write(). */
int write_text(const char *path, const char *text);
/* Read a decimal or 0x-hex number (asserting). */
long long read_number_ok(const char *path);
/* Write a number and assert it reads back. */
void write_number_ok(const char *path, long long value);

/*
 * In a child process running as nobody (uid/gid 65534), open path with
 * flags; returns 0 when the open worked, else errno.
 */
int open_errno_as_nobody(const char *path, int flags);

/* A compute open, an HBM allocation and a DMA memset that completes. */
void device_works_ok(void);

#endif /* GUEST_SYSFS_UTIL_H */
