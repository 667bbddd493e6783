/* safetensors reader and writer (see safetensors.h). */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safetensors.h"

static void safetensors_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t safetensors_get_le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static uint64_t safetensors_count(uint32_t ndims, const uint64_t *dims)
{
	uint64_t n = 1;

	for (uint32_t i = 0; i < ndims; i++)
		n *= dims[i];
	return n;
}

/* The header JSON, padded with spaces to a multiple of 8 bytes. */
static char *safetensors_header(const struct safetensors_tensor *tensors, size_t n,
				const struct safetensors_meta *meta, size_t n_meta,
				size_t *len)
{
	json_t *root = json_object(), *md = json_object();
	uint64_t offset = 0;
	char *text, *padded;
	size_t tlen;

	for (size_t i = 0; i < n_meta; i++)
		json_object_set_new(md, meta[i].key, json_string(meta[i].value));
	if (n_meta)
		json_object_set_new(root, "__metadata__", md);
	else
		json_decref(md);
	for (size_t i = 0; i < n; i++) {
		const struct safetensors_tensor *t = &tensors[i];
		uint64_t bytes = safetensors_count(t->ndims, t->dims) * sizeof(float);
		json_t *shape = json_array();

		for (uint32_t d = 0; d < t->ndims; d++)
			json_array_append_new(shape, json_integer((json_int_t)t->dims[d]));
		json_object_set_new(root, t->name,
				    json_pack("{s:s, s:o, s:[I, I]}", "dtype", "F32",
					      "shape", shape, "data_offsets",
					      (json_int_t)offset, (json_int_t)(offset + bytes)));
		offset += bytes;
	}
	text = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (!text)
		return NULL;
	tlen = strlen(text);
	*len = (tlen + 7) & ~(size_t)7;
	padded = malloc(*len);
	if (padded) {
		memcpy(padded, text, tlen);
		memset(padded + tlen, ' ', *len - tlen);
	}
	free(text);
	return padded;
}

static int safetensors_write_data(FILE *f, const struct safetensors_tensor *t)
{
	uint64_t count = safetensors_count(t->ndims, t->dims);
	uint8_t buf[4096];
	size_t fill = 0;

	/* Little-endian on any host, four bytes per element. */
	for (uint64_t i = 0; i < count; i++) {
		uint32_t bits;

		memcpy(&bits, &t->data[i], 4);
		for (int b = 0; b < 4; b++)
			buf[fill++] = (uint8_t)(bits >> (8 * b));
		if (fill == sizeof(buf)) {
			if (fwrite(buf, 1, fill, f) != fill)
				return -1;
			fill = 0;
		}
	}
	return fwrite(buf, 1, fill, f) == fill ? 0 : -1;
}

int safetensors_write(const char *path, const struct safetensors_tensor *tensors,
		      size_t n, const struct safetensors_meta *meta, size_t n_meta,
		      struct train_err *err)
{
	char tmp[4096];
	uint8_t len_le[8];
	size_t hlen;
	char *header;
	FILE *f;
	int ret = -1;

	for (size_t i = 0; i < n; i++)
		if (!tensors[i].name || tensors[i].ndims > SAFETENSORS_MAX_DIMS ||
		    strcmp(tensors[i].name, "__metadata__") == 0)
			return train_err_set(err, "%s: invalid tensor %zu", path, i);
	header = safetensors_header(tensors, n, meta, n_meta, &hlen);
	if (!header)
		return train_err_set(err, "%s: cannot build the header", path);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	f = fopen(tmp, "wb");
	if (!f) {
		train_err_set(err, "%s: %s", tmp, strerror(errno));
		free(header);
		return -1;
	}
	safetensors_le64(len_le, hlen);
	if (fwrite(len_le, 1, 8, f) != 8 || fwrite(header, 1, hlen, f) != hlen)
		goto fail;
	for (size_t i = 0; i < n; i++)
		if (safetensors_write_data(f, &tensors[i]))
			goto fail;
	if (fflush(f) || fsync(fileno(f)))
		goto fail;
	if (fclose(f)) {
		f = NULL;
		goto fail;
	}
	f = NULL;
	if (rename(tmp, path)) {
		train_err_set(err, "%s: %s", path, strerror(errno));
		unlink(tmp);
		goto out;
	}
	ret = 0;
	goto out;
fail:
	train_err_set(err, "%s: write failed: %s", tmp, strerror(errno));
	if (f)
		fclose(f);
	unlink(tmp);
out:
	free(header);
	return ret;
}

/* Check one tensor entry of the header against the data section. */
static int safetensors_check_entry(const char *path, const char *name, json_t *v,
				   uint64_t data_len, struct train_err *err)
{
	json_t *shape = json_object_get(v, "shape");
	json_t *off = json_object_get(v, "data_offsets");
	const char *dtype = json_string_value(json_object_get(v, "dtype"));
	json_int_t begin, end;
	uint64_t count = 1;
	size_t i;
	json_t *d;

	if (!json_is_object(v) || !dtype || !json_is_array(shape) ||
	    !json_is_array(off) || json_array_size(off) != 2 ||
	    json_array_size(shape) > SAFETENSORS_MAX_DIMS)
		return train_err_set(err, "%s: tensor \"%s\": malformed entry", path, name);
	json_array_foreach(shape, i, d) {
		if (!json_is_integer(d) || json_integer_value(d) < 0 ||
		    json_integer_value(d) > (json_int_t)(1ull << 40))
			return train_err_set(err, "%s: tensor \"%s\": bad shape", path, name);
		count *= (uint64_t)json_integer_value(d);
		if (count > (1ull << 40))
			return train_err_set(err, "%s: tensor \"%s\": bad shape", path, name);
	}
	begin = json_integer_value(json_array_get(off, 0));
	end = json_integer_value(json_array_get(off, 1));
	if (!json_is_integer(json_array_get(off, 0)) ||
	    !json_is_integer(json_array_get(off, 1)) || begin < 0 || end < begin ||
	    (uint64_t)end > data_len)
		return train_err_set(err, "%s: tensor \"%s\": data offsets outside the file",
				     path, name);
	if (strcmp(dtype, "F32") == 0 && (uint64_t)(end - begin) != count * 4)
		return train_err_set(err, "%s: tensor \"%s\": %lld bytes for %llu F32 elements",
				     path, name, (long long)(end - begin),
				     (unsigned long long)count);
	return 0;
}

int safetensors_read(const char *path, struct safetensors_file *f,
		     struct train_err *err)
{
	uint8_t len_le[8];
	uint64_t hlen;
	struct stat st;
	json_error_t jerr;
	char *text = NULL;
	const char *key;
	json_t *root = NULL, *v;
	FILE *fp;

	memset(f, 0, sizeof(*f));
	snprintf(f->path, sizeof(f->path), "%s", path);
	fp = fopen(path, "rb");
	if (!fp)
		return train_err_set(err, "%s: %s", path, strerror(errno));
	if (fstat(fileno(fp), &st) || fread(len_le, 1, 8, fp) != 8) {
		train_err_set(err, "%s: not a safetensors file (too short)", path);
		goto fail;
	}
	hlen = safetensors_get_le64(len_le);
	if (hlen < 2 || hlen > SAFETENSORS_MAX_HEADER || hlen > (uint64_t)st.st_size - 8) {
		train_err_set(err, "%s: not a safetensors file (header length %llu)",
			      path, (unsigned long long)hlen);
		goto fail;
	}
	text = malloc(hlen);
	f->data_len = (uint64_t)st.st_size - 8 - hlen;
	f->data = malloc(f->data_len ? f->data_len : 1);
	if (!text || !f->data) {
		train_err_set(err, "%s: out of memory", path);
		goto fail;
	}
	if (fread(text, 1, hlen, fp) != hlen ||
	    fread(f->data, 1, f->data_len, fp) != f->data_len) {
		train_err_set(err, "%s: read error", path);
		goto fail;
	}
	root = json_loadb(text, hlen, JSON_REJECT_DUPLICATES, &jerr);
	if (!root || !json_is_object(root)) {
		train_err_set(err, "%s: header: %d:%d: %s", path, jerr.line, jerr.column,
			      root ? "not a JSON object" : jerr.text);
		goto fail;
	}
	json_object_foreach(root, key, v) {
		if (strcmp(key, "__metadata__") == 0)
			continue;
		if (safetensors_check_entry(path, key, v, f->data_len, err))
			goto fail;
	}
	free(text);
	fclose(fp);
	f->header = root;
	return 0;
fail:
	json_decref(root);
	free(text);
	fclose(fp);
	free(f->data);
	f->data = NULL;
	return -1;
}

int safetensors_get(const struct safetensors_file *f, const char *name,
		    uint32_t ndims, const uint64_t *dims, float *out,
		    struct train_err *err)
{
	json_t *v = json_object_get(f->header, name), *shape;
	uint64_t begin, count = safetensors_count(ndims, dims);
	const char *dtype;

	if (!v || strcmp(name, "__metadata__") == 0)
		return train_err_set(err, "%s: no tensor \"%s\"", f->path, name);
	dtype = json_string_value(json_object_get(v, "dtype"));
	if (strcmp(dtype, "F32") != 0)
		return train_err_set(err, "%s: tensor \"%s\" is %s, not F32", f->path,
				     name, dtype);
	shape = json_object_get(v, "shape");
	if (json_array_size(shape) != ndims)
		goto bad_shape;
	for (uint32_t i = 0; i < ndims; i++)
		if ((uint64_t)json_integer_value(json_array_get(shape, i)) != dims[i])
			goto bad_shape;
	begin = (uint64_t)json_integer_value(json_array_get(json_object_get(v, "data_offsets"), 0));
	for (uint64_t i = 0; i < count; i++) {
		const uint8_t *p = f->data + begin + 4 * i;
		uint32_t bits = (uint32_t)p[0] | (uint32_t)p[1] << 8 |
				(uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;

		memcpy(&out[i], &bits, 4);
	}
	return 0;
bad_shape:
	return train_err_set(err, "%s: tensor \"%s\" has another shape than the model's",
			     f->path, name);
}

const char *safetensors_meta_get(const struct safetensors_file *f, const char *key)
{
	return json_string_value(json_object_get(json_object_get(f->header, "__metadata__"),
						 key));
}

void safetensors_close(struct safetensors_file *f)
{
	json_decref(f->header);
	free(f->data);
	memset(f, 0, sizeof(*f));
}
