/*
 * Test fixtures of the trainer suites: temporary folders, files written
 * from memory, IDX files, and a small synthetic data set in the layout
 * of MNIST (<root>/mnist/{train,t10k}-*-ubyte).
 */
#ifndef TRAINER_FIXTURES_H
#define TRAINER_FIXTURES_H

#include <stddef.h>
#include <stdint.h>

/* A fresh folder under TMPDIR; the caller removes it with fx_rmtree. */
void fx_tmpdir(char *path, size_t len);
void fx_rmtree(const char *path);
void fx_write(const char *path, const void *data, size_t len);
/* An unsigned-byte IDX file with the given magic (0 = the right one). */
void fx_write_idx(const char *path, uint32_t magic, uint32_t ndims,
		  const uint32_t *dims, const uint8_t *data, size_t len);
/*
 * <root>/mnist with n_train and n_test 28x28 images: class k lights a
 * bright 6x6 square at a class-specific place over a little noise, so a
 * softmax regression learns it in a few steps.
 */
void fx_synthetic_mnist(const char *root, uint32_t n_train, uint32_t n_test);
/* Read a whole text file (malloc'ed, NUL-terminated). */
char *fx_read_text(const char *path);

#endif
