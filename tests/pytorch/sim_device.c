// SPDX-License-Identifier: MIT
/*
 * libhlrt for the bridge's host tests: the runtime with the in-process
 * device core as its one device (tests/runtime/sim_backend.c), installed
 * when the library loads. Built as a libhlrt.so.0 the tests put first on
 * the loader's path, so the bridge runs unchanged, without a VM.
 */
#include "sim_backend.h"

__attribute__((constructor)) static void sim_device_init(void)
{
	sim_install();
}
