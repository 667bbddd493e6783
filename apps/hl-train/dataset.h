/*
 * The training data sets: MNIST and Fashion-MNIST, 28x28 grey images
 * with labels 0..9, as four IDX files in <data root>/<name>/.
 */
#ifndef DATASET_H
#define DATASET_H

#include <stdint.h>

#include "train_err.h"

#define DATASET_CLASSES 10

struct dataset_split {
	uint32_t count;
	float *images;		/* count x rows*cols, pixels scaled to [0, 1] */
	int32_t *labels;	/* count, each in [0, DATASET_CLASSES) */
};

struct dataset {
	char name[32];
	uint32_t rows, cols;
	struct dataset_split train, test;
};

/* Is NAME one of the known data sets? */
int dataset_known(const char *name);
/* Load <root>/<name>/{train,t10k}-{images-idx3,labels-idx1}-ubyte. */
int dataset_load(const char *root, const char *name, struct dataset *ds,
		 struct train_err *err);
void dataset_free(struct dataset *ds);

#endif
