// SPDX-License-Identifier: MIT
/*
 * hl-smi topo -c: which AIPs are cabled to which through their NIC ports
 * and how many of those links are up, like the real tool's connectivity
 * matrix; the last column counts the scale-out ports leaving the box.
 */
#include <stdbool.h>
#include <stdio.h>

#include "render.h"

#define TOPO_CELL	8

/* Links of device a to module m: cabled and up ones (in-box ports only). */
static void count_links(const struct smi_device *a, uint32_t m, unsigned int *up,
			unsigned int *cabled)
{
	uint32_t p;

	*up = *cabled = 0;
	for (p = 0; p < a->nic.num_ports && p < GAUDISIM_INFO_NIC_MAX_PORTS; p++) {
		const struct gaudisim_info_nic_port *n = &a->nic.port[p];

		if (!(n->link & GAUDISIM_INFO_NIC_LINK_CABLED) ||
		    (n->link & GAUDISIM_INFO_NIC_LINK_SCALEOUT) || n->peer_module != m)
			continue;
		(*cabled)++;
		*up += !!(n->link & GAUDISIM_INFO_NIC_LINK_UP);
	}
}

static void scaleout_links(const struct smi_device *a, unsigned int *up, unsigned int *cabled)
{
	uint32_t p;

	*up = *cabled = 0;
	for (p = 0; p < a->nic.num_ports && p < GAUDISIM_INFO_NIC_MAX_PORTS; p++) {
		const struct gaudisim_info_nic_port *n = &a->nic.port[p];

		if (!(n->link & GAUDISIM_INFO_NIC_LINK_SCALEOUT) ||
		    !(n->link & GAUDISIM_INFO_NIC_LINK_CABLED))
			continue;
		(*cabled)++;
		*up += !!(n->link & GAUDISIM_INFO_NIC_LINK_UP);
	}
}

/*
 * "N" when every cabled link is up, "U/C" when some are cut, "-" for none;
 * padded to the column unless it ends the row.
 */
static void put_links(FILE *out, unsigned int up, unsigned int cabled, bool last)
{
	char cell[32];

	if (!cabled)
		snprintf(cell, sizeof(cell), "-");
	else if (up == cabled)
		snprintf(cell, sizeof(cell), "%u", up);
	else
		snprintf(cell, sizeof(cell), "%u/%u", up, cabled);
	fprintf(out, "%-*s", last ? 0 : TOPO_CELL, cell);
}

void smi_print_topo(FILE *out, const struct smi_report *r)
{
	unsigned int up, cabled;
	int i, j;

	fprintf(out, "%-*s", TOPO_CELL, "");
	for (j = 0; j < r->num_devices; j++) {
		char head[32];

		snprintf(head, sizeof(head), "AIP%d", r->devices[j].index);
		fprintf(out, "%-*s", TOPO_CELL, head);
	}
	fprintf(out, "%-*s%s\n", TOPO_CELL, "Module", "Scale-out");
	for (i = 0; i < r->num_devices; i++) {
		const struct smi_device *a = &r->devices[i];
		char head[32];

		snprintf(head, sizeof(head), "AIP%d", a->index);
		fprintf(out, "%-*s", TOPO_CELL, head);
		for (j = 0; j < r->num_devices; j++) {
			const struct smi_device *b = &r->devices[j];

			if (i == j) {
				fprintf(out, "%-*s", TOPO_CELL, "X");
			} else if (!(a->have & SMI_HAVE_NIC) || !(b->have & SMI_HAVE_NIC)) {
				fprintf(out, "%-*s", TOPO_CELL, "N/A");
			} else {
				count_links(a, b->nic.module_id, &up, &cabled);
				put_links(out, up, cabled, false);
			}
		}
		if (!(a->have & SMI_HAVE_NIC)) {
			fprintf(out, "%-*s%s\n", TOPO_CELL, "N/A", "N/A");
			continue;
		}
		fprintf(out, "%-*u", TOPO_CELL, a->nic.module_id);
		scaleout_links(a, &up, &cabled);
		put_links(out, up, cabled, true);
		fputc('\n', out);
	}
	fprintf(out, "\nLegend:\n"
		"  X    = self\n"
		"  N    = N NIC links, all up\n"
		"  U/C  = U of C cabled links up (the others cut)\n"
		"  -    = not connected\n");
}
