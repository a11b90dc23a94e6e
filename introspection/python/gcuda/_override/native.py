# SPDX-License-Identifier: LGPL-2.1-or-later
"""C pointers of PyGObject wrappers, which the fast paths (the launches and
the pools, through the _gcuda_launch extension or ctypes) pass to C."""

import ctypes

__all__ = []


_capsule_pointer = []  # [PyCapsule_GetPointer], a prototype of our own


def _gobject_pointer(obj):
    """The C pointer of a GObject wrapper (PyGObject's __gpointer__ capsule)."""
    if not _capsule_pointer:
        proto = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)
        _capsule_pointer.append(proto(('PyCapsule_GetPointer', ctypes.pythonapi)))
    return _capsule_pointer[0](obj.__gpointer__, None)
