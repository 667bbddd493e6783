// SPDX-License-Identifier: MIT
/*
 * coll-bench: all-reduce bus bandwidth over the NIC links, one process
 * per device like a launcher would start them.
 *
 *   coll-bench [-n RANKS] [-s BYTES] [-i ITERS] [-t fp32|bf16|int32]
 *              [-N TOTAL -b FIRST] [-c]
 *
 * A job across launchers (two VMs, say): every launcher runs coll-bench
 * with the same HLRT_COMM_ID in its environment, -N the job's ranks and
 * -b the first rank of its -n local ones (its devices 0..n-1); each box
 * sets HLRT_BOX_ID. Only the launcher of rank 0 prints the figures.
 *
 * Every rank all-reduces BYTES in place ITERS times (after one warm-up)
 * between two barriers; the slowest rank's time gives the figures, in
 * nccl-tests' terms: algbw = BYTES / time, busbw = algbw * 2 (n - 1) / n
 * (what each link carried). Prints one line, with the algorithm libhlrt
 * took (direct or ring, hlrt_all_reduce_algorithm()):
 *   allreduce algo=ring ranks=8 bytes=16777216 dtype=fp32 iters=5 time_ms=... algbw_GBps=... busbw_GBps=...
 *
 * -c checks results instead of timing them (a job across VMs, say): every
 * rank runs an INT32 and an FP32 all-reduce of BYTES, an INT32 all-gather
 * and a broadcast from rank TOTAL-3 (or the last) of a pattern known to
 * every rank, and compares what came back with the exact result; the
 * launcher prints one "check OP ranks=TOTAL local=FIRST..LAST: ok|FAIL"
 * line per op and exits non-zero if any failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hlrt.h"

#define MAX_RANKS	16
#define CHECK_OPS	4

static const char *const check_name[CHECK_OPS] = {
	"allreduce-int32", "allreduce-fp32", "allgather-int32", "broadcast-int32",
};

struct opts {
	uint32_t n, iters;
	uint32_t total, base;	/* the job's ranks, our first one */
	uint64_t bytes;
	hlrt_dtype dtype;
	int check;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int die(const char *what)
{
	fprintf(stderr, "coll-bench: %s: %s\n", what, hlrt_last_error());
	return 1;
}

/* What a rank reports: the time of its timed loop, the algorithm that ran. */
struct rank_result {
	double seconds;
	char algo[16];
};

/* One rank: its struct rank_result on fd. */
static int rank_main(const struct opts *o, uint32_t r, const hlrt_comm_id *id, int fd)
{
	uint64_t count = o->bytes / (o->dtype == HLRT_BF16 ? 2 : 4), buf;
	hlrt_device *dev;
	hlrt_stream *s;
	hlrt_comm *c;
	uint32_t i;
	struct rank_result res = { 0 };
	double t0;

	if (hlrt_device_acquire(r, &dev) || hlrt_stream_create(dev, &s))
		return die("device");
	if (hlrt_device_malloc(dev, o->bytes, &buf) || hlrt_memset_async(s, buf, 0, o->bytes))
		return die("buffer");
	if (hlrt_comm_init_rank(&c, o->total, id, o->base + r, dev))
		return die("communicator");
	if (hlrt_all_reduce(c, buf, buf, count, o->dtype, HLRT_REDUCE_SUM, s) ||
	    hlrt_barrier(c, s) || hlrt_stream_synchronize(s))
		return die("warm-up");
	t0 = now_s();
	for (i = 0; i < o->iters; i++)
		if (hlrt_all_reduce(c, buf, buf, count, o->dtype, HLRT_REDUCE_SUM, s))
			return die("all-reduce");
	if (hlrt_barrier(c, s) || hlrt_stream_synchronize(s))
		return die("all-reduce");
	res.seconds = now_s() - t0;
	snprintf(res.algo, sizeof(res.algo), "%s", hlrt_all_reduce_algorithm(c, count, o->dtype));
	if (write(fd, &res, sizeof(res)) != (ssize_t)sizeof(res))
		return 1;
	hlrt_comm_destroy(c);
	hlrt_device_release(dev);
	return 0;
}

/* Rank r's element i: differs across ranks and elements, all 32 bits used. */
static uint32_t pattern_i32(uint32_t r, uint64_t i)
{
	return (r + 1) * 0x9e3779b1u ^ (uint32_t)(i * 7919u + 17u);
}

/*
 * Rank r's FP32 element i: a multiple of 1/8 within +-64, so that every
 * partial sum of up to 16 ranks is exact and the ring's order of the adds
 * cannot change the result: the reference is the plain sum.
 */
static float pattern_f32(uint32_t r, uint64_t i)
{
	return (float)((int)((r * 131u + i * 17u) % 1024u) - 512) / 8.0f;
}

/* One op on the device and back: 0 if it matched, 1 if not, -1 on error. */
static int check_op(const struct opts *o, uint32_t rank, int op, hlrt_device *dev,
		    hlrt_stream *s, hlrt_comm *c, uint64_t count, uint64_t buf, uint64_t out,
		    uint32_t *host, uint32_t *got)
{
	/* a root off rank 0 (in the second box of a 16-rank job) */
	uint32_t root = o->total > 3 ? o->total - 3 : o->total - 1, r;
	uint64_t i, n = op == 2 ? count * o->total : count;
	hlrt_status st;
	int bad = 0;

	for (i = 0; i < count; i++) {
		if (op == 1) {
			float f = pattern_f32(rank, i);

			memcpy(&host[i], &f, sizeof(f));
		} else {
			host[i] = pattern_i32(rank, i);
		}
	}
	if (hlrt_memcpy_h2d(dev, buf, host, count * 4))
		return -1;
	switch (op) {
	case 0:
	case 1:
		st = hlrt_all_reduce(c, buf, out, count, op ? HLRT_FP32 : HLRT_INT32,
				     HLRT_REDUCE_SUM, s);
		break;
	case 2:
		st = hlrt_all_gather(c, buf, out, count, HLRT_INT32, s);
		break;
	default:
		st = hlrt_broadcast(c, buf, out, count, HLRT_INT32, root, s);
		break;
	}
	if (st || hlrt_stream_synchronize(s) || hlrt_memcpy_d2h(dev, got, out, n * 4))
		return -1;
	for (i = 0; i < n && !bad; i++) {
		uint32_t want = 0;
		float fw = 0;

		switch (op) {
		case 0:
			for (r = 0; r < o->total; r++)
				want += pattern_i32(r, i);
			break;
		case 1:
			for (r = 0; r < o->total; r++)
				fw += pattern_f32(r, i);
			memcpy(&want, &fw, sizeof(fw));
			break;
		case 2:
			want = pattern_i32((uint32_t)(i / count), i % count);
			break;
		default:
			want = pattern_i32(root, i);
			break;
		}
		if (got[i] != want) {
			fprintf(stderr, "coll-bench: rank %u: %s: element %llu is 0x%08x, not 0x%08x\n",
				rank, check_name[op], (unsigned long long)i, got[i], want);
			bad = 1;
		}
	}
	return bad;
}

/* One rank's checks: a bit per failed op, on fd. */
static int check_main(const struct opts *o, uint32_t r, const hlrt_comm_id *id, int fd)
{
	uint64_t count = o->bytes / 4, buf, out;
	uint32_t *host = malloc(count * 4), *got = malloc(count * 4 * o->total);
	uint32_t failed = 0;
	hlrt_device *dev;
	hlrt_stream *s;
	hlrt_comm *c;
	int op, rc;

	if (!host || !got)
		return 1;
	if (hlrt_device_acquire(r, &dev) || hlrt_stream_create(dev, &s))
		return die("device");
	if (hlrt_device_malloc(dev, o->bytes, &buf) ||
	    hlrt_device_malloc(dev, o->bytes * o->total, &out))
		return die("buffer");
	if (hlrt_comm_init_rank(&c, o->total, id, o->base + r, dev))
		return die("communicator");
	for (op = 0; op < CHECK_OPS; op++) {
		rc = check_op(o, o->base + r, op, dev, s, c, count, buf, out, host, got);
		if (rc < 0) {
			fprintf(stderr, "coll-bench: rank %u: %s: %s\n", o->base + r,
				check_name[op], hlrt_last_error());
			failed |= (1u << CHECK_OPS) - (1u << op);
			break;
		}
		failed |= (uint32_t)rc << op;
	}
	if (write(fd, &failed, sizeof(failed)) != (ssize_t)sizeof(failed))
		return 1;
	hlrt_comm_destroy(c);
	hlrt_device_release(dev);
	free(host);
	free(got);
	return 0;
}

/* The launcher's part of -c: every local rank's failed ops, one line per op. */
static int collect_checks(const struct opts *o, int fds[][2], const pid_t *pid)
{
	uint32_t failed = 0, bits, r;
	int status, op;

	for (r = 0; r < o->n; r++) {
		if (read(fds[r][0], &bits, sizeof(bits)) != (ssize_t)sizeof(bits))
			bits = (1u << CHECK_OPS) - 1;
		close(fds[r][0]);
		if (waitpid(pid[r], &status, 0) != pid[r] || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			bits = (1u << CHECK_OPS) - 1;
		failed |= bits;
	}
	for (op = 0; op < CHECK_OPS; op++)
		printf("check %s ranks=%u local=%u..%u: %s\n", check_name[op], o->total,
		       o->base, o->base + o->n - 1, failed & (1u << op) ? "FAIL" : "ok");
	return failed ? 1 : 0;
}

static int parse(int argc, char **argv, struct opts *o)
{
	int c;

	while ((c = getopt(argc, argv, "n:s:i:t:N:b:ch")) != -1) {
		switch (c) {
		case 'c':
			o->check = 1;
			break;
		case 'N':
			o->total = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'b':
			o->base = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'n':
			o->n = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 's':
			o->bytes = strtoull(optarg, NULL, 0);
			break;
		case 'i':
			o->iters = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 't':
			if (!strcmp(optarg, "fp32"))
				o->dtype = HLRT_FP32;
			else if (!strcmp(optarg, "bf16"))
				o->dtype = HLRT_BF16;
			else if (!strcmp(optarg, "int32"))
				o->dtype = HLRT_INT32;
			else
				return -1;
			break;
		default:
			return -1;
		}
	}
	return optind == argc && o->iters && o->bytes >= 4 && o->bytes % 4 == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct opts o = { .iters = 5, .bytes = 4u << 20, .dtype = HLRT_FP32 };
	int fds[MAX_RANKS][2], status, bad = 0;
	pid_t pid[MAX_RANKS];
	double worst = 0, algbw;
	char algo[16] = "?";
	hlrt_comm_id id;
	uint32_t ndev = 0, r;

	if (parse(argc, argv, &o)) {
		fprintf(stderr, "usage: coll-bench [-n RANKS] [-s BYTES (multiple of 4)] "
				"[-i ITERS] [-t fp32|bf16|int32] [-N TOTAL -b FIRST] [-c]\n");
		return 2;
	}
	if (hlrt_device_count(&ndev))
		return die("devices");
	if (!o.n)
		o.n = ndev;
	if (!o.total)
		o.total = o.n;
	if (!o.n || o.n > ndev || o.n > MAX_RANKS || o.total < 2 || o.base + o.n > o.total) {
		fprintf(stderr, "coll-bench: ranks %u..%u of %u on %u devices\n", o.base,
			o.base + o.n - 1, o.total, ndev);
		return 1;
	}
	if (o.total != o.n) {
		/* one launcher of several: the id comes from the environment */
		const char *text = getenv("HLRT_COMM_ID");

		if (!text || hlrt_comm_id_parse(text, &id)) {
			fprintf(stderr, "coll-bench: -N needs HLRT_COMM_ID (hlrt1:<nonce>:<dir>)\n");
			return 1;
		}
	} else if (hlrt_comm_get_unique_id(&id)) {
		return die("unique id");
	}
	for (r = 0; r < o.n; r++) {
		if (pipe(fds[r]))
			return 1;
		pid[r] = fork();
		if (pid[r] == 0) {
			close(fds[r][0]);
			_exit(o.check ? check_main(&o, r, &id, fds[r][1]) :
					rank_main(&o, r, &id, fds[r][1]));
		}
		close(fds[r][1]);
	}
	if (o.check)
		return collect_checks(&o, fds, pid);
	for (r = 0; r < o.n; r++) {
		struct rank_result res;

		if (read(fds[r][0], &res, sizeof(res)) != (ssize_t)sizeof(res)) {
			bad = 1;
		} else {
			if (res.seconds > worst)
				worst = res.seconds;
			if (!r)
				memcpy(algo, res.algo, sizeof(algo));
		}
		close(fds[r][0]);
		if (waitpid(pid[r], &status, 0) != pid[r] || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			bad = 1;
	}
	if (bad || worst <= 0) {
		fprintf(stderr, "coll-bench: a rank failed\n");
		return 1;
	}
	if (o.base)
		return 0;
	algbw = (double)o.bytes * o.iters / worst / 1e9;
	printf("allreduce algo=%s ranks=%u bytes=%llu dtype=%s iters=%u time_ms=%.3f "
	       "algbw_GBps=%.4f busbw_GBps=%.4f\n", algo, o.total, (unsigned long long)o.bytes,
	       hlrt_dtype_suffix(o.dtype), o.iters, worst * 1e3 / o.iters, algbw,
	       algbw * 2.0 * (o.total - 1) / o.total);
	return 0;
}
