# The bad-input catalogue: a table of cases, each a short Python snippet run
# in a child process with G_DEBUG=fatal-criticals, and the one outcome it
# must have (see test_bad_input_catalogue.py, which runs them, and
# runner.py, which makes the children).
#
# A case:
#
#   case('memory/mem_alloc-zero', 'GCuda.mem_alloc(0)', err('INVALID_ARGUMENT'), MEMORY)
#
# - name: 'area/what', unique;
# - code: Python run with the names of prelude.py (GCuda, GLib, np, dev(),
#   ctx(), buf(), ...); its last statement is the bad call. Code in @setup
#   runs first, and must not fail: a setup that fails fails the case as a
#   broken case, not as the outcome;
# - expect: the outcome everywhere the case runs, one of
#     err(NAME)           a GCuda.Error (domain gcuda-error-quark) raised as a GCuda.CudaError
#     drv(NAME)           a GCuda.DriverError (the CUresult), raised as a GCuda.CudaError
#     nvrtc(NAME)         a GCuda.CompileError code (domain gcuda-compile-error-quark)
#     gerror(DOMAIN, N)   a GError of another library's domain (GLib's file errors)
#     raises(TypeName)    a Python exception (not a GLib.Error) of that class or a subclass,
#                         raised by PyGObject or the override before GCuda is reached
#     accepted(REASON)    no exception: REASON says in one line why that is right
#   and per environment, where they legitimately differ: nogpu=, mock=, gpu=;
# - envs: where it runs: 'nogpu' (no driver: GCUDA_DRIVER_LIBRARY unloadable),
#   'mock' (tests/mock/mock-libcuda.c), 'gpu' (a real device). NODRIVER
#   cases are checked before the driver is reached, so they run in all three;
#   MEMORY cases need contexts and memory (mock and gpu); GPU cases need
#   streams, events, modules or launches (gpu only);
# - defect: a known library defect ('defect: what is wrong'), for the
#   environments in @defect_envs (default: all of @envs): the expectation is
#   the CORRECT outcome, and @seen what the library does instead, as the
#   test describes an outcome ('accepted', 'crash (SIGSEGV)', 'critical',
#   'hang', 'gcuda-error-quark 0', 'TypeError'; or a tuple of them, or a dict
#   of them by environment). The case is an
#   xfail(strict=True) there while it shows exactly @seen: fixed, it turns
#   red (XPASS) until unmarked; changed otherwise, it fails.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import collections
import textwrap

NODRIVER = ('nogpu', 'mock', 'gpu')
MEMORY = ('mock', 'gpu')
GPU = ('gpu',)
ENVIRONMENTS = NODRIVER

Expect = collections.namedtuple('Expect', 'kind name domain reason')


def err(name):
    return Expect('gcuda', name, 'gcuda-error-quark', None)


def drv(name):
    return Expect('driver', name, 'gcuda-driver-error-quark', None)


def nvrtc(name):
    return Expect('compile', name, 'gcuda-compile-error-quark', None)


def gerror(domain, code):
    return Expect('gerror', code, domain, None)


def raises(type_name):
    return Expect('python', type_name, None, None)


def accepted(reason):
    assert reason and '\n' not in reason
    return Expect('accepted', None, None, reason)


Case = collections.namedtuple('Case', 'name code setup expect per_env envs defect defect_envs seen timeout')

CASES = collections.OrderedDict()


def case(name, code, expect, envs, setup='', nogpu=None, mock=None, gpu=None, defect=None,
         defect_envs=None, seen=None, timeout=None):
    assert name not in CASES, 'duplicate case %s' % name
    assert isinstance(expect, Expect), name
    assert set(envs) <= set(ENVIRONMENTS), name
    per_env = {e: x for e, x in (('nogpu', nogpu), ('mock', mock), ('gpu', gpu)) if x is not None}
    assert set(per_env) <= set(envs), '%s: an expectation for an environment it does not run in' % name
    if defect is not None:
        assert defect.startswith('defect: ') and seen, name
    c = Case(name, textwrap.dedent(code).strip(), textwrap.dedent(setup).strip(), expect, per_env,
             tuple(envs), defect, tuple(defect_envs or envs), seen, timeout)
    CASES[name] = c
    return c


def expectation(c, env):
    return c.per_env.get(env, c.expect)


def load():
    """Every case, from the area modules (imported for their case() calls)."""
    from . import (cases_device, cases_context, cases_stream, cases_memory, cases_host,  # noqa: F401
                   cases_compiler, cases_module, cases_kernel, cases_pool, cases_array, cases_tools,
                   cases_copy, cases_misc)
    return CASES


def for_env(env):
    return [c for c in load().values() if env in c.envs]
