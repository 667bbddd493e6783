/* SPDX-License-Identifier: MIT */
/*
 * Shared helpers of the runtime host tests: a device on the in-process
 * backend per test, random data, a one-node graph runner, and the suites.
 */
#ifndef RT_TEST_H
#define RT_TEST_H

#include <check.h>
#include <stdint.h>

#include "hlrt.h"

#define HLRT_OK(call) \
	do { \
		hlrt_status st_ = (call); \
		ck_assert_msg(st_ == HLRT_SUCCESS, "%s: %s: %s", #call, hlrt_status_name(st_), \
			      hlrt_last_error()); \
	} while (0)

extern hlrt_device *rt_dev;
extern hlrt_stream *rt_stream;
void rt_setup(void);
void rt_teardown(void);

/* Command submissions so far, -1 where the backend cannot count them. */
int64_t rt_submissions(void);

/* Deterministic random numbers. */
uint32_t rt_rand(uint32_t *state);
float rt_randf(uint32_t *state, float lo, float hi);

/* A device buffer holding host data; returns its address. */
uint64_t rt_upload(const void *data, uint64_t size);
void rt_download(void *dst, uint64_t addr, uint64_t size);

struct rt_binding_set {
	struct hlrt_tensor_binding b[32];
	uint32_t n;
};

/* Allocate a device buffer for every persistent tensor of the recipe
 * (uploading data[i] when given for the tensor named names[i]). */
void rt_bind_all(const hlrt_recipe *r, struct rt_binding_set *bs);
uint64_t rt_addr_of(const struct rt_binding_set *bs, const char *name);
/* Launch with workspace and wait. */
void rt_run(const hlrt_recipe *r, const struct rt_binding_set *bs);

/* An operand of rt_run_op: host data and its shape. */
struct rt_arg {
	hlrt_dtype dtype;
	uint32_t ndims;
	uint64_t dims[5];
	void *data;	/* outputs: malloc'ed by rt_run_op, free() it */
};

uint64_t rt_arg_elems(const struct rt_arg *a);
/*
 * Run one node: inputs become INPUT tensors, the node's outputs OUTPUT
 * tensors; out[i] gets the output shape and data. in_place: output 0 is
 * input in_place - 1 (optimizers), its data updated in in[].
 */
void rt_run_op(const char *guid, const struct rt_arg *in, uint32_t n_in, struct rt_arg *out,
	       uint32_t n_out, const void *params, size_t psize, uint32_t in_place);

/*
 * Run one node whose output i is input out_is_in[i] (updated in place; its
 * new data also comes back in out[i]) or, for -1, a new OUTPUT tensor.
 */
void rt_run_op_map(const char *guid, struct rt_arg *in, uint32_t n_in, struct rt_arg *out,
		   uint32_t n_out, const void *params, size_t psize, const int *out_is_in);

Suite *kernels_suite(void);
Suite *compiler_suite(void);
Suite *train_suite(void);
Suite *api_suite(void);
Suite *custom_suite(void);
Suite *session_suite(void);
Suite *eager_suite(void);
Suite *transpose_suite(void);
Suite *lamb_suite(void);
Suite *stream_wait_suite(void);
Suite *conv_suite(void);
Suite *coll_suite(void);
Suite *optimizer_suite(void);
Suite *gelu_suite(void);
Suite *concat_suite(void);

#endif /* RT_TEST_H */
