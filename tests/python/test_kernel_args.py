# Kernel arguments of plain calls (Function.__call__) and prepared calls:
# PyCUDA's device objects by duck typing (gpudata, get_pointer(),
# __cuda_array_interface__ with its v3 stream rule), integer addresses
# (int, np.intp + offset), and the launchers a plain call makes per tuple of
# argument types.
#
# Without the gpu marker (suites nogpu and mock): a kernel made by hand
# (its parameters described to the override, as cuFuncGetParamInfo would)
# whose launch is replaced by a recorder at the override's lowest call, so
# what would reach gcuda_function_launch_packed() (the packed parameters,
# grid, block, shared memory, stream) is checked byte for byte, on each of
# the three launch paths (extension, ctypes, PyGObject). Tests named
# test_buffer_* need device memory: the mock driver's or a GPU's.
# With the gpu marker: real kernels, results checked against numpy on
# random data.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import ctypes
import os
import random
import struct

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda, GLib, GObject  # noqa: E402

import pytest  # noqa: E402

from gcudatest import raises_gerror  # noqa: E402

try:
    import numpy as np
except ImportError:  # pragma: no cover - numpy is a test dependency
    if os.environ.get('GCUDA_TEST_REQUIRE_GPU') == '1':
        raise
    pytest.skip('numpy is not installed', allow_module_level=True)

from gcuda._override import launch as launch_mod  # noqa: E402
from gcuda._override import params as params_mod  # noqa: E402


def rng():
    return np.random.default_rng()


def natural_offsets(sizes):
    """Each parameter at its natural alignment (its size), as C lays
    scalars and pointers out."""
    offsets, end = [], 0
    for size in sizes:
        offset = (end + size - 1) // size * size
        offsets.append(offset)
        end = offset + size
    return offsets


def fake_function(sizes, name='k', offsets=None):
    """A GCuda.Function made by hand that describes a kernel with
    parameters of @sizes bytes at @offsets (default: natural alignment),
    what the library reads with cuFuncGetParamInfo."""
    f = GCuda.Function()
    offsets = natural_offsets(sizes) if offsets is None else offsets
    module = object()
    # instance attributes: what _param_layout asks of a function
    f.get_module = lambda: module
    f.get_param_count = lambda: len(sizes)
    f.get_param_size = lambda i: sizes[i]
    f.get_param_offset = lambda i: offsets[i]
    f.get_name = lambda: name
    return f


class Recorder:
    """Stands for the extension's launch(function, grid, block, shared,
    stream, params) and launch_packed(function, gx, gy, gz, bx, by, bz,
    shared, stream, params, ...), and for the PyGObject launch; records
    what each got."""

    def __init__(self, result=True):
        self.calls = []
        self.result = result

    def launch(self, fptr, grid, block, shared, sptr, params):
        # what the extension refuses, it raises about (the caller then takes the checked way)
        for v in tuple(grid) + tuple(block) + (shared,):
            if type(v) is not int:
                raise TypeError('dimensions must be ints')
            if not 0 <= v < 1 << 32:
                raise OverflowError('launch dimension out of range')
        self.calls.append(('launch', tuple(grid), tuple(block), shared, sptr, bytes(params)))
        return self.result

    def launch_packed(self, fptr, gx, gy, gz, bx, by, bz, shared, sptr, params, *rest):
        self.calls.append(('packed', (gx, gy, gz), (bx, by, bz), shared, sptr, bytes(params)))
        return self.result

    def gi(self, func, gx, gy, gz, bx, by, bz, shared, stream, params):
        self.calls.append(('gi', (gx, gy, gz), (bx, by, bz), shared, stream, bytes(params)))

    def params(self):
        return [c[5] for c in self.calls]


@pytest.fixture(params=['extension', 'ctypes', 'pygobject'])
def recorder(request, monkeypatch):
    """The launch replaced by a Recorder, on each launch path in turn."""
    rec = Recorder()
    if request.param == 'extension':
        state = (rec.launch_packed, int, '_gcuda_pointer', rec.launch)
    elif request.param == 'ctypes':
        state = (rec.launch_packed, ctypes.c_void_p, '_gcuda_cpointer', None)
    else:
        state = None
    monkeypatch.setattr(launch_mod, '_fast_state', [state])
    monkeypatch.setattr(launch_mod, '_gi_launch_packed', rec.gi)
    rec.path = request.param
    return rec


def pack(fmt, *values):
    return struct.pack('=' + fmt, *values)


class CaiArray:
    """A foreign device array (numba/CuPy style) at @address."""

    def __init__(self, address, n=4, stream=None, version=3):
        self.__cuda_array_interface__ = {'shape': (n,), 'typestr': '<f4', 'data': (address, False),
                                         'version': version, 'strides': None}
        if stream is not None or version >= 3:
            self.__cuda_array_interface__['stream'] = stream


class CaiProperty:
    """A __cuda_array_interface__ made on each access, as CuPy's."""

    def __init__(self, address):
        self.address = address
        self.reads = 0

    @property
    def __cuda_array_interface__(self):
        self.reads += 1
        return {'shape': (1,), 'typestr': '<f4', 'data': (self.address, False), 'version': 3, 'stream': None}


class Holder:
    """PyCUDA's PointerHolderBase: get_pointer() gives the address."""

    def __init__(self, address):
        self.address = address

    def get_pointer(self):
        return self.address

    def __int__(self):
        return self.address


class ArrayLike:
    """A PyCUDA GPUArray as a kernel sees it: gpudata."""

    def __init__(self, gpudata):
        self.gpudata = gpudata


BASE = 0x7f0000001000


# ---------------------------------------------------------------- plain calls, packed bytes

def test_addresses_and_scalars_are_packed_where_the_kernel_wants_them(recorder):
    f = fake_function([8, 8, 4])
    n = int(rng().integers(1, 1 << 30))
    f(np.intp(BASE) + 16, np.uintp(BASE + 64), np.int32(n), block=(32, 1, 1), grid=(2, 1))
    assert recorder.params() == [pack('QQi', BASE + 16, BASE + 64, n)]
    kind, grid, block, shared, sptr, _ = recorder.calls[0]
    assert kind == {'extension': 'launch', 'ctypes': 'packed', 'pygobject': 'gi'}[recorder.path]
    assert grid[:2] == (2, 1) and block == (32, 1, 1) and shared == 0 and sptr is None


def test_padding_and_mixed_sizes(recorder):
    # char c; double d; short h; float x; double *p: offsets 0, 8, 16, 20, 24
    f = fake_function([1, 8, 2, 4, 8])
    values = rng().uniform(-100, 100, 2)
    args = (np.int8(-5), np.float64(values[0]), np.int16(-300), np.float32(values[1]), np.intp(BASE))
    f(*args, block=(1, 1, 1))
    f(*args, block=(1, 1, 1))  # the launcher made by the first call
    want = pack('b7xdhxxfQ', -5, values[0], -300, np.float32(values[1]), BASE)
    assert recorder.params() == [want, want]
    # the second call went through the launcher the first one made
    plan, = f._gcuda_call_plans.values()
    assert plan.launcher is not None and f._gcuda_call is plan.launcher


def test_device_objects_by_duck_typing(recorder):
    f = fake_function([8, 8, 8, 8, 4])
    cai, prop = CaiArray(BASE + 8), CaiProperty(BASE + 0x100)
    args = (cai, prop, Holder(BASE + 0x200), ArrayLike(Holder(BASE + 0x300)), np.float32(2.5))
    for _ in range(3):
        f(*args, block=(1, 1, 1))
    assert recorder.params() == [pack('QQQQf', BASE + 8, BASE + 0x100, BASE + 0x200, BASE + 0x300, 2.5)] * 3
    assert prop.reads >= 3  # read on every call: the memory behind it may change


def test_gpudata_of_every_kind(recorder):
    f = fake_function([8])
    for gpudata, address in ((BASE, BASE), (np.uintp(BASE + 8), BASE + 8), (Holder(BASE + 16), BASE + 16),
                             (CaiArray(BASE + 24), BASE + 24), (ArrayLike(BASE + 32), BASE + 32)):
        f(ArrayLike(gpudata), block=(1, 1, 1))
        assert recorder.params()[-1] == pack('Q', address)


def test_argument_types_change_between_calls(recorder):
    # the same kernel called with other types each time: each call packs its
    # own arguments (the launcher of the last types answers only for them)
    f = fake_function([8, 8, 4])
    gen = rng()
    kinds = [
        lambda a: np.intp(a),
        lambda a: np.uint64(a),
        lambda a: CaiArray(a),
        lambda a: Holder(a),
        lambda a: ArrayLike(a),
        lambda a: ArrayLike(Holder(a)),
    ]
    want = []
    for _ in range(60):
        k0, k1 = gen.integers(0, len(kinds), 2)
        a0, a1 = (BASE + 8 * int(x) for x in gen.integers(0, 1000, 2))
        n = int(gen.integers(-1000, 1000))
        f(kinds[k0](a0), kinds[k1](a1), np.int32(n), block=(1, 1, 1))
        want.append(pack('QQi', a0, a1, n))
    assert recorder.params() == want
    # one plan, and one launcher, per tuple of types
    plans = f._gcuda_call_plans
    assert 1 < len(plans) <= len(kinds) ** 2
    assert all(p.launcher is not None for p in plans.values())


def test_same_types_other_scalars_types(recorder):
    # np.float32 then np.int32 for the same 4-byte parameter: two plans
    f = fake_function([8, 4])
    f(np.intp(BASE), np.float32(1.5), block=(1, 1, 1))
    f(np.intp(BASE), np.int32(7), block=(1, 1, 1))
    f(np.intp(BASE), np.uint32(0xffffffff), block=(1, 1, 1))
    f(np.intp(BASE), np.float32(-2), block=(1, 1, 1))
    assert recorder.params() == [pack('Qf', BASE, 1.5), pack('Qi', BASE, 7), pack('QI', BASE, 0xffffffff),
                                 pack('Qf', BASE, -2)]


def test_structs_arrays_and_complex_take_the_general_way(recorder):
    f = fake_function([8, 16, 12], offsets=[0, 8, 24])
    pair = np.dtype([('a', np.int32), ('b', np.float64)], align=True)
    for i in range(3):
        p = np.array((i, 0.5 * i), pair)[()]
        arr = np.arange(3, dtype=np.float32) + i
        f(np.complex64(1 + 2j * i), p, arr, block=(1, 1, 1))
        assert recorder.params()[-1] == (np.complex64(1 + 2j * i).tobytes() + bytes(p.tobytes()) + arr.tobytes())
    # a complex128 for the 16-byte parameter: packed as it is
    f2 = fake_function([16])
    f2(np.complex128(3 - 4j), block=(1, 1, 1))
    f2(np.complex128(5 + 6j), block=(1, 1, 1))
    assert recorder.params()[-2:] == [np.complex128(3 - 4j).tobytes(), np.complex128(5 + 6j).tobytes()]


def test_no_arguments(recorder):
    f = fake_function([])
    f(block=(4, 1, 1), grid=(3, 2, 1), shared=128)
    f(block=(4, 1, 1))
    assert recorder.params() == [b'', b'']
    assert recorder.calls[0][1:4] == ((3, 2, 1), (4, 1, 1), 128)


def test_grid_and_block_shapes_go_through(recorder):
    f = fake_function([8])
    f(np.intp(BASE), block=(8, 4), grid=(5,))
    f(np.intp(BASE), block=[2, 2, 2], grid=[1, 2, 3])
    dims = [(c[1], c[2]) for c in recorder.calls]
    if recorder.path == 'extension':  # the extension expands them itself
        assert dims == [((5,), (8, 4)), ((1, 2, 3), (2, 2, 2))]
    else:
        assert dims == [((5, 1, 1), (8, 4, 1)), ((1, 2, 3), (2, 2, 2))]


# ---------------------------------------------------------------- plain calls, errors

def test_wrong_count_and_sizes_are_the_same_errors_on_every_call(recorder):
    f = fake_function([8, 8, 4], name='add_one')
    f(np.intp(BASE), np.intp(BASE), np.int32(1), block=(1, 1, 1))  # a launcher exists now
    for _ in range(2):  # the plan is not kept: the same error again
        with raises_gerror(GCuda.Error.KERNEL_ARGUMENTS, GCuda.LogicError) as info:
            f(np.intp(BASE), np.intp(BASE), block=(1, 1, 1))
        assert 'add_one takes 3 parameters, 2 arguments given' in info.value.message
        with raises_gerror(GCuda.Error.KERNEL_ARGUMENTS, GCuda.LogicError):
            f(np.intp(BASE), np.intp(BASE), np.int32(1), np.int32(2), block=(1, 1, 1))
        with raises_gerror(GCuda.Error.KERNEL_ARGUMENTS, GCuda.LogicError) as info:
            f(np.intp(BASE), np.intp(BASE), np.int64(1), block=(1, 1, 1))
        assert 'Parameter #2 (0-based) of kernel add_one is 4 bytes' in info.value.message
        with raises_gerror(GCuda.Error.KERNEL_ARGUMENTS, GCuda.LogicError) as info:
            f(np.intp(BASE), np.int32(0), np.int32(1), block=(1, 1, 1))
        assert '#1' in info.value.message
    assert len(recorder.calls) == 1


@pytest.mark.parametrize('bad', [5, 5.0, True, None, 'x', object(), 2 ** 70])
def test_python_numbers_and_other_objects_are_refused(recorder, bad):
    f = fake_function([8, 8, 4])
    f(np.intp(BASE), np.intp(BASE), np.int32(1), block=(1, 1, 1))
    with pytest.raises(TypeError) as info:
        f(np.intp(BASE), np.intp(BASE), bad, block=(1, 1, 1))
    assert 'parameter #2' in str(info.value)
    with pytest.raises(TypeError) as info:
        f(bad, np.intp(BASE), np.int32(1), block=(1, 1, 1))
    assert 'parameter #0' in str(info.value)
    assert len(recorder.calls) == 1


def test_bad_device_objects(recorder):
    f = fake_function([8])

    class NoData:
        __cuda_array_interface__ = {'shape': (1,), 'typestr': '<f4', 'version': 3}

    class BadPointer:
        def get_pointer(self):
            return 'nowhere'

    with pytest.raises(TypeError, match='parameter #0'):
        f(NoData(), block=(1, 1, 1))
    with pytest.raises(TypeError, match='parameter #0'):
        f(BadPointer(), block=(1, 1, 1))
    with pytest.raises(TypeError, match='parameter #0'):
        f(ArrayLike(2.5), block=(1, 1, 1))
    # an address out of the 64-bit range: struct's refusal, named
    with pytest.raises(TypeError, match='parameter #0'):
        f(Holder(-1), block=(1, 1, 1))
    with pytest.raises(TypeError, match='parameter #0'):
        f(Holder(1 << 64), block=(1, 1, 1))
    assert recorder.calls == []


# a __cuda_array_interface__ that lies about its array: (changes, exception, what the message names)
MALFORMED_CAI = [
    ({'shape': (3, -1)}, ValueError, 'negative dimension'),
    ({'shape': (4, 4, 4), 'strides': (64,)}, ValueError, '1 strides'),
    ({'shape': (4,), 'strides': (4, 4, 4)}, ValueError, '3 strides'),
    ({'typestr': '|O'}, TypeError, 'Python objects'),
    ({'typestr': ['<f4']}, TypeError, 'typestr must be'),
    ({'data': (0, False)}, ValueError, 'NULL'),
    ({'data': ((1 << 64) - 4, False)}, ValueError, '64-bit'),
]


@pytest.mark.parametrize('changes,error,message', MALFORMED_CAI, ids=[repr(m[0]) for m in MALFORMED_CAI])
def test_malformed_cuda_array_interface_arguments_are_refused(recorder, changes, error, message):
    f = fake_function([8])
    good = CaiArray(BASE)
    f(good, block=(1, 1, 1))  # a launcher for the class exists now
    bad = CaiArray(BASE)
    bad.__cuda_array_interface__.update(changes)
    with pytest.raises(error, match=message) as info:
        f(bad, block=(1, 1, 1))
    assert 'parameter #0' in str(info.value) and '__cuda_array_interface__ of CaiArray' in str(info.value)
    with pytest.raises(error, match=message):
        f.prepare('P').prepared_call((1, 1), (1, 1, 1), bad)
    assert recorder.params() == [pack('Q', BASE)]


def test_objects_of_one_class_with_and_without_the_attribute(recorder):
    # the launcher of a class checks each object: one without gpudata is
    # taken for what it is
    class Maybe:
        pass

    f = fake_function([8])
    with_data, without = Maybe(), Maybe()
    with_data.gpudata = BASE
    f(with_data, block=(1, 1, 1))
    without.__cuda_array_interface__ = {'data': (BASE + 8, False), 'shape': (1,), 'typestr': '<f4', 'version': 2}
    f(without, block=(1, 1, 1))
    with pytest.raises(TypeError, match='parameter #0'):
        f(Maybe(), block=(1, 1, 1))
    assert recorder.params() == [pack('Q', BASE), pack('Q', BASE + 8)]


def test_block_is_required_and_bad_streams_are_refused(recorder):
    f = fake_function([8])
    f(np.intp(BASE), block=(1, 1, 1))
    with pytest.raises(ValueError, match='block'):
        f(np.intp(BASE))
    with pytest.raises(TypeError, match='stream'):
        f(np.intp(BASE), block=(1, 1, 1), stream='s')
    with pytest.raises(GCuda.CudaError):
        f(np.intp(BASE), block=(1, 1, 1), texrefs=[object()])
    assert len(recorder.calls) == 1


def test_a_failed_fast_launch_is_repeated_the_checked_way(monkeypatch):
    # the extension or ctypes says False (the launch failed, nothing
    # queued): the launch is made again through PyGObject, which raises
    rec = Recorder(result=False)
    monkeypatch.setattr(launch_mod, '_fast_state', [(rec.launch_packed, int, '_gcuda_pointer', rec.launch)])
    monkeypatch.setattr(launch_mod, '_gi_launch_packed', rec.gi)
    f = fake_function([8, 4])
    f(np.intp(BASE), np.int32(3), block=(2, 1), grid=(1, 1))
    assert [c[0] for c in rec.calls] == ['launch', 'gi']
    assert rec.calls[1][1:4] == ((1, 1, 1), (2, 1, 1), 0)
    assert rec.calls[0][5] == rec.calls[1][5] == pack('Qi', BASE, 3)
    # what the extension refuses (a float, a negative) is left to the checked way
    rec.calls.clear()
    rec.result = True
    with pytest.raises(TypeError, match='block'):
        f(np.intp(BASE), np.int32(3), block=(2.0, 1, 1))
    f(np.intp(BASE), np.int32(3), block=(1, 1, 1), shared=-1)
    assert [c[0] for c in rec.calls] == ['gi'] and rec.calls[0][3] == -1


def test_time_kernel_takes_the_general_way(recorder, monkeypatch):
    events = []

    class FakeEvent:
        def __init__(self, flags, context):
            events.append(self)

        def record(self, stream):
            return self

        def synchronize(self):
            return self

        def time_since(self, other):
            return 2.0

    monkeypatch.setattr(launch_mod, 'Event', FakeEvent)
    f = fake_function([8])
    f._gcuda_context = object()
    f(np.intp(BASE), block=(1, 1, 1))
    assert f(np.intp(BASE), block=(1, 1, 1), time_kernel=True) == pytest.approx(2e-3)
    assert len(events) == 2 and len(recorder.calls) == 2


class DLPackOnly:
    """An array with DLPack and no __cuda_array_interface__ (JAX style)."""

    def __init__(self, address, device_type=2):
        self.address = address
        self.device_type = device_type

    def __dlpack__(self, stream=None):
        raise AssertionError('the fake interop module reads it')

    def __dlpack_device__(self):
        return (self.device_type, 0)


def test_dlpack_only_objects_go_through_interop(recorder, monkeypatch):
    import types
    from gcuda._override import params

    seen = []

    def foreign_pointer(obj):
        seen.append(obj)
        if isinstance(obj, DLPackOnly):
            return obj.address, object()
        return None

    fake = types.ModuleType('gcuda._override.interop')
    fake.foreign_pointer = foreign_pointer
    monkeypatch.setattr(params, 'interop', fake)  # the module launches consult
    f = fake_function([8, 4])
    for k in range(3):
        f(DLPackOnly(BASE + 64 * k), np.int32(k), block=(1, 1, 1))
    f.prepare('Pi').prepared_call((1, 1), (1, 1, 1), DLPackOnly(BASE + 0x1000), 9)
    assert recorder.params() == [pack('Qi', BASE + 64 * k, k) for k in range(3)] + [pack('Qi', BASE + 0x1000, 9)]
    assert len(seen) == 4
    # host memory by DLPack (a CPU device, numpy arrays) is no address
    for bad in (DLPackOnly(BASE, device_type=1), np.zeros(2, np.float32)):
        with pytest.raises(TypeError, match='parameter #0'):
            f.prepared_call((1, 1), (1, 1, 1), bad, 1)
    with pytest.raises(TypeError, match='parameter #0'):
        f(DLPackOnly(BASE, device_type=1), np.int32(1), block=(1, 1, 1))
    assert len(seen) == 4 and len(recorder.calls) == 4


def test_dlpack_only_argument_is_its_data_pointer(recorder):
    # a reversed DLPack array's argument is its first element, above the
    # lowest byte it covers (as a __cuda_array_interface__'s data pointer)
    from test_foreign_memory import HostileDLPack
    f = fake_function([8, 4])
    for versioned in (True, False):
        reversed_ = HostileDLPack(ndim=1, shape=(4,), strides=(-1,), code=2, bits=32, data=BASE + 12,
                                  versioned=versioned)
        f(reversed_, np.int32(1), block=(1, 1, 1))
        assert recorder.params()[-1] == pack('Qi', BASE + 12, 1)
        offset = HostileDLPack(ndim=2, shape=(2, 3), strides=(-3, 1), code=2, bits=32, data=BASE,
                               byte_offset=24, versioned=versioned)
        f.prepare('Pi').prepared_call((1, 1), (1, 1, 1), offset, 2)
        assert recorder.params()[-1] == pack('Qi', BASE + 24, 2)


# ---------------------------------------------------------------- __cuda_array_interface__ streams

@pytest.fixture
def waits(monkeypatch):
    """The producer-stream waits the launches asked for."""
    calls = []
    monkeypatch.setattr(params_mod, '_producer_wait', lambda producer, stream: calls.append((producer, stream)))
    return calls


def test_cai_stream_rule_on_the_legacy_stream(recorder, waits):
    f = fake_function([8, 8])
    # None (no synchronization asked), 1 (legacy) and 2 (per-thread, a
    # blocking stream): the legacy stream waits for them by itself
    f(CaiArray(BASE, stream=None), CaiArray(BASE, stream=1), block=(1, 1, 1))
    f(CaiArray(BASE, stream=2), CaiArray(BASE, version=2), block=(1, 1, 1))
    assert waits == []
    # another stream: waited for, on each call
    for _ in range(2):
        f(CaiArray(BASE, stream=0x5000), CaiArray(BASE + 8, stream=np.uint64(0x6000)), block=(1, 1, 1))
    assert waits == [(0x5000, None), (0x6000, None)] * 2
    assert recorder.params()[-1] == pack('QQ', BASE, BASE + 8)


def test_cai_stream_zero_and_nonsense_are_refused(recorder, waits):
    f = fake_function([8])
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError) as info:
        f(CaiArray(BASE, stream=0), block=(1, 1, 1))
    assert 'forbids' in info.value.message
    with pytest.raises(TypeError, match='stream'):
        f(CaiArray(BASE, stream='s1'), block=(1, 1, 1))
    assert recorder.calls == [] and waits == []


def test_cai_stream_rule_in_prepared_calls(recorder, waits):
    f = fake_function([8, 4]).prepare('Pi')
    f.prepared_call((1, 1), (1, 1, 1), CaiArray(BASE, stream=0x7000), 5)
    f.prepared_call((1, 1), (1, 1, 1), CaiArray(BASE, stream=1), 5)
    assert waits == [(0x7000, None)]
    assert recorder.params() == [pack('Qi', BASE, 5)] * 2


# ---------------------------------------------------------------- prepared calls

def test_prepared_pointer_parameters_take_every_address_kind(recorder):
    f = fake_function([8, 8, 4]).prepare('PPi')
    gen = rng()
    kinds = [int, np.intp, np.uint64, CaiArray, Holder, ArrayLike, lambda a: ArrayLike(Holder(a)), CaiProperty]
    want = []
    for k0 in range(len(kinds)):
        for k1 in range(len(kinds)):
            a0, a1 = (BASE + 8 * int(x) for x in gen.integers(0, 1 << 20, 2))
            n = int(gen.integers(-1 << 31, 1 << 31))
            f.prepared_call((1, 1), (1, 1, 1), kinds[k0](a0), kinds[k1](a1), n)
            want.append(pack('QQi', a0, a1, n))
    assert recorder.params() == want


def test_prepared_struct_is_one_type(recorder):
    # PyCUDA's flattened idiom prepare("PPfi") for struct {float; int;}: the
    # message says what to give instead, and both forms it names work
    f = fake_function([8, 8, 8], name='scale_struct')
    with raises_gerror(GCuda.Error.KERNEL_ARGUMENTS, GCuda.LogicError) as info:
        f.prepare('PPfi')
    assert info.value.message == (
        'Kernel scale_struct takes 3 parameters, 4 prepared types given; a struct parameter is one prepared '
        "type: a numpy structured dtype such as numpy.dtype([('f', numpy.float32), ('n', numpy.int32)]), or its "
        'size in bytes such as "8s", not one per field')
    with raises_gerror(GCuda.Error.KERNEL_ARGUMENTS, GCuda.LogicError) as info:
        f.prepare('PP')  # too few: no struct hint
    assert info.value.message == 'Kernel scale_struct takes 3 parameters, 2 prepared types given'
    gen = rng()
    f_value, n = np.float32(gen.standard_normal()), int(gen.integers(-1 << 31, 1 << 31))
    dt = np.dtype([('f', np.float32), ('n', np.int32)])
    f.prepare(['P', 'P', dt]).prepared_call((1, 1), (1, 1, 1), BASE, BASE + 8, np.array((f_value, n), dt))
    f.prepare('PP8s').prepared_call((1, 1), (1, 1, 1), BASE, BASE + 8, pack('fi', f_value, n))
    assert recorder.params() == [pack('QQfi', BASE, BASE + 8, f_value, n)] * 2
    # the plain call: too many arguments say the same
    with raises_gerror(GCuda.Error.KERNEL_ARGUMENTS, GCuda.LogicError) as info:
        f(np.intp(BASE), np.intp(BASE), np.float32(1), np.int32(2), block=(1, 1, 1))
    assert 'takes 3 parameters, 4 arguments given; a struct parameter is one argument' in info.value.message


def test_prepared_pointer_parameters_refuse_non_addresses(recorder):
    f = fake_function([8, 4]).prepare('Pi')
    for bad in (1.5, True, None, 'x', b'12345678', object()):
        with pytest.raises(TypeError, match='parameter #0'):
            f.prepared_call((1, 1), (1, 1, 1), bad, 1)
    with raises_gerror(GCuda.Error.KERNEL_ARGUMENTS, GCuda.LogicError):
        f.prepared_call((1, 1), (1, 1, 1), BASE)
    assert recorder.calls == []


# ---------------------------------------------------------------- with device memory (mock driver or GPU)

@pytest.fixture
def mem():
    """A device allocation (the mock driver's in the mock suite)."""
    from conftest import require_gpu
    require_gpu()  # the gpu suite on a machine without one
    return GCuda.mem_alloc(4096)


def test_buffer_arguments_and_their_cached_address(recorder, mem):
    f = fake_function([8, 8, 4])
    other = GCuda.mem_alloc(256)
    view = mem.new_view(64, 128)
    f(mem, other, np.int32(1), block=(1, 1, 1))
    f(view, other, np.int32(2), block=(1, 1, 1))
    f(mem, CaiArray(int(other) + 4), np.int32(3), block=(1, 1, 1))
    f(np.intp(mem) + 8, Holder(int(other)), np.int32(4), block=(1, 1, 1))
    f(mem, other, np.int32(5), block=(1, 1, 1))
    m, o = int(mem), int(other)
    assert recorder.params() == [pack('QQi', m, o, 1), pack('QQi', m + 64, o, 2), pack('QQi', m, o + 4, 3),
                                 pack('QQi', m + 8, o, 4), pack('QQi', m, o, 5)]
    # freed: refused on the next call, by the same launcher
    other.free()
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        f(mem, other, np.int32(6), block=(1, 1, 1))
    # a view of freed memory too
    mem.free()
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        f(view, CaiArray(BASE), np.int32(7), block=(1, 1, 1))
    assert len(recorder.calls) == 5


def test_buffer_arguments_in_prepared_calls(recorder, mem):
    f = fake_function([8, 8, 4]).prepare('PPi')
    holder = ArrayLike(mem)
    f.prepared_call((1, 1), (1, 1, 1), mem, holder, 3)
    f.prepared_call((1, 1), (1, 1, 1), int(mem) + 16, np.intp(mem) + 32, 4)
    m = int(mem)
    assert recorder.params() == [pack('QQi', m, m, 3), pack('QQi', m + 16, m + 32, 4)]
    mem.free()
    with raises_gerror(GCuda.Error.FREED, GCuda.LogicError):
        f.prepared_call((1, 1), (1, 1, 1), holder, 0, 3)


def test_hand_made_buffer_is_refused(recorder):
    f = fake_function([8])
    for _ in range(2):
        with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
            f(GObject.new(GCuda.Buffer), block=(1, 1, 1))
    assert recorder.calls == []


# ---------------------------------------------------------------- on a GPU: real kernels, checked against numpy

GPU_SOURCE = r'''
__global__ void axpb(float *out, const float *x, float a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a * x[i] + i;
}

__global__ void multiply_them(float *dest, const float *a, const float *b)
{
  const int i = threadIdx.x;
  dest[i] = a[i] * b[i];
}

__global__ void gpu_arange(int *x)
{
  const int i = threadIdx.x;
  x[i] = i;
}

/* spins for about @cycles clock cycles, then writes: a producer slow
 * enough that a consumer not waiting for it reads stale data */
__global__ void slow_fill(float *out, float v, long long cycles)
{
  long long t0 = clock64();
  while (clock64() - t0 < cycles)
    ;
  out[threadIdx.x] = v + threadIdx.x;
}

__global__ void copy(float *dst, const float *src)
{
  dst[threadIdx.x] = src[threadIdx.x];
}
'''


@pytest.fixture(scope='module')
def gpu_mod():
    from gcuda import compiler
    return compiler.SourceModule(GPU_SOURCE)


@pytest.fixture(params=['extension', 'ctypes', 'pygobject'])
def launch_path(request):
    """Each launch path in turn (as test_kernels.py's fixture)."""
    saved = list(launch_mod._fast_state)
    if request.param == 'pygobject':
        launch_mod._fast_state[:] = [None]
    else:
        if request.param == 'extension' and os.environ.get('GCUDA_TEST_LAUNCH_EXTENSION') != '1':
            pytest.skip('the _gcuda_launch extension was not built (no Python headers at build time)')
        binding = launch_mod._bind_fast_launch(request.param)
        assert binding is not None, 'the %s fast launch path could not be bound' % request.param
        launch_mod._fast_state[:] = [binding]
    yield request.param
    launch_mod._fast_state[:] = saved


def fresh(func):
    """@func without the launchers an earlier test made (on another path)."""
    for name in ('_gcuda_call_plans', '_gcuda_call', 'prepared_call', 'prepared_async_call'):
        func.__dict__.pop(name, None)
    return func


def random_floats(n):
    return rng().uniform(-100, 100, n).astype(np.float32)


class CudaArrayInterfaceImpl:
    """PyCUDA's test_pass_cai_array class: an object from outside GCuda
    with __cuda_array_interface__ over memory it allocated."""

    def __init__(self, size, itemsize, dtype, stream=None):
        self._shape = (size,)
        self._strides = (itemsize,)
        self._typestr = dtype.str
        self._ptr = GCuda.mem_alloc(size * itemsize)
        self._stream = stream

    @property
    def __cuda_array_interface__(self):
        return {'shape': self._shape, 'strides': self._strides, 'typestr': self._typestr,
                'data': (int(self._ptr), False), 'stream': self._stream, 'version': 3}

    @property
    def ptr(self):
        return self._ptr


class Wrapped:
    """PyCUDA's PointerHolderBase as its test_driver.py subclasses it."""

    def __init__(self, wrapped, offset=0):
        self.wrapped = wrapped
        self.offset = offset

    def get_pointer(self):
        return int(self.wrapped) + self.offset


def cai_over(buf, n, offset=0, stream=None):
    return CaiArray(int(buf) + offset, n, stream=stream)


# each: (name, make(buf, byte offset) -> kernel argument standing for buf + offset)
ADDRESS_KINDS = [
    ('buffer view', lambda buf, off: buf.new_view(off, len(buf) - off)),
    ('np.intp + offset', lambda buf, off: np.intp(buf) + off),
    ('np.uintp(int + offset)', lambda buf, off: np.uintp(int(buf) + off)),
    ('cuda array interface', lambda buf, off: cai_over(buf, 1, off)),
    ('pointer holder', lambda buf, off: Wrapped(buf, off)),
    ('gpudata holder', lambda buf, off: ArrayLike(Wrapped(buf, off))),
    ('gpudata address', lambda buf, off: ArrayLike(int(buf) + off)),
]


@pytest.mark.gpu
def test_gpu_argument_kinds_change_between_calls(gpu_mod, launch_path):
    f = fresh(gpu_mod.get_function('axpb'))
    n = 3000
    gen = rng()
    x_host = random_floats(n)
    x = GCuda.to_device(x_host)
    out = GCuda.mem_alloc(n * 4)
    stream = GCuda.Stream()
    for call in range(2 * len(ADDRESS_KINDS) ** 2):
        k_out, k_x = gen.integers(0, len(ADDRESS_KINDS), 2)
        if call < len(ADDRESS_KINDS) ** 2:  # every pair once, then at random
            k_out, k_x = divmod(call, len(ADDRESS_KINDS))
        o_out, o_x = (4 * int(v) for v in gen.integers(0, 500, 2))
        count = n - max(o_out, o_x) // 4
        a = np.float32(gen.uniform(-4, 4))
        GCuda.memset_d32(out, 0, n)
        on = stream if call % 2 else None
        f(ADDRESS_KINDS[k_out][1](out, o_out), ADDRESS_KINDS[k_x][1](x, o_x), a, np.int32(count),
          block=(256, 1, 1), grid=((count + 255) // 256, 1), stream=on)
        if on is not None:
            stream.synchronize()
        got = GCuda.from_device(out, n, np.float32)
        want = np.zeros(n, np.float32)
        want[o_out // 4:o_out // 4 + count] = a * x_host[o_x // 4:o_x // 4 + count] + \
            np.arange(count, dtype=np.float32)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-4,
                                   err_msg='out: %s, x: %s' % (ADDRESS_KINDS[k_out][0], ADDRESS_KINDS[k_x][0]))
    # one plan with its launcher per pair of argument classes
    classes = {type(make(x, 0)) for _, make in ADDRESS_KINDS}
    assert len(f._gcuda_call_plans) == len(classes) ** 2
    assert all(p.launcher is not None for p in f._gcuda_call_plans.values())


@pytest.mark.gpu
def test_gpu_pycuda_simple_kernel_2(gpu_mod, launch_path):
    # PyCUDA's test_simple_kernel_2: Out handler, then np.intp(buf) + itemsize
    multiply_them = fresh(gpu_mod.get_function('multiply_them'))
    for _ in range(2):
        a = rng().standard_normal(400).astype(np.float32)
        b = rng().standard_normal(400).astype(np.float32)
        a_gpu = GCuda.to_device(a)
        b_gpu = GCuda.to_device(b)
        dest = np.zeros_like(a)
        multiply_them(GCuda.Out(dest), a_gpu, b_gpu, block=(400, 1, 1))
        np.testing.assert_array_equal(dest, a * b)
        GCuda.Context.get_default().synchronize()
        # now with offsets
        dest = np.zeros_like(a)
        multiply_them(GCuda.Out(dest), np.intp(a_gpu) + a.itemsize, b_gpu, block=(399, 1, 1))
        np.testing.assert_array_equal(dest[:399], a[1:] * b[:399])
        # the same kernel through the launcher of (Buffer, Buffer, Buffer)
        d_gpu = GCuda.mem_alloc(a.nbytes)
        multiply_them(d_gpu, a_gpu, b_gpu, block=(400, 1, 1))
        np.testing.assert_array_equal(GCuda.from_device(d_gpu, 400, np.float32), a * b)
        # and In / InOut handlers again after it
        dest = rng().standard_normal(400).astype(np.float32)
        before = dest.copy()
        multiply_them(GCuda.InOut(dest), GCuda.In(a), b_gpu, block=(400, 1, 1))
        np.testing.assert_array_equal(dest, a * b)
        assert not np.array_equal(dest, before)


@pytest.mark.gpu
def test_gpu_pass_cai_array(gpu_mod):
    # PyCUDA's test_pass_cai_array, on the launcher path and the general one
    gpu_arange = gpu_mod.get_function('gpu_arange')
    size = 1024
    np_array = np.arange(size, dtype=np.int32)
    for _ in range(2):
        cai_array = CudaArrayInterfaceImpl(size, np_array.itemsize, np_array.dtype)
        gpu_arange(cai_array, grid=(1,), block=(size, 1, 1))
        host_array = np.empty_like(np_array)
        GCuda.memcpy_dtoh(host_array, cai_array.ptr)
        assert (host_array == np_array).all()


@pytest.mark.gpu
def test_gpu_prepared_call_addresses(gpu_mod, launch_path):
    f = fresh(gpu_mod.get_function('axpb')).prepare('PPfi')
    n = 2000
    x_host = random_floats(n)
    x = GCuda.to_device(x_host)
    out = GCuda.mem_alloc(n * 4)
    kinds = ADDRESS_KINDS + [('int + offset', lambda buf, off: int(buf) + off)]
    gen = rng()
    for k_out in range(len(kinds)):
        k_x = int(gen.integers(0, len(kinds)))
        o_out, o_x = (4 * int(v) for v in gen.integers(0, 300, 2))
        count = n - max(o_out, o_x) // 4
        a = float(np.float32(gen.uniform(-4, 4)))
        GCuda.memset_d32(out, 0, n)
        f.prepared_call(((count + 127) // 128, 1), (128, 1, 1), kinds[k_out][1](out, o_out),
                        kinds[k_x][1](x, o_x), a, count)
        got = GCuda.from_device(out, n, np.float32)
        want = np.zeros(n, np.float32)
        want[o_out // 4:o_out // 4 + count] = np.float32(a) * x_host[o_x // 4:o_x // 4 + count] + \
            np.arange(count, dtype=np.float32)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-4,
                                   err_msg='out: %s, x: %s' % (kinds[k_out][0], kinds[k_x][0]))


def cycles_for(ms):
    """Clock cycles of about @ms milliseconds on device 0."""
    dev = GCuda.Device.get(0)
    khz = dev.get_attribute(GCuda.DeviceAttribute.CLOCK_RATE)
    return max(int(khz * ms), 1000 * 1000 * ms)  # at least a 1 GHz guess


@pytest.mark.gpu
@pytest.mark.parametrize('producer_on, consumer_on', [
    ('stream', 'other stream'),
    ('stream', 'legacy'),
    ('per-thread', 'other stream'),
    ('legacy', 'non-blocking stream'),
    ('legacy', 'other stream'),
])
def test_gpu_cai_producer_stream_is_waited_for(gpu_mod, producer_on, consumer_on):
    # the producer's kernel spins ~50 ms before writing: a consumer launch
    # that did not wait for the producer's stream would copy stale zeros
    ctx = GCuda.Context.get_default()
    slow_fill, copy = gpu_mod.get_function('slow_fill'), gpu_mod.get_function('copy')
    src, dst = GCuda.mem_alloc(128 * 4), GCuda.mem_alloc(128 * 4)
    GCuda.memset_d32(src, 0, 128)
    GCuda.memset_d32(dst, 0, 128)
    ctx.synchronize()
    producer = {'stream': GCuda.Stream(), 'per-thread': GCuda.Stream.get_per_thread_default(ctx),
                'legacy': None}[producer_on]
    consumer = {'other stream': GCuda.Stream(), 'legacy': None,
                'non-blocking stream': GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING)}[consumer_on]
    value = np.float32(rng().uniform(1, 100))
    slow_fill(src, value, np.int64(cycles_for(50)), block=(128, 1, 1), stream=producer)
    handle = 1 if producer is None else producer.get_handle()
    copy(dst, cai_over(src, 128, stream=handle), block=(128, 1, 1), stream=consumer)
    if consumer is None:
        ctx.synchronize()
    else:
        consumer.synchronize()
    np.testing.assert_array_equal(GCuda.from_device(dst, 128, np.float32),
                                  value + np.arange(128, dtype=np.float32))
    ctx.synchronize()


# ------------------------------------------------------------ GCuda.KernelArgs from Python

_KA_RANGES = [('int8', -2 ** 7, 2 ** 7 - 1, 'b'), ('uint8', 0, 2 ** 8 - 1, 'B'),
              ('int16', -2 ** 15, 2 ** 15 - 1, 'h'), ('uint16', 0, 2 ** 16 - 1, 'H'),
              ('int32', -2 ** 31, 2 ** 31 - 1, 'i'), ('uint32', 0, 2 ** 32 - 1, 'I'),
              ('int64', -2 ** 63, 2 ** 63 - 1, 'q'), ('uint64', 0, 2 ** 64 - 1, 'Q')]


@pytest.mark.parametrize('name,low,high,fmt', _KA_RANGES)
def test_kernel_args_integer_setters_exact(name, low, high, fmt):
    # Introspection gives add_int32() ... a double (for GJS's numbers); the
    # override keeps Python's integers exact at every size, 64-bit ones
    # beyond 2**53 included, and refuses floats and values out of range as
    # for every integer parameter.
    args = GCuda.KernelArgs.new()
    add, set_ = getattr(args, 'add_' + name), getattr(args, 'set_' + name)
    values = [low, high, 0, 1, random.randint(low, high), np.int64(-1) if low < 0 else np.uint8(7)]
    for i, v in enumerate(values):
        assert add(v) == i
        assert args.get_value(i).get_data() == struct.pack('<' + fmt, int(v))
    for i, v in enumerate(reversed(values)):
        assert set_(i, v) is True
        assert args.get_value(i).get_data() == struct.pack('<' + fmt, int(v))
    before = [args.get_value(i).get_data() for i in range(len(values))]
    for bad in (3.7, float(high), np.float32(1.0), '1', None):
        with pytest.raises(TypeError):
            add(bad)
        with pytest.raises(TypeError):
            set_(0, bad)
    for bad in (low - 1, high + 1, 2 ** 70, -2 ** 70):
        with pytest.raises(OverflowError, match='%d not in range %d to %d' % (bad, low, high)):
            add(bad)
        with pytest.raises(OverflowError):
            set_(0, bad)
    assert args.get_count() == len(values)
    assert [args.get_value(i).get_data() for i in range(len(values))] == before
    # the library's checks still come out as GCuda's exceptions
    with pytest.raises(GCuda.LogicError) as info:
        set_(len(values), 1)
    assert info.value.code == GCuda.Error.KERNEL_ARGUMENTS
    other = GCuda.KernelArgs.new()
    other.add_float(1.0)
    with pytest.raises(GCuda.LogicError):
        getattr(other, 'set_' + name)(0, high)


def test_kernel_args_number_twins_from_python():
    # What GJS calls as add_int32() is the twin taking a double
    # (gcuda_kernel_args_add_int32_number); the override's methods stand
    # in front of it. Called directly it refuses what the type cannot hold.
    from gi.module import get_introspection_module
    bare = get_introspection_module('GCuda').KernelArgs
    args = GCuda.KernelArgs.new()
    assert bare.add_int32(args, -5.0) == 0
    assert args.get_value(0).get_data() == struct.pack('<i', -5)
    for bad in (3.7, float('nan'), float('inf'), 2.0 ** 31):
        with pytest.raises(GLib.Error) as info:
            bare.add_int32(args, bad)
        assert info.value.matches(GCuda.error_quark(), GCuda.Error.KERNEL_ARGUMENTS)
        assert 'type int32' in info.value.message
    with pytest.raises(GLib.Error, match='9007199254740994 is not a whole number') as info:
        bare.add_int64(args, 2.0 ** 53 + 2)
    assert info.value.matches(GCuda.error_quark(), GCuda.Error.KERNEL_ARGUMENTS)
    assert args.get_count() == 1


def test_buffer_memset_takes_python_integers(mem):
    # The introspected memsets take the value as a double (GJS's numbers);
    # Buffer.memset_d8() ... keep Python's integer checks: a float is a
    # TypeError, out of range an OverflowError, and exact values set as before.
    buf = mem.new_view(0, 64)
    data = bytes(random.getrandbits(8) for _ in range(64))
    buf.upload(0, data)
    for name, high in (('memset_d8', 2 ** 8 - 1), ('memset_d16', 2 ** 16 - 1), ('memset_d32', 2 ** 32 - 1)):
        for bad, error in ((1.5, TypeError), (np.float32(2.0), TypeError), (high + 1, OverflowError),
                           (-1, OverflowError)):
            with pytest.raises(error):
                getattr(buf, name)(0, bad, 4, None)
            with pytest.raises(error):
                getattr(buf, name + '_2d')(0, 16, bad, 2, 2, None)
        with pytest.raises(TypeError):
            getattr(buf, name)(0.0, 1, 4, None)
    assert buf.download(0, 64).get_data() == data
    assert buf.memset_d8(1, np.uint8(255), 3, None) is True
    assert buf.memset_d16(8, 0xbeef, 2) is True
    assert buf.memset_d32(16, 2 ** 32 - 1, 2, None) is True
    assert buf.memset_d32_2d(32, 16, 0x01020304, 1, 2, None) is True
    want = bytearray(data)
    want[1:4] = b'\xff' * 3
    want[8:12] = b'\xef\xbe' * 2
    want[16:24] = b'\xff' * 8
    want[32:36] = want[48:52] = b'\x04\x03\x02\x01'
    assert buf.download(0, 64).get_data() == bytes(want)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT):
        buf.memset_d32(2, 1, 1, None)
