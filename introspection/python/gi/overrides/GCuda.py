# SPDX-License-Identifier: LGPL-2.1-or-later
"""GCuda's PyGObject override: PyCUDA's names and habits on top of the
introspected API, and GErrors raised as PyCUDA-style exception classes
(GCuda.CudaError and its subclasses).

The areas live in the private package gcuda._override, one module each:
errors, aio (asyncio, Stream, Event), context (Device, Context), views
(numpy over GCuda memory), buffers (Buffer, HostBuffer), memory (PyCUDA's
memory functions), pools, params (kernel parameters), launch (the launch
paths, Function), compiler (Module, loading, NVRTC), devtools, memoize
and arrays. This module registers their subclasses of introspected
classes, gives every other class of the namespace a subclass whose
throwing methods raise GCuda's exceptions and whose integer and string
arguments are checked (a float for an integer is a TypeError, a str with a
NUL a ValueError, where PyGObject would truncate or cut them), wraps the
functions likewise, and exports the modules' public names."""

from gi import _gi
from gi.module import get_introspection_module

from ..overrides import override

from gcuda._override import (aio, arrays, buffers, compiler, context, devtools, errors, launch, memoize, memory,
                             native, params, pools, views)
from gcuda._override.errors import _checking

GCuda = get_introspection_module('GCuda')

_MODULES = (errors, aio, context, views, buffers, memory, pools, params, launch, compiler, devtools, memoize,
            arrays, native)

# The modules' subclasses of introspected classes, by the name they replace.
_OVERRIDES = {cls.__name__: cls for cls in (
    context.Device, context.Context, aio.Stream, aio.Event, buffers.Buffer, buffers.HostBuffer,
    pools.MemoryPool, pools.HostMemoryPool, params.KernelArgs, launch.Function, compiler.Module,
    devtools.DeviceData, devtools.Occupancy, arrays.Array, arrays.ArrayDescriptor,
    arrays.Copy2D, arrays.Copy3D, arrays.Copy3DPeer)}

__all__ = []


def _wrap_class(info, cls):
    """Replaces each method of @cls's introspected base that throws or takes
    integers or strings with a wrapper that converts GErrors and checks
    those arguments (errors._checking()); static functions stay static.
    Methods @cls defines itself are left alone."""
    base = getattr(GCuda, info.get_name())
    for method in info.get_methods():
        name = method.get_name()
        if name in cls.__dict__:
            continue
        fn = getattr(base, name)
        wrapped = _checking(method, fn, method.can_throw_gerror())
        if wrapped is fn:
            continue
        if method.is_method():
            setattr(cls, name, wrapped)
        else:
            setattr(cls, name, staticmethod(wrapped))


def _wrap_namespace():
    """Registers a subclass for every class of the namespace (the modules'
    own, else a plain one) and wraps the throwing functions."""
    repo = _gi.Repository.get_default()
    for info in repo.get_infos('GCuda'):
        name = info.get_name()
        if isinstance(info, _gi.ObjectInfo):
            cls = _OVERRIDES.get(name)
            if cls is None:
                cls = type(name, (getattr(GCuda, name),), {'__module__': __name__})
            _wrap_class(info, cls)
            globals()[name] = override(cls)
            __all__.append(name)
        elif isinstance(info, _gi.StructInfo) and name in _OVERRIDES:
            # a boxed type (ArrayDescriptor): registered, but it was never
            # in __all__ and stays out
            cls = _OVERRIDES[name]
            _wrap_class(info, cls)
            globals()[name] = override(cls)
        elif isinstance(info, _gi.FunctionInfo):
            fn = getattr(GCuda, name)
            wrapped = _checking(info, fn, info.can_throw_gerror())
            if wrapped is not fn:
                globals()[name] = wrapped
                __all__.append(name)


_wrap_namespace()

# The modules' public names: PyGObject copies __all__ onto the namespace.
for _module in _MODULES:
    for _name in _module.__all__:
        globals()[_name] = getattr(_module, _name)
    __all__ += _module.__all__
del _module, _name
