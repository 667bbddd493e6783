/* SPDX-License-Identifier: MIT */
/*
 * Which MME kernels this build runs: the unit tests are built twice, with
 * OpenBLAS and without it (the portable kernels QEMU uses when it is built
 * without OpenBLAS), and each build must really run its own path, or the
 * second build would test nothing new.
 */
#include <string.h>

#ifdef GSIM_HAVE_OPENBLAS
#include <cblas.h>
#endif

#include "gsim_test.h"
#include "gsim_mme.h"

START_TEST(test_mme_backend_matches_build)
{
	const char *backend = gsim_mme_backend();

#ifdef GSIM_HAVE_OPENBLAS
	ck_assert_msg(!strncmp(backend, "openblas", 8), "OpenBLAS build runs \"%s\"", backend);
#else
	ck_assert_msg(!strcmp(backend, "portable"), "portable build runs \"%s\"", backend);
#endif
}
END_TEST

/* The kernel set the device reports is the one OpenBLAS runs. */
START_TEST(test_mme_kernels_name_the_blas_core)
{
	const char *kernels = gsim_mme_kernels();

#ifdef GSIM_HAVE_OPENBLAS
	ck_assert_msg(!strncmp(kernels, "openblas-", 9), "OpenBLAS build names \"%s\"", kernels);
	ck_assert_str_eq(kernels + 9, openblas_get_corename());
#else
	ck_assert_str_eq(kernels, "portable");
#endif
}
END_TEST

Suite *mme_backend_suite(void)
{
	Suite *s = suite_create("mme_backend");
	TCase *tc = tcase_create("mme_backend");

	tcase_add_test(tc, test_mme_backend_matches_build);
	tcase_add_test(tc, test_mme_kernels_name_the_blas_core);
	suite_add_tcase(s, tc);
	return s;
}
