#!/bin/sh
# Makes a test catalogue of GCuda's messages without a translator, the way
# gettext makes en@quot: xgettext extracts the messages (as po/ does),
# msginit copies each English message as its translation, msgfilter rewrites
# every translation (here: a visible prefix), msgfmt compiles it.
#
#   make-catalog.sh OUTPUT.mo SOURCE...
#
# SPDX-License-Identifier: LGPL-2.1-or-later

set -eu
out=$1
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The keywords of GLib's gettext preset (meson's i18n.gettext(preset: 'glib')).
xgettext --from-code=UTF-8 --add-comments --language=C --no-wrap \
  --keyword=_ --keyword=N_ --keyword=C_:1c,2 --keyword=NC_:1c,2 \
  --keyword=g_dngettext:2,3 --keyword=g_dpgettext2:2c,3 \
  --output="$work/gcuda.pot" "$@" 2>"$work/xgettext.log" || { cat "$work/xgettext.log" >&2; exit 1; }
# A message that xgettext cut short (a macro such as G_GUINT64_FORMAT inside
# _() ends the string it sees: "... not %") would never be found at run
# time: the catalogue must have none, and xgettext must not warn.
cut=$(grep -E '^msgid ".*%"$' "$work/gcuda.pot" || true)
if [ -n "$cut" ] || grep -i 'warning' "$work/xgettext.log" >&2; then
  printf '%s\n' "$cut" >&2
  echo "make-catalog.sh: messages cut short (above): format numbers with PRIu64 & co. or %s, not G_*_FORMAT, inside _()" >&2
  exit 1
fi
msginit --no-translator --no-wrap --locale=en_US.UTF-8 --input="$work/gcuda.pot" --output-file="$work/en.po" >/dev/null 2>&1
msgfilter --keep-header --no-wrap --input="$work/en.po" --output-file="$work/pseudo.po" sed -e '1s/^/[en@pseudo] /'
msgfmt --check-format --output-file="$out" "$work/pseudo.po"
