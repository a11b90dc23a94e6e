# The compiler (NVRTC, no driver): sources that do not compile, bad options
# and architectures, include directories, headers, name expressions, targets,
# keep and cache directories. Every case names its architecture (ARCH), so
# none needs a device, but the linker's (a context).
#
# SPDX-License-Identifier: LGPL-2.1-or-later

from . import GPU, NODRIVER, accepted, case, err, gerror, nvrtc, raises

_OK = '__global__ void k(float *a) { a[threadIdx.x] = 1.0f; }'


def _compile(source=repr(_OK), **kwargs):
    args = ''.join(', %s=%s' % kv for kv in kwargs.items())
    return 'compiler.compile(%s, arch=ARCH, cache_dir=False%s)' % (source, args)


# ---------------------------------------------------------------- sources

case('compiler/syntax-error', _compile(repr('__global__ void k( {')), nvrtc('COMPILATION'), NODRIVER)
case('compiler/undeclared-identifier', _compile(repr('__global__ void k() { nope = 1; }')), nvrtc('COMPILATION'),
     NODRIVER)
case('compiler/host-code-only-error', _compile(repr('int main() { return undefined_function(); }')),
     nvrtc('COMPILATION'), NODRIVER)
case('compiler/error-directive', _compile(repr('#error stop here\n')), nvrtc('COMPILATION'), NODRIVER)
case('compiler/missing-include', _compile(repr('#include "no-such-header.h"\n' + _OK)), nvrtc('COMPILATION'),
     NODRIVER)
case('compiler/empty-source', "assert len(%s) > 0" % _compile("''"),
     accepted('an empty translation unit is valid C++: an image with no kernels'), NODRIVER)
case('compiler/source-none', _compile('None'), raises('TypeError'), NODRIVER)
case('compiler/source-bytes', _compile(repr(_OK.encode())), raises('TypeError'), NODRIVER)
case('compiler/source-int', _compile('42'), raises('TypeError'), NODRIVER)
case('compiler/compile-error-class', 'try:\n    %s\nexcept GCuda.CompileError:\n    raise\n' % _compile(repr('!')),
     nvrtc('COMPILATION'), NODRIVER)

# ---------------------------------------------------------------- options and architectures

case('compiler/unknown-option', _compile(options="['--no-such-nvrtc-option']"), nvrtc('INVALID_OPTION'), NODRIVER)
# GCuda adds its include directories and --gpu-architecture after the
# caller's options: a last option still waiting for its value would take
# them (a trailing -I took the architecture: PTX for NVRTC's default sm_75
# and an empty cubin, returned as success), so GCuda refuses it
case('compiler/option-missing-value', _compile(options="['-D']"), err('INVALID_ARGUMENT'), NODRIVER)
case('compiler/trailing-option-ptx',
     "compiler.compile_program(%r, arch=ARCH, cache_dir=False, options=['-I'], target='ptx')" % _OK,
     err('INVALID_ARGUMENT'), NODRIVER)
case('compiler/trailing-option-cubin', _compile(options="['-O3', '--include-path']"), err('INVALID_ARGUMENT'),
     NODRIVER)
case('compiler/trailing-option-with-include-dirs', _compile(options="['-Xptxas']", include_dirs="['/usr/include']"),
     err('INVALID_ARGUMENT'), NODRIVER)
# a linker needs a context
case('compiler/trailing-option-relocatable', "compiler.DynamicModule(cache_dir=False).add_source(%r, "
     "nvcc_options=['-I'])" % _OK, err('INVALID_ARGUMENT'), GPU)
case('compiler/trailing-option-in-default-flags', "os.environ['GCUDA_DEFAULT_NVRTC_FLAGS'] = '-I'\n" + _compile(),
     err('INVALID_ARGUMENT'), NODRIVER)
case('compiler/separate-option-value',
     "p = compiler.compile_program(%r, arch=ARCH, cache_dir=False, options=['-I', '/nonexistent'], target='ptx')\n"
     "assert '.target sm_90' in p.get_image().get_data().decode() and p.get_arch() == ARCH" % _OK,
     accepted('an option with its value as the next option works: the architecture asked is still the one used'),
     NODRIVER)
case('compiler/arch-among-options',
     "compiler.compile_program(%r, arch=ARCH, cache_dir=False, options=['-arch=sm_80'], target='ptx')" % _OK,
     err('INVALID_ARGUMENT'), NODRIVER)
case('compiler/arch-option-alone',
     "p = compiler.compile_program(%r, cache_dir=False, options=['-arch=compute_80'])\n"
     "assert '.target sm_80' in p.get_image().get_data().decode() and p.get_arch() == 'compute_80'" % _OK,
     accepted('an architecture among the options is the one made (PTX for compute_80), with no driver'),
     NODRIVER)
case('compiler/options-string', _compile(options="'-O3'"), raises('TypeError'), NODRIVER)
case('compiler/options-not-strings', _compile(options='[3]'), raises('TypeError'), NODRIVER)
case('compiler/arch-unknown', "compiler.compile(%r, arch='sm_1', cache_dir=False)" % _OK, nvrtc('INVALID_OPTION'),
     NODRIVER)
case('compiler/arch-garbage', "compiler.compile(%r, arch='bogus', cache_dir=False)" % _OK, nvrtc('INVALID_OPTION'),
     NODRIVER)
case('compiler/arch-with-space', "compiler.compile(%r, arch='sm_90 -G', cache_dir=False)" % _OK,
     nvrtc('INVALID_OPTION'), NODRIVER)
case('compiler/code-unknown', _compile(code="'compute_1'"), nvrtc('INVALID_OPTION'), NODRIVER)
case('compiler/target-fatbin', _compile(target="'fatbin'"), err('NOT_SUPPORTED'), NODRIVER)
case('compiler/target-none', _compile(target='None'), err('NOT_SUPPORTED'), NODRIVER)
case('compiler/default-flags-unparsable', "os.environ['GCUDA_DEFAULT_NVRTC_FLAGS'] = \"'unterminated\"\n"
     + _compile(), err('INVALID_ARGUMENT'), NODRIVER)
case('compiler/default-flags-unknown-option', "os.environ['GCUDA_DEFAULT_NVRTC_FLAGS'] = '--no-such-flag'\n"
     + _compile(), nvrtc('INVALID_OPTION'), NODRIVER)

# ---------------------------------------------------------------- include directories and headers

case('compiler/include-dir-missing', 'assert %s' % _compile(include_dirs="['/nonexistent/gcuda-include']"),
     accepted('NVRTC, as nvcc, skips an include directory that does not exist; only an #include it '
              'would have served fails'), NODRIVER)
case('compiler/include-dir-missing-needed',
     _compile(repr('#include "only-there.h"\n' + _OK), include_dirs="['/nonexistent/gcuda-include']"),
     nvrtc('COMPILATION'), NODRIVER)
case('compiler/include-dir-is-a-file', 'assert %s' % _compile(include_dirs="['/etc/passwd']"),
     accepted('a file given as an include directory serves no header: skipped as a missing one'), NODRIVER)
case('compiler/include-dirs-string', _compile(include_dirs="'/usr/include'"), raises('TypeError'), NODRIVER)
case('compiler/include-dir-with-nul', _compile(include_dirs="['/usr/include\\0/etc']"), raises('ValueError'),
     NODRIVER)
case('compiler/include-dirs-path', "import pathlib\n" + _compile(include_dirs="pathlib.Path('/usr/include')"),
     raises('TypeError'), NODRIVER)
case('compiler/include-dirs-not-paths', _compile(include_dirs='[3]'), raises('TypeError'), NODRIVER)
case('compiler/header-not-text',
     "compiler.compile_program(%r, arch=ARCH, cache_dir=False, headers={'a.h': 3})" % _OK,
     raises('TypeError'), NODRIVER)
case('compiler/header-with-error',
     "compiler.compile_program('#include \"a.h\"\\n' + %r, arch=ARCH, cache_dir=False, headers={'a.h': 'int x = ;'})"
     % _OK, nvrtc('COMPILATION'), NODRIVER)

# ---------------------------------------------------------------- name expressions

_TEMPLATE = 'template <typename T> __global__ void t(T *a) { a[0] = T(); }'
case('compiler/name-expression-unknown',
     'compiler.compile_program(%r, arch=ARCH, cache_dir=False, no_extern_c=True, name_expressions=["nope<int>"])'
     % _TEMPLATE, nvrtc('COMPILATION'), NODRIVER)
case('compiler/name-expression-empty',
     'compiler.compile_program(%r, arch=ARCH, cache_dir=False, no_extern_c=True, name_expressions=[""])' % _TEMPLATE,
     nvrtc('COMPILATION'), NODRIVER)
case('compiler/name-expressions-string',
     'compiler.compile_program(%r, arch=ARCH, cache_dir=False, no_extern_c=True, name_expressions="t<int>")'
     % _TEMPLATE, raises('TypeError'), NODRIVER)
case('compiler/lowered-name-not-asked',
     'p = compiler.compile_program(%r, arch=ARCH, cache_dir=False, no_extern_c=True, name_expressions=["t<int>"])\n'
     'assert p.get_lowered_name("t<float>") is None' % _TEMPLATE,
     accepted('gcuda_program_get_lowered_name() documents NULL for an expression the compile was not given'),
     NODRIVER)

# ---------------------------------------------------------------- keep and cache directories

# keeping is part of the compile: a directory that cannot be made is its error
case('compiler/keep-under-a-file', _compile(keep="'/etc/passwd/kept'"), gerror('g-file-error-quark', 5), NODRIVER)
case('compiler/keep-is-a-file', _compile(keep="f.name"), gerror('g-file-error-quark', 5), NODRIVER,
     setup="import tempfile\nf = tempfile.NamedTemporaryFile()")
case('compiler/cache-dir-under-a-file', "assert compiler.compile(%r, arch=ARCH, cache_dir='/etc/passwd/cache')" % _OK,
     accepted('the compile cache is an optimization: a cache directory that cannot be made is not used'), NODRIVER)
case('compiler/cache-dir-not-a-path', _compile().replace('cache_dir=False', 'cache_dir=3'), raises('TypeError'),
     NODRIVER)
