// SPDX-License-Identifier: MIT
/*
 * Custom kernels: a user's TPC assembly plus a small JSON descriptor,
 * found in the folders of HLRT_KERNEL_PATH (or given to
 * hlrt_registry_load_path), assembled when loaded and registered as an
 * op like any other. docs/custom-kernels.md walks through one.
 *
 * Descriptor NAME.json (every field checked; errors name file, line and
 * column):
 *   {
 *     "guid": "leaky_relu_fwd_f32",          the node's GUID
 *     "kernel": "leaky_relu.tpcs",           default NAME.tpcs, same folder
 *     "summary": "y = x > 0 ? x : alpha x",
 *     "inputs": ["f32"],                     1..7 dtypes: T0..
 *     "outputs": ["f32"],                    1..4 dtypes: after the inputs
 *     "index_space": "elementwise",          or "rows"
 *     "scalars": [{"name": "alpha", "default": 0.01}]   ARG0.., FP32
 *   }
 * Every tensor has the shape of input 0. "elementwise" sees each tensor as
 * one row of all its elements with index space {ceil(n / 4096)} (the relu
 * scheme: a member does up to 64 tiles); "rows" sees it as {last dim,
 * rows} with index space {1, rows}. A node's params are the scalars as
 * floats (NULL: the defaults).
 */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "graph/graph_internal.h"
#include "graph/ops.h"
#include "tpc_asm.h"

#define MAX_CUSTOM	64
#define MAX_SCALARS	16

struct custom_kernel {
	struct op_def op;
	char guid[HLRT_GUID_MAX];
	char summary[128];
	char signature[96];
	char kernel_name[HLRT_NAME_MAX];
	uint8_t *code;
	size_t size;
	hlrt_dtype in[7], out[4];
	uint32_t n_in, n_out, n_scalars;
	bool rows;
	float defaults[MAX_SCALARS];
};

static struct custom_kernel *customs[MAX_CUSTOM];
static uint32_t n_customs;
static bool env_loaded;

static int parse_dtype(const char *s)
{
	static const hlrt_dtype all[] = { HLRT_FP32, HLRT_BF16, HLRT_INT32, HLRT_UINT32,
					  HLRT_INT8, HLRT_UINT8, HLRT_INT16, HLRT_UINT16 };
	size_t i;

	for (i = 0; s && i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(s, hlrt_dtype_suffix(all[i])))
			return (int)all[i];
	return -1;
}

static const struct custom_kernel *custom_of(const struct hlrt_node *n)
{
	uint32_t i;

	for (i = 0; i < n_customs; i++)
		if (&customs[i]->op == n->op)
			return customs[i];
	return NULL;
}

static hlrt_status infer_custom(struct hlrt_node *n, struct hlrt_tensor_desc *o)
{
	const struct custom_kernel *k = custom_of(n);
	uint32_t i, d;

	if (!k)
		return hlrt_fail(HLRT_INTERNAL, "%s: not a custom kernel", n->guid);
	for (i = 0; i < n->n_in; i++) {
		const hlrt_tensor *t = n->in[i];

		if (t->dtype != k->in[i])
			return hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: input %u must be %s", n->guid, i,
					 hlrt_dtype_suffix(k->in[i]));
		if (t->ndims != n->in[0]->ndims ||
		    memcmp(t->dims, n->in[0]->dims, sizeof(t->dims)))
			return hlrt_fail(HLRT_INVALID_ARGUMENT,
					 "%s: every input has the shape of input 0", n->guid);
	}
	for (i = 0; i < k->n_out; i++) {
		o[i].dtype = k->out[i];
		o[i].ndims = n->in[0]->ndims;
		for (d = 0; d < HLRT_MAX_DIMS; d++)
			o[i].dims[d] = n->in[0]->dims[d];
	}
	return HLRT_SUCCESS;
}

bool hlrt_custom_launch_of(const struct hlrt_node *n, struct hlrt_custom_launch *out)
{
	const struct custom_kernel *k = custom_of(n);

	if (!k)
		return false;
	out->kernel = k->kernel_name;
	out->n_in = k->n_in;
	out->n_out = k->n_out;
	out->n_scalars = k->n_scalars;
	out->rows = k->rows;
	out->defaults = k->defaults;
	return true;
}

static hlrt_status bad(const char *file, const json_t *at, const char *what)
{
	(void)at;
	return hlrt_fail(HLRT_BAD_FORMAT, "%s: %s", file, what);
}

static char *read_text(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	long n;
	char *buf;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return NULL;
	}
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf) {
		buf[n] = 0;
		*len = (size_t)n;
	}
	return buf;
}

static hlrt_status dtypes(const char *file, json_t *arr, uint32_t max, hlrt_dtype *out,
			  uint32_t *n, const char *what)
{
	size_t i;
	json_t *v;
	char msg[96];

	if (!json_is_array(arr) || !json_array_size(arr) || json_array_size(arr) > max) {
		snprintf(msg, sizeof(msg), "\"%s\" must list 1..%u dtypes", what, max);
		return bad(file, arr, msg);
	}
	json_array_foreach(arr, i, v) {
		int dt = parse_dtype(json_string_value(v));

		if (dt < 0) {
			snprintf(msg, sizeof(msg), "\"%s\"[%zu]: not a dtype (f32, bf16, i32, ...)",
				 what, i);
			return bad(file, v, msg);
		}
		out[i] = (hlrt_dtype)dt;
	}
	*n = (uint32_t)json_array_size(arr);
	return HLRT_SUCCESS;
}

/* Load one descriptor and its kernel; registers it on success. */
static hlrt_status load_one(const char *dir, const char *json_name)
{
	char path[4096], kpath[4096], err[256];
	struct custom_kernel *k;
	json_error_t jerr;
	json_t *root, *v;
	const char *guid, *kern, *isp;
	size_t len, i;
	char *src;
	hlrt_status st = HLRT_SUCCESS;

	snprintf(path, sizeof(path), "%s/%s", dir, json_name);
	root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return hlrt_fail(HLRT_BAD_FORMAT, "%s:%d:%d: %s", path, jerr.line, jerr.column,
				 jerr.text);
	k = calloc(1, sizeof(*k));
	if (!k) {
		json_decref(root);
		return hlrt_fail(HLRT_OUT_OF_HOST_MEMORY, "custom kernel");
	}
	guid = json_string_value(json_object_get(root, "guid"));
	if (!guid || !*guid || strlen(guid) >= HLRT_GUID_MAX) {
		st = bad(path, root, "\"guid\" must be a string of 1..31 characters");
		goto out;
	}
	if (hlrt_op_find(guid)) {
		st = hlrt_fail(HLRT_INVALID_ARGUMENT, "%s: GUID %s exists already", path, guid);
		goto out;
	}
	snprintf(k->guid, sizeof(k->guid), "%s", guid);
	st = dtypes(path, json_object_get(root, "inputs"), 7, k->in, &k->n_in, "inputs");
	if (!st)
		st = dtypes(path, json_object_get(root, "outputs"), 4, k->out, &k->n_out,
			    "outputs");
	if (!st && k->n_in + k->n_out > 8)
		st = bad(path, root, "at most 8 tensors in all");
	if (st)
		goto out;
	isp = json_string_value(json_object_get(root, "index_space"));
	if (!isp || (strcmp(isp, "elementwise") && strcmp(isp, "rows"))) {
		st = bad(path, root, "\"index_space\" must be \"elementwise\" or \"rows\"");
		goto out;
	}
	k->rows = !strcmp(isp, "rows");
	v = json_object_get(root, "scalars");
	if (v) {
		json_t *s;

		if (!json_is_array(v) || json_array_size(v) > MAX_SCALARS) {
			st = bad(path, v, "\"scalars\" must be a list of at most 16");
			goto out;
		}
		json_array_foreach(v, i, s) {
			json_t *d = json_object_get(s, "default");

			if (!json_is_string(json_object_get(s, "name")) || (d && !json_is_number(d))) {
				st = bad(path, s, "a scalar is {\"name\": ..., \"default\": number}");
				goto out;
			}
			k->defaults[i] = d ? (float)json_number_value(d) : 0.0f;
		}
		k->n_scalars = (uint32_t)json_array_size(v);
	}
	snprintf(k->summary, sizeof(k->summary), "%s",
		 json_string_value(json_object_get(root, "summary")) ?
		 json_string_value(json_object_get(root, "summary")) : "custom kernel");
	kern = json_string_value(json_object_get(root, "kernel"));
	len = strlen(json_name) - 5;	/* without .json */
	if (kern)
		snprintf(kpath, sizeof(kpath), "%s/%s", dir, kern);
	else
		snprintf(kpath, sizeof(kpath), "%s/%.*s.tpcs", dir, (int)len, json_name);
	src = read_text(kpath, &len);
	if (!src) {
		st = hlrt_fail(HLRT_NOT_FOUND, "%s: cannot read the kernel %s", path, kpath);
		goto out;
	}
	if (tpc_assemble(src, len, kpath, &k->code, &k->size, err, sizeof(err))) {
		free(src);
		st = hlrt_fail(HLRT_BAD_FORMAT, "%s", err);
		goto out;
	}
	free(src);
	snprintf(k->kernel_name, sizeof(k->kernel_name), "custom:%s", k->guid);
	snprintf(k->signature, sizeof(k->signature), "%u inputs -> %u outputs (%s)", k->n_in,
		 k->n_out, isp);
	k->op.guid = k->guid;
	k->op.op_class = k->guid;
	k->op.engine = ENG_TPC;
	k->op.signature = k->signature;
	k->op.summary = k->summary;
	k->op.n_in_min = k->op.n_in_max = (uint8_t)k->n_in;
	k->op.n_out = (uint8_t)k->n_out;
	k->op.params_size = 4 * k->n_scalars;
	k->op.infer = infer_custom;
	k->op.lower = hlrt_lower_custom;
	k->op.dtype = k->out[0];
	k->op.from = -1;
	if (n_customs == MAX_CUSTOM) {
		st = hlrt_fail(HLRT_UNSUPPORTED, "more than %d custom kernels", MAX_CUSTOM);
		goto out;
	}
	customs[n_customs++] = k;
	k = NULL;
out:
	if (k)
		free(k->code);
	free(k);
	json_decref(root);
	return st;
}

hlrt_status hlrt_registry_load_path(const char *dir)
{
	struct dirent **list;
	hlrt_status first = HLRT_SUCCESS;
	int n, i;

	if (!dir || !*dir)
		return hlrt_fail(HLRT_INVALID_ARGUMENT, "hlrt_registry_load_path: no folder");
	n = scandir(dir, &list, NULL, alphasort);
	if (n < 0)
		return hlrt_fail(HLRT_NOT_FOUND, "cannot read the kernel folder %s", dir);
	for (i = 0; i < n; i++) {
		size_t len = strlen(list[i]->d_name);

		if (len > 5 && !strcmp(list[i]->d_name + len - 5, ".json")) {
			hlrt_status st = load_one(dir, list[i]->d_name);
			char msg[512];

			if (st && !first) {
				first = st;
				snprintf(msg, sizeof(msg), "%s", hlrt_last_error());
				hlrt_fail(st, "%s", msg);
			}
		}
		free(list[i]);
	}
	free(list);
	return first;
}

/* HLRT_KERNEL_PATH, once: a folder that fails is reported, the others still load. */
static void load_env(void)
{
	const char *path = hlrt_config_kernel_path();
	char *copy, *dir, *save = NULL;

	env_loaded = true;
	if (!path || !*path)
		return;
	copy = strdup(path);
	for (dir = copy ? strtok_r(copy, ":", &save) : NULL; dir;
	     dir = strtok_r(NULL, ":", &save))
		if (hlrt_registry_load_path(dir))
			fprintf(stderr, "hlrt: HLRT_KERNEL_PATH: %s\n", hlrt_last_error());
	free(copy);
}

const struct op_def *hlrt_custom_find(const char *guid)
{
	uint32_t i;

	if (!env_loaded)
		load_env();
	for (i = 0; i < n_customs; i++)
		if (!strcmp(customs[i]->guid, guid))
			return &customs[i]->op;
	return NULL;
}

uint32_t hlrt_custom_count(void)
{
	if (!env_loaded)
		load_env();
	return n_customs;
}

const struct op_def *hlrt_custom_at(uint32_t i)
{
	return i < n_customs ? &customs[i]->op : NULL;
}

bool hlrt_custom_kernel(const char *name, const uint8_t **code, uint32_t *size)
{
	uint32_t i;

	for (i = 0; i < n_customs; i++) {
		if (!strcmp(customs[i]->kernel_name, name)) {
			*code = customs[i]->code;
			*size = (uint32_t)customs[i]->size;
			return true;
		}
	}
	return false;
}
