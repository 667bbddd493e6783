/* SPDX-License-Identifier: MIT */
/* Host-side Check suites for the user-space pieces (no device needed). */
#ifndef HOST_USER_SUITES_H
#define HOST_USER_SUITES_H

#include <check.h>

Suite *smi_format_suite(void);
Suite *packets_suite(void);
Suite *thunk_suite(void);
Suite *tpc_asm_suite(void);
Suite *uapi_layout_suite(void);
Suite *trials_suite(void);

#endif /* HOST_USER_SUITES_H */
