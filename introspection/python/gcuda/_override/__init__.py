# SPDX-License-Identifier: LGPL-2.1-or-later
"""The parts of GCuda's PyGObject override (gi/overrides/GCuda.py), one
module per area. Private: the override imports them, registers their
classes and exports their public names as GCuda.X."""

# The module the public classes and exceptions say they come from: PyGObject's
# override() takes the namespace from it, and reprs, tracebacks and pickles
# keep naming them as before the override was split.
OVERRIDE_MODULE = 'gi.overrides.GCuda'
