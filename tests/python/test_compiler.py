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


def test_cubin_for_sm_90():
    cubin = compiler.compile(KERNEL, arch=ARCH, cache_dir=False)
    assert isinstance(cubin, bytes)
    assert cubin[:4] == b'\x7fELF'
    assert b'scale' in cubin  # extern "C": the plain name is the symbol
    program = compiler.compile_program(KERNEL, arch=ARCH, cache_dir=False)
    assert program.get_kind() == GCuda.ProgramKind.CUBIN
    assert program.get_arch() == ARCH
    assert not program.is_from_cache()


def test_ptx_for_sm_90():
    ptx = ptx_of(KERNEL)
    assert '.target sm_90' in ptx
    assert '.entry scale(' in ptx
    program = compiler.compile_program(KERNEL, arch=ARCH, target='ptx', cache_dir=False)
    assert program.get_kind() == GCuda.ProgramKind.PTX


def test_code_wins_over_arch_and_virtual_arch_gives_ptx():
    ptx = compiler.compile(KERNEL, arch='sm_80', code='compute_90', cache_dir=False).decode()
    assert '.target sm_90' in ptx and '.entry scale(' in ptx


def test_no_extern_c_mangles():
    ptx = ptx_of(KERNEL, no_extern_c=True)
    assert '.entry _Z5scalePffi(' in ptx
    assert '.entry scale(' not in ptx


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


def test_bad_option_is_a_compile_error():
    with pytest.raises(GCuda.CompileError) as info:
        compiler.compile(KERNEL, arch=ARCH, cache_dir=False, options=['--no-such-nvrtc-option'])
    assert info.value.code in (int(GCuda.CompileError.INVALID_OPTION), int(GCuda.CompileError.COMPILATION))


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


def test_cache_in_process(cache):
    source = unique_source('in-process')
    first = compiler.compile_program(source, arch=ARCH, cache_dir=str(cache))
    second = compiler.compile_program(source, arch=ARCH, cache_dir=str(cache))
    assert not first.is_from_cache() and second.is_from_cache()
    assert first.get_image().get_data() == second.get_image().get_data()
    other_arch = compiler.compile_program(source, arch='sm_80', cache_dir=str(cache))
    assert not other_arch.is_from_cache()
    assert len(entries(cache)) == 2


def test_cache_disabled_stores_nothing(cache, monkeypatch):
    source = unique_source('disabled')
    monkeypatch.setenv('GCUDA_CACHE_DIR', str(cache))
    a = compiler.compile_program(source, arch=ARCH, cache_dir=False)
    b = compiler.compile_program(source, arch=ARCH, cache_dir=False)
    assert not a.is_from_cache() and not b.is_from_cache()
    assert entries(cache) == []


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


def test_truncated_entry_is_recompiled(cache):
    source = unique_source('truncated')
    cold = child(source, cache)
    (path,) = entries(cache)
    with open(path, 'r+b') as f:
        f.truncate(os.path.getsize(path) // 2)
    recompiled = child(source, cache)
    assert not recompiled['from_cache'] and recompiled['sha256'] == cold['sha256']
    assert child(source, cache)['from_cache']


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
