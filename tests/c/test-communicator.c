/* test-communicator.c: GCudaCommunicator without NCCL (CI has none): what
 * is checked before NCCL is needed, and the errors naming what was tried.
 * GCUDA_TEST_NCCL says what GCUDA_NCCL_LIBRARY points at: "missing" (no
 * such file) or "not-nccl" (a library without NCCL's functions). The
 * collectives on GPUs are tested from Python (test_communicator.py).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <string.h>

#include "gcuda-test-util.h"

static void
assert_not_found (GError *error)
{
  const char *library = g_getenv ("GCUDA_NCCL_LIBRARY");

  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_NCCL_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, library));
  if (g_strcmp0 (g_getenv ("GCUDA_TEST_NCCL"), "missing") == 0)
    g_assert_nonnull (strstr (error->message, "GCUDA_NCCL_LIBRARY"));
  else
    g_assert_nonnull (strstr (error->message, "is not a usable NCCL library"));
  g_assert_cmpint (gcuda_error_get_category (error), ==, GCUDA_ERROR_CATEGORY_RUNTIME);
}

static void
test_not_found (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) id = NULL;
  g_autoptr(GBytes) zeros = g_bytes_new_take (g_malloc0 (128), 128);
  g_autoptr(GCudaCommunicator) comm = NULL;

  g_assert_cmpint (gcuda_communicator_get_nccl_version (&error), ==, -1);
  assert_not_found (error);
  g_clear_error (&error);

  id = gcuda_communicator_get_unique_id (&error);
  g_assert_null (id);
  assert_not_found (error);
  g_clear_error (&error);

  g_assert_false (gcuda_communicator_group_start (&error));
  assert_not_found (error);
  g_clear_error (&error);
  g_assert_false (gcuda_communicator_group_end (&error));
  assert_not_found (error);
  g_clear_error (&error);

  /* arguments that are right: NCCL is needed, and missing */
  comm = gcuda_communicator_new (NULL, 1, zeros, 0, &error);
  g_assert_null (comm);
  assert_not_found (error);
}

static void
test_bad_arguments (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) zeros = g_bytes_new_take (g_malloc0 (128), 128);
  g_autoptr(GBytes) short_id = g_bytes_new_take (g_malloc0 (64), 64);

  /* refused before NCCL is looked for */
  g_assert_null (gcuda_communicator_new (NULL, 0, zeros, 0, &error));
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (gcuda_communicator_new (NULL, 2, zeros, 2, &error));
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "0 to 1"));
  g_clear_error (&error);
  g_assert_null (gcuda_communicator_new (NULL, 2, zeros, -1, &error));
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (gcuda_communicator_new (NULL, 1, short_id, 0, &error));
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "128"));
  g_clear_error (&error);
  g_assert_null (gcuda_communicator_new (NULL, 1, NULL, 0, &error));
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
}

static void
test_made_by_hand (void)
{
  g_autoptr(GCudaCommunicator) comm = g_object_new (GCUDA_TYPE_COMMUNICATOR, NULL);
  g_autoptr(GCudaBuffer) buf = g_object_new (GCUDA_TYPE_BUFFER, NULL);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (gcuda_communicator_get_rank (comm), ==, -1);
  g_assert_cmpint (gcuda_communicator_get_n_ranks (comm), ==, 0);
  g_assert_null (gcuda_communicator_get_context (comm));
  g_assert_false (gcuda_communicator_all_reduce (comm, buf, buf, 1, GCUDA_NCCL_DATA_TYPE_FLOAT32,
                                                 GCUDA_REDUCE_OP_SUM, NULL, &error));
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (gcuda_communicator_send (comm, buf, 1, GCUDA_NCCL_DATA_TYPE_UINT8, 0, NULL, &error));
  gcuda_assert_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/communicator/not-found", test_not_found);
  g_test_add_func ("/communicator/bad-arguments", test_bad_arguments);
  g_test_add_func ("/communicator/made-by-hand", test_made_by_hand);

  return g_test_run ();
}
