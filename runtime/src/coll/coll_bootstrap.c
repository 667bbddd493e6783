// SPDX-License-Identifier: MIT
/*
 * The rendezvous of a communicator's ranks, without a network: the
 * unique id names a directory and a nonce. Every rank writes its record
 * to a file of its own (written under a temporary name, then renamed, so
 * a reader never sees half a record) and polls for the others' records,
 * for a bounded time. The directory may be on a shared folder, so ranks
 * in two VMs meet the same way. Once a rank has read every record it
 * leaves a "ready" file; rank 0 removes the directory when all are.
 *
 * Another user must not be able to plant or redirect records: the
 * directory must belong to the caller and be writable by it alone (not a
 * symlink), and records are created with O_EXCL | O_NOFOLLOW before the
 * rename, and read with O_NOFOLLOW.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "coll/coll_internal.h"

#define ID_PREFIX	"hlrt1:"
#define POLL_NS		(5 * 1000 * 1000)

static uint64_t random_nonce(void)
{
	uint64_t v = 0;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
			v = 0;
		close(fd);
	}
	/* no urandom: time and pid still differ between two ids */
	if (!v)
		v = hlrt_now_ns() ^ ((uint64_t)getpid() << 32);
	return v ? v : 1;
}

hlrt_status hlrt_comm_get_unique_id(hlrt_comm_id *id)
{
	const char *base = hlrt_config_comm_dir();
	char dir[HLRT_COMM_ID_MAX - 32];
	int n;

	if (!id)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_comm_get_unique_id: NULL id");
	if (!base || !*base)
		base = "/tmp";
	n = snprintf(dir, sizeof(dir), "%s/hlrt-comm-XXXXXX", base);
	if (n < 0 || (size_t)n >= sizeof(dir))
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "HLRT_COMM_DIR is too long");
	if (!mkdtemp(dir))
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "cannot create a rendezvous directory in %s: %s",
				 base, strerror(errno));
	snprintf(id->text, sizeof(id->text), ID_PREFIX "%016" PRIx64 ":%s", random_nonce(), dir);
	return HLRT_SUCCESS;
}

/* The nonce and directory of an id; the text is checked. */
static hlrt_status id_split(const char *text, uint64_t *nonce, const char **dir)
{
	char *end;

	if (strncmp(text, ID_PREFIX, strlen(ID_PREFIX)))
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "communicator id \"%.40s\" does not start with %s",
				 text, ID_PREFIX);
	text += strlen(ID_PREFIX);
	errno = 0;
	*nonce = strtoull(text, &end, 16);
	if (errno || end != text + 16 || *end != ':' || end[1] != '/')
		return hlrt_fail(HLRT_INVALID_ARGUMENT,
				 "communicator id: expected 16 hex digits, ':' and an absolute directory");
	*dir = end + 1;
	return HLRT_SUCCESS;
}

hlrt_status hlrt_comm_id_parse(const char *text, hlrt_comm_id *id)
{
	const char *dir;
	uint64_t nonce;
	hlrt_status st;

	if (!text || !id)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_comm_id_parse: NULL argument");
	if (strlen(text) >= sizeof(id->text))
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "communicator id longer than %u bytes",
				 HLRT_COMM_ID_MAX - 1);
	st = id_split(text, &nonce, &dir);
	if (st)
		return st;
	snprintf(id->text, sizeof(id->text), "%s", text);
	return HLRT_SUCCESS;
}

static void nap(void)
{
	struct timespec ts = { 0, POLL_NS };

	nanosleep(&ts, NULL);
}

/* The directory is ours alone: a real directory, our owner, no group or other write. */
static hlrt_status check_dir(const char *dir)
{
	struct stat st;

	if (lstat(dir, &st))
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "rendezvous directory %s: %s", dir,
				 strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return hlrt_fail(HLRT_INVALID_ARGUMENT,
				 "rendezvous directory %s is not a directory (a symlink?)", dir);
	if (st.st_uid != geteuid())
		return hlrt_fail(HLRT_INVALID_ARGUMENT,
				 "rendezvous directory %s belongs to uid %u, not to this process",
				 dir, (unsigned int)st.st_uid);
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return hlrt_fail(HLRT_INVALID_ARGUMENT,
				 "rendezvous directory %s is writable by others (mode %04o)", dir,
				 (unsigned int)(st.st_mode & 07777));
	return HLRT_SUCCESS;
}

static hlrt_status write_file(const char *dir, const char *name, const char *text)
{
	char tmp[512], path[512];
	size_t len = strlen(text);
	int fd, ok;

	snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	/* a stale temporary of an earlier crash of this rank */
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "rendezvous: cannot write %s: %s", tmp,
				 strerror(errno));
	ok = write(fd, text, len) == (ssize_t)len;
	ok = !close(fd) && ok;
	if (!ok || rename(tmp, path)) {
		unlink(tmp);
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "rendezvous: cannot publish %s", path);
	}
	return HLRT_SUCCESS;
}

/* 1: read and valid, 0: not there yet, <0: there but wrong. */
static int read_record(const char *dir, uint32_t r, uint64_t nonce, uint32_t nranks,
		       struct coll_record *rec)
{
	char path[512];
	unsigned long long n, recv;
	unsigned int nr, rank, box, module, sob;
	FILE *f;
	int fd, got;

	snprintf(path, sizeof(path), "%s/rank-%u", dir, r);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ELOOP ? -1 : 0;
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return -1;
	}
	got = fscanf(f, "nonce=%llx nranks=%u rank=%u box=%u module=%u recv=%llx sob=%u", &n,
		     &nr, &rank, &box, &module, &recv, &sob);
	fclose(f);
	if (got != 7)
		return -1;
	if (n != nonce)
		return -2;
	if (nr != nranks || rank != r)
		return -3;
	rec->rank = rank;
	rec->box = box;
	rec->module = module;
	rec->recv_base = recv;
	rec->sob_first = sob;
	return 1;
}

/* Rank 0: once every rank is ready, the directory goes. */
static void cleanup(const char *dir, uint32_t nranks, uint64_t deadline)
{
	char path[512];
	uint32_t r;

	for (r = 0; r < nranks; r++) {
		snprintf(path, sizeof(path), "%s/ready-%u", dir, r);
		while (access(path, F_OK) && hlrt_now_ns() < deadline)
			nap();
	}
	for (r = 0; r < nranks; r++) {
		snprintf(path, sizeof(path), "%s/ready-%u", dir, r);
		unlink(path);
		snprintf(path, sizeof(path), "%s/rank-%u", dir, r);
		unlink(path);
	}
	rmdir(dir);
}

hlrt_status hlrt_coll_rendezvous(const hlrt_comm_id *id, uint32_t nranks,
			    const struct coll_record *rec, struct coll_record *all)
{
	uint64_t deadline = hlrt_now_ns() + hlrt_config_comm_timeout_ms() * 1000000ull, nonce;
	char name[32], text[256];
	bool *have = calloc(nranks, sizeof(bool));
	uint32_t left = nranks, r;
	const char *dir;
	hlrt_status st;

	if (!have)
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "rendezvous");
	st = id_split(id->text, &nonce, &dir);
	if (st)
		goto out;
	/* a launcher may name a directory that nobody created yet */
	if (mkdir(dir, 0700) && errno != EEXIST) {
		st = hlrt_fail(HLRT_INVALID_ARGUMENT, "rendezvous directory %s: %s", dir,
			       strerror(errno));
		goto out;
	}
	st = check_dir(dir);
	if (st)
		goto out;
	snprintf(text, sizeof(text),
		 "nonce=%016" PRIx64 " nranks=%u rank=%u box=%u module=%u recv=%" PRIx64 " sob=%u\n",
		 nonce, nranks, rec->rank, rec->box, rec->module, rec->recv_base, rec->sob_first);
	snprintf(name, sizeof(name), "rank-%u", rec->rank);
	st = write_file(dir, name, text);
	if (st)
		goto out;
	while (left) {
		for (r = 0; r < nranks; r++) {
			int rc;

			if (have[r])
				continue;
			rc = read_record(dir, r, nonce, nranks, &all[r]);
			if (rc < 0) {
				st = hlrt_fail(HLRT_INVALID_ARGUMENT,
					       "rendezvous: rank %u's record in %s %s", r, dir,
					       rc == -2 ? "belongs to another communicator (nonce)" :
					       rc == -3 ? "disagrees on the rank count" :
							  "is malformed");
				goto out;
			}
			if (rc) {
				have[r] = true;
				left--;
			}
		}
		if (!left)
			break;
		if (hlrt_now_ns() > deadline) {
			for (r = 0; r < nranks && have[r]; r++)
				;
			st = hlrt_fail(HLRT_TIMEOUT,
				       "rendezvous: %u of %u ranks missing after %llu ms (rank %u first)",
				       left, nranks, (unsigned long long)hlrt_config_comm_timeout_ms(), r);
			goto out;
		}
		nap();
	}
	snprintf(name, sizeof(name), "ready-%u", rec->rank);
	st = write_file(dir, name, "ready\n");
	if (!st && rec->rank == 0)
		cleanup(dir, nranks, deadline);
out:
	free(have);
	return st;
}
