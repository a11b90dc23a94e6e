#!/usr/bin/env python3
# check-fractal.py: compares the PNG that `gcuda-fractal --render` saved with
# the same Mandelbrot view computed here with numpy (float64, the kernel's
# formulas of examples/gtk/fractal.cu).
#
#   check-fractal.py FILE.png WIDTH HEIGHT [APP-STDOUT]
#   check-fractal.py --self-check      (no GPU: checks this checker)
#
# Tolerance: every pixel must carry a palette colour (or black, inside the
# set) and at most 0.5 % of the pixels may be more than one iteration away
# from the reference. The GPU contracts x*x - y*y + c into fused
# multiply-adds, numpy does not, so points near the boundary of an iteration
# band (and of the set) may land on the other side; one band of slack covers
# a last-bit difference, the 0.5 % the rare chaotic orbits that diverge.
#
# The PNG is decoded here with zlib and numpy (8 or 16 bits, RGB or RGBA,
# not interlaced): the GPU host's runtime has no image library for Python.
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import struct
import sys
import zlib

import numpy as np

# the view fractal.js renders with --render (HOME there)
CX, CY, SPAN, MAX_ITER = -0.75, 0.0, 2.8, 256
PALETTE = np.array([
    (66, 30, 15), (25, 7, 26), (9, 1, 47), (4, 4, 73),
    (0, 7, 100), (12, 44, 138), (24, 82, 177), (57, 125, 209),
    (134, 181, 229), (211, 236, 248), (241, 233, 191), (248, 201, 95),
    (255, 170, 0), (204, 128, 0), (153, 87, 0), (106, 52, 3),
], dtype=np.uint8)
INSIDE = -1
TOLERANCE = 0.005


def read_png(path):
    """The pixels of a non-interlaced 8/16-bit RGB(A) PNG as uint8 (h, w, 4)."""
    with open(path, 'rb') as f:
        data = f.read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise ValueError(f'{path}: not a PNG file')
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b'IHDR':
            header = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat.append(body)
        elif kind == b'IEND':
            break
    width, height, depth, color, _, _, interlace = header
    if color not in (2, 6) or depth not in (8, 16) or interlace:
        raise ValueError(f'{path}: unsupported PNG (colour type {color}, depth {depth}, interlace {interlace})')
    channels = 4 if color == 6 else 3
    bpp = channels * depth // 8
    stride = width * bpp
    raw = np.frombuffer(zlib.decompress(b''.join(idat)), dtype=np.uint8)
    raw = raw.reshape(height, stride + 1)
    out = np.zeros((height, stride), dtype=np.uint8)
    prev = np.zeros(stride, dtype=np.uint8)
    for y in range(height):
        kind, line = raw[y, 0], raw[y, 1:]
        if kind == 0:
            cur = line.copy()
        elif kind == 1:   # Sub: a running sum per byte position within a pixel
            cur = np.cumsum(line.reshape(-1, bpp), axis=0, dtype=np.uint64).astype(np.uint8).reshape(-1)
        elif kind == 2:   # Up
            cur = line + prev
        elif kind in (3, 4):   # Average, Paeth: sequential along the row
            cur = bytearray(stride)
            src, up = line.tobytes(), prev.tobytes()
            for i in range(stride):
                a = cur[i - bpp] if i >= bpp else 0
                b = up[i]
                if kind == 3:
                    cur[i] = (src[i] + ((a + b) >> 1)) & 0xff
                else:
                    c = up[i - bpp] if i >= bpp else 0
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                    cur[i] = (src[i] + pred) & 0xff
            cur = np.frombuffer(bytes(cur), dtype=np.uint8)
        else:
            raise ValueError(f'{path}: bad filter type {kind} in row {y}')
        out[y] = cur
        prev = cur
    pixels = out.reshape(height, width, channels * depth // 8)
    if depth == 16:   # the high bytes
        pixels = pixels.reshape(height, width, channels, 2)[..., 0]
    if channels == 3:
        pixels = np.concatenate([pixels, np.full((height, width, 1), 255, np.uint8)], axis=2)
    return pixels


def reference_iterations(width, height):
    """Escape iterations per pixel, as fractal.cu counts them (MAX_ITER inside)."""
    scale = SPAN / height
    px = np.arange(width, dtype=np.float64)
    py = np.arange(height, dtype=np.float64)
    x0 = CX + (px + 0.5 - 0.5 * width) * scale
    y0 = CY - (py + 0.5 - 0.5 * height) * scale
    c_re = np.broadcast_to(x0[None, :], (height, width)).reshape(-1)
    c_im = np.broadcast_to(y0[:, None], (height, width)).reshape(-1)
    n = np.zeros(c_re.size, dtype=np.int32)
    idx = np.arange(c_re.size)
    x = np.zeros(c_re.size)
    y = np.zeros(c_re.size)
    cr, ci = c_re.copy(), c_im.copy()
    for _ in range(MAX_ITER):
        alive = x * x + y * y <= 4.0
        if not alive.all():
            idx, x, y, cr, ci = idx[alive], x[alive], y[alive], cr[alive], ci[alive]
        if idx.size == 0:
            break
        x, y = x * x - y * y + cr, 2.0 * x * y + ci
        n[idx] += 1
    return n.reshape(height, width)


def colour_to_band(pixels):
    """Palette index (0..15) of each pixel, INSIDE for black, -2 for a colour not in the palette."""
    rgb = pixels[..., :3].astype(np.int32)
    key = (rgb[..., 0] << 16) | (rgb[..., 1] << 8) | rgb[..., 2]
    band = np.full(key.shape, -2, dtype=np.int32)
    band[key == 0] = INSIDE
    for i, (r, g, b) in enumerate(PALETTE.astype(np.int32)):
        band[key == ((r << 16) | (g << 8) | b)] = i
    return band


def image_of(iterations):
    """What fractal.cu writes for these iteration counts (for --self-check)."""
    pixels = np.zeros(iterations.shape + (4,), dtype=np.uint8)
    pixels[..., 3] = 255
    outside = iterations < MAX_ITER
    pixels[outside, :3] = PALETTE[iterations[outside] % 16]
    return pixels


def compare(pixels, reference):
    """The fraction of pixels more than one iteration off, and a description."""
    band = colour_to_band(pixels)
    foreign = band == -2
    ref_inside = reference >= MAX_ITER
    got_inside = band == INSIDE
    d = (band - reference) % 16
    near = (d == 0) | (d == 1) | (d == 15)
    ok = np.where(ref_inside,
                  got_inside | (band == (MAX_ITER - 1) % 16),
                  np.where(got_inside, reference >= MAX_ITER - 1, near))
    ok &= ~foreign
    ok &= pixels[..., 3] == 255
    exact = np.where(ref_inside, got_inside, ~got_inside & (d == 0)) & ~foreign
    bad = 1.0 - ok.mean()
    text = (f'{pixels.shape[1]}x{pixels.shape[0]}: {exact.mean() * 100:.3f} % exact, '
            f'{bad * 100:.3f} % more than one iteration off (tolerance {TOLERANCE * 100} %), '
            f'{foreign.sum()} pixels not in the palette, '
            f'{ref_inside.mean() * 100:.1f} % inside the set (reference), {got_inside.mean() * 100:.1f} % (image)')
    return bad, text


def self_check():
    """Without a GPU: the checker accepts the reference, rejects a wrong image."""
    w, h = 160, 120
    ref = reference_iterations(w, h)
    assert 0.1 < (ref >= MAX_ITER).mean() < 0.5, 'the view should show a good part of the set'
    bad, text = compare(image_of(ref), ref)
    print('reference itself:', text)
    assert bad == 0.0
    shifted = image_of(np.minimum(ref + 2, MAX_ITER))
    bad, text = compare(shifted, ref)
    print('two iterations off:', text)
    assert bad > 0.5
    moved = image_of(np.roll(ref, 3, axis=1))
    bad, text = compare(moved, ref)
    print('moved by 3 pixels:', text)
    assert bad > TOLERANCE
    one_off = image_of(np.minimum(ref + 1, MAX_ITER))
    bad, text = compare(one_off, ref)
    print('one iteration off:', text)
    assert bad == 0.0
    check_png_reader(image_of(ref))
    print('self-check OK')


def write_png(path, pixels, filters):
    """An RGBA PNG whose row y uses filter filters[y % len(filters)]."""
    h, w, _ = pixels.shape
    rows, prev, bpp = [], bytes(w * 4), 4
    for y in range(h):
        cur, kind = pixels[y].tobytes(), filters[y % len(filters)]
        line = bytearray()
        for i in range(len(cur)):
            a = cur[i - bpp] if i >= bpp else 0
            b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
            if kind == 0:
                pred = 0
            elif kind == 1:
                pred = a
            elif kind == 2:
                pred = b
            elif kind == 3:
                pred = (a + b) >> 1
            else:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            line.append((cur[i] - pred) & 0xff)
        rows.append(bytes([kind]) + bytes(line))
        prev = cur

    def chunk(kind, body):
        return struct.pack('>I', len(body)) + kind + body + struct.pack('>I', zlib.crc32(kind + body))
    with open(path, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 6, 0, 0, 0))
                + chunk(b'IDAT', zlib.compress(b''.join(rows))) + chunk(b'IEND', b''))


def check_png_reader(pixels):
    """read_png() against PNGs with every filter type, and one that GTK wrote."""
    import os
    import tempfile
    rng = np.random.default_rng(1)
    noisy = pixels.copy()
    noisy[::7, ::5, :3] = rng.integers(0, 256, noisy[::7, ::5, :3].shape, dtype=np.uint8)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'filters.png')
        write_png(path, noisy, [0, 1, 2, 3, 4])
        assert np.array_equal(read_png(path), noisy), 'read_png() misreads a filter'
        print('read_png(): every filter type OK')
        try:
            import gi
            gi.require_version('Gdk', '4.0')
            from gi.repository import Gdk, GLib
        except (ImportError, ValueError) as e:
            print(f'(no GDK 4 here: a PNG written by GTK was not checked: {e})')
            return
        h, w, _ = noisy.shape
        texture = Gdk.MemoryTexture.new(w, h, Gdk.MemoryFormat.R8G8B8A8,
                                        GLib.Bytes.new(noisy.tobytes()), w * 4)
        path = os.path.join(tmp, 'gtk.png')
        assert texture.save_to_png(path)
        assert np.array_equal(read_png(path), noisy), 'read_png() misreads what GTK writes'
        print('read_png(): a PNG from Gdk.Texture.save_to_png() OK')


def main(argv):
    if argv[1:] == ['--self-check']:
        self_check()
        return 0
    if len(argv) not in (4, 5):
        print(f'usage: {argv[0]} FILE.png WIDTH HEIGHT [APP-STDOUT] | --self-check', file=sys.stderr)
        return 2
    path, width, height = argv[1], int(argv[2]), int(argv[3])
    if len(argv) == 5:
        # the view the app says it drew must be the one computed here
        expected = f'view: cx={CX:g} cy={CY:g} scale={SPAN / height!r} max_iter={MAX_ITER} julia=0'
        lines = open(argv[4]).read().splitlines()
        view = [line for line in lines if line.startswith('view: ')]
        print('app:', view[0] if view else '(no view line)')
        if view != [expected]:
            print(f'FAIL: the app should print "{expected}"', file=sys.stderr)
            return 1
        for line in lines:
            if line.startswith('median frame time:'):
                print(line)
    pixels = read_png(path)
    if pixels.shape[:2] != (height, width):
        print(f'FAIL: {path} is {pixels.shape[1]}x{pixels.shape[0]}, expected {width}x{height}', file=sys.stderr)
        return 1
    reference = reference_iterations(width, height)
    bad, text = compare(pixels, reference)
    print(text)
    if bad > TOLERANCE:
        print(f'FAIL: {bad * 100:.3f} % of the pixels differ by more than one iteration', file=sys.stderr)
        return 1
    print('PNG matches the CPU reference')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
