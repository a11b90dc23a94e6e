/* gcuda-device.c: a CUDA device
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <string.h>

#include "gcuda-error-private.h"
#include "gcuda-context-private.h"
#include "gcuda-device-private.h"

/**
 * GCudaDevice:
 *
 * A CUDA device (PyCUDA's `Device`).
 *
 * ```c
 * static void
 * list_devices (void)
 * {
 *   g_autoptr(GError) error = NULL;
 *   int count = gcuda_device_get_count (&error);
 *
 *   if (error != NULL)
 *     g_printerr ("No CUDA device: %s\n", error->message);
 *   for (int i = 0; i < count; i++)
 *     {
 *       g_autoptr(GCudaDevice) device = gcuda_device_get (i, NULL);
 *       int major, minor;
 *
 *       gcuda_device_get_compute_capability (device, &major, &minor);
 *       g_print ("%d: %s, compute capability %d.%d, %" G_GUINT64_FORMAT " bytes\n",
 *                i, gcuda_device_get_name (device), major, minor,
 *                gcuda_device_get_total_memory (device));
 *     }
 * }
 * ```
 *
 * In Python, `GCuda.Device(i)` is the device object, PyCUDA's names work, and
 * every device attribute reads as a Python attribute:
 *
 * ```python
 * for i in range(GCuda.Device.count()):
 *     dev = GCuda.Device(i)
 *     print(dev.name(), dev.compute_capability(), dev.total_memory())
 *     print(dev.max_threads_per_block, dev.multiprocessor_count)
 * ```
 *
 * Devices are obtained with [func@GCuda.Device.get],
 * [func@GCuda.Device.get_by_pci_bus_id] or [func@GCuda.Device.list]; there is
 * exactly one object per device, so objects can be compared by identity. A
 * device is immutable: its properties are read once when it is first obtained,
 * and every method is thread-safe.
 *
 * Any attribute the driver knows can be read with
 * [method@GCuda.Device.get_attribute]; [method@GCuda.Device.get_attributes]
 * returns all of them by name.
 *
 * Since: 1.0
 */

struct _GCudaDevice
{
  GObject parent_instance;

  int ordinal;          /* -1 for an object not made by gcuda_device_get() */
  CUdevice handle;
  char *name;
  char *pci_bus_id;
  char *uuid;
  int cc_major;
  int cc_minor;
  guint64 total_memory;
  int multiprocessor_count;
  int max_threads_per_block;
  int warp_size;
  GCudaComputeMode compute_mode;
  guint max_block_dim[3];  /* x, y, z: what launches check against */
  guint max_grid_dim[3];

  GMutex primary_lock;  /* guards primary */
  GWeakRef primary;     /* the GCudaContext of the primary context, while one lives */
};

G_DEFINE_FINAL_TYPE (GCudaDevice, gcuda_device, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_ORDINAL,
  PROP_NAME,
  PROP_PCI_BUS_ID,
  PROP_UUID,
  PROP_COMPUTE_CAPABILITY_MAJOR,
  PROP_COMPUTE_CAPABILITY_MINOR,
  PROP_TOTAL_MEMORY,
  PROP_MULTIPROCESSOR_COUNT,
  PROP_MAX_THREADS_PER_BLOCK,
  PROP_WARP_SIZE,
  PROP_COMPUTE_MODE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* One object per ordinal, created on first use and kept for the life of the
 * process (devices do not come and go while a CUDA process runs). */
static GMutex devices_lock;
static GCudaDevice **devices;
static int n_devices = -1;

static void
gcuda_device_finalize (GObject *object)
{
  GCudaDevice *self = GCUDA_DEVICE (object);

  g_free (self->name);
  g_free (self->pci_bus_id);
  g_free (self->uuid);
  g_weak_ref_clear (&self->primary);
  g_mutex_clear (&self->primary_lock);

  G_OBJECT_CLASS (gcuda_device_parent_class)->finalize (object);
}

static void
gcuda_device_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  GCudaDevice *self = GCUDA_DEVICE (object);

  switch (prop_id)
    {
    case PROP_ORDINAL:
      g_value_set_int (value, self->ordinal);
      break;
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_PCI_BUS_ID:
      g_value_set_string (value, self->pci_bus_id);
      break;
    case PROP_UUID:
      g_value_set_string (value, self->uuid);
      break;
    case PROP_COMPUTE_CAPABILITY_MAJOR:
      g_value_set_int (value, self->cc_major);
      break;
    case PROP_COMPUTE_CAPABILITY_MINOR:
      g_value_set_int (value, self->cc_minor);
      break;
    case PROP_TOTAL_MEMORY:
      g_value_set_uint64 (value, self->total_memory);
      break;
    case PROP_MULTIPROCESSOR_COUNT:
      g_value_set_int (value, self->multiprocessor_count);
      break;
    case PROP_MAX_THREADS_PER_BLOCK:
      g_value_set_int (value, self->max_threads_per_block);
      break;
    case PROP_WARP_SIZE:
      g_value_set_int (value, self->warp_size);
      break;
    case PROP_COMPUTE_MODE:
      g_value_set_enum (value, self->compute_mode);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gcuda_device_class_init (GCudaDeviceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = gcuda_device_finalize;
  object_class->get_property = gcuda_device_get_property;

  /**
   * GCudaDevice:ordinal: (getter get_ordinal)
   *
   * The device's ordinal, from 0 to [func@GCuda.Device.get_count] - 1.
   *
   * Since: 1.0
   */
  properties[PROP_ORDINAL] = g_param_spec_int ("ordinal", NULL, NULL, -1, G_MAXINT, -1, ro);

  /**
   * GCudaDevice:name: (getter get_name)
   *
   * The device's product name, such as "NVIDIA H100 80GB HBM3".
   *
   * Since: 1.0
   */
  properties[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, ro);

  /**
   * GCudaDevice:pci-bus-id: (getter get_pci_bus_id)
   *
   * The PCI bus id, as `domain:bus:device.function` in hexadecimal
   * (`0000:41:00.0`).
   *
   * Since: 1.0
   */
  properties[PROP_PCI_BUS_ID] = g_param_spec_string ("pci-bus-id", NULL, NULL, NULL, ro);

  /**
   * GCudaDevice:uuid: (getter get_uuid)
   *
   * The device's UUID in the usual 8-4-4-4-12 hexadecimal form (as
   * `nvidia-smi -L` shows it, without the `GPU-` prefix).
   *
   * Since: 1.0
   */
  properties[PROP_UUID] = g_param_spec_string ("uuid", NULL, NULL, NULL, ro);

  /**
   * GCudaDevice:compute-capability-major:
   *
   * The major compute capability (9 on an H100).
   *
   * Since: 1.0
   */
  properties[PROP_COMPUTE_CAPABILITY_MAJOR] =
    g_param_spec_int ("compute-capability-major", NULL, NULL, 0, G_MAXINT, 0, ro);

  /**
   * GCudaDevice:compute-capability-minor:
   *
   * The minor compute capability (0 on an H100).
   *
   * Since: 1.0
   */
  properties[PROP_COMPUTE_CAPABILITY_MINOR] =
    g_param_spec_int ("compute-capability-minor", NULL, NULL, 0, G_MAXINT, 0, ro);

  /**
   * GCudaDevice:total-memory: (getter get_total_memory)
   *
   * The device's global memory, in bytes.
   *
   * Since: 1.0
   */
  properties[PROP_TOTAL_MEMORY] =
    g_param_spec_uint64 ("total-memory", NULL, NULL, 0, G_MAXUINT64, 0, ro);

  /**
   * GCudaDevice:multiprocessor-count: (getter get_multiprocessor_count)
   *
   * The number of streaming multiprocessors.
   *
   * Since: 1.0
   */
  properties[PROP_MULTIPROCESSOR_COUNT] =
    g_param_spec_int ("multiprocessor-count", NULL, NULL, 0, G_MAXINT, 0, ro);

  /**
   * GCudaDevice:max-threads-per-block: (getter get_max_threads_per_block)
   *
   * The largest number of threads in one block.
   *
   * Since: 1.0
   */
  properties[PROP_MAX_THREADS_PER_BLOCK] =
    g_param_spec_int ("max-threads-per-block", NULL, NULL, 0, G_MAXINT, 0, ro);

  /**
   * GCudaDevice:warp-size: (getter get_warp_size)
   *
   * The number of threads in a warp.
   *
   * Since: 1.0
   */
  properties[PROP_WARP_SIZE] = g_param_spec_int ("warp-size", NULL, NULL, 0, G_MAXINT, 0, ro);

  /**
   * GCudaDevice:compute-mode: (getter get_compute_mode)
   *
   * The compute mode the administrator set for the device.
   *
   * Since: 1.0
   */
  properties[PROP_COMPUTE_MODE] =
    g_param_spec_enum ("compute-mode", NULL, NULL, GCUDA_TYPE_COMPUTE_MODE,
                       GCUDA_COMPUTE_MODE_DEFAULT, ro);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gcuda_device_init (GCudaDevice *self)
{
  self->ordinal = -1;
  g_mutex_init (&self->primary_lock);
  g_weak_ref_init (&self->primary, NULL);
}

/* An object from g_object_new() has no device behind it: refuse politely. */
static gboolean
device_check (GCudaDevice  *self,
              GError      **error)
{
  if (G_LIKELY (self->ordinal >= 0))
    return TRUE;
  g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                       _("This GCuda.Device was not obtained from Device.get(): it has no device behind it"));
  return FALSE;
}

static gboolean
query_attribute (CUdevice   dev,
                 CUdevice_attribute attr,
                 int       *value,
                 GError   **error)
{
  return GCUDA_CHECK (GCUDA_DRV->fn_cuDeviceGetAttribute (value, attr, dev),
                      "cuDeviceGetAttribute", error);
}

GCudaDevice *
_gcuda_device_new (int       ordinal,
                   CUdevice  handle,
                   GError  **error)
{
  const GCudaDriver *drv = GCUDA_DRV;
  g_autoptr(GCudaDevice) self = g_object_new (GCUDA_TYPE_DEVICE, NULL);
  char buf[256] = { 0 };
  CUuuid uuid;
  size_t total = 0;
  int mode = 0;
  const guint8 *u;

  self->ordinal = ordinal;
  self->handle = handle;

  if (!GCUDA_CHECK (drv->fn_cuDeviceGetName (buf, sizeof buf - 1, handle), "cuDeviceGetName", error))
    return NULL;
  self->name = g_strdup (buf);

  memset (buf, 0, sizeof buf);
  if (!GCUDA_CHECK (drv->fn_cuDeviceGetPCIBusId (buf, sizeof buf - 1, handle), "cuDeviceGetPCIBusId", error))
    return NULL;
  self->pci_bus_id = g_ascii_strdown (buf, -1);

  if (!GCUDA_CHECK (drv->fn_cuDeviceGetUuid (&uuid, handle), "cuDeviceGetUuid", error))
    return NULL;
  u = (const guint8 *) uuid.bytes;
  self->uuid = g_strdup_printf ("%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                                u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7],
                                u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);

  if (!GCUDA_CHECK (drv->fn_cuDeviceTotalMem (&total, handle), "cuDeviceTotalMem", error))
    return NULL;
  self->total_memory = total;

  if (!query_attribute (handle, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &self->cc_major, error) ||
      !query_attribute (handle, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &self->cc_minor, error) ||
      !query_attribute (handle, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &self->multiprocessor_count, error) ||
      !query_attribute (handle, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &self->max_threads_per_block, error) ||
      !query_attribute (handle, CU_DEVICE_ATTRIBUTE_WARP_SIZE, &self->warp_size, error) ||
      !query_attribute (handle, CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, &mode, error))
    return NULL;
  self->compute_mode = (GCudaComputeMode) mode;
  for (guint i = 0; i < 3; i++)
    {
      int block = 0, grid = 0;

      if (!query_attribute (handle, (CUdevice_attribute) (CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X + i), &block, error) ||
          !query_attribute (handle, (CUdevice_attribute) (CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X + i), &grid, error))
        return NULL;
      self->max_block_dim[i] = (guint) MAX (block, 0);
      self->max_grid_dim[i] = (guint) MAX (grid, 0);
    }

  return g_steal_pointer (&self);
}

CUdevice
_gcuda_device_get_handle (GCudaDevice *self)
{
  return self->handle;
}

void
_gcuda_device_get_launch_limits (GCudaDevice *self,
                                 guint        max_block[3],
                                 guint        max_grid[3])
{
  memcpy (max_block, self->max_block_dim, sizeof self->max_block_dim);
  memcpy (max_grid, self->max_grid_dim, sizeof self->max_grid_dim);
}

/* Fills the device table once; returns the count or -1 with @error set. */
static int
ensure_devices (GError **error)
{
  int count = 0;

  if (_gcuda_driver_get (error) == NULL)
    return -1;

  g_mutex_lock (&devices_lock);
  if (n_devices < 0)
    {
      if (!GCUDA_CHECK (GCUDA_DRV->fn_cuDeviceGetCount (&count), "cuDeviceGetCount", error))
        {
          g_mutex_unlock (&devices_lock);
          return -1;
        }
      devices = g_new0 (GCudaDevice *, MAX (count, 1));
      n_devices = count;
    }
  count = n_devices;
  g_mutex_unlock (&devices_lock);

  return count;
}

/**
 * gcuda_device_get_count:
 * @error: return location for a [struct@GLib.Error]
 *
 * The number of CUDA devices (PyCUDA's `Device.count()`). Loads the driver.
 *
 * Returns: the number of devices, or -1 with @error set when the driver
 *   cannot be loaded
 *
 * Since: 1.0
 */
int
gcuda_device_get_count (GError **error)
{
  return ensure_devices (error);
}

/**
 * gcuda_device_get:
 * @ordinal: the device's ordinal, from 0 to [func@GCuda.Device.get_count] - 1
 * @error: return location for a [struct@GLib.Error]
 *
 * The device with the given ordinal (PyCUDA's `Device(ordinal)`). The same
 * object is returned every time for the same ordinal.
 *
 * An ordinal out of range is
 * [GCUDA_DRIVER_ERROR_INVALID_DEVICE][error@GCuda.DriverError].
 *
 * Returns: (transfer full): the device, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaDevice *
gcuda_device_get (int      ordinal,
                  GError **error)
{
  GCudaDevice *device;
  CUdevice handle;
  int count = ensure_devices (error);

  if (count < 0)
    return NULL;

  if (ordinal < 0 || ordinal >= count)
    {
      if (count == 0)
        g_set_error (error, GCUDA_DRIVER_ERROR, CUDA_ERROR_INVALID_DEVICE,
                     _("Device ordinal %d is out of range: there is no CUDA device"), ordinal);
      else
        g_set_error (error, GCUDA_DRIVER_ERROR, CUDA_ERROR_INVALID_DEVICE,
                     _("Device ordinal %d is out of range: valid ordinals are 0 to %d"),
                     ordinal, count - 1);
      return NULL;
    }

  g_mutex_lock (&devices_lock);
  if (devices[ordinal] == NULL)
    {
      if (GCUDA_CHECK (GCUDA_DRV->fn_cuDeviceGet (&handle, ordinal), "cuDeviceGet", error))
        devices[ordinal] = _gcuda_device_new (ordinal, handle, error);
    }
  device = devices[ordinal] ? g_object_ref (devices[ordinal]) : NULL;
  g_mutex_unlock (&devices_lock);

  return device;
}

static gboolean
is_valid_pci_bus_id (const char *id)
{
  /* [domain:]bus:device.function, each a hexadecimal number */
  g_auto(GStrv) parts = g_strsplit (id, ":", -1);
  guint n = g_strv_length (parts);
  const char *last;
  const char *dot;

  if (n < 2 || n > 3)
    return FALSE;
  for (guint i = 0; i + 1 < n; i++)
    {
      if (parts[i][0] == '\0' || strlen (parts[i]) > 8)
        return FALSE;
      for (const char *c = parts[i]; *c; c++)
        if (!g_ascii_isxdigit (*c))
          return FALSE;
    }
  last = parts[n - 1];
  dot = strchr (last, '.');
  if (dot == NULL || dot == last || dot[1] == '\0' || strlen (last) > 8)
    return FALSE;
  for (const char *c = last; *c; c++)
    if (c != dot && !g_ascii_isxdigit (*c))
      return FALSE;
  return TRUE;
}

/**
 * gcuda_device_get_by_pci_bus_id:
 * @pci_bus_id: a PCI bus id, `[domain]:bus:device.function` in hexadecimal
 * @error: return location for a [struct@GLib.Error]
 *
 * The device at the given PCI address. A malformed id is
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error]; a well-formed id with no
 * CUDA device behind it is the driver's error.
 *
 * Returns: (transfer full): the device, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaDevice *
gcuda_device_get_by_pci_bus_id (const char  *pci_bus_id,
                                GError     **error)
{
  CUdevice handle;
  int count;

  if (pci_bus_id == NULL || !is_valid_pci_bus_id (pci_bus_id))
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("“%s” is not a PCI bus id: expected [domain:]bus:device.function in hexadecimal, "
                     "such as 0000:41:00.0"),
                   pci_bus_id ? pci_bus_id : "(null)");
      return NULL;
    }

  count = ensure_devices (error);
  if (count < 0)
    return NULL;

  if (!GCUDA_CHECK (GCUDA_DRV->fn_cuDeviceGetByPCIBusId (&handle, pci_bus_id),
                    "cuDeviceGetByPCIBusId", error))
    return NULL;

  /* Map the handle back to its ordinal so the singleton is returned. */
  for (int i = 0; i < count; i++)
    {
      CUdevice h;

      if (GCUDA_DRV->fn_cuDeviceGet (&h, i) == CUDA_SUCCESS && h == handle)
        return gcuda_device_get (i, error);
    }

  g_set_error (error, GCUDA_DRIVER_ERROR, CUDA_ERROR_INVALID_DEVICE,
               _("No CUDA device at PCI bus id %s"), pci_bus_id);
  return NULL;
}

/**
 * gcuda_device_list:
 * @error: return location for a [struct@GLib.Error]
 *
 * Every CUDA device, in ordinal order.
 *
 * Returns: (transfer container) (element-type GCudaDevice): the devices (possibly
 *   none), or %NULL with @error set
 *
 * Since: 1.0
 */
GPtrArray *
gcuda_device_list (GError **error)
{
  g_autoptr(GPtrArray) list = NULL;
  int count = ensure_devices (error);

  if (count < 0)
    return NULL;

  list = g_ptr_array_new_full (count, g_object_unref);
  for (int i = 0; i < count; i++)
    {
      GCudaDevice *device = gcuda_device_get (i, error);

      if (device == NULL)
        return NULL;
      g_ptr_array_add (list, device);
    }
  return g_steal_pointer (&list);
}

/**
 * gcuda_device_get_ordinal: (get-property ordinal)
 * @self: a [class@GCuda.Device]
 *
 * Gets the device's ordinal, the number [func@GCuda.Device.get] takes.
 *
 * Returns: the device's ordinal
 *
 * Since: 1.0
 */
int
gcuda_device_get_ordinal (GCudaDevice *self)
{
  g_return_val_if_fail (GCUDA_IS_DEVICE (self), -1);
  return self->ordinal;
}

/**
 * gcuda_device_get_name: (get-property name)
 * @self: a [class@GCuda.Device]
 *
 * Gets the device's product name, such as "NVIDIA H100 80GB HBM3".
 *
 * Returns: (nullable): the product name (PyCUDA's `Device.name()`)
 *
 * Since: 1.0
 */
const char *
gcuda_device_get_name (GCudaDevice *self)
{
  g_return_val_if_fail (GCUDA_IS_DEVICE (self), NULL);
  return self->name;
}

/**
 * gcuda_device_get_pci_bus_id: (get-property pci-bus-id)
 * @self: a [class@GCuda.Device]
 *
 * Gets the device's PCI bus id, such as `0000:41:00.0`.
 *
 * Returns: (nullable): the PCI bus id (PyCUDA's `Device.pci_bus_id()`)
 *
 * Since: 1.0
 */
const char *
gcuda_device_get_pci_bus_id (GCudaDevice *self)
{
  g_return_val_if_fail (GCUDA_IS_DEVICE (self), NULL);
  return self->pci_bus_id;
}

/**
 * gcuda_device_get_uuid: (get-property uuid)
 * @self: a [class@GCuda.Device]
 *
 * Gets the device's UUID, as `nvidia-smi -L` shows it without the `GPU-`
 * prefix.
 *
 * Returns: (nullable): the UUID, see [property@GCuda.Device:uuid]
 *
 * Since: 1.0
 */
const char *
gcuda_device_get_uuid (GCudaDevice *self)
{
  g_return_val_if_fail (GCUDA_IS_DEVICE (self), NULL);
  return self->uuid;
}

/**
 * gcuda_device_get_compute_capability:
 * @self: a [class@GCuda.Device]
 * @major: (out) (optional): return location for the major version
 * @minor: (out) (optional): return location for the minor version
 *
 * The compute capability (PyCUDA's `Device.compute_capability()`).
 *
 * Since: 1.0
 */
void
gcuda_device_get_compute_capability (GCudaDevice *self,
                                     int         *major,
                                     int         *minor)
{
  g_return_if_fail (GCUDA_IS_DEVICE (self));
  if (major)
    *major = self->cc_major;
  if (minor)
    *minor = self->cc_minor;
}

/**
 * gcuda_device_get_total_memory: (get-property total-memory)
 * @self: a [class@GCuda.Device]
 *
 * Gets the size of the device's global memory.
 *
 * Returns: the global memory in bytes (PyCUDA's `Device.total_memory()`)
 *
 * Since: 1.0
 */
guint64
gcuda_device_get_total_memory (GCudaDevice *self)
{
  g_return_val_if_fail (GCUDA_IS_DEVICE (self), 0);
  return self->total_memory;
}

/**
 * gcuda_device_get_multiprocessor_count: (get-property multiprocessor-count)
 * @self: a [class@GCuda.Device]
 *
 * Gets the number of streaming multiprocessors.
 *
 * Returns: the number of multiprocessors
 *
 * Since: 1.0
 */
int
gcuda_device_get_multiprocessor_count (GCudaDevice *self)
{
  g_return_val_if_fail (GCUDA_IS_DEVICE (self), 0);
  return self->multiprocessor_count;
}

/**
 * gcuda_device_get_max_threads_per_block: (get-property max-threads-per-block)
 * @self: a [class@GCuda.Device]
 *
 * Gets the largest number of threads a block may have on this device.
 *
 * Returns: the largest number of threads in a block
 *
 * Since: 1.0
 */
int
gcuda_device_get_max_threads_per_block (GCudaDevice *self)
{
  g_return_val_if_fail (GCUDA_IS_DEVICE (self), 0);
  return self->max_threads_per_block;
}

/**
 * gcuda_device_get_warp_size: (get-property warp-size)
 * @self: a [class@GCuda.Device]
 *
 * Gets the number of threads in a warp.
 *
 * Returns: the warp size in threads
 *
 * Since: 1.0
 */
int
gcuda_device_get_warp_size (GCudaDevice *self)
{
  g_return_val_if_fail (GCUDA_IS_DEVICE (self), 0);
  return self->warp_size;
}

/**
 * gcuda_device_get_compute_mode: (get-property compute-mode)
 * @self: a [class@GCuda.Device]
 *
 * Gets the compute mode the administrator set for the device.
 *
 * Returns: the compute mode
 *
 * Since: 1.0
 */
GCudaComputeMode
gcuda_device_get_compute_mode (GCudaDevice *self)
{
  g_return_val_if_fail (GCUDA_IS_DEVICE (self), GCUDA_COMPUTE_MODE_DEFAULT);
  return self->compute_mode;
}

/**
 * gcuda_device_get_attribute:
 * @self: a [class@GCuda.Device]
 * @attribute: the attribute to read
 * @error: return location for a [struct@GLib.Error]
 *
 * Reads one device attribute (PyCUDA's `Device.get_attribute()`). A value that
 * is not a [enum@GCuda.DeviceAttribute] is
 * [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error]; an attribute this driver
 * does not know is the driver's
 * [GCUDA_DRIVER_ERROR_INVALID_VALUE][error@GCuda.DriverError].
 *
 * Returns: the value, or 0 with @error set
 *
 * Since: 1.0
 */
int
gcuda_device_get_attribute (GCudaDevice          *self,
                            GCudaDeviceAttribute  attribute,
                            GError              **error)
{
  static GEnumClass *attrs;
  static gsize attrs_once;
  int value = 0;

  g_return_val_if_fail (GCUDA_IS_DEVICE (self), 0);

  if (!device_check (self, error))
    return 0;

  if (g_once_init_enter (&attrs_once))
    {
      attrs = g_type_class_ref (GCUDA_TYPE_DEVICE_ATTRIBUTE);
      g_once_init_leave (&attrs_once, 1);
    }

  if (g_enum_get_value (attrs, attribute) == NULL)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("%d is not a device attribute (see GCuda.DeviceAttribute)"), (int) attribute);
      return 0;
    }

  if (!query_attribute (self->handle, (CUdevice_attribute) attribute, &value, error))
    return 0;
  return value;
}

/**
 * gcuda_device_get_attributes:
 * @self: a [class@GCuda.Device]
 * @error: return location for a [struct@GLib.Error]
 *
 * Every attribute the driver reports for this device, by name (PyCUDA's
 * `Device.get_attributes()`). Names are the lower-case attribute names, such
 * as `max_threads_per_block`; for deprecated aliases only the current name is
 * listed. Attributes the driver does not support are left out.
 *
 * Returns: (transfer full) (element-type utf8 gint): name → value
 *
 * Since: 1.0
 */
GHashTable *
gcuda_device_get_attributes (GCudaDevice  *self,
                             GError      **error)
{
  g_autoptr(GEnumClass) klass = NULL;
  g_autoptr(GHashTable) table = NULL;
  g_autoptr(GHashTable) seen = NULL;

  g_return_val_if_fail (GCUDA_IS_DEVICE (self), NULL);

  if (!device_check (self, error))
    return NULL;

  klass = g_type_class_ref (GCUDA_TYPE_DEVICE_ATTRIBUTE);
  table = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  seen = g_hash_table_new (NULL, NULL);

  for (guint i = 0; i < klass->n_values; i++)
    {
      const GEnumValue *v = &klass->values[i];
      int value = 0;
      char *name;

      /* The first name of each value is the current one: aliases follow it. */
      if (g_hash_table_contains (seen, GINT_TO_POINTER (v->value)))
        continue;
      g_hash_table_add (seen, GINT_TO_POINTER (v->value));

      if (GCUDA_DRV->fn_cuDeviceGetAttribute (&value, (CUdevice_attribute) v->value, self->handle) != CUDA_SUCCESS)
        continue;

      name = g_strdelimit (g_strdup (v->value_nick), "-", '_');
      g_hash_table_insert (table, name, GINT_TO_POINTER (value));
    }

  return g_steal_pointer (&table);
}

/**
 * gcuda_device_can_access_peer:
 * @self: a [class@GCuda.Device]
 * @peer: another [class@GCuda.Device]
 * @error: return location for a [struct@GLib.Error]
 *
 * Whether contexts on @self can access memory of @peer directly (PyCUDA's
 * `Device.can_access_peer()`). A device is never its own peer: asking about
 * @self itself is [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error].
 *
 * Returns: %TRUE if peer access is possible
 *
 * Since: 1.0
 */
gboolean
gcuda_device_can_access_peer (GCudaDevice  *self,
                              GCudaDevice  *peer,
                              GError      **error)
{
  int can = 0;

  g_return_val_if_fail (GCUDA_IS_DEVICE (self), FALSE);

  if (!GCUDA_IS_DEVICE (peer))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("The peer must be a GCuda.Device"));
      return FALSE;
    }
  if (!device_check (self, error) || !device_check (peer, error))
    return FALSE;
  if (peer == self)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Device %d cannot be its own peer"), self->ordinal);
      return FALSE;
    }

  if (!GCUDA_CHECK (GCUDA_DRV->fn_cuDeviceCanAccessPeer (&can, self->handle, peer->handle),
                    "cuDeviceCanAccessPeer", error))
    return FALSE;
  return can != 0;
}

/**
 * gcuda_device_get_peer_attribute:
 * @self: a [class@GCuda.Device]
 * @peer: another [class@GCuda.Device]
 * @attribute: what to ask about the link from @self to @peer
 * @error: return location for a [struct@GLib.Error]
 *
 * What the link from @self to @peer supports (`cuDeviceGetP2PAttribute`):
 * whether peer access can be enabled, whether atomics over the link are
 * native, whether kernels can read the peer's CUDA arrays (each 1 or 0), or
 * the link's performance rank (0 is the best).
 *
 * ```python
 * d0, d1 = GCuda.Device.get(0), GCuda.Device.get(1)
 * if d0.get_peer_attribute(d1, GCuda.PeerAttribute.ACCESS_SUPPORTED):
 *     print('rank', d0.get_peer_attribute(d1, GCuda.PeerAttribute.PERFORMANCE_RANK))
 * ```
 *
 * A device is not its own peer: asking about @self itself, or for an
 * unknown @attribute, is [GCUDA_ERROR_INVALID_ARGUMENT][error@GCuda.Error].
 *
 * Returns: the attribute's value, or -1 with @error set
 *
 * Since: 1.0
 */
int
gcuda_device_get_peer_attribute (GCudaDevice         *self,
                                 GCudaDevice         *peer,
                                 GCudaPeerAttribute   attribute,
                                 GError             **error)
{
  int value = 0;

  g_return_val_if_fail (GCUDA_IS_DEVICE (self), -1);

  if (!GCUDA_IS_DEVICE (peer))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("The peer must be a GCuda.Device"));
      return -1;
    }
  if (!device_check (self, error) || !device_check (peer, error))
    return -1;
  if (peer == self)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Device %d cannot be its own peer"), self->ordinal);
      return -1;
    }
  if (attribute < GCUDA_PEER_ATTRIBUTE_PERFORMANCE_RANK ||
      attribute > GCUDA_PEER_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Unknown peer attribute %d"), (int) attribute);
      return -1;
    }
  if (!GCUDA_CHECK (GCUDA_DRV->fn_cuDeviceGetP2PAttribute (&value, (CUdevice_P2PAttribute) attribute,
                                                           self->handle, peer->handle),
                    "cuDeviceGetP2PAttribute", error))
    return -1;
  return value;
}

/**
 * gcuda_device_get_primary_context:
 * @self: a [class@GCuda.Device]
 * @error: return location for a [struct@GLib.Error]
 *
 * The device's primary context: the one the CUDA runtime, PyTorch and CuPy
 * share (PyCUDA's `Device.retain_primary_context()`). It is retained while
 * the returned object lives and released when it goes; while it lives, every
 * call returns the same object.
 *
 * Returns: (transfer full): the primary context, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaContext *
gcuda_device_get_primary_context (GCudaDevice  *self,
                                  GError      **error)
{
  GCudaContext *context;

  g_return_val_if_fail (GCUDA_IS_DEVICE (self), NULL);

  if (!device_check (self, error))
    return NULL;

  g_mutex_lock (&self->primary_lock);
  context = g_weak_ref_get (&self->primary);
  if (context == NULL || gcuda_context_is_destroyed (context))
    {
      g_clear_object (&context);
      context = _gcuda_context_new_primary (self, error);
      if (context != NULL)
        g_weak_ref_set (&self->primary, context);
    }
  g_mutex_unlock (&self->primary_lock);

  return context;
}

static gboolean
check_context_flags (GCudaContextFlags   flags,
                     GError            **error)
{
  guint sched = flags & (GCUDA_CONTEXT_FLAGS_SCHED_SPIN |
                         GCUDA_CONTEXT_FLAGS_SCHED_YIELD |
                         GCUDA_CONTEXT_FLAGS_SCHED_BLOCKING_SYNC);

  if ((flags & ~(guint) CU_CTX_FLAGS_MASK) != 0)
    {
      g_set_error (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                   _("Unknown context flags 0x%x"), flags & ~(guint) CU_CTX_FLAGS_MASK);
      return FALSE;
    }
  if (sched & (sched - 1))
    {
      g_set_error_literal (error, GCUDA_ERROR, GCUDA_ERROR_INVALID_ARGUMENT,
                           _("At most one of SCHED_SPIN, SCHED_YIELD and SCHED_BLOCKING_SYNC may be given"));
      return FALSE;
    }
  return TRUE;
}

/**
 * gcuda_device_set_primary_context_flags:
 * @self: a [class@GCuda.Device]
 * @flags: the flags
 * @error: return location for a [struct@GLib.Error]
 *
 * Sets the flags the primary context is (or will be) created with.
 *
 * Returns: %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_device_set_primary_context_flags (GCudaDevice        *self,
                                        GCudaContextFlags   flags,
                                        GError            **error)
{
  g_return_val_if_fail (GCUDA_IS_DEVICE (self), FALSE);

  if (!device_check (self, error) || !check_context_flags (flags, error))
    return FALSE;

  return GCUDA_CHECK (GCUDA_DRV->fn_cuDevicePrimaryCtxSetFlags (self->handle, flags),
                      "cuDevicePrimaryCtxSetFlags", error);
}

/**
 * gcuda_device_get_primary_context_state:
 * @self: a [class@GCuda.Device]
 * @flags: (out) (optional): return location for the primary context's flags
 * @active: (out) (optional): return location for whether it is active
 * @error: return location for a [struct@GLib.Error]
 *
 * The state of the device's primary context, whoever retained it.
 *
 * Returns: (skip): %TRUE on success
 *
 * Since: 1.0
 */
gboolean
gcuda_device_get_primary_context_state (GCudaDevice        *self,
                                        GCudaContextFlags  *flags,
                                        gboolean           *active,
                                        GError            **error)
{
  unsigned int f = 0;
  int a = 0;

  g_return_val_if_fail (GCUDA_IS_DEVICE (self), FALSE);

  if (!device_check (self, error))
    return FALSE;

  if (!GCUDA_CHECK (GCUDA_DRV->fn_cuDevicePrimaryCtxGetState (self->handle, &f, &a),
                    "cuDevicePrimaryCtxGetState", error))
    return FALSE;
  if (flags)
    *flags = (GCudaContextFlags) f;
  if (active)
    *active = a != 0;
  return TRUE;
}

/**
 * gcuda_device_create_context:
 * @self: a [class@GCuda.Device]
 * @flags: creation flags
 * @error: return location for a [struct@GLib.Error]
 *
 * Creates a dedicated context on the device (PyCUDA's `Device.make_context()`,
 * without its side effect: the new context is not left current on the
 * calling thread, and none needs to be). It is destroyed when the last
 * reference goes, or by [method@GCuda.Context.destroy].
 *
 * Most programs want the primary context instead
 * ([method@GCuda.Device.get_primary_context]).
 *
 * Returns: (transfer full): the new context, or %NULL with @error set
 *
 * Since: 1.0
 */
GCudaContext *
gcuda_device_create_context (GCudaDevice        *self,
                             GCudaContextFlags   flags,
                             GError            **error)
{
  CUcontext handle = NULL;
  CUcontext popped = NULL;

  g_return_val_if_fail (GCUDA_IS_DEVICE (self), NULL);

  if (!device_check (self, error) || !check_context_flags (flags, error))
    return NULL;

  if (!GCUDA_CHECK (GCUDA_DRV->fn_cuCtxCreate (&handle, NULL, flags, self->handle), "cuCtxCreate", error))
    return NULL;
  /* cuCtxCreate pushes the new context: leave the caller's stack as it was. */
  GCUDA_DRV->fn_cuCtxPopCurrent (&popped);

  return _gcuda_context_new_owned (self, handle, flags);
}

/**
 * gcuda_device_equal:
 * @self: a [class@GCuda.Device]
 * @other: another [class@GCuda.Device]
 *
 * Whether two objects are the same device.
 *
 * Returns: %TRUE if they are
 *
 * Since: 1.0
 */
gboolean
gcuda_device_equal (GCudaDevice *self,
                    GCudaDevice *other)
{
  g_return_val_if_fail (GCUDA_IS_DEVICE (self), FALSE);
  g_return_val_if_fail (GCUDA_IS_DEVICE (other), FALSE);
  return self == other || (self->ordinal >= 0 && self->ordinal == other->ordinal);
}

/**
 * gcuda_device_hash:
 * @self: a [class@GCuda.Device]
 *
 * A hash consistent with [method@GCuda.Device.equal].
 *
 * Returns: the hash
 *
 * Since: 1.0
 */
guint
gcuda_device_hash (GCudaDevice *self)
{
  g_return_val_if_fail (GCUDA_IS_DEVICE (self), 0);
  return g_int_hash (&self->ordinal);
}

/**
 * gcuda_device_get_compute_capability_major: (get-property compute-capability-major)
 * @self: a [class@GCuda.Device]
 *
 * Gets [property@GCuda.Device:compute-capability-major].
 *
 * Returns: the major compute capability
 *
 * Since: 1.0
 */
int
gcuda_device_get_compute_capability_major (GCudaDevice *self)
{
  g_return_val_if_fail (GCUDA_IS_DEVICE (self), 0);
  return self->cc_major;
}

/**
 * gcuda_device_get_compute_capability_minor: (get-property compute-capability-minor)
 * @self: a [class@GCuda.Device]
 *
 * Gets [property@GCuda.Device:compute-capability-minor].
 *
 * Returns: the minor compute capability
 *
 * Since: 1.0
 */
int
gcuda_device_get_compute_capability_minor (GCudaDevice *self)
{
  g_return_val_if_fail (GCUDA_IS_DEVICE (self), 0);
  return self->cc_minor;
}
