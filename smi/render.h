/* SPDX-License-Identifier: MIT */
/* hl-smi's output formats, each printing a whole report. */
#ifndef SMI_RENDER_H
#define SMI_RENDER_H

#include <stdio.h>

#include "format.h"
#include "query.h"

/* Width of the default table. */
#define SMI_TABLE_WIDTH		79

void smi_print_table(FILE *out, const struct smi_report *report);
void smi_print_detail(FILE *out, const struct smi_report *report);
void smi_print_csv(FILE *out, const struct smi_report *report, const struct smi_query *q);
/* Every field (or the -Q ones when q has fields) of every device as JSON. */
void smi_print_json(FILE *out, const struct smi_report *report, const struct smi_query *q);
/* Prometheus text exposition (node_exporter textfile collector). */
void smi_print_prometheus(FILE *out, const struct smi_report *report);
/* "topo -c": the NIC link matrix between the reported devices (topo.c). */
void smi_print_topo(FILE *out, const struct smi_report *report);

#endif /* SMI_RENDER_H */
