/* device-info.c: list the CUDA devices with GCuda
 *
 * Build it against an installed GCuda with
 *
 *   cc device-info.c -o device-info $(pkg-config --cflags --libs gcuda-1)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include <stdio.h>
#include <stdlib.h>

#include <gcuda.h>

#define GIB (1024.0 * 1024.0 * 1024.0)

static gboolean
print_device_info (GError **error)
{
  g_autoptr(GPtrArray) devices = NULL;
  g_autoptr(GCudaContext) context = NULL;
  guint major, minor, revision;
  guint64 free_memory, total_memory;
  GError *local_error = NULL;
  int driver_version;

  gcuda_get_cuda_version (&major, &minor, &revision);
  driver_version = gcuda_get_driver_version (error);
  if (driver_version == 0)
    return FALSE;

  printf ("GCuda %u.%u.%u\n", gcuda_get_major_version (),
          gcuda_get_minor_version (), gcuda_get_micro_version ());
  printf ("CUDA version (headers): %u.%u.%u\n", major, minor, revision);
  printf ("Driver version: %d.%d (%d)\n",
          driver_version / 1000, (driver_version % 1000) / 10, driver_version);

  devices = gcuda_device_list (error);
  if (devices == NULL)
    return FALSE;

  for (guint i = 0; i < devices->len; i++)
    {
      GCudaDevice *device = g_ptr_array_index (devices, i);
      int cc_major, cc_minor;

      gcuda_device_get_compute_capability (device, &cc_major, &cc_minor);
      printf ("\nDevice %d: %s\n", gcuda_device_get_ordinal (device),
              gcuda_device_get_name (device));
      printf ("  Compute capability: %d.%d\n", cc_major, cc_minor);
      printf ("  Total memory:       %.2f GiB\n",
              gcuda_device_get_total_memory (device) / GIB);
      printf ("  Multiprocessors:    %d\n",
              gcuda_device_get_multiprocessor_count (device));
      printf ("  PCI bus id:         %s\n", gcuda_device_get_pci_bus_id (device));
      printf ("  UUID:               %s\n", gcuda_device_get_uuid (device));
    }

  /* The primary context of the device chosen by CUDA_DEVICE,
   * ~/.cuda_device or the first device that works. */
  context = gcuda_context_get_default (error);
  if (context == NULL)
    return FALSE;
  gcuda_context_get_memory_info (context, &free_memory, &total_memory, &local_error);
  if (local_error != NULL)
    {
      g_propagate_error (error, local_error);
      return FALSE;
    }

  printf ("\nDefault context: device %d, %.2f GiB free of %.2f GiB\n",
          gcuda_device_get_ordinal (gcuda_context_get_device (context)),
          free_memory / GIB, total_memory / GIB);
  return TRUE;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;

  if (!print_device_info (&error))
    {
      fprintf (stderr, "device-info: %s\n", error->message);
      return EXIT_FAILURE;
    }
  return EXIT_SUCCESS;
}
