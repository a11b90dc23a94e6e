# `import gcuda.autoprimaryctx`: like `pycuda.autoprimaryctx`. GCuda's
# default context already is the device's primary context, so this is the
# same as `gcuda.autoinit`.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

from .autoinit import context, device  # noqa: F401
