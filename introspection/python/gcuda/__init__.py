# PyCUDA-compatible modules on top of GCuda:
#   import gcuda.autoinit; import gcuda.driver as cuda
# mirror `import pycuda.autoinit; import pycuda.driver as cuda`.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
