/*
 * Lambda layers: an elementwise expression over the layer's input x
 * [batch, units], written as TensorFlow spells it, e.g. the seed's
 *   tf.where(tf.expand_dims(tf.equal(tf.math.argmax(x, axis=-1), 2), -1),
 *            x, tf.math.square(x))
 * Vocabulary: x, numbers, + - *, parentheses, tf.where, tf.expand_dims
 * (axis -1), tf.equal / tf.math.equal, tf.math.argmax / tf.argmax (axis
 * -1; INT64 indices, or output_type=tf.int32), tf.math.square / tf.square.
 * The result has x's shape. lambda_parse checks it; the CPU reference
 * evaluates it and its gradient here, the device builds it from libhlrt
 * ops (model_graph.c).
 */
#ifndef LAMBDA_H
#define LAMBDA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "train_err.h"

#define LAMBDA_MAX_NODES 24
#define LAMBDA_TEXT_LEN 256

enum lambda_op {
	LAMBDA_X, LAMBDA_CONST, LAMBDA_ARGMAX, LAMBDA_EQUAL, LAMBDA_EXPAND, LAMBDA_WHERE,
	LAMBDA_SQUARE, LAMBDA_ADD, LAMBDA_SUB, LAMBDA_MUL,
};

/* What a node holds: floats, indices (argmax) or truth values (equal). */
enum lambda_type { LAMBDA_FLOAT, LAMBDA_INDEX, LAMBDA_BOOL };

/* Its shape: x's [batch, units], [batch], [batch, 1], or a scalar. */
enum lambda_shape { LAMBDA_FULL, LAMBDA_ROW, LAMBDA_COL, LAMBDA_SCALAR };

struct lambda_node {
	uint8_t op, type, shape;
	bool i64;			/* INDEX: INT64 (TensorFlow's default) */
	int8_t arg[3];			/* operand nodes, -1 none */
	float value;			/* CONST */
};

/* Nodes in evaluation order (operands first); the last is the result. */
struct lambda_expr {
	char text[LAMBDA_TEXT_LEN];
	uint32_t n;
	struct lambda_node node[LAMBDA_MAX_NODES];
};

/* Parse TEXT; errors say what and where (the character offset). */
int lambda_parse(const char *text, struct lambda_expr *e, char *msg, size_t msg_size);

/* Host evaluation over batch x units: vals holds n * batch * units floats
 * (each node's values, a row or scalar node in its first batch entries). */
void lambda_forward(const struct lambda_expr *e, const float *x, float *out, float *vals,
		    uint32_t batch, uint32_t units);
/* dx = d out / d x applied to dy, from lambda_forward's vals; grads: n * batch * units. */
void lambda_backward(const struct lambda_expr *e, const float *dy, float *dx,
		     const float *vals, float *grads, uint32_t batch, uint32_t units);

#endif
