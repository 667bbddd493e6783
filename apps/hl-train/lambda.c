/* Lambda layers: the expression parser and the host evaluation (lambda.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lambda.h"

struct lambda_parser {
	const char *s;
	size_t pos;
	struct lambda_expr *e;
	char *msg;
	size_t msg_size;
	bool failed;
};

static int lp_fail(struct lambda_parser *p, const char *what)
{
	if (!p->failed)
		snprintf(p->msg, p->msg_size, "at character %zu: %s", p->pos + 1, what);
	p->failed = true;
	return -1;
}

static void lp_space(struct lambda_parser *p)
{
	while (isspace((unsigned char)p->s[p->pos]))
		p->pos++;
}

static bool lp_accept(struct lambda_parser *p, const char *tok)
{
	size_t n = strlen(tok);

	lp_space(p);
	if (strncmp(p->s + p->pos, tok, n))
		return false;
	p->pos += n;
	return true;
}

static int lp_expect(struct lambda_parser *p, const char *tok)
{
	char what[32];

	if (lp_accept(p, tok))
		return 0;
	snprintf(what, sizeof(what), "expected \"%s\"", tok);
	return lp_fail(p, what);
}

static int lp_add(struct lambda_parser *p, enum lambda_op op, enum lambda_type type,
		  enum lambda_shape shape, int a, int b, int c)
{
	struct lambda_node *n;

	if (p->failed)
		return -1;
	if (p->e->n == LAMBDA_MAX_NODES)
		return lp_fail(p, "too many operations");
	n = &p->e->node[p->e->n];
	memset(n, 0, sizeof(*n));
	n->op = (uint8_t)op;
	n->type = (uint8_t)type;
	n->shape = (uint8_t)shape;
	n->arg[0] = (int8_t)a;
	n->arg[1] = (int8_t)b;
	n->arg[2] = (int8_t)c;
	return (int)p->e->n++;
}

/* NumPy broadcasting of the shapes lambdas have; -1 when they clash. */
static int lp_shape(int a, int b)
{
	if (a == LAMBDA_SCALAR || a == b)
		return b;
	if (b == LAMBDA_SCALAR)
		return a;
	if ((a == LAMBDA_FULL && b == LAMBDA_COL) || (a == LAMBDA_COL && b == LAMBDA_FULL))
		return LAMBDA_FULL;
	return -1;
}

static int lp_broadcast(struct lambda_parser *p, int a, int b)
{
	int s = lp_shape(p->e->node[a].shape, p->e->node[b].shape);

	if (s < 0)
		return lp_fail(p, "[batch] and [batch, units] do not broadcast "
			       "(tf.expand_dims(..., -1) first)");
	return s;
}

/* A number operand takes the type of the other side (an index or a float). */
static int lp_adopt(struct lambda_parser *p, int konst, int other)
{
	struct lambda_node *k = &p->e->node[konst], *o = &p->e->node[other];

	if (k->op != LAMBDA_CONST)
		return 0;
	if (o->op == LAMBDA_CONST)
		return lp_fail(p, "an operation on two numbers");
	k->type = o->type;
	k->i64 = o->i64;
	if (k->type == LAMBDA_BOOL)
		return lp_fail(p, "a number compared with a truth value");
	if (k->type == LAMBDA_INDEX && k->value != (float)(int32_t)k->value)
		return lp_fail(p, "an index compared with a number that is not an integer");
	return 0;
}

static int lp_arith(struct lambda_parser *p, enum lambda_op op, int a, int b)
{
	int s;

	if (p->failed || lp_adopt(p, a, b) || lp_adopt(p, b, a))
		return -1;
	if (p->e->node[a].type != LAMBDA_FLOAT || p->e->node[b].type != LAMBDA_FLOAT)
		return lp_fail(p, "+, - and * take floats (cast indices with tf.where)");
	s = lp_broadcast(p, a, b);
	return s < 0 ? -1 : lp_add(p, op, LAMBDA_FLOAT, (enum lambda_shape)s, a, b, -1);
}

static int lp_expr(struct lambda_parser *p);

/* axis=-1 (or 1, the same axis of [batch, units]) as a keyword or a number. */
static int lp_axis(struct lambda_parser *p, bool keyword)
{
	char *end;
	long v;

	if (keyword && lp_expect(p, "axis") < 0)
		return -1;
	if (keyword && lp_expect(p, "=") < 0)
		return -1;
	lp_space(p);
	v = strtol(p->s + p->pos, &end, 10);
	if (end == p->s + p->pos || (v != -1 && v != 1))
		return lp_fail(p, "the axis must be -1 (the last)");
	p->pos = (size_t)(end - p->s);
	return 0;
}

static int lp_call(struct lambda_parser *p, const char *name, size_t start)
{
	static const char *const known[] = {
		"tf.math.argmax", "tf.argmax", "tf.expand_dims", "tf.equal", "tf.math.equal",
		"tf.where", "tf.math.square", "tf.square", NULL
	};
	size_t k;
	int a, b, c, s;

	for (k = 0; known[k] && strcmp(name, known[k]); k++)
		;
	if (!known[k]) {
		p->pos = start;
		return lp_fail(p, "unknown function (tf.where, tf.expand_dims, tf.equal, "
			       "tf.math.argmax, tf.math.square)");
	}
	if (lp_expect(p, "(") < 0)
		return -1;
	if (!strcmp(name, "tf.math.argmax") || !strcmp(name, "tf.argmax")) {
		bool i64 = true;

		a = lp_expr(p);
		if (a < 0 || lp_expect(p, ",") < 0 || lp_axis(p, true) < 0)
			return -1;
		if (lp_accept(p, ",")) {
			if (lp_expect(p, "output_type") < 0 || lp_expect(p, "=") < 0)
				return -1;
			if (lp_accept(p, "tf.int32"))
				i64 = false;
			else if (!lp_accept(p, "tf.int64"))
				return lp_fail(p, "output_type must be tf.int32 or tf.int64");
		}
		if (lp_expect(p, ")") < 0)
			return -1;
		if (p->e->node[a].type != LAMBDA_FLOAT || p->e->node[a].shape != LAMBDA_FULL)
			return lp_fail(p, "argmax takes floats of x's shape");
		c = lp_add(p, LAMBDA_ARGMAX, LAMBDA_INDEX, LAMBDA_ROW, a, -1, -1);
		if (c >= 0)
			p->e->node[c].i64 = i64;
		return c;
	}
	if (!strcmp(name, "tf.expand_dims")) {
		a = lp_expr(p);
		if (a < 0 || lp_expect(p, ",") < 0)
			return -1;
		lp_space(p);
		if (lp_axis(p, p->s[p->pos] == 'a') < 0 || lp_expect(p, ")") < 0)
			return -1;
		if (p->e->node[a].shape != LAMBDA_ROW)
			return lp_fail(p, "expand_dims takes a [batch] value (argmax's, equal's)");
		c = lp_add(p, LAMBDA_EXPAND, (enum lambda_type)p->e->node[a].type, LAMBDA_COL, a,
			   -1, -1);
		if (c >= 0)
			p->e->node[c].i64 = p->e->node[a].i64;
		return c;
	}
	if (!strcmp(name, "tf.equal") || !strcmp(name, "tf.math.equal")) {
		a = lp_expr(p);
		if (a < 0 || lp_expect(p, ",") < 0)
			return -1;
		b = lp_expr(p);
		if (b < 0 || lp_expect(p, ")") < 0 || lp_adopt(p, a, b) || lp_adopt(p, b, a))
			return -1;
		if (p->e->node[a].type != p->e->node[b].type ||
		    p->e->node[a].i64 != p->e->node[b].i64 ||
		    p->e->node[a].type == LAMBDA_BOOL)
			return lp_fail(p, "equal compares two floats or two indices of one type");
		s = lp_broadcast(p, a, b);
		c = s < 0 ? -1 : lp_add(p, LAMBDA_EQUAL, LAMBDA_BOOL, (enum lambda_shape)s, a, b,
					-1);
		if (c >= 0)
			p->e->node[c].i64 = p->e->node[a].i64;
		return c;
	}
	if (!strcmp(name, "tf.where")) {
		a = lp_expr(p);
		if (a < 0 || lp_expect(p, ",") < 0)
			return -1;
		b = lp_expr(p);
		if (b < 0 || lp_expect(p, ",") < 0)
			return -1;
		c = lp_expr(p);
		if (c < 0 || lp_expect(p, ")") < 0)
			return -1;
		if (p->e->node[a].type != LAMBDA_BOOL)
			return lp_fail(p, "where's condition must be a truth value (tf.equal)");
		if (p->e->node[b].op == LAMBDA_CONST || p->e->node[c].op == LAMBDA_CONST)
			return lp_fail(p, "where chooses between two tensors, not numbers");
		if (p->e->node[b].type != LAMBDA_FLOAT || p->e->node[c].type != LAMBDA_FLOAT)
			return lp_fail(p, "where chooses between floats");
		s = lp_shape(p->e->node[a].shape, p->e->node[b].shape);
		s = s < 0 ? -1 : lp_shape(s, p->e->node[c].shape);
		if (s < 0)
			return lp_fail(p, "where's operands do not broadcast");
		return lp_add(p, LAMBDA_WHERE, LAMBDA_FLOAT, (enum lambda_shape)s, a, b, c);
	}
	if (!strcmp(name, "tf.math.square") || !strcmp(name, "tf.square")) {
		a = lp_expr(p);
		if (a < 0 || lp_expect(p, ")") < 0)
			return -1;
		if (p->e->node[a].type != LAMBDA_FLOAT || p->e->node[a].op == LAMBDA_CONST)
			return lp_fail(p, "square takes a float tensor");
		return lp_add(p, LAMBDA_SQUARE, LAMBDA_FLOAT,
			      (enum lambda_shape)p->e->node[a].shape, a, -1, -1);
	}
	return lp_fail(p, "unknown function");	/* not reached: known[] */
}

static int lp_factor(struct lambda_parser *p)
{
	const char *at;
	char name[32], *end;
	size_t n = 0;
	int r;

	lp_space(p);
	at = p->s + p->pos;
	if (lp_accept(p, "(")) {
		r = lp_expr(p);
		return r < 0 || lp_expect(p, ")") < 0 ? -1 : r;
	}
	if (isdigit((unsigned char)*at) || ((*at == '-' || *at == '.') &&
					    (isdigit((unsigned char)at[1]) || at[1] == '.'))) {
		double v = strtod(at, &end);

		p->pos += (size_t)(end - at);
		r = lp_add(p, LAMBDA_CONST, LAMBDA_FLOAT, LAMBDA_SCALAR, -1, -1, -1);
		if (r >= 0)
			p->e->node[r].value = (float)v;
		return r;
	}
	while (isalnum((unsigned char)at[n]) || at[n] == '_' || at[n] == '.')
		n++;
	if (!n || n >= sizeof(name))
		return lp_fail(p, "expected x, a number, a function or \"(\"");
	memcpy(name, at, n);
	name[n] = '\0';
	p->pos += n;
	if (!strcmp(name, "x"))
		return lp_add(p, LAMBDA_X, LAMBDA_FLOAT, LAMBDA_FULL, -1, -1, -1);
	return lp_call(p, name, (size_t)(at - p->s));
}

static int lp_term(struct lambda_parser *p)
{
	int a = lp_factor(p);

	while (a >= 0 && lp_accept(p, "*"))
		a = lp_arith(p, LAMBDA_MUL, a, lp_factor(p));
	return a;
}

static int lp_expr(struct lambda_parser *p)
{
	int a = lp_term(p);

	while (a >= 0) {
		if (lp_accept(p, "+"))
			a = lp_arith(p, LAMBDA_ADD, a, lp_term(p));
		else if (lp_accept(p, "-"))
			a = lp_arith(p, LAMBDA_SUB, a, lp_term(p));
		else
			break;
	}
	return a;
}

int lambda_parse(const char *text, struct lambda_expr *e, char *msg, size_t msg_size)
{
	struct lambda_parser p = { .s = text, .e = e, .msg = msg, .msg_size = msg_size };
	int root;

	memset(e, 0, sizeof(*e));
	if (strlen(text) >= sizeof(e->text)) {
		snprintf(msg, msg_size, "longer than %zu characters", sizeof(e->text) - 1);
		return -1;
	}
	snprintf(e->text, sizeof(e->text), "%s", text);
	root = lp_expr(&p);
	lp_space(&p);
	if (root >= 0 && p.s[p.pos])
		root = lp_fail(&p, "unexpected text after the expression");
	if (root >= 0 && (e->node[root].type != LAMBDA_FLOAT ||
			  e->node[root].shape != LAMBDA_FULL))
		root = lp_fail(&p, "the result must be floats of x's shape");
	return root < 0 ? -1 : 0;
}

/* ---- host evaluation ------------------------------------------------------ */

static float lv(const struct lambda_expr *e, const float *vals, int i, uint32_t b, uint32_t c,
		uint32_t batch, uint32_t units)
{
	const float *v = vals + (size_t)i * batch * units;

	switch (e->node[i].shape) {
	case LAMBDA_FULL:
		return v[(size_t)b * units + c];
	case LAMBDA_ROW:
	case LAMBDA_COL:
		return v[b];
	default:
		return v[0];
	}
}

void lambda_forward(const struct lambda_expr *e, const float *x, float *out, float *vals,
		    uint32_t batch, uint32_t units)
{
	for (uint32_t i = 0; i < e->n; i++) {
		const struct lambda_node *n = &e->node[i];
		float *v = vals + (size_t)i * batch * units;
		bool full = n->shape == LAMBDA_FULL;
		uint32_t cols = full ? units : 1, rows = n->shape == LAMBDA_SCALAR ? 1 : batch;

		for (uint32_t b = 0; b < rows; b++) {
			if (n->op == LAMBDA_ARGMAX) {
				uint32_t best = 0;

				/* the first maximum, NaN never winning (as the kernel) */
				for (uint32_t c = 1; c < units; c++)
					if (lv(e, vals, n->arg[0], b, c, batch, units) >
					    lv(e, vals, n->arg[0], b, best, batch, units))
						best = c;
				v[b] = (float)best;
				continue;
			}
			for (uint32_t c = 0; c < cols; c++) {
				float a = n->arg[0] >= 0 ? lv(e, vals, n->arg[0], b, c, batch, units) : 0;
				float y = n->arg[1] >= 0 ? lv(e, vals, n->arg[1], b, c, batch, units) : 0;
				float *o = &v[(size_t)b * cols + c];

				switch (n->op) {
				case LAMBDA_X:
					*o = x[(size_t)b * units + c];
					break;
				case LAMBDA_CONST:
					*o = n->value;
					break;
				case LAMBDA_EQUAL:
					*o = a == y ? 1.0f : 0.0f;
					break;
				case LAMBDA_EXPAND:
					*o = a;
					break;
				case LAMBDA_WHERE:
					*o = a != 0.0f ? y : lv(e, vals, n->arg[2], b, c, batch, units);
					break;
				case LAMBDA_SQUARE:
					*o = a * a;
					break;
				case LAMBDA_ADD:
					*o = a + y;
					break;
				case LAMBDA_SUB:
					*o = a - y;
					break;
				case LAMBDA_MUL:
					*o = a * y;
					break;
				}
			}
		}
	}
	memcpy(out, vals + (size_t)(e->n - 1) * batch * units, sizeof(float) * batch * units);
}

void lambda_backward(const struct lambda_expr *e, const float *dy, float *dx,
		     const float *vals, float *grads, uint32_t batch, uint32_t units)
{
	size_t per = (size_t)batch * units;
	bool dep[LAMBDA_MAX_NODES] = { false };

	/* only nodes that depend on x carry a gradient, and those have x's shape */
	for (uint32_t i = 0; i < e->n; i++) {
		const struct lambda_node *n = &e->node[i];

		dep[i] = n->op == LAMBDA_X;
		for (int k = 0; k < 3; k++)
			dep[i] = dep[i] || (n->arg[k] >= 0 && dep[n->arg[k]]);
	}
	memset(grads, 0, sizeof(float) * per * e->n);
	memset(dx, 0, sizeof(float) * per);
	memcpy(grads + (e->n - 1) * per, dy, sizeof(float) * per);
	for (uint32_t i = e->n; i-- > 0;) {
		const struct lambda_node *n = &e->node[i];
		const float *g = grads + i * per;
		float *ga = n->arg[0] >= 0 ? grads + n->arg[0] * per : NULL;
		float *gb = n->arg[1] >= 0 ? grads + n->arg[1] * per : NULL;
		float *gc = n->arg[2] >= 0 ? grads + n->arg[2] * per : NULL;

		if (!dep[i])
			continue;
		for (uint32_t b = 0; b < batch; b++) {
			for (uint32_t c = 0; c < units; c++) {
				size_t k = (size_t)b * units + c;
				float a = n->arg[0] >= 0 ? lv(e, vals, n->arg[0], b, c, batch, units) : 0;
				float y = n->arg[1] >= 0 ? lv(e, vals, n->arg[1], b, c, batch, units) : 0;

				switch (n->op) {
				case LAMBDA_X:
					dx[k] += g[k];
					break;
				case LAMBDA_SQUARE:
					ga[k] += g[k] * (a + a);
					break;
				case LAMBDA_WHERE:
					if (dep[n->arg[1]])
						gb[k] += a != 0.0f ? g[k] : 0.0f;
					if (dep[n->arg[2]])
						gc[k] += a != 0.0f ? 0.0f : g[k];
					break;
				case LAMBDA_ADD:
				case LAMBDA_SUB:
					if (dep[n->arg[0]])
						ga[k] += g[k];
					if (dep[n->arg[1]])
						gb[k] += n->op == LAMBDA_SUB ? -g[k] : g[k];
					break;
				case LAMBDA_MUL:
					if (dep[n->arg[0]])
						ga[k] += g[k] * y;
					if (dep[n->arg[1]])
						gb[k] += g[k] * a;
					break;
				default:
					break;
				}
			}
		}
	}
}
