# Kernel bundles from Python: gcuda-compile run by the test, bundles loaded
# with GCuda.Module.new_from_directory() and, from .gresource files built by
# tests/c/meson.build (bundles/report-arch.cu), new_from_resource().
# Without the gpu marker: what is checked before the driver is needed.
#
# Environment (tests/python/meson.build): GCUDA_TEST_COMPILE (gcuda-compile),
# GCUDA_TEST_BUNDLE_SOURCE (report-arch.cu), GCUDA_TEST_BUNDLE_GRESOURCES
# (':'-separated .gresource files holding /org/gnome/GCuda/tests/{multi,ptx,others}).
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import hashlib
import os
import re
import subprocess

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda, Gio, GLib  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from gcudatest import gpu, nvrtc, raises_gerror  # noqa: E402

COMPILE = os.environ.get('GCUDA_TEST_COMPILE', '')
SOURCE = os.environ.get('GCUDA_TEST_BUNDLE_SOURCE', '')
GRESOURCES = [p for p in os.environ.get('GCUDA_TEST_BUNDLE_GRESOURCES', '').split(':') if p]


def compile_bundle(directory, *args):
    """gcuda-compile into @directory; (exit status, stderr)."""
    run = subprocess.run([COMPILE, *args, '--output-dir', str(directory), SOURCE],
                         capture_output=True, text=True, timeout=120)
    return run.returncode, run.stderr


def read_manifest(directory):
    """The manifest parsed here, apart from GCuda's parser."""
    lines = (directory / 'manifest').read_text('ascii').split('\n')
    assert lines[0] == 'gcuda-kernel-bundle 1'
    assert lines[-2:] == ['end', '']
    fields = dict(line.split(' ', 1) for line in lines[1:3])
    assert re.fullmatch(r'\d+\.\d+', fields['nvrtc'])
    images = [line.split(' ') for line in lines[3:-2]]
    for image in images:
        assert image[0] == 'image' and len(image) == 6
    return fields, [(kind, arch, name, int(size), digest) for _, kind, arch, name, size, digest in images]


@pytest.fixture(scope='module')
def resources():
    assert GRESOURCES, 'GCUDA_TEST_BUNDLE_GRESOURCES is not set'
    loaded = [Gio.Resource.load(path) for path in GRESOURCES]
    for resource in loaded:
        resource._register()
    yield
    for resource in loaded:
        resource._unregister()


@nvrtc
def test_compile_writes_manifest(tmp_path):
    status, err = compile_bundle(tmp_path, '--arch', 'sm_80', '--arch', 'sm_90', '--ptx', 'compute_80',
                                 '--resource-prefix', '/org/example/App/kernels/arch',
                                 '--gresource-xml', str(tmp_path / 'arch.gresource.xml'))
    assert status == 0, err
    fields, images = read_manifest(tmp_path)
    assert fields['source'] == 'report-arch.cu'
    assert [(kind, arch, name) for kind, arch, name, _, _ in images] == [
        ('cubin', 'sm_80', 'report-arch.sm_80.cubin'),
        ('cubin', 'sm_90', 'report-arch.sm_90.cubin'),
        ('ptx', 'compute_80', 'report-arch.compute_80.ptx')]
    for kind, arch, name, size, digest in images:
        data = (tmp_path / name).read_bytes()
        assert len(data) == size
        assert hashlib.sha256(data).hexdigest() == digest
        if kind == 'cubin':
            assert data[:4] == b'\x7fELF'
        else:
            assert b'.target sm_80' in data and b'\0' not in data
    xml = (tmp_path / 'arch.gresource.xml').read_text()
    assert '<gresource prefix="/org/example/App/kernels/arch">' in xml
    for name in ['manifest'] + [image[2] for image in images]:
        assert '<file>%s</file>' % name in xml


@nvrtc
def test_compile_takes_comma_lists(tmp_path):
    # nvcc's form: one option, a comma list; mixed with a repeated option
    status, err = compile_bundle(tmp_path, '--arch', 'sm_80,sm_90', '--arch', 'sm_90,compute_80',
                                 '--ptx', 'compute_90,compute_80')
    assert status == 0, err
    _, images = read_manifest(tmp_path)
    assert [(kind, arch) for kind, arch, _, _, _ in images] == [
        ('cubin', 'sm_80'), ('cubin', 'sm_90'), ('ptx', 'compute_80'), ('ptx', 'compute_90')]
    for bad in ('sm_80,', ',sm_80', 'sm_80,,sm_90'):
        status, err = compile_bundle(tmp_path / 'out', '--arch', bad)
        assert status == 1 and 'empty item' in err and bad in err, err
    status, err = compile_bundle(tmp_path / 'out', '--arch', 'sm_80,sm_9x')
    assert status == 1 and '“sm_9x” is not an architecture' in err, err
    status, err = compile_bundle(tmp_path / 'out', '--ptx', 'compute_80,sm_90')
    assert status == 1 and '--ptx takes a virtual architecture' in err, err
    assert not (tmp_path / 'out').exists()


@nvrtc
def test_compile_refuses_bad_arch(tmp_path):
    status, err = compile_bundle(tmp_path / 'out', '--arch', 'sm_9x')
    assert status == 1
    assert 'sm_9x' in err
    assert not (tmp_path / 'out').exists()


def test_errors_before_the_driver(tmp_path):
    # a damaged manifest names its line, whether or not a driver is there
    (tmp_path / 'manifest').write_text('gcuda-kernel-bundle 1\nsource k.cu\nnvrtc 13\n')
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT) as info:
        GCuda.Module.new_from_directory(None, Gio.File.new_for_path(str(tmp_path)), None)
    assert 'line 3' in info.value.message
    with pytest.raises(GLib.Error) as info:
        GCuda.Module.new_from_directory(None, Gio.File.new_for_path(str(tmp_path / 'none')), None)
    assert info.value.matches(Gio.io_error_quark(), Gio.IOErrorEnum.NOT_FOUND)
    with pytest.raises(GLib.Error) as info:
        GCuda.Module.new_from_resource(None, '/org/gnome/GCuda/tests/nothing', None)
    assert info.value.matches(Gio.resource_error_quark(), Gio.ResourceError.NOT_FOUND)
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT):
        GCuda.Module.new_from_resource(None, 'relative/path', None)


def expected_arch(cubins, ptx):
    """__CUDA_ARCH__ of what a bundle must run on this device (0: nothing):
    its exact cubin, else one of its major version and a lower minor one,
    else the highest PTX not above it."""
    arch = device_arch()
    if arch in cubins:
        return arch * 10
    same = [c for c in cubins if c // 10 == arch // 10 and c < arch]
    if same:
        return max(same) * 10
    usable = [p for p in ptx if p <= arch]
    return max(usable) * 10 if usable else 0


def load_or_not_supported(path, cubins, ptx):
    """The module at @path, or None after checking the NOT_SUPPORTED error
    when this device can run none of its images."""
    if expected_arch(cubins, ptx) == 0:
        with raises_gerror(GCuda.Error.NOT_SUPPORTED) as info:
            GCuda.Module.new_from_resource(None, path, None)
        assert 'sm_%d' % device_arch() in info.value.message
        return None
    return GCuda.Module.new_from_resource(None, path, None)


def device_arch():
    major, minor = GCuda.Device.get(0).compute_capability()
    return major * 10 + minor


def run_report_arch(module):
    """__CUDA_ARCH__ of the image loaded, after checking axpb against numpy."""
    out = np.full(1, -2, np.int32)
    module.get_function('report_arch')(GCuda.Out(out), block=(1, 1, 1), grid=(1, 1))
    rng = np.random.default_rng()
    x = rng.uniform(-100, 100, 1000).astype(np.float32)
    y = np.zeros_like(x)
    module.get_function('axpb')(GCuda.Out(y), GCuda.In(x), np.float32(1.5), np.float32(-0.25), np.int32(x.size),
                                block=(128, 1, 1), grid=((x.size + 127) // 128, 1))
    np.testing.assert_allclose(y, np.float32(1.5) * x - np.float32(0.25), rtol=1e-5, atol=1e-5)
    return int(out[0])


@gpu
def test_resource_picks_the_device_cubin(resources):
    cubins, ptx = (75, 80, 90), (75,)
    module = load_or_not_supported('/org/gnome/GCuda/tests/multi', cubins, ptx)
    if module is not None:
        assert run_report_arch(module) == expected_arch(cubins, ptx)
    if device_arch() == 90:  # the H200: its own cubin
        assert run_report_arch(module) == 900


@gpu
def test_ptx_only_is_jit_compiled(resources):
    if device_arch() < 80:
        with raises_gerror(GCuda.Error.NOT_SUPPORTED):
            GCuda.Module.new_from_resource(None, '/org/gnome/GCuda/tests/ptx', None)
        return
    module = GCuda.Module.new_from_resource(None, '/org/gnome/GCuda/tests/ptx', GCuda.JitOptions())
    # __CUDA_ARCH__ in PTX is the virtual architecture it was compiled for
    assert run_report_arch(module) == 800


@gpu
def test_other_architectures_only(resources):
    cubins = (75, 80)
    module = load_or_not_supported('/org/gnome/GCuda/tests/others', cubins, ())
    if module is not None:  # a Turing or Ampere device runs them
        assert run_report_arch(module) == expected_arch(cubins, ())
        return
    with raises_gerror(GCuda.Error.NOT_SUPPORTED) as info:
        GCuda.Module.new_from_resource(None, '/org/gnome/GCuda/tests/others', None)
    assert 'cubins for sm_75, sm_80 and no PTX' in info.value.message
    assert '/org/gnome/GCuda/tests/others' in info.value.message


@gpu
def test_directory_and_corrupt_image(tmp_path):
    status, err = compile_bundle(tmp_path, '--arch', 'sm_%d' % device_arch())
    assert status == 0, err
    directory = Gio.File.new_for_path(str(tmp_path))
    assert run_report_arch(GCuda.Module.new_from_directory(None, directory, None)) == device_arch() * 10
    _, images = read_manifest(tmp_path)
    path = tmp_path / images[0][2]
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x40
    path.write_bytes(bytes(data))
    with raises_gerror(GCuda.Error.INVALID_ARGUMENT) as info:
        GCuda.Module.new_from_directory(None, directory, None)
    assert 'SHA-256' in info.value.message


@gpu
def test_async(resources):
    loop = GLib.MainLoop()
    result = {}

    def done(source, res):
        try:
            result['module'] = GCuda.Module.new_from_resource_finish(res)
        except GLib.Error as e:
            result['error'] = e
        loop.quit()

    if expected_arch((75, 80, 90), (75,)) == 0:
        pytest.skip('nothing in the bundle runs on sm_%d' % device_arch())
    GCuda.Module.new_from_resource_async(None, '/org/gnome/GCuda/tests/multi', None, None, done)
    loop.run()
    assert 'error' not in result, result.get('error')
    assert run_report_arch(result['module']) == expected_arch((75, 80, 90), (75,))
