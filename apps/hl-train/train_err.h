/*
 * Error reports of the trainer's loaders: the first failure's message,
 * formatted where it is detected and printed once by the caller.
 */
#ifndef TRAIN_ERR_H
#define TRAIN_ERR_H

struct train_err {
	char msg[512];
};

/* Record a message; always returns -1 so a caller can `return train_err_set(...)`. */
int train_err_set(struct train_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
