# PyCUDA compatibility: gcuda.driver / gcuda.tools / gcuda.compiler names,
# the calling thread's current context (push/pop/make_context/detach and
# PyCUDA's static Context methods), Memcpy2D/3D/3DPeer fields, CompileError's
# attributes, device_attribute keys, DynamicSourceModule, and the runner of
# PyCUDA's own test_driver.py (tests/python/pycuda). Tests without the gpu
# marker need no driver (meson runs them with it made unloadable too).
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import ast
import gc
import os
import sys
import threading
import weakref

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda, GLib, GObject  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import gcuda.compiler as compiler  # noqa: E402
import gcuda.driver as drv  # noqa: E402
import gcuda.tools as tools  # noqa: E402
from gcudatest import gpu, nvrtc, raises_gerror  # noqa: E402

PYCUDA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'pycuda')


def driver_usable():
    try:
        return GCuda.Device.get_count() > 0
    except GLib.Error:
        return False


@pytest.fixture
def rng():
    return np.random.default_rng(int.from_bytes(os.urandom(4), 'little'))


# ---------------------------------------------------------------- names (no driver)

# Every name of PyCUDA's pycuda.driver reference (doc/driver.rst) that GCuda
# provides; docs/pycuda-migration.md lists the rest.
DRIVER_NAMES = '''
AlignedHostAllocation ArgumentHandler Array ArrayDescriptor ArrayDescriptor3D Context Device
DeviceAllocation Event Function HostAllocation IPCMemoryHandle In InOut ManagedAllocation Memcpy2D
Memcpy3D Memcpy3DPeer Module Out PagelockedHostAllocation PointerHolderBase RegisteredHostMemory Stream
SurfaceReference TRSA_OVERRIDE_FORMAT TRSF_NORMALIZED_COORDINATES TRSF_READ_AS_INTEGER TR_DEFAULT
TextureReference address_mode aligned_empty aligned_empty_like aligned_zeros aligned_zeros_like
array3d_flags array_format compute_mode ctx_flags device_attribute event_flags from_device
from_device_like func_cache function_attribute get_driver_version get_version gpuarray_to_array
host_alloc_flags init initialize_profiler jit_option limit make_multichannel_2d_array managed_empty
managed_empty_like managed_zeros managed_zeros_like matrix_to_array mem_alloc mem_alloc_pitch
mem_attach_flags mem_get_info mem_get_ipc_handle mem_host_register_flags memcpy_atoa memcpy_atod
memcpy_atoh memcpy_dtoa memcpy_dtod memcpy_dtod_async memcpy_dtoh memcpy_dtoh_async memcpy_htoa
memcpy_htod memcpy_htod_async memcpy_peer memcpy_peer_async memset_d16 memset_d16_async memset_d2d16
memset_d2d16_async memset_d2d32 memset_d2d32_async memset_d2d8 memset_d2d8_async memset_d32
memset_d32_async memset_d8 memset_d8_async module_from_buffer np_to_array pagelocked_empty
pagelocked_empty_like pagelocked_zeros pagelocked_zeros_like register_host_memory start_profiler
stop_profiler to_device mem_alloc_like mem_get_address_range dtype_to_array_format
matrix_to_texref bind_array_to_texref Error LogicError LaunchError MemoryError RuntimeError CompileError
'''.split()

TOOLS_NAMES = '''
get_default_device make_default_context mark_cuda_test PageLockedAllocator DeviceMemoryPool
PageLockedMemoryPool PooledDeviceAllocation PooledHostAllocation bitlog2 DeviceData OccupancyRecord
context_dependent_memoize clear_context_caches
'''.split()


@pytest.mark.parametrize('name', DRIVER_NAMES)
def test_driver_name(name):
    assert getattr(drv, name) is not None


@pytest.mark.parametrize('name', TOOLS_NAMES)
def test_tools_name(name):
    assert getattr(tools, name) is not None


def test_compiler_names():
    assert issubclass(compiler.DynamicSourceModule, compiler.DynamicModule)
    assert compiler.CompileError is GCuda.CompileError
    assert callable(compiler.SourceModule)


def test_tools_dtype_reexports():
    names = ('dtype_to_ctype', 'parse_c_arg', 'VectorArg', 'ScalarArg', 'get_arg_type')
    for name in names:
        assert name in dir(tools)
    try:
        import gcuda._dtypes as dtypes
    except ImportError:
        # before gcuda._dtypes is there: the names fail to import, clearly
        with pytest.raises(ImportError):
            from gcuda.tools import dtype_to_ctype  # noqa: F401
        return
    from gcuda.tools import dtype_to_ctype, parse_c_arg, VectorArg, ScalarArg, get_arg_type
    assert dtype_to_ctype is dtypes.dtype_to_ctype
    assert (parse_c_arg, VectorArg, ScalarArg, get_arg_type) == \
        (dtypes.parse_c_arg, dtypes.VectorArg, dtypes.ScalarArg, dtypes.get_arg_type)
    assert dtype_to_ctype(np.float32) == 'float'


def test_tools_unknown_name():
    with pytest.raises(AttributeError):
        tools.no_such_thing


def test_bitlog2_and_allocator():
    assert tools.bitlog2(17) == 4 and tools.bitlog2(0xAFFE) == 15 and tools.bitlog2(0xCC3AFFE) == 27
    assert tools.PageLockedAllocator().flags == 0
    allocator = tools.PageLockedAllocator(GCuda.HostAllocFlags.PORTABLE)
    assert allocator.flags == int(allocator) == int(GCuda.HostAllocFlags.PORTABLE)
    assert tools.PageLockedMemoryPool is GCuda.PageLockedMemoryPool


def test_get_default_device_bad_environment(monkeypatch):
    monkeypatch.setenv('CUDA_DEVICE', 'first')
    with pytest.raises(ValueError, match='CUDA_DEVICE'):
        tools.get_default_device()


def test_pointer_holder_base():
    class Holder(drv.PointerHolderBase):
        def get_pointer(self):
            return 0x7f0000001000

    assert int(Holder()) == 0x7f0000001000
    with pytest.raises(NotImplementedError):
        drv.PointerHolderBase().get_pointer()


def test_texture_references_not_supported():
    for call in (drv.TextureReference, drv.SurfaceReference, lambda: drv.matrix_to_texref(None, None, 'C'),
                 lambda: drv.bind_array_to_texref(None, None), lambda: drv.initialize_profiler('a', 'b', 0)):
        with raises_gerror(GCuda.Error.NOT_SUPPORTED, GCuda.LogicError) as info:
            call()
        assert 'CUDA 12' in info.value.message


def test_dtype_to_array_format():
    assert drv.dtype_to_array_format(np.float32) == GCuda.ArrayFormat.FLOAT
    assert drv.dtype_to_array_format(np.uint16) == GCuda.ArrayFormat.UNSIGNED_INT16
    with pytest.raises(TypeError):
        drv.dtype_to_array_format(np.float64)  # two channels: not in PyCUDA's either


def test_array_descriptor_fields():
    d = drv.ArrayDescriptor3D()
    d.width, d.height, d.depth = 2, 4, 8
    d.format = drv.array_format.FLOAT
    d.num_channels = 1
    d.flags = 0
    assert (d.width, d.height, d.depth, d.num_channels) == (2, 4, 8, 1)
    assert d.format == GCuda.ArrayFormat.FLOAT


def test_bare_array_is_unbound():
    assert isinstance(drv.Array(), GCuda.Array)


def test_device_by_malformed_pci_bus_id():
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        drv.Device('zz')


# ---------------------------------------------------------------- device_attribute (no driver)

def test_device_attribute_enum():
    for name in dir(GCuda.DeviceAttribute):
        value = getattr(GCuda.DeviceAttribute, name)
        if name.isupper() and isinstance(value, GCuda.DeviceAttribute):
            member = drv.device_attribute[name]
            assert int(member) == int(value)
            assert member == value
    member = drv.device_attribute.MAX_THREADS_PER_BLOCK
    assert str(member) == 'MAX_THREADS_PER_BLOCK'
    # an alias names the current member
    assert drv.device_attribute.MAX_REGISTERS_PER_BLOCK is drv.device_attribute.REGISTERS_PER_BLOCK
    assert str(drv.device_attribute.REGISTERS_PER_BLOCK) == 'MAX_REGISTERS_PER_BLOCK'


def test_attribute_dict_lookups():
    from gcuda._override.context import _AttributeDict
    a = drv.device_attribute
    d = _AttributeDict({a.WARP_SIZE: 32, a.MAX_THREADS_PER_BLOCK: 1024})
    assert d[a.WARP_SIZE] == 32
    assert d[GCuda.DeviceAttribute.WARP_SIZE] == 32
    assert d['warp_size'] == 32 and 'warp_size' in d and 'WARP_SIZE' in d
    assert 'no_such_attribute' not in d
    with pytest.raises(KeyError):
        d['clock_rate']
    assert sorted(str(k) for k in d) == ['MAX_THREADS_PER_BLOCK', 'WARP_SIZE']
    d[a.MAX_REGISTERS_PER_BLOCK] = 65536
    assert 'max_registers_per_block' in d and 'registers_per_block' not in d  # an alias is no key
    with pytest.raises(KeyError):
        d['registers_per_block']


# ---------------------------------------------------------------- Memcpy2D/3D/3DPeer fields (no driver)

@pytest.mark.parametrize('cls, fields', [
    (drv.Memcpy2D, ['src_x_in_bytes', 'src_y', 'src_pitch', 'dst_x_in_bytes', 'dst_y', 'dst_pitch',
                    'width_in_bytes', 'height']),
    (drv.Memcpy3D, ['src_x_in_bytes', 'src_y', 'src_z', 'src_lod', 'src_pitch', 'src_height', 'dst_x_in_bytes',
                    'dst_y', 'dst_z', 'dst_lod', 'dst_pitch', 'dst_height', 'width_in_bytes', 'height', 'depth']),
    (drv.Memcpy3DPeer, ['src_x_in_bytes', 'src_y', 'src_z', 'src_pitch', 'src_height', 'dst_x_in_bytes',
                        'dst_y', 'dst_z', 'dst_pitch', 'dst_height', 'width_in_bytes', 'height', 'depth']),
], ids=['2d', '3d', '3d-peer'])
def test_copy_fields(cls, fields, rng):
    copy = cls()
    present = [f for f in fields if f in cls._FIELDS]
    # the fields PyCUDA documents are all there (lod only where GCuda has it)
    assert set(present) >= {f for f in fields if 'lod' not in f}
    for field in present:
        value = int(rng.integers(1, 1 << 40))
        setattr(copy, field, value)
        assert getattr(copy, field) == value
        assert copy.get_property(field) == value  # the assignment took effect
    # chained assignment, as PyCUDA's tests write it
    copy.width_in_bytes = copy.src_pitch = 96
    assert copy.props.width_in_bytes == copy.props.src_pitch == 96
    # a misspelt or unknown field is an error, never silently kept
    for bad in ('src_ptich', 'pitch', 'srcPitch', '_private'):
        with pytest.raises(AttributeError, match=bad):
            setattr(copy, bad, 1)
        with pytest.raises(AttributeError):
            getattr(copy, bad)
    with pytest.raises(TypeError):
        copy.height = 1.5
    with pytest.raises((OverflowError, TypeError, ValueError)):
        copy.height = -1
    assert copy.props.width_in_bytes == 96


def test_copy_made_by_new_has_fields_too():
    copy = GCuda.Copy2D.new()
    copy.src_pitch = 256
    assert copy.props.src_pitch == 256
    # cuMemcpy2D or cuMemcpy2DUnaligned: a property of the 2D copy, as PyCUDA's aligned=True default
    assert copy.get_aligned() is True and copy.props.aligned is True
    copy.set_aligned(False)
    assert copy.aligned is False
    assert 'aligned' not in drv.Memcpy3D._FIELDS
    with pytest.raises(AttributeError):
        copy.no_such_field = 1


def test_copy_keeps_host_memory_alive():
    copy = drv.Memcpy3D()
    src = np.arange(64, dtype=np.float32)
    dst = np.zeros(64, np.float32)
    refs = weakref.ref(src), weakref.ref(dst)
    copy.set_src_host(src)
    copy.set_dst_host(dst)
    del src, dst
    gc.collect()
    assert all(r() is not None for r in refs)
    copy.set_src_host(np.zeros(4, np.float32))  # the first source is let go
    gc.collect()
    assert refs[0]() is None and refs[1]() is not None


def test_copy_endpoint_errors():
    copy = drv.Memcpy2D()
    with pytest.raises(TypeError):
        copy.set_src_host(object())
    with pytest.raises(TypeError):
        copy.set_src_device('not memory')
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        copy.set_dst_device(0)
    ro = np.zeros(4, np.float32)
    ro.flags.writeable = False
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
        copy.set_dst_host(ro)
    assert not hasattr(drv.Memcpy3DPeer(), 'set_src_array')  # peer copies have no arrays


def test_copy_region_checked_before_the_driver():
    # host to host with a pitch that reaches past the source: refused by GCuda
    copy = drv.Memcpy2D()
    copy.set_src_host(np.zeros((4, 4), np.float32))
    copy.set_dst_host(np.zeros(16, np.float32))
    copy.src_pitch = 256
    copy.dst_pitch = copy.width_in_bytes = 16
    copy.height = 4
    with raises_gerror(GCuda.Error.OUT_OF_BOUNDS, GCuda.LogicError):
        copy()


# ---------------------------------------------------------------- CompileError (NVRTC, no driver)

@nvrtc
def test_compile_error_attributes():
    source = '__global__ void f(float *x) { x[0] = undefined_name; }'
    with pytest.raises(compiler.CompileError) as info:
        compiler.SourceModule(source, options=['-DGCUDA_TEST=1'], arch='sm_90', cache_dir=False)
    e = info.value
    assert isinstance(e, GLib.Error) and isinstance(e, GCuda.CudaError)
    assert e.matches(GLib.quark_from_string('gcuda-compile-error-quark'), e.code)
    assert e.msg == e.message.split('\n')[0] and 'sm_90' in e.msg
    assert 'undefined_name' in e.stderr and 'undefined_name' not in e.msg
    assert e.stdout == ''
    assert '-DGCUDA_TEST=1' in e.command_line and '-arch=sm_90' in e.command_line
    assert str(e)  # still prints as a GLib.Error
    # PyCUDA code may set them
    e.msg = 'replaced'
    assert e.msg == 'replaced'


@nvrtc
def test_compile_error_without_command_line():
    with pytest.raises(GCuda.CompileError) as info:
        GCuda.compile_program('__global__ void f() { nope; }', arch='sm_90', cache_dir=False)
    assert info.value.command_line is None
    assert 'nope' in info.value.stderr


# ---------------------------------------------------------------- the static/instance Context methods

STATIC_METHODS = ['synchronize', 'get_device', 'get_limit', 'set_limit', 'get_cache_config', 'set_cache_config',
                  'get_memory_info', 'get_api_version', 'get_stream_priority_range', 'get_flags']


def test_static_methods_on_the_class():
    # on the class: the thread's default context, which needs the driver
    calls = (drv.Context.synchronize, drv.Context.get_device, GCuda.Context.get_thread_default,
             lambda: drv.Context.get_limit(drv.limit.STACK_SIZE))
    if not driver_usable():
        for call in calls + (tools.make_default_context,):
            with pytest.raises(GCuda.RuntimeError):
                call()
        return
    ctx = GCuda.Context.get_default()
    assert GCuda.Context.get_thread_default() is ctx
    assert drv.Context.get_device() is ctx.get_device()
    assert drv.Context.get_limit(drv.limit.STACK_SIZE) == ctx.get_limit(drv.limit.STACK_SIZE)
    drv.Context.synchronize()
    with pytest.raises(TypeError):
        drv.Context.set_limit(drv.limit.STACK_SIZE, 1024.5)


def test_static_methods_on_an_instance():
    # on an instance: the instance itself (an unbound one says so)
    ctx = GObject.new(GCuda.Context)
    for name in STATIC_METHODS:
        assert callable(getattr(drv.Context, name)) and callable(getattr(ctx, name))
    assert ctx.get_device() is None
    for call in (ctx.synchronize, ctx.get_cache_config, lambda: ctx.get_limit(drv.limit.STACK_SIZE)):
        with raises_gerror(GCuda.Error.INVALID_ARGUMENT, GCuda.LogicError):
            call()
    # integer arguments are checked as everywhere in the override
    with pytest.raises(TypeError):
        ctx.set_limit(drv.limit.STACK_SIZE, 1024.5)


def test_static_methods_keep_docs():
    assert 'synchronize' in drv.Context.synchronize.__name__
    assert GCuda.Context.__dict__['synchronize'].__doc__


# ---------------------------------------------------------------- the PyCUDA test runner (no driver)

def _pycuda_runner():
    sys.path.insert(0, PYCUDA_DIR)
    try:
        import pycuda_runner
    finally:
        sys.path.remove(PYCUDA_DIR)
    return pycuda_runner


# the shapes of PyCUDA's test file the conversion meets (the file itself is
# not shipped: tools/fetch-pycuda-tests)
_RUNNER_SAMPLE = '''import numpy as np
import pycuda.driver as drv
from pycuda import gpuarray
from pycuda.compiler import SourceModule
from pycuda.tools import dtype_to_ctype, mark_cuda_test


class TestDriver:
    @mark_cuda_test
    def test_x(self):
        # pycuda in a comment stays
        import pycuda.gpuarray as gpuarray
        from pycuda.driver import module_from_buffer
        mod = SourceModule("""
        #include <pycuda-helpers.hpp>
        __global__ void f() {}
        """)
        s = "import pycuda.driver"
        assert "pycuda" in s
'''


def _check_conversion(runner, original):
    converted = runner.convert(original)
    changed = [(a, b) for a, b in zip(original.splitlines(), converted.splitlines()) if a != b]
    assert len(original.splitlines()) == len(converted.splitlines())
    for before, after in changed:
        assert before.lstrip().startswith(('import pycuda', 'from pycuda'))
        assert after == before.replace('pycuda', 'gcuda', 1)
    assert '#include <pycuda-helpers.hpp>' in converted  # kernel sources untouched
    compile(converted, 'test_driver.py', 'exec')
    return changed


def test_pycuda_runner_converts_imports_only():
    changed = _check_conversion(_pycuda_runner(), _RUNNER_SAMPLE)
    assert len(changed) == 6
    assert 's = "import pycuda.driver"' in _pycuda_runner().convert(_RUNNER_SAMPLE)


def test_pycuda_runner_refuses_another_file(tmp_path, monkeypatch):
    runner = _pycuda_runner()
    other = tmp_path / 'test_driver.py'
    other.write_text(_RUNNER_SAMPLE)
    monkeypatch.setenv('GCUDA_PYCUDA_TEST_DRIVER', str(other))
    source, problem = runner.upstream_test_file()
    assert source is None and 'is not PyCUDA\'s test_driver.py' in problem
    monkeypatch.setenv('GCUDA_PYCUDA_TEST_DRIVER', str(tmp_path / 'absent.py'))
    source, problem = runner.upstream_test_file()
    assert source is None and 'tools/fetch-pycuda-tests' in problem


def test_pycuda_expectations_cover_the_upstream_file():
    runner = _pycuda_runner()
    original, problem = runner.upstream_test_file()
    if original is None:
        pytest.skip(problem)
    assert len(_check_conversion(runner, original)) >= 10
    # every test of the file has an expected outcome, and nothing else does
    tree = ast.parse(original)
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith('test'):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef) and node.name.startswith('Test'):
            names |= {'%s::%s' % (node.name, f.name) for f in node.body
                      if isinstance(f, ast.FunctionDef) and f.name.startswith('test')}
    expected = runner.read_expectations(os.path.join(PYCUDA_DIR, 'expected-outcomes.txt'))
    assert set(expected) == names
    assert expected['TestDriver::test_gpuarray'] == ('failed', 'NotImplementedError')
    assert expected['TestDriver::test_register_host_memory'][0] == 'xfailed'
    skipped = {n for n, (o, _) in expected.items() if o == 'skipped'}
    assert skipped and all('tex' in n or 'surf' in n for n in skipped)


# ---------------------------------------------------------------- GPU: the current context

@gpu
def test_make_context_is_current_and_popped(ctx, dev, rng):
    assert GCuda.Context.get_thread_default() is ctx
    other = dev.make_context()
    try:
        assert other is not ctx
        assert GCuda.Context.get_current() is other
        assert GCuda.Context.get_thread_default() is other
        buf = drv.mem_alloc(256)
        assert buf.get_context() is other
        assert drv.Context.get_device() is dev
        a = rng.standard_normal(64).astype(np.float32)
        drv.memcpy_htod(buf, a)
        drv.Context.synchronize()
        np.testing.assert_array_equal(drv.from_device(buf, a.shape, a.dtype), a)
        assert GCuda.Stream().get_context() is other
        other.pop()  # PyCUDA's pop() is static: pops the current context
        assert GCuda.Context.get_current() is None
        assert drv.mem_alloc(16).get_context() is ctx
        other.push()
        assert drv.mem_alloc(16).get_context() is other
        with ctx:
            assert drv.mem_alloc(16).get_context() is ctx
        assert drv.mem_alloc(16).get_context() is other
        del buf
    finally:
        other.detach()  # pops it, then destroys it
    assert other.is_destroyed()
    assert GCuda.Context.get_current() is None
    assert drv.mem_alloc(16).get_context() is ctx


@gpu
def test_static_methods_act_on_the_pushed_context(ctx, dev):
    other = dev.make_context()
    try:
        before = ctx.get_limit(drv.limit.PRINTF_FIFO_SIZE)
        drv.Context.set_limit(drv.limit.PRINTF_FIFO_SIZE, before + (1 << 20))
        assert other.get_limit(drv.limit.PRINTF_FIFO_SIZE) >= before + (1 << 20)
        assert drv.Context.get_limit(drv.limit.PRINTF_FIFO_SIZE) == other.get_limit(drv.limit.PRINTF_FIFO_SIZE)
        assert ctx.get_limit(drv.limit.PRINTF_FIFO_SIZE) == before
        drv.Context.set_cache_config(drv.func_cache.PREFER_L1)
        assert drv.Context.get_cache_config() == other.get_cache_config()
        assert drv.Context.get_memory_info() and drv.Context.get_api_version() == other.get_api_version()
    finally:
        drv.Context.pop()
        other.detach()
    # nothing pushed: the default context
    assert drv.Context.get_device() is ctx.get_device()
    assert drv.Context.get_limit(drv.limit.PRINTF_FIFO_SIZE) == ctx.get_limit(drv.limit.PRINTF_FIFO_SIZE)
    drv.Context.synchronize()


@gpu
def test_current_context_per_thread(ctx, dev, rng):
    n_threads = 4
    barrier = threading.Barrier(n_threads + 1)
    results, errors = {}, []
    datas = [rng.standard_normal(1000).astype(np.float32) for _ in range(n_threads)]

    def work(i):
        try:
            mine = dev.make_context()
            barrier.wait()  # every thread has its own context current now
            buf = drv.mem_alloc_like(datas[i])
            drv.memcpy_htod(buf, datas[i])
            drv.Context.synchronize()
            got = drv.from_device_like(buf, datas[i])
            results[i] = (mine, buf.get_context(), drv.Context.get_device(), got,
                          GCuda.Context.get_thread_default())
            del buf
            barrier.wait()
            mine.pop()
            results[i] += (GCuda.Context.get_current(), drv.mem_alloc(8).get_context())
            mine.detach()
        except Exception as e:  # reported by the main thread
            errors.append(e)
            barrier.abort()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(n_threads)]
    for t in threads:
        t.start()
    barrier.wait()
    # meanwhile this thread, which pushed nothing, still uses the default context
    assert drv.mem_alloc(8).get_context() is ctx
    assert GCuda.Context.get_thread_default() is ctx
    barrier.wait()
    for t in threads:
        t.join(60)
    assert not errors, errors
    contexts = set()
    for i in range(n_threads):
        mine, used, device, got, default, current_after, after = results[i]
        assert used is mine and default is mine and device is dev
        np.testing.assert_array_equal(got, datas[i])
        assert current_after is None and after is ctx
        assert mine.is_destroyed()
        contexts.add(mine.get_handle())
    assert len(contexts) == n_threads


@gpu
def test_destroyed_context_on_another_threads_stack(ctx, dev):
    other = dev.create_context(GCuda.ContextFlags.SCHED_AUTO)
    pushed, destroyed = threading.Event(), threading.Event()
    seen = {}

    def work():
        other.push()
        pushed.set()
        destroyed.wait(30)
        try:
            drv.mem_alloc(8)
        except GCuda.CudaError as e:
            seen['error'] = (e.domain, e.code, e.message)
        GCuda.Context.pop()
        seen['after'] = drv.mem_alloc(8).get_context()

    t = threading.Thread(target=work)
    t.start()
    pushed.wait(30)
    other.destroy()
    destroyed.set()
    t.join(60)
    assert seen['error'][:2] == ('gcuda-error-quark', int(GCuda.Error.CONTEXT_DESTROYED))
    assert 'pop' in seen['error'][2]
    assert seen['after'] is ctx


@gpu
def test_detach_primary_context_keeps_it(ctx, dev):
    primary = dev.retain_primary_context()
    assert primary is ctx  # the default context is the primary one
    primary.push()
    assert GCuda.Context.get_current() is primary
    primary.detach()  # popped, not destroyed: it is shared
    assert GCuda.Context.get_current() is None
    assert not ctx.is_destroyed()
    ctx.synchronize()


@gpu
def test_page_locked_pool_with_allocator(rng):
    pool = tools.PageLockedMemoryPool(tools.PageLockedAllocator(GCuda.HostAllocFlags.PORTABLE))
    assert int(pool.pool.props.flags) == int(GCuda.HostAllocFlags.PORTABLE)
    a = pool.allocate((64,), np.float32)
    a[:] = rng.standard_normal(64)
    np.testing.assert_array_equal(drv.from_device_like(drv.to_device(a), a), a)
    assert len(tools.PageLockedAllocator()(100)) == 100


@gpu
def test_make_default_context_and_mark_cuda_test(ctx):
    made = tools.make_default_context()
    try:
        assert made is ctx and GCuda.Context.get_current() is ctx
    finally:
        made.pop()
    assert GCuda.Context.get_current() is None

    seen = []

    @tools.mark_cuda_test
    def body():
        seen.append(GCuda.Context.get_current())

    body()
    assert seen == [ctx]
    assert GCuda.Context.get_current() is None
    assert tools.get_default_device() == ctx.get_device() or 'CUDA_DEVICE' in os.environ


# ---------------------------------------------------------------- GPU: devices

@gpu
def test_device_by_pci_bus_id(dev):
    assert drv.Device(dev.pci_bus_id()) is dev
    assert drv.Device(dev.pci_bus_id().lower()) is dev


@gpu
def test_get_attributes_keys(dev):
    attrs = dev.get_attributes()
    assert len(attrs) > 100
    for key, value in attrs.items():
        assert isinstance(key, drv.device_attribute)
        assert dev.get_attribute(GCuda.DeviceAttribute(int(key))) == value
    assert attrs[drv.device_attribute.WARP_SIZE] == 32
    assert attrs['max_threads_per_block'] == dev.max_threads_per_block
    # PyCUDA's examples/dump_properties.py prints str(key)
    lines = ['  %s: %s' % (att, value) for att, value in sorted((str(a), v) for a, v in attrs.items())]
    assert '  WARP_SIZE: 32' in lines
    assert all(line.split(':')[0].strip().isupper() for line in lines)


# ---------------------------------------------------------------- GPU: copies

@gpu
def test_memcpy2d_host_to_pitched_device_and_back(rng):
    a = rng.standard_normal((13, 37)).astype(np.float32)
    buf, pitch = drv.mem_alloc_pitch(20 * 4, 9, 4)
    # the block a[2:11, 5:25] into the device rows
    copy = drv.Memcpy2D()
    copy.set_src_host(a)
    copy.src_x_in_bytes = 5 * 4
    copy.src_y = 2
    copy.src_pitch = a.strides[0]
    copy.set_dst_device(buf)
    copy.dst_pitch = pitch
    copy.width_in_bytes = 20 * 4
    copy.height = 9
    copy(aligned=True)
    back = np.zeros((9, 20), np.float32)
    copy = drv.Memcpy2D()
    copy.set_src_device(int(buf))  # an integer address works too
    copy.src_pitch = pitch
    copy.set_dst_host(back)
    copy.dst_pitch = back.strides[0]
    copy.width_in_bytes = 20 * 4
    copy.height = 9
    stream = drv.Stream()
    copy(stream)
    stream.synchronize()
    np.testing.assert_array_equal(back, a[2:11, 5:25])


@gpu
def test_memcpy3d_through_an_array(rng):
    # PyCUDA's test_3d_texture way: ArrayDescriptor3D, Array(descr), Memcpy3D
    w, h, d = 6, 5, 4
    a = np.asarray(rng.standard_normal((w, h, d)), dtype=np.float32, order='F')
    descr = drv.ArrayDescriptor3D()
    descr.width, descr.height, descr.depth = w, h, d
    descr.format = drv.dtype_to_array_format(a.dtype)
    descr.num_channels = 1
    descr.flags = 0
    ary = drv.Array(descr)
    copy = drv.Memcpy3D()
    copy.set_src_host(a)
    copy.set_dst_array(ary)
    copy.width_in_bytes = copy.src_pitch = a.strides[1]
    copy.src_height = copy.height = h
    copy.depth = d
    copy()
    np.testing.assert_array_equal(ary.to_numpy(order='F'), a)

    # back out, a sub-box, through Memcpy3D into a device buffer then host
    out = drv.mem_alloc(2 * 3 * 4 * 4)
    copy = drv.Memcpy3D()
    copy.set_src_array(ary)
    copy.src_x_in_bytes, copy.src_y, copy.src_z = 1 * 4, 2, 1
    copy.set_dst_device(out)
    copy.dst_pitch = 4 * 4
    copy.dst_height = 3
    copy.width_in_bytes, copy.height, copy.depth = 4 * 4, 3, 2
    copy()
    box = drv.from_device(out, (2, 3, 4), np.float32)
    np.testing.assert_array_equal(box, a.T[1:3, 2:5, 1:5])


@gpu
def test_memcpy3d_peer_between_contexts(ctx, dev, rng):
    other = dev.create_context(GCuda.ContextFlags.SCHED_AUTO)
    try:
        a = rng.standard_normal((3, 4, 8)).astype(np.float32)
        src = drv.to_device(a)
        dst = drv.mem_alloc(a.nbytes, context=other)
        copy = drv.Memcpy3DPeer()
        copy.set_src_device(src)
        copy.set_src_context(ctx)
        copy.set_dst_device(dst)
        copy.set_dst_context(other)
        copy.src_pitch = copy.dst_pitch = copy.width_in_bytes = 8 * 4
        copy.src_height = copy.dst_height = copy.height = 4
        copy.depth = 3
        copy()
        np.testing.assert_array_equal(drv.from_device(dst, a.shape, a.dtype), a)
        del dst
    finally:
        other.destroy()


@gpu
def test_np_to_array_surface_bind_and_mem_alloc_like(rng):
    a = rng.standard_normal((8, 16)).astype(np.float32)
    ary = drv.np_to_array(a, 'C', allowSurfaceBind=True)
    assert int(ary.get_descriptor().flags) & int(GCuda.ArrayFlags.SURFACE_LDST)
    np.testing.assert_array_equal(ary.to_numpy(), a)
    plain = drv.np_to_array(a, 'C')
    assert not int(plain.get_descriptor().flags) & int(GCuda.ArrayFlags.SURFACE_LDST)
    buf = drv.mem_alloc_like(a)
    assert buf.get_size() == a.nbytes
    base, size = drv.mem_get_address_range(int(buf) + 8)
    assert base == int(buf) and size >= a.nbytes


# ---------------------------------------------------------------- GPU: DynamicSourceModule

@gpu
def test_dynamic_source_module(rng):
    source = r'''
    __global__ void child(const float *in, float *out, int offset)
    {
        int i = offset + threadIdx.x;
        out[i] = 2.0f * in[i] + i;
    }

    __global__ void parent(const float *in, float *out)
    {
        // one child launch per block of 32 elements
        child<<<1, 32>>>(in, out, 32 * threadIdx.x);
    }
    '''
    mod = compiler.DynamicSourceModule(source)
    parent = mod.get_function('parent')
    a = rng.standard_normal(32 * 8).astype(np.float32)
    out = np.zeros_like(a)
    parent(drv.In(a), drv.Out(out), block=(8, 1, 1), grid=(1, 1))
    np.testing.assert_allclose(out, 2 * a + np.arange(a.size, dtype=np.float32), rtol=1e-6)
