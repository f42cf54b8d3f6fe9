#!/usr/bin/env python3
"""Checks the desktop app's screenshot of the padded_batch preset at step 6 (weights).

    check_screenshot.py OUT.png [--size 1280x800]

Decodes the PNG with the standard library only (8-bit grey, RGB, grey+alpha or RGBA,
non-interlaced, any scanline filter) and asserts that it is a real frame of the app: its size,
many colours, the dark title bar across the top, viridis weights (dark purple to teal and
yellow in the cells and the legend) and the grey hatch of masked cells (shaders/heatmap.frag).
Prints one "ok - ..." line per check; exits 1 with "FAIL: ..." on the first failure.
"""

import struct
import sys
import zlib

CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}  # samples per pixel, by colour type

# viridis stops (src/app/widgets/heatmap.cpp, palette_stops) that a weights view must show.
VIRIDIS_DARK = (0x44, 0x01, 0x54)  # 0: the legend's left end
VIRIDIS_TEAL = [(0x2A, 0x78, 0x8E), (0x21, 0x91, 0x8C), (0x22, 0xA8, 0x84)]  # about 0.4 .. 0.6
VIRIDIS_YELLOW = (0xFD, 0xE7, 0x25)  # 1: the legend's right end
# The masked hatch of shaders/heatmap.frag: (0.80, 0.81, 0.83) and (0.62, 0.63, 0.66) × 255.
HATCH = [(204, 207, 212), (158, 161, 168)]


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def ok(message):
    print(f"ok - {message}")


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def decode_png(data):
    """Returns (width, height, rows) with rows a list of bytes objects, RGB per pixel."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("not a PNG file (bad signature)")
    pos, width, height, channels, idat = 8, 0, 0, 0, []
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            channels = CHANNELS.get(colour, 0)
            if depth != 8 or not channels or interlace:
                fail(f"unsupported PNG: depth {depth}, colour type {colour}, interlace {interlace}")
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + length
    if not width or not idat:
        fail("the PNG has no IHDR or no IDAT")
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    if len(raw) < height * (stride + 1):
        fail("the PNG's image data is too short")
    rows, prior = [], bytearray(stride)
    for y in range(height):
        at = y * (stride + 1)
        kind, row = raw[at], bytearray(raw[at + 1 : at + 1 + stride])
        if kind == 1:
            for i in range(channels, stride):
                row[i] = (row[i] + row[i - channels]) & 255
        elif kind == 2:
            row = bytearray((a + b) & 255 for a, b in zip(row, prior))
        elif kind == 3:
            for i in range(stride):
                left = row[i - channels] if i >= channels else 0
                row[i] = (row[i] + ((left + prior[i]) >> 1)) & 255
        elif kind == 4:
            for i in range(stride):
                left = row[i - channels] if i >= channels else 0
                up_left = prior[i - channels] if i >= channels else 0
                row[i] = (row[i] + paeth(left, prior[i], up_left)) & 255
        elif kind != 0:
            fail(f"bad PNG filter {kind} in row {y}")
        prior = row
        if channels == 3:
            rows.append(bytes(row))
        elif channels == 4:
            rgb = bytearray(width * 3)
            rgb[0::3], rgb[1::3], rgb[2::3] = row[0::4], row[1::4], row[2::4]
            rows.append(bytes(rgb))
        else:  # grey, grey + alpha
            grey = row[0::channels]
            rgb = bytearray(width * 3)
            rgb[0::3] = rgb[1::3] = rgb[2::3] = grey
            rows.append(bytes(rgb))
    return width, height, rows


def colour_counts(rows):
    counts = {}
    for row in rows:
        for i in range(0, len(row), 3):
            c = row[i : i + 3]
            counts[c] = counts.get(c, 0) + 1
    return {tuple(c): n for c, n in counts.items()}


def near(counts, target, tolerance):
    """Pixels whose every channel is within `tolerance` of `target`."""
    return sum(n for c, n in counts.items() if max(abs(a - b) for a, b in zip(c, target)) <= tolerance)


def hexc(c):
    return "#%02x%02x%02x" % tuple(c)


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    size = "1280x800"
    if "--size" in argv:
        size = argv[argv.index("--size") + 1]
        args.remove(size)
    if len(args) != 1:
        fail("usage: check_screenshot.py OUT.png [--size WxH]")
    want_w, want_h = (int(v) for v in size.split("x"))
    try:
        with open(args[0], "rb") as f:
            data = f.read()
    except OSError as e:
        fail(f"cannot read the screenshot: {e}")
    width, height, rows = decode_png(data)
    if (width, height) != (want_w, want_h):
        fail(f"the screenshot is {width}×{height}, expected {want_w}×{want_h}")
    ok(f"size {width}×{height}")

    counts = colour_counts(rows)
    if len(counts) < 100:
        fail(f"only {len(counts)} distinct colours, expected at least 100 (a blank or broken frame?)")
    ok(f"{len(counts)} distinct colours")

    # The title bar: the first rows are mostly one dark colour.
    top = colour_counts(rows[:4])
    bar, n = max(top.items(), key=lambda item: item[1])
    luminance = 0.2126 * bar[0] + 0.7152 * bar[1] + 0.0722 * bar[2]
    if luminance > 80 or n < 0.5 * 4 * width:
        fail(f"the first rows are mostly {hexc(bar)} ({n} of {4 * width} pixels), expected a dark bar")
    ok(f"dark title bar {hexc(bar)} in the first rows")

    for name, targets in [("dark purple (viridis 0)", [VIRIDIS_DARK]),
                          ("teal/green (viridis 0.4-0.6)", VIRIDIS_TEAL),
                          ("yellow (viridis 1)", [VIRIDIS_YELLOW])]:
        found = sum(near(counts, t, 12) for t in targets)
        if found < 4:
            fail(f"no {name} pixels near {', '.join(hexc(t) for t in targets)} ({found} found)")
        ok(f"{found} {name} pixels")

    # Masked cells: both hatch greys, in bulk. A frame without masked cells has none of them
    # within 1 (the UI's own greys are a few steps away); padded_batch's has tens of thousands.
    for grey in HATCH:
        found = near(counts, grey, 1)
        if found < 2000:
            fail(f"only {found} pixels of the masked-cell hatch {hexc(grey)}, expected at least 2000")
        ok(f"{found} masked-hatch pixels {hexc(grey)}")


if __name__ == "__main__":
    main(sys.argv[1:])
