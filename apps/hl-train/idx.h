/*
 * Reader for the IDX files of MNIST and Fashion-MNIST (LeCun's format:
 * a big-endian magic 0x000008NN for unsigned bytes in NN dimensions, the
 * dimensions as big-endian u32, then the bytes).
 */
#ifndef IDX_H
#define IDX_H

#include <stddef.h>
#include <stdint.h>

#include "train_err.h"

#define IDX_MAX_DIMS 4

struct idx_array {
	uint32_t ndims;
	uint32_t dims[IDX_MAX_DIMS];
	size_t count;		/* product of dims */
	uint8_t *data;
};

/*
 * Load PATH, which must hold unsigned bytes in NDIMS dimensions; each
 * non-zero entry of want_dims (0 = any size) must match. A bad
 * magic, other dimensions or a file shorter or longer than its header
 * says fail with a message naming the file.
 */
int idx_load(const char *path, uint32_t ndims, const uint32_t *want_dims,
	     struct idx_array *out, struct train_err *err);
void idx_free(struct idx_array *arr);

#endif
