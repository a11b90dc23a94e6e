# benchutil.py: what the Python benchmarks share: the raw driver through
# ctypes (beside GCuda, or alone under the GPU host's Python 3.12), the
# exception that makes a benchmark exit 77 ("nothing measured"), and the
# JSON report that tools/run-benchmarks reads (--json FILE).
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import ctypes
import json
import os
import platform
import sys


class Skip(Exception):
    pass


def stats(samples):
    """min, median, max of @samples (the median of an even count is the
    mean of the two middle ones)."""
    s = sorted(samples)
    n = len(s)
    median = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    return s[0], median, s[-1]


class Report:
    """The figures of one run in the schema tools/run-benchmarks reads
    (docs/performance.md describes it): rows of samples in their unit, each
    GCuda row naming its reference, rows that could not be measured with
    the reason."""

    def __init__(self, benchmark, table, title, **params):
        self.doc = {'schema': 1, 'benchmark': benchmark, 'table': table, 'title': title,
                    'params': params, 'env': python_env(), 'notes': [], 'rows': []}

    def env(self, **values):
        self.doc['env'].update({k: v for k, v in values.items() if v is not None})

    def note(self, text):
        self.doc['notes'].append(text)

    def row(self, group, name, role, unit, samples, better='lower', reference=None, limit=None,
            per_sample=None, note=None):
        """@role: 'gcuda', 'reference', 'peer' or 'info'; @better: 'lower' or
        'higher'; @reference: the name (or names, the first one present
        wins) of the row of @group this one is compared with."""
        if not samples:
            return self.not_run(group, name, role, 'no samples')
        lo, median, hi = stats(samples)
        row = {'group': group, 'name': name, 'role': role, 'unit': unit, 'better': better,
               'min': lo, 'median': median, 'max': hi, 'reps': len(samples)}
        for key, value in (('reference', reference), ('limit', limit), ('per_sample', per_sample), ('note', note)):
            if value:
                row[key] = value
        row['samples'] = list(samples)
        self.doc['rows'].append(row)
        return row

    def not_run(self, group, name, role, reason):
        self.doc['rows'].append({'group': group, 'name': name, 'role': role, 'not_run': str(reason)})

    def write(self, path):
        if path:
            with open(path, 'w') as f:
                json.dump(self.doc, f, indent=1)


def python_env():
    """The interpreter and the versions of the modules of interest that this
    process has imported."""
    env = {'python': '%s %s' % (platform.python_version(), sys.executable)}
    for key, module in (('numpy', 'numpy'), ('pygobject', 'gi'), ('cupy', 'cupy'),
                        ('cuda.core', 'cuda.core'), ('cuda.bindings', 'cuda.bindings')):
        version = getattr(sys.modules.get(module), '__version__', None)
        if version is not None:
            env[key] = str(version)
    # which Python override was loaded (tools/run-benchmarks --python-path-variant)
    override = getattr(sys.modules.get('gi.overrides.GCuda'), '__file__', None)
    if override is not None:
        env['override'] = override
    return env


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
    'cuMemcpyPeer': ('cuMemcpyPeer', [ctypes.c_uint64, _P, ctypes.c_uint64, _P, ctypes.c_size_t]),
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
    loaded is Skip; a function the driver lacks is absent from drv.raw
    (drv.has('cuX') is False) and calling it raises Skip."""

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
                    setattr(self, name, self._missing(exported))
                    continue
                fn = proto(pfn.value)
            self.raw[name] = fn
            setattr(self, name, self._checked(name, fn))

    def has(self, *names):
        return all(name in self.raw for name in names)

    @staticmethod
    def _missing(exported):
        def call(*args):
            raise Skip('the driver has no %s' % exported)
        return call

    @staticmethod
    def _checked(name, fn):
        def call(*args):
            res = fn(*args)
            if res != 0:
                raise RuntimeError('%s failed: CUresult %d' % (name, res))
        return call
