// SPDX-License-Identifier: MIT
/* Files of the driver outside /dev (see sysfs_util.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "sysfs_util.h"

#define NOBODY	65534

void join_path(char *buf, size_t len, const char *dir, const char *name)
{
	ck_assert_int_lt(snprintf(buf, len, "%s/%s", dir, name), (int)len);
}

void dev_attr_path(char *buf, size_t len, const char *attr)
{
	ck_assert_int_lt(snprintf(buf, len, "/sys/class/accel/accel%d/device/%s",
				  test_device_index(), attr), (int)len);
}

int read_text(const char *path, char *buf, size_t len)
{
	ssize_t n, got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((size_t)got < len - 1) {
		n = read(fd, buf + got, len - 1 - (size_t)got);
		if (n < 0) {
			int err = errno;

			close(fd);
			return -err;
		}
		if (n == 0)
			break;
		got += n;
	}
	close(fd);
	buf[got] = '\0';
	if (got && buf[got - 1] == '\n')
		buf[got - 1] = '\0';
	return 0;
}

int write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	err = n < 0 ? errno : 0;
	close(fd);
	if (n >= 0 && (size_t)n != strlen(text))
		return -EIO;
	return -err;
}

long long read_number_ok(const char *path)
{
	char buf[64], *end;
	long long v;
	int rc = read_text(path, buf, sizeof(buf));

	ck_assert_msg(rc == 0, "read %s: %s", path, strerror(-rc));
	errno = 0;
	v = strtoll(buf, &end, 0);
	ck_assert_msg(!errno && end != buf && *end == '\0', "%s: not a number: '%s'", path, buf);
	return v;
}

void write_number_ok(const char *path, long long value)
{
	char buf[32];
	int rc;

	snprintf(buf, sizeof(buf), "%lld", value);
	rc = write_text(path, buf);
	ck_assert_msg(rc == 0, "write %s to %s: %s", buf, path, strerror(-rc));
	ck_assert_int_eq(read_number_ok(path), value);
}

void hwmon_dir_ok(char *buf, size_t len)
{
	char dir[PATH_LEN], sub[PATH_LEN], name_path[PATH_LEN], name[64];
	struct dirent *de;
	DIR *d;

	dev_attr_path(dir, sizeof(dir), "hwmon");
	d = opendir(dir);
	ck_assert_msg(d != NULL, "opendir %s: %s", dir, strerror(errno));
	buf[0] = '\0';
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "hwmon", 5))
			continue;
		join_path(sub, sizeof(sub), dir, de->d_name);
		join_path(name_path, sizeof(name_path), sub, "name");
		if (!read_text(name_path, name, sizeof(name)) && !strcmp(name, "gaudisim")) {
			join_path(buf, len, dir, de->d_name);
			break;
		}
	}
	closedir(d);
	ck_assert_msg(buf[0], "no hwmon device named gaudisim in %s", dir);
}

void debugfs_dir_ok(char *buf, size_t len)
{
	char link[PATH_LEN], target[PATH_LEN];
	struct stat st;
	ssize_t n;

	if (stat("/sys/kernel/debug/accel", &st))
		ck_assert_msg(mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL) == 0 ||
			      errno == EBUSY, "mount debugfs: %s", strerror(errno));
	/* The accel core names the folder after the PCI device. */
	dev_attr_path(link, sizeof(link), "");
	link[strlen(link) - 1] = '\0';
	n = readlink(link, target, sizeof(target) - 1);
	ck_assert_msg(n > 0, "readlink %s: %s", link, strerror(errno));
	target[n] = '\0';
	ck_assert_int_lt(snprintf(buf, len, "/sys/kernel/debug/accel/%s", basename(target)),
			 (int)len);
	ck_assert_msg(stat(buf, &st) == 0 && S_ISDIR(st.st_mode), "no debugfs folder %s", buf);
}

int open_errno_as_nobody(const char *path, int flags)
{
	int status, fd;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(255);
		fd = open(path, flags | O_CLOEXEC);
		_exit(fd >= 0 ? 0 : errno);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_msg(WEXITSTATUS(status) != 255, "could not become nobody");
	return WEXITSTATUS(status);
}

void device_works_ok(void)
{
	int fd = open_compute_ok();
	struct hbm_buf hbm;

	hbm_alloc_ok(fd, &hbm, 2 * MiB);
	memset_ok(fd, hbm.addr, 0x5a, 4096, QUEUE_H2D);
	hbm_free_ok(fd, &hbm);
	hlthunk_close(fd);
}
