/* SPDX-License-Identifier: MIT */
/* hl-smi: reading a device's facts through its control node. */
#ifndef SMI_COLLECT_H
#define SMI_COLLECT_H

#include "format.h"

/*
 * Fill d for device <index>. Opens the control node, so it works while a
 * job holds the compute node. INFO ops that fail leave their "have" bit
 * clear. Returns 0, or -errno when the control node cannot be opened.
 */
int smi_collect_device(int index, struct smi_device *d);

#endif /* SMI_COLLECT_H */
