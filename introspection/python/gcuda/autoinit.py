# `import gcuda.autoinit`: like `pycuda.autoinit`, picks the default device
# (CUDA_DEVICE, ~/.cuda_device, else the first that works) and exposes
# `device` and `context`. GCuda needs no context stack, so nothing is pushed
# and nothing has to be popped at exit.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import gi

gi.require_version('GCuda', '1.0')
from gi.repository import GCuda  # noqa: E402

context = GCuda.Context.get_default()
device = context.get_device()
