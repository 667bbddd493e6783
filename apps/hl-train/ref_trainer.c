/*
 * The CPU reference trainer: the golden oracle the device runs are
 * checked against. Plain FP32 loops, one forward and one backward
 * function per layer, no BLAS, nothing clever: it should be obviously
 * right. Layouts are the model's (NHWC activations, Keras kernels).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "ref_lamb.h"

struct ref_trainer {
	const struct model *m;
	const struct dataset *data;
	uint32_t max_batch;
	struct params p, grad, state;	/* state: params_create_state */
	float *lamb_u;				/* LAMB's raw update, one tensor */
	float *act[MODEL_MAX_LAYERS + 1];	/* act[0] input, act[i+1] = layer i out */
	float *dact[MODEL_MAX_LAYERS + 1];
	uint32_t *argmax[MODEL_MAX_LAYERS];	/* MaxPool2D: winning input index */
	float *lambda_vals[MODEL_MAX_LAYERS];	/* Lambda: every node's values */
	float *lambda_grads;			/* Lambda: scratch of the backward */
	float *bn_mean[MODEL_MAX_LAYERS];	/* BatchNormalization: the statistics used */
	float *bn_invstd[MODEL_MAX_LAYERS];
	float *mask[MODEL_MAX_LAYERS];		/* Dropout: 0 or 1/(1-rate) per element */
	uint32_t steps;				/* training steps run (Dropout's draws) */
	float *dlogits;
	int32_t *labels;			/* of the batch in act[0] */
	uint32_t *test_idx;			/* 0..max_batch-1, for evaluation */
	const uint32_t *order;
	struct backend_step_result result;	/* of the step just run */
};

/* ---- layers: forward ---------------------------------------------------- */

static void ref_dense_fwd(float *y, const float *x, const float *w, const float *b,
			  uint32_t batch, uint32_t in, uint32_t out)
{
	for (uint32_t n = 0; n < batch; n++) {
		float *yn = y + (size_t)n * out;

		for (uint32_t o = 0; o < out; o++)
			yn[o] = b ? b[o] : 0.0f;	/* no bias: "use_bias": false */
		for (uint32_t i = 0; i < in; i++) {
			float xi = x[(size_t)n * in + i];

			for (uint32_t o = 0; o < out; o++)
				yn[o] += xi * w[(size_t)i * out + o];
		}
	}
}

static void ref_relu_fwd(float *y, const float *x, size_t count)
{
	for (size_t i = 0; i < count; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

/*
 * The input pixel (index over the batch's pixels) that kernel tap (ky, kx)
 * of output pixel (oy, ox) of sample n reads; false in the zero padding.
 */
static bool ref_conv_tap(const struct model_layer *l, uint32_t n, uint32_t oy,
			 uint32_t ox, uint32_t ky, uint32_t kx, size_t *px)
{
	int iy = (int)(oy * l->stride[0] + ky) - (int)l->pad[0];
	int ix = (int)(ox * l->stride[1] + kx) - (int)l->pad[1];

	if (iy < 0 || ix < 0 || iy >= (int)l->in.h || ix >= (int)l->in.w)
		return false;
	*px = ((size_t)n * l->in.h + (size_t)iy) * l->in.w + (size_t)ix;
	return true;
}

static void ref_conv2d_fwd(float *y, const float *x, const float *w, const float *b,
			   uint32_t batch, const struct model_layer *l)
{
	const struct model_shape *is = &l->in, *os = &l->out;
	uint32_t kh = l->kernel[0], kw = l->kernel[1], cin = is->c, f = os->c;

	for (uint32_t n = 0; n < batch; n++)
		for (uint32_t oy = 0; oy < os->h; oy++)
			for (uint32_t ox = 0; ox < os->w; ox++) {
				float *yp = y + (((size_t)n * os->h + oy) * os->w + ox) * f;

				for (uint32_t o = 0; o < f; o++)
					yp[o] = b ? b[o] : 0.0f;
				for (uint32_t ky = 0; ky < kh; ky++)
					for (uint32_t kx = 0; kx < kw; kx++) {
						size_t px;

						if (!ref_conv_tap(l, n, oy, ox, ky, kx, &px))
							continue;
						for (uint32_t c = 0; c < cin; c++) {
							float xv = x[px * cin + c];
							const float *wp = w + (((size_t)ky * kw + kx) * cin + c) * f;

							for (uint32_t o = 0; o < f; o++)
								yp[o] += xv * wp[o];
						}
					}
			}
}

static void ref_maxpool_fwd(float *y, uint32_t *arg, const float *x, uint32_t batch,
			    const struct model_layer *l)
{
	const struct model_shape *is = &l->in, *os = &l->out;

	for (uint32_t n = 0; n < batch; n++)
		for (uint32_t oy = 0; oy < os->h; oy++)
			for (uint32_t ox = 0; ox < os->w; ox++)
				for (uint32_t c = 0; c < is->c; c++) {
					size_t best = 0, o;
					float v = -INFINITY;

					for (uint32_t ky = 0; ky < l->kernel[0]; ky++)
						for (uint32_t kx = 0; kx < l->kernel[1]; kx++) {
							/* "same": the padding takes no part */
							long iy = (long)(oy * l->stride[0] + ky) - l->pad[0];
							long ix = (long)(ox * l->stride[1] + kx) - l->pad[1];
							size_t i;

							if (iy < 0 || ix < 0 || iy >= (long)is->h ||
							    ix >= (long)is->w)
								continue;
							i = ((n * is->h + (size_t)iy) * is->w + (size_t)ix) *
							    is->c + c;
							if (x[i] > v) {
								v = x[i];
								best = i;
							}
						}
					o = ((n * os->h + oy) * (size_t)os->w + ox) * os->c + c;
					y[o] = v;
					arg[o] = (uint32_t)best;
				}
}

/* MurmurHash3's finalizer: Dropout's counter-based draws (hlrt.h's hlrt_dropout_keep). */
static uint32_t ref_fmix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	return h ^ (h >> 16);
}

/* y = x * mask; element i is kept when its hash clears rate * 2^24. */
static void ref_dropout_fwd(float *y, float *mask, const float *x, size_t count, float rate,
			    uint32_t seed, uint32_t step)
{
	uint32_t key = ref_fmix32(seed ^ ref_fmix32(step + 0x9e3779b9u));
	uint32_t threshold = (uint32_t)((double)rate * 16777216.0);
	float scale = 1.0f / (1.0f - rate);

	for (size_t i = 0; i < count; i++) {
		mask[i] = (ref_fmix32((uint32_t)i ^ key) >> 8) >= threshold ? scale : 0.0f;
		y[i] = x[i] * mask[i];
	}
}

/*
 * BatchNormalization over the channels of x[rows, c] in the kernel's
 * operations (batchnorm_fwd_f32.tpcs): training takes the batch's mean
 * and biased variance, rows summed in order, and updates the moving
 * statistics; evaluation takes the moving ones. gamma/beta NULL: 1/0.
 */
static void ref_bn_fwd(float *y, float *mean, float *invstd, const float *x, size_t rows,
		       uint32_t c, const float *gamma, const float *beta, float *mm, float *mv,
		       const struct model_layer *l, bool train)
{
	float inv_r = 1.0f / (float)rows;

	for (uint32_t ch = 0; ch < c; ch++) {
		float m = mm[ch], v = mv[ch];

		if (train) {
			float sum = 0.0f, sq = 0.0f;

			for (size_t r = 0; r < rows; r++)
				sum += x[r * c + ch];
			m = sum * inv_r;
			for (size_t r = 0; r < rows; r++) {
				float d = x[r * c + ch] - m;

				sq += d * d;
			}
			v = sq * inv_r;
			mv[ch] = mv[ch] * l->momentum + v * (1.0f - l->momentum);
			mm[ch] = mm[ch] * l->momentum + m * (1.0f - l->momentum);
		}
		mean[ch] = m;
		invstd[ch] = 1.0f / sqrtf(v + l->epsilon);
		for (size_t r = 0; r < rows; r++) {
			float t = (x[r * c + ch] - m) * invstd[ch];

			t = t * (gamma ? gamma[ch] : 1.0f);
			y[r * c + ch] = t + (beta ? beta[ch] : 0.0f);
		}
	}
}

/* ---- layers: backward (dx may be NULL when nobody needs it) ------------- */

/*
 * BatchNormalization's gradient (batchnorm_bwd_f32.tpcs), training mode:
 * through the batch statistics. dgamma/dbeta may be NULL (not trained).
 */
static void ref_bn_bwd(float *dx, float *dgamma, float *dbeta, const float *dy, const float *x,
		       size_t rows, uint32_t c, const float *gamma, const float *mean,
		       const float *invstd)
{
	float inv_r = 1.0f / (float)rows;

	for (uint32_t ch = 0; ch < c; ch++) {
		float db = 0.0f, dg = 0.0f, k = (gamma ? gamma[ch] : 1.0f) * invstd[ch];

		for (size_t r = 0; r < rows; r++) {
			float xh = (x[r * c + ch] - mean[ch]) * invstd[ch];

			db += dy[r * c + ch];
			dg += dy[r * c + ch] * xh;
		}
		if (dgamma)
			dgamma[ch] = dg;
		if (dbeta)
			dbeta[ch] = db;
		for (size_t r = 0; dx && r < rows; r++) {
			float xh = (x[r * c + ch] - mean[ch]) * invstd[ch];
			float a = dy[r * c + ch] - db * inv_r;

			dx[r * c + ch] = (a - xh * (dg * inv_r)) * k;
		}
	}
}


static void ref_dense_bwd(float *dx, float *dw, float *db, const float *dy,
			  const float *x, const float *w, uint32_t batch, uint32_t in,
			  uint32_t out)
{
	for (uint32_t n = 0; n < batch; n++) {
		const float *dyn = dy + (size_t)n * out;

		for (uint32_t o = 0; db && o < out; o++)
			db[o] += dyn[o];
		for (uint32_t i = 0; i < in; i++) {
			float xi = x[(size_t)n * in + i], acc = 0.0f;

			for (uint32_t o = 0; o < out; o++) {
				dw[(size_t)i * out + o] += xi * dyn[o];
				acc += w[(size_t)i * out + o] * dyn[o];
			}
			if (dx)
				dx[(size_t)n * in + i] = acc;
		}
	}
}

static void ref_relu_bwd(float *dx, const float *dy, const float *x, size_t count)
{
	for (size_t i = 0; i < count; i++)
		dx[i] = x[i] > 0.0f ? dy[i] : 0.0f;
}

/* tanh and sigmoid in the kernels' operations (tanh_*_f32, sigmoid_*_f32.tpcs). */
static void ref_act_fwd(float *y, const float *x, size_t count, bool tanh_)
{
	for (size_t i = 0; i < count; i++)
		y[i] = tanh_ ? tanhf(x[i]) : 1.0f / (1.0f + expf(-x[i]));
}

/* From the forward's output y. */
static void ref_act_bwd(float *dx, const float *dy, const float *y, size_t count, bool tanh_)
{
	for (size_t i = 0; i < count; i++)
		dx[i] = tanh_ ? dy[i] * (1.0f - y[i] * y[i]) : dy[i] * (y[i] * (1.0f - y[i]));
}

static void ref_conv2d_bwd(float *dx, float *dw, float *db, const float *dy,
			   const float *x, const float *w, uint32_t batch,
			   const struct model_layer *l)
{
	const struct model_shape *is = &l->in, *os = &l->out;
	uint32_t kh = l->kernel[0], kw = l->kernel[1], cin = is->c, f = os->c;

	if (dx)
		memset(dx, 0, sizeof(float) * batch * model_shape_size(is));
	for (uint32_t n = 0; n < batch; n++)
		for (uint32_t oy = 0; oy < os->h; oy++)
			for (uint32_t ox = 0; ox < os->w; ox++) {
				const float *g = dy + (((size_t)n * os->h + oy) * os->w + ox) * f;

				for (uint32_t o = 0; db && o < f; o++)
					db[o] += g[o];
				for (uint32_t ky = 0; ky < kh; ky++)
					for (uint32_t kx = 0; kx < kw; kx++) {
						size_t px;

						if (!ref_conv_tap(l, n, oy, ox, ky, kx, &px))
							continue;
						for (uint32_t c = 0; c < cin; c++) {
							size_t xi = px * cin + c;
							size_t wi = (((size_t)ky * kw + kx) * cin + c) * f;
							float acc = 0.0f;

							for (uint32_t o = 0; o < f; o++) {
								dw[wi + o] += x[xi] * g[o];
								acc += w[wi + o] * g[o];
							}
							if (dx)
								dx[xi] += acc;
						}
					}
			}
}

static void ref_maxpool_bwd(float *dx, const float *dy, const uint32_t *arg,
			    uint32_t batch, const struct model_layer *l)
{
	size_t out = (size_t)batch * model_shape_size(&l->out);

	memset(dx, 0, sizeof(float) * batch * model_shape_size(&l->in));
	for (size_t o = 0; o < out; o++)
		dx[arg[o]] += dy[o];
}

/* ---- loss ---------------------------------------------------------------- */
/*
 * Softmax along the last axis of rows[count, k] in softmax_fwd_f32's
 * operations: the row's maximum subtracted, expf, times 1 / the sum (the
 * kernel sums lane-wise, so the last bits may differ).
 */
static void ref_softmax_fwd(float *y, const float *x, size_t rows, uint32_t k)
{
	for (size_t n = 0; n < rows; n++) {
		const float *z = x + n * k;
		float *o = y + n * k, mx = z[0], s = 0.0f;

		for (uint32_t j = 1; j < k; j++)
			mx = z[j] > mx ? z[j] : mx;
		for (uint32_t j = 0; j < k; j++) {
			o[j] = expf(z[j] - mx);
			s += o[j];
		}
		s = 1.0f / s;
		for (uint32_t j = 0; j < k; j++)
			o[j] *= s;
	}
}

/* dx = y * (dy - sum(dy * y)) per row, from the forward's output y. */
static void ref_softmax_bwd(float *dx, const float *dy, const float *y, size_t rows,
			    uint32_t k)
{
	for (size_t n = 0; n < rows; n++) {
		const float *g = dy + n * k, *o = y + n * k;
		float s = 0.0f;

		for (uint32_t j = 0; j < k; j++)
			s += g[j] * o[j];
		for (uint32_t j = 0; j < k; j++)
			dx[n * k + j] = (g[j] - s) * o[j];
	}
}

/*
 * Mean softmax cross-entropy of logits[batch, k] against labels; the
 * gradient (softmax - onehot) / batch goes to dlogits when not NULL.
 * Returns the summed loss; *correct counts argmax hits.
 */
static double ref_softmax_xent(const float *logits, const int32_t *labels,
			       uint32_t batch, uint32_t k, float *dlogits,
			       uint32_t *correct)
{
	double sum = 0.0;

	*correct = 0;
	for (uint32_t n = 0; n < batch; n++) {
		const float *z = logits + (size_t)n * k;
		uint32_t best = 0;
		float mx = z[0], s = 0.0f;

		for (uint32_t j = 1; j < k; j++)
			if (z[j] > mx) {
				mx = z[j];
				best = j;
			}
		for (uint32_t j = 0; j < k; j++)
			s += expf(z[j] - mx);
		sum += -(z[labels[n]] - mx - logf(s));
		*correct += best == (uint32_t)labels[n];
		if (!dlogits)
			continue;
		for (uint32_t j = 0; j < k; j++)
			dlogits[(size_t)n * k + j] =
				(expf(z[j] - mx) / s - (j == (uint32_t)labels[n])) / (float)batch;
	}
	return sum;
}

/*
 * Mean squared error of out[batch, k] against the labels' one-hot rows
 * (Keras's mse: the mean over k, per sample); the gradient of the batch's
 * mean goes to dout when not NULL. Returns the summed loss; *correct
 * counts argmax hits.
 */
static double ref_mse(const float *out, const int32_t *labels, uint32_t batch, uint32_t k,
		      float *dout, uint32_t *correct)
{
	float scale = 1.0f / ((float)batch * (float)k);
	double sum = 0.0;

	*correct = 0;
	for (uint32_t n = 0; n < batch; n++) {
		const float *z = out + (size_t)n * k;
		uint32_t best = 0;
		double row = 0.0;

		for (uint32_t j = 0; j < k; j++) {
			float d = z[j] - (j == (uint32_t)labels[n] ? 1.0f : 0.0f);

			row += (double)d * d;
			best = z[j] > z[best] ? j : best;
			if (dout)
				dout[(size_t)n * k + j] = (d + d) * scale;
		}
		sum += row / k;
		*correct += best == (uint32_t)labels[n];
	}
	return sum;
}

/* The model's loss (summed over the batch) and, when dout, its mean's gradient. */
static double ref_loss(const struct ref_trainer *r, const float *out, uint32_t batch,
		       float *dout, uint32_t *correct)
{
	if (r->m->train.loss == MODEL_LOSS_MSE)
		return ref_mse(out, r->labels, batch, DATASET_CLASSES, dout, correct);
	return ref_softmax_xent(out, r->labels, batch, DATASET_CLASSES, dout, correct);
}

/* ---- the model ----------------------------------------------------------- */

static void ref_forward(struct ref_trainer *r, uint32_t batch, bool train)
{
	for (uint32_t i = 0; i < r->m->nlayers; i++) {
		const struct model_layer *l = &r->m->layers[i];
		const float *x = r->act[i];
		float *y = r->act[i + 1];
		struct params_tensor *w = params_find(&r->p, i, 0), *b = params_find(&r->p, i, 1);

		switch (l->kind) {
		case MODEL_FLATTEN:
			memcpy(y, x, sizeof(float) * batch * model_shape_size(&l->in));
			break;
		case MODEL_DENSE:
			ref_dense_fwd(y, x, w->data, b ? b->data : NULL, batch, l->in.c, l->out.c);
			break;
		case MODEL_RELU:
			ref_relu_fwd(y, x, (size_t)batch * model_shape_size(&l->in));
			break;
		case MODEL_CONV2D:
			ref_conv2d_fwd(y, x, w->data, b ? b->data : NULL, batch, l);
			break;
		case MODEL_MAXPOOL2D:
			ref_maxpool_fwd(y, r->argmax[i], x, batch, l);
			break;
		case MODEL_LAMBDA:
			lambda_forward(&l->expr, x, y, r->lambda_vals[i], batch, l->in.c);
			break;
		case MODEL_TANH:
		case MODEL_SIGMOID:
			ref_act_fwd(y, x, (size_t)batch * model_shape_size(&l->in),
				    l->kind == MODEL_TANH);
			break;
		case MODEL_SOFTMAX:
			ref_softmax_fwd(y, x, (size_t)batch * l->in.h * l->in.w, l->in.c);
			break;
		case MODEL_DROPOUT:
			if (train)
				ref_dropout_fwd(y, r->mask[i], x,
						(size_t)batch * model_shape_size(&l->in), l->rate,
						model_dropout_seed(r->m, i), r->steps);
			else
				memcpy(y, x, sizeof(float) * batch * model_shape_size(&l->in));
			break;
		case MODEL_BATCHNORM: {
			struct params_tensor *g = params_find_named(&r->p, i, "gamma");
			struct params_tensor *be = params_find_named(&r->p, i, "beta");

			ref_bn_fwd(y, r->bn_mean[i], r->bn_invstd[i], x,
				   (size_t)batch * l->in.h * l->in.w, l->in.c, g ? g->data : NULL,
				   be ? be->data : NULL,
				   params_find_named(&r->p, i, "moving_mean")->data,
				   params_find_named(&r->p, i, "moving_variance")->data, l, train);
			break;
		}
		}
	}
}

static void ref_backward(struct ref_trainer *r, uint32_t batch)
{
	memset(r->grad.storage, 0, r->grad.total * sizeof(float));
	for (uint32_t i = r->m->nlayers; i-- > 0;) {
		const struct model_layer *l = &r->m->layers[i];
		const float *dy = i + 1 == r->m->nlayers ? r->dlogits : r->dact[i + 1];
		float *dx = i > 0 ? r->dact[i] : NULL;
		struct params_tensor *w = params_find(&r->p, i, 0);
		struct params_tensor *gw = params_find(&r->grad, i, 0);
		struct params_tensor *gb = params_find(&r->grad, i, 1);

		switch (l->kind) {
		case MODEL_FLATTEN:
			if (dx)
				memcpy(dx, dy, sizeof(float) * batch * model_shape_size(&l->in));
			break;
		case MODEL_DENSE:
			ref_dense_bwd(dx, gw->data, gb ? gb->data : NULL, dy, r->act[i], w->data, batch,
				      l->in.c, l->out.c);
			break;
		case MODEL_RELU:
			if (dx)
				ref_relu_bwd(dx, dy, r->act[i],
					     (size_t)batch * model_shape_size(&l->in));
			break;
		case MODEL_CONV2D:
			ref_conv2d_bwd(dx, gw->data, gb ? gb->data : NULL, dy, r->act[i], w->data,
				       batch, l);
			break;
		case MODEL_MAXPOOL2D:
			if (dx)
				ref_maxpool_bwd(dx, dy, r->argmax[i], batch, l);
			break;
		case MODEL_TANH:
		case MODEL_SIGMOID:
			if (dx)
				ref_act_bwd(dx, dy, r->act[i + 1],
					    (size_t)batch * model_shape_size(&l->in),
					    l->kind == MODEL_TANH);
			break;
		case MODEL_SOFTMAX:
			if (dx)
				ref_softmax_bwd(dx, dy, r->act[i + 1],
						(size_t)batch * l->in.h * l->in.w, l->in.c);
			break;
		case MODEL_LAMBDA:
			if (dx)
				lambda_backward(&l->expr, dy, dx, r->lambda_vals[i],
						r->lambda_grads, batch, l->in.c);
			break;
		case MODEL_DROPOUT:
			for (size_t k = 0; dx && k < (size_t)batch * model_shape_size(&l->in); k++)
				dx[k] = dy[k] * r->mask[i][k];
			break;
		case MODEL_BATCHNORM: {
			struct params_tensor *g = params_find_named(&r->p, i, "gamma");
			struct params_tensor *gg = params_find_named(&r->grad, i, "gamma");
			struct params_tensor *gbe = params_find_named(&r->grad, i, "beta");

			ref_bn_bwd(dx, gg ? gg->data : NULL, gbe ? gbe->data : NULL, dy, r->act[i],
				   (size_t)batch * l->in.h * l->in.w, l->in.c, g ? g->data : NULL,
				   r->bn_mean[i], r->bn_invstd[i]);
			break;
		}
		}
	}
}

/* SGD as PyTorch defines it (dampening 0): g += wd*w; v = mu*v + g;
 * w -= lr * (nesterov ? g + mu*v : v). */
static void ref_sgd(struct ref_trainer *r, float lr)
{
	const struct model_training *t = &r->m->train;

	for (size_t i = 0; i < r->p.trainable_total; i++) {
		float w = r->p.storage[i];
		float g = r->grad.storage[i] + t->weight_decay * w;

		if (t->momentum != 0.0f) {
			float v = t->momentum * r->state.storage[i] + g;

			r->state.storage[i] = v;
			g = t->nesterov ? g + t->momentum * v : v;
		}
		r->p.storage[i] = w - lr * g;
	}
}

/* LAMB, tensor by tensor: m of parameter i is state.t[i], v state.t[count + i]. */
static void ref_lamb(struct ref_trainer *r, float lr)
{
	const struct model_training *t = &r->m->train;
	const struct ref_lamb_params lp = {
		.beta1 = t->beta1, .beta2 = t->beta2, .epsilon = t->epsilon,
		.weight_decay = t->weight_decay,
	};

	for (uint32_t i = 0; i < r->p.trainable; i++) {
		struct params_tensor *w = &r->p.t[i];

		ref_lamb_update(&lp, lr, r->state.updates, w->data,
				r->grad.t[i].data, r->state.t[i].data,
				r->state.t[r->p.trainable + i].data, r->lamb_u, w->count);
	}
	r->state.updates++;
}

/*
 * AdamW (Adam: the same rule) in the kernel's operation order
 * (adamw_f32.tpcs): m of parameter i is state.t[i], v state.t[count + i].
 */
static void ref_adamw(struct ref_trainer *r, float lr)
{
	const struct model_training *t = &r->m->train;
	float step = (float)(int32_t)(r->state.updates + 1);
	float c1 = 1.0f / (1.0f - expf(logf(t->beta1) * step));
	float c2 = 1.0f / (1.0f - expf(logf(t->beta2) * step));
	float omb1 = 1.0f - t->beta1, omb2 = 1.0f - t->beta2;
	float keep = 1.0f - lr * t->weight_decay;

	for (uint32_t i = 0; i < r->p.trainable; i++) {
		float *w = r->p.t[i].data, *m = r->state.t[i].data;
		float *v = r->state.t[r->p.trainable + i].data;
		const float *g = r->grad.t[i].data;

		for (size_t k = 0; k < r->p.t[i].count; k++) {
			float mk = m[k] * t->beta1 + g[k] * omb1;
			float vk = v[k] * t->beta2 + g[k] * g[k] * omb2;
			float d = 1.0f / (sqrtf(vk * c2) + t->epsilon);

			m[k] = mk;
			v[k] = vk;
			w[k] = w[k] * keep - mk * c1 * d * lr;
		}
	}
	r->state.updates++;
}

/* Adagrad in the kernel's operation order (adagrad_f32.tpcs). */
static void ref_adagrad(struct ref_trainer *r, float lr)
{
	const struct model_training *t = &r->m->train;

	for (size_t i = 0; i < r->p.trainable_total; i++) {
		float w = r->p.storage[i];
		float d = r->grad.storage[i] + w * t->weight_decay;
		float a = r->state.storage[i] + d * d;

		r->state.storage[i] = a;
		r->p.storage[i] = w - 1.0f / (sqrtf(a) + t->epsilon) * d * lr;
	}
}

static void ref_gather(struct ref_trainer *r, const struct dataset_split *s,
		       const uint32_t *idx, uint32_t count, int32_t *labels)
{
	size_t sample = model_shape_size(&r->m->input);

	for (uint32_t n = 0; n < count; n++) {
		memcpy(r->act[0] + n * sample, s->images + (size_t)idx[n] * sample,
		       sample * sizeof(float));
		labels[n] = s->labels[idx[n]];
	}
}

/* ---- backend operations ------------------------------------------------- */

static void ref_close(void *ctx)
{
	struct ref_trainer *r = ctx;

	if (!r)
		return;
	for (uint32_t i = 0; i <= MODEL_MAX_LAYERS; i++) {
		free(r->act[i]);
		free(r->dact[i]);
	}
	for (uint32_t i = 0; i < MODEL_MAX_LAYERS; i++) {
		free(r->argmax[i]);
		free(r->lambda_vals[i]);
		free(r->bn_mean[i]);
		free(r->bn_invstd[i]);
		free(r->mask[i]);
	}
	free(r->lambda_grads);
	free(r->dlogits);
	free(r->labels);
	free(r->test_idx);
	params_free(&r->p);
	params_free(&r->grad);
	params_free(&r->state);
	free(r->lamb_u);
	free(r);
}

static int ref_open(void **ctx, const struct backend_setup *setup,
		    struct train_err *err)
{
	const struct model *m = setup->model;
	struct ref_trainer *r;
	size_t b, lgrads = 0;

	if (setup->bf16)
		return train_err_set(err, "the CPU reference trainer runs in FP32 only (no --bf16)");
	if (model_shape_size(&m->input) != setup->data->rows * setup->data->cols)
		return train_err_set(err, "the model's input is not a %ux%u image",
				     setup->data->rows, setup->data->cols);
	r = calloc(1, sizeof(*r));
	if (!r)
		return train_err_set(err, "out of memory");
	r->m = m;
	r->data = setup->data;
	r->max_batch = setup->batch > 1000 ? setup->batch : 1000;
	b = r->max_batch;
	if (params_create(m, &r->p, err) || params_create(m, &r->grad, err) ||
	    params_create_state(m, &r->state, err))
		goto fail;
	r->lamb_u = malloc(sizeof(float) * r->p.total);
	if (!r->lamb_u)
		goto oom;
	r->act[0] = malloc(sizeof(float) * b * model_shape_size(&m->input));
	r->dlogits = malloc(sizeof(float) * b * DATASET_CLASSES);
	r->labels = malloc(sizeof(int32_t) * b);
	r->test_idx = malloc(sizeof(uint32_t) * b);
	if (!r->act[0] || !r->dlogits || !r->labels || !r->test_idx)
		goto oom;
	for (uint32_t i = 0; i < m->nlayers; i++) {
		size_t in = model_shape_size(&m->layers[i].in);
		size_t out = model_shape_size(&m->layers[i].out);

		r->act[i + 1] = malloc(sizeof(float) * b * out);
		r->dact[i] = malloc(sizeof(float) * b * in);
		if (!r->act[i + 1] || !r->dact[i])
			goto oom;
		if (m->layers[i].kind == MODEL_MAXPOOL2D &&
		    !(r->argmax[i] = malloc(sizeof(uint32_t) * b * out)))
			goto oom;
		if (m->layers[i].kind == MODEL_DROPOUT && !(r->mask[i] = malloc(sizeof(float) * b * out)))
			goto oom;
		if (m->layers[i].kind == MODEL_BATCHNORM &&
		    (!(r->bn_mean[i] = malloc(sizeof(float) * m->layers[i].in.c)) ||
		     !(r->bn_invstd[i] = malloc(sizeof(float) * m->layers[i].in.c))))
			goto oom;
		if (m->layers[i].kind == MODEL_LAMBDA) {
			size_t n = (size_t)m->layers[i].expr.n * b * out;

			r->lambda_vals[i] = malloc(sizeof(float) * n);
			if (n > lgrads) {
				free(r->lambda_grads);
				r->lambda_grads = malloc(sizeof(float) * n);
				lgrads = n;
			}
			if (!r->lambda_vals[i] || !r->lambda_grads)
				goto oom;
		}
	}
	*ctx = r;
	return 0;
oom:
	train_err_set(err, "out of memory for the reference trainer's activations");
fail:
	ref_close(r);
	return -1;
}

static int ref_load_params(void *ctx, const struct params *p,
			   const struct params *state, struct train_err *err)
{
	struct ref_trainer *r = ctx;

	params_copy(&r->p, p);
	if (state && state->total != r->state.total)
		return train_err_set(err, "reference: optimizer state of %zu values, the model's "
				     "has %zu", state->total, r->state.total);
	if (state) {
		params_copy(&r->state, state);
	} else {
		if (r->state.storage)
			memset(r->state.storage, 0, r->state.total * sizeof(float));
		r->state.updates = 0;
	}
	return 0;
}

static int ref_store_params(void *ctx, struct params *p, struct params *state,
			    struct train_err *err)
{
	struct ref_trainer *r = ctx;

	params_copy(p, &r->p);
	if (state && state->total != r->state.total)
		return train_err_set(err, "reference: optimizer state of %zu values, the model's "
				     "has %zu", state->total, r->state.total);
	if (state)
		params_copy(state, &r->state);
	return 0;
}

static int ref_begin_epoch(void *ctx, const uint32_t *order, struct train_err *err)
{
	struct ref_trainer *r = ctx;

	(void)err;
	r->order = order;
	return 0;
}

static int ref_step(void *ctx, uint32_t first, uint32_t count, float lr,
		    struct train_err *err)
{
	struct ref_trainer *r = ctx;
	float *logits = r->act[r->m->nlayers];

	if (count == 0 || count > r->max_batch ||
	    first + count > r->data->train.count)
		return train_err_set(err, "reference step: bad batch %u+%u", first, count);
	ref_gather(r, &r->data->train, r->order + first, count, r->labels);
	ref_forward(r, count, true);
	r->result.count = count;
	r->result.loss = (float)(ref_loss(r, logits, count, r->dlogits, &r->result.correct) /
				 count);
	ref_backward(r, count);
	r->steps++;
	switch (r->m->train.optimizer) {
	case MODEL_OPT_LAMB:
		ref_lamb(r, lr);
		break;
	case MODEL_OPT_ADAM:
	case MODEL_OPT_ADAMW:
		ref_adamw(r, lr);
		break;
	case MODEL_OPT_ADAGRAD:
		ref_adagrad(r, lr);
		break;
	case MODEL_OPT_SGD:
		ref_sgd(r, lr);
		break;
	}
	return 0;
}

/* Steps run when queued: the one result is ready. */
static int ref_collect(void *ctx, struct backend_step_result *out, uint32_t n,
		       struct train_err *err)
{
	struct ref_trainer *r = ctx;

	if (n != 1)
		return train_err_set(err, "reference: %u results asked, 1 queued", n);
	*out = r->result;
	return 0;
}

static int ref_evaluate(void *ctx, struct backend_eval_result *out,
			struct train_err *err)
{
	struct ref_trainer *r = ctx;
	const struct dataset_split *s = &r->data->test;

	(void)err;
	memset(out, 0, sizeof(*out));
	for (uint32_t first = 0; first < s->count; first += r->max_batch) {
		uint32_t count = s->count - first < r->max_batch ? s->count - first : r->max_batch;
		uint32_t correct;

		for (uint32_t n = 0; n < count; n++)
			r->test_idx[n] = first + n;
		ref_gather(r, s, r->test_idx, count, r->labels);
		ref_forward(r, count, false);
		out->loss_sum += ref_loss(r, r->act[r->m->nlayers], count, NULL, &correct);
		out->correct += correct;
		out->count += count;
	}
	return 0;
}

const struct backend_ops ref_trainer_ops = {
	.name = "CPU",
	.open = ref_open,
	.load_params = ref_load_params,
	.store_params = ref_store_params,
	.begin_epoch = ref_begin_epoch,
	.step = ref_step,
	.collect = ref_collect,
	.depth = 1,
	.evaluate = ref_evaluate,
	.close = ref_close,
};
