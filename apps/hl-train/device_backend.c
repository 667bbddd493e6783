/*
 * The device backend of hl-train, on libhlrt: it executes the recipes
 * model_graph.c compiles from the model. The training and test sets
 * are uploaded to HBM once; each epoch uploads its sample order; a step
 * is one launch of a compiled recipe that gathers its batch on the
 * device (gather_rows at an offset into the order), runs the forward
 * pass, the loss, autodiff's backward pass and the fused SGD update, and
 * copies the loss and the count of correct predictions back in the same
 * submission. Per step the host writes one 4-byte offset and patches
 * nothing that did not move: its work does not grow with the data.
 * With steps_per_execution N > 1 the full-batch steps go in groups of N
 * through hlrt_launch_repeat: one submission runs N steps, each reading
 * its offset from a slot of its own and leaving its loss and count in
 * another; a shorter group ends an epoch (or goes before the partial
 * batch), with the same results as one launch per step.
 *
 * Data parallel (setup->nranks > 1), one process per rank: the step is
 * split in two recipes. The first runs the rank's slice of the batch and
 * autodiff, its gradients and loss scaled by the slice's share of the
 * batch, into "<param>/grad" buffers; those, the loss and the count (as
 * FP32) lie side by side in one buffer and one hlrt_all_reduce, on the
 * same stream, sums them over the ranks; the
 * second recipe applies the optimizer to the summed gradients, which
 * are the whole batch's, so every rank keeps the same parameters.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "hlrt.h"
#include "model_graph.h"

#define DEV_MAX_BUFS (3 * PARAMS_MAX + 16)
#define DEV_EVAL_BATCH 1000
/*
 * Steps in flight: the host queues the next ones while the device runs.
 * 16 keeps two groups of up to 8 steps_per_execution in flight (the loop
 * queues whole groups), so the device runs one while the host queues the
 * next instead of idling between groups; rounded up to whole groups it
 * stays within DEV_SLOTS for every group size.
 */
#define DEV_DEPTH 16
/* Result slots: the loop queues whole groups, at most 32 steps (train_loop.c). */
#define DEV_SLOTS HLRT_LAUNCH_REPEAT_MAX
/* A step's slot of a repeat group: its two tensors 128 bytes apart. */
#define DEV_REP_STRIDE 256
#define DEV_MiB (1024.0 * 1024.0)

/* A device buffer named like the persistent tensor bound to it. */
struct dev_buf {
	char name[HLRT_NAME_MAX];
	uint64_t addr;
	uint64_t bytes;
	bool view;		/* a part of another buffer: not freed alone */
};

/* One compiled step: a batch size and the recipe for it. */
struct dev_step {
	uint32_t batch;
	hlrt_recipe *recipe;
	struct hlrt_tensor_binding bind[DEV_MAX_BUFS];
	uint32_t n_bind;
};

struct dev_ctx {
	const struct model *m;
	const struct dataset *data;
	bool bf16;
	bool eager;			/* --eager: one submission per node */
	hlrt_device *dev;
	hlrt_stream *stream;
	struct dev_buf buf[DEV_MAX_BUFS];
	uint32_t n_buf;
	/* train: full batches and the last partial one; eval: the same */
	struct dev_step train, train_tail, eval, eval_tail;
	uint64_t workspace, workspace_bytes;
	/*
	 * Pinned host memory, one slot per queued step: its offset (and
	 * learning rate) in, its loss and correct count out.
	 */
	struct dev_slot {
		int32_t offset;
		int32_t step;		/* training steps before this one (Dropout) */
		float lr;
		float loss;
		int32_t correct;
		float dp_correct;	/* data parallel: the ranks' summed count */
		uint32_t count;
		bool rep;		/* the results are in rep_out */
	} *slot;
	/*
	 * steps_per_execution: the inputs and outputs of a group's steps,
	 * one DEV_REP_STRIDE slot each, laid out alike in pinned memory (per
	 * result slot) and on the device (per step of the group).
	 */
	uint32_t spe;
	struct dev_rep_in {
		int32_t offset;
		int32_t pad0[31];
		int32_t step;
		int32_t pad1[31];
	} *rep_in;
	struct dev_rep_out {
		float loss;
		int32_t pad0[31];
		int32_t correct;
		int32_t pad1[31];
	} *rep_out;
	uint64_t rep_in_dev, rep_out_dev;
	struct hlrt_tensor_binding rep_bind[DEV_MAX_BUFS];	/* train's, on those slots */
	struct hlrt_launch_iter rep_iter[4];
	uint32_t n_rep_iter;
	uint32_t pending, pending_first;	/* the group being gathered */
	float pending_lr;
	uint32_t queued;	/* steps launched, not yet collected */
	uint32_t steps;		/* training steps launched since open */
	bool lr_valid;		/* lr_dev is on the device */
	float lr_dev;
	int32_t *order;		/* pinned staging of an epoch's order */
	bool profiling;
	/* Data parallel: train/train_tail run this rank's slice of a batch. */
	hlrt_comm *comm;
	uint32_t rank, nranks;
	uint32_t batch, tail;	/* the whole batches train, train_tail serve */
	struct dev_step opt;	/* the optimizer on the summed gradients */
	struct dev_buf *sum;	/* every "<param>/grad", the loss and the count, summed at once */
	struct model_graph_state state;	/* where libhlrt keeps the optimizer's */
};

_Static_assert(MODEL_MAX_STEPS_PER_EXECUTION <= HLRT_LAUNCH_REPEAT_MAX, "group size");
/* DEV_DEPTH in whole groups of k <= DEV_DEPTH: under 2 DEV_DEPTH; a larger k is one group (above) */
_Static_assert(2 * DEV_DEPTH <= DEV_SLOTS + 1, "queued groups fit the result slots");
_Static_assert(sizeof(struct dev_rep_in) == DEV_REP_STRIDE &&
	       sizeof(struct dev_rep_out) == DEV_REP_STRIDE, "a step's slot");

static int dev_flush(struct dev_ctx *d, struct train_err *err);

/* ---- device buffers, by tensor name --------------------------------------- */

static struct dev_buf *dev_buf_find(struct dev_ctx *d, const char *name)
{
	for (uint32_t i = 0; i < d->n_buf; i++)
		if (strcmp(d->buf[i].name, name) == 0)
			return &d->buf[i];
	return NULL;
}

/* The buffer for NAME, allocated (and zeroed) on first use. */
static struct dev_buf *dev_buf_get(struct dev_ctx *d, const char *name, uint64_t bytes,
				   struct train_err *err)
{
	struct dev_buf *b = dev_buf_find(d, name);
	char what[HLRT_NAME_MAX + 32];
	hlrt_status st;

	if (b) {
		if (b->bytes < bytes) {
			train_err_set(err, "tensor %s: %" PRIu64 " bytes bound, %" PRIu64
				      " needed", name, b->bytes, bytes);
			return NULL;
		}
		return b;
	}
	if (d->n_buf == DEV_MAX_BUFS) {
		train_err_set(err, "too many device tensors");
		return NULL;
	}
	b = &d->buf[d->n_buf];
	snprintf(b->name, sizeof(b->name), "%s", name);
	b->bytes = bytes;
	snprintf(what, sizeof(what), "allocating %s", name);
	st = hlrt_device_malloc(d->dev, bytes, &b->addr);
	if (st == HLRT_SUCCESS)
		st = hlrt_memset_async(d->stream, b->addr, 0, bytes);
	if (dev_fail(st, what, err))
		return NULL;
	d->n_buf++;
	return b;
}

/* NAME: BYTES of buffer B at OFFSET, bound like a buffer of its own. */
static int dev_buf_view(struct dev_ctx *d, const char *name, const struct dev_buf *b,
			uint64_t offset, uint64_t bytes, struct train_err *err)
{
	struct dev_buf *v;

	if (dev_buf_find(d, name))
		return train_err_set(err, "tensor %s: bound twice", name);
	if (d->n_buf == DEV_MAX_BUFS)
		return train_err_set(err, "too many device tensors");
	v = &d->buf[d->n_buf++];
	snprintf(v->name, sizeof(v->name), "%s", name);
	v->addr = b->addr + offset;
	v->bytes = bytes;
	v->view = true;
	return 0;
}

static int dev_upload(struct dev_ctx *d, const char *name, const void *src,
		      uint64_t bytes, struct train_err *err)
{
	struct dev_buf *b = dev_buf_get(d, name, bytes, err);

	if (!b)
		return -1;
	return dev_fail(hlrt_memcpy_h2d(d->dev, b->addr, src, bytes), name, err);
}

/* Bindings for every persistent tensor of a recipe, from dev buffers. */
static int dev_bind(struct dev_ctx *d, struct dev_step *s, struct train_err *err)
{
	uint32_t count;
	uint64_t ws;

	if (dev_fail(hlrt_recipe_persistent_count(s->recipe, &count), "recipe", err) ||
	    dev_fail(hlrt_recipe_workspace_size(s->recipe, &ws), "recipe", err))
		return -1;
	if (count > DEV_MAX_BUFS)
		return train_err_set(err, "recipe binds %u tensors (at most %d)", count,
				     DEV_MAX_BUFS);
	if (ws > d->workspace_bytes)
		d->workspace_bytes = ws;
	s->n_bind = 0;
	for (uint32_t i = 0; i < count; i++) {
		struct hlrt_persistent_info pi;
		struct dev_buf *b;

		if (dev_fail(hlrt_recipe_persistent_info(s->recipe, i, &pi), "recipe", err))
			return -1;
		/* Optimizer state ("<param>/momentum", "<param>/m", ..) starts at zero. */
		b = dev_buf_get(d, pi.name, pi.bytes, err);
		if (!b)
			return -1;
		s->bind[s->n_bind].name = b->name;
		s->bind[s->n_bind].device_addr = b->addr;
		s->n_bind++;
	}
	return 0;
}

static int dev_prepare_step(struct dev_ctx *d, struct params *p, struct dev_step *s,
			    uint32_t batch, bool train, float share, struct train_err *err)
{
	struct model_graph_setup gs = { .m = d->m, .data = d->data, .bf16 = d->bf16,
					.eager = d->eager, .nranks = d->nranks };

	s->batch = batch;
	if (batch == 0)
		return 0;
	return model_graph_step(&gs, p, batch, train, share, &s->recipe, &d->state, err) ||
	       dev_bind(d, s, err) ? -1 : 0;
}

/* Data parallel: this rank's samples [*lo, *lo + return) of a batch of COUNT. */
static uint32_t dev_slice(const struct dev_ctx *d, uint32_t count, uint32_t *lo)
{
	uint64_t a = (uint64_t)d->rank * count / d->nranks;
	uint64_t b = (uint64_t)(d->rank + 1) * count / d->nranks;

	*lo = (uint32_t)a;
	return (uint32_t)(b - a);
}

/*
 * Data parallel: the gradients, the loss and the correct count side by
 * side in one buffer, so that one all-reduce sums them all (its latency,
 * not its size, is what a step of a small model pays); the slices'
 * steps; the optimizer.
 */
static int dev_prepare_dp(struct dev_ctx *d, struct params *p, uint32_t batch,
			  struct train_err *err)
{
	const uint64_t align = 256;
	uint64_t total = align, off = 0;
	uint32_t lo, n;

	for (uint32_t i = 0; i < p->trainable; i++)
		total += (p->t[i].count * sizeof(float) + align - 1) / align * align;
	d->sum = dev_buf_get(d, "dp/sum", total, err);
	if (!d->sum)
		return -1;
	for (uint32_t i = 0; i < p->trainable; i++) {
		char name[HLRT_NAME_MAX];
		uint64_t bytes = p->t[i].count * sizeof(float);

		model_graph_grad_name(name, sizeof(name), &p->t[i]);
		if (dev_buf_view(d, name, d->sum, off, bytes, err))
			return -1;
		off += (bytes + align - 1) / align * align;
	}
	if (dev_buf_view(d, "loss", d->sum, off, sizeof(float), err) ||
	    dev_buf_view(d, MODEL_GRAPH_DP_CORRECT, d->sum, off + align / 2, sizeof(float), err))
		return -1;
	if (!d->rank)
		printf("data parallel: %u ranks, one all-reduce of %llu bytes a step (%s)\n",
		       d->nranks, (unsigned long long)total,
		       hlrt_all_reduce_algorithm(d->comm, total / sizeof(float), HLRT_FP32));
	d->batch = batch;
	d->tail = d->data->train.count % batch;
	n = dev_slice(d, d->batch, &lo);
	if (dev_prepare_step(d, p, &d->train, n, true, (float)n / d->batch, err))
		return -1;
	n = d->tail ? dev_slice(d, d->tail, &lo) : 0;
	if (dev_prepare_step(d, p, &d->train_tail, n, true, n ? (float)n / d->tail : 0, err))
		return -1;
	return model_graph_optimizer(d->m, d->eager, p, &d->opt.recipe, &d->state, err) ||
	       dev_bind(d, &d->opt, err) ? -1 : 0;
}

/*
 * steps_per_execution: the group's slots on the device and in pinned
 * memory, and the training step's bindings with its offset, update
 * count, loss and correct count on slot 0, advancing a slot per step.
 */
static int dev_prepare_repeat(struct dev_ctx *d, struct train_err *err)
{
	static const struct {
		const char *name;
		bool out;
		uint64_t at;
	} adv[] = {
		{ "offset", false, 0 }, { MODEL_GRAPH_STEP, false, 128 },
		{ "loss", true, 0 }, { "correct", true, 128 },
	};
	uint64_t bytes = (uint64_t)DEV_REP_STRIDE * HLRT_LAUNCH_REPEAT_MAX;

	if (dev_fail(hlrt_host_malloc(d->dev, DEV_SLOTS * sizeof(*d->rep_in),
				      (void **)&d->rep_in), "pinned memory", err) ||
	    dev_fail(hlrt_host_malloc(d->dev, DEV_SLOTS * sizeof(*d->rep_out),
				      (void **)&d->rep_out), "pinned memory", err) ||
	    dev_fail(hlrt_device_malloc(d->dev, bytes, &d->rep_in_dev), "step slots", err) ||
	    dev_fail(hlrt_device_malloc(d->dev, bytes, &d->rep_out_dev), "step slots", err))
		return -1;
	memcpy(d->rep_bind, d->train.bind, sizeof(d->rep_bind[0]) * d->train.n_bind);
	for (uint32_t i = 0; i < d->train.n_bind; i++) {
		for (size_t a = 0; a < sizeof(adv) / sizeof(adv[0]); a++) {
			if (strcmp(d->rep_bind[i].name, adv[a].name))
				continue;
			d->rep_bind[i].device_addr = (adv[a].out ? d->rep_out_dev : d->rep_in_dev) +
						     adv[a].at;
			d->rep_iter[d->n_rep_iter++] = (struct hlrt_launch_iter){
				d->rep_bind[i].name, DEV_REP_STRIDE };
		}
	}
	return 0;
}

/* ---- HBM budget ------------------------------------------------------------ */

/* Refuse up front a model whose parameters and data cannot fit in HBM. */
static int dev_check_hbm(struct dev_ctx *d, const struct params *p, struct train_err *err)
{
	struct hlrt_device_info info;
	const struct dataset *ds = d->data;
	uint64_t sample = model_shape_size(&d->m->input) * 4ull + 8;
	const char *const *suffix;
	uint32_t copies = 1 + model_optimizer_slots(&d->m->train, &suffix) + (d->nranks > 1);
	uint64_t need = (uint64_t)p->total * 4 * copies +
			((uint64_t)ds->train.count + ds->test.count) * sample;

	if (dev_fail(hlrt_device_get_info(d->dev, &info), "device info", err))
		return -1;
	if (need > info.hbm_free)
		return train_err_set(err,
			"model %s does not fit in device memory: its %zu parameters and the data "
			"need %.1f MiB of HBM, %.1f MiB are free", d->m->name, p->total,
			need / DEV_MiB, info.hbm_free / DEV_MiB);
	return 0;
}

/* ---- backend operations ---------------------------------------------------- */

static void dev_close(void *ctx)
{
	struct dev_ctx *d = ctx;
	struct dev_step *steps[] = { &d->train, &d->train_tail, &d->eval, &d->eval_tail,
				     &d->opt };

	if (!d)
		return;
	if (d->stream)
		hlrt_stream_synchronize(d->stream);
	/* Waits for its work; the peers see this rank leave. */
	if (d->comm)
		hlrt_comm_destroy(d->comm);
	/* The profile is written now, with every launch of the run in it. */
	if (d->profiling)
		hlrt_profiler_stop(d->dev);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (steps[i]->recipe)
			hlrt_recipe_destroy(steps[i]->recipe);
	if (d->dev) {
		for (uint32_t i = 0; i < d->n_buf; i++)
			if (!d->buf[i].view)
				hlrt_device_free(d->dev, d->buf[i].addr);
		if (d->workspace)
			hlrt_device_free(d->dev, d->workspace);
		if (d->slot)
			hlrt_host_free(d->dev, d->slot);
		if (d->rep_in)
			hlrt_host_free(d->dev, d->rep_in);
		if (d->rep_out)
			hlrt_host_free(d->dev, d->rep_out);
		if (d->rep_in_dev)
			hlrt_device_free(d->dev, d->rep_in_dev);
		if (d->rep_out_dev)
			hlrt_device_free(d->dev, d->rep_out_dev);
		if (d->order)
			hlrt_host_free(d->dev, d->order);
		if (d->stream)
			hlrt_stream_destroy(d->stream);
		/* Releases whatever is left and the device itself. */
		hlrt_device_release(d->dev);
	}
	free(d);
}

static int dev_open(void **ctx, const struct backend_setup *setup, struct train_err *err)
{
	const struct dataset *ds = setup->data;
	const struct model_shape *in = &setup->model->input;
	uint64_t sample = model_shape_size(in) * sizeof(float);
	uint32_t eval_batch = ds->test.count < DEV_EVAL_BATCH ? ds->test.count : DEV_EVAL_BATCH;
	struct params shapes;
	struct dev_ctx *d;
	int32_t *test_order = NULL;
	hlrt_status st;
	int ret = -1;

	d = calloc(1, sizeof(*d));
	if (!d)
		return train_err_set(err, "out of memory");
	d->m = setup->model;
	d->data = ds;
	d->bf16 = setup->bf16;
	d->eager = setup->eager;
	d->rank = setup->rank;
	d->nranks = setup->nranks > 1 ? setup->nranks : 1;
	d->spe = setup->steps_per_execution > 1 ? setup->steps_per_execution : 1;
	if (d->spe > HLRT_LAUNCH_REPEAT_MAX) {
		train_err_set(err, "steps_per_execution %u: at most %d", d->spe,
			      HLRT_LAUNCH_REPEAT_MAX);
		free(d);
		return -1;
	}
	/* each rank would draw its own masks and keep its own moving statistics */
	if (d->nranks > 1 && (model_has_layer(d->m, MODEL_DROPOUT) ||
			      model_has_layer(d->m, MODEL_BATCHNORM))) {
		train_err_set(err, "data-parallel training (--devices %u) does not support Dropout "
			      "or BatchNormalization layers yet; train on one device", d->nranks);
		free(d);
		return -1;
	}
	if (params_layout(d->m, &shapes, err)) {
		free(d);
		return -1;
	}
	st = hlrt_device_acquire(0, &d->dev);
	if (st == HLRT_DEVICE_BUSY) {
		train_err_set(err, "device HPU:0 is busy (another process holds it)");
		goto out;
	}
	if (dev_fail(st, "acquiring device HPU:0", err) || dev_check_hbm(d, &shapes, err))
		goto out;
	if (setup->profile) {
		st = hlrt_profiler_start(d->dev, setup->profile);
		if (st)
			fprintf(stderr, "hl-train: warning: no profile: %s (%s)\n",
				hlrt_last_error(), hlrt_status_name(st));
		d->profiling = st == HLRT_SUCCESS;
	}
	if (dev_fail(hlrt_stream_create(d->dev, &d->stream), "creating a stream", err) ||
	    dev_fail(hlrt_host_malloc(d->dev, DEV_SLOTS * sizeof(*d->slot),
				      (void **)&d->slot), "pinned memory", err) ||
	    dev_fail(hlrt_host_malloc(d->dev, ds->train.count * sizeof(int32_t),
				      (void **)&d->order), "pinned memory", err))
		goto out;
	if (d->nranks > 1) {
		hlrt_comm_id id;

		if (dev_fail(hlrt_comm_id_parse(setup->comm_id ? setup->comm_id : "", &id),
			     "the communicator id", err) ||
		    dev_fail(hlrt_comm_init_rank(&d->comm, d->nranks, &id, d->rank, d->dev),
			     "joining the other ranks", err))
			goto out;
	}
	/* The data sets, once. */
	test_order = malloc(ds->test.count * sizeof(int32_t));
	if (!test_order) {
		train_err_set(err, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < ds->test.count; i++)
		test_order[i] = (int32_t)i;
	if (dev_upload(d, "train/images", ds->train.images, ds->train.count * sample, err) ||
	    dev_upload(d, "train/labels", ds->train.labels, ds->train.count * 4ull, err) ||
	    dev_upload(d, "test/images", ds->test.images, ds->test.count * sample, err) ||
	    dev_upload(d, "test/labels", ds->test.labels, ds->test.count * 4ull, err) ||
	    dev_upload(d, "test/order", test_order, ds->test.count * 4ull, err) ||
	    !dev_buf_get(d, "train/order", ds->train.count * 4ull, err))
		goto out;
	if (d->nranks > 1) {
		if (dev_prepare_dp(d, &shapes, setup->batch, err))
			goto out;
	} else if (dev_prepare_step(d, &shapes, &d->train, setup->batch, true, 1.0f, err) ||
		   dev_prepare_step(d, &shapes, &d->train_tail, ds->train.count % setup->batch,
				    true, 1.0f, err)) {
		goto out;
	}
	if (d->nranks == 1 && d->spe > 1 && dev_prepare_repeat(d, err))
		goto out;
	if (dev_prepare_step(d, &shapes, &d->eval, eval_batch, false, 1.0f, err) ||
	    dev_prepare_step(d, &shapes, &d->eval_tail, ds->test.count % eval_batch,
			     false, 1.0f, err))
		goto out;
	if (d->workspace_bytes &&
	    dev_fail(hlrt_device_malloc(d->dev, d->workspace_bytes, &d->workspace),
		     "allocating the workspace", err))
		goto out;
	if (dev_fail(hlrt_stream_synchronize(d->stream), "uploading the data", err))
		goto out;
	ret = 0;
out:
	free(test_order);
	params_free(&shapes);
	if (ret) {
		dev_close(d);
		return -1;
	}
	*ctx = d;
	return 0;
}

/*
 * The device buffer of tensor I of P: a parameter's by its name, the
 * optimizer's state by the name libhlrt gave it (dev_note_state).
 */
static struct dev_buf *dev_params_buf(struct dev_ctx *d, const struct params *p, uint32_t i,
				      bool state, struct train_err *err)
{
	const char *name = state ? d->state.name[i] : p->t[i].name;
	struct dev_buf *b;

	if (state && (p->count != d->state.count || i >= d->state.count)) {
		train_err_set(err, "%u optimizer state tensors, libhlrt keeps %u", p->count,
			      d->state.count);
		return NULL;
	}
	b = dev_buf_find(d, name);
	if (!b || b->bytes != p->t[i].count * sizeof(float)) {
		train_err_set(err, "tensor %s: no device buffer of its size", name);
		return NULL;
	}
	return b;
}

/* Copy every tensor of p (parameters or optimizer state) to or from the device. */
static int dev_params_xfer(struct dev_ctx *d, const struct params *p, bool state,
			   bool to_device, struct train_err *err)
{
	for (uint32_t i = 0; i < p->count; i++) {
		const struct params_tensor *t = &p->t[i];
		struct dev_buf *b = dev_params_buf(d, p, i, state, err);
		hlrt_status st;

		if (!b)
			return -1;
		st = to_device ? hlrt_memcpy_h2d(d->dev, b->addr, t->data, b->bytes)
			       : hlrt_memcpy_d2h(d->dev, t->data, b->addr, b->bytes);
		if (dev_fail(st, b->name, err))
			return -1;
	}
	return 0;
}

/* The update count of LAMB and Adam(W) (INT32 on the device): *updates to the device or back. */
static int dev_step_xfer(struct dev_ctx *d, uint64_t *updates, bool to_device,
			 struct train_err *err)
{
	const char *name = d->state.step;
	struct dev_buf *b;
	int32_t step;

	if (!model_optimizer_counts_updates(&d->m->train))
		return 0;
	b = dev_buf_find(d, name);
	if (!b || b->bytes != sizeof(step))
		return train_err_set(err, "the update count %s: no device buffer of its size",
				     name);
	if (to_device) {
		if (*updates > INT32_MAX)
			return train_err_set(err, "%s: %" PRIu64 " updates done, at most %d",
					     model_optimizer_name(d->m->train.optimizer),
					     *updates, INT32_MAX);
		step = (int32_t)*updates;
		return dev_fail(hlrt_memcpy_h2d(d->dev, b->addr, &step, sizeof(step)), name, err);
	}
	if (dev_fail(hlrt_memcpy_d2h(d->dev, &step, b->addr, sizeof(step)), name, err))
		return -1;
	*updates = (uint64_t)step;
	return 0;
}

/* Data parallel: every tensor of p from rank 0, so all ranks start alike. */
static int dev_bcast(struct dev_ctx *d, const struct params *p, bool state,
		     struct train_err *err)
{
	for (uint32_t i = 0; i < p->count; i++) {
		struct dev_buf *b = dev_params_buf(d, p, i, state, err);

		if (!b)
			return -1;
		if (dev_fail(hlrt_broadcast(d->comm, b->addr, b->addr, p->t[i].count, HLRT_FP32,
					    0, d->stream), b->name, err))
			return -1;
	}
	return 0;
}

static int dev_load_params(void *ctx, const struct params *p, const struct params *state,
			   struct train_err *err)
{
	struct dev_ctx *d = ctx;
	uint64_t updates = state ? state->updates : 0;

	if (dev_params_xfer(d, p, false, true, err))
		return -1;
	if (state && dev_params_xfer(d, state, true, true, err))
		return -1;
	/* no state: the moments stay as allocated (zero), the count restarts */
	if (dev_step_xfer(d, &updates, true, err))
		return -1;
	if (d->nranks > 1 && (dev_bcast(d, p, false, err) ||
			      (state && dev_bcast(d, state, true, err)) ||
			      dev_fail(hlrt_stream_synchronize(d->stream),
				       "broadcasting the parameters", err)))
		return -1;
	return 0;
}

static int dev_store_params(void *ctx, struct params *p, struct params *state,
			    struct train_err *err)
{
	struct dev_ctx *d = ctx;

	if (dev_flush(d, err) ||
	    dev_fail(hlrt_stream_synchronize(d->stream), "synchronising", err) ||
	    dev_params_xfer(d, p, false, false, err))
		return -1;
	if (!state)
		return 0;
	return dev_params_xfer(d, state, true, false, err) ||
	       dev_step_xfer(d, &state->updates, false, err);
}

static int dev_begin_epoch(void *ctx, const uint32_t *order, struct train_err *err)
{
	struct dev_ctx *d = ctx;
	uint32_t n = d->data->train.count;
	struct dev_buf *b = dev_buf_find(d, "train/order");

	/* the steps gathered so far read the old order */
	if (dev_flush(d, err))
		return -1;
	for (uint32_t i = 0; i < n; i++)
		d->order[i] = (int32_t)order[i];
	return dev_fail(hlrt_memcpy_h2d_async(d->stream, b->addr, d->order, n * 4ull),
			"uploading the epoch's order", err);
}

/*
 * Queue one launch of S at OFFSET (LR 0: an evaluation step, which has
 * none) in the next slot: the offset (and a changed learning rate) ride
 * in as "pre" copies, the loss and the correct count come back as "post"
 * copies, all in the one submission of the step.
 */
static int dev_launch(struct dev_ctx *d, struct dev_step *s, uint32_t offset, float lr,
		      struct train_err *err)
{
	struct dev_slot *sl = &d->slot[d->queued];
	struct dev_buf *lrb = dev_buf_find(d, "lr"), *stepb = dev_buf_find(d, MODEL_GRAPH_STEP);
	struct hlrt_host_copy pre[3] = {
		{ &sl->offset, dev_buf_find(d, "offset")->addr, sizeof(int32_t) },
	};
	struct hlrt_host_copy post[2] = {
		{ &sl->loss, dev_buf_find(d, "loss")->addr, sizeof(float) },
		{ &sl->correct, dev_buf_find(d, "correct")->addr, sizeof(int32_t) },
	};
	uint32_t n_pre = 1;

	if (d->queued == DEV_SLOTS)
		return train_err_set(err, "more than %d steps queued", DEV_SLOTS);
	sl->offset = (int32_t)offset;
	sl->count = s->batch;
	sl->rep = false;
	if (lr > 0 && lrb && (!d->lr_valid || lr != d->lr_dev)) {
		sl->lr = lr;
		d->lr_dev = lr;
		d->lr_valid = true;
		pre[n_pre++] = (struct hlrt_host_copy){ &sl->lr, lrb->addr, sizeof(float) };
	}
	if (lr > 0 && stepb) {
		sl->step = (int32_t)d->steps;
		pre[n_pre++] = (struct hlrt_host_copy){ &sl->step, stepb->addr, sizeof(int32_t) };
	}
	if (dev_fail(hlrt_launch_ex(d->stream, s->recipe, s->bind, s->n_bind, d->workspace,
				    pre, n_pre, post, 2), "launch", err))
		return -1;
	d->steps += lr > 0;
	d->queued++;
	return 0;
}

/*
 * Launch the steps gathered for a group: their offsets and update counts
 * in (and a changed learning rate), their losses and counts out, all in
 * the one submission of hlrt_launch_repeat.
 */
static int dev_flush(struct dev_ctx *d, struct train_err *err)
{
	uint32_t f = d->pending_first, k = d->pending, n_pre = 1;
	struct dev_buf *lrb = dev_buf_find(d, "lr");
	struct hlrt_host_copy pre[2], post;
	float lr = d->pending_lr;

	if (!k)
		return 0;
	d->pending = 0;
	pre[0] = (struct hlrt_host_copy){ &d->rep_in[f], d->rep_in_dev,
					  (uint64_t)k * sizeof(*d->rep_in) };
	post = (struct hlrt_host_copy){ &d->rep_out[f], d->rep_out_dev,
					(uint64_t)k * sizeof(*d->rep_out) };
	if (lrb && (!d->lr_valid || lr != d->lr_dev)) {
		d->slot[f].lr = lr;
		d->lr_dev = lr;
		d->lr_valid = true;
		pre[n_pre++] = (struct hlrt_host_copy){ &d->slot[f].lr, lrb->addr, sizeof(float) };
	}
	return dev_fail(hlrt_launch_repeat(d->stream, d->train.recipe, d->rep_bind,
					   d->train.n_bind, d->workspace, k, d->rep_iter,
					   d->n_rep_iter, pre, n_pre, &post, 1),
			"launch", err);
}

/* A full-batch step into the group; the group goes when it has spe steps. */
static int dev_step_rep(struct dev_ctx *d, uint32_t first, float lr, struct train_err *err)
{
	uint32_t i = d->queued;

	if (d->pending && lr != d->pending_lr && dev_flush(d, err))
		return -1;
	if (i == DEV_SLOTS)
		return train_err_set(err, "more than %d steps queued", DEV_SLOTS);
	if (!d->pending) {
		d->pending_first = i;
		d->pending_lr = lr;
	}
	d->rep_in[i].offset = (int32_t)first;
	d->rep_in[i].step = (int32_t)d->steps;
	d->slot[i].count = d->train.batch;
	d->slot[i].rep = true;
	d->steps++;
	d->queued++;
	if (++d->pending == d->spe)
		return dev_flush(d, err);
	return 0;
}

/* Wait for every queued step (a group being gathered goes first); their slots become free. */
static int dev_wait(struct dev_ctx *d, struct train_err *err)
{
	hlrt_status st;

	if (dev_flush(d, err))
		return -1;
	st = hlrt_stream_synchronize(d->stream);

	d->queued = 0;
	return dev_fail(st, "step", err);
}

/*
 * Data parallel: the slice's gradients, their sum over the ranks with the
 * loss and the correct count (one all-reduce), then the optimizer, whose
 * launch brings the summed loss and count back; all queued on the stream,
 * in order.
 */
static int dev_step_dp(struct dev_ctx *d, uint32_t first, uint32_t count, float lr,
		       struct train_err *err)
{
	struct dev_step *s = count == d->batch ? &d->train :
			     count == d->tail ? &d->train_tail : NULL;
	struct dev_slot *sl = &d->slot[d->queued];
	struct dev_buf *loss = dev_buf_find(d, "loss");
	struct dev_buf *correct = dev_buf_find(d, MODEL_GRAPH_DP_CORRECT);
	struct hlrt_host_copy pre[1], post[2] = {
		{ &sl->loss, loss->addr, sizeof(float) },
		{ &sl->dp_correct, correct->addr, sizeof(float) },
	};
	hlrt_status st = HLRT_SUCCESS;
	uint32_t lo, n, n_pre = 0;

	if (!s || first + count > d->data->train.count)
		return train_err_set(err, "no compiled step for a batch of %u at %u", count, first);
	if (d->queued == DEV_SLOTS)
		return train_err_set(err, "more than %d steps queued", DEV_SLOTS);
	n = dev_slice(d, count, &lo);
	sl->offset = (int32_t)(first + lo);
	sl->count = count;
	sl->rep = false;
	if (n) {
		pre[0] = (struct hlrt_host_copy){ &sl->offset, dev_buf_find(d, "offset")->addr,
						  sizeof(int32_t) };
		st = hlrt_launch_ex(d->stream, s->recipe, s->bind, s->n_bind, d->workspace,
				    pre, 1, NULL, 0);
	} else {
		/* a batch smaller than the ranks: this one adds nothing */
		st = hlrt_memset_async(d->stream, d->sum->addr, 0, d->sum->bytes);
	}
	if (dev_fail(st, "gradients", err))
		return -1;
	st = hlrt_all_reduce(d->comm, d->sum->addr, d->sum->addr, d->sum->bytes / sizeof(float),
			     HLRT_FP32, HLRT_REDUCE_SUM, d->stream);
	if (dev_fail(st, "all-reduce", err))
		return -1;
	if (!d->lr_valid || lr != d->lr_dev) {
		sl->lr = lr;
		d->lr_dev = lr;
		d->lr_valid = true;
		pre[0] = (struct hlrt_host_copy){ &sl->lr, dev_buf_find(d, "lr")->addr,
						  sizeof(float) };
		n_pre = 1;
	}
	if (dev_fail(hlrt_launch_ex(d->stream, d->opt.recipe, d->opt.bind, d->opt.n_bind,
				    d->workspace, pre, n_pre, post, 2), "optimizer", err))
		return -1;
	d->queued++;
	return 0;
}

static int dev_step(void *ctx, uint32_t first, uint32_t count, float lr,
		    struct train_err *err)
{
	struct dev_ctx *d = ctx;

	if (d->nranks > 1)
		return dev_step_dp(d, first, count, lr, err);
	struct dev_step *s = count == d->train.batch ? &d->train :
			     count == d->train_tail.batch ? &d->train_tail : NULL;

	if (!s || first + count > d->data->train.count)
		return train_err_set(err, "no compiled step for a batch of %u at %u", count, first);
	if (d->spe > 1 && s == &d->train)
		return dev_step_rep(d, first, lr, err);
	/* the partial batch after the group so far, in order */
	if (dev_flush(d, err))
		return -1;
	return dev_launch(d, s, first, lr, err);
}

static int dev_collect(void *ctx, struct backend_step_result *out, uint32_t n,
		       struct train_err *err)
{
	struct dev_ctx *d = ctx;
	uint32_t queued = d->queued;

	if (n != queued)
		return train_err_set(err, "%u results asked, %u steps queued", n, queued);
	if (dev_wait(d, err))
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		bool rep = d->slot[i].rep;

		out[i].loss = rep ? d->rep_out[i].loss : d->slot[i].loss;
		if (rep)
			out[i].correct = (uint32_t)d->rep_out[i].correct;
		else if (d->nranks > 1)
			out[i].correct = (uint32_t)d->slot[i].dp_correct;
		else
			out[i].correct = (uint32_t)d->slot[i].correct;
		out[i].count = d->slot[i].count;
	}
	return 0;
}

static int dev_evaluate(void *ctx, struct backend_eval_result *out, struct train_err *err)
{
	struct dev_ctx *d = ctx;
	uint32_t n = d->data->test.count;

	memset(out, 0, sizeof(*out));
	for (uint32_t first = 0; first < n;) {
		struct dev_step *s = n - first >= d->eval.batch ? &d->eval : &d->eval_tail;

		if (dev_launch(d, s, first, 0.0f, err) || dev_wait(d, err))
			return -1;
		out->loss_sum += d->slot[0].loss;
		out->correct += (uint32_t)d->slot[0].correct;
		out->count += s->batch;
		first += s->batch;
	}
	return 0;
}

const struct backend_ops device_backend_ops = {
	.name = "HPU:0",
	.open = dev_open,
	.load_params = dev_load_params,
	.store_params = dev_store_params,
	.begin_epoch = dev_begin_epoch,
	.step = dev_step,
	.collect = dev_collect,
	.depth = DEV_DEPTH,
	.evaluate = dev_evaluate,
	.close = dev_close,
};
