// SPDX-License-Identifier: MIT
/*
 * docs/ops.md, generated from the op registry so that the list of ops
 * users check their models against never drifts from the code.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph_internal.h"

struct sbuf {
	char *p;
	size_t n, cap;
};

static void add(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if (b->p && b->n + (size_t)n < b->cap) {
			b->n += (size_t)n;
			return;
		}
		b->cap = (b->cap + (size_t)n + 1) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			return;
	}
}

char *hlrt_ops_markdown(void)
{
	struct sbuf b = { 0 };
	uint32_t i;

	add(&b, "# Supported ops\n\n"
		"Generated from the runtime's op registry (`runtime/src/registry.c`) by\n"
		"`make -C runtime ops-doc`; the runtime's host tests fail when this file\n"
		"differs from the registry. Each GUID carries its dtype, like Synapse's.\n"
		"*Engine* is where the op runs: the MME, the TPCs (split over the enabled\n"
		"TPCs), a DMA engine, the host CPU (with the copies inserted for it), or\n"
		"*view* (no work: the output shares the input's memory). *Grad* says\n"
		"whether autodiff can differentiate through the op.\n\n"
		"| GUID | Engine | Signature | Semantics | Grad |\n"
		"|------|--------|-----------|-----------|------|\n");
	for (i = 0; i < hlrt_op_count(); i++) {
		const struct op_def *op = hlrt_op_at(i);

		add(&b, "| `%s` | %s | `%s` | %s | %s |\n", op->guid, hlrt_engine_name(op->engine), op->signature,
		    op->summary, op->grad ? "yes" : "");
	}
	return b.p;
}
