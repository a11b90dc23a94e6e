#!/usr/bin/env python3
# device-info.py: list the CUDA devices with GCuda
#
# Exit status: 0 when the devices were listed; 1 when no GPU can be used
# here (no driver, no device: it says why on stderr, and what GCuda can
# still do here on stdout) or when no Python with PyGObject was found.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import os
import shutil
import subprocess
import sys

NAME = 'device-info'


def require_pygobject():
    """Import gi, or run this script again with a Python that has PyGObject.

    The python3 first on PATH may be one without it (a pyenv or conda build);
    under `meson devenv`, `import gi` then even succeeds, finding only GCuda's
    override directory on PYTHONPATH, which has no require_version()."""
    try:
        import gi
        gi.require_version  # noqa: B018 (a bare namespace package has none)
        return
    except (ImportError, AttributeError):
        pass
    if not os.environ.get('GCUDA_EXAMPLE_REEXEC'):
        candidates = [os.environ.get('GCUDA_PYTHON'), '/usr/bin/python3', shutil.which('python3')]
        for python in dict.fromkeys(p for p in candidates if p):
            if os.path.realpath(python) == os.path.realpath(sys.executable) and sys.flags.no_site == 0:
                continue
            try:
                found = subprocess.run([python, '-c', 'import gi; gi.require_version'],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
            except OSError:
                found = False
            if found:
                os.environ['GCUDA_EXAMPLE_REEXEC'] = '1'
                os.execv(python, [python] + sys.argv)
    print('%s: this Python (%s) has no PyGObject (the gi module), and no other python3 with it was found. '
          'Install it (Debian and Ubuntu: apt-get install python3-gi; Fedora: dnf install python3-gobject), '
          'or run this script with a Python that has it, such as /usr/bin/python3, '
          'or name one in GCUDA_PYTHON.' % (NAME, sys.executable), file=sys.stderr)
    sys.exit(1)


require_pygobject()

import gi  # noqa: E402
gi.require_version('GCuda', '1.0')
from gi.repository import GLib, GCuda  # noqa: E402

GIB = 1024 ** 3


def main():
    major, minor, revision = GCuda.get_cuda_version()
    print('GCuda %d.%d.%d' % (GCuda.get_major_version(), GCuda.get_minor_version(),
                              GCuda.get_micro_version()))
    print('CUDA version (headers): %d.%d.%d' % (major, minor, revision))

    driver = GCuda.get_driver_version()
    print('Driver version: %d.%d (%d)' % (driver // 1000, driver % 1000 // 10, driver))

    for ordinal in range(GCuda.Device.count()):
        dev = GCuda.Device(ordinal)  # the same object as GCuda.Device.get(ordinal)
        print()
        print('Device %d: %s' % (ordinal, dev.name()))
        print('  Compute capability: %d.%d' % dev.compute_capability())
        print('  Total memory:       %.2f GiB' % (dev.total_memory() / GIB))
        print('  Multiprocessors:    %d' % dev.multiprocessor_count)
        print('  PCI bus id:         %s' % dev.pci_bus_id())
        print('  UUID:               %s' % dev.get_uuid())

    # The primary context of the device chosen by CUDA_DEVICE,
    # ~/.cuda_device or the first device that works.
    ctx = GCuda.Context.get_default()
    free, total = ctx.get_memory_info()
    print()
    print('Default context: device %d, %.2f GiB free of %.2f GiB'
          % (ctx.get_device().get_ordinal(), free / GIB, total / GIB))


def without_gpu():
    """What GCuda can still do without a GPU: compile kernels with NVRTC."""
    print()
    try:
        version = GCuda.get_nvrtc_version()
        archs = GCuda.get_nvrtc_supported_archs()
    except GLib.Error as e:
        print('No GPU can be used here, and no kernel can be compiled either: %s' % e.message)
        return
    print('No GPU can be used here, but GCuda can still compile kernels (GCuda.Compiler, '
          'gcuda.compiler.compile(), the gcuda-compile tool; see docs/kernels.md):')
    print('  NVRTC %d.%d, cubins for %s, and PTX for compute_%d to compute_%d'
          % (version // 1000, version % 1000 // 10, ', '.join('sm_%d' % a for a in archs), archs[0], archs[-1]))


if __name__ == '__main__':
    try:
        main()
    except GLib.Error as e:  # GCuda.CudaError and its subclasses are GLib.Errors
        sys.stdout.flush()
        print('%s: %s' % (NAME, e.message), file=sys.stderr)
        sys.stderr.flush()
        without_gpu()
        sys.exit(1)
