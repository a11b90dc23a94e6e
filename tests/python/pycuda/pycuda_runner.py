# PyCUDA's test_driver.py against GCuda: the file with only its imports
# changed, run by pytest in a child process, each outcome compared with
# expected-outcomes.txt. TAP on stdout. See README.md.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import argparse
import hashlib
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
OUTCOMES = ('passed', 'failed', 'skipped', 'xfailed')

# An import statement naming the pycuda package: `import pycuda...` or
# `from pycuda... import`, at the start of a line. Nothing else is touched.
IMPORT = re.compile(r'^(\s*)(from|import)(\s+)pycuda\b', re.MULTILINE)


def convert(source):
    """@source with its import statements moved from pycuda to gcuda."""
    return IMPORT.sub(r'\1\2\3gcuda', source)


def read_expectations(path):
    """{node id: (outcome, text the failure message must contain or None)}"""
    expected = {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.split('#', 1)[0].strip() if line.lstrip().startswith('#') else line.strip()
            if not line:
                continue
            parts = line.split(None, 2)
            if len(parts) < 2 or parts[1] not in OUTCOMES or parts[0] in expected:
                raise SystemExit('%s:%d: malformed or repeated line %r' % (path, number, line))
            expected[parts[0]] = (parts[1], parts[2] if len(parts) > 2 else None)
    return expected


def read_junit(path):
    """{node id: (outcome, message)} from pytest's JUnit XML."""
    results = {}
    for case in ET.parse(path).iter('testcase'):
        classname = case.get('classname', '')
        # classname is "test_driver.TestDriver" or "test_driver"
        owner = classname.split('.', 1)[1] if '.' in classname else ''
        node = (owner + '::' if owner else '') + case.get('name')
        outcome, message = 'passed', ''
        for child in case:
            if child.tag in ('failure', 'error'):
                outcome = 'failed'
                message = (child.get('message') or '') + '\n' + (child.text or '')
            elif child.tag == 'skipped':
                outcome = 'xfailed' if child.get('type') == 'pytest.xfail' else 'skipped'
                message = child.get('message') or ''
        if node in results and results[node][0] == 'passed':
            results[node] = (outcome, message)  # a teardown error is reported as a second case
        else:
            results.setdefault(node, (outcome, message))
    return results


def gpu_problem():
    """None when GCuda finds a usable device, else why not."""
    import gi
    gi.require_version('GCuda', '1.0')
    from gi.repository import GCuda, GLib
    try:
        count = GCuda.Device.get_count()
    except GLib.Error as e:
        return '%s (%s %d)' % (e.message, e.domain, e.code)
    return None if count > 0 else 'the driver reports no CUDA device'


def one_line(text):
    return ' '.join(str(text).split()).replace('#', '\\#')


# PyCUDA's test/test_driver.py at the commit expected-outcomes.txt is for;
# tools/fetch-pycuda-tests puts it in upstream/ (ignored by git)
UPSTREAM_SHA256 = '1c99a3fa885e86b7541210ed9ff623899f5565c406048a108cc9f944f8ef49b1'


def upstream_test_file():
    """(the text of PyCUDA's test_driver.py, None), or (None, why not):
    GCUDA_PYCUDA_TEST_DRIVER, else upstream/test_driver.py, checked
    against the pinned SHA-256 (unmodified, the commit the expectations
    are for)."""
    path = os.environ.get('GCUDA_PYCUDA_TEST_DRIVER') or os.path.join(HERE, 'upstream', 'test_driver.py')
    try:
        with open(path, 'rb') as f:
            data = f.read()
    except OSError as e:
        return None, ('PyCUDA\'s test_driver.py is not here (%s: %s); GCuda does not ship it: '
                      'run tools/fetch-pycuda-tests (or set GCUDA_PYCUDA_TEST_DRIVER)' % (path, e.strerror))
    if hashlib.sha256(data).hexdigest() != UPSTREAM_SHA256:
        return None, ('%s is not PyCUDA\'s test_driver.py of the commit expected-outcomes.txt is for: '
                      'run tools/fetch-pycuda-tests' % path)
    return data.decode('utf-8'), None


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('-v', '--verbose', action='store_true', help="show pytest's own report")
    parser.add_argument('--keep', metavar='DIR', help='write the converted file and the report to DIR')
    parser.add_argument('--convert-only', metavar='FILE', help='only write the converted test file to FILE')
    args = parser.parse_args()

    source, problem = upstream_test_file()
    if source is None:
        # GCuda ships no third-party code: the file is fetched apart
        if os.environ.get('GCUDA_TEST_REQUIRE_GPU') == '1' or args.convert_only:
            print('Bail out! ' + problem)
            return 1
        print('1..0 # SKIP ' + problem)
        return 0
    converted = convert(source)
    if args.convert_only:
        with open(args.convert_only, 'w') as f:
            f.write(converted)
        return 0

    problem = gpu_problem()
    if problem is not None:
        if os.environ.get('GCUDA_TEST_REQUIRE_GPU') == '1':
            print('Bail out! GCUDA_TEST_REQUIRE_GPU=1 but no GPU is usable: ' + one_line(problem))
            return 1
        print('1..0 # SKIP no GPU: ' + one_line(problem))
        return 0

    expected = read_expectations(os.path.join(HERE, 'expected-outcomes.txt'))
    work = args.keep or tempfile.mkdtemp(prefix='gcuda-pycuda-tests-')
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, 'test_driver.py'), 'w') as f:
        f.write(converted)
    report = os.path.join(work, 'report.xml')
    # The test file's directory is the rootdir: GCuda's own conftest.py does
    # not apply, as PyCUDA's suite runs bare.
    command = [sys.executable, '-m', 'pytest', '-p', 'no:cacheprovider', '-rA', '-o', 'junit_family=xunit1',
               '--junitxml', report, '--rootdir', work, 'test_driver.py']
    run = subprocess.run(command, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True)
    if args.verbose:
        sys.stderr.write(run.stdout)
    if not os.path.exists(report):
        print('Bail out! pytest wrote no report (exit status %d): %s' % (run.returncode,
                                                                          one_line(run.stdout[-2000:])))
        return 1
    results = read_junit(report)

    lines, failed, number = [], 0, 0
    for node in sorted(set(expected) | set(results)):
        want = expected.get(node)
        got = results.get(node)
        ok = want is not None and got is not None and got[0] == want[0] and \
            (want[1] is None or want[1] in got[1])
        directive = ''
        if got is not None and got[0] in ('skipped', 'xfailed', 'failed') and ok:
            # not a TAP directive (no SKIP/TODO): an outcome the list expects
            directive = ' - expected %s: %s' % (got[0], one_line(got[1])[:200])
        number += 1
        lines.append('%s %d %s%s' % ('ok' if ok else 'not ok', number, node, directive))
        if not ok:
            failed += 1
            lines.append('# expected %s, got %s' % (
                ' '.join(w for w in want if w) if want else 'no such test',
                got[0] if got else 'no result'))
            if got is not None and got[1]:
                for text in got[1].strip().splitlines()[-30:]:
                    lines.append('# ' + text)
    print('TAP version 13')
    print('1..%d' % sum(1 for line in lines if not line.startswith('#')))
    for line in lines:
        print(line)
    counts = {o: sum(1 for r in results.values() if r[0] == o) for o in OUTCOMES}
    print('# PyCUDA test_driver.py: %(passed)d passed, %(skipped)d skipped, %(xfailed)d xfailed, '
          '%(failed)d failed' % counts)
    print('# %d of %d outcomes as expected' % (len([line for line in lines if line.startswith('ok')]),
                                               len(set(expected) | set(results))))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
