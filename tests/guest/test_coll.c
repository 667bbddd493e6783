// SPDX-License-Identifier: MIT
/*
 * gsim-test-coll: libhlrt's collectives through the driver, one process
 * per device (as a launcher would start them), on 2, 4 and 8 ranks as
 * far as the machine has devices. Every op x dtype x size is checked bit
 * for bit against the ring-order host reference (tests/runtime/coll_ref.h)
 * on every rank; a case passes when all its ranks agree. A machine with
 * fewer than two devices cannot run it, which is a failure.
 * Prints "N passed, N failed".
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "coll_ref.h"
#include "hlrt.h"

#define MAX_RANKS	8
#define CHILD_SECONDS	600

enum op { OP_AR, OP_RS, OP_AG, OP_BC, OP_COUNT };

static const char *const op_names[OP_COUNT] = {
	"all_reduce", "reduce_scatter", "all_gather", "broadcast",
};
static const hlrt_dtype dtypes[3] = { HLRT_FP32, HLRT_BF16, HLRT_INT32 };

static uint64_t sizes(uint32_t i, uint32_t n)
{
	const uint64_t s[3] = { 1, 1000 + n * 13 + 1, (1u << 18) + 3 };

	return s[i];
}

#define N_SIZES	3
#define N_CASES	(OP_COUNT * 3 * N_SIZES)

/* Rank r's check of one case: 0 ok, else a message in err. */
static int run_case(hlrt_device *dev, hlrt_stream *s, hlrt_comm *c, uint32_t n, uint32_t r,
		    enum op op, hlrt_dtype dt, uint64_t count, char *err, size_t errlen)
{
	uint32_t es = coll_ref_esize(dt), q;
	uint64_t in_elems = op == OP_RS ? count * n : count;
	uint64_t out_elems = op == OP_AG ? count * n : count, in = 0, out = 0, i;
	void *inputs[MAX_RANKS] = { 0 };
	void *want = malloc(out_elems * es), *got = malloc(out_elems * es);
	hlrt_status st;
	int rc = -1;

	for (q = 0; q < n; q++) {
		inputs[q] = malloc(in_elems * es);
		if (inputs[q])
			coll_ref_fill(inputs[q], in_elems, dt, q);
	}
	for (q = 0; q < n; q++)
		if (!inputs[q])
			goto out;
	if (!want || !got)
		goto out;
	if (op == OP_AR)
		coll_ref_all_reduce(want, inputs, n, count, dt);
	else if (op == OP_RS)
		coll_ref_sum(want, inputs, n, r, r * count, count, dt);
	else if (op == OP_AG)
		for (q = 0; q < n; q++)
			memcpy((uint8_t *)want + q * count * es, inputs[q], count * es);
	else
		memcpy(want, inputs[n - 1], count * es);
	st = hlrt_device_malloc(dev, in_elems * es, &in);
	if (!st)
		st = hlrt_device_malloc(dev, out_elems * es, &out);
	if (!st)
		st = hlrt_memcpy_h2d(dev, in, inputs[r], in_elems * es);
	if (!st)
		st = hlrt_memset_async(s, out, 0x5a, out_elems * es);
	if (!st) {
		if (op == OP_AR)
			st = hlrt_all_reduce(c, in, out, count, dt, HLRT_REDUCE_SUM, s);
		else if (op == OP_RS)
			st = hlrt_reduce_scatter(c, in, out, count, dt, HLRT_REDUCE_SUM, s);
		else if (op == OP_AG)
			st = hlrt_all_gather(c, in, out, count, dt, s);
		else
			st = hlrt_broadcast(c, in, out, count, dt, n - 1, s);
	}
	if (!st)
		st = hlrt_stream_synchronize(s);
	if (!st)
		st = hlrt_memcpy_d2h(dev, got, out, out_elems * es);
	if (st) {
		snprintf(err, errlen, "%s: %s", hlrt_status_name(st), hlrt_last_error());
		goto out;
	}
	for (i = 0; i < out_elems * es; i++) {
		if (((uint8_t *)got)[i] != ((uint8_t *)want)[i]) {
			snprintf(err, errlen, "element %llu differs from the reference",
				 (unsigned long long)(i / es));
			goto out;
		}
	}
	rc = 0;
out:
	if (in)
		hlrt_device_free(dev, in);
	if (out)
		hlrt_device_free(dev, out);
	for (q = 0; q < n; q++)
		free(inputs[q]);
	free(want);
	free(got);
	return rc;
}

/* One rank's process: every case, a line each on fd ("ok" or the error). */
static int child(uint32_t n, uint32_t r, const hlrt_comm_id *id, int fd)
{
	hlrt_device *dev;
	hlrt_stream *s;
	hlrt_comm *c;
	uint32_t o, d, z;
	char err[256], line[400];
	hlrt_status st;

	alarm(CHILD_SECONDS);
	st = hlrt_device_acquire(r, &dev);
	if (!st)
		st = hlrt_stream_create(dev, &s);
	if (!st)
		st = hlrt_comm_init_rank(&c, n, id, r, dev);
	if (st) {
		dprintf(fd, "setup %s\n", hlrt_last_error());
		return 1;
	}
	for (o = 0; o < OP_COUNT; o++) {
		for (d = 0; d < 3; d++) {
			for (z = 0; z < N_SIZES; z++) {
				uint64_t count = sizes(z, n);

				if (run_case(dev, s, c, n, r, o, dtypes[d], count, err, sizeof(err)))
					snprintf(line, sizeof(line), "FAIL rank %u: %s\n", r, err);
				else
					snprintf(line, sizeof(line), "ok\n");
				if (write(fd, line, strlen(line)) < 0)
					return 1;
			}
		}
	}
	st = hlrt_comm_destroy(c);
	hlrt_device_release(dev);
	return st ? 1 : 0;
}

/* n ranks; returns failed cases, adds passes to *passed. */
static uint32_t run_ranks(uint32_t n, uint32_t *passed)
{
	FILE *f[MAX_RANKS];
	pid_t pid[MAX_RANKS];
	hlrt_comm_id id;
	uint32_t r, o, d, z, failed = 0;
	int status;

	if (hlrt_comm_get_unique_id(&id)) {
		printf("FAIL %u ranks: unique id: %s\n", n, hlrt_last_error());
		return N_CASES;
	}
	fflush(stdout);
	for (r = 0; r < n; r++) {
		int p[2];

		if (pipe(p))
			return N_CASES;
		pid[r] = fork();
		if (pid[r] == 0) {
			close(p[0]);
			_exit(child(n, r, &id, p[1]));
		}
		close(p[1]);
		f[r] = fdopen(p[0], "r");
	}
	for (o = 0; o < OP_COUNT; o++) {
		for (d = 0; d < 3; d++) {
			for (z = 0; z < N_SIZES; z++) {
				char line[400], why[400] = "";
				bool ok = true;

				for (r = 0; r < n; r++) {
					if (!f[r] || !fgets(line, sizeof(line), f[r])) {
						snprintf(why, sizeof(why), "rank %u gave no result\n", r);
						ok = false;
					} else if (strcmp(line, "ok\n")) {
						snprintf(why, sizeof(why), "%s", line);
						ok = false;
					}
				}
				printf("%s %u ranks %s %s x%llu%s%s", ok ? "ok  " : "FAIL", n,
				       op_names[o], hlrt_dtype_suffix(dtypes[d]),
				       (unsigned long long)sizes(z, n), ok ? "" : ": ",
				       ok ? "\n" : why);
				if (ok)
					(*passed)++;
				else
					failed++;
			}
		}
	}
	for (r = 0; r < n; r++) {
		if (f[r])
			fclose(f[r]);
		if (waitpid(pid[r], &status, 0) == pid[r] &&
		    (!WIFEXITED(status) || WEXITSTATUS(status))) {
			printf("FAIL %u ranks: rank %u exited badly (status 0x%x)\n", n, r, status);
			failed++;
		}
	}
	return failed;
}

int main(void)
{
	uint32_t ndev = 0, passed = 0, failed = 0, n;

	if (hlrt_device_count(&ndev) || ndev < 2) {
		printf("FAIL: collectives need at least 2 devices, %u visible\n", ndev);
		printf("0 passed, 1 failed\n");
		return 1;
	}
	for (n = 2; n <= MAX_RANKS && n <= ndev; n *= 2)
		failed += run_ranks(n, &passed);
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
