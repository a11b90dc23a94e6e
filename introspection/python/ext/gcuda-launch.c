/* gcuda-launch.c: the Python override's launch call, without PyGObject
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A prepared Python launch packs its parameters with struct and makes one
 * call into gcuda_function_launch_packed(). Through PyGObject or ctypes
 * that call costs microseconds (argument marshalling, GError boxing); here
 * it is a vectorcall taking ints. It is private to the override
 * (gcuda/_override/launch.py and pools.py), which passes the C pointers of objects it keeps
 * alive and repeats a failed launch through PyGObject to raise the
 * GCuda exception: this module only says whether the launch was queued.
 *
 * It also has the export the override makes before it maps memory
 * (export_memory: one C call instead of a PyGObject invoke and the
 * wrapper's instance dictionary), and the pools' calls, since a PyGObject
 * invoke and a wrapper cost more than a pooled allocation itself: the
 * PooledBlock and
 * PinnedBlock types behind Python's PooledDeviceAllocation and
 * PooledHostAllocation, made by (host_)pool_allocate_block and
 * pool_block, and, built with PyGObject's C API (pygobject.h),
 * allocate calls returning GCuda.Buffer and GCuda.HostBuffer wrappers.
 * They return None (or False) when anything failed or looks unusual, and
 * the override repeats the call through PyGObject for the exception.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include <gcuda.h>

#ifdef GCUDA_LAUNCH_HAVE_PYGOBJECT
/* A system include (see meson.build): its inline helpers use API that newer
 * Pythons deprecate. */
# include <pygobject.h>
#endif

static int
as_uint (PyObject *obj,
         guint    *out)
{
  unsigned long v = PyLong_AsUnsignedLong (obj);

  if (v == (unsigned long) -1 && PyErr_Occurred ())
    return 0;
  if (v > G_MAXUINT)
    {
      PyErr_SetString (PyExc_OverflowError, "launch dimension out of range");
      return 0;
    }
  *out = (guint) v;
  return 1;
}

static void *
as_pointer (PyObject *obj)
{
  return obj == Py_None ? NULL : PyLong_AsVoidPtr (obj);
}

/* launch_packed(function, gx, gy, gz, bx, by, bz, shared, stream, params, ...)
 * -> bool: function and stream are GObject pointers (ints; stream may be
 * None), params a bytes object. Arguments after params are ignored (the
 * ctypes path passes its size and error location there). */
static PyObject *
launch_packed (PyObject         *module,
               PyObject *const  *args,
               Py_ssize_t        nargs)
{
  guint dims[7];
  void *function, *stream;
  char *params;
  Py_ssize_t size;
  gboolean ok;

  if (nargs < 10)
    {
      PyErr_SetString (PyExc_TypeError, "launch_packed takes at least 10 arguments");
      return NULL;
    }
  for (int i = 0; i < 7; i++)
    if (!as_uint (args[1 + i], &dims[i]))
      return NULL;
  function = as_pointer (args[0]);
  stream = as_pointer (args[8]);
  if (PyErr_Occurred () || function == NULL)
    {
      if (!PyErr_Occurred ())
        PyErr_SetString (PyExc_TypeError, "no function");
      return NULL;
    }
  if (PyBytes_AsStringAndSize (args[9], &params, &size) < 0)
    return NULL;

  /* The GPU work is queued, not waited for: no reason to release the GIL
   * for the fraction of a microsecond the driver takes. */
  ok = gcuda_function_launch_packed (function, dims[0], dims[1], dims[2], dims[3], dims[4], dims[5],
                                     dims[6], stream, (const guint8 *) params, (gsize) size, NULL);
  return PyBool_FromLong (ok);
}

/* A grid or block: a tuple or list of 1 to 3 ints (anything else is left to
 * the override's checked path). */
static int
dims3 (PyObject *seq,
       guint     out[3])
{
  Py_ssize_t n;

  if (!PyTuple_Check (seq) && !PyList_Check (seq))
    {
      PyErr_SetString (PyExc_TypeError, "dimensions must be a tuple or list");
      return 0;
    }
  n = PySequence_Fast_GET_SIZE (seq);
  if (n < 1 || n > 3)
    {
      PyErr_SetString (PyExc_ValueError, "1 to 3 dimensions");
      return 0;
    }
  out[1] = out[2] = 1;
  for (Py_ssize_t i = 0; i < n; i++)
    {
      PyObject *item = PySequence_Fast_GET_ITEM (seq, i);

      if (!PyLong_CheckExact (item))
        {
          PyErr_SetString (PyExc_TypeError, "dimensions must be ints");
          return 0;
        }
      if (!as_uint (item, &out[i]))
        return 0;
    }
  return 1;
}

/* launch(function, grid, block, shared, stream, params) -> bool: what a
 * prepared call needs, with grid and block as given by the caller. */
static PyObject *
launch (PyObject         *module,
        PyObject *const  *args,
        Py_ssize_t        nargs)
{
  guint grid[3], block[3], shared;
  void *function, *stream;
  char *params;
  Py_ssize_t size;
  gboolean ok;

  if (nargs != 6)
    {
      PyErr_SetString (PyExc_TypeError, "launch takes 6 arguments");
      return NULL;
    }
  if (!dims3 (args[1], grid) || !dims3 (args[2], block) || !as_uint (args[3], &shared))
    return NULL;
  function = as_pointer (args[0]);
  stream = as_pointer (args[4]);
  if (PyErr_Occurred () || function == NULL)
    {
      if (!PyErr_Occurred ())
        PyErr_SetString (PyExc_TypeError, "no function");
      return NULL;
    }
  if (PyBytes_AsStringAndSize (args[5], &params, &size) < 0)
    return NULL;
  ok = gcuda_function_launch_packed (function, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                     shared, stream, (const guint8 *) params, (gsize) size, NULL);
  return PyBool_FromLong (ok);
}

/* The pool pointer of a pool call (the caller keeps the pool alive), or
 * NULL with TypeError set. */
static void *
as_pool (const char *name,
         PyObject   *arg)
{
  void *pool = as_pointer (arg);

  if (pool == NULL && !PyErr_Occurred ())
    PyErr_Format (PyExc_TypeError, "%s: no pool", name);
  return pool;
}

/* The pool pointer and size of an allocation: 1; -1 with an exception for
 * a bad pointer; 0 (no exception) when the size is anything but an exact
 * int in guint64 range, which the override's checked path then raises
 * about as PyGObject does. */
static int
pool_args (const char  *name,
           PyObject    *pool_arg,
           PyObject    *size_arg,
           void       **pool,
           guint64     *size)
{
  unsigned long long v;

  *pool = as_pool (name, pool_arg);
  if (*pool == NULL)
    return -1;
  if (!PyLong_CheckExact (size_arg))
    return 0;
  v = PyLong_AsUnsignedLongLong (size_arg);
  if (v == (unsigned long long) -1 && PyErr_Occurred ())
    {
      PyErr_Clear ();
      return 0;
    }
  *size = (guint64) v;
  return 1;
}

/* What a pool call returns for pool_args()' result @ok unless it is 1:
 * NULL (the exception) or None. */
static PyObject *
pool_args_failed (int ok)
{
  if (ok < 0)
    return NULL;
  Py_RETURN_NONE;
}

static int
check_nargs (const char  *usage,
             Py_ssize_t   nargs,
             Py_ssize_t   wanted)
{
  if (nargs == wanted)
    return 1;
  PyErr_Format (PyExc_TypeError, "takes %zd arguments: %s", wanted, usage);
  return 0;
}

/* pool_free_address(pool, address) -> bool: gives a block back; False
 * (nothing changed) if the pool did not hand it out by address. */
static PyObject *
pool_free_address (PyObject         *module,
                   PyObject *const  *args,
                   Py_ssize_t        nargs)
{
  unsigned long long address;
  void *pool;

  if (!check_nargs ("pool_free_address(pool, address)", nargs, 2) ||
      (pool = as_pool ("pool_free_address", args[0])) == NULL)
    return NULL;
  address = PyLong_AsUnsignedLongLong (args[1]);
  if (address == (unsigned long long) -1 && PyErr_Occurred ())
    return NULL;
  /* Giving back never calls the driver unless the pool stopped holding. */
  return PyBool_FromLong (gcuda_memory_pool_free_address (pool, address, NULL));
}

/* PooledBlock and PinnedBlock: the C bases of Python's
 * PooledDeviceAllocation and PooledHostAllocation, blocks of a
 * GCudaMemoryPool or GCudaHostMemoryPool handed out by address. Made here
 * and given back by their dealloc without a Python call: in Python,
 * creating the object and running a __del__ cost more than the pool
 * itself. A PinnedBlock exports its memory (the buffer protocol) for the
 * numpy array over it; numpy lets go of the export at once and keeps the
 * block instead, so once exported the block is given back when it goes
 * (after every array over it), free() only marking it freed. The
 * subclasses in gcuda/_override/pools.py have the methods. */
typedef struct {
  PyObject_HEAD
  PyObject *pool;      /* the DeviceMemoryPool, kept alive */
  PyObject *buffer;    /* the GCuda.Buffer the block was given to, or NULL */
  void *pool_ptr;      /* its GCudaMemoryPool or GCudaHostMemoryPool: a
                        * reference of our own, as Python may tear @pool
                        * down first (a cycle, or the interpreter's exit) */
  unsigned long long address;
  unsigned long long size;
  char live;           /* the block is ours: give it back at the end */
  char host;           /* a PinnedBlock */
  char exported;       /* its memory was exported: arrays may be over it */
  char freed;          /* free() was called while it was exported */
} PooledBlock;

static void
pooled_block_dealloc (PooledBlock *self)
{
  if (self->live && self->host)
    gcuda_host_memory_pool_free_address (self->pool_ptr, self->address, NULL);
  else if (self->live)
    gcuda_memory_pool_free_address (self->pool_ptr, self->address, NULL);
  g_clear_object (&self->pool_ptr);
  Py_CLEAR (self->pool);
  Py_CLEAR (self->buffer);
  Py_TYPE (self)->tp_free ((PyObject *) self);
}

static PyMemberDef pooled_block_members[] = {
  { "pool", T_OBJECT, offsetof (PooledBlock, pool), READONLY, "the DeviceMemoryPool" },
  { "size", T_ULONGLONG, offsetof (PooledBlock, size), READONLY, "the size asked for, in bytes" },
  { "_address", T_ULONGLONG, offsetof (PooledBlock, address), READONLY, NULL },
  { "_live", T_BOOL, offsetof (PooledBlock, live), 0, NULL },
  { "_buffer", T_OBJECT, offsetof (PooledBlock, buffer), 0, NULL },
  { "_exported", T_BOOL, offsetof (PooledBlock, exported), 0, NULL },
  { "_freed", T_BOOL, offsetof (PooledBlock, freed), 0, NULL },
  { NULL, 0, 0, 0, NULL },
};

static PyTypeObject pooled_block_type = {
  PyVarObject_HEAD_INIT (NULL, 0)
  .tp_name = "_gcuda_launch.PooledBlock",
  .tp_basicsize = sizeof (PooledBlock),
  .tp_dealloc = (destructor) pooled_block_dealloc,
  .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
  .tp_doc = "A block of a GCuda.MemoryPool by address (private base of PooledDeviceAllocation).",
  .tp_members = pooled_block_members,
};

/* The memory, writable, as bytes; valid while the block is ours (the
 * array over it keeps the block alive) or its host buffer's (which the
 * block keeps). */
static int
pinned_block_getbuffer (PooledBlock *self,
                        Py_buffer   *view,
                        int          flags)
{
  int freed = (!self->live && self->buffer == NULL) || self->freed;

  if (!freed && self->buffer != NULL)
    {
      /* adopted: the GCuda.HostBuffer's state (rare, so through Python) */
      PyObject *answer = PyObject_CallMethod (self->buffer, "is_freed", NULL);

      if (answer == NULL || (freed = PyObject_IsTrue (answer)) < 0)
        {
          Py_XDECREF (answer);
          return -1;
        }
      Py_DECREF (answer);
    }
  if (freed)
    {
      PyErr_SetString (PyExc_BufferError, "the pooled host allocation was freed");
      return -1;
    }
  if (PyBuffer_FillInfo (view, (PyObject *) self, (void *) (guintptr) self->address, (Py_ssize_t) self->size,
                         0, flags) < 0)
    return -1;
  self->exported = 1;
  return 0;
}

static PyBufferProcs pinned_block_buffer = {
  .bf_getbuffer = (getbufferproc) pinned_block_getbuffer,
};

static PyTypeObject pinned_block_type = {
  PyVarObject_HEAD_INIT (NULL, 0)
  .tp_name = "_gcuda_launch.PinnedBlock",
  .tp_basicsize = sizeof (PooledBlock),
  .tp_dealloc = (destructor) pooled_block_dealloc,
  .tp_as_buffer = &pinned_block_buffer,
  .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
  .tp_doc = "A block of a GCuda.HostMemoryPool by address (private base of PooledHostAllocation).",
  .tp_members = pooled_block_members,
};

/* Whether @cls is a PinnedBlock (1) or PooledBlock (0) subclass; -1 with
 * TypeError if neither. */
static int
block_kind (PyObject   *cls,
            const char *name)
{
  if (PyType_Check (cls))
    {
      if (PyType_IsSubtype ((PyTypeObject *) cls, &pinned_block_type))
        return 1;
      if (PyType_IsSubtype ((PyTypeObject *) cls, &pooled_block_type))
        return 0;
    }
  PyErr_Format (PyExc_TypeError, "%s: cls must derive from PooledBlock or PinnedBlock", name);
  return -1;
}

/* A new @cls owning the block at @address of @pool_ptr (a pool of the
 * block's kind), keeping @pool (its Python side) alive. */
static PyObject *
block_new (PyObject           *cls,
           PyObject           *pool,
           void               *pool_ptr,
           unsigned long long  address,
           unsigned long long  size,
           int                 host)
{
  PooledBlock *self = (PooledBlock *) ((PyTypeObject *) cls)->tp_alloc ((PyTypeObject *) cls, 0);

  if (self == NULL)
    return NULL;
  Py_INCREF (pool);
  self->pool = pool;
  self->pool_ptr = g_object_ref (pool_ptr);
  self->address = address;
  self->size = size;
  self->live = 1;
  self->host = (char) host;
  return (PyObject *) self;
}

/* pool_block(cls, pool, pool_pointer, address, size) -> cls instance: an
 * allocation of @cls (a subclass of PooledBlock or PinnedBlock) owning the
 * block at @address, which the pool handed out by address. */
static PyObject *
pool_block (PyObject         *module,
            PyObject *const  *args,
            Py_ssize_t        nargs)
{
  unsigned long long address, size;
  void *pool_ptr;
  int host;

  if (!check_nargs ("pool_block(cls, pool, pool_pointer, address, size)", nargs, 5) ||
      (host = block_kind (args[0], "pool_block")) < 0 ||
      (pool_ptr = as_pool ("pool_block", args[2])) == NULL)
    return NULL;
  if (host ? !GCUDA_IS_HOST_MEMORY_POOL (pool_ptr) : !GCUDA_IS_MEMORY_POOL (pool_ptr))
    {
      PyErr_SetString (PyExc_TypeError, "pool_block: the pointer is not a pool of the block's kind");
      return NULL;
    }
  address = PyLong_AsUnsignedLongLong (args[3]);
  if (address == (unsigned long long) -1 && PyErr_Occurred ())
    return NULL;
  size = PyLong_AsUnsignedLongLong (args[4]);
  if (size == (unsigned long long) -1 && PyErr_Occurred ())
    return NULL;
  return block_new (args[0], args[1], pool_ptr, address, size, host);
}

/* (host_)pool_allocate_block(cls, pool, pool_pointer, size) -> cls
 * instance or None: a block by address of a GCudaMemoryPool (@host FALSE)
 * or GCudaHostMemoryPool in a new @cls; None when the size is no exact int
 * in guint64 range or the allocation failed (the caller repeats it
 * through PyGObject for the exception). */
static PyObject *
allocate_block (const char       *name,
                PyObject *const  *args,
                Py_ssize_t        nargs,
                int               host)
{
  guint64 size = 0, address = 0;
  PyObject *block;
  void *pool_ptr;
  int parsed, kind;

  if (!check_nargs (name, nargs, 4) || (kind = block_kind (args[0], name)) < 0)
    return NULL;
  if (kind != host)
    {
      PyErr_Format (PyExc_TypeError, "%s: cls is of the other kind of block", name);
      return NULL;
    }
  parsed = pool_args (name, args[2], args[3], &pool_ptr, &size);
  if (parsed != 1)
    return pool_args_failed (parsed);
  if (host)
    {
      /* A new block is a cuMemHostAlloc, which can take milliseconds:
       * other threads run meanwhile. */
      Py_BEGIN_ALLOW_THREADS
      address = gcuda_host_memory_pool_allocate_address (pool_ptr, size, NULL);
      Py_END_ALLOW_THREADS
    }
  else
    {
      /* With the GIL, as CuPy's and PyCUDA's pools: a held block takes a
       * tenth of a microsecond, less than releasing and taking the GIL. */
      address = gcuda_memory_pool_allocate_address (pool_ptr, size, NULL);
    }
  if (address == 0)
    Py_RETURN_NONE;
  block = block_new (args[0], args[1], pool_ptr, address, size, host);
  if (block == NULL)  /* not to lose the block */
    {
      if (host)
        gcuda_host_memory_pool_free_address (pool_ptr, address, NULL);
      else
        gcuda_memory_pool_free_address (pool_ptr, address, NULL);
    }
  return block;
}

static PyObject *
pool_allocate_block (PyObject         *module,
                     PyObject *const  *args,
                     Py_ssize_t        nargs)
{
  return allocate_block ("pool_allocate_block(cls, pool, pool_pointer, size)", args, nargs, 0);
}

static PyObject *
host_pool_allocate_block (PyObject         *module,
                          PyObject *const  *args,
                          Py_ssize_t        nargs)
{
  return allocate_block ("host_pool_allocate_block(cls, pool, pool_pointer, size)", args, nargs, 1);
}

#ifdef GCUDA_LAUNCH_HAVE_PYGOBJECT

/* The wrapper of a new object (transfer full): it takes its own reference,
 * ours goes. */
static PyObject *
wrap_full (gpointer object)
{
  PyObject *wrapper = pygobject_new (G_OBJECT (object));

  g_object_unref (object);
  return wrapper;
}

static PyObject *
pool_allocate (PyObject         *module,
               PyObject *const  *args,
               Py_ssize_t        nargs)
{
  void *pool;
  guint64 size = 0;
  GCudaBuffer *buffer;
  int ok;

  if (!check_nargs ("pool_allocate(pool, size)", nargs, 2))
    return NULL;
  ok = pool_args ("pool_allocate", args[0], args[1], &pool, &size);
  if (ok != 1)
    return pool_args_failed (ok);
  /* As PyGObject does: a new block is a cuMemAlloc, and other threads may
   * run meanwhile. */
  Py_BEGIN_ALLOW_THREADS
  buffer = gcuda_memory_pool_allocate (pool, size, NULL);
  Py_END_ALLOW_THREADS
  if (buffer == NULL)
    Py_RETURN_NONE;
  return wrap_full (buffer);
}

/* host_pool_allocate(pool, size) -> GCuda.HostBuffer or None: pool is a
 * GCudaHostMemoryPool pointer the caller keeps alive. */
static PyObject *
host_pool_allocate (PyObject         *module,
                    PyObject *const  *args,
                    Py_ssize_t        nargs)
{
  void *pool;
  guint64 size = 0;
  GCudaHostBuffer *buffer;
  int ok;

  if (!check_nargs ("host_pool_allocate(pool, size)", nargs, 2))
    return NULL;
  ok = pool_args ("host_pool_allocate", args[0], args[1], &pool, &size);
  if (ok != 1)
    return pool_args_failed (ok);
  Py_BEGIN_ALLOW_THREADS
  buffer = gcuda_host_memory_pool_allocate (pool, size, NULL);
  Py_END_ALLOW_THREADS
  if (buffer == NULL)
    Py_RETURN_NONE;
  return wrap_full (buffer);
}

/* export_memory(obj) -> True or None: the override's export of the memory
 * of @obj, a GCuda.HostBuffer or GCuda.Buffer (views.py's _export()): made
 * once per object and never ended, the object's last reference ends it
 * (arrays and memoryviews over the memory keep the object). Later calls
 * check that the memory may still be mapped (not freed, its context not
 * destroyed) with an export begun and ended at once. None for anything
 * else, or when the memory may not be mapped: the caller repeats the export
 * through PyGObject for the exception. With the GIL: nothing here blocks. */
static PyObject *
export_memory (PyObject *module,
               PyObject *obj)
{
  static GQuark exported;
  GObject *object;
  gboolean ok;

  if (G_UNLIKELY (exported == 0))
    exported = g_quark_from_static_string ("gcuda-python-export");
  if (!pygobject_check (obj, &PyGObject_Type) || (object = pygobject_get (obj)) == NULL)
    Py_RETURN_NONE;
  if (GCUDA_IS_HOST_BUFFER (object))
    {
      GCudaHostBuffer *host = GCUDA_HOST_BUFFER (object);

      ok = gcuda_host_buffer_export_begin (host, NULL) &&
           (g_object_get_qdata (object, exported) == NULL || gcuda_host_buffer_export_end (host, NULL));
    }
  else if (GCUDA_IS_BUFFER (object))
    {
      GCudaBuffer *buffer = GCUDA_BUFFER (object);

      ok = gcuda_buffer_export_begin (buffer, NULL) &&
           (g_object_get_qdata (object, exported) == NULL || gcuda_buffer_export_end (buffer, NULL));
    }
  else
    Py_RETURN_NONE;
  if (!ok)
    Py_RETURN_NONE;
  g_object_set_qdata (object, exported, GINT_TO_POINTER (TRUE));
  Py_RETURN_TRUE;
}

static PyMethodDef pool_methods[] = {
  { "export_memory", (PyCFunction) export_memory, METH_O,
    "export_memory(obj) -> True or None" },
  { "pool_allocate", (PyCFunction) (void (*) (void)) pool_allocate, METH_FASTCALL,
    "pool_allocate(pool, size) -> GCuda.Buffer or None" },
  { "host_pool_allocate", (PyCFunction) (void (*) (void)) host_pool_allocate, METH_FASTCALL,
    "host_pool_allocate(pool, size) -> GCuda.HostBuffer or None" },
  { NULL, NULL, 0, NULL },
};

#endif /* GCUDA_LAUNCH_HAVE_PYGOBJECT */

static PyMethodDef methods[] = {
  { "launch", (PyCFunction) (void (*) (void)) launch, METH_FASTCALL,
    "launch(function, grid, block, shared, stream, params) -> bool" },
  { "pool_free_address", (PyCFunction) (void (*) (void)) pool_free_address, METH_FASTCALL,
    "pool_free_address(pool, address) -> bool" },
  { "pool_block", (PyCFunction) (void (*) (void)) pool_block, METH_FASTCALL,
    "pool_block(cls, pool, pool_pointer, address, size) -> cls instance" },
  { "pool_allocate_block", (PyCFunction) (void (*) (void)) pool_allocate_block, METH_FASTCALL,
    "pool_allocate_block(cls, pool, pool_pointer, size) -> cls instance or None" },
  { "host_pool_allocate_block", (PyCFunction) (void (*) (void)) host_pool_allocate_block, METH_FASTCALL,
    "host_pool_allocate_block(cls, pool, pool_pointer, size) -> cls instance or None" },
  { "launch_packed", (PyCFunction) (void (*) (void)) launch_packed, METH_FASTCALL,
    "launch_packed(function, gx, gy, gz, bx, by, bz, shared, stream, params) -> bool" },
  { NULL, NULL, 0, NULL },
};

static struct PyModuleDef module_def = {
  PyModuleDef_HEAD_INIT,
  .m_name = "_gcuda_launch",
  .m_doc = "GCuda's launch call for the Python override (private).",
  .m_size = 0,
  .m_methods = methods,
};

PyMODINIT_FUNC PyInit__gcuda_launch (void);

PyMODINIT_FUNC
PyInit__gcuda_launch (void)
{
  PyObject *module;

  if (PyType_Ready (&pooled_block_type) < 0 || PyType_Ready (&pinned_block_type) < 0)
    return NULL;
  module = PyModule_Create (&module_def);
  if (module != NULL && (PyModule_AddObjectRef (module, "PooledBlock", (PyObject *) &pooled_block_type) < 0 ||
                         PyModule_AddObjectRef (module, "PinnedBlock", (PyObject *) &pinned_block_type) < 0))
    Py_CLEAR (module);

#ifdef GCUDA_LAUNCH_HAVE_PYGOBJECT
  /* Without PyGObject's API (gi not importable) the launch calls still
   * work: the pool calls are left out. */
  if (module != NULL)
    {
      PyObject *gobject = pygobject_init (-1, -1, -1);

      if (gobject == NULL)
        PyErr_Clear ();
      else if (PyModule_AddFunctions (module, pool_methods) < 0)
        Py_CLEAR (module);
      Py_XDECREF (gobject);
    }
#endif
  return module;
}
