#!/usr/bin/env python3
# Checks GCuda's GIR for the convention docs/overview.md ("API conventions")
# states: every readable property has a C getter, and every plain getter
# (get_*/is_* taking only the instance, returning a value, not throwing) is
# the getter of a property. A getter that throws is a fallible query of the
# driver and stays a method. The exceptions are listed below, each with its
# reason; an entry that no longer matches a mismatch fails too, so the list
# cannot go stale.
#
# Usage: check-gir-properties.py GCuda-1.0.gir  (prints TAP, one case per class;
# GCudaGtk-1.0.gir too, with no exceptions)
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import sys
import xml.etree.ElementTree as ET

CORE = '{http://www.gtk.org/introspection/core/1.0}'
GLIB = '{http://www.gtk.org/introspection/glib/1.0}'

# Properties without a C getter: "Class:property".
PROPERTIES_WITHOUT_GETTER = {
    # GListModel's interface methods (g_list_model_get_item_type(),
    # g_list_model_get_n_items()) are their getters, as for GListStore.
    'DeviceModel:item-type',
    'DeviceModel:n-items',
}

# Plain getters that are not properties: "Class.method".
GETTERS_WITHOUT_PROPERTY = {
    # State that another thread (or a parent buffer, or the context) changes
    # under the caller, without a notification GObject could deliver in
    # order: asked, as g_cancellable_is_cancelled() is.
    'Array.is_freed',
    'Buffer.is_freed',
    'HostBuffer.is_freed',
    'Context.is_destroyed',
    # A copy of the log, replaced by each compile on its worker thread; a
    # property would notify on that thread.
    'Compiler.get_last_log',
    # The builder's argument count changes with every add_*(); a notifying
    # property would cost on the launch path.
    'KernelArgs.get_count',
}


def mismatches(gir_path):
    """{class name: [problem, ...]} for every class and interface."""
    namespace = ET.parse(gir_path).getroot().find(CORE + 'namespace')
    found = {}
    for cls in namespace.findall(CORE + 'class') + namespace.findall(CORE + 'interface'):
        name = cls.get('name')
        problems = found.setdefault(name, [])
        for prop in cls.findall(CORE + 'property'):
            if prop.get('readable') == '0':
                continue
            key = '%s:%s' % (name, prop.get('name'))
            if prop.get('getter') is None:
                problems.append(('property', key))
        for method in cls.findall(CORE + 'method'):
            mname = method.get('name')
            if not mname.startswith(('get_', 'is_')) or method.get('throws') == '1':
                continue
            params = method.find(CORE + 'parameters')
            if params is not None and params.findall(CORE + 'parameter'):
                continue
            ret = method.find(CORE + 'return-value')
            rtype = ret.find(CORE + 'type') if ret is not None else None
            if rtype is not None and rtype.get('name') == 'none':
                continue
            if method.get(GLIB + 'get-property') is None:
                problems.append(('getter', '%s.%s' % (name, mname)))
    return found


def main():
    if len(sys.argv) != 2:
        print('usage: check-gir-properties.py GCuda-1.0.gir', file=sys.stderr)
        return 2
    found = mismatches(sys.argv[1])
    # the exceptions are GCuda's; another GIR (GCudaGtk's) has none
    namespace = ET.parse(sys.argv[1]).getroot().find(CORE + 'namespace').get('name')
    allowed = ({('property', k) for k in PROPERTIES_WITHOUT_GETTER} |
               {('getter', k) for k in GETTERS_WITHOUT_PROPERTY}) if namespace == 'GCuda' else set()
    seen = set()
    print('TAP version 13')
    print('1..%d' % (len(found) + 1))
    failed = False
    for n, name in enumerate(sorted(found), 1):
        bad = [p for p in found[name] if p not in allowed]
        seen.update(p for p in found[name] if p in allowed)
        print('%s %d %s' % ('not ok' if bad else 'ok', n, name))
        for kind, key in bad:
            print('# %s' % (('%s is a readable property without a C getter: add one with '
                             '(get-property …), or list it with its reason') % key if kind == 'property'
                            else ('%s is a plain getter without a property: make it the property\'s '
                                  'getter, or list it with its reason') % key))
        failed |= bool(bad)
    stale = sorted(allowed - seen)
    print('%s %d allow-list entries all still needed' % ('not ok' if stale else 'ok', len(found) + 1))
    for kind, key in stale:
        print('# %s is listed but is no longer a mismatch: remove it from the list' % key)
    return 1 if failed or stale else 0


if __name__ == '__main__':
    sys.exit(main())
