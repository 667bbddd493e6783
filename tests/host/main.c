// SPDX-License-Identifier: MIT
/* host-user: the user-space host suites; prints "N passed, N failed". */
#include <stdlib.h>

#include "check_runner.h"
#include "suites.h"

static const check_suite_fn suites[] = {
	smi_format_suite, packets_suite, thunk_suite, tpc_asm_suite, uapi_layout_suite,
	trials_suite,
};

int main(void)
{
	return CHECK_RUN_SUITES(suites);
}
