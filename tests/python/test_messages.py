# The library's messages reach C, Python, GJS and Vala callers alike, so
# they name no C function (gcuda_context_destroy()) and no C type name
# (GCudaContext): they say what happened, and name a class or a method the
# way every binding reads it (GCuda.Context, Context.get_default()). Checked
# on the translatable messages of libgcuda/*.c (what xgettext extracts).
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import glob
import os
import re

SOURCE_ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
LITERAL = r'"(?:[^"\\]|\\.)*"'
MESSAGE = re.compile(r'\bN?_\s*\(\s*((?:' + LITERAL + r'|\s+|PRI[a-zA-Z0-9]+|G_G[A-Z0-9_]+_FORMAT)+)\)')
C_ONLY = re.compile(r'\bgcuda_[a-z0-9_]+|\bGCuda[A-Z][A-Za-z0-9]*')


def messages():
    for path in sorted(glob.glob(os.path.join(SOURCE_ROOT, 'libgcuda', '*.c'))):
        with open(path, encoding='utf-8') as f:
            source = f.read()
        for m in MESSAGE.finditer(source):
            text = ''.join(s[1:-1] for s in re.findall(LITERAL, m.group(1)))
            yield '%s:%d' % (os.path.basename(path), source.count('\n', 0, m.start()) + 1), text


def test_messages_are_found():
    found = dict(messages())
    assert len(found) > 300, len(found)
    assert any(text == 'The CUDA context was destroyed' for text in found.values())


def test_no_message_names_c_functions_or_c_types():
    bad = ['%s: %s (%s)' % (where, text, ', '.join(sorted(set(C_ONLY.findall(text)))))
           for where, text in messages() if C_ONLY.search(text)]
    assert not bad, 'messages naming C functions or C type names:\n  ' + '\n  '.join(bad)
