#!/usr/bin/env python3
# gen-cuda-abi-check.py: writes the C source of the test cuda-abi-check, which
# asserts at compile time that GCuda's own declarations of the CUDA driver and
# NVRTC ABI (libgcuda/gcuda-cuda-abi-private.h, gcuda-nvrtc-abi-private.h)
# equal the toolkit's cuda.h, cudaTypedefs.h, cudaGL.h, cudaGLTypedefs.h and
# nvrtc.h.
#
# The declarations are the one source: every enumerator, #define, typedef,
# struct (each member, nested ones included) and every row of the function
# and callback tables is checked, so a new declaration is checked as soon as
# it is written. The headers follow the layout their introduction describes;
# anything else in them stops this script with an error.
#
# In the generated file, cuda.h's declarations keep their names and GCuda's
# are renamed gcuda_abi_NAME while its headers are included, so both can be
# compared in one translation unit: enum values, sizes, member offsets and
# member sizes, scalar typedefs by type, handles by their struct tag. The
# function-pointer types are compared after the renaming is undone, with the
# parameter types then naming cuda.h's types (each of which is checked too).
#
# Usage: gen-cuda-abi-check.py OUTPUT.c HEADER...
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import re
import sys

IDENT = r'[A-Za-z_]\w*'
# defined by the header for its own use, or compared specially
SPECIAL_DEFINES = {'CUDA_VERSION', 'CUDAAPI', 'CUDA_CB'}


def fail(msg):
    sys.exit('gen-cuda-abi-check.py: ' + msg)


def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    return re.sub(r'//[^\n]*', ' ', text)


def split_top(body, sep):
    """Split at sep outside braces."""
    parts, depth, cur = [], 0, ''
    for ch in body:
        if ch == '{':
            depth += 1
        elif ch == '}':
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(cur)
            cur = ''
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return [p.strip() for p in parts if p.strip()]


def members(body, prefix, where):
    """Leaf member paths of a struct/union body: [(path, is_array)]."""
    out = []
    for decl in split_top(body, ';'):
        m = re.match(r'(struct|union)\s*\{(.*)\}\s*(%s)$' % IDENT, decl, re.S)
        if m:
            out.append((prefix + m.group(3), False))
            out += members(m.group(2), prefix + m.group(3) + '.', where)
            continue
        m = re.match(r'(.+?)\b(%s)\s*((?:\[[^\]]+\])*)$' % IDENT, decl, re.S)
        if not m or '{' in decl:
            fail('%s: cannot read member %r' % (where, decl))
        out.append((prefix + m.group(2), bool(m.group(3))))
    return out


def parse(path):
    text = open(path, encoding='utf-8').read()
    defines = []
    for m in re.finditer(r'^\s*#\s*define\s+(%s)\s+(.+)$' % IDENT, text, re.M):
        name, value = m.group(1), m.group(2).strip()
        if name.startswith('GCUDA_') or name in SPECIAL_DEFINES or value.endswith('\\'):
            continue
        defines.append((name, value))
    code = strip_comments(text).replace('\\\n', ' ')
    code = re.sub(r'^\s*#[^\n]*', '', code, flags=re.M)  # preprocessor lines
    code = re.sub(r'^\s*GCUDA_\w+\s*\(\s*GCUDA_\w+\s*\)\s*$', '', code, flags=re.M)  # table expansions
    decls = {'enum': [], 'struct': [], 'handle': [], 'opaque': [], 'scalar': []}
    for stmt in split_top(code, ';'):
        stmt = ' '.join(stmt.split())
        if not stmt.startswith('typedef '):
            fail('%s: cannot read %r' % (path, stmt[:80]))
        m = re.match(r'typedef enum (?:(%s) )?\{(.*)\} (%s)$' % (IDENT, IDENT), stmt)
        if m:
            values = []
            for e in split_top(m.group(2), ','):
                em = re.match(r'(%s) = (.+)$' % IDENT, e)
                if not em:
                    fail('%s: enumerator without a value: %r' % (path, e))
                values.append(em.group(1))
            decls['enum'].append((m.group(3), m.group(1), values))
            continue
        m = re.match(r'typedef (struct|union) (?:(%s) )?\{(.*)\} (%s)$' % (IDENT, IDENT), stmt)
        if m:
            decls['struct'].append((m.group(4), m.group(2), members(m.group(3), '', m.group(4))))
            continue
        m = re.match(r'typedef struct (%s) ?\* ?(%s)$' % (IDENT, IDENT), stmt)
        if m:
            decls['handle'].append((m.group(2), m.group(1)))
            continue
        m = re.match(r'typedef struct (%s) (%s)$' % (IDENT, IDENT), stmt)
        if m:
            decls['opaque'].append((m.group(2), m.group(1)))
            continue
        m = re.match(r'typedef ([\w ]+) (%s)$' % IDENT, stmt)
        if m:
            decls['scalar'].append((m.group(2), m.group(1)))
            continue
        fail('%s: cannot read %r' % (path, stmt[:80]))
    return defines, decls


def main():
    out_path, headers = sys.argv[1], sys.argv[2:]
    defines, decls = [], {'enum': [], 'struct': [], 'handle': [], 'opaque': [], 'scalar': []}
    for h in headers:
        d, k = parse(h)
        defines += d
        for key in decls:
            decls[key] += k[key]

    renamed = set()
    for name, tag, values in decls['enum']:
        renamed.update([name] + ([tag] if tag else []) + values)
    for name, tag, _ in decls['struct']:
        renamed.update([name] + ([tag] if tag else []))
    for name, tag in decls['handle'] + decls['opaque']:
        renamed.update([name, tag])
    for name, _ in decls['scalar']:
        renamed.add(name)
    for name, _, mems in decls['struct']:
        for path, _ in mems:
            for part in path.split('.'):
                if part in renamed:
                    fail('member %s.%s has the name of a declaration' % (name, path))

    asserts = []   # (expression, message)
    counts = {'values': 0, 'sizes': 0, 'offsets': 0, 'types': 0}

    def check(kind, expr, msg):
        counts[kind] += 1
        asserts.append('_Static_assert (%s, "%s");' % (expr, msg.replace('"', '\\"')))

    ptr_defines = []
    int_defines = []
    for name, value in defines:
        if re.match(r'^\(?-?(0x[0-9a-fA-F]+|\d+)[uUlL]*\)?$', value):
            int_defines.append(name)
        else:
            ptr_defines.append(name)
    for name in int_defines:
        check('values', '%s == gcuda_toolkit_%s' % (name, name), '#define %s differs from the toolkit\'s' % name)
    for name, tag, values in decls['enum']:
        check('sizes', 'sizeof (%s) == sizeof (gcuda_abi_%s)' % (name, name), 'enum %s: size differs' % name)
        check('types', '((%s) -1 > (%s) 1) == ((gcuda_abi_%s) -1 > (gcuda_abi_%s) 1)' % (name, name, name, name), 'enum %s: signedness differs' % name)
        if tag:
            check('types', '__builtin_types_compatible_p (%s, enum %s)' % (name, tag), '%s: not enum %s' % (name, tag))
        for v in values:
            check('values', '(long long) %s == (long long) gcuda_abi_%s' % (v, v), '%s differs from cuda.h' % v)
    for name, tag, mems in decls['struct']:
        check('sizes', 'sizeof (%s) == sizeof (gcuda_abi_%s)' % (name, name), '%s: size differs' % name)
        if tag:
            kind = 'union' if name.endswith('union') or tag.endswith('_union') else 'struct'
            check('types', '__builtin_types_compatible_p (%s, %s %s)' % (name, kind, tag), '%s: not %s %s' % (name, kind, tag))
        for path, _ in mems:
            check('offsets', 'offsetof (%s, %s) == offsetof (gcuda_abi_%s, %s)' % (name, path, name, path),
                  '%s.%s: offset differs' % (name, path))
            check('sizes', 'sizeof (((%s *) 0)->%s) == sizeof (((gcuda_abi_%s *) 0)->%s)' % (name, path, name, path),
                  '%s.%s: size differs' % (name, path))
    for name, tag in decls['handle']:
        check('types', '__builtin_types_compatible_p (%s, struct %s *)' % (name, tag), '%s: not struct %s *' % (name, tag))
    for name, tag in decls['opaque']:
        check('types', '__builtin_types_compatible_p (%s, struct %s)' % (name, tag), '%s: not struct %s' % (name, tag))
    for name, ty in decls['scalar']:
        check('types', '__builtin_types_compatible_p (%s, %s)' % (name, ty), '%s: not %s' % (name, ty))

    o = []
    o.append('/* Generated by tools/gen-cuda-abi-check.py from %s. Do not edit. */\n'
             % ', '.join(h.split('/')[-1] for h in headers))
    o.append('#include <stddef.h>\n#include <stdint.h>\n#include <stdio.h>\n')
    o.append('#include <cuda.h>\n#include <cudaTypedefs.h>\n#include <cudaProfilerTypedefs.h>\n#include <nvrtc.h>')
    # the OpenGL interop entry points and CUGLDeviceList (cudaGL.h includes <GL/gl.h>)
    o.append('#include <cudaGL.h>\n#include <cudaGLTypedefs.h>\n')
    o.append('/* The toolkit\'s values of the macros GCuda defines too, before GCuda\'s replace them */')
    for name in int_defines:
        o.append('enum { gcuda_toolkit_%s = %s };' % (name, name))
    for name in ptr_defines:
        o.append('static const uintptr_t gcuda_toolkit_%s = (uintptr_t) %s;' % (name, name))
    for name in int_defines + ptr_defines:
        o.append('#undef %s' % name)
    o.append('enum { gcuda_toolkit_CUDA_VERSION = CUDA_VERSION };')
    o.append('#undef CUDA_VERSION\n#undef CUDAAPI\n#undef CUDA_CB\n')
    o.append('/* GCuda\'s declarations, renamed gcuda_abi_*; without their function types */')
    o.append('#define GCUDA_CUDA_ABI_NO_FUNCTION_TYPES 1')
    for name in sorted(renamed):
        o.append('#define %s gcuda_abi_%s' % (name, name))
    for h in headers:
        o.append('#include "%s"' % h.split('/')[-1])
    for name in sorted(renamed):
        o.append('#undef %s' % name)
    o.append('')
    o += asserts
    o.append('')
    o.append('#define GCUDA_ABI_CHECK_COUNTS "%d values, %d sizes, %d offsets, %d types"'
             % (counts['values'], counts['sizes'], counts['offsets'], counts['types']))
    o.append('#define GCUDA_ABI_CHECK_POINTER_DEFINES(X) \\')
    o.append(' \\\n'.join('  X (%s)' % n for n in ptr_defines) or '  /* none */')
    o.append('')
    open(out_path, 'w', encoding='utf-8').write('\n'.join(o) + '\n')


if __name__ == '__main__':
    main()
