/* gcuda-device-model.c: the CUDA devices as a GListModel
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include "gcuda-error-private.h"
#include "gcuda-device-model.h"

/**
 * GCudaDeviceModel:
 *
 * The CUDA devices of the machine as a [iface@Gio.ListModel] of
 * [class@GCuda.Device], ready for a `GtkDropDown` or a `GtkListView`. Item
 * `i` is the device of ordinal `i`, the same object as
 * [func@GCuda.Device.get] returns.
 *
 * [func@GCuda.DeviceModel.get_default] gives the list of the process. On a
 * machine without an NVIDIA driver or GPU (or inside a sandbox that has no
 * `libcuda.so.1`) the list is empty — not an error: the reason is the
 * [property@GCuda.DeviceModel:error] property, and its text is
 * [property@GCuda.DeviceModel:status-message], to show in place of the GPU
 * picker. The driver cannot add or remove devices while a process runs, so the
 * list never changes and never emits [signal@Gio.ListModel::items-changed].
 *
 * In GJS, a drop-down of the GPUs, or why there is none:
 *
 * ```js
 * const devices = GCuda.DeviceModel.get_default();
 * if (devices.get_n_items() > 0) {
 *     const dropDown = Gtk.DropDown.new(devices,
 *         Gtk.PropertyExpression.new(GCuda.Device, null, 'name'));
 *     dropDown.connect('notify::selected-item', () => render(dropDown.selected_item));
 *     headerBar.pack_start(dropDown);
 * } else {
 *     statusPage.description = devices.status_message;
 * }
 * ```
 *
 * In Python the list is a sequence:
 *
 * ```python
 * devices = GCuda.DeviceModel.get_default()
 * for device in devices:
 *     print(device.props.ordinal, device.props.name)
 * if len(devices) == 0:
 *     print('No GPU:', devices.props.status_message)
 * ```
 *
 * Usable from any thread.
 *
 * Since: 1.0
 */

struct _GCudaDeviceModel
{
  GObject parent_instance;

  GPtrArray *devices;  /* GCudaDevice, by ordinal; set once, in constructed() */
  GError *error;       /* why the list is empty or short, or NULL */
};

static void gcuda_device_model_model_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (GCudaDeviceModel, gcuda_device_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, gcuda_device_model_model_init))

enum {
  PROP_0,
  PROP_ITEM_TYPE,
  PROP_N_ITEMS,
  PROP_ERROR,
  PROP_STATUS_MESSAGE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static GType
gcuda_device_model_get_item_type (GListModel *model)
{
  return GCUDA_TYPE_DEVICE;
}

static guint
gcuda_device_model_get_n_items (GListModel *model)
{
  return GCUDA_DEVICE_MODEL (model)->devices->len;
}

static gpointer
gcuda_device_model_get_item (GListModel *model,
                            guint       position)
{
  GCudaDeviceModel *self = GCUDA_DEVICE_MODEL (model);

  if (position >= self->devices->len)
    return NULL;
  return g_object_ref (g_ptr_array_index (self->devices, position));
}

static void
gcuda_device_model_model_init (GListModelInterface *iface)
{
  iface->get_item_type = gcuda_device_model_get_item_type;
  iface->get_n_items = gcuda_device_model_get_n_items;
  iface->get_item = gcuda_device_model_get_item;
}

/* Asks the driver, once per list: here, not in class_init or init (the
 * introspection scanner runs those without a GPU). */
static void
gcuda_device_model_constructed (GObject *object)
{
  GCudaDeviceModel *self = GCUDA_DEVICE_MODEL (object);
  int count;

  G_OBJECT_CLASS (gcuda_device_model_parent_class)->constructed (object);

  count = gcuda_device_get_count (&self->error);
  if (count == 0 && self->error == NULL)
    g_set_error_literal (&self->error, GCUDA_DRIVER_ERROR, GCUDA_DRIVER_ERROR_NO_DEVICE,
                         _("The CUDA driver reports no device"));
  for (int i = 0; i < count; i++)
    {
      g_autoptr(GError) error = NULL;
      GCudaDevice *device = gcuda_device_get (i, &error);

      /* A device the driver lists but cannot describe is left out; the
       * first such error says why. */
      if (device != NULL)
        g_ptr_array_add (self->devices, device);
      else if (self->error == NULL)
        self->error = g_steal_pointer (&error);
    }
}

static void
gcuda_device_model_finalize (GObject *object)
{
  GCudaDeviceModel *self = GCUDA_DEVICE_MODEL (object);

  g_ptr_array_unref (self->devices);
  g_clear_error (&self->error);

  G_OBJECT_CLASS (gcuda_device_model_parent_class)->finalize (object);
}

static void
gcuda_device_model_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  GCudaDeviceModel *self = GCUDA_DEVICE_MODEL (object);

  switch (prop_id)
    {
    case PROP_ITEM_TYPE:
      g_value_set_gtype (value, GCUDA_TYPE_DEVICE);
      break;
    case PROP_N_ITEMS:
      g_value_set_uint (value, self->devices->len);
      break;
    case PROP_ERROR:
      g_value_set_boxed (value, self->error);
      break;
    case PROP_STATUS_MESSAGE:
      g_value_set_string (value, gcuda_device_model_get_status_message (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
gcuda_device_model_class_init (GCudaDeviceModelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = gcuda_device_model_constructed;
  object_class->finalize = gcuda_device_model_finalize;
  object_class->get_property = gcuda_device_model_get_property;

  /**
   * GCudaDeviceModel:item-type:
   *
   * The type of the items: [class@GCuda.Device].
   *
   * Since: 1.0
   */
  properties[PROP_ITEM_TYPE] =
    g_param_spec_gtype ("item-type", NULL, NULL, G_TYPE_OBJECT,
                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * GCudaDeviceModel:n-items:
   *
   * The number of devices in the list.
   *
   * Since: 1.0
   */
  properties[PROP_N_ITEMS] =
    g_param_spec_uint ("n-items", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * GCudaDeviceModel:error: (getter get_error)
   *
   * Why the list is empty: the driver could not be loaded
   * ([GCUDA_ERROR_DRIVER_NOT_FOUND][error@GCuda.Error]), found no device
   * ([GCUDA_DRIVER_ERROR_NO_DEVICE][error@GCuda.DriverError]) or failed
   * otherwise; or why a device the driver counts is missing from it. %NULL
   * when every device is listed.
   *
   * Since: 1.0
   */
  properties[PROP_ERROR] =
    g_param_spec_boxed ("error", NULL, NULL, G_TYPE_ERROR,
                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * GCudaDeviceModel:status-message: (getter get_status_message)
   *
   * The message of [property@GCuda.DeviceModel:error], readable by a user (an
   * `AdwStatusPage`'s description, say), or %NULL when every device is
   * listed.
   *
   * Since: 1.0
   */
  properties[PROP_STATUS_MESSAGE] =
    g_param_spec_string ("status-message", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gcuda_device_model_init (GCudaDeviceModel *self)
{
  self->devices = g_ptr_array_new_with_free_func (g_object_unref);
}

/**
 * gcuda_device_model_get_default:
 *
 * The list of the process's CUDA devices, made (and the driver loaded) on
 * the first call, from any thread; later calls return the same object. Never
 * %NULL: without a driver or GPU the list is empty, and
 * [method@GCuda.DeviceModel.get_error] says why.
 *
 * Returns: (transfer full): the device list
 *
 * Since: 1.0
 */
GCudaDeviceModel *
gcuda_device_model_get_default (void)
{
  static gsize default_list;

  if (g_once_init_enter (&default_list))
    g_once_init_leave (&default_list, (gsize) g_object_new (GCUDA_TYPE_DEVICE_MODEL, NULL));
  return g_object_ref ((GCudaDeviceModel *) default_list);
}

/**
 * gcuda_device_model_get_error: (get-property error)
 * @self: a [class@GCuda.DeviceModel]
 *
 * Why the list is empty (or a device is missing from it); see
 * [property@GCuda.DeviceModel:error].
 *
 * Returns: (transfer none) (nullable): the error, or %NULL when every device
 *   is listed
 *
 * Since: 1.0
 */
const GError *
gcuda_device_model_get_error (GCudaDeviceModel *self)
{
  g_return_val_if_fail (GCUDA_IS_DEVICE_MODEL (self), NULL);
  return self->error;
}

/**
 * gcuda_device_model_get_status_message: (get-property status-message)
 * @self: a [class@GCuda.DeviceModel]
 *
 * The message of [method@GCuda.DeviceModel.get_error], for a user.
 *
 * Returns: (nullable): the message, or %NULL when every device is listed
 *
 * Since: 1.0
 */
const char *
gcuda_device_model_get_status_message (GCudaDeviceModel *self)
{
  g_return_val_if_fail (GCUDA_IS_DEVICE_MODEL (self), NULL);
  return self->error != NULL ? self->error->message : NULL;
}
