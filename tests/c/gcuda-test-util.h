/* gcuda-test-util.h: helpers shared by GCuda's C tests
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

#include <gcuda.h>

G_BEGIN_DECLS

/* For tests that need a CUDA device: returns TRUE when gcuda_device_get_count()
 * reports at least one device. Otherwise it marks the current test skipped
 * (with the driver's error message as the reason), or failed when the
 * environment has GCUDA_TEST_REQUIRE_GPU=1, and returns FALSE: the test
 * function must then return at once. */
gboolean      gcuda_test_require_gpu              (void);

/* For tests that need @n CUDA devices: gcuda_test_require_gpu(), then TRUE
 * when the host has at least @n. Otherwise the test is skipped ("needs N
 * GPUs, this host has M"), or failed when GCUDA_TEST_REQUIRE_GPUS is @n or
 * more, and FALSE is returned: the test function must then return at once. */
gboolean      gcuda_test_require_gpus             (int n);

/* TRUE when GCUDA_TEST_REQUIRE_GPU=1 */
gboolean      gcuda_test_gpu_required             (void);

/* For tests that compile with NVRTC: returns TRUE when NVRTC can be loaded.
 * Otherwise it marks the current test skipped (with GCuda's message, which
 * says how to provide NVRTC), or failed when GCUDA_TEST_REQUIRE_GPU=1, and
 * returns FALSE: the test function must then return at once. */
gboolean      gcuda_test_require_nvrtc            (void);

/* g_test_add_func() for a test that compiles: gcuda_test_require_nvrtc()
 * runs first (not again in the test's g_test_trap_subprocess() children). */
void          gcuda_test_add_nvrtc_func           (const char *testpath,
                                                   GTestFunc   test_func);

/* Device 0 (a new reference); only after gcuda_test_require_gpu() succeeded. */
GCudaDevice  *gcuda_test_get_device               (void);

/* Asserts that no CUDA context is current on the calling thread: GCuda must
 * leave the thread's context stack as it found it after every call. */
void          gcuda_test_assert_no_current_context (void);

/* Like g_assert_error() but also prints the error's message on mismatch and
 * checks that the message is not empty. */
#define gcuda_assert_error(err, dom, c) \
  G_STMT_START { \
    const GError *e_ = (err); \
    if (e_ == NULL || e_->domain != (dom) || e_->code != (int) (c)) \
      g_error ("%s:%d: expected error %s %d, got %s %d: %s", __FILE__, __LINE__, \
               g_quark_to_string (dom), (int) (c), \
               e_ ? g_quark_to_string (e_->domain) : "(no error)", e_ ? e_->code : -1, \
               e_ ? e_->message : ""); \
    g_assert_nonnull (e_->message); \
    g_assert_cmpstr (e_->message, !=, ""); \
  } G_STMT_END

/* Asserts @err is set, in @dom, and clears it. */
#define gcuda_assert_error_clear(errp, dom, c) \
  G_STMT_START { \
    gcuda_assert_error (*(errp), (dom), (c)); \
    g_clear_error (errp); \
  } G_STMT_END

G_END_DECLS
