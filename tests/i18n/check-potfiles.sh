#!/bin/sh
# Every library source with a translatable message is in po/POTFILES.in (the
# list xgettext reads for the gcuda-pot target), and nothing listed is gone.
#
#   check-potfiles.sh SOURCE_ROOT
#
# SPDX-License-Identifier: LGPL-2.1-or-later

set -eu
cd "$1"
echo "1..1"
missing=$(grep -l '_ *("' libgcuda/*.c libgcuda-gtk/*.c 2>/dev/null | while read -r f; do
  grep -qx "$f" po/POTFILES.in || echo "$f"
done)
gone=$(grep -v '^#' po/POTFILES.in | while read -r f; do
  [ -z "$f" ] || [ -f "$f" ] || echo "$f"
done)
if [ -n "$missing$gone" ]; then
  echo "not ok 1 po/POTFILES.in lists every source with messages"
  [ -z "$missing" ] || echo "# not listed: $(echo $missing)"
  [ -z "$gone" ] || echo "# listed but absent: $(echo $gone)"
  exit 1
fi
echo "ok 1 po/POTFILES.in lists every source with messages"
