# GCuda's PyGObject override: PyCUDA's names and habits on top of the
# introspected API, and GErrors raised as PyCUDA-style exception classes.
#
# SPDX-License-Identifier: LGPL-2.1-or-later


from gi import _gi

from ..importer import modules
from ..overrides import override

from gcuda._override import aio, arrays, compiler, context, devtools, errors, memoize, memory, params, pools
from gcuda._override.aio import Event, Stream
from gcuda._override.buffers import Buffer, HostBuffer
from gcuda._override.compiler import Module
from gcuda._override.arrays import Array, ArrayDescriptor
from gcuda._override.context import Context, Device
from gcuda._override.devtools import DeviceData, Occupancy
from gcuda._override.errors import _raising
from gcuda._override.launch import Function
from gcuda._override.pools import HostMemoryPool, MemoryPool

GCuda = modules['GCuda']._introspection_module

# The public names of the override's modules, which PyGObject copies from
# __all__ onto the namespace: GCuda.X.
__all__ = []
for _module in (errors, context, aio, memory, pools, params, compiler, devtools, memoize, arrays):
    for _name in _module.__all__:
        globals()[_name] = getattr(_module, _name)
    __all__ += _module.__all__
del _module, _name


_OVERRIDES = {'Device': Device, 'Context': Context, 'Stream': Stream, 'Event': Event,
              'MemoryPool': MemoryPool, 'HostMemoryPool': HostMemoryPool,
              'DeviceData': DeviceData, 'Occupancy': Occupancy,
              'Array': Array, 'ArrayDescriptor': ArrayDescriptor,
              'Buffer': Buffer, 'HostBuffer': HostBuffer, 'Module': Module, 'Function': Function}


def _wrap_class(info, cls):
    """Replaces each throwing method of @cls's introspected base with a
    wrapper that converts GErrors; static functions stay static."""
    base = getattr(GCuda, info.get_name())
    for method in info.get_methods():
        name = method.get_name()
        if not method.can_throw_gerror() or name in cls.__dict__:
            continue
        fn = getattr(base, name)
        if method.is_method():
            setattr(cls, name, _raising(fn))
        else:
            setattr(cls, name, staticmethod(_raising(fn)))


def _wrap_namespace():
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
            cls = _OVERRIDES[name]
            _wrap_class(info, cls)
            globals()[name] = override(cls)
        elif isinstance(info, _gi.FunctionInfo) and info.can_throw_gerror():
            globals()[name] = _raising(getattr(GCuda, name))
            __all__.append(name)


_wrap_namespace()


