# The guide pages (docs/*.md) become the API reference's extra pages
# (gi-docgen turns NAME.md into NAME.html): every page is in the reference's
# content files (docs/gcuda.toml.in) and the docs build's inputs
# (docs/meson.build), and every relative link between them resolves there:
# NAME.html to a page of the reference, #ANCHOR to a heading of the page
# linked. A link to NAME.md would not exist in the reference.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import os
import re

import pytest

DOCS_DIR = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'docs'))
PAGES = sorted(name for name in os.listdir(DOCS_DIR) if name.endswith('.md'))
LINK_RE = re.compile(r'\]\(([^)\s]+)\)')
FENCE_RE = re.compile(r'^```')


def read(name):
    with open(os.path.join(DOCS_DIR, name), encoding='utf-8') as f:
        return f.read()


def prose(text):
    """The page without its code blocks (a link there is code, not a link)."""
    out, inside = [], False
    for line in text.split('\n'):
        if FENCE_RE.match(line.strip()):
            inside = not inside
            out.append('')
        else:
            out.append('' if inside else line)
    return '\n'.join(out)


def anchors(name):
    """The ids Python-Markdown's toc extension (gi-docgen's) gives the headings."""
    ids = set()
    for line in prose(read(name)).split('\n'):
        m = re.match(r'^#{1,6}\s+(.*?)\s*#*\s*$', line)
        if m:
            text = re.sub(r'[`*_]', '', m.group(1))
            slug = re.sub(r'[^\w\s-]', '', text).strip().lower()
            ids.add(re.sub(r'[-\s]+', '-', slug))
    return ids


def content_files():
    toml = read('gcuda.toml.in')
    block = re.search(r'content_files\s*=\s*\[(.*?)\]', toml, re.S)
    assert block, 'docs/gcuda.toml.in has no content_files'
    return re.findall(r'"([^"]+)"', block.group(1))


def test_every_page_is_in_the_reference():
    listed = content_files()
    assert sorted(listed) == PAGES, 'docs/gcuda.toml.in content_files %s, docs/*.md %s' % (listed, PAGES)
    build = read('meson.build')
    for page in PAGES:
        assert "'%s'" % page in build, '%s is not among the docs build inputs in docs/meson.build' % page
        assert re.match(r'Title: .+\nSlug: ', read(page)), '%s has no Title:/Slug: header' % page


@pytest.mark.parametrize('page', PAGES)
def test_links_resolve(page):
    bad = []
    for target in LINK_RE.findall(prose(read(page))):
        if re.match(r'^[a-z]+:', target):  # https:, mailto:
            continue
        path, _, anchor = target.partition('#')
        if path == '':
            linked = page
        elif path.endswith('.html') and '/' not in path:
            linked = path[:-len('.html')] + '.md'
            if linked not in PAGES:
                bad.append('%s: no page %s in docs/' % (target, linked))
                continue
        else:
            bad.append('%s: link to a page as NAME.html (gi-docgen writes NAME.md there)' % target)
            continue
        if anchor and anchor not in anchors(linked):
            bad.append('%s: %s has no heading with the id "%s"' % (target, linked, anchor))
    assert not bad, '%s: links that do not resolve in the reference:\n  %s' % (page, '\n  '.join(bad))
