#!/usr/bin/env python3
# bench_compile.py: how long getting a kernel from source takes, GCuda's
# compile cache beside CuPy's
#
# Each measurement runs in a FRESH process (sys.executable -c ...), as a
# program started anew meets the cache; inside the child the clock is read
# around the call that turns source into a loaded kernel alone (module and
# get_function), after the import and after the context exists, and the
# parent times the whole child (start to exit). Reported: min and median
# of --runs children, in ms.
#
#   --gcuda  (a Python with PyGObject): GCuda.SourceModule(source) (the
#            override's PyCUDA-style one-liner; gcuda_module_new_from_source()
#            where the override lacks it), then get_function:
#              warm     GCUDA_CACHE_DIR holding the entry (warmed first by a
#                       child of its own): the on-disk hit. The child also
#                       reports whether NVRTC was loaded (a hit must not
#                       load it).
#              in-proc  the same source a second time in that process: the
#                       in-process cache (the first module still alive, as
#                       CuPy's figure has it); also the median of 50 more
#                       such calls in that process, and of the compile path
#                       alone (GCuda.compile_program: no module load)
#              cold     an empty GCUDA_CACHE_DIR each time: NVRTC loaded,
#                       compile, store, load
#              cold+    a second, different source in the cold child
#                       (NVRTC already loaded): the compile alone
#            Without a GPU the same runs measure GCuda.Compiler.compile()
#            for sm_90 only (no module load), and the exit status is 77.
#   --raw    (the GPU host's python3.12): CuPy's RawModule(code=source)
#            and get_function with a warm CUPY_CACHE_DIR, the second in
#            process (and the median of 50 more), and cold (an empty
#            CUPY_CACHE_DIR); cuda.core's
#            Program(...).compile("cubin") + get_kernel, which has no cache
#            (cold, and cold+ a second source).
#
# `--json FILE` writes every child's figure in ms (the schema of
# tools/run-benchmarks, which puts the two modes' rows in one table), each
# GCuda row beside CuPy's (cuda.core's where CuPy was not measured). It
# asserts nothing. Exit status 77: nothing could be measured.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from benchutil import Report  # next to this script

SKIP = 77

# the rows' names in the --json report
GCUDA = 'GCuda SourceModule'
GCUDA_COMPILE_ONLY = 'GCuda Compiler.compile (sm_90, no module load)'
CUPY = 'CuPy RawModule'
CUDA_CORE = 'cuda.core Program.compile (no cache)'
# their groups, each with what GCuda's row is compared with
WARM = 'warm on-disk hit, fresh process'
WARM_CALL = 'warm hit: the SourceModule call alone'
AGAIN = 'in-process hit (the same source again)'
AGAIN_REPEATED = 'in-process hit, median of %d more in the process'
AGAIN_COMPILE = 'in-process hit: the compile path alone (compile_program, no load)'
COLD = 'cold: NVRTC loaded, compile, store, load'
COLD_CALL = 'cold: the SourceModule call alone'
OTHER = 'cold, NVRTC already loaded (a second source)'
WARM_PROCESS = 'warm child, whole process (start to exit)'
WARM_IMPORT = 'warm child: import'
WARM_CONTEXT = 'warm child: device and context'
COLD_PROCESS = 'cold child, whole process'
WARMING = 'the warming child (cold): first compile'
REPEATS = 50
AGAIN_REPEATED = AGAIN_REPEATED % REPEATS
REFERENCES = {WARM: [CUPY], AGAIN: [CUPY], AGAIN_REPEATED: [CUPY], COLD: [CUPY, CUDA_CORE], OTHER: [CUPY, CUDA_CORE],
              WARM_PROCESS: [CUPY], WARM_IMPORT: [CUPY], WARM_CONTEXT: [CUPY], COLD_PROCESS: [CUPY, CUDA_CORE]}

# PyCUDA style: GCuda wraps the source in extern "C" { } itself
SOURCE = r'''
__global__ void saxpy(float a, const float *x, float *y, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}

__global__ void block_sum(const float *x, float *out, int n)
{
    __shared__ float s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k)
            s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = s[0];
}
'''
SOURCE_EXTERN_C = 'extern "C" {\n' + SOURCE + '}\n'

# The child's common part: prints one JSON line. argv: kind, source, second source.
CHILD_PROLOGUE = r'''
import json, sys, time
t0 = time.perf_counter()
REPEATS = %d
def median_of(fn):
    times = []
    for _ in range(REPEATS):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    times.sort()
    return times[len(times) // 2]
''' % REPEATS

CHILD_GCUDA = CHILD_PROLOGUE + r'''
import gi
gi.require_version('GCuda', '1.0')
from gi.repository import GCuda, GLib
t1 = time.perf_counter()
kind, source, other = sys.argv[1:4]
out = {'import': t1 - t0}
marks = []  # when each get() had its module, before get_function
if kind.startswith('compile-only'):
    def get(src):
        c = GCuda.Compiler.new(None)
        c.set_arch('sm_90')
        program = c.compile(src)
        marks.append(time.perf_counter())
        return program
    out['api'] = 'GCuda.Compiler.compile (sm_90, no module load)'
    t2 = t1
else:
    context = GCuda.Context.get_default()
    t2 = time.perf_counter()
    out['context'] = t2 - t1
    if hasattr(GCuda, 'SourceModule'):
        make = GCuda.SourceModule
        out['api'] = 'GCuda.SourceModule + get_function'
    else:
        def make(src):
            return GCuda.Module.new_from_source(context, src, None)
        out['api'] = 'GCuda.Module.new_from_source + get_function (the override has no SourceModule)'
    def get(src):
        mod = make(src)
        marks.append(time.perf_counter())
        return mod, mod.get_function('saxpy')
t3 = time.perf_counter()
first = get(source)
t4 = time.perf_counter()
out['first'] = t4 - t3
out['first_module'] = marks[0] - t3
if kind == 'cold' or kind == 'compile-only-cold':
    t5 = time.perf_counter()
    get(other)
    out['other'] = time.perf_counter() - t5
t6 = time.perf_counter()
again = get(source)
out['again'] = time.perf_counter() - t6
out['again_median'] = median_of(lambda: get(source))
if kind.startswith('compile-only'):
    out['again_compile'] = out['again_median']
else:
    out['again_compile'] = median_of(lambda: GCuda.compile_program(source))
with open('/proc/self/maps') as f:
    out['nvrtc_loaded'] = 'libnvrtc' in f.read()
print(json.dumps(out))
'''

CHILD_CUPY = CHILD_PROLOGUE + r'''
import cupy
t1 = time.perf_counter()
kind, source, other = sys.argv[1:4]
cupy.cuda.Device(0).use()
cupy.empty(1)  # the context
t2 = time.perf_counter()
out = {'import': t1 - t0, 'context': t2 - t1, 'api': 'CuPy %s RawModule + get_function' % cupy.__version__}
def get(src):
    mod = cupy.RawModule(code=src)
    return mod, mod.get_function('saxpy')
t3 = time.perf_counter()
first = get(source)
t4 = time.perf_counter()
out['first'] = t4 - t3
if kind == 'cold':
    t5 = time.perf_counter()
    get(other)
    out['other'] = time.perf_counter() - t5
t6 = time.perf_counter()
again = get(source)
out['again'] = time.perf_counter() - t6
out['again_median'] = median_of(lambda: get(source))
with open('/proc/self/maps') as f:
    out['nvrtc_loaded'] = 'libnvrtc' in f.read()
print(json.dumps(out))
'''

CHILD_CUDA_CORE = CHILD_PROLOGUE + r'''
try:
    from cuda.core import Device, Program, ProgramOptions
except ImportError:
    from cuda.core.experimental import Device, Program, ProgramOptions
import cuda.core
t1 = time.perf_counter()
kind, source, other = sys.argv[1:4]
dev = Device(0)
dev.set_current()
t2 = time.perf_counter()
cc = dev.compute_capability
out = {'import': t1 - t0, 'context': t2 - t1,
       'api': 'cuda.core %s Program.compile("cubin") + get_kernel' % getattr(cuda.core, '__version__', '?')}
def get(src):
    obj = Program(src, code_type='c++', options=ProgramOptions(arch='sm_%d%d' % (cc[0], cc[1]))).compile('cubin')
    return obj, obj.get_kernel('saxpy')
t3 = time.perf_counter()
first = get(source)
t4 = time.perf_counter()
out['first'] = t4 - t3
t5 = time.perf_counter()
get(other)
out['other'] = time.perf_counter() - t5
with open('/proc/self/maps') as f:
    out['nvrtc_loaded'] = 'libnvrtc' in f.read()
print(json.dumps(out))
'''


class Skip(Exception):
    pass


def variant(source, i):
    """@source made different for the cache (and NVRTC) without changing
    what it compiles to."""
    return source + '\n// variant %d %d\n' % (os.getpid(), i)


def last_line(text):
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1].strip() if lines else text


def run_child(code, kind, source, other, env_updates):
    """One fresh process; its JSON figures plus 'process' (the whole child,
    start to exit, as the parent sees it)."""
    env = dict(os.environ)
    env.pop('GCUDA_DISABLE_CACHE', None)  # the figures are about the cache
    env.update(env_updates)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, '-c', code, kind, source, other], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError('child (%s) failed with status %d:\n%s' % (kind, proc.returncode, proc.stderr.strip()))
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out['process'] = elapsed
    return out


class Table:
    def __init__(self):
        self.rows = []
        self.report_rows = []  # (group, name, role, [ms...], reference)
        self.not_run = []  # (group, name, reason)

    def add(self, label, seconds, note='', group=None, name=None, role='info'):
        """A printed line, and a row of the --json report in @group under
        @name where those are given."""
        if seconds:
            s = sorted(seconds)
            n = len(s)
            median = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
            self.rows.append((label, s[0] * 1e3, median * 1e3, n, note))
            if group is not None:
                reference = REFERENCES.get(group) if role == 'gcuda' else None
                self.report_rows.append((group, name, role, [t * 1e3 for t in seconds], reference))

    def print(self, header):
        print(header)
        print()
        print('%-58s %9s %9s %4s' % ('', 'min ms', 'median ms', 'n'))
        for label, lo, med, n, note in self.rows:
            print('%-58s %9.2f %9.2f %4d %s' % (label, lo, med, n, note))
        sys.stdout.flush()


def series(runs, code, kind, source, env_for_run):
    """@runs children; env_for_run(i) gives each one's environment."""
    return [run_child(code, kind, source, variant(source, i), env_for_run(i)) for i in range(runs)]


def column(results, key):
    return [r[key] for r in results if key in r]


def bench_gcuda(args, table, tmp):
    try:
        import gi
        gi.require_version('GCuda', '1.0')
        from gi.repository import GCuda, GLib
    except (ImportError, ValueError) as e:
        raise Skip('--gcuda needs PyGObject and GCuda\'s typelib: %s' % e)
    try:
        context = GCuda.Context.get_default()
        where = '%s (%s)' % (context.get_device().get_name(), 'its own arch')
        gpu = True
        warm_kind, cold_kind = 'warm', 'cold'
    except GLib.Error as e:
        where = 'no GPU (%s): compile only, for sm_90' % e.message
        gpu = False
        warm_kind, cold_kind = 'compile-only', 'compile-only-cold'

    warm_dir = tempfile.mkdtemp(prefix='warm-', dir=tmp)
    warm_env = {'GCUDA_CACHE_DIR': warm_dir}
    try:
        first = run_child(CHILD_GCUDA, warm_kind, SOURCE, SOURCE, warm_env)  # fills the cache
        warm = series(args.runs, CHILD_GCUDA, warm_kind, SOURCE, lambda i: warm_env)
        cold = series(args.runs, CHILD_GCUDA, cold_kind, SOURCE,
                      lambda i: {'GCUDA_CACHE_DIR': tempfile.mkdtemp(prefix='cold-', dir=tmp)})
    except RuntimeError as e:
        if gpu:
            raise
        # without a GPU nothing this benchmark is for is measured anyway
        raise Skip('%s; and the compile alone failed: %s' % (where, last_line(str(e))))

    hits_with_nvrtc = sum(1 for r in warm if r['nvrtc_loaded'])
    g = GCUDA if gpu else GCUDA_COMPILE_ONLY
    table.add('GCuda warm on-disk hit, fresh process', column(warm, 'first'), group=WARM, name=g, role='gcuda')
    if gpu:
        table.add('  of which the SourceModule call alone', column(warm, 'first_module'), group=WARM_CALL, name=g)
    table.add('GCuda in-process hit (the same source again)', column(warm, 'again'), group=AGAIN, name=g,
              role='gcuda')
    table.add('  median of %d more in the process' % REPEATS, column(warm, 'again_median'), group=AGAIN_REPEATED,
              name=g, role='gcuda')
    if gpu:
        table.add('  of which the compile path (compile_program)', column(warm, 'again_compile'),
                  group=AGAIN_COMPILE, name=g)
    table.add('GCuda cold: NVRTC loaded, compile, store%s' % (', load' if gpu else ''), column(cold, 'first'),
              group=COLD, name=g, role='gcuda')
    if gpu:
        table.add('  of which the SourceModule call alone', column(cold, 'first_module'), group=COLD_CALL, name=g)
    table.add('GCuda cold, NVRTC already loaded', column(cold, 'other'), group=OTHER, name=g, role='gcuda')
    table.add('  warm child, whole process (python start to exit)', column(warm, 'process'),
              group=WARM_PROCESS, name=g, role='gcuda')
    table.add('  warm child: import gi + GCuda', column(warm, 'import'), group=WARM_IMPORT, name=g, role='gcuda')
    if gpu:
        table.add('  warm child: GCuda.Context.get_default()', column(warm, 'context'),
                  group=WARM_CONTEXT, name=g, role='gcuda')
    table.add('  cold child, whole process', column(cold, 'process'), group=COLD_PROCESS, name=g, role='gcuda')
    table.add('  the warming child (cold): first compile', [first['first']], group=WARMING, name=g)
    notes = ['API: %s' % warm[0]['api'] if warm else '',
             'warm children that loaded NVRTC: %d of %d (a hit should load none)' % (hits_with_nvrtc, len(warm))]
    env = {'device': context.get_device().get_name()} if gpu else {}
    return 'GCuda through PyGObject; %s' % where, notes, gpu, env


def bench_raw(args, table, tmp):
    import importlib.util
    notes = []
    not_run = []  # (row name, reason)
    measured = False
    if importlib.util.find_spec('cupy') is not None:
        try:
            warm_dir = tempfile.mkdtemp(prefix='cupy-warm-', dir=tmp)
            warm_env = {'CUPY_CACHE_DIR': warm_dir}
            first = run_child(CHILD_CUPY, 'warm', SOURCE_EXTERN_C, SOURCE_EXTERN_C, warm_env)
            warm = series(args.runs, CHILD_CUPY, 'warm', SOURCE_EXTERN_C, lambda i: warm_env)
            cold = series(args.runs, CHILD_CUPY, 'cold', SOURCE_EXTERN_C,
                          lambda i: {'CUPY_CACHE_DIR': tempfile.mkdtemp(prefix='cupy-cold-', dir=tmp)})
            table.add('CuPy warm on-disk hit, fresh process', column(warm, 'first'), group=WARM, name=CUPY,
                      role='peer')
            table.add('CuPy in-process hit (the same source again)', column(warm, 'again'), group=AGAIN, name=CUPY,
                      role='peer')
            table.add('  median of %d more in the process' % REPEATS, column(warm, 'again_median'),
                      group=AGAIN_REPEATED, name=CUPY, role='peer')
            table.add('CuPy cold: compile, store, load', column(cold, 'first'), group=COLD, name=CUPY, role='peer')
            table.add('CuPy cold, a second source', column(cold, 'other'), group=OTHER, name=CUPY, role='peer')
            table.add('  warm child, whole process (python start to exit)', column(warm, 'process'),
                      group=WARM_PROCESS, name=CUPY, role='peer')
            table.add('  warm child: import cupy', column(warm, 'import'), group=WARM_IMPORT, name=CUPY,
                      role='peer')
            table.add('  warm child: device and context', column(warm, 'context'), group=WARM_CONTEXT, name=CUPY,
                      role='peer')
            table.add('  cold child, whole process', column(cold, 'process'), group=COLD_PROCESS, name=CUPY,
                      role='peer')
            table.add('  the warming child (cold): first compile', [first['first']], group=WARMING, name=CUPY)
            notes.append('API: %s' % warm[0]['api'])
            notes.append('CuPy warm children with NVRTC loaded: %d of %d'
                         % (sum(1 for r in warm if r['nvrtc_loaded']), len(warm)))
            measured = True
        except (RuntimeError, ValueError) as e:
            notes.append('not measured: CuPy: %s' % e)
            not_run.append((CUPY, str(e)))
    else:
        notes.append('not measured: CuPy is not importable')
        not_run.append((CUPY, 'CuPy is not importable'))
    if importlib.util.find_spec('cuda') is not None and (importlib.util.find_spec('cuda.core') is not None):
        try:
            cold = series(args.runs, CHILD_CUDA_CORE, 'cold', SOURCE_EXTERN_C, lambda i: {})
            table.add('cuda.core (no cache): NVRTC loaded, compile, load', column(cold, 'first'),
                      group=COLD, name=CUDA_CORE, role='peer')
            table.add('cuda.core, a second source', column(cold, 'other'), group=OTHER, name=CUDA_CORE, role='peer')
            table.add('  cuda.core child, whole process', column(cold, 'process'), group=COLD_PROCESS,
                      name=CUDA_CORE, role='peer')
            notes.append('API: %s' % cold[0]['api'])
            measured = True
        except (RuntimeError, ValueError) as e:
            notes.append('not measured: cuda.core: %s' % e)
            not_run.append((CUDA_CORE, str(e)))
    else:
        notes.append('not measured: cuda.core is not importable')
        not_run.append((CUDA_CORE, 'cuda.core is not importable'))
    if not measured:
        raise Skip('nothing to measure: ' + '; '.join(notes))
    for name, reason in not_run:
        table.not_run.append((COLD, name, reason))
    return 'raw (%s)' % sys.executable, notes, True, {}


def main(argv=None):
    parser = argparse.ArgumentParser(description='source to loaded kernel: GCuda\'s compile cache beside CuPy\'s')
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument('--gcuda', action='store_true', help='GCuda through PyGObject')
    mode.add_argument('--raw', action='store_true', help='CuPy and cuda.core')
    parser.add_argument('--runs', type=int, default=10, help='fresh processes per figure (default 10)')
    parser.add_argument('--json', metavar='FILE', help='also write the figures as JSON (tools/run-benchmarks)')
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error('--runs must be positive')
    if not args.gcuda and not args.raw:
        try:
            import gi  # noqa: F401
            args.gcuda = True
        except ImportError:
            args.raw = True

    tmp = tempfile.mkdtemp(prefix='gcuda-bench-compile-')
    table = Table()
    try:
        title, notes, complete, env = (bench_gcuda if args.gcuda else bench_raw)(args, table, tmp)
    except Skip as e:
        print('bench_compile: %s' % e, file=sys.stderr)
        return SKIP
    except RuntimeError as e:
        print('bench_compile: %s' % e, file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    table.print('Source to loaded kernel (%d-line source, module + get_function), each figure from %d fresh '
                'processes,\ntimed inside the child around that call alone unless marked; %s'
                % (SOURCE.count('\n'), args.runs, title))
    for note in notes:
        if note:
            print('# %s' % note)
    if args.json:
        out = Report('compile-python-' + ('gcuda' if args.gcuda else 'raw'), 'compile-python',
                     'Source to loaded kernel, Python: GCuda\'s compile cache beside CuPy\'s and cuda.core',
                     runs=args.runs, source_lines=SOURCE.count('\n'))
        out.env(**env)
        for note in notes:
            if note:
                out.note(note)
        for group, name, role, ms, reference in table.report_rows:
            out.row(group, name, role, 'ms', ms, reference=reference, per_sample='one fresh process')
        for group, name, reason in table.not_run:
            out.not_run(group, name, 'peer', reason)
        out.write(args.json)
    if not complete:
        print('bench_compile: no GPU: SourceModule (compile and load) not measured', file=sys.stderr)
        return SKIP
    return 0


if __name__ == '__main__':
    sys.exit(main())
