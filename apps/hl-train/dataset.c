/* Loading a data set's four IDX files into FP32 images and INT32 labels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dataset.h"
#include "idx.h"

static const char *const dataset_names[] = { "mnist", "fashion-mnist" };

int dataset_known(const char *name)
{
	for (size_t i = 0; i < sizeof(dataset_names) / sizeof(dataset_names[0]); i++)
		if (strcmp(name, dataset_names[i]) == 0)
			return 1;
	return 0;
}

static int dataset_load_split(const char *dir, const char *prefix,
			      uint32_t rows, uint32_t cols,
			      struct dataset_split *split, struct train_err *err)
{
	uint32_t img_dims[3] = { 0, rows, cols };
	struct idx_array img, lbl;
	char path[4096];
	int ret = -1;

	snprintf(path, sizeof(path), "%s/%s-images-idx3-ubyte", dir, prefix);
	if (idx_load(path, 3, img_dims, &img, err))
		return -1;
	snprintf(path, sizeof(path), "%s/%s-labels-idx1-ubyte", dir, prefix);
	if (idx_load(path, 1, NULL, &lbl, err))
		goto out_img;
	if (lbl.dims[0] != img.dims[0]) {
		train_err_set(err, "%s: %u labels for %u images", path,
			      lbl.dims[0], img.dims[0]);
		goto out_lbl;
	}
	split->count = img.dims[0];
	split->images = malloc(img.count * sizeof(float));
	split->labels = malloc(lbl.count * sizeof(int32_t));
	if (!split->images || !split->labels) {
		train_err_set(err, "%s: out of memory", dir);
		goto out_lbl;
	}
	for (size_t i = 0; i < img.count; i++)
		split->images[i] = img.data[i] / 255.0f;
	for (size_t i = 0; i < lbl.count; i++) {
		if (lbl.data[i] >= DATASET_CLASSES) {
			train_err_set(err, "%s: label %u of sample %zu is not a class 0..%d",
				      path, lbl.data[i], i, DATASET_CLASSES - 1);
			goto out_lbl;
		}
		split->labels[i] = lbl.data[i];
	}
	ret = 0;
out_lbl:
	idx_free(&lbl);
out_img:
	idx_free(&img);
	if (ret) {
		free(split->images);
		free(split->labels);
		memset(split, 0, sizeof(*split));
	}
	return ret;
}

int dataset_load(const char *root, const char *name, struct dataset *ds,
		 struct train_err *err)
{
	char dir[4096];

	memset(ds, 0, sizeof(*ds));
	if (!dataset_known(name))
		return train_err_set(err, "unknown data set '%s' (mnist, fashion-mnist)", name);
	snprintf(ds->name, sizeof(ds->name), "%s", name);
	snprintf(dir, sizeof(dir), "%s/%s", root, name);
	ds->rows = 28;
	ds->cols = 28;
	if (dataset_load_split(dir, "train", ds->rows, ds->cols, &ds->train, err))
		return -1;
	if (dataset_load_split(dir, "t10k", ds->rows, ds->cols, &ds->test, err)) {
		dataset_free(ds);
		return -1;
	}
	return 0;
}

void dataset_free(struct dataset *ds)
{
	free(ds->train.images);
	free(ds->train.labels);
	free(ds->test.images);
	free(ds->test.labels);
	memset(ds, 0, sizeof(*ds));
}
