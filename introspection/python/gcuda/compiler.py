# PyCUDA's `pycuda.compiler` names, backed by GCuda: NVRTC compiles in
# process (no nvcc; the `nvcc` arguments are accepted and ignored), with
# GCuda's compile cache (keyed over the source, the options, NVRTC and every
# header the compile can read).
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda  # noqa: E402

SourceModule = GCuda.SourceModule
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
