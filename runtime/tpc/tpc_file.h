/* SPDX-License-Identifier: MIT */
/* File input shared by the tpc-as and tpc-dis tools. */
#ifndef TPC_FILE_H
#define TPC_FILE_H

#include <stddef.h>

/*
 * Read a whole file ("-" = standard input) into a malloc'ed buffer with one
 * spare NUL byte after the data. Returns NULL on error; *len gets the size.
 */
char *tpc_read_file(const char *path, size_t *len);

#endif /* TPC_FILE_H */
