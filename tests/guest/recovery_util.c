// SPDX-License-Identifier: MIT
/* Uevents and devcoredumps of the device under test (see recovery_util.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "recovery_util.h"
#include "sysfs_util.h"

#define DEVCD_CLASS	"/sys/class/devcoredump"

int uevent_open_ok(void)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int rcvbuf = 1 << 20;
	int sock = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);

	ck_assert_msg(sock >= 0, "uevent socket: %s", strerror(errno));
	setsockopt(sock, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	ck_assert_msg(bind(sock, (struct sockaddr *)&addr, sizeof(addr)) == 0,
		      "uevent bind: %s", strerror(errno));
	return sock;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int uevent_wait(int sock, const char *want, char *env, size_t len, int timeout_ms)
{
	long end = now_ms() + timeout_ms;
	char msg[UEVENT_LEN + 1];

	for (;;) {
		struct pollfd pfd = { .fd = sock, .events = POLLIN };
		long left = end - now_ms();
		ssize_t n, off;
		int found = 0;
		size_t used = 0;

		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
			return -ETIMEDOUT;
		n = recv(sock, msg, UEVENT_LEN, 0);
		if (n <= 0)
			continue;
		msg[n] = '\0';
		/* "action@devpath" then NUL-separated KEY=VALUE strings. */
		env[0] = '\0';
		for (off = 0; off < n; off += (ssize_t)strlen(msg + off) + 1) {
			const char *var = msg + off;
			int w;

			if (!strcmp(var, want))
				found = 1;
			w = snprintf(env + used, len - used, "%s\n", var);
			if (w > 0 && (size_t)w < len - used)
				used += (size_t)w;
		}
		if (found)
			return 0;
	}
}

int coredump_find(char *dir, size_t len)
{
	char want[PATH_MAX], link[PATH_MAX], got[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int rc = -ENOENT;

	dev_attr_path(link, sizeof(link), "");
	ck_assert_ptr_nonnull(realpath(link, want));
	dir[0] = '\0';
	d = opendir(DEVCD_CLASS);
	if (!d)
		return -ENOENT;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "devcd", 5))
			continue;
		snprintf(link, sizeof(link), DEVCD_CLASS "/%s/failing_device", de->d_name);
		if (!realpath(link, got) || strcmp(got, want))
			continue;
		ck_assert_int_lt(snprintf(dir, len, DEVCD_CLASS "/%s", de->d_name), (int)len);
		rc = 0;
		break;
	}
	closedir(d);
	return rc;
}

long coredump_read_ok(const char *dir, char *buf, size_t len)
{
	char path[PATH_MAX];
	long got = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/data", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	/* Small reads, so the dump's offset handling is exercised too. */
	while ((size_t)got < len - 1) {
		size_t want = len - 1 - (size_t)got;

		n = read(fd, buf + got, want < 1000 ? want : 1000);
		ck_assert_msg(n >= 0, "read %s: %s", path, strerror(errno));
		if (n == 0)
			break;
		got += n;
	}
	close(fd);
	buf[got] = '\0';
	return got;
}

void coredump_discard_ok(void)
{
	char dir[PATH_MAX], path[PATH_MAX + 8];
	int i;

	if (coredump_find(dir, sizeof(dir)))
		return;
	snprintf(path, sizeof(path), "%s/data", dir);
	ck_assert_int_eq(write_text(path, "1"), 0);
	/* devcoredump deletes the folder from a work item. */
	for (i = 0; i < 100 && !coredump_find(dir, sizeof(dir)); i++)
		sleep_ms(50);
	ck_assert_msg(coredump_find(dir, sizeof(dir)) == -ENOENT, "%s still there", dir);
}
