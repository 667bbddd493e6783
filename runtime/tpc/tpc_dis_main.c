// SPDX-License-Identifier: MIT
/*
 * tpc-dis: disassemble TPC bundles into text that tpc-as assembles back
 * into the same bytes.
 *
 * Usage: tpc-dis [-o OUT] INPUT
 *   INPUT   raw bundles (a multiple of 32 bytes), "-" for standard input
 *   -o OUT  output file (default: standard output)
 * Exit status: 0 success, 1 bad input or I/O error, 2 usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpc_asm.h"
#include "tpc_file.h"


int main(int argc, char **argv)
{
	const char *out = NULL, *in = NULL;
	uint8_t *code;
	size_t len;
	char *text;
	FILE *f;
	int i, rc = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if ((argv[i][0] == '-' && argv[i][1]) || in)
			in = NULL, i = argc;
		else
			in = argv[i];
	}
	if (!in) {
		fprintf(stderr, "usage: tpc-dis [-o OUT] INPUT\n");
		return 2;
	}
	code = (uint8_t *)tpc_read_file(in, &len);
	if (!code) {
		perror(in);
		return 1;
	}
	if (!len || len % GAUDISIM_TPC_BUNDLE_SIZE ||
	    len / GAUDISIM_TPC_BUNDLE_SIZE > GAUDISIM_TPC_MAX_BUNDLES) {
		fprintf(stderr, "%s: %zu bytes is not 1..%u bundles of %u bytes\n", in, len,
			GAUDISIM_TPC_MAX_BUNDLES, GAUDISIM_TPC_BUNDLE_SIZE);
		free(code);
		return 1;
	}
	text = tpc_disassemble(code, len);
	free(code);
	if (!text) {
		fprintf(stderr, "tpc-dis: out of memory\n");
		return 1;
	}
	f = out ? fopen(out, "w") : stdout;
	if (!f) {
		perror(out);
		free(text);
		return 1;
	}
	if (fputs(text, f) == EOF)
		rc = 1;
	if (f != stdout && fclose(f))
		rc = 1;
	if (rc)
		fprintf(stderr, "tpc-dis: cannot write %s\n", out ? out : "standard output");
	free(text);
	return rc;
}
