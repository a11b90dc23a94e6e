# SPDX-License-Identifier: LGPL-2.1-or-later
"""Device code: GCuda.Module as PyCUDA's Module, loading images with JIT
options (module_from_buffer(), module_from_file()), and compiling with
NVRTC as pycuda.compiler does (SourceModule(), DynamicModule(),
compile_program())."""

import os
import struct
import tempfile
import threading
import weakref

from gi.module import get_introspection_module
from gi.repository import GLib

from . import OVERRIDE_MODULE
from .errors import _library_error, _raising
from .views import _as_gbytes

GCuda = get_introspection_module('GCuda')

__all__ = ['module_from_buffer', 'module_from_file', 'DEFAULT_NVCC_FLAGS', 'compile_program', 'SourceModule',
           'DynamicModule']


class Module(GCuda.Module):
    """Loaded device code (PyCUDA's ``Module``; SourceModule() gives one):
    get_function(name), get_global(name) -> (buffer, size)."""

    __module__ = OVERRIDE_MODULE

    def __repr__(self):
        return '<GCuda.Module%s>' % (' (%s)' % self.keep_dir if getattr(self, 'keep_dir', None) else '')

    def get_function(self, name):
        """The kernel @name (the same object every time; a name expression
        given to SourceModule(name_expressions=…) finds its lowered name)."""
        # the library gives the same object while it lives (it holds it
        # weakly): so does this cache, which makes a lookup in a loop cost a
        # dictionary lookup (a strong one would make a cycle through the
        # function's reference to its module, which no collector sees)
        functions = self.__dict__.get('_gcuda_functions')
        if functions is not None:
            ref = functions.get(name)
            function = ref() if ref is not None else None
            if function is not None:
                return function
        function = self._get_function(name)
        if functions is None:
            functions = self._gcuda_functions = {}
        if isinstance(name, str):
            if len(functions) >= 4096:
                functions.clear()
            functions[name] = weakref.ref(function)
        return function

    @_raising
    def _get_function(self, name):
        lowered = self.__dict__.get('_gcuda_lowered')
        if lowered:
            name = lowered.get(name, name)
        return GCuda.Module.get_function(self, name)

    def get_lowered_name(self, name_expression):
        """The mangled name of a name expression given to SourceModule()."""
        lowered = self.__dict__.get('_gcuda_lowered') or {}
        if name_expression not in lowered:
            raise _library_error(GCuda.Error.INVALID_ARGUMENT,
                                 '%r was not a name expression of this module' % (name_expression,))
        return lowered[name_expression]

    @_raising
    def get_global(self, name):
        """PyCUDA's ``(device_ptr, size_in_bytes)`` of a ``__device__`` or
        ``__constant__`` variable; the pointer is a GCuda.Buffer view of it
        (upload to it with memcpy_htod()). get_global_buffer() gives only
        the buffer."""
        buf = GCuda.Module.get_global(self, name)
        return buf, buf.get_size()

    get_global_buffer = _raising(GCuda.Module.get_global)

    def get_texref(self, name):
        raise _library_error(GCuda.Error.NOT_SUPPORTED,
                             'Texture references do not exist in CUDA 12 and later; use texture objects')

    get_surfref = get_texref


# ---------------------------------------------------------------- loading device code

_JIT_SETTINGS = ('max_registers', 'optimization_level', 'threads_per_block', 'generate_debug_info',
                 'generate_line_info', 'log_verbose')
# PyCUDA options GCuda handles by itself: the logs are module properties, the
# target is the context's device.
_JIT_IGNORED = ('info_log_buffer', 'info_log_buffer_size_bytes', 'error_log_buffer',
                'error_log_buffer_size_bytes', 'target_from_cucontext', 'wall_time')


def _jit_options(options):
    """A GCuda.JitOptions from None, a GCuda.JitOptions, a dict or a list of
    (name, value) pairs; names are JitOptions property names with - or _
    (max_registers, optimization_level, threads_per_block,
    generate_debug_info, generate_line_info, log_verbose; case ignored) or
    gcuda.driver.jit_option members."""
    if options is None or isinstance(options, GCuda.JitOptions):
        return options
    jit = GCuda.JitOptions.new()
    items = options.items() if isinstance(options, dict) else options
    for item in items:
        try:
            name, value = item
        except (TypeError, ValueError):
            raise TypeError('JIT options are (name, value) pairs, not %r' % (item,)) from None
        key = str(getattr(name, 'value_nick', name)).lower().replace('-', '_')
        if key in _JIT_IGNORED:
            continue
        if key not in _JIT_SETTINGS:
            raise _library_error(GCuda.Error.INVALID_ARGUMENT, 'Unknown or unsupported JIT option %r' % (name,))
        try:
            getattr(jit, 'set_' + key)(value)
        except OverflowError:
            # out of the setter's C type (a negative count, say); values the
            # type holds but the driver does not take are refused where the
            # options are used (GCuda.Error.INVALID_ARGUMENT, naming the option)
            raise _library_error(GCuda.Error.INVALID_ARGUMENT,
                                 'JIT option %s cannot be %r' % (key, value)) from None
    return jit


_FATBIN_MAGIC = b'\x50\xed\x55\xba'


def _image_bytes(data):
    """GLib.Bytes of a module image; PTX text gets the NUL the driver needs."""
    if isinstance(data, str):
        return GLib.Bytes.new(data.encode('utf-8') + b'\0')
    image = data if isinstance(data, GLib.Bytes) else _as_gbytes(data)
    raw = image.get_data() or b''
    if raw[-1:] not in (b'', b'\0') and raw[:4] not in (b'\x7fELF', _FATBIN_MAGIC) and \
            raw.lstrip()[:1] in (b'/', b'.'):
        image = GLib.Bytes.new(raw + b'\0')
    return image


def _load_module(load, options, message_handler):
    """Loads with @options as JIT options, telling PyCUDA's message_handler
    (success, info log, error log) how it went."""
    jit = _jit_options(options)
    try:
        module = load(jit)
    except GLib.Error as e:
        if message_handler is not None:
            message_handler(False, '', e.message)
        raise
    if message_handler is not None:
        message_handler(True, module.get_info_log() or '', module.get_error_log() or '')
    return module


@_raising
def module_from_buffer(buffer, options=None, message_handler=None, context=None):
    """Loads a cubin, fatbin or PTX from memory (PyCUDA's
    ``module_from_buffer()``): @buffer is bytes, str (PTX), GLib.Bytes or
    any buffer; @options are JIT options (see GCuda.JitOptions: a
    JitOptions, a dict or (name, value) pairs); @message_handler is called
    with (success, info_log, error_log) before the module is returned or the
    error raised."""
    return _load_module(lambda jit: Module.new_from_data(context, _image_bytes(buffer), jit),
                        options, message_handler)


@_raising
def module_from_file(filename, options=None, message_handler=None, context=None):
    """module_from_buffer() with the contents of @filename."""
    return _load_module(lambda jit: Module.new_from_file(context, os.fspath(filename), jit),
                        options, message_handler)


# ---------------------------------------------------------------- compiling (pycuda.compiler)

# Options SourceModule() and compile() use when given none (PyCUDA's list;
# modify it in place). `GCUDA_DEFAULT_NVRTC_FLAGS` in the environment is
# applied by the library before any options.
DEFAULT_NVCC_FLAGS = []

_TARGETS = {'cubin': GCuda.ProgramKind.CUBIN, 'ptx': GCuda.ProgramKind.PTX}


def _string_list(values, what):
    """@values (an iterable of str or path-like) as a list of str. A str or
    bytes is refused: iterating it would give one entry per character."""
    if isinstance(values, (str, bytes, os.PathLike)):
        raise TypeError('%s must be a list of strings, not a single %s' % (what, type(values).__name__))
    return [os.fspath(v) for v in values]


# Compilers by their settings, for compiles without a context or keep=:
# setting a compiler up is a tenth of a cache hit, and a compile works on a
# snapshot of its compiler's settings, so one can serve every call with
# the same ones (from any thread).
_COMPILERS_LOCK = threading.Lock()
_COMPILERS = {}
_COMPILERS_MAX = 256


def _make_compiler(options=None, keep=False, no_extern_c=False, arch=None, code=None, cache_dir=None,
                   include_dirs=(), headers=None, name_expressions=None, target='cubin', context=None):
    """A GCuda.Compiler set up as PyCUDA's compile() arguments say, and the
    directory kept files go to (or None)."""
    if options is None:
        options = DEFAULT_NVCC_FLAGS
    options = _string_list(options, 'options')
    include_dirs = _string_list(include_dirs or (), 'include_dirs')
    expressions = _string_list(name_expressions or (), 'name_expressions')
    header_items = tuple(headers.items() if isinstance(headers, dict) else headers or ())
    if target not in _TARGETS:
        raise _library_error(GCuda.Error.NOT_SUPPORTED,
                             'Target %r: GCuda compiles to "cubin" or "ptx"' % (target,))
    if cache_dir is False:
        cache_dir = ''
    elif cache_dir is True:
        cache_dir = None
    elif cache_dir is not None:
        cache_dir = os.fspath(cache_dir)

    settings = None
    if context is None and not keep:
        settings = (tuple(options), bool(no_extern_c), arch, code, cache_dir, tuple(include_dirs), header_items,
                    tuple(expressions), target)
        try:
            with _COMPILERS_LOCK:
                compiler = _COMPILERS.get(settings)
        except TypeError:  # something unhashable: set up afresh (it fails below if it is wrong)
            settings, compiler = None, None
        if compiler is not None:
            return compiler, None

    compiler = GCuda.Compiler.new(context)
    compiler.set_options(options)
    compiler.set_include_dirs(include_dirs)
    if arch:
        compiler.set_arch(arch)
    if code:
        compiler.set_code(code)
    compiler.set_no_extern_c(bool(no_extern_c))
    compiler.set_target(_TARGETS[target])
    if cache_dir is not None:
        compiler.set_cache_dir(cache_dir)
    for name, text in header_items:
        compiler.add_header(name, text)
    for expression in expressions:
        compiler.add_name_expression(expression)
    keep_dir = None
    if keep:
        keep_dir = os.fspath(keep) if isinstance(keep, (str, os.PathLike)) else \
            tempfile.mkdtemp(prefix='gcuda-compile-')
        compiler.set_keep(keep_dir)
        print('*** compiler output in %s' % keep_dir)
    if settings is not None:
        with _COMPILERS_LOCK:
            if len(_COMPILERS) >= _COMPILERS_MAX:
                _COMPILERS.clear()
            _COMPILERS[settings] = compiler
    return compiler, keep_dir


@_raising
def compile_program(source, nvcc='nvcc', options=None, keep=False, no_extern_c=False, arch=None, code=None,
                    cache_dir=None, include_dirs=(), target='cubin', headers=None, name_expressions=None,
                    context=None):
    """PyCUDA's compile() arguments (@nvcc is ignored: NVRTC compiles in
    process), giving the GCuda.Program (image, kind, log, lowered names,
    is_from_cache()). @headers maps include names to text; @name_expressions
    are template instantiations whose mangled names the program gives."""
    compiler, keep_dir = _make_compiler(options, keep, no_extern_c, arch, code, cache_dir, include_dirs,
                                        headers, name_expressions, target, context)
    program = compiler.compile(source)
    program.keep_dir = keep_dir
    return program


# ---------------------------------------------------------------- sharing loaded modules

# SourceModule() of a source already loaded in the context, while that
# module is alive, gives it again instead of loading the image once more
# (loading a cubin costs more than the rest of a cache hit; CuPy's
# RawModule shares its loaded modules too). Only when that cannot be told
# from a second load: the program has a compile cache key (which identifies
# the image, edited headers included), the image is a cubin without
# module-scope variables (no __device__, __constant__ or __managed__ ones,
# whose values a second load would not share), nothing is kept (keep=), and
# the compile cache is on (cache_dir=False gives a fresh module each time).
# Held weakly: the cache never keeps a module, or its context, alive.
# reentrant: a weakref callback (forget) can run in a garbage collection
# that an allocation under the lock set off, in the same thread
_LOADED_LOCK = threading.RLock()
_LOADED = {}        # (context handle, cache key) -> weakref to the Module
_STATE_FREE = {}    # cache key -> whether its image has no module-scope variables
_STATE_FREE_MAX = 4096

_ELF_HEADER = struct.Struct('<16sHHIQQQIHHHHHH')
_ELF_SECTION = struct.Struct('<IIQQQQIIQQ')
_ELF_SYMBOL = struct.Struct('<IBBHQQ')
_SHT_SYMTAB = 2
_STT_OBJECT = 1


def _cstring(data, offset):
    end = data.index(b'\0', offset)
    return data[offset:end]


def _state_free_cubin(data):
    """Whether a cubin (a 64-bit little-endian ELF) has no data objects but
    the kernels' shared memory and printf's format strings: no variable a
    second load would hold its own copy of. Anything unexpected: False."""
    try:
        if data[:4] != b'\x7fELF' or data[4] != 2 or data[5] != 1:
            return False
        header = _ELF_HEADER.unpack_from(data, 0)
        shoff, shentsize, shnum, shstrndx = header[6], header[11], header[12], header[13]
        if shentsize != _ELF_SECTION.size or shnum == 0:
            return False
        sections = [_ELF_SECTION.unpack_from(data, shoff + i * shentsize) for i in range(shnum)]
        names_offset = sections[shstrndx][4]
        for sh_name, sh_type, _, _, sh_offset, sh_size, sh_link, _, _, sh_entsize in sections:
            if sh_type != _SHT_SYMTAB:
                continue
            if sh_entsize != _ELF_SYMBOL.size:
                return False
            strings = sections[sh_link][4]
            for j in range(sh_size // sh_entsize):
                st_name, st_info, _, st_shndx, _, _ = _ELF_SYMBOL.unpack_from(data, sh_offset + j * sh_entsize)
                if st_info & 0xf != _STT_OBJECT or st_shndx == 0:
                    continue  # not data, or defined elsewhere (the driver's)
                if st_shndx >= shnum:
                    return False
                section = _cstring(data, names_offset + sections[st_shndx][0])
                name = _cstring(data, strings + st_name)
                if section.startswith(b'.nv.shared.'):
                    continue  # per block, not per module
                if section == b'.nv.global.init' and name.startswith(b'$str'):
                    continue  # printf's format strings, read only
                return False
        return True
    except (IndexError, ValueError, struct.error):
        return False


def _state_free(key, program):
    with _LOADED_LOCK:
        verdict = _STATE_FREE.get(key)
    if verdict is None:
        verdict = program.get_kind() == GCuda.ProgramKind.CUBIN and \
            _state_free_cubin(program.get_image().get_data() or b'')
        with _LOADED_LOCK:
            if len(_STATE_FREE) >= _STATE_FREE_MAX:
                _STATE_FREE.clear()
            _STATE_FREE[key] = verdict
    return verdict


def _shared_module(context, key):
    """The live module loaded for @key in @context (None: what GCuda's
    calls would use), or None."""
    try:
        if context is None:
            from .memoize import _memoize_context
            context = _memoize_context()
        handle = context.get_handle()
    except (AttributeError, GLib.Error):
        return None  # the load says what is wrong
    with _LOADED_LOCK:
        ref = _LOADED.get((handle, key))
    module = ref() if ref is not None else None
    if module is None:
        return None
    ctx = module.get_context()
    # a destroyed context's handle can come back for a new one
    if ctx.is_destroyed() or ctx.get_handle() != handle:
        return None
    return module


def _share_module(module, key):
    ctx = module.get_context()
    entry = (ctx.get_handle(), key)

    def forget(ref, entry=entry):
        with _LOADED_LOCK:
            if _LOADED.get(entry) is ref:
                del _LOADED[entry]

    with _LOADED_LOCK:
        _LOADED[entry] = weakref.ref(module, forget)


# SourceModule() of what it was given before, answered without asking the
# library again (PyCUDA programs build the same kernel inside a function
# called in a loop): by the arguments, the context and the variables the
# library reads at each compile, the program of a compile cache hit and the
# context it was for. Only for what cannot have changed since: text that
# can name no file (no include, import or embed directive, no line splice
# that could hide one, in the source, the in-memory headers or the
# options: nothing but NVRTC's built-in headers and GCuda's in-memory
# ones), compiled with the compile cache on and nothing kept. Anything
# else takes the library's path, which checks the files it read.
_PROGRAMS_LOCK = threading.Lock()
_PROGRAMS = {}
_PROGRAMS_MAX = 1024
# what the library reads at each compile that changes the program, or whether it is
# cached; read from os.environ's own mapping where CPython has it (as bytes,
# without os.environ.get()'s encoding and decoding, which would cost a third
# of a hit)
_ENV_READ = ('GCUDA_DEFAULT_NVRTC_FLAGS', 'GCUDA_DISABLE_CACHE')
_ENV_DATA = getattr(os.environ, '_data', None)
if isinstance(_ENV_DATA, dict) and os.name == 'posix':
    _ENV_KEYS = tuple(os.fsencode(name) for name in _ENV_READ)
    _env_get = _ENV_DATA.get
else:
    _ENV_KEYS = _ENV_READ
    _env_get = os.environ.get
_FILE_WORDS = ('include', 'import', 'embed', '\\\n', '\\\r', '??/')


def _names_no_file(text):
    return isinstance(text, str) and not any(word in text for word in _FILE_WORDS)


def _program_memo_key(source, options, no_extern_c, arch, code, cache_dir, include_dirs, headers,
                      name_expressions, context):
    """The memo's key for these arguments and the context it is for, or
    (None, None) when they cannot be a key. Whether what it names may read
    a file is asked when an entry is made (see _memoizable())."""
    if cache_dir is False:
        return None, None
    try:
        if context is None:
            context = GCuda.Context.get_thread_default()
        # the context by identity: an entry holds it (see _remember_program()),
        # and a hit checks it is the same one
        key = (source, tuple(DEFAULT_NVCC_FLAGS if options is None else options), bool(no_extern_c), arch, code,
               cache_dir, tuple(include_dirs or ()),
               tuple(headers.items() if isinstance(headers, dict) else headers or ()),
               tuple(name_expressions or ()), id(context),
               _env_get(_ENV_KEYS[0]), _env_get(_ENV_KEYS[1]))
        hash(key)
    except (TypeError, GLib.Error):
        return None, None
    return key, context


def _memoizable(memo_key):
    source, options, headers = memo_key[0], memo_key[1], memo_key[7]
    return _names_no_file(source) and all(_names_no_file(o) for o in options) \
        and all(isinstance(h, tuple) and len(h) == 2 and _names_no_file(h[1]) for h in headers)


@_raising
def SourceModule(source, nvcc='nvcc', options=None, keep=False, no_extern_c=False, arch=None,  # noqa: N802
                 code=None, cache_dir=None, include_dirs=[], headers=None, name_expressions=None,
                 context=None):
    """Compiles CUDA C++ @source with NVRTC and loads it (PyCUDA's
    ``SourceModule``; @nvcc is ignored). @arch defaults to the context
    device's own; @cache_dir=False disables the compile cache; @keep=True
    keeps the source, log and output in a directory it prints (and puts in
    ``module.keep_dir``). Also @headers ({name: text}) and
    @name_expressions (``get_function("f<int>")`` then finds the
    instantiation). Returns a GCuda.Module; ``module.program`` is the
    GCuda.Program of the latest call that returned it.

    The same source compiled the same way again in the same context, while
    the first module is alive, gives that module back without loading the
    code again, when its code has no ``__device__``/``__constant__``/
    ``__managed__`` variables (which a second load would have its own
    copies of); ``cache_dir=False`` (no compile cache) or @keep always
    load anew."""
    memo_key, memo_context = (None, None) if keep else \
        _program_memo_key(source, options, no_extern_c, arch, code, cache_dir, include_dirs, headers,
                          name_expressions, context)
    if memo_key is not None:
        with _PROGRAMS_LOCK:
            entry = _PROGRAMS.get(memo_key)
        if entry is not None:
            program, key, context_ref, module_ref = entry
            ctx = context_ref()
            # the same context (not another at the same id), still alive
            if ctx is not None and id(ctx) == memo_key[9] and not ctx.is_destroyed():
                module = module_ref() if module_ref is not None else None
                if module is not None:
                    module.program = program
                    return module
                return _load_source_module(context, program, key, name_expressions, memo_key, ctx)
    program = compile_program(source, options=options, keep=keep, no_extern_c=no_extern_c, arch=arch,
                              code=code, cache_dir=cache_dir, include_dirs=include_dirs,
                              headers=headers, name_expressions=name_expressions, context=context)
    key = None if keep else program.get_cache_key()
    if key is None or not program.is_from_cache():
        memo_key = None  # a fresh compile's program says so; the next call's is a hit
    if key is not None:
        module = _shared_module(context, key)
        if module is not None:
            module.program = program
            if memo_key is not None:
                _remember_program(memo_key, memo_context, program, key, module)
            return module
    return _load_source_module(context, program, key, name_expressions, memo_key, memo_context)


def _remember_program(memo_key, memo_context, program, key, module):
    if not _memoizable(memo_key):
        return
    # Held weakly: the memo keeps no context alive. A wrapper with an
    # attribute of its own lives as long as its context does (PyGObject then
    # ties the two), so the context's wrapper, and the key's id of it, stay
    # the same while the library holds the context (the default one, a
    # pushed one).
    try:
        # (a hit asks is_destroyed(): asked here first, PyGObject's first
        # call of it, which prepares the call, is not the first hit's cost)
        if memo_context.is_destroyed():
            return
        memo_context._gcuda_memoized = True
        context_ref = weakref.ref(memo_context)
    except (AttributeError, TypeError):
        return
    with _PROGRAMS_LOCK:
        if len(_PROGRAMS) >= _PROGRAMS_MAX:
            _PROGRAMS.clear()
        _PROGRAMS[memo_key] = (program, key, context_ref, weakref.ref(module) if module is not None else None)


def _load_source_module(context, program, key, name_expressions, memo_key, memo_context):
    module = Module.new_from_program(context, program)
    module._gcuda_lowered = {e: program.get_lowered_name(e) for e in name_expressions or ()}
    module.program = program
    module.keep_dir = getattr(program, 'keep_dir', None)
    shared = key is not None and _state_free(key, program)
    if shared:
        _share_module(module, key)
    if memo_key is not None:
        _remember_program(memo_key, memo_context, program, key, module if shared else None)
    return module


class DynamicModule:
    """PyCUDA's ``DynamicModule``: several sources and binaries linked by the
    driver (GCuda.Linker) into one module, e.g. for dynamic parallelism::

        mod = DynamicModule().add_source(src).add_stdlib('cudadevrt').link()
        mod.get_function('parent')

    Sources are compiled as relocatable device code; nvcc-only options
    (-l…, -rdc=true) are dropped. @link_options are JIT options."""

    __module__ = OVERRIDE_MODULE

    def __init__(self, nvcc='nvcc', link_options=None, keep=False, no_extern_c=False, arch=None, code=None,
                 cache_dir=None, include_dirs=[], message_handler=None, libdir=None, cuda_libdir=None,
                 context=None):
        self._settings = dict(keep=keep, no_extern_c=no_extern_c, arch=arch, code=code, cache_dir=cache_dir,
                              include_dirs=_string_list(include_dirs, 'include_dirs'), context=context)
        self.message_handler = message_handler
        self.cuda_libdir = cuda_libdir
        self.linker = _raising(GCuda.Linker.new)(context, _jit_options(link_options))
        self.module = None

    def _linker(self):
        if self.linker is None:
            raise _library_error(GCuda.Error.INVALID_ARGUMENT, 'This DynamicModule is already linked')
        return self.linker

    @_raising
    def add_source(self, source, nvcc_options=None, name='kernel.ptx'):
        options = DEFAULT_NVCC_FLAGS if nvcc_options is None else _string_list(nvcc_options, 'nvcc_options')
        options = [o for o in options
                   if not o.startswith('-l') and o not in ('-rdc=true', '--relocatable-device-code=true')]
        compiler, _ = _make_compiler(options=options, target='ptx', **self._settings)
        self._linker().add_source(compiler, source)
        return self

    @_raising
    def add_data(self, data, input_type, name='unknown'):
        self._linker().add_data(input_type, _image_bytes(data), name)
        return self

    @_raising
    def add_file(self, filename, input_type=GCuda.LinkInputType.AUTO):
        self._linker().add_file(input_type, os.fspath(filename))
        return self

    @_raising
    def add_stdlib(self, libname):
        """Adds lib@libname.a of the toolkit (``cudadevrt``)."""
        if self.cuda_libdir is not None:
            return self.add_file(os.path.join(self.cuda_libdir, 'lib%s.a' % libname),
                                 GCuda.LinkInputType.LIBRARY)
        self._linker().add_library(libname)
        return self

    @_raising
    def link(self):
        linker = self._linker()
        try:
            self.module = linker.complete()
        except GLib.Error as e:
            if self.message_handler is not None:
                self.message_handler(False, linker.get_info_log() or '', linker.get_error_log() or e.message)
            raise
        if self.message_handler is not None:
            self.message_handler(True, linker.get_info_log() or '', linker.get_error_log() or '')
        self.linker = None
        return self

    def _module(self):
        if self.module is None:
            raise _library_error(GCuda.Error.INVALID_ARGUMENT, 'Call link() first')
        return self.module

    def get_function(self, name):
        return self._module().get_function(name)

    def get_global(self, name):
        return self._module().get_global(name)

    def get_texref(self, name):
        return self._module().get_texref(name)
