/* Fixtures shared by the trainer suites (fixtures.h). */
#include <check.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixtures.h"

void fx_tmpdir(char *path, size_t len)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(path, len, "%s/trainer-test.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(path));
}

static int fx_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void fx_rmtree(const char *path)
{
	nftw(path, fx_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void fx_write(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

static void fx_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

void fx_write_idx(const char *path, uint32_t magic, uint32_t ndims,
		  const uint32_t *dims, const uint8_t *data, size_t len)
{
	size_t hlen = 4 + 4 * (size_t)ndims;
	uint8_t *buf = malloc(hlen + len);

	ck_assert_ptr_nonnull(buf);
	fx_be32(buf, magic ? magic : 0x0800u | ndims);
	for (uint32_t i = 0; i < ndims; i++)
		fx_be32(buf + 4 + 4 * i, dims[i]);
	if (len)
		memcpy(buf + hlen, data, len);
	fx_write(path, buf, hlen + len);
	free(buf);
}

static void fx_synthetic_split(const char *dir, const char *prefix, uint32_t n,
			       uint32_t salt)
{
	uint32_t idims[3] = { n, 28, 28 }, ldims[1] = { n };
	uint8_t *img = calloc((size_t)n, 784), *lbl = malloc(n);
	uint32_t x = 12345u + salt;
	char path[512];

	ck_assert_ptr_nonnull(img);
	ck_assert_ptr_nonnull(lbl);
	for (uint32_t s = 0; s < n; s++) {
		uint32_t k = (s * 7 + salt) % 10, r0 = 2 + (k / 5) * 12, c0 = 1 + (k % 5) * 5;
		uint8_t *p = img + (size_t)s * 784;

		lbl[s] = (uint8_t)k;
		for (uint32_t i = 0; i < 784; i++) {
			x = x * 1103515245u + 12345u;	/* noise; not the rng under test */
			p[i] = (uint8_t)((x >> 16) % 40);
		}
		for (uint32_t r = r0; r < r0 + 6; r++)
			for (uint32_t c = c0; c < c0 + 6 && c < 28; c++)
				p[r * 28 + c] = 250;
	}
	snprintf(path, sizeof(path), "%s/%s-images-idx3-ubyte", dir, prefix);
	fx_write_idx(path, 0, 3, idims, img, (size_t)n * 784);
	snprintf(path, sizeof(path), "%s/%s-labels-idx1-ubyte", dir, prefix);
	fx_write_idx(path, 0, 1, ldims, lbl, n);
	free(img);
	free(lbl);
}

void fx_synthetic_mnist(const char *root, uint32_t n_train, uint32_t n_test)
{
	char dir[512];

	snprintf(dir, sizeof(dir), "%s/mnist", root);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	fx_synthetic_split(dir, "train", n_train, 0);
	fx_synthetic_split(dir, "t10k", n_test, 3);
}

char *fx_read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long len;

	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)len + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
	buf[len] = '\0';
	fclose(f);
	return buf;
}
