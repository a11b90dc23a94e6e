#!/usr/bin/env python3
# Writes a Vala program that uses every public method, constructor, property
# (get and set) and async method of a .vapi once, for the build to compile
# with GCC 14's pointer and prototype errors: a signature whose C types do
# not match what valac emits (a `const char * const *` parameter passed a
# `gchar **`, say) breaks the build instead of a user's.
#
# The program is only compiled; it calls nothing when run.
#
#   gen-vala-api-check.py gcuda-1.vapi NAMESPACE OUTPUT.vala
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import re
import sys

NUMERIC = {'int', 'uint', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64',
           'long', 'ulong', 'short', 'ushort', 'size_t', 'ssize_t', 'char', 'uchar', 'double',
           'float', 'unichar'}


def split_top(text, sep=','):
    """Splits at sep outside <>, (), [] and {}."""
    parts, depth, cur = [], 0, ''
    for ch in text:
        if ch in '<([{':
            depth += 1
        elif ch in '>)]}':
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(cur)
            cur = ''
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return [p.strip() for p in parts]


def strip_attrs(text):
    text = text.strip()
    while text.startswith('['):
        depth = 0
        for i, ch in enumerate(text):
            if ch == '[':
                depth += 1
            elif ch == ']':
                depth -= 1
                if depth == 0:
                    text = text[i + 1:].strip()
                    break
    return text


class Api:
    def __init__(self, ns):
        self.ns = ns
        self.kinds = {}        # qualified name -> class/struct/enum/errordomain/interface/delegate
        self.delegates = {}    # qualified name -> (return type, [param types])
        self.members = []      # (kind, container, modifiers, text)


def parse(path, ns):
    api = Api(ns)
    stack = []  # (kind, qualified name)
    pending_kind = None
    for raw in open(path, encoding='utf-8'):
        line = raw.strip()
        if not line or line.startswith('/*') or line.startswith('//') or line.startswith('['):
            if line.startswith('}'):
                pass
            else:
                continue
        m = re.match(r'(?:public )?namespace (\w+) \{', line)
        if m:
            stack.append(('namespace', m.group(1)))
            continue
        m = re.match(r'public (?:sealed |abstract )?(class|struct|enum|errordomain|interface) (\w+)\b.*\{$', line)
        if m:
            q = '.'.join([s[1] for s in stack] + [m.group(2)])
            api.kinds[q] = m.group(1)
            stack.append((m.group(1), q))
            continue
        m = re.match(r'public delegate (.+?) (\w+) \((.*)\)(?: throws [\w.]+)?;$', line)
        if m:
            q = '.'.join([s[1] for s in stack] + [m.group(2)])
            api.kinds[q] = 'delegate'
            params = [param_type(p) for p in split_top(m.group(3))]
            api.delegates[q] = (m.group(1), params)
            continue
        if line.startswith('}'):
            stack.pop()
            continue
        if not stack:
            continue
        kind, container = stack[-1]
        if kind in ('enum', 'errordomain') and not line.startswith('public static'):
            continue
        if line.startswith('public '):
            api.members.append((kind, container, line))
    return api


def param_type(p):
    p = strip_attrs(p)
    p = re.sub(r'\s*=.*$', '', p)
    p = re.sub(r'^(out|ref|owned|unowned) ', lambda m: m.group(0), p)
    direction = ''
    m = re.match(r'(out|ref) (.*)$', p)
    if m:
        direction, p = m.group(1), m.group(2)
    p = re.sub(r'^(owned|unowned) ', '', p)
    name = p.rsplit(' ', 1)
    return (direction, name[0].strip() if len(name) == 2 else name[0])


class Writer:
    def __init__(self, api):
        self.api = api
        self.n = 0
        self.out = []

    def var(self):
        self.n += 1
        return 'v%d' % self.n

    def qualify(self, t):
        base = t.rstrip('?').replace('[]', '')
        if '.' not in base and base not in NUMERIC | {'bool', 'string', 'void'} and '<' not in base:
            cand = self.api.ns + '.' + base
            if cand in self.api.kinds:
                return t.replace(base, cand, 1)
        return t

    def value(self, t):
        """A declaration for a value of type t; returns the variable's name."""
        t = self.qualify(t)
        v = self.var()
        bare = t.rstrip('?')
        kind = self.api.kinds.get(bare)
        if t.endswith('[]') or t.endswith('[]?'):
            self.out.append('        %s %s = {};' % (t, v))
        elif bare in NUMERIC:
            self.out.append('        %s %s = 0;' % (t, v))
        elif bare == 'bool':
            self.out.append('        bool %s = false;' % v)
        elif bare == 'string':
            self.out.append('        %s %s = "";' % (t, v))
        elif kind == 'enum':
            self.out.append('        %s %s = (%s) 0;' % (bare, v, bare))
        elif kind == 'struct':
            self.out.append('        %s %s = {};' % (t, v))
        elif kind == 'delegate':
            ret, params = self.api.delegates[bare]
            names = ', '.join('a%d' % i for i in range(len(params)))
            body = '' if ret == 'void' else ' return %s; ' % self.default(ret)
            self.out.append('        %s %s = (%s) => {%s};' % (bare, v, names, body))
        else:
            self.out.append('        %s? %s = null;' % (bare, v))
        return v

    def default(self, t):
        t = self.qualify(t)
        bare = t.rstrip('?')
        if bare in NUMERIC:
            return '0'
        if bare == 'bool':
            return 'false'
        if self.api.kinds.get(bare) == 'enum':
            return '(%s) 0' % bare
        return 'null'

    def args(self, params):
        names = []
        for p in split_top(params):
            if p == '...':
                continue
            direction, t = param_type(p)
            if direction == 'out':
                v = self.var()
                self.out.append('        %s %s;' % (self.qualify(t), v))
                names.append('out ' + v)
            elif direction == 'ref':
                names.append('ref ' + self.value(t))
            else:
                names.append(self.value(t))
        return ', '.join(names)

    def instance(self, container):
        v = self.var()
        self.out.append('        %s? %s = null;' % (container, v))
        return v

    def emit(self, kind, container, line):
        line = re.sub(r'^public ', '', line)
        # property
        m = re.match(r'(?:owned |unowned |static )*(.+?) (@?\w+) \{(.*)\}$', line)
        if m:
            t, name, acc = m.group(1), m.group(2), m.group(3)
            obj = self.instance(container)
            if 'get;' in acc:
                self.out.append('        var %s = %s.%s;' % (self.var(), obj, name))
            if 'set;' in acc:
                v = self.value(t)
                self.out.append('        %s.%s = %s;' % (obj, name, v))
            return
        m = re.match(r'const .+ (\w+);$', line)
        if m:
            self.out.append('        var %s = %s.%s;' % (self.var(), container, m.group(1)))
            return
        # field
        m = re.match(r'(?:owned |unowned )*(.+?) (@?\w+);$', line)
        if m and '(' not in line:
            obj = self.instance(container)
            self.out.append('        var %s = %s.%s;' % (self.var(), obj, m.group(2)))
            return
        if line.startswith('signal '):
            return
        m = re.match(r'(static |async |virtual |abstract |override |new )*(.*?)\s*(@?[\w.]+) \((.*)\)(?: throws [\w., ]+)?;$',
                     line)
        if not m:
            raise SystemExit('gen-vala-api-check: cannot read: ' + line)
        mods = m.group(1) or ''
        full = line.split('(')[0]
        is_async = 'async' in full.split()
        is_static = 'static' in full.split()
        ret, name, params = m.group(2), m.group(3), m.group(4)
        short = container.rsplit('.', 1)[-1]
        if ret == '':
            is_ctor = name == short or name.startswith(short + '.')
        else:
            is_ctor = False
        if is_ctor:
            call = 'new %s%s (%s)' % (container.rsplit('.', 1)[0] + '.', name, self.args(params))
        elif is_static or kind == 'namespace':
            call = '%s.%s (%s)' % (container, name, self.args(params))
        else:
            obj = self.instance(container)
            call = '%s.%s (%s)' % (obj, name, self.args(params))
        if is_async:
            call = 'yield ' + call
        if ret == 'void':
            self.out.append('        %s;' % call)
        else:
            self.out.append('        var %s = %s;' % (self.var(), call))


def main():
    vapi, ns, output = sys.argv[1:4]
    api = parse(vapi, ns)
    w = Writer(api)
    for kind, container, line in api.members:
        w.emit(kind, container, line)
    body = '\n'.join(w.out)
    text = f'''/* Generated by tools/gen-vala-api-check.py from {vapi.rsplit("/", 1)[-1]}: do not edit. */
async void use_everything () throws GLib.Error {{
    if (GLib.Environment.get_variable ("GCUDA_VALA_API_CHECK_NEVER") == "run")
    {{
{body}
    }}
}}

int main (string[] args) {{
    if (args.length > 99999)
        use_everything.begin ();
    /* Compiled, not run: the build is the test. */
    print ("1..1\\nok 1 - every public signature of {vapi.rsplit("/", 1)[-1]} compiled\\n");
    return 0;
}}
'''
    with open(output, 'w', encoding='utf-8') as f:
        f.write(text)


if __name__ == '__main__':
    main()
