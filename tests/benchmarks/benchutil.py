# benchutil.py: what the Python benchmarks share: the raw driver through
# ctypes (beside GCuda, or alone under the GPU host's Python 3.12), and the
# exception that makes a benchmark exit 77 ("nothing measured").
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import ctypes
import os


class Skip(Exception):
    pass


_U = ctypes.c_uint
_P = ctypes.c_void_p

# name: (exported name, argtypes); every function either benchmark calls
SIGNATURES = {
    'cuInit': ('cuInit', [ctypes.c_uint]),
    'cuDeviceGet': ('cuDeviceGet', [ctypes.POINTER(ctypes.c_int), ctypes.c_int]),
    'cuDevicePrimaryCtxRetain': ('cuDevicePrimaryCtxRetain', [ctypes.POINTER(_P), ctypes.c_int]),
    'cuCtxPushCurrent': ('cuCtxPushCurrent_v2', [_P]),
    'cuCtxPopCurrent': ('cuCtxPopCurrent_v2', [ctypes.POINTER(_P)]),
    'cuMemAlloc': ('cuMemAlloc_v2', [ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t]),
    'cuMemFree': ('cuMemFree_v2', [ctypes.c_uint64]),
    'cuMemHostAlloc': ('cuMemHostAlloc', [ctypes.POINTER(_P), ctypes.c_size_t, ctypes.c_uint]),
    'cuMemFreeHost': ('cuMemFreeHost', [_P]),
    'cuMemcpyHtoD': ('cuMemcpyHtoD_v2', [ctypes.c_uint64, _P, ctypes.c_size_t]),
    'cuMemcpyDtoH': ('cuMemcpyDtoH_v2', [_P, ctypes.c_uint64, ctypes.c_size_t]),
    'cuMemcpyDtoD': ('cuMemcpyDtoD_v2', [ctypes.c_uint64, ctypes.c_uint64, ctypes.c_size_t]),
    'cuMemcpyDtoDAsync': ('cuMemcpyDtoDAsync_v2', [ctypes.c_uint64, ctypes.c_uint64, ctypes.c_size_t, _P]),
    'cuModuleLoadData': ('cuModuleLoadData', [ctypes.POINTER(_P), ctypes.c_char_p]),
    'cuModuleGetFunction': ('cuModuleGetFunction', [ctypes.POINTER(_P), _P, ctypes.c_char_p]),
    'cuStreamCreate': ('cuStreamCreate', [ctypes.POINTER(_P), ctypes.c_uint]),
    'cuStreamSynchronize': ('cuStreamSynchronize', [_P]),
    'cuEventCreate': ('cuEventCreate', [ctypes.POINTER(_P), ctypes.c_uint]),
    'cuEventRecord': ('cuEventRecord', [_P, _P]),
    'cuEventSynchronize': ('cuEventSynchronize', [_P]),
    'cuEventElapsedTime': ('cuEventElapsedTime', [ctypes.POINTER(ctypes.c_float), _P, _P]),
    'cuEventDestroy': ('cuEventDestroy_v2', [_P]),
    'cuLaunchKernel': ('cuLaunchKernel', [_P, _U, _U, _U, _U, _U, _U, _U, _P, _P, _P]),
}


class RawDriver:
    """The driver's entry points through ctypes, exported names first, else
    cuGetProcAddress_v2. drv.cuX(...) raises on a failed call; drv.raw['cuX']
    is the unchecked function, for timed loops. A driver that cannot be
    loaded, or lacks a function, is Skip."""

    def __init__(self):
        path = os.environ.get('GCUDA_DRIVER_LIBRARY') or 'libcuda.so.1'
        try:
            self.lib = ctypes.CDLL(path)
        except OSError as e:
            raise Skip('cannot load %s: %s' % (path, e))
        get_proc = getattr(self.lib, 'cuGetProcAddress_v2', None)
        if get_proc is not None:
            get_proc.restype = ctypes.c_int
            get_proc.argtypes = [ctypes.c_char_p, ctypes.POINTER(_P), ctypes.c_int, ctypes.c_uint64, _P]
        self.raw = {}
        for name, (exported, argtypes) in SIGNATURES.items():
            proto = ctypes.CFUNCTYPE(ctypes.c_int, *argtypes)
            try:
                fn = proto((exported, self.lib))
            except AttributeError:
                pfn = _P()
                if get_proc is None or get_proc(name.encode(), ctypes.byref(pfn), 12000, 0, None) != 0 \
                        or not pfn.value:
                    raise Skip('the driver has no %s' % exported)
                fn = proto(pfn.value)
            self.raw[name] = fn
            setattr(self, name, self._checked(name, fn))

    @staticmethod
    def _checked(name, fn):
        def call(*args):
            res = fn(*args)
            if res != 0:
                raise RuntimeError('%s failed: CUresult %d' % (name, res))
        return call
