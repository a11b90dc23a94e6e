#!/usr/bin/env python3
# Rewrites the gtk-doc references of doc comments as gi-docgen links:
#
#   #GCudaBuffer            -> [class@GCuda.Buffer]
#   #GCudaBuffer:size       -> [property@GCuda.Buffer:size]
#   #GCudaFoo::signal       -> [signal@GCuda.Foo::signal]
#   gcuda_buffer_new()      -> [ctor@GCuda.Buffer.new]
#   gcuda_stream_synchronize_async() -> [method@GCuda.Stream.synchronize_async]
#   gcuda_context_get_default()      -> [func@GCuda.Context.get_default]
#   %GCUDA_ERROR_FREED      -> [GCUDA_ERROR_FREED][error@GCuda.Error]
#   #GError, #GCancellable  -> [struct@GLib.Error], [class@Gio.Cancellable]
#
# The kind of each link comes from the GIR (build/introspection/GCuda-1.0.gir)
# and the GIRs it includes. gi-docgen before 2024.1 cannot link to an
# enumeration member, so a member keeps its name as the link's text and links
# to its enumeration. Only `/** ... */` blocks change, and in them neither
# code spans nor code blocks; %NULL, %TRUE, %FALSE, @parameters and a
# type's own name in its own block stay. Paragraphs a rewrite made wider than
# --width columns are re-wrapped.
#
# Run it on doc comments written in gtk-doc style, after a build (for the
# GIR):
#
#   tools/gtkdoc-to-gidocgen.py build/introspection/GCuda-1.0.gir libgcuda/*.[ch]
#
# With --check nothing is written: the references left are listed, and the
# exit status is 1 when there are any. A reference it cannot resolve is
# reported and left as it is.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import argparse
import collections
import os
import re
import sys
import xml.etree.ElementTree as ET

CORE = '{http://www.gtk.org/introspection/core/1.0}'
C = '{http://www.gtk.org/introspection/c/1.0}'
GLIB = '{http://www.gtk.org/introspection/glib/1.0}'

GIR_DIRS = [d for d in os.environ.get('GI_GIR_PATH', '').split(os.pathsep) if d] + \
    ['/usr/share/gir-1.0', '/usr/local/share/gir-1.0']

# C fundamental types: written as code, there is nothing to link to
FUNDAMENTAL = {'gboolean', 'gint', 'guint', 'gint8', 'guint8', 'gint16', 'guint16', 'gint32',
               'guint32', 'gint64', 'guint64', 'gsize', 'gssize', 'gpointer', 'gconstpointer',
               'gchar', 'guchar', 'gfloat', 'gdouble', 'goffset', 'gintptr', 'guintptr',
               'glong', 'gulong', 'gshort', 'gushort'}
KEPT_CONSTANTS = {'NULL', 'TRUE', 'FALSE'}

TYPE_FRAGMENTS = {'class': 'class', 'interface': 'iface', 'record': 'struct', 'union': 'struct',
                  'enumeration': 'enum', 'bitfield': 'flags', 'callback': 'callback',
                  'alias': 'alias'}

SIGIL_RE = re.compile(r'''
    (?P<signal>\#(?P<stype>[A-Z][A-Za-z0-9]+)::(?P<sname>[a-z0-9_-]*[a-z0-9]))
  | (?P<prop>\#(?P<ptype>[A-Z][A-Za-z0-9]+):(?P<pname>[a-z0-9_-]*[a-z0-9]))
  | (?P<type>\#(?P<tname>[A-Za-z_][A-Za-z0-9_]*))
  | (?P<const>%(?P<cname>[A-Z][A-Z0-9_]*))
  | (?P<func>(?<![\w.])(?P<fname>[a-z_][a-z0-9_]*)\(\))
''', re.X)

DOC_BLOCK_RE = re.compile(r'/\*\*\n.*?\*/', re.S)
LINE_RE = re.compile(r'^(?P<lead>\s*\*)(?P<indent>\s*)(?P<text>.*)$')
ITEM_START_RE = re.compile(r'(@\w+:|Returns:|- |\d+\. )')


def camel_to_macro(name):
    """GCudaDriverError -> GCUDA_DRIVER_ERROR"""
    return re.sub(r'([a-z0-9])([A-Z])', r'\1_\2', name).upper()


class Index:
    """C names -> gi-docgen links, for a namespace and the ones it includes."""

    def __init__(self):
        self.types = {}        # C type -> (fragment, 'Ns.Name')
        self.callables = {}    # C symbol -> link
        self.members = {}      # enumeration member -> (fragment, 'Ns.Name')
        self.constants = {}    # constant -> link
        self.domains = {}      # error domain macro -> 'Ns.Name' of its codes
        self.properties = collections.defaultdict(set)
        self.signals = collections.defaultdict(set)

    def load(self, path):
        namespace = ET.parse(path).getroot().find(CORE + 'namespace')
        ns = namespace.get('name')
        for node in namespace:
            tag = node.tag[len(CORE):]
            if tag in TYPE_FRAGMENTS:
                self._load_type(ns, tag, node)
            elif tag in ('function', 'function-macro'):
                self.callables.setdefault(node.get(C + 'identifier'), '[func@%s.%s]' % (ns, node.get('name')))
            elif tag == 'constant':
                self.constants.setdefault(node.get(C + 'type'), '[const@%s.%s]' % (ns, node.get('name')))

    def _load_type(self, ns, tag, node):
        if tag == 'record' and node.get(GLIB + 'is-gtype-struct-for'):
            return  # class structures are not linked by name
        fragment = TYPE_FRAGMENTS[tag]
        full = '%s.%s' % (ns, node.get('name'))
        ctype = node.get(C + 'type') or node.get(GLIB + 'type-name')
        if tag == 'enumeration' and node.get(GLIB + 'error-domain'):
            fragment = 'error'
            if ctype:
                self.domains.setdefault(camel_to_macro(ctype), full)
        if ctype:
            self.types.setdefault(ctype, (fragment, full))
        for member in node.findall(CORE + 'member'):
            self.members.setdefault(member.get(C + 'identifier'), (fragment, full))
        for child, child_fragment in (('constructor', 'ctor'), ('method', 'method'), ('function', 'func')):
            for f in node.findall(CORE + child):
                self.callables.setdefault(f.get(C + 'identifier'),
                                          '[%s@%s.%s]' % (child_fragment, full, f.get('name')))
        for p in node.findall(CORE + 'property'):
            self.properties[full].add(p.get('name'))
        for s in node.findall(GLIB + 'signal'):
            self.signals[full].add(s.get('name'))


def find_gir(name):
    for d in GIR_DIRS:
        path = os.path.join(d, name + '.gir')
        if os.path.exists(path):
            return path
    raise SystemExit('%s.gir not found in %s (set GI_GIR_PATH)' % (name, os.pathsep.join(GIR_DIRS)))


def load_index(gir):
    index = Index()
    index.load(gir)
    todo, seen = [gir], set()
    while todo:
        for include in ET.parse(todo.pop()).getroot().findall(CORE + 'include'):
            key = '%s-%s' % (include.get('name'), include.get('version'))
            if key not in seen:
                seen.add(key)
                todo.append(find_gir(key))
                index.load(todo[-1])
    return index


class Converter:
    def __init__(self, index, width):
        self.index = index
        self.width = width
        self.counts = collections.Counter()
        self.unresolved = []   # (path, line, reference)
        self.path = None

    def link(self, m, owner):
        """The gi-docgen form of the reference @m in the block of @owner, or
        None to leave it as it is."""
        index = self.index
        if m.group('signal'):
            t = index.types.get(m.group('stype'))
            name = m.group('sname').replace('_', '-')
            if t and name in index.signals[t[1]]:
                return '[signal@%s::%s]' % (t[1], name)
        elif m.group('prop'):
            t = index.types.get(m.group('ptype'))
            name = m.group('pname').replace('_', '-')
            if t and name in index.properties[t[1]]:
                return '[property@%s:%s]' % (t[1], name)
        elif m.group('type'):
            name = m.group('tname')
            if name in FUNDAMENTAL or name == owner:
                return '`%s`' % name
            if name in index.types:
                return '[%s@%s]' % index.types[name]
        elif m.group('const'):
            name = m.group('cname')
            if name in KEPT_CONSTANTS:
                return None
            if name in index.constants:
                return index.constants[name]
            if name in index.domains:
                full = index.domains[name]
                return None if name == owner or full.replace('.', '') == owner else \
                    '[%s][error@%s]' % (name, full)
            if name in index.members:
                fragment, full = index.members[name]
                return None if full.replace('.', '') == owner else '[%s][%s@%s]' % (name, fragment, full)
        elif m.group('func'):
            name = m.group('fname')
            if name == owner:
                return '`%s()`' % name
            if name in index.callables:
                return index.callables[name]
            if not name.startswith(('gcuda_', 'g_')):
                return None   # another API's function (PyCUDA's, the driver's): prose
        self.unresolved.append(m.group(0))
        return None

    def convert_text(self, text, owner):
        out, pos = [], 0
        for m in SIGIL_RE.finditer(text):
            replacement = self.link(m, owner)
            if replacement is None:
                continue
            out += [text[pos:m.start()], replacement]
            pos = m.end()
            kind = re.search(r'\[(\w+)@', replacement)
            self.counts[kind.group(1) if kind else 'code'] += 1
        return ''.join(out) + text[pos:]

    def convert_line(self, line, owner):
        # code spans stay as they are
        parts = re.split(r'(`[^`]*`)', line)
        return ''.join(p if len(p) > 1 and p.startswith('`') and p.endswith('`')
                       else self.convert_text(p, owner) for p in parts)

    def convert_block(self, block):
        lines = block.split('\n')
        original = list(lines)
        ident = re.match(r'\s*\*\s*([A-Za-z_][A-Za-z0-9_]*)', lines[1]) if len(lines) > 1 else None
        owner = ident.group(1) if ident else ''
        in_code = False
        for i in range(2, len(lines)):
            text = re.sub(r'^\s*\*?\s?', '', lines[i]).strip()
            if text.startswith('```') or text.startswith('|[') or text == ']|':
                in_code = not in_code if text.startswith('```') else text.startswith('|[')
                continue
            if not in_code:
                lines[i] = self.convert_line(lines[i], owner)
        if self.width:
            lines = rewrap(original, lines, self.width)
        return '\n'.join(lines)

    def convert(self, text):
        return DOC_BLOCK_RE.sub(lambda m: self.convert_block(m.group(0)), text)


def items(lines):
    """(start, end, wrappable) of the paragraphs and tag items of a doc
    block's lines; code, tables and headings are not wrappable."""
    i, n, in_code = 2, len(lines) - 1, False
    while i < n:
        m = LINE_RE.match(lines[i])
        text = m.group('text') if m else ''
        fence = text.strip().startswith(('```', '|[', ']|'))
        if fence:
            in_code = not in_code if text.strip().startswith('```') else text.strip().startswith('|[')
        if not m or not text.strip() or fence or in_code or text.startswith(('|', '#')):
            yield i, i + 1, False
            i += 1
            continue
        indent = len(m.group('indent'))
        j = i + 1
        while j < n:
            mj = LINE_RE.match(lines[j])
            tj = mj.group('text') if mj else ''
            if not mj or not tj.strip() or ITEM_START_RE.match(tj) or \
                    tj.startswith(('|', '#', '```')) or len(mj.group('indent')) < indent:
                break
            j += 1
        yield i, j, True
        i = j


def rewrap(original, lines, width):
    """Re-wraps the items a rewrite changed and left wider than @width."""
    out = lines[:2]
    for start, end, wrappable in items(lines):
        item = lines[start:end]
        if not wrappable or item == original[start:end] or all(len(l) <= width for l in item):
            out += item
            continue
        first = LINE_RE.match(item[0])
        lead = first.group('lead') + first.group('indent')
        if len(item) > 1:
            m = LINE_RE.match(item[1])
            continuation = m.group('lead') + m.group('indent')
        else:
            continuation = lead + '  ' if ITEM_START_RE.match(first.group('text')) else lead
        words = ' '.join(LINE_RE.match(l).group('text').strip() for l in item).split(' ')
        line = lead + words[0]
        for word in words[1:]:
            if len(line) + 1 + len(word) > width:
                out.append(line)
                line = continuation + word
            else:
                line += ' ' + word
        out.append(line)
    out += lines[len(lines) - 1:]
    return out


def main():
    parser = argparse.ArgumentParser(description='Rewrites gtk-doc references in doc comments as gi-docgen links.')
    parser.add_argument('--check', action='store_true',
                        help='write nothing; list the references left and exit with 1 if there are any')
    parser.add_argument('--width', type=int, default=80,
                        help='re-wrap rewritten paragraphs wider than this many columns (0: never)')
    parser.add_argument('gir', help='the GIR of the sources (build/introspection/GCuda-1.0.gir)')
    parser.add_argument('files', nargs='+', help='C sources and headers')
    args = parser.parse_args()

    converter = Converter(load_index(args.gir), 0 if args.check else args.width)
    left = 0
    for path in args.files:
        with open(path, encoding='utf-8') as f:
            text = f.read()
        before = sum(converter.counts.values())
        new = converter.convert(text)
        if new == text:
            continue
        if args.check:
            left += sum(converter.counts.values()) - before
            print('%s: %d gtk-doc reference(s)' % (path, sum(converter.counts.values()) - before))
        else:
            with open(path, 'w', encoding='utf-8') as f:
                f.write(new)
    if not args.check:
        for kind, n in sorted(converter.counts.items()):
            print('%-9s %d' % (kind, n))
    if converter.unresolved:
        print('not resolved (left as they are): %s' % ', '.join(
            '%s ×%d' % kv for kv in collections.Counter(converter.unresolved).most_common()), file=sys.stderr)
    return 1 if args.check and left else 0


if __name__ == '__main__':
    sys.exit(main())
