/* gcuda-profiler.c: switching an attached profiler's collection on and off
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "gcuda-error-private.h"
#include "gcuda-context-private.h"

static gboolean
profiler_call (GCudaContext  *context,
               gboolean       start,
               GError       **error)
{
  g_autoptr(GCudaContext) ctx = NULL;

  g_return_val_if_fail (context == NULL || GCUDA_IS_CONTEXT (context), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  ctx = _gcuda_context_resolve (context, error);
  if (ctx == NULL)
    return FALSE;
  if (start)
    return GCUDA_CONTEXT_CALL (ctx, GCUDA_DRV->fn_cuProfilerStart (), "cuProfilerStart", error);
  return GCUDA_CONTEXT_CALL (ctx, GCUDA_DRV->fn_cuProfilerStop (), "cuProfilerStop", error);
}

/**
 * gcuda_profiler_start:
 * @context: (nullable): a [class@GCuda.Context], or %NULL for the default
 *   context
 * @error: return location for a [struct@GLib.Error]
 *
 * Starts the collection of an attached profiler (Nsight Systems, Nsight
 * Compute with `--profile-from-start off`) for @context
 * (`cuProfilerStart`, PyCUDA's `pycuda.driver.start_profiler`). Without a
 * profiler attached this does nothing and succeeds.
 *
 * Returns: %TRUE on success, %FALSE with @error set (a destroyed context,
 *   no driver)
 *
 * Since: 1.0
 */
gboolean
gcuda_profiler_start (GCudaContext  *context,
                      GError       **error)
{
  return profiler_call (context, TRUE, error);
}

/**
 * gcuda_profiler_stop:
 * @context: (nullable): a [class@GCuda.Context], or %NULL for the default
 *   context
 * @error: return location for a [struct@GLib.Error]
 *
 * Stops the collection of an attached profiler for @context
 * (`cuProfilerStop`, PyCUDA's `pycuda.driver.stop_profiler`), and flushes
 * the data collected so far. Without a profiler attached this does nothing
 * and succeeds.
 *
 * Returns: %TRUE on success, %FALSE with @error set
 *
 * Since: 1.0
 */
gboolean
gcuda_profiler_stop (GCudaContext  *context,
                     GError       **error)
{
  return profiler_call (context, FALSE, error);
}
