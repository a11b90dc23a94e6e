# pycuda.compiler's compile paths without a GPU: NVRTC compiles in process,
# for an explicit architecture (sm_90), with the driver made unloadable
# (GCUDA_DRIVER_LIBRARY points nowhere). Cache tests use their own
# directories, and fresh child processes where the in-process cache would
# otherwise answer.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import glob
import json
import os
import subprocess
import sys
import textwrap

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda, GLib  # noqa: E402

import pytest  # noqa: E402

from gcuda import compiler  # noqa: E402

from gcudatest import gpu, nvrtc  # noqa: E402

ARCH = 'sm_90'
COMPILE_DOMAIN = 'gcuda-compile-error-quark'

KERNEL = '''
__global__ void scale(float *a, float f, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] *= f;
}
'''


def ptx_of(source, **kwargs):
    return compiler.compile(source, arch=ARCH, target='ptx', cache_dir=False, **kwargs).decode()


@nvrtc
def test_cubin_for_sm_90():
    cubin = compiler.compile(KERNEL, arch=ARCH, cache_dir=False)
    assert isinstance(cubin, bytes)
    assert cubin[:4] == b'\x7fELF'
    assert b'scale' in cubin  # extern "C": the plain name is the symbol
    program = compiler.compile_program(KERNEL, arch=ARCH, cache_dir=False)
    assert program.get_kind() == GCuda.ProgramKind.CUBIN
    assert program.get_arch() == ARCH
    assert not program.is_from_cache()


@nvrtc
def test_ptx_for_sm_90():
    ptx = ptx_of(KERNEL)
    assert '.target sm_90' in ptx
    assert '.entry scale(' in ptx
    program = compiler.compile_program(KERNEL, arch=ARCH, target='ptx', cache_dir=False)
    assert program.get_kind() == GCuda.ProgramKind.PTX


@nvrtc
def test_code_wins_over_arch_and_virtual_arch_gives_ptx():
    ptx = compiler.compile(KERNEL, arch='sm_80', code='compute_90', cache_dir=False).decode()
    assert '.target sm_90' in ptx and '.entry scale(' in ptx


@nvrtc
def test_no_extern_c_mangles():
    ptx = ptx_of(KERNEL, no_extern_c=True)
    assert '.entry _Z5scalePffi(' in ptx
    assert '.entry scale(' not in ptx


@nvrtc
def test_syntax_error_carries_the_log():
    source = KERNEL + '\n__global__ void broken(int *p) { p[0] = undeclared_identifier_xyz; }\n'
    with pytest.raises(GCuda.CompileError) as info:
        compiler.compile(source, arch=ARCH, cache_dir=False)
    e = info.value
    assert isinstance(e, GCuda.CudaError) and isinstance(e, GLib.Error)
    assert e.domain == COMPILE_DOMAIN
    assert e.code == int(GCuda.CompileError.COMPILATION) == 6
    assert 'undeclared_identifier_xyz' in e.message
    assert 'error' in e.message
    assert GCuda.error_category(e) == GCuda.ErrorCategory.COMPILE


@nvrtc
def test_bad_option_is_a_compile_error():
    with pytest.raises(GCuda.CompileError) as info:
        compiler.compile(KERNEL, arch=ARCH, cache_dir=False, options=['--no-such-nvrtc-option'])
    assert info.value.code in (int(GCuda.CompileError.INVALID_OPTION), int(GCuda.CompileError.COMPILATION))


@nvrtc
def test_options_reach_nvrtc_and_defaults_apply_only_without_options():
    source = '__global__ void k(int *out) { out[0] = VALUE; }'
    assert 'mov.u32' in ptx_of(source, options=['-DVALUE=918273'])
    assert '918273' in ptx_of(source, options=['-DVALUE=918273'])
    compiler.DEFAULT_NVCC_FLAGS.append('-DVALUE=564738')
    try:
        assert compiler.DEFAULT_NVCC_FLAGS is GCuda.DEFAULT_NVCC_FLAGS
        assert '564738' in ptx_of(source)
        assert '112233' in ptx_of(source, options=['-DVALUE=112233'])
    finally:
        compiler.DEFAULT_NVCC_FLAGS.remove('-DVALUE=564738')
    with pytest.raises(GCuda.CompileError):
        ptx_of(source)  # VALUE undefined again


@nvrtc
def test_name_expressions_for_templates():
    source = '''
    template <typename T>
    __global__ void axpy(T *y, const T *x, T a, int n)
    {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n)
        y[i] += a * x[i];
    }
    '''
    program = compiler.compile_program(source, arch=ARCH, target='ptx', no_extern_c=True, cache_dir=False,
                                       name_expressions=['axpy<float>', 'axpy<double>'])
    low_f = program.get_lowered_name('axpy<float>')
    low_d = program.get_lowered_name('axpy<double>')
    assert low_f.startswith('_Z') and low_d.startswith('_Z') and low_f != low_d
    ptx = program.get_image().get_data().decode()
    assert '.entry %s(' % low_f in ptx
    assert '.entry %s(' % low_d in ptx
    assert program.get_lowered_name('axpy<int>') is None


@nvrtc
def test_include_dirs_and_in_memory_headers(tmp_path):
    inc = tmp_path / 'inc'
    (inc / 'sub').mkdir(parents=True)
    (inc / 'sub' / 'on_disk.h').write_text('#define ON_DISK_VALUE 271828\n')
    source = '''
    #include "sub/on_disk.h"
    #include "in_memory.h"
    __global__ void k(int *out) { out[0] = ON_DISK_VALUE; out[1] = IN_MEMORY_VALUE; }
    '''
    program = compiler.compile_program(source, arch=ARCH, target='ptx', cache_dir=False, include_dirs=[inc],
                                       headers={'in_memory.h': '#define IN_MEMORY_VALUE 314159\n'})
    ptx = program.get_image().get_data().decode()
    assert '271828' in ptx and '314159' in ptx
    with pytest.raises(GCuda.CompileError) as info:
        compiler.compile(source, arch=ARCH, target='ptx', cache_dir=False, include_dirs=[str(inc)])
    assert 'in_memory.h' in info.value.message


@nvrtc
def test_keep_writes_the_files(capsys):
    program = compiler.compile_program(KERNEL, arch=ARCH, cache_dir=False, keep=True)
    out = capsys.readouterr().out
    assert program.keep_dir and program.keep_dir in out
    files = sorted(os.listdir(program.keep_dir))
    assert 'kernel.cu' in files and 'kernel.cubin' in files and 'kernel.log' in files
    with open(os.path.join(program.keep_dir, 'kernel.cu')) as f:
        assert 'void scale(float *a' in f.read()
    with open(os.path.join(program.keep_dir, 'kernel.cubin'), 'rb') as f:
        assert f.read() == program.get_image().get_data()


def test_target_must_be_cubin_or_ptx():
    with pytest.raises(GCuda.CudaError) as info:
        compiler.compile(KERNEL, arch=ARCH, target='fatbin')
    assert info.value.code == int(GCuda.Error.NOT_SUPPORTED)
    with pytest.raises(TypeError):
        compiler.compile(KERNEL, arch=ARCH, options='-O3')


# ---------------------------------------------------------------- the cache

CHILD = textwrap.dedent('''
    import hashlib, json, sys
    import gi
    gi.require_version('GCuda', '1.0')
    from gi.repository import GCuda
    from gcuda import compiler
    source, cache_dir, include_dir = sys.argv[1], sys.argv[2], sys.argv[3]
    program = compiler.compile_program(source, arch='sm_90', cache_dir=cache_dir,
                                       include_dirs=[include_dir] if include_dir else [])
    image = program.get_image().get_data()
    with open('/proc/self/maps') as maps:
        nvrtc_loaded = 'libnvrtc' in maps.read()
    print(json.dumps({'from_cache': program.is_from_cache(), 'nvrtc_loaded': nvrtc_loaded,
                      'sha256': hashlib.sha256(image).hexdigest(), 'elf': image[:4] == b'\\x7fELF'}))
''')


def spawn(source, cache_dir, include_dir=''):
    return subprocess.Popen([sys.executable, '-c', CHILD, source, str(cache_dir), str(include_dir)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def child(source, cache_dir, include_dir=''):
    """Compiles @source in a fresh Python (empty in-process cache)."""
    proc = spawn(source, cache_dir, include_dir)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


@pytest.fixture
def cache(tmp_path):
    """A cache directory GCuda creates (0700), whatever tmp_path's mode."""
    return tmp_path / 'gcuda-cache'


def entries(cache_dir):
    return sorted(glob.glob(os.path.join(str(cache_dir), '*.bin')))


def unique_source(tag):
    # A source no other test (or earlier run) has compiled.
    return KERNEL + '\n// %s %s\n' % (tag, os.urandom(8).hex())


@nvrtc
def test_cache_hit_in_a_fresh_process_does_not_load_nvrtc(cache):
    source = unique_source('fresh-process')
    cold = child(source, cache)
    assert not cold['from_cache'] and cold['elf']
    assert cold['nvrtc_loaded']  # the check below can fail: a compile does load NVRTC
    assert len(entries(cache)) == 1
    warm = child(source, cache)
    assert warm['from_cache']
    assert not warm['nvrtc_loaded']
    assert warm['sha256'] == cold['sha256']


@nvrtc
def test_cache_in_process(cache):
    source = unique_source('in-process')
    first = compiler.compile_program(source, arch=ARCH, cache_dir=str(cache))
    second = compiler.compile_program(source, arch=ARCH, cache_dir=str(cache))
    assert not first.is_from_cache() and second.is_from_cache()
    assert first.get_image().get_data() == second.get_image().get_data()
    other_arch = compiler.compile_program(source, arch='sm_80', cache_dir=str(cache))
    assert not other_arch.is_from_cache()
    assert len(entries(cache)) == 2


@nvrtc
def test_cache_disabled_stores_nothing(cache, monkeypatch):
    source = unique_source('disabled')
    monkeypatch.setenv('GCUDA_CACHE_DIR', str(cache))
    a = compiler.compile_program(source, arch=ARCH, cache_dir=False)
    b = compiler.compile_program(source, arch=ARCH, cache_dir=False)
    assert not a.is_from_cache() and not b.is_from_cache()
    assert entries(cache) == []


@nvrtc
def test_edited_header_invalidates(tmp_path):
    inc = tmp_path / 'inc'
    inc.mkdir()
    cache = tmp_path / 'cache'
    header = inc / 'value.h'
    source = '#include "value.h"\n__global__ void k(int *out) { out[0] = HEADER_VALUE; }\n// %s\n' % os.urandom(8).hex()

    def compile_ptx():
        program = compiler.compile_program(source, arch=ARCH, target='ptx', cache_dir=str(cache),
                                           include_dirs=[str(inc)])
        return program, program.get_image().get_data().decode()

    header.write_text('#define HEADER_VALUE 11111\n')
    first, ptx = compile_ptx()
    assert not first.is_from_cache() and '11111' in ptx
    again, ptx = compile_ptx()
    assert again.is_from_cache() and '11111' in ptx
    header.write_text('#define HEADER_VALUE 22222\n')  # same size, other content
    edited, ptx = compile_ptx()
    assert not edited.is_from_cache()
    assert '22222' in ptx and '11111' not in ptx
    # and a fresh process sees the edited header too
    # a fresh process with the header edited back misses too, then hits
    header.write_text('#define HEADER_VALUE 33333\n')
    assert not child(source, cache, inc)['from_cache']
    assert child(source, cache, inc)['from_cache']


@nvrtc
def test_corrupt_entry_is_recompiled(cache):
    source = unique_source('corrupt')
    cold = child(source, cache)
    (path,) = entries(cache)
    with open(path, 'r+b') as f:
        data = bytearray(f.read())
        data[-10:] = bytes(b ^ 0xff for b in data[-10:])  # inside the payload
        f.seek(0)
        f.write(data)
    recompiled = child(source, cache)
    assert not recompiled['from_cache']
    assert recompiled['elf'] and recompiled['sha256'] == cold['sha256']
    warm = child(source, cache)  # the entry was rewritten, valid
    assert warm['from_cache'] and warm['sha256'] == cold['sha256']
    assert entries(cache) == [path]


@nvrtc
def test_truncated_entry_is_recompiled(cache):
    source = unique_source('truncated')
    cold = child(source, cache)
    (path,) = entries(cache)
    with open(path, 'r+b') as f:
        f.truncate(os.path.getsize(path) // 2)
    recompiled = child(source, cache)
    assert not recompiled['from_cache'] and recompiled['sha256'] == cold['sha256']
    assert child(source, cache)['from_cache']


@nvrtc
def test_two_processes_compiling_at_once_leave_a_valid_entry(cache):
    # A source big enough that the two compiles overlap.
    body = '\n'.join('__global__ void k%d(float *a, int n) { int i = threadIdx.x; if (i < n) '
                     'a[i] = sinf(a[i]) * %d.0f + cosf(a[i] * %d.0f); }' % (i, i, i + 1) for i in range(60))
    source = unique_source('concurrent') + body
    procs = [spawn(source, cache) for _ in range(2)]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=180)
        assert proc.returncode == 0, err
        results.append(json.loads(out.strip().splitlines()[-1]))
    assert all(r['elf'] for r in results)
    assert results[0]['sha256'] == results[1]['sha256']
    files = os.listdir(cache)
    assert len(entries(cache)) == 1, files
    assert all(name.endswith('.bin') for name in files), files  # no temporary left over
    warm = child(source, cache)
    assert warm['from_cache'] and warm['sha256'] == results[0]['sha256']
    with open(entries(cache)[0], 'rb') as f:
        assert f.read(12) == b'GCUDA-CACHE\0'


LOWERED_CHILD = textwrap.dedent('''
    import json, sys
    import gi
    gi.require_version('GCuda', '1.0')
    from gi.repository import GCuda
    from gcuda import compiler
    source, cache_dir, names = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    program = compiler.compile_program(source, arch='sm_90', target='ptx', no_extern_c=True,
                                       cache_dir=cache_dir, name_expressions=names)
    print(json.dumps({'from_cache': program.is_from_cache(),
                      'lowered': [program.get_lowered_name(n) for n in names]}))
''')


@nvrtc
def test_lowered_names_with_tabs_survive_the_cache(cache):
    # NVRTC accepts blanks, tabs included, in a name expression; cache
    # format 1 stored "expression<TAB>lowered", and a hit lost those names.
    # (A newline NVRTC rejects: the cache's own tests store one anyway.)
    source = ('template <typename T> __global__ void f(T *p) { *p = 1; }\n'
              '__device__ int counter;\n// %s\n' % os.urandom(8).hex())
    names = ['f<\tint>', 'f<float>\t', 'f<\t\tdouble >', '&counter', 'f<char>']
    first = compiler.compile_program(source, arch=ARCH, target='ptx', no_extern_c=True,
                                     cache_dir=str(cache), name_expressions=names)
    assert not first.is_from_cache()
    lowered = [first.get_lowered_name(n) for n in names]
    assert all(lowered), lowered
    assert lowered[0] == first.get_lowered_name('f<\tint>') and lowered[0].startswith('_Z')
    assert lowered[3] == 'counter'
    # an in-process hit
    again = compiler.compile_program(source, arch=ARCH, target='ptx', no_extern_c=True,
                                     cache_dir=str(cache), name_expressions=names)
    assert again.is_from_cache()
    assert [again.get_lowered_name(n) for n in names] == lowered
    # a disk hit, in a fresh process
    proc = subprocess.run([sys.executable, '-c', LOWERED_CHILD, source, str(cache), json.dumps(names)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    warm = json.loads(proc.stdout.strip().splitlines()[-1])
    assert warm['from_cache']
    assert warm['lowered'] == lowered


@nvrtc
def test_symlinked_cache_dir_of_another_user_is_refused(tmp_path):
    # The audit's case: another user's symlink where the cache directory
    # should be, pointing at a private directory of the victim's.
    if os.geteuid() != 0:
        pytest.skip('needs root to make a symlink another user owns')
    victim = tmp_path / 'victim-ssh'
    victim.mkdir(mode=0o700)
    link = tmp_path / 'cache'
    link.symlink_to(victim)
    os.lchown(str(link), 65534, 65534)
    proc = spawn(unique_source('foreign-symlink'), link)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert not json.loads(out.strip().splitlines()[-1])['from_cache']
    assert 'symbolic link owned by another user' in err
    assert os.listdir(str(victim)) == []


# ---------------------------------------------------------------- without a driver

@nvrtc
def test_loading_needs_the_driver_and_says_so():
    cubin = compiler.compile(KERNEL, arch=ARCH, cache_dir=False)
    with pytest.raises(GCuda.RuntimeError) as info:
        GCuda.module_from_buffer(cubin)
    assert info.value.code == int(GCuda.Error.DRIVER_NOT_FOUND)
    with pytest.raises(GCuda.RuntimeError):
        compiler.SourceModule(KERNEL, arch=ARCH, cache_dir=False)
    with pytest.raises(GCuda.RuntimeError):
        compiler.DynamicModule()
    with pytest.raises(GCuda.RuntimeError):
        GCuda.Linker.new(None, None)


def test_jit_options():
    from gcuda._override import compiler as impl  # the conversion module_from_buffer() uses
    from gcuda import driver
    jit = impl._jit_options([('max_registers', 32), ('OPTIMIZATION-LEVEL', 2), (driver.jit_option.LOG_VERBOSE, True),
                             (driver.jit_option.INFO_LOG_BUFFER, 4096)])
    assert isinstance(jit, GCuda.JitOptions)
    assert jit.get_max_registers() == 32
    assert jit.get_optimization_level() == 2
    assert jit.get_log_verbose() is True
    assert impl._jit_options({'threads_per_block': 128}).get_threads_per_block() == 128
    assert impl._jit_options(jit) is jit and impl._jit_options(None) is None
    with pytest.raises(GCuda.LogicError) as info:
        GCuda.module_from_buffer(b'\x7fELF' + bytes(60), options=[('no_such_option', 1)])
    assert info.value.code == int(GCuda.Error.INVALID_ARGUMENT)
    assert 'no_such_option' in info.value.message
    with pytest.raises(TypeError):
        GCuda.module_from_buffer(b'\x7fELF' + bytes(60), options=[42])
    # out of the option's range: an error naming it, not a silently kept
    # default; checked by the library before the driver is needed (PTX text
    # passes the image check, so the options are what is refused)
    ptx = b'.version 8.0\n.target sm_90\n.address_size 64\n\0'
    for bad in ({'optimization_level': 9}, {'max_registers': 300}, {'threads_per_block': -1},
                {'threads_per_block': 2048}, {'optimization_level': -2}):
        with pytest.raises(GCuda.LogicError) as info:
            GCuda.module_from_buffer(ptx, options=bad)
        assert info.value.code == int(GCuda.Error.INVALID_ARGUMENT)
        key = next(iter(bad))
        assert key in info.value.message or key.replace('_', '-') in info.value.message
    # set directly, any value is kept; the load refuses it
    jit = GCuda.JitOptions(max_registers=1000)
    assert jit.get_max_registers() == 1000
    jit.props.threads_per_block = 5000
    assert jit.get_threads_per_block() == 5000
    with pytest.raises(GCuda.LogicError) as info:
        GCuda.Module.new_from_data(None, GLib.Bytes.new(ptx), jit)
    assert 'max-registers' in info.value.message and '255' in info.value.message


def test_kernel_classes_raise_gcuda_errors():
    # The generic wrapping covers the kernel classes: a GError comes out as
    # a GCuda.CudaError subclass.
    for name in ('Module', 'Function', 'Linker', 'Graph', 'GraphExec', 'JitOptions', 'LaunchConfig',
                 'Compiler', 'Program', 'KernelArgs'):
        assert getattr(GCuda, name).__module__ == 'gi.overrides.GCuda', name
    args = GCuda.KernelArgs.new()
    args.add_int32(1)
    with pytest.raises(GCuda.LogicError):
        args.set_int32(5, 1)
    config = GCuda.LaunchConfig.new()
    config.set_grid(2, 3, 4)
    assert tuple(config.get_grid()) == (2, 3, 4)


@nvrtc
def test_foreign_owned_entry_is_ignored(cache):
    if os.geteuid() != 0:
        pytest.skip('needs root to give an entry to another user')
    source = unique_source('foreign')
    cold = child(source, cache)
    (path,) = entries(cache)
    os.chown(path, 65534, 65534)
    assert not child(source, cache)['from_cache']  # not loaded: someone else's file
    warm = child(source, cache)
    assert warm['sha256'] == cold['sha256']


# ---------------------------------------------------------------- standard headers (NVRTC has none)

def build(source, **kwargs):
    """compile() with compile_program()'s arguments (headers=...): the image"""
    return compiler.compile_program(source, **kwargs).get_image().get_data()


STD_HEADERS = ['assert.h', 'cassert', 'float.h', 'cfloat', 'inttypes.h', 'cinttypes', 'limits.h', 'climits',
               'math.h', 'cmath', 'stddef.h', 'cstddef', 'stdint.h', 'cstdint', 'stdio.h', 'cstdio',
               'stdlib.h', 'cstdlib', 'string.h', 'cstring']

# What each one gives that a kernel can use (beside uint)
STD_USE = {
    'assert.h': 'assert(n > 0);',
    'float.h': 'float f = FLT_MAX * FLT_EPSILON + DBL_MIN; (void)f;',
    'inttypes.h': 'printf("%" PRId64 " %" PRIu32 "\\n", (int64_t)n, (uint32_t)n);',
    'limits.h': 'int m = INT_MAX - CHAR_BIT + SHRT_MIN; (void)m;',
    'math.h': 'float f = sqrtf((float)n) + (float)M_PI + (isinf(INFINITY) ? 1.0f : 0.0f); (void)f;',
    'stddef.h': 'size_t s = offsetof(int2, y) + sizeof(ptrdiff_t); (void)s;',
    'stdint.h': 'int64_t a = INT64_MAX; uint8_t b = UINT8_MAX; uintptr_t p = (uintptr_t)&a; (void)b; (void)p;',
    'stdio.h': 'printf("n=%u\\n", n);',
    'stdlib.h': 'void *m = malloc(16); free(m); int e = EXIT_SUCCESS + abs(-1); (void)e;',
    'string.h': 'char a[4], b[4] = {1, 2, 3, 4}; memcpy(a, b, 4); memset(b, 0, 4);',
    'cassert': 'assert(n > 0);',
    'cfloat': 'float f = FLT_MIN; (void)f;',
    'cinttypes': 'std::int64_t a = INT64_C(5); printf("%" PRIx64 "\\n", a);',
    'climits': 'long l = LONG_MAX; (void)l;',
    'cmath': 'float f = std::sqrt(2.0f) + std::abs(-1.5f) + std::floor(1.5f); bool b = std::isnan(f); (void)b;',
    'cstddef': 'std::size_t s = 1; std::ptrdiff_t d = 2; std::nullptr_t z = nullptr; (void)s; (void)d; (void)z;',
    'cstdint': 'std::uint64_t a = UINT64_MAX; std::int8_t b = INT8_MIN; (void)a; (void)b;',
    'cstdio': 'std::printf("n=%u\\n", n);',
    'cstdlib': 'void *m = std::malloc(16); std::free(m); long a = std::labs(-3L); (void)a;',
    'cstring': 'char a[4], b[4] = {1, 2, 3, 4}; std::memcpy(a, b, 4); std::memset(b, 0, 4);',
}


def std_source(names, body):
    return ''.join('#include <%s>\n' % n for n in names) + \
        '__global__ void k(uint n)\n{\n  uint u = n; (void)u;\n  %s\n}\n' % body


@pytest.mark.parametrize('name', STD_HEADERS)
@nvrtc
def test_std_header_compiles_alone(name):
    # under PyCUDA's extern "C" { } wrapping and without it, as nvcc compiles it
    for no_extern_c in (False, True):
        image = build(std_source([name], STD_USE[name]), arch=ARCH, cache_dir=False,
                                 no_extern_c=no_extern_c)
        assert image[:4] == b'\x7fELF'


@nvrtc
def test_std_headers_without_them_nvrtc_has_no_host_headers():
    # what the built-in headers are for: NVRTC alone finds no stdio.h
    with pytest.raises(GCuda.CompileError) as info:
        build('#include <gcuda_no_such_std_header.h>\n', arch=ARCH, cache_dir=False)
    assert 'gcuda_no_such_std_header.h' in info.value.message


def host_char_is_signed():
    import platform
    return platform.machine().lower() not in ('aarch64', 'arm64', 'armv7l', 'ppc64le', 'ppc64', 's390x')


def std_value_asserts():
    """static_asserts of the headers' values against the host's (what
    nvcc's host headers would give)."""
    import ctypes
    import math
    import numpy as np

    f32, f64 = np.finfo(np.float32), np.finfo(np.float64)
    char_signed = host_char_is_signed()
    checks = [
        ('CHAR_BIT', 8), ('SCHAR_MIN', -128), ('SCHAR_MAX', 127), ('UCHAR_MAX', 255),
        ('CHAR_MIN', -128 if char_signed else 0), ('CHAR_MAX', 127 if char_signed else 255),
        ('SHRT_MIN', int(np.iinfo(np.int16).min)), ('SHRT_MAX', int(np.iinfo(np.int16).max)),
        ('USHRT_MAX', int(np.iinfo(np.uint16).max)),
        ('INT_MIN', int(np.iinfo(np.intc).min)), ('INT_MAX', int(np.iinfo(np.intc).max)),
        ('UINT_MAX', int(np.iinfo(np.uintc).max)),
        ('LONG_MIN', -2 ** (8 * ctypes.sizeof(ctypes.c_long) - 1)),
        ('LONG_MAX', 2 ** (8 * ctypes.sizeof(ctypes.c_long) - 1) - 1),
        ('ULONG_MAX', 2 ** (8 * ctypes.sizeof(ctypes.c_ulong)) - 1),
        ('LLONG_MIN', int(np.iinfo(np.longlong).min)), ('LLONG_MAX', int(np.iinfo(np.longlong).max)),
        ('ULLONG_MAX', int(np.iinfo(np.ulonglong).max)),
        ('INT8_MIN', -128), ('INT16_MIN', -32768), ('INT32_MIN', -2 ** 31), ('INT64_MIN', -2 ** 63),
        ('INT8_MAX', 127), ('INT16_MAX', 32767), ('INT32_MAX', 2 ** 31 - 1), ('INT64_MAX', 2 ** 63 - 1),
        ('UINT8_MAX', 255), ('UINT16_MAX', 65535), ('UINT32_MAX', 2 ** 32 - 1), ('UINT64_MAX', 2 ** 64 - 1),
        ('INTPTR_MAX', 2 ** (8 * ctypes.sizeof(ctypes.c_void_p) - 1) - 1),
        ('UINTPTR_MAX', 2 ** (8 * ctypes.sizeof(ctypes.c_void_p)) - 1),
        ('SIZE_MAX', 2 ** (8 * ctypes.sizeof(ctypes.c_size_t)) - 1),
        ('PTRDIFF_MAX', 2 ** (8 * ctypes.sizeof(ctypes.c_ssize_t) - 1) - 1),
        ('INTMAX_MAX', 2 ** 63 - 1), ('UINTMAX_MAX', 2 ** 64 - 1),
        ('INT64_C(1)', 1), ('UINT64_C(18446744073709551615)', 2 ** 64 - 1),
        ('FLT_RADIX', 2), ('FLT_MANT_DIG', f32.nmant + 1), ('DBL_MANT_DIG', f64.nmant + 1),
        ('FLT_DIG', f32.precision), ('DBL_DIG', f64.precision),
        ('FLT_MAX_EXP', f32.maxexp), ('DBL_MAX_EXP', f64.maxexp),
        ('FLT_MIN_EXP', f32.minexp + 1), ('DBL_MIN_EXP', f64.minexp + 1),
        ('FLT_MAX_10_EXP', 38), ('DBL_MAX_10_EXP', 308), ('FLT_MIN_10_EXP', -37), ('DBL_MIN_10_EXP', -307),
    ]
    lines = ['static_assert(%s == %dLL || %s == %dULL, "%s");' % (name, value, name, value, name)
             if value >= 0 else 'static_assert(%s == %dLL, "%s");' % (name, value, name)
             for name, value in checks if abs(value) < 2 ** 63 or value < 0]
    lines += ['static_assert(%s == %dULL, "%s");' % (name, value, name)
              for name, value in checks if value >= 2 ** 63]
    floats = [
        ('FLT_MAX', float(f32.max)), ('FLT_MIN', float(f32.tiny)), ('FLT_EPSILON', float(f32.eps)),
        ('FLT_TRUE_MIN', float(f32.smallest_subnormal)),
        ('DBL_MAX', float(f64.max)), ('DBL_MIN', float(f64.tiny)), ('DBL_EPSILON', float(f64.eps)),
        ('DBL_TRUE_MIN', float(f64.smallest_subnormal)),
        ('M_PI', math.pi), ('M_E', math.e), ('M_SQRT2', math.sqrt(2)), ('M_LN2', math.log(2)),
        ('M_1_PI', 1 / math.pi), ('M_PI_2', math.pi / 2), ('M_LOG2E', 1 / math.log(2)),
    ]
    lines += ['static_assert(%s == %r, "%s");' % (name, value, name) for name, value in floats]
    sizes = [('char', 'c_char'), ('short', 'c_short'), ('int', 'c_int'), ('long', 'c_long'),
             ('long long', 'c_longlong'), ('size_t', 'c_size_t'), ('ptrdiff_t', 'c_ssize_t'),
             ('intptr_t', 'c_ssize_t'), ('void *', 'c_void_p'), ('wchar_t', 'c_wchar'),
             ('int8_t', 'c_int8'), ('int16_t', 'c_int16'), ('int32_t', 'c_int32'), ('int64_t', 'c_int64'),
             ('uint64_t', 'c_uint64'), ('intmax_t', 'c_int64')]
    lines += ['static_assert(sizeof(%s) == %d, "sizeof(%s)");' % (t, ctypes.sizeof(getattr(ctypes, c)), t)
              for t, c in sizes]
    # the same types as the host's headers: int64_t is long on LP64 Linux
    same = [('int64_t', 'long' if ctypes.c_int64 is ctypes.c_long else 'long long'),
            ('uint64_t', 'unsigned long' if ctypes.c_uint64 is ctypes.c_ulong else 'unsigned long long'),
            ('int32_t', 'int'), ('uint8_t', 'unsigned char'), ('int8_t', 'signed char'),
            ('uint', 'unsigned int'), ('ushort', 'unsigned short'), ('ulong', 'unsigned long'),
            ('std::int64_t', 'int64_t'), ('std::uint32_t', 'uint32_t'), ('std::size_t', 'size_t'),
            ('float_t', 'float'), ('double_t', 'double')]
    lines += ['static_assert(gcuda_same<%s, %s>::value, "%s is %s");' % (a, b, a, b) for a, b in same]
    lines += ['static_assert(sizeof(PRId64) == 3 && PRId64[0] == \'l\', "PRId64");',
              'static_assert(INFINITY > FLT_MAX && -INFINITY < -FLT_MAX, "INFINITY");',
              'static_assert(HUGE_VAL > DBL_MAX && HUGE_VALF == INFINITY, "HUGE_VAL");',
              'static_assert(NAN != NAN, "NAN");',
              'static_assert(offsetof(gcuda_pair, b) == 8, "offsetof");',
              'static_assert(EXIT_SUCCESS == 0 && EXIT_FAILURE == 1 && EOF == -1, "stdlib/stdio");']
    return '\n'.join(lines)


STD_VALUES_PRELUDE = '''
template <class A, class B> struct gcuda_same { static const bool value = false; };
template <class A> struct gcuda_same<A, A> { static const bool value = true; };
struct gcuda_pair { char a; double b; };
'''


@nvrtc
def test_std_headers_together_values_match_the_host():
    # every header at once, C and C++ names, included twice (guards), and
    # their values checked by NVRTC itself against the host's
    names = STD_HEADERS + STD_HEADERS
    source = ''.join('#include <%s>\n' % n for n in names) + STD_VALUES_PRELUDE + std_value_asserts() + '''
__global__ void k(float *out, uint n)
{
  uint i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = std::sqrt((float)i) + sqrtf(M_PI) + (float)INT8_MAX;
}
'''
    # no_extern_c: the templates above are C++
    ptx = build(source, arch='compute_90', target='ptx', cache_dir=False, no_extern_c=True).decode()
    assert '.entry' in ptx
    # under PyCUDA's extern "C" wrapping too (without the C++ helpers)
    build(''.join('#include <%s>\n' % n for n in names) + '__global__ void k(uint *o) { *o = UINT_MAX; }',
                     arch=ARCH, cache_dir=False)


@nvrtc
def test_std_header_values_are_checked():
    # the check above can fail: a wrong value is a compile error naming it
    with pytest.raises(GCuda.CompileError) as info:
        build('#include <climits>\nstatic_assert(INT_MAX == 32767, "INT_MAX");\n', arch=ARCH,
                         cache_dir=False)
    assert 'INT_MAX' in info.value.message


@nvrtc
def test_std_nan_and_infinity_are_glibc_constants():
    # folded into the image: the positive quiet NaN and the infinities, as
    # nvcc's host headers (__builtin_nanf, __builtin_inff) give them
    ptx = build('#include <math.h>\n__device__ float v[3] = { NAN, INFINITY, -HUGE_VALF };\n'
                           '__device__ double d = HUGE_VAL;\n', arch='compute_90', target='ptx',
                           cache_dir=False).decode()
    assert '.b8 v[12] = {0, 0, 192, 127, 0, 0, 128, 127, 0, 0, 128, 255}' in ptx
    assert '.f64 d = 0d7FF0000000000000' in ptx


@nvrtc
def test_std_assert_follows_ndebug():
    source = '#define NDEBUG\n#include <assert.h>\n__global__ void k(int *p) { assert(p == 0); *p = 1; }\n'
    ptx = build(source, arch='compute_90', target='ptx', cache_dir=False).decode()
    assert '__assertfail' not in ptx
    ptx = build(source.replace('#define NDEBUG\n', ''), arch='compute_90', target='ptx',
                           cache_dir=False).decode()
    assert '__assertfail' in ptx


@nvrtc
def test_user_header_wins_over_the_builtin_one(tmp_path):
    marker = '#ifndef USER_HEADER\n#error "the built-in header was used"\n#endif\n'
    no_marker = '#ifdef USER_HEADER\n#error "the user header was used"\n#endif\n'
    source = '#include <stdio.h>\n#include <cstdint>\n%s__global__ void k(int *p) { *p = USER_VALUE; }\n'
    # in memory
    ptx = build(source % marker, arch='compute_90', target='ptx', cache_dir=False,
                           headers={'stdio.h': '#define USER_HEADER\n#define USER_VALUE 5551\n'}).decode()
    assert '5551' in ptx
    # in an include dir (and the built-in one without it)
    (tmp_path / 'stdio.h').write_text('#define USER_HEADER\n#define USER_VALUE 5552\n')
    ptx = build(source % marker, arch='compute_90', target='ptx', cache_dir=False,
                           include_dirs=[str(tmp_path)]).decode()
    assert '5552' in ptx
    with pytest.raises(GCuda.CompileError):
        build(source % no_marker, arch=ARCH, cache_dir=False)  # no USER_VALUE: built-in
    build((source % no_marker).replace('USER_VALUE', 'INT32_MAX'), arch=ARCH, cache_dir=False)
    # through an -I option too
    ptx = build(source % marker, arch='compute_90', target='ptx', cache_dir=False,
                           options=['-I', str(tmp_path)]).decode()
    assert '5552' in ptx


@nvrtc
def test_user_header_created_later_changes_the_cached_program(tmp_path):
    # the cache key covers which stdio.h the compile takes
    inc = tmp_path / 'inc'
    inc.mkdir()
    source = ('#include <stdio.h>\n#ifndef USER_VALUE\n#define USER_VALUE 6661\n#endif\n'
              '__global__ void k(int *p) { *p = USER_VALUE; }\n// %s\n' % os.urandom(8).hex())

    def ptx():
        program = compiler.compile_program(source, arch='compute_90', target='ptx', cache_dir=str(tmp_path / 'c'),
                                           include_dirs=[str(inc)])
        return program.get_cache_key(), program.get_image().get_data().decode()

    key0, text = ptx()
    assert '6661' in text and len(key0) == 64
    (inc / 'stdio.h').write_text('#define USER_VALUE 6662\n')
    key1, text = ptx()
    assert key1 != key0 and '6662' in text


# ---------------------------------------------------------------- the in-process hit

@nvrtc
def test_program_cache_key(cache):
    source = unique_source('cache-key')
    a = compiler.compile_program(source, arch=ARCH, cache_dir=str(cache))
    b = compiler.compile_program(source, arch=ARCH, cache_dir=str(cache))
    c = compiler.compile_program(source, arch='sm_80', cache_dir=str(cache))
    assert len(a.get_cache_key()) == 64 and a.get_cache_key() == b.get_cache_key() != c.get_cache_key()
    assert b.is_from_cache()
    assert compiler.compile_program(source, arch=ARCH, cache_dir=False).get_cache_key() is None
    assert GCuda.Program().get_cache_key() is None


@nvrtc
def test_settings_are_not_mixed_up(cache):
    # compiles share compilers per settings: each must still get its own
    source = '#include "v.h"\n__global__ void k(int *p) { *p = V * OTHER; }\n// %s\n' % os.urandom(8).hex()
    seen = set()
    for v in (7771, 7772):
        for other in (1, 3):
            for directory in (str(cache), False):
                text = build(source, arch='compute_90', target='ptx', cache_dir=directory,
                                        headers={'v.h': '#define V %d\n' % v},
                                        options=['-DOTHER=%d' % other]).decode()
                assert str(v * other) in text
                seen.add(v * other)
    assert len(seen) == 4


@nvrtc
def test_edited_header_with_its_old_size_and_mtime_is_not_served_stale(tmp_path):
    # An in-place edit keeping the size, then the mtime set back (touch -d):
    # only the ctime changed. The in-process hit checks headers by stat()
    # and trusts only files older than 2 s (a file-system clock tick could
    # hide a quick edit), so the header is made old enough first.
    import time
    inc = tmp_path / 'inc'
    inc.mkdir()
    header = inc / 'value.h'
    header.write_text('#define HEADER_VALUE 11111\n')
    source = ('#include "value.h"\n__global__ void k(int *out) { out[0] = HEADER_VALUE; }\n// %s\n'
              % os.urandom(8).hex())

    def compile_ptx():
        program = compiler.compile_program(source, arch='compute_90', target='ptx', cache_dir=str(tmp_path / 'c'),
                                           include_dirs=[str(inc)])
        return program, program.get_image().get_data().decode()

    time.sleep(2.2)
    first, ptx = compile_ptx()
    assert not first.is_from_cache() and '11111' in ptx
    again, ptx = compile_ptx()
    assert again.is_from_cache() and '11111' in ptx
    before = os.stat(header)
    with open(header, 'r+') as f:
        f.write('#define HEADER_VALUE 22222\n')
    os.utime(header, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(header)
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (before.st_size, before.st_mtime_ns, before.st_ino)
    edited, ptx = compile_ptx()
    assert not edited.is_from_cache()
    assert '22222' in ptx and '11111' not in ptx
    # right after an edit too (the header is fresh: never memoized)
    with open(header, 'r+') as f:
        f.write('#define HEADER_VALUE 33333\n')
    os.utime(header, ns=(before.st_atime_ns, before.st_mtime_ns))
    _, ptx = compile_ptx()
    assert '33333' in ptx


@nvrtc
def test_state_free_cubins():
    from gcuda._override import compiler as impl
    free = {
        'plain': '__global__ void k(float *a) { a[0] = 1; }',
        'shared': '__global__ void k(float *a) { __shared__ float s[64]; s[threadIdx.x] = 1; '
                  '__syncthreads(); a[0] = s[3]; }',
        'dynamic shared': '__global__ void k(float *a) { extern __shared__ float s[]; s[threadIdx.x] = 1; '
                          '__syncthreads(); a[0] = s[3]; }',
        'printf': '#include <stdio.h>\n__global__ void k(float *a) { printf("%f\\n", a[0]); printf("x\\n"); }',
    }
    state = {
        'device': '__device__ int n; __global__ void k(float *a) { a[0] = n++; }',
        'static device': 'static __device__ int n; __global__ void k(float *a) { a[0] = n++; }',
        'initialized': '__device__ int n = 5; __global__ void k(float *a) { a[0] = n++; }',
        'constant': '__constant__ float c[4]; __global__ void k(float *a) { a[0] = c[1]; }',
        'const device': '__device__ const float t[4] = {1, 2, 3, 4}; __global__ void k(float *a, int i) '
                        '{ a[0] = t[i]; }',
        'function static': '__global__ void k(float *a) { static __device__ int n; a[0] = n++; }',
        'managed': '__managed__ int m; __global__ void k(float *a) { a[0] = m; }',
    }
    for name, source in list(free.items()) + list(state.items()):
        image = build(source, arch=ARCH, cache_dir=False)
        assert impl._state_free_cubin(image) is (name in free), name
    for junk in (b'', b'\x7fELF', b'\x7fELF' + bytes(60), b'// PTX\n.version 8.0\n', bytes(range(256)) * 4):
        assert impl._state_free_cubin(junk) is False


# ---------------------------------------------------------------- on a GPU

@gpu
@nvrtc
def test_std_headers_kernel_runs(capfd):
    import ctypes
    import numpy as np
    source = r'''
    #include <stdio.h>
    #include <math.h>
    #include <stdint.h>
    #include <climits>
    #include <cfloat>

    __global__ void k(float *out, int64_t *big, uint n)
    {
        uint i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) {
            out[i] = sqrtf((float)i) * (float)M_PI + FLT_EPSILON;
            big[i] = (int64_t)i * (int64_t)INT_MAX + INT64_C(1);
        }
        if (i == 7)
            printf("gcuda printf %u %d %.1f\n", i, INT_MIN, 2.5);
    }
    '''
    n = 1000
    mod = compiler.SourceModule(source, cache_dir=False)
    out = GCuda.to_device(np.zeros(n, np.float32))
    big = GCuda.to_device(np.zeros(n, np.int64))
    mod.get_function('k')(out, big, np.uint32(n), block=(128, 1, 1), grid=((n + 127) // 128, 1))
    GCuda.Context.get_default().synchronize()
    i = np.arange(n, dtype=np.float32)
    np.testing.assert_allclose(GCuda.from_device(out, n, np.float32),
                               np.sqrt(i) * np.float32(np.pi) + np.finfo(np.float32).eps, rtol=1e-6)
    np.testing.assert_array_equal(GCuda.from_device(big, n, np.int64),
                                  np.arange(n, dtype=np.int64) * np.iinfo(np.int32).max + 1)
    ctypes.CDLL(None).fflush(None)  # the driver writes printf's output with stdio
    assert 'gcuda printf 7 -2147483648 2.5' in capfd.readouterr().out


def test_source_module_memo_only_for_text_that_names_no_file():
    from gcuda._override import compiler as impl

    def key(source, options=(), headers=None):
        return (source, tuple(options), False, None, None, None, (),
                tuple((headers or {}).items()), (), 0, None, None)

    plain = '__global__ void k(int *o) { *o = 1; }'
    assert impl._memoizable(key(plain))
    assert impl._memoizable(key(plain, ['-DN=4'], {'a.h': '#define A 1'}))
    for source in ('#include <a.h>\n' + plain, '#  include "a.h"\n' + plain, '#inc\\\nlude "a.h"\n' + plain,
                   '#inc\\\r\nlude "a.h"\n' + plain, '#if __has_include("a.h")\n#endif\n' + plain,
                   '#import "a.h"\n' + plain, '#embed "a.h"\n' + plain, '??/\n' + plain):
        assert not impl._memoizable(key(source)), source
    assert not impl._memoizable(key(plain, ['-include=a.h']))
    assert not impl._memoizable(key(plain, ['--pre-include', 'a.h']))
    assert not impl._memoizable(key(plain, headers={'a.h': '#include "b.h"'}))


@gpu
@nvrtc
def test_source_module_repeated_is_a_lookup(tmp_path, monkeypatch):
    """The same source (naming no file) again: the module and program of the
    previous hit, the library not asked; one that includes a file is
    compiled again each time, and a header edit is seen."""
    import numpy as np
    from gcuda._override import compiler as impl
    cache = str(tmp_path / 'cache')
    value = int(np.random.randint(1, 1 << 20))
    source = '__global__ void k(int *o) { o[threadIdx.x] = %d + threadIdx.x; }' % value
    first = compiler.SourceModule(source, cache_dir=cache)
    second = compiler.SourceModule(source, cache_dir=cache)
    assert second is first and second.program.is_from_cache()
    compiles = []
    real_compile = impl.compile_program
    monkeypatch.setattr(impl, 'compile_program', lambda *a, **kw: compiles.append(a) or real_compile(*a, **kw))
    third = compiler.SourceModule(source, cache_dir=cache)
    assert third is first and third.program is second.program and compiles == []
    out = GCuda.to_device(np.zeros(32, np.int32))
    third.get_function('k')(out, block=(32, 1, 1))
    np.testing.assert_array_equal(GCuda.from_device(out, 32, np.int32), value + np.arange(32))
    # other options: another program
    other = compiler.SourceModule(source, options=['-DUNUSED=%d' % value], cache_dir=cache)
    assert other is not first and len(compiles) == 1

    headers = tmp_path / 'inc'
    headers.mkdir()
    (headers / 'value.h').write_text('#define VALUE %d\n' % value)
    included = '#include "value.h"\n__global__ void k(int *o) { o[threadIdx.x] = VALUE; }'
    for expected in (value, value, value + 1000000):
        if expected != value:
            (headers / 'value.h').write_text('#define VALUE %d\n' % expected)
        module = compiler.SourceModule(included, cache_dir=cache, include_dirs=[str(headers)])
        module.get_function('k')(out, block=(32, 1, 1))
        np.testing.assert_array_equal(GCuda.from_device(out, 32, np.int32), np.full(32, expected))
    assert len(compiles) == 4


@gpu
@nvrtc
def test_source_module_again_shares_the_loaded_module(tmp_path):
    import numpy as np
    cache = str(tmp_path / 'cache')
    source = '__global__ void k(int *o) { o[threadIdx.x] = %d + threadIdx.x; }' % int(np.random.randint(1, 1 << 20))
    first = compiler.SourceModule(source, cache_dir=cache)
    second = compiler.SourceModule(source, cache_dir=cache)
    assert second is first  # no second load of the same code
    assert second.program.is_from_cache()
    assert compiler.SourceModule(source, cache_dir=False) is not first  # no cache: a fresh load
    out = GCuda.to_device(np.zeros(32, np.int32))
    second.get_function('k')(out, block=(32, 1, 1))
    value = int(source.split('= ')[1].split(' ')[0])
    np.testing.assert_array_equal(GCuda.from_device(out, 32, np.int32), value + np.arange(32))

    # module-scope variables: each SourceModule() has its own
    stateful = '__device__ int counter; __global__ void bump(int *o) { o[0] = ++counter; } // %d' % value
    a = compiler.SourceModule(stateful, cache_dir=cache)
    b = compiler.SourceModule(stateful, cache_dir=cache)
    assert a is not b and b.program.is_from_cache()
    for mod, expected in ((a, 1), (a, 2), (b, 1)):
        mod.get_function('bump')(out, block=(1, 1, 1))
        assert int(GCuda.from_device(out, 1, np.int32)[0]) == expected


@nvrtc
def test_nvrtc_version_and_archs():
    version = GCuda.get_nvrtc_version()
    assert version >= 12000 and version % 10 == 0, version
    archs = GCuda.get_nvrtc_supported_archs()
    assert archs == sorted(set(archs)) and all(isinstance(a, int) and a >= 50 for a in archs), archs
    # each one listed compiles, the first and the last as a check
    for arch in (archs[0], archs[-1]):
        program = compiler.compile_program(KERNEL, arch='sm_%d' % arch, cache_dir=False)
        assert program.get_arch() == 'sm_%d' % arch


def test_nvrtc_version_without_nvrtc():
    code = textwrap.dedent('''
        import gi
        gi.require_version('GCuda', '1.0')
        from gi.repository import GCuda, GLib
        for call in (GCuda.get_nvrtc_version, GCuda.get_nvrtc_supported_archs):
            try:
                call()
            except GLib.Error as e:
                assert e.matches(GCuda.error_quark(), GCuda.Error.NVRTC_NOT_FOUND), e
                assert '/nonexistent/libnvrtc.so.13' in e.message, e.message
            else:
                raise AssertionError('no error')
        print('ok')
    ''')
    env = dict(os.environ, GCUDA_NVRTC_LIBRARY='/nonexistent/libnvrtc.so.13')
    done = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout == 'ok\n', done


# nvcc's pre-included headers give uint, ushort and ulong; sources written
# for nvcc (PyCUDA's among them) use them without an include.
NVCC_TYPES_KERNEL = r'''
__global__ void widen(ulong *out, const uint *a, const ushort *b, uint n)
{
    uint i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = (ulong) a[i] * (ulong) b[i] + (ulong) sizeof(ushort) + 10ul * sizeof(ulong);
}
'''


@nvrtc
@pytest.mark.parametrize('no_extern_c', [False, True])
def test_nvcc_typedefs_without_includes(no_extern_c):
    name = 'widen' if not no_extern_c else '_Z5widenPmPKjPKtj'
    ptx = ptx_of(NVCC_TYPES_KERNEL, no_extern_c=no_extern_c)
    # the parameter types as nvcc gives them: 64-bit ulong, 32-bit uint
    assert '.entry %s(' % name in ptx, ptx
    # declared again by the source, as the same types: still compiles
    again = ('typedef unsigned int uint;\ntypedef unsigned short ushort;\n'
             'typedef unsigned long ulong;\nusing uint = unsigned int;\n')
    assert '.entry %s(' % name in ptx_of(again + NVCC_TYPES_KERNEL, no_extern_c=no_extern_c)
    # with the built-in standard headers, which declare them too
    assert '.entry %s(' % name in ptx_of('#include <stdint.h>\n#include <cstdio>\n' + NVCC_TYPES_KERNEL,
                                          no_extern_c=no_extern_c)
    # the line numbers of the log are still the source's own
    with pytest.raises(GLib.Error) as info:
        ptx_of('__global__ void k(uint *o)\n{\n  o[0] = undeclared;\n}\n', no_extern_c=no_extern_c)
    assert 'kernel.cu(3)' in info.value.message, info.value.message


@nvrtc
def test_nvcc_typedefs_yield_to_a_macro_and_clash_as_under_nvcc():
    # a macro of the same name wins (no typedef of a macro's expansion)
    assert '.entry k(' in ptx_of('__global__ void k(uint *o) { o[0] = 1; }', options=['-Duint=unsigned'])
    # another type under the same name is an error, as it is with nvcc
    with pytest.raises(GLib.Error) as info:
        ptx_of('typedef int uint;\n__global__ void k(uint *o) { o[0] = 1; }')
    assert info.value.domain == COMPILE_DOMAIN
    assert 'uint' in info.value.message


@gpu
@nvrtc
def test_nvcc_typedefs_kernel_runs():
    import numpy as np
    gen = np.random.default_rng()
    n = 1000
    a = gen.integers(0, 1 << 32, n, dtype=np.uint32)
    b = gen.integers(0, 1 << 16, n, dtype=np.uint16)
    mod = compiler.SourceModule(NVCC_TYPES_KERNEL, cache_dir=False)
    out = np.zeros(n, np.uint64)
    mod.get_function('widen')(GCuda.Out(out), GCuda.In(a), GCuda.In(b), np.uint32(n),
                              block=(128, 1, 1), grid=((n + 127) // 128, 1))
    np.testing.assert_array_equal(out, a.astype(np.uint64) * b.astype(np.uint64) + 2 + 80)


# An architecture among the NVRTC options decides what is made, as arch=
# does: PyCUDA programs pass options=['-arch=compute_90'] and expect PTX.
@nvrtc
@pytest.mark.parametrize('options, arch', [
    (['-arch=compute_80'], 'compute_80'),
    (['--gpu-architecture=compute_86'], 'compute_86'),
    (['-arch', 'compute_80'], 'compute_80'),
    (['--gpu-architecture', 'compute_90'], 'compute_90'),
    (['-arch compute_80'], 'compute_80'),
    (['-use_fast_math', '-arch=compute_75', '-DN=4', '-arch=compute_80'], 'compute_80'),  # the last one
    (['-arch=sm_80'], 'sm_80'),
    (['--gpu-architecture', 'sm_86'], 'sm_86'),
])
def test_arch_option_decides_what_is_made(options, arch):
    # no arch=, no driver here: the option alone says what to make
    program = compiler.compile_program(KERNEL, options=options, cache_dir=False)
    assert program.get_arch() == arch
    image = program.get_image().get_data()
    if arch.startswith('compute_'):
        assert program.get_kind() == GCuda.ProgramKind.PTX
        assert ('.target sm_%s' % arch[len('compute_'):]).encode() in image
    else:
        assert program.get_kind() == GCuda.ProgramKind.CUBIN
        assert image[:4] == b'\x7fELF'
        # the same architecture given as arch= makes the same cubin
        assert image == compiler.compile(KERNEL, arch=arch, cache_dir=False)


@nvrtc
def test_arch_option_agrees_with_arch_or_is_refused():
    # the same architecture twice is fine
    program = compiler.compile_program(KERNEL, arch='compute_80', options=['-arch=compute_80'], cache_dir=False)
    assert program.get_kind() == GCuda.ProgramKind.PTX
    for kwargs, setting in (({'arch': 'sm_90'}, 'arch (sm_90)'),
                            ({'arch': 'compute_90', 'code': 'sm_90'}, 'code (sm_90)')):
        with pytest.raises(GLib.Error) as info:
            compiler.compile(KERNEL, options=['-arch=compute_80'], cache_dir=False, **kwargs)
        e = info.value
        assert e.matches(GCuda.error_quark(), GCuda.Error.INVALID_ARGUMENT), e
        assert e.message == ('The NVRTC option “-arch=compute_80” names another architecture than the '
                             'compiler’s %s: give the architecture once, as the compiler’s arch (arch= in '
                             'Python) or as the option' % setting), e.message
    for options in (['-arch='], ['--gpu-architecture=']):
        with pytest.raises(GLib.Error) as info:
            compiler.compile(KERNEL, options=options, cache_dir=False)
        assert info.value.matches(GCuda.error_quark(), GCuda.Error.INVALID_ARGUMENT)
        assert 'names no architecture' in info.value.message


@nvrtc
def test_arch_option_is_in_the_cache_key(cache):
    ptx = {}
    for arch in ('compute_80', 'compute_90', 'compute_80'):
        program = compiler.compile_program(KERNEL, options=['-arch=%s' % arch], cache_dir=str(cache))
        assert program.get_arch() == arch
        ptx.setdefault(arch, []).append((program.is_from_cache(), program.get_cache_key(),
                                         program.get_image().get_data()))
    (miss, key80, image80), (hit, key80_again, image80_again) = ptx['compute_80']
    [(miss90, key90, image90)] = ptx['compute_90']
    assert not miss and not miss90 and hit
    assert key80 != key90 and key80 == key80_again and image80 == image80_again
    assert b'.target sm_80' in image80 and b'.target sm_90' in image90
    # arch= and the same option make the same entry
    assert compiler.compile_program(KERNEL, arch='compute_90', cache_dir=str(cache)).get_cache_key() == key90


# NVRTC's front end, in the first compile of a process, used to set SIGINT
# and SIGTERM to a handler of its own (which exits) while it parsed. A
# GLib.MainLoop.run() that started meanwhile raised AssertionError: PyGObject
# checks that SIGINT is still Python's handler. GCuda keeps NVRTC from
# touching dispositions (tests/c/test-compiler.c shows all of it); here, in a
# fresh process, main loops run again and again on the main thread while the
# first compile (a long parse: many device functions no kernel calls)
# runs on a worker, and a Ctrl-C after it still reaches Python.
@nvrtc
def test_main_loop_during_first_compile():
    child = textwrap.dedent('''
        import signal, sys, threading
        # Python's own handler even where SIGINT came ignored (a job started
        # in the background), before PyGObject notes it at import
        signal.signal(signal.SIGINT, signal.default_int_handler)
        import gi
        gi.require_version('GCuda', '1.0')
        from gi.repository import GCuda, GLib
        source = ''.join('static __device__ int unused_%d(int x) { return x * %d + 1; }\\n' % (i, i) for i in range(3000))
        source += '__global__ void k(int *p) { p[0] = 1; }\\n'
        c = GCuda.Compiler.new(None)
        c.set_arch('sm_90')
        c.set_cache_dir('')
        done = []
        t = threading.Thread(target=lambda: done.append(c.compile(source)))
        t.start()
        runs = 0
        while t.is_alive():
            loop = GLib.MainLoop()
            GLib.idle_add(loop.quit)
            loop.run()  # raised AssertionError in NVRTC's window
            runs += 1
        t.join()
        assert done and done[0].get_image().get_size() > 0
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        try:
            signal.raise_signal(signal.SIGINT)
        except KeyboardInterrupt:
            print('runs', runs, 'interrupted')
    ''')
    out = subprocess.run([sys.executable, '-c', child], capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, out.stderr[-3000:]
    words = out.stdout.split()
    assert words[0] == 'runs' and int(words[1]) > 0 and words[2] == 'interrupted', out.stdout
