#!/usr/bin/env python3
# check-cuda-enums.py CUDA_H GENERATOR COMMITTED: GCuda's public enums
# (libgcuda/gcuda-cuda-enums.h, committed so that they do not change with the
# toolkit at hand) are what tools/gen-cuda-enums.py makes of the toolkit's
# cuda.h. Built where cuda.h is found; prints TAP.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import difflib
import os
import subprocess
import sys
import tempfile

cuda_h, generator, committed = sys.argv[1:4]
print('1..1')
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, 'gcuda-cuda-enums.h')
    subprocess.run([sys.executable, generator, cuda_h, out], check=True, stdout=subprocess.DEVNULL)
    with open(out, encoding='utf-8') as f:
        fresh = f.readlines()
with open(committed, encoding='utf-8') as f:
    kept = f.readlines()
diff = list(difflib.unified_diff(kept, fresh, committed, 'from ' + cuda_h))
if diff:
    for line in diff[:60]:
        print('# ' + line.rstrip('\n'))
    print('not ok 1 - %s differs from what tools/gen-cuda-enums.py makes of %s' % (committed, cuda_h))
    sys.exit(1)
print('ok 1 - %s is what tools/gen-cuda-enums.py makes of %s' % (os.path.basename(committed), cuda_h))
