// SPDX-License-Identifier: MIT
/*
 * TPC benchmark: the relu kernel (runtime/kernels/relu.tpcs) over 64 MiB of
 * FP32 in sparse HBM, split over the 8 TPCs of a device core, against host
 * memcpy of the same 64 MiB (relu reads and writes as many bytes as
 * memcpy does). Both are timed as the best of several runs, alternating,
 * after a warm-up that touches every page and fills the decode cache.
 *
 * Build (from the repository root):
 *   cc -std=gnu11 -O2 -pthread -Iinclude -Iqemu-device/core -Iruntime/tpc \
 *      -o build/bench/tpc-bench tests/bench/tpc-bench.c qemu-device/core/gsim_*.c \
 *      runtime/tpc/tpc_asm.c runtime/tpc/tpc_isa.c -lm
 * Usage: tpc-bench [-k relu.tpcs] [-n runs] [-j threads] [-s MiB]
 * Prints: tpc_relu_GBps=X memcpy_GBps=Y ratio=Z        (wall clock)
 *         cpu: tpc_relu_GBps=X memcpy_GBps=Y ratio=Z   (per CPU second)
 *
 * -j 2 runs the 8 TPC launches on two host threads (each thread owns the
 * TPCs it runs, as the device's worker threads would); the default is one
 * thread, like memcpy.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gsim_core.h"
#include "gsim_core_internal.h"
#include "gsim_tpc.h"
#include "tpc_asm.h"

#define HBM_SIZE	(4ull << 30)	/* sparse: only touched pages cost */
#define KERNEL_ADDR	GAUDISIM_HBM_USER_BASE
#define X_ADDR		(GAUDISIM_HBM_USER_BASE + (2ull << 20))
#define Y_ADDR		(X_ADDR + (1ull << 30))
#define MAX_MIB		1024u

/* Bytes of each operand (-s MiB, default 64). */
static uint64_t BYTES = 64ull << 20;
#define ELEMS		(BYTES / 4)

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

/* CPU time of the whole process (all TPC threads). */
static double cpu_now(void)
{
	return clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

/* A host with no host memory: the benchmark only touches HBM. */
static int no_dma(void *o, uint64_t a, void *b, uint64_t l)
{
	(void)o, (void)a, (void)b, (void)l;
	return -1;
}

static int no_dma_w(void *o, uint64_t a, const void *b, uint64_t l)
{
	(void)o, (void)a, (void)b, (void)l;
	return -1;
}

static void no_msix(void *o, unsigned int v)
{
	(void)o, (void)v;
}

static void print_error(void *o, const char *msg)
{
	(void)o;
	fprintf(stderr, "tpc-bench: device: %s\n", msg);
}

static uint64_t clock_ns(void *o)
{
	(void)o;
	return (uint64_t)(now() * 1e9);
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *text;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	text = calloc(1, (size_t)n + 1);
	if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
		free(text);
		text = NULL;
	}
	fclose(f);
	return text;
}

static void wr(struct gsim_core *core, unsigned int n, uint32_t off, uint32_t v)
{
	bool launch = false;

	if (gsim_tpc_reg_write(core, GAUDISIM_ENGINE_TPC_0 + n, off, v, GSIM_ORIGIN_CB, &launch) !=
	    GSIM_REG_OK) {
		fprintf(stderr, "tpc-bench: register 0x%x refused\n", off);
		exit(1);
	}
}

/* Program every TPC with its part of relu over x -> y, as the runtime would. */
static unsigned int program(struct gsim_core *core, uint32_t ksize)
{
	const unsigned int isize[5] = { (unsigned int)((ELEMS + 4095) / 4096), 1, 1, 1, 1 };
	struct gaudisim_tpc_part parts[GAUDISIM_NUM_TPC];
	unsigned int np = gaudisim_tpc_split(isize, GAUDISIM_NUM_TPC, parts), n, d, t;

	for (n = 0; n < np; n++) {
		wr(core, n, GAUDISIM_TPC_KERNEL_ADDR_LO, (uint32_t)KERNEL_ADDR);
		wr(core, n, GAUDISIM_TPC_KERNEL_ADDR_HI, (uint32_t)(KERNEL_ADDR >> 32));
		wr(core, n, GAUDISIM_TPC_KERNEL_SIZE, ksize);
		for (d = 0; d < 5; d++) {
			wr(core, n, GAUDISIM_TPC_ISPACE_SIZE(d), isize[d]);
			wr(core, n, GAUDISIM_TPC_PART_START(d), parts[n].start[d]);
			wr(core, n, GAUDISIM_TPC_PART_SIZE(d), parts[n].size[d]);
		}
		for (t = 0; t < 2; t++) {
			uint64_t a = t ? Y_ADDR : X_ADDR;
			uint32_t b = GAUDISIM_TPC_TENSOR(t);

			wr(core, n, b + GAUDISIM_TPC_T_BASE_LO, (uint32_t)a);
			wr(core, n, b + GAUDISIM_TPC_T_BASE_HI, (uint32_t)(a >> 32));
			wr(core, n, b + GAUDISIM_TPC_T_DTYPE, GAUDISIM_DTYPE_FP32);
			wr(core, n, b + GAUDISIM_TPC_T_SIZE(0), (uint32_t)ELEMS);
		}
	}
	return np;
}

struct worker {
	struct gsim_core *core;
	unsigned int first, step, np;
};

/* gsim_tpc_run() touches only the TPC's own state and device memory. */
static void *run_tpcs(void *arg)
{
	struct worker *w = arg;
	unsigned int n;

	for (n = w->first; n < w->np; n += w->step)
		while (gsim_tpc_run(w->core, GAUDISIM_ENGINE_TPC_0 + n, UINT64_MAX))
			;
	return NULL;
}

static int relu_once(struct gsim_core *core, unsigned int np, unsigned int threads)
{
	struct worker w[8];
	pthread_t tid[8];
	unsigned int n, i;
	int err = 0;

	for (n = 0; n < np; n++)
		if (gsim_tpc_start(core, GAUDISIM_ENGINE_TPC_0 + n))
			return 1;
	for (i = 0; i < threads; i++) {
		w[i] = (struct worker){ core, i, threads, np };
		if (i)
			pthread_create(&tid[i], NULL, run_tpcs, &w[i]);
	}
	run_tpcs(&w[0]);
	for (i = 1; i < threads; i++)
		pthread_join(tid[i], NULL);
	for (n = 0; n < np; n++)
		err |= gsim_tpc_finish(core, GAUDISIM_ENGINE_TPC_0 + n);
	return err;
}

int main(int argc, char **argv)
{
	static const struct gsim_host_ops ops = {
		.dma_read = no_dma, .dma_write = no_dma_w, .msix_notify = no_msix,
		.guest_error = print_error, .clock_ns = clock_ns,
	};
	struct gsim_core_config cfg = { .hbm_size = HBM_SIZE, .hbm_bar_size = 256ull << 20 };
	char kpath[1024], err[512], *text, *slash;
	unsigned int runs = 10, threads = 1, np, n, i;
	double best_tpc = 1e30, best_cpy = 1e30, cpu_tpc = 1e30, cpu_cpy = 1e30;
	const char *msg = NULL;
	struct gsim_core *core;
	uint8_t *code, *src, *dst;
	float *x, *y;
	size_t ksize;

	snprintf(kpath, sizeof(kpath), "%s", __FILE__);
	slash = strrchr(kpath, '/');
	snprintf(slash ? slash + 1 : kpath, sizeof(kpath) - (size_t)(slash ? slash + 1 - kpath : 0),
		 "%s", "../../runtime/kernels/relu.tpcs");
	for (i = 1; i < (unsigned int)argc; i++) {
		if (!strcmp(argv[i], "-k") && i + 1 < (unsigned int)argc)
			snprintf(kpath, sizeof(kpath), "%s", argv[++i]);
		else if (!strcmp(argv[i], "-n") && i + 1 < (unsigned int)argc)
			runs = (unsigned int)atoi(argv[++i]);
		else if (!strcmp(argv[i], "-j") && i + 1 < (unsigned int)argc)
			threads = (unsigned int)atoi(argv[++i]);
		else if (!strcmp(argv[i], "-s") && i + 1 < (unsigned int)argc)
			BYTES = (uint64_t)atoi(argv[++i]) << 20;
		else {
			fprintf(stderr, "usage: tpc-bench [-k relu.tpcs] [-n runs] [-j 1..8] [-s MiB]\n");
			return 2;
		}
	}
	if (!runs || !threads || threads > 8 || !BYTES || BYTES > (uint64_t)MAX_MIB << 20) {
		fprintf(stderr, "tpc-bench: bad -n, -j or -s\n");
		return 2;
	}

	core = gsim_core_new(&cfg, &ops, NULL, &msg);
	if (!core) {
		fprintf(stderr, "tpc-bench: %s\n", msg);
		return 1;
	}
	for (n = 0; n < GAUDISIM_NUM_TPC; n++)
		if (gsim_tpc_init(core, GAUDISIM_ENGINE_TPC_0 + n)) {
			fprintf(stderr, "tpc-bench: TPC init failed\n");
			return 1;
		}
	text = read_file(kpath);
	if (!text) {
		perror(kpath);
		return 1;
	}
	if (tpc_assemble(text, strlen(text), kpath, &code, &ksize, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	memcpy(gsim_core_hbm(core) + KERNEL_ADDR, code, ksize);
	free(code);
	free(text);

	x = (float *)(gsim_core_hbm(core) + X_ADDR);
	y = (float *)(gsim_core_hbm(core) + Y_ADDR);
	for (i = 0; i < ELEMS; i++)
		x[i] = (float)((int)(i * 2654435761u >> 8) % 2001 - 1000) / 7.0f;
	np = program(core, (uint32_t)ksize);

	src = malloc(BYTES);
	dst = malloc(BYTES);
	if (!src || !dst)
		return 1;
	memset(src, 0x5a, BYTES);
	memset(dst, 0, BYTES);
	/* Alternate the two, so both see the same load on the machine;
	 * round 0 is the warm-up. */
	for (i = 0; i <= runs; i++) {
		double t0 = now(), c0 = cpu_now(), t, c;

		if (relu_once(core, np, threads)) {
			fprintf(stderr, "tpc-bench: launch failed\n");
			return 1;
		}
		t = now() - t0;
		c = cpu_now() - c0;
		if (i && t < best_tpc)
			best_tpc = t;
		if (i && c < cpu_tpc)
			cpu_tpc = c;

		t0 = now();
		c0 = cpu_now();
		memcpy(dst, src, BYTES);
		t = now() - t0;
		c = cpu_now() - c0;
		if (i && t < best_cpy)
			best_cpy = t;
		if (i && c < cpu_cpy)
			cpu_cpy = c;
		src[i]++;	/* keep the copies from being merged */
	}
	for (i = 0; i < ELEMS; i += 4099)
		if (y[i] != (x[i] > 0 ? x[i] : 0.0f)) {
			fprintf(stderr, "tpc-bench: wrong result at %u\n", i);
			return 1;
		}
	if (dst[BYTES - 1] != 0x5a)
		return 1;

	printf("tpc_relu_GBps=%.2f memcpy_GBps=%.2f ratio=%.2f\n", BYTES / best_tpc / 1e9,
	       BYTES / best_cpy / 1e9, best_cpy / best_tpc);
	/* The same per CPU second: robust when other work shares the machine. */
	printf("cpu: tpc_relu_GBps=%.2f memcpy_GBps=%.2f ratio=%.2f\n", BYTES / cpu_tpc / 1e9,
	       BYTES / cpu_cpy / 1e9, cpu_cpy / cpu_tpc);
	free(src);
	free(dst);
	for (n = 0; n < GAUDISIM_NUM_TPC; n++)
		gsim_tpc_fini(core, GAUDISIM_ENGINE_TPC_0 + n);
	gsim_core_free(core);
	return 0;
}
