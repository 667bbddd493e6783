/*
 * hl-step-bench: what one launch costs the host, through libhlrt, against
 * the driver's own round trips measured in the same run.
 *
 *   step_launch_seed     hl-train's compiled training step of a model (the
 *                        seed model by default) through the trainer's own
 *                        device backend: patch + submit + wait, with the
 *                        step's offset in and loss out riding in the CS
 *                        (so it includes the step's device time); lazy
 *                        mode: one submission per step
 *   step_submit_seed     the host's part of step_launch_seed: the launch
 *                        call alone (bindings, copies, the CS ioctl), the
 *                        device's work still running when it returns
 *   step_launch_seed_eager  the same step compiled eager (--eager): one
 *                        submission per node, each waited for
 *   step_seed_queued     the same step with the backend's full queue in
 *                        flight, as hl-train runs it: a queue of steps
 *                        launched, then one wait, per step; the round
 *                        trip less this is the latency a lone step exposes
 *   step_seed_spe8       the same with steps_per_execution 8: a group of
 *                        8 steps in one submission (hlrt_launch_repeat),
 *                        then one wait, per step
 *   step_launch_minimal  a recipe of one small op (add_f32), compiled
 *                        once: hlrt_launch + hlrt_stream_synchronize
 *   op_eager             the same op through an eager session: hlrt_op
 *                        (cached compile, output allocation, launch, wait)
 *   op_lazy              the same op queued in a lazy session + hlrt_mark_step
 *   nop_cs               a CS of one NOP job submitted and waited for
 *                        through libhlthunk (no runtime)
 *   info_ioctl           a bare INFO ioctl on the control node
 *
 * The compute node is exclusive, so the runtime and the bare NOP CS
 * cannot hold it at once: each round runs a block of every measurement in
 * turn (seed step, the runtime's minimal launches, NOP CSs), and an INFO
 * ioctl on the control node follows every single sample of every block.
 * Each figure is a median and a 99th percentile (nearest rank) over all
 * rounds, in microseconds, with its median's ratio to the NOP CS's.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_device.h"
#include "backend.h"
#include "hlrt.h"
#include "hw/gaudisim_hw_queues.h"
#include "model.h"
#include "params.h"

#define BENCH_WARMUP 3
#define BENCH_MAX_COUNT 100000
#define BENCH_MAX_ROUNDS 100
/* Steps per submission of the step_seed_spe8 series. */
#define BENCH_SPE 8
/* Batches in the synthetic training set the seed step gathers from. */
#define BENCH_TRAIN_BATCHES 4
/* Elements of the minimal op's operands. */
#define BENCH_OP_ELEMS 256

enum bench_series {
	S_SEED, S_SEED_SUBMIT, S_SEED_EAGER, S_SEED_QUEUED, S_SEED_SPE, S_MINIMAL, S_EAGER, S_LAZY, S_NOP_CS, S_INFO, S_COUNT
};

static const char *const series_name[S_COUNT] = {
	"step_launch_seed", "step_submit_seed", "step_launch_seed_eager", "step_seed_queued", "step_seed_spe8", "step_launch_minimal", "op_eager", "op_lazy", "nop_cs",
	"info_ioctl",
};

struct bench {
	long count;			/* samples per series per round */
	long rounds;
	const char *model_path;
	int ctl_fd;			/* control node, for the INFO ioctls */
	int64_t *samples[S_COUNT];
	long n[S_COUNT];
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: hl-step-bench [-n COUNT] [-r ROUNDS] [-m MODEL.json]\n"
		"  -n COUNT   samples of each measurement per round, 1-%d (default 100)\n"
		"  -r ROUNDS  rounds, each a block of every measurement, 1-%d (default 3)\n"
		"  -m MODEL   model whose training step is timed\n"
		"             (default /usr/share/gaudisim/models/seed.json)\n",
		BENCH_MAX_COUNT, BENCH_MAX_ROUNDS);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static double percentile_us(const int64_t *sorted, long n, int pct)
{
	long rank = (n * pct + 99) / 100;

	return (double)sorted[rank < 1 ? 0 : rank - 1] / 1000.0;
}

static void record(struct bench *b, enum bench_series s, int64_t ns)
{
	b->samples[s][b->n[s]++] = ns;
}

/* One INFO ioctl on the control node, timed: the driver's floor. */
static int info_sample(struct bench *b)
{
	struct hlthunk_hw_ip_info hw;
	int64_t t0 = app_monotonic_ns();
	int rc = hlthunk_get_hw_ip_info(b->ctl_fd, &hw);

	if (rc) {
		fprintf(stderr, "hl-step-bench: INFO ioctl on the control node: %s\n",
			strerror(-rc));
		return -1;
	}
	record(b, S_INFO, app_monotonic_ns() - t0);
	return 0;
}

static int hlrt_check(hlrt_status st, const char *what)
{
	if (st == HLRT_SUCCESS)
		return 0;
	fprintf(stderr, "hl-step-bench: %s: %s (%s)\n", what, hlrt_last_error(),
		hlrt_status_name(st));
	return -1;
}

/* ---- the model's training step, through hl-train's device backend ------- */

/* Deterministic images in [0, 1) and labels: the step's cost, not its data. */
static int synthetic_dataset(struct dataset *ds, const struct model *m, uint32_t batch)
{
	uint32_t pixels = model_shape_size(&m->input), x = 12345;
	struct dataset_split *sp[2] = { &ds->train, &ds->test };

	memset(ds, 0, sizeof(*ds));
	snprintf(ds->name, sizeof(ds->name), "synthetic");
	ds->rows = m->input.h;
	ds->cols = m->input.w * m->input.c;
	ds->train.count = BENCH_TRAIN_BATCHES * batch;
	ds->test.count = batch;
	for (int k = 0; k < 2; k++) {
		sp[k]->images = malloc((size_t)sp[k]->count * pixels * sizeof(float));
		sp[k]->labels = malloc((size_t)sp[k]->count * sizeof(int32_t));
		if (!sp[k]->images || !sp[k]->labels)
			return -1;
		for (size_t i = 0; i < (size_t)sp[k]->count * pixels; i++) {
			x = x * 1103515245u + 12345u;
			sp[k]->images[i] = (float)(x >> 8) / (float)(1u << 24);
		}
		for (uint32_t i = 0; i < sp[k]->count; i++)
			sp[k]->labels[i] = (int32_t)(i % DATASET_CLASSES);
	}
	return 0;
}

static void synthetic_free(struct dataset *ds)
{
	free(ds->train.images);
	free(ds->train.labels);
	free(ds->test.images);
	free(ds->test.labels);
}

enum seed_mode {
	SEED_LAZY,		/* single steps, then a full queue of them */
	SEED_EAGER,		/* one submission per node, no queued series */
	SEED_GROUPED,		/* groups of BENCH_SPE steps per submission only */
};

static int seed_block(struct bench *b, const struct model *m, const struct dataset *ds,
		      enum seed_mode mode)
{
	const struct backend_ops *ops = &device_backend_ops;
	const bool eager = mode == SEED_EAGER;
	uint32_t batch = m->train.batch_size, order[BENCH_TRAIN_BATCHES * 1024];
	struct backend_setup setup = { .model = m, .data = ds, .batch = batch,
				       .bf16 = m->train.bf16, .eager = eager,
				       .steps_per_execution = mode == SEED_GROUPED ? BENCH_SPE : 1 };
	struct backend_step_result res[BENCH_TRAIN_BATCHES * 4];
	uint32_t depth = ops->depth < BENCH_TRAIN_BATCHES * 4 ? ops->depth
							       : BENCH_TRAIN_BATCHES * 4;
	struct train_err err = { "" };
	struct params p = { 0 }, mom = { 0 };
	void *ctx = NULL;
	int rc = -1;

	for (uint32_t i = 0; i < ds->train.count; i++)
		order[i] = i;
	if (ops->open(&ctx, &setup, &err))
		goto out;
	if (params_create(m, &p, &err) || params_create_state(m, &mom, &err))
		goto out;
	params_init_glorot(m, &p);
	if (ops->load_params(ctx, &p, mom.count ? &mom : NULL, &err) ||
	    ops->begin_epoch(ctx, order, &err))
		goto out;
	if (mode == SEED_GROUPED)
		depth = BENCH_SPE;
	for (long i = -BENCH_WARMUP; i < b->count && mode != SEED_GROUPED; i++) {
		uint32_t first = (uint32_t)((i + BENCH_WARMUP) % BENCH_TRAIN_BATCHES) * batch;
		int64_t t0 = app_monotonic_ns(), t1;

		if (ops->step(ctx, first, batch, m->train.learning_rate, &err))
			goto out;
		t1 = app_monotonic_ns();
		if (ops->collect(ctx, res, 1, &err))
			goto out;
		if (i >= 0) {
			if (!eager)
				record(b, S_SEED_SUBMIT, t1 - t0);
			record(b, eager ? S_SEED_EAGER : S_SEED, app_monotonic_ns() - t0);
			if (info_sample(b))
				goto out;
		}
	}
	if (eager) {
		rc = 0;
		goto out;
	}
	/* a full queue per sample: as many steps as the other series' samples */
	for (long i = mode == SEED_GROUPED ? -1 : 0; i < (b->count + depth - 1) / depth; i++) {
		int64_t t0 = app_monotonic_ns();

		for (uint32_t k = 0; k < depth; k++)
			if (ops->step(ctx, (k % BENCH_TRAIN_BATCHES) * batch, batch,
				      m->train.learning_rate, &err))
				goto out;
		if (ops->collect(ctx, res, depth, &err))
			goto out;
		if (i < 0)
			continue;	/* the group's first: its command buffers built */
		record(b, mode == SEED_GROUPED ? S_SEED_SPE : S_SEED_QUEUED,
		       (app_monotonic_ns() - t0) / depth);
		if (info_sample(b))
			goto out;
	}
	rc = 0;
out:
	if (rc && err.msg[0])
		fprintf(stderr, "hl-step-bench: training step: %s\n", err.msg);
	if (ctx)
		ops->close(ctx);
	params_free(&p);
	params_free(&mom);
	return rc;
}

/* ---- one small op: a compiled recipe, an eager and a lazy session ------- */

/* c = a + b on BENCH_OP_ELEMS floats, a and b INPUTs, c an OUTPUT. */
static int minimal_recipe(hlrt_recipe **recipe)
{
	struct hlrt_tensor_desc d = { .dtype = HLRT_FP32, .ndims = 1,
				      .dims = { BENCH_OP_ELEMS }, .role = HLRT_TENSOR_INPUT };
	hlrt_tensor *io[3];
	hlrt_graph *g;
	hlrt_node *n;
	hlrt_status st = hlrt_graph_create(&g);

	if (hlrt_check(st, "creating a graph"))
		return -1;
	d.name = "a";
	st = hlrt_tensor_create(g, &d, &io[0]);
	d.name = "b";
	if (!st)
		st = hlrt_tensor_create(g, &d, &io[1]);
	d.name = "c";
	d.role = HLRT_TENSOR_OUTPUT;
	if (!st)
		st = hlrt_tensor_create(g, &d, &io[2]);
	if (!st)
		st = hlrt_node_create(g, "add_f32", io, 2, &io[2], 1, NULL, 0, "bench/add", &n);
	if (!st)
		st = hlrt_graph_compile(g, NULL, recipe);
	hlrt_graph_destroy(g);
	return hlrt_check(st, "compiling the minimal recipe");
}

static int minimal_launches(struct bench *b, hlrt_device *dev, const hlrt_recipe *r)
{
	struct hlrt_tensor_binding bind[3] = { { "a", 0 }, { "b", 0 }, { "c", 0 } };
	const uint64_t bytes = BENCH_OP_ELEMS * sizeof(float);
	hlrt_stream *s = NULL;
	uint64_t ws = 0, wsize = 0;
	int rc = -1;

	for (int i = 0; i < 3; i++)
		if (hlrt_check(hlrt_device_malloc(dev, bytes, &bind[i].device_addr), "malloc"))
			goto out;
	if (hlrt_check(hlrt_recipe_workspace_size(r, &wsize), "workspace size") ||
	    (wsize && hlrt_check(hlrt_device_malloc(dev, wsize, &ws), "workspace")) ||
	    hlrt_check(hlrt_stream_create(dev, &s), "creating a stream"))
		goto out;
	for (long i = -BENCH_WARMUP; i < b->count; i++) {
		int64_t t0 = app_monotonic_ns();

		if (hlrt_check(hlrt_launch(s, r, bind, 3, ws), "launch") ||
		    hlrt_check(hlrt_stream_synchronize(s), "waiting for the launch"))
			goto out;
		if (i >= 0) {
			record(b, S_MINIMAL, app_monotonic_ns() - t0);
			if (info_sample(b))
				goto out;
		}
	}
	rc = 0;
out:
	if (s)
		hlrt_stream_destroy(s);
	if (ws)
		hlrt_device_free(dev, ws);
	for (int i = 0; i < 3; i++)
		if (bind[i].device_addr)
			hlrt_device_free(dev, bind[i].device_addr);
	return rc;
}

/* The same op N times in a session of MODE, each result released. */
static int session_ops(struct bench *b, hlrt_device *dev, uint32_t mode,
		       enum bench_series series)
{
	static float host[BENCH_OP_ELEMS];
	const uint64_t dims[1] = { BENCH_OP_ELEMS };
	const char *what = mode == HLRT_MODE_EAGER ? "eager session" : "lazy session";
	hlrt_session *ss;
	hlrt_value *in[2], *out;
	int rc = -1;

	for (int i = 0; i < BENCH_OP_ELEMS; i++)
		host[i] = (float)i * 0.5f;
	if (hlrt_check(hlrt_session_create(dev, mode, &ss), what))
		return -1;
	if ((mode == HLRT_MODE_EAGER) == !!hlrt_session_is_lazy(ss)) {
		fprintf(stderr, "hl-step-bench: the %s is not in that mode\n", what);
		goto out;
	}
	if (hlrt_check(hlrt_value_from_host(ss, HLRT_FP32, 1, dims, host, &in[0]), what) ||
	    hlrt_check(hlrt_value_from_host(ss, HLRT_FP32, 1, dims, host, &in[1]), what))
		goto out;
	for (long i = -BENCH_WARMUP; i < b->count; i++) {
		int64_t t0 = app_monotonic_ns();

		if (hlrt_check(hlrt_op(ss, "add_f32", in, 2, NULL, 0, &out, 1), what) ||
		    hlrt_check(hlrt_mark_step(ss), what))
			goto out;
		if (i >= 0)
			record(b, series, app_monotonic_ns() - t0);
		if (hlrt_check(hlrt_value_release(ss, out), what) || (i >= 0 && info_sample(b)))
			goto out;
	}
	rc = 0;
out:
	hlrt_session_destroy(ss);
	return rc;
}

static int runtime_block(struct bench *b, const hlrt_recipe *r)
{
	hlrt_device *dev;
	int rc;

	if (hlrt_check(hlrt_device_acquire(0, &dev), "acquiring device HPU:0"))
		return -1;
	rc = minimal_launches(b, dev, r);
	if (!rc)
		rc = session_ops(b, dev, HLRT_MODE_EAGER, S_EAGER);
	if (!rc)
		rc = session_ops(b, dev, HLRT_MODE_LAZY, S_LAZY);
	if (hlrt_check(hlrt_device_release(dev), "releasing the device"))
		rc = -1;
	return rc;
}

/* ---- the driver alone: a NOP CS through libhlthunk ------------------------ */

static int nop_cs_block(struct bench *b)
{
	struct gaudisim_cs_chunk chunk;
	struct app_device dev;
	struct app_cb cb;
	int rc = -1;

	if (app_open(&dev, 0))
		return -1;
	if (app_cb_create(&dev, &cb, 64))
		goto out_close;
	if (hlthunk_cbw_nop(&cb.w, 0))
		goto out_cb;
	memset(&chunk, 0, sizeof(chunk));
	chunk.cb_handle = cb.handle;
	chunk.queue_index = GAUDISIM_QUEUE_ID_DMA_0_0;
	chunk.cb_size = cb.w.used;
	for (long i = -BENCH_WARMUP; i < b->count; i++) {
		int64_t ns;

		if (app_submit_wait(&dev, &chunk, 1, &ns))
			goto out_cb;
		if (i >= 0) {
			record(b, S_NOP_CS, ns);
			if (info_sample(b))
				goto out_cb;
		}
	}
	rc = 0;
out_cb:
	app_cb_destroy(&dev, &cb);
out_close:
	app_close(&dev);
	return rc;
}

/* ---- main ------------------------------------------------------------------ */

static void report(struct bench *b)
{
	double nop_med;

	for (int s = 0; s < S_COUNT; s++)
		qsort(b->samples[s], (size_t)b->n[s], sizeof(int64_t), cmp_i64);
	nop_med = percentile_us(b->samples[S_NOP_CS], b->n[S_NOP_CS], 50);
	for (int s = 0; s < S_COUNT; s++) {
		double med = percentile_us(b->samples[s], b->n[s], 50);

		if (!b->n[s])
			continue;
		printf("%s median_us=%.1f p99_us=%.1f ratio_to_nop_cs=%.2f samples=%ld\n",
		       series_name[s], med, percentile_us(b->samples[s], b->n[s], 99),
		       med / nop_med, b->n[s]);
	}
}

static int parse_args(struct bench *b, int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "n:r:m:h")) != -1) {
		long v = 0;

		if (c == 'n' || c == 'r') {
			long max = c == 'n' ? BENCH_MAX_COUNT : BENCH_MAX_ROUNDS;

			v = app_parse_long(optarg, 1, max);
			if (v < 0) {
				fprintf(stderr, "hl-step-bench: -%c %s: want an integer 1-%ld\n",
					c, optarg, max);
				return 2;
			}
		}
		switch (c) {
		case 'n':
			b->count = v;
			break;
		case 'r':
			b->rounds = v;
			break;
		case 'm':
			b->model_path = optarg;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "hl-step-bench: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct bench b = { .count = 100, .rounds = 3, .ctl_fd = -1,
			   .model_path = "/usr/share/gaudisim/models/seed.json" };
	struct train_err err = { "" };
	hlrt_recipe *recipe = NULL;
	struct dataset ds = { 0 };
	struct model m;
	int rc = parse_args(&b, argc, argv);

	if (rc)
		return rc == 1 ? EXIT_SUCCESS : 2;
	if (model_load(b.model_path, &m, &err) ||
	    model_infer_shapes(&m, DATASET_CLASSES, &err)) {
		fprintf(stderr, "hl-step-bench: %s\n", err.msg);
		return 2;
	}
	if (m.train.batch_size > 1024) {
		fprintf(stderr, "hl-step-bench: %s: batch %u is over the 1024 this bench "
			"supports\n", b.model_path, m.train.batch_size);
		return 2;
	}
	rc = EXIT_FAILURE;
	for (int s = 0; s < S_COUNT; s++) {
		/* the INFO series gets one sample after every other sample */
		long per_round = s == S_INFO ? (S_COUNT - 1) * b.count : b.count;

		b.samples[s] = calloc((size_t)(per_round * b.rounds), sizeof(int64_t));
		if (!b.samples[s]) {
			fprintf(stderr, "hl-step-bench: out of memory\n");
			goto out;
		}
	}
	if (synthetic_dataset(&ds, &m, m.train.batch_size)) {
		fprintf(stderr, "hl-step-bench: out of memory\n");
		goto out;
	}
	b.ctl_fd = hlthunk_open_control(0, NULL);
	if (b.ctl_fd < 0) {
		fprintf(stderr, "hl-step-bench: cannot open the control node of accel0: %s\n",
			strerror(-b.ctl_fd));
		goto out;
	}
	if (minimal_recipe(&recipe))
		goto out;
	printf("hl-step-bench: model %s (batch %u), add_f32 of %d floats, %ld rounds of %ld "
	       "samples\n", m.name, m.train.batch_size, BENCH_OP_ELEMS, b.rounds, b.count);
	for (long r = 0; r < b.rounds; r++)
		if (seed_block(&b, &m, &ds, SEED_LAZY) || seed_block(&b, &m, &ds, SEED_EAGER) ||
		    seed_block(&b, &m, &ds, SEED_GROUPED) ||
		    runtime_block(&b, recipe) || nop_cs_block(&b))
			goto out;
	report(&b);
	rc = EXIT_SUCCESS;
out:
	if (recipe)
		hlrt_recipe_destroy(recipe);
	if (b.ctl_fd >= 0)
		hlthunk_close(b.ctl_fd);
	synthetic_free(&ds);
	for (int s = 0; s < S_COUNT; s++)
		free(b.samples[s]);
	return rc;
}
