// SPDX-License-Identifier: MIT
/*
 * coll-bench: all-reduce bus bandwidth over the NIC links, one process
 * per device like a launcher would start them.
 *
 *   coll-bench [-n RANKS] [-s BYTES] [-i ITERS] [-t fp32|bf16|int32]
 *              [-N TOTAL -b FIRST]
 *
 * A job across launchers (two VMs, say): every launcher runs coll-bench
 * with the same HLRT_COMM_ID in its environment, -N the job's ranks and
 * -b the first rank of its -n local ones (its devices 0..n-1); each box
 * sets HLRT_BOX_ID. Only the launcher of rank 0 prints the figures.
 *
 * Every rank all-reduces BYTES in place ITERS times (after one warm-up)
 * between two barriers; the slowest rank's time gives the figures, in
 * nccl-tests' terms: algbw = BYTES / time, busbw = algbw * 2 (n - 1) / n
 * (what each link carried). Prints one line:
 *   allreduce ranks=8 bytes=16777216 dtype=fp32 iters=5 time_ms=... algbw_GBps=... busbw_GBps=...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hlrt.h"

#define MAX_RANKS	16

struct opts {
	uint32_t n, iters;
	uint32_t total, base;	/* the job's ranks, our first one */
	uint64_t bytes;
	hlrt_dtype dtype;
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

/* One rank: the time of the timed loop, in seconds, on fd. */
static int rank_main(const struct opts *o, uint32_t r, const hlrt_comm_id *id, int fd)
{
	uint64_t count = o->bytes / (o->dtype == HLRT_BF16 ? 2 : 4), buf;
	hlrt_device *dev;
	hlrt_stream *s;
	hlrt_comm *c;
	uint32_t i;
	double t0, t;

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
	t = now_s() - t0;
	if (write(fd, &t, sizeof(t)) != (ssize_t)sizeof(t))
		return 1;
	hlrt_comm_destroy(c);
	hlrt_device_release(dev);
	return 0;
}

static int parse(int argc, char **argv, struct opts *o)
{
	int c;

	while ((c = getopt(argc, argv, "n:s:i:t:N:b:h")) != -1) {
		switch (c) {
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
	hlrt_comm_id id;
	uint32_t ndev = 0, r;

	if (parse(argc, argv, &o)) {
		fprintf(stderr, "usage: coll-bench [-n RANKS] [-s BYTES (multiple of 4)] "
				"[-i ITERS] [-t fp32|bf16|int32] [-N TOTAL -b FIRST]\n");
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
			_exit(rank_main(&o, r, &id, fds[r][1]));
		}
		close(fds[r][1]);
	}
	for (r = 0; r < o.n; r++) {
		double t;

		if (read(fds[r][0], &t, sizeof(t)) != (ssize_t)sizeof(t))
			bad = 1;
		else if (t > worst)
			worst = t;
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
	printf("allreduce ranks=%u bytes=%llu dtype=%s iters=%u time_ms=%.3f algbw_GBps=%.4f "
	       "busbw_GBps=%.4f\n", o.total, (unsigned long long)o.bytes,
	       hlrt_dtype_suffix(o.dtype), o.iters, worst * 1e3 / o.iters, algbw,
	       algbw * 2.0 * (o.total - 1) / o.total);
	return 0;
}
