/*
 * safetensors files: an 8-byte little-endian header length, a JSON
 * header mapping each tensor name to {dtype, shape, data_offsets} (plus
 * "__metadata__", string to string), then the raw little-endian data.
 * The files open in Python's safetensors and NumPy. Only F32 tensors are
 * written and read here. Writing goes to a temporary name, then renames,
 * so an interrupted save never leaves a half-written file.
 */
#ifndef SAFETENSORS_H
#define SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

#include "train_err.h"

#define SAFETENSORS_MAX_DIMS 8
/* A header larger than this is refused (as the Python reader does). */
#define SAFETENSORS_MAX_HEADER (100u << 20)

struct safetensors_tensor {
	const char *name;
	uint32_t ndims;
	uint64_t dims[SAFETENSORS_MAX_DIMS];
	const float *data;
};

struct safetensors_meta {
	const char *key;
	const char *value;
};

int safetensors_write(const char *path, const struct safetensors_tensor *tensors,
		      size_t n, const struct safetensors_meta *meta, size_t n_meta,
		      struct train_err *err);

/* A file read whole and its header validated. */
struct safetensors_file {
	char path[256];
	void *header;		/* json_t object */
	uint8_t *data;		/* the data section */
	uint64_t data_len;
};

int safetensors_read(const char *path, struct safetensors_file *f,
		     struct train_err *err);
/*
 * Copy tensor NAME into out, checking that it is F32 with exactly the
 * shape dims[0..ndims).
 */
int safetensors_get(const struct safetensors_file *f, const char *name,
		    uint32_t ndims, const uint64_t *dims, float *out,
		    struct train_err *err);
/* A "__metadata__" value, NULL if absent. */
const char *safetensors_meta_get(const struct safetensors_file *f, const char *key);
void safetensors_close(struct safetensors_file *f);

#endif
