#!/usr/bin/env python3
# test-report.py: tools/run-benchmarks' report, without a GPU (TAP)
#
#   test-report.py BUILD_DIR MOCK_DRIVER
#
# From the fixture results in fixtures/report: the tables' rows, each GCuda
# row's reference and ratio (in the same process, falling back along the
# reference list, a variant's rows beside the variant's own reference),
# the hardware limits, the benchmarks that did not run; the rewriting of
# docs/performance.md and README.md between their markers, and the refusal
# to touch a file without them. Then two real runs: without a driver
# (every benchmark but the --raw ones "not run", exit status 77, no
# traceback) and on the mock driver (the C copy and pool rows it can serve,
# the rest "not run").
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import json
import os
import runpy
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
RUNNER = os.path.join(SRC, 'tools', 'run-benchmarks')
FIXTURES = os.path.join(HERE, 'fixtures', 'report')

results = []


def check(ok, what, detail=''):
    results.append((bool(ok), what, detail))


def run(args, env_updates=None, timeout=90):
    env = dict(os.environ)
    env.pop('GCUDA_TEST_REQUIRE_GPU', None)  # set by the caller where wanted
    env.update(env_updates or {})
    proc = subprocess.run([sys.executable, RUNNER] + args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=timeout)
    return proc


def rows_of(doc, table_id):
    for t in doc['tables']:
        if t['id'] == table_id:
            return t['rows']
    return []


def find(rows, group, name, variant=None):
    for r in rows:
        if r['group'] == group and r['name'] == name and r.get('variant') == variant:
            return r
    return None


def near(a, b):
    return a is not None and b is not None and abs(a - b) < 1e-9 * max(1.0, abs(b))


def between(text, begin, end):
    i, j = text.find(begin), text.find(end)
    return text[:i], text[i:j + len(end)], text[j + len(end):]


def fixture_report(tmp):
    out = os.path.join(tmp, 'out')
    perf = os.path.join(tmp, 'performance.md')
    readme = os.path.join(tmp, 'README.md')
    shutil.copy(os.path.join(SRC, 'docs', 'performance.md'), perf)
    shutil.copy(os.path.join(SRC, 'README.md'), readme)
    proc = run(['--from', FIXTURES, '--out', out, '--markdown', perf, '--readme', readme])
    check(proc.returncode == 0, 'the report from the fixtures is written', proc.stderr)
    if proc.returncode != 0:
        return
    with open(os.path.join(out, 'benchmarks.json')) as f:
        doc = json.load(f)
    with open(os.path.join(out, 'benchmarks.md')) as f:
        md = f.read()
    check(doc['schema'] == 'gcuda-benchmarks/1', 'benchmarks.json names its schema')

    launch = find(rows_of(doc, 'launch-c'), 'empty kernel, 3 arguments', 'gcuda_function_launch (KernelArgs)')
    check(launch and near(launch['ratio'], 1.25) and launch['reps'] == 3 and near(launch['min'], 2.4)
          and near(launch['max'], 2.6) and 'samples' not in launch,
          'a GCuda row: min/median/max, reps and the ratio to its raw reference', launch)
    check('| **gcuda_function_launch (KernelArgs)** | 2.400 | 2.500 | 2.600 | 3 | raw cuLaunchKernel, kernelParams '
          '| 2.000 | 1.250 |' in md, 'the row in the Markdown, beside its reference')

    memcpy = rows_of(doc, 'memcpy-c')
    htod = find(memcpy, 'HtoD pinned', 'GCuda C API')
    check(htod and near(htod['ratio'], 50.5 / 51.0) and near(htod['of_limit'], 50.5 / (32 * 16 * 128 / 130 / 8)),
          'host-to-device rows against PCIe 5.0 x16 after encoding (63.0 GB/s)', htod)
    dtod = find(memcpy, 'DtoD (read+write)', 'GCuda C API')
    hbm = 3201000e3 * 2 * 6144 / 8 / 1e9
    check(dtod and near(dtod['of_limit'], 3050.0 / hbm) and near(doc['limits']['hbm']['value'], hbm),
          'device-to-device rows against the HBM bandwidth computed from clock and bus width', dtod)
    check('| 81% PCIe |' in md and '| 62% HBM |' in md, 'the limit column in the Markdown')
    check('| DtoD async, GPU time | raw cuMemcpy* | not run: the driver has no events |' in md,
          'a row that was not measured says why')

    mp = rows_of(doc, 'memcpy-python')
    new, old = find(mp, 'HtoD pinned', 'GCuda address API'), find(mp, 'HtoD pinned', 'GCuda address API', 'old')
    check(new and near(new['ratio'], 40.0 / 41.0) and new['reference_row'] == 'raw libcuda (ctypes)',
          'a Python row beside the raw driver of its own process', new)
    check(old and near(old['ratio'], 0.5) and old['reference_row'] == 'raw libcuda (ctypes) [old]',
          'a variant\'s row beside the reference measured in the variant\'s process', old)
    check('**GCuda address API [old]**' in md and 'Python override [old]' in md,
          'variant rows and the variant\'s override are labelled in the Markdown')
    names = [r['name'] + ('@' + r['variant'] if r.get('variant') else '') for r in mp]
    check(names.index('GCuda address API@old') == names.index('GCuda address API') + 1,
          'a variant\'s row comes right after the row it re-measures', names)

    lp = rows_of(doc, 'launch-python')
    prepared = find(lp, 'empty kernel, 3 arguments', 'GCuda prepared_async_call')
    check(prepared and prepared['reference_row'] == 'raw cuLaunchKernel (ctypes)' and near(prepared['ratio'], 1.5),
          'an absent peer falls back to the next reference of the list', prepared)
    called = find(lp, 'empty kernel, 3 arguments', 'GCuda __call__, stream=')
    check(called and called['ratio'] is None and 'CuPy RawKernel: not measured' in md,
          'a reference that was not measured leaves the ratio empty and says so', called)
    check('- `launch-python-raw`: not run: no python3 with numpy and cuda.bindings or CuPy' in md
          and '- `callback-latency`: failed: exit status 1' in md,
          'benchmarks that did not run or failed are listed under their table')

    mg = rows_of(doc, 'multi-gpu-python')
    nvlink = doc['limits'].get('nvlink', {})
    check(near(nvlink.get('value'), 450.0) and '18 NVLink links up' in nvlink.get('source', '')
          and 'NVLink 4' in nvlink.get('source', ''),
          'the NVLink limit: the links up x 25 GB/s per link and direction of an H200', nvlink)
    direct = find(mg, 'peer copy 0 to 1, direct', 'GCuda Buffer.copy_from')
    check(direct and near(direct['ratio'], 396.0 / 400.0) and near(direct['of_limit'], 396.0 / 450.0),
          'a direct peer copy beside raw cuMemcpyPeer and against the NVLink limit', direct)
    reduce_row = find(mg, 'all-reduce 256 MiB, busbw', 'GCuda Communicator.all_reduce, one process')
    check(reduce_row and reduce_row['reference_row'] == 'PyTorch torch.cuda.nccl.all_reduce, one process'
          and near(reduce_row['ratio'], 360.0 / 375.0),
          'all-reduce busbw beside PyTorch\'s, measured by the other Python', reduce_row)
    check('| 88% NVLink |' in md and 'Limit: GPU<->GPU' in md, 'the NVLink limit in the Markdown')
    check(any(h.startswith('Several GPUs, Python, all-reduce 256 MiB, busbw: GCuda Communicator.all_reduce, '
                           'one process 360.0 GB/s vs PyTorch') for h in doc['headlines']),
          'the all-reduce headline', doc['headlines'])

    check(any(h.startswith('Launch overhead, C, empty kernel, 3 arguments: gcuda_function_launch (KernelArgs) '
                           '2.500 µs vs raw cuLaunchKernel, kernelParams 2.000 µs: ratio 1.250 (GCuda 1.25x slower)')
              for h in doc['headlines']), 'a headline line', doc['headlines'])
    for label in ('NVIDIA H200', '580.95.05', 'NVRTC | 13.0', 'commit 0123456789abcdef', 'Fixture CPU 9000',
                  '63.0 GB/s per direction', 'memory clock 3201 MHz'):
        check(label in md, 'the environment has %s' % label)

    with open(os.path.join(SRC, 'docs', 'performance.md')) as f:
        original = f.read()
    with open(perf) as f:
        rewritten = f.read()
    markers = runpy.run_path(RUNNER, run_name='run_benchmarks')
    begin, end = markers['RESULTS_BEGIN'], markers['RESULTS_END']
    before, block, after = between(rewritten, begin, end)
    o_before, _, o_after = between(original, begin, end)
    check(before == o_before and after == o_after and 'gcuda_function_launch (KernelArgs)' in block,
          'docs/performance.md: the results replaced, the method kept')
    proc = run(['--from', FIXTURES, '--out', out, '--markdown', perf])
    with open(perf) as f:
        again = f.read()
    check(proc.returncode == 0 and again.count(begin) == 1 and again.count(end) == 1
          and between(again, begin, end)[0] == o_before,
          'rewriting docs/performance.md again replaces the same part')
    with open(readme) as f:
        text = f.read()
    r_before, r_block, _ = between(text, markers['HEADLINES_BEGIN'], markers['HEADLINES_END'])
    check('ratio 1.250' in r_block and '## Benchmarks' in r_before, 'README.md: the headlines in its Benchmarks section')

    plain = os.path.join(tmp, 'plain.md')
    with open(plain, 'w') as f:
        f.write('# no markers\n')
    proc = run(['--from', FIXTURES, '--out', out, '--markdown', plain])
    with open(plain) as f:
        check(proc.returncode == 1 and f.read() == '# no markers\n' and 'no results markers' in proc.stderr,
              'a file without the markers is left alone, with an error', proc.stderr)

    proc = run(['--python-path-variant', 'no-equals-sign', '--list'])
    check(proc.returncode == 2 and 'NAME=DIR' in proc.stderr, '--python-path-variant wants NAME=DIR')


def no_driver(tmp, build):
    out = os.path.join(tmp, 'none')
    # the --raw benchmarks are left out: their libraries load the driver
    # themselves (on a GPU host they would run)
    proc = run(['-C', build, '--out', out, '--quick', '--size-mib', '4', '--skip', '*-raw'],
               {'GCUDA_DRIVER_LIBRARY': '/nonexistent/libcuda.so.1'}, timeout=100)
    check(proc.returncode == 77 and 'Traceback' not in proc.stdout + proc.stderr,
          'without a driver nothing is measured: exit status 77, no traceback', proc.stdout + proc.stderr)
    try:
        with open(os.path.join(out, 'benchmarks.json')) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        check(False, 'without a driver the report is written', e)
        return
    jobs = doc['jobs']
    check(jobs and all(j['status'] == 'not run' and j.get('reason') for j in jobs),
          'without a driver every benchmark is "not run" with a reason',
          [(j['id'], j['status'], j.get('reason')) for j in jobs if j['status'] != 'not run' or not j.get('reason')])
    with open(os.path.join(out, 'benchmarks.md')) as f:
        md = f.read()
    check('- `memcpy`: not run: bench-memcpy: The CUDA driver library could not be loaded' in md,
          'the reason is the benchmark\'s own message')
    proc = run(['-C', build, '--out', out, '--only', 'memcpy-c'],
               {'GCUDA_DRIVER_LIBRARY': '/nonexistent/libcuda.so.1', 'GCUDA_TEST_REQUIRE_GPU': '1'})
    check(proc.returncode == 1 and 'did not run: memcpy' in proc.stderr,
          'GCUDA_TEST_REQUIRE_GPU=1 makes a benchmark that did not run a failure', proc.stderr)


def mock(tmp, build, driver):
    out = os.path.join(tmp, 'mock')
    proc = run(['-C', build, '--out', out, '--quick', '--size-mib', '4', '--only', 'memcpy-c,pool-c'],
               {'GCUDA_DRIVER_LIBRARY': driver, 'GCUDA_MOCK_DEVICES': '1'})
    check(proc.returncode == 0, 'on the mock driver the copy and pool benchmarks run', proc.stdout + proc.stderr)
    try:
        with open(os.path.join(out, 'benchmarks.json')) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        check(False, 'on the mock driver the report is written', e)
        return
    htod = find(rows_of(doc, 'memcpy-c'), 'HtoD pinned', 'GCuda C API')
    check(htod and htod['reps'] == 4 and htod['ratio'] and htod['reference_row'] == 'raw cuMemcpy*'
          and htod.get('of_limit'), 'a measured copy row with its reference, ratio and limit', htod)
    events = find(rows_of(doc, 'memcpy-c'), 'DtoD async, GPU time', 'GCuda C API')
    check(events and events.get('not_run') == 'the driver has no events',
          'the rows the mock cannot serve are "not run"', events)
    pool = find(rows_of(doc, 'pool-c'), '1 MiB', 'gcuda_buffer_new + unref (no pool)')
    check(pool and pool['reference_row'] == 'raw cuMemAlloc + cuMemFree' and pool['unit'] == 'µs',
          'a pool row beside the driver\'s allocation', pool)
    check(doc['environment'].get('device', '').startswith('NVIDIA') and doc['environment'].get('gcuda_version'),
          'the environment names the (mock) device and GCuda\'s version', doc['environment'])


def main():
    build, driver = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix='gcuda-test-report-')
    try:
        fixture_report(tmp)
        no_driver(tmp, build)
        mock(tmp, build, driver)
    except Exception:  # noqa: BLE001 - reported as a failed case
        import traceback
        check(False, 'the test ran to its end', traceback.format_exc())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print('1..%d' % len(results))
    failed = 0
    for i, (ok, what, detail) in enumerate(results, 1):
        print('%s %d - %s' % ('ok' if ok else 'not ok', i, what))
        if not ok:
            failed += 1
            for line in str(detail).splitlines() or ['']:
                print('# ' + line)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
