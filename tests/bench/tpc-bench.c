// SPDX-License-Identifier: MIT
/*
 * TPC benchmark: the relu kernel (runtime/kernels/relu.tpcs) over 64 MiB
 * of FP32 in HBM, launched on the 8 TPCs through their queues as the
 * runtime does it (one CB per TPC: its part of the index space, the
 * tensors, COMMIT, then a sync-object increment behind an engine
 * barrier), against host memcpy of the same 64 MiB - relu reads and
 * writes as many bytes as memcpy does. The two alternate round by round
 * (round 0 warms up: it touches every page and fills the decode cache)
 * and the medians are reported:
 *   tpc_relu ... ratio=T_memcpy/T_relu   (throughput relative to memcpy)
 * The output is checked element by element against the reference relu
 * (tests/ref/gsim_ref_tpc.c).
 *
 * Usage: tpc-bench [-k KERNEL.tpcs] [-r ROUNDS] [-j THREADS] [-s MIB]
 *   THREADS: the device's worker threads (default: online CPUs)
 * GSIM_TPC_PORTABLE=1 (tpc-bench's own switch) creates the device with
 * tpc_portable set: the portable interpreter (the line says which).
 * GSIM_TPC_ISA (the core's own) picks the interpreter build; the line
 * names the one that ran (core_isa=).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_dev.h"
#include "bench_stats.h"
#include "gsim_ref_tpc.h"
#include "hw/gaudisim_hw_tpc.h"
#include "tpc_asm.h"

#define USAGE	"usage: tpc-bench [-k KERNEL.tpcs] [-r ROUNDS<=100] [-j THREADS<=64] [-s MIB<=1024]\n"
#define SOB	101u
#define KERNEL_ADDR	BENCH_DATA_BASE
#define X_ADDR		(BENCH_DATA_BASE + (2ull << 20))

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		text = calloc(1, (size_t)n + 1);
		if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
			free(text);
			text = NULL;
		}
	}
	fclose(f);
	return text;
}

static uint32_t load_kernel(struct bench_dev *d, const char *path)
{
	char err[512], *text = read_text(path);
	uint8_t *code;
	size_t size;

	if (!text) {
		perror(path);
		exit(1);
	}
	if (tpc_assemble(text, strlen(text), path, &code, &size, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		exit(1);
	}
	memcpy(bench_hbm(d, KERNEL_ADDR, size), code, size);
	free(code);
	free(text);
	return (uint32_t)size;
}

/* One CB per TPC with its part of relu over x -> y, as the runtime splits it. */
static unsigned int build_cbs(struct bench_cb *cbs, uint32_t ksize, uint64_t elems,
			      uint64_t y_addr)
{
	const unsigned int isize[GAUDISIM_TPC_NUM_DIMS] = {
		(unsigned int)((elems + 4095) / 4096), 1, 1, 1, 1,
	};
	struct gaudisim_tpc_part parts[GAUDISIM_NUM_TPC];
	unsigned int np = gaudisim_tpc_split(isize, GAUDISIM_NUM_TPC, parts), n, dim, t;

	for (n = 0; n < np; n++) {
		struct bench_cb *cb = &cbs[n];

		bench_cb_reset(cb);
		bench_cb_wreg(cb, GAUDISIM_TPC_KERNEL_ADDR_LO, (uint32_t)KERNEL_ADDR);
		bench_cb_wreg(cb, GAUDISIM_TPC_KERNEL_ADDR_HI, (uint32_t)(KERNEL_ADDR >> 32));
		bench_cb_wreg(cb, GAUDISIM_TPC_KERNEL_SIZE, ksize);
		for (dim = 0; dim < GAUDISIM_TPC_NUM_DIMS; dim++) {
			bench_cb_wreg(cb, GAUDISIM_TPC_ISPACE_SIZE(dim), isize[dim]);
			bench_cb_wreg(cb, GAUDISIM_TPC_PART_START(dim), parts[n].start[dim]);
			bench_cb_wreg(cb, GAUDISIM_TPC_PART_SIZE(dim), parts[n].size[dim]);
		}
		for (t = 0; t < 2; t++) {
			uint64_t a = t ? y_addr : X_ADDR;
			uint32_t b = GAUDISIM_TPC_TENSOR(t);

			bench_cb_wreg(cb, b + GAUDISIM_TPC_T_BASE_LO, (uint32_t)a);
			bench_cb_wreg(cb, b + GAUDISIM_TPC_T_BASE_HI, (uint32_t)(a >> 32));
			bench_cb_wreg(cb, b + GAUDISIM_TPC_T_DTYPE, GAUDISIM_DTYPE_FP32);
			bench_cb_wreg(cb, b + GAUDISIM_TPC_T_SIZE(0), (uint32_t)elems);
		}
		bench_cb_wreg(cb, GAUDISIM_TPC_COMMIT, GAUDISIM_TPC_COMMIT_GO);
		bench_cb_signal(cb, SOB);
	}
	return np;
}

int main(int argc, char **argv)
{
	unsigned long rounds = 9, threads = (unsigned long)sysconf(_SC_NPROCESSORS_ONLN), mib = 64;
	const char *kpath = "runtime/kernels/relu.tpcs";
	struct bench_cb cbs[GAUDISIM_NUM_TPC];
	double *t_tpc, *t_cpy, m_tpc, m_cpy;
	uint64_t bytes, elems, y_addr, i;
	uint32_t ksize, signals = 0;
	unsigned int np, n;
	const char *portable_env;
	struct bench_dev *d;
	bool portable;
	uint8_t *src, *dst;
	float *x, *y, *want;
	unsigned long r;
	int c;

	while ((c = getopt(argc, argv, "k:r:j:s:")) != -1) {
		if (c == 'k')
			kpath = optarg;
		else if (c == 'r')
			rounds = bench_arg(optarg, 100, USAGE);
		else if (c == 'j')
			threads = bench_arg(optarg, 64, USAGE);
		else if (c == 's')
			mib = bench_arg(optarg, 1024, USAGE);
		else
			return fprintf(stderr, USAGE), 2;
	}
	if (optind != argc || threads < 1)
		return fprintf(stderr, USAGE), 2;
	bytes = (uint64_t)mib << 20;
	elems = bytes / 4;
	y_addr = X_ADDR + bytes;

	portable_env = getenv("GSIM_TPC_PORTABLE");
	portable = portable_env && *portable_env && strcmp(portable_env, "0") != 0;
	d = bench_dev_new_tpc(4ull << 30, (unsigned int)threads, portable);
	ksize = load_kernel(d, kpath);
	x = (float *)bench_hbm(d, X_ADDR, bytes);
	y = (float *)bench_hbm(d, y_addr, bytes);
	for (i = 0; i < elems; i++)
		x[i] = (float)((int)(i * 2654435761u >> 8) % 2001 - 1000) / 7.0f;
	np = build_cbs(cbs, ksize, elems, y_addr);

	src = malloc(bytes);
	dst = malloc(bytes);
	want = malloc(bytes);
	t_tpc = calloc(rounds, sizeof(double));
	t_cpy = calloc(rounds, sizeof(double));
	if (!src || !dst || !want || !t_tpc || !t_cpy)
		return fprintf(stderr, "tpc-bench: out of memory\n"), 1;
	memset(src, 0x5a, bytes);
	memset(dst, 0, bytes);
	bench_sob_clear(d, SOB);

	for (r = 0; r <= rounds; r++) {
		double t0 = bench_now(), t1, t2;

		for (n = 0; n < np; n++)
			bench_submit(d, gaudisim_engine_queue_id(GAUDISIM_ENGINE_TPC_0 + n, 0),
				     &cbs[n]);
		signals += np;
		bench_wait_sob(d, SOB, signals, 600);
		t1 = bench_now();
		memcpy(dst, src, bytes);
		t2 = bench_now();
		src[r % bytes]++;	/* no two copies alike */
		if (r) {
			t_tpc[r - 1] = t1 - t0;
			t_cpy[r - 1] = t2 - t1;
		}
	}
	m_tpc = bench_median(t_tpc, rounds);
	m_cpy = bench_median(t_cpy, rounds);

	gsim_ref_tpc_relu_f32(x, want, 1, elems, elems, elems);
	if (memcmp(y, want, bytes) || dst[bytes - 1] != 0x5a) {
		fprintf(stderr, "tpc-bench: relu output differs from the reference relu\n");
		return 1;
	}
	printf("tpc: kernel=%s tpcs=%u device_threads=%u core_isa=%s interpreter=%s mib=%lu "
	       "rounds=%lu\n", kpath, np, gsim_core_threads(bench_core(d)), gsim_core_tpc_isa(bench_core(d)),
	       portable ? "portable" : "fast", mib, rounds);
	printf("tpc_relu: device_GBps=%.2f memcpy_GBps=%.2f ratio=%.3f goal>=0.8 checked=all\n",
	       bytes / m_tpc / 1e9, bytes / m_cpy / 1e9, m_cpy / m_tpc);
	free(src);
	free(dst);
	free(want);
	free(t_tpc);
	free(t_cpy);
	bench_dev_free(d);
	return 0;
}
