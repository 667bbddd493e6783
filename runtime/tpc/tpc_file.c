// SPDX-License-Identifier: MIT
/* File input shared by the tpc-as and tpc-dis tools. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpc_file.h"

char *tpc_read_file(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	size_t cap = 1 << 16, n = 0;
	char *buf = NULL, *p;

	if (!f)
		return NULL;
	for (;;) {
		/* +1 keeps room for the terminating NUL the assembler wants. */
		p = realloc(buf, cap + 1);
		if (!p)
			break;
		buf = p;
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap) {
			if (ferror(f))
				break;
			if (f != stdin)
				fclose(f);
			buf[n] = '\0';
			*len = n;
			return buf;
		}
		cap *= 2;
	}
	free(buf);
	if (f != stdin)
		fclose(f);
	return NULL;
}
