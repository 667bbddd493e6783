/* IDX file reader (see idx.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "idx.h"

#define IDX_TYPE_UBYTE 0x08

static uint32_t idx_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static int idx_parse_header(FILE *f, const char *path, uint32_t ndims,
			    const uint32_t *want_dims, struct idx_array *out,
			    struct train_err *err)
{
	uint8_t hdr[4 + 4 * IDX_MAX_DIMS];
	uint32_t magic, want_magic = IDX_TYPE_UBYTE << 8 | ndims;

	if (fread(hdr, 1, 4, f) != 4)
		return train_err_set(err, "%s: truncated IDX header", path);
	magic = idx_be32(hdr);
	if (magic != want_magic)
		return train_err_set(err,
			"%s: bad IDX magic 0x%08x (expected 0x%08x: unsigned bytes in %u dimensions)",
			path, magic, want_magic, ndims);
	if (fread(hdr + 4, 4, ndims, f) != ndims)
		return train_err_set(err, "%s: truncated IDX header", path);
	out->ndims = ndims;
	out->count = 1;
	for (uint32_t i = 0; i < ndims; i++) {
		out->dims[i] = idx_be32(hdr + 4 + 4 * i);
		if (want_dims && want_dims[i] && out->dims[i] != want_dims[i])
			return train_err_set(err,
				"%s: dimension %u is %u (expected %u)",
				path, i, out->dims[i], want_dims[i]);
		if (out->dims[i] == 0)
			return train_err_set(err, "%s: dimension %u is 0", path, i);
		if (out->count > SIZE_MAX / out->dims[i])
			return train_err_set(err, "%s: dimensions overflow", path);
		out->count *= out->dims[i];
	}
	return 0;
}

int idx_load(const char *path, uint32_t ndims, const uint32_t *want_dims,
	     struct idx_array *out, struct train_err *err)
{
	struct stat st;
	size_t header;
	FILE *f;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (ndims == 0 || ndims > IDX_MAX_DIMS)
		return train_err_set(err, "%s: unsupported IDX rank %u", path, ndims);
	f = fopen(path, "rb");
	if (!f)
		return train_err_set(err, "%s: %s", path, strerror(errno));
	if (fstat(fileno(f), &st) != 0) {
		train_err_set(err, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (idx_parse_header(f, path, ndims, want_dims, out, err))
		goto out;
	header = 4 + 4 * (size_t)ndims;
	if ((uint64_t)st.st_size != header + out->count) {
		train_err_set(err, "%s: %s: %lld data bytes, the header says %zu",
			      path, (uint64_t)st.st_size < header + out->count ?
			      "truncated file" : "trailing bytes",
			      (long long)st.st_size - (long long)header, out->count);
		goto out;
	}
	out->data = malloc(out->count);
	if (!out->data) {
		train_err_set(err, "%s: out of memory for %zu bytes", path, out->count);
		goto out;
	}
	if (fread(out->data, 1, out->count, f) != out->count) {
		train_err_set(err, "%s: read error", path);
		goto out;
	}
	ret = 0;
out:
	fclose(f);
	if (ret)
		idx_free(out);
	return ret;
}

void idx_free(struct idx_array *arr)
{
	free(arr->data);
	memset(arr, 0, sizeof(*arr));
}
