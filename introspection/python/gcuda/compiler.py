# PyCUDA's `pycuda.compiler` names, backed by GCuda: NVRTC compiles in
# process (no nvcc; the `nvcc` arguments are accepted and ignored), with
# GCuda's compile cache (keyed over the source, the options, NVRTC and every
# header the compile can read).
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda  # noqa: E402

DynamicModule = GCuda.DynamicModule
CompileError = GCuda.CompileError

# The same list as GCuda.DEFAULT_NVCC_FLAGS: modify it in place.
DEFAULT_NVCC_FLAGS = GCuda.DEFAULT_NVCC_FLAGS


def compile(source, nvcc='nvcc', options=None, keep=False, no_extern_c=False, arch=None,  # noqa: A001
            code=None, cache_dir=None, include_dirs=[], target='cubin'):
    """Compiles as SourceModule() does and returns the cubin (or, with
    target="ptx", the PTX) as bytes, without loading it. With an explicit
    @arch (such as "sm_90") no GPU or driver is needed."""
    program = GCuda.compile_program(source, options=options, keep=keep, no_extern_c=no_extern_c, arch=arch,
                                    code=code, cache_dir=cache_dir, include_dirs=include_dirs, target=target)
    return program.get_image().get_data()


def compile_program(source, **kwargs):
    """compile() keeping the GCuda.Program: its image, kind, log, lowered
    names (name_expressions=[…]) and whether it came from the cache.
    Also takes headers={name: text} and context=."""
    return GCuda.compile_program(source, **kwargs)


def _command_line(options, arch=None):
    # CompileError.command_line: what NVRTC was asked, as a command line
    return ' '.join(['nvrtc'] + (['-arch=%s' % arch] if arch else []) +
                    list(DEFAULT_NVCC_FLAGS if options is None else options))


def SourceModule(source, nvcc='nvcc', options=None, keep=False, no_extern_c=False, arch=None,  # noqa: N802
                 code=None, cache_dir=None, include_dirs=[], **kwargs):
    """PyCUDA's ``SourceModule``: GCuda.SourceModule() (NVRTC, in process),
    whose CompileError also carries ``command_line``."""
    try:
        return GCuda.SourceModule(source, nvcc=nvcc, options=options, keep=keep, no_extern_c=no_extern_c,
                                  arch=arch, code=code, cache_dir=cache_dir, include_dirs=include_dirs, **kwargs)
    except CompileError as e:
        if e.command_line is None:
            e.command_line = _command_line(options, arch)
        raise


class DynamicSourceModule(DynamicModule):
    """PyCUDA's ``DynamicSourceModule``: @source compiled as relocatable
    device code (-rdc=true) and linked with the device runtime library
    (cudadevrt) at once, so its kernels can launch kernels (dynamic
    parallelism). The arguments are SourceModule's; get_function(),
    get_global() work on the linked module."""

    def __init__(self, source, nvcc='nvcc', options=None, keep=False, no_extern_c=False, arch=None, code=None,
                 cache_dir=None, include_dirs=[], cuda_libdir=None, context=None):
        super().__init__(nvcc=nvcc, link_options=None, keep=keep, no_extern_c=no_extern_c, arch=arch, code=code,
                         cache_dir=cache_dir, include_dirs=include_dirs, cuda_libdir=cuda_libdir,
                         context=context)
        options = list(DEFAULT_NVCC_FLAGS if options is None else options)
        options = options + ['-rdc=true', '-lcudadevrt']
        try:
            self.add_source(source, nvcc_options=options)
        except CompileError as e:
            if e.command_line is None:
                e.command_line = _command_line(options, arch)
            raise
        self.add_stdlib('cudadevrt')
        self.link()
