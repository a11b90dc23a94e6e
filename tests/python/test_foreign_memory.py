# Interop on GCuda alone: the protocols (__cuda_array_interface__, DLPack,
# __cuda_stream__) as a producer and a consumer with hand-made foreign
# objects, integer device addresses in PyCUDA's memory functions, borrowed
# buffers and streams. CuPy and PyTorch: test_interop.py.
#
# Tests without the gpu marker need no driver (the nogpu run makes it
# unloadable): argument checks, the dicts and capsules themselves. The gpu
# ones also run on the mock driver, except test_stream_* (the mock has no
# streams of its own).
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import ctypes
import gc
import re
import weakref

import numpy as np
import pytest

from gcudatest import GCuda, gpu, raises_gerror

from gcuda._override import interop

rng = np.random.default_rng()


def random_bytes(n):
    return rng.integers(0, 256, n, dtype=np.uint8)


class FakeCAI:
    """A foreign device array: only __cuda_array_interface__."""

    def __init__(self, address, shape, typestr='|u1', strides=None, stream=None, version=3, keep=None):
        self.interface = {'version': version, 'shape': tuple(shape), 'typestr': typestr,
                          'data': (address, False), 'strides': strides}
        if version >= 3:
            self.interface['stream'] = stream
        self.keep = keep

    @property
    def __cuda_array_interface__(self):
        return self.interface


class FakeDLPack:
    """A foreign device array: only DLPack, made from a capsule producer."""

    def __init__(self, producer, device=(2, 0)):
        self.producer = producer
        self.device = device
        self.streams = []

    def __dlpack__(self, stream=None, max_version=None):
        self.streams.append(stream)
        return self.producer.__dlpack__(stream=-1, max_version=max_version)

    def __dlpack_device__(self):
        return self.device


class Pointer:
    """PyCUDA's PointerHolderBase, as user code subclasses it."""

    def __init__(self, address, keep=None):
        self.address = address
        self.keep = keep

    def get_pointer(self):
        return self.address


# ---------------------------------------------------------------- no driver

@pytest.mark.parametrize('address,size', [(0, 16), (0x10000, 0), ((1 << 64) - 16, 17)])
def test_new_for_address_bad_range(address, size):
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT):
        GCuda.Buffer.new_for_address(None, address, size, None, None)


def test_new_for_address_notify_runs_on_failure():
    calls = []
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT):
        GCuda.Buffer.new_for_address(None, 0, 16, calls.append, 'owner')
    assert calls == ['owner']


def test_stream_handles_of_foreign_objects():
    class Torchish:
        cuda_stream = 0x1234

    class Cupyish:
        ptr = 0x5678

    class Protocol:
        def __cuda_stream__(self):
            return (0, 0x9abc)

    class BadVersion:
        def __cuda_stream__(self):
            return (1, 0x9abc)

    assert interop.stream_handle(None) is None
    assert interop.stream_handle(Torchish()) == 0x1234
    assert interop.stream_handle(Cupyish()) == 0x5678
    assert interop.stream_handle(Protocol()) == 0x9abc
    assert interop.stream_handle(np.intp(7)) == 7
    with pytest.raises(TypeError):
        interop.stream_handle(BadVersion())
    with pytest.raises(TypeError):
        interop.stream_handle('stream')
    with pytest.raises(TypeError):
        interop.stream_handle(True)


@pytest.mark.parametrize('dtype', [np.float32, np.int16, np.complex128, np.uint8])
def test_cuda_array_interface_dict(dtype):
    dtype = np.dtype(dtype)
    shape = (3, 5)
    c = interop.cuda_array_interface(0x1000, shape, dtype)
    assert c == {'version': 3, 'shape': shape, 'typestr': dtype.str, 'data': (0x1000, False),
                 'strides': None, 'stream': None}
    # C-contiguous strides are given as None; others as they are
    c = interop.cuda_array_interface(0x1000, shape, dtype, strides=(5 * dtype.itemsize, dtype.itemsize))
    assert c['strides'] is None
    f = (dtype.itemsize, 3 * dtype.itemsize)
    c = interop.cuda_array_interface(0x1000, shape, dtype, strides=f, stream=0, readonly=True)
    assert c['strides'] == f and c['data'] == (0x1000, True)
    assert c['stream'] == 1  # 0 is ambiguous: the legacy default stream is 1
    # empty arrays have address 0
    assert interop.cuda_array_interface(0x1000, (0, 4), dtype)['data'] == (0, False)


def test_cuda_array_interface_structured():
    dtype = np.dtype([('a', np.float32), ('b', np.int8)])
    c = interop.cuda_array_interface(0x2000, (4,), dtype)
    assert c['descr'] == dtype.descr
    assert interop._dtype_of_interface(c) == dtype


@pytest.mark.parametrize('versioned', [False, True])
@pytest.mark.parametrize('dtype,shape,strides', [
    (np.float32, (4, 6), None),
    (np.int64, (5,), None),
    (np.float16, (3, 4), (2, 6)),          # Fortran order
    (np.uint8, (2, 3, 4), (12, -4, 1)),    # a negative stride
    (np.bool_, (7,), None),
    (np.complex64, (0, 3), None),          # empty
])
def test_dlpack_capsule_round_trip(versioned, dtype, shape, strides):
    """A capsule GCuda makes, consumed by GCuda's own importer: the layout
    comes back, the owner stays alive until the importer lets go."""
    dtype = np.dtype(dtype)

    class Owner:
        pass

    owner = Owner()
    alive = []
    ref = weakref.ref(owner, lambda r: alive.append('gone'))
    address = 0x7000_0000

    class Producer:
        """Hands its owner over to the capsule it makes."""

        def __init__(self, owner):
            self.owner = owner

        def __dlpack__(self, stream=None, max_version=None):
            owner, self.owner = self.owner, None
            return interop.dlpack_capsule(owner, address, shape, dtype, strides, 0, stream,
                                          max_version=(1, 0) if versioned else None)

    fake = FakeDLPack(Producer(owner))
    del owner
    layout = interop._foreign_layout(fake)
    assert fake.streams == [1]  # the consumer's stream: the legacy default one
    assert layout.shape == shape and layout.dtype == dtype
    expected = strides if strides is not None else interop._c_strides(shape, dtype.itemsize)
    assert layout.strides == expected
    assert layout.address == (address if 0 not in shape else 0)
    assert ref() is not None  # the export holds the owner
    del layout
    gc.collect()
    assert ref() is None and alive == ['gone']  # the deleter ran
    assert not interop._dlpack_exports


def test_dlpack_capsule_unconsumed_is_released():
    class Owner:
        pass

    owner = Owner()
    ref = weakref.ref(owner)
    capsule = interop.dlpack_capsule(owner, 0x1000, (4,), np.float32, None, 0)
    del owner
    assert ref() is not None
    del capsule
    gc.collect()
    assert ref() is None
    assert not interop._dlpack_exports


def test_dlpack_capsule_refusals():
    with pytest.raises(BufferError):  # strides not multiples of the item size
        interop.dlpack_capsule(None, 0x1000, (4,), np.float32, (6,), 0)
    with pytest.raises(BufferError):  # no DLPack type
        interop.dlpack_capsule(None, 0x1000, (4,), np.dtype([('a', np.int8)]), None, 0)
    with pytest.raises(BufferError):  # non-native byte order
        interop.dlpack_capsule(None, 0x1000, (4,), np.dtype('>f4'), None, 0)
    with pytest.raises(BufferError):  # stream 0 is ambiguous
        interop.dlpack_capsule(None, 0x1000, (4,), np.float32, None, 0, 0)
    assert not interop._dlpack_exports
    assert interop.dlpack_device(3) == (2, 3)


def test_foreign_memory_of_host_objects_is_none():
    assert interop.foreign_memory(np.zeros(4)) is None  # numpy's __dlpack__ is on the CPU
    assert interop.foreign_memory(b'abc') is None
    assert interop.foreign_memory(object()) is None


def test_foreign_memory_layouts():
    keep = object()
    # C order: the data pointer and the bytes of the shape
    assert interop.foreign_memory(FakeCAI(0x1000, (4, 8), '<f4')) [:2] == (0x1000, 128)
    # a negative stride: the lowest byte comes first
    address, nbytes, owner = interop.foreign_memory(FakeCAI(0x1000, (4,), '<f4', strides=(-8,), keep=keep))
    assert (address, nbytes) == (0x1000 - 24, 28)
    assert owner.keep is keep
    # CAI v2: no stream
    assert interop.foreign_memory(FakeCAI(0x1000, (16,), version=2))[:2] == (0x1000, 16)
    # gpudata of a GCuda.Buffer-less GPUArray-like: an int address and nbytes
    gpuarray = type('G', (), {'gpudata': 0x4000, 'nbytes': 64, 'shape': (16,), 'dtype': np.float32,
                              'strides': (4,)})()
    assert interop.foreign_memory(gpuarray)[:2] == (0x4000, 64)


# ---------------------------------------------------------------- malformed foreign arrays (no driver)

# A DLPack producer written as foreign code would be: its own ctypes
# structures (DLPack 1.0's layout), its tensor filled in by hand.

class DLDevice(ctypes.Structure):
    _fields_ = [('device_type', ctypes.c_int32), ('device_id', ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [('code', ctypes.c_uint8), ('bits', ctypes.c_uint8), ('lanes', ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [('data', ctypes.c_void_p), ('device', DLDevice), ('ndim', ctypes.c_int32), ('dtype', DLDataType),
                ('shape', ctypes.POINTER(ctypes.c_int64)), ('strides', ctypes.POINTER(ctypes.c_int64)),
                ('byte_offset', ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [('dl_tensor', DLTensor), ('manager_ctx', ctypes.c_void_p), ('deleter', ctypes.c_void_p)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [('major', ctypes.c_uint32), ('minor', ctypes.c_uint32), ('manager_ctx', ctypes.c_void_p),
                ('deleter', ctypes.c_void_p), ('flags', ctypes.c_uint64), ('dl_tensor', DLTensor)]


DL_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
CAPSULE_NEW = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)(
    ('PyCapsule_New', ctypes.pythonapi))
DLTENSOR, DLTENSOR_VERSIONED = b'dltensor', b'dltensor_versioned'  # a capsule keeps the pointer to its name


class HostileDLPack:
    """A CUDA DLPack producer whose tensor says what the test wants (a
    shape array of @shape even where ndim says otherwise); records the
    deleter calls."""

    def __init__(self, ndim=1, shape=(4,), strides=None, code=2, bits=32, lanes=1, data=0x7000_0000,
                 byte_offset=0, null_shape=False, versioned=True):
        self.fields = dict(ndim=ndim, code=code, bits=bits, lanes=lanes, data=data, byte_offset=byte_offset)
        self.shape = (ctypes.c_int64 * max(len(shape), 1))(*shape)
        self.strides = None if strides is None else (ctypes.c_int64 * max(len(strides), 1))(*strides)
        self.null_shape = null_shape
        self.versioned = versioned
        self.deleted = []
        self.deleter = DL_DELETER(self.deleted.append)

    def __dlpack_device__(self):
        return (2, 0)

    def __dlpack__(self, stream=None, max_version=None):
        versioned = self.versioned and max_version is not None and tuple(max_version) >= (1, 0)
        managed = DLManagedTensorVersioned() if versioned else DLManagedTensor()
        if versioned:
            managed.major, managed.minor = 1, 0
        f = self.fields
        t = managed.dl_tensor
        t.data = f['data']
        t.device = DLDevice(2, 0)
        t.ndim = f['ndim']
        t.dtype = DLDataType(f['code'], f['bits'], f['lanes'])
        if not self.null_shape:
            t.shape = ctypes.cast(self.shape, ctypes.POINTER(ctypes.c_int64))
        if self.strides is not None:
            t.strides = ctypes.cast(self.strides, ctypes.POINTER(ctypes.c_int64))
        t.byte_offset = f['byte_offset']
        managed.deleter = ctypes.cast(self.deleter, ctypes.c_void_p).value
        self.managed = managed
        return CAPSULE_NEW(ctypes.addressof(managed), DLTENSOR_VERSIONED if versioned else DLTENSOR, None)


def _gpuarray():
    from gcuda import gpuarray
    return gpuarray


# everything that takes a foreign array: (name, call with the array)
CONSUMERS = [
    ('Buffer.from_foreign', lambda obj: GCuda.Buffer.from_foreign(obj)),
    ('foreign_memory', lambda obj: interop.foreign_memory(obj)),
    ('to_device', lambda obj: GCuda.to_device(obj)),
    ('from_device', lambda obj: GCuda.from_device(obj, (4,), np.uint8)),
    ('memcpy_htod', lambda obj: GCuda.memcpy_htod(obj, np.zeros(4, np.uint8))),
    ('memcpy_dtoh', lambda obj: GCuda.memcpy_dtoh(np.zeros(4, np.uint8), obj)),
    ('memcpy_dtod', lambda obj: GCuda.memcpy_dtod(obj, 0x7000_0000, 4)),
    ('memset_d8', lambda obj: GCuda.memset_d8(obj, 0, 4)),
    ('GPUArray', lambda obj: _gpuarray().GPUArray((1,), np.uint8, gpudata=obj)),
    ('DeviceView', lambda obj: GCuda.DeviceView(obj, (1,), np.uint8)),
]
CAI_CONSUMERS = CONSUMERS + [('as_gpuarray', lambda obj: _gpuarray().as_gpuarray(obj))]

ADDRESS = 0x7000_0000
# (what, interface changes, exception, what the message names)
MALFORMED_CAI = [
    ('negative dimension', {'shape': (3, -1)}, ValueError, r'shape \(3, -1\) has a negative dimension'),
    ('one stride for 3-D', {'shape': (4, 4, 4), 'strides': (64,)}, ValueError, r'1 strides .* 3 dimensions'),
    ('three strides for 1-D', {'shape': (4,), 'strides': (4, 4, 4)}, ValueError, r'3 strides .* 1 dimensions'),
    ('object typestr', {'typestr': '|O'}, TypeError, 'Python objects'),
    ('object struct', {'typestr': '|V16', 'descr': [('a', '<f8'), ('o', '|O')]}, TypeError, 'Python objects'),
    ('unsized typestr', {'typestr': '|V0'}, ValueError, 'no size'),
    ('typestr no type', {'typestr': '<q9'}, TypeError, "typestr '<q9' is not a numpy type string"),
    ('typestr not a string', {'typestr': 4}, TypeError, 'typestr must be'),
    ('typestr a list', {'typestr': ['<f4']}, TypeError, 'typestr must be'),
    ('descr of another size', {'typestr': '|V8', 'descr': [('a', '<f8'), ('b', '<f8')]}, ValueError,
     'descr describes 16 bytes'),
    ('float dimension', {'shape': (2.0, 3)}, TypeError, 'not an integer'),
    ('bool dimension', {'shape': (True,)}, TypeError, 'not an integer'),
    ('shape not a tuple', {'shape': 5}, TypeError, 'shape must be a tuple'),
    ('string strides', {'strides': 'ab'}, TypeError, 'strides must be a tuple'),
    ('no shape', {'shape': None}, TypeError, 'has no "shape"'),
    ('no data', {'data': None}, TypeError, 'has no "data"'),
    ('data not a pair', {'data': ADDRESS}, TypeError, r'data must be a \(pointer, read-only\) tuple'),
    ('data pointer not an int', {'data': ('0x70000000', False)}, TypeError, 'data pointer'),
    ('NULL data', {'data': (0, False)}, ValueError, 'data pointer is NULL'),
    ('negative pointer', {'data': (-64, False)}, ValueError, 'not a 64-bit device address'),
    ('below address 0', {'data': (8, False), 'strides': (-16,), 'shape': (2,)}, ValueError, 'below address 0'),
    ('past 2**64', {'data': ((1 << 64) - 8, False), 'shape': (4,)}, ValueError, 'past the end of the 64-bit'),
    ('version not an int', {'version': '3'}, TypeError, 'version must be an int'),
]


def malformed_cai(changes):
    interface = {'version': 3, 'shape': (16,), 'typestr': '<f4', 'data': (ADDRESS, False), 'strides': None,
                 'stream': None}
    for key, value in changes.items():
        if value is None and key in ('shape', 'data'):
            del interface[key]
        else:
            interface[key] = value
    fake = FakeCAI(ADDRESS, (1,))
    fake.interface = interface
    return fake


def expect_refusal(name, call, error, message):
    """@call() raises @error with a message matching @message (@name says
    which consumer failed otherwise); the message. (The exception itself is
    not kept: what it holds goes as it would in a program.)"""
    try:
        call()
    except error as e:
        text = str(e)
        assert re.search(message, text), '%s: %r does not match %r' % (name, text, message)
        return text
    except Exception as e:  # noqa: BLE001 - named in the failure
        pytest.fail('%s raised %s (%s), not %s' % (name, type(e).__name__, e, error.__name__))
    pytest.fail('%s took it' % name)


@pytest.mark.parametrize('what,changes,error,message', MALFORMED_CAI, ids=[m[0] for m in MALFORMED_CAI])
def test_malformed_cuda_array_interface_is_refused(what, changes, error, message):
    """Refused by every consumer before any driver call (this runs
    without one), with the exception class and a message that names the
    problem."""
    for name, consume in CAI_CONSUMERS:
        text = expect_refusal(name, lambda: consume(malformed_cai(changes)), error, message)
        assert '__cuda_array_interface__ of FakeCAI' in text, name


def test_cuda_array_interface_that_is_no_dict():
    fake = FakeCAI(ADDRESS, (1,))
    fake.interface = [('shape', (4,))]
    for name, consume in CAI_CONSUMERS:
        expect_refusal(name, lambda: consume(fake), TypeError, 'is a list, not a dict')


def test_well_formed_layouts_at_the_edges_are_taken():
    # empty arrays may have a NULL pointer; the last byte of the address
    # space is fine; a lowest byte at 0 + 8 with a negative stride too
    assert interop.foreign_memory(malformed_cai({'shape': (0, 4), 'data': (0, False)}))[:2] == (0, 0)
    top = interop.foreign_memory(malformed_cai({'data': ((1 << 64) - 16, False), 'shape': (4,)}))
    assert top[:2] == ((1 << 64) - 16, 16)
    assert interop.foreign_memory(malformed_cai({'data': (24, False), 'shape': (2,), 'strides': (-16,)}))[:2] \
        == (8, 20)
    # numpy integers are integers; a list is a sequence
    layout = interop._foreign_layout(malformed_cai({'shape': [np.int64(2), np.uint8(3)],
                                                    'strides': (np.intp(12), 4)}))
    assert layout.shape == (2, 3) and layout.strides == (12, 4) and type(layout.shape[0]) is int


def test_kernel_argument_fast_check_agrees_with_the_whole_check():
    """interop.interface_pointer() (the check on every launch) vouches for
    an interface only where interface_layout() takes it, with the same
    data pointer: every malformed case, and random interfaces."""
    interop._foreign_layout(malformed_cai({}))  # '<f4' is a known typestr now
    for what, changes, error, message in MALFORMED_CAI:
        assert interop.interface_pointer(malformed_cai(changes).interface) is None, what
    seed = np.random.SeedSequence().entropy
    r = np.random.default_rng(seed)
    values = {
        'shape': [(4,), (2, 3), (), (0, 5), (3, -1), (2.0,), (True, 2), [4], (np.int64(4),), 4, None],
        'strides': [None, (4,), (-4,), (12, 4), (4, 4, 4), (0,), (-8, 4), 'ab', [4], (np.intp(4),), (4.0,)],
        'typestr': ['<f4', '|u1', '<f8', '|O', '|V0', 4, '<q9', ['<f4']],
        'data': [(ADDRESS, False), (0, False), (8, True), ((1 << 64) - 8, False), (-4, False), (ADDRESS,), None,
                 ADDRESS, (True, False), (np.uint64(ADDRESS), False)],
        'version': [3, 2, '3', None],
        # CuPy's and Numba's [('', typestr)], structs, objects, junk
        'descr': [None, [('', '<f4')], [('', '|u1')], [('a', '<f4')], [('a', '<f8'), ('o', '|O')], 'junk', [1]],
    }
    vouched = 0
    for case in range(3000):
        changes = {key: options[r.integers(0, len(options))] for key, options in values.items()
                   if r.random() < 0.5}
        interface = malformed_cai(changes).interface
        if changes.get('version', 0) is None:
            del interface['version']
        fast = interop.interface_pointer(interface)
        try:
            address = interop.interface_layout(None, interface).address
        except (TypeError, ValueError):
            address = None
        assert fast is None or fast == address, 'seed %d: %r' % (seed, interface)
        vouched += fast is not None
    assert vouched > 100, vouched


# (what, producer arguments, what the message names)
MALFORMED_DLPACK = [
    ('ndim -1', dict(ndim=-1), 'has ndim -1'),
    ('ndim 65', dict(ndim=65), 'has ndim 65'),
    ('no shape array', dict(ndim=2, null_shape=True), 'no shape'),
    ('negative dimension', dict(ndim=2, shape=(3, -1)), r'shape \(3, -1\) has a negative dimension'),
    ('0 bits', dict(bits=0), r'type code 2 \(0 bits\)'),
    ('12 bits', dict(bits=12), r'type code 2 \(12 bits\)'),
    ('128-bit float (not numpy\'s longdouble)', dict(bits=128), r'type code 2 \(128 bits\)'),
    ('bool of 32 bits', dict(code=6, bits=32), r'type code 6 \(32 bits\)'),
    ('bfloat16', dict(code=4, bits=16), r'type code 4 \(16 bits\)'),
    ('two lanes', dict(lanes=2), '2 lanes'),
    ('NULL data', dict(data=None), 'data pointer is NULL'),
    ('byte_offset past 2**64', dict(data=1 << 63, byte_offset=1 << 63), 'byte_offset'),
    ('below address 0', dict(data=16, shape=(4,), strides=(-4,)), 'below address 0'),
]


@pytest.mark.parametrize('what,arguments,message', MALFORMED_DLPACK, ids=[m[0] for m in MALFORMED_DLPACK])
def test_malformed_dlpack_is_refused(what, arguments, message):
    """A BufferError naming the problem from every consumer, before any
    driver call; the producer's deleter runs (the tensor was consumed)."""
    for versioned in (True, False):
        for name, consume in CONSUMERS:
            producer = HostileDLPack(versioned=versioned, **arguments)
            expect_refusal(name, lambda: consume(producer), BufferError, message)
            assert producer.deleted == [ctypes.addressof(producer.managed)], name


def test_well_formed_dlpack_of_the_hostile_producer_is_taken():
    # the producer itself is right: the same tensor well formed is read as it says
    for versioned in (True, False):
        producer = HostileDLPack(ndim=2, shape=(3, 5), strides=(1, 3), code=1, bits=16, byte_offset=64,
                                 versioned=versioned)
        layout = interop._foreign_layout(producer)
        assert (layout.address, layout.shape, layout.strides, layout.dtype) == \
            (ADDRESS + 64, (3, 5), (2, 6), np.dtype(np.uint16))
        del layout
        gc.collect()
        assert len(producer.deleted) == 1
    # 0-d: one element
    layout = interop._foreign_layout(HostileDLPack(ndim=0, code=5, bits=128))
    assert layout.shape == () and layout.extent() == (ADDRESS, 16)


# ---------------------------------------------------------------- memory (mock driver and GPU)

@gpu
def test_integer_addresses_in_memory_functions():
    data = random_bytes(4096)
    buf = GCuda.to_device(data)
    base = int(buf)
    # memcpy_htod at an offset, np.intp too
    part = random_bytes(100)
    GCuda.memcpy_htod(base + 1000, part)
    expect = data.copy()
    expect[1000:1100] = part
    assert (GCuda.from_device(buf, 4096, np.uint8) == expect).all()
    assert (GCuda.from_device(np.intp(base + 1000), 100, np.uint8) == part).all()
    back = np.empty(50, np.uint8)
    GCuda.memcpy_dtoh(back, np.uint64(base + 10))
    assert (back == expect[10:60]).all()
    # memsets
    GCuda.memset_d8(base + 3, 0xAB, 5)
    expect[3:8] = 0xAB
    GCuda.memset_d32(base + 400, 0x01020304, 10)
    expect[400:440] = np.full(10, 0x01020304, np.uint32).view(np.uint8)
    GCuda.memset_d2d16(base + 2000, 64, 0x0506, 8, 3)
    for row in range(3):
        expect[2000 + 64 * row:2000 + 64 * row + 16] = np.full(8, 0x0506, np.uint16).view(np.uint8)
    assert (GCuda.from_device(buf, 4096, np.uint8) == expect).all()
    # dtod between an address and a buffer
    other = GCuda.mem_alloc(256)
    GCuda.memcpy_dtod(other, base + 512, 256)
    assert (GCuda.from_device(other, 256, np.uint8) == expect[512:768]).all()
    GCuda.memcpy_dtod(base, other, 256)
    expect[:256] = expect[512:768]
    assert (GCuda.from_device(buf, 4096, np.uint8) == expect).all()


@gpu
def test_integer_address_bounds():
    buf = GCuda.mem_alloc(1000)
    base = int(buf)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT) as info:
        GCuda.memcpy_htod(base + 990, np.zeros(11, np.uint8))
    assert '0x%x' % base in info.value.message and '0x%x' % (base + 990) in info.value.message
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT):
        GCuda.memset_d32(base + 996, 0, 2)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT):
        GCuda.from_device(base + 1, 1000, np.uint8)
    # memory the driver does not know
    host = np.zeros(64, np.uint8)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT):
        GCuda.memcpy_htod(host.__array_interface__['data'][0], np.zeros(8, np.uint8))
    # exactly to the end is fine; zero bytes do nothing
    GCuda.memcpy_htod(base + 990, np.arange(10, dtype=np.uint8))
    GCuda.memcpy_htod(base + 5000, np.zeros(0, np.uint8))
    assert (GCuda.from_device(base + 990, 10, np.uint8) == np.arange(10)).all()


@gpu
def test_from_foreign_cai_keeps_owner_and_checks_range():
    data = random_bytes(1024)
    buf = GCuda.to_device(data)
    fake = FakeCAI(int(buf) + 256, (128,), '<u4')  # 512 bytes, to the end
    borrowed = GCuda.Buffer.from_foreign(fake)
    assert borrowed.get_kind() == GCuda.BufferKind.FOREIGN
    assert (int(borrowed), len(borrowed)) == (int(buf) + 256, 512)
    assert borrowed.__dict__['_gcuda_foreign_owner'] is fake
    assert (GCuda.from_device(borrowed, 512, np.uint8) == data[256:768]).all()
    # the owner's memory seen through the foreign object, in from_device/memcpy
    assert (GCuda.from_device(fake, (128,), np.uint32) == data[256:768].view(np.uint32)).all()
    assert (GCuda.from_device_like(fake, fake) == data[256:768].view(np.uint32)).all()
    new = random_bytes(512)
    GCuda.memcpy_htod(fake, new)
    assert (GCuda.from_device(buf, 1024, np.uint8)[256:768] == new).all()
    # past the allocation
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT):
        GCuda.Buffer.from_foreign(FakeCAI(int(buf) + 1000, (25,)))
    # empty arrays have nothing to borrow
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT):
        GCuda.Buffer.from_foreign(FakeCAI(0, (0,)))
    # non-contiguous arrays are refused by copies, not by from_foreign()
    strided = FakeCAI(int(buf), (8,), '<u4', strides=(8,))
    assert len(GCuda.Buffer.from_foreign(strided)) == 60
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT):
        GCuda.memcpy_htod(strided, np.zeros(8, np.uint32))


@gpu
def test_from_foreign_pointer_holder_and_to_device():
    data = random_bytes(300)
    buf = GCuda.to_device(data)
    holder = Pointer(int(buf) + 100)
    borrowed = GCuda.Buffer.from_foreign(holder)
    assert len(borrowed) == 200  # to the end of the driver's allocation
    assert (GCuda.from_device(holder, 200, np.uint8) == data[100:]).all()
    # to_device() of device memory copies on the device
    copy = GCuda.to_device(FakeCAI(int(buf) + 10, (20,)))
    assert len(copy) == 20 and int(copy) != int(buf)
    assert (GCuda.from_device(copy, 20, np.uint8) == data[10:30]).all()
    copy2 = GCuda.to_device(buf)
    assert (GCuda.from_device(copy2, 300, np.uint8) == data).all()


@gpu
def test_borrowed_buffer_outlives_nothing_it_should_not():
    """free() of a borrowed buffer leaves the memory; freeing the owner while
    a typed view is exported keeps the memory until the view goes."""
    data = random_bytes(64)
    buf = GCuda.to_device(data)
    borrowed = GCuda.Buffer.from_foreign(FakeCAI(int(buf), (64,)))
    borrowed.free()
    with raises_gerror(GCuda.Error.FREED):
        GCuda.from_device(borrowed, 1, np.uint8)
    assert (GCuda.from_device(buf, 64, np.uint8) == data).all()


@gpu
@pytest.mark.parametrize('dtype,shape,order', [
    (np.float32, (16, 8), 'C'), (np.int16, (5, 7, 3), 'F'), (np.complex128, (33,), 'C'), (np.uint8, (4, 4), 'C'),
])
def test_device_view_exports(dtype, shape, order):
    dtype = np.dtype(dtype)
    host = rng.standard_normal(shape).astype(dtype) if dtype.kind in 'fc' else \
        rng.integers(-100, 100, shape).astype(dtype)
    host = np.asarray(host, order=order)
    buf = GCuda.mem_alloc(host.nbytes + 64)
    GCuda.memcpy_htod(int(buf) + 64, np.asfortranarray(host) if order == 'F' else host)
    view = buf.device_view(shape, dtype, order=order, offset=64)
    assert (view.get() == host).all()
    cai = view.__cuda_array_interface__
    assert cai['data'] == (int(buf) + 64, False) and cai['shape'] == shape and cai['typestr'] == dtype.str
    assert (cai['strides'] is None) == (order == 'C' or len(shape) == 1)
    # imported back (as another library would): the same layout, the same bytes
    assert (GCuda.from_device(int(buf) + 64, host.nbytes, np.uint8) ==
            np.ascontiguousarray(host.T if order == 'F' else host).view(np.uint8).ravel()).all()
    imported = FakeDLPack(view)
    layout = interop._foreign_layout(imported)
    assert layout.shape == shape and layout.dtype == dtype and layout.address == int(buf) + 64
    assert layout.strides == tuple(np.empty(shape, dtype, order=order).strides)
    del layout
    gc.collect()
    assert not interop._dlpack_exports


@gpu
def test_device_view_bounds_and_strides():
    buf = GCuda.mem_alloc(256)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS):
        buf.device_view((65,), np.float32)
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS):
        buf.device_view((4,), np.float32, strides=(-4,))  # would start before the buffer
    data = random_bytes(256)
    GCuda.memcpy_htod(buf, data)
    rev = buf.device_view((4,), np.float32, offset=12, strides=(-4,))
    # compared as bits: random bytes may be NaNs as float32
    assert (rev.get().view(np.uint32) == data[:16].view(np.uint32)[::-1]).all()
    every_other = buf.device_view((2, 8), np.uint16, strides=(128, 4))
    assert (every_other.get() == data.view(np.uint16).reshape(2, 64)[:, :16:2]).all()


@gpu
def test_exports_keep_freed_memory():
    """A DLPack capsule held by a consumer keeps the buffer's memory after
    free(): the buffer is retired, the memory released when the consumer
    lets go."""
    data = random_bytes(128)
    buf = GCuda.to_device(data)
    view = buf.device_view((32,), np.float32)
    imported = interop._foreign_layout(FakeDLPack(view))
    del view
    buf.free()
    with raises_gerror(GCuda.Error.FREED):
        GCuda.from_device(buf, 1, np.uint8)
    # the memory is still there: read it through a borrowed buffer
    again = GCuda.Buffer.new_for_address(None, imported.address, 128, None, None)
    assert (GCuda.from_device(again, 128, np.uint8) == data).all()
    del again, imported, buf
    gc.collect()
    assert not interop._dlpack_exports


@gpu
def test_exports_of_freed_buffer_refused():
    buf = GCuda.mem_alloc(16)
    buf.free()
    with raises_gerror(GCuda.Error.FREED):
        buf.__cuda_array_interface__
    with raises_gerror(GCuda.Error.FREED):
        buf.__dlpack__()


@gpu
def test_default_stream_handles():
    ctx = GCuda.Context.get_default()
    for handle, expect in ((0, 1), (1, 1), (2, 2)):
        s = GCuda.Stream.from_foreign(handle)
        assert s.get_handle() == expect and s.is_borrowed() and s.get_context() == ctx
        assert s.__cuda_stream__() == (0, expect)
    buf = GCuda.mem_alloc(64)
    data = random_bytes(64)
    GCuda.memcpy_htod_async(buf, data, stream=GCuda.Stream.from_foreign(1))
    GCuda.Stream.from_foreign(1).synchronize()
    assert buf.export_stream.get_handle() == 1
    assert buf.__cuda_array_interface__['stream'] == 1
    assert (GCuda.from_device(buf, 64, np.uint8) == data).all()


@gpu
def test_stream_foreign_objects():
    """A GCuda stream seen through the stream protocols other libraries
    use, borrowed back: the same CUstream, never destroyed by the borrow."""
    owner = GCuda.Stream()
    handle = owner.get_handle()

    class Torchish:
        cuda_stream = handle

    for foreign in (owner.__cuda_stream__()[1], Torchish(), owner):
        s = GCuda.Stream.from_foreign(foreign)
        assert s.get_handle() == handle and s.get_context() == owner.get_context()
    borrowed = GCuda.Stream.from_foreign(Torchish())
    assert borrowed.is_borrowed() and not owner.is_borrowed()
    data = random_bytes(1 << 16)
    buf = GCuda.mem_alloc(data.nbytes)
    pinned = GCuda.pagelocked_empty(data.shape, data.dtype)
    pinned[:] = data
    GCuda.memcpy_htod_async(buf, pinned, stream=Torchish())
    assert buf.export_stream.get_handle() == handle
    del borrowed
    gc.collect()
    owner.synchronize()  # still alive
    assert (GCuda.from_device(buf, data.nbytes, np.uint8) == data).all()


@gpu
def test_stream_dlpack_orders_consumer_after_producer():
    """__dlpack__(stream=S) makes S wait for the export stream's work: a
    memset queued on a busy producer stream is seen by a copy on S."""
    producer = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING)
    consumer = GCuda.Stream(GCuda.StreamFlags.NON_BLOCKING)
    n = 64 << 20
    buf = GCuda.mem_alloc(n)
    GCuda.memset_d8(buf, 0, n)
    for value in range(1, 9):  # enough work that the last memset is still queued
        GCuda.memset_d32_async(buf, value, n // 4, stream=producer)
    assert buf.export_stream == producer
    view = buf.device_view((n // 4,), np.uint32)
    capsule = view.__dlpack__(stream=consumer.get_handle())
    out = GCuda.pagelocked_empty(n // 4, np.uint32)
    GCuda.memcpy_dtoh_async(out, buf, stream=consumer)
    consumer.synchronize()
    assert (out == 8).all()
    del capsule
    producer.synchronize()
