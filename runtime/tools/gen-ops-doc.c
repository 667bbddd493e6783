// SPDX-License-Identifier: MIT
/* gen-ops-doc: print docs/ops.md from the runtime's op registry. */
#include <stdio.h>
#include <stdlib.h>

char *hlrt_ops_markdown(void);

int main(void)
{
	char *md = hlrt_ops_markdown();

	if (!md) {
		fprintf(stderr, "gen-ops-doc: out of memory\n");
		return 1;
	}
	fputs(md, stdout);
	free(md);
	return 0;
}
