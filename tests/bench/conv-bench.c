// SPDX-License-Identifier: MIT
/*
 * MME convolution benchmark: the MME's convolution modes (forward, dedx,
 * dedw) through the whole device path against an independent host
 * reference on the same data, measured in one run, interleaved:
 *
 *   device   a CB on the MME queue (geometry registers, COMMIT, a
 *            sync-object increment behind an engine barrier) submitted
 *            through the queue's PQ; the clock stops when the sync object
 *            says the convolution is done
 *   host     the classic lowering written here: the whole im2col matrix
 *            in memory and one cblas_sgemm (forward: cols @ w; dedw:
 *            cols^T @ dy), or cblas_sgemm then col2im (dedx)
 *
 * Round 0 warms up; medians of the others are reported per operation as
 * device_ms, host_ms and ratio = host / device (above 1: the device is
 * faster than the host's im2col + sgemm). The device's results are checked
 * against the host's within the documented bound.
 *
 * Usage: conv-bench [-r ROUNDS] [-j THREADS] [-l LAYER]
 *   LAYER 1, 2: LeNet's two convolutions at batch 128 (the CNN's shapes);
 *   3: a 3x3, 64 -> 64 channel layer on 32 images of 28x28.
 */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_dev.h"
#include "bench_ref.h"
#include "bench_stats.h"
#include "gsim_bf16.h"
#include "gsim_mme.h"
#include "hw/gaudisim_hw_mme.h"

#define USAGE	"usage: conv-bench [-r ROUNDS<=100] [-j THREADS<=64] [-l LAYER 1..3]\n"
#define SOB	101u

struct layer {
	uint32_t n, h, w, c, k, kh, kw, s, p, oh, ow;
};

static const struct layer layers[] = {
	{ 128, 28, 28, 1, 8, 5, 5, 1, 2, 0, 0 },
	{ 128, 14, 14, 8, 16, 5, 5, 1, 0, 0, 0 },
	{ 32, 28, 28, 64, 64, 3, 3, 1, 1, 0, 0 },
};

struct bufs {
	uint64_t x, w, y, y2, dx, dw;	/* device addresses: y is dy, y2 the forward's y */
	uint64_t nx, nw, ny, l, rows;
};

static void program(struct bench_cb *cb, const struct layer *g, const struct bufs *b,
		    unsigned int op)
{
	const uint32_t geo[GAUDISIM_MME_CONV_NUM_REGS] = {
		g->n, g->h, g->w, g->c, g->k, g->kh, g->kw, g->s, g->s, g->p, g->p, 1, 1,
	};
	uint64_t a = op == GAUDISIM_MME_OP_CONV_DEDX ? b->y : b->x;
	uint64_t bb = op == GAUDISIM_MME_OP_CONV_DEDW ? b->y : b->w;
	uint64_t d = op == GAUDISIM_MME_OP_CONV_FWD ? b->y2 :
		     op == GAUDISIM_MME_OP_CONV_DEDX ? b->dx : b->dw;
	uint32_t i;

	bench_cb_reset(cb);
	bench_cb_wreg(cb, GAUDISIM_MME_A_ADDR_LO, (uint32_t)a);
	bench_cb_wreg(cb, GAUDISIM_MME_A_ADDR_HI, (uint32_t)(a >> 32));
	bench_cb_wreg(cb, GAUDISIM_MME_B_ADDR_LO, (uint32_t)bb);
	bench_cb_wreg(cb, GAUDISIM_MME_B_ADDR_HI, (uint32_t)(bb >> 32));
	bench_cb_wreg(cb, GAUDISIM_MME_D_ADDR_LO, (uint32_t)d);
	bench_cb_wreg(cb, GAUDISIM_MME_D_ADDR_HI, (uint32_t)(d >> 32));
	bench_cb_wreg(cb, GAUDISIM_MME_DTYPE,
		      GAUDISIM_MME_DTYPE_VALUE(GAUDISIM_DTYPE_FP32, GAUDISIM_DTYPE_FP32));
	bench_cb_wreg(cb, GAUDISIM_MME_CTRL, GAUDISIM_MME_CTRL_OP_VALUE(op));
	bench_cb_wreg(cb, GAUDISIM_MME_ALPHA, gsim_f32_bits(1.0f));
	bench_cb_wreg(cb, GAUDISIM_MME_BETA, 0);
	for (i = 0; i < GAUDISIM_MME_CONV_NUM_REGS; i++)
		bench_cb_wreg(cb, GAUDISIM_MME_CONV_BASE + 4 * i, geo[i]);
	bench_cb_wreg(cb, GAUDISIM_MME_COMMIT, GAUDISIM_MME_COMMIT_GO);
	bench_cb_signal(cb, SOB);
}

/* The host reference's im2col: cols[rows x L], zero padding. */
static void im2col(const struct layer *g, const float *x, float *cols)
{
	uint64_t l = (uint64_t)g->kh * g->kw * g->c, r = 0;
	uint32_t n, a, b, i, j;

	for (n = 0; n < g->n; n++)
		for (a = 0; a < g->oh; a++)
			for (b = 0; b < g->ow; b++, r++)
				for (i = 0; i < g->kh; i++)
					for (j = 0; j < g->kw; j++) {
						int64_t ih = (int64_t)a * g->s + i - g->p;
						int64_t iw = (int64_t)b * g->s + j - g->p;
						float *dst = cols + r * l + ((uint64_t)i * g->kw + j) * g->c;

						if (ih < 0 || iw < 0 || ih >= g->h || iw >= g->w)
							memset(dst, 0, g->c * sizeof(float));
						else
							memcpy(dst, x + (((uint64_t)n * g->h + (uint64_t)ih) *
									 g->w + (uint64_t)iw) * g->c,
							       g->c * sizeof(float));
					}
}

static void col2im(const struct layer *g, const float *cols, float *dx)
{
	uint64_t l = (uint64_t)g->kh * g->kw * g->c, r = 0;
	uint32_t n, a, b, i, j, c;

	memset(dx, 0, (uint64_t)g->n * g->h * g->w * g->c * sizeof(float));
	for (n = 0; n < g->n; n++)
		for (a = 0; a < g->oh; a++)
			for (b = 0; b < g->ow; b++, r++)
				for (i = 0; i < g->kh; i++)
					for (j = 0; j < g->kw; j++) {
						int64_t ih = (int64_t)a * g->s + i - g->p;
						int64_t iw = (int64_t)b * g->s + j - g->p;
						const float *src = cols + r * l + ((uint64_t)i * g->kw + j) * g->c;
						float *dst;

						if (ih < 0 || iw < 0 || ih >= g->h || iw >= g->w)
							continue;
						dst = dx + (((uint64_t)n * g->h + (uint64_t)ih) * g->w +
							    (uint64_t)iw) * g->c;
						for (c = 0; c < g->c; c++)
							dst[c] += src[c];
					}
}


static double host_op(const struct layer *g, const struct bufs *b, const uint8_t *hbm,
		      unsigned int op, float *cols, float *out)
{
	const float *x = (const float *)(hbm + b->x), *w = (const float *)(hbm + b->w);
	const float *dy = (const float *)(hbm + b->y);
	int rows = (int)b->rows, l = (int)b->l, k = (int)g->k;
	double t0 = bench_now();

	if (op == GAUDISIM_MME_OP_CONV_FWD) {
		im2col(g, x, cols);
		bench_ref_sgemm(false, false, rows, k, l, cols, l, w, k, out, k);
	} else if (op == GAUDISIM_MME_OP_CONV_DEDW) {
		im2col(g, x, cols);
		bench_ref_sgemm(true, false, l, k, rows, cols, l, dy, k, out, k);
	} else {
		bench_ref_sgemm(false, true, rows, l, k, dy, k, w, k, cols, l);
		col2im(g, cols, out);
	}
	return bench_now() - t0;
}

static double run_device(struct bench_dev *d, const struct bench_cb *cb, uint32_t *signals)
{
	double t0 = bench_now();

	bench_submit(d, GAUDISIM_QUEUE_ID_MME_0, cb);
	bench_wait_sob(d, SOB, ++*signals, 600);
	return bench_now() - t0;
}

/* Worst |device - host| over (sum length * 2^-22 * (|host| + 1)): above 1 is wrong. */
static double compare(const float *dev, const float *host, uint64_t n, double len)
{
	double worst = 0;
	uint64_t i;

	for (i = 0; i < n; i++) {
		double e = fabs((double)dev[i] - host[i]) / (len * 0x1p-22 * (fabs(host[i]) + 1));

		if (!(e <= worst))
			worst = isnan(e) ? INFINITY : e;
	}
	return worst;
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "", "fwd", "dedx", "dedw" };
	unsigned long rounds = 7, threads = (unsigned long)sysconf(_SC_NPROCESSORS_ONLN), li = 2;
	struct layer g;
	struct bufs b;
	struct bench_dev *d;
	struct bench_cb *cb;
	uint32_t signals = 0, x = 1;
	uint8_t *hbm;
	uint64_t i, end;
	float *cols, *out;
	double *td, *th;
	unsigned int op;
	int c;

	while ((c = getopt(argc, argv, "r:j:l:")) != -1) {
		if (c == 'r')
			rounds = bench_arg(optarg, 100, USAGE);
		else if (c == 'j')
			threads = bench_arg(optarg, 64, USAGE);
		else if (c == 'l')
			li = bench_arg(optarg, 3, USAGE);
		else
			return fprintf(stderr, USAGE), 2;
	}
	if (optind != argc || threads < 1 || li < 1 || rounds < 1)
		return fprintf(stderr, USAGE), 2;
	openblas_set_num_threads((int)threads);
	g = layers[li - 1];
	g.oh = (g.h + 2 * g.p - g.kh) / g.s + 1;
	g.ow = (g.w + 2 * g.p - g.kw) / g.s + 1;
	b.nx = (uint64_t)g.n * g.h * g.w * g.c;
	b.nw = (uint64_t)g.kh * g.kw * g.c * g.k;
	b.ny = (uint64_t)g.n * g.oh * g.ow * g.k;
	b.l = (uint64_t)g.kh * g.kw * g.c;
	b.rows = (uint64_t)g.n * g.oh * g.ow;
	b.x = BENCH_DATA_BASE;
	b.w = b.x + ((b.nx * 4 + 4095) & ~4095ull);
	b.y = b.w + ((b.nw * 4 + 4095) & ~4095ull);
	b.y2 = b.y + ((b.ny * 4 + 4095) & ~4095ull);
	b.dx = b.y2 + ((b.ny * 4 + 4095) & ~4095ull);
	b.dw = b.dx + ((b.nx * 4 + 4095) & ~4095ull);
	end = b.dw + b.nw * 4;
	d = bench_dev_new((end + (1ull << 30) - 1) & ~((1ull << 30) - 1), (unsigned int)threads);
	hbm = bench_hbm(d, 0, end);
	for (i = 0; i < b.nx + b.nw + b.ny; i++) {
		float *p = i < b.nx ? (float *)(hbm + b.x) + i :
			   i < b.nx + b.nw ? (float *)(hbm + b.w) + (i - b.nx) :
			   (float *)(hbm + b.y) + (i - b.nx - b.nw);

		x = x * 1664525u + 1013904223u;
		*p = (float)(x >> 8) / (float)(1u << 24) - 0.5f;
	}
	cols = malloc(b.rows * b.l * sizeof(float));
	out = malloc((b.nx > b.ny ? (b.nx > b.nw ? b.nx : b.nw) : (b.ny > b.nw ? b.ny : b.nw)) *
		     sizeof(float));
	td = calloc(rounds, sizeof(double));
	th = calloc(rounds, sizeof(double));
	cb = malloc(sizeof(*cb));
	if (!cols || !out || !td || !th || !cb)
		return fprintf(stderr, "conv-bench: out of memory\n"), 1;
	bench_sob_clear(d, SOB);

	printf("conv: layer=%lu N=%u H=%u W=%u C=%u K=%u kernel=%ux%u stride=%u pad=%u "
	       "backend=%s device_threads=%u device_blas_threads=%s ref_blas_threads=%d "
	       "rounds=%lu\n", li, g.n, g.h, g.w, g.c, g.k, g.kh, g.kw, g.s, g.p,
	       gsim_mme_backend(), gsim_core_threads(bench_core(d)), DEVICE_BLAS_THREADS,
	       (int)threads, rounds);
	for (op = GAUDISIM_MME_OP_CONV_FWD; op <= GAUDISIM_MME_OP_CONV_DEDW; op++) {
		const float *dev = (const float *)(hbm + (op == GAUDISIM_MME_OP_CONV_FWD ? b.y2 :
					op == GAUDISIM_MME_OP_CONV_DEDX ? b.dx : b.dw));
		uint64_t n = op == GAUDISIM_MME_OP_CONV_FWD ? b.ny :
			     op == GAUDISIM_MME_OP_CONV_DEDX ? b.nx : b.nw;
		double len = op == GAUDISIM_MME_OP_CONV_FWD ? (double)b.l :
			     op == GAUDISIM_MME_OP_CONV_DEDX ? (double)g.kh * g.kw * g.k :
			     (double)b.rows, md, mh, err, flops = 2.0 * (double)b.rows * b.l * g.k;
		unsigned long r;

		program(cb, &g, &b, op);
		for (r = 0; r <= rounds; r++) {	/* round 0 warms up */
			double a = run_device(d, cb, &signals);
			double h = host_op(&g, &b, hbm, op, cols, out);

			if (r) {
				td[r - 1] = a;
				th[r - 1] = h;
			}
		}
		md = bench_median(td, rounds);
		mh = bench_median(th, rounds);
		err = compare(dev, out, n, len);
		printf("conv_%s: device_ms=%.3f host_im2col_sgemm_ms=%.3f device_gflops=%.2f "
		       "ratio_host_over_device=%.3f worst_err_over_bound=%.3g\n", names[op],
		       md * 1e3, mh * 1e3, flops / md / 1e9, mh / md, err);
		if (!(err <= 1)) {
			fprintf(stderr, "conv-bench: the device's %s differs from the host's\n",
				names[op]);
			return 1;
		}
	}
	free(cols);
	free(out);
	free(td);
	free(th);
	free(cb);
	bench_dev_free(d);
	return 0;
}
