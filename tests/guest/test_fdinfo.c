// SPDX-License-Identifier: MIT
/*
 * DRM fdinfo of a compute file (/proc/self/fdinfo/<fd>): the keys of
 * Documentation/gpu/drm-usage-stats.rst are there, the DMA engine time
 * grows by about the time a known job ran, HBM follows alloc and free,
 * and every open is a client of its own.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

#define FDINFO_MAX 4096

/* The job whose engine time is measured: host -> HBM, big enough to take ms. */
#define JOB_BYTES (16u << 20)

static char fdinfo[FDINFO_MAX];

static void read_fdinfo_ok(int fd)
{
	char path[64];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	n = fread(fdinfo, 1, sizeof(fdinfo) - 1, f);
	fdinfo[n] = '\0';
	fclose(f);
}

/* The value text of "key:\t..." in the last read fdinfo, or NULL. */
static const char *value_of(const char *key)
{
	char want[64];
	const char *p;

	snprintf(want, sizeof(want), "\n%s:\t", key);
	p = strstr(fdinfo, want);
	return p ? p + strlen(want) : NULL;
}

/* A number key, with the unit it must carry ("ns") or none (NULL). */
static uint64_t number_ok(const char *key, const char *unit)
{
	const char *v = value_of(key);
	char *end;
	uint64_t n;

	ck_assert_msg(v != NULL, "no %s in:\n%s", key, fdinfo);
	n = strtoull(v, &end, 10);
	ck_assert_msg(end != v, "%s: no number in:\n%s", key, fdinfo);
	if (unit) {
		ck_assert_msg(*end == ' ' && !strncmp(end + 1, unit, strlen(unit)) &&
			      end[1 + strlen(unit)] == '\n', "%s: want unit %s in:\n%s", key, unit,
			      fdinfo);
	} else {
		ck_assert_msg(*end == '\n', "%s: want a plain number in:\n%s", key, fdinfo);
	}
	return n;
}

static uint64_t engine_ns_ok(int fd, const char *engine)
{
	char key[32];

	read_fdinfo_ok(fd);
	snprintf(key, sizeof(key), "drm-engine-%s", engine);
	return number_ok(key, "ns");
}

static uint64_t hbm_ok(int fd)
{
	uint64_t total;

	read_fdinfo_ok(fd);
	total = number_ok("drm-total-hbm", NULL);
	/* Allocated HBM is always backed. */
	ck_assert_uint_eq(number_ok("drm-resident-hbm", NULL), total);
	return total;
}

static const char *const engines[] = { "dma", "mme", "tpc", "nic" };

START_TEST(keys_exist)
{
	char busid[HLTHUNK_BUS_ID_MAX_LEN], want[64];
	size_t i;

	ck_assert_int_eq(hlthunk_get_pci_bus_id_from_fd(dev_fd, busid, sizeof(busid)), 0);
	read_fdinfo_ok(dev_fd);
	ck_assert_msg(value_of("drm-driver") && !strncmp(value_of("drm-driver"), "gaudisim\n", 9),
		      "%s", fdinfo);
	snprintf(want, sizeof(want), "%s\n", busid);
	ck_assert_msg(value_of("drm-pdev") && !strncmp(value_of("drm-pdev"), want, strlen(want)),
		      "want drm-pdev %s in:\n%s", busid, fdinfo);
	number_ok("drm-client-id", NULL);
	for (i = 0; i < sizeof(engines) / sizeof(engines[0]); i++) {
		char key[32];

		snprintf(key, sizeof(key), "drm-engine-%s", engines[i]);
		/* A fresh client has used nothing. */
		ck_assert_uint_eq(number_ok(key, "ns"), 0);
	}
	ck_assert_uint_eq(hbm_ok(dev_fd), 0);
}
END_TEST

START_TEST(engine_time_follows_a_job)
{
	uint64_t before, after, mme, t0, wall, delta;
	struct host_buf host;
	struct hbm_buf hbm;

	host_buf_map_ok(dev_fd, &host, JOB_BYTES);
	hbm_alloc_ok(dev_fd, &hbm, JOB_BYTES);
	before = engine_ns_ok(dev_fd, "dma");
	mme = engine_ns_ok(dev_fd, "mme");

	t0 = now_ns();
	dma_ok(dev_fd, host.va, hbm.addr, JOB_BYTES, QUEUE_H2D);
	wall = now_ns() - t0;

	after = engine_ns_ok(dev_fd, "dma");
	delta = after - before;
	fprintf(stderr, "fdinfo: DMA job of %u bytes: engine %" PRIu64 " ns, wall %" PRIu64
		" ns\n", JOB_BYTES, delta, wall);
	/*
	 * The driver counts from the push to the completion, both inside the
	 * submit and wait this process timed: never more than the wall time,
	 * and for a job this big most of it (the guest measured 44 of 51 ms;
	 * the bound leaves room for this process being descheduled).
	 */
	ck_assert_uint_gt(after, before);
	ck_assert_uint_le(delta, wall);
	ck_assert_uint_ge(delta, wall / 16);
	/* Other engine classes did nothing. */
	ck_assert_uint_eq(engine_ns_ok(dev_fd, "mme"), mme);
	ck_assert_uint_eq(engine_ns_ok(dev_fd, "tpc"), 0);
	ck_assert_uint_eq(engine_ns_ok(dev_fd, "nic"), 0);

	/* A second job adds again; the sum never goes back. */
	dma_ok(dev_fd, host.va, hbm.addr, JOB_BYTES, QUEUE_H2D);
	ck_assert_uint_gt(engine_ns_ok(dev_fd, "dma"), after);

	hbm_free_ok(dev_fd, &hbm);
	host_buf_release(dev_fd, &host);
}
END_TEST

START_TEST(hbm_follows_alloc_and_free)
{
	struct hbm_buf a, b;

	ck_assert_uint_eq(hbm_ok(dev_fd), 0);
	hbm_alloc_ok(dev_fd, &a, 4 * MiB);
	ck_assert_uint_eq(hbm_ok(dev_fd), a.size);
	hbm_alloc_ok(dev_fd, &b, 2 * MiB);
	ck_assert_uint_eq(hbm_ok(dev_fd), a.size + b.size);
	hbm_free_ok(dev_fd, &a);
	ck_assert_uint_eq(hbm_ok(dev_fd), b.size);
	hbm_free_ok(dev_fd, &b);
	ck_assert_uint_eq(hbm_ok(dev_fd), 0);
}
END_TEST

START_TEST(each_open_is_a_client)
{
	uint64_t first, second;
	struct hbm_buf hbm;
	int fd = open_compute_ok(), dup_fd;

	read_fdinfo_ok(fd);
	first = number_ok("drm-client-id", NULL);
	hbm_alloc_ok(fd, &hbm, 2 * MiB);
	/* A dup is the same open file: the same client and usage. */
	dup_fd = dup(fd);
	ck_assert_int_ge(dup_fd, 0);
	read_fdinfo_ok(dup_fd);
	ck_assert_uint_eq(number_ok("drm-client-id", NULL), first);
	ck_assert_uint_eq(hbm_ok(dup_fd), 2 * MiB);
	close(dup_fd);
	hbm_free_ok(fd, &hbm);
	hlthunk_close(fd);

	/* The next open is a new client that starts from nothing. */
	fd = open_compute_ok();
	read_fdinfo_ok(fd);
	second = number_ok("drm-client-id", NULL);
	ck_assert_uint_ne(second, first);
	ck_assert_uint_eq(hbm_ok(fd), 0);
	ck_assert_uint_eq(engine_ns_ok(fd, "dma"), 0);
	hlthunk_close(fd);
}
END_TEST

static Suite *fdinfo_suite(void)
{
	Suite *s = suite_create("fdinfo");
	TCase *held = compute_tcase("client", TCASE_TIMEOUT_DMA);
	TCase *opens = tcase_create("opens");

	tcase_add_test(held, keys_exist);
	tcase_add_test(held, engine_time_follows_a_job);
	tcase_add_test(held, hbm_follows_alloc_and_free);
	suite_add_tcase(s, held);

	tcase_set_timeout(opens, TCASE_TIMEOUT_SHORT);
	tcase_add_test(opens, each_open_is_a_client);
	suite_add_tcase(s, opens);
	return s;
}

int main(void)
{
	return run_suite(fdinfo_suite());
}
