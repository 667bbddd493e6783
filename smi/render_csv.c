// SPDX-License-Identifier: MIT
/* hl-smi's CSV output (-Q ... -f csv). */
#include "render.h"
#include "values.h"

void smi_print_csv(FILE *out, const struct smi_report *r, const struct smi_query *q)
{
	char value[256];
	int i, f;

	if (q->header) {
		for (f = 0; f < q->num_fields; f++) {
			const char *unit = smi_field_unit(q->fields[f]);

			fprintf(out, "%s%s", f ? ", " : "", smi_field_name(q->fields[f]));
			if (q->units && unit)
				fprintf(out, " [%s]", unit);
		}
		fputc('\n', out);
	}
	for (i = 0; i < r->num_devices; i++) {
		for (f = 0; f < q->num_fields; f++) {
			smi_field_value(r, &r->devices[i], q->fields[f], q->units, value,
					sizeof(value));
			fprintf(out, "%s%s", f ? ", " : "", value);
		}
		fputc('\n', out);
	}
}
