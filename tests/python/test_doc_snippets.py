# The ```python blocks of the guide pages (docs/*.md) are programs: each one
# runs on its own, in a child Python with the tests' environment, and must
# exit with status 0 (the blocks check their results with assert). A block
# that is only a fragment opts out with a line
#
#   <!-- doc-snippet: fragment -->
#
# just before its opening fence (an HTML comment: the reference does not show
# it); a fragment is still compiled. Compiling every block needs no GPU;
# running them does (the `gpu` marker). A page that is not a guide (measured
# results, say) says so with a line
#
#   <!-- doc-snippet: none -->
#
# and is not required to have a runnable block.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import os
import re
import subprocess
import sys

import pytest

from gcudatest import gpu

DOCS_DIR = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'docs'))
FRAGMENT_MARKER = '<!-- doc-snippet: fragment -->'
NOT_A_GUIDE_MARKER = '<!-- doc-snippet: none -->'
FENCE_RE = re.compile(r'^```(\w*)\s*$')


class Snippet:
    def __init__(self, page, line, code, fragment):
        self.page, self.line, self.code, self.fragment = page, line, code, fragment

    @property
    def name(self):
        return '%s:%d' % (self.page, self.line)


def snippets_of(path):
    """The ```python blocks of a markdown file, with the line of their fence."""
    found = []
    previous = ''  # the last non-blank line outside code
    block = None
    with open(path, encoding='utf-8') as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip('\n')
            fence = FENCE_RE.match(line)
            if block is None:
                if fence and fence.group(1):
                    block = (fence.group(1), number, previous.strip() == FRAGMENT_MARKER, [])
                elif line.strip():
                    previous = line
            elif fence and not fence.group(1):
                lang, start, fragment, lines = block
                if lang == 'python':
                    found.append(Snippet(os.path.basename(path), start, '\n'.join(lines) + '\n', fragment))
                block = None
                previous = ''
            else:
                block[3].append(line)
    assert block is None, '%s: a code block opened at line %d is not closed' % (path, block[1])
    return found


PAGES = sorted(os.path.join(DOCS_DIR, name) for name in os.listdir(DOCS_DIR) if name.endswith('.md'))
SNIPPETS = [s for page in PAGES for s in snippets_of(page)]


def is_marked_not_a_guide(path):
    with open(path, encoding='utf-8') as f:
        return any(line.strip() == NOT_A_GUIDE_MARKER for line in f)


def test_every_guide_page_has_runnable_python():
    assert PAGES, 'no guide pages in %s' % DOCS_DIR
    pages = {s.page for s in SNIPPETS if not s.fragment}
    missing = [os.path.basename(p) for p in PAGES
               if os.path.basename(p) not in pages and not is_marked_not_a_guide(p)]
    assert not missing, 'guide pages without a runnable ```python block: %s' % ', '.join(missing)


@pytest.mark.parametrize('snippet', SNIPPETS, ids=lambda s: s.name)
def test_snippet_compiles(snippet):
    compile(snippet.code, snippet.name, 'exec')


@gpu
@pytest.mark.parametrize('snippet', [s for s in SNIPPETS if not s.fragment], ids=lambda s: s.name)
def test_snippet_runs(snippet, tmp_path):
    # The tests' environment (typelib, override, library paths, cache
    # directory) is inherited; the working directory is an empty one.
    proc = subprocess.run([sys.executable, '-c', snippet.code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, '%s exited with status %d\n--- stdout\n%s\n--- stderr\n%s' % (
        snippet.name, proc.returncode, proc.stdout[-4000:], proc.stderr[-4000:])
