/* The trainer's error message buffer (see train_err.h). */
#include <stdarg.h>
#include <stdio.h>

#include "train_err.h"

int train_err_set(struct train_err *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}
